//! [`PrimeGroup`]: the prime-order group interface of the RFC 9497 code (OPRF, VOPRF, POPRF and
//! the batched DLEQ proofs), implemented for P-256 and P-384 by the crate's own arithmetic
//! ([`Curve`](super::Curve)), for P-521 by the `p521` crate and for ristretto255 by
//! `curve25519-dalek`; and the RFC 9380 §5.3 expanders the groups hash with ([`expand_message`],
//! its XMD hashes from `hash2curve` and its SHAKE256 XOF, [`expand_message_xof`], here).

use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use super::{ByteArray, Xmd};
use crate::{Error, Result};

/// Which `expand_message` a hash-to-group or hash-to-scalar call uses (RFC 9380 §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageExpansion {
    /// `expand_message_xmd` with a fixed-output hash (RFC 9380 §5.3.1).
    Xmd(Xmd),
    /// `expand_message_xof` with an extendable-output function (RFC 9380 §5.3.2).
    Xof(Xof),
}

/// Which extendable-output function `expand_message_xof` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xof {
    /// SHAKE256 (decaf448-SHAKE256, RFC 9497 §4.2).
    Shake256,
}

/// `expand_message(msg, DST, out.len())` into `out`, message and DST given as pieces.
///
/// # Errors
/// [`Error::HashToCurve`] when the DST or the output length is out of the expander's range.
pub fn expand_message(
    e: MessageExpansion,
    msg: &[&[u8]],
    dst: &[&[u8]],
    out: &mut [u8],
) -> Result<()> {
    use elliptic_curve::consts::{U16, U24, U32};
    use hash2curve::{ExpandMsg, ExpandMsgXmd, Expander};
    // `K` (the security level in bytes) only bounds the hash's output size for XMD; the
    // output does not depend on it.
    fn run<X: ExpandMsg<K>, K>(msg: &[&[u8]], dst: &[&[u8]], out: &mut [u8]) -> Result<()> {
        let len = u16::try_from(out.len())
            .ok()
            .and_then(core::num::NonZeroU16::new)
            .ok_or(Error::HashToCurve)?;
        let mut x = X::expand_message(msg, dst, len).map_err(|_| Error::HashToCurve)?;
        match x.fill_bytes(out) {
            Ok(n) if n == out.len() => Ok(()),
            _ => Err(Error::HashToCurve),
        }
    }
    match e {
        MessageExpansion::Xmd(Xmd::Sha256) => run::<ExpandMsgXmd<sha2::Sha256>, U16>(msg, dst, out),
        MessageExpansion::Xmd(Xmd::Sha384) => run::<ExpandMsgXmd<sha2::Sha384>, U24>(msg, dst, out),
        MessageExpansion::Xmd(Xmd::Sha512) => run::<ExpandMsgXmd<sha2::Sha512>, U32>(msg, dst, out),
        // decaf448's security level (`k = 224`) for the oversize-DST rule.
        MessageExpansion::Xof(Xof::Shake256) => expand_message_xof(msg, dst, out),
    }
}

/// `ceil(2 * k / 8)` for the security level `k = 224` of decaf448, the only XOF suite's group:
/// the length of a hashed oversize DST (RFC 9380 §5.3.3).
const OVERSIZE_DST_LEN: usize = 56;
/// The longest DST `expand_message_xof` takes as it is (RFC 9380 §5.3.3).
const MAX_DST_LEN: usize = 255;

/// `expand_message_xof` of RFC 9380 §5.3.2 over SHAKE256, with the oversize-DST rule of §5.3.3
/// for decaf448's security level (`k = 224`: a DST over 255 bytes is replaced by 56 bytes of
/// `SHAKE256("H2C-OVERSIZE-DST-" || DST)`). Fills all of `out`. Message and DST are given as
/// pieces that are concatenated. [`expand_message`] with [`Xof::Shake256`] calls it; it is also
/// reachable as `group::decaf448::expand_message_xof`.
///
/// # Errors
/// [`Error::HashToCurve`] when the DST is empty or `out` is empty or longer than 65535 bytes.
pub fn expand_message_xof(msg: &[&[u8]], dst: &[&[u8]], out: &mut [u8]) -> Result<()> {
    use sha2::digest::{ExtendableOutput, Update, XofReader};
    let len = u16::try_from(out.len()).map_err(|_| Error::HashToCurve)?;
    let dst_len: usize = dst.iter().map(|d| d.len()).sum();
    if len == 0 || dst_len == 0 {
        return Err(Error::HashToCurve);
    }
    let mut h = shake::Shake256::default();
    for m in msg {
        h.update(m);
    }
    h.update(&len.to_be_bytes());
    if dst_len > MAX_DST_LEN {
        let mut hd = shake::Shake256::default();
        hd.update(b"H2C-OVERSIZE-DST-");
        for d in dst {
            hd.update(d);
        }
        let mut short = [0u8; OVERSIZE_DST_LEN];
        hd.finalize_xof().read(&mut short);
        h.update(&short);
        h.update(&[OVERSIZE_DST_LEN as u8]);
    } else {
        for d in dst {
            h.update(d);
        }
        // dst_len <= 255 here.
        h.update(&[dst_len as u8]);
    }
    h.finalize_xof().read(out);
    Ok(())
}

pub(super) mod sealed {
    pub trait Sealed {}
    impl Sealed for p256::NistP256 {}
    impl Sealed for p384::NistP384 {}
    impl Sealed for p521::NistP521 {}
    impl Sealed for super::super::Ristretto255 {}
    impl Sealed for super::super::Decaf448 {}
}

/// A prime-order group with the operations RFC 9497 needs (sealed).
///
/// Implemented for `p256::NistP256`, `p384::NistP384`, `p521::NistP521`, [`Ristretto255`] and
/// [`Decaf448`].
/// Constant-time methods take secret scalars and points; the `vartime_` ones are for public
/// data only (proof verification). Decoders are strict: exact length, canonical encoding, a
/// valid element that is not the identity.
///
/// [`Ristretto255`]: super::Ristretto255
/// [`Decaf448`]: super::Decaf448
pub trait PrimeGroup:
    sealed::Sealed + Copy + fmt::Debug + Default + Eq + Send + Sync + 'static
{
    /// An element in the representation the arithmetic runs on (projective coordinates on the
    /// Weierstrass curves).
    type Element: Copy + fmt::Debug + Send + Sync + 'static;
    /// A normalised element: what keys, wire messages and encodings hold (affine coordinates on
    /// the Weierstrass curves).
    type Normal: Copy + fmt::Debug + PartialEq + Eq + Send + Sync + 'static;
    /// A scalar modulo the group order.
    type Scalar: Copy
        + Default
        + fmt::Debug
        + Eq
        + ConstantTimeEq
        + ConditionallySelectable
        + Zeroize
        + Send
        + Sync
        + 'static
        + Add<Output = Self::Scalar>
        + Sub<Output = Self::Scalar>
        + Mul<Output = Self::Scalar>
        + Neg<Output = Self::Scalar>;
    /// `SerializeElement` output, `Ne` bytes.
    type ElementBytes: ByteArray;
    /// `SerializeScalar` output, `Ns` bytes.
    type ScalarBytes: ByteArray + Zeroize;
    /// Two scalar encodings back to back (a DLEQ proof `c || s`).
    type ScalarPairBytes: ByteArray;
    /// `Ne`: the length of an element encoding.
    const NE: usize;
    /// `Ns`: the length of a scalar encoding.
    const NS: usize;

    /// `SerializeElement` (the identity, never a valid protocol element, encodes as zeros).
    fn encode_element(p: &Self::Normal) -> Self::ElementBytes;
    /// Strict `DeserializeElement`.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    fn decode_element(bytes: &[u8]) -> Result<Self::Normal>;
    /// `SerializeScalar`.
    fn encode_scalar(s: &Self::Scalar) -> Self::ScalarBytes;
    /// Strict `DeserializeScalar`: exactly `Ns` bytes, canonical (below the group order).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    fn decode_scalar(bytes: &[u8]) -> Result<Self::Scalar>;
    /// `HashToGroup` with the suite's expander; message and DST are concatenated pieces.
    ///
    /// # Errors
    /// [`Error::HashToCurve`] when the DST is out of the expander's range;
    /// [`Error::UnsupportedValue`] for an expander the group's hash-to-curve suites do not
    /// define (XOF on the NIST curves).
    fn hash_to_group(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Self::Element>;
    /// `HashToScalar` with the suite's expander.
    ///
    /// # Errors
    /// As [`PrimeGroup::hash_to_group`].
    fn hash_to_scalar(e: MessageExpansion, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Self::Scalar>;
    /// Strict decoding of a scalar that must also be non-zero.
    ///
    /// # Errors
    /// As [`PrimeGroup::decode_scalar`], plus [`Error::ZeroScalar`].
    fn decode_nonzero_scalar(bytes: &[u8]) -> Result<Self::Scalar> {
        let s = Self::decode_scalar(bytes)?;
        if bool::from(Self::scalar_is_zero(&s)) {
            return Err(Error::ZeroScalar);
        }
        Ok(s)
    }
    /// A uniformly random non-zero scalar (RFC 9497 `RandomScalar`).
    fn random_scalar(rng: &mut (impl CryptoRng + ?Sized)) -> Self::Scalar;
    /// Whether a scalar is zero, constant time.
    fn scalar_is_zero(s: &Self::Scalar) -> Choice {
        s.ct_eq(&Self::Scalar::default())
    }
    /// Constant-time scalar inversion.
    ///
    /// # Errors
    /// [`Error::ZeroScalar`] for zero.
    fn invert_scalar(s: &Self::Scalar) -> Result<Self::Scalar>;
    /// Inverts every scalar in place with one inversion; `scratch` is as long as `scalars`.
    ///
    /// # Errors
    /// [`Error::ZeroScalar`] if any scalar is zero (nothing is changed then), [`Error::Batch`]
    /// on mismatched lengths.
    fn batch_invert(scalars: &mut [Self::Scalar], scratch: &mut [Self::Scalar]) -> Result<()>;

    /// The identity element.
    fn identity() -> Self::Element;
    /// The identity in normal form (a placeholder value; never a valid protocol element).
    fn normal_identity() -> Self::Normal;
    /// Whether `p` is the identity (of public values only: the answer branches).
    fn is_identity(p: &Self::Element) -> bool;
    /// `a + b`, constant time.
    fn add_normal(a: &Self::Element, b: &Self::Normal) -> Self::Element;
    /// One element to normal form.
    fn normalize(p: &Self::Element) -> Self::Normal;
    /// `N` elements to normal form (one field inversion on the Weierstrass curves), on the stack.
    fn normalize_array<const N: usize>(points: &[Self::Element; N]) -> [Self::Normal; N];
    /// A slice of elements to normal form (one field inversion on the Weierstrass curves).
    ///
    /// # Errors
    /// [`Error::Batch`] when `out` and `points` differ in length.
    fn normalize_slice(points: &[Self::Element], out: &mut [Self::Normal]) -> Result<()>;

    /// `k * G`, constant time.
    fn mul_generator(k: &Self::Scalar) -> Self::Element;
    /// `k * P`, constant time.
    fn mul(p: &Self::Element, k: &Self::Scalar) -> Self::Element;
    /// `k * P` for a normalised `P`, constant time.
    fn mul_normal(p: &Self::Normal, k: &Self::Scalar) -> Self::Element;
    /// `out[i] = k * points[i]`, constant time. By default one [`mul_normal`](Self::mul_normal)
    /// per point; groups with a shared-scalar batch method override it.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] if `out` and `points` differ in length.
    fn mul_batch(
        points: &[Self::Normal],
        k: &Self::Scalar,
        out: &mut [Self::Element],
    ) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::InvalidLength);
        }
        for (o, p) in out.iter_mut().zip(points) {
            *o = Self::mul_normal(p, k);
        }
        Ok(())
    }
    /// `k * P` in variable time (public data only).
    fn vartime_mul(p: &Self::Normal, k: &Self::Scalar) -> Self::Element;
    /// `sum k_i * P_i` in variable time (public data only).
    ///
    /// # Errors
    /// [`Error::Batch`] when the slices differ in length.
    fn vartime_msm(points: &[Self::Normal], scalars: &[Self::Scalar]) -> Result<Self::Element>;
    /// `k_0 * P_0 + k_1 * P_1` in variable time (public data only).
    fn vartime_lincomb2(points: &[Self::Element; 2], scalars: &[Self::Scalar; 2]) -> Self::Element;
    /// `a * G + b * P` in variable time (public data only).
    fn vartime_mul_generator_add(
        a: &Self::Scalar,
        b: &Self::Scalar,
        p: &Self::Normal,
    ) -> Self::Element;
}

/// P-256 and P-384 through the crate's own arithmetic: every method is the [`Curve`] routine
/// of the same name, inlined.
///
/// [`Curve`]: super::Curve
macro_rules! impl_prime_group_for_curve {
    ($curve:ty) => {
        impl PrimeGroup for $curve {
            type Element = super::Point<$curve>;
            type Normal = super::Affine<$curve>;
            type Scalar = super::Scalar<$curve>;
            type ElementBytes = <$curve as super::Curve>::Compressed;
            type ScalarBytes = <$curve as super::Curve>::ScalarBytes;
            type ScalarPairBytes = <$curve as super::Curve>::ScalarPairBytes;
            const NE: usize = <$curve as super::Curve>::COMPRESSED_LEN;
            const NS: usize = <$curve as super::Curve>::SCALAR_LEN;

            #[inline]
            fn encode_element(p: &Self::Normal) -> Self::ElementBytes {
                <$curve as super::Curve>::encode_compressed(p)
            }
            #[inline]
            fn decode_element(bytes: &[u8]) -> Result<Self::Normal> {
                <$curve as super::Curve>::decode_compressed(bytes)
            }
            #[inline]
            fn encode_scalar(s: &Self::Scalar) -> Self::ScalarBytes {
                <$curve as super::Curve>::scalar_bytes(s)
            }
            #[inline]
            fn decode_scalar(bytes: &[u8]) -> Result<Self::Scalar> {
                super::decode_scalar::<$curve>(bytes)
            }
            fn hash_to_group(
                e: MessageExpansion,
                msg: &[&[u8]],
                dst: &[&[u8]],
            ) -> Result<Self::Element> {
                match e {
                    MessageExpansion::Xmd(x) => {
                        <$curve as super::Curve>::hash_to_curve(x, msg, dst)
                    }
                    // RFC 9380 defines no XOF suite for the NIST curves.
                    MessageExpansion::Xof(_) => Err(Error::UnsupportedValue),
                }
            }
            fn hash_to_scalar(
                e: MessageExpansion,
                msg: &[&[u8]],
                dst: &[&[u8]],
            ) -> Result<Self::Scalar> {
                match e {
                    MessageExpansion::Xmd(x) => {
                        <$curve as super::Curve>::hash_to_scalar(x, msg, dst)
                    }
                    MessageExpansion::Xof(_) => Err(Error::UnsupportedValue),
                }
            }
            #[inline]
            fn random_scalar(rng: &mut (impl CryptoRng + ?Sized)) -> Self::Scalar {
                super::random_scalar::<$curve>(rng)
            }
            #[inline]
            fn scalar_is_zero(s: &Self::Scalar) -> Choice {
                elliptic_curve::ff::Field::is_zero(s)
            }
            #[inline]
            fn invert_scalar(s: &Self::Scalar) -> Result<Self::Scalar> {
                super::invert::<$curve>(s)
            }
            #[inline]
            fn batch_invert(
                scalars: &mut [Self::Scalar],
                scratch: &mut [Self::Scalar],
            ) -> Result<()> {
                super::batch_invert::<$curve>(scalars, scratch)
            }
            #[inline]
            fn identity() -> Self::Element {
                super::identity::<$curve>()
            }
            #[inline]
            fn normal_identity() -> Self::Normal {
                super::affine_identity::<$curve>()
            }
            #[inline]
            fn is_identity(p: &Self::Element) -> bool {
                super::is_identity::<$curve>(p)
            }
            #[inline]
            fn add_normal(a: &Self::Element, b: &Self::Normal) -> Self::Element {
                *a + *b
            }
            #[inline]
            fn normalize(p: &Self::Element) -> Self::Normal {
                super::to_affine::<$curve>(p)
            }
            #[inline]
            fn normalize_array<const N: usize>(points: &[Self::Element; N]) -> [Self::Normal; N] {
                super::normalize_array::<$curve, N>(points)
            }
            #[inline]
            fn normalize_slice(points: &[Self::Element], out: &mut [Self::Normal]) -> Result<()> {
                super::normalize_slice::<$curve>(points, out)
            }
            #[inline]
            fn mul_generator(k: &Self::Scalar) -> Self::Element {
                super::mul_generator::<$curve>(k)
            }
            #[inline]
            fn mul(p: &Self::Element, k: &Self::Scalar) -> Self::Element {
                super::mul::<$curve>(p, k)
            }
            #[inline]
            fn mul_normal(p: &Self::Normal, k: &Self::Scalar) -> Self::Element {
                super::mul_affine::<$curve>(p, k)
            }
            #[inline]
            fn mul_batch(
                points: &[Self::Normal],
                k: &Self::Scalar,
                out: &mut [Self::Element],
            ) -> Result<()> {
                super::mul_batch_affine::<$curve>(points, k, out)
            }
            #[inline]
            fn vartime_mul(p: &Self::Normal, k: &Self::Scalar) -> Self::Element {
                super::vartime_mul::<$curve>(p, k)
            }
            #[inline]
            fn vartime_msm(
                points: &[Self::Normal],
                scalars: &[Self::Scalar],
            ) -> Result<Self::Element> {
                super::vartime_msm::<$curve>(points, scalars)
            }
            #[inline]
            fn vartime_lincomb2(
                points: &[Self::Element; 2],
                scalars: &[Self::Scalar; 2],
            ) -> Self::Element {
                super::vartime_lincomb::<$curve, 2>(points, scalars)
            }
            #[inline]
            fn vartime_mul_generator_add(
                a: &Self::Scalar,
                b: &Self::Scalar,
                p: &Self::Normal,
            ) -> Self::Element {
                super::vartime_mul_generator_add::<$curve>(a, b, p)
            }
        }
    };
}

impl_prime_group_for_curve!(p256::NistP256);
impl_prime_group_for_curve!(p384::NistP384);
