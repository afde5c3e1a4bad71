//! The group layer: the only module that names the curve crates.
//!
//! Two traits: [`PrimeGroup`], the prime-order group interface of the RFC 9497 code (P-256,
//! P-384, P-521, ristretto255), and [`Curve`], the Weierstrass-curve interface of the crate's
//! own arithmetic (P-256 and P-384) that ARC and Trust Tokens use.
//!
//! Strict element and scalar codecs, hash-to-group and hash-to-scalar with caller-chosen DSTs,
//! batched affine conversion (one field inversion per batch), batched scalar inversion, and the
//! multiplication routines: constant time for secret scalars, `vartime_` for public data.
//!
//! The point arithmetic (Jacobian coordinates, `group/point.rs`) runs on the crate's own base
//! fields, [`P256Fe`] (`group/p256_field.rs`) and [`P384Fe`] (`group/p384_field.rs`): Montgomery
//! form like the curve crates' field elements, but inlined into the point formulas, with
//! dedicated squarings and limb-level constant-time selects (shared code in `group/limbs.rs`).
//! The curve crates (the RustCrypto 0.14 line) still provide the scalars (their constant-time
//! inversion included), `expand_message` and the `hash_to_field` reductions, and the point
//! types the tests compare against; field values cross between the two by their canonical
//! encodings.
//!
//! # Stack residue
//! The protocol operations (VOPRF, POPRF, OPRF, Privacy Pass, Trust Tokens, ARC) run every step
//! that touches a key, a blind, a nonce or a credential inside the crate's stack wipe
//! (`src/stack.rs`): after the step, the stack below the caller that it could have used is
//! overwritten, including the assembly's own frames below the stack pointer (the fused
//! doubling leaves 1,096 bytes on P-384 and 688 on P-256 there, each P-384 squaring 7 words of
//! `a^2`). `tests/stack_wipe.rs` checks both: no recorded secret is left, and every operation's
//! deepest stack writes are inside its wipe.
//!
//! The functions of this module do **not** wipe: [`mul`], [`mul_generator`], [`mul_affine`],
//! [`mul_batch_affine`], [`mul_multi_ct`], [`mul_multi_shared_ct`],
//! [`mul_multi_shared_batch_ct`], [`mul_fixed_ct`], [`FixedBaseTable::mul`],
//! [`LadderBlind::random`] and [`LadderBlind::from_secret`], [`random_scalar`], [`invert`],
//! and the field and point operations under them. Copies of their secret scalars and
//! intermediates (spilled registers, by-value arithmetic, the assembly's frames) stay in stack
//! memory below the caller until something overwrites them. Code that calls them on secrets
//! directly, outside a protocol operation, should run them in its own wipe; the
//! `group_layer_calls_do_not_wipe` test of `tests/stack_wipe.rs` pins this list.
//!
//! The wipe runs after the body returns: a panic in the body would skip it. The library code
//! in the wiped bodies has no `unwrap`, `expect` or assertion outside tests; what could still
//! panic is an out-of-bounds index or a slice-length mismatch, which would be a bug (inputs
//! are length-checked before any secret work), and allocation failure aborts. With
//! `panic = "abort"` nothing is left to read.

#[cfg(target_arch = "x86_64")]
mod adx;
pub(crate) mod backend;
#[cfg(test)]
mod carry_paths;
mod ct_multi;
pub mod decaf448;
mod field;
mod fixed_base;
mod limbs;
mod mul;
mod p256_field;
mod p384_field;
mod p521;
mod point;
mod prime;
#[cfg(test)]
mod random_tests;
mod ristretto255;
mod sswu;
#[cfg(test)]
mod tests;
pub mod validation;
mod window;

use core::fmt;

use elliptic_curve::{
    ff::{Field, PrimeField},
    ops::Reduce,
    sec1::{FromSec1Point, Sec1Point},
    FieldBytes,
};
use hybrid_array::{Array, ArraySize};
use primeorder::PrimeCurveParams;
use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use crate::{Error, Result};

pub use ct_multi::LadderBlind;
pub use fixed_base::{mul_fixed_ct, vartime_mul_fixed, FixedBaseTable};
pub use mul::GeneratorTable;

pub use decaf448::Decaf448;
pub use field::FieldOps;
pub use prime::{expand_message, MessageExpansion, PrimeGroup, Xof};
pub use ristretto255::Ristretto255;

/// NIST P-256 (the `p256` crate's curve marker; the arithmetic of [`Curve`] is the crate's own).
pub use ::p256::NistP256;
/// NIST P-384 (the `p384` crate's curve marker; the arithmetic of [`Curve`] is the crate's own).
pub use ::p384::NistP384;
/// NIST P-521 (the `p521` crate's curve and arithmetic, a [`PrimeGroup`]).
pub use ::p521::NistP521;

/// Which base-field arithmetic this process runs: `"x86-64 mulx/adx"` (BMI2 and ADX, detected at
/// run time) or `"portable"` (other CPUs, or `PRIVACY_TOKENS_ARITH=portable` set before the first
/// field operation). Both compute the same values; benchmarks print it beside their figures.
pub fn arithmetic_backend() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        adx::backend_name()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "portable"
    }
}
pub use p256_field::P256Fe;
pub use p384_field::P384Fe;
pub use point::{AffinePoint, JacobianPoint};

/// A point in (Jacobian) projective coordinates.
pub type Point<C> = JacobianPoint<C>;
/// A point in affine coordinates.
pub type Affine<C> = AffinePoint<C>;
/// A scalar modulo the group order.
pub type Scalar<C> = elliptic_curve::Scalar<C>;

/// A fixed-size byte array, used for encodings sized by the curve.
pub trait ByteArray:
    Copy + Default + AsRef<[u8]> + AsMut<[u8]> + fmt::Debug + PartialEq + Eq + Send + Sync + 'static
{
}

impl<N: ArraySize> ByteArray for Array<u8, N> where N::ArrayType<u8>: Copy {}

/// Which `expand_message_xmd` hash a hash-to-curve or hash-to-scalar call uses (RFC 9380 §5.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xmd {
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for p256::NistP256 {}
    impl Sealed for p384::NistP384 {}
}

/// A prime-order curve this crate supports (sealed: P-256 and P-384).
pub trait Curve:
    PrimeCurveParams + sealed::Sealed + Copy + fmt::Debug + Default + Send + Sync + 'static
{
    /// Compressed SEC1 encoding (`0x02|0x03 || x`).
    type Compressed: ByteArray;
    /// Uncompressed SEC1 encoding (`0x04 || x || y`).
    type Uncompressed: ByteArray;
    /// Big-endian scalar encoding.
    type ScalarBytes: ByteArray + zeroize::Zeroize;
    /// Two scalar encodings back to back (a DLEQ proof `c || s`).
    type ScalarPairBytes: ByteArray;
    /// The base field element used by the point arithmetic.
    type Fe: FieldOps;
    /// The curve coefficient `a` (`-3`).
    #[doc(hidden)]
    const EQ_A: Self::Fe;
    /// The curve coefficient `b`.
    #[doc(hidden)]
    const EQ_B: Self::Fe;
    /// The affine coordinates of the generator.
    #[doc(hidden)]
    const GEN_XY: (Self::Fe, Self::Fe);
    /// Length of a scalar encoding (`Ns`).
    const SCALAR_LEN: usize;
    /// Length of a compressed point (`Ne`).
    const COMPRESSED_LEN: usize;
    /// Length of an uncompressed point.
    const UNCOMPRESSED_LEN: usize;

    /// Compressed SEC1 encoding of an affine point (the identity encodes as all zeros).
    fn encode_compressed(p: &Affine<Self>) -> Self::Compressed;
    /// Uncompressed SEC1 encoding of an affine point (the identity encodes as all zeros).
    fn encode_uncompressed(p: &Affine<Self>) -> Self::Uncompressed;
    /// Strict compressed decoding: exact length, tag 2 or 3, `x < p`, on the curve, not the identity.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    fn decode_compressed(bytes: &[u8]) -> Result<Affine<Self>>;
    /// Strict uncompressed decoding: exact length, tag 4, canonical coordinates, on the curve,
    /// not the identity.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    fn decode_uncompressed(bytes: &[u8]) -> Result<Affine<Self>>;
    /// `hash_to_curve` with the `_XMD:<hash>_SSWU_RO_` map of RFC 9380; message and DST are given as
    /// pieces that are concatenated.
    ///
    /// # Errors
    /// [`Error::HashToCurve`] when the DST is too long for the expander.
    fn hash_to_curve(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Point<Self>>;
    /// RFC 9380 `hash_to_field` into the scalar field (`L = 48` on P-256, `72` on P-384).
    ///
    /// # Errors
    /// [`Error::HashToCurve`] when the DST is too long for the expander.
    fn hash_to_scalar(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar<Self>>;
    /// The process-wide precomputed table of multiples of the generator.
    fn generator_table() -> &'static GeneratorTable<Self>;
    /// The scalar of an RFC 9380 `hash_to_field` piece: `okm` (`L = 48` bytes on P-256, `72`
    /// on P-384; any other length gives zero) read big-endian and reduced modulo the order.
    #[doc(hidden)]
    fn scalar_from_okm(okm: &[u8]) -> Scalar<Self>;
    /// The scalar encoding as a fixed array.
    fn scalar_bytes(s: &Scalar<Self>) -> Self::ScalarBytes;
    /// Base-field inversion (zero maps to zero), constant time.
    #[doc(hidden)]
    fn invert_field(a: &Self::Fe) -> Self::Fe;
    /// The simplified SWU constant `Z` of RFC 9380 §8.2/§8.3 (`-10` on P-256, `-12` on P-384).
    #[doc(hidden)]
    const SSWU_Z: Self::Fe;
    /// `sqrt(-Z)`, the constant `c2` of `sqrt_ratio` (RFC 9380 Appendix F.2.1.2).
    #[doc(hidden)]
    const SSWU_C2: Self::Fe;
    /// `a^((p-3)/4)`, the exponentiation of `sqrt_ratio`, constant time.
    #[doc(hidden)]
    fn pow_c1(a: &Self::Fe) -> Self::Fe;
    /// Conversion from the `primeorder` affine type (through SEC1 coordinates).
    #[doc(hidden)]
    fn affine_from_primeorder(p: &primeorder::AffinePoint<Self>) -> Affine<Self>;
    /// Conversion to the `primeorder` affine type (through SEC1 coordinates).
    #[doc(hidden)]
    fn affine_to_primeorder(p: &Affine<Self>) -> primeorder::AffinePoint<Self>;
}

macro_rules! impl_curve {
    ($curve:ty, $crate_:ident, $fe:ty, $ns:expr, $l:ty, $pair:ty, $static_name:ident, $inv:path, $pow:path,
     $z:expr, $c2:expr, $a:expr, $b:expr, $gen:expr) => {
        impl Curve for $curve {
            type Fe = $fe;
            const EQ_A: $fe = $a;
            const EQ_B: $fe = $b;
            const GEN_XY: ($fe, $fe) = $gen;
            type Compressed = $crate_::CompressedPoint;
            type Uncompressed = elliptic_curve::sec1::UncompressedPoint<$curve>;
            type ScalarBytes = $crate_::FieldBytes;
            type ScalarPairBytes = Array<u8, $pair>;
            const SCALAR_LEN: usize = $ns;
            const COMPRESSED_LEN: usize = $ns + 1;
            const UNCOMPRESSED_LEN: usize = 2 * $ns + 1;

            fn encode_compressed(p: &Affine<Self>) -> Self::Compressed {
                let mut out = Self::Compressed::default();
                out[0] = 2 | FieldOps::is_odd(&p.y).unwrap_u8();
                out[1..].copy_from_slice(FieldOps::to_repr(&p.x).as_ref());
                // The identity encodes as all zeros (masked, no branch: `p` may be secret).
                zero_if(&mut out, p.is_identity());
                out
            }

            fn encode_uncompressed(p: &Affine<Self>) -> Self::Uncompressed {
                let mut out = Self::Uncompressed::default();
                out[0] = 4;
                out[1..=$ns].copy_from_slice(FieldOps::to_repr(&p.x).as_ref());
                out[$ns + 1..].copy_from_slice(FieldOps::to_repr(&p.y).as_ref());
                zero_if(&mut out, p.is_identity());
                out
            }

            fn decode_compressed(bytes: &[u8]) -> Result<Affine<Self>> {
                if bytes.len() != Self::COMPRESSED_LEN {
                    return Err(Error::InvalidLength);
                }
                match bytes[0] {
                    2 | 3 => {}
                    _ if bytes.iter().all(|&b| b == 0) => return Err(Error::IdentityElement),
                    _ => return Err(Error::InvalidPoint),
                }
                // Our own field: strict `x < p`, then the constant-time square root and sign
                // select of `AffinePoint::decompress` (no identity: the tag is 2 or 3).
                let x = <$fe as FieldOps>::from_repr(fe_repr::<$fe>(&bytes[1..]));
                let odd = Choice::from(bytes[0] & 1);
                let p = x.and_then(|x| Affine::<Self>::decompress(&x, odd));
                Option::from(p).ok_or(Error::InvalidPoint)
            }

            fn decode_uncompressed(bytes: &[u8]) -> Result<Affine<Self>> {
                if bytes.len() != Self::UNCOMPRESSED_LEN {
                    return Err(Error::InvalidLength);
                }
                match bytes[0] {
                    4 => {}
                    _ if bytes.iter().all(|&b| b == 0) => return Err(Error::IdentityElement),
                    _ => return Err(Error::InvalidPoint),
                }
                // Strict coordinates (`x, y < p`) and the curve equation on our own field.
                let x = <$fe as FieldOps>::from_repr(fe_repr::<$fe>(&bytes[1..=$ns]));
                let y = <$fe as FieldOps>::from_repr(fe_repr::<$fe>(&bytes[$ns + 1..]));
                let p = x.and_then(|x| y.and_then(|y| Affine::<Self>::from_xy_checked(&x, &y)));
                Option::from(p).ok_or(Error::InvalidPoint)
            }

            fn hash_to_curve(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Point<Self>> {
                // RFC 9380 §3 with cofactor 1: `hash_to_field` (`expand_message_xmd`, each
                // `L`-byte piece reduced by the curve crate's field), then our constant-time
                // simplified SWU map (one exponentiation, no inversion, Jacobian output) and a
                // complete addition.
                type CrateFe = <$curve as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;
                let [u0, u1] =
                    hash_to_field::<CrateFe, $l, 2>(MessageExpansion::Xmd(xmd), msg, dst)?;
                let q0 = sswu::map_to_curve::<Self>(&fe_from_crate::<$fe, _>(&u0));
                let q1 = sswu::map_to_curve::<Self>(&fe_from_crate::<$fe, _>(&u1));
                Ok(q0.add_complete(&q1))
            }

            fn hash_to_scalar(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar<Self>> {
                let [s] =
                    hash_to_field::<Scalar<Self>, $l, 1>(MessageExpansion::Xmd(xmd), msg, dst)?;
                Ok(s)
            }

            fn generator_table() -> &'static GeneratorTable<Self> {
                static $static_name: std::sync::OnceLock<GeneratorTable<$curve>> =
                    std::sync::OnceLock::new();
                $static_name.get_or_init(GeneratorTable::new)
            }

            fn scalar_from_okm(okm: &[u8]) -> Scalar<Self> {
                match Array::<u8, $l>::try_from(okm) {
                    Ok(a) => <Scalar<Self> as Reduce<Array<u8, $l>>>::reduce(&a),
                    Err(_) => Scalar::<Self>::ZERO,
                }
            }

            fn scalar_bytes(s: &Scalar<Self>) -> Self::ScalarBytes {
                s.to_repr()
            }

            fn invert_field(a: &$fe) -> $fe {
                $inv(a)
            }

            const SSWU_Z: $fe = $z;
            const SSWU_C2: $fe = $c2;

            fn pow_c1(a: &$fe) -> $fe {
                $pow(a)
            }

            fn affine_from_primeorder(p: &$crate_::AffinePoint) -> Affine<Self> {
                use elliptic_curve::sec1::{Coordinates, ToSec1Point};
                let enc = p.to_sec1_point(false);
                match enc.coordinates() {
                    Coordinates::Uncompressed { x, y } => Affine::<Self>::from_coordinates(
                        fe_from_slice::<$fe>(x),
                        fe_from_slice::<$fe>(y),
                    ),
                    _ => Affine::<Self>::IDENTITY,
                }
            }

            fn affine_to_primeorder(p: &Affine<Self>) -> $crate_::AffinePoint {
                if bool::from(p.is_identity()) {
                    return $crate_::AffinePoint::IDENTITY;
                }
                let mut x = FieldBytes::<Self>::default();
                let mut y = FieldBytes::<Self>::default();
                x.copy_from_slice(FieldOps::to_repr(&p.x).as_ref());
                y.copy_from_slice(FieldOps::to_repr(&p.y).as_ref());
                let enc = Sec1Point::<Self>::from_affine_coordinates(&x, &y, false);
                // ok: our points satisfy the curve equation, the fallback is unreachable.
                $crate_::AffinePoint::from_sec1_point(&enc)
                    .into_option()
                    .unwrap_or($crate_::AffinePoint::IDENTITY)
            }
        }
    };
}

/// A field element from its canonical big-endian encoding (`None` unless canonical).
fn fe_from_slice<F: FieldOps>(bytes: &[u8]) -> Option<F> {
    let mut repr = F::Repr::default();
    if repr.as_ref().len() != bytes.len() {
        return None;
    }
    repr.as_mut().copy_from_slice(bytes);
    F::from_repr(repr).into()
}

/// A field element's encoding from a slice of exactly its length (the callers check the length
/// first; a shorter or longer slice leaves the encoding zero, which is never reached).
fn fe_repr<F: FieldOps>(bytes: &[u8]) -> F::Repr {
    let mut repr = F::Repr::default();
    if repr.as_ref().len() == bytes.len() {
        repr.as_mut().copy_from_slice(bytes);
    }
    repr
}

/// Our field element from the curve crate's (the output of its `hash_to_field`; canonical, so
/// the conversion cannot fail). Branch-free: the value may derive from a secret (a token nonce
/// hashed to the curve), so the `CtOption` is resolved by selection, not by a branch.
fn fe_from_crate<F: FieldOps, G: PrimeField>(x: &G) -> F {
    F::from_repr(fe_repr::<F>(x.to_repr().as_ref())).unwrap_or(F::ZERO)
}

/// RFC 9380 `hash_to_field` (§5.2) with `count = N` and `L`-byte pieces: `expand_message`
/// of `N * L` bytes, each piece reduced by `T` (a curve crate's field or scalar type, whose
/// `Reduce` of an `L`-byte string is the `OS2IP(tv) mod p` of the RFC).
pub(crate) fn hash_to_field<T, L, const N: usize>(
    e: MessageExpansion,
    msg: &[&[u8]],
    dst: &[&[u8]],
) -> Result<[T; N]>
where
    T: Reduce<Array<u8, L>>,
    L: ArraySize,
{
    // N * L <= 2 * 98 (P-521) for every caller.
    let mut okm = zeroize::Zeroizing::new([0u8; 256]);
    let okm = okm.get_mut(..N * L::USIZE).ok_or(Error::HashToCurve)?;
    expand_message(e, msg, dst, okm)?;
    Ok(core::array::from_fn(|i| {
        let piece = Array::<u8, L>::try_from(&okm[i * L::USIZE..(i + 1) * L::USIZE]);
        // ok: the piece is exactly `L` bytes.
        T::reduce(&piece.unwrap_or_default())
    }))
}

/// A P-256 field element from its big-endian 64-bit words (below `p`), in a `const` context.
const fn p256_fe(w: [u64; 4]) -> P256Fe {
    P256Fe::from_canonical_limbs([w[3], w[2], w[1], w[0]])
}

/// `sqrt(10)` on P-256 (the even root): `c2 = sqrt(-Z)` of `sqrt_ratio` for `Z = -10` (RFC 9380
/// Appendix F.2.1.2). Not the `OsswuMapParams::c2` of the curve crates: p384's is `sqrt(-Z^3)`
/// (another formulation) and p256's holds canonical limbs as if they were Montgomery form.
const P256_SQRT_10: P256Fe = p256_fe([
    0x25ac_71c3_1e27_6467,
    0x3687_0398_ae7f_554d,
    0x8472_e008_b3aa_2a49,
    0xd332_cbd8_1bcc_3b80,
]);

/// The P-256 coefficient `b` (SEC 2), checked against the curve crate in the tests.
const P256_B: P256Fe = p256_fe([
    0x5ac6_35d8_aa3a_93e7,
    0xb3eb_bd55_7698_86bc,
    0x651d_06b0_cc53_b0f6,
    0x3bce_3c3e_27d2_604b,
]);

/// The P-256 generator (SEC 2), checked against the curve crate in the tests.
const P256_G: (P256Fe, P256Fe) = (
    p256_fe([
        0x6b17_d1f2_e12c_4247,
        0xf8bc_e6e5_63a4_40f2,
        0x7703_7d81_2deb_33a0,
        0xf4a1_3945_d898_c296,
    ]),
    p256_fe([
        0x4fe3_42e2_fe1a_7f9b,
        0x8ee7_eb4a_7c0f_9e16,
        0x2bce_3357_6b31_5ece,
        0xcbb6_4068_37bf_51f5,
    ]),
);

/// A P-384 field element from its big-endian 64-bit words (below `p`), in a `const` context.
const fn p384_fe(w: [u64; 6]) -> P384Fe {
    P384Fe::from_canonical_limbs([w[5], w[4], w[3], w[2], w[1], w[0]])
}

/// `sqrt(12)` on P-384 (the even root): `c2 = sqrt(-Z)` for `Z = -12`, as [`P256_SQRT_10`].
const P384_SQRT_12: P384Fe = p384_fe([
    0xd533_4b59_a94f_db63,
    0x8e0f_aff1_7c25_d022,
    0x8067_1c7c_2974_ac78,
    0xe078_d034_6334_7f39,
    0xc3f2_1e06_57f0_81e6,
    0xeb1d_1397_0a59_d94c,
]);

/// The P-384 coefficient `b` (SEC 2), checked against the curve crate in the tests.
const P384_B: P384Fe = p384_fe([
    0xb331_2fa7_e23e_e7e4,
    0x988e_056b_e3f8_2d19,
    0x181d_9c6e_fe81_4112,
    0x0314_088f_5013_875a,
    0xc656_398d_8a2e_d19d,
    0x2a85_c8ed_d3ec_2aef,
]);

/// The P-384 generator (SEC 2), checked against the curve crate in the tests.
const P384_G: (P384Fe, P384Fe) = (
    p384_fe([
        0xaa87_ca22_be8b_0537,
        0x8eb1_c71e_f320_ad74,
        0x6e1d_3b62_8ba7_9b98,
        0x59f7_41e0_8254_2a38,
        0x5502_f25d_bf55_296c,
        0x3a54_5e38_7276_0ab7,
    ]),
    p384_fe([
        0x3617_de4a_9626_2c6f,
        0x5d9e_98bf_9292_dc29,
        0xf8f4_1dbd_289a_147c,
        0xe9da_3113_b5f0_b8c0,
        0x0a60_b1ce_1d7e_819d,
        0x7a43_1d7c_90ea_0e5f,
    ]),
);

impl_curve!(
    p256::NistP256,
    p256,
    P256Fe,
    32,
    elliptic_curve::consts::U48,
    elliptic_curve::consts::U64,
    P256_GENERATOR_TABLE,
    field::invert_p256,
    field::pow_p256_c1,
    P256Fe::from_canonical_limbs([10, 0, 0, 0]).negate(),
    P256_SQRT_10,
    P256Fe::from_canonical_limbs([3, 0, 0, 0]).negate(),
    P256_B,
    P256_G
);
impl_curve!(
    p384::NistP384,
    p384,
    P384Fe,
    48,
    elliptic_curve::consts::U72,
    elliptic_curve::consts::U96,
    P384_GENERATOR_TABLE,
    field::invert_p384,
    field::pow_p384_c1,
    P384Fe::from_canonical_limbs([12, 0, 0, 0, 0, 0]).negate(),
    P384_SQRT_12,
    P384Fe::from_canonical_limbs([3, 0, 0, 0, 0, 0]).negate(),
    P384_B,
    P384_G
);

// ---------------------------------------------------------------------------------------------
// Scalars

/// Strict scalar decoding: exactly `Ns` big-endian bytes, value below the group order.
///
/// # Errors
/// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
pub fn decode_scalar<C: Curve>(bytes: &[u8]) -> Result<Scalar<C>> {
    if bytes.len() != C::SCALAR_LEN {
        return Err(Error::InvalidLength);
    }
    let mut repr = FieldBytes::<C>::default();
    repr.copy_from_slice(bytes);
    Option::from(Scalar::<C>::from_repr(repr)).ok_or(Error::NonCanonicalScalar)
}

/// Sets every byte of `out` to zero when `c` is set, constant time.
fn zero_if(out: &mut [u8], c: Choice) {
    let keep = core::hint::black_box(c.unwrap_u8().wrapping_sub(1));
    for b in out.iter_mut() {
        *b &= keep;
    }
}

/// The crate's one declassification point: the bit `c`, derived from secrets, as a `bool` that
/// the caller branches on. Only for the by-design branches whose outcome is public or occurs
/// with negligible probability: rejection sampling (a candidate at or above the order, or
/// zero; the legacy ARC nonce permutation's search), a zero secret scalar or an identity
/// element refused (blinds, derived and generated keys, the POPRF tweak, a hashed input, ARC's
/// `U'` and `V`, batch inversions of a zero), and the exceptional-case fallbacks of the
/// constant-time multiplications (see `group/mul.rs`, `group/ct_multi.rs`, the fixed-base
/// table). Each such refusal is an error the caller sees anyway, or a retry of a fresh random
/// draw. Out of line and with a jump of its own, so that
/// `bash scripts/ct-valgrind.sh` can accept the branch here (its suppression names this
/// function only) and still reports any other branch on a secret.
#[inline(never)]
pub(crate) fn declassify(c: Choice) -> bool {
    // Each arm returns a constant of its own (through barriers of different types, which the
    // compiler cannot merge into one value computed from `c`), so the result no longer depends
    // on `c` but on the jump.
    if core::hint::black_box(c.unwrap_u8()) != 0 {
        core::hint::black_box(1u16) == 1
    } else {
        core::hint::black_box(0u32) == 1
    }
}

/// Strict decoding of a scalar that must also be non-zero.
///
/// # Errors
/// As [`decode_scalar`], plus [`Error::ZeroScalar`].
pub fn decode_nonzero_scalar<C: Curve>(bytes: &[u8]) -> Result<Scalar<C>> {
    let s = decode_scalar::<C>(bytes)?;
    if declassify(s.is_zero()) {
        return Err(Error::ZeroScalar);
    }
    Ok(s)
}

/// A uniformly random scalar in `[1, n-1]` (RFC 9497 `RandomScalar`, with erratum 8392).
///
/// Rejection sampling (RFC 9497 §4.7): `Ns` big-endian bytes from `rng` with the bits above the
/// order's bit length cleared, kept if the value is below `n` and non-zero, drawn again
/// otherwise. Each draw is checked in constant time; only the number of draws depends on the
/// RNG's output (a rejected draw says nothing about the kept one), and the buffer is zeroized.
/// On P-256 and P-384 this reads the same bytes and returns the same scalar as the curve crates'
/// `NonZeroScalar::random`.
pub fn random_scalar<C: Curve>(rng: &mut (impl CryptoRng + ?Sized)) -> Scalar<C> {
    let top_bits = Scalar::<C>::NUM_BITS % 8;
    let mask = if top_bits == 0 {
        0xff
    } else {
        (1u8 << top_bits) - 1
    };
    let mut repr = FieldBytes::<C>::default();
    loop {
        rng.fill_bytes(&mut repr);
        repr[0] &= mask;
        let candidate = Scalar::<C>::from_repr(repr);
        let value = candidate.unwrap_or(Scalar::<C>::ZERO);
        let keep = candidate.is_some() & !value.is_zero();
        if declassify(keep) {
            zeroize::Zeroize::zeroize(repr.as_mut_slice());
            return value;
        }
    }
}

/// Inverts every scalar in place with one inversion (Montgomery's trick). Constant time.
///
/// `scratch` must be as long as `scalars`. Zero scalars make the whole batch fail.
///
/// # Errors
/// [`Error::ZeroScalar`] if any scalar is zero (nothing is changed then) or [`Error::Batch`]
/// on mismatched lengths.
pub fn batch_invert<C: Curve>(scalars: &mut [Scalar<C>], scratch: &mut [Scalar<C>]) -> Result<()> {
    batch_invert_field(scalars, scratch)
}

/// [`batch_invert`] over any field (the scalars of every [`PrimeGroup`] on a curve crate):
/// one constant-time inversion for the batch.
pub(crate) fn batch_invert_field<F: Field>(elements: &mut [F], scratch: &mut [F]) -> Result<()> {
    if elements.len() != scratch.len() {
        return Err(Error::Batch);
    }
    let mut any_zero = Choice::from(0);
    for s in elements.iter() {
        any_zero |= s.is_zero();
    }
    if declassify(any_zero) {
        return Err(Error::ZeroScalar);
    }
    // Montgomery's trick without `ff::BatchInverter`, whose `invert().unwrap()` branches on
    // the (secret) product being zero; none is zero here.
    let mut acc = F::ONE;
    for (e, s) in elements.iter().zip(scratch.iter_mut()) {
        *s = acc;
        acc *= *e;
    }
    let mut inv = acc.invert().unwrap_or(F::ZERO);
    for (e, s) in elements.iter_mut().zip(scratch.iter()).rev() {
        let t = *s * inv;
        inv *= *e;
        *e = t;
    }
    Ok(())
}

/// Constant-time scalar inversion.
///
/// # Errors
/// [`Error::ZeroScalar`] for zero.
pub fn invert<C: Curve>(s: &Scalar<C>) -> Result<Scalar<C>> {
    let inv = s.invert();
    if declassify(inv.is_none()) {
        return Err(Error::ZeroScalar);
    }
    Ok(inv.unwrap_or(Scalar::<C>::ZERO))
}

// ---------------------------------------------------------------------------------------------
// Affine conversion

#[cfg(feature = "inversion-counter")]
std::thread_local! {
    static INVERSIONS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Counts one field inversion (every inversion goes through `point::invert`, which calls this).
#[inline]
pub(crate) fn count_inversion() {
    #[cfg(feature = "inversion-counter")]
    INVERSIONS.with(|c| c.set(c.get() + 1));
}

/// The number of base-field inversions this thread has performed so far, all of them (affine
/// conversions, batched or not, table normalisations, hash-to-curve has none) (feature
/// `inversion-counter`; a test hook).
#[cfg(feature = "inversion-counter")]
pub fn inversion_count() -> u64 {
    INVERSIONS.with(|c| c.get())
}

/// Converts one point to affine coordinates (one field inversion).
pub fn to_affine<C: Curve>(p: &Point<C>) -> Affine<C> {
    p.to_affine()
}

/// Converts `N` points to affine coordinates with one field inversion, on the stack.
pub fn normalize_array<C: Curve, const N: usize>(points: &[Point<C>; N]) -> [Affine<C>; N] {
    let mut out = [Affine::<C>::IDENTITY; N];
    if N > 0 {
        point::batch_normalize(points, &mut out);
    }
    out
}

/// Converts a slice of points to affine coordinates with one field inversion.
///
/// # Errors
/// [`Error::Batch`] when `out` and `points` differ in length.
pub fn normalize_slice<C: Curve>(points: &[Point<C>], out: &mut [Affine<C>]) -> Result<()> {
    if points.len() != out.len() {
        return Err(Error::Batch);
    }
    match points.len() {
        0 => {}
        1 => out[0] = to_affine(&points[0]),
        _ => {
            point::batch_normalize(points, out);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Multiplication

/// `k * G`, constant time, through the precomputed generator table.
pub fn mul_generator<C: Curve>(k: &Scalar<C>) -> Point<C> {
    C::generator_table().mul(k)
}

/// `k * P`, constant time in `k` and `P`.
pub fn mul<C: Curve>(p: &Point<C>, k: &Scalar<C>) -> Point<C> {
    mul::mul_ct::<C>(p, k)
}

/// `sum k_i * P_i` for a fixed number of terms, constant time in every scalar and point, with
/// shared doublings (see `group/ct_multi.rs`). Stack only. The ladder starts at the secret
/// point of `blind`, so that no relation between the points, even one an attacker chose, makes
/// an addition exceptional.
///
/// `N = 0` does not compile (an empty sum would leave only the blind's own points, which reveal
/// its start point); the same holds for [`mul_multi_shared_ct`] and
/// [`mul_multi_shared_batch_ct`]:
///
/// ```compile_fail,E0080
/// use privacy_tokens::group::{self, LadderBlind, NistP256, Point};
/// let blind = LadderBlind::<NistP256>::random(&mut rand::rng());
/// let _: Point<NistP256> = group::mul_multi_ct::<NistP256, 0>(&[], &[], &blind);
/// ```
///
/// The same call with one term compiles:
///
/// ```
/// use privacy_tokens::group::{self, LadderBlind, NistP256, Point};
/// let blind = LadderBlind::<NistP256>::random(&mut rand::rng());
/// let k = group::random_scalar::<NistP256>(&mut rand::rng());
/// let g = group::mul_generator::<NistP256>(&k);
/// let _: Point<NistP256> = group::mul_multi_ct::<NistP256, 1>(&[g], &[k], &blind);
/// ```
pub fn mul_multi_ct<C: Curve, const N: usize>(
    points: &[Point<C>; N],
    scalars: &[Scalar<C>; N],
    blind: &LadderBlind<C>,
) -> Point<C> {
    const { assert!(N > 0, "mul_multi_ct: N = 0 (an empty sum) is not allowed") };
    ct_multi::mul_multi_ct::<C, N>(points, scalars, blind)
}

/// `M` products `sum_i k_{j,i} P_i` over the same points, constant time in every scalar and
/// point, with the window tables built once, normalised with one field inversion and shared
/// (see `group/ct_multi.rs`). Stack only. Blinded as [`mul_multi_ct`]; `N = 0` does not compile:
///
/// ```compile_fail,E0080
/// use privacy_tokens::group::{self, LadderBlind, NistP256};
/// let blind = LadderBlind::<NistP256>::random(&mut rand::rng());
/// let _ = group::mul_multi_shared_ct::<NistP256, 0, 2>(&[], &[[], []], &blind);
/// ```
///
/// ```compile_fail,E0080
/// use privacy_tokens::group::{self, LadderBlind, NistP256};
/// let blind = LadderBlind::<NistP256>::random(&mut rand::rng());
/// let _ = group::mul_multi_shared_batch_ct::<NistP256, 0, 2>(&[], &[[], []], &blind);
/// ```
pub fn mul_multi_shared_ct<C: Curve, const N: usize, const M: usize>(
    points: &[Point<C>; N],
    scalars: &[[Scalar<C>; N]; M],
    blind: &LadderBlind<C>,
) -> [Point<C>; M] {
    const {
        assert!(
            N > 0,
            "mul_multi_shared_ct: N = 0 (an empty sum) is not allowed"
        )
    };
    ct_multi::mul_multi_shared_ct::<C, N, M>(points, scalars, blind)
}

/// [`mul_multi_shared_ct`] over a batch of point sets with the same scalars, with one field
/// inversion for the whole batch: `out[b][j] = sum_i k_{j,i} P_{b,i}`.
pub fn mul_multi_shared_batch_ct<C: Curve, const N: usize, const M: usize>(
    points: &[[Point<C>; N]],
    scalars: &[[Scalar<C>; N]; M],
    blind: &LadderBlind<C>,
) -> Vec<[Point<C>; M]> {
    const {
        assert!(
            N > 0,
            "mul_multi_shared_batch_ct: N = 0 (an empty sum) is not allowed"
        )
    };
    ct_multi::mul_multi_shared_batch_ct::<C, N, M>(points, scalars, blind)
}

/// `out[i] = k * points[i]` for one secret scalar and a batch of points (an issuer evaluating a
/// batch), constant time in `k` and the points; faster per point than [`mul_affine`] from two
/// points on (one field inversion for all the points' tables, then mixed additions).
/// Allocates two working buffers per call, about 4 KB per point on P-384.
///
/// # Errors
/// [`Error::InvalidLength`] if `out` and `points` differ in length.
pub fn mul_batch_affine<C: Curve>(
    points: &[Affine<C>],
    k: &Scalar<C>,
    out: &mut [Point<C>],
) -> Result<()> {
    if points.len() != out.len() {
        return Err(Error::InvalidLength);
    }
    mul::mul_batch_ct::<C>(points, k, out);
    Ok(())
}

/// `k * P` for an affine `P`, constant time in `k` and `P`.
pub fn mul_affine<C: Curve>(p: &Affine<C>, k: &Scalar<C>) -> Point<C> {
    mul::mul_ct::<C>(&Point::<C>::from(*p), k)
}

/// `k * P` in variable time: only for public `k` and `P`.
pub fn vartime_mul<C: Curve>(p: &Affine<C>, k: &Scalar<C>) -> Point<C> {
    mul::straus_vartime::<C, 1>(&[Point::<C>::from(*p)], &[*k])
}

/// `sum k_i * P_i` for a fixed number of terms, variable time, on the stack.
pub fn vartime_lincomb<C: Curve, const N: usize>(
    points: &[Point<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    mul::straus_vartime::<C, N>(points, scalars)
}

/// `a * G + b * P`, variable time.
pub fn vartime_mul_generator_add<C: Curve>(
    a: &Scalar<C>,
    b: &Scalar<C>,
    p: &Affine<C>,
) -> Point<C> {
    C::generator_table()
        .vartime_mul(a)
        .vartime_add(&mul::straus_vartime::<C, 1>(&[Point::<C>::from(*p)], &[*b]))
}

/// `a * G + b * P` for a `P` with a precomputed table, variable time (public scalars only).
pub fn vartime_mul_generator_and_fixed<C: Curve>(
    a: &Scalar<C>,
    p_table: &FixedBaseTable<C>,
    b: &Scalar<C>,
) -> Point<C> {
    C::generator_table().vartime_mul(a) + p_table.vartime_mul(b)
}

/// Multi-scalar multiplication `sum k_i * P_i` over public data, variable time.
///
/// Uses Straus for short inputs and Pippenger's bucket method for long ones. Allocates a
/// number of buffers that does not depend on the input length.
///
/// # Errors
/// [`Error::Batch`] when the slices differ in length.
pub fn vartime_msm<C: Curve>(points: &[Affine<C>], scalars: &[Scalar<C>]) -> Result<Point<C>> {
    if points.len() != scalars.len() {
        return Err(Error::Batch);
    }
    Ok(mul::msm_vartime::<C>(points, scalars))
}

/// `out[i] = jobs[i].1 * points[jobs[i].0]`: many products of public points by public scalars,
/// variable time (a verifier recomputing sigma-protocol commitments, where each point is
/// multiplied by one or two scalars). Every point's tables are built once and shared by its
/// scalars; a point with several scalars gets a comb (rows `P, 2^64 P, ...`) so that each of
/// them costs 64 doublings, not the scalar's bit length; all tables go to affine with one field
/// inversion, then mixed additions. Public data only. Allocates a number of buffers that does
/// not depend on the input length.
///
/// # Errors
/// [`Error::Batch`] when `jobs` and `out` differ in length or a job names no point.
pub fn vartime_mul_batch<C: Curve>(
    points: &[Affine<C>],
    jobs: &[(usize, Scalar<C>)],
    out: &mut [Point<C>],
) -> Result<()> {
    if jobs.len() != out.len() || jobs.iter().any(|(i, _)| *i >= points.len()) {
        return Err(Error::Batch);
    }
    mul::mul_batch_vartime::<C>(points, jobs, out);
    Ok(())
}

/// The identity element.
pub fn identity<C: Curve>() -> Point<C> {
    Point::<C>::IDENTITY
}

/// The identity element in affine form (a placeholder value; never a valid protocol element).
pub fn affine_identity<C: Curve>() -> Affine<C> {
    Affine::<C>::IDENTITY
}

/// Whether `p` is the identity.
pub fn is_identity<C: Curve>(p: &Point<C>) -> bool {
    bool::from(p.is_identity())
}

/// Constant-time equality of two affine points.
pub fn ct_eq_affine<C: Curve>(a: &Affine<C>, b: &Affine<C>) -> Choice {
    a.ct_eq(b)
}

/// Constant-time selection of two scalars.
pub fn select_scalar<C: Curve>(a: &Scalar<C>, b: &Scalar<C>, choice: Choice) -> Scalar<C> {
    Scalar::<C>::conditional_select(a, b, choice)
}
