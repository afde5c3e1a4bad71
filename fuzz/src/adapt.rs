//! One small adapter per library call whose signature is changing on another branch (see the
//! fuzz README): when those land, only these bodies change.

use privacy_tokens::arc::{Credential, HiddenNonceSuite, PresentationState};
use privacy_tokens::group::{Curve, LadderBlind, Scalar};
use privacy_tokens::trust_token::{self, IssuanceState};
use privacy_tokens::voprf::privacy_pass::{BatchTokenRequest, Issuer};
use privacy_tokens::voprf::{EvaluationElement, PoprfClient, Proof, VoprfServer};
use privacy_tokens::{Result, Suite};

/// `trust_token::Client::finish_issuance` (borrows the state today; it will consume it and hand
/// it back on failure: rebuild it from `IssuanceState::to_bytes` or take it from the error).
pub fn tt_finish_issuance(
    client: &trust_token::Client,
    state: &IssuanceState,
    response: &[u8],
) -> Result<Vec<trust_token::Token>> {
    client.finish_issuance(state, response)
}

/// An issuance state from its secret storage encoding (`from_bytes` today;
/// `from_secret_bytes` after the change).
pub fn tt_state_from_bytes(bytes: &[u8]) -> Result<IssuanceState> {
    IssuanceState::from_bytes(bytes)
}

/// The storage encoding of an issuance state (`to_bytes` today; `to_secret_bytes` after).
pub fn tt_state_to_bytes(state: &IssuanceState) -> Vec<u8> {
    state.to_bytes().to_vec()
}

/// The fixture's Privacy Pass issuer (`Issuer::new` today; `.with_max_batch(max)` after).
pub fn pp_issuer(server: VoprfServer<privacy_tokens::P384Sha384>) -> Issuer {
    Issuer::new(server)
}

/// `BatchTokenRequest::from_bytes` (`from_bytes_with_limit(bytes, max)` after the change).
pub fn pp_batch_request(bytes: &[u8]) -> Result<BatchTokenRequest> {
    BatchTokenRequest::from_bytes(bytes)
}

/// `PoprfClient::finalize` (unchanged signature; it will refuse an `info` other than the one
/// given at blind time).
pub fn poprf_finalize<S: Suite>(
    client: PoprfClient<S>,
    input: &[u8],
    info: &[u8],
    evaluated: &EvaluationElement<S>,
    proof: &Proof<S>,
) -> Result<privacy_tokens::suite::Output<S>> {
    client.finalize(input, info, evaluated, proof)
}

/// A fresh ARC presentation state for `context` (`Credential::presentation_state` today; one
/// state per context after the change).
pub fn arc_presentation_state<S: HiddenNonceSuite>(
    credential: &Credential<S>,
    context: &[u8],
    limit: u32,
) -> Result<PresentationState<S>> {
    credential.presentation_state(context, limit)
}

/// A ladder blind from a scalar (`LadderBlind::from_secret` accepts zero today; it will refuse
/// it): zero is mapped to one here, so the harness never depends on that.
pub fn ladder_blind<C: Curve>(rho: &Scalar<C>) -> LadderBlind<C> {
    use elliptic_curve::Field;
    let rho = if bool::from(rho.is_zero()) {
        Scalar::<C>::ONE
    } else {
        *rho
    };
    LadderBlind::from_secret(&rho)
}
