//! ARC targets: every message, key and state encoding of the three suites and of the ARC
//! Privacy Pass wrapping, the verifiers, and both sides of issuance.

use privacy_tokens::arc::privacy_pass as app;
use privacy_tokens::arc::{
    ArcSuite, ArcV1P256, ArcV1P384, ArcV2P256, ClearNonceSuite, Credential, CredentialRequest,
    CredentialResponse, LegacyPresentation, Presentation, ServerPrivateKey, ServerPublicKey, Tag,
};

use crate::fixtures::{
    arc_pp, HasArcFix, ARC_LIMIT, ARC_PRESENTATION_CONTEXT as PCTX, ARC_REQUEST_CONTEXT as RCTX,
};
use crate::{adapt, rng, roundtrip, split};

fn common<S: ArcSuite>(kind: u8, d: &[u8]) {
    match kind {
        0 => drop(roundtrip(d, ServerPublicKey::<S>::from_bytes, |k| {
            k.to_bytes()
        })),
        1 => drop(roundtrip(d, ServerPrivateKey::<S>::from_bytes, |k| {
            k.to_bytes().to_vec()
        })),
        2 => drop(roundtrip(d, CredentialRequest::<S>::from_bytes, |r| {
            r.to_bytes()
        })),
        3 => drop(roundtrip(d, CredentialResponse::<S>::from_bytes, |r| {
            r.to_bytes()
        })),
        4 => drop(roundtrip(d, Credential::<S>::from_bytes, |c| {
            c.to_bytes().to_vec()
        })),
        _ => drop(roundtrip(d, Tag::<S>::from_bytes, |t| t.to_bytes())),
    }
}

fn legacy<S: ClearNonceSuite + HasArcFix>(kind: u8, d: &[u8]) {
    match kind {
        6 => drop(roundtrip(d, LegacyPresentation::<S>::from_bytes, |p| {
            p.to_bytes()
        })),
        7 => legacy_counters::<S>(d),
        _ => common::<S>(kind, d),
    }
}

fn v2(kind: u8, d: &[u8]) {
    match kind {
        6 => drop(roundtrip(d, Presentation::<ArcV2P256>::from_bytes, |p| {
            p.to_bytes()
        })),
        7 => v2_counters(d),
        _ => common::<ArcV2P256>(kind, d),
    }
}

/// A credential's storage encoding (key material and presentation counters) that must round
/// trip, with the first stored counter: `(credential, context, limit, next)`. The decoder
/// checks every counter, so the credential must hand out the state of that context and limit,
/// with `limit - next` presentations left.
fn stored_counter<S: ArcSuite>(d: &[u8]) -> Option<(Credential<S>, Vec<u8>, u32, u32)> {
    let cred = roundtrip(d, adapt::arc_credential::<S>, |c| c.to_bytes().to_vec())?;
    assert_eq!(
        cred.encoded_len(),
        d.len(),
        "encoded_len differs from to_bytes"
    );
    let (ctx, limit, next) = cred.contexts().next().map(|(c, l, n)| (c.to_vec(), l, n))?;
    assert!(limit >= 2 && next <= limit, "decoded counter out of range");
    Some((cred, ctx, limit, next))
}

/// Whether a decoded credential holds the fixture's key material (its encoding without
/// counters is the fixture's up to the counter count), so its presentations must verify.
fn is_fixture<S: HasArcFix>(d: &[u8]) -> bool {
    let fixed = &S::fix().credential_bytes;
    let key_len = fixed.len() - 4;
    d.get(..key_len) == Some(&fixed[..key_len])
}

/// After one `present` from a counter at `next` of `limit`: the counter moved on by one (or
/// stayed exhausted), and the credential still round trips.
fn counter_moved<S: ArcSuite>(cred: &Credential<S>, ctx: &[u8], limit: u32, next: u32) {
    let after = cred
        .contexts()
        .find(|(c, _, _)| *c == ctx)
        .map(|(_, l, n)| (l, n));
    assert_eq!(
        after,
        Some((limit, next.saturating_add(1).min(limit))),
        "present did not advance the counter"
    );
    let bytes = cred.to_bytes();
    drop(roundtrip(&bytes, adapt::arc_credential::<S>, |c| {
        c.to_bytes().to_vec()
    }));
}

/// Kind 7 of v2: the credential storage decoder with counters, then one presentation from the
/// first stored counter (which must continue it, and verify for the fixture's credential).
fn v2_counters(d: &[u8]) {
    let Some((mut cred, ctx, limit, next)) = stored_counter::<ArcV2P256>(d) else {
        return;
    };
    let st = adapt::arc_presentation_state(&mut cred, &ctx, limit)
        .expect("a stored counter's state is refused");
    assert_eq!(st.remaining(), limit - next, "a stored counter restarts");
    assert!(
        adapt::arc_presentation_state(&mut cred, &ctx, limit.wrapping_add(1)).is_err(),
        "a context is reused with another limit"
    );
    let mut st = adapt::arc_presentation_state(&mut cred, &ctx, limit).expect("state");
    let p = st.present(&mut rng(24));
    if next >= limit {
        assert!(p.is_err(), "an exhausted counter presents");
    } else if is_fixture::<ArcV2P256>(d) {
        let p = p.expect("present");
        assert!(
            ArcV2P256::fix()
                .key
                .verify_presentation(RCTX, &ctx, &p, limit)
                .is_ok(),
            "a presentation of the fixture credential does not verify"
        );
    }
    counter_moved(&cred, &ctx, limit, next);
}

/// Kind 7 of the legacy suites: as [`v2_counters`], with the legacy state (whose permutation
/// key is stored in the counter) and a nonce below the limit.
fn legacy_counters<S: ClearNonceSuite + HasArcFix>(d: &[u8]) {
    let Some((mut cred, ctx, limit, next)) = stored_counter::<S>(d) else {
        return;
    };
    let mut r = rng(25);
    let st = adapt::arc_legacy_presentation_state(&mut cred, &ctx, limit, &mut r)
        .expect("a stored counter's state is refused");
    assert_eq!(st.remaining(), limit - next, "a stored counter restarts");
    assert!(
        adapt::arc_legacy_presentation_state(&mut cred, &ctx, limit.wrapping_add(1), &mut r)
            .is_err(),
        "a context is reused with another limit"
    );
    let mut st =
        adapt::arc_legacy_presentation_state(&mut cred, &ctx, limit, &mut r).expect("state");
    let p = st.present(&mut r);
    if next >= limit {
        assert!(p.is_err(), "an exhausted counter presents");
    } else if is_fixture::<S>(d) {
        let (p, nonce) = p.expect("present");
        assert!(nonce < limit, "a legacy nonce at or above the limit");
        assert!(
            S::fix()
                .key
                .verify_legacy_presentation(RCTX, &ctx, &p, nonce, limit)
                .is_ok(),
            "a presentation of the fixture credential does not verify"
        );
    } else if let Ok((_, nonce)) = p {
        assert!(nonce < limit, "a legacy nonce at or above the limit");
    }
    counter_moved(&cred, &ctx, limit, next);
}

/// `arc_decode`: selector `< 128`: kind `sel % 8` of suite `(sel / 8) % 3` (v2, v1 P-256,
/// v1 P-384); `>= 128`: the ARC Privacy Pass messages. Decoded values must re-encode to the
/// input.
pub fn decode_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    if sel >= 128 {
        match sel % 4 {
            0 => drop(roundtrip(d, app::TokenChallenge::from_bytes, |c| {
                c.to_bytes()
            })),
            1 => drop(roundtrip(d, app::CredentialRequest::from_bytes, |r| {
                r.to_bytes()
            })),
            2 => drop(roundtrip(d, app::CredentialResponse::from_bytes, |r| {
                r.to_bytes()
            })),
            _ => {
                // `presentation_nonce` (bytes 2..6) is ignored on input and written as 0
                // (review finding 13, documented): the round trip holds up to those bytes.
                let Ok(t) = app::Token::from_bytes(d) else {
                    return;
                };
                let mut expected = d.to_vec();
                expected[2..6].fill(0);
                assert_eq!(
                    t.to_bytes(),
                    expected,
                    "decoded token re-encodes differently"
                );
            }
        }
        return;
    }
    let kind = sel % 8;
    match (sel / 8) % 3 {
        0 => v2(kind, d),
        1 => legacy::<ArcV1P256>(kind, d),
        _ => legacy::<ArcV1P384>(kind, d),
    }
}

fn verify_legacy<S: ClearNonceSuite + HasArcFix>(d: &[u8]) {
    let Some((nonce, p)) = d.split_first_chunk::<4>() else {
        return;
    };
    let Ok(p) = LegacyPresentation::<S>::from_bytes(p) else {
        return;
    };
    let nonce = u32::from_be_bytes(*nonce);
    let _ = S::fix()
        .key
        .verify_legacy_presentation(RCTX, PCTX, &p, nonce, ARC_LIMIT);
}

/// `arc_verify`: presentation / token bytes into verification. Selector `% 4`: v2
/// presentation, v1 P-256 and v1 P-384 (`u32 nonce || presentation`), ARC Privacy Pass token.
pub fn verify_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    match sel % 4 {
        0 => {
            let Ok(p) = Presentation::<ArcV2P256>::from_bytes(d) else {
                return;
            };
            let _ = ArcV2P256::fix()
                .key
                .verify_presentation(RCTX, PCTX, &p, ARC_LIMIT);
        }
        1 => verify_legacy::<ArcV1P256>(d),
        2 => verify_legacy::<ArcV1P384>(d),
        _ => {
            let Ok(t) = app::Token::from_bytes(d) else {
                return;
            };
            let f = arc_pp();
            let _ = f.issuer.verify(&t, &f.challenge, ARC_LIMIT);
        }
    }
}

fn issue_server<S: HasArcFix>(d: &[u8]) {
    let Ok(req) = CredentialRequest::<S>::from_bytes(d) else {
        return;
    };
    let key = &S::fix().key;
    if let Ok(resp) = key.issue(&req, &mut rng(16)) {
        assert!(
            resp.verify(&req, key.public_key()).is_ok(),
            "client refuses a response"
        );
    }
}

fn issue_client<S: HasArcFix>(d: &[u8]) {
    let Ok(resp) = CredentialResponse::<S>::from_bytes(d) else {
        return;
    };
    let req = CredentialRequest::<S>::new(RCTX, &mut rng(17)).expect("request");
    let _ = req.state.finalize(S::fix().key.public_key(), &resp);
}

/// `arc_issue`: the server's handling of request bytes and the client's finalize on response
/// bytes. Selector: suite `sel % 3`, role `(sel / 3) % 4` (server, client, and the same two
/// through the ARC Privacy Pass wrapping). A response the server makes must verify.
pub fn issue_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let role = (sel / 3) % 4;
    match (role, sel % 3) {
        (0, 0) => issue_server::<ArcV2P256>(d),
        (0, 1) => issue_server::<ArcV1P256>(d),
        (0, _) => issue_server::<ArcV1P384>(d),
        (1, 0) => issue_client::<ArcV2P256>(d),
        (1, 1) => issue_client::<ArcV1P256>(d),
        (1, _) => issue_client::<ArcV1P384>(d),
        (2, _) => {
            let Ok(req) = app::CredentialRequest::from_bytes(d) else {
                return;
            };
            let _ = arc_pp().issuer.issue(&req, &mut rng(18));
        }
        _ => {
            let Ok(resp) = app::CredentialResponse::from_bytes(d) else {
                return;
            };
            let f = arc_pp();
            let (_, st) = app::Client::request(&f.challenge, f.issuer.public_key(), &mut rng(19))
                .expect("request");
            let _ = st.finalize(&resp);
        }
    }
}

fn suite_messages<S: HasArcFix>(suite: u8) -> Vec<(u8, Vec<u8>)> {
    let f = S::fix();
    let req = CredentialRequest::<S>::new(RCTX, &mut rng(17)).expect("request");
    let resp = f.key.issue(&req.message, &mut rng(16)).expect("issue");
    vec![
        (suite * 8, f.key.public_key().to_bytes()),
        (suite * 8 + 1, f.key.to_bytes().to_vec()),
        (suite * 8 + 2, req.message.to_bytes()),
        (suite * 8 + 3, resp.to_bytes()),
        (suite * 8 + 4, f.credential_bytes.clone()),
    ]
}

/// A second presentation context of the counter seeds, used up (limit 2).
const PCTX_USED: &[u8] = b"fuzz used context";

/// Credential seeds with counters (kind 7): after one presentation for [`PCTX`], and after that
/// plus two (all) for [`PCTX_USED`]. `present` makes one presentation of a state.
fn counter_seeds<S: HasArcFix>(
    suite: u8,
    mut present: impl FnMut(&mut Credential<S>, &[u8], u32),
) -> Vec<(u8, Vec<u8>)> {
    let mut cred = S::fix().credential();
    present(&mut cred, PCTX, ARC_LIMIT);
    let mut out = vec![(suite * 8 + 7, cred.to_bytes().to_vec())];
    present(&mut cred, PCTX_USED, 2);
    present(&mut cred, PCTX_USED, 2);
    out.push((suite * 8 + 7, cred.to_bytes().to_vec()));
    out
}

fn legacy_messages<S: HasArcFix + ClearNonceSuite>(suite: u8) -> Vec<(u8, Vec<u8>)> {
    let mut out = suite_messages::<S>(suite);
    // A fresh credential per use: the fixture's would run out of nonces.
    let mut cred = S::fix().credential();
    let mut st = adapt::arc_legacy_presentation_state(&mut cred, PCTX, ARC_LIMIT, &mut rng(20))
        .expect("state");
    let (p, nonce) = st.present(&mut rng(21)).expect("present");
    out.push((suite * 8 + 5, p.tag().to_bytes()));
    out.push((suite * 8 + 6, p.to_bytes()));
    let mut v = nonce.to_be_bytes().to_vec();
    v.extend_from_slice(&p.to_bytes());
    out.push((200 + suite, v));
    out.extend(counter_seeds::<S>(suite, |c, ctx, limit| {
        let mut st =
            adapt::arc_legacy_presentation_state(c, ctx, limit, &mut rng(20)).expect("state");
        st.present(&mut rng(21)).expect("present");
    }));
    out
}

/// Valid fixture messages: `(arc_decode selector, bytes)`, plus `(200 + suite, verify input)`
/// for the legacy verifiers and `(203, v2 presentation)`.
pub fn messages() -> Vec<(u8, Vec<u8>)> {
    let mut out = suite_messages::<ArcV2P256>(0);
    out.extend(legacy_messages::<ArcV1P256>(1));
    out.extend(legacy_messages::<ArcV1P384>(2));
    let mut cred = ArcV2P256::fix().credential();
    let mut st = adapt::arc_presentation_state(&mut cred, PCTX, ARC_LIMIT).expect("state");
    let p = st.present(&mut rng(22)).expect("present");
    out.push((5, p.tag().to_bytes()));
    out.push((6, p.to_bytes()));
    out.push((203, p.to_bytes()));
    out.extend(counter_seeds::<ArcV2P256>(0, |c, ctx, limit| {
        let mut st = adapt::arc_presentation_state(c, ctx, limit).expect("state");
        st.present(&mut rng(22)).expect("present");
    }));
    // ARC Privacy Pass: challenge, request, response, token.
    let f = arc_pp();
    let (req, st) =
        app::Client::request(&f.challenge, f.issuer.public_key(), &mut rng(19)).expect("request");
    let resp = f.issuer.issue(&req, &mut rng(18)).expect("issue");
    let mut cred = st.finalize(&resp).expect("finalize");
    let mut ts =
        app::Client::token_state(&mut cred, &f.challenge, f.issuer.public_key(), ARC_LIMIT)
            .expect("token state");
    let token = ts.token(&mut rng(23)).expect("token");
    out.push((128, f.challenge.to_bytes()));
    out.push((129, req.to_bytes()));
    out.push((130, resp.to_bytes()));
    out.push((131, token.to_bytes()));
    out
}
