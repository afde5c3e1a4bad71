//! Dangerous, deterministic entry points for test vectors and interoperability testing.
//!
//! A fixed or predictable proof nonce reveals the issuer's key to anyone who sees two proofs
//! made with it. Never use these in production; use [`Issuer::issue`].

use rand_core::CryptoRng;

use crate::group;
use crate::{Error, Result};

use super::{IssueResponse, Issuer, C};

/// [`Issuer::issue`] for a VOPRF method with the proof nonce given as 48 big-endian bytes, as
/// BoringSSL's `voprf_pst1_sign_with_proof_scalar_for_testing` (`crypto/trust_token/voprf.cc`),
/// which its `PSTV1VOPRFTestVector1/2/3` tests use to reproduce RFC 9497 A.4.2 proofs.
///
/// # Errors
/// [`Error::UnsupportedValue`] for a PMB method (its proofs take several nonces); scalar
/// decoding errors for the nonce; otherwise those of [`Issuer::issue`].
pub fn issue_with_proof_scalar(
    issuer: &Issuer,
    request: &[u8],
    key_id: u32,
    max_issuance: u16,
    proof_scalar: &[u8],
    rng: &mut (impl CryptoRng + ?Sized),
) -> Result<IssueResponse> {
    if issuer.method().has_private_metadata() {
        return Err(Error::UnsupportedValue);
    }
    let r = group::decode_nonzero_scalar::<C>(proof_scalar)?;
    issuer.issue_impl(request, key_id, false, max_issuance, rng, Some(r))
}
