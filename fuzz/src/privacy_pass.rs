//! Privacy Pass issuance protocol 1 (RFC 9578, token type 0x0001) targets.

use privacy_tokens::voprf::privacy_pass::{
    BatchTokenResponse, Client, Token, TokenChallenge, TokenRequest, TokenResponse,
};

use crate::fixtures::{pp, pp_batch_state, pp_state};
use crate::{adapt, rng, roundtrip, split};

/// `pp_decode`: every message decoder, chosen by the selector byte; decoded values must
/// re-encode to the input.
pub fn decode_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    match sel % 6 {
        0 => drop(roundtrip(d, TokenChallenge::from_bytes, |v| v.to_bytes())),
        1 => drop(roundtrip(d, TokenRequest::from_bytes, |v| v.to_bytes())),
        2 => drop(roundtrip(d, TokenResponse::from_bytes, |v| v.to_bytes())),
        3 => drop(roundtrip(d, Token::from_bytes, |v| v.to_bytes())),
        4 => drop(roundtrip(d, adapt::pp_batch_request, |v| v.to_bytes())),
        _ => drop(roundtrip(d, BatchTokenResponse::from_bytes, |v| {
            v.to_bytes()
        })),
    }
}

/// `pp_issuer`: the issuer's handling of request bytes (single and batched), its token
/// verification, and the client's handling of challenge bytes.
pub fn issuer_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = pp();
    let mut rng = rng(10);
    match sel % 4 {
        0 => {
            if let Ok(req) = TokenRequest::from_bytes(d) {
                let _ = f.issuer.issue(&mut rng, &req);
            }
        }
        1 => {
            // Request bytes straight into the issuer, which checks the cap, the lengths and the
            // key id before decoding any element. It must accept exactly the requests that
            // decode under the cap for its key id, with one element per blinded element.
            let resp = adapt::pp_issue_batch(&f.issuer, &mut rng, d);
            let req = adapt::pp_batch_request(d)
                .ok()
                .filter(|r| r.truncated_token_key_id() == f.issuer.truncated_token_key_id());
            match (&resp, &req) {
                (Ok(resp), Some(req)) => assert_eq!(
                    resp.evaluated_elements().len(),
                    req.blinded_elements().len()
                ),
                (Err(_), None) => {}
                _ => panic!(
                    "issue_batch_from_bytes and from_bytes_with_limit disagree: {:?} vs {:?}",
                    resp.as_ref().map(|_| ()),
                    req.is_some()
                ),
            }
        }
        2 => {
            if let Ok(token) = Token::from_bytes(d) {
                let _ = f.issuer.verify_token(&token);
            }
        }
        _ => {
            let _ = Client::request(f.issuer.public_key(), d, &mut rng);
        }
    }
}

/// `pp_client`: the client's finalize on response bytes (single, and batched for two tokens);
/// a token it accepts must verify at the issuer.
pub fn client_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = pp();
    if sel & 1 == 0 {
        let Ok(resp) = TokenResponse::from_bytes(d) else {
            return;
        };
        if let Ok(token) = pp_state().finalize(&resp) {
            assert_eq!(f.issuer.verify_token(&token), Ok(true));
        }
    } else {
        let Ok(resp) = BatchTokenResponse::from_bytes(d) else {
            return;
        };
        if let Ok(tokens) = pp_batch_state().1.finalize_batch(&resp) {
            for t in &tokens {
                assert_eq!(f.issuer.verify_token(t), Ok(true));
            }
        }
    }
}

/// Valid messages of the fixture: `(selector-free)` challenge, requests, responses, tokens.
pub fn messages() -> Vec<(u8, Vec<u8>)> {
    let f = pp();
    let mut rng = rng(11);
    let mut out = vec![(0, f.challenge.clone())];
    let (req, state) = privacy_tokens::voprf::privacy_pass::request_with(
        f.issuer.public_key(),
        &f.challenge,
        &crate::fixtures::PP_NONCE,
        &crate::fixtures::blind::<privacy_tokens::P384Sha384>(),
    )
    .expect("request");
    let resp = f.issuer.issue(&mut rng, &req).expect("issue");
    let token = state.finalize(&resp).expect("finalize");
    let (breq, bstate) = pp_batch_state();
    let bresp = adapt::pp_issue_batch(&f.issuer, &mut rng, &breq.to_bytes()).expect("issue");
    drop(bstate);
    out.push((1, req.to_bytes().to_vec()));
    out.push((2, resp.to_bytes().to_vec()));
    out.push((3, token.to_bytes().to_vec()));
    out.push((4, breq.to_bytes()));
    out.push((5, bresp.to_bytes()));
    out
}

/// `pp_generic_decode`: the generic token batch decoders (draft-ietf-privacypass-batched-tokens:
/// types 0x0001, 0x0002 and 0x0005), chosen by the selector byte. A decoded value re-encodes to
/// the input; the framing-only `token_types` agrees with the full decoder (the same types when
/// it decodes, an error whenever the framing fails).
pub fn generic_decode_target(data: &[u8]) {
    use privacy_tokens::privacy_pass::generic_batch::{
        GenericBatchTokenRequest, GenericBatchTokenResponse, GenericToken,
    };
    let Some((sel, d)) = split(data) else { return };
    match sel % 3 {
        0 => {
            let framed = GenericBatchTokenRequest::token_types(d, 64);
            let full = roundtrip(
                d,
                |b| GenericBatchTokenRequest::from_bytes_with_limit(b, 64),
                |v| v.to_bytes(),
            );
            match (&framed, &full) {
                (Ok(types), Some(req)) => {
                    let got: Vec<u16> = req.requests().iter().map(|r| r.token_type()).collect();
                    assert_eq!(&got, types, "token_types disagrees with from_bytes");
                }
                (Err(_), Some(_)) => panic!("token_types refuses what from_bytes accepts"),
                _ => {}
            }
        }
        1 => drop(roundtrip(
            d,
            |b| GenericBatchTokenResponse::from_bytes_with_limit(b, 64),
            |v| v.to_bytes(),
        )),
        _ => drop(roundtrip(d, GenericToken::from_bytes, |v| v.to_bytes())),
    }
}
