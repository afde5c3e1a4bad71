//! ACT (`ACTv1-P256-SHA256`): flows at several widths, the one-step redeem against a nullifier
//! store, and the rejections the draft requires (identity points, non-canonical scalars,
//! amounts of `L + 1` bits, `L` mismatch, wrong spend shape, the `u64` sums at `L = 64`),
//! plus a property test of balance conservation.

use privacy_tokens::act::{
    ClientIssuanceState, ClientSpendState, Credential, CredentialContext, IssueRequest,
    IssueResponse, MemoryNullifierStore, PrivateKey, Redeemed, Refund, Spend,
};
use privacy_tokens::Error;
use proptest::prelude::*;

const CTX_SPEND: &[u8] = b"challenge digest";
/// The P-256 group order, big-endian: the smallest non-canonical scalar.
const ORDER: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
];

fn setup(l: u8) -> (PrivateKey, CredentialContext) {
    let key = PrivateKey::generate(&mut rand::rng()).unwrap();
    let ctx = CredentialContext::with_width(b"test context", l).unwrap();
    (key, ctx)
}

fn issue(key: &PrivateKey, ctx: &CredentialContext, c: u64) -> Credential {
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap();
    let resp = key.issue(ctx, c, &req.message, &mut rand::rng()).unwrap();
    req.state
        .finalize(ctx, key.public_key(), &resp)
        .map_err(|r| r.error)
        .unwrap()
}

fn copy(c: &Credential) -> Credential {
    Credential::from_bytes(&*c.to_bytes()).unwrap()
}

/// Spend, redeem with `t`, finalize.
fn spend(
    key: &PrivateKey,
    ctx: &CredentialContext,
    store: &MemoryNullifierStore,
    cred: Credential,
    s: u64,
    a: u64,
    t: u64,
) -> Credential {
    let sp = cred
        .prove_spend(ctx, s, a, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let wire = Spend::from_bytes(&sp.message.to_bytes(), ctx.bit_length()).unwrap();
    let r = key
        .redeem(ctx, &wire, CTX_SPEND, |_, _| Ok(t), store, &mut rand::rng())
        .unwrap();
    let Redeemed::Fresh(refund) = r else {
        panic!("not fresh")
    };
    sp.state
        .finalize(ctx, key.public_key(), &refund)
        .map_err(|r| r.error)
        .unwrap()
}

#[test]
fn flows_at_every_shape_and_several_widths() {
    for l in [1u8, 3, 8, 33, 64] {
        let (key, ctx) = setup(l);
        let store = MemoryNullifierStore::new();
        let max = if l == 64 { u64::MAX } else { (1 << l) - 1 };
        let c = issue(&key, &ctx, max);
        assert_eq!(c.balance(), max);
        let c = spend(&key, &ctx, &store, c, 1, 0, 0); // ordinary
        assert_eq!(c.balance(), max - 1);
        let c = spend(&key, &ctx, &store, c, 0, 0, 0); // refresh
        let c = spend(&key, &ctx, &store, c, 0, 1, 1); // pure top-up
        assert_eq!(c.balance(), max);
        let c = spend(&key, &ctx, &store, c, max, 0, 0); // spend all
        assert_eq!(c.balance(), 0);
        assert_eq!(store.len(), 4);
    }
}

#[test]
fn redeem_records_once_and_answers_a_repeat_with_the_same_refund() {
    let (key, ctx) = setup(8);
    let store = MemoryNullifierStore::new();
    let cred = issue(&key, &ctx, 100);
    let twin = copy(&cred);
    let first = cred
        .prove_spend(&ctx, 30, 0, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let r1 = key
        .redeem(
            &ctx,
            &first.message,
            CTX_SPEND,
            |s, _| Ok(s / 2),
            &store,
            &mut rand::rng(),
        )
        .unwrap();
    let Redeemed::Fresh(refund) = r1 else {
        panic!("first redeem not fresh")
    };
    // The same message again (a lost refund): the stored refund, no second credit.
    let r2 = key
        .redeem(
            &ctx,
            &first.message,
            CTX_SPEND,
            |s, _| Ok(s),
            &store,
            &mut rand::rng(),
        )
        .unwrap();
    assert_eq!(r2, Redeemed::Replayed(refund));
    // A second spend of the same credential (same nullifier): refused as a replay, and the
    // stored refund does not finalize against the second spend's state.
    let second = twin
        .prove_spend(&ctx, 30, 0, CTX_SPEND, &mut rand::rng())
        .unwrap();
    assert_eq!(second.message.nullifier(), first.message.nullifier());
    let r3 = key
        .redeem(
            &ctx,
            &second.message,
            CTX_SPEND,
            |s, _| Ok(s),
            &store,
            &mut rand::rng(),
        )
        .unwrap();
    let Redeemed::Replayed(stored) = r3 else {
        panic!("double spend accepted")
    };
    let rejected = second
        .state
        .finalize(&ctx, key.public_key(), &stored)
        .unwrap_err();
    assert_eq!(rejected.error, Error::InvalidProof);
    assert_eq!(store.len(), 1);
    let next = first
        .state
        .finalize(&ctx, key.public_key(), &refund)
        .map_err(|r| r.error)
        .unwrap();
    assert_eq!(next.balance(), 85);
}

#[test]
fn redeem_records_nothing_when_a_step_fails() {
    let (key, ctx) = setup(8);
    let store = MemoryNullifierStore::new();
    let sp = issue(&key, &ctx, 10)
        .prove_spend(&ctx, 4, 2, CTX_SPEND, &mut rand::rng())
        .unwrap();
    // Wrong spend context: the proof fails.
    let r = key.redeem(
        &ctx,
        &sp.message,
        b"other",
        |_, _| Ok(0),
        &store,
        &mut rand::rng(),
    );
    assert_eq!(r, Err(Error::InvalidProof));
    // Policy refuses.
    let r = key.redeem(
        &ctx,
        &sp.message,
        CTX_SPEND,
        |_, _| Err(Error::UnsupportedValue),
        &store,
        &mut rand::rng(),
    );
    assert_eq!(r, Err(Error::UnsupportedValue));
    // t > s + a.
    let r = key.redeem(
        &ctx,
        &sp.message,
        CTX_SPEND,
        |s, a| Ok(s + a + 1),
        &store,
        &mut rand::rng(),
    );
    assert_eq!(r, Err(Error::OutOfRange));
    assert!(store.is_empty());
    // Then the spend still goes through, once.
    let r = key
        .redeem(
            &ctx,
            &sp.message,
            CTX_SPEND,
            |s, a| Ok(s + a),
            &store,
            &mut rand::rng(),
        )
        .unwrap();
    let Redeemed::Fresh(refund) = r else { panic!() };
    assert_eq!(store.len(), 1);
    let next = sp
        .state
        .finalize(&ctx, key.public_key(), &refund)
        .map_err(|r| r.error)
        .unwrap();
    assert_eq!(next.balance(), 12);
}

#[test]
fn a_failed_finalization_hands_the_state_back() {
    let (key, ctx) = setup(8);
    let other = PrivateKey::generate(&mut rand::rng()).unwrap();
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap();
    let bad = other
        .issue(&ctx, 5, &req.message, &mut rand::rng())
        .unwrap();
    let good = key.issue(&ctx, 5, &req.message, &mut rand::rng()).unwrap();
    let rejected = req
        .state
        .finalize(&ctx, key.public_key(), &bad)
        .unwrap_err();
    assert_eq!(rejected.error, Error::InvalidProof);
    let cred = rejected
        .state
        .finalize(&ctx, key.public_key(), &good)
        .map_err(|r| r.error)
        .unwrap();
    assert_eq!(cred.balance(), 5);
}

#[test]
fn identity_points_are_refused_everywhere() {
    let (key, ctx) = setup(4);
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap();
    let resp = key.issue(&ctx, 5, &req.message, &mut rand::rng()).unwrap();
    let cred = req
        .state
        .finalize(&ctx, key.public_key(), &resp)
        .map_err(|r| r.error)
        .unwrap();
    let sp = cred
        .prove_spend(&ctx, 1, 1, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let zeros = [0u8; 33];
    let mut m = req.message.to_bytes();
    m[..33].copy_from_slice(&zeros);
    assert!(IssueRequest::from_bytes(&m).is_err());
    let mut m = resp.to_bytes();
    m[..33].copy_from_slice(&zeros);
    assert!(IssueResponse::from_bytes(&m).is_err());
    assert!(Refund::from_bytes(&m).is_err());
    let wire = sp.message.to_bytes();
    // A', B̄, K_n and every commitment.
    let n_points = 3 + 2 * 4;
    for i in 0..n_points {
        let mut m = wire.clone();
        m[48 + 33 * i..48 + 33 * (i + 1)].copy_from_slice(&zeros);
        assert!(Spend::from_bytes(&m, 4).is_err(), "point {i}");
    }
    assert!(privacy_tokens::act::PublicKey::from_bytes(&zeros).is_err());
}

#[test]
fn non_canonical_scalars_are_refused() {
    let (key, ctx) = setup(4);
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap();
    let resp = key.issue(&ctx, 5, &req.message, &mut rand::rng()).unwrap();
    // Every proof scalar of the request.
    for i in 0..3 {
        let mut m = req.message.to_bytes();
        m[33 + 32 * i..33 + 32 * (i + 1)].copy_from_slice(&ORDER);
        assert_eq!(IssueRequest::from_bytes(&m), Err(Error::NonCanonicalScalar));
    }
    // `e` and the proof scalars of the response.
    for off in [33, 73, 105] {
        let mut m = resp.to_bytes();
        m[off..off + 32].copy_from_slice(&ORDER);
        assert_eq!(
            IssueResponse::from_bytes(&m),
            Err(Error::NonCanonicalScalar)
        );
    }
    let cred = req
        .state
        .finalize(&ctx, key.public_key(), &resp)
        .map_err(|r| r.error)
        .unwrap();
    let wire = cred
        .prove_spend(&ctx, 2, 0, CTX_SPEND, &mut rand::rng())
        .unwrap()
        .message
        .to_bytes();
    // The nullifier, and the last proof scalar.
    let mut m = wire.clone();
    m[..32].copy_from_slice(&ORDER);
    assert_eq!(
        Spend::from_bytes(&m, 4).err(),
        Some(Error::NonCanonicalScalar)
    );
    let mut m = wire.clone();
    let n = m.len();
    m[n - 32..].copy_from_slice(&ORDER);
    assert_eq!(
        Spend::from_bytes(&m, 4).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        PrivateKey::from_bytes(&ORDER).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        PrivateKey::from_bytes(&[0; 32]).err(),
        Some(Error::ZeroScalar)
    );
}

#[test]
fn amounts_of_l_plus_one_bits_are_refused() {
    let (key, ctx) = setup(4);
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap();
    assert_eq!(
        key.issue(&ctx, 16, &req.message, &mut rand::rng()).err(),
        Some(Error::OutOfRange)
    );
    // A response carrying c = 2^L (re-encoded by a Moderator of another width).
    let (key8, ctx8) = (
        key,
        CredentialContext::with_width(b"test context", 8).unwrap(),
    );
    let resp = key8
        .issue(&ctx8, 16, &req.message, &mut rand::rng())
        .unwrap();
    let rejected = req
        .state
        .finalize(&ctx, key8.public_key(), &resp)
        .unwrap_err();
    assert_eq!(rejected.error, Error::OutOfRange);
    let key = key8;
    let cred = issue(&key, &ctx, 15);
    let twin = copy(&cred);
    assert_eq!(
        copy(&cred)
            .prove_spend(&ctx, 16, 0, CTX_SPEND, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    assert_eq!(
        copy(&cred)
            .prove_spend(&ctx, 0, 16, CTX_SPEND, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    // s > c and c + a >= 2^L.
    let small = issue(&key, &ctx, 3);
    assert_eq!(
        small
            .prove_spend(&ctx, 4, 0, CTX_SPEND, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    assert_eq!(
        copy(&cred)
            .prove_spend(&ctx, 0, 1, CTX_SPEND, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    // A spend message whose s or a has L + 1 bits.
    let sp = twin
        .prove_spend(&ctx, 1, 0, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let mut m = sp.message.to_bytes();
    m[32..40].copy_from_slice(&16u64.to_be_bytes());
    assert_eq!(Spend::from_bytes(&m, 4).err(), Some(Error::OutOfRange));
    let mut m = sp.message.to_bytes();
    m[40..48].copy_from_slice(&16u64.to_be_bytes());
    assert_eq!(Spend::from_bytes(&m, 4).err(), Some(Error::OutOfRange));
    // A refund of t = 2^L, and t > s + a.
    let verified = key.verify_spend(&ctx, &sp.message, CTX_SPEND).unwrap();
    assert_eq!(
        key.issue_refund(&ctx, &verified, 16, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    assert_eq!(
        key.issue_refund(&ctx, &verified, 2, &mut rand::rng()).err(),
        Some(Error::OutOfRange)
    );
    let refund = key
        .issue_refund(&ctx, &verified, 1, &mut rand::rng())
        .unwrap();
    for t in [16u64, 2] {
        let mut m = refund.to_bytes();
        m[65..73].copy_from_slice(&t.to_be_bytes());
        let r = Refund::from_bytes(&m).unwrap();
        let state = ClientSpendState::from_bytes(&*sp.state.to_bytes()).unwrap();
        let rejected = state.finalize(&ctx, key.public_key(), &r).unwrap_err();
        assert_eq!(rejected.error, Error::OutOfRange, "t = {t}");
    }
}

#[test]
fn l_mismatch_and_wrong_shapes_are_refused() {
    let (key, ctx) = setup(8);
    let cred = issue(&key, &ctx, 100);
    let sp = cred
        .prove_spend(&ctx, 10, 5, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let wire = sp.message.to_bytes();
    assert_eq!(wire.len(), 258 * 8 + 403);
    // Decoded with another L: the length does not match that shape.
    for l in [4u8, 7, 9, 16, 64] {
        assert_eq!(
            Spend::from_bytes(&wire, l).err(),
            Some(Error::InvalidLength),
            "L = {l}"
        );
    }
    assert_eq!(
        Spend::from_bytes(&wire, 0).err(),
        Some(Error::UnsupportedValue)
    );
    assert_eq!(
        Spend::from_bytes(&wire, 65).err(),
        Some(Error::UnsupportedValue)
    );
    // A message decoded for L = 8 verified under a context of another width.
    let ctx16 = CredentialContext::with_width(b"test context", 16).unwrap();
    assert_eq!(
        key.verify_spend(&ctx16, &sp.message, CTX_SPEND).err(),
        Some(Error::UnsupportedValue)
    );
    // Another shape with the same bytes: s = 0 (Com_c instead of Com1), a = 0 (no Com2).
    let mut m = wire.clone();
    m[32..40].copy_from_slice(&0u64.to_be_bytes());
    assert_eq!(Spend::from_bytes(&m, 8).err(), Some(Error::InvalidLength));
    let mut m = wire.clone();
    m[40..48].copy_from_slice(&0u64.to_be_bytes());
    assert_eq!(Spend::from_bytes(&m, 8).err(), Some(Error::InvalidLength));
    // Another amount with the same shape decodes, but its proof fails.
    let mut m = wire.clone();
    m[32..40].copy_from_slice(&11u64.to_be_bytes());
    let other = Spend::from_bytes(&m, 8).unwrap();
    assert_eq!(
        key.verify_spend(&ctx, &other, CTX_SPEND).err(),
        Some(Error::InvalidProof)
    );
    // Trailing and missing bytes.
    let mut m = wire.clone();
    m.push(0);
    assert_eq!(Spend::from_bytes(&m, 8).err(), Some(Error::InvalidLength));
    assert_eq!(
        Spend::from_bytes(&wire[..wire.len() - 1], 8).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        Spend::from_bytes(&wire[..40], 8).err(),
        Some(Error::InvalidLength)
    );
    // Every byte of the proof is bound.
    let n = wire.len();
    for i in [n - 1, n - 33, n - 32 * 20] {
        let mut m = wire.clone();
        m[i] ^= 1;
        if let Ok(s) = Spend::from_bytes(&m, 8) {
            assert_eq!(
                key.verify_spend(&ctx, &s, CTX_SPEND).err(),
                Some(Error::InvalidProof)
            );
        }
    }
    // The original verifies.
    let s = Spend::from_bytes(&wire, 8).unwrap();
    assert!(key.verify_spend(&ctx, &s, CTX_SPEND).is_ok());
    // Another credential context fails.
    let other_ctx = CredentialContext::with_width(b"other context", 8).unwrap();
    assert_eq!(
        key.verify_spend(&other_ctx, &s, CTX_SPEND).err(),
        Some(Error::InvalidProof)
    );
}

/// At L = 64 the sums `c + a`, `s + a`, `v1 + t` pass `2^64`: refused, never wrapped.
#[test]
fn u64_sums_at_l64_do_not_wrap() {
    let (key, ctx) = setup(64);
    let cred = issue(&key, &ctx, u64::MAX);
    // c + a = 2^64.
    assert_eq!(
        copy(&cred)
            .prove_spend(&ctx, 0, 1, CTX_SPEND, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    assert_eq!(
        copy(&cred)
            .prove_spend(&ctx, 1, u64::MAX, CTX_SPEND, &mut rand::rng())
            .err(),
        Some(Error::OutOfRange)
    );
    // s = c = 2^64 - 1 is fine; t up to s + a.
    let sp = copy(&cred)
        .prove_spend(&ctx, u64::MAX, 0, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let verified = key.verify_spend(&ctx, &sp.message, CTX_SPEND).unwrap();
    let refund = key
        .issue_refund(&ctx, &verified, u64::MAX, &mut rand::rng())
        .unwrap();
    let full = sp
        .state
        .finalize(&ctx, key.public_key(), &refund)
        .map_err(|r| r.error)
        .unwrap();
    assert_eq!(full.balance(), u64::MAX);
    // v1 + t = 2^64: a state with v1 = 1 and s = a = 2^64 - 1 (s + a > 2^64) given t = 2^64 - 1.
    let sp = full
        .prove_spend(&ctx, u64::MAX - 1, 0, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let mut state = sp.state.to_bytes();
    state[72..80].copy_from_slice(&u64::MAX.to_be_bytes());
    state[80..88].copy_from_slice(&u64::MAX.to_be_bytes());
    let state = ClientSpendState::from_bytes(&*state).unwrap();
    let mut m = refund.to_bytes();
    m[65..73].copy_from_slice(&u64::MAX.to_be_bytes());
    let r = Refund::from_bytes(&m).unwrap();
    let rejected = state.finalize(&ctx, key.public_key(), &r).unwrap_err();
    assert_eq!(rejected.error, Error::OutOfRange);
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trips() {
    let (key, ctx) = setup(8);
    let req = ClientIssuanceState::request(&mut rand::rng()).unwrap();
    let j = serde_json::to_string(&req.message).unwrap();
    assert_eq!(
        serde_json::from_str::<IssueRequest>(&j).unwrap(),
        req.message
    );
    let resp = key.issue(&ctx, 9, &req.message, &mut rand::rng()).unwrap();
    let j = serde_json::to_string(&resp).unwrap();
    assert_eq!(serde_json::from_str::<IssueResponse>(&j).unwrap(), resp);
    let cred = req
        .state
        .finalize(&ctx, key.public_key(), &resp)
        .map_err(|r| r.error)
        .unwrap();
    let j = serde_json::to_string(&cred).unwrap();
    assert!(serde_json::from_str::<Credential>(&j).unwrap() == cred);
    let sp = cred
        .prove_spend(&ctx, 1, 0, CTX_SPEND, &mut rand::rng())
        .unwrap();
    let j = serde_json::to_string(&sp.message).unwrap();
    let back: Spend = serde_json::from_str(&j).unwrap();
    assert_eq!(back, sp.message);
    assert!(format!("{:?}", sp.state).contains("redacted"));
    assert!(format!("{key:?}").contains("redacted"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), l in 1u8..=64) {
        let _ = IssueRequest::from_bytes(&bytes);
        let _ = IssueResponse::from_bytes(&bytes);
        let _ = Refund::from_bytes(&bytes);
        let _ = Credential::from_bytes(&bytes);
        let _ = ClientIssuanceState::from_bytes(&bytes);
        let _ = ClientSpendState::from_bytes(&bytes);
        let _ = Spend::from_bytes(&bytes, l);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Balance conservation: whatever the Client tries (spends, top-ups, spending an old
    /// credential again), its balance is always the issued amount plus the refunds minus the
    /// accepted spends, never more; a replayed nullifier gains nothing.
    #[test]
    fn balance_is_conserved(
        initial in 0u64..256,
        ops in proptest::collection::vec((0u64..300, 0u64..300, 0u64..=100, any::<bool>()), 1..6),
    ) {
        let (key, ctx) = setup(8);
        let store = MemoryNullifierStore::new();
        let mut cred = issue(&key, &ctx, initial);
        let mut expected = u128::from(initial);
        let mut old: Option<Credential> = None;
        for (s, a, percent, replay) in ops {
            if replay {
                if let Some(o) = old.take() {
                    // A spent credential: its nullifier is recorded; nothing is granted.
                    if let Ok(sp) = o.prove_spend(&ctx, 0, 0, CTX_SPEND, &mut rand::rng()) {
                        let r = key
                            .redeem(&ctx, &sp.message, CTX_SPEND, |s, a| Ok(s + a), &store, &mut rand::rng())
                            .unwrap();
                        let Redeemed::Replayed(refund) = r else { panic!("replay accepted") };
                        prop_assert!(sp.state.finalize(&ctx, key.public_key(), &refund).is_err());
                    }
                }
            }
            let keep = copy(&cred);
            match cred.prove_spend(&ctx, s, a, CTX_SPEND, &mut rand::rng()) {
                Err(e) => {
                    prop_assert_eq!(e, Error::OutOfRange);
                    prop_assert!(u128::from(s) > expected || expected + u128::from(a) >= 256 || s >= 256 || a >= 256);
                    cred = keep;
                }
                Ok(sp) => {
                    let t = (s + a) * percent / 100;
                    let r = key
                        .redeem(&ctx, &sp.message, CTX_SPEND, |_, _| Ok(t), &store, &mut rand::rng())
                        .unwrap();
                    let Redeemed::Fresh(refund) = r else { panic!("fresh spend replayed") };
                    cred = sp.state.finalize(&ctx, key.public_key(), &refund).map_err(|r| r.error).unwrap();
                    expected = expected - u128::from(s) + u128::from(t);
                    old = Some(keep);
                }
            }
            prop_assert_eq!(u128::from(cred.balance()), expected);
            prop_assert!(expected < 256);
        }
    }
}
