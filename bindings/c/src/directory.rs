//! The issuer directory (RFC 9578 §4): the JSON an issuer serves at
//! `/.well-known/private-token-issuer-directory`, with its `issuer-request-uri` and its
//! `token-keys`. A client that takes the token key from here rather than from the origin's
//! challenge gets key consistency: the origin cannot tag it with a key of its own (review
//! BND-14; the WebAssembly package's `parseIssuerDirectory`).

use core::ffi::c_char;

use privacy_tokens::http;
use privacy_tokens::Error;

use crate::ffi::*;

/// One entry of `token-keys`.
#[derive(Debug)]
struct Key {
    token_type: u16,
    key: Vec<u8>,
    not_before: Option<u64>,
}

/// A parsed issuer directory: its `issuer-request-uri` and its `token-keys` in directory order
/// (unknown token types included). From `pt_parse_issuer_directory`, freed with
/// `pt_issuer_directory_free`. Public data; read-only after creation, so any number of threads
/// may read it at once.
#[derive(Debug)]
pub struct pt_issuer_directory {
    request_uri: String,
    keys: Vec<Key>,
}

/// Frees an issuer directory.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_issuer_directory_free(handle: *mut pt_issuer_directory) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

fn bad() -> Fail {
    Error::InvalidEncoding.into()
}

fn parse(text: &str) -> R<pt_issuer_directory> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
    let request_uri = v
        .get("issuer-request-uri")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(bad)?
        .to_owned();
    let keys = v
        .get("token-keys")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(bad)?
        .iter()
        .map(|k| {
            let token_type = k
                .get("token-type")
                .and_then(serde_json::Value::as_u64)
                .and_then(|t| u16::try_from(t).ok())
                .ok_or_else(bad)?;
            let key = k
                .get("token-key")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(bad)?;
            let key = http::base64url_decode(key)?;
            let not_before = match k.get("not-before") {
                None | Some(serde_json::Value::Null) => None,
                Some(n) => Some(n.as_u64().ok_or_else(bad)?),
            };
            Ok(Key {
                token_type,
                key,
                not_before,
            })
        })
        .collect::<R<Vec<Key>>>()?;
    Ok(pt_issuer_directory { request_uri, keys })
}

/// Parses an issuer directory (text, JSON): `{"issuer-request-uri": "...", "token-keys":
/// [{"token-type": 1, "token-key": "<base64url>", "not-before": 1686913811}, ...]}`, other
/// members ignored. `PT_INVALID_ENCODING` for text that is not such a JSON object (a missing
/// or mistyped member, a `token-key` that is not base64url) or not UTF-8.
#[no_mangle]
pub unsafe extern "C" fn pt_parse_issuer_directory(
    json: *const c_char,
    json_len: usize,
    out: *mut *mut pt_issuer_directory,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: `(json, json_len)` is readable for the call (header contract).
        let text = unsafe { text(json, json_len) }?;
        out.set(parse(text)?);
        Ok(())
    })
}

/// The `issuer-request-uri` (text): where token requests are POSTed.
#[no_mangle]
pub unsafe extern "C" fn pt_issuer_directory_request_uri(
    directory: *const pt_issuer_directory,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(directory, out, |d| Ok(d.request_uri.as_bytes().to_vec()))
}

/// How many entries `token-keys` has.
#[no_mangle]
pub unsafe extern "C" fn pt_issuer_directory_key_count(
    directory: *const pt_issuer_directory,
    count: *mut usize,
) -> pt_status {
    read_value(directory, count, 0, |d| Ok(d.keys.len()))
}

/// The entry of `token-keys` at `index`: its token type and its key (decoded: the bytes
/// `pt_create_token_request` and `pt_create_credential_request` take as `token_key`).
/// `PT_INVALID_ARGUMENT` for an index past the end.
#[no_mangle]
pub unsafe extern "C" fn pt_issuer_directory_key(
    directory: *const pt_issuer_directory,
    index: usize,
    token_type: *mut u16,
    token_key: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [token_type.cast(), token_key.cast()];
        let (t, k) = (out_value(token_type, 0), out_buffer(token_key));
        let (t, k) = (t?, k?);
        distinct(&outputs)?;
        // SAFETY: a live directory handle (header contract).
        let d = unsafe { handle(directory) }?;
        let e = d.keys.get(index).ok_or(Fail(PT_INVALID_ARGUMENT))?;
        *t = e.token_type;
        *k = pt_buffer::new(&e.key);
        Ok(())
    })
}

/// The `not-before` of the entry at `index` (Unix time, seconds); `PT_ABSENT` when the entry
/// has none, `PT_INVALID_ARGUMENT` for an index past the end.
#[no_mangle]
pub unsafe extern "C" fn pt_issuer_directory_key_not_before(
    directory: *const pt_issuer_directory,
    index: usize,
    not_before: *mut u64,
) -> pt_status {
    read_value(directory, not_before, 0, |d| {
        d.keys
            .get(index)
            .ok_or(Fail(PT_INVALID_ARGUMENT))?
            .not_before
            .ok_or(Fail(PT_ABSENT))
    })
}

/// The key to use for `token_type` at time `now` (Unix seconds): the first entry of that type,
/// in directory order, whose `not-before` is absent or at most `now`. `PT_ABSENT` when there is
/// none. Pass it as the `token_key` of `pt_create_token_request` (or
/// `pt_create_credential_request`) rather than `NULL` (the origin's `token-key`).
#[no_mangle]
pub unsafe extern "C" fn pt_issuer_directory_find_key(
    directory: *const pt_issuer_directory,
    token_type: u16,
    now: u64,
    token_key: *mut pt_buffer,
) -> pt_status {
    read_buffer(directory, token_key, |d| {
        d.keys
            .iter()
            .find(|k| k.token_type == token_type && k.not_before.is_none_or(|n| n <= now))
            .map(|k| k.key.clone())
            .ok_or(Fail(PT_ABSENT))
    })
}
