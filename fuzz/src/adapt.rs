//! One small adapter per library call whose signature changed (see the fuzz README): the
//! consuming `finish_issuance`, the secret issuance state encoding, the Privacy Pass batch cap,
//! POPRF finalize, the ARC presentation states that live in the credential, and
//! `LadderBlind::from_secret`.

use privacy_tokens::arc::{
    ClearNonceSuite, Credential, HiddenNonceSuite, LegacyPresentationState, PresentationState,
};
use privacy_tokens::group::{Curve, LadderBlind, Scalar};
use privacy_tokens::trust_token::{self, IssuanceState};
use privacy_tokens::voprf::privacy_pass::{BatchTokenRequest, BatchTokenResponse, Issuer};
use privacy_tokens::voprf::{EvaluationElement, PoprfClient, Proof, VoprfServer};
use privacy_tokens::{Result, Suite};

/// `trust_token::Client::finish_issuance`, which consumes the state and hands it back in the
/// error on failure: a state handed back must be the one passed in, unchanged (its secret
/// encoding is compared).
pub fn tt_finish_issuance(
    client: &trust_token::Client,
    state: IssuanceState,
    response: &[u8],
) -> Result<Vec<trust_token::Token>> {
    let before = state.to_secret_bytes();
    client.finish_issuance(state, response).map_err(|e| {
        assert_eq!(
            hex::encode(&*e.state.to_secret_bytes()),
            hex::encode(&*before),
            "a failed finish_issuance hands back a changed state"
        );
        e.into()
    })
}

/// An issuance state from its secret storage encoding (`IssuanceState::from_secret_bytes`).
pub fn tt_state_from_bytes(bytes: &[u8]) -> Result<IssuanceState> {
    IssuanceState::from_secret_bytes(bytes)
}

/// The secret storage encoding of an issuance state (`IssuanceState::to_secret_bytes`).
pub fn tt_state_to_bytes(state: &IssuanceState) -> Vec<u8> {
    state.to_secret_bytes().to_vec()
}

/// The batch cap of the fixture's Privacy Pass issuer: small, so that the fuzzer reaches it
/// (and passes it) within libFuzzer's default input length, and each input stays cheap.
pub const PP_MAX_BATCH: u16 = 16;

/// The fixture's Privacy Pass issuer (`Issuer::new(..).with_max_batch(PP_MAX_BATCH)`).
pub fn pp_issuer(server: VoprfServer<privacy_tokens::P384Sha384>) -> Issuer {
    Issuer::new(server).with_max_batch(PP_MAX_BATCH)
}

/// `BatchTokenRequest::from_bytes_with_limit(bytes, PP_MAX_BATCH)`, the issuer's decoding.
pub fn pp_batch_request(bytes: &[u8]) -> Result<BatchTokenRequest> {
    BatchTokenRequest::from_bytes_with_limit(bytes, PP_MAX_BATCH)
}

/// `Issuer::issue_batch_from_bytes`: request bytes straight into batched issuance.
pub fn pp_issue_batch(
    issuer: &Issuer,
    rng: &mut (impl rand::CryptoRng + ?Sized),
    bytes: &[u8],
) -> Result<BatchTokenResponse> {
    issuer.issue_batch_from_bytes(rng, bytes)
}

/// `PoprfClient::finalize` (refuses an `info` other than the one given at blind time with
/// `Error::InfoMismatch`).
pub fn poprf_finalize<S: Suite>(
    client: PoprfClient<S>,
    input: &[u8],
    info: &[u8],
    evaluated: &EvaluationElement<S>,
    proof: &Proof<S>,
) -> Result<privacy_tokens::suite::Output<S>> {
    client.finalize(input, info, evaluated, proof)
}

/// The ARC presentation state of `context` kept in `credential`
/// (`Credential::presentation_state`: a view borrowing the credential, continuing its counter).
pub fn arc_presentation_state<'a, S: HiddenNonceSuite>(
    credential: &'a mut Credential<S>,
    context: &[u8],
    limit: u32,
) -> Result<PresentationState<'a, S>> {
    credential.presentation_state(context, limit)
}

/// The legacy ARC presentation state of `context` kept in `credential`
/// (`Credential::legacy_presentation_state`; `rng` only draws the permutation of a new context).
pub fn arc_legacy_presentation_state<'a, S: ClearNonceSuite>(
    credential: &'a mut Credential<S>,
    context: &[u8],
    limit: u32,
    rng: &mut (impl rand::CryptoRng + ?Sized),
) -> Result<LegacyPresentationState<'a, S>> {
    credential.legacy_presentation_state(context, limit, rng)
}

/// An ARC credential from its storage encoding (key material and per-context counters).
pub fn arc_credential<S: privacy_tokens::arc::ArcSuite>(bytes: &[u8]) -> Result<Credential<S>> {
    Credential::<S>::from_bytes(bytes)
}

/// A ladder blind from a scalar: `LadderBlind::from_secret` refuses zero (`None`), checked
/// here; zero is then mapped to one, so the harness still gets a blind.
pub fn ladder_blind<C: Curve>(rho: &Scalar<C>) -> LadderBlind<C> {
    use elliptic_curve::Field;
    let zero = bool::from(rho.is_zero());
    match LadderBlind::from_secret(rho) {
        Some(b) => {
            assert!(!zero, "LadderBlind::from_secret accepts zero");
            b
        }
        None => {
            assert!(zero, "LadderBlind::from_secret refuses a non-zero scalar");
            LadderBlind::from_secret(&Scalar::<C>::ONE).expect("one is non-zero")
        }
    }
}
