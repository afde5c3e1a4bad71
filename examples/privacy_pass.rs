//! Privacy Pass issuance protocol 1 (RFC 9578 §5): issuer, client and origin in one process.
//!
//! Run with `cargo run --release --example privacy_pass`.

use privacy_tokens::voprf::privacy_pass::{
    Client, Issuer, Token, TokenChallenge, TokenRequest, TokenResponse, TOKEN_TYPE,
};
use privacy_tokens::voprf::VoprfServer;

fn main() -> Result<(), privacy_tokens::Error> {
    let mut rng = rand::rng();

    // Issuer: a key derived as RFC 9578 §6.5 recommends.
    let mut seed = [0u8; 48];
    rand::Rng::fill_bytes(&mut rng, &mut seed);
    let issuer = Issuer::new(VoprfServer::derive(&seed, b"PrivacyPass")?);
    let pk = issuer.public_key();
    println!("issuer public key:   {} bytes", pk.to_bytes().len());

    // Origin: a challenge (RFC 9577 §2.1).
    let challenge = TokenChallenge::new(
        TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )?
    .to_bytes();
    println!("token challenge:     {} bytes", challenge.len());

    // Client -> issuer.
    let (request, state) = Client::request(pk, &challenge, &mut rng)?;
    let request_bytes = request.to_bytes();
    println!("token request:       {} bytes", request_bytes.len());

    // Issuer -> client.
    let response = issuer.issue(&mut rng, &TokenRequest::from_bytes(&request_bytes)?)?;
    let response_bytes = response.to_bytes();
    println!("token response:      {} bytes", response_bytes.len());

    // Client finalizes and redeems at the origin.
    let token = state.finalize(&TokenResponse::from_bytes(&response_bytes)?)?;
    let token_bytes = token.to_bytes();
    println!("token:               {} bytes", token_bytes.len());

    // Origin: private verification with the issuer key (RFC 9578 §5.5).
    let token = Token::from_bytes(&token_bytes)?;
    if token.challenge_digest == TokenChallenge::from_bytes(&challenge)?.digest()
        && issuer.verify_token(&token)?
    {
        println!("token verified");
        Ok(())
    } else {
        println!("token rejected");
        Err(privacy_tokens::Error::InvalidProof)
    }
}
