//! RFC 9497: Oblivious Pseudorandom Functions in the OPRF, VOPRF and POPRF modes.
//!
//! Each mode has a client and a server type, generic over the suite ([`crate::suite`]): base
//! mode [`OprfClient`] / [`OprfServer`] (RFC 9497 §3.3.1), verifiable mode [`VoprfClient`] /
//! [`VoprfServer`] (§3.3.2, the server proves it used its key) and partially-oblivious mode
//! [`PoprfClient`] / [`PoprfServer`] (§3.3.3, a public `info` string bound into the output).
//! Client steps return the wire message and a one-shot state ([`BlindResult`]); the state is
//! consumed by `finalize` and zeroized on drop. Privacy Pass token types 0x0001 and 0x0005 on
//! top of VOPRF mode: [`privacy_pass`].
//!
//! VOPRF, one input:
//!
//! ```
//! use privacy_tokens::voprf::{VoprfClient, VoprfServer};
//! use privacy_tokens::P384Sha384;
//!
//! let mut rng = rand::rng();
//! let server = VoprfServer::<P384Sha384>::new(&mut rng);
//! let blind = VoprfClient::<P384Sha384>::blind(b"input", &mut rng)?;
//! let eval = server.blind_evaluate(&mut rng, &blind.message)?;
//! let output = blind.state.finalize(b"input", &eval.message, &eval.proof, server.public_key())?;
//! assert_eq!(output, server.evaluate(b"input")?);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! A batch: one proof for all the elements ([`VoprfServer::blind_evaluate_batch`], up to 65535),
//! verified once by [`VoprfClient::finalize_batch`]:
//!
//! ```
//! use privacy_tokens::voprf::{VoprfClient, VoprfServer};
//! use privacy_tokens::Ristretto255Sha512;
//!
//! let mut rng = rand::rng();
//! let server = VoprfServer::<Ristretto255Sha512>::new(&mut rng);
//! let inputs: [&[u8]; 3] = [b"a", b"b", b"c"];
//! let (mut states, mut blinded) = (Vec::new(), Vec::new());
//! for input in inputs {
//!     let b = VoprfClient::<Ristretto255Sha512>::blind(input, &mut rng)?;
//!     states.push(b.state);
//!     blinded.push(b.message);
//! }
//! let eval = server.blind_evaluate_batch(&mut rng, &blinded)?;
//! let outputs =
//!     VoprfClient::finalize_batch(states, &inputs, &eval.messages, &eval.proof, server.public_key())?;
//! assert_eq!(outputs[2], server.evaluate(b"c")?);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! POPRF, with a public `info` both sides know:
//!
//! ```
//! use privacy_tokens::voprf::{PoprfClient, PoprfServer};
//! use privacy_tokens::P256Sha256;
//!
//! let mut rng = rand::rng();
//! let server = PoprfServer::<P256Sha256>::new(&mut rng);
//! let blind = PoprfClient::<P256Sha256>::blind(b"input", b"info", server.public_key(), &mut rng)?;
//! let eval = server.blind_evaluate(&mut rng, &blind.message, b"info")?;
//! let output = blind.state.finalize(b"input", b"info", &eval.message, &eval.proof)?;
//! assert_eq!(output, server.evaluate(b"input", b"info")?);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! OPRF (no proof, no public key on the client):
//!
//! ```
//! use privacy_tokens::voprf::{OprfClient, OprfServer};
//! use privacy_tokens::P521Sha512;
//!
//! let mut rng = rand::rng();
//! let server = OprfServer::<P521Sha512>::new(&mut rng);
//! let blind = OprfClient::<P521Sha512>::blind(b"input", &mut rng)?;
//! let output = blind.state.finalize(b"input", &server.blind_evaluate(&blind.message))?;
//! assert_eq!(output, server.evaluate(b"input")?);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! Keys derived from a seed (`DeriveKeyPair`, RFC 9497 §3.2.1): `VoprfServer::derive(seed, info)`
//! and the same on the other servers. Wire types have `to_bytes` / `from_bytes` (strict: exact
//! length, canonical, never the identity) and, with the `serde` feature, serde forms.

mod codec;
mod oprf;
mod poprf;
pub mod privacy_pass;
mod verifiable;

use core::fmt;
use core::marker::PhantomData;

use rand_core::CryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::dleq::{self, DleqHash, DleqProof};
use crate::group::{self, validation, PrimeGroup};
use crate::suite::{Element, Normal, Output, Scalar, Suite};
use crate::transcript::{len_prefix, Transcript};
use crate::{Error, Result};

pub use oprf::{OprfClient, OprfServer};
pub use poprf::{PoprfClient, PoprfServer};
pub use verifiable::{VoprfClient, VoprfServer};

/// The three protocol modes (RFC 9497 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Mode {
    /// Base OPRF, `modeOPRF = 0x00`.
    Oprf = 0,
    /// Verifiable OPRF, `modeVOPRF = 0x01`.
    Voprf = 1,
    /// Partially-oblivious PRF, `modePOPRF = 0x02`.
    Poprf = 2,
}

impl Mode {
    /// The mode from its identifier byte.
    ///
    /// # Errors
    /// [`Error::UnsupportedValue`] for an unknown byte.
    pub fn from_u8(b: u8) -> Result<Self> {
        match b {
            0 => Ok(Mode::Oprf),
            1 => Ok(Mode::Voprf),
            2 => Ok(Mode::Poprf),
            _ => Err(Error::UnsupportedValue),
        }
    }
}

/// The domain-separation context: `contextString = "OPRFV1-" || I2OSP(mode, 1) || "-" || identifier`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context<S: Suite> {
    mode: [u8; 1],
    _suite: PhantomData<S>,
}

impl<S: Suite> Context<S> {
    pub(crate) const fn new(mode: Mode) -> Self {
        Self {
            mode: [mode as u8],
            _suite: PhantomData,
        }
    }

    /// `prefix || contextString` as pieces.
    fn dst<'a>(&'a self, prefix: &'a [u8]) -> [&'a [u8]; 5] {
        [prefix, b"OPRFV1-", &self.mode, b"-", S::ID]
    }

    pub(crate) fn hash_to_group(&self, input: &[u8]) -> Result<Element<S>> {
        S::Group::hash_to_group(S::EXPANSION, &[input], &self.dst(b"HashToGroup-"))
    }

    pub(crate) fn hash_to_scalar(&self, msg: &[&[u8]]) -> Result<Scalar<S>> {
        S::Group::hash_to_scalar(S::EXPANSION, msg, &self.dst(b"HashToScalar-"))
    }
}

impl<S: Suite> DleqHash<S::Group> for Context<S> {
    type Seed = Output<S>;

    fn seed(&self, b: &<S::Group as PrimeGroup>::ElementBytes) -> Result<Output<S>> {
        let mut t = Transcript::<S::Hash>::new();
        t.absorb_prefixed(b.as_ref())?;
        let dst = self.dst(b"Seed-");
        let dst_len: usize = dst.iter().map(|p| p.len()).sum();
        t.absorb(&len_prefix(dst_len)?);
        for p in dst {
            t.absorb(p);
        }
        Ok(t.finish())
    }

    fn composite(
        &self,
        seed: &Output<S>,
        i: u16,
        c: &<S::Group as PrimeGroup>::ElementBytes,
        d: &<S::Group as PrimeGroup>::ElementBytes,
    ) -> Result<Scalar<S>> {
        let nh = len_prefix(S::NH)?;
        let ne = len_prefix(<S::Group as PrimeGroup>::NE)?;
        let idx = i.to_be_bytes();
        self.hash_to_scalar(&[
            &nh,
            seed,
            &idx,
            &ne,
            c.as_ref(),
            &ne,
            d.as_ref(),
            b"Composite",
        ])
    }

    fn challenge(&self, p: &[<S::Group as PrimeGroup>::ElementBytes; 5]) -> Result<Scalar<S>> {
        let ne = len_prefix(<S::Group as PrimeGroup>::NE)?;
        self.hash_to_scalar(&[
            &ne,
            p[0].as_ref(),
            &ne,
            p[1].as_ref(),
            &ne,
            p[2].as_ref(),
            &ne,
            p[3].as_ref(),
            &ne,
            p[4].as_ref(),
            b"Challenge",
        ])
    }
}

// ---------------------------------------------------------------------------------------------
// Keys

/// A server's secret key `skS`. Zeroized on drop; `Debug` is redacted.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SecretKey<S: Suite> {
    pub(crate) scalar: Scalar<S>,
}

impl<S: Suite> fmt::Debug for SecretKey<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey(<redacted>)")
    }
}

impl<S: Suite> ConstantTimeEq for SecretKey<S> {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.scalar.ct_eq(&other.scalar)
    }
}

impl<S: Suite> SecretKey<S> {
    /// A uniformly random non-zero key (RFC 9497 §3.2 `GenerateKeyPair`).
    pub fn random(rng: &mut (impl CryptoRng + ?Sized)) -> Self {
        Self {
            scalar: S::Group::random_scalar(rng),
        }
    }

    /// `SerializeScalar(skS)`, in a buffer that is zeroized on drop.
    pub fn to_bytes(&self) -> Zeroizing<<S::Group as PrimeGroup>::ScalarBytes> {
        Zeroizing::new(S::Group::encode_scalar(&self.scalar))
    }

    /// Strict decoding: `Ns` bytes, canonical, non-zero.
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::NonCanonicalScalar`] or [`Error::ZeroScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self {
            scalar: S::Group::decode_nonzero_scalar(bytes)?,
        })
    }

    /// The public key `skS * G`.
    pub fn public_key(&self) -> PublicKey<S> {
        let mut pk = PublicKey::from_point(&S::Group::mul_generator(&self.scalar));
        // Published: `pkS` is the server's public key, which clients verify proofs against
        // (RFC 9497 §3.2); `skS` follows from it only through a discrete logarithm.
        validation::publish(&mut pk.point);
        pk
    }
}

/// A server's public key `pkS` (never the identity).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey<S: Suite> {
    pub(crate) point: Normal<S>,
}

impl<S: Suite> fmt::Debug for PublicKey<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        codec::debug_hex(f, "PublicKey", self.to_bytes().as_ref())
    }
}

impl<S: Suite> PublicKey<S> {
    fn from_point(p: &Element<S>) -> Self {
        Self {
            point: S::Group::normalize(p),
        }
    }

    /// `SerializeElement(pkS)`: compressed SEC1 on the NIST curves, the RFC 9496 encoding on
    /// ristretto255.
    pub fn to_bytes(&self) -> <S::Group as PrimeGroup>::ElementBytes {
        S::Group::encode_element(&self.point)
    }

    /// Strict decoding (RFC 9497 §4 `DeserializeElement`).
    ///
    /// # Errors
    /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self {
            point: S::Group::decode_element(bytes)?,
        })
    }
}

/// A key pair.
#[derive(Clone, Debug)]
pub struct KeyPair<S: Suite> {
    secret: SecretKey<S>,
    public: PublicKey<S>,
}

impl<S: Suite> KeyPair<S> {
    /// A random key pair.
    pub fn generate(rng: &mut (impl CryptoRng + ?Sized)) -> Self {
        Self::from_secret_key(SecretKey::random(rng))
    }

    /// The key pair of a secret key.
    pub fn from_secret_key(secret: SecretKey<S>) -> Self {
        let public = secret.public_key();
        Self { secret, public }
    }

    /// `DeriveKeyPair(seed, info)` under `mode` (RFC 9497 §3.2.1).
    ///
    /// The seed may be of any length (the RFC's vectors use 32 bytes for every suite).
    ///
    /// # Errors
    /// [`Error::InputTooLong`] when `info` is 2^16 bytes or longer; [`Error::DeriveKeyPair`] when no
    /// counter gives a non-zero scalar.
    pub fn derive(mode: Mode, seed: &[u8], info: &[u8]) -> Result<Self> {
        let ctx = Context::<S>::new(mode);
        let info_len = len_prefix(info.len())?;
        let dst = ctx.dst(b"DeriveKeyPair");
        for counter in 0..=255u8 {
            let sk =
                S::Group::hash_to_scalar(S::EXPANSION, &[seed, &info_len, info, &[counter]], &dst)?;
            // A zero candidate is refused by design (probability about 2^-256 per counter).
            if !group::declassify(S::Group::scalar_is_zero(&sk)) {
                return Ok(Self::from_secret_key(SecretKey { scalar: sk }));
            }
        }
        Err(Error::DeriveKeyPair)
    }

    /// The secret key.
    pub fn secret_key(&self) -> &SecretKey<S> {
        &self.secret
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey<S> {
        &self.public
    }
}

// ---------------------------------------------------------------------------------------------
// Messages

/// The client's blinded element (RFC 9497 `blindedElement`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BlindedElement<S: Suite> {
    pub(crate) point: Normal<S>,
}

/// The server's evaluated element (RFC 9497 `evaluatedElement`; "EvaluationElement" in the vectors).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct EvaluationElement<S: Suite> {
    pub(crate) point: Normal<S>,
}

macro_rules! element_codec {
    ($t:ident, $name:literal) => {
        impl<S: Suite> $t<S> {
            /// `SerializeElement`, `Ne` bytes (compressed SEC1 on the NIST curves).
            pub fn to_bytes(&self) -> <S::Group as PrimeGroup>::ElementBytes {
                S::Group::encode_element(&self.point)
            }

            /// Strict `DeserializeElement`: exactly `Ne` bytes, on the curve, not the identity.
            ///
            /// # Errors
            /// [`Error::InvalidLength`], [`Error::InvalidPoint`] or [`Error::IdentityElement`].
            pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
                Ok(Self {
                    point: S::Group::decode_element(bytes)?,
                })
            }
        }

        impl<S: Suite> fmt::Debug for $t<S> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                codec::debug_hex(f, $name, self.to_bytes().as_ref())
            }
        }
    };
}

element_codec!(BlindedElement, "BlindedElement");
element_codec!(EvaluationElement, "EvaluationElement");

/// A batched DLEQ proof `(c, s)`, `2 * Ns` bytes on the wire.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Proof<S: Suite> {
    pub(crate) inner: DleqProof<S::Group>,
}

impl<S: Suite> Proof<S> {
    /// `SerializeScalar(c) || SerializeScalar(s)`.
    pub fn to_bytes(&self) -> <S::Group as PrimeGroup>::ScalarPairBytes {
        self.inner.to_bytes()
    }

    /// Strict decoding: `2 * Ns` bytes, both scalars canonical.
    ///
    /// # Errors
    /// [`Error::InvalidLength`] or [`Error::NonCanonicalScalar`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Ok(Self {
            inner: DleqProof::from_bytes(bytes)?,
        })
    }
}

impl<S: Suite> fmt::Debug for Proof<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        codec::debug_hex(f, "Proof", self.to_bytes().as_ref())
    }
}

/// What a client's blind step returns: the message to send and the state to keep.
#[derive(Debug)]
pub struct BlindResult<St, S: Suite> {
    /// The one-shot client state, consumed by `finalize`.
    pub state: St,
    /// The blinded element to send to the server.
    pub message: BlindedElement<S>,
}

/// A verifiable server's answer to one blinded element.
#[derive(Clone, Copy, Debug)]
pub struct Evaluation<S: Suite> {
    /// The evaluated element.
    pub message: EvaluationElement<S>,
    /// The proof that it was computed with the server's key.
    pub proof: Proof<S>,
}

/// A verifiable server's answer to a batch: one element per request and one proof for all.
#[derive(Clone, Debug)]
pub struct BatchEvaluation<S: Suite> {
    /// The evaluated elements, in request order.
    pub messages: Vec<EvaluationElement<S>>,
    /// One proof covering every element.
    pub proof: Proof<S>,
}

// ---------------------------------------------------------------------------------------------
// Shared steps

/// The client's blind scalar and blinded element.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Blinding<S: Suite> {
    pub(crate) blind: Scalar<S>,
    #[zeroize(skip)]
    pub(crate) blinded: Normal<S>,
}

impl<S: Suite> fmt::Debug for Blinding<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientState(<redacted>)")
    }
}

/// `Blind(input)` with a given blind scalar (RFC 9497 §3.3.1).
pub(crate) fn blind_with<S: Suite>(
    ctx: &Context<S>,
    input: &[u8],
    blind: Scalar<S>,
) -> Result<Blinding<S>> {
    len_prefix(input.len())?;
    // A zero blind (only a given one can be: `random_scalar` never draws it) is refused.
    if group::declassify(S::Group::scalar_is_zero(&blind)) {
        return Err(Error::ZeroScalar);
    }
    let p = ctx.hash_to_group(input)?;
    // An input that hashes to the identity is refused (RFC 9497 §3.3.1), by design: probability
    // about 2^-256, and the input may be secret (a Privacy Pass token nonce).
    if group::declassify(subtle::Choice::from(u8::from(S::Group::is_identity(&p)))) {
        return Err(Error::InvalidInput);
    }
    let mut blinded = S::Group::normalize(&S::Group::mul(&p, &blind));
    // Published: `blindedElement = blind * H(input)` is the client's request (RFC 9497
    // §3.3.1); the uniformly random blind hides the input. The blind stays secret.
    validation::publish(&mut blinded);
    Ok(Blinding { blind, blinded })
}

/// `Hash(I2OSP(len(input), 2) || input [|| I2OSP(len(info), 2) || info] || I2OSP(Ne, 2) || N || "Finalize")`.
pub(crate) fn finalize_hash<S: Suite>(
    input: &[u8],
    info: Option<&[u8]>,
    n: &Normal<S>,
) -> Result<Output<S>> {
    let mut t = Transcript::<S::Hash>::new();
    t.absorb_prefixed(input)?;
    if let Some(info) = info {
        t.absorb_prefixed(info)?;
    }
    t.absorb_prefixed(S::Group::encode_element(n).as_ref())?;
    t.absorb(b"Finalize");
    Ok(t.finish())
}

/// Unblind `blind^-1 * Z` and hash.
pub(crate) fn unblind_and_hash<S: Suite>(
    input: &[u8],
    info: Option<&[u8]>,
    blind: &Scalar<S>,
    evaluated: &Normal<S>,
) -> Result<Output<S>> {
    let inv = S::Group::invert_scalar(blind)?;
    let n = S::Group::normalize(&S::Group::mul_normal(evaluated, &inv));
    finalize_hash::<S>(input, info, &n)
}

/// Batched unblinding: one scalar inversion and one field inversion for the whole batch.
pub(crate) fn unblind_batch<S: Suite>(
    inputs: &[&[u8]],
    info: Option<&[u8]>,
    blinds: &mut [Scalar<S>],
    evaluated: &[Normal<S>],
) -> Result<Vec<Output<S>>> {
    let n = blinds.len();
    // Wiped on every path, the early return of a failed inversion included.
    let mut scratch = Zeroizing::new(vec![Scalar::<S>::default(); n]);
    S::Group::batch_invert(blinds, &mut scratch)?;
    scratch.zeroize();
    let mut pts = vec![S::Group::identity(); n];
    let unblinds = &*blinds;
    crate::par::fill(&mut pts, |i| {
        S::Group::mul_normal(&evaluated[i], &unblinds[i])
    });
    for b in blinds.iter_mut() {
        b.zeroize();
    }
    let mut aff = vec![S::Group::normal_identity(); n];
    S::Group::normalize_slice(&pts, &mut aff)?;
    // One allocation of the right size: collecting into a `Result` would grow the Vec.
    let mut outputs = Vec::with_capacity(n);
    for (i, p) in inputs.iter().zip(aff.iter()) {
        outputs.push(finalize_hash::<S>(i, info, p)?);
    }
    Ok(outputs)
}

/// Constant-time comparison of a computed output with a claimed one.
pub(crate) fn outputs_equal<S: Suite>(a: &Output<S>, b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.as_slice().ct_eq(b))
}

pub(crate) fn proof_generate<S: Suite>(
    ctx: &Context<S>,
    k: &Scalar<S>,
    b: &Normal<S>,
    cs: &[Normal<S>],
    ds: &[Normal<S>],
    r: &Scalar<S>,
) -> Result<Proof<S>> {
    Ok(Proof {
        inner: dleq::generate_proof(ctx, k, b, cs, ds, r)?,
    })
}

pub(crate) fn proof_verify<S: Suite>(
    ctx: &Context<S>,
    b: &Normal<S>,
    cs: &[Normal<S>],
    ds: &[Normal<S>],
    proof: &Proof<S>,
) -> Result<()> {
    dleq::verify_proof(ctx, b, cs, ds, &proof.inner)
}

/// Checks batch lengths shared by every batched entry point.
pub(crate) fn check_batch(lens: &[usize]) -> Result<usize> {
    let n = lens[0];
    if n == 0 || n > dleq::MAX_BATCH || lens.iter().any(|&l| l != n) {
        return Err(Error::Batch);
    }
    Ok(n)
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{BlindedElement, EvaluationElement, Proof, PublicKey, SecretKey};
    use crate::codec::serde_via_bytes;
    use crate::suite::Suite;

    serde_via_bytes!(SecretKey<S: Suite>);
    serde_via_bytes!(PublicKey<S: Suite>);
    serde_via_bytes!(BlindedElement<S: Suite>);
    serde_via_bytes!(EvaluationElement<S: Suite>);
    serde_via_bytes!(Proof<S: Suite>);
}
