#![doc = include_str!("../README.md")]
// `unsafe` is denied everywhere but in `group::adx`, the x86-64 assembly backend.
#![deny(unsafe_code)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]
#![warn(missing_docs)]

pub mod arc;
#[cfg(feature = "serde")]
mod codec;
pub mod dleq;
mod dleqor;
mod error;
pub mod group;
pub mod hazmat;
pub mod http;
mod par;
pub mod rng;
mod stack;
pub mod suite;
pub mod transcript;
pub mod trust_token;
pub mod voprf;
mod wire;

pub use error::{Error, Result};
/// The fixed-size byte arrays of the API (`suite::Output`, element and scalar encodings) are
/// `hybrid_array::Array` (the array type of the RustCrypto 0.14 crates).
pub use hybrid_array;
pub use par::PAR_MIN_BATCH;
/// The RNG traits this crate takes (rand_core 0.10, as rand 0.10); see [`rng`] for older `rand`.
pub use rand_core;
pub use suite::{Decaf448Shake256, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite};
