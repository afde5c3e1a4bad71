//! Private State Tokens (`pst_v1_voprf`, `pst_v1_pmb`) as Chrome speaks them: the key
//! commitment, and issuance and redemption over the `Sec-Private-State-Token` header (WICG
//! Private State Token API; `/work/shared/specs/issuer-server.md` §1.6).
//!
//! * `GET /.well-known/private-state-token/key-commitment`: `{"PrivateStateTokenV1VOPRF":
//!   {"protocol_version", "id", "batchsize", "keys": {"<id>": {"Y", "expiry"}}}, ...}` with
//!   integer `id` (the PST epoch + 1, so it grows at each rotation) and `batchsize`, `Y` the
//!   standard base64 of the public key blob and `expiry` its end in µs as a decimal string.
//! * `GET|POST /pst/issue` with `Sec-Private-State-Token: <base64 issue request>` and
//!   `Sec-Private-State-Token-Crypto-Version: PrivateStateTokenV1VOPRF` (or `...PMB`): answers
//!   `Sec-Private-State-Token: <base64 issue response>`, signed with the current key.
//! * `GET|POST /pst/redeem` with the redemption request in the same header: verifies, spends the
//!   token's 64-byte nonce until its key expires, and answers `Sec-Private-State-Token: <base64
//!   redemption record>` and `Sec-Private-State-Token-Lifetime: <seconds>`.
//!
//! The redemption record is issuer-defined: here `b64url(JSON) "." b64url(HMAC-SHA256(K_rr,
//! JSON))` with JSON `{"key_id", "private_metadata", "redeemed_at", "expires_at",
//! "client_data_sha256"}` and `K_rr` the master secret's `redemption-record` subkey, so any
//! instance can check a record a browser sends back ([`verify_redemption_record`]).
//!
//! Answers: 400 for a missing or malformed header, an unknown version, or a request the
//! library refuses; 403 for an invalid or already-spent token; 503 when the store fails.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac as _};
use privacy_tokens::trust_token::Method;
use serde_json::{json, Map, Value};
use sha2::{Digest as _, Sha256};

use crate::auth::B64URL;
use crate::hex::hex_lower;
use crate::keys::pst_key_id;
use crate::store::Spend;
use crate::{key_failure, text, AppState};

/// The key commitment path.
pub const COMMITMENT_PATH: &str = "/.well-known/private-state-token/key-commitment";
/// The issuance path.
pub const ISSUE_PATH: &str = "/pst/issue";
/// The redemption path.
pub const REDEEM_PATH: &str = "/pst/redeem";
/// The request and response header.
pub const HEADER: HeaderName = HeaderName::from_static("sec-private-state-token");
/// The protocol version header.
pub const VERSION_HEADER: HeaderName =
    HeaderName::from_static("sec-private-state-token-crypto-version");
/// The redemption record lifetime header.
pub const LIFETIME_HEADER: HeaderName = HeaderName::from_static("sec-private-state-token-lifetime");

/// The methods a PST issuer serves (the current `pst_v1` ones).
fn method_of_version(v: &str) -> Option<Method> {
    [Method::PstV1Voprf, Method::PstV1Pmb]
        .into_iter()
        .find(|m| m.protocol_version() == Some(v))
}

/// `GET /.well-known/private-state-token/key-commitment`.
pub async fn key_commitment(State(st): State<Arc<AppState>>) -> Response {
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    let now = st.now();
    let mut doc = Map::new();
    for p in &ring.pst {
        let Some(version) = p.method.protocol_version() else {
            continue;
        };
        let mut keys = Map::new();
        for (t, blob) in p.public.iter().filter(|(t, _)| now < t.expires_at) {
            keys.insert(
                pst_key_id(t.epoch, st.config.pst.key_id_offset).to_string(),
                json!({
                    "Y": STANDARD.encode(blob),
                    "expiry": (u128::from(t.expires_at) * 1_000_000).to_string(),
                }),
            );
        }
        doc.insert(
            version.into(),
            json!({
                "protocol_version": version,
                "id": u64::from(pst_key_id(ring.pst_epoch, st.config.pst.key_id_offset)) + 1,
                "batchsize": st.config.max_batch,
                "keys": keys,
            }),
        );
    }
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        Value::Object(doc).to_string(),
    )
        .into_response()
}

fn bad(msg: &'static str) -> Response {
    text(StatusCode::BAD_REQUEST, msg)
}

/// The keys of the requested method and the decoded `Sec-Private-State-Token` of a request; the error is the
/// 400 answer's text.
fn parse_request(
    headers: &HeaderMap,
    ring: &crate::keys::KeyRing,
    max_len: usize,
) -> Result<(usize, Vec<u8>), &'static str> {
    let version = headers
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .ok_or("missing crypto version\n")?;
    let method = method_of_version(version.trim()).ok_or("unknown crypto version\n")?;
    let keys = ring
        .pst
        .iter()
        .position(|p| p.method == method)
        .ok_or("unsupported crypto version\n")?;
    let value = headers
        .get(HEADER)
        .ok_or("missing Sec-Private-State-Token\n")?
        .as_bytes();
    // Checked before decoding: base64 of at most `max_len` bytes.
    if value.len() > max_len.div_ceil(3) * 4 {
        return Err("Sec-Private-State-Token too long\n");
    }
    let bytes = STANDARD
        .decode(value)
        .map_err(|_| "Sec-Private-State-Token is not base64\n")?;
    Ok((keys, bytes))
}

fn with_header(mut resp: Response, name: HeaderName, value: String) -> Response {
    if let Ok(v) = HeaderValue::from_str(&value) {
        resp.headers_mut().insert(name, v);
    }
    resp
}

/// `GET|POST /pst/issue`.
pub async fn issue(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    // The largest issue request: `u16 count ‖ max_batch × 97-byte point`.
    let max_len = 2 + usize::from(st.config.max_batch) * privacy_tokens::trust_token::POINT_LEN;
    let (idx, request) = match parse_request(&headers, &ring, max_len) {
        Ok(x) => x,
        Err(msg) => return bad(msg),
    };
    let n = request
        .get(..2)
        .map_or(1, |c| u64::from(u16::from_be_bytes([c[0], c[1]])));
    let now = st.now();
    let epoch = ring.epoch;
    if let Err(r) = st
        .gate
        .admit(&headers, n, epoch, st.config.keys.secs_to_rotation(now))
    {
        return r.response();
    }
    let job = st.clone();
    let issued = st
        .pool
        .run(move || {
            let keys = &ring.pst[idx];
            let bit = job.config.pst.private_metadata && keys.method.has_private_metadata();
            let key_id = pst_key_id(ring.pst_epoch, job.config.pst.key_id_offset);
            // A generator of this job's own, zeroized on drop, on a stack wiped on return.
            let r = crate::rng::with_rng(|rng| {
                keys.issuer
                    .issue(&request, key_id, bit, job.config.max_batch, rng)
            });
            (keys.method, r)
        })
        .await;
    let (method, issued) = match issued {
        Ok(x) => x,
        Err(b) => {
            st.gate.refund(&headers, n, epoch);
            return b.response();
        }
    };
    match issued {
        Err(e) => {
            // Nothing was issued: the OS generator failed before any work.
            st.gate.refund(&headers, n, epoch);
            crate::rng::unavailable(&e)
        }
        Ok(Ok(r)) => {
            st.metrics.issued(method.name(), u64::from(r.issued));
            with_header(
                text(StatusCode::OK, "issued\n"),
                HEADER,
                STANDARD.encode(&r.message),
            )
        }
        Ok(Err(_)) => bad("issue request refused\n"),
    }
}

/// The redemption record of a redemption (module documentation).
fn redemption_record(
    st: &AppState,
    key_id: u32,
    private_metadata: bool,
    client_data: &[u8],
    expires_at: u64,
) -> String {
    let body = json!({
        "key_id": key_id,
        "private_metadata": private_metadata,
        "redeemed_at": st.now(),
        "expires_at": expires_at,
        "client_data_sha256": hex_lower(&Sha256::digest(client_data)),
    })
    .to_string();
    let mac = record_mac(st, body.as_bytes());
    format!("{}.{}", B64URL.encode(body.as_bytes()), B64URL.encode(mac))
}

fn record_mac(st: &AppState, body: &[u8]) -> Vec<u8> {
    let key = st.master().subkey("redemption-record");
    match Hmac::<Sha256>::new_from_slice(key.as_ref()) {
        Ok(mut m) => {
            m.update(body);
            m.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

/// Checks a redemption record made by this issuer (any instance sharing the master secret) and
/// returns its JSON; `None` if it is malformed or its MAC does not verify.
pub fn verify_redemption_record(st: &AppState, record: &str) -> Option<Value> {
    let (body, mac) = record.split_once('.')?;
    let body = B64URL.decode(body).ok()?;
    let mac = B64URL.decode(mac).ok()?;
    let key = st.master().subkey("redemption-record");
    let mut m = Hmac::<Sha256>::new_from_slice(key.as_ref()).ok()?;
    m.update(&body);
    m.verify_slice(&mac).ok()?;
    serde_json::from_slice(&body).ok()
}

/// `GET|POST /pst/redeem`.
pub async fn redeem(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    // A redemption request: `u16 len ‖ token ‖ u16 len ‖ client_data`; client data is capped
    // at 1 KiB here.
    let max_len = 4 + Method::PstV1Pmb.token_len() + 1024;
    let (idx, request) = match parse_request(&headers, &ring, max_len) {
        Ok(x) => x,
        Err(msg) => return bad(msg),
    };
    let r = {
        let ring = ring.clone();
        st.pool
            .run(move || ring.pst[idx].issuer.redeem(&request))
            .await
    };
    let keys = &ring.pst[idx];
    let name = keys.method.name();
    let now = st.now();
    let r = match r {
        Ok(r) => r,
        Err(b) => return b.response(),
    };
    let Ok(r) = r else {
        st.metrics.redeemed(name, "invalid");
        return text(StatusCode::FORBIDDEN, "invalid token\n");
    };
    let Some((times, _)) = keys.public.iter().find(|(t, _)| {
        pst_key_id(t.epoch, st.config.pst.key_id_offset) == r.key_id && now < t.expires_at
    }) else {
        st.metrics.redeemed(name, "unknown_key");
        return text(StatusCode::FORBIDDEN, "expired key\n");
    };
    let mut id = Vec::with_capacity(4 + 64);
    id.extend_from_slice(b"pst");
    id.push(keys.method.id());
    id.extend_from_slice(&r.nonce);
    match crate::origin::spend(&st, &id, times, now).await {
        Ok(Spend::Fresh) => {
            st.metrics.redeemed(name, "ok");
            let rr = redemption_record(
                &st,
                r.key_id,
                r.private_metadata,
                &r.client_data,
                times.expires_at,
            );
            let resp = with_header(
                text(StatusCode::OK, "redeemed\n"),
                HEADER,
                STANDARD.encode(rr.as_bytes()),
            );
            with_header(
                resp,
                LIFETIME_HEADER,
                times.expires_at.saturating_sub(now).to_string(),
            )
        }
        Ok(Spend::AlreadySpent) => {
            st.metrics.redeemed(name, "double_spend");
            text(StatusCode::FORBIDDEN, "token already spent\n")
        }
        Err(()) => {
            st.metrics.redeemed(name, "store_error");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "spent-token store unavailable\n",
            )
        }
    }
}
