//! Constant-time validation under valgrind (feature `ct-validation`; a test hook, BoringSSL's
//! and AWS-LC's `CONSTANT_TIME_VALIDATION`).
//!
//! `bash scripts/ct-valgrind.sh` runs `tests/ct_valgrind.rs` under memcheck with every secret
//! (keys, blinds, nonces, the private metadata bit, ARC credentials) marked undefined: a branch
//! or a memory address that depends on a secret is then a memcheck error. A value computed from
//! secrets is undefined too, also once the protocol publishes it (an evaluated element `k*B`, a
//! proof), and the variable-time code that then processes it as public data would be reported.
//! The crate-internal `publish` is called at each point where the protocol publishes such a
//! value (on the wire or as an output), BoringSSL's `CONSTTIME_DECLASSIFY`: with this feature
//! it marks the bytes defined (memcheck's `VALGRIND_MAKE_MEM_DEFINED` client request), without
//! it it is an empty function and the client-request code is not compiled. Each call site says
//! why the value is public; a secret, or anything from which one follows, is never passed to
//! it.
//!
//! The other functions, with the feature only, are what the test needs of the same client
//! requests: mark a secret undefined, ask whether valgrind runs the process, count its errors.
//! Outside valgrind every request is a no-op that returns its default (0): the magic sequence is
//! four rotates of a register by 128 bits in all and an exchange of `rbx` with itself. Only on
//! x86-64 (elsewhere the requests return their defaults).
#![cfg_attr(not(feature = "ct-validation"), doc(hidden))]

/// Declares the bytes of `value` published by the protocol: they no longer count as secret for
/// memcheck (feature `ct-validation`; otherwise nothing). By `&mut`: the compiler must then
/// assume the request changed the bytes and read them again, rather than use a copy it kept
/// in a register from before (whose shadow memcheck would still hold undefined).
#[inline(always)]
pub(crate) fn publish<T: ?Sized>(value: &mut T) {
    #[cfg(feature = "ct-validation")]
    mark_public(&*value);
    #[cfg(not(feature = "ct-validation"))]
    let _ = value;
}

#[cfg(feature = "ct-validation")]
pub use requests::{error_count, mark_public, mark_secret, running_on_valgrind};

#[cfg(feature = "ct-validation")]
#[allow(unsafe_code)]
mod requests {
    const TOOL_BASE_MC: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
    const MAKE_MEM_UNDEFINED: u64 = TOOL_BASE_MC + 1;
    const MAKE_MEM_DEFINED: u64 = TOOL_BASE_MC + 2;
    const RUNNING_ON_VALGRIND: u64 = 0x1001;
    const COUNT_ERRORS: u64 = 0x1201;

    /// A client request (`VALGRIND_DO_CLIENT_REQUEST_EXPR` of `valgrind.h` for amd64 Linux):
    /// `args` is the request and its five arguments; `default` the answer outside valgrind.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn request(default: u64, args: [u64; 6]) -> u64 {
        let result: u64;
        // The block reads the six words at `args`, a live array for its duration (and valgrind
        // reads them when it runs the process); it writes `rdx` only. `rdi` is rotated by
        // 3 + 13 + 61 + 51 = 128 bits, so it comes back unchanged, but is declared clobbered
        // anyway; `xchg rbx, rbx` is a no-op; the flags are clobbered (no `preserves_flags`).
        // Nothing else is touched: valgrind changes only its own shadow state of the memory an
        // argument names.
        // SAFETY: reads `args` only and writes only the declared registers, as above.
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
    #[inline(always)]
    fn request(default: u64, _: [u64; 6]) -> u64 {
        default
    }

    #[inline(always)]
    fn on_bytes<T: ?Sized>(req: u64, value: &T) {
        let (p, n) = (
            value as *const T as *const u8 as u64,
            core::mem::size_of_val(value) as u64,
        );
        request(0, [req, p, n, 0, 0, 0]);
    }

    /// Marks the bytes of `value` undefined (a secret): from here on, a branch or a memory
    /// address that depends on them is a memcheck error.
    #[inline(always)]
    pub fn mark_secret<T: ?Sized>(value: &T) {
        on_bytes(MAKE_MEM_UNDEFINED, value);
    }

    /// Marks the bytes of `value` defined (published).
    #[inline(always)]
    pub fn mark_public<T: ?Sized>(value: &T) {
        on_bytes(MAKE_MEM_DEFINED, value);
    }

    /// Whether the process runs under valgrind.
    pub fn running_on_valgrind() -> bool {
        request(0, [RUNNING_ON_VALGRIND, 0, 0, 0, 0, 0]) != 0
    }

    /// The number of errors valgrind has reported so far (0 outside valgrind).
    pub fn error_count() -> u64 {
        request(0, [COUNT_ERRORS, 0, 0, 0, 0, 0])
    }
}
