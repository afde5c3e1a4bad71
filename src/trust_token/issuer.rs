//! The issuer (`TRUST_TOKEN_ISSUER`, BoringSSL `crypto/trust_token/trust_token.cc`): its keys,
//! issuance and redemption.

use rand_core::CryptoRng;

use crate::group::Scalar;
use crate::{Error, Result};

use super::keys::{PrivateKey, PublicKey};
use super::{hash, pmb, voprf, wire, Method, C, NONCE_SIZE};

/// The issuer (`TRUST_TOKEN_ISSUER`, `crypto/trust_token/trust_token.cc`): holds up to
/// [`Method::max_keys`] private keys, selected by key id.
///
/// The key list is allocated once for [`Method::max_keys`] keys and never grows by
/// reallocation (which would leave unwiped copies of the private keys in freed heap), also in a
/// clone.
#[derive(Debug)]
pub struct Issuer {
    pub(super) method: Method,
    max_batchsize: u16,
    /// PMB keys carry their public tables and the secret blind of the issuer's ladders.
    /// Capacity [`Method::max_keys`] from the start. The PMB state is boxed so that an element
    /// has no uninitialized bytes: a `None` payload of the state's size would carry whatever the
    /// stack held (a key copy, seen with some inlining) into the heap, past `PrivateKey`'s wipe.
    keys: Vec<(PrivateKey, Option<Box<pmb::IssuerKey>>)>,
    /// The Ed25519 key that signs redemption records (`TRUST_TOKEN_ISSUER_set_srr_key`).
    #[cfg(feature = "srr")]
    pub(super) srr_key: Option<ed25519_dalek::SigningKey>,
}

/// The result of [`Issuer::issue`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueResponse {
    /// How many tokens were issued: `min(requested, max_issuance, max_batchsize)`.
    pub issued: u16,
    /// The issue response: `u16 issued ‖ u32 key_id ‖ signed elements ‖ u16 len ‖ proof`.
    pub message: Vec<u8>,
}

/// What [`Issuer::redeem`] learns from a valid redemption request (`TRUST_TOKEN_ISSUER_redeem`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redemption {
    /// The id of the key that signed the token (the token's public metadata).
    pub key_id: u32,
    /// The private metadata bit (always `false` for the VOPRF methods).
    pub private_metadata: bool,
    /// The token's 64-byte nonce `t`, the double-spend identifier the caller must record
    /// (`out_token` of `TRUST_TOKEN_ISSUER_redeem`): the token's salt, or `SHA-512(salt ‖ msg)`
    /// for [`Issuer::redeem_over_message`].
    pub nonce: [u8; NONCE_SIZE],
    /// The client data of the redemption request.
    pub client_data: Vec<u8>,
}

/// A clone with the same key capacity ([`Method::max_keys`]), so that adding keys to it never
/// reallocates either.
impl Clone for Issuer {
    fn clone(&self) -> Self {
        let mut keys = Self::key_list(self.method);
        keys.extend(self.keys.iter().cloned());
        Self {
            method: self.method,
            max_batchsize: self.max_batchsize,
            keys,
            #[cfg(feature = "srr")]
            srr_key: self.srr_key.clone(),
        }
    }
}

impl Issuer {
    /// An issuer for `method` that issues at most `max_batchsize` tokens per request
    /// (`TRUST_TOKEN_ISSUER_new`).
    pub fn new(method: Method, max_batchsize: u16) -> Self {
        Self {
            method,
            max_batchsize,
            keys: Self::key_list(method),
            #[cfg(feature = "srr")]
            srr_key: None,
        }
    }

    /// An empty key list with room for every key the method allows: pushing never moves the
    /// keys already held.
    fn key_list(method: Method) -> Vec<(PrivateKey, Option<Box<pmb::IssuerKey>>)> {
        Vec::with_capacity(method.max_keys())
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The largest batch this issuer signs.
    pub fn max_batchsize(&self) -> u16 {
        self.max_batchsize
    }

    /// The public keys of the keys held, in the order they were added (what the issuer
    /// publishes in its key commitment).
    pub fn public_keys(&self) -> Vec<PublicKey> {
        self.keys.iter().map(|(k, _)| k.public_key()).collect()
    }

    /// Adds a private key (`TRUST_TOKEN_ISSUER_add_key`).
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] when the key belongs to another method, a key with the same
    /// id is present, or the issuer already holds [`Method::max_keys`] keys.
    ///
    /// A PMB key also gets the fixed-base tables of its public points and the secret blind of
    /// the issuer's constant-time ladders (derived from the key; see `group::LadderBlind`), so
    /// adding one costs a few milliseconds.
    pub fn add_key(&mut self, key: PrivateKey) -> Result<()> {
        if key.method() != self.method
            || self.keys.len() >= self.method.max_keys()
            || self.keys.len() >= self.keys.capacity()
            || self.keys.iter().any(|(k, _)| k.key_id() == key.key_id())
        {
            return Err(Error::UnsupportedValue);
        }
        let state = pmb::IssuerKey::for_key(&key)?.map(Box::new);
        // Within capacity (checked above): no reallocation.
        self.keys.push((key, state));
        Ok(())
    }

    /// Decodes a private key blob and adds it (`TRUST_TOKEN_ISSUER_add_key`).
    ///
    /// # Errors
    /// Those of [`PrivateKey::from_bytes`] and [`Issuer::add_key`]; a full issuer refuses before
    /// decoding.
    pub fn add_key_bytes(&mut self, blob: &[u8]) -> Result<()> {
        // A full issuer refuses before decoding (which computes the public points).
        if self.keys.len() >= self.method.max_keys() {
            return Err(Error::UnsupportedValue);
        }
        self.add_key(PrivateKey::from_bytes(self.method, blob)?)
    }

    fn key(&self, key_id: u32) -> Result<&(PrivateKey, Option<Box<pmb::IssuerKey>>)> {
        self.keys
            .iter()
            .find(|(k, _)| k.key_id() == key_id)
            .ok_or(Error::UnsupportedValue)
    }

    /// Signs an issue request with the key `key_id`, embedding the private metadata bit
    /// (`TRUST_TOKEN_ISSUER_issue`; `pmbtoken_sign` / `voprf_sign` in BoringSSL).
    ///
    /// Issues `min(requested, max_issuance, max_batchsize)` tokens; request points beyond that
    /// are skipped unparsed, as BoringSSL does. The bit only selects values in constant time.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for an unknown key id or a set bit with a VOPRF method;
    /// [`Error::Batch`] when nothing would be issued (count 0, `max_issuance` 0);
    /// [`Error::InvalidLength`] on a truncated request or trailing bytes; point decoding
    /// errors ([`Error::InvalidPoint`], [`Error::IdentityElement`]).
    pub fn issue(
        &self,
        request: &[u8],
        key_id: u32,
        private_metadata: bool,
        max_issuance: u16,
        rng: &mut (impl CryptoRng + ?Sized),
    ) -> Result<IssueResponse> {
        self.issue_impl(request, key_id, private_metadata, max_issuance, rng, None)
    }

    pub(crate) fn issue_impl(
        &self,
        request: &[u8],
        key_id: u32,
        private_metadata: bool,
        max_issuance: u16,
        rng: &mut (impl CryptoRng + ?Sized),
        proof_nonce: Option<Scalar<C>>,
    ) -> Result<IssueResponse> {
        crate::stack::token(|| {
            if !self.method.has_private_metadata() && private_metadata {
                return Err(Error::UnsupportedValue);
            }
            let key = self.key(key_id)?;
            let mut r = wire::Reader::new(request);
            let requested = r.u16()?;
            let plen = self.method.point_len();
            let points = r.take(usize::from(requested) * plen)?;
            r.finish()?;
            let issued = requested.min(max_issuance).min(self.max_batchsize);
            if issued == 0 {
                return Err(Error::Batch);
            }
            let points = &points[..usize::from(issued) * plen];
            let mut message = Vec::with_capacity(
                6 + usize::from(issued) * self.method.signed_len() + 2 + self.method.proof_len(),
            );
            message.extend_from_slice(&issued.to_be_bytes());
            message.extend_from_slice(&key_id.to_be_bytes());
            match key {
                (key, Some(state)) => {
                    pmb::issue(key, state, points, private_metadata, &mut message, rng)?
                }
                (key, None) => voprf::issue(key, points, &mut message, rng, proof_nonce)?,
            }
            Ok(IssueResponse { issued, message })
        })
    }

    /// Redeems a redemption request (`TRUST_TOKEN_ISSUER_redeem`): checks the token under the
    /// key its id names and reads the private metadata bit.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] on a malformed request or a token of another length than
    /// [`Method::token_len`] (checked before anything is decoded); [`Error::UnsupportedValue`]
    /// for an unknown key id; point decoding errors; [`Error::InvalidProof`] for a token this issuer
    /// did not sign (PMB: the validity check failed, or both or neither bit matched).
    pub fn redeem(&self, request: &[u8]) -> Result<Redemption> {
        self.redeem_impl(request, None)
    }

    /// As [`Issuer::redeem`] for tokens made with [`Client::begin_issuance_over_message`](super::Client::begin_issuance_over_message)
    /// (`TRUST_TOKEN_ISSUER_redeem_over_message`): the token's nonce is `SHA-512(salt ‖ msg)`.
    ///
    /// # Errors
    /// As [`Issuer::redeem`].
    pub fn redeem_over_message(&self, request: &[u8], msg: &[u8]) -> Result<Redemption> {
        self.redeem_impl(request, Some(msg))
    }

    fn redeem_impl(&self, request: &[u8], msg: Option<&[u8]>) -> Result<Redemption> {
        crate::stack::token(|| {
            let mut r = wire::Reader::new(request);
            let token = r.u16_prefixed()?;
            let client_data = r.u16_prefixed()?;
            if self.method.is_legacy() {
                // experiment_v1: the redemption time, not checked by the issuer.
                r.take(8)?;
            }
            r.finish()?;
            // The token's length before any point is decoded or anything is hashed.
            if token.len() != self.method.token_len() {
                return Err(Error::InvalidLength);
            }
            let mut t = wire::Reader::new(token);
            let key_id = t.u32()?;
            let salt: [u8; NONCE_SIZE] = t.array()?;
            let (key, state) = self.key(key_id)?;
            let nonce = hash::token_input(&salt, msg);
            let private_metadata = match state {
                Some(state) => pmb::redeem(key, state, &nonce, &mut t)?,
                None => {
                    voprf::redeem(key, &nonce, &mut t)?;
                    false
                }
            };
            Ok(Redemption {
                key_id,
                private_metadata,
                nonce,
                client_data: client_data.to_vec(),
            })
        })
    }
}
