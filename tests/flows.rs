//! End-to-end flows of every mode and suite, single and batched.

use privacy_tokens::voprf::{
    OprfClient, OprfServer, PoprfClient, PoprfServer, VoprfClient, VoprfServer,
};
use privacy_tokens::{Error, P256Sha256, P384Sha384, Suite};

fn flows<S: Suite>() {
    let mut rng = rand::rng();
    // OPRF
    let server = OprfServer::<S>::new(&mut rng);
    let b = OprfClient::<S>::blind(b"in", &mut rng).unwrap();
    let e = server.blind_evaluate(&b.message);
    assert_eq!(
        b.state.finalize(b"in", &e).unwrap(),
        server.evaluate(b"in").unwrap()
    );

    // VOPRF single and batched
    let server = VoprfServer::<S>::new(&mut rng);
    for n in [1usize, 2, 10] {
        let inputs: Vec<Vec<u8>> = (0..n).map(|i| format!("input {i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let blinds: Vec<_> = refs
            .iter()
            .map(|i| VoprfClient::<S>::blind(i, &mut rng).unwrap())
            .collect();
        let msgs: Vec<_> = blinds.iter().map(|b| b.message).collect();
        let ev = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
        let states = blinds.into_iter().map(|b| b.state).collect();
        let outs = VoprfClient::finalize_batch(
            states,
            &refs,
            &ev.messages,
            &ev.proof,
            server.public_key(),
        )
        .unwrap();
        assert_eq!(outs.len(), n);
        for (o, i) in outs.iter().zip(&refs) {
            assert_eq!(*o, server.evaluate(i).unwrap());
            assert!(server.verify_output(i, o).unwrap());
        }
    }

    // POPRF single and batched; another info gives another output.
    let server = PoprfServer::<S>::new(&mut rng);
    let b = PoprfClient::<S>::blind(b"in", b"info", server.public_key(), &mut rng).unwrap();
    let e = server
        .blind_evaluate(&mut rng, &b.message, b"info")
        .unwrap();
    let out = b
        .state
        .finalize(b"in", b"info", &e.message, &e.proof)
        .unwrap();
    assert_eq!(out, server.evaluate(b"in", b"info").unwrap());
    assert_ne!(out, server.evaluate(b"in", b"other").unwrap());
    assert!(server.verify_output(b"in", b"info", &out).unwrap());
    assert!(!server.verify_output(b"in", b"other", &out).unwrap());
    let b = PoprfClient::<S>::blind(b"in", b"info", server.public_key(), &mut rng).unwrap();
    let e = server
        .blind_evaluate(&mut rng, &b.message, b"other")
        .unwrap();
    assert_eq!(
        b.state.finalize(b"in", b"info", &e.message, &e.proof),
        Err(Error::InvalidProof)
    );
    let bs: Vec<_> = (0..5)
        .map(|_| PoprfClient::<S>::blind(b"x", b"i", server.public_key(), &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = bs.iter().map(|b| b.message).collect();
    let ev = server.blind_evaluate_batch(&mut rng, &msgs, b"i").unwrap();
    let inputs = [b"x".as_slice(); 5];
    let outs = PoprfClient::finalize_batch(
        bs.into_iter().map(|b| b.state).collect(),
        &inputs,
        b"i",
        &ev.messages,
        &ev.proof,
    )
    .unwrap();
    assert_eq!(outs.len(), 5);
    assert!(outs
        .iter()
        .all(|o| *o == server.evaluate(b"x", b"i").unwrap()));
}

/// Every batch comes back whole (one output per element), and a batch whose lengths differ
/// or that is empty is refused before any work.
fn batch_lengths<S: Suite>() {
    let mut rng = rand::rng();
    let server = OprfServer::<S>::new(&mut rng);
    let bs: Vec<_> = (0..3)
        .map(|i| OprfClient::<S>::blind(&[i], &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = bs.iter().map(|b| b.message).collect();
    let ev = server.blind_evaluate_batch(&msgs).unwrap();
    assert_eq!(ev.len(), 3);
    for (i, (b, e)) in bs.into_iter().zip(&ev).enumerate() {
        let input = [i as u8];
        assert_eq!(
            b.state.finalize(&input, e).unwrap(),
            server.evaluate(&input).unwrap()
        );
    }
    assert_eq!(server.blind_evaluate_batch(&[]), Err(Error::Batch));

    let server = VoprfServer::<S>::new(&mut rng);
    let bs: Vec<_> = (0..2)
        .map(|_| VoprfClient::<S>::blind(b"in", &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = bs.iter().map(|b| b.message).collect();
    let ev = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
    assert_eq!(ev.messages.len(), 2);
    let states: Vec<_> = bs.into_iter().map(|b| b.state).collect();
    assert_eq!(
        VoprfClient::finalize_batch(
            states,
            &[b"in", b"in", b"in"],
            &ev.messages,
            &ev.proof,
            server.public_key(),
        ),
        Err(Error::Batch)
    );
    assert!(server.blind_evaluate_batch(&mut rng, &[]).is_err());
}

#[test]
fn batches_come_back_whole_and_bad_lengths_are_refused() {
    batch_lengths::<P256Sha256>();
    batch_lengths::<P384Sha384>();
}

#[test]
fn flows_p256() {
    flows::<P256Sha256>();
}

#[test]
fn flows_p384() {
    flows::<P384Sha384>();
}

/// `Debug` shows a public value as its name and its wire bytes in hex, and a secret as its
/// name and `<redacted>` with none of its bytes.
fn debug_output<S: Suite>() {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut rng = rand::rng();
    let server = VoprfServer::<S>::new(&mut rng);
    let pk = server.public_key();
    assert_eq!(
        format!("{pk:?}"),
        format!("PublicKey({})", hex(pk.to_bytes().as_ref()))
    );
    let b = VoprfClient::<S>::blind(b"in", &mut rng).unwrap();
    assert_eq!(
        format!("{:?}", b.message),
        format!("BlindedElement({})", hex(b.message.to_bytes().as_ref()))
    );
    assert_eq!(
        format!("{:?}", b.state),
        "VoprfClient { inner: ClientState(<redacted>) }"
    );
    let ev = server.blind_evaluate(&mut rng, &b.message).unwrap();
    assert_eq!(
        format!("{:?}", ev.message),
        format!("EvaluationElement({})", hex(ev.message.to_bytes().as_ref()))
    );
    assert_eq!(
        format!("{:?}", ev.proof),
        format!("Proof({})", hex(ev.proof.to_bytes().as_ref()))
    );
    let sk = server.secret_key();
    let shown = format!("{sk:?}");
    assert_eq!(shown, "SecretKey(<redacted>)");
}

#[test]
fn debug_shows_public_bytes_and_redacts_secrets() {
    debug_output::<P256Sha256>();
    debug_output::<P384Sha384>();
}
