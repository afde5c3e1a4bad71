//! Helpers that turn the library's outputs into owned Rust values and its failures into
//! [`Error`], and its method tables.

use super::{sys, LIBRARY};
use crate::{Error, Method};
use core::ffi::c_int;

/// The library's `const TRUST_TOKEN_METHOD *` for `method`.
pub(crate) fn method(method: Method) -> *const sys::TRUST_TOKEN_METHOD {
    // SAFETY: these functions take no arguments and return a pointer to a static, immutable
    // method table that lives for the whole program.
    unsafe {
        match method {
            Method::ExperimentV1 => sys::TRUST_TOKEN_experiment_v1(),
            Method::ExperimentV2Voprf => sys::TRUST_TOKEN_experiment_v2_voprf(),
            Method::ExperimentV2Pmb => sys::TRUST_TOKEN_experiment_v2_pmb(),
            Method::PstV1Voprf => sys::TRUST_TOKEN_pst_v1_voprf(),
            Method::PstV1Pmb => sys::TRUST_TOKEN_pst_v1_pmb(),
        }
    }
}

/// Clears the library's thread-local error queue, so that a later failure reports its own
/// reason.
pub(crate) fn clear_errors() {
    // SAFETY: `ERR_clear_error` only touches this thread's error queue.
    unsafe { sys::ERR_clear_error() }
}

/// Maps the `1` (success) / `0` (failure) return convention to a `Result`.
pub(crate) fn check(function: &'static str, ret: c_int) -> Result<(), Error> {
    if ret == 1 {
        Ok(())
    } else {
        Err(error(function))
    }
}

/// Builds an [`Error`] for `function` from the first entry of the error queue, then clears it.
pub(crate) fn error(function: &'static str) -> Error {
    // SAFETY: `ERR_get_error` pops from this thread's error queue; no pointers are involved.
    let code = unsafe { sys::ERR_get_error() };
    let reason = if code == 0 {
        "no error queued".to_owned()
    } else {
        let mut buf = [0u8; 256];
        // SAFETY: `buf` is writable for `buf.len()` bytes, and `ERR_error_string_n` writes at
        // most that many bytes, always NUL-terminated.
        unsafe { sys::ERR_error_string_n(code, buf.as_mut_ptr().cast(), buf.len()) };
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    };
    clear_errors();
    Error {
        library: LIBRARY,
        function,
        reason,
    }
}

/// Copies a buffer the library allocated into a `Vec` and frees it with its `OPENSSL_free`.
///
/// # Safety
/// `ptr` must be null or a buffer allocated by this library (`OPENSSL_malloc`) holding at least
/// `len` initialized bytes, owned by the caller and not used again after this call.
pub(crate) unsafe fn take_buffer(ptr: *mut u8, len: usize) -> Vec<u8> {
    if ptr.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller guarantees `ptr` points to `len` initialized bytes.
    let out = unsafe { core::slice::from_raw_parts(ptr, len) }.to_vec();
    // SAFETY: the caller hands over ownership of an allocation of this library, freed exactly
    // once, by the same library's allocator.
    unsafe { sys::OPENSSL_free(ptr.cast()) };
    out
}

/// Copies the bytes of a `TRUST_TOKEN` and frees it with the library's `TRUST_TOKEN_free`.
///
/// # Safety
/// `token` must be null or a live `TRUST_TOKEN` of this library, owned by the caller and not
/// used again after this call.
pub(crate) unsafe fn take_token(token: *mut sys::TRUST_TOKEN) -> Vec<u8> {
    if token.is_null() {
        return Vec::new();
    }
    // SAFETY: a live `TRUST_TOKEN` owns `len` bytes at `data` (caller contract).
    let bytes = unsafe {
        let t = &*token;
        if t.data.is_null() {
            Vec::new()
        } else {
            core::slice::from_raw_parts(t.data, t.len).to_vec()
        }
    };
    // SAFETY: the caller hands over the token; it is freed exactly once, and not read again.
    unsafe { sys::TRUST_TOKEN_free(token) };
    bytes
}

/// Copies every token of a `STACK_OF(TRUST_TOKEN)` into a `Vec` and frees the stack and its
/// tokens (what the inline `sk_TRUST_TOKEN_pop_free(stack, TRUST_TOKEN_free)` does).
///
/// # Safety
/// `stack` must be null or a `STACK_OF(TRUST_TOKEN)` returned by this library, owned by the
/// caller and not used again after this call.
pub(crate) unsafe fn take_token_stack(stack: *mut sys::stack_st_TRUST_TOKEN) -> Vec<Vec<u8>> {
    if stack.is_null() {
        return Vec::new();
    }
    let stack = stack.cast::<sys::OPENSSL_STACK>();
    // SAFETY: `stack` is a valid stack (caller contract); `STACK_OF(T)` is an `OPENSSL_STACK`.
    let n = unsafe { sys::OPENSSL_sk_num(stack) };
    let mut tokens = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: `i < n`, so the element exists; every element is a `TRUST_TOKEN *`.
        let token = unsafe { sys::OPENSSL_sk_value(stack, i) }.cast::<sys::TRUST_TOKEN>();
        if token.is_null() {
            continue;
        }
        // SAFETY: the stack owns each token; each is taken (copied and freed) exactly once, and
        // the stack is not read again after the loop.
        tokens.push(unsafe { take_token(token) });
    }
    // SAFETY: all elements have been freed above; this frees the stack itself, once.
    unsafe { sys::OPENSSL_sk_free(stack) };
    tokens
}
