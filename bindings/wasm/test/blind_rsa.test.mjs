// Blind RSA token types 0x0002 (RFC 9578 §6) and 0xDA7A (partially blind RSA with extensions)
// through the JavaScript API: round trips (client, issuer, origin), the published vectors
// byte for byte (RFC 9578 A.2 and the public-metadata draft's, through the test flavour's
// `hazmat.createBlindRsaTokenRequest`), the Extensions encoding, the `Authorization` value
// with `extensions=` (written and parsed), and refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { throwsCode } from './support/assert.mjs';

const {
  Challenge, Token, BlindRsaIssuer, BlindRsaTokenKey, PrivacyPassIssuer, createTokenRequest,
  encodeExtensions, decodeExtensions, hazmat, authorizationHeader, parseAuthorization,
  parseAuthorizationWithExtensions,
} = await import('../pkg-testing/node.js');

const vectors = (name) =>
  JSON.parse(readFileSync(new URL(`../../../test-vectors/blind-rsa/${name}`, import.meta.url), 'utf8'));
const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b) => Buffer.from(b).toString('hex');
const pem = (v) => Buffer.from(v.skS, 'hex').toString('utf8');
// Padded base64url, as the server writes it.
const b64u = (bytes) => {
  const t = Buffer.from(bytes).toString('base64url');
  return t + '='.repeat((4 - (t.length % 4)) % 4);
};

const RFC9578 = vectors('privacypass-ts-pub_verif_rfc9578.go.json');
const METADATA = vectors('privacypass-ts-pub_verif_with_metadata_v3.json');
const EXT = encodeExtensions([{ type: 1, data: Uint8Array.of(1, 2, 3) }]);

const challengeFor = (tokenType, issuer, origin = 'origin.example') => Challenge.create({
  tokenType, issuerName: 'issuer.example', originInfo: origin, tokenKey: issuer.tokenKey,
});

test('Extensions: encoding, sorting, decoding, refusals', () => {
  const e = encodeExtensions([
    { type: 0x0010, data: Uint8Array.of(9) },
    { type: 0x0001, data: new Uint8Array() },
  ]);
  assert.equal(toHex(e), '0009' + '00010000' + '0010000109');
  assert.deepEqual(
    decodeExtensions(e).map((x) => [x.type, toHex(x.data)]),
    [[1, ''], [16, '09']],
  );
  assert.equal(toHex(encodeExtensions([])), '0000');
  assert.equal(toHex(EXT), METADATA[0].extensions, 'the vector\'s extensions');
  throwsCode(() => decodeExtensions(hex('0005000100')), 'INVALID_LENGTH', 'short');
  throwsCode(() => decodeExtensions(hex('000000')), 'INVALID_LENGTH', 'trailing byte');
  throwsCode(() => decodeExtensions(hex('0008' + '00020000' + '00010000')), 'INVALID_ENCODING', 'out of order');
  throwsCode(() => encodeExtensions([{ type: 1, data: new Uint8Array(70000) }]), 'INPUT_TOO_LONG');
  throwsCode(() => encodeExtensions([{ type: 70000, data: new Uint8Array() }]), 'INVALID_ARGUMENT');
  throwsCode(() => encodeExtensions([{ type: 1, data: 'abc' }]), 'INVALID_ARGUMENT');
  throwsCode(() => encodeExtensions('nope'), 'INVALID_ARGUMENT');
  throwsCode(() => decodeExtensions([0, 0]), 'INVALID_ARGUMENT');
});

test('RFC 9578 A.2 type 0x0002 vectors: request, finalized token and verification byte for byte', () => {
  for (const [i, v] of RFC9578.entries()) {
    const issuer = BlindRsaIssuer.fromPem(2, pem(v));
    assert.equal(toHex(issuer.tokenKey), v.pkS, `${i}: pkS`);
    const key = BlindRsaTokenKey.fromSpki(hex(v.pkS));
    assert.equal(toHex(key.tokenKeyId), toHex(issuer.tokenKeyId));
    const challenge = Challenge.fromBytes(hex(v.token_challenge));
    assert.equal(challenge.tokenType, 2);
    assert.equal(challenge.supported, true);
    const req = hazmat.createBlindRsaTokenRequest(
      challenge, hex(v.pkS), undefined, hex(v.nonce), hex(v.salt), hex(v.blind),
    );
    assert.equal(req.contentType, 'application/private-token-request');
    assert.equal(toHex(req.body), v.token_request, `${i}: token_request`);
    // The issuer's signature is deterministic (RSA): the vector's response, byte for byte.
    const resp = issuer.issue(req.body);
    assert.equal(resp.contentType, 'application/private-token-response');
    assert.equal(toHex(resp.body), v.token_response, `${i}: token_response`);
    const [token] = req.state.finalize(hex(v.token_response));
    assert.equal(token.tokenType, 2);
    assert.equal(toHex(token.toBytes()), v.token, `${i}: token`);
    assert.equal(toHex(token.nonce), v.nonce);
    assert.equal(toHex(token.challengeDigest), toHex(challenge.digest));
    assert.equal(toHex(Token.fromBytes(hex(v.token)).toBytes()), v.token);
    assert.equal(key.verifyToken(hex(v.token), hex(v.token_challenge)), true, `${i}: verify`);
    assert.equal(key.verifyToken(hex(v.token), challenge), true, `${i}: verify (Challenge)`);
    const flipped = hex(v.token);
    flipped[flipped.length - 1] ^= 1;
    assert.equal(key.verifyToken(flipped, challenge), false, `${i}: flipped authenticator`);
  }
  assert.equal(RFC9578.length, 5);
});

test('public-metadata draft type 0xDA7A vector: request, response, token, verification', () => {
  const v = METADATA[0];
  const issuer = BlindRsaIssuer.fromPem(0xDA7A, pem(v));
  assert.equal(toHex(issuer.tokenKey), v.pkS);
  const key = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const challenge = Challenge.fromBytes(hex(v.token_challenge));
  assert.equal(challenge.tokenType, 0xDA7A);
  const ext = hex(v.extensions);
  const req = hazmat.createBlindRsaTokenRequest(
    challenge, hex(v.pkS), ext, hex(v.nonce), hex(v.salt), hex(v.blind),
  );
  assert.equal(toHex(req.body), v.token_request, 'token_request');
  let seen;
  const resp = issuer.issue(req.body, (e) => { seen = toHex(e); return true; });
  assert.equal(seen, v.extensions, 'the policy sees the extensions');
  assert.equal(toHex(resp.body), v.token_response, 'token_response');
  const [token] = req.state.finalize(resp.body);
  assert.equal(token.tokenType, 0xDA7A);
  assert.equal(toHex(token.toBytes()), v.token, 'token');
  assert.equal(key.verifyToken(hex(v.token), challenge, ext), true);
  assert.equal(key.verifyToken(hex(v.token), challenge, encodeExtensions([{ type: 1, data: Uint8Array.of(1, 2, 4) }])), false, 'other extensions');
  throwsCode(() => key.verifyToken(hex(v.token), challenge), 'INVALID_INPUT', 'no extensions');
});

test('type 0x0002 round trip: client, issuer, origin; one-shot state; refusals', () => {
  const issuer = BlindRsaIssuer.fromPem(2, pem(RFC9578[0]));
  assert.equal(issuer.tokenType, 2);
  // RFC 9578's key has plain primes: refused for 0xDA7A (partially blind RSA needs safe primes;
  // the 0xDA7A tests below take the draft's keys, which have them).
  throwsCode(() => BlindRsaIssuer.fromPem(0xDA7A, pem(RFC9578[0])), 'INVALID_KEY', 'plain primes for 0xDA7A');
  const key = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const challenge = challengeFor(2, issuer);
  const req = createTokenRequest(challenge);
  assert.equal(req.body.length, 259);
  assert.equal(req.state.tokenType, 2);
  assert.equal(req.state.count, 1);
  const resp = issuer.issue(req.body);
  throwsCode(() => req.state.finalize(new Uint8Array(255)), 'INVALID_LENGTH', 'short response');
  assert.equal(req.state.consumed, false, 'a malformed response leaves the state usable');
  const [token] = req.state.finalize(resp.body);
  assert.equal(req.state.consumed, true);
  throwsCode(() => req.state.finalize(resp.body), 'STATE_CONSUMED');
  assert.equal(token.authorizationHeader().startsWith('PrivateToken token='), true);
  assert.equal(key.verifyToken(token.toBytes(), challenge), true);
  assert.equal(key.verifyTokenAnyChallenge(token.toBytes()), true);
  assert.equal(key.verifyToken(token.toBytes(), challengeFor(2, issuer, 'other.example')), false, 'another challenge');
  const other = BlindRsaTokenKey.fromSpki(hex(METADATA[0].pkS));
  if (toHex(other.tokenKeyId) !== toHex(key.tokenKeyId)) {
    assert.equal(other.verifyToken(token.toBytes(), challenge), false, 'another key');
  }
  throwsCode(() => key.verifyToken(token.toBytes()), 'INVALID_ARGUMENT', 'no challenge');
  throwsCode(() => key.verifyToken(token.toBytes(), challenge, EXT), 'INVALID_INPUT', 'extensions on 0x0002');
  throwsCode(() => key.verifyToken(new Uint8Array(10), challenge), 'INVALID_LENGTH', 'not a token');
  // The randomized requests differ (nonce, salt, blind) for one challenge.
  assert.notEqual(toHex(createTokenRequest(challenge).body), toHex(createTokenRequest(challenge).body));
  // Refusals on the client side.
  throwsCode(() => createTokenRequest(challenge, { count: 2 }), 'BATCH');
  throwsCode(() => createTokenRequest(challenge, { batch: true }), 'BATCH');
  throwsCode(() => createTokenRequest(challenge, { extensions: EXT }), 'INVALID_ARGUMENT');
  throwsCode(() => createTokenRequest(challenge, { tokenKey: new Uint8Array(33) }), 'INVALID_KEY');
  throwsCode(() => createTokenRequest(challenge, { tokenKey: undefined }), 'INVALID_ARGUMENT');
  throwsCode(() => createTokenRequest(Challenge.create({ tokenType: 2, issuerName: 'i' })), 'MISSING_KEY');
  // A type 0x0001 key is not an RSA key.
  const voprf = PrivacyPassIssuer.derive(1, new Uint8Array(32), new Uint8Array());
  throwsCode(() => createTokenRequest(challenge, { tokenKey: voprf.tokenKey }), 'INVALID_KEY');
  // Refusals on the issuer side.
  const r = createTokenRequest(challenge);
  throwsCode(() => issuer.issue(r.body.subarray(1)), 'INVALID_LENGTH');
  throwsCode(() => issuer.issue(r.body, () => true), 'INVALID_ARGUMENT', 'a policy on 0x0002');
  const wrongKeyId = Uint8Array.from(r.body);
  wrongKeyId[2] ^= 1;
  throwsCode(() => issuer.issue(wrongKeyId), 'UNSUPPORTED_VALUE', 'another key id');
  const tooBig = Uint8Array.from(r.body);
  tooBig.fill(0xff, 3);
  throwsCode(() => issuer.issue(tooBig), 'OUT_OF_RANGE', 'blinded message not below n');
  throwsCode(() => issuer.issue('body'), 'INVALID_ARGUMENT');
  // A wrong response (another request's signature) fails the client's check.
  const r2 = createTokenRequest(challenge);
  throwsCode(() => r2.state.finalize(resp.body), 'INVALID_SIGNATURE');
  assert.equal(r2.state.consumed, true);
  token.free();
  throwsCode(() => token.toBytes(), 'STATE_CONSUMED', 'a freed token');
});

test('type 0xDA7A round trip: extensions in the request, the issuer\'s policy, the origin', () => {
  const issuer = BlindRsaIssuer.fromPem(0xDA7A, pem(METADATA[0]));
  const key = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const challenge = challengeFor(0xDA7A, issuer);
  const ext = encodeExtensions([{ type: 1, data: Uint8Array.of(42) }, { type: 2, data: new Uint8Array(4) }]);
  const req = createTokenRequest(challenge, { extensions: ext });
  assert.equal(req.state.tokenType, 0xDA7A);
  assert.equal(toHex(req.body.subarray(259)), toHex(ext), 'the request carries the extensions');
  throwsCode(() => issuer.issue(req.body), 'INVALID_ARGUMENT', 'no policy');
  throwsCode(() => issuer.issue(req.body, () => false), 'UNSUPPORTED_VALUE', 'policy refuses');
  throwsCode(() => issuer.issue(req.body, () => 1), 'UNSUPPORTED_VALUE', 'only true accepts');
  assert.throws(() => issuer.issue(req.body, () => { throw new Error('policy failed'); }), /policy failed/);
  const resp = issuer.issue(req.body, (e) => decodeExtensions(e).every((x) => x.type <= 2));
  const [token] = req.state.finalize(resp.body);
  assert.equal(key.verifyToken(token.toBytes(), challenge, ext), true);
  assert.equal(key.verifyTokenAnyChallenge(token.toBytes(), ext), true);
  assert.equal(key.verifyToken(token.toBytes(), challenge, encodeExtensions([])), false, 'other extensions');
  throwsCode(() => key.verifyToken(token.toBytes(), challenge), 'INVALID_INPUT');
  // Client refusals.
  throwsCode(() => createTokenRequest(challenge), 'INVALID_ARGUMENT', 'no extensions');
  throwsCode(() => createTokenRequest(challenge, { extensions: hex('0001') }), 'INVALID_LENGTH');
  // A 0x0002 issuer does not answer a 0xDA7A request, nor a 0xDA7A issuer a 0x0002 request.
  const plain = BlindRsaIssuer.fromPem(2, pem(METADATA[0]));
  throwsCode(() => plain.issue(req.body), 'INVALID_LENGTH', '0xDA7A request to a 0x0002 issuer');
  const r2 = createTokenRequest(challengeFor(2, plain));
  throwsCode(() => issuer.issue(r2.body, () => true), 'UNSUPPORTED_VALUE', '0x0002 request to a 0xDA7A issuer');
});

test('BlindRsaIssuer: keys in and out, refusals', () => {
  const issuer = BlindRsaIssuer.fromPem(2, pem(RFC9578[0]));
  const text = issuer.privateKeyPem();
  assert.match(text, /^-----BEGIN PRIVATE KEY-----\n/);
  const again = BlindRsaIssuer.fromPem(2, text);
  assert.equal(toHex(again.tokenKey), toHex(issuer.tokenKey));
  const der = BlindRsaIssuer.fromPkcs8Der(2, issuer.privateKeyDer());
  assert.equal(toHex(der.tokenKey), toHex(issuer.tokenKey));
  throwsCode(() => BlindRsaIssuer.fromPem(1, text), 'UNSUPPORTED_VALUE', 'type 1');
  throwsCode(() => BlindRsaIssuer.fromPem(2, 'not a key'), 'INVALID_KEY');
  throwsCode(() => BlindRsaIssuer.fromPem(2, hex('00')), 'INVALID_ARGUMENT');
  throwsCode(() => BlindRsaIssuer.fromPkcs8Der(2, new Uint8Array(8)), 'INVALID_KEY');
  throwsCode(() => BlindRsaIssuer.generate(5), 'UNSUPPORTED_VALUE');
  throwsCode(() => BlindRsaTokenKey.fromSpki(new Uint8Array(342)), 'INVALID_KEY');
  issuer.free();
  throwsCode(() => issuer.tokenKey, 'STATE_CONSUMED', 'a freed issuer');
});

test('BlindRsaIssuer.generate(0x0002): a fresh key that issues', { timeout: 600_000 }, () => {
  const issuer = BlindRsaIssuer.generate(2);
  const key = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const challenge = challengeFor(2, issuer);
  const req = createTokenRequest(challenge);
  const [token] = req.state.finalize(issuer.issue(req.body).body);
  assert.equal(key.verifyToken(token.toBytes(), challenge), true);
});

test('type 0xDA7A Authorization with extensions=: Token.authorizationHeader(extensions), authorizationHeader(bytes, extensions), parseAuthorizationWithExtensions round trip; malformed extensions and other token types refused', () => {
  const issuer = BlindRsaIssuer.fromPem(0xDA7A, pem(METADATA[0]));
  const key = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const challenge = challengeFor(0xDA7A, issuer);
  const ext = encodeExtensions([{ type: 7, data: Uint8Array.of(5, 6) }, { type: 1, data: Uint8Array.of(9) }]);
  const req = createTokenRequest(challenge, { extensions: ext });
  const [token] = req.state.finalize(issuer.issue(req.body, () => true).body);
  const bytes = token.toBytes();

  // Written: the token, then the extensions, both padded base64url.
  const header = token.authorizationHeader(ext);
  assert.equal(header, `PrivateToken token=${b64u(bytes)}, extensions=${b64u(ext)}`);
  assert.match(header, /^PrivateToken token=[A-Za-z0-9_-]+=*, extensions=[A-Za-z0-9_-]+=*$/);
  assert.equal(authorizationHeader(bytes, ext), header, 'the free function, on the bytes');
  assert.equal(Token.fromBytes(bytes).authorizationHeader(ext), header, 'a parsed token');
  // Without extensions: the token alone, as before.
  const plain = `PrivateToken token=${b64u(bytes)}`;
  for (const none of [undefined, null]) {
    assert.equal(token.authorizationHeader(none), plain);
    assert.equal(authorizationHeader(bytes, none), plain);
  }
  assert.equal(token.authorizationHeader(), plain);
  // The explicit empty list is written as given.
  assert.equal(token.authorizationHeader(encodeExtensions([])), `${plain}, extensions=AAA=`);

  // Parsed back: what the origin verifies with.
  const parsed = parseAuthorizationWithExtensions(header);
  assert.deepEqual(parsed.token, bytes);
  assert.deepEqual(parsed.extensions, ext);
  assert.equal(key.verifyToken(parsed.token, challenge, parsed.extensions), true);
  assert.deepEqual(parseAuthorization(header), bytes, 'parseAuthorization ignores extensions=');
  // Control: the header with other extensions parses to them, and the token does not verify.
  const other = encodeExtensions([{ type: 1, data: Uint8Array.of(9) }]);
  const parsedOther = parseAuthorizationWithExtensions(authorizationHeader(bytes, other));
  assert.deepEqual(parsedOther.extensions, other);
  assert.equal(key.verifyToken(parsedOther.token, challenge, parsedOther.extensions), false);
  // Without the parameter a 0xDA7A token's extensions are the empty list (which does not
  // verify this token); for a 0x0002 token they are undefined.
  const none = parseAuthorizationWithExtensions(plain);
  assert.deepEqual(none.extensions, Uint8Array.of(0, 0));
  assert.equal(key.verifyToken(none.token, challenge, none.extensions), false);
  // Other spellings of the same value: quoted, a name in capitals, unpadded, spaces.
  for (const h of [
    `PrivateToken token="${b64u(bytes)}", extensions="${b64u(ext)}"`,
    `privatetoken Extensions=${b64u(ext)},token=${b64u(bytes)}`,
    `PrivateToken  token = ${b64u(bytes).replace(/=+$/, '')} ,  extensions=${b64u(ext).replace(/=+$/, '')} `,
    `PrivateToken token=${b64u(bytes)}, , extensions=${b64u(ext)}, other="a, \\"b\\""`,
  ]) {
    const p = parseAuthorizationWithExtensions(h);
    assert.deepEqual(p.token, bytes, h);
    assert.deepEqual(p.extensions, ext, h);
  }

  // Refused when writing: bytes that are not one Extensions structure, not bytes.
  for (const write of [(e) => token.authorizationHeader(e), (e) => authorizationHeader(bytes, e)]) {
    throwsCode(() => write(hex('0005000100')), 'INVALID_LENGTH', 'short');
    throwsCode(() => write(hex('000000')), 'INVALID_LENGTH', 'trailing byte');
    throwsCode(() => write(new Uint8Array()), 'INVALID_LENGTH', 'empty bytes');
    throwsCode(() => write(hex('0008' + '00020000' + '00010000')), 'INVALID_ENCODING', 'out of order');
    throwsCode(() => write([0, 0]), 'INVALID_ARGUMENT', 'an array');
    throwsCode(() => write(b64u(ext)), 'INVALID_ARGUMENT', 'a string');
  }
  throwsCode(() => authorizationHeader(bytes.subarray(0, bytes.length - 1), ext), 'INVALID_LENGTH', 'a truncated 0xDA7A token');
  throwsCode(() => authorizationHeader(Uint8Array.of(0xda), ext), 'INVALID_ARGUMENT', 'one byte: no token type');
  // Refused when parsing: extensions= twice, not base64url, not one structure, a broken
  // parameter (which parseAuthorization skips), an unterminated quote, another scheme.
  const refusals = [
    [`${header}, extensions=${b64u(ext)}`, 'INVALID_ENCODING', 'extensions= twice'],
    [`${plain}, extensions=!!`, 'INVALID_ENCODING', 'not base64url'],
    [`${plain}, extensions=${b64u(hex('0005000100'))}`, 'INVALID_LENGTH', 'a short structure'],
    [`${plain}, extensions=${b64u(hex('0008' + '00020000' + '00010000'))}`, 'INVALID_ENCODING', 'out of order'],
    [`${header}, foo=bar baz`, 'INVALID_ENCODING', 'a broken parameter'],
    [`${plain}, extensions="${b64u(ext)}`, 'INVALID_ENCODING', 'an unterminated quote'],
    [`Bearer token=${b64u(bytes)}, extensions=${b64u(ext)}`, 'UNSUPPORTED_VALUE', 'another scheme'],
  ];
  for (const [h, code, what] of refusals) throwsCode(() => parseAuthorizationWithExtensions(h), code, what);
  assert.deepEqual(parseAuthorization(`${header}, foo=bar baz`), bytes, 'parseAuthorization is lenient there');

  // Other token types have no extensions: refused when writing; a 0x0002 header parses without.
  const rsa = BlindRsaIssuer.fromPem(2, pem(RFC9578[0]));
  const r2 = createTokenRequest(challengeFor(2, rsa));
  const [t2] = r2.state.finalize(rsa.issue(r2.body).body);
  throwsCode(() => t2.authorizationHeader(ext), 'INVALID_ARGUMENT', 'a 0x0002 token');
  throwsCode(() => t2.authorizationHeader(encodeExtensions([])), 'INVALID_ARGUMENT', 'a 0x0002 token, the empty list');
  throwsCode(() => authorizationHeader(t2.toBytes(), ext), 'INVALID_ARGUMENT', '0x0002 token bytes');
  const p2 = parseAuthorizationWithExtensions(t2.authorizationHeader());
  assert.deepEqual(p2.token, t2.toBytes());
  assert.equal(p2.extensions, undefined);
  assert.equal(BlindRsaTokenKey.fromSpki(rsa.tokenKey).verifyToken(p2.token, challengeFor(2, rsa), p2.extensions), true);
  // Given anyway, they are returned as given, and the origin's check refuses them.
  const p2ext = parseAuthorizationWithExtensions(`${t2.authorizationHeader()}, extensions=${b64u(ext)}`);
  assert.deepEqual(p2ext.extensions, ext);
  throwsCode(() => BlindRsaTokenKey.fromSpki(rsa.tokenKey).verifyToken(p2ext.token, challengeFor(2, rsa), p2ext.extensions), 'INVALID_INPUT');
  const voprf = PrivacyPassIssuer.derive(1, new Uint8Array(32), new Uint8Array());
  const r1 = createTokenRequest(Challenge.create({ tokenType: 1, issuerName: 'i', tokenKey: voprf.tokenKey }));
  const [t1] = r1.state.finalize(voprf.issue(r1.body, r1.contentType).body);
  throwsCode(() => t1.authorizationHeader(ext), 'INVALID_ARGUMENT', 'a 0x0001 token');
  throwsCode(() => authorizationHeader(t1.toBytes(), ext), 'INVALID_ARGUMENT', '0x0001 token bytes');
  assert.equal(parseAuthorizationWithExtensions(t1.authorizationHeader()).extensions, undefined);
});
