//! Decoding secrets from serde leaves no copies behind (review finding 7): the hex string is
//! decoded into one buffer of exact capacity, so no growth step frees a prefix of a key. The constant-time hex codec itself is
//! checked statistically by `examples/ct_check.rs` (path `hex_decode`).
#![cfg(feature = "serde")]

use allocation_counter::measure;
use privacy_tokens::trust_token::{self, Method};
use privacy_tokens::voprf::SecretKey;
use privacy_tokens::{P256Sha256, P384Sha384};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Allocations made while deserializing `json` into `T` (the decoded value is dropped inside).
fn decode_allocations<T: serde::de::DeserializeOwned>(json: &str) -> u64 {
    measure(|| {
        let v: T = serde_json::from_str(json).expect("decodes");
        drop(core::hint::black_box(v));
    })
    .count_total
}

#[test]
fn voprf_secret_key_json_decodes_with_one_buffer() {
    let mut rng = StdRng::seed_from_u64(7);
    let k384 = SecretKey::<P384Sha384>::random(&mut rng);
    let json = serde_json::to_string(&k384).expect("encodes");
    // Before the fix: the String copy plus 4 growth steps of the hex decoder (5 in all).
    assert_eq!(decode_allocations::<SecretKey<P384Sha384>>(&json), 1);
    let k256 = SecretKey::<P256Sha256>::random(&mut rng);
    let json = serde_json::to_string(&k256).expect("encodes");
    assert_eq!(decode_allocations::<SecretKey<P256Sha256>>(&json), 1);
}

#[test]
fn trust_token_private_key_json_decodes_with_one_buffer_plus_the_key() {
    let mut rng = StdRng::seed_from_u64(8);
    for method in [Method::PstV1Voprf, Method::PstV1Pmb] {
        let (private, _) = trust_token::generate_key(method, 1, &mut rng);
        let json = serde_json::to_string(&private).expect("encodes");
        // The decoded bytes, plus whatever the key itself allocates when built from them.
        let built = measure(|| {
            let bytes = private.to_storage_bytes();
            drop(core::hint::black_box(bytes));
        })
        .count_total;
        let n = decode_allocations::<trust_token::PrivateKey>(&json);
        assert!(
            n <= 1 + built,
            "{method:?}: {n} allocations (bound {})",
            1 + built
        );
    }
}
