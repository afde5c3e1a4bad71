//! Privacy Pass issuance protocol 1 and its ristretto255 sibling: privately verifiable tokens
//! built on a VOPRF in VOPRF mode (RFC 9497 §3.3.2), with the message layouts of RFC 9578 §5.
//!
//! - Token type `0x0001`, VOPRF(P-384, SHA-384) (RFC 9578 §5): [`Type1`], and the names at the
//!   top of this module ([`Client`], [`Issuer`], [`Token`], ...), which are the generic types at
//!   `Type1`.
//! - Token type `0x0005`, VOPRF(ristretto255, SHA-512) (draft-ietf-privacypass-batched-tokens):
//!   [`Type5`], and the same names in [`type5`].
//! - Any type: the generic types in [`generic`], over the sealed [`TokenType`] trait.
//! - Several types in one request: the generic token batch of
//!   [`privacy_pass::generic_batch`](crate::privacy_pass::generic_batch).
//!
//! Both types also have the amortized batched variant of draft-ietf-privacypass-batched-tokens
//! (one DLEQ proof for a whole batch of tokens under the same challenge and key).
//!
//! Roles (RFC 9576 §3):
//! - the **client** parses the origin's `TokenChallenge`, builds a [`TokenRequest`] with
//!   [`Client::request`](generic::Client::request), and turns the issuer's [`TokenResponse`]
//!   into a [`Token`] with [`ClientState::finalize`](generic::ClientState::finalize);
//! - the **issuer** answers requests with [`Issuer::issue`](generic::Issuer::issue);
//! - the **origin** verifies tokens. These tokens are *privately* verifiable: checking one needs
//!   the issuer's secret key, so origin-side verification is the issuer's
//!   [`Issuer::verify_token`](generic::Issuer::verify_token) (RFC 9578 §5.5), run by the issuer
//!   or by an origin that shares the issuer key. Double-spending checks (a nonce store) are the
//!   caller's job.
//!
//! ```
//! use privacy_tokens::voprf::privacy_pass::{Client, Issuer, TokenChallenge, TOKEN_TYPE};
//! use privacy_tokens::voprf::VoprfServer;
//!
//! let mut rng = rand::rng();
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

mod batch;
mod single;
mod token_type;

use crate::privacy_pass::{read_u16, sha256, split_array};
use crate::voprf::PublicKey;
use crate::{Error, Result, Suite};

pub use crate::privacy_pass::{TokenChallenge, NID, NONCE_LEN, TOKEN_INPUT_LEN};

pub use batch::MAX_BATCH;
pub use token_type::{Bytes, TokenType, Type1, Type5};

/// The protocol's types for any [`TokenType`]; the names at the top of
/// [`privacy_pass`](super::privacy_pass) are these at [`Type1`].
pub mod generic {
    pub use super::batch::{BatchClientState, BatchTokenRequest, BatchTokenResponse};
    pub use super::single::{Client, ClientState, Issuer, Token, TokenRequest, TokenResponse};
}

/// The constants and type aliases of one token type: its lengths, and the [`generic`] types at
/// it. Token type 1's sit at the top of this module, type 5's in [`type5`].
macro_rules! token_type_items {
    ($t:ident, $name:literal, $code:literal, $group:literal, $hash:literal) => {
        #[doc = concat!("The token type `", $code, "`, VOPRF(", $group, ", ", $hash, ").")]
        pub const TOKEN_TYPE: u16 = $t::TOKEN_TYPE;
        #[doc = concat!("`Ne`: the length of a serialized ", $group, " element.")]
        pub const NE: usize = $t::NE;
        #[doc = concat!("`Ns`: the length of a serialized ", $group, " scalar.")]
        pub const NS: usize = $t::NS;
        #[doc = concat!("`Nk`: the length of the token authenticator, the ", $hash, " VOPRF output.")]
        pub const NK: usize = $t::NK;
        #[doc = concat!("The length of an encoded ", $name, " [`TokenRequest`].")]
        pub const TOKEN_REQUEST_LEN: usize = $t::TOKEN_REQUEST_LEN;
        #[doc = concat!("The length of an encoded ", $name, " [`TokenResponse`].")]
        pub const TOKEN_RESPONSE_LEN: usize = $t::TOKEN_RESPONSE_LEN;
        #[doc = concat!("The length of an encoded ", $name, " [`Token`].")]
        pub const TOKEN_LEN: usize = $t::TOKEN_LEN;

        #[doc = concat!("The client role for token type `", $code, "`.")]
        pub type Client = generic::Client<$t>;
        #[doc = concat!("A ", $name, " client's state between request and finalization.")]
        pub type ClientState = generic::ClientState<$t>;
        #[doc = concat!("The issuer (and token verifier) for token type `", $code, "`.")]
        pub type Issuer = generic::Issuer<$t>;
        #[doc = concat!("A ", $name, " token request ([`TOKEN_REQUEST_LEN`] bytes).")]
        pub type TokenRequest = generic::TokenRequest<$t>;
        #[doc = concat!("A ", $name, " token response ([`TOKEN_RESPONSE_LEN`] bytes).")]
        pub type TokenResponse = generic::TokenResponse<$t>;
        #[doc = concat!("A ", $name, " token ([`TOKEN_LEN`] bytes).")]
        pub type Token = generic::Token<$t>;
        #[doc = concat!("A ", $name, " amortized batched token request.")]
        pub type BatchTokenRequest = generic::BatchTokenRequest<$t>;
        #[doc = concat!("A ", $name, " amortized batched token response.")]
        pub type BatchTokenResponse = generic::BatchTokenResponse<$t>;
        #[doc = concat!("A ", $name, " client's state between a batched request and its finalization.")]
        pub type BatchClientState = generic::BatchClientState<$t>;
    };
}

/// Token type `0x0005`, VOPRF(ristretto255, SHA-512) (draft-ietf-privacypass-batched-tokens):
/// the [`generic`] types at [`Type5`], and its lengths.
///
/// ```
/// use privacy_tokens::voprf::privacy_pass::type5::{Client, Issuer, TOKEN_TYPE};
/// use privacy_tokens::voprf::privacy_pass::TokenChallenge;
/// use privacy_tokens::voprf::VoprfServer;
///
/// let mut rng = rand::rng();
/// let issuer = Issuer::new(VoprfServer::new(&mut rng));
/// let challenge =
///     TokenChallenge::new(TOKEN_TYPE, b"issuer.example".to_vec(), vec![], b"origin.example".to_vec())?
///         .to_bytes();
/// let (request, state) = Client::request_batch(issuer.public_key(), &challenge, 3, &mut rng)?;
/// let response = issuer.issue_batch(&mut rng, &request)?;
/// for token in state.finalize_batch(&response)? {
///     assert_eq!(token.to_bytes().len(), 162);
///     assert!(issuer.verify_token(&token)?);
/// }
/// # Ok::<(), privacy_tokens::Error>(())
/// ```
pub mod type5 {
    use super::{generic, TokenType, Type5};

    token_type_items!(Type5, "type-5", "0x0005", "ristretto255", "SHA-512");
}

// ---------------------------------------------------------------------------------------------
// Token type 0x0001

// RFC 9578 §5: token type 1 (the constants, §8.2.1; the messages, §5.1-§5.3).
token_type_items!(Type1, "type-1", "0x0001", "P-384", "SHA-384");

/// **Dangerous**: [`Client::request`](generic::Client::request) for token type `0x0001` with a
/// caller-chosen `nonce` and VOPRF `blind` (`Ns` big-endian bytes), for reproducing the RFC 9578
/// Appendix A.1 vectors; [`generic::Client::request_with`] for any type.
///
/// Both values must be fresh and uniformly random in real use: a reused or predictable blind
/// links the request to the redeemed token, and a reused nonce lets the origin reject the token as
/// a replay. Use [`Client::request`](generic::Client::request) in applications.
///
/// # Errors
/// As [`generic::Client::request_with`].
pub fn request_with(
    public_key: &PublicKey<crate::P384Sha384>,
    challenge: &[u8],
    nonce: &[u8; NONCE_LEN],
    blind: &[u8],
) -> Result<(TokenRequest, ClientState)> {
    Client::request_with(public_key, challenge, nonce, blind)
}

// ---------------------------------------------------------------------------------------------
// Batched (amortized) issuance

/// The batch cap of a new [`Issuer`]: 256 tokens per batched request.
///
/// Each token costs the issuer one point decompression (a square root) and one constant-time
/// P-384 multiplication, plus its share of the batch proof: 0.3 to 0.45 ms of CPU (README
/// benchmarks: 280 µs per element in `blind_evaluate_batch` at batch 100; 430 µs of thread CPU
/// time per token for `issue_batch_from_bytes` at 256 and at 1000 tokens, measured on a loaded
/// 2-core VM). 256 tokens thus keep one request near 0.1 CPU-second, well under a second, where
/// the protocol's own limit of 65535 costs 20 to 30 CPU-seconds (review finding 2). 256 is far
/// above the batch sizes of the published vectors (3 tokens). Raise it with
/// [`Issuer::with_max_batch`](generic::Issuer::with_max_batch) where requests are authenticated
/// or rate-limited before they reach the issuer.
pub const DEFAULT_MAX_BATCH: u16 = 256;

// ---------------------------------------------------------------------------------------------
// Shared steps

/// `token_key_id = SHA-256(SerializeElement(pkI))` (RFC 9578 §5, §6.5), the same rule for
/// every token type.
pub fn token_key_id<S: Suite>(public_key: &PublicKey<S>) -> [u8; NID] {
    sha256(public_key.to_bytes().as_ref())
}

/// `token_input = token_type || nonce || challenge_digest || token_key_id` (RFC 9578 §5.1).
fn token_input<T: TokenType>(
    nonce: &[u8; NONCE_LEN],
    challenge_digest: &[u8; 32],
    key_id: &[u8; NID],
) -> [u8; TOKEN_INPUT_LEN] {
    // Its own body (not a call to `token_input_of`): the token's serialization inlines this, and
    // the call left a copy of the authenticator in a dead frame (tests/stack_wipe.rs).
    let mut out = [0u8; TOKEN_INPUT_LEN];
    out[..2].copy_from_slice(&T::TOKEN_TYPE.to_be_bytes());
    out[2..34].copy_from_slice(nonce);
    out[34..66].copy_from_slice(challenge_digest);
    out[66..].copy_from_slice(key_id);
    out
}

/// Checks the leading `token_type` of a message.
fn check_token_type<T: TokenType>(bytes: &[u8]) -> Result<&[u8]> {
    let (t, rest) = read_u16(bytes)?;
    if t != T::TOKEN_TYPE {
        return Err(Error::UnsupportedValue);
    }
    Ok(rest)
}

/// Parses a serialized challenge and checks that it asks for token type `T`.
fn parse_challenge<T: TokenType>(challenge: &[u8]) -> Result<[u8; 32]> {
    let parsed = TokenChallenge::from_bytes(challenge)?;
    if parsed.token_type() != T::TOKEN_TYPE {
        return Err(Error::UnsupportedValue);
    }
    // The digest is over the bytes as received; strict parsing makes them canonical.
    Ok(sha256(challenge))
}

// ---------------------------------------------------------------------------------------------
// serde

/// `Serialize`/`Deserialize` through `to_bytes`/`from_bytes` for the generic wire types (hex in
/// human-readable formats); token bytes are wiped after serializing, as a bearer secret.
#[cfg(feature = "serde")]
mod serde_impls {
    use super::generic::{
        BatchTokenRequest, BatchTokenResponse, Token, TokenRequest, TokenResponse,
    };
    use super::TokenType;
    use crate::codec::{deserialize_with, serialize_bytes};

    fn wipe(bytes: &mut [u8]) {
        zeroize::Zeroize::zeroize(bytes);
    }

    macro_rules! serde_generic {
        ($($t:ident),*) => {$(
            impl<T: TokenType> serde::Serialize for $t<T> {
                fn serialize<Ser: serde::Serializer>(
                    &self,
                    ser: Ser,
                ) -> core::result::Result<Ser::Ok, Ser::Error> {
                    let mut bytes = self.to_bytes();
                    let r = serialize_bytes(bytes.as_ref(), ser);
                    wipe(bytes.as_mut());
                    r
                }
            }

            impl<'de, T: TokenType> serde::Deserialize<'de> for $t<T> {
                fn deserialize<D: serde::Deserializer<'de>>(
                    de: D,
                ) -> core::result::Result<Self, D::Error> {
                    deserialize_with(de, |b| Self::from_bytes(b))
                }
            }
        )*};
    }

    serde_generic!(
        TokenRequest,
        TokenResponse,
        Token,
        BatchTokenRequest,
        BatchTokenResponse
    );
}
