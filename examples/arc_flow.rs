//! ARC over Privacy Pass (token type 0xE5AC): issuance, then rate-limited redemption.
//!
//! ```text
//! cargo run --release --example arc_flow
//! ```

use std::collections::HashSet;

use privacy_tokens::arc::privacy_pass::{
    Client, CredentialRequest, CredentialResponse, Issuer, Token, TokenChallenge,
};
use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};

fn main() -> Result<(), privacy_tokens::Error> {
    let mut rng = rand::rng();
    // Joint issuer and origin (ARC is privately verifiable).
    let issuer = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));

    // Issuance: the challenge's issuer name, origin info and credential context bind the
    // credential (request_context).
    let issue_challenge = TokenChallenge::new(b"issuer.example", &[], b"origin.example", &[])?;
    let (request, state) = Client::request(&issue_challenge, issuer.public_key(), &mut rng)?;
    let request = CredentialRequest::from_bytes(&request.to_bytes())?;
    let response = issuer.issue(&request, &mut rng)?;
    let mut credential = state.finalize(&CredentialResponse::from_bytes(&response.to_bytes())?)?;
    println!(
        "credential issued ({} byte request)",
        request.to_bytes().len()
    );

    // Redemption: the origin allows 5 tokens per redemption context.
    let limit = 5;
    let challenge = TokenChallenge::new(b"issuer.example", &[0x42; 32], b"origin.example", &[])?;
    let mut seen = HashSet::new();
    // The app's storage: the credential with its per-context counters.
    let mut stored = credential.to_bytes();
    loop {
        // Asking again for the same challenge continues its counter (it lives in the credential).
        let mut tokens =
            Client::token_state(&mut credential, &challenge, issuer.public_key(), limit)?;
        let Ok(token) = tokens.token(&mut rng) else {
            break;
        };
        // Persist the advanced counter *before* the token leaves the device.
        stored = credential.to_bytes();
        let bytes = token.to_bytes();
        // The origin deduplicates on the returned tag, never on the token bytes.
        let tag = issuer.verify(&Token::from_bytes(&bytes)?, &challenge, limit)?;
        let fresh = seen.insert(tag);
        println!(
            "token of {} bytes verified, fresh tag: {fresh}",
            bytes.len()
        );
    }
    println!("{} bytes of credential state stored", stored.len());
    println!("client stops after {} tokens", seen.len());
    Ok(())
}
