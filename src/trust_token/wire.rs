//! BoringSSL's `CBS`-style reads specific to Trust Tokens, on the crate's shared
//! [`Reader`](crate::wire::Reader): 97-byte uncompressed points and 48-byte scalars.

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
