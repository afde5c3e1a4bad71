/**
 * The error every function of this package throws: `code` is stable (one per error kind of the
 * Rust library, plus INVALID_ARGUMENT, STATE_CONSUMED and RANDOMNESS_UNAVAILABLE), `message`
 * is for people. Errors thrown by the WebAssembly module are `Error` objects named
 * `PrivacyTokensError` with a `code`; `instanceof PrivacyTokensError` recognises them (and
 * instances of this class), whichever entry (`privacy-tokens`, `privacy-tokens/client`)
 * threw them.
 */
export class PrivacyTokensError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'PrivacyTokensError';
    this.code = code;
  }

  static [Symbol.hasInstance](e) {
    return e instanceof Error && e.name === 'PrivacyTokensError' && typeof e.code === 'string';
  }
}

// The two errors wasm-bindgen's glue throws itself, before the Rust code runs: a method of an
// object whose Rust value was freed (`free()`, `Symbol.dispose`) and an argument that is not an
// instance of the expected class of this module (`undefined`, a plain object, or an object of
// the other entry: each entry is its own WebAssembly instance, and objects do not cross them).
const FREED = /null pointer passed to rust/;
const WRONG_CLASS = /^expected instance of (\w+)/;

/** The `PrivacyTokensError` for an error of wasm-bindgen's glue; anything else unchanged. */
export function translate(e) {
  if (!(e instanceof Error) || e instanceof PrivacyTokensError) return e;
  if (FREED.test(e.message)) {
    return new PrivacyTokensError('STATE_CONSUMED', 'this object was freed (free() or Symbol.dispose); it cannot be used any more');
  }
  const m = WRONG_CLASS.exec(e.message);
  if (m) {
    return new PrivacyTokensError(
      'INVALID_ARGUMENT',
      `expected a ${m[1]} made by this entry of the package (objects of privacy-tokens and privacy-tokens/client do not mix)`,
    );
  }
  return e;
}

/** `fn` with wasm-bindgen's own errors turned into `PrivacyTokensError`s. */
export function guard(fn) {
  const g = {
    [fn.name](...args) {
      try {
        return fn.apply(this, args);
      } catch (e) {
        throw translate(e);
      }
    },
  }[fn.name];
  Object.defineProperty(g, 'length', { value: fn.length });
  return g;
}

const SKIP = new Set(['constructor', 'prototype', 'length', 'name', '__wrap', '__destroy_into_raw', 'free', Symbol.dispose]);

/** Guards every method, getter and setter of the module's classes, once per module. */
export function harden(module) {
  for (const C of Object.values(module)) {
    if (typeof C !== 'function' || !C.prototype || typeof C.prototype.free !== 'function' || C.__privacyTokensGuarded) continue;
    for (const target of [C.prototype, C]) {
      for (const key of Reflect.ownKeys(target)) {
        if (SKIP.has(key)) continue;
        const d = Object.getOwnPropertyDescriptor(target, key);
        if (typeof d.value === 'function') d.value = guard(d.value);
        if (d.get) d.get = guard(d.get);
        if (d.set) d.set = guard(d.set);
        Object.defineProperty(target, key, d);
      }
    }
    Object.defineProperty(C, '__privacyTokensGuarded', { value: true });
  }
  // The origin checks take the challenge the origin sent as bytes or as the Challenge object.
  const { Challenge } = module;
  for (const cls of [module.PrivacyPassIssuer, module.BlindRsaTokenKey]) {
    if (!cls || cls.prototype.verifyToken.__acceptsChallenge) continue;
    const verify = cls.prototype.verifyToken;
    const v = {
      verifyToken(token, challenge, ...rest) {
        return verify.call(this, token, challenge instanceof Challenge ? challenge.toBytes() : challenge, ...rest);
      },
    }.verifyToken;
    Object.defineProperty(v, 'length', { value: verify.length });
    Object.defineProperty(v, '__acceptsChallenge', { value: true });
    Object.defineProperty(cls.prototype, 'verifyToken', { value: v, writable: true, configurable: true });
  }
}
