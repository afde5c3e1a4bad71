//! BoringSSL's Trust Token operations next to ours, in one criterion run.
//!
//! Names: `boringssl/<method>/<step>/<batch>` and `trust_token/<method>/<step>/<batch>`, with
//! steps `begin_issuance`, `issue`, `finish_issuance` (one op handles `batch` tokens) and
//! `redeem` (one token out of a batch of `batch`, as BoringSSL's own bench does).
//! Per-iteration state (a duplicate client holding the pretokens) is built outside the timing.

use criterion::{BatchSize, BenchmarkId, Criterion};
use privacy_tokens_interop::{generate_key, Client, Issuer, Method};
use std::time::Duration;

const METHODS: [Method; 2] = [Method::PstV1Voprf, Method::PstV1Pmb];
const BATCHES: [usize; 3] = [1, 10, 100];
const KEY_ID: u32 = 7;

fn boringssl(c: &mut Criterion) {
    for method in METHODS {
        let mut group = c.benchmark_group(format!("boringssl/{}", method.name()));
        for batch in BATCHES {
            let key = generate_key(method, KEY_ID).unwrap();
            let mut client = Client::new(method, batch).unwrap();
            client.add_key(&key.public).unwrap();
            let mut issuer = Issuer::new(method, batch).unwrap();
            issuer.add_key(&key.private).unwrap();

            group.bench_function(BenchmarkId::new("begin_issuance", batch), |b| {
                b.iter_batched(
                    || client.dup_for_testing().unwrap(),
                    |mut c| c.begin_issuance(batch).unwrap(),
                    BatchSize::PerIteration,
                )
            });

            let request = client.begin_issuance(batch).unwrap();
            group.bench_function(BenchmarkId::new("issue", batch), |b| {
                b.iter(|| issuer.issue(&request, KEY_ID, 0, batch).unwrap())
            });

            let (response, _) = issuer.issue(&request, KEY_ID, 0, batch).unwrap();
            group.bench_function(BenchmarkId::new("finish_issuance", batch), |b| {
                b.iter_batched(
                    || client.dup_for_testing().unwrap(),
                    |mut c| c.finish_issuance(&response).unwrap(),
                    BatchSize::PerIteration,
                )
            });

            let (_, tokens) = client.finish_issuance(&response).unwrap();
            let redemption = client
                .begin_redemption(&tokens[0], b"client data", 0)
                .unwrap();
            group.bench_function(BenchmarkId::new("redeem", batch), |b| {
                b.iter(|| issuer.redeem(&redemption).unwrap())
            });
        }
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

fn main() {
    // `criterion_main!` / `criterion_group!` expanded by hand: the macro's `pub fn` would trip
    // the crate's `missing_docs` lint.
    let mut c = config().configure_from_args();
    boringssl(&mut c);
    c.final_summary();
}
