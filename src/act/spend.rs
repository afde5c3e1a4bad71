//! Spending and refunds (ACT §4.6): `ProveSpend`, `VerifySpend`, `IssueRefund`,
//! `FinalizeRefund`, and the Moderator's one-step verify + record + refund.

use core::fmt;
use std::collections::HashMap;
use std::sync::Mutex;

use elliptic_curve::ff::Field;
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::issuance::{
    check_proof_scalars, decode_response, encode_response, sign, split_rand, verify_signature,
    Credential, RESPONSE_LEN,
};
use super::proofs::{self, SpendInstance, REFUND, SPEND};
use super::{
    check_amount, commit, derive_scalars, draw, encode_element, encode_scalar, generators,
    read_scalar, read_u64, CredentialContext, Generators, PrivateKey, PublicKey, Reader, Rejected,
    Scalar, C, ELEMENT_LEN, SCALAR_LEN, SEED_LEN,
};
use crate::group::{self, validation, Affine, Curve, Point};
use crate::{Error, Result};

/// Length of a stored [`ClientSpendState`]: `k* || r* || uint64 v1 || uint64 s || uint64 a ||
/// K'` (121 bytes).
pub const SPEND_STATE_LEN: usize = 2 * SCALAR_LEN + 3 * 8 + ELEMENT_LEN;

/// `SpendMessage` (ACT §4.6.2, §4.7): `k || uint64 s || uint64 a || A' || B̄ || K_n ||
/// (Com1[L] | Com_c) || Com2[L]? || pok`. Its length depends on `s`, `a` and `L`; decode it
/// with the Moderator's `L` ([`Spend::from_bytes`]). Public.
#[derive(Clone, PartialEq, Eq)]
pub struct Spend {
    pub(crate) l: u8,
    pub(crate) k: Scalar,
    pub(crate) s: u64,
    pub(crate) a: u64,
    /// `[A', B̄, K_n, Com1[..] | Com_c, Com2[..]]`.
    pub(crate) points: Vec<Affine<C>>,
    pub(crate) proof: Vec<u8>,
}

impl fmt::Debug for Spend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spend")
            .field("l", &self.l)
            .field("s", &self.s)
            .field("a", &self.a)
            .finish_non_exhaustive()
    }
}

/// The number of commitments of a spend shape: `L` or 1, plus `L` or 0.
fn commitments(l: u8, s: u64, a: u64) -> usize {
    let l = usize::from(l);
    (if s > 0 { l } else { 1 }) + if a > 0 { l } else { 0 }
}

impl Spend {
    /// The exact length of a spend message with amounts `s`, `a` at width `l`:
    /// `129L + 403`, `468`, `129L + 468` or `258L + 403`.
    pub fn encoded_len_for(l: u8, s: u64, a: u64) -> usize {
        SCALAR_LEN
            + 16
            + (3 + commitments(l, s, a)) * ELEMENT_LEN
            + (1 + proofs::spend_scalars(l, s, a)) * SCALAR_LEN
    }

    /// The spend amount `s`.
    pub fn amount(&self) -> u64 {
        self.s
    }

    /// The top-up allowance `a`.
    pub fn top_up(&self) -> u64 {
        self.a
    }

    /// The balance width `L` the message was decoded or built for.
    pub fn bit_length(&self) -> u8 {
        self.l
    }

    /// The nullifier `k` (the first 32 bytes): the value the Moderator records.
    pub fn nullifier(&self) -> [u8; SCALAR_LEN] {
        encode_scalar(&self.k)
    }

    /// The draft's encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::encoded_len_for(self.l, self.s, self.a));
        out.extend_from_slice(&encode_scalar(&self.k));
        out.extend_from_slice(&self.s.to_be_bytes());
        out.extend_from_slice(&self.a.to_be_bytes());
        for p in &self.points {
            out.extend_from_slice(&encode_element(p));
        }
        out.extend_from_slice(&self.proof);
        out
    }

    /// Strict decoding with the Moderator's width `l` (ACT §4.7): reads `s` and `a`, refuses
    /// amounts of `L + 1` bits or more, then requires the exact length of that shape (a
    /// message built for another `L` fails here), canonical scalars, points on the curve and
    /// never the identity.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for `l` outside `1..=64`; [`Error::OutOfRange`] for
    /// `s` or `a` of `2^L` or more; [`Error::InvalidLength`], [`Error::InvalidPoint`],
    /// [`Error::IdentityElement`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8], l: u8) -> Result<Self> {
        if l == 0 || l > super::MAX_BIT_LENGTH {
            return Err(Error::UnsupportedValue);
        }
        let mut r = Reader::new(bytes);
        let k = read_scalar(&mut r)?;
        let s = read_u64(&mut r)?;
        let a = read_u64(&mut r)?;
        check_amount(u128::from(s), l)?;
        check_amount(u128::from(a), l)?;
        if bytes.len() != Self::encoded_len_for(l, s, a) {
            return Err(Error::InvalidLength);
        }
        let n = 3 + commitments(l, s, a);
        let mut points = Vec::with_capacity(n);
        for _ in 0..n {
            points.push(r.element::<C>()?);
        }
        let proof = r
            .take((1 + proofs::spend_scalars(l, s, a)) * SCALAR_LEN)?
            .to_vec();
        r.finish()?;
        check_proof_scalars(&proof)?;
        Ok(Self {
            l,
            k,
            s,
            a,
            points,
            proof,
        })
    }

    /// `I2OSP(L, 1) || to_bytes()`: the self-describing form of the serde encoding.
    #[cfg(feature = "serde")]
    fn to_tagged(&self) -> Vec<u8> {
        let mut out = vec![self.l];
        out.extend_from_slice(&self.to_bytes());
        out
    }

    /// The inverse of [`Self::to_tagged`] (the serde decoding).
    #[cfg(feature = "serde")]
    fn from_tagged(bytes: &[u8]) -> Result<Self> {
        let (l, rest) = bytes.split_first().ok_or(Error::InvalidLength)?;
        Self::from_bytes(rest, *l)
    }

    /// `V1 = sum 2^j Com1[j]` (or `Com_c`) and `K' = K_n + V1`, variable time (public).
    fn k_prime(&self) -> Result<Point<C>> {
        let l = usize::from(self.l);
        let k_n = *self.points.get(2).ok_or(Error::Batch)?;
        let v1 = if self.s > 0 {
            let coms = self.points.get(3..3 + l).ok_or(Error::Batch)?;
            let mut p = Scalar::ONE;
            let mut pow2 = Vec::with_capacity(l);
            for _ in 0..l {
                pow2.push(p);
                p = p.double();
            }
            group::vartime_msm::<C>(coms, &pow2)?
        } else {
            Point::<C>::from(*self.points.get(3).ok_or(Error::Batch)?)
        };
        Ok(Point::<C>::from(k_n) + v1)
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Spend, Spend::to_tagged, Spend::from_tagged);

/// The Client's secrets of one spend, `(k*, r*, v1, s, a, K')`: what it needs to finalise the
/// refund. Persist it ([`Self::to_bytes`]) before sending the spend. Zeroized on drop;
/// `Debug` redacted; not `Clone`.
pub struct ClientSpendState {
    pub(crate) k_star: Scalar,
    pub(crate) r_star: Scalar,
    pub(crate) v1: u64,
    pub(crate) s: u64,
    pub(crate) a: u64,
    pub(crate) k_prime: Affine<C>,
}

impl Zeroize for ClientSpendState {
    fn zeroize(&mut self) {
        self.k_star.zeroize();
        self.r_star.zeroize();
        self.v1.zeroize();
        self.k_prime = Affine::<C>::IDENTITY;
    }
}

impl Drop for ClientSpendState {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for ClientSpendState {}

impl fmt::Debug for ClientSpendState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientSpendState(<redacted>)")
    }
}

/// The output of [`Credential::prove_spend`]: the wire message and the private state.
#[derive(Debug)]
pub struct SpendResult {
    /// Send to the Moderator (after persisting `state`).
    pub message: Spend,
    /// Keep for [`ClientSpendState::finalize`].
    pub state: ClientSpendState,
}

/// `Bits(x)`: the `L` little-endian bits of `x` as scalars 0 and 1, constant time.
fn bits(x: u64, l: u8) -> Zeroizing<Vec<Scalar>> {
    let mut out = Zeroizing::new(Vec::with_capacity(usize::from(l)));
    for j in 0..u32::from(l) {
        out.push(Scalar::from((x >> j) & 1));
    }
    out
}

/// The prover's openings of the bit commitments over `H1` and `H3` (relation element
/// indices), wiped on drop.
struct Openings(Vec<Option<[(u32, Scalar); 2]>>);

impl Drop for Openings {
    fn drop(&mut self) {
        for [(_, x), (_, y)] in self.0.iter_mut().flatten() {
            x.zeroize();
            y.zeroize();
        }
    }
}

/// The bit commitments `b[j]*H1 + s[j]*H3` of `amount` and the witness part `b, s, u` with
/// `u[j] = (1 - b[j]) * s[j]` (ACT §4.6.2 steps 4-5), constant time.
fn range_witness(
    g: &Generators,
    l: u8,
    amount: u64,
    blinds: &[Scalar],
    proj: &mut Vec<Point<C>>,
    witness: &mut Vec<Scalar>,
) {
    let b = bits(amount, l);
    let mut u = Zeroizing::new(Vec::with_capacity(usize::from(l)));
    // `b_j*H1` with `b_j` in {0, 1} is a constant-time selection, not a multiplication.
    let h1 = Point::<C>::from(g.h[0]);
    for (bj, sj) in b.iter().zip(blinds) {
        let bit = Point::<C>::conditional_select(&Point::<C>::IDENTITY, &h1, !bj.is_zero());
        proj.push(bit + commit(g, false, &[(2, sj)]));
        u.push((Scalar::ONE - bj) * sj);
    }
    witness.extend_from_slice(&b);
    witness.extend_from_slice(blinds);
    witness.extend_from_slice(&u);
}

impl Credential {
    /// `ProveSpend` (ACT §4.6.2): spends `s` with top-up allowance `a` under `ctx_spend`
    /// (the SHA-256 of the Moderator's challenge, opaque here). Consumes the credential: the
    /// Client must persist the returned state before the message leaves the process.
    /// Constant time in the balance, the nullifier and every blind (the shape depends only on
    /// the public `s`, `a` and `L`).
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for `s` or `a` of `2^L` or more, `s > c` or `c + a >= 2^L`;
    /// [`Error::InputTooLong`] for a `ctx_spend` of 65536 bytes or more.
    pub fn prove_spend(
        self,
        ctx: &CredentialContext,
        s: u64,
        a: u64,
        ctx_spend: &[u8],
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> Result<SpendResult> {
        let rand = draw(rng);
        self.prove_spend_with(ctx, s, a, ctx_spend, &rand)
    }

    pub(crate) fn prove_spend_with(
        self,
        ctx: &CredentialContext,
        s: u64,
        a: u64,
        ctx_spend: &[u8],
        rand: &[u8; 2 * SEED_LEN],
    ) -> Result<SpendResult> {
        let l = ctx.l;
        let lu = usize::from(l);
        check_amount(u128::from(s), l)?;
        check_amount(u128::from(a), l)?;
        // The balance is the Client's own secret: `c < 2^L`, `s <= c` and `c + a < 2^L` are
        // computed in constant time and only their outcome is declassified (it is public
        // anyway: a spend is sent or not).
        if !group::declassify(balance_allows(self.c, s, a, l)) {
            return Err(Error::OutOfRange);
        }
        let sid = proofs::session_id(SPEND, &[ctx_spend])?;
        let (r0, r1) = split_rand(rand);
        let g = generators()?;
        let n = 4 + if s > 0 { lu } else { 1 } + if a > 0 { lu } else { 0 };
        let d = derive_scalars(r0, b"ProveSpend", n)?;
        // ok: `d` holds `n >= 5` scalars, laid out as indexed below (`n` counts them).
        let (r1s, r2, k_star, rn) = (d[0], d[1], d[2], d[3]);
        let v1 = self.c - s;
        let v2 = self.c + a;
        let c = Scalar::from(self.c);
        let b_msg = commit(
            g,
            true,
            &[(0, &c), (1, &self.k), (2, &self.r), (3, &ctx.ctx)],
        );
        let mut r12 = r1s * r2;
        let a_prime = group::mul_affine::<C>(&self.a, &r12);
        r12.zeroize();
        let b_bar = group::mul::<C>(&b_msg, &r1s);
        let r3 = group::invert::<C>(&r1s)?;
        let a_bar = group::mul::<C>(&b_bar, &r2) - group::mul::<C>(&a_prime, &self.e);
        let k_n = commit(g, false, &[(1, &k_star), (2, &rn)]);
        let h1_prime = commit(g, true, &[(1, &self.k), (3, &ctx.ctx)]);

        let mut proj: Vec<Point<C>> = vec![a_prime, b_bar, a_bar, h1_prime, k_n];
        // Sized once: a reallocation would free a buffer of secrets unwiped.
        let mut witness: Zeroizing<Vec<Scalar>> =
            Zeroizing::new(Vec::with_capacity(proofs::spend_scalars(l, s, a)));
        witness.extend_from_slice(&[self.e, r2, r3, c, self.r, k_star, rn]);
        let mut r_star = rn;
        let mut pow2 = Scalar::ONE;
        if s > 0 {
            let s1 = &d[4..4 + lu];
            range_witness(g, l, v1, s1, &mut proj, &mut witness);
            for sj in s1 {
                r_star += pow2 * sj;
                pow2 = pow2.double();
            }
        } else {
            let rc = d[4];
            proj.push(commit(g, false, &[(0, &c), (2, &rc)]));
            witness.push(rc);
            r_star += rc;
        }
        if a > 0 {
            let off = 4 + if s > 0 { lu } else { 1 };
            let s2 = &d[off..off + lu];
            range_witness(g, l, v2, s2, &mut proj, &mut witness);
        }
        let v1s = Scalar::from(v1);
        proj.push(commit(g, false, &[(0, &v1s), (1, &k_star), (2, &r_star)]));
        let mut affine = vec![Affine::<C>::IDENTITY; proj.len()];
        group::normalize_slice::<C>(&proj, &mut affine)?;
        // Published: A', B̄, K_n and the commitments are the spend message; Ā, H1' and K'
        // the Moderator recomputes. The blinds, the balance and its bits stay secret.
        validation::publish(&mut affine[..]);
        let k_prime = affine.pop().ok_or(Error::Batch)?;
        // Published: the nullifier is sent (ACT §4.6.2).
        let mut nullifier = self.k;
        validation::publish(&mut nullifier);
        // A', B̄, Ā, K_n and the commitments go to the instance; the identity (probability
        // ~2^-256 with derived blinds) is refused before anything is sent.
        if affine.iter().any(|p| group::declassify(p.is_identity())) {
            return Err(Error::IdentityElement);
        }
        let enc: Vec<_> = affine.iter().map(C::encode_compressed).collect();
        let inst = SpendInstance {
            s,
            a,
            l,
            points: &affine,
            enc: &enc,
        };
        let rel = proofs::spend(g, &inst)?;
        let tables = proofs::spend_tables(g, 9 + affine.len() - 5);
        // Each bit commitment `Com_j = b_j*H1 + s_j*H3` is opened for the prover, so its
        // term `nonce * Com_j` becomes two fixed-base terms (constant time, same commitments).
        let mut openings = Openings(vec![None; tables.len()]);
        let mut open_range = |first: usize, scalar: usize| {
            for j in 0..lu {
                if let (Some(slot), Some(b), Some(sj)) = (
                    openings.0.get_mut(first + j),
                    witness.get(scalar + j),
                    witness.get(scalar + lu + j),
                ) {
                    *slot = Some([(1, *b), (3, *sj)]);
                }
            }
        };
        let mut next = (9, 7);
        if s > 0 {
            open_range(next.0, next.1);
            next = (next.0 + lu, next.1 + 3 * lu);
        } else {
            next = (next.0 + 1, next.1 + 1);
        }
        if a > 0 {
            open_range(next.0, next.1);
        }
        let opened: Vec<Option<&[(u32, Scalar)]>> = openings
            .0
            .iter()
            .map(|o| o.as_ref().map(|x| &x[..]))
            .collect();
        let proof = proofs::prove(&sid, &rel, &witness, r1, &tables, &opened)?;
        // The message carries A', B̄, K_n and the commitments, not Ā or H1'.
        let mut points = Vec::with_capacity(affine.len() - 2);
        // ok: `affine` holds A', B̄, Ā, H1', K_n and at least one commitment.
        points.extend_from_slice(&affine[..2]);
        points.extend_from_slice(&affine[4..]);
        Ok(SpendResult {
            message: Spend {
                l,
                k: nullifier,
                s,
                a,
                points,
                proof,
            },
            state: ClientSpendState {
                k_star,
                r_star,
                v1,
                s,
                a,
                k_prime,
            },
        })
    }
}

/// `c < 2^L`, `s <= c` and `c + a < 2^L` (`s`, `a < 2^L`), in constant time in the balance `c`.
fn balance_allows(c: u64, s: u64, a: u64, l: u8) -> subtle::Choice {
    use subtle::ConstantTimeGreater;
    let c_fits = (u128::from(c) >> l).ct_eq(&0);
    let v2 = u128::from(c) + u128::from(a);
    let v2_fits = (v2 >> l).ct_eq(&0);
    c_fits & !s.ct_gt(&c) & v2_fits
}

/// A spend that passed [`PrivateKey::verify_spend`]: its nullifier and what
/// [`PrivateKey::issue_refund`] needs. Only `verify_spend` makes one; `issue_refund` consumes
/// it. Use [`PrivateKey::redeem`] to record the nullifier in the same step.
#[derive(Debug)]
pub struct VerifiedSpend {
    nullifier: [u8; SCALAR_LEN],
    s: u64,
    a: u64,
    k_prime: Point<C>,
}

impl VerifiedSpend {
    /// The nullifier `k`: record it, failing if present, before granting anything (ACT §6).
    pub fn nullifier(&self) -> &[u8; SCALAR_LEN] {
        &self.nullifier
    }

    /// The spend amount `s`.
    pub fn amount(&self) -> u64 {
        self.s
    }

    /// The top-up allowance `a`.
    pub fn top_up(&self) -> u64 {
        self.a
    }
}

/// `RefundMessage` (ACT §4.6.4, §4.7): `A || e || uint64 t || pok`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Refund {
    pub(crate) a: Affine<C>,
    pub(crate) e: Scalar,
    pub(crate) t: u64,
    pub(crate) proof: [u8; 2 * SCALAR_LEN],
}

impl fmt::Debug for Refund {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Refund")
            .field("t", &self.t)
            .finish_non_exhaustive()
    }
}

impl Refund {
    /// The returned amount `t`.
    pub fn amount(&self) -> u64 {
        self.t
    }

    /// `A || e || uint64 t || pok`, 137 bytes.
    pub fn to_bytes(&self) -> [u8; RESPONSE_LEN] {
        encode_response(&self.a, &self.e, self.t, &self.proof)
    }

    /// Strict decoding (137 bytes). The amount is checked by [`ClientSpendState::finalize`].
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`], [`Error::IdentityElement`] or
    /// [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (a, e, t, proof) = decode_response(bytes)?;
        Ok(Self { a, e, t, proof })
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(Refund, |m: &Refund| m.to_bytes(), Refund::from_bytes);

/// The Moderator's record of spent nullifiers (ACT §6 "Nullifier store"), scoped to one key
/// and credential context. Implementations must make [`Self::insert_if_absent`] atomic (one
/// transaction, `SET NX`, a unique key), also across processes sharing the store.
pub trait NullifierStore {
    /// Records `nullifier` with the refund granted for it if it is absent and returns `None`;
    /// if it is present, changes nothing and returns the refund recorded with it (the answer
    /// to a repeated request: the same refund, never a second credit).
    ///
    /// # Errors
    /// The store's own failure (nothing was recorded): the spend is refused.
    fn insert_if_absent(
        &self,
        nullifier: &[u8; SCALAR_LEN],
        refund: &Refund,
    ) -> Result<Option<Refund>>;
}

/// An in-memory [`NullifierStore`] (tests, examples, single-process Moderators whose context
/// lives no longer than the process).
#[derive(Debug, Default)]
pub struct MemoryNullifierStore {
    spent: Mutex<HashMap<[u8; SCALAR_LEN], [u8; RESPONSE_LEN]>>,
}

impl MemoryNullifierStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of recorded nullifiers.
    pub fn len(&self) -> usize {
        self.spent.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// Whether no nullifier is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl NullifierStore for MemoryNullifierStore {
    fn insert_if_absent(
        &self,
        nullifier: &[u8; SCALAR_LEN],
        refund: &Refund,
    ) -> Result<Option<Refund>> {
        let mut m = self.spent.lock().map_err(|_| Error::Batch)?;
        match m.get(nullifier) {
            Some(stored) => Ok(Some(Refund::from_bytes(stored)?)),
            None => {
                m.insert(*nullifier, refund.to_bytes());
                Ok(None)
            }
        }
    }
}

/// The outcome of [`PrivateKey::redeem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redeemed {
    /// A new spend: its nullifier is now recorded; send the refund.
    Fresh(Refund),
    /// The nullifier was already recorded: this is the refund stored with it (a lost-refund
    /// retry gets it again; a second spend of the same credential gets nothing it can use,
    /// since the refund is bound to the first spend's `K'`). No credit was granted.
    Replayed(Refund),
}

impl PrivateKey {
    /// `VerifySpend` (ACT §4.6.3): refuses a message decoded for another `L`, computes
    /// `Ā = skM * A'` (constant time in `skM`) and `H1' = B + k*H2 + ctx*H4`, and verifies the
    /// proof under `Tag("Spend", [ctx_spend])`. Returns the nullifier with the data for the
    /// refund. It does not check the nullifier store ([`Self::redeem`] does).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when the message's `L` is not the context's;
    /// [`Error::OutOfRange`] for amounts of `L + 1` bits; [`Error::InvalidProof`].
    pub fn verify_spend(
        &self,
        ctx: &CredentialContext,
        spend: &Spend,
        ctx_spend: &[u8],
    ) -> Result<VerifiedSpend> {
        if spend.l != ctx.l {
            return Err(Error::UnsupportedValue);
        }
        check_amount(u128::from(spend.s), ctx.l)?;
        check_amount(u128::from(spend.a), ctx.l)?;
        let n = 3 + commitments(spend.l, spend.s, spend.a);
        if spend.points.len() != n
            || spend.proof.len()
                != (1 + proofs::spend_scalars(spend.l, spend.s, spend.a)) * SCALAR_LEN
        {
            return Err(Error::InvalidLength);
        }
        let g = generators()?;
        let sid = proofs::session_id(SPEND, &[ctx_spend])?;
        // ok: `points` has `n >= 4` entries (checked above).
        let a_prime = spend.points[0];
        let mut pub_pts = group::normalize_array::<C, 2>(&[
            group::mul_affine::<C>(&a_prime, &self.sk),
            Point::<C>::from(Affine::<C>::generator())
                + g.tables[1].vartime_mul(&spend.k)
                + g.tables[3].vartime_mul(&ctx.ctx),
        ]);
        // Published: `Ā = skM * A'` is an honest Client's own value (`B̄ * r2 - A' * e`), which
        // its proof covers; `skM` stays secret. A forged spend chooses `A'` without knowing
        // `Ā`: the variable-time check then processes `Ā` with public scalars, whose timing
        // depends on `Ā` only through the additions' exceptional cases (identity, equal
        // points), which occur with negligible probability for a point the sender cannot
        // predict.
        validation::publish(&mut pub_pts);
        let mut points = Vec::with_capacity(n + 2);
        points.extend_from_slice(&spend.points[..2]);
        points.extend_from_slice(&pub_pts);
        points.extend_from_slice(&spend.points[2..]);
        let enc: Vec<_> = points.iter().map(C::encode_compressed).collect();
        let rel = proofs::spend(
            g,
            &SpendInstance {
                s: spend.s,
                a: spend.a,
                l: spend.l,
                points: &points,
                enc: &enc,
            },
        )?;
        let tables = proofs::spend_tables(g, 4 + points.len());
        proofs::verify(&sid, &rel, &spend.proof, &tables)?;
        Ok(VerifiedSpend {
            nullifier: spend.nullifier(),
            s: spend.s,
            a: spend.a,
            k_prime: spend.k_prime()?,
        })
    }

    /// `IssueRefund` (ACT §4.6.4) for a verified spend: `t <= s + a` and `t < 2^L`; signs
    /// `X_A = B + K' + t*H1 + ctx*H4` with `K' = K_n + V1` and
    /// `e = SigningExponent(skM, "Refund", X_A)`. Constant time in `skM`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for `t` out of range; [`Error::Inverse`] if `e + skM = 0`.
    pub fn issue_refund(
        &self,
        ctx: &CredentialContext,
        spend: &VerifiedSpend,
        t: u64,
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> Result<Refund> {
        let rand = draw(rng);
        self.issue_refund_with(ctx, spend, t, &rand)
    }

    pub(crate) fn issue_refund_with(
        &self,
        ctx: &CredentialContext,
        spend: &VerifiedSpend,
        t: u64,
        rand: &[u8; 2 * SEED_LEN],
    ) -> Result<Refund> {
        check_amount(u128::from(t), ctx.l)?;
        if u128::from(t) > u128::from(spend.s) + u128::from(spend.a) {
            return Err(Error::OutOfRange);
        }
        let g = generators()?;
        let x_a = refund_x_a(g, ctx, t, &spend.k_prime);
        let (a, e, proof) = sign(self, REFUND, &x_a, rand)?;
        Ok(Refund { a, e, t, proof })
    }

    /// Verify, record, refund in one step (ACT §4.6.3-4.6.4, §6): verifies `spend`, asks
    /// `policy` for the return amount `t` (given `s` and `a`), signs the refund, and only then
    /// records the nullifier with it ([`NullifierStore::insert_if_absent`]). Nothing is
    /// recorded when a step fails, and a spend is never accepted twice: a recorded nullifier
    /// gets [`Redeemed::Replayed`] with the stored refund.
    ///
    /// # Errors
    /// Those of [`Self::verify_spend`] and [`Self::issue_refund`], `policy`'s own, and the
    /// store's.
    pub fn redeem(
        &self,
        ctx: &CredentialContext,
        spend: &Spend,
        ctx_spend: &[u8],
        policy: impl FnOnce(u64, u64) -> Result<u64>,
        store: &impl NullifierStore,
        rng: &mut (impl rand_core::CryptoRng + ?Sized),
    ) -> Result<Redeemed> {
        let verified = self.verify_spend(ctx, spend, ctx_spend)?;
        let t = policy(verified.s, verified.a)?;
        let refund = self.issue_refund(ctx, &verified, t, rng)?;
        Ok(
            match store.insert_if_absent(&verified.nullifier, &refund)? {
                None => Redeemed::Fresh(refund),
                Some(stored) => Redeemed::Replayed(stored),
            },
        )
    }
}

/// `X_A = B + K' + t*H1 + ctx*H4` (public values; variable time).
fn refund_x_a(g: &Generators, ctx: &CredentialContext, t: u64, k_prime: &Point<C>) -> Point<C> {
    Point::<C>::from(Affine::<C>::generator())
        + k_prime
        + g.tables[0].vartime_mul(&Scalar::from(t))
        + g.tables[3].vartime_mul(&ctx.ctx)
}

impl ClientSpendState {
    /// `FinalizeRefund` (ACT §4.6.5): checks `t < 2^L`, `t <= s + a` and `v1 + t < 2^L`,
    /// verifies the refund's proof against the Client's own `K'`, and returns the new
    /// credential `(k*, v1 + t, r*, A, e)`. On error the state is handed back in
    /// [`Rejected`]: ask for the refund again.
    ///
    /// # Errors
    /// [`Error::OutOfRange`]; [`Error::InvalidInput`] for a state whose `k*`, `r*`, `v1` do
    /// not open its `K'` (corrupted storage); [`Error::InvalidProof`].
    pub fn finalize(
        self,
        ctx: &CredentialContext,
        pk: &PublicKey,
        refund: &Refund,
    ) -> core::result::Result<Credential, Rejected<Self>> {
        match self.check(ctx, pk, refund) {
            Ok(()) => Ok(Credential {
                k: self.k_star,
                c: self.v1 + refund.t,
                r: self.r_star,
                a: refund.a,
                e: refund.e,
            }),
            Err(error) => Err(Rejected {
                state: Box::new(self),
                error,
            }),
        }
    }

    fn check(&self, ctx: &CredentialContext, pk: &PublicKey, refund: &Refund) -> Result<()> {
        let t = u128::from(refund.t);
        check_amount(t, ctx.l)?;
        if t > u128::from(self.s) + u128::from(self.a) {
            return Err(Error::OutOfRange);
        }
        // `v1 + t < 2^L` on the secret remaining balance `v1`: constant time, only the
        // outcome declassified (a refund that would overflow is refused, visibly anyway).
        if !group::declassify(((u128::from(self.v1) + t) >> ctx.l).ct_eq(&0)) {
            return Err(Error::OutOfRange);
        }
        let g = generators()?;
        // A stored state whose secrets no longer open `K'` (corrupted storage) would give a
        // credential that can never be spent: refused here, in constant time.
        let v1 = Scalar::from(self.v1);
        let opened = commit(g, false, &[(0, &v1), (1, &self.k_star), (2, &self.r_star)]);
        if !group::declassify(group::ct_eq_affine::<C>(
            &group::to_affine(&opened),
            &self.k_prime,
        )) {
            return Err(Error::InvalidInput);
        }
        let x_a = refund_x_a(g, ctx, refund.t, &Point::<C>::from(self.k_prime));
        let x_g = group::vartime_mul_generator_add::<C>(&refund.e, &Scalar::ONE, &pk.pk);
        verify_signature(g, REFUND, &refund.a, &x_a, &x_g, &refund.proof)
    }

    /// `k* || r* || uint64 v1 || uint64 s || uint64 a || K'` (121 bytes), in a wiping buffer.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SPEND_STATE_LEN]> {
        let mut out = Zeroizing::new([0u8; SPEND_STATE_LEN]);
        out[..32].copy_from_slice(&encode_scalar(&self.k_star));
        out[32..64].copy_from_slice(&encode_scalar(&self.r_star));
        out[64..72].copy_from_slice(&self.v1.to_be_bytes());
        out[72..80].copy_from_slice(&self.s.to_be_bytes());
        out[80..88].copy_from_slice(&self.a.to_be_bytes());
        out[88..].copy_from_slice(&encode_element(&self.k_prime));
        out
    }

    /// Strict decoding of [`Self::to_bytes`].
    ///
    /// # Errors
    /// Length, scalar and point decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut rd = Reader::new(bytes);
        let k_star = read_scalar(&mut rd)?;
        let r_star = read_scalar(&mut rd)?;
        let v1 = read_u64(&mut rd)?;
        let s = read_u64(&mut rd)?;
        let a = read_u64(&mut rd)?;
        let k_prime = rd.element::<C>()?;
        rd.finish()?;
        Ok(Self {
            k_star,
            r_star,
            v1,
            s,
            a,
            k_prime,
        })
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(
    ClientSpendState,
    |m: &ClientSpendState| m.to_bytes(),
    ClientSpendState::from_bytes
);
