//! Serde helpers shared by every byte-encoded type (feature `serde`).

use alloc_hex::{decode_hex, encode_hex};
use zeroize::Zeroizing;

use crate::group::ByteArray;
use crate::Result;

/// Byte view of an encoding, plain or in a zeroizing wrapper.
pub(crate) trait AsBytes {
    fn as_bytes(&self) -> &[u8];
}

impl<T: ByteArray> AsBytes for T {
    fn as_bytes(&self) -> &[u8] {
        self.as_ref()
    }
}

impl<T: ByteArray + zeroize::Zeroize> AsBytes for Zeroizing<T> {
    fn as_bytes(&self) -> &[u8] {
        (**self).as_ref()
    }
}

mod alloc_hex {
    pub(super) fn encode_hex(bytes: &[u8]) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            s.push(HEX[usize::from(b >> 4)] as char);
            s.push(HEX[usize::from(b & 15)] as char);
        }
        s
    }

    pub(super) fn decode_hex(s: &str) -> Option<Vec<u8>> {
        fn nib(c: u8) -> Option<u8> {
            match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                b'A'..=b'F' => Some(c - b'A' + 10),
                _ => None,
            }
        }
        let b = s.as_bytes();
        if b.len() % 2 != 0 {
            return None;
        }
        b.chunks_exact(2)
            .map(|p| Some(nib(p[0])? << 4 | nib(p[1])?))
            .collect()
    }
}

/// Serializes bytes as hex (human-readable formats) or as a byte string.
pub(crate) fn serialize_bytes<S: serde::Serializer>(
    bytes: &[u8],
    ser: S,
) -> Result<S::Ok, S::Error> {
    if ser.is_human_readable() {
        let hex = Zeroizing::new(encode_hex(bytes));
        ser.serialize_str(&hex)
    } else {
        ser.serialize_bytes(bytes)
    }
}

/// Deserializes hex or a byte string, then decodes it strictly with `f`.
pub(crate) fn deserialize_with<'de, D, T>(
    de: D,
    f: impl FnOnce(&[u8]) -> Result<T>,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error as _;
    if de.is_human_readable() {
        let s = Zeroizing::new(<String as serde::Deserialize>::deserialize(de)?);
        let bytes = Zeroizing::new(decode_hex(&s).ok_or_else(|| D::Error::custom("invalid hex"))?);
        f(&bytes).map_err(D::Error::custom)
    } else {
        let bytes =
            Zeroizing::new(<serde_bytes_vec::ByteBuf as serde::Deserialize>::deserialize(de)?.0);
        f(&bytes).map_err(D::Error::custom)
    }
}

mod serde_bytes_vec {
    use core::fmt;

    /// Accepts a byte string or a sequence of bytes.
    pub(super) struct ByteBuf(pub(super) Vec<u8>);

    impl<'de> serde::Deserialize<'de> for ByteBuf {
        fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = ByteBuf;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<ByteBuf, E> {
                    Ok(ByteBuf(v.to_vec()))
                }
                fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<ByteBuf, E> {
                    Ok(ByteBuf(v))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<ByteBuf, A::Error> {
                    let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                    while let Some(b) = seq.next_element::<u8>()? {
                        v.push(b);
                    }
                    Ok(ByteBuf(v))
                }
            }
            de.deserialize_bytes(V)
        }
    }
}
