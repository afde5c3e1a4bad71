// Browser and bundler entry: call `await init()` once (it fetches privacy_tokens_bg.wasm next
// to this file), or `initSync({ module })` with a compiled `WebAssembly.Module` (workers).
//
// Every function and method is guarded (errors.js): wasm-bindgen's own errors for a freed
// object or an argument of the wrong class become `PrivacyTokensError`s (STATE_CONSUMED,
// INVALID_ARGUMENT). Importing this file does that to the module's classes: it has side
// effects (package.json's `sideEffects` says so).
import * as raw from './privacy_tokens.js';
import { guard, harden } from './errors.js';

harden(raw);

export * from './privacy_tokens.js';
export { default } from './privacy_tokens.js';
export { PrivacyTokensError } from './errors.js';
// Local exports take precedence over the `export *` above.
export const createTokenRequest = guard(raw.createTokenRequest);
export const createCredentialRequest = guard(raw.createCredentialRequest);
export const parseChallenges = guard(raw.parseChallenges);
export const parseAuthorization = guard(raw.parseAuthorization);
export const parseAuthorizationWithExtensions = guard(raw.parseAuthorizationWithExtensions);
export const authorizationHeader = guard(raw.authorizationHeader);
export const base64urlEncode = guard(raw.base64urlEncode);
export const base64urlDecode = guard(raw.base64urlDecode);
export const parseIssuerDirectory = guard(raw.parseIssuerDirectory);
export const encodeExtensions = guard(raw.encodeExtensions);
export const decodeExtensions = guard(raw.decodeExtensions);
export const createActIssueRequest = guard(raw.createActIssueRequest);
export const actKeyId = guard(raw.actKeyId);
export const actCiphersuite = guard(raw.actCiphersuite);
