//! The Trust Token point and scalar codecs: BoringSSL's `CBS`-style reads on the crate's shared
//! [`Reader`](crate::wire::Reader) (97-byte uncompressed points, 48-byte scalars) and the
//! matching writes.

use crate::group::{self, Affine, Curve, Scalar};
use crate::Result;

pub(crate) use crate::wire::Reader;

use super::{Method, C, POINT_LEN, SCALAR_LEN};

/// Trust Token field reads.
pub(crate) trait TokenReader {
    /// A 97-byte uncompressed point: on the curve, not the identity.
    fn point(&mut self) -> Result<Affine<C>>;
    /// A point in the method's wire form: 97 bytes, or `u16(97) ‖ 97 bytes` for
    /// `experiment_v1` (`cbs_get_prefixed_point`).
    fn wire_point(&mut self, method: Method) -> Result<Affine<C>>;
    /// A canonical 48-byte scalar (below the group order).
    fn scalar(&mut self) -> Result<Scalar<C>>;
}

impl TokenReader for Reader<'_> {
    fn point(&mut self) -> Result<Affine<C>> {
        C::decode_uncompressed(self.take(POINT_LEN)?)
    }

    fn wire_point(&mut self, method: Method) -> Result<Affine<C>> {
        if method.is_legacy() {
            C::decode_uncompressed(self.u16_prefixed()?)
        } else {
            self.point()
        }
    }

    fn scalar(&mut self) -> Result<Scalar<C>> {
        group::decode_scalar::<C>(self.take(SCALAR_LEN)?)
    }
}

/// Appends a point in the method's wire form (with the u16 prefix for `experiment_v1`).
pub(crate) fn put_point(out: &mut Vec<u8>, method: Method, p: &Affine<C>) {
    if method.is_legacy() {
        out.extend_from_slice(&(POINT_LEN as u16).to_be_bytes());
    }
    out.extend_from_slice(&encode_point(p));
}

/// Decodes one wire point of exactly [`Method::point_len`] bytes.
pub(crate) fn decode_wire_point(method: Method, bytes: &[u8]) -> Result<Affine<C>> {
    let mut r = Reader::new(bytes);
    let p = r.wire_point(method)?;
    r.finish()?;
    Ok(p)
}

/// The 97-byte uncompressed encoding of a point.
pub(crate) fn encode_point(p: &Affine<C>) -> [u8; POINT_LEN] {
    let mut out = [0u8; POINT_LEN];
    out.copy_from_slice(C::encode_uncompressed(p).as_ref());
    out
}
