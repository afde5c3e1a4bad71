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
    for (const f of [e.types, e.node.default, e.node.types, e.default]) {
      assert.ok(readFileSync(new URL(f, pkgDir)).length > 0, f);
    }
  }
  const require = createRequire(import.meta.url);
  assert.match(require.resolve('privacy-tokens/package.json'), /pkg\/package\.json$/);
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
      parentPort.postMessage({ before, ok: issuer.verifyToken(token.toBytes()), code, hasIssuer: 'PrivacyPassIssuer' in m });
    `);
    assert.equal(result.before, 'not initialized');
    assert.equal(result.ok, true);
    assert.deepEqual(result.code, [true, 'INVALID_ENCODING']);
    assert.equal(result.hasIssuer, flavour === 'full');
  });
}
