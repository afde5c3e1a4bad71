//! A server key and a credential issued under it, for the ARC test files.

#![allow(dead_code)]

use privacy_tokens::arc::{ArcSuite, Credential, CredentialRequest, ServerPrivateKey};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A random server key, a credential for `request_context` and the seeded RNG that made them.
pub fn setup<S: ArcSuite>(
    seed: u64,
    request_context: &[u8],
) -> (ServerPrivateKey<S>, Credential<S>, StdRng) {
    let mut rng = StdRng::seed_from_u64(seed);
    let server = ServerPrivateKey::<S>::random(&mut rng);
    let req = CredentialRequest::<S>::new(request_context, &mut rng).unwrap();
    let resp = server.issue(&req.message, &mut rng).unwrap();
    let cred = req.state.finalize(server.public_key(), &resp).unwrap();
    (server, cred, rng)
}
