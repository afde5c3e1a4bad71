//! BoringSSL (`boring-sys` 5.4.0): the wrappers of `src/peer/` over its `TRUST_TOKEN_*`
//! functions, plus what only BoringSSL has here: `TRUST_TOKEN_CLIENT_dup_for_testing` and
//! Ed25519 signing (for experiment v1's signed redemption records).

use crate::Result;
use boring_sys as sys;

/// The library name [`crate::Error`]s of this module carry.
const LIBRARY: &str = "BoringSSL";

// The wrapper bodies of `src/peer/` are shared with `crate::awslc`: the same files, compiled
// once against each FFI crate (`super::sys`), since the two libraries' Trust Token APIs are the
// same functions with the same signatures. (Plain `#[path]` modules rather than a macro, so that
// rustfmt and error messages see the files.)
#[allow(clippy::duplicate_mod)]
#[path = "peer/client.rs"]
pub mod client;
pub mod ed25519;
#[allow(clippy::duplicate_mod)]
#[path = "peer/ffi.rs"]
mod ffi;
#[allow(clippy::duplicate_mod)]
#[path = "peer/issuer.rs"]
pub mod issuer;
#[allow(clippy::duplicate_mod)]
#[path = "peer/keys.rs"]
pub mod keys;

pub use client::Client;
pub use ed25519::Ed25519Key;
pub use issuer::Issuer;
pub use keys::{derive_key_from_secret, generate_key};

impl Client {
    /// `TRUST_TOKEN_CLIENT_dup_for_testing`: a copy including the pending pretokens (BoringSSL
    /// only: AWS-LC's API lacks it).
    ///
    /// Only for tests and benches: two copies finishing the same issuance make linkable tokens.
    ///
    /// # Errors
    /// If allocation fails.
    pub fn dup_for_testing(&self) -> Result<Self> {
        ffi::clear_errors();
        // SAFETY: `self.ptr` is a live client; the copy is a new owned client or null.
        let ptr = unsafe { sys::TRUST_TOKEN_CLIENT_dup_for_testing(self.ptr.as_ptr()) };
        let ptr = core::ptr::NonNull::new(ptr)
            .ok_or_else(|| ffi::error("TRUST_TOKEN_CLIENT_dup_for_testing"))?;
        Ok(Self {
            ptr,
            method: self.method,
        })
    }
}
