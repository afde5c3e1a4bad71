//! Field and point operations side by side with AWS-LC's own routines (s2n-bignum's P-384
//! `bignum_montmul_p384`, `bignum_montsqr_p384` and `p384_montjdouble`; OpenSSL's nistz256
//! `ecp_nistz256_mul_mont`, `_sqr_mont` and `_point_double` for P-256), called through their
//! exported symbols: the fastest of many short dependent chains, in nanoseconds per operation.
//! Where the curve layer's time goes against AWS-LC's.
//!
//! `cd interop && cargo run --release --example ops_min`

use aws_lc_sys as _;
use privacy_tokens::group::{self, P256Fe, P384Fe};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};
use std::hint::black_box;
use std::time::Instant;

extern "C" {
    fn aws_lc_0_47_0_bignum_montmul_p384(z: *mut u64, x: *const u64, y: *const u64);
    fn aws_lc_0_47_0_bignum_montsqr_p384(z: *mut u64, x: *const u64);
    fn aws_lc_0_47_0_p384_montjdouble(p3: *mut u64, p1: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_mul_mont(r: *mut u64, a: *const u64, b: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_sqr_mont(r: *mut u64, a: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_point_double(r: *mut u64, a: *const u64);
    fn aws_lc_0_47_0_ecp_nistz256_point_add(r: *mut u64, a: *const u64, b: *const u64);
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

/// Limbs of a value below both moduli (the top limb is small).
fn limbs<const N: usize>(seed: u64) -> [u64; N] {
    let mut x = seed;
    core::array::from_fn(|i| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if i == N - 1 {
            x >> 8
        } else {
            x
        }
    })
}

/// `z = z * w` out of line, through pointers (the shape of AWS-LC's calls).
#[inline(never)]
fn mul384(z: &mut P384Fe, w: &P384Fe) {
    *z *= *w;
}

/// `z = z^2` out of line, through pointers.
#[inline(never)]
fn sqr384(z: &mut P384Fe) {
    *z = z.square();
}

fn main() {
    let mut rng = rand::thread_rng();
    // P-384 field.
    let (mut a, b) = (limbs::<6>(1), limbs::<6>(2));
    let aws_mul = ns(&mut || unsafe {
        // SAFETY: valid 6-limb buffers; `z` may alias `x` (s2n-bignum allows it).
        aws_lc_0_47_0_bignum_montmul_p384(a.as_mut_ptr(), a.as_ptr(), b.as_ptr())
    });
    let aws_sqr = ns(&mut || unsafe {
        // SAFETY: as above.
        aws_lc_0_47_0_bignum_montsqr_p384(a.as_mut_ptr(), a.as_ptr())
    });
    black_box(a);
    let mut x = P384Fe::ONE + P384Fe::ONE;
    let y = x + x + x;
    let our_mul = ns(&mut || x = black_box(x) * y);
    let our_sqr = ns(&mut || x = black_box(x).square());
    let our_add = ns(&mut || x = black_box(x) + y);
    let (mut z, w) = (x, y);
    let call_mul = ns(&mut || mul384(&mut z, &w));
    let call_sqr = ns(&mut || sqr384(&mut z));
    black_box((x, z));
    println!(
        "P-384 out-of-line through pointers, as AWS-LC's: mul {call_mul:.1} sqr {call_sqr:.1} ns"
    );
    println!("P-384 field: mul AWS-LC {aws_mul:.1} ours {our_mul:.1}; sqr AWS-LC {aws_sqr:.1} ours {our_sqr:.1}; add ours {our_add:.1} ns");
    // P-384 double: AWS-LC's Montgomery-form Jacobian triple (any field values time the same).
    let mut p = [0u64; 18];
    p[..6].copy_from_slice(&limbs::<6>(3));
    p[6..12].copy_from_slice(&limbs::<6>(4));
    p[12..].copy_from_slice(&limbs::<6>(5));
    let mut q = [0u64; 18];
    let aws_dbl = ns(&mut || unsafe {
        // SAFETY: valid 18-limb buffers, not aliased.
        aws_lc_0_47_0_p384_montjdouble(q.as_mut_ptr(), p.as_ptr());
        core::mem::swap(&mut p, &mut q);
    });
    type C384 = <P384Sha384 as Suite>::Curve;
    let mut pt = group::mul_generator::<C384>(&group::random_scalar::<C384>(&mut rng));
    let our_dbl = ns(&mut || pt = black_box(pt).double());
    black_box(pt);
    println!("P-384 double: AWS-LC {aws_dbl:.1} ours {our_dbl:.1} ns");
    // P-256.
    let (mut a, b) = (limbs::<4>(1), limbs::<4>(2));
    let aws_mul = ns(&mut || unsafe {
        // SAFETY: valid 4-limb buffers; OpenSSL's routine allows `r == a`.
        aws_lc_0_47_0_ecp_nistz256_mul_mont(a.as_mut_ptr(), a.as_ptr(), b.as_ptr())
    });
    let aws_sqr = ns(&mut || unsafe {
        // SAFETY: as above.
        aws_lc_0_47_0_ecp_nistz256_sqr_mont(a.as_mut_ptr(), a.as_ptr())
    });
    black_box(a);
    let mut x = P256Fe::ONE + P256Fe::ONE;
    let y = x + x + x;
    let our_mul = ns(&mut || x = black_box(x) * y);
    let our_sqr = ns(&mut || x = black_box(x).square());
    let our_add = ns(&mut || x = black_box(x) + y);
    black_box(x);
    println!("P-256 field: mul AWS-LC {aws_mul:.1} ours {our_mul:.1}; sqr AWS-LC {aws_sqr:.1} ours {our_sqr:.1}; add ours {our_add:.1} ns");
    let mut p = [0u64; 12];
    p[..4].copy_from_slice(&limbs::<4>(3));
    p[4..8].copy_from_slice(&limbs::<4>(4));
    p[8..].copy_from_slice(&limbs::<4>(5));
    let mut q = [0u64; 12];
    let aws_dbl = ns(&mut || unsafe {
        // SAFETY: valid 12-limb buffers (P256_POINT), not aliased.
        aws_lc_0_47_0_ecp_nistz256_point_double(q.as_mut_ptr(), p.as_ptr());
        core::mem::swap(&mut p, &mut q);
    });
    type C256 = <P256Sha256 as Suite>::Curve;
    let mut pt = group::mul_generator::<C256>(&group::random_scalar::<C256>(&mut rng));
    let our_dbl = ns(&mut || pt = black_box(pt).double());
    println!("P-256 double: AWS-LC {aws_dbl:.1} ours {our_dbl:.1} ns");
    let b2 = q;
    let aws_add = ns(&mut || unsafe {
        // SAFETY: valid 12-limb buffers (P256_POINT), `r` distinct from `b`.
        aws_lc_0_47_0_ecp_nistz256_point_add(q.as_mut_ptr(), p.as_ptr(), b2.as_ptr());
        core::mem::swap(&mut p, &mut q);
    });
    let other = group::mul_generator::<C256>(&group::random_scalar::<C256>(&mut rng));
    let our_add = ns(&mut || pt = black_box(pt) + other);
    black_box(pt);
    println!("P-256 add: AWS-LC point_add {aws_add:.1} ours complete add {our_add:.1} ns");
}
