// Node entry (the `node` export condition): the module is compiled and instantiated on import,
// so every export is ready to use without an init call.
import { readFileSync } from 'node:fs';
import { initSync } from './privacy_tokens.js';

initSync({ module: readFileSync(new URL('./privacy_tokens_bg.wasm', import.meta.url)) });

export * from './privacy_tokens.js';
export { PrivacyTokensError } from './errors.js';

/** Already initialized on import; kept so code written for the browser entry runs unchanged. */
export default async function init() {}
