//! Scalar multiplication routines.
//!
//! * [`GeneratorTable`]: fixed-base multiplication by the generator, constant time, with a
//!   precomputed table of odd multiples `d * 128^j * G` (regular odd radix-128 digits, no
//!   doublings at all; radix 32 off x86-64).
//! * `mul_ct`: variable-base multiplication, constant time, regular odd radix-32 digits over a
//!   table of `P, 3P, ..., 31P` read by a full scan.
//! * `straus_vartime` / `msm_vartime`: multi-scalar multiplication for public data with
//!   width-5 wNAF (Straus) and, for long inputs, Pippenger's bucket method.
//!
//! # Exceptional cases in the constant-time routines
//!
//! The incomplete Jacobian additions are wrong when both operands are the same point. The
//! regular odd recodings of `mul_ct` and the fixed-base tables have no zero digit, so no table
//! entry and no partial sum is the identity, and a partial sum can only meet the entry it adds
//! in the last addition (the partial sums are odd and below the next weight; see `mul_ct` and
//! `fixed_base`). `mul_ct` makes that one addition complete and has no other path; so do the
//! fixed-base tables (their last row's addition is complete, and the terms of a sum over several
//! tables are added with the complete addition: no fallback). The batch and multi-point ladders
//! keep signed digits with identity selections, and report the doubling case as a [`Choice`],
//! OR-ed over the product, for a complete recomputation at the end if it ever occurred (a cold
//! safety net); those over several points (`ct_multi`) start from a secret point, since their
//! exceptional cases depend on how the points relate.

use super::fixed_base::FixedBaseTable;
use super::point::batch_normalize;
use super::window::{
    affine_tables, ct_lookup, odd_digits_w, odd_entry, odd_table, odd_table_n, signed_digits,
    Entry, ScalarDigits, ENTRIES, MAX_DIGITS, MAX_SCALAR_BYTES, W,
};
use super::{Affine, Curve, Point, Scalar};

/// Window width of the wNAF recoding used by Straus.
const NAF_W: usize = 5;
const NAF_TABLE: usize = 1 << (NAF_W - 2);
/// Maximum wNAF length: one digit per bit plus a final carry.
const MAX_NAF: usize = MAX_SCALAR_BYTES * 8 + 1;

/// Width-`NAF_W` non-adjacent form, variable time. Returns the number of digits.
fn wnaf<C: Curve>(k: &Scalar<C>, naf: &mut [i8; MAX_NAF]) -> usize {
    let s = ScalarDigits::new::<C>(k);
    let len = s.bits + 1;
    naf[..len].fill(0);
    let width = 1i64 << NAF_W;
    let mut pos = 0;
    let mut carry = 0i64;
    while pos < len {
        let window = carry + s.window(pos, NAF_W) as i64;
        if window & 1 == 0 {
            pos += 1;
            continue;
        }
        if window < width / 2 {
            carry = 0;
            naf[pos] = window as i8;
        } else {
            carry = 1;
            naf[pos] = (window - width) as i8;
        }
        pos += NAF_W;
    }
    len
}

/// Precomputed multiples of the generator: the [`FixedBaseTable`] of `G` built by
/// [`FixedBaseTable::new_wide`] (`table[j][e] = (2 e + 1) * 2^(w j) * G`, `w = 7` on x86-64
/// and 5 elsewhere).
pub struct GeneratorTable<C: Curve> {
    table: FixedBaseTable<C>,
}

impl<C: Curve> core::fmt::Debug for GeneratorTable<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GeneratorTable").finish_non_exhaustive()
    }
}

impl<C: Curve> GeneratorTable<C> {
    /// Builds the table (once per process; a few milliseconds).
    pub fn new() -> Self {
        Self {
            table: FixedBaseTable::new_wide(&Affine::<C>::generator()),
        }
    }

    /// `k * G`, constant time in `k`.
    pub fn mul(&self, k: &Scalar<C>) -> Point<C> {
        self.table.mul(k)
    }

    /// `k * G` for a public `k`, variable time.
    pub fn vartime_mul(&self, k: &Scalar<C>) -> Point<C> {
        self.table.vartime_mul(k)
    }
}

impl<C: Curve> Default for GeneratorTable<C> {
    fn default() -> Self {
        Self::new()
    }
}

/// `k * P` with the complete `primeorder` formulas: the rare exceptional path of the
/// constant-time routines (two field inversions for the conversions).
#[cold]
fn fallback_mul<C: Curve>(p: &Point<C>, k: &Scalar<C>) -> Point<C> {
    #[cfg(test)]
    FALLBACKS.with(|c| c.set(c.get() + 1));
    Point::<C>::from_primeorder(&(p.to_primeorder() * k))
}

/// `k * P`, constant time in `k` and `P`: regular odd radix-32 digits (`odd_digits_w`, none
/// zero), 5 doublings and one addition of a table entry (selected by a full scan) per digit,
/// over the odd multiples `P, 3P, ..., 31P` (`odd_table`). Stack only; no fallback.
///
/// With `k'` the recoded scalar (`k` or `n - k`) and `V_j = sum_{i >= j} d_i 32^(i - j)` the
/// partial scalar after digit `j`, the addition of digit `j` is `32 V_(j+1) P + d_j P`; it is
/// exceptional when `32 V_(j+1) = ±d_j mod n`, that is when `V_j` or `V_j - 2 d_j` is a
/// multiple of `n`. Both are odd (never 0), and for `j >= 1` below `k' / 32 + 64 < n` in
/// size, so only the last addition (digit 0) can be exceptional: `k' = n` (`k = 0`: the sum of
/// a point and its negation, the identity the formula gives) or `k' = n + 2 d_0` (the doubling
/// case: `k = ±38` on P-384, no scalar on P-256). That one addition is the complete one; the
/// others need no identity selections either (no entry and no partial sum is the identity).
/// The identity's table is the identity's (`Z = 0` throughout), and so is the result.
pub(crate) fn mul_ct<C: Curve>(p: &Point<C>, k: &Scalar<C>) -> Point<C> {
    let table = odd_table::<C>(p);
    let mut digits = [0i8; MAX_DIGITS];
    let n = odd_digits_w::<C, W>(k, &mut digits);
    let mut acc = ct_lookup::<C, Point<C>>(&table, odd_entry(digits[n - 1]));
    for (j, &d) in digits[..n - 1].iter().enumerate().rev() {
        for _ in 0..W {
            acc = acc.double();
        }
        let entry = ct_lookup::<C, Point<C>>(&table, odd_entry(d));
        acc = if j == 0 {
            acc.add_complete(&entry)
        } else {
            acc.add_raw(&entry).0
        };
    }
    zeroize::Zeroize::zeroize(&mut digits);
    acc
}

/// `k * P_i` for every point of a batch with one secret scalar (an issuer's key), constant time
/// in `k` and in the points, into `out`: the scalar is recoded once (signed radix-32 digits),
/// each point's table `P, 2P, ..., 16P` is built (`window::build_tables`), and all the tables
/// are normalised together with one field inversion for the batch, so that every ladder step
/// is a mixed addition (7M + 4S instead of 12M + 4S), with identity selections for digit 0.
/// The exceptional cases depend on the scalar alone: the last addition could meet its operand
/// only for `k = n + 2 d_0(k)`, which no low digit `d_0 in [-16, -1]` satisfies (`n mod 32` is
/// 17 on P-256 and 19 on P-384), so none arises for a scalar below `n`; the fallback stays as
/// a safety net. Allocates
/// its two working buffers once per call: about 4 KB per point on P-384 (the Jacobian and the
/// affine tables), for as long as the call runs.
pub(crate) fn mul_batch_ct<C: Curve>(points: &[Affine<C>], k: &Scalar<C>, out: &mut [Point<C>]) {
    let mut digits = [0i8; MAX_DIGITS];
    let n = signed_digits::<C>(k, &mut digits);
    let mut exceptional = subtle::Choice::from(0);
    let mut tables = Vec::with_capacity(points.len());
    let mut affine = vec![[[Affine::<C>::IDENTITY; ENTRIES]; 1]; points.len()];
    affine_tables(
        points.iter().map(|p| [Point::<C>::from(*p)]),
        &mut tables,
        &mut affine,
        |e| exceptional |= e,
    );
    drop(tables);
    for ([table], o) in affine.iter().zip(out.iter_mut()) {
        let mut acc = Point::<C>::from(ct_lookup::<C, Affine<C>>(table, digits[n - 1]));
        for &d in digits[..n - 1].iter().rev() {
            for _ in 0..W {
                acc = acc.double();
            }
            let (sum, same) = ct_lookup::<C, Affine<C>>(table, d).add_to(&acc);
            acc = sum;
            exceptional |= same;
        }
        *o = acc;
    }
    zeroize::Zeroize::zeroize(&mut digits);
    if crate::group::declassify(exceptional) {
        for (p, o) in points.iter().zip(out.iter_mut()) {
            *o = fallback_mul::<C>(&Point::<C>::from(*p), k);
        }
    }
}

impl<C: Curve> core::ops::Mul<Scalar<C>> for Point<C> {
    type Output = Point<C>;
    /// Constant-time scalar multiplication (as [`super::mul`]).
    fn mul(self, k: Scalar<C>) -> Point<C> {
        mul_ct::<C>(&self, &k)
    }
}

impl<C: Curve> core::ops::Mul<Scalar<C>> for &Point<C> {
    type Output = Point<C>;
    /// Constant-time scalar multiplication (as [`super::mul`]).
    fn mul(self, k: Scalar<C>) -> Point<C> {
        mul_ct::<C>(self, &k)
    }
}

/// Odd multiples `P, 3P, ..., (2^(w-1)-1)P` in projective form: one doubling and co-Z
/// additions (`odd_table_n`; the identity's table is the identity's).
fn odd_multiples<C: Curve>(p1: Point<C>) -> [Point<C>; NAF_TABLE] {
    odd_table_n::<C, NAF_TABLE>(&p1)
}

#[inline]
fn add_naf_digit<C: Curve>(acc: &mut Point<C>, table: &[Point<C>; NAF_TABLE], d: i8) {
    if d > 0 {
        *acc = acc.vartime_add(&table[(d as usize) >> 1]);
    } else if d < 0 {
        *acc = acc.vartime_add(&-table[((-(d as i16)) as usize) >> 1]);
    }
}

#[inline]
fn add_naf_digit_affine<C: Curve>(acc: &mut Point<C>, table: &[Affine<C>], d: i8) {
    if d > 0 {
        *acc = acc.vartime_add_affine(&table[(d as usize) >> 1]);
    } else if d < 0 {
        *acc = acc.vartime_sub_affine(&table[((-(d as i16)) as usize) >> 1]);
    }
}

/// Straus' method with wNAF for `N` terms on the stack. Variable time.
pub(crate) fn straus_vartime<C: Curve, const N: usize>(
    points: &[Point<C>; N],
    scalars: &[Scalar<C>; N],
) -> Point<C> {
    let mut nafs = [[0i8; MAX_NAF]; N];
    let mut len = 0;
    for (naf, k) in nafs.iter_mut().zip(scalars.iter()) {
        len = len.max(wnaf::<C>(k, naf));
    }
    let tables: [[Point<C>; NAF_TABLE]; N] =
        core::array::from_fn(|i| odd_multiples::<C>(points[i]));
    straus_core::<C>(&tables, &nafs, len)
}

fn straus_core<C: Curve>(
    tables: &[[Point<C>; NAF_TABLE]],
    nafs: &[[i8; MAX_NAF]],
    len: usize,
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    let mut started = false;
    for pos in (0..len).rev() {
        if started {
            acc = acc.double();
        }
        for (table, naf) in tables.iter().zip(nafs.iter()) {
            let d = naf[pos];
            if d != 0 {
                add_naf_digit::<C>(&mut acc, table, d);
                started = true;
            }
        }
    }
    acc
}

/// Straus over tables already in affine form (`NAF_TABLE` entries per point, flattened).
fn straus_core_affine<C: Curve>(
    tables: &[Affine<C>],
    nafs: &[[i8; MAX_NAF]],
    len: usize,
) -> Point<C> {
    let mut acc = Point::<C>::IDENTITY;
    let mut started = false;
    for pos in (0..len).rev() {
        if started {
            acc = acc.double();
        }
        for (table, naf) in tables.chunks_exact(NAF_TABLE).zip(nafs.iter()) {
            let d = naf[pos];
            if d != 0 {
                add_naf_digit_affine::<C>(&mut acc, table, d);
                started = true;
            }
        }
    }
    acc
}

/// Width-5 NAF of a 64-bit chunk (digits odd, in `[-15, 15]`), variable time. Returns the
/// number of digits (at most 65).
fn wnaf_chunk(k: u64, naf: &mut [i8; MAX_NAF]) -> usize {
    let mut k = u128::from(k);
    let mut len = 0;
    while k != 0 {
        let mut d = 0i8;
        if k & 1 == 1 {
            let w = (k & 31) as i8;
            d = if w >= 16 { w - 32 } else { w };
            k = if d >= 0 {
                k - d as u128
            } else {
                k + (-(d as i16)) as u128
            };
        }
        naf[len] = d;
        k >>= 1;
        len += 1;
    }
    len
}

/// Bits of one row of [`vartime_mul_batch`]'s comb: a point used by several scalars gets the
/// rows `P, 2^64 P, 2^128 P, ...`, and each of its scalars is split into 64-bit chunks.
const ROW_BITS: usize = 64;
/// Most rows of a comb (a 384-bit scalar).
const MAX_ROWS: usize = MAX_SCALAR_BYTES * 8 / ROW_BITS;

/// `out[i] = jobs[i].1 * points[jobs[i].0]`: several products of public points by public
/// scalars, variable time. A point used by one job gets one odd-multiple table (width-5 wNAF,
/// `P, 3P, ..., 15P`); a point used by several gets a comb of `bits / 64` rows `2^(64 r) P`,
/// each with its odd-multiple table, so that its scalars, cut into 64-bit chunks, need 64
/// doublings each instead of `bits` (the rows' doublings are paid once per point). Every
/// table of every point is converted to affine with one field inversion, then each product is
/// Straus over its rows with mixed additions. The caller checks the lengths and indices.
pub(crate) fn mul_batch_vartime<C: Curve>(
    points: &[Affine<C>],
    jobs: &[(usize, Scalar<C>)],
    out: &mut [Point<C>],
) {
    let rows_max = (C::SCALAR_LEN * 8).div_ceil(ROW_BITS).min(MAX_ROWS);
    // Rows per point: 0 (unused), 1, or the comb.
    let mut uses = vec![0usize; points.len()];
    for (i, _) in jobs {
        uses[*i] += 1;
    }
    let rows: Vec<usize> = uses
        .iter()
        .map(|&u| match u {
            0 => 0,
            1 => 1,
            _ => rows_max,
        })
        .collect();
    let mut offsets = Vec::with_capacity(points.len());
    let mut total = 0;
    for r in &rows {
        offsets.push(total);
        total += r * NAF_TABLE;
    }
    let mut proj = Vec::with_capacity(total);
    for (p, r) in points.iter().zip(&rows) {
        let mut row = Point::<C>::from(*p);
        for k in 0..*r {
            if k > 0 {
                for _ in 0..ROW_BITS {
                    row = row.double();
                }
            }
            proj.extend_from_slice(&odd_multiples::<C>(row));
        }
    }
    let mut tables = vec![Affine::<C>::IDENTITY; total];
    batch_normalize(&proj, &mut tables);
    let mut nafs = [[0i8; MAX_NAF]; MAX_ROWS];
    for ((i, k), o) in jobs.iter().zip(out.iter_mut()) {
        let (r, off) = (rows[*i], offsets[*i]);
        let table = &tables[off..off + r * NAF_TABLE];
        let len = if r == 1 {
            wnaf::<C>(k, &mut nafs[0])
        } else {
            let bytes = C::scalar_bytes(k);
            let be = bytes.as_ref();
            let mut len = 0;
            for (row, naf) in nafs.iter_mut().enumerate().take(r) {
                // Row `row` holds bits 64 row .. 64 row + 63: big-endian bytes from the end.
                let end = be.len() - row * 8;
                let mut chunk = [0u8; 8];
                chunk.copy_from_slice(&be[end - 8..end]);
                naf.fill(0);
                len = len.max(wnaf_chunk(u64::from_be_bytes(chunk), naf));
            }
            len
        };
        *o = straus_core_affine::<C>(table, &nafs[..r], len);
    }
}

/// Inputs at least this long use Pippenger's method instead of Straus.
const PIPPENGER_THRESHOLD: usize = 512;

/// Multi-scalar multiplication over slices. Variable time.
pub(crate) fn msm_vartime<C: Curve>(points: &[Affine<C>], scalars: &[Scalar<C>]) -> Point<C> {
    match points.len() {
        0 => Point::<C>::IDENTITY,
        1 => straus_vartime::<C, 1>(&[points[0].into()], &[scalars[0]]),
        2 => straus_vartime::<C, 2>(
            &[points[0].into(), points[1].into()],
            &[scalars[0], scalars[1]],
        ),
        n if n < PIPPENGER_THRESHOLD => {
            let mut nafs = vec![[0i8; MAX_NAF]; n];
            let mut len = 0;
            for (naf, k) in nafs.iter_mut().zip(scalars.iter()) {
                len = len.max(wnaf::<C>(k, naf));
            }
            // Each point's table only as long as its largest digit needs (a coefficient `2^j`
            // has the one digit 1: the point itself, no table), the computed entries to affine
            // with one field inversion, then mixed additions.
            let mut entries = Vec::with_capacity(n);
            // At most `NAF_TABLE - 1` computed entries a point: one allocation whatever the
            // digits (the batch APIs' allocation count stays independent of the batch size).
            let mut proj = Vec::with_capacity(n * (NAF_TABLE - 1));
            for (p, naf) in points.iter().zip(&nafs) {
                let top = naf[..len]
                    .iter()
                    .map(|d| d.unsigned_abs())
                    .max()
                    .unwrap_or(0);
                let e = usize::from(top).div_ceil(2);
                entries.push(e);
                if e > 1 {
                    let p1 = Point::<C>::from(*p);
                    let p2 = p1.double();
                    let mut t = p1;
                    for _ in 1..e {
                        t = t.vartime_add(&p2);
                        proj.push(t);
                    }
                }
            }
            let mut computed = vec![Affine::<C>::IDENTITY; proj.len()];
            batch_normalize(&proj, &mut computed);
            let mut tables = vec![Affine::<C>::IDENTITY; n * NAF_TABLE];
            let mut next = computed.iter();
            for ((p, e), table) in points
                .iter()
                .zip(&entries)
                .zip(tables.chunks_exact_mut(NAF_TABLE))
            {
                table[0] = *p;
                for slot in table.iter_mut().take(*e).skip(1) {
                    if let Some(a) = next.next() {
                        *slot = *a;
                    }
                }
            }
            straus_core_affine::<C>(&tables, &nafs, len)
        }
        n => pippenger::<C>(points, scalars, n),
    }
}

/// Pippenger's bucket method with signed digits. Variable time.
fn pippenger<C: Curve>(points: &[Affine<C>], scalars: &[Scalar<C>], n: usize) -> Point<C> {
    let log = usize::BITS - n.leading_zeros();
    let c = (log as usize).saturating_sub(2).clamp(4, 12);
    let bits = C::SCALAR_LEN * 8;
    let windows = bits.div_ceil(c) + 1;
    // Signed digits in [-2^(c-1), 2^(c-1)), window-major per scalar.
    let mut digits = vec![0i16; n * windows];
    for (k, row) in scalars.iter().zip(digits.chunks_exact_mut(windows)) {
        let s = ScalarDigits::new::<C>(k);
        let mut carry = 0i64;
        for (j, d) in row.iter_mut().enumerate().take(windows - 1) {
            let v = s.window(j * c, c);
            let v = v as i64 + carry;
            carry = (v + (1 << (c - 1))) >> c;
            *d = (v - (carry << c)) as i16;
        }
        row[windows - 1] = carry as i16;
    }
    let buckets_len = 1usize << (c - 1);
    let mut buckets = vec![Point::<C>::IDENTITY; buckets_len];
    let mut acc = Point::<C>::IDENTITY;
    for j in (0..windows).rev() {
        for _ in 0..c {
            acc = acc.double();
        }
        for b in buckets.iter_mut() {
            *b = Point::<C>::IDENTITY;
        }
        for (p, row) in points.iter().zip(digits.chunks_exact(windows)) {
            let d = row[j];
            if d > 0 {
                let b = &mut buckets[d as usize - 1];
                *b = b.vartime_add_affine(p);
            } else if d < 0 {
                let b = &mut buckets[(-d) as usize - 1];
                *b = b.vartime_sub_affine(p);
            }
        }
        let mut running = Point::<C>::IDENTITY;
        let mut sum = Point::<C>::IDENTITY;
        for b in buckets.iter().rev() {
            running = running.vartime_add(b);
            sum = sum.vartime_add(&running);
        }
        acc = acc.vartime_add(&sum);
    }
    acc
}

#[cfg(test)]
std::thread_local! {
    static FALLBACKS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::group::{random_scalar, to_affine};

    /// `Debug` names the table and shows none of its points.
    #[test]
    fn generator_table_debug_shows_no_point() {
        let t = GeneratorTable::<p256::NistP256>::new();
        assert_eq!(format!("{t:?}"), "GeneratorTable { .. }");
    }

    /// The single-point ladder near `0` and `n`: `k = ±j` for `j` in `0..=256`, which include
    /// the scalars whose last addition is the doubling case (`k' = n + 2 d_0`: `±38` on P-384)
    /// and those recoded as `n - k`; and the identity's product.
    fn ladder_is_right_near<C: Curve>() {
        let mut rng = rand::rng();
        let p = Point::<C>::generator() * random_scalar::<C>(&mut rng);
        for j in 0u64..=256 {
            for k in [-Scalar::<C>::from(j), Scalar::<C>::from(j)] {
                let expect = Point::<C>::from_primeorder(&(p.to_primeorder() * k));
                assert_eq!(mul_ct::<C>(&p, &k), expect, "k = ±{j}");
            }
        }
        let k = random_scalar::<C>(&mut rng);
        assert!(bool::from(
            mul_ct::<C>(&Point::<C>::IDENTITY, &k).is_identity()
        ));
    }

    /// The co-Z table holds `P, 3P, ..., 31P`; the identity's holds the identity.
    fn odd_table_holds_the_odd_multiples<C: Curve>() {
        let mut rng = rand::rng();
        let p = Point::<C>::generator() * random_scalar::<C>(&mut rng);
        for (i, e) in odd_table::<C>(&p).iter().enumerate() {
            let odd = Scalar::<C>::from(2 * i as u64 + 1);
            assert_eq!(
                *e,
                Point::<C>::from_primeorder(&(p.to_primeorder() * odd)),
                "{i}"
            );
        }
        let o = odd_table::<C>(&Point::<C>::IDENTITY);
        assert!(o.iter().all(|e| bool::from(e.is_identity())));
    }

    /// ZADDU's shared-`Z` precondition is checked where debug assertions are on (debug test
    /// runs, the mutants profile): operands with different `Z` panic.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "zaddu: the operands do not share Z")]
    fn zaddu_checks_the_shared_z() {
        let p = Point::<NistP256>::generator();
        let _ = p.double().zaddu(&p);
    }

    #[test]
    fn odd_tables_hold_the_odd_multiples() {
        odd_table_holds_the_odd_multiples::<NistP256>();
        odd_table_holds_the_odd_multiples::<NistP384>();
    }

    /// The signed value of an odd digit as a scalar.
    pub(crate) fn digit_scalar<C: Curve>(d: i8) -> Scalar<C> {
        let v = Scalar::<C>::from(u64::from(d.unsigned_abs()));
        if d < 0 {
            -v
        } else {
            v
        }
    }

    /// `mul_ct`'s exceptional additions at the scalar level, as a set: for `k = ±0..=4096`
    /// (every candidate `k' = n + 2 d_0`, `|2 d_0| <= 62`, is among them) and 10,000 random
    /// scalars, the ladder's partial scalars (`acc`, times `2^W` per digit) are never zero, an
    /// addition meets its own entry (the doubling case) or its negation only at the last digit
    /// (`j = 0`), the negation only for `k = 0`, and the doubling case exactly for `want`.
    fn odd_ladder_exceptions<C: Curve>(want: &[Scalar<C>]) {
        let mut rng = rand::rng();
        let mut ks: Vec<Scalar<C>> = (0..=4096u64)
            .flat_map(|j| [Scalar::<C>::from(j), -Scalar::<C>::from(j)])
            .collect();
        ks.extend((0..10_000).map(|_| random_scalar::<C>(&mut rng)));
        let radix = Scalar::<C>::from(1u64 << W);
        let mut doubling = Vec::new();
        for k in &ks {
            let mut d = [0i8; MAX_DIGITS];
            let m = odd_digits_w::<C, W>(k, &mut d);
            let mut acc = digit_scalar::<C>(d[m - 1]);
            for j in (0..m - 1).rev() {
                acc *= radix;
                let e = digit_scalar::<C>(d[j]);
                assert!(!bool::from(acc.is_zero()) && !bool::from(e.is_zero()));
                if acc == e {
                    assert_eq!(j, 0, "a doubling case before the last addition");
                    doubling.push(*k);
                }
                if acc == -e {
                    assert_eq!(j, 0, "a negation before the last addition");
                    assert!(bool::from(k.is_zero()), "a negation for k != 0");
                }
                acc += e;
            }
            assert_eq!(acc, *k);
        }
        doubling.sort_by_key(|k| k.to_repr());
        doubling.dedup();
        assert_eq!(doubling, want, "the doubling-case scalars");
    }

    #[test]
    fn odd_ladder_exceptions_are_exactly_the_named() {
        odd_ladder_exceptions::<NistP256>(&[]);
        let k = Scalar::<NistP384>::from(38u64);
        odd_ladder_exceptions::<NistP384>(&[k, -k]);
    }

    #[test]
    fn ladder_is_right_near_zero_and_n() {
        ladder_is_right_near::<NistP256>();
        ladder_is_right_near::<NistP384>();
    }
    use elliptic_curve::ff::PrimeField;
    use elliptic_curve::Field;
    use p256::NistP256;
    use p384::NistP384;

    fn check<C: Curve>() {
        let mut rng = rand::rng();
        let table = GeneratorTable::<C>::new();
        for _ in 0..8 {
            let k = random_scalar::<C>(&mut rng);
            let expect = Point::<C>::generator() * k;
            assert_eq!(table.mul(&k), expect);
            assert_eq!(table.vartime_mul(&k), expect);
        }
        for k in [
            Scalar::<C>::ZERO,
            Scalar::<C>::ONE,
            -Scalar::<C>::ONE,
            -Scalar::<C>::ONE.double(),
        ] {
            assert_eq!(table.mul(&k), Point::<C>::generator() * k);
            assert_eq!(table.vartime_mul(&k), Point::<C>::generator() * k);
        }
        for n in [1usize, 2, 3, 17, 600] {
            let pts: Vec<Affine<C>> = (0..n)
                .map(|_| to_affine::<C>(&(Point::<C>::generator() * random_scalar::<C>(&mut rng))))
                .collect();
            let mut ks: Vec<Scalar<C>> = (0..n).map(|_| random_scalar::<C>(&mut rng)).collect();
            ks[0] = -Scalar::<C>::ONE;
            let expect = pts
                .iter()
                .zip(ks.iter())
                .fold(Point::<C>::identity(), |a, (p, k)| {
                    a + Point::<C>::from(*p) * *k
                });
            assert_eq!(msm_vartime::<C>(&pts, &ks), expect, "n = {n}");
        }
    }

    /// The batch ladder against the curve crate for batches of several sizes,
    /// with the identity, the generator and equal points inside, and edge scalars.
    fn batch_ladder<C: Curve>() {
        let mut rng = rand::rng();
        let before = FALLBACKS.with(|c| c.get());
        for (n, k) in [
            (0usize, random_scalar::<C>(&mut rng)),
            (1, Scalar::<C>::ONE),
            (2, -Scalar::<C>::ONE),
            (3, Scalar::<C>::from(31u64)),
            (17, random_scalar::<C>(&mut rng)),
            (130, random_scalar::<C>(&mut rng)),
        ] {
            let mut pts: Vec<Point<C>> = (0..n)
                .map(|_| Point::<C>::generator() * random_scalar::<C>(&mut rng))
                .collect();
            if n >= 3 {
                pts[0] = Point::<C>::identity();
                pts[1] = Point::<C>::generator();
                pts[2] = pts[n - 1];
            }
            let affine: Vec<Affine<C>> = pts.iter().map(|p| p.to_affine()).collect();
            let mut out = vec![Point::<C>::identity(); n];
            mul_batch_ct::<C>(&affine, &k, &mut out);
            for (p, o) in pts.iter().zip(out.iter()) {
                let expect = Point::<C>::from_primeorder(&(p.to_primeorder() * k));
                assert_eq!(*o, expect, "n = {n}");
                assert_eq!(*o, mul_ct::<C>(p, &k), "n = {n}");
            }
        }
        assert_eq!(
            FALLBACKS.with(|c| c.get()),
            before,
            "the batch ladder fell back"
        );
    }

    #[test]
    fn batch_ladder_agrees_with_the_curve_crate() {
        batch_ladder::<NistP256>();
        batch_ladder::<NistP384>();
    }

    #[test]
    fn p256_mul_routines() {
        check::<NistP256>();
    }

    #[test]
    fn p384_mul_routines() {
        check::<NistP384>();
    }
}
