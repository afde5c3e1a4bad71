//! P-521 on the `p521` crate (its `primeorder` arithmetic), for the P521-SHA512 suite of
//! RFC 9497 §4.5.
//!
//! Elements are compressed SEC1 (`Ne = 67`), scalars 66 bytes big-endian. `HashToGroup` is
//! `P521_XMD:SHA-512_SSWU_RO_` (RFC 9380 §8.4, the crate's `hash2curve`), `HashToScalar` is
//! `hash_to_field` into the scalar field with `L = 98`. The constant-time scalar
//! multiplications are the crate's 4-bit fixed window, and its precomputed basepoint table for
//! `k * G` (p521 0.14, feature `precomputed-tables`); the `vartime_` methods (public data only)
//! use its variable-time wNAF routines. Normalisation of several points takes one field
//! inversion per batch (the crate's constant-time `BatchNormalize`).

use elliptic_curve::consts::{U132, U66, U98};
use elliptic_curve::ff::PrimeField;
use elliptic_curve::group::{Curve, Group as _, GroupEncoding};
use elliptic_curve::ops::LinearCombination;
use elliptic_curve::point::BatchNormalize;
use elliptic_curve::sec1::CompressedPoint;
use hash2curve::MapToCurve;
use hybrid_array::Array;
use p521::{AffinePoint, NistP521, ProjectivePoint, Scalar};
use primeorder::{MulBackend, PrimeCurveParams};
use rand_core::CryptoRng;
use subtle::Choice;
use zeroize::Zeroizing;

use super::prime::{MessageExpansion, PrimeGroup};
use crate::{Error, Result};

/// The crate's base field (what its `hash_to_field` reduces into).
type FieldElement = <NistP521 as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;

/// Length of a compressed point (`0x02|0x03 || x`).
const NE: usize = 67;
/// Length of a scalar.
const NS: usize = 66;

type Compressed = CompressedPoint<NistP521>;

impl PrimeGroup for NistP521 {
    type Element = ProjectivePoint;
    type Normal = AffinePoint;
    type Scalar = Scalar;
    type ElementBytes = Compressed;
    type ScalarBytes = Array<u8, U66>;
    type ScalarPairBytes = Array<u8, U132>;
    const NE: usize = NE;
    const NS: usize = NS;

    fn encode_element(p: &AffinePoint) -> Compressed {
        // The SEC1 compressed form, and all zeros for the identity (which `to_bytes` gives as
        // its one-byte encoding padded with zeros), without `to_bytes`' branch on the identity:
        // `p` may be secret.
        use elliptic_curve::point::AffineCoordinates;
        let mut out = Compressed::default();
        out[0] = 2 | p.y_is_odd().unwrap_u8();
        out[1..].copy_from_slice(&p.x());
        super::zero_if(&mut out, p.is_identity());
        out
    }

    fn decode_element(bytes: &[u8]) -> Result<AffinePoint> {
        if bytes.len() != NE {
            return Err(Error::InvalidLength);
        }
        match bytes[0] {
            2 | 3 => {}
            _ if bytes.iter().all(|&b| b == 0) => return Err(Error::IdentityElement),
            _ => return Err(Error::InvalidPoint),
        }
        // Decompression refuses `x >= p` and an `x` with no square root of `x^3 - 3x + b`.
        let mut repr = Compressed::default();
        repr.copy_from_slice(bytes);
        let p: Option<AffinePoint> = AffinePoint::from_bytes(&repr).into();
        let p = p.ok_or(Error::InvalidPoint)?;
        if bool::from(p.is_identity()) {
            return Err(Error::IdentityElement);
        }
        Ok(p)
    }

    fn encode_scalar(s: &Scalar) -> Array<u8, U66> {
        s.to_repr()
    }

    fn decode_scalar(bytes: &[u8]) -> Result<Scalar> {
        if bytes.len() != NS {
            return Err(Error::InvalidLength);
        }
        let mut repr = Array::<u8, U66>::default();
        repr.copy_from_slice(bytes);
        Option::from(Scalar::from_repr(repr)).ok_or(Error::NonCanonicalScalar)
    }

    fn hash_to_group(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<ProjectivePoint> {
        // RFC 9380 §3 (`hash_to_curve`, cofactor 1): the two field elements through the
        // crate's simplified SWU map, added. With SHA-512 this is the crate's
        // `hash_from_bytes`; SHA-256/SHA-384 are refused there by its security-level bound
        // only, and `expand_message_xmd` does not depend on the level.
        if matches!(e, MessageExpansion::Xof(_)) {
            // RFC 9380 defines no XOF suite for P-521.
            return Err(Error::UnsupportedValue);
        }
        let [u0, u1] = super::hash_to_field::<FieldElement, U98, 2>(e, msg, dst)?;
        Ok(NistP521::map_to_curve(u0) + NistP521::map_to_curve(u1))
    }

    fn hash_to_scalar(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar> {
        if matches!(e, MessageExpansion::Xof(_)) {
            return Err(Error::UnsupportedValue);
        }
        let [s] = super::hash_to_field::<Scalar, U98, 1>(e, msg, dst)?;
        Ok(s)
    }

    fn random_scalar(rng: &mut (impl CryptoRng + ?Sized)) -> Scalar {
        // Rejection sampling: 66 bytes with the top 7 bits cleared (a 521-bit candidate, below
        // the order with probability above 1/2), redrawn when not below the order or zero.
        let mut b = Zeroizing::new(Array::<u8, U66>::default());
        loop {
            rng.fill_bytes(&mut b);
            b[0] &= 0x01;
            let c = Scalar::from_repr(*b);
            let s = c.unwrap_or(Scalar::ZERO);
            if crate::group::declassify(c.is_some() & !s.is_zero()) {
                return s;
            }
        }
    }

    fn scalar_is_zero(s: &Scalar) -> Choice {
        s.is_zero()
    }

    fn invert_scalar(s: &Scalar) -> Result<Scalar> {
        let inv = s.invert();
        if crate::group::declassify(inv.is_none()) {
            return Err(Error::ZeroScalar);
        }
        Ok(inv.unwrap_or(Scalar::ZERO))
    }

    fn batch_invert(scalars: &mut [Scalar], scratch: &mut [Scalar]) -> Result<()> {
        super::batch_invert_field(scalars, scratch)
    }

    fn identity() -> ProjectivePoint {
        ProjectivePoint::IDENTITY
    }

    fn normal_identity() -> AffinePoint {
        AffinePoint::IDENTITY
    }

    fn is_identity(p: &ProjectivePoint) -> bool {
        bool::from(elliptic_curve::Group::is_identity(p))
    }

    fn add_normal(a: &ProjectivePoint, b: &AffinePoint) -> ProjectivePoint {
        a + b
    }

    fn normalize(p: &ProjectivePoint) -> AffinePoint {
        p.to_affine()
    }

    fn normalize_array<const N: usize>(points: &[ProjectivePoint; N]) -> [AffinePoint; N] {
        // One constant-time field inversion for the batch (the identity maps to the identity).
        <ProjectivePoint as BatchNormalize<[ProjectivePoint; N]>>::batch_normalize(points)
    }

    fn normalize_slice(points: &[ProjectivePoint], out: &mut [AffinePoint]) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::Batch);
        }
        match points.len() {
            0 => {}
            1 => out[0] = points[0].to_affine(),
            // One constant-time field inversion for the batch (two allocated buffers).
            _ => <ProjectivePoint as Curve>::batch_normalize(points, out),
        }
        Ok(())
    }

    fn mul_generator(k: &Scalar) -> ProjectivePoint {
        // The precomputed basepoint table, constant time.
        ProjectivePoint::mul_by_generator(k)
    }

    fn mul(p: &ProjectivePoint, k: &Scalar) -> ProjectivePoint {
        p * k
    }

    fn mul_normal(p: &AffinePoint, k: &Scalar) -> ProjectivePoint {
        ProjectivePoint::from(*p) * k
    }

    fn vartime_mul(p: &AffinePoint, k: &Scalar) -> ProjectivePoint {
        ProjectivePoint::from(*p).mul_vartime(k)
    }

    fn vartime_msm(points: &[AffinePoint], scalars: &[Scalar]) -> Result<ProjectivePoint> {
        if points.len() != scalars.len() {
            return Err(Error::Batch);
        }
        let terms: Vec<(ProjectivePoint, Scalar)> = points
            .iter()
            .zip(scalars)
            .map(|(p, k)| (ProjectivePoint::from(*p), *k))
            .collect();
        if terms.is_empty() {
            return Ok(ProjectivePoint::IDENTITY);
        }
        Ok(ProjectivePoint::lincomb_vartime(terms.as_slice()))
    }

    fn vartime_lincomb2(points: &[ProjectivePoint; 2], scalars: &[Scalar; 2]) -> ProjectivePoint {
        ProjectivePoint::lincomb_vartime(&[(points[0], scalars[0]), (points[1], scalars[1])])
    }

    fn vartime_mul_generator_add(a: &Scalar, b: &Scalar, p: &AffinePoint) -> ProjectivePoint {
        // The basepoint table's variable-time walk for `a * G`, wNAF for `b * P`.
        <NistP521 as PrimeCurveParams>::Backend::mul_by_generator_vartime(a)
            + ProjectivePoint::from(*p).mul_vartime(b)
    }
}
