//! Live interop peers for `privacy-tokens`' Trust Tokens: safe wrappers over the `TRUST_TOKEN_*`
//! API of BoringSSL (through `boring-sys` 5.4.0, [`boringssl`]) and of AWS-LC (through
//! `aws-lc-sys` 0.47.0, [`awslc`]), which link side by side (AWS-LC's symbols are prefixed).
//!
//! This crate is its own workspace and is never part of the default build (a cold build of the
//! two libraries takes minutes). Its tests run every pairing of our client and issuer with
//! BoringSSL's and AWS-LC's, and its benches put the three implementations in one criterion run.
//!
//! All of the project's `unsafe` code lives here: in the wrappers under `src/peer/`, in
//! [`boringssl::ed25519`], in [`awslc::curve`] and in [`awslc::rsa`]; every block carries a `// SAFETY:` comment.
//! The files under `src/peer/` are compiled once per library (`#[path]` modules of
//! [`boringssl`] and [`awslc`], each with its own `sys` crate), since the two APIs are the same
//! functions with the same signatures.
//!
//! The wrappers follow the libraries' naming (`TRUST_TOKEN_CLIENT_begin_issuance` becomes
//! `Client::begin_issuance`) and return every output as an owned `Vec<u8>`, freeing the
//! library's buffers with its own `OPENSSL_free` and its token stacks with its own
//! `TRUST_TOKEN_free` per element, then `OPENSSL_sk_free`, before returning.
//!
//! BoringSSL's wrappers are also re-exported at the crate root ([`Client`], [`Issuer`], ...).

pub mod awslc;
pub mod boringssl;
pub mod error;
pub mod key_pair;
pub mod method;
pub mod redemption;

pub use boringssl::{derive_key_from_secret, generate_key, Client, Ed25519Key, Issuer};
pub use error::{Error, Result};
pub use key_pair::KeyPair;
pub use method::Method;
pub use redemption::Redemption;
