//! Hex `Debug` output for byte-encoded types.

pub(crate) use crate::wire::debug_hex;
