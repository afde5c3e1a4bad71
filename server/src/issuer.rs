//! The Privacy Pass issuer: the directory (RFC 9578 §4) and the issuer request URI, dispatched
//! on `Content-Type` (RFC 9578 §5, draft-ietf-privacypass-batched-tokens §4,
//! draft-ietf-privacypass-arc-protocol).
//!
//! Status codes: 415 for a media type this issuer does not take; 422 for an unsupported token
//! type, an unknown truncated key id, a wrong size or an element that does not decode (RFC 9578
//! §5.2; also the amortized or generic batch over the cap, and ARC); 400 for an amortized or
//! generic batch whose framing is malformed (bad or non-minimal length prefix, length
//! disagreeing with the body); 413 for a body over the size cap, refused before it is read in
//! full. A generic batch (draft-ietf-privacypass-batched-tokens, "Generic Token Batch
//! Issuance") answers 200 when every token was issued, 206 when some were (the others absent
//! in the response), 400 when none was.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use privacy_tokens::privacy_pass::generic_batch::{self, GenericBatchTokenRequest};
use privacy_tokens::voprf::privacy_pass::generic::TokenRequest;
use privacy_tokens::voprf::privacy_pass::{Type1, Type5};
use privacy_tokens::Error;
use serde_json::json;
use sha2::{Digest as _, Sha256};

use crate::auth::b64url;
use crate::config::{TYPE_ARC, TYPE_BLIND_RSA, TYPE_PBRSA, TYPE_VOPRF, TYPE_VOPRF5};
use crate::hex::hex_lower;
use crate::keys::{KeyRing, KeyTimes, RsaKey, VoprfKey, VoprfType};
use crate::rng::{with_rng, IssueRng, RngUnavailable};
use crate::{key_failure, text, AppState};

/// Media type of a type 0x0001, 0x0005 or 0x0002 token request (RFC 9578 §8.3), and of a type
/// 0xDA7A extended token request (draft-ietf-privacypass-public-metadata-issuance).
pub const TOKEN_REQUEST: &str = "application/private-token-request";
/// Media type of a type 0x0001, 0x0005, 0x0002 or 0xDA7A token response.
pub const TOKEN_RESPONSE: &str = "application/private-token-response";
/// Media type of an amortized batch request (draft-ietf-privacypass-batched-tokens).
pub const BATCH_REQUEST: &str = "application/private-token-amortized-batch-request";
/// Media type of an amortized batch response.
pub const BATCH_RESPONSE: &str = "application/private-token-amortized-batch-response";
/// Media type of a generic batch request (draft-ietf-privacypass-batched-tokens): token requests
/// of types 0x0001 and 0x0005, any keys, in one body.
pub const GENERIC_BATCH_REQUEST: &str = generic_batch::REQUEST_MEDIA_TYPE;
/// Media type of a generic batch response.
pub const GENERIC_BATCH_RESPONSE: &str = generic_batch::RESPONSE_MEDIA_TYPE;
/// Media type of the issuer directory (RFC 9578 §8.1).
pub const DIRECTORY: &str = "application/private-token-issuer-directory";

/// The media type of a request, lowercased, without parameters.
pub(crate) fn media_type(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(v.split(';').next()?.trim().to_ascii_lowercase())
}

/// Whether a key issues at `now`: from its `not-before` to its end of issuance.
fn issues(t: &KeyTimes, now: u64) -> bool {
    t.not_before <= now && now < t.issue_until
}

pub(crate) fn ok(media: &'static str, body: Vec<u8>) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, media)], body).into_response()
}

pub(crate) fn unprocessable(msg: &'static str) -> Response {
    text(StatusCode::UNPROCESSABLE_ENTITY, msg)
}

/// What a `POST /token-request` asks for, by media type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Single,
    Amortized,
    Generic,
    Arc,
}

/// The tokens a request asks for, from its framing only (for the gate, before anything is
/// decoded): 1, an amortized batch's element count (at least 1), or a generic batch's request
/// count (its framing was checked already).
fn requested_tokens(kind: Kind, body: &[u8]) -> u64 {
    match kind {
        Kind::Generic => {
            GenericBatchTokenRequest::token_types(body, u16::MAX).map_or(1, |t| t.len() as u64)
        }
        Kind::Amortized => {
            let ne = if body.get(..2) == Some(&TYPE_VOPRF5.to_be_bytes()[..]) {
                <Type5 as privacy_tokens::voprf::privacy_pass::TokenType>::NE
            } else {
                <Type1 as privacy_tokens::voprf::privacy_pass::TokenType>::NE
            };
            let prefix = body.get(3).map_or(1, |b| 1usize << (b >> 6));
            (body.len().saturating_sub(3 + prefix) / ne).max(1) as u64
        }
        _ => 1,
    }
}

/// `POST /token-request`: routed on the async worker, gated, then issued on the crypto pool.
pub async fn token_request(
    State(st): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let media = media_type(&headers);
    let kind = match media.as_deref() {
        Some(TOKEN_REQUEST) => Kind::Single,
        Some(BATCH_REQUEST) => Kind::Amortized,
        Some(GENERIC_BATCH_REQUEST) => Kind::Generic,
        Some(privacy_tokens::arc::privacy_pass::REQUEST_MEDIA_TYPE) => Kind::Arc,
        _ => {
            return text(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported media type\n",
            )
        }
    };
    // A VOPRF request names its type in its first two bytes (a short one is malformed later);
    // a generic batch names one per request, read from its framing alone (no element is
    // decoded here, on the async worker), with its count checked against `max_batch`.
    let wanted = match (kind, body.get(..2)) {
        (Kind::Generic, _) => {
            match GenericBatchTokenRequest::token_types(&body, st.config.max_batch) {
                Ok(types) => types,
                Err(Error::Batch) => return unprocessable("batch empty or over the cap\n"),
                Err(Error::UnsupportedValue) => return unprocessable("unsupported token type\n"),
                Err(_) => return text(StatusCode::BAD_REQUEST, "malformed batch request\n"),
            }
        }
        (Kind::Arc, _) => vec![TYPE_ARC],
        (_, Some(t)) => vec![u16::from_be_bytes([t[0], t[1]])],
        (_, None) => vec![TYPE_VOPRF],
    };
    if !wanted.iter().all(|t| st.config.token_types.contains(t)) {
        return unprocessable("unsupported token type\n");
    }
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    let now = st.now();
    let (n, epoch) = (requested_tokens(kind, &body), ring.epoch);
    if let Err(r) = st
        .gate
        .admit(&headers, n, epoch, st.config.keys.secs_to_rotation(now))
    {
        return r.response();
    }
    let job = st.clone();
    let answer = st
        .pool
        .run(move || issue(&job, &ring, kind, &body, now))
        .await;
    // Nothing was issued when the pool refused the job or the OS generator failed.
    match answer {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            st.gate.refund(&headers, n, epoch);
            crate::rng::unavailable(&e)
        }
        Err(b) => {
            st.gate.refund(&headers, n, epoch);
            b.response()
        }
    }
}

/// The curve work of a token request (on the crypto pool), with a generator of its own
/// ([`crate::rng::with_rng`]: seeded from the OS for this job, zeroized on drop, on a stack
/// wiped when the job returns).
fn issue(
    st: &AppState,
    ring: &KeyRing,
    kind: Kind,
    body: &[u8],
    now: u64,
) -> Result<Response, RngUnavailable> {
    let five = body.get(..2) == Some(&TYPE_VOPRF5.to_be_bytes()[..]);
    // Blind RSA takes no randomness from the server (a deterministic signature).
    match (
        kind,
        body.get(..2).map(|t| u16::from_be_bytes([t[0], t[1]])),
    ) {
        (Kind::Single, Some(TYPE_BLIND_RSA)) => return Ok(issue_rsa(st, ring, body, now)),
        (Kind::Single, Some(TYPE_PBRSA)) => return Ok(issue_pbrsa(st, ring, body, now)),
        _ => {}
    }
    with_rng(|rng| match kind {
        Kind::Single if five => issue_single::<Type5>(st, ring, body, now, rng),
        Kind::Single => issue_single::<Type1>(st, ring, body, now, rng),
        Kind::Amortized if five => issue_amortized::<Type5>(st, ring, body, now, rng),
        Kind::Amortized => issue_amortized::<Type1>(st, ring, body, now, rng),
        Kind::Generic => issue_generic(st, ring, body, now, rng),
        Kind::Arc => issue_arc(st, ring, body, now, rng),
    })
}

/// The key of type `T` that issues at `now` under a truncated key id.
fn issuing_key<T: VoprfType>(ring: &KeyRing, truncated: u8, now: u64) -> Option<&VoprfKey<T>> {
    T::keys(ring)
        .iter()
        .find(|k| issues(&k.times, now) && k.issuer.truncated_token_key_id() == truncated)
}

/// One VOPRF token (`application/private-token-request`, types 0x0001 and 0x0005).
fn issue_single<T: VoprfType>(
    st: &AppState,
    ring: &KeyRing,
    body: &[u8],
    now: u64,
    rng: &mut IssueRng,
) -> Response {
    let Ok(req) = TokenRequest::<T>::from_bytes(body) else {
        return unprocessable("malformed token request\n");
    };
    let Some(key) = issuing_key::<T>(ring, req.truncated_token_key_id(), now) else {
        return unprocessable("unknown token key\n");
    };
    match key.issuer.issue(rng, &req) {
        Ok(resp) => {
            st.metrics.issued(T::METRIC, 1);
            ok(TOKEN_RESPONSE, resp.to_bytes().as_ref().to_vec())
        }
        Err(_) => unprocessable("token request refused\n"),
    }
}

/// An amortized batch of VOPRF tokens: type, key id and count are checked before any element
/// is decoded (`Issuer::issue_batch_from_bytes`).
fn issue_amortized<T: VoprfType>(
    st: &AppState,
    ring: &KeyRing,
    body: &[u8],
    now: u64,
    rng: &mut IssueRng,
) -> Response {
    let Some(&truncated) = body.get(2) else {
        return text(StatusCode::BAD_REQUEST, "malformed batch request\n");
    };
    let Some(key) = issuing_key::<T>(ring, truncated, now) else {
        return unprocessable("unknown token key\n");
    };
    match key.issuer.issue_batch_from_bytes(rng, body) {
        Ok(resp) => {
            st.metrics
                .issued(T::METRIC, resp.evaluated_elements().len() as u64);
            ok(BATCH_RESPONSE, resp.to_bytes())
        }
        Err(Error::InvalidLength) => text(StatusCode::BAD_REQUEST, "malformed batch request\n"),
        Err(Error::Batch) => unprocessable("batch empty or over the cap\n"),
        Err(_) => unprocessable("batch request refused\n"),
    }
}

/// A generic batch: each request answered by the key of its type and truncated id that issues
/// at `now` (absent where none does or the key refuses), with the single request's rules. The
/// count was checked against `max_batch` (and the gate charged for every request) before.
fn issue_generic(
    st: &AppState,
    ring: &KeyRing,
    body: &[u8],
    now: u64,
    rng: &mut IssueRng,
) -> Response {
    let max = st.config.max_batch;
    let req = match GenericBatchTokenRequest::from_bytes_with_limit(body, max) {
        Ok(r) => r,
        Err(Error::InvalidLength) => {
            return text(StatusCode::BAD_REQUEST, "malformed batch request\n")
        }
        Err(Error::Batch) => return unprocessable("batch empty or over the cap\n"),
        Err(_) => return unprocessable("malformed token request\n"),
    };
    let resp = match generic_batch::issue(
        rng,
        &req,
        max,
        |id| issuing_key::<Type1>(ring, id, now).map(|k| &k.issuer),
        |id| issuing_key::<Type5>(ring, id, now).map(|k| &k.issuer),
        |id| issuing_rsa_key(&ring.rsa, id, now).map(|k| &k.issuer),
    ) {
        Ok(r) => r,
        Err(_) => return unprocessable("batch empty or over the cap\n"),
    };
    let count = |t: u16| {
        resp.responses()
            .iter()
            .flatten()
            .filter(|r| r.token_type() == t)
            .count() as u64
    };
    for (t, metric) in [
        (TYPE_VOPRF, Type1::METRIC),
        (TYPE_VOPRF5, Type5::METRIC),
        (TYPE_BLIND_RSA, "2"),
    ] {
        let n = count(t);
        if n > 0 {
            st.metrics.issued(metric, n);
        }
    }
    let status = StatusCode::from_u16(resp.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    if status == StatusCode::BAD_REQUEST {
        return text(status, "no token issued\n");
    }
    (
        status,
        [(header::CONTENT_TYPE, GENERIC_BATCH_RESPONSE)],
        resp.to_bytes(),
    )
        .into_response()
}

/// The RSA key of a ring that issues at `now` under a truncated key id.
fn issuing_rsa_key(keys: &[Arc<RsaKey>], truncated: u8, now: u64) -> Option<&RsaKey> {
    keys.iter()
        .map(|k| &**k)
        .find(|k| issues(&k.times, now) && k.issuer.token_key().truncated_id() == truncated)
}

/// A type 0x0002 token (RFC 9578 §6): a request of another length is malformed (422).
fn issue_rsa(st: &AppState, ring: &KeyRing, body: &[u8], now: u64) -> Response {
    let Ok(req) = privacy_tokens::blind_rsa::privacy_pass::TokenRequest::from_bytes(body) else {
        return unprocessable("malformed token request\n");
    };
    let Some(key) = issuing_rsa_key(&ring.rsa, req.truncated_token_key_id(), now) else {
        return unprocessable("unknown token key\n");
    };
    match key.issuer.issue_request(&req) {
        Ok(resp) => {
            st.metrics.issued("2", 1);
            ok(TOKEN_RESPONSE, resp.to_bytes())
        }
        Err(_) => unprocessable("token request refused\n"),
    }
}

/// A type 0xDA7A token: an extended token request whose extensions `pbrsa` allows, signed
/// under the key derived for them.
fn issue_pbrsa(st: &AppState, ring: &KeyRing, body: &[u8], now: u64) -> Response {
    use privacy_tokens::blind_rsa::privacy_pass::ExtendedTokenRequest;
    let Ok(req) = ExtendedTokenRequest::from_bytes(body) else {
        return unprocessable("malformed token request\n");
    };
    if !st.config.pbrsa.allows(req.extensions()) {
        return unprocessable("extensions not allowed\n");
    }
    let Some(key) = issuing_rsa_key(&ring.pbrsa, req.request().truncated_token_key_id(), now)
    else {
        return unprocessable("unknown token key\n");
    };
    match key.issuer.issue_extended_request(&req, |_| true) {
        Ok(resp) => {
            st.metrics.issued("55930", 1);
            ok(TOKEN_RESPONSE, resp.to_bytes())
        }
        Err(_) => unprocessable("token request refused\n"),
    }
}

/// An ARC credential.
fn issue_arc(st: &AppState, ring: &KeyRing, body: &[u8], now: u64, rng: &mut IssueRng) -> Response {
    let Ok(req) = privacy_tokens::arc::privacy_pass::CredentialRequest::from_bytes(body) else {
        return unprocessable("malformed credential request\n");
    };
    let Some(key) = ring
        .arc
        .iter()
        .find(|k| issues(&k.times, now) && k.issuer.key_id()[31] == body[2])
    else {
        return unprocessable("unknown issuer key\n");
    };
    match key.issuer.issue(&req, rng) {
        Ok(resp) => {
            st.metrics.issued("58796", 1);
            ok(
                privacy_tokens::arc::privacy_pass::RESPONSE_MEDIA_TYPE,
                resp.to_bytes(),
            )
        }
        Err(_) => unprocessable("credential request refused\n"),
    }
}

/// The directory entries of VOPRF type `T`: its current and next keys.
fn directory_keys<T: VoprfType>(ring: &KeyRing, keys: &mut Vec<serde_json::Value>) {
    for k in T::keys(ring).iter().filter(|k| k.times.epoch >= ring.epoch) {
        keys.push(json!({
            "token-type": T::TOKEN_TYPE,
            "token-key": b64url(k.issuer.public_key().to_bytes().as_ref()),
            "not-before": k.times.not_before,
        }));
    }
}

/// `GET /.well-known/private-token-issuer-directory` (RFC 9578 §4): the current and the next key
/// of each type with their `not-before`, `Cache-Control: public, max-age` up to the next
/// rotation, a strong ETag (SHA-256 of the body) and 304 on a matching `If-None-Match`.
pub async fn directory(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    let now = st.now();
    let e = ring.epoch;
    let mut keys = Vec::new();
    directory_keys::<Type1>(&ring, &mut keys);
    directory_keys::<Type5>(&ring, &mut keys);
    for (t, rsa) in [(TYPE_BLIND_RSA, &ring.rsa), (TYPE_PBRSA, &ring.pbrsa)] {
        for k in rsa.iter().filter(|k| k.times.epoch >= e) {
            keys.push(json!({
                "token-type": t,
                "token-key": b64url(k.issuer.token_key().to_spki()),
                "not-before": k.times.not_before,
            }));
        }
    }
    for k in ring.arc.iter().filter(|k| k.times.epoch >= e) {
        keys.push(json!({
            "token-type": TYPE_ARC,
            "token-key": b64url(&k.issuer.public_key().to_bytes()),
            "not-before": k.times.not_before,
        }));
    }
    let body = json!({
        "issuer-request-uri": crate::ISSUER_REQUEST_PATH,
        "token-keys": keys,
    })
    .to_string();
    let digest = Sha256::digest(body.as_bytes());
    let etag = format!("\"{}\"", hex_lower(&digest[..16]));
    let max_age = st.config.keys.secs_to_rotation(now).min(86_400);
    let cache = format!("public, max-age={max_age}");
    let matches = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| {
            let t = t.trim();
            t == "*" || t.trim_start_matches("W/") == etag
        });
    let mut resp = if matches {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (StatusCode::OK, [(header::CONTENT_TYPE, DIRECTORY)], body).into_response()
    };
    let h = resp.headers_mut();
    if let (Ok(etag), Ok(cache)) = (HeaderValue::from_str(&etag), HeaderValue::from_str(&cache)) {
        h.insert(header::ETAG, etag);
        h.insert(header::CACHE_CONTROL, cache);
    }
    resp
}
