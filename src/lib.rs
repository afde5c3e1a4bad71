//! Privacy-token protocols on the RustCrypto curves: Privacy Pass, ARC, Private State Tokens
//! (Trust Tokens) and the OPRFs of RFC 9497, for token issuers, clients and origins.
//!
//! Start from the task you have; each module's page carries a complete example.
//!
//! # I issue Privacy Pass tokens (or I am a Privacy Pass client or origin)
//!
//! [`voprf::privacy_pass`]: token type 0x0001 (RFC 9578, VOPRF(P-384, SHA-384)) at the top of
//! the module, type 0x0005 (VOPRF(ristretto255, SHA-512)) in [`voprf::privacy_pass::type5`], each
//! with one token or an amortized batch per request (`Client::request_batch`,
//! `Issuer::issue_batch`). The issuer also verifies the tokens (they are privately verifiable);
//! the double-spend store is the caller's. Publicly verifiable tokens, types 0x0002 (blind RSA)
//! and 0xDA7A (partially blind RSA), are [`blind_rsa::privacy_pass`]; what every type shares
//! (the challenge) and the generic batch mixing types 0x0001, 0x0002 and 0x0005 are
//! [`privacy_pass`]. The HTTP side, `WWW-Authenticate: PrivateToken` challenges and the
//! `Authorization` header (RFC 9577), is [`http`].
//!
//! A ready-made issuer and origin process, `privacy-tokens-server`, lives in `server/` of the
//! source repository (its own crate).
//!
//! # I am a Private State Token (Trust Token) issuer
//!
//! [`trust_token`]: BoringSSL's methods, byte for byte, as Chrome's Private State Token API uses
//! them (`pst_v1_voprf`, `pst_v1_pmb` with its private metadata bit, and the experiment methods):
//! keys with u32 ids, [`trust_token::Issuer`] and [`trust_token::Client`], storage encodings and
//! serde forms.
//!
//! # I need rate-limited anonymous credentials (ARC)
//!
//! [`arc`]: draft-ietf-privacypass-arc-crypto-01 ([`arc::ArcV2P256`]) and the legacy v1
//! generation; what a client must persist between presentations is on that page. The Privacy
//! Pass binding, token type 0xE5AC, is [`arc::privacy_pass`].
//!
//! # I need an OPRF, VOPRF or POPRF
//!
//! [`voprf`]: the clients and servers of RFC 9497's three modes on its five suites
//! ([`Ristretto255Sha512`], [`Decaf448Shake256`], [`P256Sha256`], [`P384Sha384`],
//! [`P521Sha512`]; see [`suite`]), single and batched evaluation with one proof per batch.
//!
//! # I write JavaScript or TypeScript
//!
//! The npm package `privacy-tokens` is this crate compiled to WebAssembly, in `bindings/wasm/`
//! of the source repository: Privacy Pass, ARC, the headers and the OPRFs for browsers, Node,
//! bundlers and workers.
//!
//! # Test vectors, interop and building blocks
//!
//! - [`hazmat`]: deterministic blinds and nonces, for replaying vectors only.
//! - [`rng`]: adapters for RNGs of rand 0.8 and 0.9 (every function takes a rand_core 0.10
//!   [`rand_core::CryptoRng`]).
//! - [`dleq`], [`transcript`], [`group`]: the proofs, the hashing and the group layer the
//!   protocols are built from.
//! - [`Error`]: one coarse, `Copy` error type for the whole crate.
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! | --- | :---: | --- |
//! | `serde` | yes | serde for keys and messages (hex in human-readable formats, bytes otherwise) |
//! | `std` | yes | generator tables built once per process |
//! | `rayon` | | large batches split their scalar multiplications over rayon's pool |
//! | `srr` | | Trust Tokens `experiment_v1`'s Ed25519-signed redemption record |
//! | `rand_core_06`, `rand_core_09` | | the [`rng`] adapters for rand 0.8 and 0.9 |
//! | `peer-bench`, `inversion-counter`, `mult-counter` | | benchmarks and test hooks |
//!
//! # Security
//!
//! Decoders are strict (exact lengths, points on the curve and not the identity, canonical
//! scalars) and check every count before any work; secrets meet only constant-time code
//! (variable-time functions are named `vartime_*` and take public data); secrets are zeroized and
//! each operation wipes the stack it used. The claims and the evidence for each, and how to rerun
//! it, are in `docs/security.md`; how to report a vulnerability is in `SECURITY.md`.
// `unsafe` is denied everywhere but in the group layer's x86-64 assembly backends (`group::adx`,
// `group::backend::ifma_rsa`) and `group::validation`'s test hooks.
#![deny(unsafe_code)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]
#![warn(missing_docs)]

pub mod act;
pub mod arc;
pub mod blind_rsa;
#[cfg(feature = "serde")]
mod codec;
pub mod dleq;
mod dleqor;
mod error;
pub mod group;
pub mod hazmat;
pub mod http;
mod par;
pub mod privacy_pass;
pub mod rng;
pub mod rollatini;
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
pub use stack::run_wiped;
pub use suite::{Decaf448Shake256, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite};

// The README's and docs/trust-tokens.md's Rust examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
#[cfg(doctest)]
#[doc = include_str!("../docs/trust-tokens.md")]
struct TrustTokensDocDoctests;
