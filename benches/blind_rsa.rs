//! Blind RSA (RFC 9474) and Privacy Pass token types 0x0002 / 0xDA7A, RSA-2048:
//! `blind_rsa/<step>`.
//!
//! ```text
//! cargo bench --bench blind_rsa
//! cargo bench --bench blind_rsa -- blind_sign
//! ```
//!
//! `blind_sign` is the issuer's private operation (CRT, constant time, with the check against
//! the public operation); `blind_sign_with_info` the partially blind one (the derived key, then
//! the check with `e'` of about 1022 bits); `blind` and `finalize` the client's steps
//! (`finalize` verifies); `verify` the origin's check; `issue` / `request` the Privacy Pass
//! 0x0002 messages around them. The key is the published RFC 9578 A.2 test key.

mod support;

use criterion::{black_box, BatchSize, Criterion};
use privacy_tokens::blind_rsa::privacy_pass::{Client, Issuer, TOKEN_TYPE_BLIND_RSA};
use privacy_tokens::blind_rsa::{test_key, Variant};
use privacy_tokens::voprf::privacy_pass::TokenChallenge;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn benches(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(1);
    let sk = test_key().expect("test key");
    let pk = sk.public_key().clone();
    let v = Variant::PssDeterministic;
    let msg = b"a token input of some length".to_vec();
    let mut g = c.benchmark_group("blind_rsa");
    support::configure(&mut g, 1);
    g.bench_function("blind", |b| {
        b.iter(|| pk.blind(v, black_box(&msg), &mut rng).expect("blind"))
    });
    let fresh = || {
        pk.blind(v, &msg, &mut StdRng::seed_from_u64(2))
            .expect("blind")
    };
    let (blinded, _) = fresh();
    g.bench_function("blind_sign", |b| {
        b.iter(|| sk.blind_sign(black_box(blinded.as_bytes())).expect("sign"))
    });
    let blind_sig = sk.blind_sign(blinded.as_bytes()).expect("sign");
    g.bench_function("finalize", |b| {
        b.iter_batched(
            || fresh().1,
            |st| {
                st.finalize(black_box(blind_sig.as_bytes()))
                    .expect("finalize")
            },
            BatchSize::SmallInput,
        )
    });
    let sig = fresh().1.finalize(blind_sig.as_bytes()).expect("finalize");
    g.bench_function("verify", |b| {
        b.iter(|| {
            pk.verify(v, black_box(&msg), sig.as_bytes())
                .expect("verify")
        })
    });
    // Partially blind: the first metadata value this (non-safe-prime) key can derive.
    if let Some(info) = (0u8..32).map(|i| [b'm', i]).find(|i| sk.derive(i).is_ok()) {
        let (blinded, _) = pk
            .blind_with_info(v, &msg, &info, &mut rng)
            .expect("blind_with_info");
        g.bench_function("blind_sign_with_info", |b| {
            b.iter(|| {
                sk.blind_sign_with_info(black_box(blinded.as_bytes()), &info)
                    .expect("sign")
            })
        });
    }
    let issuer = Issuer::new(sk.clone()).expect("issuer");
    let key = issuer.token_key().clone();
    let challenge = TokenChallenge::new(
        TOKEN_TYPE_BLIND_RSA,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .expect("challenge")
    .to_bytes();
    g.bench_function("privacy_pass/request", |b| {
        b.iter(|| Client::request(&key, black_box(&challenge), &mut rng).expect("request"))
    });
    let request = Client::request(&key, &challenge, &mut rng)
        .expect("request")
        .0
        .to_bytes();
    g.bench_function("privacy_pass/issue", |b| {
        b.iter(|| issuer.issue(black_box(&request)).expect("issue"))
    });
    g.finish();
}

fn main() {
    // `criterion_main!` expanded by hand: its `pub fn` would trip `missing_docs`.
    let mut c = support::criterion();
    benches(&mut c);
    c.final_summary();
}
