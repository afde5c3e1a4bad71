//! Privacy Pass through the generic types: pat-go's vectors (type 0x0005 one token per request,
//! amortized batches of types 0x0001 and 0x0005), both key spellings, and for each token type the
//! flows, rejections and serde of `tests/privacy_pass.rs`.

#[path = "support/runner.rs"]
mod runner;

use std::path::Path;

use privacy_tokens::voprf::privacy_pass::generic::{
    BatchTokenRequest, BatchTokenResponse, Client, ClientState, Issuer, Token, TokenRequest,
    TokenResponse,
};
use privacy_tokens::voprf::privacy_pass::{
    token_key_id, TokenChallenge, TokenType, Type1, Type5, TOKEN_INPUT_LEN,
};
use privacy_tokens::voprf::VoprfServer;
use privacy_tokens::Error;
use serde_json::Value;

fn vector_path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test-vectors/batched-tokens")
        .join(name)
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(vector_path(name)).expect("read vector file");
    serde_json::from_str(&text).expect("parse vector file")
}

/// Replays a file through the runner (recognised by content) and asserts 0 failed.
fn replay(name: &str, kind: runner::Kind) -> runner::Counts {
    let (k, c) = runner::replay_file(&vector_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(k, kind, "{name} recognised as {k:?}");
    assert!(
        c.failures.is_empty() && c.failed == 0,
        "{name}: {:#?}",
        c.failures
    );
    c
}

#[test]
fn pat_go_amortized_type1() {
    let c = replay("pat-go-amortized-type1.json", runner::Kind::Amortized);
    assert_eq!(c.passed, 5, "{c:?}");
}

#[test]
fn pat_go_private_type5() {
    let c = replay("pat-go-private-type5.json", runner::Kind::Rfc9578);
    assert_eq!(c.passed, 5, "{c:?}");
}

#[test]
fn pat_go_amortized_type5() {
    let c = replay("pat-go-amortized-type5.json", runner::Kind::Amortized);
    assert_eq!(c.passed, 5, "{c:?}");
}

/// Every key of every vector object renamed to its snake_case spelling (`skS` -> `sk_s`).
fn snake_cased(json: &Value) -> Value {
    let vectors = json.as_array().expect("array");
    Value::Array(
        vectors
            .iter()
            .map(|v| {
                let obj = v.as_object().expect("object");
                Value::Object(
                    obj.iter()
                        .map(|(k, x)| (runner::rfc9578::snake_case(k), x.clone()))
                        .collect(),
                )
            })
            .collect(),
    )
}

fn run(json: &Value) -> runner::Counts {
    match runner::recognise(json).expect("recognised") {
        runner::Kind::Rfc9578 => runner::rfc9578::run(json),
        runner::Kind::Amortized => runner::patgo::run(json),
        k => panic!("recognised as {k:?}"),
    }
    .expect("harness")
}

/// The snake_case spelling other implementations publish (`sk_s`, `pk_s`) is recognised as the
/// same layout and replays to the same counts; a vector with both spellings fails.
fn snake_case_replays_the_same(json: Value) {
    let snake = snake_cased(&json);
    assert_ne!(snake, json, "some key was renamed");
    assert!(snake[0].get("sk_s").is_some() && snake[0].get("skS").is_none());
    assert_eq!(runner::recognise(&snake), runner::recognise(&json));
    let (a, b) = (run(&json), run(&snake));
    assert!(b.failures.is_empty(), "{:#?}", b.failures);
    assert_eq!((a.passed, a.failed), (b.passed, b.failed));
    assert!(b.passed >= 5);

    let mut both = snake.clone();
    let first = both[0].as_object_mut().expect("object");
    let sk = first["sk_s"].clone();
    first.insert("skS".into(), sk);
    let c = run(&both);
    assert_eq!((c.passed, c.failed), (b.passed - 1, 1), "{:#?}", c.failures);
    assert!(
        c.failures[0].contains("both skS and sk_s"),
        "{:#?}",
        c.failures
    );
}

#[test]
fn snake_case_keys_amortized_type1() {
    snake_case_replays_the_same(load("pat-go-amortized-type1.json"));
}

#[test]
fn snake_case_keys_rfc9578_type1() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors/rfc9578-type1.json"),
    )
    .expect("read");
    snake_case_replays_the_same(serde_json::from_str(&text).expect("parse"));
}

#[test]
fn snake_case_keys_private_type5() {
    snake_case_replays_the_same(load("pat-go-private-type5.json"));
}

#[test]
fn snake_case_keys_amortized_type5() {
    snake_case_replays_the_same(load("pat-go-amortized-type5.json"));
}

/// A vector that lost its key under both spellings is not claimed by any runner.
#[test]
fn missing_key_is_not_recognised() {
    let mut json = load("pat-go-amortized-type1.json");
    for v in json.as_array_mut().expect("array") {
        v.as_object_mut().expect("object").remove("skS");
    }
    assert_eq!(runner::recognise(&json), None);
}

/// One wrong byte anywhere the harness checks fails that vector and only that one.
#[test]
fn harness_counts_corrupted_amortized_vectors_as_failed() {
    for (field, index) in [
        ("tokens", Some(1)),
        ("nonces", Some(2)),
        ("blinds", Some(0)),
        ("token_request", None),
        ("token_response", None),
    ] {
        let mut json = load("pat-go-amortized-type1.json");
        let first = &mut json.as_array_mut().expect("array")[0];
        let slot = match index {
            Some(i) => &mut first[field][i],
            None => &mut first[field],
        };
        let mut s = slot.as_str().expect("hex").to_string();
        // Flip the low bit of the last-but-one hex digit (inside every field's last byte).
        let at = s.len() - 2;
        let d = u8::from_str_radix(&s[at..at + 1], 16).expect("hex digit") ^ 1;
        s.replace_range(at..at + 1, &format!("{d:x}"));
        *slot = Value::String(s);
        let c = runner::patgo::run(&json).expect("harness");
        assert_eq!((c.passed, c.failed), (4, 1), "{field}: {:#?}", c.failures);
    }
}

// ------------------------------------------------------------------------------------------
// Flows and rejections, for each token type

fn challenge_for<T: TokenType>() -> Vec<u8> {
    TokenChallenge::new(
        T::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![0x5a; 32],
        b"origin.example".to_vec(),
    )
    .expect("valid challenge")
    .to_bytes()
}

fn issuer_for<T: TokenType>() -> Issuer<T> {
    Issuer::new(VoprfServer::new(&mut rand::rng()))
}

/// A fresh issuer, a challenge for type `T`, and one token request for it with its state.
fn requested<T: TokenType>(
    rng: &mut rand::rngs::ThreadRng,
) -> (Issuer<T>, Vec<u8>, TokenRequest<T>, ClientState<T>) {
    let issuer = issuer_for::<T>();
    let challenge = challenge_for::<T>();
    let (req, state) = Client::<T>::request(issuer.public_key(), &challenge, rng).expect("request");
    (issuer, challenge, req, state)
}

fn single_flow<T: TokenType>() {
    let mut rng = rand::rng();
    let (issuer, challenge, req, state) = requested::<T>(&mut rng);
    let req_bytes = req.to_bytes();
    assert_eq!(req_bytes.as_ref().len(), T::TOKEN_REQUEST_LEN);
    assert_eq!(req_bytes.as_ref().len(), 3 + T::NE);
    assert_eq!(&req_bytes.as_ref()[..2], &T::TOKEN_TYPE.to_be_bytes());
    assert_eq!(req.truncated_token_key_id(), issuer.token_key_id()[31]);
    let req = TokenRequest::<T>::from_bytes(req_bytes.as_ref()).expect("request decodes");
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    assert_eq!(resp.to_bytes().as_ref().len(), T::NE + 2 * T::NS);
    let resp = TokenResponse::<T>::from_bytes(resp.to_bytes().as_ref()).expect("decodes");
    let token = state.finalize(&resp).expect("finalize");
    let token_bytes = token.to_bytes();
    assert_eq!(token_bytes.as_ref().len(), T::TOKEN_LEN);
    assert_eq!(token_bytes.as_ref().len(), TOKEN_INPUT_LEN + T::NK);
    assert_eq!(&token_bytes.as_ref()[..2], &T::TOKEN_TYPE.to_be_bytes());
    assert_eq!(token.token_key_id, token_key_id(issuer.public_key()));
    let digest = TokenChallenge::from_bytes(&challenge)
        .expect("decodes")
        .digest();
    assert_eq!(token.challenge_digest, digest);
    let token = Token::<T>::from_bytes(token_bytes.as_ref()).expect("token decodes");
    assert!(issuer.verify_token(&token).expect("verify"));
    // The authenticator is the issuer's Evaluate over the token input.
    let out = issuer
        .server()
        .evaluate(&token.token_input())
        .expect("evaluate");
    assert_eq!(&out[..], token.authenticator.as_ref());
    let origin = Issuer::<T>::from_secret_key(issuer.server().secret_key().clone());
    assert!(origin.verify_token(&token).expect("verify"));
    // Another key's issuer rejects the token's key id.
    assert_eq!(
        issuer_for::<T>().verify_token(&token),
        Err(Error::UnsupportedValue)
    );
}

fn batch_flow<T: TokenType>(n: usize) {
    let mut rng = rand::rng();
    let issuer = issuer_for::<T>();
    let (req, state) =
        Client::<T>::request_batch(issuer.public_key(), &challenge_for::<T>(), n, &mut rng)
            .expect("request_batch");
    assert_eq!(state.len(), n);
    let bytes = req.to_bytes();
    let varint = if n * T::NE < 64 { 1 } else { 2 };
    assert_eq!(bytes.len(), 3 + varint + T::NE * n);
    let req = BatchTokenRequest::<T>::from_bytes(&bytes).expect("decodes");
    assert_eq!(req.blinded_elements().len(), n);
    let resp = issuer
        .issue_batch_from_bytes(&mut rng, &bytes)
        .expect("issue");
    let resp_bytes = resp.to_bytes();
    assert_eq!(resp_bytes.len(), varint + T::NE * n + 2 * T::NS);
    // The typed entry point evaluates the same elements (its proof has another nonce).
    let typed = issuer
        .issue_batch(&mut rng, &req)
        .expect("issue_batch")
        .to_bytes();
    assert_eq!(typed.len(), resp_bytes.len());
    assert_eq!(
        typed[..varint + T::NE * n],
        resp_bytes[..varint + T::NE * n]
    );
    let resp = state.response_from_bytes(&resp_bytes).expect("decodes");
    assert_eq!(
        BatchTokenResponse::<T>::from_bytes(&resp_bytes).expect("decodes"),
        resp
    );
    let tokens = state.finalize_batch(&resp).expect("finalize_batch");
    assert_eq!(tokens.len(), n);
    for t in &tokens {
        assert!(issuer.verify_token(t).expect("verify"));
    }
    let mut nonces: Vec<_> = tokens.iter().map(|t| t.nonce).collect();
    nonces.sort();
    nonces.dedup();
    assert_eq!(nonces.len(), n, "nonces must be distinct");
}

/// Every wire type: exact length decodes; one byte more, one less, or none is `InvalidLength`.
fn wrong_lengths_and_trailing_bytes<T: TokenType>() {
    let mut rng = rand::rng();
    let (issuer, challenge, req, state) = requested::<T>(&mut rng);
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    let token = state.finalize(&resp).expect("finalize");
    let (breq, bstate) =
        Client::<T>::request_batch(issuer.public_key(), &challenge, 3, &mut rng).expect("batch");
    let bresp = issuer.issue_batch(&mut rng, &breq).expect("issue_batch");

    let r = req.to_bytes().as_ref().to_vec();
    let s = resp.to_bytes().as_ref().to_vec();
    let t = token.to_bytes().as_ref().to_vec();
    let br = breq.to_bytes();
    let bs = bresp.to_bytes();
    type Dec = fn(&[u8]) -> Result<(), Error>;
    let cases: [(&Vec<u8>, &str, Dec); 5] = [
        (&r, "request", |b| {
            TokenRequest::<T>::from_bytes(b).map(drop)
        }),
        (&s, "response", |b| {
            TokenResponse::<T>::from_bytes(b).map(drop)
        }),
        (&t, "token", |b| Token::<T>::from_bytes(b).map(drop)),
        (&br, "batch request", |b| {
            BatchTokenRequest::<T>::from_bytes(b).map(drop)
        }),
        (&bs, "batch response", |b| {
            BatchTokenResponse::<T>::from_bytes(b).map(drop)
        }),
    ];
    for (bytes, name, dec) in cases {
        let mut longer = bytes.clone();
        longer.push(0);
        let shorter = &bytes[..bytes.len() - 1];
        assert_eq!(
            dec(&longer),
            Err(Error::InvalidLength),
            "{name} trailing byte"
        );
        assert_eq!(dec(shorter), Err(Error::InvalidLength), "{name} truncated");
        assert_eq!(dec(&[]), Err(Error::InvalidLength), "{name} empty");
        assert_eq!(dec(bytes), Ok(()), "{name} exact");
    }
    // The client takes exactly the batch size it asked for.
    assert_eq!(
        bstate.response_from_bytes(&bs[..bs.len() - 1]).map(drop),
        Err(Error::InvalidLength)
    );
    let (_, two) =
        Client::<T>::request_batch(issuer.public_key(), &challenge, 2, &mut rng).expect("batch");
    assert_eq!(two.response_from_bytes(&bs).map(drop), Err(Error::Batch));
    // A batch body that is not a whole number of elements.
    let mut odd = br[..3].to_vec();
    odd.push((T::NE + 1) as u8);
    odd.resize(odd.len() + T::NE + 1, 0);
    assert_eq!(
        BatchTokenRequest::<T>::from_bytes(&odd),
        Err(Error::InvalidLength)
    );
}

/// Messages of another token type value are refused before anything else is decoded, and a
/// challenge for another type is refused by the client.
fn wrong_token_type<T: TokenType>() {
    let mut rng = rand::rng();
    let (issuer, challenge, req, state) = requested::<T>(&mut rng);
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    let token = state.finalize(&resp).expect("finalize");
    let (breq, _) =
        Client::<T>::request_batch(issuer.public_key(), &challenge, 2, &mut rng).expect("batch");
    for other in [0x0000u16, 0x0001, 0x0002, 0x0005, 0xE5AC, 0x0100, 0x0500] {
        if other == T::TOKEN_TYPE {
            continue;
        }
        let mut r = req.to_bytes();
        r.as_mut()[..2].copy_from_slice(&other.to_be_bytes());
        assert_eq!(
            TokenRequest::<T>::from_bytes(r.as_ref()),
            Err(Error::UnsupportedValue)
        );
        let mut t = token.to_bytes();
        t.as_mut()[..2].copy_from_slice(&other.to_be_bytes());
        assert_eq!(
            Token::<T>::from_bytes(t.as_ref()),
            Err(Error::UnsupportedValue)
        );
        let mut b = breq.to_bytes();
        b[..2].copy_from_slice(&other.to_be_bytes());
        assert_eq!(
            BatchTokenRequest::<T>::from_bytes(&b),
            Err(Error::UnsupportedValue)
        );
        assert_eq!(
            issuer.issue_batch_from_bytes(&mut rng, &b).map(drop),
            Err(Error::UnsupportedValue)
        );
        let c = TokenChallenge::new(other, b"issuer.example".to_vec(), vec![], vec![])
            .expect("valid challenge")
            .to_bytes();
        assert_eq!(
            Client::<T>::request(issuer.public_key(), &c, &mut rng).map(drop),
            Err(Error::UnsupportedValue)
        );
        assert_eq!(
            Client::<T>::request_batch(issuer.public_key(), &c, 2, &mut rng).map(drop),
            Err(Error::UnsupportedValue)
        );
    }
}

/// Tampering: a flipped proof bit, a flipped element bit, and another key's response are
/// rejected by the client; a flipped authenticator bit by the issuer.
fn tampering_rejected<T: TokenType>() {
    let mut rng = rand::rng();
    let issuer = issuer_for::<T>();
    let challenge = challenge_for::<T>();
    let request = |rng: &mut rand::rngs::ThreadRng| {
        Client::<T>::request(issuer.public_key(), &challenge, rng).expect("request")
    };
    let (req, _) = request(&mut rng);
    let resp = issuer.issue(&mut rng, &req).expect("issue").to_bytes();
    for at in [
        0,
        T::NE - 1,
        T::NE,
        T::NE + T::NS - 1,
        T::NE + T::NS,
        T::TOKEN_RESPONSE_LEN - 1,
    ] {
        for bit in [0x01u8, 0x80] {
            let mut bad = resp;
            bad.as_mut()[at] ^= bit;
            let (_, state) = request(&mut rng);
            // Either the bytes no longer decode, or the proof fails.
            if let Ok(r) = TokenResponse::<T>::from_bytes(bad.as_ref()) {
                assert_eq!(
                    state.finalize(&r).map(drop),
                    Err(Error::InvalidProof),
                    "byte {at}"
                );
            }
        }
    }
    // A response from another key does not verify against the key the request was made for.
    let other = issuer_for::<T>();
    let (req, state) = request(&mut rng);
    let foreign = Issuer::<T>::from_secret_key(other.server().secret_key().clone());
    let resp = foreign
        .server()
        .blind_evaluate(&mut rng, req.blinded_msg())
        .expect("evaluate");
    let resp = TokenResponse::<T>::new(resp.message, resp.proof);
    assert_eq!(state.finalize(&resp).map(drop), Err(Error::InvalidProof));
    // A request for another key id is refused by the issuer.
    let (req, _) = request(&mut rng);
    let wrong = TokenRequest::<T>::new(req.truncated_token_key_id() ^ 1, *req.blinded_msg());
    assert_eq!(
        issuer.issue(&mut rng, &wrong).map(drop),
        Err(Error::UnsupportedValue)
    );
    // A flipped authenticator, nonce or digest bit fails verification.
    let (req, state) = request(&mut rng);
    let token = state
        .finalize(&issuer.issue(&mut rng, &req).expect("issue"))
        .expect("finalize");
    let bytes = token.to_bytes();
    for at in [2, 2 + 32, TOKEN_INPUT_LEN, T::TOKEN_LEN - 1] {
        let mut bad = bytes;
        bad.as_mut()[at] ^= 1;
        let t = Token::<T>::from_bytes(bad.as_ref()).expect("decodes");
        assert_eq!(issuer.verify_token(&t), Ok(false), "byte {at}");
    }
    // A batch whose proof bit is flipped is rejected as a whole.
    let (breq, bstate) =
        Client::<T>::request_batch(issuer.public_key(), &challenge, 3, &mut rng).expect("batch");
    let mut bs = issuer
        .issue_batch(&mut rng, &breq)
        .expect("issue")
        .to_bytes();
    // A middle byte of `c`: canonical either way round (big- or little-endian scalars).
    let at = bs.len() - 2 * T::NS + T::NS / 2;
    bs[at] ^= 1;
    let r = bstate.response_from_bytes(&bs).expect("decodes");
    assert_eq!(
        bstate.finalize_batch(&r).map(drop),
        Err(Error::InvalidProof)
    );
}

fn serde_hex_roundtrip<T: TokenType>() {
    let mut rng = rand::rng();
    let (issuer, challenge, req, state) = requested::<T>(&mut rng);
    let json = serde_json::to_string(&req).expect("ser");
    assert_eq!(json, format!("\"{}\"", hex::encode(req.to_bytes())));
    let back: TokenRequest<T> = serde_json::from_str(&json).expect("de");
    assert_eq!(back, req);
    let resp = issuer.issue(&mut rng, &req).expect("issue");
    let back: TokenResponse<T> =
        serde_json::from_str(&serde_json::to_string(&resp).expect("ser")).expect("de");
    assert_eq!(back, resp);
    let token = state.finalize(&resp).expect("finalize");
    let json = serde_json::to_string(&token).expect("ser");
    assert_eq!(json, format!("\"{}\"", hex::encode(token.to_bytes())));
    let back: Token<T> = serde_json::from_str(&json).expect("de");
    assert_eq!(back, token);
    let bad = format!("\"{}00\"", hex::encode(token.to_bytes()));
    assert!(serde_json::from_str::<Token<T>>(&bad).is_err());
    let (breq, bstate) =
        Client::<T>::request_batch(issuer.public_key(), &challenge, 2, &mut rng).expect("batch");
    let back: BatchTokenRequest<T> =
        serde_json::from_str(&serde_json::to_string(&breq).expect("ser")).expect("de");
    assert_eq!(back, breq);
    let bresp = issuer.issue_batch(&mut rng, &breq).expect("issue");
    let back: BatchTokenResponse<T> =
        serde_json::from_str(&serde_json::to_string(&bresp).expect("ser")).expect("de");
    assert_eq!(back, bresp);
    assert_eq!(bstate.finalize_batch(&back).expect("finalize").len(), 2);
}

/// Random bytes of every length up to past each message's size, with and without the right
/// token type in front, never panic a decoder.
fn random_bytes_never_panic<T: TokenType>() {
    use rand::Rng;
    let mut rng = rand::rng();
    let max = 3 + 2 + 3 * T::NE + 2 * T::NS + T::TOKEN_LEN;
    for len in 0..=max {
        for round in 0..4 {
            let mut b = vec![0u8; len];
            rng.fill_bytes(&mut b);
            if round % 2 == 1 && len >= 2 {
                b[..2].copy_from_slice(&T::TOKEN_TYPE.to_be_bytes());
            }
            let _ = TokenRequest::<T>::from_bytes(&b);
            let _ = TokenResponse::<T>::from_bytes(&b);
            let _ = Token::<T>::from_bytes(&b);
            let _ = BatchTokenRequest::<T>::from_bytes(&b);
            let _ = BatchTokenResponse::<T>::from_bytes(&b);
            let _ = TokenChallenge::from_bytes(&b);
        }
    }
}

macro_rules! per_type {
    ($m:ident, $t:ty) => {
        mod $m {
            use super::*;

            #[test]
            fn single_flow() {
                super::single_flow::<$t>();
            }
            #[test]
            fn batch_flow_1() {
                super::batch_flow::<$t>(1);
            }
            #[test]
            fn batch_flow_10() {
                super::batch_flow::<$t>(10);
            }
            #[test]
            fn wrong_lengths_and_trailing_bytes() {
                super::wrong_lengths_and_trailing_bytes::<$t>();
            }
            #[test]
            fn wrong_token_type() {
                super::wrong_token_type::<$t>();
            }
            #[test]
            fn tampering_rejected() {
                super::tampering_rejected::<$t>();
            }
            #[test]
            fn serde_hex_roundtrip() {
                super::serde_hex_roundtrip::<$t>();
            }
            #[test]
            fn random_bytes_never_panic() {
                super::random_bytes_never_panic::<$t>();
            }
        }
    };
}

per_type!(type1, Type1);
per_type!(type5, Type5);
