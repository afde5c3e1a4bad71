//! Replay of recorded BoringSSL Trust Token transcripts (`trust-token-boringssl-pst-v1.json`):
//! key derivation blobs, the client's verification of each recorded issue response, and the
//! issuer's redemption of each recorded redemption request, every field compared.

use serde_json::Value;

use privacy_tokens::trust_token::{derive_key_from_secret, Client, Issuer, Method};

use super::counts::{hex_field, Counts};

/// Whether the document has the layout `{ "methods": { "<boringssl method>": { "key", "transcripts" } } }`.
pub fn recognises(json: &Value) -> bool {
    json.get("methods")
        .and_then(Value::as_object)
        .is_some_and(|m| {
            !m.is_empty()
                && m.values()
                    .all(|v| v.get("key").is_some() && v.get("transcripts").is_some())
        })
}

fn int(v: &Value, key: &str) -> Result<u64, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("missing integer {key}"))
}

fn hex_list(v: &Value, key: &str) -> Result<Vec<Vec<u8>>, String> {
    v.get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("missing list {key}"))?
        .iter()
        .map(|x| {
            x.as_str()
                .ok_or_else(|| format!("{key}: not a string"))
                .and_then(|s| hex::decode(s).map_err(|e| format!("{key}: {e}")))
        })
        .collect()
}

/// Replays every method of the file. Methods this crate does not know count as skipped.
pub fn run(json: &Value) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let methods = json
        .get("methods")
        .and_then(Value::as_object)
        .ok_or("missing methods")?;
    for (name, m) in methods {
        let Some(method) = Method::from_name(name) else {
            counts.skipped += 1;
            continue;
        };
        let key = m.get("key").ok_or("missing key")?;
        let secret = hex_field(key, "secret")?;
        let key_id = u32::try_from(int(key, "key_id")?).map_err(|e| e.to_string())?;
        let want_priv = hex_field(key, "priv")?;
        let want_pub = hex_field(key, "pub")?;

        // Key derivation KAT, and both blobs decode back to the same keys.
        let mut bad = Vec::new();
        let (sk, pk) = derive_key_from_secret(method, key_id, &secret)
            .map_err(|e| format!("{name}: derive: {e}"))?;
        if sk.to_bytes().as_slice() != want_priv.as_slice() {
            bad.push("priv".to_string());
        }
        if pk.to_bytes() != want_pub {
            bad.push("pub".to_string());
        }
        match privacy_tokens::trust_token::PrivateKey::from_bytes(method, &want_priv) {
            Ok(k) if k == sk && k.public_key() == pk => {}
            other => bad.push(format!("priv blob decode: {other:?}")),
        }
        match privacy_tokens::trust_token::PublicKey::from_bytes(method, &want_pub) {
            Ok(k) if k == pk => {}
            other => bad.push(format!("pub blob decode: {other:?}")),
        }
        counts.record(&format!("{name}/key"), bad);

        let mut issuer = Issuer::new(method, u16::MAX);
        issuer
            .add_key_bytes(&want_priv)
            .map_err(|e| format!("{name}: issuer key: {e}"))?;
        let mut client = Client::new(method, u16::MAX);
        client
            .add_key_bytes(&want_pub)
            .map_err(|e| format!("{name}: client key: {e}"))?;

        let transcripts = m
            .get("transcripts")
            .and_then(Value::as_object)
            .ok_or("missing transcripts")?;
        for (tname, t) in transcripts {
            let case = format!("{name}/{tname}");
            let bit = int(t, "private_metadata")? == 1;
            let kid =
                u32::try_from(int(t, "public_metadata_key_id")?).map_err(|e| e.to_string())?;
            let count = usize::try_from(int(t, "count")?).map_err(|e| e.to_string())?;
            let request = hex_field(t, "request")?;
            let response = hex_field(t, "response")?;
            let tokens = hex_list(t, "tokens")?;
            let redeem_requests = hex_list(t, "redeem_requests")?;
            let client_data = hex_list(t, "client_data")?;
            let nonces = hex_list(t, "redeem_nonces")?;

            // Client: the recorded response verifies against the recorded request.
            let mut bad = Vec::new();
            match client.verify_issuance(&request, &response) {
                Ok(n) if usize::from(n) == count => {}
                other => bad.push(format!("verify_issuance: {other:?}")),
            }
            // Layout: u16 count, u32 key id.
            if response.get(..6)
                != Some(&[&(count as u16).to_be_bytes()[..], &kid.to_be_bytes()].concat()[..])
            {
                bad.push("response header".into());
            }
            // A flipped proof byte is rejected.
            let mut tampered = response.clone();
            if let Some(last) = tampered.last_mut() {
                *last ^= 1;
            }
            if client.verify_issuance(&request, &tampered).is_ok() {
                bad.push("tampered response accepted".into());
            }
            counts.record(&format!("{case}/response"), bad);

            // Issuer: every recorded redemption request redeems to the recorded values.
            if tokens.len() != count
                || redeem_requests.len() != count
                || client_data.len() != count
                || nonces.len() != count
            {
                return Err(format!("{case}: list lengths differ from count"));
            }
            for j in 0..count {
                let mut bad = Vec::new();
                if tokens[j].len() != method.token_len() || tokens[j][..4] != kid.to_be_bytes() {
                    bad.push("token layout".into());
                }
                let token = privacy_tokens::trust_token::Token::from_bytes(tokens[j].clone())
                    .map_err(|e| format!("{case}: token {j}: {e}"))?;
                match client.begin_redemption(&token, &client_data[j]) {
                    Ok(r) if r == redeem_requests[j] => {}
                    other => bad.push(format!("begin_redemption: {other:?}")),
                }
                match issuer.redeem(&redeem_requests[j]) {
                    Ok(r) => {
                        if r.key_id != kid {
                            bad.push(format!("key id {}", r.key_id));
                        }
                        if r.private_metadata != bit {
                            bad.push(format!("private bit {}", r.private_metadata));
                        }
                        if r.nonce[..] != nonces[j][..] {
                            bad.push("nonce".into());
                        }
                        if r.client_data != client_data[j] {
                            bad.push("client data".into());
                        }
                    }
                    Err(e) => bad.push(format!("redeem: {e}")),
                }
                counts.record(&format!("{case}/token{j}"), bad);
            }
        }
    }
    Ok(counts)
}
