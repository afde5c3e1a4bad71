//! The integers of RSA: the only file naming the big-integer crate (`crypto-bigint`'s heap
//! integers and Montgomery forms, constant time unless a function's name says `vartime`).
//!
//! Every integer here has the precision of the modulus it belongs to (a multiple of 64 bits);
//! byte strings are big-endian and fixed-length (I2OSP / OS2IP, RFC 8017 §4).

use crypto_bigint::modular::{BoxedMontyForm, BoxedMontyParams};
use crypto_bigint::{BoxedUint, ConcatenatingMul, CtLt, CtOption, Integer, NonZero, Odd};
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroize;

use crate::{Error, Result};

/// `x` at the precision `bits` (a multiple of 64): its low limbs, the others zero. Callers
/// pass values that fit; no panic either way.
fn fit(x: &BoxedUint, bits: u32) -> BoxedUint {
    let mut out = BoxedUint::zero_with_precision(bits);
    for (o, w) in out.as_mut_words().iter_mut().zip(x.as_words()) {
        *o = *w;
    }
    out
}

/// The `Option` of a `CtOption` whose presence is public (a zero or non-invertible value is
/// refused with an error). For memcheck (feature `ct-validation`) only the struct's own bytes
/// are declassified: the presence flag and the heap pointer, never the limbs it points to.
fn public_presence<T>(mut x: CtOption<T>) -> Option<T> {
    crate::group::validation::publish(&mut x);
    x.into_option()
}

/// A non-negative integer (a thin wrapper, so that no other file names the big-integer crate).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Int(pub(super) BoxedUint);

impl Zeroize for Int {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl core::fmt::Debug for Int {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Int(..)")
    }
}

impl Int {
    /// OS2IP of a big-endian string of any length, at the smallest precision that holds it
    /// (at least 64 bits). Variable time in the length only.
    pub(crate) fn from_be(bytes: &[u8]) -> Self {
        let bits = (bytes.len() * 8).max(64).next_multiple_of(64);
        let bits = u32::try_from(bits).unwrap_or(u32::MAX);
        Self(BoxedUint::from_be_slice_truncated(bytes, bits))
    }

    /// The value as a big-endian string of exactly `len` bytes (I2OSP), or `None` when it does
    /// not fit. Variable time in `len` only.
    pub(crate) fn to_be(&self, len: usize) -> Option<Vec<u8>> {
        let full = self.0.to_be_bytes();
        let (high, low) = full.split_at(full.len().saturating_sub(len));
        if !bool::from(high.iter().fold(0u8, |a, &b| a | b).ct_eq(&0)) {
            return None;
        }
        let mut out = vec![0u8; len - low.len()];
        out.extend_from_slice(low);
        let mut full = full;
        full.zeroize();
        Some(out)
    }

    /// The number of significant bits (variable time: for public values).
    pub(crate) fn bits_vartime(&self) -> u32 {
        self.0.bit_width_vartime()
    }

    /// Marks the limbs undefined for memcheck (the test hook of `tests/ct_valgrind.rs`).
    #[cfg(feature = "ct-validation")]
    pub(crate) fn mark_secret(&self) {
        crate::group::validation::mark_secret(self.0.as_words());
    }

    /// Whether the value is odd.
    pub(crate) fn is_odd(&self) -> Choice {
        self.0.is_odd().into()
    }

    /// Whether the value is zero.
    pub(crate) fn is_zero(&self) -> Choice {
        self.0.is_zero().into()
    }

    /// The value at the precision `bits` (a multiple of 64), or `None` if it does not fit.
    fn at_precision(&self, bits: u32) -> Option<BoxedUint> {
        if self.0.bit_width_vartime() > bits {
            return None;
        }
        Some(fit(&self.0, bits))
    }

    /// `self * other` (exact product).
    pub(crate) fn mul(&self, other: &Int) -> Int {
        Int(self.0.concatenating_mul(&other.0))
    }

    /// `self - 1` (wrapping at zero; callers pass values above zero).
    pub(crate) fn minus_one(&self) -> Int {
        Int(self
            .0
            .wrapping_sub(BoxedUint::one_with_precision(self.0.bits_precision())))
    }

    /// Constant-time equality at the larger of the two precisions.
    pub(crate) fn ct_eq(&self, other: &Int) -> Choice {
        let bits = self.0.bits_precision().max(other.0.bits_precision());
        let (a, b) = (fit(&self.0, bits), fit(&other.0, bits));
        let eq: bool = a.limbs_eq(&b);
        Choice::from(u8::from(eq))
    }

    /// `self^-1 mod m` for a modulus of any parity (`None` when not invertible). Variable time
    /// in `m` (`crypto-bigint`'s division and even-modulus inversion branch on it; valgrind
    /// reports them): for key loading and generation only, never on a loaded key's secrets.
    pub(crate) fn invert_mod(&self, m: &Int) -> Option<Int> {
        let bits = m.0.bits_precision().max(self.0.bits_precision());
        let m = public_presence(NonZero::new(fit(&m.0, bits)))?;
        let x = fit(&self.0, bits).rem(&m);
        public_presence(x.invert_mod(&m)).map(Int)
    }

    /// `self mod m`: constant time in `self`, variable time in `m`'s bit length (`crypto-bigint`'s
    /// division): for key loading only, or a public `m`.
    pub(crate) fn rem(&self, m: &Int) -> Option<Int> {
        let m = public_presence(NonZero::new(m.0.clone()))?;
        let bits = self.0.bits_precision().max(m.bits_precision());
        Some(Int(fit(&fit(&self.0, bits).rem(&m), m.bits_precision())))
    }

    /// `gcd(self, m) == 1` for an odd `m` above 1, constant time: whether `self` is invertible
    /// modulo `m` (safegcd inversion; `crypto-bigint`'s `gcd` shifts by secret amounts).
    pub(crate) fn coprime_to_odd(&self, m: &Int) -> Choice {
        let bits = m.0.bits_precision().max(self.0.bits_precision());
        let Some(odd) = Odd::new(fit(&m.0, bits)).into_option() else {
            return Choice::from(0);
        };
        let x = match NonZero::new(odd.as_ref().clone()).into_option() {
            Some(nz) => fit(&self.0, bits).rem(&nz),
            None => return Choice::from(0),
        };
        Choice::from(x.invert_odd_mod(&odd).is_some().to_u8())
    }

    /// `a^-1 mod m` for a public odd `a > 1` and a secret `m > 1` of any parity, constant time
    /// in `m` (`crypto-bigint`'s `invert_mod` for an even modulus branches on it): with
    /// `k = m^-1 mod a` (safegcd modulo the public `a`), `(1 + m (a - k)) / a`, an exact
    /// division by the public `a` whose result is below `m`. `None` when `gcd(a, m) != 1` (a
    /// public outcome).
    pub(crate) fn invert_public_odd(a: &Int, m: &Int) -> Option<Int> {
        let a_prec = a.0.bits_precision();
        let a_odd = Odd::new(a.0.clone()).into_option()?;
        let a_nz = NonZero::new(a.0.clone()).into_option()?;
        let bits = a_prec.max(m.0.bits_precision());
        let m_mod_a = fit(&fit(&m.0, bits).rem(&a_nz), a_prec);
        let k = public_presence(m_mod_a.invert_odd_mod(&a_odd))?;
        let t = a.0.wrapping_sub(&k);
        let prod = m.0.concatenating_mul(&t);
        let prod = prod.wrapping_add(BoxedUint::one_with_precision(prod.bits_precision()));
        let (q, _) = prod.div_rem(&a_nz);
        Some(Int(fit(&q, m.0.bits_precision())))
    }
}

/// Helpers on `BoxedUint` the crate lacks under these names.
trait LimbsEq {
    fn limbs_eq(&self, other: &Self) -> bool;
}

impl LimbsEq for BoxedUint {
    /// Constant-time comparison of two integers of the same precision; the result is public.
    fn limbs_eq(&self, other: &Self) -> bool {
        let a = self.as_words();
        let b = other.as_words();
        a.len() == b.len() && bool::from(a.ct_eq(b))
    }
}

/// An odd modulus above 1 with its Montgomery parameters, and its byte length.
#[derive(Clone)]
pub(crate) struct Modulus {
    n: Int,
    params: BoxedMontyParams,
    len: usize,
    bits: u32,
}

impl core::fmt::Debug for Modulus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Modulus").field("bits", &self.bits).finish()
    }
}

impl Modulus {
    /// The modulus `n` (odd, above 1, public: its parameters are computed in variable time),
    /// or `None`.
    pub(crate) fn new_public(n: &Int) -> Option<Self> {
        Self::build(n, false)
    }

    /// The modulus `p` (odd, above 1, secret: a prime factor), or `None`.
    pub(crate) fn new_secret(p: &Int) -> Option<Self> {
        Self::build(p, true)
    }

    fn build(n: &Int, secret: bool) -> Option<Self> {
        let bits = n.bits_vartime();
        if bits < 2 {
            return None;
        }
        let precision = bits.next_multiple_of(64);
        let value = n.at_precision(precision)?;
        let odd = Odd::new(value.clone()).into_option()?;
        let params = if secret {
            BoxedMontyParams::new(odd)
        } else {
            BoxedMontyParams::new_vartime(odd)
        };
        Some(Self {
            n: Int(value),
            params,
            len: (bits as usize).div_ceil(8),
            bits,
        })
    }

    /// Marks a secret modulus (a prime factor) undefined for memcheck: its value and the
    /// modulus of its Montgomery parameters (their `R mod p` and `R^2 mod p` are not reachable
    /// through `crypto-bigint`'s API and stay marked defined).
    #[cfg(feature = "ct-validation")]
    pub(crate) fn mark_secret(&self) {
        self.n.mark_secret();
        crate::group::validation::mark_secret(self.params.modulus().as_ref().as_words());
    }

    /// The modulus.
    pub(crate) fn value(&self) -> &Int {
        &self.n
    }

    /// Its length in bytes, `ceil(bits / 8)` (RFC 8017's `k`).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Its length in bits.
    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    fn precision(&self) -> u32 {
        self.params.bits_precision()
    }

    /// OS2IP of exactly `len()` bytes, refused unless below the modulus: `InvalidLength` for
    /// another length, `OutOfRange` for a value `>= n` (the comparison is constant time; the
    /// answer is public).
    pub(crate) fn decode(&self, bytes: &[u8]) -> Result<Int> {
        if bytes.len() != self.len {
            return Err(Error::InvalidLength);
        }
        let x = BoxedUint::from_be_slice_truncated(bytes, self.precision());
        let below: bool = CtLt::ct_lt(&x, &self.n.0).into();
        if !below {
            return Err(Error::OutOfRange);
        }
        Ok(Int(x))
    }

    /// I2OSP at `len()` bytes of a value below the modulus.
    pub(crate) fn encode(&self, x: &Int) -> Vec<u8> {
        // A reduced value always fits: `len()` bytes hold every value below `n`.
        x.to_be(self.len).unwrap_or_else(|| vec![0u8; self.len])
    }

    /// The value reduced modulo `n`, at the modulus's precision: constant time in `x` and in
    /// `n` (a secret prime factor too). By Montgomery multiplications, Horner's rule on the
    /// value's words in chunks of the modulus's precision `w`, with `2^w mod n` as the radix:
    /// `crypto-bigint`'s division is variable time in the divisor's bit length.
    pub(crate) fn reduce(&self, x: &Int) -> Int {
        let prec = self.precision();
        let words = (prec / 64) as usize;
        // 2^(w-1), then doubled: 2^w mod n.
        let mut half = BoxedUint::zero_with_precision(prec);
        if let Some(top) = half.as_mut_words().last_mut() {
            *top = 1 << 63;
        }
        let half = BoxedMontyForm::new(half, &self.params);
        let radix = half.add(&half);
        let mut acc = BoxedMontyForm::zero(&self.params);
        for chunk in x.0.as_words().chunks(words.max(1)).rev() {
            let mut c = BoxedUint::zero_with_precision(prec);
            for (o, w) in c.as_mut_words().iter_mut().zip(chunk) {
                *o = *w;
            }
            let mut c = BoxedMontyForm::new(c, &self.params);
            acc = acc.mul(&radix).add(&c);
            c.zeroize();
        }
        let out = Int(acc.retrieve());
        acc.zeroize();
        out
    }

    fn monty(&self, x: &Int) -> BoxedMontyForm {
        let x = if x.0.bits_precision() == self.precision() {
            x.0.clone()
        } else {
            self.reduce(x).0
        };
        BoxedMontyForm::new(x, &self.params)
    }

    /// `x^e mod n` for a secret exponent: constant time in `x` and `e` (every bit of the
    /// exponent's precision is processed).
    pub(crate) fn pow(&self, x: &Int, e: &Int) -> Int {
        let mut m = self.monty(x);
        let mut r = m.pow(&e.0);
        let out = Int(r.retrieve());
        m.zeroize();
        r.zeroize();
        out
    }

    /// `x^e mod n` for a public exponent: constant time in `x`, variable time in `e`'s length
    /// only.
    pub(crate) fn pow_public_exp(&self, x: &Int, e: &Int) -> Int {
        let m = self.monty(x);
        Int(m.pow_bounded_exp(&e.0, e.bits_vartime().max(1)).retrieve())
    }

    /// `a * b mod n`, constant time.
    pub(crate) fn mul(&self, a: &Int, b: &Int) -> Int {
        let mut x = self.monty(a);
        let mut y = self.monty(b);
        let mut z = x.mul(&y);
        let out = Int(z.retrieve());
        x.zeroize();
        y.zeroize();
        z.zeroize();
        out
    }

    /// `a - b mod n` for `a`, `b` below `n`, constant time.
    pub(crate) fn sub(&self, a: &Int, b: &Int) -> Int {
        match public_presence(NonZero::new(self.n.0.clone())) {
            Some(nz) => Int(self.reduce(a).0.sub_mod(&self.reduce(b).0, &nz)),
            None => Int(BoxedUint::zero_with_precision(self.precision())),
        }
    }

    /// `a + b` for `a + b < n` (the CRT recombination), at the modulus's precision.
    pub(crate) fn add_small(&self, a: &Int, b: &Int) -> Int {
        let prec = self.precision();
        Int(fit(&a.0, prec).wrapping_add(fit(&b.0, prec)))
    }

    /// `x^-1 mod n`, constant time; `None` when `x` and `n` share a factor.
    pub(crate) fn invert(&self, x: &Int) -> Option<Int> {
        let odd = public_presence(Odd::new(self.n.0.clone()))?;
        public_presence(self.reduce(x).0.invert_odd_mod(&odd)).map(Int)
    }
}

/// A random prime of exactly `bits` bits (a safe prime with `safe`), by `crypto-primes`.
pub(crate) fn random_prime<R: rand_core::CryptoRng + ?Sized>(
    rng: &mut R,
    bits: u32,
    safe: bool,
) -> Int {
    let flavor = if safe {
        crypto_primes::Flavor::Safe
    } else {
        crypto_primes::Flavor::Any
    };
    Int(crypto_primes::random_prime::<BoxedUint, R>(
        rng, flavor, bits,
    ))
}

/// The least prime `p >= start` (a safe prime with `safe`: `(p - 1) / 2` prime too) of at most
/// `bits` bits, or `None` when there is none below `2^bits`. A function of `start` alone (the
/// sieve only skips numbers with a small factor; `crypto-primes`' `is_prime`, Miller-Rabin base
/// 2 and a strong Lucas test, is deterministic), so the same start gives the same prime whatever
/// the sieve's or the crate's version. Variable time (key generation: the search's length
/// depends on the secret start).
pub(crate) fn next_prime_vartime(start: &Int, bits: u32, safe: bool) -> Option<Int> {
    let flavor = if safe {
        crypto_primes::Flavor::Safe
    } else {
        crypto_primes::Flavor::Any
    };
    let precision = bits.next_multiple_of(64);
    let start = start.at_precision(precision)?;
    let bits = core::num::NonZeroU32::new(bits)?;
    let sieve = crypto_primes::hazmat::SmallFactorsSieve::new(start, bits, safe).ok()?;
    sieve
        .into_iter()
        .find(|c| crypto_primes::is_prime(flavor, c))
        .map(Int)
}

/// `is_prime` (a safe prime with `safe`: `(x - 1) / 2` prime too), variable time: for key
/// checks at load and tests.
pub(crate) fn is_prime_vartime(x: &Int, safe: bool) -> bool {
    let flavor = if safe {
        crypto_primes::Flavor::Safe
    } else {
        crypto_primes::Flavor::Any
    };
    crypto_primes::is_prime(flavor, &x.0)
}

/// `a < b` at the larger precision.
#[cfg(test)]
pub(crate) fn lt(a: &Int, b: &Int) -> bool {
    let bits = a.0.bits_precision().max(b.0.bits_precision());
    fit(&a.0, bits) < fit(&b.0, bits)
}

/// `x + k` (the precision grows by a limb if needed).
#[cfg(test)]
pub(crate) fn add_u64(x: &Int, k: u64) -> Int {
    let bits = x.0.bits_precision() + 64;
    Int(fit(&x.0, bits).wrapping_add(fit(&BoxedUint::from(k), bits)))
}
