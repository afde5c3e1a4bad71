//! Valgrind memcheck client requests (the `valgrind.h` / `memcheck.h` magic sequence for
//! x86-64), for `tests/ct_valgrind.rs`: mark memory undefined (a secret) or defined (published),
//! ask whether the process runs under valgrind, and count the errors so far. Outside valgrind
//! the sequence is a few rotates of a register by a multiple of 64 bits and an exchange of `rbx`
//! with itself: it changes nothing and every request returns its default (0).
#![allow(unsafe_code)]

const TOOL_BASE_MC: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
const MAKE_MEM_UNDEFINED: u64 = TOOL_BASE_MC + 1;
const MAKE_MEM_DEFINED: u64 = TOOL_BASE_MC + 2;
const RUNNING_ON_VALGRIND: u64 = 0x1001;
const COUNT_ERRORS: u64 = 0x1201;

#[cfg(target_arch = "x86_64")]
fn request(default: u64, args: [u64; 6]) -> u64 {
    let result: u64;
    // The block reads the six words at `args` (valgrind does, when it runs the process) and
    // writes `rdx` only; `rdi` is rotated by 3 + 13 + 61 + 51 = 128 bits in all, so it comes
    // back unchanged but is declared clobbered anyway; `xchg rbx, rbx` is a no-op.
    // SAFETY: `args` is a valid, live array for the duration of the block; no other memory is
    // touched; the flags are clobbered (no `preserves_flags`).
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") default => result,
            out("rdi") _,
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _: [u64; 6]) -> u64 {
    default
}

/// Whether the process runs under valgrind.
pub fn running_on_valgrind() -> bool {
    request(0, [RUNNING_ON_VALGRIND, 0, 0, 0, 0, 0]) != 0
}

/// The number of errors valgrind has reported so far (0 outside valgrind).
pub fn error_count() -> u64 {
    request(0, [COUNT_ERRORS, 0, 0, 0, 0, 0])
}

/// Marks the bytes of `v` undefined: from here on, a branch or an address that depends on them
/// is a memcheck error.
pub fn secret<T: ?Sized>(v: &T) {
    let (p, n) = (
        v as *const T as *const u8 as u64,
        core::mem::size_of_val(v) as u64,
    );
    request(0, [MAKE_MEM_UNDEFINED, p, n, 0, 0, 0]);
}

/// Marks the bytes of `v` defined (the protocol publishes them).
pub fn public<T: ?Sized>(v: &T) {
    let (p, n) = (
        v as *const T as *const u8 as u64,
        core::mem::size_of_val(v) as u64,
    );
    request(0, [MAKE_MEM_DEFINED, p, n, 0, 0, 0]);
}
