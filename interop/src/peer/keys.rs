//! Key generation: `TRUST_TOKEN_generate_key` and `TRUST_TOKEN_derive_key_from_secret`.

use super::ffi::{self, check, clear_errors};
use super::sys;
use crate::{KeyPair, Method, Result};

/// Buffer size for each key blob (`TRUST_TOKEN_MAX_{PRIVATE,PUBLIC}_KEY_SIZE`).
const MAX_KEY_SIZE: usize = 512;

/// `TRUST_TOKEN_generate_key`: a fresh random key pair with key id `id`.
///
/// # Errors
/// If the library fails (it does not for valid methods).
pub fn generate_key(method: Method, id: u32) -> Result<KeyPair> {
    let mut private = vec![0u8; MAX_KEY_SIZE];
    let mut public = vec![0u8; MAX_KEY_SIZE];
    let (mut private_len, mut public_len) = (0usize, 0usize);
    clear_errors();
    // SAFETY: both output buffers are writable for `MAX_KEY_SIZE` bytes, which is passed as their
    // maximum; the length outputs are valid `size_t` locations; the method is a static table.
    let ret = unsafe {
        sys::TRUST_TOKEN_generate_key(
            ffi::method(method),
            private.as_mut_ptr(),
            &mut private_len,
            private.len(),
            public.as_mut_ptr(),
            &mut public_len,
            public.len(),
            id,
        )
    };
    check("TRUST_TOKEN_generate_key", ret)?;
    private.truncate(private_len);
    public.truncate(public_len);
    Ok(KeyPair { private, public })
}

/// `TRUST_TOKEN_derive_key_from_secret`: the key pair the library derives deterministically from
/// `secret`, with key id `id`.
///
/// # Errors
/// If the library fails (e.g. for `experiment_v1`-style failures of the derivation).
pub fn derive_key_from_secret(method: Method, id: u32, secret: &[u8]) -> Result<KeyPair> {
    let mut private = vec![0u8; MAX_KEY_SIZE];
    let mut public = vec![0u8; MAX_KEY_SIZE];
    let (mut private_len, mut public_len) = (0usize, 0usize);
    clear_errors();
    // SAFETY: as in `generate_key`; `secret` is readable for `secret.len()` bytes.
    let ret = unsafe {
        sys::TRUST_TOKEN_derive_key_from_secret(
            ffi::method(method),
            private.as_mut_ptr(),
            &mut private_len,
            private.len(),
            public.as_mut_ptr(),
            &mut public_len,
            public.len(),
            id,
            secret.as_ptr(),
            secret.len(),
        )
    };
    check("TRUST_TOKEN_derive_key_from_secret", ret)?;
    private.truncate(private_len);
    public.truncate(public_len);
    Ok(KeyPair { private, public })
}
