// A real browser: Debian's Chromium, headless, driven by puppeteer-core (no browser download;
// executablePath /usr/bin/chromium or $CHROMIUM_PATH). The test serves, on loopback, a page and
// the package's browser files (pkg/full/*), and passes /private, /token-request and /.well-known/*
// through to the issuer server process, so the page's fetch is same-origin. The page imports the
// browser entry (index.js, `await init()`), gets a type 0x0001 token and an ARC credential from
// the server, redeems them (the credential persisted in localStorage and restored between
// presentations), and writes what it saw into the DOM; the test reads it with puppeteer.
//
// A missing Chromium fails this test (it does not skip): CI installs the `chromium` package.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { startServer } from './support/server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = resolve(here, '../pkg/full');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>privacy-tokens in Chromium</title>
<pre id="result">running</pre>
<script type="module">
import init, {
  parseChallenges, createTokenRequest, createCredentialRequest, Credential,
  base64urlEncode, base64urlDecode, PrivacyTokensError,
} from '/pkg/index.js';

const out = { steps: [] };
const step = (s) => out.steps.push(s);
try {
  await init();
  step('init');
  out.userAgent = navigator.userAgent;

  const challengeRes = await fetch('/private');
  await challengeRes.arrayBuffer();
  out.challengeStatus = challengeRes.status;
  const header = challengeRes.headers.get('www-authenticate');
  const challenges = parseChallenges(header);
  out.challengeTypes = challenges.map((c) => c.tokenType);
  step('challenges');

  // Type 0x0001: request, finalize, redeem, replay.
  const c1 = challenges.find((c) => c.tokenType === 1);
  const req = createTokenRequest(c1);
  const issued = await fetch('/token-request', {
    method: 'POST', headers: { 'content-type': req.contentType }, body: req.body,
  });
  out.issueStatus = issued.status;
  out.issueType = issued.headers.get('content-type');
  const [token] = req.state.finalize(new Uint8Array(await issued.arrayBuffer()));
  step('finalized');
  const authorization = token.authorizationHeader();
  out.authorizationPrefix = authorization.slice(0, 19);
  const redeemed = await fetch('/private', { headers: { authorization } });
  out.redeemStatus = redeemed.status;
  out.redeemBody = await redeemed.text();
  const replayed = await fetch('/private', { headers: { authorization } });
  out.replayStatus = replayed.status;
  out.replayBody = await replayed.text();
  step('redeemed');

  // ARC: a credential, kept in localStorage between presentations.
  const ca = challenges.find((c) => c.tokenType === 0xE5AC);
  const creq = createCredentialRequest(ca);
  const cres = await fetch('/token-request', {
    method: 'POST', headers: { 'content-type': creq.contentType }, body: creq.body,
  });
  out.credentialStatus = cres.status;
  let credential = creq.state.finalize(new Uint8Array(await cres.arrayBuffer()));
  out.arcStatuses = [];
  for (let i = 0; i < 3; i++) {
    const auth = credential.present(ca).authorizationHeader();
    out.arcStatuses.push((await fetch('/private', { headers: { authorization: auth } })).status);
    out.arcStatuses.push((await fetch('/private', { headers: { authorization: auth } })).status);
    localStorage.setItem('arc-credential', base64urlEncode(credential.toBytes()));
    credential.free();
    credential = Credential.fromBytes(base64urlDecode(localStorage.getItem('arc-credential')));
  }
  out.arcRateLimit = ca.rateLimit;
  out.arcRemaining = credential.remaining(ca);
  step('arc');

  try { req.state.finalize(new Uint8Array(10)); } catch (e) {
    out.errorIsPrivacyTokensError = e instanceof PrivacyTokensError;
    out.errorCode = e.code;
  }
  out.ok = true;
} catch (e) {
  out.ok = false;
  out.error = String((e && e.stack) || e) + (e && e.code ? ' code=' + e.code : '');
}
document.getElementById('result').textContent = JSON.stringify(out);
window.__result = out;
</script>
`;

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.ts': 'text/plain', '.json': 'application/json' };
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

let issuer;
let web;
let webUrl;
const proxied = [];

/** Passes a request through to the issuer server, keeping repeated headers (WWW-Authenticate). */
function proxy(req, res) {
  const target = new URL(req.url, issuer.url);
  const headers = { ...req.headers, host: issuer.host };
  delete headers.connection;
  const up = http.request(target, { method: req.method, headers }, (upRes) => {
    proxied.push(`${req.method} ${req.url} ${upRes.statusCode}`);
    const out = {};
    for (let i = 0; i < upRes.rawHeaders.length; i += 2) {
      const k = upRes.rawHeaders[i].toLowerCase();
      if (HOP.has(k)) continue;
      (out[k] ??= []).push(upRes.rawHeaders[i + 1]);
    }
    res.writeHead(upRes.statusCode, out);
    upRes.pipe(res);
  });
  up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
  req.pipe(up);
}

before(async () => {
  issuer = await startServer();
  web = http.createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    } else if (path.startsWith('/pkg/')) {
      const file = normalize(join(pkgDir, path.slice(5)));
      if (!file.startsWith(pkgDir + '/') || !existsSync(file)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(await readFile(file));
    } else if (path === '/private' || path === '/token-request' || path.startsWith('/.well-known/')) {
      proxy(req, res);
    } else {
      res.writeHead(404); res.end();
    }
  });
  await new Promise((r) => web.listen(0, '127.0.0.1', r));
  webUrl = `http://127.0.0.1:${web.address().port}/`;
}, { timeout: 20 * 60 * 1000 });

after(async () => {
  if (web) await new Promise((r) => { web.closeAllConnections?.(); web.close(r); });
  if (issuer) await issuer.stop();
});

test('Chromium (headless, puppeteer-core): a page imports the package\'s browser entry, gets a type 0x0001 token and an ARC credential from the server, redeems them (200, replay 401)', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(chromium), `no Chromium at ${chromium}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  assert.ok(existsSync(join(pkgDir, 'index.js')), `no ${pkgDir}/index.js: run bash build.sh`);
  const profile = await mkdtemp(join(tmpdir(), 'pt-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const log = [];
  try {
    const page = await browser.newPage();
    page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => log.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
    await page.goto(webUrl, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__result !== undefined, { timeout: 60_000 })
      .catch((e) => { throw new Error(`${e.message}\n${log.join('\n')}`); });
    const text = await page.$eval('#result', (el) => el.textContent);
    const out = JSON.parse(text);
    const info = `${text}\n${log.join('\n')}\nproxied:\n${proxied.join('\n')}`;

    assert.equal(out.ok, true, info);
    assert.match(out.userAgent, /Chrome\//);
    assert.equal(out.challengeStatus, 401, info);
    assert.deepEqual(out.challengeTypes.sort((a, b) => a - b), [0x0001, 0x0005, 0xe5ac], info);
    assert.equal(out.issueStatus, 200, info);
    assert.equal(out.issueType, 'application/private-token-response');
    assert.equal(out.authorizationPrefix, 'PrivateToken token=');
    assert.equal(out.redeemStatus, 200, info);
    assert.equal(out.replayStatus, 401, info);
    assert.match(out.replayBody, /already spent/);
    assert.equal(out.credentialStatus, 200, info);
    assert.deepEqual(out.arcStatuses, [200, 401, 200, 401, 200, 401], info);
    assert.equal(out.arcRateLimit, 10, info); // the server's default
    assert.equal(out.arcRemaining, out.arcRateLimit - 3);
    assert.equal(out.errorIsPrivacyTokensError, true);
    assert.equal(out.errorCode, 'STATE_CONSUMED');
    // The page really went through the issuer server.
    assert.ok(proxied.includes('POST /token-request 200'), info);
    assert.ok(proxied.filter((l) => l === 'GET /private 200').length >= 4, info);
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
});
