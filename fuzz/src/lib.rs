//! Shared code of the `privacy-tokens` fuzz targets: per-process fixtures, the adapters that
//! isolate API calls about to change, one function per target (the `fuzz_targets/*.rs` files are
//! one line each) and the seed generator.
//!
//! Every target must never panic on any input. The only panics are the `assert!`s of this crate:
//! a decoded value that re-encodes differently, a differential mismatch against the RustCrypto
//! curve crates, or a protocol step that accepts a message its peer then refuses.

// generic-array 0.14 deprecates itself; the 0.13 curve crates still use it.
#![allow(deprecated)]

pub mod act;
pub mod adapt;
pub mod arc;
pub mod arith;
pub mod blind_rsa;
pub mod fixtures;
pub mod privacy_pass;
pub mod rollatini;
pub mod seeds;
pub mod serde_json_rt;
pub mod trust_token;
pub mod voprf;

/// Splits the selector byte off an input.
pub fn split(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(s, rest)| (*s, rest))
}

/// Decodes `data`; when that succeeds, the re-encoding must be `data` byte for byte (strict,
/// canonical decoders).
pub fn roundtrip<T, E, B: AsRef<[u8]>>(
    data: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T, E>,
    encode: impl FnOnce(&T) -> B,
) -> Option<T> {
    let value = decode(data).ok()?;
    assert_eq!(
        hex::encode(encode(&value).as_ref()),
        hex::encode(data),
        "decoded value re-encodes differently"
    );
    Some(value)
}

/// A deterministic RNG (seeded per call site), so that seeds made from fixtures replay.
pub fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::SeedableRng::seed_from_u64(seed)
}

/// The init hook of every target: with `PT_FUZZ_SEEDS=<dir>` set, writes the target's seed
/// corpus into `<dir>` and exits instead of fuzzing.
pub fn init(target: &str) {
    if let Some(dir) = std::env::var_os("PT_FUZZ_SEEDS") {
        let n = seeds::write(target, std::path::Path::new(&dir));
        eprintln!("seeds {target}: {n} files");
        std::process::exit(0);
    }
}

/// Declares a fuzz target that calls `$f` on every input (and [`init`] first).
#[macro_export]
macro_rules! target {
    ($name:literal, $f:path) => {
        libfuzzer_sys::fuzz_target!(init: $crate::init($name), |data: &[u8]| { $f(data) });
    };
}
