// What the binding leaves in the module's linear memory (`memory.buffer`, readable by any script
// holding the instance's exports): the per-call generator's key and output after a randomized
// call (BND-1), a token after `free()` and the buffers of `toBytes()` and
// `authorizationHeader()` (BND-2). Run on the test flavour (pkg-testing/, built by build.sh),
// whose hooks fix the next generator's seed and can switch the binding's wipes off. Each scan
// has a control with the wipes off, which must find what the scan looks for: the scans can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chacha12 } from './support/chacha.mjs';

const t = await import('../pkg-testing/node.js');

/** Offsets in linear memory where `needle` occurs. */
function findAll(needle) {
  const mem = Buffer.from(t.__testingMemory().buffer);
  const n = Buffer.from(needle);
  const out = [];
  for (let i = mem.indexOf(n); i >= 0; i = mem.indexOf(n, i + 1)) out.push(i);
  return out;
}

/** Which 16-byte windows of `secret` (at offsets 0, 16, ...) occur in linear memory. */
function windowsFound(secret) {
  const found = [];
  for (let o = 0; o + 16 <= secret.length; o += 16) {
    if (findAll(secret.subarray(o, o + 16)).length > 0) found.push(o);
  }
  return found;
}

function setup() {
  const issuer = t.PrivacyPassIssuer.generate(1);
  const challenge = t.Challenge.create({
    tokenType: 1, issuerName: 'issuer.example', originInfo: 'origin.example', tokenKey: issuer.tokenKey,
  });
  return { issuer, challenge };
}

/** Issues one type 1 token with the generator seeded by a fresh random seed: what is left. */
function issueWithKnownSeed() {
  const { issuer, challenge } = setup();
  const req = t.createTokenRequest(challenge);
  const seed = crypto.getRandomValues(new Uint8Array(32));
  t.__testingSetSeed(seed);
  const resp = issuer.issue(req.body, req.contentType);
  // The P-384 proof nonce is the first 48 bytes (big-endian); the generator buffers 256.
  const stream = chacha12(seed, 256);
  const left = { seed: findAll(seed).length, stream: windowsFound(stream) };
  const [token] = req.state.finalize(resp.body);
  assert.equal(issuer.verifyToken(token.toBytes(), challenge.toBytes()), true, 'the seeded issuance is valid');
  return left;
}

/** The same for an ARC issuance, whose proofs draw several scalars and use a deeper stack. */
function arcIssueWithKnownSeed() {
  const issuer = t.ArcIssuer.generate();
  const challenge = t.Challenge.create({
    tokenType: 0xe5ac, issuerName: 'issuer.example', tokenKey: issuer.tokenKey, rateLimit: 2,
  });
  const req = t.createCredentialRequest(challenge);
  const seed = crypto.getRandomValues(new Uint8Array(32));
  t.__testingSetSeed(seed);
  const resp = issuer.issue(req.body);
  const stream = chacha12(seed, 1024);
  const left = { seed: findAll(seed).length, stream: windowsFound(stream) };
  const credential = req.state.finalize(resp.body);
  assert.equal(credential.remaining(challenge), 2, 'the seeded issuance is valid');
  return left;
}

/**
 * A client's token request with a known seed (its nonce and blind are the generator's output),
 * finalized, the token and the state freed: what is left of the generator's output (the nonce is
 * raw keystream bytes).
 */
function clientRequestWithKnownSeed() {
  const { issuer, challenge } = setup();
  const seed = crypto.getRandomValues(new Uint8Array(32));
  t.__testingSetSeed(seed);
  const req = t.createTokenRequest(challenge);
  const [token] = req.state.finalize(issuer.issue(req.body, req.contentType).body);
  token.free();
  req.state.free();
  return { seed: findAll(seed).length, stream: windowsFound(chacha12(seed, 256)) };
}

/** A token, its bytes and header taken, then freed: what is left of its authenticator. */
function freedToken() {
  const { issuer, challenge } = setup();
  const req = t.createTokenRequest(challenge);
  const [token] = req.state.finalize(issuer.issue(req.body, req.contentType).body);
  const bytes = token.toBytes();
  const header = token.authorizationHeader();
  token.free();
  const authenticator = bytes.subarray(bytes.length - 48);
  const b64 = header.slice('PrivateToken token='.length);
  // 32 base64url characters from the authenticator's part of the encoding.
  const text = new TextEncoder().encode(b64.slice(b64.length - 60, b64.length - 28));
  return { authenticator: windowsFound(authenticator), header: findAll(text).length };
}

test('BND-1: after a randomized call, the generator\'s seed and output are not in linear memory', () => {
  for (let i = 0; i < 3; i++) {
    const left = issueWithKnownSeed();
    assert.deepEqual(left, { seed: 0, stream: [] }, 'seed occurrences / keystream windows found');
  }
});

test('BND-1: after an ARC issuance, the generator\'s seed and output are not in linear memory', () => {
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(arcIssueWithKnownSeed(), { seed: 0, stream: [] }, 'seed occurrences / keystream windows found');
  }
});

test('BND-2: a finalized and freed client state leaves neither its nonce nor the generator in linear memory', () => {
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(clientRequestWithKnownSeed(), { seed: 0, stream: [] }, 'seed occurrences / keystream windows found');
  }
});

test('BND-2: a freed token, its toBytes() and authorizationHeader() buffers are not in linear memory', () => {
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(freedToken(), { authenticator: [], header: 0 });
  }
});

/** `fn` with the binding's wipes switched off (the test flavour's hook). */
function withoutWipes(fn) {
  t.__testingSetWipe(false);
  try {
    return fn();
  } finally {
    t.__testingSetWipe(true);
  }
}

test('BND-1 control: with the binding\'s wipes off, the same scan finds the seed and the generator\'s output', () => {
  const left = withoutWipes(issueWithKnownSeed);
  assert.ok(left.seed > 0, 'the seed (the generator\'s key) is found');
  assert.ok(left.stream.length > 0, `keystream windows found: ${left.stream}`);
});

test('BND-1 control (ARC): with the binding\'s wipes off, the same scan finds the seed and the generator\'s output', () => {
  const left = withoutWipes(arcIssueWithKnownSeed);
  assert.ok(left.seed > 0, 'the seed (the generator\'s key) is found');
  assert.ok(left.stream.length > 0, `keystream windows found: ${left.stream}`);
});

test('BND-2 control (client state): with the binding\'s wipes off, the same scan finds the nonce', () => {
  const left = withoutWipes(clientRequestWithKnownSeed);
  assert.ok(left.stream.length > 0, `keystream windows found: ${left.stream}`);
});

test('BND-2 control: with the binding\'s wipes off, the same scan finds the freed token and its header', () => {
  const left = withoutWipes(freedToken);
  assert.ok(left.authenticator.length > 0, 'the authenticator is found');
  assert.ok(left.header > 0, 'the header text is found');
});

// ACT (Anonymous Credit Tokens): the Moderator's issuance and refund and the client's spend draw
// their scalars and proof nonces from the per-call generator (its keystream holds them
// verbatim), and a credential's and a spend state's encodings hold their secrets (k, r, k*, r*).
const ACT_CTX = new TextEncoder().encode('act-memory-test');
const ACT_SPEND = new TextEncoder().encode('act-memory-spend');

function actSetup() {
  const m = t.ActModerator.generate();
  return { m, ctx: new t.ActContext(ACT_CTX, 8), pk: m.publicKey };
}

/** An issuance (client request and Moderator response), a spend and its refund, each with a
 * known seed: what is left of the seed and of its generator's output right after each call. */
function actWithKnownSeeds() {
  const { m, ctx, pk } = actSetup();
  const left = [];
  const seeded = (fn) => {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    t.__testingSetSeed(seed);
    const out = fn();
    left.push({ seed: findAll(seed).length, stream: windowsFound(chacha12(seed, 512)) });
    return out;
  };
  const req = seeded(() => t.createActIssueRequest());
  const resp = seeded(() => m.issue(ctx, 10, req.message));
  const cred = req.state.finalize(ctx, pk, resp);
  const spend = seeded(() => cred.proveSpend(ctx, 3, 0, ACT_SPEND));
  const v = m.verifySpend(ctx, spend.message, ACT_SPEND);
  const refund = seeded(() => m.issueRefund(ctx, v, 1));
  const next = spend.state.finalize(ctx, pk, refund);
  assert.equal(next.balance, 8n, 'the seeded flow is valid');
  for (const o of [next, cred, spend.state, req.state, v, m]) o.free();
  return left;
}

/** A credential and a spend state exported, restored, exported again and freed (the JS copies
 * wiped by the test): what is left of their secret scalars (k, r of the credential; k*, r* of
 * the state). */
function actExportedSecrets() {
  const { m, ctx, pk } = actSetup();
  const req = t.createActIssueRequest();
  const cred = req.state.finalize(ctx, pk, m.issue(ctx, 10, req.message));
  const cb = cred.toBytes();
  const secrets = [cb.slice(0, 32), cb.slice(40, 72)];
  const copy = t.ActCredential.fromBytes(cb);
  copy.toBytes().fill(0);
  const spend = copy.proveSpend(ctx, 2, 0, ACT_SPEND);
  const sb = spend.state.toBytes();
  secrets.push(sb.slice(0, 32), sb.slice(32, 64));
  const restored = t.ActSpendState.fromBytes(sb);
  restored.toBytes().fill(0);
  cb.fill(0);
  sb.fill(0);
  for (const o of [restored, spend.state, copy, cred, req.state, m]) o.free();
  return secrets.map((s) => windowsFound(s));
}

test('ACT: after an issuance, a spend and a refund, no seed nor generator output is in linear memory', () => {
  for (let i = 0; i < 2; i++) {
    for (const left of actWithKnownSeeds()) assert.deepEqual(left, { seed: 0, stream: [] }, 'seed occurrences / keystream windows found');
  }
});

test('ACT: a credential and a spend state exported, restored and freed leave no copy of their secret scalars', () => {
  for (let i = 0; i < 2; i++) assert.deepEqual(actExportedSecrets(), [[], [], [], []], 'k, r, k*, r* windows found');
});

test('ACT control: with the binding\'s wipes off, the same scans find the seeds\' output and the secret scalars', () => {
  const left = withoutWipes(actWithKnownSeeds);
  assert.ok(left.every((l) => l.stream.length > 0), `keystream windows found after each call: ${JSON.stringify(left)}`);
  const secrets = withoutWipes(actExportedSecrets);
  assert.ok(secrets.some((w) => w.length > 0), `secret windows found: ${JSON.stringify(secrets)}`);
});
