//! VOPRF (RFC 9497) targets: every decoder of both suites, and the clients' finalize on random
//! evaluation bytes.

use privacy_tokens::dleq::DleqProof;
use privacy_tokens::group::{self, Curve, PrimeGroup};
use privacy_tokens::hazmat;
use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, Mode, Proof, PublicKey, SecretKey, VoprfClient,
};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};

use crate::fixtures::{blind, HasVoprfFix, INFO, INPUT};
use crate::{adapt, roundtrip, split};

fn decode<S: Suite<Group: Curve>>(kind: u8, data: &[u8]) {
    match kind % 9 {
        0 => drop(roundtrip(data, PublicKey::<S>::from_bytes, |v| {
            v.to_bytes()
        })),
        1 => drop(roundtrip(data, SecretKey::<S>::from_bytes, |v| {
            v.to_bytes().as_ref().to_vec()
        })),
        2 => drop(roundtrip(data, BlindedElement::<S>::from_bytes, |v| {
            v.to_bytes()
        })),
        3 => drop(roundtrip(data, EvaluationElement::<S>::from_bytes, |v| {
            v.to_bytes()
        })),
        4 => drop(roundtrip(data, Proof::<S>::from_bytes, |v| v.to_bytes())),
        5 => drop(roundtrip(data, DleqProof::<S::Group>::from_bytes, |v| {
            v.to_bytes()
        })),
        6 => drop(roundtrip(data, group::decode_scalar::<S::Group>, |s| {
            S::Group::scalar_bytes(s)
        })),
        7 => drop(roundtrip(data, S::Group::decode_uncompressed, |p| {
            S::Group::encode_uncompressed(p)
        })),
        _ => {
            if let Some(s) = roundtrip(data, group::decode_nonzero_scalar::<S::Group>, |s| {
                S::Group::scalar_bytes(s)
            }) {
                assert!(!bool::from(elliptic_curve::Field::is_zero(&s)));
            }
            let _ = Mode::from_u8(data.first().copied().unwrap_or(0));
        }
    }
}

/// `voprf_decode`: selector bit 0 picks the suite, the rest the decoder.
pub fn decode_target(data: &[u8]) {
    let Some((sel, rest)) = split(data) else {
        return;
    };
    if sel & 1 == 0 {
        decode::<P256Sha256>(sel >> 1, rest);
    } else {
        decode::<P384Sha384>(sel >> 1, rest);
    }
}

/// Splits `Ne`-byte elements and a proof off `data`.
fn elements_and_proof<S: Suite>(
    data: &[u8],
    n: usize,
) -> Option<(Vec<EvaluationElement<S>>, Option<Proof<S>>)> {
    let ne = <S::Group as PrimeGroup>::NE;
    let (elems, proof) = data.split_at_checked(n * ne)?;
    let elems = elems
        .chunks_exact(ne)
        .map(EvaluationElement::<S>::from_bytes)
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    Some((elems, Proof::<S>::from_bytes(proof).ok()))
}

fn finalize<S: HasVoprfFix>(mode: u8, data: &[u8]) {
    let fix = S::fix();
    let b = blind::<S>();
    match mode % 4 {
        0 => {
            let Some((e, _)) = elements_and_proof::<S>(data, 1) else {
                return;
            };
            let c = hazmat::oprf_blind_with::<S>(INPUT, &b)
                .expect("blind")
                .state;
            let _ = c.finalize(INPUT, &e[0]);
        }
        1 => {
            let Some((e, Some(proof))) = elements_and_proof::<S>(data, 1) else {
                return;
            };
            let c = hazmat::voprf_blind_with::<S>(INPUT, &b)
                .expect("blind")
                .state;
            if let Ok(out) = c.finalize(INPUT, &e[0], &proof, fix.voprf.public_key()) {
                // A proof that verifies binds the element to the key: the output is the PRF's.
                assert_eq!(out, fix.voprf.evaluate(INPUT).expect("evaluate"));
            }
        }
        2 => {
            let Some((e, Some(proof))) = elements_and_proof::<S>(data, 1) else {
                return;
            };
            let pk = fix.poprf.public_key();
            let c = hazmat::poprf_blind_with::<S>(INPUT, INFO, pk, &b)
                .expect("blind")
                .state;
            if let Ok(out) = adapt::poprf_finalize(c, INPUT, INFO, &e[0], &proof) {
                assert_eq!(out, fix.poprf.evaluate(INPUT, INFO).expect("evaluate"));
            }
            // Any other `info` than the blind's is refused, whatever the element and proof.
            let c = hazmat::poprf_blind_with::<S>(INPUT, INFO, pk, &b)
                .expect("blind")
                .state;
            assert_eq!(
                adapt::poprf_finalize(c, INPUT, b"other info", &e[0], &proof),
                Err(privacy_tokens::Error::InfoMismatch),
                "POPRF finalize accepts another info"
            );
        }
        _ => {
            let Some((e, Some(proof))) = elements_and_proof::<S>(data, 2) else {
                return;
            };
            let clients: Vec<VoprfClient<S>> = [INPUT, INFO]
                .iter()
                .map(|i| hazmat::voprf_blind_with::<S>(i, &b).expect("blind").state)
                .collect();
            let pk = fix.voprf.public_key();
            if let Ok(out) = VoprfClient::finalize_batch(clients, &[INPUT, INFO], &e, &proof, pk) {
                assert_eq!(out[0], fix.voprf.evaluate(INPUT).expect("evaluate"));
                assert_eq!(out[1], fix.voprf.evaluate(INFO).expect("evaluate"));
            }
        }
    }
}

/// `voprf_finalize`: selector bit 0 picks the suite, bits 1-2 the mode (OPRF, VOPRF, POPRF,
/// batched VOPRF of two); the rest is `element(s) || proof`.
pub fn finalize_target(data: &[u8]) {
    let Some((sel, rest)) = split(data) else {
        return;
    };
    if sel & 1 == 0 {
        finalize::<P256Sha256>(sel >> 1, rest);
    } else {
        finalize::<P384Sha384>(sel >> 1, rest);
    }
}

/// Valid `voprf_finalize` inputs: the fixture servers' answers to the fixed blinded inputs.
pub fn finalize_seeds<S: HasVoprfFix>(suite_bit: u8) -> Vec<Vec<u8>> {
    let fix = S::fix();
    let b = blind::<S>();
    let mut rng = crate::rng(9);
    let mut out = Vec::new();
    let o = hazmat::oprf_blind_with::<S>(INPUT, &b)
        .expect("blind")
        .message;
    let mut s = vec![suite_bit];
    s.extend_from_slice(fix.oprf.blind_evaluate(&o).to_bytes().as_ref());
    out.push(s);
    let v = hazmat::voprf_blind_with::<S>(INPUT, &b)
        .expect("blind")
        .message;
    let e = fix.voprf.blind_evaluate(&mut rng, &v).expect("evaluate");
    let mut s = vec![suite_bit | 2];
    s.extend_from_slice(e.message.to_bytes().as_ref());
    s.extend_from_slice(e.proof.to_bytes().as_ref());
    out.push(s);
    let pk = fix.poprf.public_key();
    let p = hazmat::poprf_blind_with::<S>(INPUT, INFO, pk, &b)
        .expect("blind")
        .message;
    let e = fix
        .poprf
        .blind_evaluate(&mut rng, &p, INFO)
        .expect("evaluate");
    let mut s = vec![suite_bit | 4];
    s.extend_from_slice(e.message.to_bytes().as_ref());
    s.extend_from_slice(e.proof.to_bytes().as_ref());
    out.push(s);
    let blinded: Vec<_> = [INPUT, INFO]
        .iter()
        .map(|i| hazmat::voprf_blind_with::<S>(i, &b).expect("blind").message)
        .collect();
    let e = fix
        .voprf
        .blind_evaluate_batch(&mut rng, &blinded)
        .expect("evaluate");
    let mut s = vec![suite_bit | 6];
    for m in &e.messages {
        s.extend_from_slice(m.to_bytes().as_ref());
    }
    s.extend_from_slice(e.proof.to_bytes().as_ref());
    out.push(s);
    out
}
