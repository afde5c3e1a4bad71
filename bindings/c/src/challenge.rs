//! Token challenges (RFC 9577 §2.1) and the `PrivateToken` HTTP headers: `pt_challenge`,
//! `pt_parse_challenges`, `pt_parse_authorization` (and `_with_extensions`),
//! `pt_authorization_header` (and `_with_extensions`), base64url.

use core::ffi::c_char;

use privacy_tokens::arc::privacy_pass as arc_pp;
use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use privacy_tokens::http;
use privacy_tokens::voprf::privacy_pass as pp;
use privacy_tokens::Error;
use sha2::Digest;
use zeroize::Zeroizing;

use crate::ffi::*;

/// Privacy Pass token type 0x0001: VOPRF(P-384, SHA-384), RFC 9578.
pub const PT_TOKEN_TYPE_1: u16 = 0x0001;
/// Privacy Pass token type 0x0005: VOPRF(ristretto255, SHA-512).
pub const PT_TOKEN_TYPE_5: u16 = 0x0005;
/// Privacy Pass token type 0x0002: blind RSA (RSA-2048, SHA-384, PSS), RFC 9578 §6.
pub const PT_TOKEN_TYPE_2: u16 = 0x0002;
/// Privacy Pass token type 0xDA7A: partially blind RSA with public metadata (extensions).
pub const PT_TOKEN_TYPE_DA7A: u16 = 0xDA7A;
/// ARC (P-256), token type 0xE5AC (draft-ietf-privacypass-arc-protocol).
pub const PT_TOKEN_TYPE_ARC: u16 = 0xE5AC;

/// The decoded fields of a challenge, by token type family.
#[derive(Clone, Debug)]
pub(crate) enum Fields {
    /// The RFC 9577 layout (types 0x0001, 0x0005 and any unknown type that parses as it).
    Basic(pp::TokenChallenge),
    /// ARC's layout, with `credential_context`.
    Arc(arc_pp::TokenChallenge),
    /// Bytes that parse as neither.
    Opaque,
}

/// One token challenge: the `TokenChallenge` an origin sends, with the `token-key`, `max-age`
/// and `rate-limit` parameters of its `WWW-Authenticate` line.
///
/// From `pt_parse_challenges`, `pt_challenge_from_bytes` or `pt_challenge_create`; freed with
/// `pt_challenge_free`. Public data. Thread safety: the reading functions (`const
/// pt_challenge *`) may run on several threads at once; the `pt_challenge_set_*` functions
/// need the handle to themselves.
#[derive(Clone, Debug)]
pub struct pt_challenge {
    pub(crate) bytes: Vec<u8>,
    pub(crate) fields: Fields,
    pub(crate) token_key: Option<Vec<u8>>,
    pub(crate) max_age: Option<u64>,
    pub(crate) rate_limit: Option<u32>,
    pub(crate) other: Vec<(String, String)>,
}

/// The token type of serialized challenge bytes: their first two bytes, big-endian (0 for
/// fewer, which no constructor lets through: the parsers drop them, `pt_challenge_from_bytes`
/// refuses them).
fn type_of(bytes: &[u8]) -> u16 {
    match bytes {
        [a, b, ..] => u16::from_be_bytes([*a, *b]),
        _ => 0,
    }
}

impl pt_challenge {
    fn from_parts(bytes: Vec<u8>) -> Self {
        let fields = if type_of(&bytes) == PT_TOKEN_TYPE_ARC {
            arc_pp::TokenChallenge::from_bytes(&bytes).map_or(Fields::Opaque, Fields::Arc)
        } else {
            pp::TokenChallenge::from_bytes(&bytes).map_or(Fields::Opaque, Fields::Basic)
        };
        Self {
            bytes,
            fields,
            token_key: None,
            max_age: None,
            rate_limit: None,
            other: Vec::new(),
        }
    }

    pub(crate) fn token_type(&self) -> u16 {
        type_of(&self.bytes)
    }

    /// The token key given by the caller, else the challenge's own `token-key`;
    /// `PT_MISSING_KEY` without either.
    pub(crate) fn key<'a>(&'a self, given: Option<&'a [u8]>) -> R<&'a [u8]> {
        given
            .or(self.token_key.as_deref())
            .ok_or(Fail(crate::ffi::PT_MISSING_KEY))
    }

    /// The ARC fields: `PT_UNSUPPORTED_VALUE` for another token type.
    pub(crate) fn arc(&self) -> R<&arc_pp::TokenChallenge> {
        match &self.fields {
            Fields::Arc(c) => Ok(c),
            _ => Err(Error::UnsupportedValue.into()),
        }
    }
}

/// Frees a challenge.
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_free(handle: *mut pt_challenge) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// A challenge from its serialized `TokenChallenge` bytes (at least the 2-byte token type,
/// else `PT_INVALID_LENGTH`). Unknown token types and bytes that parse as no known layout are
/// kept, with `pt_challenge_supported` false. Set the header parameters with
/// `pt_challenge_set_token_key`, `_set_max_age`, `_set_rate_limit`.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_from_bytes(
    challenge: *const u8,
    challenge_len: usize,
    out: *mut *mut pt_challenge,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: `(challenge, challenge_len)` is readable for the call (header contract).
        let b = unsafe { bytes(challenge, challenge_len) }?;
        if b.len() < 2 {
            return Err(Error::InvalidLength.into());
        }
        out.set(pt_challenge::from_parts(b.to_vec()));
        Ok(())
    })
}

/// A new challenge, for an origin: `token_type`, `issuer_name` (required, non-empty),
/// `redemption_context` (0 or 32 bytes), `origin_info` (may be empty; origin names joined by
/// commas) and, for ARC (`PT_TOKEN_TYPE_ARC`) only, `credential_context` (0 or 32 bytes; must
/// be empty for other types). `PT_INVALID_LENGTH` for a field of the wrong length,
/// `PT_INVALID_ARGUMENT` for a non-empty `credential_context` with another type than ARC.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_create(
    token_type: u16,
    issuer_name: *const c_char,
    issuer_name_len: usize,
    redemption_context: *const u8,
    redemption_context_len: usize,
    origin_info: *const c_char,
    origin_info_len: usize,
    credential_context: *const u8,
    credential_context_len: usize,
    out: *mut *mut pt_challenge,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: each `(ptr, len)` pair is readable for the call (header contract).
        let (issuer, rc, origin, cc) = unsafe {
            (
                text(issuer_name, issuer_name_len)?,
                bytes(redemption_context, redemption_context_len)?,
                text(origin_info, origin_info_len)?,
                bytes(credential_context, credential_context_len)?,
            )
        };
        let b = if token_type == PT_TOKEN_TYPE_ARC {
            arc_pp::TokenChallenge::new(issuer.as_bytes(), rc, origin.as_bytes(), cc)?.to_bytes()
        } else {
            if !cc.is_empty() {
                return fail(PT_INVALID_ARGUMENT);
            }
            pp::TokenChallenge::new(
                token_type,
                issuer.as_bytes().to_vec(),
                rc.to_vec(),
                origin.as_bytes().to_vec(),
            )?
            .to_bytes()
        };
        out.set(pt_challenge::from_parts(b));
        Ok(())
    })
}

/// Sets the `token-key` parameter (the issuer public key for the challenge's type); `NULL`
/// clears it.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_set_token_key(
    challenge: *mut pt_challenge,
    token_key: *const u8,
    token_key_len: usize,
) -> pt_status {
    guard(|| {
        // SAFETY: a live challenge used by no other thread; the key readable (header contract).
        let (c, k) = unsafe { (handle_mut(challenge)?, opt_bytes(token_key, token_key_len)?) };
        c.token_key = k.map(<[u8]>::to_vec);
        Ok(())
    })
}

/// Sets the `max-age` parameter, in seconds.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_set_max_age(
    challenge: *mut pt_challenge,
    max_age: u64,
) -> pt_status {
    guard(|| {
        // SAFETY: a live challenge used by no other thread (header contract).
        unsafe { handle_mut(challenge) }?.max_age = Some(max_age);
        Ok(())
    })
}

/// Sets the `rate-limit` parameter (ARC presentations per challenge).
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_set_rate_limit(
    challenge: *mut pt_challenge,
    rate_limit: u32,
) -> pt_status {
    guard(|| {
        // SAFETY: a live challenge used by no other thread (header contract).
        unsafe { handle_mut(challenge) }?.rate_limit = Some(rate_limit);
        Ok(())
    })
}

/// The token type (`0x0001`, `0x0005`, `0xE5AC`, or another the origin named).
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_token_type(
    challenge: *const pt_challenge,
    token_type: *mut u16,
) -> pt_status {
    read_value(challenge, token_type, 0, |c| Ok(c.token_type()))
}

/// Whether this library can answer the challenge: types 0x0001, 0x0005 and 0xE5AC whose bytes
/// parse.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_supported(
    challenge: *const pt_challenge,
    supported: *mut bool,
) -> pt_status {
    read_value(challenge, supported, false, |c| {
        Ok(match &c.fields {
            Fields::Basic(c) => matches!(
                c.token_type(),
                PT_TOKEN_TYPE_1 | PT_TOKEN_TYPE_2 | PT_TOKEN_TYPE_5 | PT_TOKEN_TYPE_DA7A
            ),
            Fields::Arc(_) => true,
            Fields::Opaque => false,
        })
    })
}

/// Which field of a parsed challenge.
#[derive(Clone, Copy)]
enum Field {
    IssuerName,
    RedemptionContext,
    OriginInfo,
}

fn field(c: &pt_challenge, f: Field) -> R<Vec<u8>> {
    let v = match (&c.fields, f) {
        (Fields::Basic(c), Field::IssuerName) => c.issuer_name(),
        (Fields::Basic(c), Field::RedemptionContext) => c.redemption_context(),
        (Fields::Basic(c), Field::OriginInfo) => c.origin_info(),
        (Fields::Arc(c), Field::IssuerName) => c.issuer_name(),
        (Fields::Arc(c), Field::RedemptionContext) => c.redemption_context(),
        (Fields::Arc(c), Field::OriginInfo) => c.origin_info(),
        (Fields::Opaque, _) => return fail(PT_ABSENT),
    };
    Ok(v.to_vec())
}

/// The issuer name (text, NUL-terminated in the buffer); `PT_ABSENT` when the bytes do not
/// parse.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_issuer_name(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| field(c, Field::IssuerName))
}

/// The redemption context (empty or 32 bytes); `PT_ABSENT` when the bytes do not parse.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_redemption_context(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| field(c, Field::RedemptionContext))
}

/// The origin info (text: empty, or origin names joined by commas); `PT_ABSENT` when the bytes
/// do not parse.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_origin_info(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| field(c, Field::OriginInfo))
}

/// ARC's credential context (empty or 32 bytes); `PT_ABSENT` for other types.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_credential_context(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| match &c.fields {
        Fields::Arc(a) => Ok(a.credential_context().to_vec()),
        _ => fail(PT_ABSENT),
    })
}

/// The `token-key` parameter; `PT_ABSENT` when the origin sent none.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_token_key(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| {
        c.token_key.clone().ok_or(Fail(PT_ABSENT))
    })
}

/// The `max-age` parameter in seconds; `PT_ABSENT` when not set.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_max_age(
    challenge: *const pt_challenge,
    max_age: *mut u64,
) -> pt_status {
    read_value(challenge, max_age, 0, |c| c.max_age.ok_or(Fail(PT_ABSENT)))
}

/// The `rate-limit` parameter; `PT_ABSENT` when not set.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_rate_limit(
    challenge: *const pt_challenge,
    rate_limit: *mut u32,
) -> pt_status {
    read_value(challenge, rate_limit, 0, |c| {
        c.rate_limit.ok_or(Fail(PT_ABSENT))
    })
}

/// Another parameter of the header line, by lower-case name (`name`, `name_len` bytes):
/// its value as text; `PT_ABSENT` when the line had none of that name.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_parameter(
    challenge: *const pt_challenge,
    name: *const c_char,
    name_len: usize,
    out: *mut pt_buffer,
) -> pt_status {
    // SAFETY: `(name, name_len)` is readable for the call (header contract).
    let name = unsafe { text(name, name_len) };
    read_buffer(challenge, out, |c| {
        let name = name?;
        c.other
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_bytes().to_vec())
            .ok_or(Fail(PT_ABSENT))
    })
}

/// The serialized `TokenChallenge`.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_to_bytes(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| Ok(c.bytes.clone()))
}

/// `SHA-256(TokenChallenge)`: the 32-byte `challenge_digest` a token for it carries.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_digest(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| {
        Ok(sha2::Sha256::digest(&c.bytes).to_vec())
    })
}

/// The `WWW-Authenticate` value of the challenge, for an origin (text): `PrivateToken
/// challenge=…` with `token-key`, `max-age` and `rate-limit` when set.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_to_header(
    challenge: *const pt_challenge,
    out: *mut pt_buffer,
) -> pt_status {
    read_buffer(challenge, out, |c| {
        Ok(
            http::www_authenticate(&c.bytes, c.token_key.as_deref(), c.max_age, c.rate_limit)
                .into_bytes(),
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Parsing headers

/// The challenges of a `WWW-Authenticate` header, in header order. Freed with
/// `pt_challenge_list_free`. Public data; read-only after creation, so any number of threads
/// may read it at once.
#[derive(Debug)]
pub struct pt_challenge_list {
    items: Vec<pt_challenge>,
}

/// Frees a challenge list (challenges taken from it with `pt_challenge_list_get` stay
/// valid).
///
/// `NULL` is a no-op. The handle must not be used again (nor be in use by another thread).
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_list_free(handle: *mut pt_challenge_list) {
    // SAFETY: forwarded caller contract (a live handle of this type, or NULL).
    unsafe { crate::ffi::free_handle(handle) }
}

/// Every `PrivateToken` challenge of a `WWW-Authenticate` header value (text, `len` bytes):
/// several challenges joined by commas (as HTTP libraries join repeated header lines), other
/// schemes skipped, quoted or unquoted values, unknown parameters kept
/// (`pt_challenge_parameter`), unknown token types kept with `pt_challenge_supported` false. A
/// `PrivateToken` challenge whose parameters do not decode is left out; a header without any
/// gives an empty list. `PT_INVALID_ENCODING` only for text that is not UTF-8.
#[no_mangle]
pub unsafe extern "C" fn pt_parse_challenges(
    header: *const c_char,
    header_len: usize,
    out: *mut *mut pt_challenge_list,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: `(header, header_len)` is readable for the call (header contract).
        let header = unsafe { text(header, header_len) }?;
        let items = http::parse_www_authenticate(header)
            .into_iter()
            .map(|h| {
                let mut c = pt_challenge::from_parts(h.challenge);
                c.token_key = h.token_key;
                c.max_age = h.max_age;
                c.rate_limit = h.rate_limit;
                c.other = h.other;
                c
            })
            .collect();
        out.set(pt_challenge_list { items });
        Ok(())
    })
}

/// How many challenges the list holds.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_list_count(
    list: *const pt_challenge_list,
    count: *mut usize,
) -> pt_status {
    read_value(list, count, 0, |l| Ok(l.items.len()))
}

/// A copy of the challenge at `index` (a new handle: free it with `pt_challenge_free`);
/// `PT_INVALID_ARGUMENT` for an index past the end.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_list_get(
    list: *const pt_challenge_list,
    index: usize,
    out: *mut *mut pt_challenge,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: a live list handle (header contract).
        let l = unsafe { handle(list) }?;
        out.set(l.items.get(index).ok_or(Fail(PT_INVALID_ARGUMENT))?.clone());
        Ok(())
    })
}

/// A copy of the first challenge of `token_type` whose bytes parse (a new handle; check
/// `pt_challenge_supported` for other types than 0x0001, 0x0005 and 0xE5AC); `PT_ABSENT` when
/// the list has none.
#[no_mangle]
pub unsafe extern "C" fn pt_challenge_list_find(
    list: *const pt_challenge_list,
    token_type: u16,
    out: *mut *mut pt_challenge,
) -> pt_status {
    guard(|| {
        let out = out_handle(out)?;
        // SAFETY: a live list handle (header contract).
        let l = unsafe { handle(list) }?;
        let c = l
            .items
            .iter()
            .find(|c| c.token_type() == token_type && !matches!(c.fields, Fields::Opaque))
            .ok_or(Fail(PT_ABSENT))?;
        out.set(c.clone());
        Ok(())
    })
}

/// The token of an `Authorization: PrivateToken token=…` header value (text), decoded (origin
/// side). `PT_UNSUPPORTED_VALUE` for another scheme, `PT_INVALID_ENCODING` for a malformed
/// value.
#[no_mangle]
pub unsafe extern "C" fn pt_parse_authorization(
    header: *const c_char,
    header_len: usize,
    token: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let out = out_buffer(token)?;
        // SAFETY: `(header, header_len)` is readable for the call (header contract).
        let header = unsafe { text(header, header_len) }?;
        *out = pt_buffer::new(&Zeroizing::new(http::parse_authorization(header)?));
        Ok(())
    })
}

/// The token and the extensions of an `Authorization: PrivateToken token=…, extensions=…`
/// header value (text; origin side, draft-ietf-privacypass-auth-scheme-extensions): `*token`
/// as `pt_parse_authorization` reads it, `*extensions` the decoded `extensions` parameter,
/// checked to be one well-formed `Extensions` structure (the decoding codes otherwise), what
/// `pt_blind_rsa_verify_token` takes. Without the parameter, `*extensions` is the empty list's
/// encoding (the two bytes 0x0000) for a type 0xDA7A token, and empty (`NULL`, 0) for other
/// types; extensions given with a token of another type are returned as given (the
/// verification refuses them).
///
/// The library's `http::parse_authorization_with_extensions`: `PT_UNSUPPORTED_VALUE` for
/// another scheme; `PT_INVALID_ENCODING` for a value that does not parse, for any parameter that
/// does not (`pt_parse_authorization` skips those: here one could be the extensions), for
/// `extensions` given twice or not base64url.
#[no_mangle]
pub unsafe extern "C" fn pt_parse_authorization_with_extensions(
    header: *const c_char,
    header_len: usize,
    token: *mut pt_buffer,
    extensions: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let outputs = [token.cast(), extensions.cast()];
        let (t_out, e_out) = (out_buffer(token), out_buffer(extensions));
        let (t_out, e_out) = (t_out?, e_out?);
        distinct(&outputs)?;
        // SAFETY: `(header, header_len)` is readable for the call (header contract).
        let header = unsafe { text(header, header_len) }?;
        let (t, ext) = http::parse_authorization_with_extensions(header)?;
        let t = Zeroizing::new(t);
        let ext = match ext {
            Some(e) => {
                rsa_pp::Extensions::from_bytes(&e)?;
                Some(e)
            }
            None if t.starts_with(&PT_TOKEN_TYPE_DA7A.to_be_bytes()) => {
                Some(rsa_pp::Extensions::new(Vec::new())?.as_bytes().to_vec())
            }
            None => None,
        };
        *t_out = pt_buffer::new(&t);
        if let Some(e) = ext {
            *e_out = pt_buffer::new(&e);
        }
        Ok(())
    })
}

/// `PrivateToken token=<base64url>`, then `, extensions=<base64url>` when `extensions` are
/// given (both padded, as the server writes them): the library's
/// `http::authorization_header(_with_extensions)`, one allocation of its final size, wiped on
/// drop.
pub(crate) fn authorization_value(token: &[u8], extensions: Option<&[u8]>) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(
        match extensions {
            Some(e) => http::authorization_header_with_extensions(token, e),
            None => http::authorization_header(token),
        }
        .into_bytes(),
    )
}

/// `PrivateToken token=<base64url>` (text): the `Authorization` value that redeems the
/// serialized token (any token type). A type 0xDA7A token issued for extensions is redeemed
/// with them: `pt_authorization_header_with_extensions`.
#[no_mangle]
pub unsafe extern "C" fn pt_authorization_header(
    token: *const u8,
    token_len: usize,
    header: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let out = out_buffer(header)?;
        // SAFETY: `(token, token_len)` is readable for the call (header contract).
        let t = unsafe { bytes(token, token_len) }?;
        *out = pt_buffer::new(&authorization_value(t, None));
        Ok(())
    })
}

/// `PrivateToken token=<base64url>, extensions=<base64url>` (text): the `Authorization` value
/// that redeems a serialized type 0xDA7A token with its extensions
/// (draft-ietf-privacypass-auth-scheme-extensions; both padded base64url). `extensions` is
/// required: their encoding, as given to `pt_create_extended_token_request` (from
/// `pt_extensions_encode`). Without the parameter (`pt_authorization_header`) the origin reads
/// the empty list. `PT_UNSUPPORTED_VALUE` for a token whose type (its first two bytes) is not
/// 0xDA7A; the decoding codes (`PT_INVALID_LENGTH`, `PT_INVALID_ENCODING`) for extensions that
/// are not one `Extensions` structure (`(NULL, 0)` included) or token bytes that are not a
/// 0xDA7A token.
#[no_mangle]
pub unsafe extern "C" fn pt_authorization_header_with_extensions(
    token: *const u8,
    token_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    header: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let out = out_buffer(header)?;
        // SAFETY: both `(ptr, len)` pairs are readable for the call (header contract).
        let (t, ext) = unsafe { (bytes(token, token_len)?, bytes(extensions, extensions_len)?) };
        match t {
            [0xDA, 0x7A, ..] => {}
            [_, _, ..] => return Err(Error::UnsupportedValue.into()),
            _ => return Err(Error::InvalidLength.into()),
        }
        // Decoded to check it (a 0xDA7A token, strictly); wiped on drop by the library.
        drop(rsa_pp::Token::from_bytes(t)?);
        rsa_pp::Extensions::from_bytes(ext)?;
        *out = pt_buffer::new(&authorization_value(t, Some(ext)));
        Ok(())
    })
}

/// Padded base64url (RFC 4648 §5) of `data`, as text.
#[no_mangle]
pub unsafe extern "C" fn pt_base64url_encode(
    data: *const u8,
    data_len: usize,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(out)?;
        // SAFETY: `(data, data_len)` is readable for the call (header contract).
        let d = unsafe { bytes(data, data_len) }?;
        *o = pt_buffer::new(Zeroizing::new(http::base64url_encode(d)).as_bytes());
        Ok(())
    })
}

/// Strict base64url decoding (padding optional); `PT_INVALID_ENCODING` otherwise.
#[no_mangle]
pub unsafe extern "C" fn pt_base64url_decode(
    text_in: *const c_char,
    text_len: usize,
    out: *mut pt_buffer,
) -> pt_status {
    guard(|| {
        let o = out_buffer(out)?;
        // SAFETY: `(text_in, text_len)` is readable for the call (header contract).
        let t = unsafe { text(text_in, text_len) }?;
        *o = pt_buffer::new(&Zeroizing::new(http::base64url_decode(t)?));
        Ok(())
    })
}
