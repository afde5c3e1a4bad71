//! Field and point operations side by side with AWS-LC's own routines (s2n-bignum's P-384
//! `bignum_montmul_p384`, `bignum_montsqr_p384` and `p384_montjdouble`; OpenSSL's nistz256
//! `ecp_nistz256_mul_mont`, `_sqr_mont`, `_point_double` and `_point_add` for P-256), called
//! through their exported symbols: the fastest of many short dependent chains, in nanoseconds
//! per operation. Where the curve layer's time goes against AWS-LC's.
//!
//! `cd interop && cargo run --release --example ops_min`

use aws_lc_sys as _;
use privacy_tokens::group::{self, Curve, FieldOps};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};
use std::hint::black_box;
use std::time::Instant;

type Binary = unsafe extern "C" fn(*mut u64, *const u64, *const u64);
type Unary = unsafe extern "C" fn(*mut u64, *const u64);

extern "C" {
    fn aws_lc_0_47_0_bignum_montmul_p384(z: *mut u64, x: *const u64, y: *const u64);
    fn aws_lc_0_47_0_bignum_montsqr_p384(z: *mut u64, x: *const u64);
    fn aws_lc_0_47_0_p384_montjdouble(p3: *mut u64, p1: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_mul_mont(r: *mut u64, a: *const u64, b: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_sqr_mont(r: *mut u64, a: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_point_double(r: *mut u64, a: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_point_add(r: *mut u64, a: *const u64, b: *const u64);
}

/// One curve's AWS-LC routines on `n`-limb field elements and `3n`-limb Jacobian points.
struct Aws {
    mul: Binary,
    sqr: Unary,
    double: Unary,
    add: Option<Binary>,
}

/// Nanoseconds per call of `f`: the fastest of 3000 runs of 20 calls.
fn ns(f: &mut dyn FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..3000 {
        let t = Instant::now();
        for _ in 0..20 {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / 20.0);
    }
    best
}

/// `len` limbs below both moduli (every fourth limb is small).
fn limbs(seed: u64, len: usize) -> Vec<u64> {
    let mut x = seed;
    (0..len)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if i % 4 == 3 {
                x >> 8
            } else {
                x
            }
        })
        .collect()
}

/// `z = z * w` out of line, through pointers (the shape of AWS-LC's calls).
#[inline(never)]
fn mul_through<F: FieldOps>(z: &mut F, w: &F) {
    *z *= *w;
}

/// `z = z^2` out of line, through pointers.
#[inline(never)]
fn sqr_through<F: FieldOps>(z: &mut F) {
    *z = z.square();
}

/// `r = f(r, b)` on AWS-LC's limbs, timed: the output goes to a second buffer, swapped in
/// after each call (no routine is asked to write over its input).
fn aws_binary(f: Binary, r: &mut Vec<u64>, b: &[u64]) -> f64 {
    let mut out = vec![0u64; r.len()];
    ns(&mut || {
        // SAFETY: `out`, `r` and `b` hold the routine's element or point size; `out` is distinct.
        unsafe { f(out.as_mut_ptr(), r.as_ptr(), b.as_ptr()) };
        core::mem::swap(r, &mut out);
    })
}

/// `r = f(r)` on AWS-LC's limbs, timed, as [`aws_binary`].
fn aws_unary(f: Unary, r: &mut Vec<u64>) -> f64 {
    let mut out = vec![0u64; r.len()];
    ns(&mut || {
        // SAFETY: `out` and `r` hold the routine's element or point size; `out` is distinct.
        unsafe { f(out.as_mut_ptr(), r.as_ptr()) };
        core::mem::swap(r, &mut out);
    })
}

fn compare<C: Curve>(name: &str, n: usize, aws: &Aws) {
    let mut rng = rand::thread_rng();
    let (mut a, b) = (limbs(1, n), limbs(2, n));
    let aws_mul = aws_binary(aws.mul, &mut a, &b);
    let aws_sqr = aws_unary(aws.sqr, &mut a);
    let mut x = C::Fe::ONE + C::Fe::ONE;
    let y = x + x + x;
    let our_mul = ns(&mut || x = black_box(x) * y);
    let our_sqr = ns(&mut || x = black_box(x).square());
    let our_add = ns(&mut || x = black_box(x) + y);
    let call_mul = ns(&mut || mul_through(&mut x, &y));
    let call_sqr = ns(&mut || sqr_through(&mut x));
    black_box((a, x));
    println!(
        "{name} field: mul AWS-LC {aws_mul:.1} ours {our_mul:.1} (out of line {call_mul:.1}); \
         sqr AWS-LC {aws_sqr:.1} ours {our_sqr:.1} (out of line {call_sqr:.1}); add ours {our_add:.1} ns"
    );
    // AWS-LC's Montgomery-form Jacobian triples (any field values time the same).
    let (mut p, q) = (limbs(3, 3 * n), limbs(4, 3 * n));
    let aws_dbl = aws_unary(aws.double, &mut p);
    let mut pt = group::mul_generator::<C>(&group::random_scalar::<C>(&mut rng));
    let our_dbl = ns(&mut || pt = black_box(pt).double());
    println!("{name} double: AWS-LC {aws_dbl:.1} ours {our_dbl:.1} ns");
    if let Some(add) = aws.add {
        let aws_add = aws_binary(add, &mut p, &q);
        let other = group::mul_generator::<C>(&group::random_scalar::<C>(&mut rng));
        let our_add = ns(&mut || pt = black_box(pt) + other);
        println!("{name} add: AWS-LC point_add {aws_add:.1} ours complete add {our_add:.1} ns");
    }
    black_box((p, pt));
}

fn main() {
    compare::<<P384Sha384 as Suite>::Group>(
        "P-384",
        6,
        &Aws {
            mul: aws_lc_0_47_0_bignum_montmul_p384,
            sqr: aws_lc_0_47_0_bignum_montsqr_p384,
            double: aws_lc_0_47_0_p384_montjdouble,
            add: None,
        },
    );
    compare::<<P256Sha256 as Suite>::Group>(
        "P-256",
        4,
        &Aws {
            mul: aws_lc_0_47_0_ecp_nistz256_mul_mont,
            sqr: aws_lc_0_47_0_ecp_nistz256_sqr_mont,
            double: aws_lc_0_47_0_ecp_nistz256_point_double,
            add: Some(aws_lc_0_47_0_ecp_nistz256_point_add),
        },
    );
}
