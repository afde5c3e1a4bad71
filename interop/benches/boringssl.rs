//! BoringSSL's Trust Token operations next to ours, in one criterion run.
//!
//! Names: `boringssl/<method>/<step>/<batch>` and `trust_token/<method>/<step>/<batch>`, run
//! interleaved (BoringSSL then ours for each step) so both see the same machine noise. Steps:
//! `begin_issuance`, `issue`, `finish_issuance` (one op handles `batch` tokens) and `redeem`
//! (one token out of a batch of `batch`, as BoringSSL's own bench does). BoringSSL's finish
//! needs a duplicate client holding the pretokens per iteration; it is built outside the timing.

use criterion::{BatchSize, Criterion};
use privacy_tokens::trust_token as tt;
use privacy_tokens_interop::{generate_key, Client, Issuer, Method};
use std::time::Duration;

const METHODS: [Method; 2] = [Method::PstV1Voprf, Method::PstV1Pmb];
const BATCHES: [usize; 3] = [1, 10, 100];
const KEY_ID: u32 = 7;

fn bench(c: &mut Criterion, method: Method, batch: usize) {
    let m = method.name();
    let mut rng = rand::rng();
    let key = generate_key(method, KEY_ID).unwrap();

    // BoringSSL.
    let mut client = Client::new(method, batch).unwrap();
    client.add_key(&key.public).unwrap();
    let mut issuer = Issuer::new(method, batch).unwrap();
    issuer.add_key(&key.private).unwrap();
    let request = client.begin_issuance(batch).unwrap();
    let (response, _) = issuer.issue(&request, KEY_ID, 0, batch).unwrap();
    let (_, tokens) = client
        .dup_for_testing()
        .unwrap()
        .finish_issuance(&response)
        .unwrap();
    let redemption = client
        .begin_redemption(&tokens[0], b"client data", 0)
        .unwrap();

    // Ours, with the same key.
    let ours = tt::Method::from_name(m).unwrap();
    let batch16 = u16::try_from(batch).unwrap();
    let mut our_client = tt::Client::new(ours, batch16);
    our_client.add_key_bytes(&key.public).unwrap();
    let mut our_issuer = tt::Issuer::new(ours, batch16);
    our_issuer.add_key_bytes(&key.private).unwrap();
    let our_request = our_client.begin_issuance(batch, &mut rng).unwrap();
    let our_response = our_issuer
        .issue(&our_request.message, KEY_ID, false, batch16, &mut rng)
        .unwrap();
    let our_state = our_request.state.to_secret_bytes();
    let our_tokens = our_client
        .finish_issuance(
            tt::IssuanceState::from_secret_bytes(&our_state).unwrap(),
            &our_response.message,
        )
        .unwrap();
    let our_redemption = our_client
        .begin_redemption(&our_tokens[0], b"client data")
        .unwrap();

    c.bench_function(&format!("boringssl/{m}/begin_issuance/{batch}"), |b| {
        b.iter_batched(
            || client.dup_for_testing().unwrap(),
            |mut c| c.begin_issuance(batch).unwrap(),
            BatchSize::PerIteration,
        )
    });
    c.bench_function(&format!("trust_token/{m}/begin_issuance/{batch}"), |b| {
        b.iter(|| our_client.begin_issuance(batch, &mut rng).unwrap())
    });

    c.bench_function(&format!("boringssl/{m}/issue/{batch}"), |b| {
        b.iter(|| issuer.issue(&request, KEY_ID, 0, batch).unwrap())
    });
    c.bench_function(&format!("trust_token/{m}/issue/{batch}"), |b| {
        b.iter(|| {
            our_issuer
                .issue(&our_request.message, KEY_ID, false, batch16, &mut rng)
                .unwrap()
        })
    });

    c.bench_function(&format!("boringssl/{m}/finish_issuance/{batch}"), |b| {
        b.iter_batched(
            || client.dup_for_testing().unwrap(),
            |mut c| c.finish_issuance(&response).unwrap(),
            BatchSize::PerIteration,
        )
    });
    c.bench_function(&format!("trust_token/{m}/finish_issuance/{batch}"), |b| {
        b.iter_batched(
            || tt::IssuanceState::from_secret_bytes(&our_state).unwrap(),
            |state| {
                our_client
                    .finish_issuance(state, &our_response.message)
                    .unwrap()
            },
            BatchSize::SmallInput,
        )
    });

    c.bench_function(&format!("boringssl/{m}/redeem/{batch}"), |b| {
        b.iter(|| issuer.redeem(&redemption).unwrap())
    });
    c.bench_function(&format!("trust_token/{m}/redeem/{batch}"), |b| {
        b.iter(|| our_issuer.redeem(&our_redemption).unwrap())
    });
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
    for method in METHODS {
        for batch in BATCHES {
            bench(&mut c, method, batch);
        }
    }
    c.final_summary();
}
