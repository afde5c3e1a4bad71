//! Trust Tokens with serde (feature `serde`): every type round-trips through JSON as the lowercase
//! hex of its storage encoding (a [`Method`] as its name; an [`IssuanceRequest`] serializes as its
//! wire message only; the secret [`IssuanceState`] only through the named
//! `secret_issuance_state` field module), and a tampered, short or long value is refused with the
//! typed error of the strict decoder, never a panic.

#![cfg(feature = "serde")]

use privacy_tokens::trust_token::{
    generate_key, Client, IssuanceRequest, IssuanceState, IssueResponse, Issuer, Method,
    PrivateKey, PublicKey, Redemption, Token, NONCE_SIZE, POINT_LEN, SCALAR_LEN,
};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// How an application stores a secret issuance state with serde: the field module is named on
/// purpose (a newtype: its JSON is the bare hex string).
#[derive(Debug, Serialize, Deserialize)]
struct Stored(#[serde(with = "privacy_tokens::trust_token::secret_issuance_state")] IssuanceState);

fn rng() -> StdRng {
    StdRng::seed_from_u64(0x5e7d)
}

/// A JSON string holding the hex of `bytes`.
fn quoted(bytes: &[u8]) -> String {
    format!("\"{}\"", hex::encode(bytes))
}

/// Serializes to JSON, checks the form is the quoted hex of `expect`, and deserializes.
fn round_trip<T: Serialize + DeserializeOwned>(v: &T, expect: &[u8]) -> T {
    let json = serde_json::to_string(v).unwrap();
    assert_eq!(json, quoted(expect));
    serde_json::from_str(&json).unwrap()
}

/// The serde error for `bytes` names the crate error `want`.
fn refuses<T: DeserializeOwned + core::fmt::Debug>(bytes: &[u8], want: Error) {
    let e = serde_json::from_str::<T>(&quoted(bytes)).unwrap_err();
    assert!(
        e.to_string().contains(&want.to_string()),
        "{e} (wanted {want})"
    );
}

/// A value one byte short or one byte long, empty, or not hex is an error.
fn refuses_short_long_and_bad_hex<T: DeserializeOwned + core::fmt::Debug>(good: &[u8]) {
    refuses::<T>(&good[..good.len() - 1], Error::InvalidLength);
    refuses::<T>(&[good, &[0]].concat(), Error::InvalidLength);
    refuses::<T>(&[], Error::InvalidLength);
    let odd = &quoted(good)[..quoted(good).len() - 2];
    for bad in [
        format!("{odd}\""),
        format!("\"zz{}", &quoted(good)[3..]),
        "7".into(),
    ] {
        assert!(serde_json::from_str::<T>(&bad).is_err(), "{bad}");
    }
}

/// An issuer and client for `method` with key id 7, and the issuer's keys.
fn setup(method: Method, rng: &mut StdRng) -> (Issuer, Client, PrivateKey, PublicKey) {
    let (sk, pk) = generate_key(method, 7, rng);
    let mut issuer = Issuer::new(method, 10);
    issuer.add_key(sk.clone()).unwrap();
    let mut client = Client::new(method, 10);
    client.add_key(pk).unwrap();
    (issuer, client, sk, pk)
}

/// Replaces `len` bytes at `at`.
fn patched(bytes: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + with.len()].copy_from_slice(with);
    out
}

/// A 97-byte point encoding that is not on the curve (a valid point with its last byte
/// changed).
fn off_curve(point: &[u8]) -> Vec<u8> {
    let mut p = point.to_vec();
    p[POINT_LEN - 1] ^= 1;
    p
}

#[test]
fn method_serializes_as_its_name() {
    let mut ids = Vec::new();
    for m in Method::ALL {
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, format!("\"{}\"", m.name()));
        assert_eq!(serde_json::from_str::<Method>(&json).unwrap(), m);
        assert_eq!(Method::from_id(m.id()), Some(m));
        ids.push(m.id());
    }
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    assert_eq!(Method::from_id(0), None);
    assert_eq!(Method::from_id(6), None);
    for bad in ["\"PST_V1_PMB\"", "\"pst_v2_pmb\"", "\"\"", "2", "null"] {
        assert!(serde_json::from_str::<Method>(bad).is_err(), "{bad}");
    }
}

#[test]
fn keys_round_trip_as_method_id_and_blob() {
    let mut rng = rng();
    for method in Method::ALL {
        let (sk, pk) = generate_key(method, 0x0102_0304, &mut rng);
        let sk_bytes = [&[method.id()][..], &sk.to_bytes()].concat();
        assert_eq!(sk_bytes.len(), 1 + method.private_key_len());
        assert_eq!(&sk.to_storage_bytes()[..], &sk_bytes[..]);
        let back = round_trip(&sk, &sk_bytes);
        assert_eq!(back, sk);
        assert_eq!(back.public_key(), pk);
        assert_eq!(format!("{back:?}"), format!("{sk:?}"));
        assert!(!format!("{back:?}").contains(&hex::encode(&sk.to_bytes()[4..])));

        let pk_bytes = [&[method.id()][..], &pk.to_bytes()].concat();
        assert_eq!(pk.to_storage_bytes(), pk_bytes);
        assert_eq!(round_trip(&pk, &pk_bytes), pk);
        assert_eq!(PublicKey::from_storage_bytes(&pk_bytes), Ok(pk));
        assert_eq!(PrivateKey::from_storage_bytes(&sk_bytes).unwrap(), sk);
    }
}

#[test]
fn keys_refuse_tampered_short_and_long() {
    let mut rng = rng();
    for method in Method::ALL {
        let (sk, pk) = generate_key(method, 9, &mut rng);
        let sk_bytes = sk.to_storage_bytes();
        let pk_bytes = pk.to_storage_bytes();
        refuses_short_long_and_bad_hex::<PrivateKey>(&sk_bytes);
        refuses_short_long_and_bad_hex::<PublicKey>(&pk_bytes);
        for (id, want) in [
            (0, Error::UnsupportedValue),
            (6, Error::UnsupportedValue),
            (0xff, Error::UnsupportedValue),
        ] {
            refuses::<PrivateKey>(&patched(&sk_bytes, 0, &[id]), want);
            refuses::<PublicKey>(&patched(&pk_bytes, 0, &[id]), want);
        }
        // Another method of the other key length.
        let other = Method::ALL
            .into_iter()
            .find(|m| m.has_private_metadata() != method.has_private_metadata())
            .unwrap();
        refuses::<PrivateKey>(&patched(&sk_bytes, 0, &[other.id()]), Error::InvalidLength);
        assert_eq!(
            PrivateKey::from_storage_bytes(&[]).unwrap_err(),
            Error::InvalidLength
        );

        // Each scalar: zero, the group order's neighbourhood, all ones.
        for i in 0..sk_bytes.len().saturating_sub(5) / SCALAR_LEN {
            let at = 5 + i * SCALAR_LEN;
            for (s, want) in [
                ([0u8; SCALAR_LEN], Error::ZeroScalar),
                ([0xff; SCALAR_LEN], Error::NonCanonicalScalar),
            ] {
                let bad = patched(&sk_bytes, at, &s);
                assert_eq!(PrivateKey::from_storage_bytes(&bad).unwrap_err(), want);
                refuses::<PrivateKey>(&bad, want);
            }
        }
        // Each point: off the curve, the identity.
        let prefix = if method.is_legacy() { 2 } else { 0 };
        for i in 0..3 {
            let at = 5 + i * method.point_len() + prefix;
            if at + POINT_LEN > pk_bytes.len() {
                break;
            }
            let bad = patched(&pk_bytes, at, &off_curve(&pk_bytes[at..at + POINT_LEN]));
            refuses::<PublicKey>(&bad, Error::InvalidPoint);
            let zero = patched(&pk_bytes, at, &[0; POINT_LEN]);
            assert_eq!(
                PublicKey::from_storage_bytes(&zero).unwrap_err(),
                Error::IdentityElement
            );
            refuses::<PublicKey>(&zero, Error::IdentityElement);
        }
    }
}

/// Every step of a run goes through JSON: keys, the client's state between begin and finish,
/// the response, the tokens and the redemption result.
#[test]
fn issuance_and_redemption_through_json() {
    let mut rng = rng();
    for method in Method::ALL {
        for bit in [false, method.has_private_metadata()] {
            let (sk, pk) = generate_key(method, 7, &mut rng);
            let sk: PrivateKey =
                serde_json::from_str(&serde_json::to_string(&sk).unwrap()).unwrap();
            let pk: PublicKey = serde_json::from_str(&serde_json::to_string(&pk).unwrap()).unwrap();
            let mut issuer = Issuer::new(method, 10);
            issuer.add_key(sk).unwrap();
            let mut client = Client::new(method, 10);
            client.add_key(pk).unwrap();

            let req = client.begin_issuance(4, &mut rng).unwrap();
            // The request serializes as the wire message the issuer reads, nothing else.
            assert_eq!(serde_json::to_string(&req).unwrap(), quoted(&req.message));
            let IssuanceRequest { message, state } = req;
            let stored = Stored(state);
            let state_json = serde_json::to_string(&stored).unwrap();
            assert_eq!(state_json, quoted(&stored.0.to_secret_bytes()));
            assert_eq!(state_json.len(), 2 + 2 * (3 + 4 * 209));
            drop(stored);

            let resp = issuer.issue(&message, 7, bit, 3, &mut rng).unwrap();
            let resp2 = round_trip(&resp, &resp.message);
            assert_eq!(resp2, resp);
            assert_eq!(resp2.issued, 3);

            let Stored(state) = serde_json::from_str(&state_json).unwrap();
            assert_eq!((state.method(), state.count()), (method, 4));
            assert_eq!(IssuanceRequest::from_state(state).message, message);
            let Stored(state) = serde_json::from_str(&state_json).unwrap();
            let again = IssuanceState::from_secret_bytes(&state.to_secret_bytes()).unwrap();
            let tokens = client.finish_issuance(state, &resp2.message).unwrap();
            assert_eq!(
                client.finish_issuance(again, &resp.message).unwrap(),
                tokens
            );
            for t in &tokens {
                let t2 = round_trip(t, t.as_bytes());
                assert_eq!(&t2, t);
                let r = issuer
                    .redeem(&client.begin_redemption(&t2, b"data").unwrap())
                    .unwrap();
                assert_eq!((r.key_id, r.private_metadata), (7, bit));
                let r2 = round_trip(&r, &r.to_bytes());
                assert_eq!(r2, r);
            }
        }
    }
}

/// Review finding 1: an application that posts `serde_json::to_string(&request)` sends the wire
/// message only. None of the client's salts or blinds is in it, and what the issuer receives
/// cannot be decoded as a state that would finish the issuance (the receiver does not get the
/// client's tokens); the issuer reads it as the request and the client alone finishes.
#[test]
fn serialized_request_does_not_carry_the_client_tokens() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, _, _) = setup(method, &mut rng);
        let req = client.begin_issuance(3, &mut rng).unwrap();
        let posted = serde_json::to_string(&req).unwrap();
        assert_eq!(posted, quoted(&req.message));
        let secret = req.state.to_secret_bytes();
        for i in 0..3 {
            let salt = 3 + i * (NONCE_SIZE + SCALAR_LEN + POINT_LEN);
            let blind = salt + NONCE_SIZE;
            for piece in [&secret[salt..blind], &secret[blind..blind + SCALAR_LEN]] {
                assert!(
                    !posted.contains(&hex::encode(piece)),
                    "{method:?}: secret posted"
                );
            }
        }
        let received = hex::decode(posted.trim_matches('"')).unwrap();
        assert!(IssuanceState::from_secret_bytes(&received).is_err());
        assert!(serde_json::from_str::<Stored>(&posted).is_err());
        let resp = issuer.issue(&received, 7, false, 10, &mut rng).unwrap();
        assert_eq!(
            client
                .finish_issuance(req.state, &resp.message)
                .unwrap()
                .len(),
            3
        );
    }
}

#[test]
fn state_over_message_survives_storage() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, _, _) = setup(method, &mut rng);
        let req = client
            .begin_issuance_over_message(2, b"msg", &mut rng)
            .unwrap();
        let state = IssuanceState::from_secret_bytes(&req.state.to_secret_bytes()).unwrap();
        assert_eq!(IssuanceRequest::from_state(state).message, req.message);
        let state = IssuanceState::from_secret_bytes(&req.state.to_secret_bytes()).unwrap();
        let resp = issuer.issue(&req.message, 7, false, 2, &mut rng).unwrap();
        let tokens = client.finish_issuance(state, &resp.message).unwrap();
        let rr = client.begin_redemption(&tokens[1], b"").unwrap();
        assert!(issuer.redeem_over_message(&rr, b"msg").is_ok());
    }
}

#[test]
fn state_refuses_tampered_short_and_long() {
    let mut rng = rng();
    for method in Method::ALL {
        let (_, client, _, _) = setup(method, &mut rng);
        let req = client.begin_issuance(2, &mut rng).unwrap();
        let good = req.state.to_secret_bytes();
        assert_eq!(good.len(), 3 + 2 * (NONCE_SIZE + SCALAR_LEN + POINT_LEN));
        refuses_short_long_and_bad_hex::<Stored>(&good);
        let mut cases: Vec<(Vec<u8>, Error)> = vec![
            (patched(&good, 0, &[0]), Error::UnsupportedValue),
            (patched(&good, 0, &[9]), Error::UnsupportedValue),
            (vec![method.id(), 0, 0], Error::Batch),
            (patched(&good, 1, &[0, 1]), Error::InvalidLength),
            (patched(&good, 1, &[0, 3]), Error::InvalidLength),
            (vec![method.id(), 0], Error::InvalidLength),
        ];
        for i in 0..2 {
            let blind = 3 + i * 209 + NONCE_SIZE;
            let point = blind + SCALAR_LEN;
            cases.push((patched(&good, blind, &[0; SCALAR_LEN]), Error::ZeroScalar));
            cases.push((
                patched(&good, blind, &[0xff; SCALAR_LEN]),
                Error::NonCanonicalScalar,
            ));
            cases.push((
                patched(&good, point, &off_curve(&good[point..point + POINT_LEN])),
                Error::InvalidPoint,
            ));
            cases.push((
                patched(&good, point, &[0; POINT_LEN]),
                Error::IdentityElement,
            ));
            cases.push((patched(&good, point, &[2]), Error::InvalidPoint));
        }
        for (bad, want) in &cases {
            assert_eq!(IssuanceState::from_secret_bytes(bad).unwrap_err(), *want);
            refuses::<Stored>(bad, *want);
        }
        // A stored state of another method is refused by the client, not misused.
        let other = Method::ALL.into_iter().find(|&m| m != method).unwrap();
        let moved = IssuanceState::from_secret_bytes(&patched(&good, 0, &[other.id()])).unwrap();
        assert_eq!(
            client.finish_issuance(moved, &[0; 8]).unwrap_err().error,
            Error::UnsupportedValue
        );
    }
}

#[test]
fn tokens_and_responses_refuse_tampered_short_and_long() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, _, _) = setup(method, &mut rng);
        let req = client.begin_issuance(2, &mut rng).unwrap();
        let resp = issuer.issue(&req.message, 7, false, 2, &mut rng).unwrap();
        let tokens = client.finish_issuance(req.state, &resp.message).unwrap();
        let token = tokens[0].as_bytes();
        assert_eq!(Token::decode(token).unwrap(), tokens[0]);
        refuses_short_long_and_bad_hex::<Token>(token);
        refuses_short_long_and_bad_hex::<IssueResponse>(&resp.message);
        assert_eq!(IssueResponse::decode(&resp.message), Ok(resp.clone()));

        let prefix = if method.is_legacy() { 2 } else { 0 };
        let first = 4 + NONCE_SIZE + prefix;
        let bad = patched(token, first, &off_curve(&token[first..first + POINT_LEN]));
        assert_eq!(Token::decode(&bad).unwrap_err(), Error::InvalidPoint);
        refuses::<Token>(&bad, Error::InvalidPoint);
        refuses::<Token>(
            &patched(token, first, &[0; POINT_LEN]),
            Error::IdentityElement,
        );
        if method.is_legacy() {
            refuses::<Token>(&patched(token, first - 2, &[0, 98]), Error::InvalidLength);
        }
        // A lax token (as stored by an application) serializes, but is not a token.
        let lax = Token::from_bytes(vec![0, 0, 1, 2, 9]).unwrap();
        let json = serde_json::to_string(&lax).unwrap();
        assert_eq!(json, "\"0000010209\"");
        refuses::<Token>(lax.as_bytes(), Error::InvalidLength);

        let m = &resp.message;
        refuses::<IssueResponse>(&patched(m, 0, &[0, 0]), Error::Batch);
        refuses::<IssueResponse>(&patched(m, 0, &[0, 1]), Error::InvalidLength);
        refuses::<IssueResponse>(&patched(m, 0, &[0, 3]), Error::InvalidLength);
        let proof_len_at = m.len() - method.proof_len() - 2;
        refuses::<IssueResponse>(&patched(m, proof_len_at, &[0, 97]), Error::InvalidLength);
        let last_scalar = m.len() - SCALAR_LEN;
        refuses::<IssueResponse>(
            &patched(m, last_scalar, &[0xff; SCALAR_LEN]),
            Error::NonCanonicalScalar,
        );
        let point =
            6 + if method.has_private_metadata() {
                NONCE_SIZE
            } else {
                0
            } + prefix;
        let bad = patched(m, point, &off_curve(&m[point..point + POINT_LEN]));
        assert_eq!(
            IssueResponse::decode(&bad).unwrap_err(),
            Error::InvalidPoint
        );
        refuses::<IssueResponse>(&bad, Error::InvalidPoint);
        refuses::<IssueResponse>(&patched(m, point, &[0; POINT_LEN]), Error::IdentityElement);
    }
}

#[test]
fn redemption_encoding() {
    let r = Redemption {
        key_id: 0x0a0b_0c0d,
        private_metadata: true,
        nonce: [0x55; NONCE_SIZE],
        client_data: b"cd".to_vec(),
    };
    let bytes = r.to_bytes();
    assert_eq!(bytes.len(), 4 + 1 + NONCE_SIZE + 2);
    assert_eq!(&bytes[..5], &[0x0a, 0x0b, 0x0c, 0x0d, 1]);
    assert_eq!(round_trip(&r, &bytes), r);
    let empty = Redemption {
        private_metadata: false,
        client_data: Vec::new(),
        ..r.clone()
    };
    assert_eq!(Redemption::from_bytes(&empty.to_bytes()), Ok(empty.clone()));
    let short = &empty.to_bytes()[..68];
    assert_eq!(Redemption::from_bytes(short), Err(Error::InvalidLength));
    refuses::<Redemption>(short, Error::InvalidLength);
    refuses::<Redemption>(&patched(&bytes, 4, &[2]), Error::UnsupportedValue);
    assert!(serde_json::from_str::<Redemption>("\"0\"").is_err());
}

mod random_inputs {
    use super::*;
    use proptest::prelude::*;

    fn decode_all(bytes: &[u8]) {
        let _ = PrivateKey::from_storage_bytes(bytes);
        let _ = PublicKey::from_storage_bytes(bytes);
        let _ = IssuanceState::from_secret_bytes(bytes);
        let _ = Token::decode(bytes);
        let _ = IssueResponse::decode(bytes);
        let _ = Redemption::from_bytes(bytes);
        let json = quoted(bytes);
        let _ = serde_json::from_str::<Stored>(&json);
        let _ = serde_json::from_str::<PrivateKey>(&json);
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
            decode_all(&bytes);
        }

        #[test]
        fn random_state_with_right_header_never_panics(
            id in 0u8..7,
            count in 0u16..3,
            body in proptest::collection::vec(any::<u8>(), 0..640),
        ) {
            let mut b = vec![id];
            b.extend_from_slice(&count.to_be_bytes());
            b.extend_from_slice(&body);
            decode_all(&b);
        }
    }
}
