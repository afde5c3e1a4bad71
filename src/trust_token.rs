//! Trust Tokens / Private State Tokens as BoringSSL ships them (`include/openssl/trust_token.h`,
//! `crypto/trust_token/`), for the WICG Private State Token API.
//!
//! Five methods, all on P-384, each a [`Method`] value: the current `pst_v1_voprf` and
//! `pst_v1_pmb` (Chrome's `"PrivateStateTokenV1VOPRF"` / `"PrivateStateTokenV1PMB"`), the
//! deprecated `experiment_v2_voprf` / `experiment_v2_pmb` (`"PrivateStateTokenV3VOPRF"` /
//! `"PrivateStateTokenV3PMB"`) and the legacy `experiment_v1`. Every message is byte-for-byte
//! BoringSSL's:
//!
//! | message | layout |
//! | --- | --- |
//! | private key | `u32 key_id ‖ scalars` (VOPRF: `k`; PMB: `x0 y0 x1 y1 xs ys`) |
//! | public key | `u32 key_id ‖ points` (VOPRF: `k·G`; PMB: `pub0 pub1 pubs`) |
//! | issue request | `u16 count ‖ count × point` |
//! | issue response | `u16 issued ‖ u32 key_id ‖ issued × signed ‖ u16 len ‖ proof` |
//! | token | `u32 key_id ‖ 64-byte nonce ‖ points` |
//! | redemption request | `u16 len ‖ token ‖ u16 len ‖ client_data` (`experiment_v1`: `‖ u64 time`) |
//! | redemption response | opaque, returned verbatim (`experiment_v1`: `u16 len ‖ SRR ‖ u16 len ‖ Ed25519 signature`) |
//!
//! Points are 97-byte uncompressed SEC1, scalars 48-byte big-endian.
//!
//! For storage this crate adds encodings of its own (each decoded strictly: exact length, no
//! trailing bytes, canonical scalars, points on the curve and not the identity), which are also
//! the serde forms (feature `serde`: lowercase hex in human-readable formats, bytes otherwise):
//!
//! | type | storage encoding / serde form |
//! | --- | --- |
//! | [`Method`] | serde only: its [`Method::name`], e.g. `"pst_v1_pmb"` |
//! | [`PrivateKey`] | `u8 method id ‖ private key blob` ([`PrivateKey::to_storage_bytes`]) |
//! | [`PublicKey`] | `u8 method id ‖ public key blob` ([`PublicKey::to_storage_bytes`]) |
//! | [`Token`] | the token bytes above ([`Token::decode`]) |
//! | [`IssueResponse`] | its issue response message ([`IssueResponse::decode`]) |
//! | [`IssuanceState`] | `u8 method id ‖ u16 count ‖ count × (salt ‖ blind ‖ point)` ([`IssuanceState::to_bytes`]) |
//! | [`IssuanceRequest`] | its state (the message is rebuilt from it: [`IssuanceRequest::from_state`]) |
//! | [`Redemption`] | `u32 key_id ‖ u8 bit ‖ 64-byte nonce ‖ client_data` ([`Redemption::to_bytes`]) |
//!
//! The method id is [`Method::id`]. The BoringSSL blobs inside the key encodings are unchanged:
//! drop the first byte to hand them to BoringSSL.
//!
//! ```
//! use privacy_tokens::trust_token::{generate_key, Client, Issuer, Method};
//!
//! let mut rng = rand::thread_rng();
//! let method = Method::PstV1Pmb;
//! let (private, public) = generate_key(method, 7, &mut rng);
//! let mut issuer = Issuer::new(method, 10);
//! issuer.add_key(private)?;
//! let mut client = Client::new(method, 10);
//! client.add_key(public)?;
//!
//! let request = client.begin_issuance(3, &mut rng)?;
//! let response = issuer.issue(&request.message, 7, true, 10, &mut rng)?;
//! let tokens = client.finish_issuance(&request.state, &response.message)?;
//! assert_eq!(tokens.len(), 3);
//!
//! let redemption = client.begin_redemption(&tokens[0], b"client data")?;
//! let r = issuer.redeem(&redemption)?;
//! assert_eq!((r.key_id, r.private_metadata, &r.client_data[..]), (7, true, &b"client data"[..]));
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! `experiment_v1`'s signed redemption record (SRR) is checked by `Client::finish_redemption`
//! with the client's Ed25519 key (`Client::set_srr_key`); both come with the `srr` feature (off
//! by default), as does `Issuer::redemption_response`, which signs one.
//!
//! Constant time: key scalars, blinds, proof nonces and the private metadata bit only meet
//! constant-time code (the bit selects keys and proof branches with `subtle`; both branches are
//! always computed). Proof verification and the batch aggregation use variable-time
//! multi-scalar multiplication over public data. Issue and finish-issuance spend a constant
//! number of field inversions per batch.

pub(crate) mod hash;
pub mod hazmat;
mod keys;
mod pmb;
#[cfg(feature = "srr")]
mod srr;
mod storage;
#[cfg(test)]
mod tests;
mod voprf;
mod wire;

use wire::TokenReader as _;

use core::fmt;

use rand_core::{CryptoRng, RngCore};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::group::{Affine, Scalar};
use crate::{Error, Result};

pub use keys::{derive_key_from_secret, generate_key, PrivateKey, PublicKey};
#[cfg(feature = "srr")]
pub use srr::{RedemptionRecord, SRR_KEY_LEN, SRR_SIGNATURE_LEN};

type C = p384::NistP384;

/// Precomputed tables of an issuer key held by a client: the three PMB public points, or the
/// VOPRF public key (for the proof check's `c * pub`).
#[derive(Clone, Debug)]
enum ClientTables {
    Pmb(Box<pmb::KeyTables>),
    Voprf(crate::group::FixedBaseTable<C>),
}

/// Length of the client nonce (`TRUST_TOKEN_NONCE_SIZE`, `crypto/trust_token/internal.h`).
pub const NONCE_SIZE: usize = 64;
/// Length of a P-384 point on the wire (uncompressed SEC1).
pub const POINT_LEN: usize = 97;
/// Length of a P-384 scalar on the wire.
pub const SCALAR_LEN: usize = 48;
/// Upper bound on private key blobs (`TRUST_TOKEN_MAX_PRIVATE_KEY_SIZE`).
pub const MAX_PRIVATE_KEY_SIZE: usize = 512;
/// Upper bound on public key blobs (`TRUST_TOKEN_MAX_PUBLIC_KEY_SIZE`).
pub const MAX_PUBLIC_KEY_SIZE: usize = 512;

/// A Trust Token method (`TRUST_TOKEN_METHOD`, `crypto/trust_token/trust_token.cc`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `TRUST_TOKEN_pst_v1_voprf()`: RFC 9497 VOPRF(P-384, SHA-384) with uncompressed points
    /// on the wire and no finalize hash (Chrome `"PrivateStateTokenV1VOPRF"`).
    PstV1Voprf,
    /// `TRUST_TOKEN_pst_v1_pmb()`: PMBTokens with a private metadata bit, RFC 9380
    /// `P384_XMD:SHA-384_SSWU_RO_` (Chrome `"PrivateStateTokenV1PMB"`).
    PstV1Pmb,
    /// `TRUST_TOKEN_experiment_v2_voprf()`: the older VOPRF with SHA-512 hashing and a
    /// `(c, u)` DLEQ proof (Chrome `"PrivateStateTokenV3VOPRF"`, deprecated).
    ExperimentV2Voprf,
    /// `TRUST_TOKEN_experiment_v2_pmb()`: PMBTokens with SHA-512 hashing (Chrome
    /// `"PrivateStateTokenV3PMB"`, deprecated).
    ExperimentV2Pmb,
    /// `TRUST_TOKEN_experiment_v1()`: the legacy PMBTokens method (SHA-512 hashing, points
    /// u16-length-prefixed on the wire, a u64 time in redemption requests, an Ed25519-signed
    /// redemption record in redemption responses: see [`Method::has_srr`]).
    ExperimentV1,
}

impl Method {
    /// Every method this crate implements.
    pub const ALL: [Method; 5] = [
        Method::PstV1Voprf,
        Method::PstV1Pmb,
        Method::ExperimentV2Voprf,
        Method::ExperimentV2Pmb,
        Method::ExperimentV1,
    ];

    /// BoringSSL's name without the `TRUST_TOKEN_` prefix, e.g. `"pst_v1_voprf"`.
    pub const fn name(self) -> &'static str {
        match self {
            Method::PstV1Voprf => "pst_v1_voprf",
            Method::PstV1Pmb => "pst_v1_pmb",
            Method::ExperimentV2Voprf => "experiment_v2_voprf",
            Method::ExperimentV2Pmb => "experiment_v2_pmb",
            Method::ExperimentV1 => "experiment_v1",
        }
    }

    /// The method of a BoringSSL name (as [`Method::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// This crate's one-byte id of the method, the first byte of the storage encodings of
    /// [`PrivateKey`], [`PublicKey`] and [`IssuanceState`] (BoringSSL numbers no methods):
    /// 1 `pst_v1_voprf`, 2 `pst_v1_pmb`, 3 `experiment_v2_voprf`, 4 `experiment_v2_pmb`,
    /// 5 `experiment_v1`. Ids are fixed: never renumbered nor reused; 0 is never an id.
    pub const fn id(self) -> u8 {
        match self {
            Method::PstV1Voprf => 1,
            Method::PstV1Pmb => 2,
            Method::ExperimentV2Voprf => 3,
            Method::ExperimentV2Pmb => 4,
            Method::ExperimentV1 => 5,
        }
    }

    /// The method of an id (as [`Method::id`]); `None` for an unknown id.
    pub fn from_id(id: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.id() == id)
    }

    /// Chrome's protocol version string (`protocol_version` of the key commitment, WICG
    /// `spec.bs` §"Issuer Key Commitments"; Chrome `boringssl_trust_token_state.cc`).
    /// `None` for `experiment_v1`, which current Chrome no longer maps.
    pub const fn protocol_version(self) -> Option<&'static str> {
        match self {
            Method::PstV1Voprf => Some("PrivateStateTokenV1VOPRF"),
            Method::PstV1Pmb => Some("PrivateStateTokenV1PMB"),
            Method::ExperimentV2Voprf => Some("PrivateStateTokenV3VOPRF"),
            Method::ExperimentV2Pmb => Some("PrivateStateTokenV3PMB"),
            Method::ExperimentV1 => None,
        }
    }

    /// Whether the method carries a private metadata bit (the PMB methods).
    pub const fn has_private_metadata(self) -> bool {
        matches!(
            self,
            Method::PstV1Pmb | Method::ExperimentV2Pmb | Method::ExperimentV1
        )
    }

    /// Whether points on the wire carry a u16 length prefix and redemption requests a u64
    /// time (`experiment_v1` only: `prefix_point` and `has_srr` in BoringSSL).
    pub const fn is_legacy(self) -> bool {
        matches!(self, Method::ExperimentV1)
    }

    /// Whether the redemption response is a signed redemption record, `u16 len ‖ SRR ‖ u16 len ‖
    /// Ed25519 signature over the SRR` (`experiment_v1` only: `has_srr` in BoringSSL). The
    /// client checks it with `Client::finish_redemption` (feature `srr`); for the other methods
    /// the response is opaque and returned verbatim.
    pub const fn has_srr(self) -> bool {
        matches!(self, Method::ExperimentV1)
    }

    /// Length of one point on the wire: 97 bytes, or 99 with the u16 prefix of
    /// `experiment_v1`.
    pub const fn point_len(self) -> usize {
        if self.is_legacy() {
            2 + POINT_LEN
        } else {
            POINT_LEN
        }
    }

    /// How many keys an issuer or client may hold (`max_keys`: 6 for VOPRF, 3 for PMB).
    pub const fn max_keys(self) -> usize {
        if self.has_private_metadata() {
            3
        } else {
            6
        }
    }

    /// Number of scalars in a private key (1 for VOPRF, 6 for PMB).
    pub(crate) const fn num_scalars(self) -> usize {
        if self.has_private_metadata() {
            6
        } else {
            1
        }
    }

    /// Number of points in a public key and in a token (1 for VOPRF, 3 for PMB).
    pub(crate) const fn num_points(self) -> usize {
        if self.has_private_metadata() {
            3
        } else {
            1
        }
    }

    /// Length of a private key blob: 52 (VOPRF) or 292 (PMB) bytes.
    pub const fn private_key_len(self) -> usize {
        4 + SCALAR_LEN * self.num_scalars()
    }

    /// Length of a public key blob: 101 (VOPRF) or 295 (PMB) bytes.
    pub const fn public_key_len(self) -> usize {
        4 + self.point_len() * self.num_points()
    }

    /// Length of a token: 165 (VOPRF) or 359 (PMB) bytes.
    pub const fn token_len(self) -> usize {
        4 + NONCE_SIZE + self.point_len() * self.num_points()
    }

    /// Length of the issue-response proof: 96 (VOPRF) or 432 (PMB) bytes.
    pub const fn proof_len(self) -> usize {
        if self.has_private_metadata() {
            9 * SCALAR_LEN
        } else {
            2 * SCALAR_LEN
        }
    }

    /// Length of one signed element in an issue response: 97 (VOPRF: `Z`) or 258 (PMB:
    /// `s ‖ W' ‖ Ws'`) bytes.
    pub const fn signed_len(self) -> usize {
        if self.has_private_metadata() {
            NONCE_SIZE + 2 * self.point_len()
        } else {
            self.point_len()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Issuer

/// The issuer (`TRUST_TOKEN_ISSUER`, `crypto/trust_token/trust_token.cc`): holds up to
/// [`Method::max_keys`] private keys, selected by key id.
#[derive(Clone, Debug)]
pub struct Issuer {
    method: Method,
    max_batchsize: u16,
    /// PMB keys carry their public tables and the secret blind of the issuer's ladders.
    keys: Vec<(PrivateKey, Option<pmb::IssuerKey>)>,
    /// The Ed25519 key that signs redemption records (`TRUST_TOKEN_ISSUER_set_srr_key`).
    #[cfg(feature = "srr")]
    srr_key: Option<ed25519_dalek::SigningKey>,
}

/// The result of [`Issuer::issue`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueResponse {
    /// How many tokens were issued: `min(requested, max_issuance, max_batchsize)`.
    pub issued: u16,
    /// The issue response: `u16 issued ‖ u32 key_id ‖ signed elements ‖ u16 len ‖ proof`.
    pub message: Vec<u8>,
}

/// What [`Issuer::redeem`] learns from a valid redemption request (`TRUST_TOKEN_ISSUER_redeem`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redemption {
    /// The id of the key that signed the token (the token's public metadata).
    pub key_id: u32,
    /// The private metadata bit (always `false` for the VOPRF methods).
    pub private_metadata: bool,
    /// The token's 64-byte nonce `t`, the double-spend identifier the caller must record
    /// (`out_token` of `TRUST_TOKEN_ISSUER_redeem`): the token's salt, or `SHA-512(salt ‖ msg)`
    /// for [`Issuer::redeem_over_message`].
    pub nonce: [u8; NONCE_SIZE],
    /// The client data of the redemption request.
    pub client_data: Vec<u8>,
}

impl Issuer {
    /// An issuer for `method` that issues at most `max_batchsize` tokens per request
    /// (`TRUST_TOKEN_ISSUER_new`).
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

    /// The largest batch this issuer signs.
    pub fn max_batchsize(&self) -> u16 {
        self.max_batchsize
    }

    /// The public keys of the keys held, in the order they were added (what the issuer
    /// publishes in its key commitment).
    pub fn public_keys(&self) -> Vec<PublicKey> {
        self.keys.iter().map(|(k, _)| k.public_key()).collect()
    }

    /// Adds a private key (`TRUST_TOKEN_ISSUER_add_key`).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when the key belongs to another method, a key with the same
    /// id is present, or the issuer already holds [`Method::max_keys`] keys.
    ///
    /// A PMB key also gets the fixed-base tables of its public points and the secret blind of
    /// the issuer's constant-time ladders (derived from the key; see `group::LadderBlind`), so
    /// adding one costs a few milliseconds.
    pub fn add_key(&mut self, key: PrivateKey) -> Result<()> {
        if key.method() != self.method
            || self.keys.len() >= self.method.max_keys()
            || self.keys.iter().any(|(k, _)| k.key_id() == key.key_id())
        {
            return Err(Error::UnsupportedValue);
        }
        let state = pmb::IssuerKey::for_key(&key)?;
        self.keys.push((key, state));
        Ok(())
    }

    /// Decodes a private key blob and adds it (`TRUST_TOKEN_ISSUER_add_key`).
    ///
    /// # Errors
    /// Those of [`PrivateKey::from_bytes`] and [`Issuer::add_key`].
    pub fn add_key_bytes(&mut self, blob: &[u8]) -> Result<()> {
        self.add_key(PrivateKey::from_bytes(self.method, blob)?)
    }

    fn key(&self, key_id: u32) -> Result<&(PrivateKey, Option<pmb::IssuerKey>)> {
        self.keys
            .iter()
            .find(|(k, _)| k.key_id() == key_id)
            .ok_or(Error::UnsupportedValue)
    }

    /// Signs an issue request with the key `key_id`, embedding the private metadata bit
    /// (`TRUST_TOKEN_ISSUER_issue`; `pmbtoken_sign` / `voprf_sign` in BoringSSL).
    ///
    /// Issues `min(requested, max_issuance, max_batchsize)` tokens; request points beyond that
    /// are skipped unparsed, as BoringSSL does. The bit only selects values in constant time.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for an unknown key id or a set bit with a VOPRF method;
    /// [`Error::Batch`] when nothing would be issued (count 0, `max_issuance` 0);
    /// [`Error::InvalidLength`] on a truncated request or trailing bytes; point decoding
    /// errors ([`Error::InvalidPoint`], [`Error::IdentityElement`]).
    pub fn issue(
        &self,
        request: &[u8],
        key_id: u32,
        private_metadata: bool,
        max_issuance: u16,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<IssueResponse> {
        self.issue_impl(request, key_id, private_metadata, max_issuance, rng, None)
    }

    pub(crate) fn issue_impl(
        &self,
        request: &[u8],
        key_id: u32,
        private_metadata: bool,
        max_issuance: u16,
        rng: &mut (impl RngCore + CryptoRng),
        proof_nonce: Option<Scalar<C>>,
    ) -> Result<IssueResponse> {
        if !self.method.has_private_metadata() && private_metadata {
            return Err(Error::UnsupportedValue);
        }
        let key = self.key(key_id)?;
        let mut r = wire::Reader::new(request);
        let requested = r.u16()?;
        let plen = self.method.point_len();
        let points = r.take(usize::from(requested) * plen)?;
        r.finish()?;
        let issued = requested.min(max_issuance).min(self.max_batchsize);
        if issued == 0 {
            return Err(Error::Batch);
        }
        let points = &points[..usize::from(issued) * plen];
        let mut message = Vec::with_capacity(
            6 + usize::from(issued) * self.method.signed_len() + 2 + self.method.proof_len(),
        );
        message.extend_from_slice(&issued.to_be_bytes());
        message.extend_from_slice(&key_id.to_be_bytes());
        match key {
            (key, Some(state)) => {
                pmb::issue(key, state, points, private_metadata, &mut message, rng)?
            }
            (key, None) => voprf::issue(key, points, &mut message, rng, proof_nonce)?,
        }
        Ok(IssueResponse { issued, message })
    }

    /// Redeems a redemption request (`TRUST_TOKEN_ISSUER_redeem`): checks the token under the
    /// key its id names and reads the private metadata bit.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] on a malformed request; [`Error::UnsupportedValue`] for an
    /// unknown key id; point decoding errors; [`Error::InvalidProof`] for a token this issuer
    /// did not sign (PMB: the validity check failed, or both or neither bit matched).
    pub fn redeem(&self, request: &[u8]) -> Result<Redemption> {
        self.redeem_impl(request, None)
    }

    /// As [`Issuer::redeem`] for tokens made with [`Client::begin_issuance_over_message`]
    /// (`TRUST_TOKEN_ISSUER_redeem_over_message`): the token's nonce is `SHA-512(salt ‖ msg)`.
    ///
    /// # Errors
    /// As [`Issuer::redeem`].
    pub fn redeem_over_message(&self, request: &[u8], msg: &[u8]) -> Result<Redemption> {
        self.redeem_impl(request, Some(msg))
    }

    fn redeem_impl(&self, request: &[u8], msg: Option<&[u8]>) -> Result<Redemption> {
        let mut r = wire::Reader::new(request);
        let token = r.u16_prefixed()?;
        let client_data = r.u16_prefixed()?;
        if self.method.is_legacy() {
            // experiment_v1: the redemption time, not checked by the issuer.
            r.take(8)?;
        }
        r.finish()?;
        let mut t = wire::Reader::new(token);
        let key_id = t.u32()?;
        let salt: [u8; NONCE_SIZE] = t.array()?;
        let (key, state) = self.key(key_id)?;
        let nonce = hash::token_input(&salt, msg);
        let private_metadata = match state {
            Some(state) => pmb::redeem(key, state, &nonce, &mut t)?,
            None => {
                voprf::redeem(key, &nonce, &mut t)?;
                false
            }
        };
        Ok(Redemption {
            key_id,
            private_metadata,
            nonce,
            client_data: client_data.to_vec(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Client

/// The client (`TRUST_TOKEN_CLIENT`, `crypto/trust_token/trust_token.cc`): holds up to
/// [`Method::max_keys`] public keys, selected by the key id of each issue response.
#[derive(Clone, Debug)]
pub struct Client {
    method: Method,
    max_batchsize: u16,
    keys: Vec<(PublicKey, ClientTables)>,
    /// The Ed25519 key that verifies redemption records (`TRUST_TOKEN_CLIENT_set_srr_key`).
    #[cfg(feature = "srr")]
    srr_key: Option<ed25519_dalek::VerifyingKey>,
}

/// A token (`TRUST_TOKEN`): `u32 key_id ‖ 64-byte nonce ‖ points`, kept as its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    bytes: Vec<u8>,
}

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
#[derive(Debug)]
pub struct IssuanceRequest {
    /// The issue request: `u16 count ‖ count × point`.
    pub message: Vec<u8>,
    /// The blinds, kept by the client for [`Client::finish_issuance`].
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
/// redacted, not `Clone`.
///
/// [`Client::finish_issuance`] borrows it, so a failed call (a bad or tampered response) leaves
/// it usable for the right response; drop it after success. To keep it between begin and
/// finish issuance, store [`IssuanceState::to_bytes`] (or serialize it) as a secret.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct IssuanceState {
    #[zeroize(skip)]
    method: Method,
    pretokens: Vec<Pretoken>,
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
    /// Those of [`PublicKey::from_bytes`] and [`Client::add_key`].
    pub fn add_key_bytes(&mut self, blob: &[u8]) -> Result<usize> {
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
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<IssuanceRequest> {
        self.begin_issuance_impl(count, None, rng)
    }

    /// As [`Client::begin_issuance`], but each token's nonce is `SHA-512(salt ‖ msg)`
    /// (`TRUST_TOKEN_CLIENT_begin_issuance_over_message`); redeem with
    /// [`Issuer::redeem_over_message`].
    ///
    /// # Errors
    /// As [`Client::begin_issuance`].
    pub fn begin_issuance_over_message(
        &self,
        count: usize,
        msg: &[u8],
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<IssuanceRequest> {
        self.begin_issuance_impl(count, Some(msg), rng)
    }

    fn begin_issuance_impl(
        &self,
        count: usize,
        msg: Option<&[u8]>,
        rng: &mut (impl RngCore + CryptoRng),
    ) -> Result<IssuanceRequest> {
        let count = count.min(usize::from(self.max_batchsize));
        if count == 0 {
            return Err(Error::Batch);
        }
        let pretokens = if self.method.has_private_metadata() {
            pmb::blind(self.method, count, msg, rng)?
        } else {
            voprf::blind(self.method, count, msg, rng)?
        };
        if u16::try_from(count).is_err() {
            return Err(Error::Batch);
        }
        Ok(IssuanceRequest::from_state(IssuanceState {
            method: self.method,
            pretokens,
        }))
    }

    /// Verifies an issue response and unblinds its tokens (`TRUST_TOKEN_CLIENT_finish_issuance`).
    ///
    /// The response may carry fewer tokens than requested (never more); they match the first
    /// pretokens of `state`. Any failure rejects the whole batch and leaves `state` usable.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for a key id this client does not hold or a state of another
    /// method; [`Error::Batch`] for a count of zero or above the request's;
    /// [`Error::InvalidLength`] on truncation, a wrong proof length or trailing bytes; point
    /// and scalar decoding errors; [`Error::InvalidProof`] when the batched proof fails.
    pub fn finish_issuance(&self, state: &IssuanceState, response: &[u8]) -> Result<Vec<Token>> {
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
        let pretokens = &state.pretokens[..count];
        match key {
            (key, ClientTables::Pmb(tables)) => pmb::unblind(key, tables, pretokens, &mut r),
            (key, ClientTables::Voprf(table)) => voprf::unblind(key, table, pretokens, &mut r),
        }
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
        let tokens = self.finish_issuance(&state, response)?;
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
        Ok(out)
    }
}

/// Appends a point in the method's wire form (with the u16 prefix for `experiment_v1`).
fn put_point(out: &mut Vec<u8>, method: Method, p: &Affine<C>) {
    if method.is_legacy() {
        out.extend_from_slice(&(POINT_LEN as u16).to_be_bytes());
    }
    out.extend_from_slice(&encode_point(p));
}

/// Decodes one wire point of exactly [`Method::point_len`] bytes.
fn decode_wire_point(method: Method, bytes: &[u8]) -> Result<Affine<C>> {
    let mut r = wire::Reader::new(bytes);
    let p = r.wire_point(method)?;
    r.finish()?;
    Ok(p)
}

/// The 97-byte uncompressed encoding of a point.
fn encode_point(p: &Affine<C>) -> [u8; POINT_LEN] {
    use crate::group::Curve;
    let mut out = [0u8; POINT_LEN];
    out.copy_from_slice(C::encode_uncompressed(p).as_ref());
    out
}
