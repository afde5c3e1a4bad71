//! Live interop peer for `privacy-tokens`' Trust Tokens: safe wrappers over BoringSSL's
//! `TRUST_TOKEN_*` API (through `boring-sys` 5.4.0).
//!
//! This crate is its own workspace and is never part of the default build (a cold BoringSSL
//! build takes minutes). Its tests run our issuer against BoringSSL's client and the reverse,
//! and its bench puts both implementations in one criterion run.
//!
//! All of the project's `unsafe` code lives here, in the `ffi` module's buffer helpers and in the
//! wrappers of [`client`], [`ed25519`], [`issuer`] and [`keys`]; every block carries a
//! `// SAFETY:` comment.
//!
//! The wrappers follow BoringSSL's own naming (`TRUST_TOKEN_CLIENT_begin_issuance` becomes
//! [`Client::begin_issuance`]) and return every output as an owned `Vec<u8>`, freeing
//! BoringSSL's buffers (`OPENSSL_free`) and token stacks (`TRUST_TOKEN_free` per element,
//! then `OPENSSL_sk_free`) before returning.

pub mod client;
pub mod ed25519;
pub mod error;
mod ffi;
pub mod issuer;
pub mod keys;
pub mod method;

pub use client::Client;
pub use ed25519::Ed25519Key;
pub use error::{Error, Result};
pub use issuer::{Issuer, Redemption};
pub use keys::{derive_key_from_secret, generate_key, KeyPair};
pub use method::Method;
