//! Privacy Pass privately verifiable tokens: type 0x0001 (VOPRF P-384, RFC 9578) and type
//! 0x0005 (VOPRF ristretto255), single and amortized batched issuance
//! (draft-ietf-privacypass-batched-tokens); the token handle shared with ARC.

use core::ffi::c_char;

use privacy_tokens::arc::privacy_pass as arc_pp;
use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use privacy_tokens::voprf::privacy_pass::generic::{
    BatchClientState, Client, ClientState, Issuer, Token as PpToken, TokenRequest, TokenResponse,
};
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, Type5, MAX_BATCH};
use privacy_tokens::voprf::{PublicKey, SecretKey, VoprfServer};
use privacy_tokens::Error;
use zeroize::{Zeroize, Zeroizing};

use crate::challenge::{
    pt_challenge, PT_TOKEN_TYPE_1, PT_TOKEN_TYPE_2, PT_TOKEN_TYPE_5, PT_TOKEN_TYPE_ARC,
    PT_TOKEN_TYPE_DA7A,
};
use crate::ffi::*;

// ---------------------------------------------------------------------------------------------
// Client

/// The client state of a token request: secret (the blinds), one-shot.
pub(crate) enum RequestState {
    T1(ClientState<Type1>),
    T5(ClientState<Type5>),
    T1Batch(BatchClientState<Type1>),
    T5Batch(BatchClientState<Type5>),
    /// Types 0x0002 and 0xDA7A: one token.
    Rsa(rsa_pp::ClientState),
}

/// What a client keeps between sending a token request and reading the issuer's response: the
/// secret blinds and nonces. `pt_token_request_state_finalize` consumes its contents (a second
/// call is `PT_STATE_CONSUMED`); `pt_token_request_state_free` wipes it. Thread safety: one
/// thread at a time (every function but `_free` may be called from any thread, not
/// concurrently on the same state).
pub struct pt_token_request_state {
    pub(crate) inner: Option<RequestState>,
    pub(crate) count: usize,
    pub(crate) token_type: u16,
}

/// Frees (and wipes) a token request state, finalized or not.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_token_request_state_free(handle: *mut pt_token_request_state) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// Writes a request's body and content type.
pub(crate) fn request_out(
    body_out: &mut pt_buffer,
    content_type_out: &mut *const c_char,
    body: &[u8],
    batch: bool,
) {
    *body_out = pt_buffer::new(body);
    *content_type_out = if batch {
        cstr(c"application/private-token-amortized-batch-request")
    } else {
        cstr(c"application/private-token-request")
    };
}

fn make_request<T: TokenType>(
    challenge: &[u8],
    key: &[u8],
    count: u32,
    single: impl FnOnce(ClientState<T>) -> RequestState,
    batch: impl FnOnce(BatchClientState<T>) -> RequestState,
) -> R<(Vec<u8>, pt_token_request_state)> {
    let pk = PublicKey::<T::Suite>::from_bytes(key)?;
    let mut rng = crate::ffi::rng()?;
    let (body, state, n) = if count == 0 {
        let (req, st) = Client::<T>::request(&pk, challenge, &mut rng)?;
        (req.to_bytes().as_ref().to_vec(), single(st), 1)
    } else {
        let n = count as usize;
        let (req, st) = Client::<T>::request_batch(&pk, challenge, n, &mut rng)?;
        (req.to_bytes(), batch(st), n)
    };
    Ok((
        body,
        pt_token_request_state {
            inner: Some(state),
            count: n,
            token_type: T::TOKEN_TYPE,
        },
    ))
}

/// A token request for a challenge of type 0x0001 or 0x0005 (`createTokenRequest`): POST
/// `*body` to the issuer's `issuer-request-uri` with `Content-Type: *content_type` (a static
/// string, never freed), keep `*state` for `pt_token_request_state_finalize`.
///
/// **`count` 0 asks for one token** (`application/private-token-request`, RFC 9578, what every
/// issuer accepts); **1 to 65535 ask for an amortized batch** of that many
/// (`application/private-token-amortized-batch-request`, another wire format, which issuers
/// that implement only RFC 9578 reject): **`count` 1 is a batch of one, not "one token"**.
/// `token_key` (NULL: the challenge's `token-key`) is the issuer key from its directory.
///
/// Type 0x0002 (blind RSA): `count` must be 0 (one token; `PT_BATCH` otherwise) and the key is
/// the RSA-PSS SubjectPublicKeyInfo DER of the directory's `token-key` (`PT_INVALID_KEY`
/// otherwise). Type 0xDA7A needs extensions: `pt_create_extended_token_request`
/// (`PT_INVALID_ARGUMENT` here).
///
/// `PT_UNSUPPORTED_VALUE` for other token types (ARC has `pt_create_credential_request`),
/// `PT_MISSING_KEY` without a key, `PT_INVALID_POINT`/`PT_INVALID_LENGTH` for a bad key,
/// `PT_BATCH` for a count above 65535.
#[no_mangle]
pub unsafe extern "C" fn pt_create_token_request(
    challenge: *const pt_challenge,
    token_key: *const u8,
    token_key_len: usize,
    count: u32,
    body: *mut pt_buffer,
    content_type: *mut *const c_char,
    state: *mut *mut pt_token_request_state,
) -> pt_status {
    guard(|| {
        // Every output reset before any is reported missing (review BND-8), and no two the same
        // (BND-10).
        let outputs = [body.cast(), content_type.cast(), state.cast()];
        let (body, ct, state) = (
            out_buffer(body),
            out_value(content_type, core::ptr::null()),
            out_handle(state),
        );
        let (body, ct, state) = (body?, ct?, state?);
        distinct(&outputs)?;
        // SAFETY: a live challenge; `(token_key, token_key_len)` readable (header contract).
        let (c, key) = unsafe { (handle(challenge)?, opt_bytes(token_key, token_key_len)?) };
        if count as usize > MAX_BATCH {
            return Err(Error::Batch.into());
        }
        let (b, st) = match c.token_type() {
            PT_TOKEN_TYPE_1 => make_request::<Type1>(
                &c.bytes,
                c.key(key)?,
                count,
                RequestState::T1,
                RequestState::T1Batch,
            )?,
            PT_TOKEN_TYPE_5 => make_request::<Type5>(
                &c.bytes,
                c.key(key)?,
                count,
                RequestState::T5,
                RequestState::T5Batch,
            )?,
            PT_TOKEN_TYPE_2 if count != 0 => return Err(Error::Batch.into()),
            PT_TOKEN_TYPE_2 => crate::blind_rsa::make_request(c, key, None)?,
            PT_TOKEN_TYPE_DA7A => return fail(PT_INVALID_ARGUMENT),
            _ => return Err(Error::UnsupportedValue.into()),
        };
        request_out(body, ct, &b, count != 0);
        state.set(st);
        Ok(())
    })
}

/// Wipes a value holding a bearer token (not in the `control-no-wipe` test build).
pub(crate) fn wipe<Z: Zeroize + ?Sized>(z: &mut Z) {
    if !cfg!(feature = "control-no-wipe") {
        z.zeroize();
    }
}

/// The serialized tokens, as a list; the tokens (a `Copy` type, so not wiped on drop) are
/// wiped in the vector before it is freed, and each serialization is made and dropped in the
/// call's wiped stack frame.
fn tokens<T: TokenType>(mut list: Vec<PpToken<T>>) -> pt_buffer_list {
    let out = pt_buffer_list::new(list.iter().map(|t| t.to_bytes()));
    list.iter_mut().for_each(wipe);
    out
}

/// Turns the issuer's response body into serialized tokens (`finalize`): one for a single
/// request, `count` for a batch, verifying the issuer's proof. A malformed body
/// (`PT_INVALID_LENGTH`, `PT_INVALID_POINT`, ...) leaves the state usable; once the body
/// decodes, the state is consumed whatever the outcome (`PT_INVALID_PROOF` for a bad proof),
/// and a second call is `PT_STATE_CONSUMED`. Tokens are bearer secrets until spent.
#[no_mangle]
pub unsafe extern "C" fn pt_token_request_state_finalize(
    state: *mut pt_token_request_state,
    response: *const u8,
    response_len: usize,
    tokens_out: *mut pt_buffer_list,
) -> pt_status {
    guard(|| {
        let out = out_list(tokens_out)?;
        // SAFETY: a live state used by no other thread; the response readable (header contract).
        let (st, body) = unsafe { (handle_mut(state)?, bytes(response, response_len)?) };
        // Decode before consuming: a malformed answer leaves the state usable.
        match st.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))? {
            RequestState::T1(_) => drop(TokenResponse::<Type1>::from_bytes(body)?),
            RequestState::T5(_) => drop(TokenResponse::<Type5>::from_bytes(body)?),
            RequestState::T1Batch(s) => drop(s.response_from_bytes(body)?),
            RequestState::T5Batch(s) => drop(s.response_from_bytes(body)?),
            RequestState::Rsa(_) => drop(rsa_pp::TokenResponse::from_bytes(body)?),
        }
        *out = match take_wiped(&mut st.inner).ok_or(Fail(PT_STATE_CONSUMED))? {
            RequestState::T1(s) => tokens(vec![s.finalize(&TokenResponse::from_bytes(body)?)?]),
            RequestState::T5(s) => tokens(vec![s.finalize(&TokenResponse::from_bytes(body)?)?]),
            RequestState::T1Batch(s) => {
                let r = s.response_from_bytes(body)?;
                tokens(s.finalize_batch(&r)?)
            }
            RequestState::T5Batch(s) => {
                let r = s.response_from_bytes(body)?;
                tokens(s.finalize_batch(&r)?)
            }
            RequestState::Rsa(s) => {
                let mut t = s.finalize(body)?;
                let out = pt_buffer_list::new([Zeroizing::new(t.to_bytes())]);
                wipe(&mut t);
                out
            }
        };
        Ok(())
    })
}

/// The request's token count, token type and whether it was finalized.
#[no_mangle]
pub unsafe extern "C" fn pt_token_request_state_info(
    state: *const pt_token_request_state,
    count: *mut usize,
    token_type: *mut u16,
    consumed: *mut bool,
) -> pt_status {
    guard(|| {
        let outputs = [count.cast(), token_type.cast(), consumed.cast()];
        let (n, t, c) = (
            out_value(count, 0),
            out_value(token_type, 0),
            out_value(consumed, false),
        );
        let (n, t, c) = (n?, t?, c?);
        distinct(&outputs)?;
        // SAFETY: a live state handle (header contract).
        let st = unsafe { handle(state) }?;
        (*n, *t, *c) = (st.count, st.token_type, st.inner.is_none());
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Tokens

/// A token: the Privacy Pass types decoded (wiped by `pt_token`'s `Drop`), ARC's as its
/// canonical serialization in a `Zeroizing` buffer (the library's ARC token has no `Zeroize`;
/// its fields are read from the bytes, which were checked to decode).
enum TokenInner {
    T1(PpToken<Type1>),
    T5(PpToken<Type5>),
    Rsa(rsa_pp::Token),
    Arc(Zeroizing<Vec<u8>>),
}

/// A decoded token of type 0x0001, 0x0002, 0x0005, 0xDA7A or 0xE5AC (`Token`), for reading its fields and its
/// `Authorization` header. A bearer credential until spent: `pt_token_free` wipes it.
/// Read-only after creation: any number of threads may read it at once.
pub struct pt_token {
    inner: TokenInner,
}

impl Drop for pt_token {
    fn drop(&mut self) {
        match &mut self.inner {
            TokenInner::T1(t) => wipe(t),
            TokenInner::T5(t) => wipe(t),
            TokenInner::Rsa(t) => wipe(t),
            // `Zeroizing` wipes itself.
            TokenInner::Arc(_) => {}
        }
    }
}

/// ARC token bytes: 2 bytes of type, 4 of (unchecked) presentation nonce, the challenge
/// digest, the issuer key id, the presentation.
const ARC_DIGEST: core::ops::Range<usize> = 6..38;
const ARC_KEY_ID: core::ops::Range<usize> = 38..70;

/// Frees (and wipes) a token.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_token_free(handle: *mut pt_token) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

impl pt_token {
    fn bytes(&self) -> Zeroizing<Vec<u8>> {
        match &self.inner {
            TokenInner::T1(t) => Zeroizing::new(t.to_bytes().as_slice().to_vec()),
            TokenInner::T5(t) => Zeroizing::new(t.to_bytes().as_slice().to_vec()),
            TokenInner::Rsa(t) => Zeroizing::new(t.to_bytes()),
            TokenInner::Arc(b) => b.clone(),
        }
    }

    /// `token_input[a..b]` of a VOPRF token; for ARC, `arc` of its bytes (or `PT_ABSENT` for
    /// `None`).
    fn input_range(
        &self,
        a: usize,
        b: usize,
        arc: Option<core::ops::Range<usize>>,
    ) -> R<Zeroizing<Vec<u8>>> {
        Ok(Zeroizing::new(match &self.inner {
            TokenInner::T1(t) => t.token_input()[a..b].to_vec(),
            TokenInner::T5(t) => t.token_input()[a..b].to_vec(),
            TokenInner::Rsa(t) => t.token_input()[a..b].to_vec(),
            TokenInner::Arc(bytes) => bytes
                .get(arc.ok_or(Fail(PT_ABSENT))?)
                .ok_or(Fail(PT_INVALID_LENGTH))?
                .to_vec(),
        }))
    }
}

/// Strict decoding of a serialized token of type 0x0001, 0x0002, 0x0005, 0xDA7A or 0xE5AC
/// (`PT_UNSUPPORTED_VALUE` for another type, the decoding codes otherwise).
#[no_mangle]
pub unsafe extern "C" fn pt_token_from_bytes(
    token: *const u8,
    token_len: usize,
    out: *mut *mut pt_token,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: `(token, token_len)` is readable for the call (header contract).
        let b = unsafe { bytes(token, token_len) }?;
        let inner = match b {
            [0x00, 0x01, ..] => TokenInner::T1(PpToken::from_bytes(b)?),
            [0x00, 0x05, ..] => TokenInner::T5(PpToken::from_bytes(b)?),
            [0x00, 0x02, ..] | [0xDA, 0x7A, ..] => TokenInner::Rsa(rsa_pp::Token::from_bytes(b)?),
            // Decoded to check it, then kept as its canonical serialization (presentation
            // nonce written as 0, as `to_bytes` gives it).
            [0xE5, 0xAC, ..] => {
                TokenInner::Arc(crate::arc::token_bytes(&arc_pp::Token::from_bytes(b)?)?)
            }
            [_, _, ..] => return Err(Error::UnsupportedValue.into()),
            _ => return Err(Error::InvalidLength.into()),
        };
        out.set(pt_token { inner });
        Ok(())
    })
}

/// The token type.
#[no_mangle]
pub unsafe extern "C" fn pt_token_type(token: *const pt_token, token_type: *mut u16) -> pt_status {
    read_value(token, token_type, 0, |t| {
        Ok(match &t.inner {
            TokenInner::T1(_) => PT_TOKEN_TYPE_1,
            TokenInner::T5(_) => PT_TOKEN_TYPE_5,
            TokenInner::Rsa(t) => t.token_type(),
            TokenInner::Arc(_) => PT_TOKEN_TYPE_ARC,
        })
    })
}

/// The serialized token (RFC 9577 §2.2). Secret until spent.
#[no_mangle]
pub unsafe extern "C" fn pt_token_to_bytes(
    token: *const pt_token,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(token, out, |t| Ok(t.bytes()))
}

/// `PrivateToken token=<base64url>` (text): the `Authorization` value that redeems it. A type
/// 0xDA7A token issued for extensions is redeemed with them:
/// `pt_token_authorization_header_with_extensions`.
#[no_mangle]
pub unsafe extern "C" fn pt_token_authorization_header(
    token: *const pt_token,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(token, out, |t| {
        Ok(crate::challenge::authorization_value(&t.bytes(), None))
    })
}

/// `PrivateToken token=<base64url>, extensions=<base64url>` (text): the `Authorization` value
/// that redeems a type 0xDA7A token with its extensions (required: their encoding, as given to
/// `pt_create_extended_token_request`), as `pt_authorization_header_with_extensions` writes
/// it. `PT_UNSUPPORTED_VALUE` for a token of another type; `PT_INVALID_LENGTH` or
/// `PT_INVALID_ENCODING` for extensions that are not one `Extensions` structure.
#[no_mangle]
pub unsafe extern "C" fn pt_token_authorization_header_with_extensions(
    token: *const pt_token,
    extensions: *const u8,
    extensions_len: usize,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(token, out, |t| {
        // SAFETY: `(extensions, extensions_len)` is readable for the call (header contract).
        let ext = unsafe { bytes(extensions, extensions_len) }?;
        if !matches!(&t.inner, TokenInner::Rsa(r) if r.token_type() == PT_TOKEN_TYPE_DA7A) {
            return Err(Error::UnsupportedValue.into());
        }
        rsa_pp::Extensions::from_bytes(ext)?;
        Ok(crate::challenge::authorization_value(&t.bytes(), Some(ext)))
    })
}

/// The 32-byte `challenge_digest` it was made for (`SHA-256` of the challenge).
#[no_mangle]
pub unsafe extern "C" fn pt_token_challenge_digest(
    token: *const pt_token,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(token, out, |t| t.input_range(34, 66, Some(ARC_DIGEST)))
}

/// The 32-byte id of the issuer key it was issued under.
#[no_mangle]
pub unsafe extern "C" fn pt_token_key_id(token: *const pt_token, out: *mut pt_buffer) -> pt_status {
    read_buffer(token, out, |t| t.input_range(66, 98, Some(ARC_KEY_ID)))
}

/// The client's 32-byte nonce (types 0x0001, 0x0002, 0x0005, 0xDA7A: the origin's double-spend key);
/// `PT_ABSENT` for ARC, whose double-spend key is the tag `pt_arc_issuer_verify` returns.
#[no_mangle]
pub unsafe extern "C" fn pt_token_nonce(token: *const pt_token, out: *mut pt_buffer) -> pt_status {
    read_buffer(token, out, |t| t.input_range(2, 34, None))
}

// ---------------------------------------------------------------------------------------------
// Issuer

enum IssuerInner {
    T1(Issuer<Type1>),
    T5(Issuer<Type5>),
}

/// The issuer of type 0x0001 or 0x0005 tokens (`PrivacyPassIssuer`) and, since they are
/// privately verifiable, their verifier at the origin. Holds the secret key:
/// `pt_privacy_pass_issuer_free` wipes it. Thread safety: `pt_privacy_pass_issuer_issue`,
/// `_verify_token` and the getters may run on several threads at once;
/// `pt_privacy_pass_issuer_set_max_batch` needs the issuer to itself.
pub struct pt_privacy_pass_issuer {
    inner: IssuerInner,
}

/// Frees (and wipes) an issuer.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_free(handle: *mut pt_privacy_pass_issuer) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// `$body` with `$i` bound to the issuer of either type.
macro_rules! each_issuer {
    ($s:expr, $i:ident => $body:expr) => {
        match $s {
            IssuerInner::T1($i) => $body,
            IssuerInner::T5($i) => $body,
        }
    };
}

/// The issuer of `token_type` (1 or 5) whose VOPRF server `$make::<S>()` builds.
macro_rules! new_issuer {
    ($out:expr, $token_type:expr, $S:ident => $make:expr) => {{
        let inner = match $token_type {
            PT_TOKEN_TYPE_1 => {
                type $S = <Type1 as TokenType>::Suite;
                IssuerInner::T1(Issuer::new($make))
            }
            PT_TOKEN_TYPE_5 => {
                type $S = <Type5 as TokenType>::Suite;
                IssuerInner::T5(Issuer::new($make))
            }
            _ => return Err(Error::UnsupportedValue.into()),
        };
        $out.set(pt_privacy_pass_issuer { inner });
        Ok(())
    }};
}

fn issuer_out<'a>(
    out: *mut *mut pt_privacy_pass_issuer,
) -> R<HandleOut<'a, pt_privacy_pass_issuer>> {
    out_handle(out)
}

/// A new issuer with a fresh random key, for token type 1 (P-384) or 5 (ristretto255);
/// `PT_UNSUPPORTED_VALUE` for another type.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_generate(
    token_type: u16,
    out: *mut *mut pt_privacy_pass_issuer,
) -> pt_status {
    guard(|| {
        let out = issuer_out(out)?;
        let mut rng = crate::ffi::rng()?;
        new_issuer!(out, token_type, S => VoprfServer::<S>::new(&mut rng))
    })
}

/// An issuer from its serialized secret key (`pt_privacy_pass_issuer_secret_key`'s bytes).
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_from_secret_key(
    token_type: u16,
    secret_key: *const u8,
    secret_key_len: usize,
    out: *mut *mut pt_privacy_pass_issuer,
) -> pt_status {
    guard(|| {
        let out = issuer_out(out)?;
        // SAFETY: `(secret_key, secret_key_len)` is readable for the call (header contract).
        let sk = unsafe { bytes(secret_key, secret_key_len) }?;
        new_issuer!(out, token_type, S =>
            VoprfServer::<S>::from_secret_key(SecretKey::from_bytes(sk)?))
    })
}

/// An issuer whose key is `DeriveKeyPair(seed, info)` in VOPRF mode (RFC 9497 §3.2.1).
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_derive(
    token_type: u16,
    seed: *const u8,
    seed_len: usize,
    info: *const u8,
    info_len: usize,
    out: *mut *mut pt_privacy_pass_issuer,
) -> pt_status {
    guard(|| {
        let out = issuer_out(out)?;
        // SAFETY: both `(ptr, len)` pairs are readable for the call (header contract).
        let (seed, info) = unsafe { (bytes(seed, seed_len)?, bytes(info, info_len)?) };
        new_issuer!(out, token_type, S => VoprfServer::<S>::derive(seed, info)?)
    })
}

/// The token type (1 or 5) and the batch cap (`maxBatch`: the most tokens one batched request
/// may ask for, 256 unless set).
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_info(
    issuer: *const pt_privacy_pass_issuer,
    token_type: *mut u16,
    max_batch: *mut u16,
) -> pt_status {
    guard(|| {
        let outputs = [token_type.cast(), max_batch.cast()];
        let (t, m) = (out_value(token_type, 0), out_value(max_batch, 0));
        let (t, m) = (t?, m?);
        distinct(&outputs)?;
        // SAFETY: a live issuer handle (header contract).
        let i = unsafe { handle(issuer) }?;
        *t = match i.inner {
            IssuerInner::T1(_) => PT_TOKEN_TYPE_1,
            IssuerInner::T5(_) => PT_TOKEN_TYPE_5,
        };
        *m = each_issuer!(&i.inner, x => x.max_batch());
        Ok(())
    })
}

/// The public key, as challenges' `token-key` and the issuer directory carry it.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_token_key(
    issuer: *const pt_privacy_pass_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| {
        Ok(each_issuer!(&i.inner, x => x.public_key().to_bytes().as_slice().to_vec()))
    })
}

/// `SHA-256(token key)`: the 32-byte key id tokens carry.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_token_key_id(
    issuer: *const pt_privacy_pass_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| {
        Ok(*each_issuer!(&i.inner, x => x.token_key_id()))
    })
}

/// The secret key's bytes, **secret**: store them as any private key.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_secret_key(
    issuer: *const pt_privacy_pass_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| {
        Ok(Zeroizing::new(
            each_issuer!(&i.inner, x => x.server().secret_key().to_bytes().as_slice().to_vec()),
        ))
    })
}

/// Sets the batch cap (1 to 65535, else `PT_INVALID_ARGUMENT`). Raise it only where requests
/// are authenticated or rate-limited: each token costs the issuer about 0.3 ms of CPU.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_set_max_batch(
    issuer: *mut pt_privacy_pass_issuer,
    max_batch: u16,
) -> pt_status {
    guard(|| {
        // SAFETY: a live issuer used by no other thread (header contract).
        let i = unsafe { handle_mut(issuer) }?;
        if max_batch == 0 {
            return fail(crate::ffi::PT_INVALID_ARGUMENT);
        }
        // `with_max_batch` takes the issuer by value; the clone's key is wiped when the
        // replaced value drops.
        i.inner = match &i.inner {
            IssuerInner::T1(x) => IssuerInner::T1(x.clone().with_max_batch(max_batch)),
            IssuerInner::T5(x) => IssuerInner::T5(x.clone().with_max_batch(max_batch)),
        };
        Ok(())
    })
}

fn issue_with<T: TokenType>(
    i: &Issuer<T>,
    body: &[u8],
    single: Option<bool>,
) -> R<(Vec<u8>, bool)> {
    let single = single.unwrap_or(body.len() == T::TOKEN_REQUEST_LEN);
    let mut rng = crate::ffi::rng()?;
    Ok(if single {
        let req = TokenRequest::<T>::from_bytes(body)?;
        (i.issue(&mut rng, &req)?.to_bytes().as_ref().to_vec(), false)
    } else {
        (i.issue_batch_from_bytes(&mut rng, body)?.to_bytes(), true)
    })
}

/// Answers a token request body (`issue`): the response `*body` to send back with
/// `Content-Type: *content_type_out` (a static string). `content_type` (text, NULL for none)
/// is the request's `Content-Type` (`application/private-token-request` or
/// `application/private-token-amortized-batch-request`, parameters ignored); without it the
/// body's length decides. `PT_UNSUPPORTED_VALUE` for another content type, token type or key
/// id, the decoding codes for a malformed body, `PT_BATCH` for an empty or over-cap batch.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_issue(
    issuer: *const pt_privacy_pass_issuer,
    request: *const u8,
    request_len: usize,
    content_type: *const c_char,
    content_type_len: usize,
    body: *mut pt_buffer,
    content_type_out: *mut *const c_char,
) -> pt_status {
    guard(|| {
        #[cfg(feature = "control-race")]
        {
            static mut ISSUED: u64 = 0;
            // The control's data race, on purpose: threads sharing an issuer increment this
            // counter without synchronization.
            // SAFETY: none (a test control build only).
            unsafe {
                let p = &raw mut ISSUED;
                p.write_volatile(p.read_volatile() + 1);
            }
        }
        let outputs = [body.cast(), content_type_out.cast()];
        let (body_out, ct_out) = (
            out_buffer(body),
            out_value(content_type_out, core::ptr::null()),
        );
        let (body_out, ct_out) = (body_out?, ct_out?);
        distinct(&outputs)?;
        // SAFETY: a live issuer; the request and content type readable (header contract).
        let (i, req, ct) = unsafe {
            (
                handle(issuer)?,
                bytes(request, request_len)?,
                opt_text(content_type, content_type_len)?,
            )
        };
        let single = match ct.map(|c| {
            c.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        }) {
            None => None,
            Some(c) if c == "application/private-token-request" => Some(true),
            Some(c) if c == "application/private-token-amortized-batch-request" => Some(false),
            Some(_) => return Err(Error::UnsupportedValue.into()),
        };
        let (b, batch) = each_issuer!(&i.inner, x => issue_with(x, req, single))?;
        *body_out = pt_buffer::new(&b);
        *ct_out = if batch {
            cstr(c"application/private-token-amortized-batch-response")
        } else {
            cstr(c"application/private-token-response")
        };
        Ok(())
    })
}

/// Whether `token` is valid under this key and, with `Some(challenge)`, for that challenge;
/// its nonce when it is.
fn verify<T: TokenType>(
    i: &Issuer<T>,
    token: &[u8],
    challenge: Option<&[u8]>,
) -> R<Option<[u8; 32]>> {
    let mut t = PpToken::<T>::from_bytes(token)?;
    let out = verify_decoded(i, &t, challenge);
    wipe(&mut t);
    out
}

fn verify_decoded<T: TokenType>(
    i: &Issuer<T>,
    t: &PpToken<T>,
    challenge: Option<&[u8]>,
) -> R<Option<[u8; 32]>> {
    if let Some(c) = challenge {
        let digest: [u8; 32] = sha2::Digest::finalize(sha2::Digest::chain_update(
            <sha2::Sha256 as sha2::Digest>::new(),
            c,
        ))
        .into();
        if t.token_input()[34..66] != digest {
            return Ok(None);
        }
    }
    match i.verify_token(t) {
        Ok(true) => Ok(Some(t.nonce)),
        Ok(false) => Ok(None),
        // Another key id: not a token of this issuer's key.
        Err(Error::UnsupportedValue) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The body of both verify functions.
unsafe fn verify_token_with(
    issuer: *const pt_privacy_pass_issuer,
    token: *const u8,
    token_len: usize,
    challenge: Option<(*const u8, usize)>,
    valid: *mut bool,
    nonce: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [valid.cast(), nonce.cast()];
        let (out, n) = (out_value(valid, false), out_buffer(nonce));
        let (out, n) = (out?, n?);
        distinct(&outputs)?;
        // SAFETY: a live issuer; the token and challenge readable (header contract).
        let (i, t, c) = unsafe {
            (
                handle(issuer)?,
                bytes(token, token_len)?,
                match challenge {
                    None => None,
                    Some((p, _)) if p.is_null() => return fail(PT_NULL_ARGUMENT),
                    Some((p, len)) => Some(bytes(p, len)?),
                },
            )
        };
        if let Some(v) = each_issuer!(&i.inner, x => verify(x, t, c))? {
            *n = pt_buffer::new(&v);
            *out = true;
        }
        Ok(())
    })
}

/// Verifies a token at the origin (RFC 9578 §5.5, `verifyToken`) against the challenge this
/// origin sent (`challenge`, its serialized bytes: required, `NULL` is `PT_NULL_ARGUMENT`):
/// `*valid` is true when it was issued under this key for that challenge, and then `*nonce`
/// receives its 32-byte nonce, **the double-spend key**: reject a token whose nonce was already
/// seen. `*valid` false (and `*nonce` empty) for another key or challenge or a wrong
/// authenticator. An error status for bytes that are not a token of this type.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_verify_token(
    issuer: *const pt_privacy_pass_issuer,
    token: *const u8,
    token_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    valid: *mut bool,
    nonce: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        verify_token_with(
            issuer,
            token,
            token_len,
            Some((challenge, challenge_len)),
            valid,
            nonce,
        )
    }
}

/// As `pt_privacy_pass_issuer_verify_token` but **without the challenge check**: any token of
/// this key is valid, whichever origin's challenge or redemption context it was made for
/// (cross-origin replay is then possible). Only for an origin that checks the token's
/// `challenge_digest` itself (`pt_token_challenge_digest`) or accepts tokens for any challenge
/// of its issuer on purpose.
#[no_mangle]
pub unsafe extern "C" fn pt_privacy_pass_issuer_verify_token_any_challenge(
    issuer: *const pt_privacy_pass_issuer,
    token: *const u8,
    token_len: usize,
    valid: *mut bool,
    nonce: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe { verify_token_with(issuer, token, token_len, None, valid, nonce) }
}
