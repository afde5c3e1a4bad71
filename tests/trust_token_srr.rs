//! `experiment_v1`'s signed redemption record (feature `srr`): the client's check of
//! `u16 len ‖ SRR ‖ u16 len ‖ Ed25519 signature` (BoringSSL `TRUST_TOKEN_CLIENT_finish_redemption`)
//! and the issuer's helper that builds one. Signatures are made independently with
//! `ed25519-dalek` and the responses framed by hand, so the layout is checked, not assumed.
#![cfg(feature = "srr")]

use ed25519_dalek::{Signer as _, SigningKey};
use privacy_tokens::trust_token::{
    generate_key, Client, Issuer, Method, RedemptionRecord, SRR_KEY_LEN, SRR_SIGNATURE_LEN,
};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const SRR: &[u8] = b"\xa4hmetadata\xa2fpublic\x07gprivate\x01 an issuer-defined record";

fn rng() -> StdRng {
    StdRng::seed_from_u64(0x5352)
}

fn signing_key(rng: &mut StdRng) -> SigningKey {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    SigningKey::from_bytes(&seed)
}

/// `u16 len ‖ record ‖ u16 len ‖ signature`, framed by hand.
fn frame(record: &[u8], signature: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(record.len() as u16).to_be_bytes());
    out.extend_from_slice(record);
    out.extend_from_slice(&(signature.len() as u16).to_be_bytes());
    out.extend_from_slice(signature);
    out
}

/// An `experiment_v1` client trusting `key`.
fn client_for(key: &SigningKey) -> Client {
    let mut client = Client::new(Method::ExperimentV1, 10);
    client.set_srr_key(key.verifying_key().as_bytes()).unwrap();
    client
}

/// A fresh signing key and an `experiment_v1` client trusting it.
fn keyed_client() -> (SigningKey, Client) {
    let key = signing_key(&mut rng());
    let client = client_for(&key);
    (key, client)
}

fn signed(key: &SigningKey, record: &[u8]) -> Vec<u8> {
    frame(record, &key.sign(record).to_bytes())
}

#[test]
fn srr_round_trip_signed_with_dalek() {
    let (key, client) = keyed_client();
    assert_eq!(client.srr_key(), Some(key.verifying_key().to_bytes()));
    for record in [SRR, &b""[..], &[0u8; 1000][..], &vec![0x5a; 65535][..]] {
        let signature = key.sign(record).to_bytes();
        let got = client
            .finish_redemption(&frame(record, &signature))
            .unwrap();
        assert_eq!(
            got,
            RedemptionRecord {
                record: record.to_vec(),
                signature: Some(signature),
            }
        );
        // `to_response` is the inverse.
        assert_eq!(got.to_response().unwrap(), frame(record, &signature));
    }
}

/// RFC 8032 §7.1 TEST 1 and TEST 2: the signed message is the SRR bytes alone (pure Ed25519,
/// no prefix), and the issuer helper signs deterministically to the same bytes.
#[test]
fn srr_rfc8032_vectors() {
    for (secret, public, message, signature) in [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        ),
    ] {
        let (secret, public) = (hex::decode(secret).unwrap(), hex::decode(public).unwrap());
        let (message, signature) = (hex::decode(message).unwrap(), hex::decode(signature).unwrap());
        let response = frame(&message, &signature);

        let mut client = Client::new(Method::ExperimentV1, 1);
        client.set_srr_key(&public).unwrap();
        let got = client.finish_redemption(&response).unwrap();
        assert_eq!(got.record, message);
        assert_eq!(got.signature.unwrap().to_vec(), signature);

        let mut issuer = Issuer::new(Method::ExperimentV1, 1);
        issuer.set_srr_key(&secret).unwrap();
        assert_eq!(issuer.srr_public_key().unwrap().to_vec(), public);
        assert_eq!(issuer.redemption_response(&message).unwrap(), response);
    }
}

/// The whole `experiment_v1` flow: issue, redeem, the issuer signs a record of what it
/// redeemed, the client checks it.
#[test]
fn srr_issuer_helper_after_redemption() {
    let mut rng = rng();
    let method = Method::ExperimentV1;
    let (private, public) = generate_key(method, 7, &mut rng);
    let mut issuer = Issuer::new(method, 10);
    issuer.add_key(private).unwrap();
    let mut seed = [0u8; SRR_KEY_LEN];
    rng.fill_bytes(&mut seed);
    issuer.set_srr_key(&seed).unwrap();
    let mut client = Client::new(method, 10);
    client.add_key(public).unwrap();
    client
        .set_srr_key(&issuer.srr_public_key().unwrap())
        .unwrap();

    let request = client.begin_issuance(2, &mut rng).unwrap();
    let response = issuer
        .issue(&request.message, 7, true, 10, &mut rng)
        .unwrap();
    let tokens = client
        .finish_issuance(request.state, &response.message)
        .unwrap();
    let redemption = client
        .begin_redemption_at(&tokens[0], b"client data", 1_600_000_000)
        .unwrap();
    let r = issuer.redeem(&redemption).unwrap();
    let mut record = r.nonce.to_vec();
    record.extend_from_slice(&r.key_id.to_be_bytes());
    record.push(u8::from(r.private_metadata));
    record.extend_from_slice(&r.client_data);

    let srr = issuer.redemption_response(&record).unwrap();
    assert_eq!(srr.len(), 2 + record.len() + 2 + SRR_SIGNATURE_LEN);
    let got = client.finish_redemption(&srr).unwrap();
    assert_eq!(got.record, record);
    assert_eq!(got.to_response().unwrap(), srr);
}

#[test]
fn srr_wrong_key() {
    let mut rng = rng();
    let (key, other) = (signing_key(&mut rng), signing_key(&mut rng));
    let response = signed(&key, SRR);
    assert_eq!(
        client_for(&other).finish_redemption(&response),
        Err(Error::InvalidSignature)
    );
    // A signature of another record under the right key.
    let other_record = signed(&key, b"another record");
    let (_, sig) = other_record.split_at(other_record.len() - SRR_SIGNATURE_LEN);
    assert_eq!(
        client_for(&key).finish_redemption(&frame(SRR, sig)),
        Err(Error::InvalidSignature)
    );
}

/// Every bit of the SRR and of the signature matters; a flip in a length prefix breaks the
/// framing.
#[test]
fn srr_flipped_bits() {
    let (key, client) = keyed_client();
    let response = signed(&key, SRR);
    let body = 2..response.len();
    let sig_len_at = 2 + SRR.len();
    for i in 0..response.len() {
        for bit in 0..8 {
            let mut m = response.clone();
            m[i] ^= 1 << bit;
            let res = client.finish_redemption(&m);
            if i < 2 || (sig_len_at..sig_len_at + 2).contains(&i) {
                assert_eq!(res, Err(Error::InvalidLength), "byte {i} bit {bit}");
            } else {
                assert!(body.contains(&i));
                assert_eq!(res, Err(Error::InvalidSignature), "byte {i} bit {bit}");
            }
        }
    }
}

#[test]
fn srr_truncated_and_trailing_bytes() {
    let (key, client) = keyed_client();
    let response = signed(&key, SRR);
    for cut in 0..response.len() {
        assert_eq!(
            client.finish_redemption(&response[..cut]),
            Err(Error::InvalidLength),
            "cut at {cut}"
        );
    }
    for tail in [&[0u8][..], &[0, 0], &[0xff; 64]] {
        let mut m = response.clone();
        m.extend_from_slice(tail);
        assert_eq!(client.finish_redemption(&m), Err(Error::InvalidLength));
    }
    // A signature of the wrong length, consistently prefixed: well framed, so (as BoringSSL's
    // `EVP_DigestVerify`, which takes only 64 bytes) a bad signature.
    let signature = key.sign(SRR).to_bytes();
    for sig in [
        &signature[..63],
        &[&signature[..], &[0]].concat()[..],
        &[][..],
    ] {
        assert_eq!(
            client.finish_redemption(&frame(SRR, sig)),
            Err(Error::InvalidSignature)
        );
        assert_eq!(
            Client::new(Method::ExperimentV1, 1).finish_redemption(&frame(SRR, sig)),
            Err(Error::MissingKey)
        );
    }
}

/// `s + ℓ` verifies the same equation but is rejected (RFC 8032 §5.1.7; BoringSSL too).
#[test]
fn srr_non_canonical_signature_scalar() {
    let (key, client) = keyed_client();
    let mut signature = key.sign(SRR).to_bytes();
    let order: [u8; 32] =
        hex::decode("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
            .unwrap()
            .try_into()
            .unwrap();
    let mut carry = 0u16;
    for (s, l) in signature[32..].iter_mut().zip(order) {
        let sum = u16::from(*s) + u16::from(l) + carry;
        *s = sum as u8;
        carry = sum >> 8;
    }
    assert_eq!(carry, 0, "s + ℓ fits in 256 bits");
    assert_eq!(
        client.finish_redemption(&frame(SRR, &signature)),
        Err(Error::InvalidSignature)
    );
}

#[test]
fn srr_missing_key() {
    let mut rng = rng();
    let key = signing_key(&mut rng);
    let client = Client::new(Method::ExperimentV1, 10);
    assert_eq!(client.srr_key(), None);
    assert_eq!(
        client.finish_redemption(&signed(&key, SRR)),
        Err(Error::MissingKey)
    );
    // As BoringSSL: the framing is checked first.
    assert_eq!(client.finish_redemption(&[0, 1]), Err(Error::InvalidLength));

    let issuer = Issuer::new(Method::ExperimentV1, 10);
    assert_eq!(issuer.srr_public_key(), None);
    assert_eq!(issuer.redemption_response(SRR), Err(Error::MissingKey));
}

#[test]
fn srr_key_validation() {
    let mut rng = rng();
    let key = signing_key(&mut rng);
    let mut client = client_for(&key);
    let good = key.verifying_key().to_bytes();
    // An encoding of y = 2: x² = (y² − 1) / (d·y² + 1) is not a square, so no point.
    let mut not_on_curve = [0u8; 32];
    not_on_curve[0] = 2;
    let mut identity = [0u8; 32];
    identity[0] = 1;
    // A point of large order with a small y, encoded non-canonically as y + p (p = 2^255 − 19);
    // its canonical encoding is accepted.
    let y = (2u8..19)
        .find(|&y| {
            let mut canonical = [0u8; 32];
            canonical[0] = y;
            ed25519_dalek::VerifyingKey::from_bytes(&canonical).is_ok_and(|k| !k.is_weak())
        })
        .unwrap();
    let mut canonical = [0u8; 32];
    canonical[0] = y;
    Client::new(Method::ExperimentV1, 1)
        .set_srr_key(&canonical)
        .unwrap();
    let mut non_canonical = [0xffu8; 32];
    non_canonical[0] = 0xed + y;
    non_canonical[31] = 0x7f;
    let cases: [(&[u8], Error); 6] = [
        (&[], Error::InvalidLength),
        (&good[..31], Error::InvalidLength),
        (&[&good[..], &[0]].concat()[..], Error::InvalidLength),
        (&not_on_curve, Error::InvalidPoint),
        (&identity, Error::InvalidPoint),
        (&non_canonical, Error::InvalidPoint),
    ];
    for (bad, err) in cases {
        assert_eq!(client.set_srr_key(bad), Err(err), "{}", hex::encode(bad));
        // Nothing half-applied: the previous key stays.
        assert_eq!(client.srr_key(), Some(good));
    }
    assert!(client.finish_redemption(&signed(&key, SRR)).is_ok());
    // A new key replaces the old one.
    let other = signing_key(&mut rng);
    client
        .set_srr_key(other.verifying_key().as_bytes())
        .unwrap();
    assert_eq!(
        client.finish_redemption(&signed(&key, SRR)),
        Err(Error::InvalidSignature)
    );

    let mut issuer = Issuer::new(Method::ExperimentV1, 10);
    issuer.set_srr_key(key.as_bytes()).unwrap();
    for bad in [&[0u8; 31][..], &[0u8; 33], &[]] {
        assert_eq!(issuer.set_srr_key(bad), Err(Error::InvalidLength));
        assert_eq!(issuer.srr_public_key(), Some(good));
    }
}

#[test]
fn srr_record_too_long() {
    let mut rng = rng();
    let mut issuer = Issuer::new(Method::ExperimentV1, 10);
    issuer
        .set_srr_key(signing_key(&mut rng).as_bytes())
        .unwrap();
    assert!(issuer.redemption_response(&vec![0; 65535]).is_ok());
    assert_eq!(
        issuer.redemption_response(&vec![0; 65536]),
        Err(Error::InputTooLong)
    );
    let record = RedemptionRecord {
        record: vec![0; 65536],
        signature: Some([0; SRR_SIGNATURE_LEN]),
    };
    assert_eq!(record.to_response(), Err(Error::InputTooLong));
}

/// Methods without an SRR return the response verbatim, with or without a key, whatever its
/// bytes (even a valid SRR framing), and the issuer helper passes the record through.
#[test]
fn non_srr_methods_pass_the_response_through() {
    let mut rng = rng();
    let key = signing_key(&mut rng);
    for method in Method::ALL {
        assert_eq!(method.has_srr(), method == Method::ExperimentV1);
        if method.has_srr() {
            continue;
        }
        let mut client = Client::new(method, 10);
        let issuer = Issuer::new(method, 10);
        for response in [&[][..], SRR, &signed(&key, SRR)[..], &[0xff; 70000][..]] {
            let expected = RedemptionRecord {
                record: response.to_vec(),
                signature: None,
            };
            assert_eq!(client.finish_redemption(response).as_ref(), Ok(&expected));
            assert_eq!(expected.to_response().unwrap(), response);
            assert_eq!(issuer.redemption_response(response).unwrap(), response);
        }
        client.set_srr_key(key.verifying_key().as_bytes()).unwrap();
        let got = client.finish_redemption(&signed(&key, SRR)).unwrap();
        assert_eq!(
            (got.record, got.signature),
            (signed(&key, SRR), None),
            "{method:?}"
        );
    }
}

mod random_inputs {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes: an error (or, by chance, a valid record), never a panic.
        #[test]
        fn finish_redemption_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let key = SigningKey::from_bytes(&[7; 32]);
            let _ = client_for(&key).finish_redemption(&bytes);
            let mut client = Client::new(Method::ExperimentV1, 1);
            let _ = client.set_srr_key(&bytes);
            let _ = client.finish_redemption(&bytes);
        }

        /// Any single-byte overwrite of a valid response is rejected unless it is a no-op.
        #[test]
        fn overwritten_byte_rejected(pos in 0usize..(4 + SRR.len() + 64), val in any::<u8>()) {
            let key = SigningKey::from_bytes(&[7; 32]);
            let response = signed(&key, SRR);
            let mut m = response.clone();
            m[pos] = val;
            let res = client_for(&key).finish_redemption(&m);
            prop_assert_eq!(res.is_ok(), m == response);
        }
    }
}
