//! ARC benchmarks: `arc/<version>/<suite>/<step>[/<limit>]`.
//!
//! ```text
//! cargo bench --bench arc --features mult-counter            # with scalar-multiplication counts
//! cargo bench --bench arc -- 'arc/v2/P256/present'
//! ```
//!
//! Steps: `request` (client), `issue` (server: verify the request, respond, prove), `finalize`
//! (client: verify the response, unblind), `present` (client) and `verify` (server). `present`
//! and `verify` depend on the presentation limit (v2 range proof with `k = ceil(log2 limit)`
//! bits) and run at limits 2, 100 and 2^16; the legacy v1 suites send the nonce in the clear, so
//! their cost does not depend on the limit (they run at the same three limits all the same).
//! Before the timings, a table prints the heap allocations and (feature `mult-counter`) the
//! scalar multiplications of one run of each step: constant-time fixed-base (tables for G, H
//! and the key), constant-time variable-base, and variable-time terms over public data.

use std::time::Duration;

use allocation_counter::measure;
use criterion::{black_box, BatchSize, Criterion};
use privacy_tokens::arc::{
    count, ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, Credential,
    CredentialRequest, HiddenNonceSuite, ServerPrivateKey,
};

const REQ_CTX: &[u8] = b"bench request context";
const PRES_CTX: &[u8] = b"bench presentation context";
const LIMITS: [u32; 3] = [2, 100, 1 << 16];

fn name<S: ArcSuite>() -> &'static str {
    S::NAME
}

/// Allocations and multiplications of one call.
fn profile<T>(f: impl FnOnce() -> T) -> (u64, count::MultCounts, T) {
    let mut out = None;
    count::reset();
    let info = measure(|| out = Some(f()));
    let m = count::counts();
    (info.count_total, m, out.expect("ran"))
}

fn row(step: &str, limit: &str, allocs: u64, m: count::MultCounts) {
    println!(
        "| {step:<24} | {limit:>6} | {allocs:>6} | {:>5} | {:>5} | {:>5} | {:>5} |",
        m.fixed,
        m.variable,
        m.vartime,
        m.total()
    );
}

fn table_v2<S: HiddenNonceSuite>() {
    let mut rng = rand::rng();
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let (a, m, req) = profile(|| CredentialRequest::<S>::new(REQ_CTX, &mut rand::rng()));
    let req = req.expect("request");
    row(&format!("arc/{}/request", name::<S>()), "-", a, m);
    let (a, m, resp) = profile(|| server.issue(&req.message, &mut rand::rng()));
    let resp = resp.expect("issue");
    row(&format!("arc/{}/issue", name::<S>()), "-", a, m);
    let pk = *server.public_key();
    let (a, m, cred) = profile(|| req.state.finalize(&pk, &resp));
    let cred = cred.expect("finalize");
    row(&format!("arc/{}/finalize", name::<S>()), "-", a, m);
    let fresh = cred.to_bytes();
    for limit in LIMITS {
        // A fresh copy per limit: a context keeps the limit it was first used with.
        let mut cred = Credential::<S>::from_bytes(&fresh).expect("credential");
        let mut st = cred.presentation_state(PRES_CTX, limit).expect("state");
        let (a, m, p) = profile(|| st.present(&mut rand::rng()));
        let p = p.expect("present");
        row(
            &format!("arc/{}/present", name::<S>()),
            &limit.to_string(),
            a,
            m,
        );
        let (a, m, t) = profile(|| server.verify_presentation(REQ_CTX, PRES_CTX, &p, limit));
        t.expect("verify");
        row(
            &format!("arc/{}/verify", name::<S>()),
            &limit.to_string(),
            a,
            m,
        );
    }
}

fn table_v1<S: ClearNonceSuite>() {
    let mut rng = rand::rng();
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let (a, m, req) = profile(|| CredentialRequest::<S>::new(REQ_CTX, &mut rand::rng()));
    let req = req.expect("request");
    row(&format!("arc/{}/request", name::<S>()), "-", a, m);
    let (a, m, resp) = profile(|| server.issue(&req.message, &mut rand::rng()));
    let resp = resp.expect("issue");
    row(&format!("arc/{}/issue", name::<S>()), "-", a, m);
    let pk = *server.public_key();
    let (a, m, cred) = profile(|| req.state.finalize(&pk, &resp));
    let mut cred = cred.expect("finalize");
    row(&format!("arc/{}/finalize", name::<S>()), "-", a, m);
    let mut st = cred
        .legacy_presentation_state(PRES_CTX, 100, &mut rand::rng())
        .expect("state");
    let (a, m, p) = profile(|| st.present(&mut rand::rng()));
    let (p, nonce) = p.expect("present");
    row(&format!("arc/{}/present", name::<S>()), "any", a, m);
    let (a, m, t) =
        profile(|| server.verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, nonce, 100));
    t.expect("verify");
    row(&format!("arc/{}/verify", name::<S>()), "any", a, m);
}

fn issuance<S: ArcSuite>(c: &mut Criterion) {
    let mut rng = rand::rng();
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let base = format!("arc/{}", name::<S>());
    c.bench_function(&format!("{base}/request"), |b| {
        b.iter(|| CredentialRequest::<S>::new(black_box(REQ_CTX), &mut rng).expect("request"))
    });
    let req = CredentialRequest::<S>::new(REQ_CTX, &mut rng).expect("request");
    c.bench_function(&format!("{base}/issue"), |b| {
        b.iter(|| {
            server
                .issue(black_box(&req.message), &mut rng)
                .expect("issue")
        })
    });
    let pk = *server.public_key();
    c.bench_function(&format!("{base}/finalize"), |b| {
        b.iter_batched(
            || {
                let mut rng = rand::rng();
                let r = CredentialRequest::<S>::new(REQ_CTX, &mut rng).expect("request");
                let resp = server.issue(&r.message, &mut rng).expect("issue");
                (r, resp)
            },
            |(r, resp)| r.state.finalize(&pk, &resp).expect("finalize"),
            BatchSize::SmallInput,
        )
    });
}

fn presentation_v2<S: HiddenNonceSuite>(c: &mut Criterion) {
    let mut rng = rand::rng();
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let req = CredentialRequest::<S>::new(REQ_CTX, &mut rng).expect("request");
    let resp = server.issue(&req.message, &mut rng).expect("issue");
    let cred = req
        .state
        .finalize(server.public_key(), &resp)
        .expect("finalize");
    let base = format!("arc/{}", name::<S>());
    let fresh = cred.to_bytes();
    for limit in LIMITS {
        // Each run presents from a fresh copy whose context counter (and its `T`) already
        // exists, as the old per-state setup did.
        c.bench_function(&format!("{base}/present/{limit}"), |b| {
            b.iter_batched_ref(
                || {
                    let mut c = Credential::<S>::from_bytes(&fresh).expect("credential");
                    c.presentation_state(PRES_CTX, limit).expect("state");
                    c
                },
                |c| {
                    c.presentation_state(PRES_CTX, limit)
                        .expect("state")
                        .present(&mut rand::rng())
                        .expect("present")
                },
                BatchSize::SmallInput,
            )
        });
        let p = Credential::<S>::from_bytes(&fresh)
            .expect("credential")
            .presentation_state(PRES_CTX, limit)
            .expect("state")
            .present(&mut rng)
            .expect("present");
        c.bench_function(&format!("{base}/verify/{limit}"), |b| {
            b.iter(|| {
                server
                    .verify_presentation(REQ_CTX, PRES_CTX, black_box(&p), limit)
                    .expect("verify")
            })
        });
    }
}

fn presentation_v1<S: ClearNonceSuite>(c: &mut Criterion) {
    let mut rng = rand::rng();
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let req = CredentialRequest::<S>::new(REQ_CTX, &mut rng).expect("request");
    let resp = server.issue(&req.message, &mut rng).expect("issue");
    let cred = req
        .state
        .finalize(server.public_key(), &resp)
        .expect("finalize");
    let base = format!("arc/{}", name::<S>());
    let fresh = cred.to_bytes();
    // The nonce is sent in the clear: the cost does not depend on the limit, measured at each
    // of the v2 limits all the same.
    for limit in LIMITS {
        c.bench_function(&format!("{base}/present/{limit}"), |b| {
            b.iter_batched_ref(
                || {
                    let mut c = Credential::<S>::from_bytes(&fresh).expect("credential");
                    c.legacy_presentation_state(PRES_CTX, limit, &mut rand::rng())
                        .expect("state");
                    c
                },
                |c| {
                    c.legacy_presentation_state(PRES_CTX, limit, &mut rand::rng())
                        .expect("state")
                        .present(&mut rand::rng())
                        .expect("present")
                },
                BatchSize::SmallInput,
            )
        });
        let (p, nonce) = Credential::<S>::from_bytes(&fresh)
            .expect("credential")
            .legacy_presentation_state(PRES_CTX, limit, &mut rand::rng())
            .expect("state")
            .present(&mut rng)
            .expect("present");
        c.bench_function(&format!("{base}/verify/{limit}"), |b| {
            b.iter(|| {
                server
                    .verify_legacy_presentation(REQ_CTX, PRES_CTX, black_box(&p), nonce, limit)
                    .expect("verify")
            })
        });
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

fn main() {
    println!("| step                     |  limit | allocs | fixed |   var | vtime | mults |");
    println!("| ------------------------ | -----: | -----: | ----: | ----: | ----: | ----: |");
    table_v2::<ArcV2P256>();
    table_v1::<ArcV1P256>();
    table_v1::<ArcV1P384>();
    // `criterion_main!` expanded by hand (its `pub fn` would trip `missing_docs`).
    let mut c = config().configure_from_args();
    issuance::<ArcV2P256>(&mut c);
    presentation_v2::<ArcV2P256>(&mut c);
    issuance::<ArcV1P256>(&mut c);
    presentation_v1::<ArcV1P256>(&mut c);
    issuance::<ArcV1P384>(&mut c);
    presentation_v1::<ArcV1P384>(&mut c);
    c.final_summary();
}
