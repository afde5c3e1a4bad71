//! Trust Tokens / Private State Tokens (BoringSSL's methods, byte for byte): key generation,
//! the issuer (issue, redeem) and the client (issuance, redemption requests). Messages and key
//! blobs are BoringSSL's (`TRUST_TOKEN_*`).

use privacy_tokens::trust_token::{
    derive_key_from_secret, generate_key, Client, IssuanceState, Issuer, Method, PrivateKey,
    PublicKey, Token,
};

use crate::ffi::*;

/// `TRUST_TOKEN_pst_v1_voprf()`: VOPRF(P-384) (Chrome `"PrivateStateTokenV1VOPRF"`).
pub const PT_METHOD_PST_V1_VOPRF: u8 = 1;
/// `TRUST_TOKEN_pst_v1_pmb()`: PMBTokens with a private metadata bit (Chrome
/// `"PrivateStateTokenV1PMB"`).
pub const PT_METHOD_PST_V1_PMB: u8 = 2;
/// `TRUST_TOKEN_experiment_v2_voprf()` (deprecated).
pub const PT_METHOD_EXPERIMENT_V2_VOPRF: u8 = 3;
/// `TRUST_TOKEN_experiment_v2_pmb()` (deprecated).
pub const PT_METHOD_EXPERIMENT_V2_PMB: u8 = 4;

/// The method of a `PT_METHOD_*` value: `PT_INVALID_ARGUMENT` for another. (`experiment_v1`,
/// whose redemption record needs the library's `srr` feature, is not offered here.)
fn method(id: u8) -> R<Method> {
    match Method::from_id(id) {
        Some(m) if m != Method::ExperimentV1 => Ok(m),
        _ => fail(PT_INVALID_ARGUMENT),
    }
}

/// Writes a key pair's BoringSSL blobs.
fn key_pair_out(
    pair: (PrivateKey, PublicKey),
    private_key: &mut pt_buffer,
    public_key: &mut pt_buffer,
) {
    *private_key = pt_buffer::new(&pair.0.to_bytes());
    *public_key = pt_buffer::new(&pair.1.to_bytes());
}

/// A fresh random key pair (`TRUST_TOKEN_generate_key`) for `method` (`PT_METHOD_*`) with id
/// `key_id`: the private key blob (**secret**, for `pt_trust_token_issuer_add_key`) and the
/// public key blob (for the key commitment and `pt_trust_token_client_add_key`).
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_generate_key(
    method_id: u8,
    key_id: u32,
    private_key: *mut pt_buffer,
    public_key: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [private_key.cast(), public_key.cast()];
        let (sk, pk) = (out_buffer(private_key), out_buffer(public_key));
        let (sk, pk) = (sk?, pk?);
        distinct(&outputs)?;
        let m = method(method_id)?;
        key_pair_out(generate_key(m, key_id, &mut crate::ffi::rng()?), sk, pk);
        Ok(())
    })
}

/// The key pair derived from `secret` (`TRUST_TOKEN_derive_key_from_secret`), as
/// `pt_trust_token_generate_key` returns it.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_derive_key_from_secret(
    method_id: u8,
    key_id: u32,
    secret: *const u8,
    secret_len: usize,
    private_key: *mut pt_buffer,
    public_key: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [private_key.cast(), public_key.cast()];
        let (sk, pk) = (out_buffer(private_key), out_buffer(public_key));
        let (sk, pk) = (sk?, pk?);
        distinct(&outputs)?;
        // SAFETY: `(secret, secret_len)` is readable for the call (header contract).
        let s = unsafe { bytes(secret, secret_len) }?;
        key_pair_out(
            derive_key_from_secret(method(method_id)?, key_id, s)?,
            sk,
            pk,
        );
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The Trust Token issuer (`TRUST_TOKEN_ISSUER`): up to 6 (VOPRF) or 3 (PMB) private keys,
/// selected by key id. Holds secret keys: `pt_trust_token_issuer_free` wipes them. Thread
/// safety: `pt_trust_token_issuer_add_key` needs the issuer to itself; issue, redeem and
/// `_public_keys` may run on several threads at once.
pub struct pt_trust_token_issuer {
    inner: Issuer,
}

/// Frees (and wipes) a Trust Token issuer.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuer_free(handle: *mut pt_trust_token_issuer) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// An issuer for `method` (`PT_METHOD_*`) signing at most `max_batchsize` tokens per request
/// (`TRUST_TOKEN_ISSUER_new`), with no key yet.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuer_new(
    method_id: u8,
    max_batchsize: u16,
    out: *mut *mut pt_trust_token_issuer,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        o.set(pt_trust_token_issuer {
            inner: Issuer::new(method(method_id)?, max_batchsize),
        });
        Ok(())
    })
}

/// Adds a private key blob (`TRUST_TOKEN_ISSUER_add_key`). `PT_UNSUPPORTED_VALUE` when the
/// issuer is full or already holds that key id, decoding codes for a bad blob.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuer_add_key(
    issuer: *mut pt_trust_token_issuer,
    private_key: *const u8,
    private_key_len: usize,
) -> pt_status {
    guard(|| {
        // SAFETY: a live issuer used by no other thread; the blob readable (header contract).
        let (i, k) = unsafe { (handle_mut(issuer)?, bytes(private_key, private_key_len)?) };
        Ok(i.inner.add_key_bytes(k)?)
    })
}

/// The public key blobs of the keys held, in the order they were added (the key commitment).
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuer_public_keys(
    issuer: *const pt_trust_token_issuer,
    public_keys: *mut pt_buffer_list,
) -> pt_status {
    guard(|| {
        let o = out_list(public_keys)?;
        // SAFETY: a live issuer handle (header contract).
        let i = unsafe { handle(issuer) }?;
        *o = pt_buffer_list::new(i.inner.public_keys().iter().map(PublicKey::to_bytes));
        Ok(())
    })
}

/// Signs an issue request with key `key_id`, embedding `private_metadata` (0: not set, any
/// other value: set; an integer rather than a `bool`, so that any value a caller passes is
/// defined; PMB methods only; `TRUST_TOKEN_ISSUER_issue`): the issue response and `*issued`, the number of tokens signed
/// (`min(requested, max_issuance, max_batchsize)`). `PT_UNSUPPORTED_VALUE` for an unknown key
/// id or a set bit with a VOPRF method, `PT_BATCH` when nothing would be issued, decoding codes
/// for a malformed request.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuer_issue(
    issuer: *const pt_trust_token_issuer,
    request: *const u8,
    request_len: usize,
    key_id: u32,
    private_metadata: u8,
    max_issuance: u16,
    response: *mut pt_buffer,
    issued: *mut u16,
) -> pt_status {
    guard(|| {
        let outputs = [response.cast(), issued.cast()];
        let (o, n) = (out_buffer(response), out_value(issued, 0));
        let (o, n) = (o?, n?);
        distinct(&outputs)?;
        // SAFETY: a live issuer; the request readable (header contract).
        let (i, req) = unsafe { (handle(issuer)?, bytes(request, request_len)?) };
        let r = i.inner.issue(
            req,
            key_id,
            private_metadata != 0,
            max_issuance,
            &mut crate::ffi::rng()?,
        )?;
        (*o, *n) = (pt_buffer::new(&r.message), r.issued);
        Ok(())
    })
}

/// Redeems a redemption request (`TRUST_TOKEN_ISSUER_redeem`): the signing key's id, the
/// private metadata bit (false for VOPRF methods), the token's 64-byte nonce (the double-spend
/// identifier to record) and the client data. `PT_INVALID_PROOF` for a token this issuer did
/// not sign, `PT_UNSUPPORTED_VALUE` for an unknown key id, `PT_INVALID_LENGTH` for a malformed
/// request.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuer_redeem(
    issuer: *const pt_trust_token_issuer,
    request: *const u8,
    request_len: usize,
    key_id: *mut u32,
    private_metadata: *mut bool,
    nonce: *mut pt_buffer,
    client_data: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [
            key_id.cast(),
            private_metadata.cast(),
            nonce.cast(),
            client_data.cast(),
        ];
        let (k, b) = (out_value(key_id, 0), out_value(private_metadata, false));
        let (n, d) = (out_buffer(nonce), out_buffer(client_data));
        let (k, b, n, d) = (k?, b?, n?, d?);
        distinct(&outputs)?;
        // SAFETY: a live issuer; the request readable (header contract).
        let (i, req) = unsafe { (handle(issuer)?, bytes(request, request_len)?) };
        let r = i.inner.redeem(req)?;
        (*k, *b) = (r.key_id, r.private_metadata);
        (*n, *d) = (pt_buffer::new(&r.nonce), pt_buffer::new(&r.client_data));
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Client

/// The Trust Token client (`TRUST_TOKEN_CLIENT`): issuer public keys, issuance and redemption
/// requests. Public data. Thread safety: `pt_trust_token_client_add_key` needs the client to
/// itself; the other functions may run on several threads at once.
pub struct pt_trust_token_client {
    inner: Client,
}

/// Frees a Trust Token client.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_client_free(handle: *mut pt_trust_token_client) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// A client for `method` requesting at most `max_batchsize` tokens at a time
/// (`TRUST_TOKEN_CLIENT_new`), with no key yet.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_client_new(
    method_id: u8,
    max_batchsize: u16,
    out: *mut *mut pt_trust_token_client,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        o.set(pt_trust_token_client {
            inner: Client::new(method(method_id)?, max_batchsize),
        });
        Ok(())
    })
}

/// Adds an issuer public key blob (`TRUST_TOKEN_CLIENT_add_key`); `*index` receives its
/// index. `PT_UNSUPPORTED_VALUE` when full or the key id is present, decoding codes for a bad
/// blob.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_client_add_key(
    client: *mut pt_trust_token_client,
    public_key: *const u8,
    public_key_len: usize,
    index: *mut usize,
) -> pt_status {
    guard(|| {
        let o = out_value(index, 0)?;
        // SAFETY: a live client used by no other thread; the blob readable (header contract).
        let (c, k) = unsafe { (handle_mut(client)?, bytes(public_key, public_key_len)?) };
        *o = c.inner.add_key_bytes(k)?;
        Ok(())
    })
}

/// The client's secret state between `pt_trust_token_client_begin_issuance` and
/// `pt_trust_token_client_finish_issuance` (the blinds). A successful finish consumes it; a
/// failed one leaves it usable for the right response. `pt_trust_token_issuance_state_free`
/// wipes it. Thread safety: one thread at a time.
pub struct pt_trust_token_issuance_state {
    inner: Option<IssuanceState>,
}

/// Frees (and wipes) an issuance state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuance_state_free(
    handle: *mut pt_trust_token_issuance_state,
) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// Blinds `count` fresh nonces (`TRUST_TOKEN_CLIENT_begin_issuance`; `count` is capped at the
/// client's `max_batchsize`): the issue request to send, and the secret state. `PT_BATCH` for a
/// count of zero.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_client_begin_issuance(
    client: *const pt_trust_token_client,
    count: u16,
    request: *mut pt_buffer,
    state: *mut *mut pt_trust_token_issuance_state,
) -> pt_status {
    guard(|| {
        let outputs = [request.cast(), state.cast()];
        let (o, s) = (out_buffer(request), out_handle(state));
        let (o, s) = (o?, s?);
        distinct(&outputs)?;
        // SAFETY: a live client handle (header contract).
        let c = unsafe { handle(client) }?;
        let r = c
            .inner
            .begin_issuance(usize::from(count), &mut crate::ffi::rng()?)?;
        *o = pt_buffer::new(&r.message);
        s.set(pt_trust_token_issuance_state {
            inner: Some(r.state),
        });
        Ok(())
    })
}

/// Verifies an issue response and unblinds its tokens (`TRUST_TOKEN_CLIENT_finish_issuance`):
/// the tokens (**secret** until redeemed), perhaps fewer than requested. The state is
/// consumed on success (a second call is `PT_STATE_CONSUMED`); on failure (`PT_INVALID_PROOF`,
/// `PT_UNSUPPORTED_VALUE` for an unknown key id, `PT_BATCH`, decoding codes) it is untouched.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_client_finish_issuance(
    client: *const pt_trust_token_client,
    state: *mut pt_trust_token_issuance_state,
    response: *const u8,
    response_len: usize,
    tokens: *mut pt_buffer_list,
) -> pt_status {
    guard(|| {
        let o = out_list(tokens)?;
        // The header's contract: a live client, a live state used by no other thread, the
        // response readable.
        // SAFETY: each pointer is valid as the header's contract above says.
        let (c, st, resp) = unsafe {
            (
                handle(client)?,
                handle_mut(state)?,
                bytes(response, response_len)?,
            )
        };
        let s = take_wiped(&mut st.inner).ok_or(Fail(PT_STATE_CONSUMED))?;
        match c.inner.finish_issuance(s, resp) {
            Ok(list) => {
                *o = pt_buffer_list::new(list.iter().map(Token::as_bytes));
                Ok(())
            }
            Err(e) => {
                st.inner = Some(e.state);
                Err(e.error.into())
            }
        }
    })
}

/// The storage encoding of an unfinished issuance state, **secret**: keep it to finish the
/// issuance in a later session (`pt_trust_token_issuance_state_from_bytes`).
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuance_state_to_bytes(
    state: *const pt_trust_token_issuance_state,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(out)?;
        // SAFETY: a live state handle (header contract).
        let st = unsafe { handle(state) }?;
        let s = st.inner.as_ref().ok_or(Fail(PT_STATE_CONSUMED))?;
        *o = pt_buffer::new(&s.to_secret_bytes());
        Ok(())
    })
}

/// Strict decoding of `pt_trust_token_issuance_state_to_bytes`'s output.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_issuance_state_from_bytes(
    state: *const u8,
    state_len: usize,
    out: *mut *mut pt_trust_token_issuance_state,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(state, state_len)` is readable for the call (header contract).
        let b = unsafe { bytes(state, state_len) }?;
        o.set(pt_trust_token_issuance_state {
            inner: Some(IssuanceState::from_secret_bytes(b)?),
        });
        Ok(())
    })
}

/// The redemption request for a token (`TRUST_TOKEN_CLIENT_begin_redemption`): `u16 len ‖
/// token ‖ u16 len ‖ client_data`. `PT_INVALID_LENGTH` for bytes that are not a token (checked
/// strictly), `PT_INPUT_TOO_LONG` for client data of 65536 bytes or more.
#[no_mangle]
pub unsafe extern "C" fn pt_trust_token_client_begin_redemption(
    client: *const pt_trust_token_client,
    token: *const u8,
    token_len: usize,
    client_data: *const u8,
    client_data_len: usize,
    request: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(request)?;
        // SAFETY: a live client; the token and client data readable (header contract).
        let (c, t, d) = unsafe {
            (
                handle(client)?,
                bytes(token, token_len)?,
                bytes(client_data, client_data_len)?,
            )
        };
        let t = Token::decode(t)?;
        *o = pt_buffer::new(&c.inner.begin_redemption(&t, d)?);
        Ok(())
    })
}
