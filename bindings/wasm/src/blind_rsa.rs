//! Privacy Pass publicly verifiable tokens: type 0x0002 (blind RSA, RFC 9578 §6) and type
//! 0xDA7A (partially blind RSA with public metadata, draft-ietf-privacypass-public-metadata-
//! issuance), whose metadata is an encoded `Extensions` list.
//!
//! - [`encode_extensions`] / [`decode_extensions`]: the `Extensions` structure (every flavour:
//!   a client of type 0xDA7A sends it with its request);
//! - the client side is `createTokenRequest` and `TokenRequestState.finalize`
//!   ([`crate::privacy_pass`]);
//! - feature `issuer`: [`BlindRsaIssuer`] (the RSA private key: issuance) and
//!   [`BlindRsaTokenKey`] (the public `token-key`: the origin's verification).

use js_sys::Array;
use privacy_tokens::blind_rsa::privacy_pass as rsa_pp;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::{bytes, integer, object, option, u8a, JsResult, OrThrow};

/// Most extensions one list may hold, checked before any is read (a list of 2^16 - 1 bytes
/// holds at most 16383 four-byte headers).
const MAX_EXTENSIONS: u32 = (rsa_pp::MAX_EXTENSIONS_LEN / 4) as u32;

/// The `Extensions` structure of a list `[{ type, data }]` (`type` a number 0 to 65535,
/// `data` a `Uint8Array`), sorted by type (stably): what type 0xDA7A requests and tokens are
/// bound to. Throws `INPUT_TOO_LONG` when the encoding exceeds 65535 bytes.
#[wasm_bindgen(js_name = encodeExtensions)]
pub fn encode_extensions(
    #[wasm_bindgen(unchecked_param_type = "Extension[]")] list: JsValue,
) -> JsResult<Vec<u8>> {
    let a = list
        .dyn_ref::<Array>()
        .ok_or_else(|| crate::bad_arg("extensions", "expected an array of { type, data }"))?;
    if a.length() > MAX_EXTENSIONS {
        return Err(crate::lib_error(privacy_tokens::Error::InputTooLong));
    }
    let mut out = Vec::with_capacity(a.length() as usize);
    for (i, e) in a.iter().enumerate() {
        if !e.is_object() {
            return Err(crate::bad_arg(
                &format!("extensions[{i}]"),
                "expected { type, data }",
            ));
        }
        let t = integer(
            &option(&e, "type")?,
            &format!("extensions[{i}].type"),
            0,
            0xffff,
        )?;
        let data = bytes(&option(&e, "data")?, &format!("extensions[{i}].data"))?;
        out.push(rsa_pp::Extension {
            extension_type: t as u16,
            data,
        });
    }
    Ok(rsa_pp::Extensions::new(out).or_throw()?.as_bytes().to_vec())
}

/// The list `[{ type, data }]` of an encoded `Extensions` structure. Strict: `INVALID_LENGTH`
/// for a length prefix that disagrees with the bytes, `INVALID_ENCODING` for types out of
/// order.
#[wasm_bindgen(js_name = decodeExtensions, unchecked_return_type = "Extension[]")]
pub fn decode_extensions(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] extensions: JsValue,
) -> JsResult<Array> {
    let b = bytes(&extensions, "extensions")?;
    let e = rsa_pp::Extensions::from_bytes(&b).or_throw()?;
    Ok(e.list()
        .iter()
        .map(|x| object(&[("type", x.extension_type.into()), ("data", u8a(&x.data))]))
        .collect())
}

#[cfg(feature = "issuer")]
pub use issuer::{BlindRsaIssuer, BlindRsaTokenKey};

#[cfg(feature = "issuer")]
mod issuer {
    use js_sys::Uint8Array;
    use privacy_tokens::blind_rsa::SecretKey;
    use privacy_tokens::Error;
    use zeroize::Zeroizing;

    use super::*;
    use crate::challenge::{TYPE_2, TYPE_DA7A};
    use crate::privacy_pass::RESPONSE_MEDIA_TYPE;
    use crate::{lib_error, secret_bytes, string, wiped};

    /// The token types of this module.
    fn rsa_token_type(v: &JsValue) -> JsResult<u16> {
        match integer(v, "tokenType", 0, 0xffff)? as u16 {
            t @ (TYPE_2 | TYPE_DA7A) => Ok(t),
            t => Err(crate::error(
                crate::code_of(privacy_tokens::Error::UnsupportedValue),
                &format!("token type {t:#06x}: blind RSA is 0x0002 or 0xDA7A"),
            )),
        }
    }

    /// The issuer of type 0x0002 or 0xDA7A tokens: an RSA-2048 private key (`e = 65537`; for
    /// 0xDA7A, made of safe primes, as partially blind RSA requires). Holds the secret key:
    /// `free()` (or `Symbol.dispose`) wipes it. Tokens are publicly verifiable: origins check
    /// them with a [`BlindRsaTokenKey`] of `tokenKey`, without this key.
    #[wasm_bindgen]
    pub struct BlindRsaIssuer {
        issuer: rsa_pp::Issuer,
        token_type: u16,
    }

    fn make(key: SecretKey, token_type: u16) -> JsResult<BlindRsaIssuer> {
        let issuer = match token_type {
            TYPE_DA7A => rsa_pp::Issuer::new_partially_blind(key),
            _ => rsa_pp::Issuer::new(key),
        }
        .or_throw()?;
        Ok(BlindRsaIssuer { issuer, token_type })
    }

    #[wasm_bindgen]
    impl BlindRsaIssuer {
        /// An issuer of `tokenType` (0x0002 or 0xDA7A) from its private key's PEM text
        /// (`-----BEGIN PRIVATE KEY-----`, PKCS#8, or `-----BEGIN RSA PRIVATE KEY-----`,
        /// PKCS#1). `INVALID_KEY` for a key that is not RSA-2048 with `e = 65537` or whose parts
        /// disagree, and for 0xDA7A a key whose primes are not both safe primes (partially blind
        /// RSA requires them; `Issuer::new_partially_blind`).
        #[wasm_bindgen(js_name = fromPem)]
        pub fn from_pem(
            #[wasm_bindgen(js_name = tokenType, unchecked_param_type = "number")]
            token_type: JsValue,
            #[wasm_bindgen(unchecked_param_type = "string")] pem: JsValue,
        ) -> JsResult<BlindRsaIssuer> {
            let t = rsa_token_type(&token_type)?;
            let pem = Zeroizing::new(string(&pem, "pem")?);
            wiped(|| make(SecretKey::from_pem(&pem).or_throw()?, t))
        }

        /// An issuer from its private key's PKCS#8 DER (`privateKeyDer()`'s bytes).
        #[wasm_bindgen(js_name = fromPkcs8Der)]
        pub fn from_pkcs8_der(
            #[wasm_bindgen(js_name = tokenType, unchecked_param_type = "number")]
            token_type: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] der: JsValue,
        ) -> JsResult<BlindRsaIssuer> {
            let t = rsa_token_type(&token_type)?;
            let der = secret_bytes(&der, "der")?;
            wiped(|| make(SecretKey::from_pkcs8_der(&der).or_throw()?, t))
        }

        /// A new issuer with a fresh RSA-2048 key. **Slow** in WebAssembly: seconds for type
        /// 0x0002, and minutes for 0xDA7A (safe primes); generate keys offline where you can
        /// and load them with `fromPem`.
        pub fn generate(
            #[wasm_bindgen(js_name = tokenType, unchecked_param_type = "number")]
            token_type: JsValue,
        ) -> JsResult<BlindRsaIssuer> {
            let t = rsa_token_type(&token_type)?;
            crate::with_rng(|rng| {
                make(
                    SecretKey::generate(rng, 2048, t == TYPE_DA7A).or_throw()?,
                    t,
                )
            })
        }

        /// The token type it issues.
        #[wasm_bindgen(getter, js_name = tokenType)]
        pub fn token_type(&self) -> u16 {
            self.token_type
        }

        /// The public key to publish: the SubjectPublicKeyInfo DER (RSASSA-PSS, RFC 9578 §6.5),
        /// base64url-encoded as the issuer directory's `token-key`.
        #[wasm_bindgen(getter, js_name = tokenKey)]
        pub fn token_key(&self) -> Vec<u8> {
            self.issuer.token_key().to_spki().to_vec()
        }

        /// `SHA-256(tokenKey)`, the key id tokens carry.
        #[wasm_bindgen(getter, js_name = tokenKeyId)]
        pub fn token_key_id(&self) -> Vec<u8> {
            self.issuer.token_key().id().to_vec()
        }

        /// The private key as PKCS#8 PEM text, **secret**: store it as any private key. The
        /// internal copies are wiped; only the returned string remains.
        #[wasm_bindgen(js_name = privateKeyPem, unchecked_return_type = "string")]
        pub fn private_key_pem(&self) -> JsValue {
            wiped(|| JsValue::from_str(&self.issuer.secret_key().to_pem()))
        }

        /// The private key as PKCS#8 DER, **secret** (`fill(0)` the array when done).
        #[wasm_bindgen(js_name = privateKeyDer)]
        pub fn private_key_der(&self) -> Uint8Array {
            wiped(|| Uint8Array::from(self.issuer.secret_key().to_pkcs8_der().as_slice()))
        }

        /// Answers a token request body: `{ body, contentType }` to send back.
        ///
        /// Type 0x0002: `allowExtensions` must be absent. Type 0xDA7A: `allowExtensions` is
        /// required, the issuer's policy on the request's extensions: it is called with their
        /// encoding (`decodeExtensions` reads it) and must return `true` to sign; anything else
        /// refuses the request with `UNSUPPORTED_VALUE` (an exception it throws is rethrown).
        ///
        /// Throws `INVALID_LENGTH` or `INVALID_ENCODING` for a malformed body,
        /// `UNSUPPORTED_VALUE` for another token type or key id, `OUT_OF_RANGE` for a blinded
        /// message not below the modulus.
        #[wasm_bindgen(unchecked_return_type = "IssueResult")]
        pub fn issue(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] request: JsValue,
            #[wasm_bindgen(
                js_name = allowExtensions,
                unchecked_optional_param_type = "(extensions: Uint8Array) => boolean"
            )]
            allow_extensions: JsValue,
        ) -> JsResult<JsValue> {
            let body = bytes(&request, "request")?;
            let allow = if allow_extensions.is_undefined() || allow_extensions.is_null() {
                None
            } else {
                Some(
                    allow_extensions
                        .dyn_into::<js_sys::Function>()
                        .map_err(|_| crate::bad_arg("allowExtensions", "expected a function"))?,
                )
            };
            let resp = match (self.token_type, allow) {
                (TYPE_2, None) => wiped(|| self.issuer.issue(&body).or_throw())?,
                (TYPE_2, Some(_)) => {
                    return Err(crate::bad_arg(
                        "allowExtensions",
                        "token type 0x0002 has no extensions",
                    ))
                }
                (_, None) => {
                    return Err(crate::bad_arg(
                        "allowExtensions",
                        "required for token type 0xDA7A: the issuer's policy on the extensions",
                    ))
                }
                (_, Some(f)) => {
                    let mut thrown = None;
                    let r = wiped(|| {
                        self.issuer.issue_extended(&body, |e| {
                            match f.call1(&JsValue::NULL, &u8a(e.as_bytes())) {
                                Ok(v) => v.as_bool() == Some(true),
                                Err(x) => {
                                    thrown = Some(x);
                                    false
                                }
                            }
                        })
                    });
                    if let Some(x) = thrown {
                        return Err(x);
                    }
                    r.or_throw()?
                }
            };
            Ok(object(&[
                ("body", u8a(&resp.to_bytes())),
                ("contentType", RESPONSE_MEDIA_TYPE.into()),
            ]))
        }
    }

    /// An issuer's public key (the directory's `token-key`): what an origin verifies type
    /// 0x0002 and 0xDA7A tokens with. Public: nothing to wipe.
    #[wasm_bindgen]
    pub struct BlindRsaTokenKey {
        key: rsa_pp::TokenKey,
    }

    fn sha256(b: &[u8]) -> [u8; 32] {
        sha2::Digest::finalize(sha2::Digest::chain_update(
            <sha2::Sha256 as sha2::Digest>::new(),
            b,
        ))
        .into()
    }

    impl BlindRsaTokenKey {
        fn check(
            &self,
            token: &[u8],
            challenge: Option<&[u8]>,
            extensions: &JsValue,
        ) -> JsResult<bool> {
            let ext = if extensions.is_undefined() || extensions.is_null() {
                None
            } else {
                Some(rsa_pp::Extensions::from_bytes(&bytes(extensions, "extensions")?).or_throw()?)
            };
            wiped(|| {
                let t = rsa_pp::Token::from_bytes(token).or_throw()?;
                if let Some(c) = challenge {
                    if t.challenge_digest()[..] != sha256(c) {
                        return Ok(false);
                    }
                }
                match self.key.verify(&t, ext.as_ref()) {
                    Ok(()) => Ok(true),
                    // Another key id or token type, or an authenticator that does not verify.
                    Err(Error::UnsupportedValue | Error::InvalidSignature) => Ok(false),
                    Err(e) => Err(lib_error(e)),
                }
            })
        }
    }

    #[wasm_bindgen]
    impl BlindRsaTokenKey {
        /// The key of a directory's `token-key` (the SPKI DER, base64url-decoded): RSASSA-PSS
        /// with RFC 9578's parameters, RSA-2048, `e = 65537` (`INVALID_KEY` otherwise).
        #[wasm_bindgen(js_name = fromSpki)]
        pub fn from_spki(
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] spki: JsValue,
        ) -> JsResult<BlindRsaTokenKey> {
            let b = bytes(&spki, "spki")?;
            Ok(BlindRsaTokenKey {
                key: rsa_pp::TokenKey::from_spki(&b).or_throw()?,
            })
        }

        /// The SPKI DER (`token-key`).
        #[wasm_bindgen(js_name = toSpki)]
        pub fn to_spki(&self) -> Vec<u8> {
            self.key.to_spki().to_vec()
        }

        /// `SHA-256(token-key)`, the key id tokens carry.
        #[wasm_bindgen(getter, js_name = tokenKeyId)]
        pub fn token_key_id(&self) -> Vec<u8> {
            self.key.id().to_vec()
        }

        /// Verifies a token at the origin (RFC 9578 §6.4; the metadata draft §6.4 for 0xDA7A):
        /// `true` when it was issued under this key **for `challenge`** (the challenge the origin
        /// sent: its bytes, or the `Challenge` object) and, for type 0xDA7A, for `extensions`
        /// (their encoding, as the client sent them). `false` for another key, challenge or
        /// extensions, or a bad authenticator; throws `INVALID_ARGUMENT` without a challenge,
        /// `INVALID_INPUT` for a 0xDA7A token without extensions or a 0x0002 token with them,
        /// and the decoding codes for bytes that are not a token. Double-spend checks (one
        /// nonce, one use) are the origin's job.
        #[wasm_bindgen(js_name = verifyToken)]
        pub fn verify_token(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array | Challenge")] challenge: JsValue,
            #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] extensions: JsValue,
        ) -> JsResult<bool> {
            let token = secret_bytes(&token, "token")?;
            if challenge.is_undefined() || challenge.is_null() {
                return Err(crate::bad_arg(
                    "challenge",
                    "required: the challenge this origin sent (verifyTokenAnyChallenge skips the check, explicitly)",
                ));
            }
            let challenge = bytes(&challenge, "challenge")?;
            self.check(&token, Some(&challenge), &extensions)
        }

        /// `verifyToken` **without** the challenge check: `true` for any token issued under this
        /// key (and, for 0xDA7A, these extensions), whichever challenge it was made for.
        #[wasm_bindgen(js_name = verifyTokenAnyChallenge)]
        pub fn verify_token_any_challenge(
            &self,
            #[wasm_bindgen(unchecked_param_type = "Uint8Array")] token: JsValue,
            #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] extensions: JsValue,
        ) -> JsResult<bool> {
            let token = secret_bytes(&token, "token")?;
            self.check(&token, None, &extensions)
        }
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** One extension of type 0xDA7A's public metadata: `type` 0 to 65535, `data` its bytes. */
export interface Extension { type: number; data: Uint8Array }
"#;
