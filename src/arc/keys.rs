//! Server keys (crypto-01 §"Key Generation").

use core::fmt;

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

use super::wire::{Reader, Writer};
use super::{ArcSuite, RngSource, ScalarSource};
use crate::group::{self, validation, Affine, Curve, FixedBaseTable, Scalar};
use crate::Result;

/// The server's public key `(X0, X1, X2)`: `X0 = x0 G + x0Blinding H`, `X1 = x1 H`, `X2 = x2 H`.
///
/// Encoding `X0 || X1 || X2` (3 `Ne` bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ServerPublicKey<S: ArcSuite> {
    pub(crate) x0: Affine<S::Curve>,
    pub(crate) x1: Affine<S::Curve>,
    pub(crate) x2: Affine<S::Curve>,
}

impl<S: ArcSuite> fmt::Debug for ServerPublicKey<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::wire::debug_hex(f, "ServerPublicKey", &self.to_bytes())
    }
}

impl<S: ArcSuite> ServerPublicKey<S> {
    /// Encoded length, `3 Ne`.
    pub const LEN: usize = 3 * <S::Curve as Curve>::COMPRESSED_LEN;

    /// `SerializeElement(X0) || SerializeElement(X1) || SerializeElement(X2)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; Self::LEN];
        let _ = self.encode_into(&mut out);
        out
    }

    /// Writes the encoding into `out` (exactly [`Self::LEN`] bytes).
    ///
    /// # Errors
    /// [`crate::Error::InvalidLength`] when `out` has the wrong length.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<()> {
        let mut w = Writer::new(out);
        w.element::<S::Curve>(&self.x0)?;
        w.element::<S::Curve>(&self.x1)?;
        w.element::<S::Curve>(&self.x2)?;
        w.finish()
    }

    /// Strict decoding: three valid, non-identity compressed points and nothing else.
    ///
    /// # Errors
    /// [`crate::Error::InvalidLength`], [`crate::Error::InvalidPoint`] or
    /// [`crate::Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let k = Self {
            x0: r.element::<S::Curve>()?,
            x1: r.element::<S::Curve>()?,
            x2: r.element::<S::Curve>()?,
        };
        r.finish()?;
        Ok(k)
    }

    /// `X1`, the element a credential carries.
    pub(crate) fn x1(&self) -> &Affine<S::Curve> {
        &self.x1
    }
}

/// Per-key fixed-base tables for `X0`, `X1`, `X2` (the issuer's multiplications by its own
/// public key in `issue`).
#[derive(Clone, Debug)]
pub(crate) struct KeyTables<S: ArcSuite> {
    pub(crate) x0: FixedBaseTable<S::Curve>,
    pub(crate) x1: FixedBaseTable<S::Curve>,
    pub(crate) x2: FixedBaseTable<S::Curve>,
}

/// The server's private key `(x0, x1, x2, x0Blinding)` with its public key and precomputed tables.
///
/// Encoding `x0 || x1 || x2 || x0Blinding` (4 `Ns` bytes; swift-crypto's `rawRepresentation`).
/// Zeroized on drop; `Debug` is redacted.
#[derive(Clone)]
pub struct ServerPrivateKey<S: ArcSuite> {
    pub(crate) x0: Scalar<S::Curve>,
    pub(crate) x1: Scalar<S::Curve>,
    pub(crate) x2: Scalar<S::Curve>,
    pub(crate) xb: Scalar<S::Curve>,
    pub(crate) public: ServerPublicKey<S>,
    pub(crate) tables: Box<KeyTables<S>>,
}

impl<S: ArcSuite> Zeroize for ServerPrivateKey<S> {
    fn zeroize(&mut self) {
        self.x0.zeroize();
        self.x1.zeroize();
        self.x2.zeroize();
        self.xb.zeroize();
    }
}

impl<S: ArcSuite> Drop for ServerPrivateKey<S> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<S: ArcSuite> ZeroizeOnDrop for ServerPrivateKey<S> {}

impl<S: ArcSuite> fmt::Debug for ServerPrivateKey<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerPrivateKey")
            .field("secret", &"<redacted>")
            .field("public", &self.public)
            .finish()
    }
}

impl<S: ArcSuite> ConstantTimeEq for ServerPrivateKey<S> {
    fn ct_eq(&self, o: &Self) -> subtle::Choice {
        self.x0.ct_eq(&o.x0) & self.x1.ct_eq(&o.x1) & self.x2.ct_eq(&o.x2) & self.xb.ct_eq(&o.xb)
    }
}

impl<S: ArcSuite> ServerPrivateKey<S> {
    /// Encoded length, `4 Ns`.
    pub const LEN: usize = 4 * <S::Curve as Curve>::SCALAR_LEN;

    /// `SetupServer`: four uniformly random scalars (crypto-01 §"Key Generation").
    pub fn random(rng: &mut (impl CryptoRng + ?Sized)) -> Self {
        Self::generate_with(&mut RngSource(rng))
    }

    pub(crate) fn generate_with(src: &mut impl ScalarSource<S::Curve>) -> Self {
        let x0 = src.random_scalar();
        let x1 = src.random_scalar();
        let x2 = src.random_scalar();
        let xb = src.random_scalar();
        Self::from_scalars(x0, x1, x2, xb)
    }

    pub(crate) fn from_scalars(
        x0: Scalar<S::Curve>,
        x1: Scalar<S::Curve>,
        x2: Scalar<S::Curve>,
        xb: Scalar<S::Curve>,
    ) -> Self {
        let d = S::data();
        super::count::fixed(4);
        let pts = [
            group::mul_generator::<S::Curve>(&x0) + d.h_table.mul(&xb),
            d.h_table.mul(&x1),
            d.h_table.mul(&x2),
        ];
        let mut points = group::normalize_array(&pts);
        // Published: `(X0, X1, X2)` is the server's public key; the scalars follow from it only
        // through discrete logarithms (and `x0` is also hidden by `x0Blinding`).
        validation::publish(&mut points);
        let [x0p, x1p, x2p] = points;
        let public = ServerPublicKey {
            x0: x0p,
            x1: x1p,
            x2: x2p,
        };
        let tables = Box::new(KeyTables {
            x0: FixedBaseTable::new(&x0p),
            x1: FixedBaseTable::new(&x1p),
            x2: FixedBaseTable::new(&x2p),
        });
        Self {
            x0,
            x1,
            x2,
            xb,
            public,
            tables,
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &ServerPublicKey<S> {
        &self.public
    }

    /// `x0 || x1 || x2 || x0Blinding`, zeroized on drop.
    pub fn to_bytes(&self) -> zeroize::Zeroizing<Vec<u8>> {
        let mut out = zeroize::Zeroizing::new(vec![0u8; Self::LEN]);
        let mut w = Writer::new(&mut out);
        let _ = w.scalar::<S::Curve>(&self.x0);
        let _ = w.scalar::<S::Curve>(&self.x1);
        let _ = w.scalar::<S::Curve>(&self.x2);
        let _ = w.scalar::<S::Curve>(&self.xb);
        out
    }

    /// Strict decoding of `x0 || x1 || x2 || x0Blinding` (each canonical and non-zero); the
    /// public key and tables are recomputed.
    ///
    /// # Errors
    /// [`crate::Error::InvalidLength`], [`crate::Error::NonCanonicalScalar`] or
    /// [`crate::Error::ZeroScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let x0 = r.nonzero_scalar::<S::Curve>()?;
        let x1 = r.nonzero_scalar::<S::Curve>()?;
        let x2 = r.nonzero_scalar::<S::Curve>()?;
        let xb = r.nonzero_scalar::<S::Curve>()?;
        r.finish()?;
        Ok(Self::from_scalars(x0, x1, x2, xb))
    }
}

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(ServerPublicKey<S: ArcSuite>);

#[cfg(feature = "serde")]
crate::codec::serde_via_bytes!(ServerPrivateKey<S: ArcSuite>);
