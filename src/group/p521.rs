//! P-521 on the `p521` crate (its `primeorder` arithmetic), for the P521-SHA512 suite of
//! RFC 9497 §4.5.
//!
//! Elements are compressed SEC1 (`Ne = 67`), scalars 66 bytes big-endian. `HashToGroup` is
//! `P521_XMD:SHA-512_SSWU_RO_` (RFC 9380 §8.4, the crate's `hash2curve`), `HashToScalar` is
//! `hash_to_field` into the scalar field with `L = 98`. The scalar multiplications are the
//! crate's constant-time 4-bit fixed window; the crate has no variable-time routine, so the
//! `vartime_` methods run the constant-time ones (two-term sums with shared doublings), and
//! no batched affine conversion (`p521::FieldElement` lacks the `Invert` that
//! `BatchNormalize` needs), so normalisation takes one field inversion per element.

use elliptic_curve::consts::{U132, U66};
use elliptic_curve::ff::{BatchInverter, PrimeField};
use elliptic_curve::generic_array::GenericArray;
use elliptic_curve::group::GroupEncoding;
use elliptic_curve::hash2curve::{ExpandMsgXmd, GroupDigest};
use elliptic_curve::ops::LinearCombination;
use elliptic_curve::sec1::CompressedPoint;
use p521::{AffinePoint, NistP521, ProjectivePoint, Scalar};
use rand_core::CryptoRng;
use subtle::Choice;
use zeroize::Zeroizing;

use super::prime::{MessageExpansion, PrimeGroup};
use super::Xmd;
use crate::{Error, Result};

/// Length of a compressed point (`0x02|0x03 || x`). Not `p521::CompressedPoint`, which is one
/// byte short in p521 0.13.3.
const NE: usize = 67;
/// Length of a scalar.
const NS: usize = 66;

type Compressed = CompressedPoint<NistP521>;

impl PrimeGroup for NistP521 {
    type Element = ProjectivePoint;
    type Normal = AffinePoint;
    type Scalar = Scalar;
    type ElementBytes = Compressed;
    type ScalarBytes = GenericArray<u8, U66>;
    type ScalarPairBytes = GenericArray<u8, U132>;
    const NE: usize = NE;
    const NS: usize = NS;

    fn encode_element(p: &AffinePoint) -> Compressed {
        // `to_bytes` pads the identity's one-byte SEC1 encoding with zeros.
        p.to_bytes()
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
        let repr = Compressed::clone_from_slice(bytes);
        let p: Option<AffinePoint> = AffinePoint::from_bytes(&repr).into();
        let p = p.ok_or(Error::InvalidPoint)?;
        if bool::from(p.is_identity()) {
            return Err(Error::IdentityElement);
        }
        Ok(p)
    }

    fn encode_scalar(s: &Scalar) -> GenericArray<u8, U66> {
        s.to_repr()
    }

    fn decode_scalar(bytes: &[u8]) -> Result<Scalar> {
        if bytes.len() != NS {
            return Err(Error::InvalidLength);
        }
        let repr = GenericArray::<u8, U66>::clone_from_slice(bytes);
        Option::from(Scalar::from_repr(repr)).ok_or(Error::NonCanonicalScalar)
    }

    fn hash_to_group(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<ProjectivePoint> {
        let r = match e {
            MessageExpansion::Xmd(Xmd::Sha512) => {
                NistP521::hash_from_bytes::<ExpandMsgXmd<sha2::Sha512>>(msg, dst)
            }
            MessageExpansion::Xmd(Xmd::Sha384) => {
                NistP521::hash_from_bytes::<ExpandMsgXmd<sha2::Sha384>>(msg, dst)
            }
            MessageExpansion::Xmd(Xmd::Sha256) => {
                NistP521::hash_from_bytes::<ExpandMsgXmd<sha2::Sha256>>(msg, dst)
            }
            // RFC 9380 defines no XOF suite for P-521.
            MessageExpansion::Xof(_) => return Err(Error::UnsupportedValue),
        };
        r.map_err(|_| Error::HashToCurve)
    }

    fn hash_to_scalar(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar> {
        let r = match e {
            MessageExpansion::Xmd(Xmd::Sha512) => {
                <NistP521 as GroupDigest>::hash_to_scalar::<ExpandMsgXmd<sha2::Sha512>>(msg, dst)
            }
            MessageExpansion::Xmd(Xmd::Sha384) => {
                <NistP521 as GroupDigest>::hash_to_scalar::<ExpandMsgXmd<sha2::Sha384>>(msg, dst)
            }
            MessageExpansion::Xmd(Xmd::Sha256) => {
                <NistP521 as GroupDigest>::hash_to_scalar::<ExpandMsgXmd<sha2::Sha256>>(msg, dst)
            }
            MessageExpansion::Xof(_) => return Err(Error::UnsupportedValue),
        };
        r.map_err(|_| Error::HashToCurve)
    }

    fn random_scalar(rng: &mut (impl CryptoRng + ?Sized)) -> Scalar {
        // Rejection sampling: 66 bytes with the top 7 bits cleared (a 521-bit candidate, below
        // the order with probability above 1/2), redrawn when not below the order or zero.
        let mut b = Zeroizing::new(GenericArray::<u8, U66>::default());
        loop {
            rng.fill_bytes(&mut b);
            b[0] &= 0x01;
            let s: Option<Scalar> = Scalar::from_repr(*b).into();
            if let Some(s) = s {
                if !bool::from(s.is_zero()) {
                    return s;
                }
            }
        }
    }

    fn scalar_is_zero(s: &Scalar) -> Choice {
        s.is_zero()
    }

    fn invert_scalar(s: &Scalar) -> Result<Scalar> {
        Option::from(s.invert()).ok_or(Error::ZeroScalar)
    }

    fn batch_invert(scalars: &mut [Scalar], scratch: &mut [Scalar]) -> Result<()> {
        if scalars.len() != scratch.len() {
            return Err(Error::Batch);
        }
        let mut any_zero = Choice::from(0);
        for s in scalars.iter() {
            any_zero |= s.is_zero();
        }
        if bool::from(any_zero) {
            return Err(Error::ZeroScalar);
        }
        BatchInverter::invert_with_external_scratch(scalars, scratch);
        Ok(())
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
        points.map(|p| p.to_affine())
    }

    fn normalize_slice(points: &[ProjectivePoint], out: &mut [AffinePoint]) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::Batch);
        }
        for (o, p) in out.iter_mut().zip(points) {
            *o = p.to_affine();
        }
        Ok(())
    }

    fn mul_generator(k: &Scalar) -> ProjectivePoint {
        ProjectivePoint::GENERATOR * k
    }

    fn mul(p: &ProjectivePoint, k: &Scalar) -> ProjectivePoint {
        p * k
    }

    fn mul_normal(p: &AffinePoint, k: &Scalar) -> ProjectivePoint {
        ProjectivePoint::from(*p) * k
    }

    fn vartime_mul(p: &AffinePoint, k: &Scalar) -> ProjectivePoint {
        ProjectivePoint::from(*p) * k
    }

    fn vartime_msm(points: &[AffinePoint], scalars: &[Scalar]) -> Result<ProjectivePoint> {
        if points.len() != scalars.len() {
            return Err(Error::Batch);
        }
        Ok(points
            .iter()
            .zip(scalars)
            .fold(ProjectivePoint::IDENTITY, |acc, (p, k)| {
                acc + ProjectivePoint::from(*p) * k
            }))
    }

    fn vartime_lincomb2(points: &[ProjectivePoint; 2], scalars: &[Scalar; 2]) -> ProjectivePoint {
        ProjectivePoint::lincomb(&points[0], &scalars[0], &points[1], &scalars[1])
    }

    fn vartime_mul_generator_add(a: &Scalar, b: &Scalar, p: &AffinePoint) -> ProjectivePoint {
        ProjectivePoint::lincomb(
            &ProjectivePoint::GENERATOR,
            a,
            &ProjectivePoint::from(*p),
            b,
        )
    }
}
