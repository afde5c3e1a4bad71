//! Quick timings of the group routines on P-384 (`cargo test --release -- --ignored timing --nocapture`).

#![allow(clippy::unwrap_used)]

use std::time::Instant;

use p384::NistP384 as C;

use elliptic_curve::group::Group as _;

use super::*;

fn time<T>(name: &str, iters: u32, mut f: impl FnMut() -> T) {
    let start = Instant::now();
    for _ in 0..iters {
        core::hint::black_box(f());
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(iters);
    std::println!("{name:<36} {us:>10.2} us");
}

#[test]
#[ignore]
fn timing_p384() {
    let mut rng = rand::thread_rng();
    let k = random_scalar::<C>(&mut rng);
    let p = mul_generator::<C>(&random_scalar::<C>(&mut rng));
    let pa = to_affine::<C>(&p);
    let pts: Vec<Point<C>> = (0..100)
        .map(|_| mul_generator::<C>(&random_scalar::<C>(&mut rng)))
        .collect();
    let mut aff = vec![affine_identity::<C>(); 100];
    normalize_slice::<C>(&pts, &mut aff).unwrap();
    let ks: Vec<Scalar<C>> = (0..100).map(|_| random_scalar::<C>(&mut rng)).collect();
    let n = 200;
    {
        let a = p.x;
        let b = p.y;
        time("field mul x1000", 20, || {
            let mut c = a;
            for _ in 0..1000 {
                c *= b;
            }
            c
        });
        time("field square x1000", 20, || {
            let mut c = a;
            for _ in 0..1000 {
                c = c.square();
            }
            c
        });
        time("field add x1000", 20, || {
            let mut c = a;
            for _ in 0..1000 {
                c += b;
            }
            c
        });
        time("field invert (curve crate)", n, || a.invert());
        time("field invert (chain)", n, || super::field::invert_p384(&a));
        let g = Point::<C>::generator();
        let ga = g.to_affine();
        time("double x100", 20, || {
            let mut c = p;
            for _ in 0..100 {
                c = c.double();
            }
            c
        });
        time("vartime madd x100", 20, || {
            let mut c = p;
            for _ in 0..100 {
                c = c.vartime_add_affine(&ga);
            }
            c
        });
        time("ct madd x100", 20, || {
            let mut c = p;
            for _ in 0..100 {
                c = c.add_affine_ct(&ga).0;
            }
            c
        });
        time("ct add x100", 20, || {
            let mut c = p;
            for _ in 0..100 {
                c = c.add_ct(&g).0;
            }
            c
        });
        let rp = p.to_primeorder();
        let rg = p384::AffinePoint::GENERATOR;
        time("primeorder madd x100", 20, || {
            let mut c = rp;
            for _ in 0..100 {
                c += rg;
            }
            c
        });
        time("primeorder double x100", 20, || {
            let mut c = rp;
            for _ in 0..100 {
                c = c.double();
            }
            c
        });
    }
    time("primeorder ct mul (reference)", n, || {
        primeorder::ProjectivePoint::<C>::from(p384::AffinePoint::GENERATOR) * k
    });
    time("mul (ct var-base)", n, || mul::<C>(&p, &k));
    time("mul_affine (ct var-base)", n, || mul_affine::<C>(&pa, &k));
    time("mul_generator (ct)", n, || mul_generator::<C>(&k));
    time("vartime_mul", n, || vartime_mul::<C>(&pa, &k));
    time("vartime_mul_generator_add", n, || {
        vartime_mul_generator_add::<C>(&k, &k, &pa)
    });
    time("vartime_msm 100", 20, || vartime_msm::<C>(&aff, &ks));
    time("to_affine", n, || to_affine::<C>(&p));
    for m in [1usize, 10, 100] {
        let mut out = vec![affine_identity::<C>(); m];
        time(&std::format!("normalize_slice {m}"), 50, || {
            normalize_slice::<C>(&pts[..m], &mut out)
        });
    }
    time("normalize_array 4", 50, || {
        normalize_array::<C, 4>(&[pts[0], pts[1], pts[2], pts[3]])
    });
}
