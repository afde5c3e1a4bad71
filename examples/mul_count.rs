//! A fixed amount of constant-time scalar multiplication work, for instruction counts under
//! callgrind and for a noise-resistant wall-clock figure on a shared machine.
//!
//! ```text
//! cargo build --release --example mul_count
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/mul_count p256 50
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/mul_count p256 100
//! target/release/examples/mul_count p256 20 --time
//! ```
//!
//! Arguments: the curve (`p256` or `p384`) and the number `N` of `k * P` products
//! (`group::mul`, constant time, Jacobian results), cycling through 8 points and scalars that
//! are hashed once whatever `N`: the difference of two runs' instruction totals divided by the
//! difference of their `N` is the count per multiplication. With `--time`, the `N` products are
//! timed 300 times and the fastest batch is printed per product (the minimum is the figure
//! least disturbed by other work on the machine; the median is printed too).

use std::time::Instant;

use privacy_tokens::group::{self, Curve, Point, Scalar, Xmd};

/// The number of distinct points and scalars (hashed once, whatever `N`).
const INPUTS: u64 = 8;

/// Batches timed with `--time`.
const BATCHES: usize = 300;

/// [`INPUTS`] points and scalars hashed from their index.
fn inputs<C: Curve>() -> Vec<(Point<C>, Scalar<C>)> {
    let dst: &[&[u8]] = &[b"mul_count"];
    (0..INPUTS)
        .map(|i| {
            let p = C::hash_to_curve(Xmd::Sha256, &[&i.to_le_bytes()], dst).expect("short DST");
            let k = C::hash_to_scalar(Xmd::Sha256, &[&i.to_be_bytes()], dst).expect("short DST");
            (p, k)
        })
        .collect()
}

/// `n` products over the inputs; returns how many are the identity, so that the work is kept.
fn products<C: Curve>(inputs: &[(Point<C>, Scalar<C>)], n: usize) -> usize {
    inputs
        .iter()
        .cycle()
        .take(n)
        .filter(|(p, k)| group::is_identity::<C>(&std::hint::black_box(group::mul::<C>(p, k))))
        .count()
}

/// Runs `n` products once (or, with `time`, [`BATCHES`] times, printing the per-product time).
fn run<C: Curve>(curve: &str, n: usize, time: bool) {
    let inputs = inputs::<C>();
    if !time {
        let identities = products::<C>(&inputs, n);
        println!("mul_count: {curve}, {n} products, {identities} identities");
        return;
    }
    let n = n.max(1);
    let mut per_product: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(products::<C>(&inputs, n));
            start.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .collect();
    per_product.sort_by(f64::total_cmp);
    println!(
        "mul_count: {curve}, {BATCHES} batches of {n}: min {:.1} us, median {:.1} us per product",
        per_product[0],
        per_product[BATCHES / 2]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let curve = args.get(1).map_or("p256", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let time = args.iter().any(|a| a == "--time");
    match curve {
        "p256" => run::<p256::NistP256>(curve, n, time),
        "p384" => run::<p384::NistP384>(curve, n, time),
        other => {
            eprintln!("unknown curve {other} (p256 or p384)");
            std::process::exit(2);
        }
    }
}
