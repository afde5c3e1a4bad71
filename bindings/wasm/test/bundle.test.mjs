// The package through real bundlers (BND-5): an entry importing `privacy-tokens` bundled by
// esbuild (ESM and CommonJS output, platform node) and webpack 5 (target node, production,
// which honours `sideEffects`), written to a fresh temporary directory and run there with
// node. The bundle must work: the Node entry's initialization kept, the WebAssembly found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import webpack from 'webpack';

const here = fileURLToPath(new URL('..', import.meta.url));

const ENTRY = `
import { base64urlEncode, Challenge, createTokenRequest, PrivacyPassIssuer, PrivacyTokensError } from 'privacy-tokens';
import * as client from 'privacy-tokens/client';
const issuer = PrivacyPassIssuer.generate(1);
const challenge = Challenge.create({ tokenType: 1, issuerName: 'issuer.example', tokenKey: issuer.tokenKey });
const [c] = client.parseChallenges(challenge.toHeader());
const req = client.createTokenRequest(c);
const [token] = req.state.finalize(issuer.issue(req.body, req.contentType).body);
let code;
try { createTokenRequest(undefined); } catch (e) { code = e instanceof PrivacyTokensError && e.code; }
console.log(JSON.stringify({ b64: base64urlEncode(new Uint8Array([1])), valid: issuer.verifyToken(token.toBytes(), challenge), code }));
`;
const EXPECTED = { b64: 'AQ==', valid: true, code: 'INVALID_ARGUMENT' };

function run(file, cwd) {
  const out = execFileSync(process.execPath, [file], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out.trim().split('\n').pop());
}

function withTmp(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'privacy-tokens-bundle-'));
  return Promise.resolve(fn(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

for (const format of ['esm', 'cjs']) {
  test(`esbuild --bundle --platform=node --format=${format}: the bundle runs from another directory`, () =>
    withTmp(async (dir) => {
      const outfile = join(dir, format === 'esm' ? 'bundle.mjs' : 'bundle.cjs');
      await esbuild.build({
        stdin: { contents: ENTRY, resolveDir: here, sourcefile: 'entry.mjs', loader: 'js' },
        bundle: true, platform: 'node', format, outfile, logLevel: 'silent',
      });
      assert.deepEqual(run(outfile, dir), EXPECTED);
    }));
}

test('webpack 5, target node, mode production (sideEffects honoured): the bundle runs from another directory', () =>
  withTmp(async (dir) => {
    const entry = join(dir, 'entry.mjs');
    writeFileSync(entry, ENTRY);
    const stats = await new Promise((resolve, reject) => {
      webpack({
        mode: 'production', target: 'node', entry, context: dir,
        output: { path: join(dir, 'dist'), filename: 'bundle.js' },
        resolve: { modules: [join(here, 'node_modules')] },
        performance: { hints: false },
      }, (err, s) => (err ? reject(err) : resolve(s)));
    });
    assert.equal(stats.hasErrors(), false, stats.toString('errors-only'));
    assert.deepEqual(run(join(dir, 'dist', 'bundle.js'), dir), EXPECTED);
  }));

test('esbuild --bundle --platform=browser: the web entry keeps its guards and runs after initSync', () =>
  withTmp(async (dir) => {
    // A browser bundle (the `default` condition: index.js), run by node with the module handed in
    // as a worker runtime would: the classes' guards must survive tree shaking.
    const entry = `
      import { initSync, Challenge, PrivacyPassIssuer, createTokenRequest, PrivacyTokensError } from 'privacy-tokens';
      export function run(bytes) {
        initSync({ module: bytes });
        const issuer = PrivacyPassIssuer.generate(1);
        const challenge = Challenge.create({ tokenType: 1, issuerName: 'issuer.example', tokenKey: issuer.tokenKey });
        const req = createTokenRequest(challenge);
        const [token] = req.state.finalize(issuer.issue(req.body, req.contentType).body);
        const codes = [];
        const valid = issuer.verifyToken(token.toBytes(), challenge);
        for (const f of [() => createTokenRequest(undefined), () => { token.free(); token.toBytes(); }]) {
          try { f(); codes.push('none'); } catch (e) { codes.push(e instanceof PrivacyTokensError ? e.code : String(e)); }
        }
        return { valid, codes };
      }
    `;
    const outfile = join(dir, 'web.mjs');
    await esbuild.build({
      stdin: { contents: entry, resolveDir: here, sourcefile: 'entry.mjs', loader: 'js' },
      bundle: true, platform: 'browser', format: 'esm', outfile, logLevel: 'silent',
    });
    const wasm = join(here, 'pkg', 'full', 'privacy_tokens_bg.wasm');
    const runner = join(dir, 'run.mjs');
    writeFileSync(runner, `
      import { readFileSync } from 'node:fs';
      import { run } from './web.mjs';
      console.log(JSON.stringify(run(readFileSync(${JSON.stringify(wasm)}))));
    `);
    assert.deepEqual(run(runner, dir), { valid: true, codes: ['INVALID_ARGUMENT', 'STATE_CONSUMED'] });
  }));

test('control: the same esbuild bundle of a copy of the package declaring "sideEffects": false fails (the Node entry\'s initialization dropped)', () =>
  withTmp(async (dir) => {
    const copy = join(dir, 'node_modules', 'privacy-tokens');
    mkdirSync(join(dir, 'node_modules'));
    cpSync(join(here, 'pkg'), copy, { recursive: true });
    const pj = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
    pj.sideEffects = false;
    writeFileSync(join(copy, 'package.json'), JSON.stringify(pj));
    const outfile = join(dir, 'bundle.mjs');
    await esbuild.build({
      stdin: { contents: ENTRY, resolveDir: dir, sourcefile: 'entry.mjs', loader: 'js' },
      bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'silent',
    });
    assert.throws(() => run(outfile, dir), /Cannot read properties of undefined \(reading 'privacypassissuer_generate'\)/);
  }));
