//! The ristretto255-SHA512 and P521-SHA512 suites: strict decoders (RFC 9496 Appendix A.2
//! invalid encodings, off-curve and non-canonical P-521 points, scalars at and above the
//! order, the identity, wrong lengths), the scalar byte orders, round trips of the three modes
//! with batches, and serde on keys and messages. The RFC 9497 vectors of both suites run in
//! `tests/vectors.rs`.

use privacy_tokens::voprf::{PublicKey, SecretKey};
use privacy_tokens::{hazmat, Error, P521Sha512, Ristretto255Sha512, Suite};

#[path = "support/suites.rs"]
mod suites;

use suites::{element_error, proof_decoding, round_trips, serde_round_trips};

type R = Ristretto255Sha512;
type P = P521Sha512;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn v(b: impl AsRef<[u8]>) -> Vec<u8> {
    b.as_ref().to_vec()
}

/// RFC 9496 Appendix A.2: encodings every ristretto255 decoder must reject.
const RISTRETTO_INVALID: &[(&str, &[&str])] = &[
    (
        "non-canonical field encodings",
        &[
            "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        ],
    ),
    (
        "negative field elements",
        &[
            "0100000000000000000000000000000000000000000000000000000000000000",
            "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
            "c34c4e1826e5d403b78e246e88aa051c36ccf0aafebffe137d148a2bf9104562",
            "c940e5a4404157cfb1628b108db051a8d439e1a421394ec4ebccb9ec92a8ac78",
            "47cfc5497c53dc8e61c91d17fd626ffb1c49e2bca94eed052281b510b1117a24",
            "f1c6165d33367351b0da8f6e4511010c68174a03b6581212c71c0e1d026c3c72",
            "87260f7a2f12495118360f02c26a470f450dadf34a413d21042b43b9d93e1309",
        ],
    ),
    (
        "non-square x^2",
        &[
            "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
            "4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
            "de6a7b00deadc788eb6b6c8d20c0ae96c2f2019078fa604fee5b87d6e989ad7b",
            "bcab477be20861e01e4a0e295284146a510150d9817763caf1a6f4b422d67042",
            "2a292df7e32cababbd9de088d1d1abec9fc0440f637ed2fba145094dc14bea08",
            "f4a9e534fc0d216c44b218fa0c42d99635a0127ee2e53c712f70609649fdff22",
            "8268436f8c4126196cf64b3c7ddbda90746a378625f9813dd9b8457077256731",
            "2810e5cbc2cc4d4eece54f61c6f69758e289aa7ab440b3cbeaa21995c2f4232b",
        ],
    ),
    (
        "negative xy value",
        &[
            "3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
            "a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
            "d483fe813c6ba647ebbfd3ec41adca1c6130c2beeee9d9bf065c8d151c5f396e",
            "8a2e1d30050198c65a54483123960ccc38aef6848e1ec8f5f780e8523769ba32",
            "32888462f8b486c68ad7dd9610be5192bbeaf3b443951ac1a8118419d9fa097b",
            "227142501b9d4355ccba290404bde41575b037693cef1f438c47f8fbf35d1165",
            "5c37cc491da847cfeb9281d407efc41e15144c876e0170b499a96a22ed31e01e",
            "445425117cb8c90edcbc7c1cc0e74f747f2c1efa5630a967c64f287792a48a4b",
        ],
    ),
    (
        "s = -1, which causes y = 0",
        &["ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"],
    ),
];

/// The ristretto255 generator (RFC 9496 Appendix A.1, `1 * B`).
const RISTRETTO_B: &str = "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76";
/// The ristretto255 group order `L`, little-endian (RFC 9496 §4.4).
const RISTRETTO_L: &str = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010";

/// The P-521 generator, compressed (SEC 2 §2.6.1: `y` is even).
const P521_G: &str = "0200c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66";
/// The P-521 group order `n`, big-endian (SEC 2 §2.6.1).
const P521_N: &str = "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409";

#[test]
fn ristretto255_rejects_rfc9496_invalid_encodings() {
    let mut n = 0;
    for (why, encodings) in RISTRETTO_INVALID {
        for e in *encodings {
            element_error::<R>(&unhex(e), Error::InvalidPoint, &format!("{why}: {e}"));
            n += 1;
        }
    }
    assert_eq!(n, 29);
    element_error::<R>(&[0; 32], Error::IdentityElement, "identity");
    let b = unhex(RISTRETTO_B);
    assert!(PublicKey::<R>::from_bytes(&b).is_ok());
    element_error::<R>(&b[..31], Error::InvalidLength, "31 bytes");
    let mut long = b.clone();
    long.push(0);
    element_error::<R>(&long, Error::InvalidLength, "33 bytes");
    element_error::<R>(&[], Error::InvalidLength, "empty");
}

#[test]
fn ristretto255_scalars_are_little_endian_and_strict() {
    let mut one = [0u8; 32];
    one[0] = 1;
    let sk = SecretKey::<R>::from_bytes(&one).unwrap();
    assert_eq!(v(sk.public_key().to_bytes()), unhex(RISTRETTO_B));
    assert_eq!(v(sk.to_bytes()), one);

    let l = unhex(RISTRETTO_L);
    let mut l_minus_1 = l.clone();
    l_minus_1[0] -= 1;
    let mut l_plus_1 = l.clone();
    l_plus_1[0] += 1;
    assert!(SecretKey::<R>::from_bytes(&l_minus_1).is_ok());
    for bad in [&l, &l_plus_1, &vec![0xff; 32]] {
        assert_eq!(
            SecretKey::<R>::from_bytes(bad).err(),
            Some(Error::NonCanonicalScalar)
        );
        assert_eq!(
            hazmat::voprf_blind_with::<R>(b"x", bad).err(),
            Some(Error::NonCanonicalScalar)
        );
    }
    // The big-endian reading of L-1 (its bytes reversed) is far above L.
    let reversed: Vec<u8> = l_minus_1.iter().rev().copied().collect();
    assert_eq!(
        SecretKey::<R>::from_bytes(&reversed).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        SecretKey::<R>::from_bytes(&[0; 32]).err(),
        Some(Error::ZeroScalar)
    );
    assert_eq!(
        SecretKey::<R>::from_bytes(&one[..31]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        SecretKey::<R>::from_bytes(&[1; 33]).err(),
        Some(Error::InvalidLength)
    );
    proof_decoding::<R>(&l_minus_1, &l);
}

/// Proofs are `2 * Ns` bytes with both halves below the order (`good` is, `order` is not).
#[test]
fn p521_element_decoding_is_strict() {
    let g = unhex(P521_G);
    assert_eq!(g.len(), 67);
    let pk = PublicKey::<P>::from_bytes(&g).unwrap();
    assert_eq!(v(pk.to_bytes()), g);
    // -G has the other tag.
    let mut minus_g = g.clone();
    minus_g[0] = 3;
    assert!(PublicKey::<P>::from_bytes(&minus_g).is_ok());

    element_error::<P>(&[0; 67], Error::IdentityElement, "identity");
    element_error::<P>(&g[..66], Error::InvalidLength, "66 bytes");
    element_error::<P>(&[&g[..], &[0]].concat(), Error::InvalidLength, "68 bytes");
    element_error::<P>(&[0], Error::InvalidLength, "SEC1 identity byte");
    for tag in [0u8, 1, 4, 5, 6, 7, 0xff] {
        let mut b = g.clone();
        b[0] = tag;
        element_error::<P>(&b, Error::InvalidPoint, &format!("tag {tag}"));
    }
    // x = p = 2^521 - 1 and x above p: not canonical.
    let mut x_p = vec![2u8, 0x01];
    x_p.extend_from_slice(&[0xff; 65]);
    element_error::<P>(&x_p, Error::InvalidPoint, "x = p");
    let mut x_big = vec![2u8];
    x_big.extend_from_slice(&[0xff; 66]);
    element_error::<P>(&x_big, Error::InvalidPoint, "x > p");
    // Small x: those with no point on the curve are refused, under both tags alike.
    let (mut on, mut off) = (0, 0);
    for x in 1u8..=24 {
        let mut b = vec![0u8; 67];
        b[0] = 2;
        b[66] = x;
        let even = PublicKey::<P>::from_bytes(&b);
        b[0] = 3;
        let odd = PublicKey::<P>::from_bytes(&b);
        assert_eq!(even.is_ok(), odd.is_ok(), "x = {x}");
        match even {
            Ok(_) => on += 1,
            Err(e) => {
                assert_eq!(e, Error::InvalidPoint, "x = {x}");
                off += 1;
            }
        }
    }
    assert!(on > 0 && off > 0, "{on} on the curve, {off} off");
}

#[test]
fn p521_scalars_are_big_endian_and_strict() {
    let mut one = vec![0u8; 66];
    one[65] = 1;
    let sk = SecretKey::<P>::from_bytes(&one).unwrap();
    assert_eq!(v(sk.public_key().to_bytes()), unhex(P521_G));
    let n = unhex(P521_N);
    assert_eq!(n.len(), 66);
    let mut n_minus_1 = n.clone();
    n_minus_1[65] -= 1;
    assert!(SecretKey::<P>::from_bytes(&n_minus_1).is_ok());
    let mut top = vec![0u8; 66];
    top[0] = 2;
    for bad in [&n, &top, &vec![0xff; 66]] {
        assert_eq!(
            SecretKey::<P>::from_bytes(bad).err(),
            Some(Error::NonCanonicalScalar)
        );
        assert_eq!(
            hazmat::voprf_blind_with::<P>(b"x", bad).err(),
            Some(Error::NonCanonicalScalar)
        );
    }
    assert_eq!(
        SecretKey::<P>::from_bytes(&[0; 66]).err(),
        Some(Error::ZeroScalar)
    );
    assert_eq!(
        SecretKey::<P>::from_bytes(&one[1..]).err(),
        Some(Error::InvalidLength)
    );
    assert_eq!(
        SecretKey::<P>::from_bytes(&[&one[..], &[0]].concat()).err(),
        Some(Error::InvalidLength)
    );
    proof_decoding::<P>(&n_minus_1, &n);
}

#[test]
fn ristretto255_round_trips() {
    round_trips::<R>();
}

#[test]
fn p521_round_trips() {
    round_trips::<P>();
}

#[test]
fn ristretto255_serde() {
    serde_round_trips::<R>(32, 32);
}

#[test]
fn p521_serde() {
    serde_round_trips::<P>(67, 66);
}

#[test]
fn element_lengths() {
    assert_eq!(hazmat::element_len::<R>(), 32);
    assert_eq!(hazmat::element_len::<P>(), 67);
    assert_eq!(R::ID, b"ristretto255-SHA512");
    assert_eq!(P::ID, b"P521-SHA512");
}
