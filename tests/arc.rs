//! ARC flows, limits, serialization and rejection tests.

#[path = "support/arc_setup.rs"]
mod arc_setup;
#[path = "support/runner.rs"]
mod runner;

use privacy_tokens::arc::hazmat::{self, TestDrng};
use privacy_tokens::arc::{
    ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, Credential, CredentialRequest,
    CredentialResponse, LegacyPresentation, Presentation, ServerPrivateKey, ServerPublicKey,
};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;

const REQ_CTX: &[u8] = b"test request context";
const PRES_CTX: &[u8] = b"test presentation context";

type V2 = ArcV2P256;

fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

fn setup<S: ArcSuite>(seed: u64) -> (ServerPrivateKey<S>, Credential<S>, StdRng) {
    arc_setup::setup::<S>(seed, REQ_CTX)
}

#[test]
fn round_trips_at_many_limits() {
    let (server, mut cred, mut rng) = setup::<V2>(1);
    for limit in [2u32, 3, 5, 7, 8, 100, 1 << 16, u32::MAX] {
        // One context per limit: a context keeps the limit it was first used with.
        let ctx = format!("presentation context {limit}");
        let mut st = cred.presentation_state(ctx.as_bytes(), limit).unwrap();
        let uses = limit.min(4);
        let mut tags = Vec::new();
        for _ in 0..uses {
            let p = st.present(&mut rng).unwrap();
            let bytes = p.to_bytes();
            let k = (32 - (limit - 1).leading_zeros()) as usize;
            assert_eq!(bytes.len(), 357 + 129 * k, "limit {limit}");
            let back = Presentation::<V2>::from_bytes(&bytes).unwrap();
            assert_eq!(back, p);
            let tag = server
                .verify_presentation(REQ_CTX, ctx.as_bytes(), &back, limit)
                .unwrap();
            assert_eq!(tag, p.tag());
            assert!(!tags.contains(&tag));
            tags.push(tag);
        }
        if limit <= 4 {
            assert_eq!(st.present(&mut rng).unwrap_err(), Error::LimitExceeded);
            assert_eq!(st.remaining(), 0);
        }
    }
}

#[test]
fn every_nonce_of_small_limits_verifies() {
    let (server, mut cred, mut rng) = setup::<V2>(2);
    for limit in [2u32, 3, 5, 6, 7, 9, 17] {
        let ctx = format!("presentation context {limit}");
        let mut st = cred.presentation_state(ctx.as_bytes(), limit).unwrap();
        for _ in 0..limit {
            let p = st.present(&mut rng).unwrap();
            server
                .verify_presentation(REQ_CTX, ctx.as_bytes(), &p, limit)
                .unwrap();
        }
        assert_eq!(st.present(&mut rng).unwrap_err(), Error::LimitExceeded);
    }
}

#[test]
fn last_nonce_of_the_largest_limit() {
    let (server, mut cred, mut rng) = setup::<V2>(3);
    let limit = u32::MAX;
    cred.presentation_state(PRES_CTX, limit).unwrap();
    // Move the counter to its last nonce through the storage format: the credential's only
    // counter is `BE32(limit) || BE32(used) || BE16(len) || context` at the end.
    let mut bytes = cred.to_bytes().to_vec();
    let off = bytes.len() - PRES_CTX.len() - 2 - 4;
    assert_eq!(bytes[off - 4..off], limit.to_be_bytes());
    bytes[off..off + 4].copy_from_slice(&(limit - 1).to_be_bytes());
    let mut cred = Credential::<V2>::from_bytes(&bytes).unwrap();
    let mut st = cred.presentation_state(PRES_CTX, limit).unwrap();
    assert_eq!(st.remaining(), 1);
    let p = st.present(&mut rng).unwrap();
    server
        .verify_presentation(REQ_CTX, PRES_CTX, &p, limit)
        .unwrap();
    assert_eq!(st.present(&mut rng).unwrap_err(), Error::LimitExceeded);
}

#[test]
fn nonce_at_or_above_the_limit_is_refused() {
    let (server, cred, _) = setup::<V2>(4);
    let mut drng = TestDrng::new(b"negative");
    for limit in [2u32, 3, 100] {
        assert_eq!(
            hazmat::present_nonce_with(&cred, PRES_CTX, limit, limit, &mut drng).unwrap_err(),
            Error::LimitExceeded
        );
        // A proof for nonce < limit does not verify under a smaller limit with the same k when
        // the nonce is out of that range: the range proof binds the bases.
        let p = hazmat::present_nonce_with(&cred, PRES_CTX, limit - 1, limit, &mut drng).unwrap();
        server
            .verify_presentation(REQ_CTX, PRES_CTX, &p, limit)
            .unwrap();
    }
    // nonce 4 with limit 5 (bases [2,1,1]) checked under limit 4 (bases [2,1]) fails: k differs.
    let p = hazmat::present_nonce_with(&cred, PRES_CTX, 4, 5, &mut drng).unwrap();
    assert_eq!(
        server.verify_presentation(REQ_CTX, PRES_CTX, &p, 4),
        Err(Error::InvalidProof)
    );
    // nonce 6 with limit 7 (bases [3,2,1]) checked under limit 6 (bases [2,2,1]... k = 3): fails.
    let p = hazmat::present_nonce_with(&cred, PRES_CTX, 6, 7, &mut drng).unwrap();
    assert_eq!(
        server.verify_presentation(REQ_CTX, PRES_CTX, &p, 6),
        Err(Error::InvalidProof)
    );
}

#[test]
fn limits_below_two_are_rejected() {
    let (server, mut cred, mut rng) = setup::<V2>(5);
    for limit in [0u32, 1] {
        assert_eq!(
            cred.presentation_state(PRES_CTX, limit).unwrap_err(),
            Error::LimitExceeded
        );
    }
    let mut st = cred.presentation_state(PRES_CTX, 2).unwrap();
    let p = st.present(&mut rng).unwrap();
    // The verifier's own limit is checked first, with a typed error.
    for limit in [0u32, 1] {
        assert_eq!(
            server.verify_presentation(REQ_CTX, PRES_CTX, &p, limit),
            Err(Error::LimitExceeded)
        );
    }
    let (server1, mut cred1, mut rng1) = setup::<ArcV1P256>(5);
    assert!(cred1
        .legacy_presentation_state(PRES_CTX, 1, &mut rand::rng())
        .is_err());
    let mut st1 = cred1
        .legacy_presentation_state(PRES_CTX, 2, &mut rand::rng())
        .unwrap();
    let (p1, n1) = st1.present(&mut rng1).unwrap();
    assert_eq!(
        server1.verify_legacy_presentation(REQ_CTX, PRES_CTX, &p1, n1, 1),
        Err(Error::LimitExceeded)
    );
    assert_eq!(
        server1.verify_legacy_presentation(REQ_CTX, PRES_CTX, &p1, 2, 2),
        Err(Error::InvalidProof)
    );
}

#[test]
fn other_context_or_key_fails() {
    let (server, mut cred, mut rng) = setup::<V2>(6);
    let other = ServerPrivateKey::<V2>::random(&mut rng);
    let mut st = cred.presentation_state(PRES_CTX, 10).unwrap();
    let p = st.present(&mut rng).unwrap();
    server
        .verify_presentation(REQ_CTX, PRES_CTX, &p, 10)
        .unwrap();
    for (rc, pc, l) in [
        (&b"other request context"[..], PRES_CTX, 10),
        (REQ_CTX, &b"other presentation context"[..], 10),
        (REQ_CTX, PRES_CTX, 16),
        (REQ_CTX, PRES_CTX, 9),
    ] {
        assert_eq!(
            server.verify_presentation(rc, pc, &p, l),
            Err(Error::InvalidProof)
        );
    }
    assert_eq!(
        other.verify_presentation(REQ_CTX, PRES_CTX, &p, 10),
        Err(Error::InvalidProof)
    );
    // A response from another key does not finalize.
    let req = CredentialRequest::<V2>::new(REQ_CTX, &mut rng).unwrap();
    let resp = other.issue(&req.message, &mut rng).unwrap();
    assert_eq!(
        req.state.finalize(server.public_key(), &resp).unwrap_err(),
        Error::InvalidProof
    );
}

fn legacy_other_context_or_key<S: ClearNonceSuite>() {
    let (server, mut cred, mut rng) = setup::<S>(7);
    let other = ServerPrivateKey::<S>::random(&mut rng);
    let mut st = cred
        .legacy_presentation_state(PRES_CTX, 10, &mut rand::rng())
        .unwrap();
    let (p, n) = st.present(&mut rng).unwrap();
    server
        .verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, n, 10)
        .unwrap();
    assert!(server
        .verify_legacy_presentation(b"x", PRES_CTX, &p, n, 10)
        .is_err());
    assert!(server
        .verify_legacy_presentation(REQ_CTX, b"x", &p, n, 10)
        .is_err());
    assert!(server
        .verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, n + 1, 10)
        .is_err());
    assert!(other
        .verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, n, 10)
        .is_err());
    let mut nonces = vec![n];
    for _ in 1..10 {
        nonces.push(st.present(&mut rng).unwrap().1);
    }
    assert_eq!(st.present(&mut rng).unwrap_err(), Error::LimitExceeded);
    // Every nonce of [0, limit) exactly once, in a random order.
    let mut sorted = nonces.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..10).collect::<Vec<u32>>());
}

#[test]
fn legacy_other_context_or_key_fails() {
    legacy_other_context_or_key::<ArcV1P256>();
    legacy_other_context_or_key::<ArcV1P384>();
}

#[test]
fn reused_tag_is_reported_the_same() {
    let (server, cred, _) = setup::<V2>(8);
    let mut drng = TestDrng::new(b"reuse");
    let p1 = hazmat::present_nonce_with(&cred, PRES_CTX, 3, 10, &mut drng).unwrap();
    let p2 = hazmat::present_nonce_with(&cred, PRES_CTX, 3, 10, &mut drng).unwrap();
    assert_ne!(p1.to_bytes(), p2.to_bytes());
    let t1 = server
        .verify_presentation(REQ_CTX, PRES_CTX, &p1, 10)
        .unwrap();
    let t2 = server
        .verify_presentation(REQ_CTX, PRES_CTX, &p2, 10)
        .unwrap();
    assert_eq!(t1, t2);
    let (server1, cred1, _) = setup::<ArcV1P256>(8);
    let mut drng = TestDrng::new(b"reuse");
    let q1 = hazmat::legacy_present_nonce_with(&cred1, PRES_CTX, 3, &mut drng).unwrap();
    let q2 = hazmat::legacy_present_nonce_with(&cred1, PRES_CTX, 3, &mut drng).unwrap();
    assert_eq!(
        server1
            .verify_legacy_presentation(REQ_CTX, PRES_CTX, &q1, 3, 10)
            .unwrap(),
        server1
            .verify_legacy_presentation(REQ_CTX, PRES_CTX, &q2, 3, 10)
            .unwrap()
    );
}

fn flip_all(bytes: &[u8], mut accepts: impl FnMut(&[u8]) -> bool) {
    for i in 0..bytes.len() * 8 {
        let mut b = bytes.to_vec();
        b[i / 8] ^= 1 << (i % 8);
        assert!(!accepts(&b), "bit {i} flipped was accepted");
    }
}

#[test]
fn bit_flips_in_request_and_response_are_rejected() {
    let mut rng = rng(9);
    let server = ServerPrivateKey::<V2>::random(&mut rng);
    let req = CredentialRequest::<V2>::new(REQ_CTX, &mut rng).unwrap();
    flip_all(&req.message.to_bytes(), |b| {
        CredentialRequest::<V2>::from_bytes(b)
            .and_then(|r| server.issue(&r, &mut rng))
            .is_ok()
    });
    let resp = server.issue(&req.message, &mut rng).unwrap();
    flip_all(&resp.to_bytes(), |b| {
        CredentialResponse::<V2>::from_bytes(b)
            .and_then(|r| r.verify(&req.message, server.public_key()))
            .is_ok()
    });
    req.state.finalize(server.public_key(), &resp).unwrap();
}

#[test]
fn bit_flips_in_presentations_are_rejected() {
    let (server, mut cred, mut rng) = setup::<V2>(10);
    for limit in [2u32, 5] {
        let ctx = format!("presentation context {limit}");
        let mut st = cred.presentation_state(ctx.as_bytes(), limit).unwrap();
        let p = st.present(&mut rng).unwrap();
        flip_all(&p.to_bytes(), |b| {
            Presentation::<V2>::from_bytes(b)
                .and_then(|p| server.verify_presentation(REQ_CTX, ctx.as_bytes(), &p, limit))
                .is_ok()
        });
    }
    let (server1, mut cred1, mut rng1) = setup::<ArcV1P256>(10);
    let mut st = cred1
        .legacy_presentation_state(PRES_CTX, 4, &mut rand::rng())
        .unwrap();
    let (p, n) = st.present(&mut rng1).unwrap();
    flip_all(&p.to_bytes(), |b| {
        LegacyPresentation::<ArcV1P256>::from_bytes(b)
            .and_then(|p| server1.verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, n, 4))
            .is_ok()
    });
}

#[test]
fn request_commitments_equal_to_g_h_or_identity_are_rejected() {
    let mut rng = rng(11);
    let server = ServerPrivateKey::<V2>::random(&mut rng);
    let req = CredentialRequest::<V2>::new(REQ_CTX, &mut rng).unwrap();
    let good = req.message.to_bytes();
    let g = {
        let mut b = vec![0u8; 33];
        b.copy_from_slice(
            &hex::decode("036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
                .unwrap(),
        );
        b
    };
    let h = hazmat::generator_h_bytes::<V2>();
    assert_eq!(
        hex::encode(&h),
        "022d47ce5f78092b3e2b057228f47692d54fb6b554b1c1b1d5c93ee383b78483db"
    );
    for off in [0usize, 33] {
        for bad in [&g, &h] {
            let mut b = good.clone();
            b[off..off + 33].copy_from_slice(bad);
            let r = CredentialRequest::<V2>::from_bytes(&b).unwrap();
            assert_eq!(server.issue(&r, &mut rng).unwrap_err(), Error::InvalidProof);
        }
        let mut b = good.clone();
        b[off..off + 33].fill(0);
        assert_eq!(
            CredentialRequest::<V2>::from_bytes(&b).unwrap_err(),
            Error::IdentityElement
        );
    }
}

#[test]
fn presentation_with_identity_u_is_rejected() {
    let (_, mut cred, mut rng) = setup::<V2>(12);
    let mut st = cred.presentation_state(PRES_CTX, 2).unwrap();
    let mut b = st.present(&mut rng).unwrap().to_bytes();
    b[..33].fill(0);
    assert_eq!(
        Presentation::<V2>::from_bytes(&b).unwrap_err(),
        Error::IdentityElement
    );
    let (_, mut cred1, mut rng1) = setup::<ArcV1P384>(12);
    let mut st = cred1
        .legacy_presentation_state(PRES_CTX, 2, &mut rand::rng())
        .unwrap();
    let mut b = st.present(&mut rng1).unwrap().0.to_bytes();
    b[..49].fill(0);
    assert_eq!(
        LegacyPresentation::<ArcV1P384>::from_bytes(&b).unwrap_err(),
        Error::IdentityElement
    );
}

#[test]
fn decoders_are_strict() {
    let (server, mut cred, mut rng) = setup::<V2>(13);
    let pk = server.public_key().to_bytes();
    assert!(ServerPublicKey::<V2>::from_bytes(&pk[..98]).is_err());
    let mut long = pk.clone();
    long.push(0);
    assert_eq!(
        ServerPublicKey::<V2>::from_bytes(&long).unwrap_err(),
        Error::InvalidLength
    );
    let mut st = cred.presentation_state(PRES_CTX, 100).unwrap();
    let p = st.present(&mut rng).unwrap().to_bytes();
    for cut in [1usize, 33, 128] {
        assert_eq!(
            Presentation::<V2>::from_bytes(&p[..p.len() - cut]).unwrap_err(),
            Error::InvalidLength
        );
    }
    // One bit fewer (k = 6) may parse, but never verifies under the limit.
    if let Ok(short) = Presentation::<V2>::from_bytes(&p[..p.len() - 129]) {
        assert_eq!(short.range_bits(), 6);
        assert!(server
            .verify_presentation(REQ_CTX, PRES_CTX, &short, 100)
            .is_err());
    }
    // Version 1 (the format without counters) and unknown versions are refused.
    for v in [1u8, 3] {
        let mut c = cred.to_bytes().to_vec();
        c[0] = v;
        assert_eq!(
            Credential::<V2>::from_bytes(&c).unwrap_err(),
            Error::UnsupportedValue
        );
    }
    let c = cred.to_bytes();
    assert!(Credential::<ArcV1P256>::from_bytes(&c).is_err());
    // Non-canonical scalar in a proof.
    let req = CredentialRequest::<V2>::new(REQ_CTX, &mut rng).unwrap();
    let mut b = req.message.to_bytes();
    b[66..98].fill(0xff);
    assert_eq!(
        CredentialRequest::<V2>::from_bytes(&b).unwrap_err(),
        Error::NonCanonicalScalar
    );
}

#[test]
fn serde_round_trips() {
    let mut rng = rng(14);
    let server = ServerPrivateKey::<V2>::random(&mut rng);
    let s = serde_json::to_string(&server).unwrap();
    let back: ServerPrivateKey<V2> = serde_json::from_str(&s).unwrap();
    assert_eq!(back.public_key(), server.public_key());
    let pk: ServerPublicKey<V2> =
        serde_json::from_str(&serde_json::to_string(server.public_key()).unwrap()).unwrap();
    assert_eq!(&pk, server.public_key());
    let req = CredentialRequest::<V2>::new(REQ_CTX, &mut rng).unwrap();
    let m: CredentialRequest<V2> =
        serde_json::from_str(&serde_json::to_string(&req.message).unwrap()).unwrap();
    assert_eq!(m, req.message);
    let resp = server.issue(&req.message, &mut rng).unwrap();
    let r: CredentialResponse<V2> =
        serde_json::from_str(&serde_json::to_string(&resp).unwrap()).unwrap();
    assert_eq!(r, resp);
    let cred = req.state.finalize(server.public_key(), &resp).unwrap();
    let mut c: Credential<V2> =
        serde_json::from_str(&serde_json::to_string(&cred).unwrap()).unwrap();
    assert_eq!(c.to_bytes(), cred.to_bytes());
    c.presentation_state(PRES_CTX, 1000)
        .unwrap()
        .present(&mut rng)
        .unwrap();
    // The serde form carries the counters.
    let mut c2: Credential<V2> = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(c2.to_bytes(), c.to_bytes());
    let mut st2 = c2.presentation_state(PRES_CTX, 1000).unwrap();
    assert_eq!(st2.remaining(), 999);
    let p = st2.present(&mut rng).unwrap();
    let p2: Presentation<V2> = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
    assert_eq!(p2, p);
    server
        .verify_presentation(REQ_CTX, PRES_CTX, &p2, 1000)
        .unwrap();
    let (_, mut cred1, mut rng1) = setup::<ArcV1P384>(14);
    let mut st = cred1
        .legacy_presentation_state(PRES_CTX, 5, &mut rand::rng())
        .unwrap();
    let (lp, _) = st.present(&mut rng1).unwrap();
    let lp2: LegacyPresentation<ArcV1P384> =
        serde_json::from_str(&serde_json::to_string(&lp).unwrap()).unwrap();
    assert_eq!(lp2, lp);
}

#[test]
fn secrets_have_redacted_debug() {
    let (server, mut cred, _) = setup::<V2>(15);
    let d = format!("{server:?} {cred:?}");
    assert!(d.contains("redacted"));
    let sk = server.to_bytes();
    assert!(!d.contains(&hex::encode(&sk[..32])));
    let st = cred.presentation_state(PRES_CTX, 4).unwrap();
    assert!(format!("{st:?}").contains("redacted"));
    let cred_bytes = cred.to_bytes();
    assert!(!format!("{cred:?}").contains(&hex::encode(&cred_bytes[2..34])));
}

/// A vector file in the published layout generated by this crate at limit 100 (k = 7,
/// `D_0..D_6`), committed under `test-vectors/`: it must regenerate byte for byte and replay.
/// Set `ARC_WRITE_VECTORS=1` to rewrite it.
#[test]
fn generated_limit_100_vector_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test-vectors/arc-v2-generated-limit100.json");
    let doc = runner::arc::generate_v2(b"privacy-tokens ARC limit 100 seed", 100, 5).unwrap();
    if std::env::var_os("ARC_WRITE_VECTORS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(file, doc);
    let c = runner::arc::run(&file).unwrap();
    assert!(c.failures.is_empty(), "{:#?}", c.failures);
    assert_eq!(c.passed, 4 + 5);
    // And the runner sees the D_i: a changed D_3 is a failure.
    let mut bad = file.clone();
    let d3 = bad["ARCV1-P256"]["Presentation2"]["D_3"]
        .as_str()
        .unwrap()
        .to_string();
    let d4 = bad["ARCV1-P256"]["Presentation2"]["D_4"]
        .as_str()
        .unwrap()
        .to_string();
    bad["ARCV1-P256"]["Presentation2"]["D_3"] = serde_json::Value::String(d4);
    bad["ARCV1-P256"]["Presentation2"]["D_4"] = serde_json::Value::String(d3);
    let c = runner::arc::run(&bad).unwrap();
    assert_eq!(c.failed, 1);
}

/// The runner really compares: a changed byte anywhere in a published field is a failure.
#[test]
fn published_vector_mutations_are_caught() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test-vectors/arc-draft-ietf-privacypass-arc-crypto-01.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let sections = [
        ("ServerKey", "X2"),
        ("CredentialRequest", "proof"),
        ("CredentialResponse", "X0_aux"),
        ("Credential", "U_prime"),
        ("Presentation1", "nonce_commit"),
        ("Presentation2", "proof"),
        ("Presentation2", "nonce_blinding"),
    ];
    for (sec, f) in sections {
        let mut bad = file.clone();
        let v = bad["ARCV1-P256"][sec][f].as_str().unwrap();
        let mut b = hex::decode(v).unwrap();
        let last = b.len() - 1;
        b[last] ^= 1;
        bad["ARCV1-P256"][sec][f] = serde_json::Value::String(hex::encode(b));
        let c = runner::arc::run(&bad).unwrap();
        assert_eq!(c.failed, 1, "{sec}.{f}: {c:?}");
    }
}

#[test]
fn legacy_state_round_trip_keeps_the_permutation() {
    let (server, mut cred, mut rng) = setup::<ArcV1P256>(16);
    let mut st = cred
        .legacy_presentation_state(PRES_CTX, 6, &mut rand::rng())
        .unwrap();
    let (_, n0) = st.present(&mut rng).unwrap();
    let json = serde_json::to_string(&cred).unwrap();
    let mut cred2: Credential<ArcV1P256> = serde_json::from_str(&json).unwrap();
    let mut st2 = cred2
        .legacy_presentation_state(PRES_CTX, 6, &mut rand::rng())
        .unwrap();
    assert_eq!(st2.remaining(), 5);
    let mut nonces = vec![n0];
    for _ in 0..5 {
        let (p, n) = st2.present(&mut rng).unwrap();
        server
            .verify_legacy_presentation(REQ_CTX, PRES_CTX, &p, n, 6)
            .unwrap();
        nonces.push(n);
    }
    nonces.sort_unstable();
    assert_eq!(nonces, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(st2.present(&mut rng).unwrap_err(), Error::LimitExceeded);
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1400)) {
            let _ = ServerPublicKey::<V2>::from_bytes(&bytes);
            let _ = ServerPrivateKey::<V2>::from_bytes(&bytes);
            let _ = CredentialRequest::<V2>::from_bytes(&bytes);
            let _ = CredentialResponse::<V2>::from_bytes(&bytes);
            let _ = Credential::<V2>::from_bytes(&bytes);
            let _ = Presentation::<V2>::from_bytes(&bytes);
            let _ = LegacyPresentation::<ArcV1P384>::from_bytes(&bytes);
            let _ = Credential::<ArcV1P256>::from_bytes(&bytes);
            let _ = privacy_tokens::arc::Tag::<V2>::from_bytes(&bytes);
            let _ = privacy_tokens::arc::privacy_pass::Token::from_bytes(&bytes);
            let _ = privacy_tokens::arc::privacy_pass::TokenChallenge::from_bytes(&bytes);
        }

        #[test]
        fn prefixed_presentations_never_panic(k in 1usize..=8, tail in proptest::collection::vec(any::<u8>(), 0..40)) {
            // Right length for k, random content.
            let mut b = vec![0x02u8; Presentation::<V2>::encoded_len_for(k)];
            for (x, t) in b.iter_mut().zip(tail.iter().cycle()) {
                *x ^= *t;
            }
            let _ = Presentation::<V2>::from_bytes(&b);
        }
    }
}
