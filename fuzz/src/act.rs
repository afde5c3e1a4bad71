//! ACT (`ACTv1-P256-SHA256`) targets: every decoder, and the verifiers and finalisations on
//! random message bytes against one per-process fixture (`L = 4`).

use std::sync::OnceLock;

use privacy_tokens::act::{
    hazmat as ah, ClientIssuanceState, ClientSpendState, Credential, CredentialContext,
    IssueRequest, IssueResponse, PrivateKey, PublicKey, Refund, Spend,
};

use crate::{roundtrip, split};

/// The fixture's width.
pub const L: u8 = 4;
const CTX_SPEND: &[u8] = b"fuzz ctx_spend";

/// One key, context, and a valid message of every type with the client states behind them.
pub struct ActFix {
    pub key: PrivateKey,
    pub ctx: CredentialContext,
    pub request: Vec<u8>,
    pub issuance_state: Vec<u8>,
    pub response: Vec<u8>,
    pub credential: Vec<u8>,
    pub spends: Vec<Vec<u8>>,
    pub spend_state: Vec<u8>,
    pub refund: Vec<u8>,
}

/// The per-process fixture.
pub fn fix() -> &'static ActFix {
    static FIX: OnceLock<ActFix> = OnceLock::new();
    FIX.get_or_init(|| {
        let key = ah::generate_key_pair(&[7; 48]).expect("fixture key");
        let ctx = CredentialContext::with_width(b"fuzz context", L).expect("fixture context");
        let req = ah::issue_request(&[1; 96]).expect("fixture request");
        let issuance_state = req.state.to_bytes().to_vec();
        let resp = ah::issue_response(&key, &ctx, 9, &req.message, &[2; 96]).expect("response");
        let cred = req
            .state
            .finalize(&ctx, key.public_key(), &resp)
            .map_err(|r| r.error)
            .expect("fixture credential");
        let credential = cred.to_bytes().to_vec();
        let copy = || Credential::from_bytes(&credential).expect("credential");
        let mut spends = Vec::new();
        for (s, a) in [(0, 0), (0, 3), (2, 3)] {
            let sp = ah::prove_spend(copy(), &ctx, s, a, CTX_SPEND, &[3; 96]).expect("spend");
            spends.push(sp.message.to_bytes());
        }
        let sp = ah::prove_spend(copy(), &ctx, 3, 0, CTX_SPEND, &[4; 96]).expect("spend");
        let verified = key
            .verify_spend(&ctx, &sp.message, CTX_SPEND)
            .expect("verify");
        let refund = ah::issue_refund(&key, &ctx, &verified, 1, &[5; 96]).expect("refund");
        spends.push(sp.message.to_bytes());
        ActFix {
            request: req.message.to_bytes().to_vec(),
            issuance_state,
            response: resp.to_bytes().to_vec(),
            credential,
            spends,
            spend_state: sp.state.to_bytes().to_vec(),
            refund: refund.to_bytes().to_vec(),
            key,
            ctx,
        }
    })
}

/// A credential the fixture's Moderator must accept a spend of.
fn spends_and_verifies(c: Credential) {
    let f = fix();
    let s = c.balance().min(1);
    let sp = c
        .prove_spend(&f.ctx, s, 0, CTX_SPEND, &mut crate::rng(9))
        .expect("an accepted credential spends");
    f.key
        .verify_spend(&f.ctx, &sp.message, CTX_SPEND)
        .expect("its spend verifies");
}

/// `act_decode`: selector `kind + 8 * (L - 1)`; every decoder, round trip.
pub fn decode_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let l = (sel / 8) % 64 + 1;
    match sel % 8 {
        0 => drop(roundtrip(d, IssueRequest::from_bytes, |m| m.to_bytes())),
        1 => drop(roundtrip(d, IssueResponse::from_bytes, |m| m.to_bytes())),
        2 => drop(roundtrip(d, Refund::from_bytes, |m| m.to_bytes())),
        3 => {
            if let Some(m) = roundtrip(d, |b| Spend::from_bytes(b, l), |m| m.to_bytes()) {
                assert_eq!(Spend::encoded_len_for(l, m.amount(), m.top_up()), d.len());
            }
        }
        4 => drop(roundtrip(d, Credential::from_bytes, |c| {
            c.to_bytes().to_vec()
        })),
        5 => drop(roundtrip(d, ClientIssuanceState::from_bytes, |s| {
            s.to_bytes().to_vec()
        })),
        6 => drop(roundtrip(d, ClientSpendState::from_bytes, |s| {
            s.to_bytes().to_vec()
        })),
        _ => {
            let _ = roundtrip(d, PublicKey::from_bytes, |k| k.to_bytes());
            drop(roundtrip(d, PrivateKey::from_bytes, |k| {
                k.to_bytes().to_vec()
            }));
        }
    }
}

/// `act_verify`: `VerifySpend` (then `IssueRefund` of `s + a`), `IssueResponse` on request
/// bytes, `FinalizeIssue` and `FinalizeRefund` on response bytes with the fixture's states.
pub fn verify_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = fix();
    match sel % 4 {
        0 => {
            let Ok(m) = Spend::from_bytes(d, L) else {
                return;
            };
            if let Ok(v) = f.key.verify_spend(&f.ctx, &m, CTX_SPEND) {
                assert_eq!(&v.nullifier()[..], &d[..32]);
                let t = (m.amount() + m.top_up()).min(15);
                f.key
                    .issue_refund(&f.ctx, &v, t, &mut crate::rng(1))
                    .expect("a verified spend is refunded");
            }
        }
        1 => {
            let Ok(m) = IssueRequest::from_bytes(d) else {
                return;
            };
            let _ = f.key.issue(&f.ctx, 9, &m, &mut crate::rng(2));
        }
        2 => {
            let Ok(m) = IssueResponse::from_bytes(d) else {
                return;
            };
            let st = ClientIssuanceState::from_bytes(&f.issuance_state).expect("state");
            if let Ok(c) = st.finalize(&f.ctx, f.key.public_key(), &m) {
                spends_and_verifies(c);
            }
        }
        _ => {
            let Ok(m) = Refund::from_bytes(d) else { return };
            let st = ClientSpendState::from_bytes(&f.spend_state).expect("state");
            if let Ok(c) = st.finalize(&f.ctx, f.key.public_key(), &m) {
                spends_and_verifies(c);
            }
        }
    }
}
