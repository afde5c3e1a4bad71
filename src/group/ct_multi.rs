//! Constant-time multi-scalar multiplication `sum k_i P_i` for a few terms with shared
//! doublings (secret scalars and points).
//!
//! Signed radix-32 digits for every scalar, a table `P_i, 2P_i, ..., 16P_i` per point read by a
//! full conditional-select scan, and one pass of 5 doublings per digit position for all terms
//! together: for three terms about 40% cheaper than three separate ladders. Exceptional
//! additions (an operand equal to the accumulator) are only reported and OR-ed, as in
//! [`super::mul`]; if one occurred, the result is recomputed term by term with complete
//! additions. For independent uniformly random secret scalars that event has negligible
//! probability, and it is the only thing observable in the running time.

use elliptic_curve::ff::PrimeField;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use super::{Curve, Point, Scalar};

const W: usize = 5;
const ENTRIES: usize = 1 << (W - 1);
const MAX_SCALAR_BYTES: usize = 48;
const MAX_DIGITS: usize = (MAX_SCALAR_BYTES * 8).div_ceil(W) + 1;

/// Signed radix-32 recoding, constant time: digits in `[-16, 16]`, `sum d_j 32^j = k`.
fn signed_digits<C: Curve>(k: &Scalar<C>, out: &mut [i8; MAX_DIGITS]) -> usize {
    let repr = k.to_repr();
    let be = repr.as_slice();
    let mut limbs = [0u64; MAX_SCALAR_BYTES / 8 + 1];
    for (i, byte) in be.iter().rev().enumerate() {
        limbs[i / 8] |= u64::from(*byte) << (8 * (i % 8));
    }
    let bits = be.len() * 8;
    let n = bits.div_ceil(W);
    let mut carry: i32 = 0;
    for (j, d) in out.iter_mut().enumerate().take(n) {
        let pos = j * W;
        let (idx, bit) = (pos / 64, pos % 64);
        let lo = limbs[idx] >> bit;
        let hi = if bit + W > 64 && idx + 1 < limbs.len() {
            limbs[idx + 1] << (64 - bit)
        } else {
            0
        };
        let v = ((lo | hi) & ((1u64 << W) - 1)) as i32 + carry;
        carry = (v + (1 << (W - 1))) >> W;
        *d = (v - (carry << W)) as i8;
    }
    out[n] = carry as i8;
    limbs.zeroize();
    n + 1
}

/// `d * P` for `|d| <= 16` by a scan of the whole table, constant time.
#[inline(always)]
fn ct_lookup<C: Curve>(table: &[Point<C>; ENTRIES], d: i8) -> Point<C> {
    let neg = ((d as u8) >> 7) & 1;
    let mask = 0u8.wrapping_sub(neg);
    let abs = ((d as u8) ^ mask).wrapping_add(neg);
    let mut sel = Point::<C>::IDENTITY;
    for (e, entry) in table.iter().enumerate() {
        sel.conditional_assign(entry, abs.ct_eq(&(e as u8 + 1)));
    }
    sel.y.conditional_assign(&-sel.y, Choice::from(neg));
    sel
}

/// `sum k_i P_i`, constant time in every scalar and point. Stack only.
pub(crate) fn mul_multi_ct<C: Curve, const N: usize>(
    points: &[Point<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut exceptional = Choice::from(0);
    let mut tables = [[Point::<C>::IDENTITY; ENTRIES]; N];
    for (t, p) in tables.iter_mut().zip(points.iter()) {
        t[0] = *p;
        t[1] = p.double();
        for i in 2..ENTRIES {
            let (sum, same) = t[i - 1].add_ct(p);
            t[i] = sum;
            exceptional |= same;
        }
    }
    let mut digits = [[0i8; MAX_DIGITS]; N];
    let mut n = 0;
    for (d, k) in digits.iter_mut().zip(scalars.iter()) {
        n = signed_digits::<C>(k, d);
    }
    let mut acc = Point::<C>::IDENTITY;
    for pos in (0..n).rev() {
        if pos != n - 1 {
            for _ in 0..W {
                acc = acc.double();
            }
        }
        for (t, d) in tables.iter().zip(digits.iter()) {
            let (sum, same) = acc.add_ct(&ct_lookup::<C>(t, d[pos]));
            acc = sum;
            exceptional |= same;
        }
    }
    digits.zeroize();
    if bool::from(exceptional) {
        return fallback::<C, N>(points, scalars);
    }
    acc
}

#[cold]
fn fallback<C: Curve, const N: usize>(
    points: &[Point<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    for (p, k) in points.iter().zip(scalars.iter()) {
        acc = acc.add_complete(&super::mul(p, k));
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::{mul, random_scalar};
    use p384::NistP384 as C;

    #[test]
    fn matches_separate_multiplications() {
        let mut rng = rand::thread_rng();
        let p: [Point<C>; 3] = core::array::from_fn(|_| {
            crate::group::mul_generator::<C>(&random_scalar::<C>(&mut rng))
        });
        let k: [Scalar<C>; 3] = core::array::from_fn(|_| random_scalar::<C>(&mut rng));
        let expect = mul(&p[0], &k[0]) + mul(&p[1], &k[1]) + mul(&p[2], &k[2]);
        assert_eq!(mul_multi_ct::<C, 3>(&p, &k), expect);
        // Zero scalars, identity points, negated scalars, equal points.
        let z = Scalar::<C>::ZERO;
        assert_eq!(
            mul_multi_ct::<C, 2>(&[p[0], p[1]], &[z, k[1]]),
            mul(&p[1], &k[1])
        );
        assert_eq!(
            mul_multi_ct::<C, 2>(&[Point::<C>::IDENTITY, p[1]], &[k[0], k[1]]),
            mul(&p[1], &k[1])
        );
        assert_eq!(
            mul_multi_ct::<C, 2>(&[p[0], p[0]], &[k[0], -k[0]]),
            Point::<C>::IDENTITY
        );
        assert_eq!(
            mul_multi_ct::<C, 2>(&[p[0], p[0]], &[k[0], k[1]]),
            mul(&p[0], &(k[0] + k[1]))
        );
        let one = Scalar::<C>::ONE;
        assert_eq!(
            mul_multi_ct::<C, 2>(&[p[0], p[0]], &[one, one]),
            p[0].double()
        );
    }
}
