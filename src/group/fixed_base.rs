//! Fixed-base multiplication by precomputed tables for points other than the generator (a
//! protocol's second generator, an issuer's public keys): `table[j][e] = (e + 1) * 32^j * P` in
//! affine form, signed radix-32 digits, no doublings.
//!
//! A table costs about 1250 additions and one field inversion to build and about 130 KB
//! (P-384); a multiplication is then ~78 mixed additions, a quarter of a variable-base
//! ladder. The constant-time path selects every entry with `subtle` and, as the generator
//! table, only reports an exceptional addition (accumulator equal to the selected entry),
//! falling back to the complete ladder if one occurred (negligible probability for uniformly
//! random secret scalars).

use subtle::Choice;
use zeroize::Zeroize;

use super::point::batch_normalize;
use super::window::{ct_lookup, signed_digits, vartime_add_entry, Entry, ENTRIES, MAX_DIGITS, W};
use super::{Affine, Curve, Point, Scalar};

/// Precomputed multiples of a fixed point `P`.
#[derive(Clone)]
pub struct FixedBaseTable<C: Curve> {
    base: Affine<C>,
    table: Vec<[Affine<C>; ENTRIES]>,
}

impl<C: Curve> core::fmt::Debug for FixedBaseTable<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<C: Curve> FixedBaseTable<C> {
    /// Builds the table of `p` (one field inversion, not counted by the inversion counter:
    /// tables are built once per key, not per operation).
    pub fn new(p: &Affine<C>) -> Self {
        let windows = (C::SCALAR_LEN * 8).div_ceil(W) + 1;
        let mut proj = Vec::with_capacity(windows * ENTRIES);
        let mut base = Point::<C>::from(*p);
        for _ in 0..windows {
            let mut acc = base;
            for _ in 0..ENTRIES {
                proj.push(acc);
                acc = acc.vartime_add(&base);
            }
            for _ in 0..W {
                base = base.double();
            }
        }
        let mut affine = vec![Affine::<C>::IDENTITY; proj.len()];
        batch_normalize(&proj, &mut affine);
        let table = affine
            .chunks_exact(ENTRIES)
            .map(|c| core::array::from_fn(|i| c[i]))
            .collect();
        Self { base: *p, table }
    }

    /// The base point.
    pub fn base(&self) -> &Affine<C> {
        &self.base
    }

    /// `k * P`, constant time in `k`.
    pub fn mul(&self, k: &Scalar<C>) -> Point<C> {
        mul_fixed_ct([self], &[*k])
    }

    /// `k * P` for a public `k`, variable time.
    pub fn vartime_mul(&self, k: &Scalar<C>) -> Point<C> {
        vartime_mul_fixed([self], &[*k])
    }

    /// Adds `k * P` to `acc` in constant time; ORs exceptional additions into `exceptional`.
    fn accumulate_ct(&self, acc: &mut Point<C>, k: &Scalar<C>, exceptional: &mut Choice) {
        let mut digits = [0i8; MAX_DIGITS];
        let n = signed_digits::<C>(k, &mut digits);
        for (row, &d) in self.table.iter().zip(digits[..n].iter()) {
            let (sum, same) = ct_lookup::<C, Affine<C>>(row, d).add_to(acc);
            *acc = sum;
            *exceptional |= same;
        }
        digits.zeroize();
    }

    /// Adds `k * P` to `acc`, variable time.
    fn accumulate_vartime(&self, acc: &mut Point<C>, k: &Scalar<C>) {
        let mut digits = [0i8; MAX_DIGITS];
        let n = signed_digits::<C>(k, &mut digits);
        for (row, &d) in self.table.iter().zip(digits[..n].iter()) {
            *acc = vartime_add_entry(acc, row, d);
        }
    }
}

/// `sum k_i * P_i` over tables, constant time in the scalars.
pub fn mul_fixed_ct<C: Curve, const N: usize>(
    tables: [&FixedBaseTable<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    let mut exceptional = Choice::from(0);
    for (t, k) in tables.iter().zip(scalars.iter()) {
        t.accumulate_ct(&mut acc, k, &mut exceptional);
    }
    if crate::group::declassify(exceptional) {
        return fallback(tables, scalars);
    }
    acc
}

#[cold]
fn fallback<C: Curve, const N: usize>(
    tables: [&FixedBaseTable<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    for (t, k) in tables.iter().zip(scalars.iter()) {
        acc = acc.add_complete(&super::mul_affine(&t.base, k));
    }
    acc
}

/// `sum k_i * P_i` over tables, variable time (public scalars only).
pub fn vartime_mul_fixed<C: Curve, const N: usize>(
    tables: [&FixedBaseTable<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    for (t, k) in tables.iter().zip(scalars.iter()) {
        t.accumulate_vartime(&mut acc, k);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::{mul, mul_generator, random_scalar, to_affine};
    use p384::NistP384 as C;

    #[test]
    fn matches_ladder() {
        let mut rng = rand::rng();
        let p: [Affine<C>; 2] =
            core::array::from_fn(|_| to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng))));
        let t = [FixedBaseTable::new(&p[0]), FixedBaseTable::new(&p[1])];
        let k: [Scalar<C>; 2] = core::array::from_fn(|_| random_scalar::<C>(&mut rng));
        let expect = mul(&Point::from(p[0]), &k[0]) + mul(&Point::from(p[1]), &k[1]);
        assert_eq!(mul_fixed_ct([&t[0], &t[1]], &k), expect);
        assert_eq!(vartime_mul_fixed([&t[0], &t[1]], &k), expect);
        let z = Scalar::<C>::ZERO;
        assert_eq!(mul_fixed_ct([&t[0]], &[z]), Point::<C>::IDENTITY);
        assert_eq!(
            vartime_mul_fixed([&t[0]], &[-k[0]]),
            -mul(&Point::from(p[0]), &k[0])
        );
        // Same base twice with opposite scalars: the identity (exceptional path).
        assert_eq!(
            mul_fixed_ct([&t[0], &t[0]], &[k[0], -k[0]]),
            Point::<C>::IDENTITY
        );
        let one = Scalar::<C>::ONE;
        assert_eq!(
            mul_fixed_ct([&t[0], &t[0]], &[one, one]),
            Point::from(p[0]).double()
        );
    }
}
