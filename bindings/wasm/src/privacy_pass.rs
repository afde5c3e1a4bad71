//! Privacy Pass privately verifiable tokens: type 0x0001 (VOPRF P-384, RFC 9578) and type
//! 0x0005 (VOPRF ristretto255), single and amortized batched issuance
//! (draft-ietf-privacypass-batched-tokens), the token type shared with ARC, and the client
//! side of the blind RSA types 0x0002 and 0xDA7A (their issuer and origin are in
//! [`crate::blind_rsa`]).

use privacy_tokens::arc::privacy_pass as arc_pp;
use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use privacy_tokens::http;
use privacy_tokens::voprf::privacy_pass::generic::{
    BatchClientState, BatchTokenResponse, Client, ClientState, Token as PpToken, TokenResponse,
};
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, Type5, MAX_BATCH};
use privacy_tokens::voprf::PublicKey;
use privacy_tokens::Error;
use wasm_bindgen::prelude::*;

use crate::challenge::{Challenge, TYPE_1, TYPE_2, TYPE_5, TYPE_ARC, TYPE_DA7A};
use crate::{
    bytes, error, lib_error, object, option, secret_bytes, u8a, wipe_enabled, wiped, JsResult,
    OrThrow, Secret,
};
use js_sys::Array;
use zeroize::Zeroize;

/// `application/private-token-request` (RFC 9578 §5.1).
pub const REQUEST_MEDIA_TYPE: &str = "application/private-token-request";
/// `application/private-token-response` (RFC 9578 §5.2).
pub const RESPONSE_MEDIA_TYPE: &str = "application/private-token-response";
/// The amortized batched request (draft-ietf-privacypass-batched-tokens).
pub const BATCH_REQUEST_MEDIA_TYPE: &str = "application/private-token-amortized-batch-request";
/// The amortized batched response.
pub const BATCH_RESPONSE_MEDIA_TYPE: &str = "application/private-token-amortized-batch-response";

/// The client state of a token request: secret (the blinds), one-shot.
pub(crate) enum RequestState {
    T1(ClientState<Type1>),
    T5(ClientState<Type5>),
    T1Batch(BatchClientState<Type1>),
    T5Batch(BatchClientState<Type5>),
    /// Types 0x0002 and 0xDA7A (one token per request).
    Rsa(rsa_pp::ClientState),
}

crate::state_zeroize!(RequestState);

/// What a client keeps between sending a token request and reading the issuer's response:
/// the secret blinds and nonces. `finalize` consumes it; `free()` (or `Symbol.dispose`) wipes
/// it. Not serializable on purpose: a request lives for one round trip.
#[wasm_bindgen]
pub struct TokenRequestState {
    pub(crate) inner: Option<RequestState>,
    pub(crate) count: usize,
    pub(crate) token_type: u16,
}

fn consumed() -> JsValue {
    error(
        crate::STATE_CONSUMED,
        "this state was already finalized; make a new request",
    )
}

/// `{ body, contentType, state }`.
pub(crate) fn request_result(body: &[u8], content_type: &str, state: JsValue) -> JsValue {
    object(&[
        ("body", u8a(body)),
        ("contentType", content_type.into()),
        ("state", state),
    ])
}

fn make_request<T: TokenType>(
    challenge: &Challenge,
    key: &[u8],
    count: Option<usize>,
    single: impl FnOnce(ClientState<T>) -> RequestState,
    batch: impl FnOnce(BatchClientState<T>) -> RequestState,
) -> JsResult<JsValue> {
    let pk = PublicKey::<T::Suite>::from_bytes(key).or_throw()?;
    crate::with_rng(|rng| {
        let (body, ct, state, n) = match count {
            None => {
                let (req, st) = Client::<T>::request(&pk, &challenge.bytes, rng).or_throw()?;
                (
                    req.to_bytes().as_ref().to_vec(),
                    REQUEST_MEDIA_TYPE,
                    single(st),
                    1,
                )
            }
            Some(n) => {
                let (req, st) =
                    Client::<T>::request_batch(&pk, &challenge.bytes, n, rng).or_throw()?;
                (req.to_bytes(), BATCH_REQUEST_MEDIA_TYPE, batch(st), n)
            }
        };
        let state = TokenRequestState {
            inner: Some(state),
            count: n,
            token_type: T::TOKEN_TYPE,
        };
        Ok(request_result(&body, ct, state.into()))
    })
}

/// A token request for a challenge of type 0x0001, 0x0002, 0x0005 or 0xDA7A:
/// `{ body, contentType, state }`. POST `body` to the issuer's `issuer-request-uri` with
/// `Content-Type: contentType`, then call `state.finalize(responseBody)`.
///
/// Options: `count` (a number, 1 to 65535, default 1): how many tokens. **One token is an RFC 9578
/// request** (`application/private-token-request`, what every issuer implements); more than one
/// is an amortized batch (`application/private-token-amortized-batch-request`,
/// draft-ietf-privacypass-batched-tokens), which only batch-capable issuers answer. `batch: true`
/// asks for the batch format even for one token. `tokenKey` overrides the challenge's
/// `token-key` (a key from the issuer directory); given as `undefined` or `null` (a failed
/// directory lookup) it is an `INVALID_ARGUMENT` error, not a silent fallback to the
/// challenge's key.
///
/// Blind RSA (0x0002, 0xDA7A): one token per request (`count` above 1 or `batch: true` is
/// `BATCH`); the key is the directory's `token-key` (the RSA-PSS SubjectPublicKeyInfo DER,
/// `INVALID_KEY` otherwise); type 0xDA7A needs `extensions` (the encoded `Extensions`, from
/// `encodeExtensions`), which the request carries to the issuer and the origin needs again to
/// verify the token; type 0x0002 refuses them.
///
/// Throws `UNSUPPORTED_VALUE` for other token types (ARC has `createCredentialRequest`),
/// `MISSING_KEY` without a key, `INVALID_POINT`/`INVALID_LENGTH` for a bad key, `BATCH` for a
/// count out of range.
#[wasm_bindgen(js_name = createTokenRequest, unchecked_return_type = "TokenRequest")]
pub fn create_token_request(
    challenge: &Challenge,
    #[wasm_bindgen(unchecked_optional_param_type = "TokenRequestOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let count = option(&options, "count")?;
    let n = if count.is_undefined() || count.is_null() {
        1
    } else {
        let n = count
            .as_f64()
            .ok_or_else(|| crate::bad_arg("options.count", "expected a number"))?;
        if n.fract() != 0.0 || !(1.0..=MAX_BATCH as f64).contains(&n) {
            return Err(error(
                crate::code_of(Error::Batch),
                "options.count: a request holds 1 to 65535 tokens",
            ));
        }
        n as usize
    };
    let batch = option(&options, "batch")?;
    let batch = if batch.is_undefined() || batch.is_null() {
        None
    } else {
        Some(
            batch
                .as_bool()
                .ok_or_else(|| crate::bad_arg("options.batch", "expected a boolean"))?,
        )
    };
    let count = match (n, batch) {
        (1, None | Some(false)) => None,
        (n, None | Some(true)) => Some(n),
        (_, Some(false)) => {
            return Err(crate::bad_arg(
                "options.batch",
                "false, but count asks for more than one token: one request of several tokens is a batch",
            ))
        }
    };
    match challenge.token_type() {
        TYPE_1 => {
            let key = challenge.key(&options)?;
            make_request::<Type1>(
                challenge,
                &key,
                count,
                RequestState::T1,
                RequestState::T1Batch,
            )
        }
        TYPE_5 => {
            let key = challenge.key(&options)?;
            make_request::<Type5>(
                challenge,
                &key,
                count,
                RequestState::T5,
                RequestState::T5Batch,
            )
        }
        t @ (TYPE_2 | TYPE_DA7A) => {
            if count.is_some() {
                return Err(error(
                    crate::code_of(Error::Batch),
                    "blind RSA (0x0002, 0xDA7A) requests hold one token: make one request per token",
                ));
            }
            let key = challenge.key(&options)?;
            let ext = option(&options, "extensions")?;
            let ext = if ext.is_undefined() || ext.is_null() {
                None
            } else {
                Some(bytes(&ext, "options.extensions")?)
            };
            rsa_request(challenge, &key, t, ext.as_deref())
        }
        TYPE_ARC => Err(error(
            crate::code_of(Error::UnsupportedValue),
            "token type 0xE5AC (ARC): use createCredentialRequest and Credential.present",
        )),
        t => Err(error(
            crate::code_of(Error::UnsupportedValue),
            &format!("token type {t:#06x} is not supported"),
        )),
    }
}

/// A blind RSA request: type 0x0002 without extensions, 0xDA7A with them (the encoded
/// `Extensions`, as `encodeExtensions` gives them; required).
fn rsa_request(
    challenge: &Challenge,
    key: &[u8],
    token_type: u16,
    extensions: Option<&[u8]>,
) -> JsResult<JsValue> {
    let key = rsa_pp::TokenKey::from_spki(key).or_throw()?;
    let extensions = match (token_type, extensions) {
        (TYPE_2, None) => None,
        (TYPE_2, Some(_)) => {
            return Err(crate::bad_arg(
                "options.extensions",
                "token type 0x0002 has no extensions (0xDA7A carries them)",
            ))
        }
        (_, Some(e)) => Some(rsa_pp::Extensions::from_bytes(e).or_throw()?),
        (_, None) => {
            return Err(crate::bad_arg(
                "options.extensions",
                "required for token type 0xDA7A: the encoded Extensions (encodeExtensions)",
            ))
        }
    };
    crate::with_rng(|rng| {
        let (body, state) = match &extensions {
            None => {
                let (req, st) = rsa_pp::Client::request(&key, &challenge.bytes, rng).or_throw()?;
                (req.to_bytes(), st)
            }
            Some(e) => {
                let (req, st) =
                    rsa_pp::Client::request_with_extensions(&key, &challenge.bytes, e, rng)
                        .or_throw()?;
                (req.to_bytes(), st)
            }
        };
        Ok(rsa_request_result(&body, state, token_type))
    })
}

/// `{ body, contentType, state }` of a blind RSA request.
pub(crate) fn rsa_request_result(
    body: &[u8],
    state: rsa_pp::ClientState,
    token_type: u16,
) -> JsValue {
    let state = TokenRequestState {
        inner: Some(RequestState::Rsa(state)),
        count: 1,
        token_type,
    };
    request_result(body, REQUEST_MEDIA_TYPE, state.into())
}

// The tokens become JavaScript objects inside the wiped frame: what crosses out of it is only
// the array's handle, never a token by value (`Token<T>` is `Copy`: each move is a copy).
fn finalize_single<T: TokenType>(
    st: ClientState<T>,
    body: &[u8],
    wrap: impl Fn(PpToken<T>) -> TokenInner,
) -> JsResult<Array> {
    let resp = TokenResponse::<T>::from_bytes(body).or_throw()?;
    let mut t = st.finalize(&resp).or_throw()?;
    let out = Array::of1(&Token { inner: wrap(t) }.into());
    if wipe_enabled() {
        t.zeroize();
    }
    Ok(out)
}

fn finalize_batch<T: TokenType>(
    st: BatchClientState<T>,
    resp: BatchTokenResponse<T>,
    wrap: impl Fn(PpToken<T>) -> TokenInner,
) -> JsResult<Array> {
    let mut tokens = st.finalize_batch(&resp).or_throw()?;
    let out = tokens
        .iter()
        .map(|t| JsValue::from(Token { inner: wrap(*t) }))
        .collect::<Array>();
    if wipe_enabled() {
        tokens.zeroize();
    }
    Ok(out)
}

#[wasm_bindgen]
impl TokenRequestState {
    /// Turns the issuer's response body into tokens (one for a single request, `count` for a
    /// batch), verifying the issuer's proof. The response is decoded first: a malformed body
    /// (`INVALID_LENGTH`, `INVALID_POINT`, ...) leaves the state usable; once decoded, the state
    /// is consumed whatever the outcome (`INVALID_PROOF` for a bad proof), and a second call
    /// throws `STATE_CONSUMED`.
    #[wasm_bindgen(unchecked_return_type = "Token[]")]
    pub fn finalize(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] response: JsValue,
    ) -> JsResult<Array> {
        let body = bytes(&response, "response")?;
        match self.inner.as_ref().ok_or_else(consumed)? {
            RequestState::T1(_) => {
                TokenResponse::<Type1>::from_bytes(&body).or_throw()?;
            }
            RequestState::T5(_) => {
                TokenResponse::<Type5>::from_bytes(&body).or_throw()?;
            }
            RequestState::T1Batch(s) => {
                s.response_from_bytes(&body).or_throw()?;
            }
            RequestState::T5Batch(s) => {
                s.response_from_bytes(&body).or_throw()?;
            }
            RequestState::Rsa(_) => {
                rsa_pp::TokenResponse::from_bytes(&body).or_throw()?;
            }
        }
        // Taken inside the wiped frame: a move out of the object is a copy on the stack.
        wiped(
            || match crate::take_state(&mut self.inner).ok_or_else(consumed)? {
                RequestState::T1(s) => finalize_single(s, &body, TokenInner::T1),
                RequestState::T5(s) => finalize_single(s, &body, TokenInner::T5),
                RequestState::T1Batch(s) => {
                    let r = s.response_from_bytes(&body).or_throw()?;
                    finalize_batch(s, r, TokenInner::T1)
                }
                RequestState::T5Batch(s) => {
                    let r = s.response_from_bytes(&body).or_throw()?;
                    finalize_batch(s, r, TokenInner::T5)
                }
                RequestState::Rsa(s) => {
                    let t = s.finalize(&body).or_throw()?;
                    Ok(Array::of1(&Token::object(TokenInner::Rsa(t))))
                }
            },
        )
    }

    /// How many tokens the request asked for.
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The token type of the request.
    #[wasm_bindgen(getter, js_name = tokenType)]
    pub fn token_type(&self) -> u16 {
        self.token_type
    }

    /// Whether `finalize` was already called.
    #[wasm_bindgen(getter)]
    pub fn consumed(&self) -> bool {
        self.inner.is_none()
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens

// One token per JavaScript object: the size difference between variants costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum TokenInner {
    T1(PpToken<Type1>),
    T5(PpToken<Type5>),
    /// Types 0x0002 and 0xDA7A (wiped on drop by the library).
    Rsa(rsa_pp::Token),
    /// The serialized ARC token: the library's ARC token has no `Zeroize`, so this keeps its
    /// bytes (wiped on drop) and decodes them on demand, in a wiped frame.
    Arc(Vec<u8>),
}

/// A token, ready to redeem with `authorizationHeader()`. A bearer credential until spent:
/// keep it like a password. From `TokenRequestState.finalize`, `Credential.present` or
/// `Token.fromBytes`. `free()` (or `Symbol.dispose`) wipes it.
#[wasm_bindgen]
pub struct Token {
    pub(crate) inner: TokenInner,
}

impl Drop for Token {
    fn drop(&mut self) {
        if wipe_enabled() {
            match &mut self.inner {
                TokenInner::T1(t) => t.zeroize(),
                TokenInner::T5(t) => t.zeroize(),
                TokenInner::Rsa(t) => t.zeroize(),
                TokenInner::Arc(b) => b.zeroize(),
            }
        }
    }
}

impl Token {
    /// The serialized token, in a buffer wiped on drop. Call inside a wiped frame: the
    /// fixed-size encodings are stack copies.
    pub(crate) fn bytes(&self) -> Secret<Vec<u8>> {
        Secret(match &self.inner {
            TokenInner::T1(t) => t.to_bytes().as_slice().to_vec(),
            TokenInner::T5(t) => t.to_bytes().as_slice().to_vec(),
            TokenInner::Rsa(t) => t.to_bytes(),
            TokenInner::Arc(b) => b.clone(),
        })
    }

    /// A field of the ARC token, decoded in a wiped frame (the bytes were decoded when the
    /// token was made, so this cannot fail).
    fn arc_field(b: &[u8], f: impl FnOnce(&arc_pp::Token) -> Vec<u8>) -> Vec<u8> {
        wiped(|| {
            arc_pp::Token::from_bytes(b)
                .map(|t| f(&t))
                .unwrap_or_default()
        })
    }

    /// The JavaScript object of a new token, made inside a wiped frame (see `finalize_single`).
    pub(crate) fn object(inner: TokenInner) -> JsValue {
        Token { inner }.into()
    }
}

/// `PrivateToken token=<base64url>`, then `, extensions=<base64url>` when `extensions` are
/// given (draft-ietf-privacypass-auth-scheme-extensions; both padded, as the server writes
/// them): the library's `http::authorization_header(_with_extensions)`, built in one allocation
/// of its final size, in a buffer wiped on drop.
pub(crate) fn authorization_value(token: &[u8], extensions: Option<&[u8]>) -> Secret<String> {
    Secret(match extensions {
        Some(e) => http::authorization_header_with_extensions(token, e),
        None => http::authorization_header(token),
    })
}

/// The `extensions` argument of the `authorizationHeader`s: `None` for `undefined` or `null`;
/// otherwise the bytes of one well-formed `Extensions` structure (`Extensions::from_bytes`:
/// `INVALID_LENGTH`, `INVALID_ENCODING`), for a token of type 0xDA7A only (`INVALID_ARGUMENT`
/// for another type: only 0xDA7A tokens are bound to extensions).
pub(crate) fn header_extensions(
    token_type: u16,
    extensions: &JsValue,
) -> JsResult<Option<Vec<u8>>> {
    let Some(e) = crate::opt_bytes(extensions, "extensions")? else {
        return Ok(None);
    };
    if token_type != TYPE_DA7A {
        return Err(crate::bad_arg(
            "extensions",
            &format!(
                "a token of type {token_type:#06x} has no extensions (0xDA7A tokens carry them)"
            ),
        ));
    }
    rsa_pp::Extensions::from_bytes(&e).or_throw()?;
    Ok(Some(e))
}

#[wasm_bindgen]
impl Token {
    /// Strict decoding of a serialized token of type 0x0001, 0x0002, 0x0005, 0xDA7A or 0xE5AC.
    #[wasm_bindgen(js_name = fromBytes, unchecked_return_type = "Token")]
    pub fn from_bytes(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
    ) -> JsResult<JsValue> {
        let b = secret_bytes(&token, "token")?;
        wiped(|| {
            let inner = match b.as_slice() {
                [0x00, 0x01, ..] => TokenInner::T1(PpToken::from_bytes(&b).or_throw()?),
                [0x00, 0x05, ..] => TokenInner::T5(PpToken::from_bytes(&b).or_throw()?),
                [0x00, 0x02, ..] | [0xDA, 0x7A, ..] => {
                    TokenInner::Rsa(rsa_pp::Token::from_bytes(&b).or_throw()?)
                }
                [0xE5, 0xAC, ..] => {
                    arc_pp::Token::from_bytes(&b).or_throw()?;
                    TokenInner::Arc(b.to_vec())
                }
                [_, _, ..] => return Err(lib_error(Error::UnsupportedValue)),
                _ => return Err(lib_error(Error::InvalidLength)),
            };
            Ok(Token::object(inner))
        })
    }

    /// The token type.
    #[wasm_bindgen(getter, js_name = tokenType)]
    pub fn token_type(&self) -> u16 {
        match &self.inner {
            TokenInner::T1(_) => TYPE_1,
            TokenInner::T5(_) => TYPE_5,
            TokenInner::Rsa(t) => t.token_type(),
            TokenInner::Arc(_) => TYPE_ARC,
        }
    }

    /// The serialized token (RFC 9577 §2.2), **secret** until spent. The internal copy is
    /// wiped; only the returned `Uint8Array` remains (`fill(0)` it when done).
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> js_sys::Uint8Array {
        wiped(|| js_sys::Uint8Array::from(self.bytes().as_slice()))
    }

    /// `PrivateToken token=<base64url>`, the `Authorization` header value that redeems it. The
    /// internal copies are wiped.
    ///
    /// Type 0xDA7A: pass the token's `extensions` (their encoding, as given to
    /// `createTokenRequest`, e.g. from `encodeExtensions`) to redeem it with them:
    /// `PrivateToken token=<base64url>, extensions=<base64url>`
    /// (draft-ietf-privacypass-auth-scheme-extensions; both padded). Without them the origin
    /// reads the empty list, which verifies only a token issued for no extensions. Throws
    /// `INVALID_LENGTH` or `INVALID_ENCODING` for bytes that are not one `Extensions`
    /// structure, `INVALID_ARGUMENT` for extensions with a token of another type.
    #[wasm_bindgen(js_name = authorizationHeader, unchecked_return_type = "string")]
    pub fn authorization_header(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] extensions: JsValue,
    ) -> JsResult<JsValue> {
        let ext = header_extensions(self.token_type(), &extensions)?;
        Ok(wiped(|| {
            JsValue::from_str(&authorization_value(&self.bytes(), ext.as_deref()))
        }))
    }

    /// The `challenge_digest` it was made for (`SHA-256` of the challenge).
    #[wasm_bindgen(getter, js_name = challengeDigest)]
    pub fn challenge_digest(&self) -> Vec<u8> {
        match &self.inner {
            TokenInner::T1(t) => t.challenge_digest.to_vec(),
            TokenInner::T5(t) => t.challenge_digest.to_vec(),
            TokenInner::Rsa(t) => t.challenge_digest().to_vec(),
            TokenInner::Arc(b) => Self::arc_field(b, |t| t.challenge_digest().to_vec()),
        }
    }

    /// The 32-byte id of the issuer key it was issued under.
    #[wasm_bindgen(getter, js_name = tokenKeyId)]
    pub fn token_key_id(&self) -> Vec<u8> {
        match &self.inner {
            TokenInner::T1(t) => t.token_key_id.to_vec(),
            TokenInner::T5(t) => t.token_key_id.to_vec(),
            TokenInner::Rsa(t) => t.token_key_id().to_vec(),
            TokenInner::Arc(b) => Self::arc_field(b, |t| t.issuer_key_id().to_vec()),
        }
    }

    /// The client's 32-byte nonce (types 0x0001, 0x0002, 0x0005, 0xDA7A; `undefined` for ARC, whose
    /// double-spend key is the tag `ArcIssuer.verify` returns).
    /// (Copied straight into a `Uint8Array`, without a buffer in WebAssembly memory.)
    #[wasm_bindgen(getter)]
    pub fn nonce(&self) -> Option<js_sys::Uint8Array> {
        match &self.inner {
            TokenInner::T1(t) => Some(js_sys::Uint8Array::from(&t.nonce[..])),
            TokenInner::T5(t) => Some(js_sys::Uint8Array::from(&t.nonce[..])),
            TokenInner::Rsa(t) => Some(js_sys::Uint8Array::from(&t.nonce()[..])),
            TokenInner::Arc(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Issuer

#[cfg(feature = "issuer")]
pub use issuer::PrivacyPassIssuer;

#[cfg(feature = "issuer")]
mod issuer {
    use privacy_tokens::voprf::privacy_pass::generic::{Issuer, TokenRequest};
    use privacy_tokens::voprf::{SecretKey, VoprfServer};

    use super::*;
    use crate::{integer, secret_u8a, string};

    enum Inner {
        T1(Issuer<Type1>),
        T5(Issuer<Type5>),
    }

    /// The issuer of type 0x0001 or 0x0005 tokens and, since they are privately verifiable, their
    /// verifier at the origin. Holds the secret key: `free()` wipes it.
    #[wasm_bindgen]
    pub struct PrivacyPassIssuer {
        inner: Inner,
    }

    macro_rules! each {
        ($s:expr, $i:ident => $body:expr) => {
            match &$s.inner {
                Inner::T1($i) => $body,
                Inner::T5($i) => $body,
            }
        };
    }

    fn issue_one<T: TokenType>(i: &Issuer<T>, body: &[u8]) -> JsResult<JsValue> {
        let req = TokenRequest::<T>::from_bytes(body).or_throw()?;
        let resp = crate::with_rng(|rng| i.issue(rng, &req).or_throw())?;
        Ok(object(&[
            ("body", u8a(resp.to_bytes().as_ref())),
            ("contentType", RESPONSE_MEDIA_TYPE.into()),
        ]))
    }

    fn issue_batch<T: TokenType>(i: &Issuer<T>, body: &[u8]) -> JsResult<JsValue> {
        let resp = crate::with_rng(|rng| i.issue_batch_from_bytes(rng, body).or_throw())?;
        Ok(object(&[
            ("body", u8a(&resp.to_bytes())),
            ("contentType", BATCH_RESPONSE_MEDIA_TYPE.into()),
        ]))
    }

    fn verify<T: TokenType>(
        i: &Issuer<T>,
        token: &[u8],
        challenge: Option<&[u8]>,
    ) -> JsResult<bool> {
        let mut t = PpToken::<T>::from_bytes(token).or_throw()?;
        let ok = verify_decoded(i, &t, challenge);
        t.zeroize();
        ok
    }

    fn verify_decoded<T: TokenType>(
        i: &Issuer<T>,
        t: &PpToken<T>,
        challenge: Option<&[u8]>,
    ) -> JsResult<bool> {
        if let Some(c) = challenge {
            let digest: [u8; 32] = sha2::Digest::finalize(sha2::Digest::chain_update(
                <sha2::Sha256 as sha2::Digest>::new(),
                c,
            ))
            .into();
            if t.token_input()[34..66] != digest {
                return Ok(false);
            }
        }
        match i.verify_token(t) {
            Ok(ok) => Ok(ok),
            // Another key id: not a token of this issuer's key.
            Err(Error::UnsupportedValue) => Ok(false),
            Err(e) => Err(lib_error(e)),
        }
    }

    fn token_type_arg(v: &JsValue) -> JsResult<u16> {
        match integer(v, "tokenType", 0, 0xffff)? as u16 {
            t @ (TYPE_1 | TYPE_5) => Ok(t),
            t => Err(error(
                crate::code_of(Error::UnsupportedValue),
                &format!("token type {t:#06x}: PrivacyPassIssuer handles 0x0001 and 0x0005"),
            )),
        }
    }

    #[wasm_bindgen]
    impl PrivacyPassIssuer {
        /// A new issuer with a fresh random key, for token type 1 (P-384) or 5 (ristretto255).
        pub fn generate(
            #[wasm_bindgen(js_name = tokenType, unchecked_param_type = "number")]
            token_type: JsValue,
        ) -> JsResult<PrivacyPassIssuer> {
            let t = token_type_arg(&token_type)?;
            crate::with_rng(|rng| {
                let inner = match t {
                    TYPE_1 => Inner::T1(Issuer::new(VoprfServer::new(rng))),
                    _ => Inner::T5(Issuer::new(VoprfServer::new(rng))),
                };
                Ok(PrivacyPassIssuer { inner })
            })
        }

        /// An issuer from its serialized secret key (`secretKey()`'s bytes).
        #[wasm_bindgen(js_name = fromSecretKey)]
        pub fn from_secret_key(
            #[wasm_bindgen(js_name = tokenType, unchecked_param_type = "number")]
            token_type: JsValue,
            #[wasm_bindgen(js_name = secretKey, unchecked_param_type = "Uint8Array")]
            secret_key: JsValue,
        ) -> JsResult<PrivacyPassIssuer> {
            let sk = secret_bytes(&secret_key, "secretKey")?;
            let inner = match token_type_arg(&token_type)? {
                TYPE_1 => Inner::T1(Issuer::from_secret_key(
                    SecretKey::from_bytes(&sk).or_throw()?,
                )),
                _ => Inner::T5(Issuer::from_secret_key(
                    SecretKey::from_bytes(&sk).or_throw()?,
                )),
            };
            Ok(PrivacyPassIssuer { inner })
        }

        /// An issuer whose key is `DeriveKeyPair(seed, info)` in VOPRF mode (RFC 9497 §3.2.1).
        pub fn derive(
            #[wasm_bindgen(js_name = tokenType, unchecked_param_type = "number")]
            token_type: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] seed: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] info: JsValue,
        ) -> JsResult<PrivacyPassIssuer> {
            let seed = secret_bytes(&seed, "seed")?;
            let info = bytes(&info, "info")?;
            let inner = match token_type_arg(&token_type)? {
                TYPE_1 => Inner::T1(Issuer::new(VoprfServer::derive(&seed, &info).or_throw()?)),
                _ => Inner::T5(Issuer::new(VoprfServer::derive(&seed, &info).or_throw()?)),
            };
            Ok(PrivacyPassIssuer { inner })
        }

        /// The token type.
        #[wasm_bindgen(getter, js_name = tokenType)]
        pub fn token_type(&self) -> u16 {
            match self.inner {
                Inner::T1(_) => TYPE_1,
                Inner::T5(_) => TYPE_5,
            }
        }

        /// The public key as challenges' `token-key` and the issuer directory carry it.
        #[wasm_bindgen(getter, js_name = tokenKey)]
        pub fn token_key(&self) -> Vec<u8> {
            each!(self, i => i.public_key().to_bytes().as_slice().to_vec())
        }

        /// `SHA-256(tokenKey)`, the key id tokens carry.
        #[wasm_bindgen(getter, js_name = tokenKeyId)]
        pub fn token_key_id(&self) -> Vec<u8> {
            each!(self, i => i.token_key_id().to_vec())
        }

        /// The secret key's bytes, **secret**: store them as you store any private key.
        #[wasm_bindgen(js_name = secretKey)]
        pub fn secret_key(&self) -> js_sys::Uint8Array {
            let sk = each!(self, i => zeroize::Zeroizing::new(
                i.server().secret_key().to_bytes().as_slice().to_vec()
            ));
            secret_u8a(&sk)
        }

        /// The most tokens one batched request may ask for (256 unless set); larger batches are
        /// refused with `BATCH` from their length prefix, before any work.
        #[wasm_bindgen(getter, js_name = maxBatch)]
        pub fn max_batch(&self) -> u16 {
            each!(self, i => i.max_batch())
        }

        /// Sets the batch cap (1 to 65535). Raise it only where requests are authenticated or
        /// rate-limited: each token costs the issuer about 0.3 ms of CPU natively.
        #[wasm_bindgen(setter, js_name = maxBatch)]
        pub fn set_max_batch(
            &mut self,
            #[wasm_bindgen(unchecked_param_type = "number")] max: JsValue,
        ) -> JsResult<()> {
            let max = integer(&max, "maxBatch", 1, 0xffff)? as u16;
            // `with_max_batch` takes the issuer by value; the clone's key is wiped when the
            // replaced value drops.
            self.inner = match &self.inner {
                Inner::T1(i) => Inner::T1(i.clone().with_max_batch(max)),
                Inner::T5(i) => Inner::T5(i.clone().with_max_batch(max)),
            };
            Ok(())
        }

        /// Answers a token request body: `{ body, contentType }` to send back. `contentType` is
        /// the request's `Content-Type` (`application/private-token-request` or
        /// `application/private-token-amortized-batch-request`); without it the body's length
        /// decides. Throws `UNSUPPORTED_VALUE` for another token type or key id, the decoding
        /// codes for a malformed body, `BATCH` for an empty or over-cap batch.
        #[wasm_bindgen(unchecked_return_type = "IssueResult")]
        pub fn issue(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] request: JsValue,
            #[wasm_bindgen(js_name = contentType, unchecked_optional_param_type = "string")]
            content_type: JsValue,
        ) -> JsResult<JsValue> {
            let body = bytes(&request, "request")?;
            let ct = if content_type.is_undefined() || content_type.is_null() {
                None
            } else {
                Some(string(&content_type, "contentType")?)
            };
            let single_len = each!(self, i => {
                fn len<T: TokenType>(_: &Issuer<T>) -> usize { T::TOKEN_REQUEST_LEN }
                len(i)
            });
            let ct = ct.as_deref().map(|c| {
                c.split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
            });
            let single = match ct.as_deref() {
                Some(REQUEST_MEDIA_TYPE) => true,
                Some(BATCH_REQUEST_MEDIA_TYPE) => false,
                Some(other) => {
                    return Err(error(
                        crate::code_of(Error::UnsupportedValue),
                        &format!("content type {other:?} is not a token request"),
                    ))
                }
                None => body.len() == single_len,
            };
            if single {
                each!(self, i => issue_one(i, &body))
            } else {
                each!(self, i => issue_batch(i, &body))
            }
        }

        /// Verifies a token at the origin (RFC 9578 §5.5): `true` when it was issued under this
        /// key **for `challenge`**, the challenge the origin sent (its serialized bytes, or the
        /// `Challenge` object: the package's entries accept both). `false` for another key or
        /// challenge or a wrong authenticator; throws `INVALID_ARGUMENT` without a challenge,
        /// and the decoding codes for bytes that are not a token of this type. Double-spend
        /// checks (one nonce, one use) are the origin's job.
        #[wasm_bindgen(js_name = verifyToken)]
        pub fn verify_token(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array | Challenge")] challenge: JsValue,
        ) -> JsResult<bool> {
            let token = secret_bytes(&token, "token")?;
            if challenge.is_undefined() || challenge.is_null() {
                return Err(crate::bad_arg(
                    "challenge",
                    "required: the challenge this origin sent (verifyTokenAnyChallenge skips the check, explicitly)",
                ));
            }
            let challenge = bytes(&challenge, "challenge")?;
            wiped(|| each!(self, i => verify(i, &token, Some(&challenge))))
        }

        /// `verifyToken` **without** the challenge check: `true` for any token issued under
        /// this key, whichever origin's challenge (and redemption context) it was made for.
        /// Only for an origin that accepts tokens minted for other origins' challenges under
        /// the same issuer key.
        #[wasm_bindgen(js_name = verifyTokenAnyChallenge)]
        pub fn verify_token_any_challenge(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
        ) -> JsResult<bool> {
            let token = secret_bytes(&token, "token")?;
            wiped(|| each!(self, i => verify(i, &token, None)))
        }
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Options of `createTokenRequest`. */
export interface TokenRequestOptions {
  /**
   * How many tokens (1 to 65535, default 1). One token is an RFC 9578 request; more is an
   * amortized batch, which only batch-capable issuers answer.
   */
  count?: number;
  /** The amortized batch format even for one token (`count` 1); `false` refuses a count above 1. */
  batch?: boolean;
  /** The issuer key (from the issuer directory); when absent, the challenge's `token-key`. */
  tokenKey?: Uint8Array;
  /** Type 0xDA7A only (required there): the encoded `Extensions` (`encodeExtensions`). */
  extensions?: Uint8Array;
}
/** What `createTokenRequest` returns: POST `body` with `Content-Type: contentType`. */
export interface TokenRequest { body: Uint8Array; contentType: string; state: TokenRequestState }
/** What an issuer's `issue` returns: the response body and its `Content-Type`. */
export interface IssueResult { body: Uint8Array; contentType: string }
"#;
