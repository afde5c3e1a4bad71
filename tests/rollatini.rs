//! Rollatini flows and refusals: issuance and redemption at Anchor Set sizes 1, 2, 3, 8 and
//! 33, and every refusal next to a positive control.

use privacy_tokens::rollatini::{
    Anchor, AnchorSet, ChallengeMessage, ClientState, CommitMessage, Endorsement, Moderator,
    PublicKey, Redemption, ResponseMessage,
};
use privacy_tokens::Error;

const CTX_ISS: &[u8] = b"rollatini test issuance";
const CTX_RED: &[u8] = b"rollatini test redemption";
const DIGEST: &[u8] = b"challenge digest";

fn anchors(n: usize) -> Vec<Anchor> {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| Anchor::generate(&mut rng).unwrap())
        .collect()
}

fn set_of(anchors: &[Anchor]) -> AnchorSet {
    let keys: Vec<PublicKey> = anchors.iter().map(|a| *a.public_key()).collect();
    AnchorSet::new(&keys).unwrap()
}

/// One issuance, every message through its encoding.
fn issue(anchor: &Anchor) -> Endorsement {
    let mut rng = rand::rng();
    let c = anchor.commit(CTX_ISS, b"session", &mut rng).unwrap();
    let commit = CommitMessage::from_bytes(&c.message.to_bytes()).unwrap();
    let ch =
        ClientState::challenge(anchor.public_key(), CTX_ISS, CTX_RED, &commit, &mut rng).unwrap();
    let challenge = ChallengeMessage::from_bytes(&ch.message.to_bytes()).unwrap();
    let resp = anchor.respond(c.state, &challenge).unwrap();
    let resp = ResponseMessage::from_bytes(&resp.to_bytes()).unwrap();
    let e = ch.state.finalize(anchor.public_key(), &resp).unwrap();
    Endorsement::from_bytes(&*e.to_bytes()).unwrap()
}

fn redeem(e: Endorsement, set: &AnchorSet, anchor: &PublicKey) -> Vec<u8> {
    e.redeem(set, anchor, CTX_ISS, CTX_RED, DIGEST, &mut rand::rng())
        .unwrap()
        .to_bytes()
}

#[test]
fn flows_at_set_sizes_1_2_3_8_33() {
    for n in [1usize, 2, 3, 8, 33] {
        let all = anchors(n);
        let set = set_of(&all);
        let moderator = Moderator::new(set.clone(), CTX_ISS, CTX_RED).unwrap();
        // The first, a middle and the last Anchor.
        for i in [0, n / 2, n - 1] {
            let e = issue(&all[i]);
            moderator.verify(all[i].public_key(), &e).unwrap();
            let nf = *e.nullifier();
            let wire = redeem(e, &set, all[i].public_key());
            let q = (usize::BITS - (n - 1).leading_zeros()) as usize;
            let expected =
                33 + 160 + 64 + varint_len(33 * q) + 33 * q + varint_len(32 * q) + 32 * q;
            assert_eq!(wire.len(), expected, "n = {n}");
            let r = Redemption::from_bytes(&wire, &set).unwrap();
            assert_eq!(r.to_bytes(), wire);
            assert_eq!(
                moderator.verify_redemption(&r, DIGEST).unwrap(),
                nf,
                "n = {n}, i = {i}"
            );
        }
    }
}

fn varint_len(v: usize) -> usize {
    if v < 64 {
        1
    } else {
        2
    }
}

#[test]
fn endorsement_of_another_anchor_fails_verify() {
    let all = anchors(2);
    let moderator = Moderator::new(set_of(&all), CTX_ISS, CTX_RED).unwrap();
    let e = issue(&all[0]);
    assert!(moderator.verify(all[0].public_key(), &e).is_ok());
    assert_eq!(
        moderator.verify(all[1].public_key(), &e),
        Err(Error::InvalidProof)
    );
    // Another context.
    let other = Moderator::new(set_of(&all), b"other", CTX_RED).unwrap();
    assert_eq!(
        other.verify(all[0].public_key(), &e),
        Err(Error::InvalidProof)
    );
    let other = Moderator::new(set_of(&all), CTX_ISS, b"other").unwrap();
    assert_eq!(
        other.verify(all[0].public_key(), &e),
        Err(Error::InvalidProof)
    );
}

#[test]
fn wrong_set_is_refused() {
    let all = anchors(4);
    let set = set_of(&all[..3]);
    let moderator = Moderator::new(set.clone(), CTX_ISS, CTX_RED).unwrap();
    // Control: the Anchor in the set.
    let wire = redeem(issue(&all[1]), &set, all[1].public_key());
    let r = Redemption::from_bytes(&wire, &set).unwrap();
    assert!(moderator.verify_redemption(&r, DIGEST).is_ok());
    // The Client's Anchor is not in the set: Redeem refuses and hands the Endorsement back.
    let e = issue(&all[3]);
    let nf = *e.nullifier();
    let rejected = e
        .redeem(
            &set,
            all[3].public_key(),
            CTX_ISS,
            CTX_RED,
            DIGEST,
            &mut rand::rng(),
        )
        .unwrap_err();
    assert_eq!(rejected.error, Error::InvalidInput);
    assert_eq!(rejected.state.nullifier(), &nf);
    // A Client that lies about its Anchor (claims all[0] for all[3]'s Endorsement).
    let wire = redeem(*rejected.state, &set, all[0].public_key());
    let r = Redemption::from_bytes(&wire, &set).unwrap();
    assert_eq!(
        moderator.verify_redemption(&r, DIGEST),
        Err(Error::InvalidProof)
    );
    // A redemption against another set of the same size (another order).
    let reordered = AnchorSet::new(&[
        *all[2].public_key(),
        *all[1].public_key(),
        *all[0].public_key(),
    ])
    .unwrap();
    let other = Moderator::new(reordered.clone(), CTX_ISS, CTX_RED).unwrap();
    let good =
        Redemption::from_bytes(&redeem(issue(&all[1]), &set, all[1].public_key()), &set).unwrap();
    assert!(moderator.verify_redemption(&good, DIGEST).is_ok());
    assert_eq!(
        other.verify_redemption(&good, DIGEST),
        Err(Error::InvalidProof)
    );
    // A set of another depth: the lengths no longer match.
    let bigger = set_of(&all);
    let wire = good.to_bytes();
    assert!(Redemption::from_bytes(&wire, &bigger).is_ok()); // depth 2 either way
    let two = set_of(&all[..2]);
    assert_eq!(
        Redemption::from_bytes(&wire, &two).err(),
        Some(Error::InvalidLength)
    );
    let m2 = Moderator::new(two, CTX_ISS, CTX_RED).unwrap();
    assert_eq!(
        m2.verify_redemption(&good, DIGEST),
        Err(Error::InvalidLength)
    );
    // Another digest.
    assert_eq!(
        moderator.verify_redemption(&good, b"other"),
        Err(Error::InvalidProof)
    );
}

#[test]
fn tampered_redemption_is_refused() {
    let all = anchors(5);
    let set = set_of(&all);
    let moderator = Moderator::new(set.clone(), CTX_ISS, CTX_RED).unwrap();
    let wire = redeem(issue(&all[3]), &set, all[3].public_key());
    assert!(moderator
        .verify_redemption(&Redemption::from_bytes(&wire, &set).unwrap(), DIGEST)
        .is_ok());
    // Flip one bit of each byte in turn: it either no longer decodes or no longer verifies.
    let mut refused = 0;
    for i in 0..wire.len() {
        let mut bad = wire.clone();
        bad[i] ^= 0x01;
        match Redemption::from_bytes(&bad, &set) {
            Err(_) => refused += 1,
            Ok(r) => {
                assert!(moderator.verify_redemption(&r, DIGEST).is_err(), "byte {i}");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, wire.len());
}

#[test]
fn respond_refuses_another_session_and_zero() {
    let mut rng = rand::rng();
    let a = &anchors(1)[0];
    let c = a.commit(CTX_ISS, b"session one", &mut rng).unwrap();
    let ch =
        ClientState::challenge(a.public_key(), CTX_ISS, CTX_RED, &c.message, &mut rng).unwrap();
    let mut wire = ch.message.to_bytes();
    // Another session id of the same length.
    wire[1] ^= 1;
    let other = ChallengeMessage::from_bytes(&wire).unwrap();
    assert_eq!(a.respond(c.state, &other).err(), Some(Error::InvalidInput));
    // A zero challenge.
    let c = a.commit(CTX_ISS, b"s", &mut rng).unwrap();
    let mut zero = vec![1u8, b's'];
    zero.extend_from_slice(&[0u8; 32]);
    let zero = ChallengeMessage::from_bytes(&zero).unwrap();
    assert_eq!(a.respond(c.state, &zero).err(), Some(Error::ZeroScalar));
    // Control.
    let c = a.commit(CTX_ISS, b"s", &mut rng).unwrap();
    let ch =
        ClientState::challenge(a.public_key(), CTX_ISS, CTX_RED, &c.message, &mut rng).unwrap();
    let resp = a.respond(c.state, &ch.message).unwrap();
    assert!(ch.state.finalize(a.public_key(), &resp).is_ok());
}

#[test]
fn finalize_refuses_a_bad_response_and_keeps_the_state() {
    let mut rng = rand::rng();
    let all = anchors(2);
    let a = &all[0];
    let c = a.commit(CTX_ISS, b"s", &mut rng).unwrap();
    let ch =
        ClientState::challenge(a.public_key(), CTX_ISS, CTX_RED, &c.message, &mut rng).unwrap();
    let resp = a.respond(c.state, &ch.message).unwrap();
    let mut bad = resp.to_bytes();
    bad[31] ^= 1;
    let bad = ResponseMessage::from_bytes(&bad).unwrap();
    let rejected = ch.state.finalize(a.public_key(), &bad).unwrap_err();
    assert_eq!(rejected.error, Error::InvalidProof);
    // Under another Anchor's key.
    let rejected = rejected
        .state
        .finalize(all[1].public_key(), &resp)
        .unwrap_err();
    assert_eq!(rejected.error, Error::InvalidProof);
    // Control: the kept state finalizes the right response.
    assert!(rejected.state.finalize(a.public_key(), &resp).is_ok());
}

#[test]
fn identity_points_are_refused() {
    let identity = [0u8; 33];
    assert_eq!(
        PublicKey::from_bytes(&identity).err(),
        Some(Error::IdentityElement)
    );
    assert_eq!(
        AnchorSet::from_bytes(&identity).err(),
        Some(Error::IdentityElement)
    );
    let a = &anchors(1)[0];
    let good = a.public_key().to_bytes();
    assert!(PublicKey::from_bytes(&good).is_ok());
    // In a commit message.
    let c = a.commit(CTX_ISS, b"s", &mut rand::rng()).unwrap();
    let wire = c.message.to_bytes();
    assert!(CommitMessage::from_bytes(&wire).is_ok());
    for at in [2, 2 + 33] {
        let mut bad = wire.clone();
        bad[at..at + 33].copy_from_slice(&identity);
        assert_eq!(
            CommitMessage::from_bytes(&bad).err(),
            Some(Error::IdentityElement)
        );
    }
    // In a redemption: X_hat and a commitment key.
    let all = anchors(2);
    let set = set_of(&all);
    let wire = redeem(issue(&all[0]), &set, all[0].public_key());
    assert!(Redemption::from_bytes(&wire, &set).is_ok());
    let key_at = 33 + 160 + 64 + 1;
    for at in [0, key_at] {
        let mut bad = wire.clone();
        bad[at..at + 33].copy_from_slice(&identity);
        assert_eq!(
            Redemption::from_bytes(&bad, &set).err(),
            Some(Error::IdentityElement)
        );
    }
}

#[test]
fn non_canonical_scalars_are_refused() {
    // The group order n (not canonical) and n - 1 (canonical).
    let order =
        hex::decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551").unwrap();
    let mut below = order.clone();
    below[31] -= 1;
    assert_eq!(
        Anchor::from_bytes(&order).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert!(Anchor::from_bytes(&below).is_ok());
    let a = &anchors(1)[0];
    let e = issue(a);
    let wire = e.to_bytes();
    for k in 0..4 {
        let mut bad = *wire;
        bad[32 * k..32 * (k + 1)].copy_from_slice(&order);
        assert_eq!(
            Endorsement::from_bytes(&bad).err(),
            Some(Error::NonCanonicalScalar)
        );
        let mut ok = *wire;
        ok[32 * k..32 * (k + 1)].copy_from_slice(&below);
        assert!(Endorsement::from_bytes(&ok).is_ok());
    }
    let mut resp = [0u8; 96];
    resp[32..64].copy_from_slice(&order);
    assert_eq!(
        ResponseMessage::from_bytes(&resp).err(),
        Some(Error::NonCanonicalScalar)
    );
    let mut ch = vec![0u8];
    ch.extend_from_slice(&order);
    assert_eq!(
        ChallengeMessage::from_bytes(&ch).err(),
        Some(Error::NonCanonicalScalar)
    );
    // In a redemption: the proof challenge, the response and an opening.
    let all = anchors(2);
    let set = set_of(&all);
    let wire = redeem(issue(&all[1]), &set, all[1].public_key());
    let opening_at = 33 + 160 + 64 + 1 + 33 + 1;
    for at in [33 + 160, 33 + 160 + 32, opening_at] {
        let mut bad = wire.clone();
        bad[at..at + 32].copy_from_slice(&order);
        assert_eq!(
            Redemption::from_bytes(&bad, &set).err(),
            Some(Error::NonCanonicalScalar),
            "{at}"
        );
    }
    // A zero c in an Endorsement decodes and fails Verify.
    let moderator = Moderator::new(set.clone(), CTX_ISS, CTX_RED).unwrap();
    let mut zero = *wire_endorsement(&all[1]);
    zero[..32].fill(0);
    let zero = Endorsement::from_bytes(&zero).unwrap();
    assert_eq!(
        moderator.verify(all[1].public_key(), &zero),
        Err(Error::InvalidProof)
    );
}

fn wire_endorsement(a: &Anchor) -> zeroize::Zeroizing<[u8; 160]> {
    issue(a).to_bytes()
}

#[test]
fn wrong_lengths_and_varints_are_refused() {
    let all = anchors(3);
    let set = set_of(&all);
    let wire = redeem(issue(&all[2]), &set, all[2].public_key());
    assert!(Redemption::from_bytes(&wire, &set).is_ok());
    // Truncated and extended.
    assert_eq!(
        Redemption::from_bytes(&wire[..wire.len() - 1], &set).err(),
        Some(Error::InvalidLength)
    );
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(
        Redemption::from_bytes(&long, &set).err(),
        Some(Error::InvalidLength)
    );
    // The keys' length 66 (minimal: 0x40 0x42) rewritten as a four-byte varint.
    let keys_len_at = 33 + 160 + 64;
    assert_eq!(&wire[keys_len_at..keys_len_at + 2], &[0x40, 66]);
    let mut non_minimal = wire[..keys_len_at].to_vec();
    non_minimal.extend_from_slice(&[0x80, 0, 0, 66]);
    non_minimal.extend_from_slice(&wire[keys_len_at + 2..]);
    assert!(Redemption::from_bytes(&non_minimal, &set).is_err());
    // Messages of fixed length.
    let e = issue(&all[0]);
    let ew = e.to_bytes();
    assert_eq!(
        Endorsement::from_bytes(&ew[..159]).err(),
        Some(Error::InvalidLength)
    );
    let mut e161 = ew.to_vec();
    e161.push(0);
    assert_eq!(
        Endorsement::from_bytes(&e161).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        ResponseMessage::from_bytes(&[0u8; 95]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        ResponseMessage::from_bytes(&[0u8; 97]).err(),
        Some(Error::InvalidLength)
    );
    assert!(ResponseMessage::from_bytes(&[0u8; 96]).is_ok());
    assert_eq!(
        PublicKey::from_bytes(&[2u8; 32]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        AnchorSet::from_bytes(&set.to_bytes()[..98]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(AnchorSet::from_bytes(&set.to_bytes()).unwrap(), set);
    // Commit and challenge messages: trailing bytes, a short session id, non-minimal varints.
    let c = all[0]
        .commit(CTX_ISS, b"session", &mut rand::rng())
        .unwrap();
    let cw = c.message.to_bytes();
    assert!(CommitMessage::from_bytes(&cw).is_ok());
    let mut t = cw.clone();
    t.push(0);
    assert_eq!(
        CommitMessage::from_bytes(&t).err(),
        Some(Error::InvalidLength)
    );
    let mut nm = vec![0x40, 7];
    nm.extend_from_slice(&cw[1..]);
    assert!(CommitMessage::from_bytes(&nm).is_err());
    assert_eq!(
        CommitMessage::from_bytes(&cw[..cw.len() - 1]).err(),
        Some(Error::InvalidLength)
    );
    let ch = ChallengeMessage::from_bytes(&[&[0u8][..], &[1u8; 32]].concat()).unwrap();
    assert!(ch.session_id().is_empty());
    assert_eq!(
        ChallengeMessage::from_bytes(&[&[0u8][..], &[1u8; 33]].concat()).err(),
        Some(Error::InvalidLength)
    );
    assert!(ChallengeMessage::from_bytes(&[&[0x40u8, 0][..], &[1u8; 32]].concat()).is_err());
}

#[test]
fn one_key_sets_and_duplicates() {
    let all = anchors(1);
    let set = set_of(&all);
    let wire = redeem(issue(&all[0]), &set, all[0].public_key());
    // Depth 0: empty keys and openings (two zero length bytes).
    assert_eq!(wire.len(), 33 + 160 + 64 + 2);
    assert_eq!(&wire[wire.len() - 2..], &[0, 0]);
    let k = *all[0].public_key();
    assert_eq!(AnchorSet::new(&[k, k]).err(), Some(Error::InvalidInput));
    assert_eq!(AnchorSet::new(&[]).err(), Some(Error::Batch));
}

/// Three fixed keys: sets of 1, 2 and 3 (depths 0, 1 and 2).
fn fixed_sets() -> Vec<AnchorSet> {
    let keys: Vec<PublicKey> = (0u8..3)
        .map(|i| *Anchor::derive(&[i; 48], b"proptest").unwrap().public_key())
        .collect();
    (1..=3)
        .map(|n| AnchorSet::new(&keys[..n]).unwrap())
        .collect()
}

/// Every decoder on `bytes`: no panic, and whatever decodes encodes back to the same bytes.
fn decode_everything(bytes: &[u8], sets: &[AnchorSet]) {
    if let Ok(m) = CommitMessage::from_bytes(bytes) {
        assert_eq!(m.to_bytes(), bytes);
    }
    if let Ok(m) = ChallengeMessage::from_bytes(bytes) {
        assert_eq!(m.to_bytes(), bytes);
    }
    if let Ok(m) = ResponseMessage::from_bytes(bytes) {
        assert_eq!(m.to_bytes()[..], bytes[..]);
    }
    if let Ok(m) = Endorsement::from_bytes(bytes) {
        assert_eq!(m.to_bytes()[..], bytes[..]);
    }
    if let Ok(m) = PublicKey::from_bytes(bytes) {
        assert_eq!(m.to_bytes()[..], bytes[..]);
    }
    if let Ok(m) = AnchorSet::from_bytes(bytes) {
        assert_eq!(m.to_bytes(), bytes);
    }
    if let Ok(a) = Anchor::from_bytes(bytes) {
        assert_eq!(a.to_bytes()[..], bytes[..]);
    }
    for set in sets {
        if let Ok(r) = Redemption::from_bytes(bytes, set) {
            assert_eq!(r.to_bytes(), bytes);
        }
    }
}

mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            decode_everything(&bytes, &fixed_sets());
        }

        /// A valid redemption with one byte changed: refused by the decoder or the Moderator.
        #[test]
        fn mutated_redemptions_are_refused(at in any::<prop::sample::Index>(), xor in 1u8..=255) {
            let sets = fixed_sets();
            let set = &sets[2];
            let anchor = Anchor::derive(&[2; 48], b"proptest").unwrap();
            let wire = redeem(issue(&anchor), set, anchor.public_key());
            let mut bad = wire.clone();
            let i = at.index(bad.len());
            bad[i] ^= xor;
            decode_everything(&bad, &sets);
            if let Ok(r) = Redemption::from_bytes(&bad, set) {
                let m = Moderator::new(set.clone(), CTX_ISS, CTX_RED).unwrap();
                prop_assert!(m.verify_redemption(&r, DIGEST).is_err());
            }
        }
    }
}

#[test]
fn serde_is_as_strict_as_from_bytes() {
    let all = anchors(2);
    let set = set_of(&all);
    let json = serde_json::to_string(&set).unwrap();
    assert_eq!(serde_json::from_str::<AnchorSet>(&json).unwrap(), set);
    let e = issue(&all[0]);
    let json = serde_json::to_string(&e).unwrap();
    let back: Endorsement = serde_json::from_str(&json).unwrap();
    assert_eq!(*back.to_bytes(), *e.to_bytes());
    let key = serde_json::to_string(&all[1]).unwrap();
    assert_eq!(serde_json::from_str::<Anchor>(&key).unwrap(), all[1]);
    // The identity and a non-canonical scalar are refused through serde too.
    let identity = format!("\"{}\"", "00".repeat(33));
    assert!(serde_json::from_str::<PublicKey>(&identity).is_err());
    let order = "\"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551\"";
    assert!(serde_json::from_str::<Anchor>(order).is_err());
    let c = all[0].commit(CTX_ISS, b"s", &mut rand::rng()).unwrap();
    let json = serde_json::to_string(&c.message).unwrap();
    assert_eq!(
        serde_json::from_str::<CommitMessage>(&json).unwrap(),
        c.message
    );
}
