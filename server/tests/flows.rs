//! Full flows over HTTP with this crate's clients: type 0x0001 single and amortized, ARC,
//! Private State Tokens (VOPRF and PMB); the directory; status codes; key rotation; metrics.

mod common;

use common::*;
use privacy_tokens::arc::privacy_pass as arc_pp;
use privacy_tokens::arc::ServerPublicKey;
use privacy_tokens::trust_token;
use privacy_tokens::voprf::privacy_pass::{BatchTokenResponse, Client, TokenRequest};
use privacy_tokens::voprf::PublicKey;
use privacy_tokens::P384Sha384;
use privacy_tokens_server::auth::B64URL;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn voprf_single_flow_then_double_spend_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let token = voprf_token(&c, &s).await;
    assert_eq!(
        redeem(&c, &s, &token).await,
        (200, "access granted\n".into())
    );
    let (status, body) = redeem(&c, &s, &token).await;
    assert_eq!((status, body.as_str()), (401, "token already spent\n"));
    // Quoted values are accepted too (RFC 9577 §2.2.2); still spent.
    let r = get_with_auth(
        &c,
        &s,
        &format!("PrivateToken token=\"{}\", x=1", B64URL.encode(&token)),
    )
    .await;
    assert_eq!(r.status(), 401);
    assert_eq!(r.text().await.unwrap(), "token already spent\n");
    // A second token with a quoted, parameter-laden header is granted.
    let t2 = voprf_token(&c, &s).await;
    let r = get_with_auth(
        &c,
        &s,
        &format!("PrivateToken realm=\"a\", token=\"{}\"", B64URL.encode(&t2)),
    )
    .await;
    assert_eq!(r.status(), 200);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amortized_batch_flow() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let (challenge, pk) = voprf_challenge(&c, &s).await;
    let (req, state) = Client::request_batch(&pk, &challenge, 10, &mut rand::rng()).unwrap();
    let r = post(&c, &s, BATCH, req.to_bytes()).await;
    let body = expect_ok(r, "application/private-token-amortized-batch-response").await;
    let tokens = state
        .finalize_batch(&BatchTokenResponse::from_bytes(&body).unwrap())
        .unwrap();
    assert_eq!(tokens.len(), 10);
    for t in &tokens {
        assert_eq!(redeem(&c, &s, &t.to_bytes()).await.0, 200);
    }
    assert_eq!(redeem(&c, &s, &tokens[3].to_bytes()).await.0, 401);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arc_flow_rate_limit_and_double_spend() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let r = c.get(url(&s, "/private")).send().await.unwrap();
    let (challenge, key, line) = challenge_of(&r, 0xE5AC);
    assert!(line.contains(", rate-limit=10"), "{line}");
    let pk = ServerPublicKey::from_bytes(&key).unwrap();
    let ch = arc_pp::TokenChallenge::from_bytes(&challenge).unwrap();
    let mut rng = rand::rng();
    let (req, state) = arc_pp::Client::request(&ch, &pk, &mut rng).unwrap();
    let r = post(
        &c,
        &s,
        "application/private-credential-request",
        req.to_bytes(),
    )
    .await;
    let body = expect_ok(r, "application/private-credential-response").await;
    let resp = arc_pp::CredentialResponse::from_bytes(&body).unwrap();
    let mut cred = state.finalize(&resp).unwrap();
    let mut ts = arc_pp::Client::token_state(&mut cred, &ch, &pk, 10).unwrap();
    let first = ts.token(&mut rng).unwrap().to_bytes();
    assert_eq!(redeem(&c, &s, &first).await.0, 200);
    // The same presentation again, and with other presentation_nonce bytes (same tag): spent.
    assert_eq!(redeem(&c, &s, &first).await.1, "token already spent\n");
    let mut other = first.clone();
    other[2..6].copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(redeem(&c, &s, &other).await.1, "token already spent\n");
    for _ in 1..10 {
        let t = ts.token(&mut rng).unwrap().to_bytes();
        assert_eq!(redeem(&c, &s, &t).await.0, 200);
    }
    // The client stops at the limit.
    assert!(ts.token(&mut rng).is_err());
    s.stop().await.unwrap();
}

async fn pst_flow(method: trust_token::Method, version: &str) {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let r = c
        .get(url(&s, "/.well-known/private-state-token/key-commitment"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let doc: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    let com = &doc[version];
    assert_eq!(com["protocol_version"], version);
    assert!(com["id"].as_u64().unwrap() > 0);
    assert_eq!(com["batchsize"].as_u64(), Some(20));
    let mut client = trust_token::Client::new(method, 20);
    let keys = com["keys"].as_object().unwrap();
    assert_eq!(keys.len(), 3);
    for (id, k) in keys {
        id.parse::<u32>().unwrap();
        let us: u128 = k["expiry"].as_str().unwrap().parse().unwrap();
        assert!(us > 1_000_000 * u128::from(privacy_tokens_server::unix_now()));
        let blob = base64::engine::general_purpose::STANDARD
            .decode(k["Y"].as_str().unwrap())
            .unwrap();
        client.add_key_bytes(&blob).unwrap();
    }
    let std = base64::engine::general_purpose::STANDARD;
    let req = client.begin_issuance(5, &mut rand::rng()).unwrap();
    let r = c
        .post(url(&s, "/pst/issue"))
        .header("sec-private-state-token", std.encode(&req.message))
        .header("sec-private-state-token-crypto-version", version)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let resp = std
        .decode(r.headers()["sec-private-state-token"].as_bytes())
        .unwrap();
    let tokens = client.finish_issuance(req.state, &resp).unwrap();
    assert_eq!(tokens.len(), 5);
    let rr = client.begin_redemption(&tokens[0], b"client data").unwrap();
    let send = |rr: Vec<u8>| {
        c.get(url(&s, "/pst/redeem"))
            .header("sec-private-state-token", std.encode(rr))
            .header("sec-private-state-token-crypto-version", version)
            .send()
    };
    let r = send(rr.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let lifetime: u64 = r.headers()["sec-private-state-token-lifetime"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(lifetime > 0);
    let record = std
        .decode(r.headers()["sec-private-state-token"].as_bytes())
        .unwrap();
    let record = String::from_utf8(record).unwrap();
    let json = privacy_tokens_server::pst::verify_redemption_record(&s.state, &record).unwrap();
    assert_eq!(json["private_metadata"], false);
    assert_eq!(json["key_id"].as_u64(), Some(u64::from(tokens[0].key_id())));
    // A tampered record does not verify.
    let mut bad = record.clone().into_bytes();
    bad[3] ^= 1;
    assert!(privacy_tokens_server::pst::verify_redemption_record(
        &s.state,
        &String::from_utf8_lossy(&bad)
    )
    .is_none());
    // Spent once only.
    let r = send(rr).await.unwrap();
    assert_eq!(r.status(), 403);
    assert_eq!(r.text().await.unwrap(), "token already spent\n");
    // Another token redeems.
    let rr = client.begin_redemption(&tokens[1], b"").unwrap();
    assert_eq!(send(rr).await.unwrap().status(), 200);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pst_v1_voprf_flow() {
    pst_flow(trust_token::Method::PstV1Voprf, "PrivateStateTokenV1VOPRF").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pst_v1_pmb_flow() {
    pst_flow(trust_token::Method::PstV1Pmb, "PrivateStateTokenV1PMB").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directory_lists_current_and_next_keys_with_etag_and_cache_control() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let r = c
        .get(url(&s, "/.well-known/private-token-issuer-directory"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-type"],
        "application/private-token-issuer-directory"
    );
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let cache = r.headers()["cache-control"].to_str().unwrap().to_string();
    let max_age: u64 = cache
        .strip_prefix("public, max-age=")
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=86_400).contains(&max_age));
    let doc: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    assert_eq!(doc["issuer-request-uri"], "/token-request");
    let keys = doc["token-keys"].as_array().unwrap();
    let of = |t: u64| {
        keys.iter()
            .filter(|k| k["token-type"] == t)
            .collect::<Vec<_>>()
    };
    let (v, a) = (of(1), of(0xE5AC));
    assert_eq!((v.len(), a.len()), (2, 2));
    let lens = |ks: &[&Value]| {
        ks.iter()
            .map(|k| {
                B64URL
                    .decode(k["token-key"].as_str().unwrap())
                    .unwrap()
                    .len()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(lens(&v), [49, 49]);
    assert_eq!(lens(&a), [99, 99]);
    let nb = |k: &Value| k["not-before"].as_u64().unwrap();
    assert!(
        nb(v[0]) <= privacy_tokens_server::unix_now()
            && nb(v[1]) > privacy_tokens_server::unix_now()
    );
    assert_eq!(nb(v[1]) - nb(v[0]), 86_400);
    // The token key of the 401 is the directory's current key.
    let (_, key) = get_challenge(&c, &s, 1).await;
    assert_eq!(B64URL.encode(key), v[0]["token-key"].as_str().unwrap());
    // 304 on a matching If-None-Match, with the validators.
    let r = c
        .get(url(&s, "/.well-known/private-token-issuer-directory"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(r.headers()["etag"].to_str().unwrap(), etag);
    assert!(r.bytes().await.unwrap().is_empty());
    // The legacy alias serves the same body.
    let r = c
        .get(url(&s, "/.well-known/token-issuer-directory"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 304);
    let r = c
        .get(url(&s, "/.well-known/private-token-issuer-directory"))
        .header("if-none-match", "\"other\"")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issuance_status_codes() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let post = |ct: Option<&'static str>, body: Vec<u8>| {
        let mut r = c.post(url(&s, "/token-request")).body(body);
        if let Some(ct) = ct {
            r = r.header("content-type", ct);
        }
        r.send()
    };
    let (challenge, pk) = voprf_challenge(&c, &s).await;
    let (req, _) = Client::request(&pk, &challenge, &mut rand::rng()).unwrap();
    let good = req.to_bytes().to_vec();
    let single = Some("application/private-token-request");
    let batch = Some("application/private-token-amortized-batch-request");
    let status = |r: reqwest::Response| r.status().as_u16();
    // Wrong or missing media type: 415.
    assert_eq!(status(post(None, good.clone()).await.unwrap()), 415);
    assert_eq!(
        status(
            post(Some("application/octet-stream"), good.clone())
                .await
                .unwrap()
        ),
        415
    );
    // Media type parameters and case are tolerated.
    assert_eq!(
        status(
            post(Some("Application/Private-Token-Request; x=1"), good.clone())
                .await
                .unwrap()
        ),
        200
    );
    // Unknown truncated key id, bad element, bad size, bad type: 422.
    let mut bad_key = good.clone();
    bad_key[2] ^= 0xff;
    assert_eq!(status(post(single, bad_key).await.unwrap()), 422);
    let mut bad_point = good.clone();
    bad_point[3] = 0x05;
    assert_eq!(status(post(single, bad_point).await.unwrap()), 422);
    assert_eq!(
        status(post(single, good[..51].to_vec()).await.unwrap()),
        422
    );
    let mut bad_type = good.clone();
    bad_type[1] = 2;
    assert_eq!(status(post(single, bad_type).await.unwrap()), 422);
    // Amortized: a body over the size cap (a generic batch of 20 type-0x0001 requests, 8 +
    // 20 * 52 = 1048 bytes) is 413 before it is read; 21 elements fit the body cap and are 422
    // (over max_batch); a length prefix claiming 21 elements is 422 before anything else is
    // read; bad framing 400.
    let (breq, _) = Client::request_batch(&pk, &challenge, 22, &mut rand::rng()).unwrap();
    assert_eq!(status(post(batch, breq.to_bytes()).await.unwrap()), 413);
    let (breq, _) = Client::request_batch(&pk, &challenge, 21, &mut rand::rng()).unwrap();
    assert_eq!(status(post(batch, breq.to_bytes()).await.unwrap()), 422);
    let len = (21u16 * 49) | 0x4000;
    let claim = [&[0, 1, good[2]][..], &len.to_be_bytes()].concat();
    assert_eq!(status(post(batch, claim).await.unwrap()), 422);
    let (breq, _) = Client::request_batch(&pk, &challenge, 3, &mut rand::rng()).unwrap();
    let mut b = breq.to_bytes();
    b.push(0);
    assert_eq!(status(post(batch, b).await.unwrap()), 400);
    assert_eq!(status(post(batch, vec![0, 1]).await.unwrap()), 400);
    assert_eq!(status(post(batch, breq.to_bytes()).await.unwrap()), 200);
    // Over the body cap: 413, before the body is read, and the connection ends (a client
    // reusing it would race the close: seen once in CI before the header was sent).
    let r = post(batch, vec![0; 64 * 1024]).await.unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(r.headers()["connection"], "close");
    // ARC: wrong size or key 422.
    let arc = Some("application/private-credential-request");
    assert_eq!(status(post(arc, vec![0xE5, 0xAC, 0]).await.unwrap()), 422);
    // A valid single request still works afterwards.
    assert_eq!(status(post(single, good).await.unwrap()), 200);
    let _ = TokenRequest::from_bytes(&req.to_bytes()).unwrap();
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redemption_order_rejects_foreign_challenge_and_unknown_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let (_, pk) = voprf_challenge(&c, &s).await;
    // A token for another origin's challenge, issued by this issuer: refused before verify.
    let foreign = privacy_tokens::voprf::privacy_pass::TokenChallenge::new(
        1,
        b"issuer.test".to_vec(),
        vec![],
        b"elsewhere.test".to_vec(),
    )
    .unwrap()
    .to_bytes();
    let (req, st) = Client::request(&pk, &foreign, &mut rand::rng()).unwrap();
    let body = expect_ok(
        post(&c, &s, SINGLE, req.to_bytes().to_vec()).await,
        "application/private-token-response",
    )
    .await;
    let resp = privacy_tokens::voprf::privacy_pass::TokenResponse::from_bytes(&body).unwrap();
    let t = st.finalize(&resp).unwrap().to_bytes();
    assert_eq!(redeem(&c, &s, &t).await.1, "unknown challenge\n");
    // A good token with a flipped key id: unknown key; flipped authenticator: invalid.
    let t = voprf_token(&c, &s).await;
    let mut k = t.clone();
    k[70] ^= 1;
    assert_eq!(redeem(&c, &s, &k).await.1, "unknown token key\n");
    let mut a = t.clone();
    a[145] ^= 1;
    assert_eq!(redeem(&c, &s, &a).await.1, "invalid token\n");
    // Neither attempt spent it.
    assert_eq!(redeem(&c, &s, &t).await.0, 200);
    let m = metrics_text(&c, &s).await;
    for needle in [
        "pt_redemptions_total{token_type=\"1\",result=\"unknown_challenge\"} 1",
        "pt_redemptions_total{token_type=\"1\",result=\"ok\"} 1",
        "pt_issued_tokens_total{token_type=\"1\"} 2",
        "pt_request_seconds_count{route=\"/private\"}",
    ] {
        assert!(m.contains(needle), "{needle} not in\n{m}");
    }
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_old_key_redeems_until_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(
        privacy_tokens_server::store::RedbStore::open(&dir.path().join("s.redb")).unwrap(),
    );
    let mut cfg = config();
    cfg.keys.lifetime_secs = 1000;
    cfg.keys.issue_grace_secs = 0;
    cfg.challenge.lifetime_secs = 0;
    let s = start(cfg, [5; 32], store).await;
    let c = http();
    let now = privacy_tokens_server::unix_now() as i64;
    // At the start of an epoch.
    s.state.set_clock_offset(1000 - now % 1000);
    let t1 = voprf_token(&c, &s).await;
    let t1b = voprf_token(&c, &s).await;
    let (_, k1) = get_challenge(&c, &s, 1).await;
    // One epoch later: a new current key; the old one still redeems.
    s.state.set_clock_offset(2000 - now % 1000);
    let (_, k2) = get_challenge(&c, &s, 1).await;
    assert_ne!(k1, k2);
    assert_eq!(redeem(&c, &s, &t1).await.0, 200);
    // Its issuance has ended: a request under the old key is refused.
    let pk1 = PublicKey::<P384Sha384>::from_bytes(&k1).unwrap();
    let (challenge, _) = get_challenge(&c, &s, 1).await;
    let (req, _) = Client::request(&pk1, &challenge, &mut rand::rng()).unwrap();
    let r = post(
        &c,
        &s,
        "application/private-token-request",
        req.to_bytes().to_vec(),
    )
    .await;
    assert_eq!(r.status(), 422);
    // Two epochs later the old key has expired (redeem_epochs = 1).
    s.state.set_clock_offset(3000 - now % 1000);
    assert_eq!(redeem(&c, &s, &t1b).await.1, "unknown token key\n");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pst_rotation_commitment_id_grows_and_old_keys_expire() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(
        privacy_tokens_server::store::RedbStore::open(&dir.path().join("s.redb")).unwrap(),
    );
    let mut cfg = config();
    cfg.pst.key_lifetime_secs = 1000;
    let s = start(cfg, [6; 32], store).await;
    let c = http();
    let std = base64::engine::general_purpose::STANDARD;
    let version = "PrivateStateTokenV1VOPRF";
    let method = trust_token::Method::PstV1Voprf;
    let now = privacy_tokens_server::unix_now() as i64;
    let at = |secs: i64| s.state.set_clock_offset(secs - now % 1000);
    let commitment = || async {
        let r = c
            .get(url(&s, "/.well-known/private-state-token/key-commitment"))
            .send()
            .await
            .unwrap();
        let doc: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        doc[version].clone()
    };
    let send = |path: &'static str, msg: Vec<u8>| {
        c.post(url(&s, path))
            .header("sec-private-state-token", std.encode(msg))
            .header("sec-private-state-token-crypto-version", version)
            .send()
    };
    at(1000);
    let com = commitment().await;
    let id0 = com["id"].as_u64().unwrap();
    let mut client = trust_token::Client::new(method, 20);
    for k in com["keys"].as_object().unwrap().values() {
        client
            .add_key_bytes(&std.decode(k["Y"].as_str().unwrap()).unwrap())
            .unwrap();
    }
    let req = client.begin_issuance(2, &mut rand::rng()).unwrap();
    let r = send("/pst/issue", req.message.clone()).await.unwrap();
    let resp = std
        .decode(r.headers()["sec-private-state-token"].as_bytes())
        .unwrap();
    let tokens = client.finish_issuance(req.state, &resp).unwrap();
    // One rotation later: a new commitment id, the signing key still listed and redeeming.
    at(2000);
    let com = commitment().await;
    assert_eq!(com["id"].as_u64().unwrap(), id0 + 1);
    let signer = tokens[0].key_id().to_string();
    assert!(com["keys"].get(&signer).is_some());
    let rr = client.begin_redemption(&tokens[0], b"").unwrap();
    assert_eq!(send("/pst/redeem", rr).await.unwrap().status(), 200);
    // Two rotations later the key has expired: gone from the commitment, its tokens refused.
    at(3000);
    let com = commitment().await;
    assert!(com["keys"].get(&signer).is_none());
    assert_eq!(com["keys"].as_object().unwrap().len(), 3);
    let rr = client.begin_redemption(&tokens[1], b"").unwrap();
    assert_eq!(send("/pst/redeem", rr).await.unwrap().status(), 403);
    s.stop().await.unwrap();
}

/// Type 0x0005 (VOPRF ristretto255, SHA-512) beside 0x0001 and 0xE5AC: in the directory and
/// the 401, single and amortized issuance, redemption and double spend.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type5_ristretto255_single_and_batch_flows() {
    use privacy_tokens::voprf::privacy_pass::type5;
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let body = c
        .get(url(&s, "/.well-known/private-token-issuer-directory"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let v: Value = serde_json::from_slice(&body).unwrap();
    let type5_keys: Vec<&Value> = v["token-keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["token-type"] == 5)
        .collect();
    assert_eq!(type5_keys.len(), 2, "{v}");
    // The 401's type 0x0005 line names the current key, the directory's first.
    let (challenge, key) = get_challenge(&c, &s, 5).await;
    assert_eq!(type5_keys[0]["token-key"], B64URL.encode(&key));
    let pk = PublicKey::<privacy_tokens::Ristretto255Sha512>::from_bytes(&key).unwrap();
    let (req, state) = type5::Client::request(&pk, &challenge, &mut rand::rng()).unwrap();
    let body = expect_ok(
        post(&c, &s, SINGLE, req.to_bytes().to_vec()).await,
        "application/private-token-response",
    )
    .await;
    let token = state
        .finalize(&type5::TokenResponse::from_bytes(&body).unwrap())
        .unwrap()
        .to_bytes();
    assert_eq!(&token[..2], &[0, 5]);
    assert_eq!(redeem(&c, &s, &token).await.0, 200);
    assert_eq!(
        redeem(&c, &s, &token).await,
        (401, "token already spent\n".into())
    );
    // The same bytes relabelled as type 0x0001 are no type 1 token.
    let mut relabelled = token.to_vec();
    relabelled[1] = 1;
    assert_eq!(redeem(&c, &s, &relabelled).await.0, 401);
    let (req, state) = type5::Client::request_batch(&pk, &challenge, 10, &mut rand::rng()).unwrap();
    let body = expect_ok(
        post(&c, &s, BATCH, req.to_bytes()).await,
        "application/private-token-amortized-batch-response",
    )
    .await;
    let tokens = state
        .finalize_batch(&type5::BatchTokenResponse::from_bytes(&body).unwrap())
        .unwrap();
    assert_eq!(tokens.len(), 10);
    for t in &tokens {
        assert_eq!(redeem(&c, &s, &t.to_bytes()).await.0, 200);
    }
    assert_eq!(redeem(&c, &s, &tokens[7].to_bytes()).await.0, 401);
    let m = metrics_text(&c, &s).await;
    assert!(
        m.contains("pt_issued_tokens_total{token_type=\"5\"} 11"),
        "{m}"
    );
    s.stop().await.unwrap();
}
