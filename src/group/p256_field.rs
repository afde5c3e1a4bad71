//! The P-256 base field, `p = 2^256 - 2^224 + 2^192 + 2^96 - 1`, in Montgomery form
//! (`R = 2^256`, four 64-bit limbs, little-endian), constant time.
//!
//! Same representation as the `p256` crate's field element (Montgomery form, `R = 2^256`, values
//! fully reduced) and the same reasons as [`P384Fe`](super::P384Fe): the operations inline into
//! the point formulas and the constant-time table scans see the limbs. The modulus has a special
//! form that the reduction uses: `-p^-1 mod 2^64 = 1`, so the Montgomery factor of each
//! reduction step is the low word `m` itself, and `m * p = m * 2^256 - m * 2^224 + m * 2^192 +
//! m * 2^96 - m` needs one word product (`m * (2^64 - 2^32 + 1)` for the top limb) instead of
//! four: the low two limbs of `p` are `2^96 - 1`, whose product with `m` added to the running
//! value clears its low word and adds `m * 2^32`, two shifts. The product itself is a 4x4
//! schoolbook (16 word products; the squaring 10), then four such reduction steps. Every
//! operation is branch-free and its memory access pattern does not depend on the values; the
//! masks of the final conditional subtraction go through `core::hint::black_box` as in P-384.
//! Agreement with `crate::group::field::P256CrateFe` is tested on random and edge inputs.
//!
//! The core routines ([`mont_mul`], [`mont_sqr`], [`add_mod`], [`sub_mod`]) are plain `const fn`s
//! on `[u64; 4]`, so that an assembly backend can keep them as its portable fallback and test
//! oracle.

use super::limbs::{adc, mac, sbb};

/// The modulus, little-endian limbs.
pub(super) const P: [u64; 4] = [
    0xffff_ffff_ffff_ffff,
    0x0000_0000_ffff_ffff,
    0,
    0xffff_ffff_0000_0001,
];

/// `R^2 mod p`, to enter the Montgomery domain.
const R2: [u64; 4] = [
    0x0000_0000_0000_0003,
    0xffff_fffb_ffff_ffff,
    0xffff_ffff_ffff_fffe,
    0x0000_0004_ffff_fffd,
];

/// An element of the P-256 base field (Montgomery form, fully reduced).
#[derive(Clone, Copy, Default)]
pub struct P256Fe(pub(crate) [u64; 4]);

/// Reduces `r + hi * 2^256` (known to be below `2p`) into `[0, p)`, constant time.
#[inline(always)]
const fn reduce_once(r: [u64; 4], hi: u64) -> [u64; 4] {
    let (s0, b) = sbb(r[0], P[0], 0);
    let (s1, b) = sbb(r[1], P[1], b);
    let (s2, b) = sbb(r[2], P[2], b);
    let (s3, b) = sbb(r[3], P[3], b);
    let (_, borrow) = sbb(hi, 0, b);
    // borrow = 1: r < p, keep r. The barrier keeps the compiler from turning the masked
    // selection into a branch on the (secret) borrow.
    let keep = core::hint::black_box(0u64.wrapping_sub(borrow));
    [
        (r[0] & keep) | (s0 & !keep),
        (r[1] & keep) | (s1 & !keep),
        (r[2] & keep) | (s2 & !keep),
        (r[3] & keep) | (s3 & !keep),
    ]
}

/// Montgomery reduction of a 512-bit value `t` below `p * R`: `t / R mod p`.
///
/// Step `i` adds `m * p * 2^(64 i)` with `m = t[i]` (since `-p^-1 = 1 mod 2^64`): the low limbs
/// of `p`, `2^96 - 1`, clear `t[i]` and add `m * 2^32` at limb `i + 1`; the top limb
/// `2^64 - 2^32 + 1` is one word product at limb `i + 3`; limb 2 of `p` is zero.
#[inline(always)]
const fn redc(mut t: [u64; 8]) -> [u64; 4] {
    let mut carry = 0u64;
    let mut i = 0;
    while i < 4 {
        let m = t[i];
        let (x, c) = adc(t[i + 1], m << 32, 0);
        t[i + 1] = x;
        let (x, c) = adc(t[i + 2], m >> 32, c);
        t[i + 2] = x;
        let (x, c) = mac(t[i + 3], m, P[3], c);
        t[i + 3] = x;
        let (x, c) = adc(t[i + 4], carry, c);
        t[i + 4] = x;
        carry = c;
        i += 1;
    }
    reduce_once([t[4], t[5], t[6], t[7]], carry)
}

/// `t + x * y[from..] * 2^(64 (i + from))`, with the carry out of the row stored in `t[i + 4]`
/// (zero there before): one row of a schoolbook product.
#[inline(always)]
const fn mac_row(mut t: [u64; 8], i: usize, x: u64, y: &[u64; 4], from: usize) -> [u64; 8] {
    let mut c = 0;
    let mut j = from;
    while j < 4 {
        let (s, cc) = mac(t[i + j], x, y[j], c);
        t[i + j] = s;
        c = cc;
        j += 1;
    }
    t[i + 4] = c;
    t
}

/// Montgomery multiplication `a * b / R mod p` (coarsely integrated operand scanning, each row's
/// reduction step as in [`redc`]).
#[inline(always)]
pub(crate) const fn mont_mul(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let mut t = [0u64; 6];
    let mut i = 0;
    while i < 4 {
        let mut c = 0;
        let mut j = 0;
        while j < 4 {
            let (x, cc) = mac(t[j], a[j], b[i], c);
            t[j] = x;
            c = cc;
            j += 1;
        }
        let (x, cc) = adc(t[4], c, 0);
        t[4] = x;
        t[5] = cc;
        let m = t[0];
        let (x, c) = adc(t[1], m << 32, 0);
        t[0] = x;
        let (x, c) = adc(t[2], m >> 32, c);
        t[1] = x;
        let (x, c) = mac(t[3], m, P[3], c);
        t[2] = x;
        let (x, c) = adc(t[4], c, 0);
        t[3] = x;
        t[4] = t[5] + c;
        i += 1;
    }
    reduce_once([t[0], t[1], t[2], t[3]], t[4])
}

/// Montgomery squaring `a^2 / R mod p`: the 6 cross products once, doubled, plus the 4 squares.
#[inline(always)]
pub(crate) const fn mont_sqr(a: &[u64; 4]) -> [u64; 4] {
    let mut t = [0u64; 8];
    let mut i = 0;
    while i < 3 {
        t = mac_row(t, i, a[i], a, i + 1);
        i += 1;
    }
    redc(super::limbs::double_add_squares(t, a))
}

/// `a + b mod p`.
#[inline(always)]
pub(crate) const fn add_mod(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, c) = adc(a[0], b[0], 0);
    let (r1, c) = adc(a[1], b[1], c);
    let (r2, c) = adc(a[2], b[2], c);
    let (r3, c) = adc(a[3], b[3], c);
    reduce_once([r0, r1, r2, r3], c)
}

/// `a - b mod p`.
#[inline(always)]
pub(crate) const fn sub_mod(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (r0, bb) = sbb(a[0], b[0], 0);
    let (r1, bb) = sbb(a[1], b[1], bb);
    let (r2, bb) = sbb(a[2], b[2], bb);
    let (r3, bb) = sbb(a[3], b[3], bb);
    // Add p back when the subtraction wrapped (barrier as in `reduce_once`).
    let mask = core::hint::black_box(0u64.wrapping_sub(bb));
    let (r0, c) = adc(r0, P[0] & mask, 0);
    let (r1, c) = adc(r1, P[1] & mask, c);
    let (r2, c) = adc(r2, 0, c);
    let (r3, _) = adc(r3, P[3] & mask, c);
    [r0, r1, r2, r3]
}

impl P256Fe {
    /// Zero.
    pub const ZERO: Self = Self([0; 4]);
    /// One (`R mod p` in Montgomery form).
    pub const ONE: Self = Self([
        0x0000_0000_0000_0001,
        0xffff_ffff_0000_0000,
        0xffff_ffff_ffff_ffff,
        0x0000_0000_ffff_fffe,
    ]);

    /// From canonical little-endian limbs, which must be below `p` (compile-time constants).
    pub(crate) const fn from_canonical_limbs(l: [u64; 4]) -> Self {
        Self(mont_mul(&l, &R2))
    }

    /// Canonical little-endian limbs (leaves the Montgomery domain: one reduction).
    pub(crate) const fn to_canonical_limbs(self) -> [u64; 4] {
        let a = self.0;
        redc([a[0], a[1], a[2], a[3], 0, 0, 0, 0])
    }
}

super::limbs::runtime_ops!(
    4,
    p256_mont_mul,
    p256_mont_sqr,
    p256_add,
    p256_sub,
    p256_double,
    p256_madd,
    p256_add_points,
    p256_zaddu
);
super::limbs::field_impls!(P256Fe, 32, P, add, sub, mul, sqr, sub_mod);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::limbs::checks;
    use elliptic_curve::ff::Field;

    #[test]
    fn agrees_with_the_curve_crate() {
        // R mod p and R^-1 as values, 2^224 - 1 (all-ones low limbs) and -2^32.
        let two = crate::group::field::P256CrateFe::from(2u64);
        let r = <crate::group::field::P256CrateFe as Field>::pow_vartime(&two, [256]);
        let r224 = <crate::group::field::P256CrateFe as Field>::pow_vartime(&two, [224]);
        let extra = [
            r,
            r.invert().unwrap(),
            r224 - crate::group::field::P256CrateFe::ONE,
            -crate::group::field::P256CrateFe::from(1u64 << 32),
        ];
        checks::agrees_with_the_curve_crate::<P256Fe>(&extra);
    }

    /// Results next to 0 and `p`, and both outcomes of the final subtraction of the product.
    #[test]
    fn results_next_to_zero_and_p() {
        let mut corrected = [0usize; 2];
        checks::results_next_to_zero_and_p::<P256Fe>(|a, b| {
            corrected[usize::from(final_subtraction(&a.0, &b.0))] += 1;
        });
        assert!(corrected[0] > 0 && corrected[1] > 0, "{corrected:?}");
    }

    /// Whether the Montgomery product of `a` and `b` needs the final subtraction: the reduced
    /// value before it, `(a b + m p) / R`, recomputed with big integers, is at least `p`.
    fn final_subtraction(a: &[u64; 4], b: &[u64; 4]) -> bool {
        use elliptic_curve::bigint::U1024;
        let int = |l: &[u64; 4]| {
            let mut be = [0u8; 128];
            crate::group::limbs::to_be(l, &mut be[96..]);
            U1024::from_be_slice(&be)
        };
        let p = int(&P);
        // Step i adds t_i * p * 2^(64 i) (-p^-1 = 1 mod 2^64), clearing limb i.
        let mut t = int(a).wrapping_mul(&int(b));
        for i in 0..4 {
            let word = t.shr_vartime(64 * i) & U1024::from_u64(u64::MAX);
            t = t.wrapping_add(&word.wrapping_mul(&p).shl_vartime(64 * i));
        }
        let r_mask = U1024::ONE.shl_vartime(256).wrapping_sub(&U1024::ONE);
        assert!((t & r_mask) == U1024::ZERO);
        t.shr_vartime(256) >= p
    }

    #[test]
    fn strict_decoding() {
        checks::strict_decoding::<P256Fe>();
        let mut p_be = [0u8; 32];
        crate::group::limbs::to_be(&P, &mut p_be);
        let p_hex = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";
        assert_eq!(hex::encode(p_be), p_hex);
    }

    #[test]
    fn select_and_constants() {
        checks::select_and_constants::<P256Fe>();
        let a = P256Fe::from_canonical_limbs([5, 0, 0, 0]);
        assert_eq!(a.to_canonical_limbs(), [5, 0, 0, 0]);
        assert_eq!(a, P256Fe::ONE.double().double() + P256Fe::ONE);
        assert_eq!(P256Fe::from_canonical_limbs(R2).to_canonical_limbs(), R2);
        let one_hex = format!("P256Fe(0x{}1)", "0".repeat(63));
        assert_eq!(format!("{:?}", P256Fe::ONE), one_hex);
    }
}
