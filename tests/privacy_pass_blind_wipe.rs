//! Review finding 8: no path of the Privacy Pass batched client leaves a VOPRF blind in freed
//! heap memory.
//!
//! A global allocator scans every block it frees for the blinds' in-memory images. The blinds are
//! learnt from a recording RNG (each accepted 48-byte draw of `Client::request_batch` is one
//! blind). Before the fix, `BatchClientState::finalize_batch` moved each blind out of its
//! `Option` slot with `Option::take`, which rewrites only the tag, so the freed `states` buffer
//! still held every blind. A single token's `ClientState` dropped unfinalized wipes the nonce
//! its token would carry (looked for the same way). Each scenario runs in this file's only test, so nothing else runs
//! while the scanner is armed.

#[path = "support/secret_scan.rs"]
mod secret_scan;

#[path = "support/inspecting_alloc.rs"]
mod inspecting_alloc;

use inspecting_alloc::Inspecting;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use privacy_tokens::voprf::privacy_pass::{
    BatchTokenResponse, Client, Issuer, TokenChallenge, TOKEN_TYPE,
};
use privacy_tokens::voprf::VoprfServer;
use privacy_tokens::{Error, P384Sha384, Suite};
use rand::rngs::StdRng;
use rand::SeedableRng;
use secret_scan::{image, Recording};

type C = <P384Sha384 as Suite>::Group;

const NEEDLE_LEN: usize = 48;
/// The shortest needle: a token nonce.
const MIN_NEEDLE_LEN: usize = 32;
const MAX_NEEDLES: usize = 16;

/// The byte strings the scanner looks for (each the first `lens[i]` bytes of `bytes[i]`);
/// written only while the scanner is disarmed.
struct Needles {
    len: usize,
    lens: [usize; MAX_NEEDLES],
    bytes: [[u8; NEEDLE_LEN]; MAX_NEEDLES],
}

static NEEDLES: Mutex<Needles> = Mutex::new(Needles {
    len: 0,
    lens: [0; MAX_NEEDLES],
    bytes: [[0; NEEDLE_LEN]; MAX_NEEDLES],
});
static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: AtomicUsize = AtomicUsize::new(0);

/// Scans each freed block for the needles while armed. Holding the lock inside `inspect`
/// cannot re-enter the allocator: the scan never allocates.
#[global_allocator]
static GLOBAL: Inspecting = Inspecting {
    armed: |size| ARMED.load(Ordering::SeqCst) && size >= MIN_NEEDLE_LEN,
    inspect: |block| {
        if let Ok(n) = NEEDLES.lock() {
            for (needle, &len) in n.bytes[..n.len].iter().zip(&n.lens) {
                if block.windows(len).any(|w| w == &needle[..len]) {
                    HITS.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    },
};

/// Runs `f` with the scanner armed for `needles` and returns how many freed blocks held one.
fn freed_blocks_holding<T>(needles: &[[u8; NEEDLE_LEN]], f: impl FnOnce() -> T) -> (usize, T) {
    let needles: Vec<&[u8]> = needles.iter().map(|n| &n[..]).collect();
    freed_blocks_holding_any(&needles, f)
}

/// As [`freed_blocks_holding`], for needles of 32 to 48 bytes.
fn freed_blocks_holding_any<T>(needles: &[&[u8]], f: impl FnOnce() -> T) -> (usize, T) {
    assert!(needles.len() <= MAX_NEEDLES);
    {
        let mut n = NEEDLES.lock().expect("lock");
        for (i, needle) in needles.iter().enumerate() {
            assert!((MIN_NEEDLE_LEN..=NEEDLE_LEN).contains(&needle.len()));
            n.bytes[i][..needle.len()].copy_from_slice(needle);
            n.lens[i] = needle.len();
        }
        n.len = needles.len();
    }
    HITS.store(0, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    let out = f();
    ARMED.store(false, Ordering::SeqCst);
    (HITS.load(Ordering::SeqCst), out)
}

/// A batched request of `n` tokens, with the images of its `n` blinds.
fn request(
    issuer: &Issuer,
    n: usize,
    seed: u64,
) -> (
    privacy_tokens::voprf::privacy_pass::BatchTokenRequest,
    privacy_tokens::voprf::privacy_pass::BatchClientState,
    Vec<[u8; NEEDLE_LEN]>,
) {
    let challenge = TokenChallenge::new(
        TOKEN_TYPE,
        b"issuer.example".to_vec(),
        vec![],
        b"origin.example".to_vec(),
    )
    .expect("challenge")
    .to_bytes();
    let mut rng = Recording::new(seed);
    let (req, state) =
        Client::request_batch(issuer.public_key(), &challenge, n, &mut rng).expect("request");
    // Each token draws a 32-byte nonce and then 48-byte candidates until one is a non-zero
    // scalar below the order (rejection is ~2^-190 likely on P-384).
    let blinds: Vec<[u8; NEEDLE_LEN]> = rng
        .scalars::<C>()
        .iter()
        .map(|s| image::<C>(s).try_into().expect("48 bytes"))
        .collect();
    assert_eq!(blinds.len(), n, "one accepted scalar draw per token");
    (req, state, blinds)
}

#[test]
fn batch_client_state_leaves_no_blind_in_freed_heap() {
    let n = 8;
    let issuer = Issuer::new(VoprfServer::new(&mut StdRng::seed_from_u64(1)));
    let mut rng = StdRng::seed_from_u64(2);

    // Control: the scanner sees a blind in a freed, unwiped buffer.
    let (_, state, blinds) = request(&issuer, n, 3);
    let (hits, ()) = freed_blocks_holding(&blinds, || {
        let copy: Vec<u8> = blinds.concat();
        drop(copy);
    });
    assert!(hits >= 1, "the scanner does not see unwiped blinds");
    drop(state);

    // Success: finalize_batch.
    let (req, state, blinds) = request(&issuer, n, 4);
    let resp = issuer.issue_batch(&mut rng, &req).expect("issue_batch");
    let (hits, tokens) = freed_blocks_holding(&blinds, || {
        let tokens = state.finalize_batch(&resp).expect("finalize_batch");
        tokens.len()
    });
    assert_eq!(tokens, n);
    assert_eq!(
        hits, 0,
        "finalize_batch (success) left blinds in freed heap"
    );

    // Failure: a response whose proof does not verify.
    let (req, state, blinds) = request(&issuer, n, 5);
    let resp = issuer.issue_batch(&mut rng, &req).expect("issue_batch");
    let mut bytes = resp.to_bytes();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let bad = BatchTokenResponse::from_bytes(&bytes).expect("decodes");
    let (hits, got) = freed_blocks_holding(&blinds, || state.finalize_batch(&bad).map(drop));
    assert_eq!(got, Err(Error::InvalidProof));
    assert_eq!(
        hits, 0,
        "finalize_batch (failure) left blinds in freed heap"
    );

    // Drop without finalizing.
    let (_, state, blinds) = request(&issuer, n, 6);
    let (hits, ()) = freed_blocks_holding(&blinds, || drop(state));
    assert_eq!(hits, 0, "dropping the state left blinds in freed heap");

    // A single token's state, boxed and dropped unfinalized: the nonce its token would carry
    // (the request's first 32-byte draw) is wiped with it.
    let challenge = TokenChallenge::new(TOKEN_TYPE, b"issuer.example".to_vec(), vec![], vec![])
        .expect("challenge")
        .to_bytes();
    let mut rng = Recording::new(7);
    let (_, state) = Client::request(issuer.public_key(), &challenge, &mut rng).expect("request");
    let nonce = rng.draws[0].clone();
    assert_eq!(nonce.len(), 32, "the nonce is the first draw");
    let state = Box::new(state);
    let (hits, ()) = freed_blocks_holding_any(&[&nonce], || drop(nonce.clone()));
    assert!(hits >= 1, "the scanner does not see an unwiped nonce");
    let (hits, ()) = freed_blocks_holding_any(&[&nonce], || drop(state));
    assert_eq!(
        hits, 0,
        "dropping a ClientState left its nonce in freed heap"
    );
}
