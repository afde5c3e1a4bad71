//! pat-go's generic token batch vectors (draft-ietf-privacypass-batched-tokens, "Generic Token
//! Batch Issuance"; `tokens/batched/batched-issuance-test-vectors.json`): each vector is a batch
//! whose `issuance` entries hold one token request each (`type`, keys, challenge, nonce, blind,
//! token), with the whole `token_request` and `token_response`.
//!
//! A batch of 0x0001 requests is replayed byte for byte: the request from the vector's nonces
//! and blinds, its decoding, the response decoded and re-encoded, the tokens finalized from it,
//! each accepted by its issuer, and the same tokens from a fresh response of ours. A batch
//! holding a type this crate does not implement (0x0002, Blind RSA) is skipped, after checking
//! that the request and the response are refused whole with `UnsupportedValue` and that its
//! 0x0001 requests are reproduced byte for byte inside the batch (a failure otherwise).

use privacy_tokens::voprf::privacy_pass::generic::Issuer;
use privacy_tokens::voprf::privacy_pass::generic_batch::{
    self, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericPublicKey, GenericToken,
};
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, NONCE_LEN};
use privacy_tokens::voprf::{SecretKey, VoprfServer};
use privacy_tokens::Error;
use serde_json::Value;

use super::counts::{check, hex_field, Counts};

/// Whether `json` is this layout: a non-empty array of batches with `issuance` entries.
pub fn recognises(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|v| {
                v.get("issuance").is_some_and(Value::is_array)
                    && v.get("token_request").is_some()
                    && v.get("token_response").is_some()
            })
    })
}

/// Replays every batch of the file.
pub fn run(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    for (i, v) in json.as_array().ok_or("not an array")?.iter().enumerate() {
        let name = format!("generic batch {}", i + 1);
        let entries = v["issuance"].as_array().ok_or("issuance")?;
        let types: Vec<&str> = entries.iter().filter_map(|e| e["type"].as_str()).collect();
        if types.len() != entries.len() {
            return Err(format!("{name}: an entry without a type"));
        }
        if types.iter().all(|t| *t == "0001") {
            counts.record(&name, replay_type1(v, entries)?);
        } else {
            let m = refused_whole(v, entries)?;
            if m.is_empty() {
                counts.skipped += 1;
            } else {
                counts.record(&name, m);
            }
        }
    }
    Ok(counts)
}

fn issuer_of<T: TokenType>(e: &Value) -> Result<Issuer<T>, String> {
    let sk = SecretKey::<T::Suite>::from_bytes(&hex_field(e, "skS")?)
        .map_err(|e| format!("skS: {e:?}"))?;
    if sk.public_key().to_bytes().as_ref() != &hex_field(e, "pkS")?[..] {
        return Err("pkS is not skS's public key".into());
    }
    Ok(Issuer::<T>::new(VoprfServer::from_secret_key(sk)))
}

fn nonce(e: &Value) -> Result<[u8; NONCE_LEN], String> {
    hex_field(e, "nonce")?
        .try_into()
        .map_err(|_| "nonce length".to_string())
}

/// A batch of 0x0001 requests, byte for byte; the mismatches.
fn replay_type1(v: &Value, entries: &[Value]) -> Result<Vec<String>, String> {
    let mut m = Vec::new();
    let request_bytes = hex_field(v, "token_request")?;
    let response_bytes = hex_field(v, "token_response")?;
    let issuers = entries
        .iter()
        .map(issuer_of::<Type1>)
        .collect::<Result<Vec<_>, _>>()?;
    let challenges = entries
        .iter()
        .map(|e| hex_field(e, "token_challenge"))
        .collect::<Result<Vec<_>, _>>()?;
    let nonces = entries.iter().map(nonce).collect::<Result<Vec<_>, _>>()?;
    let blinds = entries
        .iter()
        .map(|e| hex_field(e, "blind"))
        .collect::<Result<Vec<_>, _>>()?;
    let tokens = entries
        .iter()
        .map(|e| hex_field(e, "token"))
        .collect::<Result<Vec<_>, _>>()?;
    let items: Vec<_> = (0..entries.len())
        .map(|j| {
            (
                GenericPublicKey::Type1(issuers[j].public_key()),
                &challenges[j][..],
                &nonces[j],
                &blinds[j][..],
            )
        })
        .collect();

    let (request, state) =
        generic_batch::request_with(&items).map_err(|e| format!("request: {e:?}"))?;
    check(&mut m, "token_request", &request.to_bytes(), &request_bytes);
    match GenericBatchTokenRequest::from_bytes(&request_bytes) {
        Ok(parsed) if parsed == request => {}
        Ok(_) => m.push("token_request decodes to another request".into()),
        Err(e) => m.push(format!("token_request refused: {e:?}")),
    }
    let response = match GenericBatchTokenResponse::from_bytes(&response_bytes) {
        Ok(r) => r,
        Err(e) => {
            m.push(format!("token_response refused: {e:?}"));
            return Ok(m);
        }
    };
    check(
        &mut m,
        "token_response re-encoded",
        &response.to_bytes(),
        &response_bytes,
    );
    match state.finalize(&response) {
        Ok(got) => {
            for (j, t) in got.iter().enumerate() {
                let Some(t) = t else {
                    m.push(format!("token {j} absent"));
                    continue;
                };
                check(&mut m, &format!("token {j}"), &t.to_bytes(), &tokens[j]);
                let GenericToken::Type1(t) = t else {
                    m.push(format!("token {j}: not a 0x0001 token"));
                    continue;
                };
                if issuers[j].verify_token(t) != Ok(true) {
                    m.push(format!("token {j}: its issuer refuses it"));
                }
            }
        }
        Err(e) => m.push(format!("finalize: {e:?}")),
    }

    // Our issuer answers the same request with other proofs but the same tokens.
    let by_id = |id: u8| issuers.iter().find(|i| i.truncated_token_key_id() == id);
    let ours = generic_batch::issue(&mut rand::rng(), &request, 256, by_id, |_| None)
        .map_err(|e| format!("issue: {e:?}"))?;
    let (_, state) = generic_batch::request_with(&items).map_err(|e| format!("{e:?}"))?;
    match state.finalize(&ours) {
        Ok(again) => {
            let again: Vec<Vec<u8>> = again.iter().flatten().map(|t| t.to_bytes()).collect();
            if again != tokens {
                m.push("tokens from our response differ".into());
            }
        }
        Err(e) => m.push(format!("finalize of our response: {e:?}")),
    }
    Ok(m)
}

/// A batch holding a type this crate does not implement: refused whole, its 0x0001 requests
/// reproduced inside it; the mismatches.
fn refused_whole(v: &Value, entries: &[Value]) -> Result<Vec<String>, String> {
    let mut m = Vec::new();
    let request_bytes = hex_field(v, "token_request")?;
    let response_bytes = hex_field(v, "token_response")?;
    let request = GenericBatchTokenRequest::from_bytes(&request_bytes);
    if request != Err(Error::UnsupportedValue) {
        m.push(format!("token_request: {request:?}, want UnsupportedValue"));
    }
    let response = GenericBatchTokenResponse::from_bytes(&response_bytes);
    if response.as_ref().err() != Some(&Error::UnsupportedValue) {
        m.push(format!(
            "token_response: {response:?}, want UnsupportedValue"
        ));
    }
    for (j, e) in entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "0001")
    {
        let issuer = issuer_of::<Type1>(e)?;
        let (r, _) = generic_batch::request_with(&[(
            GenericPublicKey::Type1(issuer.public_key()),
            &hex_field(e, "token_challenge")?[..],
            &nonce(e)?,
            &hex_field(e, "blind")?[..],
        )])
        .map_err(|e| format!("request {j}: {e:?}"))?;
        let one = r.requests()[0].to_bytes();
        if !request_bytes.windows(one.len()).any(|w| w == one) {
            m.push(format!(
                "request {j}: our 0x0001 request is not in the batch"
            ));
        }
    }
    Ok(m)
}
