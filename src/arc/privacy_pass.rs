//! Privacy Pass binding of ARC v2 (draft-ietf-privacypass-arc-protocol-01, token type 0xE5AC).
//!
//! * Issuance (§"Credential Issuance Protocol"): the client sends a [`CredentialRequest`]
//!   (`token_type || truncated_issuer_key_id || encoded_request`, media type
//!   `application/private-credential-request`) and receives a [`CredentialResponse`]
//!   (`encoded_response`, `application/private-credential-response`).
//! * Redemption (§"Token Redemption Protocol"): a [`Token`] is
//!   `token_type || presentation_nonce (u32) || challenge_digest || issuer_key_id || presentation`.
//!
//! The contexts bind a credential to its challenge (§"Client-to-Issuer Request", §"Token
//! Creation"): `request_context = encode(2, len(issuer_name)) || issuer_name || encode(2,
//! len(origin_info)) || origin_info || encode(2, len(credential_context)) || credential_context
//! || issuer_key_id`, and `presentation_context` the same with `redemption_context`.
//!
//! The -01 Token still has a `presentation_nonce` field although crypto-01 hides the nonce; this
//! crate writes 0 there (sending the nonce would undo the hiding) and ignores it on input, so
//! that tokens of a client that fills it in still verify.
//!
//! ```
//! use privacy_tokens::arc::privacy_pass::{Client, Issuer, TokenChallenge};
//! use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};
//!
//! let mut rng = rand::rng();
//! let issuer = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));
//! // Issuance: a credential for this issuer, origin and (empty) credential context.
//! let challenge = TokenChallenge::new(b"issuer.example", &[], b"origin.example", &[])?;
//! let (request, state) = Client::request(&challenge, issuer.public_key(), &mut rng)?;
//! let response = issuer.issue(&request, &mut rng)?;
//! let mut credential = state.finalize(&response)?;
//!
//! // Redemption: up to `limit` tokens per challenge from one credential.
//! let limit = 3;
//! let mut tokens = Client::token_state(&mut credential, &challenge, issuer.public_key(), limit)?;
//! let token = tokens.token(&mut rng)?;
//! let stored = credential.to_bytes(); // persist the credential before sending the token
//! # let _ = stored;
//! let tag = issuer.verify(&token, &challenge, limit)?; // the origin's double-spend key
//! # let _ = tag;
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! # Double spending: key on the tag, never on the token bytes
//! Because those 4 bytes are ignored, one token has 2^32 byte encodings that all verify, to the
//! same [`Tag`]. [`Issuer::verify`] returns that tag: it is the double-spend key. An origin
//! must record spent tags per challenge and reject a token whose tag it has seen; it must never
//! deduplicate on the token bytes or a hash of them (a replayed token with other
//! `presentation_nonce` bytes would pass). [`Token`] has no `Hash`, and its equality ignores the
//! field too.
//!
//! # Client state
//! The credential keeps one counter per presentation context
//! ([`Credential::presentation_state`]); [`Client::token_state`] is a view of it, so asking again
//! for the same challenge continues its nonces. Persist the credential
//! ([`Credential::to_bytes`]) after each [`TokenState::token`] and before sending the token.
//!
//! # Limits
//! Both contexts must fit [`super::MAX_CONTEXT_LEN`]: [`TokenChallenge::new`] refuses an
//! `issuer_name` and `origin_info` longer than 65465 bytes together (the drafts allow up to
//! 2 × 65535).

use core::fmt;

use rand_core::CryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{
    ArcV2P256, Credential, Presentation, PresentationState, RequestState, ServerPrivateKey,
    ServerPublicKey, Tag,
};
use crate::{Error, Result};

type S = ArcV2P256;

/// The token type, ARC (P-256).
pub const TOKEN_TYPE: u16 = 0xE5AC;
/// `Nid`: the length of `issuer_key_id`.
pub const NID: usize = 32;
/// The most bytes `issuer_name` and `origin_info` may hold together: 65465, so that a context
/// (`2 + issuer_name + 2 + origin_info + 2 + 32 + Nid` bytes) fits [`super::MAX_CONTEXT_LEN`].
pub const MAX_NAMES_LEN: usize = super::MAX_CONTEXT_LEN - 6 - 32 - NID;
/// Media type of [`CredentialRequest`].
pub const REQUEST_MEDIA_TYPE: &str = "application/private-credential-request";
/// Media type of [`CredentialResponse`].
pub const RESPONSE_MEDIA_TYPE: &str = "application/private-credential-response";

/// `issuer_key_id = SHA-256(pkI_serialized)` (§"Setup").
pub fn issuer_key_id(pk: &ServerPublicKey<S>) -> [u8; NID] {
    let mut buf = [0u8; ServerPublicKey::<S>::LEN];
    let _ = pk.encode_into(&mut buf);
    Sha256::digest(buf).into()
}

/// The ARC `TokenChallenge` (RFC 9577 §2.1 plus `credential_context<0..32>`):
/// `token_type || issuer_name<1..2^16-1> || redemption_context<0..32> ||
/// origin_info<0..2^16-1> || credential_context<0..32>`.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenChallenge {
    issuer_name: Vec<u8>,
    redemption_context: Vec<u8>,
    origin_info: Vec<u8>,
    credential_context: Vec<u8>,
}

impl fmt::Debug for TokenChallenge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "TokenChallenge", &self.to_bytes())
    }
}

fn ctx_len_ok(c: &[u8]) -> bool {
    c.is_empty() || c.len() == 32
}

impl TokenChallenge {
    /// A challenge for token type 0xE5AC.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] when `issuer_name` is empty or 2^16 bytes or longer, or
    /// `origin_info` is 2^16 bytes or longer, or both together are longer than
    /// [`MAX_NAMES_LEN`] (so that the request and presentation contexts fit
    /// [`super::MAX_CONTEXT_LEN`]); [`Error::InvalidLength`] when a context is neither empty nor
    /// 32 bytes.
    pub fn new(
        issuer_name: &[u8],
        redemption_context: &[u8],
        origin_info: &[u8],
        credential_context: &[u8],
    ) -> Result<Self> {
        if issuer_name.is_empty()
            || issuer_name.len() > 0xffff
            || origin_info.len() > 0xffff
            || issuer_name.len() + origin_info.len() > MAX_NAMES_LEN
        {
            return Err(Error::InputTooLong);
        }
        if !ctx_len_ok(redemption_context) || !ctx_len_ok(credential_context) {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            issuer_name: issuer_name.to_vec(),
            redemption_context: redemption_context.to_vec(),
            origin_info: origin_info.to_vec(),
            credential_context: credential_context.to_vec(),
        })
    }

    /// The issuer name.
    pub fn issuer_name(&self) -> &[u8] {
        &self.issuer_name
    }

    /// The redemption context: empty or 32 bytes.
    pub fn redemption_context(&self) -> &[u8] {
        &self.redemption_context
    }

    /// The origin info: empty or a comma-separated list of origin names.
    pub fn origin_info(&self) -> &[u8] {
        &self.origin_info
    }

    /// The credential context: empty or 32 bytes.
    pub fn credential_context(&self) -> &[u8] {
        &self.credential_context
    }

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            8 + self.issuer_name.len()
                + self.redemption_context.len()
                + self.origin_info.len()
                + self.credential_context.len(),
        );
        out.extend_from_slice(&TOKEN_TYPE.to_be_bytes());
        out.extend_from_slice(&(self.issuer_name.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.issuer_name);
        out.push(self.redemption_context.len() as u8);
        out.extend_from_slice(&self.redemption_context);
        out.extend_from_slice(&(self.origin_info.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.origin_info);
        out.push(self.credential_context.len() as u8);
        out.extend_from_slice(&self.credential_context);
        out
    }

    /// Strict decoding.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type, [`Error::InvalidLength`] for bad
    /// lengths or trailing bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = super::wire::Reader::new(bytes);
        if r.take(2)? != TOKEN_TYPE.to_be_bytes() {
            return Err(Error::UnsupportedValue);
        }
        let mut var = |two: bool| -> Result<Vec<u8>> {
            let n = if two {
                let l = r.take(2)?;
                usize::from(u16::from_be_bytes([l[0], l[1]]))
            } else {
                usize::from(r.take(1)?[0])
            };
            Ok(r.take(n)?.to_vec())
        };
        let issuer_name = var(true)?;
        let redemption_context = var(false)?;
        let origin_info = var(true)?;
        let credential_context = var(false)?;
        r.finish()?;
        Self::new(
            &issuer_name,
            &redemption_context,
            &origin_info,
            &credential_context,
        )
        .map_err(|_| Error::InvalidLength)
    }

    /// `SHA-256(TokenChallenge)`.
    pub fn digest(&self) -> [u8; 32] {
        Sha256::digest(self.to_bytes()).into()
    }

    fn context(&self, third: &[u8], key_id: &[u8; NID]) -> Vec<u8> {
        let mut out = Vec::with_capacity(6 + self.issuer_name.len() + self.origin_info.len() + 64);
        for f in [&self.issuer_name[..], &self.origin_info[..], third] {
            out.extend_from_slice(&(f.len() as u16).to_be_bytes());
            out.extend_from_slice(f);
        }
        out.extend_from_slice(key_id);
        out
    }

    /// `request_context` for an issuer key id (§"Client-to-Issuer Request").
    pub fn request_context(&self, key_id: &[u8; NID]) -> Vec<u8> {
        self.context(&self.credential_context, key_id)
    }

    /// `presentation_context` for an issuer key id (§"Token Creation").
    pub fn presentation_context(&self, key_id: &[u8; NID]) -> Vec<u8> {
        self.context(&self.redemption_context, key_id)
    }
}

/// The issuance request message: `token_type || truncated_issuer_key_id || encoded_request`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CredentialRequest {
    truncated_issuer_key_id: u8,
    request: super::CredentialRequest<S>,
}

impl CredentialRequest {
    /// Encoded length (229 bytes).
    pub const LEN: usize = 3 + super::CredentialRequest::<S>::LEN;

    /// The encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::LEN);
        out.extend_from_slice(&TOKEN_TYPE.to_be_bytes());
        out.push(self.truncated_issuer_key_id);
        out.extend_from_slice(&self.request.to_bytes());
        out
    }

    /// Strict decoding.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type, plus the request's decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::LEN {
            return Err(Error::InvalidLength);
        }
        if bytes[..2] != TOKEN_TYPE.to_be_bytes() {
            return Err(Error::UnsupportedValue);
        }
        Ok(Self {
            truncated_issuer_key_id: bytes[2],
            request: super::CredentialRequest::from_bytes(&bytes[3..])?,
        })
    }
}

/// The issuance response message: `encoded_response`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CredentialResponse {
    response: super::CredentialResponse<S>,
}

impl CredentialResponse {
    /// The encoding (454 bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.response.to_bytes()
    }

    /// Strict decoding.
    ///
    /// # Errors
    /// The response's decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self {
            response: super::CredentialResponse::from_bytes(bytes)?,
        })
    }
}

/// A redemption token: `token_type || presentation_nonce || challenge_digest || issuer_key_id ||
/// presentation`.
///
/// A bearer value until its tag is spent: equality is constant time ([`ConstantTimeEq`]; `==`
/// goes through it), ignores `presentation_nonce` (it is not kept), and there is no `Hash`.
/// Deduplicate on the [`Tag`] that [`Issuer::verify`] returns (module documentation).
#[derive(Clone, Copy, Debug)]
pub struct Token {
    challenge_digest: [u8; 32],
    issuer_key_id: [u8; NID],
    presentation: Presentation<S>,
}

impl ConstantTimeEq for Token {
    fn ct_eq(&self, o: &Self) -> subtle::Choice {
        self.challenge_digest.ct_eq(&o.challenge_digest)
            & self.issuer_key_id.ct_eq(&o.issuer_key_id)
            & self.presentation.ct_eq(&o.presentation)
    }
}

super::wire::eq_via_ct!(Token);

impl Token {
    /// The encoding; `presentation_nonce` is written as 0 (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(70 + self.presentation.encoded_len());
        out.extend_from_slice(&TOKEN_TYPE.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
        out.extend_from_slice(&self.challenge_digest);
        out.extend_from_slice(&self.issuer_key_id);
        // Encoded in place: a temporary encoding (a bearer value) would be freed unwiped.
        let at = out.len();
        out.resize(at + self.presentation.encoded_len(), 0);
        let _ = self.presentation.encode_into(&mut out[at..]);
        out
    }

    /// Strict decoding (the presentation length fixes its range-proof size). Bytes 2..6,
    /// `presentation_nonce`, are not checked and not kept: 2^32 encodings decode to one token
    /// (module documentation).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type, [`Error::InvalidLength`], plus the
    /// presentation's decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < 70 {
            return Err(Error::InvalidLength);
        }
        if bytes[..2] != TOKEN_TYPE.to_be_bytes() {
            return Err(Error::UnsupportedValue);
        }
        let mut challenge_digest = [0u8; 32];
        challenge_digest.copy_from_slice(&bytes[6..38]);
        let mut issuer_key_id = [0u8; NID];
        issuer_key_id.copy_from_slice(&bytes[38..70]);
        Ok(Self {
            challenge_digest,
            issuer_key_id,
            presentation: Presentation::from_bytes(&bytes[70..])?,
        })
    }

    /// The presentation.
    pub fn presentation(&self) -> &Presentation<S> {
        &self.presentation
    }

    /// `challenge_digest = SHA-256(TokenChallenge)`: lets an origin find the challenge the token
    /// answers (among those it issued) before any verification work.
    pub fn challenge_digest(&self) -> &[u8; 32] {
        &self.challenge_digest
    }

    /// `issuer_key_id = SHA-256(pkI_serialized)`: lets an origin with several keys in rotation
    /// pick the [`Issuer`] to verify with before any verification work.
    pub fn issuer_key_id(&self) -> &[u8; NID] {
        &self.issuer_key_id
    }
}

/// The client side: issuance requests, credentials and tokens.
#[derive(Debug)]
pub struct Client;

/// The client's state between request and response.
#[derive(Debug)]
pub struct ClientState {
    state: RequestState<S>,
    pk: ServerPublicKey<S>,
}

impl Client {
    /// Builds a credential request for `challenge` under the issuer key `pk`.
    ///
    /// # Errors
    /// As [`super::CredentialRequest::new`].
    pub fn request(
        challenge: &TokenChallenge,
        pk: &ServerPublicKey<S>,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<(CredentialRequest, ClientState)> {
        let key_id = issuer_key_id(pk);
        let r = super::CredentialRequest::<S>::new(&challenge.request_context(&key_id), rng)?;
        Ok((
            CredentialRequest {
                truncated_issuer_key_id: key_id[NID - 1],
                request: r.message,
            },
            ClientState {
                state: r.state,
                pk: *pk,
            },
        ))
    }

    /// The token state of one challenge (`presentation_context` from its issuer name, origin
    /// info, redemption context and the issuer key id) with `limit` presentations, kept in the
    /// credential: asking again for the same challenge continues its counter (see
    /// [`Credential::presentation_state`]). Persist the credential after each
    /// [`TokenState::token`] and before sending the token.
    ///
    /// # Errors
    /// As [`Credential::presentation_state`].
    pub fn token_state<'a>(
        credential: &'a mut Credential<S>,
        challenge: &TokenChallenge,
        pk: &ServerPublicKey<S>,
        limit: u32,
    ) -> Result<TokenState<'a>> {
        let key_id = issuer_key_id(pk);
        Ok(TokenState {
            state: credential
                .presentation_state(&challenge.presentation_context(&key_id), limit)?,
            challenge_digest: challenge.digest(),
            issuer_key_id: key_id,
        })
    }
}

impl ClientState {
    /// Finalizes the credential from the issuer's response.
    ///
    /// # Errors
    /// [`Error::InvalidProof`].
    pub fn finalize(self, response: &CredentialResponse) -> Result<Credential<S>> {
        self.state.finalize(&self.pk, &response.response)
    }
}

/// Produces tokens for one challenge until the presentation limit: a view of the credential's
/// counter for the challenge's presentation context.
#[derive(Debug)]
pub struct TokenState<'a> {
    state: PresentationState<'a, S>,
    challenge_digest: [u8; 32],
    issuer_key_id: [u8; NID],
}

impl TokenState<'_> {
    /// The next token.
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] once the limit is reached.
    pub fn token(&mut self, rng: &mut (impl CryptoRng + ?Sized)) -> Result<Token> {
        Ok(Token {
            challenge_digest: self.challenge_digest,
            issuer_key_id: self.issuer_key_id,
            presentation: self.state.present(rng)?,
        })
    }
}

/// The issuer and origin side (ARC is privately verifiable: one key for both).
#[derive(Debug)]
pub struct Issuer {
    key: ServerPrivateKey<S>,
    key_id: [u8; NID],
}

impl Issuer {
    /// An issuer with key `key`.
    pub fn new(key: ServerPrivateKey<S>) -> Self {
        let key_id = issuer_key_id(key.public_key());
        Self { key, key_id }
    }

    /// The issuer public key.
    pub fn public_key(&self) -> &ServerPublicKey<S> {
        self.key.public_key()
    }

    /// The issuer private key (to persist it with [`ServerPrivateKey::to_bytes`]).
    pub fn private_key(&self) -> &ServerPrivateKey<S> {
        &self.key
    }

    /// `issuer_key_id`.
    pub fn key_id(&self) -> &[u8; NID] {
        &self.key_id
    }

    /// Checks the truncated key id and answers the request.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another key id; [`Error::InvalidProof`] for a bad request.
    pub fn issue(
        &self,
        request: &CredentialRequest,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<CredentialResponse> {
        if request.truncated_issuer_key_id != self.key_id[NID - 1] {
            return Err(Error::UnsupportedValue);
        }
        Ok(CredentialResponse {
            response: self.key.issue(&request.request, rng)?,
        })
    }

    /// Verifies a token against the challenge the origin sent and its presentation limit, and
    /// returns the tag, **the double-spend key**: the origin must reject a token whose tag it has
    /// already seen for this challenge, and must not deduplicate on the token bytes (they are
    /// malleable in `presentation_nonce`; module documentation). The key id, challenge and limit
    /// are checked before any work.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another key id or challenge; [`Error::LimitExceeded`] for
    /// `limit < 2`; [`Error::InvalidProof`] for a bad presentation.
    pub fn verify(&self, token: &Token, challenge: &TokenChallenge, limit: u32) -> Result<Tag<S>> {
        if token.issuer_key_id != self.key_id || token.challenge_digest != challenge.digest() {
            return Err(Error::UnsupportedValue);
        }
        self.key.verify_presentation(
            &challenge.request_context(&self.key_id),
            &challenge.presentation_context(&self.key_id),
            &token.presentation,
            limit,
        )
    }
}
