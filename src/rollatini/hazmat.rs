//! Deterministic Rollatini entry points for test vectors. Dangerous: each `rand` here stands
//! for the bytes an algorithm draws from `random` (IHAT §7.2), which must be fresh and secret
//! in real use; replaying them reuses blinds and nonces, which links redemptions, and a
//! replayed `Commit` answered twice leaks `skA`.
//!
//! Every `rand` is the concatenation of an algorithm's draws in call order: 48 bytes for key
//! generation and `Commit`, 80 (`nf`, then one `Nseed` block) for `Challenge`, 96 (two
//! `Nseed` blocks) for `Redeem`.

use zeroize::Zeroizing;

use super::issuance::CHALLENGE_RAND_LEN;
use super::redemption::REDEEM_RAND_LEN;
use super::{
    act, Anchor, AnchorSet, AnchorState, ChallengeResult, ClientState, CommitMessage, CommitResult,
    Endorsement, PublicKey, Redemption, CTX, SCALAR_LEN, SEED_LEN,
};
use crate::act::Rejected;
use crate::Result;

/// `GenerateKeyPair` with its 48 random bytes given (`DeriveKeyPair(rand, "GenerateKeyPair")`).
///
/// # Errors
/// As [`Anchor::derive`].
pub fn generate_key_pair(rand: &[u8; SEED_LEN]) -> Result<Anchor> {
    Anchor::derive(rand, b"GenerateKeyPair")
}

/// `DeriveScalars(rand, info, count)` under Rollatini's `ctx_proto`, encoded.
///
/// # Errors
/// [`crate::Error::InputTooLong`] for `info` of 65536 bytes or more; [`crate::Error::ZeroScalar`] for a
/// derived zero.
pub fn derive_scalars(
    rand: &[u8; SEED_LEN],
    info: &[u8],
    count: usize,
) -> Result<Zeroizing<Vec<[u8; SCALAR_LEN]>>> {
    let d = super::derive_scalars(rand, info, count)?;
    Ok(Zeroizing::new(d.iter().map(act::encode_scalar).collect()))
}

/// `CreateContextBase(ctx_iss)`, encoded.
///
/// # Errors
/// [`crate::Error::InputTooLong`] for a `ctx_iss` of 65536 bytes or more.
pub fn context_base(ctx_iss: &[u8]) -> Result<[u8; 33]> {
    Ok(act::encode_element(&super::context_base(ctx_iss)?))
}

/// `Commit` with its 48 random bytes given.
///
/// # Errors
/// As [`Anchor::commit`].
pub fn commit(ctx_iss: &[u8], session_id: &[u8], rand: &[u8; SEED_LEN]) -> Result<CommitResult> {
    Anchor::commit_with(ctx_iss, session_id, rand)
}

/// The Anchor's state `a || y || t` (the draft's `AnchorState` layout), in a wiping buffer.
/// There is no decoder: a state is used once, in memory.
pub fn anchor_state_bytes(state: &AnchorState) -> Zeroizing<Vec<u8>> {
    state.to_bytes()
}

/// `Challenge` with its 80 random bytes given.
///
/// # Errors
/// As [`ClientState::challenge`].
pub fn challenge(
    anchor: &PublicKey,
    ctx_iss: &[u8],
    ctx_red: &[u8],
    commit: &CommitMessage,
    rand: &[u8; CHALLENGE_RAND_LEN],
) -> Result<ChallengeResult> {
    ClientState::challenge_with(anchor, ctx_iss, ctx_red, commit, rand)
}

/// The Client's state `nf || r1 || r2 || gamma1 || gamma2 || c`, in a wiping buffer.
pub fn client_state_bytes(state: &ClientState) -> Zeroizing<Vec<u8>> {
    state.to_bytes()
}

/// `Redeem` with the Anchor's position `index` and the 96 random bytes given.
///
/// # Errors
/// As [`Endorsement::redeem`]; [`crate::Error::InvalidInput`] for `index` outside the set.
pub fn redeem(
    endorsement: Endorsement,
    anchor_set: &AnchorSet,
    index: u16,
    ctx_iss: &[u8],
    ctx_red: &[u8],
    challenge_digest: &[u8],
    rand: &[u8; REDEEM_RAND_LEN],
) -> core::result::Result<Redemption, Rejected<Endorsement>> {
    if usize::from(index) >= anchor_set.len() {
        return Err(Rejected {
            state: Box::new(endorsement),
            error: crate::Error::InvalidInput,
        });
    }
    endorsement.redeem_with(anchor_set, index, ctx_iss, ctx_red, challenge_digest, rand)
}

/// `P(point)` (`inverse = false`) or `Pinv(point)` of a public point, encoded (IHAT §6.2.3).
///
/// # Errors
/// [`crate::Error::InvalidLength`], [`crate::Error::InvalidPoint`] or [`crate::Error::IdentityElement`] for a bad
/// encoding.
pub fn vartime_permute(point: &[u8], inverse: bool) -> Result<[u8; 33]> {
    use super::permutation::{vartime_p, Direction};
    use crate::group::Curve;
    let p = super::C::decode_compressed(point)?;
    let dir = if inverse {
        Direction::Backward
    } else {
        Direction::Forward
    };
    Ok(act::encode_element(&vartime_p(&p, dir)?))
}

/// The Rollatini `ctx_proto` as bytes (for replay tools).
pub fn ctx_proto() -> &'static [u8] {
    CTX
}
