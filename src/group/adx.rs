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
//! conditional subtraction is `cmovnc` on the borrow. `mulx`, `adcx`, `adox`, `add`, `sub`, `shl`
//! and `cmov` run in time independent of their operands on every x86-64 core this targets.
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

#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod detect {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet known; 1: available; 2: not available or forced off.
    static STATE: AtomicU8 = AtomicU8::new(0);

    #[cold]
    fn init() -> bool {
        let forced_off = std::env::var_os("PRIVACY_TOKENS_ARITH").is_some_and(|v| v == "portable");
        let on = !forced_off
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("adx");
        STATE.store(if on { 1 } else { 2 }, Ordering::Relaxed);
        on
    }

    #[inline(always)]
    pub(super) fn available() -> bool {
        match STATE.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => init(),
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
mod detect {
    #[inline(always)]
    pub(super) fn available() -> bool {
        cfg!(all(target_feature = "bmi2", target_feature = "adx"))
    }
}

/// The backend token when the CPU supports it and it is not forced off; `None` selects the
/// portable code. The answer is computed once per process (public data: no secret is involved).
#[inline(always)]
pub(crate) fn get() -> Option<Adx> {
    #[cfg(target_arch = "x86_64")]
    {
        if detect::available() {
            return Some(Adx(()));
        }
    }
    None
}

/// Which field arithmetic this process runs: `"x86-64 mulx/adx"` or `"portable"`.
pub(crate) fn backend_name() -> &'static str {
    if get().is_some() {
        "x86-64 mulx/adx"
    } else {
        "portable"
    }
}

/// One row of the P-384 product: `[t7..t0] += a * b[i]`, with `a` at `rsi` and `b` at `rcx`.
/// `t7` is overwritten (it is the free register of the previous reduction). Clobbers `rax`,
/// `rbx`, `rdx`, `rdi` and the flags.
#[cfg(target_arch = "x86_64")]
macro_rules! p384_row {
    ($i:literal, $t0:tt, $t1:tt, $t2:tt, $t3:tt, $t4:tt, $t5:tt, $t6:tt, $t7:tt) => {
        concat!(
            // rdi = 0, CF = OF = 0.
            "xor edi, edi\n",
            "mov rdx, qword ptr [rcx + 8*",
            $i,
            "]\n",
            "mulx rbx, rax, qword ptr [rsi]\n",
            "adcx ",
            stringify!($t0),
            ", rax\n",
            "adox ",
            stringify!($t1),
            ", rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 8]\n",
            "adcx ",
            stringify!($t1),
            ", rax\n",
            "adox ",
            stringify!($t2),
            ", rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 16]\n",
            "adcx ",
            stringify!($t2),
            ", rax\n",
            "adox ",
            stringify!($t3),
            ", rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 24]\n",
            "adcx ",
            stringify!($t3),
            ", rax\n",
            "adox ",
            stringify!($t4),
            ", rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 32]\n",
            "adcx ",
            stringify!($t4),
            ", rax\n",
            "adox ",
            stringify!($t5),
            ", rbx\n",
            "mulx rbx, rax, qword ptr [rsi + 40]\n",
            "adcx ",
            stringify!($t5),
            ", rax\n",
            "adox ",
            stringify!($t6),
            ", rbx\n",
            // The two pending carries: CF into t6, OF into t7 (mov keeps the flags).
            "mov ",
            stringify!($t7),
            ", rdi\n",
            "adox ",
            stringify!($t7),
            ", rdi\n",
            "adcx ",
            stringify!($t6),
            ", rdi\n",
            "adcx ",
            stringify!($t7),
            ", rdi\n",
        )
    };
}

/// One Montgomery step: adds `w * p` to `[t7..t0]` for `w = t0 * (2^32 + 1) mod 2^64`, which
/// clears `t0`; the result, divided by `2^64`, is `[t7..t1]`. `w * p = w * 2^384 - w * c` with
/// `c = 2^128 + 2^96 - 2^32 + 1`; the low word of `w * c` equals `t0`, so only words 1 to 3 of
/// `w * c` (in `rbx`, `rbp`, `rdi`) are subtracted. Clobbers `rax`, `rbx`, `rbp`, `rdx`, `rdi`.
#[cfg(target_arch = "x86_64")]
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
            // + w * 2^384, then - w * c.
            "add ",
            stringify!($t6),
            ", rdx\n",
            "adc ",
            stringify!($t7),
            ", 0\n",
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
            "sbb ",
            stringify!($t6),
            ", 0\n",
            "sbb ",
            stringify!($t7),
            ", 0\n",
        )
    };
}

/// The final conditional subtraction: `[t6..t0] < 2p` becomes `[t5..t0] < p`. Clobbers `rax`,
/// `rbx`, `rbp`, `rcx`, `rdx`, `rsi`, `rdi`.
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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

/// The final conditional subtraction for P-256: `[t4..t0] < 2p` becomes `[t3..t0] < p`.
/// Clobbers `rax`, `rcx`, `rdx`, `rsi`, `r14`.
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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

/// `[r11..r8] += p & rdx` for a mask `rdx` of all zeros or all ones (P-256: `p`'s limbs are all
/// ones, `0x00000000ffffffff`, zero, `0xffffffff00000001`). Clobbers `rax`, `rdi`.
#[cfg(target_arch = "x86_64")]
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

impl Adx {
    /// P-384 Montgomery multiplication `a * b / 2^384 mod p` of fully reduced inputs, fully
    /// reduced output; equal to the portable `p384_field::mont_mul` for all inputs below `p`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p384_mont_mul(self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
        // SAFETY: `self` proves that the CPU executes `mulx` (BMI2) and `adcx`/`adox` (ADX). The
        // block reads 48 bytes at each of `a` and `b`, which are valid `[u64; 6]` references, and
        // writes no memory. `rbx` and `rbp`, which cannot be named as operands, are pushed first
        // and popped last (the block does not set `nostack`, so pushing is allowed); no memory
        // operand is relative to `rsp`. Every other register it writes is an output or clobber.
        unsafe {
            core::arch::asm!(
                "push rbx",
                "push rbp",
                // Row 0 on an empty accumulator: one carry chain, t7 = 0.
                "mov rdx, qword ptr [rcx]",
                "mulx r9, r8, qword ptr [rsi]",
                "mulx r10, rax, qword ptr [rsi + 8]",
                "add r9, rax",
                "mulx r11, rax, qword ptr [rsi + 16]",
                "adc r10, rax",
                "mulx r12, rax, qword ptr [rsi + 24]",
                "adc r11, rax",
                "mulx r13, rax, qword ptr [rsi + 32]",
                "adc r12, rax",
                "mulx r14, rax, qword ptr [rsi + 40]",
                "adc r13, rax",
                "adc r14, 0",
                "xor r15d, r15d",
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
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p384_mont_sqr(self, a: &[u64; 6]) -> [u64; 6] {
        let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
        // SAFETY: `self` proves that the CPU executes `mulx` (BMI2) and `adcx`/`adox` (ADX). The
        // block reads 48 bytes at `a`, a valid `[u64; 6]` reference, and writes no memory but its
        // own stack: it pushes `rbx` and `rbp` (not nameable as operands) first and pops them
        // last, and in between pushes 7 words of the product that it reads back at fixed offsets
        // from `rsp` and releases (`add rsp, 56`) before those pops. The block does not set
        // `nostack`, so this use of the stack is allowed. Every other register it writes is an
        // output or a clobber.
        unsafe {
            core::arch::asm!(
                "push rbx",
                "push rbp",
                // Cross products w1..w10 in r8..r15, rcx, rbp.
                "mov rdx, qword ptr [rsi]",
                "mulx r9, r8, qword ptr [rsi + 8]",
                "mulx r10, rax, qword ptr [rsi + 16]",
                "add r9, rax",
                "mulx r11, rax, qword ptr [rsi + 24]",
                "adc r10, rax",
                "mulx r12, rax, qword ptr [rsi + 32]",
                "adc r11, rax",
                "mulx r13, rax, qword ptr [rsi + 40]",
                "adc r12, rax",
                "adc r13, 0",
                "mov rdx, qword ptr [rsi + 8]",
                "xor edi, edi",
                "mulx rbx, rax, qword ptr [rsi + 16]",
                "adcx r10, rax",
                "adox r11, rbx",
                "mulx rbx, rax, qword ptr [rsi + 24]",
                "adcx r11, rax",
                "adox r12, rbx",
                "mulx rbx, rax, qword ptr [rsi + 32]",
                "adcx r12, rax",
                "adox r13, rbx",
                "mulx r14, rax, qword ptr [rsi + 40]",
                "adcx r13, rax",
                "adox r14, rdi",
                "adcx r14, rdi",
                "mov rdx, qword ptr [rsi + 16]",
                "xor edi, edi",
                "mulx rbx, rax, qword ptr [rsi + 24]",
                "adcx r12, rax",
                "adox r13, rbx",
                "mulx rbx, rax, qword ptr [rsi + 32]",
                "adcx r13, rax",
                "adox r14, rbx",
                "mulx r15, rax, qword ptr [rsi + 40]",
                "adcx r14, rax",
                "adox r15, rdi",
                "adcx r15, rdi",
                "mov rdx, qword ptr [rsi + 24]",
                "xor edi, edi",
                "mulx rbx, rax, qword ptr [rsi + 32]",
                "adcx r14, rax",
                "adox r15, rbx",
                "mulx rcx, rax, qword ptr [rsi + 40]",
                "adcx r15, rax",
                "adox rcx, rdi",
                "adcx rcx, rdi",
                "mov rdx, qword ptr [rsi + 32]",
                "mulx rbp, rax, qword ptr [rsi + 40]",
                "add rcx, rax",
                "adc rbp, 0",
                // Double (CF chain) and add the squares (OF chain): t0 pushed, t1..t10 in place,
                // t11 in rbx.
                "xor edi, edi",
                "mov rdx, qword ptr [rsi]",
                "mulx rbx, rax, rdx",
                "push rax",
                "adcx r8, r8",
                "adox r8, rbx",
                "mov rdx, qword ptr [rsi + 8]",
                "mulx rbx, rax, rdx",
                "adcx r9, r9",
                "adox r9, rax",
                "adcx r10, r10",
                "adox r10, rbx",
                "mov rdx, qword ptr [rsi + 16]",
                "mulx rbx, rax, rdx",
                "adcx r11, r11",
                "adox r11, rax",
                "adcx r12, r12",
                "adox r12, rbx",
                "mov rdx, qword ptr [rsi + 24]",
                "mulx rbx, rax, rdx",
                "adcx r13, r13",
                "adox r13, rax",
                "adcx r14, r14",
                "adox r14, rbx",
                "mov rdx, qword ptr [rsi + 32]",
                "mulx rbx, rax, rdx",
                "adcx r15, r15",
                "adox r15, rax",
                "adcx rcx, rcx",
                "adox rcx, rbx",
                "mov rdx, qword ptr [rsi + 40]",
                "mulx rbx, rax, rdx",
                "adcx rbp, rbp",
                "adox rbp, rax",
                "adcx rbx, rdi",
                "adox rbx, rdi",
                // High half t6..t11 to the stack: [rsp + 40] = t6 ... [rsp] = t11; t0 at
                // [rsp + 48].
                "push r13",
                "push r14",
                "push r15",
                "push rcx",
                "push rbp",
                "push rbx",
                // Reduce the low half: window r13 (t0), r8..r12, r14, r15.
                "mov r13, qword ptr [rsp + 48]",
                "xor r14d, r14d",
                "xor r15d, r15d",
                p384_reduce!(r13, r8, r9, r10, r11, r12, r14, r15),
                "xor r13d, r13d",
                p384_reduce!(r8, r9, r10, r11, r12, r14, r15, r13),
                "xor r8d, r8d",
                p384_reduce!(r9, r10, r11, r12, r14, r15, r13, r8),
                "xor r9d, r9d",
                p384_reduce!(r10, r11, r12, r14, r15, r13, r8, r9),
                "xor r10d, r10d",
                p384_reduce!(r11, r12, r14, r15, r13, r8, r9, r10),
                "xor r11d, r11d",
                p384_reduce!(r12, r14, r15, r13, r8, r9, r10, r11),
                // + the high half.
                "add r14, qword ptr [rsp + 40]",
                "adc r15, qword ptr [rsp + 32]",
                "adc r13, qword ptr [rsp + 24]",
                "adc r8, qword ptr [rsp + 16]",
                "adc r9, qword ptr [rsp + 8]",
                "adc r10, qword ptr [rsp]",
                "adc r11, 0",
                "add rsp, 56",
                p384_final!(r14, r15, r13, r8, r9, r10, r11),
                "pop rbp",
                "pop rbx",
                inout("rsi") a.as_ptr() => _,
                out("rax") _,
                out("rcx") _,
                out("rdx") _,
                out("rdi") _,
                out("r14") r0,
                out("r15") r1,
                out("r13") r2,
                out("r8") r3,
                out("r9") r4,
                out("r10") r5,
                out("r11") _,
                out("r12") _,
                options(pure, readonly),
            );
        }
        [r0, r1, r2, r3, r4, r5]
    }

    /// P-384 modular addition `a + b mod p` of fully reduced inputs.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p384_add(self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
        // SAFETY: plain x86-64 integer instructions (no extension is needed; `self` is not used
        // for a feature). The block reads 48 bytes at each of `a` and `b`, valid `[u64; 6]`
        // references, writes no memory and no stack; every register it writes is an operand.
        unsafe {
            core::arch::asm!(
                // [rdx; r13..r8] = a + b
                "mov r8, qword ptr [rsi]",
                "mov r9, qword ptr [rsi + 8]",
                "mov r10, qword ptr [rsi + 16]",
                "mov r11, qword ptr [rsi + 24]",
                "mov r12, qword ptr [rsi + 32]",
                "mov r13, qword ptr [rsi + 40]",
                "mov edx, 0",
                "add r8, qword ptr [rcx]",
                "adc r9, qword ptr [rcx + 8]",
                "adc r10, qword ptr [rcx + 16]",
                "adc r11, qword ptr [rcx + 24]",
                "adc r12, qword ptr [rcx + 32]",
                "adc r13, qword ptr [rcx + 40]",
                "adc rdx, 0",
                p384_sub_p_add_back!(),
                inout("rsi") a.as_ptr() => _,
                inout("rcx") b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                out("r8") r0,
                out("r9") r1,
                out("r10") r2,
                out("r11") r3,
                out("r12") r4,
                out("r13") r5,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3, r4, r5]
    }

    /// P-384 modular subtraction `a - b mod p` of fully reduced inputs.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p384_sub(self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (r0, r1, r2, r3, r4, r5): (u64, u64, u64, u64, u64, u64);
        // SAFETY: as for `p384_add`.
        unsafe {
            core::arch::asm!(
                "mov r8, qword ptr [rsi]",
                "mov r9, qword ptr [rsi + 8]",
                "mov r10, qword ptr [rsi + 16]",
                "mov r11, qword ptr [rsi + 24]",
                "mov r12, qword ptr [rsi + 32]",
                "mov r13, qword ptr [rsi + 40]",
                "sub r8, qword ptr [rcx]",
                "sbb r9, qword ptr [rcx + 8]",
                "sbb r10, qword ptr [rcx + 16]",
                "sbb r11, qword ptr [rcx + 24]",
                "sbb r12, qword ptr [rcx + 32]",
                "sbb r13, qword ptr [rcx + 40]",
                // rdx = all ones when the subtraction wrapped: add p back.
                "sbb rdx, rdx",
                p384_masked_add_p!(),
                inout("rsi") a.as_ptr() => _,
                inout("rcx") b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                out("r8") r0,
                out("r9") r1,
                out("r10") r2,
                out("r11") r3,
                out("r12") r4,
                out("r13") r5,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3, r4, r5]
    }

    /// P-256 Montgomery multiplication `a * b / 2^256 mod p` of fully reduced inputs, fully
    /// reduced output; equal to the portable `p256_field::mont_mul` for all inputs below `p`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p256_mont_mul(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // SAFETY: `self` proves that the CPU executes `mulx` (BMI2) and `adcx`/`adox` (ADX). The
        // block reads 32 bytes at each of `a` and `b`, which are valid `[u64; 4]` references, and
        // writes no memory and no stack; every register it writes is an output or a clobber.
        unsafe {
            core::arch::asm!(
                // Row 0 on an empty accumulator: one carry chain, t5 = 0.
                "mov rdx, qword ptr [rcx]",
                "mulx r9, r8, qword ptr [rsi]",
                "mulx r10, rax, qword ptr [rsi + 8]",
                "add r9, rax",
                "mulx r11, rax, qword ptr [rsi + 16]",
                "adc r10, rax",
                "mulx r12, rax, qword ptr [rsi + 24]",
                "adc r11, rax",
                "adc r12, 0",
                "xor r13d, r13d",
                p256_reduce!(r8, r9, r10, r11, r12, r13),
                p256_row!(1, r9, r10, r11, r12, r13, r8),
                p256_reduce!(r9, r10, r11, r12, r13, r8),
                p256_row!(2, r10, r11, r12, r13, r8, r9),
                p256_reduce!(r10, r11, r12, r13, r8, r9),
                p256_row!(3, r11, r12, r13, r8, r9, r10),
                p256_reduce!(r11, r12, r13, r8, r9, r10),
                p256_final!(r12, r13, r8, r9, r10),
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

    /// P-256 Montgomery squaring, for now the product of `a` with itself (a dedicated squaring
    /// would save 6 of the 16 word products; not written yet).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p256_mont_sqr(self, a: &[u64; 4]) -> [u64; 4] {
        self.p256_mont_mul(a, a)
    }

    /// P-256 modular addition `a + b mod p` of fully reduced inputs.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p256_add(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // SAFETY: as for `p384_add` (32 bytes read at each of `a` and `b`).
        unsafe {
            core::arch::asm!(
                "mov r8, qword ptr [rsi]",
                "mov r9, qword ptr [rsi + 8]",
                "mov r10, qword ptr [rsi + 16]",
                "mov r11, qword ptr [rsi + 24]",
                "mov edx, 0",
                "add r8, qword ptr [rcx]",
                "adc r9, qword ptr [rcx + 8]",
                "adc r10, qword ptr [rcx + 16]",
                "adc r11, qword ptr [rcx + 24]",
                "adc rdx, 0",
                // Subtract p; rdx becomes the mask of "the sum was below p".
                "mov eax, 0xffffffff",
                "mov rdi, 0xffffffff00000001",
                "sub r8, -1",
                "sbb r9, rax",
                "sbb r10, 0",
                "sbb r11, rdi",
                "sbb rdx, 0",
                p256_masked_add_p!(),
                inout("rsi") a.as_ptr() => _,
                inout("rcx") b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                out("r8") r0,
                out("r9") r1,
                out("r10") r2,
                out("r11") r3,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }

    /// P-256 modular subtraction `a - b mod p` of fully reduced inputs.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn p256_sub(self, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // SAFETY: as for `p384_add` (32 bytes read at each of `a` and `b`).
        unsafe {
            core::arch::asm!(
                "mov r8, qword ptr [rsi]",
                "mov r9, qword ptr [rsi + 8]",
                "mov r10, qword ptr [rsi + 16]",
                "mov r11, qword ptr [rsi + 24]",
                "sub r8, qword ptr [rcx]",
                "sbb r9, qword ptr [rcx + 8]",
                "sbb r10, qword ptr [rcx + 16]",
                "sbb r11, qword ptr [rcx + 24]",
                "sbb rdx, rdx",
                p256_masked_add_p!(),
                inout("rsi") a.as_ptr() => _,
                inout("rcx") b.as_ptr() => _,
                out("rax") _,
                out("rdx") _,
                out("rdi") _,
                out("r8") r0,
                out("r9") r1,
                out("r10") r2,
                out("r11") r3,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::super::p384_field::portable;
    use rand::{Rng, SeedableRng};

    const P384: [u64; 6] = [
        0x0000_0000_ffff_ffff,
        0xffff_ffff_0000_0000,
        0xffff_ffff_ffff_fffe,
        0xffff_ffff_ffff_ffff,
        0xffff_ffff_ffff_ffff,
        0xffff_ffff_ffff_ffff,
    ];

    /// Below-`p` values at the edges: 0, 1, 2, p-1, p-2, all-ones low words, 2^383, ...
    fn p384_edges() -> Vec<[u64; 6]> {
        let pm = |d: u64| {
            let mut v = P384;
            v[0] -= d;
            v
        };
        vec![
            [0; 6],
            [1, 0, 0, 0, 0, 0],
            [2, 0, 0, 0, 0, 0],
            pm(1),
            pm(2),
            [u64::MAX, u64::MAX, u64::MAX, 0, 0, 0],
            [0, 0, 0, 0, 0, 1 << 63],
            [u64::MAX, 0, u64::MAX, 0, u64::MAX, 0],
            [
                0x0000_0000_ffff_fffe,
                0xffff_ffff_0000_0000,
                u64::MAX - 1,
                u64::MAX,
                u64::MAX,
                u64::MAX,
            ],
        ]
    }

    /// A random value below `p` (rejection sampling on the top limb).
    fn p384_random(rng: &mut impl Rng) -> [u64; 6] {
        loop {
            let v: [u64; 6] = rng.gen();
            if portable::below_p(&v) {
                return v;
            }
        }
    }

    #[test]
    fn p384_add_and_sub_equal_the_portable_code() {
        let Some(adx) = super::get() else {
            return;
        };
        let edges = p384_edges();
        let check = |a: &[u64; 6], b: &[u64; 6]| {
            assert_eq!(
                adx.p384_add(a, b),
                portable::add_mod(a, b),
                "{a:x?} + {b:x?}"
            );
            assert_eq!(
                adx.p384_sub(a, b),
                portable::sub_mod(a, b),
                "{a:x?} - {b:x?}"
            );
        };
        for a in &edges {
            for b in &edges {
                check(a, b);
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x384_add);
        for _ in 0..200_000 {
            let a = p384_random(&mut rng);
            let b = if rng.gen_bool(0.1) {
                edges[rng.gen_range(0..edges.len())]
            } else {
                p384_random(&mut rng)
            };
            check(&a, &b);
            check(&b, &a);
        }
    }

    #[test]
    fn p384_mont_mul_equals_the_portable_code() {
        let Some(adx) = super::get() else {
            eprintln!("adx: BMI2/ADX not available here; nothing to compare");
            return;
        };
        let edges = p384_edges();
        for a in &edges {
            for b in &edges {
                assert_eq!(
                    adx.p384_mont_mul(a, b),
                    portable::mont_mul(a, b),
                    "{a:x?} {b:x?}"
                );
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x384);
        for _ in 0..200_000 {
            let a = p384_random(&mut rng);
            let b = if rng.gen_bool(0.1) {
                edges[rng.gen_range(0..edges.len())]
            } else {
                p384_random(&mut rng)
            };
            assert_eq!(
                adx.p384_mont_mul(&a, &b),
                portable::mont_mul(&a, &b),
                "{a:x?} {b:x?}"
            );
            assert_eq!(adx.p384_mont_mul(&a, &a), portable::mont_sqr(&a), "{a:x?}");
            assert_eq!(adx.p384_mont_sqr(&a), portable::mont_sqr(&a), "{a:x?}");
        }
    }

    const P256: [u64; 4] = [
        0xffff_ffff_ffff_ffff,
        0x0000_0000_ffff_ffff,
        0,
        0xffff_ffff_0000_0001,
    ];

    /// A plain CIOS Montgomery product for P-256 (`-p^-1 mod 2^64 = 1`), the reference of the
    /// test below until the P-256 field has its own portable code.
    fn p256_reference(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let mut acc = [0u64; 6];
        for &bi in b {
            let mut c = 0u128;
            for j in 0..4 {
                let x = acc[j] as u128 + a[j] as u128 * bi as u128 + c;
                acc[j] = x as u64;
                c = x >> 64;
            }
            let x = acc[4] as u128 + c;
            acc[4] = x as u64;
            acc[5] = (x >> 64) as u64;
            let m = acc[0];
            let mut c = 0u128;
            for j in 0..4 {
                let x = acc[j] as u128 + m as u128 * P256[j] as u128 + c;
                if j > 0 {
                    acc[j - 1] = x as u64;
                }
                c = x >> 64;
            }
            let x = acc[4] as u128 + c;
            acc[3] = x as u64;
            acc[4] = acc[5] + (x >> 64) as u64;
        }
        // Conditional subtraction.
        let mut d = [0u64; 4];
        let mut borrow = 0u128;
        for j in 0..4 {
            let x = (acc[j] as u128).wrapping_sub(P256[j] as u128 + borrow);
            d[j] = x as u64;
            borrow = (x >> 127) & 1;
        }
        if acc[4] == 0 && borrow == 1 {
            [acc[0], acc[1], acc[2], acc[3]]
        } else {
            d
        }
    }

    /// `a + b mod p` by plain 128-bit arithmetic: the sum, then `p` subtracted once if it fits.
    fn p256_add_reference(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        let mut sum = [0u64; 5];
        let mut c = 0u128;
        for j in 0..4 {
            let x = a[j] as u128 + b[j] as u128 + c;
            sum[j] = x as u64;
            c = x >> 64;
        }
        sum[4] = c as u64;
        let mut d = [0u64; 4];
        let mut borrow = 0u128;
        for j in 0..4 {
            let x = (sum[j] as u128).wrapping_sub(P256[j] as u128 + borrow);
            d[j] = x as u64;
            borrow = (x >> 127) & 1;
        }
        if sum[4] == 0 && borrow == 1 {
            [sum[0], sum[1], sum[2], sum[3]]
        } else {
            d
        }
    }

    /// `a - b mod p`: `a + (p - b)` for `b != 0`.
    fn p256_sub_reference(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
        if *b == [0; 4] {
            return *a;
        }
        let mut neg = [0u64; 4];
        let mut borrow = 0u128;
        for j in 0..4 {
            let x = (P256[j] as u128).wrapping_sub(b[j] as u128 + borrow);
            neg[j] = x as u64;
            borrow = (x >> 127) & 1;
        }
        p256_add_reference(a, &neg)
    }

    fn p256_below_p(v: &[u64; 4]) -> bool {
        (0..4)
            .rev()
            .find(|&i| v[i] != P256[i])
            .is_some_and(|i| v[i] < P256[i])
    }

    #[test]
    fn p256_mont_mul_equals_the_reference() {
        let Some(adx) = super::get() else {
            eprintln!("adx: BMI2/ADX not available here; nothing to compare");
            return;
        };
        let pm = |d: u64| {
            let mut v = P256;
            v[0] -= d;
            v
        };
        let edges = vec![
            [0; 4],
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            pm(1),
            pm(2),
            [u64::MAX, u64::MAX, u64::MAX, 0],
            [0, 0, 0, 1 << 63],
            [u64::MAX, 0, u64::MAX, 0],
            [
                u64::MAX,
                0x0000_0000_ffff_fffe,
                u64::MAX,
                0xffff_ffff_0000_0000,
            ],
        ];
        for a in &edges {
            for b in &edges {
                assert_eq!(
                    adx.p256_mont_mul(a, b),
                    p256_reference(a, b),
                    "{a:x?} {b:x?}"
                );
            }
        }
        for a in &edges {
            for b in &edges {
                assert_eq!(
                    adx.p256_add(a, b),
                    p256_add_reference(a, b),
                    "{a:x?} + {b:x?}"
                );
                assert_eq!(
                    adx.p256_sub(a, b),
                    p256_sub_reference(a, b),
                    "{a:x?} - {b:x?}"
                );
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x256);
        for _ in 0..200_000 {
            let a: [u64; 4] = rng.gen();
            let b: [u64; 4] = if rng.gen_bool(0.1) {
                edges[rng.gen_range(0..edges.len())]
            } else {
                rng.gen()
            };
            if !p256_below_p(&a) || !p256_below_p(&b) {
                continue;
            }
            assert_eq!(
                adx.p256_mont_mul(&a, &b),
                p256_reference(&a, &b),
                "{a:x?} {b:x?}"
            );
        }
    }
}
