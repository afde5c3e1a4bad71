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
//! (const since Rust 1.86), without which the compiler emitted a branch on the secret borrow. Agreement with `crate::group::field::P384CrateFe` is tested on random and edge inputs.

use super::limbs::{adc, mac, sbb};

/// The modulus, little-endian limbs.
pub(super) const P: [u64; 6] = [
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
    redc(super::limbs::double_add_squares(t, a))
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
}

super::limbs::runtime_ops!(
    6,
    p384_mont_mul,
    p384_mont_sqr,
    p384_add,
    p384_sub,
    p384_double,
    p384_madd,
    p384_add_points,
    p384_zaddu
);
super::limbs::field_impls!(P384Fe, 48, P, add, sub, mul, sqr, sub_mod);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::limbs::checks;

    #[test]
    fn agrees_with_the_curve_crate() {
        checks::agrees_with_the_curve_crate::<P384Fe>(&[]);
    }

    /// Results next to 0 and `p`, and the outcomes of the final subtraction of the product:
    /// none (below `p`), from below `2^384` (`p384_final`'s no-borrow path at words 3..5, no top
    /// word) and with a top word.
    #[test]
    fn results_next_to_zero_and_p() {
        let mut outcomes = [0usize; 3];
        checks::results_next_to_zero_and_p::<P384Fe>(|a, b| {
            outcomes[final_subtraction(&a.0, &b.0)] += 1;
        });
        assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
    }

    /// How the Montgomery product of `a` and `b` ends: the reduced value before the final
    /// subtraction, `(a b + m p) / R`, recomputed with big integers, is below `p` (0), in
    /// `[p, 2^384)` (1) or at least `2^384` (2).
    fn final_subtraction(a: &[u64; 6], b: &[u64; 6]) -> usize {
        use elliptic_curve::bigint::U1024;
        let int = |l: &[u64; 6]| {
            let mut be = [0u8; 128];
            crate::group::limbs::to_be(l, &mut be[80..]);
            U1024::from_be_slice(&be)
        };
        let p = int(&P);
        // Step i adds m * p * 2^(64 i), m = t_i (2^32 + 1) mod 2^64, clearing limb i.
        let mut t = int(a).wrapping_mul(&int(b));
        for i in 0..6 {
            let word = t.shr_vartime(64 * i) & U1024::from_u64(u64::MAX);
            let m = word.wrapping_mul(&U1024::from_u64(P_INV)) & U1024::from_u64(u64::MAX);
            t = t.wrapping_add(&m.wrapping_mul(&p).shl_vartime(64 * i));
        }
        let r_mask = U1024::ONE.shl_vartime(384).wrapping_sub(&U1024::ONE);
        assert!((t & r_mask) == U1024::ZERO);
        let u = t.shr_vartime(384);
        if u < p {
            0
        } else if u < U1024::ONE.shl_vartime(384) {
            1
        } else {
            2
        }
    }

    #[test]
    fn strict_decoding() {
        checks::strict_decoding::<P384Fe>();
    }

    #[test]
    fn select_and_constants() {
        checks::select_and_constants::<P384Fe>();
        let a = P384Fe::from_canonical_limbs([5, 0, 0, 0, 0, 0]);
        assert_eq!(a.to_canonical_limbs(), [5, 0, 0, 0, 0, 0]);
        assert_eq!(a, P384Fe::ONE.double().double() + P384Fe::ONE);
    }
}
