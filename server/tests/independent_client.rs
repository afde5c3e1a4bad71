//! An independent client: the `privacypass` crate (=0.2.0-pre.4, raphaelrobert/privacypass)
//! parses this server's challenge header, obtains type 0x0001 and amortized-batch tokens over
//! HTTP, and redeems them at `/private` with its own `Authorization` header.

mod common;

use common::*;
use p384_14::NistP384;
use privacypass::amortized_tokens::{AmortizedBatchTokenRequest, AmortizedBatchTokenResponse};
use privacypass::auth::authenticate::parse_www_authenticate_header;
use privacypass::auth::authorize::build_authorization_header;
use privacypass::common::private::deserialize_public_key;
use privacypass::private_tokens::{TokenRequest, TokenResponse};
use privacypass::Serialize as _;

/// Their parser on our type-1 header line; the challenge as they re-serialize it must be ours.
async fn their_challenge(
    c: &reqwest::Client,
    s: &privacy_tokens_server::RunningServer,
) -> privacypass::auth::authenticate::Challenge {
    let r = c.get(url(s, "/private")).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let (ours, _, line) = challenge_of(&r, 1);
    let mut chals = parse_www_authenticate_header(&line.parse().unwrap()).unwrap();
    assert_eq!(chals.len(), 1);
    let ch = chals.remove(0);
    assert_eq!(ch.token_challenge().serialize().unwrap(), ours);
    assert!(ch.max_age().is_some());
    ch
}

async fn redeem_theirs(
    c: &reqwest::Client,
    s: &privacy_tokens_server::RunningServer,
    value: &str,
) -> u16 {
    get_with_auth(c, s, value).await.status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn privacypass_crate_single_and_amortized_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_redb(dir.path()).await;
    let c = http();

    // Type 0x0001, one token.
    let ch = their_challenge(&c, &s).await;
    let pk = deserialize_public_key::<NistP384>(ch.token_key()).unwrap();
    let (req, state) = TokenRequest::<NistP384>::new(pk, ch.token_challenge()).unwrap();
    let r = post(
        &c,
        &s,
        "application/private-token-request",
        req.tls_serialize_detached().unwrap(),
    )
    .await;
    let body = expect_ok(r, "application/private-token-response").await;
    let resp = TokenResponse::<NistP384>::try_from_bytes(&body).unwrap();
    let token = resp.issue_token(&state).unwrap();
    let (_, value) = build_authorization_header(&token).unwrap();
    let value = value.to_str().unwrap().to_string();
    assert!(value.starts_with("PrivateToken token="));
    assert_eq!(redeem_theirs(&c, &s, &value).await, 200);
    assert_eq!(redeem_theirs(&c, &s, &value).await, 401);

    // Amortized batches of 1 and 10.
    for nr in [1u16, 10] {
        let ch = their_challenge(&c, &s).await;
        let pk = deserialize_public_key::<NistP384>(ch.token_key()).unwrap();
        let (req, state) =
            AmortizedBatchTokenRequest::<NistP384>::new(pk, ch.token_challenge(), nr).unwrap();
        let r = post(&c, &s, BATCH, req.tls_serialize_detached().unwrap()).await;
        let body = expect_ok(r, "application/private-token-amortized-batch-response").await;
        let resp = AmortizedBatchTokenResponse::<NistP384>::try_from_bytes(&body).unwrap();
        let tokens = resp.issue_tokens(&state).unwrap();
        assert_eq!(tokens.len(), usize::from(nr));
        for t in &tokens {
            let (_, v) = build_authorization_header(t).unwrap();
            let v = v.to_str().unwrap().to_string();
            assert_eq!(redeem_theirs(&c, &s, &v).await, 200);
            assert_eq!(redeem_theirs(&c, &s, &v).await, 401);
        }
    }
    s.stop().await.unwrap();
}
