//! Types 0x0002 (blind RSA) and 0xDA7A (partially blind RSA with extensions) over HTTP with
//! this crate's clients: challenge, issuance, redemption, double spend, tampering, the
//! extensions policy, the directory, rotation and keys shared by instances of one master secret.

mod common;

use common::*;
use privacy_tokens::blind_rsa::privacy_pass::{
    Client, Extension, Extensions, Token, TokenKey, TokenResponse,
};
use privacy_tokens_server::auth::B64URL;
use privacy_tokens_server::config::Config;
use privacy_tokens_server::RunningServer;
use serde_json::Value;
use std::sync::Arc;

const RESPONSE: &str = "application/private-token-response";

fn config_with(types: &str, extra: &str) -> Config {
    Config::from_toml(&format!(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 20\n\
         token_types = {types}\n{extra}\n[issuance]\nauth = \"open\"\n"
    ))
    .unwrap()
}

async fn start_with(dir: &std::path::Path, cfg: Config, master: [u8; 32]) -> RunningServer {
    let store =
        Arc::new(privacy_tokens_server::store::RedbStore::open(&dir.join("spent.redb")).unwrap());
    start(cfg, master, store).await
}

/// A type 0x0002 token from the server (challenge from `/private`, request, finalize).
async fn rsa_token(c: &reqwest::Client, s: &RunningServer) -> Token {
    let (challenge, key) = get_challenge(c, s, 2).await;
    let key = TokenKey::from_spki(&key).unwrap();
    let (req, state) = Client::request(&key, &challenge, &mut rand::rng()).unwrap();
    let body = expect_ok(post(c, s, SINGLE, req.to_bytes()).await, RESPONSE).await;
    state.finalize(&body).unwrap()
}

async fn redeem_with(
    c: &reqwest::Client,
    s: &RunningServer,
    token: &[u8],
    extensions: Option<&[u8]>,
) -> (u16, String) {
    let mut auth = format!("PrivateToken token={}", B64URL.encode(token));
    if let Some(e) = extensions {
        auth.push_str(&format!(", extensions={}", B64URL.encode(e)));
    }
    let r = get_with_auth(c, s, &auth).await;
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type2_flow_double_spend_tamper_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_with(dir.path(), config_with("[1, 2]", ""), [42; 32]).await;
    let c = http();
    let token = rsa_token(&c, &s).await;
    let bytes = token.to_bytes();
    // A flipped authenticator bit, then the token itself, then again (spent).
    let mut bad = bytes.clone();
    bad[100] ^= 1;
    assert_eq!(redeem(&c, &s, &bad).await, (401, "invalid token\n".into()));
    assert_eq!(
        redeem_with(&c, &s, &bytes, Some(&[0, 0])).await,
        (401, "unexpected extensions\n".into())
    );
    assert_eq!(
        redeem(&c, &s, &bytes).await,
        (200, "access granted\n".into())
    );
    assert_eq!(
        redeem(&c, &s, &bytes).await,
        (401, "token already spent\n".into())
    );
    // A request naming no live key, and a short request.
    let (challenge, key) = get_challenge(&c, &s, 2).await;
    let key = TokenKey::from_spki(&key).unwrap();
    let (req, _) = Client::request(&key, &challenge, &mut rand::rng()).unwrap();
    let mut other = req.to_bytes();
    other[2] = other[2].wrapping_add(128);
    let r = post(&c, &s, SINGLE, other).await;
    assert_eq!(r.status(), 422);
    let r = post(&c, &s, SINGLE, req.to_bytes()[..100].to_vec()).await;
    assert_eq!(r.status(), 422);
    // The directory lists the current and the next type 2 key, their SPKIs RFC 9578's.
    let r = c
        .get(url(&s, "/.well-known/private-token-issuer-directory"))
        .send()
        .await
        .unwrap();
    let d: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let rsa: Vec<TokenKey> = d["token-keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["token-type"] == 2)
        .map(|k| {
            TokenKey::from_spki(&B64URL.decode(k["token-key"].as_str().unwrap()).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(rsa.len(), 2);
    assert_eq!(rsa[0].to_spki(), key.to_spki());
    assert_ne!(rsa[0].truncated_id(), rsa[1].truncated_id());
    // A type 0x0001 token takes no extensions either (refused before it is verified or spent).
    let voprf = voprf_token(&c, &s).await;
    assert_eq!(
        redeem_with(&c, &s, &voprf, Some(&[0, 0])).await,
        (401, "unexpected extensions\n".into())
    );
    assert_eq!(redeem(&c, &s, &voprf).await.0, 200);
    let m = metrics_text(&c, &s).await;
    assert!(m.contains("token_type=\"2\""), "{m}");
    s.stop().await.unwrap();
}

/// Two servers of one master secret publish the same type 2 keys (derived, not generated);
/// another master secret gives other keys. A token from one redeems at the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_of_one_master_secret_share_rsa_keys() {
    let (d1, d2, d3) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let a = start_with(d1.path(), config_with("[2]", ""), [7; 32]).await;
    let b = start_with(d2.path(), config_with("[2]", ""), [7; 32]).await;
    let other = start_with(d3.path(), config_with("[2]", ""), [8; 32]).await;
    let c = http();
    let (_, ka) = get_challenge(&c, &a, 2).await;
    let (_, kb) = get_challenge(&c, &b, 2).await;
    let (_, ko) = get_challenge(&c, &other, 2).await;
    assert_eq!(ka, kb);
    assert_ne!(ka, ko);
    let token = rsa_token(&c, &a).await.to_bytes();
    assert_eq!(redeem(&c, &other, &token).await.1, "unknown token key\n");
    assert_eq!(redeem(&c, &b, &token).await.0, 200);
    for s in [a, b, other] {
        s.stop().await.unwrap();
    }
}

/// Rotation: one epoch later the current key is the old next key, the old key still redeems;
/// two epochs later it has expired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type2_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config_with("[2]", "");
    cfg.keys.lifetime_secs = 1000;
    cfg.keys.issue_grace_secs = 0;
    cfg.challenge.lifetime_secs = 0;
    let s = start_with(dir.path(), cfg, [5; 32]).await;
    let c = http();
    let now = privacy_tokens_server::unix_now() as i64;
    s.state.set_clock_offset(1000 - now % 1000);
    let t1 = rsa_token(&c, &s).await.to_bytes();
    let t1b = rsa_token(&c, &s).await.to_bytes();
    let (_, k1) = get_challenge(&c, &s, 2).await;
    s.state.set_clock_offset(2000 - now % 1000);
    let (_, k2) = get_challenge(&c, &s, 2).await;
    assert_ne!(k1, k2);
    assert_eq!(redeem(&c, &s, &t1).await.0, 200);
    s.state.set_clock_offset(3000 - now % 1000);
    assert_eq!(redeem(&c, &s, &t1b).await.1, "unknown token key\n");
    s.stop().await.unwrap();
}

/// Type 0xDA7A: tokens bound to their extensions; the policy refuses a type it does not allow
/// at issuance and at redemption; a token redeems only with the extensions it was issued for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_da7a_flow_with_extensions_policy() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config_with(
        "[55930]",
        "[pbrsa]\nallowed_extension_types = [1, 2]\nmax_extensions_bytes = 64",
    );
    let s = start_with(dir.path(), cfg, [9; 32]).await;
    let c = http();
    let (challenge, key) = get_challenge(&c, &s, 0xDA7A).await;
    let key = TokenKey::from_spki(&key).unwrap();
    let ext = |t: u16, data: &[u8]| {
        Extensions::new(vec![Extension {
            extension_type: t,
            data: data.to_vec(),
        }])
        .unwrap()
    };
    let (good, other, refused) = (ext(1, b"region=eu"), ext(1, b"region=us"), ext(7, b"x"));
    let (req, state) =
        Client::request_with_extensions(&key, &challenge, &good, &mut rand::rng()).unwrap();
    let body = expect_ok(post(&c, &s, SINGLE, req.to_bytes()).await, RESPONSE).await;
    TokenResponse::from_bytes(&body).unwrap();
    let token = state.finalize(&body).unwrap().to_bytes();
    // Not allowed at issuance (type 7), nor over the size cap.
    let (req7, _) =
        Client::request_with_extensions(&key, &challenge, &refused, &mut rand::rng()).unwrap();
    let r = post(&c, &s, SINGLE, req7.to_bytes()).await;
    assert_eq!(r.status(), 422);
    assert_eq!(r.text().await.unwrap(), "extensions not allowed\n");
    let long = ext(2, &[0u8; 80]);
    let (req_long, _) =
        Client::request_with_extensions(&key, &challenge, &long, &mut rand::rng()).unwrap();
    assert_eq!(
        post(&c, &s, SINGLE, req_long.to_bytes()).await.status(),
        422
    );
    // Redemption: without extensions, with others, with a refused type: refused; with its own:
    // granted once.
    assert_eq!(redeem(&c, &s, &token).await.1, "invalid token\n");
    assert_eq!(
        redeem_with(&c, &s, &token, Some(other.as_bytes())).await.1,
        "invalid token\n"
    );
    assert_eq!(
        redeem_with(&c, &s, &token, Some(refused.as_bytes()))
            .await
            .1,
        "extensions not allowed\n"
    );
    assert_eq!(
        redeem_with(&c, &s, &token, Some(good.as_bytes())).await,
        (200, "access granted\n".into())
    );
    assert_eq!(
        redeem_with(&c, &s, &token, Some(good.as_bytes())).await.1,
        "token already spent\n"
    );
    s.stop().await.unwrap();
}
