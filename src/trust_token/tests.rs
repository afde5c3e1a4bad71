//! Unit tests that need private access.

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
                let res = client.finish_issuance(&req.state, &resp.message);
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
