//! Experiment v1's signed redemption record (SRR), live: BoringSSL's and AWS-LC's clients
//! (`TRUST_TOKEN_CLIENT_set_srr_key` with an Ed25519 `EVP_PKEY`,
//! `TRUST_TOKEN_CLIENT_finish_redemption`) and ours (`privacy-tokens` feature `srr`) read the
//! same responses and must agree on every one: accept with the same record and signature, or
//! reject for the same reason. Records are signed both by BoringSSL's `ED25519_sign` and by our
//! `Issuer::redemption_response`, which must produce the same bytes.

use privacy_tokens::trust_token as tt;
use privacy_tokens_interop::{self as bssl, awslc, Ed25519Key, Method};

/// What a client made of a redemption response.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Accepted {
        record: Vec<u8>,
        signature: Option<Vec<u8>>,
    },
    /// BoringSSL `DECODE_ERROR`, ours `Error::InvalidLength`.
    Decode,
    /// BoringSSL `NO_SRR_KEY_CONFIGURED`, ours `Error::MissingKey`.
    NoKey,
    /// BoringSSL `SRR_SIGNATURE_ERROR` (after EVP's `INVALID_SIGNATURE`), ours
    /// `Error::InvalidSignature`.
    BadSignature,
}

/// The outcome of a C library's `finish_redemption` (BoringSSL and AWS-LC queue the same
/// reasons).
fn library_outcome(result: bssl::Result<(Vec<u8>, Option<Vec<u8>>)>) -> Outcome {
    match result {
        Ok((record, signature)) => Outcome::Accepted { record, signature },
        Err(e) if e.reason.contains("DECODE_ERROR") => Outcome::Decode,
        Err(e) if e.reason.contains("NO_SRR_KEY_CONFIGURED") => Outcome::NoKey,
        // `EVP_DigestVerify` queues EVP's `INVALID_SIGNATURE` before the trust-token
        // `SRR_SIGNATURE_ERROR`, and the wrapper reports the first entry.
        Err(e)
            if e.reason.contains("SRR_SIGNATURE_ERROR")
                || e.reason
                    .ends_with("public key routines:OPENSSL_internal:INVALID_SIGNATURE") =>
        {
            Outcome::BadSignature
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn our_outcome(client: &tt::Client, response: &[u8]) -> Outcome {
    use privacy_tokens::Error;
    match client.finish_redemption(response) {
        Ok(r) => Outcome::Accepted {
            record: r.record,
            signature: r.signature.map(|s| s.to_vec()),
        },
        Err(Error::InvalidLength) => Outcome::Decode,
        Err(Error::MissingKey) => Outcome::NoKey,
        Err(Error::InvalidSignature) => Outcome::BadSignature,
        Err(e) => panic!("unexpected error: {e:?}"),
    }
}

/// BoringSSL's, AWS-LC's and our client, all trusting `srr_key` if given.
struct Clients {
    boring: bssl::Client,
    aws: awslc::Client,
    ours: tt::Client,
}

impl Clients {
    fn new(method: Method, srr_key: Option<&[u8]>) -> Self {
        let mut boring = bssl::Client::new(method, 10).unwrap();
        let mut aws = awslc::Client::new(method, 10).unwrap();
        let mut ours = tt::Client::new(tt::Method::from_name(method.name()).unwrap(), 10);
        if let Some(key) = srr_key {
            boring.set_srr_key(key).unwrap();
            aws.set_srr_key(key).unwrap();
            ours.set_srr_key(key).unwrap();
        }
        Self { boring, aws, ours }
    }

    /// The three clients' outcome, which must be the same.
    fn agree(&self, response: &[u8], what: &str) -> Outcome {
        let boring = library_outcome(self.boring.finish_redemption(response));
        assert_eq!(
            library_outcome(self.aws.finish_redemption(response)),
            boring,
            "{what}: AWS-LC vs BoringSSL"
        );
        assert_eq!(
            our_outcome(&self.ours, response),
            boring,
            "{what}: ours vs BoringSSL"
        );
        boring
    }
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

/// A real experiment v1 redemption with BoringSSL's issuer, turned into a record (nonce ‖ key
/// id ‖ bit ‖ client data; the SRR's contents are the issuer's choice).
fn redemption_record() -> Vec<u8> {
    let method = Method::ExperimentV1;
    let key = bssl::generate_key(method, 9).unwrap();
    let mut issuer = bssl::Issuer::new(method, 10).unwrap();
    issuer.add_key(&key.private).unwrap();
    let mut client = bssl::Client::new(method, 10).unwrap();
    client.add_key(&key.public).unwrap();
    let request = client.begin_issuance(1).unwrap();
    let (response, _) = issuer.issue(&request, 9, 1, 10).unwrap();
    let (_, tokens) = client.finish_issuance(&response).unwrap();
    let redemption = client
        .begin_redemption(&tokens[0], b"client data", 1_600_000_000)
        .unwrap();
    let r = issuer.redeem(&redemption).unwrap();
    let mut record = r.nonce;
    record.extend_from_slice(&r.key_id.to_be_bytes());
    record.push(r.private_metadata);
    record.extend_from_slice(&r.client_data);
    record
}

const SEED: [u8; 32] = *b"an issuer's SRR signing key seed";

#[test]
fn both_clients_accept_signed_and_reject_tampered_records() {
    let record = redemption_record();
    let signer = Ed25519Key::from_seed(&SEED);
    let signature = signer.sign(&record).unwrap();
    let response = frame(&record, &signature);

    // Our issuer helper signs (deterministic Ed25519) and frames to the same bytes.
    let mut issuer = tt::Issuer::new(tt::Method::ExperimentV1, 10);
    issuer.set_srr_key(&SEED).unwrap();
    assert_eq!(issuer.srr_public_key().unwrap(), signer.public_key());
    assert_eq!(issuer.redemption_response(&record).unwrap(), response);

    let clients = Clients::new(Method::ExperimentV1, Some(&signer.public_key()));
    let accepted = Outcome::Accepted {
        record: record.clone(),
        signature: Some(signature.to_vec()),
    };
    assert_eq!(clients.agree(&response, "valid"), accepted);
    for record in [&b""[..], &[0xa5; 65535][..]] {
        let r = frame(record, &signer.sign(record).unwrap());
        assert!(matches!(
            clients.agree(&r, "edge lengths"),
            Outcome::Accepted { .. }
        ));
    }

    // Every bit of the response.
    for i in 0..response.len() {
        for bit in 0..8 {
            let mut m = response.clone();
            m[i] ^= 1 << bit;
            let outcome = clients.agree(&m, &format!("byte {i} bit {bit}"));
            assert_ne!(outcome, accepted, "byte {i} bit {bit}");
        }
    }
    // Truncated, and trailing bytes.
    for cut in 0..response.len() {
        assert_eq!(
            clients.agree(&response[..cut], "truncated"),
            Outcome::Decode
        );
    }
    for tail in [&[0u8][..], &[0, 0], &signature[..]] {
        let m = [&response[..], tail].concat();
        assert_eq!(clients.agree(&m, "trailing"), Outcome::Decode);
    }
    // Well framed but a signature of the wrong length: a bad signature for both.
    for sig in [
        &signature[..63],
        &[&signature[..], &[0]].concat()[..],
        &[][..],
    ] {
        assert_eq!(
            clients.agree(&frame(&record, sig), "signature length"),
            Outcome::BadSignature
        );
    }
    // `s + ℓ`: the same verification equation, rejected as non-canonical by both.
    let order =
        hex::decode("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010").unwrap();
    let mut malleated = signature;
    let mut carry = 0u16;
    for (s, l) in malleated[32..].iter_mut().zip(order) {
        let sum = u16::from(*s) + u16::from(l) + carry;
        *s = sum as u8;
        carry = sum >> 8;
    }
    assert_eq!(carry, 0);
    assert_eq!(
        clients.agree(&frame(&record, &malleated), "s + order"),
        Outcome::BadSignature
    );
    // Another record's signature, and another key.
    let other = signer.sign(b"another record").unwrap();
    assert_eq!(
        clients.agree(&frame(&record, &other), "other record"),
        Outcome::BadSignature
    );
    let other_key = Ed25519Key::from_seed(&[7; 32]).public_key();
    let wrong = Clients::new(Method::ExperimentV1, Some(&other_key));
    assert_eq!(wrong.agree(&response, "wrong key"), Outcome::BadSignature);

    // No key configured: framing is checked first, then the key.
    let keyless = Clients::new(Method::ExperimentV1, None);
    assert_eq!(keyless.agree(&response, "no key"), Outcome::NoKey);
    assert_eq!(
        keyless.agree(&response[..3], "no key, bad framing"),
        Outcome::Decode
    );
}

#[test]
fn other_methods_return_the_response_verbatim() {
    let signer = Ed25519Key::from_seed(&SEED);
    let signed = frame(b"record", &signer.sign(b"record").unwrap());
    for method in Method::CURRENT {
        for key in [None, Some(&signer.public_key()[..])] {
            let clients = Clients::new(method, key);
            for response in [
                &[][..],
                &b"opaque issuer data"[..],
                &signed[..],
                &[0xff; 3][..],
            ] {
                assert_eq!(
                    clients.agree(response, method.name()),
                    Outcome::Accepted {
                        record: response.to_vec(),
                        signature: None,
                    }
                );
            }
        }
        let issuer = tt::Issuer::new(tt::Method::from_name(method.name()).unwrap(), 10);
        assert_eq!(issuer.redemption_response(&signed).unwrap(), signed);
    }
}

/// Keys: all reject a key that is not 32 bytes. Ours is stricter at `set_srr_key`: it also
/// rejects small-order and non-canonical encodings, which BoringSSL and AWS-LC take (a
/// difference pinned here; no honest issuer publishes such a key).
#[test]
fn srr_key_checks() {
    use privacy_tokens::Error;
    // (BoringSSL accepted the key, ours' verdict); AWS-LC must agree with BoringSSL.
    let set = |key: &[u8]| {
        let boring = bssl::Client::new(Method::ExperimentV1, 1)
            .unwrap()
            .set_srr_key(key)
            .is_ok();
        let aws = awslc::Client::new(Method::ExperimentV1, 1)
            .unwrap()
            .set_srr_key(key)
            .is_ok();
        assert_eq!(
            aws,
            boring,
            "AWS-LC vs BoringSSL on key {}",
            hex::encode(key)
        );
        let ours = tt::Client::new(tt::Method::ExperimentV1, 1).set_srr_key(key);
        (boring, ours)
    };
    for len in [0, 31, 33] {
        assert_eq!(set(&vec![0x42; len]), (false, Err(Error::InvalidLength)));
    }
    let mut identity = [0u8; 32];
    identity[0] = 1;
    assert_eq!(set(&identity), (true, Err(Error::InvalidPoint)));
    assert_eq!(
        set(&Ed25519Key::from_seed(&SEED).public_key()),
        (true, Ok(()))
    );
}
