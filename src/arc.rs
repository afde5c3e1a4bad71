//! ARC: Anonymous Rate-Limited Credentials.
//!
//! Two wire-incompatible generations share one implementation:
//!
//! * **v2**, [`ArcV2P256`]: draft-ietf-privacypass-arc-crypto-01 (ARCV1-P256). Proofs use the
//!   sigma-protocols SHAKE128 Fiat-Shamir transcript, and a presentation hides its nonce in a
//!   Pedersen commitment with a bit-decomposition range proof ([`Presentation`]).
//! * **v1 legacy**, [`ArcV1P256`] and [`ArcV1P384`]: draft-yun-cfrg-arc-01 and
//!   draft-ietf-privacypass-arc-crypto-00 (P-256), and the P-384 suite that swift-crypto tests.
//!   Proofs use the HashToScalar "Schnorr compiler" and the nonce travels in the clear
//!   ([`LegacyPresentation`]).
//!
//! The flow (crypto-01 §"Protocol"):
//!
//! ```
//! use privacy_tokens::arc::{ArcV2P256, CredentialRequest, ServerPrivateKey};
//!
//! let mut rng = rand::rng();
//! let server = ServerPrivateKey::<ArcV2P256>::random(&mut rng);
//! let req = CredentialRequest::new(b"request context", &mut rng)?;
//! let response = server.issue(&req.message, &mut rng)?;
//! let mut credential = req.state.finalize(server.public_key(), &response)?;
//! let mut state = credential.presentation_state(b"presentation context", 100)?;
//! let presentation = state.present(&mut rng)?;
//! let tag = server.verify_presentation(b"request context", b"presentation context", &presentation, 100)?;
//! # let _ = tag;
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! Every step is heap-free: statements are `const` data or stack arrays sized for the largest
//! range proof (`k = 32`, so limits up to `2^32 - 1`), and the constant transcript prefixes are
//! built once per suite and cloned. (Asking for the presentation state of a context the
//! credential has not presented for yet allocates its counter.)
//!
//! # Presentation state: what to persist, and when
//! A tag is `(m1 + nonce)^-1 * T`: a nonce used twice in one presentation context gives the same
//! tag twice, and the verifier links those presentations and rejects the second as a double
//! spend. So the nonce counters must never restart or roll back, and this crate keeps them **in
//! the [`Credential`]**, one per presentation context:
//!
//! * [`Credential::presentation_state`] (v2) and [`Credential::legacy_presentation_state`]
//!   (legacy) return a view of that context's counter that borrows the credential mutably;
//!   asking again for the same context continues the counter, and a context keeps the limit it
//!   was first used with ([`Error::LimitExceeded`](crate::Error::LimitExceeded) otherwise). The
//!   Privacy Pass [`privacy_pass::Client::token_state`] is the same view.
//! * [`Credential`] is not `Clone`, and the states have no storage form of their own: the one
//!   thing to persist is [`Credential::to_bytes`] (or its serde form), the key material with
//!   every context's counter.
//! * **Order: `present`, then persist the credential, then send.** A crash after the write
//!   loses one presentation; sending first and crashing before the write would reuse its nonce.
//!
//! ```
//! # use privacy_tokens::arc::{ArcV2P256, Credential, CredentialRequest, ServerPrivateKey};
//! # let mut rng = rand::rng();
//! # let server = ServerPrivateKey::<ArcV2P256>::random(&mut rng);
//! # let req = CredentialRequest::new(b"request context", &mut rng)?;
//! # let response = server.issue(&req.message, &mut rng)?;
//! # let mut credential = req.state.finalize(server.public_key(), &response)?;
//! let presentation = credential.presentation_state(b"context", 10)?.present(&mut rng)?;
//! let stored = credential.to_bytes(); // write this to storage now ...
//! let wire = presentation.to_bytes(); // ... and only then send this
//! # let _ = wire;
//! // Later, or after a restart: the counter continues.
//! let mut credential = Credential::<ArcV2P256>::from_bytes(&stored)?;
//! assert_eq!(credential.presentation_state(b"context", 10)?.remaining(), 9);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```
//!
//! What no library can do on its own: notice that the bytes it is given are a **stale copy**
//! (an older backup, a second device, a rolled-back database). Restoring one rolls the
//! counters back and reuses nonces. Keep exactly one live copy of a credential and never
//! restore an older one; the explicit-nonce entry points of [`hazmat`] exist for test vectors
//! only.
//!
//! # Limits
//! Every limit is checked before any work, with a typed error: a presentation limit of at
//! least 2 and at most `2^32 - 1` ([`Error::LimitExceeded`](crate::Error::LimitExceeded));
//! request and presentation contexts of at most [`MAX_CONTEXT_LEN`] bytes
//! ([`Error::InputTooLong`](crate::Error::InputTooLong)); exact message lengths in every
//! decoder (a presentation's length fixes `1 <= k <= 32`). A verifier reports its own bad
//! parameters (limit, contexts) with those typed errors and everything about a received
//! presentation as [`Error::InvalidProof`](crate::Error::InvalidProof).

pub mod count;
mod hazmat_impl;
mod issuance;
mod keys;
mod legacy;
mod presentation;
pub mod privacy_pass;
pub mod sigma;
pub mod sigma03;
mod statements;
mod wire;

use core::fmt;
use std::sync::OnceLock;

use rand_core::CryptoRng;

use crate::group::{self, Affine, Curve, FixedBaseTable, Scalar, Xmd};
use crate::Result;
use sigma::{HashToScalarTranscript, Shake128Transcript, SigmaTranscript};

pub use issuance::{
    Credential, CredentialRequest, CredentialResponse, RequestResult, RequestState, MAX_CONTEXT_LEN,
};
pub use keys::{ServerPrivateKey, ServerPublicKey};
pub use legacy::{LegacyPresentation, LegacyPresentationState};
pub use presentation::{Presentation, PresentationState, Tag};
pub use statements::compute_bases;

/// Dangerous, deterministic entry points for test vectors (see [`crate::hazmat`]).
pub mod hazmat {
    pub use super::hazmat_impl::*;
}

/// The largest number of range-proof bits, `k = ceil(log2(limit))` for `limit <= 2^32 - 1`.
pub const MAX_RANGE_BITS: usize = 32;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ArcV2P256 {}
    impl Sealed for super::ArcV1P256 {}
    impl Sealed for super::ArcV1P384 {}
}

/// An ARC ciphersuite and protocol generation (sealed).
pub trait ArcSuite:
    sealed::Sealed + Copy + Clone + fmt::Debug + Default + Eq + Send + Sync + 'static
{
    /// The prime-order group.
    type Curve: Curve;
    /// The Fiat-Shamir transform of this generation's proofs.
    type Transcript: SigmaTranscript<Self::Curve> + fmt::Debug;
    /// `contextString`, e.g. `"ARCV1-P256"` (crypto-01 §"Ciphersuites").
    const CONTEXT_STRING: &'static [u8];
    /// The `expand_message_xmd` hash of HashToGroup and HashToScalar.
    const XMD: Xmd;
    /// The identifier byte in this crate's credential format.
    const SUITE_ID: u8;
    /// A short name for benches and logs, e.g. `"v2/P256"`.
    const NAME: &'static str;
    /// `true` when presentations hide the nonce (crypto-01), `false` when it travels in the
    /// clear (legacy v1).
    const HIDDEN_NONCE: bool;
    /// The per-suite constants: generators, tables and transcript prefixes, built once.
    #[doc(hidden)]
    fn data() -> &'static SuiteData<Self>;
}

/// Suites whose presentations hide the nonce (crypto-01).
pub trait HiddenNonceSuite: ArcSuite {}
/// Suites whose presentations carry the nonce in the clear (legacy v1).
pub trait ClearNonceSuite: ArcSuite {}

/// ARC v2, draft-ietf-privacypass-arc-crypto-01, ARCV1-P256 (SHAKE128 sigma proofs, hidden nonce).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArcV2P256;

/// ARC v1 legacy on P-256: draft-yun-cfrg-arc-01 / draft-ietf-privacypass-arc-crypto-00.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArcV1P256;

/// ARC v1 legacy on P-384 (draft-arc commit 9f1abc0; swift-crypto `P384._ARCV1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArcV1P384;

impl HiddenNonceSuite for ArcV2P256 {}
impl ClearNonceSuite for ArcV1P256 {}
impl ClearNonceSuite for ArcV1P384 {}

/// The constants of one suite (built once per process).
pub struct SuiteData<S: ArcSuite> {
    /// `generatorG` (affine, encoded).
    pub(crate) g: Affine<S::Curve>,
    pub(crate) g_enc: <S::Curve as Curve>::Compressed,
    /// `generatorH = HashToGroup(SerializeElement(G), "generatorH")`.
    pub(crate) h: Affine<S::Curve>,
    pub(crate) h_enc: <S::Curve as Curve>::Compressed,
    pub(crate) h_table: FixedBaseTable<S::Curve>,
    pub(crate) request_prefix: <S::Transcript as SigmaTranscript<S::Curve>>::Prefix,
    pub(crate) response_prefix: <S::Transcript as SigmaTranscript<S::Curve>>::Prefix,
    pub(crate) legacy_presentation_prefix: <S::Transcript as SigmaTranscript<S::Curve>>::Prefix,
    /// Indexed by `k - 1`.
    pub(crate) presentation_prefixes:
        [<S::Transcript as SigmaTranscript<S::Curve>>::Prefix; MAX_RANGE_BITS],
}

impl<S: ArcSuite> fmt::Debug for SuiteData<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SuiteData")
            .field("suite", &S::NAME)
            .field("h", &self.h)
            .finish()
    }
}

impl<S: ArcSuite> SuiteData<S> {
    fn build() -> Result<Self> {
        let g = Affine::<S::Curve>::generator();
        let g_enc = S::Curve::encode_compressed(&g);
        let h = group::to_affine(&S::Curve::hash_to_curve(
            S::XMD,
            &[g_enc.as_ref()],
            &[b"HashToGroup-", S::CONTEXT_STRING, b"generatorH"],
        )?);
        let h_enc = S::Curve::encode_compressed(&h);
        let h_table = FixedBaseTable::new_wide(&h);
        let session = |suffix: &'static [u8]| [S::CONTEXT_STRING, suffix];
        let request_prefix = S::Transcript::prefix(
            &session(b"CredentialRequest"),
            &statements::request_statement(),
        )?;
        let response_prefix = S::Transcript::prefix(
            &session(b"CredentialResponse"),
            &statements::response_statement(),
        )?;
        let legacy_presentation_prefix = S::Transcript::prefix(
            &session(b"CredentialPresentation"),
            &statements::legacy_presentation_statement(),
        )?;
        let mut eqs = [sigma::Equation::default(); sigma::MAX_EQUATIONS];
        let mut err = None;
        let presentation_prefixes = core::array::from_fn(|i| {
            let st = statements::presentation_statement(i + 1, &mut eqs);
            match S::Transcript::prefix(&session(b"CredentialPresentation"), &st) {
                Ok(p) => p,
                Err(e) => {
                    err = Some(e);
                    request_prefix.clone()
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        Ok(Self {
            g,
            g_enc,
            h,
            h_enc,
            h_table,
            request_prefix,
            response_prefix,
            legacy_presentation_prefix,
            presentation_prefixes,
        })
    }

    /// `generatorH` (affine).
    pub fn generator_h(&self) -> &Affine<S::Curve> {
        &self.h
    }

    /// `SerializeElement(generatorH)`.
    pub fn generator_h_bytes(&self) -> &[u8] {
        self.h_enc.as_ref()
    }
}

macro_rules! impl_suite {
    ($t:ty, $curve:ty, $transcript:ty, $ctx:expr, $xmd:expr, $id:expr, $name:expr, $hidden:expr, $static_name:ident) => {
        impl ArcSuite for $t {
            type Curve = $curve;
            type Transcript = $transcript;
            const CONTEXT_STRING: &'static [u8] = $ctx;
            const XMD: Xmd = $xmd;
            const SUITE_ID: u8 = $id;
            const NAME: &'static str = $name;
            const HIDDEN_NONCE: bool = $hidden;

            fn data() -> &'static SuiteData<Self> {
                static $static_name: OnceLock<SuiteData<$t>> = OnceLock::new();
                $static_name.get_or_init(|| match SuiteData::build() {
                    Ok(d) => d,
                    // Unreachable: the constant DSTs and statements are valid.
                    Err(e) => unreachable_suite(e),
                })
            }
        }
    };
}

#[cold]
#[allow(clippy::panic)]
fn unreachable_suite(e: crate::Error) -> ! {
    panic!("ARC suite constants failed to build: {e}") // ok: fixed DSTs and statements; covered by every ARC test
}

impl_suite!(
    ArcV2P256,
    crate::group::NistP256,
    Shake128Transcript,
    b"ARCV1-P256",
    Xmd::Sha256,
    1,
    "v2/P256",
    true,
    ARC_V2_P256
);
impl_suite!(
    ArcV1P256,
    crate::group::NistP256,
    HashToScalarTranscript<{ sigma::XMD_SHA256 }>,
    b"ARCV1-P256",
    Xmd::Sha256,
    2,
    "v1/P256",
    false,
    ARC_V1_P256
);
impl_suite!(
    ArcV1P384,
    crate::group::NistP384,
    HashToScalarTranscript<{ sigma::XMD_SHA384 }>,
    b"ARCV1-P384",
    Xmd::Sha384,
    3,
    "v1/P384",
    false,
    ARC_V1_P384
);

/// `HashToScalar(x, info)`: DST `"HashToScalar-" || contextString || info` (crypto-01 §"Ciphersuites").
pub(crate) fn hash_to_scalar<S: ArcSuite>(x: &[&[u8]], info: &[u8]) -> Result<Scalar<S::Curve>> {
    S::Curve::hash_to_scalar(S::XMD, x, &[b"HashToScalar-", S::CONTEXT_STRING, info])
}

/// `HashToGroup(x, info)`: DST `"HashToGroup-" || contextString || info`.
pub(crate) fn hash_to_group<S: ArcSuite>(
    x: &[&[u8]],
    info: &[u8],
) -> Result<group::Point<S::Curve>> {
    S::Curve::hash_to_curve(S::XMD, x, &[b"HashToGroup-", S::CONTEXT_STRING, info])
}

/// Where the protocol's random scalars come from.
///
/// Applications pass a `rand_core::CryptoRng`; [`hazmat`] lets test harnesses supply the exact
/// values of published vectors instead.
pub trait ScalarSource<C: Curve> {
    /// `G.RandomScalar()` of the ARC protocol (keys, `m1`, `r1`, `r2`, `b`, `a`, `r`, `z`,
    /// `nonceBlinding`, range-proof blindings).
    fn random_scalar(&mut self) -> Scalar<C>;
    /// A proof nonce of the sigma prover.
    fn proof_nonce(&mut self) -> Scalar<C>;
}

/// A [`ScalarSource`] over a cryptographic RNG: uniform scalars in `[1, n-1]`.
pub(crate) struct RngSource<'a, R: ?Sized>(pub(crate) &'a mut R);

impl<C: Curve, R: CryptoRng + ?Sized> ScalarSource<C> for RngSource<'_, R> {
    fn random_scalar(&mut self) -> Scalar<C> {
        group::random_scalar::<C>(self.0)
    }
    fn proof_nonce(&mut self) -> Scalar<C> {
        group::random_scalar::<C>(self.0)
    }
}
