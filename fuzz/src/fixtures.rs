//! Keys, clients and pending states made once per process (deterministically, so that the seeds
//! written by [`crate::seeds`] fit the state a target holds).

use std::sync::OnceLock;

use privacy_tokens::arc::{
    self, ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, Credential, CredentialRequest,
    ServerPrivateKey,
};
use privacy_tokens::trust_token::{self, IssuanceState, Method};
use privacy_tokens::voprf::privacy_pass::{self as pp, TokenChallenge};
use privacy_tokens::voprf::{OprfServer, PoprfServer, VoprfServer};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};

use crate::{adapt, rng};

/// The VOPRF client input of every fixture and seed.
pub const INPUT: &[u8] = b"fuzz input";
/// The POPRF public info of every fixture and seed.
pub const INFO: &[u8] = b"fuzz info";
/// The fixed blind (`Ns` bytes of 0x11: canonical and non-zero on both curves).
pub fn blind<S: Suite>() -> Vec<u8> {
    vec![0x11; <S::Group as privacy_tokens::group::PrimeGroup>::NS]
}

/// Servers of the three VOPRF modes for one suite.
pub struct VoprfFix<S: Suite> {
    /// Mode 0.
    pub oprf: OprfServer<S>,
    /// Mode 1.
    pub voprf: VoprfServer<S>,
    /// Mode 2.
    pub poprf: PoprfServer<S>,
}

/// Suites with a VOPRF fixture.
pub trait HasVoprfFix: Suite {
    /// The fixture.
    fn fix() -> &'static VoprfFix<Self>;
}

fn voprf_fix<S: Suite>() -> VoprfFix<S> {
    VoprfFix {
        oprf: OprfServer::derive(b"fuzz seed oprf", b"fuzz").expect("derive"),
        voprf: VoprfServer::derive(b"fuzz seed voprf", b"fuzz").expect("derive"),
        poprf: PoprfServer::derive(b"fuzz seed poprf", b"fuzz").expect("derive"),
    }
}

impl HasVoprfFix for P256Sha256 {
    fn fix() -> &'static VoprfFix<Self> {
        static F: OnceLock<VoprfFix<P256Sha256>> = OnceLock::new();
        F.get_or_init(voprf_fix)
    }
}

impl HasVoprfFix for P384Sha384 {
    fn fix() -> &'static VoprfFix<Self> {
        static F: OnceLock<VoprfFix<P384Sha384>> = OnceLock::new();
        F.get_or_init(voprf_fix)
    }
}

/// The Privacy Pass issuer and the challenge every client state answers.
pub struct PpFix {
    /// The issuer.
    pub issuer: pp::Issuer,
    /// The serialized `TokenChallenge`.
    pub challenge: Vec<u8>,
}

/// The Privacy Pass fixture.
pub fn pp() -> &'static PpFix {
    static F: OnceLock<PpFix> = OnceLock::new();
    F.get_or_init(|| PpFix {
        issuer: adapt::pp_issuer(
            VoprfServer::derive(b"fuzz seed privacy pass", b"PrivacyPass").expect("derive"),
        ),
        challenge: TokenChallenge::new(
            pp::TOKEN_TYPE,
            b"issuer.example".to_vec(),
            vec![],
            b"origin.example".to_vec(),
        )
        .expect("challenge")
        .to_bytes(),
    })
}

/// The fixed nonce of the Privacy Pass client states.
pub const PP_NONCE: [u8; 32] = [0x22; 32];

/// A fresh Privacy Pass client state (the same every time).
pub fn pp_state() -> pp::ClientState {
    let f = pp();
    pp::request_with(
        f.issuer.public_key(),
        &f.challenge,
        &PP_NONCE,
        &blind::<P384Sha384>(),
    )
    .expect("request")
    .1
}

/// A fresh batched Privacy Pass client state for two tokens (the same every time).
pub fn pp_batch_state() -> (pp::BatchTokenRequest, pp::BatchClientState) {
    let f = pp();
    pp::Client::request_batch(f.issuer.public_key(), &f.challenge, 2, &mut rng(2)).expect("batch")
}

/// A Trust Token issuer and client for one method, with one key (id 1) and a pending request.
pub struct TtFix {
    /// The issuer (max batch 4).
    pub issuer: trust_token::Issuer,
    /// The client (max batch 4).
    pub client: trust_token::Client,
    /// The wire message of a pending request for 3 tokens.
    pub request: Vec<u8>,
    /// The secret storage encoding of that request's state (`finish_issuance` consumes a
    /// state: [`TtFix::state`] restores a fresh one per use).
    pub state_bytes: Vec<u8>,
}

impl TtFix {
    /// A fresh copy of the pending request's state.
    pub fn state(&self) -> IssuanceState {
        adapt::tt_state_from_bytes(&self.state_bytes).expect("fixture state")
    }
}

/// The key id of the Trust Token fixtures.
pub const TT_KEY_ID: u32 = 1;
/// The methods the issue/redeem/finish targets run (BoringSSL's pst_v1 methods).
pub const TT_METHODS: [Method; 2] = [Method::PstV1Voprf, Method::PstV1Pmb];

fn tt_fix(method: Method) -> TtFix {
    let (sk, pk) = trust_token::derive_key_from_secret(method, TT_KEY_ID, b"fuzz").expect("key");
    let mut issuer = trust_token::Issuer::new(method, 4);
    issuer.add_key(sk).expect("add key");
    let mut client = trust_token::Client::new(method, 4);
    client.add_key(pk).expect("add key");
    let request = client.begin_issuance(3, &mut rng(3)).expect("begin");
    TtFix {
        issuer,
        client,
        state_bytes: adapt::tt_state_to_bytes(&request.state),
        request: request.message.clone(),
    }
}

/// The Trust Token fixture of `TT_METHODS[i % 2]`.
pub fn tt(i: u8) -> &'static TtFix {
    static F: OnceLock<[TtFix; 2]> = OnceLock::new();
    &F.get_or_init(|| TT_METHODS.map(tt_fix))[usize::from(i % 2)]
}

/// An ARC server key and a credential it issued, per suite.
pub struct ArcFix<S: ArcSuite> {
    /// The server key.
    pub key: ServerPrivateKey<S>,
    /// The storage encoding of a credential for [`ARC_REQUEST_CONTEXT`] that never presented
    /// (no counters). A credential keeps its presentation counters, so every use restores a
    /// fresh one with [`ArcFix::credential`].
    pub credential_bytes: Vec<u8>,
}

impl<S: ArcSuite> ArcFix<S> {
    /// A fresh copy of the fixture credential (no counters).
    pub fn credential(&self) -> Credential<S> {
        adapt::arc_credential(&self.credential_bytes).expect("fixture credential")
    }
}

/// The request context of the ARC fixtures.
pub const ARC_REQUEST_CONTEXT: &[u8] = b"fuzz request context";
/// The presentation context of the ARC fixtures.
pub const ARC_PRESENTATION_CONTEXT: &[u8] = b"fuzz presentation context";
/// The presentation limit of the ARC fixtures (k = 4 range bits).
pub const ARC_LIMIT: u32 = 10;

/// Suites with an ARC fixture.
pub trait HasArcFix: ArcSuite {
    /// The fixture.
    fn fix() -> &'static ArcFix<Self>;
}

fn arc_fix<S: ArcSuite>() -> ArcFix<S> {
    let key = ServerPrivateKey::<S>::random(&mut rng(4));
    let req = CredentialRequest::<S>::new(ARC_REQUEST_CONTEXT, &mut rng(5)).expect("request");
    let resp = key.issue(&req.message, &mut rng(6)).expect("issue");
    let credential = req
        .state
        .finalize(key.public_key(), &resp)
        .expect("finalize");
    ArcFix {
        key,
        credential_bytes: credential.to_bytes().to_vec(),
    }
}

macro_rules! has_arc_fix {
    ($($s:ty),*) => {$(
        impl HasArcFix for $s {
            fn fix() -> &'static ArcFix<Self> {
                static F: OnceLock<ArcFix<$s>> = OnceLock::new();
                F.get_or_init(arc_fix)
            }
        }
    )*};
}
has_arc_fix!(ArcV2P256, ArcV1P256, ArcV1P384);

/// The ARC Privacy Pass issuer and its challenge.
pub struct ArcPpFix {
    /// The issuer (key of the `ArcV2P256` fixture).
    pub issuer: arc::privacy_pass::Issuer,
    /// The challenge tokens answer.
    pub challenge: arc::privacy_pass::TokenChallenge,
}

/// The ARC Privacy Pass fixture.
pub fn arc_pp() -> &'static ArcPpFix {
    static F: OnceLock<ArcPpFix> = OnceLock::new();
    F.get_or_init(|| {
        let key = ServerPrivateKey::<ArcV2P256>::random(&mut rng(4));
        ArcPpFix {
            issuer: arc::privacy_pass::Issuer::new(key),
            challenge: arc::privacy_pass::TokenChallenge::new(
                b"issuer.example",
                &[],
                b"origin.example",
                &[],
            )
            .expect("challenge"),
        }
    })
}
