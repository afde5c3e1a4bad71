//! pat-go's generic token batch vectors (draft-ietf-privacypass-batched-tokens, "Generic Token
//! Batch Issuance"; `tokens/batched/batched-issuance-test-vectors.json`): each vector is a batch
//! whose `issuance` entries hold one token request each (`type`, keys, challenge, nonce, blind,
//! and for type 0x0002 the PSS salt, token), with the whole `token_request` and
//! `token_response`.
//!
//! Every batch (of 0x0001 and 0x0002 requests) is replayed byte for byte: the request from the
//! vector's nonces, blinds and salts, its decoding, the response decoded and re-encoded, the
//! tokens finalized from it, each accepted by its issuer (a 0x0002 token by the public key
//! alone), and the same tokens from a fresh response of ours.

use privacy_tokens::blind_rsa::privacy_pass as rsa;
use privacy_tokens::blind_rsa::SecretKey as RsaSecretKey;
use privacy_tokens::privacy_pass::generic_batch::{
    self, GenericBatchTokenRequest, GenericBatchTokenResponse, GenericPublicKey, GenericToken,
};
use privacy_tokens::voprf::privacy_pass::generic::Issuer;
use privacy_tokens::voprf::privacy_pass::{TokenType, Type1, NONCE_LEN};
use privacy_tokens::voprf::{SecretKey, VoprfServer};
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
        counts.record(
            &name,
            replay(v, entries).map_err(|e| format!("{name}: {e}"))?,
        );
    }
    Ok(counts)
}

/// One entry's issuer: a 0x0001 VOPRF issuer or a 0x0002 blind RSA issuer.
enum AnyIssuer {
    Type1(Issuer<Type1>),
    BlindRsa(Box<rsa::Issuer>),
}

impl AnyIssuer {
    fn key(&self) -> GenericPublicKey<'_> {
        match self {
            Self::Type1(i) => GenericPublicKey::Type1(i.public_key()),
            Self::BlindRsa(i) => GenericPublicKey::BlindRsa(i.token_key()),
        }
    }
}

/// The entry's type (a number, or a hex string in older files).
fn entry_type(e: &Value) -> Option<u16> {
    match &e["type"] {
        Value::Number(n) => n.as_u64().and_then(|t| u16::try_from(t).ok()),
        Value::String(s) => u16::from_str_radix(s, 16).ok(),
        _ => None,
    }
}

fn issuer_of(e: &Value) -> Result<AnyIssuer, String> {
    match entry_type(e) {
        Some(1) => {
            let sk = SecretKey::<<Type1 as TokenType>::Suite>::from_bytes(&hex_field(e, "skS")?)
                .map_err(|e| format!("skS: {e:?}"))?;
            let pk: &[u8] = &sk.public_key().to_bytes();
            if pk != &hex_field(e, "pkS")?[..] {
                return Err("pkS is not skS's public key".into());
            }
            Ok(AnyIssuer::Type1(Issuer::<Type1>::new(
                VoprfServer::from_secret_key(sk),
            )))
        }
        Some(2) => {
            let pem = String::from_utf8(hex_field(e, "skS")?).map_err(|e| format!("skS: {e}"))?;
            let sk = RsaSecretKey::from_pem(&pem).map_err(|e| format!("skS: {e}"))?;
            let issuer = rsa::Issuer::new(sk).map_err(|e| format!("skS: {e:?}"))?;
            if issuer.token_key().to_spki() != &hex_field(e, "pkS")?[..] {
                return Err("pkS is not skS's public key (as an RFC 9578 SPKI)".into());
            }
            Ok(AnyIssuer::BlindRsa(Box::new(issuer)))
        }
        t => Err(format!("entry type {t:?}")),
    }
}

fn nonce(e: &Value) -> Result<[u8; NONCE_LEN], String> {
    hex_field(e, "nonce")?
        .try_into()
        .map_err(|_| "nonce length".to_string())
}

/// The `blind` argument of `request_with`: the VOPRF blind, or for 0x0002 the salt and `r`.
fn blind_of(e: &Value) -> Result<Vec<u8>, String> {
    match entry_type(e) {
        Some(2) => Ok([hex_field(e, "salt")?, hex_field(e, "blind")?].concat()),
        _ => hex_field(e, "blind"),
    }
}

/// One batch, byte for byte; the mismatches.
fn replay(v: &Value, entries: &[Value]) -> Result<Vec<String>, String> {
    let mut m = Vec::new();
    let request_bytes = hex_field(v, "token_request")?;
    let response_bytes = hex_field(v, "token_response")?;
    let issuers = entries
        .iter()
        .map(issuer_of)
        .collect::<Result<Vec<_>, _>>()?;
    let challenges = entries
        .iter()
        .map(|e| hex_field(e, "token_challenge"))
        .collect::<Result<Vec<_>, _>>()?;
    let nonces = entries.iter().map(nonce).collect::<Result<Vec<_>, _>>()?;
    let blinds = entries
        .iter()
        .map(blind_of)
        .collect::<Result<Vec<_>, _>>()?;
    let tokens = entries
        .iter()
        .map(|e| hex_field(e, "token"))
        .collect::<Result<Vec<_>, _>>()?;
    let items: Vec<_> = (0..entries.len())
        .map(|j| {
            (
                issuers[j].key(),
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
                let accepted = match (t, &issuers[j]) {
                    (GenericToken::Type1(t), AnyIssuer::Type1(i)) => i.verify_token(t) == Ok(true),
                    (GenericToken::BlindRsa(t), AnyIssuer::BlindRsa(i)) => {
                        i.token_key().verify(t, None).is_ok()
                    }
                    _ => false,
                };
                if !accepted {
                    m.push(format!("token {j}: its issuer refuses it"));
                }
            }
        }
        Err(e) => m.push(format!("finalize: {e:?}")),
    }

    // Our issuer answers the same request (other VOPRF proofs, the same RSA signatures) with
    // the same tokens.
    let type1 = |id: u8| {
        issuers.iter().find_map(|i| match i {
            AnyIssuer::Type1(i) if i.truncated_token_key_id() == id => Some(i),
            _ => None,
        })
    };
    let type2 = |id: u8| {
        issuers.iter().find_map(|i| match i {
            AnyIssuer::BlindRsa(i) if i.token_key().truncated_id() == id => Some(&**i),
            _ => None,
        })
    };
    let ours = generic_batch::issue(&mut rand::rng(), &request, 256, type1, |_| None, type2)
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
