//! Replays RFC 9497 Appendix A vectors (and files in the same layout, such as the swift-crypto
//! edge cases with a per-vector `result`) against the crate, comparing every field.

#![allow(clippy::needless_range_loop)]

use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, KeyPair, Mode, OprfServer, PoprfClient, PoprfServer, Proof,
    VoprfClient, VoprfServer,
};
use privacy_tokens::{
    hazmat, Decaf448Shake256, Error, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite,
};
use serde_json::Value;

use super::counts::{check, hex_field, Counts};

/// Whether a JSON document has the RFC 9497 layout: an array of suite/mode objects.
pub fn recognises(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|e| {
                e.get("identifier").is_some()
                    && e.get("mode").is_some()
                    && e.get("vectors").is_some()
            })
    })
}

/// Runs every entry of the file.
pub fn run(json: &Value) -> Result<Counts, String> {
    let entries = json.as_array().ok_or("not an array")?;
    let mut counts = Counts::default();
    for entry in entries {
        let id = entry["identifier"]
            .as_str()
            .ok_or("identifier is not a string")?;
        let mode = entry["mode"].as_u64().ok_or("mode is not an integer")?;
        let nvec = entry["vectors"]
            .as_array()
            .ok_or("vectors is not an array")?
            .len();
        match id {
            "P256-SHA256" => run_entry::<P256Sha256>(entry, mode, &mut counts)?,
            "P384-SHA384" => run_entry::<P384Sha384>(entry, mode, &mut counts)?,
            "P521-SHA512" => run_entry::<P521Sha512>(entry, mode, &mut counts)?,
            "ristretto255-SHA512" => run_entry::<Ristretto255Sha512>(entry, mode, &mut counts)?,
            "decaf448-SHAKE256" => run_entry::<Decaf448Shake256>(entry, mode, &mut counts)?,
            _ => counts.skipped += nvec,
        }
    }
    Ok(counts)
}

fn split(v: &Value, key: &str) -> Result<Vec<Vec<u8>>, String> {
    let s = v
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing field {key}"))?;
    s.split(',')
        .map(|p| hex::decode(p).map_err(|e| format!("field {key}: {e}")))
        .collect()
}

fn run_entry<S: Suite>(entry: &Value, mode: u64, counts: &mut Counts) -> Result<(), String> {
    let mode =
        Mode::from_u8(u8::try_from(mode).map_err(|_| "bad mode")?).map_err(|_| "bad mode")?;
    let id = entry["identifier"].as_str().unwrap_or_default();
    let seed = hex_field(entry, "seed")?;
    let key_info = hex_field(entry, "keyInfo")?;
    let sk_want = hex_field(entry, "skSm")?;
    let vectors = entry["vectors"]
        .as_array()
        .ok_or("vectors is not an array")?;
    let edge_file = vectors.iter().any(|v| v.get("result").is_some());

    // Key derivation is checked once per entry and its mismatches charged to every vector.
    let mut key_mismatches = Vec::new();
    let keys =
        KeyPair::<S>::derive(mode, &seed, &key_info).map_err(|e| format!("DeriveKeyPair: {e}"))?;
    check(
        &mut key_mismatches,
        "skSm",
        keys.secret_key().to_bytes().as_ref(),
        &sk_want,
    );
    if mode != Mode::Oprf && !edge_file {
        // The edge-case file carries a wrong pkSm in one entry (see test-vectors/README.md);
        // its public key is derived from skSm instead.
        check(
            &mut key_mismatches,
            "pkSm",
            keys.public_key().to_bytes().as_ref(),
            &hex_field(entry, "pkSm")?,
        );
    }

    for (i, v) in vectors.iter().enumerate() {
        let name = format!("{id} mode {} vector {}", mode as u8, i + 1);
        let mut m = key_mismatches.clone();
        if let Some(result) = v.get("result").and_then(Value::as_str) {
            run_edge_case::<S>(mode, &keys, v, result, &mut m)?;
        } else {
            run_vector::<S>(mode, &keys, v, &mut m)?;
        }
        counts.record(&name, m);
    }
    Ok(())
}

struct Fields {
    inputs: Vec<Vec<u8>>,
    blinds: Vec<Vec<u8>>,
    blinded: Vec<Vec<u8>>,
    evaluated: Vec<Vec<u8>>,
    outputs: Vec<Vec<u8>>,
    info: Vec<u8>,
    proof: Vec<u8>,
    r: Vec<u8>,
}

fn fields(mode: Mode, v: &Value) -> Result<Fields, String> {
    let batch = v["Batch"].as_u64().ok_or("Batch is not an integer")? as usize;
    let f = Fields {
        inputs: split(v, "Input")?,
        blinds: split(v, "Blind")?,
        blinded: split(v, "BlindedElement")?,
        evaluated: split(v, "EvaluationElement")?,
        outputs: split(v, "Output")?,
        info: if mode == Mode::Poprf {
            hex_field(v, "Info")?
        } else {
            Vec::new()
        },
        proof: if mode == Mode::Oprf {
            Vec::new()
        } else {
            hex_field(&v["Proof"], "proof")?
        },
        r: if mode == Mode::Oprf {
            Vec::new()
        } else {
            hex_field(&v["Proof"], "r")?
        },
    };
    for (k, n) in [
        ("Input", f.inputs.len()),
        ("Blind", f.blinds.len()),
        ("BlindedElement", f.blinded.len()),
        ("EvaluationElement", f.evaluated.len()),
        ("Output", f.outputs.len()),
    ] {
        if n != batch {
            return Err(format!("{k} has {n} values for Batch {batch}"));
        }
    }
    Ok(f)
}

fn decode_all<T>(
    items: &[Vec<u8>],
    f: impl Fn(&[u8]) -> Result<T, Error>,
) -> Result<Vec<T>, String> {
    items
        .iter()
        .map(|b| f(b).map_err(|e| format!("decoding {}: {e}", hex::encode(b))))
        .collect()
}

fn flip_bit(bytes: &[u8], bit: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[bit / 8] ^= 1 << (bit % 8);
    b
}

/// One RFC vector: every field recomputed and compared.
fn run_vector<S: Suite>(
    mode: Mode,
    keys: &KeyPair<S>,
    v: &Value,
    m: &mut Vec<String>,
) -> Result<(), String> {
    let f = fields(mode, v)?;
    let inputs: Vec<&[u8]> = f.inputs.iter().map(Vec::as_slice).collect();
    let their_blinded = decode_all(&f.blinded, BlindedElement::<S>::from_bytes)?;
    let their_evaluated = decode_all(&f.evaluated, EvaluationElement::<S>::from_bytes)?;
    let n = inputs.len();
    let mut ours = vec![their_evaluated[0]; n];

    match mode {
        Mode::Oprf => {
            let server = OprfServer::<S>::from_secret_key(keys.secret_key().clone());
            for i in 0..n {
                let b = hazmat::oprf_blind_with::<S>(inputs[i], &f.blinds[i])
                    .map_err(|e| e.to_string())?;
                check(
                    m,
                    "BlindedElement",
                    b.message.to_bytes().as_ref(),
                    &f.blinded[i],
                );
                let e = server.blind_evaluate(&their_blinded[i]);
                check(
                    m,
                    "EvaluationElement",
                    e.to_bytes().as_ref(),
                    &f.evaluated[i],
                );
                let out = b
                    .state
                    .finalize(inputs[i], &their_evaluated[i])
                    .map_err(|e| e.to_string())?;
                check(m, "Output", &out, &f.outputs[i]);
                check(
                    m,
                    "Evaluate",
                    &server.evaluate(inputs[i]).map_err(|e| e.to_string())?,
                    &f.outputs[i],
                );
            }
            let batch = server
                .blind_evaluate_batch(&their_blinded)
                .map_err(|e| e.to_string())?;
            for (e, want) in batch.iter().zip(&f.evaluated) {
                check(m, "EvaluationElement (batch)", e.to_bytes().as_ref(), want);
            }
        }
        Mode::Voprf => {
            let server = VoprfServer::<S>::from_secret_key(keys.secret_key().clone());
            let proof =
                hazmat::voprf_blind_evaluate_with_nonce(&server, &their_blinded, &mut ours, &f.r)
                    .map_err(|e| e.to_string())?;
            for (e, want) in ours.iter().zip(&f.evaluated) {
                check(m, "EvaluationElement", e.to_bytes().as_ref(), want);
            }
            check(m, "Proof", proof.to_bytes().as_ref(), &f.proof);
            let their_proof = Proof::<S>::from_bytes(&f.proof).map_err(|e| e.to_string())?;
            let mut clients = Vec::new();
            for i in 0..n {
                let b = hazmat::voprf_blind_with::<S>(inputs[i], &f.blinds[i])
                    .map_err(|e| e.to_string())?;
                check(
                    m,
                    "BlindedElement",
                    b.message.to_bytes().as_ref(),
                    &f.blinded[i],
                );
                clients.push(b.state);
                check(
                    m,
                    "Evaluate",
                    &server.evaluate(inputs[i]).map_err(|e| e.to_string())?,
                    &f.outputs[i],
                );
            }
            let outs = if n == 1 {
                let c = clients.pop().ok_or("no client")?;
                vec![c
                    .finalize(
                        inputs[0],
                        &their_evaluated[0],
                        &their_proof,
                        server.public_key(),
                    )
                    .map_err(|e| format!("finalize: {e}"))?]
            } else {
                VoprfClient::finalize_batch(
                    clients,
                    &inputs,
                    &their_evaluated,
                    &their_proof,
                    server.public_key(),
                )
                .map_err(|e| format!("finalize_batch: {e}"))?
            };
            for (o, want) in outs.iter().zip(&f.outputs) {
                check(m, "Output", o, want);
            }
            // A proof with one bit flipped must not verify (or must not even decode).
            for bit in [0, f.proof.len() * 8 / 2 + 3, f.proof.len() * 8 - 1] {
                let bad = flip_bit(&f.proof, bit);
                let rejected = match Proof::<S>::from_bytes(&bad) {
                    Err(_) => true,
                    Ok(p) => {
                        let b = hazmat::voprf_blind_with::<S>(inputs[0], &f.blinds[0])
                            .map_err(|e| e.to_string())?;
                        if n == 1 {
                            b.state
                                .finalize(inputs[0], &their_evaluated[0], &p, server.public_key())
                                .is_err()
                        } else {
                            let mut cs = vec![b.state];
                            for i in 1..n {
                                cs.push(
                                    hazmat::voprf_blind_with::<S>(inputs[i], &f.blinds[i])
                                        .map_err(|e| e.to_string())?
                                        .state,
                                );
                            }
                            VoprfClient::finalize_batch(
                                cs,
                                &inputs,
                                &their_evaluated,
                                &p,
                                server.public_key(),
                            )
                            .is_err()
                        }
                    }
                };
                if !rejected {
                    m.push(format!("proof with bit {bit} flipped was accepted"));
                }
            }
        }
        Mode::Poprf => {
            let server = PoprfServer::<S>::from_secret_key(keys.secret_key().clone());
            let proof = hazmat::poprf_blind_evaluate_with_nonce(
                &server,
                &their_blinded,
                &f.info,
                &mut ours,
                &f.r,
            )
            .map_err(|e| e.to_string())?;
            for (e, want) in ours.iter().zip(&f.evaluated) {
                check(m, "EvaluationElement", e.to_bytes().as_ref(), want);
            }
            check(m, "Proof", proof.to_bytes().as_ref(), &f.proof);
            let their_proof = Proof::<S>::from_bytes(&f.proof).map_err(|e| e.to_string())?;
            let mut clients = Vec::new();
            for i in 0..n {
                let b = hazmat::poprf_blind_with::<S>(
                    inputs[i],
                    &f.info,
                    server.public_key(),
                    &f.blinds[i],
                )
                .map_err(|e| e.to_string())?;
                check(
                    m,
                    "BlindedElement",
                    b.message.to_bytes().as_ref(),
                    &f.blinded[i],
                );
                clients.push(b.state);
                check(
                    m,
                    "Evaluate",
                    &server
                        .evaluate(inputs[i], &f.info)
                        .map_err(|e| e.to_string())?,
                    &f.outputs[i],
                );
            }
            let outs = if n == 1 {
                let c = clients.pop().ok_or("no client")?;
                vec![c
                    .finalize(inputs[0], &f.info, &their_evaluated[0], &their_proof)
                    .map_err(|e| format!("finalize: {e}"))?]
            } else {
                PoprfClient::finalize_batch(
                    clients,
                    &inputs,
                    &f.info,
                    &their_evaluated,
                    &their_proof,
                )
                .map_err(|e| format!("finalize_batch: {e}"))?
            };
            for (o, want) in outs.iter().zip(&f.outputs) {
                check(m, "Output", o, want);
            }
            let bad = flip_bit(&f.proof, 5);
            if let Ok(p) = Proof::<S>::from_bytes(&bad) {
                let b = hazmat::poprf_blind_with::<S>(
                    inputs[0],
                    &f.info,
                    server.public_key(),
                    &f.blinds[0],
                )
                .map_err(|e| e.to_string())?;
                if n == 1
                    && b.state
                        .finalize(inputs[0], &f.info, &their_evaluated[0], &p)
                        .is_ok()
                {
                    m.push("POPRF proof with a flipped bit was accepted".into());
                }
            }
        }
    }
    Ok(())
}

/// A swift-crypto edge case: `invalidProof` must be rejected with the verify error;
/// `invalidOPRFOutput` must finalize to a different output that the server's check refuses.
fn run_edge_case<S: Suite>(
    mode: Mode,
    keys: &KeyPair<S>,
    v: &Value,
    result: &str,
    m: &mut Vec<String>,
) -> Result<(), String> {
    let f = fields(mode, v)?;
    let input = f.inputs[0].as_slice();
    let evaluated =
        EvaluationElement::<S>::from_bytes(&f.evaluated[0]).map_err(|e| e.to_string())?;
    let proof = Proof::<S>::from_bytes(&f.proof).map_err(|e| e.to_string())?;
    let (finalized, server_accepts) = match mode {
        Mode::Voprf => {
            let server = VoprfServer::<S>::from_secret_key(keys.secret_key().clone());
            let b =
                hazmat::voprf_blind_with::<S>(input, &f.blinds[0]).map_err(|e| e.to_string())?;
            check(
                m,
                "BlindedElement",
                b.message.to_bytes().as_ref(),
                &f.blinded[0],
            );
            let out = b
                .state
                .finalize(input, &evaluated, &proof, server.public_key());
            (
                out,
                server
                    .verify_output(input, &f.outputs[0])
                    .map_err(|e| e.to_string())?,
            )
        }
        Mode::Poprf => {
            let server = PoprfServer::<S>::from_secret_key(keys.secret_key().clone());
            let b =
                hazmat::poprf_blind_with::<S>(input, &f.info, server.public_key(), &f.blinds[0])
                    .map_err(|e| e.to_string())?;
            check(
                m,
                "BlindedElement",
                b.message.to_bytes().as_ref(),
                &f.blinded[0],
            );
            let out = b.state.finalize(input, &f.info, &evaluated, &proof);
            (
                out,
                server
                    .verify_output(input, &f.info, &f.outputs[0])
                    .map_err(|e| e.to_string())?,
            )
        }
        Mode::Oprf => return Err("edge cases exist only for modes 1 and 2".into()),
    };
    match result {
        "invalidProof" => {
            if finalized != Err(Error::InvalidProof) {
                m.push(format!("invalidProof case gave {finalized:?}"));
            }
        }
        "invalidOPRFOutput" => match finalized {
            Ok(out) if out[..] != f.outputs[0][..] && !server_accepts => {}
            other => m.push(format!(
                "invalidOPRFOutput case: finalize {other:?}, server accepted {server_accepts}"
            )),
        },
        other => return Err(format!("unknown result {other}")),
    }
    Ok(())
}
