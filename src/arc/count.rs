//! Scalar-multiplication counters (feature `mult-counter`; a bench and test hook).
//!
//! Every multiplication of the ARC code is counted in one of three classes: constant-time
//! fixed-base (generator, `generatorH` and per-key tables), constant-time variable-base, and
//! variable-time over public data (one per term of a multi-scalar multiplication).

/// Per-thread counts of scalar multiplications since the last [`reset`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MultCounts {
    /// Constant-time fixed-base multiplications (precomputed tables).
    pub fixed: u64,
    /// Constant-time variable-base multiplications.
    pub variable: u64,
    /// Variable-time multiplications over public data (terms of linear combinations).
    pub vartime: u64,
}

impl MultCounts {
    /// All classes together.
    pub fn total(&self) -> u64 {
        self.fixed + self.variable + self.vartime
    }
}

#[cfg(feature = "mult-counter")]
std::thread_local! {
    static COUNTS: core::cell::Cell<MultCounts> = const {
        core::cell::Cell::new(MultCounts { fixed: 0, variable: 0, vartime: 0 })
    };
}

#[inline]
#[allow(unused_variables)]
fn bump(f: impl FnOnce(&mut MultCounts)) {
    #[cfg(feature = "mult-counter")]
    COUNTS.with(|c| {
        let mut v = c.get();
        f(&mut v);
        c.set(v);
    });
}

#[inline]
pub(crate) fn fixed(n: u64) {
    bump(|c| c.fixed += n);
}

#[inline]
pub(crate) fn variable(n: u64) {
    bump(|c| c.variable += n);
}

#[inline]
pub(crate) fn vartime(n: u64) {
    bump(|c| c.vartime += n);
}

/// The counts of this thread (all zero without the `mult-counter` feature).
pub fn counts() -> MultCounts {
    #[cfg(feature = "mult-counter")]
    {
        COUNTS.with(|c| c.get())
    }
    #[cfg(not(feature = "mult-counter"))]
    {
        MultCounts::default()
    }
}

/// Resets this thread's counts.
pub fn reset() {
    #[cfg(feature = "mult-counter")]
    COUNTS.with(|c| c.set(MultCounts::default()));
}
