//! AWS-LC's RSA private operation: a private key parsed from PKCS#8 DER
//! (`EVP_parse_private_key`, then `EVP_PKEY_get1_RSA`) and the raw private operation
//! `RSA_sign_raw(..., RSA_NO_PADDING)`, `m^d mod n`, for the `rsa/awslc/...` bench and a
//! cross-check against `privacy_tokens::blind_rsa::SecretKey::blind_sign`.
//!
//! AWS-LC's private operation uses the CRT, blinds the input (its default for a key with a
//! public exponent) and verifies the result with the public exponent before answering (its
//! fault-attack check); on x86-64 it uses AVX-512 IFMA code for 2048-bit moduli where the CPU
//! has it.

use super::ffi::{check, clear_errors, error};
use super::sys;
use crate::Result;
use core::ptr::NonNull;

/// An AWS-LC `RSA` private key.
pub struct PrivateKey {
    ptr: NonNull<sys::RSA>,
}

impl PrivateKey {
    /// The key from a PKCS#8 `PrivateKeyInfo` DER (rsaEncryption), as
    /// `privacy_tokens::blind_rsa::SecretKey::to_pkcs8_der` writes it: `EVP_parse_private_key`
    /// on the whole input (trailing bytes are refused), then `EVP_PKEY_get1_RSA`.
    ///
    /// # Errors
    /// If AWS-LC does not parse the DER, it is not an RSA key, or bytes follow it.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self> {
        let mut cbs = sys::CBS {
            data: der.as_ptr(),
            len: der.len(),
        };
        clear_errors();
        // SAFETY: `cbs` points to `der`, readable for its length and alive for this call;
        // AWS-LC advances `cbs` over what it parsed and returns an owned `EVP_PKEY` or null.
        let pkey = unsafe { sys::EVP_parse_private_key(&mut cbs) };
        let pkey = NonNull::new(pkey).ok_or_else(|| error("EVP_parse_private_key"))?;
        // SAFETY: `pkey` is the live key just returned; AWS-LC returns a new reference to its
        // `RSA` (which we then own) or null for another key type.
        let rsa = unsafe { sys::EVP_PKEY_get1_RSA(pkey.as_ptr()) };
        // SAFETY: `pkey` is ours and freed exactly once, here; the `RSA` keeps its own
        // reference.
        unsafe { sys::EVP_PKEY_free(pkey.as_ptr()) };
        let ptr = NonNull::new(rsa).ok_or_else(|| error("EVP_PKEY_get1_RSA"))?;
        let key = Self { ptr };
        if cbs.len != 0 {
            return Err(crate::Error {
                library: super::LIBRARY,
                function: "EVP_parse_private_key",
                reason: format!("{} trailing bytes", cbs.len),
            });
        }
        clear_errors();
        // SAFETY: `key.ptr` is a live `RSA`; the call only reads it.
        check("RSA_check_key", unsafe {
            sys::RSA_check_key(key.ptr.as_ptr())
        })?;
        Ok(key)
    }

    /// `RSA_size`: the modulus's length in bytes.
    pub fn size(&self) -> usize {
        // SAFETY: `self.ptr` is a live `RSA`; the call only reads it.
        let size = unsafe { sys::RSA_size(self.ptr.as_ptr()) };
        size as usize
    }

    /// `RSA_sign_raw(..., RSA_NO_PADDING)`: the raw private operation `input^d mod n` into
    /// `out` (exactly [`PrivateKey::size`] bytes, big-endian), for an `input` of that length
    /// below the modulus. Writes into the caller's buffer, so that the bench times no
    /// allocation.
    ///
    /// # Errors
    /// If `input` or `out` has another length, `input` is not below the modulus, or AWS-LC's
    /// check of its result fails.
    pub fn private_op_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let mut out_len = 0usize;
        clear_errors();
        // SAFETY: `self.ptr` is a live `RSA` (AWS-LC takes it mutably to cache its Montgomery
        // contexts and blinding values under its own lock; we hold the only handle); `out` is
        // writable for `out.len()` bytes, passed as the maximum; `input` is readable for its
        // length; `out_len` is a live `usize`.
        let ret = unsafe {
            sys::RSA_sign_raw(
                self.ptr.as_ptr(),
                &mut out_len,
                out.as_mut_ptr(),
                out.len(),
                input.as_ptr(),
                input.len(),
                sys::RSA_NO_PADDING,
            )
        };
        check("RSA_sign_raw", ret)?;
        if out_len != out.len() {
            return Err(crate::Error {
                library: super::LIBRARY,
                function: "RSA_sign_raw",
                reason: format!("{out_len} bytes written into {}", out.len()),
            });
        }
        Ok(())
    }

    /// [`PrivateKey::private_op_into`] into a new buffer of [`PrivateKey::size`] bytes.
    ///
    /// # Errors
    /// As [`PrivateKey::private_op_into`].
    pub fn private_op(&self, input: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.size()];
        self.private_op_into(input, &mut out)?;
        Ok(out)
    }
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is the `RSA` reference we own; it is released exactly once, here
        // (AWS-LC wipes the private values when the last reference goes).
        unsafe { sys::RSA_free(self.ptr.as_ptr()) }
    }
}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PrivateKey")
            .field("bytes", &self.size())
            .finish_non_exhaustive()
    }
}
