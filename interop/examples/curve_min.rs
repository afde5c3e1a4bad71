//! A noise-resistant side-by-side of the curve layer: AWS-LC's `EC_POINT_mul` (variable base,
//! then the generator) against `privacy_tokens::group::mul` and `group::mul_generator`
//! (constant time), on P-256 and P-384, in one process.
//! Each round times `REPS` calls of each in turn and keeps each side's fastest call; the
//! report gives, over `ROUNDS` rounds, the median of those minima and their ratio. On a shared
//! machine the minimum of many calls moves far less than a mean (criterion's figure).
//!
//! `cd interop && cargo run --release --example curve_min [ROUNDS] [REPS]` (default 15, 200).

use privacy_tokens::{group, P256Sha256, P384Sha384, Suite};
use privacy_tokens_interop::awslc::curve::{Curve, Group};
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

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn compare<C: group::Curve>(curve: Curve, rounds: usize, reps: usize) {
    let mut rng = rand::rng();
    let k = group::random_scalar::<C>(&mut rng);
    let p = group::mul_generator::<C>(&group::random_scalar::<C>(&mut rng));
    let g = Group::new(curve).expect("group");
    let k_aws = g.scalar(C::scalar_bytes(&k).as_ref()).expect("scalar");
    let p_bytes = C::encode_uncompressed(&group::to_affine(&p));
    let p_aws = g.decode_point(p_bytes.as_ref()).expect("point");
    let mut out = g.new_point().expect("point");
    let (mut aws, mut ours) = (Vec::new(), Vec::new());
    let (mut aws_base, mut ours_base) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        aws.push(fastest(reps, &mut || {
            g.mul(&mut out, black_box(&p_aws), black_box(&k_aws))
                .expect("mul")
        }));
        ours.push(fastest(reps, &mut || {
            black_box(group::mul::<C>(black_box(&p), black_box(&k)));
        }));
        aws_base.push(fastest(reps, &mut || {
            g.mul_base(&mut out, black_box(&k_aws)).expect("mul_base")
        }));
        ours_base.push(fastest(reps, &mut || {
            black_box(group::mul_generator::<C>(black_box(&k)));
        }));
    }
    let (a, o) = (median(&mut aws), median(&mut ours));
    let (ab, ob) = (median(&mut aws_base), median(&mut ours_base));
    println!(
        "{}: AWS-LC mul {a:.1} us, privacy-tokens mul_ct {o:.1} us, ratio {:.2}; \
         mul_base {ab:.2} us, mul_base_ct {ob:.2} us, ratio {:.2} (backend {})",
        curve.name(),
        o / a,
        ob / ab,
        group::arithmetic_backend()
    );
}

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .map_or(d, |s| s.parse().expect("a number"))
    };
    let (rounds, reps) = (arg(1, 15), arg(2, 200));
    compare::<<P256Sha256 as Suite>::Group>(Curve::P256, rounds, reps);
    compare::<<P384Sha384 as Suite>::Group>(Curve::P384, rounds, reps);
}
