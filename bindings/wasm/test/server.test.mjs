// The package against the issuer server of server/ started as a real process (test/support/
// server.mjs): the 401 challenge of /private parsed as fetch hands its WWW-Authenticate header
// over, the token request POSTed to /token-request, the response finalized, the token redeemed at
// /private (200) and replayed (401): type 0x0001 single, an amortized batch of 10, type 0x0005
// (ristretto255) single, and ARC 0xE5AC
// presentations up to the rate limit with the credential persisted and restored mid-way.
// Blind RSA (0x0002, 0xDA7A) against the server, with privacypass-ts's clients too, is in
// server_blind_rsa.test.mjs (a server of its own: those types are off by default).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseChallenges, createTokenRequest, createCredentialRequest, Credential, Token,
  PrivacyTokensError,
} from 'privacy-tokens';
import { startServer } from './support/server.mjs';

const TYPE_VOPRF = 0x0001;
const TYPE_RISTRETTO = 0x0005;
const TYPE_ARC = 0xe5ac;

let server;
// ARC's rate limit set in the config (default 10): the challenges must carry it.
const RATE_LIMIT = 6;
before(async () => {
  server = await startServer({ tables: `[arc]\nrate_limit = ${RATE_LIMIT}` });
}, { timeout: 20 * 60 * 1000 }); // may build the server first
after(async () => {
  if (!server) return;
  const exit = await server.stop();
  assert.equal(exit.code, 0, `server exit ${JSON.stringify(exit)}`);
});

/** GET /private without a token: a 401 whose challenges, as fetch joins them, parse. */
async function challenges() {
  const res = await fetch(`${server.url}/private`);
  await res.arrayBuffer();
  assert.equal(res.status, 401);
  const header = res.headers.get('www-authenticate');
  assert.ok(header, 'a WWW-Authenticate header');
  const list = parseChallenges(header);
  return { header, list };
}

async function challengeOf(type) {
  const { list } = await challenges();
  const c = list.find((x) => x.tokenType === type);
  assert.ok(c, `a challenge of type 0x${type.toString(16)}`);
  return c;
}

async function post(body, contentType) {
  const res = await fetch(`${server.url}/token-request`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), bytes };
}

async function redeem(authorization) {
  const res = await fetch(`${server.url}/private`, { headers: { authorization } });
  return { status: res.status, text: await res.text() };
}

test('server: GET /private answers 401 with PrivateToken challenges for 0x0001, 0x0005 and 0xE5AC, parsed as fetch joins them', async () => {
  const { header, list } = await challenges();
  // fetch joins the three WWW-Authenticate lines with ", ": every challenge comes back.
  assert.equal(header.match(/PrivateToken /g).length, 3);
  assert.deepEqual(list.map((c) => c.tokenType).sort((a, b) => a - b), [TYPE_VOPRF, TYPE_RISTRETTO, TYPE_ARC]);
  for (const c of list) {
    assert.equal(c.supported, true);
    assert.equal(c.issuerName, server.host);
    assert.equal(c.originInfo, server.host);
    assert.ok(c.tokenKey instanceof Uint8Array && c.tokenKey.length > 0);
    assert.ok(c.maxAge > 0);
    assert.equal(c.redemptionContext.length, 32);
  }
  assert.equal(list.find((c) => c.tokenType === TYPE_VOPRF).tokenKey.length, 49); // compressed P-384
  assert.equal(list.find((c) => c.tokenType === TYPE_RISTRETTO).tokenKey.length, 32); // ristretto255
  assert.equal(list.find((c) => c.tokenType === TYPE_ARC).rateLimit, RATE_LIMIT);
  assert.equal(list.find((c) => c.tokenType === TYPE_VOPRF).rateLimit, undefined);
});

test('server: type 0x0001 single token: request, finalize, redeem 200, replay 401', async () => {
  const c = await challengeOf(TYPE_VOPRF);
  const req = createTokenRequest(c);
  assert.equal(req.contentType, 'application/private-token-request');
  assert.equal(req.body.length, 2 + 1 + 49);
  const res = await post(req.body, req.contentType);
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/private-token-response');
  const tokens = req.state.finalize(res.bytes);
  assert.equal(tokens.length, 1);
  assert.equal(req.state.consumed, true);
  const [token] = tokens;
  assert.equal(token.tokenType, TYPE_VOPRF);
  assert.deepEqual(token.challengeDigest, c.digest);
  const auth = token.authorizationHeader();
  assert.match(auth, /^PrivateToken token=/);

  const first = await redeem(auth);
  assert.equal(first.status, 200, first.text);
  const replay = await redeem(auth);
  assert.equal(replay.status, 401);
  assert.match(replay.text, /already spent/);
  // The same token parsed back from its bytes is the same spend.
  const again = await redeem(Token.fromBytes(token.toBytes()).authorizationHeader());
  assert.equal(again.status, 401);
});

test('server: type 0x0001 amortized batch of 10: each of the 10 tokens redeems once (200), then 401', async () => {
  const c = await challengeOf(TYPE_VOPRF);
  const req = createTokenRequest(c, { count: 10 });
  assert.equal(req.contentType, 'application/private-token-amortized-batch-request');
  assert.equal(req.state.count, 10);
  const res = await post(req.body, req.contentType);
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/private-token-amortized-batch-response');
  const tokens = req.state.finalize(res.bytes);
  assert.equal(tokens.length, 10);
  const headers = tokens.map((t) => t.authorizationHeader());
  assert.equal(new Set(headers).size, 10, '10 distinct tokens');
  for (const h of headers) {
    const r = await redeem(h);
    assert.equal(r.status, 200, r.text);
  }
  for (const h of headers) {
    const r = await redeem(h);
    assert.equal(r.status, 401);
    assert.match(r.text, /already spent/);
  }
});

test('server: type 0x0005 (ristretto255): a single token and an amortized batch of 3, each redeems once (200), then 401', async () => {
  const c = await challengeOf(TYPE_RISTRETTO);
  const single = createTokenRequest(c);
  assert.equal(single.body.length, 2 + 1 + 32);
  const batch = createTokenRequest(c, { count: 3 });
  const tokens = [];
  for (const req of [single, batch]) {
    const res = await post(req.body, req.contentType);
    assert.equal(res.status, 200);
    tokens.push(...req.state.finalize(res.bytes));
  }
  assert.equal(tokens.length, 4);
  for (const t of tokens) assert.equal(t.tokenType, TYPE_RISTRETTO);
  const headers = tokens.map((t) => t.authorizationHeader());
  for (const h of headers) assert.equal((await redeem(h)).status, 200);
  for (const h of headers) assert.equal((await redeem(h)).status, 401);
});

test('server: type 0x0001 response finalized twice throws STATE_CONSUMED; a tampered token gets 401 and spends nothing', async () => {
  const c = await challengeOf(TYPE_VOPRF);
  const req = createTokenRequest(c);
  const res = await post(req.body, req.contentType);
  assert.equal(res.status, 200);
  const [token] = req.state.finalize(res.bytes);
  assert.throws(() => req.state.finalize(res.bytes),
    (e) => e instanceof PrivacyTokensError && e.code === 'STATE_CONSUMED');
  // A tampered authenticator: 401 (invalid token), and the real token still redeems after it.
  const bytes = token.toBytes();
  bytes[bytes.length - 1] ^= 1;
  const bad = await redeem(Token.fromBytes(bytes).authorizationHeader());
  assert.equal(bad.status, 401);
  const good = await redeem(token.authorizationHeader());
  assert.equal(good.status, 200, good.text);
});

test('server: ARC 0xE5AC credential, presentations up to the rate limit (each 200 once, replay 401), toBytes/fromBytes mid-way, then LIMIT_EXCEEDED', async () => {
  const c = await challengeOf(TYPE_ARC);
  const limit = c.rateLimit;
  assert.equal(limit, RATE_LIMIT);
  const req = createCredentialRequest(c);
  assert.equal(req.contentType, 'application/private-credential-request');
  const res = await post(req.body, req.contentType);
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/private-credential-response');
  let credential = req.state.finalize(res.bytes);
  assert.equal(credential.remaining(c), limit);

  const half = limit / 2;
  const seen = new Set();
  const presentAndRedeem = async (i) => {
    const token = credential.present(c);
    assert.equal(token.tokenType, TYPE_ARC);
    const auth = token.authorizationHeader();
    assert.ok(!seen.has(auth));
    seen.add(auth);
    const r = await redeem(auth);
    assert.equal(r.status, 200, `presentation ${i}: ${r.text}`);
    const replay = await redeem(auth);
    assert.equal(replay.status, 401, `presentation ${i} replayed`);
    assert.match(replay.text, /already spent/);
    assert.equal(credential.remaining(c), limit - i - 1);
  };
  for (let i = 0; i < half; i++) await presentAndRedeem(i);

  // Persist (as a browser would between sessions) and restore: the counter continues.
  const saved = credential.toBytes();
  assert.ok(saved instanceof Uint8Array && saved.length > 0);
  credential.free();
  credential = Credential.fromBytes(saved);
  assert.equal(credential.remaining(c), limit - half);
  for (let i = half; i < limit; i++) await presentAndRedeem(i);

  assert.equal(credential.remaining(c), 0);
  assert.throws(() => credential.present(c),
    (e) => e instanceof PrivacyTokensError && e.code === 'LIMIT_EXCEEDED');
  // The bytes saved mid-way still hold the old counter: restoring them would reuse presentation
  // nonces the server has seen, and those presentations are refused as spent.
  const stale = Credential.fromBytes(saved);
  assert.equal(stale.remaining(c), limit - half);
  const reused = await redeem(stale.present(c).authorizationHeader());
  assert.equal(reused.status, 401);
  assert.match(reused.text, /already spent/);
});
