//! The crate's single error type.

use core::fmt;

/// The error type, its `Display` text and [`Error::ALL`] from one list: each variant with its
/// documentation and message, so that no second list of the variants can fall behind it.
macro_rules! errors {
    ($($(#[$doc:meta])* $v:ident => $msg:literal,)*) => {
        /// Errors returned by every fallible operation of this crate.
        ///
        /// Decoders say exactly what was wrong with their input; proof verifiers only ever say
        /// [`Error::InvalidProof`], whichever internal check failed, and signature verifiers
        /// [`Error::InvalidSignature`].
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Error {
            $($(#[$doc])* $v,)*
        }

        impl fmt::Display for Error {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self {
                    $(Error::$v => $msg,)*
                })
            }
        }

        impl Error {
            /// Every variant, in declaration order: for bindings that map each one to a code
            /// of their own and test that none is missing. Not a stable part of the API (the
            /// enum is `#[non_exhaustive]`: later versions add variants).
            #[doc(hidden)]
            pub const ALL: &'static [Error] = &[$(Error::$v),*];
        }
    };
}

errors! {
    /// An encoding had the wrong length (too short, too long, or trailing bytes).
    InvalidLength => "encoding has the wrong length",
    /// A point encoding was malformed: wrong tag, non-canonical coordinate, or not on the curve.
    InvalidPoint => "invalid point encoding",
    /// A point decoded to the identity element, which no protocol message may carry.
    IdentityElement => "point is the identity element",
    /// A scalar encoding was not the canonical big-endian encoding of a value below the group order.
    NonCanonicalScalar => "scalar is not canonical",
    /// A scalar that must be non-zero was zero.
    ZeroScalar => "scalar is zero",
    /// A proof failed to verify (RFC 9497 `VerifyError`).
    InvalidProof => "proof verification failed",
    /// The protocol input hashed to the identity, or a POPRF tweaked key was the identity
    /// (RFC 9497 `InvalidInputError`).
    InvalidInput => "input maps to the identity element",
    /// POPRF: `skS + m == 0`; the key must be rotated (RFC 9497 `InverseError`).
    Inverse => "tweaked key is not invertible",
    /// `DeriveKeyPair` found no non-zero scalar in 256 tries (RFC 9497 `DeriveKeyPairError`).
    DeriveKeyPair => "key derivation failed",
    /// A batch was empty, larger than 65535 elements, or its parts had different lengths.
    Batch => "invalid batch size",
    /// An input or info string was 2^16 bytes or longer.
    InputTooLong => "input longer than 65535 bytes",
    /// A message carried a token type or key identifier this party does not handle.
    UnsupportedValue => "unsupported token type or key id",
    /// Expanding a message for hash-to-curve or hash-to-scalar failed (DST or output too long).
    HashToCurve => "message expansion failed",
    /// ARC: a presentation limit below 2, or every nonce below the limit is already used.
    LimitExceeded => "presentation limit invalid or exhausted",
    /// A signature failed to verify (Trust Tokens `experiment_v1`: the Ed25519 signature of the
    /// redemption record; BoringSSL `SRR_SIGNATURE_ERROR`).
    InvalidSignature => "signature verification failed",
    /// The operation needs a key that was never configured (Trust Tokens `experiment_v1`: no
    /// SRR key was set; BoringSSL `NO_SRR_KEY_CONFIGURED`).
    MissingKey => "no key configured for this operation",
    /// POPRF: `finalize` was given another `info` than the one the input was blinded with; the
    /// output would match no server evaluation.
    InfoMismatch => "info differs from the one used to blind",
    /// A sigma-protocols instance failed validation (draft-irtf-cfrg-sigma-protocols-03
    /// §"Instance validation": an unused element or scalar, an identity element or image, an
    /// all-identity column, or a malformed instance encoding).
    InvalidInstance => "sigma-protocols instance failed validation",
    /// A text encoding was malformed: base64url that is not canonical, or an HTTP
    /// `Authorization` / `WWW-Authenticate` value that does not parse ([`crate::http`]).
    InvalidEncoding => "malformed base64url or HTTP header value",
    /// An RSA key was malformed or unsupported: a modulus outside 2048-4096 bits or even, an
    /// exponent even, below 3 or not below the modulus, a private key whose parts disagree, or
    /// a key encoding that is not the one expected ([`crate::blind_rsa`]).
    InvalidKey => "RSA key is malformed or unsupported",
    /// An integer was not below the RSA modulus (RFC 9474 `BlindSign`: "message representative
    /// out of range"; refused, never reduced). Also ACT's `AmountError`: an amount, balance or
    /// sum not below `2^L` (`act`), kept in this variant so that `Error::ALL` and the error
    /// codes of the bindings stay as they are.
    OutOfRange => "integer is not below the RSA modulus",
    /// The RSA private operation failed its own check against the public one (RFC 9474
    /// "signing failure", a fault): nothing was returned.
    SigningFailure => "RSA signature failed its own check",
    /// RFC 9474 `Blind`: the encoded message or the blind shares a factor with the modulus
    /// ("invalid input", "blinding error"), which only a malformed key allows.
    Blinding => "message or blind shares a factor with the RSA modulus",
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = core::result::Result<T, E>;
