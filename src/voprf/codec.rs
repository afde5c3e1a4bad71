//! Hex `Debug` output and serde glue for byte-encoded types.

pub(crate) use crate::wire::debug_hex;

/// Implements `Serialize`/`Deserialize` through `to_bytes`/`from_bytes`: a lowercase hex string in
/// human-readable formats, raw bytes otherwise. Deserialization is as strict as `from_bytes`.
#[cfg(feature = "serde")]
macro_rules! impl_serde_bytes {
    ($t:ident) => {
        impl<S: Suite> serde::Serialize for $t<S> {
            fn serialize<Ser: serde::Serializer>(
                &self,
                ser: Ser,
            ) -> core::result::Result<Ser::Ok, Ser::Error> {
                let bytes = self.to_bytes();
                $crate::codec::serialize_bytes($crate::codec::AsBytes::as_bytes(&bytes), ser)
            }
        }

        impl<'de, S: Suite> serde::Deserialize<'de> for $t<S> {
            fn deserialize<D: serde::Deserializer<'de>>(
                de: D,
            ) -> core::result::Result<Self, D::Error> {
                $crate::codec::deserialize_with(de, |b| Self::from_bytes(b))
            }
        }
    };
}

#[cfg(feature = "serde")]
pub(crate) use impl_serde_bytes;
