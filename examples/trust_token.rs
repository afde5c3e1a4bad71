//! Private State Tokens end to end: an issuer and a client for every method, issuance with the
//! private metadata bit, redemption.
//!
//! ```text
//! cargo run --release --example trust_token
//! cargo run --release --example trust_token -- --emit rust-pst-v1.json
//! python3 ../shared/tools/pst_v1_reference.py rust-pst-v1.json
//! ```
//!
//! With `--emit FILE` it also writes transcripts made by this crate's issuer and client in the
//! layout of `test-vectors/trust-token-boringssl-pst-v1.json` (keys derived from the secret
//! `"SEED"` with key id 1, 3 tokens, client data `"\x70TEST CLIENT DATA"`), so an independent
//! checker (the reference script, or BoringSSL) can verify them.

use privacy_tokens::trust_token::{derive_key_from_secret, generate_key, Client, Issuer, Method};
use serde_json::{json, Map, Value};

const CLIENT_DATA: &[u8] = b"\x70TEST CLIENT DATA";

fn flow(method: Method) -> Result<(), privacy_tokens::Error> {
    let mut rng = rand::rng();
    // The issuer publishes its public key blobs in its key commitment ("Y", base64).
    let mut issuer = Issuer::new(method, 10);
    let mut client = Client::new(method, 10);
    for key_id in 0..method.max_keys() as u32 {
        let (private, public) = generate_key(method, key_id, &mut rng);
        issuer.add_key(private)?;
        client.add_key_bytes(&public.to_bytes())?;
    }
    let bit = method.has_private_metadata();
    let request = client.begin_issuance(5, &mut rng)?;
    let response = issuer.issue(&request.message, 1, bit, 10, &mut rng)?;
    let tokens = client.finish_issuance(request.state, &response.message)?;
    let redemption = client.begin_redemption(&tokens[0], CLIENT_DATA)?;
    let r = issuer.redeem(&redemption)?;
    println!(
        "{:<20} request {:>4} B, response {:>5} B, {} tokens of {} B, redemption {} B -> key {} bit {}",
        method.name(),
        request.message.len(),
        response.message.len(),
        tokens.len(),
        tokens[0].as_bytes().len(),
        redemption.len(),
        r.key_id,
        u8::from(r.private_metadata)
    );
    Ok(())
}

fn transcripts(method: Method) -> Result<Value, privacy_tokens::Error> {
    let mut rng = rand::rng();
    let (private, public) = derive_key_from_secret(method, 1, b"SEED")?;
    let mut issuer = Issuer::new(method, 10);
    issuer.add_key(private.clone())?;
    let mut client = Client::new(method, 10);
    client.add_key(public)?;
    let mut ts = Map::new();
    let bits: &[u8] = if method.has_private_metadata() {
        &[0, 1]
    } else {
        &[0]
    };
    for &bit in bits {
        let request = client.begin_issuance(3, &mut rng)?;
        let response = issuer.issue(&request.message, 1, bit == 1, 10, &mut rng)?;
        let tokens = client.finish_issuance(request.state, &response.message)?;
        let mut rr = Vec::new();
        let mut nonces = Vec::new();
        for t in &tokens {
            let req = client.begin_redemption(t, CLIENT_DATA)?;
            nonces.push(hex::encode(issuer.redeem(&req)?.nonce));
            rr.push(hex::encode(req));
        }
        ts.insert(
            format!("private_bit_{bit}"),
            json!({
                "public_metadata_key_id": 1,
                "private_metadata": bit,
                "count": tokens.len(),
                "request": hex::encode(&request.message),
                "response": hex::encode(&response.message),
                "tokens": tokens.iter().map(|t| hex::encode(t.as_bytes())).collect::<Vec<_>>(),
                "redeem_requests": rr,
                "client_data": vec![hex::encode(CLIENT_DATA); tokens.len()],
                "redeem_nonces": nonces,
            }),
        );
    }
    Ok(json!({
        "key": {
            "secret": hex::encode(b"SEED"),
            "key_id": 1,
            "priv": hex::encode(private.to_bytes().as_slice()),
            "pub": hex::encode(public.to_bytes()),
        },
        "transcripts": ts,
    }))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for method in Method::ALL {
        flow(method)?;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = &args[..] {
        if flag == "--emit" {
            let doc = json!({
                "_about": "Transcripts made by privacy-tokens (Rust issuer and client), layout of trust-token-boringssl-pst-v1.json",
                "methods": {
                    "pst_v1_voprf": transcripts(Method::PstV1Voprf)?,
                    "pst_v1_pmb": transcripts(Method::PstV1Pmb)?,
                }
            });
            std::fs::write(path, serde_json::to_string_pretty(&doc)?)?;
            println!("wrote {path}");
        }
    }
    Ok(())
}
