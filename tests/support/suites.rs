//! Suite-generic checks of the public VOPRF API that every suite's test file runs: the
//! element decoders' errors, proof decoding, round trips of the three modes with batches, and
//! serde on keys and messages.

#![allow(dead_code)]

use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, OprfClient, OprfServer, PoprfClient, PoprfServer, Proof,
    PublicKey, SecretKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{hazmat, Error, Suite};

fn v(b: impl AsRef<[u8]>) -> Vec<u8> {
    b.as_ref().to_vec()
}

/// Every element decoder of suite `S` gives `want` for `bytes`.
pub fn element_error<S: Suite>(bytes: &[u8], want: Error, what: &str) {
    assert_eq!(
        PublicKey::<S>::from_bytes(bytes).err(),
        Some(want),
        "{what}"
    );
    assert_eq!(
        BlindedElement::<S>::from_bytes(bytes).err(),
        Some(want),
        "{what}"
    );
    assert_eq!(
        EvaluationElement::<S>::from_bytes(bytes).err(),
        Some(want),
        "{what}"
    );
}

/// `good || good` decodes and re-encodes; either scalar at the order, one byte short and one
/// trailing byte are refused.
pub fn proof_decoding<S: Suite>(good: &[u8], order: &[u8]) {
    let ok = [good, good].concat();
    assert!(Proof::<S>::from_bytes(&ok).is_ok());
    assert_eq!(v(Proof::<S>::from_bytes(&ok).unwrap().to_bytes()), ok);
    assert_eq!(
        Proof::<S>::from_bytes(&[order, good].concat()).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        Proof::<S>::from_bytes(&[good, order].concat()).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        Proof::<S>::from_bytes(&ok[1..]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        Proof::<S>::from_bytes(&[&ok[..], &[0]].concat()).err(),
        Some(Error::InvalidLength)
    );
}

/// OPRF, VOPRF and POPRF, one element and a batch each, agree with the server's `evaluate`;
/// a VOPRF proof under another key is refused.
pub fn round_trips<S: Suite>() {
    let mut rng = rand::rng();
    let inputs: [&[u8]; 3] = [b"first", b"second", b""];

    // OPRF, one element and a batch.
    let server = OprfServer::<S>::new(&mut rng);
    let b = OprfClient::<S>::blind(inputs[0], &mut rng).unwrap();
    let e = server.blind_evaluate(&b.message);
    let out = b.state.finalize(inputs[0], &e).unwrap();
    assert_eq!(out.len(), S::NH);
    assert_eq!(out, server.evaluate(inputs[0]).unwrap());
    assert!(server.verify_output(inputs[0], &out).unwrap());
    assert!(!server.verify_output(inputs[1], &out).unwrap());
    let bs: Vec<_> = inputs
        .iter()
        .map(|i| OprfClient::<S>::blind(i, &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = bs.iter().map(|b| b.message).collect();
    let evs = server.blind_evaluate_batch(&msgs).unwrap();
    for ((b, e), i) in bs.into_iter().zip(&evs).zip(inputs) {
        assert_eq!(b.state.finalize(i, e).unwrap(), server.evaluate(i).unwrap());
    }

    // VOPRF, one element and a batch; a proof under another key is refused.
    let server = VoprfServer::<S>::new(&mut rng);
    let other = VoprfServer::<S>::new(&mut rng);
    let b = VoprfClient::<S>::blind(inputs[0], &mut rng).unwrap();
    let ev = server.blind_evaluate(&mut rng, &b.message).unwrap();
    let b2 = hazmat::voprf_blind_with::<S>(inputs[0], &[]).err();
    assert_eq!(b2, Some(Error::InvalidLength));
    assert_eq!(
        b.state
            .finalize(inputs[0], &ev.message, &ev.proof, server.public_key())
            .unwrap(),
        server.evaluate(inputs[0]).unwrap()
    );
    let clients: Vec<_> = inputs
        .iter()
        .map(|i| VoprfClient::<S>::blind(i, &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = clients.iter().map(|c| c.message).collect();
    let batch = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
    let again: Vec<_> = clients.iter().map(|c| c.state.blinded_element()).collect();
    assert_eq!(again, msgs);
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
    let refused: Vec<_> = inputs
        .iter()
        .map(|i| VoprfClient::<S>::blind(i, &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = refused.iter().map(|c| c.message).collect();
    let batch = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
    let states: Vec<_> = refused.into_iter().map(|c| c.state).collect();
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

    // POPRF, one element and a batch.
    let info = b"public info";
    let server = PoprfServer::<S>::new(&mut rng);
    let b = PoprfClient::<S>::blind(inputs[0], info, server.public_key(), &mut rng).unwrap();
    let ev = server.blind_evaluate(&mut rng, &b.message, info).unwrap();
    assert_eq!(
        b.state
            .finalize(inputs[0], info, &ev.message, &ev.proof)
            .unwrap(),
        server.evaluate(inputs[0], info).unwrap()
    );
    let clients: Vec<_> = inputs
        .iter()
        .map(|i| PoprfClient::<S>::blind(i, info, server.public_key(), &mut rng).unwrap())
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

/// Keys, messages and proofs through serde_json: lengths (`ne`, `ns` bytes as hex), round trips,
/// refusals of a trailing byte, the identity and a zero key, and a redacted secret key.
pub fn serde_round_trips<S: Suite>(ne: usize, ns: usize) {
    let mut rng = rand::rng();
    let server = VoprfServer::<S>::new(&mut rng);
    let pk = *server.public_key();
    let json = serde_json::to_string(&pk).unwrap();
    assert_eq!(json.len(), 2 + 2 * ne);
    assert_eq!(serde_json::from_str::<PublicKey<S>>(&json).unwrap(), pk);
    let long = format!("\"{}00\"", hex::encode(pk.to_bytes()));
    assert!(serde_json::from_str::<PublicKey<S>>(&long).is_err());
    let identity = format!("\"{}\"", "00".repeat(ne));
    assert!(serde_json::from_str::<PublicKey<S>>(&identity).is_err());

    let sk_json = serde_json::to_string(server.secret_key()).unwrap();
    assert_eq!(sk_json.len(), 2 + 2 * ns);
    let sk: SecretKey<S> = serde_json::from_str(&sk_json).unwrap();
    assert_eq!(sk.public_key(), pk);
    assert_eq!(format!("{sk:?}"), "SecretKey(<redacted>)");
    let zero = format!("\"{}\"", "00".repeat(ns));
    assert!(serde_json::from_str::<SecretKey<S>>(&zero).is_err());

    let b = VoprfClient::<S>::blind(b"serde", &mut rng).unwrap();
    let ev = server.blind_evaluate(&mut rng, &b.message).unwrap();
    let m: BlindedElement<S> =
        serde_json::from_str(&serde_json::to_string(&b.message).unwrap()).unwrap();
    assert_eq!(m, b.message);
    let e: EvaluationElement<S> =
        serde_json::from_str(&serde_json::to_string(&ev.message).unwrap()).unwrap();
    assert_eq!(e, ev.message);
    let proof_json = serde_json::to_string(&ev.proof).unwrap();
    assert_eq!(proof_json.len(), 2 + 4 * ns);
    let p: Proof<S> = serde_json::from_str(&proof_json).unwrap();
    assert_eq!(p, ev.proof);
    assert_eq!(
        b.state
            .finalize(b"serde", &e, &p, &serde_json::from_str(&json).unwrap())
            .unwrap(),
        server.evaluate(b"serde").unwrap()
    );
}
