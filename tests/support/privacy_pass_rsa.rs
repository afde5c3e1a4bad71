//! Privacy Pass publicly verifiable token vectors: type `0x0002` (RFC 9578 Appendix A.2 as
//! privacypass-ts's Go file, privacypass-rs's file, pat-go's file) and type `0xDA7A`
//! (privacypass-ts's vector with extensions): the private key's PEM, the SPKI and its key id,
//! the request, the response and the token byte for byte, origin verification and its
//! refusals. And RFC 9577 Appendix A.1's token inputs (framing only).

use privacy_tokens::blind_rsa::privacy_pass::{
    Client, Extensions, Issuer, Token, TokenKey, TOKEN_TYPE_BLIND_RSA,
    TOKEN_TYPE_PARTIALLY_BLIND_RSA,
};
use privacy_tokens::blind_rsa::SecretKey;
use privacy_tokens::voprf::privacy_pass::TokenChallenge;
use privacy_tokens::Error;
use serde_json::Value;

use super::counts::{check, hex_field, Counts};

/// Whether a document is an array of type `0x0002` or `0xDA7A` issuance vectors.
pub fn recognises(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|e| {
                e.get("skS").is_some()
                    && e.get("salt").is_some()
                    && e["token_challenge"]
                        .as_str()
                        .is_some_and(|c| c.starts_with("0002") || c.starts_with("da7a"))
            })
    })
}

/// Whether a document is RFC 9577 Appendix A.1's token inputs.
pub fn recognises_token_inputs(json: &Value) -> bool {
    json.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter()
                .all(|e| e.get("token_authenticator_input").is_some())
    })
}

fn one(v: &Value, m: &mut Vec<String>) -> Result<(), String> {
    let pem = String::from_utf8(hex_field(v, "skS")?).map_err(|e| format!("skS: {e}"))?;
    let sk = SecretKey::from_pem(&pem).map_err(|e| format!("skS: {e}"))?;
    let pk_s = hex_field(v, "pkS")?;
    let key = TokenKey::from_spki(&pk_s).map_err(|e| format!("pkS: {e}"))?;
    let issuer = Issuer::new(sk).map_err(|e| format!("issuer: {e}"))?;
    check(m, "pkS (our SPKI)", issuer.token_key().to_spki(), &pk_s);
    if issuer.token_key() != &key {
        m.push("the private key's public half is not pkS".into());
    }
    // The private key re-encodes to a key that decodes to itself.
    let challenge = hex_field(v, "token_challenge")?;
    let extensions = match v.get("extensions") {
        Some(_) => Some(
            Extensions::from_bytes(&hex_field(v, "extensions")?)
                .map_err(|e| format!("extensions: {e}"))?,
        ),
        None => None,
    };
    let nonce: [u8; 32] = hex_field(v, "nonce")?
        .try_into()
        .map_err(|_| "nonce is not 32 bytes")?;
    let (request, state) = match Client::request_with(
        &key,
        &challenge,
        extensions.as_ref(),
        &nonce,
        &hex_field(v, "salt")?,
        &hex_field(v, "blind")?,
    ) {
        Ok(x) => x,
        Err(e) => {
            m.push(format!("request: {e}"));
            return Ok(());
        }
    };
    let want_request = hex_field(v, "token_request")?;
    let ours = match &extensions {
        Some(ext) => [request.to_bytes().as_slice(), ext.as_bytes()].concat(),
        None => request.to_bytes(),
    };
    check(m, "token_request", &ours, &want_request);
    let response = match &extensions {
        Some(_) => issuer.issue_extended(&want_request, |_| true),
        None => issuer.issue(&want_request),
    };
    let want_response = hex_field(v, "token_response")?;
    match response {
        Ok(r) => check(m, "token_response", &r.to_bytes(), &want_response),
        Err(e) => m.push(format!("issue: {e}")),
    }
    let want_token = hex_field(v, "token")?;
    match state.finalize(&want_response) {
        Ok(t) => check(m, "token", &t.to_bytes(), &want_token),
        Err(e) => m.push(format!("finalize: {e}")),
    }
    let token = Token::from_bytes(&want_token).map_err(|e| format!("token: {e}"))?;
    let digest: [u8; 32] = {
        use sha2::Digest;
        sha2::Sha256::digest(&challenge).into()
    };
    if token.challenge_digest() != &digest {
        m.push("the token's challenge digest is not the challenge's".into());
    }
    if let Err(e) = key.verify(&token, extensions.as_ref()) {
        m.push(format!("verify: {e}"));
    }
    // Refusals.
    let mut bad = want_token.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    match Token::from_bytes(&bad) {
        Ok(t) if key.verify(&t, extensions.as_ref()) == Err(Error::InvalidSignature) => {}
        _ => m.push("a flipped authenticator bit is not InvalidSignature".into()),
    }
    let mut bad = want_token.clone();
    bad[5] ^= 1;
    match Token::from_bytes(&bad) {
        Ok(t) if key.verify(&t, extensions.as_ref()) == Err(Error::InvalidSignature) => {}
        _ => m.push("a flipped nonce bit is not InvalidSignature".into()),
    }
    if Token::from_bytes(&want_token[1..]).err() != Some(Error::InvalidLength) {
        m.push("a short token is not InvalidLength".into());
    }
    match &extensions {
        Some(ext) => {
            if key.verify(&token, None) != Err(Error::InvalidInput) {
                m.push("a 0xDA7A token verifies without its extensions".into());
            }
            let other = Extensions::new(vec![]).map_err(|e| e.to_string())?;
            if key.verify(&token, Some(&other)) != Err(Error::InvalidSignature) {
                m.push("a 0xDA7A token verifies under other extensions".into());
            }
            // The same authenticator as a 0x0002 token does not verify.
            let mut as_type2 = want_token.clone();
            as_type2[..2].copy_from_slice(&TOKEN_TYPE_BLIND_RSA.to_be_bytes());
            if let Ok(t) = Token::from_bytes(&as_type2) {
                if key.verify(&t, None).is_ok() {
                    m.push("the 0xDA7A authenticator verifies as 0x0002".into());
                }
            }
            if issuer.issue_extended(&want_request, |_| false) != Err(Error::UnsupportedValue) {
                m.push("the extension policy's refusal is not UnsupportedValue".into());
            }
            if issuer.issue(&want_request) != Err(Error::InvalidLength) {
                m.push("an extended request is accepted as 0x0002".into());
            }
            let _ = ext;
        }
        None => {
            if key.verify(
                &token,
                Some(&Extensions::new(vec![]).map_err(|e| e.to_string())?),
            ) != Err(Error::InvalidInput)
            {
                m.push("a 0x0002 token accepts extensions".into());
            }
            let mut other_id = want_request.clone();
            other_id[2] ^= 1;
            if issuer.issue(&other_id) != Err(Error::UnsupportedValue) {
                m.push("another truncated key id is served".into());
            }
            let mut trailing = want_request.clone();
            trailing.push(0);
            if issuer.issue(&trailing) != Err(Error::InvalidLength) {
                m.push("a request with a trailing byte is served".into());
            }
            let mut as_da7a = challenge.clone();
            as_da7a[..2].copy_from_slice(&TOKEN_TYPE_PARTIALLY_BLIND_RSA.to_be_bytes());
            if Client::request_with(
                &key,
                &as_da7a,
                None,
                &nonce,
                &hex_field(v, "salt")?,
                &hex_field(v, "blind")?,
            )
            .err()
                != Some(Error::UnsupportedValue)
            {
                m.push("a 0xDA7A challenge is answered with a 0x0002 request".into());
            }
        }
    }
    Ok(())
}

/// Every vector of a type `0x0002` or `0xDA7A` file.
pub fn run(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    for (i, v) in json.as_array().ok_or("not an array")?.iter().enumerate() {
        let mut m = Vec::new();
        one(v, &mut m)?;
        counts.record(&format!("vector {i}"), m);
    }
    Ok(counts)
}

/// RFC 9577 Appendix A.1: `token_type || nonce || SHA-256(TokenChallenge) || token_key_id`
/// with the challenge built from its parts, for the types this crate issues.
pub fn run_token_inputs(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    for (i, v) in json.as_array().ok_or("not an array")?.iter().enumerate() {
        let mut m = Vec::new();
        let t = hex_field(v, "token_type")?;
        let token_type = u16::from_be_bytes([t[0], t[1]]);
        let challenge = TokenChallenge::new(
            token_type,
            hex_field(v, "issuer_name")?,
            hex_field(v, "redemption_context")?,
            hex_field(v, "origin_info")?,
        )
        .map_err(|e| format!("challenge: {e}"))?;
        let digest = challenge.digest();
        let input = [
            t.as_slice(),
            &hex_field(v, "nonce")?,
            &digest,
            &hex_field(v, "token_key_id")?,
        ]
        .concat();
        check(
            &mut m,
            "token_authenticator_input",
            &input,
            &hex_field(v, "token_authenticator_input")?,
        );
        // Our Token's own token_input over the same parts.
        let token_bytes = [input.as_slice(), &[0u8; 256]].concat();
        match Token::from_bytes(&token_bytes) {
            Ok(token) => check(&mut m, "Token::token_input", &token.token_input(), &input),
            Err(e) => m.push(format!("token: {e}")),
        }
        counts.record(&format!("token input {i}"), m);
    }
    Ok(counts)
}
