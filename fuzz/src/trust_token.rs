//! Trust Token / Private State Token targets: every message and storage decoder of the five
//! methods, and the issuer's and client's handling of received bytes for the pst_v1 methods.

use privacy_tokens::trust_token::{
    IssueResponse, Method, PrivateKey, PublicKey, Redemption, Token,
};

use crate::fixtures::{tt, TT_KEY_ID};
use crate::{adapt, rng, roundtrip, split};

/// `tt_decode`: selector `kind + 10 * method`; decoded values must re-encode to the input.
pub fn decode_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let m = Method::ALL[usize::from(sel / 10) % Method::ALL.len()];
    match sel % 10 {
        0 => drop(roundtrip(
            d,
            |b| PublicKey::from_bytes(m, b),
            |k| k.to_bytes(),
        )),
        1 => drop(roundtrip(
            d,
            |b| PrivateKey::from_bytes(m, b),
            |k| k.to_bytes().to_vec(),
        )),
        2 => drop(roundtrip(d, PublicKey::from_storage_bytes, |k| {
            k.to_storage_bytes()
        })),
        3 => drop(roundtrip(d, PrivateKey::from_storage_bytes, |k| {
            k.to_storage_bytes().to_vec()
        })),
        4 => drop(roundtrip(d, Token::decode, |t| t.as_bytes().to_vec())),
        5 => {
            if let Some(t) = roundtrip(
                d,
                |b| Token::from_bytes(b.to_vec()),
                |t| t.as_bytes().to_vec(),
            ) {
                let _ = (t.key_id(), t.nonce());
            }
        }
        6 => drop(roundtrip(d, IssueResponse::decode, |r| r.message.clone())),
        7 => drop(roundtrip(
            d,
            adapt::tt_state_from_bytes,
            adapt::tt_state_to_bytes,
        )),
        8 => drop(roundtrip(d, Redemption::from_bytes, |r| r.to_bytes())),
        _ => {
            if let Some(m) = d.first().and_then(|&id| Method::from_id(id)) {
                assert_eq!(m.id(), d[0]);
            }
            if let Some(m) = std::str::from_utf8(d).ok().and_then(Method::from_name) {
                assert_eq!(m.name().as_bytes(), d);
            }
        }
    }
}

/// `tt_issue`: request bytes into `Issuer::issue`. Selector bit 0: method (pst_v1 VOPRF, PMB);
/// bit 1: the private bit; bit 2: an unknown key id; the next byte is `max_issuance`. A
/// response the issuer produces must pass the client's proof check for the points it signed.
pub fn issue_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let Some((max_issuance, request)) = split(d) else {
        return;
    };
    let f = tt(sel);
    let key_id = if sel & 4 == 0 {
        TT_KEY_ID
    } else {
        TT_KEY_ID + 1
    };
    let Ok(resp) = f.issuer.issue(
        request,
        key_id,
        sel & 2 != 0,
        u16::from(max_issuance),
        &mut rng(12),
    ) else {
        return;
    };
    let plen = f.issuer.method().point_len();
    let n = usize::from(resp.issued);
    let mut signed = resp.issued.to_be_bytes().to_vec();
    signed.extend_from_slice(&request[2..2 + n * plen]);
    assert_eq!(
        f.client.verify_issuance(&signed, &resp.message),
        Ok(resp.issued),
        "the client refuses an issuer's response"
    );
}

/// `tt_redeem`: request bytes into `Issuer::redeem` (selector bit 1: `redeem_over_message`).
pub fn redeem_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = tt(sel);
    let r = if sel & 2 == 0 {
        f.issuer.redeem(d)
    } else {
        f.issuer.redeem_over_message(d, b"fuzz message")
    };
    if let Ok(r) = r {
        assert_eq!(r.key_id, TT_KEY_ID);
    }
}

/// `tt_finish`: response bytes into `Client::finish_issuance` for the fixture's pending request
/// (selector bit 1: `verify_issuance` against that request instead). Every token the client
/// accepts must redeem at the issuer.
pub fn finish_target(data: &[u8]) {
    let Some((sel, d)) = split(data) else { return };
    let f = tt(sel);
    if sel & 2 != 0 {
        let _ = f.client.verify_issuance(&f.request, d);
        return;
    }
    // `finish_issuance` consumes its state: a fresh one per input.
    let Ok(tokens) = adapt::tt_finish_issuance(&f.client, f.state(), d) else {
        return;
    };
    for t in &tokens {
        let req = f
            .client
            .begin_redemption(t, b"fuzz")
            .expect("redemption request");
        assert!(
            f.issuer.redeem(&req).is_ok(),
            "an accepted token does not redeem"
        );
    }
}

/// Valid fixture messages per method index `i`: `(kind, bytes)` with the `tt_decode` kinds
/// (0 public key, 1 private key, 4 token, 6 issue response, 7 state, 8 redemption) and
/// 10 request, 11 redemption request.
pub fn messages(i: u8) -> Vec<(u8, Vec<u8>)> {
    let f = tt(i);
    let m = f.issuer.method();
    let (sk, pk) =
        privacy_tokens::trust_token::derive_key_from_secret(m, TT_KEY_ID, b"fuzz").expect("key");
    let mut out = vec![
        (0, pk.to_bytes()),
        (1, sk.to_bytes().to_vec()),
        (2, pk.to_storage_bytes()),
        (3, sk.to_storage_bytes().to_vec()),
        (7, f.state_bytes.clone()),
        (10, f.request.clone()),
    ];
    for bit in [false, m.has_private_metadata()] {
        let resp = f
            .issuer
            .issue(&f.request, TT_KEY_ID, bit, 4, &mut rng(13))
            .expect("issue");
        let tokens =
            adapt::tt_finish_issuance(&f.client, f.state(), &resp.message).expect("finish");
        out.push((6, resp.message));
        for t in &tokens {
            let req = f.client.begin_redemption(t, b"fuzz").expect("redemption");
            let red = f.issuer.redeem(&req).expect("redeem");
            out.push((4, t.as_bytes().to_vec()));
            out.push((8, red.to_bytes()));
            out.push((11, req));
        }
    }
    out
}
