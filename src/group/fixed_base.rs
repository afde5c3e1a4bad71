//! Fixed-base multiplication by precomputed tables (the generator, a protocol's second
//! generator, an issuer's public keys): `table[j][e] = (2 e + 1) * 2^(w j) * P` in affine form,
//! regular odd radix-`2^w` digits (`window::odd_digits_w`), no doublings. `w = 5` for per-key
//! tables ([`FixedBaseTable::new`]), `w = 7` for the process-wide generators on x86-64
//! ([`FixedBaseTable::new_wide`]).
//!
//! A 5-bit table costs about 1250 additions and one field inversion to build and about 120 KB
//! (P-384); a multiplication is then ~77 mixed additions, a quarter of a variable-base
//! ladder. The constant-time path scans every entry of a row (`window::ct_lookup_row`: the
//! backend's AVX2 scan, or masks ORed in portable code). No digit is zero, so no entry and no
//! partial sum is the identity and the rows' additions need no identity selections; only the
//! last row can meet the doubling case (accumulator equal to the entry: exactly two scalars per
//! curve and width, `±(2 top 2^(w (m - 1)) - n)`, pinned by the tests) or the accumulator's
//! negation, whose sum is the identity the formula gives (`k = 0`). So the last row's
//! addition, at the public index `m - 1`, is complete (the sum, or the accumulator's doubling
//! selected when the formula degenerates), and the terms of a sum over several tables are
//! added with the complete addition: no reported flag, no fallback, no branch on a secret.

use subtle::ConditionallySelectable;
use zeroize::Zeroize;

use super::point::batch_normalize;
use super::window::{
    ct_lookup_row, odd_digit_rows, odd_digits_w, vartime_add_entry, RowEntry, MAX_DIGITS, MAX_W, W,
};
use super::{Affine, Curve, Point, Scalar};

/// The window of [`FixedBaseTable::new_wide`]: 7 bits where the AVX2 scan exists, else 5.
const WIDE: usize = if cfg!(target_arch = "x86_64") {
    MAX_W
} else {
    W
};

/// Precomputed multiples of a fixed point `P`: rows of `2^(w-1)` affine points, the odd
/// multiples `P, 3P, ..., (2^w - 1)P` times the row's `2^(w j)`, one row per odd radix-`2^w`
/// digit of the scalar.
#[derive(Clone)]
pub struct FixedBaseTable<C: Curve> {
    base: Affine<C>,
    /// The window width `w`.
    w: usize,
    /// `rows * 2^(w-1)` points, row by row (no entry is the identity unless `base` is, and
    /// then the table is never read).
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
    /// P-256 and 120 KB on P-384; a multiplication is 51 (P-256) or 76 (P-384) mixed
    /// additions (one fewer than the 52 or 77 rows: the first row is a lookup).
    pub fn new(p: &Affine<C>) -> Self {
        Self::with_window(p, W)
    }

    /// Builds the table of `p` with 7-bit windows, for the generators every process
    /// multiplies (the group generator, ARC's and PMB's second generators): about 150 KB on
    /// P-256 and 340 KB on P-384, and 36 (P-256) or 54 (P-384) mixed additions a
    /// multiplication (37 or 55 rows), each after a scan of 64 entries. On x86-64 only, where the scan is
    /// AVX2's; elsewhere (WebAssembly) the portable scan of 64 entries costs about what the
    /// saved additions do and the table is three times longer to build on first use, so this
    /// is [`FixedBaseTable::new`] there.
    pub fn new_wide(p: &Affine<C>) -> Self {
        Self::with_window(p, WIDE)
    }

    fn with_window(p: &Affine<C>, w: usize) -> Self {
        let entries = 1usize << (w - 1);
        let rows = odd_digit_rows(C::SCALAR_LEN * 8, w);
        let mut proj = Vec::with_capacity(rows * entries);
        let mut base = Point::<C>::from(*p);
        for _ in 0..rows {
            let twice = base.double();
            let mut acc = base;
            for _ in 0..entries {
                proj.push(acc);
                acc = acc.vartime_add(&twice);
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

    /// The recoding of `k` ([`odd_digits_w`] at the table's width) into `digits`; the count.
    fn recode(&self, k: &Scalar<C>, digits: &mut [i8; MAX_DIGITS]) -> usize {
        match self.w {
            W => odd_digits_w::<C, W>(k, digits),
            _ => odd_digits_w::<C, MAX_W>(k, digits),
        }
    }

    /// `k * P` in constant time for a base that is not the identity (the identity when `k =
    /// 0`). The first row is a lookup, every other a mixed addition without identity
    /// selections, the last one complete (see the module docs): its sum, or the accumulator's
    /// doubling selected when the formula degenerates (the accumulator equals the entry).
    fn mul_odd_ct(&self, k: &Scalar<C>) -> Point<C> {
        let mut digits = [0i8; MAX_DIGITS];
        let n = self.recode(k, &mut digits);
        let mut rows = self.rows().zip(digits[..n].iter());
        let mut acc = Point::<C>::IDENTITY;
        if let Some((row, &d)) = rows.next() {
            acc = Point::from(ct_lookup_row(row, d));
        }
        // Rows 1 to m - 2 (`n >= 37`), then the last one.
        for (row, &d) in rows.by_ref().take(n.saturating_sub(2)) {
            acc = acc.madd_raw(&ct_lookup_row(row, d)).0;
        }
        if let Some((row, &d)) = rows.next() {
            let (sum, same) = acc.madd_raw(&ct_lookup_row(row, d));
            acc = Point::<C>::conditional_select(&sum, &acc.double(), same);
        }
        digits.zeroize();
        acc
    }

    /// Adds `k * P` to `acc`, variable time.
    fn accumulate_vartime(&self, acc: &mut Point<C>, k: &Scalar<C>) {
        if self.base.infinity != 0 {
            return;
        }
        let mut digits = [0i8; MAX_DIGITS];
        let n = self.recode(k, &mut digits);
        for (row, &d) in self.rows().zip(digits[..n].iter()) {
            *acc = vartime_add_entry(acc, row, d);
        }
    }
}

/// `sum k_i * P_i` over tables, constant time in the scalars: each table's `k_i * P_i` by its
/// rows (a table of the identity, public, adds nothing), then the terms added with the complete
/// addition (a term is the identity when its scalar is zero; two terms are equal or opposite
/// only by a relation between the bases' discrete logarithms, which the complete addition
/// answers like any other sum). No fallback and no branch on a secret.
pub fn mul_fixed_ct<C: Curve, const N: usize>(
    tables: [&FixedBaseTable<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    let mut first = true;
    for (t, k) in tables.iter().zip(scalars.iter()) {
        if t.base.infinity != 0 {
            continue;
        }
        let term = t.mul_odd_ct(k);
        acc = if first { term } else { acc.add_complete(&term) };
        first = false;
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
    use elliptic_curve::ff::{Field, PrimeField};
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
        // Same base twice with opposite scalars: the identity (the complete addition's
        // negation case).
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

    /// Zero scalars give the identity by the rows' own additions (the last row adds the
    /// negation of the accumulator), alone, twice and beside a non-zero term; the doubling case
    /// of a sum (the same base twice with equal scalars) is the complete addition's.
    fn zero_scalars_and_equal_terms<C: Curve>() {
        let mut rng = rand::rng();
        let p: [Affine<C>; 2] =
            core::array::from_fn(|_| to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng))));
        let k = random_scalar::<C>(&mut rng);
        let z = Scalar::<C>::ZERO;
        for t in [
            [FixedBaseTable::new(&p[0]), FixedBaseTable::new(&p[1])],
            [
                FixedBaseTable::new_wide(&p[0]),
                FixedBaseTable::new_wide(&p[1]),
            ],
        ] {
            let o = Point::<C>::IDENTITY;
            assert_eq!(t[0].mul(&z), o);
            assert_eq!(t[0].vartime_mul(&z), o);
            assert_eq!(mul_fixed_ct([&t[0], &t[1]], &[z, z]), o);
            let kp = mul(&Point::from(p[1]), &k);
            assert_eq!(mul_fixed_ct([&t[0], &t[1]], &[z, k]), kp);
            assert_eq!(mul_fixed_ct([&t[1], &t[0]], &[k, z]), kp);
            assert_eq!(vartime_mul_fixed([&t[0], &t[1]], &[z, k]), kp);
            let one = Scalar::<C>::ONE;
            assert_eq!(
                mul_fixed_ct([&t[0], &t[0]], &[one, one]),
                Point::from(p[0]).double()
            );
            assert_eq!(
                mul_fixed_ct([&t[0], &t[1], &t[0]], &[k, one, k]),
                mul(&Point::from(p[0]), &k.double()) + Point::from(p[1])
            );
        }
    }

    /// The last row's doubling case: with `W = 2^(w (m - 1))` the top row's weight, an even
    /// `k = -(top 2 W)` is recoded as `k' = n - k = top 2 W - n` with its digits negated, and
    /// for the `top` below (found by search: `k'`'s own top digit must be `top`) the rows
    /// before the last sum to the last row's entry. The other member of the pair, the odd
    /// `k' = top 2 W - n` itself, meets the same entry with the digits not negated
    /// (`odd_rows_exceptions_are_exactly_the_named` pins the pair as the whole set). Both
    /// products are right through the complete last row, with no fallback (there is none),
    /// and so is `vartime_mul` (whose last addition branches to a doubling).
    fn last_row_doubling_case<C: Curve>(top: u64, w: usize) {
        let mut rng = rand::rng();
        let p = to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng)));
        let t = if w == W {
            FixedBaseTable::new(&p)
        } else {
            FixedBaseTable::new_wide(&p)
        };
        let m = crate::group::window::odd_digit_rows(C::SCALAR_LEN * 8, w);
        let mut k = Scalar::<C>::from(top);
        for _ in 0..w * (m - 1) + 1 {
            k = k.double();
        }
        for (member, k) in [("even", -k), ("odd", k)] {
            let expect = mul(&Point::from(p), &k);
            assert_eq!(t.mul(&k), expect, "w = {w}, {member} member");
            assert_eq!(mul_fixed_ct([&t], &[k]), expect, "w = {w}, {member} member");
            assert_eq!(
                t.vartime_mul(&k),
                expect,
                "w = {w}, {member} member: vartime"
            );
        }
    }

    #[test]
    fn the_last_rows_doubling_case_is_right() {
        last_row_doubling_case::<p256::NistP256>(1, W);
        last_row_doubling_case::<p256::NistP256>(15, MAX_W);
        last_row_doubling_case::<C>(15, W);
        last_row_doubling_case::<C>(63, MAX_W);
    }

    /// A scalar from big-endian hex (shorter than the scalar: zeros on the left); `None` for
    /// a non-hex digit or a value not below `n`.
    fn scalar_hex<C: Curve>(hex: &str) -> Option<Scalar<C>> {
        let mut repr = <Scalar<C> as PrimeField>::Repr::default();
        let bytes: &mut [u8] = repr.as_mut();
        let padded = format!("{}{hex}", if hex.len() % 2 == 1 { "0" } else { "" });
        let digits = padded.as_bytes();
        assert!(digits.len() <= 2 * bytes.len());
        let off = bytes.len() - digits.len() / 2;
        for (i, pair) in digits.chunks(2).enumerate() {
            let nibble = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
            match (nibble(pair[0]), nibble(pair[1])) {
                (Some(hi), Some(lo)) => bytes[off + i] = (hi << 4) | lo,
                _ => return None,
            }
        }
        Scalar::<C>::from_repr(repr).into()
    }

    /// The fixed-base rows' exceptional additions at the scalar level, as a set, at width
    /// `WW`: for `k = ±0..=1024`, 5,000 random scalars and, for every odd `top < 2^WW` (every
    /// last digit the recoding can give), the two candidates `±2 top 2^(WW (m - 1))` of the
    /// closed form `k' = 2 top 2^(WW (m - 1)) - n`, the partial sums (row `j` adds
    /// `d_j 2^(WW j)`) are never zero, a row meets its own term (the doubling case) or its
    /// negation only at the last row, the negation only for `k = 0`, and the doubling case
    /// exactly for the two scalars `want` (the review's table, `specs/arith-review-2.md` C4).
    fn odd_rows_exceptions<C: Curve, const WW: usize>(want: [&str; 2]) {
        use crate::group::window::{odd_digit_rows, odd_digits_w};
        let mut rng = rand::rng();
        let m = odd_digit_rows(C::SCALAR_LEN * 8, WW);
        let mut last_weight = Scalar::<C>::ONE;
        for _ in 0..WW * (m - 1) {
            last_weight = last_weight.double();
        }
        let mut ks: Vec<Scalar<C>> = (0..=1024u64)
            .flat_map(|j| [Scalar::<C>::from(j), -Scalar::<C>::from(j)])
            .collect();
        ks.extend((0..5_000).map(|_| random_scalar::<C>(&mut rng)));
        for top in (1..1u64 << WW).step_by(2) {
            let k = Scalar::<C>::from(2 * top) * last_weight;
            ks.extend([k, -k]);
        }
        let radix = Scalar::<C>::from(1u64 << WW);
        let mut doubling = Vec::new();
        for k in &ks {
            let mut d = [0i8; MAX_DIGITS];
            assert_eq!(odd_digits_w::<C, WW>(k, &mut d), m);
            let mut acc = crate::group::mul::tests::digit_scalar::<C>(d[0]);
            let mut weight = Scalar::<C>::ONE;
            for (j, &dj) in d[..m].iter().enumerate().skip(1) {
                weight *= radix;
                let e = crate::group::mul::tests::digit_scalar::<C>(dj) * weight;
                assert!(!bool::from(acc.is_zero()) && !bool::from(e.is_zero()));
                if acc == e {
                    assert_eq!(j, m - 1, "a doubling case before the last row");
                    doubling.push(*k);
                }
                if acc == -e {
                    assert_eq!(j, m - 1, "a negation before the last row");
                    assert!(bool::from(k.is_zero()), "a negation for k != 0");
                }
                acc += e;
            }
            assert_eq!(acc, *k);
        }
        doubling.sort_by_key(|k| k.to_repr());
        doubling.dedup();
        let want = want
            .iter()
            .map(|h| scalar_hex::<C>(h))
            .collect::<Option<Vec<_>>>();
        let want = want.map(|mut w| {
            w.sort_by_key(|k| k.to_repr());
            w
        });
        assert_eq!(
            Some(doubling),
            want,
            "the doubling-case scalars at w = {WW}"
        );
    }

    #[test]
    fn odd_rows_exceptions_are_exactly_the_named() {
        use p256::NistP256 as P256;
        odd_rows_exceptions::<P256, W>([
            "ffffffff00000000000000004319055258e8617b0c46353d039cdaaf",
            "fffffffe00000001ffffffffffffffff79cdf55b4e2f3d09e7739585f8c64aa2",
        ]);
        odd_rows_exceptions::<P256, MAX_W>([
            "e0000000ffffffff00000000000000004319055258e8617b0c46353d039cdaaf",
            "1ffffffe00000001ffffffffffffffff79cdf55b4e2f3d09e7739585f8c64aa2",
        ]);
        odd_rows_exceptions::<C, W>([
            "e00000000000000000000000000000000000000000000000389cb27e0bc8d220a7e5f24db74f58851313e695333ad68d",
            "1fffffffffffffffffffffffffffffffffffffffffffffff8ec69b03e86e5bbeb0341b6491614ef5d9d832d5998a52e6",
        ]);
        odd_rows_exceptions::<C, MAX_W>([
            "f80000000000000000000000000000000000000000000000389cb27e0bc8d220a7e5f24db74f58851313e695333ad68d",
            "7ffffffffffffffffffffffffffffffffffffffffffffff8ec69b03e86e5bbeb0341b6491614ef5d9d832d5998a52e6",
        ]);
    }

    #[test]
    fn zero_scalars_and_equal_terms_are_right() {
        zero_scalars_and_equal_terms::<p256::NistP256>();
        zero_scalars_and_equal_terms::<C>();
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

    /// The vector scan and the portable one select the same entry for every odd digit, on
    /// rows of 16 and 64 entries of both curves.
    fn scans_agree<C: Curve>() {
        use crate::group::window::{ct_lookup_row, MAX_ENTRIES, MAX_W};
        let mut rng = rand::rng();
        let p = to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng)));
        for t in [FixedBaseTable::new(&p), FixedBaseTable::new_wide(&p)] {
            let m = (1i16 << t.w) - 1;
            for row in t.rows() {
                for d in (-m..=m).step_by(2) {
                    let d = d as i8;
                    let got = ct_lookup_row::<C>(row, d);
                    let e = &row[usize::from(d.unsigned_abs() / 2)];
                    let want = if d > 0 { e.point() } else { -e.point() };
                    assert_eq!(got, want, "digit {d}");
                    assert_eq!(got.infinity, 0, "digit {d}");
                    let index = d.unsigned_abs() / 2 + 1;
                    let (x, y) = crate::group::window::scan_row::<C>(row, index);
                    assert_eq!((x, y), (e.x, e.y), "digit {d}");
                    if let Some((gx, gy)) =
                        <C::Fe as crate::group::FieldOps>::gather_pair(row, |e| (&e.x, &e.y), index)
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
            // Row `j` holds the odd multiples of `2^(w j) P`.
            let mut weight = Point::from(p);
            for row in t.rows() {
                for (e, entry) in row.iter().enumerate() {
                    let odd = Scalar::<C>::from(2 * e as u64 + 1);
                    assert_eq!(Point::from(entry.point()), mul(&weight, &odd), "entry {e}");
                }
                for _ in 0..t.w {
                    weight = weight.double();
                }
            }
        }
    }

    #[test]
    fn vector_and_portable_scans_agree() {
        scans_agree::<p256::NistP256>();
        scans_agree::<C>();
    }

    /// The odd recoding: every digit odd and within the table's rows, the last positive, and
    /// `sum d_j 2^(w j) = k`, for edge scalars (0, 1, 2, n - 1, n - 2, `2^j` and `2^j - 1`,
    /// where the carries run through every window) and random ones, both widths, both curves.
    #[test]
    fn odd_recoding_sums_to_the_scalar() {
        use crate::group::window::{odd_digit_rows, odd_digits_w};
        fn check<C: Curve, const WW: usize>() {
            let bits = C::SCALAR_LEN * 8;
            let rows = odd_digit_rows(bits, WW);
            let mut rng = rand::rng();
            let one = Scalar::<C>::ONE;
            let mut ks = vec![Scalar::<C>::ZERO, one, one.double(), -one, -one.double()];
            let mut pow = one;
            for _ in 0..bits {
                ks.push(pow - one);
                ks.push(pow);
                pow = pow.double();
            }
            ks.extend((0..64).map(|_| random_scalar::<C>(&mut rng)));
            let radix = Scalar::<C>::from(1u64 << WW);
            let top = (1i16 << WW) - 1;
            for k in &ks {
                let mut digits = [0i8; MAX_DIGITS];
                assert_eq!(odd_digits_w::<C, WW>(k, &mut digits), rows);
                let mut sum = Scalar::<C>::ZERO;
                for &d in digits[..rows].iter().rev() {
                    assert_eq!(d & 1, 1, "{d}");
                    assert!(i16::from(d).abs() <= top, "{d}");
                    let v = Scalar::<C>::from(u64::from(d.unsigned_abs()));
                    sum = sum * radix + if d < 0 { -v } else { v };
                }
                assert_eq!(sum, *k);
                // The last digit is positive for an odd scalar (negated for an even one).
                let last = digits[rows - 1];
                assert_eq!(last > 0, bool::from(k.is_odd()), "{last}");
            }
        }
        check::<p256::NistP256, 5>();
        check::<p256::NistP256, 7>();
        check::<C, 5>();
        check::<C, 7>();
        assert_eq!(odd_digit_rows(256, 7), 37);
        assert_eq!(odd_digit_rows(256, 5), 52);
        assert_eq!(odd_digit_rows(384, 7), 55);
        assert_eq!(odd_digit_rows(384, 5), 77);
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
