//! Byte-level helpers shared by every wire format: a strict reader (exact lengths, big-endian
//! integers, no trailing bytes) and hex `Debug` output for public values.

use core::fmt;

use crate::group::{self, Affine, Curve, Scalar};
use crate::{Error, Result};

/// A cursor over a message; every read checks the remaining length and [`Reader::finish`]
/// rejects trailing bytes.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(Error::InvalidLength);
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }

    /// The next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// `opaque data<0..2^16-1>`: a u16 length, then that many bytes.
    pub(crate) fn u16_prefixed(&mut self) -> Result<&'a [u8]> {
        let n = self.u16()?;
        self.take(usize::from(n))
    }

    /// A compressed SEC1 element (strict; never the identity).
    pub(crate) fn element<C: Curve>(&mut self) -> Result<Affine<C>> {
        C::decode_compressed(self.take(C::COMPRESSED_LEN)?)
    }

    /// A canonical, non-zero big-endian scalar.
    pub(crate) fn nonzero_scalar<C: Curve>(&mut self) -> Result<Scalar<C>> {
        group::decode_nonzero_scalar::<C>(self.take(C::SCALAR_LEN)?)
    }

    /// The bytes not read yet (consumes the reader).
    pub(crate) fn rest(self) -> &'a [u8] {
        self.buf
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(&self) -> Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidLength)
        }
    }
}

/// `Name(hex)` for the `Debug` output of public values.
pub(crate) fn debug_hex(f: &mut fmt::Formatter<'_>, name: &str, bytes: &[u8]) -> fmt::Result {
    write!(f, "{name}(")?;
    for b in bytes {
        write!(f, "{b:02x}")?;
    }
    f.write_str(")")
}
