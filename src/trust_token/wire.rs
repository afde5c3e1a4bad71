//! A strict reader over BoringSSL's `CBS`-style messages: big-endian integers, exact lengths.

use crate::group::{self, Affine, Curve, Scalar};
use crate::{Error, Result};

use super::{C, POINT_LEN, SCALAR_LEN};

/// A cursor over a message; every read checks the remaining length.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf }
    }

    /// The next `n` bytes (`CBS_get_bytes`).
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(Error::InvalidLength);
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N)?);
        Ok(out)
    }

    pub(crate) fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// `CBS_get_u16_length_prefixed`.
    pub(crate) fn u16_prefixed(&mut self) -> Result<&'a [u8]> {
        let n = self.u16()?;
        self.bytes(usize::from(n))
    }

    /// A 97-byte uncompressed point: on the curve, not the identity.
    pub(crate) fn point(&mut self) -> Result<Affine<C>> {
        C::decode_uncompressed(self.bytes(POINT_LEN)?)
    }

    /// A canonical 48-byte scalar (below the group order).
    pub(crate) fn scalar(&mut self) -> Result<Scalar<C>> {
        group::decode_scalar::<C>(self.bytes(SCALAR_LEN)?)
    }

    /// Fails unless every byte was read (no trailing data).
    pub(crate) fn finish(&self) -> Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidLength)
        }
    }
}
