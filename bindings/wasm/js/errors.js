/**
 * The error every function of this package throws: `code` is stable (one per error kind of the
 * Rust library, plus INVALID_ARGUMENT, STATE_CONSUMED and RANDOMNESS_UNAVAILABLE), `message`
 * is for people. Errors thrown by the WebAssembly module are `Error` objects named
 * `PrivacyTokensError` with a `code`; `instanceof PrivacyTokensError` recognises them (and
 * instances of this class).
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
