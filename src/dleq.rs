//! Batched discrete-log-equality proofs (RFC 9497 §2.2), generic over the transcript hashing.
//!
//! A proof shows that `B = k*G` and `D_i = k*C_i` for every `i`, for one secret `k`, via the
//! composite `M = sum d_i C_i`, `Z = sum d_i D_i` (or `Z = k*M` on the prover side,
//! `ComputeCompositesFast`). The hashing (seed, composite weights, challenge) is a
//! [`DleqHash`], so protocols with other transcripts reuse the algebra.

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::group::{self, validation, Affine, Curve, FixedBaseTable, Point, PrimeGroup};
use crate::{Error, Result};

/// Maximum number of elements one proof covers (the index is encoded in two bytes).
pub const MAX_BATCH: usize = u16::MAX as usize;

/// Composite weights for batches up to this size live on the stack.
const STACK_BATCH: usize = 4;

/// The hashing of a DLEQ proof: composite seed, composite weights and the challenge.
pub trait DleqHash<G: PrimeGroup> {
    /// The composite seed.
    type Seed: AsRef<[u8]>;
    /// The seed computed from the encoded public key `B`.
    ///
    /// # Errors
    /// Hashing failures.
    fn seed(&self, b: &G::ElementBytes) -> Result<Self::Seed>;
    /// The weight `d_i` of pair `i`.
    ///
    /// # Errors
    /// Hashing failures.
    fn composite(
        &self,
        seed: &Self::Seed,
        i: u16,
        c: &G::ElementBytes,
        d: &G::ElementBytes,
    ) -> Result<G::Scalar>;
    /// The challenge over `B, M, Z, t2, t3`.
    ///
    /// # Errors
    /// Hashing failures.
    fn challenge(&self, points: &[G::ElementBytes; 5]) -> Result<G::Scalar>;
}

/// A DLEQ proof `(c, s)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DleqProof<G: PrimeGroup> {
    pub(crate) c: G::Scalar,
    pub(crate) s: G::Scalar,
}

impl<G: PrimeGroup> DleqProof<G> {
    /// `Ser(c) || Ser(s)`.
    pub fn to_bytes(&self) -> G::ScalarPairBytes {
        let mut out = G::ScalarPairBytes::default();
        let (a, b) = out.as_mut().split_at_mut(G::NS);
        a.copy_from_slice(G::encode_scalar(&self.c).as_ref());
        b.copy_from_slice(G::encode_scalar(&self.s).as_ref());
        out
    }

    /// Strict decoding of `Ser(c) || Ser(s)`.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 2 * G::NS {
            return Err(Error::InvalidLength);
        }
        let (a, b) = bytes.split_at(G::NS);
        Ok(Self {
            c: G::decode_scalar(a)?,
            s: G::decode_scalar(b)?,
        })
    }
}

/// Runs `f` with a zeroed scalar buffer of length `n`: on the stack for small `n`.
fn with_scalars<G: PrimeGroup, T>(n: usize, f: impl FnOnce(&mut [G::Scalar]) -> T) -> T {
    if n <= STACK_BATCH {
        let mut buf = [G::Scalar::default(); STACK_BATCH];
        f(&mut buf[..n])
    } else {
        let mut buf = vec![G::Scalar::default(); n];
        f(&mut buf)
    }
}

fn check_batch(cs: usize, ds: usize) -> Result<()> {
    if cs == 0 || cs > MAX_BATCH || cs != ds {
        return Err(Error::Batch);
    }
    Ok(())
}

fn composite_weights<G: PrimeGroup, H: DleqHash<G>>(
    h: &H,
    b_enc: &G::ElementBytes,
    cs: &[G::Normal],
    ds: &[G::Normal],
    out: &mut [G::Scalar],
) -> Result<()> {
    let seed = h.seed(b_enc)?;
    for (i, ((c, d), w)) in cs.iter().zip(ds).zip(out.iter_mut()).enumerate() {
        let i = u16::try_from(i).map_err(|_| Error::Batch)?;
        *w = h.composite(&seed, i, &G::encode_element(c), &G::encode_element(d))?;
    }
    Ok(())
}

fn challenge<G: PrimeGroup, H: DleqHash<G>>(
    h: &H,
    b_enc: G::ElementBytes,
    m_z_t2_t3: &[G::Element; 4],
) -> Result<G::Scalar> {
    let a = G::normalize_array::<4>(m_z_t2_t3);
    let enc = [
        b_enc,
        G::encode_element(&a[0]),
        G::encode_element(&a[1]),
        G::encode_element(&a[2]),
        G::encode_element(&a[3]),
    ];
    h.challenge(&enc)
}

/// `GenerateProof(k, G, B, C, D)` with the nonce `r` given (RFC 9497 §2.2.1).
///
/// `k` and `r` are secret: they only meet constant-time code.
///
/// # Errors
/// [`Error::Batch`] on an empty, oversized or mismatched batch; hashing failures.
pub fn generate_proof<G: PrimeGroup, H: DleqHash<G>>(
    h: &H,
    k: &G::Scalar,
    b: &G::Normal,
    cs: &[G::Normal],
    ds: &[G::Normal],
    r: &G::Scalar,
) -> Result<DleqProof<G>> {
    check_batch(cs.len(), ds.len())?;
    let b_enc = G::encode_element(b);
    let (m, z) = with_scalars::<G, _>(cs.len(), |w| -> Result<_> {
        composite_weights(h, &b_enc, cs, ds, w)?;
        let m = G::vartime_msm(cs, w)?;
        // Z = k*M (ComputeCompositesFast). For one element, d*D costs less than k*M and is the
        // same public value, computed without touching k.
        let z = if cs.len() == 1 {
            G::vartime_mul(&ds[0], &w[0])
        } else {
            G::mul(&m, k)
        };
        Ok((m, z))
    })?;
    let t2 = G::mul_generator(r);
    let t3 = G::mul(&m, r);
    let mut c = challenge::<G, H>(h, b_enc, &[m, z, t2, t3])?;
    // `c*k` would give the key away with `c`: wiped on drop. `s = r - c*k` is public.
    let ck = Zeroizing::new(c * *k);
    let mut s = *r - *ck;
    // Published: the proof `(c, s)` is the prover's message, sent with the elements it covers
    // (RFC 9497 §2.2.1). `c` is a hash output and `s = r - c*k` is masked by the one-time
    // nonce `r`; what either gives is what the wire gives. `t2`, `t3`, `Z` and `c*k` stay
    // secret.
    validation::publish(&mut c);
    validation::publish(&mut s);
    Ok(DleqProof { c, s })
}

/// `VerifyProof(G, B, C, D, proof)` (RFC 9497 §2.2.2). Variable time: every input is public.
///
/// # Errors
/// [`Error::InvalidProof`] when the proof does not verify; [`Error::Batch`] on a bad batch.
pub fn verify_proof<G: PrimeGroup, H: DleqHash<G>>(
    h: &H,
    b: &G::Normal,
    cs: &[G::Normal],
    ds: &[G::Normal],
    proof: &DleqProof<G>,
) -> Result<()> {
    verify_inner(h, b, cs, ds, proof, || {
        G::vartime_mul_generator_add(&proof.s, &proof.c, b)
    })
}

/// [`verify_proof`] for a key `B` with a precomputed [`FixedBaseTable`]: `t2 = s*G + c*B`
/// then costs two table lookups instead of a variable-base multiplication. For clients that
/// verify many proofs under the same key.
///
/// # Errors
/// As [`verify_proof`].
pub fn verify_proof_with_table<C, H>(
    h: &H,
    b_table: &FixedBaseTable<C>,
    cs: &[Affine<C>],
    ds: &[Affine<C>],
    proof: &DleqProof<C>,
) -> Result<()>
where
    C: Curve + PrimeGroup<Element = Point<C>, Normal = Affine<C>, Scalar = group::Scalar<C>>,
    H: DleqHash<C>,
{
    verify_inner(h, b_table.base(), cs, ds, proof, || {
        group::vartime_mul_generator_and_fixed::<C>(&proof.s, b_table, &proof.c)
    })
}

/// The checks of [`verify_proof`], with `t2 = s*G + c*B` computed by `t2`.
fn verify_inner<G: PrimeGroup, H: DleqHash<G>>(
    h: &H,
    b: &G::Normal,
    cs: &[G::Normal],
    ds: &[G::Normal],
    proof: &DleqProof<G>,
    t2: impl FnOnce() -> G::Element,
) -> Result<()> {
    check_batch(cs.len(), ds.len())?;
    let b_enc = G::encode_element(b);
    let (m, z) = with_scalars::<G, _>(cs.len(), |w| -> Result<_> {
        composite_weights(h, &b_enc, cs, ds, w)?;
        Ok((G::vartime_msm(cs, w)?, G::vartime_msm(ds, w)?))
    })?;
    let t2 = t2();
    let t3 = G::vartime_lincomb2(&[m, z], &[proof.s, proof.c]);
    let c = challenge::<G, H>(h, b_enc, &[m, z, t2, t3]).map_err(|_| Error::InvalidProof)?;
    if bool::from(c.ct_eq(&proof.c)) {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voprf::{Context, Mode};
    use crate::P256Sha256;
    use p256::NistP256 as C;

    /// Every proof entry point refuses an empty, mismatched or oversized batch before any work
    /// (the callers check too; this is the proof layer's own check).
    #[test]
    fn bad_batches_are_refused() {
        let h = Context::<P256Sha256>::new(Mode::Voprf);
        let mut rng = rand::rng();
        let k = group::random_scalar::<C>(&mut rng);
        let r = group::random_scalar::<C>(&mut rng);
        let b = group::to_affine(&group::mul_generator::<C>(&k));
        let c = Affine::<C>::generator();
        let d = group::to_affine(&group::mul_generator::<C>(&k));
        let table = FixedBaseTable::<C>::new(&b);
        let good = generate_proof::<C, _>(&h, &k, &b, &[c], &[d], &r).expect("one pair");
        verify_proof::<C, _>(&h, &b, &[c], &[d], &good).expect("verifies");
        verify_proof_with_table::<C, _>(&h, &table, &[c], &[d], &good).expect("verifies");
        let big = vec![c; MAX_BATCH + 1];
        type Pair<'a> = (&'a [Affine<C>], &'a [Affine<C>]);
        let bad: [Pair<'_>; 4] = [(&[], &[]), (&[c], &[d, d]), (&[c, c], &[d]), (&big, &big)];
        for (cs, ds) in bad {
            let what = (cs.len(), ds.len());
            assert_eq!(
                generate_proof::<C, _>(&h, &k, &b, cs, ds, &r).err(),
                Some(Error::Batch),
                "{what:?}"
            );
            assert_eq!(
                verify_proof::<C, _>(&h, &b, cs, ds, &good).err(),
                Some(Error::Batch),
                "{what:?}"
            );
            assert_eq!(
                verify_proof_with_table::<C, _>(&h, &table, cs, ds, &good).err(),
                Some(Error::Batch),
                "{what:?}"
            );
        }
        // The largest batch passes the check (and then fails only as a wrong proof).
        let full = vec![c; MAX_BATCH];
        assert_eq!(check_batch(full.len(), full.len()), Ok(()));
    }
}
