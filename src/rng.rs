//! RNGs from older `rand` versions.
//!
//! Every function of this crate that draws randomness takes `&mut R` with
//! `R: rand_core::CryptoRng + ?Sized` of rand_core 0.10 (re-exported as [`crate::rand_core`]),
//! the traits of rand 0.10: `rand::rng()`, `rand::rngs::StdRng`, and
//! `rand_core::UnwrapErr(rand::rngs::SysRng)` go straight in. An application still on an older
//! `rand` wraps its RNG in the adapter of that line's rand_core:
//!
//! | application's `rand` | its rand_core | adapter | feature |
//! |---|---|---|---|
//! | 0.10 | 0.10 | none | |
//! | 0.9 | 0.9 | `Rng09` | `rand_core_09` |
//! | 0.8 (and 0.7's `OsRng` through rand_core 0.6) | 0.6 | `Rng06` | `rand_core_06` |
//!
//! An adapter is a `CryptoRng` only if the wrapped RNG is one in its own line (a `CryptoRng`
//! marker there), so a non-cryptographic RNG is refused at compile time as before. Each adapter
//! exists (and is documented) only with its feature on; docs.rs builds with both.
//!
//! ```
//! use privacy_tokens::voprf::VoprfServer;
//! use privacy_tokens::P256Sha256;
//!
//! // rand 0.10: pass the RNG itself.
//! let server = VoprfServer::<P256Sha256>::new(&mut rand::rng());
//! # let _ = server;
//! // rand 0.9 (feature `rand_core_09`): wrap it.
//! # #[cfg(feature = "rand_core_09")]
//! # {
//! # use rand09 as rand; // the application's rand 0.9
//! use privacy_tokens::rng::Rng09;
//! let server = VoprfServer::<P256Sha256>::new(&mut Rng09(rand::rng()));
//! # let _ = server;
//! # }
//! ```

/// Implements rand_core 0.10's `TryRng` (infallible) and `TryCryptoRng` for a wrapper of an older
/// rand_core's `RngCore` (+ `CryptoRng`); those two give `Rng` and `CryptoRng` by blanket impls.
#[cfg(any(feature = "rand_core_06", feature = "rand_core_09"))]
macro_rules! adapter {
    ($name:ident, $old:ident) => {
        impl<R: $old::RngCore> rand_core::TryRng for $name<R> {
            type Error = core::convert::Infallible;

            fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
                Ok(self.0.next_u32())
            }

            fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
                Ok(self.0.next_u64())
            }

            fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
                self.0.fill_bytes(dst);
                Ok(())
            }
        }

        impl<R: $old::RngCore + $old::CryptoRng> rand_core::TryCryptoRng for $name<R> {}

        impl<R> core::fmt::Debug for $name<R> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}

/// A rand_core 0.6 RNG (rand 0.8: `rand::thread_rng()`, `rand::rngs::OsRng`, `StdRng`) as a
/// rand_core 0.10 `CryptoRng`, for the functions of this crate.
///
/// Wrap the RNG itself or a `&mut` to it (rand_core 0.6 implements its traits for `&mut R`):
///
/// ```
/// # // rand 0.8 is this crate's dev-dependency `rand08`; an application names it `rand`.
/// # extern crate rand08 as rand;
/// use privacy_tokens::{rng::Rng06, voprf::VoprfServer, P256Sha256};
///
/// let mut rng = Rng06(rand::thread_rng());
/// let server = VoprfServer::<P256Sha256>::new(&mut rng);
/// # let _ = server;
/// ```
///
/// `fill_bytes` panics where the wrapped RNG's does (rand 0.8's `OsRng` when the OS RNG fails),
/// as rand_core 0.10's infallible `Rng` allows.
#[cfg(feature = "rand_core_06")]
pub struct Rng06<R>(pub R);

#[cfg(feature = "rand_core_06")]
adapter!(Rng06, rand_core_06);

/// A rand_core 0.9 RNG (rand 0.9: `rand::rng()`, `rand::rngs::StdRng`, and
/// `rand::rngs::OsRng` through its `unwrap_err()`) as a rand_core 0.10 `CryptoRng`, for the
/// functions of this crate.
///
/// Wrap the RNG itself or a `&mut` to it (rand_core 0.9 implements its traits for `&mut R`).
#[cfg(feature = "rand_core_09")]
pub struct Rng09<R>(pub R);

#[cfg(feature = "rand_core_09")]
adapter!(Rng09, rand_core_09);
