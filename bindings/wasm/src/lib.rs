//! WebAssembly bindings of `privacy-tokens` for JavaScript and TypeScript (browsers, Node,
//! workers), built into the npm package `privacy-tokens` by `bindings/wasm/build.sh`.
//!
//! Everything here is a thin layer over the library's public API:
//! - [`challenge`]: `WWW-Authenticate` challenges, `Authorization` headers;
//! - [`privacy_pass`]: Privacy Pass token types 0x0001 and 0x0005, client and issuer;
//! - [`blind_rsa`]: Privacy Pass token types 0x0002 and 0xDA7A (blind RSA, partially blind
//!   RSA with extensions): `Extensions` encoding, the issuer and the origin's key (their client
//!   is [`privacy_pass`]'s `createTokenRequest`);
//! - [`act`]: ACT (Anonymous Credit Tokens) clients and the Moderator;
//! - [`arc`]: ARC (0xE5AC) credentials, presentations and the issuer;
//! - [`oprf`]: OPRF, VOPRF and POPRF on the five RFC 9497 suites (feature `oprf`);
//! - `hazmat` (feature `hazmat`, only in the test flavour): deterministic entry points for
//!   published test vectors.
//!
//! Errors reach JavaScript as thrown `Error` objects named `PrivacyTokensError` with a stable
//! `code` ([`code_of`]); arguments are type-checked here (a string where bytes are expected is a
//! `INVALID_ARGUMENT` error, not a silent conversion). Secret values (client states, keys,
//! credentials, tokens) live in Rust memory and are zeroized when their JavaScript object is
//! freed (`free()`, `Symbol.dispose`, or the garbage collector's finalizer); secret bytes handed
//! to JavaScript (`toBytes()`, `secretKey()`, `authorizationHeader()`) are copied out of a buffer
//! that is then wiped. Every call that draws randomness or moves a secret runs under the
//! library's stack wipe ([`privacy_tokens::run_wiped`], through [`with_rng`] and `wiped`), with
//! a per-call generator that wipes itself: WebAssembly's shadow stack is linear memory, which
//! any script holding the instance's exports can read. The package's JavaScript entries guard
//! every function and method, so that wasm-bindgen's own errors (a freed object, an argument of
//! the wrong class) also reach callers as `PrivacyTokensError`s.

#![deny(unsafe_code)]
#![warn(missing_docs)]

use chacha20::rand_core::SeedableRng;
use chacha20::ChaCha12Rng;
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use zeroize::{Zeroize, Zeroizing};

pub mod act;
pub mod arc;
pub mod blind_rsa;
pub mod challenge;
#[cfg(feature = "hazmat")]
pub mod hazmat;
#[cfg(feature = "oprf")]
pub mod oprf;
pub mod privacy_pass;
#[cfg(feature = "testing")]
pub mod testing;

pub use privacy_tokens::Error;

/// A JavaScript-facing result: the error is the thrown value.
pub type JsResult<T> = Result<T, JsValue>;

/// The stable `code` of a library error, as JavaScript sees it in `PrivacyTokensError.code`.
pub fn code_of(e: Error) -> &'static str {
    match e {
        Error::InvalidLength => "INVALID_LENGTH",
        Error::InvalidPoint => "INVALID_POINT",
        Error::IdentityElement => "IDENTITY_ELEMENT",
        Error::NonCanonicalScalar => "NON_CANONICAL_SCALAR",
        Error::ZeroScalar => "ZERO_SCALAR",
        Error::InvalidProof => "INVALID_PROOF",
        Error::InvalidInput => "INVALID_INPUT",
        Error::Inverse => "INVERSE",
        Error::DeriveKeyPair => "DERIVE_KEY_PAIR",
        Error::Batch => "BATCH",
        Error::InputTooLong => "INPUT_TOO_LONG",
        Error::UnsupportedValue => "UNSUPPORTED_VALUE",
        Error::HashToCurve => "HASH_TO_CURVE",
        Error::LimitExceeded => "LIMIT_EXCEEDED",
        Error::InvalidSignature => "INVALID_SIGNATURE",
        Error::MissingKey => "MISSING_KEY",
        Error::InfoMismatch => "INFO_MISMATCH",
        Error::InvalidInstance => "INVALID_INSTANCE",
        Error::InvalidEncoding => "INVALID_ENCODING",
        Error::InvalidKey => "INVALID_KEY",
        Error::OutOfRange => "OUT_OF_RANGE",
        Error::SigningFailure => "SIGNING_FAILURE",
        Error::Blinding => "BLINDING",
        // `Error` is non-exhaustive: a variant added later keeps a code until it gets its own.
        _ => "UNKNOWN",
    }
}

/// Codes of this layer: a JavaScript argument of the wrong type or out of range.
pub const INVALID_ARGUMENT: &str = "INVALID_ARGUMENT";
/// A one-shot state (a client state, a request state) was already used or freed.
pub const STATE_CONSUMED: &str = "STATE_CONSUMED";
/// `crypto.getRandomValues` failed or is missing.
pub const RANDOMNESS_UNAVAILABLE: &str = "RANDOMNESS_UNAVAILABLE";

/// A thrown `PrivacyTokensError`: an `Error` with `name = "PrivacyTokensError"` and `code`.
/// (The package's `PrivacyTokensError` class recognises these with `instanceof`.)
pub fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    e.set_name("PrivacyTokensError");
    // Setting a property on a fresh `Error` cannot fail.
    let _ = Reflect::set(&e, &"code".into(), &code.into());
    e.into()
}

/// The thrown value of a library error.
pub fn lib_error(e: Error) -> JsValue {
    error(code_of(e), &e.to_string())
}

/// `?`-friendly conversion of library results.
pub trait OrThrow<T> {
    /// The library error as a thrown `PrivacyTokensError`.
    fn or_throw(self) -> JsResult<T>;
}

impl<T> OrThrow<T> for Result<T, Error> {
    fn or_throw(self) -> JsResult<T> {
        self.map_err(lib_error)
    }
}

/// An `INVALID_ARGUMENT` error naming the argument.
pub fn bad_arg(name: &str, what: &str) -> JsValue {
    error(INVALID_ARGUMENT, &format!("{name}: {what}"))
}

// ---------------------------------------------------------------------------------------------
// Wiping

/// Whether this layer wipes what it handles: always, except in the test flavour's control runs
/// (`__testingSetWipe(false)`).
#[inline(always)]
pub(crate) fn wipe_enabled() -> bool {
    #[cfg(feature = "testing")]
    {
        testing::wipe()
    }
    #[cfg(not(feature = "testing"))]
    {
        true
    }
}

/// Runs `body` under the library's stack wipe ([`privacy_tokens::run_wiped`]): its own frame,
/// then 112 KiB of the (shadow) stack below the caller overwritten, so the copies `body` makes
/// of secrets (a generator's state, a decoded token) do not stay in linear memory.
#[inline(always)]
pub(crate) fn wiped<R>(body: impl FnOnce() -> R) -> R {
    if wipe_enabled() {
        privacy_tokens::run_wiped(body)
    } else {
        body()
    }
}

// ---------------------------------------------------------------------------------------------
// Randomness

/// Runs `body` with a fresh ChaCha12 generator seeded with 32 bytes of
/// `crypto.getRandomValues`, for one operation, so that the library's infallible RNG interface
/// never meets a failing source mid-operation: a missing or failing source is a
/// `RANDOMNESS_UNAVAILABLE` error before any work.
///
/// The generator's state is its key (the seed) and up to 256 bytes of buffered output, which
/// are the blinds, nonces and proof nonces the operation drew (an issuer's proof nonce and its
/// public proof give its key). So the generator is `chacha20`'s `ChaCha12Rng`, which wipes
/// itself on drop, it is built inside `body`'s wiped frame ([`wiped`]) and never moved out of
/// it, and every copy of the seed is in that frame or a `Zeroizing`.
pub fn with_rng<R>(body: impl FnOnce(&mut ChaCha12Rng) -> JsResult<R>) -> JsResult<R> {
    // Compile-time: the generator wipes itself on drop (chacha20's `zeroize` feature); without
    // the feature this does not build.
    const _: () = {
        const fn zeroize_on_drop<T: zeroize::ZeroizeOnDrop>() {}
        zeroize_on_drop::<ChaCha12Rng>();
    };
    wiped(|| {
        let mut rng = ChaCha12Rng::from_seed(*seed()?);
        let out = body(&mut rng);
        if !wipe_enabled() {
            // The test flavour's control: the generator left in place unwiped, as a generator
            // without `ZeroizeOnDrop` would be.
            core::mem::forget(rng);
        }
        out
    })
}

/// 32 bytes from `crypto.getRandomValues` (or the test flavour's fixed seed).
fn seed() -> JsResult<Zeroizing<[u8; 32]>> {
    let mut seed = Zeroizing::new([0u8; 32]);
    #[cfg(feature = "testing")]
    if testing::take_seed(&mut seed) {
        return Ok(seed);
    }
    getrandom::fill(seed.as_mut()).map_err(|e| {
        error(
            RANDOMNESS_UNAVAILABLE,
            &format!("crypto.getRandomValues failed: {e}"),
        )
    })?;
    Ok(seed)
}

/// Moves a one-shot state out of its object's slot and overwrites the bytes the move leaves
/// there (`Option::take` writes only `None`'s tag: the state's nonces and blinds would stay in
/// the object's memory until it is reused). `Option::zeroize` on the emptied slot does it; the
/// state types' `Zeroize` is empty (see [`state_zeroize`]), their contents wipe themselves on drop.
pub(crate) fn take_state<T: Zeroize>(slot: &mut Option<T>) -> Option<T> {
    let v = slot.take();
    if wipe_enabled() {
        slot.zeroize();
    }
    v
}

/// An empty `Zeroize` for the one-shot client-state types of this layer, so that
/// [`take_state`] can clear the slot they leave: the values wipe themselves on drop (the
/// library's states are `ZeroizeOnDrop`), and `Option::zeroize` drops a `Some` after calling it.
macro_rules! state_zeroize {
    ($($t:ty),*) => {
        $(impl zeroize::Zeroize for $t {
            fn zeroize(&mut self) {}
        })*
    };
}
pub(crate) use state_zeroize;

/// Bytes that are wiped when dropped (unless the test flavour's control switched wipes off).
pub(crate) struct Secret<T: Zeroize>(pub(crate) T);

impl<T: Zeroize> Drop for Secret<T> {
    fn drop(&mut self) {
        if wipe_enabled() {
            self.0.zeroize();
        }
    }
}

impl<T: Zeroize> core::ops::Deref for Secret<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

// ---------------------------------------------------------------------------------------------
// Arguments

/// The bytes of a `Uint8Array` argument, also one from another realm (an iframe, a `vm`
/// context, a test environment: recognised by its `Symbol.toStringTag`, not `instanceof`), or an
/// `ArrayBuffer` (what `response.arrayBuffer()` gives). Any other type (strings, arrays, other
/// typed arrays) is an `INVALID_ARGUMENT` error; `Buffer` is accepted as the `Uint8Array`
/// subclass it is.
pub fn bytes(v: &JsValue, name: &str) -> JsResult<Vec<u8>> {
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(a.to_vec());
    }
    if v.is_object() {
        let tag = Reflect::get(v, &js_sys::Symbol::to_string_tag()).unwrap_or(JsValue::UNDEFINED);
        let tag = tag.as_string();
        if tag.as_deref() == Some("Uint8Array") && js_sys::ArrayBuffer::is_view(v) {
            // `new Uint8Array(view)` in this realm: a copy of its elements.
            return Ok(Uint8Array::new(v).to_vec());
        }
        if tag.as_deref() == Some("ArrayBuffer") {
            return Ok(Uint8Array::new(v).to_vec());
        }
    }
    Err(bad_arg(name, "expected a Uint8Array (or an ArrayBuffer)"))
}

/// [`bytes`] into a buffer wiped on drop, for secret inputs.
pub fn secret_bytes(v: &JsValue, name: &str) -> JsResult<Zeroizing<Vec<u8>>> {
    bytes(v, name).map(Zeroizing::new)
}

/// An optional `Uint8Array` argument (`undefined` or `null` for none).
pub fn opt_bytes(v: &JsValue, name: &str) -> JsResult<Option<Vec<u8>>> {
    if v.is_undefined() || v.is_null() {
        Ok(None)
    } else {
        bytes(v, name).map(Some)
    }
}

/// An array of `Uint8Array`s, at most `max` of them (checked before any is copied).
pub fn bytes_list(v: &JsValue, name: &str, max: usize) -> JsResult<Vec<Vec<u8>>> {
    let a = v
        .dyn_ref::<Array>()
        .ok_or_else(|| bad_arg(name, "expected an array of Uint8Array"))?;
    if a.length() as usize > max {
        return Err(error(
            code_of(Error::Batch),
            &format!("{name}: more than {max} elements"),
        ));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| bytes(&x, &format!("{name}[{i}]")))
        .collect()
}

/// A string argument.
pub fn string(v: &JsValue, name: &str) -> JsResult<String> {
    v.as_string()
        .ok_or_else(|| bad_arg(name, "expected a string"))
}

/// An integer argument in `min..=max`.
pub fn integer(v: &JsValue, name: &str, min: u64, max: u64) -> JsResult<u64> {
    let f = v
        .as_f64()
        .ok_or_else(|| bad_arg(name, "expected a number"))?;
    if f.fract() != 0.0 || f < min as f64 || f > max as f64 {
        return Err(bad_arg(
            name,
            &format!("expected an integer in {min}..={max}"),
        ));
    }
    Ok(f as u64)
}

/// An optional integer argument.
pub fn opt_integer(v: &JsValue, name: &str, min: u64, max: u64) -> JsResult<Option<u64>> {
    if v.is_undefined() || v.is_null() {
        Ok(None)
    } else {
        integer(v, name, min, max).map(Some)
    }
}

/// Property `key` of an options object (`undefined` when `options` is `undefined`/`null`).
pub fn option(options: &JsValue, key: &str) -> JsResult<JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(JsValue::UNDEFINED);
    }
    if !options.is_object() {
        return Err(bad_arg("options", "expected an object"));
    }
    Reflect::get(options, &key.into()).map_err(|_| bad_arg("options", "unreadable property"))
}

// ---------------------------------------------------------------------------------------------
// Results

/// A plain object from `(key, value)` pairs.
pub fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        // Defining a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&o, &(*k).into(), v);
    }
    o.into()
}

/// A `Uint8Array` copy of `b`.
pub fn u8a(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

/// An array of `Uint8Array`s.
pub fn u8a_list<B: AsRef<[u8]>>(items: impl IntoIterator<Item = B>) -> JsValue {
    items
        .into_iter()
        .map(|b| u8a(b.as_ref()))
        .collect::<Array>()
        .into()
}

/// A `Uint8Array` copy of secret bytes; the Rust buffer is wiped when the caller drops it
/// (`Zeroizing`), so only the JavaScript copy remains.
pub fn secret_u8a(b: &Zeroizing<Vec<u8>>) -> Uint8Array {
    Uint8Array::from(b.as_slice())
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The stable `code` of a thrown `PrivacyTokensError`. */
export type ErrorCode =
  | "INVALID_LENGTH" | "INVALID_POINT" | "IDENTITY_ELEMENT" | "NON_CANONICAL_SCALAR"
  | "ZERO_SCALAR" | "INVALID_PROOF" | "INVALID_INPUT" | "INVERSE" | "DERIVE_KEY_PAIR" | "BATCH"
  | "INPUT_TOO_LONG" | "UNSUPPORTED_VALUE" | "HASH_TO_CURVE" | "LIMIT_EXCEEDED"
  | "INVALID_SIGNATURE" | "MISSING_KEY" | "INFO_MISMATCH" | "INVALID_INSTANCE"
  | "INVALID_ENCODING" | "INVALID_KEY" | "OUT_OF_RANGE" | "SIGNING_FAILURE" | "BLINDING"
  | "INVALID_ARGUMENT" | "STATE_CONSUMED" | "RANDOMNESS_UNAVAILABLE" | "UNKNOWN";
"#;
