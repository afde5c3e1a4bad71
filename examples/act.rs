//! Anonymous Credit Tokens (`ACTv1-P256-SHA256`): a Moderator issues a credential of 100
//! credits, the Client spends 30 (half refunded), then tries to spend the old credential again.
//!
//! ```text
//! cargo run --release --example act
//! ```

use privacy_tokens::act::{
    ClientIssuanceState, CredentialContext, MemoryNullifierStore, PrivateKey, Redeemed, Spend,
};

fn main() -> Result<(), privacy_tokens::Error> {
    let mut rng = rand::rng();

    // Moderator: a key and the published context (width L = 16, bound into the context).
    let key = PrivateKey::generate(&mut rng)?;
    let ctx = CredentialContext::with_width(b"example.com 2026-12 rate limit", 16)?;
    let store = MemoryNullifierStore::new();

    // Issuance.
    let request = ClientIssuanceState::request(&mut rng)?;
    let response = key.issue(&ctx, 100, &request.message, &mut rng)?;
    let credential = request
        .state
        .finalize(&ctx, key.public_key(), &response)
        .map_err(|r| r.error)?;
    println!("issued: balance {}", credential.balance());
    let old = credential.to_bytes(); // a copy kept to show the double spend

    // Spend 30 against a challenge digest; the Moderator refunds half.
    let ctx_spend = b"sha256(challenge)";
    let spend = credential.prove_spend(&ctx, 30, 0, ctx_spend, &mut rng)?;
    let wire = spend.message.to_bytes();
    println!("spend message: {} bytes", wire.len());
    let message = Spend::from_bytes(&wire, ctx.bit_length())?;
    let refund = match key.redeem(
        &ctx,
        &message,
        ctx_spend,
        |s, _| Ok(s / 2),
        &store,
        &mut rng,
    )? {
        Redeemed::Fresh(refund) => refund,
        Redeemed::Replayed(_) => unreachable!("a fresh credential"),
    };
    let credential = spend
        .state
        .finalize(&ctx, key.public_key(), &refund)
        .map_err(|r| r.error)?;
    println!(
        "after spending 30, refund {}: balance {}",
        refund.amount(),
        credential.balance()
    );

    // Spending the old credential again shows the same nullifier: nothing is granted.
    let old = privacy_tokens::act::Credential::from_bytes(&*old)?;
    let again = old.prove_spend(&ctx, 30, 0, ctx_spend, &mut rng)?;
    match key.redeem(
        &ctx,
        &again.message,
        ctx_spend,
        |s, _| Ok(s),
        &store,
        &mut rng,
    )? {
        Redeemed::Replayed(stored) => {
            let refused = again
                .state
                .finalize(&ctx, key.public_key(), &stored)
                .is_err();
            println!("double spend: nullifier already recorded, stored refund unusable: {refused}");
        }
        Redeemed::Fresh(_) => unreachable!("the nullifier is recorded"),
    }
    Ok(())
}
