//! Hostile input: every decoder rejects bad encodings with a typed error; proofs with any bit
//! flipped are rejected; batch limits hold; POPRF refuses a key with `skS + m == 0`.

use privacy_tokens::group::{Curve, PrimeGroup};
use privacy_tokens::voprf::{
    BlindedElement, EvaluationElement, KeyPair, PoprfClient, PoprfServer, Proof, PublicKey,
    SecretKey, VoprfClient, VoprfServer,
};
use privacy_tokens::{
    hazmat, Error, P256Sha256, P384Sha384, P521Sha512, Ristretto255Sha512, Suite,
};

/// The group order `n`, big-endian.
fn order<S: Suite<Group: Curve>>() -> Vec<u8> {
    let hex = if <S::Group as Curve>::SCALAR_LEN == 32 {
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
    } else {
        "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"
    };
    hex::decode(hex).unwrap()
}

fn field_prime<S: Suite<Group: Curve>>() -> Vec<u8> {
    let hex = if <S::Group as Curve>::SCALAR_LEN == 32 {
        "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
    } else {
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff"
    };
    hex::decode(hex).unwrap()
}

fn element_decoders<S: Suite<Group: Curve>>() {
    let mut rng = rand::thread_rng();
    let pk = *VoprfServer::<S>::new(&mut rng).public_key();
    let good = pk.to_bytes();
    let good = good.as_ref();
    let ne = good.len();
    type Dec = fn(&[u8]) -> Result<(), Error>;
    let decoders: [(&str, Dec); 3] = [
        ("PublicKey", |b| PublicKey::<S>::from_bytes(b).map(|_| ())),
        ("BlindedElement", |b| {
            BlindedElement::<S>::from_bytes(b).map(|_| ())
        }),
        ("EvaluationElement", |b| {
            EvaluationElement::<S>::from_bytes(b).map(|_| ())
        }),
    ];
    for (name, dec) in decoders {
        assert_eq!(dec(good), Ok(()), "{name}");
        assert_eq!(dec(&[]), Err(Error::InvalidLength), "{name} empty");
        assert_eq!(
            dec(&good[..ne - 1]),
            Err(Error::InvalidLength),
            "{name} truncated"
        );
        let mut long = good.to_vec();
        long.push(0);
        assert_eq!(
            dec(&long),
            Err(Error::InvalidLength),
            "{name} trailing byte"
        );
        assert_eq!(
            dec(&vec![0u8; ne]),
            Err(Error::IdentityElement),
            "{name} identity"
        );
        assert_eq!(
            dec(&[0u8]),
            Err(Error::InvalidLength),
            "{name} SEC1 identity byte"
        );
        for tag in [0u8, 1, 4, 5, 6, 7, 0xff] {
            let mut b = good.to_vec();
            b[0] = tag;
            assert_eq!(dec(&b), Err(Error::InvalidPoint), "{name} tag {tag}");
        }
        // x = p (non-canonical; x = p reduces to 0, which is on both curves).
        for tag in [2u8, 3] {
            let mut b = vec![tag];
            b.extend_from_slice(&field_prime::<S>());
            assert_eq!(dec(&b), Err(Error::InvalidPoint), "{name} x = p");
        }
        // An x with no point: search a few small x for a non-residue right-hand side.
        let mut found_off_curve = false;
        for x in 1u8..=40 {
            let mut b = vec![0u8; ne];
            b[0] = 2;
            b[ne - 1] = x;
            if dec(&b) == Err(Error::InvalidPoint) {
                found_off_curve = true;
                break;
            }
        }
        assert!(found_off_curve, "{name}: no off-curve x found");
        // The uncompressed form of a valid point is refused where compressed is required.
        let aff = <S::Group as Curve>::decode_compressed(good).unwrap();
        let unc = <S::Group as Curve>::encode_uncompressed(&aff);
        assert_eq!(
            dec(unc.as_ref()),
            Err(Error::InvalidLength),
            "{name} uncompressed"
        );
    }
}

#[test]
fn element_decoders_p256() {
    element_decoders::<P256Sha256>();
}

#[test]
fn element_decoders_p384() {
    element_decoders::<P384Sha384>();
}

fn scalar_decoders<S: Suite<Group: Curve>>() {
    let ns = <S::Group as Curve>::SCALAR_LEN;
    let n = order::<S>();
    let mut n_minus_1 = n.clone();
    *n_minus_1.last_mut().unwrap() -= 1;
    assert!(SecretKey::<S>::from_bytes(&n_minus_1).is_ok());
    assert_eq!(
        SecretKey::<S>::from_bytes(&n).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        SecretKey::<S>::from_bytes(&[0xff; 64][..ns]).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        SecretKey::<S>::from_bytes(&vec![0; ns]).err(),
        Some(Error::ZeroScalar)
    );
    assert_eq!(
        SecretKey::<S>::from_bytes(&n_minus_1[1..]).err(),
        Some(Error::InvalidLength)
    );
    let mut long = n_minus_1.clone();
    long.push(1);
    assert_eq!(
        SecretKey::<S>::from_bytes(&long).err(),
        Some(Error::InvalidLength)
    );

    // Proofs: 2*Ns bytes, both halves canonical.
    let mut ok = n_minus_1.clone();
    ok.extend_from_slice(&n_minus_1);
    assert!(Proof::<S>::from_bytes(&ok).is_ok());
    let mut bad_c = n.clone();
    bad_c.extend_from_slice(&n_minus_1);
    assert_eq!(
        Proof::<S>::from_bytes(&bad_c).err(),
        Some(Error::NonCanonicalScalar)
    );
    let mut bad_s = n_minus_1.clone();
    bad_s.extend_from_slice(&n);
    assert_eq!(
        Proof::<S>::from_bytes(&bad_s).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        Proof::<S>::from_bytes(&ok[1..]).err(),
        Some(Error::InvalidLength)
    );
    let mut long = ok.clone();
    long.push(0);
    assert_eq!(
        Proof::<S>::from_bytes(&long).err(),
        Some(Error::InvalidLength)
    );
    // Hazmat blinds are strict too.
    assert_eq!(
        hazmat::voprf_blind_with::<S>(b"x", &n).err(),
        Some(Error::NonCanonicalScalar)
    );
    assert_eq!(
        hazmat::voprf_blind_with::<S>(b"x", &vec![0; ns]).err(),
        Some(Error::ZeroScalar)
    );
}

#[test]
fn scalar_decoders_p256() {
    scalar_decoders::<P256Sha256>();
}

#[test]
fn scalar_decoders_p384() {
    scalar_decoders::<P384Sha384>();
}

fn every_proof_bit<S: Suite>() {
    let mut rng = rand::thread_rng();
    let server = VoprfServer::<S>::new(&mut rng);
    let input = b"bit flips";
    // The client state is consumed by finalize, so it is re-made from one blind for each attempt.
    let blind =
        <S::Group as PrimeGroup>::encode_scalar(&<S::Group as PrimeGroup>::random_scalar(&mut rng));
    let fresh = || hazmat::voprf_blind_with::<S>(input, blind.as_ref()).unwrap();
    let msg = fresh().message;
    let eval = server.blind_evaluate(&mut rng, &msg).unwrap();
    let proof = eval.proof.to_bytes();
    let proof = proof.as_ref();
    assert!(fresh()
        .state
        .finalize(input, &eval.message, &eval.proof, server.public_key())
        .is_ok());
    for bit in 0..proof.len() * 8 {
        let mut bad = proof.to_vec();
        bad[bit / 8] ^= 1 << (bit % 8);
        match Proof::<S>::from_bytes(&bad) {
            Err(e) => assert_eq!(e, Error::NonCanonicalScalar),
            Ok(p) => assert_eq!(
                fresh()
                    .state
                    .finalize(input, &eval.message, &p, server.public_key()),
                Err(Error::InvalidProof),
                "bit {bit}"
            ),
        }
    }
    // A valid proof under another key is rejected.
    let other = VoprfServer::<S>::new(&mut rng);
    assert_eq!(
        fresh()
            .state
            .finalize(input, &eval.message, &eval.proof, other.public_key()),
        Err(Error::InvalidProof)
    );
}

#[test]
fn every_proof_bit_p256() {
    every_proof_bit::<P256Sha256>();
}

#[test]
fn every_proof_bit_p384() {
    every_proof_bit::<P384Sha384>();
}

#[test]
fn every_proof_bit_p521() {
    every_proof_bit::<P521Sha512>();
}

#[test]
fn every_proof_bit_ristretto255() {
    every_proof_bit::<Ristretto255Sha512>();
}

#[test]
fn batch_limits() {
    let mut rng = rand::thread_rng();
    let server = VoprfServer::<P256Sha256>::new(&mut rng);
    assert_eq!(
        server.blind_evaluate_batch(&mut rng, &[]).err(),
        Some(Error::Batch)
    );
    let b = VoprfClient::<P256Sha256>::blind(b"x", &mut rng)
        .unwrap()
        .message;
    let too_many = vec![b; 65536];
    assert_eq!(
        server.blind_evaluate_batch(&mut rng, &too_many).err(),
        Some(Error::Batch)
    );
    let mut out = vec![EvaluationElement::<P256Sha256>::from_bytes(&b.to_bytes()).unwrap(); 2];
    assert_eq!(
        server
            .blind_evaluate_batch_into(&mut rng, &[b], &mut out)
            .err(),
        Some(Error::Batch)
    );
    // Mismatched finalize_batch lengths.
    let c1 = VoprfClient::<P256Sha256>::blind(b"a", &mut rng).unwrap();
    let c2 = VoprfClient::<P256Sha256>::blind(b"b", &mut rng).unwrap();
    let ev = server
        .blind_evaluate_batch(&mut rng, &[c1.message, c2.message])
        .unwrap();
    let inputs: [&[u8]; 1] = [b"a"];
    assert_eq!(
        VoprfClient::finalize_batch(
            vec![c1.state, c2.state],
            &inputs,
            &ev.messages,
            &ev.proof,
            server.public_key()
        )
        .err(),
        Some(Error::Batch)
    );
    // Swapped order of evaluated elements is rejected by the proof.
    let c1 = VoprfClient::<P256Sha256>::blind(b"a", &mut rng).unwrap();
    let c2 = VoprfClient::<P256Sha256>::blind(b"b", &mut rng).unwrap();
    let ev = server
        .blind_evaluate_batch(&mut rng, &[c1.message, c2.message])
        .unwrap();
    let swapped = [ev.messages[1], ev.messages[0]];
    let inputs: [&[u8]; 2] = [b"a", b"b"];
    assert_eq!(
        VoprfClient::finalize_batch(
            vec![c1.state, c2.state],
            &inputs,
            &swapped,
            &ev.proof,
            server.public_key()
        )
        .err(),
        Some(Error::InvalidProof)
    );
}

#[test]
fn batch_of_65535_is_accepted() {
    // The largest batch one proof covers (P-256 to keep it quick).
    let mut rng = rand::thread_rng();
    let server = VoprfServer::<P256Sha256>::new(&mut rng);
    let b = VoprfClient::<P256Sha256>::blind(b"x", &mut rng)
        .unwrap()
        .message;
    let max = vec![b; 65535];
    assert!(server.blind_evaluate_batch(&mut rng, &max).is_ok());
}

fn poprf_zero_tweak<S: Suite>() {
    // skS = -m makes t = skS + m = 0: the server must refuse with InverseError.
    let info = b"tweak info";
    let len = (info.len() as u16).to_be_bytes();
    let dst: [&[u8]; 5] = [b"HashToScalar-", b"OPRFV1-", &[2], b"-", S::ID];
    let m = <S::Group as PrimeGroup>::hash_to_scalar(S::EXPANSION, &[b"Info", &len, info], &dst)
        .unwrap();
    let sk =
        SecretKey::<S>::from_bytes(<S::Group as PrimeGroup>::encode_scalar(&-m).as_ref()).unwrap();
    let server = PoprfServer::<S>::from_secret_key(sk);
    let mut rng = rand::thread_rng();
    let b = PoprfClient::<S>::blind(b"x", b"other info", server.public_key(), &mut rng).unwrap();
    assert_eq!(
        server.blind_evaluate(&mut rng, &b.message, info).err(),
        Some(Error::Inverse)
    );
    assert_eq!(server.evaluate(b"x", info).err(), Some(Error::Inverse));
    // The client refuses the identity tweaked key.
    assert_eq!(
        PoprfClient::<S>::blind(b"x", info, server.public_key(), &mut rng).err(),
        Some(Error::InvalidInput)
    );
}

#[test]
fn poprf_zero_tweak_p256() {
    poprf_zero_tweak::<P256Sha256>();
}

#[test]
fn poprf_zero_tweak_p384() {
    poprf_zero_tweak::<P384Sha384>();
}

#[test]
fn poprf_zero_tweak_p521() {
    poprf_zero_tweak::<P521Sha512>();
}

#[test]
fn poprf_zero_tweak_ristretto255() {
    poprf_zero_tweak::<Ristretto255Sha512>();
}

#[test]
fn derive_key_pair_bounds() {
    let long = vec![0u8; 65536];
    assert_eq!(
        KeyPair::<P256Sha256>::derive(privacy_tokens::voprf::Mode::Voprf, b"seed", &long).err(),
        Some(Error::InputTooLong)
    );
    let mut rng = rand::thread_rng();
    assert_eq!(
        VoprfClient::<P256Sha256>::blind(&long, &mut rng).err(),
        Some(Error::InputTooLong)
    );
}
