//! Generic token batch issuance (draft-ietf-privacypass-batched-tokens, "Generic Token Batch
//! Issuance", `application/private-token-generic-batch-request`): a mixed batch of types 0x0001
//! and 0x0005 issued under the right keys and finalized with the library client, each token
//! redeemed once (200) and replayed (401); the same with type 0x0002 (blind RSA) when the server
//! serves it, and refused (422) when it does not; partial (206) and empty (400) answers; the refusals
//! before any work (framing 400, unknown or unserved type 422, over `max_batch` 422); the
//! issuance gate charging every token of the batch; a busy pool's 503 giving them back.

mod common;

use std::sync::Arc;

use common::*;
use privacy_tokens::privacy_pass::generic_batch::{
    self, GenericBatchTokenResponse, GenericPublicKey, GenericToken,
};
use privacy_tokens::voprf::PublicKey;
use privacy_tokens::{P384Sha384, Ristretto255Sha512};
use privacy_tokens_server::config::Config;
use privacy_tokens_server::store::RedbStore;
use privacy_tokens_server::RunningServer;
use sha2::{Digest as _, Sha256};

const GENERIC: &str = "application/private-token-generic-batch-request";
const GENERIC_RESPONSE: &str = "application/private-token-generic-batch-response";

/// The type 0x0001 and 0x0005 challenges and keys of a 401 from `/private`.
struct Challenges {
    c1: Vec<u8>,
    k1: PublicKey<P384Sha384>,
    c5: Vec<u8>,
    k5: PublicKey<Ristretto255Sha512>,
}

async fn challenges(c: &reqwest::Client, s: &RunningServer) -> Challenges {
    let (c1, k1) = get_challenge(c, s, 1).await;
    let (c5, k5) = get_challenge(c, s, 5).await;
    Challenges {
        c1,
        k1: PublicKey::from_bytes(&k1).unwrap(),
        c5,
        k5: PublicKey::from_bytes(&k5).unwrap(),
    }
}

/// A generic batch of the types `types` (1 or 5 each) for the server's current keys.
fn batch(
    ch: &Challenges,
    types: &[u16],
) -> (
    generic_batch::GenericBatchTokenRequest,
    generic_batch::GenericBatchClientState,
) {
    let items: Vec<(GenericPublicKey<'_>, &[u8])> = types
        .iter()
        .map(|t| match t {
            1 => (GenericPublicKey::Type1(&ch.k1), &ch.c1[..]),
            _ => (GenericPublicKey::Type5(&ch.k5), &ch.c5[..]),
        })
        .collect();
    generic_batch::request(&items, &mut rand::rng()).unwrap()
}

/// A mixed batch: 200 with the generic batch response, `Cache-Control: no-store`; each token
/// of its type, redeemed once (200) then replayed (401); the metrics count each type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_generic_batch_issues_and_each_token_redeems_once() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let ch = challenges(&c, &s).await;
    let types = [1, 5, 1, 5, 5];
    let (req, state) = batch(&ch, &types);
    let r = post(&c, &s, GENERIC, req.to_bytes()).await;
    assert_eq!(r.headers()["cache-control"], "no-store");
    let body = expect_ok(r, GENERIC_RESPONSE).await;
    let resp = GenericBatchTokenResponse::from_bytes_with_limit(&body, 5).unwrap();
    let tokens: Vec<GenericToken> = state
        .finalize(&resp)
        .unwrap()
        .into_iter()
        .map(|t| t.expect("every token issued"))
        .collect();
    let got: Vec<u16> = tokens.iter().map(|t| t.token_type()).collect();
    assert_eq!(got, types);
    for t in &tokens {
        assert_eq!(
            redeem(&c, &s, &t.to_bytes()).await,
            (200, "access granted\n".into())
        );
    }
    for t in &tokens {
        assert_eq!(
            redeem(&c, &s, &t.to_bytes()).await,
            (401, "token already spent\n".into())
        );
    }
    // The media type's case and parameters are tolerated, as for the other types.
    let (req, _) = batch(&ch, &[5]);
    let r = post(
        &c,
        &s,
        "Application/Private-Token-Generic-Batch-Request; x=1",
        req.to_bytes(),
    )
    .await;
    assert_eq!(r.status(), 200);
    let m = metrics_text(&c, &s).await;
    assert!(
        m.contains("pt_issued_tokens_total{token_type=\"1\"} 2"),
        "{m}"
    );
    assert!(
        m.contains("pt_issued_tokens_total{token_type=\"5\"} 4"),
        "{m}"
    );
    s.stop().await.unwrap();
}

/// An unknown key id gets an absent entry and 206 (the others issue and redeem); a batch of
/// unknown keys only is 400; framing errors 400; an unknown type, an empty batch and a batch
/// over `max_batch` (20) 422, before any token is issued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_and_refused_generic_batches() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();
    let ch = challenges(&c, &s).await;

    // [1, 5, 1] with the second type-1 request's truncated key id changed.
    let (req, state) = batch(&ch, &[1, 5, 1]);
    let mut bytes = req.to_bytes();
    // A 2-byte prefix (52 + 35 + 52 = 139 > 63), 52 + 35 bytes, then 0x0001 ‖ id.
    assert_eq!(bytes.len(), 2 + 139);
    bytes[2 + 52 + 35 + 2] ^= 0xff;
    let r = post(&c, &s, GENERIC, bytes).await;
    assert_eq!(r.status(), 206);
    assert_eq!(r.headers()["content-type"], GENERIC_RESPONSE);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let resp = GenericBatchTokenResponse::from_bytes(&r.bytes().await.unwrap()).unwrap();
    assert_eq!(resp.issued(), 2);
    assert!(resp.responses()[2].is_none());
    // The client's state is for the original request; entries 0 and 1 finalize (entry 2 is
    // absent, so its changed id is never checked).
    let tokens = state.finalize(&resp).unwrap();
    assert!(tokens[2].is_none());
    for t in tokens.iter().take(2) {
        assert_eq!(redeem(&c, &s, &t.as_ref().unwrap().to_bytes()).await.0, 200);
    }

    // Only unknown keys: 400, nothing issued.
    let (req, _) = batch(&ch, &[5, 1]);
    let mut bytes = req.to_bytes();
    // 35 + 52 = 87 bytes behind a 2-byte prefix; each request's id follows its type.
    assert_eq!(bytes.len(), 2 + 87);
    bytes[2 + 2] ^= 0xff;
    bytes[2 + 35 + 2] ^= 0xff;
    let r = post(&c, &s, GENERIC, bytes).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.text().await.unwrap(), "no token issued\n");

    let status = |r: reqwest::Response| r.status().as_u16();
    let (req, _) = batch(&ch, &[1, 5]);
    let good = req.to_bytes();
    // Framing: a trailing byte, a non-minimal prefix, a truncated request: 400.
    let trailing = [&good[..], &[0]].concat();
    assert_eq!(status(post(&c, &s, GENERIC, trailing).await), 400);
    let non_minimal = [&[0x80, 0, 0][..], &good[1..]].concat();
    assert_eq!(status(post(&c, &s, GENERIC, non_minimal).await), 400);
    assert_eq!(&good[..2], &[0x40, 0x57]);
    let truncated = [&[0x40, 0x56][..], &good[2..good.len() - 1]].concat();
    assert_eq!(status(post(&c, &s, GENERIC, truncated).await), 400);
    // An unsupported token type (0xDA7A in the first request), an empty batch: 422.
    let mut unknown = good.clone();
    unknown[2..4].copy_from_slice(&[0xda, 0x7a]);
    assert_eq!(status(post(&c, &s, GENERIC, unknown).await), 422);
    assert_eq!(status(post(&c, &s, GENERIC, vec![0]).await), 422);
    // A bad element (the type-1 SEC1 tag): 422.
    let mut bad_point = good.clone();
    bad_point[5] = 5;
    assert_eq!(status(post(&c, &s, GENERIC, bad_point).await), 422);
    // Over max_batch = 20: 21 type-5 requests (737 bytes, under the body cap) are 422.
    let (big, _) = batch(&ch, &[5; 21]);
    let r = post(&c, &s, GENERIC, big.to_bytes()).await;
    assert_eq!(r.status(), 422);
    assert_eq!(r.text().await.unwrap(), "batch empty or over the cap\n");
    // 20 are issued.
    let (ok, _) = batch(&ch, &[5; 20]);
    assert_eq!(status(post(&c, &s, GENERIC, ok.to_bytes()).await), 200);
    // The amortized media type does not take a generic body (its first bytes are a prefix).
    assert_eq!(status(post(&c, &s, BATCH, good.clone()).await), 422);
    let m = metrics_text(&c, &s).await;
    assert!(
        m.contains("pt_issued_tokens_total{token_type=\"1\"} 1"),
        "{m}"
    );
    assert!(
        m.contains("pt_issued_tokens_total{token_type=\"5\"} 21"),
        "{m}"
    );
    s.stop().await.unwrap();
}

/// A server that serves type 0x0001 only refuses a batch holding a 0x0005 request (422).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_type_the_server_does_not_serve_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let both = start_redb(dir.path()).await;
    let c = http();
    // Keys of a server that serves both, to build a well-formed 0x0005 request.
    let ch = challenges(&c, &both).await;
    both.stop().await.unwrap();
    let config = Config::from_toml(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 20\n\
         token_types = [1]\n[issuance]\nauth = \"open\"\n",
    )
    .unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let store = Arc::new(RedbStore::open(&dir2.path().join("spent.redb")).unwrap());
    let s = start(config, [42; 32], store).await;
    let (req, _) = batch(&ch, &[1, 5]);
    let r = post(&c, &s, GENERIC, req.to_bytes()).await;
    assert_eq!(r.status(), 422);
    assert_eq!(r.text().await.unwrap(), "unsupported token type\n");
    // Type 0x0001 alone is issued (the same master secret gives the same keys).
    let (req, _) = batch(&ch, &[1, 1]);
    assert_eq!(post(&c, &s, GENERIC, req.to_bytes()).await.status(), 200);
    s.stop().await.unwrap();
}

const KEY: &str = "k-generic-7a1";

/// The issuance gate charges every request of a generic batch; a batch over the remaining
/// quota is refused (429) whole; a batch refused as busy (503) gives its tokens back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_counts_every_token_of_a_generic_batch() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("api-keys");
    let hash: String = Sha256::digest(KEY.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(&keys, format!("alice {hash} 5\n")).unwrap();
    let config = Config::from_toml(&format!(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 20\n\
         limits.crypto_threads = 1\nlimits.crypto_queue = 0\n\
         [issuance]\nauth = \"api-keys\"\napi_keys_file = \"{}\"\n",
        keys.display()
    ))
    .unwrap();
    let store = Arc::new(RedbStore::open(&dir.path().join("spent.redb")).unwrap());
    let s = start(config, [42; 32], store).await;
    let c = http();
    let ch = challenges(&c, &s).await;
    let send = |body: Vec<u8>| {
        c.post(url(&s, "/token-request"))
            .header("content-type", GENERIC)
            .header("authorization", format!("Bearer {KEY}"))
            .body(body)
            .send()
    };
    // No key: 401.
    let (req, _) = batch(&ch, &[1]);
    assert_eq!(post(&c, &s, GENERIC, req.to_bytes()).await.status(), 401);
    // The pool held: 503, and the 3 tokens are given back.
    let (release, holder) = hold_the_pool(&s).await;
    let (req, _) = batch(&ch, &[1, 5, 5]);
    let r = send(req.to_bytes()).await.unwrap();
    assert_eq!(r.status(), 503);
    release.send(()).unwrap();
    assert!(holder.await.unwrap());
    // 6 tokens > quota 5: 429, nothing issued; then 3 + 2 = 5 are issued; then 1 more is 429.
    let (six, _) = batch(&ch, &[1, 5, 1, 5, 1, 5]);
    assert_eq!(send(six.to_bytes()).await.unwrap().status(), 429);
    let (three, _) = batch(&ch, &[1, 5, 5]);
    assert_eq!(send(three.to_bytes()).await.unwrap().status(), 200);
    let (two, _) = batch(&ch, &[5, 1]);
    assert_eq!(send(two.to_bytes()).await.unwrap().status(), 200);
    let (one, _) = batch(&ch, &[5]);
    assert_eq!(send(one.to_bytes()).await.unwrap().status(), 429);
    s.stop().await.unwrap();
}

/// Type 0x0002 in a generic batch: a server serving 0x0001, 0x0002 and 0x0005 issues a mixed
/// batch (the RSA tokens signed under its derived key, checked with the public key alone),
/// each token redeems once; a server that does not serve 0x0002 refuses the batch whole (422)
/// before issuing anything. The batch of the largest entries, `max_batch` RSA requests, fits
/// the body cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blind_rsa_in_a_generic_batch() {
    use privacy_tokens::blind_rsa::privacy_pass::TokenKey;
    let cfg = Config::from_toml(
        "issuer_name = \"issuer.test\"\norigin_info = \"origin.test\"\nmax_batch = 20\n\
         token_types = [1, 2, 5]\n[issuance]\nauth = \"open\"\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(RedbStore::open(&dir.path().join("spent.redb")).unwrap());
    let s = start(cfg, [42; 32], store).await;
    let c = http();
    let ch = challenges(&c, &s).await;
    let (c2, k2) = get_challenge(&c, &s, 2).await;
    let k2 = TokenKey::from_spki(&k2).unwrap();
    let items = [
        (GenericPublicKey::BlindRsa(&k2), &c2[..]),
        (GenericPublicKey::Type1(&ch.k1), &ch.c1[..]),
        (GenericPublicKey::BlindRsa(&k2), &c2[..]),
        (GenericPublicKey::Type5(&ch.k5), &ch.c5[..]),
    ];
    let (req, state) = generic_batch::request(&items, &mut rand::rng()).unwrap();
    let body = expect_ok(
        post(&c, &s, GENERIC, req.to_bytes()).await,
        GENERIC_RESPONSE,
    )
    .await;
    let resp = GenericBatchTokenResponse::from_bytes_with_limit(&body, 4).unwrap();
    let tokens: Vec<GenericToken> = state
        .finalize(&resp)
        .unwrap()
        .into_iter()
        .map(|t| t.expect("every token issued"))
        .collect();
    let got: Vec<u16> = tokens.iter().map(|t| t.token_type()).collect();
    assert_eq!(got, [2, 1, 2, 5]);
    for t in &tokens {
        if let GenericToken::BlindRsa(t) = t {
            k2.verify(t, None).unwrap();
        }
        assert_eq!(redeem(&c, &s, &t.to_bytes()).await.0, 200);
        assert_eq!(redeem(&c, &s, &t.to_bytes()).await.0, 401);
    }
    let m = metrics_text(&c, &s).await;
    assert!(
        m.contains("pt_issued_tokens_total{token_type=\"2\"} 2"),
        "{m}"
    );
    // `max_batch` (20) RSA requests: within the body cap, all issued.
    let full = vec![(GenericPublicKey::BlindRsa(&k2), &c2[..]); 20];
    let (req, _) = generic_batch::request(&full, &mut rand::rng()).unwrap();
    let body = expect_ok(
        post(&c, &s, GENERIC, req.to_bytes()).await,
        GENERIC_RESPONSE,
    )
    .await;
    let resp = GenericBatchTokenResponse::from_bytes_with_limit(&body, 20).unwrap();
    assert_eq!(resp.issued(), 20);
    s.stop().await.unwrap();

    // A server without 0x0002: the batch is refused whole before any work.
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let (req, _) = generic_batch::request(&items[..2], &mut rand::rng()).unwrap();
    let r = post(&c, &s, GENERIC, req.to_bytes()).await;
    assert_eq!(r.status(), 422);
    let m = metrics_text(&c, &s).await;
    assert!(
        !m.contains("pt_issued_tokens_total{token_type=\"1\"} 1"),
        "{m}"
    );
    s.stop().await.unwrap();
}
