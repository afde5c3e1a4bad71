//! Splitting a batch over cores (feature `rayon`), timed in one process: each step runs in a
//! one-thread rayon pool (never split) and in the global pool (split from `PAR_MIN_BATCH`
//! elements on), alternately, and the medians are printed with their ratio. Steps: VOPRF P-384
//! `blind_evaluate_batch` and `finalize_batch`, Trust Token `pst_v1_voprf` and `pst_v1_pmb`
//! `issue` and `finish_issuance` (the clients' states are built before the timings).
//!
//! ```text
//! cargo run --release --features rayon --example par_threshold [-- ROUNDS SIZES...]
//! ```
//!
//! Defaults: 15 rounds at batch sizes 1, 2, 3, 4, 6, 8 and 100.

use std::sync::Mutex;
use std::time::Instant;

use privacy_tokens::trust_token::{generate_key, Client, IssuanceState, Issuer, Method};
use privacy_tokens::voprf::{VoprfClient, VoprfServer};
use privacy_tokens::{hazmat, P384Sha384, PAR_MIN_BATCH};
use rand::rngs::StdRng;
use rand::SeedableRng;

type S = P384Sha384;

/// Medians (µs) of `f` run alternately in the one-thread pool and in the global pool.
fn compare(one: &rayon::ThreadPool, rounds: usize, f: &(dyn Fn() + Sync)) -> (f64, f64) {
    let time = |g: &dyn Fn()| {
        let s = Instant::now();
        g();
        s.elapsed().as_secs_f64() * 1e6
    };
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        seq.push(one.install(|| time(f)));
        par.push(time(f));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(seq), median(par))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let rounds = args.first().copied().unwrap_or(15);
    let sizes = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        vec![1, 2, 3, 4, 6, 8, 100]
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    println!(
        "PAR_MIN_BATCH = {PAR_MIN_BATCH}, global pool: {} threads, {rounds} rounds, medians",
        rayon::current_num_threads()
    );
    let mut rng = StdRng::seed_from_u64(1);
    let server = VoprfServer::<S>::new(&mut rng);
    let tt: Vec<_> = [Method::PstV1Voprf, Method::PstV1Pmb]
        .into_iter()
        .map(|method| {
            let (sk, pk) = generate_key(method, 1, &mut rng);
            let mut issuer = Issuer::new(method, 100);
            issuer.add_key(sk).expect("key");
            let mut client = Client::new(method, 100);
            client.add_key(pk).expect("key");
            (method, issuer, client)
        })
        .collect();
    for n in sizes {
        let mut rows: Vec<(String, (f64, f64))> = Vec::new();
        let inputs: Vec<[u8; 1]> = (0..n).map(|i| [i as u8]).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
        let blinds: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let mut b = vec![0u8; 48];
                b[1] = 1 + i as u8;
                b
            })
            .collect();
        let states = || -> Vec<VoprfClient<S>> {
            refs.iter()
                .zip(&blinds)
                .map(|(i, b)| hazmat::voprf_blind_with::<S>(i, b).expect("blind").state)
                .collect()
        };
        let msgs: Vec<_> = states().iter().map(|s| s.blinded_element()).collect();
        let ev = server.blind_evaluate_batch(&mut rng, &msgs).expect("batch");
        let eval = || {
            server
                .blind_evaluate_batch(&mut StdRng::seed_from_u64(2), &msgs)
                .expect("batch");
        };
        rows.push((
            "VOPRF P-384 blind_evaluate_batch".into(),
            compare(&one, rounds, &eval),
        ));
        // Client states are consumed: one per run, built before the timings.
        let spare = Mutex::new((0..2 * rounds).map(|_| states()).collect::<Vec<_>>());
        let fin = || {
            let st = spare.lock().expect("lock").pop().expect("a state");
            VoprfClient::finalize_batch(st, &refs, &ev.messages, &ev.proof, server.public_key())
                .expect("finalize");
        };
        rows.push((
            "VOPRF P-384 finalize_batch".into(),
            compare(&one, rounds, &fin),
        ));
        for (method, issuer, client) in &tt {
            let req = client.begin_issuance(n, &mut rng).expect("begin");
            let bit = method.has_private_metadata();
            let issue = || {
                issuer
                    .issue(&req.message, 1, bit, 100, &mut StdRng::seed_from_u64(3))
                    .expect("issue");
            };
            rows.push((
                format!("{} issue", method.name()),
                compare(&one, rounds, &issue),
            ));
            let resp = issuer
                .issue(&req.message, 1, bit, 100, &mut rng)
                .expect("issue");
            let stored = req.state.to_secret_bytes();
            let spare = Mutex::new(
                (0..2 * rounds)
                    .map(|_| IssuanceState::from_secret_bytes(&stored).expect("state"))
                    .collect::<Vec<_>>(),
            );
            let finish = || {
                let st = spare.lock().expect("lock").pop().expect("a state");
                client.finish_issuance(st, &resp.message).expect("finish");
            };
            rows.push((
                format!("{} finish_issuance", method.name()),
                compare(&one, rounds, &finish),
            ));
        }
        for (what, (seq, par)) in rows {
            println!(
                "batch {n:>3} {what:<45} one thread {seq:>10.0} us, pool {par:>10.0} us: {:.2}x",
                seq / par
            );
        }
    }
}
