//! Trust Tokens / Private State Tokens: protocol flows and rejection tests for every method,
//! matching and going beyond BoringSSL's `crypto/trust_token/trust_token_test.cc`.

use privacy_tokens::trust_token::{
    derive_key_from_secret, generate_key, Client, IssuanceRequest, Issuer, Method, PrivateKey,
    PublicKey, Token, NONCE_SIZE, POINT_LEN, SCALAR_LEN,
};
use privacy_tokens::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;

const CLIENT_DATA: &[u8] = b"\x70TEST CLIENT DATA";

fn rng() -> StdRng {
    StdRng::seed_from_u64(0x7457)
}

/// An issuer and a client for `method` holding `max_keys` keys with ids 7, 8, ... (as
/// BoringSSL's test contexts), batch size `batch`.
fn contexts(method: Method, batch: u16, rng: &mut StdRng) -> (Issuer, Client, Vec<PrivateKey>) {
    let mut issuer = Issuer::new(method, batch);
    let mut client = Client::new(method, batch);
    let mut keys = Vec::new();
    for i in 0..method.max_keys() as u32 {
        let (sk, pk) = generate_key(method, 7 + i, rng);
        issuer.add_key(sk.clone()).unwrap();
        assert_eq!(client.add_key(pk).unwrap(), i as usize);
        keys.push(sk);
    }
    (issuer, client, keys)
}

fn bits(method: Method) -> &'static [bool] {
    if method.has_private_metadata() {
        &[false, true]
    } else {
        &[false]
    }
}

#[test]
fn round_trip_every_method_key_and_bit() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, _) = contexts(method, 10, &mut rng);
        for key_id in [7, 8, 9] {
            for &bit in bits(method) {
                for count in [1usize, 10] {
                    let req = client.begin_issuance(count, &mut rng).unwrap();
                    assert_eq!(req.message.len(), 2 + count * POINT_LEN);
                    let resp = issuer
                        .issue(&req.message, key_id, bit, 10, &mut rng)
                        .unwrap();
                    assert_eq!(usize::from(resp.issued), count);
                    let expect_len = 6 + count * method.signed_len() + 2 + method.proof_len();
                    assert_eq!(resp.message.len(), expect_len, "{method:?}");
                    let tokens = client.finish_issuance(&req.state, &resp.message).unwrap();
                    assert_eq!(tokens.len(), count);
                    for t in &tokens {
                        assert_eq!(t.as_bytes().len(), method.token_len());
                        assert_eq!(t.key_id(), key_id);
                        let rr = client.begin_redemption(t, CLIENT_DATA).unwrap();
                        assert_eq!(rr.len(), 4 + method.token_len() + CLIENT_DATA.len());
                        let r = issuer.redeem(&rr).unwrap();
                        assert_eq!(r.key_id, key_id);
                        assert_eq!(r.private_metadata, bit, "{method:?}");
                        assert_eq!(&r.nonce[..], t.nonce().unwrap());
                        assert_eq!(r.client_data, CLIENT_DATA);
                    }
                }
            }
        }
    }
}

#[test]
fn key_blob_sizes_and_round_trips() {
    let mut rng = rng();
    for (method, sk_len, pk_len) in [
        (Method::PstV1Voprf, 52, 101),
        (Method::ExperimentV2Voprf, 52, 101),
        (Method::PstV1Pmb, 292, 295),
        (Method::ExperimentV2Pmb, 292, 295),
    ] {
        let (sk, pk) = generate_key(method, 0xdead_beef, &mut rng);
        let skb = sk.to_bytes();
        let pkb = pk.to_bytes();
        assert_eq!((skb.len(), pkb.len()), (sk_len, pk_len));
        assert_eq!(
            (method.private_key_len(), method.public_key_len()),
            (sk_len, pk_len)
        );
        assert_eq!(&skb[..4], &0xdead_beefu32.to_be_bytes());
        assert_eq!(&pkb[..4], &0xdead_beefu32.to_be_bytes());
        let sk2 = PrivateKey::from_bytes(method, &skb).unwrap();
        assert_eq!(sk2, sk);
        assert_eq!(sk2.public_key(), pk);
        assert_eq!(PublicKey::from_bytes(method, &pkb).unwrap(), pk);
        assert!(!format!("{sk:?}").contains(&hex::encode(&skb[4..10])));
        // Derivation is deterministic and depends on the method and the secret.
        let (a, _) = derive_key_from_secret(method, 1, b"SEED").unwrap();
        let (b, _) = derive_key_from_secret(method, 1, b"SEED").unwrap();
        let (c, _) = derive_key_from_secret(method, 1, b"SEEE").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
    let (a, _) = derive_key_from_secret(Method::PstV1Pmb, 1, b"SEED").unwrap();
    let (b, _) = derive_key_from_secret(Method::ExperimentV2Pmb, 1, b"SEED").unwrap();
    assert_ne!(a.to_bytes(), b.to_bytes());
}

#[test]
fn method_names() {
    for m in Method::ALL {
        assert_eq!(Method::from_name(m.name()), Some(m));
    }
    assert_eq!(Method::from_name("experiment_v1"), None);
    assert_eq!(
        Method::PstV1Pmb.protocol_version(),
        "PrivateStateTokenV1PMB"
    );
    assert_eq!(Method::PstV1Voprf.max_keys(), 6);
    assert_eq!(Method::PstV1Pmb.max_keys(), 3);
}

#[test]
fn key_limits_and_mismatches() {
    let mut rng = rng();
    for method in Method::ALL {
        let (mut issuer, mut client, _) = contexts(method, 10, &mut rng);
        let (sk, pk) = generate_key(method, 100, &mut rng);
        assert_eq!(issuer.add_key(sk), Err(Error::UnsupportedValue));
        assert_eq!(client.add_key(pk), Err(Error::UnsupportedValue));
        // Duplicate id.
        let mut issuer = Issuer::new(method, 10);
        let (sk, pk) = generate_key(method, 1, &mut rng);
        issuer.add_key(sk.clone()).unwrap();
        assert_eq!(issuer.add_key(sk), Err(Error::UnsupportedValue));
        let mut client = Client::new(method, 10);
        client.add_key(pk).unwrap();
        assert_eq!(client.add_key(pk), Err(Error::UnsupportedValue));
        // Another method's key.
        let other = if method.has_private_metadata() {
            Method::PstV1Voprf
        } else {
            Method::PstV1Pmb
        };
        let (sk, pk) = generate_key(other, 2, &mut rng);
        assert_eq!(issuer.add_key(sk), Err(Error::UnsupportedValue));
        assert_eq!(client.add_key(pk), Err(Error::UnsupportedValue));
    }
}

#[test]
fn over_message() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, _) = contexts(method, 10, &mut rng);
        let req = client
            .begin_issuance_over_message(2, b"message", &mut rng)
            .unwrap();
        let bit = method.has_private_metadata();
        let resp = issuer.issue(&req.message, 8, bit, 10, &mut rng).unwrap();
        let tokens = client.finish_issuance(&req.state, &resp.message).unwrap();
        let rr = client.begin_redemption(&tokens[0], CLIENT_DATA).unwrap();
        let r = issuer.redeem_over_message(&rr, b"message").unwrap();
        assert_eq!((r.key_id, r.private_metadata), (8, bit));
        assert_eq!(&r.nonce[..], tokens[0].nonce().unwrap());
        assert_eq!(
            issuer.redeem_over_message(&rr, b"massage"),
            Err(Error::InvalidProof)
        );
        assert_eq!(issuer.redeem(&rr), Err(Error::InvalidProof));
    }
}

#[test]
fn issuance_limits() {
    let mut rng = rng();
    for method in Method::ALL {
        // TooManyRequests: issuer batch 1, 10 requested.
        let (issuer, _, keys) = contexts(method, 1, &mut rng);
        let mut client = Client::new(method, 10);
        client.add_key(keys[0].public_key()).unwrap();
        let req = client.begin_issuance(10, &mut rng).unwrap();
        assert_eq!(req.state.count(), 10);
        let resp = issuer.issue(&req.message, 7, false, 10, &mut rng).unwrap();
        assert_eq!(resp.issued, 1);
        assert_eq!(
            client
                .finish_issuance(&req.state, &resp.message)
                .unwrap()
                .len(),
            1
        );
        // max_issuance caps too.
        let (issuer, client, _) = contexts(method, 10, &mut rng);
        let req = client.begin_issuance(10, &mut rng).unwrap();
        let resp = issuer.issue(&req.message, 7, false, 3, &mut rng).unwrap();
        assert_eq!(resp.issued, 3);
        assert_eq!(
            client
                .finish_issuance(&req.state, &resp.message)
                .unwrap()
                .len(),
            3
        );
        assert_eq!(
            issuer
                .issue(&req.message, 7, false, 0, &mut rng)
                .map(|r| r.issued),
            Err(Error::Batch)
        );
        // The client caps its count at its batch size.
        let req = client.begin_issuance(50, &mut rng).unwrap();
        assert_eq!(&req.message[..2], &[0, 10]);
        // Count 0.
        assert_eq!(
            client.begin_issuance(0, &mut rng).map(|_| ()),
            Err(Error::Batch)
        );
        assert_eq!(
            issuer.issue(&[0, 0], 7, false, 10, &mut rng).map(|_| ()),
            Err(Error::Batch)
        );
        // A count of 0xffff with no points is truncated.
        assert_eq!(
            issuer
                .issue(&[0xff, 0xff], 7, false, 10, &mut rng)
                .map(|_| ()),
            Err(Error::InvalidLength)
        );
    }
}

#[test]
fn voprf_rejects_private_bit() {
    let mut rng = rng();
    for method in [Method::PstV1Voprf, Method::ExperimentV2Voprf] {
        let (issuer, client, _) = contexts(method, 10, &mut rng);
        let req = client.begin_issuance(1, &mut rng).unwrap();
        assert_eq!(
            issuer
                .issue(&req.message, 7, true, 10, &mut rng)
                .map(|_| ()),
            Err(Error::UnsupportedValue)
        );
    }
}

/// One request and its response, for the tamper tests.
fn transcript(
    method: Method,
    count: usize,
    bit: bool,
) -> (Issuer, Client, IssuanceRequest, Vec<u8>) {
    let mut rng = rng();
    let (issuer, client, _) = contexts(method, 10, &mut rng);
    let req = client.begin_issuance(count, &mut rng).unwrap();
    let resp = issuer.issue(&req.message, 8, bit, 10, &mut rng).unwrap();
    (issuer, client, req, resp.message)
}

#[test]
fn truncated_and_extra_data() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, req, resp) = transcript(method, 3, false);
        assert!(issuer
            .issue(&req.message[..10], 8, false, 10, &mut rng)
            .is_err());
        let mut long = req.message.clone();
        long.push(0);
        assert_eq!(
            issuer.issue(&long, 8, false, 10, &mut rng).map(|_| ()),
            Err(Error::InvalidLength)
        );
        assert!(client.finish_issuance(&req.state, &resp[..10]).is_err());
        let mut long = resp.clone();
        long.push(0);
        assert_eq!(
            client.finish_issuance(&req.state, &long),
            Err(Error::InvalidLength)
        );
        // TruncatedProof / ExcessDataProof: proof shortened or extended by 2 bytes, length re-prefixed.
        let plen_at = resp.len() - method.proof_len() - 2;
        let mut short = resp[..resp.len() - 2].to_vec();
        short[plen_at..plen_at + 2]
            .copy_from_slice(&((method.proof_len() - 2) as u16).to_be_bytes());
        assert!(client.finish_issuance(&req.state, &short).is_err());
        let mut excess = resp.clone();
        excess.extend_from_slice(&[0, 0]);
        excess[plen_at..plen_at + 2]
            .copy_from_slice(&((method.proof_len() + 2) as u16).to_be_bytes());
        assert!(client.finish_issuance(&req.state, &excess).is_err());
        // Redemption requests.
        let tokens = client.finish_issuance(&req.state, &resp).unwrap();
        let rr = client.begin_redemption(&tokens[0], CLIENT_DATA).unwrap();
        assert!(issuer.redeem(&rr[..10]).is_err());
        let mut long = rr.clone();
        long.push(0);
        assert_eq!(issuer.redeem(&long), Err(Error::InvalidLength));
    }
}

#[test]
fn issued_with_bad_key_id() {
    let mut rng = rng();
    for method in Method::ALL {
        let mut issuer = Issuer::new(method, 10);
        let (sk, _) = generate_key(method, 42, &mut rng);
        issuer.add_key(sk).unwrap();
        let mut client = Client::new(method, 10);
        let (_, pk) = generate_key(method, 0, &mut rng);
        client.add_key(pk).unwrap();
        let req = client.begin_issuance(2, &mut rng).unwrap();
        assert_eq!(
            issuer
                .issue(&req.message, 0, false, 10, &mut rng)
                .map(|_| ()),
            Err(Error::UnsupportedValue)
        );
        let resp = issuer.issue(&req.message, 42, false, 10, &mut rng).unwrap();
        assert_eq!(
            client.finish_issuance(&req.state, &resp.message),
            Err(Error::UnsupportedValue)
        );
    }
}

/// A corrupted private key blob: the issuer's public key no longer matches the client's, so
/// finishing fails whichever scalar changed. (BoringSSL's `TrustTokenBadKeyTest`, which keeps
/// the public key and corrupts the scalar in memory, is a unit test in `src/trust_token/tests.rs`.)
#[test]
fn bad_issuer_key() {
    let mut rng = rng();
    for method in Method::ALL {
        for &bit in bits(method) {
            for corrupted in 0..(method.private_key_len() - 4) / SCALAR_LEN {
                let (sk, pk) = generate_key(method, 1, &mut rng);
                let mut blob = sk.to_bytes().to_vec();
                // Change the last byte of the scalar (stays below n).
                blob[4 + (corrupted + 1) * SCALAR_LEN - 1] ^= 42;
                let mut issuer = Issuer::new(method, 10);
                issuer.add_key_bytes(&blob).unwrap();
                let mut client = Client::new(method, 10);
                client.add_key(pk).unwrap();
                let req = client.begin_issuance(3, &mut rng).unwrap();
                let resp = issuer.issue(&req.message, 1, bit, 10, &mut rng).unwrap();
                assert_eq!(
                    client.finish_issuance(&req.state, &resp.message),
                    Err(Error::InvalidProof),
                    "{method:?} bit {bit} scalar {corrupted}"
                );
            }
        }
    }
}

#[test]
fn failed_finish_leaves_state_usable() {
    for method in Method::ALL {
        let (_, client, req, resp) = transcript(method, 2, false);
        let mut bad = resp.clone();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(client.finish_issuance(&req.state, &bad).is_err());
        assert_eq!(client.finish_issuance(&req.state, &resp).unwrap().len(), 2);
    }
}

/// Flip one bit of every byte of `msg` and require `check` to reject it.
fn every_byte(msg: &[u8], mut check: impl FnMut(usize, &[u8]) -> bool) {
    let mut m = msg.to_vec();
    for i in 0..m.len() {
        let mask = 1u8 << (i % 8);
        m[i] ^= mask;
        assert!(check(i, &m), "byte {i} of {} accepted", m.len());
        m[i] ^= mask;
    }
}

#[test]
fn bit_flips_in_request_are_rejected() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, _, req, _) = transcript(method, 3, false);
        every_byte(&req.message, |_, m| {
            issuer.issue(m, 8, false, 10, &mut rng).is_err()
        });
    }
}

/// Request points beyond what the issuer signs are skipped unparsed (as BoringSSL does): flips
/// there change nothing, and the client's tokens for the signed prefix still verify.
#[test]
fn bit_flips_in_unsigned_request_points_are_ignored() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, req, _) = transcript(method, 3, false);
        let signed_end = 2 + POINT_LEN;
        every_byte(&req.message, |i, m| {
            let r = issuer.issue(m, 8, false, 1, &mut rng);
            if i < signed_end {
                r.is_err()
            } else {
                let r = r.unwrap();
                r.issued == 1 && client.finish_issuance(&req.state, &r.message).is_ok()
            }
        });
    }
}

#[test]
fn bit_flips_in_response_and_proof_are_rejected() {
    for method in Method::ALL {
        for &bit in bits(method) {
            let (_, client, req, resp) = transcript(method, 2, bit);
            every_byte(&resp, |_, m| client.finish_issuance(&req.state, m).is_err());
            assert!(client.finish_issuance(&req.state, &resp).is_ok());
        }
    }
}

#[test]
fn bit_flips_in_token_and_redemption_request() {
    for method in Method::ALL {
        for &bit in bits(method) {
            let (issuer, client, req, resp) = transcript(method, 1, bit);
            let token = client.finish_issuance(&req.state, &resp).unwrap().remove(0);
            every_byte(token.as_bytes(), |_, t| {
                let t = Token::from_bytes(t.to_vec()).unwrap();
                issuer
                    .redeem(&client.begin_redemption(&t, CLIENT_DATA).unwrap())
                    .is_err()
            });
            let rr = client.begin_redemption(&token, CLIENT_DATA).unwrap();
            let good = issuer.redeem(&rr).unwrap();
            let cd_start = 2 + token.as_bytes().len() + 2;
            every_byte(&rr, |i, m| {
                let r = issuer.redeem(m);
                if i < cd_start {
                    r.is_err()
                } else {
                    // The client data is not authenticated by the token (BoringSSL passes it
                    // through): the flip shows up in the output, nothing else changes.
                    let r = r.unwrap();
                    r.key_id == good.key_id
                        && r.private_metadata == good.private_metadata
                        && r.nonce == good.nonce
                        && r.client_data == m[cd_start..]
                        && r.client_data != good.client_data
                }
            });
        }
    }
}

#[test]
fn non_canonical_scalars() {
    let n_bytes = hex::decode("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973").unwrap();
    let mut rng = rng();
    for method in Method::ALL {
        let (sk, _) = generate_key(method, 1, &mut rng);
        let blob = sk.to_bytes().to_vec();
        for i in 0..method.private_key_len().saturating_sub(4) / SCALAR_LEN {
            for bad in [n_bytes.clone(), vec![0xff; SCALAR_LEN]] {
                let mut b = blob.clone();
                b[4 + i * SCALAR_LEN..4 + (i + 1) * SCALAR_LEN].copy_from_slice(&bad);
                assert_eq!(
                    PrivateKey::from_bytes(method, &b).map(|_| ()),
                    Err(Error::NonCanonicalScalar)
                );
            }
            let mut b = blob.clone();
            b[4 + i * SCALAR_LEN..4 + (i + 1) * SCALAR_LEN].fill(0);
            assert_eq!(
                PrivateKey::from_bytes(method, &b).map(|_| ()),
                Err(Error::ZeroScalar)
            );
        }
        assert_eq!(
            PrivateKey::from_bytes(method, &blob[1..]).map(|_| ()),
            Err(Error::InvalidLength)
        );
        // Proof scalars >= n.
        let (_, client, req, resp) = transcript(method, 2, false);
        let proof_at = resp.len() - method.proof_len();
        for i in 0..method.proof_len() / SCALAR_LEN {
            let mut r = resp.clone();
            r[proof_at + i * SCALAR_LEN..proof_at + (i + 1) * SCALAR_LEN].copy_from_slice(&n_bytes);
            assert_eq!(
                client.finish_issuance(&req.state, &r),
                Err(Error::NonCanonicalScalar)
            );
        }
    }
}

#[test]
fn bad_points() {
    let mut rng = rng();
    for method in Method::ALL {
        let (_, pk) = generate_key(method, 1, &mut rng);
        let blob = pk.to_bytes();
        for i in 0..(blob.len() - 4) / POINT_LEN {
            let at = 4 + i * POINT_LEN;
            // Off the curve.
            let mut b = blob.clone();
            b[at + POINT_LEN - 1] ^= 1;
            assert_eq!(PublicKey::from_bytes(method, &b), Err(Error::InvalidPoint));
            // Compressed tag in an uncompressed slot.
            let mut b = blob.clone();
            b[at] = 2;
            assert_eq!(PublicKey::from_bytes(method, &b), Err(Error::InvalidPoint));
            // The identity (all zeros).
            let mut b = blob.clone();
            b[at..at + POINT_LEN].fill(0);
            assert_eq!(
                PublicKey::from_bytes(method, &b),
                Err(Error::IdentityElement)
            );
        }
        // A compressed 49-byte point instead of the uncompressed one.
        let mut b = blob[..4 + 49].to_vec();
        b[4] = 2 | (blob[4 + POINT_LEN - 1] & 1);
        b[5..].copy_from_slice(&blob[5..5 + 48]);
        assert_eq!(PublicKey::from_bytes(method, &b), Err(Error::InvalidLength));

        let (issuer, client, req, resp) = transcript(method, 2, false);
        // Request: the identity, and a compressed-tagged point.
        let mut m = req.message.clone();
        m[2..2 + POINT_LEN].fill(0);
        assert_eq!(
            issuer.issue(&m, 8, false, 10, &mut rng).map(|_| ()),
            Err(Error::IdentityElement)
        );
        let mut m = req.message.clone();
        m[2] = 3;
        assert_eq!(
            issuer.issue(&m, 8, false, 10, &mut rng).map(|_| ()),
            Err(Error::InvalidPoint)
        );
        // Response: the first signed point replaced by the identity.
        let first_point = 6 + if method.has_private_metadata() {
            NONCE_SIZE
        } else {
            0
        };
        let mut r = resp.clone();
        r[first_point..first_point + POINT_LEN].fill(0);
        assert_eq!(
            client.finish_issuance(&req.state, &r),
            Err(Error::IdentityElement)
        );
    }
}

#[test]
fn response_counts() {
    for method in Method::ALL {
        let (_, client, req, resp) = transcript(method, 2, false);
        // Count larger than the request.
        let mut r = resp.clone();
        r[..2].copy_from_slice(&3u16.to_be_bytes());
        assert_eq!(client.finish_issuance(&req.state, &r), Err(Error::Batch));
        // Count 0.
        let mut r = resp.clone();
        r[..2].copy_from_slice(&0u16.to_be_bytes());
        assert_eq!(client.finish_issuance(&req.state, &r), Err(Error::Batch));
        // Count 1 with two elements: trailing data or a failing proof, never success.
        let mut r = resp.clone();
        r[..2].copy_from_slice(&1u16.to_be_bytes());
        assert!(client.finish_issuance(&req.state, &r).is_err());
    }
}

#[test]
fn unknown_key_id_at_redeem() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, req, resp) = transcript(method, 1, false);
        let token = client.finish_issuance(&req.state, &resp).unwrap().remove(0);
        let mut other = Issuer::new(method, 10);
        let (sk, _) = generate_key(method, 1234, &mut rng);
        other.add_key(sk).unwrap();
        let rr = client.begin_redemption(&token, CLIENT_DATA).unwrap();
        assert_eq!(other.redeem(&rr), Err(Error::UnsupportedValue));
        assert!(issuer.redeem(&rr).is_ok());
    }
}

/// A response made under one key, relabelled with another configured key's id, and a proof
/// spliced from another key's response for the same request: both rejected.
#[test]
fn valid_proof_under_another_key() {
    let mut rng = rng();
    for method in Method::ALL {
        let (issuer, client, _) = contexts(method, 10, &mut rng);
        let req = client.begin_issuance(2, &mut rng).unwrap();
        let a = issuer
            .issue(&req.message, 7, false, 10, &mut rng)
            .unwrap()
            .message;
        let b = issuer
            .issue(&req.message, 8, false, 10, &mut rng)
            .unwrap()
            .message;
        let mut relabelled = b.clone();
        relabelled[2..6].copy_from_slice(&7u32.to_be_bytes());
        assert_eq!(
            client.finish_issuance(&req.state, &relabelled),
            Err(Error::InvalidProof)
        );
        let p = method.proof_len();
        let mut spliced = a.clone();
        let n = spliced.len();
        spliced[n - p..].copy_from_slice(&b[n - p..]);
        assert_eq!(
            client.finish_issuance(&req.state, &spliced),
            Err(Error::InvalidProof)
        );
        assert!(client.finish_issuance(&req.state, &a).is_ok());
        assert!(client.finish_issuance(&req.state, &b).is_ok());
    }
}

#[test]
fn swapped_token_order_in_response() {
    for method in Method::ALL {
        for &bit in bits(method) {
            let (_, client, req, resp) = transcript(method, 3, bit);
            let l = method.signed_len();
            let mut r = resp.clone();
            let (e0, e1) = (resp[6..6 + l].to_vec(), resp[6 + l..6 + 2 * l].to_vec());
            r[6..6 + l].copy_from_slice(&e1);
            r[6 + l..6 + 2 * l].copy_from_slice(&e0);
            assert_eq!(
                client.finish_issuance(&req.state, &r),
                Err(Error::InvalidProof)
            );
        }
    }
}

/// The bit changes W but not what a client can check: the proof verifies for both bits, and
/// the same request signed with each bit gives different W'.
#[test]
fn private_bit_hidden_from_client() {
    let mut rng = rng();
    for method in [Method::PstV1Pmb, Method::ExperimentV2Pmb] {
        let (issuer, client, _) = contexts(method, 10, &mut rng);
        let req = client.begin_issuance(1, &mut rng).unwrap();
        let r0 = issuer
            .issue(&req.message, 7, false, 10, &mut rng)
            .unwrap()
            .message;
        let r1 = issuer
            .issue(&req.message, 7, true, 10, &mut rng)
            .unwrap()
            .message;
        assert_eq!(r0.len(), r1.len());
        let t0 = client.finish_issuance(&req.state, &r0).unwrap();
        let t1 = client.finish_issuance(&req.state, &r1).unwrap();
        assert_ne!(
            t0[0].as_bytes()[68 + POINT_LEN..],
            t1[0].as_bytes()[68 + POINT_LEN..]
        );
        for (t, bit) in [(&t0[0], false), (&t1[0], true)] {
            let r = issuer
                .redeem(&client.begin_redemption(t, b"").unwrap())
                .unwrap();
            assert_eq!(r.private_metadata, bit);
        }
    }
}

#[test]
fn token_from_bytes() {
    assert_eq!(Token::from_bytes(vec![0, 0, 0]), Err(Error::InvalidLength));
    let t = Token::from_bytes(vec![0, 0, 1, 2, 9]).unwrap();
    assert_eq!(t.key_id(), 0x102);
    assert_eq!(t.nonce(), None);
    assert_eq!(
        Client::new(Method::PstV1Voprf, 1).begin_redemption(&t, &vec![0u8; 65536]),
        Err(Error::InputTooLong)
    );
}
