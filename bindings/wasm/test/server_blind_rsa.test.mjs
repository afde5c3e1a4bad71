// Blind RSA token types 0x0002 (RFC 9578 §6) and 0xDA7A (partially blind RSA with public
// metadata, draft-ietf-privacypass-public-metadata-issuance) against the issuer server of server/
// started as a real process (test/support/server.mjs) with `token_types = [2, 55930]` and
// `[pbrsa] allowed_extension_types = [1, 7]`, `max_extensions_bytes = 64` (its 0xDA7A safe-prime
// keys take seconds to derive: the start gets a long timeout).
//
// Two clients, each over HTTP: the 401 of /private parsed (one WWW-Authenticate line per type,
// token-key the RSASSA-PSS SPKI), the request POSTed to /token-request, the response finalized,
// the token redeemed at /private (200) and replayed (401 `token already spent`):
// - @cloudflare/privacypass-ts 0.8.1: its publicVerif Client (BlindRSAMode.PSS) for 0x0002 and
//   its ClientWithMetadata for 0xDA7A (its Origin / OriginWithMetadata also accept the server's
//   tokens under the token-key, an independent check of the server's signatures);
// - our package's createTokenRequest (0x0002, and 0xDA7A with `extensions`).
// A 0xDA7A token is redeemed with `Authorization: PrivateToken token=..., extensions=<base64url
// of the Extensions>` (draft-ietf-privacypass-auth-scheme-extensions; absent = the empty list).
// privacypass-ts 0.8.1's AuthorizationHeader.toString() drops the extensions it was given (it
// writes only `token=`; its parser reads `extensions=`), so its header of a 0xDA7A token with
// non-empty extensions is refused (401 invalid token): the test shows that and builds the header
// with the parameter. Our Token.authorizationHeader(extensions) and authorizationHeader(bytes,
// extensions) write it (the same padded form; privacypass-ts's parser and our
// parseAuthorizationWithExtensions read it back): our 0xDA7A token is redeemed with that header.
//
// Every acceptance has refusals beside it, made before it so they are seen not to spend the
// token: a flipped authenticator or nonce byte (401 invalid token), no / other / empty / not
// allowed / malformed extensions (401), `extensions=` on a 0x0002 token (401), a PSSZero token
// (401); at issuance a not-allowed extension type, extensions over max_extensions_bytes, an
// unknown truncated key id and a short request (422).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as pp from '@cloudflare/privacypass-ts';
import {
  parseChallenges, createTokenRequest, encodeExtensions, Token, BlindRsaTokenKey,
  authorizationHeader, parseAuthorizationWithExtensions,
} from 'privacy-tokens';
import { startServer } from './support/server.mjs';
import { webCryptoPublicKey } from './support/rsa_keys.mjs';

const pv = pp.publicVerif;
const { BlindRSAMode } = pv;
const { WWWAuthenticateHeader, AuthorizationHeader, Extension, Extensions } = pp;
const TYPE_RSA = 0x0002;
const TYPE_PBRSA = 0xda7a;
const ALLOWED = [1, 7];
const MAX_EXT = 64;

let server;
before(async () => {
  server = await startServer({
    toml: 'token_types = [2, 55930]',
    tables: `[pbrsa]\nallowed_extension_types = [${ALLOWED.join(', ')}]\nmax_extensions_bytes = ${MAX_EXT}`,
    readyTimeoutMs: 15 * 60 * 1000, // three 0xDA7A safe-prime keys derived at start
  });
}, { timeout: 20 * 60 * 1000 }); // may build the server first
after(async () => {
  if (!server) return;
  const exit = await server.stop();
  assert.equal(exit.code, 0, `server exit ${JSON.stringify(exit)}`);
});

// Padded base64url, as the server writes it and privacypass-ts's parser (rfc4648, strict)
// requires; the server also takes it unpadded.
const b64u = (bytes) => {
  const s = Buffer.from(bytes).toString('base64url');
  return s + '='.repeat((4 - (s.length % 4)) % 4);
};
const flip = (bytes, i) => { const b = Uint8Array.from(bytes); b[i < 0 ? b.length + i : i] ^= 1; return b; };
const tokenHeader = (bytes, extensions) => `PrivateToken token=${b64u(bytes)}`
  + (extensions === undefined ? '' : `, extensions=${b64u(extensions)}`);

/** GET /private without a token: the 401, its joined WWW-Authenticate value, both parses. */
async function challenges() {
  const res = await fetch(`${server.url}/private`);
  await res.arrayBuffer();
  assert.equal(res.status, 401);
  const header = res.headers.get('www-authenticate');
  assert.ok(header, 'a WWW-Authenticate header');
  return { header, theirs: WWWAuthenticateHeader.parse(header), ours: parseChallenges(header) };
}

/** privacypass-ts's parse of the challenge of `type` (its TokenChallenge and token-key). */
async function theirChallenge(type) {
  const www = (await challenges()).theirs.find((h) => h.challenge.tokenType === type);
  assert.ok(www, `privacypass-ts finds the 0x${type.toString(16)} challenge`);
  return www;
}

async function ourChallenge(type) {
  const c = (await challenges()).ours.find((x) => x.tokenType === type);
  assert.ok(c, `a challenge of type 0x${type.toString(16)}`);
  return c;
}

async function post(body, contentType = 'application/private-token-request') {
  const res = await fetch(`${server.url}/token-request`, {
    method: 'POST', headers: { 'content-type': contentType }, body,
  });
  return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function redeem(authorization) {
  const res = await fetch(`${server.url}/private`, { headers: { authorization } });
  return { status: res.status, text: await res.text() };
}

/** A refusal at /private: 401 with fresh challenges and the reason in the body. */
async function refused(authorization, reason, what) {
  const r = await redeem(authorization);
  assert.equal(r.status, 401, `${what}: ${r.text}`);
  assert.match(r.text, reason, what);
}

/** Redeemed once (200), then replayed (401 token already spent). */
async function redeemOnce(authorization, what) {
  const ok = await redeem(authorization);
  assert.equal(ok.status, 200, `${what}: ${ok.text}`);
  await refused(authorization, /token already spent/, `${what} replayed`);
}

test('server (blind RSA): GET /private answers 401 with one PrivateToken line per type, 0x0002 and 0xDA7A, parsed by privacypass-ts and by us alike', async () => {
  const { header, theirs, ours } = await challenges();
  assert.equal(header.match(/PrivateToken /g).length, 2);
  assert.deepEqual(theirs.map((h) => h.challenge.tokenType).sort((a, b) => a - b), [TYPE_RSA, TYPE_PBRSA]);
  assert.deepEqual(ours.map((c) => c.tokenType).sort((a, b) => a - b), [TYPE_RSA, TYPE_PBRSA]);
  for (const c of ours) {
    const www = theirs.find((h) => h.challenge.tokenType === c.tokenType);
    assert.equal(c.supported, true);
    assert.equal(c.issuerName, server.host);
    assert.equal(c.originInfo, server.host);
    assert.deepEqual(www.challenge.serialize(), c.toBytes(), 'one challenge encoding');
    assert.deepEqual(www.tokenKey, c.tokenKey, 'one token-key');
    assert.equal(c.tokenKey.length, 342, 'RSA-2048 RSASSA-PSS SPKI (RFC 9578 §6.5)');
    assert.ok(www.maxAge > 0);
    // The token-key is a key privacypass-ts's WebCrypto import takes (RSA-PSS, SHA-384).
    const key = await webCryptoPublicKey(c.tokenKey);
    assert.equal(key.algorithm.name, 'RSA-PSS');
    assert.equal(key.algorithm.modulusLength, 2048);
  }
  const [a, b] = ours;
  assert.notDeepEqual(a.tokenKey, b.tokenKey, 'one key per type');
  // The directory publishes the challenges' keys under their types.
  const dir = await (await fetch(`${server.url}/.well-known/private-token-issuer-directory`)).json();
  for (const c of ours) {
    const keys = dir['token-keys'].filter((k) => k['token-type'] === c.tokenType)
      .map((k) => Buffer.from(k['token-key'], 'base64url').toString('hex'));
    assert.ok(keys.includes(Buffer.from(c.tokenKey).toString('hex')), `directory key of 0x${c.tokenType.toString(16)}`);
  }
});

test('server (blind RSA): privacypass-ts\'s type 0x0002 Client (PSS) gets a token from /token-request, /private redeems it once; tampered tokens, extensions= and a PSSZero token 401, bad requests 422', async () => {
  const www = await theirChallenge(TYPE_RSA);
  const client = new pv.Client(BlindRSAMode.PSS);
  const req = (await client.createTokenRequest(www.challenge, www.tokenKey)).serialize();
  assert.equal(req.length, 259);
  // Issuance refusals first: an unknown truncated key id, a short request.
  assert.equal((await post(flip(req, 2))).status, 422, 'unknown truncated key id');
  assert.equal((await post(req.subarray(0, 258))).status, 422, 'short request');
  const res = await post(req);
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/private-token-response');
  assert.equal(res.bytes.length, 256);
  const token = await client.finalize(client.deserializeTokenResponse(res.bytes));
  const bytes = token.serialize();
  assert.equal(bytes.length, 2 + 32 + 32 + 32 + 256);
  // The server's signature checks out independently: privacypass-ts's Origin under the
  // token-key (WebCrypto RSA-PSS, salt 48), and our BlindRsaTokenKey.
  const publicKey = await webCryptoPublicKey(www.tokenKey);
  assert.equal(await new pv.Origin(BlindRSAMode.PSS, [server.host]).verify(token, publicKey), true);
  assert.equal(BlindRsaTokenKey.fromSpki(www.tokenKey).verifyToken(bytes, www.challenge.serialize()), true);

  const authorization = new AuthorizationHeader(token).toString();
  // Its header: the token in base64url (padded).
  const m = authorization.match(/^PrivateToken token=([A-Za-z0-9_-]+=*)$/);
  assert.ok(m, authorization);
  assert.deepEqual(new Uint8Array(Buffer.from(m[1], 'base64url')), bytes);
  // Refusals, none of which spends the token.
  await refused(tokenHeader(flip(bytes, -1)), /invalid token/, 'flipped authenticator byte');
  await refused(tokenHeader(flip(bytes, 2)), /invalid token/, 'flipped nonce byte');
  await refused(`${authorization}, extensions=${b64u(encodeExtensions([]))}`, /unexpected extensions/, 'extensions= on a 0x0002 token');
  // privacypass-ts's PSSZero mode (salt length 0) is not type 0x0002: the issuer signs its
  // blinded message (the blind signature does not depend on the mode), the origin refuses it.
  const zero = new pv.Client(BlindRSAMode.PSSZero);
  const zeroRes = await post((await zero.createTokenRequest(www.challenge, www.tokenKey)).serialize());
  assert.equal(zeroRes.status, 200);
  const zeroToken = await zero.finalize(zero.deserializeTokenResponse(zeroRes.bytes));
  await refused(new AuthorizationHeader(zeroToken).toString(), /invalid token/, 'a PSSZero token');

  await redeemOnce(authorization, 'privacypass-ts 0x0002 token');
});

test('server (blind RSA): privacypass-ts\'s ClientWithMetadata gets a 0xDA7A token for allowed extensions; /private redeems it once with extensions=, refuses it without, with other, empty, not-allowed or malformed extensions, or tampered', async () => {
  const www = await theirChallenge(TYPE_PBRSA);
  const ext = new Extensions([new Extension(1, Uint8Array.of(42)), new Extension(7, Uint8Array.of(1, 2, 3))]);
  const extBytes = ext.serialize();
  const client = new pv.ClientWithMetadata(BlindRSAMode.PSS, ext);
  const req = (await client.createTokenRequest(www.challenge, www.tokenKey)).serialize();
  assert.deepEqual(req.subarray(259), extBytes, 'ExtendedTokenRequest = TokenRequest ‖ Extensions');
  assert.equal((await post(flip(req, 2))).status, 422, 'unknown truncated key id');
  const res = await post(req);
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/private-token-response');
  const token = await client.finalize(client.deserializeTokenResponse(res.bytes));
  const bytes = token.serialize();
  assert.equal(bytes[0] << 8 | bytes[1], TYPE_PBRSA);
  // Independent checks of the server's signature under the extensions' derived key.
  const publicKey = await webCryptoPublicKey(www.tokenKey);
  assert.equal(await new pv.OriginWithMetadata(BlindRSAMode.PSS, ext, [server.host]).verify(token, publicKey), true);
  const other = new Extensions([new Extension(1, Uint8Array.of(43))]);
  assert.equal(await new pv.OriginWithMetadata(BlindRSAMode.PSS, other, [server.host]).verify(token, publicKey), false);
  assert.equal(BlindRsaTokenKey.fromSpki(www.tokenKey).verifyToken(bytes, www.challenge.serialize(), extBytes), true);

  // privacypass-ts's AuthorizationHeader keeps the extensions but its toString() writes only
  // the token: the server verifies that under the empty list and refuses it.
  const theirs = new AuthorizationHeader(token, ext).toString();
  assert.doesNotMatch(theirs, /extensions=/, 'privacypass-ts 0.8.1 drops extensions= (if this fails, it was fixed)');
  await refused(theirs, /invalid token/, 'privacypass-ts\'s header (no extensions=)');
  // The header with the parameter; privacypass-ts's own parser reads it back.
  const authorization = tokenHeader(bytes, extBytes);
  const [parsed] = AuthorizationHeader.parse(pp.TOKEN_TYPES.PARTIALLY_BLIND_RSA, authorization);
  assert.deepEqual(parsed.token.serialize(), bytes);
  assert.deepEqual(parsed.extensions.serialize(), extBytes);
  // Our writer gives the same header for the token's bytes; our parser reads it back.
  assert.equal(authorizationHeader(bytes, extBytes), authorization);
  const ours = parseAuthorizationWithExtensions(authorization);
  assert.deepEqual(ours.token, bytes);
  assert.deepEqual(ours.extensions, extBytes);
  // Refusals, none of which spends the token.
  await refused(tokenHeader(bytes), /invalid token/, 'no extensions=');
  await refused(tokenHeader(bytes, other.serialize()), /invalid token/, 'other (allowed) extensions');
  await refused(tokenHeader(bytes, new Extensions([new Extension(1, Uint8Array.of(42))]).serialize()), /invalid token/, 'a subset of its extensions');
  await refused(tokenHeader(bytes, Uint8Array.of(0, 0)), /invalid token/, 'the empty list, explicit');
  await refused(tokenHeader(bytes, new Extensions([new Extension(1, Uint8Array.of(42)), new Extension(3, Uint8Array.of(1, 2, 3))]).serialize()),
    /extensions not allowed/, 'an extension type not allowed');
  await refused(tokenHeader(bytes, Uint8Array.of(0, 5, 0, 1)), /malformed extensions/, 'malformed extensions');
  await refused(tokenHeader(flip(bytes, -1), extBytes), /invalid token/, 'flipped authenticator byte');
  await refused(tokenHeader(flip(bytes, 2), extBytes), /invalid token/, 'flipped nonce byte');
  await refused(`PrivateToken token=${b64u(bytes)}, extensions=${b64u(extBytes)}, extensions=${b64u(extBytes)}`,
    /malformed authorization/, 'extensions= twice');

  await redeemOnce(authorization, 'privacypass-ts 0xDA7A token');
});

test('server (blind RSA): privacypass-ts\'s ClientWithMetadata with the empty Extensions: redeemed without extensions= (absent = the empty list), refused with some', async () => {
  const www = await theirChallenge(TYPE_PBRSA);
  const ext = new Extensions([]);
  const client = new pv.ClientWithMetadata(BlindRSAMode.PSS, ext);
  const res = await post((await client.createTokenRequest(www.challenge, www.tokenKey)).serialize());
  assert.equal(res.status, 200);
  const token = await client.finalize(client.deserializeTokenResponse(res.bytes));
  const bytes = token.serialize();
  await refused(tokenHeader(bytes, new Extensions([new Extension(1, Uint8Array.of(42))]).serialize()), /invalid token/, 'with extensions');
  await refused(tokenHeader(flip(bytes, -1)), /invalid token/, 'flipped authenticator byte');
  // Here privacypass-ts's own header is right: the token alone.
  await redeemOnce(new AuthorizationHeader(token, ext).toString(), 'privacypass-ts 0xDA7A token, empty extensions');
});

test('server (blind RSA): 0xDA7A issuance refuses (422) an extension type outside allowed_extension_types and extensions over max_extensions_bytes; the same request shape with allowed ones is 200', async () => {
  const www = await theirChallenge(TYPE_PBRSA);
  const request = async (list) => (await new pv.ClientWithMetadata(BlindRSAMode.PSS, new Extensions(list))
    .createTokenRequest(www.challenge, www.tokenKey)).serialize();
  const cases = [
    ['type 3 alone', [new Extension(3, Uint8Array.of(1))]],
    ['types 1 and 3', [new Extension(1, Uint8Array.of(1)), new Extension(3, Uint8Array.of(1))]],
    ['type 0', [new Extension(0, new Uint8Array())]],
    [`${MAX_EXT + 1} bytes of allowed types`, [new Extension(1, new Uint8Array(MAX_EXT + 1 - 2 - 4))]],
  ];
  for (const [what, list] of cases) {
    const r = await post(await request(list));
    assert.equal(r.status, 422, what);
    assert.match(new TextDecoder().decode(r.bytes), /extensions not allowed/, what);
  }
  // Controls: allowed types, and exactly max_extensions_bytes.
  for (const [what, list] of [
    ['type 7', [new Extension(7, Uint8Array.of(1))]],
    [`${MAX_EXT} bytes`, [new Extension(1, new Uint8Array(MAX_EXT - 2 - 4))]],
  ]) {
    assert.equal((await post(await request(list))).status, 200, what);
  }
});

test('server (blind RSA): our client, type 0x0002: createTokenRequest on the parsed challenge, token redeemed once (200), tampered 401', async () => {
  const c = await ourChallenge(TYPE_RSA);
  const req = createTokenRequest(c);
  assert.equal(req.contentType, 'application/private-token-request');
  assert.equal(req.body.length, 259);
  const res = await post(req.body, req.contentType);
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/private-token-response');
  const [token] = req.state.finalize(res.bytes);
  assert.equal(token.tokenType, TYPE_RSA);
  assert.deepEqual(token.challengeDigest, c.digest);
  const bytes = token.toBytes();
  // privacypass-ts's Origin accepts it under the token-key too.
  const ppToken = pp.Token.deserialize(pp.TOKEN_TYPES.BLIND_RSA, bytes);
  assert.equal(await new pv.Origin(BlindRSAMode.PSS, [server.host]).verify(ppToken, await webCryptoPublicKey(c.tokenKey)), true);
  await refused(tokenHeader(flip(bytes, -1)), /invalid token/, 'flipped authenticator byte');
  await refused(tokenHeader(flip(bytes, 40)), /unknown challenge/, 'flipped challenge digest byte');
  await redeemOnce(token.authorizationHeader(), 'our 0x0002 token');
  await refused(Token.fromBytes(bytes).authorizationHeader(), /token already spent/, 'the same token parsed again');
});

test('server (blind RSA): our client, type 0xDA7A with extensions: redeemed once with extensions= (200), without or with others 401; a not-allowed type 422 at issuance', async () => {
  const c = await ourChallenge(TYPE_PBRSA);
  const ext = encodeExtensions([{ type: 7, data: Uint8Array.of(5, 6) }, { type: 1, data: Uint8Array.of(9) }]);
  const req = createTokenRequest(c, { extensions: ext });
  assert.equal(req.state.tokenType, TYPE_PBRSA);
  const res = await post(req.body, req.contentType);
  assert.equal(res.status, 200);
  const [token] = req.state.finalize(res.bytes);
  assert.equal(token.tokenType, TYPE_PBRSA);
  const bytes = token.toBytes();
  const ppExt = new Extensions([new Extension(1, Uint8Array.of(9)), new Extension(7, Uint8Array.of(5, 6))]);
  assert.deepEqual(ppExt.serialize(), ext);
  const ppToken = pp.Token.deserialize(pp.TOKEN_TYPES.PARTIALLY_BLIND_RSA, bytes);
  assert.equal(await new pv.OriginWithMetadata(BlindRSAMode.PSS, ppExt, [server.host]).verify(ppToken, await webCryptoPublicKey(c.tokenKey)), true);
  // Our Token.authorizationHeader(extensions): the token and extensions=, padded as the
  // server writes them; privacypass-ts's parser and ours read it back.
  const authorization = token.authorizationHeader(ext);
  assert.equal(authorization, tokenHeader(bytes, ext));
  assert.equal(authorizationHeader(bytes, ext), authorization, 'the free function on the bytes');
  const [theirs] = AuthorizationHeader.parse(pp.TOKEN_TYPES.PARTIALLY_BLIND_RSA, authorization);
  assert.deepEqual(theirs.token.serialize(), bytes);
  assert.deepEqual(theirs.extensions.serialize(), ext);
  const ours = parseAuthorizationWithExtensions(authorization);
  assert.equal(BlindRsaTokenKey.fromSpki(c.tokenKey).verifyToken(ours.token, c, ours.extensions), true);
  // Refusals, none of which spends the token: without extensions= (the empty list), with
  // others, a flipped authenticator byte.
  const plain = token.authorizationHeader();
  assert.doesNotMatch(plain, /extensions=/);
  await refused(plain, /invalid token/, 'no extensions=');
  await refused(token.authorizationHeader(encodeExtensions([{ type: 1, data: Uint8Array.of(9) }])), /invalid token/, 'other extensions');
  await refused(token.authorizationHeader(encodeExtensions([])), /invalid token/, 'the empty list, explicit');
  await refused(tokenHeader(flip(bytes, -1), ext), /invalid token/, 'flipped authenticator byte');
  await redeemOnce(authorization, 'our 0xDA7A token');

  const refusedReq = createTokenRequest(c, { extensions: encodeExtensions([{ type: 2, data: Uint8Array.of(1) }]) });
  const r = await post(refusedReq.body, refusedReq.contentType);
  assert.equal(r.status, 422, 'extension type 2 is not allowed here');
  assert.match(new TextDecoder().decode(r.bytes), /extensions not allowed/);
});
