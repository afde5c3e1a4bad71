//! RSA blind signature vectors: RFC 9474 Appendix A (four RSABSSA variants, RSA-4096) and
//! draft-irtf-cfrg-partially-blind-rsa-02 (RSAPBSSA-SHA384-PSS-Deterministic, RSA-2048). Every
//! intermediate value is compared: the encoded message where the file has it, the derived
//! exponent, the blinded message, the blind signature and the signature; then the refusals.

use privacy_tokens::blind_rsa::{PublicKey, SecretKey, Variant};
use privacy_tokens::hazmat::{self, RsaBlind};
use privacy_tokens::Error;
use serde_json::Value;

use super::counts::{check, Counts};

/// A hex field with or without `0x`.
fn hex0x(v: &Value, key: &str) -> Result<Vec<u8>, String> {
    let s = v
        .get(key)
        .and_then(|x| x.as_str())
        .ok_or_else(|| format!("missing field {key}"))?;
    let s = s.strip_prefix("0x").unwrap_or(s);
    let s = if s.len() % 2 == 1 {
        format!("0{s}")
    } else {
        s.to_string()
    };
    hex::decode(&s).map_err(|e| format!("field {key}: {e}"))
}

/// Whether a document is RFC 9474 Appendix A's array.
pub fn recognises_rfc9474(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter()
                .all(|e| e.get("is_randomized").is_some() && e.get("inv").is_some())
    })
}

/// Whether a document is the partially blind RSA draft's array.
pub fn recognises_pbrsa(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|e| {
                e.get("eprime").is_some() && e.get("info").is_some() && e.get("r").is_some()
            })
    })
}

fn variant_named(name: &str) -> Option<Variant> {
    Variant::ALL.into_iter().find(|v| v.name() == name)
}

fn key(v: &Value) -> Result<SecretKey, String> {
    SecretKey::from_components(
        &hex0x(v, "p")?,
        &hex0x(v, "q")?,
        &hex0x(v, "d")?,
        &hex0x(v, "e")?,
    )
    .map_err(|e| format!("key: {e}"))
}

/// Signs, finalizes and verifies one case; records the mismatches.
#[allow(clippy::too_many_arguments)]
fn one_case(
    m: &mut Vec<String>,
    sk: &SecretKey,
    variant: Variant,
    msg: &[u8],
    info: Option<&[u8]>,
    salt: &[u8],
    blind: RsaBlind<'_>,
    v: &Value,
    blinded_field: &str,
) -> Result<(), String> {
    let pk = sk.public_key();
    let (blinded, state) = match hazmat::blind_rsa_blind_with(pk, variant, msg, info, salt, blind) {
        Ok(x) => x,
        Err(e) => {
            m.push(format!("blind: {e}"));
            return Ok(());
        }
    };
    check(
        m,
        blinded_field,
        blinded.as_bytes(),
        &hex0x(v, blinded_field)?,
    );
    let signer = match info {
        Some(info) => sk.blind_sign_with_info(&hex0x(v, blinded_field)?, info),
        None => sk.blind_sign(&hex0x(v, blinded_field)?),
    };
    let blind_sig = match signer {
        Ok(s) => s,
        Err(e) => {
            m.push(format!("blind_sign: {e}"));
            return Ok(());
        }
    };
    check(
        m,
        "blind_sig",
        blind_sig.as_bytes(),
        &hex0x(v, "blind_sig")?,
    );
    let want_sig = hex0x(v, "sig")?;
    match state.finalize(&hex0x(v, "blind_sig")?) {
        Ok(sig) => check(m, "sig", sig.as_bytes(), &want_sig),
        Err(e) => m.push(format!("finalize: {e}")),
    }
    let verify = |msg: &[u8], sig: &[u8]| match info {
        Some(info) => pk.verify_with_info(variant, msg, info, sig),
        None => pk.verify(variant, msg, sig),
    };
    if let Err(e) = verify(msg, &want_sig) {
        m.push(format!("verify: {e}"));
    }
    // Refusals: a flipped bit, another message, another salt length, a short signature.
    let mut bad = want_sig.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    if verify(msg, &bad) != Err(Error::InvalidSignature) {
        m.push("a flipped signature bit verifies".into());
    }
    let mut other = msg.to_vec();
    other.push(0);
    if verify(&other, &want_sig) != Err(Error::InvalidSignature) {
        m.push("another message verifies".into());
    }
    let twin = Variant::ALL.into_iter().find(|w| {
        w.is_randomized() == variant.is_randomized() && w.salt_len() != variant.salt_len()
    });
    let wrong_salt = match (twin, info) {
        (Some(w), Some(info)) => pk.verify_with_info(w, msg, info, &want_sig),
        (Some(w), None) => pk.verify(w, msg, &want_sig),
        (None, _) => Err(Error::InvalidSignature),
    };
    if wrong_salt != Err(Error::InvalidSignature) {
        m.push("the other salt length verifies".into());
    }
    if verify(msg, &want_sig[1..]) != Err(Error::InvalidLength) {
        m.push("a short signature is not InvalidLength".into());
    }
    if let Some(info) = info {
        if pk.verify(variant, msg, &want_sig).is_ok() {
            m.push("verifies without the metadata".into());
        }
        let mut other = info.to_vec();
        other.push(b'x');
        if pk.verify_with_info(variant, msg, &other, &want_sig).is_ok() {
            m.push("verifies under other metadata".into());
        }
    }
    // BlindSign refuses n itself (not reduced) and a short input.
    let n = pk.modulus();
    if sk.blind_sign(&n) != Err(Error::OutOfRange) {
        m.push("blind_sign(n) is not OutOfRange".into());
    }
    if sk.blind_sign(&n[1..]) != Err(Error::InvalidLength) {
        m.push("a short blinded message is not InvalidLength".into());
    }
    Ok(())
}

/// RFC 9474 Appendix A: the variant by name, the blind from `inv`, `encoded_msg` where present.
pub fn run_rfc9474(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    for v in json.as_array().ok_or("not an array")? {
        let name = v["name"].as_str().ok_or("missing name")?;
        let mut m = Vec::new();
        let Some(variant) = variant_named(name) else {
            counts.record(name, vec![format!("unknown variant {name}")]);
            continue;
        };
        let sk = key(v)?;
        // The control of the safe-prime check: RFC 9474's keys are of plain primes.
        if sk.has_safe_primes() {
            m.push("key: taken for a safe-prime key".into());
        }
        let pk: &PublicKey = sk.public_key();
        let msg = hex0x(v, "msg")?;
        let prefix = hex0x(v, "msg_prefix")?;
        let input = hex0x(v, "input_msg")?;
        check(
            &mut m,
            "input_msg",
            &[prefix.as_slice(), &msg].concat(),
            &input,
        );
        if variant.is_randomized() != (prefix.len() == 32) {
            m.push("msg_prefix length disagrees with the variant".into());
        }
        let salt = hex0x(v, "salt")?;
        if salt.len() != variant.salt_len() {
            m.push("salt length disagrees with the variant".into());
        }
        if v.get("encoded_msg").is_some() {
            match hazmat::emsa_pss_encode(&input, pk.modulus_bits() - 1, &salt) {
                Ok(em) => check(&mut m, "encoded_msg", &em, &hex0x(v, "encoded_msg")?),
                Err(e) => m.push(format!("encode: {e}")),
            }
        }
        let inv = hex0x(v, "inv")?;
        one_case(
            &mut m,
            &sk,
            variant,
            &input,
            None,
            &salt,
            RsaBlind::Inv(&inv),
            v,
            "blinded_msg",
        )?;
        counts.record(name, m);
    }
    Ok(counts)
}

/// The partially blind draft's vectors: `eprime`, then the protocol with `r` and `salt`.
pub fn run_pbrsa(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    for (i, v) in json.as_array().ok_or("not an array")?.iter().enumerate() {
        let name = format!("pbrsa vector {i}");
        let mut m = Vec::new();
        let sk = key(v)?;
        // The draft's keys are made of safe primes (its key generation requires them).
        if !sk.has_safe_primes() {
            m.push("key: not made of safe primes".into());
        }
        let pk = sk.public_key();
        check(&mut m, "n", &pk.modulus(), &hex0x(v, "n")?);
        let info = hex0x(v, "info")?;
        match pk.derive(&info) {
            Ok(d) => {
                let mut e = d.exponent();
                let want = hex0x(v, "eprime")?;
                while e.len() < want.len() {
                    e.insert(0, 0);
                }
                check(&mut m, "eprime", &e, &want);
            }
            Err(err) => m.push(format!("derive: {err}")),
        }
        let msg = hex0x(v, "msg")?;
        let salt = hex0x(v, "salt")?;
        let r = hex0x(v, "r")?;
        one_case(
            &mut m,
            &sk,
            Variant::PssDeterministic,
            &msg,
            Some(&info),
            &salt,
            RsaBlind::R(&r),
            v,
            "blind_msg",
        )?;
        counts.record(&name, m);
    }
    Ok(counts)
}
