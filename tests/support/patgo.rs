//! Harness for pat-go's amortized (batched) issuance vectors
//! (draft-ietf-privacypass-batched-tokens: one DLEQ proof over the batch), token types `0x0001`
//! and `0x0005`; each vector's type is read from its `token_request`.
//!
//! Each vector is an object with the hex fields `skS, pkS, token_challenge, token_request,
//! token_response` and the lists `nonces, blinds, tokens` (one entry per token). snake_case
//! spellings of the keys (`sk_s`, `pk_s`) are accepted too.

#![allow(dead_code)]

use privacy_tokens::voprf::privacy_pass::generic::{BatchTokenRequest, Client};
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, Type5, NONCE_LEN};
use serde_json::Value;

pub use super::counts::Counts;
use super::rfc9578::{check, check_token, field, field_list, has, issuer_of, run_array};

/// Whether `json` is an array of amortized vectors.
pub fn recognises(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|e| {
                ["skS", "token_request", "nonces", "blinds", "tokens"]
                    .iter()
                    .all(|k| has(e, k))
            })
    })
}

fn run_one<T: TokenType>(v: &Value) -> Result<(), String> {
    let challenge = field(v, "token_challenge")?;
    let nonces = field_list(v, "nonces")?;
    let blinds = field_list(v, "blinds")?;
    let request_bytes = field(v, "token_request")?;
    let response_bytes = field(v, "token_response")?;
    let tokens = field_list(v, "tokens")?;
    let n = nonces.len();
    if n == 0 || blinds.len() != n || tokens.len() != n {
        return Err(format!(
            "{n} nonces, {} blinds, {} tokens",
            blinds.len(),
            tokens.len()
        ));
    }
    let issuer = issuer_of::<T>(v)?;
    let pk = *issuer.public_key();

    // The request, byte for byte, with the vector's nonces and blinds.
    let nonces: Vec<[u8; NONCE_LEN]> = nonces
        .iter()
        .map(|x| x.as_slice().try_into())
        .collect::<Result<_, _>>()
        .map_err(|_| "a nonce is not 32 bytes".to_string())?;
    let blind_refs: Vec<&[u8]> = blinds.iter().map(Vec::as_slice).collect();
    let request_with = || Client::<T>::request_batch_with(&pk, &challenge, &nonces, &blind_refs);
    let (request, state) = request_with().map_err(|e| format!("request: {e}"))?;
    check("token_request", &request.to_bytes(), &request_bytes)?;
    let parsed = BatchTokenRequest::<T>::from_bytes(&request_bytes)
        .map_err(|e| format!("token_request decode: {e}"))?;
    check(
        "token_request re-encode",
        &parsed.to_bytes(),
        &request_bytes,
    )?;
    if parsed.blinded_elements().len() != n {
        return Err(format!(
            "request holds {} elements for {n} tokens",
            parsed.blinded_elements().len()
        ));
    }

    // The issuer's evaluated elements = skS * blinded, from the request bytes (the proof is
    // randomized; compare everything before it).
    let mut rng = rand::rng();
    let ours = issuer
        .issue_batch_from_bytes(&mut rng, &request_bytes)
        .map_err(|e| format!("issue_batch_from_bytes: {e}"))?;
    let ours_bytes = ours.to_bytes();
    let proof_len = 2 * T::NS;
    if ours_bytes.len() != response_bytes.len() {
        return Err(format!(
            "response length {} want {}",
            ours_bytes.len(),
            response_bytes.len()
        ));
    }
    let elements_end = response_bytes.len() - proof_len;
    check(
        "evaluated_elements",
        &ours_bytes[..elements_end],
        &response_bytes[..elements_end],
    )?;

    // The vector's response: its batch proof verifies and finalizes to exactly `tokens`.
    let response = state
        .response_from_bytes(&response_bytes)
        .map_err(|e| format!("token_response decode: {e}"))?;
    check(
        "token_response re-encode",
        &response.to_bytes(),
        &response_bytes,
    )?;
    let finalized = state
        .finalize_batch(&response)
        .map_err(|e| format!("finalize_batch with the vector's proof: {e}"))?;
    for (i, (token, want)) in finalized.iter().zip(&tokens).enumerate() {
        check_token(&issuer, token, want).map_err(|e| format!("token {i}: {e}"))?;
    }

    // Our own response (our proof) finalizes to the same tokens.
    let (_, state) = request_with().map_err(|e| format!("request: {e}"))?;
    let again = state
        .finalize_batch(&ours)
        .map_err(|e| format!("finalize_batch with our proof: {e}"))?;
    for (i, (token, want)) in again.iter().zip(&tokens).enumerate() {
        check(
            &format!("token {i} from our response"),
            token.to_bytes().as_ref(),
            want,
        )?;
    }

    // The vector's proof with one bit flipped is rejected for the whole batch.
    let mut bad = response_bytes.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let (_, state) = request_with().map_err(|e| format!("request: {e}"))?;
    match state
        .response_from_bytes(&bad)
        .map(|r| state.finalize_batch(&r))
    {
        Ok(Ok(_)) => Err("a flipped proof bit was accepted".into()),
        _ => Ok(()),
    }
}

/// Runs every vector of an amortized layout file. A vector passes only if every check held.
/// Errors only when the file is not a JSON array.
pub fn run(json: &Value) -> Result<Counts, String> {
    run_array(json, "amortized", run_one::<Type1>, run_one::<Type5>)
}
