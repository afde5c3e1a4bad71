//! Fixed-base multiplication by precomputed tables (the generator, a protocol's second
//! generator, an issuer's public keys): `table[j][e] = (e + 1) * 2^(w j) * P` in affine form,
//! signed radix-`2^w` digits, no doublings. `w = 5` for per-key tables ([`FixedBaseTable::new`]),
//! `w = 7` for the process-wide generators on x86-64 ([`FixedBaseTable::new_wide`]).
//!
//! A 5-bit table costs about 1250 additions and one field inversion to build and about 120 KB
//! (P-384); a multiplication is then ~78 mixed additions, a quarter of a variable-base
//! ladder. The constant-time path scans every entry of a row (`window::ct_lookup_row`: the
//! backend's AVX2 scan, or masks ORed in portable code) and only reports an exceptional
//! addition (accumulator equal to the selected entry), falling back to the complete ladder if
//! one occurred (negligible probability for uniformly random secret scalars).

use subtle::Choice;
use zeroize::Zeroize;

use super::point::batch_normalize;
use super::window::{
    ct_lookup_row, digit_rows, signed_digits_w, vartime_add_entry, RowEntry, MAX_DIGITS, MAX_W, W,
};
use super::{Affine, Curve, Point, Scalar};

/// The window of [`FixedBaseTable::new_wide`]: 7 bits where the AVX2 scan exists, else 5.
const WIDE: usize = if cfg!(target_arch = "x86_64") {
    MAX_W
} else {
    W
};

/// Precomputed multiples of a fixed point `P`: rows of `2^(w-1)` affine points, one row per
/// radix-`2^w` digit of the scalar.
#[derive(Clone)]
pub struct FixedBaseTable<C: Curve> {
    base: Affine<C>,
    /// The window width `w`.
    w: usize,
    /// `rows * 2^(w-1)` points, row by row (no entry is the identity unless `base` is, and
    /// then every entry is read as the identity).
    table: Vec<RowEntry<C>>,
}

impl<C: Curve> core::fmt::Debug for FixedBaseTable<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("base", &self.base)
            .field("w", &self.w)
            .finish_non_exhaustive()
    }
}

impl<C: Curve> FixedBaseTable<C> {
    /// Builds the table of `p` with 5-bit windows (one field inversion, not counted by the
    /// inversion counter: tables are built once per key, not per operation). About 52 KB on
    /// P-256 and 120 KB on P-384; a multiplication is 53 (P-256) or 78 (P-384) mixed
    /// additions.
    pub fn new(p: &Affine<C>) -> Self {
        Self::with_window(p, W)
    }

    /// Builds the table of `p` with 7-bit windows, for the generators every process
    /// multiplies (the group generator, ARC's and PMB's second generators): about 150 KB on
    /// P-256 and 340 KB on P-384, and 37 (P-256) or 56 (P-384) mixed additions a
    /// multiplication, each after a scan of 64 entries. On x86-64 only, where the scan is
    /// AVX2's; elsewhere (WebAssembly) the portable scan of 64 entries costs about what the
    /// saved additions do and the table is three times longer to build on first use, so this
    /// is [`FixedBaseTable::new`] there.
    pub fn new_wide(p: &Affine<C>) -> Self {
        Self::with_window(p, WIDE)
    }

    fn with_window(p: &Affine<C>, w: usize) -> Self {
        let entries = 1usize << (w - 1);
        let rows = digit_rows(C::SCALAR_LEN * 8, w);
        let mut proj = Vec::with_capacity(rows * entries);
        let mut base = Point::<C>::from(*p);
        for _ in 0..rows {
            let mut acc = base;
            for _ in 0..entries {
                proj.push(acc);
                acc = acc.vartime_add(&base);
            }
            for _ in 0..w {
                base = base.double();
            }
        }
        let mut affine = vec![Affine::<C>::IDENTITY; proj.len()];
        batch_normalize(&proj, &mut affine);
        let table = affine.iter().map(RowEntry::of).collect();
        Self { base: *p, w, table }
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

    fn rows(&self) -> core::slice::ChunksExact<'_, RowEntry<C>> {
        self.table.chunks_exact(1 << (self.w - 1))
    }

    /// Adds `k * P` to `acc` in constant time; ORs exceptional additions into `exceptional`.
    /// `acc` is the identity when `first` (public): its first row is then a lookup, not an
    /// addition.
    fn accumulate_ct(
        &self,
        acc: &mut Point<C>,
        k: &Scalar<C>,
        first: bool,
        exceptional: &mut Choice,
    ) {
        let mut digits = [0i8; MAX_DIGITS];
        let n = match self.w {
            W => signed_digits_w::<C, W>(k, &mut digits),
            _ => signed_digits_w::<C, MAX_W>(k, &mut digits),
        };
        let of_identity = self.base.infinity != 0;
        let mut rows = self.rows().zip(digits[..n].iter());
        if first {
            if let Some((row, &d)) = rows.next() {
                *acc = Point::from(ct_lookup_row(row, d, of_identity));
            }
        }
        for (row, &d) in rows {
            let (sum, same) = acc.add_affine_ct(&ct_lookup_row(row, d, of_identity));
            *acc = sum;
            *exceptional |= same;
        }
        digits.zeroize();
    }

    /// Adds `k * P` to `acc`, variable time.
    fn accumulate_vartime(&self, acc: &mut Point<C>, k: &Scalar<C>) {
        if self.base.infinity != 0 {
            return;
        }
        let mut digits = [0i8; MAX_DIGITS];
        let n = match self.w {
            W => signed_digits_w::<C, W>(k, &mut digits),
            _ => signed_digits_w::<C, MAX_W>(k, &mut digits),
        };
        for (row, &d) in self.rows().zip(digits[..n].iter()) {
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
    for (i, (t, k)) in tables.iter().zip(scalars.iter()).enumerate() {
        t.accumulate_ct(&mut acc, k, i == 0, &mut exceptional);
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
    use elliptic_curve::ff::Field;
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

    /// `Debug` shows the base and the window, not the table's points.
    #[test]
    fn debug_shows_base_and_window() {
        let g = Affine::<C>::generator();
        let shown = format!("{:?}", FixedBaseTable::new(&g));
        assert!(
            shown.starts_with("FixedBaseTable { base: AffinePoint {"),
            "{shown}"
        );
        assert!(shown.ends_with(&format!("w: {W}, .. }}")), "{shown}");
        assert_eq!(shown.matches("AffinePoint").count(), 1, "{shown}");
    }

    /// The wide tables on edge scalars, both curves: `0`, `1`, `n - 1` (every top digit at its
    /// largest, where a dropped carry row would show), low and high Hamming weight.
    fn wide_matches_ladder<C: Curve>() {
        let mut rng = rand::rng();
        let p = to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng)));
        let wide = FixedBaseTable::new_wide(&p);
        let narrow = FixedBaseTable::new(&p);
        let mut ks = vec![Scalar::<C>::ZERO, Scalar::<C>::ONE, -Scalar::<C>::ONE];
        ks.push(-Scalar::<C>::from(2u64));
        // 2^j - 1 and 2^j for every j: runs of ones that carry through every window.
        let mut pow = Scalar::<C>::ONE;
        for _ in 0..C::SCALAR_LEN * 8 {
            ks.push(pow - Scalar::<C>::ONE);
            ks.push(pow);
            pow = pow.double();
        }
        for _ in 0..16 {
            ks.push(random_scalar::<C>(&mut rng));
        }
        for k in &ks {
            let expect = mul(&Point::from(p), k);
            assert_eq!(wide.mul(k), expect);
            assert_eq!(wide.vartime_mul(k), expect);
            assert_eq!(narrow.mul(k), expect);
            assert_eq!(
                mul_fixed_ct([&wide, &narrow], &[*k, -*k]),
                Point::<C>::IDENTITY
            );
        }
        let g = FixedBaseTable::new_wide(&Affine::<C>::generator());
        for k in &ks {
            assert_eq!(g.mul(k), mul_generator::<C>(k));
        }
        // The table of the identity.
        let o = FixedBaseTable::new_wide(&Affine::<C>::IDENTITY);
        assert_eq!(o.mul(&ks[20]), Point::<C>::IDENTITY);
        assert_eq!(o.vartime_mul(&ks[20]), Point::<C>::IDENTITY);
    }

    #[test]
    fn wide_tables_match_the_ladder() {
        wide_matches_ladder::<p256::NistP256>();
        wide_matches_ladder::<C>();
    }

    /// The vector scan and the portable one select the same entry for every digit, on rows
    /// of 16 and 64 entries of both curves.
    fn scans_agree<C: Curve>() {
        use crate::group::window::{ct_lookup_row, MAX_ENTRIES, MAX_W};
        let mut rng = rand::rng();
        let p = to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng)));
        for t in [FixedBaseTable::new(&p), FixedBaseTable::new_wide(&p)] {
            let m = 1i8 << (t.w - 1);
            for row in t.rows() {
                for d in -m..=m {
                    let got = ct_lookup_row::<C>(row, d, false);
                    let want = match d {
                        0 => Affine::<C>::IDENTITY,
                        d if d > 0 => row[d as usize - 1].point(),
                        d => -row[(-d) as usize - 1].point(),
                    };
                    assert_eq!(got, want, "digit {d}");
                    // A row read as the identity's gives the identity for every digit, 0 too.
                    let of_identity = ct_lookup_row::<C>(row, d, true);
                    assert!(bool::from(of_identity.is_identity()), "digit {d}");
                    let abs = d.unsigned_abs();
                    let (x, y) = crate::group::window::scan_row::<C>(row, abs);
                    if d != 0 {
                        assert_eq!((x, y), (row[abs as usize - 1].x, row[abs as usize - 1].y));
                    }
                    if let Some((gx, gy)) =
                        <C::Fe as crate::group::FieldOps>::gather_pair(row, |e| (&e.x, &e.y), abs)
                    {
                        assert_eq!((gx, gy), (x, y), "digit {d}");
                    }
                }
            }
            // The widest table's rows are exactly `MAX_ENTRIES` long (the scan's mask buffer).
            let rows_of = if t.w == MAX_W {
                MAX_ENTRIES
            } else {
                1 << (t.w - 1)
            };
            assert!(t.rows().all(|r| r.len() == rows_of), "w = {}", t.w);
        }
    }

    #[test]
    fn vector_and_portable_scans_agree() {
        scans_agree::<p256::NistP256>();
        scans_agree::<C>();
    }

    /// The recoding's last digit is zero exactly where `digit_rows` drops its row.
    #[test]
    fn dropped_carry_rows_are_zero() {
        use crate::group::window::{digit_rows, signed_digits_w};
        fn top<C: Curve, const WW: usize>() {
            let bits = C::SCALAR_LEN * 8;
            let rows = digit_rows(bits, WW);
            let mut digits = [0i8; MAX_DIGITS];
            let mut rng = rand::rng();
            let mut ks = vec![-Scalar::<C>::ONE];
            ks.extend((0..64).map(|_| random_scalar::<C>(&mut rng)));
            for k in &ks {
                let n = signed_digits_w::<C, WW>(k, &mut digits);
                assert!(digits[rows..n].iter().all(|&d| d == 0));
            }
        }
        top::<p256::NistP256, 5>();
        top::<p256::NistP256, 7>();
        top::<C, 5>();
        top::<C, 7>();
        assert_eq!(digit_rows(256, 7), 37);
        assert_eq!(digit_rows(256, 5), 52);
        assert_eq!(digit_rows(384, 7), 56);
        assert_eq!(digit_rows(384, 5), 78);
    }

    /// The ladders' 16-entry lookups (Jacobian and affine entries, the vector scan where the
    /// CPU has one) select the entry for every digit, on a point's table and the identity's.
    fn ladder_lookups<C: Curve>() {
        use crate::group::point::batch_normalize;
        use crate::group::window::{build_tables, ct_lookup, ENTRIES};
        let mut rng = rand::rng();
        let p = mul_generator::<C>(&random_scalar::<C>(&mut rng));
        for q in [p, Point::<C>::IDENTITY] {
            let ([t], _) = build_tables::<C, 1>(&[q]);
            let mut a = [Affine::<C>::IDENTITY; ENTRIES];
            batch_normalize(&t, &mut a);
            for d in -16i8..=16 {
                let abs = d.unsigned_abs() as usize;
                let (pj, pa) = match abs {
                    0 => (Point::<C>::IDENTITY, Affine::<C>::IDENTITY),
                    i => (t[i - 1], a[i - 1]),
                };
                let (pj, pa) = if d < 0 { (-pj, -pa) } else { (pj, pa) };
                let gj = ct_lookup::<C, Point<C>>(&t, d);
                assert_eq!(gj, pj, "digit {d}");
                assert_eq!(
                    (gj.x, gj.y, gj.z),
                    (pj.x, pj.y, pj.z),
                    "digit {d}: coordinates"
                );
                let ga = ct_lookup::<C, Affine<C>>(&a, d);
                assert_eq!(ga, pa, "digit {d}");
                assert_eq!(ga.infinity, pa.infinity, "digit {d}");
            }
        }
    }

    #[test]
    fn ladder_lookups_select_the_entry() {
        ladder_lookups::<p256::NistP256>();
        ladder_lookups::<C>();
    }
}
