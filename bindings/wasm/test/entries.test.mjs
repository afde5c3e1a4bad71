// The package's entries as a browser, a bundler and a worker runtime load them: the `default`
// export condition (the web entry, which needs `init` or `initSync`), resolved through
// package.json's `exports`, here inside a worker thread that compiles the module itself the
// way an edge worker receives it (`initSync({ module })`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const pkgDir = new URL('../pkg/', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', pkgDir), 'utf8'));

test('package.json: ES module with node and default conditions for both flavours, types for each', () => {
  assert.equal(pkg.name, 'privacy-tokens');
  assert.equal(pkg.type, 'module');
  for (const entry of ['.', './client']) {
    const e = pkg.exports[entry];
    assert.ok(e.types && e.node && e.default, entry);
    // Conditions match in object order: `node` (with its own types) before the generic
    // `types`, or TypeScript never reads node.d.ts (BND-19).
    assert.deepEqual(Object.keys(e), ['node', 'types', 'default'], entry);
    assert.deepEqual(Object.keys(e.node), ['types', 'default'], entry);
    for (const f of [e.types, e.node.default, e.node.types, e.default]) {
      assert.ok(readFileSync(new URL(f, pkgDir)).length > 0, f);
    }
  }
  // The entries patch the module's classes on import and the Node entry instantiates it: both
  // are side effects a bundler must keep (BND-5).
  assert.deepEqual([...pkg.sideEffects].sort(), ['./client/index.js', './client/node.js', './full/index.js', './full/node.js']);
  const require = createRequire(import.meta.url);
  assert.match(require.resolve('privacy-tokens/package.json'), /pkg\/package\.json$/);
  // The test flavour is not part of the package.
  assert.ok(!pkg.files.some((f) => f.includes('testing')));
});

test('require(): Node 20.19+ loads the ES module entry from CommonJS (README: ESM only, no CommonJS build)', () => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  const require = createRequire(import.meta.url);
  if (major === 20 && minor < 19) {
    assert.throws(() => require('privacy-tokens'), /ERR_REQUIRE_ESM|require\(\) of ES Module/);
    return;
  }
  const m = require('privacy-tokens');
  assert.equal(m.base64urlEncode(new Uint8Array([1])), 'AQ==');
});

function inWorker(source) {
  return new Promise((resolve, reject) => {
    const w = new Worker(source, { eval: true, type: 'module' });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

for (const flavour of ['full', 'client']) {
  test(`web entry (${flavour}) in a worker thread: initSync with a compiled WebAssembly.Module, then a token`, async () => {
    const dir = new URL(`${flavour}/`, pkgDir).href;
    const result = await inWorker(`
      import { parentPort } from 'node:worker_threads';
      import { readFileSync } from 'node:fs';
      const m = await import(${JSON.stringify(dir + 'index.js')});
      let before;
      try { m.parseChallenges(''); before = 'usable'; } catch (e) { before = 'not initialized'; }
      const module = new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(dir + 'privacy_tokens_bg.wasm')})));
      m.initSync({ module });
      const full = await import(${JSON.stringify(new URL('full/node.js', pkgDir).href)});
      const issuer = full.PrivacyPassIssuer.generate(1);
      const challenge = full.Challenge.create({ tokenType: 1, issuerName: 'i.example', tokenKey: issuer.tokenKey });
      const [c] = m.parseChallenges(challenge.toHeader());
      const req = m.createTokenRequest(c);
      const [token] = req.state.finalize(issuer.issue(req.body, req.contentType).body);
      let code;
      try { m.base64urlDecode('!'); } catch (e) { code = [e instanceof m.PrivacyTokensError, e.code]; }
      parentPort.postMessage({ before, ok: issuer.verifyToken(token.toBytes(), challenge.toBytes()), code, hasIssuer: 'PrivacyPassIssuer' in m });
    `);
    assert.equal(result.before, 'not initialized');
    assert.equal(result.ok, true);
    assert.deepEqual(result.code, [true, 'INVALID_ENCODING']);
    assert.equal(result.hasIssuer, flavour === 'full');
  });
}

test('web entry without crypto.getRandomValues and without FinalizationRegistry: RANDOMNESS_UNAVAILABLE, free() still wipes and frees (BND-17)', async () => {
  const dir = new URL('full/', pkgDir).href;
  const result = await inWorker(`
    import { parentPort } from 'node:worker_threads';
    import { readFileSync } from 'node:fs';
    delete globalThis.crypto;
    delete globalThis.FinalizationRegistry;
    const gone = typeof globalThis.crypto === 'undefined' && typeof globalThis.FinalizationRegistry === 'undefined';
    const m = await import(${JSON.stringify(dir + 'index.js')});
    m.initSync({ module: new WebAssembly.Module(readFileSync(new URL(${JSON.stringify(dir + 'privacy_tokens_bg.wasm')}))) });
    const codes = [];
    const code = (f) => { try { f(); codes.push('none'); } catch (e) { codes.push(e instanceof m.PrivacyTokensError ? e.code : String(e)); } };
    // A key from a seed needs no randomness; a token request does.
    const issuer = m.PrivacyPassIssuer.derive(1, new Uint8Array(32), new Uint8Array(0));
    const challenge = m.Challenge.create({ tokenType: 1, issuerName: 'i.example', tokenKey: issuer.tokenKey });
    code(() => m.createTokenRequest(challenge));
    code(() => m.PrivacyPassIssuer.generate(1));
    issuer.free();
    code(() => issuer.tokenKey);
    parentPort.postMessage({ gone, codes });
  `);
  assert.equal(result.gone, true);
  assert.deepEqual(result.codes, ['RANDOMNESS_UNAVAILABLE', 'RANDOMNESS_UNAVAILABLE', 'STATE_CONSUMED']);
});
