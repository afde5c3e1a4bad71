//! Every count and length limit on the Trust Token paths is checked with a typed error before
//! any point is decoded or any multiplication starts. "No work" is shown two ways: the error
//! path makes no heap allocation (decoding a batch allocates first), and where a length error
//! and a point error compete, the length error wins (it is checked first).

use allocation_counter::measure;
use privacy_tokens::trust_token::{
    generate_key, Client, IssuanceRequest, IssuanceState, IssueResponse, Issuer, Method,
    PrivateKey, PublicKey, Token, MAX_PRIVATE_KEY_SIZE, MAX_PUBLIC_KEY_SIZE, NONCE_SIZE, POINT_LEN,
};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;

const KEY_ID: u32 = 7;

/// Runs `f`, asserting that it makes no heap allocation.
fn no_alloc<T>(f: impl FnOnce() -> T) -> T {
    let mut out = None;
    let info = measure(|| out = Some(f()));
    assert_eq!(info.count_total, 0, "the error path allocated");
    out.unwrap()
}

fn setup(method: Method, rng: &mut StdRng) -> (Issuer, Client) {
    let (sk, pk) = generate_key(method, KEY_ID, rng);
    let mut issuer = Issuer::new(method, 10);
    issuer.add_key(sk).unwrap();
    let mut client = Client::new(method, 10);
    client.add_key(pk).unwrap();
    (issuer, client)
}

/// An issuer and client for `method`, a request for `count` tokens and the issuer's response.
fn issued(
    method: Method,
    count: usize,
    rng: &mut StdRng,
) -> (Issuer, Client, IssuanceRequest, IssueResponse) {
    let (issuer, client) = setup(method, rng);
    let req = client.begin_issuance(count, rng).unwrap();
    let resp = issuer.issue(&req.message, KEY_ID, false, 10, rng).unwrap();
    (issuer, client, req, resp)
}

/// Flips the last byte of the point that starts `at` bytes in (after its u16 prefix, if any),
/// taking it off the curve.
fn off_curve(mut bytes: Vec<u8>, method: Method, at: usize) -> Vec<u8> {
    let prefix = method.point_len() - POINT_LEN;
    bytes[at + prefix + POINT_LEN - 1] ^= 1;
    bytes
}

#[test]
fn issue_checks_counts_and_lengths_first() {
    let mut rng = StdRng::seed_from_u64(1);
    for method in Method::ALL {
        let (issuer, client) = setup(method, &mut rng);
        let req = client.begin_issuance(3, &mut rng).unwrap();
        let m = &req.message;
        let bit = method.has_private_metadata();
        let mut zero = m.clone();
        zero[..2].copy_from_slice(&[0, 0]);
        let long = [m.as_slice(), &[0]].concat();
        let mut cases: Vec<(&[u8], u32, bool, u16, Error)> = vec![
            (&zero[..2], KEY_ID, bit, 10, Error::Batch),
            (m, KEY_ID, bit, 0, Error::Batch),
            (&m[..m.len() - 1], KEY_ID, bit, 10, Error::InvalidLength),
            (&long, KEY_ID, bit, 10, Error::InvalidLength),
            (m, KEY_ID + 1, bit, 10, Error::UnsupportedValue),
        ];
        if !bit {
            // A VOPRF method has no private metadata bit to set.
            cases.push((m, KEY_ID, true, 10, Error::UnsupportedValue));
        }
        for (i, (request, key_id, b, max, want)) in cases.into_iter().enumerate() {
            let got = no_alloc(|| issuer.issue(request, key_id, b, max, &mut rng));
            assert_eq!(got.unwrap_err(), want, "{method:?} case {i}");
        }
    }
}

#[test]
fn begin_issuance_refuses_zero_and_caps_at_max_batchsize() {
    let mut rng = StdRng::seed_from_u64(2);
    for method in Method::ALL {
        let (_, client) = setup(method, &mut rng);
        let got = no_alloc(|| client.begin_issuance(0, &mut rng).map(|r| r.message));
        assert_eq!(got, Err(Error::Batch));
        let req = client.begin_issuance(11, &mut rng).unwrap();
        assert_eq!(req.state.count(), 10);
        let zero = Client::new(method, 0);
        let got = no_alloc(|| zero.begin_issuance(5, &mut rng).map(|r| r.message));
        assert_eq!(got, Err(Error::Batch));
    }
}

#[test]
fn finish_issuance_checks_count_and_length_before_decoding() {
    let mut rng = StdRng::seed_from_u64(3);
    for method in Method::ALL {
        let (_, client, req, resp) = issued(method, 2, &mut rng);
        let stored = req.state.to_secret_bytes();
        let r = &resp.message;
        let with_count = |n: u16| [&n.to_be_bytes()[..], &r[2..]].concat();
        // Longer by a byte, with an off-curve first point: the length is refused first.
        let first = 6 + if method.has_private_metadata() {
            NONCE_SIZE
        } else {
            0
        };
        let long_bad_point = [off_curve(r.clone(), method, first), vec![0]].concat();
        let cases = [
            (with_count(0), Error::Batch),
            (with_count(3), Error::Batch),
            (r[..r.len() - 1].to_vec(), Error::InvalidLength),
            ([r.as_slice(), &[0]].concat(), Error::InvalidLength),
            (long_bad_point, Error::InvalidLength),
        ];
        for (i, (bad, want)) in cases.iter().enumerate() {
            let state = IssuanceState::from_secret_bytes(&stored).unwrap();
            let got = no_alloc(|| client.finish_issuance(state, bad).map_err(|e| e.error));
            assert_eq!(got.unwrap_err(), *want, "{method:?} case {i}");
        }
        // The off-curve point alone (right length) is a point error.
        let state = IssuanceState::from_secret_bytes(&stored).unwrap();
        let bad = off_curve(r.clone(), method, first);
        let got = client.finish_issuance(state, &bad).map_err(|e| e.error);
        assert_eq!(got.unwrap_err(), Error::InvalidPoint, "{method:?}");
    }
}

#[test]
fn verify_issuance_checks_the_request_length_before_allocating() {
    let mut rng = StdRng::seed_from_u64(4);
    for method in Method::ALL {
        let (_, client, req, resp) = issued(method, 2, &mut rng);
        let m = &req.message;
        for bad in [
            vec![0xff, 0xff],
            m[..m.len() - 1].to_vec(),
            [m.as_slice(), &[0]].concat(),
        ] {
            let got = no_alloc(|| client.verify_issuance(&bad, &resp.message));
            assert_eq!(got, Err(Error::InvalidLength), "{method:?}");
        }
        assert_eq!(client.verify_issuance(m, &resp.message), Ok(2));
    }
}

#[test]
fn redeem_checks_request_and_token_lengths_before_decoding() {
    let mut rng = StdRng::seed_from_u64(5);
    for method in Method::ALL {
        let (issuer, client, req, resp) = issued(method, 1, &mut rng);
        let token = client
            .finish_issuance(req.state, &resp.message)
            .unwrap()
            .remove(0);
        let t = token.as_bytes().to_vec();
        let redemption = |bytes: Vec<u8>| {
            let token = Token::from_bytes(bytes).unwrap();
            client.begin_redemption(&token, b"data").unwrap()
        };
        let good = redemption(t.clone());
        let first = 4 + NONCE_SIZE;
        let bad_point = off_curve(t.clone(), method, first);
        // The client data's length prefix overruns the request.
        let mut overrun = good.clone();
        let at = 2 + t.len();
        overrun[at..at + 2].copy_from_slice(&u16::MAX.to_be_bytes());
        let cases = [
            (redemption(t[..t.len() - 1].to_vec()), Error::InvalidLength),
            (
                redemption([t.as_slice(), &[0]].concat()),
                Error::InvalidLength,
            ),
            (
                redemption([bad_point.as_slice(), &[0]].concat()),
                Error::InvalidLength,
            ),
            (good[..good.len() - 1].to_vec(), Error::InvalidLength),
            ([good.as_slice(), &[0]].concat(), Error::InvalidLength),
            (overrun, Error::InvalidLength),
            (redemption(bad_point), Error::InvalidPoint),
        ];
        for (i, (bad, want)) in cases.iter().enumerate() {
            let got = no_alloc(|| issuer.redeem(bad).map(|r| r.key_id));
            assert_eq!(got, Err(*want), "{method:?} case {i}");
        }
        assert!(issuer.redeem(&good).is_ok());
    }
}

#[test]
fn begin_redemption_refuses_long_client_data() {
    let mut rng = StdRng::seed_from_u64(6);
    let (issuer, client, req, resp) = issued(Method::PstV1Voprf, 1, &mut rng);
    let token = client
        .finish_issuance(req.state, &resp.message)
        .unwrap()
        .remove(0);
    let data = vec![0u8; usize::from(u16::MAX) + 1];
    let got = no_alloc(|| client.begin_redemption(&token, &data));
    assert_eq!(got, Err(Error::InputTooLong));
    let rr = client.begin_redemption(&token, &data[1..]).unwrap();
    assert_eq!(
        issuer.redeem(&rr).unwrap().client_data.len(),
        usize::from(u16::MAX)
    );
}

#[test]
fn key_blob_lengths_and_key_counts_are_checked_before_decoding() {
    let mut rng = StdRng::seed_from_u64(7);
    for method in Method::ALL {
        let (sk, pk) = generate_key(method, 1, &mut rng);
        let (sk_blob, pk_blob) = (sk.to_bytes(), pk.to_bytes());
        for len in [
            0,
            sk_blob.len() - 1,
            sk_blob.len() + 1,
            MAX_PRIVATE_KEY_SIZE + 1,
        ] {
            let blob = vec![1u8; len];
            let got = no_alloc(|| PrivateKey::from_bytes(method, &blob).map(|k| k.key_id()));
            assert_eq!(got, Err(Error::InvalidLength), "{method:?} private {len}");
        }
        for len in [
            0,
            pk_blob.len() - 1,
            pk_blob.len() + 1,
            MAX_PUBLIC_KEY_SIZE + 1,
        ] {
            let blob = vec![4u8; len];
            let got = no_alloc(|| PublicKey::from_bytes(method, &blob).map(|k| k.key_id()));
            assert_eq!(got, Err(Error::InvalidLength), "{method:?} public {len}");
        }
        // Full holders refuse another key before decoding its blob (a bad blob's decoding
        // error would come first otherwise).
        let mut issuer = Issuer::new(method, 10);
        let mut client = Client::new(method, 10);
        for id in 0..method.max_keys() as u32 {
            let (sk, pk) = generate_key(method, 100 + id, &mut rng);
            issuer.add_key_bytes(&sk.to_bytes()).unwrap();
            client.add_key_bytes(&pk.to_bytes()).unwrap();
        }
        let got = no_alloc(|| issuer.add_key_bytes(&sk_blob[1..]));
        assert_eq!(got, Err(Error::UnsupportedValue), "{method:?}");
        let got = no_alloc(|| client.add_key_bytes(&pk_blob[1..]));
        assert_eq!(got, Err(Error::UnsupportedValue), "{method:?}");
        assert_eq!(issuer.add_key(sk), Err(Error::UnsupportedValue));
        assert_eq!(client.add_key(pk), Err(Error::UnsupportedValue));
    }
}
