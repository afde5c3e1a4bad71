//! RFC 9497 OPRF / VOPRF / POPRF benchmarks.
//!
//! Benchmark ids are `voprf/<suite>/<mode>/<step>[/<batch>]` for this crate and, with the crate
//! feature `peer-bench`, `voprf-crate/<suite>/<mode>/<step>[/<batch>]` for the same operations of
//! the `voprf` crate 0.5.0 in the same binary (the feature turns on the curve crates' `voprf`
//! suite traits that crate needs):
//!
//! ```text
//! cargo bench --bench voprf                                          # this crate only
//! cargo bench --bench voprf --features peer-bench                    # both crates
//! cargo bench --bench voprf --features peer-bench -- 'P384-SHA384/VOPRF'
//! cargo bench --bench voprf --features peer-bench -- 'ristretto255-SHA512|P521-SHA512'
//! ```
//!
//! Peer suites: P384-SHA384 and P256-SHA256 (p384/p256 0.13 `voprf` features: the renamed
//! optional dependencies `p384_13`, `p256_13` of `peer-bench`), ristretto255-SHA512
//! (the `voprf` crate's own suite on curve25519-dalek 4) and P521-SHA512 (p521 0.13.3 `voprf`).
//!
//! Steps: `blind` (client), `blind_evaluate` (server; batch 1 is the single-element API, larger
//! batches the batch API), `finalize` (client; batch 1 single, larger batches the batch API;
//! OPRF has no batched finalize in either crate) and `evaluate` (server, direct PRF evaluation).
//! Inputs are 98 bytes, the size of a Privacy Pass token input, for both suites.
//!
//! Sampling is kept small (10 samples, flat sampling for batches) so a full run stays sane on a
//! small machine; expect noise.

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    black_box, BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use privacy_tokens::voprf::{
    OprfClient, OprfServer, PoprfClient, PoprfServer, SecretKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{
    hazmat, Decaf448Shake256, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite,
};
use rand::Rng;

/// A Privacy Pass token input is 98 bytes.
const INPUT_LEN: usize = 98;
/// Batch sizes of `blind_evaluate` and `finalize`.
const BATCHES: [usize; 3] = [1, 10, 100];
/// The POPRF public info.
const INFO: &[u8] = b"privacy-tokens bench info";

fn inputs(n: usize) -> Vec<[u8; INPUT_LEN]> {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| {
            let mut i = [0u8; INPUT_LEN];
            rng.fill_bytes(&mut i);
            i
        })
        .collect()
}

/// Per-batch group settings: throughput in elements, longer and flat sampling for big batches.
fn configure(g: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    g.throughput(Throughput::Elements(n as u64));
    if n >= 100 {
        g.sampling_mode(SamplingMode::Flat)
            .measurement_time(Duration::from_secs(3));
    } else if n > 1 {
        g.sampling_mode(SamplingMode::Flat)
            .measurement_time(Duration::from_secs(2));
    } else {
        g.sampling_mode(SamplingMode::Auto)
            .measurement_time(Duration::from_secs(1));
    }
}

fn group<'a>(
    c: &'a mut Criterion,
    krate: &str,
    suite: &str,
    mode: &str,
) -> BenchmarkGroup<'a, WallTime> {
    c.benchmark_group(format!("{krate}/{suite}/{mode}"))
}

/// Blind scalars as bytes, to rebuild fresh client states cheaply through `hazmat`.
fn blinds<S: Suite>(n: usize) -> Vec<Vec<u8>> {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| {
            SecretKey::<S>::random(&mut rng)
                .to_bytes()
                .as_ref()
                .to_vec()
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// This crate

fn bench_oprf<S: Suite>(c: &mut Criterion) {
    let suite = core::str::from_utf8(S::ID).expect("ASCII suite id");
    let mut rng = rand::rng();
    let server = OprfServer::<S>::new(&mut rng);
    let mut g = group(c, "voprf", suite, "OPRF");

    let input = inputs(1)[0];
    configure(&mut g, 1);
    g.bench_function("blind", |b| {
        b.iter(|| OprfClient::<S>::blind(black_box(&input), &mut rng).expect("blind"))
    });

    for n in BATCHES {
        let ins = inputs(n);
        let msgs: Vec<_> = ins
            .iter()
            .map(|i| OprfClient::<S>::blind(i, &mut rng).expect("blind").message)
            .collect();
        configure(&mut g, n);
        g.bench_with_input(BenchmarkId::new("blind_evaluate", n), &msgs, |b, msgs| {
            if n == 1 {
                b.iter(|| server.blind_evaluate(black_box(&msgs[0])))
            } else {
                b.iter(|| {
                    server
                        .blind_evaluate_batch(black_box(msgs))
                        .expect("blind_evaluate_batch")
                })
            }
        });
    }

    // No batched finalize in OPRF mode.
    let blind = blinds::<S>(1);
    let msg = hazmat::oprf_blind_with::<S>(&input, &blind[0])
        .expect("blind")
        .message;
    let ev = server.blind_evaluate(&msg);
    configure(&mut g, 1);
    g.bench_function(BenchmarkId::new("finalize", 1), |b| {
        b.iter_batched(
            || {
                hazmat::oprf_blind_with::<S>(&input, &blind[0])
                    .expect("blind")
                    .state
            },
            |st| st.finalize(black_box(&input), &ev).expect("finalize"),
            BatchSize::SmallInput,
        )
    });

    g.bench_function("evaluate", |b| {
        b.iter(|| server.evaluate(black_box(&input)).expect("evaluate"))
    });
    g.finish();
}

fn bench_voprf<S: Suite>(c: &mut Criterion) {
    let suite = core::str::from_utf8(S::ID).expect("ASCII suite id");
    let mut rng = rand::rng();
    let server = VoprfServer::<S>::new(&mut rng);
    let pk = *server.public_key();
    let mut g = group(c, "voprf", suite, "VOPRF");

    let input = inputs(1)[0];
    configure(&mut g, 1);
    g.bench_function("blind", |b| {
        b.iter(|| VoprfClient::<S>::blind(black_box(&input), &mut rng).expect("blind"))
    });

    for n in BATCHES {
        let ins = inputs(n);
        let msgs: Vec<_> = ins
            .iter()
            .map(|i| VoprfClient::<S>::blind(i, &mut rng).expect("blind").message)
            .collect();
        configure(&mut g, n);
        g.bench_with_input(BenchmarkId::new("blind_evaluate", n), &msgs, |b, msgs| {
            if n == 1 {
                b.iter(|| {
                    server
                        .blind_evaluate(&mut rng, black_box(&msgs[0]))
                        .expect("blind_evaluate")
                })
            } else {
                b.iter(|| {
                    server
                        .blind_evaluate_batch(&mut rng, black_box(msgs))
                        .expect("blind_evaluate_batch")
                })
            }
        });
    }

    for n in BATCHES {
        let ins = inputs(n);
        let refs: Vec<&[u8]> = ins.iter().map(|i| i.as_slice()).collect();
        let bl = blinds::<S>(n);
        // Fresh states with fixed blinds give the same blinded elements, so one server answer
        // stays valid for every iteration.
        let fresh = || -> Vec<VoprfClient<S>> {
            ins.iter()
                .zip(&bl)
                .map(|(i, b)| hazmat::voprf_blind_with::<S>(i, b).expect("blind").state)
                .collect()
        };
        let msgs: Vec<_> = fresh().iter().map(|s| s.blinded_element()).collect();
        let ev = server
            .blind_evaluate_batch(&mut rng, &msgs)
            .expect("blind_evaluate_batch");
        configure(&mut g, n);
        g.bench_function(BenchmarkId::new("finalize", n), |b| {
            if n == 1 {
                b.iter_batched(
                    || fresh().pop().expect("one state"),
                    |st| {
                        st.finalize(black_box(refs[0]), &ev.messages[0], &ev.proof, &pk)
                            .expect("finalize")
                    },
                    BatchSize::SmallInput,
                )
            } else {
                b.iter_batched(
                    fresh,
                    |states| {
                        VoprfClient::finalize_batch(
                            states,
                            black_box(&refs),
                            &ev.messages,
                            &ev.proof,
                            &pk,
                        )
                        .expect("finalize_batch")
                    },
                    BatchSize::SmallInput,
                )
            }
        });
    }

    configure(&mut g, 1);
    g.bench_function("evaluate", |b| {
        b.iter(|| server.evaluate(black_box(&input)).expect("evaluate"))
    });
    g.finish();
}

fn bench_poprf<S: Suite>(c: &mut Criterion) {
    let suite = core::str::from_utf8(S::ID).expect("ASCII suite id");
    let mut rng = rand::rng();
    let server = PoprfServer::<S>::new(&mut rng);
    let pk = *server.public_key();
    let mut g = group(c, "voprf", suite, "POPRF");

    let input = inputs(1)[0];
    configure(&mut g, 1);
    g.bench_function("blind", |b| {
        b.iter(|| PoprfClient::<S>::blind(black_box(&input), INFO, &pk, &mut rng).expect("blind"))
    });

    for n in BATCHES {
        let ins = inputs(n);
        let msgs: Vec<_> = ins
            .iter()
            .map(|i| {
                PoprfClient::<S>::blind(i, INFO, &pk, &mut rng)
                    .expect("blind")
                    .message
            })
            .collect();
        configure(&mut g, n);
        g.bench_with_input(BenchmarkId::new("blind_evaluate", n), &msgs, |b, msgs| {
            if n == 1 {
                b.iter(|| {
                    server
                        .blind_evaluate(&mut rng, black_box(&msgs[0]), INFO)
                        .expect("blind_evaluate")
                })
            } else {
                b.iter(|| {
                    server
                        .blind_evaluate_batch(&mut rng, black_box(msgs), INFO)
                        .expect("blind_evaluate_batch")
                })
            }
        });
    }

    for n in BATCHES {
        let ins = inputs(n);
        let refs: Vec<&[u8]> = ins.iter().map(|i| i.as_slice()).collect();
        let bl = blinds::<S>(n);
        let fresh = || -> Vec<PoprfClient<S>> {
            ins.iter()
                .zip(&bl)
                .map(|(i, b)| {
                    hazmat::poprf_blind_with::<S>(i, INFO, &pk, b)
                        .expect("blind")
                        .state
                })
                .collect()
        };
        let msgs: Vec<_> = ins
            .iter()
            .zip(&bl)
            .map(|(i, b)| {
                hazmat::poprf_blind_with::<S>(i, INFO, &pk, b)
                    .expect("blind")
                    .message
            })
            .collect();
        let ev = server
            .blind_evaluate_batch(&mut rng, &msgs, INFO)
            .expect("blind_evaluate_batch");
        configure(&mut g, n);
        g.bench_function(BenchmarkId::new("finalize", n), |b| {
            if n == 1 {
                b.iter_batched(
                    || fresh().pop().expect("one state"),
                    |st| {
                        st.finalize(black_box(refs[0]), INFO, &ev.messages[0], &ev.proof)
                            .expect("finalize")
                    },
                    BatchSize::SmallInput,
                )
            } else {
                b.iter_batched(
                    fresh,
                    |states| {
                        PoprfClient::finalize_batch(
                            states,
                            black_box(&refs),
                            INFO,
                            &ev.messages,
                            &ev.proof,
                        )
                        .expect("finalize_batch")
                    },
                    BatchSize::SmallInput,
                )
            }
        });
    }

    configure(&mut g, 1);
    g.bench_function("evaluate", |b| {
        b.iter(|| server.evaluate(black_box(&input), INFO).expect("evaluate"))
    });
    g.finish();
}

/// The group primitives the protocol costs are measured against: `group/<curve>/<op>`.
fn bench_group<C: privacy_tokens::group::Curve>(c: &mut Criterion, name: &str) {
    use privacy_tokens::group as g;
    let mut rng = rand::rng();
    let k = g::random_scalar::<C>(&mut rng);
    let p = g::to_affine::<C>(&g::mul_generator::<C>(&g::random_scalar::<C>(&mut rng)));
    let mut grp = c.benchmark_group(format!("group/{name}"));
    grp.bench_function("mul_ct", |b| {
        b.iter(|| g::mul_affine::<C>(black_box(&p), black_box(&k)))
    });
    grp.bench_function("mul_generator_ct", |b| {
        b.iter(|| g::mul_generator::<C>(black_box(&k)))
    });
    grp.bench_function("vartime_mul", |b| {
        b.iter(|| g::vartime_mul::<C>(black_box(&p), black_box(&k)))
    });
    let pts: Vec<_> = (0..100).map(|_| p).collect();
    let ks: Vec<_> = (0..100).map(|_| g::random_scalar::<C>(&mut rng)).collect();
    grp.bench_function("vartime_msm/100", |b| {
        b.iter(|| g::vartime_msm::<C>(black_box(&pts), black_box(&ks)))
    });
    let proj: Vec<_> = (0..100)
        .map(|_| g::mul_generator::<C>(&g::random_scalar::<C>(&mut rng)))
        .collect();
    let mut out = vec![g::affine_identity::<C>(); 100];
    grp.bench_function("normalize/100", |b| {
        b.iter(|| g::normalize_slice::<C>(black_box(&proj), &mut out))
    });
    grp.bench_function("to_affine", |b| {
        b.iter(|| g::to_affine::<C>(black_box(&proj[0])))
    });
    grp.finish();
}

fn privacy_tokens_benches(c: &mut Criterion) {
    bench_group::<p384::NistP384>(c, "P-384");
    bench_group::<p256::NistP256>(c, "P-256");
    bench_oprf::<P384Sha384>(c);
    bench_voprf::<P384Sha384>(c);
    bench_poprf::<P384Sha384>(c);
    bench_oprf::<P256Sha256>(c);
    bench_voprf::<P256Sha256>(c);
    bench_poprf::<P256Sha256>(c);
    bench_oprf::<Ristretto255Sha512>(c);
    bench_voprf::<Ristretto255Sha512>(c);
    bench_poprf::<Ristretto255Sha512>(c);
    bench_oprf::<P521Sha512>(c);
    bench_voprf::<P521Sha512>(c);
    bench_poprf::<P521Sha512>(c);
    // No peer: the `voprf` crate has no decaf448 suite.
    bench_oprf::<Decaf448Shake256>(c);
    bench_voprf::<Decaf448Shake256>(c);
    bench_poprf::<Decaf448Shake256>(c);
}

// ---------------------------------------------------------------------------------------------
// The `voprf` crate 0.5.0

#[cfg(feature = "peer-bench")]
mod peer {
    use super::*;

    /// The same benches for one `voprf` crate suite (a macro: that crate's bounds are verbose).
    macro_rules! peer_suite {
        ($fn_name:ident, $cs:ty, $suite:literal) => {
            pub(super) fn $fn_name(c: &mut Criterion) {
                use voprf::{
                    OprfClient, OprfServer, PoprfClient, PoprfServer, VoprfClient, VoprfServer,
                };
                let mut rng = rand08::thread_rng();
                let input = inputs(1)[0];

                // OPRF
                {
                    let server = OprfServer::<$cs>::new(&mut rng).expect("server");
                    let mut g = group(c, "voprf-crate", $suite, "OPRF");
                    configure(&mut g, 1);
                    g.bench_function("blind", |b| {
                        b.iter(|| {
                            OprfClient::<$cs>::blind(black_box(&input), &mut rng).expect("blind")
                        })
                    });
                    let bl = OprfClient::<$cs>::blind(&input, &mut rng).expect("blind");
                    g.bench_function(BenchmarkId::new("blind_evaluate", 1), |b| {
                        b.iter(|| server.blind_evaluate(black_box(&bl.message)))
                    });
                    let ev = server.blind_evaluate(&bl.message);
                    g.bench_function(BenchmarkId::new("finalize", 1), |b| {
                        b.iter(|| bl.state.finalize(black_box(&input), &ev).expect("finalize"))
                    });
                    g.bench_function("evaluate", |b| {
                        b.iter(|| server.evaluate(black_box(&input)).expect("evaluate"))
                    });
                    g.finish();
                }

                // VOPRF
                {
                    let server = VoprfServer::<$cs>::new(&mut rng).expect("server");
                    let pk = server.get_public_key();
                    let mut g = group(c, "voprf-crate", $suite, "VOPRF");
                    configure(&mut g, 1);
                    g.bench_function("blind", |b| {
                        b.iter(|| {
                            VoprfClient::<$cs>::blind(black_box(&input), &mut rng).expect("blind")
                        })
                    });
                    for n in BATCHES {
                        let ins = inputs(n);
                        let bls: Vec<_> = ins
                            .iter()
                            .map(|i| VoprfClient::<$cs>::blind(i, &mut rng).expect("blind"))
                            .collect();
                        let msgs: Vec<_> = bls.iter().map(|r| r.message.clone()).collect();
                        let states: Vec<_> = bls.iter().map(|r| r.state.clone()).collect();
                        configure(&mut g, n);
                        g.bench_function(BenchmarkId::new("blind_evaluate", n), |b| {
                            if n == 1 {
                                b.iter(|| server.blind_evaluate(&mut rng, black_box(&msgs[0])))
                            } else {
                                b.iter(|| {
                                    server
                                        .batch_blind_evaluate(&mut rng, black_box(&msgs))
                                        .expect("batch_blind_evaluate")
                                })
                            }
                        });
                        let ev = server
                            .batch_blind_evaluate(&mut rng, &msgs)
                            .expect("batch_blind_evaluate");
                        // `finalize` borrows the state here, so no per-iteration setup is needed.
                        g.bench_function(BenchmarkId::new("finalize", n), |b| {
                            if n == 1 {
                                b.iter(|| {
                                    states[0]
                                        .finalize(
                                            black_box(&ins[0]),
                                            &ev.messages[0],
                                            &ev.proof,
                                            pk,
                                        )
                                        .expect("finalize")
                                })
                            } else {
                                b.iter(|| {
                                    VoprfClient::batch_finalize(
                                        black_box(&ins),
                                        &states,
                                        &ev.messages,
                                        &ev.proof,
                                        pk,
                                    )
                                    .expect("batch_finalize")
                                    .collect::<Result<Vec<_>, _>>()
                                    .expect("finalize")
                                })
                            }
                        });
                    }
                    configure(&mut g, 1);
                    g.bench_function("evaluate", |b| {
                        b.iter(|| server.evaluate(black_box(&input)).expect("evaluate"))
                    });
                    g.finish();
                }

                // POPRF
                {
                    let server = PoprfServer::<$cs>::new(&mut rng).expect("server");
                    let pk = server.get_public_key();
                    let mut g = group(c, "voprf-crate", $suite, "POPRF");
                    configure(&mut g, 1);
                    g.bench_function("blind", |b| {
                        b.iter(|| {
                            PoprfClient::<$cs>::blind(black_box(&input), &mut rng).expect("blind")
                        })
                    });
                    for n in BATCHES {
                        let ins = inputs(n);
                        let bls: Vec<_> = ins
                            .iter()
                            .map(|i| PoprfClient::<$cs>::blind(i, &mut rng).expect("blind"))
                            .collect();
                        let msgs: Vec<_> = bls.iter().map(|r| r.message.clone()).collect();
                        let states: Vec<_> = bls.iter().map(|r| r.state.clone()).collect();
                        configure(&mut g, n);
                        g.bench_function(BenchmarkId::new("blind_evaluate", n), |b| {
                            if n == 1 {
                                b.iter(|| {
                                    server
                                        .blind_evaluate(&mut rng, black_box(&msgs[0]), Some(INFO))
                                        .expect("blind_evaluate")
                                })
                            } else {
                                b.iter(|| {
                                    server
                                        .batch_blind_evaluate(
                                            &mut rng,
                                            black_box(&msgs),
                                            Some(INFO),
                                        )
                                        .expect("batch_blind_evaluate")
                                })
                            }
                        });
                        let ev = server
                            .batch_blind_evaluate(&mut rng, &msgs, Some(INFO))
                            .expect("batch_blind_evaluate");
                        g.bench_function(BenchmarkId::new("finalize", n), |b| {
                            if n == 1 {
                                b.iter(|| {
                                    states[0]
                                        .finalize(
                                            black_box(&ins[0]),
                                            &ev.messages[0],
                                            &ev.proof,
                                            pk,
                                            Some(INFO),
                                        )
                                        .expect("finalize")
                                })
                            } else {
                                b.iter(|| {
                                    PoprfClient::batch_finalize(
                                        black_box(&ins).iter().map(|i| i.as_slice()),
                                        &states,
                                        &ev.messages,
                                        &ev.proof,
                                        pk,
                                        Some(INFO),
                                    )
                                    .expect("batch_finalize")
                                    .collect::<Result<Vec<_>, _>>()
                                    .expect("finalize")
                                })
                            }
                        });
                    }
                    configure(&mut g, 1);
                    g.bench_function("evaluate", |b| {
                        b.iter(|| {
                            server
                                .evaluate(black_box(&input), Some(INFO))
                                .expect("evaluate")
                        })
                    });
                    g.finish();
                }
            }
        };
    }

    peer_suite!(p384, p384_13::NistP384, "P384-SHA384");
    peer_suite!(p256, p256_13::NistP256, "P256-SHA256");
    // The `voprf` crate's own ristretto255 suite (its default `ristretto255-ciphersuite` feature,
    // curve25519-dalek 4) and P-521 through p521 0.13.3's `voprf` suite trait.
    peer_suite!(ristretto255, voprf::Ristretto255, "ristretto255-SHA512");
    peer_suite!(p521, p521_13::NistP521, "P521-SHA512");
}

fn peer_benches(_c: &mut Criterion) {
    #[cfg(feature = "peer-bench")]
    {
        peer::p384(_c);
        peer::p256(_c);
        peer::ristretto255(_c);
        peer::p521(_c);
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
}

fn main() {
    // `criterion_main!` / `criterion_group!` expanded by hand: the macro's `pub fn` would trip
    // the crate's `missing_docs` lint.
    let mut c = config().configure_from_args();
    privacy_tokens_benches(&mut c);
    peer_benches(&mut c);
    c.final_summary();
}
