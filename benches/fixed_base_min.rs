//! The fixed-base multiplications alone, noise-resistant (as `interop/examples/curve_min`, without
//! a peer library, so it builds in the crate alone): `group::mul_generator` (the process-wide
//! 7-bit generator table on x86-64), `FixedBaseTable::mul` on a 5-bit per-key table, and
//! `mul_fixed_ct` over two 5-bit tables (a DLEQ-style `x G + y H` shape), on P-256 and P-384.
//! Each round times `REPS` calls of each in turn and keeps each one's fastest call; the report
//! gives, over `ROUNDS` rounds, the median and the range of those minima.
//!
//! `cargo bench --bench fixed_base_min -- [ROUNDS] [REPS]` (default 15, 200). For an A/B of two
//! commits, build each (`cargo bench --bench fixed_base_min --no-run`), copy the binaries and
//! run them alternately, pinned (`taskset -c 1`).

use privacy_tokens::group::{self, Curve, FixedBaseTable};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};
use std::hint::black_box;
use std::time::Instant;

/// The fastest of `reps` calls of `f`, in microseconds.
fn fastest(reps: usize, f: &mut dyn FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .fold(f64::INFINITY, f64::min)
}

/// Median, min and max.
fn summary(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn run<C: Curve>(name: &str, rounds: usize, reps: usize) {
    let mut rng = rand::rng();
    let k = group::random_scalar::<C>(&mut rng);
    let k2 = group::random_scalar::<C>(&mut rng);
    let p = group::to_affine(&group::mul_generator::<C>(&group::random_scalar::<C>(
        &mut rng,
    )));
    let q = group::to_affine(&group::mul_generator::<C>(&group::random_scalar::<C>(
        &mut rng,
    )));
    let (tp, tq) = (FixedBaseTable::new(&p), FixedBaseTable::new(&q));
    // Warm the process-wide table.
    black_box(group::mul_generator::<C>(&k));
    let mut times: [Vec<f64>; 3] = Default::default();
    for _ in 0..rounds {
        times[0].push(fastest(reps, &mut || {
            black_box(group::mul_generator::<C>(black_box(&k)));
        }));
        times[1].push(fastest(reps, &mut || {
            black_box(tp.mul(black_box(&k)));
        }));
        times[2].push(fastest(reps, &mut || {
            black_box(group::mul_fixed_ct([&tp, &tq], black_box(&[k, k2])));
        }));
    }
    let labels = [
        "mul_generator (wide)",
        "FixedBaseTable::mul (w=5)",
        "mul_fixed_ct 2 tables",
    ];
    for (label, t) in labels.iter().zip(times.iter_mut()) {
        let (med, lo, hi) = summary(t);
        println!("{name} {label}: median {med:.3} us (min {lo:.3}, max {hi:.3})");
    }
}

fn main() {
    // `cargo bench` passes `--bench`; numbers are the only positional arguments.
    let nums: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = nums.first().copied().unwrap_or(15);
    let reps = nums.get(1).copied().unwrap_or(200);
    println!("backend {}", group::arithmetic_backend());
    run::<<P256Sha256 as Suite>::Group>("P-256", rounds, reps);
    run::<<P384Sha384 as Suite>::Group>("P-384", rounds, reps);
}
