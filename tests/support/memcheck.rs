//! Valgrind memcheck client requests for `tests/ct_valgrind.rs`: the library's (feature
//! `ct-validation`, `privacy_tokens::group::validation`, the one implementation of the magic
//! sequence), or no-ops without the feature: the test then is an ordinary run of the same flows,
//! and reports that the requests are off.

#[cfg(feature = "ct-validation")]
pub use privacy_tokens::group::validation::{
    error_count, mark_public as public, mark_secret as secret, running_on_valgrind,
};

/// Whether the client requests are compiled in (feature `ct-validation`).
pub const ENABLED: bool = cfg!(feature = "ct-validation");

#[cfg(not(feature = "ct-validation"))]
mod off {
    pub fn running_on_valgrind() -> bool {
        false
    }
    pub fn error_count() -> u64 {
        0
    }
    pub fn secret<T: ?Sized>(_: &T) {}
    pub fn public<T: ?Sized>(_: &T) {}
}
#[cfg(not(feature = "ct-validation"))]
pub use off::{error_count, public, running_on_valgrind, secret};
