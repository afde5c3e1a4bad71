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
//! the serde forms (feature `serde`: lowercase hex in human-readable formats, bytes otherwise;
//! the secret [`IssuanceState`] only through a field attribute naming [`secret_issuance_state`]):
//!
//! | type | storage encoding / serde form |
//! | --- | --- |
//! | [`Method`] | serde only: its [`Method::name`], e.g. `"pst_v1_pmb"` |
//! | [`PrivateKey`] | `u8 method id ‖ private key blob` ([`PrivateKey::to_storage_bytes`]) |
//! | [`PublicKey`] | `u8 method id ‖ public key blob` ([`PublicKey::to_storage_bytes`]) |
//! | [`Token`] | the token bytes above ([`Token::decode`]) |
//! | [`IssueResponse`] | its issue response message ([`IssueResponse::decode`]) |
//! | [`IssuanceState`] (secret) | `u8 method id ‖ u16 count ‖ count × (salt ‖ blind ‖ point)` ([`IssuanceState::to_secret_bytes`]; serde: [`secret_issuance_state`] only) |
//! | [`IssuanceRequest`] | serialize-only: its issue request message (the wire message, never the state) |
//! | [`Redemption`] | `u32 key_id ‖ u8 bit ‖ 64-byte nonce ‖ client_data` ([`Redemption::to_bytes`]) |
//!
//! The method id is [`Method::id`]. The BoringSSL blobs inside the key encodings are unchanged:
//! drop the first byte to hand them to BoringSSL.
//!
//! ```
//! use privacy_tokens::trust_token::{generate_key, Client, Issuer, Method};
//!
//! let mut rng = rand::rng();
//! let method = Method::PstV1Pmb;
//! let (private, public) = generate_key(method, 7, &mut rng);
//! let mut issuer = Issuer::new(method, 10);
//! issuer.add_key(private)?;
//! let mut client = Client::new(method, 10);
//! client.add_key(public)?;
//!
//! let request = client.begin_issuance(3, &mut rng)?;
//! let response = issuer.issue(&request.message, 7, true, 10, &mut rng)?;
//! let tokens = client.finish_issuance(request.state, &response.message)?;
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

mod client;
pub(crate) mod hash;
pub mod hazmat;
mod issuer;
mod keys;
mod params;
mod pmb;
#[cfg(feature = "srr")]
mod srr;
mod storage;
#[cfg(test)]
mod tests;
mod voprf;
mod wire;

pub use client::{Client, FinishIssuanceError, IssuanceRequest, IssuanceState, Token};
pub use issuer::{IssueResponse, Issuer, Redemption};
pub use keys::{derive_key_from_secret, generate_key, PrivateKey, PublicKey};
#[cfg(feature = "srr")]
pub use srr::{RedemptionRecord, SRR_KEY_LEN, SRR_SIGNATURE_LEN};
#[cfg(feature = "serde")]
pub use storage::secret_issuance_state;

pub(crate) use client::Pretoken;

type C = crate::group::NistP384;

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
