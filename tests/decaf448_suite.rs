//! The decaf448-SHAKE256 suite through the public API: strict decoders of every wire type
//! (RFC 9496 Appendix B.2 invalid encodings, the identity, wrong lengths, scalars at and above
//! the order, big-endian misreadings), round trips of the three modes with batches, and serde
//! on keys and messages. The RFC 9497 vectors of the suite run in `tests/vectors.rs`; the group
//! layer's own vectors in `tests/decaf448.rs`.

use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, OprfClient, OprfServer, PoprfClient, PoprfServer, Proof,
    PublicKey, SecretKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{hazmat, Decaf448Shake256, Error, Suite};
use serde_json::Value;

type D = Decaf448Shake256;

/// The decaf448 generator (RFC 9496 Appendix B.1, `1 * B`).
const GENERATOR: &str = "6666666666666666666666666666666666666666666666666666666633333333333333333333333333333333333333333333333333333333";

/// The decaf448 order, little-endian (RFC 9497 §4.2: `2^446 - 13818066809895115352007386748515426880336692474882178609894547503885`).
fn order_le() -> Vec<u8> {
    let mut be = hex::decode(
        "3fffffffffffffffffffffffffffffffffffffffffffffffffffffff7cca23e9c44edb49aed63690216cc2728dc58f552378c292ab5844f3",
    )
    .unwrap();
    be.reverse();
    be
}

fn element_error(bytes: &[u8], want: Error, what: &str) {
    assert_eq!(
        PublicKey::<D>::from_bytes(bytes).err(),
        Some(want),
        "{what}"
    );
    assert_eq!(
        BlindedElement::<D>::from_bytes(bytes).err(),
        Some(want),
        "{what}"
    );
    assert_eq!(
        EvaluationElement::<D>::from_bytes(bytes).err(),
        Some(want),
        "{what}"
    );
}

#[test]
fn decoders_reject_rfc9496_invalid_encodings_identity_and_lengths() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors/rfc9496-decaf448.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut n = 0;
    for (why, list) in json["invalid_encodings"].as_object().unwrap() {
        for e in list.as_array().unwrap() {
            let e = e.as_str().unwrap();
            element_error(
                &hex::decode(e).unwrap(),
                Error::InvalidPoint,
                &format!("{why}: {e}"),
            );
            n += 1;
        }
    }
    assert_eq!(n, 21);
    // Every multiple of B.1 but the identity is a valid wire element and re-encodes to itself.
    let multiples = json["multiples_of_generator"].as_array().unwrap();
    for m in &multiples[1..] {
        let b = hex::decode(m.as_str().unwrap()).unwrap();
        assert_eq!(
            PublicKey::<D>::from_bytes(&b).unwrap().to_bytes()[..],
            b[..]
        );
        assert_eq!(
            BlindedElement::<D>::from_bytes(&b).unwrap().to_bytes()[..],
            b[..]
        );
    }
    element_error(&[0; 56], Error::IdentityElement, "identity");
    let g = hex::decode(GENERATOR).unwrap();
    element_error(&g[..55], Error::InvalidLength, "55 bytes");
    element_error(&[&g[..], &[0]].concat(), Error::InvalidLength, "57 bytes");
    element_error(&[], Error::InvalidLength, "empty");
    // A SEC1-style tag in front of the encoding is a wrong length, not a point.
    element_error(&[&[2u8][..], &g].concat(), Error::InvalidLength, "tagged");
}

#[test]
fn scalars_are_little_endian_and_strict() {
    let mut one = [0u8; 56];
    one[0] = 1;
    let sk = SecretKey::<D>::from_bytes(&one).unwrap();
    assert_eq!(
        sk.public_key().to_bytes()[..],
        hex::decode(GENERATOR).unwrap()[..]
    );
    assert_eq!(sk.to_bytes()[..], one[..]);
    let l = order_le();
    let mut l_minus_1 = l.clone();
    l_minus_1[0] -= 1;
    let mut l_plus_1 = l.clone();
    l_plus_1[0] += 1;
    let mut top = vec![0u8; 56];
    top[55] = 0x40;
    assert!(SecretKey::<D>::from_bytes(&l_minus_1).is_ok());
    for bad in [&l, &l_plus_1, &top, &vec![0xff; 56]] {
        assert_eq!(
            SecretKey::<D>::from_bytes(bad).err(),
            Some(Error::NonCanonicalScalar)
        );
        assert_eq!(
            hazmat::voprf_blind_with::<D>(b"x", bad).err(),
            Some(Error::NonCanonicalScalar)
        );
    }
    // The big-endian reading of 1 is 2^440, a canonical scalar: another key than 1.
    let mut be_one = [0u8; 56];
    be_one[55] = 1;
    assert_ne!(
        SecretKey::<D>::from_bytes(&be_one).unwrap().public_key(),
        sk.public_key()
    );
    let reversed: Vec<u8> = l_minus_1.iter().rev().copied().collect();
    assert_eq!(
        SecretKey::<D>::from_bytes(&reversed).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        SecretKey::<D>::from_bytes(&[0; 56]).err(),
        Some(Error::ZeroScalar)
    );
    assert_eq!(
        SecretKey::<D>::from_bytes(&one[..55]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        SecretKey::<D>::from_bytes(&[1; 57]).err(),
        Some(Error::InvalidLength)
    );
    // Proofs: 112 bytes, both halves below the order.
    let ok = [&l_minus_1[..], &l_minus_1].concat();
    assert_eq!(Proof::<D>::from_bytes(&ok).unwrap().to_bytes()[..], ok[..]);
    assert_eq!(
        Proof::<D>::from_bytes(&[&l[..], &l_minus_1].concat()).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        Proof::<D>::from_bytes(&[&l_minus_1[..], &l].concat()).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        Proof::<D>::from_bytes(&ok[1..]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        Proof::<D>::from_bytes(&[&ok[..], &[0]].concat()).err(),
        Some(Error::InvalidLength)
    );
}

#[test]
fn suite_constants() {
    assert_eq!(D::ID, b"decaf448-SHAKE256");
    assert_eq!(D::NH, 64);
    assert_eq!(hazmat::element_len::<D>(), 56);
}

#[test]
fn round_trips_in_all_modes() {
    let mut rng = rand::thread_rng();
    let inputs: [&[u8]; 3] = [b"first", b"second", b""];

    let server = OprfServer::<D>::new(&mut rng);
    let b = OprfClient::<D>::blind(inputs[0], &mut rng).unwrap();
    let e = server.blind_evaluate(&b.message);
    let out = b.state.finalize(inputs[0], &e).unwrap();
    assert_eq!(out.len(), 64);
    assert_eq!(out, server.evaluate(inputs[0]).unwrap());
    assert!(server.verify_output(inputs[0], &out).unwrap());
    assert!(!server.verify_output(inputs[1], &out).unwrap());

    let server = VoprfServer::<D>::new(&mut rng);
    let other = VoprfServer::<D>::new(&mut rng);
    let b = VoprfClient::<D>::blind(inputs[0], &mut rng).unwrap();
    let ev = server.blind_evaluate(&mut rng, &b.message).unwrap();
    assert_eq!(
        b.state
            .finalize(inputs[0], &ev.message, &ev.proof, server.public_key())
            .unwrap(),
        server.evaluate(inputs[0]).unwrap()
    );
    let clients: Vec<_> = inputs
        .iter()
        .map(|i| VoprfClient::<D>::blind(i, &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = clients.iter().map(|c| c.message).collect();
    let batch = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
    let states: Vec<_> = clients.into_iter().map(|c| c.state).collect();
    let outs = VoprfClient::finalize_batch(
        states,
        &inputs,
        &batch.messages,
        &batch.proof,
        server.public_key(),
    )
    .unwrap();
    for (o, i) in outs.iter().zip(inputs) {
        assert_eq!(*o, server.evaluate(i).unwrap());
    }
    let clients: Vec<_> = inputs
        .iter()
        .map(|i| VoprfClient::<D>::blind(i, &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = clients.iter().map(|c| c.message).collect();
    let batch = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
    let states: Vec<_> = clients.into_iter().map(|c| c.state).collect();
    assert_eq!(
        VoprfClient::finalize_batch(
            states,
            &inputs,
            &batch.messages,
            &batch.proof,
            other.public_key()
        )
        .err(),
        Some(Error::InvalidProof)
    );

    let info = b"public info";
    let server = PoprfServer::<D>::new(&mut rng);
    let b = PoprfClient::<D>::blind(inputs[0], info, server.public_key(), &mut rng).unwrap();
    let ev = server.blind_evaluate(&mut rng, &b.message, info).unwrap();
    assert_eq!(
        b.state
            .finalize(inputs[0], info, &ev.message, &ev.proof)
            .unwrap(),
        server.evaluate(inputs[0], info).unwrap()
    );
    let clients: Vec<_> = inputs
        .iter()
        .map(|i| PoprfClient::<D>::blind(i, info, server.public_key(), &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = clients.iter().map(|c| c.message).collect();
    let batch = server.blind_evaluate_batch(&mut rng, &msgs, info).unwrap();
    let states: Vec<_> = clients.into_iter().map(|c| c.state).collect();
    let outs =
        PoprfClient::finalize_batch(states, &inputs, info, &batch.messages, &batch.proof).unwrap();
    for (o, i) in outs.iter().zip(inputs) {
        assert_eq!(*o, server.evaluate(i, info).unwrap());
        assert_ne!(*o, server.evaluate(i, b"other info").unwrap());
    }
}

#[test]
fn serde_round_trips() {
    let mut rng = rand::thread_rng();
    let server = VoprfServer::<D>::new(&mut rng);
    let pk = *server.public_key();
    let json = serde_json::to_string(&pk).unwrap();
    assert_eq!(json.len(), 2 + 2 * 56);
    assert_eq!(serde_json::from_str::<PublicKey<D>>(&json).unwrap(), pk);
    assert!(
        serde_json::from_str::<PublicKey<D>>(&format!("\"{}00\"", hex::encode(pk.to_bytes())))
            .is_err()
    );
    assert!(serde_json::from_str::<PublicKey<D>>(&format!("\"{}\"", "00".repeat(56))).is_err());
    let sk_json = serde_json::to_string(server.secret_key()).unwrap();
    assert_eq!(sk_json.len(), 2 + 2 * 56);
    let sk: SecretKey<D> = serde_json::from_str(&sk_json).unwrap();
    assert_eq!(sk.public_key(), pk);
    assert_eq!(format!("{sk:?}"), "SecretKey(<redacted>)");
    assert!(serde_json::from_str::<SecretKey<D>>(&format!("\"{}\"", "00".repeat(56))).is_err());
    let b = VoprfClient::<D>::blind(b"serde", &mut rng).unwrap();
    let ev = server.blind_evaluate(&mut rng, &b.message).unwrap();
    let m: BlindedElement<D> =
        serde_json::from_str(&serde_json::to_string(&b.message).unwrap()).unwrap();
    assert_eq!(m, b.message);
    let e: EvaluationElement<D> =
        serde_json::from_str(&serde_json::to_string(&ev.message).unwrap()).unwrap();
    assert_eq!(e, ev.message);
    let proof_json = serde_json::to_string(&ev.proof).unwrap();
    assert_eq!(proof_json.len(), 2 + 2 * 112);
    let p: Proof<D> = serde_json::from_str(&proof_json).unwrap();
    assert_eq!(
        b.state.finalize(b"serde", &e, &p, &pk).unwrap(),
        server.evaluate(b"serde").unwrap()
    );
}
