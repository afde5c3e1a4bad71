//! Decoding random bytes never panics; encodings round-trip; serde is as strict as `from_bytes`.

use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, Proof, PublicKey, SecretKey, VoprfServer,
};
use privacy_tokens::{P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite};
use proptest::prelude::*;

fn decode_all<S: Suite>(bytes: &[u8]) {
    let _ = PublicKey::<S>::from_bytes(bytes);
    let _ = BlindedElement::<S>::from_bytes(bytes);
    let _ = EvaluationElement::<S>::from_bytes(bytes);
    let _ = Proof::<S>::from_bytes(bytes);
    let _ = SecretKey::<S>::from_bytes(bytes);
    let _ = serde_json::from_str::<Proof<S>>(&format!("\"{}\"", hex::encode(bytes)));
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        decode_all::<P256Sha256>(&bytes);
        decode_all::<P384Sha384>(&bytes);
        decode_all::<P521Sha512>(&bytes);
        decode_all::<Ristretto255Sha512>(&bytes);
    }

    #[test]
    fn random_right_length_never_panics_ristretto255_p521(tag in 0u8..8, body in proptest::collection::vec(any::<u8>(), 66)) {
        let mut b = vec![tag];
        b.extend_from_slice(&body);
        decode_all::<P521Sha512>(&b);
        decode_all::<P521Sha512>(&body);
        decode_all::<Ristretto255Sha512>(&body[..32]);
    }

    #[test]
    fn random_right_length_never_panics(tag in 0u8..8, body in proptest::collection::vec(any::<u8>(), 48)) {
        let mut b = vec![tag];
        b.extend_from_slice(&body);
        decode_all::<P384Sha384>(&b);
        decode_all::<P256Sha256>(&b[..33]);
        decode_all::<P384Sha384>(&body);
        decode_all::<P256Sha256>(&body[..32]);
    }

    #[test]
    fn secret_key_round_trip(seed in any::<[u8; 32]>()) {
        let kp = privacy_tokens::voprf::KeyPair::<P384Sha384>::derive(privacy_tokens::voprf::Mode::Voprf, &seed, b"pt").unwrap();
        let sk = SecretKey::<P384Sha384>::from_bytes(kp.secret_key().to_bytes().as_ref()).unwrap();
        prop_assert_eq!(sk.public_key(), *kp.public_key());
        let pk = PublicKey::<P384Sha384>::from_bytes(kp.public_key().to_bytes().as_ref()).unwrap();
        prop_assert_eq!(pk, *kp.public_key());
    }
}

#[test]
fn serde_round_trips_and_rejects() {
    let mut rng = rand::thread_rng();
    let server = VoprfServer::<P384Sha384>::new(&mut rng);
    let pk = *server.public_key();
    let json = serde_json::to_string(&pk).unwrap();
    assert_eq!(json.len(), 2 + 98);
    assert_eq!(
        serde_json::from_str::<PublicKey<P384Sha384>>(&json).unwrap(),
        pk
    );
    // Trailing data, identity and bad hex are refused.
    let long = format!("\"{}00\"", hex::encode(pk.to_bytes()));
    assert!(serde_json::from_str::<PublicKey<P384Sha384>>(&long).is_err());
    assert!(
        serde_json::from_str::<PublicKey<P384Sha384>>(&format!("\"{}\"", "00".repeat(49))).is_err()
    );
    assert!(serde_json::from_str::<PublicKey<P384Sha384>>("\"zz\"").is_err());
    let sk_json = serde_json::to_string(server.secret_key()).unwrap();
    let sk: SecretKey<P384Sha384> = serde_json::from_str(&sk_json).unwrap();
    assert_eq!(sk.public_key(), pk);
    assert_eq!(format!("{sk:?}"), "SecretKey(<redacted>)");
}
