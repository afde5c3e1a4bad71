//! Serde helpers shared by every byte-encoded type (feature `serde`).

use alloc_hex::{decode_hex, encode_hex};
use zeroize::Zeroizing;

use crate::group::ByteArray;
use crate::Result;

/// What a `to_bytes` returns: a fixed array, a `Vec`, or either in a zeroizing wrapper.
pub(crate) trait Encoding {
    /// The bytes.
    fn bytes(&self) -> &[u8];
    /// Overwrites the bytes with zeros (a no-op where the wrapper already does it).
    fn wipe(&mut self);
}

impl<T: ByteArray> Encoding for T {
    fn bytes(&self) -> &[u8] {
        self.as_ref()
    }
    fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(self.as_mut());
    }
}

impl<const N: usize> Encoding for [u8; N] {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(self);
    }
}

impl Encoding for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(self);
    }
}

/// A borrowed encoding (of a public value): nothing was copied, so nothing is wiped.
impl Encoding for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn wipe(&mut self) {}
}

impl<T: Encoding + zeroize::Zeroize> Encoding for Zeroizing<T> {
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }
    fn wipe(&mut self) {}
}

/// Holds an encoding while it is serialized and wipes it afterwards (secret types serialize
/// through the same path as public ones).
pub(crate) struct Wiped<T: Encoding>(pub(crate) T);

impl<T: Encoding> Drop for Wiped<T> {
    fn drop(&mut self) {
        self.0.wipe();
    }
}

/// Implements `Serialize`/`Deserialize` through `to_bytes`/`from_bytes`: a lowercase hex string
/// in human-readable formats, raw bytes otherwise. Deserialization is as strict as
/// `from_bytes`. `serde_via_bytes!(Type)` or `serde_via_bytes!(Type<S: Bound>)`;
/// `serde_via_bytes!(Type, encode, decode)` names the functions instead (`encode(&Type)` returns
/// an encoding, `decode(&[u8])` a `Result<Type>`).
macro_rules! serde_via_bytes {
    ($t:ty, $encode:expr, $decode:expr) => {
        impl serde::Serialize for $t {
            fn serialize<Ser: serde::Serializer>(
                &self,
                ser: Ser,
            ) -> core::result::Result<Ser::Ok, Ser::Error> {
                let bytes = $crate::codec::Wiped($encode(self));
                $crate::codec::serialize_bytes($crate::codec::Encoding::bytes(&bytes.0), ser)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(
                de: D,
            ) -> core::result::Result<Self, D::Error> {
                $crate::codec::deserialize_with(de, $decode)
            }
        }
    };
    ($t:ident < $s:ident : $bound:path >) => {
        impl<$s: $bound> serde::Serialize for $t<$s> {
            fn serialize<Ser: serde::Serializer>(
                &self,
                ser: Ser,
            ) -> core::result::Result<Ser::Ok, Ser::Error> {
                let bytes = $crate::codec::Wiped(self.to_bytes());
                $crate::codec::serialize_bytes($crate::codec::Encoding::bytes(&bytes.0), ser)
            }
        }

        impl<'de, $s: $bound> serde::Deserialize<'de> for $t<$s> {
            fn deserialize<D: serde::Deserializer<'de>>(
                de: D,
            ) -> core::result::Result<Self, D::Error> {
                $crate::codec::deserialize_with(de, |b| Self::from_bytes(b))
            }
        }
    };
    ($t:ty) => {
        $crate::codec::serde_via_bytes!($t, <$t>::to_bytes, <$t>::from_bytes);
    };
}

pub(crate) use serde_via_bytes;

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
