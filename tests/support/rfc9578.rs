//! Harness for RFC 9578 Appendix A.1 layout files: the privately verifiable issuance protocol,
//! one token per request. The same layout carries token type `0x0001` (RFC 9578,
//! VOPRF(P-384, SHA-384)) and, in pat-go's vectors, `0x0005` (VOPRF(ristretto255, SHA-512));
//! each vector's type is read from its `token_request`.
//!
//! Each vector is an object with the hex fields
//! `skS, pkS, token_challenge, nonce, blind, token_request, token_response, token`. Other
//! implementations spell the camelCase keys in snake_case (`sk_s`, `pk_s`); both are accepted.

#![allow(dead_code)]

use privacy_tokens::voprf::privacy_pass::generic::{
    Client, Issuer, Token, TokenRequest, TokenResponse,
};
use privacy_tokens::voprf::privacy_pass::{token_key_id, TokenType, Type1, Type5, NONCE_LEN};
use privacy_tokens::voprf::{SecretKey, VoprfServer};
use serde_json::Value;

// The including test crate declares `#[path = "support/counts.rs"] mod counts;` at its root.
pub use super::counts::Counts;

/// The snake_case spelling of a camelCase key: `skS` -> `sk_s` (keys already in snake_case are
/// unchanged).
pub fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 2);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The value of `key` under either spelling; an error if both spellings are present.
pub fn get<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    let snake = snake_case(key);
    match (v.get(key), (snake != key).then(|| v.get(&snake)).flatten()) {
        (Some(x), None) | (None, Some(x)) => Ok(x),
        (Some(_), Some(_)) => Err(format!("both {key} and {snake} present")),
        (None, None) => Err(format!("missing field {key}")),
    }
}

/// Whether `v` has `key` under either spelling.
pub fn has(v: &Value, key: &str) -> bool {
    v.get(key).is_some() || v.get(snake_case(key)).is_some()
}

/// A hex string field, under either spelling.
pub fn field(v: &Value, name: &str) -> Result<Vec<u8>, String> {
    let s = get(v, name)?
        .as_str()
        .ok_or_else(|| format!("{name} is not a string"))?;
    hex::decode(s).map_err(|e| format!("{name}: bad hex: {e}"))
}

/// A list of hex strings, under either spelling.
pub fn field_list(v: &Value, name: &str) -> Result<Vec<Vec<u8>>, String> {
    get(v, name)?
        .as_array()
        .ok_or_else(|| format!("{name} is not an array"))?
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let s = x
                .as_str()
                .ok_or_else(|| format!("{name}[{i}] is not a string"))?;
            hex::decode(s).map_err(|e| format!("{name}[{i}]: bad hex: {e}"))
        })
        .collect()
}

pub fn check(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "{what} mismatch: got {} want {}",
            hex::encode(got),
            hex::encode(want)
        ))
    }
}

/// The token type a vector is for: the first two bytes of its `token_request`.
pub fn token_type_of(v: &Value) -> Result<u16, String> {
    let r = field(v, "token_request")?;
    match r.as_slice() {
        [a, b, ..] => Ok(u16::from_be_bytes([*a, *b])),
        _ => Err("token_request shorter than 2 bytes".into()),
    }
}

/// `skS`, checked against `pkS`, as an issuer; and the checks of the key id against the
/// request's truncated id.
pub fn issuer_of<T: TokenType>(v: &Value) -> Result<Issuer<T>, String> {
    let sk_bytes = field(v, "skS")?;
    let pk_bytes = field(v, "pkS")?;
    let request_bytes = field(v, "token_request")?;
    // pkS == SerializeElement(skS * G)
    let sk = SecretKey::<T::Suite>::from_bytes(&sk_bytes).map_err(|e| format!("skS: {e}"))?;
    let pk = sk.public_key();
    check("pkS", pk.to_bytes().as_ref(), &pk_bytes)?;
    let issuer = Issuer::<T>::new(VoprfServer::from_secret_key(sk));
    // token_key_id = SHA-256(pkS); its last byte is the request's truncated id.
    let key_id = token_key_id(&pk);
    check("token_key_id", &key_id, issuer.token_key_id())?;
    let want_trunc = *request_bytes.get(2).ok_or("token_request too short")?;
    if key_id[31] != want_trunc {
        return Err(format!(
            "truncated key id: token_key_id ends in {:02x}, request carries {want_trunc:02x}",
            key_id[31]
        ));
    }
    Ok(issuer)
}

/// Decodes `bytes` as a token, checks it equals `token`, and that the issuer accepts it and
/// rejects it after one authenticator bit flip.
pub fn check_token<T: TokenType>(
    issuer: &Issuer<T>,
    token: &Token<T>,
    bytes: &[u8],
) -> Result<(), String> {
    check("token", token.to_bytes().as_ref(), bytes)?;
    let parsed = Token::<T>::from_bytes(bytes).map_err(|e| format!("token decode: {e}"))?;
    if parsed != *token {
        return Err("token decode differs from finalize".into());
    }
    match issuer.verify_token(&parsed) {
        Ok(true) => {}
        other => return Err(format!("verify_token(token) = {other:?}, want Ok(true)")),
    }
    let mut flipped = parsed;
    flipped.authenticator.as_mut()[0] ^= 1;
    match issuer.verify_token(&flipped) {
        Ok(false) => Ok(()),
        other => Err(format!(
            "verify_token(flipped token) = {other:?}, want Ok(false)"
        )),
    }
}

fn run_one<T: TokenType>(v: &Value) -> Result<(), String> {
    let challenge = field(v, "token_challenge")?;
    let nonce = field(v, "nonce")?;
    let blind = field(v, "blind")?;
    let request_bytes = field(v, "token_request")?;
    let response_bytes = field(v, "token_response")?;
    let token_bytes = field(v, "token")?;
    let issuer = issuer_of::<T>(v)?;
    let pk = *issuer.public_key();

    // The request, byte for byte, with the vector's nonce and blind.
    let nonce: [u8; NONCE_LEN] = nonce
        .as_slice()
        .try_into()
        .map_err(|_| "nonce is not 32 bytes".to_string())?;
    let request_with = || Client::<T>::request_with(&pk, &challenge, &nonce, &blind);
    let (request, state) = request_with().map_err(|e| format!("request: {e}"))?;
    check("token_request", request.to_bytes().as_ref(), &request_bytes)?;
    let parsed = TokenRequest::<T>::from_bytes(&request_bytes)
        .map_err(|e| format!("token_request decode: {e}"))?;
    check(
        "token_request re-encode",
        parsed.to_bytes().as_ref(),
        &request_bytes,
    )?;

    // The issuer's evaluate_msg = skS * blinded (the proof is randomized; compare the element).
    let mut rng = rand::rng();
    let ours = issuer
        .issue(&mut rng, &parsed)
        .map_err(|e| format!("issue: {e}"))?;
    check(
        "evaluate_msg",
        &ours.to_bytes().as_ref()[..T::NE],
        response_bytes
            .get(..T::NE)
            .ok_or("token_response too short")?,
    )?;

    // The vector's response: its proof verifies and finalizes to exactly `token`.
    let response = TokenResponse::<T>::from_bytes(&response_bytes)
        .map_err(|e| format!("token_response decode: {e}"))?;
    check(
        "token_response re-encode",
        response.to_bytes().as_ref(),
        &response_bytes,
    )?;
    let token = state
        .finalize(&response)
        .map_err(|e| format!("finalize with the vector's proof: {e}"))?;
    check_token(&issuer, &token, &token_bytes)?;

    // Our own response (our proof) finalizes to the same token.
    let (_, state) = request_with().map_err(|e| format!("request: {e}"))?;
    let again = state
        .finalize(&ours)
        .map_err(|e| format!("finalize with our proof: {e}"))?;
    check(
        "token from our response",
        again.to_bytes().as_ref(),
        &token_bytes,
    )
}

/// Runs one vector with the runner of its token type (read from its `token_request`).
pub fn by_token_type(
    v: &Value,
    type1: fn(&Value) -> Result<(), String>,
    type5: fn(&Value) -> Result<(), String>,
) -> Result<(), String> {
    match token_type_of(v)? {
        0x0001 => type1(v),
        0x0005 => type5(v),
        t => Err(format!("token type {t:#06x} is not implemented")),
    }
}

/// Runs every vector of a file that is a JSON array of vectors (`layout` names it in the error),
/// each with the runner of its token type. A vector passes only if every check held. Errors only
/// when the file is not a JSON array.
pub fn run_array(
    json: &Value,
    layout: &str,
    type1: fn(&Value) -> Result<(), String>,
    type5: fn(&Value) -> Result<(), String>,
) -> Result<Counts, String> {
    let vectors = json
        .as_array()
        .ok_or_else(|| format!("{layout} vector file is not a JSON array"))?;
    let mut counts = Counts::default();
    for (i, v) in vectors.iter().enumerate() {
        match by_token_type(v, type1, type5) {
            Ok(()) => counts.passed += 1,
            Err(e) => {
                counts.failed += 1;
                counts.failures.push(format!("vector {}: {e}", i + 1));
            }
        }
    }
    Ok(counts)
}

/// Runs every vector of an RFC 9578 layout file. A vector passes only if every field
/// matched. Errors only when the file is not a JSON array.
pub fn run(json: &Value) -> Result<Counts, String> {
    run_array(json, "RFC 9578", run_one::<Type1>, run_one::<Type5>)
}
