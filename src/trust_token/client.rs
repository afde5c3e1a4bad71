//! The client (`TRUST_TOKEN_CLIENT`, BoringSSL `crypto/trust_token/trust_token.cc`): issuer
//! public keys, issuance (begin, finish, verify) and redemption requests, and the client's
//! secret issuance state.

use core::fmt;

use rand_core::CryptoRng;
use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::group::{Affine, Scalar};
use crate::{Error, Result};

use super::keys::PublicKey;
use super::wire::TokenReader as _;
use super::{pmb, voprf, wire, Method, C, NONCE_SIZE};

/// Precomputed tables of an issuer key held by a client: the three PMB public points, or the
/// VOPRF public key (for the proof check's `c * pub`).
#[derive(Clone, Debug)]
enum ClientTables {
    Pmb(Box<pmb::KeyTables>),
    Voprf(crate::group::FixedBaseTable<C>),
}

/// The client (`TRUST_TOKEN_CLIENT`, `crypto/trust_token/trust_token.cc`): holds up to
/// [`Method::max_keys`] public keys, selected by the key id of each issue response.
#[derive(Clone, Debug)]
pub struct Client {
    pub(super) method: Method,
    max_batchsize: u16,
    keys: Vec<(PublicKey, ClientTables)>,
    /// The Ed25519 key that verifies redemption records (`TRUST_TOKEN_CLIENT_set_srr_key`).
    #[cfg(feature = "srr")]
    pub(super) srr_key: Option<ed25519_dalek::VerifyingKey>,
}

/// A token (`TRUST_TOKEN`): `u32 key_id ‖ 64-byte nonce ‖ points`, kept as its bytes.
///
/// A bearer secret (whoever holds it can redeem it): equality is constant time over the bytes
/// ([`ConstantTimeEq`]; `==` goes through it, the lengths are public), and there is no `Hash`,
/// which would run over the secret bytes in variable time. To index tokens, key them by a
/// value the issuer learns anyway, such as [`Token::nonce`] after redemption.
#[derive(Clone, Debug)]
pub struct Token {
    pub(super) bytes: Vec<u8>,
}

impl ConstantTimeEq for Token {
    /// Constant time in the bytes; tokens of different lengths (public) are unequal.
    fn ct_eq(&self, other: &Self) -> Choice {
        self.bytes.as_slice().ct_eq(other.bytes.as_slice())
    }
}

impl PartialEq for Token {
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.ct_eq(other))
    }
}

impl Eq for Token {}

impl Token {
    /// Wraps token bytes (as stored by an application). Only the length of the key id is
    /// checked here; the issuer checks the rest at redemption. [`Token::decode`] (and serde)
    /// checks the layout and the points.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when shorter than 4 bytes or longer than 65535 bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self> {
        if bytes.len() < 4 || bytes.len() > usize::from(u16::MAX) {
            return Err(Error::InvalidLength);
        }
        Ok(Self { bytes })
    }

    /// The token bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The token bytes, by value.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The id of the key that signed it.
    pub fn key_id(&self) -> u32 {
        let mut id = [0u8; 4];
        id.copy_from_slice(&self.bytes[..4]);
        u32::from_be_bytes(id)
    }

    /// The 64-byte nonce (salt) of the token, if the token is long enough to hold one.
    pub fn nonce(&self) -> Option<&[u8]> {
        self.bytes.get(4..4 + NONCE_SIZE)
    }
}

/// The result of [`Client::begin_issuance`]: the wire message and the private state.
///
/// Only [`IssuanceRequest::message`] goes to the issuer; it is also the whole serde form
/// (feature `serde`: serialize-only, as the message's hex or bytes), so posting a serialized
/// request never sends the secret [`IssuanceState`].
#[derive(Debug)]
pub struct IssuanceRequest {
    /// The issue request: `u16 count ‖ count × point`.
    pub message: Vec<u8>,
    /// The blinds, kept by the client for [`Client::finish_issuance`]. Secret: never send it.
    pub state: IssuanceState,
}

/// One pending token: nonce, blind factor and the blinded point.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Pretoken {
    /// The salt (the token nonce).
    pub(crate) salt: [u8; NONCE_SIZE],
    /// VOPRF: `r^-1` (unblinding factor); PMB: `r` (with `T' = r^-1 T`).
    pub(crate) unblind: Scalar<C>,
    /// The blinded point sent in the request (`BT` or `T'`).
    #[zeroize(skip)]
    pub(crate) blinded: Affine<C>,
}

/// The client's private issuance state (`TRUST_TOKEN_PRETOKEN`s): zeroized on drop, `Debug`
/// redacted, not `Clone`, and no plain `Serialize`.
///
/// [`Client::finish_issuance`] consumes it, as BoringSSL frees its pretokens, so one state
/// never yields two token sets; a failed call (a bad or tampered response) hands it back in
/// [`FinishIssuanceError::state`] for the right response. To keep it between begin and finish
/// issuance, store [`IssuanceState::to_secret_bytes`] as a secret (with serde: the field
/// attribute `#[serde(with = "privacy_tokens::trust_token::secret_issuance_state")]`).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct IssuanceState {
    #[zeroize(skip)]
    pub(super) method: Method,
    pub(super) pretokens: Vec<Pretoken>,
}

impl fmt::Debug for IssuanceState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IssuanceState")
            .field("method", &self.method)
            .field("count", &self.pretokens.len())
            .finish_non_exhaustive()
    }
}

impl IssuanceState {
    /// How many tokens were requested.
    pub fn count(&self) -> usize {
        self.pretokens.len()
    }

    /// The method the request was made for.
    pub fn method(&self) -> Method {
        self.method
    }
}

/// The error of [`Client::finish_issuance`]: what went wrong, and the state, untouched, to
/// finish with the right response. `Debug` is redacted (the state's); `?` converts it into
/// [`Error`], dropping (and wiping) the state.
pub struct FinishIssuanceError {
    /// Why the response was rejected.
    pub error: Error,
    /// The state that was passed in, still unused.
    pub state: IssuanceState,
}

impl fmt::Debug for FinishIssuanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FinishIssuanceError")
            .field("error", &self.error)
            .field("state", &self.state)
            .finish()
    }
}

impl fmt::Display for FinishIssuanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FinishIssuanceError {}

impl From<FinishIssuanceError> for Error {
    fn from(e: FinishIssuanceError) -> Self {
        e.error
    }
}

impl Client {
    /// A client for `method` that requests at most `max_batchsize` tokens at a time
    /// (`TRUST_TOKEN_CLIENT_new`).
    pub fn new(method: Method, max_batchsize: u16) -> Self {
        Self {
            method,
            max_batchsize,
            keys: Vec::new(),
            #[cfg(feature = "srr")]
            srr_key: None,
        }
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The largest batch this client requests.
    pub fn max_batchsize(&self) -> u16 {
        self.max_batchsize
    }

    /// Adds an issuer public key; returns its index (`TRUST_TOKEN_CLIENT_add_key`).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when the key belongs to another method, a key with the same
    /// id is present, or the client already holds [`Method::max_keys`] keys.
    pub fn add_key(&mut self, key: PublicKey) -> Result<usize> {
        if key.method() != self.method
            || self.keys.len() >= self.method.max_keys()
            || self.keys.iter().any(|(k, _)| k.key_id() == key.key_id())
        {
            return Err(Error::UnsupportedValue);
        }
        let tables = match pmb::KeyTables::for_key(&key) {
            Some(t) => ClientTables::Pmb(Box::new(t)),
            None => ClientTables::Voprf(crate::group::FixedBaseTable::new(&key.points()[0])),
        };
        self.keys.push((key, tables));
        Ok(self.keys.len() - 1)
    }

    /// Decodes a public key blob (e.g. the base64-decoded `"Y"` of a key commitment) and adds
    /// it (`TRUST_TOKEN_CLIENT_add_key`).
    ///
    /// # Errors
    /// Those of [`PublicKey::from_bytes`] and [`Client::add_key`]; a full client refuses before
    /// decoding.
    pub fn add_key_bytes(&mut self, blob: &[u8]) -> Result<usize> {
        // A full client refuses before decoding.
        if self.keys.len() >= self.method.max_keys() {
            return Err(Error::UnsupportedValue);
        }
        self.add_key(PublicKey::from_bytes(self.method, blob)?)
    }

    /// Blinds `count` fresh nonces (`TRUST_TOKEN_CLIENT_begin_issuance`). `count` is silently
    /// capped at the client's `max_batchsize`, as BoringSSL does.
    ///
    /// # Errors
    /// [`Error::Batch`] when the (capped) count is zero.
    pub fn begin_issuance(
        &self,
        count: usize,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<IssuanceRequest> {
        self.begin_issuance_impl(count, None, rng)
    }

    /// As [`Client::begin_issuance`], but each token's nonce is `SHA-512(salt ‖ msg)`
    /// (`TRUST_TOKEN_CLIENT_begin_issuance_over_message`); redeem with
    /// [`Issuer::redeem_over_message`](super::Issuer::redeem_over_message).
    ///
    /// # Errors
    /// As [`Client::begin_issuance`].
    pub fn begin_issuance_over_message(
        &self,
        count: usize,
        msg: &[u8],
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<IssuanceRequest> {
        self.begin_issuance_impl(count, Some(msg), rng)
    }

    fn begin_issuance_impl(
        &self,
        count: usize,
        msg: Option<&[u8]>,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<IssuanceRequest> {
        crate::stack::token(|| {
            let count = count.min(usize::from(self.max_batchsize));
            if count == 0 || u16::try_from(count).is_err() {
                return Err(Error::Batch);
            }
            let pretokens = if self.method.has_private_metadata() {
                pmb::blind(self.method, count, msg, rng)?
            } else {
                voprf::blind(self.method, count, msg, rng)?
            };
            Ok(IssuanceRequest::from_state(IssuanceState {
                method: self.method,
                pretokens,
            }))
        })
    }

    /// Verifies an issue response and unblinds its tokens (`TRUST_TOKEN_CLIENT_finish_issuance`).
    ///
    /// The response may carry fewer tokens than requested (never more); they match the first
    /// pretokens of `state`. The state is consumed: on success its pretokens are gone (wiped),
    /// so it cannot be finished a second time; any failure rejects the whole batch and returns
    /// the state untouched in the error, to be finished with the right response.
    ///
    /// # Errors
    /// A [`FinishIssuanceError`] holding the state and [`Error::UnsupportedValue`] for a key
    /// id this client does not hold or a state of another method; [`Error::Batch`] for a count
    /// of zero or above the request's; [`Error::InvalidLength`] for a length other than that of
    /// `count` signed elements and a proof (checked before anything is decoded) or a wrong
    /// proof length prefix; point and scalar decoding errors; [`Error::InvalidProof`] when
    /// the batched proof fails.
    pub fn finish_issuance(
        &self,
        state: IssuanceState,
        response: &[u8],
    ) -> core::result::Result<Vec<Token>, FinishIssuanceError> {
        match self.finish_issuance_with(&state, response) {
            Ok(tokens) => Ok(tokens),
            Err(error) => Err(FinishIssuanceError { error, state }),
        }
    }

    /// [`Client::finish_issuance`] on a borrowed state.
    fn finish_issuance_with(&self, state: &IssuanceState, response: &[u8]) -> Result<Vec<Token>> {
        crate::stack::token(|| {
            if state.method != self.method {
                return Err(Error::UnsupportedValue);
            }
            let mut r = wire::Reader::new(response);
            let count = usize::from(r.u16()?);
            let key_id = r.u32()?;
            if count == 0 || count > state.pretokens.len() {
                return Err(Error::Batch);
            }
            let key = self
                .keys
                .iter()
                .find(|(k, _)| k.key_id() == key_id)
                .ok_or(Error::UnsupportedValue)?;
            // The exact length before any point or scalar is decoded.
            let m = self.method;
            if response.len() != 6 + count * m.signed_len() + 2 + m.proof_len() {
                return Err(Error::InvalidLength);
            }
            let pretokens = state.pretokens.get(..count).ok_or(Error::Batch)?;
            match key {
                (key, ClientTables::Pmb(tables)) => pmb::unblind(key, tables, pretokens, &mut r),
                (key, ClientTables::Voprf(table)) => voprf::unblind(key, table, pretokens, &mut r),
            }
        })
    }

    /// Verifies an issue response against the request it answers, without the blinds
    /// (the proof check of `TRUST_TOKEN_CLIENT_finish_issuance`, for auditing recorded
    /// transcripts). Returns the number of tokens issued.
    ///
    /// # Errors
    /// As [`Client::finish_issuance`], plus request decoding errors.
    pub fn verify_issuance(&self, request: &[u8], response: &[u8]) -> Result<u16> {
        let mut q = wire::Reader::new(request);
        let count = usize::from(q.u16()?);
        // The exact length before anything is allocated or decoded.
        if request.len() != 2 + count * self.method.point_len() {
            return Err(Error::InvalidLength);
        }
        let mut pretokens = Vec::with_capacity(count);
        for _ in 0..count {
            pretokens.push(Pretoken {
                salt: [0u8; NONCE_SIZE],
                unblind: Scalar::<C>::ONE,
                blinded: q.wire_point(self.method)?,
            });
        }
        q.finish()?;
        let state = IssuanceState {
            method: self.method,
            pretokens,
        };
        let tokens = self.finish_issuance_with(&state, response)?;
        u16::try_from(tokens.len()).map_err(|_| Error::Batch)
    }

    /// The redemption request for a token (`TRUST_TOKEN_CLIENT_begin_redemption`):
    /// `u16 len ‖ token ‖ u16 len ‖ client_data` (`experiment_v1`: followed by a u64 time of
    /// zero; see [`Client::begin_redemption_at`]).
    ///
    /// # Errors
    /// [`Error::InputTooLong`] when the client data or the token is 65536 bytes or longer.
    pub fn begin_redemption(&self, token: &Token, client_data: &[u8]) -> Result<Vec<u8>> {
        self.begin_redemption_at(token, client_data, 0)
    }

    /// As [`Client::begin_redemption`] with BoringSSL's `time` argument, which only
    /// `experiment_v1` writes (as a u64 after the client data); the other methods ignore it.
    ///
    /// # Errors
    /// As [`Client::begin_redemption`].
    pub fn begin_redemption_at(
        &self,
        token: &Token,
        client_data: &[u8],
        time: u64,
    ) -> Result<Vec<u8>> {
        let tl = crate::transcript::len_prefix(token.bytes.len())?;
        let cl = crate::transcript::len_prefix(client_data.len())?;
        let mut out = Vec::with_capacity(4 + token.bytes.len() + client_data.len() + 8);
        out.extend_from_slice(&tl);
        out.extend_from_slice(&token.bytes);
        out.extend_from_slice(&cl);
        out.extend_from_slice(client_data);
        if self.method.is_legacy() {
            out.extend_from_slice(&time.to_be_bytes());
        }
        // Published: the redemption request, token included, is what the client sends to the
        // issuer now (until here the token was a bearer secret of the client).
        crate::group::validation::publish(&mut out[..]);
        Ok(out)
    }
}
