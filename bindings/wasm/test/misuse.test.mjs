// Misuse that must give a typed error, not a silent fallback or a foreign exception: the origin's
// challenge check (BND-3), a missing issuer key (BND-3), freed objects and objects of the wrong
// class or of the other flavour (BND-4), count 1 (BND-13), bytes from another realm (BND-16),
// a header parameter named __proto__ (BND-20).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import * as pt from 'privacy-tokens';
import * as client from 'privacy-tokens/client';
import {
  ArcIssuer, Challenge, PrivacyPassIssuer, PrivacyTokensError, Token, VoprfServer, createCredentialRequest,
  createTokenRequest, parseChallenges,
} from 'privacy-tokens';
import { throwsCode } from './support/assert.mjs';

function challengeFor(tokenType, issuer, extra = {}) {
  return Challenge.create({
    tokenType, issuerName: 'issuer.example', originInfo: 'origin.example', tokenKey: issuer.tokenKey, ...extra,
  });
}

function tokenFor(issuer, challenge) {
  const req = createTokenRequest(challenge);
  return req.state.finalize(issuer.issue(req.body, req.contentType).body)[0];
}

test('BND-3: verifyToken requires the challenge (bytes or a Challenge); skipping it is verifyTokenAnyChallenge', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const challenge = challengeFor(1, issuer);
  const other = challengeFor(1, issuer, { originInfo: 'other.example' });
  const token = tokenFor(issuer, challenge).toBytes();
  throwsCode(() => issuer.verifyToken(token), 'INVALID_ARGUMENT', 'no challenge');
  throwsCode(() => issuer.verifyToken(token, undefined), 'INVALID_ARGUMENT', 'undefined challenge');
  throwsCode(() => issuer.verifyToken(token, null), 'INVALID_ARGUMENT', 'null challenge');
  assert.equal(issuer.verifyToken(token, challenge.toBytes()), true);
  assert.equal(issuer.verifyToken(token, challenge), true, 'a Challenge object');
  assert.equal(issuer.verifyToken(token, other), false, 'a token for another origin');
  assert.equal(issuer.verifyToken(token, other.toBytes()), false);
  assert.equal(issuer.verifyTokenAnyChallenge(token), true, 'the explicit no-challenge check');
  assert.equal(PrivacyPassIssuer.generate(1).verifyTokenAnyChallenge(token), false, 'another key');
});

test('BND-3: an explicit tokenKey option that is undefined or null is an error, not the challenge\'s key', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const challenge = challengeFor(1, issuer);
  const dir = { tokenKeys: [] };
  const missing = dir.tokenKeys.find((k) => k.tokenType === 1)?.tokenKey;
  throwsCode(() => createTokenRequest(challenge, { tokenKey: missing }), 'INVALID_ARGUMENT', 'tokenKey: undefined');
  throwsCode(() => createTokenRequest(challenge, { tokenKey: null }), 'INVALID_ARGUMENT', 'tokenKey: null');
  assert.equal(createTokenRequest(challenge).contentType, 'application/private-token-request', 'no option: the challenge\'s key');
  const arc = ArcIssuer.generate();
  const ac = challengeFor(0xe5ac, arc, { rateLimit: 2 });
  throwsCode(() => createCredentialRequest(ac, { tokenKey: undefined }), 'INVALID_ARGUMENT', 'ARC tokenKey: undefined');
  const req = createCredentialRequest(ac);
  const cred = req.state.finalize(arc.issue(req.body).body);
  throwsCode(() => cred.present(ac, { tokenKey: undefined }), 'INVALID_ARGUMENT', 'present tokenKey: undefined');
  throwsCode(() => cred.remaining(ac, { tokenKey: null }), 'INVALID_ARGUMENT', 'remaining tokenKey: null');
});

test('BND-4: methods of a freed object throw STATE_CONSUMED', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const challenge = challengeFor(1, issuer);
  const req = createTokenRequest(challenge);
  req.state.free();
  throwsCode(() => req.state.finalize(new Uint8Array(1)), 'STATE_CONSUMED', 'freed state');
  throwsCode(() => req.state.consumed, 'STATE_CONSUMED', 'getter of a freed state');
  const token = tokenFor(issuer, challenge);
  token.free();
  throwsCode(() => token.toBytes(), 'STATE_CONSUMED', 'freed token');
  const s = VoprfServer.generate('ristretto255-SHA512');
  s[Symbol.dispose]();
  throwsCode(() => s.publicKey, 'STATE_CONSUMED', 'disposed server');
  issuer.free();
  throwsCode(() => issuer.issue(req.body), 'STATE_CONSUMED', 'freed issuer');
  challenge.free();
  throwsCode(() => createTokenRequest(challenge), 'STATE_CONSUMED', 'a freed Challenge as argument');
});

test('BND-4: a wrong value or another flavour\'s object as a class argument throws INVALID_ARGUMENT', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const header = challengeFor(1, issuer).toHeader();
  throwsCode(() => createTokenRequest(undefined), 'INVALID_ARGUMENT', 'undefined');
  throwsCode(() => createTokenRequest({ tokenType: 1 }), 'INVALID_ARGUMENT', 'a plain object');
  throwsCode(() => pt.createTokenRequest(client.parseChallenges(header)[0]), 'INVALID_ARGUMENT', 'client Challenge into full');
  throwsCode(() => client.createTokenRequest(pt.parseChallenges(header)[0]), 'INVALID_ARGUMENT', 'full Challenge into client');
  throwsCode(() => createCredentialRequest('x'), 'INVALID_ARGUMENT', 'a string');
  // The same challenge through its own flavour works.
  assert.equal(client.createTokenRequest(client.parseChallenges(header)[0]).state.tokenType, 1);
});

test('BND-13: count 1 is one RFC 9578 token; an amortized batch of one needs batch: true', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const c = challengeFor(1, issuer);
  assert.equal(createTokenRequest(c, { count: 1 }).contentType, 'application/private-token-request');
  const b1 = createTokenRequest(c, { count: 1, batch: true });
  assert.equal(b1.contentType, 'application/private-token-amortized-batch-request');
  assert.equal(b1.state.finalize(issuer.issue(b1.body, b1.contentType).body).length, 1);
  assert.equal(createTokenRequest(c, { count: 3 }).contentType, 'application/private-token-amortized-batch-request');
  assert.equal(createTokenRequest(c, { batch: true }).contentType, 'application/private-token-amortized-batch-request');
  throwsCode(() => createTokenRequest(c, { count: 2, batch: false }), 'INVALID_ARGUMENT', 'two tokens, batch: false');
  throwsCode(() => createTokenRequest(c, { batch: 'yes' }), 'INVALID_ARGUMENT', 'batch: string');
});

test('BND-16: a Uint8Array from another realm and an ArrayBuffer are accepted as bytes', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const c = challengeFor(1, issuer);
  const req = createTokenRequest(c);
  const body = issuer.issue(req.body, req.contentType).body;
  const foreign = vm.runInNewContext('new Uint8Array(n)', { n: body.length });
  foreign.set(body);
  assert.equal(foreign instanceof Uint8Array, false, 'really another realm');
  const [token] = req.state.finalize(foreign);
  assert.equal(issuer.verifyToken(token.toBytes().buffer, c.toBytes().buffer), true, 'ArrayBuffer arguments');
  const sub = new Uint8Array(body.length + 4);
  sub.set(body, 2);
  const r2 = createTokenRequest(c);
  assert.equal(r2.state.finalize(issuer.issue(r2.body).body.subarray(0)).length, 1, 'a subarray');
  throwsCode(() => createTokenRequest(c).state.finalize(new Uint16Array(4)), 'INVALID_ARGUMENT', 'Uint16Array');
  throwsCode(() => createTokenRequest(c).state.finalize(vm.runInNewContext('new Int8Array(4)')), 'INVALID_ARGUMENT', 'foreign Int8Array');
});

test('BND-20: a header parameter named __proto__ is kept as a parameter', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const [c] = parseChallenges(`${challengeFor(1, issuer).toHeader()}, __proto__="x", other="y"`);
  assert.equal(Object.getPrototypeOf(c.parameters), null);
  assert.equal(c.parameters.__proto__, 'x');
  assert.equal(c.parameters.other, 'y');
  assert.deepEqual(Object.keys(c.parameters).sort(), ['__proto__', 'other']);
});

test('PrivacyTokensError is what every misuse throws, also across flavours', () => {
  let err;
  try { client.base64urlDecode('!'); } catch (e) { err = e; }
  assert.ok(err instanceof PrivacyTokensError);
  assert.ok(err instanceof client.PrivacyTokensError);
  assert.throws(() => Token.fromBytes(new Uint8Array(3)), PrivacyTokensError);
});
