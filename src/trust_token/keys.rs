//! Issuer keys and their BoringSSL blobs (`TRUST_TOKEN_generate_key`,
//! `TRUST_TOKEN_derive_key_from_secret`, `crypto/trust_token/trust_token.cc`).

use core::fmt;

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::group::{self, validation, Affine, Curve, Scalar};
use crate::{Error, Result};

use super::params::{h_table, pmb_params, voprf_params};
use super::wire::put_point;
use super::wire::TokenReader as _;
use super::{wire, Method, C, SCALAR_LEN};

/// An issuer's private key with its u32 key id.
///
/// VOPRF: one scalar `k` (`voprf.cc`); PMB: `x0, y0, x1, y1, xs, ys` (`pmbtoken.cc`).
/// Zeroized on drop; `Debug` is redacted; equality is constant time.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct PrivateKey {
    #[zeroize(skip)]
    method: Method,
    #[zeroize(skip)]
    key_id: u32,
    /// Unused entries (VOPRF) are zero.
    scalars: [Scalar<C>; 6],
    #[zeroize(skip)]
    public: PublicKey,
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey")
            .field("method", &self.method)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

impl PartialEq for PrivateKey {
    fn eq(&self, other: &Self) -> bool {
        let mut eq = subtle::Choice::from(u8::from(
            self.method == other.method && self.key_id == other.key_id,
        ));
        for (a, b) in self.scalars.iter().zip(other.scalars.iter()) {
            eq &= a.ct_eq(b);
        }
        bool::from(eq)
    }
}

impl Eq for PrivateKey {}

/// An issuer's public key with its u32 key id (what a client adds).
///
/// VOPRF: `k·G`; PMB: `pub0 = x0·G + y0·H`, `pub1 = x1·G + y1·H`, `pubs = xs·G + ys·H`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    method: Method,
    key_id: u32,
    /// VOPRF: `[k·G, -, -]`; PMB: `[pub0, pub1, pubs]`. Unused entries are the identity.
    points: [Affine<C>; 3],
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublicKey")
            .field("method", &self.method)
            .field("key_id", &self.key_id)
            .field("bytes", &HexBytes(&self.to_bytes()))
            .finish()
    }
}

struct HexBytes<'a>(&'a [u8]);

impl fmt::Debug for HexBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// A fresh random key pair (`TRUST_TOKEN_generate_key`): scalars uniform in `[1, n-1]`.
pub fn generate_key(
    method: Method,
    key_id: u32,
    rng: &mut (impl CryptoRng + ?Sized),
) -> (PrivateKey, PublicKey) {
    let mut scalars = [Scalar::<C>::ZERO; 6];
    for s in scalars.iter_mut().take(method.num_scalars()) {
        *s = group::random_scalar::<C>(rng);
    }
    let key = PrivateKey::from_scalars(method, key_id, scalars);
    let public = key.public;
    (key, public)
}

/// The key pair derived from a secret (`TRUST_TOKEN_derive_key_from_secret`).
///
/// VOPRF: `k = HashToScalar("TrustTokenVOPRFKeyGen\0" ‖ secret)` (`voprf.cc`
/// `voprf_derive_key_from_secret`); PMB: the `i`-th scalar is
/// `HashToScalar("TrustTokenPMBTokenKeyGen\0" ‖ u8(i) ‖ secret)` (`pmbtoken.cc`
/// `pmbtoken_derive_key_from_secret`), each with the method's DST and hash. This is not
/// RFC 9497 `DeriveKeyPair`.
///
/// # Errors
/// [`Error::ZeroScalar`] if a scalar hashes to zero (probability about 2^-384).
pub fn derive_key_from_secret(
    method: Method,
    key_id: u32,
    secret: &[u8],
) -> Result<(PrivateKey, PublicKey)> {
    let mut scalars = [Scalar::<C>::ZERO; 6];
    if method.has_private_metadata() {
        let p = pmb_params(method);
        for (i, s) in scalars.iter_mut().enumerate() {
            let idx = [i as u8];
            *s = C::hash_to_scalar(
                p.xmd,
                &[b"TrustTokenPMBTokenKeyGen\0", &idx, secret],
                &[p.hash_to_scalar],
            )?;
        }
    } else {
        let p = voprf_params(method);
        scalars[0] = C::hash_to_scalar(p.xmd, &[b"TrustTokenVOPRFKeyGen\0", secret], &[p.h2s])?;
    }
    // A zero scalar (probability 2^-384 each) is refused by design, on all of them at once.
    let mut any_zero = subtle::Choice::from(0);
    for s in scalars.iter().take(method.num_scalars()) {
        any_zero |= s.is_zero();
    }
    if group::declassify(any_zero) {
        return Err(Error::ZeroScalar);
    }
    let key = PrivateKey::from_scalars(method, key_id, scalars);
    let public = key.public;
    Ok((key, public))
}

impl PrivateKey {
    fn from_scalars(method: Method, key_id: u32, scalars: [Scalar<C>; 6]) -> Self {
        let mut points = if method.has_private_metadata() {
            let h = h_table(method);
            let p = |x: &Scalar<C>, y: &Scalar<C>| {
                group::mul_generator::<C>(x) + group::mul_fixed_ct([h], &[*y])
            };
            group::normalize_array(&[
                p(&scalars[0], &scalars[1]),
                p(&scalars[2], &scalars[3]),
                p(&scalars[4], &scalars[5]),
            ])
        } else {
            [
                group::to_affine(&group::mul_generator::<C>(&scalars[0])),
                group::affine_identity::<C>(),
                group::affine_identity::<C>(),
            ]
        };
        // Published: the public points (`pub0, pub1, pubs` or `pub`) are the issuer's public
        // key, in its key commitment; the scalars follow only through discrete logarithms.
        validation::publish(&mut points);
        Self {
            method,
            key_id,
            scalars,
            public: PublicKey {
                method,
                key_id,
                points,
            },
        }
    }

    /// Strict decoding of a private key blob: `u32 key_id ‖ scalars`, exactly
    /// [`Method::private_key_len`] bytes, every scalar in `[1, n-1]`
    /// (`voprf_issuer_key_from_bytes`, `pmbtoken_issuer_key_from_bytes`).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::NonCanonicalScalar`] (a scalar `>= n`) or
    /// [`Error::ZeroScalar`].
    pub fn from_bytes(method: Method, bytes: &[u8]) -> Result<Self> {
        if bytes.len() != method.private_key_len() {
            return Err(Error::InvalidLength);
        }
        let mut r = wire::Reader::new(bytes);
        let key_id = r.u32()?;
        let mut scalars = [Scalar::<C>::ZERO; 6];
        for s in scalars.iter_mut().take(method.num_scalars()) {
            *s = group::decode_nonzero_scalar::<C>(r.take(SCALAR_LEN)?)?;
        }
        r.finish()?;
        Ok(Self::from_scalars(method, key_id, scalars))
    }

    /// The blob `u32 key_id ‖ scalars` ([`Method::private_key_len`] bytes), zeroized on drop.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(self.method.private_key_len()));
        self.put_blob(&mut out);
        out
    }

    /// The storage encoding `u8 method id ‖ blob` (1 + [`Method::private_key_len`] bytes,
    /// [`Method::id`] then [`PrivateKey::to_bytes`]), zeroized on drop; the serde form.
    pub fn to_storage_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(self.method.storage_buffer(self.method.private_key_len()));
        self.put_blob(&mut out);
        out
    }

    /// Strict decoding of the storage encoding ([`PrivateKey::to_storage_bytes`]).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when empty; [`Error::UnsupportedValue`] for an unknown method
    /// id; otherwise those of [`PrivateKey::from_bytes`].
    pub fn from_storage_bytes(bytes: &[u8]) -> Result<Self> {
        Method::split_id(bytes).and_then(|(method, blob)| Self::from_bytes(method, blob))
    }

    /// Appends the blob (`out` must be zeroized by the caller).
    fn put_blob(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.key_id.to_be_bytes());
        for s in self.scalars.iter().take(self.method.num_scalars()) {
            out.extend_from_slice(&Zeroizing::new(C::scalar_bytes(s)));
        }
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The key id.
    pub fn key_id(&self) -> u32 {
        self.key_id
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        self.public
    }

    /// Adds 42 to one scalar and keeps the public key (BoringSSL's `TrustTokenBadKeyTest`).
    #[cfg(test)]
    pub(crate) fn corrupt_scalar_for_testing(&mut self, i: usize) {
        self.scalars[i] += Scalar::<C>::from(42u64);
    }

    pub(crate) fn public_points(&self) -> &[Affine<C>; 3] {
        &self.public.points
    }

    pub(crate) fn scalars(&self) -> &[Scalar<C>; 6] {
        &self.scalars
    }
}

impl PublicKey {
    /// Strict decoding of a public key blob: `u32 key_id ‖ points`, exactly
    /// [`Method::public_key_len`] bytes, each point uncompressed, on the curve and not the
    /// identity (`voprf_client_key_from_bytes`, `pmbtoken_client_key_from_bytes`).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(method: Method, bytes: &[u8]) -> Result<Self> {
        if bytes.len() != method.public_key_len() {
            return Err(Error::InvalidLength);
        }
        let mut r = wire::Reader::new(bytes);
        let key_id = r.u32()?;
        let mut points = [group::affine_identity::<C>(); 3];
        for p in points.iter_mut().take(method.num_points()) {
            *p = r.wire_point(method)?;
        }
        r.finish()?;
        Ok(Self {
            method,
            key_id,
            points,
        })
    }

    /// The blob `u32 key_id ‖ points` ([`Method::public_key_len`] bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.method.public_key_len());
        self.put_blob(&mut out);
        out
    }

    /// The storage encoding `u8 method id ‖ blob` (1 + [`Method::public_key_len`] bytes,
    /// [`Method::id`] then [`PublicKey::to_bytes`]); the serde form.
    pub fn to_storage_bytes(&self) -> Vec<u8> {
        let mut out = self.method.storage_buffer(self.method.public_key_len());
        self.put_blob(&mut out);
        out
    }

    /// Strict decoding of the storage encoding ([`PublicKey::to_storage_bytes`]).
    ///
    /// # Errors
    /// [`Error::InvalidLength`] when empty; [`Error::UnsupportedValue`] for an unknown method
    /// id; otherwise those of [`PublicKey::from_bytes`].
    pub fn from_storage_bytes(bytes: &[u8]) -> Result<Self> {
        Method::split_id(bytes).and_then(|(method, blob)| Self::from_bytes(method, blob))
    }

    fn put_blob(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.key_id.to_be_bytes());
        for p in self.points.iter().take(self.method.num_points()) {
            put_point(out, self.method, p);
        }
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The key id.
    pub fn key_id(&self) -> u32 {
        self.key_id
    }

    pub(crate) fn points(&self) -> &[Affine<C>; 3] {
        &self.points
    }
}
