//! Trust Tokens: heap-allocation counts per operation and (feature `inversion-counter`) the
//! number of base-field inversions (all of them: affine conversions and table normalisations)
//! spent by begin-issuance, issue and finish-issuance, at batch sizes 1, 10 and 100.
//!
//! ```text
//! cargo test --release --test trust_token_alloc -- --nocapture
//! cargo test --release --features inversion-counter --test trust_token_alloc -- --nocapture
//! ```
//!
//! * issue, begin-issuance and redeem allocate a number of times that does not grow with the
//!   batch; finish-issuance allocates that plus one buffer per returned token;
//! * issue and finish-issuance spend at most 8 field inversions per batch at every batch size
//!   (batched affine conversion: one inversion per step, never one per token); the exact
//!   counts are printed with `--nocapture`.

use allocation_counter::measure;
use privacy_tokens::trust_token::{generate_key, Client, Issuer, Method};
use rand::rngs::StdRng;
use rand::SeedableRng;

const SIZES: [usize; 3] = [1, 10, 100];

fn setup(method: Method) -> (Issuer, Client, StdRng) {
    let mut rng = StdRng::seed_from_u64(7);
    let (sk, pk) = generate_key(method, 3, &mut rng);
    let mut issuer = Issuer::new(method, 100);
    issuer.add_key(sk).unwrap();
    let mut client = Client::new(method, 100);
    client.add_key(pk).unwrap();
    // Warm up process-wide tables (generator table, H).
    let req = client.begin_issuance(1, &mut rng).unwrap();
    let resp = issuer.issue(&req.message, 3, false, 100, &mut rng).unwrap();
    let tokens = client.finish_issuance(req.state, &resp.message).unwrap();
    let rr = client.begin_redemption(&tokens[0], b"x").unwrap();
    issuer.redeem(&rr).unwrap();
    (issuer, client, rng)
}

fn allocs<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let mut out = None;
    let info = measure(|| out = Some(f()));
    (info.count_total, out.unwrap())
}

/// Allocation counts `(begin, issue, finish, begin_redemption, redeem)` at batch size `n`.
fn counts(method: Method, n: usize) -> [u64; 5] {
    let (issuer, client, mut rng) = setup(method);
    let (a_begin, req) = allocs(|| client.begin_issuance(n, &mut rng).unwrap());
    let bit = method.has_private_metadata();
    let (a_issue, resp) = allocs(|| issuer.issue(&req.message, 3, bit, 100, &mut rng).unwrap());
    let (a_finish, tokens) = allocs(|| client.finish_issuance(req.state, &resp.message).unwrap());
    let (a_br, rr) = allocs(|| client.begin_redemption(&tokens[0], b"client data").unwrap());
    let (a_redeem, _) = allocs(|| issuer.redeem(&rr).unwrap());
    [a_begin, a_issue, a_finish, a_br, a_redeem]
}

#[test]
fn allocations_per_operation() {
    for method in Method::ALL {
        let per: Vec<[u64; 5]> = SIZES.iter().map(|&n| counts(method, n)).collect();
        for (n, c) in SIZES.iter().zip(per.iter()) {
            println!(
                "{:<20} batch {n:>3}: begin_issuance {:>2}, issue {:>2}, finish_issuance {:>3}, begin_redemption {}, redeem {}",
                method.name(),
                c[0],
                c[1],
                c[2],
                c[3],
                c[4]
            );
        }
        // Small batches take stack paths (fewer allocations); from batch 10 on, the count is
        // the same for every size, apart from the one buffer per returned token.
        let base = |c: &[u64; 5], n: usize| [c[0], c[1], c[2] - n as u64];
        let big = base(&per[1], SIZES[1]);
        for (n, c) in SIZES.iter().zip(per.iter()) {
            let b = base(c, *n);
            for k in 0..3 {
                assert!(b[k] <= big[k], "{method:?} batch {n}: {b:?} > {big:?}");
            }
            if *n >= SIZES[1] {
                assert_eq!(b, big, "{method:?}: allocations grow with the batch");
            }
            assert_eq!(c[3], 1, "{method:?} begin_redemption: the output only");
            assert!(c[4] <= 1, "{method:?} redeem: at most the client data copy");
        }
    }
}

#[cfg(feature = "inversion-counter")]
mod inversions {
    use super::*;
    use privacy_tokens::group::inversion_count;

    fn inv<T>(f: impl FnOnce() -> T) -> (u64, T) {
        let before = inversion_count();
        let out = f();
        (inversion_count() - before, out)
    }

    #[test]
    fn issue_and_finish_spend_constant_inversions() {
        for method in Method::ALL {
            for n in SIZES {
                let (issuer, client, mut rng) = setup(method);
                let (i_begin, req) = inv(|| client.begin_issuance(n, &mut rng).unwrap());
                let bit = method.has_private_metadata();
                let (i_issue, resp) =
                    inv(|| issuer.issue(&req.message, 3, bit, 100, &mut rng).unwrap());
                let (i_finish, tokens) =
                    inv(|| client.finish_issuance(req.state, &resp.message).unwrap());
                assert_eq!(tokens.len(), n);
                println!(
                    "{:<20} batch {n:>3}: field inversions begin_issuance {i_begin}, issue {i_issue}, finish_issuance {i_finish}",
                    method.name()
                );
                let c = [i_begin, i_issue, i_finish];
                // Every base-field inversion is counted. PMB issue: the shared window tables of
                // all tokens, the batch of S', W', Ws', the DLEQOR2 tables over T, S, W, the
                // proof's commitments, and from three tokens on the tables of the two
                // multi-scalar multiplications of the batch weights.
                assert!(
                    i_issue <= 8 && i_finish <= 8 && i_begin <= 1,
                    "{method:?} {c:?}"
                );
            }
        }
    }
}
