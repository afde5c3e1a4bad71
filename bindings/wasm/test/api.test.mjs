// Every export of the package, its round trips, and bad input of every kind giving its
// `PrivacyTokensError` code: wrong JavaScript types, truncated and trailing bytes, bad
// base64url, off-curve points, non-canonical scalars, wrong keys, replayed states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as pt from 'privacy-tokens';
import * as client from 'privacy-tokens/client';
import {
  ArcIssuer, Challenge, Credential, OprfClient, OprfServer, PoprfClient, PoprfServer,
  PrivacyPassIssuer, PrivacyTokensError, Token, VoprfClient, VoprfServer, authorizationHeader,
  base64urlDecode, base64urlEncode, createCredentialRequest, createTokenRequest,
  parseAuthorization, parseChallenges, parseIssuerDirectory,
} from 'privacy-tokens';

const enc = (s) => new TextEncoder().encode(s);
const SUITES = ['P256-SHA256', 'P384-SHA384', 'P521-SHA512', 'ristretto255-SHA512', 'decaf448-SHAKE256'];
const TYPE_ARC = 0xe5ac;

/** `fn` throws a PrivacyTokensError with `code`. */
function throwsCode(fn, code, what = '') {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `${what}: expected ${code}, nothing thrown`);
  assert.ok(err instanceof PrivacyTokensError, `${what}: ${err} is not a PrivacyTokensError`);
  assert.equal(err.code, code, `${what}: ${err.message}`);
  assert.equal(err.name, 'PrivacyTokensError');
  assert.ok(err.message.length > 0);
}

function challengeFor(tokenType, issuer, extra = {}) {
  return Challenge.create({
    tokenType, issuerName: 'issuer.example', originInfo: 'origin.example',
    redemptionContext: new Uint8Array(32).fill(7), tokenKey: issuer.tokenKey, maxAge: 60, ...extra,
  });
}

test('exports: the full entry exposes the documented names; the client entry the client subset', () => {
  const act = [
    'ActContext', 'ActCredential', 'ActIssuanceState', 'ActSpendState', 'actCiphersuite', 'actKeyId',
    'createActIssueRequest',
  ];
  const full = [
    ...act, 'ActModerator', 'ActNullifierStore', 'ActVerifiedSpend',
    'ArcIssuer', 'BlindRsaIssuer', 'BlindRsaTokenKey', 'decodeExtensions', 'encodeExtensions',
    'Challenge', 'Credential', 'CredentialRequestState', 'OprfClient', 'OprfClientState',
    'OprfServer', 'PoprfClient', 'PoprfClientState', 'PoprfServer', 'PrivacyPassIssuer',
    'PrivacyTokensError', 'Token', 'TokenRequestState', 'VoprfClient', 'VoprfClientState',
    'VoprfServer', 'authorizationHeader', 'base64urlDecode', 'base64urlEncode',
    'createCredentialRequest', 'createTokenRequest', 'default', 'initSync',
    'parseAuthorization', 'parseAuthorizationWithExtensions', 'parseChallenges', 'parseIssuerDirectory',
  ];
  assert.deepEqual(Object.keys(pt).sort(), full.sort());
  const clientOnly = [
    ...act, 'Challenge', 'Credential', 'CredentialRequestState', 'PrivacyTokensError', 'Token',
    'TokenRequestState', 'decodeExtensions', 'encodeExtensions', 'authorizationHeader', 'base64urlDecode', 'base64urlEncode',
    'createCredentialRequest', 'createTokenRequest', 'default', 'initSync',
    'parseAuthorization', 'parseAuthorizationWithExtensions', 'parseChallenges', 'parseIssuerDirectory',
  ];
  assert.deepEqual(Object.keys(client).sort(), clientOnly.sort());
  // The deterministic entry points are only in the test flavour (BND-18).
  assert.equal('hazmat' in pt || 'hazmat' in client, false);
  assert.equal(typeof Symbol.dispose === 'symbol' ? typeof Challenge.prototype[Symbol.dispose] : 'function', 'function');
});

test('parseChallenges: several challenges, other schemes, quoted values, unknown types and parameters', () => {
  const i1 = PrivacyPassIssuer.generate(1);
  const i5 = PrivacyPassIssuer.generate(5);
  const c1 = challengeFor(1, i1);
  const c5 = challengeFor(5, i5, { redemptionContext: undefined });
  const unknown = Challenge.create({ tokenType: 0x0003, issuerName: 'other.example', tokenKey: new Uint8Array([1, 2]) });
  const quoted = c5.toHeader().replace(/challenge=([^,]+)/, 'challenge="$1"') + ', extra="a, b"';
  const header = `Basic realm="x", ${c1.toHeader()}, ${quoted}, Bearer abc==, ${unknown.toHeader()}, PrivateToken challenge=!!!`;
  const cs = parseChallenges(header);
  assert.equal(cs.length, 3);
  assert.deepEqual(cs.map((c) => c.tokenType), [1, 5, 3]);
  assert.deepEqual(cs.map((c) => c.supported), [true, true, false]);
  assert.equal(cs[0].issuerName, 'issuer.example');
  assert.equal(cs[0].originInfo, 'origin.example');
  assert.deepEqual(cs[0].redemptionContext, new Uint8Array(32).fill(7));
  assert.deepEqual(cs[0].tokenKey, i1.tokenKey);
  assert.equal(cs[0].maxAge, 60);
  assert.equal(cs[0].rateLimit, undefined);
  assert.deepEqual(cs[0].toBytes(), c1.toBytes());
  assert.deepEqual(cs[0].digest, c1.digest);
  assert.equal(cs[0].digest.length, 32);
  assert.deepEqual(cs[1].redemptionContext, new Uint8Array(0));
  assert.deepEqual(cs[1].parameters, Object.assign(Object.create(null), { extra: 'a, b' }));
  assert.equal(cs[0].credentialContext, undefined);
  assert.deepEqual(parseChallenges(''), []);
  assert.deepEqual(parseChallenges('Basic realm="x"'), []);
  const short = parseChallenges('PrivateToken challenge=AAEA');
  assert.equal(short.length, 1);
  assert.equal(short[0].supported, false, 'type 1 whose bytes do not parse');
  const opaque = Challenge.fromBytes(new Uint8Array([0, 1, 0]));
  assert.equal(opaque.supported, false);
  assert.equal(opaque.issuerName, undefined);
  throwsCode(() => parseChallenges(42), 'INVALID_ARGUMENT', 'parseChallenges(number)');
  throwsCode(() => Challenge.fromBytes(new Uint8Array([1])), 'INVALID_LENGTH', 'one byte');
  throwsCode(() => Challenge.fromBytes('AAEA'), 'INVALID_ARGUMENT', 'string bytes');
  throwsCode(() => Challenge.create({ tokenType: 1, issuerName: '' }), 'INVALID_LENGTH', 'empty issuer');
  throwsCode(() => Challenge.create({ tokenType: 1, issuerName: 'a', redemptionContext: new Uint8Array(5) }), 'INVALID_LENGTH', 'context 5');
  throwsCode(() => Challenge.create({ tokenType: 1.5, issuerName: 'a' }), 'INVALID_ARGUMENT', 'fractional type');
  throwsCode(() => Challenge.create({ issuerName: 'a' }), 'INVALID_ARGUMENT', 'no type');
  throwsCode(() => Challenge.create('x'), 'INVALID_ARGUMENT', 'options string');
});

test('headers and base64url: Authorization round trip, strict decoding', () => {
  const bytes = Uint8Array.from({ length: 50 }, (_, i) => i * 5);
  const h = authorizationHeader(bytes);
  assert.match(h, /^PrivateToken token=[A-Za-z0-9_-]+=*$/);
  assert.deepEqual(parseAuthorization(h), bytes);
  assert.deepEqual(parseAuthorization(h.replace('token=', 'token="') + '"'), bytes);
  assert.equal(base64urlEncode(new Uint8Array([0xfb, 0xff])), '-_8=');
  assert.deepEqual(base64urlDecode('-_8'), new Uint8Array([0xfb, 0xff]));
  throwsCode(() => base64urlDecode('+/8='), 'INVALID_ENCODING', 'standard alphabet');
  throwsCode(() => base64urlDecode('-_9'), 'INVALID_ENCODING', 'non-canonical bits');
  throwsCode(() => base64urlDecode('A'), 'INVALID_ENCODING', 'one char');
  throwsCode(() => parseAuthorization('PrivateToken token=!!'), 'INVALID_ENCODING', 'bad base64');
  throwsCode(() => parseAuthorization('Bearer token=AAAA'), 'UNSUPPORTED_VALUE', 'other scheme');
  throwsCode(() => parseAuthorization('PrivateToken'), 'INVALID_ENCODING', 'no token');
  throwsCode(() => authorizationHeader([1, 2]), 'INVALID_ARGUMENT', 'array');
});

test('parseIssuerDirectory: RFC 9578 directory JSON, strict', () => {
  const json = JSON.stringify({
    'issuer-request-uri': '/token-request',
    'token-keys': [
      { 'token-type': 1, 'token-key': base64urlEncode(new Uint8Array([1, 2, 3])), 'not-before': 1700000000 },
      { 'token-type': 58796, 'token-key': 'AQID' },
    ],
  });
  const d = parseIssuerDirectory(json);
  assert.equal(d.issuerRequestUri, '/token-request');
  assert.equal(d.tokenKeys.length, 2);
  assert.deepEqual(d.tokenKeys[0], { tokenType: 1, tokenKey: new Uint8Array([1, 2, 3]), notBefore: 1700000000 });
  assert.equal(d.tokenKeys[1].tokenType, TYPE_ARC);
  assert.equal(d.tokenKeys[1].notBefore, undefined);
  assert.deepEqual(parseIssuerDirectory(JSON.parse(json)), d);
  throwsCode(() => parseIssuerDirectory('{'), 'INVALID_ENCODING', 'not JSON');
  throwsCode(() => parseIssuerDirectory('[]'), 'INVALID_ENCODING', 'array');
  throwsCode(() => parseIssuerDirectory('{"token-keys": []}'), 'INVALID_ENCODING', 'no uri');
  throwsCode(() => parseIssuerDirectory('{"issuer-request-uri": "/", "token-keys": [{"token-type": 1, "token-key": "+++"}]}'), 'INVALID_ENCODING', 'bad key');
  throwsCode(() => parseIssuerDirectory(5), 'INVALID_ARGUMENT', 'number');
});

for (const tokenType of [1, 5]) {
  test(`Privacy Pass type ${tokenType}: single and batched issuance, verification, every bad input`, () => {
    const issuer = PrivacyPassIssuer.generate(tokenType);
    assert.equal(issuer.tokenType, tokenType);
    assert.equal(issuer.tokenKeyId.length, 32);
    const again = PrivacyPassIssuer.fromSecretKey(tokenType, issuer.secretKey());
    assert.deepEqual(again.tokenKey, issuer.tokenKey);
    const challenge = challengeFor(tokenType, issuer);

    const req = createTokenRequest(challenge);
    assert.equal(req.contentType, 'application/private-token-request');
    assert.equal(req.state.count, 1);
    assert.equal(req.state.tokenType, tokenType);
    const resp = issuer.issue(req.body, req.contentType);
    assert.equal(resp.contentType, 'application/private-token-response');
    // A malformed response leaves the state usable.
    throwsCode(() => req.state.finalize(resp.body.slice(1)), 'INVALID_LENGTH', 'truncated response');
    throwsCode(() => req.state.finalize(new Uint8Array([...resp.body, 0])), 'INVALID_LENGTH', 'trailing byte');
    throwsCode(() => req.state.finalize('x'), 'INVALID_ARGUMENT', 'string response');
    assert.equal(req.state.consumed, false);
    const [token] = req.state.finalize(resp.body);
    assert.equal(req.state.consumed, true);
    throwsCode(() => req.state.finalize(resp.body), 'STATE_CONSUMED', 'replayed state');
    assert.equal(token.tokenType, tokenType);
    assert.deepEqual(token.challengeDigest, challenge.digest);
    assert.deepEqual(token.tokenKeyId, issuer.tokenKeyId);
    assert.equal(token.nonce.length, 32);
    assert.equal(issuer.verifyTokenAnyChallenge(token.toBytes()), true);
    assert.equal(issuer.verifyToken(token.toBytes(), challenge.toBytes()), true);
    assert.equal(issuer.verifyToken(token.toBytes(), challenge), true);
    assert.equal(issuer.verifyToken(token.toBytes(), challengeFor(tokenType, issuer, { originInfo: 'other' }).toBytes()), false);
    assert.deepEqual(parseAuthorization(token.authorizationHeader()), token.toBytes());
    assert.deepEqual(Token.fromBytes(token.toBytes()).toBytes(), token.toBytes());
    // Another issuer whose truncated key id (the last byte, all a request carries) differs:
    // one in 256 fresh keys shares it, and its issue() would then accept the request.
    let other = PrivacyPassIssuer.generate(tokenType);
    while (other.tokenKeyId[31] === issuer.tokenKeyId[31]) other = PrivacyPassIssuer.generate(tokenType);
    assert.equal(other.verifyToken(token.toBytes(), challenge), false, 'another key');
    assert.equal(other.verifyTokenAnyChallenge(token.toBytes()), false, 'another key, any challenge');
    const bad = token.toBytes();
    bad[bad.length - 1] ^= 0x80;
    assert.equal(issuer.verifyToken(bad, challenge), false, 'flipped authenticator');
    assert.equal(issuer.verifyTokenAnyChallenge(bad), false, 'flipped authenticator, any challenge');
    throwsCode(() => issuer.verifyToken(token.toBytes().slice(0, 40), challenge), 'INVALID_LENGTH', 'truncated token');
    throwsCode(() => Token.fromBytes(new Uint8Array([0x12, 0x34, 0])), 'UNSUPPORTED_VALUE', 'unknown token type');
    throwsCode(() => Token.fromBytes(new Uint8Array([0])), 'INVALID_LENGTH', 'one byte');

    // Batch of 10.
    const batch = createTokenRequest(challenge, { count: 10 });
    assert.equal(batch.contentType, 'application/private-token-amortized-batch-request');
    const bresp = issuer.issue(batch.body, batch.contentType);
    assert.equal(bresp.contentType, 'application/private-token-amortized-batch-response');
    const tokens = batch.state.finalize(bresp.body);
    assert.equal(tokens.length, 10);
    assert.equal(new Set(tokens.map((t) => Buffer.from(t.nonce).toString('hex'))).size, 10);
    for (const t of tokens) assert.equal(issuer.verifyToken(t.toBytes(), challenge.toBytes()), true);
    // Without a content type, the length decides.
    const b2 = createTokenRequest(challenge, { count: 2 });
    assert.equal(b2.state.finalize(issuer.issue(b2.body).body).length, 2);

    // The issuer's limits and refusals.
    issuer.maxBatch = 3;
    assert.equal(issuer.maxBatch, 3);
    throwsCode(() => issuer.issue(batch.body, batch.contentType), 'BATCH', 'over the cap');
    throwsCode(() => { issuer.maxBatch = 0; }, 'INVALID_ARGUMENT', 'cap 0');
    throwsCode(() => createTokenRequest(challenge, { count: 0 }), 'BATCH', 'count 0');
    throwsCode(() => createTokenRequest(challenge, { count: 65536 }), 'BATCH', 'count 65536');
    throwsCode(() => createTokenRequest(challenge, { count: '3' }), 'INVALID_ARGUMENT', 'count string');
    throwsCode(() => other.issue(req.body, req.contentType), 'UNSUPPORTED_VALUE', 'another key id');
    throwsCode(() => issuer.issue(req.body.slice(0, 10), 'application/private-token-request'), 'INVALID_LENGTH', 'truncated request');
    throwsCode(() => issuer.issue(req.body, 'text/plain'), 'UNSUPPORTED_VALUE', 'media type');
    const offCurve = req.body.slice();
    offCurve.fill(0xff, 3);
    throwsCode(() => issuer.issue(offCurve, req.contentType), tokenType === 1 ? 'INVALID_POINT' : 'INVALID_POINT', 'off-curve element');
    throwsCode(() => createTokenRequest(challenge, { tokenKey: new Uint8Array(5) }), tokenType === 1 ? 'INVALID_LENGTH' : 'INVALID_LENGTH', 'short key');
    const noKey = Challenge.fromBytes(challenge.toBytes());
    throwsCode(() => createTokenRequest(noKey), 'MISSING_KEY', 'no token-key');
    assert.equal(createTokenRequest(noKey, { tokenKey: issuer.tokenKey }).state.count, 1);

    // A response from another issuer: the proof fails and the state is spent.
    const r3 = createTokenRequest(challenge, { tokenKey: issuer.tokenKey });
    const foreign = PrivacyPassIssuer.fromSecretKey(tokenType, other.secretKey());
    const forged = createTokenRequest(challengeFor(tokenType, foreign));
    const fresp = foreign.issue(forged.body, forged.contentType);
    throwsCode(() => r3.state.finalize(fresp.body), 'INVALID_PROOF', 'wrong issuer key');
    throwsCode(() => r3.state.finalize(fresp.body), 'STATE_CONSUMED', 'after a failed proof');

    // Secret keys.
    throwsCode(() => PrivacyPassIssuer.fromSecretKey(tokenType, new Uint8Array(tokenType === 1 ? 48 : 32)), 'ZERO_SCALAR', 'zero key');
    throwsCode(() => PrivacyPassIssuer.fromSecretKey(tokenType, new Uint8Array(tokenType === 1 ? 48 : 32).fill(0xff)), 'NON_CANONICAL_SCALAR', 'key >= order');
    throwsCode(() => PrivacyPassIssuer.fromSecretKey(tokenType, new Uint8Array(7)), 'INVALID_LENGTH', 'short key');
    throwsCode(() => PrivacyPassIssuer.generate(2), 'UNSUPPORTED_VALUE', 'type 2');
    const derived = PrivacyPassIssuer.derive(tokenType, new Uint8Array(32).fill(1), enc('PrivacyPass'));
    assert.deepEqual(PrivacyPassIssuer.derive(tokenType, new Uint8Array(32).fill(1), enc('PrivacyPass')).tokenKey, derived.tokenKey);
    for (const o of [issuer, again, other, foreign, derived]) o.free();
  });
}

test('createTokenRequest refuses ARC and unknown types with UNSUPPORTED_VALUE', () => {
  const arc = ArcIssuer.generate();
  throwsCode(() => createTokenRequest(challengeFor(TYPE_ARC, arc, { rateLimit: 3 })), 'UNSUPPORTED_VALUE', 'ARC');
  throwsCode(() => createTokenRequest(Challenge.create({ tokenType: 3, issuerName: 'x', tokenKey: new Uint8Array(3) })), 'UNSUPPORTED_VALUE', 'type 3');
  // Type 2 (blind RSA) is supported: a key that is not an RSA-PSS SPKI is INVALID_KEY.
  throwsCode(() => createTokenRequest(Challenge.create({ tokenType: 2, issuerName: 'x', tokenKey: new Uint8Array(3) })), 'INVALID_KEY', 'type 2, bad key');
  const pp = PrivacyPassIssuer.generate(1);
  throwsCode(() => createCredentialRequest(challengeFor(1, pp)), 'UNSUPPORTED_VALUE', 'type 1 for ARC');
});

test('ARC: credential, presentations up to the rate limit, persistence, verification, bad inputs', () => {
  const issuer = ArcIssuer.generate();
  const restored = ArcIssuer.fromSecretKey(issuer.secretKey());
  assert.deepEqual(restored.tokenKey, issuer.tokenKey);
  assert.equal(issuer.tokenKeyId.length, 32);
  const challenge = challengeFor(TYPE_ARC, issuer, { rateLimit: 4, credentialContext: new Uint8Array(32).fill(3) });
  assert.deepEqual(challenge.credentialContext, new Uint8Array(32).fill(3));
  const [parsed] = parseChallenges(challenge.toHeader());
  assert.equal(parsed.rateLimit, 4);
  assert.equal(parsed.supported, true);

  const req = createCredentialRequest(parsed);
  assert.equal(req.contentType, 'application/private-credential-request');
  const resp = issuer.issue(req.body);
  assert.equal(resp.contentType, 'application/private-credential-response');
  throwsCode(() => req.state.finalize(resp.body.slice(0, -1)), 'INVALID_LENGTH', 'truncated response');
  const cred = req.state.finalize(resp.body);
  throwsCode(() => req.state.finalize(resp.body), 'STATE_CONSUMED', 'replayed state');

  const tags = new Set();
  assert.equal(cred.remaining(parsed), 4);
  const t1 = cred.present(parsed);
  assert.equal(t1.tokenType, TYPE_ARC);
  assert.equal(t1.nonce, undefined);
  tags.add(Buffer.from(issuer.verify(t1.toBytes(), challenge)).toString('hex'));
  // Persist, drop, restore: the counter continues.
  const saved = cred.toBytes();
  cred.free();
  const back = Credential.fromBytes(saved);
  assert.equal(back.remaining(parsed), 3);
  for (let i = 0; i < 3; i++) {
    const t = back.present(parsed);
    tags.add(Buffer.from(restored.verify(t.toBytes(), challenge, 4)).toString('hex'));
    assert.deepEqual(parseAuthorization(t.authorizationHeader()), t.toBytes());
  }
  assert.equal(tags.size, 4, 'four distinct tags');
  throwsCode(() => back.present(parsed), 'LIMIT_EXCEEDED', 'over the rate limit');
  assert.equal(back.remaining(parsed), 0);
  // Another redemption context (same origin and credential context) has its own counter.
  const other = challengeFor(TYPE_ARC, issuer, { rateLimit: 4, redemptionContext: new Uint8Array(32).fill(9), credentialContext: new Uint8Array(32).fill(3) });
  assert.equal(back.remaining(other), 4);
  const t5 = back.present(other);
  assert.equal(issuer.verify(t5.toBytes(), other).length, 33);
  throwsCode(() => issuer.verify(t5.toBytes(), challenge), 'UNSUPPORTED_VALUE', 'wrong challenge');
  throwsCode(() => issuer.verify(t5.toBytes(), other, 1), 'LIMIT_EXCEEDED', 'limit 1');
  const bad = t5.toBytes();
  bad[bad.length - 1] ^= 1;
  assert.throws(() => issuer.verify(bad, other), (e) => e instanceof PrivacyTokensError && ['INVALID_PROOF', 'NON_CANONICAL_SCALAR'].includes(e.code));
  const stranger = ArcIssuer.generate();
  throwsCode(() => stranger.issue(req.body), 'UNSUPPORTED_VALUE', 'another key id');
  throwsCode(() => stranger.verify(t5.toBytes(), other), 'UNSUPPORTED_VALUE', 'another key');
  throwsCode(() => Credential.fromBytes(saved.slice(0, 20)), 'INVALID_LENGTH', 'truncated credential');
  throwsCode(() => Credential.fromBytes(new Uint8Array([9, 9, ...saved.slice(2)])), 'UNSUPPORTED_VALUE', 'credential version');
  throwsCode(() => ArcIssuer.fromSecretKey(new Uint8Array(3)), 'INVALID_LENGTH', 'short key');
  const fresh = challengeFor(TYPE_ARC, issuer, { redemptionContext: new Uint8Array(32).fill(10), credentialContext: new Uint8Array(32).fill(3) });
  const noLimit = Challenge.fromBytes(fresh.toBytes(), { tokenKey: issuer.tokenKey });
  throwsCode(() => back.present(noLimit), 'MISSING_KEY', 'no rate limit');
  assert.equal(back.present(noLimit, { rateLimit: 2 }).tokenType, TYPE_ARC);
  // A response to another request: the proof fails.
  const r2 = createCredentialRequest(parsed);
  const r3 = createCredentialRequest(parsed);
  throwsCode(() => r2.state.finalize(issuer.issue(r3.body).body), 'INVALID_PROOF', 'foreign response');
});

for (const suite of SUITES) {
  test(`OPRF, VOPRF, POPRF on ${suite}: round trips, batches, bad inputs`, () => {
    const input = enc('input');
    const info = enc('info');
    // OPRF
    const os = OprfServer.generate(suite);
    const oc = new OprfClient(suite);
    assert.equal(oc.suite, suite);
    const ob = oc.blind(input);
    const out = ob.state.finalize(os.blindEvaluate(ob.blindedElement));
    assert.deepEqual(out, os.evaluate(input));
    throwsCode(() => ob.state.finalize(os.blindEvaluate(ob.blindedElement)), 'STATE_CONSUMED', 'OPRF replay');
    const obb = oc.blindBatch([input, enc('two')]);
    const outs = obb.state.finalize(os.blindEvaluateBatch(obb.blindedElements));
    assert.deepEqual(outs[0], out);
    assert.deepEqual(OprfServer.fromSecretKey(suite, os.secretKey()).evaluate(input), out);
    // VOPRF
    const vs = VoprfServer.generate(suite);
    const vc = new VoprfClient(suite, vs.publicKey);
    const vb = vc.blind(input);
    const ev = vs.blindEvaluate(vb.blindedElement);
    const other = VoprfServer.generate(suite);
    const wrong = other.blindEvaluate(vb.blindedElement);
    throwsCode(() => vb.state.finalize(ev.evaluatedElement.slice(1), ev.proof), 'INVALID_LENGTH', 'truncated element');
    throwsCode(() => vb.state.finalize(ev.evaluatedElement, ev.proof.slice(1)), 'INVALID_LENGTH', 'truncated proof');
    const v2 = vc.blind(input);
    throwsCode(() => v2.state.finalize(wrong.evaluatedElement, wrong.proof), 'INVALID_PROOF', 'wrong key');
    assert.deepEqual(vb.state.finalize(ev.evaluatedElement, ev.proof), vs.evaluate(input));
    const vbb = vc.blindBatch([input, enc('b'), enc('c')]);
    const bev = vs.blindEvaluateBatch(vbb.blindedElements);
    throwsCode(() => vbb.state.finalize(bev.evaluatedElements.slice(0, 2), bev.proof), 'BATCH', 'short batch');
    const vouts = vbb.state.finalize(bev.evaluatedElements, bev.proof);
    assert.equal(vouts.length, 3);
    assert.deepEqual(vouts[0], vs.evaluate(input));
    assert.deepEqual(VoprfServer.fromSecretKey(suite, vs.secretKey()).publicKey, vs.publicKey);
    // POPRF
    const ps = PoprfServer.generate(suite);
    const pc = new PoprfClient(suite, ps.publicKey, info);
    const pb = pc.blind(input);
    const pev = ps.blindEvaluate(pb.blindedElement, info);
    assert.deepEqual(pb.state.finalize(pev.evaluatedElement, pev.proof), ps.evaluate(input, info));
    const pb2 = pc.blind(input);
    const pev2 = ps.blindEvaluate(pb2.blindedElement, enc('other info'));
    throwsCode(() => pb2.state.finalize(pev2.evaluatedElement, pev2.proof), 'INVALID_PROOF', 'other info');
    const pbb = pc.blindBatch([input, input]);
    const pbev = ps.blindEvaluateBatch(pbb.blindedElements, info);
    const pouts = pbb.state.finalize(pbev.evaluatedElements, pbev.proof);
    assert.deepEqual(pouts[0], pouts[1]);
    assert.deepEqual(PoprfServer.fromSecretKey(suite, ps.secretKey()).publicKey, ps.publicKey);
    // Deterministic keys.
    assert.deepEqual(VoprfServer.derive(suite, new Uint8Array(32), info).publicKey, VoprfServer.derive(suite, new Uint8Array(32), info).publicKey);
    assert.deepEqual(OprfServer.derive(suite, new Uint8Array(32), info).secretKey().length, os.secretKey().length);
    assert.deepEqual(PoprfServer.derive(suite, new Uint8Array(32), info).publicKey.length, ps.publicKey.length);
    // Bad inputs.
    const ne = vs.publicKey.length;
    throwsCode(() => vs.blindEvaluate(new Uint8Array(ne)), 'IDENTITY_ELEMENT', 'zero element');
    throwsCode(() => vs.blindEvaluate(new Uint8Array(ne).fill(0xff)), 'INVALID_POINT', 'off-curve element');
    throwsCode(() => vs.blindEvaluate(vb.blindedElement.slice(1)), 'INVALID_LENGTH', 'truncated element');
    throwsCode(() => vs.blindEvaluate([1, 2]), 'INVALID_ARGUMENT', 'array element');
    throwsCode(() => vs.blindEvaluateBatch([]), 'BATCH', 'empty batch');
    throwsCode(() => vs.blindEvaluateBatch('x'), 'INVALID_ARGUMENT', 'string batch');
    throwsCode(() => new VoprfClient(suite, new Uint8Array(ne)), 'IDENTITY_ELEMENT', 'identity key');
    throwsCode(() => VoprfServer.fromSecretKey(suite, new Uint8Array(os.secretKey().length)), 'ZERO_SCALAR', 'zero key');
    throwsCode(() => VoprfServer.fromSecretKey(suite, new Uint8Array(os.secretKey().length).fill(0xff)), 'NON_CANONICAL_SCALAR', 'key >= order');
    throwsCode(() => oc.blind(new Uint8Array(65536)), 'INPUT_TOO_LONG', 'input 2^16');
    throwsCode(() => new PoprfClient(suite, ps.publicKey, new Uint8Array(65536)).blind(input), 'INPUT_TOO_LONG', 'info 2^16');
  });
}

test('suite names are checked', () => {
  throwsCode(() => new OprfClient('P256'), 'INVALID_ARGUMENT', 'short name');
  throwsCode(() => VoprfServer.generate(undefined), 'INVALID_ARGUMENT', 'undefined');
  throwsCode(() => PoprfServer.generate(1), 'INVALID_ARGUMENT', 'number');
});

test('no input reaches a panic: random bytes into every decoder throw PrivacyTokensError', () => {
  const pp = PrivacyPassIssuer.generate(1);
  const p5 = PrivacyPassIssuer.generate(5);
  const arc = ArcIssuer.generate();
  const arcChallenge = challengeFor(TYPE_ARC, arc, { rateLimit: 3 });
  const vs = VoprfServer.generate('P384-SHA384');
  const st = () => createTokenRequest(challengeFor(1, pp)).state;
  let seed = 1;
  const rand = (n) => Uint8Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
  const decoders = [
    (b) => Challenge.fromBytes(b), (b) => Token.fromBytes(b), (b) => pp.issue(b), (b) => p5.issue(b),
    (b) => pp.issue(new Uint8Array([0, 1, pp.tokenKeyId[31], ...b])),
    (b) => pp.verifyTokenAnyChallenge(b), (b) => pp.verifyToken(b, b), (b) => arc.issue(b), (b) => arc.verify(b, arcChallenge),
    (b) => Credential.fromBytes(b), (b) => st().finalize(b), (b) => vs.blindEvaluate(b),
    (b) => ArcIssuer.fromSecretKey(b), (b) => PrivacyPassIssuer.fromSecretKey(1, b),
    (b) => parseAuthorization(new TextDecoder().decode(b)), (b) => parseChallenges(new TextDecoder().decode(b)),
  ];
  let thrown = 0;
  for (const [k, d] of decoders.entries()) {
    for (const n of [0, 1, 2, 3, 33, 49, 52, 97, 200]) {
      const b = rand(n);
      try {
        d(b);
      } catch (e) {
        assert.ok(e instanceof PrivacyTokensError, `decoder ${k}, ${n} bytes: ${e}`);
        thrown++;
      }
    }
  }
  assert.ok(thrown > 100, `${thrown} rejections`);
  // The module still works afterwards (a panic would have trapped it).
  const req = createTokenRequest(challengeFor(1, pp));
  assert.equal(req.state.finalize(pp.issue(req.body).body).length, 1);
});

test('free() and Symbol.dispose release secret objects; using a freed object throws STATE_CONSUMED', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const req = createTokenRequest(challengeFor(1, issuer));
  req.state.free();
  throwsCode(() => req.state.finalize(new Uint8Array(1)), 'STATE_CONSUMED', 'freed state');
  const s = VoprfServer.generate('ristretto255-SHA512');
  s[Symbol.dispose]();
  throwsCode(() => s.publicKey, 'STATE_CONSUMED', 'disposed server');
  const oc = new OprfClient('P256-SHA256');
  oc.free();
  throwsCode(() => oc.blind(enc('x')), 'STATE_CONSUMED', 'freed client');
});
