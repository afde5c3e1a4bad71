//! Word arithmetic, big-endian codecs and the trait impls shared by the crate's own field
//! elements ([`P256Fe`](super::P256Fe), [`P384Fe`](super::P384Fe)): little-endian 64-bit limbs,
//! every helper branch-free.

use subtle::{Choice, ConstantTimeEq};

/// `acc + a * b + carry`: the low word and the carry word.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
pub(super) const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (acc as u128) + (a as u128) * (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// `acc + a * b + carry` on wasm32, which has no 64 x 64 -> 128 multiply: a `u128` product there
/// is a call to compiler-builtins' `__multi3` (a full 128 x 128 multiply), several times slower
/// than [`mac_split`]'s four `i64.mul`.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
pub(super) const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    mac_split(acc, a, b, carry)
}

/// `acc + a * b + carry` from four 32 x 32 -> 64 products, without `u128` (branch-free: the
/// carries are comparisons' bits). The portable `mac` on wasm32; on other targets it is checked
/// against the `u128` form (`mac_split_matches_u128`).
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
#[inline(always)]
pub(super) const fn mac_split(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    const M: u64 = 0xffff_ffff;
    let (a0, a1, b0, b1) = (a & M, a >> 32, b & M, b >> 32);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    // Below 3 * 2^32: no overflow.
    let mid = (p00 >> 32) + (p01 & M) + (p10 & M);
    let lo = (p00 & M) | (mid << 32);
    let hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    // + acc + carry; the full result is below 2^128, so `hi` takes both carries without overflow.
    let (lo, c1) = lo.overflowing_add(acc);
    let (lo, c2) = lo.overflowing_add(carry);
    (lo, hi + c1 as u64 + c2 as u64)
}

/// `a + b + carry`: the sum word and the carry.
#[inline(always)]
pub(super) const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128) + (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// `a - b - borrow` where `borrow` is 0 or 1; returns the difference and the new borrow (0/1).
#[inline(always)]
pub(super) const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub((b as u128) + (borrow as u128));
    (t as u64, ((t >> 64) as u64) & 1)
}

/// The second half of a squaring: `2 t + sum a[i]^2 2^(128 i)`, where `t` (`W = 2 N` limbs)
/// holds the cross products `sum_{i<j} a[i] a[j] 2^(64 (i + j))` (below `2^(128 N - 1)`).
#[inline(always)]
pub(super) const fn double_add_squares<const W: usize, const N: usize>(
    mut t: [u64; W],
    a: &[u64; N],
) -> [u64; W] {
    let mut top = 0u64;
    let mut i = 1;
    while i < W {
        let next = t[i] >> 63;
        t[i] = (t[i] << 1) | top;
        top = next;
        i += 1;
    }
    let mut c = 0;
    let mut i = 0;
    while i < N {
        let (x, cc) = mac(t[2 * i], a[i], a[i], c);
        t[2 * i] = x;
        let (x, cc2) = adc(t[2 * i + 1], cc, 0);
        t[2 * i + 1] = x;
        c = cc2;
        i += 1;
    }
    t
}

/// `a / 2 mod p` for `a < p` and an odd `p`: `a + p` when `a` is odd (below `2p`, with its
/// carry word), then shifted right by one. Constant time: the mask passes through `black_box`,
/// without which the compiler branched on the low bit (the valgrind check saw it).
#[inline(always)]
pub(super) fn half_mod<const N: usize>(a: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let mask = core::hint::black_box((a[0] & 1).wrapping_neg());
    let mut v = [0u64; N];
    let mut carry = 0;
    for i in 0..N {
        let (x, c) = adc(a[i], p[i] & mask, carry);
        v[i] = x;
        carry = c;
    }
    let mut r = [0u64; N];
    for i in 0..N - 1 {
        r[i] = (v[i] >> 1) | (v[i + 1] << 63);
    }
    r[N - 1] = (v[N - 1] >> 1) | (carry << 63);
    r
}

/// Little-endian limbs of a big-endian encoding of `8 * N` bytes.
pub(super) fn from_be<const N: usize>(bytes: &[u8]) -> [u64; N] {
    let mut l = [0u64; N];
    for (limb, chunk) in l.iter_mut().zip(bytes.rchunks_exact(8)) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        *limb = u64::from_be_bytes(w);
    }
    l
}

/// The big-endian encoding of little-endian limbs into `out` (`8 * N` bytes).
pub(super) fn to_be<const N: usize>(l: &[u64; N], out: &mut [u8]) {
    for (limb, chunk) in l.iter().zip(out.rchunks_exact_mut(8)) {
        chunk.copy_from_slice(&limb.to_be_bytes());
    }
}

/// Whether `l < p`, constant time (`l - p` borrows).
pub(super) fn below<const N: usize>(l: &[u64; N], p: &[u64; N]) -> Choice {
    let mut borrow = 0;
    for (x, p) in l.iter().zip(p.iter()) {
        borrow = sbb(*x, *p, borrow).1;
    }
    Choice::from(borrow as u8)
}

/// Whether every limb is zero, constant time.
#[inline(always)]
pub(super) fn is_zero<const N: usize>(l: &[u64; N]) -> Choice {
    l.iter().fold(0u64, |acc, x| acc | x).ct_eq(&0)
}

/// What both fields have in common, for `$fe([u64; N])` with the modulus `$p`, encodings of
/// `$len = 8 N` bytes and the limb routines `$add`, `$sub`, `$mul` (`fn(&[u64; N], &[u64; N]) ->
/// [u64; N]`) and `$sqr`: the strict codec, `square`, `double`, `negate`, `is_zero`, `is_odd`,
/// `Debug` (the canonical encoding), constant-time selection and equality, `Eq`,
/// `DefaultIsZeroes`, the arithmetic operators by value and by reference, and negation. The
/// type provides `from_canonical_limbs` and `to_canonical_limbs`.
macro_rules! field_impls {
    ($fe:ident, $len:literal, $p:expr, $add:path, $sub:path, $mul:path, $sqr:path, $const_sub:path) => {
        impl $fe {
            #[doc = concat!("Strict decoding of ", stringify!($len), " big-endian bytes; `None` unless the value is below `p`.")]
            pub fn from_bytes(bytes: &[u8; $len]) -> subtle::CtOption<Self> {
                let l = $crate::group::limbs::from_be(bytes);
                let canonical = $crate::group::limbs::below(&l, &$p);
                subtle::CtOption::new(Self::from_canonical_limbs(l), canonical)
            }

            #[doc = concat!("The canonical ", stringify!($len), "-byte big-endian encoding.")]
            pub fn to_bytes(&self) -> [u8; $len] {
                let mut out = [0u8; $len];
                $crate::group::limbs::to_be(&self.to_canonical_limbs(), &mut out);
                out
            }

            /// `self^2`.
            #[inline(always)]
            pub fn square(&self) -> Self {
                Self($sqr(&self.0))
            }

            /// `2 * self`.
            #[inline(always)]
            pub fn double(&self) -> Self {
                Self($add(&self.0, &self.0))
            }

            /// `self / 2`.
            #[inline(always)]
            pub fn half(&self) -> Self {
                Self($crate::group::limbs::half_mod(&self.0, &$p))
            }

            /// `4 * self` (two doublings).
            #[inline(always)]
            pub fn times4(&self) -> Self {
                Self(times4(&self.0))
            }

            /// `8 * self` (three doublings).
            #[inline(always)]
            pub fn times8(&self) -> Self {
                Self(times8(&self.0))
            }

            /// `2 (x : y : z)` on the `a = -3` curve over this field by the backend's fused
            /// doubling, where it runs (see `runtime_ops`); `None` otherwise.
            #[inline(always)]
            pub(crate) fn fused_double(x: &Self, y: &Self, z: &Self) -> Option<[Self; 3]> {
                fused_double_limbs(&x.0, &y.0, &z.0).map(|v| v.map(Self))
            }

            /// `(x : y : z) + (qx, qy)` (`X3`, `Y3`, `Z3`, `H`, `r`) by the backend's fused
            /// mixed addition, where it runs (see `runtime_ops`); `None` otherwise.
            #[inline(always)]
            pub(crate) fn fused_madd(p: [&Self; 3], q: [&Self; 2]) -> Option<[Self; 5]> {
                fused_madd_limbs(p.map(|c| &c.0), q.map(|c| &c.0)).map(|v| v.map(Self))
            }

            /// `(x1 : y1 : z1) + (x2 : y2 : z2)` (`X3`, `Y3`, `Z3`, `H`, `r`) by the backend's
            /// fused addition, where it runs (see `runtime_ops`); `None` otherwise.
            #[inline(always)]
            pub(crate) fn fused_add(p: [&Self; 3], q: [&Self; 3]) -> Option<[Self; 5]> {
                fused_add_limbs(p.map(|c| &c.0), q.map(|c| &c.0)).map(|v| v.map(Self))
            }

            /// `(x1 : y1 : z) + (x2 : y2 : z)` (`X3`, `Y3`, `Z3`, `W1`, `A1`) by the backend's
            /// fused co-Z addition, where it runs (see `runtime_ops`); `None` otherwise.
            #[inline(always)]
            pub(crate) fn fused_zaddu(p: [&Self; 2], q: [&Self; 2], z: &Self) -> Option<[Self; 5]> {
                fused_zaddu_limbs(p.map(|c| &c.0), q.map(|c| &c.0), &z.0).map(|v| v.map(Self))
            }

            /// `-self` in a `const` context (the portable code; `-x` at run time takes the
            /// selected backend).
            #[inline(always)]
            pub const fn negate(&self) -> Self {
                Self($const_sub(&[0; $len / 8], &self.0))
            }

            /// Whether this is zero.
            #[inline(always)]
            pub fn is_zero(&self) -> subtle::Choice {
                $crate::group::limbs::is_zero(&self.0)
            }

            /// Whether the canonical value is odd.
            pub fn is_odd(&self) -> subtle::Choice {
                subtle::Choice::from((self.to_canonical_limbs()[0] & 1) as u8)
            }
        }

        impl core::fmt::Debug for $fe {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}(0x", stringify!($fe))?;
                for b in self.to_bytes() {
                    write!(f, "{b:02x}")?;
                }
                write!(f, ")")
            }
        }

        impl subtle::ConditionallySelectable for $fe {
            #[inline(always)]
            fn conditional_select(a: &Self, b: &Self, choice: subtle::Choice) -> Self {
                let mask = core::hint::black_box(0u64.wrapping_sub(u64::from(choice.unwrap_u8())));
                let mut out = a.0;
                for (o, y) in out.iter_mut().zip(b.0.iter()) {
                    *o ^= mask & (*o ^ y);
                }
                Self(out)
            }

            #[inline(always)]
            fn conditional_assign(&mut self, other: &Self, choice: subtle::Choice) {
                let mask = core::hint::black_box(0u64.wrapping_sub(u64::from(choice.unwrap_u8())));
                for (x, y) in self.0.iter_mut().zip(other.0.iter()) {
                    *x ^= mask & (*x ^ y);
                }
            }
        }

        impl subtle::ConstantTimeEq for $fe {
            #[inline]
            fn ct_eq(&self, other: &Self) -> subtle::Choice {
                let acc = self
                    .0
                    .iter()
                    .zip(other.0.iter())
                    .fold(0u64, |acc, (a, b)| acc | (a ^ b));
                subtle::ConstantTimeEq::ct_eq(&acc, &0)
            }
        }

        impl PartialEq for $fe {
            fn eq(&self, other: &Self) -> bool {
                subtle::ConstantTimeEq::ct_eq(self, other).into()
            }
        }

        impl Eq for $fe {}

        impl zeroize::DefaultIsZeroes for $fe {}

        $crate::group::limbs::field_impls!(@binop $fe, Add, add, AddAssign, add_assign, $add);
        $crate::group::limbs::field_impls!(@binop $fe, Sub, sub, SubAssign, sub_assign, $sub);
        $crate::group::limbs::field_impls!(@binop $fe, Mul, mul, MulAssign, mul_assign, $mul);

        impl core::ops::Neg for $fe {
            type Output = $fe;
            #[inline(always)]
            fn neg(self) -> $fe {
                $fe($sub(&[0; $len / 8], &self.0))
            }
        }

        impl core::ops::Neg for &$fe {
            type Output = $fe;
            #[inline(always)]
            fn neg(self) -> $fe {
                $fe($sub(&[0; $len / 8], &self.0))
            }
        }
    };
    (@binop $fe:ident, $tr:ident, $f:ident, $assign_tr:ident, $assign_f:ident, $op:path) => {
        impl core::ops::$tr for $fe {
            type Output = $fe;
            #[inline(always)]
            fn $f(self, rhs: $fe) -> $fe {
                $fe($op(&self.0, &rhs.0))
            }
        }
        impl core::ops::$tr<&$fe> for $fe {
            type Output = $fe;
            #[inline(always)]
            fn $f(self, rhs: &$fe) -> $fe {
                $fe($op(&self.0, &rhs.0))
            }
        }
        impl core::ops::$tr<&$fe> for &$fe {
            type Output = $fe;
            #[inline(always)]
            fn $f(self, rhs: &$fe) -> $fe {
                $fe($op(&self.0, &rhs.0))
            }
        }
        impl core::ops::$assign_tr for $fe {
            #[inline(always)]
            fn $assign_f(&mut self, rhs: $fe) {
                self.0 = $op(&self.0, &rhs.0);
            }
        }
        impl core::ops::$assign_tr<&$fe> for $fe {
            #[inline(always)]
            fn $assign_f(&mut self, rhs: &$fe) {
                self.0 = $op(&self.0, &rhs.0);
            }
        }
    };
}

pub(super) use field_impls;

/// The run-time field routines of a field module, `mul`, `sqr`, `add` and `sub` on `[u64; $n]`:
/// the x86-64 backend's `Adx::$asm_mul` (and `_sqr`, `_add`, `_sub`) where the CPU has it, chosen
/// once per process by [`super::adx::get`], otherwise the module's portable `mont_mul`,
/// `mont_sqr`, `add_mod` and `sub_mod` (the product and square out of line, so that each call
/// site inlines only the selected routine).
macro_rules! runtime_ops {
    ($n:literal, $asm_mul:ident, $asm_sqr:ident, $asm_add:ident, $asm_sub:ident, $asm_double:ident, $asm_madd:ident, $asm_add_points:ident, $asm_zaddu:ident) => {
        /// The run-time product (see [`super::limbs::runtime_ops`]).
        #[inline(always)]
        fn mul(a: &[u64; $n], b: &[u64; $n]) -> [u64; $n] {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return adx.$asm_mul(a, b);
            }
            portable_mul(a, b)
        }

        /// The run-time square.
        #[inline(always)]
        fn sqr(a: &[u64; $n]) -> [u64; $n] {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return adx.$asm_sqr(a);
            }
            portable_sqr(a)
        }

        /// The run-time sum.
        #[inline(always)]
        fn add(a: &[u64; $n], b: &[u64; $n]) -> [u64; $n] {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return adx.$asm_add(a, b);
            }
            add_mod(a, b)
        }

        /// The run-time difference.
        #[inline(always)]
        fn sub(a: &[u64; $n], b: &[u64; $n]) -> [u64; $n] {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return adx.$asm_sub(a, b);
            }
            sub_mod(a, b)
        }

        /// `4 a`: two run-time doublings (public API only: no point formula multiplies by 4
        /// since the halved doubling, and the backends' own `times4` folds were retired).
        #[inline(always)]
        fn times4(a: &[u64; $n]) -> [u64; $n] {
            let d = add(a, a);
            add(&d, &d)
        }

        /// `8 a`: three run-time doublings (as [`times4`]).
        #[inline(always)]
        fn times8(a: &[u64; $n]) -> [u64; $n] {
            let d = times4(a);
            add(&d, &d)
        }

        /// `2 (x : y : z)` by the backend's fused doubling where it runs; `None` selects the
        /// generic formula (`point::double_formula`) on the portable routines.
        #[inline(always)]
        fn fused_double_limbs(
            x: &[u64; $n],
            y: &[u64; $n],
            z: &[u64; $n],
        ) -> Option<[[u64; $n]; 3]> {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return Some(adx.$asm_double([x, y, z]));
            }
            let _ = (x, y, z);
            None
        }

        /// `(x : y : z) + (qx, qy)` without exceptional cases by the backend's fused mixed
        /// addition where it runs (`X3`, `Y3`, `Z3`, `H`, `r`); `None` selects the generic
        /// formula (`point::madd_formula`) on the portable routines.
        #[inline(always)]
        fn fused_madd_limbs(p: [&[u64; $n]; 3], q: [&[u64; $n]; 2]) -> Option<[[u64; $n]; 5]> {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return Some(adx.$asm_madd([p[0], p[1], p[2], q[0], q[1]]));
            }
            let _ = (p, q);
            None
        }

        /// `(x1 : y1 : z1) + (x2 : y2 : z2)` without exceptional cases by the backend's fused
        /// addition where it runs (`X3`, `Y3`, `Z3`, `H`, `r`); `None` selects the generic
        /// formula (`point::add_formula`) on the portable routines.
        #[inline(always)]
        fn fused_add_limbs(p: [&[u64; $n]; 3], q: [&[u64; $n]; 3]) -> Option<[[u64; $n]; 5]> {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return Some(adx.$asm_add_points([p[0], p[1], p[2], q[0], q[1], q[2]]));
            }
            let _ = (p, q);
            None
        }

        /// `(x1 : y1 : z) + (x2 : y2 : z)` without exceptional cases by the backend's fused
        /// co-Z addition where it runs (`X3`, `Y3`, `Z3`, `W1`, `A1`); `None` selects the
        /// generic formula (`point::zaddu_formula`) on the portable routines.
        #[inline(always)]
        fn fused_zaddu_limbs(
            p: [&[u64; $n]; 2],
            q: [&[u64; $n]; 2],
            z: &[u64; $n],
        ) -> Option<[[u64; $n]; 5]> {
            #[cfg(target_arch = "x86_64")]
            if let Some(adx) = super::adx::get() {
                return Some(adx.$asm_zaddu([p[0], p[1], q[0], q[1], z]));
            }
            let _ = (p, q, z);
            None
        }

        /// The portable product out of line.
        #[inline(never)]
        fn portable_mul(a: &[u64; $n], b: &[u64; $n]) -> [u64; $n] {
            mont_mul(a, b)
        }

        /// The portable square out of line.
        #[inline(never)]
        fn portable_sqr(a: &[u64; $n]) -> [u64; $n] {
            mont_sqr(a)
        }

        /// The portable routines and the modulus, the oracle of the backend tests.
        #[cfg(test)]
        pub(super) mod portable {
            pub(in crate::group) use super::{add_mod, mont_mul, mont_sqr, sub_mod, P};

            /// Whether little-endian limbs are below `p`.
            pub(in crate::group) fn below_p(v: &[u64; $n]) -> bool {
                bool::from($crate::group::limbs::below(v, &P))
            }

            /// The backend's two-operand routines beside their portable oracles.
            #[cfg(target_arch = "x86_64")]
            pub(in crate::group) const BINARY: [(
                &str,
                fn($crate::group::adx::Adx, &[u64; $n], &[u64; $n]) -> [u64; $n],
                fn(&[u64; $n], &[u64; $n]) -> [u64; $n],
            ); 3] = [
                ("mul", $crate::group::adx::Adx::$asm_mul, mont_mul),
                ("add", $crate::group::adx::Adx::$asm_add, add_mod),
                ("sub", $crate::group::adx::Adx::$asm_sub, sub_mod),
            ];

            /// The backend's one-operand routines beside their portable oracles.
            #[cfg(target_arch = "x86_64")]
            pub(in crate::group) const UNARY: [(
                &str,
                fn($crate::group::adx::Adx, &[u64; $n]) -> [u64; $n],
                fn(&[u64; $n]) -> [u64; $n],
            ); 1] = [("sqr", $crate::group::adx::Adx::$asm_sqr, mont_sqr)];
        }
    };
}

pub(super) use runtime_ops;

/// Checks shared by both fields' unit tests, against the curve crate's field element.
#[cfg(test)]
pub(super) mod checks {
    use elliptic_curve::ff::{Field, PrimeField};
    use subtle::Choice;

    use crate::group::field::TestField;

    /// Every operation agrees with the curve crate on random inputs, the edges 0, 1, 2, `p - 1`,
    /// `p - 2`, `2^64 - 1` and the given `extra` values, and on all pairs of the first 30.
    pub(crate) fn agrees_with_the_curve_crate<F: TestField>(extra: &[F::Crate]) {
        let mut rng = rand::rng();
        let one = F::Crate::ONE;
        let mut inputs = vec![
            F::Crate::ZERO,
            one,
            -one,
            -one.double(),
            one.double(),
            F::Crate::from(u64::MAX),
        ];
        inputs.extend_from_slice(extra);
        inputs.extend((0..300).map(|_| crate::group::field::random_crate_fe::<F::Crate>(&mut rng)));
        assert_eq!(F::from_crate(&one), F::ONE);
        assert_eq!(F::from_crate(&F::Crate::ZERO), F::ZERO);
        for a in &inputs {
            let oa = F::from_crate(a);
            assert_eq!(oa.to_crate(), *a);
            assert_eq!(oa.square().to_crate(), a.square());
            assert_eq!(oa.double().to_crate(), a.double());
            assert_eq!(oa.half().double().to_crate(), *a);
            assert_eq!(oa.times4().to_crate(), a.double().double());
            assert_eq!(oa.times8().to_crate(), a.double().double().double());
            assert_eq!((-oa).to_crate(), -*a);
            assert_eq!(bool::from(oa.is_odd()), bool::from(a.is_odd()));
            assert_eq!(bool::from(oa.is_zero()), bool::from(a.is_zero()));
            for b in inputs.iter().take(30) {
                let ob = F::from_crate(b);
                assert_eq!((oa * ob).to_crate(), *a * b);
                assert_eq!((oa + ob).to_crate(), *a + b);
                assert_eq!((oa - ob).to_crate(), *a - b);
                assert_eq!(bool::from(oa.ct_eq(&ob)), a == b);
            }
        }
    }

    /// Products and sums that land on small values and on `p - k`, and products whose
    /// Montgomery limbs are small (the values `k R^-1`): their unreduced form is `t` or `t + p`
    /// (for the raw ones `k` or `k + p`, which is below `2^(64 N)`), so about half of them go
    /// through the final subtraction, some with no carry out of the top limb (rare for random
    /// inputs). `seen` is called with the operands of every product.
    pub(crate) fn results_next_to_zero_and_p<F: TestField>(mut seen: impl FnMut(&F, &F)) {
        let mut rng = rand::rng();
        let one = F::Crate::ONE;
        let bits = 8 * F::Crate::ZERO.to_repr().as_ref().len() as u64;
        // ok: 2^bits is a power of 2, invertible modulo the odd prime p.
        let r_inv = F::Crate::from(2).pow_vartime([bits]).invert().unwrap();
        let targets: Vec<F::Crate> = (0..20u64)
            .map(F::Crate::from)
            .chain((1..20u64).map(|k| -F::Crate::from(k)))
            // ok: 2 is invertible modulo the odd prime p.
            .chain([one.double().invert().unwrap()])
            .chain((1..20u64).map(|k| F::Crate::from(k) * r_inv))
            .collect();
        for _ in 0..50 {
            let a = crate::group::field::random_crate_fe::<F::Crate>(&mut rng);
            // ok: a random element is zero with probability 1/p (test-only code).
            let a_inv = a.invert().unwrap();
            for t in &targets {
                let b = *t * a_inv;
                let (oa, ob, ot) = (F::from_crate(&a), F::from_crate(&b), F::from_crate(t));
                assert_eq!(oa * ob, ot);
                assert_eq!((oa * ob).to_crate(), a * b);
                seen(&oa, &ob);
                let c = F::from_crate(&(*t - a));
                assert_eq!(oa + c, ot);
                assert_eq!(ot - c, oa);
            }
        }
        for t in &targets {
            // Squares landing on t: only where t is a square.
            if let Some(r) = Option::<F::Crate>::from(t.sqrt()) {
                assert_eq!(F::from_crate(&r).square(), F::from_crate(t));
                assert_eq!(F::from_crate(&-r).square(), F::from_crate(t));
            }
        }
    }

    /// `x + k` on big-endian bytes (wrapping).
    fn be_add(x: &[u8], mut k: u64) -> Vec<u8> {
        let mut out = x.to_vec();
        for b in out.iter_mut().rev() {
            let s = u64::from(*b) + (k & 0xff);
            *b = s as u8;
            k = (k >> 8) + (s >> 8);
        }
        out
    }

    /// Strict decoding: `p`, `p + 1`, `p + 2^64` and all-ones are rejected, `p - 1` is accepted
    /// and encodes back; acceptance agrees with the curve crate next to `p` and `2^(8L)`.
    pub(crate) fn strict_decoding<F: TestField>() {
        let repr = |bytes: &[u8]| {
            let mut r = F::Repr::default();
            r.as_mut().copy_from_slice(bytes);
            r
        };
        let pm1 = (-F::Crate::ONE).to_repr().as_ref().to_vec();
        let p = be_add(&pm1, 1);
        let len = pm1.len();
        for bad in [
            p.clone(),
            be_add(&p, 1),
            be_add(&p, 1 << 32),
            be_add(&p, u64::MAX),
            vec![0xff; len],
        ] {
            assert!(bool::from(F::from_repr(repr(&bad)).is_none()));
        }
        // ok: p - 1 is below p, a canonical encoding.
        let minus_one = F::from_repr(repr(&pm1)).unwrap();
        assert_eq!(minus_one, -F::ONE);
        assert_eq!(minus_one.to_repr().as_ref(), pm1.as_slice());
        let top = vec![0xff; len];
        for base in [&pm1, &p, &top] {
            for k in 0..4u64 {
                let v = repr(&be_add(base, k.wrapping_neg()));
                assert_eq!(
                    bool::from(F::from_repr(v).is_some()),
                    bool::from(F::Crate::from_repr(v).is_some())
                );
            }
        }
    }

    /// Selection, assignment and small constants.
    pub(crate) fn select_and_constants<F: TestField>() {
        let a = F::from_small(5);
        let b = F::ONE;
        assert_eq!(F::conditional_select(&a, &b, Choice::from(0)), a);
        assert_eq!(F::conditional_select(&a, &b, Choice::from(1)), b);
        let mut c = a;
        c.conditional_assign(&b, Choice::from(1));
        assert_eq!(c, b);
        c.conditional_assign(&a, Choice::from(0));
        assert_eq!(c, b);
        assert_eq!(b + b + b + b + b, a);
        assert_eq!(b.double().double() + b, a);
    }
}

#[cfg(test)]
mod mac_tests {
    use super::mac_split;

    /// The wasm32 `mac` (four 32-bit products) equals the `u128` form on the word edges (every
    /// carry of its sums taken and not) and random words.
    #[test]
    fn mac_split_matches_u128() {
        let edges = [
            0,
            1,
            2,
            0xffff_ffff,
            1 << 32,
            (1 << 32) + 1,
            u64::MAX / 2,
            u64::MAX - 1,
            u64::MAX,
        ];
        let mut words: Vec<u64> = edges.to_vec();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..40 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            words.push(x);
        }
        for &acc in &words {
            for &a in &words {
                for &b in &words {
                    for carry in [0, 1, u64::MAX, acc ^ b] {
                        let t = (acc as u128) + (a as u128) * (b as u128) + (carry as u128);
                        assert_eq!(mac_split(acc, a, b, carry), (t as u64, (t >> 64) as u64));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod half_tests {
    use super::{adc, half_mod};
    use crate::group::{p256_field, p384_field};

    /// `half_mod` on the boundaries of its three data cases, both fields (raw limbs, `c = 2^(64
    /// N) - p`): even (0, 2, `p - 1`, `c - 1`), odd with `a + p` below `2^(64 N)` (1, 3, `c - 2`:
    /// no carry out of the top limb, the case random inputs reach with probability `c / p`), odd
    /// with the carry (`c`, where `a + p = 2^(64 N)` exactly; `p - 2`). The result is below `p`
    /// and doubles back to `a` (the modular addition, checked against the curve crates).
    fn boundaries<const N: usize>(p: &[u64; N], add: fn(&[u64; N], &[u64; N]) -> [u64; N]) {
        let minus = |x: &[u64; N], d: u64| {
            let mut v = *x;
            let mut borrow = d;
            for w in v.iter_mut() {
                let (r, b) = w.overflowing_sub(borrow);
                *w = r;
                borrow = u64::from(b);
            }
            v
        };
        let small = |x: u64| core::array::from_fn::<u64, N, _>(|i| if i == 0 { x } else { 0 });
        // c = !p + 1 (no carry out of word 0 on either curve).
        let c: [u64; N] = core::array::from_fn(|i| (!p[i]).wrapping_add(u64::from(i == 0)));
        let cases = [
            (small(0), "even"),
            (small(2), "even"),
            (minus(p, 1), "even"),
            (minus(&c, 1), "even"),
            (small(1), "odd without a carry"),
            (small(3), "odd without a carry"),
            (minus(&c, 2), "odd without a carry"),
            (c, "odd with a carry"),
            (minus(p, 2), "odd with a carry"),
        ];
        for (a, case) in cases {
            let mut carry = 0;
            for (x, y) in a.iter().zip(p.iter()) {
                carry = adc(*x, *y, carry).1;
            }
            let seen = match (a[0] & 1, carry) {
                (0, _) => "even",
                (_, 0) => "odd without a carry",
                _ => "odd with a carry",
            };
            assert_eq!(seen, case, "{a:x?}");
            let h = half_mod(&a, p);
            assert!(bool::from(super::below(&h, p)), "{a:x?}");
            assert_eq!(add(&h, &h), a, "{a:x?}");
        }
    }

    #[test]
    fn half_mod_on_the_boundaries() {
        boundaries(&p256_field::P, p256_field::portable::add_mod);
        boundaries(&p384_field::P, p384_field::portable::add_mod);
    }
}
