//! A minimal Privacy Pass client for the README's walk-through: fetches a challenge from
//! `/private`, obtains one type 0x0001 token from the issuer (blinding needs a client, not
//! curl), and prints the `Authorization` value to redeem with curl.
//!
//! ```text
//! cargo run --release --example client -- http://127.0.0.1:8080
//! ```

use base64::Engine as _;
use privacy_tokens::voprf::privacy_pass::{Client, TokenResponse};
use privacy_tokens::voprf::PublicKey;
use privacy_tokens::P384Sha384;
use privacy_tokens_server::auth::B64URL;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let http = reqwest::Client::new();

    // 1. The origin's challenge (the type 0x0001 line of the 401).
    let r = http.get(format!("{base}/private")).send().await?;
    let line = r
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|l| l.contains("challenge=AAE"))
        .ok_or("no type 0x0001 challenge")?
        .to_string();
    let param = |name: &str| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        let v = line
            .split(", ")
            .find_map(|p| p.split_once('=').filter(|(k, _)| k.ends_with(name)))
            .ok_or("missing parameter")?
            .1;
        Ok(B64URL.decode(v)?)
    };
    let challenge = param("challenge")?;
    let key = PublicKey::<P384Sha384>::from_bytes(&param("token-key")?)?;
    println!("1. GET /private -> {} with {line}", r.status());

    // 2. Issuance: a blinded request, POSTed to the issuer request URI.
    let (request, state) = Client::request(&key, &challenge, &mut rand::rng())?;
    let r = http
        .post(format!("{base}/token-request"))
        .header("content-type", "application/private-token-request")
        .body(request.to_bytes().to_vec())
        .send()
        .await?;
    println!(
        "2. POST /token-request (52-byte application/private-token-request) -> {}",
        r.status()
    );
    let token = state.finalize(&TokenResponse::from_bytes(&r.bytes().await?)?)?;

    // 3. Redeem with curl.
    println!("3. redeem it (twice: the second answers 401 token already spent):");
    println!(
        "   curl -si -H 'Authorization: PrivateToken token={}' {base}/private",
        B64URL.encode(token.to_bytes())
    );
    Ok(())
}
