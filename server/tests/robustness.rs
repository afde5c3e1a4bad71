//! Random and oversized input on every endpoint: always a 4xx, never a 5xx or a panic, and the
//! server keeps serving. Also the binary itself, started as the README says.

mod common;

use common::*;
use rand::{RngExt as _, SeedableRng as _};

const MEDIA: [&str; 6] = [
    "application/private-token-request",
    "application/private-token-amortized-batch-request",
    "application/private-credential-request",
    "application/octet-stream",
    "",
    "text/plain; charset=utf-8",
];

fn random_bytes(rng: &mut impl rand::RngExt, max: usize) -> Vec<u8> {
    let n = rng.random_range(0..max);
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    // Sometimes a plausible prefix, to get past the first checks.
    if n >= 3 && rng.random_bool(0.5) {
        let t: [u8; 2] = if rng.random_bool(0.5) {
            [0, 1]
        } else {
            [0xE5, 0xAC]
        };
        v[..2].copy_from_slice(&t);
    }
    v
}

fn header_text(rng: &mut impl rand::RngExt, max: usize) -> String {
    let n = rng.random_range(0..max);
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_\", ";
    (0..n)
        .map(|_| alphabet[rng.random_range(0..alphabet.len())] as char)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_and_oversized_input_gets_4xx_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut count = 0;
    for i in 0..400 {
        let r = match i % 5 {
            0 => {
                let mut r = c
                    .post(url(&s, "/token-request"))
                    .body(random_bytes(&mut rng, 1200));
                let m = MEDIA[rng.random_range(0..MEDIA.len())];
                if !m.is_empty() {
                    r = r.header("content-type", m);
                }
                r
            }
            1 => {
                let token = random_bytes(&mut rng, 800);
                let v = match rng.random_range(0..3) {
                    0 => format!(
                        "PrivateToken token={}",
                        privacy_tokens_server::auth::b64url(&token)
                    ),
                    1 => format!("PrivateToken {}", header_text(&mut rng, 300)),
                    _ => header_text(&mut rng, 300),
                };
                c.get(url(&s, "/private")).header("authorization", v)
            }
            2 | 3 => {
                let path = if i % 5 == 2 {
                    "/pst/issue"
                } else {
                    "/pst/redeem"
                };
                let version = ["PrivateStateTokenV1VOPRF", "PrivateStateTokenV1PMB", "x"]
                    [rng.random_range(0..3)];
                let v = if rng.random_bool(0.7) {
                    let mut raw = random_bytes(&mut rng, 1500);
                    if raw.len() >= 2 && rng.random_bool(0.5) {
                        // A plausible count or length prefix.
                        raw[0] = 0;
                        raw[1] = rng.random_range(0..30);
                    }
                    b64.encode(raw)
                } else {
                    header_text(&mut rng, 400)
                };
                c.post(url(&s, path))
                    .header("sec-private-state-token", v)
                    .header("sec-private-state-token-crypto-version", version)
            }
            _ => {
                let paths = [
                    "/.well-known/private-token-issuer-directory",
                    "/.well-known/private-state-token/key-commitment",
                    "/metrics",
                    "/nope",
                    "/private",
                ];
                let p = paths[rng.random_range(0..paths.len())];
                c.put(url(&s, p)).body(random_bytes(&mut rng, 100))
            }
        };
        let status = r.send().await.unwrap().status().as_u16();
        assert!((400..500).contains(&status), "request {i}: {status}");
        count += 1;
    }
    assert_eq!(count, 400);
    // Oversized: a 10 MB body on every POST route, a 64 KB header.
    for path in ["/token-request", "/pst/issue", "/pst/redeem"] {
        let r = c
            .post(url(&s, path))
            .header("content-type", MEDIA[1])
            .body(vec![0u8; 10 << 20])
            .send()
            .await;
        // The server may close the connection early on a body it refuses.
        if let Ok(r) = r {
            assert!((400..500).contains(&r.status().as_u16()), "{path}");
        }
    }
    let big = "A".repeat(64 * 1024);
    for path in ["/private", "/pst/redeem"] {
        let r = c
            .get(url(&s, path))
            .header("authorization", format!("PrivateToken token={big}"))
            .header("sec-private-state-token", &big)
            .header(
                "sec-private-state-token-crypto-version",
                "PrivateStateTokenV1VOPRF",
            )
            .send()
            .await;
        if let Ok(r) = r {
            assert!((400..500).contains(&r.status().as_u16()), "{path}");
        }
    }
    // Still serving: a full issuance and redemption.
    let t = voprf_token(&c, &s).await;
    assert_eq!(redeem(&c, &s, &t).await.0, 200);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_directory_challenge_and_survives_garbage() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init_data_dir(&data);
    let (child, serving) = spawn_serve(&data, "", &[]);
    let (addr, store) = (field(&serving, "addr"), field(&serving, "store"));
    assert_eq!(store, "redb");
    let c = http();
    let base = format!("http://{addr}");
    let r = c
        .get(format!("{base}/.well-known/private-token-issuer-directory"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let doc: serde_json::Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let types: Vec<u64> = doc["token-keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["token-type"].as_u64().unwrap())
        .collect();
    assert!(types.contains(&1) && types.contains(&0xE5AC), "{types:?}");
    // The master secret file, mode 0600.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(data.join("master.key"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let r = c.get(format!("{base}/private")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .starts_with("PrivateToken challenge="));
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for _ in 0..50 {
        let r = c
            .post(format!("{base}/token-request"))
            .header("content-type", MEDIA[rng.random_range(0..3)])
            .body(random_bytes(&mut rng, 600))
            .send()
            .await
            .unwrap();
        assert!((400..500).contains(&r.status().as_u16()));
    }
    let r = c.get(format!("{base}/private")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    // Graceful shutdown on SIGTERM.
    terminate(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_with_redis_spends_in_redis() {
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init_data_dir(&data);
    migrate_spent(&data, &redis.url(), &[]);
    let (child, serving) = spawn_serve(&data, "", &["--redis", &redis.url()]);
    let (addr, store) = (field(&serving, "addr"), field(&serving, "store"));
    assert_eq!(store, "redis");
    let c = http();
    let base = format!("http://{addr}");
    let (token, _) = voprf_token_at(&c, &base).await;
    assert_eq!(redeem_at(&c, &base, &token).await.0, 200);
    assert_eq!(redeem_at(&c, &base, &token).await.0, 401);
    // The record is in Redis: a direct spend of the same id is a double spend.
    // type 0x0001 ‖ nonce: the token's first 34 bytes.
    let id = token[..34].to_vec();
    let direct = redis.store().await;
    let exp = privacy_tokens_server::unix_now() + 60;
    assert_eq!(
        direct.spend(&id, exp, exp - 60).await.unwrap(),
        privacy_tokens_server::store::Spend::AlreadySpent
    );
    terminate(child);
}
