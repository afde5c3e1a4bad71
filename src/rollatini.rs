//! Rollatini issuer-hiding anonymous tokens, `Rollatiniv1-P256-SHA256`
//! (draft-authors-mole-ihat-rollatini, the MoLE *Endorsement*, as pinned by ihat-rs at drafts
//! commit `03d3069`).
//!
//! An [`Anchor`] issues an [`Endorsement`] to a Client in three moves (a partially blind
//! Tessaro-Zhu signature bound to the issuance context `ctx_iss`). The Client later redeems it
//! at a [`Moderator`] that accepts a list of Anchors, its [`AnchorSet`]: the [`Redemption`]
//! shows the signature under a rerandomised key and proves, with a tree of commitments
//! logarithmic in the set size, that the key is a shift of one of the set's keys. The
//! Moderator learns the nullifier `nf` and not which Anchor issued the Endorsement.
//!
//! | step | who | function |
//! | --- | --- | --- |
//! | `GenerateKeyPair` / `DeriveKeyPair` (IHAT §4.4) | Anchor | [`Anchor::generate`], [`Anchor::derive`] |
//! | `Commit` (IHAT §5.2) | Anchor | [`Anchor::commit`] |
//! | `Challenge` (IHAT §5.3) | Client | [`ClientState::challenge`] |
//! | `Respond` (IHAT §5.4) | Anchor | [`Anchor::respond`] (consumes the [`AnchorState`]) |
//! | `Finalize` (IHAT §5.5) | Client | [`ClientState::finalize`] |
//! | `Verify` (IHAT §5.5) | Moderator | [`Moderator::verify`] |
//! | `Redeem` / `ProveIssuer` (IHAT §6.3) | Client | [`Endorsement::redeem`] |
//! | `VerifyRedemption` / `VerifyIssuer` (IHAT §6.4) | Moderator | [`Moderator::verify_redemption`] |
//!
//! Wire messages are the draft's encodings (IHAT §5.6, §6.5), decoded strictly: exact
//! lengths, minimal varints, canonical scalars, points on the curve and never the identity,
//! no trailing bytes. The hashing and derivation functions (`HashToScalar`, `DeriveScalars`,
//! `DeriveNonces`, `DeriveKeyPair`) are ACT's ([`crate::act`]) under Rollatini's `ctx_proto`.
//! Deterministic entry points for the vectors are in [`hazmat`]. Decisions on what the draft
//! leaves open: `docs/rollatini.md`.

use core::fmt;

use zeroize::Zeroizing;

use crate::act;
use crate::group::{self, validation, Affine, Curve, NistP256, Point};
use crate::transcript::len_prefix;
use crate::{Error, Result};

pub mod hazmat;
mod issuance;
mod permutation;
mod redemption;
mod tree;

pub use issuance::{
    AnchorState, ChallengeMessage, ChallengeResult, ClientState, CommitMessage, CommitResult,
    Endorsement, ResponseMessage,
};
pub use redemption::{AnchorSet, Moderator, Redemption};

type C = NistP256;
type Scalar = group::Scalar<C>;

/// The ciphersuite identifier (IHAT §7.1).
pub const IDENTIFIER: &str = "P256-SHA256";
/// `ctx_proto = "Rollatiniv1-" || identifier`: the versioned name of this wire format and of
/// every domain separation tag.
pub const CIPHERSUITE: &str = "Rollatiniv1-P256-SHA256";
const CTX: &[u8] = CIPHERSUITE.as_bytes();
/// `Nseed`: randomness is drawn in blocks of this many bytes.
pub const SEED_LEN: usize = 48;
/// `Nn`: the length of a nullifier.
pub const NULLIFIER_LEN: usize = 32;
/// Length of a scalar encoding (`Ns`).
pub const SCALAR_LEN: usize = 32;
/// Length of a compressed element (`Ne`).
pub const ELEMENT_LEN: usize = 33;
/// The largest Anchor Set: its size is encoded in two bytes (`I2OSP(n, 2)`, IHAT §6.2).
pub const MAX_ANCHOR_SET: usize = 65535;
/// The largest `ctx_iss` (`U16Prefixed`).
pub const MAX_ISSUANCE_CONTEXT: usize = 65535;
/// The largest `ctx_red`: `Message(nf, ctx_red)` is itself `U16Prefixed` (IHAT §4.1).
pub const MAX_REDEMPTION_CONTEXT: usize = 65535 - NULLIFIER_LEN - 4;

/// A nullifier `nf` (`Nn` random bytes chosen by the Client at issuance).
pub type Nullifier = [u8; NULLIFIER_LEN];

// ---------------------------------------------------------------------------------------------
// Helpers (IHAT §2, §4.2-4.5), all ACT's under Rollatini's `ctx_proto`

/// `HashToScalar(msg)` under `"HashToScalar-" || ctx_proto`.
fn hash_to_scalar(msg: &[&[u8]]) -> Result<Scalar> {
    act::hash_to_scalar_in(CTX, msg, b"HashToScalar-")
}

/// `DeriveScalars(rand, info, count)`.
fn derive_scalars(
    rand: &[u8; SEED_LEN],
    info: &[u8],
    count: usize,
) -> Result<Zeroizing<Vec<Scalar>>> {
    act::derive_scalars_in(CTX, rand, info, count)
}

/// `DeriveNonces(secret, label, instance, rand, count)`.
fn derive_nonces(
    secret: &[u8],
    label: &[u8],
    instance: &[&[u8]],
    rand: &[u8; SEED_LEN],
    count: usize,
) -> Result<Zeroizing<Vec<Scalar>>> {
    act::derive_nonces_in(CTX, secret, label, instance, rand, count)
}

/// `CreateContextBase(ctx_iss) = HashToGroup(U16Prefixed(ctx_iss) || "ContextBase")`.
fn context_base(ctx_iss: &[u8]) -> Result<Affine<C>> {
    let p = len_prefix(ctx_iss.len())?;
    let z = act::hash_to_group_in(CTX, &[&p, ctx_iss, b"ContextBase"])?;
    if group::declassify(z.is_identity()) {
        return Err(Error::InvalidInput);
    }
    Ok(z)
}

/// Checks that `Message(nf, ctx_red)` can be length-prefixed.
fn check_redemption_context(ctx_red: &[u8]) -> Result<()> {
    if ctx_red.len() > MAX_REDEMPTION_CONTEXT {
        return Err(Error::InputTooLong);
    }
    Ok(())
}

/// `ComputeChallenge`: `HashToScalar(U16Prefixed(ctx_iss) || U16Prefixed(SerializeElement(A))
/// || U16Prefixed(SerializeElement(C)) || U16Prefixed(Message(nf, ctx_red)) || "Challenge")`,
/// `Message(nf, ctx_red) = U16Prefixed(nf) || U16Prefixed(ctx_red)` (IHAT §5.3).
fn challenge_hash(
    ctx_iss: &[u8],
    a: &[u8; ELEMENT_LEN],
    c: &[u8; ELEMENT_LEN],
    nf: &Nullifier,
    ctx_red: &[u8],
) -> Result<Scalar> {
    check_redemption_context(ctx_red)?;
    let pi = len_prefix(ctx_iss.len())?;
    let pe = len_prefix(ELEMENT_LEN)?;
    let pm = len_prefix(2 + NULLIFIER_LEN + 2 + ctx_red.len())?;
    let pn = len_prefix(NULLIFIER_LEN)?;
    let pr = len_prefix(ctx_red.len())?;
    hash_to_scalar(&[
        &pi,
        ctx_iss,
        &pe,
        a,
        &pe,
        c,
        &pm,
        &pn,
        nf,
        &pr,
        ctx_red,
        b"Challenge",
    ])
}

/// `SerializeElement`, which has no value for the identity: [`Error::IdentityElement`].
fn encode_nonidentity(p: &Affine<C>) -> Result<[u8; ELEMENT_LEN]> {
    if group::declassify(p.is_identity()) {
        return Err(Error::IdentityElement);
    }
    Ok(act::encode_element(p))
}

// ---------------------------------------------------------------------------------------------
// Keys (IHAT §4.4)

/// An Anchor's public key `pkA = skA * B` (33 bytes compressed).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    pk: Affine<C>,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::wire::debug_hex(f, "PublicKey", &self.to_bytes())
    }
}

impl PublicKey {
    /// `SerializeElement(pkA)`.
    pub fn to_bytes(&self) -> [u8; ELEMENT_LEN] {
        act::encode_element(&self.pk)
    }

    /// Strict decoding (33 bytes, on the curve, not the identity).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self {
            pk: C::decode_compressed(bytes)?,
        })
    }

    /// `P(pkA)`, the permutation of IHAT §6.2.3 applied to this key (public; variable time).
    ///
    /// # Errors
    /// Never for a valid key (the walk always ends).
    pub fn vartime_permuted(&self) -> Result<PublicKey> {
        Ok(Self {
            pk: permutation::vartime_p(&self.pk, permutation::Direction::Forward)?,
        })
    }
}

/// An Anchor: its key `skA`, which signs Endorsements (IHAT §5). Zeroized on drop, `Debug`
/// redacted, compared in constant time; not `Clone`.
pub struct Anchor {
    sk: Scalar,
    public: PublicKey,
}

act::secret_key_traits!(Anchor);

impl Anchor {
    /// `GenerateKeyPair()`: `DeriveKeyPair(random(48), "GenerateKeyPair")`.
    ///
    /// # Errors
    /// [`Error::DeriveKeyPair`] (probability `~2^-256 * 256`).
    pub fn generate(rng: &mut (impl rand_core::CryptoRng + ?Sized)) -> Result<Self> {
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        rng.fill_bytes(&mut *seed);
        Self::derive(&seed, b"GenerateKeyPair")
    }

    /// `DeriveKeyPair(seed, info)` under `"DeriveKeyPair-Rollatiniv1-P256-SHA256"`.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] for `info` of 65536 bytes or more; [`Error::DeriveKeyPair`]
    /// when all 256 candidates are zero.
    pub fn derive(seed: &[u8; SEED_LEN], info: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(act::derive_key_scalar(CTX, seed, info)?))
    }

    fn from_scalar(sk: Scalar) -> Self {
        let mut pk = group::to_affine(&group::mul_generator::<C>(&sk));
        // Published: the public key (`skA` stays secret).
        validation::publish(&mut pk);
        Self {
            sk,
            public: PublicKey { pk },
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// `SerializeScalar(skA)`, in a wiping buffer.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SCALAR_LEN]> {
        Zeroizing::new(act::encode_scalar(&self.sk))
    }

    /// Strict decoding (32 bytes, canonical, non-zero).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::NonCanonicalScalar`] or [`Error::ZeroScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(group::decode_nonzero_scalar::<C>(bytes)?))
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(PublicKey);
#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Anchor);

/// `k * B + l * P`, constant time in `k`, `l` and `P`.
fn mul_gen_add(k: &Scalar, p: &Affine<C>, l: &Scalar) -> Point<C> {
    group::mul_generator::<C>(k) + group::mul_affine::<C>(p, l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts() {
        assert!(check_redemption_context(&[0u8; MAX_REDEMPTION_CONTEXT]).is_ok());
        assert_eq!(
            check_redemption_context(&[0u8; MAX_REDEMPTION_CONTEXT + 1]),
            Err(Error::InputTooLong)
        );
    }
}
