//! AWS-LC's wrappers against BoringSSL, beyond the four current methods of `tests/interop.rs`:
//! key derivation and generation of all five methods (BoringSSL's blobs are pinned by the KATs
//! of `tests/boringssl.rs`), the key and batch limits, experiment v1 across the two libraries,
//! the errors AWS-LC reports, its curve layer (`EC_POINT_mul`) against ours, and its RSA
//! private operation (`RSA_sign_raw` without padding) against our `blind_sign`.
//!
//! AWS-LC has all five methods of BoringSSL (`TRUST_TOKEN_experiment_v1`, `experiment_v2_*`,
//! `pst_v1_*`); its API lacks only `TRUST_TOKEN_CLIENT_dup_for_testing` (a link-time absence,
//! so there is no wrapper for it and nothing to run).

use privacy_tokens::blind_rsa::{self, Variant};
use privacy_tokens::group;
use privacy_tokens::{P256Sha256, P384Sha384, Suite};
use privacy_tokens_interop::awslc::curve::{Curve, Group};
use privacy_tokens_interop::{awslc, boringssl, Method};
use rand::Rng;

const ALL: [Method; 5] = [
    Method::ExperimentV1,
    Method::ExperimentV2Voprf,
    Method::ExperimentV2Pmb,
    Method::PstV1Voprf,
    Method::PstV1Pmb,
];

/// `TRUST_TOKEN_derive_key_from_secret` gives BoringSSL's bytes, for every method (including
/// experiment v1 with its length-prefixed points), key ids at the extremes and secrets of
/// several lengths.
#[test]
fn derive_key_from_secret_equals_boringssl() {
    for method in ALL {
        for id in [0, 1, u32::MAX] {
            for secret in [&b"SEED"[..], b"", &[0xa5; 100]] {
                assert_eq!(
                    awslc::derive_key_from_secret(method, id, secret).unwrap(),
                    boringssl::derive_key_from_secret(method, id, secret).unwrap(),
                    "{} id {id} secret {}",
                    method.name(),
                    hex::encode(secret)
                );
            }
        }
    }
}

/// `TRUST_TOKEN_generate_key`: fresh blobs of BoringSSL's lengths, with the key id in front, that
/// BoringSSL's client and issuer load (and AWS-LC's load BoringSSL's); two calls differ.
#[test]
fn generate_key_blobs_load_in_boringssl() {
    for method in ALL {
        let ours = awslc::generate_key(method, 0x0102_0304).unwrap();
        let theirs = boringssl::generate_key(method, 0x0102_0304).unwrap();
        let what = method.name();
        assert_eq!(ours.private.len(), theirs.private.len(), "{what}");
        assert_eq!(ours.public.len(), theirs.public.len(), "{what}");
        assert_eq!(ours.private[..4], [1, 2, 3, 4], "{what}");
        assert_eq!(ours.public[..4], [1, 2, 3, 4], "{what}");
        assert_ne!(ours, awslc::generate_key(method, 0x0102_0304).unwrap());
        boringssl::Issuer::new(method, 1)
            .unwrap()
            .add_key(&ours.private)
            .unwrap();
        boringssl::Client::new(method, 1)
            .unwrap()
            .add_key(&ours.public)
            .unwrap();
        awslc::Issuer::new(method, 1)
            .unwrap()
            .add_key(&theirs.private)
            .unwrap();
        awslc::Client::new(method, 1)
            .unwrap()
            .add_key(&theirs.public)
            .unwrap();
    }
}

/// The method's `max_keys` keys and no more, `max_batchsize` ≤ 0xffff, and a client that
/// silently truncates the count to its `max_batchsize`, as in BoringSSL.
#[test]
fn key_and_batch_limits_as_boringssl() {
    for method in ALL {
        let mut client = awslc::Client::new(method, 10).unwrap();
        let mut issuer = awslc::Issuer::new(method, 10).unwrap();
        for id in 0..method.max_keys() as u32 {
            let key = boringssl::generate_key(method, id).unwrap();
            assert_eq!(client.add_key(&key.public).unwrap(), id as usize);
            issuer.add_key(&key.private).unwrap();
        }
        let key = boringssl::generate_key(method, 99).unwrap();
        assert!(client.add_key(&key.public).is_err(), "{}", method.name());
        assert!(issuer.add_key(&key.private).is_err(), "{}", method.name());
        assert!(awslc::Client::new(method, 0x1_0000).is_err());
        assert!(awslc::Issuer::new(method, 0x1_0000).is_err());
        assert!(awslc::Client::new(method, 0xffff).is_ok());
        let points = if method == Method::ExperimentV1 {
            2 + 97
        } else {
            97
        };
        assert_eq!(client.begin_issuance(20).unwrap().len(), 2 + 10 * points);
    }
}

/// Issues 10 experiment v1 tokens with bit `$bit` from `$issuer`'s issuer to `$client`'s client
/// and redeems each, with the redemption time in the request.
macro_rules! experiment_v1_round_trip {
    ($client:ident, $issuer:ident, $key:expr, $bit:expr) => {{
        let (key, bit) = ($key, $bit);
        let what = format!(
            "{} client, {} issuer, bit {bit}",
            stringify!($client),
            stringify!($issuer)
        );
        let mut client = $client::Client::new(Method::ExperimentV1, 10).unwrap();
        client.add_key(&key.public).unwrap();
        let mut issuer = $issuer::Issuer::new(Method::ExperimentV1, 10).unwrap();
        issuer.add_key(&key.private).unwrap();
        let request = client.begin_issuance(10).unwrap();
        let (response, issued) = issuer.issue(&request, 9, bit, 10).unwrap();
        assert_eq!(issued, 10, "{what}");
        let (_, tokens) = client.finish_issuance(&response).unwrap();
        assert_eq!(tokens.len(), 10, "{what}");
        for token in &tokens {
            let redemption = client.begin_redemption(token, b"data", 13_374_242).unwrap();
            let r = issuer.redeem(&redemption).unwrap();
            assert_eq!((r.key_id, r.private_metadata), (9, bit), "{what}");
            assert_eq!(r.nonce, token[4..68], "{what}");
            assert_eq!(r.client_data, b"data", "{what}");
        }
    }};
}

/// Experiment v1 (not in `tests/interop.rs`, whose sides cover the four current methods):
/// AWS-LC's client with BoringSSL's issuer, the reverse, and AWS-LC alone, both bits.
#[test]
fn experiment_v1_across_libraries() {
    for bit in [0, 1] {
        let key = awslc::generate_key(Method::ExperimentV1, 9).unwrap();
        experiment_v1_round_trip!(awslc, boringssl, &key, bit);
        experiment_v1_round_trip!(boringssl, awslc, &key, bit);
        experiment_v1_round_trip!(awslc, awslc, &key, bit);
    }
}

/// Errors name AWS-LC, the function, and the reason from AWS-LC's queue (BoringSSL's reason
/// names: the error tables are the same).
#[test]
fn error_reports_awslc_reason() {
    let mut client = awslc::Client::new(Method::PstV1Voprf, 10).unwrap();
    let err = client.finish_issuance(&[0; 6]).unwrap_err();
    assert_eq!(err.library, "AWS-LC");
    assert_eq!(err.function, "TRUST_TOKEN_CLIENT_finish_issuance");
    assert!(err.reason.contains("INVALID_KEY_ID"), "{err}");
    let theirs = boringssl::Client::new(Method::PstV1Voprf, 10)
        .unwrap()
        .finish_issuance(&[0; 6])
        .unwrap_err();
    assert_eq!(theirs.library, "BoringSSL");
    assert_eq!(err.reason, theirs.reason);
}

/// A random canonical scalar of curve `C`, as big-endian bytes and as ours.
fn random_scalar<C: group::Curve>(rng: &mut impl Rng) -> (Vec<u8>, group::Scalar<C>) {
    loop {
        let mut bytes = vec![0u8; C::SCALAR_LEN];
        rng.fill_bytes(&mut bytes);
        if let Ok(k) = group::decode_scalar::<C>(&bytes) {
            return (bytes, k);
        }
    }
}

/// AWS-LC's `EC_POINT_mul` (the `curve/awslc/...` benches) computes what ours does
/// (`privacy_tokens::group::mul` and `mul_generator`, the `curve/privacy-tokens/...` benches):
/// the same points for the same random scalars and base points, and for the scalars 1 and
/// n − 1.
fn curve_agrees<C: group::Curve>(curve: Curve) {
    let mut rng = rand::rng();
    let g = Group::new(curve).unwrap();
    assert_eq!(g.curve(), curve);
    let encode = |p: &group::Point<C>| {
        C::encode_uncompressed(&group::to_affine(p))
            .as_ref()
            .to_vec()
    };
    let mut out = g.new_point().unwrap();
    let mut specials = vec![[vec![0; C::SCALAR_LEN - 1], vec![1]].concat()];
    let minus_one = -group::Scalar::<C>::from(1u64);
    specials.push(C::scalar_bytes(&minus_one).as_ref().to_vec());
    for i in 0..20 {
        let (k_bytes, k) = match specials.get(i) {
            Some(b) => (b.clone(), group::decode_scalar::<C>(b).unwrap()),
            None => random_scalar::<C>(&mut rng),
        };
        let (_, base) = random_scalar::<C>(&mut rng);
        let p = group::mul_generator::<C>(&base);
        let p_bytes = encode(&p);
        let k_aws = g.scalar(&k_bytes).unwrap();
        let p_aws = g.decode_point(&p_bytes).unwrap();
        assert_eq!(g.encode_point(&p_aws).unwrap(), p_bytes);
        g.mul(&mut out, &p_aws, &k_aws).unwrap();
        assert_eq!(
            g.encode_point(&out).unwrap(),
            encode(&group::mul::<C>(&p, &k)),
            "{i}"
        );
        g.mul_base(&mut out, &k_aws).unwrap();
        assert_eq!(
            g.encode_point(&out).unwrap(),
            encode(&group::mul_generator::<C>(&k)),
            "{i}"
        );
    }
    // A point off the curve does not decode.
    let mut bad = encode(&group::mul_generator::<C>(&random_scalar::<C>(&mut rng).1));
    *bad.last_mut().unwrap() ^= 1;
    assert!(g.decode_point(&bad).is_err());
}

#[test]
fn curve_mul_equals_ours() {
    curve_agrees::<<P256Sha256 as Suite>::Group>(Curve::P256);
    curve_agrees::<<P384Sha384 as Suite>::Group>(Curve::P384);
}

/// AWS-LC's raw RSA private operation (the `rsa/awslc/2048/private_op` bench), on the key our
/// `SecretKey::to_pkcs8_der` exports, gives byte for byte what our `SecretKey::blind_sign` (the
/// `rsa/privacy-tokens/2048/blind_sign` bench) gives: on real blinded messages of the four
/// variants, on random values below `n`, and on 2 and `n - 2`. A value not below `n` is refused
/// by both. AWS-LC also refuses 0, 1 and `n - 1` (`DATA_TOO_LARGE_FOR_MODULUS`: its fixed
/// points, which padding never produces); ours signs them (each is its own signature, `d` being
/// odd), which the check against the public operation confirms.
#[test]
fn rsa_private_op_equals_blind_sign() {
    let sk = blind_rsa::test_key().unwrap();
    let pk = sk.public_key().clone();
    let aws = awslc::rsa::PrivateKey::from_pkcs8_der(&sk.to_pkcs8_der()).unwrap();
    assert_eq!(aws.size(), 256);
    assert_eq!(pk.modulus_len(), 256);
    let n = pk.modulus();
    let mut rng = rand::rng();

    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for variant in Variant::ALL {
        for len in [0usize, 1, 32, 1000] {
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            let (blinded, _) = pk.blind(variant, &msg, &mut rng).unwrap();
            inputs.push(blinded.into_bytes());
        }
    }
    for _ in 0..16 {
        // Below n: a top byte below n's, then any bytes.
        let mut x = vec![0u8; 256];
        rng.fill_bytes(&mut x);
        x[0] %= n[0];
        inputs.push(x);
    }
    let small = |v: u8| {
        let mut x = vec![0u8; 256];
        x[255] = v;
        x
    };
    // n is odd and its last byte is above 1 for this key: n - 1 and n - 2 only change it.
    assert!(n[255] >= 3);
    let below_n = |k: u8| {
        let mut x = n.clone();
        x[255] -= k;
        x
    };
    inputs.extend([small(2), below_n(2)]);

    for x in &inputs {
        let ours = sk.blind_sign(x).unwrap().into_bytes();
        let theirs = aws
            .private_op(x)
            .unwrap_or_else(|e| panic!("{e}: input {}", hex::encode(x)));
        assert_eq!(
            hex::encode(&ours),
            hex::encode(&theirs),
            "input {}",
            hex::encode(x)
        );
    }

    for fixed in [small(0), small(1), below_n(1)] {
        assert!(aws.private_op(&fixed).is_err());
        assert_eq!(sk.blind_sign(&fixed).unwrap().into_bytes(), fixed);
    }
    assert!(aws.private_op(&n).is_err());
    assert!(sk.blind_sign(&n).is_err());
    assert!(aws.private_op(&n[1..]).is_err());
    assert!(awslc::rsa::PrivateKey::from_pkcs8_der(&sk.public_key().to_spki()).is_err());
}
