//! Privacy Pass publicly verifiable tokens: type 0x0002 (blind RSA, RFC 9578 §6) and type
//! 0xDA7A (partially blind RSA with public metadata, draft-ietf-privacypass-public-metadata-
//! issuance), whose metadata is an encoded `Extensions` list.
//!
//! The client is `pt_create_token_request` (0x0002) or `pt_create_extended_token_request`
//! (0xDA7A), then `pt_token_request_state_finalize`; the issuer is [`pt_blind_rsa_issuer`];
//! the origin verifies with the public key alone (`pt_blind_rsa_verify_token`).

use core::ffi::c_char;

use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use privacy_tokens::blind_rsa::SecretKey;
use privacy_tokens::Error;
use zeroize::Zeroizing;

use crate::challenge::{pt_challenge, PT_TOKEN_TYPE_2, PT_TOKEN_TYPE_DA7A};
use crate::ffi::*;
use crate::privacy_pass::{pt_token_request_state, request_out, wipe, RequestState};

// ---------------------------------------------------------------------------------------------
// Client

/// A blind RSA request: type 0x0002 without `extensions`, 0xDA7A with them.
pub(crate) fn make_request(
    c: &pt_challenge,
    key: Option<&[u8]>,
    extensions: Option<&[u8]>,
) -> R<(Vec<u8>, pt_token_request_state)> {
    let key = rsa_pp::TokenKey::from_spki(c.key(key)?)?;
    let mut rng = crate::ffi::rng()?;
    let (body, st, t) = match extensions {
        None => {
            let (req, st) = rsa_pp::Client::request(&key, &c.bytes, &mut rng)?;
            (req.to_bytes(), st, PT_TOKEN_TYPE_2)
        }
        Some(e) => {
            let e = rsa_pp::Extensions::from_bytes(e)?;
            let (req, st) = rsa_pp::Client::request_with_extensions(&key, &c.bytes, &e, &mut rng)?;
            (req.to_bytes(), st, PT_TOKEN_TYPE_DA7A)
        }
    };
    Ok((
        body,
        pt_token_request_state {
            inner: Some(RequestState::Rsa(st)),
            count: 1,
            token_type: t,
        },
    ))
}

/// A token request for a challenge of type 0xDA7A (partially blind RSA) bound to `extensions`
/// (the encoded `Extensions`, from `pt_extensions_encode`; required), which the request carries
/// to the issuer and the origin needs again to verify the token. Outputs as
/// `pt_create_token_request` (one token; `application/private-token-request`); `token_key`
/// (NULL: the challenge's `token-key`) is the RSA-PSS SubjectPublicKeyInfo DER.
///
/// `PT_UNSUPPORTED_VALUE` for a challenge of another type, `PT_MISSING_KEY` without a key,
/// `PT_INVALID_KEY` for a bad key, `PT_INVALID_LENGTH`/`PT_INVALID_ENCODING` for extensions
/// that do not decode.
#[no_mangle]
pub unsafe extern "C" fn pt_create_extended_token_request(
    challenge: *const pt_challenge,
    token_key: *const u8,
    token_key_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    body: *mut pt_buffer,
    content_type: *mut *const c_char,
    state: *mut *mut pt_token_request_state,
) -> pt_status {
    guard(|| {
        let outputs = [body.cast(), content_type.cast(), state.cast()];
        let (body, ct, state) = (
            out_buffer(body),
            out_value(content_type, core::ptr::null()),
            out_handle(state),
        );
        let (body, ct, state) = (body?, ct?, state?);
        distinct(&outputs)?;
        // SAFETY: a live challenge; both `(ptr, len)` pairs readable (header contract).
        let (c, key, ext) = unsafe {
            (
                handle(challenge)?,
                opt_bytes(token_key, token_key_len)?,
                bytes(extensions, extensions_len)?,
            )
        };
        if c.token_type() != PT_TOKEN_TYPE_DA7A {
            return Err(Error::UnsupportedValue.into());
        }
        let (b, st) = make_request(c, key, Some(ext))?;
        request_out(body, ct, &b, false);
        state.set(st);
        Ok(())
    })
}

/// The `Extensions` structure (draft-ietf-privacypass-auth-scheme-extensions) of `count`
/// extensions: `types[i]` and `data[i]`, sorted by type (stably). `PT_INPUT_TOO_LONG` when
/// the encoding exceeds 65535 bytes. `types` and `data` may be NULL when `count` is 0.
#[no_mangle]
pub unsafe extern "C" fn pt_extensions_encode(
    types: *const u16,
    data: *const pt_slice,
    count: usize,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let out = out_buffer(out)?;
        let max = rsa_pp::MAX_EXTENSIONS_LEN / 4;
        if count > max {
            return Err(Error::InputTooLong.into());
        }
        // SAFETY: `count` readable slices (header contract; checked against NULL).
        let data = unsafe { slices(data, count, max) }?;
        let types: &[u16] = if count == 0 {
            &[]
        } else if types.is_null() {
            return fail(PT_NULL_ARGUMENT);
        } else {
            // SAFETY: non-NULL, `count` readable aligned `uint16_t`s (header contract).
            unsafe { core::slice::from_raw_parts(types, count) }
        };
        let list = types
            .iter()
            .zip(data)
            .map(|(t, d)| rsa_pp::Extension {
                extension_type: *t,
                data: d.to_vec(),
            })
            .collect();
        *out = pt_buffer::new(rsa_pp::Extensions::new(list)?.as_bytes());
        Ok(())
    })
}

/// The extensions (their encoding) a type 0xDA7A token request carries, for the issuer's
/// policy before `pt_blind_rsa_issuer_issue`. The decoding codes for a body that is not an
/// `ExtendedTokenRequest`.
#[no_mangle]
pub unsafe extern "C" fn pt_extended_token_request_extensions(
    request: *const u8,
    request_len: usize,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let out = out_buffer(out)?;
        // SAFETY: `(request, request_len)` readable (header contract).
        let b = unsafe { bytes(request, request_len) }?;
        let r = rsa_pp::ExtendedTokenRequest::from_bytes(b)?;
        *out = pt_buffer::new(r.extensions().as_bytes());
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The issuer of type 0x0002 or 0xDA7A tokens: an RSA-2048 private key (`e = 65537`; for
/// 0xDA7A made of safe primes). Holds the secret key: `pt_blind_rsa_issuer_free` wipes it.
/// Thread safety: every function but `_free` may run on several threads at once.
pub struct pt_blind_rsa_issuer {
    issuer: rsa_pp::Issuer,
    token_type: u16,
}

/// Frees (and wipes) an issuer.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_free(handle: *mut pt_blind_rsa_issuer) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

fn token_type_arg(t: u16) -> R<u16> {
    match t {
        PT_TOKEN_TYPE_2 | PT_TOKEN_TYPE_DA7A => Ok(t),
        _ => Err(Error::UnsupportedValue.into()),
    }
}

fn new_issuer(out: HandleOut<'_, pt_blind_rsa_issuer>, key: SecretKey, t: u16) -> R {
    let issuer = match t {
        PT_TOKEN_TYPE_DA7A => rsa_pp::Issuer::new_partially_blind(key)?,
        _ => rsa_pp::Issuer::new(key)?,
    };
    out.set(pt_blind_rsa_issuer {
        issuer,
        token_type: t,
    });
    Ok(())
}

/// An issuer of `token_type` (0x0002 or 0xDA7A, else `PT_UNSUPPORTED_VALUE`) from its private
/// key's PEM text (`-----BEGIN PRIVATE KEY-----`, PKCS#8, or `-----BEGIN RSA PRIVATE
/// KEY-----`, PKCS#1). `PT_INVALID_KEY` for a key that is not RSA-2048 with `e = 65537` or
/// whose parts disagree, and for 0xDA7A a key whose primes are not both safe primes (partially
/// blind RSA requires them).
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_from_pem(
    token_type: u16,
    pem: *const c_char,
    pem_len: usize,
    out: *mut *mut pt_blind_rsa_issuer,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: `(pem, pem_len)` readable (header contract).
        let pem = unsafe { text(pem, pem_len) }?;
        let t = token_type_arg(token_type)?;
        new_issuer(out, SecretKey::from_pem(pem)?, t)
    })
}

/// An issuer from its private key's PKCS#8 DER (`pt_blind_rsa_issuer_private_key_der`'s
/// bytes).
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_from_pkcs8_der(
    token_type: u16,
    der: *const u8,
    der_len: usize,
    out: *mut *mut pt_blind_rsa_issuer,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: `(der, der_len)` readable (header contract).
        let der = unsafe { bytes(der, der_len) }?;
        let t = token_type_arg(token_type)?;
        new_issuer(out, SecretKey::from_pkcs8_der(der)?, t)
    })
}

/// A new issuer with a fresh RSA-2048 key: seconds for 0x0002, much longer for 0xDA7A (safe
/// primes).
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_generate(
    token_type: u16,
    out: *mut *mut pt_blind_rsa_issuer,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        let t = token_type_arg(token_type)?;
        let mut rng = crate::ffi::rng()?;
        let key = SecretKey::generate(&mut rng, 2048, t == PT_TOKEN_TYPE_DA7A)?;
        new_issuer(out, key, t)
    })
}

/// The token type it issues (0x0002 or 0xDA7A).
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_token_type(
    issuer: *const pt_blind_rsa_issuer,
    token_type: *mut u16,
) -> pt_status {
    read_value(issuer, token_type, 0, |i| Ok(i.token_type))
}

/// The public key to publish: the SubjectPublicKeyInfo DER (RSASSA-PSS, RFC 9578 §6.5), the
/// issuer directory's `token-key` (base64url-encoded there).
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_token_key(
    issuer: *const pt_blind_rsa_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| Ok(i.issuer.token_key().to_spki().to_vec()))
}

/// `SHA-256(token key)`: the 32-byte key id tokens carry.
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_token_key_id(
    issuer: *const pt_blind_rsa_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| Ok(*i.issuer.token_key().id()))
}

/// The private key as PKCS#8 DER, **secret**: store it as any private key.
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_private_key_der(
    issuer: *const pt_blind_rsa_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| Ok(i.issuer.secret_key().to_pkcs8_der()))
}

/// The private key as PKCS#8 PEM text (not NUL-terminated), **secret**.
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_private_key_pem(
    issuer: *const pt_blind_rsa_issuer,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(issuer, out, |i| {
        Ok(Zeroizing::new(
            i.issuer.secret_key().to_pem().as_bytes().to_vec(),
        ))
    })
}

/// Answers a token request body: the response `*body` to send back with
/// `Content-Type: *content_type_out` (a static string).
///
/// Type 0x0002: `allowed_extensions` must be NULL (`PT_INVALID_ARGUMENT` otherwise). Type
/// 0xDA7A: `allowed_extensions` is the issuer's policy decision, required (NULL is
/// `PT_NULL_ARGUMENT`): the encoded extensions it agrees to sign, typically those
/// `pt_extended_token_request_extensions` read from this request and the issuer checked; a
/// request carrying other extensions is refused with `PT_UNSUPPORTED_VALUE`.
///
/// `PT_INVALID_LENGTH`/`PT_INVALID_ENCODING` for a malformed body, `PT_UNSUPPORTED_VALUE` for
/// another token type or key id, `PT_OUT_OF_RANGE` for a blinded message not below the
/// modulus.
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_issuer_issue(
    issuer: *const pt_blind_rsa_issuer,
    request: *const u8,
    request_len: usize,
    allowed_extensions: *const u8,
    allowed_extensions_len: usize,
    body: *mut pt_buffer,
    content_type_out: *mut *const c_char,
) -> pt_status {
    guard(|| {
        let outputs = [body.cast(), content_type_out.cast()];
        let (body_out, ct_out) = (
            out_buffer(body),
            out_value(content_type_out, core::ptr::null()),
        );
        let (body_out, ct_out) = (body_out?, ct_out?);
        distinct(&outputs)?;
        // SAFETY: a live issuer; both `(ptr, len)` pairs readable (header contract).
        let (i, req, allowed) = unsafe {
            (
                handle(issuer)?,
                bytes(request, request_len)?,
                opt_bytes(allowed_extensions, allowed_extensions_len)?,
            )
        };
        let resp = match (i.token_type, allowed) {
            (PT_TOKEN_TYPE_2, None) => i.issuer.issue(req)?,
            (PT_TOKEN_TYPE_2, Some(_)) => return fail(PT_INVALID_ARGUMENT),
            (_, None) => return fail(PT_NULL_ARGUMENT),
            (_, Some(a)) => i.issuer.issue_extended(req, |e| e.as_bytes() == a)?,
        };
        *body_out = pt_buffer::new(&resp.to_bytes());
        *ct_out = cstr(c"application/private-token-response");
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Origin

/// The body of both verify functions.
#[allow(clippy::too_many_arguments)]
unsafe fn verify_with(
    token_key: *const u8,
    token_key_len: usize,
    token: *const u8,
    token_len: usize,
    challenge: Option<(*const u8, usize)>,
    extensions: *const u8,
    extensions_len: usize,
    valid: *mut bool,
    nonce: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [valid.cast(), nonce.cast()];
        let (out, n) = (out_value(valid, false), out_buffer(nonce));
        let (out, n) = (out?, n?);
        distinct(&outputs)?;
        // SAFETY: every `(ptr, len)` pair readable (header contract).
        let (key, t, c, ext) = unsafe {
            (
                bytes(token_key, token_key_len)?,
                bytes(token, token_len)?,
                match challenge {
                    None => None,
                    Some((p, _)) if p.is_null() => return fail(PT_NULL_ARGUMENT),
                    Some((p, len)) => Some(bytes(p, len)?),
                },
                opt_bytes(extensions, extensions_len)?,
            )
        };
        let key = rsa_pp::TokenKey::from_spki(key)?;
        let ext = ext.map(rsa_pp::Extensions::from_bytes).transpose()?;
        let mut t = rsa_pp::Token::from_bytes(t)?;
        let result = (|| {
            if let Some(c) = c {
                let digest: [u8; 32] = sha2::Digest::finalize(sha2::Digest::chain_update(
                    <sha2::Sha256 as sha2::Digest>::new(),
                    c,
                ))
                .into();
                if t.challenge_digest()[..] != digest {
                    return Ok(false);
                }
            }
            match key.verify(&t, ext.as_ref()) {
                Ok(()) => Ok(true),
                // Another key id or token type, or an authenticator that does not verify.
                Err(Error::UnsupportedValue | Error::InvalidSignature) => Ok(false),
                Err(e) => Err(Fail::from(e)),
            }
        })();
        if result? {
            *n = pt_buffer::new(t.nonce());
            *out = true;
        }
        wipe(&mut t);
        Ok(())
    })
}

/// Verifies a type 0x0002 or 0xDA7A token at the origin (RFC 9578 §6.4; the metadata draft
/// §6.4) with the issuer's public key alone (`token_key`, the SPKI DER of its directory),
/// against the challenge this origin sent (its serialized bytes: required, `NULL` is
/// `PT_NULL_ARGUMENT`) and, for 0xDA7A, the extensions the client sent (`NULL` for 0x0002).
/// `*valid` is true when it verifies, and then `*nonce` receives its 32-byte nonce, **the
/// double-spend key**. `*valid` false for another key, challenge or extensions, or a bad
/// authenticator; `PT_INVALID_INPUT` for a 0xDA7A token without extensions (or a 0x0002 token
/// with them); `PT_INVALID_KEY` for a bad key; the decoding codes for bytes that are not a
/// token.
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_verify_token(
    token_key: *const u8,
    token_key_len: usize,
    token: *const u8,
    token_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    valid: *mut bool,
    nonce: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        verify_with(
            token_key,
            token_key_len,
            token,
            token_len,
            Some((challenge, challenge_len)),
            extensions,
            extensions_len,
            valid,
            nonce,
        )
    }
}

/// As `pt_blind_rsa_verify_token` but **without the challenge check**: any token of this key
/// (and extensions) is valid, whichever challenge it was made for.
#[no_mangle]
pub unsafe extern "C" fn pt_blind_rsa_verify_token_any_challenge(
    token_key: *const u8,
    token_key_len: usize,
    token: *const u8,
    token_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    valid: *mut bool,
    nonce: *mut pt_buffer,
) -> pt_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        verify_with(
            token_key,
            token_key_len,
            token,
            token_len,
            None,
            extensions,
            extensions_len,
            valid,
            nonce,
        )
    }
}
