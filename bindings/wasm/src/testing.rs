//! Test-only hooks, compiled only with the `testing` feature (the `pkg-testing/` flavour that
//! `build.sh` builds for the test suite; never the npm package's flavours).
//!
//! - `__testingSetSeed(seed)`: the next per-call generator is seeded with these 32 bytes
//!   instead of `crypto.getRandomValues` (once; the stored copy is wiped when it is taken), so a
//!   test knows the generator's key and output and can look for them in linear memory.
//! - `__testingMemory()`: the module's `WebAssembly.Memory`.
//! - `__testingSetWipe(on)`: `false` turns off the binding's wipes (the stack wipe around each
//!   call, the generator's and the tokens' zeroization), to run a scan's control: the same
//!   scan must then find the secret.

use std::sync::Mutex;

use wasm_bindgen::prelude::*;
use zeroize::Zeroize;

use crate::{secret_bytes, JsResult};

struct Hooks {
    seed: [u8; 32],
    has_seed: bool,
    wipe: bool,
}

static HOOKS: Mutex<Hooks> = Mutex::new(Hooks {
    seed: [0; 32],
    has_seed: false,
    wipe: true,
});

fn hooks() -> std::sync::MutexGuard<'static, Hooks> {
    // The module is single-threaded and no hook panics while holding the lock.
    HOOKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seeds the next per-call generator with `seed` (32 bytes).
#[wasm_bindgen(js_name = __testingSetSeed)]
pub fn set_seed(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] seed: JsValue,
) -> JsResult<()> {
    crate::wiped(|| {
        let b = secret_bytes(&seed, "seed")?;
        if b.len() != 32 {
            return Err(crate::bad_arg("seed", "expected 32 bytes"));
        }
        let mut h = hooks();
        h.seed.copy_from_slice(&b);
        h.has_seed = true;
        Ok(())
    })
}

/// Turns the binding's wipes on (the default) or off (a control run).
#[wasm_bindgen(js_name = __testingSetWipe)]
pub fn set_wipe(on: bool) {
    hooks().wipe = on;
}

/// The module's linear memory (`WebAssembly.Memory`).
#[wasm_bindgen(js_name = __testingMemory)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}

/// Takes the seed set by `__testingSetSeed` into `out` and wipes the stored copy.
pub(crate) fn take_seed(out: &mut [u8; 32]) -> bool {
    let mut h = hooks();
    if !h.has_seed {
        return false;
    }
    out.copy_from_slice(&h.seed);
    h.seed.zeroize();
    h.has_seed = false;
    true
}

/// Whether the binding's wipes are on.
pub(crate) fn wipe() -> bool {
    hooks().wipe
}
