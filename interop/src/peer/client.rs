//! The client: `TRUST_TOKEN_CLIENT_*`.

use super::ffi::{self, check, clear_errors, error, take_buffer, take_token_stack};
use super::sys;
use crate::{Method, Result};
use core::ptr::{self, NonNull};

/// A `TRUST_TOKEN_CLIENT`: holds public keys and, between [`Client::begin_issuance`] and
/// [`Client::finish_issuance`], the pretokens (blinds) of one issuance.
pub struct Client {
    pub(super) ptr: NonNull<sys::TRUST_TOKEN_CLIENT>,
    pub(super) method: Method,
}

impl Client {
    /// `TRUST_TOKEN_CLIENT_new` with a maximum batch size of `max_batchsize` (≤ 0xffff).
    ///
    /// # Errors
    /// If `max_batchsize` is too large or allocation fails.
    pub fn new(method: Method, max_batchsize: usize) -> Result<Self> {
        clear_errors();
        // SAFETY: the method is a static table; the library returns an owned client or null.
        let ptr = unsafe { sys::TRUST_TOKEN_CLIENT_new(ffi::method(method), max_batchsize) };
        let ptr = NonNull::new(ptr).ok_or_else(|| error("TRUST_TOKEN_CLIENT_new"))?;
        Ok(Self { ptr, method })
    }

    /// The client's method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// `TRUST_TOKEN_CLIENT_add_key`: adds a public key blob (u32 id ‖ key); returns its index.
    ///
    /// # Errors
    /// If the blob does not parse or the method's `max_keys` are already configured.
    pub fn add_key(&mut self, public_key: &[u8]) -> Result<usize> {
        let mut index = 0usize;
        clear_errors();
        // SAFETY: `self.ptr` is a live client we own exclusively; `public_key` is readable for
        // its length; `index` is a valid output location.
        let ret = unsafe {
            sys::TRUST_TOKEN_CLIENT_add_key(
                self.ptr.as_ptr(),
                &mut index,
                public_key.as_ptr(),
                public_key.len(),
            )
        };
        check("TRUST_TOKEN_CLIENT_add_key", ret)?;
        Ok(index)
    }

    /// `TRUST_TOKEN_CLIENT_set_srr_key` with the Ed25519 public key `public_key` (32 bytes,
    /// made an `EVP_PKEY` by `EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, ...)`): the key
    /// that verifies experiment v1's signed redemption records. The library ignores it for the
    /// other methods.
    ///
    /// # Errors
    /// If the key is not 32 bytes (the library does not check that the bytes are a point).
    pub fn set_srr_key(&mut self, public_key: &[u8]) -> Result<()> {
        clear_errors();
        // SAFETY: `public_key` is readable for its length; the library copies it into a new owned
        // `EVP_PKEY` (or returns null); no engine is passed.
        let pkey = unsafe {
            sys::EVP_PKEY_new_raw_public_key(
                sys::EVP_PKEY_ED25519,
                ptr::null_mut(),
                public_key.as_ptr(),
                public_key.len(),
            )
        };
        if pkey.is_null() {
            return Err(error("EVP_PKEY_new_raw_public_key"));
        }
        // SAFETY: `self.ptr` is a live client we own exclusively; `pkey` is a live key, which
        // the client takes its own reference to (`EVP_PKEY_dup_ref` in BoringSSL,
        // `EVP_PKEY_up_ref` in AWS-LC, whose parameter is not `const`: it only bumps the count).
        let ret = unsafe { sys::TRUST_TOKEN_CLIENT_set_srr_key(self.ptr.as_ptr(), pkey) };
        // SAFETY: `pkey` was created above and our reference is released exactly once.
        unsafe { sys::EVP_PKEY_free(pkey) };
        check("TRUST_TOKEN_CLIENT_set_srr_key", ret)
    }

    /// `TRUST_TOKEN_CLIENT_begin_issuance`: blinds `count` fresh nonces (truncated to the
    /// client's `max_batchsize`) and returns the issue request (u16 count ‖ points).
    ///
    /// # Errors
    /// If the library fails, e.g. when an issuance is already pending.
    pub fn begin_issuance(&mut self, count: usize) -> Result<Vec<u8>> {
        let (mut out, mut out_len) = (ptr::null_mut(), 0usize);
        clear_errors();
        // SAFETY: `self.ptr` is a live client we own exclusively; `out`/`out_len` are valid
        // output locations; on success `out` is a buffer of the library we now own.
        let ret = unsafe {
            sys::TRUST_TOKEN_CLIENT_begin_issuance(self.ptr.as_ptr(), &mut out, &mut out_len, count)
        };
        check("TRUST_TOKEN_CLIENT_begin_issuance", ret)?;
        // SAFETY: on success `out` holds `out_len` bytes allocated by the library, owned by us.
        Ok(unsafe { take_buffer(out, out_len) })
    }

    /// `TRUST_TOKEN_CLIENT_begin_issuance_over_message`: as [`Client::begin_issuance`], with
    /// each nonce t = SHA-512(salt ‖ `msg`).
    ///
    /// # Errors
    /// If the library fails.
    pub fn begin_issuance_over_message(&mut self, count: usize, msg: &[u8]) -> Result<Vec<u8>> {
        let (mut out, mut out_len) = (ptr::null_mut(), 0usize);
        clear_errors();
        // SAFETY: as in `begin_issuance`; `msg` is readable for its length.
        let ret = unsafe {
            sys::TRUST_TOKEN_CLIENT_begin_issuance_over_message(
                self.ptr.as_ptr(),
                &mut out,
                &mut out_len,
                count,
                msg.as_ptr(),
                msg.len(),
            )
        };
        check("TRUST_TOKEN_CLIENT_begin_issuance_over_message", ret)?;
        // SAFETY: on success `out` holds `out_len` bytes allocated by the library, owned by us.
        Ok(unsafe { take_buffer(out, out_len) })
    }

    /// `TRUST_TOKEN_CLIENT_finish_issuance`: verifies the issuer's response and unblinds the
    /// tokens. Returns the index of the signing key and the tokens
    /// (u32 key id ‖ 64-byte salt ‖ points).
    ///
    /// # Errors
    /// If the response does not parse, names an unknown key, or its proof fails. The library
    /// reports failure as a null stack; an empty stack counts as failure too.
    pub fn finish_issuance(&mut self, response: &[u8]) -> Result<(usize, Vec<Vec<u8>>)> {
        let mut index = 0usize;
        clear_errors();
        // SAFETY: `self.ptr` is a live client we own exclusively; `response` is readable for its
        // length; the returned stack (or null) is owned by us.
        let stack = unsafe {
            sys::TRUST_TOKEN_CLIENT_finish_issuance(
                self.ptr.as_ptr(),
                &mut index,
                response.as_ptr(),
                response.len(),
            )
        };
        if stack.is_null() {
            return Err(error("TRUST_TOKEN_CLIENT_finish_issuance"));
        }
        // SAFETY: `stack` is a non-null stack the library handed over to us; used once.
        let tokens = unsafe { take_token_stack(stack) };
        if tokens.is_empty() {
            return Err(error("TRUST_TOKEN_CLIENT_finish_issuance"));
        }
        Ok((index, tokens))
    }

    /// `TRUST_TOKEN_CLIENT_begin_redemption`: the redemption request for `token` with
    /// `client_data` (u16 len ‖ token ‖ u16 len ‖ data; experiment v1 appends u64 `time`).
    ///
    /// # Errors
    /// If the library fails (e.g. lengths over 0xffff).
    pub fn begin_redemption(
        &mut self,
        token: &[u8],
        client_data: &[u8],
        time: u64,
    ) -> Result<Vec<u8>> {
        clear_errors();
        // SAFETY: `token` is readable for its length; the library copies it into a new owned
        // `TRUST_TOKEN` (or returns null).
        let tt = unsafe { sys::TRUST_TOKEN_new(token.as_ptr(), token.len()) };
        if tt.is_null() {
            return Err(error("TRUST_TOKEN_new"));
        }
        let (mut out, mut out_len) = (ptr::null_mut(), 0usize);
        // SAFETY: `self.ptr` is a live client; `tt` is a live token we own; `client_data` is
        // readable for its length; `out`/`out_len` are valid output locations.
        let ret = unsafe {
            sys::TRUST_TOKEN_CLIENT_begin_redemption(
                self.ptr.as_ptr(),
                &mut out,
                &mut out_len,
                tt,
                client_data.as_ptr(),
                client_data.len(),
                time,
            )
        };
        // SAFETY: `tt` was created above, is not retained by the library, and is freed once.
        unsafe { sys::TRUST_TOKEN_free(tt) };
        check("TRUST_TOKEN_CLIENT_begin_redemption", ret)?;
        // SAFETY: on success `out` holds `out_len` bytes allocated by the library, owned by us.
        Ok(unsafe { take_buffer(out, out_len) })
    }

    /// `TRUST_TOKEN_CLIENT_finish_redemption`: the redemption record and its signature. For
    /// experiment v1 the response must be `u16 len ‖ SRR ‖ u16 len ‖ signature` with a valid
    /// Ed25519 signature of the SRR under the key of [`Client::set_srr_key`]; the other methods
    /// return the response verbatim and no signature (`None`).
    ///
    /// # Errors
    /// Experiment v1: `DECODE_ERROR` on bad framing or trailing bytes,
    /// `NO_SRR_KEY_CONFIGURED`, `SRR_SIGNATURE_ERROR`.
    pub fn finish_redemption(&self, response: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
        let (mut rr, mut rr_len) = (ptr::null_mut(), 0usize);
        let (mut sig, mut sig_len) = (ptr::null_mut(), 0usize);
        clear_errors();
        // SAFETY: `self.ptr` is a live client (finish_redemption only reads it); `response` is
        // readable for its length; the outputs are valid locations; on success `rr` and `sig`
        // are buffers of the library (or null) we now own.
        let ret = unsafe {
            sys::TRUST_TOKEN_CLIENT_finish_redemption(
                self.ptr.as_ptr(),
                &mut rr,
                &mut rr_len,
                &mut sig,
                &mut sig_len,
                response.as_ptr(),
                response.len(),
            )
        };
        check("TRUST_TOKEN_CLIENT_finish_redemption", ret)?;
        let signed = !sig.is_null();
        // SAFETY: on success each output is null or holds its length in bytes allocated by
        // the library, owned by us; each is taken exactly once.
        let (rr, sig) = unsafe { (take_buffer(rr, rr_len), take_buffer(sig, sig_len)) };
        Ok((rr, signed.then_some(sig)))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is the client we own; it is freed exactly once, here.
        unsafe { sys::TRUST_TOKEN_CLIENT_free(self.ptr.as_ptr()) }
    }
}

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}
