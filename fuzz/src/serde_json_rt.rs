//! `serde_json` decoding of every type with serde: whatever parses must serialize, parse again
//! and serialize to the same JSON.

use privacy_tokens::arc::{self, ArcV1P256, ArcV1P384, ArcV2P256};
use privacy_tokens::trust_token as tt;
use privacy_tokens::voprf::{self, privacy_pass as pp};
use privacy_tokens::{P256Sha256 as P256, P384Sha384 as P384};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Whether `data` parses (the seed maker keeps the JSON strings that do).
fn json_rt<T: Serialize + DeserializeOwned>(data: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<T>(data) else {
        return false;
    };
    let s1 = serde_json::to_string(&v).expect("serialize");
    let w: T = serde_json::from_str(&s1).expect("a serialized value does not parse");
    let s2 = serde_json::to_string(&w).expect("serialize");
    assert_eq!(s1, s2, "JSON round trip differs");
    true
}

/// The Trust Token issuance state has no plain serde, only the field attribute module
/// `trust_token::secret_issuance_state` (the same hex string). `IssuanceRequest` is
/// serialize-only and the ARC presentation states have no serde (the `Credential` cases carry
/// their counters).
#[derive(Serialize, serde::Deserialize)]
#[serde(transparent)]
struct SecretState(#[serde(with = "tt::secret_issuance_state")] tt::IssuanceState);

macro_rules! arc_types {
    ($($s:ty),*) => {[$(
        json_rt::<arc::CredentialRequest<$s>> as fn(&[u8]) -> bool,
        json_rt::<arc::CredentialResponse<$s>>,
        json_rt::<arc::Credential<$s>>,
        json_rt::<arc::ServerPublicKey<$s>>,
        json_rt::<arc::ServerPrivateKey<$s>>,
        json_rt::<arc::Tag<$s>>,
    )*]};
}

macro_rules! voprf_types {
    ($($s:ty),*) => {[$(
        json_rt::<voprf::SecretKey<$s>> as fn(&[u8]) -> bool,
        json_rt::<voprf::PublicKey<$s>>,
        json_rt::<voprf::BlindedElement<$s>>,
        json_rt::<voprf::EvaluationElement<$s>>,
        json_rt::<voprf::Proof<$s>>,
    )*]};
}

/// The cases, in selector order.
pub fn cases() -> Vec<fn(&[u8]) -> bool> {
    let mut v: Vec<fn(&[u8]) -> bool> = voprf_types!(P256, P384).to_vec();
    v.extend(arc_types!(ArcV2P256, ArcV1P256, ArcV1P384));
    v.extend([
        json_rt::<pp::TokenChallenge> as fn(&[u8]) -> bool,
        json_rt::<pp::TokenRequest>,
        json_rt::<pp::TokenResponse>,
        json_rt::<pp::Token>,
        json_rt::<pp::BatchTokenRequest>,
        json_rt::<pp::BatchTokenResponse>,
        json_rt::<tt::PrivateKey>,
        json_rt::<tt::PublicKey>,
        json_rt::<tt::Token>,
        json_rt::<tt::IssueResponse>,
        json_rt::<SecretState>,
        json_rt::<tt::Redemption>,
        json_rt::<tt::Method>,
        json_rt::<arc::Presentation<ArcV2P256>>,
        json_rt::<arc::LegacyPresentation<ArcV1P256>>,
        json_rt::<arc::LegacyPresentation<ArcV1P384>>,
    ]);
    v
}

/// `serde_json`: the selector byte picks the type (modulo the number of cases).
pub fn target(data: &[u8]) {
    static CASES: std::sync::OnceLock<Vec<fn(&[u8]) -> bool>> = std::sync::OnceLock::new();
    let cases = CASES.get_or_init(cases);
    let Some((sel, d)) = crate::split(data) else {
        return;
    };
    let _ = cases[usize::from(sel) % cases.len()](d);
}
