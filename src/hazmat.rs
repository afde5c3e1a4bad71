//! Dangerous, deterministic entry points for test vectors and interoperability testing.
//!
//! Everything here lets the caller choose values that must be secret and uniformly random in
//! real use (blinds, proof nonces). Reusing or predicting them breaks privacy or lets an observer
//! learn keys. Use the randomized APIs of [`crate::voprf`] in applications.

use crate::group::PrimeGroup;
use crate::suite::{Scalar, Suite};
use crate::voprf::{
    BlindResult, BlindedElement, EvaluationElement, OprfClient, PoprfClient, PoprfServer, Proof,
    PublicKey, VoprfClient, VoprfServer,
};
use crate::Result;
use zeroize::Zeroizing;

fn scalar<S: Suite>(bytes: &[u8]) -> Result<Scalar<S>> {
    S::Group::decode_nonzero_scalar(bytes)
}

/// OPRF `Blind` with the blind given as its `SerializeScalar` encoding, `Ns` bytes (big-endian
/// on the NIST curves, little-endian on ristretto255; RFC 9497 vectors' `Blind`).
///
/// # Errors
/// Scalar decoding errors, or those of [`OprfClient::blind`].
pub fn oprf_blind_with<S: Suite>(
    input: &[u8],
    blind: &[u8],
) -> Result<BlindResult<OprfClient<S>, S>> {
    OprfClient::blind_with_scalar(input, scalar::<S>(blind)?)
}

/// VOPRF `Blind` with a chosen blind.
///
/// # Errors
/// Scalar decoding errors, or those of [`VoprfClient::blind`].
pub fn voprf_blind_with<S: Suite>(
    input: &[u8],
    blind: &[u8],
) -> Result<BlindResult<VoprfClient<S>, S>> {
    VoprfClient::blind_with_scalar(input, scalar::<S>(blind)?)
}

/// POPRF `Blind` with a chosen blind.
///
/// # Errors
/// Scalar decoding errors, or those of [`PoprfClient::blind`].
pub fn poprf_blind_with<S: Suite>(
    input: &[u8],
    info: &[u8],
    public_key: &PublicKey<S>,
    blind: &[u8],
) -> Result<BlindResult<PoprfClient<S>, S>> {
    PoprfClient::blind_with_scalar(input, info, public_key, scalar::<S>(blind)?)
}

/// VOPRF batched `BlindEvaluate` with the proof nonce `r` given (RFC 9497 vectors' `Proof.r`).
///
/// # Errors
/// Scalar decoding errors, or those of [`VoprfServer::blind_evaluate_batch_into`].
pub fn voprf_blind_evaluate_with_nonce<S: Suite>(
    server: &VoprfServer<S>,
    blinded: &[BlindedElement<S>],
    out: &mut [EvaluationElement<S>],
    r: &[u8],
) -> Result<Proof<S>> {
    let r = Zeroizing::new(scalar::<S>(r)?);
    server.blind_evaluate_batch_with_nonce(blinded, out, &r)
}

/// POPRF batched `BlindEvaluate` with the proof nonce `r` given.
///
/// # Errors
/// Scalar decoding errors, or those of [`PoprfServer::blind_evaluate_batch`].
pub fn poprf_blind_evaluate_with_nonce<S: Suite>(
    server: &PoprfServer<S>,
    blinded: &[BlindedElement<S>],
    info: &[u8],
    out: &mut [EvaluationElement<S>],
    r: &[u8],
) -> Result<Proof<S>> {
    let r = Zeroizing::new(scalar::<S>(r)?);
    server.blind_evaluate_batch_with_nonce(blinded, info, out, &r)
}

/// The compressed length `Ne` of a suite's elements.
pub const fn element_len<S: Suite>() -> usize {
    <S::Group as PrimeGroup>::NE
}

/// Deterministic ARC entry points and the sigma-protocols test DRNG.
pub use crate::arc::hazmat as arc;

/// Deterministic ACT entry points (ACTv1 with caller-chosen randomness), for the vectors only.
pub use crate::act::hazmat as act;

pub use crate::blind_rsa::RsaBlind;

/// RSA `Blind` (RFC 9474 §4.2, or the partially blind draft's §4.2 with `info`) with a chosen
/// salt and blind, for test vectors. `msg` is the prepared message (prefix included for the
/// Randomized variants).
///
/// # Errors
/// `OutOfRange` for a blind not below `n`, `Blinding` for one with no inverse, and those of
/// [`PublicKey::blind`](crate::blind_rsa::PublicKey::blind).
pub fn blind_rsa_blind_with(
    pk: &crate::blind_rsa::PublicKey,
    variant: crate::blind_rsa::Variant,
    msg: &[u8],
    info: Option<&[u8]>,
    salt: &[u8],
    blind: RsaBlind<'_>,
) -> Result<(
    crate::blind_rsa::BlindedMessage,
    crate::blind_rsa::BlindingState,
)> {
    crate::blind_rsa::blind_for_vectors(pk, variant, msg, info, salt, blind)
}

/// EMSA-PSS-ENCODE with SHA-384 (RFC 8017 §9.1.1) at `em_bits` with a chosen salt: the
/// intermediate `encoded_msg` of RFC 9474's vectors.
///
/// # Errors
/// `InvalidLength` when `em_bits` is too small for the salt.
pub fn emsa_pss_encode(msg: &[u8], em_bits: u32, salt: &[u8]) -> Result<Vec<u8>> {
    crate::blind_rsa::pss_encode(msg, em_bits, salt)
}
