//! Finding copies of secrets where they should no longer be: a recording RNG (every draw, so a
//! test learns the nonces and blinds an operation drew), the in-memory image of a scalar, and a
//! scan of the stale stack below the caller's frame (the usual zeroize-test heuristic).
//!
//! The stack scan needs an optimised build: without optimisations the compiler keeps extra
//! temporaries that no source-level wipe reaches.

#![allow(dead_code)]
#![allow(unsafe_code)] // Raw reads of scalar bytes and of the stale stack; SAFETY notes below.

use core::hint::black_box;

use privacy_tokens::group::{self, Curve, Scalar};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How much stale stack below the caller is scanned.
pub const SCAN: usize = 256 * 1024;

/// A seeded RNG that records every `fill_bytes` draw.
pub struct Recording {
    inner: StdRng,
    /// Every `fill_bytes` draw, in order.
    pub draws: Vec<Vec<u8>>,
}

impl Recording {
    pub fn new(seed: u64) -> Self {
        Self {
            inner: StdRng::seed_from_u64(seed),
            draws: Vec::with_capacity(1024),
        }
    }

    /// The draws that are canonical non-zero scalars of `C` (each accepted `RandomScalar`
    /// candidate; a rejected one is ~2^-32 likely on P-256 and ~2^-190 on P-384), in order.
    pub fn scalars<C: Curve>(&self) -> Vec<Scalar<C>> {
        self.draws
            .iter()
            .filter(|d| d.len() == C::SCALAR_LEN)
            .filter_map(|d| group::decode_nonzero_scalar::<C>(d).ok())
            .collect()
    }

    /// Forgets the draws so far.
    pub fn clear(&mut self) {
        self.draws.clear();
    }
}

impl rand::TryRng for Recording {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.inner.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.inner.next_u64())
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.inner.fill_bytes(dest);
        self.draws.push(dest.to_vec());
        Ok(())
    }
}

impl rand::TryCryptoRng for Recording {}

/// The in-memory image of a scalar (its limbs as stored).
pub fn image<C: Curve>(s: &Scalar<C>) -> Vec<u8> {
    let len = core::mem::size_of::<Scalar<C>>();
    assert_eq!(len, C::SCALAR_LEN, "a scalar is its limbs and nothing else");
    // `s` is a live `Scalar<C>` of `len` bytes, all of them initialised integer limbs (no
    // padding: the size equals the encoded length, checked above).
    // SAFETY: `len` initialised bytes at `s`, only read, for the life of the borrow.
    unsafe { core::slice::from_raw_parts((s as *const Scalar<C>).cast::<u8>(), len) }.to_vec()
}

/// Both forms a secret scalar takes in memory: its limbs and its big-endian encoding.
pub fn forms<C: Curve>(s: &Scalar<C>) -> [Vec<u8>; 2] {
    [image::<C>(s), C::scalar_bytes(s).as_ref().to_vec()]
}

/// The `SCAN` bytes of stack below `marker`, a local of the calling frame.
#[inline(always)]
fn stale_below(marker: &u8) -> &[u8] {
    let sp = black_box(marker) as *const u8 as usize;
    // Test threads run on a 2 MiB stack and the callers run a few frames from the test function,
    // so the `SCAN` bytes below `marker` are mapped stack of this thread, not in use by any live
    // frame (the callers only copy or compare them, calling nothing deeper than a `memcpy`).
    // SAFETY: mapped, unused stack of this thread (above), only read.
    unsafe { core::slice::from_raw_parts((sp - SCAN) as *const u8, SCAN) }
}

/// A copy of the stale stack below the frame that called [`StaleStack::take`], taken before the
/// test computes what to look for (that computation would leave copies of its own there).
pub struct StaleStack(Vec<u8>);

impl StaleStack {
    /// Allocated up front, so that taking the copy calls no allocator.
    pub fn new() -> Self {
        Self(vec![0; SCAN])
    }

    /// Copies the `SCAN` bytes below this function's frame.
    #[inline(never)]
    pub fn take(&mut self) {
        let marker = 0u8;
        self.0.copy_from_slice(stale_below(&marker));
        black_box(&self.0);
    }

    /// How many times each needle occurs in the copy.
    pub fn hits(&self, needles: &[Vec<u8>]) -> Vec<usize> {
        needles
            .iter()
            .map(|n| self.0.windows(n.len()).filter(|w| w == n).count())
            .collect()
    }

    /// The names of the needles found (empty when none is).
    pub fn found<'a>(&self, needles: &'a [(String, Vec<u8>)]) -> Vec<&'a str> {
        needles
            .iter()
            .filter(|(_, n)| self.0.windows(n.len()).any(|w| w == n))
            .map(|(name, _)| name.as_str())
            .collect()
    }
}

/// Leaves `v` at the bottom of an 8 KiB frame, below where the scanner's own frame reaches.
#[inline(never)]
pub fn leave_on_stack(v: &[u8]) {
    let mut frame = [0u8; 8192];
    frame[..v.len()].copy_from_slice(v);
    black_box(&frame);
}

/// Checks that the scan sees a value left on the stale stack (the control of every stack test).
pub fn assert_scan_sees_stale_stack() {
    let mut marked = [0xa5u8; 48];
    marked[0] = 0x5a;
    marked[47] = 0x3c;
    let mut stale = StaleStack::new();
    leave_on_stack(&marked);
    stale.take();
    assert!(
        stale.hits(&[marked.to_vec()])[0] >= 1,
        "the scan misses stale stack"
    );
}

/// Fills the `SCAN` bytes below the caller's frame with a pattern.
#[inline(never)]
pub fn paint() {
    let mut frame = [0x6bu8; SCAN + 8192];
    black_box(&mut frame);
}

/// How deep below the caller's frame `f` wrote to the stack (bytes, from a painted stack), and
/// whether its deepest writes were the wipe (see `wiped_from`: below the wipe's frame lie only
/// the frames of the zeroing loop it calls). A body that went deeper than its wipe leaves its
/// own frames there.
#[inline(never)]
pub fn stack_use_of(f: impl FnOnce()) -> (usize, bool) {
    paint();
    f();
    painted_use()
}

/// After [`paint`] from a frame at this depth and some work: how deep the work wrote (bytes
/// below this frame) and whether its deepest writes were a wipe, as [`stack_use_of`].
#[inline(never)]
pub fn painted_use() -> (usize, bool) {
    let marker = 0u8;
    let stale = stale_below(&marker);
    let lowest = stale.iter().position(|&b| b != 0x6b).unwrap_or(SCAN);
    (SCAN - lowest, wiped_from(&stale[lowest..]))
}

/// Whether the deepest writes, `s` from the lowest byte written up, are a wipe's: a run of at
/// least 4 KiB of zeros begins within the 4 KiB above the lowest byte, and what lies below it
/// is zeros and islands of at most 512 bytes (an island ends at 64 zero bytes): the frames of
/// zeroing loops. A thread that ran two wiped bodies from frames at different depths leaves one
/// such frame at each wipe's bottom, with the deeper wipe's zeros between them. The frames of a
/// body that went deeper than its wipe are larger islands, or leave no such run of zeros.
fn wiped_from(s: &[u8]) -> bool {
    const RUN: usize = 4096;
    const ISLAND: usize = 512;
    const GAP: usize = 64;
    const ZONE: usize = 4096;
    let (mut zeros, mut island) = (0usize, 0usize);
    for (i, &b) in s.iter().enumerate() {
        if b == 0 {
            zeros += 1;
            if zeros >= RUN {
                return true;
            }
            continue;
        }
        island = if zeros >= GAP { 1 } else { island + zeros + 1 };
        zeros = 0;
        if island > ISLAND || i >= ZONE {
            return false;
        }
    }
    false
}
