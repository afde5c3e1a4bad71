//! Privacy Pass issuance protocol 1 (RFC 9578 §5): RFC vectors, flows and rejections.

#[path = "support/counting_rng.rs"]
mod counting_rng;
#[path = "support/counts.rs"]
mod counts;
#[path = "support/rfc9578.rs"]
mod rfc9578;

use counting_rng::CountingRng;
use privacy_tokens::voprf::privacy_pass::{
    token_key_id, BatchTokenRequest, BatchTokenResponse, Client, Issuer, Token, TokenChallenge,
    TokenRequest, TokenResponse, MAX_BATCH, TOKEN_LEN, TOKEN_REQUEST_LEN, TOKEN_RESPONSE_LEN,
    TOKEN_TYPE,
};
use privacy_tokens::voprf::VoprfServer;
use privacy_tokens::Error;

fn vectors() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/test-vectors/rfc9578-type1.json"
    );
    let text = std::fs::read_to_string(path).expect("read rfc9578-type1.json");
    serde_json::from_str(&text).expect("parse rfc9578-type1.json")
}

fn challenge_bytes() -> Vec<u8> {
    TokenChallenge::new(
        TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![0x5a; 32],
        b"origin.example".to_vec(),
    )
    .expect("valid challenge")
    .to_bytes()
}

/// A valid challenge with one byte too many (refused with `Error::InvalidLength`).
fn challenge_with_a_trailing_byte() -> Vec<u8> {
    let mut bad = challenge_bytes();
    bad.push(0);
    bad
}

fn issuer() -> Issuer {
    Issuer::new(VoprfServer::new(&mut rand::rng()))
}

#[test]
fn rfc9578_vectors() {
    let counts = rfc9578::run(&vectors()).expect("harness");
    println!(
        "rfc9578-type1.json: passed {} failed {} skipped {}",
        counts.passed, counts.failed, counts.skipped
    );
    assert!(counts.failures.is_empty(), "{:#?}", counts.failures);
    assert!(
        counts.passed >= 5 && counts.failed == 0,
        "passed {} failed {} skipped {}",
        counts.passed,
        counts.failed,
        counts.skipped
    );
}

#[test]
fn rfc9578_challenge_roundtrip() {
    for v in vectors().as_array().expect("array") {
        let bytes = hex::decode(v["token_challenge"].as_str().expect("hex")).expect("hex");
        let c = TokenChallenge::from_bytes(&bytes).expect("challenge decodes");
        assert_eq!(c.token_type(), TOKEN_TYPE);
        assert_eq!(c.to_bytes(), bytes);
    }
}

#[test]
fn harness_counts_a_corrupted_vector_as_failed() {
    let mut v = vectors();
    let first = &mut v.as_array_mut().expect("array")[0];
    let mut token = first["token"].as_str().expect("hex").to_string();
    let last = token.pop().expect("nonempty");
    token.push(if last == '0' { '1' } else { '0' });
    first["token"] = serde_json::Value::String(token);
    let counts = rfc9578::run(&v).expect("harness");
    assert_eq!(counts.failed, 1);
    assert_eq!(counts.passed, 4);
}

#[test]
fn single_flow() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let challenge = challenge_bytes();
    let (req, state) = Client::request(issuer.public_key(), &challenge, &mut rng).expect("request");
    let req_bytes = req.to_bytes();
    assert_eq!(req_bytes.len(), TOKEN_REQUEST_LEN);
    assert_eq!(req.truncated_token_key_id(), issuer.token_key_id()[31]);
    let req = TokenRequest::from_bytes(&req_bytes).expect("request decodes");
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    let resp = TokenResponse::from_bytes(&resp.to_bytes()).expect("response decodes");
    let token = state.finalize(&resp).expect("finalize");
    let token_bytes = token.to_bytes();
    assert_eq!(token_bytes.len(), TOKEN_LEN);
    assert_eq!(&token_bytes[..2], &[0, 1]);
    assert_eq!(token.token_key_id, token_key_id(issuer.public_key()));
    assert_eq!(
        token.challenge_digest,
        TokenChallenge::from_bytes(&challenge)
            .expect("decodes")
            .digest()
    );
    let token = Token::from_bytes(&token_bytes).expect("token decodes");
    assert!(issuer.verify_token(&token).expect("verify"));
    // An origin sharing the issuer key verifies the same way.
    let origin = Issuer::from_secret_key(issuer.server().secret_key().clone());
    assert!(origin.verify_token(&token).expect("verify"));
}

// The batched flow of every token type (type 1 included) runs in tests/privacy_pass_types.rs.

#[test]
fn serde_hex_roundtrip() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let (req, state) =
        Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
    let json = serde_json::to_string(&req).expect("ser");
    assert_eq!(json, format!("\"{}\"", hex::encode(req.to_bytes())));
    let back: TokenRequest = serde_json::from_str(&json).expect("de");
    assert_eq!(back, req);
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    let back: TokenResponse =
        serde_json::from_str(&serde_json::to_string(&resp).expect("ser")).expect("de");
    assert_eq!(back, resp);
    let token = state.finalize(&resp).expect("finalize");
    let back: Token =
        serde_json::from_str(&serde_json::to_string(&token).expect("ser")).expect("de");
    assert_eq!(back, token);
    let bad = format!("\"{}00\"", hex::encode(token.to_bytes()));
    assert!(serde_json::from_str::<Token>(&bad).is_err());
}

// ------------------------------------------------------------------------------------------
// Rejections

// Wrong lengths and trailing bytes of every wire type, for every token type: tests/privacy_pass_types.rs.

#[test]
fn wrong_token_type() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let (req, state) =
        Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    let token = state.finalize(&resp).expect("finalize");

    let mut r = req.to_bytes();
    r[1] = 0x02;
    assert_eq!(TokenRequest::from_bytes(&r), Err(Error::UnsupportedValue));
    let mut t = token.to_bytes();
    t[0] = 0x80;
    assert_eq!(Token::from_bytes(&t), Err(Error::UnsupportedValue));
    let (breq, _) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 2, &mut rng)
        .expect("request_batch");
    let mut b = breq.to_bytes();
    b[1] = 0x05;
    assert_eq!(
        BatchTokenRequest::from_bytes(&b),
        Err(Error::UnsupportedValue)
    );

    // A challenge for another token type (e.g. 0x0002, blind RSA) is refused by the client.
    let c = TokenChallenge::new(0x0002, b"issuer.example".to_vec(), vec![], vec![])
        .expect("valid challenge")
        .to_bytes();
    assert_eq!(
        Client::request(issuer.public_key(), &c, &mut rng).map(drop),
        Err(Error::UnsupportedValue)
    );
}

#[test]
fn bad_challenges() {
    let good = challenge_bytes();
    assert!(TokenChallenge::from_bytes(&good).is_ok());
    let mut trailing = good.clone();
    trailing.push(0);
    assert_eq!(
        TokenChallenge::from_bytes(&trailing),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        TokenChallenge::from_bytes(&good[..good.len() - 1]),
        Err(Error::InvalidLength)
    );
    // Empty issuer name.
    assert_eq!(
        TokenChallenge::from_bytes(&[0, 1, 0, 0, 0, 0, 0]),
        Err(Error::InvalidLength)
    );
    // Redemption context of 16 bytes.
    let mut c = vec![0, 1, 0, 1, b'i', 16];
    c.extend_from_slice(&[7; 16]);
    c.extend_from_slice(&[0, 0]);
    assert_eq!(TokenChallenge::from_bytes(&c), Err(Error::InvalidLength));
    assert_eq!(
        TokenChallenge::new(TOKEN_TYPE, vec![], vec![], vec![]),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        TokenChallenge::new(TOKEN_TYPE, b"i".to_vec(), vec![0; 31], vec![]),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        TokenChallenge::new(TOKEN_TYPE, b"i".to_vec(), vec![], vec![0; 65536]),
        Err(Error::InvalidLength)
    );
    // The client refuses a malformed challenge.
    let issuer = issuer();
    assert_eq!(
        Client::request(issuer.public_key(), &trailing, &mut rand::rng()).map(drop),
        Err(Error::InvalidLength)
    );
}

#[test]
fn bad_points_rejected() {
    let issuer = issuer();
    let (req, _) = Client::request(issuer.public_key(), &challenge_bytes(), &mut rand::rng())
        .expect("request");
    let mut r = req.to_bytes();
    r[3] = 0x04; // uncompressed tag at compressed length
    assert_eq!(TokenRequest::from_bytes(&r), Err(Error::InvalidPoint));
    let mut r = req.to_bytes();
    r[3..].fill(0); // all-zero: the identity must not decode
    assert!(TokenRequest::from_bytes(&r).is_err());
    let resp = [0xffu8; TOKEN_RESPONSE_LEN];
    assert!(TokenResponse::from_bytes(&resp).is_err());
}

#[test]
fn unknown_key_id() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let other = loop {
        // A second key with a different truncated id.
        let o = Issuer::new(VoprfServer::new(&mut rng));
        if o.truncated_token_key_id() != issuer.truncated_token_key_id() {
            break o;
        }
    };
    let (req, state) =
        Client::request(other.public_key(), &challenge_bytes(), &mut rng).expect("request");
    assert_eq!(issuer.issue(&mut rng, &req), Err(Error::UnsupportedValue));
    let (breq, _) = Client::request_batch(other.public_key(), &challenge_bytes(), 3, &mut rng)
        .expect("request_batch");
    assert_eq!(
        issuer.issue_batch(&mut rng, &breq),
        Err(Error::UnsupportedValue)
    );

    let token = state
        .finalize(&other.issue(&mut rng, &req).expect("issue"))
        .expect("finalize");
    assert!(other.verify_token(&token).expect("verify"));
    assert_eq!(issuer.verify_token(&token), Err(Error::UnsupportedValue));
}

#[test]
fn response_from_another_key_rejected() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let other = Issuer::new(VoprfServer::new(&mut rng));
    let (req, state) =
        Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
    // `other` does not check the key id here: build the request under its id.
    let forged = TokenRequest::new(other.truncated_token_key_id(), *req.blinded_msg());
    let resp = other.issue(&mut rng, &forged).expect("issue");
    assert_eq!(state.finalize(&resp).map(drop), Err(Error::InvalidProof));
}

#[test]
fn proof_bit_flip_rejected() {
    let mut rng = rand::rng();
    let issuer = issuer();
    for (byte, bit) in [
        (TOKEN_RESPONSE_LEN - 1, 0),
        (TOKEN_RESPONSE_LEN - 49, 1),
        (60, 3),
    ] {
        let (req, state) =
            Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
        let mut bytes = issuer.issue(&mut rng, &req).expect("issue").to_bytes();
        bytes[byte] ^= 1 << bit;
        match TokenResponse::from_bytes(&bytes) {
            Err(e) => assert_eq!(e, Error::NonCanonicalScalar),
            Ok(resp) => assert_eq!(state.finalize(&resp).map(drop), Err(Error::InvalidProof)),
        }
    }
    // Evaluated element flip: rejected by decoding or by the proof.
    let (req, state) =
        Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
    let mut bytes = issuer.issue(&mut rng, &req).expect("issue").to_bytes();
    bytes[10] ^= 0x10;
    if let Ok(resp) = TokenResponse::from_bytes(&bytes) {
        assert_eq!(state.finalize(&resp).map(drop), Err(Error::InvalidProof));
    }
}

#[test]
fn batch_rejections() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let (req, state) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 4, &mut rng)
        .expect("request_batch");
    let resp = issuer.issue_batch(&mut rng, &req).expect("issue_batch");

    // Proof bit flip.
    let mut b = resp.to_bytes();
    let last = b.len() - 1;
    b[last] ^= 1;
    let flipped = BatchTokenResponse::from_bytes(&b).expect("decodes");
    assert_eq!(
        state.finalize_batch(&flipped).map(drop),
        Err(Error::InvalidProof)
    );

    // Wrong number of elements.
    let (_, state) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 3, &mut rng)
        .expect("request_batch");
    assert_eq!(state.finalize_batch(&resp).map(drop), Err(Error::Batch));

    // Swapped elements break the proof.
    let (req, state) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 2, &mut rng)
        .expect("request_batch");
    let resp = issuer.issue_batch(&mut rng, &req).expect("issue_batch");
    let mut els = resp.evaluated_elements().to_vec();
    els.swap(0, 1);
    let swapped = BatchTokenResponse::new(els, *resp.proof());
    assert_eq!(
        state.finalize_batch(&swapped).map(drop),
        Err(Error::InvalidProof)
    );

    // Encoding: trailing bytes, truncation, non-minimal varint, non-multiple of Ne, empty.
    let rb = req.to_bytes();
    assert_eq!(
        &rb[3..5],
        &[0x40, 98],
        "two-byte varint for 2 elements (98 bytes)"
    );
    let mut t = rb.clone();
    t.push(0);
    assert_eq!(BatchTokenRequest::from_bytes(&t), Err(Error::InvalidLength));
    assert_eq!(
        BatchTokenRequest::from_bytes(&rb[..rb.len() - 1]),
        Err(Error::InvalidLength)
    );
    let mut nonmin = rb[..3].to_vec();
    nonmin.extend_from_slice(&[0x80, 0, 0, 98]);
    nonmin.extend_from_slice(&rb[5..]);
    assert_eq!(
        BatchTokenRequest::from_bytes(&nonmin),
        Err(Error::InvalidLength)
    );
    let mut minimal = rb[..3].to_vec();
    minimal.extend_from_slice(&[0x40, 98]);
    minimal.extend_from_slice(&rb[5..]);
    assert_eq!(BatchTokenRequest::from_bytes(&minimal).as_ref(), Ok(&req));
    let mut odd = rb[..3].to_vec();
    odd.extend_from_slice(&[0x40, 97]);
    odd.extend_from_slice(&rb[5..rb.len() - 1]);
    assert_eq!(
        BatchTokenRequest::from_bytes(&odd),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        BatchTokenRequest::from_bytes(&[0, 1, rb[2], 0]),
        Err(Error::Batch)
    );
    let sb = resp.to_bytes();
    let mut t = sb.clone();
    t.push(0);
    assert_eq!(
        BatchTokenResponse::from_bytes(&t),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        BatchTokenResponse::from_bytes(&sb[..sb.len() - 1]),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        Client::request_batch(issuer.public_key(), &challenge_bytes(), 0, &mut rng).map(drop),
        Err(Error::Batch)
    );
}

#[test]
fn flipped_token_rejected() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let (req, state) =
        Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
    let token = state
        .finalize(&issuer.issue(&mut rng, &req).expect("issue"))
        .expect("finalize");
    assert!(issuer.verify_token(&token).expect("verify"));
    let bytes = token.to_bytes();
    // Flip a bit in the nonce, the challenge digest and the authenticator.
    for i in [2, 40, 100, TOKEN_LEN - 1] {
        let mut b = bytes;
        b[i] ^= 0x01;
        let t = Token::from_bytes(&b).expect("decodes");
        assert!(!issuer.verify_token(&t).expect("verify"), "byte {i}");
    }
    // A flip in the token key id is an unknown key.
    let mut b = bytes;
    b[70] ^= 0x01;
    let t = Token::from_bytes(&b).expect("decodes");
    assert_eq!(issuer.verify_token(&t), Err(Error::UnsupportedValue));
}

// ------------------------------------------------------------------------------------------
// Review finding 2: the issuer's batch cap, checked before any element is decoded

/// A batched request of `n` copies of one valid blinded element for `issuer`'s key.
fn repeated_request(issuer: &Issuer, n: usize) -> Vec<u8> {
    let (req, _) = Client::request(issuer.public_key(), &challenge_bytes(), &mut rand::rng())
        .expect("request");
    let element = req.blinded_msg().to_bytes();
    let body = n * element.len();
    let mut bytes = vec![0, 1, issuer.truncated_token_key_id()];
    // QUIC varint, 4-byte form (the test sizes are 2^14 bytes or more).
    assert!((1 << 14..1 << 30).contains(&body));
    bytes.extend_from_slice(&(0x8000_0000 | body as u32).to_be_bytes());
    for _ in 0..n {
        bytes.extend_from_slice(&element[..]);
    }
    bytes
}

/// Allocations made by `f` on this thread, with its result.
fn allocs<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let mut out = None;
    let info = allocation_counter::measure(|| out = Some(f()));
    (info.count_total, out.expect("closure ran"))
}

#[test]
fn capped_issuer_refuses_65535_element_request_before_decoding() {
    let issuer = issuer().with_max_batch(100);
    assert_eq!(issuer.max_batch(), 100);
    let bytes = repeated_request(&issuer, 65535);
    assert_eq!(&bytes[3..7], &[0x80, 0x30, 0xff, 0xcf], "65535 * 49 bytes");
    assert_eq!(bytes.len(), 3 + 4 + 65535 * 49);

    // Decoding any element allocates the element vector first: zero allocations means that
    // nothing was decoded. Zero random bytes means that no evaluation started.
    let mut rng = CountingRng::new(7);
    let (a, got) = allocs(|| issuer.issue_batch_from_bytes(&mut rng, &bytes).map(drop));
    assert_eq!(got, Err(Error::Batch));
    assert_eq!(a, 0, "issue_batch_from_bytes decoded an over-cap request");
    assert_eq!(rng.drawn, 0);
    let (a, got) = allocs(|| BatchTokenRequest::from_bytes_with_limit(&bytes, 100).map(drop));
    assert_eq!(got, Err(Error::Batch));
    assert_eq!(a, 0, "from_bytes_with_limit decoded an over-cap request");

    // The count is checked before the elements: an over-cap request whose first element is
    // not a point is refused for its size, not for the point.
    let mut bad = bytes.clone();
    bad[7] = 0x07;
    assert_eq!(
        BatchTokenRequest::from_bytes_with_limit(&bad, 100),
        Err(Error::Batch)
    );
    assert_eq!(
        issuer.issue_batch_from_bytes(&mut rng, &bad).map(drop),
        Err(Error::Batch)
    );
    assert_eq!(rng.drawn, 0);
}

#[test]
fn batch_cap_bounds_every_issuer_entry_point() {
    let mut rng = CountingRng::new(7);
    let issuer = issuer();
    assert_eq!(
        issuer.max_batch(),
        privacy_tokens::voprf::privacy_pass::DEFAULT_MAX_BATCH
    );
    let issuer = issuer.with_max_batch(4);
    for (n, ok) in [(4, true), (5, false)] {
        let (req, state) =
            Client::request_batch(issuer.public_key(), &challenge_bytes(), n, &mut rng)
                .expect("request_batch");
        let bytes = req.to_bytes();
        let before = rng.drawn;
        let from_bytes = issuer.issue_batch_from_bytes(&mut rng, &bytes);
        let decoded = issuer.issue_batch(&mut rng, &req);
        if ok {
            let resp = from_bytes.expect("issue_batch_from_bytes");
            decoded.expect("issue_batch");
            let resp = state
                .response_from_bytes(&resp.to_bytes())
                .expect("decodes");
            let tokens = state.finalize_batch(&resp).expect("finalize_batch");
            assert!(tokens
                .iter()
                .all(|t| issuer.verify_token(t).expect("verify")));
        } else {
            assert_eq!(from_bytes.map(drop), Err(Error::Batch));
            // `issue_batch` on an already decoded request refuses it too, before evaluating.
            assert_eq!(decoded.map(drop), Err(Error::Batch));
            assert_eq!(rng.drawn, before, "an over-cap batch drew a proof nonce");
            assert_eq!(
                BatchTokenRequest::from_bytes_with_limit(&bytes, 4),
                Err(Error::Batch)
            );
            assert_eq!(BatchTokenRequest::from_bytes(&bytes).as_ref(), Ok(&req));
        }
    }
    // A cap of 0 refuses every batch.
    let none = issuer.clone().with_max_batch(0);
    let (req, _) = Client::request_batch(none.public_key(), &challenge_bytes(), 1, &mut rng)
        .expect("request_batch");
    assert_eq!(
        none.issue_batch(&mut rng, &req).map(drop),
        Err(Error::Batch)
    );
    assert_eq!(
        none.issue_batch_from_bytes(&mut rng, &req.to_bytes())
            .map(drop),
        Err(Error::Batch)
    );
}

#[test]
fn issue_batch_from_bytes_checks_type_length_and_key_before_decoding() {
    let mut rng = CountingRng::new(7);
    let issuer = issuer();
    let (req, _) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 3, &mut rng)
        .expect("request_batch");
    let good = req.to_bytes();
    let before = rng.drawn;
    // Every element replaced by bytes that are no point: the header checks still come first.
    let mut garbage = good.clone();
    garbage[5..].fill(0x07);
    let mut other_key = garbage.clone();
    other_key[2] ^= 1;
    assert_eq!(
        issuer
            .issue_batch_from_bytes(&mut rng, &other_key)
            .map(drop),
        Err(Error::UnsupportedValue)
    );
    let mut other_type = garbage.clone();
    other_type[1] = 2;
    assert_eq!(
        issuer
            .issue_batch_from_bytes(&mut rng, &other_type)
            .map(drop),
        Err(Error::UnsupportedValue)
    );
    let mut trailing = garbage.clone();
    trailing.push(0);
    assert_eq!(
        issuer.issue_batch_from_bytes(&mut rng, &trailing).map(drop),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        issuer
            .issue_batch_from_bytes(&mut rng, &garbage[..garbage.len() - 1])
            .map(drop),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        issuer.issue_batch_from_bytes(&mut rng, &garbage).map(drop),
        Err(Error::InvalidPoint)
    );
    assert_eq!(rng.drawn, before);
}

#[test]
fn client_decodes_only_the_response_size_it_asked_for() {
    let mut rng = rand::rng();
    let issuer = issuer();
    let (req4, _) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 4, &mut rng)
        .expect("request_batch");
    let resp4 = issuer
        .issue_batch(&mut rng, &req4)
        .expect("issue_batch")
        .to_bytes();
    let (req3, state3) =
        Client::request_batch(issuer.public_key(), &challenge_bytes(), 3, &mut rng)
            .expect("request_batch");
    let (a, got) = allocs(|| state3.response_from_bytes(&resp4).map(drop));
    assert_eq!(got, Err(Error::Batch), "4 elements for a request of 3");
    assert_eq!(a, 0, "the over-size response was decoded");
    let resp3 = issuer
        .issue_batch(&mut rng, &req3)
        .expect("issue_batch")
        .to_bytes();
    let (_, state2) = Client::request_batch(issuer.public_key(), &challenge_bytes(), 2, &mut rng)
        .expect("request_batch");
    assert_eq!(
        state2.response_from_bytes(&resp3).map(drop),
        Err(Error::Batch),
        "3 elements for a request of 2"
    );
    let resp = state3.response_from_bytes(&resp3).expect("decodes");
    assert_eq!(state3.finalize_batch(&resp).expect("finalize").len(), 3);
}

#[test]
fn request_checks_the_challenge_before_drawing_randomness() {
    let mut rng = CountingRng::new(7);
    let issuer = issuer();
    let bad = challenge_with_a_trailing_byte();
    assert_eq!(
        Client::request(issuer.public_key(), &bad, &mut rng).map(drop),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        Client::request_batch(issuer.public_key(), &bad, 3, &mut rng).map(drop),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        Client::request_batch(issuer.public_key(), &challenge_bytes(), 65536, &mut rng).map(drop),
        Err(Error::Batch)
    );
    assert_eq!(rng.drawn, 0);
}

// ------------------------------------------------------------------------------------------
// Review finding 15: tokens compare in constant time and are not `Hash`

/// Compiles only if `T` does not implement `Hash` (otherwise the call is ambiguous).
trait NotHash<A> {
    fn check() {}
}
impl<T: ?Sized> NotHash<()> for T {}
#[allow(dead_code)]
struct IsHash;
impl<T: ?Sized + std::hash::Hash> NotHash<IsHash> for T {}

#[test]
fn token_equality_is_constant_time_over_every_field() {
    use subtle::ConstantTimeEq;
    <Token as NotHash<_>>::check();

    let mut rng = rand::rng();
    let issuer = issuer();
    let (req, state) =
        Client::request(issuer.public_key(), &challenge_bytes(), &mut rng).expect("request");
    let token = state
        .finalize(&issuer.issue(&mut rng, &req).expect("issue"))
        .expect("finalize");
    let bytes = token.to_bytes();
    let same = Token::from_bytes(&bytes).expect("decodes");
    assert!(bool::from(token.ct_eq(&same)));
    assert_eq!(token, same);
    // One bit of any field (nonce, challenge digest, key id, authenticator) makes them differ.
    for i in [2, 33, 34, 65, 66, 97, 98, TOKEN_LEN - 1] {
        let mut b = bytes;
        b[i] ^= 0x80;
        let other = Token::from_bytes(&b).expect("decodes");
        assert!(!bool::from(token.ct_eq(&other)), "byte {i}");
        assert_ne!(token, other, "byte {i}");
    }
    // `Debug` shows the public fields and never the authenticator.
    let dbg = format!("{token:?}");
    assert!(dbg.contains(&hex::encode(token.nonce)), "{dbg}");
    assert!(!dbg.contains(&hex::encode(token.authenticator)), "{dbg}");
}

/// The batch size is checked before anything else, the challenge included: an empty or
/// oversized batch is `Error::Batch` whatever the challenge (every limit before work).
#[test]
fn batch_size_is_checked_before_the_challenge() {
    let mut rng = CountingRng::new(8);
    let issuer = issuer();
    let bad = challenge_with_a_trailing_byte();
    for n in [0, MAX_BATCH + 1] {
        assert_eq!(
            Client::request_batch(issuer.public_key(), &bad, n, &mut rng).map(drop),
            Err(Error::Batch),
            "n = {n}"
        );
    }
    assert_eq!(rng.drawn, 0);
    let nonces = vec![[7u8; 32]; MAX_BATCH + 1];
    let blinds: Vec<&[u8]> = vec![&[1u8; 48][..]; MAX_BATCH + 1];
    for n in [0, MAX_BATCH + 1] {
        assert_eq!(
            Client::request_batch_with(issuer.public_key(), &bad, &nonces[..n], &blinds[..n])
                .map(drop),
            Err(Error::Batch),
            "n = {n}"
        );
    }
    assert_eq!(
        Client::request_batch_with(issuer.public_key(), &bad, &nonces[..2], &blinds[..1]).map(drop),
        Err(Error::Batch)
    );
}
