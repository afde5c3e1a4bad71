//! The error type: a failed BoringSSL call, with the reason BoringSSL's error queue gave.

use core::fmt;

/// A BoringSSL `TRUST_TOKEN_*` call returned failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The BoringSSL function that failed, e.g. `"TRUST_TOKEN_CLIENT_finish_issuance"`.
    pub function: &'static str,
    /// The first entry of BoringSSL's thread-local error queue (`ERR_error_string_n`), or
    /// `"no error queued"` when BoringSSL failed without queueing a reason.
    pub reason: String,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.function, self.reason)
    }
}

impl std::error::Error for Error {}
