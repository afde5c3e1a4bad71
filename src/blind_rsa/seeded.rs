//! RSA keys derived from a seed: the same seed gives the same key on every machine and with
//! every version of this crate, so issuers that share a master secret share their RSA keys
//! without sharing key files.
//!
//! # The derivation (fixed: changing it would change every derived key)
//! With `b = bits / 2` and `L = b / 8`:
//! - `PRK = HMAC-SHA-256(salt = "privacy-tokens/blind-rsa/from-seed/v1", seed)` (HKDF-Extract);
//! - `s_i = HKDF-Expand(PRK, u32 bits ‖ u8 safe ‖ u32 i, L)` with its top two bits set
//!   (RFC 5869, SHA-256; integers big-endian), for `i = 0, 1, 2, …`;
//! - `p_i` is the least prime `>= s_i` (the least safe prime with `safe_primes`) below `2^b`;
//!   an `s_i` with none is skipped. This is a mathematical definition, not a random search,
//!   so it does not depend on the prime sieve's implementation.
//! - The candidates are the pairs `(p_j, p_i)` with `i < j` in the order `(1, 0)`, `(2, 0)`,
//!   `(2, 1)`, `(3, 0)`, …: `n = p_j p_i` (two top bits set, so `n` has exactly `bits` bits),
//!   `e = 65537`, `d = e^-1 mod (p_j - 1)(p_i - 1)`. A pair with `p_j = p_i` or no `d` is
//!   skipped; the first pair the caller's `accept` takes is the key.
//!
//! Pairs share primes only among candidates, and only the accepted one is ever published.
//! The search starts from a pseudo-random point and takes the next prime, which favours primes
//! after long gaps slightly (the incremental search of FIPS 186-5 appendix A.1.3 and of
//! OpenSSL's older generator); the entropy lost is a few bits of 1024.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use super::key::{PublicKey, SecretKey, MAX_MODULUS_BITS, MIN_MODULUS_BITS};
use super::num::{next_prime_vartime, Int};
use crate::{Error, Result};

/// The salt binding the derivation's version.
const SALT: &[u8] = b"privacy-tokens/blind-rsa/from-seed/v1";
/// At most this many primes are derived for one key (`MAX_PRIMES (MAX_PRIMES - 1) / 2` pairs
/// offered to `accept`).
pub const MAX_SEED_PRIMES: u32 = 64;

impl SecretKey {
    /// Whether both primes are safe primes (`p = 2p' + 1` with `p'` prime), as partially
    /// blind RSA (type 0xDA7A) needs: with other primes some metadata has no derived key
    /// ([`SecretKey::derive`] fails with `DeriveKeyPair`). Two primality tests per prime,
    /// variable time in the primes (a check at key load, like generation): milliseconds.
    pub fn has_safe_primes(&self) -> bool {
        let (p, q) = self.primes();
        super::num::is_prime_vartime(p, true) && super::num::is_prime_vartime(q, true)
    }

    /// The key of `bits` bits (2048 to 4096, a multiple of 16) derived from `seed` (at least 32
    /// bytes, secret), with `e = 65537`: the first candidate of the derivation that `accept`
    /// takes (`|_| true` for the first). Deterministic: the same arguments give the same key
    /// everywhere, so instances sharing a seed share the key without sharing a file. With
    /// `safe_primes`, both primes are safe primes (partially blind RSA's keys).
    ///
    /// The derivation, fixed across versions of this crate, is described in the
    /// `blind_rsa::seeded` module's source; it costs what [`SecretKey::generate`] costs
    /// (safe primes take seconds each), plus one prime per refused pair now and then.
    ///
    /// # Errors
    /// [`Error::InvalidKey`] for a seed shorter than 32 bytes, a size out of range, or when
    /// `accept` refused every pair of [`MAX_SEED_PRIMES`] primes.
    pub fn from_seed(
        seed: &[u8],
        bits: u32,
        safe_primes: bool,
        mut accept: impl FnMut(&PublicKey) -> bool,
    ) -> Result<Self> {
        if seed.len() < 32
            || !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&bits)
            || !bits.is_multiple_of(16)
        {
            return Err(Error::InvalidKey);
        }
        let prk = extract(seed)?;
        let mut primes: Vec<Int> = Vec::new();
        let mut index = 0u32;
        let result = (|| {
            while primes.len() < MAX_SEED_PRIMES as usize {
                let i = index;
                index += 1;
                let Some(p) = derive_prime(&prk, bits, safe_primes, i)? else {
                    continue;
                };
                for q in &primes {
                    if let Some((public, d)) = candidate(&p, q, bits)? {
                        if accept(&public) {
                            return SecretKey::build(public, p.clone(), q.clone(), d);
                        }
                    }
                }
                primes.push(p);
            }
            Err(Error::InvalidKey)
        })();
        for p in &mut primes {
            p.zeroize();
        }
        result
    }
}

/// The public key `n = p q`, `e = 65537` and `d = e^-1 mod (p - 1)(q - 1)`, or `None` when
/// `p == q`, `n` has not `bits` bits or `e` has no inverse.
fn candidate(p: &Int, q: &Int, bits: u32) -> Result<Option<(PublicKey, Int)>> {
    let n = p.mul(q);
    if n.bits_vartime() != bits || bool::from(p.ct_eq(q)) {
        return Ok(None);
    }
    let e = Int::from_be(&[0x01, 0x00, 0x01]);
    let mut phi = p.minus_one().mul(&q.minus_one());
    let d = e.invert_mod(&phi);
    phi.zeroize();
    let Some(d) = d else {
        return Ok(None);
    };
    let n_bytes = n
        .to_be(bits.div_ceil(8) as usize)
        .ok_or(Error::InvalidKey)?;
    let public = PublicKey::from_components(&n_bytes, &[0x01, 0x00, 0x01])?;
    Ok(Some((public, d)))
}

/// `HKDF-Extract(SALT, seed)` with SHA-256.
fn extract(seed: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(SALT).map_err(|_| Error::InvalidKey)?;
    mac.update(seed);
    let mut prk = Zeroizing::new([0u8; 32]);
    prk.copy_from_slice(&mac.finalize().into_bytes());
    Ok(prk)
}

/// `p_index`: the least (safe) prime at or above `s_index`, or `None` when there is none
/// below `2^(bits/2)`.
fn derive_prime(prk: &[u8; 32], bits: u32, safe: bool, index: u32) -> Result<Option<Int>> {
    let half = bits / 2;
    let mut info = [0u8; 9];
    info[..4].copy_from_slice(&bits.to_be_bytes());
    info[4] = u8::from(safe);
    info[5..].copy_from_slice(&index.to_be_bytes());
    let mut okm = Zeroizing::new(vec![0u8; (half / 8) as usize]);
    expand(prk, &info, &mut okm)?;
    okm[0] |= 0xc0;
    let mut start = Int::from_be(&okm);
    let p = next_prime_vartime(&start, half, safe);
    start.zeroize();
    Ok(p)
}

/// `HKDF-Expand(prk, info, out.len())` with SHA-256 (RFC 5869 §2.3), at most 255 blocks.
fn expand(prk: &[u8; 32], info: &[u8], out: &mut [u8]) -> Result<()> {
    let mut t = Zeroizing::new([0u8; 32]);
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let counter = u8::try_from(i + 1).map_err(|_| Error::InvalidKey)?;
        let mut mac =
            <Hmac<Sha256> as KeyInit>::new_from_slice(prk).map_err(|_| Error::InvalidKey)?;
        if i > 0 {
            mac.update(t.as_ref());
        }
        mac.update(info);
        mac.update(&[counter]);
        t.copy_from_slice(&mac.finalize().into_bytes());
        chunk.copy_from_slice(&t[..chunk.len()]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5869 test case 3 (SHA-256, empty salt and info) checks `extract`/`expand` through a
    /// variant of them with that salt: the KDF itself is the standard one.
    #[test]
    fn hkdf_matches_rfc5869_case_3() {
        let ikm = [0x0bu8; 22];
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&[]).unwrap(); // ok: test
        mac.update(&ikm);
        let mut prk = [0u8; 32];
        prk.copy_from_slice(&mac.finalize().into_bytes());
        let mut okm = [0u8; 42];
        expand(&prk, &[], &mut okm).unwrap(); // ok: test
        assert_eq!(
            okm[..],
            [
                0x8d, 0xa4, 0xe7, 0x75, 0xa5, 0x63, 0xc1, 0x8f, 0x71, 0x5f, 0x80, 0x2a, 0x06, 0x3c,
                0x5a, 0x31, 0xb8, 0xa1, 0x1f, 0x5c, 0x5e, 0xe1, 0x87, 0x9e, 0xc3, 0x45, 0x4e, 0x5f,
                0x3c, 0x73, 0x8d, 0x2d, 0x9d, 0x20, 0x13, 0x95, 0xfa, 0xa4, 0xb6, 0x1a, 0x96, 0xc8
            ][..]
        );
    }

    /// The prime is the least one at or above the start: prime, not below it, and (for plain
    /// primes, whose gaps are short) every number between them composite, checked one by one
    /// with `is_prime`, not the sieve. The control: from just above the prime the search finds
    /// a larger one.
    #[test]
    fn the_prime_is_the_least_at_or_above_the_start() {
        let prk = extract(&[7u8; 32]).unwrap(); // ok: test
                                                // Safe primes at 512 bits (a 1024-bit modulus's), to keep the test short.
        for (bits, safe) in [(2048u32, false), (1024, true)] {
            let mut info = [0u8; 9];
            info[..4].copy_from_slice(&bits.to_be_bytes());
            info[4] = u8::from(safe);
            let mut okm = vec![0u8; bits as usize / 16];
            expand(&prk, &info, &mut okm).unwrap(); // ok: test
            okm[0] |= 0xc0;
            let start = Int::from_be(&okm);
            let p = derive_prime(&prk, bits, safe, 0).unwrap().unwrap(); // ok: test
            assert!(super::super::num::is_prime_vartime(&p, safe));
            assert!(!super::super::num::lt(&p, &start));
            let mut x = start.clone();
            let mut between = 0;
            while !safe && !bool::from(x.ct_eq(&p)) {
                // A number with a factor below 200 is composite (this test's own trial
                // division); the others go through `is_prime`.
                let bytes = x.to_be(128).unwrap(); // ok: test
                let small = (2u32..200).any(|d| {
                    bytes
                        .iter()
                        .fold(0u32, |r, &b| (r * 256 + u32::from(b)) % d)
                        == 0
                });
                assert!(
                    small || !super::super::num::is_prime_vartime(&x, false),
                    "a smaller prime"
                );
                x = super::super::num::add_u64(&x, 1);
                between += 1;
            }
            // Control: from p + 1 the search finds another, larger prime.
            let after =
                next_prime_vartime(&super::super::num::add_u64(&p, 1), bits / 2, safe).unwrap(); // ok: test
            assert!(super::super::num::lt(&p, &after));
            assert!(between < 1_000_000);
        }
    }

    /// Keys of plain primes are not taken for safe-prime keys: a plain derived key and the
    /// RFC 9578 test key. (The positive case: the partially blind RSA draft's keys, checked by
    /// the vector runner, `tests/support/blind_rsa.rs`.)
    #[test]
    fn plain_primes_are_not_safe() {
        let plain = SecretKey::from_seed(&[5u8; 32], 2048, false, |_| true).unwrap(); // ok: test
        assert!(!plain.has_safe_primes());
        assert!(!crate::blind_rsa::test_key().unwrap().has_safe_primes()); // ok: test
    }

    /// Same seed, same key; another seed or `accept` another key; `accept` sees the
    /// candidates in order and the key is the one it took; the key signs and verifies.
    #[test]
    fn derivation_is_deterministic_and_accept_chooses() {
        let seed = [42u8; 32];
        let a = SecretKey::from_seed(&seed, 2048, false, |_| true).unwrap(); // ok: test
        let b = SecretKey::from_seed(&seed, 2048, false, |_| true).unwrap(); // ok: test
        assert_eq!(a.public_key(), b.public_key());
        assert_eq!(a.to_pkcs8_der(), b.to_pkcs8_der());
        let c = SecretKey::from_seed(&[43u8; 32], 2048, false, |_| true).unwrap(); // ok: test
        assert_ne!(a.public_key(), c.public_key());
        let mut seen = Vec::new();
        let third = SecretKey::from_seed(&seed, 2048, false, |pk| {
            seen.push(pk.clone());
            seen.len() == 3
        })
        .unwrap(); // ok: test
        assert_eq!(seen.len(), 3);
        assert_eq!(&seen[0], a.public_key());
        assert_eq!(&seen[2], third.public_key());
        assert_ne!(seen[0], seen[1]);
        // Known answers, computed apart from this crate (Python: `hmac`, `hashlib` and sympy's
        // `nextprime` on the module's description): the SHA-256 of each candidate's modulus,
        // pairs (1, 0), (2, 0), (2, 1). The derivation is fixed: these never change.
        let digest = |pk: &PublicKey| {
            use sha2::Digest;
            let d = Sha256::digest(pk.modulus());
            d.iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        assert_eq!(
            digest(&seen[0]),
            "c1b69ded8db813d6d203ae95cfe1ee13a091d04882d159fca4b38dbba1400874"
        );
        assert_eq!(
            digest(&seen[1]),
            "a3935ba37a2159faa41a3002bee13ef752a856f5defebb8c96e89ef5015f0697"
        );
        assert_eq!(
            digest(&seen[2]),
            "0f10fb8d11d801fb86f7ae96e69eadb6a3c57c0b67660169befdc2503de96efd"
        );
        assert_eq!(seen[0].exponent(), [0x01, 0x00, 0x01]);
        assert_eq!(third.public_key().modulus_bits(), 2048);
        let msg = [9u8; 256];
        let sig = third.blind_sign(&msg).unwrap(); // ok: test
        assert_eq!(sig.as_bytes().len(), 256);
        assert_eq!(
            SecretKey::from_seed(&[1u8; 31], 2048, false, |_| true).err(),
            Some(Error::InvalidKey)
        );
        // Every pair of the MAX_SEED_PRIMES primes is offered once, then the refusal.
        let mut offered = 0u32;
        assert_eq!(
            SecretKey::from_seed(&seed, 2048, false, |_| {
                offered += 1;
                false
            })
            .err(),
            Some(Error::InvalidKey)
        );
        assert_eq!(offered, MAX_SEED_PRIMES * (MAX_SEED_PRIMES - 1) / 2);
    }

    /// Sizes out of range or not a multiple of 16 are refused, as is a seed under 32 bytes; a
    /// seed over 32 bytes is taken.
    #[test]
    fn from_seed_refuses_bad_sizes() {
        let seed = [3u8; 32];
        for bits in [0u32, 1024, 2032, 2040, 2047, 2050, 2056, 4104, 4112, 8192] {
            assert_eq!(
                SecretKey::from_seed(&seed, bits, false, |_| true).err(),
                Some(Error::InvalidKey),
                "{bits}"
            );
        }
        assert_eq!(
            SecretKey::from_seed(&[3u8; 31], 2048, false, |_| true).err(),
            Some(Error::InvalidKey)
        );
        let long = SecretKey::from_seed(&[3u8; 64], 2048, false, |_| true).unwrap(); // ok: test
        assert_eq!(long.public_key().modulus_bits(), 2048);
    }

    /// `candidate` refuses a pair of equal primes and a product of another size, and takes two
    /// distinct primes of the size (the control).
    #[test]
    fn candidate_refuses_equal_primes_and_other_sizes() {
        let prk = extract(&[11u8; 32]).unwrap(); // ok: test
        let p = derive_prime(&prk, 2048, false, 0).unwrap().unwrap(); // ok: test
        let q = derive_prime(&prk, 2048, false, 1).unwrap().unwrap(); // ok: test
        let (public, d) = candidate(&p, &q, 2048).unwrap().unwrap(); // ok: test
        assert_eq!(public.modulus_bits(), 2048);
        assert!(SecretKey::build(public, p.clone(), q.clone(), d).is_ok());
        assert!(candidate(&p, &p, 2048).unwrap().is_none()); // ok: test
        assert!(candidate(&p, &q, 2046).unwrap().is_none()); // ok: test
        assert!(candidate(&p, &q, 2064).unwrap().is_none()); // ok: test
    }

    /// Safe primes: the partially blind RSA draft's key (both safe) is taken; a key of one of
    /// its primes and one of RFC 9578's test key (not safe) is not.
    #[test]
    fn safe_primes_are_both_primes_safe() {
        let json: serde_json::Value = serde_json::from_str(include_str!(
            "../../test-vectors/blind-rsa/pbrsa-draft-irtf-cfrg-partially-blind-rsa-02.json"
        ))
        .unwrap(); // ok: test
        let hex = |k: &str| hex::decode(json[0][k].as_str().unwrap()).unwrap(); // ok: test
        let both = SecretKey::from_components(&hex("p"), &hex("q"), &hex("d"), &hex("e")).unwrap(); // ok: test
        assert!(both.has_safe_primes());
        // q' is RFC 9578's q; d = 65537^-1 mod (p - 1)(q' - 1), computed apart (Python's
        // pow(e, -1, phi)).
        let rfc9578 = crate::blind_rsa::test_key().unwrap(); // ok: test
        let plain_q = rfc9578.primes().1.to_be(128).unwrap(); // ok: test
        let d = hex::decode(concat!(
            "a75b15237c45514971f7913128a202edc8370acc61c3b417fb454f1943b768247a4715e1512dfe7f",
            "449cb7461519ea337a715d62bbf840df14d4d9220e36ecb78a4a09bfde767cf06bedc4e35ad45129",
            "820ff91d85ab2342fb37bbfce21af22cbd95a387496997ac8d3dcc74892ba53c5f7285fa0c4e97e5",
            "688a0e5a1a1f9bf1eb834887f78febe7afc9a0f0f09a7fd725a678d70398171a705f02662617f422",
            "c39d956d0230488beb12a2d1a44bc790428640b8dfd5eda0f96a009d4f099e1b836bbb96c5cd8c6a",
            "944079c026d242ac068d12ca16386285c43591ca72ba86cc5258e16663300ceb96a4e139f83d5018",
            "27e40d362cbdc32dcab596ef060884d1"
        ))
        .unwrap(); // ok: test
        let one = SecretKey::from_components(&hex("p"), &plain_q, &d, &[1, 0, 1]).unwrap(); // ok: test
        assert!(!one.has_safe_primes());
        let other = SecretKey::from_components(&plain_q, &hex("p"), &d, &[1, 0, 1]).unwrap(); // ok: test
        assert!(!other.has_safe_primes());
    }
}
