//! The crate's single error type.

use core::fmt;

/// Errors returned by every fallible operation of this crate.
///
/// Decoders say exactly what was wrong with their input; proof verifiers only ever say
/// [`Error::InvalidProof`], whichever internal check failed, and signature verifiers
/// [`Error::InvalidSignature`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    /// An encoding had the wrong length (too short, too long, or trailing bytes).
    InvalidLength,
    /// A point encoding was malformed: wrong tag, non-canonical coordinate, or not on the curve.
    InvalidPoint,
    /// A point decoded to the identity element, which no protocol message may carry.
    IdentityElement,
    /// A scalar encoding was not the canonical big-endian encoding of a value below the group order.
    NonCanonicalScalar,
    /// A scalar that must be non-zero was zero.
    ZeroScalar,
    /// A proof failed to verify (RFC 9497 `VerifyError`).
    InvalidProof,
    /// The protocol input hashed to the identity, or a POPRF tweaked key was the identity
    /// (RFC 9497 `InvalidInputError`).
    InvalidInput,
    /// POPRF: `skS + m == 0`; the key must be rotated (RFC 9497 `InverseError`).
    Inverse,
    /// `DeriveKeyPair` found no non-zero scalar in 256 tries (RFC 9497 `DeriveKeyPairError`).
    DeriveKeyPair,
    /// A batch was empty, larger than 65535 elements, or its parts had different lengths.
    Batch,
    /// An input or info string was 2^16 bytes or longer.
    InputTooLong,
    /// A message carried a token type or key identifier this party does not handle.
    UnsupportedValue,
    /// Expanding a message for hash-to-curve or hash-to-scalar failed (DST or output too long).
    HashToCurve,
    /// ARC: a presentation limit below 2, or every nonce below the limit is already used.
    LimitExceeded,
    /// A signature failed to verify (Trust Tokens `experiment_v1`: the Ed25519 signature of the
    /// redemption record; BoringSSL `SRR_SIGNATURE_ERROR`).
    InvalidSignature,
    /// The operation needs a key that was never configured (Trust Tokens `experiment_v1`: no
    /// SRR key was set; BoringSSL `NO_SRR_KEY_CONFIGURED`).
    MissingKey,
    /// POPRF: `finalize` was given another `info` than the one the input was blinded with; the
    /// output would match no server evaluation.
    InfoMismatch,
    /// A sigma-protocols instance failed validation (draft-irtf-cfrg-sigma-protocols-03
    /// §"Instance validation": an unused element or scalar, an identity element or image, an
    /// all-identity column, or a malformed instance encoding).
    InvalidInstance,
    /// A text encoding was malformed: base64url that is not canonical, or an HTTP
    /// `Authorization` / `WWW-Authenticate` value that does not parse ([`crate::http`]).
    InvalidEncoding,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::InvalidLength => "encoding has the wrong length",
            Error::InvalidPoint => "invalid point encoding",
            Error::IdentityElement => "point is the identity element",
            Error::NonCanonicalScalar => "scalar is not canonical",
            Error::ZeroScalar => "scalar is zero",
            Error::InvalidProof => "proof verification failed",
            Error::InvalidInput => "input maps to the identity element",
            Error::Inverse => "tweaked key is not invertible",
            Error::DeriveKeyPair => "key derivation failed",
            Error::Batch => "invalid batch size",
            Error::InputTooLong => "input longer than 65535 bytes",
            Error::UnsupportedValue => "unsupported token type or key id",
            Error::HashToCurve => "message expansion failed",
            Error::LimitExceeded => "presentation limit invalid or exhausted",
            Error::InvalidSignature => "signature verification failed",
            Error::MissingKey => "no key configured for this operation",
            Error::InfoMismatch => "info differs from the one used to blind",
            Error::InvalidInstance => "sigma-protocols instance failed validation",
            Error::InvalidEncoding => "malformed base64url or HTTP header value",
        })
    }
}

/// `Error::ALL` and an exhaustive match from one list of the variants: a variant missing from
/// the list is a non-exhaustive match, so `ALL` cannot fall behind the enum.
macro_rules! every_variant {
    ($($v:ident),* $(,)?) => {
        impl Error {
            /// Every variant, in declaration order: for bindings that map each one to a code
            /// of their own and test that none is missing. Not a stable part of the API (the
            /// enum is `#[non_exhaustive]`: later versions add variants).
            #[doc(hidden)]
            pub const ALL: &'static [Error] = &[$(Error::$v),*];
        }

        // Never called: it compiles only while the list names every variant.
        #[allow(dead_code)]
        fn every_variant_is_listed(e: Error) {
            match e {
                $(Error::$v)|* => {}
            }
        }
    };
}

every_variant!(
    InvalidLength,
    InvalidPoint,
    IdentityElement,
    NonCanonicalScalar,
    ZeroScalar,
    InvalidProof,
    InvalidInput,
    Inverse,
    DeriveKeyPair,
    Batch,
    InputTooLong,
    UnsupportedValue,
    HashToCurve,
    LimitExceeded,
    InvalidSignature,
    MissingKey,
    InfoMismatch,
    InvalidInstance,
    InvalidEncoding,
);

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = core::result::Result<T, E>;
