//! The joint origin (RFC 9576 §4.3): `GET /private` challenges with `WWW-Authenticate:
//! PrivateToken` (RFC 9577 §2.1) and redeems `Authorization: PrivateToken token=...`
//! (RFC 9577 §2.2) in the order parse → key → challenge → verify → spend.
//!
//! # Challenges
//! `redemption_context = HMAC-SHA256(K_challenge, "redemption-context" ‖ u16 token_type ‖
//! u64 window)` with `window = floor(now / challenge.lifetime_secs)` and `K_challenge` the
//! master secret's `challenge` subkey: every instance issues the same challenges and accepts
//! those of the current and the previous window, without shared state. With
//! `challenge.lifetime_secs = 0` the context is empty and the challenge fixed.
//!
//! Answers: 200 for a fresh valid token; 401 with fresh challenges for a missing, malformed,
//! invalid, unknown-key, unknown-challenge or already-spent token (the body says which); 503
//! when the spent store fails (nothing is granted).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use hmac::{Hmac, Mac as _};
use privacy_tokens::arc::privacy_pass::{Token as ArcToken, TokenChallenge as ArcChallenge};
use privacy_tokens::voprf::privacy_pass::generic::Token;
use privacy_tokens::voprf::privacy_pass::{TokenChallenge, Type1, Type5};
use sha2::{Digest as _, Sha256};

use crate::auth::{parse_authorization_with_extensions, www_authenticate};
use crate::config::{TYPE_ARC, TYPE_BLIND_RSA, TYPE_PBRSA, TYPE_VOPRF, TYPE_VOPRF5};
use crate::keys::{KeyRing, KeyTimes, RsaKey, VoprfType};
use crate::pool::Busy;
use crate::store::Spend;
use crate::{key_failure, text, AppState};

impl AppState {
    fn window(&self, now: u64) -> u64 {
        match self.config.challenge.lifetime_secs {
            0 => 0,
            l => now / l,
        }
    }

    fn redemption_context(&self, token_type: u16, window: u64) -> Vec<u8> {
        if self.config.challenge.lifetime_secs == 0 {
            return Vec::new();
        }
        let key = self.master().subkey("challenge");
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key.as_ref()) else {
            return Vec::new();
        };
        mac.update(b"redemption-context");
        mac.update(&token_type.to_be_bytes());
        mac.update(&window.to_be_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// The type 0x0001 challenge of `window` (RFC 9577 §2.1).
    pub fn voprf_challenge(&self, window: u64) -> Option<TokenChallenge> {
        self.token_challenge(TYPE_VOPRF, window)
    }

    /// The challenge of a token type (0x0001, 0x0005, 0x0002, 0xDA7A) for `window`.
    pub fn token_challenge(&self, token_type: u16, window: u64) -> Option<TokenChallenge> {
        TokenChallenge::new(
            token_type,
            self.config.issuer_name.as_bytes().to_vec(),
            self.redemption_context(token_type, window),
            self.config.origin_info.as_bytes().to_vec(),
        )
        .ok()
    }

    /// The ARC challenge of `window` (empty `credential_context`).
    pub fn arc_challenge(&self, window: u64) -> Option<ArcChallenge> {
        ArcChallenge::new(
            self.config.issuer_name.as_bytes(),
            &self.redemption_context(TYPE_ARC, window),
            self.config.origin_info.as_bytes(),
            &[],
        )
        .ok()
    }

    /// Whether `digest` is the digest of a `token_type` challenge this origin accepts at `now`.
    fn challenge_known(&self, token_type: u16, digest: &[u8; 32], now: u64) -> bool {
        self.accepted_windows(now)
            .into_iter()
            .filter_map(|w| self.token_challenge(token_type, w))
            .any(|c| &c.digest() == digest)
    }

    /// The windows whose challenges are accepted at `now`: the current and the previous.
    fn accepted_windows(&self, now: u64) -> Vec<u64> {
        let w = self.window(now);
        if self.config.challenge.lifetime_secs == 0 || w == 0 {
            vec![w]
        } else {
            vec![w, w - 1]
        }
    }

    /// Seconds the current challenge stays valid for a client: to the end of the current window
    /// (or to the next key rotation for fixed challenges).
    fn challenge_max_age(&self, now: u64) -> u64 {
        match self.config.challenge.lifetime_secs {
            0 => self.config.keys.secs_to_rotation(now),
            l => (l - now % l).max(1),
        }
    }
}

/// The `WWW-Authenticate` line of VOPRF type `T` with its current key, if it is served.
fn voprf_line<T: VoprfType>(st: &AppState, ring: &KeyRing, w: u64, max_age: u64) -> Option<String> {
    let c = st.token_challenge(T::TOKEN_TYPE, w)?;
    let k = T::keys(ring).iter().find(|k| k.times.epoch == ring.epoch)?;
    Some(www_authenticate(
        &c.to_bytes(),
        k.issuer.public_key().to_bytes().as_ref(),
        max_age,
        None,
    ))
}

/// The `WWW-Authenticate` line of RSA type `token_type` with its current key, if it is served.
fn rsa_line(
    st: &AppState,
    token_type: u16,
    keys: &[Arc<RsaKey>],
    epoch: u64,
    w: u64,
    max_age: u64,
) -> Option<String> {
    let c = st.token_challenge(token_type, w)?;
    let k = keys.iter().find(|k| k.times.epoch == epoch)?;
    Some(www_authenticate(
        &c.to_bytes(),
        k.issuer.token_key().to_spki(),
        max_age,
        None,
    ))
}

/// The 401 answer: one `WWW-Authenticate` line per token type (so a client that knows only one
/// type can parse its line), with the current issuing key.
fn challenge_response(st: &AppState, ring: &KeyRing, reason: &'static str) -> Response {
    let now = st.now();
    let w = st.window(now);
    let max_age = st.challenge_max_age(now);
    let mut resp = text(StatusCode::UNAUTHORIZED, reason);
    let current = |t: &crate::keys::KeyTimes| t.epoch == ring.epoch;
    let mut lines: Vec<String> = [
        voprf_line::<Type1>(st, ring, w, max_age),
        voprf_line::<Type5>(st, ring, w, max_age),
        rsa_line(st, TYPE_BLIND_RSA, &ring.rsa, ring.epoch, w, max_age),
        rsa_line(st, TYPE_PBRSA, &ring.pbrsa, ring.epoch, w, max_age),
    ]
    .into_iter()
    .flatten()
    .collect();
    if let (Some(c), Some(k)) = (
        st.arc_challenge(w),
        ring.arc.iter().find(|k| current(&k.times)),
    ) {
        lines.push(www_authenticate(
            &c.to_bytes(),
            &k.issuer.public_key().to_bytes(),
            max_age,
            Some(st.config.arc.rate_limit),
        ));
    }
    for l in lines {
        if let Ok(v) = HeaderValue::from_str(&l) {
            resp.headers_mut().append(header::WWW_AUTHENTICATE, v);
        }
    }
    resp
}

/// What a redemption came to.
enum Outcome {
    Granted,
    Refused(&'static str, &'static str),
    StoreError,
    Busy(Busy),
}

/// A verified token: its spend id and its key's times.
type Verified = Result<(Vec<u8>, KeyTimes), Outcome>;

/// Parse, key, challenge and verify for one token type (the token, and the `extensions`
/// parameter if the client sent one).
type Check = fn(&AppState, &KeyRing, &[u8], Option<&[u8]>, u64) -> Verified;

/// `GET /private`.
pub async fn private(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let ring = match st.ring().await {
        Ok(r) => r,
        Err(e) => return key_failure(&e),
    };
    let Some(auth) = headers.get(header::AUTHORIZATION) else {
        return challenge_response(&st, &ring, "token required\n");
    };
    let Some((bytes, extensions)) = parse_authorization_with_extensions(auth.as_bytes()) else {
        return challenge_response(&st, &ring, "malformed authorization\n");
    };
    let now = st.now();
    let check: Option<(&str, Check)> = match bytes.get(..2) {
        Some(t) if t == TYPE_VOPRF.to_be_bytes() && !ring.voprf.is_empty() => {
            Some(("1", verify_voprf::<Type1>))
        }
        Some(t) if t == TYPE_VOPRF5.to_be_bytes() && !ring.voprf5.is_empty() => {
            Some(("5", verify_voprf::<Type5>))
        }
        Some(t) if t == TYPE_ARC.to_be_bytes() && !ring.arc.is_empty() => {
            Some(("58796", verify_arc))
        }
        Some(t) if t == TYPE_BLIND_RSA.to_be_bytes() && !ring.rsa.is_empty() => {
            Some(("2", verify_rsa))
        }
        Some(t) if t == TYPE_PBRSA.to_be_bytes() && !ring.pbrsa.is_empty() => {
            Some(("55930", verify_rsa))
        }
        _ => None,
    };
    // Only type 0xDA7A tokens carry extensions (0x0002's check refuses them itself).
    let rsa = check.is_some_and(|(l, _)| l == "2" || l == "55930");
    let (label, outcome) = match check {
        None => (
            "other",
            Outcome::Refused("invalid", "unsupported token type\n"),
        ),
        Some((label, _)) if extensions.is_some() && !rsa => (
            label,
            Outcome::Refused("invalid", "unexpected extensions\n"),
        ),
        Some((label, check)) => {
            let (job, r) = (st.clone(), ring.clone());
            let verified = st
                .pool
                .run(move || check(&job, &r, &bytes, extensions.as_deref(), now))
                .await;
            let outcome = match verified {
                Err(b) => Outcome::Busy(b),
                Ok(Err(o)) => o,
                Ok(Ok((id, times))) => spent_outcome(spend(&st, &id, &times, now).await),
            };
            (label, outcome)
        }
    };
    match outcome {
        Outcome::Granted => {
            st.metrics.redeemed(label, "ok");
            text(StatusCode::OK, "access granted\n")
        }
        Outcome::Refused(result, reason) => {
            st.metrics.redeemed(label, result);
            challenge_response(&st, &ring, reason)
        }
        Outcome::StoreError => {
            st.metrics.redeemed(label, "store_error");
            text(
                StatusCode::SERVICE_UNAVAILABLE,
                "spent-token store unavailable\n",
            )
        }
        Outcome::Busy(b) => b.response(),
    }
}

/// Spends `id` until its key's `expires_at`, timing the store and counting its errors. A
/// token of a key live before the store's `valid_from` ([`crate::marker`]) may have been
/// spent in another set: it is refused as spent, without asking the store.
pub(crate) async fn spend(
    st: &AppState,
    id: &[u8],
    times: &KeyTimes,
    now: u64,
) -> Result<Spend, ()> {
    guarded_store_op(
        st,
        times,
        Spend::AlreadySpent,
        st.store.spend(id, times.expires_at, now),
    )
    .await
}

/// Runs the store operation `op` for a token of a key with `times`, timing it and counting
/// its errors; `spent` is the answer, without asking the store, for a key live before the
/// store's `valid_from` ([`crate::marker`]). Refused (an error) while the store's clock is
/// beyond the skew limit.
pub(crate) async fn guarded_store_op<T>(
    st: &AppState,
    times: &KeyTimes,
    spent: T,
    op: impl std::future::Future<Output = Result<T, crate::store::StoreError>>,
) -> Result<T, ()> {
    if times.not_before < st.store_valid_from() {
        tracing::debug!(
            epoch = times.epoch,
            "token of a key older than the spent-token store"
        );
        return Ok(spent);
    }
    if st.clock_refusing() {
        st.metrics.store_errors.inc();
        tracing::warn!("redemption refused: the store's clock is beyond the skew limit");
        return Err(());
    }
    let start = std::time::Instant::now();
    let r = op.await;
    st.metrics
        .store_latency
        .observe(start.elapsed().as_secs_f64());
    r.map_err(|e| {
        st.metrics.store_errors.inc();
        tracing::warn!(store = st.store.name(), error = %e, "spent-token store error");
    })
}

fn spent_outcome(r: Result<Spend, ()>) -> Outcome {
    match r {
        Ok(Spend::Fresh) => Outcome::Granted,
        Ok(Spend::AlreadySpent) => Outcome::Refused("double_spend", "token already spent\n"),
        Err(()) => Outcome::StoreError,
    }
}

/// Parse, key, challenge, verify of a VOPRF token, type 0x0001 or 0x0005 (on the crypto pool).
fn verify_voprf<T: VoprfType>(
    st: &AppState,
    ring: &KeyRing,
    bytes: &[u8],
    _extensions: Option<&[u8]>,
    now: u64,
) -> Verified {
    let Ok(token) = Token::<T>::from_bytes(bytes) else {
        return Err(Outcome::Refused("invalid", "malformed token\n"));
    };
    let Some(key) = T::keys(ring)
        .iter()
        .find(|k| k.issuer.token_key_id() == &token.token_key_id && now < k.times.expires_at)
    else {
        return Err(Outcome::Refused("unknown_key", "unknown token key\n"));
    };
    if !st.challenge_known(T::TOKEN_TYPE, &token.challenge_digest, now) {
        return Err(Outcome::Refused("unknown_challenge", "unknown challenge\n"));
    }
    if !matches!(key.issuer.verify_token(&token), Ok(true)) {
        return Err(Outcome::Refused("invalid", "invalid token\n"));
    }
    let mut id = Vec::with_capacity(34);
    id.extend_from_slice(&T::TOKEN_TYPE.to_be_bytes());
    id.extend_from_slice(&token.nonce);
    Ok((id, key.times))
}

/// Parse, key, challenge, verify of an ARC token (on the crypto pool).
fn verify_arc(
    st: &AppState,
    ring: &KeyRing,
    bytes: &[u8],
    _extensions: Option<&[u8]>,
    now: u64,
) -> Verified {
    let Ok(token) = ArcToken::from_bytes(bytes) else {
        return Err(Outcome::Refused("invalid", "malformed token\n"));
    };
    let Some(key) = ring
        .arc
        .iter()
        .find(|k| k.issuer.key_id() == token.issuer_key_id() && now < k.times.expires_at)
    else {
        return Err(Outcome::Refused("unknown_key", "unknown issuer key\n"));
    };
    let Some(challenge) = st
        .accepted_windows(now)
        .into_iter()
        .filter_map(|w| st.arc_challenge(w))
        .find(|c| &c.digest() == token.challenge_digest())
    else {
        return Err(Outcome::Refused("unknown_challenge", "unknown challenge\n"));
    };
    let Ok(tag) = key
        .issuer
        .verify(&token, &challenge, st.config.arc.rate_limit)
    else {
        return Err(Outcome::Refused("invalid", "invalid token\n"));
    };
    // The tag is the double-spend key, per presentation context (never the token bytes).
    let mut id = Vec::with_capacity(2 + 32 + 33);
    id.extend_from_slice(&TYPE_ARC.to_be_bytes());
    id.extend_from_slice(&Sha256::digest(
        challenge.presentation_context(key.issuer.key_id()),
    ));
    id.extend_from_slice(tag.as_bytes());
    Ok((id, key.times))
}

/// Parse, key, challenge, verify of a blind RSA token, type 0x0002 or 0xDA7A (on the crypto
/// pool). A 0xDA7A token is verified under its `extensions` (the empty list when the client
/// sent none), which `pbrsa` must allow; a 0x0002 token takes none.
fn verify_rsa(
    st: &AppState,
    ring: &KeyRing,
    bytes: &[u8],
    extensions: Option<&[u8]>,
    now: u64,
) -> Verified {
    use privacy_tokens::blind_rsa::privacy_pass::{Extensions, Token as RsaToken};
    let Ok(token) = RsaToken::from_bytes(bytes) else {
        return Err(Outcome::Refused("invalid", "malformed token\n"));
    };
    let t = token.token_type();
    let extensions = match (t, extensions) {
        (TYPE_BLIND_RSA, None) => None,
        (TYPE_BLIND_RSA, Some(_)) => {
            return Err(Outcome::Refused("invalid", "unexpected extensions\n"))
        }
        (_, e) => match Extensions::from_bytes(e.unwrap_or(&[0, 0])) {
            Ok(e) if st.config.pbrsa.allows(&e) => Some(e),
            Ok(_) => return Err(Outcome::Refused("invalid", "extensions not allowed\n")),
            Err(_) => return Err(Outcome::Refused("invalid", "malformed extensions\n")),
        },
    };
    let keys = if t == TYPE_PBRSA {
        &ring.pbrsa
    } else {
        &ring.rsa
    };
    let Some(key) = keys
        .iter()
        .find(|k| k.issuer.token_key().id() == token.token_key_id() && now < k.times.expires_at)
    else {
        return Err(Outcome::Refused("unknown_key", "unknown token key\n"));
    };
    if !st.challenge_known(t, token.challenge_digest(), now) {
        return Err(Outcome::Refused("unknown_challenge", "unknown challenge\n"));
    }
    if key
        .issuer
        .token_key()
        .verify(&token, extensions.as_ref())
        .is_err()
    {
        return Err(Outcome::Refused("invalid", "invalid token\n"));
    }
    let mut id = Vec::with_capacity(34);
    id.extend_from_slice(&t.to_be_bytes());
    id.extend_from_slice(token.nonce());
    Ok((id, key.times))
}
