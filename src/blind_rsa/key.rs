//! RSA keys: the public key `(n, e)`, the private key with its CRT values, the private
//! operation (CRT, constant time, checked against the public one before it answers), key
//! generation and the partially blind key derivation (draft-irtf-cfrg-partially-blind-rsa-02
//! §4.6, §4.7).

use hmac::{Hmac, KeyInit, Mac};
use rand_core::CryptoRng;
use sha2::Sha384;
use zeroize::{Zeroize, ZeroizeOnDrop};

use zeroize::Zeroizing;

use super::der::{self, PrivateParts, SpkiAlgorithm};
use super::num::{Int, Modulus};
use crate::{Error, Result};

/// The smallest modulus accepted, in bits.
pub const MIN_MODULUS_BITS: u32 = 2048;
/// The largest modulus accepted, in bits.
pub const MAX_MODULUS_BITS: u32 = 4096;

/// An RSA public key `(n, e)` for blind signatures: a modulus of 2048 to 4096 bits and an odd
/// exponent `3 <= e < n` (65537 for generated keys; the partially blind derived keys have
/// exponents of about half the modulus's size).
#[derive(Clone)]
pub struct PublicKey {
    pub(super) n: Modulus,
    pub(super) e: Int,
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PublicKey")
            .field("bits", &self.n.bits())
            .field("e_bits", &self.e.bits_vartime())
            .finish()
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        bool::from(self.n.value().ct_eq(other.n.value()) & self.e.ct_eq(&other.e))
    }
}

impl Eq for PublicKey {}

impl PublicKey {
    /// The key from its modulus and exponent, big-endian (leading zeros allowed). Refused with
    /// `InvalidKey`: a modulus outside 2048-4096 bits or even, an exponent even, below 3 or not
    /// below the modulus.
    pub fn from_components(n: &[u8], e: &[u8]) -> Result<Self> {
        let n = Int::from_be(n);
        let bits = n.bits_vartime();
        if !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&bits) || !bool::from(n.is_odd()) {
            return Err(Error::InvalidKey);
        }
        let modulus = Modulus::new_public(&n).ok_or(Error::InvalidKey)?;
        let e = Int::from_be(e);
        let e_bits = e.bits_vartime();
        if !bool::from(e.is_odd()) || e_bits < 2 || e_bits > bits {
            return Err(Error::InvalidKey);
        }
        // `e < n`: `e` reduces to itself.
        if !bool::from(modulus.reduce(&e).ct_eq(&e)) {
            return Err(Error::InvalidKey);
        }
        Ok(Self { n: modulus, e })
    }

    /// The modulus, big-endian, `modulus_len()` bytes.
    pub fn modulus(&self) -> Vec<u8> {
        self.n.encode(self.n.value())
    }

    /// The exponent, big-endian, without leading zeros.
    pub fn exponent(&self) -> Vec<u8> {
        let len = (self.e.bits_vartime() as usize).div_ceil(8);
        self.e.to_be(len).unwrap_or_default()
    }

    /// The modulus's length in bytes (RFC 9474 `modulus_len`): every blinded message, blind
    /// signature and signature has this length.
    pub fn modulus_len(&self) -> usize {
        self.n.len()
    }

    /// The modulus's length in bits.
    pub fn modulus_bits(&self) -> u32 {
        self.n.bits()
    }

    /// RSAVP1: `s^e mod n` for `s` below `n` (public exponent, constant time in `s`).
    pub(super) fn rsavp1(&self, s: &Int) -> Int {
        self.n.pow_public_exp(s, &self.e)
    }

    /// `DerivePublicKey(pk, info)` (draft-irtf-cfrg-partially-blind-rsa-02 §4.6): the key
    /// `(n, e')` with `e'` from HKDF-SHA-384 over `info`. `InvalidKey` unless the modulus's
    /// byte length is a power of two (2048 or 4096 bits).
    pub fn derive(&self, info: &[u8]) -> Result<PublicKey> {
        let e = derive_exponent(&self.n, info)?;
        Ok(PublicKey {
            n: self.n.clone(),
            e,
        })
    }
}

impl PublicKey {
    /// The SubjectPublicKeyInfo DER of RFC 9578 §6.5: id-RSASSA-PSS with SHA-384, MGF1-SHA-384
    /// and a 48-byte salt (the `token-key` of an issuer directory; its SHA-256 is the
    /// `token_key_id`). 342 bytes for RSA-2048 with `e = 65537`.
    pub fn to_spki(&self) -> Vec<u8> {
        der::spki(&self.modulus(), &self.exponent(), SpkiAlgorithm::PssSha384)
    }

    /// The key from a SubjectPublicKeyInfo DER: id-RSASSA-PSS with exactly RFC 9578's
    /// parameters, or rsaEncryption. Strict DER (`InvalidKey` for anything else, trailing bytes
    /// included), then [`PublicKey::from_components`].
    pub fn from_spki(der: &[u8]) -> Result<Self> {
        let (n, e, _) = der::parse_spki(der)?;
        Self::from_components(&n, &e)
    }

    /// The PKCS#1 `RSAPublicKey` DER.
    pub fn to_pkcs1_der(&self) -> Vec<u8> {
        der::rsa_public_key(&self.modulus(), &self.exponent())
    }

    /// The key from a PKCS#1 `RSAPublicKey` DER (strict).
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self> {
        let (n, e) = der::parse_rsa_public_key(der)?;
        Self::from_components(&n, &e)
    }
}

/// `e'` of `DerivePublicKey`: HKDF-SHA-384 with `IKM = "key" || info || 0x00`, `salt =
/// I2OSP(n, modulus_len)`, `info = "PBRSA"`, `L = modulus_len / 2 + 16`; the first
/// `modulus_len / 2` bytes with the top two bits cleared and the low bit set.
fn derive_exponent(n: &Modulus, info: &[u8]) -> Result<Int> {
    let len = n.len();
    if !len.is_power_of_two() {
        return Err(Error::InvalidKey);
    }
    let salt = n.encode(n.value());
    let lambda = len / 2;
    let mut okm = vec![0u8; lambda + 16];
    hkdf_sha384(
        &salt,
        &[b"key".as_slice(), info, &[0u8]],
        b"PBRSA",
        &mut okm,
    )?;
    okm[0] &= 0x3f;
    okm[lambda - 1] |= 0x01;
    Ok(Int::from_be(&okm[..lambda]))
}

/// HKDF-SHA-384 (RFC 5869): extract with `salt` over the concatenated `ikm` parts, expand with
/// `info` into `out` (at most 255 blocks).
fn hkdf_sha384(salt: &[u8], ikm: &[&[u8]], info: &[u8], out: &mut [u8]) -> Result<()> {
    let mut extract =
        <Hmac<Sha384> as KeyInit>::new_from_slice(salt).map_err(|_| Error::InvalidKey)?;
    for part in ikm {
        extract.update(part);
    }
    let prk = extract.finalize().into_bytes();
    let mut t: Vec<u8> = Vec::new();
    for (i, chunk) in out.chunks_mut(48).enumerate() {
        let counter = u8::try_from(i + 1).map_err(|_| Error::InvalidKey)?;
        let mut mac =
            <Hmac<Sha384> as KeyInit>::new_from_slice(&prk).map_err(|_| Error::InvalidKey)?;
        mac.update(&t);
        mac.update(info);
        mac.update(&[counter]);
        t = mac.finalize().into_bytes().to_vec();
        chunk.copy_from_slice(&t[..chunk.len()]);
    }
    Ok(())
}

/// An RSA private key with its CRT values. Zeroized on drop; `Debug` shows the public part
/// only.
#[derive(Clone)]
pub struct SecretKey {
    pub(super) public: PublicKey,
    p: Modulus,
    q: Modulus,
    /// The private exponent, `d mod (p - 1)`, `d mod (q - 1)`, `q^-1 mod p`.
    d: Int,
    dp: Int,
    dq: Int,
    qinv: Int,
    /// `(p - 1)(q - 1)`, for the partially blind derivation.
    phi: Int,
}

impl Zeroize for SecretKey {
    fn zeroize(&mut self) {
        self.d.zeroize();
        self.dp.zeroize();
        self.dq.zeroize();
        self.qinv.zeroize();
        self.phi.zeroize();
    }
}

impl Drop for SecretKey {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for SecretKey {}

impl core::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SecretKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl SecretKey {
    /// The key from its primes and exponents, big-endian: the modulus is `p q`, `d` the private
    /// exponent for `e`. Refused with `InvalidKey` when the public part is refused
    /// ([`PublicKey::from_components`]), a prime is even or too short, `p == q`, or a test
    /// signature does not verify (`d` is not `e`'s inverse).
    pub fn from_components(p: &[u8], q: &[u8], d: &[u8], e: &[u8]) -> Result<Self> {
        let (p, q) = (Int::from_be(p), Int::from_be(q));
        let n = p.mul(&q);
        let bits = n.bits_vartime();
        let public =
            PublicKey::from_components(&n.to_be(bits.div_ceil(8) as usize).unwrap_or_default(), e)?;
        let d = Int::from_be(d);
        Self::build(public, p, q, d)
    }

    pub(super) fn build(public: PublicKey, p: Int, q: Int, d: Int) -> Result<Self> {
        let half = public.n.bits() / 2;
        if p.bits_vartime() + 8 < half || q.bits_vartime() + 8 < half || bool::from(p.ct_eq(&q)) {
            return Err(Error::InvalidKey);
        }
        let (pm, qm) = (
            Modulus::new_secret(&p).ok_or(Error::InvalidKey)?,
            Modulus::new_secret(&q).ok_or(Error::InvalidKey)?,
        );
        let (p1, q1) = (p.minus_one(), q.minus_one());
        let dp = d.rem(&p1).ok_or(Error::InvalidKey)?;
        let dq = d.rem(&q1).ok_or(Error::InvalidKey)?;
        let qinv = q.invert_mod(&p).ok_or(Error::InvalidKey)?;
        let phi = p1.mul(&q1);
        let key = Self {
            public,
            p: pm,
            q: qm,
            d,
            dp,
            dq,
            qinv,
            phi,
        };
        // A test signature: the key is consistent or refused.
        let x = Int::from_be(&[0x5a; 32]);
        key.rsasp1(&x).map_err(|_| Error::InvalidKey)?;
        Ok(key)
    }

    /// A fresh key of `bits` bits (2048 to 4096, even) with `e = 65537`: two primes of
    /// `bits / 2` bits whose product has exactly `bits` bits. With `safe_primes`, `p = 2 p' + 1`
    /// and `q = 2 q' + 1` with `p'`, `q'` prime, as partially blind RSA requires (much slower).
    pub fn generate<R: CryptoRng + ?Sized>(
        rng: &mut R,
        bits: u32,
        safe_primes: bool,
    ) -> Result<Self> {
        if !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&bits) || !bits.is_multiple_of(2) {
            return Err(Error::InvalidKey);
        }
        let e = Int::from_be(&[0x01, 0x00, 0x01]);
        loop {
            let p = super::num::random_prime(rng, bits / 2, safe_primes);
            let q = super::num::random_prime(rng, bits / 2, safe_primes);
            let n = p.mul(&q);
            if n.bits_vartime() != bits || bool::from(p.ct_eq(&q)) {
                continue;
            }
            let phi = p.minus_one().mul(&q.minus_one());
            let Some(d) = e.invert_mod(&phi) else {
                continue;
            };
            let n_bytes = n.to_be(bits.div_ceil(8) as usize).unwrap_or_default();
            let public = PublicKey::from_components(&n_bytes, &[0x01, 0x00, 0x01])?;
            return Self::build(public, p, q, d);
        }
    }

    /// The key from a PKCS#8 `PrivateKeyInfo` DER (rsaEncryption or RFC 9578's
    /// id-RSASSA-PSS), strict, every part checked against the others (`InvalidKey`).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self> {
        Self::from_parts(&der::parse_pkcs8(der)?)
    }

    /// The key from PEM text (`-----BEGIN PRIVATE KEY-----`, PKCS#8, or `-----BEGIN RSA
    /// PRIVATE KEY-----`, PKCS#1).
    pub fn from_pem(text: &str) -> Result<Self> {
        if let Ok(der) = der::pem_decode(text, "PRIVATE KEY") {
            return Self::from_pkcs8_der(&der);
        }
        let der = der::pem_decode(text, "RSA PRIVATE KEY")?;
        Self::from_parts(&der::parse_rsa_private_key(&der)?)
    }

    /// The PKCS#8 `PrivateKeyInfo` DER (rsaEncryption), wiped on drop.
    pub fn to_pkcs8_der(&self) -> Zeroizing<Vec<u8>> {
        der::pkcs8(&self.parts())
    }

    /// The PKCS#8 PEM text (`-----BEGIN PRIVATE KEY-----`), wiped on drop.
    pub fn to_pem(&self) -> Zeroizing<String> {
        der::pem_encode(&self.to_pkcs8_der(), "PRIVATE KEY")
    }

    fn parts(&self) -> PrivateParts {
        let be = |x: &Int, len: usize| Zeroizing::new(x.to_be(len).unwrap_or_default());
        let k = self.public.modulus_len();
        let h = (self.p.bits().max(self.q.bits()) as usize).div_ceil(8);
        PrivateParts {
            n: self.public.modulus(),
            e: self.public.exponent(),
            d: be(&self.d, k),
            p: be(self.p.value(), h),
            q: be(self.q.value(), h),
            dp: be(&self.dp, h),
            dq: be(&self.dq, h),
            qinv: be(&self.qinv, h),
        }
    }

    /// The key from its parts, each checked: `n = p q`, and `dp`, `dq`, `qinv` as computed
    /// from `p`, `q`, `d`.
    fn from_parts(k: &PrivateParts) -> Result<Self> {
        let key = Self::from_components(&k.p, &k.q, &k.d, &k.e)?;
        let ours = key.parts();
        let same = |a: &[u8], b: &[u8]| {
            let (a, b) = (Int::from_be(a), Int::from_be(b));
            bool::from(a.ct_eq(&b))
        };
        let ok = same(&ours.n, &k.n)
            & same(&ours.dp, &k.dp)
            & same(&ours.dq, &k.dq)
            & same(&ours.qinv, &k.qinv);
        if !ok {
            return Err(Error::InvalidKey);
        }
        Ok(key)
    }

    /// Marks the private values (`p`, `q`, `d`, `dp`, `dq`, `qinv`, `phi`) undefined for
    /// memcheck: the test hook of `tests/ct_valgrind.rs` (feature `ct-validation`).
    #[cfg(feature = "ct-validation")]
    #[doc(hidden)]
    pub fn mark_secret_for_validation(&self) {
        self.p.mark_secret();
        self.q.mark_secret();
        for x in [&self.d, &self.dp, &self.dq, &self.qinv, &self.phi] {
            x.mark_secret();
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The CRT private operation without the check (the check's test control).
    #[cfg(test)]
    fn crt_unchecked(&self, m: &Int) -> Int {
        let (p, q, n) = (&self.p, &self.q, &self.public.n);
        let sp = p.pow(&p.reduce(m), &self.dp);
        let sq = q.pow(&q.reduce(m), &self.dq);
        let h = p.mul(&self.qinv, &p.sub(&sp, &p.reduce(&sq)));
        n.add_small(&q.value().mul(&h), &sq)
    }

    /// `blind_sign` for the fault test.
    #[cfg(test)]
    fn blind_sign_checked_for_test(&self, blinded: &[u8]) -> Result<Vec<u8>> {
        self.blind_sign(blinded).map(|s| s.into_bytes())
    }

    /// RSASP1 by CRT, then RSAVP1 of the result compared with `m` before anything is returned
    /// (RFC 9474 §4.3 "signing failure", the fault-attack check). `m` below `n` (the caller
    /// decoded it). Constant time in `m` and the key; the comparison's outcome is public.
    pub(super) fn rsasp1(&self, m: &Int) -> Result<Int> {
        let (p, q, n) = (&self.p, &self.q, &self.public.n);
        let mut mp = p.reduce(m);
        let mut mq = q.reduce(m);
        let (mut sp, mut sq) = Modulus::pow_pair(p, &mp, &self.dp, q, &mq, &self.dq);
        // h = qinv (sp - sq) mod p; s = sq + q h < p q.
        let mut sq_p = p.reduce(&sq);
        let mut diff = p.sub(&sp, &sq_p);
        let mut h = p.mul(&self.qinv, &diff);
        let mut qh = q.value().mul(&h);
        let s = n.add_small(&qh, &sq);
        for v in [
            &mut mp, &mut mq, &mut sp, &mut sq, &mut sq_p, &mut diff, &mut h, &mut qh,
        ] {
            v.zeroize();
        }
        // The check's outcome is public (an error or a signature).
        if !crate::group::declassify(self.public.rsavp1(&s).ct_eq(m)) {
            return Err(Error::SigningFailure);
        }
        Ok(s)
    }

    /// `DeriveKeyPair(sk, info)` (draft-irtf-cfrg-partially-blind-rsa-02 §4.7): the key with
    /// exponent `e'` of [`PublicKey::derive`] and `d' = e'^-1 mod (p - 1)(q - 1)`.
    /// `DeriveKeyPair` when `e'` has no inverse (never for safe primes), `InvalidKey` for a
    /// modulus whose byte length is not a power of two.
    pub fn derive(&self, info: &[u8]) -> Result<SecretKey> {
        let public = self.public.derive(info)?;
        // Inverses of the public odd e' modulo the secret phi, p - 1, q - 1 (constant time in
        // them; `d' mod (p - 1)` is e'^-1 mod (p - 1)).
        let d = Int::invert_public_odd(&public.e, &self.phi).ok_or(Error::DeriveKeyPair)?;
        let (p1, q1) = (self.p.value().minus_one(), self.q.value().minus_one());
        let dp = Int::invert_public_odd(&public.e, &p1).ok_or(Error::DeriveKeyPair)?;
        let dq = Int::invert_public_odd(&public.e, &q1).ok_or(Error::DeriveKeyPair)?;
        Ok(Self {
            public,
            p: self.p.clone(),
            q: self.q.clone(),
            d,
            dp,
            dq,
            qinv: self.qinv.clone(),
            phi: self.phi.clone(),
        })
    }
}

impl SecretKey {
    /// The primes `p`, `q` (for the checks of `seeded.rs`).
    pub(super) fn primes(&self) -> (&Int, &Int) {
        (self.p.value(), self.q.value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SecretKey {
        crate::blind_rsa::test_key().unwrap_or_else(|e| panic!("test key: {e}"))
    }

    /// A fault in one CRT half (a wrong `dp`) is caught by the check: `SigningFailure`, no
    /// signature. The control: the same faulty half without the check gives a value that is
    /// not the signature, and the `gcd` of its difference with the right one and `n` is a factor
    /// (the attack the check prevents).
    #[test]
    fn a_faulty_half_is_caught_by_the_check() {
        let good = key();
        let m = Int::from_be(&[0x42; 200]);
        let right = good.rsasp1(&m).unwrap_or_else(|e| panic!("{e}"));
        let mut bad = good.clone();
        bad.dp = Int::from_be(&[0x03]);
        assert_eq!(bad.rsasp1(&m).err(), Some(Error::SigningFailure));
        let blinded = good.public.n.encode(&m);
        assert_eq!(
            bad.blind_sign_checked_for_test(&blinded),
            Err(Error::SigningFailure)
        );
        // Control: the unchecked CRT result is wrong, and reveals q.
        let wrong = bad.crt_unchecked(&m);
        assert!(!bool::from(wrong.ct_eq(&right)));
        let diff = good.public.n.sub(&right, &wrong);
        assert!(!bool::from(diff.coprime_to_odd(good.public.n.value())));
    }

    #[test]
    fn generated_keys_sign_and_encode() {
        let mut rng = rand::rng();
        let sk = SecretKey::generate(&mut rng, 2048, false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sk.public_key().modulus_bits(), 2048);
        assert_eq!(sk.public_key().exponent(), [1, 0, 1]);
        let der = sk.to_pkcs8_der();
        let back = SecretKey::from_pkcs8_der(&der).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.public_key(), sk.public_key());
        let pem = sk.to_pem();
        let back = SecretKey::from_pem(&pem).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.public_key(), sk.public_key());
        let spki = sk.public_key().to_spki();
        assert_eq!(spki.len(), 342);
        assert_eq!(
            PublicKey::from_spki(&spki).as_ref().ok(),
            Some(sk.public_key())
        );
        let pkcs1 = sk.public_key().to_pkcs1_der();
        assert_eq!(
            PublicKey::from_pkcs1_der(&pkcs1).as_ref().ok(),
            Some(sk.public_key())
        );
        assert_eq!(
            SecretKey::generate(&mut rng, 1024, false).err(),
            Some(Error::InvalidKey)
        );
        assert_eq!(
            SecretKey::generate(&mut rng, 2047, false).err(),
            Some(Error::InvalidKey)
        );
    }

    #[test]
    fn key_decoders_refuse() {
        let sk = key();
        let spki = sk.public_key().to_spki();
        let mut trailing = spki.clone();
        trailing.push(0);
        assert_eq!(
            PublicKey::from_spki(&trailing).err(),
            Some(Error::InvalidKey)
        );
        // Salt length 32 instead of 48 in the PSS parameters.
        let mut salt32 = spki.clone();
        let at = spki
            .windows(5)
            .position(|w| w == [0xa2, 0x03, 0x02, 0x01, 0x30]);
        let at = at.unwrap_or_else(|| panic!("no saltLength"));
        salt32[at + 4] = 0x20;
        assert_eq!(PublicKey::from_spki(&salt32).err(), Some(Error::InvalidKey));
        // A modulus shorter than 2048 bits, an even one, an even exponent, e >= n.
        let n = sk.public_key().modulus();
        assert_eq!(
            PublicKey::from_components(&n[1..], &[1, 0, 1]).err(),
            Some(Error::InvalidKey)
        );
        let mut even = n.clone();
        let last = even.len() - 1;
        even[last] &= 0xfe;
        assert_eq!(
            PublicKey::from_components(&even, &[1, 0, 1]).err(),
            Some(Error::InvalidKey)
        );
        assert_eq!(
            PublicKey::from_components(&n, &[1, 0, 0]).err(),
            Some(Error::InvalidKey)
        );
        assert_eq!(
            PublicKey::from_components(&n, &n).err(),
            Some(Error::InvalidKey)
        );
        assert_eq!(
            PublicKey::from_components(&n, &[1]).err(),
            Some(Error::InvalidKey)
        );
        // A PKCS#8 key whose qinv is wrong.
        let mut der = sk.to_pkcs8_der().to_vec();
        let len = der.len();
        der[len - 1] ^= 1;
        assert_eq!(
            SecretKey::from_pkcs8_der(&der).err(),
            Some(Error::InvalidKey)
        );
        assert_eq!(
            SecretKey::from_pem("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----").err(),
            Some(Error::InvalidKey)
        );
    }

    #[test]
    fn debug_shows_no_secret() {
        let text = format!("{:?}", key());
        assert!(
            text.starts_with("SecretKey { public: PublicKey { bits: 2048"),
            "{text}"
        );
        assert!(!text.contains("dp"));
    }
}
