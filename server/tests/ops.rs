//! Operations (issue 19, defects 5b and 6): the curve work is bounded (503 with `Retry-After`
//! beyond the queue), metrics are off the public listener, `/healthz` and `/readyz` (the store
//! is probed), and issuance and redemption answers carry `Cache-Control: no-store`.

mod common;

use std::sync::Arc;

use common::*;
use privacy_tokens::voprf::privacy_pass::Client;
use privacy_tokens_server::auth::B64URL;
use privacy_tokens_server::config::Config;
use privacy_tokens_server::store::RedbStore;
use privacy_tokens_server::RunningServer;

/// A configuration with the pool bounded to `threads` jobs and `queue` waiting ones.
fn pool_config(threads: usize, queue: usize) -> Config {
    Config::from_toml(&format!(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 256\n\
         [issuance]\nauth = \"open\"\n[limits]\ncrypto_threads = {threads}\n\
         crypto_queue = {queue}\n"
    ))
    .unwrap()
}

/// `n` amortized batch requests of 256 tokens, made before any is sent.
async fn batches(c: &reqwest::Client, s: &RunningServer, n: usize) -> Vec<Vec<u8>> {
    let (challenge, pk) = voprf_challenge(c, s).await;
    (0..n)
        .map(|_| {
            Client::request_batch(&pk, &challenge, 256, &mut rand::rng())
                .unwrap()
                .0
                .to_bytes()
        })
        .collect()
}

/// Posts a batch; returns the status and `Retry-After`.
async fn post_batch(c: reqwest::Client, u: String, body: Vec<u8>) -> (u16, Option<String>) {
    let r = c
        .post(u)
        .header("content-type", BATCH)
        .body(body)
        .send()
        .await
        .unwrap();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), retry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issuance_beyond_the_pool_and_its_queue_answers_503_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(RedbStore::open(&dir.path().join("s.redb")).unwrap());
    let s = start(pool_config(1, 0), [42; 32], store).await;
    let c = http();
    // Concurrent batches on one slot and no queue: one is issued, those arriving while it
    // runs are refused at once.
    let bodies = batches(&c, &s, 6).await;
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|b| tokio::spawn(post_batch(c.clone(), url(&s, "/token-request"), b)))
        .collect();
    let mut by_status = std::collections::BTreeMap::new();
    for t in tasks {
        let (status, retry) = t.await.unwrap();
        if status == 503 {
            assert_eq!(retry.as_deref(), Some("1"));
        }
        *by_status.entry(status).or_insert(0) += 1;
    }
    assert!(by_status.contains_key(&200), "{by_status:?}");
    assert!(by_status.contains_key(&503), "{by_status:?}");
    assert_eq!(by_status.len(), 2, "{by_status:?}");
    // Deterministically: while a job holds the only slot, a single token request is refused
    // with 503 and Retry-After, and is issued once the slot is free.
    let (release, holder) = hold_the_pool(&s).await;
    let (challenge, pk) = voprf_challenge(&c, &s).await;
    let (req, _) =
        privacy_tokens::voprf::privacy_pass::Client::request(&pk, &challenge, &mut rand::rng())
            .unwrap();
    let r = post(&c, &s, SINGLE, req.to_bytes().to_vec()).await;
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["retry-after"], "1");
    // Redemption's verification (of a type 0x0001 token) runs on the same pool.
    let mut token = [0u8; 146];
    token[1] = 1;
    let r = get_with_auth(
        &c,
        &s,
        &format!("PrivateToken token={}", B64URL.encode(token)),
    )
    .await;
    assert_eq!(r.status(), 503);
    release.send(()).unwrap();
    assert!(holder.await.unwrap());
    let r = post(&c, &s, SINGLE, req.to_bytes().to_vec()).await;
    assert_eq!(r.status(), 200);
    s.stop().await.unwrap();
}

/// The server runs on a runtime of its own with 2 workers (a 2-core host), the client on
/// another: large batches keep the server's curve work busy while the directory and a
/// challenge are fetched.
#[test]
fn slow_batches_do_not_stall_the_directory_or_challenges() {
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(RedbStore::open(&dir.path().join("s.redb")).unwrap());
    let s = server_rt.block_on(start(pool_config(1, 16), [42; 32], store));
    client_rt.block_on(async {
        let c = http();
        let mut bodies = batches(&c, &s, 5).await;
        // One batch alone: how long the curve work of one request takes here.
        let t = std::time::Instant::now();
        let (status, _) = post_batch(c.clone(), url(&s, "/token-request"), bodies.pop().unwrap()).await;
        assert_eq!(status, 200);
        let batch = t.elapsed();
        let tasks: Vec<_> = bodies
            .into_iter()
            .map(|b| tokio::spawn(post_batch(c.clone(), url(&s, "/token-request"), b)))
            .collect();
        tokio::time::sleep(batch / 4).await;
        let t = std::time::Instant::now();
        let r = c
            .get(url(&s, "/.well-known/private-token-issuer-directory"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let directory = t.elapsed();
        let t = std::time::Instant::now();
        let r = c.get(url(&s, "/private")).send().await.unwrap();
        assert_eq!(r.status(), 401);
        let challenge = t.elapsed();
        let mut done = 0;
        for t in tasks {
            assert_eq!(t.await.unwrap().0, 200);
            done += 1;
        }
        assert_eq!(done, 4);
        println!("one batch {batch:?}; under 4 batches: directory {directory:?}, challenge {challenge:?}");
        // Inline curve work would hold both workers for most of a batch each.
        assert!(directory < batch / 3, "directory {directory:?}, batch {batch:?}");
        assert!(challenge < batch / 3, "challenge {challenge:?}, batch {batch:?}");
    });
    server_rt.block_on(s.stop()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_off_the_public_listener_and_health_checks_answer() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let public = |p: &str| c.get(url(&s, p)).send();
    assert_eq!(public("/metrics").await.unwrap().status(), 404);
    assert_eq!(public("/healthz").await.unwrap().status(), 200);
    assert_eq!(public("/readyz").await.unwrap().status(), 200);
    let m = c
        .get(format!("http://{}/metrics", s.metrics_addr))
        .send()
        .await
        .unwrap();
    assert_eq!(m.status(), 200);
    assert!(m.text().await.unwrap().contains("pt_key_fingerprint"));
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_probes_the_store() {
    let mut redis = Redis::start();
    let s = start(config(), [42; 32], redis.store().await).await;
    let c = http();
    let ready = || c.get(url(&s, "/readyz")).send();
    assert_eq!(ready().await.unwrap().status(), 200);
    redis.kill();
    assert_eq!(ready().await.unwrap().status(), 503);
    assert_eq!(
        c.get(url(&s, "/healthz")).send().await.unwrap().status(),
        200
    );
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issuance_and_redemption_answers_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let no_store = |r: &reqwest::Response| {
        r.headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap().to_string())
    };
    let r = c.get(url(&s, "/private")).send().await.unwrap();
    assert_eq!(
        (r.status().as_u16(), no_store(&r).as_deref()),
        (401, Some("no-store"))
    );
    let (token, headers) = voprf_token_and_headers(&c, &s).await;
    assert_eq!(headers["cache-control"], "no-store");
    let r = get_with_auth(
        &c,
        &s,
        &format!("PrivateToken token={}", B64URL.encode(&token)),
    )
    .await;
    assert_eq!(
        (r.status().as_u16(), no_store(&r).as_deref()),
        (200, Some("no-store"))
    );
    let r = post(&c, &s, SINGLE, vec![0; 3]).await;
    assert_eq!(
        (r.status().as_u16(), no_store(&r).as_deref()),
        (422, Some("no-store"))
    );
    let r = c.get(url(&s, "/pst/issue")).send().await.unwrap();
    assert_eq!(
        (r.status().as_u16(), no_store(&r).as_deref()),
        (400, Some("no-store"))
    );
    s.stop().await.unwrap();
}
