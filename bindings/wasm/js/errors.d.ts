import type { ErrorCode } from './privacy_tokens.js';

/**
 * The error every function of this package throws: `code` is stable, `message` is for people.
 * `instanceof PrivacyTokensError` recognises the errors the WebAssembly module throws.
 */
export declare class PrivacyTokensError extends Error {
  constructor(code: ErrorCode, message: string);
  readonly name: 'PrivacyTokensError';
  readonly code: ErrorCode;
}
