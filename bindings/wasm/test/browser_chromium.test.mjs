// A real browser: Debian's Chromium, headless, driven by puppeteer-core (no browser download;
// executablePath /usr/bin/chromium or $CHROMIUM_PATH). The test serves, on loopback, a page and
// the package's browser files (pkg/full/*), and passes /private, /token-request and /.well-known/*
// through to the issuer server process, so the page's fetch is same-origin. The page imports the
// browser entry (index.js, `await init()`), gets a type 0x0001 token and an ARC credential from
// the server, redeems them (the credential persisted in localStorage and restored between
// presentations), and writes what it saw into the DOM; the test reads it with puppeteer.
//
// Blind RSA (a second page, /rsa.html): the test's web server is also a type 0x0002 and 0xDA7A
// issuer and origin in Node (our BlindRsaIssuer: a key privacypass-ts generated with WebCrypto for
// 0x0002, privacypass-ts's 0xDA7A vector key for 0xDA7A; /rsa/private answers 401 with a challenge
// and its token-key, /rsa/token-request issues, /rsa/private with a token verifies it with our
// BlindRsaTokenKey and privacypass-ts's Origin, one use per nonce). The page answers each
// challenge with our client (request, finalize in the browser's WebAssembly), checks the token with
// the package's BlindRsaTokenKey in the page, and redeems it (200, replay 401). For 0xDA7A the
// page also runs privacypass-ts 0.8.1 (bundled for the browser by esbuild, served at /pp.js) as the
// control: its type 0x0002 client works in Chromium, its 0xDA7A finalize does not (it imports the
// derived public key, whose exponent e' has ~1022 bits, into WebCrypto, and Chromium refuses it),
// while ours finalizes there.
//
// ACT (a third page, /act.html): the issuer server runs with `[act]` enabled (support/server.mjs
// startActServer); the page reads /.well-known/act-configuration, obtains a credential from
// POST /act/issue, keeps it in localStorage, spends it at POST /act/spend (200), spends it a second
// time (409, the stored refund), finalizes the first spend's refund and spends the refund's
// credential (200). A server without ACT skips that test with the reason (the other two run).
//
// A missing Chromium fails this test (it does not skip): CI installs the `chromium` package.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { hkdfSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve, dirname, extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import * as esbuild from 'esbuild';
import * as pp from '@cloudflare/privacypass-ts';
import {
  BlindRsaIssuer, BlindRsaTokenKey, Challenge, encodeExtensions, parseAuthorization, base64urlEncode,
} from 'privacy-tokens';
import { ACT_CONFIG, startActServer } from './support/server.mjs';
import { generateWebCryptoKey, webCryptoKeyPair, da7aVectorKey } from './support/rsa_keys.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = resolve(here, '../pkg/full');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The end of a test page's script: `out` written into the DOM and window.__result. */
const PAGE_END = `  out.ok = true;
} catch (e) {
  out.ok = false;
  out.error = String((e && e.stack) || e) + (e && e.code ? ' code=' + e.code : '');
}
document.getElementById('result').textContent = JSON.stringify(out);
window.__result = out;
</script>
`;

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
${PAGE_END}`;

const RSA_PAGE = `<!doctype html>
<meta charset="utf-8">
<title>privacy-tokens blind RSA in Chromium</title>
<pre id="result">running</pre>
<script type="module">
import init, {
  parseChallenges, createTokenRequest, BlindRsaTokenKey, base64urlDecode,
} from '/pkg/index.js';

/** WebCrypto's RSA-PSS import of a public JWK in this browser: 'ok', or the error's name. */
async function tryImport(jwk) {
  try {
    await crypto.subtle.importKey('jwk', jwk, { name: 'RSA-PSS', hash: 'SHA-384' }, false, ['verify']);
    return 'ok';
  } catch (e) {
    return String(e && e.name) + ': ' + String(e && e.message);
  }
}

const out = { steps: [] };
const step = (s) => out.steps.push(s);
const post = (body, contentType) => fetch('/rsa/token-request', {
  method: 'POST', headers: { 'content-type': contentType }, body,
});
try {
  await init();
  step('init');
  out.userAgent = navigator.userAgent;

  // Our client: a challenge, a request, the issuer's answer, finalize, verify in the page, redeem.
  for (const kind of ['0002', 'da7a']) {
    const r = out[kind] = {};
    const res = await fetch('/rsa/private?type=' + kind);
    await res.arrayBuffer();
    r.challengeStatus = res.status;
    const [c] = parseChallenges(res.headers.get('www-authenticate') ?? '');
    r.tokenType = c.tokenType;
    r.tokenKeyLength = c.tokenKey.length;
    const extHeader = res.headers.get('x-token-extensions');
    const extensions = extHeader === null ? undefined : base64urlDecode(extHeader);
    const req = createTokenRequest(c, extensions === undefined ? undefined : { extensions });
    const issued = await post(req.body, req.contentType);
    r.issueStatus = issued.status;
    const [token] = req.state.finalize(new Uint8Array(await issued.arrayBuffer()));
    step('finalized ' + kind);
    const key = BlindRsaTokenKey.fromSpki(c.tokenKey);
    const bytes = token.toBytes();
    r.verifiedInPage = key.verifyToken(bytes, c, extensions);
    bytes[bytes.length - 1] ^= 1;
    r.flippedVerifiedInPage = key.verifyToken(bytes, c, extensions);
    const authorization = token.authorizationHeader();
    const redeemed = await fetch('/rsa/private?type=' + kind, { headers: { authorization } });
    r.redeemStatus = redeemed.status;
    r.redeemBody = await redeemed.text();
    const replayed = await fetch('/rsa/private?type=' + kind, { headers: { authorization } });
    r.replayStatus = replayed.status;
    r.replayBody = await replayed.text();
    step('redeemed ' + kind);
  }

  // WebCrypto here: the 0xDA7A key's modulus with e = 65537, and with the derived exponent e' of
  // the page's extensions (computed in Node, where WebCrypto verified a token with it).
  const jwk = await (await fetch('/rsa/derived-jwk')).json();
  out.webCrypto = {
    eBits: jwk.eBits,
    importOriginal: await tryImport({ kty: 'RSA', n: jwk.n, e: jwk.e }),
    importDerived: await tryImport({ kty: 'RSA', n: jwk.n, e: jwk.ePrime }),
  };

  // The control: privacypass-ts in the same browser, on the same challenges and issuer.
  const pp = await import('/pp.js');
  const { publicVerif: pv } = pp;
  for (const kind of ['0002', 'da7a']) {
    const r = out['pp' + kind] = {};
    const res = await fetch('/rsa/private?type=' + kind);
    await res.arrayBuffer();
    const [www] = pp.WWWAuthenticateHeader.parse(res.headers.get('www-authenticate'));
    const extHeader = res.headers.get('x-token-extensions');
    const client = extHeader === null
      ? new pv.Client(pv.BlindRSAMode.PSS)
      : new pv.ClientWithMetadata(pv.BlindRSAMode.PSS, pp.Extensions.deserialize(base64urlDecode(extHeader)));
    const req = await client.createTokenRequest(www.challenge, www.tokenKey);
    const issued = await post(req.serialize(), 'application/private-token-request');
    r.issueStatus = issued.status;
    const body = new Uint8Array(await issued.arrayBuffer());
    try {
      const token = await client.finalize(client.deserializeTokenResponse(body));
      r.finalized = true;
      const authorization = new pp.AuthorizationHeader(token).toString();
      r.redeemStatus = (await fetch('/rsa/private?type=' + kind, { headers: { authorization } })).status;
    } catch (e) {
      r.finalized = false;
      r.error = String(e && e.name) + ': ' + String(e && e.message);
    }
  }
  step('privacypass-ts');
${PAGE_END}`;

const ACT_PAGE = `<!doctype html>
<meta charset="utf-8">
<title>privacy-tokens ACT in Chromium</title>
<pre id="result">running</pre>
<script type="module">
import init, {
  ActContext, ActCredential, ActSpendState, createActIssueRequest, actKeyId, base64urlDecode,
  base64urlEncode, PrivacyTokensError,
} from '/pkg/index.js';

const out = { steps: [] };
const step = (s) => out.steps.push(s);
const cat = (a, b) => { const c = new Uint8Array(a.length + b.length); c.set(a); c.set(b, a.length); return c; };
async function post(path, contentType, body) {
  const r = await fetch(path, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: r.status, type: r.headers.get('content-type'), spend: r.headers.get('act-spend'), bytes: new Uint8Array(await r.arrayBuffer()) };
}
try {
  await init();
  out.userAgent = navigator.userAgent;
  const config = await (await fetch('/.well-known/act-configuration')).json();
  out.ciphersuite = config.ciphersuite;
  const key = config.keys[0];
  const keyId = base64urlDecode(key.key_id);
  const pk = base64urlDecode(key.public_key);
  out.keyIdMatches = base64urlEncode(actKeyId(pk)) === base64urlEncode(keyId);
  const ctx = new ActContext(base64urlDecode(key.credential_context), config.width);
  const spendContext = base64urlDecode(config.spend_context);
  step('configuration');

  const req = createActIssueRequest();
  const issued = await post('/act/issue', req.contentType, cat(keyId, req.message));
  out.issueStatus = issued.status;
  out.issueType = issued.type;
  let credential = req.state.finalize(ctx, pk, issued.bytes);
  out.issuedBalance = String(credential.balance);
  localStorage.setItem('act-credential', base64urlEncode(credential.toBytes()));
  credential.free();
  step('issued');

  // Spend the stored credential (its state stored before the spend is sent).
  credential = ActCredential.fromBytes(base64urlDecode(localStorage.getItem('act-credential')));
  const first = credential.proveSpend(ctx, config.cost, 0, spendContext);
  localStorage.setItem('act-spend-state', base64urlEncode(first.state.toBytes()));
  const r1 = await post('/act/spend', first.contentType, cat(keyId, first.message));
  out.firstSpend = [r1.status, r1.type, r1.spend];
  step('spent');

  // The same credential (restored from storage) spent a second time: refused.
  const copy = ActCredential.fromBytes(base64urlDecode(localStorage.getItem('act-credential')));
  const second = copy.proveSpend(ctx, config.cost, 0, spendContext);
  const r2 = await post('/act/spend', second.contentType, cat(keyId, second.message));
  out.secondSpend = [r2.status, r2.spend];
  out.replayedRefundIsStored = base64urlEncode(r2.bytes) === base64urlEncode(r1.bytes);
  try { second.state.finalize(ctx, pk, r2.bytes); out.replayedRefundFinalized = true; } catch (e) {
    out.replayedRefundFinalized = false;
    out.replayedRefundError = e instanceof PrivacyTokensError ? e.code : String(e);
  }
  step('replayed');

  // The first spend's refund, finalized from the stored state; the new credential spent.
  const state = ActSpendState.fromBytes(base64urlDecode(localStorage.getItem('act-spend-state')));
  const next = state.finalize(ctx, pk, r1.bytes);
  out.refundBalance = String(next.balance);
  localStorage.setItem('act-credential', base64urlEncode(next.toBytes()));
  localStorage.removeItem('act-spend-state');
  const third = next.proveSpend(ctx, config.cost, 0, spendContext);
  const r3 = await post('/act/spend', third.contentType, cat(keyId, third.message));
  out.refundSpend = [r3.status, r3.spend];
  out.finalBalance = String(third.state.finalize(ctx, pk, r3.bytes).balance);
  try { state.finalize(ctx, pk, r1.bytes); } catch (e) { out.consumedCode = e.code; }
  step('refund spent');
${PAGE_END}`;

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.ts': 'text/plain', '.json': 'application/json' };
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

let issuer;
let actSkip;
let web;
let webUrl;
let ppBundle;
let derivedJwk;
const proxied = [];

// The blind RSA issuer and origin of /rsa/* (set up in `before`).
const rsa = {};
const rsaLog = [];
const EXT = encodeExtensions([{ type: 1, data: Uint8Array.of(42) }, { type: 3, data: new TextEncoder().encode('tier-1') }]);

/** /rsa/private: 401 with a challenge (and for 0xDA7A its extensions), or a token's redemption. */
async function rsaPrivate(req, res, kind) {
  const r = rsa[kind];
  if (!r) { res.writeHead(404); res.end(); return; }
  const auth = req.headers.authorization;
  if (auth === undefined) {
    const headers = { 'www-authenticate': r.challenge.toHeader() };
    if (r.ext) headers['x-token-extensions'] = base64urlEncode(r.ext);
    res.writeHead(401, headers);
    res.end();
    rsaLog.push(`${kind} challenge`);
    return;
  }
  let verdict;
  try {
    const token = parseAuthorization(auth);
    const ours = r.key.verifyToken(token, r.challenge, r.ext);
    // privacypass-ts's origin check (Node's WebCrypto takes the large exponent of 0xDA7A).
    const entry = kind === '0002' ? pp.TOKEN_TYPES.BLIND_RSA : pp.TOKEN_TYPES.PARTIALLY_BLIND_RSA;
    const theirs = await r.ppOrigin.verify(pp.Token.deserialize(entry, token), r.publicKey);
    const nonce = Buffer.from(token.subarray(2, 34)).toString('hex');
    if (!ours || !theirs) verdict = [401, `invalid token (ours ${ours}, privacypass-ts ${theirs})`];
    else if (r.spent.has(nonce)) verdict = [401, 'token already spent'];
    else { r.spent.add(nonce); verdict = [200, `ok ${kind}`]; }
  } catch (e) {
    verdict = [400, `bad token: ${e.code ?? e.message}`];
  }
  rsaLog.push(`${kind} redeem ${verdict[0]} ${verdict[1]}`);
  res.writeHead(verdict[0], { 'content-type': 'text/plain' });
  res.end(verdict[1]);
}

/** /rsa/token-request: our BlindRsaIssuer of the request's token type. */
async function rsaIssue(req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = new Uint8Array(Buffer.concat(chunks));
  const type = body.length >= 2 ? (body[0] << 8) | body[1] : -1;
  try {
    const out = type === 0x0002
      ? rsa['0002'].issuer.issue(body)
      : rsa.da7a.issuer.issue(body, (e) => Buffer.compare(Buffer.from(e), Buffer.from(EXT)) === 0);
    rsaLog.push(`issue 0x${type.toString(16)} 200`);
    res.writeHead(200, { 'content-type': out.contentType });
    res.end(out.body);
  } catch (e) {
    rsaLog.push(`issue 0x${type.toString(16)} 400 ${e.code ?? e.message}`);
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end(String(e.code ?? e.message));
  }
}

/**
 * The partially blind RSA public exponent e' of `info` for modulus `n` (draft-irtf-cfrg-partially-
 * blind-rsa DerivePublicKey: HKDF-SHA-384 of "key" || info || 0x00, salt n, info "PBRSA").
 */
function derivedExponent(n, info) {
  const okm = new Uint8Array(hkdfSync('sha384', Buffer.concat([Buffer.from('key'), info, Buffer.of(0)]), n, Buffer.from('PBRSA'), n.length / 2 + 16));
  okm[0] &= 0x3f;
  okm[n.length / 2 - 1] |= 1;
  return okm.slice(0, n.length / 2);
}

async function setupRsa() {
  const k2 = await generateWebCryptoKey(pp.publicVerif.BlindRSAMode.PSS);
  const { pem, pkcs8 } = da7aVectorKey();
  const kd = await webCryptoKeyPair(pkcs8);
  const ppExt = pp.Extensions.deserialize(EXT);
  for (const [kind, tokenType, issuer, keys, ppOrigin, ext] of [
    ['0002', 0x0002, BlindRsaIssuer.fromPkcs8Der(0x0002, k2.pkcs8), k2,
      new pp.publicVerif.Origin(pp.publicVerif.BlindRSAMode.PSS, ['origin.example']), undefined],
    ['da7a', 0xDA7A, BlindRsaIssuer.fromPem(0xDA7A, pem), kd,
      new pp.publicVerif.OriginWithMetadata(pp.publicVerif.BlindRSAMode.PSS, ppExt, ['origin.example']), EXT],
  ]) {
    const challenge = Challenge.create({
      tokenType, issuerName: 'issuer.example', originInfo: 'origin.example',
      redemptionContext: crypto.getRandomValues(new Uint8Array(32)), tokenKey: issuer.tokenKey,
    });
    rsa[kind] = {
      issuer, challenge, ext, ppOrigin, publicKey: keys.publicKey,
      key: BlindRsaTokenKey.fromSpki(issuer.tokenKey), spent: new Set(),
    };
  }
  // e' of EXT: Node's WebCrypto takes it, and verifies a 0xDA7A token with it (RSASSA-PSS over
  // "msg" || len(info) || info || token_input), which checks the e' the page is given.
  const { n, e } = await crypto.subtle.exportKey('jwk', kd.publicKey);
  const nBytes = Buffer.from(n, 'base64url');
  const ePrime = derivedExponent(nBytes, EXT);
  const ePrimeKey = await crypto.subtle.importKey('jwk', { kty: 'RSA', n, e: Buffer.from(ePrime).toString('base64url') },
    { name: 'RSA-PSS', hash: 'SHA-384' }, false, ['verify']);
  const { createTokenRequest } = await import('privacy-tokens');
  const req = createTokenRequest(rsa.da7a.challenge, { extensions: EXT });
  const [token] = req.state.finalize(rsa.da7a.issuer.issue(req.body, () => true).body);
  const tokenBytes = token.toBytes();
  const msgPrime = Buffer.concat([Buffer.from('msg'), Buffer.from(Uint32Array.of(0).buffer), Buffer.from(EXT), tokenBytes.subarray(0, tokenBytes.length - 256)]);
  msgPrime.writeUInt32BE(EXT.length, 3);
  const pss = { name: 'RSA-PSS', saltLength: 48 };
  assert.equal(await crypto.subtle.verify(pss, ePrimeKey, tokenBytes.subarray(-256), msgPrime), true, 'Node WebCrypto verifies a 0xDA7A token with e\'');
  assert.equal(await crypto.subtle.verify(pss, kd.publicKey, tokenBytes.subarray(-256), msgPrime), false, 'and not with e = 65537');
  derivedJwk = { n, e, ePrime: Buffer.from(ePrime).toString('base64url'), eBits: ePrime.length * 8 - Math.clz32(ePrime[0]) + 24 };
  const bundled = await esbuild.build({
    stdin: { contents: "export * from '@cloudflare/privacypass-ts';", resolveDir: resolve(here, '..'), loader: 'js' },
    bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
  });
  ppBundle = bundled.outputFiles[0].contents;
}

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
  ({ server: issuer, skip: actSkip } = await startActServer());
  if (actSkip) console.log(`# browser_chromium.test.mjs: the ACT page is skipped: ${actSkip}`);
  await setupRsa();
  web = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const path = url.pathname;
    if (path === '/' || path === '/rsa.html' || path === '/act.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end({ '/': PAGE, '/rsa.html': RSA_PAGE, '/act.html': ACT_PAGE }[path]);
    } else if (path === '/rsa/derived-jwk') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(derivedJwk));
    } else if (path === '/pp.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(ppBundle);
    } else if (path === '/rsa/private') {
      await rsaPrivate(req, res, url.searchParams.get('type'));
    } else if (path === '/rsa/token-request' && req.method === 'POST') {
      await rsaIssue(req, res);
    } else if (path.startsWith('/pkg/')) {
      const file = normalize(join(pkgDir, path.slice(5)));
      if (!file.startsWith(pkgDir + '/') || !existsSync(file)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(await readFile(file));
    } else if (path === '/private' || path === '/token-request' || path.startsWith('/.well-known/')
      || path === '/act/issue' || path === '/act/spend') {
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

/** Loads `path` of the test's web server in headless Chromium; the page's `window.__result`. */
async function runPage(path) {
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
    await page.goto(new URL(path, webUrl).href, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__result !== undefined, { timeout: 60_000 })
      .catch((e) => { throw new Error(`${e.message}\n${log.join('\n')}`); });
    const text = await page.$eval('#result', (el) => el.textContent);
    return { out: JSON.parse(text), text, log };
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
  }
}

test('Chromium (headless, puppeteer-core): a page imports the package\'s browser entry, gets a type 0x0001 token and an ARC credential from the server, redeems them (200, replay 401)', { timeout: 120_000 }, async () => {
  const { out, text, log } = await runPage('/');
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
});

test('Chromium (headless): a page answers type 0x0002 and 0xDA7A challenges with our client (BlindRsaIssuer in Node), finalizes in WebAssembly, the tokens verify (in the page, and in Node by ours and privacypass-ts) and redeem once; privacypass-ts\'s own 0xDA7A finalize fails there (WebCrypto refuses e\')', { timeout: 120_000 }, async () => {
  const { out, text, log } = await runPage('/rsa.html');
  const info = `${text}\n${log.join('\n')}\nrsa:\n${rsaLog.join('\n')}`;

  assert.equal(out.ok, true, info);
  assert.match(out.userAgent, /Chrome\//);
  for (const [kind, type] of [['0002', 0x0002], ['da7a', 0xDA7A]]) {
    const r = out[kind];
    assert.equal(r.challengeStatus, 401, `${kind}: ${info}`);
    assert.equal(r.tokenType, type);
    assert.equal(r.tokenKeyLength, 342);
    assert.equal(r.issueStatus, 200, `${kind}: ${info}`);
    assert.equal(r.verifiedInPage, true, `${kind}: ${info}`);
    assert.equal(r.flippedVerifiedInPage, false, `${kind}: a flipped token verifies in the page`);
    assert.equal(r.redeemStatus, 200, `${kind}: ${info}`);
    assert.equal(r.redeemBody, `ok ${kind}`);
    assert.equal(r.replayStatus, 401, `${kind}: ${info}`);
    assert.equal(r.replayBody, 'token already spent');
  }
  // Chromium's WebCrypto takes the 0xDA7A key with e = 65537 and refuses it with e'.
  assert.ok(out.webCrypto.eBits > 1000, info);
  assert.equal(out.webCrypto.importOriginal, 'ok', info);
  assert.notEqual(out.webCrypto.importDerived, 'ok', `Chromium imported e': ${info}`);
  // The control, privacypass-ts in the same page: its 0x0002 client gets and redeems a token; its
  // 0xDA7A request is signed but its finalize throws (WebCrypto's RSA-PSS key import refuses e').
  assert.deepEqual(out.pp0002, { issueStatus: 200, finalized: true, redeemStatus: 200 }, info);
  assert.equal(out.ppda7a.issueStatus, 200, info);
  assert.equal(out.ppda7a.finalized, false, `privacypass-ts finalized 0xDA7A in Chromium: ${info}`);
  // (Chromium 156: both are an OperationError with no message.)
  assert.equal(out.ppda7a.error, out.webCrypto.importDerived, `privacypass-ts fails as the import of e' does: ${info}`);
  // Node's side saw it all: 4 issuances, our two tokens and privacypass-ts's 0x0002 redeemed once.
  assert.deepEqual(rsaLog.filter((l) => l.startsWith('issue')), ['issue 0x2 200', 'issue 0xda7a 200', 'issue 0x2 200', 'issue 0xda7a 200'], info);
  assert.deepEqual(rsaLog.filter((l) => l.includes('redeem 200')), ['0002 redeem 200 ok 0002', 'da7a redeem 200 ok da7a', '0002 redeem 200 ok 0002'], info);
});

test('Chromium (headless): a page obtains an ACT credential from the server (/act/issue), keeps it in localStorage, spends it (200), spends it a second time (409, the stored refund, which does not finalize), finalizes the first refund and spends its credential (200)', { timeout: 120_000 }, async (t) => {
  if (actSkip) {
    t.skip(actSkip);
    return;
  }
  const { out, text, log } = await runPage('/act.html');
  const info = `${text}\n${log.join('\n')}\nproxied:\n${proxied.join('\n')}`;
  assert.equal(out.ok, true, info);
  assert.match(out.userAgent, /Chrome\//);
  assert.equal(out.ciphersuite, 'ACTv1-P256-SHA256');
  assert.equal(out.keyIdMatches, true, info);
  assert.equal(out.issueStatus, 200, info);
  assert.equal(out.issueType, 'application/act-issue-response');
  assert.equal(out.issuedBalance, String(ACT_CONFIG.issue_credits));
  assert.deepEqual(out.firstSpend, [200, 'application/act-refund', 'fresh'], info);
  assert.deepEqual(out.secondSpend, [409, 'replayed'], info);
  assert.equal(out.replayedRefundIsStored, true, info);
  assert.equal(out.replayedRefundFinalized, false, info);
  const rest = ACT_CONFIG.issue_credits - ACT_CONFIG.cost;
  assert.ok(Number(out.refundBalance) >= rest && Number(out.refundBalance) <= ACT_CONFIG.issue_credits, info);
  assert.deepEqual(out.refundSpend, [200, 'fresh'], info);
  assert.ok(Number(out.finalBalance) <= Number(out.refundBalance), info);
  assert.equal(out.consumedCode, 'STATE_CONSUMED');
  // The page really went through the issuer server.
  assert.deepEqual(proxied.filter((l) => l.startsWith('POST /act/')),
    ['POST /act/issue 200', 'POST /act/spend 200', 'POST /act/spend 409', 'POST /act/spend 200'], info);
});
