#![doc = include_str!("../README.md")]
// `unsafe` is denied everywhere but in `group::adx`, the x86-64 assembly backend.
#![deny(unsafe_code)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]
#![warn(missing_docs)]
// generic-array 0.14.9 deprecates itself in favour of 1.x, which the 0.13 curve crates do not use.
#![allow(deprecated)]

pub mod arc;
#[cfg(feature = "serde")]
mod codec;
pub mod dleq;
mod dleqor;
mod error;
pub mod group;
pub mod hazmat;
mod par;
mod stack;
pub mod suite;
pub mod transcript;
pub mod trust_token;
pub mod voprf;
mod wire;

pub use error::{Error, Result};
pub use par::PAR_MIN_BATCH;
pub use suite::{Decaf448Shake256, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite};
