//! Rollatini (`Rollatiniv1-P256-SHA256`) targets: every decoder, and `VerifyRedemption`,
//! `Verify`, `Respond` and `Finalize` on random message bytes against one per-process fixture
//! (an Anchor Set of 3 keys).

use std::sync::OnceLock;

use privacy_tokens::rollatini::{
    hazmat as rh, Anchor, AnchorSet, ChallengeMessage, CommitMessage, Endorsement, Moderator,
    PublicKey, Redemption, ResponseMessage,
};

use crate::{roundtrip, split};

const CTX_ISS: &[u8] = b"fuzz ctx_iss";
const CTX_RED: &[u8] = b"fuzz ctx_red";
const DIGEST: &[u8] = b"fuzz digest";

/// Three Anchors, their set, the Moderator, and one valid message of every type.
pub struct RollatiniFix {
    pub anchors: Vec<Anchor>,
    pub set: AnchorSet,
    pub moderator: Moderator,
    pub commit: Vec<u8>,
    pub challenge: Vec<u8>,
    pub response: Vec<u8>,
    pub endorsement: Vec<u8>,
    pub redemption: Vec<u8>,
}

/// The per-process fixture.
pub fn fix() -> &'static RollatiniFix {
    static FIX: OnceLock<RollatiniFix> = OnceLock::new();
    FIX.get_or_init(|| {
        let anchors: Vec<Anchor> = (0u8..3)
            .map(|i| rh::generate_key_pair(&[i + 1; 48]).expect("fixture key"))
            .collect();
        let keys: Vec<PublicKey> = anchors.iter().map(|a| *a.public_key()).collect();
        let set = AnchorSet::new(&keys).expect("fixture set");
        let moderator = Moderator::new(set.clone(), CTX_ISS, CTX_RED).expect("moderator");
        let a = &anchors[1];
        let c = rh::commit(CTX_ISS, b"fuzz session", &[4; 48]).expect("commit");
        let ch = rh::challenge(a.public_key(), CTX_ISS, CTX_RED, &c.message, &[5; 80])
            .expect("challenge");
        let resp = a.respond(c.state, &ch.message).expect("respond");
        let e = ch.state.finalize(a.public_key(), &resp).expect("finalize");
        let endorsement = e.to_bytes().to_vec();
        let r = rh::redeem(e, &set, 1, CTX_ISS, CTX_RED, DIGEST, &[6; 96]).expect("redeem");
        RollatiniFix {
            commit: c.message.to_bytes(),
            challenge: ch.message.to_bytes(),
            response: resp.to_bytes().to_vec(),
            endorsement,
            redemption: r.to_bytes(),
            anchors,
            set,
            moderator,
        }
    })
}

/// `rollatini_decode`: every message, the Endorsement, keys and Anchor Sets; a redemption for
/// the fixture's set of 3 (depth 2) or a one-key set (depth 0).
pub fn decode_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    match sel % 8 {
        0 => drop(roundtrip(d, CommitMessage::from_bytes, |m| m.to_bytes())),
        1 => drop(roundtrip(d, ChallengeMessage::from_bytes, |m| m.to_bytes())),
        2 => drop(roundtrip(d, ResponseMessage::from_bytes, |m| m.to_bytes())),
        3 => drop(roundtrip(d, Endorsement::from_bytes, |e| {
            e.to_bytes().to_vec()
        })),
        4 => drop(roundtrip(
            d,
            |b| Redemption::from_bytes(b, &fix().set),
            |r| r.to_bytes(),
        )),
        5 => {
            let one = AnchorSet::new(&[*fix().anchors[0].public_key()]).expect("set");
            drop(roundtrip(
                d,
                |b| Redemption::from_bytes(b, &one),
                |r| r.to_bytes(),
            ));
        }
        6 => drop(roundtrip(d, AnchorSet::from_bytes, |s| s.to_bytes())),
        _ => {
            let _ = roundtrip(d, PublicKey::from_bytes, |k| k.to_bytes());
            drop(roundtrip(d, Anchor::from_bytes, |k| k.to_bytes().to_vec()));
        }
    }
}

/// `rollatini_verify`: `VerifyRedemption` on redemption bytes (the fixture's one is accepted
/// with the Endorsement's nullifier), `Verify` on Endorsement bytes under each key, `Respond`
/// on challenge bytes and `Finalize` on response bytes against fresh fixture sessions.
pub fn verify_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = fix();
    match sel % 4 {
        0 => {
            let Ok(r) = Redemption::from_bytes(d, &f.set) else {
                return;
            };
            if let Ok(nf) = f.moderator.verify_redemption(&r, DIGEST) {
                assert_eq!(&nf, r.nullifier());
            }
        }
        1 => {
            let Ok(e) = Endorsement::from_bytes(d) else {
                return;
            };
            for a in &f.anchors {
                let _ = f.moderator.verify(a.public_key(), &e);
            }
        }
        2 => {
            let Ok(m) = ChallengeMessage::from_bytes(d) else {
                return;
            };
            let c = rh::commit(CTX_ISS, b"fuzz session", &[4; 48]).expect("commit");
            let _ = f.anchors[1].respond(c.state, &m);
        }
        _ => {
            let Ok(resp) = ResponseMessage::from_bytes(d) else {
                return;
            };
            let a = &f.anchors[1];
            let c = CommitMessage::from_bytes(&f.commit).expect("commit");
            let ch =
                rh::challenge(a.public_key(), CTX_ISS, CTX_RED, &c, &[5; 80]).expect("challenge");
            // An accepted response gives an Endorsement that verifies under the Anchor's key.
            if let Ok(e) = ch.state.finalize(a.public_key(), &resp) {
                assert!(f.moderator.verify(a.public_key(), &e).is_ok());
            }
        }
    }
}
