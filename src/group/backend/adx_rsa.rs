//! The RSA private operation's Montgomery arithmetic on `mulx`/`adcx`/`adox` (BMI2 and ADX) for
//! the 1024-bit size class (16 64-bit words: the CRT halves of an RSA-2048 key), selected at
//! run time for CPUs without AVX-512 IFMA (AMD Zen 3, older Intel) or with it forced off
//! (`PRIVACY_TOKENS_ARITH=adx`).
//!
//! The portable engine (`blind_rsa::num`'s `mont`) stays the fallback and the test oracle:
//! `num::tests::adx_mont_equals_portable` compares the two on random and edge inputs.
//!
//! # Algorithm
//! Operand scanning with the reduction interleaved (CIOS), 16 rounds, one per word `b_i`: the
//! accumulator `t` (17 words, and a carry word) gets `a b_i` (one `mulx` row, the low halves
//! on the `adcx` carry chain and the high halves on the `adox` one), then `q m` with
//! `q = t_0 (-m^-1) mod 2^64`, which zeroes its low word, and is shifted down one word in the
//! same row. The accumulator's 16 low words live in a stack buffer (L1), the 17th word and the
//! carry in registers. For `a < 2^1024` and `b < m` the result is below `2m` (`t < 2m` holds
//! after every round), and each round's sum is below `2^1090`, so the carry word is small and
//! nothing is lost. One conditional subtraction of `m` (a `sub`/`sbb` row, then `cmovc` per
//! word, which loads both candidates) gives the fully reduced result, equal to the portable
//! engine's.
//!
//! # Constant time
//! The only branch is the loop over the 16 rounds (a public count); every address is a fixed
//! offset from the operands' pointers. The instructions (`mov`, `lea`, `xor`, `mulx`, `adcx`,
//! `adox`, `imul`, `sub`, `sbb`, `cmovc`, `dec`, `jnz`) run in time independent of their
//! operands on the cores this targets.
//!
//! # Not yet done
//! Squaring is the multiplication of `a` by itself (a dedicated squaring, with each cross
//! product once, is the next step: about 25% fewer multiplications).

#![allow(unsafe_code)]

use zeroize::Zeroize;

pub(crate) use crate::group::adx::Adx;

/// The 64-bit words of a 1024-bit operand (the size class this backend serves).
pub(crate) const WORDS: usize = 16;

/// The token when the CPU has BMI2 and ADX and the portable code is not forced
/// (`PRIVACY_TOKENS_ARITH=portable`); `None` selects the portable engine. Cached per process.
#[inline(always)]
pub(crate) fn get() -> Option<Adx> {
    crate::group::adx::get()
}

/// Montgomery multiplication `a b 2^-1024 mod m` for an odd `m < 2^1024`, `a < 2^1024` and
/// `b < m`, with `m0inv = -m^-1 mod 2^64`; the result is below `m`. Constant time.
#[inline]
pub(crate) fn mont_mul_1024(
    adx: Adx,
    a: &[u64; WORDS],
    b: &[u64; WORDS],
    m: &[u64; WORDS],
    m0inv: u64,
) -> [u64; WORDS] {
    let _ = adx;
    // The accumulator (words 0..16) and the output (words 16..32).
    let mut buf = [0u64; 2 * WORDS];
    // The block reads 128 bytes at each of `a`, `b` and `m`, reads and writes the 256 bytes of
    // `buf`, and touches no other memory and no stack; every register it writes is an operand
    // or a clobber, and it does not use `rbx` or `rbp`.
    // SAFETY: BMI2/ADX proven by the `Adx` token; the pointers are valid for those lengths.
    unsafe {
        core::arch::asm!(
                "xor r12d, r12d",
                "mov r14d, 16",
                "2:",
                "mov rdx, qword ptr [rdi]",
                "xor eax, eax",
                "mulx r9, r8, qword ptr [rsi]",
                "adcx r8, qword ptr [r15]",
                "mov qword ptr [r15], r8",
                "mulx r11, r8, qword ptr [rsi + 8]",
                "adcx r8, qword ptr [r15 + 8]",
                "adox r8, r9",
                "mov qword ptr [r15 + 8], r8",
                "mulx r9, r8, qword ptr [rsi + 16]",
                "adcx r8, qword ptr [r15 + 16]",
                "adox r8, r11",
                "mov qword ptr [r15 + 16], r8",
                "mulx r11, r8, qword ptr [rsi + 24]",
                "adcx r8, qword ptr [r15 + 24]",
                "adox r8, r9",
                "mov qword ptr [r15 + 24], r8",
                "mulx r9, r8, qword ptr [rsi + 32]",
                "adcx r8, qword ptr [r15 + 32]",
                "adox r8, r11",
                "mov qword ptr [r15 + 32], r8",
                "mulx r11, r8, qword ptr [rsi + 40]",
                "adcx r8, qword ptr [r15 + 40]",
                "adox r8, r9",
                "mov qword ptr [r15 + 40], r8",
                "mulx r9, r8, qword ptr [rsi + 48]",
                "adcx r8, qword ptr [r15 + 48]",
                "adox r8, r11",
                "mov qword ptr [r15 + 48], r8",
                "mulx r11, r8, qword ptr [rsi + 56]",
                "adcx r8, qword ptr [r15 + 56]",
                "adox r8, r9",
                "mov qword ptr [r15 + 56], r8",
                "mulx r9, r8, qword ptr [rsi + 64]",
                "adcx r8, qword ptr [r15 + 64]",
                "adox r8, r11",
                "mov qword ptr [r15 + 64], r8",
                "mulx r11, r8, qword ptr [rsi + 72]",
                "adcx r8, qword ptr [r15 + 72]",
                "adox r8, r9",
                "mov qword ptr [r15 + 72], r8",
                "mulx r9, r8, qword ptr [rsi + 80]",
                "adcx r8, qword ptr [r15 + 80]",
                "adox r8, r11",
                "mov qword ptr [r15 + 80], r8",
                "mulx r11, r8, qword ptr [rsi + 88]",
                "adcx r8, qword ptr [r15 + 88]",
                "adox r8, r9",
                "mov qword ptr [r15 + 88], r8",
                "mulx r9, r8, qword ptr [rsi + 96]",
                "adcx r8, qword ptr [r15 + 96]",
                "adox r8, r11",
                "mov qword ptr [r15 + 96], r8",
                "mulx r11, r8, qword ptr [rsi + 104]",
                "adcx r8, qword ptr [r15 + 104]",
                "adox r8, r9",
                "mov qword ptr [r15 + 104], r8",
                "mulx r9, r8, qword ptr [rsi + 112]",
                "adcx r8, qword ptr [r15 + 112]",
                "adox r8, r11",
                "mov qword ptr [r15 + 112], r8",
                "mulx r11, r8, qword ptr [rsi + 120]",
                "adcx r8, qword ptr [r15 + 120]",
                "adox r8, r9",
                "mov qword ptr [r15 + 120], r8",
                "mov r10d, 0",
                "adcx r12, r10",
                "adox r12, r11",
                "adcx rax, r10",
                "adox rax, r10",
                "mov rdx, qword ptr [r15]",
                "imul rdx, r13",
                "xor r10d, r10d",
                "mulx r9, r8, qword ptr [rcx]",
                "adcx r8, qword ptr [r15]",
                "mulx r11, r8, qword ptr [rcx + 8]",
                "adcx r8, qword ptr [r15 + 8]",
                "adox r8, r9",
                "mov qword ptr [r15 + 0], r8",
                "mulx r9, r8, qword ptr [rcx + 16]",
                "adcx r8, qword ptr [r15 + 16]",
                "adox r8, r11",
                "mov qword ptr [r15 + 8], r8",
                "mulx r11, r8, qword ptr [rcx + 24]",
                "adcx r8, qword ptr [r15 + 24]",
                "adox r8, r9",
                "mov qword ptr [r15 + 16], r8",
                "mulx r9, r8, qword ptr [rcx + 32]",
                "adcx r8, qword ptr [r15 + 32]",
                "adox r8, r11",
                "mov qword ptr [r15 + 24], r8",
                "mulx r11, r8, qword ptr [rcx + 40]",
                "adcx r8, qword ptr [r15 + 40]",
                "adox r8, r9",
                "mov qword ptr [r15 + 32], r8",
                "mulx r9, r8, qword ptr [rcx + 48]",
                "adcx r8, qword ptr [r15 + 48]",
                "adox r8, r11",
                "mov qword ptr [r15 + 40], r8",
                "mulx r11, r8, qword ptr [rcx + 56]",
                "adcx r8, qword ptr [r15 + 56]",
                "adox r8, r9",
                "mov qword ptr [r15 + 48], r8",
                "mulx r9, r8, qword ptr [rcx + 64]",
                "adcx r8, qword ptr [r15 + 64]",
                "adox r8, r11",
                "mov qword ptr [r15 + 56], r8",
                "mulx r11, r8, qword ptr [rcx + 72]",
                "adcx r8, qword ptr [r15 + 72]",
                "adox r8, r9",
                "mov qword ptr [r15 + 64], r8",
                "mulx r9, r8, qword ptr [rcx + 80]",
                "adcx r8, qword ptr [r15 + 80]",
                "adox r8, r11",
                "mov qword ptr [r15 + 72], r8",
                "mulx r11, r8, qword ptr [rcx + 88]",
                "adcx r8, qword ptr [r15 + 88]",
                "adox r8, r9",
                "mov qword ptr [r15 + 80], r8",
                "mulx r9, r8, qword ptr [rcx + 96]",
                "adcx r8, qword ptr [r15 + 96]",
                "adox r8, r11",
                "mov qword ptr [r15 + 88], r8",
                "mulx r11, r8, qword ptr [rcx + 104]",
                "adcx r8, qword ptr [r15 + 104]",
                "adox r8, r9",
                "mov qword ptr [r15 + 96], r8",
                "mulx r9, r8, qword ptr [rcx + 112]",
                "adcx r8, qword ptr [r15 + 112]",
                "adox r8, r11",
                "mov qword ptr [r15 + 104], r8",
                "mulx r11, r8, qword ptr [rcx + 120]",
                "adcx r8, qword ptr [r15 + 120]",
                "adox r8, r9",
                "mov qword ptr [r15 + 112], r8",
                "adcx r12, r10",
                "adox r12, r11",
                "mov qword ptr [r15 + 120], r12",
                "adcx rax, r10",
                "adox rax, r10",
                "mov r12, rax",
                "lea rdi, [rdi + 8]",
                "dec r14",
                "jnz 2b",
                "mov r8, qword ptr [r15]",
                "sub r8, qword ptr [rcx]",
                "mov qword ptr [r15 + 128], r8",
                "mov r8, qword ptr [r15 + 8]",
                "sbb r8, qword ptr [rcx + 8]",
                "mov qword ptr [r15 + 136], r8",
                "mov r8, qword ptr [r15 + 16]",
                "sbb r8, qword ptr [rcx + 16]",
                "mov qword ptr [r15 + 144], r8",
                "mov r8, qword ptr [r15 + 24]",
                "sbb r8, qword ptr [rcx + 24]",
                "mov qword ptr [r15 + 152], r8",
                "mov r8, qword ptr [r15 + 32]",
                "sbb r8, qword ptr [rcx + 32]",
                "mov qword ptr [r15 + 160], r8",
                "mov r8, qword ptr [r15 + 40]",
                "sbb r8, qword ptr [rcx + 40]",
                "mov qword ptr [r15 + 168], r8",
                "mov r8, qword ptr [r15 + 48]",
                "sbb r8, qword ptr [rcx + 48]",
                "mov qword ptr [r15 + 176], r8",
                "mov r8, qword ptr [r15 + 56]",
                "sbb r8, qword ptr [rcx + 56]",
                "mov qword ptr [r15 + 184], r8",
                "mov r8, qword ptr [r15 + 64]",
                "sbb r8, qword ptr [rcx + 64]",
                "mov qword ptr [r15 + 192], r8",
                "mov r8, qword ptr [r15 + 72]",
                "sbb r8, qword ptr [rcx + 72]",
                "mov qword ptr [r15 + 200], r8",
                "mov r8, qword ptr [r15 + 80]",
                "sbb r8, qword ptr [rcx + 80]",
                "mov qword ptr [r15 + 208], r8",
                "mov r8, qword ptr [r15 + 88]",
                "sbb r8, qword ptr [rcx + 88]",
                "mov qword ptr [r15 + 216], r8",
                "mov r8, qword ptr [r15 + 96]",
                "sbb r8, qword ptr [rcx + 96]",
                "mov qword ptr [r15 + 224], r8",
                "mov r8, qword ptr [r15 + 104]",
                "sbb r8, qword ptr [rcx + 104]",
                "mov qword ptr [r15 + 232], r8",
                "mov r8, qword ptr [r15 + 112]",
                "sbb r8, qword ptr [rcx + 112]",
                "mov qword ptr [r15 + 240], r8",
                "mov r8, qword ptr [r15 + 120]",
                "sbb r8, qword ptr [rcx + 120]",
                "mov qword ptr [r15 + 248], r8",
                "sbb r12, 0",
                "mov r8, qword ptr [r15 + 128]",
                "cmovc r8, qword ptr [r15 + 0]",
                "mov qword ptr [r15 + 128], r8",
                "mov r8, qword ptr [r15 + 136]",
                "cmovc r8, qword ptr [r15 + 8]",
                "mov qword ptr [r15 + 136], r8",
                "mov r8, qword ptr [r15 + 144]",
                "cmovc r8, qword ptr [r15 + 16]",
                "mov qword ptr [r15 + 144], r8",
                "mov r8, qword ptr [r15 + 152]",
                "cmovc r8, qword ptr [r15 + 24]",
                "mov qword ptr [r15 + 152], r8",
                "mov r8, qword ptr [r15 + 160]",
                "cmovc r8, qword ptr [r15 + 32]",
                "mov qword ptr [r15 + 160], r8",
                "mov r8, qword ptr [r15 + 168]",
                "cmovc r8, qword ptr [r15 + 40]",
                "mov qword ptr [r15 + 168], r8",
                "mov r8, qword ptr [r15 + 176]",
                "cmovc r8, qword ptr [r15 + 48]",
                "mov qword ptr [r15 + 176], r8",
                "mov r8, qword ptr [r15 + 184]",
                "cmovc r8, qword ptr [r15 + 56]",
                "mov qword ptr [r15 + 184], r8",
                "mov r8, qword ptr [r15 + 192]",
                "cmovc r8, qword ptr [r15 + 64]",
                "mov qword ptr [r15 + 192], r8",
                "mov r8, qword ptr [r15 + 200]",
                "cmovc r8, qword ptr [r15 + 72]",
                "mov qword ptr [r15 + 200], r8",
                "mov r8, qword ptr [r15 + 208]",
                "cmovc r8, qword ptr [r15 + 80]",
                "mov qword ptr [r15 + 208], r8",
                "mov r8, qword ptr [r15 + 216]",
                "cmovc r8, qword ptr [r15 + 88]",
                "mov qword ptr [r15 + 216], r8",
                "mov r8, qword ptr [r15 + 224]",
                "cmovc r8, qword ptr [r15 + 96]",
                "mov qword ptr [r15 + 224], r8",
                "mov r8, qword ptr [r15 + 232]",
                "cmovc r8, qword ptr [r15 + 104]",
                "mov qword ptr [r15 + 232], r8",
                "mov r8, qword ptr [r15 + 240]",
                "cmovc r8, qword ptr [r15 + 112]",
                "mov qword ptr [r15 + 240], r8",
                "mov r8, qword ptr [r15 + 248]",
                "cmovc r8, qword ptr [r15 + 120]",
                "mov qword ptr [r15 + 248], r8",
            inout("rsi") a.as_ptr() => _,
            inout("rdi") b.as_ptr() => _,
            in("rcx") m.as_ptr(),
            in("r15") buf.as_mut_ptr(),
            inout("r13") m0inv => _,
            out("rax") _,
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("r14") _,
            options(nostack),
        );
    }
    let mut out = [0u64; WORDS];
    out.copy_from_slice(&buf[WORDS..]);
    buf.zeroize();
    out
}

/// Montgomery squaring `a^2 2^-1024 mod m` for `a < m` (see [`mont_mul_1024`]).
#[inline]
pub(crate) fn mont_sqr_1024(
    adx: Adx,
    a: &[u64; WORDS],
    m: &[u64; WORDS],
    m0inv: u64,
) -> [u64; WORDS] {
    mont_mul_1024(adx, a, a, m, m0inv)
}
