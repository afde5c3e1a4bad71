//! Strict decoders for tokens and issue responses, this crate's storage encodings of the
//! client's issuance state and of redemption results, and the serde glue of every Trust Token
//! type (feature `serde`). The wire formats BoringSSL reads are unchanged.

use zeroize::Zeroizing;

use crate::group::{self, Curve};
use crate::{Error, Result};

use super::wire::TokenReader as _;
use super::wire::{encode_point, put_point};
use super::{
    wire, IssuanceRequest, IssuanceState, IssueResponse, Method, Pretoken, Redemption, Token, C,
    NONCE_SIZE, POINT_LEN, SCALAR_LEN,
};

/// One method of each wire layout (VOPRF; PMB; PMB with u16-prefixed points): tokens and issue
/// responses do not name their method, but the three layouts never share a length.
const LAYOUTS: [Method; 3] = [Method::PstV1Voprf, Method::PstV1Pmb, Method::ExperimentV1];

/// Length of one pretoken in the storage encoding of [`IssuanceState`]: salt, blind, point.
const PRETOKEN_LEN: usize = NONCE_SIZE + SCALAR_LEN + POINT_LEN;

/// Length of a [`Redemption`] encoding without its client data: key id, bit, nonce.
const REDEMPTION_HEADER_LEN: usize = 4 + 1 + NONCE_SIZE;

impl Method {
    /// The start of a storage encoding: the method id ([`Method::id`]), with room for `len`
    /// more bytes (exactly: a buffer of secrets is never reallocated).
    pub(crate) fn storage_buffer(self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + len);
        out.push(self.id());
        out
    }

    /// Splits a storage encoding into its method (first byte, [`Method::id`]) and the rest.
    pub(crate) fn split_id(bytes: &[u8]) -> Result<(Method, &[u8])> {
        let (&id, rest) = bytes.split_first().ok_or(Error::InvalidLength)?;
        Ok((Method::from_id(id).ok_or(Error::UnsupportedValue)?, rest))
    }
}

impl Token {
    /// Strict decoding of token bytes (as [`Token::as_bytes`]; the serde form): exactly
    /// [`Method::token_len`] bytes of one of the three layouts (165: VOPRF, 359: PMB, 365:
    /// `experiment_v1`, whose points carry a u16 length of 97), every point uncompressed, on the
    /// curve and not the identity. A token does not name its method; the issuer checks the rest
    /// at redemption. Unlike the lax [`Token::from_bytes`], a token that this refuses can never
    /// redeem.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for any other length or a wrong point prefix;
    /// [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let layout = LAYOUTS
            .into_iter()
            .find(|m| m.token_len() == bytes.len())
            .ok_or(Error::InvalidLength)?;
        let mut r = wire::Reader::new(bytes);
        r.take(4 + NONCE_SIZE)?;
        for _ in 0..layout.num_points() {
            r.wire_point(layout)?;
        }
        r.finish()?;
        Ok(Self {
            bytes: bytes.to_vec(),
        })
    }
}

impl IssueResponse {
    /// Strict decoding of an issue response message (the serde form of an [`IssueResponse`]):
    /// `u16 issued ‖ u32 key_id ‖ issued × signed ‖ u16 len ‖ proof` with `issued >= 1`, in
    /// exactly one of the three layouts (VOPRF: `Z` and a 96-byte proof; PMB: `s ‖ W' ‖ Ws'`
    /// and a 432-byte proof; `experiment_v1`: the PMB layout with u16-prefixed points), every
    /// point on the curve and not the identity, every proof scalar canonical. The proof itself
    /// is checked by [`Client::finish_issuance`](super::Client::finish_issuance).
    ///
    /// # Errors
    /// [`Error::Batch`] for `issued == 0`; [`Error::InvalidLength`] when the length fits no
    /// layout or the proof length is wrong; [`Error::InvalidPoint`],
    /// [`Error::IdentityElement`] or [`Error::NonCanonicalScalar`].
    pub fn decode(message: &[u8]) -> Result<Self> {
        let mut r = wire::Reader::new(message);
        let issued = r.u16()?;
        r.u32()?;
        if issued == 0 {
            return Err(Error::Batch);
        }
        let n = usize::from(issued);
        let body = message.len().saturating_sub(6);
        let layout = LAYOUTS
            .into_iter()
            .find(|m| n * m.signed_len() + 2 + m.proof_len() == body)
            .ok_or(Error::InvalidLength)?;
        for _ in 0..n {
            if layout.has_private_metadata() {
                r.take(NONCE_SIZE)?;
                r.wire_point(layout)?;
            }
            r.wire_point(layout)?;
        }
        if usize::from(r.u16()?) != layout.proof_len() {
            return Err(Error::InvalidLength);
        }
        for _ in 0..layout.proof_len() / SCALAR_LEN {
            r.scalar()?;
        }
        r.finish()?;
        Ok(Self {
            issued,
            message: message.to_vec(),
        })
    }
}

impl IssuanceRequest {
    /// The request of a stored state: the issue request message `u16 count ‖ count × point` is
    /// a function of the state's blinded points, so it is rebuilt (e.g. to resend it).
    pub fn from_state(state: IssuanceState) -> Self {
        let method = state.method;
        let mut message = Vec::with_capacity(2 + state.count() * method.point_len());
        // A state holds at most 65535 pretokens (see `IssuanceState::to_secret_bytes`).
        message.extend_from_slice(&(state.count() as u16).to_be_bytes());
        for p in &state.pretokens {
            put_point(&mut message, method, &p.blinded);
        }
        Self { message, state }
    }
}

impl IssuanceState {
    /// The secret storage encoding, zeroized on drop (the only way to serialize a state; with
    /// serde, through the [`secret_issuance_state`](super::secret_issuance_state) field
    /// module). Keep it as secret as the tokens: whoever holds it can finish the issuance.
    ///
    ///
    /// `u8 method id ‖ u16 count ‖ count × (64-byte salt ‖ 48-byte blind ‖ 97-byte point)`,
    /// `3 + 209 · count` bytes with `1 <= count <= 65535`, where the method id is
    /// [`Method::id`], the salt is the token nonce, the blind the scalar that unblinds the
    /// response (VOPRF: `r^-1`; PMB: `r`) and the point the blinded point of the request
    /// (uncompressed, also for `experiment_v1`).
    pub fn to_secret_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(self.method.storage_buffer(2 + self.count() * PRETOKEN_LEN));
        // Every state holds 1 to 65535 pretokens: requests are capped at a u16 batch size and
        // `from_secret_bytes` reads a u16 count.
        out.extend_from_slice(&(self.count() as u16).to_be_bytes());
        for p in &self.pretokens {
            out.extend_from_slice(&p.salt);
            out.extend_from_slice(&Zeroizing::new(C::scalar_bytes(&p.unblind)));
            out.extend_from_slice(&encode_point(&p.blinded));
        }
        out
    }

    /// Strict decoding of the secret storage encoding ([`IssuanceState::to_secret_bytes`]): exact length,
    /// every blind canonical and non-zero, every point on the curve and not the identity. On
    /// an error the pretokens decoded so far are zeroized.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] for a wrong length; [`Error::UnsupportedValue`] for an unknown
    /// method id; [`Error::Batch`] for a count of zero; [`Error::NonCanonicalScalar`],
    /// [`Error::ZeroScalar`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_secret_bytes(bytes: &[u8]) -> Result<Self> {
        let (method, rest) = Method::split_id(bytes)?;
        let mut r = wire::Reader::new(rest);
        let count = usize::from(r.u16()?);
        if count == 0 {
            return Err(Error::Batch);
        }
        if rest.len() != 2 + count * PRETOKEN_LEN {
            return Err(Error::InvalidLength);
        }
        // Exact capacity: no reallocation leaves copies of the blinds behind.
        let mut pretokens = Vec::with_capacity(count);
        for _ in 0..count {
            let salt = r.array::<NONCE_SIZE>()?;
            let blind = r.take(SCALAR_LEN)?;
            let blinded = r.point()?;
            // Decoded last, straight into a pretoken (zeroized on drop).
            pretokens.push(Pretoken {
                salt,
                unblind: group::decode_nonzero_scalar::<C>(blind)?,
                blinded,
            });
        }
        r.finish()?;
        Ok(Self { method, pretokens })
    }
}

impl Redemption {
    /// The storage encoding (the serde form): `u32 key_id ‖ u8 private_metadata (0 or 1) ‖
    /// 64-byte nonce ‖ client_data`, the client data taking every remaining byte
    /// (`69 + client_data.len()` bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(REDEMPTION_HEADER_LEN + self.client_data.len());
        out.extend_from_slice(&self.key_id.to_be_bytes());
        out.push(u8::from(self.private_metadata));
        out.extend_from_slice(&self.nonce);
        out.extend_from_slice(&self.client_data);
        out
    }

    /// Strict decoding of the storage encoding ([`Redemption::to_bytes`]).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when shorter than 69 bytes; [`Error::UnsupportedValue`] for a
    /// private metadata byte other than 0 or 1.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = wire::Reader::new(bytes);
        let key_id = r.u32()?;
        let private_metadata = match r.array::<1>()? {
            [0] => false,
            [1] => true,
            _ => return Err(Error::UnsupportedValue),
        };
        let nonce = r.array::<NONCE_SIZE>()?;
        let client_data = bytes
            .get(REDEMPTION_HEADER_LEN..)
            .ok_or(Error::InvalidLength)?;
        Ok(Self {
            key_id,
            private_metadata,
            nonce,
            client_data: client_data.to_vec(),
        })
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::super::{
        IssuanceRequest, IssueResponse, Method, PrivateKey, PublicKey, Redemption, Token,
    };
    use crate::codec::{serde_via_bytes, serialize_bytes};

    serde_via_bytes!(
        PrivateKey,
        PrivateKey::to_storage_bytes,
        PrivateKey::from_storage_bytes
    );
    serde_via_bytes!(
        PublicKey,
        PublicKey::to_storage_bytes,
        PublicKey::from_storage_bytes
    );
    serde_via_bytes!(Token, Token::as_bytes, Token::decode);
    serde_via_bytes!(IssueResponse, response_message, IssueResponse::decode);
    serde_via_bytes!(Redemption);

    fn response_message(r: &IssueResponse) -> &[u8] {
        &r.message
    }

    /// A request serializes as its wire message only (what the issuer reads), never its secret
    /// state. There is no `Deserialize`: the issuer reads the message bytes.
    impl serde::Serialize for IssuanceRequest {
        fn serialize<S: serde::Serializer>(&self, ser: S) -> core::result::Result<S::Ok, S::Error> {
            serialize_bytes(&self.message, ser)
        }
    }

    /// Every method name, for serde's "unknown variant" message.
    const NAMES: [&str; 5] = [
        Method::ALL[0].name(),
        Method::ALL[1].name(),
        Method::ALL[2].name(),
        Method::ALL[3].name(),
        Method::ALL[4].name(),
    ];

    /// A method serializes as its BoringSSL name ([`Method::name`]) in every format.
    impl serde::Serialize for Method {
        fn serialize<S: serde::Serializer>(&self, ser: S) -> core::result::Result<S::Ok, S::Error> {
            ser.serialize_str(self.name())
        }
    }

    /// Accepts exactly the names of [`Method::name`].
    impl<'de> serde::Deserialize<'de> for Method {
        fn deserialize<D: serde::Deserializer<'de>>(de: D) -> core::result::Result<Self, D::Error> {
            let name = <String as serde::Deserialize>::deserialize(de)?;
            Method::from_name(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, &NAMES))
        }
    }
}

/// Serde for a secret [`IssuanceState`], to be named on purpose in a field attribute:
/// `#[serde(with = "privacy_tokens::trust_token::secret_issuance_state")]`. The form is
/// [`IssuanceState::to_secret_bytes`] (lowercase hex in human-readable formats, bytes
/// otherwise), decoded as strictly as [`IssuanceState::from_secret_bytes`]. The state has no
/// plain `Serialize`, so it cannot be serialized by accident with a request or a message.
#[cfg(feature = "serde")]
pub mod secret_issuance_state {
    use super::super::IssuanceState;
    use crate::codec;

    /// Serializes the secret storage encoding of `state` (wiped afterwards).
    ///
    /// # Errors
    /// Those of the serializer.
    pub fn serialize<S: serde::Serializer>(
        state: &IssuanceState,
        ser: S,
    ) -> core::result::Result<S::Ok, S::Error> {
        codec::serialize_bytes(&state.to_secret_bytes(), ser)
    }

    /// Deserializes a state from its secret storage encoding.
    ///
    /// # Errors
    /// Those of the deserializer, and those of [`IssuanceState::from_secret_bytes`] as custom
    /// errors.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        de: D,
    ) -> core::result::Result<IssuanceState, D::Error> {
        codec::deserialize_with(de, IssuanceState::from_secret_bytes)
    }
}
