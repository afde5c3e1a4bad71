//! ristretto255 (RFC 9496) on `curve25519-dalek`, for the ristretto255-SHA512 suite of
//! RFC 9497 §4.1.
//!
//! Elements are `RistrettoPoint`s (extended Edwards coordinates; there is nothing to normalise);
//! scalars are 32 bytes little-endian. `HashToGroup` is `hash_to_ristretto255` (RFC 9380
//! Appendix B): `expand_message` to 64 bytes, then the one-way map (`from_uniform_bytes`);
//! `HashToScalar` expands to 64 bytes and reduces them, read little-endian, modulo `L`.

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{Identity, IsIdentity, VartimeMultiscalarMul};
use elliptic_curve::consts::{U32, U64};
use hybrid_array::Array;
use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::prime::{expand_message, MessageExpansion, PrimeGroup};
use crate::{Error, Result};

/// The ristretto255 group (RFC 9496), a marker type for [`PrimeGroup`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ristretto255;

/// A scalar from 64 uniform bytes, read little-endian and reduced modulo `L`.
fn scalar_wide(bytes: &[u8; 64]) -> Scalar {
    Scalar::from_bytes_mod_order_wide(bytes)
}

impl PrimeGroup for Ristretto255 {
    type Element = RistrettoPoint;
    type Normal = RistrettoPoint;
    type Scalar = Scalar;
    type ElementBytes = Array<u8, U32>;
    type ScalarBytes = Array<u8, U32>;
    type ScalarPairBytes = Array<u8, U64>;
    const NE: usize = 32;
    const NS: usize = 32;

    fn encode_element(p: &RistrettoPoint) -> Array<u8, U32> {
        p.compress().to_bytes().into()
    }

    fn decode_element(bytes: &[u8]) -> Result<RistrettoPoint> {
        let c = CompressedRistretto::from_slice(bytes).map_err(|_| Error::InvalidLength)?;
        // `decompress` is RFC 9496 §4.3.1 `Decode`: it refuses non-canonical field encodings,
        // negative `s` and every input that is not the encoding of a group element.
        let p = c.decompress().ok_or(Error::InvalidPoint)?;
        if p.is_identity() {
            return Err(Error::IdentityElement);
        }
        Ok(p)
    }

    fn encode_scalar(s: &Scalar) -> Array<u8, U32> {
        s.to_bytes().into()
    }

    fn decode_scalar(bytes: &[u8]) -> Result<Scalar> {
        let b: [u8; 32] = bytes.try_into().map_err(|_| Error::InvalidLength)?;
        Option::from(Scalar::from_canonical_bytes(b)).ok_or(Error::NonCanonicalScalar)
    }

    fn hash_to_group(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<RistrettoPoint> {
        let mut u = Zeroizing::new([0u8; 64]);
        expand_message(e, msg, dst, &mut *u)?;
        Ok(RistrettoPoint::from_uniform_bytes(&u))
    }

    fn hash_to_scalar(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar> {
        let mut u = Zeroizing::new([0u8; 64]);
        expand_message(e, msg, dst, &mut *u)?;
        Ok(scalar_wide(&u))
    }

    fn random_scalar(rng: &mut (impl CryptoRng + ?Sized)) -> Scalar {
        // 64 random bytes reduced modulo L (bias below 2^-250), redrawn on zero.
        let mut b = Zeroizing::new([0u8; 64]);
        loop {
            rng.fill_bytes(&mut *b);
            let s = scalar_wide(&b);
            if !crate::group::declassify(s.ct_eq(&Scalar::ZERO)) {
                return s;
            }
        }
    }

    fn invert_scalar(s: &Scalar) -> Result<Scalar> {
        if crate::group::declassify(s.ct_eq(&Scalar::ZERO)) {
            return Err(Error::ZeroScalar);
        }
        Ok(s.invert())
    }

    fn batch_invert(scalars: &mut [Scalar], scratch: &mut [Scalar]) -> Result<()> {
        if scalars.len() != scratch.len() {
            return Err(Error::Batch);
        }
        let mut any_zero = subtle::Choice::from(0);
        for s in scalars.iter() {
            any_zero |= s.ct_eq(&Scalar::ZERO);
        }
        if crate::group::declassify(any_zero) {
            return Err(Error::ZeroScalar);
        }
        // Montgomery's trick: scratch[i] = s_0 ... s_{i-1}, one inversion of the product.
        let mut acc = Zeroizing::new(Scalar::ONE);
        for (s, t) in scalars.iter().zip(scratch.iter_mut()) {
            *t = *acc;
            *acc *= s;
        }
        let mut inv = Zeroizing::new(acc.invert());
        for (s, t) in scalars.iter_mut().zip(scratch.iter()).rev() {
            let next = *inv * *s;
            *s = *inv * *t;
            *inv = next;
        }
        Ok(())
    }

    fn identity() -> RistrettoPoint {
        RistrettoPoint::identity()
    }

    fn normal_identity() -> RistrettoPoint {
        RistrettoPoint::identity()
    }

    fn is_identity(p: &RistrettoPoint) -> bool {
        p.is_identity()
    }

    fn add_normal(a: &RistrettoPoint, b: &RistrettoPoint) -> RistrettoPoint {
        a + b
    }

    fn normalize(p: &RistrettoPoint) -> RistrettoPoint {
        *p
    }

    fn normalize_array<const N: usize>(points: &[RistrettoPoint; N]) -> [RistrettoPoint; N] {
        *points
    }

    fn normalize_slice(points: &[RistrettoPoint], out: &mut [RistrettoPoint]) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::Batch);
        }
        out.copy_from_slice(points);
        Ok(())
    }

    fn mul_generator(k: &Scalar) -> RistrettoPoint {
        RISTRETTO_BASEPOINT_TABLE * k
    }

    fn mul(p: &RistrettoPoint, k: &Scalar) -> RistrettoPoint {
        p * k
    }

    fn mul_normal(p: &RistrettoPoint, k: &Scalar) -> RistrettoPoint {
        p * k
    }

    fn vartime_mul(p: &RistrettoPoint, k: &Scalar) -> RistrettoPoint {
        RistrettoPoint::vartime_multiscalar_mul([k], [p])
    }

    fn vartime_msm(points: &[RistrettoPoint], scalars: &[Scalar]) -> Result<RistrettoPoint> {
        if points.len() != scalars.len() {
            return Err(Error::Batch);
        }
        Ok(RistrettoPoint::vartime_multiscalar_mul(scalars, points))
    }

    fn vartime_lincomb2(points: &[RistrettoPoint; 2], scalars: &[Scalar; 2]) -> RistrettoPoint {
        RistrettoPoint::vartime_multiscalar_mul(scalars, points)
    }

    fn vartime_mul_generator_add(a: &Scalar, b: &Scalar, p: &RistrettoPoint) -> RistrettoPoint {
        // `vartime_double_scalar_mul_basepoint(x, A, y)` is `x*A + y*B`.
        RistrettoPoint::vartime_double_scalar_mul_basepoint(b, p, a)
    }
}
