//! An RNG that counts the bytes drawn from it: a limit checked "before any work" draws none.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

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

impl rand::TryRng for CountingRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.drawn += 4;
        Ok(self.inner.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.drawn += 8;
        Ok(self.inner.next_u64())
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.drawn += dest.len();
        self.inner.fill_bytes(dest);
        Ok(())
    }
}

impl rand::TryCryptoRng for CountingRng {}
