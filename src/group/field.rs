//! The sealed [`FieldOps`] trait over the crate's own base fields ([`P256Fe`], [`P384Fe`]), field
//! inversion by Fermat's little theorem (`a^(p-2)`) and the `sqrt_ratio` exponentiation of
//! hash-to-curve (`a^((p-3)/4)`) with fixed addition chains.
//!
//! The curve crates invert with Bernstein–Yang divsteps, which cost about as much as 700 field
//! multiplications on P-384; the chains below take 383 squarings and 14 multiplications
//! (P-384) or 255 squarings and 12 multiplications (P-256). The exponent is public and fixed, so
//! the running time does not depend on the input. Zero maps to zero.

use core::fmt;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

#[cfg(test)]
use elliptic_curve::ff::{Field, PrimeField};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

use super::p256_field::P256Fe;
use super::p384_field::P384Fe;

/// The base-field operations the point arithmetic needs (sealed: the crate's own [`P256Fe`] and
/// [`P384Fe`]). All constant time.
pub trait FieldOps:
    Copy
    + Default
    + fmt::Debug
    + ConditionallySelectable
    + ConstantTimeEq
    + PartialEq
    + Eq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + for<'a> Mul<&'a Self, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + zeroize::DefaultIsZeroes
    + Send
    + Sync
    + 'static
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The canonical big-endian encoding.
    type Repr: AsRef<[u8]> + AsMut<[u8]> + Default + Copy;
    /// `self^2`.
    fn square(&self) -> Self;
    /// `2 * self`.
    fn double(&self) -> Self;
    /// `self / 2`.
    fn half(&self) -> Self;
    /// `4 * self` (two modular doublings; no point formula of the crate uses it).
    fn times4(&self) -> Self;
    /// `8 * self` (three modular doublings; no point formula of the crate uses it).
    fn times8(&self) -> Self;
    /// `2 (x : y : z)` on the `a = -3` curve over this field by the selected backend's fused
    /// routine, where it has one (the formula of `point::double_formula`); `None` otherwise.
    fn fused_double(x: &Self, y: &Self, z: &Self) -> Option<[Self; 3]>;
    /// `(x : y : z) + (qx, qy)` without exceptional cases by the selected backend's fused
    /// routine, where it has one (the formula of `point::madd_formula`: `X3`, `Y3`, `Z3`, `H`,
    /// `r`); `None` otherwise.
    fn fused_madd(p: [&Self; 3], q: [&Self; 2]) -> Option<[Self; 5]>;
    /// `(x1 : y1 : z1) + (x2 : y2 : z2)` without exceptional cases by the selected backend's
    /// fused routine, where it has one (the formula of `point::add_formula`); `None` otherwise.
    fn fused_add(p: [&Self; 3], q: [&Self; 3]) -> Option<[Self; 5]>;
    /// `(x1 : y1 : z) + (x2 : y2 : z)` without exceptional cases by the selected backend's fused
    /// routine, where it has one (the formula of `point::zaddu_formula`: `X3`, `Y3`, `Z3`, `W1`,
    /// `A1`); `None` otherwise.
    fn fused_zaddu(p: [&Self; 2], q: [&Self; 2], z: &Self) -> Option<[Self; 5]>;
    /// Whether this is zero.
    fn is_zero(&self) -> Choice;
    /// Whether the canonical value is odd.
    fn is_odd(&self) -> Choice;
    /// The canonical big-endian encoding.
    fn to_repr(&self) -> Self::Repr;
    /// Strict decoding (value below the modulus).
    fn from_repr(repr: Self::Repr) -> CtOption<Self>;
    #[doc(hidden)]
    /// `self |= other & mask`, limb by limb, on the internal representation (`mask` is 0 or
    /// all ones). The wide fixed-base tables' scan accumulates the one selected entry into
    /// zero with it: one mask per entry, no per-limb selection, so the scan vectorises.
    fn or_masked(&mut self, other: &Self, mask: u64);
    #[doc(hidden)]
    /// The two coordinates of entry `idx - 1` of `row` (`coords` borrows them from an entry)
    /// by the backend's vector scan, constant time in `idx`; `None` where there is none (the
    /// caller then scans with [`FieldOps::or_masked`]). `idx = 0` gives zeros.
    fn gather_pair<T>(
        row: &[T],
        coords: impl Fn(&T) -> (&Self, &Self),
        idx: u8,
    ) -> Option<(Self, Self)>;
    #[doc(hidden)]
    /// As [`FieldOps::gather_pair`] for three coordinates (Jacobian entries).
    fn gather_triple<T>(row: &[T], coords: impl Fn(&T) -> [&Self; 3], idx: u8)
        -> Option<[Self; 3]>;
}

/// `FieldOps` for one of the crate's own field elements (`to_bytes`, `from_bytes` and the
/// inherent operations).
macro_rules! own_field_ops {
    ($fe:ident, $repr:ty, $n:literal, $min_rows:literal) => {
        impl FieldOps for $fe {
            const ZERO: Self = $fe::ZERO;
            const ONE: Self = $fe::ONE;
            type Repr = $repr;
            #[inline(always)]
            fn square(&self) -> Self {
                $fe::square(self)
            }
            #[inline(always)]
            fn double(&self) -> Self {
                $fe::double(self)
            }
            #[inline(always)]
            fn half(&self) -> Self {
                $fe::half(self)
            }
            #[inline(always)]
            fn times4(&self) -> Self {
                $fe::times4(self)
            }
            #[inline(always)]
            fn times8(&self) -> Self {
                $fe::times8(self)
            }
            #[inline(always)]
            fn fused_double(x: &Self, y: &Self, z: &Self) -> Option<[Self; 3]> {
                $fe::fused_double(x, y, z)
            }
            #[inline(always)]
            fn fused_madd(p: [&Self; 3], q: [&Self; 2]) -> Option<[Self; 5]> {
                $fe::fused_madd(p, q)
            }
            #[inline(always)]
            fn fused_add(p: [&Self; 3], q: [&Self; 3]) -> Option<[Self; 5]> {
                $fe::fused_add(p, q)
            }
            #[inline(always)]
            fn fused_zaddu(p: [&Self; 2], q: [&Self; 2], z: &Self) -> Option<[Self; 5]> {
                $fe::fused_zaddu(p, q, z)
            }
            #[inline(always)]
            fn is_zero(&self) -> Choice {
                $fe::is_zero(self)
            }
            fn is_odd(&self) -> Choice {
                $fe::is_odd(self)
            }
            fn to_repr(&self) -> Self::Repr {
                self.to_bytes().into()
            }
            fn from_repr(repr: Self::Repr) -> CtOption<Self> {
                $fe::from_bytes(&repr.into())
            }
            #[inline(always)]
            fn or_masked(&mut self, other: &Self, mask: u64) {
                for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
                    *a |= b & mask;
                }
            }
            #[inline(always)]
            fn gather_pair<T>(
                row: &[T],
                coords: impl Fn(&T) -> (&Self, &Self),
                idx: u8,
            ) -> Option<(Self, Self)> {
                #[cfg(target_arch = "x86_64")]
                if let (true, Some(avx2)) = (row.len() >= $min_rows, super::adx::avx2()) {
                    let [x, y] = avx2.gather::<T, $n, 2>(
                        row,
                        |t| {
                            let (x, y) = coords(t);
                            [&x.0, &y.0]
                        },
                        idx,
                    );
                    return Some(($fe(x), $fe(y)));
                }
                let _ = (row, coords, idx);
                None
            }
            #[inline(always)]
            fn gather_triple<T>(
                row: &[T],
                coords: impl Fn(&T) -> [&Self; 3],
                idx: u8,
            ) -> Option<[Self; 3]> {
                #[cfg(target_arch = "x86_64")]
                if let (true, Some(avx2)) = (row.len() >= $min_rows, super::adx::avx2()) {
                    let xyz = avx2.gather::<T, $n, 3>(row, |t| coords(t).map(|c| &c.0), idx);
                    return Some(xyz.map($fe));
                }
                let _ = (row, coords, idx);
                None
            }
        }
    };
}

// The vector scan from 17 entries on P-256 (a 16-entry scan of 8 or 12 limbs is as fast with
// `cmov` and stays in registers: P-256 `mul` 64.4 us without it, 68.6 us with it), from the
// first on P-384 (`mul` 193 -> 185 us); fastest of 100x5 on this machine.
own_field_ops!(P256Fe, p256::FieldBytes, 4, 17);
own_field_ops!(P384Fe, p384::FieldBytes, 6, 1);

/// A uniformly random element of a curve crate's field (or scalar field): rejection sampling of
/// its canonical encoding, on a rand_core 0.10 RNG (the crates' own `random` takes rand_core 0.6).
#[cfg(test)]
pub(crate) fn random_crate_fe<F: PrimeField>(rng: &mut (impl rand_core::Rng + ?Sized)) -> F {
    let mut repr = F::Repr::default();
    loop {
        rng.fill_bytes(repr.as_mut());
        if let Some(x) = Option::from(F::from_repr(repr)) {
            return x;
        }
    }
}

/// The curve crates' base-field element types (reachable in 0.14 only through
/// `FieldArithmetic`), the reference of the tests.
#[cfg(test)]
pub(crate) type P256CrateFe =
    <p256::NistP256 as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;
/// As [`P256CrateFe`], for P-384.
#[cfg(test)]
pub(crate) type P384CrateFe =
    <p384::NistP384 as elliptic_curve::hazmat::FieldArithmetic>::FieldElement;

/// Test helpers: conversions to and from the curve crate's field element.
#[cfg(test)]
pub(crate) trait TestField: FieldOps {
    /// The curve crate's field element.
    type Crate: PrimeField<Repr = Self::Repr> + primeorder::osswu::OsswuMap;
    /// Ours from theirs.
    fn from_crate(x: &Self::Crate) -> Self {
        Option::from(Self::from_repr(x.to_repr())).unwrap_or(Self::ZERO)
    }
    /// Theirs from ours.
    fn to_crate(&self) -> Self::Crate {
        Option::from(Self::Crate::from_repr(self.to_repr())).unwrap_or(Self::Crate::ZERO)
    }
    /// A uniformly random element.
    fn random_fe(rng: &mut (impl rand_core::Rng + ?Sized)) -> Self {
        Self::from_crate(&random_crate_fe::<Self::Crate>(rng))
    }
    /// A small integer.
    fn from_small(x: u64) -> Self {
        Self::from_crate(&Self::Crate::from(x))
    }
    /// The inverse (zero for zero).
    fn invert_fe(&self) -> Self {
        Self::from_crate(&Option::from(self.to_crate().invert()).unwrap_or(Self::Crate::ZERO))
    }
}

#[cfg(test)]
impl TestField for P256Fe {
    type Crate = crate::group::field::P256CrateFe;
}

#[cfg(test)]
impl TestField for P384Fe {
    type Crate = crate::group::field::P384CrateFe;
}

/// `a^(2^n)`.
#[inline(always)]
fn sqn<F: FieldOps>(a: F, n: usize) -> F {
    let mut r = a;
    for _ in 0..n {
        r = r.square();
    }
    r
}

/// The common prefix of both chains: `(x1, x2, x3, x15, x30)` with `xk = a^(2^k - 1)`.
#[inline(always)]
fn x30<F: FieldOps>(x1: F) -> (F, F, F, F) {
    let x2 = sqn(x1, 1) * x1;
    let x3 = sqn(x2, 1) * x1;
    let x6 = sqn(x3, 3) * x3;
    let x12 = sqn(x6, 6) * x6;
    let x15 = sqn(x12, 3) * x3;
    let x30 = sqn(x15, 15) * x15;
    (x2, x3, x15, x30)
}

/// `a^((p-3)/4)` for P-256, the exponent of `sqrt_ratio` (RFC 9380 Appendix F.2.1.2).
/// `(p-3)/4 = (p-2) >> 2` = 1^32 0^31 1 0^96 1^94 (binary runs from the top).
pub(crate) fn pow_p256_c1(a: &P256Fe) -> P256Fe {
    let x1 = *a;
    let (x2, _x3, _x15, x30) = x30(x1);
    let x32 = sqn(x30, 2) * x2;
    let x64 = sqn(x32, 32) * x32;
    let x94 = sqn(x64, 30) * x30;
    let mut t = sqn(x32, 32) * x1;
    t = sqn(t, 96);
    sqn(t, 94) * x94
}

/// `a^(p-2)` for P-256, `p - 2` = 1^32 0^31 1 0^96 1^94 0 1 (binary runs from the top), that is
/// `a^((p-3)/4)` squared twice times `a`.
pub(crate) fn invert_p256(a: &P256Fe) -> P256Fe {
    sqn(pow_p256_c1(a), 2) * a
}

/// `a^((p-3)/4)` for P-384, the exponent of `sqrt_ratio` (RFC 9380 Appendix F.2.1.2).
/// `(p-3)/4 = (p-2) >> 2` = 1^255 0 1^32 0^64 1^30 (binary runs from the top).
pub(crate) fn pow_p384_c1(a: &P384Fe) -> P384Fe {
    let x1 = *a;
    let (x2, _x3, x15, x30) = x30(x1);
    let x32 = sqn(x30, 2) * x2;
    let x60 = sqn(x30, 30) * x30;
    let x120 = sqn(x60, 60) * x60;
    let x240 = sqn(x120, 120) * x120;
    let x255 = sqn(x240, 15) * x15;
    let t = sqn(x255, 33) * x32;
    sqn(t, 94) * x30
}

/// `a^(p-2)` for P-384, `p - 2` = 1^255 0 1^32 0^64 1^30 0 1 (binary runs from the top), that
/// is `a^((p-3)/4)` squared twice times `a`.
pub(crate) fn invert_p384(a: &P384Fe) -> P384Fe {
    sqn(pow_p384_c1(a), 2) * a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_match_the_curve_crates() {
        let mut rng = rand::rng();
        assert_eq!(invert_p256(&P256Fe::ZERO), P256Fe::ZERO);
        assert_eq!(invert_p384(&P384Fe::ZERO), P384Fe::ZERO);
        for _ in 0..50 {
            let a =
                crate::group::field::random_crate_fe::<crate::group::field::P256CrateFe>(&mut rng);
            let oa = P256Fe::from_crate(&a);
            assert_eq!(invert_p256(&oa).to_crate(), a.invert().unwrap());
            let b =
                crate::group::field::random_crate_fe::<crate::group::field::P384CrateFe>(&mut rng);
            let ob = P384Fe::from_crate(&b);
            assert_eq!(invert_p384(&ob).to_crate(), b.invert().unwrap());
        }
        for _ in 0..50 {
            use primeorder::osswu::OsswuMap;
            let a =
                crate::group::field::random_crate_fe::<crate::group::field::P256CrateFe>(&mut rng);
            let c1 = <crate::group::field::P256CrateFe as OsswuMap>::PARAMS.c1;
            assert_eq!(
                pow_p256_c1(&P256Fe::from_crate(&a)).to_crate(),
                Field::pow_vartime(&a, c1)
            );
            let b =
                crate::group::field::random_crate_fe::<crate::group::field::P384CrateFe>(&mut rng);
            let c1 = <crate::group::field::P384CrateFe as OsswuMap>::PARAMS.c1;
            assert_eq!(
                pow_p384_c1(&P384Fe::from_crate(&b)).to_crate(),
                Field::pow_vartime(&b, c1)
            );
        }
        for a in [
            crate::group::field::P256CrateFe::ONE,
            -crate::group::field::P256CrateFe::ONE,
        ] {
            assert_eq!(
                invert_p256(&P256Fe::from_crate(&a)).to_crate(),
                a.invert().unwrap()
            );
        }
        for a in [
            crate::group::field::P384CrateFe::ONE,
            -crate::group::field::P384CrateFe::ONE,
        ] {
            assert_eq!(
                invert_p384(&P384Fe::from_crate(&a)).to_crate(),
                a.invert().unwrap()
            );
        }
    }
}
