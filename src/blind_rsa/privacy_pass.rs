//! Privacy Pass publicly verifiable tokens: type `0x0002`, blind RSA (RFC 9578 §6,
//! RSABSSA-SHA384-PSS-Deterministic, RSA-2048), and type `0xDA7A`, partially blind RSA with
//! public metadata (draft-ietf-privacypass-public-metadata-issuance-03 §6,
//! RSAPBSSA-SHA384-PSS-Deterministic), whose metadata is the encoded [`Extensions`].
//!
//! - The **client** reads the issuer's key ([`TokenKey::from_spki`], the directory's
//!   `token-key`), builds a request for a challenge with [`Client::request`] (or
//!   [`Client::request_with_extensions`] for `0xDA7A`) and finalizes the issuer's response
//!   into a [`Token`] with [`ClientState::finalize`].
//! - The **issuer** answers with [`Issuer::issue`] / [`Issuer::issue_extended`].
//! - The **origin** (anyone with the public key) checks a token with [`TokenKey::verify`];
//!   the challenge and double-spending checks are its own (the token carries the challenge's
//!   digest and a nonce).
//!
//! ```
//! use privacy_tokens::blind_rsa::privacy_pass::{Client, Issuer, TOKEN_TYPE_BLIND_RSA};
//! use privacy_tokens::privacy_pass::TokenChallenge;
//!
//! let mut rng = rand::rng();
//! # let issuer = Issuer::new(privacy_tokens::blind_rsa::test_key()?)?;
//! # /*
//! let issuer = Issuer::new(SecretKey::generate(&mut rng, 2048, false)?)?;
//! # */
//! let key = issuer.token_key().clone(); // what the directory publishes, as `to_spki()`
//! let challenge = TokenChallenge::new(
//!     TOKEN_TYPE_BLIND_RSA, b"issuer.example".to_vec(), vec![], b"origin.example".to_vec(),
//! )?
//! .to_bytes();
//! let (request, state) = Client::request(&key, &challenge, &mut rng)?;
//! let response = issuer.issue(&request.to_bytes())?;
//! let token = state.finalize(&response.to_bytes())?;
//! key.verify(&token, None)?;
//! # Ok::<(), privacy_tokens::Error>(())
//! ```

use rand_core::CryptoRng;
use zeroize::Zeroize;

use super::{BlindingState, PublicKey, SecretKey, Variant};
use crate::privacy_pass::{
    read_u16 as u16_at, sha256, token_input_of as token_input, TokenChallenge, NID, NONCE_LEN,
    TOKEN_INPUT_LEN,
};
use crate::{Error, Result};

/// Token type `0x0002`: blind RSA (2048-bit), RFC 9578 §6.
pub const TOKEN_TYPE_BLIND_RSA: u16 = 0x0002;
/// Token type `0xDA7A`: partially blind RSA (2048-bit) with public metadata.
pub const TOKEN_TYPE_PARTIALLY_BLIND_RSA: u16 = 0xDA7A;
/// `Nk`: the authenticator's (and blinded message's, and response's) length: 256 bytes.
pub const NK: usize = 256;
/// A token request: `token_type (2) || truncated_token_key_id (1) || blinded_msg (Nk)`.
pub const TOKEN_REQUEST_LEN: usize = 3 + NK;
/// A token: `token_input (98) || authenticator (Nk)`.
pub const TOKEN_LEN: usize = TOKEN_INPUT_LEN + NK;
/// The most bytes an [`Extensions`] list may hold (its `u16` length prefix).
pub const MAX_EXTENSIONS_LEN: usize = u16::MAX as usize;

/// The variant both token types use (the SPKI's salt length is 48).
const VARIANT: Variant = Variant::PssDeterministic;

// ---------------------------------------------------------------------------------------------
// Keys

/// An issuer's public key as Privacy Pass names it: the RSA-2048 key, its SubjectPublicKeyInfo
/// (the directory's `token-key`) and `token_key_id = SHA-256(SPKI)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenKey {
    key: PublicKey,
    spki: Vec<u8>,
    id: [u8; NID],
}

impl TokenKey {
    /// The key of a directory's `token-key` (the SPKI DER, decoded from base64url by the
    /// caller): id-RSASSA-PSS with RFC 9578's parameters, a 2048-bit modulus and `e = 65537`
    /// (`InvalidKey` otherwise). The key id is over these exact bytes.
    pub fn from_spki(spki: &[u8]) -> Result<Self> {
        let (n, e, alg) = super::der::parse_spki(spki)?;
        if alg != super::der::SpkiAlgorithm::PssSha384 {
            return Err(Error::InvalidKey);
        }
        Self::new(PublicKey::from_components(&n, &e)?)
    }

    /// The token key of an RSA public key (2048-bit, `e = 65537`; `InvalidKey` otherwise).
    pub fn new(key: PublicKey) -> Result<Self> {
        if key.modulus_bits() != 2048 || key.exponent() != [0x01, 0x00, 0x01] {
            return Err(Error::InvalidKey);
        }
        let spki = key.to_spki();
        let id = sha256(&spki);
        Ok(Self { key, spki, id })
    }

    /// The RSA public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// The SubjectPublicKeyInfo DER (342 bytes): the directory's `token-key`.
    pub fn to_spki(&self) -> &[u8] {
        &self.spki
    }

    /// `token_key_id`.
    pub fn id(&self) -> &[u8; NID] {
        &self.id
    }

    /// The truncated key id, `token_key_id[31]`.
    pub fn truncated_id(&self) -> u8 {
        self.id[NID - 1]
    }

    /// Origin verification (RFC 9578 §6.4; the metadata draft §6.4 for `0xDA7A`): the token's
    /// key id is this key's and its authenticator verifies over `token_input`, under the key
    /// derived for `extensions` for type `0xDA7A` (which needs them: `InvalidInput` without;
    /// a `0x0002` token refuses them). `UnsupportedValue` for another token type or key id,
    /// `InvalidSignature` for a bad authenticator. The challenge digest and the nonce are the
    /// caller's checks ([`Token::challenge_digest`], [`Token::nonce`]).
    pub fn verify(&self, token: &Token, extensions: Option<&Extensions>) -> Result<()> {
        if token.token_key_id != self.id {
            return Err(Error::UnsupportedValue);
        }
        let input = token.token_input();
        match (token.token_type, extensions) {
            (TOKEN_TYPE_BLIND_RSA, None) => self.key.verify(VARIANT, &input, &token.authenticator),
            (TOKEN_TYPE_PARTIALLY_BLIND_RSA, Some(ext)) => {
                self.key
                    .verify_with_info(VARIANT, &input, ext.as_bytes(), &token.authenticator)
            }
            (TOKEN_TYPE_BLIND_RSA | TOKEN_TYPE_PARTIALLY_BLIND_RSA, _) => Err(Error::InvalidInput),
            _ => Err(Error::UnsupportedValue),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Extensions

/// One extension: `u16 extension_type || opaque extension_data<0..2^16-1>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Extension {
    /// `extension_type`.
    pub extension_type: u16,
    /// `extension_data`.
    pub data: Vec<u8>,
}

/// The `Extensions` structure (draft-ietf-privacypass-auth-scheme-extensions-04 §3): a `u16`
/// length, then extensions in ascending type order (repeats allowed). Kept as the exact bytes
/// received or built: they are the partially blind signature's metadata, never re-encoded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Extensions {
    bytes: Vec<u8>,
    list: Vec<Extension>,
}

impl Extensions {
    /// The structure of a list (sorted here by type, stably). `InputTooLong` when it exceeds
    /// 2^16 - 1 bytes.
    pub fn new(mut list: Vec<Extension>) -> Result<Self> {
        list.sort_by_key(|e| e.extension_type);
        let mut body = Vec::new();
        for e in &list {
            let len = u16::try_from(e.data.len()).map_err(|_| Error::InputTooLong)?;
            body.extend_from_slice(&e.extension_type.to_be_bytes());
            body.extend_from_slice(&len.to_be_bytes());
            body.extend_from_slice(&e.data);
        }
        let total = u16::try_from(body.len()).map_err(|_| Error::InputTooLong)?;
        let mut bytes = total.to_be_bytes().to_vec();
        bytes.extend_from_slice(&body);
        Ok(Self { bytes, list })
    }

    /// Strict decoding of exactly one structure: `InvalidLength` for a length that disagrees
    /// with the bytes (short, or trailing bytes), `InvalidEncoding` for types out of order.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (total, mut rest) = u16_at(bytes)?;
        if rest.len() != usize::from(total) {
            return Err(Error::InvalidLength);
        }
        let mut list = Vec::new();
        while !rest.is_empty() {
            let (t, r) = u16_at(rest)?;
            let (len, r) = u16_at(r)?;
            let len = usize::from(len);
            if r.len() < len {
                return Err(Error::InvalidLength);
            }
            if list
                .last()
                .is_some_and(|e: &Extension| e.extension_type > t)
            {
                return Err(Error::InvalidEncoding);
            }
            list.push(Extension {
                extension_type: t,
                data: r[..len].to_vec(),
            });
            rest = &r[len..];
        }
        Ok(Self {
            bytes: bytes.to_vec(),
            list,
        })
    }

    /// The encoding (the partially blind signature's `info`).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The extensions, in order.
    pub fn list(&self) -> &[Extension] {
        &self.list
    }
}

// ---------------------------------------------------------------------------------------------
// Messages

/// `TokenRequest` (RFC 9578 §6.1): `token_type || truncated_token_key_id || blinded_msg[Nk]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    token_type: u16,
    truncated_token_key_id: u8,
    blinded_msg: Vec<u8>,
}

impl TokenRequest {
    /// The token type.
    pub fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The truncated key id.
    pub fn truncated_token_key_id(&self) -> u8 {
        self.truncated_token_key_id
    }

    /// The blinded message.
    pub fn blinded_msg(&self) -> &[u8] {
        &self.blinded_msg
    }

    /// The 259 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TOKEN_REQUEST_LEN);
        out.extend_from_slice(&self.token_type.to_be_bytes());
        out.push(self.truncated_token_key_id);
        out.extend_from_slice(&self.blinded_msg);
        out
    }

    /// Strict decoding: exactly 259 bytes (`InvalidLength`), a type of this module
    /// (`UnsupportedValue`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != TOKEN_REQUEST_LEN {
            return Err(Error::InvalidLength);
        }
        let (token_type, rest) = u16_at(bytes)?;
        if token_type != TOKEN_TYPE_BLIND_RSA && token_type != TOKEN_TYPE_PARTIALLY_BLIND_RSA {
            return Err(Error::UnsupportedValue);
        }
        Ok(Self {
            token_type,
            truncated_token_key_id: rest[0],
            blinded_msg: rest[1..].to_vec(),
        })
    }
}

/// `ExtendedTokenRequest` (metadata draft §6.1): a `0xDA7A` [`TokenRequest`] followed by
/// its [`Extensions`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtendedTokenRequest {
    request: TokenRequest,
    extensions: Extensions,
}

impl ExtendedTokenRequest {
    /// A `0xDA7A` request with its extensions (`UnsupportedValue` for a request of another
    /// type).
    pub fn new(request: TokenRequest, extensions: Extensions) -> Result<Self> {
        if request.token_type != TOKEN_TYPE_PARTIALLY_BLIND_RSA {
            return Err(Error::UnsupportedValue);
        }
        Ok(Self {
            request,
            extensions,
        })
    }

    /// The request.
    pub fn request(&self) -> &TokenRequest {
        &self.request
    }

    /// The extensions.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// `TokenRequest || Extensions`.
    pub fn to_bytes(&self) -> Vec<u8> {
        [
            self.request.to_bytes().as_slice(),
            self.extensions.as_bytes(),
        ]
        .concat()
    }

    /// Strict decoding: a `0xDA7A` request of 259 bytes, then one `Extensions` that ends the
    /// input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < TOKEN_REQUEST_LEN {
            return Err(Error::InvalidLength);
        }
        let (req, ext) = bytes.split_at(TOKEN_REQUEST_LEN);
        let request = TokenRequest::from_bytes(req)?;
        if request.token_type != TOKEN_TYPE_PARTIALLY_BLIND_RSA {
            return Err(Error::UnsupportedValue);
        }
        Ok(Self {
            request,
            extensions: Extensions::from_bytes(ext)?,
        })
    }
}

/// `TokenResponse` (RFC 9578 §6.2): the blind signature, `Nk` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenResponse {
    blind_sig: Vec<u8>,
}

impl TokenResponse {
    /// The `Nk` bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.blind_sig.clone()
    }

    /// Exactly `Nk` bytes (`InvalidLength`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != NK {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            blind_sig: bytes.to_vec(),
        })
    }
}

/// A token (RFC 9578 §6.3): `token_type || nonce || challenge_digest || token_key_id ||
/// authenticator[Nk]`, 354 bytes. A bearer secret until redeemed: wiped on drop.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    token_type: u16,
    nonce: [u8; NONCE_LEN],
    challenge_digest: [u8; 32],
    token_key_id: [u8; NID],
    authenticator: Vec<u8>,
}

impl core::fmt::Debug for Token {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Token")
            .field("token_type", &self.token_type)
            .finish_non_exhaustive()
    }
}

impl Zeroize for Token {
    fn zeroize(&mut self) {
        self.nonce.zeroize();
        self.challenge_digest.zeroize();
        self.token_key_id.zeroize();
        self.authenticator.zeroize();
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl Token {
    /// The token type.
    pub fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The client's nonce (the origin's double-spending key).
    pub fn nonce(&self) -> &[u8; NONCE_LEN] {
        &self.nonce
    }

    /// SHA-256 of the challenge the token answers.
    pub fn challenge_digest(&self) -> &[u8; 32] {
        &self.challenge_digest
    }

    /// The issuer key's id.
    pub fn token_key_id(&self) -> &[u8; NID] {
        &self.token_key_id
    }

    /// The authenticator (an RSASSA-PSS signature over `token_input`).
    pub fn authenticator(&self) -> &[u8] {
        &self.authenticator
    }

    /// `token_type || nonce || challenge_digest || token_key_id`.
    pub fn token_input(&self) -> [u8; TOKEN_INPUT_LEN] {
        token_input(
            self.token_type,
            &self.nonce,
            &self.challenge_digest,
            &self.token_key_id,
        )
    }

    /// The 354 bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        [self.token_input().as_slice(), &self.authenticator].concat()
    }

    /// Strict decoding: exactly 354 bytes (`InvalidLength`), a type of this module
    /// (`UnsupportedValue`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != TOKEN_LEN {
            return Err(Error::InvalidLength);
        }
        let (token_type, _) = u16_at(bytes)?;
        if token_type != TOKEN_TYPE_BLIND_RSA && token_type != TOKEN_TYPE_PARTIALLY_BLIND_RSA {
            return Err(Error::UnsupportedValue);
        }
        let mut t = Self {
            token_type,
            nonce: [0; NONCE_LEN],
            challenge_digest: [0; 32],
            token_key_id: [0; NID],
            authenticator: bytes[TOKEN_INPUT_LEN..].to_vec(),
        };
        t.nonce.copy_from_slice(&bytes[2..34]);
        t.challenge_digest.copy_from_slice(&bytes[34..66]);
        t.token_key_id.copy_from_slice(&bytes[66..TOKEN_INPUT_LEN]);
        Ok(t)
    }
}

// ---------------------------------------------------------------------------------------------
// Client

/// The client's steps.
#[derive(Debug)]
pub struct Client;

/// What the client keeps between its request and the issuer's response (one-shot; the blind
/// is wiped on drop).
#[derive(Debug)]
pub struct ClientState {
    token_type: u16,
    nonce: [u8; NONCE_LEN],
    challenge_digest: [u8; 32],
    key_id: [u8; NID],
    blinding: BlindingState,
}

impl Client {
    /// A type `0x0002` request for `challenge` (the `TokenChallenge` bytes as received; its
    /// type must be `0x0002`: `UnsupportedValue` otherwise).
    pub fn request<R: CryptoRng + ?Sized>(
        key: &TokenKey,
        challenge: &[u8],
        rng: &mut R,
    ) -> Result<(TokenRequest, ClientState)> {
        let mut nonce = [0u8; NONCE_LEN];
        rng.fill_bytes(&mut nonce);
        request(key, challenge, None, &nonce, |pk, input, _| {
            pk.blind(VARIANT, input, rng)
        })
    }

    /// A type `0xDA7A` request for `challenge` with `extensions` (the challenge's type must be
    /// `0xDA7A`).
    pub fn request_with_extensions<R: CryptoRng + ?Sized>(
        key: &TokenKey,
        challenge: &[u8],
        extensions: &Extensions,
        rng: &mut R,
    ) -> Result<(ExtendedTokenRequest, ClientState)> {
        let mut nonce = [0u8; NONCE_LEN];
        rng.fill_bytes(&mut nonce);
        let (request, state) =
            request(key, challenge, Some(extensions), &nonce, |pk, input, _| {
                pk.blind_with_info(VARIANT, input, extensions.as_bytes(), rng)
            })?;
        Ok((
            ExtendedTokenRequest {
                request,
                extensions: extensions.clone(),
            },
            state,
        ))
    }

    /// **Dangerous**: a request with a chosen nonce, PSS salt and blind `r` (big-endian), for
    /// the published vectors. Fresh uniform values are what keep a token unlinkable.
    #[doc(hidden)]
    pub fn request_with(
        key: &TokenKey,
        challenge: &[u8],
        extensions: Option<&Extensions>,
        nonce: &[u8; NONCE_LEN],
        salt: &[u8],
        blind: &[u8],
    ) -> Result<(TokenRequest, ClientState)> {
        request(key, challenge, extensions, nonce, |pk, input, info| {
            super::blind_for_vectors(pk, VARIANT, input, info, salt, super::RsaBlind::R(blind))
        })
    }
}

/// The request's common steps; `blind` blinds `token_input` (with the extensions' bytes as
/// metadata for `0xDA7A`).
fn request(
    key: &TokenKey,
    challenge: &[u8],
    extensions: Option<&Extensions>,
    nonce: &[u8; NONCE_LEN],
    blind: impl FnOnce(
        &PublicKey,
        &[u8],
        Option<&[u8]>,
    ) -> Result<(super::BlindedMessage, BlindingState)>,
) -> Result<(TokenRequest, ClientState)> {
    let parsed = TokenChallenge::from_bytes(challenge)?;
    let token_type = match extensions {
        None => TOKEN_TYPE_BLIND_RSA,
        Some(_) => TOKEN_TYPE_PARTIALLY_BLIND_RSA,
    };
    if parsed.token_type() != token_type {
        return Err(Error::UnsupportedValue);
    }
    let challenge_digest = sha256(challenge);
    let input = token_input(token_type, nonce, &challenge_digest, &key.id);
    let (blinded, blinding) = blind(&key.key, &input, extensions.map(Extensions::as_bytes))?;
    Ok((
        TokenRequest {
            token_type,
            truncated_token_key_id: key.truncated_id(),
            blinded_msg: blinded.into_bytes(),
        },
        ClientState {
            token_type,
            nonce: *nonce,
            challenge_digest,
            key_id: key.id,
            blinding,
        },
    ))
}

impl ClientState {
    /// `Finalize` (RFC 9578 §6.3): the token from the issuer's response bytes, its
    /// authenticator verified (`InvalidSignature` otherwise; `InvalidLength` for a response
    /// of another length than `Nk`).
    pub fn finalize(self, response: &[u8]) -> Result<Token> {
        self.finalize_response(&TokenResponse::from_bytes(response)?)
    }

    /// [`ClientState::finalize`] of a response already decoded (a generic batch's entry).
    pub fn finalize_response(self, response: &TokenResponse) -> Result<Token> {
        let sig = self.blinding.finalize(&response.blind_sig)?;
        Ok(Token {
            token_type: self.token_type,
            nonce: self.nonce,
            challenge_digest: self.challenge_digest,
            token_key_id: self.key_id,
            authenticator: sig.into_bytes(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The issuer: its RSA-2048 key (for `0xDA7A`, one made of safe primes) and the token key it
/// publishes.
#[derive(Debug)]
pub struct Issuer {
    key: SecretKey,
    token_key: TokenKey,
}

impl Issuer {
    /// The issuer of a 2048-bit key with `e = 65537` (`InvalidKey` otherwise).
    pub fn new(key: SecretKey) -> Result<Self> {
        let token_key = TokenKey::new(key.public_key().clone())?;
        Ok(Self { key, token_key })
    }

    /// The issuer of type `0xDA7A` tokens: [`Issuer::new`] for a key whose primes are both
    /// safe primes, as partially blind RSA requires (draft-irtf-cfrg-partially-blind-rsa §4: with
    /// other primes some metadata has no derived key, and the scheme's analysis assumes them).
    /// The check is two primality tests per prime, variable time in the primes, as key loading
    /// is: milliseconds.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a key whose primes are not both safe primes, and as
    /// [`Issuer::new`].
    pub fn new_partially_blind(key: SecretKey) -> Result<Self> {
        if !key.has_safe_primes() {
            return Err(Error::InvalidKey);
        }
        Self::new(key)
    }

    /// The token key to publish.
    pub fn token_key(&self) -> &TokenKey {
        &self.token_key
    }

    /// The issuer's RSA key (to store it: [`SecretKey::to_pem`]).
    pub fn secret_key(&self) -> &SecretKey {
        &self.key
    }

    /// A type `0x0002` response (RFC 9578 §6.2): `InvalidLength` for a request of another
    /// length, `UnsupportedValue` for another type or truncated key id, and `BlindSign`'s
    /// errors (`OutOfRange` for a blinded message not below `n`).
    pub fn issue(&self, request: &[u8]) -> Result<TokenResponse> {
        self.issue_request(&TokenRequest::from_bytes(request)?)
    }

    /// [`Issuer::issue`] of a request already decoded (a generic batch's entry, or a request
    /// the caller read for its key id): `UnsupportedValue` for another type or truncated key
    /// id, and `BlindSign`'s errors.
    pub fn issue_request(&self, request: &TokenRequest) -> Result<TokenResponse> {
        if request.token_type != TOKEN_TYPE_BLIND_RSA
            || request.truncated_token_key_id != self.token_key.truncated_id()
        {
            return Err(Error::UnsupportedValue);
        }
        let sig = self.key.blind_sign(&request.blinded_msg)?;
        Ok(TokenResponse {
            blind_sig: sig.into_bytes(),
        })
    }

    /// A type `0xDA7A` response to an `ExtendedTokenRequest` (metadata draft §6.2), signed
    /// under the key derived for its extensions; `allow` is the issuer's policy on them (return
    /// `false` to refuse: `UnsupportedValue`).
    pub fn issue_extended(
        &self,
        request: &[u8],
        allow: impl FnOnce(&Extensions) -> bool,
    ) -> Result<TokenResponse> {
        self.issue_extended_request(&ExtendedTokenRequest::from_bytes(request)?, allow)
    }

    /// [`Issuer::issue_extended`] of a request already decoded (one the caller read for its key
    /// id or its extensions).
    pub fn issue_extended_request(
        &self,
        request: &ExtendedTokenRequest,
        allow: impl FnOnce(&Extensions) -> bool,
    ) -> Result<TokenResponse> {
        if request.request.truncated_token_key_id != self.token_key.truncated_id()
            || !allow(&request.extensions)
        {
            return Err(Error::UnsupportedValue);
        }
        let sig = self
            .key
            .blind_sign_with_info(&request.request.blinded_msg, request.extensions.as_bytes())?;
        Ok(TokenResponse {
            blind_sig: sig.into_bytes(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `new_partially_blind` takes the partially blind RSA draft's key (safe primes) and
    /// refuses RFC 9578's test key (plain primes), which `new` takes (the control).
    #[test]
    fn partially_blind_issuers_need_safe_primes() {
        let json: serde_json::Value = serde_json::from_str(include_str!(
            "../../test-vectors/blind-rsa/pbrsa-draft-irtf-cfrg-partially-blind-rsa-02.json"
        ))
        .unwrap(); // ok: test
        let hex = |k: &str| hex::decode(json[0][k].as_str().unwrap()).unwrap(); // ok: test
        let safe = SecretKey::from_components(&hex("p"), &hex("q"), &hex("d"), &hex("e")).unwrap(); // ok: test
        assert!(Issuer::new_partially_blind(safe).is_ok());
        let plain = crate::blind_rsa::test_key().unwrap(); // ok: test
        assert!(Issuer::new(plain.clone()).is_ok());
        assert_eq!(
            Issuer::new_partially_blind(plain).map(|_| ()),
            Err(Error::InvalidKey)
        );
    }
}
