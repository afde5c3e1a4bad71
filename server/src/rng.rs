//! The random generator of one issuance job: a ChaCha12 generator seeded with 32 bytes of the
//! operating system's generator for that job alone, built, used and dropped inside
//! [`privacy_tokens::run_wiped`].
//!
//! Issuance draws its proof nonces (and PMB's blinds) from it. `rand::rng()` (`ThreadRng`) kept
//! its ChaCha output buffer on the heap across calls, never zeroized, so the last issuance's
//! proof nonce stayed readable until the buffer was refilled. Here the generator's key state
//! and output buffer are zeroized when it drops (`chacha20`'s `zeroize` feature, checked at
//! compile time below), and the seed's copies on the stack are overwritten by `run_wiped`'s
//! stack wipe. A failing operating-system source is an error before any work, answered 500
//! ([`unavailable`]), never a panic.

use axum::http::StatusCode;
use axum::response::Response;
use chacha20::ChaCha12Rng;
use rand::rngs::SysRng;
use rand::{SeedableRng as _, TryRng as _};
use zeroize::Zeroizing;

use crate::text;

/// The generator of one issuance job: zeroized on drop (key state and output buffer).
pub type IssueRng = ChaCha12Rng;

// Compile-time check: a generator type that does not zeroize on drop does not build.
const _: fn() = || {
    fn zeroized_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    zeroized_on_drop::<IssueRng>();
};

/// The operating system's generator failed: no work was done.
#[derive(Debug, thiserror::Error)]
#[error("the operating system's random generator failed: {0}")]
pub struct RngUnavailable(String);

/// Runs `body` with a fresh [`IssueRng`] seeded from the operating system, inside
/// [`privacy_tokens::run_wiped`] (so `body`'s own stack frame is wiped too when it returns).
///
/// # Errors
/// [`RngUnavailable`] when the operating system's generator fails; `body` does not run.
pub fn with_rng<R>(body: impl FnOnce(&mut IssueRng) -> R) -> Result<R, RngUnavailable> {
    seeded_with(
        |seed| {
            SysRng
                .try_fill_bytes(seed)
                .map_err(|e| RngUnavailable(e.to_string()))
        },
        body,
    )
}

/// [`with_rng`] with the seed source given (the tests give a failing one).
fn seeded_with<R>(
    source: impl FnOnce(&mut [u8]) -> Result<(), RngUnavailable>,
    body: impl FnOnce(&mut IssueRng) -> R,
) -> Result<R, RngUnavailable> {
    privacy_tokens::run_wiped(|| {
        let mut seed = Zeroizing::new([0u8; 32]);
        source(seed.as_mut())?;
        let mut rng = IssueRng::from_seed(*seed);
        Ok(body(&mut rng))
    })
}

/// The answer when the operating system's generator fails (a server fault, not the client's).
pub(crate) fn unavailable(e: &RngUnavailable) -> Response {
    tracing::error!(error = %e, "no randomness for issuance");
    text(
        StatusCode::INTERNAL_SERVER_ERROR,
        "randomness unavailable\n",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn failing_source_is_an_error_and_runs_nothing() {
        let r = seeded_with(
            |_| Err(RngUnavailable("test source".into())),
            |_| -> u64 { panic!("body ran without a seed") },
        );
        let e = r.expect_err("a failing source must be an error");
        assert_eq!(unavailable(&e).status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn seeded_from_the_source_per_call() {
        // The generator is the source's seed, so a fixed seed gives a fixed stream ...
        let fixed = |_: ()| {
            seeded_with(
                |s| {
                    s.fill(7);
                    Ok(())
                },
                |rng| rng.next_u64(),
            )
            .unwrap()
        };
        assert_eq!(fixed(()), fixed(()));
        assert_eq!(fixed(()), IssueRng::from_seed([7; 32]).next_u64());
        // ... and the OS-seeded one is fresh for every call.
        let a = with_rng(|rng| rng.next_u64()).unwrap();
        let b = with_rng(|rng| rng.next_u64()).unwrap();
        assert_ne!(a, b);
    }
}
