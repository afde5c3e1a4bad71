//! Serde helpers shared by every byte-encoded type (feature `serde`).

use alloc_hex::{decode_hex_into, encode_hex};
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

/// Hex in constant time: no branch on and no table indexed by a nibble (keys and client states
/// go through here). Only the length and whether the whole string is valid hex are revealed.
mod alloc_hex {
    /// The lowercase hex digit of a nibble: `'0' + n`, plus `'a' - '0' - 10` when `n > 9`
    /// (the mask from the sign of `9 - n`).
    #[inline]
    fn hex_digit(n: u8) -> u8 {
        let n = i16::from(n);
        let above_nine = (9 - n) >> 8; // -1 when n > 9, else 0
        (n + 0x30 + (above_nine & 0x27)) as u8
    }

    pub(super) fn encode_hex(bytes: &[u8]) -> String {
        let mut s = Vec::with_capacity(bytes.len() * 2);
        for &b in bytes {
            s.push(hex_digit(b >> 4));
            s.push(hex_digit(b & 15));
        }
        // Every byte pushed is an ASCII hex digit.
        String::from_utf8(s).unwrap_or_default()
    }

    /// The value of a hex digit (either case), or -1: each range check is a mask from the sign
    /// of two differences, added in without a branch.
    #[inline]
    fn nibble(c: u8) -> i16 {
        let c = i16::from(c);
        let in_range = |lo: i16, hi: i16| ((lo - 1 - c) & (c - hi - 1)) >> 8; // -1 when lo <= c <= hi
        -1 + (in_range(0x30, 0x39) & (c - 0x30 + 1))
            + (in_range(0x41, 0x46) & (c - 0x41 + 11))
            + (in_range(0x61, 0x66) & (c - 0x61 + 11))
    }

    /// Decodes into `out` (cleared first, capacity reserved exactly once, so no copy of the
    /// secret is left behind by a regrowth). `None` if the string is not hex.
    pub(super) fn decode_hex_into(s: &str, out: &mut Vec<u8>) -> Option<()> {
        let b = s.as_bytes();
        if !b.len().is_multiple_of(2) {
            return None;
        }
        out.clear();
        out.reserve_exact(b.len() / 2);
        let mut bad = 0i16;
        for p in b.chunks_exact(2) {
            let (hi, lo) = (nibble(p[0]), nibble(p[1]));
            bad |= hi | lo;
            out.push(((hi << 4) | lo) as u8);
        }
        // `bad` is negative iff some digit was invalid.
        (bad >= 0).then_some(())
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn round_trips_every_byte_and_rejects_non_hex() {
            let all: Vec<u8> = (0..=255).collect();
            let hex = super::encode_hex(&all);
            let mut expect = String::new();
            for b in &all {
                expect.push_str(&format!("{b:02x}"));
            }
            assert_eq!(hex, expect);
            let mut out = Vec::new();
            assert_eq!(super::decode_hex_into(&hex, &mut out), Some(()));
            assert_eq!(out, all);
            assert_eq!(
                super::decode_hex_into(&hex.to_uppercase(), &mut out),
                Some(())
            );
            assert_eq!(out, all);
            for c in 0..=255u8 {
                let valid = c.is_ascii_hexdigit();
                let s = [b'0', c];
                let s = core::str::from_utf8(&s);
                if let Ok(s) = s {
                    assert_eq!(
                        super::decode_hex_into(s, &mut out).is_some(),
                        valid,
                        "{c:#x}"
                    );
                }
            }
            assert!(super::decode_hex_into("abc", &mut out).is_none());
        }
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
    let bytes = if de.is_human_readable() {
        de.deserialize_str(serde_bytes_vec::HexVisitor)?
    } else {
        de.deserialize_bytes(serde_bytes_vec::BytesVisitor)?
    };
    f(&bytes).map_err(D::Error::custom)
}

/// Visitors that decode straight into one wiped buffer: exact capacity for hex strings, and for
/// byte sequences every regrowth wipes the buffer it leaves (no prefix of a secret is freed
/// unwiped).
mod serde_bytes_vec {
    use core::fmt;

    use zeroize::{Zeroize, Zeroizing};

    /// A hex string (borrowed or owned), decoded in constant time.
    pub(super) struct HexVisitor;

    impl<'de> serde::de::Visitor<'de> for HexVisitor {
        type Value = Zeroizing<Vec<u8>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a hex string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            let mut out = Zeroizing::new(Vec::new());
            super::decode_hex_into(v, &mut out).ok_or_else(|| E::custom("invalid hex"))?;
            Ok(out)
        }
        fn visit_string<E: serde::de::Error>(self, mut v: String) -> Result<Self::Value, E> {
            let out = self.visit_str(&v);
            v.zeroize();
            out
        }
    }

    /// A byte string or a sequence of bytes.
    pub(super) struct BytesVisitor;

    impl<'de> serde::de::Visitor<'de> for BytesVisitor {
        type Value = Zeroizing<Vec<u8>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("bytes")
        }
        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
            Ok(Zeroizing::new(v.to_vec()))
        }
        fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
            Ok(Zeroizing::new(v))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            // The hint comes from the input: trust it only up to 4096 bytes.
            let mut v = Zeroizing::new(Vec::with_capacity(
                seq.size_hint().unwrap_or(0).clamp(16, 4096),
            ));
            while let Some(b) = seq.next_element::<u8>()? {
                if v.len() == v.capacity() {
                    let mut grown = Vec::with_capacity(v.capacity() * 2);
                    grown.extend_from_slice(&v);
                    // The old buffer is wiped when `Zeroizing` drops it.
                    v = Zeroizing::new(grown);
                }
                v.push(b);
            }
            Ok(v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Encoding;
    use hybrid_array::Array;

    /// Every owning encoding is all zeros after `wipe` (what `Wiped` runs when a serialized
    /// secret's bytes are dropped); the bytes are those given before.
    #[test]
    fn wipe_zeroes_owned_encodings() {
        fn check<T: Encoding>(mut e: T, len: usize) {
            assert_eq!(e.bytes(), &vec![0xa5; len][..]);
            e.wipe();
            assert!(e.bytes().iter().all(|&b| b == 0));
        }
        check(Array::<u8, hybrid_array::sizes::U33>::from([0xa5; 33]), 33);
        check([0xa5u8; 7], 7);
        check(vec![0xa5u8; 9], 9);
        // A wrapper that wipes itself on drop and a borrow are left as they are.
        let mut z = zeroize::Zeroizing::new(vec![0xa5u8; 3]);
        z.wipe();
        assert_eq!(z.bytes(), &[0xa5; 3]);
        let owned = [0xa5u8; 2];
        let mut b: &[u8] = &owned;
        b.wipe();
        assert_eq!(b.bytes(), &[0xa5; 2]);
    }

    /// `Wiped` runs the encoding's `wipe` when it is dropped, once.
    #[test]
    fn wiped_wipes_on_drop() {
        use std::cell::Cell;
        struct Counted<'a>(&'a Cell<u32>);
        impl Encoding for Counted<'_> {
            fn bytes(&self) -> &[u8] {
                &[]
            }
            fn wipe(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let wipes = Cell::new(0);
        drop(super::Wiped(Counted(&wipes)));
        assert_eq!(wipes.get(), 1);
    }

    /// Hex decoding reserves the output exactly once and refuses a pair of two invalid
    /// digits (the error flags of both digits are ORed, not XORed: two negative flags XOR to
    /// a non-negative one).
    #[test]
    fn hex_decoding_reserves_once_and_flags_every_bad_digit() {
        use super::alloc_hex::decode_hex_into;
        let mut out = Vec::new();
        assert_eq!(decode_hex_into("00ff10a5c3", &mut out), Some(()));
        assert_eq!(out, [0x00, 0xff, 0x10, 0xa5, 0xc3]);
        assert_eq!(out.capacity(), 5);
        for bad in ["zz", "g0", "0g", "--", "\u{7f}\u{7f}", "0a zz"] {
            assert_eq!(decode_hex_into(bad, &mut out), None, "{bad:?}");
        }
    }

    /// A deserializer that hands its bytes to `visit_byte_buf` (serde has none built in).
    struct ByteBuf(Vec<u8>);

    impl<'de> serde::Deserializer<'de> for ByteBuf {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            v: V,
        ) -> Result<V::Value, Self::Error> {
            v.visit_byte_buf(self.0)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
            identifier ignored_any
        }
    }

    /// Each visitor method of the byte decoders, driven by serde's own deserializers: the
    /// bytes come out as given, a sequence's buffer has the capacity of its (exact) length
    /// hint or its doublings past 4096, and a wrong type names what was expected.
    #[test]
    fn byte_visitors_decode_each_form() {
        use super::serde_bytes_vec::{BytesVisitor, HexVisitor};
        use serde::de::value::{BytesDeserializer, Error, SeqDeserializer, StringDeserializer};
        use serde::de::{Deserializer, IntoDeserializer};
        let hex = StringDeserializer::<Error>::new("0a0bff".to_string());
        assert_eq!(
            *hex.deserialize_string(HexVisitor).unwrap(),
            [0x0a, 0x0b, 0xff]
        );
        let bad = StringDeserializer::<Error>::new("0x".to_string());
        assert!(bad.deserialize_string(HexVisitor).is_err());
        let bytes = BytesDeserializer::<Error>::new(&[1, 2, 3]);
        assert_eq!(*bytes.deserialize_bytes(BytesVisitor).unwrap(), [1, 2, 3]);
        assert_eq!(
            *ByteBuf(vec![4, 5])
                .deserialize_byte_buf(BytesVisitor)
                .unwrap(),
            [4, 5]
        );
        for n in [0usize, 3, 20, 5000] {
            let v: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let seq = SeqDeserializer::<_, Error>::new(v.clone().into_iter());
            let got = seq.deserialize_seq(BytesVisitor).unwrap();
            assert_eq!(*got, v);
            let want = match n {
                0..=16 => 16,
                17..=4096 => n,
                _ => 8192,
            };
            assert_eq!(got.capacity(), want, "{n} bytes");
        }
        let int = IntoDeserializer::<Error>::into_deserializer(7u32);
        let e = int.deserialize_any(HexVisitor).unwrap_err().to_string();
        assert!(e.contains("a hex string"), "{e}");
        let int = IntoDeserializer::<Error>::into_deserializer(7u32);
        let e = int.deserialize_any(BytesVisitor).unwrap_err().to_string();
        assert!(e.ends_with("expected bytes"), "{e}");
    }
}
