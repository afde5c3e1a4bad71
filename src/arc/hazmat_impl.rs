//! Deterministic ARC entry points for test vectors. Dangerous: every value drawn here must be
//! secret and uniformly random in real use.

use elliptic_curve::bigint::{NonZero, U768};
use elliptic_curve::ff::{Field, PrimeField};
use shake::digest::{ExtendableOutput, Update, XofReader};

use super::issuance::{Credential, CredentialRequest, CredentialResponse, RequestResult};
use super::keys::ServerPrivateKey;
use super::legacy::{make_legacy_presentation, LegacyPresentation, LegacyPresentationState};
use super::presentation::{make_presentation, Presentation, PresentationState};
use super::sigma03::{
    decode_uint, derive_session_id, derive_session_id_pieces, DuplexSponge, Flavor,
};
use super::{ArcSuite, ClearNonceSuite, HiddenNonceSuite};
use crate::group::{Affine, Curve, Scalar};
use crate::Result;

pub use super::ScalarSource;

/// The seed of the published crypto-01 vectors: `"test vector seed" || 16 zero bytes`.
pub const PUBLISHED_SEED: [u8; 32] = *b"test vector seed\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";

/// The sigma-protocols `TestDRNG` (SHAKE128 over `pad168("sigma-proofs/TestDRNG/SHAKE128") ||
/// seed`, read as one stream) with the draws of the ARC reference code: ARC-level scalars are
/// `OS2IP(Ns + 16 bytes) mod (n - 1)` (in `[0, n-2]`, as the PoC does, not the spec's
/// `[1, n-1]`), proof nonces `OS2IP(Ns + 16 bytes) mod n`.
pub struct TestDrng {
    reader: <shake::Shake128 as ExtendableOutput>::Reader,
}

impl core::fmt::Debug for TestDrng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("TestDrng")
    }
}

impl TestDrng {
    /// A generator for `seed`.
    pub fn new(seed: &[u8]) -> Self {
        let mut h = shake::Shake128::default();
        let mut iv = [0u8; 168];
        let label = b"sigma-proofs/TestDRNG/SHAKE128";
        iv[..label.len()].copy_from_slice(label);
        h.update(&iv);
        h.update(seed);
        Self {
            reader: h.finalize_xof(),
        }
    }

    /// The generator of the published vectors ([`PUBLISHED_SEED`]).
    pub fn published() -> Self {
        Self::new(&PUBLISHED_SEED)
    }

    /// `OS2IP(next Ns + 16 bytes) mod (n - sub)`.
    fn draw<C: Curve>(&mut self, sub: u64) -> Scalar<C> {
        let n = C::SCALAR_LEN + 16;
        let mut buf = [0u8; 96];
        self.reader.read(&mut buf[96 - n..]);
        let x = U768::from_be_slice(&buf);
        // n - sub as a 768-bit integer, from the scalar field's `-sub` (= n - sub).
        let m = -Scalar::<C>::from(sub);
        let mut mb = [0u8; 96];
        let repr = m.to_repr();
        mb[96 - repr.len()..].copy_from_slice(&repr);
        let modulus = U768::from_be_slice(&mb);
        let modulus = if sub == 0 {
            // n itself: `-0` is 0, so build n = (n - 1) + 1.
            let nm1 = -Scalar::<C>::ONE;
            let mut b = [0u8; 96];
            let r = nm1.to_repr();
            b[96 - r.len()..].copy_from_slice(&r);
            U768::from_be_slice(&b).wrapping_add(&U768::ONE)
        } else {
            modulus
        };
        let nz: Option<NonZero<U768>> = NonZero::new(modulus).into();
        let rem = match nz {
            Some(nz) => x.rem(&nz),
            None => U768::ZERO,
        };
        let bytes = rem.to_be_bytes();
        let mut repr = elliptic_curve::FieldBytes::<C>::default();
        let len = repr.len();
        repr.copy_from_slice(&bytes[96 - len..]);
        Option::from(Scalar::<C>::from_repr(repr)).unwrap_or(Scalar::<C>::ZERO)
    }
}

impl<C: Curve> ScalarSource<C> for TestDrng {
    fn random_scalar(&mut self) -> Scalar<C> {
        self.draw::<C>(1)
    }
    fn proof_nonce(&mut self) -> Scalar<C> {
        self.draw::<C>(0)
    }
}

/// `SetupServer` with the scalars drawn from `src` (`x0, x1, x2, x0Blinding`).
pub fn server_key_with<S: ArcSuite>(src: &mut impl ScalarSource<S::Curve>) -> ServerPrivateKey<S> {
    ServerPrivateKey::generate_with(src)
}

/// A server key from given scalars `x0, x1, x2, x0Blinding` (canonical, non-zero).
///
/// # Errors
/// Scalar decoding errors.
pub fn server_key_from_scalars<S: ArcSuite>(
    x0: &[u8],
    x1: &[u8],
    x2: &[u8],
    xb: &[u8],
) -> Result<ServerPrivateKey<S>> {
    let d = |b: &[u8]| crate::group::decode_nonzero_scalar::<S::Curve>(b);
    Ok(ServerPrivateKey::from_scalars(
        d(x0)?,
        d(x1)?,
        d(x2)?,
        d(xb)?,
    ))
}

/// `CreateCredentialRequest` drawing `m1, r1, r2` and then the 4 proof nonces from `src`.
///
/// # Errors
/// As [`CredentialRequest::new`].
pub fn request_with<S: ArcSuite>(
    request_context: &[u8],
    src: &mut impl ScalarSource<S::Curve>,
) -> Result<RequestResult<S>> {
    CredentialRequest::new_with(request_context, src)
}

/// `CreateCredentialResponse` drawing `b` and then the 7 proof nonces from `src`.
///
/// # Errors
/// As [`ServerPrivateKey::issue`].
pub fn issue_with<S: ArcSuite>(
    key: &ServerPrivateKey<S>,
    request: &CredentialRequest<S>,
    src: &mut impl ScalarSource<S::Curve>,
) -> Result<CredentialResponse<S>> {
    key.issue_with(request, src)
}

/// `Present` from a state, drawing `a, r, z, nonceBlinding, s[0..k-1]` and the proof nonces.
///
/// # Errors
/// As [`PresentationState::present`].
pub fn present_with<S: HiddenNonceSuite>(
    state: &mut PresentationState<'_, S>,
    src: &mut impl ScalarSource<S::Curve>,
) -> Result<Presentation<S>> {
    state.present_with(src)
}

/// A presentation for an explicit `nonce`, outside the credential's counters: the nonce may
/// repeat (for vectors and tests only; a repeated nonce repeats the tag).
///
/// # Errors
/// [`crate::Error::LimitExceeded`] for `nonce >= limit` or `limit < 2`;
/// [`crate::Error::InputTooLong`] for a context longer than [`super::MAX_CONTEXT_LEN`].
pub fn present_nonce_with<S: HiddenNonceSuite>(
    credential: &Credential<S>,
    presentation_context: &[u8],
    nonce: u32,
    limit: u32,
    src: &mut impl ScalarSource<S::Curve>,
) -> Result<Presentation<S>> {
    let t = generator_t::<S>(presentation_context)?;
    make_presentation(&credential.key, &t, nonce, limit, src)
}

/// A legacy presentation from a state, drawing `a, r, z` and the 4 proof nonces.
///
/// # Errors
/// As [`LegacyPresentationState::present`].
pub fn legacy_present_with<S: ClearNonceSuite>(
    state: &mut LegacyPresentationState<'_, S>,
    src: &mut impl ScalarSource<S::Curve>,
) -> Result<(LegacyPresentation<S>, u32)> {
    state.present_with(src)
}

/// A legacy presentation for an explicit nonce, outside the credential's counters (it may
/// repeat; for vectors and tests only).
///
/// # Errors
/// [`crate::Error::InputTooLong`] for a context longer than [`super::MAX_CONTEXT_LEN`];
/// hashing errors.
pub fn legacy_present_nonce_with<S: ClearNonceSuite>(
    credential: &Credential<S>,
    presentation_context: &[u8],
    nonce: u32,
    src: &mut impl ScalarSource<S::Curve>,
) -> Result<LegacyPresentation<S>> {
    let t = generator_t::<S>(presentation_context)?;
    make_legacy_presentation(&credential.key, &t, nonce, src)
}

fn generator_t<S: ArcSuite>(presentation_context: &[u8]) -> Result<Affine<S::Curve>> {
    super::issuance::check_context(presentation_context)?;
    Ok(crate::group::to_affine(&super::hash_to_group::<S>(
        &[presentation_context],
        b"Tag",
    )?))
}

/// `SerializeElement(generatorH)` of a suite.
pub fn generator_h_bytes<S: ArcSuite>() -> Vec<u8> {
    S::data().generator_h_bytes().to_vec()
}

/// The credential's secret `m1` (serialized), for vector comparison.
pub fn credential_m1<S: ArcSuite>(credential: &Credential<S>) -> Vec<u8> {
    S::Curve::scalar_bytes(&credential.key.m1).as_ref().to_vec()
}

/// A presentation's nonce commitment and range commitments `D[0..k]` (serialized).
pub fn presentation_commitments<S: HiddenNonceSuite>(
    p: &Presentation<S>,
) -> (Vec<u8>, Vec<Vec<u8>>) {
    (
        S::Curve::encode_compressed(&p.nonce_commit)
            .as_ref()
            .to_vec(),
        p.d[..p.k]
            .iter()
            .map(|d| S::Curve::encode_compressed(d).as_ref().to_vec())
            .collect(),
    )
}

/// `m2 = HashToScalar(requestContext, "requestContext")`, serialized.
///
/// # Errors
/// Hashing errors.
pub fn request_context_scalar<S: ArcSuite>(request_context: &[u8]) -> Result<Vec<u8>> {
    let m2 = super::issuance::request_context_scalar::<S>(request_context)?;
    Ok(S::Curve::scalar_bytes(&m2).as_ref().to_vec())
}

/// The seeded PRNG of draft-irtf-cfrg-sigma-protocols-03 Appendix "Seeded PRNG": a duplex sponge
/// on `DeriveSessionID(tag)`, each scalar `DecodeField(Squeeze(Ns + 16))`. Deterministic: for
/// the published vectors only.
#[derive(Clone, Debug)]
pub struct Sigma03TestDrng(DuplexSponge);

impl Sigma03TestDrng {
    /// The stream of `tag`.
    pub fn new(tag: &[u8]) -> Self {
        Self(DuplexSponge::new(&derive_session_id(tag)))
    }

    /// A vector's stream: `TestDRNG-SIGMA-PROOFS-{ciphersuite}-{relation}` (the instance and
    /// witness scalars) without a flavor, `TestDRNG-SIGMA-PROOFS-{marker}-{ciphersuite}-
    /// {relation}` (that flavor's proof nonces) with one.
    pub fn for_vector(ciphersuite: &str, relation: &str, flavor: Option<Flavor>) -> Self {
        let marker = flavor.map_or("", Flavor::marker);
        let dash: &[u8] = if flavor.is_some() { b"-" } else { b"" };
        let sid = derive_session_id_pieces(&[
            b"TestDRNG-SIGMA-PROOFS-",
            marker.as_bytes(),
            dash,
            ciphersuite.as_bytes(),
            b"-",
            relation.as_bytes(),
        ]);
        Self(DuplexSponge::new(&sid))
    }

    /// The next scalar.
    pub fn next_scalar<C: Curve>(&mut self) -> Scalar<C> {
        let mut wide = [0u8; 48 + 16];
        let n = C::SCALAR_LEN + 16;
        self.0.squeeze(&mut wide[..n]);
        decode_uint::<C>(&wide[..n]).unwrap_or(Scalar::<C>::ZERO)
    }
}
