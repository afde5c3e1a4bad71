//! Unit tests that need private access.

#![cfg(test)] // A test-only module: its unwraps and expects are test assertions.

use super::*;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// BoringSSL `TrustTokenBadKeyTest` (`trust_token_test.cc`): one private scalar is corrupted in
/// memory (the public key stays); finishing fails unless the corrupted pair belongs to the
/// other bit (for VOPRF: always fails).
#[test]
fn boringssl_bad_key() {
    let mut rng = StdRng::seed_from_u64(42);
    for method in Method::ALL {
        let bits: &[bool] = if method.has_private_metadata() {
            &[false, true]
        } else {
            &[false]
        };
        for &bit in bits {
            for corrupted in 0..method.num_scalars() {
                let (sk, pk) = generate_key(method, 1, &mut rng);
                let mut bad = sk.clone();
                bad.corrupt_scalar_for_testing(corrupted);
                let mut issuer = Issuer::new(method, 10);
                issuer.add_key(bad).unwrap();
                let mut client = Client::new(method, 10);
                client.add_key(pk).unwrap();
                let req = client.begin_issuance(3, &mut rng).unwrap();
                let resp = issuer.issue(&req.message, 1, bit, 10, &mut rng).unwrap();
                let res = client.finish_issuance(req.state, &resp.message);
                // x0 y0 | x1 y1 | xs ys
                let other_bit =
                    method.has_private_metadata() && corrupted < 4 && (corrupted / 2 == 1) != bit;
                assert_eq!(
                    res.is_ok(),
                    other_bit,
                    "{method:?} bit {bit} scalar {corrupted}"
                );
            }
        }
    }
}

/// BoringSSL `HExp1` / `HExp2` / `HPST1` (`trust_token_test.cc`): the second generator of each
/// PMB method equals the `kH` constant of `pmbtoken.cc` (hash-to-curve of `"generator\0"`
/// under the method's NUL-terminated `HashH` DST).
#[test]
fn boringssl_h_constants() {
    use crate::group::Curve;
    for (method, k_h) in [
        (
            Method::ExperimentV1,
            "0482d568f539f60819a1759f98b510f50b9d2be1644d02761811f82fd333251f2cb8f6f19e938579b3b781a3e623c31cff03d9406cece04deadf9d94d187ab27f74f53eaa31872b9d156a04e81aaeb1c226d391c5eb127fc87c395d013b70b5cc7",
        ),
        (
            Method::ExperimentV2Pmb,
            "04bc272499fac9a4746ff9078155f81f6fda09e78c5d9e4e147c5314bc7e29579217946ed2dfa5311b4eb7fc93e36e141f4f14f3e547611c2c7225f04a45232d57930eb255b857254c1edbfd5870179abb9e5e939e92d3e82562bf59b2d23d71ff",
        ),
        (
            Method::PstV1Pmb,
            "044cfad4336d8c4e18ce1a827b538cf86318e5a3960d05def483a7d8de9c508138c93825a37097c11c332e8368649c5373c303c1a9d892a232f42240072d9b6fabff2a9203b173091a6a4ac24cac1359f4280e7869a5df0d74eb14ca8a32bbd391",
        ),
    ] {
        let h = C::encode_uncompressed(params::generator_h(method));
        assert_eq!(hex::encode(h.as_slice()), k_h, "{method:?}");
    }
}
