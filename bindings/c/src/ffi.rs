//! The conventions every function of the C ABI shares: status codes, the library-owned
//! `pt_buffer`, borrowed `pt_slice` inputs, pointer checks, `catch_unwind` at the edge, and
//! the per-call random generator.
//!
//! This module and the handle helpers below are the FFI edge: the only place where raw
//! pointers from C become Rust references.

use core::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use privacy_tokens::Error;
use rand::SeedableRng;
use zeroize::{Zeroize, Zeroizing};

// ---------------------------------------------------------------------------------------------
// Versions

/// The version of the C ABI: raised whenever a function, type or status of the header changes
/// incompatibly (and then the shared library's SONAME, `libprivacy_tokens.so.<N - 1>`, too).
/// Compare `pt_abi_version()` with the `PT_ABI_VERSION` your code was compiled with at
/// start-up and refuse to run on a mismatch.
pub const PT_ABI_VERSION: u32 = 1;
/// The major version of this library (`pt_version()`'s first number).
pub const PT_VERSION_MAJOR: u32 = 0;
/// The minor version of this library.
pub const PT_VERSION_MINOR: u32 = 1;
/// The patch version of this library.
pub const PT_VERSION_PATCH: u32 = 0;
/// The version of this library as text (the header's `PT_VERSION_STRING` comes from
/// `cbindgen.toml`; a unit test checks both against the package version).
const VERSION: &core::ffi::CStr = c"0.1.0";

/// The version of the library actually loaded, `"MAJOR.MINOR.PATCH"` (a static NUL-terminated
/// string, never to be freed); compare with `PT_VERSION_STRING` from the header you compiled
/// against.
#[no_mangle]
pub extern "C" fn pt_version() -> *const c_char {
    VERSION.as_ptr()
}

/// The ABI version of the library actually loaded. A program should check at start-up that it
/// equals the `PT_ABI_VERSION` of the header it was compiled with: `if (pt_abi_version() !=
/// PT_ABI_VERSION) abort();`.
#[no_mangle]
pub extern "C" fn pt_abi_version() -> u32 {
    PT_ABI_VERSION
}

/// The status every function returns: `PT_OK` (0) or one of the `PT_*` error codes.
pub type pt_status = i32;

/// Success.
pub const PT_OK: pt_status = 0;
/// An encoding had the wrong length (too short, too long, or trailing bytes).
pub const PT_INVALID_LENGTH: pt_status = 1;
/// A point encoding was malformed: wrong tag, non-canonical coordinate, or not on the curve.
pub const PT_INVALID_POINT: pt_status = 2;
/// A point decoded to the identity element, which no protocol message may carry.
pub const PT_IDENTITY_ELEMENT: pt_status = 3;
/// A scalar encoding was not canonical (not below the group order).
pub const PT_NON_CANONICAL_SCALAR: pt_status = 4;
/// A scalar that must be non-zero was zero.
pub const PT_ZERO_SCALAR: pt_status = 5;
/// A proof failed to verify.
pub const PT_INVALID_PROOF: pt_status = 6;
/// The protocol input hashed to the identity, or a POPRF tweaked key was the identity.
pub const PT_INVALID_INPUT: pt_status = 7;
/// POPRF: `skS + m == 0`; the key must be rotated.
pub const PT_INVERSE: pt_status = 8;
/// `DeriveKeyPair` found no non-zero scalar.
pub const PT_DERIVE_KEY_PAIR: pt_status = 9;
/// A batch was empty, too large, or its parts had different lengths.
pub const PT_BATCH: pt_status = 10;
/// An input or info string was 2^16 bytes or longer.
pub const PT_INPUT_TOO_LONG: pt_status = 11;
/// A message carried a token type or key identifier this party does not handle.
pub const PT_UNSUPPORTED_VALUE: pt_status = 12;
/// Expanding a message for hash-to-curve or hash-to-scalar failed.
pub const PT_HASH_TO_CURVE: pt_status = 13;
/// ARC: a presentation limit below 2, or every presentation of the limit already made.
pub const PT_LIMIT_EXCEEDED: pt_status = 14;
/// A signature failed to verify.
pub const PT_INVALID_SIGNATURE: pt_status = 15;
/// The operation needs a key (or a parameter such as a rate limit) that was never given.
pub const PT_MISSING_KEY: pt_status = 16;
/// POPRF: `finalize` was given another `info` than the one the input was blinded with.
pub const PT_INFO_MISMATCH: pt_status = 17;
/// A sigma-protocols instance failed validation.
pub const PT_INVALID_INSTANCE: pt_status = 18;
/// A text encoding was malformed: base64url, an HTTP header value, or text that is not UTF-8.
pub const PT_INVALID_ENCODING: pt_status = 19;
/// An RSA key was malformed or unsupported (modulus size or parity, exponent, parts that
/// disagree, or an encoding other than the one expected).
pub const PT_INVALID_KEY: pt_status = 20;
/// An integer was not below the RSA modulus (a blinded message, refused and not reduced).
pub const PT_OUT_OF_RANGE: pt_status = 21;
/// The RSA private operation failed its own check (a fault): nothing was returned.
pub const PT_SIGNING_FAILURE: pt_status = 22;
/// RSA blinding: the encoded message or the blind shares a factor with the modulus.
pub const PT_BLINDING: pt_status = 23;
/// A required pointer argument was `NULL` (or a `NULL` data pointer came with a non-zero length).
pub const PT_NULL_ARGUMENT: pt_status = 100;
/// The caller's buffer is smaller than the value to copy into it (`pt_buffer_copy`).
pub const PT_BUFFER_TOO_SMALL: pt_status = 101;
/// An argument is out of range: an unknown suite, token type or method, a count too large.
pub const PT_INVALID_ARGUMENT: pt_status = 102;
/// A one-shot state was already finalized: make a new request.
pub const PT_STATE_CONSUMED: pt_status = 103;
/// An optional value (a challenge's `token-key`, `max-age`, a token's nonce) is not present.
pub const PT_ABSENT: pt_status = 104;
/// The operating system's random number generator failed.
pub const PT_RANDOMNESS_UNAVAILABLE: pt_status = 105;
/// A panic was caught at the boundary (a bug in this library: please report it). Outputs were
/// reset at entry, but one filled before the panic stays filled (free it as usual); handles
/// passed in are still valid and can be freed, but a one-shot state the call was finalizing
/// may have been consumed.
pub const PT_PANIC: pt_status = 106;
/// A library error this version of the C ABI has no code for (name `"UNKNOWN_ERROR"`).
pub const PT_UNKNOWN_ERROR: pt_status = 199;

/// The status of a library error.
pub(crate) fn code_of(e: Error) -> pt_status {
    match e {
        Error::InvalidLength => PT_INVALID_LENGTH,
        Error::InvalidPoint => PT_INVALID_POINT,
        Error::IdentityElement => PT_IDENTITY_ELEMENT,
        Error::NonCanonicalScalar => PT_NON_CANONICAL_SCALAR,
        Error::ZeroScalar => PT_ZERO_SCALAR,
        Error::InvalidProof => PT_INVALID_PROOF,
        Error::InvalidInput => PT_INVALID_INPUT,
        Error::Inverse => PT_INVERSE,
        Error::DeriveKeyPair => PT_DERIVE_KEY_PAIR,
        Error::Batch => PT_BATCH,
        Error::InputTooLong => PT_INPUT_TOO_LONG,
        Error::UnsupportedValue => PT_UNSUPPORTED_VALUE,
        Error::HashToCurve => PT_HASH_TO_CURVE,
        Error::LimitExceeded => PT_LIMIT_EXCEEDED,
        Error::InvalidSignature => PT_INVALID_SIGNATURE,
        Error::MissingKey => PT_MISSING_KEY,
        Error::InfoMismatch => PT_INFO_MISMATCH,
        Error::InvalidInstance => PT_INVALID_INSTANCE,
        Error::InvalidEncoding => PT_INVALID_ENCODING,
        Error::InvalidKey => PT_INVALID_KEY,
        Error::OutOfRange => PT_OUT_OF_RANGE,
        Error::SigningFailure => PT_SIGNING_FAILURE,
        Error::Blinding => PT_BLINDING,
        // `Error` is non-exhaustive: a variant added later keeps a code until it gets its own.
        _ => PT_UNKNOWN_ERROR,
    }
}

/// The stable name of a status (`"OK"`, `"INVALID_LENGTH"`, ... as the WebAssembly package's
/// `PrivacyTokensError.code`, `"NULL_ARGUMENT"`, `"BUFFER_TOO_SMALL"`, ...): a static
/// NUL-terminated string, never to be freed; `"UNKNOWN_ERROR"` for `PT_UNKNOWN_ERROR` and
/// `"UNKNOWN"` for a value that is no status.
#[no_mangle]
pub extern "C" fn pt_status_name(status: pt_status) -> *const c_char {
    let name: &'static core::ffi::CStr = match status {
        PT_OK => c"OK",
        PT_INVALID_LENGTH => c"INVALID_LENGTH",
        PT_INVALID_POINT => c"INVALID_POINT",
        PT_IDENTITY_ELEMENT => c"IDENTITY_ELEMENT",
        PT_NON_CANONICAL_SCALAR => c"NON_CANONICAL_SCALAR",
        PT_ZERO_SCALAR => c"ZERO_SCALAR",
        PT_INVALID_PROOF => c"INVALID_PROOF",
        PT_INVALID_INPUT => c"INVALID_INPUT",
        PT_INVERSE => c"INVERSE",
        PT_DERIVE_KEY_PAIR => c"DERIVE_KEY_PAIR",
        PT_BATCH => c"BATCH",
        PT_INPUT_TOO_LONG => c"INPUT_TOO_LONG",
        PT_UNSUPPORTED_VALUE => c"UNSUPPORTED_VALUE",
        PT_HASH_TO_CURVE => c"HASH_TO_CURVE",
        PT_LIMIT_EXCEEDED => c"LIMIT_EXCEEDED",
        PT_INVALID_SIGNATURE => c"INVALID_SIGNATURE",
        PT_MISSING_KEY => c"MISSING_KEY",
        PT_INFO_MISMATCH => c"INFO_MISMATCH",
        PT_INVALID_INSTANCE => c"INVALID_INSTANCE",
        PT_INVALID_ENCODING => c"INVALID_ENCODING",
        PT_INVALID_KEY => c"INVALID_KEY",
        PT_OUT_OF_RANGE => c"OUT_OF_RANGE",
        PT_SIGNING_FAILURE => c"SIGNING_FAILURE",
        PT_BLINDING => c"BLINDING",
        PT_NULL_ARGUMENT => c"NULL_ARGUMENT",
        PT_BUFFER_TOO_SMALL => c"BUFFER_TOO_SMALL",
        PT_INVALID_ARGUMENT => c"INVALID_ARGUMENT",
        PT_STATE_CONSUMED => c"STATE_CONSUMED",
        PT_ABSENT => c"ABSENT",
        PT_RANDOMNESS_UNAVAILABLE => c"RANDOMNESS_UNAVAILABLE",
        PT_PANIC => c"PANIC",
        PT_UNKNOWN_ERROR => c"UNKNOWN_ERROR",
        _ => c"UNKNOWN",
    };
    name.as_ptr()
}

/// A failed call: the status it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fail(pub(crate) pt_status);

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail(code_of(e))
    }
}

/// The result of the body of an exported function.
pub(crate) type R<T = ()> = Result<T, Fail>;

/// A failure with status `s`.
pub(crate) fn fail<T>(s: pt_status) -> R<T> {
    Err(Fail(s))
}

/// Runs the body of an exported function: its status, and `PT_PANIC` for a panic, which never
/// unwinds into C.
///
/// The body runs inside the library's stack wipe ([`privacy_tokens::run_wiped`]): its own
/// frame and everything it calls, in particular the per-call generator ([`rng`]) with its key
/// and buffered output (the blinds and nonces it produced) and any token or key decoded into
/// locals, are overwritten once it returns (review BND-1).
pub(crate) fn guard(f: impl FnOnce() -> R) -> pt_status {
    if cfg!(feature = "control-no-wipe") {
        guard_unwiped(f)
    } else {
        privacy_tokens::run_wiped(|| guard_unwiped(f))
    }
}

/// [`guard`] without the stack wipe.
fn guard_unwiped(f: impl FnOnce() -> R) -> pt_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => PT_OK,
        Ok(Err(Fail(s))) => s,
        Err(payload) => {
            // Dropping the payload could itself panic (a payload whose `Drop` panics): forget it.
            core::mem::forget(payload);
            PT_PANIC
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Randomness

/// The per-call generator: ChaCha12 with chacha20's `zeroize` feature, so its key and
/// buffered output are wiped when it is dropped (`ZeroizeOnDrop`).
#[cfg(not(feature = "control-no-wipe"))]
pub(crate) type Rng = chacha20::ChaCha12Rng;
/// The control build's generator: rand's `StdRng`, which is not wiped on drop.
#[cfg(feature = "control-no-wipe")]
pub(crate) type Rng = rand::rngs::StdRng;

#[cfg(not(feature = "control-no-wipe"))]
const _: () = {
    const fn zeroize_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    zeroize_on_drop::<Rng>();
};

/// A fresh ChaCha12 generator seeded with 32 bytes of the operating system's generator for one
/// operation, so that the library's infallible RNG interface never meets a failing source
/// mid-operation: a failing source is `PT_RANDOMNESS_UNAVAILABLE` before any work. Only called
/// inside [`guard`]'s body, so the copies its moves leave in stack frames are wiped with them.
pub(crate) fn rng() -> R<Rng> {
    let mut seed = Zeroizing::new([0u8; 32]);
    #[cfg(test)]
    if let Some(s) = test_seed::get() {
        seed.copy_from_slice(&s);
        return Ok(Rng::from_seed(*seed));
    }
    getrandom::fill(seed.as_mut()).map_err(|_| Fail(PT_RANDOMNESS_UNAVAILABLE))?;
    Ok(Rng::from_seed(*seed))
}

/// Unit tests only: a fixed seed for [`rng`] on this thread, so that a test knows the bytes
/// an operation draws (its nonces and blinds) and can look for them where they must not be.
#[cfg(test)]
pub(crate) mod test_seed {
    use core::cell::Cell;

    std::thread_local! {
        static SEED: Cell<Option<[u8; 32]>> = const { Cell::new(None) };
    }

    /// Every [`super::rng`] on this thread seeded with `seed` (`None`: the OS again).
    pub(crate) fn set(seed: Option<[u8; 32]>) {
        SEED.with(|s| s.set(seed));
    }

    pub(crate) fn get() -> Option<[u8; 32]> {
        SEED.with(Cell::get)
    }
}

// ---------------------------------------------------------------------------------------------
// Buffers

/// The bytes before a buffer's `data` that record its length.
const PREFIX: usize = core::mem::size_of::<usize>();

/// Bytes returned by the library: `len` bytes at `data`, owned by the library until
/// `pt_buffer_free`. A returned buffer always has a `NUL` byte after its `len` bytes (not
/// counted in `len`), so text results (headers, names) are C strings as they are. A function
/// that fails leaves its `pt_buffer` outputs empty (`data == NULL`, `len == 0`). Read the
/// fields, do not change them: `pt_buffer_free` frees (and wipes) the allocation from its own
/// record of the size, so a trimmed `len` is harmless, but a moved `data` is undefined
/// behaviour.
#[repr(C)]
#[derive(Debug)]
pub struct pt_buffer {
    /// The bytes; `NULL` when empty (never filled, or freed).
    pub data: *mut u8,
    /// How many bytes `data` holds (without the trailing `NUL`).
    pub len: usize,
}

impl pt_buffer {
    /// The empty buffer (`NULL`, 0).
    pub(crate) const fn empty() -> pt_buffer {
        pt_buffer {
            data: core::ptr::null_mut(),
            len: 0,
        }
    }

    /// A buffer holding a copy of `b` and a trailing `NUL`, after a hidden prefix recording
    /// the length (review BND-11: the caller may change `len`; the free must not trust it).
    pub(crate) fn new(b: &[u8]) -> pt_buffer {
        let mut v = Vec::with_capacity(PREFIX + b.len() + 1);
        v.extend_from_slice(&b.len().to_ne_bytes());
        v.extend_from_slice(b);
        v.push(0);
        let len = b.len();
        let base = Box::into_raw(v.into_boxed_slice()).cast::<u8>();
        // SAFETY: the allocation holds `PREFIX + len + 1` bytes: `data` is inside it.
        let data = unsafe { base.add(PREFIX) };
        pt_buffer { data, len }
    }

    /// Wipes and frees the bytes, leaving the buffer empty. The size freed is the one recorded
    /// in the prefix, whatever `len` says now.
    fn release(&mut self) {
        if !self.data.is_null() {
            // A non-NULL `data` was made by `pt_buffer::new`, `PREFIX` bytes into a boxed slice
            // whose prefix records the length; it is freed only here, after which it is reset
            // to NULL (the header forbids changing `data`).
            // SAFETY: `data - PREFIX` is the start of that boxed slice, its prefix readable.
            let (base, len) = unsafe {
                let base = self.data.sub(PREFIX);
                let mut n = [0u8; PREFIX];
                core::ptr::copy_nonoverlapping(base, n.as_mut_ptr(), PREFIX);
                (base, usize::from_ne_bytes(n))
            };
            let raw = core::ptr::slice_from_raw_parts_mut(base, PREFIX + len + 1);
            // SAFETY: `raw` is that boxed slice, of the recorded size, taken back once.
            let mut bytes = unsafe { Box::from_raw(raw) };
            bytes.zeroize();
        }
        *self = pt_buffer::empty();
    }
}

/// A sequence of byte strings returned by the library (the tokens of a batch, the elements of a
/// batched evaluation): `count` buffers at `items`, owned by the library until
/// `pt_buffer_list_free`. A function that fails leaves it empty (`items == NULL`, `count == 0`).
/// Read the fields, do not change them (as for `pt_buffer`: the free uses its own record of
/// `count`; a moved `items` is undefined behaviour); the items may be freed one by one with
/// `pt_buffer_free` first.
#[repr(C)]
#[derive(Debug)]
pub struct pt_buffer_list {
    /// The buffers; `NULL` when empty (never filled, or freed).
    pub items: *mut pt_buffer,
    /// How many buffers `items` holds.
    pub count: usize,
}

impl pt_buffer_list {
    /// The empty list (`NULL`, 0).
    pub(crate) const fn empty() -> pt_buffer_list {
        pt_buffer_list {
            items: core::ptr::null_mut(),
            count: 0,
        }
    }

    /// The buffers of `items`, after a hidden first element recording their count (its `len`;
    /// review BND-11).
    pub(crate) fn new<B: AsRef<[u8]>>(items: impl IntoIterator<Item = B>) -> pt_buffer_list {
        let mut all = vec![pt_buffer::empty()];
        all.extend(items.into_iter().map(|b| pt_buffer::new(b.as_ref())));
        let count = all.len() - 1;
        all[0].len = count;
        let base = Box::into_raw(all.into_boxed_slice()).cast::<pt_buffer>();
        pt_buffer_list {
            // SAFETY: the allocation holds `count + 1` buffers: `items` is inside it.
            items: unsafe { base.add(1) },
            count,
        }
    }

    fn release(&mut self) {
        if !self.items.is_null() {
            // A non-NULL `items` was made by `pt_buffer_list::new`, one element into a boxed
            // slice whose first element records the count; it is freed only here, after which
            // it is reset to NULL (the header forbids changing `items`).
            // SAFETY: `items - 1` is the start of that boxed slice, its first element readable.
            let (base, count) = unsafe {
                let base = self.items.sub(1);
                (base, (*base).len)
            };
            let raw = core::ptr::slice_from_raw_parts_mut(base, count + 1);
            // SAFETY: `raw` is that boxed slice, of the recorded size, taken back once.
            let mut items = unsafe { Box::from_raw(raw) };
            for b in items[1..].iter_mut() {
                b.release();
            }
        }
        *self = pt_buffer_list::empty();
    }
}

/// Bytes the caller lends to the library for one call (the elements of a batch input).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pt_slice {
    /// The bytes (may be `NULL` when `len` is 0).
    pub data: *const u8,
    /// How many bytes `data` holds.
    pub len: usize,
}

/// Wipes and frees a buffer the library returned, and sets it empty (`data = NULL`,
/// `len = 0`), so a second call does nothing. `NULL` or an empty buffer: no-op. Never pass a
/// buffer the library did not fill.
#[no_mangle]
pub unsafe extern "C" fn pt_buffer_free(buffer: *mut pt_buffer) {
    // SAFETY: the caller passes NULL or a buffer the library filled (header contract).
    if let Some(b) = unsafe { buffer.as_mut() } {
        let _ = guard(|| {
            b.release();
            Ok(())
        });
    }
}

/// Wipes and frees a buffer list the library returned (every buffer in it, then the list) and
/// sets it empty. `NULL` or an empty list: no-op.
#[no_mangle]
pub unsafe extern "C" fn pt_buffer_list_free(list: *mut pt_buffer_list) {
    // SAFETY: the caller passes NULL or a list the library filled (header contract).
    if let Some(l) = unsafe { list.as_mut() } {
        let _ = guard(|| {
            l.release();
            Ok(())
        });
    }
}

/// Copies a returned buffer's bytes into caller memory (`out`, `capacity` bytes), e.g. into a
/// fixed array before `pt_buffer_free`; `*written` receives the length. `PT_BUFFER_TOO_SMALL`
/// (nothing copied, `*written` = the length needed) when `capacity < buffer->len`. `out` may
/// overlap the buffer's bytes, and `written` may point into `*buffer`.
#[no_mangle]
pub unsafe extern "C" fn pt_buffer_copy(
    buffer: *const pt_buffer,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> pt_status {
    guard(|| {
        if buffer.is_null() {
            return fail(PT_NULL_ARGUMENT);
        }
        // The buffer's fields are read once, by value, before anything is written: `written`
        // may point at `buffer->len` (review BND-10), so no reference to `*buffer` is kept.
        // SAFETY: a non-NULL pointer to a buffer the library filled (header contract).
        let (data, len) = unsafe { (buffer.read().data, buffer.read().len) };
        let w = out_value(written, 0)?;
        // Checked as `bytes` would (NULL with a length, more than isize::MAX).
        // SAFETY: a buffer the library filled holds `len` readable bytes at `data`.
        let n = unsafe { bytes(data, len) }?.len();
        *w = n;
        if capacity < n {
            return fail(PT_BUFFER_TOO_SMALL);
        }
        if n != 0 {
            if out.is_null() {
                return fail(PT_NULL_ARGUMENT);
            }
            // `out` is non-NULL and the caller guarantees `capacity` writable bytes there, which
            // is at least `n`; they may overlap `data` (review BND-10: `ptr::copy`, not
            // `copy_nonoverlapping`), and no reference to either range is live.
            // SAFETY: `n` readable bytes at `data`, `n` writable bytes at `out`.
            unsafe { core::ptr::copy(data, out, n) };
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// The bytes `(ptr, len)` a caller passed: empty for `len == 0` (whatever `ptr`),
/// `PT_NULL_ARGUMENT` for a NULL `ptr` with a non-zero `len`.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that stay unchanged for the call.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> R<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return fail(PT_NULL_ARGUMENT);
    }
    if len > isize::MAX as usize {
        return fail(PT_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, at most isize::MAX bytes, readable for the call (caller contract).
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// Optional bytes: `None` for `(NULL, 0)`, `PT_NULL_ARGUMENT` for `NULL` with a non-zero
/// length (a caller's mistake, never "none"), else as [`bytes`].
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn opt_bytes<'a>(ptr: *const u8, len: usize) -> R<Option<&'a [u8]>> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(None)
        } else {
            fail(PT_NULL_ARGUMENT)
        };
    }
    // SAFETY: forwarded caller contract.
    unsafe { bytes(ptr, len) }.map(Some)
}

/// UTF-8 text `(ptr, len)` (no NUL terminator needed): `PT_INVALID_ENCODING` when not UTF-8.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn text<'a>(ptr: *const c_char, len: usize) -> R<&'a str> {
    // SAFETY: forwarded caller contract.
    let b = unsafe { bytes(ptr.cast::<u8>(), len) }?;
    core::str::from_utf8(b).map_err(|_| Fail(PT_INVALID_ENCODING))
}

/// Optional text: `None` for `(NULL, 0)`, `PT_NULL_ARGUMENT` for `NULL` with a non-zero
/// length.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn opt_text<'a>(ptr: *const c_char, len: usize) -> R<Option<&'a str>> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(None)
        } else {
            fail(PT_NULL_ARGUMENT)
        };
    }
    // SAFETY: forwarded caller contract.
    unsafe { text(ptr, len) }.map(Some)
}

/// The byte strings of an array of `count` slices, at most `max` of them (checked before any
/// is read).
///
/// # Safety
/// A non-NULL `items` must point to `count` readable `pt_slice`s, each valid as for [`bytes`].
pub(crate) unsafe fn slices<'a>(
    items: *const pt_slice,
    count: usize,
    max: usize,
) -> R<Vec<&'a [u8]>> {
    if count > max {
        return Err(Error::Batch.into());
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    if items.is_null() {
        return fail(PT_NULL_ARGUMENT);
    }
    // The caller's contract: non-NULL, `count` (at most `max`, at most 65535) readable,
    // aligned `pt_slice`s.
    // SAFETY: `items` points to `count` readable `pt_slice`s, as above.
    let items = unsafe { core::slice::from_raw_parts(items, count) };
    items
        .iter()
        // SAFETY: each slice is valid for the call (caller contract).
        .map(|s| unsafe { bytes(s.data, s.len) })
        .collect()
}

/// A handle type (review BND-9): every handle points to its type's 64-bit tag followed by the
/// value, and each use checks the tag, so a handle of another type (callers from ctypes, cgo
/// or JNI hold them all as `void *` or `long`) is `PT_INVALID_ARGUMENT` rather than memory
/// corruption. `_free` overwrites the tag before it frees the memory.
pub(crate) trait Handle {
    /// The type's tag: FNV-1a of its name.
    const MAGIC: u64;
}

/// FNV-1a (64-bit) of `s`, for [`Handle::MAGIC`].
pub(crate) const fn fnv1a(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut i = 0;
    while i < b.len() {
        h ^= b[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// Implements [`Handle`] for each type.
macro_rules! handle_types {
    ($($t:ty),+ $(,)?) => {
        $(impl $crate::ffi::Handle for $t {
            const MAGIC: u64 = $crate::ffi::fnv1a(stringify!($t));
        })+
    };
}
pub(crate) use handle_types;

/// What a handle points to: its type's tag, then the value.
#[repr(C)]
struct Tagged<T> {
    magic: u64,
    value: T,
}

/// The tag a freed handle is left with (until the allocator reuses the memory).
const FREED: u64 = 0xdead_f4ee_dead_f4ee;

/// The tagged value behind a handle: `PT_NULL_ARGUMENT` when NULL, `PT_INVALID_ARGUMENT` when
/// it does not carry `T`'s tag.
///
/// # Safety
/// A non-NULL `p` must point to a live handle returned by this library (of any type).
unsafe fn tagged<T: Handle>(p: *const T) -> R<*mut Tagged<T>> {
    if p.is_null() {
        return fail(PT_NULL_ARGUMENT);
    }
    let t = p.cast::<Tagged<T>>().cast_mut();
    // Every handle of this library starts with an initialized, aligned `u64` tag.
    // SAFETY: `t` points to a live handle (caller contract), read as its first field only.
    let magic = unsafe { core::ptr::addr_of!((*t).magic).read() };
    if magic != T::MAGIC {
        return fail(PT_INVALID_ARGUMENT);
    }
    Ok(t)
}

/// A handle argument: `PT_NULL_ARGUMENT` when NULL, `PT_INVALID_ARGUMENT` for a handle of
/// another type.
///
/// # Safety
/// A non-NULL `p` must be a live handle returned by this library, not used mutably by another
/// thread during the call.
pub(crate) unsafe fn handle<'a, T: Handle>(p: *const T) -> R<&'a T> {
    // SAFETY: caller contract; a handle with `T`'s tag holds a `T` after it.
    Ok(unsafe { &(*tagged(p)?).value })
}

/// A handle argument the call mutates: `PT_NULL_ARGUMENT` when NULL, `PT_INVALID_ARGUMENT` for
/// a handle of another type.
///
/// # Safety
/// A non-NULL `p` must be a live handle returned by this library, used by no other thread
/// during the call.
pub(crate) unsafe fn handle_mut<'a, T: Handle>(p: *mut T) -> R<&'a mut T> {
    // SAFETY: caller contract; a handle with `T`'s tag holds a `T` after it.
    Ok(unsafe { &mut (*tagged(p)?).value })
}

/// A buffer output: `PT_NULL_ARGUMENT` when NULL; otherwise set empty at once (so it is empty
/// if the call fails) and returned for the result.
pub(crate) fn out_buffer<'a>(p: *mut pt_buffer) -> R<&'a mut pt_buffer> {
    out_value(p, pt_buffer::empty())
}

/// A buffer list output, as [`out_buffer`].
pub(crate) fn out_list<'a>(p: *mut pt_buffer_list) -> R<&'a mut pt_buffer_list> {
    out_value(p, pt_buffer_list::empty())
}

/// A plain output (a number, a flag, a static string pointer): `PT_NULL_ARGUMENT` when NULL,
/// otherwise set to `init` at once and returned.
pub(crate) fn out_value<'a, T>(p: *mut T, init: T) -> R<&'a mut T> {
    if p.is_null() {
        return fail(PT_NULL_ARGUMENT);
    }
    // The caller passes a pointer to writable, properly aligned storage for a `T` (header
    // contract), possibly uninitialized: it is written before any reference is made, and `T`
    // (an integer, a flag, a pointer or a buffer struct) has no drop glue to run on the old
    // contents.
    // SAFETY: `p` is writable, aligned storage for a `T`, written without reading it.
    unsafe {
        p.write(init);
        Ok(&mut *p)
    }
}

/// `PT_INVALID_ARGUMENT` when two of a call's outputs are the same non-NULL pointer (review
/// BND-10: two `&mut` to one place, and a secret output overwritten by another, never wiped).
/// Called after every output was reset, with the pointers as the caller passed them.
pub(crate) fn distinct(outputs: &[*mut ()]) -> R<()> {
    for (i, p) in outputs.iter().enumerate() {
        if !p.is_null() && outputs[i + 1..].contains(p) {
            return fail(PT_INVALID_ARGUMENT);
        }
    }
    Ok(())
}

/// A handle output: `PT_NULL_ARGUMENT` when NULL; otherwise set to NULL at once (so it stays
/// NULL if the call fails).
pub(crate) fn out_handle<'a, T>(p: *mut *mut T) -> R<HandleOut<'a, T>> {
    out_value(p, core::ptr::null_mut()).map(HandleOut)
}

/// Where a new handle goes.
pub(crate) struct HandleOut<'a, T>(&'a mut *mut T);

impl<T: Handle> HandleOut<'_, T> {
    /// Stores a new handle owning `value`, tagged with its type.
    pub(crate) fn set(self, value: T) {
        let t = Box::into_raw(Box::new(Tagged {
            magic: T::MAGIC,
            value,
        }));
        *self.0 = t.cast::<T>();
    }
}

/// Frees a handle made by [`HandleOut::set`] (NULL: no-op; a handle of another type: ignored,
/// leaked rather than freed as the wrong type); the value's own `Drop` wipes its secrets.
///
/// # Safety
/// `p` is NULL or a live handle returned by this library, used by no other thread and never
/// used again.
pub(crate) unsafe fn free_handle<T: Handle>(p: *mut T) {
    if !p.is_null() {
        let _ = guard(|| {
            // SAFETY: a live handle (caller contract).
            let t = unsafe { tagged(p) }?;
            // A handle with `T`'s tag was made by `HandleOut::set` from a `Box<Tagged<T>>`;
            // the tag is overwritten, then the box taken back once.
            // SAFETY: as above.
            unsafe {
                core::ptr::addr_of_mut!((*t).magic).write(FREED);
                drop(Box::from_raw(t));
            }
            Ok(())
        });
    }
}

/// Takes a one-shot state's value out of its slot and wipes the slot. `Option::take` rewrites
/// only the tag: the moved-out value's bytes (blinds, nonces, secrets of a state whose own
/// `Drop` would wipe them) would stay in the handle's heap block until it is freed, unwiped.
pub(crate) fn take_wiped<T>(slot: &mut Option<T>) -> Option<T> {
    let v = slot.take();
    if !cfg!(feature = "control-no-wipe") {
        let p: *mut Option<T> = slot;
        // `*slot` is `None` after the take (nothing to drop); its bytes are overwritten with
        // volatile writes, which leaves them briefly not a valid `Option<T>`, and a valid `None`
        // is written at once, without reading or dropping the old value. Nothing reads the
        // slot in between (we hold its only reference).
        // SAFETY: `p` is valid for writes of `size_of::<Option<T>>()` bytes, aligned.
        unsafe {
            let bytes = p.cast::<u8>();
            for i in 0..core::mem::size_of::<Option<T>>() {
                core::ptr::write_volatile(bytes.add(i), 0);
            }
            core::ptr::write(p, None);
        }
    }
    v
}

/// The body of a getter returning bytes: `f` on the handle `h`, its result copied into the
/// buffer output `out` (the result is dropped after, so a `Zeroizing` one is wiped).
pub(crate) fn read_buffer<H: Handle, B: AsRef<[u8]>>(
    h: *const H,
    out: *mut pt_buffer,
    f: impl FnOnce(&H) -> R<B>,
) -> pt_status {
    guard(|| {
        let o = out_buffer(out)?;
        // SAFETY: a live handle of type `H` (header contract).
        let b = f(unsafe { handle(h) }?)?;
        *o = pt_buffer::new(b.as_ref());
        Ok(())
    })
}

/// The body of a getter returning a plain value: `f` on the handle `h`, stored in `out`
/// (`init` there on failure).
pub(crate) fn read_value<H: Handle, T>(
    h: *const H,
    out: *mut T,
    init: T,
    f: impl FnOnce(&H) -> R<T>,
) -> pt_status {
    guard(|| {
        let o = out_value(out, init)?;
        // SAFETY: a live handle of type `H` (header contract).
        *o = f(unsafe { handle(h) }?)?;
        Ok(())
    })
}

/// A static C string's pointer (for `const char **` outputs such as media types).
pub(crate) fn cstr(s: &'static core::ffi::CStr) -> *const c_char {
    s.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_caught_at_the_edge() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let s = guard(|| panic!("boom"));
        std::panic::set_hook(prev);
        assert_eq!(s, PT_PANIC);
    }

    #[test]
    fn every_library_error_has_its_own_code_and_name() {
        // `Error::ALL` is generated with the enum (an exhaustive match in the library), so a
        // variant added there is counted here and fails until it has its own code.
        let mut seen = std::collections::HashSet::new();
        assert!(Error::ALL.len() >= 19);
        for &e in Error::ALL {
            let c = code_of(e);
            assert_ne!(c, PT_UNKNOWN_ERROR, "{e:?}");
            assert!(seen.insert(c), "{e:?}");
            // SAFETY: a static NUL-terminated string.
            let name = unsafe { core::ffi::CStr::from_ptr(pt_status_name(c)) };
            assert_ne!(name.to_bytes(), b"UNKNOWN", "{e:?}");
            assert_ne!(name.to_bytes(), b"UNKNOWN_ERROR", "{e:?}");
        }
    }

    #[test]
    fn versions_match_the_package() {
        const PT_VERSION_STRING: &str = env!("CARGO_PKG_VERSION");
        assert_eq!(VERSION.to_str(), Ok(PT_VERSION_STRING));
        assert!(include_str!("../cbindgen.toml").contains(&format!(
            "#define PT_VERSION_STRING \"{PT_VERSION_STRING}\\\"\"\"\""
        )));
        assert_eq!(
            format!("{PT_VERSION_MAJOR}.{PT_VERSION_MINOR}.{PT_VERSION_PATCH}"),
            PT_VERSION_STRING
        );
        // SAFETY: a static NUL-terminated string.
        let v = unsafe { core::ffi::CStr::from_ptr(pt_version()) };
        assert_eq!(v.to_str(), Ok(PT_VERSION_STRING));
        assert_eq!(pt_abi_version(), PT_ABI_VERSION);
        // The SONAME build.rs sets follows the ABI version.
        assert_eq!(
            include_str!("../build.rs")
                .matches(&format!(
                    "-soname,libprivacy_tokens.so.{}",
                    PT_ABI_VERSION - 1
                ))
                .count(),
            1
        );
    }
}
