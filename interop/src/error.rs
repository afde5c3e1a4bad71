//! The error type: a failed library call, with the reason the library's error queue gave.

use core::fmt;

/// A `TRUST_TOKEN_*` (or `EC_*`) call of BoringSSL or AWS-LC returned failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The library that failed: `"BoringSSL"` or `"AWS-LC"`.
    pub library: &'static str,
    /// The function that failed, e.g. `"TRUST_TOKEN_CLIENT_finish_issuance"`.
    pub function: &'static str,
    /// The first entry of the library's thread-local error queue (`ERR_error_string_n`), or
    /// `"no error queued"` when the library failed without queueing a reason.
    pub reason: String,
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} failed: {}",
            self.library, self.function, self.reason
        )
    }
}

impl std::error::Error for Error {}
