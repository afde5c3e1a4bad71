export * from './privacy_tokens.js';
export { PrivacyTokensError } from './errors.js';
/** Already initialized on import (Node entry). */
export default function init(): Promise<void>;
