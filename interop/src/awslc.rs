//! AWS-LC (`aws-lc-sys` 0.47.0): the wrappers of `src/peer/` over its `TRUST_TOKEN_*`
//! functions, its elliptic-curve layer ([`curve`], `EC_POINT_mul`) and its RSA private
//! operation ([`rsa`], `RSA_sign_raw` without padding) for the benches.
//!
//! AWS-LC's symbols carry the prefix `aws_lc_0_47_0_`, so it links beside BoringSSL in one
//! binary. Its Trust Token code is BoringSSL's, forked before BoringSSL's C++ conversion; its
//! API has every function the wrappers use except `TRUST_TOKEN_CLIENT_dup_for_testing`.

use aws_lc_sys as sys;

/// The library name [`crate::Error`]s of this module carry.
const LIBRARY: &str = "AWS-LC";

// The wrapper bodies of `src/peer/`, shared with `crate::boringssl` (see there).
#[allow(clippy::duplicate_mod)]
#[path = "peer/client.rs"]
pub mod client;
pub mod curve;
#[allow(clippy::duplicate_mod)]
#[path = "peer/ffi.rs"]
mod ffi;
#[allow(clippy::duplicate_mod)]
#[path = "peer/issuer.rs"]
pub mod issuer;
#[allow(clippy::duplicate_mod)]
#[path = "peer/keys.rs"]
pub mod keys;
pub mod rsa;

pub use client::Client;
pub use issuer::Issuer;
pub use keys::{derive_key_from_secret, generate_key};
