//! The rare carry paths of the field arithmetic that production code runs, driven on purpose:
//! raw Montgomery limbs (below `p`) that make each path's carry or borrow happen, run through
//! both backends (the x86-64 assembly and the portable code) and checked against a big-integer
//! oracle.
//!
//! The paths (`specs/arith-review.md` section 3 for T5-T7, `specs/arith-review-2.md` F4/F5 for
//! T8-T11):
//!
//! * T5, T6: P-384 product and squaring, the borrow of `-w c` into `w - 1` in a reduction step;
//! * T7: P-256 product, the final subtraction's low word all ones;
//! * T8, T9: the doubling's `2 beta` (the fused doubling's `times2 of mul`, the `p384_shl!` /
//!   `p256_shl!` fold with `j = 1`; on the portable code `beta + beta`): the fold's carries
//!   (P-384: out of words 0-4) or borrows (P-256: of `t 2^96` out of words 1 and 2), the low
//!   word all ones before the final subtraction (P-256), and `2 beta` in `[p, 2^n)` (kept after
//!   subtracting `p` with no carry word);
//! * T10, T11: the doubling's halving of `t = (X - delta)(X + delta)` (the adx half bodies, the
//!   portable `limbs::half_mod`): `t` odd with a carry out of the top limb of `t + p`, and odd
//!   without one.
//!
//! T1-T4 of the first review (the `times4`/`times8` folds) are retired with their code: since
//! the halved doubling (e4ab4e6) no production path computed `4 beta`, `8 beta` or `8 gamma^2`;
//! the public `FieldOps::times4`/`times8` are now doublings of the checked modular addition.
//!
//! Random inputs reach these paths with probability about `2^-32` or less, so neither the
//! differential tests nor the fuzzers do. Whether an input takes a path is decided by a model
//! of the routine's carry chain written here word by word (the assembly's flags cannot be read
//! from Rust): each model also computes the routine's result, which must equal what the running
//! backend returns for every input, directed and random. The accumulators the paths are defined
//! on are the same integers in both backends (the same Montgomery multipliers, the same folded
//! values, the same `beta` and `t`); where a path is an instruction of one backend only (T5's
//! and T6's borrows are the assembly's order of operations, T8/T9's fold is the assembly's
//! `2 beta`, the portable code adds), the model says so. The doublings' inputs make `beta` or
//! `t` the directed value: `Y = R mod p` (Montgomery one) gives `gamma = 1`, `beta = X` raw;
//! `Z = 0` and `X = 2^(32 N)` raw give `t = 1` raw.
//!
//! `carry_coverage` runs on the backend the process selected (`PRIVACY_TOKENS_ARITH=portable`
//! selects the portable one), counts both outcomes of every listed carry over random and
//! directed inputs, prints `carry: T<k> taken on <backend>` per path and fails when a listed
//! carry was not taken. `CARRY_COVERAGE_DROP=T<k>` leaves that path's directed inputs out, which
//! must make the check fail (the control of `scripts/carry-coverage.sh`).

#![cfg(test)] // A test-only module: its unwraps and expects are test assertions.

use std::collections::BTreeMap;

use rand::{Rng, RngExt, SeedableRng};

use super::{p256_field, p384_field, P256Fe, P384Fe};

const MAX: u64 = u64::MAX;

/// The operations the paths are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    P384Mul,
    P384Sqr,
    P256Mul,
    /// The Jacobian doubling `(X, Y, Z)` (`point::double_formula`; the fused `adx` doubling).
    P384Double,
    P256Double,
}

impl Op {
    fn limbs(self) -> usize {
        match self {
            Op::P384Mul | Op::P384Sqr | Op::P384Double => 6,
            _ => 4,
        }
    }

    /// How many field elements the operation takes.
    fn arity(self) -> usize {
        match self {
            Op::P384Sqr => 1,
            Op::P384Double | Op::P256Double => 3,
            _ => 2,
        }
    }
}

/// A directed input: the path, the operation, the raw limbs of its operands and the event it
/// must produce.
struct Case {
    path: &'static str,
    op: Op,
    args: &'static [&'static [u64]],
    event: &'static str,
}

macro_rules! case {
    ($path:literal, $op:ident, [$($a:expr),+], $event:literal) => {
        Case {
            path: $path,
            op: Op::$op,
            args: &[$(&$a),+],
            event: $event,
        }
    };
}

const E384: [[u64; 6]; 6] = {
    let mut e = [[0u64; 6]; 6];
    let mut i = 0;
    while i < 6 {
        e[i][i] = 1;
        i += 1;
    }
    e
};
const ONE384: [u64; 6] = [1, 0, 0, 0, 0, 0];
/// `R mod p = 2^384 - p`, Montgomery one (P-384).
const R384: [u64; 6] = [0xffff_ffff_0000_0001, 0xffff_ffff, 1, 0, 0, 0];
/// `R mod p = 2^256 - p`, Montgomery one (P-256).
const R256: [u64; 4] = [1, 0xffff_ffff_0000_0000, MAX, 0xffff_fffe];
const TOP: u64 = 1 << 63;

/// The reviews' inputs (`specs/arith-review.md` section 3, `specs/arith-review-2.md` appendix),
/// plus a P-256 `2 beta` with its low word all ones.
#[rustfmt::skip]
const CASES: &[Case] = &[
    // T5: P-384 product, the borrow of -w c reaching w - 1 in reduction step i + 1 for
    // b = e_i (limb i one), and for the swapped pair (the multipliers are 0 until then).
    case!("T5", P384Mul, [ONE384, E384[0]], "step 1 borrow"),
    case!("T5", P384Mul, [ONE384, E384[1]], "step 2 borrow"),
    case!("T5", P384Mul, [ONE384, E384[2]], "step 3 borrow"),
    case!("T5", P384Mul, [ONE384, E384[3]], "step 4 borrow"),
    case!("T5", P384Mul, [ONE384, E384[4]], "step 5 borrow"),
    case!("T5", P384Mul, [ONE384, E384[5]], "step 6 borrow"),
    case!("T5", P384Mul, [E384[2], ONE384], "step 3 borrow"),
    case!("T5", P384Mul, [E384[3], ONE384], "step 4 borrow"),
    case!("T5", P384Mul, [E384[4], ONE384], "step 5 borrow"),
    case!("T5", P384Mul, [E384[5], ONE384], "step 6 borrow"),
    // T6: P-384 squaring, the full borrow into w - 1 in short-reduction step k + 1 for
    // a = 2^(32 k) (a^2 = 2^(64 k)).
    case!("T6", P384Sqr, [[1 << 32, 0, 0, 0, 0, 0]], "step 2 borrow"),
    case!("T6", P384Sqr, [[0, 1, 0, 0, 0, 0]], "step 3 borrow"),
    case!("T6", P384Sqr, [[0, 1 << 32, 0, 0, 0, 0]], "step 4 borrow"),
    case!("T6", P384Sqr, [[0, 0, 1, 0, 0, 0]], "step 5 borrow"),
    case!("T6", P384Sqr, [[0, 0, 1 << 32, 0, 0, 0]], "step 6 borrow"),
    // T7: P-256 product whose unreduced value is 2^64 + p: the final subtraction's low word
    // all ones (`sub rax, -1` without borrow).
    case!("T7", P256Mul, [
        [0x91b7_584a_2265_b1f6, 0xcd61_3e30_d8f1_6adf, 0x1027_c4d1_c386_bbc4, 0x1e2f_eb89_414c_343c],
        [0x99de_0c68_fce3_3306, 0xc333_ccb3_07bb_2ad5, 0x43d1_0fec_37d7_44a0, 0x7e46_09cb_1d67_9034]],
        "final low word all ones"),
    // T8: P-384 doubling, Y = R mod p so beta = X: 2 beta kept after subtracting p, and the
    // fold's carry out of words 1 to 4.
    case!("T8", P384Double, [[MAX, MAX, MAX, MAX, MAX, TOP - 1], R384, R384], "in [p, 2^n)"),
    case!("T8", P384Double, [[MAX, MAX, 0, 0, 0, TOP], R384, R384], "carry out of word 1"),
    case!("T8", P384Double, [[MAX, MAX, MAX, 0, 0, TOP], R384, R384], "carry out of word 2"),
    case!("T8", P384Double, [[MAX, MAX, MAX, MAX, 0, TOP], R384, R384], "carry out of word 3"),
    case!("T8", P384Double, [[MAX, MAX, MAX, MAX, MAX, TOP], R384, R384], "carry out of word 4"),
    // T9: P-256 doubling, beta = X: 2 beta kept after subtracting p, the borrow of t 2^96 out
    // of words 1 and 2, and the low word all ones before the final subtraction.
    case!("T9", P256Double, [[MAX, MAX, MAX, TOP - 1], R256, R256], "in [p, 2^n)"),
    case!("T9", P256Double, [[0, 0, 0, TOP], R256, R256], "borrow out of word 1"),
    case!("T9", P256Double, [[0, 0, 0, TOP], R256, R256], "borrow out of word 2"),
    case!("T9", P256Double, [[MAX, 0, 0, TOP], R256, R256], "low word all ones"),
    // T10, T11: Z = 0 and X = 2^(32 N): t = X^2 / R = 1 raw, odd, and 1 + p < 2^n.
    case!("T10", P384Double, [[0, 0, 0, 1, 0, 0], R384, [0; 6]], "odd without a carry"),
    case!("T11", P256Double, [[0, 0, 1, 0], R256, [0; 4]], "odd without a carry"),
];

/// The events each path must show on a backend (`asm`: the assembly, else the portable code).
fn required(path: &str, asm: bool) -> Vec<&'static str> {
    match path {
        "T5" => vec![
            "step 3 borrow",
            "step 4 borrow",
            "step 5 borrow",
            "step 6 borrow",
        ],
        "T6" => vec![
            "step 2 borrow",
            "step 3 borrow",
            "step 5 borrow",
            "step 6 borrow",
        ],
        "T7" => vec!["final low word all ones"],
        "T8" if asm => vec![
            "carry out of word 0",
            "carry out of word 1",
            "carry out of word 2",
            "carry out of word 3",
            "carry out of word 4",
            "in [p, 2^n)",
        ],
        "T9" if asm => vec![
            "borrow out of word 1",
            "borrow out of word 2",
            "low word all ones",
            "in [p, 2^n)",
        ],
        // The portable `beta + beta`: no fold, the value events only.
        "T8" | "T9" => vec!["top-word carry", "in [p, 2^n)"],
        "T10" | "T11" => vec!["odd with a carry", "odd without a carry"],
        _ => unreachable!(),
    }
}

const PATHS: [&str; 7] = ["T5", "T6", "T7", "T8", "T9", "T10", "T11"];

fn path_op(path: &str) -> Op {
    CASES.iter().find(|c| c.path == path).map(|c| c.op).unwrap()
}

// ---- big-integer oracle -------------------------------------------------------------------

/// The oracle (bit-serial, branching on its public test inputs; named `tests` so that the CI
/// branch scan, which skips `::tests::`, does not take it for field code).
mod tests {
    use super::{p256_field, p384_field, Op};

    /// `x mod p` by binary long division (little-endian words).
    pub(super) fn mod_p(x: &[u64], p: &[u64]) -> Vec<u64> {
        let n = p.len();
        let mut r = vec![0u64; n + 1];
        for i in (0..x.len() * 64).rev() {
            let bit = (x[i / 64] >> (i % 64)) & 1;
            let mut carry = bit;
            for w in r.iter_mut() {
                let next = *w >> 63;
                *w = (*w << 1) | carry;
                carry = next;
            }
            // r >= p: subtract.
            let mut ge = true;
            for k in (0..=n).rev() {
                let pk = if k < n { p[k] } else { 0 };
                if r[k] != pk {
                    ge = r[k] > pk;
                    break;
                }
            }
            if ge {
                let mut borrow = 0u64;
                for k in 0..=n {
                    let pk = if k < n { p[k] } else { 0 };
                    let (d, b1) = r[k].overflowing_sub(pk);
                    let (d, b2) = d.overflowing_sub(borrow);
                    r[k] = d;
                    borrow = u64::from(b1 || b2);
                }
            }
        }
        r.truncate(n);
        r
    }

    pub(super) fn mul_words(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut t = vec![0u64; a.len() + b.len()];
        for (i, &x) in a.iter().enumerate() {
            let mut c = 0u128;
            for (j, &y) in b.iter().enumerate() {
                let s = u128::from(t[i + j]) + u128::from(x) * u128::from(y) + c;
                t[i + j] = s as u64;
                c = s >> 64;
            }
            t[i + b.len()] = c as u64;
        }
        t
    }

    pub(super) fn less(a: &[u64], b: &[u64]) -> bool {
        for k in (0..a.len().max(b.len())).rev() {
            let (x, y) = (
                a.get(k).copied().unwrap_or(0),
                b.get(k).copied().unwrap_or(0),
            );
            if x != y {
                return x < y;
            }
        }
        false
    }

    /// `a + b` with the carry word (equal lengths).
    fn add_words(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut out = Vec::with_capacity(a.len() + 1);
        let mut c = 0u128;
        for (x, y) in a.iter().zip(b.iter()) {
            let s = u128::from(*x) + u128::from(*y) + c;
            out.push(s as u64);
            c = s >> 64;
        }
        out.push(c as u64);
        out
    }

    /// The field of `op` with the Montgomery operations of the big integers.
    struct Field {
        p: &'static [u64],
        /// `R^-1 mod p`.
        r_inv: Vec<u64>,
    }

    impl Field {
        fn of(op: Op) -> Self {
            let p: &'static [u64] = if op.limbs() == 6 {
                &p384_field::P
            } else {
                &p256_field::P
            };
            let n = p.len();
            // R^-1 = (p + 1)/2 ^ (64 n): halve 64 n times.
            let mut v = vec![0u64; n];
            v[0] = 1;
            for _ in 0..64 * n {
                let w = if v[0] & 1 == 1 {
                    add_words(&v, p)
                } else {
                    let mut w = v.clone();
                    w.push(0);
                    w
                };
                for k in 0..n {
                    v[k] = (w[k] >> 1) | (w[k + 1] << 63);
                }
            }
            Self { p, r_inv: v }
        }

        /// `a b / R mod p`: the `x` below `p` with `x R = a b (mod p)`.
        fn mont(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
            let ab = mod_p(&mul_words(a, b), self.p);
            mod_p(&mul_words(&ab, &self.r_inv), self.p)
        }

        fn add(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
            mod_p(&add_words(a, b), self.p)
        }

        fn sub(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
            // a + (p - b), b < p.
            let mut borrow = 0u64;
            let neg: Vec<u64> = self
                .p
                .iter()
                .zip(b.iter())
                .map(|(&p, &b)| {
                    let (d, b1) = p.overflowing_sub(b);
                    let (d, b2) = d.overflowing_sub(borrow);
                    borrow = u64::from(b1 || b2);
                    d
                })
                .collect();
            self.add(a, &neg)
        }

        /// `a / 2 mod p`: `a (p + 1) / 2`.
        fn half(&self, a: &[u64]) -> Vec<u64> {
            let mut one = vec![0u64; self.p.len()];
            one[0] = 1;
            let w = add_words(self.p, &one);
            let h: Vec<u64> = (0..self.p.len())
                .map(|k| (w[k] >> 1) | (w[k + 1] << 63))
                .collect();
            mod_p(&mul_words(a, &h), self.p)
        }
    }

    /// The halving of both backends (`adx.rs` `p384_half_body!`/`p256_half_body!`,
    /// `limbs::half_mod`): `t + p` when `t` is odd, with the carry out of the top limb, shifted
    /// right through that carry. In this module (as the oracle) so that the CI branch scan
    /// does not take its branch on the low bit, a public test input's, for field code.
    #[inline(never)]
    pub(super) fn half(t: &[u64], p: &[u64]) -> super::Trace {
        let odd = t[0] & 1 == 1;
        let mut v = t.to_vec();
        let mut c = 0;
        if odd {
            for (w, &pk) in v.iter_mut().zip(p.iter()) {
                let (x, cc) = super::adc(*w, pk, c);
                *w = x;
                c = cc;
            }
        }
        let n = v.len();
        let mut r: Vec<u64> = (0..n - 1).map(|k| (v[k] >> 1) | (v[k + 1] << 63)).collect();
        r.push((v[n - 1] >> 1) | (c << 63));
        super::Trace {
            result: r,
            events: vec![
                ("odd with a carry", odd && c == 1),
                ("odd without a carry", odd && c == 0),
            ],
        }
    }

    /// What the oracle says the operation returns (the doubling's three outputs in a row).
    pub(super) fn oracle(op: Op, args: &[&[u64]]) -> Vec<u64> {
        let f = Field::of(op);
        match op {
            Op::P384Mul | Op::P256Mul => f.mont(args[0], args[1]),
            Op::P384Sqr => f.mont(args[0], args[0]),
            Op::P384Double | Op::P256Double => {
                let (x, y, z) = (args[0], args[1], args[2]);
                let delta = f.mont(z, z);
                let gamma = f.mont(y, y);
                let beta = f.mont(x, &gamma);
                let t = f.mont(&f.sub(x, &delta), &f.add(x, &delta));
                let alpha = f.add(&f.half(&t), &t);
                let x3 = f.sub(&f.mont(&alpha, &alpha), &f.add(&beta, &beta));
                let y3 = f.sub(&f.mont(&alpha, &f.sub(&beta, &x3)), &f.mont(&gamma, &gamma));
                let z3 = f.mont(y, z);
                [x3, y3, z3].concat()
            }
        }
    }
}

use tests::{half, less, mul_words, oracle};

// ---- models of the carry chains --------------------------------------------------------------

/// Events seen by one input, and the model's result.
struct Trace {
    result: Vec<u64>,
    events: Vec<(&'static str, bool)>,
}

fn adc(a: u64, b: u64, c: u64) -> (u64, u64) {
    let s = u128::from(a) + u128::from(b) + u128::from(c);
    (s as u64, (s >> 64) as u64)
}

fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let d = u128::from(a).wrapping_sub(u128::from(b) + u128::from(borrow));
    (d as u64, ((d >> 64) as u64) & 1)
}

/// `[top; v] - p` if that is non-negative, else `v`.
fn reduce_once(v: &[u64], top: u64, p: &[u64]) -> Vec<u64> {
    let mut full = v.to_vec();
    full.push(top);
    if less(&full, p) {
        v.to_vec()
    } else {
        let mut b = 0;
        let mut r: Vec<u64> = (0..v.len())
            .map(|k| {
                let (d, bb) = sbb(v[k], p[k], b);
                b = bb;
                d
            })
            .collect();
        r.truncate(v.len());
        r
    }
}

/// The limbs of `2 a` and the shifted-out bit `t`.
fn shift1(a: &[u64]) -> (Vec<u64>, u64) {
    let n = a.len();
    let t = a[n - 1] >> 63;
    let mut v = vec![0u64; n];
    for i in (1..n).rev() {
        v[i] = (a[i] << 1) | (a[i - 1] >> 63);
    }
    v[0] = a[0] << 1;
    (v, t)
}

/// The P-384 `2 beta` of the fused doubling (`adx.rs` `p384_shl!("1", "63")`): `v + t c`, `c`
/// with limbs `0xffffffff00000001`, `0xffffffff`, 1, added word by word. For `beta < p` the
/// folded value never carries out of the top word (`2 beta - 2^384 + c < 2^384 - c`): asserted.
fn p384_fold(a: &[u64]) -> Trace {
    let p = &p384_field::P;
    let (mut v, t) = shift1(a);
    let lo = u128::from(t) * 0xffff_ffff_0000_0001u128;
    let word1 = (lo >> 64) as u64 + t * 0xffff_ffff;
    let mut carries = [0u64; 6];
    let (x, c) = adc(v[0], lo as u64, 0);
    v[0] = x;
    carries[0] = c;
    let (x, c) = adc(v[1], word1, c);
    v[1] = x;
    carries[1] = c;
    let (x, mut c) = adc(v[2], t, c);
    v[2] = x;
    carries[2] = c;
    for (k, w) in v.iter_mut().enumerate().skip(3) {
        let (x, cc) = adc(*w, 0, c);
        *w = x;
        c = cc;
        carries[k] = c;
    }
    assert_eq!(carries[5], 0, "2 beta folded carries out of the top word");
    Trace {
        result: reduce_once(&v, 0, p),
        events: vec![
            ("carry out of word 0", carries[0] == 1),
            ("carry out of word 1", carries[1] == 1),
            ("carry out of word 2", carries[2] == 1),
            ("carry out of word 3", carries[3] == 1),
            ("carry out of word 4", carries[4] == 1),
            ("in [p, 2^n)", !less(&v, p)),
        ],
    }
}

/// The P-256 `2 beta` in the assembly's order (`adx.rs` `p256_shl!("1", "63")`): `+ t` at word
/// 0 and `+ t (2^32 - 1)` at word 3 with the carry into the carry word, then `- t 2^32` at
/// word 1 with its borrow through words 2 and 3; then the final subtraction, whose first
/// instruction (`sub r8, -1`) does not borrow when the low word is all ones. For `beta < p`
/// the carry word stays 0 (`v + t (2^224 - 2^192 + 1) < p + 2^96`): asserted, and so no
/// borrow reaches it.
fn p256_fold(a: &[u64]) -> Trace {
    let p = &p256_field::P;
    let (v, t) = shift1(a);
    let rax = t << 32;
    let rdi = rax - t;
    let (r8, c) = adc(v[0], t, 0);
    let (r9, c) = adc(v[1], 0, c);
    let (r10, c) = adc(v[2], 0, c);
    let (r11, rdx) = adc(v[3], rdi, c);
    assert_eq!(rdx, 0, "2 beta folded carries into the carry word");
    let (r9, b1) = sbb(r9, rax, 0);
    let (r10, b2) = sbb(r10, 0, b1);
    let (r11, b3) = sbb(r11, 0, b2);
    assert_eq!(b3, 0, "the whole of t c is positive");
    let folded = [r8, r9, r10, r11];
    Trace {
        result: reduce_once(&folded, 0, p),
        events: vec![
            ("borrow out of word 1", b1 == 1),
            ("borrow out of word 2", b2 == 1),
            ("low word all ones", r8 == MAX),
            ("in [p, 2^n)", !less(&folded, p)),
        ],
    }
}

/// The portable `2 beta` (`beta + beta`, the modular addition): the carry out of the top word
/// and the sum in `[p, 2^n)` with none.
fn portable_twice(a: &[u64], p: &[u64]) -> Trace {
    let (v, top) = shift1(a);
    Trace {
        result: reduce_once(&v, top, p),
        events: vec![
            ("top-word carry", top == 1),
            ("in [p, 2^n)", top == 0 && !less(&v, p)),
        ],
    }
}

/// The portable field operations of a field, on limb slices.
struct Portable {
    p: &'static [u64],
    mul: fn(&[u64], &[u64]) -> Vec<u64>,
    sqr: fn(&[u64]) -> Vec<u64>,
    add: fn(&[u64], &[u64]) -> Vec<u64>,
    sub: fn(&[u64], &[u64]) -> Vec<u64>,
    half: fn(&[u64]) -> Vec<u64>,
}

fn portable_field(op: Op) -> Portable {
    use p256_field::portable as q256;
    use p384_field::portable as q384;
    if op.limbs() == 6 {
        Portable {
            p: &p384_field::P,
            mul: |a, b| q384::mont_mul(&arr(a), &arr(b)).to_vec(),
            sqr: |a| q384::mont_sqr(&arr(a)).to_vec(),
            add: |a, b| q384::add_mod(&arr(a), &arr(b)).to_vec(),
            sub: |a, b| q384::sub_mod(&arr(a), &arr(b)).to_vec(),
            half: |a| super::limbs::half_mod::<6>(&arr(a), &p384_field::P).to_vec(),
        }
    } else {
        Portable {
            p: &p256_field::P,
            mul: |a, b| q256::mont_mul(&arr(a), &arr(b)).to_vec(),
            sqr: |a| q256::mont_sqr(&arr(a)).to_vec(),
            add: |a, b| q256::add_mod(&arr(a), &arr(b)).to_vec(),
            sub: |a, b| q256::sub_mod(&arr(a), &arr(b)).to_vec(),
            half: |a| super::limbs::half_mod::<4>(&arr(a), &p256_field::P).to_vec(),
        }
    }
}

/// The doubling (`point::double_formula`) on the portable operations, with the events of its
/// halving and of its `2 beta` (the assembly's fold where `asm`, else the portable sum); the
/// modelled halving and `2 beta` must equal the portable routines'.
fn double(op: Op, x: &[u64], y: &[u64], z: &[u64], asm: bool) -> Trace {
    let f = portable_field(op);
    let delta = (f.sqr)(z);
    let gamma = (f.sqr)(y);
    let beta = (f.mul)(x, &gamma);
    let t = (f.mul)(&(f.sub)(x, &delta), &(f.add)(x, &delta));
    let h = half(&t, f.p);
    assert_eq!(h.result, (f.half)(&t), "the halving model");
    let twice = match (asm, op.limbs()) {
        (true, 6) => p384_fold(&beta),
        (true, _) => p256_fold(&beta),
        (false, _) => portable_twice(&beta, f.p),
    };
    assert_eq!(twice.result, (f.add)(&beta, &beta), "the 2 beta model");
    let alpha = (f.add)(&h.result, &t);
    let x3 = (f.sub)(&(f.sqr)(&alpha), &twice.result);
    let y3 = (f.sub)(&(f.mul)(&alpha, &(f.sub)(&beta, &x3)), &(f.sqr)(&gamma));
    let z3 = (f.mul)(y, z);
    let mut events = h.events;
    events.extend(twice.events);
    Trace {
        result: [x3, y3, z3].concat(),
        events,
    }
}

const STEP_EVENTS: [&str; 6] = [
    "step 1 borrow",
    "step 2 borrow",
    "step 3 borrow",
    "step 4 borrow",
    "step 5 borrow",
    "step 6 borrow",
];

/// `c = 2^384 - p = 2^128 + 2^96 - 2^32 + 1` times `w`, four words.
fn p384_wc(w: u64) -> [u64; 4] {
    let c = [0xffff_ffff_0000_0001u64, 0xffff_ffffu64, 1, 0];
    let mut out = [0u64; 4];
    let mut carry = 0u128;
    for k in 0..4 {
        let s = u128::from(w) * u128::from(c[k]) + carry;
        out[k] = s as u64;
        carry = s >> 64;
    }
    out
}

/// One P-384 Montgomery step on the accumulator `acc` (least significant word first): returns
/// whether the subtraction of `w c` from the low six words borrows into `w - 1` (the
/// assembly's `sbb rdx, 0` taking 1), checked against the portable form of the same event (the
/// high word of `t5 + w (2^64 - 1) + c` is `w - 1`), and divides `acc + w p` by `2^64`.
fn p384_step(acc: &mut Vec<u64>) -> bool {
    let p = &p384_field::P;
    let w = acc[0].wrapping_mul(0x0000_0001_0000_0001);
    let wc = p384_wc(w);
    let borrow = less(&acc[..6], &wc);
    // The portable CIOS row: t + w p, word 5's product carrying w - 1 exactly when it borrows.
    let mut c = 0u64;
    let mut hi5 = 0;
    let mut next = acc.clone();
    next.push(0);
    for k in 0..6 {
        let s = u128::from(next[k]) + u128::from(w) * u128::from(p[k]) + u128::from(c);
        next[k] = s as u64;
        c = (s >> 64) as u64;
        if k == 5 {
            hi5 = c;
        }
    }
    assert_eq!(
        borrow,
        hi5 == w.wrapping_sub(1) && w != 0,
        "the two forms of the borrow"
    );
    for word in next.iter_mut().skip(6) {
        let (x, cc) = adc(*word, c, 0);
        *word = x;
        c = cc;
    }
    assert_eq!(next[0], 0);
    next.remove(0);
    assert_eq!(next.pop(), Some(0), "no carry out of the accumulator");
    next.push(0);
    *acc = next;
    borrow
}

/// The P-384 product (`p384_mul_body`, portable `mont_mul`): row `i` adds `a b_i`, then one
/// step; both backends hold the same accumulator after every row.
fn p384_mul(a: &[u64], b: &[u64]) -> Trace {
    let mut acc = vec![0u64; 8];
    let mut events = Vec::new();
    for (i, &bi) in b.iter().enumerate() {
        let row = mul_words(a, &[bi]);
        let mut c = 0;
        for (k, word) in acc.iter_mut().enumerate() {
            let (x, cc) = adc(*word, row.get(k).copied().unwrap_or(0), c);
            *word = x;
            c = cc;
        }
        assert_eq!(c, 0);
        events.push((STEP_EVENTS[i], p384_step(&mut acc)));
    }
    assert_eq!(acc[7], 0);
    Trace {
        result: reduce_once(&acc[..6], acc[6], &p384_field::P),
        events,
    }
}

/// The P-384 squaring: the assembly reduces the low half `L` of `a^2` alone in six short
/// steps (`p384_reduce_short`) and adds the high half `H` after; the portable `redc` runs its
/// steps on all twelve words. Both forms are modelled: their step events agree whenever the
/// steps see the same words (for instance `H = 0`, the T6 inputs); the event counted is the
/// assembly's where `asm`, the portable code's otherwise.
fn p384_sqr(a: &[u64], asm: bool) -> Trace {
    let p = &p384_field::P;
    let sq = mul_words(a, a);
    // Assembly: L alone.
    let mut window = sq[..6].to_vec();
    window.push(0);
    let mut asm_events = Vec::new();
    for name in STEP_EVENTS {
        asm_events.push((name, p384_step(&mut window)));
    }
    assert_eq!(window[6], 0, "the short window stays below 2^384");
    let mut sum = window[..6].to_vec();
    let mut c = 0;
    for (k, s) in sum.iter_mut().enumerate() {
        let (x, cc) = adc(*s, sq[6 + k], c);
        *s = x;
        c = cc;
    }
    let asm_result = reduce_once(&sum, c, p);
    // Portable: the steps on the whole product.
    let mut whole = sq.clone();
    let mut portable_events = Vec::new();
    for name in STEP_EVENTS {
        portable_events.push((name, p384_step(&mut whole)));
    }
    assert!(whole[7..].iter().all(|&w| w == 0));
    let portable_result = reduce_once(&whole[..6], whole[6], p);
    assert_eq!(asm_result, portable_result);
    if sq[6..].iter().all(|&w| w == 0) {
        assert!(asm_events == portable_events);
    }
    Trace {
        result: asm_result,
        events: if asm { asm_events } else { portable_events },
    }
}

/// The P-256 product (`p256_mul_body`, portable `mont_mul`, multiplier `w = t0`): the
/// unreduced value before the final subtraction, whose low word is all ones when
/// `sub rax, -1` (portable: `sbb(r[0], p[0])`) does not borrow.
fn p256_mul(a: &[u64], b: &[u64]) -> Trace {
    let p = &p256_field::P;
    let mut acc = mul_words(a, b);
    acc.push(0);
    for i in 0..4 {
        let w = acc[i];
        let wp = mul_words(&[w], p);
        let mut c = 0;
        for k in 0..acc.len() - i {
            let (x, cc) = adc(acc[i + k], wp.get(k).copied().unwrap_or(0), c);
            acc[i + k] = x;
            c = cc;
        }
        assert_eq!(c, 0);
    }
    let u = &acc[4..];
    Trace {
        result: reduce_once(&u[..4], u[4], p),
        events: vec![("final low word all ones", u[0] == MAX)],
    }
}

fn model(op: Op, args: &[&[u64]], asm: bool) -> Trace {
    match op {
        Op::P384Mul => p384_mul(args[0], args[1]),
        Op::P384Sqr => p384_sqr(args[0], asm),
        Op::P256Mul => p256_mul(args[0], args[1]),
        Op::P384Double | Op::P256Double => double(op, args[0], args[1], args[2], asm),
    }
}

// ---- the backends -----------------------------------------------------------------------------

fn arr<const N: usize>(v: &[u64]) -> [u64; N] {
    v.try_into().expect("limb count")
}

/// The operation on the backend the process selected, through the field and point types.
fn run_selected(op: Op, args: &[&[u64]]) -> Vec<u64> {
    use super::JacobianPoint;
    match op {
        Op::P384Mul => (P384Fe(arr(args[0])) * P384Fe(arr(args[1]))).0.to_vec(),
        Op::P384Sqr => P384Fe(arr(args[0])).square().0.to_vec(),
        Op::P256Mul => (P256Fe(arr(args[0])) * P256Fe(arr(args[1]))).0.to_vec(),
        Op::P384Double => {
            let [x, y, z] = [0, 1, 2].map(|i| P384Fe(arr(args[i])));
            let d = JacobianPoint::<p384::NistP384> { x, y, z }.double();
            [d.x.0, d.y.0, d.z.0].concat()
        }
        Op::P256Double => {
            let [x, y, z] = [0, 1, 2].map(|i| P256Fe(arr(args[i])));
            let d = JacobianPoint::<p256::NistP256> { x, y, z }.double();
            [d.x.0, d.y.0, d.z.0].concat()
        }
    }
}

/// The operation on the portable code, whatever the process selected (the doubling: its
/// formula on the portable operations, as the portable backend runs it).
fn run_portable(op: Op, args: &[&[u64]]) -> Vec<u64> {
    use p256_field::portable as q256;
    use p384_field::portable as q384;
    match op {
        Op::P384Mul => q384::mont_mul(&arr(args[0]), &arr(args[1])).to_vec(),
        Op::P384Sqr => q384::mont_sqr(&arr(args[0])).to_vec(),
        Op::P256Mul => q256::mont_mul(&arr(args[0]), &arr(args[1])).to_vec(),
        Op::P384Double | Op::P256Double => double(op, args[0], args[1], args[2], false).result,
    }
}

/// The operation on the assembly, when this CPU runs it (and it is not forced off).
#[cfg(target_arch = "x86_64")]
fn run_asm(op: Op, args: &[&[u64]]) -> Option<Vec<u64>> {
    let adx = super::adx::get()?;
    Some(match op {
        Op::P384Mul => adx.p384_mont_mul(&arr(args[0]), &arr(args[1])).to_vec(),
        Op::P384Sqr => adx.p384_mont_sqr(&arr(args[0])).to_vec(),
        Op::P256Mul => adx.p256_mont_mul(&arr(args[0]), &arr(args[1])).to_vec(),
        Op::P384Double => {
            let [x, y, z] = [0, 1, 2].map(|i| arr::<6>(args[i]));
            adx.p384_double([&x, &y, &z]).concat()
        }
        Op::P256Double => {
            let [x, y, z] = [0, 1, 2].map(|i| arr::<4>(args[i]));
            adx.p256_double([&x, &y, &z]).concat()
        }
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn run_asm(_: Op, _: &[&[u64]]) -> Option<Vec<u64>> {
    None
}

/// Whether the process runs the assembly.
fn selected_is_asm() -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::adx::get().is_some();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

fn below_p(op: Op, v: &[u64]) -> bool {
    if op.limbs() == 6 {
        less(v, &p384_field::P)
    } else {
        less(v, &p256_field::P)
    }
}

fn random_below_p(op: Op, rng: &mut impl Rng) -> Vec<u64> {
    loop {
        let v: Vec<u64> = (0..op.limbs()).map(|_| rng.random()).collect();
        if below_p(op, &v) {
            return v;
        }
    }
}

// ---- the tests --------------------------------------------------------------------------------

/// Every directed input is below `p`, produces its event in the model, and gives the oracle's
/// result on the assembly (where it runs) and on the portable code.
#[test]
fn directed_carry_inputs_on_both_backends() {
    let mut asm_ran = 0;
    for c in CASES {
        assert_eq!(c.args.len(), c.op.arity());
        assert!(c.args.iter().all(|a| below_p(c.op, a)), "{}", c.path);
        let expect = oracle(c.op, c.args);
        for asm in [true, false] {
            let t = model(c.op, c.args, asm);
            assert_eq!(t.result, expect, "{} model {:x?}", c.path, c.args);
            let listed = required(c.path, asm).contains(&c.event);
            let hit = t.events.iter().any(|&(e, v)| e == c.event && v);
            // An assembly-only event (the fold's) is not the portable code's.
            assert!(
                hit || !listed,
                "{} ({}) does not produce {:?}",
                c.path,
                if asm { "asm" } else { "portable" },
                c.event
            );
            if asm {
                assert!(hit, "{} does not produce {:?}", c.path, c.event);
            }
        }
        assert_eq!(run_portable(c.op, c.args), expect, "{} portable", c.path);
        if let Some(r) = run_asm(c.op, c.args) {
            assert_eq!(r, expect, "{} assembly {:x?}", c.path, c.args);
            asm_ran += 1;
        }
    }
    eprintln!(
        "carry: {} directed inputs, {asm_ran} of them on the assembly",
        CASES.len()
    );
}

/// The coverage check (see the module docs): on the selected backend, both outcomes of every
/// listed carry over 2,000 random inputs per path plus the directed ones, each result equal
/// to the model's (and, for the first 20 and the directed ones, the oracle's).
#[test]
fn carry_coverage() {
    let asm = selected_is_asm();
    let backend = if asm { "assembly" } else { "portable" };
    let drop = std::env::var("CARRY_COVERAGE_DROP").unwrap_or_default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xca77);
    // (path, event) -> [seen false, seen true]
    let mut seen: BTreeMap<(&str, &str), [bool; 2]> = BTreeMap::new();
    let mut record = |path: &'static str, op: Op, args: &[&[u64]]| {
        let t = model(op, args, asm);
        let got = run_selected(op, args);
        assert_eq!(got, t.result, "{path} {backend} vs model {args:x?}");
        for (e, v) in t.events {
            if required(path, asm).contains(&e) {
                seen.entry((path, e)).or_default()[usize::from(v)] = true;
            }
        }
    };
    for path in PATHS {
        let op = path_op(path);
        for i in 0..2000 {
            let args: Vec<Vec<u64>> = (0..op.arity())
                .map(|_| random_below_p(op, &mut rng))
                .collect();
            let args: Vec<&[u64]> = args.iter().map(Vec::as_slice).collect();
            if i < 20 {
                assert_eq!(run_selected(op, &args), oracle(op, &args));
            }
            record(path, op, &args);
        }
        for c in CASES.iter().filter(|c| c.path == path && c.path != drop) {
            assert_eq!(run_selected(c.op, c.args), oracle(c.op, c.args));
            record(path, c.op, c.args);
        }
    }
    let mut taken = 0;
    let mut missing = Vec::new();
    for path in PATHS {
        let miss: Vec<&str> = required(path, asm)
            .into_iter()
            .filter(|e| seen.get(&(path, e)) != Some(&[true, true]))
            .collect();
        if miss.is_empty() {
            println!(
                "carry: {path} taken on {backend}: {}",
                required(path, asm).join(", ")
            );
            taken += 1;
        } else {
            println!("carry: {path} NOT taken on {backend}: {}", miss.join(", "));
            missing.push(path);
        }
    }
    println!("carry: {taken} of {} paths taken on {backend}", PATHS.len());
    assert!(
        missing.is_empty(),
        "carry paths not taken on {backend}: {missing:?}"
    );
}

/// The fuzz seed corpora hold the field-operation inputs (T5-T7) as the fuzz targets read them
/// (two canonical field encodings whose Montgomery forms are the raw limbs; `diff_p256_field`,
/// `diff_p384_field`; the doubling inputs are not field-target inputs). `CARRY_WRITE_SEEDS=1`
/// writes the files.
#[test]
fn fuzz_seeds_hold_the_directed_inputs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus");
    let write = std::env::var_os("CARRY_WRITE_SEEDS").is_some();
    // The published crate leaves `fuzz/` out: there only the encodings are checked. In the
    // repository the corpus is there and a missing or stale seed fails.
    let corpus = std::path::Path::new(dir).is_dir();
    for (k, c) in CASES.iter().enumerate() {
        if matches!(c.op, Op::P384Double | Op::P256Double) {
            continue;
        }
        let (a, b) = (c.args[0], *c.args.get(1).unwrap_or(&c.args[0]));
        let (target, bytes) = if c.op.limbs() == 6 {
            let enc = |v: &[u64]| P384Fe(arr(v)).to_bytes().to_vec();
            ("diff_p384_field", [enc(a), enc(b)].concat())
        } else {
            let enc = |v: &[u64]| P256Fe(arr(v)).to_bytes().to_vec();
            ("diff_p256_field", [enc(a), enc(b)].concat())
        };
        let path = format!("{dir}/{target}/carry-{}-{k:02}", c.path);
        if write {
            std::fs::write(&path, &bytes).expect("write seed");
        }
        if corpus {
            let have = std::fs::read(&path).unwrap_or_else(|_| panic!("missing seed {path}"));
            assert_eq!(have, bytes, "{path}");
        }
        // Decoding the encoding gives back the raw limbs.
        if c.op.limbs() == 6 {
            let fe = P384Fe::from_bytes(&arr_u8(&bytes[..48])).unwrap();
            assert_eq!(fe.0.to_vec(), a);
        } else {
            let fe = P256Fe::from_bytes(&arr_u8(&bytes[..32])).unwrap();
            assert_eq!(fe.0.to_vec(), a);
        }
    }
}

fn arr_u8<const N: usize>(v: &[u8]) -> [u8; N] {
    v.try_into().expect("length")
}
