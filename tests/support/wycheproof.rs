//! Wycheproof ECDH `ecpoint` files: strict SEC1 decoding of bare points, in both the uncompressed
//! form (the crate's 97-byte Trust Token points) and the compressed form (RFC 9497 elements), and
//! scalar multiplication reproducing `shared`.

use privacy_tokens::group::{self, Curve};
use serde_json::Value;

use super::counts::{hex_field, Counts};

/// Whether a document is a Wycheproof ECDH ecpoint file.
pub fn recognises(json: &Value) -> bool {
    json.get("algorithm").and_then(Value::as_str) == Some("ECDH")
        && json["testGroups"]
            .as_array()
            .is_some_and(|g| g.iter().all(|g| g["encoding"] == "ecpoint"))
}

/// Runs every test of every group.
pub fn run(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    for g in json["testGroups"]
        .as_array()
        .ok_or("testGroups is not an array")?
    {
        let tests = g["tests"].as_array().ok_or("tests is not an array")?;
        match g["curve"].as_str() {
            Some("secp256r1") => run_group::<p256::NistP256>(tests, &mut counts)?,
            Some("secp384r1") => run_group::<p384::NistP384>(tests, &mut counts)?,
            _ => counts.skipped += tests.len(),
        }
    }
    Ok(counts)
}

fn compress(uncompressed: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    out.push(2 | (uncompressed[uncompressed.len() - 1] & 1));
    out.extend_from_slice(&uncompressed[1..len]);
    out
}

fn run_group<C: Curve>(tests: &[Value], counts: &mut Counts) -> Result<(), String> {
    for t in tests {
        let id = t["tcId"].as_u64().unwrap_or_default();
        let result = t["result"].as_str().ok_or("result is not a string")?;
        let public = hex_field(t, "public")?;
        let mut m = Vec::new();
        let decoded = if public.len() == C::COMPRESSED_LEN {
            C::decode_compressed(&public)
        } else {
            C::decode_uncompressed(&public)
        };
        match (result, decoded) {
            ("invalid", Ok(_)) => m.push("invalid point accepted".to_string()),
            ("invalid", Err(_)) => {}
            ("valid", Err(e)) => m.push(format!("valid point rejected: {e}")),
            (_, Err(_)) => {} // acceptable: rejecting is conforming
            (_, Ok(p)) => {
                // Round trip, the compressed form, and the shared secret.
                let re = if public.len() == C::COMPRESSED_LEN {
                    C::encode_compressed(&p).as_ref().to_vec()
                } else {
                    C::encode_uncompressed(&p).as_ref().to_vec()
                };
                if re != public {
                    m.push("re-encoding differs".into());
                }
                let unc = C::encode_uncompressed(&p);
                let comp = compress(unc.as_ref(), C::SCALAR_LEN + 1);
                match C::decode_compressed(&comp) {
                    Ok(q) if q == p => {}
                    other => m.push(format!(
                        "compressed form does not decode to the same point: {other:?}"
                    )),
                }
                let mut private = hex_field(t, "private")?;
                while private.len() > C::SCALAR_LEN && private[0] == 0 {
                    private.remove(0);
                }
                let mut fixed = vec![0u8; C::SCALAR_LEN - private.len()];
                fixed.extend_from_slice(&private);
                let k = group::decode_scalar::<C>(&fixed)
                    .map_err(|e| format!("tcId {id} private: {e}"))?;
                let shared = hex_field(t, "shared")?;
                let ct = group::to_affine::<C>(&group::mul_affine::<C>(&p, &k));
                let vt = group::to_affine::<C>(&group::vartime_mul::<C>(&p, &k));
                for (what, q) in [("constant-time", ct), ("variable-time", vt)] {
                    let enc = C::encode_uncompressed(&q);
                    if &enc.as_ref()[1..=C::SCALAR_LEN] != shared.as_slice() {
                        m.push(format!("{what} shared secret differs"));
                    }
                }
            }
        }
        counts.record(&format!("tcId {id}"), m);
    }
    Ok(())
}
