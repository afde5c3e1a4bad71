// Browser and bundler entry: call `await init()` once (it fetches privacy_tokens_bg.wasm next
// to this file), or `initSync({ module })` with a compiled `WebAssembly.Module` (workers).
export * from './privacy_tokens.js';
export { default } from './privacy_tokens.js';
export { PrivacyTokensError } from './errors.js';
