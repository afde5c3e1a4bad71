//! decaf448 group layer (`group::decaf448`): RFC 9496 Appendix B and RFC 9380 K.6 vectors, the
//! RFC 9497 decaf448-SHAKE256 vectors recomputed from the group operations (everything but the
//! proofs), strict decoding, and cross-checks against the curve crate.

#[path = "support/runner.rs"]
mod runner;

use std::path::Path;

use privacy_tokens::group::decaf448::{expand_message_xof, Element, Scalar, Shake256x64};
use privacy_tokens::Error;
use rand::Rng;
use serde_json::Value;
use sha2::Digest;

fn vectors(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test-vectors")
        .join(name)
}

fn replay(name: &str) -> runner::Counts {
    let (_, c) = runner::replay_file(&vectors(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(c.failed == 0, "{name}: {:#?}", c.failures);
    c
}

#[test]
fn rfc9496_appendix_b() {
    // B.1: 16 multiples, B.2: 21 invalid encodings, B.3: 7 derived elements.
    let c = replay("rfc9496-decaf448.json");
    assert_eq!((c.passed, c.skipped), (16 + 21 + 7, 0), "{c:?}");
}

#[test]
fn rfc9380_expand_message_xof_shake256() {
    let c = replay("rfc9380-expand-message-xof-shake256.json");
    assert_eq!((c.passed, c.skipped), (10, 0), "{c:?}");
}

// ---------------------------------------------------------------------------------------------
// RFC 9497 decaf448-SHAKE256, recomputed from the group layer (RFC 9497 §3.2, §3.3)

fn h(v: &Value, key: &str) -> Vec<Vec<u8>> {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("missing {key}"))
        .split(',')
        .map(|p| hex::decode(p).unwrap())
        .collect()
}

fn lp(b: &[u8]) -> [u8; 2] {
    u16::try_from(b.len()).unwrap().to_be_bytes()
}

fn context(mode: u8) -> Vec<u8> {
    let mut c = b"OPRFV1-".to_vec();
    c.push(mode);
    c.extend_from_slice(b"-decaf448-SHAKE256");
    c
}

/// DeriveKeyPair (RFC 9497 §3.2.1).
fn derive_key_pair(mode: u8, seed: &[u8], info: &[u8]) -> (Scalar, Element) {
    let ctx = context(mode);
    for counter in 0u8..=255 {
        let sk = Scalar::hash_to_scalar(
            &[seed, &lp(info), info, &[counter]],
            &[b"DeriveKeyPair", &ctx],
        )
        .unwrap();
        if !bool::from(sk.is_zero()) {
            return (sk, Element::mul_generator(&sk));
        }
    }
    panic!("DeriveKeyPairError");
}

/// Every decaf448 entry: skSm, pkSm, BlindedElement, EvaluationElement and Output of every
/// vector in all three modes (8 vectors, 10 evaluations), the POPRF tweak included, from the
/// group operations alone (no `voprf` code). The proofs, and the same values through the
/// protocol API, are replayed by `tests/vectors.rs` (`Decaf448Shake256`).
#[test]
fn rfc9497_decaf448_values_without_proofs() {
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(vectors("rfc9497-voprf.json")).unwrap())
            .unwrap();
    let mut vectors_seen = 0;
    let mut evaluations = 0;
    for entry in json.as_array().unwrap() {
        if entry["identifier"] != "decaf448-SHAKE256" {
            continue;
        }
        let mode = entry["mode"].as_u64().unwrap() as u8;
        let ctx = context(mode);
        let seed = hex::decode(entry["seed"].as_str().unwrap()).unwrap();
        let key_info = hex::decode(entry["keyInfo"].as_str().unwrap()).unwrap();
        assert_eq!(
            hex::decode(entry["groupDST"].as_str().unwrap()).unwrap(),
            [b"HashToGroup-".as_slice(), &ctx].concat()
        );
        let (sk, pk) = derive_key_pair(mode, &seed, &key_info);
        assert_eq!(
            hex::encode(sk.to_bytes()),
            entry["skSm"].as_str().unwrap(),
            "skSm, mode {mode}"
        );
        if mode != 0 {
            assert_eq!(
                hex::encode(pk.to_bytes()),
                entry["pkSm"].as_str().unwrap(),
                "pkSm, mode {mode}"
            );
        }
        for v in entry["vectors"].as_array().unwrap() {
            vectors_seen += 1;
            let inputs = h(v, "Input");
            let blinds = h(v, "Blind");
            let blinded = h(v, "BlindedElement");
            let evaluated = h(v, "EvaluationElement");
            let outputs = h(v, "Output");
            let info = if mode == 2 {
                hex::decode(v["Info"].as_str().unwrap()).unwrap()
            } else {
                Vec::new()
            };
            // POPRF (§3.3.3): t = skS + HashToScalar("Info" || I2OSP(len(info), 2) || info).
            let eval_key = if mode == 2 {
                let m = Scalar::hash_to_scalar(
                    &[b"Info", &lp(&info), &info],
                    &[b"HashToScalar-", &ctx],
                )
                .unwrap();
                (sk + m).invert().unwrap()
            } else {
                sk
            };
            for i in 0..inputs.len() {
                evaluations += 1;
                let blind = Scalar::from_bytes(&blinds[i]).unwrap();
                let p = Element::hash_to_group(&[&inputs[i]], &[b"HashToGroup-", &ctx]).unwrap();
                let b = p.mul(&blind);
                assert_eq!(
                    b.to_bytes().to_vec(),
                    blinded[i],
                    "BlindedElement, mode {mode}"
                );
                let e = Element::from_bytes(&blinded[i]).unwrap().mul(&eval_key);
                assert_eq!(
                    e.to_bytes().to_vec(),
                    evaluated[i],
                    "EvaluationElement, mode {mode}"
                );
                let n = Element::from_bytes(&evaluated[i])
                    .unwrap()
                    .mul(&blind.invert().unwrap());
                let unblinded = n.to_bytes();
                let mut hash = Shake256x64::new()
                    .chain_update(lp(&inputs[i]))
                    .chain_update(&inputs[i]);
                if mode == 2 {
                    hash = hash.chain_update(lp(&info)).chain_update(&info);
                }
                let out = hash
                    .chain_update(lp(&unblinded))
                    .chain_update(unblinded)
                    .chain_update(b"Finalize")
                    .finalize();
                assert_eq!(out.to_vec(), outputs[i], "Output, mode {mode}");
            }
        }
    }
    // OPRF 2, VOPRF 3, POPRF 3 vectors; the batch-2 vectors hold two evaluations each.
    assert_eq!((vectors_seen, evaluations), (8, 10));
}

// ---------------------------------------------------------------------------------------------
// Strict decoding

#[test]
fn element_decoding_rejects_identity_and_wrong_lengths() {
    assert_eq!(Element::from_bytes(&[0u8; 56]), Err(Error::IdentityElement));
    assert_eq!(
        Element::from_bytes_allow_identity(&[0u8; 56]),
        Ok(Element::IDENTITY)
    );
    let g = Element::GENERATOR.to_bytes();
    assert_eq!(Element::from_bytes(&g), Ok(Element::GENERATOR));
    for len in [0usize, 1, 55, 57, 112] {
        let mut b = vec![0x66u8; len];
        b[..len.min(56)].copy_from_slice(&g[..len.min(56)]);
        assert_eq!(
            Element::from_bytes(&b),
            Err(Error::InvalidLength),
            "len {len}"
        );
        assert_eq!(
            Element::from_bytes_allow_identity(&b),
            Err(Error::InvalidLength),
            "len {len}"
        );
    }
    // The generator with a trailing byte.
    assert_eq!(
        Element::from_bytes(&[g.as_slice(), &[0]].concat()),
        Err(Error::InvalidLength)
    );
}

/// p = 2^448 - 2^224 - 1, little-endian.
fn field_prime_le() -> [u8; 56] {
    let mut p = [0xffu8; 56];
    p[28] = 0xfe;
    p
}

#[test]
fn element_decoding_rejects_non_canonical_and_negative_s() {
    // s = p (0 mod p, non-canonical), s = p + 2 (2 mod p) and s = 2^448 - 1: all >= p.
    let p = field_prime_le();
    let mut pp2 = [0u8; 56];
    let mut carry = 2u16;
    for i in 0..56 {
        let s = p[i] as u16 + carry;
        pp2[i] = s as u8;
        carry = s >> 8;
    }
    assert_eq!(carry, 0);
    for enc in [p, pp2, [0xff; 56]] {
        assert_eq!(Element::from_bytes(&enc), Err(Error::InvalidPoint));
        assert_eq!(
            Element::from_bytes_allow_identity(&enc),
            Err(Error::InvalidPoint)
        );
    }
    // p - s for the generator's (even) s: an odd, "negative" field element, rejected.
    let g = Element::GENERATOR.to_bytes();
    let neg = sub_le(&p, &g);
    assert_eq!(neg[0] & 1, 1);
    assert_eq!(Element::from_bytes(&neg), Err(Error::InvalidPoint));
    // s = 1: 1 - s^2 = 0, the decoding's square-root input is zero, rejected.
    let mut one = [0u8; 56];
    one[0] = 1;
    assert_eq!(
        Element::from_bytes_allow_identity(&one),
        Err(Error::InvalidPoint)
    );
}

fn sub_le(a: &[u8; 56], b: &[u8; 56]) -> [u8; 56] {
    let mut out = [0u8; 56];
    let mut borrow = 0i16;
    for i in 0..56 {
        let d = a[i] as i16 - b[i] as i16 - borrow;
        out[i] = d.rem_euclid(256) as u8;
        borrow = (d < 0) as i16;
    }
    assert_eq!(borrow, 0);
    out
}

/// The decaf448 order, little-endian.
fn order_le() -> [u8; 56] {
    let mut be = hex::decode(
        "3fffffffffffffffffffffffffffffffffffffffffffffffffffffff7cca23e9c44edb49aed63690216cc2728dc58f552378c292ab5844f3",
    )
    .unwrap();
    be.reverse();
    be.try_into().unwrap()
}

#[test]
fn scalar_decoding_is_strict() {
    let l = order_le();
    assert_eq!(Scalar::from_bytes(&l), Err(Error::NonCanonicalScalar));
    let mut l_minus_1 = l;
    l_minus_1[0] -= 1;
    let s = Scalar::from_bytes(&l_minus_1).unwrap();
    assert_eq!(s, -Scalar::ONE);
    assert_eq!(s.to_bytes(), l_minus_1);
    let mut l_plus_1 = l;
    l_plus_1[0] += 1;
    assert_eq!(
        Scalar::from_bytes(&l_plus_1),
        Err(Error::NonCanonicalScalar)
    );
    assert_eq!(
        Scalar::from_bytes(&[0xff; 56]),
        Err(Error::NonCanonicalScalar)
    );
    // Values in [l, 2^446) and values with the top two bits set.
    let mut top = [0u8; 56];
    top[55] = 0x40;
    assert_eq!(Scalar::from_bytes(&top), Err(Error::NonCanonicalScalar));
    // l's bytes 28..=55 with byte 27 raised from 0x7c to 0xff: above l, below 2^446.
    let mut hi = [0u8; 56];
    hi[27..].copy_from_slice(&l[27..]);
    hi[27] = 0xff;
    assert_eq!(Scalar::from_bytes(&hi), Err(Error::NonCanonicalScalar));
    assert_eq!(Scalar::from_bytes(&[0u8; 56]), Ok(Scalar::ZERO));
    for len in [0usize, 32, 55, 57, 64] {
        assert_eq!(
            Scalar::from_bytes(&vec![0u8; len]),
            Err(Error::InvalidLength)
        );
    }
    assert_eq!(Scalar::ZERO.invert(), Err(Error::ZeroScalar));
}

#[test]
fn wide_reduction_is_mod_the_order() {
    // 64 bytes of l (zero-extended) reduce to 0, of l + 5 to 5, and 2^512 - 1 to the value
    // Python's integers give for (2^512 - 1) % l.
    let l = order_le();
    let mut w = [0u8; 64];
    w[..56].copy_from_slice(&l);
    assert_eq!(Scalar::from_wide_bytes(&w), Scalar::ZERO);
    w[0] += 5;
    assert_eq!(Scalar::from_wide_bytes(&w), Scalar::from(5));
    let mut want = hex::decode(
        "00000000000000000000000000000000000000020cd77058eec492d944a725bf7a4cf635c8e9c2ab721cf5b5529eec33ffffffffffffffff",
    )
    .unwrap();
    want.reverse();
    assert_eq!(
        Scalar::from_wide_bytes(&[0xff; 64]).to_bytes().to_vec(),
        want
    );
    // 2 * l + 7 in 64 bytes.
    let mut two_l = [0u8; 64];
    let mut carry = 0u16;
    for i in 0..56 {
        let s = 2 * l[i] as u16 + carry;
        two_l[i] = s as u8;
        carry = s >> 8;
    }
    two_l[56] = carry as u8;
    two_l[0] += 7;
    assert_eq!(Scalar::from_wide_bytes(&two_l), Scalar::from(7));
}

#[test]
fn random_scalars_take_64_bytes_and_skip_zero() {
    // A source that yields l (zero-extended) first, then 64 bytes of 0x01.
    let l = order_le();
    let mut calls = 0;
    let s = Scalar::random_from(|buf: &mut [u8]| {
        assert_eq!(buf.len(), 64);
        calls += 1;
        if calls == 1 {
            buf.fill(0);
            buf[..56].copy_from_slice(&l);
        } else {
            buf.fill(1);
        }
    });
    assert_eq!(calls, 2, "the zero draw is rejected and drawn again");
    assert_eq!(s, Scalar::from_wide_bytes(&[1u8; 64]));
    let mut rng = rand::rng();
    let a = Scalar::random_from(|b| rng.fill_bytes(b));
    let b = Scalar::random_from(|b| rng.fill_bytes(b));
    assert_ne!(a, b);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic: the variable-time routines against the constant-time ones

#[test]
fn vartime_routines_agree_with_constant_time_ones() {
    let mut rng = rand::rng();
    let mut rand_scalar = || Scalar::random_from(|b| rng.fill_bytes(b));
    let l_minus_1 = -Scalar::ONE;
    let mut specials = vec![Scalar::ZERO, Scalar::ONE, Scalar::from(8), l_minus_1];
    for _ in 0..6 {
        specials.push(rand_scalar());
    }
    let p = Element::hash_to_group(&[b"point"], &[b"decaf448 test"]).unwrap();
    for k in &specials {
        assert_eq!(p.vartime_mul(k), p.mul(k));
        assert_eq!(Element::GENERATOR.vartime_mul(k), Element::mul_generator(k));
    }
    assert_eq!(p.mul(&l_minus_1), -p);
    assert_eq!(p.mul(&Scalar::ZERO), Element::IDENTITY);
    let points: Vec<Element> = (0..5u8)
        .map(|i| Element::hash_to_group(&[&[i]], &[b"decaf448 test"]).unwrap())
        .collect();
    let scalars: Vec<Scalar> = (0..5).map(|_| rand_scalar()).collect();
    let msm = Element::vartime_msm(&points, &scalars).unwrap();
    let pa: [Element; 5] = points.clone().try_into().unwrap();
    let sa: [Scalar; 5] = scalars.clone().try_into().unwrap();
    assert_eq!(msm, Element::lincomb(&pa, &sa));
    assert_eq!(
        Element::vartime_msm(&points[..2], &scalars),
        Err(Error::Batch)
    );
    assert_eq!(Element::vartime_msm(&[], &[]), Ok(Element::IDENTITY));
    // Scalar arithmetic: (a * b) * b^-1 = a, a - a = 0.
    let (a, b) = (rand_scalar(), rand_scalar());
    assert_eq!(a * b * b.invert().unwrap(), a);
    assert_eq!(a - a, Scalar::ZERO);
    assert_eq!(p.mul(&(a + b)), p.mul(&a) + p.mul(&b));
}

// ---------------------------------------------------------------------------------------------
// Cross-checks against the curve crate and its hash2curve

#[test]
fn expand_message_xof_matches_hash2curve_including_oversize_dst() {
    use ed448_goldilocks::elliptic_curve::consts::U28;
    use ed448_goldilocks::hash2curve::{ExpandMsg, ExpandMsgXof, Expander};
    use ed448_goldilocks::shake::Shake256;
    let long_dst = vec![b'D'; 300];
    for dst in [
        b"x".as_slice(),
        b"HashToGroup-OPRFV1-\x00-decaf448-SHAKE256",
        &long_dst[..255],
        &long_dst,
    ] {
        for len in [1usize, 56, 64, 112, 200, 1000] {
            let msg = b"message";
            let mut ours = vec![0u8; len];
            expand_message_xof(&[msg, b"!"], &[dst], &mut ours).unwrap();
            let mut theirs = vec![0u8; len];
            let n = core::num::NonZero::new(len as u16).unwrap();
            let mut e =
                <ExpandMsgXof<Shake256> as ExpandMsg<U28>>::expand_message(&[msg, b"!"], &[dst], n)
                    .unwrap();
            let mut filled = 0;
            while filled < len {
                filled += e.fill_bytes(&mut theirs[filled..]).unwrap();
            }
            assert_eq!(ours, theirs, "dst {} bytes, len {len}", dst.len());
        }
    }
    assert_eq!(
        expand_message_xof(&[b"m"], &[], &mut [0u8; 8]),
        Err(Error::HashToCurve)
    );
    assert_eq!(
        expand_message_xof(&[b"m"], &[b"dst"], &mut []),
        Err(Error::HashToCurve)
    );
    assert_eq!(
        expand_message_xof(&[b"m"], &[b"dst"], &mut vec![0u8; 65536]),
        Err(Error::HashToCurve)
    );
}

/// The curve crate's `GroupDigest` for decaf448 (`hash_from_bytes`, `hash_to_scalar` with 64
/// bytes) computes the same functions as ours, on inputs of every shape and on the RFC 9497 DSTs.
#[test]
fn hash_to_group_and_scalar_match_the_curve_crate() {
    use ed448_goldilocks::elliptic_curve::consts::U64;
    use ed448_goldilocks::elliptic_curve::group::GroupEncoding;
    use ed448_goldilocks::elliptic_curve::PrimeField;
    use ed448_goldilocks::hash2curve::{hash_from_bytes, hash_to_scalar, ExpandMsgXof};
    use ed448_goldilocks::shake::Shake256;
    use ed448_goldilocks::Decaf448;
    let long_dst = vec![b'D'; 300];
    let dsts: [&[u8]; 4] = [
        b"HashToGroup-OPRFV1-\x00-decaf448-SHAKE256",
        b"HashToScalar-OPRFV1-\x02-decaf448-SHAKE256",
        b"x",
        &long_dst,
    ];
    for dst in dsts {
        for msg in [&b""[..], b"\x00", &[0x5a; 17], &[7u8; 1000]] {
            let theirs =
                hash_from_bytes::<Decaf448, ExpandMsgXof<Shake256>>(&[msg], &[dst]).unwrap();
            let ours = Element::hash_to_group(&[msg], &[dst]).unwrap();
            assert_eq!(theirs.to_bytes().as_slice(), ours.to_bytes().as_slice());
            let theirs =
                hash_to_scalar::<Decaf448, ExpandMsgXof<Shake256>, U64>(&[msg], &[dst]).unwrap();
            let ours = Scalar::hash_to_scalar(&[msg], &[dst]).unwrap();
            assert_eq!(theirs.to_repr().as_slice(), ours.to_bytes().as_slice());
        }
    }
}

#[test]
fn shake256x64_is_shake256_truncated_to_64_bytes() {
    use shake::digest::{ExtendableOutput, Update, XofReader};
    let mut x = shake::Shake256::default();
    x.update(b"abc");
    let mut want = [0u8; 64];
    x.finalize_xof().read(&mut want);
    assert_eq!(Shake256x64::digest(b"abc")[..], want[..]);
    let mut d = Shake256x64::new();
    Digest::update(&mut d, b"a");
    Digest::update(&mut d, b"bc");
    assert_eq!(d.finalize_reset()[..], want[..]);
    // After the reset the state is fresh.
    assert_eq!(d.finalize(), Shake256x64::digest(b""));
    // The NIST SHAKE256("") value, first 16 bytes.
    assert_eq!(
        hex::encode(&Shake256x64::digest(b"")[..16]),
        "46b9dd2b0ba88d13233b3feb743eeb24"
    );
}

/// Our windowed multiplications against the curve crate's double-and-add, on edge and random
/// scalars and points.
#[test]
fn multiplication_matches_the_curve_crate() {
    use ed448_goldilocks::elliptic_curve::group::GroupEncoding;
    use ed448_goldilocks::elliptic_curve::PrimeField;
    use ed448_goldilocks::{DecafPoint, DecafScalar};
    let mut rng = rand::rng();
    let mut scalars = vec![
        Scalar::ZERO,
        Scalar::ONE,
        Scalar::from(7),
        Scalar::from(8),
        Scalar::from(9),
        Scalar::from(0x8888_8888),
        -Scalar::ONE,
        -Scalar::from(8),
    ];
    for _ in 0..12 {
        scalars.push(Scalar::random_from(|b| rng.fill_bytes(b)));
    }
    let points = [
        Element::GENERATOR,
        Element::hash_to_group(&[b"a"], &[b"decaf448 test"]).unwrap(),
        -Element::GENERATOR,
    ];
    for k in &scalars {
        let theirs_k = DecafScalar::from_repr(k.to_bytes().into()).unwrap();
        for p in &points {
            let theirs_p = DecafPoint::from_bytes(&p.to_bytes().into()).unwrap();
            let want = (theirs_p * theirs_k).to_bytes();
            assert_eq!(p.mul(k).to_bytes()[..], want[..]);
            assert_eq!(p.vartime_mul(k).to_bytes()[..], want[..]);
        }
        let want = (DecafPoint::GENERATOR * theirs_k).to_bytes();
        assert_eq!(Element::mul_generator(k).to_bytes()[..], want[..]);
    }
    for w in scalars.windows(2) {
        let (a, b) = (w[0], w[1]);
        let p = points[1];
        let want = Element::mul_generator(&a) + p.mul(&b);
        assert_eq!(Element::vartime_mul_generator_add(&a, &b, &p), want);
        assert_eq!(
            Element::vartime_lincomb(&[Element::GENERATOR, p], &[a, b]),
            want
        );
        assert_eq!(Element::lincomb(&[Element::GENERATOR, p], &[a, b]), want);
    }
}

#[test]
fn batch_inversion() {
    let mut rng = rand::rng();
    let mut s: Vec<Scalar> = (0..7)
        .map(|_| Scalar::random_from(|b| rng.fill_bytes(b)))
        .collect();
    s.push(Scalar::ONE);
    s.push(-Scalar::ONE);
    let want: Vec<Scalar> = s.iter().map(|x| x.invert().unwrap()).collect();
    let mut scratch = vec![Scalar::ZERO; s.len()];
    Scalar::batch_invert(&mut s, &mut scratch).unwrap();
    assert_eq!(s, want);
    let mut one = [Scalar::ONE];
    Scalar::batch_invert(&mut one, &mut [Scalar::ZERO]).unwrap();
    assert_eq!(one, [Scalar::ONE]);
    let before = s.clone();
    s[3] = Scalar::ZERO;
    let with_zero = s.clone();
    assert_eq!(
        Scalar::batch_invert(&mut s, &mut scratch),
        Err(Error::ZeroScalar)
    );
    assert_eq!(s, with_zero, "nothing changes on error");
    assert_ne!(s, before);
    assert_eq!(
        Scalar::batch_invert(&mut s, &mut scratch[..2]),
        Err(Error::Batch)
    );
    Scalar::batch_invert(&mut [], &mut []).unwrap();
}
