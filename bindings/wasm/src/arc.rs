//! ARC (anonymous rate-limited credentials), the Privacy Pass binding 0xE5AC
//! (draft-ietf-privacypass-arc-protocol on draft-ietf-privacypass-arc-crypto-01, P-256).

use privacy_tokens::arc::privacy_pass::{
    self as arc_pp, Client, ClientState, CredentialResponse, REQUEST_MEDIA_TYPE,
};
use privacy_tokens::arc::{ArcV2P256, Credential as LibCredential, ServerPublicKey};
use privacy_tokens::Error;
use wasm_bindgen::prelude::*;

use crate::challenge::{Challenge, TYPE_ARC};
use crate::privacy_pass::{request_result, Token, TokenInner};
use crate::{
    bytes, error, integer, option, secret_bytes, secret_u8a, JsResult, OrThrow, STATE_CONSUMED,
};

fn arc_challenge(c: &Challenge) -> JsResult<&arc_pp::TokenChallenge> {
    if c.token_type() != TYPE_ARC {
        return Err(error(
            crate::code_of(Error::UnsupportedValue),
            &format!(
                "token type {:#06x} is not ARC (0xE5AC): use createTokenRequest",
                c.token_type()
            ),
        ));
    }
    c.arc()
}

/// A credential request for an ARC challenge: `{ body, contentType, state }`. POST `body` to
/// the issuer with `Content-Type: contentType` (`application/private-credential-request`), then
/// `state.finalize(responseBody)` gives the `Credential`. Options: `tokenKey` overrides the
/// challenge's `token-key`.
#[wasm_bindgen(js_name = createCredentialRequest, unchecked_return_type = "CredentialRequest")]
pub fn create_credential_request(
    challenge: &Challenge,
    #[wasm_bindgen(unchecked_optional_param_type = "{ tokenKey?: Uint8Array }")] options: JsValue,
) -> JsResult<JsValue> {
    let c = arc_challenge(challenge)?;
    let pk = ServerPublicKey::<ArcV2P256>::from_bytes(&challenge.key(&options)?).or_throw()?;
    crate::with_rng(|rng| {
        let (req, st) = Client::request(c, &pk, rng).or_throw()?;
        let state = CredentialRequestState {
            inner: Some(ArcState(st)),
        };
        Ok(request_result(
            &req.to_bytes(),
            REQUEST_MEDIA_TYPE,
            state.into(),
        ))
    })
}

/// The client's secret state between a credential request and the issuer's response.
/// `finalize` consumes it; `free()` wipes it.
#[wasm_bindgen]
pub struct CredentialRequestState {
    inner: Option<ArcState>,
}

/// The library's state, in a type of this crate for [`crate::take_state`].
struct ArcState(ClientState);
crate::state_zeroize!(ArcState);

#[wasm_bindgen]
impl CredentialRequestState {
    /// The credential, from the issuer's response body (its proof is verified). A malformed
    /// body leaves the state usable; a decoded one consumes it (`INVALID_PROOF` if the proof
    /// fails); a second call throws `STATE_CONSUMED`.
    pub fn finalize(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] response: JsValue,
    ) -> JsResult<Credential> {
        let resp = CredentialResponse::from_bytes(&bytes(&response, "response")?).or_throw()?;
        // Taken inside the wiped frame: a move out of the object is a copy on the stack.
        crate::wiped(|| {
            let ArcState(st) = crate::take_state(&mut self.inner).ok_or_else(|| {
                error(
                    STATE_CONSUMED,
                    "this state was already finalized; make a new request",
                )
            })?;
            Ok(Credential {
                inner: st.finalize(&resp).or_throw()?,
            })
        })
    }

    /// Whether `finalize` was already called.
    #[wasm_bindgen(getter)]
    pub fn consumed(&self) -> bool {
        self.inner.is_none()
    }
}

/// An ARC credential **and its presentation counters** (one per challenge it has presented
/// for). Secret: it is the key to every presentation. Keep exactly one live copy: persist
/// `toBytes()` after each `present` and before sending the token (restoring an older copy
/// reuses nonces, which the origin rejects as double spends). `free()` wipes it.
#[wasm_bindgen]
pub struct Credential {
    inner: LibCredential<ArcV2P256>,
}

#[wasm_bindgen]
impl Credential {
    /// The next token for `challenge`, up to its rate limit (`options.rateLimit`, else the
    /// challenge's `rate-limit`); asking again for the same challenge continues its counter.
    /// Throws `LIMIT_EXCEEDED` once the limit is used up, `MISSING_KEY` without an issuer key
    /// (`options.tokenKey` or the challenge's `token-key`) or a rate limit.
    #[wasm_bindgen(unchecked_return_type = "Token")]
    pub fn present(
        &mut self,
        challenge: &Challenge,
        #[wasm_bindgen(unchecked_optional_param_type = "PresentOptions")] options: JsValue,
    ) -> JsResult<JsValue> {
        let c = arc_challenge(challenge)?;
        let pk = ServerPublicKey::<ArcV2P256>::from_bytes(&challenge.key(&options)?).or_throw()?;
        let limit = rate_limit(challenge, &options)?;
        crate::with_rng(|rng| {
            let mut st = Client::token_state(&mut self.inner, c, &pk, limit).or_throw()?;
            let t = st.token(rng).or_throw()?;
            // The library's ARC token has no `Zeroize`: it stays in this wiped frame, and the
            // token object keeps its bytes (wiped on drop).
            Ok(Token::object(TokenInner::Arc(t.to_bytes())))
        })
    }

    /// How many presentations are left for `challenge` (its full rate limit if none was made).
    pub fn remaining(
        &self,
        challenge: &Challenge,
        #[wasm_bindgen(unchecked_optional_param_type = "PresentOptions")] options: JsValue,
    ) -> JsResult<u32> {
        let c = arc_challenge(challenge)?;
        let pk = ServerPublicKey::<ArcV2P256>::from_bytes(&challenge.key(&options)?).or_throw()?;
        let limit = rate_limit(challenge, &options)?;
        let ctx = c.presentation_context(&arc_pp::issuer_key_id(&pk));
        Ok(self
            .inner
            .contexts()
            .find(|(k, _, _)| *k == ctx.as_slice())
            .map_or(limit, |(_, l, used)| l.saturating_sub(used)))
    }

    /// The storage encoding (key material and every counter), **secret**. Restore it with
    /// `Credential.fromBytes` in the next session; the counters continue.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> js_sys::Uint8Array {
        secret_u8a(&self.inner.to_bytes())
    }

    /// Strict decoding of `toBytes()`'s output.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] credential: JsValue,
    ) -> JsResult<Credential> {
        let b = secret_bytes(&credential, "credential")?;
        Ok(Credential {
            inner: LibCredential::from_bytes(&b).or_throw()?,
        })
    }
}

fn rate_limit(challenge: &Challenge, options: &JsValue) -> JsResult<u32> {
    let o = option(options, "rateLimit")?;
    if !(o.is_undefined() || o.is_null()) {
        return Ok(integer(&o, "options.rateLimit", 0, u64::from(u32::MAX))? as u32);
    }
    challenge.rate_limit.ok_or_else(|| {
        error(
            crate::code_of(Error::MissingKey),
            "the challenge has no rate-limit: pass options.rateLimit",
        )
    })
}

#[cfg(feature = "issuer")]
pub use issuer::ArcIssuer;

#[cfg(feature = "issuer")]
mod issuer {
    use privacy_tokens::arc::privacy_pass::{CredentialRequest, Issuer, RESPONSE_MEDIA_TYPE};
    use privacy_tokens::arc::ServerPrivateKey;

    use super::*;
    use crate::object;

    /// The ARC issuer and, since ARC tokens are privately verifiable, their verifier at the
    /// origin. Holds the secret key: `free()` wipes it.
    #[wasm_bindgen]
    pub struct ArcIssuer {
        inner: Issuer,
    }

    #[wasm_bindgen]
    impl ArcIssuer {
        /// An issuer with a fresh random key.
        pub fn generate() -> JsResult<ArcIssuer> {
            Ok(ArcIssuer {
                inner: crate::with_rng(|rng| Ok(Issuer::new(ServerPrivateKey::random(rng))))?,
            })
        }

        /// An issuer from `secretKey()`'s bytes.
        #[wasm_bindgen(js_name = fromSecretKey)]
        pub fn from_secret_key(
            #[wasm_bindgen(js_name = secretKey, unchecked_param_type = "Uint8Array")]
            secret_key: JsValue,
        ) -> JsResult<ArcIssuer> {
            let b = secret_bytes(&secret_key, "secretKey")?;
            Ok(ArcIssuer {
                inner: Issuer::new(ServerPrivateKey::from_bytes(&b).or_throw()?),
            })
        }

        /// The secret key's bytes, **secret**.
        #[wasm_bindgen(js_name = secretKey)]
        pub fn secret_key(&self) -> js_sys::Uint8Array {
            secret_u8a(&self.inner_key_bytes())
        }

        /// The public key, as challenges' `token-key` carries it.
        #[wasm_bindgen(getter, js_name = tokenKey)]
        pub fn token_key(&self) -> Vec<u8> {
            self.inner.public_key().to_bytes()
        }

        /// `SHA-256(tokenKey)`.
        #[wasm_bindgen(getter, js_name = tokenKeyId)]
        pub fn token_key_id(&self) -> Vec<u8> {
            self.inner.key_id().to_vec()
        }

        /// Answers a credential request body: `{ body, contentType }`
        /// (`application/private-credential-response`). Throws `UNSUPPORTED_VALUE` for another
        /// key id, `INVALID_PROOF` for a request whose proof fails, decoding codes otherwise.
        #[wasm_bindgen(unchecked_return_type = "IssueResult")]
        pub fn issue(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] request: JsValue,
        ) -> JsResult<JsValue> {
            let req = CredentialRequest::from_bytes(&bytes(&request, "request")?).or_throw()?;
            let resp = crate::with_rng(|rng| self.inner.issue(&req, rng).or_throw())?;
            Ok(object(&[
                ("body", crate::u8a(&resp.to_bytes())),
                ("contentType", RESPONSE_MEDIA_TYPE.into()),
            ]))
        }

        /// Verifies a token against the challenge this origin sent and its rate limit, and
        /// returns the **tag**, the double-spend key: reject a token whose tag was already seen
        /// for this challenge (never deduplicate on the token bytes, which are malleable).
        /// Throws `UNSUPPORTED_VALUE` for another key or challenge, `INVALID_PROOF` for a bad
        /// presentation.
        pub fn verify(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
            challenge: &Challenge,
            #[wasm_bindgen(js_name = rateLimit, unchecked_optional_param_type = "number")]
            rate_limit: JsValue,
        ) -> JsResult<Vec<u8>> {
            let token = crate::secret_bytes(&token, "token")?;
            let c = arc_challenge(challenge)?;
            let limit = super::rate_limit(challenge, &crate::object(&[("rateLimit", rate_limit)]))?;
            crate::wiped(|| {
                let t = arc_pp::Token::from_bytes(&token).or_throw()?;
                let tag = self.inner.verify(&t, c, limit).or_throw()?;
                Ok(tag.to_bytes())
            })
        }
    }

    impl ArcIssuer {
        fn inner_key_bytes(&self) -> zeroize::Zeroizing<Vec<u8>> {
            self.inner.private_key().to_bytes()
        }
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** What `createCredentialRequest` returns. */
export interface CredentialRequest { body: Uint8Array; contentType: string; state: CredentialRequestState }
/** Options of `Credential.present` and `Credential.remaining`. */
export interface PresentOptions { tokenKey?: Uint8Array; rateLimit?: number }
"#;
