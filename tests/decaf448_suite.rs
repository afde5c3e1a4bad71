//! The decaf448-SHAKE256 suite through the public API: strict decoders of every wire type
//! (RFC 9496 Appendix B.2 invalid encodings, the identity, wrong lengths, scalars at and above
//! the order, big-endian misreadings), round trips of the three modes with batches, and serde
//! on keys and messages. The RFC 9497 vectors of the suite run in `tests/vectors.rs`; the group
//! layer's own vectors in `tests/decaf448.rs`.

use privacy_tokens::voprf::{BlindedElement, PublicKey, SecretKey};
use privacy_tokens::{hazmat, Decaf448Shake256, Error, Suite};
use serde_json::Value;

#[path = "support/suites.rs"]
mod suites;

use suites::{proof_decoding, round_trips};

type D = Decaf448Shake256;

fn element_error(bytes: &[u8], want: Error, what: &str) {
    suites::element_error::<D>(bytes, want, what);
}

/// The decaf448 generator (RFC 9496 Appendix B.1, `1 * B`).
const GENERATOR: &str = "6666666666666666666666666666666666666666666666666666666633333333333333333333333333333333333333333333333333333333";

/// The decaf448 order, little-endian (RFC 9497 §4.2: `2^446 - 13818066809895115352007386748515426880336692474882178609894547503885`).
fn order_le() -> Vec<u8> {
    let mut be = hex::decode(
        "3fffffffffffffffffffffffffffffffffffffffffffffffffffffff7cca23e9c44edb49aed63690216cc2728dc58f552378c292ab5844f3",
    )
    .unwrap();
    be.reverse();
    be
}

#[test]
fn decoders_reject_rfc9496_invalid_encodings_identity_and_lengths() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("test-vectors/rfc9496-decaf448.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut n = 0;
    for (why, list) in json["invalid_encodings"].as_object().unwrap() {
        for e in list.as_array().unwrap() {
            let e = e.as_str().unwrap();
            element_error(
                &hex::decode(e).unwrap(),
                Error::InvalidPoint,
                &format!("{why}: {e}"),
            );
            n += 1;
        }
    }
    assert_eq!(n, 21);
    // Every multiple of B.1 but the identity is a valid wire element and re-encodes to itself.
    let multiples = json["multiples_of_generator"].as_array().unwrap();
    for m in &multiples[1..] {
        let b = hex::decode(m.as_str().unwrap()).unwrap();
        assert_eq!(
            PublicKey::<D>::from_bytes(&b).unwrap().to_bytes()[..],
            b[..]
        );
        assert_eq!(
            BlindedElement::<D>::from_bytes(&b).unwrap().to_bytes()[..],
            b[..]
        );
    }
    element_error(&[0; 56], Error::IdentityElement, "identity");
    let g = hex::decode(GENERATOR).unwrap();
    element_error(&g[..55], Error::InvalidLength, "55 bytes");
    element_error(&[&g[..], &[0]].concat(), Error::InvalidLength, "57 bytes");
    element_error(&[], Error::InvalidLength, "empty");
    // A SEC1-style tag in front of the encoding is a wrong length, not a point.
    element_error(&[&[2u8][..], &g].concat(), Error::InvalidLength, "tagged");
}

#[test]
fn scalars_are_little_endian_and_strict() {
    let mut one = [0u8; 56];
    one[0] = 1;
    let sk = SecretKey::<D>::from_bytes(&one).unwrap();
    assert_eq!(
        sk.public_key().to_bytes()[..],
        hex::decode(GENERATOR).unwrap()[..]
    );
    assert_eq!(sk.to_bytes()[..], one[..]);
    let l = order_le();
    let mut l_minus_1 = l.clone();
    l_minus_1[0] -= 1;
    let mut l_plus_1 = l.clone();
    l_plus_1[0] += 1;
    let mut top = vec![0u8; 56];
    top[55] = 0x40;
    assert!(SecretKey::<D>::from_bytes(&l_minus_1).is_ok());
    for bad in [&l, &l_plus_1, &top, &vec![0xff; 56]] {
        assert_eq!(
            SecretKey::<D>::from_bytes(bad).err(),
            Some(Error::NonCanonicalScalar)
        );
        assert_eq!(
            hazmat::voprf_blind_with::<D>(b"x", bad).err(),
            Some(Error::NonCanonicalScalar)
        );
    }
    // The big-endian reading of 1 is 2^440, a canonical scalar: another key than 1.
    let mut be_one = [0u8; 56];
    be_one[55] = 1;
    assert_ne!(
        SecretKey::<D>::from_bytes(&be_one).unwrap().public_key(),
        sk.public_key()
    );
    let reversed: Vec<u8> = l_minus_1.iter().rev().copied().collect();
    assert_eq!(
        SecretKey::<D>::from_bytes(&reversed).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        SecretKey::<D>::from_bytes(&[0; 56]).err(),
        Some(Error::ZeroScalar)
    );
    assert_eq!(
        SecretKey::<D>::from_bytes(&one[..55]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        SecretKey::<D>::from_bytes(&[1; 57]).err(),
        Some(Error::InvalidLength)
    );
    // Proofs: 112 bytes, both halves below the order.
    proof_decoding::<D>(&l_minus_1, &l);
}

#[test]
fn suite_constants() {
    assert_eq!(D::ID, b"decaf448-SHAKE256");
    assert_eq!(D::NH, 64);
    assert_eq!(hazmat::element_len::<D>(), 56);
}

#[test]
fn round_trips_in_all_modes() {
    round_trips::<D>();
}

#[test]
fn serde_round_trips() {
    suites::serde_round_trips::<D>(56, 56);
}
