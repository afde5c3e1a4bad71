//! A `LadderBlind` (the secret start and end points of the blinded ladders) is wiped when it is
//! dropped: a global allocator counts the non-zero bytes of the block a boxed blind is freed
//! from. The control frees a second boxed blind without running its `Drop` (the allocator then
//! sees the coordinates), so the count can tell a wiped block from one that is not.

#![allow(unsafe_code)] // The control's raw free; its SAFETY note is below.

#[path = "support/inspecting_alloc.rs"]
mod inspecting_alloc;

use std::alloc::Layout;
use std::cell::Cell;
use std::hint::black_box;

use inspecting_alloc::Inspecting;

use privacy_tokens::group::{LadderBlind, NistP256, NistP384};
use rand::rngs::StdRng;
use rand::SeedableRng;

thread_local! {
    /// The block size to look at (none: not armed) and the last such block's non-zero bytes.
    static SIZE: Cell<Option<usize>> = const { Cell::new(None) };
    static NONZERO: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Counts the non-zero bytes of the freed blocks of one size, on this thread, while armed.
#[global_allocator]
static ALLOC: Inspecting = Inspecting {
    armed: |size| SIZE.try_with(Cell::get).ok().flatten() == Some(size),
    inspect: |block| {
        let n = block.iter().filter(|&&b| b != 0).count();
        let _ = NONZERO.try_with(|c| c.set(Some(n)));
    },
};

/// The non-zero bytes of the block `free` releases (a `LadderBlind<C>`'s box).
fn freed_nonzero<C: privacy_tokens::group::Curve>(free: impl FnOnce()) -> usize {
    NONZERO.with(|c| c.set(None));
    SIZE.with(|c| c.set(Some(Layout::new::<LadderBlind<C>>().size())));
    free();
    SIZE.with(|c| c.set(None));
    NONZERO
        .with(Cell::get)
        .expect("the blind's block was freed while armed")
}

fn blind_is_wiped_on_drop<C: privacy_tokens::group::Curve>(seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let layout = Layout::new::<LadderBlind<C>>();
    // Two affine points: four coordinates of `SCALAR_LEN` bytes, the rest flags and padding.
    let coords = 4 * C::SCALAR_LEN;
    let slack = layout.size() - coords;

    // `black_box` keeps each box a real heap block: without it the optimiser may remove a
    // `Box::new` and its free as a pair (then nothing is freed while armed, and the test fails).
    let blind = black_box(Box::new(LadderBlind::<C>::random(&mut rng)));
    let wiped = freed_nonzero::<C>(|| drop(black_box(blind)));

    let blind = black_box(Box::into_raw(Box::new(LadderBlind::<C>::random(&mut rng))));
    let kept = freed_nonzero::<C>(|| {
        // The control: `Drop` is skipped on purpose.
        // SAFETY: `blind` came from `Box::into_raw` with this layout and is freed once.
        unsafe { std::alloc::dealloc(blind.cast::<u8>(), layout) }
    });

    assert!(
        wiped <= slack,
        "a dropped blind left {wiped} non-zero bytes (at most {slack} are not coordinates)"
    );
    assert!(
        kept > coords / 2,
        "the control (no Drop) shows only {kept} non-zero bytes of {coords} coordinate bytes"
    );
}

#[test]
fn ladder_blinds_are_wiped_when_dropped() {
    blind_is_wiped_on_drop::<NistP256>(1);
    blind_is_wiped_on_drop::<NistP384>(2);
}
