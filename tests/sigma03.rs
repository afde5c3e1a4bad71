//! sigma-protocols-03 beyond the published vectors: strict decoders never panic and accept only
//! canonical encodings, every changed byte of a published proof or instance is rejected, and
//! an instance the validating verifier refuses is refused by the prover too.

use p256::NistP256;
use privacy_tokens::arc::sigma::{self, BatchableProof, CompactProof};
use privacy_tokens::arc::sigma03::{self, Flavor, Relation, Sigma03Transcript};
use privacy_tokens::group::Scalar;
use privacy_tokens::Error;
use proptest::prelude::*;
use serde_json::Value;

type C = NistP256;

fn records(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test-vectors/sigma-03")
        .join(name);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn hex_of(r: &Value, k: &str) -> Vec<u8> {
    hex::decode(r[k].as_str().unwrap()).unwrap()
}

fn flavor(r: &Value) -> Flavor {
    match r["Flavor"].as_str().unwrap() {
        "batchable" => Flavor::Batchable,
        _ => Flavor::Compact,
    }
}

/// Verifies with the validating transcript; any error is a rejection.
fn accepts(instance: &[u8], tag: &[u8], flavor: Flavor, narg: &[u8]) -> bool {
    let Ok(rel) = Relation::<C>::decode(instance) else {
        return false;
    };
    let sid = sigma03::derive_session_id(tag);
    let Ok(prefix) = rel.prefix(&sid) else {
        return false;
    };
    let (st, el) = (rel.statement(), rel.elements());
    match flavor {
        Flavor::Batchable => {
            BatchableProof::<C, 8, 8>::decode(narg, st.equations.len(), st.scalars)
                .and_then(|p| {
                    sigma::verify_batchable::<C, Sigma03Transcript<true>, 8, 8>(
                        &prefix, &st, &el, &p,
                    )
                })
                .is_ok()
        }
        Flavor::Compact => CompactProof::<C, 8>::decode(narg, st.scalars)
            .and_then(|p| sigma::verify::<C, Sigma03Transcript<true>, 8>(&prefix, &st, &el, &p))
            .is_ok(),
    }
}

/// Every single-bit change of every published NARG string, and of every instance byte, is
/// rejected (the unchanged ones verify).
#[test]
fn every_changed_byte_is_rejected() {
    let mut tried = 0;
    for r in records("sigma-proofs_Shake128_P256.json") {
        let (inst, narg) = (hex_of(&r, "Instance"), hex_of(&r, "NargString"));
        let tag = r["Tag"].as_str().unwrap().as_bytes();
        let f = flavor(&r);
        assert!(accepts(&inst, tag, f, &narg), "{}", r["Id"]);
        for i in 0..narg.len() {
            let mut bad = narg.clone();
            bad[i] ^= 0x01 << (i % 8);
            assert!(!accepts(&inst, tag, f, &bad), "{} narg byte {i}", r["Id"]);
            tried += 1;
        }
        for i in 0..inst.len() {
            let mut bad = inst.clone();
            bad[i] ^= 0x01 << (i % 8);
            assert!(
                !accepts(&bad, tag, f, &narg),
                "{} instance byte {i}",
                r["Id"]
            );
            tried += 1;
        }
    }
    assert!(tried > 5000, "{tried}");
}

/// The prover refuses what the validating verifier refuses: the adversarial instances that
/// fail validation (E1, E1b, E2) cannot be proven with validation on.
#[test]
fn prover_validates_too() {
    let mut refused = 0;
    for r in records("sigma-proofs-invalid_Shake128_P256.json") {
        let Ok(rel) = Relation::<C>::decode(&hex_of(&r, "Instance")) else {
            continue;
        };
        if rel.validate().is_ok() {
            continue;
        }
        let sid = sigma03::derive_session_id(r["Tag"].as_str().unwrap().as_bytes());
        let prefix = rel.prefix(&sid).unwrap();
        let n = rel.statement().scalars;
        let ones = vec![Scalar::<C>::from(1u64); n];
        let proof = sigma::prove::<C, Sigma03Transcript<true>, 8>(
            &prefix,
            &rel.statement(),
            &rel.elements(),
            &ones,
            &ones,
        );
        assert_eq!(proof.unwrap_err(), Error::InvalidInstance, "{}", r["Id"]);
        refused += 1;
    }
    assert_eq!(refused, 3);
}

proptest! {
    /// Instance decoding never panics, and what it accepts re-encodes to the same bytes.
    #[test]
    fn instance_decoding_is_strict(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(rel) = Relation::<C>::decode(&bytes) {
            let mut out = vec![0u8; rel.encoded_len()];
            rel.encode_into(&mut out).unwrap();
            prop_assert_eq!(out, bytes);
        }
    }

    /// Mutated published instances: never a panic, and an accepted one is canonical.
    #[test]
    fn mutated_instances(idx in 0usize..14, pos in any::<usize>(), val in any::<u8>(), cut in any::<bool>()) {
        let r = &records("sigma-proofs_Shake128_P256.json")[idx];
        let mut bytes = hex_of(r, "Instance");
        let p = pos % bytes.len();
        if cut { bytes.truncate(p) } else { bytes[p] = val }
        if let Ok(rel) = Relation::<C>::decode(&bytes) {
            let mut out = vec![0u8; rel.encoded_len()];
            rel.encode_into(&mut out).unwrap();
            prop_assert_eq!(out, bytes);
            let _ = rel.validate();
        }
    }

    /// Proof decoding never panics and round-trips what it accepts.
    #[test]
    fn proof_decoding_is_strict(bytes in proptest::collection::vec(any::<u8>(), 0..200), m in 0usize..4, n in 0usize..4) {
        if let Ok(p) = BatchableProof::<C, 4, 4>::decode(&bytes, m, n) {
            let mut out = vec![0u8; p.encoded_len()];
            p.encode_into(&mut out).unwrap();
            prop_assert_eq!(out, bytes.clone());
        }
        if let Ok(p) = CompactProof::<C, 4>::decode(&bytes, n) {
            let mut out = vec![0u8; p.encoded_len()];
            p.encode_into(&mut out).unwrap();
            prop_assert_eq!(out, bytes);
        }
    }
}
