//! Fixed-base multiplication for any base point (ARC's `generatorH` and per-key bases).
//!
//! The same layout as [`super::GeneratorTable`]: `table[j][e] = (e + 1) * 32^j * P` in affine
//! form, signed radix-32 digits, one mixed addition per digit and no doubling. Built once
//! (heap-allocated, one field inversion); every multiplication afterwards is on the stack.

use elliptic_curve::ff::PrimeField;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use super::point::batch_normalize;
use super::{Affine, Curve, Point, Scalar};

const W: usize = 5;
const ENTRIES: usize = 1 << (W - 1);
const MAX_SCALAR_BYTES: usize = 48;
const MAX_DIGITS: usize = (MAX_SCALAR_BYTES * 8).div_ceil(W) + 1;

/// Precomputed multiples of a fixed base point `P`: `table[j][e] = (e + 1) * 32^j * P`.
#[derive(Clone)]
pub struct FixedBaseTable<C: Curve> {
    base: Affine<C>,
    table: Vec<[Affine<C>; ENTRIES]>,
}

impl<C: Curve> core::fmt::Debug for FixedBaseTable<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("base", &self.base)
            .field("windows", &self.table.len())
            .finish()
    }
}

/// Signed radix-32 digits of `k`, constant time: digits in `[-16, 15]`, `sum d_j 32^j = k`.
fn signed_digits<C: Curve>(k: &Scalar<C>, out: &mut [i8; MAX_DIGITS]) -> usize {
    let repr = k.to_repr();
    let be = repr.as_slice();
    let mut limbs = [0u64; MAX_SCALAR_BYTES / 8 + 1];
    for (i, byte) in be.iter().rev().enumerate() {
        limbs[i / 8] |= u64::from(*byte) << (8 * (i % 8));
    }
    let bits = be.len() * 8;
    let window = |pos: usize| -> i32 {
        let idx = pos / 64;
        let bit = pos % 64;
        let lo = limbs[idx] >> bit;
        let hi = if bit + W > 64 && idx + 1 < limbs.len() {
            limbs[idx + 1] << (64 - bit)
        } else {
            0
        };
        ((lo | hi) & ((1u64 << W) - 1)) as i32
    };
    let n = bits.div_ceil(W);
    let mut carry: i32 = 0;
    for (j, d) in out.iter_mut().enumerate().take(n) {
        let v = window(j * W) + carry;
        carry = (v + (1 << (W - 1))) >> W;
        *d = (v - (carry << W)) as i8;
    }
    out[n] = carry as i8;
    zeroize::Zeroize::zeroize(&mut limbs);
    n + 1
}

#[inline(always)]
fn digit_sign_abs(d: i8) -> (Choice, u8) {
    let neg = ((d as u8) >> 7) & 1;
    let mask = 0u8.wrapping_sub(neg);
    let abs = ((d as u8) ^ mask).wrapping_add(neg);
    (Choice::from(neg), abs)
}

impl<C: Curve> FixedBaseTable<C> {
    /// Builds the table for `base` (about 50 windows of 16 points; one field inversion).
    pub fn new(base: &Affine<C>) -> Self {
        let windows = (C::SCALAR_LEN * 8).div_ceil(W) + 1;
        let mut proj = Vec::with_capacity(windows * ENTRIES);
        let mut b = Point::<C>::from(*base);
        for _ in 0..windows {
            let mut acc = b;
            for _ in 0..ENTRIES {
                proj.push(acc);
                acc = acc.vartime_add(&b);
            }
            for _ in 0..W {
                b = b.double();
            }
        }
        let mut affine = vec![Affine::<C>::IDENTITY; proj.len()];
        batch_normalize(&proj, &mut affine);
        let table = affine
            .chunks_exact(ENTRIES)
            .map(|c| core::array::from_fn(|i| c[i]))
            .collect();
        Self { base: *base, table }
    }

    /// The base point `P`.
    pub fn base(&self) -> &Affine<C> {
        &self.base
    }

    /// `k * P`, constant time in `k`.
    pub fn mul(&self, k: &Scalar<C>) -> Point<C> {
        let mut digits = [0i8; MAX_DIGITS];
        let n = signed_digits::<C>(k, &mut digits);
        let mut acc = Point::<C>::IDENTITY;
        let mut exceptional = Choice::from(0);
        for (row, &d) in self.table.iter().zip(digits[..n].iter()) {
            let (neg, abs) = digit_sign_abs(d);
            let mut sel = Affine::<C>::IDENTITY;
            for (e, entry) in row.iter().enumerate() {
                sel.conditional_assign(entry, abs.ct_eq(&(e as u8 + 1)));
            }
            sel.y.conditional_assign(&-sel.y, neg);
            let (sum, same) = acc.add_affine_ct(&sel);
            acc = sum;
            exceptional |= same;
        }
        zeroize::Zeroize::zeroize(&mut digits);
        if bool::from(exceptional) {
            // Negligibly rare for random secrets (see `mul.rs`): complete formulas instead.
            return Point::<C>::from_primeorder(&(Point::<C>::from(self.base).to_primeorder() * k));
        }
        acc
    }

    /// `k * P` for a public `k`, variable time.
    pub fn vartime_mul(&self, k: &Scalar<C>) -> Point<C> {
        let mut digits = [0i8; MAX_DIGITS];
        let n = signed_digits::<C>(k, &mut digits);
        let mut acc = Point::<C>::IDENTITY;
        for (row, &d) in self.table.iter().zip(digits[..n].iter()) {
            match d {
                0 => {}
                d if d > 0 => acc = acc.vartime_add_affine(&row[d as usize - 1]),
                d => acc = acc.vartime_sub_affine(&row[(-(d as i16)) as usize - 1]),
            }
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::{mul_generator, random_scalar, to_affine};

    fn check<C: Curve>() {
        let mut rng = rand::thread_rng();
        let p = to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng)));
        let t = FixedBaseTable::<C>::new(&p);
        for _ in 0..8 {
            let k = random_scalar::<C>(&mut rng);
            let want = crate::group::mul_affine(&p, &k);
            assert_eq!(to_affine(&t.mul(&k)), to_affine(&want));
            assert_eq!(to_affine(&t.vartime_mul(&k)), to_affine(&want));
        }
        let zero = Scalar::<C>::ZERO;
        assert!(bool::from(t.mul(&zero).is_identity()));
        let minus_one = -Scalar::<C>::ONE;
        assert_eq!(to_affine(&t.mul(&minus_one)), -p);
    }

    use elliptic_curve::ff::Field;

    #[test]
    fn fixed_base_matches_variable_base() {
        check::<p256::NistP256>();
        check::<p384::NistP384>();
    }
}
