//! Heap allocations of one run of every benchmarked step, as JSON on stdout, keyed by the
//! criterion benchmark id of the same step (`benches/*.rs`): `scripts/benchmarks.py` puts them
//! beside the times in `BENCHMARKS.md`.
//!
//! ```text
//! cargo run --release --example alloc_counts > target/bench/allocs.json
//! ```
//!
//! Counted with `allocation-counter` (as `tests/alloc_and_inversions.rs`), on the calling
//! thread only, after one warm-up run of each step (the process-wide tables are built then).
//! `allocs` is the number of allocations, `peak_bytes` the most heap held at once.

use std::fmt::Write as _;

use allocation_counter::measure;
use privacy_tokens::arc::{
    ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, Credential, CredentialRequest,
    HiddenNonceSuite, ServerPrivateKey,
};
use privacy_tokens::trust_token::{generate_key, Client, IssuanceState, Issuer, Method};
use privacy_tokens::voprf::privacy_pass::{self, TokenChallenge, TOKEN_TYPE};
use privacy_tokens::voprf::{
    OprfClient, OprfServer, PoprfClient, PoprfServer, VoprfClient, VoprfServer,
};
use privacy_tokens::{group, P256Sha256, P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;

const BATCHES: [usize; 3] = [1, 10, 100];
const LIMITS: [u32; 3] = [2, 100, 1 << 16];
const INFO: &[u8] = b"privacy-tokens bench info";

/// Rows `(id, allocations, peak bytes)`.
#[derive(Default)]
struct Counts(Vec<(String, u64, u64)>);

impl Counts {
    /// Runs `f` once to warm up, then counts a second run (`f` builds its own inputs outside
    /// the counted part: it returns the closure to count).
    fn add<T, G: FnOnce() -> T>(&mut self, id: String, mut f: impl FnMut() -> G) {
        f()();
        let g = f();
        let info = measure(|| {
            std::hint::black_box(g());
        });
        self.0.push((id, info.count_total, info.bytes_max));
    }
}

fn inputs(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| vec![i as u8; 98]).collect()
}

/// `f(input, rng)` for every input, with one RNG seeded with `seed`.
fn seeded<T>(ins: &[Vec<u8>], seed: u64, f: impl Fn(&[u8], &mut StdRng) -> T) -> Vec<T> {
    let mut r = StdRng::seed_from_u64(seed);
    ins.iter().map(|i| f(i, &mut r)).collect()
}

fn voprf<S: Suite>(out: &mut Counts) {
    let suite = core::str::from_utf8(S::ID).expect("ASCII");
    let mut rng = StdRng::seed_from_u64(1);
    let ins = &inputs(100);
    // OPRF
    let server = OprfServer::<S>::new(&mut rng);
    let base = format!("voprf/{suite}/OPRF");
    out.add(format!("{base}/blind"), || {
        || OprfClient::<S>::blind(&ins[0], &mut StdRng::seed_from_u64(2))
    });
    for n in BATCHES {
        let msgs: Vec<_> = ins[..n]
            .iter()
            .map(|i| OprfClient::<S>::blind(i, &mut rng).expect("blind").message)
            .collect();
        out.add(format!("{base}/blind_evaluate/{n}"), || {
            let (server, msgs) = (&server, &msgs);
            move || match n {
                1 => drop(server.blind_evaluate(&msgs[0])),
                _ => drop(server.blind_evaluate_batch(msgs)),
            }
        });
    }
    let b = OprfClient::<S>::blind(&ins[0], &mut rng).expect("blind");
    let ev = server.blind_evaluate(&b.message);
    out.add(format!("{base}/finalize/1"), || {
        let st = OprfClient::<S>::blind(&ins[0], &mut StdRng::seed_from_u64(3)).expect("blind");
        move || st.state.finalize(&ins[0], &ev)
    });
    out.add(format!("{base}/evaluate"), || || server.evaluate(&ins[0]));

    // VOPRF
    let server = VoprfServer::<S>::new(&mut rng);
    let base = format!("voprf/{suite}/VOPRF");
    out.add(format!("{base}/blind"), || {
        || VoprfClient::<S>::blind(&ins[0], &mut StdRng::seed_from_u64(2))
    });
    for n in BATCHES {
        let blind = |seed| {
            seeded(&ins[..n], seed, |i, r| {
                VoprfClient::<S>::blind(i, r).expect("blind")
            })
        };
        let msgs: Vec<_> = blind(4).iter().map(|b| b.message).collect();
        out.add(format!("{base}/blind_evaluate/{n}"), || {
            let (server, msgs) = (&server, &msgs);
            let mut r = StdRng::seed_from_u64(5);
            move || match n {
                1 => drop(server.blind_evaluate(&mut r, &msgs[0])),
                _ => drop(server.blind_evaluate_batch(&mut r, msgs)),
            }
        });
        let ev = server.blind_evaluate_batch(&mut rng, &msgs).expect("eval");
        let refs: Vec<&[u8]> = ins[..n].iter().map(Vec::as_slice).collect();
        out.add(format!("{base}/finalize/{n}"), || {
            let states: Vec<_> = blind(4).into_iter().map(|b| b.state).collect();
            let (ev, refs, pk) = (&ev, &refs, server.public_key());
            move || {
                if n == 1 {
                    let st = states.into_iter().next().expect("one");
                    drop(st.finalize(refs[0], &ev.messages[0], &ev.proof, pk));
                } else {
                    drop(VoprfClient::finalize_batch(
                        states,
                        refs,
                        &ev.messages,
                        &ev.proof,
                        pk,
                    ));
                }
            }
        });
    }
    out.add(format!("{base}/evaluate"), || || server.evaluate(&ins[0]));

    // POPRF
    let server = PoprfServer::<S>::new(&mut rng);
    let pk = *server.public_key();
    let base = format!("voprf/{suite}/POPRF");
    out.add(format!("{base}/blind"), || {
        || PoprfClient::<S>::blind(&ins[0], INFO, &pk, &mut StdRng::seed_from_u64(2))
    });
    for n in BATCHES {
        let blind = |seed| {
            seeded(&ins[..n], seed, |i, r| {
                PoprfClient::<S>::blind(i, INFO, &pk, r).expect("blind")
            })
        };
        let msgs: Vec<_> = blind(4).iter().map(|b| b.message).collect();
        out.add(format!("{base}/blind_evaluate/{n}"), || {
            let (server, msgs) = (&server, &msgs);
            let mut r = StdRng::seed_from_u64(5);
            move || match n {
                1 => drop(server.blind_evaluate(&mut r, &msgs[0], INFO)),
                _ => drop(server.blind_evaluate_batch(&mut r, msgs, INFO)),
            }
        });
        let ev = server
            .blind_evaluate_batch(&mut rng, &msgs, INFO)
            .expect("eval");
        let refs: Vec<&[u8]> = ins[..n].iter().map(Vec::as_slice).collect();
        out.add(format!("{base}/finalize/{n}"), || {
            let states: Vec<_> = blind(4).into_iter().map(|b| b.state).collect();
            let (ev, refs) = (&ev, &refs);
            move || {
                if n == 1 {
                    let st = states.into_iter().next().expect("one");
                    drop(st.finalize(refs[0], INFO, &ev.messages[0], &ev.proof));
                } else {
                    drop(PoprfClient::finalize_batch(
                        states,
                        refs,
                        INFO,
                        &ev.messages,
                        &ev.proof,
                    ));
                }
            }
        });
    }
    out.add(format!("{base}/evaluate"), || {
        || server.evaluate(&ins[0], INFO)
    });
}

fn privacy_pass(out: &mut Counts) {
    let mut rng = StdRng::seed_from_u64(1);
    let issuer = privacy_pass::Issuer::new(VoprfServer::<P384Sha384>::new(&mut rng));
    let pk = *issuer.public_key();
    let challenge = TokenChallenge::new(
        TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .expect("challenge")
    .to_bytes();
    let fresh = || privacy_pass::Client::request(&pk, &challenge, &mut StdRng::seed_from_u64(2));
    out.add("privacy_pass/request".into(), || fresh);
    let (req, _) = fresh().expect("request");
    out.add("privacy_pass/issue".into(), || {
        || issuer.issue(&mut StdRng::seed_from_u64(3), &req)
    });
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    out.add("privacy_pass/finalize".into(), || {
        let st = fresh().expect("request").1;
        move || st.finalize(&resp)
    });
    let token = fresh().expect("request").1.finalize(&resp).expect("token");
    out.add("privacy_pass/verify_token".into(), || {
        || issuer.verify_token(&token)
    });
    for n in BATCHES {
        let fresh = || {
            privacy_pass::Client::request_batch(&pk, &challenge, n, &mut StdRng::seed_from_u64(4))
        };
        out.add(format!("privacy_pass/request_batch/{n}"), || fresh);
        let bytes = fresh().expect("request").0.to_bytes();
        out.add(format!("privacy_pass/issue_batch/{n}"), || {
            || issuer.issue_batch_from_bytes(&mut StdRng::seed_from_u64(5), &bytes)
        });
        let resp = issuer
            .issue_batch_from_bytes(&mut rng, &bytes)
            .expect("issue");
        out.add(format!("privacy_pass/finalize_batch/{n}"), || {
            let st = fresh().expect("request").1;
            let resp = &resp;
            move || st.finalize_batch(resp)
        });
    }
}

fn trust_token(out: &mut Counts, method: Method) {
    let mut rng = StdRng::seed_from_u64(1);
    let (sk, pk) = generate_key(method, 7, &mut rng);
    let mut issuer = Issuer::new(method, 100);
    issuer.add_key(sk).expect("key");
    let mut client = Client::new(method, 100);
    client.add_key(pk).expect("key");
    let bit = method.has_private_metadata();
    let base = format!("trust_token/{}", method.name());
    for n in BATCHES {
        out.add(format!("{base}/begin_issuance/{n}"), || {
            || client.begin_issuance(n, &mut StdRng::seed_from_u64(2))
        });
        let req = client.begin_issuance(n, &mut rng).expect("begin");
        out.add(format!("{base}/issue/{n}"), || {
            || issuer.issue(&req.message, 7, bit, 100, &mut StdRng::seed_from_u64(3))
        });
        let resp = issuer
            .issue(&req.message, 7, bit, 100, &mut rng)
            .expect("issue");
        let stored = req.state.to_secret_bytes();
        out.add(format!("{base}/finish_issuance/{n}"), || {
            let st = IssuanceState::from_secret_bytes(&stored).expect("state");
            let (client, resp) = (&client, &resp);
            move || drop(client.finish_issuance(st, &resp.message))
        });
        if n == 1 {
            let st = IssuanceState::from_secret_bytes(&stored).expect("state");
            let tokens = client.finish_issuance(st, &resp.message).expect("finish");
            out.add(format!("{base}/begin_redemption/1"), || {
                || client.begin_redemption(&tokens[0], b"client data")
            });
            let rr = client
                .begin_redemption(&tokens[0], b"client data")
                .expect("redemption");
            out.add(format!("{base}/redeem/1"), || || issuer.redeem(&rr));
        }
    }
}

fn arc_issuance<S: ArcSuite>(out: &mut Counts) -> (ServerPrivateKey<S>, Vec<u8>) {
    let base = format!("arc/{}", S::NAME);
    let mut rng = StdRng::seed_from_u64(1);
    let server = ServerPrivateKey::<S>::random(&mut rng);
    out.add(format!("{base}/request"), || {
        || CredentialRequest::<S>::new(b"rc", &mut StdRng::seed_from_u64(2))
    });
    let req = CredentialRequest::<S>::new(b"rc", &mut rng).expect("request");
    out.add(format!("{base}/issue"), || {
        || server.issue(&req.message, &mut StdRng::seed_from_u64(3))
    });
    let resp = server.issue(&req.message, &mut rng).expect("issue");
    let pk = *server.public_key();
    out.add(format!("{base}/finalize"), || {
        let st = CredentialRequest::<S>::new(b"rc", &mut StdRng::seed_from_u64(4))
            .expect("request")
            .state;
        let resp = server
            .issue(
                &CredentialRequest::<S>::new(b"rc", &mut StdRng::seed_from_u64(4))
                    .expect("request")
                    .message,
                &mut StdRng::seed_from_u64(5),
            )
            .expect("issue");
        move || st.finalize(&pk, &resp).map(drop)
    });
    let cred = req.state.finalize(&pk, &resp).expect("credential");
    let bytes = cred.to_bytes().to_vec();
    (server, bytes)
}

fn arc_v2<S: HiddenNonceSuite>(out: &mut Counts) {
    let (server, fresh) = arc_issuance::<S>(out);
    let base = format!("arc/{}", S::NAME);
    for limit in LIMITS {
        out.add(format!("{base}/present/{limit}"), || {
            let mut c = Credential::<S>::from_bytes(&fresh).expect("credential");
            c.presentation_state(b"pc", limit).expect("state");
            move || {
                let mut c = c;
                c.presentation_state(b"pc", limit)
                    .expect("state")
                    .present(&mut StdRng::seed_from_u64(6))
                    .map(drop)
            }
        });
        let p = Credential::<S>::from_bytes(&fresh)
            .expect("credential")
            .presentation_state(b"pc", limit)
            .expect("state")
            .present(&mut StdRng::seed_from_u64(6))
            .expect("present");
        out.add(format!("{base}/verify/{limit}"), || {
            || server.verify_presentation(b"rc", b"pc", &p, limit)
        });
    }
}

fn arc_v1<S: ClearNonceSuite>(out: &mut Counts) {
    let (server, fresh) = arc_issuance::<S>(out);
    let base = format!("arc/{}", S::NAME);
    for limit in LIMITS {
        out.add(format!("{base}/present/{limit}"), || {
            let mut c = Credential::<S>::from_bytes(&fresh).expect("credential");
            c.legacy_presentation_state(b"pc", limit, &mut StdRng::seed_from_u64(7))
                .expect("state");
            move || {
                let mut c = c;
                c.legacy_presentation_state(b"pc", limit, &mut StdRng::seed_from_u64(7))
                    .expect("state")
                    .present(&mut StdRng::seed_from_u64(6))
                    .map(drop)
            }
        });
        let (p, nonce) = Credential::<S>::from_bytes(&fresh)
            .expect("credential")
            .legacy_presentation_state(b"pc", limit, &mut StdRng::seed_from_u64(7))
            .expect("state")
            .present(&mut StdRng::seed_from_u64(6))
            .expect("present");
        out.add(format!("{base}/verify/{limit}"), || {
            || server.verify_legacy_presentation(b"rc", b"pc", &p, nonce, limit)
        });
    }
}

fn main() {
    let mut out = Counts::default();
    voprf::<P384Sha384>(&mut out);
    voprf::<P256Sha256>(&mut out);
    privacy_pass(&mut out);
    for method in Method::ALL {
        trust_token(&mut out, method);
    }
    arc_v2::<ArcV2P256>(&mut out);
    arc_v1::<ArcV1P256>(&mut out);
    arc_v1::<ArcV1P384>(&mut out);
    let mut json = String::from("{\n");
    let _ = writeln!(
        json,
        "  \"backend\": \"{}\",\n  \"rayon\": {},\n  \"counts\": {{",
        group::arithmetic_backend(),
        cfg!(feature = "rayon")
    );
    for (i, (id, n, peak)) in out.0.iter().enumerate() {
        let comma = if i + 1 == out.0.len() { "" } else { "," };
        let _ = writeln!(
            json,
            "    \"{id}\": {{\"allocs\": {n}, \"peak_bytes\": {peak}}}{comma}"
        );
    }
    json.push_str("  }\n}");
    println!("{json}");
}
