//! Wiping the stack an operation on secrets used, once it returns.
//!
//! `Zeroizing` wipes the values this crate names, but not the copies the compiler makes of them:
//! by-value scalar arithmetic, return slots of the curve crates' functions, spilled registers.
//! Those stay in stack memory below the caller after the operation returns, until something
//! else overwrites them (`tests/stack_wipe.rs` found proof nonces, blinds and prover nonces
//! there). So every public operation that handles a key, a nonce or a blind runs its body in a
//! frame of its own ([`wiped`]) and then overwrites, with volatile writes, the stack below the
//! caller that the body could have used.
//!
//! The sizes are the deepest use measured in optimised builds (`tests/stack_wipe.rs` prints
//! it and fails if an operation goes deeper than its wipe) with room to spare. Wiping 32 KiB
//! costs about a microsecond; the operations take hundreds. Unoptimised builds use more stack
//! than the sizes cover: the wipe is then partial.

use zeroize::Zeroize;

/// Words wiped after a VOPRF, Privacy Pass or Trust Token operation (48 KiB; measured depth at
/// most 31 KiB).
pub(crate) const TOKEN: usize = 48 * 1024 / 8;

/// Words wiped after an ARC operation (112 KiB; the presentation measures 68 KiB: its proofs
/// keep their scalars and points on the stack).
pub(crate) const ARC: usize = 112 * 1024 / 8;

/// Runs `body` in a frame of its own, then wipes `WORDS` words of the stack below the caller:
/// the memory `body` could have used.
#[inline(always)]
pub(crate) fn wiped<const WORDS: usize, R>(body: impl FnOnce() -> R) -> R {
    let out = run(body);
    wipe::<WORDS>();
    out
}

/// `body` in a frame below the caller's, never merged into it.
#[inline(never)]
fn run<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// Overwrites a `WORDS`-word frame with volatile writes: the stack just below the caller.
#[inline(never)]
fn wipe<const WORDS: usize>() {
    let mut frame = [0u64; WORDS];
    frame.zeroize();
    core::hint::black_box(&frame);
}

/// [`wiped`] with the [`TOKEN`] size.
#[inline(always)]
pub(crate) fn token<R>(body: impl FnOnce() -> R) -> R {
    wiped::<TOKEN, R>(body)
}

/// [`wiped`] with the [`ARC`] size.
#[inline(always)]
pub(crate) fn arc<R>(body: impl FnOnce() -> R) -> R {
    wiped::<ARC, R>(body)
}

/// Runs `body` in a frame of its own, then overwrites (with volatile writes) the 112 KiB of
/// stack below the caller that `body` and every operation of this crate it calls could have
/// used.
///
/// Each operation of this crate that handles a key, a nonce or a blind already wipes the stack
/// it used. This is for the caller's own frame: a binding or a server that builds a per-call
/// random generator (whose state holds the blinds and nonces it produced), decodes a token or
/// copies a secret into locals should do so inside `body`, so that those copies are wiped too
/// when it returns. Wiping 112 KiB costs a few microseconds.
///
/// ```
/// use privacy_tokens::run_wiped;
/// let sum = run_wiped(|| {
///     let secret = [7u8; 32]; // a copy made in body's frame, overwritten on return
///     secret.iter().map(|&b| u32::from(b)).sum::<u32>()
/// });
/// assert_eq!(sum, 224);
/// ```
#[inline(always)]
pub fn run_wiped<R>(body: impl FnOnce() -> R) -> R {
    arc(body)
}
