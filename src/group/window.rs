//! The windowed building blocks every constant-time routine shares: the scalar recodings, the
//! window tables `P, 2P, ..., 16P` and their constant-time lookup.
//!
//! One owner for what the single-point ladder (`mul`), the multi-point ladders (`ct_multi`) and
//! the fixed-base tables (`fixed_base`) all need, so none of them reaches into another.

use elliptic_curve::ff::{Field, PrimeField};
use subtle::{Choice, ConditionallyNegatable, ConditionallySelectable, ConstantTimeEq};

use super::{Affine, Curve, FieldOps, Point, Scalar};

/// Window width of the signed radix-32 recoding (digits in `[-16, 16]`).
pub(super) const W: usize = 5;
/// Entries of a window table: `P, 2P, ..., 16P`.
pub(super) const ENTRIES: usize = 1 << (W - 1);
/// Maximum scalar length in bytes handled by the recoders (P-384).
pub(super) const MAX_SCALAR_BYTES: usize = 48;
/// Maximum number of signed radix-32 digits (one more than the windows, for the carry).
pub(super) const MAX_DIGITS: usize = (MAX_SCALAR_BYTES * 8).div_ceil(W) + 1;

/// How many point sets `ct_multi::mul_multi_shared_batch_ct` normalises with one inversion:
/// bounds its working memory (about 8 KB per P-384 set of two points, so 1 MB) for any batch
/// size.
pub(crate) const BATCH_CHUNK: usize = 128;

/// A scalar as little-endian 64-bit limbs, with one spare zero limb for carries; wiped on drop.
pub(super) struct ScalarDigits {
    limbs: [u64; MAX_SCALAR_BYTES / 8 + 1],
    /// The scalar's bit length (`8 * SCALAR_LEN`).
    pub(super) bits: usize,
}

impl ScalarDigits {
    pub(super) fn new<C: Curve>(s: &Scalar<C>) -> Self {
        let mut repr = s.to_repr();
        let be = repr.as_slice();
        let mut limbs = [0u64; MAX_SCALAR_BYTES / 8 + 1];
        for (i, byte) in be.iter().rev().enumerate() {
            limbs[i / 8] |= u64::from(*byte) << (8 * (i % 8));
        }
        let bits = be.len() * 8;
        zeroize::Zeroize::zeroize(repr.as_mut_slice());
        Self { limbs, bits }
    }

    /// `w` bits starting at bit `pos` (`w < 64`, `pos < 448`), constant time in the value.
    #[inline]
    pub(super) fn window(&self, pos: usize, w: usize) -> u64 {
        let idx = pos / 64;
        let bit = pos % 64;
        let lo = self.limbs[idx] >> bit;
        let hi = if bit + w > 64 && idx + 1 < self.limbs.len() {
            self.limbs[idx + 1] << (64 - bit)
        } else {
            0
        };
        (lo | hi) & ((1u64 << w) - 1)
    }
}

impl Drop for ScalarDigits {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.limbs);
    }
}

/// Signed radix-32 recoding ([`signed_digits_w`] with `WW = W`): digits in `[-16, 15]`.
#[inline(always)]
pub(super) fn signed_digits<C: Curve>(k: &Scalar<C>, out: &mut [i8; MAX_DIGITS]) -> usize {
    signed_digits_w::<C, W>(k, out)
}

/// Signed radix-`2^WW` recoding for `WW` in `5..=7`, constant time: digits in
/// `[-2^(WW-1), 2^(WW-1) - 1]` (the top one, the carry, in `{0, 1}`), `sum d_j 2^(WW j) = k`.
/// Returns the number of digits (at most [`MAX_DIGITS`]).
pub(super) fn signed_digits_w<C: Curve, const WW: usize>(
    k: &Scalar<C>,
    out: &mut [i8; MAX_DIGITS],
) -> usize {
    // ok: checked at compile time.
    const { assert!(WW >= W && WW <= MAX_W) };
    let s = ScalarDigits::new::<C>(k);
    let n = s.bits.div_ceil(WW);
    let mut carry: i32 = 0;
    for (j, d) in out.iter_mut().enumerate().take(n) {
        let v = s.window(j * WW, WW) as i32 + carry;
        carry = (v + (1 << (WW - 1))) >> WW;
        *d = (v - (carry << WW)) as i8;
    }
    out[n] = carry as i8;
    n + 1
}

/// The rows of an odd recoding ([`odd_digits_w`]) of a scalar below `2^bits`: `w` bits a row
/// (the recoded scalar, `k` or `n - k`, is below `2^bits` too, and its top window, below
/// `2^w`, is the last digit once its low bit is set).
pub(super) const fn odd_digit_rows(bits: usize, w: usize) -> usize {
    bits.div_ceil(w)
}

/// The regular odd recoding of the fixed-base tables, constant time: `m = odd_digit_rows`
/// digits, every one odd (never zero) in `[-(2^WW - 1), 2^WW - 1]`, with
/// `sum d_j 2^(WW j) = k (mod n)`. Returns `m`.
///
/// An odd `k` is recoded as itself, an even one as `n - k` (odd: `n` is) with every digit
/// negated. For an odd `k'` below `2^bits` the digits are `(k' >> (WW j)) mod 2^(WW + 1)`
/// with the low bit set, minus `2^WW`, and the last is `(k' >> (WW (m - 1))) | 1` (below
/// `2^WW`): setting the low bit adds exactly the carry the previous digit's `- 2^WW`
/// leaves. With no zero digit no table entry is the identity, and every partial sum is odd
/// and smaller than the next row's weight, so only the last row's addition can meet its own
/// operand or its negation (`k = 0`, recoded as `n`, gives the identity there).
pub(super) fn odd_digits_w<C: Curve, const WW: usize>(
    k: &Scalar<C>,
    out: &mut [i8; MAX_DIGITS],
) -> usize {
    // ok: checked at compile time.
    const { assert!(WW >= W && WW <= MAX_W) };
    let mut s = ScalarDigits::new::<C>(k);
    let even = Choice::from((s.limbs[0] & 1) as u8 ^ 1);
    // n - k = (n - 1 - k) + 1, and `-1 - k` does not wrap for any k < n. For an even k it is
    // even, so the + 1 is the low bit the first digit sets: its digits are those of n - k.
    let mut n_1_k = -Scalar::<C>::ONE - k;
    let flipped = ScalarDigits::new::<C>(&n_1_k);
    zeroize::Zeroize::zeroize(&mut n_1_k);
    for (a, b) in s.limbs.iter_mut().zip(flipped.limbs.iter()) {
        a.conditional_assign(b, even);
    }
    let m = odd_digit_rows(s.bits, WW);
    for (j, d) in out.iter_mut().enumerate().take(m) {
        let t = (s.window(j * WW, WW + 1) | 1) as i32;
        let top = i32::from(j + 1 < m) << WW;
        let mut v = (t - top) as i8;
        v.conditional_negate(even);
        *d = v;
    }
    m
}

/// The table entry of an odd digit for [`ct_lookup`] over a table of odd multiples
/// `P, 3P, ..., 31P` ([`odd_table`]): `±(|d| / 2 + 1)`, with the digit's sign; constant time.
#[inline(always)]
pub(super) fn odd_entry(d: i8) -> i8 {
    let (neg, index) = odd_sign_index(d);
    let mut e = index as i8;
    e.conditional_negate(neg);
    e
}

/// The sign of an odd digit and its entry as the scans number them: `|d| = 2 e + 1` is entry
/// `e`, numbered `e + 1`; constant time.
#[inline(always)]
fn odd_sign_index(d: i8) -> (Choice, u8) {
    let (neg, abs) = digit_sign_abs(d);
    (neg, (abs >> 1) + 1)
}

/// The odd multiples `P, 3P, ..., 31P` of the variable-base ladder, by one doubling and
/// fifteen co-Z additions (5M + 2S each, [`Point::zaddu`]): `2P` at `Z = Y Z` (the doubling's
/// `Z3`), `P` rescaled to that `Z` (`(X Y^2 : Y^4 : Y Z)`), then each entry the co-Z sum of the
/// last and `2P`, which the addition rescales to the sum's `Z` for the next. No addition is
/// exceptional (`(2i + 1) P = ±2P` needs an order below 33); the identity's table is the
/// identity's (`Z = 0` throughout).
pub(super) fn odd_table<C: Curve>(p: &Point<C>) -> [Point<C>; ENTRIES] {
    odd_table_n::<C, ENTRIES>(p)
}

/// [`odd_table`] with `N` entries, `P, 3P, ..., (2N - 1)P` (the variable-time wNAF tables
/// take 8).
pub(super) fn odd_table_n<C: Curve, const N: usize>(p: &Point<C>) -> [Point<C>; N] {
    let mut twice = p.double();
    let gamma = p.y.square();
    let mut t = [Point::<C>::IDENTITY; N];
    t[0] = Point::<C> {
        x: p.x * gamma,
        y: gamma.square(),
        z: twice.z,
    };
    for i in 1..N {
        let (sum, moved) = twice.zaddu(&t[i - 1]);
        t[i] = sum;
        twice = moved;
    }
    t
}

/// The widest window of the fixed-base tables (`2^(MAX_W - 1)` entries a row).
pub(super) const MAX_W: usize = 7;
/// Entries of a row of the widest table.
pub(super) const MAX_ENTRIES: usize = 1 << (MAX_W - 1);

/// An entry of a fixed-base row: the affine coordinates of a point that is not the identity
/// (a table of the identity says so by its `of_identity` flag instead), 32-byte aligned and
/// with no flag beside them, so that a row is `2 * 32` (P-256) or `2 * 48` (P-384) bytes an
/// entry and the vector scan's 32-byte loads of a P-256 row never straddle a cache line (an
/// [`Affine`] with its flag is 72 bytes on P-256, and half its loads did).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub(super) struct RowEntry<C: Curve> {
    pub(super) x: C::Fe,
    pub(super) y: C::Fe,
}

impl<C: Curve> RowEntry<C> {
    /// The entry of `p` (its coordinates; the flag is dropped).
    pub(super) fn of(p: &Affine<C>) -> Self {
        Self { x: p.x, y: p.y }
    }

    /// The point (never the identity).
    pub(super) fn point(&self) -> Affine<C> {
        Affine::<C> {
            x: self.x,
            y: self.y,
            infinity: 0,
        }
    }
}

/// `d * 2^(w j) * P` for an odd digit `d` ([`odd_digits_w`], `|d| < 2 m`) from row `j` of a
/// fixed-base table, `P, 3P, ..., (2m - 1)P` times `2^(w j)` (`m <= MAX_ENTRIES` entries), by
/// a scan of the whole row, constant time: the backend's vector scan
/// ([`FieldOps::gather_pair`], AVX2 on x86-64) where the CPU has one, else [`scan_row`].
#[inline(always)]
pub(super) fn ct_lookup_row<C: Curve>(row: &[RowEntry<C>], d: i8) -> Affine<C> {
    let (neg, index) = odd_sign_index(d);
    let (x, y) = match C::Fe::gather_pair(row, |e| (&e.x, &e.y), index) {
        Some(xy) => xy,
        None => scan_row(row, index),
    };
    let mut sel = Affine::<C> { x, y, infinity: 0 };
    sel.negate_if(neg);
    sel
}

/// The portable scan of [`ct_lookup_row`]: each entry's mask (all ones for the entry `abs`,
/// zero otherwise) is computed first and passed through `black_box`, so the compiler sees
/// neither which entry is selected nor a comparison to branch on; the scan then ORs
/// `entry & mask` into zero (one mask an entry instead of a selection a limb).
#[inline(always)]
pub(super) fn scan_row<C: Curve>(row: &[RowEntry<C>], abs: u8) -> (C::Fe, C::Fe) {
    let mut masks = [0u64; MAX_ENTRIES];
    for (e, m) in masks.iter_mut().enumerate().take(row.len()) {
        let x = u64::from(abs ^ (e as u8 + 1));
        *m = (x.wrapping_sub(1) >> 63).wrapping_neg();
    }
    let masks = core::hint::black_box(masks);
    let mut x = <C::Fe as FieldOps>::ZERO;
    let mut y = <C::Fe as FieldOps>::ZERO;
    for (entry, &m) in row.iter().zip(masks.iter()) {
        x.or_masked(&entry.x, m);
        y.or_masked(&entry.y, m);
    }
    (x, y)
}

/// Sign and absolute value of a signed digit, constant time.
#[inline(always)]
pub(super) fn digit_sign_abs(d: i8) -> (Choice, u8) {
    let neg = ((d as u8) >> 7) & 1;
    // Two's complement absolute value without a branch.
    let mask = 0u8.wrapping_sub(neg);
    let abs = ((d as u8) ^ mask).wrapping_add(neg);
    (Choice::from(neg), abs)
}

/// A table entry: a Jacobian point, or an affine one after batched normalisation (cheaper
/// mixed additions in the ladder).
pub(super) trait Entry<C: Curve>: Copy + ConditionallySelectable {
    /// The identity (digit 0).
    const IDENTITY: Self;
    /// Negates `y` when `neg` is set.
    fn negate_if(&mut self, neg: Choice);
    /// `acc + self` and whether the addition hit the doubling case.
    fn add_to(&self, acc: &Point<C>) -> (Point<C>, Choice);
    /// Entry `abs - 1` of `table` (the identity for `abs = 0`) by the backend's vector scan,
    /// constant time in `abs`; `None` where there is none.
    fn gather(table: &[Self; ENTRIES], abs: u8) -> Option<Self>;
}

impl<C: Curve> Entry<C> for Point<C> {
    const IDENTITY: Self = Point::<C>::IDENTITY;
    #[inline(always)]
    fn negate_if(&mut self, neg: Choice) {
        self.y.conditional_assign(&-self.y, neg);
    }
    #[inline(always)]
    fn add_to(&self, acc: &Point<C>) -> (Point<C>, Choice) {
        acc.add_ct(self)
    }
    #[inline(always)]
    fn gather(table: &[Self; ENTRIES], abs: u8) -> Option<Self> {
        // Zeros for `abs = 0`, made the identity's own `(1 : 1 : 0)`.
        let [mut x, mut y, z] = C::Fe::gather_triple(table, |e| [&e.x, &e.y, &e.z], abs)?;
        let none = abs.ct_eq(&0);
        x.conditional_assign(&Point::<C>::IDENTITY.x, none);
        y.conditional_assign(&Point::<C>::IDENTITY.y, none);
        Some(Point::<C> { x, y, z })
    }
}

impl<C: Curve> Entry<C> for Affine<C> {
    const IDENTITY: Self = Affine::<C>::IDENTITY;
    #[inline(always)]
    fn negate_if(&mut self, neg: Choice) {
        self.y.conditional_assign(&-self.y, neg);
    }
    #[inline(always)]
    fn add_to(&self, acc: &Point<C>) -> (Point<C>, Choice) {
        acc.add_affine_ct(self)
    }
    #[inline(always)]
    fn gather(table: &[Self; ENTRIES], abs: u8) -> Option<Self> {
        let (x, y) = C::Fe::gather_pair(table, |e| (&e.x, &e.y), abs)?;
        // The identity for `abs = 0` or a selected entry that is the identity (the table of
        // the identity): the flags are ORed under the same masks as the scan's.
        let mut infinity = abs.ct_eq(&0).unwrap_u8();
        for (e, entry) in table.iter().enumerate() {
            let hit = u8::from(abs == e as u8 + 1);
            infinity |= entry.infinity & core::hint::black_box(hit.wrapping_neg());
        }
        Some(Affine::<C> { x, y, infinity })
    }
}

/// `d * P` for `|d| <= 16` by a scan of the whole table, constant time.
#[inline(always)]
pub(super) fn ct_lookup<C: Curve, E: Entry<C>>(table: &[E; ENTRIES], d: i8) -> E {
    let (neg, abs) = digit_sign_abs(d);
    let mut sel = match E::gather(table, abs) {
        Some(e) => e,
        None => {
            let mut sel = E::IDENTITY;
            for (e, entry) in table.iter().enumerate() {
                sel.conditional_assign(entry, abs.ct_eq(&(e as u8 + 1)));
            }
            sel
        }
    };
    sel.negate_if(neg);
    sel
}

/// `acc + d * 2^(w j) * P` for a public odd digit from row `j` (as [`ct_lookup_row`]),
/// variable time (a direct index, no scan).
#[inline]
pub(super) fn vartime_add_entry<C: Curve>(acc: &Point<C>, row: &[RowEntry<C>], d: i8) -> Point<C> {
    let entry = row[usize::from(d.unsigned_abs() >> 1)].point();
    if d < 0 {
        acc.vartime_sub_affine(&entry)
    } else {
        acc.vartime_add_affine(&entry)
    }
}

/// The window tables of every point set of `sets` (as [`build_tables`]) into `tables` (cleared
/// first), then all of them normalised to affine with one field inversion into `affine` (one
/// element per set); `built` gets, set by set, whether building its tables hit a doubling case.
/// The batch paths' shared first step ([`super::mul`]'s batch ladder, `ct_multi`'s batches).
pub(super) fn affine_tables<C: Curve, const N: usize>(
    sets: impl IntoIterator<Item = [Point<C>; N]>,
    tables: &mut Vec<[[Point<C>; ENTRIES]; N]>,
    affine: &mut [[[Affine<C>; ENTRIES]; N]],
    mut built: impl FnMut(Choice),
) {
    tables.clear();
    for set in sets {
        let (t, e) = build_tables(&set);
        tables.push(t);
        built(e);
    }
    super::point::batch_normalize(
        tables.as_flattened().as_flattened(),
        affine.as_flattened_mut().as_flattened_mut(),
    );
}

/// The tables `P_i, 2P_i, ..., 16P_i` and whether building them hit a doubling case (the
/// index arithmetic is public: it does not depend on the points).
pub(super) fn build_tables<C: Curve, const N: usize>(
    points: &[Point<C>; N],
) -> ([[Point<C>; ENTRIES]; N], Choice) {
    let mut exceptional = Choice::from(0);
    let mut tables = [[Point::<C>::IDENTITY; ENTRIES]; N];
    for (t, p) in tables.iter_mut().zip(points.iter()) {
        // Entry `i` is `(i + 1) P`. For k = 1..7, `2k P` is the doubling of `k P` (4M + 4S) and
        // `(2k + 1) P` the sum `2k P + P` (12M + 4S); then `16 P` doubles `8 P`: 8 doublings and
        // 7 additions instead of 1 and 14, and no branch on the index's parity (the branch scan
        // flags low-bit tests). The additions are never exceptional (`2k P = P` would need
        // `(2k - 1) P = 0`).
        t[0] = *p;
        for k in 1..ENTRIES / 2 {
            t[2 * k - 1] = t[k - 1].double();
            let (sum, same) = t[2 * k - 1].add_ct(p);
            t[2 * k] = sum;
            exceptional |= same;
        }
        t[ENTRIES - 1] = t[ENTRIES / 2 - 1].double();
    }
    (tables, exceptional)
}
