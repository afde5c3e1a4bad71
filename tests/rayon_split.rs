//! Batches split over cores (feature `rayon`) give the bytes of the sequential code.
//!
//! Every batch path the feature splits runs at batch sizes 1, 2, 7 and 100 from deterministic
//! inputs (seeded RNGs, and the `hazmat` hooks' fixed proof nonces where there is one): VOPRF,
//! POPRF and OPRF `blind_evaluate_batch` (and `_into`) on both suites, the VOPRF and POPRF
//! clients' `finalize_batch`, Privacy Pass `issue_batch`, `issue_batch_from_bytes` and
//! `BatchClientState::finalize_batch`, and Trust Token `Issuer::issue` and
//! `Client::finish_issuance` for every method.
//!
//! * `digest_of_every_split_path` (both builds): the SHA-256 of all those outputs is one fixed
//!   value, the one the sequential build printed, so the default build and the `rayon` build
//!   produce the same bytes;
//! * `split_equals_one_thread` (`--features rayon`): the same outputs computed in a rayon pool
//!   of four threads (split from [`PAR_MIN_BATCH`] elements on) and in a pool of one thread
//!   (never split) are equal, path by path and size by size.

use privacy_tokens::hazmat;
use privacy_tokens::trust_token::{self, generate_key, Method};
use privacy_tokens::voprf::privacy_pass;
use privacy_tokens::voprf::{
    EvaluationElement, OprfClient, OprfServer, PoprfClient, PoprfServer, VoprfClient, VoprfServer,
};
#[allow(unused_imports)]
use privacy_tokens::PAR_MIN_BATCH;
use privacy_tokens::{P256Sha256, P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;
use sha2::{Digest, Sha256};

const SIZES: [usize; 4] = [1, 2, 7, 100];

/// A fixed proof nonce for the `hazmat` hooks: a canonical scalar on both curves.
fn nonce<S: Suite>() -> Vec<u8> {
    let mut r = vec![0u8; hazmat::element_len::<S>() - 1];
    r[1] = 0x42;
    let last = r.len() - 1;
    r[last] = 0x07;
    r
}

fn inputs(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("input {i}").into_bytes()).collect()
}

/// VOPRF: server batch (RNG and hazmat nonce, `_into`), client `finalize_batch`.
fn voprf<S: Suite>(n: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(n as u64);
    let server = VoprfServer::<S>::new(&mut rng);
    let ins = inputs(n);
    let refs: Vec<&[u8]> = ins.iter().map(Vec::as_slice).collect();
    let blinds: Vec<_> = refs
        .iter()
        .map(|i| VoprfClient::<S>::blind(i, &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = blinds.iter().map(|b| b.message).collect();
    let mut out = Vec::new();
    let ev = server.blind_evaluate_batch(&mut rng, &msgs).unwrap();
    ev.messages
        .iter()
        .for_each(|m| out.extend_from_slice(m.to_bytes().as_ref()));
    out.extend_from_slice(ev.proof.to_bytes().as_ref());
    let mut into = ev.messages.clone();
    let proof = server
        .blind_evaluate_batch_into(&mut rng, &msgs, &mut into)
        .unwrap();
    into.iter()
        .for_each(|m| out.extend_from_slice(m.to_bytes().as_ref()));
    out.extend_from_slice(proof.to_bytes().as_ref());
    let mut fixed = ev.messages.clone();
    let proof =
        hazmat::voprf_blind_evaluate_with_nonce(&server, &msgs, &mut fixed, &nonce::<S>()).unwrap();
    out.extend_from_slice(proof.to_bytes().as_ref());
    let states = blinds.into_iter().map(|b| b.state).collect();
    let outs =
        VoprfClient::finalize_batch(states, &refs, &ev.messages, &ev.proof, server.public_key())
            .unwrap();
    outs.iter().for_each(|o| out.extend_from_slice(o));
    out
}

/// POPRF: server batch (RNG and hazmat nonce), client `finalize_batch`.
fn poprf<S: Suite>(n: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(100 + n as u64);
    let server = PoprfServer::<S>::new(&mut rng);
    let ins = inputs(n);
    let refs: Vec<&[u8]> = ins.iter().map(Vec::as_slice).collect();
    let blinds: Vec<_> = refs
        .iter()
        .map(|i| PoprfClient::<S>::blind(i, b"info", server.public_key(), &mut rng).unwrap())
        .collect();
    let msgs: Vec<_> = blinds.iter().map(|b| b.message).collect();
    let mut out = Vec::new();
    let ev = server
        .blind_evaluate_batch(&mut rng, &msgs, b"info")
        .unwrap();
    ev.messages
        .iter()
        .for_each(|m| out.extend_from_slice(m.to_bytes().as_ref()));
    out.extend_from_slice(ev.proof.to_bytes().as_ref());
    let mut fixed = ev.messages.clone();
    let proof =
        hazmat::poprf_blind_evaluate_with_nonce(&server, &msgs, b"info", &mut fixed, &nonce::<S>())
            .unwrap();
    fixed
        .iter()
        .for_each(|m| out.extend_from_slice(m.to_bytes().as_ref()));
    out.extend_from_slice(proof.to_bytes().as_ref());
    let states = blinds.into_iter().map(|b| b.state).collect();
    let outs =
        PoprfClient::finalize_batch(states, &refs, b"info", &ev.messages, &ev.proof).unwrap();
    outs.iter().for_each(|o| out.extend_from_slice(o));
    out
}

/// OPRF: server batch.
fn oprf<S: Suite>(n: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(200 + n as u64);
    let server = OprfServer::<S>::new(&mut rng);
    let msgs: Vec<_> = inputs(n)
        .iter()
        .map(|i| OprfClient::<S>::blind(i, &mut rng).unwrap().message)
        .collect();
    let ev: Vec<EvaluationElement<S>> = server.blind_evaluate_batch(&msgs).unwrap();
    ev.iter()
        .flat_map(|m| m.to_bytes().as_ref().to_vec())
        .collect()
}

/// Privacy Pass amortized issuance: `issue_batch`, `issue_batch_from_bytes`, client finalize.
fn privacy_pass(n: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(300 + n as u64);
    let issuer = privacy_pass::Issuer::new(VoprfServer::<P384Sha384>::new(&mut rng));
    let challenge = privacy_pass::TokenChallenge::new(
        privacy_pass::TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .unwrap()
    .to_bytes();
    let (req, state) =
        privacy_pass::Client::request_batch(issuer.public_key(), &challenge, n, &mut rng).unwrap();
    let mut out = Vec::new();
    let resp = issuer.issue_batch(&mut rng, &req).unwrap();
    out.extend_from_slice(&resp.to_bytes());
    let resp2 = issuer
        .issue_batch_from_bytes(&mut rng, &req.to_bytes())
        .unwrap();
    out.extend_from_slice(&resp2.to_bytes());
    for t in state.finalize_batch(&resp).unwrap() {
        out.extend_from_slice(&t.to_bytes());
    }
    out
}

/// Trust Tokens, one method: `Issuer::issue` (both bits where there is one; for VOPRF methods
/// also with the hazmat proof scalar) and `Client::finish_issuance`.
fn trust_token(method: Method, n: usize) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(400 + n as u64);
    let (sk, pk) = generate_key(method, 3, &mut rng);
    let mut issuer = trust_token::Issuer::new(method, 100);
    issuer.add_key(sk).unwrap();
    let mut client = trust_token::Client::new(method, 100);
    client.add_key(pk).unwrap();
    let mut out = Vec::new();
    let bits: &[bool] = if method.has_private_metadata() {
        &[false, true]
    } else {
        &[false]
    };
    for &bit in bits {
        let req = client.begin_issuance(n, &mut rng).unwrap();
        let resp = issuer.issue(&req.message, 3, bit, 100, &mut rng).unwrap();
        out.extend_from_slice(&resp.message);
        if !method.has_private_metadata() {
            let fixed = trust_token::hazmat::issue_with_proof_scalar(
                &issuer,
                &req.message,
                3,
                100,
                &nonce::<P384Sha384>(),
                &mut rng,
            )
            .unwrap();
            out.extend_from_slice(&fixed.message);
        }
        for t in client.finish_issuance(req.state, &resp.message).unwrap() {
            out.extend_from_slice(t.as_bytes());
        }
    }
    out
}

/// Every split path at batch size `n`, named.
fn all_paths(n: usize) -> Vec<(String, Vec<u8>)> {
    let mut v = vec![
        ("voprf P-256".to_string(), voprf::<P256Sha256>(n)),
        ("voprf P-384".to_string(), voprf::<P384Sha384>(n)),
        ("poprf P-256".to_string(), poprf::<P256Sha256>(n)),
        ("poprf P-384".to_string(), poprf::<P384Sha384>(n)),
        ("oprf P-256".to_string(), oprf::<P256Sha256>(n)),
        ("oprf P-384".to_string(), oprf::<P384Sha384>(n)),
        ("privacy pass".to_string(), privacy_pass(n)),
    ];
    for method in Method::ALL {
        v.push((format!("trust token {method:?}"), trust_token(method, n)));
    }
    v
}

/// SHA-256 of every path's outputs at every size, in order.
fn digest_all() -> String {
    let mut h = Sha256::new();
    for n in SIZES {
        for (name, bytes) in all_paths(n) {
            h.update(name.as_bytes());
            h.update((bytes.len() as u64).to_be_bytes());
            h.update(&bytes);
        }
    }
    hex::encode(h.finalize())
}

/// Printed by the sequential build of `main` before the feature (commit fedad73); the default
/// build and the `rayon` build must both give it.
const DIGEST: &str = "2e957bd05e4346a59674600c672e7c8e14842df7e5c3992b55d6efe229594242";

#[test]
fn digest_of_every_split_path() {
    let d = digest_all();
    println!("digest of every split path at sizes {SIZES:?}: {d}");
    assert_eq!(d, DIGEST);
}

#[cfg(feature = "rayon")]
#[test]
fn split_equals_one_thread() {
    let pool = |t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
    };
    let (one, four) = (pool(1), pool(4));
    assert_eq!(four.install(rayon::current_num_threads), 4);
    for n in SIZES {
        let seq = one.install(|| all_paths(n));
        let par = four.install(|| all_paths(n));
        assert_eq!(seq.len(), par.len());
        for ((name, a), (_, b)) in seq.iter().zip(&par) {
            assert!(!a.is_empty(), "{name} at {n}: no output");
            assert!(a == b, "{name} at batch {n}: split output differs");
        }
        println!(
            "batch {n} (split: {}): {} paths identical",
            n >= PAR_MIN_BATCH,
            seq.len()
        );
    }
}
