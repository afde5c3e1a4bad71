//! The RNGs an application can pass: rand 0.10's directly (`rand::rng()`, `StdRng`, `SysRng`
//! through `UnwrapErr`, `&mut dyn CryptoRng`), and with the adapters rand 0.8's (`Rng06`,
//! feature `rand_core_06`) and rand 0.9's (`Rng09`, feature `rand_core_09`). Each runs a VOPRF
//! round trip (key, blind, evaluate with proof, finalize, verify) and the adapters are checked
//! to pass the wrapped RNG's bytes through unchanged.

use privacy_tokens::rand_core::CryptoRng;
use privacy_tokens::voprf::{VoprfClient, VoprfServer};
use privacy_tokens::{P256Sha256, P384Sha384, Suite};

/// A VOPRF round trip on `rng`: the output verifies, and a second blind of the same input
/// (fresh randomness) finalizes to the same output.
fn round_trip<S: Suite>(rng: &mut (impl CryptoRng + ?Sized)) {
    let server = VoprfServer::<S>::new(rng);
    let a = VoprfClient::<S>::blind(b"input", rng).unwrap();
    let b = VoprfClient::<S>::blind(b"input", rng).unwrap();
    assert_ne!(
        a.message.to_bytes().as_ref(),
        b.message.to_bytes().as_ref(),
        "two blinds drew the same scalar"
    );
    let mut outputs = Vec::new();
    for blind in [a, b] {
        let eval = server.blind_evaluate(rng, &blind.message).unwrap();
        let out = blind
            .state
            .finalize(b"input", &eval.message, &eval.proof, server.public_key())
            .unwrap();
        assert!(server.verify_output(b"input", &out).unwrap());
        outputs.push(out);
    }
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn rand_010_thread_rng() {
    round_trip::<P256Sha256>(&mut rand::rng());
    round_trip::<P384Sha384>(&mut rand::rng());
}

#[test]
fn rand_010_std_rng_sys_rng_and_dyn() {
    use rand::SeedableRng;
    round_trip::<P256Sha256>(&mut rand::rngs::StdRng::seed_from_u64(1));
    round_trip::<P384Sha384>(&mut rand::rand_core::UnwrapErr(rand::rngs::SysRng));
    let mut rng = rand::rng();
    let dyn_rng: &mut dyn CryptoRng = &mut rng;
    round_trip::<P256Sha256>(dyn_rng);
}

/// A seeded rand_core 0.10 RNG reproduces the same server key (the scalar is drawn from the
/// RNG's bytes alone).
#[test]
fn seeded_rng_reproduces_keys() {
    use rand::SeedableRng;
    let key = |seed| {
        let server = VoprfServer::<P384Sha384>::new(&mut rand::rngs::StdRng::seed_from_u64(seed));
        server.public_key().to_bytes().to_vec()
    };
    assert_eq!(key(7), key(7));
    assert_ne!(key(7), key(8));
}

/// The adapter `$wrap` around `$rand`'s seeded `StdRng` yields that RNG's own `u32`, `u64` and
/// bytes, in order.
#[cfg(any(feature = "rand_core_06", feature = "rand_core_09"))]
macro_rules! passes_the_bytes_through {
    ($wrap:ident, $rand:ident) => {
        #[test]
        fn passes_the_bytes_through() {
            let mut ours = $wrap($rand::rngs::StdRng::seed_from_u64(9));
            let mut theirs = $rand::rngs::StdRng::seed_from_u64(9);
            assert_eq!(ours.next_u32(), theirs.next_u32());
            assert_eq!(ours.next_u64(), theirs.next_u64());
            let (mut a, mut b) = ([0u8; 77], [0u8; 77]);
            ours.fill_bytes(&mut a);
            theirs.fill_bytes(&mut b);
            assert_eq!(a, b);
        }
    };
}

#[cfg(feature = "rand_core_06")]
mod rand_08 {
    use super::*;
    use privacy_tokens::rand_core::Rng as _;
    use privacy_tokens::rng::Rng06;
    use rand08::{RngCore as _, SeedableRng as _};

    #[test]
    fn thread_rng_os_rng_and_a_borrow() {
        round_trip::<P256Sha256>(&mut Rng06(rand08::thread_rng()));
        round_trip::<P384Sha384>(&mut Rng06(rand08::rngs::OsRng));
        let mut rng = rand08::rngs::StdRng::seed_from_u64(3);
        round_trip::<P384Sha384>(&mut Rng06(&mut rng));
    }

    passes_the_bytes_through!(Rng06, rand08);
}

#[cfg(feature = "rand_core_09")]
mod rand_09 {
    use super::*;
    use privacy_tokens::rand_core::Rng as _;
    use privacy_tokens::rng::Rng09;
    use rand09::{RngCore as _, SeedableRng as _, TryRngCore as _};

    #[test]
    fn rng_os_rng_and_a_borrow() {
        round_trip::<P256Sha256>(&mut Rng09(rand09::rng()));
        round_trip::<P384Sha384>(&mut Rng09(rand09::rngs::OsRng.unwrap_err()));
        let mut rng = rand09::rngs::StdRng::seed_from_u64(3);
        round_trip::<P256Sha256>(&mut Rng09(&mut rng));
    }

    passes_the_bytes_through!(Rng09, rand09);
}
