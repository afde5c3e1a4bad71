//! The issuance gate (RFC 9576's attester role, played by the issuer itself): who may obtain
//! tokens, and how many.
//!
//! `[issuance] auth = "api-keys"` with `api_keys_file`: clients send `Authorization: Bearer
//! <key>` with every issuance request (`/token-request`, `/pst/issue`). The file stores only
//! SHA-256 hashes, one key a line: `<name> <hex SHA-256 of the key> <tokens per epoch>`
//! (`#` starts a comment). A key may obtain at most its quota of tokens per Privacy Pass key
//! epoch (`keys.lifetime_secs`), counted per instance. `auth = "open"` lets anyone mint any
//! number of tokens: only for tests, or behind an attester that does this job.
//!
//! Answers: 401 with `WWW-Authenticate: Bearer` for a missing or unknown key; 429 with
//! `Retry-After` (seconds to the next epoch) once the quota is spent.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use sha2::{Digest as _, Sha256};

use crate::config::{IssuanceAuth, IssuanceConfig};
use crate::text;

struct ApiKey {
    name: String,
    quota: u64,
}

/// The gate of a running server.
pub struct Gate {
    keys: Option<HashMap<[u8; 32], ApiKey>>,
    /// Tokens granted per (key hash, epoch).
    used: Mutex<HashMap<[u8; 32], (u64, u64)>>,
}

/// A gate that cannot be built.
#[derive(Debug, thiserror::Error)]
#[error("issuance api keys file: {0}")]
pub struct GateError(String);

impl Gate {
    /// The gate of a configuration (reads the API keys file).
    ///
    /// # Errors
    /// [`GateError`] for an unreadable or malformed file.
    pub fn from_config(c: &IssuanceConfig) -> Result<Self, GateError> {
        let keys = match (c.auth, &c.api_keys_file) {
            (Some(IssuanceAuth::ApiKeys), Some(path)) => Some(Self::read(path)?),
            (Some(IssuanceAuth::Open), _) => None,
            _ => return Err(GateError("issuance.auth is not configured".into())),
        };
        Ok(Self {
            keys,
            used: Mutex::new(HashMap::new()),
        })
    }

    fn read(path: &Path) -> Result<HashMap<[u8; 32], ApiKey>, GateError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| GateError(format!("{}: {e}", path.display())))?;
        let mut keys = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = || {
                GateError(format!(
                    "{} line {}: want `name sha256hex quota`",
                    path.display(),
                    n + 1
                ))
            };
            let mut f = line.split_whitespace();
            let (Some(name), Some(hash), Some(quota), None) =
                (f.next(), f.next(), f.next(), f.next())
            else {
                return Err(bad());
            };
            let quota: u64 = quota.parse().map_err(|_| bad())?;
            let mut h = [0u8; 32];
            if hash.len() != 64 {
                return Err(bad());
            }
            for (i, b) in h.iter_mut().enumerate() {
                *b = u8::from_str_radix(hash.get(2 * i..2 * i + 2).ok_or_else(bad)?, 16)
                    .map_err(|_| bad())?;
            }
            keys.insert(
                h,
                ApiKey {
                    name: name.to_owned(),
                    quota,
                },
            );
        }
        Ok(keys)
    }

    /// Whether issuance is open to anyone.
    pub fn is_open(&self) -> bool {
        self.keys.is_none()
    }

    /// Admits a request for `n` tokens in `epoch`, counting them against its key's quota.
    /// `retry_after` is the seconds to the next epoch.
    ///
    /// # Errors
    /// The [`Refusal`] to answer with.
    pub fn admit(
        &self,
        headers: &HeaderMap,
        n: u64,
        epoch: u64,
        retry_after: u64,
    ) -> Result<(), Refusal> {
        let Some(keys) = &self.keys else {
            return Ok(());
        };
        let hash = bearer_hash(headers).ok_or(Refusal::Unauthorized)?;
        let key = keys.get(&hash).ok_or(Refusal::Unauthorized)?;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let entry = used.entry(hash).or_insert((epoch, 0));
        if entry.0 != epoch {
            *entry = (epoch, 0);
        }
        if entry.1.saturating_add(n) > key.quota {
            tracing::info!(api_key = %key.name, "issuance quota exhausted");
            return Err(Refusal::Quota { retry_after });
        }
        entry.1 += n;
        Ok(())
    }
}

impl Gate {
    /// Gives back `n` tokens admitted in `epoch` that were not issued (the crypto pool was
    /// full and the request was answered 503), so a retry is not charged twice.
    pub fn refund(&self, headers: &HeaderMap, n: u64, epoch: u64) {
        if self.keys.is_none() {
            return;
        }
        let Some(hash) = bearer_hash(headers) else {
            return;
        };
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = used.get_mut(&hash).filter(|e| e.0 == epoch) {
            entry.1 = entry.1.saturating_sub(n);
        }
    }
}

/// The SHA-256 of a request's `Authorization: Bearer` key.
fn bearer_hash(headers: &HeaderMap) -> Option<[u8; 32]> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, key) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| key.trim())
        })?;
    Some(Sha256::digest(bearer.as_bytes()).into())
}

/// Why the gate refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No key, or one not in the file: 401 with `WWW-Authenticate: Bearer`.
    Unauthorized,
    /// The key's quota for this epoch is spent: 429 with `Retry-After`.
    Quota {
        /// Seconds to the next epoch.
        retry_after: u64,
    },
}

impl Refusal {
    /// The answer.
    pub fn response(self) -> Response {
        match self {
            Self::Unauthorized => {
                let mut r = text(StatusCode::UNAUTHORIZED, "issuance requires an API key\n");
                r.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"issuance\""),
                );
                r
            }
            Self::Quota { retry_after } => {
                let mut r = text(StatusCode::TOO_MANY_REQUESTS, "issuance quota exhausted\n");
                if let Ok(v) = HeaderValue::from_str(&retry_after.to_string()) {
                    r.headers_mut().insert(header::RETRY_AFTER, v);
                }
                r
            }
        }
    }
}
