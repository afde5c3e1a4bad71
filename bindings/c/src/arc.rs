//! ARC (anonymous rate-limited credentials), the Privacy Pass binding 0xE5AC
//! (draft-ietf-privacypass-arc-protocol on draft-ietf-privacypass-arc-crypto-01, P-256):
//! credential requests, credentials with their presentation counters, and the issuer.

use core::ffi::c_char;

use privacy_tokens::arc::privacy_pass::{
    self as arc_pp, Client, ClientState, CredentialRequest, CredentialResponse, Issuer,
};
use privacy_tokens::arc::{ArcV2P256, Credential, ServerPrivateKey, ServerPublicKey};
use privacy_tokens::Error;
use zeroize::Zeroizing;

use crate::challenge::{pt_challenge, PT_TOKEN_TYPE_ARC};
use crate::ffi::*;

/// The ARC fields of a challenge: `PT_UNSUPPORTED_VALUE` for another token type.
fn arc_challenge(c: &pt_challenge) -> R<&arc_pp::TokenChallenge> {
    if c.token_type() != PT_TOKEN_TYPE_ARC {
        return Err(Error::UnsupportedValue.into());
    }
    c.arc()
}

/// The issuer key: the caller's, else the challenge's `token-key`.
fn issuer_key(c: &pt_challenge, given: Option<&[u8]>) -> R<ServerPublicKey<ArcV2P256>> {
    Ok(ServerPublicKey::<ArcV2P256>::from_bytes(c.key(given)?)?)
}

/// The rate limit: the caller's (non-zero), else the challenge's `rate-limit`.
fn rate_limit(c: &pt_challenge, given: u32) -> R<u32> {
    if given != 0 {
        return Ok(given);
    }
    c.rate_limit.ok_or(Fail(PT_MISSING_KEY))
}

/// The client's secret state between a credential request and the issuer's response.
/// `pt_credential_request_state_finalize` consumes its contents; `_free` wipes it. Thread
/// safety: one thread at a time.
pub struct pt_credential_request_state {
    inner: Option<ClientState>,
}

/// Frees (and wipes) a credential request state.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_credential_request_state_free(
    handle: *mut pt_credential_request_state,
) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// A credential request for an ARC challenge (`createCredentialRequest`): POST `*body` to the
/// issuer with `Content-Type: *content_type` (`application/private-credential-request`, a
/// static string), then `pt_credential_request_state_finalize` gives the credential.
/// `token_key` (NULL: the challenge's `token-key`) is the issuer's ARC key.
/// `PT_UNSUPPORTED_VALUE` for a challenge of another type, `PT_MISSING_KEY` without a key.
#[no_mangle]
pub unsafe extern "C" fn pt_create_credential_request(
    challenge: *const pt_challenge,
    token_key: *const u8,
    token_key_len: usize,
    body: *mut pt_buffer,
    content_type: *mut *const c_char,
    state: *mut *mut pt_credential_request_state,
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
        let a = arc_challenge(c)?;
        let pk = issuer_key(c, key)?;
        let (req, st) = Client::request(a, &pk, &mut crate::ffi::rng()?)?;
        *body = pt_buffer::new(&req.to_bytes());
        *ct = cstr(c"application/private-credential-request");
        state.set(pt_credential_request_state { inner: Some(st) });
        Ok(())
    })
}

/// The credential, from the issuer's response body (its proof is verified). A malformed body
/// leaves the state usable; a decoded one consumes it (`PT_INVALID_PROOF` if the proof
/// fails); a second call is `PT_STATE_CONSUMED`.
#[no_mangle]
pub unsafe extern "C" fn pt_credential_request_state_finalize(
    state: *mut pt_credential_request_state,
    response: *const u8,
    response_len: usize,
    credential: *mut *mut pt_credential,
) -> pt_status {
    guard(|| {
        let out = out_handle(credential)?;
        // SAFETY: a live state used by no other thread; the response readable (header contract).
        let (st, body) = unsafe { (handle_mut(state)?, bytes(response, response_len)?) };
        if st.inner.is_none() {
            return Err(Fail(PT_STATE_CONSUMED));
        }
        let resp = CredentialResponse::from_bytes(body)?;
        let s = take_wiped(&mut st.inner).ok_or(Fail(PT_STATE_CONSUMED))?;
        out.set(pt_credential {
            inner: s.finalize(&resp)?,
        });
        Ok(())
    })
}

/// Whether `pt_credential_request_state_finalize` was already called with a decodable body.
#[no_mangle]
pub unsafe extern "C" fn pt_credential_request_state_consumed(
    state: *const pt_credential_request_state,
    consumed: *mut bool,
) -> pt_status {
    read_value(state, consumed, false, |s| Ok(s.inner.is_none()))
}

/// An ARC credential **and its presentation counters** (one per challenge it has presented
/// for). Secret: it is the key to every presentation. Keep exactly one live copy: persist
/// `pt_credential_to_bytes` after each `pt_credential_present` and before sending the token
/// (restoring an older copy reuses nonces, which the origin rejects as double spends).
/// `pt_credential_free` wipes it. Thread safety: `pt_credential_present` needs the credential
/// to itself; the other functions may share it.
pub struct pt_credential {
    inner: Credential<ArcV2P256>,
}

/// Frees (and wipes) a credential.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_credential_free(handle: *mut pt_credential) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// The next token (serialized, type 0xE5AC; a bearer secret until spent) for `challenge`, up
/// to its rate limit (`rate_limit`, or 0 for the challenge's `rate-limit`); asking again for
/// the same challenge continues its counter. `token_key` NULL: the challenge's `token-key`.
/// `PT_LIMIT_EXCEEDED` once the limit is used up, `PT_MISSING_KEY` without an issuer key or a
/// rate limit.
#[no_mangle]
pub unsafe extern "C" fn pt_credential_present(
    credential: *mut pt_credential,
    challenge: *const pt_challenge,
    token_key: *const u8,
    token_key_len: usize,
    rate_limit_in: u32,
    token: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let out = out_buffer(token)?;
        // The header's contract: a live credential used by no other thread, a live challenge,
        // the key readable.
        // SAFETY: each pointer is valid as the header's contract above says.
        let (cred, c, key) = unsafe {
            (
                handle_mut(credential)?,
                handle(challenge)?,
                opt_bytes(token_key, token_key_len)?,
            )
        };
        let a = arc_challenge(c)?;
        let pk = issuer_key(c, key)?;
        let limit = rate_limit(c, rate_limit_in)?;
        let mut rng = crate::ffi::rng()?;
        let mut st = Client::token_state(&mut cred.inner, a, &pk, limit)?;
        let t = st.token(&mut rng)?;
        *out = pt_buffer::new(&token_bytes(&t)?);
        Ok(())
    })
}

/// The serialization of an ARC token, as `Token::to_bytes` gives it, with no unwiped copy:
/// `to_bytes` builds the presentation's encoding in a temporary vector it frees unwiped.
pub(crate) fn token_bytes(t: &arc_pp::Token) -> R<Zeroizing<Vec<u8>>> {
    let p = t.presentation();
    let mut out = Zeroizing::new(vec![0u8; 70 + p.encoded_len()]);
    out[..2].copy_from_slice(&PT_TOKEN_TYPE_ARC.to_be_bytes());
    // Bytes 2..6, the presentation nonce, are written as 0 (as `to_bytes` does).
    out[6..38].copy_from_slice(t.challenge_digest());
    out[38..70].copy_from_slice(t.issuer_key_id());
    p.encode_into(&mut out[70..])?;
    Ok(out)
}

/// How many presentations are left for `challenge` (its full rate limit if none was made);
/// `token_key` and `rate_limit` as for `pt_credential_present`.
#[no_mangle]
pub unsafe extern "C" fn pt_credential_remaining(
    credential: *const pt_credential,
    challenge: *const pt_challenge,
    token_key: *const u8,
    token_key_len: usize,
    rate_limit_in: u32,
    remaining: *mut u32,
) -> pt_status {
    guard(|| {
        let out = out_value(remaining, 0)?;
        // SAFETY: a live credential and challenge, the key readable (header contract).
        let (cred, c, key) = unsafe {
            (
                handle(credential)?,
                handle(challenge)?,
                opt_bytes(token_key, token_key_len)?,
            )
        };
        let a = arc_challenge(c)?;
        let pk = issuer_key(c, key)?;
        let limit = rate_limit(c, rate_limit_in)?;
        let ctx = a.presentation_context(&arc_pp::issuer_key_id(&pk));
        *out = cred
            .inner
            .contexts()
            .find(|(k, _, _)| *k == ctx.as_slice())
            .map_or(limit, |(_, l, used)| l.saturating_sub(used));
        Ok(())
    })
}

/// The storage encoding (key material and every counter), **secret**. Restore it with
/// `pt_credential_from_bytes` in the next session; the counters continue.
#[no_mangle]
pub unsafe extern "C" fn pt_credential_to_bytes(
    credential: *const pt_credential,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(out)?;
        // SAFETY: a live credential handle (header contract).
        *o = pt_buffer::new(&unsafe { handle(credential) }?.inner.to_bytes());
        Ok(())
    })
}

/// Strict decoding of `pt_credential_to_bytes`'s output.
#[no_mangle]
pub unsafe extern "C" fn pt_credential_from_bytes(
    credential: *const u8,
    credential_len: usize,
    out: *mut *mut pt_credential,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(credential, credential_len)` is readable for the call (header contract).
        let b = unsafe { bytes(credential, credential_len) }?;
        o.set(pt_credential {
            inner: Credential::from_bytes(b)?,
        });
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The ARC issuer (`ArcIssuer`) and, since ARC tokens are privately verifiable, their
/// verifier at the origin. Holds the secret key: `pt_arc_issuer_free` wipes it. Read-only
/// after creation: any number of threads may use it at once.
pub struct pt_arc_issuer {
    inner: Issuer,
}

/// Frees (and wipes) an ARC issuer.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_free(handle: *mut pt_arc_issuer) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// An issuer with a fresh random key.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_generate(out: *mut *mut pt_arc_issuer) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        o.set(pt_arc_issuer {
            inner: Issuer::new(ServerPrivateKey::random(&mut crate::ffi::rng()?)),
        });
        Ok(())
    })
}

/// An issuer from `pt_arc_issuer_secret_key`'s bytes.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_from_secret_key(
    secret_key: *const u8,
    secret_key_len: usize,
    out: *mut *mut pt_arc_issuer,
) -> pt_status {
    guard(|| {
        let o = out_handle(out)?;
        // SAFETY: `(secret_key, secret_key_len)` is readable for the call (header contract).
        let b = unsafe { bytes(secret_key, secret_key_len) }?;
        o.set(pt_arc_issuer {
            inner: Issuer::new(ServerPrivateKey::from_bytes(b)?),
        });
        Ok(())
    })
}

/// The secret key's bytes, **secret**.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_secret_key(
    issuer: *const pt_arc_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| Ok(i.inner.private_key().to_bytes()))
}

/// The public key, as challenges' `token-key` carries it.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_token_key(
    issuer: *const pt_arc_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| Ok(i.inner.public_key().to_bytes()))
}

/// `SHA-256(token key)`, 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_token_key_id(
    issuer: *const pt_arc_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| Ok(*i.inner.key_id()))
}

/// Answers a credential request body: `*body` with `Content-Type: *content_type`
/// (`application/private-credential-response`, a static string). `PT_UNSUPPORTED_VALUE` for
/// another key id, `PT_INVALID_PROOF` for a request whose proof fails, decoding codes
/// otherwise.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_issue(
    issuer: *const pt_arc_issuer,
    request: *const u8,
    request_len: usize,
    body: *mut pt_buffer,
    content_type: *mut *const c_char,
) -> pt_status {
    guard(|| {
        let outputs = [body.cast(), content_type.cast()];
        let (o, ct) = (out_buffer(body), out_value(content_type, core::ptr::null()));
        let (o, ct) = (o?, ct?);
        distinct(&outputs)?;
        // SAFETY: a live issuer; the request readable (header contract).
        let (i, req) = unsafe { (handle(issuer)?, bytes(request, request_len)?) };
        let req = CredentialRequest::from_bytes(req)?;
        let resp = i.inner.issue(&req, &mut crate::ffi::rng()?)?;
        *o = pt_buffer::new(&resp.to_bytes());
        *ct = cstr(c"application/private-credential-response");
        Ok(())
    })
}

/// Verifies a token against the challenge this origin sent and its rate limit (`rate_limit`,
/// or 0 for the challenge's), and returns the **tag**, the double-spend key: reject a token
/// whose tag was already seen for this challenge (never deduplicate on the token bytes, which
/// are malleable). `PT_UNSUPPORTED_VALUE` for another key or challenge, `PT_INVALID_PROOF` for
/// a bad presentation.
#[no_mangle]
pub unsafe extern "C" fn pt_arc_issuer_verify(
    issuer: *const pt_arc_issuer,
    token: *const u8,
    token_len: usize,
    challenge: *const pt_challenge,
    rate_limit_in: u32,
    tag: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(tag)?;
        // SAFETY: a live issuer and challenge; the token readable (header contract).
        let (i, t, c) = unsafe {
            (
                handle(issuer)?,
                bytes(token, token_len)?,
                handle(challenge)?,
            )
        };
        let t = arc_pp::Token::from_bytes(t)?;
        let a = arc_challenge(c)?;
        let limit = rate_limit(c, rate_limit_in)?;
        *o = pt_buffer::new(&i.inner.verify(&t, a, limit)?.to_bytes());
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_bytes_is_to_bytes() {
        let mut rng = <crate::ffi::Rng as rand::SeedableRng>::from_seed([9; 32]);
        let issuer = Issuer::new(ServerPrivateKey::random(&mut rng));
        let c = arc_pp::TokenChallenge::new(b"issuer.example", &[], b"origin", &[]).expect("c");
        let (req, st) = Client::request(&c, issuer.public_key(), &mut rng).expect("request");
        let resp = issuer.issue(&req, &mut rng).expect("issue");
        let mut cred = st.finalize(&resp).expect("credential");
        let mut ts =
            Client::token_state(&mut cred, &c, issuer.public_key(), 3).expect("token state");
        for _ in 0..2 {
            let t = ts.token(&mut rng).expect("token");
            assert_eq!(*token_bytes(&t).expect("encodes"), t.to_bytes());
        }
    }
}
