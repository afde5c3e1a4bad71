//! Privacy Pass (RFC 9578 token type 0x0001, VOPRF P-384) benchmarks:
//! `privacy_pass/<step>[/<batch>]`.
//!
//! ```text
//! cargo bench --bench privacy_pass
//! cargo bench --bench privacy_pass -- 'issue_batch/100$'
//! ```
//!
//! Single issuance: `request` (client), `issue` (issuer), `finalize` (client) and
//! `verify_token` (issuer or origin). Amortized batched issuance
//! (draft-ietf-privacypass-batched-tokens) at batches 1, 10 and 100: `request_batch` (client),
//! `issue_batch` (issuer, from the request's bytes: [`Issuer::issue_batch_from_bytes`], the
//! path facing the network) and `finalize_batch` (client: one proof check, then unblinding).
//! Client states are consumed by `finalize`: each iteration gets a fresh one, rebuilt from the
//! same seeded RNG outside the timed part (so one issuer response stays valid).

mod support;

use criterion::{black_box, BatchSize, BenchmarkId, Criterion};
use privacy_tokens::voprf::privacy_pass::{Client, Issuer, TokenChallenge, TOKEN_TYPE};
use privacy_tokens::voprf::VoprfServer;
use privacy_tokens::P384Sha384;
use rand::rngs::StdRng;
use rand::SeedableRng;

const BATCHES: [usize; 3] = [1, 10, 100];

fn benches(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(1);
    let issuer = Issuer::new(VoprfServer::<P384Sha384>::new(&mut rng));
    let pk = *issuer.public_key();
    let challenge = TokenChallenge::new(
        TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .expect("challenge")
    .to_bytes();
    let mut g = c.benchmark_group("privacy_pass");

    support::configure(&mut g, 1);
    g.bench_function("request", |b| {
        b.iter(|| Client::request(&pk, black_box(&challenge), &mut rng).expect("request"))
    });
    let fresh =
        || Client::request(&pk, &challenge, &mut StdRng::seed_from_u64(2)).expect("request");
    let (req, _) = fresh();
    g.bench_function("issue", |b| {
        b.iter(|| issuer.issue(&mut rng, black_box(&req)).expect("issue"))
    });
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    g.bench_function("finalize", |b| {
        b.iter_batched(
            || fresh().1,
            |st| st.finalize(black_box(&resp)).expect("finalize"),
            BatchSize::SmallInput,
        )
    });
    let token = fresh().1.finalize(&resp).expect("finalize");
    g.bench_function("verify_token", |b| {
        b.iter(|| issuer.verify_token(black_box(&token)).expect("verify"))
    });

    for n in BATCHES {
        support::configure(&mut g, n);
        g.bench_function(BenchmarkId::new("request_batch", n), |b| {
            b.iter(|| {
                Client::request_batch(&pk, black_box(&challenge), n, &mut rng)
                    .expect("request_batch")
            })
        });
        let fresh = || {
            Client::request_batch(&pk, &challenge, n, &mut StdRng::seed_from_u64(3))
                .expect("request_batch")
        };
        let bytes = fresh().0.to_bytes();
        g.bench_function(BenchmarkId::new("issue_batch", n), |b| {
            b.iter(|| {
                issuer
                    .issue_batch_from_bytes(&mut rng, black_box(&bytes))
                    .expect("issue_batch")
            })
        });
        let resp = issuer
            .issue_batch_from_bytes(&mut rng, &bytes)
            .expect("issue_batch");
        g.bench_function(BenchmarkId::new("finalize_batch", n), |b| {
            b.iter_batched(
                || fresh().1,
                |st| st.finalize_batch(black_box(&resp)).expect("finalize_batch"),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

fn main() {
    // `criterion_main!` expanded by hand: its `pub fn` would trip `missing_docs`.
    let mut c = support::criterion();
    benches(&mut c);
    c.final_summary();
}
