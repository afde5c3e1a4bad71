//! The RSA private operation's exponentiation on AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`):
//! `x^e mod m` for two 1024-bit moduli at once (the two CRT halves of an RSA-2048 key), selected
//! at run time.
//!
//! The portable engine (`blind_rsa::num`'s `mont`: 64-bit words, product scanning) stays the
//! fallback and the test oracle: the differential tests of `blind_rsa::num` compare the two on
//! random and edge inputs, per half, with different and equal moduli.
//!
//! The two kernels, [`amm2`] and [`lookup2`], are inline assembly (like `group::adx`), not
//! `core::arch` intrinsics: the AVX-512 intrinsics and target features are stable from Rust
//! 1.89, and the crate's MSRV is 1.88. The assembler takes the instructions without target
//! features; the [`Ifma`] token is what makes them safe to run.
//!
//! # Representation
//! A number below `2^1040` is 20 limbs of 52 bits (radix `2^52`), held in 24 64-bit lanes
//! (lanes 20 to 23 zero, 192 bytes aligned to 64 in memory): two `zmm` registers and a `ymm`
//! one for limbs 16 to 19. The modulus `m` is odd and below `2^1024`;
//! `R = 2^1040` is the Montgomery radix and `k0 = -m^-1 mod 2^52`.
//!
//! # Almost-Montgomery multiplication and its bounds
//! [`amm2`] computes `a b R^-1 mod m` without the final subtraction, operand scanning: for each
//! limb `b_i` the accumulator gets `a b_i` and `q m` with `q = (acc_0 k0) mod 2^52`, which
//! makes its lowest limb a multiple of `2^52`, and it is shifted down one limb (that limb's
//! top bits carried into the next). The result is `(a b + Q m) / R` with `Q < R`, so for
//! `a, b < 2m`: below `4 m^2 / R + m < 2m` because `4m < 2^1026 < R`. Every input and output
//! of the exponentiation therefore stays below `2m < 2^1025` (the input `x < 2^1024` is taken
//! once against `R^2 mod m < m`: below `2^1024 m / R + m < 2m` too).
//!
//! Lane bound before normalization: in each of the 20 rounds a lane receives at most four
//! terms below `2^52` (the low and high halves of `a_j b_i` and `m_j q`) and, in lane 0, the
//! carry `acc_0 >> 52`; a lane's content moves down one lane per round, so a lane ends with at
//! most 80 such terms plus the carries, below `81 * 2^52 < 2^59`, and no 64-bit lane
//! overflows. `vpmadd52*` read only the low 52 bits of their multiplicands, so the operands
//! are always normalized (limbs below `2^52`): [`amm2`] does that after each
//! multiplication, exactly (one carry round leaves limbs below `2^52 + 2^7`, so each carries
//! at most one more; the ripple of those carries through limbs equal to `2^52 - 1` is the
//! addition `((G << 1) + P) ^ P` of the generate and propagate lane masks, a carry-lookahead on
//! the masks: no branch). The value is below `2^1025` and every limb is non-negative, so limb 19 is below `2^37`
//! and nothing carries out of it (lanes 20 to 23 stay zero, and the `ymm` part loses nothing).
//!
//! The last multiplication, by 1, leaves Montgomery form: `(acc + Q m) / R < 2m / R + m`, so at
//! most `m` (exactly `m` only for `acc = 0 mod m`); one masked subtraction of `m` ([`finish`])
//! gives the reduced value, equal to the portable engine's.
//!
//! # The dual exponentiation
//! Fixed 5-bit windows from the top of the exponent's 1024 bits (205 windows, the top one 4
//! bits): five squarings, then a multiplication by the window's power, for both halves in the
//! same loop ([`amm2`] runs the two halves' rounds side by side: two independent dependency
//! chains, which hides the latency of the multiply-adds). A window's power is read from the
//! table of 32 powers by [`lookup2`]: every entry is loaded and kept only where a
//! `vpcmpeqq` mask of the public counter against the secret index is set (`vmovdqa64` under
//! that mask), so the addresses and the instructions do not depend on the index.
//!
//! # Constant time
//! No branch and no memory address depends on `m`, `x` or `e`: the loops run on public counts
//! (20 limbs, 32 entries, 205 windows), the exponent's windows are read at public positions,
//! the carry-lookahead and the final subtraction are integer arithmetic and masks. The vector
//! instructions used (`vpmadd52luq`, `vpmadd52huq`, `valignq`, `vpbroadcastq`, `vmovq`,
//! `vpsrlq`, `vpandq`, `vpxord`, `vpternlogq`, `vpaddq`, `vpsubq` with and without a mask,
//! `vpcmpuq`, `vpcmpeqq`, `vmovdqa64` with and without a mask, `kmovw`) run in time independent
//! of their operands on the cores that have them. The 2048-bit public-exponent routine
//! ([`Ifma::pow_public_2048_vartime`]) branches on the public exponent's bits only.
//!
//! Valgrind cannot execute AVX-512 and hides it from CPUID (checked: under valgrind 3 on this
//! Zen 4, `num::tests::ifma_pair_equals_portable` prints its skip line), so under
//! `tests/ct_valgrind.rs` this code is not selected and memcheck checks the portable engine;
//! were it ever selected there, the run would stop on an illegal instruction rather than pass
//! unchecked. The constant time of this path is therefore argued from the code above and
//! checked by the branch scan of the disassembly (`.ci/ct-branch-scan.py`: no hit in this
//! module but a loop tail on a slice length in `sub_if_ge`). The statistical timing check
//! (`examples/ct_check.rs`) has no RSA class yet.
//!
//! # Selection
//! [`get`] answers once per process whether the CPU has AVX-512F, AVX-512VL and AVX-512 IFMA
//! (`is_x86_feature_detected!` with `std`, the compile-time target features without it) and
//! caches the answer; `PRIVACY_TOKENS_ARITH=portable` or `=adx` set before the first private
//! operation turns it off. The answer is an [`Ifma`] token: holding one proves the
//! instructions exist, so the routines that take it are safe to call.

#![allow(unsafe_code)]

use zeroize::Zeroize;

/// The 64-bit words of a 1024-bit operand (the size class this backend serves).
pub(crate) const WORDS: usize = 16;
/// Limbs of 52 bits of a number below `2^1040`.
const LIMBS: usize = 20;
/// 64-bit lanes of the three registers holding a number.
const LANES: usize = 24;
/// `2^52 - 1`.
const MASK: u64 = (1 << 52) - 1;
/// The window of the exponentiation: 5 bits, a table of 32 powers.
const WINDOW: usize = 5;
/// Entries of the table.
const TABLE: usize = 1 << WINDOW;

/// Proof that the CPU runs AVX-512F, AVX-512VL and AVX-512 IFMA instructions, and the OS saves
/// the `zmm` and mask registers (obtained from [`get`] only).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ifma(());

#[cfg(feature = "std")]
mod detect {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet known; 1: available; 2: not available or forced off.
    static IFMA: AtomicU8 = AtomicU8::new(0);

    /// Probes the CPU (and the environment variable) once.
    #[cold]
    fn init() -> bool {
        let forced_off =
            std::env::var_os("PRIVACY_TOKENS_ARITH").is_some_and(|v| v == "portable" || v == "adx");
        let on = !forced_off
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512ifma");
        IFMA.store(if on { 1 } else { 2 }, Ordering::Relaxed);
        on
    }

    /// AVX-512F and AVX-512 IFMA, not forced off (cached).
    #[inline(always)]
    pub(super) fn available() -> bool {
        match IFMA.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => init(),
        }
    }
}

#[cfg(not(feature = "std"))]
mod detect {
    /// AVX-512F and AVX-512 IFMA as compile-time target features.
    #[inline(always)]
    pub(super) fn available() -> bool {
        cfg!(all(
            target_feature = "avx512f",
            target_feature = "avx512ifma"
        ))
    }
}

/// The IFMA token when the CPU has the instructions and they are not forced off
/// (`PRIVACY_TOKENS_ARITH=portable` or `=adx`); `None` selects the portable engine. Computed
/// once per process (public data).
#[inline(always)]
pub(crate) fn get() -> Option<Ifma> {
    detect::available().then_some(Ifma(()))
}

/// One half of a dual exponentiation, as little-endian 64-bit words (each at most [`WORDS`]
/// long, zero above): the odd modulus `m < 2^1024`, `rr = 2^2080 mod m` (`R^2` for
/// `R = 2^1040`), the base `x < 2^1024` and the secret exponent `e` (all [`WORDS`] words of it
/// are processed). All secret.
#[derive(Clone, Copy)]
pub(crate) struct Half<'a> {
    /// The modulus (odd).
    pub(crate) m: &'a [u64],
    /// `2^2080 mod m`.
    pub(crate) rr: &'a [u64],
    /// The base.
    pub(crate) x: &'a [u64],
    /// The exponent.
    pub(crate) e: &'a [u64],
}

impl Ifma {
    /// `x^e mod m` for both halves (the two CRT halves of the private operation), constant time
    /// in every value: each result as [`WORDS`] little-endian words, below its modulus. `None`
    /// when an operand has more than [`WORDS`] words (a public length). The modulus must be odd
    /// (a prime factor); for an even one the output is unspecified, without a panic.
    pub(crate) fn pow_secret_x2_1024(self, halves: [Half<'_>; 2]) -> Option<[[u64; WORDS]; 2]> {
        if halves
            .iter()
            .any(|h| h.m.len() > WORDS || h.rr.len() > WORDS || h.x.len() > WORDS)
            || halves.iter().any(|h| h.e.len() > WORDS)
        {
            return None;
        }
        let [a, b] = halves;
        let mut m64 = [words(a.m), words(b.m)];
        let mut e = [words(a.e), words(b.e)];
        let mut m = [to_limbs(&m64[0]), to_limbs(&m64[1])];
        let mut rr = [to_limbs(&words(a.rr)), to_limbs(&words(b.rr))];
        let mut x = [to_limbs(&words(a.x)), to_limbs(&words(b.x))];
        let k0 = [neg_inv52(m64[0][0]), neg_inv52(m64[1][0])];
        let mut out = pow2(self, &m, &rr, &x, &e, &k0);
        let result = [finish(&out[0], &m64[0]), finish(&out[1], &m64[1])];
        m64.zeroize();
        e.zeroize();
        for v in [&mut m, &mut rr, &mut x, &mut out] {
            v.zeroize();
        }
        Some(result)
    }
}

/// A number as 24 lanes of 52-bit limbs (20 used), 64-byte aligned: three `zmm` registers.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Limbs([u64; LANES]);

impl Limbs {
    /// Zero.
    const ZERO: Self = Self([0; LANES]);
}

impl Zeroize for Limbs {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

/// `x` as [`WORDS`] words (zero above its length; callers checked the length).
fn words(x: &[u64]) -> [u64; WORDS] {
    let mut out = [0; WORDS];
    for (o, w) in out.iter_mut().zip(x) {
        *o = *w;
    }
    out
}

/// 64-bit words to 52-bit limbs (public positions): `out[i]` is bits `52 i` to `52 i + 51` of
/// `x` (zero past its end), for every `i` of `out`.
fn pack52(x: &[u64], out: &mut [u64]) {
    for (i, o) in out.iter_mut().enumerate() {
        let (j, s) = (i * 52 / 64, i * 52 % 64);
        let lo = x.get(j).copied().unwrap_or(0);
        let hi = x.get(j + 1).copied().unwrap_or(0);
        *o = (((u128::from(hi) << 64) | u128::from(lo)) >> s) as u64 & MASK;
    }
}

/// 52-bit limbs (normalized) to 64-bit words (public positions): `out[j]` is bits `64 j` to
/// `64 j + 63` of the value.
fn unpack52(x: &[u64], out: &mut [u64]) {
    for (j, o) in out.iter_mut().enumerate() {
        let (i, s) = (j * 64 / 52, j * 64 % 52);
        let limb = |k: usize| u128::from(x.get(k).copied().unwrap_or(0));
        *o = ((limb(i) >> s) | (limb(i + 1) << (52 - s)) | (limb(i + 2) << (104 - s))) as u64;
    }
}

/// 64-bit words to the 1024-bit class's limbs.
fn to_limbs(x: &[u64; WORDS]) -> Limbs {
    let mut out = Limbs::ZERO;
    pack52(x, out.0.get_mut(..LIMBS).unwrap_or_default());
    out
}

/// `-m0^-1 mod 2^52` for an odd `m0` (Newton's iteration: each step doubles the correct low
/// bits; `m0` is its own inverse to 3 bits).
fn neg_inv52(m0: u64) -> u64 {
    let mut inv = m0;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
    }
    inv.wrapping_neg() & MASK
}

/// The exponentiation's output (normalized limbs, value at most `m`) as words below `m`.
fn finish(x: &Limbs, m: &[u64; WORDS]) -> [u64; WORDS] {
    let mut r = [0; WORDS];
    unpack52(&x.0, &mut r);
    sub_if_ge(&mut r, m);
    r
}

/// `r - m` if `r >= m`, else `r` (equal lengths), under a mask made from the borrow: constant
/// time.
fn sub_if_ge(r: &mut [u64], m: &[u64]) {
    let mut borrow = 0u64;
    for (&r, &m) in r.iter().zip(m) {
        let t = u128::from(r).wrapping_sub(u128::from(m) + u128::from(borrow));
        borrow = ((t >> 64) as u64) & 1;
    }
    // All ones when `r < m` (keep `r`), zero when `r >= m` (take `r - m`).
    let keep = core::hint::black_box(borrow.wrapping_neg());
    let mut borrow = 0u64;
    for (r, &m) in r.iter_mut().zip(m) {
        let t = u128::from(*r).wrapping_sub(u128::from(m) + u128::from(borrow));
        borrow = ((t >> 64) as u64) & 1;
        *r = (*r & keep) | (t as u64 & !keep);
    }
}

/// Assembly text: the 24-bit mask of the lanes of `$a0`, `$a1` (`zmm`), `$a2` (`ymm`) that
/// compare to `2^52 - 1` (in `zmm30`) by the `vpcmpuq` predicate `$pred` (6: greater, 0:
/// equal), in `$reg`; `k1`-`k3` and `r8d` are scratch.
#[rustfmt::skip]
macro_rules! lane_mask_1024 {
    ($a0:ident, $a1:ident, $a2:ident, $pred:literal, $reg:ident) => {
        concat!(
            "vpcmpuq k1, ", stringify!($a0), ", zmm30, ", $pred, "\n",
            "vpcmpuq k2, ", stringify!($a1), ", zmm30, ", $pred, "\n",
            "vpcmpuq k3, ", stringify!($a2), ", ymm30, ", $pred, "\n",
            "kmovw ", stringify!($reg), ", k1\n",
            "kmovw r8d, k2\n",
            "shl r8d, 8\n",
            "or ", stringify!($reg), ", r8d\n",
            "kmovw r8d, k3\n",
            "shl r8d, 16\n",
            "or ", stringify!($reg), ", r8d\n",
        )
    };
}

/// The normalization of a 1024-bit-class accumulator in registers (module docs), as assembly
/// text: the accumulator's parts `$a0`, `$a1` (`zmm`) and `$a2` (`ymm`), temporaries `$h0`,
/// `$h1` (`zmm`) and `$h2` (`ymm`, with `$h2z` its `zmm` name); `zmm30` holds `2^52 - 1`,
/// `zmm31` zero, `zmm14` all ones; `eax`, `edx`, `r8d` and `k1`-`k3` are scratch. One carry
/// round, the generate (`> 2^52 - 1`) and propagate (`= 2^52 - 1`) masks as 24-bit integers,
/// the carry-lookahead `((G << 1) + P) ^ P`, and its bits added under mask.
#[rustfmt::skip]
macro_rules! normalize_1024 {
    ($a0:ident, $a1:ident, $a2:ident, $h0:ident, $h1:ident, $h2:ident, $h2z:ident) => {
        concat!(
            "vpsrlq ", stringify!($h0), ", ", stringify!($a0), ", 52\n",
            "vpsrlq ", stringify!($h1), ", ", stringify!($a1), ", 52\n",
            "vpsrlq ", stringify!($h2), ", ", stringify!($a2), ", 52\n",
            "vpandq ", stringify!($a0), ", ", stringify!($a0), ", zmm30\n",
            "vpandq ", stringify!($a1), ", ", stringify!($a1), ", zmm30\n",
            "vpandq ", stringify!($a2), ", ", stringify!($a2), ", ymm30\n",
            "valignq ", stringify!($h2z), ", ", stringify!($h2z), ", ", stringify!($h1), ", 7\n",
            "valignq ", stringify!($h1), ", ", stringify!($h1), ", ", stringify!($h0), ", 7\n",
            "valignq ", stringify!($h0), ", ", stringify!($h0), ", zmm31, 7\n",
            "vpaddq ", stringify!($a0), ", ", stringify!($a0), ", ", stringify!($h0), "\n",
            "vpaddq ", stringify!($a1), ", ", stringify!($a1), ", ", stringify!($h1), "\n",
            "vpaddq ", stringify!($a2), ", ", stringify!($a2), ", ", stringify!($h2), "\n",
            lane_mask_1024!($a0, $a1, $a2, 6, eax),
            lane_mask_1024!($a0, $a1, $a2, 0, edx),
            "add eax, eax\n",
            "add eax, edx\n",
            "xor eax, edx\n",
            "kmovw k1, eax\n",
            "shr eax, 8\n",
            "kmovw k2, eax\n",
            "shr eax, 8\n",
            "kmovw k3, eax\n",
            "vpsubq ", stringify!($a0), " {{k1}}, ", stringify!($a0), ", zmm14\n",
            "vpsubq ", stringify!($a1), " {{k2}}, ", stringify!($a1), ", zmm14\n",
            "vpsubq ", stringify!($a2), " {{k3}}, ", stringify!($a2), ", ymm14\n",
            "vpandq ", stringify!($a0), ", ", stringify!($a0), ", zmm30\n",
            "vpandq ", stringify!($a1), ", ", stringify!($a1), ", zmm30\n",
            "vpandq ", stringify!($a2), ", ", stringify!($a2), ", ymm30",
        )
    };
}

/// Almost-Montgomery multiplication of both halves (module docs): `out[h] = a[h] b[h] R^-1
/// mod m[h]`, below `2 m[h]` for inputs below `2 m[h]`, normalized; `k0[h] = -m[h]^-1 mod 2^52`.
///
/// Registers: half 0 in `zmm0`-`zmm13`, half 1 in `zmm16`-`zmm29` (the accumulator, `a`, `m`,
/// the high products, `q`, a temporary; the third part of each number, lanes 16-23 of which
/// only 16-19 are used, in a `ymm` register), zero in `zmm31`, `2^52 - 1` in `zmm30`, all ones
/// in `zmm14`. `b`'s limbs are broadcast from memory (`{1to8}`), one per round; the 20 rounds
/// loop on a public counter. Then the normalization (module docs), for each half: one carry
/// round (`vpsrlq`, `vpandq`, `valignq` up one lane, `vpaddq`), the generate and propagate
/// masks (`vpcmpuq` greater than / equal to `2^52 - 1`) gathered into 24-bit integers
/// (`kmovw`, shifts), the carry-lookahead `((G << 1) + P) ^ P` in `eax`, and its bits added
/// under mask (`vpsubq` of all ones) before the final `vpandq`.
///
/// # Safety
/// The CPU has AVX-512F, VL and IFMA (an [`Ifma`] token exists); `a`, `b` and `m` point to
/// readable `[Limbs; 2]`, `k0` to two readable words, `out` to a writable `[Limbs; 2]`. `out`
/// may equal `a` and `b` (they are read before `out` is written: `a` and `m` at the start, `b`
/// during the rounds, `out` at the end), so a squaring and a product in place need no copy.
unsafe fn amm2_raw(
    out: *mut [Limbs; 2],
    a: *const [Limbs; 2],
    b: *const [Limbs; 2],
    m: *const [Limbs; 2],
    k0: *const [u64; 2],
) {
    // the caller's contract: the instructions exist; every memory operand is inside
    // the pointed arrays (`[Limbs; 2]` is 384 bytes aligned to 64, half 1 at offset 192, `b`'s
    // limbs read at offsets 0 to 152 of each half, `k0` 16 bytes); `out` is written only after
    // the last read of `a` and `b`. The vector and mask registers are declared clobbered
    // (`clobber_abi`), the general ones are operands; no stack use.
    // SAFETY: by the token, the bounds and the clobbers stated just above.
    unsafe {
        core::arch::asm!(
            "vpxord xmm31, xmm31, xmm31",
            "vpternlogq zmm14, zmm14, zmm14, 0xff",
            "vpsrlq zmm30, zmm14, 12",
            "vmovdqa64 zmm3, zmmword ptr [{a}]",
            "vmovdqa64 zmm4, zmmword ptr [{a} + 64]",
            "vmovdqa64 ymm5, ymmword ptr [{a} + 128]",
            "vmovdqa64 zmm19, zmmword ptr [{a} + 192]",
            "vmovdqa64 zmm20, zmmword ptr [{a} + 256]",
            "vmovdqa64 ymm21, ymmword ptr [{a} + 320]",
            "vmovdqa64 zmm6, zmmword ptr [{m}]",
            "vmovdqa64 zmm7, zmmword ptr [{m} + 64]",
            "vmovdqa64 ymm8, ymmword ptr [{m} + 128]",
            "vmovdqa64 zmm22, zmmword ptr [{m} + 192]",
            "vmovdqa64 zmm23, zmmword ptr [{m} + 256]",
            "vmovdqa64 ymm24, ymmword ptr [{m} + 320]",
            "vpxord xmm0, xmm0, xmm0",
            "vpxord xmm1, xmm1, xmm1",
            "vpxord xmm2, xmm2, xmm2",
            "vpxord xmm16, xmm16, xmm16",
            "vpxord xmm17, xmm17, xmm17",
            "vpxord xmm18, xmm18, xmm18",
            "2:",
            "vpxord xmm9, xmm9, xmm9",
            "vpxord xmm25, xmm25, xmm25",
            "vpxord xmm10, xmm10, xmm10",
            "vpxord xmm26, xmm26, xmm26",
            "vpxord xmm11, xmm11, xmm11",
            "vpxord xmm27, xmm27, xmm27",
            "vpxord xmm13, xmm13, xmm13",
            "vpxord xmm29, xmm29, xmm29",
            "vpmadd52luq zmm0, zmm3, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm16, zmm19, qword ptr [rsi + 192]{{1to8}}",
            "vpmadd52luq zmm1, zmm4, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm17, zmm20, qword ptr [rsi + 192]{{1to8}}",
            "vpmadd52luq ymm2, ymm5, qword ptr [rsi]{{1to4}}",
            "vpmadd52luq ymm18, ymm21, qword ptr [rsi + 192]{{1to4}}",
            "vpmadd52huq zmm9, zmm3, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm25, zmm19, qword ptr [rsi + 192]{{1to8}}",
            "vpmadd52huq zmm10, zmm4, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm26, zmm20, qword ptr [rsi + 192]{{1to8}}",
            "vpmadd52huq ymm11, ymm5, qword ptr [rsi]{{1to4}}",
            "vpmadd52huq ymm27, ymm21, qword ptr [rsi + 192]{{1to4}}",
            "vpmadd52luq zmm13, zmm0, qword ptr [{k0}]{{1to8}}",
            "vpmadd52luq zmm29, zmm16, qword ptr [{k0} + 8]{{1to8}}",
            "vpbroadcastq zmm12, xmm13",
            "vpbroadcastq zmm28, xmm29",
            "vpmadd52luq zmm0, zmm6, zmm12",
            "vpmadd52luq zmm16, zmm22, zmm28",
            "vpmadd52luq zmm1, zmm7, zmm12",
            "vpmadd52luq zmm17, zmm23, zmm28",
            "vpmadd52luq ymm2, ymm8, ymm12",
            "vpmadd52luq ymm18, ymm24, ymm28",
            "vpmadd52huq zmm9, zmm6, zmm12",
            "vpmadd52huq zmm25, zmm22, zmm28",
            "vpmadd52huq zmm10, zmm7, zmm12",
            "vpmadd52huq zmm26, zmm23, zmm28",
            "vpmadd52huq ymm11, ymm8, ymm12",
            "vpmadd52huq ymm27, ymm24, ymm28",
            "vmovq xmm13, xmm0",
            "vmovq xmm29, xmm16",
            "vpsrlq xmm13, xmm13, 52",
            "vpsrlq xmm29, xmm29, 52",
            "valignq zmm0, zmm1, zmm0, 1",
            "valignq zmm16, zmm17, zmm16, 1",
            "valignq zmm1, zmm2, zmm1, 1",
            "valignq zmm17, zmm18, zmm17, 1",
            "valignq ymm2, ymm31, ymm2, 1",
            "valignq ymm18, ymm31, ymm18, 1",
            "vpaddq zmm0, zmm0, zmm13",
            "vpaddq zmm16, zmm16, zmm29",
            "vpaddq zmm0, zmm0, zmm9",
            "vpaddq zmm16, zmm16, zmm25",
            "vpaddq zmm1, zmm1, zmm10",
            "vpaddq zmm17, zmm17, zmm26",
            "vpaddq ymm2, ymm2, ymm11",
            "vpaddq ymm18, ymm18, ymm27",
            "add rsi, 8",
            "dec ecx",
            "jnz 2b",
            normalize_1024!(zmm0, zmm1, ymm2, zmm9, zmm10, ymm11, zmm11),
            normalize_1024!(zmm16, zmm17, ymm18, zmm25, zmm26, ymm27, zmm27),
            "vmovdqa64 zmmword ptr [{out}], zmm0",
            "vmovdqa64 zmmword ptr [{out} + 64], zmm1",
            "vmovdqa64 zmmword ptr [{out} + 128], zmm2",
            "vmovdqa64 zmmword ptr [{out} + 192], zmm16",
            "vmovdqa64 zmmword ptr [{out} + 256], zmm17",
            "vmovdqa64 zmmword ptr [{out} + 320], zmm18",
            "vzeroupper",
            a = in(reg) a,
            inout("rsi") b => _,
            m = in(reg) m,
            k0 = in(reg) k0,
            out = in(reg) out,
            inout("rcx") LIMBS => _,
            out("rax") _,
            out("rdx") _,
            out("r8") _,
            clobber_abi("C"),
            options(nostack),
        );
    }
}

/// [`amm2_raw`] into a separate `out`: `out = a b R^-1`.
fn amm2(
    ifma: Ifma,
    out: &mut [Limbs; 2],
    a: &[Limbs; 2],
    b: &[Limbs; 2],
    m: &[Limbs; 2],
    k0: &[u64; 2],
) {
    let _ = ifma;
    // SAFETY: the token proves the instructions; the references are valid for the accesses.
    unsafe { amm2_raw(out, a, b, m, k0) }
}

/// [`amm2_raw`] in place: `acc = acc b R^-1`.
fn amm2_assign(ifma: Ifma, acc: &mut [Limbs; 2], b: &[Limbs; 2], m: &[Limbs; 2], k0: &[u64; 2]) {
    let _ = ifma;
    let acc: *mut [Limbs; 2] = acc;
    // SAFETY: the token proves the instructions; `acc` is read (as `a`), then written, through
    // the one unique borrow, which `amm2_raw` allows.
    unsafe { amm2_raw(acc, acc, b, m, k0) }
}

/// [`amm2_raw`] squaring in place: `acc = acc^2 R^-1`.
fn ams2_assign(ifma: Ifma, acc: &mut [Limbs; 2], m: &[Limbs; 2], k0: &[u64; 2]) {
    let _ = ifma;
    let acc: *mut [Limbs; 2] = acc;
    // SAFETY: as in `amm2_assign`, with `b` the same array as `a` and `out`.
    unsafe { amm2_raw(acc, acc, acc, m, k0) }
}

/// `out[h] = table[idx[h]][h]` by a scan of every entry (module docs): each entry is loaded
/// whole and moved into the result under a `vpcmpeqq` mask of the public counter against the
/// index (`vmovdqa64` register to register under the mask): constant time in the indices.
fn lookup2(ifma: Ifma, out: &mut [Limbs; 2], table: &[[Limbs; 2]; TABLE], idx: &[u64; 2]) {
    let _ = ifma;
    // the `Ifma` token proves AVX-512F; the loop reads the 32 entries of `table`
    // (384 bytes each, aligned to 64) in order, from its start to its end, and writes `out`
    // (384 bytes, aligned, not aliasing `table`). The vector and mask registers are declared
    // clobbered; no stack use.
    // SAFETY: by the token, the bounds and the clobbers stated just above.
    unsafe {
        core::arch::asm!(
            "vpbroadcastq zmm20, qword ptr [{idx}]",
            "vpbroadcastq zmm21, qword ptr [{idx} + 8]",
            "vpxord xmm22, xmm22, xmm22",
            "vpternlogq zmm23, zmm23, zmm23, 0xff",
            "vpxord xmm0, xmm0, xmm0",
            "vpxord xmm1, xmm1, xmm1",
            "vpxord xmm2, xmm2, xmm2",
            "vpxord xmm3, xmm3, xmm3",
            "vpxord xmm4, xmm4, xmm4",
            "vpxord xmm5, xmm5, xmm5",
            "2:",
            "vpcmpeqq k1, zmm22, zmm20",
            "vpcmpeqq k2, zmm22, zmm21",
            "vmovdqa64 zmm6, zmmword ptr [rsi]",
            "vmovdqa64 zmm7, zmmword ptr [rsi + 64]",
            "vmovdqa64 zmm8, zmmword ptr [rsi + 128]",
            "vmovdqa64 zmm9, zmmword ptr [rsi + 192]",
            "vmovdqa64 zmm10, zmmword ptr [rsi + 256]",
            "vmovdqa64 zmm11, zmmword ptr [rsi + 320]",
            "vmovdqa64 zmm0 {{k1}}, zmm6",
            "vmovdqa64 zmm1 {{k1}}, zmm7",
            "vmovdqa64 zmm2 {{k1}}, zmm8",
            "vmovdqa64 zmm3 {{k2}}, zmm9",
            "vmovdqa64 zmm4 {{k2}}, zmm10",
            "vmovdqa64 zmm5 {{k2}}, zmm11",
            "vpsubq zmm22, zmm22, zmm23",
            "add rsi, 384",
            "dec ecx",
            "jnz 2b",
            "vmovdqa64 zmmword ptr [{out}], zmm0",
            "vmovdqa64 zmmword ptr [{out} + 64], zmm1",
            "vmovdqa64 zmmword ptr [{out} + 128], zmm2",
            "vmovdqa64 zmmword ptr [{out} + 192], zmm3",
            "vmovdqa64 zmmword ptr [{out} + 256], zmm4",
            "vmovdqa64 zmmword ptr [{out} + 320], zmm5",
            "vzeroupper",
            idx = in(reg) idx.as_ptr(),
            inout("rsi") table.as_ptr() => _,
            out = in(reg) out.as_mut_ptr(),
            inout("rcx") TABLE => _,
            clobber_abi("C"),
            options(nostack),
        );
    }
}

/// The `width` bits of `e` from bit `lo` (public positions).
fn window(e: &[u64; WORDS], lo: usize, width: usize) -> u64 {
    let (w, s) = (lo / 64, lo % 64);
    let low = u128::from(e.get(w).copied().unwrap_or(0));
    let high = u128::from(e.get(w + 1).copied().unwrap_or(0));
    ((((high << 64) | low) >> s) as u64) & ((1 << width) - 1)
}

/// Both exponentiations (module docs): the results in radix `2^52`, normalized, each at most its
/// modulus. `k0[h] = -m[h]^-1 mod 2^52`.
fn pow2(
    ifma: Ifma,
    m: &[Limbs; 2],
    rr: &[Limbs; 2],
    x: &[Limbs; 2],
    e: &[[u64; WORDS]; 2],
    k0: &[u64; 2],
) -> [Limbs; 2] {
    let mut one = Limbs::ZERO;
    one.0[0] = 1;
    let ones = [one, one];
    // Powers x^0 .. x^31 in Montgomery form: R, x R, then products by x R.
    let mut table = [[Limbs::ZERO; 2]; TABLE];
    let mut acc = [Limbs::ZERO; 2];
    amm2(ifma, &mut acc, rr, &ones, m, k0);
    table[0] = acc;
    amm2(ifma, &mut acc, x, rr, m, k0);
    table[1] = acc;
    let mut prev = acc;
    for entry in table.iter_mut().skip(2) {
        amm2(ifma, entry, &prev, &acc, m, k0);
        prev = *entry;
    }
    let bits = WORDS * 64;
    let windows = bits.div_ceil(WINDOW);
    let top = (windows - 1) * WINDOW;
    let width = bits - top;
    let mut idx = [window(&e[0], top, width), window(&e[1], top, width)];
    lookup2(ifma, &mut acc, &table, &idx);
    let mut power = [Limbs::ZERO; 2];
    for w in (0..windows - 1).rev() {
        for _ in 0..WINDOW {
            ams2_assign(ifma, &mut acc, m, k0);
        }
        idx = [
            window(&e[0], w * WINDOW, WINDOW),
            window(&e[1], w * WINDOW, WINDOW),
        ];
        lookup2(ifma, &mut power, &table, &idx);
        amm2_assign(ifma, &mut acc, &power, m, k0);
    }
    let mut out = [Limbs::ZERO; 2];
    amm2(ifma, &mut out, &acc, &ones, m, k0);
    table.zeroize();
    acc.zeroize();
    power.zeroize();
    prev.zeroize();
    idx.zeroize();
    out
}

/// The 64-bit words of a 2048-bit operand (the public modulus of RSA-2048).
pub(crate) const WORDS_2048: usize = 32;
/// Limbs of 52 bits of a number below `2^2080` (five full registers).
const LIMBS_2048: usize = 40;

/// A number below `2^2080` as 40 limbs of 52 bits, 64-byte aligned: five `zmm` registers.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Limbs40([u64; LIMBS_2048]);

impl Zeroize for Limbs40 {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl Ifma {
    /// `x^e mod m` for a 2048-bit-class odd modulus `m` (at most [`WORDS_2048`] words, with
    /// `rr = 2^4160 mod m`, `R^2` for `R = 2^2080`), `x < 2^2048` and a public exponent `e`:
    /// constant time in `x` (and `m`), variable time in `e` (square and multiply on its bits,
    /// from the top set one). The same almost-Montgomery multiplication as the 1024-bit class
    /// (module docs) on one operand of 40 limbs: for inputs below `2m`, outputs below
    /// `4m^2 / R + m < 2m` (`4m < 2^2050 < R`); a lane receives at most 160 terms below `2^52`
    /// plus carries, below `2^60`. `None` when an operand is longer than [`WORDS_2048`].
    pub(crate) fn pow_public_2048_vartime(
        self,
        m: &[u64],
        rr: &[u64],
        x: &[u64],
        e: &[u64],
    ) -> Option<[u64; WORDS_2048]> {
        if m.len() > WORDS_2048 || rr.len() > WORDS_2048 || x.len() > WORDS_2048 {
            return None;
        }
        let pack = |v: &[u64]| {
            let mut out = Limbs40([0; LIMBS_2048]);
            pack52(v, &mut out.0);
            out
        };
        let (ml, rrl, mut xl) = (pack(m), pack(rr), pack(x));
        let k0 = neg_inv52(m.first().copied().unwrap_or(1));
        let mut one = Limbs40([0; LIMBS_2048]);
        one.0[0] = 1;
        // x R and R (1 in Montgomery form).
        let mut base = Limbs40([0; LIMBS_2048]);
        amm_2048(self, &mut base, &xl, &rrl, &ml, k0);
        let mut acc = Limbs40([0; LIMBS_2048]);
        amm_2048(self, &mut acc, &rrl, &one, &ml, k0);
        let bits = e.iter().rposition(|&w| w != 0).map_or(0, |i| {
            i * 64 + (64 - e.get(i).map_or(64, |w| w.leading_zeros() as usize))
        });
        let mut tmp = acc;
        for i in (0..bits).rev() {
            amm_2048(self, &mut tmp, &acc, &acc, &ml, k0);
            acc = tmp;
            if e.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1) {
                amm_2048(self, &mut tmp, &acc, &base, &ml, k0);
                acc = tmp;
            }
        }
        amm_2048(self, &mut tmp, &acc, &one, &ml, k0);
        let mut out = [0u64; WORDS_2048];
        unpack52(&tmp.0, &mut out);
        let mut mw = [0u64; WORDS_2048];
        for (o, w) in mw.iter_mut().zip(m) {
            *o = *w;
        }
        sub_if_ge(&mut out, &mw);
        for v in [&mut xl, &mut base, &mut acc, &mut tmp] {
            v.zeroize();
        }
        Some(out)
    }
}

/// Almost-Montgomery multiplication in the 2048-bit class: `out = a b R^-1 mod m`
/// (`R = 2^2080`), below `2m` for inputs below `2m`, normalized; `k0 = -m^-1 mod 2^52`. As
/// [`amm2_raw`] for one operand of five registers: the accumulator in `zmm0`-`zmm4`, `a` in
/// `zmm5`-`zmm9`, `m` in `zmm10`-`zmm14`, the high products in `zmm15`-`zmm19`, `q` in
/// `zmm20`, a temporary in `zmm21`; 40 rounds, then the normalization with 40-bit lane masks.
fn amm_2048(ifma: Ifma, out: &mut Limbs40, a: &Limbs40, b: &Limbs40, m: &Limbs40, k0: u64) {
    let _ = ifma;
    let k0 = [k0];
    // the `Ifma` token proves AVX-512F, VL and IFMA (and the OS's `zmm` state); every
    // memory operand is inside the borrowed values (`Limbs40` is 320 bytes aligned to 64, `b`'s
    // limbs read at offsets 0 to 312, `k0` one word); `out` is a unique borrow, written only at
    // the end. The vector and mask registers are declared clobbered (`clobber_abi`), the
    // general ones are operands; no stack use.
    // SAFETY: by the token, the bounds and the clobbers stated just above.
    unsafe {
        core::arch::asm!(
            "vpxord xmm31, xmm31, xmm31",
            "vpternlogq zmm29, zmm29, zmm29, 0xff",
            "vpsrlq zmm30, zmm29, 12",
            "vmovdqa64 zmm5, zmmword ptr [{a}]",
            "vmovdqa64 zmm6, zmmword ptr [{a} + 64]",
            "vmovdqa64 zmm7, zmmword ptr [{a} + 128]",
            "vmovdqa64 zmm8, zmmword ptr [{a} + 192]",
            "vmovdqa64 zmm9, zmmword ptr [{a} + 256]",
            "vmovdqa64 zmm10, zmmword ptr [{m}]",
            "vmovdqa64 zmm11, zmmword ptr [{m} + 64]",
            "vmovdqa64 zmm12, zmmword ptr [{m} + 128]",
            "vmovdqa64 zmm13, zmmword ptr [{m} + 192]",
            "vmovdqa64 zmm14, zmmword ptr [{m} + 256]",
            "vpxord xmm0, xmm0, xmm0",
            "vpxord xmm1, xmm1, xmm1",
            "vpxord xmm2, xmm2, xmm2",
            "vpxord xmm3, xmm3, xmm3",
            "vpxord xmm4, xmm4, xmm4",
            "2:",
            "vpxord xmm15, xmm15, xmm15",
            "vpxord xmm16, xmm16, xmm16",
            "vpxord xmm17, xmm17, xmm17",
            "vpxord xmm18, xmm18, xmm18",
            "vpxord xmm19, xmm19, xmm19",
            "vpxord xmm21, xmm21, xmm21",
            "vpmadd52luq zmm0, zmm5, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm1, zmm6, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm2, zmm7, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm3, zmm8, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm4, zmm9, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm15, zmm5, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm16, zmm6, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm17, zmm7, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm18, zmm8, qword ptr [rsi]{{1to8}}",
            "vpmadd52huq zmm19, zmm9, qword ptr [rsi]{{1to8}}",
            "vpmadd52luq zmm21, zmm0, qword ptr [{k0}]{{1to8}}",
            "vpbroadcastq zmm20, xmm21",
            "vpmadd52luq zmm0, zmm10, zmm20",
            "vpmadd52luq zmm1, zmm11, zmm20",
            "vpmadd52luq zmm2, zmm12, zmm20",
            "vpmadd52luq zmm3, zmm13, zmm20",
            "vpmadd52luq zmm4, zmm14, zmm20",
            "vpmadd52huq zmm15, zmm10, zmm20",
            "vpmadd52huq zmm16, zmm11, zmm20",
            "vpmadd52huq zmm17, zmm12, zmm20",
            "vpmadd52huq zmm18, zmm13, zmm20",
            "vpmadd52huq zmm19, zmm14, zmm20",
            "vmovq xmm21, xmm0",
            "vpsrlq xmm21, xmm21, 52",
            "valignq zmm0, zmm1, zmm0, 1",
            "valignq zmm1, zmm2, zmm1, 1",
            "valignq zmm2, zmm3, zmm2, 1",
            "valignq zmm3, zmm4, zmm3, 1",
            "valignq zmm4, zmm31, zmm4, 1",
            "vpaddq zmm0, zmm0, zmm21",
            "vpaddq zmm0, zmm0, zmm15",
            "vpaddq zmm1, zmm1, zmm16",
            "vpaddq zmm2, zmm2, zmm17",
            "vpaddq zmm3, zmm3, zmm18",
            "vpaddq zmm4, zmm4, zmm19",
            "add rsi, 8",
            "dec ecx",
            "jnz 2b",
            "vpsrlq zmm15, zmm0, 52",
            "vpsrlq zmm16, zmm1, 52",
            "vpsrlq zmm17, zmm2, 52",
            "vpsrlq zmm18, zmm3, 52",
            "vpsrlq zmm19, zmm4, 52",
            "vpandq zmm0, zmm0, zmm30",
            "vpandq zmm1, zmm1, zmm30",
            "vpandq zmm2, zmm2, zmm30",
            "vpandq zmm3, zmm3, zmm30",
            "vpandq zmm4, zmm4, zmm30",
            "valignq zmm19, zmm19, zmm18, 7",
            "valignq zmm18, zmm18, zmm17, 7",
            "valignq zmm17, zmm17, zmm16, 7",
            "valignq zmm16, zmm16, zmm15, 7",
            "valignq zmm15, zmm15, zmm31, 7",
            "vpaddq zmm0, zmm0, zmm15",
            "vpaddq zmm1, zmm1, zmm16",
            "vpaddq zmm2, zmm2, zmm17",
            "vpaddq zmm3, zmm3, zmm18",
            "vpaddq zmm4, zmm4, zmm19",
            "vpcmpuq k1, zmm0, zmm30, 6",
            "vpcmpuq k2, zmm1, zmm30, 6",
            "vpcmpuq k3, zmm2, zmm30, 6",
            "vpcmpuq k4, zmm3, zmm30, 6",
            "vpcmpuq k5, zmm4, zmm30, 6",
            "kmovw eax, k1",
            "kmovw r8d, k2",
            "shl r8, 8",
            "or rax, r8",
            "kmovw r8d, k3",
            "shl r8, 16",
            "or rax, r8",
            "kmovw r8d, k4",
            "shl r8, 24",
            "or rax, r8",
            "kmovw r8d, k5",
            "shl r8, 32",
            "or rax, r8",
            "vpcmpuq k1, zmm0, zmm30, 0",
            "vpcmpuq k2, zmm1, zmm30, 0",
            "vpcmpuq k3, zmm2, zmm30, 0",
            "vpcmpuq k4, zmm3, zmm30, 0",
            "vpcmpuq k5, zmm4, zmm30, 0",
            "kmovw edx, k1",
            "kmovw r8d, k2",
            "shl r8, 8",
            "or rdx, r8",
            "kmovw r8d, k3",
            "shl r8, 16",
            "or rdx, r8",
            "kmovw r8d, k4",
            "shl r8, 24",
            "or rdx, r8",
            "kmovw r8d, k5",
            "shl r8, 32",
            "or rdx, r8",
            "add rax, rax",
            "add rax, rdx",
            "xor rax, rdx",
            "kmovw k1, eax",
            "shr rax, 8",
            "kmovw k2, eax",
            "shr rax, 8",
            "kmovw k3, eax",
            "shr rax, 8",
            "kmovw k4, eax",
            "shr rax, 8",
            "kmovw k5, eax",
            "vpsubq zmm0 {{k1}}, zmm0, zmm29",
            "vpsubq zmm1 {{k2}}, zmm1, zmm29",
            "vpsubq zmm2 {{k3}}, zmm2, zmm29",
            "vpsubq zmm3 {{k4}}, zmm3, zmm29",
            "vpsubq zmm4 {{k5}}, zmm4, zmm29",
            "vpandq zmm0, zmm0, zmm30",
            "vpandq zmm1, zmm1, zmm30",
            "vpandq zmm2, zmm2, zmm30",
            "vpandq zmm3, zmm3, zmm30",
            "vpandq zmm4, zmm4, zmm30",
            "vmovdqa64 zmmword ptr [{out}], zmm0",
            "vmovdqa64 zmmword ptr [{out} + 64], zmm1",
            "vmovdqa64 zmmword ptr [{out} + 128], zmm2",
            "vmovdqa64 zmmword ptr [{out} + 192], zmm3",
            "vmovdqa64 zmmword ptr [{out} + 256], zmm4",
            "vzeroupper",
            a = in(reg) a,
            inout("rsi") b => _,
            m = in(reg) m,
            k0 = in(reg) k0.as_ptr(),
            out = in(reg) out,
            inout("rcx") LIMBS_2048 => _,
            out("rax") _,
            out("rdx") _,
            out("r8") _,
            clobber_abi("C"),
            options(nostack),
        );
    }
}
