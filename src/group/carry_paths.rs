//! The rare carry paths of the field arithmetic, T1-T7 of the arithmetic review
//! (`specs/arith-review.md` section 3), driven on purpose: raw Montgomery limbs (below `p`)
//! that make each path's carry or borrow happen, run through both backends (the x86-64 assembly
//! and the portable code) and checked against a big-integer oracle.
//!
//! Random inputs reach these paths with probability about `2^-34` or less, so neither the
//! differential tests nor the fuzzers do. Whether an input takes a path is decided by a model
//! of the routine's carry chain written here word by word (the assembly's flags cannot be read
//! from Rust): each model also computes the routine's result, which must equal what the running
//! backend returns for every input, directed and random. The accumulators the paths are defined
//! on are the same integers in both backends (the same Montgomery multipliers and the same
//! folded values); where a path is an instruction of one backend only (T3/T4's borrow into the
//! carry word is in the assembly's order of operations), the model says so.
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
    P384Times4,
    P384Times8,
    P256Times4,
    P256Times8,
    P384Mul,
    P384Sqr,
    P256Mul,
}

impl Op {
    fn limbs(self) -> usize {
        match self {
            Op::P384Times4 | Op::P384Times8 | Op::P384Mul | Op::P384Sqr => 6,
            _ => 4,
        }
    }
}

/// A directed input: the path, the operation, the raw limbs and the event it must produce.
struct Case {
    path: &'static str,
    op: Op,
    a: &'static [u64],
    b: &'static [u64],
    event: &'static str,
}

macro_rules! case {
    ($path:literal, $op:ident, $a:expr, $event:literal) => {
        Case {
            path: $path,
            op: Op::$op,
            a: &$a,
            b: &[],
            event: $event,
        }
    };
    ($path:literal, $op:ident, $a:expr, $b:expr, $event:literal) => {
        Case {
            path: $path,
            op: Op::$op,
            a: &$a,
            b: &$b,
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

/// The review's inputs (section 3), plus a P-256 fold that carries into the top word.
#[rustfmt::skip]
const CASES: &[Case] = &[
    // T1: P-384 times4, the fold's carry through words 2..5 into the top word, and the folded
    // value in [p, 2^384).
    case!("T1", P384Times4, [MAX, MAX, MAX, MAX, MAX, 0x7fff_ffff_ffff_ffff], "top-word carry"),
    case!("T1", P384Times4, [MAX, MAX, MAX, MAX, MAX, 0xbfff_ffff_ffff_ffff], "top-word carry"),
    case!("T1", P384Times4, [MAX, MAX, MAX, MAX, MAX, 0x3fff_ffff_ffff_ffff], "in [p, 2^n)"),
    // T2: the same in P-384 times8.
    case!("T2", P384Times8, [MAX, MAX, MAX, MAX, MAX, 0x3fff_ffff_ffff_ffff], "top-word carry"),
    case!("T2", P384Times8, [MAX, MAX, MAX, MAX, MAX, 0x7fff_ffff_ffff_ffff], "top-word carry"),
    case!("T2", P384Times8, [MAX, MAX, MAX, MAX, MAX, 0xdfff_ffff_ffff_ffff], "top-word carry"),
    case!("T2", P384Times8, [MAX, MAX, MAX, MAX, MAX, 0x1fff_ffff_ffff_ffff], "in [p, 2^n)"),
    // T3: P-256 times4: the folded value in [p, 2^256), the borrow of -t 2^96 into the carry
    // word (assembly), the low word all ones after the fold, and the fold's carry out of the top
    // word (not in the review's list; also about 2^-32 for random inputs).
    case!("T3", P256Times4, [MAX, MAX, MAX, 0x3fff_ffff_ffff_ffff], "in [p, 2^n)"),
    case!("T3", P256Times4, [MAX, 0x3fff_ffff, 0x4000_0000_0000_0000, 0x7fff_ffff_c000_0000], "borrow into the carry word"),
    case!("T3", P256Times4, [MAX, 0x7fff_ffff, 0x8000_0000_0000_0000, 0xbfff_ffff_8000_0000], "borrow into the carry word"),
    case!("T3", P256Times4, [0x3fff_ffff_ffff_ffff, 0, 0, 0xc000_0000_0000_0000], "low word all ones"),
    case!("T3", P256Times4, [MAX, MAX, MAX, 0x7fff_ffff_ffff_ffff], "top-word carry"),
    // T4: the same in P-256 times8.
    case!("T4", P256Times8, [MAX, MAX, MAX, 0x1fff_ffff_ffff_ffff], "in [p, 2^n)"),
    case!("T4", P256Times8, [MAX, 0x1fff_ffff, 0x2000_0000_0000_0000, 0x3fff_ffff_e000_0000], "borrow into the carry word"),
    case!("T4", P256Times8, [MAX, 0x3fff_ffff, 0x4000_0000_0000_0000, 0x5fff_ffff_c000_0000], "borrow into the carry word"),
    case!("T4", P256Times8, [0x1fff_ffff_ffff_ffff, 0, 0, 0xe000_0000_0000_0000], "low word all ones"),
    case!("T4", P256Times8, [MAX, MAX, MAX, 0x3fff_ffff_ffff_ffff], "top-word carry"),
    // T5: P-384 product, the borrow of -w c reaching w - 1 in reduction step i + 1 for
    // b = e_i (limb i one), and for the swapped pair (the multipliers are 0 until then).
    case!("T5", P384Mul, ONE384, E384[0], "step 1 borrow"),
    case!("T5", P384Mul, ONE384, E384[1], "step 2 borrow"),
    case!("T5", P384Mul, ONE384, E384[2], "step 3 borrow"),
    case!("T5", P384Mul, ONE384, E384[3], "step 4 borrow"),
    case!("T5", P384Mul, ONE384, E384[4], "step 5 borrow"),
    case!("T5", P384Mul, ONE384, E384[5], "step 6 borrow"),
    case!("T5", P384Mul, E384[2], ONE384, "step 3 borrow"),
    case!("T5", P384Mul, E384[3], ONE384, "step 4 borrow"),
    case!("T5", P384Mul, E384[4], ONE384, "step 5 borrow"),
    case!("T5", P384Mul, E384[5], ONE384, "step 6 borrow"),
    // T6: P-384 squaring, the full borrow into w - 1 in short-reduction step k + 1 for
    // a = 2^(32 k) (a^2 = 2^(64 k)).
    case!("T6", P384Sqr, [1 << 32, 0, 0, 0, 0, 0], "step 2 borrow"),
    case!("T6", P384Sqr, [0, 1, 0, 0, 0, 0], "step 3 borrow"),
    case!("T6", P384Sqr, [0, 1 << 32, 0, 0, 0, 0], "step 4 borrow"),
    case!("T6", P384Sqr, [0, 0, 1, 0, 0, 0], "step 5 borrow"),
    case!("T6", P384Sqr, [0, 0, 1 << 32, 0, 0, 0], "step 6 borrow"),
    // T7: P-256 product whose unreduced value is 2^64 + p: the final subtraction's low word
    // all ones (`sub rax, -1` without borrow).
    case!("T7", P256Mul,
        [0x91b7_584a_2265_b1f6, 0xcd61_3e30_d8f1_6adf, 0x1027_c4d1_c386_bbc4, 0x1e2f_eb89_414c_343c],
        [0x99de_0c68_fce3_3306, 0xc333_ccb3_07bb_2ad5, 0x43d1_0fec_37d7_44a0, 0x7e46_09cb_1d67_9034],
        "final low word all ones"),
];

/// The events each path must show on a backend (`asm`: the assembly, else the portable code).
fn required(path: &str, asm: bool) -> Vec<&'static str> {
    match path {
        "T1" | "T2" => vec!["top-word carry", "in [p, 2^n)"],
        "T3" | "T4" if asm => vec![
            "in [p, 2^n)",
            "borrow into the carry word",
            "low word all ones",
            "top-word carry",
        ],
        // The portable fold adds t c limb by limb: no separate borrow of -t 2^96.
        "T3" | "T4" => vec!["in [p, 2^n)", "low word all ones", "top-word carry"],
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
        _ => unreachable!(),
    }
}

const PATHS: [&str; 7] = ["T1", "T2", "T3", "T4", "T5", "T6", "T7"];

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

    /// What the oracle says the operation returns.
    pub(super) fn oracle(op: Op, a: &[u64], b: &[u64]) -> Vec<u64> {
        let p: &[u64] = if op.limbs() == 6 {
            &p384_field::P
        } else {
            &p256_field::P
        };
        let n = p.len();
        match op {
            Op::P384Times4 | Op::P256Times4 | Op::P384Times8 | Op::P256Times8 => {
                let k = if matches!(op, Op::P384Times4 | Op::P256Times4) {
                    4
                } else {
                    8
                };
                mod_p(&mul_words(a, &[k]), p)
            }
            Op::P384Mul | Op::P256Mul | Op::P384Sqr => {
                let b = if op == Op::P384Sqr { a } else { b };
                // x = a b / R: the x below p with x R = a b (mod p).
                let target = mod_p(&mul_words(a, b), p);
                let r_inv = {
                    // R^-1 = (p + 1)/2 ^ (64 n): halve 64 n times.
                    let mut v = vec![0u64; n];
                    v[0] = 1;
                    for _ in 0..64 * n {
                        let odd = v[0] & 1 == 1;
                        let mut w = v.clone();
                        if odd {
                            let mut c = 0u128;
                            for k in 0..n {
                                let s = u128::from(w[k]) + u128::from(p[k]) + c;
                                w[k] = s as u64;
                                c = s >> 64;
                            }
                            w.push(c as u64);
                        } else {
                            w.push(0);
                        }
                        for k in 0..n {
                            v[k] = (w[k] >> 1) | (w[k + 1] << 63);
                        }
                    }
                    v
                };
                mod_p(&mul_words(&target, &r_inv), p)
            }
        }
    }
}

use tests::{less, mul_words, oracle};

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

/// The shifted limbs of `2^j a` and the shifted-out word `t`.
fn shift(a: &[u64], j: u32) -> (Vec<u64>, u64) {
    let n = a.len();
    let t = a[n - 1] >> (64 - j);
    let mut v = vec![0u64; n];
    for i in (1..n).rev() {
        v[i] = (a[i] << j) | (a[i - 1] >> (64 - j));
    }
    v[0] = a[0] << j;
    (v, t)
}

/// P-384 `times4`/`times8` (`adx.rs` `p384_shl`, `limbs::shl_mod`): `v + t c`, `c` with limbs
/// `0xffffffff00000001`, `0xffffffff`, 1, both backends adding it word by word.
fn p384_fold(a: &[u64], j: u32) -> Trace {
    let p = &p384_field::P;
    let (mut v, t) = shift(a, j);
    let lo = u128::from(t) * 0xffff_ffff_0000_0001u128;
    let word1 = (lo >> 64) as u64 + t * 0xffff_ffff;
    let (x, c) = adc(v[0], lo as u64, 0);
    v[0] = x;
    let (x, c) = adc(v[1], word1, c);
    v[1] = x;
    let (x, mut c) = adc(v[2], t, c);
    v[2] = x;
    for w in v.iter_mut().skip(3) {
        let (x, cc) = adc(*w, 0, c);
        *w = x;
        c = cc;
    }
    let top = c;
    Trace {
        result: reduce_once(&v, top, p),
        events: vec![
            ("top-word carry", top == 1),
            ("in [p, 2^n)", top == 0 && !less(&v, p)),
        ],
    }
}

/// P-256 `times4`/`times8` in the assembly's order (`adx.rs` `p256_shl`): `+ t` at word 0 and
/// `+ t (2^32 - 1)` at word 3 with the carry into the carry word, then `- t 2^32` at word 1,
/// whose borrow can run through words 2..3 into that carry word. The folded value (and so the
/// value events) is the portable `shl_mod`'s too.
fn p256_fold(a: &[u64], j: u32) -> Trace {
    let p = &p256_field::P;
    let (v, t) = shift(a, j);
    let rax = t << 32;
    let rdi = rax - t;
    let (r8, c) = adc(v[0], t, 0);
    let (r9, c) = adc(v[1], 0, c);
    let (r10, c) = adc(v[2], 0, c);
    let (r11, c) = adc(v[3], rdi, c);
    let rdx = c;
    let (r9, b) = sbb(r9, rax, 0);
    let (r10, b) = sbb(r10, 0, b);
    let (r11, into_carry_word) = sbb(r11, 0, b);
    let (rdx, b) = sbb(rdx, 0, into_carry_word);
    assert_eq!(b, 0, "the whole of t c is positive");
    let folded = [r8, r9, r10, r11];
    Trace {
        result: reduce_once(&folded, rdx, p),
        events: vec![
            ("in [p, 2^n)", rdx == 0 && !less(&folded, p)),
            ("borrow into the carry word", into_carry_word == 1),
            ("low word all ones", r8 == MAX),
            ("top-word carry", rdx == 1),
        ],
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

fn model(op: Op, a: &[u64], b: &[u64], asm: bool) -> Trace {
    match op {
        Op::P384Times4 => p384_fold(a, 2),
        Op::P384Times8 => p384_fold(a, 3),
        Op::P256Times4 => p256_fold(a, 2),
        Op::P256Times8 => p256_fold(a, 3),
        Op::P384Mul => p384_mul(a, b),
        Op::P384Sqr => p384_sqr(a, asm),
        Op::P256Mul => p256_mul(a, b),
    }
}

// ---- the backends -----------------------------------------------------------------------------

fn arr<const N: usize>(v: &[u64]) -> [u64; N] {
    v.try_into().expect("limb count")
}

/// The operation on the backend the process selected, through the field types.
fn run_selected(op: Op, a: &[u64], b: &[u64]) -> Vec<u64> {
    match op {
        Op::P384Times4 => P384Fe(arr(a)).times4().0.to_vec(),
        Op::P384Times8 => P384Fe(arr(a)).times8().0.to_vec(),
        Op::P256Times4 => P256Fe(arr(a)).times4().0.to_vec(),
        Op::P256Times8 => P256Fe(arr(a)).times8().0.to_vec(),
        Op::P384Mul => (P384Fe(arr(a)) * P384Fe(arr(b))).0.to_vec(),
        Op::P384Sqr => P384Fe(arr(a)).square().0.to_vec(),
        Op::P256Mul => (P256Fe(arr(a)) * P256Fe(arr(b))).0.to_vec(),
    }
}

/// The operation on the portable code, whatever the process selected.
fn run_portable(op: Op, a: &[u64], b: &[u64]) -> Vec<u64> {
    use p256_field::portable as q256;
    use p384_field::portable as q384;
    match op {
        Op::P384Times4 => q384::times4(&arr(a)).to_vec(),
        Op::P384Times8 => q384::times8(&arr(a)).to_vec(),
        Op::P256Times4 => q256::times4(&arr(a)).to_vec(),
        Op::P256Times8 => q256::times8(&arr(a)).to_vec(),
        Op::P384Mul => q384::mont_mul(&arr(a), &arr(b)).to_vec(),
        Op::P384Sqr => q384::mont_sqr(&arr(a)).to_vec(),
        Op::P256Mul => q256::mont_mul(&arr(a), &arr(b)).to_vec(),
    }
}

/// The operation on the assembly, when this CPU runs it (and it is not forced off).
#[cfg(target_arch = "x86_64")]
fn run_asm(op: Op, a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let adx = super::adx::get()?;
    Some(match op {
        Op::P384Times4 => adx.p384_times4(&arr(a)).to_vec(),
        Op::P384Times8 => adx.p384_times8(&arr(a)).to_vec(),
        Op::P256Times4 => adx.p256_times4(&arr(a)).to_vec(),
        Op::P256Times8 => adx.p256_times8(&arr(a)).to_vec(),
        Op::P384Mul => adx.p384_mont_mul(&arr(a), &arr(b)).to_vec(),
        Op::P384Sqr => adx.p384_mont_sqr(&arr(a)).to_vec(),
        Op::P256Mul => adx.p256_mont_mul(&arr(a), &arr(b)).to_vec(),
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn run_asm(_: Op, _: &[u64], _: &[u64]) -> Option<Vec<u64>> {
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
        assert!(below_p(c.op, c.a) && (c.b.is_empty() || below_p(c.op, c.b)));
        let expect = oracle(c.op, c.a, c.b);
        for asm in [true, false] {
            let t = model(c.op, c.a, c.b, asm);
            assert_eq!(t.result, expect, "{} model {:x?} {:x?}", c.path, c.a, c.b);
            let hit = t.events.iter().any(|&(e, v)| e == c.event && v);
            assert!(
                hit,
                "{} ({}) does not produce {:?}",
                c.path,
                if asm { "asm" } else { "portable" },
                c.event
            );
        }
        assert_eq!(run_portable(c.op, c.a, c.b), expect, "{} portable", c.path);
        if let Some(r) = run_asm(c.op, c.a, c.b) {
            assert_eq!(r, expect, "{} assembly {:x?} {:x?}", c.path, c.a, c.b);
            asm_ran += 1;
        }
    }
    eprintln!(
        "carry: {} directed inputs, {asm_ran} of them on the assembly",
        CASES.len()
    );
}

/// The coverage check (see the module docs): on the selected backend, both outcomes of every
/// listed carry over 2,000 random inputs per operation plus the directed ones, each result equal
/// to the model's and the oracle's.
#[test]
fn carry_coverage() {
    let asm = selected_is_asm();
    let backend = if asm { "assembly" } else { "portable" };
    let drop = std::env::var("CARRY_COVERAGE_DROP").unwrap_or_default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xca77);
    // (path, event) -> [seen false, seen true]
    let mut seen: BTreeMap<(&str, &str), [bool; 2]> = BTreeMap::new();
    let mut record = |path: &'static str, op: Op, a: &[u64], b: &[u64]| {
        let t = model(op, a, b, asm);
        let got = run_selected(op, a, b);
        assert_eq!(got, t.result, "{path} {backend} vs model {a:x?} {b:x?}");
        for (e, v) in t.events {
            if required(path, asm).contains(&e) {
                seen.entry((path, e)).or_default()[usize::from(v)] = true;
            }
        }
    };
    for path in PATHS {
        let op = path_op(path);
        for i in 0..2000 {
            let a = random_below_p(op, &mut rng);
            let b = random_below_p(op, &mut rng);
            if i < 20 {
                assert_eq!(run_selected(op, &a, &b), oracle(op, &a, &b));
            }
            record(path, op, &a, &b);
        }
        for c in CASES.iter().filter(|c| c.path == path && c.path != drop) {
            assert_eq!(run_selected(c.op, c.a, c.b), oracle(c.op, c.a, c.b));
            record(path, c.op, c.a, c.b);
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
            println!("carry: {path} taken on {backend}");
            taken += 1;
        } else {
            println!("carry: {path} NOT taken on {backend}: {}", miss.join(", "));
            missing.push(path);
        }
    }
    println!("carry: {taken} of 7 paths taken on {backend}");
    assert!(
        missing.is_empty(),
        "carry paths not taken on {backend}: {missing:?}"
    );
}

/// The fuzz seed corpora hold the directed inputs as the fuzz targets read them (two canonical
/// field encodings whose Montgomery forms are the raw limbs; `diff_p256_field`,
/// `diff_p384_field`). `CARRY_WRITE_SEEDS=1` writes the files.
#[test]
fn fuzz_seeds_hold_the_directed_inputs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus");
    let write = std::env::var_os("CARRY_WRITE_SEEDS").is_some();
    // The published crate leaves `fuzz/` out: there only the encodings are checked. In the
    // repository the corpus is there and a missing or stale seed fails.
    let corpus = std::path::Path::new(dir).is_dir();
    for (k, c) in CASES.iter().enumerate() {
        let b = if c.b.is_empty() { c.a } else { c.b };
        let (target, bytes) = if c.op.limbs() == 6 {
            let enc = |v: &[u64]| P384Fe(arr(v)).to_bytes().to_vec();
            ("diff_p384_field", [enc(c.a), enc(b)].concat())
        } else {
            let enc = |v: &[u64]| P256Fe(arr(v)).to_bytes().to_vec();
            ("diff_p256_field", [enc(c.a), enc(b)].concat())
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
            assert_eq!(fe.0.to_vec(), c.a);
        } else {
            let fe = P256Fe::from_bytes(&arr_u8(&bytes[..32])).unwrap();
            assert_eq!(fe.0.to_vec(), c.a);
        }
    }
}

fn arr_u8<const N: usize>(v: &[u8]) -> [u8; N] {
    v.try_into().expect("length")
}
