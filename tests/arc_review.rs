//! Regression tests for the ARC findings of the 2026-12 security review
//! (`shared/specs/review-findings.md` §3, §6, §13, §15) and ARC's count and length limits.

#[path = "support/arc_setup.rs"]
mod arc_setup;

use std::collections::HashSet;

use privacy_tokens::arc::hazmat::{self, TestDrng};
use privacy_tokens::arc::privacy_pass::{self, Client, Issuer, Token, TokenChallenge};
use privacy_tokens::arc::sigma::Base;
use privacy_tokens::arc::{
    ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, Credential, CredentialRequest,
    LegacyPresentation, Presentation, ServerPrivateKey, MAX_CONTEXT_LEN,
};
use privacy_tokens::group::{self, AffinePoint, FixedBaseTable, Scalar};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;
use subtle::ConstantTimeEq;

const REQ_CTX: &[u8] = b"review request context";
const PRES_CTX: &[u8] = b"review presentation context";

type V2 = ArcV2P256;

fn setup<S: ArcSuite>(seed: u64) -> (ServerPrivateKey<S>, Credential<S>, StdRng) {
    arc_setup::setup::<S>(seed, REQ_CTX)
}

/// One presentation from the credential's state for `ctx`.
fn present(
    cred: &mut Credential<V2>,
    ctx: &[u8],
    limit: u32,
    rng: &mut StdRng,
) -> Presentation<V2> {
    cred.presentation_state(ctx, limit)
        .unwrap()
        .present(rng)
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// §3: nonce reuse through the API

/// The reviewer's test: two `presentation_state` calls for one credential and context gave the
/// same nonce, hence equal tags. Now the second call continues the first one's counter.
#[test]
fn second_presentation_state_for_a_context_continues_the_nonces() {
    let (server, mut cred, mut rng) = setup::<V2>(1);
    let mut a = cred.presentation_state(PRES_CTX, 10).unwrap();
    let pa = a.present(&mut rng).unwrap();
    let mut b = cred.presentation_state(PRES_CTX, 10).unwrap();
    assert_eq!(b.remaining(), 9);
    let pb = b.present(&mut rng).unwrap();
    assert_ne!(pa.tag(), pb.tag());
    // Every nonce of the context once over any number of states, then the limit.
    let mut tags: HashSet<_> = [pa.tag(), pb.tag()].into_iter().collect();
    for _ in 2..10 {
        let p = present(&mut cred, PRES_CTX, 10, &mut rng);
        let tag = server
            .verify_presentation(REQ_CTX, PRES_CTX, &p, 10)
            .unwrap();
        assert!(tags.insert(tag), "a tag repeated");
    }
    assert_eq!(
        cred.presentation_state(PRES_CTX, 10)
            .unwrap()
            .present(&mut rng)
            .unwrap_err(),
        Error::LimitExceeded
    );
    // Another context has its own counter.
    assert_eq!(
        cred.presentation_state(b"another context", 10)
            .unwrap()
            .remaining(),
        10
    );
}

/// The stored form is the credential with its counters: a restore after `present` continues.
#[test]
fn restored_credential_continues_its_counters() {
    let (_, mut cred, mut rng) = setup::<V2>(2);
    let p0 = present(&mut cred, PRES_CTX, 10, &mut rng);
    let saved = cred.to_bytes();
    drop(cred);
    let mut restored = Credential::<V2>::from_bytes(&saved).unwrap();
    assert_eq!(
        restored.contexts().collect::<Vec<_>>(),
        vec![(PRES_CTX, 10u32, 1u32)]
    );
    let p1 = present(&mut restored, PRES_CTX, 10, &mut rng);
    assert_ne!(p0.tag(), p1.tag());
}

/// The documented limit of any library: a restored *older* copy rolls the counter back. The
/// safe order (persist after `present`, before sending) is what prevents it; this test pins
/// that the crate does not pretend otherwise.
#[test]
fn a_stale_copy_rolls_back_as_documented() {
    let (_, mut cred, mut rng) = setup::<V2>(3);
    let stale = cred.to_bytes();
    let p0 = present(&mut cred, PRES_CTX, 10, &mut rng);
    let mut old = Credential::<V2>::from_bytes(&stale).unwrap();
    let p1 = present(&mut old, PRES_CTX, 10, &mut rng);
    assert_eq!(p0.tag(), p1.tag());
}

/// Privacy Pass: `Client::token_state` per origin visit made a fresh state each time.
#[test]
fn second_token_state_for_a_challenge_continues_the_nonces() {
    let mut rng = StdRng::seed_from_u64(4);
    let issuer = Issuer::new(ServerPrivateKey::<V2>::random(&mut rng));
    let ch = TokenChallenge::new(b"issuer.example", &[5; 32], b"origin.example", &[]).unwrap();
    let (req, st) = Client::request(&ch, issuer.public_key(), &mut rng).unwrap();
    let resp = issuer.issue(&req, &mut rng).unwrap();
    let mut cred = st.finalize(&resp).unwrap();
    let t1 = Client::token_state(&mut cred, &ch, issuer.public_key(), 3)
        .unwrap()
        .token(&mut rng)
        .unwrap();
    let t2 = Client::token_state(&mut cred, &ch, issuer.public_key(), 3)
        .unwrap()
        .token(&mut rng)
        .unwrap();
    let tag1 = issuer.verify(&t1, &ch, 3).unwrap();
    let tag2 = issuer.verify(&t2, &ch, 3).unwrap();
    assert_ne!(tag1, tag2);
}

fn legacy_states_never_collide<S: ClearNonceSuite>() {
    let (server, mut cred, mut rng) = setup::<S>(5);
    let limit = 16;
    let mut nonces = Vec::new();
    // Two states for one context, 8 presentations each: with a fresh permutation per state
    // (the old behaviour) the two halves overlap unless they are disjoint by chance (1/12870).
    for _ in 0..2 {
        let mut st = cred
            .legacy_presentation_state(PRES_CTX, limit, &mut rng)
            .unwrap();
        for _ in 0..8 {
            let (p, n) = st.present(&mut rng).unwrap();
            server
                .verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, n, limit)
                .unwrap();
            nonces.push(n);
        }
    }
    nonces.sort_unstable();
    assert_eq!(nonces, (0..limit).collect::<Vec<u32>>());
    let mut st = cred
        .legacy_presentation_state(PRES_CTX, limit, &mut rng)
        .unwrap();
    assert_eq!(st.present(&mut rng).unwrap_err(), Error::LimitExceeded);
}

#[test]
fn legacy_states_for_one_context_never_collide() {
    legacy_states_never_collide::<ArcV1P256>();
    legacy_states_never_collide::<ArcV1P384>();
}

/// A restored legacy credential keeps the permutation (not only the count).
#[test]
fn restored_legacy_credential_keeps_the_permutation() {
    let (_, mut cred, mut rng) = setup::<ArcV1P256>(6);
    let limit = 64;
    let mut seen = HashSet::new();
    let nonce = |c: &mut Credential<ArcV1P256>, rng: &mut StdRng| {
        let mut st = c.legacy_presentation_state(PRES_CTX, limit, rng).unwrap();
        st.present(rng).unwrap().1
    };
    for _ in 0..limit / 2 {
        seen.insert(nonce(&mut cred, &mut rng));
    }
    let mut back = Credential::<ArcV1P256>::from_bytes(&cred.to_bytes()).unwrap();
    for _ in 0..limit / 2 {
        let n = nonce(&mut back, &mut rng);
        assert!(seen.insert(n), "nonce {n} repeated after a round trip");
    }
}

/// Another limit for a context would restart (legacy: reshuffle) its nonces.
#[test]
fn another_limit_for_a_used_context_is_refused() {
    let (_, mut cred, mut rng) = setup::<V2>(7);
    present(&mut cred, PRES_CTX, 10, &mut rng);
    assert_eq!(
        cred.presentation_state(PRES_CTX, 11).unwrap_err(),
        Error::LimitExceeded
    );
    let (_, mut cred1, mut rng1) = setup::<ArcV1P256>(7);
    cred1
        .legacy_presentation_state(PRES_CTX, 10, &mut rng1)
        .unwrap();
    assert_eq!(
        cred1
            .legacy_presentation_state(PRES_CTX, 9, &mut rng1)
            .unwrap_err(),
        Error::LimitExceeded
    );
}

/// The counters' storage is strict: canonical order, limits, counts.
#[test]
fn credential_storage_is_strict() {
    let (_, mut cred, mut rng) = setup::<V2>(8);
    for ctx in [&b"b"[..], b"a", b"c"] {
        present(&mut cred, ctx, 4, &mut rng);
    }
    let good = cred.to_bytes().to_vec();
    assert_eq!(good.len(), cred.encoded_len());
    let back = Credential::<V2>::from_bytes(&good).unwrap();
    assert_eq!(back.to_bytes().to_vec(), good);
    let ctxs: Vec<_> = back.contexts().map(|(c, _, _)| c.to_vec()).collect();
    assert_eq!(ctxs, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    // Layout after the 133-byte key: BE32(3), then (limit, used, len, ctx) x 3.
    let key_len = good.len() - 4 - 3 * 11;
    let counter = |i: usize| key_len + 4 + 11 * i;
    // Swapped contexts (out of order) and a repeated context are refused.
    let mut b = good.clone();
    b[counter(0) + 10] = b'b';
    b[counter(1) + 10] = b'a';
    assert_eq!(
        Credential::<V2>::from_bytes(&b).unwrap_err(),
        Error::UnsupportedValue
    );
    let mut b = good.clone();
    b[counter(1) + 10] = b'a';
    assert_eq!(
        Credential::<V2>::from_bytes(&b).unwrap_err(),
        Error::UnsupportedValue
    );
    // More used than the limit, and a limit below 2.
    let mut b = good.clone();
    b[counter(0) + 4..counter(0) + 8].copy_from_slice(&5u32.to_be_bytes());
    assert_eq!(
        Credential::<V2>::from_bytes(&b).unwrap_err(),
        Error::LimitExceeded
    );
    let mut b = good.clone();
    b[counter(0)..counter(0) + 4].copy_from_slice(&1u32.to_be_bytes());
    assert_eq!(
        Credential::<V2>::from_bytes(&b).unwrap_err(),
        Error::LimitExceeded
    );
    // A count the input cannot hold is refused before anything is allocated.
    let mut b = good[..key_len + 4].to_vec();
    b[key_len..].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(
        Credential::<V2>::from_bytes(&b).unwrap_err(),
        Error::InvalidLength
    );
    // Trailing bytes.
    let mut b = good.clone();
    b.push(0);
    assert_eq!(
        Credential::<V2>::from_bytes(&b).unwrap_err(),
        Error::InvalidLength
    );
}

// ---------------------------------------------------------------------------------------------
// §6: Pedersen hints

/// A hint now borrows its coefficients instead of holding copies (so resetting a hint array can
/// leave nothing behind): a hint is too small to hold the two secret scalars it names. The old
/// by-value hint (`Option<Scalar>`, `Scalar`, a table reference) was 80 bytes on P-256.
#[test]
fn pedersen_hints_do_not_hold_the_secrets() {
    let mut rng = StdRng::seed_from_u64(9);
    let s1 = group::random_scalar::<p256::NistP256>(&mut rng);
    let s2 = group::random_scalar::<p256::NistP256>(&mut rng);
    let table = FixedBaseTable::new(&AffinePoint::<p256::NistP256>::generator());
    let hint = Base::Pedersen {
        g: Some(&s1),
        h: &s2,
        h_table: &table,
    };
    assert!(
        core::mem::size_of_val(&hint) < 2 * core::mem::size_of::<Scalar<p256::NistP256>>(),
        "a hint of {} bytes could hold both scalars",
        core::mem::size_of_val(&hint)
    );
    // And the proofs built with these hints still verify (issuance and presentation use them).
    let (server, mut cred, mut rng) = setup::<V2>(9);
    for limit in [2u32, 100] {
        let ctx = format!("hint context {limit}");
        let p = present(&mut cred, ctx.as_bytes(), limit, &mut rng);
        server
            .verify_presentation(REQ_CTX, ctx.as_bytes(), &p, limit)
            .unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// §13: Privacy Pass token malleability

fn pp_setup(seed: u64) -> (Issuer, TokenChallenge, Credential<V2>, StdRng) {
    let mut rng = StdRng::seed_from_u64(seed);
    let issuer = Issuer::new(ServerPrivateKey::<V2>::random(&mut rng));
    let ch = TokenChallenge::new(b"issuer.example", &[3; 32], b"origin.example", &[]).unwrap();
    let (req, st) = Client::request(&ch, issuer.public_key(), &mut rng).unwrap();
    let resp = issuer.issue(&req, &mut rng).unwrap();
    let cred = st.finalize(&resp).unwrap();
    (issuer, ch, cred, rng)
}

/// Bytes 2..6 (`presentation_nonce`) are ignored: a changed field verifies to the *same* tag,
/// which is why the tag, not the bytes, is the double-spend key.
#[test]
fn token_presentation_nonce_bytes_do_not_fork_the_tag() {
    let (issuer, ch, mut cred, mut rng) = pp_setup(10);
    let token = Client::token_state(&mut cred, &ch, issuer.public_key(), 4)
        .unwrap()
        .token(&mut rng)
        .unwrap();
    let bytes = token.to_bytes();
    assert_eq!(bytes[2..6], [0, 0, 0, 0]);
    let tag = issuer.verify(&token, &ch, 4).unwrap();
    for field in [[0, 0, 0, 1], [0xff; 4], [0x12, 0x34, 0x56, 0x78]] {
        let mut b = bytes.clone();
        b[2..6].copy_from_slice(&field);
        let forked = Token::from_bytes(&b).unwrap();
        assert_eq!(issuer.verify(&forked, &ch, 4).unwrap(), tag);
        assert_eq!(forked, token);
        assert_eq!(forked.to_bytes(), bytes);
    }
}

// ---------------------------------------------------------------------------------------------
// §15: constant-time equality on bearer values

#[test]
fn bearer_values_compare_in_constant_time() {
    let (issuer, ch, mut cred, mut rng) = pp_setup(11);
    let mut ts = Client::token_state(&mut cred, &ch, issuer.public_key(), 4).unwrap();
    let t1 = ts.token(&mut rng).unwrap();
    let t2 = ts.token(&mut rng).unwrap();
    let t1b = Token::from_bytes(&t1.to_bytes()).unwrap();
    assert!(bool::from(t1.ct_eq(&t1b)));
    assert!(!bool::from(t1.ct_eq(&t2)));
    assert_eq!(t1, t1b);
    assert_ne!(t1, t2);
    // One flipped response byte is unequal (the comparison covers the proof).
    let mut b = t1.to_bytes();
    let last = b.len() - 1;
    b[last] ^= 1;
    if let Ok(t) = Token::from_bytes(&b) {
        assert!(!bool::from(t.ct_eq(&t1)));
    }
    let (p1, p2) = (t1.presentation(), t2.presentation());
    assert!(bool::from(p1.ct_eq(
        &Presentation::<V2>::from_bytes(&p1.to_bytes()).unwrap()
    )));
    assert!(!bool::from(p1.ct_eq(p2)));

    let (_, mut cred1, mut rng1) = setup::<ArcV1P256>(11);
    let mut st = cred1
        .legacy_presentation_state(PRES_CTX, 4, &mut rng1)
        .unwrap();
    let (l1, _) = st.present(&mut rng1).unwrap();
    let (l2, _) = st.present(&mut rng1).unwrap();
    let l1b = LegacyPresentation::<ArcV1P256>::from_bytes(&l1.to_bytes()).unwrap();
    assert!(bool::from(l1.ct_eq(&l1b)));
    assert!(!bool::from(l1.ct_eq(&l2)));
}

// ---------------------------------------------------------------------------------------------
// Limits: each checked with a typed error before any work

#[test]
fn context_length_limit() {
    let at = vec![7u8; MAX_CONTEXT_LEN];
    let over = vec![7u8; MAX_CONTEXT_LEN + 1];
    let mut rng = StdRng::seed_from_u64(12);
    // Request context.
    assert_eq!(
        CredentialRequest::<V2>::new(&over, &mut rng).unwrap_err(),
        Error::InputTooLong
    );
    let server = ServerPrivateKey::<V2>::random(&mut rng);
    let req = CredentialRequest::<V2>::new(&at, &mut rng).unwrap();
    let resp = server.issue(&req.message, &mut rng).unwrap();
    let mut cred = req.state.finalize(server.public_key(), &resp).unwrap();
    // Presentation context: refused, and nothing recorded in the credential.
    assert_eq!(
        cred.presentation_state(&over, 4).unwrap_err(),
        Error::InputTooLong
    );
    assert_eq!(cred.contexts().count(), 0);
    let p = present(&mut cred, &at, 4, &mut rng);
    server.verify_presentation(&at, &at, &p, 4).unwrap();
    // Verifier contexts.
    assert_eq!(
        server.verify_presentation(&over, &at, &p, 4),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        server.verify_presentation(&at, &over, &p, 4),
        Err(Error::InputTooLong)
    );
    // Hazmat explicit-nonce paths.
    let mut drng = TestDrng::new(b"limits");
    assert_eq!(
        hazmat::present_nonce_with(&cred, &over, 0, 4, &mut drng).unwrap_err(),
        Error::InputTooLong
    );
    // Legacy.
    let (server1, mut cred1, mut rng1) = setup::<ArcV1P256>(12);
    assert_eq!(
        cred1
            .legacy_presentation_state(&over, 4, &mut rng1)
            .unwrap_err(),
        Error::InputTooLong
    );
    assert_eq!(cred1.contexts().count(), 0);
    let (lp, n) = cred1
        .legacy_presentation_state(PRES_CTX, 4, &mut rng1)
        .unwrap()
        .present(&mut rng1)
        .unwrap();
    assert_eq!(
        server1.verify_legacy_presentation(&over, PRES_CTX, &lp, n, 4),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        server1.verify_legacy_presentation(REQ_CTX, &over, &lp, n, 4),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        hazmat::legacy_present_nonce_with(&cred1, &over, 0, &mut TestDrng::new(b"l")).unwrap_err(),
        Error::InputTooLong
    );
}

#[test]
fn presentation_limit_and_nonce_limits() {
    let (server, mut cred, mut rng) = setup::<V2>(13);
    for limit in [0u32, 1] {
        assert_eq!(
            cred.presentation_state(PRES_CTX, limit).unwrap_err(),
            Error::LimitExceeded
        );
    }
    // Nothing was recorded for the refused limits.
    assert_eq!(cred.contexts().count(), 0);
    let p = present(&mut cred, PRES_CTX, 2, &mut rng);
    assert_eq!(
        server.verify_presentation(REQ_CTX, PRES_CTX, &p, 1),
        Err(Error::LimitExceeded)
    );
    // The largest limit, 2^32 - 1, is accepted (k = 32).
    assert_eq!(
        cred.presentation_state(b"max", u32::MAX)
            .unwrap()
            .remaining(),
        u32::MAX
    );
    // nonce < limit on the explicit-nonce path (client) and in legacy verification (server).
    let mut drng = TestDrng::new(b"nonce");
    assert_eq!(
        hazmat::present_nonce_with(&cred, PRES_CTX, 2, 2, &mut drng).unwrap_err(),
        Error::LimitExceeded
    );
    let (server1, mut cred1, mut rng1) = setup::<ArcV1P256>(13);
    let (lp, n) = cred1
        .legacy_presentation_state(PRES_CTX, 2, &mut rng1)
        .unwrap()
        .present(&mut rng1)
        .unwrap();
    server1
        .verify_legacy_presentation(REQ_CTX, PRES_CTX, &lp, n, 2)
        .unwrap();
    for bad in [2u32, u32::MAX] {
        assert_eq!(
            server1.verify_legacy_presentation(REQ_CTX, PRES_CTX, &lp, bad, 2),
            Err(Error::InvalidProof)
        );
    }
    assert_eq!(
        server1.verify_legacy_presentation(REQ_CTX, PRES_CTX, &lp, n, 0),
        Err(Error::LimitExceeded)
    );
}

#[test]
fn privacy_pass_challenge_and_token_length_limits() {
    // issuer_name and origin_info together: at most MAX_NAMES_LEN.
    let half = privacy_pass::MAX_NAMES_LEN / 2;
    let name = vec![b'i'; half];
    let origin_ok = vec![b'o'; privacy_pass::MAX_NAMES_LEN - half];
    let origin_over = vec![b'o'; privacy_pass::MAX_NAMES_LEN - half + 1];
    let ch = TokenChallenge::new(&name, &[1; 32], &origin_ok, &[2; 32]).unwrap();
    assert_eq!(
        ch.presentation_context(&[0; privacy_pass::NID]).len(),
        MAX_CONTEXT_LEN
    );
    assert_eq!(
        ch.request_context(&[0; privacy_pass::NID]).len(),
        MAX_CONTEXT_LEN
    );
    assert_eq!(
        TokenChallenge::new(&name, &[1; 32], &origin_over, &[]).unwrap_err(),
        Error::InputTooLong
    );
    assert_eq!(
        TokenChallenge::new(&[], &[], b"o", &[]).unwrap_err(),
        Error::InputTooLong
    );
    assert_eq!(
        TokenChallenge::new(b"i", &[1; 31], b"o", &[]).unwrap_err(),
        Error::InvalidLength
    );
    assert_eq!(
        TokenChallenge::new(b"i", &[], b"o", &[1; 33]).unwrap_err(),
        Error::InvalidLength
    );
    // The challenge at the bound round-trips through its encoding.
    assert_eq!(TokenChallenge::from_bytes(&ch.to_bytes()).unwrap(), ch);

    // Token lengths: the 70-byte header, then a presentation with 1 <= k <= 32.
    let (issuer, ch, mut cred, mut rng) = pp_setup(14);
    let t = Client::token_state(&mut cred, &ch, issuer.public_key(), 2)
        .unwrap()
        .token(&mut rng)
        .unwrap()
        .to_bytes();
    for len in [0usize, 2, 69, 70, 71, t.len() - 1] {
        assert_eq!(
            Token::from_bytes(&t[..len]).unwrap_err(),
            Error::InvalidLength,
            "length {len}"
        );
    }
    let mut long = t.clone();
    long.push(0);
    assert_eq!(Token::from_bytes(&long).unwrap_err(), Error::InvalidLength);
    // A presentation body longer than k = 32 allows is refused by length alone.
    let mut huge = t[..70].to_vec();
    huge.resize(70 + Presentation::<V2>::encoded_len_for(33), 2);
    assert_eq!(Token::from_bytes(&huge).unwrap_err(), Error::InvalidLength);
    let mut other_type = t.clone();
    other_type[0] ^= 1;
    assert_eq!(
        Token::from_bytes(&other_type).unwrap_err(),
        Error::UnsupportedValue
    );
    // A limit below 2 at the issuer: typed, after the key id and challenge checks.
    let token = Token::from_bytes(&t).unwrap();
    assert_eq!(issuer.verify(&token, &ch, 1), Err(Error::LimitExceeded));
}
