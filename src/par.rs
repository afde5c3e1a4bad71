//! Splitting the per-element work of a batch over cores (feature `rayon`).
//!
//! Only the independent per-element parts of a batch are split: the scalar multiplications
//! (constant-time ladders on secret keys or blinds), and the hashing to the curve and point
//! decoding of the PMB methods. What combines the elements stays on the calling thread, as in
//! the sequential code: the one field inversion per batch that normalises the results, and the
//! batched DLEQ proof (its composite weights and multi-scalar multiplications run over all
//! elements). Each element's result does not depend on which thread computed it, so the
//! outputs are byte-identical with and without the feature.
//!
//! Secrets and the stack: the calling thread runs its operation inside the stack wipe
//! (`crate::stack::token`), but rayon's workers run on stacks of their own, which that wipe
//! does not reach. So every share a worker runs is wrapped in the same wipe: it runs in a frame
//! of its own on the worker's stack, and the 48 KiB below that frame are overwritten before the
//! worker takes other work (`tests/stack_wipe.rs` scans the workers' stale stacks with the
//! feature on). Without the feature, or below [`PAR_MIN_BATCH`], or in a rayon pool of one
//! thread, the work runs on the calling thread exactly as before (no extra allocation).

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use crate::Result;

/// With the `rayon` feature, batches of at least this many elements have their per-element
/// work split over rayon's thread pool (in the pool of the calling context: the global pool,
/// or the one a caller entered with `ThreadPool::install`); smaller ones, and every batch in a
/// one-thread pool or without the feature, run on the calling thread.
///
/// Why 4: each element costs at least one constant-time ladder (about 250 µs on P-384, 100 µs
/// on P-256), far above rayon's hand-off to a worker (microseconds), so a split pays wherever
/// another core is free; below 4 elements it saves one ladder at most, and a busy machine can
/// lose that in the hand-off. `examples/par_threshold.rs` times both sides at small batches.
pub const PAR_MIN_BATCH: usize = 4;

/// One worker's share of a batch: in a frame of its own on the worker's stack, which the
/// stack wipe overwrites once the share is done (the calling thread's wipe cannot reach it).
#[cfg(feature = "rayon")]
#[inline(always)]
fn share<R>(body: impl FnOnce() -> R) -> R {
    crate::stack::token(body)
}

/// The size of the pieces a batch of `n` elements is split into, or `None` to run it on the
/// calling thread.
#[cfg(feature = "rayon")]
fn split_size(n: usize) -> Option<usize> {
    // The count first: asking for the pool's size starts rayon's global pool.
    if n < PAR_MIN_BATCH {
        return None;
    }
    let threads = rayon::current_num_threads();
    if threads < 2 {
        return None;
    }
    // Two pieces per thread: balanced when the other cores are busy, few hand-offs.
    Some(n.div_ceil(2 * threads).max(1))
}

/// `f(start, piece)` over consecutive pieces of `out` (`piece` starts at index `start`): on
/// rayon's workers when the batch is split, otherwise once over the whole of `out` on the
/// calling thread, for work that is cheaper done a piece at a time (a batched ladder). Returns
/// the error of the lowest failing piece, as a sequential loop would (the other pieces may then
/// have been computed or not). [`fill`] and [`try_fill`] go through here.
pub(crate) fn try_fill_pieces<U: Send, E: Send>(
    out: &mut [U],
    f: impl Fn(usize, &mut [U]) -> core::result::Result<(), E> + Sync + Send,
) -> core::result::Result<(), E> {
    #[cfg(feature = "rayon")]
    if let Some(size) = split_size(out.len()) {
        let first = out
            .par_chunks_mut(size)
            .enumerate()
            .map(|(c, piece)| share(|| f(c * size, piece)).err().map(|e| (c, e)))
            .reduce(
                || None,
                |a, b| match (a, b) {
                    (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
                    (a, b) => a.or(b),
                },
            );
        return first.map_or(Ok(()), |(_, e)| Err(e));
    }
    f(0, out)
}

/// Sets `out[i] = f(i)` for every index, the pieces on rayon's workers when the batch is split.
pub(crate) fn fill<U: Send>(out: &mut [U], f: impl Fn(usize) -> U + Sync + Send) {
    let done = try_fill_pieces(out, |start, piece| {
        for (j, o) in piece.iter_mut().enumerate() {
            *o = f(start + j);
        }
        Ok::<(), core::convert::Infallible>(())
    });
    match done {
        Ok(()) => {}
        Err(never) => match never {},
    }
}

/// [`fill`] with a fallible `f`: the error of the lowest failing index, as the sequential loop
/// returns (the other elements may then have been computed or not).
pub(crate) fn try_fill<U: Send>(
    out: &mut [U],
    f: impl Fn(usize) -> Result<U> + Sync + Send,
) -> Result<()> {
    try_fill_pieces(out, |start, piece| {
        for (j, o) in piece.iter_mut().enumerate() {
            *o = f(start + j)?;
        }
        Ok(())
    })
}

/// `f(input)` for a batch function `f` that maps each element to one result: split, `f` runs on
/// consecutive pieces and the results are concatenated in order (one extra buffer per piece
/// and one for the whole); otherwise `f(input)` on the calling thread.
pub(crate) fn map_pieces<T: Sync, U: Send>(
    input: &[T],
    f: impl Fn(&[T]) -> Vec<U> + Sync + Send,
) -> Vec<U> {
    #[cfg(feature = "rayon")]
    if let Some(size) = split_size(input.len()) {
        let pieces: Vec<Vec<U>> = input
            .par_chunks(size)
            .map(|piece| share(|| f(piece)))
            .collect();
        return pieces.into_iter().flatten().collect();
    }
    f(input)
}
