//! The issuance gate (issue 19, defect 5a): `[issuance] auth = "api-keys"` admits only bearer
//! keys listed (hashed) in the keys file, each up to its quota of tokens per epoch; `auth =
//! "open"` only when the config says so.

mod common;

use std::sync::Arc;

use common::*;
use privacy_tokens::voprf::privacy_pass::Client;
use privacy_tokens_server::config::Config;
use privacy_tokens_server::store::RedbStore;
use sha2::{Digest as _, Sha256};

const KEY: &str = "k-3f9a0c1d2e";

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

async fn gated(dir: &std::path::Path, quota: u64) -> privacy_tokens_server::RunningServer {
    gated_with(dir, quota, "").await
}

/// [`gated`] with more TOML after the `[issuance]` table.
async fn gated_with(
    dir: &std::path::Path,
    quota: u64,
    extra: &str,
) -> privacy_tokens_server::RunningServer {
    let keys = dir.join("api-keys");
    std::fs::write(
        &keys,
        format!(
            "# name sha256 quota\nalice {} {quota}\n",
            hex(&Sha256::digest(KEY.as_bytes()))
        ),
    )
    .unwrap();
    let config = Config::from_toml(&format!(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 20\n\
         [issuance]\nauth = \"api-keys\"\napi_keys_file = \"{}\"\n{extra}",
        keys.display()
    ))
    .unwrap();
    let store = Arc::new(RedbStore::open(&dir.join("spent.redb")).unwrap());
    start(config, [42; 32], store).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_keys_gate_issuance_and_quotas_hold() {
    let dir = tempfile::tempdir().unwrap();
    let s = gated(dir.path(), 3).await;
    let c = http();
    let (challenge, pk) = voprf_challenge(&c, &s).await;
    let single = || {
        Client::request(&pk, &challenge, &mut rand::rng())
            .unwrap()
            .0
            .to_bytes()
            .to_vec()
    };
    let send = |auth: Option<&str>, media: &str, body: Vec<u8>| {
        let mut r = c
            .post(url(&s, "/token-request"))
            .header("content-type", media)
            .body(body);
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        r.send()
    };
    // No key, a wrong key, a key with the wrong scheme: 401 with a Bearer challenge.
    for auth in [None, Some("Bearer wrong"), Some(&*format!("Basic {KEY}"))] {
        let r = send(auth, SINGLE, single()).await.unwrap();
        assert_eq!(r.status(), 401, "{auth:?}");
        assert!(r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer"));
    }
    let bearer = format!("Bearer {KEY}");
    let r = send(Some(&bearer), SINGLE, single()).await.unwrap();
    assert_eq!(r.status(), 200);
    let (batch, _) = Client::request_batch(&pk, &challenge, 2, &mut rand::rng()).unwrap();
    let r = send(Some(&bearer), BATCH, batch.to_bytes()).await.unwrap();
    assert_eq!(r.status(), 200);
    // The quota (3 tokens this epoch) is spent.
    let r = send(Some(&bearer), SINGLE, single()).await.unwrap();
    assert_eq!(r.status(), 429);
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
    // PST issuance is gated too.
    let r = c
        .get(url(&s, "/pst/issue"))
        .header(
            "sec-private-state-token-crypto-version",
            "PrivateStateTokenV1VOPRF",
        )
        .header("sec-private-state-token", "AAA=")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    s.stop().await.unwrap();
}

#[test]
fn issuance_auth_must_be_configured() {
    let e = Config::from_toml("issuer_name = \"a.test\"\n").unwrap_err();
    assert!(e.to_string().contains("[issuance] auth"), "{e}");
    assert!(Config::from_toml("[issuance]\nauth = \"api-keys\"\n").is_err());
}

/// A request refused 503 because the crypto pool is full is not charged to the key's quota.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_refused_as_busy_does_not_spend_the_quota() {
    let dir = tempfile::tempdir().unwrap();
    let s = gated_with(
        dir.path(),
        1,
        "[limits]\ncrypto_threads = 1\ncrypto_queue = 0\n",
    )
    .await;
    let c = http();
    let (challenge, pk) = voprf_challenge(&c, &s).await;
    let (req, _) = Client::request(&pk, &challenge, &mut rand::rng()).unwrap();
    let send = || {
        c.post(url(&s, "/token-request"))
            .header("content-type", SINGLE)
            .header("authorization", format!("Bearer {KEY}"))
            .body(req.to_bytes().to_vec())
            .send()
    };
    // A job holds the only slot: the request is refused as busy.
    let (release, holder) = hold_the_pool(&s).await;
    assert_eq!(send().await.unwrap().status(), 503);
    release.send(()).unwrap();
    assert!(holder.await.unwrap());
    // The quota of 1 is still whole: issued once, then 429.
    assert_eq!(send().await.unwrap().status(), 200);
    assert_eq!(send().await.unwrap().status(), 429);
    s.stop().await.unwrap();
}
