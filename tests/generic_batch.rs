//! Generic token batch issuance (draft-ietf-privacypass-batched-tokens, "Generic Token Batch
//! Issuance"): pat-go's vector file replayed byte for byte (its 0x0001 and 0x0002 batches),
//! mixed 0x0001/0x0002/0x0005 round trips, absent responses, every malformed encoding refused with its error, and the request limit
//! refused before any work.
//!
//! The vector file `test-vectors/batched-tokens/pat-go-generic-batch.json` is
//! `tokens/batched/batched-issuance-test-vectors.json` of cloudflare/pat-go at
//! `a6755faf1d4453c53928f1d999539db7777ca175` (last changed in `593d167`, 2025-04-18, "Update
//! arbitrary batched tokens with the latest draft"), copied byte for byte (sha256 checked
//! below). Its vector 1 is the draft's Appendix "Generic Token Batch Issuance" test vector 1.
//! The vector runner (`tests/support/generic_batch.rs`, also behind the `replay` example)
//! replays it.

#[path = "support/runner.rs"]
mod runner;

use std::cell::Cell;
use std::path::Path;

use privacy_tokens::privacy_pass::generic_batch::{
    self, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericPublicKey, GenericToken,
    GenericTokenRequest, GenericTokenResponse,
};
use privacy_tokens::voprf::privacy_pass::generic::Issuer;
use privacy_tokens::voprf::privacy_pass::{TokenChallenge, TokenType, Type1, Type5};
use privacy_tokens::voprf::VoprfServer;
use privacy_tokens::Error;
use sha2::{Digest, Sha256};

const VECTORS: &str = "test-vectors/batched-tokens/pat-go-generic-batch.json";
const VECTORS_SHA256: &str = "67dde3ac074dc6a746a94205025be193cb907f72701228ae5e8d652ac6d58a7c";

fn challenge(t: u16, issuer: &str) -> Vec<u8> {
    TokenChallenge::new(t, issuer.as_bytes().to_vec(), vec![], vec![])
        .unwrap()
        .to_bytes()
}

/// Replays the pat-go file through the vector runner: all five batches (of 0x0001 and 0x0002
/// requests, one mixed) byte for byte, intermediate values included (requests from the
/// vector's nonces, blinds and salts; the response re-encoded; every token).
#[test]
fn pat_go_generic_batch_vectors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(VECTORS);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(hex::encode(Sha256::digest(&bytes)), VECTORS_SHA256);
    let (kind, c) = runner::replay_file(&path).unwrap();
    assert_eq!(kind, runner::Kind::GenericBatch);
    assert!(c.failures.is_empty(), "{:#?}", c.failures);
    assert_eq!((c.passed, c.failed, c.skipped), (5, 0, 0));
}

struct Keys {
    one_a: Issuer<Type1>,
    one_b: Issuer<Type1>,
    five: Issuer<Type5>,
}

fn keys() -> Keys {
    let mut rng = rand::rng();
    loop {
        let k = Keys {
            one_a: Issuer::new(VoprfServer::new(&mut rng)),
            one_b: Issuer::new(VoprfServer::new(&mut rng)),
            five: Issuer::new(VoprfServer::new(&mut rng)),
        };
        // Two type-1 keys that the truncated id tells apart.
        if k.one_a.truncated_token_key_id() != k.one_b.truncated_token_key_id() {
            return k;
        }
    }
}

fn lookup1<'a>(k: &'a Keys) -> impl Fn(u8) -> Option<&'a Issuer<Type1>> {
    move |id| {
        [&k.one_a, &k.one_b]
            .into_iter()
            .find(|i| i.truncated_token_key_id() == id)
    }
}

fn lookup5<'a>(k: &'a Keys) -> impl Fn(u8) -> Option<&'a Issuer<Type5>> {
    move |id| Some(&k.five).filter(|i| i.truncated_token_key_id() == id)
}

/// A mixed batch [0x0001 key A, 0x0005, 0x0001 key B, 0x0005, 0x0001 key A]: each request goes
/// to its own key, the wire round-trips, and every token verifies under its issuer only.
#[test]
fn mixed_batch_round_trip() {
    let mut rng = rand::rng();
    let k = keys();
    let (c1, c5) = (challenge(1, "a.example"), challenge(5, "b.example"));
    let items = [
        (GenericPublicKey::Type1(k.one_a.public_key()), &c1[..]),
        (GenericPublicKey::Type5(k.five.public_key()), &c5[..]),
        (GenericPublicKey::Type1(k.one_b.public_key()), &c1[..]),
        (GenericPublicKey::Type5(k.five.public_key()), &c5[..]),
        (GenericPublicKey::Type1(k.one_a.public_key()), &c1[..]),
    ];
    let (request, state) = generic_batch::request(&items, &mut rng).unwrap();
    assert_eq!(state.len(), 5);
    let bytes = request.to_bytes();
    // 3 * 52 + 2 * 35 = 226 bytes of requests behind a 2-byte varint (0x40e2).
    assert_eq!(bytes.len(), 2 + 226);
    assert_eq!(&bytes[..2], &[0x40, 0xe2]);
    let parsed = GenericBatchTokenRequest::from_bytes(&bytes).unwrap();
    assert_eq!(parsed, request);
    let types: Vec<u16> = parsed.requests().iter().map(|r| r.token_type()).collect();
    assert_eq!(types, [1, 5, 1, 5, 1]);
    assert_eq!(
        GenericBatchTokenRequest::token_types(&bytes, 5),
        Ok(types.clone())
    );

    let response =
        generic_batch::issue(&mut rng, &parsed, 5, lookup1(&k), lookup5(&k), |_| None).unwrap();
    assert_eq!((response.issued(), response.http_status()), (5, 200));
    let wire = response.to_bytes();
    // 3 * (1 + 2 + 145) + 2 * (1 + 2 + 96) = 642 bytes.
    assert_eq!(wire.len(), 2 + 642);
    let decoded = GenericBatchTokenResponse::from_bytes_with_limit(&wire, 5).unwrap();
    assert_eq!(decoded, response);
    let tokens = state.finalize(&decoded).unwrap();
    let issuers1 = [Some(&k.one_a), None, Some(&k.one_b), None, Some(&k.one_a)];
    for (j, t) in tokens.into_iter().enumerate() {
        let t = t.expect("issued");
        assert_eq!(t.token_type(), types[j]);
        assert_eq!(GenericToken::from_bytes(&t.to_bytes()), Ok(t.clone()));
        match t {
            GenericToken::Type1(t) => {
                let (own, other) = match issuers1[j] {
                    Some(i) if std::ptr::eq(i, &k.one_a) => (&k.one_a, &k.one_b),
                    _ => (&k.one_b, &k.one_a),
                };
                assert!(own.verify_token(&t).unwrap(), "token {j}");
                assert_eq!(other.verify_token(&t), Err(Error::UnsupportedValue));
            }
            GenericToken::Type5(t) => assert!(k.five.verify_token(&t).unwrap(), "token {j}"),
            GenericToken::BlindRsa(_) => panic!("no type 2 request in this batch"), // ok: test
        }
    }
}

/// Requests the issuer cannot or will not answer get absent entries: an unknown key id, a
/// token type it has no issuer for. Some absent: 206; all absent: 400; the wire keeps them and
/// the client gets `None` at their places and tokens elsewhere.
#[test]
fn absent_responses() {
    let mut rng = rand::rng();
    let k = keys();
    let (c1, c5) = (challenge(1, "a.example"), challenge(5, "b.example"));
    let items = [
        (GenericPublicKey::Type1(k.one_a.public_key()), &c1[..]),
        (GenericPublicKey::Type5(k.five.public_key()), &c5[..]),
        (GenericPublicKey::Type1(k.one_b.public_key()), &c1[..]),
    ];
    let (request, state) = generic_batch::request(&items, &mut rng).unwrap();
    // Only key A of type 1 is known; no type-5 issuer at all.
    let only_a = |id: u8| Some(&k.one_a).filter(|i| i.truncated_token_key_id() == id);
    let response = generic_batch::issue(&mut rng, &request, 3, only_a, |_| None, |_| None).unwrap();
    assert_eq!((response.issued(), response.http_status()), (1, 206));
    assert!(response.responses()[0].is_some());
    assert!(response.responses()[1].is_none() && response.responses()[2].is_none());
    let wire = response.to_bytes();
    assert_eq!(
        &wire[wire.len() - 2..],
        &[0, 0],
        "two absent entries at the end"
    );
    let decoded = GenericBatchTokenResponse::from_bytes(&wire).unwrap();
    assert_eq!(decoded, response);
    let tokens = state.finalize(&decoded).unwrap();
    let Some(GenericToken::Type1(t)) = tokens[0].clone() else {
        panic!("type")
    };
    assert!(k.one_a.verify_token(&t).unwrap());
    assert!(tokens[1].is_none() && tokens[2].is_none());

    // A lookup that returns the wrong issuer: `Issuer::issue` refuses the key id, absent.
    let wrong = |_| Some(&k.one_b);
    let none = generic_batch::issue(&mut rng, &request, 3, wrong, |_| None, |_| None).unwrap();
    assert_eq!(none.responses()[0], None);
    let all_absent =
        generic_batch::issue(&mut rng, &request, 3, |_| None, |_| None, |_| None).unwrap();
    assert_eq!((all_absent.issued(), all_absent.http_status()), (0, 400));
    assert_eq!(all_absent.to_bytes(), [3, 0, 0, 0]);
}

fn mixed_request_bytes() -> (Vec<u8>, Vec<u8>) {
    let mut rng = rand::rng();
    let k = keys();
    let (c1, c5) = (challenge(1, "a.example"), challenge(5, "b.example"));
    let items = [
        (GenericPublicKey::Type1(k.one_a.public_key()), &c1[..]),
        (GenericPublicKey::Type5(k.five.public_key()), &c5[..]),
    ];
    let (request, _) = generic_batch::request(&items, &mut rng).unwrap();
    let response =
        generic_batch::issue(&mut rng, &request, 2, lookup1(&k), lookup5(&k), |_| None).unwrap();
    assert_eq!(response.issued(), 2);
    (request.to_bytes(), response.to_bytes())
}

/// Rewrites the length prefix of a one-byte-prefixed vector to the 2-byte (non-minimal) form.
fn non_minimal(bytes: &[u8]) -> Vec<u8> {
    assert!(bytes[0] < 0x40);
    [&[0x40, bytes[0]][..], &bytes[1..]].concat()
}

/// Every malformed request encoding is refused with its error.
#[test]
fn malformed_requests_are_refused() {
    let (req, _) = mixed_request_bytes();
    // 52 + 35 = 87 bytes behind a 2-byte prefix 0x4057.
    assert_eq!(&req[..2], &[0x40, 0x57]);
    assert!(GenericBatchTokenRequest::from_bytes(&req).is_ok());
    let body = &req[2..];
    let with_prefix = |p: &[u8], b: &[u8]| [p, b].concat();
    let cases: Vec<(&str, Vec<u8>, Error)> = vec![
        ("empty input", vec![], Error::InvalidLength),
        ("truncated prefix", vec![0x40], Error::InvalidLength),
        ("no request", vec![0], Error::Batch),
        // 87 in four bytes instead of two.
        (
            "non-minimal prefix",
            with_prefix(&[0x80, 0, 0, 0x57], body),
            Error::InvalidLength,
        ),
        (
            "prefix too long",
            with_prefix(&[0x40, 0x58], body),
            Error::InvalidLength,
        ),
        (
            "prefix too short",
            with_prefix(&[0x40, 0x56], body),
            Error::InvalidLength,
        ),
        (
            "trailing byte",
            [&req[..], &[0]].concat(),
            Error::InvalidLength,
        ),
        // The last request cut by one byte, with a prefix that matches.
        (
            "truncated request",
            with_prefix(&[0x40, 0x56], &body[..86]),
            Error::InvalidLength,
        ),
        (
            "lone type byte",
            with_prefix(&[0x40, 0x58], &[body, &[0]].concat()),
            Error::InvalidLength,
        ),
        (
            "unsupported type 0xDA7A",
            {
                let mut b = req.clone();
                b[2..4].copy_from_slice(&[0xda, 0x7a]);
                b
            },
            Error::UnsupportedValue,
        ),
        (
            "unknown type 0x0101",
            {
                let mut b = req.clone();
                b[2] = 1;
                b
            },
            Error::UnsupportedValue,
        ),
        // The 0x0001 element's SEC1 tag 0x02/0x03 replaced by 0x05.
        (
            "bad P-384 point",
            {
                let mut b = req.clone();
                b[5] = 5;
                b
            },
            Error::InvalidPoint,
        ),
        // The 0x0005 element set to all 0xff (not a canonical ristretto255 encoding).
        (
            "bad ristretto255 point",
            {
                let mut b = req.clone();
                let n = b.len();
                b[n - 32..].fill(0xff);
                b
            },
            Error::InvalidPoint,
        ),
    ];
    for (name, bytes, want) in cases {
        assert_eq!(
            GenericBatchTokenRequest::from_bytes(&bytes),
            Err(want),
            "{name}"
        );
    }
}

/// Every malformed response encoding is refused with its error; and a well-formed response
/// that does not answer the request is refused by `finalize`.
#[test]
fn malformed_responses_are_refused() {
    let (_, resp) = mixed_request_bytes();
    // (1 + 2 + 145) + (1 + 2 + 96) = 247 bytes behind 0x40f7.
    assert_eq!(&resp[..2], &[0x40, 0xf7]);
    assert!(GenericBatchTokenResponse::from_bytes(&resp).is_ok());
    let body = &resp[2..];
    let with_prefix = |p: &[u8], b: &[u8]| [p, b].concat();
    let set = |i: usize, x: u8| {
        let mut b = resp.clone();
        b[i] = x;
        b
    };
    let cases: Vec<(&str, Vec<u8>, Error)> = vec![
        ("empty input", vec![], Error::InvalidLength),
        (
            "non-minimal prefix",
            non_minimal(&[1, 0]),
            Error::InvalidLength,
        ),
        (
            "non-minimal 4-byte prefix",
            with_prefix(&[0x80, 0, 0, 0xf7], body),
            Error::InvalidLength,
        ),
        (
            "prefix too long",
            with_prefix(&[0x40, 0xf8], body),
            Error::InvalidLength,
        ),
        (
            "trailing byte",
            [&resp[..], &[0]].concat(),
            Error::InvalidLength,
        ),
        ("presence byte 2", set(2, 2), Error::InvalidLength),
        (
            "presence byte 0xff",
            with_prefix(&[1], &[0xff]),
            Error::InvalidLength,
        ),
        (
            "present without a type",
            with_prefix(&[2], &[1, 0]),
            Error::InvalidLength,
        ),
        (
            "unsupported type 0xDA7A",
            {
                let mut b = resp.clone();
                b[3..5].copy_from_slice(&[0xda, 0x7a]);
                b
            },
            Error::UnsupportedValue,
        ),
        (
            "truncated entry",
            with_prefix(&[0x40, 0xf6], &body[..246]),
            Error::InvalidLength,
        ),
        // The 0x0001 evaluated element's SEC1 tag replaced by 0x05.
        ("bad point", set(5, 5), Error::InvalidPoint),
        // The 0x0005 proof's last scalar set to all 0xff (>= the group order).
        (
            "non-canonical scalar",
            {
                let mut b = resp.clone();
                let n = b.len();
                b[n - 32..].fill(0xff);
                b
            },
            Error::NonCanonicalScalar,
        ),
    ];
    for (name, bytes, want) in cases {
        assert_eq!(
            GenericBatchTokenResponse::from_bytes(&bytes),
            Err(want),
            "{name}"
        );
    }
    assert_eq!(
        GenericBatchTokenResponse::from_bytes(&[0])
            .unwrap()
            .issued(),
        0
    );

    // finalize: another count, another type in an entry, a proof that does not verify.
    let mut rng = rand::rng();
    let k = keys();
    let (c1, c5) = (challenge(1, "a.example"), challenge(5, "b.example"));
    let items = [
        (GenericPublicKey::Type1(k.one_a.public_key()), &c1[..]),
        (GenericPublicKey::Type5(k.five.public_key()), &c5[..]),
    ];
    let fresh = || generic_batch::request(&items, &mut rand::rng()).unwrap();
    let (request, state) = fresh();
    let good =
        generic_batch::issue(&mut rng, &request, 2, lookup1(&k), lookup5(&k), |_| None).unwrap();
    let short = GenericBatchTokenResponse::new(good.responses()[..1].to_vec());
    assert_eq!(state.finalize(&short).unwrap_err(), Error::Batch);
    let (_, state) = fresh();
    let swapped = GenericBatchTokenResponse::new(vec![
        good.responses()[1].clone(),
        good.responses()[0].clone(),
    ]);
    assert_eq!(
        state.finalize(&swapped).unwrap_err(),
        Error::UnsupportedValue
    );
    // A response to another request: its proofs verify against other blinded elements.
    let (_, state) = fresh();
    assert_eq!(state.finalize(&good).unwrap_err(), Error::InvalidProof);
    let (request2, state) = fresh();
    let good2 =
        generic_batch::issue(&mut rng, &request2, 2, lookup1(&k), lookup5(&k), |_| None).unwrap();
    assert_eq!(state.finalize(&good2).unwrap().len(), 2);
}

/// The limit is checked while framing, before any element is decoded: a batch over the limit
/// whose elements are all invalid points answers `Batch`, not `InvalidPoint`; an unknown type
/// late in the batch is found before the bad element early in it; `issue` refuses an
/// oversized batch before it looks up a single key.
#[test]
fn limit_refused_before_work() {
    let mut rng = rand::rng();
    let k = keys();
    let c5 = challenge(5, "b.example");
    let items = vec![(GenericPublicKey::Type5(k.five.public_key()), &c5[..]); 4];
    let (request, _) = generic_batch::request(&items, &mut rng).unwrap();
    let bytes = request.to_bytes();
    // 140 bytes behind a 2-byte prefix.
    assert_eq!(bytes.len(), 2 + 4 * 35);
    // Every element invalid (all 0xff).
    let mut bad = bytes.clone();
    for j in 0..4 {
        bad[2 + 35 * j + 3..2 + 35 * (j + 1)].fill(0xff);
    }
    assert_eq!(
        GenericBatchTokenRequest::from_bytes(&bad),
        Err(Error::InvalidPoint)
    );
    assert_eq!(
        GenericBatchTokenRequest::from_bytes_with_limit(&bad, 3),
        Err(Error::Batch)
    );
    assert_eq!(
        GenericBatchTokenRequest::from_bytes_with_limit(&bytes, 3),
        Err(Error::Batch)
    );
    assert_eq!(
        GenericBatchTokenRequest::from_bytes_with_limit(&bytes, 4)
            .unwrap()
            .len(),
        4
    );
    // The last request's type made unknown: found by the framing, before the first element.
    let mut late = bad.clone();
    late[2 + 35 * 3 + 1] = 9;
    assert_eq!(
        GenericBatchTokenRequest::from_bytes(&late),
        Err(Error::UnsupportedValue)
    );

    // The default limit is 256.
    let many = vec![(GenericPublicKey::Type5(k.five.public_key()), &c5[..]); 257];
    let (big, _) = generic_batch::request(&many, &mut rng).unwrap();
    assert_eq!(
        GenericBatchTokenRequest::from_bytes(&big.to_bytes()),
        Err(Error::Batch)
    );
    assert_eq!(
        GenericBatchTokenRequest::from_bytes_with_limit(&big.to_bytes(), 257)
            .unwrap()
            .len(),
        257
    );

    // issue: over `max`, no lookup runs (and so no evaluation).
    let calls = Cell::new(0);
    let counting = |id: u8| {
        calls.set(calls.get() + 1);
        Some(&k.five).filter(|i| i.truncated_token_key_id() == id)
    };
    assert_eq!(
        generic_batch::issue(&mut rng, &request, 3, |_| None, counting, |_| None).unwrap_err(),
        Error::Batch
    );
    assert_eq!(calls.get(), 0);
    let ok = generic_batch::issue(&mut rng, &request, 4, |_| None, counting, |_| None).unwrap();
    assert_eq!((ok.issued(), calls.get()), (4, 4));

    // The response decoder's limit.
    let wire = ok.to_bytes();
    assert_eq!(
        GenericBatchTokenResponse::from_bytes_with_limit(&wire, 3),
        Err(Error::Batch)
    );
    assert_eq!(
        GenericBatchTokenResponse::from_bytes_with_limit(&wire, 4)
            .unwrap()
            .issued(),
        4
    );
    // And the client's own limit.
    assert_eq!(
        generic_batch::request(&[], &mut rng).unwrap_err(),
        Error::Batch
    );
}

#[test]
fn generic_entries_expose_their_parts() {
    let mut rng = rand::rng();
    let k = keys();
    let c1 = challenge(1, "a.example");
    let (request, _) = generic_batch::request(
        &[(GenericPublicKey::Type1(k.one_b.public_key()), &c1[..])],
        &mut rng,
    )
    .unwrap();
    let r = &request.requests()[0];
    assert_eq!(r.truncated_token_key_id(), k.one_b.truncated_token_key_id());
    assert!(matches!(r, GenericTokenRequest::Type1(_)));
    assert_eq!(r.to_bytes().len(), Type1::TOKEN_REQUEST_LEN);
    let resp =
        generic_batch::issue(&mut rng, &request, 1, lookup1(&k), lookup5(&k), |_| None).unwrap();
    assert!(matches!(
        resp.responses()[0],
        Some(GenericTokenResponse::Type1(_))
    ));
    assert_eq!(resp.responses()[0].as_ref().unwrap().token_type(), 1);
    assert_eq!(
        GenericToken::from_bytes(&[0xda, 0x7a, 0]),
        Err(Error::UnsupportedValue)
    );
    assert_eq!(
        GenericToken::from_bytes(&[0, 2, 0]),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        GenericToken::from_bytes(&[0, 1, 0]),
        Err(Error::InvalidLength)
    );
    assert_eq!(
        generic_batch::REQUEST_MEDIA_TYPE,
        "application/private-token-generic-batch-request"
    );
    assert_eq!(
        generic_batch::RESPONSE_MEDIA_TYPE,
        "application/private-token-generic-batch-response"
    );
}

/// Type 0x0002 (blind RSA) in a generic batch: a mixed 0x0001/0x0002/0x0005 batch round trip
/// through the wire (each token accepted by its key; the RSA token by the public key alone),
/// an RSA request under an unknown key id answered absent (206), an RSA response where a VOPRF
/// one belongs refused, and a forged RSA signature failing the whole finalization (nothing
/// returned). The control: the untouched response finalizes.
#[test]
fn blind_rsa_in_a_generic_batch() {
    use privacy_tokens::blind_rsa::privacy_pass as rsa;
    let mut rng = rand::rng();
    let k = keys();
    let two = rsa::Issuer::new(privacy_tokens::blind_rsa::test_key().unwrap()).unwrap();
    let (c1, c2, c5) = (
        challenge(1, "a.example"),
        challenge(rsa::TOKEN_TYPE_BLIND_RSA, "a.example"),
        challenge(5, "a.example"),
    );
    let items = [
        (GenericPublicKey::BlindRsa(two.token_key()), &c2[..]),
        (GenericPublicKey::Type1(k.one_a.public_key()), &c1[..]),
        (GenericPublicKey::Type5(k.five.public_key()), &c5[..]),
        (GenericPublicKey::BlindRsa(two.token_key()), &c2[..]),
    ];
    let (request, state) = generic_batch::request(&items, &mut rng).unwrap();
    let wire = request.to_bytes();
    // 2 * 259 (0x0002) + 52 (0x0001) + 35 (0x0005) bytes behind a two-byte prefix.
    assert_eq!(wire.len(), 2 + 2 * rsa::TOKEN_REQUEST_LEN + 52 + 35);
    assert_eq!(
        GenericBatchTokenRequest::token_types(&wire, 4).unwrap(),
        [2, 1, 5, 2]
    );
    let parsed = GenericBatchTokenRequest::from_bytes(&wire).unwrap();
    assert_eq!(parsed, request);
    let by_id = |id: u8| (id == two.token_key().truncated_id()).then_some(&two);
    let response = generic_batch::issue(
        &mut rng,
        &parsed,
        4,
        |id| (id == k.one_a.truncated_token_key_id()).then_some(&k.one_a),
        |_| Some(&k.five),
        by_id,
    )
    .unwrap();
    assert_eq!((response.issued(), response.http_status()), (4, 200));
    let wire = response.to_bytes();
    let decoded = GenericBatchTokenResponse::from_bytes_with_limit(&wire, 4).unwrap();
    assert_eq!(decoded, response);

    // A forged signature: the whole finalization fails.
    let (request3, state3) = generic_batch::request(&items, &mut rng).unwrap();
    let response3 = generic_batch::issue(
        &mut rng,
        &request3,
        4,
        |_| Some(&k.one_a),
        |_| Some(&k.five),
        by_id,
    )
    .unwrap();
    let mut bad = response3.to_bytes();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let bad = GenericBatchTokenResponse::from_bytes(&bad).unwrap();
    assert_eq!(state3.finalize(&bad).unwrap_err(), Error::InvalidSignature);

    // The control: the untouched response.
    let tokens = state.finalize(&decoded).unwrap();
    assert_eq!(tokens.len(), 4);
    for (j, t) in tokens.into_iter().enumerate() {
        let t = t.expect("issued"); // ok: test
        assert_eq!(GenericToken::from_bytes(&t.to_bytes()), Ok(t.clone()));
        match t {
            GenericToken::BlindRsa(t) => {
                assert_eq!(t.token_type(), rsa::TOKEN_TYPE_BLIND_RSA);
                two.token_key().verify(&t, None).unwrap();
            }
            GenericToken::Type1(t) => assert!(k.one_a.verify_token(&t).unwrap(), "{j}"),
            GenericToken::Type5(t) => assert!(k.five.verify_token(&t).unwrap(), "{j}"),
        }
    }

    // An unknown RSA key id: that entry absent, the others issued (206).
    let (request, _) = generic_batch::request(&items, &mut rng).unwrap();
    let partial = generic_batch::issue(
        &mut rng,
        &request,
        4,
        |_| Some(&k.one_a),
        |_| Some(&k.five),
        |_| None,
    )
    .unwrap();
    assert_eq!((partial.issued(), partial.http_status()), (2, 206));
    assert!(partial.responses()[0].is_none() && partial.responses()[3].is_none());

    // An RSA response where the 0x0001 response belongs: refused.
    let (request, state) = generic_batch::request(&items[..2], &mut rng).unwrap();
    let good =
        generic_batch::issue(&mut rng, &request, 2, |_| Some(&k.one_a), |_| None, by_id).unwrap();
    let swapped = GenericBatchTokenResponse::new(vec![
        good.responses()[0].clone(),
        good.responses()[0].clone(),
    ]);
    assert_eq!(
        state.finalize(&swapped).unwrap_err(),
        Error::UnsupportedValue
    );
}
