//! Strict byte readers and writers for the ARC wire formats, and serde glue.

use crate::group::{Affine, Curve, Scalar};
use crate::{Error, Result};

pub(crate) use crate::wire::{debug_hex, Reader};

/// Writes fields into a caller buffer of exactly the right length.
pub(crate) struct Writer<'a> {
    out: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        Self { out, pos: 0 }
    }

    pub(crate) fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.slot(bytes.len())?.copy_from_slice(bytes);
        Ok(())
    }

    /// The next `n` bytes of the output, to be written in place.
    pub(crate) fn slot(&mut self, n: usize) -> Result<&mut [u8]> {
        let end = self.pos + n;
        let dst = self
            .out
            .get_mut(self.pos..end)
            .ok_or(Error::InvalidLength)?;
        self.pos = end;
        Ok(dst)
    }

    pub(crate) fn element<C: Curve>(&mut self, p: &Affine<C>) -> Result<()> {
        self.put(C::encode_compressed(p).as_ref())
    }

    pub(crate) fn scalar<C: Curve>(&mut self, s: &Scalar<C>) -> Result<()> {
        let mut b = C::scalar_bytes(s);
        let r = self.put(b.as_ref());
        zeroize::Zeroize::zeroize(&mut b);
        r
    }

    pub(crate) fn finish(self) -> Result<()> {
        if self.pos == self.out.len() {
            Ok(())
        } else {
            Err(Error::InvalidLength)
        }
    }
}

/// `PartialEq` and `Eq` through `subtle::ConstantTimeEq`, for bearer values.
macro_rules! eq_via_ct {
    ($t:ident < $s:ident : $bound:path >) => {
        impl<$s: $bound> PartialEq for $t<$s> {
            fn eq(&self, o: &Self) -> bool {
                subtle::ConstantTimeEq::ct_eq(self, o).into()
            }
        }

        impl<$s: $bound> Eq for $t<$s> {}
    };
    ($t:ty) => {
        impl PartialEq for $t {
            fn eq(&self, o: &Self) -> bool {
                subtle::ConstantTimeEq::ct_eq(self, o).into()
            }
        }

        impl Eq for $t {}
    };
}

pub(crate) use eq_via_ct;
