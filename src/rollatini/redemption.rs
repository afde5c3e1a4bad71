//! Redemption (IHAT §6): the Anchor Set, `Redeem` / `ProveIssuer` (Client),
//! `VerifyRedemption` / `VerifyIssuer` (Moderator), and the `Redemption` message.

use core::fmt;

use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use super::issuance::{Endorsement, Signature, ENDORSEMENT_LEN};
use super::tree::{self, Key, Node};
use super::{
    check_redemption_context, context_base, derive_nonces, derive_scalars, encode_nonidentity,
    hash_to_scalar, Affine, Nullifier, PublicKey, Scalar, C, ELEMENT_LEN, MAX_ANCHOR_SET,
    SCALAR_LEN, SEED_LEN,
};
use crate::act::{encode_element, encode_scalar, read_scalar, Rejected};
use crate::group::{self, validation, Point};
use crate::privacy_pass::{varint_decode, varint_encode};
use crate::transcript::len_prefix;
use crate::wire::Reader;
use crate::{Error, Result};

/// The randomness `Redeem` draws: one `Nseed` block for `delta`, one for `ProveIssuer`'s
/// nonces.
pub const REDEEM_RAND_LEN: usize = 2 * SEED_LEN;

// ---------------------------------------------------------------------------------------------
// The Anchor Set

/// A Moderator's Anchor Set: the public keys of the Anchors whose Endorsements it accepts,
/// in the Moderator's order (the order is part of every proof statement, IHAT §6.2), from 1
/// to 65535 keys, no key twice. A set of one key is valid (depth 0) but names the Anchor.
#[derive(Clone, PartialEq, Eq)]
pub struct AnchorSet {
    keys: Vec<Affine<C>>,
    enc: Vec<[u8; ELEMENT_LEN]>,
}

impl fmt::Debug for AnchorSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnchorSet")
            .field("len", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl AnchorSet {
    /// The set of `keys`, in this order.
    ///
    /// # Errors
    /// [`Error::Batch`] for no key or more than 65535; [`Error::InvalidInput`] for a key
    /// listed twice.
    pub fn new(keys: &[PublicKey]) -> Result<Self> {
        if keys.is_empty() || keys.len() > MAX_ANCHOR_SET {
            return Err(Error::Batch);
        }
        let enc: Vec<[u8; ELEMENT_LEN]> = keys.iter().map(PublicKey::to_bytes).collect();
        let mut sorted = enc.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::InvalidInput);
        }
        Ok(Self {
            keys: keys.iter().map(|k| k.pk).collect(),
            enc,
        })
    }

    /// Strict decoding of the concatenated key encodings (a multiple of 33 bytes, each on the
    /// curve and not the identity), with the checks of [`Self::new`].
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`], or as
    /// [`Self::new`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.is_empty() || !bytes.len().is_multiple_of(ELEMENT_LEN) {
            return Err(Error::InvalidLength);
        }
        let keys = bytes
            .chunks_exact(ELEMENT_LEN)
            .map(PublicKey::from_bytes)
            .collect::<Result<Vec<_>>>()?;
        Self::new(&keys)
    }

    /// The concatenated key encodings.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.enc.concat()
    }

    /// The number of keys `n`.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always `false`: a set has at least one key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key at `i`, if any.
    pub fn get(&self, i: usize) -> Option<PublicKey> {
        self.keys.get(i).map(|&pk| PublicKey { pk })
    }

    /// The position of `key`, in constant time in `key` (the Client's Anchor is secret).
    fn ct_index_of(&self, key: &PublicKey) -> Option<u16> {
        let mut index = 0u16;
        let mut found = subtle::Choice::from(0);
        for (i, k) in self.keys.iter().enumerate() {
            let at = k.ct_eq(&key.pk);
            index.conditional_assign(&(i as u16), at);
            found |= at;
        }
        group::declassify(found).then_some(index)
    }

    /// `anchor_set[index]`, selected in constant time in `index`.
    fn ct_select(&self, index: u16) -> Affine<C> {
        let mut out = group::affine_identity::<C>();
        for (i, k) in self.keys.iter().enumerate() {
            out.conditional_assign(k, (i as u64).ct_eq(&u64::from(index)));
        }
        out
    }

    /// `ProofStatement(anchor_set, X_hat, shown, ctx_iss, ctx_red, challenge_digest)`
    /// (IHAT §6.2).
    fn statement(
        &self,
        x_hat: &[u8; ELEMENT_LEN],
        shown: &Signature,
        ctx_iss: &[u8],
        ctx_red: &[u8],
        challenge_digest: &[u8],
    ) -> Result<Vec<u8>> {
        let n = u16::try_from(self.keys.len()).map_err(|_| Error::Batch)?;
        let mut out = Vec::with_capacity(
            2 + (self.keys.len() + 1) * ELEMENT_LEN
                + ENDORSEMENT_LEN
                + 8
                + ctx_iss.len()
                + ctx_red.len()
                + challenge_digest.len(),
        );
        out.extend_from_slice(&n.to_be_bytes());
        for e in &self.enc {
            out.extend_from_slice(e);
        }
        out.extend_from_slice(x_hat);
        for x in [&shown.c, &shown.s, &shown.y, &shown.t] {
            out.extend_from_slice(&encode_scalar(x));
        }
        for v in [&shown.nf[..], ctx_iss, ctx_red, challenge_digest] {
            out.extend_from_slice(&len_prefix(v.len())?);
            out.extend_from_slice(v);
        }
        Ok(out)
    }

    /// The encodings of `BranchCommitment(proof_challenge, response, X_hat - pk_i)` =
    /// `proof_challenge * (X_hat - pk_i) + response * B` for every key, on public data,
    /// variable time; `error` for an identity commitment.
    fn vartime_branch_commitments(
        &self,
        x_hat: &Affine<C>,
        pc: &Scalar,
        response: &Scalar,
        error: Error,
    ) -> Result<Vec<Node>> {
        let base = group::vartime_lincomb::<C, 2>(
            &[
                Point::<C>::from(*x_hat),
                Point::<C>::from(Affine::<C>::generator()),
            ],
            &[*pc, *response],
        );
        let points: Vec<Point<C>> = self
            .keys
            .iter()
            .map(|k| base.vartime_add(&-group::vartime_mul::<C>(k, pc)))
            .collect();
        let mut affine = vec![group::affine_identity::<C>(); points.len()];
        group::normalize_slice::<C>(&points, &mut affine)?;
        affine
            .iter()
            .map(|p| encode_nonidentity(p).map_err(|_| error))
            .collect()
    }
}

/// `ComputeProofChallenge`: `HashToScalar(statement || SerializeElement(Q_0) || ... || root
/// || "IssuerProof")`.
fn proof_challenge(statement: &[u8], keys: &[Affine<C>], root: &Node) -> Result<Scalar> {
    let mut enc = Vec::with_capacity(keys.len() * ELEMENT_LEN);
    for k in keys {
        enc.extend_from_slice(&encode_element(k));
    }
    hash_to_scalar(&[statement, &enc, root, b"IssuerProof"])
}

// ---------------------------------------------------------------------------------------------
// The Redemption message

/// `Redemption = X_hat || c || s_hat || y || t || nf || proof_challenge || response ||
/// commitment_keys<V> || openings<V>` (IHAT §6.5): the rerandomised key, the Endorsement shown
/// under it, and the issuer-hiding proof. Public.
#[derive(Clone, PartialEq, Eq)]
pub struct Redemption {
    x_hat: Affine<C>,
    shown: Signature,
    pc: Scalar,
    response: Scalar,
    keys: Vec<Affine<C>>,
    openings: Vec<Scalar>,
}

impl fmt::Debug for Redemption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::wire::debug_hex(f, "Redemption", &self.to_bytes())
    }
}

impl Redemption {
    /// The nullifier `nf`. The Moderator must refuse a nullifier it has recorded, and record
    /// it before granting anything.
    pub fn nullifier(&self) -> &Nullifier {
        &self.shown.nf
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let q = self.keys.len();
        let mut out =
            Vec::with_capacity(ELEMENT_LEN + ENDORSEMENT_LEN + 2 * SCALAR_LEN + 8 + 65 * q);
        out.extend_from_slice(&encode_element(&self.x_hat));
        let mut sig = [0u8; ENDORSEMENT_LEN];
        self.shown.write(&mut sig);
        out.extend_from_slice(&sig);
        out.extend_from_slice(&encode_scalar(&self.pc));
        out.extend_from_slice(&encode_scalar(&self.response));
        varint_encode(q * ELEMENT_LEN, &mut out);
        for k in &self.keys {
            out.extend_from_slice(&encode_element(k));
        }
        varint_encode(self.openings.len() * SCALAR_LEN, &mut out);
        for o in &self.openings {
            out.extend_from_slice(&encode_scalar(o));
        }
        out
    }

    /// Strict decoding for a redemption against `anchor_set`: `X_hat` and every commitment
    /// key on the curve and not the identity, every scalar canonical, minimal varints, exactly
    /// `Depth(n) * 33` and `Depth(n) * 32` bytes of keys and openings, nothing after.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidEncoding`], [`Error::InvalidPoint`],
    /// [`Error::IdentityElement`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8], anchor_set: &AnchorSet) -> Result<Self> {
        let q = tree::depth(anchor_set.len());
        let mut r = Reader::new(bytes);
        let x_hat = r.element::<C>()?;
        let shown = Signature::read(&mut r)?;
        let pc = read_scalar(&mut r)?;
        let response = read_scalar(&mut r)?;
        let (keys, r) = read_vector(r, q, ELEMENT_LEN, |r| r.element::<C>())?;
        let (openings, r) = read_vector(r, q, SCALAR_LEN, read_scalar)?;
        r.finish()?;
        Ok(Self {
            x_hat,
            shown,
            pc,
            response,
            keys,
            openings,
        })
    }
}

/// `items<V>`: a minimal varint that must equal `count * item_len`, then `count` items.
fn read_vector<'a, T>(
    r: Reader<'a>,
    count: usize,
    item_len: usize,
    mut read: impl FnMut(&mut Reader<'a>) -> Result<T>,
) -> Result<(Vec<T>, Reader<'a>)> {
    let (len, rest) = varint_decode(r.rest())?;
    if len != count * item_len {
        return Err(Error::InvalidLength);
    }
    let mut r = Reader::new(rest);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(read(&mut r)?);
    }
    Ok((out, r))
}

// ---------------------------------------------------------------------------------------------
// Redeem (Client, IHAT §6.3)

impl Endorsement {
    /// `Redeem(anchor_set, index, endorsement, ctx_iss, ctx_red, challenge_digest)` (IHAT
    /// §6.3): `delta = DeriveScalars(random(48), "delta", 1)`, `X_hat = anchor_set[index] +
    /// delta * B`, the Endorsement shown under `X_hat`, and `ProveIssuer` (nonces from a
    /// second `random(48)`). `index` is the position of `anchor` (the Endorsement's Anchor)
    /// in the set, found in constant time. Constant time in `anchor`, `index`, `delta` and
    /// the Endorsement. Consumes the Endorsement.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `anchor` is not in the set, [`Error::InputTooLong`] for
    /// oversized contexts or digest, with the Endorsement handed back in [`Rejected`].
    pub fn redeem(
        self,
        anchor_set: &AnchorSet,
        anchor: &PublicKey,
        ctx_iss: &[u8],
        ctx_red: &[u8],
        challenge_digest: &[u8],
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> core::result::Result<Redemption, Rejected<Endorsement>> {
        let Some(index) = anchor_set.ct_index_of(anchor) else {
            return Err(Rejected {
                state: Box::new(self),
                error: Error::InvalidInput,
            });
        };
        let mut rand = Zeroizing::new([0u8; REDEEM_RAND_LEN]);
        rng.fill_bytes(&mut *rand);
        self.redeem_with(anchor_set, index, ctx_iss, ctx_red, challenge_digest, &rand)
    }

    pub(crate) fn redeem_with(
        self,
        anchor_set: &AnchorSet,
        index: u16,
        ctx_iss: &[u8],
        ctx_red: &[u8],
        challenge_digest: &[u8],
        rand: &[u8; REDEEM_RAND_LEN],
    ) -> core::result::Result<Redemption, Rejected<Endorsement>> {
        match self.redeem_inner(anchor_set, index, ctx_iss, ctx_red, challenge_digest, rand) {
            Ok(r) => Ok(r),
            Err(error) => Err(Rejected {
                state: Box::new(self),
                error,
            }),
        }
    }

    fn redeem_inner(
        &self,
        anchor_set: &AnchorSet,
        index: u16,
        ctx_iss: &[u8],
        ctx_red: &[u8],
        challenge_digest: &[u8],
        rand: &[u8; REDEEM_RAND_LEN],
    ) -> Result<Redemption> {
        // `index < n`: `AnchorSet::ct_index_of` found it, or `hazmat::redeem` checked it (no
        // branch on it here: it is secret).
        check_redemption_context(ctx_red)?;
        len_prefix(ctx_iss.len())?;
        len_prefix(challenge_digest.len())?;
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        seed.copy_from_slice(&rand[..SEED_LEN]);
        let d = derive_scalars(&seed, b"delta", 1)?;
        let delta = Zeroizing::new(*d.first().ok_or(Error::Batch)?);
        let mut x_hat = group::to_affine(
            &(Point::<C>::from(anchor_set.ct_select(index)) + group::mul_generator::<C>(&delta)),
        );
        // Published: the rerandomised key is sent.
        validation::publish(&mut x_hat);
        let x_enc = encode_nonidentity(&x_hat)?;
        let sig = &self.sig;
        let mut shown = Signature {
            c: sig.c,
            s: sig.s + sig.c * sig.y * *delta,
            y: sig.y,
            t: sig.t,
            nf: sig.nf,
        };
        // Published: the shown signature is sent.
        validation::publish(&mut shown);
        let statement = anchor_set.statement(&x_enc, &shown, ctx_iss, ctx_red, challenge_digest)?;
        seed.copy_from_slice(&rand[SEED_LEN..]);
        let (pc, response, keys, openings) =
            prove_issuer(anchor_set, index, &delta, &x_hat, &statement, &seed)?;
        Ok(Redemption {
            x_hat,
            shown,
            pc,
            response,
            keys,
            openings,
        })
    }
}

/// The issuer-hiding proof: `(proof_challenge, response, commitment_keys, openings)`.
type IssuerProof = (Scalar, Scalar, Vec<Affine<C>>, Vec<Scalar>);

/// `ProveIssuer` (IHAT §6.3) given the statement. Constant time in `index` and `delta`.
fn prove_issuer(
    anchor_set: &AnchorSet,
    index: u16,
    delta: &Scalar,
    x_hat: &Affine<C>,
    statement: &[u8],
    rand: &[u8; SEED_LEN],
) -> Result<IssuerProof> {
    let n = anchor_set.len();
    let q = tree::depth(n);
    let mut secret = Zeroizing::new([0u8; SCALAR_LEN + 2]);
    secret[..SCALAR_LEN].copy_from_slice(&encode_scalar(delta));
    secret[SCALAR_LEN..].copy_from_slice(&index.to_be_bytes());
    let d = derive_nonces(&*secret, b"ProveIssuer", &[statement], rand, 2 * q + 1)?;
    let (r, rest) = d.split_first().ok_or(Error::Batch)?;
    if rest.len() != 2 * q {
        return Err(Error::Batch);
    }
    let (trapdoors, first_openings) = rest.split_at(q);

    // `trapdoor_j * B` for every level and `r * B`, with one inversion.
    let points: Vec<Point<C>> = trapdoors
        .iter()
        .chain(core::iter::once(r))
        .map(group::mul_generator::<C>)
        .collect();
    let mut affine = vec![group::affine_identity::<C>(); points.len()];
    group::normalize_slice::<C>(&points, &mut affine)?;
    let (r_b, t) = affine.split_last().ok_or(Error::Batch)?;
    let mut keys = Vec::with_capacity(q);
    for (j, t) in t.iter().enumerate() {
        let bit = subtle::Choice::from(((u32::from(index) >> j) & 1) as u8);
        let mut key = Key::generate(!bit, t)?;
        // Published: the commitment key is sent (`P(Q)` follows from it).
        validation::publish(&mut key.q);
        validation::publish(&mut key.pq);
        keys.push(key);
    }
    let value = Zeroizing::new(encode_nonidentity(r_b)?);
    let first = tree::commit_at(&keys, n, index, &value, first_openings)?;
    let key_points: Vec<Affine<C>> = keys.iter().map(|k| k.q).collect();
    let mut pc = proof_challenge(statement, &key_points, &first.root)?;
    let mut response = *r - pc * delta;
    // Published: the proof's challenge and response are sent.
    validation::publish(&mut pc);
    validation::publish(&mut response);
    let leaves =
        anchor_set.vartime_branch_commitments(x_hat, &pc, &response, Error::InvalidInput)?;
    let openings = tree::equivocate(&first, &keys, trapdoors, first_openings, &leaves, index)?;
    Ok((pc, response, key_points, openings))
}

// ---------------------------------------------------------------------------------------------
// The Moderator (IHAT §5.5, §6.4)

/// A Moderator's verification context: its Anchor Set, the issuance context `ctx_iss` (with
/// `Z = CreateContextBase(ctx_iss)` computed once) and the redemption context `ctx_red`.
/// Everything it handles is public; its checks run in variable time.
#[derive(Clone)]
pub struct Moderator {
    anchor_set: AnchorSet,
    ctx_iss: Vec<u8>,
    ctx_red: Vec<u8>,
    z: Affine<C>,
}

impl fmt::Debug for Moderator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Moderator")
            .field("anchor_set", &self.anchor_set)
            .finish_non_exhaustive()
    }
}

impl Moderator {
    /// A Moderator accepting Endorsements of `anchor_set` issued under `ctx_iss` for
    /// `ctx_red`.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for oversized contexts.
    pub fn new(anchor_set: AnchorSet, ctx_iss: &[u8], ctx_red: &[u8]) -> Result<Self> {
        check_redemption_context(ctx_red)?;
        let z = context_base(ctx_iss)?;
        Ok(Self {
            anchor_set,
            ctx_iss: ctx_iss.to_vec(),
            ctx_red: ctx_red.to_vec(),
            z,
        })
    }

    /// The Anchor Set.
    pub fn anchor_set(&self) -> &AnchorSet {
        &self.anchor_set
    }

    /// `Verify(pkA, endorsement, ctx_iss, ctx_red)` (IHAT §5.5) under any Anchor key.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] (`VerifyError`) when the Endorsement does not verify.
    pub fn verify(&self, anchor: &PublicKey, endorsement: &Endorsement) -> Result<()> {
        endorsement
            .sig
            .vartime_verify(&anchor.pk, &self.z, &self.ctx_iss, &self.ctx_red)
    }

    /// `VerifyRedemption(anchor_set, redemption, ctx_iss, ctx_red, challenge_digest)` (IHAT
    /// §6.4): `Verify` of the shown Endorsement under `X_hat` and `VerifyIssuer` (every branch
    /// commitment recomputed, the tree rebuilt from the sent keys and openings, the proof
    /// challenge compared). Returns the nullifier, which the caller must refuse if recorded
    /// and record before granting anything (scoped to `ctx_iss`).
    ///
    /// # Errors
    /// [`Error::InvalidProof`] whichever check failed; [`Error::InvalidLength`] for a
    /// redemption with the wrong number of keys or openings for this set;
    /// [`Error::InputTooLong`] for an oversized digest.
    pub fn verify_redemption(
        &self,
        redemption: &Redemption,
        challenge_digest: &[u8],
    ) -> Result<Nullifier> {
        let set = &self.anchor_set;
        let q = tree::depth(set.len());
        if redemption.keys.len() != q || redemption.openings.len() != q {
            return Err(Error::InvalidLength);
        }
        let x_enc = encode_nonidentity(&redemption.x_hat)?;
        let statement = set.statement(
            &x_enc,
            &redemption.shown,
            &self.ctx_iss,
            &self.ctx_red,
            challenge_digest,
        )?;
        redemption.shown.vartime_verify(
            &redemption.x_hat,
            &self.z,
            &self.ctx_iss,
            &self.ctx_red,
        )?;
        let leaves = set.vartime_branch_commitments(
            &redemption.x_hat,
            &redemption.pc,
            &redemption.response,
            Error::InvalidProof,
        )?;
        let keys = redemption
            .keys
            .iter()
            .map(|&k| Key::vartime_public(k).map_err(|_| Error::InvalidProof))
            .collect::<Result<Vec<_>>>()?;
        let root = tree::vartime_commit(&leaves, &keys, &redemption.openings, Error::InvalidProof)?;
        let expected = proof_challenge(&statement, &redemption.keys, &root)?;
        if expected != redemption.pc {
            return Err(Error::InvalidProof);
        }
        Ok(redemption.shown.nf)
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(AnchorSet);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets() {
        assert_eq!(AnchorSet::new(&[]).err(), Some(Error::Batch));
        assert_eq!(AnchorSet::from_bytes(&[]).err(), Some(Error::InvalidLength));
        let g = PublicKey {
            pk: Affine::<C>::generator(),
        };
        assert!(AnchorSet::new(&[g]).is_ok());
        assert_eq!(AnchorSet::new(&[g, g]).err(), Some(Error::InvalidInput));
        let set = AnchorSet::new(&[g]).unwrap(); // ok: test
        assert_eq!(set.ct_index_of(&g), Some(0));
        assert_eq!(AnchorSet::from_bytes(&set.to_bytes()).unwrap(), set); // ok: test
    }
}
