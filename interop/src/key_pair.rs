//! A serialized Trust Token key pair, as both libraries' key generation writes it.

/// A serialized Trust Token key pair, both blobs starting with the big-endian u32 key id
/// (spec §3: VOPRF 52 / 101 bytes, PMB 292 / 295, experiment v1 292 / 301).
#[derive(Clone, PartialEq, Eq)]
pub struct KeyPair {
    /// The issuer's private key blob, for `Issuer::add_key`.
    pub private: Vec<u8>,
    /// The public key blob, for `Client::add_key`.
    pub public: Vec<u8>,
}

impl core::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyPair")
            .field("private", &"<redacted>")
            .field("public", &self.public)
            .finish()
    }
}
