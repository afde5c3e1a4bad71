//! The x86-64 field-arithmetic backend: Montgomery multiplication on `mulx`/`adcx`/`adox`
//! (BMI2 and ADX), selected at run time.
//!
//! This is the crate's only module with `unsafe` code, and all of it is inline assembly. The
//! portable Rust in the field modules stays the fallback and the test oracle: every routine here
//! is compared with it on random and edge inputs (unit tests below, `tests/differential.rs`
//! through the field types, the `diff_p384_field` fuzz target).
//!
//! # Selection
//! [`get`] answers once per process whether the CPU has BMI2 and ADX (`is_x86_feature_detected!`
//! with `std`, the compile-time target features without it) and caches the answer. Setting the
//! environment variable `PRIVACY_TOKENS_ARITH=portable` before the first field operation forces the
//! portable code (tests run both paths this way). The answer is a [`Adx`] token: holding one is
//! the proof that the instructions exist, so the routines that take it are safe to call.
//!
//! # Constant time
//! The assembly has no branches and no memory access that depends on the values: the final
//! conditional subtraction is `cmovnc` on the borrow. The instructions it uses, `mov`, `mulx`,
//! `adcx`, `adox`, `add`, `adc`, `sub`, `sbb`, `shl`, `shr`, `shld`, `imul`, `and`, `xor`,
//! `not`, `push`/`pop` and `cmov`, run in time independent of their operands on every x86-64
//! core this targets.
//!
//! # The AVX2 table scan
//! [`Avx2::gather`] selects one entry of a row of the 7-bit fixed-base tables (64 affine points)
//! without a branch or an address that depends on the index: every entry is loaded, ANDed with
//! a `vpcmpeqd` mask of a public counter against the index, and ORed into the result
//! (`vmovd`, `vpbroadcastd`, `vpcmpeqd`, `vpsrld`, `vpaddd`, `vpand`, `vpor`, `vpxor`,
//! `vmovdqa`/`vmovdqu`, `vzeroupper`: data-independent timing). The loop counter and the
//! stride are public. AVX2 is detected apart from BMI2/ADX ([`avx2`]); the portable scan
//! (`window::scan_row`) is the fallback and the oracle it is tested against.
//!
//! # P-384 Montgomery multiplication
//! Operand scanning with the reduction interleaved (one word per row), two carry chains per row
//! (`adcx` for the low halves of the products, `adox` for the high halves), and the special form of
//! `p = 2^384 - c` with `c = 2^128 + 2^96 - 2^32 + 1`: the Montgomery multiplier of a row is
//! `w = t0 * (2^32 + 1) mod 2^64` (`-p^-1 mod 2^64 = 2^32 + 1`), and adding `w * p` is adding
//! `w * 2^384` and subtracting the three-word `w * c`, which takes two word multiplications
//! instead of six. In all 36 + 12 = 48 word multiplications, against 72 for the generic method.

#![allow(unsafe_code)]

/// Proof that the CPU runs BMI2 and ADX instructions (obtained from [`get`] only).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adx(());

#[cfg(feature = "std")]
mod detect {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet known; 1: available; 2: not available or forced off.
    static ADX: AtomicU8 = AtomicU8::new(0);
    static AVX2: AtomicU8 = AtomicU8::new(0);

    #[cold]
    fn init(state: &AtomicU8, probe: fn() -> bool) -> bool {
        let forced_off = std::env::var_os("PRIVACY_TOKENS_ARITH").is_some_and(|v| v == "portable");
        let on = !forced_off && probe();
        state.store(if on { 1 } else { 2 }, Ordering::Relaxed);
        on
    }

    #[inline(always)]
    fn cached(state: &AtomicU8, probe: fn() -> bool) -> bool {
        match state.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => init(state, probe),
        }
    }

    /// BMI2 and ADX.
    #[inline(always)]
    pub(super) fn available() -> bool {
        cached(&ADX, || {
            std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx")
        })
    }

    /// AVX2.
    #[inline(always)]
    pub(super) fn avx2() -> bool {
        cached(&AVX2, || std::is_x86_feature_detected!("avx2"))
    }
}

#[cfg(not(feature = "std"))]
mod detect {
    #[inline(always)]
    pub(super) fn available() -> bool {
        cfg!(all(target_feature = "bmi2", target_feature = "adx"))
    }

    #[inline(always)]
    pub(super) fn avx2() -> bool {
        cfg!(target_feature = "avx2")
    }
}

/// The backend token when the CPU supports it and it is not forced off; `None` selects the
/// portable code. The answer is computed once per process (public data: no secret is involved).
#[inline(always)]
pub(crate) fn get() -> Option<Adx> {
    detect::available().then_some(Adx(()))
}

/// Which field arithmetic this process runs: `"x86-64 mulx/adx"` or `"portable"`.
pub(crate) fn backend_name() -> &'static str {
    if get().is_some() {
        "x86-64 mulx/adx"
    } else {
        "portable"
    }
}

/// Proof that the CPU runs AVX2 instructions (obtained from [`avx2`] only): the wide
/// fixed-base tables' constant-time scan ([`Avx2::gather`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

/// The AVX2 token when the CPU has it and the portable code is not forced
/// (`PRIVACY_TOKENS_ARITH=portable` turns this off with the rest of the backend).
#[inline(always)]
pub(crate) fn avx2() -> Option<Avx2> {
    detect::avx2().then_some(Avx2(()))
}

impl Avx2 {
    /// The `K` coordinates of entry `idx - 1` of `row` (zeros for `idx = 0` or
    /// `idx > row.len()`), by a scan of every entry: each is loaded whole and ANDed with a mask
    /// that `vpcmpeqd` sets from a public counter and the secret `idx`, then ORed into the
    /// accumulators, so neither a branch nor an address depends on `idx`. The coordinates are
    /// `N`-limb arrays (`N` = 4 or 6, `K` = 2 for affine and 3 for Jacobian entries) that
    /// `coords` borrows from an entry; their offsets are the same in every entry of the slice.
    #[inline]
    pub(crate) fn gather<T, const N: usize, const K: usize>(
        self,
        row: &[T],
        coords: impl Fn(&T) -> [&[u64; N]; K],
        idx: u8,
    ) -> [[u64; N]; K] {
        // ok: checked at compile time.
        const { assert!((N == 4 || N == 6) && (K == 2 || K == 3)) };
        let mut out = [[0u64; N]; K];
        let Some(first) = row.first() else {
            return out;
        };
        let base = row.as_ptr() as usize;
        let offs = coords(first).map(|c| c.as_ptr() as usize - base);
        // The same offsets hold for the last entry (a slice's elements are `size_of::<T>()`
        // apart and `coords` returns fields of its argument): checked, not assumed.
        let stride = core::mem::size_of::<T>();
        let last = base + (row.len() - 1) * stride;
        let ends = coords(&row[row.len() - 1]).map(|c| c.as_ptr() as usize);
        // ok: `coords` returns fields of its argument and slice elements are `stride` apart, so
        // this holds for every caller (all in this crate); it guards the SAFETY argument below.
        assert!((0..K).all(|j| ends[j] == last + offs[j]));
        // `gather_avx2` reads exactly the `N` limbs of each entry's `K` coordinates (at
        // `base + i * stride + offs[j]` for `i < row.len()`, inside `row`, as the assertion
        // above checks at both ends) and writes the `K` outputs.
        // SAFETY: the token proves AVX2 (`avx2()` checked the CPU); the reads are in `row`.
        unsafe {
            gather_avx2::<N, K>(
                row.as_ptr() as *const u8,
                row.len(),
                stride,
                &offs,
                u32::from(idx),
                &mut out,
            );
        }
        out
    }
}

/// The scan of [`Avx2::gather`]; `N` = 4 (one 32-byte load a coordinate) or 6 (32 + 16 bytes),
/// `K` = 2 or 3 coordinates.
///
/// # Safety
/// AVX2 must be available; `p + i * stride + offs[j]` must be readable for `8 * N` bytes for
/// every `i < n` and `j < K`.
#[target_feature(enable = "avx2")]
unsafe fn gather_avx2<const N: usize, const K: usize>(
    p: *const u8,
    n: usize,
    stride: usize,
    offs: &[usize; K],
    idx: u32,
    out: &mut [[u64; N]; K],
) {
    // The shared frame of every scan: `ymm0` the index in every lane, `ymm1` ones, `ymm2` the
    // entry counter (from 1), `ymm5` the entry's mask, `ymm6`/`ymm7` temporaries, accumulators
    // from `ymm8`; `$load` ANDs the entry into the accumulators, `$store` writes them to `out`
    // (coordinate `j` at `8 * N * j`).
    macro_rules! scan {
        ($($load:expr,)* ; $($store:literal,)* ; $($ops:tt)*) => {
            // The loop count `n` and the stride are public; every load is of an entry's
            // coordinates at `p + offs[j]`.
            // SAFETY: as the function's contract (AVX2 present, those bytes readable).
            unsafe {
                core::arch::asm!(
                    "vmovd xmm0, {idx:e}",
                    "vpbroadcastd ymm0, xmm0",
                    "vpcmpeqd ymm1, ymm1, ymm1",
                    "vpsrld ymm1, ymm1, 31",
                    "vmovdqa ymm2, ymm1",
                    "vpxor ymm8, ymm8, ymm8",
                    "vpxor ymm9, ymm9, ymm9",
                    "vpxor ymm10, ymm10, ymm10",
                    "vpxor ymm11, ymm11, ymm11",
                    "vpxor ymm12, ymm12, ymm12",
                    "vpxor ymm13, ymm13, ymm13",
                    "2:",
                    "vpcmpeqd ymm5, ymm2, ymm0",
                    "vpaddd ymm2, ymm2, ymm1",
                    $($load,)*
                    "add {p}, {stride}",
                    "dec {n}",
                    "jnz 2b",
                    $($store,)*
                    // Without it the next SSE code stalls on the dirty upper halves (measured:
                    // a 64-entry scan at 132 ns against 44 ns).
                    "vzeroupper",
                    idx = in(reg) idx,
                    p = inout(reg) p => _,
                    n = inout(reg) n => _,
                    stride = in(reg) stride,
                    out = in(reg) out.as_mut_ptr(),
                    $($ops)*
                    // `vzeroupper` clears the upper halves of every vector register.
                    out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                    out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
                    out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                    out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
                    options(nostack),
                );
            }
        };
    }
    macro_rules! wide {
        ($acc:literal, $o:literal) => {
            concat!(
                "vpand ymm6, ymm5, ymmword ptr [{p} + {",
                $o,
                "}]\n",
                "vpor ymm",
                $acc,
                ", ymm",
                $acc,
                ", ymm6"
            )
        };
    }
    macro_rules! tail {
        ($acc:literal, $o:literal) => {
            concat!(
                "vpand xmm7, xmm5, xmmword ptr [{p} + {",
                $o,
                "} + 32]\n",
                "vpor xmm",
                $acc,
                ", xmm",
                $acc,
                ", xmm7"
            )
        };
    }
    match (N, K) {
        (4, 2) => scan!(
            wide!("8", "o0"), wide!("9", "o1"),
            ;
            "vmovdqu ymmword ptr [{out}], ymm8",
            "vmovdqu ymmword ptr [{out} + 32], ymm9",
            ;
            o0 = in(reg) offs[0], o1 = in(reg) offs[1],
        ),
        (4, _) => scan!(
            wide!("8", "o0"), wide!("9", "o1"), wide!("10", "o2"),
            ;
            "vmovdqu ymmword ptr [{out}], ymm8",
            "vmovdqu ymmword ptr [{out} + 32], ymm9",
            "vmovdqu ymmword ptr [{out} + 64], ymm10",
            ;
            o0 = in(reg) offs[0], o1 = in(reg) offs[1], o2 = in(reg) offs[K - 1],
        ),
        (_, 2) => scan!(
            wide!("8", "o0"), tail!("9", "o0"), wide!("10", "o1"), tail!("11", "o1"),
            ;
            "vmovdqu ymmword ptr [{out}], ymm8",
            "vmovdqu xmmword ptr [{out} + 32], xmm9",
            "vmovdqu ymmword ptr [{out} + 48], ymm10",
            "vmovdqu xmmword ptr [{out} + 80], xmm11",
            ;
            o0 = in(reg) offs[0], o1 = in(reg) offs[1],
        ),
        _ => scan!(
            wide!("8", "o0"), tail!("9", "o0"), wide!("10", "o1"), tail!("11", "o1"),
            wide!("12", "o2"), tail!("13", "o2"),
            ;
            "vmovdqu ymmword ptr [{out}], ymm8",
            "vmovdqu xmmword ptr [{out} + 32], xmm9",
            "vmovdqu ymmword ptr [{out} + 48], ymm10",
            "vmovdqu xmmword ptr [{out} + 80], xmm11",
            "vmovdqu ymmword ptr [{out} + 96], ymm12",
            "vmovdqu xmmword ptr [{out} + 128], xmm13",
            ;
            o0 = in(reg) offs[0], o1 = in(reg) offs[1], o2 = in(reg) offs[K - 1],
        ),
    }
}

/// One row of the P-384 product: `[t7..t0] += a * b[i]`, with `a` at `rsi` and `b` at `rcx`.
/// `t7` is overwritten (it is the free register of the previous reduction). Clobbers `rax`,
/// `rbx`, `rdx` and the flags.
macro_rules! p384_row {
    ($i:literal, $t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt, $t6:tt, $t7:tt) => {
        concat!(
            // t7 = 0 (the free register), CF = OF = 0.
            "xor ",
            stringify!($t7),
            ", ",
            stringify!($t7),
            "\n",
            "mov rdx, qword ptr [rcx + 8*",
            $i,
            "]\n",
            p384_mulpadd!(0, $t0, $t1),
            p384_mulpadd!(8, $t1, $t2),
            p384_mulpadd!(16, $t2, $t3),
            p384_mulpadd!(24, $t3, $t4),
            p384_mulpadd!(32, $t4, $t5),
            // OF into t6; the last product continues the CF chain with plain adc, into t7.
            "adox ",
            stringify!($t6),
            ", ",
            stringify!($t7),
            "\n",
            "mulx rbx, rax, qword ptr [rsi + 40]\n",
            "adc ",
            stringify!($t5),
            ", rax\n",
            "adc ",
            stringify!($t6),
            ", rbx\n",
            "adc ",
            stringify!($t7),
            ", ",
            stringify!($t7),
            "\n",
        )
    };
}

/// `lo += (rdx * a[k]).lo` on the CF chain and `hi += (rdx * a[k]).hi` on the OF chain, `a` at
/// `rsi` and `$off = 8 k`. Clobbers `rax`, `rbx`.
macro_rules! p384_mulpadd {
    ($off:literal, $lo:tt, $hi:tt) => {
        concat!(
            "mulx rbx, rax, qword ptr [rsi + ",
            $off,
            "]\n",
            "adcx ",
            stringify!($lo),
            ", rax\n",
            "adox ",
            stringify!($hi),
            ", rbx\n",
        )
    };
}

/// One Montgomery step: adds `w * p` to `[t7..t0]` for `w = t0 * (2^32 + 1) mod 2^64`, which
/// clears `t0`; the result, divided by `2^64`, is `[t7..t1]`. `w * p = w * 2^384 - w * c` with
/// `c = 2^128 + 2^96 - 2^32 + 1`; the low word of `w * c` equals `t0`, so only words 1 to 3 of
/// `w * c` (in `rbx`, `rbp`, `rdi`) are subtracted. Clobbers `rax`, `rbx`, `rbp`, `rdx`, `rdi`.
macro_rules! p384_reduce {
    ($t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt, $t6:tt, $t7:tt) => {
        concat!(
            "mov rdx, ",
            stringify!($t0),
            "\n",
            "shl rdx, 32\n",
            "add rdx, ",
            stringify!($t0),
            "\n",
            // rbx = high word of w * 0xffffffff00000001 (the low word is t0 and cancels).
            "mov rax, 0xffffffff00000001\n",
            "mulx rbx, rax, rax\n",
            // rbp:rax = w * 0x00000000ffffffff.
            "mov eax, 0xffffffff\n",
            "mulx rbp, rax, rax\n",
            "xor edi, edi\n",
            // [rdi; rbp; rbx] = words 1..3 of w * c (the 2^128 term adds w at word 2).
            "add rbx, rax\n",
            "adc rbp, rdx\n",
            "adc rdi, 0\n",
            // - w * c on words 1..5, its borrow taken from w (w * c = 0 when w = 0, so
            // w - borrow >= 0), then + (w - borrow) * 2^384 on words 6 and 7.
            "sub ",
            stringify!($t1),
            ", rbx\n",
            "sbb ",
            stringify!($t2),
            ", rbp\n",
            "sbb ",
            stringify!($t3),
            ", rdi\n",
            "sbb ",
            stringify!($t4),
            ", 0\n",
            "sbb ",
            stringify!($t5),
            ", 0\n",
            "sbb rdx, 0\n",
            "add ",
            stringify!($t6),
            ", rdx\n",
            "adc ",
            stringify!($t7),
            ", 0\n",
        )
    };
}

/// One Montgomery step on a six-word window `[t5..t0]` alone (below `2^384`): as
/// [`p384_reduce`], but the `w * 2^384` term and the borrow of the subtraction make the new top
/// word, written over `t0` (consumed: the low word cancels), so the window turns in place:
/// `[t0; t5..t1] = ([t5..t0] + w p) / 2^64`, below `2^384`. Clobbers `rax`, `rbx`, `rbp`, `rdx`,
/// `rdi`.
macro_rules! p384_reduce_short {
    ($t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt) => {
        concat!(
            "mov rdx, ",
            stringify!($t0),
            "\n",
            "shl rdx, 32\n",
            "add rdx, ",
            stringify!($t0),
            "\n",
            "mov rax, 0xffffffff00000001\n",
            "mulx rbx, rax, rax\n",
            "mov eax, 0xffffffff\n",
            "mulx rbp, rax, rax\n",
            "xor edi, edi\n",
            "add rbx, rax\n",
            "adc rbp, rdx\n",
            "adc rdi, 0\n",
            "sub ",
            stringify!($t1),
            ", rbx\n",
            "sbb ",
            stringify!($t2),
            ", rbp\n",
            "sbb ",
            stringify!($t3),
            ", rdi\n",
            "sbb ",
            stringify!($t4),
            ", 0\n",
            "sbb ",
            stringify!($t5),
            ", 0\n",
            "sbb rdx, 0\n",
            "mov ",
            stringify!($t0),
            ", rdx\n",
        )
    };
}

/// The final conditional subtraction: `[t6..t0] < 2p` becomes `[t5..t0] < p`. Clobbers `rax`,
/// `rbx`, `rbp`, `rcx`, `rdx`, `rsi`, `rdi`.
macro_rules! p384_final {
    ($t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt, $t6:tt) => {
        concat!(
            "mov rax, ",
            stringify!($t0),
            "\n",
            "mov rbx, ",
            stringify!($t1),
            "\n",
            "mov rbp, ",
            stringify!($t2),
            "\n",
            "mov rcx, ",
            stringify!($t3),
            "\n",
            "mov rsi, ",
            stringify!($t4),
            "\n",
            "mov rdi, ",
            stringify!($t5),
            "\n",
            "mov rdx, 0x00000000ffffffff\n",
            "sub rax, rdx\n",
            "mov rdx, 0xffffffff00000000\n",
            "sbb rbx, rdx\n",
            "sbb rbp, -2\n",
            "sbb rcx, -1\n",
            "sbb rsi, -1\n",
            "sbb rdi, -1\n",
            "sbb ",
            stringify!($t6),
            ", 0\n",
            // No borrow: t >= p, take t - p.
            "cmovnc ",
            stringify!($t0),
            ", rax\n",
            "cmovnc ",
            stringify!($t1),
            ", rbx\n",
            "cmovnc ",
            stringify!($t2),
            ", rbp\n",
            "cmovnc ",
            stringify!($t3),
            ", rcx\n",
            "cmovnc ",
            stringify!($t4),
            ", rsi\n",
            "cmovnc ",
            stringify!($t5),
            ", rdi\n",
        )
    };
}

/// One row of the P-256 product: `[t5..t0] += a * b[i]`, with `a` at `rsi` and `b` at `rcx`;
/// `t5` is overwritten (the free register of the previous reduction). Clobbers `rax`, `rdx`,
/// `rdi`, `r14`, `r15` and the flags.
macro_rules! p256_row {
    ($i:literal, $t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt) => {
        concat!(
            "xor edi, edi\n",
            "mov rdx, qword ptr [rcx + 8*",
            $i,
            "]\n",
            "mulx r15, r14, qword ptr [rsi]\n",
            "adcx ",
            stringify!($t0),
            ", r14\n",
            "adox ",
            stringify!($t1),
            ", r15\n",
            "mulx r15, r14, qword ptr [rsi + 8]\n",
            "adcx ",
            stringify!($t1),
            ", r14\n",
            "adox ",
            stringify!($t2),
            ", r15\n",
            "mulx r15, r14, qword ptr [rsi + 16]\n",
            "adcx ",
            stringify!($t2),
            ", r14\n",
            "adox ",
            stringify!($t3),
            ", r15\n",
            "mulx r15, r14, qword ptr [rsi + 24]\n",
            "adcx ",
            stringify!($t3),
            ", r14\n",
            "adox ",
            stringify!($t4),
            ", r15\n",
            "mov ",
            stringify!($t5),
            ", rdi\n",
            "adox ",
            stringify!($t5),
            ", rdi\n",
            "adcx ",
            stringify!($t4),
            ", rdi\n",
            "adcx ",
            stringify!($t5),
            ", rdi\n",
        )
    };
}

/// One Montgomery step for P-256 (`-p^-1 mod 2^64 = 1`, so the multiplier is `w = t0`): with
/// `p = 2^256 - 2^224 + 2^192 + 2^96 - 1`, `t0 + w * (2^64 - 1) = w * 2^64` carries `w` into word
/// 1, where with `w * (2^32 - 1)` it makes `w * 2^32`; word 2 of `p` is zero, and word 3 is
/// `0xffffffff00000001`. The result, divided by `2^64`, is `[t5..t1]`. Clobbers `rax`, `rdx`,
/// `rdi`, `r14`, `r15`.
macro_rules! p256_reduce {
    ($t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt) => {
        concat!(
            "mov rdx, ",
            stringify!($t0),
            "\n",
            "mov rax, 0xffffffff00000001\n",
            "mulx r15, r14, rax\n",
            "mov rax, rdx\n",
            "shl rax, 32\n",
            "shr rdx, 32\n",
            "add ",
            stringify!($t1),
            ", rax\n",
            "adc ",
            stringify!($t2),
            ", rdx\n",
            "adc ",
            stringify!($t3),
            ", r14\n",
            "adc ",
            stringify!($t4),
            ", r15\n",
            "adc ",
            stringify!($t5),
            ", 0\n",
        )
    };
}

/// One P-256 Montgomery step on a four-word window, for the squaring's reduction of the low half:
/// as [`p256_reduce`] (`w = t0`), with the constant `0xffffffff00000001` (word 3 of `p`) in `rcx`,
/// but the high word of `w * 0xffffffff00000001` goes straight into `t0`'s register, which becomes
/// the new top word: the result, divided by `2^64`, is `[t0, t3, t2, t1]` (below `2^256`, so the
/// last carry is absorbed). Clobbers `rax`, `rdx`, `rdi`.
macro_rules! p256_reduce_window {
    ($t0:tt, $t1:tt, $t2:tt, $t3:tt) => {
        concat!(
            "mov rdx, ",
            stringify!($t0),
            "\n",
            "mulx ",
            stringify!($t0),
            ", rdi, rcx\n",
            "mov rax, rdx\n",
            "shl rax, 32\n",
            "shr rdx, 32\n",
            "add ",
            stringify!($t1),
            ", rax\n",
            "adc ",
            stringify!($t2),
            ", rdx\n",
            "adc ",
            stringify!($t3),
            ", rdi\n",
            "adc ",
            stringify!($t0),
            ", 0\n",
        )
    };
}

/// The final conditional subtraction for P-256: `[t4..t0] < 2p` becomes `[t3..t0] < p`.
/// Clobbers `rax`, `rcx`, `rdx`, `rsi`, `r14`.
macro_rules! p256_final {
    ($t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt) => {
        concat!(
            "mov rax, ",
            stringify!($t0),
            "\n",
            "mov rcx, ",
            stringify!($t1),
            "\n",
            "mov rsi, ",
            stringify!($t2),
            "\n",
            "mov r14, ",
            stringify!($t3),
            "\n",
            "mov edx, 0xffffffff\n",
            "sub rax, -1\n",
            "sbb rcx, rdx\n",
            "sbb rsi, 0\n",
            "mov rdx, 0xffffffff00000001\n",
            "sbb r14, rdx\n",
            "sbb ",
            stringify!($t4),
            ", 0\n",
            "cmovnc ",
            stringify!($t0),
            ", rax\n",
            "cmovnc ",
            stringify!($t1),
            ", rcx\n",
            "cmovnc ",
            stringify!($t2),
            ", rsi\n",
            "cmovnc ",
            stringify!($t3),
            ", r14\n",
        )
    };
}

/// `[r13..r8] += p & rdx` for a mask `rdx` of all zeros or all ones (`p`'s limbs are
/// `P0 = 0x00000000ffffffff`, `P1 = !P0`, `P2 = 2^64 - 2`, then all ones). Clobbers `rax`, `rdi`,
/// `rcx`.
macro_rules! p384_masked_add_p {
    () => {
        concat!(
            "mov eax, edx\n",
            "mov rdi, rdx\n",
            "xor rdi, rax\n",
            "mov rcx, rdx\n",
            "and rcx, -2\n",
            "add r8, rax\n",
            "adc r9, rdi\n",
            "adc r10, rcx\n",
            "adc r11, rdx\n",
            "adc r12, rdx\n",
            "adc r13, rdx\n",
        )
    };
}

/// Reduces `[rdx; r13..r8] < 2p` into `[r13..r8] < p`: subtracts `p`, then adds it back under the
/// mask of the final borrow. Clobbers `rax`, `rdi`, `rcx`.
macro_rules! p384_sub_p_add_back {
    () => {
        concat!(
            "mov eax, 0xffffffff\n",
            "sub r8, rax\n",
            // `not` keeps the flags: rax = P1.
            "not rax\n",
            "sbb r9, rax\n",
            "sbb r10, -2\n",
            "sbb r11, -1\n",
            "sbb r12, -1\n",
            "sbb r13, -1\n",
            // rdx = carry - borrow: 0 when the sum was at least p, all ones when it was not.
            "sbb rdx, 0\n",
            p384_masked_add_p!(),
        )
    };
}

/// `[r13..r8] = [r13..r8] / 2 mod p` (P-384): `p` added when the value is odd (the sum below
/// `2p < 2^385`, its carry in `CF`), then the 385 bits rotated right through the carry.
/// Clobbers `rax`, `rcx`, `rdx`, `rdi`.
macro_rules! p384_half_body {
    () => {
        concat!(
            "mov rdx, r8\n",
            "and rdx, 1\n",
            "neg rdx\n",
            p384_masked_add_p!(),
            "rcr r13, 1\n",
            "rcr r12, 1\n",
            "rcr r11, 1\n",
            "rcr r10, 1\n",
            "rcr r9, 1\n",
            "rcr r8, 1\n",
        )
    };
}

/// `[r11..r8] = [r11..r8] / 2 mod p` (P-256), as [`p384_half_body`]. Clobbers `rax`, `rdx`,
/// `rdi`.
macro_rules! p256_half_body {
    () => {
        concat!(
            "mov rdx, r8\n",
            "and rdx, 1\n",
            "neg rdx\n",
            p256_masked_add_p!(),
            "rcr r11, 1\n",
            "rcr r10, 1\n",
            "rcr r9, 1\n",
            "rcr r8, 1\n",
        )
    };
}

/// `[r11..r8] += p & rdx` for a mask `rdx` of all zeros or all ones (P-256: `p`'s limbs are all
/// ones, `0x00000000ffffffff`, zero, `0xffffffff00000001`). Clobbers `rax`, `rdi`.
macro_rules! p256_masked_add_p {
    () => {
        concat!(
            "mov eax, edx\n",
            "mov rdi, 0xffffffff00000001\n",
            "and rdi, rdx\n",
            "add r8, rdx\n",
            "adc r9, rax\n",
            "adc r10, 0\n",
            "adc r11, rdi\n",
        )
    };
}

/// Reduces `[rdx; r11..r8] < 2p` into `[r11..r8] < p` (P-256): subtracts `p`, then adds it back
/// under the mask of the final borrow. Clobbers `rax`, `rdi`.
macro_rules! p256_sub_p_add_back {
    () => {
        concat!(
            "mov eax, 0xffffffff\n",
            "mov rdi, 0xffffffff00000001\n",
            "sub r8, -1\n",
            "sbb r9, rax\n",
            "sbb r10, 0\n",
            "sbb r11, rdi\n",
            // rdx = carry - borrow: 0 when the value was at least p, all ones when it was not.
            "sbb rdx, 0\n",
            p256_masked_add_p!(),
        )
    };
}

/// `rdx` = the top `$j` bits of the limbs (`$rj = 64 - $j`, `$top` the top limb's register),
/// then the limbs (`[high low, ...]` register pairs from the top down, `$low` the bottom one)
/// shifted left by `$j`.
macro_rules! shift_left {
    ($j:literal, $rj:literal, $top:literal, [$($hi:literal $lo:literal),+], $low:literal) => {
        concat!(
            "mov rdx, ", $top, "\n",
            "shr rdx, ", $rj, "\n",
            $("shld ", $hi, ", ", $lo, ", ", $j, "\n",)+
            "shl ", $low, ", ", $j, "\n",
        )
    };
}

/// `2^j a mod p` on P-384 for `a < p` (in `r8..r13`), `$j` in 1..=3 and `$rj = 64 - $j` (the
/// doubling's `2 beta` uses `$j = 1`, the only use since the halved doubling): the
/// limbs shifted left, the shifted-out word `t` folded back as `t c` (`2^384 = c mod p` for
/// `c = 2^128 + 2^96 - 2^32 + 1`, limbs `0xffffffff00000001`, `0xffffffff`, 1), which leaves
/// `[rdx; r13..r8]` below `p + 8 c < 2p`, then one conditional subtraction. Clobbers `rax`,
/// `rcx`, `rdx`, `rdi`.
macro_rules! p384_shl {
    ($j:literal, $rj:literal) => {
        concat!(
            shift_left!($j, $rj, "r13", ["r13" "r12", "r12" "r11", "r11" "r10", "r10" "r9", "r9" "r8"], "r8"),
            // rcx:rax = t * 0xffffffff00000001; rdi = t * 0xffffffff (below 2^35).
            "mov rax, 0xffffffff00000001\n",
            "mulx rcx, rax, rax\n",
            "mov edi, 0xffffffff\n",
            "imul rdi, rdx\n",
            // Word 1 of t c (no carry: rcx < 8).
            "add rcx, rdi\n",
            "add r8, rax\n",
            "adc r9, rcx\n",
            "adc r10, rdx\n",
            "adc r11, 0\n",
            "adc r12, 0\n",
            "adc r13, 0\n",
            "mov edx, 0\n",
            "adc rdx, 0\n",
            p384_sub_p_add_back!(),
        )
    };
}

/// `2^j a mod p` on P-256 for `a < p` (in `r8..r11`), `$j` in 1..=3 and `$rj = 64 - $j` (as
/// [`p384_shl`], `$j = 1` only): the
/// limbs shifted left, the shifted-out word `t` folded back as `t c` (`2^256 = c mod p` for
/// `c = 2^224 - 2^192 - 2^96 + 1`: `t` added at word 0 and `t (2^32 - 1)` at word 3, `t 2^32`
/// subtracted at word 1), which leaves `[rdx; r11..r8]` below `p + 8 c < 2p`, then one
/// conditional subtraction. Clobbers `rax`, `rdx`, `rdi`.
macro_rules! p256_shl {
    ($j:literal, $rj:literal) => {
        concat!(
            shift_left!($j, $rj, "r11", ["r11" "r10", "r10" "r9", "r9" "r8"], "r8"),
            // rax = t 2^32, rdi = t (2^32 - 1).
            "mov rax, rdx\n",
            "shl rax, 32\n",
            "mov rdi, rax\n",
            "sub rdi, rdx\n",
            "add r8, rdx\n",
            "adc r9, 0\n",
            "adc r10, 0\n",
            "adc r11, rdi\n",
            "mov edx, 0\n",
            "adc rdx, 0\n",
            // The whole of t c is positive: the borrow here only takes back the carry above.
            "sub r9, rax\n",
            "sbb r10, 0\n",
            "sbb r11, 0\n",
            "sbb rdx, 0\n",
            p256_sub_p_add_back!(),
        )
    };
}

/// The P-384 Montgomery product of `[rsi]` and `[rcx]` (6 limbs each) into `r14, r15, r8..r11`
/// (low to high). Clobbers `rax`, `rbx`, `rbp`, `rcx`, `rdx`, `rsi`, `rdi`, `r12`, `r13`; no
/// memory but the two inputs.
macro_rules! p384_mul_body {
    () => {
        concat!(
            // Row 0 on an empty accumulator: one carry chain, t7 = 0.
            "mov rdx, qword ptr [rcx]\n",
            "mulx r9, r8, qword ptr [rsi]\n",
            "mulx r10, rax, qword ptr [rsi + 8]\n",
            "add r9, rax\n",
            "mulx r11, rax, qword ptr [rsi + 16]\n",
            "adc r10, rax\n",
            "mulx r12, rax, qword ptr [rsi + 24]\n",
            "adc r11, rax\n",
            "mulx r13, rax, qword ptr [rsi + 32]\n",
            "adc r12, rax\n",
            "mulx r14, rax, qword ptr [rsi + 40]\n",
            "adc r13, rax\n",
            "adc r14, 0\n",
            "xor r15d, r15d\n",
            p384_reduce!(r8, r9, r10, r11, r12, r13, r14, r15),
            p384_row!(1, r9, r10, r11, r12, r13, r14, r15, r8),
            p384_reduce!(r9, r10, r11, r12, r13, r14, r15, r8),
            p384_row!(2, r10, r11, r12, r13, r14, r15, r8, r9),
            p384_reduce!(r10, r11, r12, r13, r14, r15, r8, r9),
            p384_row!(3, r11, r12, r13, r14, r15, r8, r9, r10),
            p384_reduce!(r11, r12, r13, r14, r15, r8, r9, r10),
            p384_row!(4, r12, r13, r14, r15, r8, r9, r10, r11),
            p384_reduce!(r12, r13, r14, r15, r8, r9, r10, r11),
            p384_row!(5, r13, r14, r15, r8, r9, r10, r11, r12),
            p384_reduce!(r13, r14, r15, r8, r9, r10, r11, r12),
            p384_final!(r14, r15, r8, r9, r10, r11, r12),
        )
    };
}

/// The P-384 Montgomery square of `[rsi]` (6 limbs) into `r13, r8..r12` (low to high).
/// Clobbers `rax`, `rbx`, `rbp`, `rcx`, `rdx`, `rdi`, `r14`, `r15`; pushes 7 words and releases
/// them before it ends (the caller must allow stack use).
macro_rules! p384_sqr_body {
    () => {
        concat!(
            // Cross products w1..w10 in r8..r15, rcx, rbp.
            "mov rdx, qword ptr [rsi]\n",
            "mulx r9, r8, qword ptr [rsi + 8]\n",
            "mulx r10, rax, qword ptr [rsi + 16]\n",
            "add r9, rax\n",
            "mulx r11, rax, qword ptr [rsi + 24]\n",
            "adc r10, rax\n",
            "mulx r12, rax, qword ptr [rsi + 32]\n",
            "adc r11, rax\n",
            "mulx r13, rax, qword ptr [rsi + 40]\n",
            "adc r12, rax\n",
            "adc r13, 0\n",
            "mov rdx, qword ptr [rsi + 8]\n",
            "xor edi, edi\n",
            "mulx rbx, rax, qword ptr [rsi + 16]\n",
            "adcx r10, rax\n",
            "adox r11, rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 24]\n",
            "adcx r11, rax\n",
            "adox r12, rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 32]\n",
            "adcx r12, rax\n",
            "adox r13, rbx\n",
            "mulx r14, rax, qword ptr [rsi + 40]\n",
            "adcx r13, rax\n",
            "adox r14, rdi\n",
            "adcx r14, rdi\n",
            "mov rdx, qword ptr [rsi + 16]\n",
            "xor edi, edi\n",
            "mulx rbx, rax, qword ptr [rsi + 24]\n",
            "adcx r12, rax\n",
            "adox r13, rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 32]\n",
            "adcx r13, rax\n",
            "adox r14, rbx\n",
            "mulx r15, rax, qword ptr [rsi + 40]\n",
            "adcx r14, rax\n",
            "adox r15, rdi\n",
            "adcx r15, rdi\n",
            "mov rdx, qword ptr [rsi + 24]\n",
            "xor edi, edi\n",
            "mulx rbx, rax, qword ptr [rsi + 32]\n",
            "adcx r14, rax\n",
            "adox r15, rbx\n",
            "mulx rcx, rax, qword ptr [rsi + 40]\n",
            "adcx r15, rax\n",
            "adox rcx, rdi\n",
            "adcx rcx, rdi\n",
            "mov rdx, qword ptr [rsi + 32]\n",
            "mulx rbp, rax, qword ptr [rsi + 40]\n",
            "add rcx, rax\n",
            "adc rbp, 0\n",
            // Double (CF chain) and add the squares (OF chain): t0 pushed, t1..t10 in place,
            // t11 in rbx.
            "xor edi, edi\n",
            "mov rdx, qword ptr [rsi]\n",
            "mulx rbx, rax, rdx\n",
            "push rax\n",
            "adcx r8, r8\n",
            "adox r8, rbx\n",
            "mov rdx, qword ptr [rsi + 8]\n",
            "mulx rbx, rax, rdx\n",
            "adcx r9, r9\n",
            "adox r9, rax\n",
            "adcx r10, r10\n",
            "adox r10, rbx\n",
            "mov rdx, qword ptr [rsi + 16]\n",
            "mulx rbx, rax, rdx\n",
            "adcx r11, r11\n",
            "adox r11, rax\n",
            "adcx r12, r12\n",
            "adox r12, rbx\n",
            "mov rdx, qword ptr [rsi + 24]\n",
            "mulx rbx, rax, rdx\n",
            "adcx r13, r13\n",
            "adox r13, rax\n",
            "adcx r14, r14\n",
            "adox r14, rbx\n",
            "mov rdx, qword ptr [rsi + 32]\n",
            "mulx rbx, rax, rdx\n",
            "adcx r15, r15\n",
            "adox r15, rax\n",
            "adcx rcx, rcx\n",
            "adox rcx, rbx\n",
            "mov rdx, qword ptr [rsi + 40]\n",
            "mulx rbx, rax, rdx\n",
            "adcx rbp, rbp\n",
            "adox rbp, rax\n",
            "adcx rbx, rdi\n",
            "adox rbx, rdi\n",
            // High half t6..t11 to the stack: [rsp + 40] = t6 ... [rsp] = t11; t0 at
            // [rsp + 48].
            "push r13\n",
            "push r14\n",
            "push r15\n",
            "push rcx\n",
            "push rbp\n",
            "push rbx\n",
            // Reduce the low half in place: the six-word window r13 (t0), r8..r12 turns once
            // round, ending as r13, r8..r12 (low to high).
            "mov r13, qword ptr [rsp + 48]\n",
            p384_reduce_short!(r13, r8, r9, r10, r11, r12),
            p384_reduce_short!(r8, r9, r10, r11, r12, r13),
            p384_reduce_short!(r9, r10, r11, r12, r13, r8),
            p384_reduce_short!(r10, r11, r12, r13, r8, r9),
            p384_reduce_short!(r11, r12, r13, r8, r9, r10),
            p384_reduce_short!(r12, r13, r8, r9, r10, r11),
            // + the high half, the carry in r14.
            "xor r14d, r14d\n",
            "add r13, qword ptr [rsp + 40]\n",
            "adc r8, qword ptr [rsp + 32]\n",
            "adc r9, qword ptr [rsp + 24]\n",
            "adc r10, qword ptr [rsp + 16]\n",
            "adc r11, qword ptr [rsp + 8]\n",
            "adc r12, qword ptr [rsp]\n",
            "adc r14, 0\n",
            "add rsp, 56\n",
            p384_final!(r13, r8, r9, r10, r11, r12, r14),
        )
    };
}

/// `[rdx; r13..r8] = [r13..r8] + [rcx]`, reduced below `p` (P-384). Clobbers `rax`, `rcx`,
/// `rdx`, `rdi`.
macro_rules! p384_add_body {
    () => {
        concat!(
            "mov edx, 0\n",
            "add r8, qword ptr [rcx]\n",
            "adc r9, qword ptr [rcx + 8]\n",
            "adc r10, qword ptr [rcx + 16]\n",
            "adc r11, qword ptr [rcx + 24]\n",
            "adc r12, qword ptr [rcx + 32]\n",
            "adc r13, qword ptr [rcx + 40]\n",
            "adc rdx, 0\n",
            p384_sub_p_add_back!(),
        )
    };
}

/// `[r13..r8] = [r13..r8] - [rcx] mod p` (P-384). Clobbers `rax`, `rcx`, `rdx`, `rdi`.
macro_rules! p384_sub_body {
    () => {
        concat!(
            "sub r8, qword ptr [rcx]\n",
            "sbb r9, qword ptr [rcx + 8]\n",
            "sbb r10, qword ptr [rcx + 16]\n",
            "sbb r11, qword ptr [rcx + 24]\n",
            "sbb r12, qword ptr [rcx + 32]\n",
            "sbb r13, qword ptr [rcx + 40]\n",
            // rdx = all ones when the subtraction wrapped: add p back.
            "sbb rdx, rdx\n",
            p384_masked_add_p!(),
        )
    };
}

/// `[r13..r8] = [rcx] - [r13..r8] mod p` (P-384, the operands of [`p384_sub_body`] the other
/// way round). Clobbers `rax`, `rcx`, `rdx`, `rsi`, `rdi`, `r14`, `r15`.
macro_rules! p384_rsub_body {
    () => {
        concat!(
            "mov r14, qword ptr [rcx]\n",
            "mov r15, qword ptr [rcx + 8]\n",
            "mov rsi, qword ptr [rcx + 16]\n",
            "mov rdi, qword ptr [rcx + 24]\n",
            "mov rax, qword ptr [rcx + 32]\n",
            "mov rcx, qword ptr [rcx + 40]\n",
            "sub r14, r8\n",
            "sbb r15, r9\n",
            "sbb rsi, r10\n",
            "sbb rdi, r11\n",
            "sbb rax, r12\n",
            "sbb rcx, r13\n",
            "sbb rdx, rdx\n",
            "mov r8, r14\n",
            "mov r9, r15\n",
            "mov r10, rsi\n",
            "mov r11, rdi\n",
            "mov r12, rax\n",
            "mov r13, rcx\n",
            p384_masked_add_p!(),
        )
    };
}

/// The P-256 Montgomery product of `[rsi]` and `[rcx]` (4 limbs each) into `r12, r13, r8, r9`
/// (low to high). Clobbers `rax`, `rcx`, `rdx`, `rsi`, `rdi`, `r10`, `r11`, `r14`, `r15`; no
/// `rbx`, `rbp` or stack, no memory but the two inputs.
macro_rules! p256_mul_body {
    () => {
        concat!(
            // Row 0 on an empty accumulator: one carry chain, t5 = 0.
            "mov rdx, qword ptr [rcx]\n",
            "mulx r9, r8, qword ptr [rsi]\n",
            "mulx r10, rax, qword ptr [rsi + 8]\n",
            "add r9, rax\n",
            "mulx r11, rax, qword ptr [rsi + 16]\n",
            "adc r10, rax\n",
            "mulx r12, rax, qword ptr [rsi + 24]\n",
            "adc r11, rax\n",
            "adc r12, 0\n",
            "xor r13d, r13d\n",
            p256_reduce!(r8, r9, r10, r11, r12, r13),
            p256_row!(1, r9, r10, r11, r12, r13, r8),
            p256_reduce!(r9, r10, r11, r12, r13, r8),
            p256_row!(2, r10, r11, r12, r13, r8, r9),
            p256_reduce!(r10, r11, r12, r13, r8, r9),
            p256_row!(3, r11, r12, r13, r8, r9, r10),
            p256_reduce!(r11, r12, r13, r8, r9, r10),
            p256_final!(r12, r13, r8, r9, r10),
        )
    };
}

/// The P-256 Montgomery square of `[rsi]` (4 limbs) into `r8..r11` (low to high). Clobbers
/// `rax`, `rcx`, `rdx`, `rsi`, `rdi`, `r12..r15`; no `rbx`, `rbp` or stack, no memory but the
/// input.
macro_rules! p256_sqr_body {
    () => {
        concat!(
            // Cross products w1..w6 in r9..r14.
            "mov rdx, qword ptr [rsi]\n",
            "mulx r10, r9, qword ptr [rsi + 8]\n",
            "mulx r11, rax, qword ptr [rsi + 16]\n",
            "add r10, rax\n",
            "mulx r12, rax, qword ptr [rsi + 24]\n",
            "adc r11, rax\n",
            "adc r12, 0\n",
            "mov rdx, qword ptr [rsi + 8]\n",
            "xor edi, edi\n",
            "mulx rcx, rax, qword ptr [rsi + 16]\n",
            "adcx r11, rax\n",
            "adox r12, rcx\n",
            "mulx r13, rax, qword ptr [rsi + 24]\n",
            "adcx r12, rax\n",
            "adox r13, rdi\n",
            "adcx r13, rdi\n",
            "mov rdx, qword ptr [rsi + 16]\n",
            "mulx r14, rax, qword ptr [rsi + 24]\n",
            "add r13, rax\n",
            "adc r14, 0\n",
            // Double (CF chain) and add the squares (OF chain): t0..t7 in r8..r15.
            "xor edi, edi\n",
            "mov rdx, qword ptr [rsi]\n",
            "mulx rcx, r8, rdx\n",
            "adcx r9, r9\n",
            "adox r9, rcx\n",
            "mov rdx, qword ptr [rsi + 8]\n",
            "mulx rcx, rax, rdx\n",
            "adcx r10, r10\n",
            "adox r10, rax\n",
            "adcx r11, r11\n",
            "adox r11, rcx\n",
            "mov rdx, qword ptr [rsi + 16]\n",
            "mulx rcx, rax, rdx\n",
            "adcx r12, r12\n",
            "adox r12, rax\n",
            "adcx r13, r13\n",
            "adox r13, rcx\n",
            "mov rdx, qword ptr [rsi + 24]\n",
            "mulx r15, rax, rdx\n",
            "adcx r14, r14\n",
            "adox r14, rax\n",
            "adcx r15, rdi\n",
            "adox r15, rdi\n",
            // Reduce the low half r8..r11 in place (the window turns once round).
            "mov rcx, 0xffffffff00000001\n",
            p256_reduce_window!(r8, r9, r10, r11),
            p256_reduce_window!(r9, r10, r11, r8),
            p256_reduce_window!(r10, r11, r8, r9),
            p256_reduce_window!(r11, r8, r9, r10),
            // + the high half, carry in rdi.
            "xor edi, edi\n",
            "add r8, r12\n",
            "adc r9, r13\n",
            "adc r10, r14\n",
            "adc r11, r15\n",
            "adc rdi, 0\n",
            p256_final!(r8, r9, r10, r11, rdi),
        )
    };
}

/// `[r11..r8] = [r11..r8] + [rcx]`, reduced below `p` (P-256). Clobbers `rax`, `rdx`, `rdi`.
macro_rules! p256_add_body {
    () => {
        concat!(
            "mov edx, 0\n",
            "add r8, qword ptr [rcx]\n",
            "adc r9, qword ptr [rcx + 8]\n",
            "adc r10, qword ptr [rcx + 16]\n",
            "adc r11, qword ptr [rcx + 24]\n",
            "adc rdx, 0\n",
            p256_sub_p_add_back!(),
        )
    };
}

/// `[r11..r8] = [r11..r8] - [rcx] mod p` (P-256). Clobbers `rax`, `rdx`, `rdi`.
macro_rules! p256_sub_body {
    () => {
        concat!(
            "sub r8, qword ptr [rcx]\n",
            "sbb r9, qword ptr [rcx + 8]\n",
            "sbb r10, qword ptr [rcx + 16]\n",
            "sbb r11, qword ptr [rcx + 24]\n",
            // rdx = all ones when the subtraction wrapped: add p back.
            "sbb rdx, rdx\n",
            p256_masked_add_p!(),
        )
    };
}

/// `[r11..r8] = [rcx] - [r11..r8] mod p` (P-256, the operands of [`p256_sub_body`] the other
/// way round). Clobbers `rax`, `rdx`, `rdi`, `r12..r15`.
macro_rules! p256_rsub_body {
    () => {
        concat!(
            "mov r12, qword ptr [rcx]\n",
            "mov r13, qword ptr [rcx + 8]\n",
            "mov r14, qword ptr [rcx + 16]\n",
            "mov r15, qword ptr [rcx + 24]\n",
            "sub r12, r8\n",
            "sbb r13, r9\n",
            "sbb r14, r10\n",
            "sbb r15, r11\n",
            "sbb rdx, rdx\n",
            "mov r8, r12\n",
            "mov r9, r13\n",
            "mov r10, r14\n",
            "mov r11, r15\n",
            p256_masked_add_p!(),
        )
    };
}

/// The listed registers (`[register byte-offset, ...]`) to frame slot `$n` (`$s` bytes a slot,
/// slot `n` at `[rsp + s*n]`).
macro_rules! frame_store {
    ($s:literal, $n:literal, [$($r:tt $k:literal),+]) => {
        concat!($("mov qword ptr [rsp + ", $s, "*", $n, " + ", $k, "], ", stringify!($r), "\n",)+)
    };
}

/// Frame slot `$n` (`$s` bytes a slot) into the listed registers (`[register byte-offset, ...]`).
macro_rules! frame_load {
    ($s:literal, $n:literal, [$($r:tt $k:literal),+]) => {
        concat!($("mov ", stringify!($r), ", qword ptr [rsp + ", $s, "*", $n, " + ", $k, "]\n",)+)
    };
}

/// The words at the listed byte offsets of element `$sn` at `$src` to element `$dn` at `$dst`
/// (`$s` bytes an element), through `rax`.
macro_rules! copy {
    ($s:literal, $dst:literal $dn:literal, $src:literal $sn:literal, [$($k:literal)+]) => {
        concat!($(
            "mov rax, qword ptr [", $src, " + ", $s, "*", $sn, " + ", $k, "]\n",
            "mov qword ptr [", $dst, " + ", $s, "*", $dn, " + ", $k, "], rax\n",
        )+)
    };
}

/// The P-384 pieces of [`frame_op`] and [`fused_point`]: where each body leaves its result,
/// the registers of the linear operations (`r8..r13`), the element copy, and the saving of `rbx`
/// and `rbp` (which the bodies use).
macro_rules! f384 {
    (@mul $s:literal $d:literal) => {
        concat!(p384_mul_body!(), frame_store!($s, $d, [r14 0, r15 8, r8 16, r9 24, r10 32, r11 40]))
    };
    (@sqr $s:literal $d:literal) => {
        concat!(p384_sqr_body!(), frame_store!($s, $d, [r13 0, r8 8, r9 16, r10 24, r11 32, r12 40]))
    };
    (@add) => { p384_add_body!() };
    (@sub) => { p384_sub_body!() };
    (@rsub) => { p384_rsub_body!() };
    (@half) => { p384_half_body!() };
    // The previous operation's result (a `mul`, a `sqr` or a linear one, still in the registers
    // it left it in) into the linear operations' registers.
    (@regs mul) => { "mov r13, r11\nmov r12, r10\nmov r11, r9\nmov r10, r8\nmov r9, r15\nmov r8, r14\n" };
    (@regs sqr) => { "mov rax, r13\nmov r13, r12\nmov r12, r11\nmov r11, r10\nmov r10, r9\nmov r9, r8\nmov r8, rax\n" };
    (@regs lin) => { "" };
    (@shl $j:literal $rj:literal) => { p384_shl!($j, $rj) };
    (@load $s:literal $a:literal) => { frame_load!($s, $a, [r8 0, r9 8, r10 16, r11 24, r12 32, r13 40]) };
    (@store $s:literal $d:literal) => { frame_store!($s, $d, [r8 0, r9 8, r10 16, r11 24, r12 32, r13 40]) };
    (@copy $s:literal, $dst:literal $dn:literal, $src:literal $sn:literal) => {
        copy!($s, $dst $dn, $src $sn, ["0" "8" "16" "24" "32" "40"])
    };
    (@save) => { "push rbx\npush rbp\n" };
    (@restore) => { "pop rbp\npop rbx\n" };
}

/// The P-256 pieces of [`frame_op`] and [`fused_point`] (as [`f384`]; the bodies use neither
/// `rbx` nor `rbp`, so nothing is saved).
macro_rules! f256 {
    (@mul $s:literal $d:literal) => {
        concat!(p256_mul_body!(), frame_store!($s, $d, [r12 0, r13 8, r8 16, r9 24]))
    };
    (@sqr $s:literal $d:literal) => {
        concat!(p256_sqr_body!(), frame_store!($s, $d, [r8 0, r9 8, r10 16, r11 24]))
    };
    (@add) => { p256_add_body!() };
    (@sub) => { p256_sub_body!() };
    (@rsub) => { p256_rsub_body!() };
    (@half) => { p256_half_body!() };
    // As in [`f384`].
    (@regs mul) => { "mov r10, r8\nmov r11, r9\nmov r8, r12\nmov r9, r13\n" };
    (@regs sqr) => { "" };
    (@regs lin) => { "" };
    (@shl $j:literal $rj:literal) => { p256_shl!($j, $rj) };
    (@load $s:literal $a:literal) => { frame_load!($s, $a, [r8 0, r9 8, r10 16, r11 24]) };
    (@store $s:literal $d:literal) => { frame_store!($s, $d, [r8 0, r9 8, r10 16, r11 24]) };
    (@copy $s:literal, $dst:literal $dn:literal, $src:literal $sn:literal) => {
        copy!($s, $dst $dn, $src $sn, ["0" "8" "16" "24"])
    };
    (@save) => { "" };
    (@restore) => { "" };
}

/// Field operations of the fused routines on frame slots (field `$f`, [`f384`] or [`f256`], `$s`
/// bytes a slot, slot `n` at `[rsp + s*n]`): `mul d a b`, `sqr d a`, `add d a b`, `sub d a b`
/// leave `op(slot a, slot b)` in slot `d` (which may be `a` or `b`: the operands are read
/// first).
macro_rules! frame_op {
    // `op after prev d b`: the linear `op` with its first operand the result the previous
    // operation (`prev`: `mul`, `sqr`, `lin`) left in the registers, not reloaded from its slot
    // (a store forwarded to a load costs its latency on the formula's critical path).
    ($f:ident $s:literal, $op:ident after $prev:ident $d:literal $b:literal) => {
        concat!(
            $f!(@regs $prev),
            "lea rcx, [rsp + ", $s, "*", $b, "]\n",
            $f!(@$op),
            $f!(@store $s $d),
        )
    };
    // `times2` or `half` of the previous result, as above.
    ($f:ident $s:literal, $op:ident of $prev:ident $d:literal) => {
        concat!($f!(@regs $prev), frame_op!(@shift $f $op), $f!(@store $s $d))
    };
    (@shift $f:ident times2) => { $f!(@shl "1" "63") };
    (@shift $f:ident half) => { $f!(@half) };
    ($f:ident $s:literal, mul $d:literal $a:literal $b:literal) => {
        concat!(
            "lea rsi, [rsp + ", $s, "*", $a, "]\n",
            "lea rcx, [rsp + ", $s, "*", $b, "]\n",
            $f!(@mul $s $d),
        )
    };
    ($f:ident $s:literal, sqr $d:literal $a:literal) => {
        concat!("lea rsi, [rsp + ", $s, "*", $a, "]\n", $f!(@sqr $s $d))
    };
    ($f:ident $s:literal, add $d:literal $a:literal $b:literal) => {
        frame_op!(@linear $f $s, add $d $a $b)
    };
    ($f:ident $s:literal, sub $d:literal $a:literal $b:literal) => {
        frame_op!(@linear $f $s, sub $d $a $b)
    };
    (@linear $f:ident $s:literal, $op:ident $d:literal $a:literal $b:literal) => {
        concat!(
            $f!(@load $s $a),
            "lea rcx, [rsp + ", $s, "*", $b, "]\n",
            $f!(@$op),
            $f!(@store $s $d),
        )
    };
}

/// The Jacobian doubling `2 (X : Y : Z)` (`a = -3`, the formula of `point::double_formula`,
/// 4M + 4S, the result scaled by 1/2) as frame operations: inputs in slots 0-2, `X3`, `Y3`,
/// `Z3` in slots 13, 20, 15. The order puts an independent operation after each link of the
/// chain the result waits on (`delta`, `X - delta`, `t`, `alpha`, `alpha^2`, `X3`, `Y3`):
/// `gamma` after `X + delta`, `beta` and `2 beta` after `alpha`, `Z3` and `gamma^2` after
/// `X3`, so that the out-of-order core overlaps them (`docs/arithmetic.md`).
macro_rules! double_program {
    ($f:ident $s:literal) => {
        concat!(
            // delta = Z^2 (3).
            frame_op!($f $s, sqr "3" "2"),
            // X - delta (6).
            frame_op!($f $s, sub "6" "0" "3"),
            // X + delta (7).
            frame_op!($f $s, add "7" "0" "3"),
            // gamma = Y^2 (4).
            frame_op!($f $s, sqr "4" "1"),
            // t = (X - delta)(X + delta) (8); alpha = t / 2 + t (9).
            frame_op!($f $s, mul "8" "6" "7"),
            frame_op!($f $s, half of mul "9"),
            frame_op!($f $s, add after lin "9" "8"),
            // beta = X gamma (5), 2 beta (10).
            frame_op!($f $s, mul "5" "0" "4"),
            frame_op!($f $s, times2 of mul "10"),
            // X3 = alpha^2 - 2 beta (12 -> 13); beta - X3 (16), from X3 in the registers.
            frame_op!($f $s, sqr "12" "9"),
            frame_op!($f $s, sub after sqr "13" "10"),
            frame_op!($f $s, rsub after lin "16" "5"),
            // Z3 = Y Z (15).
            frame_op!($f $s, mul "15" "1" "2"),
            // gamma^2 (19).
            frame_op!($f $s, sqr "19" "4"),
            // Y3 = alpha (beta - X3) - gamma^2 (17 -> 20).
            frame_op!($f $s, mul "17" "9" "16"),
            frame_op!($f $s, sub after mul "20" "19"),
        )
    };
}

/// A point operation in one block on field `$f` with `$s`-byte elements: the `$k` input
/// elements at the pointers of the array at `rsi` are copied to frame slots `0..$k`, the
/// program (frame operations) runs, and the five slots it names are written at `rdi` in order.
/// Saves what `$f` saves, takes `$frame s + 16` bytes below the stack pointer (a frame of
/// `$frame` slots, the output pointer stored above them), and gives it all back before it ends.
/// Clobbers `rax`, `rcx`, `rdx`, `rsi`, `rdi`, `r8..r15`.
macro_rules! fused_point {
    // The method `Adx::$name`: `$n` limbs, `$k` inputs, `$m` outputs (frame slot `$out` to
    // output element `$dst`).
    (fn $name:ident, $f:ident $s:literal, $n:literal, $k:literal, $m:literal, $frame:literal,
     [$($slot:literal)+], [$($out:literal => $dst:literal)+], $program:expr,
     $(#[$doc:meta])+) => {
        $(#[$doc])+
        #[inline(always)]
        pub(crate) fn $name(self, inputs: [&[u64; $n]; $k]) -> [[u64; $n]; $m] {
            let mut out = [[0u64; $n]; $m];
            let ptrs = inputs.map(|e| e.as_ptr());
            // The block reads `ptrs` and the element at each of its pointers, writes the `$m`
            // elements at `out`, and its own stack: it saves what the field's pieces save
            // (`rbx` and `rbp` on P-384), takes a frame of `$frame` slots and stores the output
            // pointer above them (one `sub rsp` of `$frame s + 16`), and gives all of it back
            // before it ends; each P-384 squaring pushes 7 words below the frame and releases
            // them. The block does not set `nostack`, so this use of the stack is allowed.
            // Every other register it writes is a clobber.
            // SAFETY: BMI2/ADX proven by `self`; inputs, `out` valid, `out` distinct; stack above.
            unsafe {
                core::arch::asm!(
                    $f!(@save),
                    concat!("sub rsp, ", $s, "*", $frame, " + 16\n"),
                    concat!("mov qword ptr [rsp + ", $s, "*", $frame, "], rdi\n"),
                    $(
                        concat!("mov rdx, qword ptr [rsi + 8*", $slot, "]\n"),
                        $f!(@copy $s, "rsp" $slot, "rdx" "0"),
                    )+
                    $program,
                    concat!("mov rdi, qword ptr [rsp + ", $s, "*", $frame, "]\n"),
                    $($f!(@copy $s, "rdi" $dst, "rsp" $out),)+
                    concat!("add rsp, ", $s, "*", $frame, " + 16\n"),
                    $f!(@restore),
                    inout("rsi") ptrs.as_ptr() => _,
                    inout("rdi") out.as_mut_ptr() => _,
                    out("rax") _,
                    out("rcx") _,
                    out("rdx") _,
                    out("r8") _,
                    out("r9") _,
                    out("r10") _,
                    out("r11") _,
                    out("r12") _,
                    out("r13") _,
                    out("r14") _,
                    out("r15") _,
                );
            }
            out
        }
    };
}

/// The part both additions share, as frame operations: the second point scaled to the first's
/// `Z` (`U2 = X2 Z1^2`, `S2 = Y2 Z1 Z1^2` from `X2`, `Y2`, `Z1`, `Z1^2`), `H = U2 - U1`,
/// `r = S2 - S1`, then (the values of `point::add_common`): `H^2`, `H^3`, `V = U1 H^2`, `r^2`,
/// `r^2 - H^3`, `2 V`, `X3 = r^2 - H^3 - 2 V`, `V - X3`, `r (V - X3)`, `S1 H^3`, `Y3`. The slots
/// after `=>` are those results in that order (`U2`, `Y2 Z1`, `S2`, `H`, `r`, then the eleven);
/// `$z3` is the caller's `Z3` work, run before `r (V - X3)`. As in the doubling
/// ([`double_program`]), an operation the chain to `Y3` does not wait on follows each link of
/// that chain (`Y2 Z1` before `U2`, `r` and `r^2` after `H` and `H^2`, `S1 H^3` and `Z3` among
/// the last links): 5% faster on P-256 than the formula's order (`docs/arithmetic.md`).
macro_rules! add_common {
    ($f:ident $s:literal, $x2:literal $y2:literal $z1:literal $z1z1:literal $u1:literal $s1:literal
     => $u2:literal $t:literal $s2:literal $h:literal $r:literal,
     $hh:literal $hhh:literal $v:literal $r2:literal $w0:literal $v2:literal $x3:literal
     $w:literal $rw:literal $sh:literal $y3:literal, $z3:expr) => {
        concat!(
            frame_op!($f $s, mul $t $y2 $z1),
            frame_op!($f $s, mul $u2 $x2 $z1z1),
            frame_op!($f $s, mul $s2 $t $z1z1),
            frame_op!($f $s, sub $h $u2 $u1),
            frame_op!($f $s, sub $r $s2 $s1),
            frame_op!($f $s, sqr $hh $h),
            frame_op!($f $s, sqr $r2 $r),
            frame_op!($f $s, mul $hhh $h $hh),
            frame_op!($f $s, mul $v $u1 $hh),
            frame_op!($f $s, sub $w0 $r2 $hhh),
            frame_op!($f $s, add $v2 $v $v),
            frame_op!($f $s, sub $x3 $w0 $v2),
            frame_op!($f $s, mul $sh $s1 $hhh),
            frame_op!($f $s, sub $w $v $x3),
            $z3,
            frame_op!($f $s, mul $rw $r $w),
            frame_op!($f $s, sub $y3 $rw $sh),
        )
    };
}

/// The mixed addition `(X1 : Y1 : Z1) + (X2, Y2)` of `point::madd_formula` (8M + 3S) as frame
/// operations: inputs in slots 0-4, `X3`, `Y3`, `Z3`, `H`, `r` in slots 17, 21, 22, 9, 10.
macro_rules! madd_program {
    ($f:ident $s:literal) => {
        concat!(
            // Z1^2 (5); U2 (6), Y2 Z1 (7), S2 (8), H (9), r (10), X3 (17), Y3 (21), with
            // U1 = X1 and S1 = Y1; Z3 = Z1 H (22).
            frame_op!($f $s, sqr "5" "2"),
            add_common!($f $s, "3" "4" "2" "5" "0" "1" => "6" "7" "8" "9" "10",
                "11" "12" "13" "14" "15" "16" "17" "18" "19" "20" "21",
                frame_op!($f $s, mul "22" "2" "9")),
        )
    };
}

/// The Jacobian addition `(X1 : Y1 : Z1) + (X2 : Y2 : Z2)` of `point::add_formula` (12M + 4S)
/// as frame operations: inputs in slots 0-5, `X3`, `Y3`, `Z3`, `H`, `r` in slots 22, 26, 28, 14,
/// 15.
macro_rules! add_program {
    ($f:ident $s:literal) => {
        concat!(
            // Z1^2 (6), Z2^2 (7); U1 = X1 Z2^2 (8), S1 = Y1 Z2 Z2^2 (10 -> 11).
            frame_op!($f $s, sqr "6" "2"),
            frame_op!($f $s, sqr "7" "5"),
            frame_op!($f $s, mul "10" "1" "5"),
            frame_op!($f $s, mul "8" "0" "7"),
            frame_op!($f $s, mul "11" "10" "7"),
            // Z1 Z2 (27).
            frame_op!($f $s, mul "27" "2" "5"),
            // U2 (9), Y2 Z1 (12), S2 (13), H (14), r (15), X3 (22), Y3 (26); Z3 = Z1 Z2 H (28).
            add_common!($f $s, "3" "4" "2" "6" "8" "11" => "9" "12" "13" "14" "15",
                "16" "17" "18" "19" "20" "21" "22" "23" "24" "25" "26",
                frame_op!($f $s, mul "28" "27" "14")),
        )
    };
}

/// The co-Z addition `(X1 : Y1 : Z) + (X2 : Y2 : Z)` of `point::zaddu_formula` (5M + 2S) as
/// frame operations: inputs `X1`, `Y1`, `X2`, `Y2`, `Z` in slots 0-4; `X3`, `Y3`, `Z3` and the
/// first point at `Z3`, `W1` and `A1`, in slots 14, 17, 18, 7, 12.
macro_rules! zaddu_program {
    ($f:ident $s:literal) => {
        concat!(
            // e = X1 - X2 (5), C = e^2 (6), f = Y1 - Y2 (9), Z3 = Z e (18).
            frame_op!($f $s, sub "5" "0" "2"),
            frame_op!($f $s, sqr "6" "5"),
            frame_op!($f $s, sub "9" "1" "3"),
            frame_op!($f $s, mul "18" "4" "5"),
            // W1 = X1 C (7), W2 = X2 C (8), D = f^2 (10), W1 - W2 (11), A1 = Y1 (W1 - W2) (12).
            frame_op!($f $s, mul "7" "0" "6"),
            frame_op!($f $s, mul "8" "2" "6"),
            frame_op!($f $s, sqr "10" "9"),
            frame_op!($f $s, sub "11" "7" "8"),
            // X3 = D - W1 - W2 (13 -> 14), W1 - X3 (15) from X3 in the registers.
            frame_op!($f $s, sub "13" "10" "7"),
            frame_op!($f $s, sub after lin "14" "8"),
            frame_op!($f $s, rsub after lin "15" "7"),
            frame_op!($f $s, mul "12" "1" "11"),
            // Y3 = f (W1 - X3) - A1 (16 -> 17).
            frame_op!($f $s, mul "16" "9" "15"),
            frame_op!($f $s, sub after mul "17" "12"),
        )
    };
}

/// One block of plain integer instructions (no extension) over `a`, whose limbs are loaded into
/// the listed registers (`[register => output @ byte offset, ...]`), and `b` (at `rcx`),
/// leaving the result in those registers: the operand list shared by the additions and
/// subtractions of both fields. The block reads `a` and `b` (as many limbs as listed), writes
/// no memory and no stack, and every register it writes is an operand.
macro_rules! linear {
    ($a:expr, $b:expr, [$($reg:tt => $out:ident @ $off:tt),+], $($body:tt)*) => {{
        $(let $out: u64;)+
        // SAFETY: `$a` and `$b` are valid `[u64; N]` references, only read; see the macro's doc.
        unsafe {
            core::arch::asm!(
                $(concat!("mov ", $reg, ", qword ptr [rsi + ", $off, "]"),)+
                $($body)*
                inout("rsi") $a.as_ptr() => _,
                inout("rcx") $b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                $(out($reg) $out,)+
                options(pure, readonly, nostack),
            );
        }
        [$($out),+]
    }};
}

/// [`linear`] with the six P-384 limbs in `r8..r13`.
macro_rules! p384_linear {
    ($a:expr, $b:expr, $($body:tt)*) => {
        linear!(
            $a,
            $b,
            ["r8" => r0 @ 0, "r9" => r1 @ 8, "r10" => r2 @ 16, "r11" => r3 @ 24, "r12" => r4 @ 32, "r13" => r5 @ 40],
            $($body)*
        )
    };
}

/// [`linear`] with the four P-256 limbs in `r8..r11`.
macro_rules! p256_linear {
    ($a:expr, $b:expr, $($body:tt)*) => {
        linear!($a, $b, ["r8" => r0 @ 0, "r9" => r1 @ 8, "r10" => r2 @ 16, "r11" => r3 @ 24], $($body)*)
    };
}

impl Adx {
    /// P-384 Montgomery multiplication `a * b / 2^384 mod p` of fully reduced inputs, fully
    /// reduced output; equal to the portable `p384_field::mont_mul` for all inputs below `p`.
    #[inline(always)]
    pub(crate) fn p384_mont_mul(self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
        // The block reads 48 bytes at each of `a` and `b` and writes no memory. `rbx` and `rbp`,
        // which cannot be named as operands, are pushed first and popped last (the block does not
        // set `nostack`, so pushing is allowed); no memory operand is relative to `rsp`. Every
        // other register it writes is an output or a clobber.
        // SAFETY: `self` proves BMI2 and ADX; `a`, `b` are valid `[u64; 6]`; stack use as above.
        unsafe {
            core::arch::asm!(
                "push rbx",
                "push rbp",
                p384_mul_body!(),
                "pop rbp",
                "pop rbx",
                inout("rsi") a.as_ptr() => _,
                inout("rcx") b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                out("r14") r0,
                out("r15") r1,
                out("r8") r2,
                out("r9") r3,
                out("r10") r4,
                out("r11") r5,
                out("r12") _,
                out("r13") _,
                options(pure, readonly),
            );
        }
        [r0, r1, r2, r3, r4, r5]
    }

    /// P-384 Montgomery squaring `a^2 / 2^384 mod p`: the 15 cross products once, doubled, plus
    /// the 6 squares (21 word multiplications), then the 6 reduction steps on the low half, to
    /// which the high half is added (`(L + M p) / 2^384 + H`, below `2p`). Equal to the portable
    /// `p384_field::mont_sqr` for all inputs below `p`.
    #[inline(always)]
    pub(crate) fn p384_mont_sqr(self, a: &[u64; 6]) -> [u64; 6] {
        let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
        // The block reads 48 bytes at `a` and writes no memory but its own stack: it pushes `rbx`
        // and `rbp` (not nameable as operands) first and pops them last, and in between pushes 7
        // words of the product that it reads back at fixed offsets from `rsp` and releases
        // (`add rsp, 56`) before those pops. The block does not set `nostack`, so this use of the
        // stack is allowed. Every other register it writes is an output or a clobber.
        // SAFETY: `self` proves BMI2 and ADX; `a` is a valid `[u64; 6]`; stack use as above.
        unsafe {
            core::arch::asm!(
                "push rbx",
                "push rbp",
                p384_sqr_body!(),
                "pop rbp",
                "pop rbx",
                inout("rsi") a.as_ptr() => _,
                out("rax") _,
                out("rcx") _,
                out("rdx") _,
                out("rdi") _,
                out("r13") r0,
                out("r8") r1,
                out("r9") r2,
                out("r10") r3,
                out("r11") r4,
                out("r12") r5,
                out("r14") _,
                out("r15") _,
                options(pure, readonly),
            );
        }
        [r0, r1, r2, r3, r4, r5]
    }

    /// P-384 modular addition `a + b mod p` of fully reduced inputs.
    #[inline(always)]
    pub(crate) fn p384_add(self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        p384_linear!(a, b, p384_add_body!(),)
    }

    /// P-384 modular subtraction `a - b mod p` of fully reduced inputs.
    #[inline(always)]
    pub(crate) fn p384_sub(self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        p384_linear!(a, b, p384_sub_body!(),)
    }

    /// P-256 Montgomery multiplication `a * b / 2^256 mod p` of fully reduced inputs, fully
    /// reduced output; equal to the portable `p256_field::mont_mul` for all inputs below `p`.
    #[inline(always)]
    pub(crate) fn p256_mont_mul(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // The block reads 32 bytes at each of `a` and `b`, writes no memory and no stack; every
        // register it writes is an output or a clobber.
        // SAFETY: `self` proves BMI2 and ADX; `a` and `b` are valid `[u64; 4]` references.
        unsafe {
            core::arch::asm!(
                p256_mul_body!(),
                inout("rsi") a.as_ptr() => _,
                inout("rcx") b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                out("r12") r0,
                out("r13") r1,
                out("r8") r2,
                out("r9") r3,
                out("r10") _,
                out("r11") _,
                out("r14") _,
                out("r15") _,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }

    /// P-256 Montgomery squaring `a^2 / 2^256 mod p`: the 6 cross products once, doubled, plus the
    /// 4 squares (10 word multiplications instead of 16), then the 4 reduction steps on the low
    /// half `L`, to which the high half `H` is added (`(L + M p) / 2^256 <= p` and `H < p`, so the
    /// sum is below `2p`), then the final conditional subtraction. Equal to the portable
    /// `p256_field::mont_sqr` for all inputs below `p`.
    #[inline(always)]
    pub(crate) fn p256_mont_sqr(self, a: &[u64; 4]) -> [u64; 4] {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // The block reads 32 bytes at `a`, writes no memory and no stack; it uses only nameable
        // registers (no `rbx`/`rbp`, no push), and every register it writes is an output or a
        // clobber.
        // SAFETY: `self` proves BMI2 and ADX; `a` is a valid `[u64; 4]` reference.
        unsafe {
            core::arch::asm!(
                p256_sqr_body!(),
                inout("rsi") a.as_ptr() => _,
                out("rax") _,
                out("rcx") _,
                out("rdx") _,
                out("rdi") _,
                out("r8") r0,
                out("r9") r1,
                out("r10") r2,
                out("r11") r3,
                out("r12") _,
                out("r13") _,
                out("r14") _,
                out("r15") _,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }

    /// P-256 modular addition `a + b mod p` of fully reduced inputs.
    #[inline(always)]
    pub(crate) fn p256_add(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        p256_linear!(a, b, p256_add_body!(),)
    }

    /// P-256 modular subtraction `a - b mod p` of fully reduced inputs.
    #[inline(always)]
    pub(crate) fn p256_sub(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        p256_linear!(a, b, p256_sub_body!(),)
    }

    fused_point!(fn p384_double, f384 48, 6, 3, 3, 21, ["0" "1" "2"], ["13" => "0" "20" => "1" "15" => "2"],
        double_program!(f384 48),
        /// The P-384 Jacobian doubling `2 (X : Y : Z)` (`a = -3`; inputs in that order) in one
        /// block: the formula of [`JacobianPoint::double`](super::JacobianPoint::double)
        /// (4M + 4S), every field operation the one of this backend, the intermediate values
        /// in a stack frame of its own. Equal to that formula on the portable code for all
        /// coordinates below `p`.
    );
    fused_point!(fn p256_double, f256 32, 4, 3, 3, 21, ["0" "1" "2"], ["13" => "0" "20" => "1" "15" => "2"],
        double_program!(f256 32),
        /// The P-256 Jacobian doubling, as [`Adx::p384_double`].
    );
    fused_point!(fn p384_madd, f384 48, 6, 5, 5, 23, ["0" "1" "2" "3" "4"], ["17" => "0" "21" => "1" "22" => "2" "9" => "3" "10" => "4"],
        madd_program!(f384 48),
        /// The P-384 mixed addition `(X1 : Y1 : Z1) + (X2, Y2)` (inputs in that order) in one
        /// block: the formula of `point::madd_formula` (8M + 3S) without exceptional-case
        /// handling, every field operation the one of this backend, the intermediate values in
        /// a stack frame of its own; returns `X3`, `Y3`, `Z3`, `H` and `r`. Equal to that
        /// formula on the portable code for all coordinates below `p`.
    );
    fused_point!(fn p256_madd, f256 32, 4, 5, 5, 23, ["0" "1" "2" "3" "4"], ["17" => "0" "21" => "1" "22" => "2" "9" => "3" "10" => "4"],
        madd_program!(f256 32),
        /// The P-256 mixed addition, as [`Adx::p384_madd`].
    );
    fused_point!(fn p384_add_points, f384 48, 6, 6, 5, 29, ["0" "1" "2" "3" "4" "5"], ["22" => "0" "26" => "1" "28" => "2" "14" => "3" "15" => "4"],
        add_program!(f384 48),
        /// The P-384 Jacobian addition `(X1 : Y1 : Z1) + (X2 : Y2 : Z2)` (inputs in that order)
        /// in one block: the formula of `point::add_formula` (12M + 4S) without
        /// exceptional-case handling, as [`Adx::p384_madd`]; returns `X3`, `Y3`, `Z3`, `H` and
        /// `r`. Equal to that formula on the portable code for all coordinates below `p`.
    );
    fused_point!(fn p256_add_points, f256 32, 4, 6, 5, 29, ["0" "1" "2" "3" "4" "5"], ["22" => "0" "26" => "1" "28" => "2" "14" => "3" "15" => "4"],
        add_program!(f256 32),
        /// The P-256 Jacobian addition, as [`Adx::p384_add_points`].
    );

    fused_point!(fn p384_zaddu, f384 48, 6, 5, 5, 19, ["0" "1" "2" "3" "4"], ["14" => "0" "17" => "1" "18" => "2" "7" => "3" "12" => "4"],
        zaddu_program!(f384 48),
        /// The P-384 co-Z addition `(X1 : Y1 : Z) + (X2 : Y2 : Z)` (inputs `X1`, `Y1`, `X2`,
        /// `Y2`, `Z`) in one block: the formula of `point::zaddu_formula` (5M + 2S) without
        /// exceptional-case handling, as [`Adx::p384_madd`]; returns `X3`, `Y3`, `Z3` and the
        /// first point at `Z3`, `W1` and `A1`. Equal to that formula on the portable code for
        /// all coordinates below `p`.
    );
    fused_point!(fn p256_zaddu, f256 32, 4, 5, 5, 19, ["0" "1" "2" "3" "4"], ["14" => "0" "17" => "1" "18" => "2" "7" => "3" "12" => "4"],
        zaddu_program!(f256 32),
        /// The P-256 co-Z addition, as [`Adx::p384_zaddu`].
    );
}

#[cfg(test)]
mod tests {
    use super::super::field::FieldOps;
    use super::super::point::{add_formula, double_formula, madd_formula, zaddu_formula};
    use super::super::{p256_field, p384_field, P256Fe, P384Fe};
    use super::Adx;
    use rand::{RngExt, SeedableRng};

    type Binary<const N: usize> = fn(&[u64; N], &[u64; N]) -> [u64; N];
    type AsmBinary<const N: usize> = fn(Adx, &[u64; N], &[u64; N]) -> [u64; N];
    type Unary<const N: usize> = fn(&[u64; N]) -> [u64; N];
    type AsmUnary<const N: usize> = fn(Adx, &[u64; N]) -> [u64; N];
    type AsmDouble<const N: usize> = fn(Adx, [&[u64; N]; 3]) -> [[u64; N]; 3];
    type AsmPoint<const N: usize, const K: usize> = fn(Adx, [&[u64; N]; K]) -> [[u64; N]; 5];

    /// A field's routines, as the backend and as the portable oracle.
    struct Routines<const N: usize> {
        p: [u64; N],
        below_p: fn(&[u64; N]) -> bool,
        ops: [(&'static str, AsmBinary<N>, Binary<N>); 3],
        unary: [(&'static str, AsmUnary<N>, Unary<N>); 1],
    }

    /// Every routine equals the portable one on all pairs of edge values (see [`edge_values`])
    /// and on 200,000 random pairs below `p`, one in ten with an edge operand. The rare carry
    /// paths these miss are driven by `group::carry_paths`.
    fn agree<const N: usize>(f: &Routines<N>, seed: u64) {
        let Some(adx) = super::get() else {
            eprintln!("adx: BMI2/ADX not available here; nothing to compare");
            return;
        };
        let edges = edge_values(f);
        let check = |a: &[u64; N], b: &[u64; N]| {
            for (name, asm, portable) in &f.ops {
                assert_eq!(asm(adx, a, b), portable(a, b), "{name} {a:x?} {b:x?}");
            }
            for (name, asm, portable) in &f.unary {
                assert_eq!(asm(adx, a), portable(a), "{name} {a:x?}");
            }
        };
        for a in &edges {
            for b in &edges {
                check(a, b);
            }
        }
        let mut random = random_values(f, seed);
        let mut pick = rand::rngs::StdRng::seed_from_u64(!seed);
        for _ in 0..200_000 {
            let a = random();
            let b = if pick.random_bool(0.1) {
                edges[pick.random_range(0..edges.len())]
            } else {
                random()
            };
            check(&a, &b);
            check(&b, &a);
        }
    }

    /// Uniformly random values below `p`.
    fn random_values<const N: usize>(f: &Routines<N>, seed: u64) -> impl FnMut() -> [u64; N] {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let below_p = f.below_p;
        move || loop {
            let v: [u64; N] = core::array::from_fn(|_| rng.random());
            if below_p(&v) {
                return v;
            }
        }
    }

    /// The edge values below `p`: 0, 1, 2, `p - 1`, `p - 2`, `p - (2^32 - 1)`, limbs 0-2 all
    /// ones (3 of 4 limbs on P-256, half on P-384), the top three limbs all ones (P-384 only:
    /// on P-256 that is above `p`), the top limb `2^63 - 1` under all-ones limbs (`2^(64 N - 1)
    /// - 1`), alternating all-ones limbs (the even ones), the top bit of every limb; and the
    /// doubling's directed values (`specs/arith-review-2.md`, appendix; `carry_paths` T8-T11):
    /// `2^(32 N)` (with `Z = 0` the halving's `t` is 1 raw: odd without a carry), `R mod p`
    /// (Montgomery one: with `Y = R mod p`, `beta = X`), and the `X` that make `2 beta`'s fold
    /// carry through words 1 to 4 (P-384) or borrow through words 1 and 2 or leave the low word
    /// all ones (P-256): `2^63` in the top limb under all-ones limbs 0..k, zeros above.
    fn edge_values<const N: usize>(f: &Routines<N>) -> Vec<[u64; N]> {
        let minus = |d: u64| {
            let mut v = f.p;
            v[0] -= d;
            v
        };
        let small = |x: u64| {
            let mut v = [0u64; N];
            v[0] = x;
            v
        };
        let pattern = |g: fn(usize) -> u64| core::array::from_fn::<u64, N, _>(g);
        [
            small(0),
            small(1),
            small(2),
            minus(1),
            minus(2),
            minus(u64::MAX >> 32),
            pattern(|i| if i < 3 { u64::MAX } else { 0 }),
            pattern(|i| if i + 3 >= N { u64::MAX } else { 0 }),
            pattern(|i| if i + 1 == N { u64::MAX >> 1 } else { u64::MAX }),
            pattern(|i| if i % 2 == 0 { u64::MAX } else { 0 }),
            pattern(|_| 1 << 63),
            pattern(|i| u64::from(i == N / 2)),
            // R mod p = 2^(64 N) - p (`!p + 1`: no carry out of word 0 on either curve).
            core::array::from_fn(|i| (!f.p[i]).wrapping_add(u64::from(i == 0))),
            pattern(|i| if i + 1 == N { 1 << 63 } else { 0 }),
            pattern(|i| match i {
                0 => u64::MAX,
                i if i + 1 == N => 1 << 63,
                _ => 0,
            }),
            pattern(|i| match i {
                0 | 1 => u64::MAX,
                i if i + 1 == N => 1 << 63,
                _ => 0,
            }),
            pattern(|i| match i {
                i if i + 1 == N => 1 << 63,
                i if i < 3 => u64::MAX,
                _ => 0,
            }),
            pattern(|i| match i {
                i if i + 1 == N => 1 << 63,
                i if i < 4 => u64::MAX,
                _ => 0,
            }),
            pattern(|i| if i + 1 == N { 1 << 63 } else { u64::MAX }),
        ]
        .into_iter()
        .filter(|v| (f.below_p)(v))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
    }

    /// A field's routines and oracles, as `runtime_ops!` pairs them in its `portable` module.
    macro_rules! routines {
        ($field:ident) => {{
            use $field::portable as p;
            Routines {
                p: p::P,
                below_p: p::below_p,
                ops: p::BINARY,
                unary: p::UNARY,
            }
        }};
    }

    /// The P-384 routines and their portable oracles.
    fn p384_routines() -> Routines<6> {
        routines!(p384_field)
    }

    #[test]
    fn p384_routines_equal_the_portable_code() {
        agree(&p384_routines(), 0x384);
    }

    /// The P-256 routines and their portable oracles.
    fn p256_routines() -> Routines<4> {
        routines!(p256_field)
    }

    #[test]
    fn p256_routines_equal_the_portable_code() {
        agree(&p256_routines(), 0x256);
    }

    /// A fused doubling equals `point::double_formula` on the portable field type `F` (limbs
    /// wrapped by `fe`, unwrapped by `limbs`) on all triples of edge values and 20,000 random
    /// ones.
    fn fused_double_agrees<const N: usize, F: FieldOps>(
        f: &Routines<N>,
        double: AsmDouble<N>,
        fe: fn([u64; N]) -> F,
        limbs: fn(F) -> [u64; N],
        seed: u64,
    ) {
        let Some(adx) = super::get() else {
            eprintln!("adx: BMI2/ADX not available here; nothing to compare");
            return;
        };
        let check = |x: &[u64; N], y: &[u64; N], z: &[u64; N]| {
            let expect = double_formula(&fe(*x), &fe(*y), &fe(*z)).map(limbs);
            assert_eq!(double(adx, [x, y, z]), expect, "{x:x?} {y:x?} {z:x?}");
        };
        let edges = edge_values(f);
        for x in &edges {
            for y in &edges {
                for z in &edges {
                    check(x, y, z);
                }
            }
        }
        let mut random = random_values(f, seed);
        for _ in 0..20_000 {
            let (x, y, z) = (random(), random(), random());
            check(&x, &y, &z);
        }
    }

    #[test]
    fn p384_fused_double_equals_the_formula() {
        fused_double_agrees(&p384_routines(), Adx::p384_double, P384Fe, |v| v.0, 0xd384);
    }

    #[test]
    fn p256_fused_double_equals_the_formula() {
        fused_double_agrees(&p256_routines(), Adx::p256_double, P256Fe, |v| v.0, 0xd256);
    }

    /// A fused addition (`K` input coordinates) equals its formula on the portable field type
    /// `F` (limbs wrapped by `fe`, unwrapped by `limbs`): on every pair of edge values at each
    /// pair of input positions in `pairs` (the other inputs random), on 20,000 random inputs,
    /// and on `equal` (equal operands, where `H = r = 0`: the caller's exceptional case).
    #[allow(clippy::too_many_arguments)]
    fn fused_point_agrees<const N: usize, const K: usize, F: FieldOps>(
        f: &Routines<N>,
        asm: AsmPoint<N, K>,
        formula: fn([F; K]) -> [F; 5],
        fe: fn([u64; N]) -> F,
        limbs: fn(F) -> [u64; N],
        pairs: &[(usize, usize)],
        equal: [[u64; N]; K],
        seed: u64,
    ) {
        let Some(adx) = super::get() else {
            eprintln!("adx: BMI2/ADX not available here; nothing to compare");
            return;
        };
        let check = |v: &[[u64; N]; K]| {
            assert_eq!(
                asm(adx, v.each_ref()),
                formula(v.map(fe)).map(limbs),
                "{v:x?}"
            );
        };
        let edges = edge_values(f);
        let mut random = random_values(f, seed);
        for a in &edges {
            for b in &edges {
                for &(i, j) in pairs {
                    let mut v: [[u64; N]; K] = core::array::from_fn(|_| random());
                    v[i] = *a;
                    v[j] = *b;
                    check(&v);
                }
            }
        }
        for _ in 0..20_000 {
            let v: [[u64; N]; K] = core::array::from_fn(|_| random());
            check(&v);
        }
        check(&equal);
    }

    /// The mixed addition's check: edge values at both points' `X`, both `Y`, `Z1` with each
    /// of `X2`, `Y2`, and `X1` with `Y1`; equal operands `Z1 = 1` with the same `X` and `Y`.
    fn fused_madd_agrees<const N: usize, F: FieldOps>(
        f: &Routines<N>,
        asm: AsmPoint<N, 5>,
        fe: fn([u64; N]) -> F,
        limbs: fn(F) -> [u64; N],
        seed: u64,
    ) {
        let (x, y) = (random_values(f, !seed)(), random_values(f, seed ^ 1)());
        let formula = |[x1, y1, z1, x2, y2]: [F; 5]| madd_formula(&x1, &y1, &z1, &x2, &y2);
        let pairs = [(0, 3), (1, 4), (2, 3), (2, 4), (0, 1)];
        let equal = [x, y, limbs(F::ONE), x, y];
        fused_point_agrees(f, asm, formula, fe, limbs, &pairs, equal, seed);
    }

    #[test]
    fn p384_fused_madd_equals_the_formula() {
        fused_madd_agrees(&p384_routines(), Adx::p384_madd, P384Fe, |v| v.0, 0xa384);
    }

    #[test]
    fn p256_fused_madd_equals_the_formula() {
        fused_madd_agrees(&p256_routines(), Adx::p256_madd, P256Fe, |v| v.0, 0xa256);
    }

    /// The co-Z addition's check: edge values at both points' `X`, both `Y`, `Z` with `X1`
    /// and `X1` with `Y2`; equal operands (the same `X` and `Y` twice).
    fn fused_zaddu_agrees<const N: usize, F: FieldOps>(
        f: &Routines<N>,
        asm: AsmPoint<N, 5>,
        fe: fn([u64; N]) -> F,
        limbs: fn(F) -> [u64; N],
        seed: u64,
    ) {
        let (x, y, z) = (
            random_values(f, !seed)(),
            random_values(f, seed ^ 1)(),
            random_values(f, seed ^ 2)(),
        );
        let formula = |[x1, y1, x2, y2, z]: [F; 5]| zaddu_formula(&x1, &y1, &x2, &y2, &z);
        let pairs = [(0, 2), (1, 3), (4, 0), (0, 3)];
        fused_point_agrees(f, asm, formula, fe, limbs, &pairs, [x, y, x, y, z], seed);
    }

    #[test]
    fn p384_fused_zaddu_equals_the_formula() {
        fused_zaddu_agrees(&p384_routines(), Adx::p384_zaddu, P384Fe, |v| v.0, 0xc384);
    }

    #[test]
    fn p256_fused_zaddu_equals_the_formula() {
        fused_zaddu_agrees(&p256_routines(), Adx::p256_zaddu, P256Fe, |v| v.0, 0xc256);
    }

    /// The Jacobian addition's check: edge values at the two points' matching coordinates,
    /// `Z1` with `X2`, `Y1` with `Z2`, `X1` with `Z1`; equal operands (the same three
    /// coordinates twice).
    fn fused_add_agrees<const N: usize, F: FieldOps>(
        f: &Routines<N>,
        asm: AsmPoint<N, 6>,
        fe: fn([u64; N]) -> F,
        limbs: fn(F) -> [u64; N],
        seed: u64,
    ) {
        let mut random = random_values(f, !seed);
        let (x, y, z) = (random(), random(), random());
        let formula = |[x1, y1, z1, x2, y2, z2]: [F; 6]| add_formula(&x1, &y1, &z1, &x2, &y2, &z2);
        let pairs = [(0, 3), (1, 4), (2, 5), (2, 3), (1, 5), (0, 2)];
        fused_point_agrees(f, asm, formula, fe, limbs, &pairs, [x, y, z, x, y, z], seed);
    }

    #[test]
    fn p384_fused_add_equals_the_formula() {
        fused_add_agrees(
            &p384_routines(),
            Adx::p384_add_points,
            P384Fe,
            |v| v.0,
            0xb384,
        );
    }

    #[test]
    fn p256_fused_add_equals_the_formula() {
        fused_add_agrees(
            &p256_routines(),
            Adx::p256_add_points,
            P256Fe,
            |v| v.0,
            0xb256,
        );
    }

    /// The backend follows the CPU and the switch: the assembly (and its AVX2 scans) where the
    /// CPU has BMI2 and ADX (AVX2) unless `PRIVACY_TOKENS_ARITH=portable` is set, the portable
    /// code otherwise; the name says which. (The two compute the same values, so only this
    /// test can tell a detection that always answers "portable".)
    #[test]
    fn backend_follows_the_cpu_and_the_switch() {
        let forced = std::env::var_os("PRIVACY_TOKENS_ARITH").is_some_and(|v| v == "portable");
        let adx = std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx");
        let avx2 = std::is_x86_feature_detected!("avx2");
        for _ in 0..2 {
            // Twice: the first call probes the CPU, the second reads the cached answer.
            assert_eq!(super::get().is_some(), adx && !forced);
            assert_eq!(super::avx2().is_some(), avx2 && !forced);
            let name = if adx && !forced {
                "x86-64 mulx/adx"
            } else {
                "portable"
            };
            assert_eq!(super::backend_name(), name);
            assert_eq!(crate::group::arithmetic_backend(), name);
        }
        // The switch is read once per process: this test again in a process of its own with
        // `PRIVACY_TOKENS_ARITH=portable`, which must then see the portable code.
        if !forced {
            // ok: test-only module; the test binary's own path and a child run of it.
            let child = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "group::adx::tests::backend_follows_the_cpu_and_the_switch",
                ])
                .env("PRIVACY_TOKENS_ARITH", "portable")
                .output()
                // ok: test-only module; running the test binary again.
                .unwrap();
            let out = String::from_utf8_lossy(&child.stdout);
            assert!(
                child.status.success() && out.contains("1 passed"),
                "under PRIVACY_TOKENS_ARITH=portable: {}\n{out}",
                child.status
            );
        }
    }
}
