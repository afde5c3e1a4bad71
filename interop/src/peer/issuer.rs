//! The issuer: `TRUST_TOKEN_ISSUER_*`.

use super::ffi::{self, check, clear_errors, error, take_buffer, take_token};
use super::sys;
use crate::{Method, Redemption, Result};
use core::ptr::{self, NonNull};

/// A `TRUST_TOKEN_ISSUER` holding private keys; issues and redeems.
pub struct Issuer {
    ptr: NonNull<sys::TRUST_TOKEN_ISSUER>,
    method: Method,
}

impl Issuer {
    /// `TRUST_TOKEN_ISSUER_new` with a maximum batch size of `max_batchsize` (≤ 0xffff).
    ///
    /// # Errors
    /// If `max_batchsize` is too large or allocation fails.
    pub fn new(method: Method, max_batchsize: usize) -> Result<Self> {
        clear_errors();
        // SAFETY: the method is a static table; the library returns an owned issuer or null.
        let ptr = unsafe { sys::TRUST_TOKEN_ISSUER_new(ffi::method(method), max_batchsize) };
        let ptr = NonNull::new(ptr).ok_or_else(|| error("TRUST_TOKEN_ISSUER_new"))?;
        Ok(Self { ptr, method })
    }

    /// The issuer's method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// `TRUST_TOKEN_ISSUER_add_key`: adds a private key blob (u32 id ‖ scalars).
    ///
    /// # Errors
    /// If the blob does not parse (wrong length, scalar ≥ n) or `max_keys` are configured.
    pub fn add_key(&mut self, private_key: &[u8]) -> Result<()> {
        clear_errors();
        // SAFETY: `self.ptr` is a live issuer we own exclusively; the key is readable for its
        // length and copied by the library.
        let ret = unsafe {
            sys::TRUST_TOKEN_ISSUER_add_key(
                self.ptr.as_ptr(),
                private_key.as_ptr(),
                private_key.len(),
            )
        };
        check("TRUST_TOKEN_ISSUER_add_key", ret)
    }

    /// `TRUST_TOKEN_ISSUER_issue`: signs up to `max_issuance` of the request's blinded tokens
    /// with the key `key_id` and private bit `private_metadata`. Returns the response and the
    /// number of tokens issued.
    ///
    /// # Errors
    /// If the request does not parse (truncated, trailing bytes), `key_id` is unknown, or
    /// `private_metadata` is not 0 or 1 (or is 1 for a VOPRF method).
    pub fn issue(
        &self,
        request: &[u8],
        key_id: u32,
        private_metadata: u8,
        max_issuance: usize,
    ) -> Result<(Vec<u8>, usize)> {
        let (mut out, mut out_len, mut issued) = (ptr::null_mut(), 0usize, 0usize);
        clear_errors();
        // SAFETY: `self.ptr` is a live issuer (issue is a non-mutating function); `request` is
        // readable for its length; the outputs are valid locations; on success `out` is a
        // buffer of the library we now own.
        let ret = unsafe {
            sys::TRUST_TOKEN_ISSUER_issue(
                self.ptr.as_ptr(),
                &mut out,
                &mut out_len,
                &mut issued,
                request.as_ptr(),
                request.len(),
                key_id,
                private_metadata,
                max_issuance,
            )
        };
        check("TRUST_TOKEN_ISSUER_issue", ret)?;
        // SAFETY: on success `out` holds `out_len` bytes allocated by the library, owned by us.
        Ok((unsafe { take_buffer(out, out_len) }, issued))
    }

    /// `TRUST_TOKEN_ISSUER_redeem`: verifies a redemption request.
    ///
    /// # Errors
    /// If the request does not parse, its key id is unknown, or the token is invalid.
    pub fn redeem(&self, request: &[u8]) -> Result<Redemption> {
        self.redeem_impl(request, None)
    }

    /// `TRUST_TOKEN_ISSUER_redeem_over_message`: as [`Issuer::redeem`], also checking that the
    /// token's nonce was derived from `msg`.
    ///
    /// # Errors
    /// As [`Issuer::redeem`], and if the token was not issued over `msg`.
    pub fn redeem_over_message(&self, request: &[u8], msg: &[u8]) -> Result<Redemption> {
        self.redeem_impl(request, Some(msg))
    }

    fn redeem_impl(&self, request: &[u8], msg: Option<&[u8]>) -> Result<Redemption> {
        let (mut key_id, mut private_metadata) = (0u32, 0u8);
        let mut token: *mut sys::TRUST_TOKEN = ptr::null_mut();
        let (mut data, mut data_len) = (ptr::null_mut(), 0usize);
        clear_errors();
        let (function, ret) = match msg {
            // SAFETY: `self.ptr` is a live issuer; `request` is readable for its length; every
            // output pointer is a valid location; on success the library hands us a new token
            // and a new client-data buffer.
            None => ("TRUST_TOKEN_ISSUER_redeem", unsafe {
                sys::TRUST_TOKEN_ISSUER_redeem(
                    self.ptr.as_ptr(),
                    &mut key_id,
                    &mut private_metadata,
                    &mut token,
                    &mut data,
                    &mut data_len,
                    request.as_ptr(),
                    request.len(),
                )
            }),
            // SAFETY: as above; `msg` is readable for its length.
            Some(msg) => ("TRUST_TOKEN_ISSUER_redeem_over_message", unsafe {
                sys::TRUST_TOKEN_ISSUER_redeem_over_message(
                    self.ptr.as_ptr(),
                    &mut key_id,
                    &mut private_metadata,
                    &mut token,
                    &mut data,
                    &mut data_len,
                    request.as_ptr(),
                    request.len(),
                    msg.as_ptr(),
                    msg.len(),
                )
            }),
        };
        check(function, ret)?;
        // SAFETY: on success `token` is an owned, live `TRUST_TOKEN` (or null), taken once.
        let nonce = unsafe { take_token(token) };
        // SAFETY: on success `data` holds `data_len` bytes allocated by the library, owned by us.
        let client_data = unsafe { take_buffer(data, data_len) };
        Ok(Redemption {
            key_id,
            private_metadata,
            nonce,
            client_data,
        })
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is the issuer we own; it is freed exactly once, here.
        unsafe { sys::TRUST_TOKEN_ISSUER_free(self.ptr.as_ptr()) }
    }
}

impl core::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Issuer")
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}
