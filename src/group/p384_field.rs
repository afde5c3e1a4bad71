//! The P-384 base field, `p = 2^384 - 2^128 - 2^96 + 2^32 - 1`, in Montgomery form
//! (`R = 2^384`, six 64-bit limbs, little-endian), constant time.
//!
//! The `p384` crate's field element (fiat-crypto) is correct but sits behind wrappers that the
//! compiler does not inline into our point formulas: every addition and conditional select was
//! a call, and table scans copied whole points through `memcpy` (about 15% of a scalar
//! multiplication). This type keeps the same representation (Montgomery form, `R = 2^384`, values
//! fully reduced), uses coarsely integrated operand scanning for the product, a dedicated
//! squaring (21 word products instead of 36), and exposes its limbs to the constant-time table
//! scans. Every operation is branch-free and its memory access pattern does not depend on the
//! values; the masks of the final conditional subtraction go through `core::hint::black_box`
//! (const since Rust 1.86), without which the compiler emitted a branch on the secret borrow. Agreement with `p384::FieldElement` is tested on random and edge inputs.

use core::fmt;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

/// The modulus, little-endian limbs.
const P: [u64; 6] = [
    0x0000_0000_ffff_ffff,
    0xffff_ffff_0000_0000,
    0xffff_ffff_ffff_fffe,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_ffff_ffff,
];

/// `-p^-1 mod 2^64`.
const P_INV: u64 = 0x0000_0001_0000_0001;

/// `R^2 mod p`, to enter the Montgomery domain.
const R2: [u64; 6] = [
    0xffff_fffe_0000_0001,
    0x0000_0002_0000_0000,
    0xffff_fffe_0000_0000,
    0x0000_0002_0000_0000,
    0x0000_0000_0000_0001,
    0,
];

/// An element of the P-384 base field (Montgomery form, fully reduced).
#[derive(Clone, Copy, Default)]
pub struct P384Fe(pub(crate) [u64; 6]);

#[inline(always)]
const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (acc as u128) + (a as u128) * (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

#[inline(always)]
const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128) + (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// `a - b - borrow` where `borrow` is 0 or 1; returns the difference and the new borrow (0/1).
#[inline(always)]
const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub((b as u128) + (borrow as u128));
    (t as u64, ((t >> 64) as u64) & 1)
}

/// Reduces `r + hi * 2^384` (known to be below `2p`) into `[0, p)`, constant time.
#[inline(always)]
const fn reduce_once(r: [u64; 6], hi: u64) -> [u64; 6] {
    let mut s = [0u64; 6];
    let mut borrow = 0;
    let mut i = 0;
    while i < 6 {
        let (d, b) = sbb(r[i], P[i], borrow);
        s[i] = d;
        borrow = b;
        i += 1;
    }
    let (_, borrow) = sbb(hi, 0, borrow);
    // borrow = 1: r < p, keep r. The barrier keeps the compiler from turning the masked
    // selection below into a branch on the (secret) borrow, which rustc 1.95 did without it.
    let keep = core::hint::black_box(0u64.wrapping_sub(borrow));
    let mut out = [0u64; 6];
    let mut i = 0;
    while i < 6 {
        out[i] = (r[i] & keep) | (s[i] & !keep);
        i += 1;
    }
    out
}

/// Montgomery multiplication `a * b / R mod p` (coarsely integrated operand scanning).
#[inline]
pub(super) const fn mont_mul(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    let mut t = [0u64; 8];
    let mut i = 0;
    while i < 6 {
        let mut c = 0;
        let mut j = 0;
        while j < 6 {
            let (x, cc) = mac(t[j], a[j], b[i], c);
            t[j] = x;
            c = cc;
            j += 1;
        }
        let (x, cc) = adc(t[6], c, 0);
        t[6] = x;
        t[7] = cc;
        let m = t[0].wrapping_mul(P_INV);
        let (_, mut c) = mac(t[0], m, P[0], 0);
        let mut j = 1;
        while j < 6 {
            let (x, cc) = mac(t[j], m, P[j], c);
            t[j - 1] = x;
            c = cc;
            j += 1;
        }
        let (x, cc) = adc(t[6], c, 0);
        t[5] = x;
        t[6] = t[7] + cc;
        i += 1;
    }
    reduce_once([t[0], t[1], t[2], t[3], t[4], t[5]], t[6])
}

/// Montgomery reduction of a 768-bit product `t` (below `p * R`): `t / R mod p`.
#[inline(always)]
const fn redc(mut t: [u64; 12]) -> [u64; 6] {
    let mut carry = 0u64;
    let mut i = 0;
    while i < 6 {
        let m = t[i].wrapping_mul(P_INV);
        let (_, mut c) = mac(t[i], m, P[0], 0);
        let mut j = 1;
        while j < 6 {
            let (x, cc) = mac(t[i + j], m, P[j], c);
            t[i + j] = x;
            c = cc;
            j += 1;
        }
        let (x, cc) = adc(t[i + 6], c, carry);
        t[i + 6] = x;
        carry = cc;
        i += 1;
    }
    reduce_once([t[6], t[7], t[8], t[9], t[10], t[11]], carry)
}

/// Montgomery squaring `a^2 / R mod p`: the 15 cross products once, doubled, plus the 6 squares.
#[inline(always)]
pub(super) const fn mont_sqr(a: &[u64; 6]) -> [u64; 6] {
    let mut t = [0u64; 12];
    let mut i = 0;
    while i < 5 {
        let mut c = 0;
        let mut j = i + 1;
        while j < 6 {
            let (x, cc) = mac(t[i + j], a[i], a[j], c);
            t[i + j] = x;
            c = cc;
            j += 1;
        }
        t[i + 6] = c;
        i += 1;
    }
    let mut top = 0u64;
    let mut i = 1;
    while i < 12 {
        let next = t[i] >> 63;
        t[i] = (t[i] << 1) | top;
        top = next;
        i += 1;
    }
    let mut c = 0;
    let mut i = 0;
    while i < 6 {
        let (x, cc) = mac(t[2 * i], a[i], a[i], c);
        t[2 * i] = x;
        let (x, cc2) = adc(t[2 * i + 1], cc, 0);
        t[2 * i + 1] = x;
        c = cc2;
        i += 1;
    }
    redc(t)
}

#[inline(always)]
pub(super) const fn add_mod(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    let mut r = [0u64; 6];
    let mut carry = 0;
    let mut i = 0;
    while i < 6 {
        let (x, c) = adc(a[i], b[i], carry);
        r[i] = x;
        carry = c;
        i += 1;
    }
    reduce_once(r, carry)
}

#[inline(always)]
pub(super) const fn sub_mod(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    let mut r = [0u64; 6];
    let mut borrow = 0;
    let mut i = 0;
    while i < 6 {
        let (x, bb) = sbb(a[i], b[i], borrow);
        r[i] = x;
        borrow = bb;
        i += 1;
    }
    // Add p back when the subtraction wrapped (barrier as in `reduce_once`).
    let mask = core::hint::black_box(0u64.wrapping_sub(borrow));
    let mut carry = 0;
    let mut i = 0;
    while i < 6 {
        let (x, c) = adc(r[i], P[i] & mask, carry);
        r[i] = x;
        carry = c;
        i += 1;
    }
    r
}

/// The run-time product: the x86-64 backend where the CPU has it (chosen once per process by
/// [`super::adx::get`]), the portable [`mont_mul`] otherwise.
#[inline(always)]
fn mul(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = super::adx::get() {
        return adx.p384_mont_mul(a, b);
    }
    portable_mul(a, b)
}

/// The run-time square (see [`mul`]).
#[inline(always)]
fn sqr(a: &[u64; 6]) -> [u64; 6] {
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = super::adx::get() {
        return adx.p384_mont_sqr(a);
    }
    portable_sqr(a)
}

/// The run-time sum (see [`mul`]).
#[inline(always)]
fn add(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = super::adx::get() {
        return adx.p384_add(a, b);
    }
    add_mod(a, b)
}

/// The run-time difference (see [`mul`]).
#[inline(always)]
fn sub(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = super::adx::get() {
        return adx.p384_sub(a, b);
    }
    sub_mod(a, b)
}

/// The portable product out of line, so that each call site inlines only the selected routine.
#[inline(never)]
fn portable_mul(a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
    mont_mul(a, b)
}

/// The portable square out of line (see [`portable_mul`]).
#[inline(never)]
fn portable_sqr(a: &[u64; 6]) -> [u64; 6] {
    mont_sqr(a)
}

/// The portable routines, the oracle of the backend tests.
#[cfg(test)]
pub(super) mod portable {
    pub(in crate::group) use super::{add_mod, mont_mul, mont_sqr, sub_mod};

    /// Whether little-endian limbs are below `p`.
    pub(in crate::group) fn below_p(v: &[u64; 6]) -> bool {
        let mut borrow = 0;
        for (x, p) in v.iter().zip(super::P.iter()) {
            borrow = super::sbb(*x, *p, borrow).1;
        }
        borrow == 1
    }
}

impl P384Fe {
    /// Zero.
    pub const ZERO: Self = Self([0; 6]);
    /// One (`R mod p` in Montgomery form).
    pub const ONE: Self = Self([
        0xffff_ffff_0000_0001,
        0x0000_0000_ffff_ffff,
        0x0000_0000_0000_0001,
        0,
        0,
        0,
    ]);

    /// From canonical little-endian limbs, which must be below `p` (compile-time constants).
    pub(crate) const fn from_canonical_limbs(l: [u64; 6]) -> Self {
        Self(mont_mul(&l, &R2))
    }

    /// Canonical little-endian limbs (leaves the Montgomery domain).
    pub(crate) const fn to_canonical_limbs(self) -> [u64; 6] {
        mont_mul(&self.0, &[1, 0, 0, 0, 0, 0])
    }

    /// Strict decoding of 48 big-endian bytes; `None` unless the value is below `p`.
    pub fn from_bytes(bytes: &[u8; 48]) -> CtOption<Self> {
        let mut l = [0u64; 6];
        for (i, limb) in l.iter_mut().enumerate() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[48 - 8 * (i + 1)..48 - 8 * i]);
            *limb = u64::from_be_bytes(w);
        }
        // Canonical iff l - p borrows.
        let mut borrow = 0;
        for (x, p) in l.iter().zip(P.iter()) {
            borrow = sbb(*x, *p, borrow).1;
        }
        CtOption::new(Self::from_canonical_limbs(l), Choice::from(borrow as u8))
    }

    /// The canonical 48-byte big-endian encoding.
    pub fn to_bytes(&self) -> [u8; 48] {
        let l = self.to_canonical_limbs();
        let mut out = [0u8; 48];
        for (i, limb) in l.iter().enumerate() {
            out[48 - 8 * (i + 1)..48 - 8 * i].copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    /// `self^2`.
    #[inline(always)]
    pub fn square(&self) -> Self {
        Self(sqr(&self.0))
    }

    /// `2 * self`.
    #[inline(always)]
    pub fn double(&self) -> Self {
        Self(add(&self.0, &self.0))
    }

    /// `-self` in a `const` context.
    #[inline(always)]
    pub const fn negate(&self) -> Self {
        Self(sub_mod(&[0; 6], &self.0))
    }

    /// Whether this is zero.
    #[inline(always)]
    pub fn is_zero(&self) -> Choice {
        let acc = self.0.iter().fold(0u64, |acc, l| acc | l);
        acc.ct_eq(&0)
    }

    /// Whether the canonical value is odd.
    pub fn is_odd(&self) -> Choice {
        Choice::from((self.to_canonical_limbs()[0] & 1) as u8)
    }
}

impl fmt::Debug for P384Fe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P384Fe(0x")?;
        for b in self.to_bytes() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl ConditionallySelectable for P384Fe {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mask = core::hint::black_box(0u64.wrapping_sub(u64::from(choice.unwrap_u8())));
        let mut out = [0u64; 6];
        for ((o, x), y) in out.iter_mut().zip(a.0.iter()).zip(b.0.iter()) {
            *o = x ^ (mask & (x ^ y));
        }
        Self(out)
    }

    #[inline(always)]
    fn conditional_assign(&mut self, other: &Self, choice: Choice) {
        let mask = core::hint::black_box(0u64.wrapping_sub(u64::from(choice.unwrap_u8())));
        for (x, y) in self.0.iter_mut().zip(other.0.iter()) {
            *x ^= mask & (*x ^ y);
        }
    }
}

impl ConstantTimeEq for P384Fe {
    #[inline]
    fn ct_eq(&self, other: &Self) -> Choice {
        let acc = self
            .0
            .iter()
            .zip(other.0.iter())
            .fold(0u64, |acc, (a, b)| acc | (a ^ b));
        acc.ct_eq(&0)
    }
}

impl PartialEq for P384Fe {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for P384Fe {}

impl zeroize::DefaultIsZeroes for P384Fe {}

macro_rules! binop {
    ($tr:ident, $f:ident, $assign_tr:ident, $assign_f:ident, $op:expr) => {
        impl $tr for P384Fe {
            type Output = P384Fe;
            #[inline(always)]
            fn $f(self, rhs: P384Fe) -> P384Fe {
                #[allow(clippy::redundant_closure_call)]
                P384Fe(($op)(&self.0, &rhs.0))
            }
        }
        impl $tr<&P384Fe> for P384Fe {
            type Output = P384Fe;
            #[inline(always)]
            fn $f(self, rhs: &P384Fe) -> P384Fe {
                #[allow(clippy::redundant_closure_call)]
                P384Fe(($op)(&self.0, &rhs.0))
            }
        }
        impl $tr<&P384Fe> for &P384Fe {
            type Output = P384Fe;
            #[inline(always)]
            fn $f(self, rhs: &P384Fe) -> P384Fe {
                #[allow(clippy::redundant_closure_call)]
                P384Fe(($op)(&self.0, &rhs.0))
            }
        }
        impl $assign_tr for P384Fe {
            #[inline(always)]
            fn $assign_f(&mut self, rhs: P384Fe) {
                #[allow(clippy::redundant_closure_call)]
                {
                    self.0 = ($op)(&self.0, &rhs.0);
                }
            }
        }
        impl $assign_tr<&P384Fe> for P384Fe {
            #[inline(always)]
            fn $assign_f(&mut self, rhs: &P384Fe) {
                #[allow(clippy::redundant_closure_call)]
                {
                    self.0 = ($op)(&self.0, &rhs.0);
                }
            }
        }
    };
}

binop!(Add, add, AddAssign, add_assign, add);
binop!(Sub, sub, SubAssign, sub_assign, sub);
binop!(Mul, mul, MulAssign, mul_assign, mul);

impl Neg for P384Fe {
    type Output = P384Fe;
    #[inline(always)]
    fn neg(self) -> P384Fe {
        P384Fe(sub(&[0; 6], &self.0))
    }
}

impl Neg for &P384Fe {
    type Output = P384Fe;
    #[inline(always)]
    fn neg(self) -> P384Fe {
        P384Fe(sub(&[0; 6], &self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use elliptic_curve::ff::{Field, PrimeField};

    fn ours(x: &p384::FieldElement) -> P384Fe {
        P384Fe::from_bytes(&x.to_repr().into()).unwrap()
    }

    fn theirs(x: &P384Fe) -> p384::FieldElement {
        p384::FieldElement::from_repr(x.to_bytes().into()).unwrap()
    }

    #[test]
    fn agrees_with_the_curve_crate() {
        let mut rng = rand::thread_rng();
        let one = p384::FieldElement::ONE;
        let mut inputs = vec![
            p384::FieldElement::ZERO,
            one,
            -one,
            -one.double(),
            one.double(),
            p384::FieldElement::from_u64(u64::MAX),
        ];
        inputs.extend((0..300).map(|_| p384::FieldElement::random(&mut rng)));
        assert_eq!(ours(&one), P384Fe::ONE);
        assert_eq!(ours(&p384::FieldElement::ZERO), P384Fe::ZERO);
        for a in &inputs {
            let oa = ours(a);
            assert_eq!(theirs(&oa), *a);
            assert_eq!(theirs(&oa.square()), a.square());
            assert_eq!(theirs(&oa.double()), a.double());
            assert_eq!(theirs(&-oa), -*a);
            assert_eq!(bool::from(oa.is_odd()), bool::from(a.is_odd()));
            assert_eq!(bool::from(oa.is_zero()), bool::from(a.is_zero()));
            for b in inputs.iter().take(20) {
                let ob = ours(b);
                assert_eq!(theirs(&(oa * ob)), *a * b);
                assert_eq!(theirs(&(oa + ob)), *a + b);
                assert_eq!(theirs(&(oa - ob)), *a - b);
                assert_eq!(bool::from(oa.ct_eq(&ob)), a == b);
            }
        }
    }

    /// Products and sums that land on small values and on `p - k`: their unreduced form is
    /// `t` or `t + p`, so about half of them go through the final subtraction, many with no
    /// carry out of the top limb (rare for random inputs).
    #[test]
    fn results_next_to_zero_and_p() {
        let mut rng = rand::thread_rng();
        let one = p384::FieldElement::ONE;
        let targets: Vec<p384::FieldElement> = (0..20u64)
            .map(p384::FieldElement::from_u64)
            .chain((1..20u64).map(|k| -p384::FieldElement::from_u64(k)))
            .chain([one.double().invert().unwrap()])
            .collect();
        for _ in 0..50 {
            let a = p384::FieldElement::random(&mut rng);
            let a_inv = a.invert().unwrap();
            for t in &targets {
                let b = *t * a_inv;
                let (oa, ob, ot) = (ours(&a), ours(&b), ours(t));
                assert_eq!(oa * ob, ot);
                assert_eq!(theirs(&(oa * ob)), a * b);
                let c = *t - a;
                assert_eq!(oa + ours(&c), ot);
                assert_eq!(ot - ours(&c), oa);
            }
        }
        for t in &targets {
            // Squares landing on t: only where t is a square.
            if let Some(r) = Option::<p384::FieldElement>::from(t.sqrt()) {
                assert_eq!(ours(&r).square(), ours(t));
                assert_eq!(ours(&-r).square(), ours(t));
            }
        }
    }

    #[test]
    fn strict_decoding() {
        // p itself and all-ones are rejected; p - 1 is accepted.
        let mut p_be = [0u8; 48];
        for (i, limb) in P.iter().enumerate() {
            p_be[48 - 8 * (i + 1)..48 - 8 * i].copy_from_slice(&limb.to_be_bytes());
        }
        assert!(bool::from(P384Fe::from_bytes(&p_be).is_none()));
        assert!(bool::from(P384Fe::from_bytes(&[0xff; 48]).is_none()));
        let mut pm1 = p_be;
        pm1[47] -= 1;
        assert_eq!(P384Fe::from_bytes(&pm1).unwrap(), -P384Fe::ONE);
        assert_eq!((-P384Fe::ONE).to_bytes(), pm1);
    }

    #[test]
    fn select_and_constants() {
        let a = P384Fe::from_canonical_limbs([5, 0, 0, 0, 0, 0]);
        let b = P384Fe::ONE;
        assert_eq!(P384Fe::conditional_select(&a, &b, Choice::from(0)), a);
        assert_eq!(P384Fe::conditional_select(&a, &b, Choice::from(1)), b);
        let mut c = a;
        c.conditional_assign(&b, Choice::from(1));
        assert_eq!(c, b);
        assert_eq!(a.to_canonical_limbs(), [5, 0, 0, 0, 0, 0]);
        assert_eq!(b + b + b + b + b, a);
    }
}
