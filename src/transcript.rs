//! Allocation-free, length-prefixed hashing.
//!
//! Protocol hashes are built from pieces `I2OSP(len, 2) || bytes`. The prefix lives in a 2-byte
//! stack array and the pieces stream into the digest (or into `expand_message_xmd` as separate
//! slices); nothing is concatenated into a buffer.

use sha2::digest::Digest;

use crate::{Error, Result};

/// `I2OSP(len, 2)`.
///
/// # Errors
/// [`Error::InputTooLong`] when `len >= 2^16`.
#[inline]
pub fn len_prefix(len: usize) -> Result<[u8; 2]> {
    u16::try_from(len)
        .map(u16::to_be_bytes)
        .map_err(|_| Error::InputTooLong)
}

/// A streaming transcript over a digest.
#[derive(Clone, Debug, Default)]
pub struct Transcript<H: Digest> {
    hash: H,
}

impl<H: Digest> Transcript<H> {
    /// A fresh transcript.
    pub fn new() -> Self {
        Self { hash: H::new() }
    }

    /// Absorbs `I2OSP(len(bytes), 2) || bytes`.
    ///
    /// # Errors
    /// [`Error::InputTooLong`] when `bytes` is 2^16 bytes or longer.
    #[inline]
    pub fn absorb_prefixed(&mut self, bytes: &[u8]) -> Result<&mut Self> {
        let p = len_prefix(bytes.len())?;
        self.hash.update(p);
        self.hash.update(bytes);
        Ok(self)
    }

    /// Absorbs raw bytes.
    #[inline]
    pub fn absorb(&mut self, bytes: &[u8]) -> &mut Self {
        self.hash.update(bytes);
        self
    }

    /// The digest of everything absorbed.
    pub fn finish(self) -> sha2::digest::Output<H> {
        self.hash.finalize()
    }
}
