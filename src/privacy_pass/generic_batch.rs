//! Generic token batch issuance (draft-ietf-privacypass-batched-tokens, "Generic Token Batch
//! Issuance"): one request carrying token requests of several token types, here `0x0001`
//! ([`Type1`]), `0x0002` (blind RSA, [`rsa`](crate::blind_rsa::privacy_pass)) and `0x0005` ([`Type5`]),
//! each answered on its own, with an absent answer where the issuer refused that one.
//!
//! Type `0xDA7A` (partially blind RSA) is not carried: its request is an
//! `ExtendedTokenRequest`, whose extensions have no place in a `GenericTokenRequest`, so a
//! `0xDA7A` entry is refused as an unsupported type (privacypass-ts's generic batch carries
//! `0x0001` and `0x0002`, the same choice).
//!
//! The wire format, as the draft lays it out and its peers (privacypass-ts `genericBatched`,
//! cloudflare/pat-go, raphaelrobert/privacypass) encode it. `<V>` is a byte length in the QUIC
//! varint encoding (RFC 9000 §16) that must be minimal:
//!
//! ```text
//! // Each request is an RFC 9578 §5.1 TokenRequest, which starts with its uint16 token_type.
//! struct { GenericTokenRequest generic_token_requests<V>; } GenericBatchTokenRequest;
//!
//! struct {
//!     uint8 present;                               // 0 or 1, anything else is malformed
//!     select (present) {
//!         case 0: struct {};                       // not issued
//!         case 1: uint16 token_type; TokenResponse token_response;   // RFC 9578 §5.2
//!     };
//! } OptionalTokenResponse;
//! struct { OptionalTokenResponse optional_token_responses<V>; } GenericBatchTokenResponse;
//! ```
//!
//! Media types: [`REQUEST_MEDIA_TYPE`] and [`RESPONSE_MEDIA_TYPE`]. The issuer answers HTTP 200
//! when it issued every token, 206 when it issued some, 400 when none
//! ([`GenericBatchTokenResponse::http_status`]).
//!
//! Every decoder is strict: the length prefix must be minimal and equal the rest of the input,
//! each entry must have its token type's exact length, a token type other than `0x0001`,
//! `0x0002` and `0x0005` is refused, and the number of entries is checked against a limit while framing,
//! before any element is decoded.
//!
//! ```
//! use privacy_tokens::blind_rsa::privacy_pass as rsa;
//! use privacy_tokens::privacy_pass::generic_batch::{self, GenericPublicKey};
//! use privacy_tokens::privacy_pass::TokenChallenge;
//! use privacy_tokens::voprf::privacy_pass::{type5, Issuer, TOKEN_TYPE};
//! use privacy_tokens::voprf::VoprfServer;
//!
//! let mut rng = rand::rng();
//! let one = Issuer::new(VoprfServer::new(&mut rng));
//! let five = type5::Issuer::new(VoprfServer::new(&mut rng));
//! # let two = rsa::Issuer::new(privacy_tokens::blind_rsa::test_key()?)?;
//! # /*
//! let two = rsa::Issuer::new(privacy_tokens::blind_rsa::SecretKey::generate(&mut rng, 2048, false)?)?;
//! # */
//! let challenge = |t| {
//!     TokenChallenge::new(t, b"issuer.example".to_vec(), vec![], vec![]).map(|c| c.to_bytes())
//! };
//! let (c1, c5) = (challenge(TOKEN_TYPE)?, challenge(type5::TOKEN_TYPE)?);
//! let c2 = challenge(rsa::TOKEN_TYPE_BLIND_RSA)?;
//! let (request, state) = generic_batch::request(
//!     &[
//!         (GenericPublicKey::Type1(one.public_key()), &c1[..]),
//!         (GenericPublicKey::Type5(five.public_key()), &c5[..]),
//!         (GenericPublicKey::BlindRsa(two.token_key()), &c2[..]),
//!     ],
//!     &mut rng,
//! )?;
//! // The issuer decodes the bytes with a limit on the number of requests, then answers.
//! let request = generic_batch::GenericBatchTokenRequest::from_bytes(&request.to_bytes())?;
//! let response = generic_batch::issue(
//!     &mut rng, &request, 16, |_| Some(&one), |_| Some(&five), |_| Some(&two),
//! )?;
//! assert_eq!(response.http_status(), 200);
//! let response = generic_batch::GenericBatchTokenResponse::from_bytes(&response.to_bytes())?;
//! let tokens = state.finalize(&response)?;
//! assert_eq!(tokens.iter().flatten().count(), 3);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```

use rand_core::CryptoRng;

use super::{varint_decode, varint_encode as put_varint, NONCE_LEN};
use crate::blind_rsa::privacy_pass as rsa;
use crate::voprf::privacy_pass::generic::{
    Client, ClientState, Issuer, Token, TokenRequest, TokenResponse,
};
use crate::voprf::privacy_pass::{TokenType, Type1, Type5, DEFAULT_MAX_BATCH};
use crate::voprf::PublicKey;
use crate::{Error, Result};

/// The request media type, `application/private-token-generic-batch-request`.
pub const REQUEST_MEDIA_TYPE: &str = "application/private-token-generic-batch-request";
/// The response media type, `application/private-token-generic-batch-response`.
pub const RESPONSE_MEDIA_TYPE: &str = "application/private-token-generic-batch-response";

/// Prefixes `body` with its `<V>` length.
fn with_length(body: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 8);
    put_varint(body.len(), &mut out);
    out.extend_from_slice(&body);
    out
}

/// Reads a `<V>` prefix that must be minimal and equal the length of the rest of `bytes`, and
/// returns that rest (the vector's body).
///
/// # Errors
/// [`Error::InvalidLength`] for an empty input, a truncated prefix, a non-minimal prefix, or a
/// length other than the rest's.
fn vector_body(bytes: &[u8]) -> Result<&[u8]> {
    let (len, body) = varint_decode(bytes)?;
    if body.len() != len {
        return Err(Error::InvalidLength);
    }
    Ok(body)
}

/// The token type leading `bytes`.
fn leading_type(bytes: &[u8]) -> Result<u16> {
    match bytes {
        [a, b, ..] => Ok(u16::from_be_bytes([*a, *b])),
        _ => Err(Error::InvalidLength),
    }
}

/// The encoded length of a token request of `token_type`.
fn request_len(token_type: u16) -> Result<usize> {
    match token_type {
        Type1::TOKEN_TYPE => Ok(Type1::TOKEN_REQUEST_LEN),
        Type5::TOKEN_TYPE => Ok(Type5::TOKEN_REQUEST_LEN),
        rsa::TOKEN_TYPE_BLIND_RSA => Ok(rsa::TOKEN_REQUEST_LEN),
        _ => Err(Error::UnsupportedValue),
    }
}

/// The encoded length of a token response of `token_type` (without its `token_type`).
fn response_len(token_type: u16) -> Result<usize> {
    match token_type {
        Type1::TOKEN_TYPE => Ok(Type1::TOKEN_RESPONSE_LEN),
        Type5::TOKEN_TYPE => Ok(Type5::TOKEN_RESPONSE_LEN),
        rsa::TOKEN_TYPE_BLIND_RSA => Ok(rsa::NK),
        _ => Err(Error::UnsupportedValue),
    }
}

// ---------------------------------------------------------------------------------------------
// Requests

/// One token request of a generic batch: an RFC 9578 §5.1 `TokenRequest` of a supported type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenericTokenRequest {
    /// A token type `0x0001` request.
    Type1(TokenRequest<Type1>),
    /// A token type `0x0005` request.
    Type5(TokenRequest<Type5>),
    /// A token type `0x0002` (blind RSA) request.
    BlindRsa(rsa::TokenRequest),
}

impl GenericTokenRequest {
    /// The request's token type.
    pub fn token_type(&self) -> u16 {
        match self {
            Self::Type1(_) => Type1::TOKEN_TYPE,
            Self::Type5(_) => Type5::TOKEN_TYPE,
            Self::BlindRsa(r) => r.token_type(),
        }
    }

    /// The request's truncated token key id (the last byte of `token_key_id`).
    pub fn truncated_token_key_id(&self) -> u8 {
        match self {
            Self::Type1(r) => r.truncated_token_key_id(),
            Self::Type5(r) => r.truncated_token_key_id(),
            Self::BlindRsa(r) => r.truncated_token_key_id(),
        }
    }

    /// The request's encoding (RFC 9578 §5.1), led by its token type.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::Type1(r) => r.to_bytes().as_ref().to_vec(),
            Self::Type5(r) => r.to_bytes().as_ref().to_vec(),
            Self::BlindRsa(r) => r.to_bytes(),
        }
    }

    /// Decodes one request whose length was checked for its type by the framing.
    fn decode(token_type: u16, bytes: &[u8]) -> Result<Self> {
        match token_type {
            Type1::TOKEN_TYPE => TokenRequest::from_bytes(bytes).map(Self::Type1),
            Type5::TOKEN_TYPE => TokenRequest::from_bytes(bytes).map(Self::Type5),
            rsa::TOKEN_TYPE_BLIND_RSA => rsa::TokenRequest::from_bytes(bytes).map(Self::BlindRsa),
            _ => Err(Error::UnsupportedValue),
        }
    }
}

/// A generic batch token request: one or more [`GenericTokenRequest`]s, of any supported types
/// and keys, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericBatchTokenRequest {
    requests: Vec<GenericTokenRequest>,
}

impl GenericBatchTokenRequest {
    /// A batch of `requests`.
    ///
    /// # Errors
    /// [`Error::Batch`] when `requests` is empty or longer than 65535.
    pub fn new(requests: Vec<GenericTokenRequest>) -> Result<Self> {
        if requests.is_empty() || requests.len() > usize::from(u16::MAX) {
            return Err(Error::Batch);
        }
        Ok(Self { requests })
    }

    /// The token requests, in order.
    pub fn requests(&self) -> &[GenericTokenRequest] {
        &self.requests
    }

    /// The number of token requests (at least 1).
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// Always `false`: a batch holds at least one request.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// The encoding: the requests' encodings, concatenated, behind their `<V>` byte length.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::new();
        for r in &self.requests {
            body.extend_from_slice(&r.to_bytes());
        }
        with_length(body)
    }

    /// Decodes a request of at most [`DEFAULT_MAX_BATCH`] (256) token requests.
    ///
    /// # Errors
    /// As [`GenericBatchTokenRequest::from_bytes_with_limit`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes_with_limit(bytes, DEFAULT_MAX_BATCH)
    }

    /// Decodes a request of at most `max` token requests. The framing (the length prefix, each
    /// request's token type and length) and the count are checked before any element is
    /// decoded, so a refused request costs no curve work.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a malformed, non-minimal or wrong length prefix, or a
    /// truncated request; [`Error::UnsupportedValue`] for a token type other than `0x0001`,
    /// `0x0002` and `0x0005`; [`Error::Batch`] for no request or more than `max`; then a request's own
    /// decoding error ([`Error::InvalidPoint`], [`Error::IdentityElement`]).
    pub fn from_bytes_with_limit(bytes: &[u8], max: u16) -> Result<Self> {
        let requests = frame_requests(bytes, max)?
            .into_iter()
            .map(|(t, piece)| GenericTokenRequest::decode(t, piece))
            .collect::<Result<Vec<_>>>()?;
        Self::new(requests)
    }

    /// The token types of an encoded request, in order, from its framing alone: no element is
    /// decoded, so this costs no curve work. An issuer reads the size and the types of a batch
    /// with it before it admits the request (quotas, configured types) and decodes it with
    /// [`GenericBatchTokenRequest::from_bytes_with_limit`] afterwards.
    ///
    /// # Errors
    /// The framing errors of [`GenericBatchTokenRequest::from_bytes_with_limit`]:
    /// [`Error::InvalidLength`], [`Error::UnsupportedValue`] and [`Error::Batch`].
    pub fn token_types(bytes: &[u8], max: u16) -> Result<Vec<u16>> {
        Ok(frame_requests(bytes, max)?
            .into_iter()
            .map(|(t, _)| t)
            .collect())
    }
}

/// Splits an encoded request into its requests' token types and bytes, checking the length
/// prefix, each type and length, and the count (1 to `max`), without decoding any element.
fn frame_requests(bytes: &[u8], max: u16) -> Result<Vec<(u16, &[u8])>> {
    let mut rest = vector_body(bytes)?;
    let mut pieces = Vec::new();
    while !rest.is_empty() {
        if pieces.len() == usize::from(max) {
            return Err(Error::Batch);
        }
        let token_type = leading_type(rest)?;
        let len = request_len(token_type)?;
        if rest.len() < len {
            return Err(Error::InvalidLength);
        }
        let (piece, tail) = rest.split_at(len);
        pieces.push((token_type, piece));
        rest = tail;
    }
    if pieces.is_empty() {
        return Err(Error::Batch);
    }
    Ok(pieces)
}

// ---------------------------------------------------------------------------------------------
// Responses

/// One issued token response of a generic batch: an RFC 9578 §5.2 `TokenResponse`, tagged on
/// the wire with its token type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenericTokenResponse {
    /// A token type `0x0001` response.
    Type1(TokenResponse<Type1>),
    /// A token type `0x0005` response.
    Type5(TokenResponse<Type5>),
    /// A token type `0x0002` (blind RSA) response.
    BlindRsa(rsa::TokenResponse),
}

impl GenericTokenResponse {
    /// The response's token type.
    pub fn token_type(&self) -> u16 {
        match self {
            Self::Type1(_) => Type1::TOKEN_TYPE,
            Self::Type5(_) => Type5::TOKEN_TYPE,
            Self::BlindRsa(_) => rsa::TOKEN_TYPE_BLIND_RSA,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.token_type().to_be_bytes());
        match self {
            Self::Type1(r) => out.extend_from_slice(r.to_bytes().as_ref()),
            Self::Type5(r) => out.extend_from_slice(r.to_bytes().as_ref()),
            Self::BlindRsa(r) => out.extend_from_slice(&r.to_bytes()),
        }
    }

    fn decode(token_type: u16, bytes: &[u8]) -> Result<Self> {
        match token_type {
            Type1::TOKEN_TYPE => TokenResponse::from_bytes(bytes).map(Self::Type1),
            Type5::TOKEN_TYPE => TokenResponse::from_bytes(bytes).map(Self::Type5),
            rsa::TOKEN_TYPE_BLIND_RSA => rsa::TokenResponse::from_bytes(bytes).map(Self::BlindRsa),
            _ => Err(Error::UnsupportedValue),
        }
    }
}

/// A generic batch token response: one optional response per request, in request order;
/// `None` where the issuer failed or refused to issue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericBatchTokenResponse {
    responses: Vec<Option<GenericTokenResponse>>,
}

impl GenericBatchTokenResponse {
    /// A response of `responses` (`None` where the issuer refused).
    pub fn new(responses: Vec<Option<GenericTokenResponse>>) -> Self {
        Self { responses }
    }

    /// The responses, in request order.
    pub fn responses(&self) -> &[Option<GenericTokenResponse>] {
        &self.responses
    }

    /// How many responses are present (tokens issued).
    pub fn issued(&self) -> usize {
        self.responses.iter().flatten().count()
    }

    /// The HTTP status the draft gives this response: 200 when every token was issued, 206
    /// (Partial Content) when some were, 400 when none was.
    pub fn http_status(&self) -> u16 {
        match self.issued() {
            0 => 400,
            n if n == self.responses.len() => 200,
            _ => 206,
        }
    }

    /// The encoding: each entry's presence byte and, when present, its token type and
    /// response, concatenated behind their `<V>` byte length.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::new();
        for r in &self.responses {
            match r {
                None => body.push(0),
                Some(r) => {
                    body.push(1);
                    r.write(&mut body);
                }
            }
        }
        with_length(body)
    }

    /// Decodes a response of at most 65535 entries.
    ///
    /// # Errors
    /// As [`GenericBatchTokenResponse::from_bytes_with_limit`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes_with_limit(bytes, u16::MAX)
    }

    /// Decodes a response of at most `max` entries (a client passes the size of its request).
    /// The framing and the count are checked before any element is decoded.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a malformed, non-minimal or wrong length prefix, a presence
    /// byte other than 0 or 1, or a truncated entry; [`Error::UnsupportedValue`] for a token
    /// type other than `0x0001`, `0x0002` and `0x0005`; [`Error::Batch`] for more than `max` entries;
    /// then a response's own decoding error ([`Error::InvalidPoint`],
    /// [`Error::IdentityElement`], [`Error::NonCanonicalScalar`]).
    pub fn from_bytes_with_limit(bytes: &[u8], max: u16) -> Result<Self> {
        let mut rest = vector_body(bytes)?;
        let mut pieces = Vec::new();
        while let Some((&present, tail)) = rest.split_first() {
            if pieces.len() == usize::from(max) {
                return Err(Error::Batch);
            }
            rest = tail;
            match present {
                0 => pieces.push(None),
                1 => {
                    let token_type = leading_type(rest)?;
                    let len = response_len(token_type)?;
                    let piece = rest.get(2..2 + len).ok_or(Error::InvalidLength)?;
                    pieces.push(Some((token_type, piece)));
                    rest = &rest[2 + len..];
                }
                _ => return Err(Error::InvalidLength),
            }
        }
        let responses = pieces
            .into_iter()
            .map(|p| {
                p.map(|(t, piece)| GenericTokenResponse::decode(t, piece))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { responses })
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens, keys and the client

/// A token finalized from a generic batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenericToken {
    /// A token type `0x0001` token.
    Type1(Token<Type1>),
    /// A token type `0x0005` token.
    Type5(Token<Type5>),
    /// A token type `0x0002` (blind RSA) token.
    BlindRsa(rsa::Token),
}

impl GenericToken {
    /// The token's type.
    pub fn token_type(&self) -> u16 {
        match self {
            Self::Type1(_) => Type1::TOKEN_TYPE,
            Self::Type5(_) => Type5::TOKEN_TYPE,
            Self::BlindRsa(t) => t.token_type(),
        }
    }

    /// The token's encoding (RFC 9578 §5.3), as sent in `Authorization: PrivateToken token=`.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::Type1(t) => t.to_bytes().as_ref().to_vec(),
            Self::Type5(t) => t.to_bytes().as_ref().to_vec(),
            Self::BlindRsa(t) => t.to_bytes(),
        }
    }

    /// Decodes a token of a carried type, by its leading token type.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a truncated input or the wrong length for its type;
    /// [`Error::UnsupportedValue`] for another token type.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match leading_type(bytes)? {
            Type1::TOKEN_TYPE => Token::from_bytes(bytes).map(Self::Type1),
            Type5::TOKEN_TYPE => Token::from_bytes(bytes).map(Self::Type5),
            rsa::TOKEN_TYPE_BLIND_RSA => rsa::Token::from_bytes(bytes).map(Self::BlindRsa),
            _ => Err(Error::UnsupportedValue),
        }
    }
}

/// An issuer public key of a token type a generic batch carries.
#[derive(Clone, Copy, Debug)]
pub enum GenericPublicKey<'a> {
    /// A type `0x0001` key (P-384).
    Type1(&'a PublicKey<<Type1 as TokenType>::Suite>),
    /// A type `0x0005` key (ristretto255).
    Type5(&'a PublicKey<<Type5 as TokenType>::Suite>),
    /// A type `0x0002` key (RSA-2048, as the directory publishes it).
    BlindRsa(&'a rsa::TokenKey),
}

enum GenericClientState {
    Type1(ClientState<Type1>),
    Type5(ClientState<Type5>),
    BlindRsa(rsa::ClientState),
}

/// What a client keeps between [`request`] and [`GenericBatchClientState::finalize`]: each
/// token's [`ClientState`], zeroized on drop. Consumed by `finalize`.
pub struct GenericBatchClientState {
    states: Vec<GenericClientState>,
}

impl core::fmt::Debug for GenericBatchClientState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("GenericBatchClientState(<redacted>)")
    }
}

/// Builds a generic batch request: one token request per `(key, serialized TokenChallenge)`,
/// each as [`Client::request`] of the key's type (the challenge must ask for that type).
///
/// # Errors
/// [`Error::Batch`] for no item or more than 65535 (checked first); otherwise as
/// [`Client::request`].
pub fn request(
    items: &[(GenericPublicKey<'_>, &[u8])],
    rng: &mut (impl CryptoRng + ?Sized),
) -> Result<(GenericBatchTokenRequest, GenericBatchClientState)> {
    build(items, |(key, challenge)| match key {
        GenericPublicKey::Type1(pk) => Client::<Type1>::request(pk, challenge, rng)
            .map(|(r, s)| (GenericTokenRequest::Type1(r), GenericClientState::Type1(s))),
        GenericPublicKey::Type5(pk) => Client::<Type5>::request(pk, challenge, rng)
            .map(|(r, s)| (GenericTokenRequest::Type5(r), GenericClientState::Type5(s))),
        GenericPublicKey::BlindRsa(key) => {
            rsa::Client::request(key, challenge, rng).map(|(r, s)| {
                (
                    GenericTokenRequest::BlindRsa(r),
                    GenericClientState::BlindRsa(s),
                )
            })
        }
    })
}

/// **Dangerous**: [`request`] with a caller-chosen `nonce` and VOPRF `blind` (`Ns` bytes, in
/// the suite's scalar encoding) per item `(key, challenge, nonce, blind)`, for reproducing
/// published vectors; each item as [`Client::request_with`]. For a blind RSA item, `blind` is
/// the 48-byte PSS salt followed by the RSA blind `r` (256 bytes, big-endian).
///
/// Every nonce and blind must be fresh and uniformly random in real use: a reused or
/// predictable blind links the request to the redeemed token. Use [`request`] in applications.
///
/// # Errors
/// As [`request`], and as [`Client::request_with`] for a malformed blind.
#[allow(clippy::type_complexity)]
pub fn request_with(
    items: &[(GenericPublicKey<'_>, &[u8], &[u8; NONCE_LEN], &[u8])],
) -> Result<(GenericBatchTokenRequest, GenericBatchClientState)> {
    build(items, |(key, challenge, nonce, blind)| match key {
        GenericPublicKey::Type1(pk) => Client::<Type1>::request_with(pk, challenge, nonce, blind)
            .map(|(r, s)| (GenericTokenRequest::Type1(r), GenericClientState::Type1(s))),
        GenericPublicKey::Type5(pk) => Client::<Type5>::request_with(pk, challenge, nonce, blind)
            .map(|(r, s)| (GenericTokenRequest::Type5(r), GenericClientState::Type5(s))),
        GenericPublicKey::BlindRsa(key) => {
            let (salt, r) = blind
                .split_at_checked(RSA_SALT_LEN)
                .ok_or(Error::InvalidLength)?;
            rsa::Client::request_with(key, challenge, None, nonce, salt, r).map(|(r, s)| {
                (
                    GenericTokenRequest::BlindRsa(r),
                    GenericClientState::BlindRsa(s),
                )
            })
        }
    })
}

/// The PSS salt length of type `0x0002` (SHA-384's output length, RFC 9578 §6).
const RSA_SALT_LEN: usize = 48;

fn build<I>(
    items: &[I],
    mut one: impl FnMut(&I) -> Result<(GenericTokenRequest, GenericClientState)>,
) -> Result<(GenericBatchTokenRequest, GenericBatchClientState)> {
    if items.is_empty() || items.len() > usize::from(u16::MAX) {
        return Err(Error::Batch);
    }
    let mut requests = Vec::with_capacity(items.len());
    let mut states = Vec::with_capacity(items.len());
    for item in items {
        let (r, s) = one(item)?;
        requests.push(r);
        states.push(s);
    }
    Ok((
        GenericBatchTokenRequest::new(requests)?,
        GenericBatchClientState { states },
    ))
}

impl GenericBatchClientState {
    /// The number of token requests this state answers.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Always `false`: a batch holds at least one request.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Finalizes every present response against its request's state (RFC 9578 §5.3, with
    /// proof verification), giving `None` where the issuer sent none. All or nothing: on an
    /// error no token is returned.
    ///
    /// # Errors
    /// [`Error::Batch`] when the response has another number of entries than the request;
    /// [`Error::UnsupportedValue`] when an entry's token type is not its request's;
    /// [`Error::InvalidProof`] when a proof does not verify; [`Error::InvalidSignature`] when
    /// a blind RSA signature does not.
    pub fn finalize(
        self,
        response: &GenericBatchTokenResponse,
    ) -> Result<Vec<Option<GenericToken>>> {
        if response.responses.len() != self.states.len() {
            return Err(Error::Batch);
        }
        self.states
            .into_iter()
            .zip(&response.responses)
            .map(|(state, r)| match (state, r) {
                (_, None) => Ok(None),
                (GenericClientState::Type1(s), Some(GenericTokenResponse::Type1(r))) => {
                    s.finalize(r).map(|t| Some(GenericToken::Type1(t)))
                }
                (GenericClientState::Type5(s), Some(GenericTokenResponse::Type5(r))) => {
                    s.finalize(r).map(|t| Some(GenericToken::Type5(t)))
                }
                (GenericClientState::BlindRsa(s), Some(GenericTokenResponse::BlindRsa(r))) => s
                    .finalize_response(r)
                    .map(|t| Some(GenericToken::BlindRsa(t))),
                _ => Err(Error::UnsupportedValue),
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// The issuer

/// Answers a generic batch (issuer side). The batch size is checked against `max` before any
/// work; then each request goes to the issuer its type's lookup returns for its truncated key
/// id (`type1`, `type5`, and `blind_rsa` for type `0x0002`) and is answered by that issuer's
/// [`Issuer::issue`] or [`rsa::Issuer::issue`]. A request with no issuer, or one the
/// issuer refuses, gets an absent response (the draft: the issuer continues with the next).
/// Answer HTTP [`GenericBatchTokenResponse::http_status`].
///
/// # Errors
/// [`Error::Batch`] when the batch holds more than `max` requests.
pub fn issue<'k>(
    rng: &mut (impl CryptoRng + ?Sized),
    request: &GenericBatchTokenRequest,
    max: u16,
    type1: impl Fn(u8) -> Option<&'k Issuer<Type1>>,
    type5: impl Fn(u8) -> Option<&'k Issuer<Type5>>,
    blind_rsa: impl Fn(u8) -> Option<&'k rsa::Issuer>,
) -> Result<GenericBatchTokenResponse> {
    if request.requests.len() > usize::from(max) {
        return Err(Error::Batch);
    }
    let responses = request
        .requests
        .iter()
        .map(|r| match r {
            GenericTokenRequest::Type1(r) => type1(r.truncated_token_key_id())
                .and_then(|i| i.issue(rng, r).ok())
                .map(GenericTokenResponse::Type1),
            GenericTokenRequest::Type5(r) => type5(r.truncated_token_key_id())
                .and_then(|i| i.issue(rng, r).ok())
                .map(GenericTokenResponse::Type5),
            GenericTokenRequest::BlindRsa(r) => blind_rsa(r.truncated_token_key_id())
                .and_then(|i| i.issue_request(r).ok())
                .map(GenericTokenResponse::BlindRsa),
        })
        .collect();
    Ok(GenericBatchTokenResponse { responses })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy_pass::TokenChallenge;
    use crate::voprf::VoprfServer;

    fn challenge(t: u16) -> Vec<u8> {
        TokenChallenge::new(t, b"issuer.example".to_vec(), vec![], vec![])
            .unwrap() // ok: test
            .to_bytes()
    }

    #[test]
    fn varints_are_minimal_and_checked() {
        for (v, enc) in [
            (0usize, &[0u8][..]),
            (63, &[0x3f]),
            (64, &[0x40, 0x40]),
            (16383, &[0x7f, 0xff]),
            (16384, &[0x80, 0, 0x40, 0]),
            (0x3fff_ffff, &[0xbf, 0xff, 0xff, 0xff]),
            (0x4000_0000, &[0xc0, 0, 0, 0, 0x40, 0, 0, 0]),
        ] {
            let mut out = Vec::new();
            put_varint(v, &mut out);
            assert_eq!(out, enc, "{v}");
        }
        assert_eq!(vector_body(&[2, 7, 8]).unwrap(), &[7, 8]); // ok: test
        assert_eq!(vector_body(&[0]).unwrap(), &[] as &[u8]); // ok: test
        let long = [&[0x40, 0x40][..], &[9u8; 64]].concat();
        assert_eq!(vector_body(&long).unwrap(), &[9u8; 64]); // ok: test
        for bad in [
            &[0x40, 2, 7, 8][..],               // 2 in two bytes: not minimal
            &[0x80, 0, 0, 2, 7, 8],             // 2 in four bytes
            &[0xc0, 0, 0, 0, 0, 0, 0, 2, 7, 8], // 2 in eight bytes
            &[3, 7, 8],                         // longer than the rest
            &[1, 7, 8],                         // trailing byte
            &[],                                // no prefix
            &[0x40],                            // truncated prefix
            &[0x80, 0, 0],                      // truncated prefix
        ] {
            assert_eq!(vector_body(bad), Err(Error::InvalidLength), "{bad:?}");
        }
    }

    #[test]
    fn unit_errors_of_the_limits() {
        let mut rng = rand::rng();
        let one = Issuer::<Type1>::new(VoprfServer::new(&mut rng));
        let c = challenge(1);
        assert_eq!(request(&[], &mut rng).unwrap_err(), Error::Batch);
        let items = vec![(GenericPublicKey::Type1(one.public_key()), &c[..]); 3];
        let (req, _) = request(&items, &mut rng).unwrap(); // ok: test
        assert_eq!(
            issue(&mut rng, &req, 2, |_| Some(&one), |_| None, |_| None).unwrap_err(),
            Error::Batch
        );
        assert_eq!(
            issue(&mut rng, &req, 3, |_| Some(&one), |_| None, |_| None)
                .unwrap() // ok: test
                .issued(),
            3
        );
        assert_eq!(GenericBatchTokenRequest::new(vec![]), Err(Error::Batch));
    }

    /// The lengths, emptiness and the redacted `Debug` of a request and its client state (an
    /// empty request only by hand: `new` and `request` refuse one).
    #[test]
    fn lengths_and_redaction() {
        let mut rng = rand::rng();
        let one = Issuer::<Type1>::new(VoprfServer::new(&mut rng));
        let c = challenge(1);
        let items = vec![(GenericPublicKey::Type1(one.public_key()), &c[..]); 2];
        let (req, st) = request(&items, &mut rng).unwrap(); // ok: test
        assert_eq!((req.len(), req.is_empty()), (2, false));
        assert_eq!((st.len(), st.is_empty()), (2, false));
        assert_eq!(format!("{st:?}"), "GenericBatchClientState(<redacted>)");
        let empty = GenericBatchTokenRequest { requests: vec![] };
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
        let empty = GenericBatchClientState { states: vec![] };
        assert_eq!((empty.len(), empty.is_empty()), (0, true));
    }

    /// The item count's limits at their edges, checked before any item is built: with a
    /// malformed blind every item fails, so 1 and 65535 items give the blind's error (the count
    /// passed), 0 and 65536 `Error::Batch` (refused before the first item).
    #[test]
    fn item_limits_at_the_edges() {
        let mut rng = rand::rng();
        let five = Issuer::<Type5>::new(VoprfServer::new(&mut rng));
        let c = challenge(5);
        let max = usize::from(u16::MAX);
        let key = GenericPublicKey::Type5(five.public_key());
        let nonce = [7u8; NONCE_LEN];
        let malformed = [0xffu8; 3];
        let one = (key, &c[..], &nonce, &malformed[..]);
        for n in [1, max] {
            let err = request_with(&vec![one; n]).err();
            assert!(err.is_some() && err != Some(Error::Batch), "{n}");
        }
        for n in [0, max + 1] {
            let err = request_with(&vec![one; n]).err();
            assert_eq!(err, Some(Error::Batch), "{n}");
        }
    }
}
