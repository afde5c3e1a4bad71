//! Criterion benches of the Trust Token methods: `trust_token/<method>/<step>/<batch>` for
//! begin_issuance, issue, finish_issuance (batch 1, 10, 100) and begin_redemption, redeem.
//!
//! ```text
//! cargo bench --bench trust_token
//! cargo bench --bench trust_token -- 'pst_v1_pmb/issue/1$'
//! ```
//!
//! BoringSSL on the reference 2-core VM (`shared/specs/trust-tokens.md` §5), batch 1, ops/s:
//! pst_v1_voprf issue 333, finish 335, redeem 1465; pst_v1_pmb issue 126, finish 110,
//! redeem 434. Its finish measurement includes `TRUST_TOKEN_CLIENT_dup_for_testing`; ours
//! consumes a state rebuilt from its secret bytes outside the timed part.

mod support;

use criterion::{black_box, BatchSize, BenchmarkId, Criterion};
use privacy_tokens::trust_token::{generate_key, Client, IssuanceState, Issuer, Method};
use rand::rngs::StdRng;
use rand::SeedableRng;

const BATCHES: [usize; 3] = [1, 10, 100];
const KEY_ID: u32 = 7;
const CLIENT_DATA: &[u8] = b"\x70TEST CLIENT DATA";

fn method_benches(c: &mut Criterion, method: Method) {
    let mut rng = StdRng::seed_from_u64(1);
    let (sk, pk) = generate_key(method, KEY_ID, &mut rng);
    let mut issuer = Issuer::new(method, 100);
    issuer.add_key(sk).expect("key");
    let mut client = Client::new(method, 100);
    client.add_key(pk).expect("key");
    let bit = method.has_private_metadata();
    let mut g = c.benchmark_group(format!("trust_token/{}", method.name()));
    for n in BATCHES {
        support::configure(&mut g, n);
        g.bench_function(BenchmarkId::new("begin_issuance", n), |b| {
            b.iter(|| {
                client
                    .begin_issuance(black_box(n), &mut rng)
                    .expect("begin")
            })
        });
        let req = client.begin_issuance(n, &mut rng).expect("begin");
        g.bench_function(BenchmarkId::new("issue", n), |b| {
            b.iter(|| {
                issuer
                    .issue(black_box(&req.message), KEY_ID, bit, 100, &mut rng)
                    .expect("issue")
            })
        });
        let resp = issuer
            .issue(&req.message, KEY_ID, bit, 100, &mut rng)
            .expect("issue");
        let stored = req.state.to_secret_bytes();
        g.bench_function(BenchmarkId::new("finish_issuance", n), |b| {
            b.iter_batched(
                || IssuanceState::from_secret_bytes(&stored).expect("state"),
                |state| {
                    client
                        .finish_issuance(state, black_box(&resp.message))
                        .expect("finish")
                },
                BatchSize::SmallInput,
            )
        });
        if n == 1 {
            let tokens = client
                .finish_issuance(req.state, &resp.message)
                .expect("finish");
            g.bench_function(BenchmarkId::new("begin_redemption", 1), |b| {
                b.iter(|| {
                    client
                        .begin_redemption(black_box(&tokens[0]), CLIENT_DATA)
                        .expect("begin_redemption")
                })
            });
            let rr = client
                .begin_redemption(&tokens[0], CLIENT_DATA)
                .expect("begin_redemption");
            g.bench_function(BenchmarkId::new("redeem", 1), |b| {
                b.iter(|| issuer.redeem(black_box(&rr)).expect("redeem"))
            });
        }
    }
    g.finish();
}

fn main() {
    // `criterion_main!` expanded by hand: its `pub fn` would trip `missing_docs`.
    let mut c = support::criterion();
    for method in Method::ALL {
        method_benches(&mut c, method);
    }
    c.final_summary();
}
