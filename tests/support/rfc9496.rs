//! Replays the decaf448 group vectors of RFC 9496 Appendix B (`rfc9496-decaf448.json`) and the
//! `expand_message_xof(SHAKE256)` vectors of RFC 9380 Appendix K.6
//! (`rfc9380-expand-message-xof-shake256.json`) against `group::decaf448`.

use privacy_tokens::group::decaf448::{expand_message_xof, Element, Scalar};
use privacy_tokens::Error;
use serde_json::Value;

use super::counts::Counts;

/// Whether a document is the RFC 9496 Appendix B file.
pub fn recognises_decaf448(json: &Value) -> bool {
    json.get("multiples_of_generator").is_some()
        && json.get("invalid_encodings").is_some()
        && json.get("uniform_bytes_to_element").is_some()
}

/// Whether a document is the RFC 9380 Appendix K.6 file.
pub fn recognises_xof(json: &Value) -> bool {
    json.get("DST").is_some()
        && json["vectors"].as_array().is_some_and(|v| {
            !v.is_empty()
                && v.iter()
                    .all(|e| e.get("len_in_bytes").is_some() && e.get("uniform_bytes").is_some())
        })
}

fn hex_str(v: &Value) -> Result<Vec<u8>, String> {
    let s = v.as_str().ok_or("not a string")?;
    hex::decode(s).map_err(|e| format!("{s}: {e}"))
}

/// B.1: `k * G` for k = 0..15 encodes to line k, line k decodes (k > 0) and re-encodes to
/// itself, and repeated addition of the generator meets the same encodings. B.2: each invalid
/// encoding is rejected with `InvalidPoint`. B.3: the element derivation map.
pub fn run_decaf448(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let multiples = json["multiples_of_generator"]
        .as_array()
        .ok_or("multiples_of_generator is not an array")?;
    let mut acc = Element::IDENTITY;
    for (k, line) in multiples.iter().enumerate() {
        let want = hex_str(line)?;
        let mut m = Vec::new();
        let kg = Element::mul_generator(&Scalar::from(k as u64));
        if kg.to_bytes()[..] != want[..] {
            m.push(format!("{k}*G encodes to {}", hex::encode(kg.to_bytes())));
        }
        if acc.to_bytes()[..] != want[..] {
            m.push(format!("sum of {k} generators encodes differently"));
        }
        if acc != kg {
            m.push("k*G and the sum are not equal elements".into());
        }
        let decoded = if k == 0 {
            // RFC 9497 DeserializeElement rejects the identity; RFC 9496 Decode accepts it.
            if Element::from_bytes(&want) != Err(Error::IdentityElement) {
                m.push("the identity is not rejected by from_bytes".into());
            }
            Element::from_bytes_allow_identity(&want)
        } else {
            Element::from_bytes(&want)
        };
        match decoded {
            Ok(p) if p.to_bytes()[..] == want[..] && p == kg => {}
            Ok(_) => m.push("decodes to another element".into()),
            Err(e) => m.push(format!("does not decode: {e:?}")),
        }
        counts.record(&format!("RFC 9496 B.1 {k}*G"), m);
        acc = acc + Element::GENERATOR;
    }

    let invalid = json["invalid_encodings"]
        .as_object()
        .ok_or("invalid_encodings is not an object")?;
    for (reason, list) in invalid {
        for (i, enc) in list
            .as_array()
            .ok_or("invalid list is not an array")?
            .iter()
            .enumerate()
        {
            let bytes = hex_str(enc)?;
            let mut m = Vec::new();
            for r in [
                Element::from_bytes(&bytes),
                Element::from_bytes_allow_identity(&bytes),
            ] {
                if r != Err(Error::InvalidPoint) {
                    m.push(format!("decoded to {r:?}"));
                }
            }
            counts.record(&format!("RFC 9496 B.2 {reason} {}", i + 1), m);
        }
    }

    let uniform = json["uniform_bytes_to_element"]
        .as_array()
        .ok_or("uniform_bytes_to_element is not an array")?;
    for (i, v) in uniform.iter().enumerate() {
        let input: [u8; 112] = hex_str(&v["input"])?
            .try_into()
            .map_err(|_| "input is not 112 bytes")?;
        let want = hex_str(&v["output"])?;
        let got = Element::from_uniform_bytes(&input).to_bytes();
        let mut m = Vec::new();
        if got[..] != want[..] {
            m.push(format!("got {}", hex::encode(got)));
        }
        counts.record(&format!("RFC 9496 B.3 {}", i + 1), m);
    }
    Ok(counts)
}

/// Every `expand_message_xof` output, byte for byte.
pub fn run_xof(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let dst = json["DST"].as_str().ok_or("DST is not a string")?;
    for (i, v) in json["vectors"]
        .as_array()
        .ok_or("vectors is not an array")?
        .iter()
        .enumerate()
    {
        let msg = v["msg"].as_str().ok_or("msg is not a string")?;
        let len = v["len_in_bytes"].as_u64().ok_or("len_in_bytes")? as usize;
        let want = hex_str(&v["uniform_bytes"])?;
        let mut got = vec![0u8; len];
        let mut m = Vec::new();
        match expand_message_xof(&[msg.as_bytes()], &[dst.as_bytes()], &mut got) {
            Ok(()) if got == want => {}
            Ok(()) => m.push(format!("got {}", hex::encode(&got))),
            Err(e) => m.push(format!("error {e:?}")),
        }
        counts.record(&format!("RFC 9380 K.6 {}", i + 1), m);
    }
    Ok(counts)
}
