export * from './privacy_tokens.js';
export { default } from './privacy_tokens.js';
export { PrivacyTokensError } from './errors.js';
