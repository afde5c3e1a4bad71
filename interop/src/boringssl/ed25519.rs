//! BoringSSL's Ed25519 (`ED25519_keypair_from_seed`, `ED25519_sign`): an independent signer of
//! experiment v1's signed redemption records, whose issuer-side builder BoringSSL removed.

use super::ffi::{check, clear_errors};
use super::sys;
use crate::Result;

/// An Ed25519 key pair made by BoringSSL from a 32-byte seed (RFC 8032 §5.1.5).
#[derive(Clone)]
pub struct Ed25519Key {
    /// BoringSSL's 64-byte private key: seed ‖ public key.
    private: [u8; 64],
    public: [u8; 32],
}

impl Ed25519Key {
    /// `ED25519_keypair_from_seed`.
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        let (mut private, mut public) = ([0u8; 64], [0u8; 32]);
        // SAFETY: the outputs are writable for 32 and 64 bytes and the seed readable for 32, as
        // the function's fixed-size array parameters require.
        unsafe {
            sys::ED25519_keypair_from_seed(public.as_mut_ptr(), private.as_mut_ptr(), seed.as_ptr())
        };
        Self { private, public }
    }

    /// The 32-byte public key, for `TRUST_TOKEN_CLIENT_set_srr_key` and ours.
    pub fn public_key(&self) -> [u8; 32] {
        self.public
    }

    /// `ED25519_sign`: the 64-byte signature of `message`.
    ///
    /// # Errors
    /// If BoringSSL fails (it does not).
    pub fn sign(&self, message: &[u8]) -> Result<[u8; 64]> {
        let mut signature = [0u8; 64];
        clear_errors();
        // SAFETY: `signature` is writable for 64 bytes, `message` readable for its length and
        // `self.private` is the 64-byte private key `ED25519_keypair_from_seed` made.
        let ret = unsafe {
            sys::ED25519_sign(
                signature.as_mut_ptr(),
                message.as_ptr(),
                message.len(),
                self.private.as_ptr(),
            )
        };
        check("ED25519_sign", ret)?;
        Ok(signature)
    }
}

impl core::fmt::Debug for Ed25519Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ed25519Key")
            .field("private", &"<redacted>")
            .field("public", &self.public)
            .finish()
    }
}
