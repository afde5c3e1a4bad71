//! The integers of RSA: the only file naming the big-integer crate (`crypto-bigint`'s heap
//! integers and Montgomery forms, constant time unless a function's name says `vartime`).
//!
//! Every integer here has the precision of the modulus it belongs to (a multiple of 64 bits);
//! byte strings are big-endian and fixed-length (I2OSP / OS2IP, RFC 8017 §4).

use crypto_bigint::modular::{BoxedMontyForm, BoxedMontyParams};
use crypto_bigint::{BoxedUint, ConcatenatingMul, CtLt, CtOption, Integer, NonZero, Odd};
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
use crate::group::backend::ifma_rsa;
use crate::{Error, Result};
use mont::Mont;

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
    /// The exponentiation engine (`None` above 4096 bits, where `crypto-bigint`'s serves).
    mont: Option<Mont>,
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
        let mut modulus = Self {
            n: Int(value),
            params,
            mont: None,
            len: (bits as usize).div_ceil(8),
            bits,
        };
        modulus.mont = modulus.engine();
        Some(modulus)
    }

    /// The engine of [`mont`] for this modulus: its size class `k` and `R^2 mod n` for
    /// `R = 2^(64 k)`, reduced by [`Modulus::reduce`] (constant time in `n`).
    fn engine(&self) -> Option<Mont> {
        let words = self.n.0.as_words();
        let k = Mont::class(words.len())?;
        let wb = crypto_bigint::Word::BITS;
        let mut r2 = BoxedUint::zero_with_precision(u32::try_from(2 * k + 1).ok()? * wb);
        *r2.as_mut_words().get_mut(2 * k)? = 1;
        let mut r2 = self.reduce(&Int(r2));
        let mont = Mont::new(k, words, r2.0.as_words());
        r2.zeroize();
        #[cfg(target_arch = "x86_64")]
        if (k == ifma_rsa::WORDS || k == ifma_rsa::WORDS_2048) && ifma_rsa::get().is_some() {
            // `R^2 mod n` for the IFMA backend's radix `R = 2^(52 ceil(64 k / 52))`: `2^2080`
            // (1024-bit class) or `2^4160` (2048-bit class).
            let two_r = 2 * 52 * (64 * k).div_ceil(52);
            let mut rr = BoxedUint::zero_with_precision(
                u32::try_from(two_r + 64).ok()?.next_multiple_of(64),
            );
            *rr.as_mut_words().get_mut(two_r / 64)? = 1 << (two_r % 64);
            let mut rr = self.reduce(&Int(rr));
            let mont = mont.map(|m| m.with_rr_ifma(rr.0.as_words()));
            rr.zeroize();
            return mont;
        }
        mont
    }

    /// Marks a secret modulus (a prime factor) undefined for memcheck: its value, the modulus
    /// of its Montgomery parameters (their `R mod p` and `R^2 mod p` are not reachable through
    /// `crypto-bigint`'s API and stay marked defined) and the engine's `p`, `R^2 mod p` and
    /// `-p^-1` modulo the word base (the private operation's inputs).
    #[cfg(feature = "ct-validation")]
    pub(crate) fn mark_secret(&self) {
        self.n.mark_secret();
        crate::group::validation::mark_secret(self.params.modulus().as_ref().as_words());
        if let Some(mont) = &self.mont {
            mont.mark_secret();
        }
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

    /// `x` as words of at most the engine's size (reduced first when its precision is above
    /// the modulus's), for [`mont`].
    fn engine_input(&self, x: &Int) -> Int {
        if x.0.bits_precision() <= self.precision() {
            x.clone()
        } else {
            self.reduce(x)
        }
    }

    /// The engine's output (below `n`) at the modulus's precision.
    fn engine_output(&self, mut words: Vec<crypto_bigint::Word>) -> Int {
        let prec = self.precision();
        let mut out = BoxedUint::zero_with_precision(prec);
        for (o, w) in out.as_mut_words().iter_mut().zip(&words) {
            *o = *w;
        }
        words.zeroize();
        Int(out)
    }

    /// `x^e mod n` for a secret exponent: constant time in `x` and `e` (every bit of the
    /// exponent's precision is processed).
    pub(crate) fn pow(&self, x: &Int, e: &Int) -> Int {
        if let Some(mont) = &self.mont {
            let mut input = self.engine_input(x);
            let out = mont.pow_secret(input.0.as_words(), e.0.as_words());
            input.zeroize();
            if let Some(words) = out {
                return self.engine_output(words);
            }
        }
        let mut m = self.monty(x);
        let mut r = m.pow(&e.0);
        let out = Int(r.retrieve());
        m.zeroize();
        r.zeroize();
        out
    }

    /// `(xa^ea mod a, xb^eb mod b)` for secret exponents (the private operation's two CRT
    /// halves): each equal to [`Modulus::pow`]'s, constant time in every value. Both at once on
    /// the AVX-512 IFMA backend when the CPU has it and both moduli are of the 1024-bit class
    /// (RSA-2048), else one after the other on the portable engine.
    pub(crate) fn pow_pair(
        a: &Modulus,
        xa: &Int,
        ea: &Int,
        b: &Modulus,
        xb: &Int,
        eb: &Int,
    ) -> (Int, Int) {
        #[cfg(target_arch = "x86_64")]
        if let Some(out) = Self::pow_pair_ifma(a, xa, ea, b, xb, eb) {
            return out;
        }
        (a.pow(xa, ea), b.pow(xb, eb))
    }

    /// [`Modulus::pow_pair`] on the IFMA backend, or `None` (no IFMA, another size class, an
    /// exponent of more than 1024 bits: public facts).
    #[cfg(target_arch = "x86_64")]
    fn pow_pair_ifma(
        a: &Modulus,
        xa: &Int,
        ea: &Int,
        b: &Modulus,
        xb: &Int,
        eb: &Int,
    ) -> Option<(Int, Int)> {
        let ifma = ifma_rsa::get()?;
        let (ma, rra) = a.mont.as_ref()?.rr_ifma()?;
        let (mb, rrb) = b.mont.as_ref()?.rr_ifma()?;
        let mut ia = a.engine_input(xa);
        let mut ib = b.engine_input(xb);
        let out = ifma.pow_secret_x2_1024([
            ifma_rsa::Half {
                m: ma,
                rr: rra,
                x: ia.0.as_words(),
                e: ea.0.as_words(),
            },
            ifma_rsa::Half {
                m: mb,
                rr: rrb,
                x: ib.0.as_words(),
                e: eb.0.as_words(),
            },
        ]);
        ia.zeroize();
        ib.zeroize();
        let mut out = out?;
        let result = (
            a.engine_output(out[0].to_vec()),
            b.engine_output(out[1].to_vec()),
        );
        out.zeroize();
        Some(result)
    }

    /// [`Modulus::pow_public_exp`] on the IFMA backend (2048-bit class: RSA-2048's modulus), or
    /// `None` (no IFMA, another class: public facts).
    #[cfg(target_arch = "x86_64")]
    fn pow_public_ifma(&self, x: &Int, e: &Int) -> Option<Int> {
        let ifma = ifma_rsa::get()?;
        let (m, rr) = self.mont.as_ref()?.rr_ifma()?;
        if m.len() != ifma_rsa::WORDS_2048 {
            return None;
        }
        let mut input = self.engine_input(x);
        let out = ifma.pow_public_2048_vartime(m, rr, input.0.as_words(), e.0.as_words());
        input.zeroize();
        out.map(|mut words| {
            let value = self.engine_output(words.to_vec());
            words.zeroize();
            value
        })
    }

    /// `x^e mod n` for a public exponent: constant time in `x`, variable time in `e` (square
    /// and multiply on its bits).
    pub(crate) fn pow_public_exp(&self, x: &Int, e: &Int) -> Int {
        #[cfg(target_arch = "x86_64")]
        if let Some(out) = self.pow_public_ifma(x, e) {
            return out;
        }
        if let Some(mont) = &self.mont {
            let input = self.engine_input(x);
            if let Some(words) = mont.pow_public(input.0.as_words(), e.0.as_words()) {
                return self.engine_output(words);
            }
        }
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

/// The private operation's exponentiation engine: Montgomery arithmetic on fixed-size word
/// arrays (`[Word; K]`, one instance per size class of 256 bits), constant time: no branch or
/// memory index depends on an operand, the final subtraction is a mask, the exponent's windows
/// are read at public positions and the table is read whole for each lookup.
mod mont {
    #[cfg(target_arch = "x86_64")]
    use crate::group::backend::adx_rsa;
    use crypto_bigint::{WideWord, Word};
    use zeroize::Zeroize;

    /// Bits per word.
    const WB: usize = Word::BITS as usize;
    /// The window of the secret-exponent ladder: 5 bits, a table of 32 powers.
    const WINDOW: usize = 5;
    const TABLE: usize = 1 << WINDOW;

    /// The size classes, in words: the halves and moduli of RSA-2048, -3072 and -4096 (1024,
    /// 1536, 2048, 3072, 4096 bits). Another size runs in the next class up (zero-padded); each
    /// class is a copy of the engine in the binary, so there are few (the WebAssembly package's
    /// size).
    const C1024: usize = 1024 / WB;
    const C1536: usize = 1536 / WB;
    const C2048: usize = 2048 / WB;
    const C3072: usize = 3072 / WB;
    const C4096: usize = 4096 / WB;
    const CLASSES: [usize; 5] = [C1024, C1536, C2048, C3072, C4096];

    /// Runs `$f::<K>($args)` for the size class `K` equal to `$k` (`None` for another value).
    macro_rules! by_class {
        ($k:expr, $f:ident, $($arg:expr),*) => {
            match $k {
                C1024 => Some($f::<C1024>($($arg),*)),
                C1536 => Some($f::<C1536>($($arg),*)),
                C2048 => Some($f::<C2048>($($arg),*)),
                C3072 => Some($f::<C3072>($($arg),*)),
                C4096 => Some($f::<C4096>($($arg),*)),
                _ => None,
            }
        };
    }

    /// An odd modulus `m` in a size class of `k` words, `R = 2^(k WB)`: `m`, `-m^-1 mod 2^WB`
    /// and `R^2 mod m`. Wiped on drop (a prime factor is secret).
    #[derive(Clone)]
    pub(super) struct Mont {
        k: usize,
        m: Vec<Word>,
        m0inv: Word,
        r2: Vec<Word>,
        /// `R^2 mod m` for the AVX-512 IFMA backend's radix `R` (`2^1040` in the 1024-bit
        /// class, `2^2080` in the 2048-bit one) on a CPU with IFMA, empty otherwise.
        rr_ifma: Vec<Word>,
    }

    impl Drop for Mont {
        fn drop(&mut self) {
            self.m.zeroize();
            self.r2.zeroize();
            self.rr_ifma.zeroize();
            self.m0inv.zeroize();
        }
    }

    impl Mont {
        /// The size class of a modulus of `words` words: the smallest class that holds it, or
        /// `None` above 4096 bits.
        pub(super) fn class(words: usize) -> Option<usize> {
            CLASSES.into_iter().find(|&c| c >= words)
        }

        /// The engine for the odd modulus `m` (words, little-endian, at most `k` of them) with
        /// `r2 = R^2 mod m` for `R = 2^(k WB)`, `k` a size class. Constant time in `m`.
        pub(super) fn new(k: usize, m: &[Word], r2: &[Word]) -> Option<Self> {
            if !CLASSES.contains(&k) || m.len() > k || r2.len() > k {
                return None;
            }
            let pad = |x: &[Word]| {
                let mut v = vec![0; k];
                v[..x.len()].copy_from_slice(x);
                v
            };
            let m = pad(m);
            // m0^-1 mod 2^WB by Newton's iteration (each step doubles the correct low bits;
            // `m0` itself is right to 3 bits for an odd `m0`).
            let m0 = m[0];
            let mut inv = m0;
            for _ in 0..6 {
                inv = inv.wrapping_mul((2 as Word).wrapping_sub(m0.wrapping_mul(inv)));
            }
            Some(Self {
                k,
                m,
                m0inv: inv.wrapping_neg(),
                r2: pad(r2),
                rr_ifma: Vec::new(),
            })
        }

        /// The engine with the IFMA backend's `R^2 mod m` (below `m`, at most `k` words).
        #[cfg(target_arch = "x86_64")]
        pub(super) fn with_rr_ifma(mut self, rr: &[Word]) -> Self {
            self.rr_ifma = rr.to_vec();
            self
        }

        /// `m` and the IFMA backend's `R^2 mod m` when it was computed (1024- and 2048-bit
        /// classes on a CPU with IFMA).
        #[cfg(target_arch = "x86_64")]
        pub(super) fn rr_ifma(&self) -> Option<(&[Word], &[Word])> {
            if self.rr_ifma.is_empty() {
                return None;
            }
            Some((&self.m, &self.rr_ifma))
        }

        /// Marks `m`, `R^2 mod m` and `-m^-1` undefined for memcheck.
        #[cfg(feature = "ct-validation")]
        pub(super) fn mark_secret(&self) {
            crate::group::validation::mark_secret(self.m.as_slice());
            crate::group::validation::mark_secret(self.r2.as_slice());
            crate::group::validation::mark_secret(self.rr_ifma.as_slice());
            crate::group::validation::mark_secret(core::slice::from_ref(&self.m0inv));
        }

        /// `x^e mod m` for `x < R` (at most `k` words) and a secret exponent `e`, every bit of
        /// whose words is processed: fixed 5-bit windows, each window's power read by a
        /// constant-time scan of the whole table. `k` words, little-endian.
        pub(super) fn pow_secret(&self, x: &[Word], e: &[Word]) -> Option<Vec<Word>> {
            if x.len() > self.k {
                return None;
            }
            by_class!(self.k, pow_secret, self, x, e)
        }

        /// `x^e mod m` for `x < R` and a public exponent `e` (left to right, square and
        /// multiply: variable time in `e` only).
        pub(super) fn pow_public(&self, x: &[Word], e: &[Word]) -> Option<Vec<Word>> {
            if x.len() > self.k {
                return None;
            }
            by_class!(self.k, pow_public, self, x, e)
        }
    }

    /// A column accumulator of the product scanning: a double word and the carries above it.
    #[derive(Default)]
    struct Acc {
        lo: WideWord,
        top: Word,
    }

    impl Acc {
        /// Adds `a b`.
        #[inline(always)]
        fn mac(&mut self, a: Word, b: Word) {
            let (s, o) = self
                .lo
                .overflowing_add(WideWord::from(a) * WideWord::from(b));
            self.lo = s;
            self.top = self.top.wrapping_add(Word::from(o));
        }

        /// Adds another accumulator.
        #[inline(always)]
        fn add(&mut self, x: &Acc) {
            let (s, o) = self.lo.overflowing_add(x.lo);
            self.lo = s;
            self.top = self.top.wrapping_add(x.top).wrapping_add(Word::from(o));
        }

        /// Doubles the accumulator (its value stays below `2^(3 WB)`).
        #[inline(always)]
        fn double(&mut self) {
            self.top = (self.top << 1) | (self.lo >> (2 * WB - 1)) as Word;
            self.lo <<= 1;
        }

        /// The low word.
        #[inline(always)]
        fn low(&self) -> Word {
            self.lo as Word
        }

        /// Shifts out the low word (the next column).
        #[inline(always)]
        fn shift(&mut self) {
            self.lo = (self.lo >> WB) | (WideWord::from(self.top) << WB);
            self.top = 0;
        }
    }

    /// `a - b - c` for a borrow `c` of 0 or 1, as (difference, borrow).
    #[inline(always)]
    fn sbb(a: Word, b: Word, c: Word) -> (Word, Word) {
        let x = WideWord::from(a).wrapping_sub(WideWord::from(b) + WideWord::from(c));
        (x as Word, ((x >> WB) as Word) & 1)
    }

    /// `t - m` if `hi:t >= m`, else `t` (for `hi:t < 2m`), by a mask: constant time.
    #[inline(always)]
    fn reduce_once<const K: usize>(t: &mut [Word; K], hi: Word, m: &[Word; K]) {
        let mut d = [0; K];
        let mut borrow = 0;
        for j in 0..K {
            (d[j], borrow) = sbb(t[j], m[j], borrow);
        }
        // Keep `t` when it was below `m`: no carry word and a borrow out.
        let (_, keep) = sbb(hi, 0, borrow);
        let keep = core::hint::black_box(keep.wrapping_neg());
        for j in 0..K {
            t[j] = (t[j] & keep) | (d[j] & !keep);
        }
        d.zeroize();
    }

    /// The Montgomery reduction's columns, shared by [`mul`] and [`sqr`]: `cols(i, acc)` adds
    /// the product's column `i` (of `2K - 1`) to `acc`; the quotient words `u` are chosen
    /// column by column (product scanning, the "FIPS" order), so that `(a b + u m) / R`, below
    /// `2m`, comes out of the upper columns.
    #[inline(always)]
    fn redc_columns<const K: usize>(
        m: &[Word; K],
        m0inv: Word,
        mut cols: impl FnMut(usize, &mut Acc),
    ) -> [Word; K] {
        let mut u = [0 as Word; K];
        let mut t = [0 as Word; K];
        let mut acc = Acc::default();
        for i in 0..K {
            cols(i, &mut acc);
            for j in 0..i {
                acc.mac(u[j], m[i - j]);
            }
            u[i] = acc.low().wrapping_mul(m0inv);
            acc.mac(u[i], m[0]);
            acc.shift();
        }
        for i in K..2 * K - 1 {
            cols(i, &mut acc);
            for j in i + 1 - K..K {
                acc.mac(u[j], m[i - j]);
            }
            t[i - K] = acc.low();
            acc.shift();
        }
        t[K - 1] = acc.low();
        acc.shift();
        let hi = acc.low();
        u.zeroize();
        reduce_once(&mut t, hi, m);
        t
    }

    /// Montgomery multiplication: `a b R^-1 mod m` for `a < R` and `b < m`, the result below
    /// `m`: on `mulx`/`adx` ([`adx_rsa`]) for the 1024-bit class when the CPU has them and the
    /// portable engine is not forced (`PRIVACY_TOKENS_ARITH=portable`), else [`mul_portable`].
    #[inline(always)]
    fn mul<const K: usize>(a: &[Word; K], b: &[Word; K], m: &[Word; K], m0inv: Word) -> [Word; K] {
        #[cfg(target_arch = "x86_64")]
        if let Some(out) = adx_1024(a, m, m0inv, |adx, a, m, m0inv| {
            let b = <&[u64; adx_rsa::WORDS]>::try_from(b.as_slice()).ok()?;
            Some(adx_rsa::mont_mul_1024(adx, a, b, m, m0inv))
        }) {
            return out;
        }
        mul_portable(a, b, m, m0inv)
    }

    /// Montgomery squaring: `a^2 R^-1 mod m` for `a < m`, the result below `m` (the
    /// [`adx_rsa`] backend as in [`mul`], else [`sqr_portable`]).
    #[inline(always)]
    fn sqr<const K: usize>(a: &[Word; K], m: &[Word; K], m0inv: Word) -> [Word; K] {
        #[cfg(target_arch = "x86_64")]
        if let Some(out) = adx_1024(a, m, m0inv, |adx, a, m, m0inv| {
            Some(adx_rsa::mont_sqr_1024(adx, a, m, m0inv))
        }) {
            return out;
        }
        sqr_portable(a, m, m0inv)
    }

    /// Runs `f` on the [`adx_rsa`] backend when `K` is its size class (16 words) and the CPU
    /// has BMI2 and ADX (public facts), `None` otherwise.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn adx_1024<const K: usize>(
        a: &[Word; K],
        m: &[Word; K],
        m0inv: Word,
        f: impl FnOnce(
            adx_rsa::Adx,
            &[u64; adx_rsa::WORDS],
            &[u64; adx_rsa::WORDS],
            u64,
        ) -> Option<[u64; adx_rsa::WORDS]>,
    ) -> Option<[Word; K]> {
        if K != adx_rsa::WORDS {
            return None;
        }
        let adx = adx_rsa::get()?;
        let a = <&[u64; adx_rsa::WORDS]>::try_from(a.as_slice()).ok()?;
        let m = <&[u64; adx_rsa::WORDS]>::try_from(m.as_slice()).ok()?;
        let r = f(adx, a, m, m0inv)?;
        let mut out = [0 as Word; K];
        out.copy_from_slice(&r);
        Some(out)
    }

    /// The portable Montgomery multiplication: `a b R^-1 mod m` for `a b < R m`, the result
    /// below `m`.
    fn mul_portable<const K: usize>(
        a: &[Word; K],
        b: &[Word; K],
        m: &[Word; K],
        m0inv: Word,
    ) -> [Word; K] {
        redc_columns(m, m0inv, |i, acc| {
            let lo = (i + 1).saturating_sub(K);
            for j in lo..=i.min(K - 1) {
                acc.mac(a[j], b[i - j]);
            }
        })
    }

    /// The portable Montgomery squaring: `a^2 R^-1 mod m` for `a < m`, the result below `m`:
    /// each cross product once, doubled, plus the diagonal.
    fn sqr_portable<const K: usize>(a: &[Word; K], m: &[Word; K], m0inv: Word) -> [Word; K] {
        redc_columns(m, m0inv, |i, acc| {
            let lo = (i + 1).saturating_sub(K);
            let mut cross = Acc::default();
            // Pairs j < i - j.
            for j in lo..i.div_ceil(2) {
                cross.mac(a[j], a[i - j]);
            }
            cross.double();
            acc.add(&cross);
            if i % 2 == 0 {
                acc.mac(a[i / 2], a[i / 2]);
            }
        })
    }

    /// `x` as `K` words (zero above its length).
    fn load<const K: usize>(x: &[Word]) -> [Word; K] {
        let mut out = [0; K];
        for (o, w) in out.iter_mut().zip(x) {
            *o = *w;
        }
        out
    }

    /// The `width` bits of `e` from bit `lo` (public positions), as a table index.
    fn window(e: &[Word], lo: usize, width: usize) -> usize {
        let (w, s) = (lo / WB, lo % WB);
        let mut v = e.get(w).copied().unwrap_or(0) >> s;
        if s + width > WB {
            v |= e.get(w + 1).copied().unwrap_or(0) << (WB - s);
        }
        (v as usize) & ((1 << width) - 1)
    }

    /// `table[i]`, reading every entry: constant time in `i`.
    fn lookup<const K: usize>(table: &[[Word; K]; TABLE], i: usize) -> [Word; K] {
        let mut out = [0 as Word; K];
        for (j, entry) in table.iter().enumerate() {
            // All ones when `j == i`, without a branch.
            let d = (j ^ i) as Word;
            let mask = core::hint::black_box(((d | d.wrapping_neg()) >> (WB - 1)).wrapping_sub(1));
            for (o, w) in out.iter_mut().zip(entry) {
                *o |= w & mask;
            }
        }
        out
    }

    /// `x^e mod m`, every bit of `e`'s words processed: fixed 5-bit windows from the top, each
    /// window's power read by [`lookup`].
    fn pow_secret<const K: usize>(mt: &Mont, x: &[Word], e: &[Word]) -> Vec<Word> {
        let m: [Word; K] = load(&mt.m);
        let mut r2: [Word; K] = load(&mt.r2);
        let mut one = [0 as Word; K];
        one[0] = 1;
        let mut base: [Word; K] = load(x);
        let mut table = [[0 as Word; K]; TABLE];
        // R mod m (1 in Montgomery form), then x R mod m and its powers.
        table[0] = mul(&r2, &one, &m, mt.m0inv);
        table[1] = mul(&base, &r2, &m, mt.m0inv);
        for i in 2..TABLE {
            table[i] = mul(&table[i - 1], &table[1], &m, mt.m0inv);
        }
        let bits = e.len() * WB;
        let windows = bits.div_ceil(WINDOW).max(1);
        let top = (windows - 1) * WINDOW;
        let width = bits.saturating_sub(top).min(WINDOW);
        let mut acc = lookup(&table, window(e, top, width));
        for i in (0..windows - 1).rev() {
            for _ in 0..WINDOW {
                acc = sqr(&acc, &m, mt.m0inv);
            }
            let mut p = lookup(&table, window(e, i * WINDOW, WINDOW));
            acc = mul(&acc, &p, &m, mt.m0inv);
            p.zeroize();
        }
        let mut out = mul(&acc, &one, &m, mt.m0inv);
        let v = out.to_vec();
        table.zeroize();
        acc.zeroize();
        base.zeroize();
        r2.zeroize();
        out.zeroize();
        v
    }

    /// `x^e mod m` for a public `e`: constant time in `x` (the blind's `r^e'` is secret), variable
    /// time in `e`. Square and multiply from its top set bit for a short `e` (`65537`); for a
    /// long one (0xDA7A's `e'`, about 1022 bits) a sliding window of up to 5 bits over the odd
    /// powers `x, x^3, …, x^31`, whose indices come from `e` alone: about a sixth as many
    /// multiplications as squarings instead of half.
    fn pow_public<const K: usize>(mt: &Mont, x: &[Word], e: &[Word]) -> Vec<Word> {
        let m: [Word; K] = load(&mt.m);
        let r2: [Word; K] = load(&mt.r2);
        let mut one = [0 as Word; K];
        one[0] = 1;
        let base = mul(&load(x), &r2, &m, mt.m0inv);
        let mut acc = mul(&r2, &one, &m, mt.m0inv);
        let bits = e
            .iter()
            .rposition(|&w| w != 0)
            .map_or(0, |i| i * WB + (WB - e[i].leading_zeros() as usize));
        let bit = |i: usize| (e[i / WB] >> (i % WB)) & 1 == 1;
        if bits <= 64 {
            for i in (0..bits).rev() {
                acc = sqr(&acc, &m, mt.m0inv);
                if bit(i) {
                    acc = mul(&acc, &base, &m, mt.m0inv);
                }
            }
        } else {
            let square = sqr(&base, &m, mt.m0inv);
            let mut odd = [[0 as Word; K]; TABLE / 2];
            odd[0] = base;
            for i in 1..TABLE / 2 {
                odd[i] = mul(&odd[i - 1], &square, &m, mt.m0inv);
            }
            // Bits i, i-1, … down to 0; a window is `[j, i]` with bits i and j set, at most
            // WINDOW bits long.
            let mut next = bits;
            while next > 0 {
                let i = next - 1;
                if !bit(i) {
                    acc = sqr(&acc, &m, mt.m0inv);
                    next = i;
                    continue;
                }
                let mut j = i.saturating_sub(WINDOW - 1);
                while !bit(j) {
                    j += 1;
                }
                let mut value = 0usize;
                for k in (j..=i).rev() {
                    acc = sqr(&acc, &m, mt.m0inv);
                    value = (value << 1) | usize::from(bit(k));
                }
                acc = mul(&acc, &odd[value >> 1], &m, mt.m0inv);
                next = j;
            }
            odd.zeroize();
        }
        mul(&acc, &one, &m, mt.m0inv).to_vec()
    }
    /// The [`adx_rsa`] multiplication and squaring equal the portable engine's, called side by
    /// side (whatever the process selected), on moduli of the 1024-bit class (top bit set,
    /// `2^1024 - 1`, `2^1024 - 3`, all-ones low words, shorter ones) and on edge and random
    /// values: 0, 1, `m - 1`, all-ones words, and `a = 2^1024 - 1` as the unreduced operand.
    #[cfg(all(test, target_arch = "x86_64"))]
    mod tests {
        use super::*;
        use rand::Rng;

        #[test]
        fn adx_mont_equals_portable() {
            let Some(adx) = adx_rsa::get() else {
                std::eprintln!("adx_mont_equals_portable: skipped (no BMI2/ADX or forced off)");
                return;
            };
            let mut rng = rand::rng();
            let mut word = || {
                let mut b = [0u8; 8];
                rng.fill_bytes(&mut b);
                u64::from_le_bytes(b)
            };
            let ones = [Word::MAX; C1024];
            let mut moduli: Vec<[Word; C1024]> = Vec::new();
            let mut minus3 = ones;
            minus3[0] = Word::MAX - 2;
            moduli.push(ones);
            moduli.push(minus3);
            let mut low_ones = [0 as Word; C1024];
            low_ones[..8].copy_from_slice(&ones[..8]);
            low_ones[C1024 - 1] = 1 << (WB - 1);
            moduli.push(low_ones);
            for top in [WB, WB, WB, WB - 1, WB - 24, WB - 63] {
                let mut m = [0 as Word; C1024];
                for w in m.iter_mut() {
                    *w = word();
                }
                m[0] |= 1;
                m[C1024 - 1] >>= WB - top;
                m[C1024 - 1] |= 1 << (top - 1);
                moduli.push(m);
            }
            for m in moduli {
                let mt = Mont::new(C1024, &m, &[]).unwrap_or_else(|| panic!("mont")); // ok: test
                let mut m_minus_1 = m;
                m_minus_1[0] -= 1;
                let mut one = [0 as Word; C1024];
                one[0] = 1;
                let mut vals = vec![[0 as Word; C1024], one, m_minus_1];
                // All-ones words below `m`: `m - 1` with its low half set to ones.
                let mut low = m_minus_1;
                low[..C1024 / 2].copy_from_slice(&ones[..C1024 / 2]);
                vals.push(low);
                for _ in 0..8 {
                    let mut v = [0 as Word; C1024];
                    for w in v.iter_mut() {
                        *w = word();
                    }
                    // Below `m`: clear bits from `m`'s top bit up.
                    let top = WB - m[C1024 - 1].leading_zeros() as usize;
                    v[C1024 - 1] &= (1 << (top - 1)) - 1;
                    vals.push(v);
                }
                for a in vals.iter().chain([&ones]) {
                    for b in &vals {
                        let want = mul_portable(a, b, &m, mt.m0inv);
                        let got = adx_rsa::mont_mul_1024(adx, a, b, &m, mt.m0inv);
                        assert_eq!(got, want, "mul {a:x?} {b:x?} mod {m:x?}");
                    }
                }
                for a in &vals {
                    let want = sqr_portable(a, &m, mt.m0inv);
                    assert_eq!(adx_rsa::mont_sqr_1024(adx, a, &m, mt.m0inv), want, "sqr");
                }
                // Chains of products (the exponentiation's shape).
                let mut x = vals[vals.len() - 1];
                let mut y = x;
                for _ in 0..200 {
                    x = adx_rsa::mont_sqr_1024(adx, &x, &m, mt.m0inv);
                    x = adx_rsa::mont_mul_1024(adx, &x, &vals[4], &m, mt.m0inv);
                    y = sqr_portable(&y, &m, mt.m0inv);
                    y = mul_portable(&y, &vals[4], &m, mt.m0inv);
                }
                assert_eq!(x, y, "chain");
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// `bits` random bits (the top one set), as an odd `Int` when `odd`.
    fn random(rng: &mut impl Rng, bits: usize, odd: bool) -> Int {
        let mut bytes = vec![0u8; bits.div_ceil(8)];
        rng.fill_bytes(&mut bytes);
        let excess = bytes.len() * 8 - bits;
        bytes[0] &= 0xff >> excess;
        bytes[0] |= 0x80 >> excess;
        if odd {
            let last = bytes.len() - 1;
            bytes[last] |= 1;
        }
        Int::from_be(&bytes)
    }

    /// The engine of `mont` (every size class, and moduli that fill their class or not)
    /// computes what `crypto-bigint`'s Montgomery exponentiation computes, for secret and
    /// public exponents, inputs below the modulus and inputs of a larger precision.
    #[test]
    fn engine_equals_crypto_bigint() {
        let mut rng = rand::rng();
        for bits in [
            1016, 1024, 1100, 1280, 1500, 1536, 1792, 2000, 2048, 2560, 3072, 3584, 4000, 4096,
        ] {
            let n = random(&mut rng, bits, true);
            let modulus = Modulus::new_secret(&n).unwrap_or_else(|| panic!("{bits}")); // ok: test
            assert!(modulus.mont.is_some(), "{bits}");
            let public = Modulus::new_public(&n).unwrap_or_else(|| panic!("{bits}")); // ok: test
            let wide = random(&mut rng, bits + 300, false);
            let x = modulus.reduce(&random(&mut rng, bits + 64, false));
            for (base, e) in [
                (x.clone(), random(&mut rng, bits, false)),
                (x.clone(), Int::from_be(&[0x01, 0x00, 0x01])),
                (x.clone(), Int::from_be(&[0])),
                (wide.clone(), random(&mut rng, 100, true)),
                (Int::from_be(&[0]), random(&mut rng, 64, false)),
                (Int::from_be(&[1]), random(&mut rng, 64, false)),
                // Public exponents whose windows meet long zero runs, all ones, and the
                // lowest bit alone.
                (
                    x.clone(),
                    Int::from_be(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x21]),
                ),
                (x.clone(), Int::from_be(&[0xff; 40])),
                (x.clone(), Int::from_be(&[0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
            ] {
                let expected = {
                    let m = modulus.monty(&base);
                    Int(m.pow(&e.0).retrieve())
                };
                let ours = modulus.pow(&base, &e);
                assert!(bool::from(ours.ct_eq(&expected)), "{bits} secret");
                assert_eq!(ours.0.bits_precision(), modulus.precision());
                let ours = public.pow_public_exp(&base, &e);
                assert!(bool::from(ours.ct_eq(&expected)), "{bits} public");
            }
        }
        // Above 4096 bits: no engine, crypto-bigint's exponentiation.
        let n = random(&mut rng, 4160, true);
        let modulus = Modulus::new_secret(&n).unwrap_or_else(|| panic!("4160")); // ok: test
        assert!(modulus.mont.is_none());
        let x = random(&mut rng, 4000, false);
        let e = random(&mut rng, 64, false);
        assert!(bool::from(
            modulus
                .pow(&x, &e)
                .ct_eq(&Int(modulus.monty(&x).pow(&e.0).retrieve()))
        ));
    }

    /// Whether the IFMA backend runs here; prints the test's skip line when it does not.
    #[cfg(target_arch = "x86_64")]
    fn ifma_or_skip(test: &str) -> bool {
        let on = ifma_rsa::get().is_some();
        if !on {
            println!("{test}: no AVX-512 IFMA on this CPU (or forced off): skipped");
        }
        on
    }

    /// The IFMA backend's dual exponentiation equals the portable engine, per half: random
    /// moduli of the 1024-bit class (top bit set, near `2^1024`, shorter, all-ones limbs), equal
    /// moduli for both halves, bases 0, 1, `m - 1`, all-ones words, random; exponents zero, one,
    /// all ones, random, and of fewer words. Skipped (one line) without IFMA.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn ifma_pair_equals_portable() {
        if !ifma_or_skip("ifma_pair_equals_portable") {
            return;
        }
        let mut rng = rand::rng();
        let mut moduli: Vec<Int> = [1024, 1024, 1023, 1000, 961]
            .iter()
            .map(|&b| random(&mut rng, b, true))
            .collect();
        // 2^1024 - 1 (all ones) and 2^1024 - 3, and a modulus with all-ones low limbs.
        moduli.push(Int::from_be(&[0xff; 128]));
        let mut near = [0xff; 128];
        near[127] = 0xfd;
        moduli.push(Int::from_be(&near));
        let mut ones_low = [0u8; 128];
        ones_low[0] = 0x80;
        for b in ones_low.iter_mut().skip(64) {
            *b = 0xff;
        }
        moduli.push(Int::from_be(&ones_low));
        let mods: Vec<Modulus> = moduli
            .iter()
            .map(|n| Modulus::new_secret(n).unwrap_or_else(|| panic!("modulus"))) // ok: test
            .collect();
        let exps = |rng: &mut rand::rngs::ThreadRng| {
            vec![
                random(rng, 1024, false),
                random(rng, 1023, true),
                Int::from_be(&[0u8; 128]),
                Int::from_be(&[0]),
                Int::from_be(&[1]),
                Int::from_be(&[0xff; 128]),
                random(rng, 64, true),
            ]
        };
        let bases = |m: &Modulus, rng: &mut rand::rngs::ThreadRng| {
            let n = m.value();
            vec![
                m.reduce(&random(rng, 1100, false)),
                Int::from_be(&[0]),
                Int::from_be(&[1]),
                n.minus_one(),
                m.reduce(&Int::from_be(&[0xff; 128])),
                random(rng, 1024, false),
            ]
        };
        let mut cases = 0;
        for (i, a) in mods.iter().enumerate() {
            // A different modulus and the same one in the other half.
            for b in [&mods[(i + 1) % mods.len()], a] {
                let (xs_a, xs_b) = (bases(a, &mut rng), bases(b, &mut rng));
                let (es_a, es_b) = (exps(&mut rng), exps(&mut rng));
                for (xa, xb) in xs_a.iter().zip(xs_b.iter().rev()) {
                    for (ea, eb) in es_a.iter().zip(es_b.iter().rev()) {
                        let (ra, rb) = Modulus::pow_pair(a, xa, ea, b, xb, eb);
                        assert!(bool::from(ra.ct_eq(&a.pow(xa, ea))), "half a, modulus {i}");
                        assert!(bool::from(rb.ct_eq(&b.pow(xb, eb))), "half b, modulus {i}");
                        assert_eq!(ra.0.bits_precision(), 1024);
                        cases += 1;
                    }
                }
            }
        }
        // The backend answered (not the fallback): a direct call.
        let m = &mods[0];
        let (mw, rr) = m
            .mont
            .as_ref()
            .and_then(|e| e.rr_ifma())
            .unwrap_or_else(|| panic!("rr")); // ok: test
        let x = random(&mut rng, 1020, false);
        let e = random(&mut rng, 1024, false);
        let half = ifma_rsa::Half {
            m: mw,
            rr,
            x: x.0.as_words(),
            e: e.0.as_words(),
        };
        let out = ifma_rsa::get()
            .and_then(|t| t.pow_secret_x2_1024([half, half]))
            .unwrap_or_else(|| panic!("no answer")); // ok: test
        let expected = m.pow(&x, &e);
        assert_eq!(&out[0][..], expected.0.as_words());
        assert_eq!(&out[1][..], expected.0.as_words());
        // Longer operands are refused.
        let long = vec![1u64; 17];
        let bad = ifma_rsa::Half { x: &long, ..half };
        assert!(ifma_rsa::get()
            .and_then(|t| t.pow_secret_x2_1024([half, bad]))
            .is_none());
        println!("ifma_pair_equals_portable: {cases} pairs equal");
    }

    /// The IFMA backend's public-exponent exponentiation (2048-bit class) equals the portable
    /// engine and answers: moduli of 2048 bits (random, all ones) and shorter ones of the
    /// class, bases 0, 1, `n - 1`, wide, random; exponents 0, 1, 3, 65537, all ones, about 1022
    /// bits. Skipped (one line) without IFMA.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn ifma_public_equals_portable() {
        if !ifma_or_skip("ifma_public_equals_portable") {
            return;
        }
        let mut rng = rand::rng();
        let mut moduli: Vec<Int> = [2048, 2048, 2047, 1800]
            .iter()
            .map(|&b| random(&mut rng, b, true))
            .collect();
        moduli.push(Int::from_be(&[0xff; 256]));
        let mut cases = 0;
        for n in &moduli {
            let m = Modulus::new_public(n).unwrap_or_else(|| panic!("modulus")); // ok: test
            let Some(engine) = m.mont.as_ref() else {
                panic!("no engine") // ok: test
            };
            for x in [
                Int::from_be(&[0]),
                Int::from_be(&[1]),
                n.minus_one(),
                random(&mut rng, 2048, false),
                random(&mut rng, 2400, false),
                m.reduce(&random(&mut rng, 2100, false)),
            ] {
                for e in [
                    Int::from_be(&[0]),
                    Int::from_be(&[1]),
                    Int::from_be(&[3]),
                    Int::from_be(&[1, 0, 1]),
                    Int::from_be(&[0xff; 128]),
                    random(&mut rng, 1022, true),
                ] {
                    let ours = m
                        .pow_public_ifma(&x, &e)
                        .unwrap_or_else(|| panic!("no answer")); // ok: test
                    let input = m.engine_input(&x);
                    let portable = engine
                        .pow_public(input.0.as_words(), e.0.as_words())
                        .map(|w| m.engine_output(w))
                        .unwrap_or_else(|| panic!("portable")); // ok: test
                    assert!(bool::from(ours.ct_eq(&portable)), "{}", n.bits_vartime());
                    cases += 1;
                }
            }
        }
        // The 1024-bit class is not this kernel's.
        let small = Modulus::new_public(&random(&mut rng, 1024, true)).unwrap_or_else(|| panic!()); // ok: test
        assert!(small
            .pow_public_ifma(&Int::from_be(&[2]), &Int::from_be(&[3]))
            .is_none());
        println!("ifma_public_equals_portable: {cases} cases equal");
    }

    /// The engine itself answers (a refusal would fall back to crypto-bigint and give the same
    /// value, so the comparison above cannot see it): for a modulus that fills its class and one
    /// that does not, the engine's input (a wide one reduced first) is taken by both
    /// exponentiations and gives crypto-bigint's value; an input of more words than the class,
    /// an unknown class and a modulus or `R^2` longer than the class are refused.
    #[test]
    fn engine_answers_and_refuses_oversized_operands() {
        let mut rng = rand::rng();
        for bits in [1024, 1100, 2048] {
            let n = random(&mut rng, bits, true);
            let modulus = Modulus::new_secret(&n).unwrap_or_else(|| panic!("{bits}")); // ok: test
            let Some(engine) = modulus.mont.as_ref() else {
                panic!("{bits}: no engine") // ok: test
            };
            let k = mont::Mont::class(n.0.as_words().len()).unwrap_or_else(|| panic!("{bits}")); // ok: test
            let e = random(&mut rng, 80, true);
            for x in [
                modulus.reduce(&random(&mut rng, bits + 64, false)),
                random(&mut rng, bits + 300, false),
            ] {
                let expected = Int(modulus.monty(&x).pow(&e.0).retrieve());
                let input = modulus.engine_input(&x);
                assert!(input.0.as_words().len() <= k, "{bits}");
                for ours in [
                    engine.pow_secret(input.0.as_words(), e.0.as_words()),
                    engine.pow_public(input.0.as_words(), e.0.as_words()),
                ] {
                    let ours = modulus.engine_output(ours.unwrap_or_else(|| panic!("{bits}"))); // ok: test
                    assert!(bool::from(ours.ct_eq(&expected)), "{bits}");
                }
            }
            // A full class of words is taken, one more is refused.
            let full = vec![1; k];
            assert!(engine.pow_secret(&full, e.0.as_words()).is_some());
            assert!(engine.pow_public(&full, e.0.as_words()).is_some());
            let over = vec![1; k + 1];
            assert!(engine.pow_secret(&over, e.0.as_words()).is_none());
            assert!(engine.pow_public(&over, e.0.as_words()).is_none());
            // The constructor: a class, and operands of at most its words.
            let m = n.0.as_words();
            let r2 = vec![1; k];
            assert!(mont::Mont::new(k, m, &r2).is_some());
            assert!(mont::Mont::new(k + 1, m, &r2).is_none());
            assert!(mont::Mont::new(k, &vec![1; k + 1], &r2).is_none());
            assert!(mont::Mont::new(k, m, &vec![1; k + 1]).is_none());
        }
        let wb = crypto_bigint::Word::BITS as usize;
        assert_eq!(mont::Mont::class(1), Some(1024 / wb));
        assert_eq!(mont::Mont::class(4096 / wb), Some(4096 / wb));
        assert_eq!(mont::Mont::class(4096 / wb + 1), None);
    }
}
