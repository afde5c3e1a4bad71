//! An issuer and a client running the verifiable OPRF on P-384, single and batched.

use privacy_tokens::voprf::{VoprfClient, VoprfServer};
use privacy_tokens::P384Sha384;

fn main() -> Result<(), privacy_tokens::Error> {
    let mut rng = rand::rng();
    // Issuer: a key pair; publish the public key.
    let server = VoprfServer::<P384Sha384>::new(&mut rng);
    let pk = server.public_key();

    // Client: blind an input and send the blinded element.
    let blind = VoprfClient::<P384Sha384>::blind(b"my input", &mut rng)?;
    // Issuer: evaluate and prove.
    let eval = server.blind_evaluate(&mut rng, &blind.message)?;
    // Client: verify the proof, unblind, hash. The state is consumed here.
    let output = blind
        .state
        .finalize(b"my input", &eval.message, &eval.proof, pk)?;
    assert!(server.verify_output(b"my input", &output)?);
    println!(
        "single: output {} bytes, proof {} bytes",
        output.len(),
        eval.proof.to_bytes().len()
    );

    // A batch of 10 with one proof.
    let inputs: Vec<Vec<u8>> = (0..10u8).map(|i| vec![i; 32]).collect();
    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let mut states = Vec::new();
    let mut messages = Vec::new();
    for i in &refs {
        let b = VoprfClient::<P384Sha384>::blind(i, &mut rng)?;
        messages.push(b.message);
        states.push(b.state);
    }
    let batch = server.blind_evaluate_batch(&mut rng, &messages)?;
    let outputs = VoprfClient::finalize_batch(states, &refs, &batch.messages, &batch.proof, pk)?;
    for (o, i) in outputs.iter().zip(&refs) {
        assert!(server.verify_output(i, o)?);
    }
    println!("batch: {} outputs verified with one proof", outputs.len());
    Ok(())
}
