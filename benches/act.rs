//! ACT (`ACTv1-P256-SHA256`) benchmarks: `act/<group>/<L>/<step>`.
//!
//! ```text
//! cargo bench --bench act
//! cargo bench --bench act -- 'act/spend/64'
//! ```
//!
//! Groups, as act-rs's bench (`../shared/specs/act.md` §13) so the two can be compared:
//! `act/issue/L/{request,issue,finalize}`, `act/spend/L/{prove_spend,verify_spend}` (a spend
//! with `s > 0`, `a = 0`), `act/spend_top_up/L/...` (`s > 0`, `a > 0`),
//! `act/refresh/L/...` (`s = a = 0`) and `act/refund/L/{issue_refund,finalize_refund}`, at
//! `L` = 8 and 64.

use std::time::Duration;

use criterion::{black_box, BatchSize, Criterion};
use privacy_tokens::act::{
    ClientIssuanceState, ClientSpendState, Credential, CredentialContext, PrivateKey, Spend,
};

const CTX_CRED: &[u8] = b"bench credential context";
const CTX_SPEND: &[u8] = b"bench spend context";
const WIDTHS: [u8; 2] = [8, 64];

fn issue(key: &PrivateKey, ctx: &CredentialContext, c: u64) -> Credential {
    let req = ClientIssuanceState::request(&mut rand::rng()).expect("request");
    let resp = key
        .issue(ctx, c, &req.message, &mut rand::rng())
        .expect("issue");
    req.state
        .finalize(ctx, key.public_key(), &resp)
        .map_err(|r| r.error)
        .expect("finalize")
}

fn copy(c: &Credential) -> Credential {
    Credential::from_bytes(&*c.to_bytes()).expect("credential")
}

fn issuance(c: &mut Criterion, key: &PrivateKey, ctx: &CredentialContext, l: u8) {
    let balance = (1u64 << (l - 1)) + 1;
    let mut g = c.benchmark_group(format!("act/issue/{l}"));
    g.bench_function("request", |b| {
        b.iter(|| ClientIssuanceState::request(&mut rand::rng()).expect("request"))
    });
    let req = ClientIssuanceState::request(&mut rand::rng()).expect("request");
    g.bench_function("issue", |b| {
        b.iter(|| {
            key.issue(ctx, balance, black_box(&req.message), &mut rand::rng())
                .expect("issue")
        })
    });
    let bytes = req.state.to_bytes();
    let resp = key
        .issue(ctx, balance, &req.message, &mut rand::rng())
        .expect("issue");
    g.bench_function("finalize", |b| {
        b.iter_batched(
            || ClientIssuanceState::from_bytes(&*bytes).expect("state"),
            |st| {
                st.finalize(ctx, key.public_key(), black_box(&resp))
                    .map_err(|r| r.error)
                    .expect("finalize")
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn spending(
    c: &mut Criterion,
    key: &PrivateKey,
    ctx: &CredentialContext,
    l: u8,
    group: &str,
    s: u64,
    a: u64,
) {
    let balance = (1u64 << (l - 1)) + 1;
    let cred = issue(key, ctx, balance);
    let mut g = c.benchmark_group(format!("act/{group}/{l}"));
    g.bench_function("prove_spend", |b| {
        b.iter_batched(
            || copy(&cred),
            |cr| {
                cr.prove_spend(ctx, s, a, CTX_SPEND, &mut rand::rng())
                    .expect("prove")
            },
            BatchSize::SmallInput,
        )
    });
    let sp = copy(&cred)
        .prove_spend(ctx, s, a, CTX_SPEND, &mut rand::rng())
        .expect("prove");
    let wire = sp.message.to_bytes();
    let msg = Spend::from_bytes(&wire, l).expect("decode");
    g.bench_function("verify_spend", |b| {
        b.iter(|| {
            key.verify_spend(ctx, black_box(&msg), CTX_SPEND)
                .expect("verify")
        })
    });
    g.finish();
}

fn refund(c: &mut Criterion, key: &PrivateKey, ctx: &CredentialContext, l: u8) {
    let balance = (1u64 << (l - 1)) + 1;
    let cred = issue(key, ctx, balance);
    let sp = cred
        .prove_spend(ctx, 3, 0, CTX_SPEND, &mut rand::rng())
        .expect("prove");
    let msg = Spend::from_bytes(&sp.message.to_bytes(), l).expect("decode");
    let mut g = c.benchmark_group(format!("act/refund/{l}"));
    g.bench_function("issue_refund", |b| {
        b.iter_batched(
            || key.verify_spend(ctx, &msg, CTX_SPEND).expect("verify"),
            |v| {
                key.issue_refund(ctx, &v, 1, &mut rand::rng())
                    .expect("refund")
            },
            BatchSize::SmallInput,
        )
    });
    let v = key.verify_spend(ctx, &msg, CTX_SPEND).expect("verify");
    let r = key
        .issue_refund(ctx, &v, 1, &mut rand::rng())
        .expect("refund");
    let st = sp.state.to_bytes();
    g.bench_function("finalize_refund", |b| {
        b.iter_batched(
            || ClientSpendState::from_bytes(&*st).expect("state"),
            |s| {
                s.finalize(ctx, key.public_key(), black_box(&r))
                    .map_err(|e| e.error)
                    .expect("finalize")
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
}

fn main() {
    // `criterion_main!` expanded by hand (its `pub fn` would trip `missing_docs`).
    let mut c = config().configure_from_args();
    let key = PrivateKey::generate(&mut rand::rng()).expect("key");
    for l in WIDTHS {
        let ctx = CredentialContext::with_width(CTX_CRED, l).expect("context");
        issuance(&mut c, &key, &ctx, l);
        spending(&mut c, &key, &ctx, l, "spend", 3, 0);
        spending(&mut c, &key, &ctx, l, "spend_top_up", 3, 5);
        spending(&mut c, &key, &ctx, l, "refresh", 0, 0);
        refund(&mut c, &key, &ctx, l);
    }
    c.final_summary();
}
