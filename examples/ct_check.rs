//! A dudect-style statistical constant-time check over the secret-dependent paths of the crate
//! (Reparaz, Balasch and Verbauwhede, "Dude, is my code constant time?", DATE 2017).
//!
//! ```text
//! cargo run --release --example ct_check -- --seconds 2
//! cargo run --release --example ct_check -- --seconds 10 --only trust_token/ --verbose
//! cargo run --release --example ct_check -- --list
//! cargo run --release --example ct_check -- --controls --only control/
//! ```
//!
//! Every path runs one operation on inputs of two classes of a secret (class A: an edge value,
//! a low-weight key, bit 0, ...; class B: uniformly random values, bit 1, ...), with the public
//! inputs drawn from one pool for both classes. Per batch the classes are drawn at random and
//! interleaved, the inputs are prepared before the timed loop, and each call is timed alone
//! (`std::time::Instant`, nanoseconds; the fast field operations repeat 32 times per
//! measurement). Welch's t-test then compares the two classes: on all measurements and on the
//! measurements below each of dudect's 100 percentile crops (`1 - 0.5^(10 (i + 1) / 100)`), and
//! the largest `|t|` is reported. `|t| >= 4.5` rejects the hypothesis "the two classes take the
//! same time" with overwhelming confidence: the program then exits with status 1.
//!
//! Options: `--seconds S` (per path, default 1), `--only SUBSTRING` (repeatable; paths whose
//! name contains any of them), `--all` (every path; by default a set of about 50 covering every
//! protocol path, see `in_default_set`), `--controls` (also run the positive controls, which
//! must leak: a variable-time multiplication and the multi-point ladder with a blind the
//! attacker knows on a chosen point relation), `--verbose` (class means and the crop of the
//! maximum), `--seed N`, `--list`.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use elliptic_curve::bigint::{NonZero, U1024};
use elliptic_curve::ff::{Field, PrimeField};
use privacy_tokens::arc::{
    ArcSuite, ArcV2P256, Credential, CredentialRequest, ScalarSource, ServerPrivateKey,
};
use privacy_tokens::group::{
    self, Curve, FieldOps, FixedBaseTable, LadderBlind, Point, Scalar, Xmd,
};
use privacy_tokens::trust_token::{self, Method};
use privacy_tokens::voprf::{
    BlindedElement, PoprfServer, PublicKey, SecretKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{act, hazmat};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};

/// dudect's threshold: `|t|` at or above it is a leak.
const THRESHOLD: f64 = 4.5;
/// Number of percentile crops.
const CROPS: usize = 100;
/// A crop counts only with at least this many measurements in each class.
const MIN_CROP: f64 = 50.0;
/// Size of the pools of public inputs and of keys per class.
const POOL: usize = 32;
/// Repetitions per measurement of the fast field operations.
const FIELD_REPS: usize = 32;

// ---------------------------------------------------------------------------------------------
// Statistics

/// Running mean and variance (Welford).
#[derive(Clone, Copy, Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn var(&self) -> f64 {
        if self.n > 1.0 {
            self.m2 / (self.n - 1.0)
        } else {
            0.0
        }
    }
}

/// Welch's t statistic of two samples.
fn welch(a: &Moments, b: &Moments) -> f64 {
    let se = (a.var() / a.n + b.var() / b.n).sqrt();
    if se > 0.0 {
        (a.mean - b.mean) / se
    } else if a.mean == b.mean {
        0.0
    } else {
        f64::INFINITY
    }
}

/// The result of one path.
struct Report {
    /// The largest `|t|` over the uncropped test and the crops.
    t: f64,
    /// Measurements (both classes).
    n: usize,
    /// The crop (fraction of the measurements kept) of the largest `|t|`.
    crop: f64,
    /// Mean time of class A and class B (ns, uncropped).
    means: [f64; 2],
}

/// Welch's t-test on all measurements and below each percentile crop.
fn analyse(samples: &[(u8, f64)]) -> Report {
    let mut all = [Moments::default(); 2];
    for &(c, x) in samples {
        all[usize::from(c)].push(x);
    }
    let mut best = (welch(&all[0], &all[1]).abs(), 1.0);
    let mut sorted = samples.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let len = sorted.len() as f64;
    let cuts: Vec<usize> = (0..CROPS)
        .map(|i| {
            let q = 1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / CROPS as f64);
            (q * len) as usize
        })
        .collect();
    let mut m = [Moments::default(); 2];
    let mut next = 0;
    for (i, &(c, x)) in sorted.iter().enumerate() {
        while next < cuts.len() && cuts[next] <= i {
            if m[0].n >= MIN_CROP && m[1].n >= MIN_CROP {
                let t = welch(&m[0], &m[1]).abs();
                if t > best.0 {
                    best = (t, i as f64 / len);
                }
            }
            next += 1;
        }
        m[usize::from(c)].push(x);
    }
    Report {
        t: best.0,
        n: samples.len(),
        crop: best.1,
        means: [all[0].mean, all[1].mean],
    }
}

// ---------------------------------------------------------------------------------------------
// Measurement

/// Command-line options.
struct Cfg {
    seconds: f64,
    only: Vec<String>,
    /// Run every path, not only the default set.
    all: bool,
    controls: bool,
    verbose: bool,
    list: bool,
    seed: u64,
}

impl Cfg {
    fn rng(&self) -> StdRng {
        StdRng::seed_from_u64(self.seed)
    }
}

/// Times `op` on inputs of the two classes made by `gen` (class 0 = A, 1 = B) for about
/// `cfg.seconds`: batches of randomly interleaved classes, inputs prepared before each batch's
/// timed loop, the first batch discarded as warm-up.
fn measure<I, O>(
    cfg: &Cfg,
    mut gen: impl FnMut(&mut StdRng, usize) -> I,
    mut op: impl FnMut(I) -> O,
) -> Report {
    let mut rng = StdRng::seed_from_u64(cfg.seed ^ 0x0dd0_c0de);
    let budget = Duration::from_secs_f64(cfg.seconds);
    let start = Instant::now();
    let mut samples: Vec<(u8, f64)> = Vec::new();
    let mut batch = 4usize;
    let mut warm_up = true;
    loop {
        let classes: Vec<u8> = (0..batch).map(|_| rng.random_range(0..2u8)).collect();
        let inputs: Vec<I> = classes
            .iter()
            .map(|&c| gen(&mut rng, usize::from(c)))
            .collect();
        let mut times = Vec::with_capacity(batch);
        let batch_start = Instant::now();
        for input in inputs {
            let t0 = Instant::now();
            let out = black_box(op(black_box(input)));
            let dt = t0.elapsed();
            drop(out);
            times.push(dt.as_nanos() as f64);
        }
        let batch_time = batch_start.elapsed();
        if !warm_up {
            samples.extend(classes.into_iter().zip(times));
        }
        warm_up = false;
        let elapsed = start.elapsed();
        if (elapsed >= budget && samples.len() >= 200) || elapsed >= 4 * budget {
            break;
        }
        if batch_time * 16 < budget && batch < 1 << 14 {
            batch *= 2;
        }
    }
    analyse(&samples)
}

/// A path: a name and the function that sets it up and measures it.
struct Path {
    name: String,
    run: Box<dyn Fn(&Cfg) -> Report>,
}

fn path(name: impl Into<String>, run: impl Fn(&Cfg) -> Report + 'static) -> Path {
    Path {
        name: name.into(),
        run: Box::new(run),
    }
}

// ---------------------------------------------------------------------------------------------
// Secret classes

fn curve_name<C: Curve>() -> &'static str {
    if C::SCALAR_LEN == 32 {
        "p256"
    } else {
        "p384"
    }
}

/// The edge scalars of class A.
#[derive(Clone, Copy)]
enum Edge {
    Zero,
    One,
    MinusOne,
    MinusTwo,
    LowWeight,
    HighWeight,
}

const EDGES: [Edge; 6] = [
    Edge::Zero,
    Edge::One,
    Edge::MinusOne,
    Edge::MinusTwo,
    Edge::LowWeight,
    Edge::HighWeight,
];

impl Edge {
    fn name(self) -> &'static str {
        match self {
            Edge::Zero => "zero",
            Edge::One => "one",
            Edge::MinusOne => "n-1",
            Edge::MinusTwo => "n-2",
            Edge::LowWeight => "low-weight",
            Edge::HighWeight => "high-weight",
        }
    }

    fn scalar<C: Curve>(self, rng: &mut StdRng) -> Scalar<C> {
        let one = Scalar::<C>::ONE;
        match self {
            Edge::Zero => Scalar::<C>::ZERO,
            Edge::One => one,
            Edge::MinusOne => -one,
            Edge::MinusTwo => -one - one,
            // 6 bits set.
            Edge::LowWeight => flipped_bits::<C>(0x00, rng),
            // 6 bits clear, one of them in the top 32 bits (below n on both curves).
            Edge::HighWeight => flipped_bits::<C>(0xff, rng),
        }
    }
}

/// A scalar whose bytes are all `fill` except 6 flipped bits (the first in the top 32 bits).
fn flipped_bits<C: Curve>(fill: u8, rng: &mut StdRng) -> Scalar<C> {
    loop {
        let mut b = vec![fill; C::SCALAR_LEN];
        let bits = C::SCALAR_LEN * 8;
        for i in 0..6 {
            let bit = if i == 0 {
                rng.random_range(bits - 32..bits)
            } else {
                rng.random_range(0..bits)
            };
            b[C::SCALAR_LEN - 1 - bit / 8] ^= 1 << (bit % 8);
        }
        if let Ok(s) = group::decode_nonzero_scalar::<C>(&b) {
            return s;
        }
    }
}

/// Class A: the edge scalar; class B: a uniformly random scalar.
fn class_scalar<C: Curve>(edge: Edge, class: usize, rng: &mut StdRng) -> Scalar<C> {
    if class == 0 {
        edge.scalar::<C>(rng)
    } else {
        group::random_scalar::<C>(rng)
    }
}

/// Class A: a low-weight non-zero scalar; class B: a uniformly random one.
fn low_weight_or_random<C: Curve>(class: usize, rng: &mut StdRng) -> Scalar<C> {
    class_scalar::<C>(Edge::LowWeight, class, rng)
}

fn random_points<C: Curve>(rng: &mut StdRng) -> Vec<Point<C>> {
    (0..POOL)
        .map(|_| group::mul_generator::<C>(&group::random_scalar::<C>(rng)))
        .collect()
}

fn pick<T: Copy>(pool: &[T], rng: &mut StdRng) -> T {
    pool[rng.random_range(0..pool.len())]
}

/// Signed radix-32 digits of a scalar, least significant first: the recoding of the crate's
/// constant-time ladders (`group/mul.rs`), reimplemented here on the public encoding.
fn signed_digits<C: Curve>(k: &Scalar<C>) -> Vec<i8> {
    let bytes = C::scalar_bytes(k);
    let be = bytes.as_ref();
    let bits = be.len() * 8;
    let bit = |i: usize| -> i32 {
        if i >= bits {
            0
        } else {
            i32::from((be[be.len() - 1 - i / 8] >> (i % 8)) & 1)
        }
    };
    let n = bits.div_ceil(5);
    let mut out = Vec::with_capacity(n + 1);
    let mut carry = 0i32;
    for j in 0..n {
        let mut v = carry;
        for b in 0..5 {
            v += bit(5 * j + b) << b;
        }
        carry = (v + 16) >> 5;
        out.push((v - (carry << 5)) as i8);
    }
    out.push(carry as i8);
    out
}

fn small_scalar<C: Curve>(d: i8) -> Scalar<C> {
    let s = Scalar::<C>::from(u64::from(d.unsigned_abs()));
    if d < 0 {
        -s
    } else {
        s
    }
}

/// The factor `c` for which an unblinded two-point ladder `x·T + y·S` with `S = c·T` (the
/// ladder of `group/ct_multi.rs` started at the identity) meets a table entry equal to its
/// accumulator, so that it would take the slow fallback: the timing oracle of the review.
/// The accumulator is tracked as `(a0 + a1·c)·T`; the first addition whose equality with the
/// accumulator can be solved for a non-zero `c` gives it.
///
/// `start` is the ladder's starting point in units of `T` (0 for an unblinded ladder; for a
/// blind `ρ` the attacker knows and `T = τ·G`, it is `ρ·τ^-1`).
fn chosen_relation<C: Curve>(x: &Scalar<C>, y: &Scalar<C>, start: Scalar<C>) -> Option<Scalar<C>> {
    let (dx, dy) = (signed_digits::<C>(x), signed_digits::<C>(y));
    let zero = Scalar::<C>::ZERO;
    let (mut a0, mut a1) = (start, zero);
    let top = dx.len() - 1;
    for pos in (0..dx.len()).rev() {
        if pos != top {
            let f = Scalar::<C>::from(32u64);
            a0 *= f;
            a1 *= f;
        }
        for (e0, e1) in [
            (small_scalar::<C>(dx[pos]), zero),
            (zero, small_scalar::<C>(dy[pos])),
        ] {
            let entry_zero = bool::from(e0.is_zero() & e1.is_zero());
            let acc_zero = bool::from(a0.is_zero() & a1.is_zero());
            if !entry_zero && !acc_zero {
                // acc = entry  <=>  (a0 - e0) + (a1 - e1)·c = 0.
                let c: Option<Scalar<C>> = (a1 - e1).invert().map(|inv| (e0 - a0) * inv).into();
                if let Some(c) = c.filter(|c| !bool::from(c.is_zero())) {
                    return Some(c);
                }
            }
            a0 += e0;
            a1 += e1;
        }
    }
    None
}

/// A zero blind is unrepresentable (`LadderBlind::from_secret` refuses it), so the control uses
/// a blind the attacker knows, `ρ = 1`: as good as none, since the relation can be solved for
/// the known start point.
const KNOWN_RHO: u64 = 1;

// ---------------------------------------------------------------------------------------------
// Ladders

/// `x·T + y·S` over an unblinded or blinded two-point ladder, class A `S = c·T` with the `c`
/// of [`chosen_relation`], class B `S` random.
/// With `known_rho`, the ladder's blind is that public `ρ` and class A's `c` is solved per call
/// for the known start point (`T = τ·G`, start `ρ·τ^-1` in units of `T`); without it the
/// blind is secret and random and class A uses the relation for an unblinded ladder (all an
/// attacker can compute).
fn chosen_point_path<C: Curve>(name: String, known_rho: Option<u64>) -> Path {
    path(name, move |cfg| {
        let mut rng = cfg.rng();
        let (x, y) = loop {
            let (x, y) = (
                group::random_scalar::<C>(&mut rng),
                group::random_scalar::<C>(&mut rng),
            );
            if chosen_relation::<C>(&x, &y, Scalar::<C>::ZERO).is_some() {
                break (x, y);
            }
        };
        let b = match known_rho {
            Some(rho) => LadderBlind::from_secret(&Scalar::<C>::from(rho)).expect("non-zero"),
            None => LadderBlind::random(&mut rng),
        };
        measure(
            cfg,
            |rng, class| loop {
                let tau = group::random_scalar::<C>(rng);
                let t = group::mul_generator::<C>(&tau);
                if class == 1 {
                    let s = group::mul_generator::<C>(&group::random_scalar::<C>(rng));
                    break [t, s];
                }
                let start = match known_rho {
                    Some(rho) => Scalar::<C>::from(rho) * tau.invert().unwrap(),
                    None => Scalar::<C>::ZERO,
                };
                if let Some(c) = chosen_relation::<C>(&x, &y, start) {
                    break [t, group::mul::<C>(&t, &c)];
                }
            },
            |p| group::mul_multi_ct::<C, 2>(&p, &[x, y], &b),
        )
    })
}

fn ladder_paths<C: Curve>(out: &mut Vec<Path>) {
    let c = curve_name::<C>();
    for edge in EDGES {
        let e = edge.name();
        let k = move |rng: &mut StdRng, class: usize| class_scalar::<C>(edge, class, rng);
        out.push(path(format!("ladder/{c}/mul_generator/{e}"), move |cfg| {
            measure(cfg, k, |k| group::mul_generator::<C>(&k))
        }));
        out.push(path(format!("ladder/{c}/mul/{e}"), move |cfg| {
            let pts = random_points::<C>(&mut cfg.rng());
            measure(
                cfg,
                |rng, class| (pick(&pts, rng), k(rng, class)),
                |(p, k)| group::mul::<C>(&p, &k),
            )
        }));
        out.push(path(format!("ladder/{c}/mul_multi_ct/{e}"), move |cfg| {
            let mut rng = cfg.rng();
            let pts = random_points::<C>(&mut rng);
            let blind = LadderBlind::<C>::random(&mut rng);
            measure(
                cfg,
                |rng, class| {
                    (
                        [pick(&pts, rng), pick(&pts, rng)],
                        [k(rng, class), k(rng, class)],
                    )
                },
                |(p, k)| group::mul_multi_ct::<C, 2>(&p, &k, &blind),
            )
        }));
        let k4 = move |rng: &mut StdRng, class: usize| {
            [
                [k(rng, class), k(rng, class)],
                [k(rng, class), k(rng, class)],
            ]
        };
        out.push(path(
            format!("ladder/{c}/mul_multi_shared_ct/{e}"),
            move |cfg| {
                let mut rng = cfg.rng();
                let pts = random_points::<C>(&mut rng);
                let blind = LadderBlind::<C>::random(&mut rng);
                measure(
                    cfg,
                    |rng, class| ([pick(&pts, rng), pick(&pts, rng)], k4(rng, class)),
                    |(p, k)| group::mul_multi_shared_ct::<C, 2, 2>(&p, &k, &blind),
                )
            },
        ));
        out.push(path(
            format!("ladder/{c}/mul_multi_shared_batch_ct/{e}"),
            move |cfg| {
                let mut rng = cfg.rng();
                let pts = random_points::<C>(&mut rng);
                let blind = LadderBlind::<C>::random(&mut rng);
                measure(
                    cfg,
                    |rng, class| {
                        let sets: Vec<[Point<C>; 2]> =
                            (0..2).map(|_| [pick(&pts, rng), pick(&pts, rng)]).collect();
                        (sets, k4(rng, class))
                    },
                    |(p, k)| group::mul_multi_shared_batch_ct::<C, 2, 2>(&p, &k, &blind),
                )
            },
        ));
        out.push(path(format!("ladder/{c}/mul_fixed_ct/{e}"), move |cfg| {
            let mut rng = cfg.rng();
            let tables: Vec<FixedBaseTable<C>> = random_points::<C>(&mut rng)[..2]
                .iter()
                .map(|p| FixedBaseTable::new(&group::to_affine(p)))
                .collect();
            measure(
                cfg,
                |rng, class| [k(rng, class), k(rng, class)],
                |k| group::mul_fixed_ct::<C, 2>([&tables[0], &tables[1]], &k),
            )
        }));
    }
    out.push(chosen_point_path::<C>(
        format!("ladder/{c}/mul_multi_ct/chosen-s"),
        None,
    ));
}

fn control_paths<C: Curve>(out: &mut Vec<Path>) {
    let c = curve_name::<C>();
    out.push(path(format!("control/{c}/vartime_mul/low-weight"), |cfg| {
        let pts = random_points::<C>(&mut cfg.rng());
        measure(
            cfg,
            |rng, class| {
                (
                    group::to_affine(&pick(&pts, rng)),
                    low_weight_or_random::<C>(class, rng),
                )
            },
            |(p, k)| group::vartime_mul::<C>(&p, &k),
        )
    }));
    out.push(chosen_point_path::<C>(
        format!("control/{c}/mul_multi_ct/known-blind-chosen-s"),
        Some(KNOWN_RHO),
    ));
}

// ---------------------------------------------------------------------------------------------
// Field operations

/// The edge field elements of class A.
#[derive(Clone, Copy)]
enum FieldEdge {
    Zero,
    One,
    MinusOne,
    /// Below `2^32`.
    Small,
    /// Above `p - 2^32`.
    NearP,
    /// One random element, the same in every measurement (dudect's fixed class).
    Fixed,
    /// Uniformly random, as class B: an A/A test of the measurement itself.
    Random,
}

const FIELD_EDGES: [FieldEdge; 7] = [
    FieldEdge::Zero,
    FieldEdge::One,
    FieldEdge::MinusOne,
    FieldEdge::Small,
    FieldEdge::NearP,
    FieldEdge::Fixed,
    FieldEdge::Random,
];

impl FieldEdge {
    fn name(self) -> &'static str {
        match self {
            FieldEdge::Zero => "zero",
            FieldEdge::One => "one",
            FieldEdge::MinusOne => "p-1",
            FieldEdge::Small => "small",
            FieldEdge::NearP => "near-p",
            FieldEdge::Fixed => "fixed",
            FieldEdge::Random => "random-vs-random",
        }
    }

    fn element<F: FieldOps>(self, rng: &mut StdRng) -> F {
        match self {
            FieldEdge::Zero => F::ZERO,
            FieldEdge::One => F::ONE,
            FieldEdge::MinusOne => -F::ONE,
            FieldEdge::Small => small_fe::<F>(rng),
            FieldEdge::NearP => -small_fe::<F>(rng),
            FieldEdge::Fixed => random_fe::<F>(&mut StdRng::seed_from_u64(7)),
            FieldEdge::Random => random_fe::<F>(rng),
        }
    }
}

fn small_fe<F: FieldOps>(rng: &mut StdRng) -> F {
    let mut r = F::Repr::default();
    let bytes = r.as_mut();
    let len = bytes.len();
    rng.fill_bytes(&mut bytes[len - 4..]);
    Option::from(F::from_repr(r)).unwrap_or(F::ONE)
}

fn random_fe<F: FieldOps>(rng: &mut StdRng) -> F {
    loop {
        let mut r = F::Repr::default();
        rng.fill_bytes(r.as_mut());
        if let Some(x) = Option::<F>::from(F::from_repr(r)) {
            return x;
        }
    }
}

/// A uniformly random element of a curve crate's field (their `random` takes rand_core 0.6).
fn random_crate_fe<F: PrimeField>(rng: &mut StdRng) -> F {
    loop {
        let mut r = F::Repr::default();
        rng.fill_bytes(r.as_mut());
        if let Some(x) = Option::<F>::from(F::from_repr(r)) {
            return x;
        }
    }
}

#[derive(Clone, Copy)]
enum FieldOp {
    Add,
    Sub,
    Mul,
    Square,
    Invert,
    /// `a^((p-3)/4)`, the exponentiation of hash-to-curve's `sqrt_ratio`.
    Sqrt,
}

const FIELD_OPS: [FieldOp; 6] = [
    FieldOp::Add,
    FieldOp::Sub,
    FieldOp::Mul,
    FieldOp::Square,
    FieldOp::Invert,
    FieldOp::Sqrt,
];

impl FieldOp {
    fn name(self) -> &'static str {
        match self {
            FieldOp::Add => "add",
            FieldOp::Sub => "sub",
            FieldOp::Mul => "mul",
            FieldOp::Square => "square",
            FieldOp::Invert => "invert",
            FieldOp::Sqrt => "sqrt",
        }
    }

    fn reps(self) -> usize {
        match self {
            FieldOp::Invert | FieldOp::Sqrt => 1,
            _ => FIELD_REPS,
        }
    }

    fn apply<C: Curve>(self, a: C::Fe, b: C::Fe) -> C::Fe {
        match self {
            FieldOp::Add => a + b,
            FieldOp::Sub => a - b,
            FieldOp::Mul => a * b,
            FieldOp::Square => FieldOps::square(&a),
            FieldOp::Invert => C::invert_field(&a),
            FieldOp::Sqrt => C::pow_c1(&a),
        }
    }
}

/// `op.reps()` applications of `op` to the same operands.
fn field_reps<C: Curve>(op: FieldOp, a: C::Fe, b: C::Fe) -> C::Fe {
    let mut r = C::Fe::ZERO;
    for _ in 0..op.reps() {
        r = black_box(op.apply::<C>(black_box(a), black_box(b)));
    }
    r
}

fn field_paths<C: Curve>(out: &mut Vec<Path>) {
    let c = curve_name::<C>();
    for op in FIELD_OPS {
        for edge in FIELD_EDGES {
            out.push(path(
                format!("field/{c}/{}/{}", op.name(), edge.name()),
                move |cfg| {
                    let x = move |rng: &mut StdRng, class: usize| -> C::Fe {
                        if class == 0 {
                            edge.element::<C::Fe>(rng)
                        } else {
                            random_fe::<C::Fe>(rng)
                        }
                    };
                    measure(
                        cfg,
                        |rng, class| (x(rng, class), x(rng, class)),
                        |(a, b)| field_reps::<C>(op, a, b),
                    )
                },
            ));
        }
    }
}

/// The same edges on the curve crates' own fields (`p256`: fiat-crypto-style Montgomery code,
/// `p384`: fiat-crypto; neither is used by this crate's arithmetic), as `field/<curve>-fiat/...`:
/// references for the edge-value effect on [`group::P256Fe`] and [`group::P384Fe`]. If an
/// independent constant-time implementation shows the same `|t|` on the same constants, the
/// difference lies in the machine, not in either code. `--all` only.
fn reference_field_paths<Fe: PrimeField>(out: &mut Vec<Path>, curve: &str) {
    type Edge<Fe> = (&'static str, fn() -> Fe);
    let edges: [Edge<Fe>; 4] = [
        ("zero", || Fe::ZERO),
        ("one", || Fe::ONE),
        ("p-1", || -Fe::ONE),
        ("fixed", || random_crate_fe(&mut StdRng::seed_from_u64(7))),
    ];
    for (op, square) in [("mul", false), ("square", true)] {
        for (edge, value) in edges {
            out.push(path(
                format!("field/{curve}-fiat/{op}/{edge}"),
                move |cfg| {
                    let x = move |rng: &mut StdRng, class: usize| {
                        if class == 0 {
                            value()
                        } else {
                            random_crate_fe(rng)
                        }
                    };
                    measure(
                        cfg,
                        |rng, class| (x(rng, class), x(rng, class)),
                        |(a, b): (Fe, Fe)| {
                            let mut r = Fe::ZERO;
                            for _ in 0..FIELD_REPS {
                                r = if square {
                                    black_box(black_box(a).square())
                                } else {
                                    black_box(black_box(a) * black_box(b))
                                };
                            }
                            r
                        },
                    )
                },
            ));
        }
    }
}

/// Whether the operation's last step on the Montgomery forms of `a` and `b` is the conditional
/// correction by `p` (add: `A + B >= p`; sub: `A < B`; mul and square: the Montgomery
/// reduction `(A·B + m·p) / R`, `m = -A·B·p^-1 mod R`, is `>= p`), with `R = 2^bits` for both
/// fields ([`group::P256Fe`] and [`group::P384Fe`] are in Montgomery form).
fn final_correction<F: FieldOps>(op: FieldOp, a: &F, b: &F) -> bool {
    let int = |x: &F| {
        let repr = x.to_repr();
        let mut buf = [0u8; 128];
        buf[128 - repr.as_ref().len()..].copy_from_slice(repr.as_ref());
        U1024::from_be_slice(&buf)
    };
    let bits = 8 * F::Repr::default().as_ref().len() as u32;
    let p = int(&-F::ONE).wrapping_add(&U1024::ONE);
    let nz = Option::<NonZero<U1024>>::from(NonZero::new(p)).unwrap_or(NonZero::<U1024>::ONE);
    let mont = |x: &F| int(x).shl_vartime(bits).rem(&nz);
    let (ma, mb) = (mont(a), mont(b));
    match op {
        FieldOp::Add => ma.wrapping_add(&mb) >= p,
        FieldOp::Sub => ma < mb,
        FieldOp::Mul | FieldOp::Square | FieldOp::Invert | FieldOp::Sqrt => {
            let r = U1024::ONE.shl_vartime(bits);
            let mask = r.wrapping_sub(&U1024::ONE);
            // p^-1 mod 2^1024 by Newton's iteration (p is odd).
            let mut inv = U1024::ONE;
            for _ in 0..10 {
                inv = inv.wrapping_mul(&U1024::from_u8(2).wrapping_sub(&p.wrapping_mul(&inv)));
            }
            let ab = ma.wrapping_mul(&mb);
            let m = r.wrapping_sub(&(ab & mask)).wrapping_mul(&inv) & mask;
            let t = ab.wrapping_add(&m.wrapping_mul(&p)).shr_vartime(bits);
            // The model must agree with the field: `t = A·B/R`, congruent to the product's form.
            assert!(t.rem(&nz) == mont(&(*a * *b)) && t < p.shl_vartime(1));
            t >= p
        }
    }
}

/// Class A: random operands whose last step is the correction by `p`; class B: random
/// operands whose last step is not.
fn final_correction_paths<C: Curve>(out: &mut Vec<Path>) {
    let c = curve_name::<C>();
    for op in [FieldOp::Add, FieldOp::Sub, FieldOp::Mul, FieldOp::Square] {
        out.push(path(
            format!("field/{c}/{}/final-correction", op.name()),
            move |cfg| {
                // Pools of operands of both classes (the model is slow: outside the loop).
                let mut rng = cfg.rng();
                let mut pools: [Vec<(C::Fe, C::Fe)>; 2] = [Vec::new(), Vec::new()];
                while pools.iter().any(|p| p.len() < 8 * POOL) {
                    let a = random_fe::<C::Fe>(&mut rng);
                    let b = match op {
                        FieldOp::Square => a,
                        _ => random_fe::<C::Fe>(&mut rng),
                    };
                    let pool = &mut pools[usize::from(!final_correction(op, &a, &b))];
                    if pool.len() < 8 * POOL {
                        pool.push((a, b));
                    }
                }
                measure(
                    cfg,
                    |rng, class| pick(&pools[class], rng),
                    |(a, b)| field_reps::<C>(op, a, b),
                )
            },
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// VOPRF and POPRF

const INFO: &[u8] = b"ct_check info";

fn scalar_bytes<C: Curve>(s: &Scalar<C>) -> C::ScalarBytes {
    C::scalar_bytes(s)
}

/// Class A: low-weight keys; class B: random keys.
fn key_pools<S: Suite<Group: Curve>>(rng: &mut StdRng) -> [Vec<SecretKey<S>>; 2] {
    core::array::from_fn(|class| {
        (0..POOL)
            .map(|_| {
                let k = low_weight_or_random::<S::Group>(class, rng);
                SecretKey::from_bytes(scalar_bytes::<S::Group>(&k).as_ref()).expect("a key")
            })
            .collect()
    })
}

fn random_input(rng: &mut StdRng) -> [u8; 32] {
    let mut input = [0u8; 32];
    rng.fill_bytes(&mut input);
    input
}

fn blinded_pool<S: Suite<Group: Curve>>(rng: &mut StdRng) -> Vec<BlindedElement<S>> {
    (0..POOL)
        .map(|_| {
            VoprfClient::<S>::blind(&random_input(rng), rng)
                .expect("blind")
                .message
        })
        .collect()
}

/// The blind bytes of a class: low weight (A) or random (B).
fn class_blind<S: Suite<Group: Curve>>(
    rng: &mut StdRng,
    class: usize,
) -> <S::Group as Curve>::ScalarBytes {
    scalar_bytes::<S::Group>(&low_weight_or_random::<S::Group>(class, rng))
}

fn voprf_paths<S: Suite<Group: Curve>>(out: &mut Vec<Path>) {
    let c = curve_name::<S::Group>();
    out.push(path(format!("voprf/{c}/blind_evaluate/key"), |cfg| {
        let mut rng = cfg.rng();
        let servers = key_pools::<S>(&mut rng).map(|pool| {
            pool.into_iter()
                .map(VoprfServer::from_secret_key)
                .collect::<Vec<_>>()
        });
        let blinded = blinded_pool::<S>(&mut rng);
        measure(
            cfg,
            |rng, class| {
                (
                    &servers[class][rng.random_range(0..POOL)],
                    pick(&blinded, rng),
                )
            },
            |(server, b)| server.blind_evaluate(&mut rng, &b),
        )
    }));
    out.push(path(format!("poprf/{c}/blind_evaluate/key"), |cfg| {
        let mut rng = cfg.rng();
        let servers = key_pools::<S>(&mut rng).map(|pool| {
            pool.into_iter()
                .map(PoprfServer::from_secret_key)
                .collect::<Vec<_>>()
        });
        let blinded = blinded_pool::<S>(&mut rng);
        measure(
            cfg,
            |rng, class| {
                (
                    &servers[class][rng.random_range(0..POOL)],
                    pick(&blinded, rng),
                )
            },
            |(server, b)| server.blind_evaluate(&mut rng, &b, INFO),
        )
    }));
    out.push(path(format!("voprf/{c}/blind/blind"), |cfg| {
        measure(
            cfg,
            |rng, class| (random_input(rng), class_blind::<S>(rng, class)),
            |(input, blind)| hazmat::voprf_blind_with::<S>(&input, blind.as_ref()),
        )
    }));
    out.push(path(format!("voprf/{c}/finalize/blind"), |cfg| {
        let server = VoprfServer::<S>::new(&mut cfg.rng());
        let pk = server.public_key();
        measure(
            cfg,
            |rng, class| {
                let input = random_input(rng);
                let b =
                    hazmat::voprf_blind_with::<S>(&input, class_blind::<S>(rng, class).as_ref())
                        .expect("blind");
                let e = server.blind_evaluate(rng, &b.message).expect("evaluate");
                (b.state, input, e)
            },
            |(state, input, e)| state.finalize(&input, &e.message, &e.proof, pk),
        )
    }));
    out.push(path(format!("poprf/{c}/blind/blind"), |cfg| {
        let server = PoprfServer::<S>::new(&mut cfg.rng());
        let pk = server.public_key();
        measure(
            cfg,
            |rng, class| (random_input(rng), class_blind::<S>(rng, class)),
            |(input, blind)| hazmat::poprf_blind_with::<S>(&input, INFO, pk, blind.as_ref()),
        )
    }));
    out.push(path(format!("poprf/{c}/finalize/blind"), |cfg| {
        let server = PoprfServer::<S>::new(&mut cfg.rng());
        let pk: &PublicKey<S> = server.public_key();
        measure(
            cfg,
            |rng, class| {
                let input = random_input(rng);
                let blind = class_blind::<S>(rng, class);
                let b =
                    hazmat::poprf_blind_with::<S>(&input, INFO, pk, blind.as_ref()).expect("blind");
                let e = server
                    .blind_evaluate(rng, &b.message, INFO)
                    .expect("evaluate");
                (b.state, input, e)
            },
            |(state, input, e)| state.finalize(&input, INFO, &e.message, &e.proof),
        )
    }));
}

// ---------------------------------------------------------------------------------------------
// Trust Tokens (PMB)

type P384 = p384::NistP384;
const TT_METHOD: Method = Method::PstV1Pmb;
const TT_KEY_ID: u32 = 1;
const TT_CLIENT_DATA: &[u8] = b"ct_check client data";
/// `HashT`'s DST of `pst_v1_pmb` (`pmbtoken.cc`, with the C NUL).
const TT_HASH_T: &[u8] = b"PMBTokens PST V1 HashT\0";

struct Pmb {
    issuer: trust_token::Issuer,
    client: trust_token::Client,
    /// `x0 y0 x1 y1 xs ys`.
    scalars: Vec<Scalar<P384>>,
}

impl Pmb {
    fn new(rng: &mut StdRng) -> Self {
        let (private, public) = trust_token::generate_key(TT_METHOD, TT_KEY_ID, rng);
        let blob = private.to_bytes();
        let scalars = blob[4..]
            .chunks_exact(trust_token::SCALAR_LEN)
            .map(|s| group::decode_scalar::<P384>(s).expect("scalar"))
            .collect();
        let mut issuer = trust_token::Issuer::new(TT_METHOD, 16);
        issuer.add_key(private).expect("issuer key");
        let mut client = trust_token::Client::new(TT_METHOD, 16);
        client.add_key(public).expect("client key");
        Self {
            issuer,
            client,
            scalars,
        }
    }

    /// `count` tokens with the bit.
    fn tokens(&self, bit: bool, count: usize, rng: &mut StdRng) -> Vec<trust_token::Token> {
        let request = self.client.begin_issuance(count, rng).expect("request");
        let response = self
            .issuer
            .issue(&request.message, TT_KEY_ID, bit, 16, rng)
            .expect("issue");
        finish_issuance(&self.client, request, &response.message)
    }

    /// Redemption requests of `POOL` valid tokens with the bit.
    fn redemptions(&self, bit: bool, rng: &mut StdRng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while out.len() < POOL {
            for t in self.tokens(bit, 8, rng) {
                self.check_token(t.as_bytes());
                out.push(self.redemption(&t));
            }
        }
        out
    }

    fn redemption(&self, token: &trust_token::Token) -> Vec<u8> {
        self.client
            .begin_redemption(token, TT_CLIENT_DATA)
            .expect("redemption")
    }

    /// Checks this program's `T = HashT(nonce)` on a valid token: `Ws = xs·T + ys·S`.
    fn check_token(&self, token: &[u8]) {
        let t = hash_t(&token[4..4 + trust_token::NONCE_SIZE]);
        let point = |i: usize| {
            let at = 4 + trust_token::NONCE_SIZE + i * trust_token::POINT_LEN;
            Point::<P384>::from(
                P384::decode_uncompressed(&token[at..at + trust_token::POINT_LEN]).expect("point"),
            )
        };
        let ws = group::mul(&t, &self.scalars[4]) + group::mul(&point(0), &self.scalars[5]);
        assert!(
            ws == point(2),
            "HashT of this program disagrees with the issuer"
        );
    }

    /// Redemption requests of `POOL` invalid tokens: `S = c·T` with the `c` that would make the
    /// unblinded `xs·T + ys·S` ladder take its fallback (`chosen`), or `S` random; `W`, `Ws`
    /// random.
    fn forged(&self, chosen: bool, rng: &mut StdRng) -> Vec<Vec<u8>> {
        let c = chosen_relation::<P384>(&self.scalars[4], &self.scalars[5], Scalar::<P384>::ZERO)
            .expect("relation");
        (0..POOL)
            .map(|_| {
                let mut salt = [0u8; trust_token::NONCE_SIZE];
                rng.fill_bytes(&mut salt);
                let t = hash_t(&salt);
                let random = |rng: &mut StdRng| {
                    group::mul_generator::<P384>(&group::random_scalar::<P384>(rng))
                };
                let s = if chosen {
                    group::mul(&t, &c)
                } else {
                    random(rng)
                };
                let mut bytes = TT_KEY_ID.to_be_bytes().to_vec();
                bytes.extend_from_slice(&salt);
                for p in [s, random(rng), random(rng)] {
                    bytes.extend_from_slice(
                        P384::encode_uncompressed(&group::to_affine(&p)).as_ref(),
                    );
                }
                self.redemption(&trust_token::Token::from_bytes(bytes).expect("token"))
            })
            .collect()
    }
}

fn hash_t(nonce: &[u8]) -> Point<P384> {
    P384::hash_to_curve(Xmd::Sha384, &[nonce], &[TT_HASH_T]).expect("hash")
}

/// `Client::finish_issuance`, which consumes the state.
fn finish_issuance(
    client: &trust_token::Client,
    request: trust_token::IssuanceRequest,
    response: &[u8],
) -> Vec<trust_token::Token> {
    client
        .finish_issuance(request.state, response)
        .expect("finish issuance")
}

/// `Issuer::redeem` over two pools of redemption requests (class A, class B).
fn redeem_path(name: &str, pools: fn(&Pmb, &mut StdRng) -> [Vec<Vec<u8>>; 2]) -> Path {
    path(name, move |cfg| {
        let mut rng = cfg.rng();
        let pmb = Pmb::new(&mut rng);
        let pools = pools(&pmb, &mut rng);
        measure(
            cfg,
            |rng, class| &pools[class][rng.random_range(0..POOL)],
            |r| pmb.issuer.redeem(r),
        )
    })
}

fn trust_token_paths(out: &mut Vec<Path>) {
    out.push(path("trust_token/pst_v1_pmb/issue/bit", |cfg| {
        let mut rng = cfg.rng();
        let pmb = Pmb::new(&mut rng);
        let requests: Vec<Vec<u8>> = (0..POOL)
            .map(|_| {
                pmb.client
                    .begin_issuance(1, &mut rng)
                    .expect("request")
                    .message
            })
            .collect();
        measure(
            cfg,
            |rng, class| (&requests[rng.random_range(0..POOL)], class == 1),
            |(r, bit)| pmb.issuer.issue(r, TT_KEY_ID, bit, 1, &mut rng),
        )
    }));
    out.push(redeem_path(
        "trust_token/pst_v1_pmb/redeem/bit",
        |pmb, rng| [pmb.redemptions(false, rng), pmb.redemptions(true, rng)],
    ));
    out.push(redeem_path(
        "trust_token/pst_v1_pmb/redeem/chosen-s-vs-valid",
        |pmb, rng| {
            let mut valid = pmb.redemptions(false, rng);
            valid.extend(pmb.redemptions(true, rng));
            valid.truncate(POOL);
            [pmb.forged(true, rng), valid]
        },
    ));
    out.push(redeem_path(
        "trust_token/pst_v1_pmb/redeem/chosen-s-vs-random-s",
        |pmb, rng| [pmb.forged(true, rng), pmb.forged(false, rng)],
    ));
}

// ---------------------------------------------------------------------------------------------
// ARC

type Arc = ArcV2P256;
type ArcCurve = <Arc as ArcSuite>::Curve;
const ARC_REQUEST_CONTEXT: &[u8] = b"ct_check request context";
const ARC_PRESENTATION_CONTEXT: &[u8] = b"ct_check presentation context";
const ARC_LIMIT: u32 = 100;

/// A [`ScalarSource`] over an RNG whose first `random_scalar` is given (a credential's `m1`).
struct Source<'a, C: Curve> {
    first: Option<Scalar<C>>,
    rng: &'a mut StdRng,
}

impl<C: Curve> ScalarSource<C> for Source<'_, C> {
    fn random_scalar(&mut self) -> Scalar<C> {
        self.first
            .take()
            .unwrap_or_else(|| group::random_scalar::<C>(self.rng))
    }
    fn proof_nonce(&mut self) -> Scalar<C> {
        group::random_scalar::<C>(self.rng)
    }
}

fn arc_credential(
    key: &ServerPrivateKey<Arc>,
    m1: Scalar<ArcCurve>,
    rng: &mut StdRng,
) -> Credential<Arc> {
    let mut src = Source {
        first: Some(m1),
        rng,
    };
    let request = hazmat::arc::request_with::<Arc>(ARC_REQUEST_CONTEXT, &mut src).expect("request");
    let response = key.issue(&request.message, src.rng).expect("issue");
    request
        .state
        .finalize(key.public_key(), &response)
        .expect("credential")
}

/// A credential restored from its storage bytes, with no presentation made yet (a fresh copy
/// per measurement: the credential keeps a counter per context, so its nonces run out).
fn fresh_credential(stored: &[u8]) -> Credential<Arc> {
    Credential::<Arc>::from_bytes(stored).expect("stored credential")
}

fn arc_paths(out: &mut Vec<Path>) {
    out.push(path("arc/v2p256/issue/key", |cfg| {
        let mut rng = cfg.rng();
        let keys: [Vec<ServerPrivateKey<Arc>>; 2] = core::array::from_fn(|class| {
            (0..POOL / 4)
                .map(|_| {
                    let s: [_; 4] = core::array::from_fn(|_| {
                        scalar_bytes::<ArcCurve>(&low_weight_or_random::<ArcCurve>(class, &mut rng))
                    });
                    hazmat::arc::server_key_from_scalars::<Arc>(
                        s[0].as_ref(),
                        s[1].as_ref(),
                        s[2].as_ref(),
                        s[3].as_ref(),
                    )
                    .expect("key")
                })
                .collect()
        });
        let requests: Vec<CredentialRequest<Arc>> = (0..POOL)
            .map(|_| {
                CredentialRequest::<Arc>::new(ARC_REQUEST_CONTEXT, &mut rng)
                    .expect("request")
                    .message
            })
            .collect();
        measure(
            cfg,
            |rng, class| {
                (
                    &keys[class][rng.random_range(0..POOL / 4)],
                    &requests[rng.random_range(0..POOL)],
                )
            },
            |(key, request)| key.issue(request, &mut rng),
        )
    }));
    out.push(path("arc/v2p256/present/credential", |cfg| {
        let mut rng = cfg.rng();
        let key = ServerPrivateKey::<Arc>::random(&mut rng);
        let credentials: [Vec<_>; 2] = core::array::from_fn(|class| {
            (0..POOL / 4)
                .map(|_| {
                    let m1 = low_weight_or_random::<ArcCurve>(class, &mut rng);
                    arc_credential(&key, m1, &mut rng).to_bytes()
                })
                .collect()
        });
        measure(
            cfg,
            |rng, class| fresh_credential(&credentials[class][rng.random_range(0..POOL / 4)]),
            |mut credential| {
                let p = credential
                    .presentation_state(ARC_PRESENTATION_CONTEXT, ARC_LIMIT)
                    .expect("state")
                    .present(&mut rng);
                (credential, p)
            },
        )
    }));
    out.push(path("arc/v2p256/present/nonce", |cfg| {
        let mut rng = cfg.rng();
        let key = ServerPrivateKey::<Arc>::random(&mut rng);
        let credentials: Vec<Credential<Arc>> = (0..POOL / 4)
            .map(|_| {
                let m1 = group::random_scalar::<ArcCurve>(&mut rng);
                arc_credential(&key, m1, &mut rng)
            })
            .collect();
        measure(
            cfg,
            |rng, class| {
                let nonce = if class == 0 {
                    0
                } else {
                    rng.random_range(0..ARC_LIMIT)
                };
                (&credentials[rng.random_range(0..POOL / 4)], nonce)
            },
            |(credential, nonce)| {
                let mut src = Source {
                    first: None,
                    rng: &mut rng,
                };
                hazmat::arc::present_nonce_with::<Arc>(
                    credential,
                    ARC_PRESENTATION_CONTEXT,
                    nonce,
                    ARC_LIMIT,
                    &mut src,
                )
            },
        )
    }));
}

// ---------------------------------------------------------------------------------------------
// ACT (`ACTv1-P256-SHA256`)

/// The width of the ACT paths' contexts.
const ACT_L: u8 = 16;
/// The amount every measured spend spends.
const ACT_SPEND: u64 = 10;

/// A credential of balance `c` under `key`, as storage bytes.
fn act_credential(
    key: &act::PrivateKey,
    ctx: &act::CredentialContext,
    c: u64,
    rng: &mut StdRng,
) -> zeroize::Zeroizing<Vec<u8>> {
    let request = act::ClientIssuanceState::request(rng).expect("request");
    let response = key.issue(ctx, c, &request.message, rng).expect("issue");
    request
        .state
        .finalize(ctx, key.public_key(), &response)
        .expect("credential")
        .to_bytes()
        .to_vec()
        .into()
}

/// A Moderator key of the class: low Hamming weight (class A) or uniform (class B).
fn act_key(class: usize, rng: &mut StdRng) -> act::PrivateKey {
    let sk = low_weight_or_random::<p256::NistP256>(class, rng);
    act::PrivateKey::from_bytes(scalar_bytes::<p256::NistP256>(&sk).as_ref()).expect("key")
}

fn act_paths(out: &mut Vec<Path>) {
    // The Client's balance: `c = s` (the remaining balance `v1 = 0`, every bit of the range
    // proof 0) against a uniform balance in `[s, 2^L)`; the same key, spend amount and context.
    out.push(path("act/prove_spend/balance", |cfg| {
        let mut rng = cfg.rng();
        let ctx = act::CredentialContext::with_width(b"ct_check", ACT_L).expect("context");
        let key = act::PrivateKey::generate(&mut rng).expect("key");
        let credentials: [Vec<_>; 2] = core::array::from_fn(|class| {
            (0..POOL / 4)
                .map(|_| {
                    let c = if class == 0 {
                        ACT_SPEND
                    } else {
                        rng.random_range(ACT_SPEND..1 << ACT_L)
                    };
                    act_credential(&key, &ctx, c, &mut rng)
                })
                .collect()
        });
        measure(
            cfg,
            |rng, class| {
                act::Credential::from_bytes(&credentials[class][rng.random_range(0..POOL / 4)])
                    .expect("stored credential")
            },
            |credential| credential.prove_spend(&ctx, ACT_SPEND, 0, b"ct_check", &mut rng),
        )
    }));
    // The Moderator's key in `IssueResponse` (`e`, `(e + skM)^-1`) and in `VerifySpend` (`skM *
    // A'`) with `IssueRefund`: low-weight keys against uniform ones.
    out.push(path("act/issue/key", |cfg| {
        let mut rng = cfg.rng();
        let ctx = act::CredentialContext::with_width(b"ct_check", ACT_L).expect("context");
        let keys: [Vec<act::PrivateKey>; 2] =
            core::array::from_fn(|class| (0..POOL / 4).map(|_| act_key(class, &mut rng)).collect());
        let requests: Vec<act::IssueRequest> = (0..POOL)
            .map(|_| {
                act::ClientIssuanceState::request(&mut rng)
                    .expect("request")
                    .message
            })
            .collect();
        measure(
            cfg,
            |rng, class| {
                (
                    &keys[class][rng.random_range(0..POOL / 4)],
                    &requests[rng.random_range(0..POOL)],
                )
            },
            |(key, request)| key.issue(&ctx, 100, request, &mut rng),
        )
    }));
    out.push(path("act/verify_spend+refund/key", |cfg| {
        let mut rng = cfg.rng();
        let ctx = act::CredentialContext::with_width(b"ct_check", ACT_L).expect("context");
        let pairs: [Vec<(act::PrivateKey, act::Spend)>; 2] = core::array::from_fn(|class| {
            (0..POOL / 4)
                .map(|_| {
                    let key = act_key(class, &mut rng);
                    let stored = act_credential(&key, &ctx, 100, &mut rng);
                    let spend = act::Credential::from_bytes(&stored)
                        .expect("stored credential")
                        .prove_spend(&ctx, ACT_SPEND, 0, b"ct_check", &mut rng)
                        .expect("spend")
                        .message;
                    (key, spend)
                })
                .collect()
        });
        measure(
            cfg,
            |rng, class| &pairs[class][rng.random_range(0..POOL / 4)],
            |(key, spend)| {
                let verified = key
                    .verify_spend(&ctx, spend, b"ct_check")
                    .expect("verified");
                key.issue_refund(&ctx, &verified, 1, &mut rng)
            },
        )
    }));
}

// ---------------------------------------------------------------------------------------------
// Hex decoding of secrets (serde JSON)

/// Nibble classes of the hex of a secret.
#[derive(Clone, Copy)]
enum Nibbles {
    /// All `0-9`.
    Digits,
    /// All `a-f` (the first `a-e`, to stay below the group order).
    Letters,
    /// Uniform `0-f` (the first `0-e`).
    Mixed,
}

/// `count` scalars' worth of hex in the nibble class.
fn secret_hex<C: Curve>(nibbles: Nibbles, count: usize, rng: &mut StdRng) -> String {
    let mut s = String::with_capacity(count * 2 * C::SCALAR_LEN);
    for _ in 0..count {
        for i in 0..2 * C::SCALAR_LEN {
            let top = u8::from(i == 0);
            let v = match nibbles {
                Nibbles::Digits => rng.random_range(0..10u8),
                Nibbles::Letters => rng.random_range(10..16 - top),
                Nibbles::Mixed => rng.random_range(0..16 - top),
            };
            s.push(char::from_digit(u32::from(v), 16).unwrap_or('0'));
        }
    }
    s
}

fn hex_paths<S: Suite<Group: Curve>>(out: &mut Vec<Path>) {
    let c = curve_name::<S::Group>();
    for (name, classes) in [
        ("digits-vs-letters", [Nibbles::Digits, Nibbles::Letters]),
        ("digits-vs-mixed", [Nibbles::Digits, Nibbles::Mixed]),
    ] {
        out.push(path(
            format!("hex/voprf-secret-key/{c}/{name}"),
            move |cfg| {
                measure(
                    cfg,
                    |rng, class| format!("\"{}\"", secret_hex::<S::Group>(classes[class], 1, rng)),
                    |json| serde_json::from_str::<SecretKey<S>>(&json).expect("key"),
                )
            },
        ));
    }
}

/// The serde JSON of a `pst_v1_pmb` `PrivateKey`: the same method id and key id in both
/// classes, the six scalars' hex in the nibble class. With an unknown method id (`ff`) the
/// whole string is still hex-decoded and then rejected at once, which isolates the hex decoder
/// from the key's public-point computation.
fn trust_token_hex_paths(out: &mut Vec<Path>) {
    for (name, method_id) in [("pst_v1_pmb", TT_METHOD.id()), ("unknown-method-id", 0xff)] {
        out.push(path(
            format!("hex/trust-token-private-key/{name}/digits-vs-letters"),
            move |cfg| {
                let prefix = format!("{method_id:02x}{TT_KEY_ID:08x}");
                let classes = [Nibbles::Digits, Nibbles::Letters];
                measure(
                    cfg,
                    |rng, class| {
                        format!("\"{prefix}{}\"", secret_hex::<P384>(classes[class], 6, rng))
                    },
                    |json| {
                        let key = serde_json::from_str::<trust_token::PrivateKey>(&json);
                        assert_eq!(key.is_ok(), method_id == TT_METHOD.id());
                        key
                    },
                )
            },
        ));
    }
}

// ---------------------------------------------------------------------------------------------

fn all_paths() -> (Vec<Path>, Vec<Path>) {
    let mut paths = Vec::new();
    voprf_paths::<P256Sha256>(&mut paths);
    voprf_paths::<P384Sha384>(&mut paths);
    trust_token_paths(&mut paths);
    arc_paths(&mut paths);
    act_paths(&mut paths);
    hex_paths::<P256Sha256>(&mut paths);
    hex_paths::<P384Sha384>(&mut paths);
    trust_token_hex_paths(&mut paths);
    ladder_paths::<p256::NistP256>(&mut paths);
    ladder_paths::<P384>(&mut paths);
    field_paths::<p256::NistP256>(&mut paths);
    field_paths::<P384>(&mut paths);
    use elliptic_curve::hazmat::FieldArithmetic;
    reference_field_paths::<<p256::NistP256 as FieldArithmetic>::FieldElement>(&mut paths, "p256");
    reference_field_paths::<<p384::NistP384 as FieldArithmetic>::FieldElement>(&mut paths, "p384");
    final_correction_paths::<p256::NistP256>(&mut paths);
    final_correction_paths::<P384>(&mut paths);
    let mut controls = Vec::new();
    control_paths::<p256::NistP256>(&mut controls);
    control_paths::<P384>(&mut controls);
    (paths, controls)
}

fn parse_args() -> Result<Cfg, String> {
    let mut cfg = Cfg {
        seconds: 1.0,
        only: Vec::new(),
        controls: false,
        verbose: false,
        list: false,
        all: false,
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--seconds" => {
                cfg.seconds = value("--seconds")?
                    .parse()
                    .map_err(|e| format!("--seconds: {e}"))?
            }
            "--only" => cfg.only.push(value("--only")?),
            "--seed" => {
                cfg.seed = value("--seed")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--controls" => cfg.controls = true,
            "--verbose" => cfg.verbose = true,
            "--list" => cfg.list = true,
            "--all" => cfg.all = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if cfg.seconds.is_nan() || cfg.seconds <= 0.0 {
        return Err("--seconds must be positive".into());
    }
    Ok(cfg)
}

/// The paths run without `--all` or `--only`: every protocol path and the hex decoding of
/// secrets, the ladders on the scalar `n - 1` and on the chosen point relation, the final
/// correction of both fields and the edge `p - 1` of the crate's own P-256 and P-384 fields.
/// `--all` adds the remaining edge classes of every ladder and field operation (207 paths in
/// all).
fn in_default_set(name: &str) -> bool {
    if name.starts_with("ladder/") {
        return name.ends_with("/n-1") || name.ends_with("/chosen-s");
    }
    if name.starts_with("field/") {
        return name.ends_with("/final-correction")
            || ((name.starts_with("field/p256/") || name.starts_with("field/p384/"))
                && name.ends_with("/p-1"));
    }
    true
}

/// Runs the selected paths; returns how many ran and the largest `|t|` (or the smallest, for
/// the controls).
fn run(cfg: &Cfg, paths: &[Path], smallest: bool) -> (usize, f64) {
    let mut count = 0;
    let mut extreme = if smallest { f64::INFINITY } else { 0.0 };
    for p in paths {
        let selected = if cfg.only.is_empty() {
            cfg.all || smallest || in_default_set(&p.name)
        } else {
            cfg.only.iter().any(|o| p.name.contains(o.as_str()))
        };
        if !selected {
            continue;
        }
        if cfg.list {
            println!("{}", p.name);
            continue;
        }
        let r = (p.run)(cfg);
        println!("ct {} |t|={:.2} n={}", p.name, r.t, r.n);
        if cfg.verbose {
            println!(
                "   mean A {:.0} ns, mean B {:.0} ns, max |t| at crop {:.3}",
                r.means[0], r.means[1], r.crop
            );
        }
        count += 1;
        extreme = if smallest {
            extreme.min(r.t)
        } else {
            extreme.max(r.t)
        };
    }
    (count, extreme)
}

fn main() -> ExitCode {
    let cfg = match parse_args() {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("ct_check: {e}");
            return ExitCode::from(2);
        }
    };
    let (paths, controls) = all_paths();
    if !cfg.list {
        println!(
            "ct: field arithmetic backend: {}",
            privacy_tokens::group::arithmetic_backend()
        );
    }
    let (count, max) = run(&cfg, &paths, false);
    let mut failed = false;
    if !cfg.list {
        println!("ct: {count} paths, max |t| = {max:.2}");
        failed |= max >= THRESHOLD;
    }
    if cfg.controls {
        let (count, min) = run(&cfg, &controls, true);
        if !cfg.list && count > 0 {
            println!("ct: {count} controls (each must leak), min |t| = {min:.2}");
            if min < THRESHOLD {
                println!("ct: a control did not leak: the measurement is not sensitive enough");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
