//! Review follow-ups on RFC 9497: POPRF `finalize` is bound to the `info` of `blind` (finding
//! 14), and every batch and length limit is checked with a typed error before any work starts
//! (no randomness drawn, no inversion, no evaluation).

#[path = "support/counting_rng.rs"]
mod counting_rng;

use counting_rng::CountingRng;
use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, OprfClient, OprfServer, PoprfClient, PoprfServer,
    VoprfClient, VoprfServer,
};
use privacy_tokens::{Error, P256Sha256, P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// One byte over the 2-byte length prefix of inputs and infos.
const TOO_LONG: usize = 65536;

// ---------------------------------------------------------------------------------------------
// Finding 14: POPRF finalize is bound to the info used at blind

fn poprf_info_binding<S: Suite>() {
    let mut rng = StdRng::seed_from_u64(14);
    let server = PoprfServer::<S>::new(&mut rng);
    let input = b"input";
    for batched in [false, true] {
        let bl =
            PoprfClient::<S>::blind(input, b"A", server.public_key(), &mut rng).expect("blind");
        let ev = server
            .blind_evaluate(&mut rng, &bl.message, b"A")
            .expect("blind_evaluate");
        let wrong = if batched {
            PoprfClient::finalize_batch(vec![bl.state], &[input], b"B", &[ev.message], &ev.proof)
                .map(drop)
        } else {
            bl.state
                .finalize(input, b"B", &ev.message, &ev.proof)
                .map(drop)
        };
        assert_eq!(wrong, Err(Error::InfoMismatch), "batched: {batched}");

        let bl =
            PoprfClient::<S>::blind(input, b"A", server.public_key(), &mut rng).expect("blind");
        let ev = server
            .blind_evaluate(&mut rng, &bl.message, b"A")
            .expect("blind_evaluate");
        let out = if batched {
            PoprfClient::finalize_batch(vec![bl.state], &[input], b"A", &[ev.message], &ev.proof)
                .expect("finalize_batch")
                .remove(0)
        } else {
            bl.state
                .finalize(input, b"A", &ev.message, &ev.proof)
                .expect("finalize")
        };
        assert_eq!(out, server.evaluate(input, b"A").expect("evaluate"));
    }

    // A batch with one state blinded under another info is refused as a whole.
    let a = PoprfClient::<S>::blind(b"x", b"A", server.public_key(), &mut rng).expect("blind");
    let b = PoprfClient::<S>::blind(b"y", b"B", server.public_key(), &mut rng).expect("blind");
    let ev = server
        .blind_evaluate_batch(&mut rng, &[a.message, a.message], b"A")
        .expect("blind_evaluate_batch");
    assert_eq!(
        PoprfClient::finalize_batch(
            vec![a.state, b.state],
            &[b"x", b"y"],
            b"A",
            &ev.messages,
            &ev.proof
        )
        .map(drop),
        Err(Error::InfoMismatch)
    );
}

#[test]
fn p256_poprf_finalize_is_bound_to_blind_info() {
    poprf_info_binding::<P256Sha256>();
}

#[test]
fn p384_poprf_finalize_is_bound_to_blind_info() {
    poprf_info_binding::<P384Sha384>();
}

// ---------------------------------------------------------------------------------------------
// Limits, each checked before any work

fn blinded<S: Suite>(rng: &mut CountingRng) -> BlindedElement<S> {
    VoprfClient::<S>::blind(b"limit", rng)
        .expect("blind")
        .message
}

fn blind_input_limits<S: Suite>() {
    let mut rng = CountingRng::new(1);
    let server = PoprfServer::<S>::new(&mut rng);
    let long = vec![0u8; TOO_LONG];
    let max = vec![0u8; TOO_LONG - 1];
    let before = rng.drawn;
    assert_eq!(
        OprfClient::<S>::blind(&long, &mut rng).map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        VoprfClient::<S>::blind(&long, &mut rng).map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        PoprfClient::<S>::blind(&long, b"info", server.public_key(), &mut rng).map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        PoprfClient::<S>::blind(b"input", &long, server.public_key(), &mut rng).map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(rng.drawn, before, "a blind was drawn for a refused input");
    // 65535 bytes is the largest input and info.
    assert!(VoprfClient::<S>::blind(&max, &mut rng).is_ok());
    assert!(PoprfClient::<S>::blind(&max, &max, server.public_key(), &mut rng).is_ok());
}

#[test]
fn p256_blind_refuses_long_inputs_before_drawing() {
    blind_input_limits::<P256Sha256>();
}

#[test]
fn p384_blind_refuses_long_inputs_before_drawing() {
    blind_input_limits::<P384Sha384>();
}

fn server_batch_limits<S: Suite>() {
    let mut rng = CountingRng::new(2);
    let voprf = VoprfServer::<S>::new(&mut rng);
    let poprf = PoprfServer::<S>::new(&mut rng);
    let oprf = OprfServer::<S>::new(&mut rng);
    let b = blinded::<S>(&mut rng);
    // On the heap: 65536 elements would overflow the stack as an array.
    let over: Vec<_> = core::iter::repeat_n(b, 65536).collect();
    let ident = EvaluationElement::<S>::from_bytes(b.to_bytes().as_ref()).expect("a point");
    let before = rng.drawn;

    for batch in [&[][..], &over[..]] {
        assert_eq!(
            voprf.blind_evaluate_batch(&mut rng, batch).map(drop),
            Err(Error::Batch)
        );
        let mut out = vec![ident; batch.len()];
        assert_eq!(
            voprf
                .blind_evaluate_batch_into(&mut rng, batch, &mut out)
                .map(drop),
            Err(Error::Batch)
        );
        assert_eq!(
            poprf
                .blind_evaluate_batch(&mut rng, batch, b"info")
                .map(drop),
            Err(Error::Batch)
        );
        assert_eq!(
            oprf.blind_evaluate_batch(batch).map(drop),
            Err(Error::Batch)
        );
    }
    // `out` of another length than the batch.
    let mut out = vec![ident; 2];
    assert_eq!(
        voprf
            .blind_evaluate_batch_into(&mut rng, &[b, b, b], &mut out)
            .map(drop),
        Err(Error::Batch)
    );
    // POPRF info over 65535 bytes, single and batched.
    let long = vec![0u8; TOO_LONG];
    assert_eq!(
        poprf.blind_evaluate(&mut rng, &b, &long).map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        poprf
            .blind_evaluate_batch(&mut rng, &[b, b], &long)
            .map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        rng.drawn, before,
        "a proof nonce was drawn for a refused batch"
    );
}

#[test]
fn p256_server_batch_limits_checked_before_drawing() {
    server_batch_limits::<P256Sha256>();
}

#[test]
fn p384_server_batch_limits_checked_before_drawing() {
    server_batch_limits::<P384Sha384>();
}

fn evaluate_and_finalize_limits<S: Suite>() {
    let mut rng = CountingRng::new(3);
    let long = vec![0u8; TOO_LONG];
    let oprf = OprfServer::<S>::new(&mut rng);
    let voprf = VoprfServer::<S>::new(&mut rng);
    let poprf = PoprfServer::<S>::new(&mut rng);
    assert_eq!(oprf.evaluate(&long).map(drop), Err(Error::InputTooLong));
    assert_eq!(voprf.evaluate(&long).map(drop), Err(Error::InputTooLong));
    assert_eq!(
        poprf.evaluate(&long, b"info").map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        poprf.evaluate(b"input", &long).map(drop),
        Err(Error::InputTooLong)
    );

    // OPRF.
    let bl = OprfClient::<S>::blind(b"x", &mut rng).expect("blind");
    let ev = oprf.blind_evaluate(&bl.message);
    assert_eq!(
        bl.state.finalize(&long, &ev).map(drop),
        Err(Error::InputTooLong)
    );

    // VOPRF, single and batched; mismatched batch lengths.
    let bl = VoprfClient::<S>::blind(b"x", &mut rng).expect("blind");
    let ev = voprf.blind_evaluate(&mut rng, &bl.message).expect("eval");
    assert_eq!(
        bl.state
            .finalize(&long, &ev.message, &ev.proof, voprf.public_key())
            .map(drop),
        Err(Error::InputTooLong)
    );
    let mut two_states = || -> Vec<VoprfClient<S>> {
        (0..2)
            .map(|_| {
                VoprfClient::<S>::blind(b"x", &mut rng)
                    .expect("blind")
                    .state
            })
            .collect()
    };
    let states = two_states();
    assert_eq!(
        VoprfClient::finalize_batch(
            states,
            &[b"x"],
            &[ev.message, ev.message],
            &ev.proof,
            voprf.public_key()
        )
        .map(drop),
        Err(Error::Batch)
    );
    let states = two_states();
    assert_eq!(
        VoprfClient::finalize_batch(
            states,
            &[b"x", &long],
            &[ev.message, ev.message],
            &ev.proof,
            voprf.public_key()
        )
        .map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        VoprfClient::<S>::finalize_batch(vec![], &[], &[], &ev.proof, voprf.public_key()).map(drop),
        Err(Error::Batch)
    );

    // POPRF: input or info too long, mismatched lengths.
    let pk = *poprf.public_key();
    let bl = PoprfClient::<S>::blind(b"x", b"i", &pk, &mut rng).expect("blind");
    let ev = poprf
        .blind_evaluate(&mut rng, &bl.message, b"i")
        .expect("eval");
    assert_eq!(
        bl.state
            .finalize(&long, b"i", &ev.message, &ev.proof)
            .map(drop),
        Err(Error::InputTooLong)
    );
    let bl = PoprfClient::<S>::blind(b"x", b"i", &pk, &mut rng).expect("blind");
    assert_eq!(
        bl.state
            .finalize(b"x", &long, &ev.message, &ev.proof)
            .map(drop),
        Err(Error::InputTooLong)
    );
    let bl = PoprfClient::<S>::blind(b"x", b"i", &pk, &mut rng).expect("blind");
    assert_eq!(
        PoprfClient::finalize_batch(vec![bl.state], &[b"x"], b"i", &[], &ev.proof).map(drop),
        Err(Error::Batch)
    );
}

#[test]
fn p256_evaluate_and_finalize_limits() {
    evaluate_and_finalize_limits::<P256Sha256>();
}

#[test]
fn p384_evaluate_and_finalize_limits() {
    evaluate_and_finalize_limits::<P384Sha384>();
}

/// With the inversion counter: a refused input costs no field inversion (the OPRF client used to
/// unblind, and convert to affine, before checking the input length).
#[cfg(feature = "inversion-counter")]
#[test]
fn oprf_finalize_refuses_long_input_before_unblinding() {
    use privacy_tokens::group::inversion_count;
    let mut rng = CountingRng::new(4);
    let server = OprfServer::<P384Sha384>::new(&mut rng);
    let bl = OprfClient::<P384Sha384>::blind(b"x", &mut rng).expect("blind");
    let ev = server.blind_evaluate(&bl.message);
    let long = vec![0u8; TOO_LONG];
    let before = inversion_count();
    assert_eq!(
        bl.state.finalize(&long, &ev).map(drop),
        Err(Error::InputTooLong)
    );
    assert_eq!(
        inversion_count(),
        before,
        "work done before the length check"
    );
}
