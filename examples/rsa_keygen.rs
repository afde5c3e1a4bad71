//! Times RSA-2048 key generation, random (`SecretKey::generate`) and derived from a seed
//! (`SecretKey::from_seed`, what the issuer server does), with plain and with safe primes:
//! `cargo run --release --example rsa_keygen [count]` (default 3 of each).
use privacy_tokens::blind_rsa::SecretKey;
use rand::RngExt as _;
use std::time::Instant;

fn main() -> Result<(), privacy_tokens::Error> {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let mut rng = rand::rng();
    for safe in [false, true] {
        for _ in 0..count {
            let t = Instant::now();
            SecretKey::generate(&mut rng, 2048, safe)?;
            let generated = t.elapsed();
            let seed: [u8; 32] = rng.random();
            let t = Instant::now();
            SecretKey::from_seed(&seed, 2048, safe, |_| true)?;
            println!(
                "safe_primes={safe}: generate {generated:.2?}, from_seed {:.2?}",
                t.elapsed()
            );
        }
    }
    Ok(())
}
