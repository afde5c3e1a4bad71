//! Key generation: `TRUST_TOKEN_generate_key` and `TRUST_TOKEN_derive_key_from_secret`.

use super::ffi::{self, check, clear_errors};
use super::sys;
use crate::{KeyPair, Method, Result};
use core::ffi::c_int;

/// Buffer size for each key blob (`TRUST_TOKEN_MAX_{PRIVATE,PUBLIC}_KEY_SIZE`).
const MAX_KEY_SIZE: usize = 512;

/// Runs `call` with two `MAX_KEY_SIZE` output buffers (private, public) and their length
/// outputs, checks its return value as `function`'s, and returns the blobs it wrote.
fn with_key_buffers(
    function: &'static str,
    call: impl FnOnce(*mut u8, &mut usize, *mut u8, &mut usize) -> c_int,
) -> Result<KeyPair> {
    let mut private = vec![0u8; MAX_KEY_SIZE];
    let mut public = vec![0u8; MAX_KEY_SIZE];
    let (mut private_len, mut public_len) = (0usize, 0usize);
    clear_errors();
    let ret = call(
        private.as_mut_ptr(),
        &mut private_len,
        public.as_mut_ptr(),
        &mut public_len,
    );
    check(function, ret)?;
    private.truncate(private_len);
    public.truncate(public_len);
    Ok(KeyPair { private, public })
}

/// `TRUST_TOKEN_generate_key`: a fresh random key pair with key id `id`.
///
/// # Errors
/// If the library fails (it does not for valid methods).
pub fn generate_key(method: Method, id: u32) -> Result<KeyPair> {
    with_key_buffers(
        "TRUST_TOKEN_generate_key",
        |private, private_len, public, public_len| {
            // Both output buffers are writable for `MAX_KEY_SIZE` bytes, which is passed as their
            // maximum; the length outputs are valid `size_t` locations; the method is static.
            // SAFETY: every pointer is valid for what the call writes or reads (above).
            unsafe {
                sys::TRUST_TOKEN_generate_key(
                    ffi::method(method),
                    private,
                    private_len,
                    MAX_KEY_SIZE,
                    public,
                    public_len,
                    MAX_KEY_SIZE,
                    id,
                )
            }
        },
    )
}

/// `TRUST_TOKEN_derive_key_from_secret`: the key pair the library derives deterministically from
/// `secret`, with key id `id`.
///
/// # Errors
/// If the library fails (e.g. for `experiment_v1`-style failures of the derivation).
pub fn derive_key_from_secret(method: Method, id: u32, secret: &[u8]) -> Result<KeyPair> {
    with_key_buffers(
        "TRUST_TOKEN_derive_key_from_secret",
        |private, private_len, public, public_len| {
            // SAFETY: as in `generate_key`; `secret` is readable for `secret.len()` bytes.
            unsafe {
                sys::TRUST_TOKEN_derive_key_from_secret(
                    ffi::method(method),
                    private,
                    private_len,
                    MAX_KEY_SIZE,
                    public,
                    public_len,
                    MAX_KEY_SIZE,
                    id,
                    secret.as_ptr(),
                    secret.len(),
                )
            }
        },
    )
}
