// Node entry (the `node` export condition): the module is instantiated on import from the
// WebAssembly bytes embedded in privacy_tokens_wasm.js, so every export is ready without an
// init call, and a bundle of this entry (esbuild, webpack, Rollup, for Node) needs no .wasm
// file next to it. Importing it has side effects (package.json's `sideEffects` says so).
import { Buffer } from 'node:buffer';
import { initSync } from './privacy_tokens.js';
import wasm from './privacy_tokens_wasm.js';

initSync({ module: Buffer.from(wasm, 'base64') });

export * from './index.js';

/** Already initialized on import; kept so code written for the browser entry runs unchanged. */
export default async function init() {}
