//! Comparison counting for the differential tests: every check of an implementation under test
//! against a reference is counted, mismatches are printed with their inputs, and the last test
//! of the binary to finish prints the summary line
//! `differential: <N> comparisons, <M> mismatches`.
//!
//! Environment: `DIFFERENTIAL_SEED` (a `u64`, decimal or `0x` hex) replaces the default seed;
//! `DIFFERENTIAL_ITERS` (a positive integer, default 1) multiplies the random iterations.

use core::fmt::Debug;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rand::{rngs::StdRng, SeedableRng};

/// The seed when `DIFFERENTIAL_SEED` is unset.
const DEFAULT_SEED: u64 = 0x00d1_ff00_2026_1201;

/// At most this many mismatches of one test are printed in full.
const SHOWN: u64 = 20;

static COMPARISONS: AtomicU64 = AtomicU64::new(0);
static MISMATCHES: AtomicU64 = AtomicU64::new(0);
static FINISHED: AtomicUsize = AtomicUsize::new(0);

/// The run's seed (`DIFFERENTIAL_SEED` or the default).
pub fn seed() -> u64 {
    match std::env::var("DIFFERENTIAL_SEED") {
        Ok(s) => {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("DIFFERENTIAL_SEED is not a u64: {s:?}"))
        }
        Err(_) => DEFAULT_SEED,
    }
}

/// The iteration multiplier (`DIFFERENTIAL_ITERS`, at least 1).
pub fn iters() -> usize {
    match std::env::var("DIFFERENTIAL_ITERS") {
        Ok(s) => s
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| panic!("DIFFERENTIAL_ITERS is not a positive integer: {s:?}")),
        Err(_) => 1,
    }
}

/// The counts of one test. Dropping it (also while unwinding) adds them to the binary's totals.
pub struct Tally {
    name: &'static str,
    total_tests: usize,
    comparisons: u64,
    mismatches: u64,
}

impl Tally {
    /// Starts the tally of the test `name`, one of `total_tests` in this binary; prints the seed.
    pub fn new(name: &'static str, total_tests: usize) -> Self {
        println!(
            "differential[{name}]: seed {:#x}, iterations x{}",
            seed(),
            iters()
        );
        Self {
            name,
            total_tests,
            comparisons: 0,
            mismatches: 0,
        }
    }

    /// A deterministic RNG for this test: the run's seed mixed with the test's name (FNV-1a), so
    /// that a test's inputs do not depend on which other tests run.
    pub fn rng(&self) -> StdRng {
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed();
        for b in self.name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        StdRng::seed_from_u64(h)
    }

    /// Compares the implementation under test with the reference; counts the comparison and
    /// prints the first mismatches with `input()`. Returns whether they agreed.
    pub fn check<T: PartialEq + Debug>(
        &mut self,
        what: &str,
        ours: &T,
        theirs: &T,
        input: &dyn Fn() -> String,
    ) -> bool {
        self.comparisons += 1;
        if ours == theirs {
            return true;
        }
        self.mismatches += 1;
        if self.mismatches <= SHOWN {
            eprintln!(
                "MISMATCH [{}] {what}\n  input:  {}\n  ours:   {ours:?}\n  theirs: {theirs:?}",
                self.name,
                input()
            );
        }
        false
    }

    /// Ends the test: prints its counts and asserts that nothing mismatched.
    pub fn finish(self) {
        let (n, m) = (self.comparisons, self.mismatches);
        let name = self.name;
        drop(self);
        assert!(n > 0, "{name}: no comparison ran");
        assert_eq!(
            m, 0,
            "{name}: {m} of {n} comparisons mismatched (see stderr)"
        );
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        println!(
            "differential[{}]: {} comparisons, {} mismatches",
            self.name, self.comparisons, self.mismatches
        );
        COMPARISONS.fetch_add(self.comparisons, Ordering::SeqCst);
        MISMATCHES.fetch_add(self.mismatches, Ordering::SeqCst);
        if FINISHED.fetch_add(1, Ordering::SeqCst) + 1 == self.total_tests {
            println!(
                "differential: {} comparisons, {} mismatches",
                COMPARISONS.load(Ordering::SeqCst),
                MISMATCHES.load(Ordering::SeqCst)
            );
            println!("differential: seed {:#x}, iterations x{}", seed(), iters());
        }
    }
}
