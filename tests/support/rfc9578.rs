//! Harness for RFC 9578 Appendix A.1 layout files (issuance protocol 1, VOPRF(P-384, SHA-384)).
//!
//! Each vector is an object with the hex fields
//! `skS, pkS, token_challenge, nonce, blind, token_request, token_response, token`.

use privacy_tokens::voprf::privacy_pass::{
    request_with, token_key_id, Issuer, Token, TokenRequest, TokenResponse, NE, NONCE_LEN,
};
use privacy_tokens::voprf::{SecretKey, VoprfServer};
use privacy_tokens::P384Sha384;

// The including test crate declares `#[path = "support/counts.rs"] mod counts;` at its root.
pub use super::counts::Counts;

fn field(v: &serde_json::Value, name: &str) -> Result<Vec<u8>, String> {
    let s = v
        .get(name)
        .and_then(|x| x.as_str())
        .ok_or_else(|| format!("missing field {name}"))?;
    hex::decode(s).map_err(|e| format!("{name}: bad hex: {e}"))
}

fn check(what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
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

fn run_one(v: &serde_json::Value) -> Result<(), String> {
    let sk_bytes = field(v, "skS")?;
    let pk_bytes = field(v, "pkS")?;
    let challenge = field(v, "token_challenge")?;
    let nonce = field(v, "nonce")?;
    let blind = field(v, "blind")?;
    let request_bytes = field(v, "token_request")?;
    let response_bytes = field(v, "token_response")?;
    let token_bytes = field(v, "token")?;

    // pkS == SerializeElement(skS * G)
    let sk = SecretKey::<P384Sha384>::from_bytes(&sk_bytes).map_err(|e| format!("skS: {e}"))?;
    let pk = sk.public_key();
    check("pkS", &pk.to_bytes()[..], &pk_bytes)?;
    let issuer = Issuer::new(VoprfServer::from_secret_key(sk));

    // token_key_id: its last byte is the request's truncated id.
    let key_id = token_key_id(&pk);
    check("token_key_id", &key_id, issuer.token_key_id())?;
    let want_trunc = *request_bytes.get(2).ok_or("token_request too short")?;
    if key_id[31] != want_trunc {
        return Err(format!(
            "truncated key id: token_key_id ends in {:02x}, request carries {want_trunc:02x}",
            key_id[31]
        ));
    }

    // The request, byte for byte, with the vector's nonce and blind.
    let nonce: [u8; NONCE_LEN] = nonce
        .as_slice()
        .try_into()
        .map_err(|_| "nonce is not 32 bytes".to_string())?;
    let (request, state) =
        request_with(&pk, &challenge, &nonce, &blind).map_err(|e| format!("request: {e}"))?;
    check("token_request", &request.to_bytes(), &request_bytes)?;
    let parsed = TokenRequest::from_bytes(&request_bytes)
        .map_err(|e| format!("token_request decode: {e}"))?;
    check(
        "token_request re-encode",
        &parsed.to_bytes(),
        &request_bytes,
    )?;

    // The issuer's evaluate_msg = skS * blinded (the proof is randomized; compare the element).
    let mut rng = rand::rng();
    let ours = issuer
        .issue(&mut rng, &request)
        .map_err(|e| format!("issue: {e}"))?;
    check(
        "evaluate_msg",
        &ours.to_bytes()[..NE],
        response_bytes.get(..NE).ok_or("token_response too short")?,
    )?;

    // The RFC's response: its proof verifies and finalizes to exactly `token`.
    let response = TokenResponse::from_bytes(&response_bytes)
        .map_err(|e| format!("token_response decode: {e}"))?;
    check(
        "token_response re-encode",
        &response.to_bytes(),
        &response_bytes,
    )?;
    let token = state
        .finalize(&response)
        .map_err(|e| format!("finalize with the RFC proof: {e}"))?;
    check("token", &token.to_bytes(), &token_bytes)?;

    // Issuer (= origin) verification: true for `token`, false after one authenticator bit flip.
    let parsed = Token::from_bytes(&token_bytes).map_err(|e| format!("token decode: {e}"))?;
    if parsed != token {
        return Err("token decode differs from finalize".into());
    }
    match issuer.verify_token(&parsed) {
        Ok(true) => {}
        other => return Err(format!("verify_token(token) = {other:?}, want Ok(true)")),
    }
    let mut flipped = parsed;
    flipped.authenticator[0] ^= 1;
    match issuer.verify_token(&flipped) {
        Ok(false) => {}
        other => {
            return Err(format!(
                "verify_token(flipped token) = {other:?}, want Ok(false)"
            ))
        }
    }
    Ok(())
}

/// Runs every vector of an RFC 9578 type-1 layout file. A vector passes only if every field
/// matched. Errors only when the file is not a JSON array.
pub fn run(json: &serde_json::Value) -> Result<Counts, String> {
    let vectors = json
        .as_array()
        .ok_or_else(|| "RFC 9578 vector file is not a JSON array".to_string())?;
    let mut counts = Counts::default();
    for (i, v) in vectors.iter().enumerate() {
        match run_one(v) {
            Ok(()) => counts.passed += 1,
            Err(e) => {
                counts.failed += 1;
                counts.failures.push(format!("vector {}: {e}", i + 1));
            }
        }
    }
    Ok(counts)
}
