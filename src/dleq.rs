//! Batched discrete-log-equality proofs (RFC 9497 §2.2), generic over the transcript hashing.
//!
//! A proof shows that `B = k*G` and `D_i = k*C_i` for every `i`, for one secret `k`, via the
//! composite `M = sum d_i C_i`, `Z = sum d_i D_i` (or `Z = k*M` on the prover side,
//! `ComputeCompositesFast`). The hashing (seed, composite weights, challenge) is a
//! [`DleqHash`], so protocols with other transcripts reuse the algebra.

use elliptic_curve::ff::Field;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::group::{self, Affine, Curve, FixedBaseTable, Point, Scalar};
use crate::{Error, Result};

/// Maximum number of elements one proof covers (the index is encoded in two bytes).
pub const MAX_BATCH: usize = u16::MAX as usize;

/// Composite weights for batches up to this size live on the stack.
const STACK_BATCH: usize = 4;

/// The hashing of a DLEQ proof: composite seed, composite weights and the challenge.
pub trait DleqHash<C: Curve> {
    /// The composite seed.
    type Seed: AsRef<[u8]>;
    /// The seed computed from the encoded public key `B`.
    ///
    /// # Errors
    /// Hashing failures.
    fn seed(&self, b: &C::Compressed) -> Result<Self::Seed>;
    /// The weight `d_i` of pair `i`.
    ///
    /// # Errors
    /// Hashing failures.
    fn composite(
        &self,
        seed: &Self::Seed,
        i: u16,
        c: &C::Compressed,
        d: &C::Compressed,
    ) -> Result<Scalar<C>>;
    /// The challenge over `B, M, Z, t2, t3`.
    ///
    /// # Errors
    /// Hashing failures.
    fn challenge(&self, points: &[C::Compressed; 5]) -> Result<Scalar<C>>;
}

/// A DLEQ proof `(c, s)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DleqProof<C: Curve> {
    pub(crate) c: Scalar<C>,
    pub(crate) s: Scalar<C>,
}

impl<C: Curve> DleqProof<C> {
    /// `Ser(c) || Ser(s)`.
    pub fn to_bytes(&self) -> C::ScalarPairBytes {
        let mut out = C::ScalarPairBytes::default();
        let (a, b) = out.as_mut().split_at_mut(C::SCALAR_LEN);
        a.copy_from_slice(C::scalar_bytes(&self.c).as_ref());
        b.copy_from_slice(C::scalar_bytes(&self.s).as_ref());
        out
    }

    /// Strict decoding of `Ser(c) || Ser(s)`.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 2 * C::SCALAR_LEN {
            return Err(Error::InvalidLength);
        }
        let (a, b) = bytes.split_at(C::SCALAR_LEN);
        Ok(Self {
            c: group::decode_scalar::<C>(a)?,
            s: group::decode_scalar::<C>(b)?,
        })
    }
}

/// Runs `f` with a zeroed scalar buffer of length `n`: on the stack for small `n`.
fn with_scalars<C: Curve, T>(n: usize, f: impl FnOnce(&mut [Scalar<C>]) -> T) -> T {
    if n <= STACK_BATCH {
        let mut buf = [Scalar::<C>::ZERO; STACK_BATCH];
        f(&mut buf[..n])
    } else {
        let mut buf = vec![Scalar::<C>::ZERO; n];
        f(&mut buf)
    }
}

fn check_batch(cs: usize, ds: usize) -> Result<()> {
    if cs == 0 || cs > MAX_BATCH || cs != ds {
        return Err(Error::Batch);
    }
    Ok(())
}

fn composite_weights<C: Curve, H: DleqHash<C>>(
    h: &H,
    b_enc: &C::Compressed,
    cs: &[Affine<C>],
    ds: &[Affine<C>],
    out: &mut [Scalar<C>],
) -> Result<()> {
    let seed = h.seed(b_enc)?;
    for (i, ((c, d), w)) in cs.iter().zip(ds).zip(out.iter_mut()).enumerate() {
        let i = u16::try_from(i).map_err(|_| Error::Batch)?;
        *w = h.composite(&seed, i, &C::encode_compressed(c), &C::encode_compressed(d))?;
    }
    Ok(())
}

fn challenge<C: Curve, H: DleqHash<C>>(
    h: &H,
    b_enc: C::Compressed,
    m_z_t2_t3: &[Point<C>; 4],
) -> Result<Scalar<C>> {
    let a = group::normalize_array::<C, 4>(m_z_t2_t3);
    let enc = [
        b_enc,
        C::encode_compressed(&a[0]),
        C::encode_compressed(&a[1]),
        C::encode_compressed(&a[2]),
        C::encode_compressed(&a[3]),
    ];
    h.challenge(&enc)
}

/// `GenerateProof(k, G, B, C, D)` with the nonce `r` given (RFC 9497 §2.2.1).
///
/// `k` and `r` are secret: they only meet constant-time code.
///
/// # Errors
/// [`Error::Batch`] on an empty, oversized or mismatched batch; hashing failures.
pub fn generate_proof<C: Curve, H: DleqHash<C>>(
    h: &H,
    k: &Scalar<C>,
    b: &Affine<C>,
    cs: &[Affine<C>],
    ds: &[Affine<C>],
    r: &Scalar<C>,
) -> Result<DleqProof<C>> {
    check_batch(cs.len(), ds.len())?;
    let b_enc = C::encode_compressed(b);
    let (m, z) = with_scalars::<C, _>(cs.len(), |w| -> Result<_> {
        composite_weights(h, &b_enc, cs, ds, w)?;
        let m = group::vartime_msm::<C>(cs, w)?;
        // Z = k*M (ComputeCompositesFast). For one element, d*D costs less than k*M and is the
        // same public value, computed without touching k.
        let z = if cs.len() == 1 {
            group::vartime_mul::<C>(&ds[0], &w[0])
        } else {
            group::mul(&m, k)
        };
        Ok((m, z))
    })?;
    let t2 = group::mul_generator::<C>(r);
    let t3 = group::mul::<C>(&m, r);
    let c = challenge::<C, H>(h, b_enc, &[m, z, t2, t3])?;
    // `c*k` would give the key away with `c`: wiped on drop. `s = r - c*k` is public.
    let ck = Zeroizing::new(c * k);
    let s = *r - *ck;
    Ok(DleqProof { c, s })
}

/// `VerifyProof(G, B, C, D, proof)` (RFC 9497 §2.2.2). Variable time: every input is public.
///
/// # Errors
/// [`Error::InvalidProof`] when the proof does not verify; [`Error::Batch`] on a bad batch.
pub fn verify_proof<C: Curve, H: DleqHash<C>>(
    h: &H,
    b: &Affine<C>,
    cs: &[Affine<C>],
    ds: &[Affine<C>],
    proof: &DleqProof<C>,
) -> Result<()> {
    verify_inner(h, b, None, cs, ds, proof)
}

/// [`verify_proof`] for a key `B` with a precomputed [`FixedBaseTable`]: `t2 = s*G + c*B`
/// then costs two table lookups instead of a variable-base multiplication. For clients that
/// verify many proofs under the same key.
///
/// # Errors
/// As [`verify_proof`].
pub fn verify_proof_with_table<C: Curve, H: DleqHash<C>>(
    h: &H,
    b_table: &FixedBaseTable<C>,
    cs: &[Affine<C>],
    ds: &[Affine<C>],
    proof: &DleqProof<C>,
) -> Result<()> {
    verify_inner(h, b_table.base(), Some(b_table), cs, ds, proof)
}

fn verify_inner<C: Curve, H: DleqHash<C>>(
    h: &H,
    b: &Affine<C>,
    b_table: Option<&FixedBaseTable<C>>,
    cs: &[Affine<C>],
    ds: &[Affine<C>],
    proof: &DleqProof<C>,
) -> Result<()> {
    check_batch(cs.len(), ds.len())?;
    let b_enc = C::encode_compressed(b);
    let (m, z) = with_scalars::<C, _>(cs.len(), |w| -> Result<_> {
        composite_weights(h, &b_enc, cs, ds, w)?;
        Ok((
            group::vartime_msm::<C>(cs, w)?,
            group::vartime_msm::<C>(ds, w)?,
        ))
    })?;
    let t2 = match b_table {
        Some(t) => group::vartime_mul_generator_and_fixed::<C>(&proof.s, t, &proof.c),
        None => group::vartime_mul_generator_add::<C>(&proof.s, &proof.c, b),
    };
    let t3 = group::vartime_lincomb::<C, 2>(&[m, z], &[proof.s, proof.c]);
    let c = challenge::<C, H>(h, b_enc, &[m, z, t2, t3]).map_err(|_| Error::InvalidProof)?;
    if bool::from(c.ct_eq(&proof.c)) {
        Ok(())
    } else {
        Err(Error::InvalidProof)
    }
}
