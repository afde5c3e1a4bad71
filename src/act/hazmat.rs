//! Deterministic ACT entry points for test vectors. Dangerous: each `rand` here stands for the
//! bytes an algorithm draws from `random` (ACT §5.2), which must be fresh and secret in real
//! use; replaying them reuses blinds and nonces and breaks unlinkability or leaks `skM`.
//!
//! Every `rand` is the concatenation of an algorithm's draws in call order: 48 bytes for key
//! generation, 96 (two `Nseed` blocks: scalars, then prover nonces) for everything else.

use super::{
    ClientIssuanceState, Credential, CredentialContext, IssueRequest, IssueRequestResult,
    IssueResponse, PrivateKey, Refund, SpendResult, VerifiedSpend, SEED_LEN,
};
use crate::Result;

/// `GenerateKeyPair` with its 48 random bytes given (`DeriveKeyPair(rand, "GenerateKeyPair")`).
///
/// # Errors
/// As [`PrivateKey::derive`].
pub fn generate_key_pair(rand: &[u8; SEED_LEN]) -> Result<PrivateKey> {
    PrivateKey::derive(rand, b"GenerateKeyPair")
}

/// `IssueRequest` with its 96 random bytes given.
///
/// # Errors
/// As [`ClientIssuanceState::request`].
pub fn issue_request(rand: &[u8; 2 * SEED_LEN]) -> Result<IssueRequestResult> {
    ClientIssuanceState::request_with(rand)
}

/// `IssueResponse` with its 96 random bytes given.
///
/// # Errors
/// As [`PrivateKey::issue`].
pub fn issue_response(
    key: &PrivateKey,
    ctx: &CredentialContext,
    c: u64,
    request: &IssueRequest,
    rand: &[u8; 2 * SEED_LEN],
) -> Result<IssueResponse> {
    key.issue_with(ctx, c, request, rand)
}

/// `ProveSpend` with its 96 random bytes given.
///
/// # Errors
/// As [`Credential::prove_spend`].
pub fn prove_spend(
    credential: Credential,
    ctx: &CredentialContext,
    s: u64,
    a: u64,
    ctx_spend: &[u8],
    rand: &[u8; 2 * SEED_LEN],
) -> Result<SpendResult> {
    credential.prove_spend_with(ctx, s, a, ctx_spend, rand)
}

/// `IssueRefund` with its 96 random bytes given.
///
/// # Errors
/// As [`PrivateKey::issue_refund`].
pub fn issue_refund(
    key: &PrivateKey,
    ctx: &CredentialContext,
    spend: &VerifiedSpend,
    t: u64,
    rand: &[u8; 2 * SEED_LEN],
) -> Result<Refund> {
    key.issue_refund_with(ctx, spend, t, rand)
}
