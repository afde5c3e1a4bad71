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

/// The previous `hash_to_curve` (the curve crate's `osswu`, which inverts, then a square root
/// for `y`), kept here as the "before" of the timing.
macro_rules! old_hash_to_curve {
    ($name:ident, $curve:ty, $crate_:ident) => {
        fn $name(msg: &[&[u8]], dst: &[&[u8]]) -> Point<$curve> {
            use elliptic_curve::hash2curve::{hash_to_field, ExpandMsgXmd, OsswuMap};
            use primeorder::PrimeCurveParams as _;
            let mut u = [$crate_::FieldElement::ZERO; 2];
            hash_to_field::<ExpandMsgXmd<sha2::Sha256>, _>(msg, dst, &mut u).unwrap();
            let mut q = [Affine::<$curve>::IDENTITY; 2];
            for (q, e) in q.iter_mut().zip(u.iter()) {
                let (x, y_hint) = e.osswu();
                let rhs =
                    (x.square() - $crate_::FieldElement::from(3u64)) * x + <$curve>::EQUATION_B;
                let y = rhs.sqrt().unwrap();
                let y = $crate_::FieldElement::conditional_select(
                    &y,
                    &-y,
                    y.is_odd() ^ y_hint.is_odd(),
                );
                *q = Affine::<$curve> { x, y, infinity: 0 };
            }
            Point::<$curve>::from(q[0]) + q[1]
        }
    };
}
old_hash_to_curve!(old_hash_to_curve_p256, p256::NistP256, p256);
old_hash_to_curve!(old_hash_to_curve_p384, p384::NistP384, p384);

#[test]
#[ignore]
fn timing_hash_to_curve() {
    use elliptic_curve::hash2curve::{ExpandMsgXmd, GroupDigest};
    let msg: &[&[u8]] = &[b"some input of a typical length, thirty-two+ bytes"];
    let dst: &[&[u8]] = &[b"HashToGroup-OPRFV1-\x00-P384-SHA384"];
    let n = 500;
    assert_eq!(
        old_hash_to_curve_p384(msg, dst),
        C::hash_to_curve(Xmd::Sha256, msg, dst).unwrap()
    );
    time("P-384 hash_to_curve before (SHA-256)", n, || {
        old_hash_to_curve_p384(msg, dst)
    });
    time("P-384 hash_to_curve after (SHA-256)", n, || {
        C::hash_to_curve(Xmd::Sha256, msg, dst)
    });
    time("P-384 hash_to_curve after (SHA-384)", n, || {
        C::hash_to_curve(Xmd::Sha384, msg, dst)
    });
    time("P-384 crate hash_from_bytes (SHA-384)", n, || {
        C::hash_from_bytes::<ExpandMsgXmd<sha2::Sha384>>(msg, dst)
    });
    type C256 = p256::NistP256;
    time("P-256 hash_to_curve before (SHA-256)", n, || {
        old_hash_to_curve_p256(msg, dst)
    });
    time("P-256 hash_to_curve after (SHA-256)", n, || {
        C256::hash_to_curve(Xmd::Sha256, msg, dst)
    });
    time("P-256 crate hash_from_bytes (SHA-256)", n, || {
        C256::hash_from_bytes::<ExpandMsgXmd<sha2::Sha256>>(msg, dst)
    });
    let mut rng = rand::thread_rng();
    let input = [7u8; 98];
    let server = crate::voprf::OprfServer::<crate::P384Sha384>::new(&mut rng);
    time("P-384 OprfServer::evaluate", n, || server.evaluate(&input));
    let server = crate::voprf::OprfServer::<crate::P256Sha256>::new(&mut rng);
    time("P-256 OprfServer::evaluate", n, || server.evaluate(&input));
    let u = p384::FieldElement::random(&mut rng);
    time("P-384 map_to_curve (ours)", n, || {
        sswu::map_to_curve::<C>(&u)
    });
    time("P-384 pow (p-3)/4 (chain)", n, || {
        super::field::pow_p384_c1(&u)
    });
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
