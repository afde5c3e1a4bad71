//! ACT, Anonymous Credit Tokens (`ACTv1-P256-SHA256`, the library's `privacy_tokens::act`):
//! the Moderator's configuration, issuance and spends with refunds. On with `[act] enabled`.
//!
//! # Keys and contexts
//! One key per Privacy Pass key epoch (`keys.lifetime_secs`), derived from the master secret
//! ([`crate::keys::derive_act`]), with `ctx_cred = "privacy-tokens ACT " ‖ epoch` (decimal)
//! through `CredentialContext::with_width(ctx_cred, act.width)`. Only the current epoch's key
//! issues; spends are taken by the keys of the current and the `keys.redeem_epochs` previous
//! epochs (until their `expires_at`). A key is named by its key id, `SHA-256(pkM)` (pkM
//! compressed, 33 bytes). `ctx_spend = SHA-256("privacy-tokens ACT spend" ‖ issuer_name)`.
//!
//! # HTTP
//! - `GET /.well-known/act-configuration`, `application/json`: `ciphersuite`, `width`, `cost`,
//!   `max_top_up`, `spend_context` and `keys` (current first, then older ones still taking
//!   spends), each `{key_id, public_key, credential_context, not_after}`; bytes in base64url
//!   without padding, `not_after` the last UNIX second the key takes spends.
//! - `POST /act/issue`, `application/act-issue-request`: `key_id[32] ‖ IssueRequest` (129
//!   bytes); through the issuance gate ([`crate::gate`], one token per issuance); 200
//!   `application/act-issue-response` with the `IssueResponse` (137 bytes) crediting
//!   `act.issue_credits`.
//! - `POST /act/spend`, `application/act-spend`: `key_id[32] ‖ SpendMessage` (the draft's
//!   encoding at the key's `L`). Refused with 403 for `s < act.cost` or `a > act.max_top_up`;
//!   otherwise verified, the refund `t = s - cost + a` signed, and the nullifier recorded with
//!   the refund in the spent store (id `"act" ‖ key id ‖ nullifier`, kept until the key's
//!   `expires_at` plus the store's margin), then: 200 `application/act-refund` with the refund
//!   (137 bytes) and `ACT-Spend: fresh`; or, for a nullifier already recorded (a retry whose
//!   refund was lost, or a second spend of the credential), 409 with the refund recorded first
//!   (the same bytes, never a second credit) and `ACT-Spend: replayed`. 409 `text/plain`
//!   without the header for a key older than the store ([`crate::marker`]), whose records are
//!   elsewhere.
//! - 415 for another media type; 422 for a wrong length, an unknown key id, a message that does
//!   not decode or a proof that does not verify; 503 when the store fails (nothing recorded,
//!   no refund released) or the crypto pool is full.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use privacy_tokens::act::{IssueRequest, Refund, Spend, CIPHERSUITE};
use serde_json::json;
use sha2::{Digest as _, Sha256};

use crate::config::Config;
use crate::issuer::{media_type, ok, unprocessable};
use crate::keys::{ActKey, KeyRing};
use crate::origin::guarded_store_op;
use crate::rng::with_rng;
use crate::store::Recorded;
use crate::{key_failure, text, AppState};

/// The configuration path.
pub const CONFIGURATION_PATH: &str = "/.well-known/act-configuration";
/// The issuance path.
pub const ISSUE_PATH: &str = "/act/issue";
/// The spend path.
pub const SPEND_PATH: &str = "/act/spend";
/// Media type of an issuance request: `key_id[32] ‖ IssueRequest`.
pub const ISSUE_REQUEST: &str = "application/act-issue-request";
/// Media type of an issuance response: the `IssueResponse`.
pub const ISSUE_RESPONSE: &str = "application/act-issue-response";
/// Media type of a spend: `key_id[32] ‖ SpendMessage`.
pub const SPEND: &str = "application/act-spend";
/// Media type of a refund: the `RefundMessage`.
pub const REFUND: &str = "application/act-refund";
/// The header that says whether a refund answers a fresh spend (`fresh`) or a recorded
/// nullifier (`replayed`).
pub const SPEND_HEADER: &str = "act-spend";
/// Length of a key id.
pub const KEY_ID_LEN: usize = 32;
/// The metrics label of ACT.
const METRIC: &str = "act";
/// The length of an `IssueResponse` and of a `RefundMessage`.
const RESPONSE_LEN: usize = 137;

/// `ctx_spend = SHA-256("privacy-tokens ACT spend" ‖ issuer_name)`.
pub fn spend_context(config: &Config) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"privacy-tokens ACT spend");
    h.update(config.issuer_name.as_bytes());
    h.finalize().into()
}

/// Base64url without padding.
fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `k` takes spends at `now`: from its `not-before` to its `expires_at`.
fn spends(_: &KeyRing, k: &ActKey, now: u64) -> bool {
    k.times.not_before <= now && now < k.times.expires_at
}

/// The keys that take spends at `now`, newest (the current one) first.
fn spending_keys(ring: &KeyRing, now: u64) -> impl Iterator<Item = &ActKey> {
    ring.act.iter().rev().filter(move |k| spends(ring, k, now))
}

/// `GET /.well-known/act-configuration`.
pub async fn configuration(State(st): State<Arc<AppState>>) -> Response {
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    let now = st.now();
    let c = &st.config.act;
    let keys: Vec<_> = spending_keys(&ring, now)
        .map(|k| {
            json!({
                "key_id": b64(&k.key_id),
                "public_key": b64(&k.key.public_key().to_bytes()),
                "credential_context": b64(&k.ctx_cred),
                "not_after": k.times.expires_at,
            })
        })
        .collect();
    let body = json!({
        "ciphersuite": CIPHERSUITE,
        "width": c.width,
        "cost": c.cost,
        "max_top_up": c.max_top_up,
        "spend_context": b64(&spend_context(&st.config)),
        "keys": keys,
    })
    .to_string();
    let max_age = st.config.keys.secs_to_rotation(now).min(86_400);
    let mut resp = (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("public, max-age={max_age}")) {
        resp.headers_mut().insert(header::CACHE_CONTROL, v);
    }
    resp
}

/// The key id of a `key_id[32] ‖ message` body, or the answer: 415 for another media type
/// than `media`, 422 for a body too short.
fn key_id_of(
    headers: &HeaderMap,
    media: &str,
    body: &[u8],
) -> Result<[u8; KEY_ID_LEN], Box<Response>> {
    if media_type(headers).as_deref() != Some(media) {
        return Err(Box::new(text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported media type\n",
        )));
    }
    body.first_chunk::<KEY_ID_LEN>()
        .copied()
        .ok_or_else(|| Box::new(unprocessable("malformed request\n")))
}

/// The message after the key id (empty for a body too short, which [`key_id_of`] refused).
fn message(body: &[u8]) -> &[u8] {
    body.get(KEY_ID_LEN..).unwrap_or_default()
}

/// The key a request names, found before any work on its message.
struct Located {
    ring: Arc<KeyRing>,
    /// The key's index in `ring.act`.
    index: usize,
    key_id: [u8; KEY_ID_LEN],
    now: u64,
}

/// The key named by a `key_id[32] ‖ message` body of media type `media` ([`key_id_of`]) that
/// `usable` accepts at `now`; 422 (after `on_unknown`) when there is none.
async fn locate(
    st: &AppState,
    headers: &HeaderMap,
    media: &str,
    body: &[u8],
    usable: fn(&KeyRing, &ActKey, u64) -> bool,
    on_unknown: impl FnOnce(),
) -> Result<Located, Box<Response>> {
    let key_id = key_id_of(headers, media, body)?;
    let ring = st.ring().await.map_err(|e| Box::new(key_failure(&e)))?;
    let now = st.now();
    match ring
        .act
        .iter()
        .position(|k| k.key_id == key_id && usable(&ring, k, now))
    {
        Some(index) => Ok(Located {
            ring,
            index,
            key_id,
            now,
        }),
        None => {
            on_unknown();
            Err(Box::new(unprocessable("unknown key\n")))
        }
    }
}

/// `POST /act/issue`: key, gate, then the issuance on the crypto pool.
pub async fn issue(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    let issuing = |ring: &KeyRing, k: &ActKey, _| k.times.epoch == ring.epoch;
    let Located {
        ring, index, now, ..
    } = match locate(&st, &headers, ISSUE_REQUEST, &body, issuing, || {}).await {
        Ok(l) => l,
        Err(r) => return *r,
    };
    let epoch = ring.epoch;
    // Decoded before the gate charges anything: a body of the wrong length or with a bad
    // point costs no quota (the proof is checked on the pool).
    let Ok(req) = IssueRequest::from_bytes(message(&body)) else {
        return unprocessable("malformed issue request\n");
    };
    if let Err(r) = st
        .gate
        .admit(&headers, 1, epoch, st.config.keys.secs_to_rotation(now))
    {
        return r.response();
    }
    let job = st.clone();
    let answer = st
        .pool
        .run(move || {
            with_rng(|rng| {
                let Some(key) = ring.act.get(index) else {
                    return unprocessable("unknown key\n");
                };
                match key
                    .key
                    .issue(&key.ctx, job.config.act.issue_credits, &req, rng)
                {
                    Ok(resp) => {
                        job.metrics.issued(METRIC, 1);
                        ok(ISSUE_RESPONSE, resp.to_bytes().to_vec())
                    }
                    Err(_) => unprocessable("issue request refused\n"),
                }
            })
        })
        .await;
    // Nothing was issued when the pool refused the job or the OS generator failed.
    match answer {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            st.gate.refund(&headers, 1, epoch);
            crate::rng::unavailable(&e)
        }
        Err(b) => {
            st.gate.refund(&headers, 1, epoch);
            b.response()
        }
    }
}

/// Why a spend is refused before anything is recorded.
enum Refused {
    /// 403: the amounts break the policy.
    Policy(&'static str),
    /// 422: it does not decode or verify.
    Invalid(&'static str),
}

/// Decodes and checks a spend, applies the policy, verifies it and signs its refund (on the
/// crypto pool): the nullifier and the refund, nothing recorded yet.
fn verify_and_refund(
    st: &AppState,
    key: &ActKey,
    message: &[u8],
    rng: &mut crate::rng::IssueRng,
) -> Result<([u8; 32], [u8; RESPONSE_LEN]), Refused> {
    let c = &st.config.act;
    let spend =
        Spend::from_bytes(message, c.width).map_err(|_| Refused::Invalid("malformed spend\n"))?;
    let (s, a) = (spend.amount(), spend.top_up());
    if s < c.cost {
        return Err(Refused::Policy("spend below the cost\n"));
    }
    if a > c.max_top_up {
        return Err(Refused::Policy("top-up above the limit\n"));
    }
    let t = (s - c.cost)
        .checked_add(a)
        .ok_or(Refused::Policy("refund out of range\n"))?;
    let verified = key
        .key
        .verify_spend(&key.ctx, &spend, &spend_context(&st.config))
        .map_err(|_| Refused::Invalid("invalid spend\n"))?;
    let refund: Refund = key
        .key
        .issue_refund(&key.ctx, &verified, t, rng)
        .map_err(|_| Refused::Policy("refund out of range\n"))?;
    Ok((*verified.nullifier(), refund.to_bytes()))
}

/// A refund answer: `status`, the refund bytes and `ACT-Spend: outcome`.
fn refund_response(status: StatusCode, outcome: &'static str, refund: Vec<u8>) -> Response {
    let mut r = (status, [(header::CONTENT_TYPE, REFUND)], refund).into_response();
    r.headers_mut()
        .insert(SPEND_HEADER, HeaderValue::from_static(outcome));
    r
}

/// `POST /act/spend`: key, then decode, policy, verify and refund on the crypto pool, then the
/// nullifier recorded with the refund; the refund is released only once recorded.
pub async fn spend(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    let unknown = || st.metrics.redeemed(METRIC, "unknown_key");
    let Located {
        ring,
        index,
        key_id,
        now,
    } = match locate(&st, &headers, SPEND, &body, spends, unknown).await {
        Ok(l) => l,
        Err(r) => return *r,
    };
    let (job, r) = (st.clone(), ring.clone());
    let verified = st
        .pool
        .run(move || {
            with_rng(|rng| match r.act.get(index) {
                Some(key) => verify_and_refund(&job, key, message(&body), rng),
                None => Err(Refused::Invalid("unknown key\n")),
            })
        })
        .await;
    let (nullifier, refund) = match verified {
        Err(b) => return b.response(),
        Ok(Err(e)) => return crate::rng::unavailable(&e),
        Ok(Ok(Err(Refused::Policy(msg)))) => {
            st.metrics.redeemed(METRIC, "policy");
            return text(StatusCode::FORBIDDEN, msg);
        }
        Ok(Ok(Err(Refused::Invalid(msg)))) => {
            st.metrics.redeemed(METRIC, "invalid");
            return unprocessable(msg);
        }
        Ok(Ok(Ok(v))) => v,
    };
    let Some(key) = ring.act.get(index) else {
        return unprocessable("unknown key\n");
    };
    let mut id = Vec::with_capacity(3 + KEY_ID_LEN + nullifier.len());
    id.extend_from_slice(b"act");
    id.extend_from_slice(&key_id);
    id.extend_from_slice(&nullifier);
    let recorded = guarded_store_op(
        &st,
        &key.times,
        Recorded::Present(Vec::new()),
        st.store.record(&id, &refund, key.times.expires_at, now),
    )
    .await;
    match recorded {
        Ok(Recorded::Fresh) => {
            st.metrics.redeemed(METRIC, "ok");
            refund_response(StatusCode::OK, "fresh", refund.to_vec())
        }
        Ok(Recorded::Present(stored)) if stored.len() == RESPONSE_LEN => {
            st.metrics.redeemed(METRIC, "replayed");
            refund_response(StatusCode::CONFLICT, "replayed", stored)
        }
        Ok(Recorded::Present(_)) => {
            st.metrics.redeemed(METRIC, "double_spend");
            text(StatusCode::CONFLICT, "credential already spent\n")
        }
        Err(()) => {
            st.metrics.redeemed(METRIC, "store_error");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "spent-token store unavailable\n",
            )
        }
    }
}
