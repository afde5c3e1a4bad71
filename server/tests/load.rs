//! A bounded load test on loopback (about 1.5 s per phase, 4 concurrent clients): requests/s
//! and p50/p99 latency for issuance at batch 1 and 10 and for redemption, with the embedded
//! store (redemption also with Redis). Run with `--nocapture` to see the figures (the README quotes them).

mod common;

use std::time::{Duration, Instant};

use common::*;
use privacy_tokens::voprf::privacy_pass::{BatchTokenResponse, Client};

const CLIENTS: usize = 4;
const PHASE: Duration = Duration::from_millis(1500);

fn report(name: &str, mut lat: Vec<Duration>, wall: Duration) {
    assert!(!lat.is_empty(), "{name}: no requests completed");
    lat.sort_unstable();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)];
    println!(
        "load: {name:<22} {:>5} requests in {:.2} s = {:>7.1} req/s, p50 {:>6.2} ms, p99 {:>6.2} ms",
        lat.len(),
        wall.as_secs_f64(),
        lat.len() as f64 / wall.as_secs_f64(),
        p(0.50).as_secs_f64() * 1e3,
        p(0.99).as_secs_f64() * 1e3,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounded_load_issuance_and_redemption() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let (challenge, pk) = voprf_challenge(&c, &s).await;
    let base = url(&s, "/token-request");

    for (name, n) in [("issue batch 1", 1usize), ("issue batch 10", 10)] {
        // Requests are prepared outside the timed loop: the figures are the server's.
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..CLIENTS {
            let (c, base, challenge, pk) = (c.clone(), base.clone(), challenge.clone(), pk);
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                while start.elapsed() < PHASE {
                    let (ct, body) = if n == 1 {
                        let (r, _) = Client::request(&pk, &challenge, &mut rand::rng()).unwrap();
                        ("application/private-token-request", r.to_bytes().to_vec())
                    } else {
                        let (r, _) =
                            Client::request_batch(&pk, &challenge, n, &mut rand::rng()).unwrap();
                        (
                            "application/private-token-amortized-batch-request",
                            r.to_bytes(),
                        )
                    };
                    let t = Instant::now();
                    let r = c
                        .post(&base)
                        .header("content-type", ct)
                        .body(body)
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(r.status(), 200);
                    r.bytes().await.unwrap();
                    lat.push(t.elapsed());
                }
                lat
            }));
        }
        let mut lat = Vec::new();
        for t in tasks {
            lat.extend(t.await.unwrap());
        }
        report(name, lat, start.elapsed());
    }

    // Redemption: tokens issued beforehand in batches of 20, redeemed at this server (embedded
    // store) and at a second instance with the same master secret on Redis.
    let mut tokens = Vec::new();
    for _ in 0..60 {
        let (req, state) = Client::request_batch(&pk, &challenge, 20, &mut rand::rng()).unwrap();
        let body = expect_ok(
            post(&c, &s, BATCH, req.to_bytes()).await,
            "application/private-token-amortized-batch-response",
        )
        .await;
        let resp = BatchTokenResponse::from_bytes(&body).unwrap();
        tokens.extend(
            state
                .finalize_batch(&resp)
                .unwrap()
                .into_iter()
                .map(|t| t.to_bytes().to_vec()),
        );
    }
    let redis = Redis::start();
    let r = start(config(), [42; 32], redis.store().await).await;
    let half = tokens.split_off(tokens.len() / 2);
    redeem_phase("redeem (redb)", &c, &s, tokens).await;
    redeem_phase("redeem (redis)", &c, &r, half).await;
    s.stop().await.unwrap();
    r.stop().await.unwrap();
}

/// Redeems `tokens` from `CLIENTS` tasks for at most `PHASE`; every answer must be 200.
async fn redeem_phase(
    name: &str,
    c: &reqwest::Client,
    s: &privacy_tokens_server::RunningServer,
    tokens: Vec<Vec<u8>>,
) {
    let total = tokens.len();
    let queue = std::sync::Arc::new(std::sync::Mutex::new(tokens));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..CLIENTS {
        let (c, queue, u) = (c.clone(), queue.clone(), url(s, "/private"));
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            while start.elapsed() < PHASE {
                let Some(t) = queue.lock().unwrap().pop() else {
                    break;
                };
                let h = format!(
                    "PrivateToken token={}",
                    privacy_tokens_server::auth::b64url(&t)
                );
                let t0 = Instant::now();
                let r = c.get(&u).header("authorization", h).send().await.unwrap();
                assert_eq!(r.status(), 200);
                r.bytes().await.unwrap();
                lat.push(t0.elapsed());
            }
            lat
        }));
    }
    let mut lat = Vec::new();
    for t in tasks {
        lat.extend(t.await.unwrap());
    }
    assert!(lat.len() <= total);
    report(name, lat, start.elapsed());
}
