//! Privacy Pass privately verifiable tokens (RFC 9578 §5): issuer, client and origin in one
//! process, for each token type, one token per request and an amortized batch.
//!
//! Run with `cargo run --release --example privacy_pass`.

use privacy_tokens::voprf::privacy_pass::generic::{
    Client, Issuer, Token, TokenRequest, TokenResponse,
};
use privacy_tokens::voprf::privacy_pass::{TokenChallenge, TokenType, Type1, Type5};
use privacy_tokens::voprf::VoprfServer;

fn flow<T: TokenType>(rng: &mut rand::rngs::ThreadRng) -> Result<(), privacy_tokens::Error> {
    println!("token type {:#06x}:", T::TOKEN_TYPE);

    // Issuer: a key derived as RFC 9578 §6.5 recommends.
    let mut seed = [0u8; 48];
    rand::RngCore::fill_bytes(rng, &mut seed);
    let issuer = Issuer::<T>::new(VoprfServer::derive(&seed, b"PrivacyPass")?);
    let pk = issuer.public_key();
    println!(
        "  issuer public key:   {} bytes",
        pk.to_bytes().as_ref().len()
    );

    // Origin: a challenge (RFC 9577 §2.1).
    let challenge = TokenChallenge::new(
        T::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )?
    .to_bytes();
    println!("  token challenge:     {} bytes", challenge.len());

    // Client -> issuer.
    let (request, state) = Client::<T>::request(pk, &challenge, rng)?;
    let request_bytes = request.to_bytes();
    println!(
        "  token request:       {} bytes",
        request_bytes.as_ref().len()
    );

    // Issuer -> client.
    let response = issuer.issue(rng, &TokenRequest::<T>::from_bytes(request_bytes.as_ref())?)?;
    let response_bytes = response.to_bytes();
    println!(
        "  token response:      {} bytes",
        response_bytes.as_ref().len()
    );

    // Client finalizes and redeems at the origin.
    let token = state.finalize(&TokenResponse::<T>::from_bytes(response_bytes.as_ref())?)?;
    let token_bytes = token.to_bytes();
    println!(
        "  token:               {} bytes",
        token_bytes.as_ref().len()
    );

    // Origin: private verification with the issuer key (RFC 9578 §5.5).
    let token = Token::<T>::from_bytes(token_bytes.as_ref())?;
    if token.challenge_digest != TokenChallenge::from_bytes(&challenge)?.digest()
        || !issuer.verify_token(&token)?
    {
        println!("  token rejected");
        return Err(privacy_tokens::Error::InvalidProof);
    }

    // An amortized batch of 10 tokens with one proof (draft-ietf-privacypass-batched-tokens).
    let (request, state) = Client::<T>::request_batch(pk, &challenge, 10, rng)?;
    let request_bytes = request.to_bytes();
    let response_bytes = issuer
        .issue_batch_from_bytes(rng, &request_bytes)?
        .to_bytes();
    let response = state.response_from_bytes(&response_bytes)?;
    let tokens = state.finalize_batch(&response)?;
    println!(
        "  batch of {}:         request {} bytes, response {} bytes",
        tokens.len(),
        request_bytes.len(),
        response_bytes.len()
    );
    for t in &tokens {
        if !issuer.verify_token(t)? {
            println!("  batch token rejected");
            return Err(privacy_tokens::Error::InvalidProof);
        }
    }
    println!("  tokens verified");
    Ok(())
}

fn main() -> Result<(), privacy_tokens::Error> {
    let mut rng = rand::thread_rng();
    flow::<Type1>(&mut rng)?;
    flow::<Type5>(&mut rng)
}
