//! Review finding 4: adding keys to a Trust Token issuer (or to a clone of one) never leaves a
//! copy of a private key in freed heap. A global allocator scans every block freed on the test
//! thread for the in-memory image of the first key's first scalar (its Montgomery limbs, as a
//! `p384::Scalar` holds them); the old `Vec::new()` key list moved the keys at the 2nd and 3rd
//! `add_key` and freed the old buffer unwiped.

#![allow(unsafe_code)]

#[path = "support/inspecting_alloc.rs"]
mod inspecting_alloc;

use std::cell::Cell;

use inspecting_alloc::Inspecting;

use p384::elliptic_curve::ff::PrimeField;
use privacy_tokens::trust_token::{generate_key, Issuer, Method, PrivateKey, SCALAR_LEN};
use rand::rngs::StdRng;
use rand::SeedableRng;

thread_local! {
    /// The bytes to look for (none: no scan) and how many freed blocks held them.
    static NEEDLE: Cell<Option<[u8; SCALAR_LEN]>> = const { Cell::new(None) };
    static FOUND: Cell<usize> = const { Cell::new(0) };
}

/// Scans the blocks freed on this thread for its needle.
#[global_allocator]
static ALLOC: Inspecting = Inspecting {
    armed: |_| matches!(NEEDLE.try_with(Cell::get), Ok(Some(_))),
    inspect: |block| {
        if let Some(needle) = NEEDLE.try_with(Cell::get).ok().flatten() {
            if block.windows(SCALAR_LEN).any(|w| w == needle) {
                let _ = FOUND.try_with(|f| f.set(f.get() + 1));
            }
        }
    },
};

/// The in-memory image of the key's first scalar (`k` or `x0`).
fn needle(key: &PrivateKey) -> [u8; SCALAR_LEN] {
    let be: [u8; SCALAR_LEN] = key.to_bytes()[4..4 + SCALAR_LEN].try_into().unwrap();
    let scalar = p384::Scalar::from_repr(be.into()).unwrap();
    assert_eq!(size_of::<p384::Scalar>(), SCALAR_LEN);
    // `p384::Scalar` is 48 bytes of plain limbs (checked above).
    // SAFETY: any bit pattern of those 48 bytes is a valid `[u8; 48]`.
    unsafe { std::mem::transmute_copy::<p384::Scalar, [u8; SCALAR_LEN]>(&scalar) }
}

/// How many blocks freed while `f` runs on this thread held `needle`.
fn freed_copies(needle: [u8; SCALAR_LEN], f: impl FnOnce()) -> usize {
    FOUND.with(|c| c.set(0));
    NEEDLE.with(|c| c.set(Some(needle)));
    f();
    NEEDLE.with(|c| c.set(None));
    FOUND.with(Cell::get)
}

#[test]
fn adding_keys_leaves_no_key_copy_in_freed_heap() {
    let mut rng = StdRng::seed_from_u64(4);
    for method in Method::ALL {
        let keys: Vec<PrivateKey> = (0..method.max_keys() as u32)
            .map(|id| generate_key(method, id, &mut rng).0)
            .collect();
        let needle = needle(&keys[0]);
        let mut issuer = Issuer::new(method, 10);
        let mut clone = None;
        let found = freed_copies(needle, || {
            for key in &keys {
                issuer.add_key(key.clone()).unwrap();
            }
            // A clone of an issuer with one key, then filled up.
            let mut c = Issuer::new(method, 10);
            c.add_key(keys[0].clone()).unwrap();
            let mut c = c.clone();
            for key in &keys[1..] {
                c.add_key(key.clone()).unwrap();
            }
            clone = Some(c);
        });
        assert_eq!(found, 0, "{method:?}: a freed block held the private key");
        assert_eq!(issuer.public_keys().len(), method.max_keys());
        assert_eq!(
            clone.map(|c| c.public_keys().len()),
            Some(method.max_keys())
        );
    }
}

/// The scan itself works: a key copy freed without wiping is found.
#[test]
fn the_scan_finds_an_unwiped_freed_copy() {
    let mut rng = StdRng::seed_from_u64(5);
    let (key, _) = generate_key(Method::PstV1Pmb, 1, &mut rng);
    let needle = needle(&key);
    // `black_box`: the optimiser may otherwise remove the box and its free as a pair.
    let found = freed_copies(needle, || drop(std::hint::black_box(Box::new(needle))));
    assert_eq!(found, 1);
}
