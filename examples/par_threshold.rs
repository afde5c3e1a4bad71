//! Where splitting a batch over cores starts to pay (feature `rayon`): the median time of
//! `VoprfServer::blind_evaluate_batch` (P-384) and of the Trust Token `pst_v1_pmb` issue at small
//! batch sizes, in a one-thread rayon pool (never split) and in the global pool (split from
//! `PAR_MIN_BATCH` elements on).
//!
//! ```text
//! cargo run --release --features rayon --example par_threshold [-- SIZES...]
//! ```

use std::time::Instant;

use privacy_tokens::trust_token::{generate_key, Client, Issuer, Method};
use privacy_tokens::voprf::{VoprfClient, VoprfServer};
use privacy_tokens::{P384Sha384, PAR_MIN_BATCH};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Median wall time of `runs` calls of `f`, in microseconds.
fn median_us(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a batch size"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1, 2, 3, 4, 6, 8, 100]
    } else {
        sizes
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut rng = StdRng::seed_from_u64(1);
    println!(
        "PAR_MIN_BATCH = {PAR_MIN_BATCH}, global pool: {} threads",
        rayon::current_num_threads()
    );
    let server = VoprfServer::<P384Sha384>::new(&mut rng);
    let method = Method::PstV1Pmb;
    let (sk, pk) = generate_key(method, 1, &mut rng);
    let mut issuer = Issuer::new(method, 100);
    issuer.add_key(sk).expect("key");
    let mut client = Client::new(method, 100);
    client.add_key(pk).expect("key");
    for n in sizes {
        let msgs: Vec<_> = (0..n)
            .map(|i| {
                VoprfClient::<P384Sha384>::blind(&[i as u8], &mut rng)
                    .expect("blind")
                    .message
            })
            .collect();
        let runs = if n >= 50 { 7 } else { 31 };
        let eval = |rng: &mut StdRng| {
            server.blind_evaluate_batch(rng, &msgs).expect("batch");
        };
        let mut r1 = StdRng::seed_from_u64(2);
        let seq = one.install(|| median_us(runs, || eval(&mut r1)));
        let par = median_us(runs, || eval(&mut rng));
        let req = client.begin_issuance(n, &mut rng).expect("begin");
        let issue = |rng: &mut StdRng| {
            issuer
                .issue(&req.message, 1, true, 100, rng)
                .expect("issue");
        };
        let pseq = one.install(|| median_us(runs, || issue(&mut r1)));
        let ppar = median_us(runs, || issue(&mut rng));
        println!(
            "batch {n:>3}: VOPRF P-384 blind_evaluate_batch {seq:>9.0} us one thread, {par:>9.0} us pool ({:.2}x); \
             pst_v1_pmb issue {pseq:>9.0} us, {ppar:>9.0} us ({:.2}x)",
            seq / par,
            pseq / ppar
        );
    }
}
