//! Token challenges (RFC 9577 §2.1) and the `PrivateToken` HTTP headers.

use js_sys::Object;
use privacy_tokens::arc::privacy_pass as arc_pp;
use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use privacy_tokens::http;
use privacy_tokens::voprf::privacy_pass as pp;
use sha2::Digest;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::{bytes, integer, opt_bytes, opt_integer, option, string, JsResult, OrThrow};

/// Privacy Pass type 0x0001: VOPRF(P-384, SHA-384), RFC 9578.
pub const TYPE_1: u16 = 0x0001;
/// Privacy Pass type 0x0005: VOPRF(ristretto255, SHA-512).
pub const TYPE_5: u16 = 0x0005;
/// Privacy Pass type 0x0002: blind RSA (RSA-2048, SHA-384, PSS), RFC 9578 §6.
pub const TYPE_2: u16 = 0x0002;
/// Privacy Pass type 0xDA7A: partially blind RSA with public metadata (extensions),
/// draft-ietf-privacypass-public-metadata-issuance.
pub const TYPE_DA7A: u16 = 0xDA7A;
/// ARC (P-256), draft-ietf-privacypass-arc-protocol.
pub const TYPE_ARC: u16 = 0xE5AC;

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

/// One token challenge: the `TokenChallenge` an origin sends, with the `token-key`,
/// `max-age` and `rate-limit` parameters of its `WWW-Authenticate` line.
///
/// From `parseChallenges(header)`, `Challenge.fromBytes(bytes)` or `Challenge.create(...)`.
/// A challenge of a type this package does not handle is kept with `supported === false`.
#[wasm_bindgen]
#[derive(Clone, Debug)]
pub struct Challenge {
    pub(crate) bytes: Vec<u8>,
    pub(crate) fields: Fields,
    pub(crate) token_key: Option<Vec<u8>>,
    pub(crate) max_age: Option<u64>,
    pub(crate) rate_limit: Option<u32>,
    pub(crate) other: Vec<(String, String)>,
}

impl Challenge {
    fn from_parts(bytes: Vec<u8>) -> Self {
        let token_type = match bytes.as_slice() {
            [a, b, ..] => u16::from_be_bytes([*a, *b]),
            _ => 0,
        };
        let fields = if token_type == TYPE_ARC {
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

    /// The token key given as an option, else the challenge's own `token-key`.
    ///
    /// A `tokenKey` property that is present but `undefined` or `null` (a directory lookup
    /// that found nothing) is an `INVALID_ARGUMENT` error: silently using the origin's key
    /// instead would undo the key-consistency check the caller meant to make.
    pub(crate) fn key(&self, options: &JsValue) -> JsResult<Vec<u8>> {
        if options.is_object() && js_sys::Reflect::has(options, &"tokenKey".into()).unwrap_or(false)
        {
            let k = option(options, "tokenKey")?;
            if k.is_undefined() || k.is_null() {
                return Err(crate::bad_arg(
                    "options.tokenKey",
                    "given but undefined or null (a failed issuer-directory lookup?); omit the option to use the challenge's token-key",
                ));
            }
            return bytes(&k, "options.tokenKey");
        }
        self.token_key.clone().ok_or_else(|| {
            crate::error(
                crate::code_of(privacy_tokens::Error::MissingKey),
                "the challenge has no token-key: pass options.tokenKey (from the issuer directory)",
            )
        })
    }

    pub(crate) fn arc(&self) -> JsResult<&arc_pp::TokenChallenge> {
        match &self.fields {
            Fields::Arc(c) => Ok(c),
            _ => Err(crate::lib_error(privacy_tokens::Error::UnsupportedValue)),
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[wasm_bindgen]
impl Challenge {
    /// A challenge from its serialized `TokenChallenge` bytes. Unknown token types and bytes
    /// that parse as no known layout are kept, with `supported === false`.
    ///
    /// Options: `tokenKey` (Uint8Array), `maxAge` and `rateLimit` (numbers), as the header's
    /// parameters would give them.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] challenge: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ChallengeOptions")] options: JsValue,
    ) -> JsResult<Challenge> {
        let b = bytes(&challenge, "challenge")?;
        if b.len() < 2 {
            return Err(crate::lib_error(privacy_tokens::Error::InvalidLength));
        }
        let mut c = Self::from_parts(b);
        c.token_key = opt_bytes(&option(&options, "tokenKey")?, "options.tokenKey")?;
        c.max_age = opt_integer(&option(&options, "maxAge")?, "options.maxAge", 0, 1 << 53)?;
        c.rate_limit = opt_integer(
            &option(&options, "rateLimit")?,
            "options.rateLimit",
            0,
            u64::from(u32::MAX),
        )?
        .map(|l| l as u32);
        Ok(c)
    }

    /// A new challenge, for an origin: `tokenType`, `issuerName` (string), and optionally
    /// `redemptionContext` (0 or 32 bytes), `originInfo` (string), `credentialContext` (ARC,
    /// 0 or 32 bytes), `tokenKey`, `maxAge`, `rateLimit`.
    pub fn create(
        #[wasm_bindgen(unchecked_param_type = "CreateChallengeOptions")] options: JsValue,
    ) -> JsResult<Challenge> {
        let token_type = integer(&option(&options, "tokenType")?, "tokenType", 0, 0xffff)? as u16;
        let issuer = string(&option(&options, "issuerName")?, "issuerName")?;
        let rc = opt_bytes(&option(&options, "redemptionContext")?, "redemptionContext")?
            .unwrap_or_default();
        let origin = option(&options, "originInfo")?;
        let origin = if origin.is_undefined() || origin.is_null() {
            String::new()
        } else {
            string(&origin, "originInfo")?
        };
        let bytes = if token_type == TYPE_ARC {
            let cc = opt_bytes(&option(&options, "credentialContext")?, "credentialContext")?
                .unwrap_or_default();
            arc_pp::TokenChallenge::new(issuer.as_bytes(), &rc, origin.as_bytes(), &cc)
                .or_throw()?
                .to_bytes()
        } else {
            pp::TokenChallenge::new(token_type, issuer.into_bytes(), rc, origin.into_bytes())
                .or_throw()?
                .to_bytes()
        };
        Self::from_bytes(crate::u8a(&bytes), options)
    }

    /// The token type (`0x0001`, `0x0002`, `0x0005`, `0xDA7A`, `0xE5AC`, or another the origin named).
    #[wasm_bindgen(getter, js_name = tokenType)]
    pub fn token_type(&self) -> u16 {
        u16::from_be_bytes([self.bytes[0], self.bytes[1]])
    }

    /// Whether this package can answer the challenge (types 0x0001, 0x0002, 0x0005, 0xDA7A and
    /// 0xE5AC whose bytes parse).
    #[wasm_bindgen(getter)]
    pub fn supported(&self) -> bool {
        match &self.fields {
            Fields::Basic(c) => matches!(c.token_type(), TYPE_1 | TYPE_2 | TYPE_5 | TYPE_DA7A),
            Fields::Arc(_) => true,
            Fields::Opaque => false,
        }
    }

    /// The issuer name, or `undefined` when the bytes do not parse.
    #[wasm_bindgen(getter, js_name = issuerName)]
    pub fn issuer_name(&self) -> Option<String> {
        match &self.fields {
            Fields::Basic(c) => Some(text(c.issuer_name())),
            Fields::Arc(c) => Some(text(c.issuer_name())),
            Fields::Opaque => None,
        }
    }

    /// The redemption context (empty or 32 bytes).
    #[wasm_bindgen(getter, js_name = redemptionContext)]
    pub fn redemption_context(&self) -> Option<Vec<u8>> {
        match &self.fields {
            Fields::Basic(c) => Some(c.redemption_context().to_vec()),
            Fields::Arc(c) => Some(c.redemption_context().to_vec()),
            Fields::Opaque => None,
        }
    }

    /// The origin info (empty, or origin names joined by commas).
    #[wasm_bindgen(getter, js_name = originInfo)]
    pub fn origin_info(&self) -> Option<String> {
        match &self.fields {
            Fields::Basic(c) => Some(text(c.origin_info())),
            Fields::Arc(c) => Some(text(c.origin_info())),
            Fields::Opaque => None,
        }
    }

    /// ARC's credential context (empty or 32 bytes); `undefined` for other types.
    #[wasm_bindgen(getter, js_name = credentialContext)]
    pub fn credential_context(&self) -> Option<Vec<u8>> {
        match &self.fields {
            Fields::Arc(c) => Some(c.credential_context().to_vec()),
            _ => None,
        }
    }

    /// The `token-key` parameter: the issuer's public key for this type, if the origin sent it.
    #[wasm_bindgen(getter, js_name = tokenKey)]
    pub fn token_key(&self) -> Option<Vec<u8>> {
        self.token_key.clone()
    }

    /// The `max-age` parameter in seconds.
    #[wasm_bindgen(getter, js_name = maxAge)]
    pub fn max_age(&self) -> Option<f64> {
        self.max_age.map(|m| m as f64)
    }

    /// The `rate-limit` parameter (ARC presentations per challenge).
    #[wasm_bindgen(getter, js_name = rateLimit)]
    pub fn rate_limit(&self) -> Option<u32> {
        self.rate_limit
    }

    /// The other parameters of the header line, names lower-cased, in an object without a
    /// prototype (so that a parameter named `__proto__` is kept like any other).
    #[wasm_bindgen(getter, unchecked_return_type = "Record<string, string>")]
    pub fn parameters(&self) -> JsValue {
        // `Object.create(null)`; the cast only retypes the `null` handle.
        let o: Object = Object::create(JsValue::NULL.unchecked_ref());
        for (k, v) in &self.other {
            let _ = js_sys::Reflect::set(&o, &k.into(), &v.into());
        }
        o.into()
    }

    /// The serialized `TokenChallenge`.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }

    /// `SHA-256(TokenChallenge)`, the `challenge_digest` a token for it carries.
    #[wasm_bindgen(getter)]
    pub fn digest(&self) -> Vec<u8> {
        match &self.fields {
            Fields::Basic(c) => c.digest().to_vec(),
            Fields::Arc(c) => c.digest().to_vec(),
            Fields::Opaque => sha2::Sha256::digest(&self.bytes).to_vec(),
        }
    }

    /// The `WWW-Authenticate` value of this challenge, for an origin: `PrivateToken
    /// challenge=…` with `token-key`, `max-age` and `rate-limit` when set.
    #[wasm_bindgen(js_name = toHeader)]
    pub fn to_header(&self) -> String {
        http::www_authenticate(
            &self.bytes,
            self.token_key.as_deref(),
            self.max_age,
            self.rate_limit,
        )
    }
}

/// Every `PrivateToken` challenge of a `WWW-Authenticate` header value, as `fetch` hands it
/// (`response.headers.get("www-authenticate")`): several challenges joined by commas, other
/// schemes skipped, quoted or unquoted values, unknown parameters kept in `parameters`, unknown
/// token types kept with `supported === false`. Never throws for a string; a `PrivateToken`
/// challenge whose parameters do not decode is left out.
#[wasm_bindgen(js_name = parseChallenges)]
pub fn parse_challenges(
    #[wasm_bindgen(unchecked_param_type = "string")] header: JsValue,
) -> JsResult<Vec<Challenge>> {
    let header = string(&header, "header")?;
    Ok(http::parse_www_authenticate(&header)
        .into_iter()
        .map(|h| {
            let mut c = Challenge::from_parts(h.challenge);
            c.token_key = h.token_key;
            c.max_age = h.max_age;
            c.rate_limit = h.rate_limit;
            c.other = h.other;
            c
        })
        .collect())
}

/// The token of an `Authorization: PrivateToken token=…` header value, decoded (origin side).
/// Throws `UNSUPPORTED_VALUE` for another scheme and `INVALID_ENCODING` for a malformed value.
/// Other parameters are ignored: `parseAuthorizationWithExtensions` also reads a type 0xDA7A
/// token's `extensions`.
#[wasm_bindgen(js_name = parseAuthorization)]
pub fn parse_authorization(
    #[wasm_bindgen(unchecked_param_type = "string")] header: JsValue,
) -> JsResult<js_sys::Uint8Array> {
    let h = zeroize::Zeroizing::new(string(&header, "header")?);
    let t = zeroize::Zeroizing::new(http::parse_authorization(&h).or_throw()?);
    Ok(js_sys::Uint8Array::from(t.as_slice()))
}

/// The token and the extensions of an `Authorization: PrivateToken token=…, extensions=…`
/// header value (origin side; draft-ietf-privacypass-auth-scheme-extensions):
/// `{ token, extensions }`, what `BlindRsaTokenKey.verifyToken(token, challenge, extensions)`
/// takes. `extensions` is the decoded parameter, checked to be one well-formed `Extensions`
/// structure (`INVALID_LENGTH`, `INVALID_ENCODING` otherwise); without the parameter it is the
/// empty list's encoding (`0x0000`, as `encodeExtensions([])` gives it) for a type 0xDA7A token,
/// and `undefined` for other types. Extensions with a token of another type are returned as
/// given (`verifyToken` refuses them).
///
/// The library's `http::parse_authorization_with_extensions`: `UNSUPPORTED_VALUE` for another
/// scheme; `INVALID_ENCODING` for a value that does not parse, for any parameter that does not
/// (`parseAuthorization` skips those: here one could be the extensions), for `extensions` given
/// twice or not base64url.
#[wasm_bindgen(
    js_name = parseAuthorizationWithExtensions,
    unchecked_return_type = "AuthorizationWithExtensions"
)]
pub fn parse_authorization_with_extensions(
    #[wasm_bindgen(unchecked_param_type = "string")] header: JsValue,
) -> JsResult<JsValue> {
    let h = zeroize::Zeroizing::new(string(&header, "header")?);
    let (t, ext) = http::parse_authorization_with_extensions(&h).or_throw()?;
    let t = zeroize::Zeroizing::new(t);
    let ext = match ext {
        Some(e) => {
            rsa_pp::Extensions::from_bytes(&e).or_throw()?;
            Some(e)
        }
        None if t.starts_with(&TYPE_DA7A.to_be_bytes()) => Some(
            rsa_pp::Extensions::new(Vec::new())
                .or_throw()?
                .as_bytes()
                .to_vec(),
        ),
        None => None,
    };
    Ok(crate::object(&[
        ("token", js_sys::Uint8Array::from(t.as_slice()).into()),
        (
            "extensions",
            ext.map_or(JsValue::UNDEFINED, |e| crate::u8a(&e)),
        ),
    ]))
}

/// `PrivateToken token=<base64url>`: the `Authorization` value that redeems serialized token
/// bytes (what `Token.authorizationHeader()` returns).
///
/// With `extensions` (the encoded `Extensions` of a type 0xDA7A token, e.g. from
/// `encodeExtensions`): `PrivateToken token=<base64url>, extensions=<base64url>`
/// (draft-ietf-privacypass-auth-scheme-extensions; both padded), what
/// `Token.authorizationHeader(extensions)` returns. With extensions, throws `INVALID_ARGUMENT`
/// for a token whose type (its first two bytes) is not 0xDA7A, and `INVALID_LENGTH` or
/// `INVALID_ENCODING` for extensions that are not one `Extensions` structure or token bytes that
/// do not decode as a 0xDA7A token.
#[wasm_bindgen(js_name = authorizationHeader, unchecked_return_type = "string")]
pub fn authorization_header(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] extensions: JsValue,
) -> JsResult<JsValue> {
    let t = crate::secret_bytes(&token, "token")?;
    let token_type = match t.as_slice() {
        [a, b, ..] => u16::from_be_bytes([*a, *b]),
        // Too short for a type: refused with extensions, written as given without.
        _ => 0,
    };
    let ext = crate::privacy_pass::header_extensions(token_type, &extensions)?;
    crate::wiped(|| {
        if ext.is_some() {
            // A type 0xDA7A token, strictly (wiped on drop by the library).
            rsa_pp::Token::from_bytes(&t).or_throw()?;
        }
        Ok(JsValue::from_str(
            &crate::privacy_pass::authorization_value(&t, ext.as_deref()),
        ))
    })
}

/// Padded base64url (RFC 4648 §5), as the headers and issuer directory use.
#[wasm_bindgen(js_name = base64urlEncode)]
pub fn base64url_encode(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
) -> JsResult<String> {
    Ok(http::base64url_encode(&bytes(&data, "data")?))
}

/// Strict base64url decoding (padding optional); `INVALID_ENCODING` otherwise.
#[wasm_bindgen(js_name = base64urlDecode)]
pub fn base64url_decode(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> JsResult<Vec<u8>> {
    http::base64url_decode(&string(&text, "text")?).or_throw()
}

fn bad_directory(what: &str) -> JsValue {
    crate::error(
        crate::code_of(privacy_tokens::Error::InvalidEncoding),
        &format!("issuer directory: {what}"),
    )
}

fn field(o: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(o, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// The issuer directory (RFC 9578 §4), from its JSON text (the body of
/// `GET /.well-known/private-token-issuer-directory`) or the parsed object:
/// `{ issuerRequestUri, tokenKeys: [{ tokenType, tokenKey, notBefore? }] }`, keys decoded from
/// base64url, in directory order (unknown token types included). Throws `INVALID_ENCODING`
/// for JSON that is not a directory or a `token-key` that is not base64url.
#[wasm_bindgen(js_name = parseIssuerDirectory, unchecked_return_type = "IssuerDirectory")]
pub fn parse_issuer_directory(
    #[wasm_bindgen(unchecked_param_type = "string | object")] directory: JsValue,
) -> JsResult<JsValue> {
    let d = match directory.as_string() {
        Some(text) => js_sys::JSON::parse(&text).map_err(|_| bad_directory("not JSON"))?,
        None if directory.is_object() => directory,
        None => {
            return Err(crate::bad_arg(
                "directory",
                "expected a string or an object",
            ))
        }
    };
    if !d.is_object() {
        return Err(bad_directory("not a JSON object"));
    }
    let uri = field(&d, "issuer-request-uri")
        .as_string()
        .ok_or_else(|| bad_directory("no issuer-request-uri string"))?;
    let keys = field(&d, "token-keys");
    let keys = keys
        .dyn_ref::<js_sys::Array>()
        .ok_or_else(|| bad_directory("no token-keys array"))?;
    let out = js_sys::Array::new();
    for (i, k) in keys.iter().enumerate() {
        let t = field(&k, "token-type")
            .as_f64()
            .filter(|t| t.fract() == 0.0 && (0.0..=65535.0).contains(t))
            .ok_or_else(|| bad_directory(&format!("token-keys[{i}]: no token-type")))?;
        let key = field(&k, "token-key")
            .as_string()
            .ok_or_else(|| bad_directory(&format!("token-keys[{i}]: no token-key")))?;
        let key = http::base64url_decode(&key)
            .map_err(|_| bad_directory(&format!("token-keys[{i}]: token-key is not base64url")))?;
        let nb = field(&k, "not-before");
        let nb = if nb.is_undefined() || nb.is_null() {
            JsValue::UNDEFINED
        } else {
            nb.as_f64()
                .ok_or_else(|| bad_directory(&format!("token-keys[{i}]: not-before")))?
                .into()
        };
        out.push(&crate::object(&[
            ("tokenType", t.into()),
            ("tokenKey", crate::u8a(&key)),
            ("notBefore", nb),
        ]));
    }
    Ok(crate::object(&[
        ("issuerRequestUri", uri.into()),
        ("tokenKeys", out.into()),
    ]))
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A parsed issuer directory (RFC 9578 §4). */
export interface IssuerDirectory {
  issuerRequestUri: string;
  tokenKeys: { tokenType: number; tokenKey: Uint8Array; notBefore?: number }[];
}
/** What `parseAuthorizationWithExtensions` reads from an `Authorization` value. */
export interface AuthorizationWithExtensions {
  /** The serialized token. */
  token: Uint8Array;
  /**
   * The encoded `Extensions` (`decodeExtensions` reads them): the `extensions` parameter, or
   * for a type 0xDA7A token without it the empty list (`0x0000`); `undefined` for other types
   * without the parameter.
   */
  extensions?: Uint8Array;
}
/** Options of `Challenge.fromBytes`. */
export interface ChallengeOptions { tokenKey?: Uint8Array; maxAge?: number; rateLimit?: number }
/** Options of `Challenge.create`. */
export interface CreateChallengeOptions extends ChallengeOptions {
  tokenType: number; issuerName: string; redemptionContext?: Uint8Array; originInfo?: string;
  credentialContext?: Uint8Array;
}
"#;
