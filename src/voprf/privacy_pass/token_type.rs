//! The token types of the privately verifiable (VOPRF) issuance protocol: a sealed trait that
//! carries each type's suite, `token_type` value and lengths, and one marker per type.

use core::fmt;
use core::hash::Hash;

use crate::{P384Sha384, Ristretto255Sha512, Suite};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Type1 {}
    impl Sealed for super::Type5 {}
    impl<const N: usize> Sealed for [u8; N] {}
}

/// A fixed-size byte array whose length depends on the token type (an encoded message or an
/// authenticator). Sealed: implemented by `[u8; N]` only, so every value is an array and indexes,
/// slices and compares like one.
pub trait Bytes:
    sealed::Sealed
    + Copy
    + AsRef<[u8]>
    + AsMut<[u8]>
    + fmt::Debug
    + PartialEq
    + Eq
    + Send
    + Sync
    + 'static
{
    /// The array's length.
    const LEN: usize;
    /// The all-zero array.
    fn zeroed() -> Self;
}

impl<const N: usize> Bytes for [u8; N] {
    const LEN: usize = N;
    fn zeroed() -> Self {
        [0u8; N]
    }
}

/// A Privacy Pass token type of the privately verifiable issuance protocol: VOPRF mode of an
/// RFC 9497 suite, with the message layouts of RFC 9578 §5 and the amortized batch of
/// draft-ietf-privacypass-batched-tokens.
///
/// Sealed: implemented by [`Type1`] (`0x0001`, VOPRF(P-384, SHA-384), RFC 9578) and [`Type5`]
/// (`0x0005`, VOPRF(ristretto255, SHA-512), draft-ietf-privacypass-batched-tokens). The derived lengths (`TOKEN_REQUEST_LEN`, ...) are
/// fixed by the sealed definitions; the array types below have exactly those lengths.
pub trait TokenType:
    sealed::Sealed + Copy + Clone + fmt::Debug + Default + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// The VOPRF ciphersuite (RFC 9497 §4).
    type Suite: Suite;
    /// `uint8 authenticator[Nk]` of a [`Token`](super::generic::Token).
    type Authenticator: Bytes;
    /// An encoded [`TokenRequest`](super::generic::TokenRequest), `TOKEN_REQUEST_LEN` bytes.
    type RequestBytes: Bytes;
    /// An encoded [`TokenResponse`](super::generic::TokenResponse), `TOKEN_RESPONSE_LEN` bytes.
    type ResponseBytes: Bytes;
    /// An encoded [`Token`](super::generic::Token), `TOKEN_LEN` bytes.
    type TokenBytes: Bytes;

    /// The `token_type` value (RFC 9578 §8.2.1 for `0x0001`; draft-ietf-privacypass-batched-tokens for `0x0005`).
    const TOKEN_TYPE: u16;
    /// `Ne`: the length of a serialized element.
    const NE: usize;
    /// `Ns`: the length of a serialized scalar.
    const NS: usize;
    /// `Nk`: the length of the authenticator, the VOPRF output (`Nh` of the suite).
    const NK: usize;
    /// The length of an encoded token request: `token_type || truncated_token_key_id ||
    /// blinded_msg`.
    const TOKEN_REQUEST_LEN: usize = 2 + 1 + Self::NE;
    /// The length of an encoded token response: `evaluate_msg || evaluate_proof`.
    const TOKEN_RESPONSE_LEN: usize = Self::NE + 2 * Self::NS;
    /// The length of an encoded token:
    /// `token_type || nonce || challenge_digest || token_key_id || authenticator`.
    const TOKEN_LEN: usize = super::TOKEN_INPUT_LEN + Self::NK;
}

/// Every array has the length its constant names, and `Ne`, `Ns`, `Nk` are the suite's.
macro_rules! check_lengths {
    ($t:ty) => {
        const _: () = {
            assert!(<<$t as TokenType>::Authenticator as Bytes>::LEN == <$t as TokenType>::NK);
            assert!(
                <<$t as TokenType>::RequestBytes as Bytes>::LEN
                    == <$t as TokenType>::TOKEN_REQUEST_LEN
            );
            assert!(
                <<$t as TokenType>::ResponseBytes as Bytes>::LEN
                    == <$t as TokenType>::TOKEN_RESPONSE_LEN
            );
            assert!(<<$t as TokenType>::TokenBytes as Bytes>::LEN == <$t as TokenType>::TOKEN_LEN);
            assert!(
                crate::hazmat::element_len::<<$t as TokenType>::Suite>() == <$t as TokenType>::NE
            );
            assert!(<<$t as TokenType>::Suite as Suite>::NH == <$t as TokenType>::NK);
        };
    };
}

/// A token type's unit struct and its `TokenType`, from its code, suite, `Ne`, `Ns`, `Nk` and
/// the published lengths of its request, response and token; `check_lengths!` asserts those
/// lengths against the trait's formulas and the suite at compile time.
macro_rules! token_type {
    (
        $(#[$meta:meta])*
        pub struct $t:ident {
            suite: $suite:ty, code: $code:literal,
            ne: $ne:literal, ns: $ns:literal, nk: $nk:literal,
            request: $req:literal, response: $resp:literal, token: $tok:literal $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $t;

        impl TokenType for $t {
            type Suite = $suite;
            type Authenticator = [u8; $nk];
            type RequestBytes = [u8; $req];
            type ResponseBytes = [u8; $resp];
            type TokenBytes = [u8; $tok];
            const TOKEN_TYPE: u16 = $code;
            const NE: usize = $ne;
            const NS: usize = $ns;
            const NK: usize = $nk;
        }

        check_lengths!($t);
    };
}

token_type! {
    /// Token type `0x0001`: VOPRF(P-384, SHA-384) (RFC 9578 §5, §8.2.1). `Ne = 49`, `Ns = 48`,
    /// `Nk = 48`.
    pub struct Type1 {
        suite: P384Sha384, code: 0x0001,
        ne: 49, ns: 48, nk: 48,
        request: 52, response: 145, token: 146,
    }
}

token_type! {
    /// Token type `0x0005`: VOPRF(ristretto255, SHA-512) (draft-ietf-privacypass-batched-tokens,
    /// the issuance protocol of RFC 9578 §5 over the ristretto255 suite of RFC 9497 §4.1).
    /// `Ne = 32`, `Ns = 32` (little-endian scalars), `Nk = 64`; `token_key_id` is SHA-256 of the
    /// 32-byte serialized key, as for type `0x0001`.
    pub struct Type5 {
        suite: Ristretto255Sha512, code: 0x0005,
        ne: 32, ns: 32, nk: 64,
        request: 35, response: 96, token: 162,
    }
}
