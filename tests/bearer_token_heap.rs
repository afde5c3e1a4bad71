//! The bindings review (BND-2, library side): parsing an `Authorization: PrivateToken` value,
//! building one, and encoding an ARC token leave no copy of the token (as base64url text or as
//! bytes) in freed heap memory.
//!
//! A global allocator scans every block it frees for the token's text and bytes while armed.
//! Before the fix, `parse_authorization` dropped its parameter strings (the token's text) and
//! the growing copies of a quoted value unwiped, and `authorization_header` freed the
//! temporary encoding and the header's first, smaller buffer, and the ARC token's `to_bytes`
//! freed a temporary encoding of its presentation. The control frees an unwiped copy
//! of the header and must be seen. Everything runs in this file's only test, so nothing else
//! runs while the scanner is armed.

#[path = "support/inspecting_alloc.rs"]
mod inspecting_alloc;

use inspecting_alloc::Inspecting;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use privacy_tokens::arc::privacy_pass::{Client, Issuer, TokenChallenge};
use privacy_tokens::arc::{ArcV2P256, ServerPrivateKey};
use privacy_tokens::http::{authorization_header, base64url_encode, parse_authorization};
use rand::rngs::StdRng;
use rand::SeedableRng;
use zeroize::Zeroizing;

const NEEDLE_LEN: usize = 32;

/// The token's first 32 bytes and the first 32 characters of its base64url text; written only
/// while the scanner is disarmed.
static NEEDLES: Mutex<[[u8; NEEDLE_LEN]; 2]> = Mutex::new([[0; NEEDLE_LEN]; 2]);
static ARMED: AtomicBool = AtomicBool::new(false);
static HITS: AtomicUsize = AtomicUsize::new(0);

/// Scans each freed block for the needles while armed (the scan never allocates).
#[global_allocator]
static GLOBAL: Inspecting = Inspecting {
    armed: |size| ARMED.load(Ordering::SeqCst) && size >= NEEDLE_LEN,
    inspect: |block| {
        if let Ok(n) = NEEDLES.lock() {
            for needle in n.iter() {
                if block.windows(NEEDLE_LEN).any(|w| w == needle) {
                    HITS.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    },
};

/// How many freed blocks held a needle while `f` ran.
fn freed_blocks_holding(f: impl FnOnce()) -> usize {
    HITS.store(0, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    f();
    ARMED.store(false, Ordering::SeqCst);
    HITS.load(Ordering::SeqCst)
}

#[test]
fn authorization_values_leave_no_token_in_freed_memory() {
    // A 0x0001 token's length; distinct bytes, so its text is no run of one character.
    let token: Vec<u8> = (0..98u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(11))
        .collect();
    let text = base64url_encode(&token);
    {
        let mut n = NEEDLES.lock().expect("lock");
        n[0].copy_from_slice(&token[..NEEDLE_LEN]);
        n[1].copy_from_slice(&text.as_bytes()[..NEEDLE_LEN]);
    }
    let unquoted = format!("PrivateToken token={text}");
    let quoted = format!("privatetoken Token=\"{text}\", other=\"x\"");
    let wrong_scheme = format!("Bearer token={text}");
    let broken = format!("PrivateToken token=\"{text}");

    // Control: an unwiped copy of the header, freed, is seen.
    let seen = freed_blocks_holding(|| drop(core::hint::black_box(unquoted.clone())));
    assert!(seen >= 1, "the scanner misses a freed copy of the header");

    let mut results = Vec::with_capacity(4);
    let hits = freed_blocks_holding(|| {
        for value in [&unquoted, &quoted] {
            let parsed = Zeroizing::new(parse_authorization(value).expect("parses"));
            results.push(*parsed == token);
        }
        results.push(parse_authorization(&wrong_scheme).is_err());
        results.push(parse_authorization(&broken).is_err());
        let header = Zeroizing::new(authorization_header(&token));
        results.push(*header == unquoted);
    });
    assert_eq!(
        results, [true; 5],
        "the values parse and build as they should"
    );
    assert_eq!(hits, 0, "{hits} freed blocks held the token or its text");

    // An ARC token's encoding: needles from its presentation (after the 70-byte header).
    let mut rng = StdRng::seed_from_u64(3);
    let issuer = Issuer::new(ServerPrivateKey::<ArcV2P256>::random(&mut rng));
    let challenge = TokenChallenge::new(b"issuer.example", &[9; 32], b"origin.example", &[])
        .expect("challenge");
    let (req, st) = Client::request(&challenge, issuer.public_key(), &mut rng).expect("request");
    let resp = issuer.issue(&req, &mut rng).expect("issue");
    let mut credential = st.finalize(&resp).expect("finalize");
    let mut ts =
        Client::token_state(&mut credential, &challenge, issuer.public_key(), 3).expect("state");
    let token = ts.token(&mut rng).expect("token");
    let want = Zeroizing::new(token.to_bytes());
    {
        let mut n = NEEDLES.lock().expect("lock");
        n[0].copy_from_slice(&want[70..70 + NEEDLE_LEN]);
        n[1].copy_from_slice(&want[want.len() - NEEDLE_LEN..]);
    }
    let mut same = false;
    let hits = freed_blocks_holding(|| same = *Zeroizing::new(token.to_bytes()) == *want);
    assert!(same, "the encoding is the same");
    assert_eq!(
        hits, 0,
        "{hits} freed blocks held the ARC token's presentation"
    );
}
