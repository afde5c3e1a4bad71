//! An RNG that counts the bytes drawn from it: a limit checked "before any work" draws none.

use rand::rngs::StdRng;
use rand::{CryptoRng, RngCore, SeedableRng};

/// A seeded `StdRng` that counts the bytes drawn.
pub struct CountingRng {
    inner: StdRng,
    /// Bytes drawn so far.
    pub drawn: usize,
}

impl CountingRng {
    pub fn new(seed: u64) -> Self {
        Self {
            inner: StdRng::seed_from_u64(seed),
            drawn: 0,
        }
    }
}

impl RngCore for CountingRng {
    fn next_u32(&mut self) -> u32 {
        self.drawn += 4;
        self.inner.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.drawn += 8;
        self.inner.next_u64()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.drawn += dest.len();
        self.inner.fill_bytes(dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoRng for CountingRng {}
