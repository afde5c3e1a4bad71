//! Privacy Pass issuance protocol 1: privately verifiable tokens, token type `0x0001`
//! (RFC 9578 §5), built on VOPRF(P-384, SHA-384) in VOPRF mode (RFC 9497 §3.3.2).
//!
//! Also the amortized batched variant of draft-ietf-privacypass-batched-tokens (one DLEQ proof
//! for a whole batch of tokens under the same challenge and key).
//!
//! Roles (RFC 9576 §3):
//! - the **client** parses the origin's `TokenChallenge`, builds a [`TokenRequest`] with
//!   [`Client::request`], and turns the issuer's [`TokenResponse`] into a [`Token`] with
//!   [`ClientState::finalize`];
//! - the **issuer** answers requests with [`Issuer::issue`];
//! - the **origin** verifies tokens. Type `0x0001` tokens are *privately* verifiable: checking
//!   one needs the issuer's secret key, so origin-side verification is the issuer's
//!   [`Issuer::verify_token`] (RFC 9578 §5.5), run by the issuer or by an origin that shares the
//!   issuer key. Double-spending checks (a nonce store) are the caller's job.
//!
//! ```
//! use privacy_tokens::voprf::privacy_pass::{Client, Issuer, TokenChallenge, TOKEN_TYPE};
//! use privacy_tokens::voprf::VoprfServer;
//!
//! let mut rng = rand::thread_rng();
//! let issuer = Issuer::new(VoprfServer::new(&mut rng));
//! let challenge =
//!     TokenChallenge::new(TOKEN_TYPE, b"issuer.example".to_vec(), vec![], b"origin.example".to_vec())?
//!         .to_bytes();
//! let (request, state) = Client::request(issuer.public_key(), &challenge, &mut rng)?;
//! let response = issuer.issue(&mut rng, &request)?;
//! let token = state.finalize(&response)?;
//! assert!(issuer.verify_token(&token)?);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```

use core::fmt;

use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::{
    BlindedElement, EvaluationElement, Proof, PublicKey, SecretKey, VoprfClient, VoprfServer,
};
use crate::{Error, P384Sha384, Result};

type S = P384Sha384;

/// The token type of issuance protocol 1, VOPRF(P-384, SHA-384) (RFC 9578 §8.2.1).
pub const TOKEN_TYPE: u16 = 0x0001;
/// `Ne`: the length of a serialized P-384 element (RFC 9578 §5, RFC 9497 §4.4).
pub const NE: usize = 49;
/// `Ns`: the length of a serialized P-384 scalar (RFC 9497 §4.4).
pub const NS: usize = 48;
/// `Nk`: the length of the token authenticator, the VOPRF output (RFC 9578 §5).
pub const NK: usize = 48;
/// `Nid`: the length of a token key identifier (RFC 9578 §5).
pub const NID: usize = 32;
/// The length of the client nonce (RFC 9578 §5.1).
pub const NONCE_LEN: usize = 32;
/// The length of `token_input = token_type || nonce || challenge_digest || token_key_id`
/// (RFC 9578 §5.1).
pub const TOKEN_INPUT_LEN: usize = 2 + NONCE_LEN + 32 + NID;
/// The length of an encoded [`TokenRequest`] (RFC 9578 §5.1).
pub const TOKEN_REQUEST_LEN: usize = 2 + 1 + NE;
/// The length of an encoded [`TokenResponse`] (RFC 9578 §5.2).
pub const TOKEN_RESPONSE_LEN: usize = NE + 2 * NS;
/// The length of an encoded [`Token`] (RFC 9578 §5.3, RFC 9577 §2.2).
pub const TOKEN_LEN: usize = 2 + NONCE_LEN + 32 + NID + NK;

/// `token_key_id = SHA-256(SerializeElement(pkI))` (RFC 9578 §5, §6.5).
pub fn token_key_id(public_key: &PublicKey<S>) -> [u8; NID] {
    sha256(public_key.to_bytes().as_slice())
}

fn sha256(data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(Sha256::digest(data).as_slice());
    out
}

/// `token_input = token_type || nonce || challenge_digest || token_key_id` (RFC 9578 §5.1).
fn token_input(
    nonce: &[u8; NONCE_LEN],
    challenge_digest: &[u8; 32],
    key_id: &[u8; NID],
) -> [u8; TOKEN_INPUT_LEN] {
    let mut out = [0u8; TOKEN_INPUT_LEN];
    out[..2].copy_from_slice(&TOKEN_TYPE.to_be_bytes());
    out[2..34].copy_from_slice(nonce);
    out[34..66].copy_from_slice(challenge_digest);
    out[66..].copy_from_slice(key_id);
    out
}

/// Reads a big-endian `u16` at the start of `bytes`.
fn read_u16(bytes: &[u8]) -> Result<(u16, &[u8])> {
    match bytes {
        [a, b, rest @ ..] => Ok((u16::from_be_bytes([*a, *b]), rest)),
        _ => Err(Error::InvalidLength),
    }
}

/// Checks the leading `token_type` of a message.
fn check_token_type(bytes: &[u8]) -> Result<&[u8]> {
    let (t, rest) = read_u16(bytes)?;
    if t != TOKEN_TYPE {
        return Err(Error::UnsupportedValue);
    }
    Ok(rest)
}

// ---------------------------------------------------------------------------------------------
// TokenChallenge

/// An origin's token challenge (RFC 9577 §2.1):
///
/// ```text
/// struct {
///     uint16_t token_type;
///     opaque issuer_name<1..2^16-1>;
///     opaque redemption_context<0..32>;   // exactly 0 or 32 bytes
///     opaque origin_info<0..2^16-1>;
/// } TokenChallenge;
/// ```
///
/// The fields are validated on construction, so [`TokenChallenge::to_bytes`] cannot fail.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenChallenge {
    token_type: u16,
    issuer_name: Vec<u8>,
    redemption_context: Vec<u8>,
    origin_info: Vec<u8>,
}

impl TokenChallenge {
    /// A challenge from its fields (RFC 9577 §2.1).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when `issuer_name` is empty or 2^16 bytes or longer,
    /// `redemption_context` is neither 0 nor 32 bytes, or `origin_info` is 2^16 bytes or longer.
    pub fn new(
        token_type: u16,
        issuer_name: Vec<u8>,
        redemption_context: Vec<u8>,
        origin_info: Vec<u8>,
    ) -> Result<Self> {
        if issuer_name.is_empty()
            || issuer_name.len() > usize::from(u16::MAX)
            || !(redemption_context.is_empty() || redemption_context.len() == 32)
            || origin_info.len() > usize::from(u16::MAX)
        {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            token_type,
            issuer_name,
            redemption_context,
            origin_info,
        })
    }

    /// The token type the origin asks for.
    pub fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The issuer's name (ASCII host name in RFC 9577 §2.1.1).
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

    /// The encoding of RFC 9577 §2.1.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            2 + 2
                + self.issuer_name.len()
                + 1
                + self.redemption_context.len()
                + 2
                + self.origin_info.len(),
        );
        out.extend_from_slice(&self.token_type.to_be_bytes());
        // Lengths were checked in `new`/`from_bytes`.
        out.extend_from_slice(&(self.issuer_name.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.issuer_name);
        out.push(self.redemption_context.len() as u8);
        out.extend_from_slice(&self.redemption_context);
        out.extend_from_slice(&(self.origin_info.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.origin_info);
        out
    }

    /// Strict decoding of RFC 9577 §2.1. Any token type is accepted here; the client checks it.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for truncated input, trailing bytes, an empty issuer name or a
    /// redemption context that is neither 0 nor 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let (token_type, rest) = read_u16(bytes)?;
        let (n, rest) = read_u16(rest)?;
        let (issuer_name, rest) = split(rest, usize::from(n))?;
        let (&[rc_len], rest) = split_array::<1>(rest)?;
        let (redemption_context, rest) = split(rest, usize::from(rc_len))?;
        let (n, rest) = read_u16(rest)?;
        let (origin_info, rest) = split(rest, usize::from(n))?;
        if !rest.is_empty() {
            return Err(Error::InvalidLength);
        }
        Self::new(
            token_type,
            issuer_name.to_vec(),
            redemption_context.to_vec(),
            origin_info.to_vec(),
        )
    }

    /// `challenge_digest = SHA-256(TokenChallenge)` (RFC 9578 §5.1).
    pub fn digest(&self) -> [u8; 32] {
        sha256(&self.to_bytes())
    }
}

fn split(bytes: &[u8], n: usize) -> Result<(&[u8], &[u8])> {
    if bytes.len() < n {
        return Err(Error::InvalidLength);
    }
    Ok(bytes.split_at(n))
}

fn split_array<const N: usize>(bytes: &[u8]) -> Result<(&[u8; N], &[u8])> {
    let (a, rest) = split(bytes, N)?;
    let a: &[u8; N] = a.try_into().map_err(|_| Error::InvalidLength)?;
    Ok((a, rest))
}

/// Parses a serialized challenge and checks that it asks for token type `0x0001`.
fn parse_challenge(challenge: &[u8]) -> Result<[u8; 32]> {
    let parsed = TokenChallenge::from_bytes(challenge)?;
    if parsed.token_type != TOKEN_TYPE {
        return Err(Error::UnsupportedValue);
    }
    // The digest is over the bytes as received; strict parsing makes them canonical.
    Ok(sha256(challenge))
}

// ---------------------------------------------------------------------------------------------
// Wire messages

/// A client's token request (RFC 9578 §5.1), 52 bytes:
///
/// ```text
/// struct {
///     uint16_t token_type = 0x0001;
///     uint8_t truncated_token_key_id;
///     uint8_t blinded_msg[Ne];
/// } TokenRequest;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    truncated_token_key_id: u8,
    blinded_msg: BlindedElement<S>,
}

impl TokenRequest {
    /// A request from its fields (the token type is always `0x0001`).
    pub fn new(truncated_token_key_id: u8, blinded_msg: BlindedElement<S>) -> Self {
        Self {
            truncated_token_key_id,
            blinded_msg,
        }
    }

    /// Always [`TOKEN_TYPE`].
    pub fn token_type(&self) -> u16 {
        TOKEN_TYPE
    }

    /// The last byte of the issuer's `token_key_id`.
    pub fn truncated_token_key_id(&self) -> u8 {
        self.truncated_token_key_id
    }

    /// The blinded element `blinded_msg`.
    pub fn blinded_msg(&self) -> &BlindedElement<S> {
        &self.blinded_msg
    }

    /// The encoding of RFC 9578 §5.1.
    pub fn to_bytes(&self) -> [u8; TOKEN_REQUEST_LEN] {
        let mut out = [0u8; TOKEN_REQUEST_LEN];
        out[..2].copy_from_slice(&TOKEN_TYPE.to_be_bytes());
        out[2] = self.truncated_token_key_id;
        out[3..].copy_from_slice(self.blinded_msg.to_bytes().as_slice());
        out
    }

    /// Strict decoding (RFC 9578 §5.2: the issuer checks the type, then the size of
    /// `blinded_msg`, then deserializes it).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] unless exactly 52 bytes; [`Error::UnsupportedValue`] for a token
    /// type other than `0x0001`; [`Error::InvalidPoint`] or [`Error::IdentityElement`] for a bad
    /// `blinded_msg`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let rest = check_token_type(bytes)?;
        if bytes.len() != TOKEN_REQUEST_LEN {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            truncated_token_key_id: rest[0],
            blinded_msg: BlindedElement::from_bytes(&rest[1..])?,
        })
    }
}

/// An issuer's token response (RFC 9578 §5.2), 145 bytes:
///
/// ```text
/// struct {
///     uint8_t evaluate_msg[Ne];
///     uint8_t evaluate_proof[Ns+Ns];
/// } TokenResponse;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenResponse {
    evaluate_msg: EvaluationElement<S>,
    evaluate_proof: Proof<S>,
}

impl TokenResponse {
    /// A response from its fields.
    pub fn new(evaluate_msg: EvaluationElement<S>, evaluate_proof: Proof<S>) -> Self {
        Self {
            evaluate_msg,
            evaluate_proof,
        }
    }

    /// The evaluated element `evaluate_msg`.
    pub fn evaluate_msg(&self) -> &EvaluationElement<S> {
        &self.evaluate_msg
    }

    /// The DLEQ proof `evaluate_proof`.
    pub fn evaluate_proof(&self) -> &Proof<S> {
        &self.evaluate_proof
    }

    /// The encoding of RFC 9578 §5.2.
    pub fn to_bytes(&self) -> [u8; TOKEN_RESPONSE_LEN] {
        let mut out = [0u8; TOKEN_RESPONSE_LEN];
        out[..NE].copy_from_slice(self.evaluate_msg.to_bytes().as_slice());
        out[NE..].copy_from_slice(self.evaluate_proof.to_bytes().as_slice());
        out
    }

    /// Strict decoding (RFC 9578 §5.3: the client aborts on any deserialization failure).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] unless exactly 145 bytes; [`Error::InvalidPoint`] or
    /// [`Error::IdentityElement`] for a bad element; [`Error::NonCanonicalScalar`] for a bad
    /// proof scalar.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != TOKEN_RESPONSE_LEN {
            return Err(Error::InvalidLength);
        }
        Ok(Self {
            evaluate_msg: EvaluationElement::from_bytes(&bytes[..NE])?,
            evaluate_proof: Proof::from_bytes(&bytes[NE..])?,
        })
    }
}

/// A finalized token (RFC 9578 §5.3, structure of RFC 9577 §2.2), 146 bytes:
///
/// ```text
/// struct {
///     uint16_t token_type = 0x0001;
///     uint8_t nonce[32];
///     uint8_t challenge_digest[32];
///     uint8_t token_key_id[32];
///     uint8_t authenticator[Nk];
/// } Token;
/// ```
///
/// The fields carry no invariant, so they are public; the token type is implied.
///
/// A token is a bearer secret until it is redeemed: whoever holds its bytes can spend it. So
/// equality is constant time ([`ConstantTimeEq`], and `==` goes through it), `Debug` redacts
/// the authenticator, and there is deliberately no `Hash` (a hash table keyed on tokens would
/// compare them with variable-time code). A double-spend store should key on [`Token::nonce`],
/// which the origin learns at redemption anyway.
#[derive(Clone, Copy)]
pub struct Token {
    /// The client's random nonce.
    pub nonce: [u8; NONCE_LEN],
    /// `SHA-256(TokenChallenge)`.
    pub challenge_digest: [u8; 32],
    /// `SHA-256(SerializeElement(pkI))`.
    pub token_key_id: [u8; NID],
    /// The VOPRF output over the token input.
    pub authenticator: [u8; NK],
}

impl ConstantTimeEq for Token {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.nonce.ct_eq(&other.nonce)
            & self.challenge_digest.ct_eq(&other.challenge_digest)
            & self.token_key_id.ct_eq(&other.token_key_id)
            & self.authenticator.ct_eq(&other.authenticator)
    }
}

/// Constant time, through [`ConstantTimeEq`].
impl PartialEq for Token {
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.ct_eq(other))
    }
}

impl Eq for Token {}

/// The nonce, challenge digest and key id in hex; the authenticator is redacted.
impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token { ")?;
        super::codec::debug_hex(f, "nonce", &self.nonce)?;
        super::codec::debug_hex(f, ", challenge_digest", &self.challenge_digest)?;
        super::codec::debug_hex(f, ", token_key_id", &self.token_key_id)?;
        f.write_str(", authenticator(<redacted>) }")
    }
}

impl Token {
    /// Always [`TOKEN_TYPE`].
    pub fn token_type(&self) -> u16 {
        TOKEN_TYPE
    }

    /// `token_input = token_type || nonce || challenge_digest || token_key_id`, the VOPRF input
    /// (RFC 9578 §5.1, §5.5).
    pub fn token_input(&self) -> [u8; TOKEN_INPUT_LEN] {
        token_input(&self.nonce, &self.challenge_digest, &self.token_key_id)
    }

    /// The encoding of RFC 9577 §2.2.
    pub fn to_bytes(&self) -> [u8; TOKEN_LEN] {
        let mut out = [0u8; TOKEN_LEN];
        out[..TOKEN_INPUT_LEN].copy_from_slice(&self.token_input());
        out[TOKEN_INPUT_LEN..].copy_from_slice(&self.authenticator);
        out
    }

    /// Strict decoding (RFC 9577 §2.2).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for a token type other than `0x0001`; [`Error::InvalidLength`]
    /// unless exactly 146 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let rest = check_token_type(bytes)?;
        if bytes.len() != TOKEN_LEN {
            return Err(Error::InvalidLength);
        }
        let (nonce, rest) = split_array::<NONCE_LEN>(rest)?;
        let (challenge_digest, rest) = split_array::<32>(rest)?;
        let (token_key_id, rest) = split_array::<NID>(rest)?;
        let (authenticator, _) = split_array::<NK>(rest)?;
        Ok(Self {
            nonce: *nonce,
            challenge_digest: *challenge_digest,
            token_key_id: *token_key_id,
            authenticator: *authenticator,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Client

/// The client role of issuance protocol 1 (RFC 9578 §5.1, §5.3).
#[derive(Clone, Copy, Debug, Default)]
pub struct Client;

/// What a client keeps between [`Client::request`] and [`ClientState::finalize`]: the VOPRF
/// blind, the nonce and the challenge and key bindings. Consumed by `finalize`; zeroized on drop.
///
/// The blind stays in place until the state is dropped, where it is wiped: `finalize` reads it
/// without moving it out, so no path (success, failure, drop) leaves a copy in this memory.
pub struct ClientState {
    client: VoprfClient<S>,
    nonce: [u8; NONCE_LEN],
    challenge_digest: [u8; 32],
    token_key_id: [u8; NID],
    public_key: PublicKey<S>,
}

impl fmt::Debug for ClientState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientState(<redacted>)")
    }
}

impl Drop for ClientState {
    fn drop(&mut self) {
        // `client` is never moved out, so its own `ZeroizeOnDrop`, which runs right after this,
        // wipes the blind where it lies.
        self.nonce.zeroize();
        self.challenge_digest.zeroize();
        self.token_key_id.zeroize();
    }
}

/// The state of one token for a parsed challenge (`challenge_digest`) and the issuer key
/// `public_key` with id `key_id`.
fn new_state(
    public_key: &PublicKey<S>,
    key_id: [u8; NID],
    challenge_digest: [u8; 32],
    nonce: [u8; NONCE_LEN],
    blind: impl FnOnce(&[u8]) -> Result<super::BlindResult<VoprfClient<S>, S>>,
) -> Result<(TokenRequest, ClientState)> {
    let input = token_input(&nonce, &challenge_digest, &key_id);
    let blinded = blind(&input)?;
    let request = TokenRequest {
        truncated_token_key_id: key_id[NID - 1],
        blinded_msg: blinded.message,
    };
    Ok((
        request,
        ClientState {
            client: blinded.state,
            nonce,
            challenge_digest,
            token_key_id: key_id,
            public_key: *public_key,
        },
    ))
}

impl Client {
    /// Builds a token request for the issuer key `public_key` and the serialized
    /// `TokenChallenge` `challenge` (RFC 9578 §5.1): a random 32-byte nonce,
    /// `challenge_digest = SHA-256(challenge)`, and `Blind(token_input)`.
    ///
    /// # Errors
    /// Challenge decoding errors of [`TokenChallenge::from_bytes`]; [`Error::UnsupportedValue`]
    /// when the challenge asks for another token type; [`Error::InvalidInput`] if the token input
    /// hashes to the identity (negligible).
    pub fn request(
        public_key: &PublicKey<S>,
        challenge: &[u8],
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<(TokenRequest, ClientState)> {
        crate::stack::token(|| {
            // The challenge is checked before any randomness is drawn.
            let challenge_digest = parse_challenge(challenge)?;
            Self::request_parsed(public_key, token_key_id(public_key), challenge_digest, rng)
        })
    }

    fn request_parsed(
        public_key: &PublicKey<S>,
        key_id: [u8; NID],
        challenge_digest: [u8; 32],
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<(TokenRequest, ClientState)> {
        let mut nonce = [0u8; NONCE_LEN];
        rng.fill_bytes(&mut nonce);
        // The callers' bodies run on a wiped stack (`crate::stack`): blinding without the
        // public `blind`'s own wipe, once per request rather than once per token. The token
        // input has a fixed length, so `blind`'s length check cannot fail here.
        new_state(public_key, key_id, challenge_digest, nonce, |input| {
            VoprfClient::blind_with_scalar(
                input,
                crate::group::random_scalar::<<S as crate::Suite>::Group>(rng),
            )
        })
    }

    /// Builds a batched token request for `n` tokens under one challenge and key
    /// (draft-ietf-privacypass-batched-tokens, amortized issuance for token type `0x0001`).
    /// Every token gets its own nonce and blind.
    ///
    /// # Errors
    /// [`Error::Batch`] when `n` is 0 or over 65535; otherwise as [`Client::request`].
    pub fn request_batch(
        public_key: &PublicKey<S>,
        challenge: &[u8],
        n: usize,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<(BatchTokenRequest, BatchClientState)> {
        crate::stack::token(|| {
            if n == 0 || n > MAX_BATCH {
                return Err(Error::Batch);
            }
            let challenge_digest = parse_challenge(challenge)?;
            let key_id = token_key_id(public_key);
            let mut blinded_elements = Vec::with_capacity(n);
            let mut states = Vec::with_capacity(n);
            let mut truncated = 0;
            for _ in 0..n {
                let (req, st) = Self::request_parsed(public_key, key_id, challenge_digest, rng)?;
                truncated = req.truncated_token_key_id;
                blinded_elements.push(req.blinded_msg);
                states.push(st);
            }
            Ok((
                BatchTokenRequest {
                    truncated_token_key_id: truncated,
                    blinded_elements,
                },
                BatchClientState { states },
            ))
        })
    }
}

/// **Dangerous**: [`Client::request`] with a caller-chosen `nonce` and VOPRF `blind` (`Ns`
/// big-endian bytes), for reproducing the RFC 9578 Appendix A.1 vectors.
///
/// Both values must be fresh and uniformly random in real use: a reused or predictable blind
/// links the request to the redeemed token, and a reused nonce lets the origin reject the token as
/// a replay. Use [`Client::request`] in applications.
///
/// # Errors
/// As [`Client::request`]; scalar decoding errors ([`Error::InvalidLength`],
/// [`Error::NonCanonicalScalar`], [`Error::ZeroScalar`]) for `blind`.
pub fn request_with(
    public_key: &PublicKey<S>,
    challenge: &[u8],
    nonce: &[u8; NONCE_LEN],
    blind: &[u8],
) -> Result<(TokenRequest, ClientState)> {
    let challenge_digest = parse_challenge(challenge)?;
    new_state(
        public_key,
        token_key_id(public_key),
        challenge_digest,
        *nonce,
        |input| crate::hazmat::voprf_blind_with::<S>(input, blind),
    )
}

impl ClientState {
    /// Finalizes the token (RFC 9578 §5.3): verifies the issuer's proof against the key the
    /// request was made for, unblinds, and builds the token with
    /// `authenticator = Finalize(token_input, blind, evaluate_msg, blinded_msg, pkI, proof)`.
    ///
    /// # Errors
    /// [`Error::InvalidProof`] when the proof does not verify.
    pub fn finalize(self, response: &TokenResponse) -> Result<Token> {
        crate::stack::token(|| {
            let input = token_input(&self.nonce, &self.challenge_digest, &self.token_key_id);
            // By reference: the blind is wiped in place when `self` drops, on every path.
            let out = self.client.finalize_in_place(
                &input,
                &response.evaluate_msg,
                &response.evaluate_proof,
                &self.public_key,
            )?;
            let mut authenticator = [0u8; NK];
            authenticator.copy_from_slice(out.as_slice());
            Ok(Token {
                nonce: self.nonce,
                challenge_digest: self.challenge_digest,
                token_key_id: self.token_key_id,
                authenticator,
            })
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The issuer role of issuance protocol 1 (RFC 9578 §5.2) and the verifier of its tokens
/// (RFC 9578 §5.5).
///
/// Batched (amortized) issuance is capped at [`Issuer::max_batch`] tokens per request
/// ([`DEFAULT_MAX_BATCH`] unless set with [`Issuer::with_max_batch`]). Feed request bodies to
/// [`Issuer::issue_batch_from_bytes`], which refuses an over-cap request before decoding any
/// element.
#[derive(Clone, Debug)]
pub struct Issuer {
    server: VoprfServer<S>,
    token_key_id: [u8; NID],
    max_batch: u16,
}

impl Issuer {
    /// An issuer with the key pair of a VOPRF-mode P-384 server (RFC 9578 §6.5 recommends
    /// `VoprfServer::derive(seed, b"PrivacyPass")`), with the batch cap [`DEFAULT_MAX_BATCH`].
    pub fn new(server: VoprfServer<S>) -> Self {
        let token_key_id = token_key_id(server.public_key());
        Self {
            server,
            token_key_id,
            max_batch: DEFAULT_MAX_BATCH,
        }
    }

    /// This issuer with at most `max` tokens per batched request. `0` refuses every batched
    /// request; `u16::MAX` is the protocol's own limit ([`MAX_BATCH`]). Each token costs the
    /// issuer 0.3 to 0.45 ms of CPU on P-384 (see [`DEFAULT_MAX_BATCH`]).
    #[must_use]
    pub fn with_max_batch(mut self, max: u16) -> Self {
        self.max_batch = max;
        self
    }

    /// The most tokens one batched request may ask for.
    pub fn max_batch(&self) -> u16 {
        self.max_batch
    }

    /// An issuer with the secret key `skI`.
    pub fn from_secret_key(key: SecretKey<S>) -> Self {
        Self::new(VoprfServer::from_secret_key(key))
    }

    /// The public key `pkI` clients request tokens for.
    pub fn public_key(&self) -> &PublicKey<S> {
        self.server.public_key()
    }

    /// `token_key_id = SHA-256(SerializeElement(pkI))` (RFC 9578 §5).
    pub fn token_key_id(&self) -> &[u8; NID] {
        &self.token_key_id
    }

    /// The last byte of [`Issuer::token_key_id`], as carried in requests (RFC 9578 §5.1).
    pub fn truncated_token_key_id(&self) -> u8 {
        self.token_key_id[NID - 1]
    }

    /// The underlying VOPRF server.
    pub fn server(&self) -> &VoprfServer<S> {
        &self.server
    }

    fn check_key(&self, truncated: u8) -> Result<()> {
        if truncated != self.truncated_token_key_id() {
            return Err(Error::UnsupportedValue);
        }
        Ok(())
    }

    /// Answers a token request (RFC 9578 §5.2): checks the truncated key id, then
    /// `BlindEvaluate(skI, pkI, blinded_msg)`. The token type and `blinded_msg` were checked by
    /// [`TokenRequest::from_bytes`]. RFC 9578 maps every failure to HTTP 422.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when the truncated key id is not this issuer's.
    pub fn issue(
        &self,
        rng: &mut (impl RngCore + CryptoRng),
        request: &TokenRequest,
    ) -> Result<TokenResponse> {
        self.check_key(request.truncated_token_key_id)?;
        let eval = self.server.blind_evaluate(rng, &request.blinded_msg)?;
        Ok(TokenResponse {
            evaluate_msg: eval.message,
            evaluate_proof: eval.proof,
        })
    }

    /// Answers a batched token request with one evaluated element per blinded element and one
    /// proof for the batch (draft-ietf-privacypass-batched-tokens, amortized issuance).
    ///
    /// The request was decoded already, so its elements are paid for; an issuer facing the
    /// network should take the bytes with [`Issuer::issue_batch_from_bytes`] instead.
    ///
    /// # Errors
    /// [`Error::Batch`] when the batch is empty or over [`Issuer::max_batch`] elements (checked
    /// first); [`Error::UnsupportedValue`] when the truncated key id is not this issuer's.
    pub fn issue_batch(
        &self,
        rng: &mut (impl RngCore + CryptoRng),
        request: &BatchTokenRequest,
    ) -> Result<BatchTokenResponse> {
        let n = request.blinded_elements.len();
        if n == 0 || n > usize::from(self.max_batch) {
            return Err(Error::Batch);
        }
        self.check_key(request.truncated_token_key_id)?;
        self.evaluate_batch(rng, &request.blinded_elements)
    }

    /// Decodes a batched token request ([`BatchTokenRequest`] encoding) and answers it as
    /// [`Issuer::issue_batch`], doing no work for a request it refuses: the token type, the
    /// element count against [`Issuer::max_batch`], the total length and the truncated key id
    /// are checked before any element is decoded.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type or another key id; [`Error::Batch`]
    /// for an empty batch or one over [`Issuer::max_batch`]; [`Error::InvalidLength`] for a
    /// malformed length, a length that disagrees with the bytes given, or trailing bytes;
    /// element decoding errors ([`Error::InvalidPoint`], [`Error::IdentityElement`]).
    pub fn issue_batch_from_bytes(
        &self,
        rng: &mut (impl RngCore + CryptoRng),
        request: &[u8],
    ) -> Result<BatchTokenResponse> {
        let (truncated, body) = BatchTokenRequest::split(request, self.max_batch)?;
        self.check_key(truncated)?;
        self.evaluate_batch(rng, &decode_elements(body, BlindedElement::from_bytes)?)
    }

    fn evaluate_batch(
        &self,
        rng: &mut (impl RngCore + CryptoRng),
        blinded: &[BlindedElement<S>],
    ) -> Result<BatchTokenResponse> {
        let eval = self.server.blind_evaluate_batch(rng, blinded)?;
        Ok(BatchTokenResponse {
            evaluated_elements: eval.messages,
            proof: eval.proof,
        })
    }

    /// Verifies a token (RFC 9578 §5.5): `Evaluate(skI, token_input) == authenticator`,
    /// compared in constant time.
    ///
    /// Type `0x0001` tokens are privately verifiable, so this is also the origin's check: an
    /// origin verifies with the issuer's key (or asks the issuer). It does not detect replays;
    /// the caller must also reject nonces it has seen, and check `challenge_digest` against the
    /// challenge it sent.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when `token_key_id` is not this issuer's;
    /// [`Error::InvalidInput`] if the token input hashes to the identity (negligible).
    pub fn verify_token(&self, token: &Token) -> Result<bool> {
        if token.token_type() != TOKEN_TYPE || token.token_key_id != self.token_key_id {
            return Err(Error::UnsupportedValue);
        }
        let out = self.server.evaluate(&token.token_input())?;
        Ok(bool::from(out.as_slice().ct_eq(&token.authenticator)))
    }
}

// ---------------------------------------------------------------------------------------------
// Batched (amortized) issuance

/// The most tokens one batch may hold: the RFC 9497 composite index is a 2-byte integer.
pub const MAX_BATCH: usize = 65535;

/// The batch cap of a new [`Issuer`]: 256 tokens per batched request.
///
/// Each token costs the issuer one point decompression (a square root) and one constant-time
/// P-384 multiplication, plus its share of the batch proof: 0.3 to 0.45 ms of CPU (README
/// benchmarks: 280 µs per element in `blind_evaluate_batch` at batch 100; 430 µs of thread CPU
/// time per token for `issue_batch_from_bytes` at 256 and at 1000 tokens, measured on a loaded
/// 2-core VM). 256 tokens thus keep one request near 0.1 CPU-second, well under a second, where
/// the protocol's own limit of 65535 costs 20 to 30 CPU-seconds (review finding 2). 256 is far
/// above the batch sizes of the published vectors (3 tokens). Raise it with
/// [`Issuer::with_max_batch`] where requests are authenticated or rate-limited before they reach
/// the issuer.
pub const DEFAULT_MAX_BATCH: u16 = 256;

/// QUIC variable-length integer (RFC 9000 §16).
fn varint_encode(v: usize, out: &mut Vec<u8>) {
    let v = v as u64;
    if v < 1 << 6 {
        out.push(v as u8);
    } else if v < 1 << 14 {
        out.extend_from_slice(&((v as u16) | 0x4000).to_be_bytes());
    } else if v < 1 << 30 {
        out.extend_from_slice(&((v as u32) | 0x8000_0000).to_be_bytes());
    } else {
        out.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes());
    }
}

/// Strict QUIC varint decoding: the shortest encoding only.
fn varint_decode(bytes: &[u8]) -> Result<(usize, &[u8])> {
    let first = *bytes.first().ok_or(Error::InvalidLength)?;
    let len = 1usize << (first >> 6);
    let (enc, rest) = split(bytes, len)?;
    let mut v = u64::from(first & 0x3f);
    for b in &enc[1..] {
        v = (v << 8) | u64::from(*b);
    }
    let min_len = match v {
        0..=0x3f => 1,
        0x40..=0x3fff => 2,
        0x4000..=0x3fff_ffff => 4,
        _ => 8,
    };
    if len != min_len {
        return Err(Error::InvalidLength);
    }
    let v = usize::try_from(v).map_err(|_| Error::InvalidLength)?;
    Ok((v, rest))
}

/// Reads the `<V>` prefix of a vector of `Ne`-byte elements followed by `tail` more bytes, and
/// checks it before anything is decoded: a whole number of elements, between `min` and `max`
/// of them ([`Error::Batch`] otherwise), and exactly the bytes present. Returns the elements'
/// bytes and the tail.
fn split_elements(bytes: &[u8], min: usize, max: usize, tail: usize) -> Result<(&[u8], &[u8])> {
    let (body_len, rest) = varint_decode(bytes)?;
    if body_len % NE != 0 {
        return Err(Error::InvalidLength);
    }
    let n = body_len / NE;
    if n == 0 || n < min || n > max {
        return Err(Error::Batch);
    }
    if rest.len() != body_len.saturating_add(tail) {
        return Err(Error::InvalidLength);
    }
    Ok(rest.split_at(body_len))
}

/// Decodes a whole number of `Ne`-byte elements into a vector allocated once.
fn decode_elements<T>(body: &[u8], decode: fn(&[u8]) -> Result<T>) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(body.len() / NE);
    for e in body.chunks_exact(NE) {
        out.push(decode(e)?);
    }
    Ok(out)
}

/// A batched token request for token type `0x0001` (draft-ietf-privacypass-batched-tokens,
/// "Amortized Batch Token Request"):
///
/// ```text
/// struct {
///     uint16_t token_type = 0x0001;
///     uint8_t truncated_token_key_id;
///     BlindedElement blinded_elements<V>;   // each uint8_t blinded_element[Ne]
/// } AmortizedBatchTokenRequest;
/// ```
///
/// `<V>` is a QUIC variable-length integer (RFC 9000 §16) giving the length **in bytes** of the
/// concatenated elements, as in the draft and its TLS-presentation-language implementations
/// (raphaelrobert/privacypass). The draft is not final; this layout is the one of
/// `/work/shared/specs/voprf.md` §2. Decoding accepts only the shortest varint encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchTokenRequest {
    truncated_token_key_id: u8,
    blinded_elements: Vec<BlindedElement<S>>,
}

impl BatchTokenRequest {
    /// A request from its fields (the token type is always `0x0001`).
    pub fn new(truncated_token_key_id: u8, blinded_elements: Vec<BlindedElement<S>>) -> Self {
        Self {
            truncated_token_key_id,
            blinded_elements,
        }
    }

    /// Always [`TOKEN_TYPE`].
    pub fn token_type(&self) -> u16 {
        TOKEN_TYPE
    }

    /// The last byte of the issuer's `token_key_id`.
    pub fn truncated_token_key_id(&self) -> u8 {
        self.truncated_token_key_id
    }

    /// The blinded elements, one per token.
    pub fn blinded_elements(&self) -> &[BlindedElement<S>] {
        &self.blinded_elements
    }

    /// The encoding described on [`BatchTokenRequest`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = self.blinded_elements.len() * NE;
        let mut out = Vec::with_capacity(3 + 8 + body);
        out.extend_from_slice(&TOKEN_TYPE.to_be_bytes());
        out.push(self.truncated_token_key_id);
        varint_encode(body, &mut out);
        for e in &self.blinded_elements {
            out.extend_from_slice(e.to_bytes().as_slice());
        }
        out
    }

    /// Strict decoding of up to 65535 elements. An issuer should use
    /// [`BatchTokenRequest::from_bytes_with_limit`] or [`Issuer::issue_batch_from_bytes`].
    ///
    /// # Errors
    /// As [`BatchTokenRequest::from_bytes_with_limit`] with `max = 65535`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes_with_limit(bytes, u16::MAX)
    }

    /// Strict decoding of at most `max` elements. The token type, the element count and the
    /// total length are checked before any element is decoded, so an over-cap request costs
    /// nothing but reading its first bytes.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for another token type; [`Error::InvalidLength`] for a
    /// truncated or non-minimal length prefix, a vector length that is not a multiple of `Ne`, or
    /// a length that disagrees with the bytes given (truncation, trailing bytes);
    /// [`Error::Batch`] for an empty batch or more than `max` elements; [`Error::InvalidPoint`]
    /// or [`Error::IdentityElement`] for a bad element.
    pub fn from_bytes_with_limit(bytes: &[u8], max: u16) -> Result<Self> {
        let (truncated_token_key_id, body) = Self::split(bytes, max)?;
        Ok(Self {
            truncated_token_key_id,
            blinded_elements: decode_elements(body, BlindedElement::from_bytes)?,
        })
    }

    /// Checks everything but the elements: returns the truncated key id and the elements' bytes.
    fn split(bytes: &[u8], max: u16) -> Result<(u8, &[u8])> {
        let rest = check_token_type(bytes)?;
        let (&[truncated_token_key_id], rest) = split_array::<1>(rest)?;
        let (body, _) = split_elements(rest, 1, usize::from(max), 0)?;
        Ok((truncated_token_key_id, body))
    }
}

/// A batched token response (draft-ietf-privacypass-batched-tokens, "Amortized Batch Token
/// Response"):
///
/// ```text
/// struct {
///     EvaluatedElement evaluated_elements<V>;   // each uint8_t evaluated_element[Ne]
///     uint8_t evaluated_proof[Ns + Ns];
/// } AmortizedBatchTokenResponse;
/// ```
///
/// `<V>` is encoded as in [`BatchTokenRequest`]. One proof covers every element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchTokenResponse {
    evaluated_elements: Vec<EvaluationElement<S>>,
    proof: Proof<S>,
}

impl BatchTokenResponse {
    /// A response from its fields.
    pub fn new(evaluated_elements: Vec<EvaluationElement<S>>, proof: Proof<S>) -> Self {
        Self {
            evaluated_elements,
            proof,
        }
    }

    /// The evaluated elements, in request order.
    pub fn evaluated_elements(&self) -> &[EvaluationElement<S>] {
        &self.evaluated_elements
    }

    /// The batched DLEQ proof.
    pub fn proof(&self) -> &Proof<S> {
        &self.proof
    }

    /// The encoding described on [`BatchTokenResponse`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = self.evaluated_elements.len() * NE;
        let mut out = Vec::with_capacity(8 + body + 2 * NS);
        varint_encode(body, &mut out);
        for e in &self.evaluated_elements {
            out.extend_from_slice(e.to_bytes().as_slice());
        }
        out.extend_from_slice(self.proof.to_bytes().as_slice());
        out
    }

    /// Strict decoding of up to 65535 elements. A client should decode with
    /// [`BatchClientState::response_from_bytes`], which expects exactly the number it asked for.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a truncated or non-minimal length prefix, a vector length
    /// that is not a multiple of `Ne`, or a wrong total length; [`Error::Batch`] for an empty
    /// batch; element and scalar decoding errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::decode(bytes, 1, MAX_BATCH)
    }

    /// Decoding with between `min` and `max` elements, both checked before any is decoded.
    fn decode(bytes: &[u8], min: usize, max: usize) -> Result<Self> {
        let (body, proof) = split_elements(bytes, min, max, 2 * NS)?;
        Ok(Self {
            evaluated_elements: decode_elements(body, EvaluationElement::from_bytes)?,
            proof: Proof::from_bytes(proof)?,
        })
    }
}

/// The client state of a batched request: one [`ClientState`] per token. Zeroized on drop.
pub struct BatchClientState {
    states: Vec<ClientState>,
}

impl fmt::Debug for BatchClientState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BatchClientState(<{} redacted>)", self.states.len())
    }
}

impl BatchClientState {
    /// The number of tokens requested.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether the batch is empty (never, for a state made by [`Client::request_batch`]).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Strict decoding of the issuer's [`BatchTokenResponse`] to this request: the element
    /// count must be exactly [`BatchClientState::len`], checked with the total length before any
    /// element is decoded.
    ///
    /// # Errors
    /// [`Error::Batch`] for any other number of elements; otherwise as
    /// [`BatchTokenResponse::from_bytes`].
    pub fn response_from_bytes(&self, bytes: &[u8]) -> Result<BatchTokenResponse> {
        let n = self.states.len();
        BatchTokenResponse::decode(bytes, n, n)
    }

    /// Finalizes every token of the batch: one proof check for the batch, then unblinding
    /// (draft-ietf-privacypass-batched-tokens; RFC 9578 §5.3 per token). Any failure rejects the
    /// whole batch.
    ///
    /// # Errors
    /// [`Error::Batch`] when the response holds a different number of elements than requested;
    /// [`Error::InvalidProof`] when the proof does not verify.
    pub fn finalize_batch(self, response: &BatchTokenResponse) -> Result<Vec<Token>> {
        crate::stack::token(|| {
            let n = self.states.len();
            let public_key = match self.states.first() {
                Some(s) if response.evaluated_elements.len() == n => s.public_key,
                _ => return Err(Error::Batch),
            };
            let inputs: Vec<[u8; TOKEN_INPUT_LEN]> = self
                .states
                .iter()
                .map(|s| token_input(&s.nonce, &s.challenge_digest, &s.token_key_id))
                .collect();
            let input_refs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
            // By reference: every blind is wiped in place when `self.states` drops, on every path.
            let outputs = VoprfClient::finalize_batch_in_place(
                &self.states,
                |s| &s.client,
                &input_refs,
                &response.evaluated_elements,
                &response.proof,
                &public_key,
            )?;
            Ok(self
                .states
                .iter()
                .zip(outputs)
                .map(|(s, out)| {
                    let mut authenticator = [0u8; NK];
                    authenticator.copy_from_slice(out.as_slice());
                    Token {
                        nonce: s.nonce,
                        challenge_digest: s.challenge_digest,
                        token_key_id: s.token_key_id,
                        authenticator,
                    }
                })
                .collect())
        })
    }
}

// ---------------------------------------------------------------------------------------------
// serde

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{
        BatchTokenRequest, BatchTokenResponse, Token, TokenChallenge, TokenRequest, TokenResponse,
    };

    use crate::codec::serde_via_bytes;

    serde_via_bytes!(TokenChallenge);
    serde_via_bytes!(TokenRequest);
    serde_via_bytes!(TokenResponse);
    serde_via_bytes!(Token);
    serde_via_bytes!(BatchTokenRequest);
    serde_via_bytes!(BatchTokenResponse);
}
