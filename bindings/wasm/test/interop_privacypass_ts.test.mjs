// Interop with Cloudflare's @cloudflare/privacypass-ts 0.8.1 (on @cloudflare/voprf-ts 1.0.0 and
// @cloudflare/blindrsa-ts 0.4.3), in-process, in both directions.
//
// Type 0x0001 VOPRF(P-384, SHA-384): tokens our package makes verify with privacypass-ts's Origin
// (its privately verifiable origin/issuer check, VOPRFServer.verifyFinalize under the issuer's
// private key), and a privacypass-ts Client gets tokens from our package's PrivacyPassIssuer that
// our verifyToken accepts. Also privacypass-ts's header parsers on ours, our client against
// privacypass-ts's Issuer, and a privacypass-ts client against the server process.
//
// Type 0x0002 (blind RSA, RFC 9578 §6: RSABSSA-SHA384-PSS-Deterministic) through privacypass-ts's
// `publicVerif` Issuer / Client / Origin in `BlindRSAMode.PSS`, on a key privacypass-ts generates
// with WebCrypto (its PKCS#8 export, WebCrypto's exportKey('pkcs8'), loads into our
// BlindRsaIssuer): our client gets tokens from its Issuer, its Client from our BlindRsaIssuer, and
// each side's tokens verify with the other side's origin check (its Origin.verify, WebCrypto's
// RSA-PSS verify; our BlindRsaTokenKey.verifyToken).
//
// Type 0xDA7A (partially blind RSA, public metadata): privacypass-ts 0.8.1 has it
// (`IssuerWithMetadata`, `ClientWithMetadata`, `OriginWithMetadata`, `Extensions`), tested the same
// way both directions, on the key of privacypass-ts's own 0xDA7A vector (safe primes: its
// IssuerWithMetadata.generateKey searches safe primes in JavaScript: it had not returned after 10
// minutes here).
//
// `BlindRSAMode.PSSZero` (RSABSSA-SHA384-PSSZERO-Deterministic, salt length 0) is privacypass-ts's
// other mode; RFC 9578 fixes type 0x0002 to salt length 48 (PSS), and our API makes and checks
// only that, so a PSSZero token is refused by our origin check and ours by privacypass-ts's
// PSSZero Origin: the last blind RSA test shows both refusals (beside the PSS acceptances).
//
// Every acceptance has a refusal beside it (a flipped byte, another key, challenge or extensions).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as pp from '@cloudflare/privacypass-ts';
import {
  Challenge, PrivacyPassIssuer, createTokenRequest, parseChallenges, parseAuthorization, Token,
  BlindRsaIssuer, BlindRsaTokenKey, encodeExtensions, decodeExtensions,
} from 'privacy-tokens';
import { startServer } from './support/server.mjs';
import {
  generateWebCryptoKey, webCryptoKeyPair, webCryptoPublicKey, da7aVectorKey,
} from './support/rsa_keys.mjs';

const { Origin, Client, Issuer, TokenRequest: PpTokenRequest, VOPRF } = pp.privateVerif;
const { Token: PpToken, TokenChallenge, WWWAuthenticateHeader, AuthorizationHeader } = pp;

const require = createRequire(import.meta.url);
const ppVersion = JSON.parse(readFileSync(require.resolve('@cloudflare/privacypass-ts/package.json'), 'utf8')).version;

const ISSUER = 'issuer.example';
const ORIGIN = 'origin.example';

/** One of our issuers and a type 0x0001 challenge carrying its key, in both libraries' forms. */
function setup() {
  const issuer = PrivacyPassIssuer.generate(0x0001);
  const redemptionContext = crypto.getRandomValues(new Uint8Array(32));
  const ours = Challenge.create({
    tokenType: 0x0001, issuerName: ISSUER, originInfo: ORIGIN, redemptionContext,
    tokenKey: issuer.tokenKey, maxAge: 60,
  });
  const theirs = new TokenChallenge(0x0001, ISSUER, redemptionContext, [ORIGIN]);
  return { issuer, ours, theirs };
}

test('privacypass-ts: the installed version is the pinned 0.8.1', () => {
  assert.equal(ppVersion, '0.8.1');
});

test('privacypass-ts: challenges serialize to the same bytes, and it parses our WWW-Authenticate header', () => {
  const { issuer, ours, theirs } = setup();
  assert.deepEqual(ours.toBytes(), theirs.serialize());
  const [parsed] = WWWAuthenticateHeader.parse(ours.toHeader());
  assert.deepEqual(parsed.challenge.serialize(), ours.toBytes());
  assert.deepEqual(parsed.tokenKey, issuer.tokenKey);
  assert.equal(parsed.maxAge, 60);
  // And the other way: privacypass-ts's header, parsed by ours.
  const header = new WWWAuthenticateHeader(theirs, issuer.tokenKey, 60).toString();
  const [back] = parseChallenges(header);
  assert.deepEqual(back.toBytes(), theirs.serialize());
  assert.deepEqual(back.tokenKey, issuer.tokenKey);
});

test('privacypass-ts: Origin.verify accepts type 0x0001 tokens made by our client and issuer (single and batch), rejects tampered ones', async () => {
  const { issuer, ours } = setup();
  const origin = new Origin([ORIGIN]);
  const sk = issuer.secretKey();
  assert.equal(sk.length, 48);

  const single = createTokenRequest(ours);
  const [token] = single.state.finalize(issuer.issue(single.body, single.contentType).body);
  const batch = createTokenRequest(ours, { count: 10 });
  const batchTokens = batch.state.finalize(issuer.issue(batch.body, batch.contentType).body);
  assert.equal(batchTokens.length, 10);

  for (const t of [token, ...batchTokens]) {
    const theirs = PpToken.deserialize(VOPRF, t.toBytes());
    assert.deepEqual(theirs.serialize(), t.toBytes());
    assert.equal(await origin.verify(theirs, sk), true);
    // The authenticator input binds our challenge: SHA-256 of its bytes.
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', ours.toBytes()));
    assert.deepEqual(theirs.authInput.challengeDigest, digest);
  }
  // Its Authorization header parser reads ours.
  const [auth] = AuthorizationHeader.parse(VOPRF, token.authorizationHeader());
  assert.deepEqual(auth.token.serialize(), token.toBytes());

  // A flipped authenticator bit, a flipped nonce bit, another issuer's key: false.
  const bytes = token.toBytes();
  const flipAuth = bytes.slice(); flipAuth[flipAuth.length - 1] ^= 1;
  const flipNonce = bytes.slice(); flipNonce[2] ^= 1;
  assert.equal(await origin.verify(PpToken.deserialize(VOPRF, flipAuth), sk), false);
  assert.equal(await origin.verify(PpToken.deserialize(VOPRF, flipNonce), sk), false);
  const other = PrivacyPassIssuer.generate(0x0001);
  assert.equal(await origin.verify(PpToken.deserialize(VOPRF, bytes), other.secretKey()), false);
  // privacypass-ts's Issuer built from our key pair verifies it too.
  const ppIssuer = new Issuer(ISSUER, sk, issuer.tokenKey);
  assert.equal(await ppIssuer.verify(PpToken.deserialize(VOPRF, bytes)), true);
  assert.deepEqual(await ppIssuer.tokenKeyID(), issuer.tokenKeyId);
});

test('privacypass-ts: its Client gets type 0x0001 tokens from our PrivacyPassIssuer.issue, and our verifyToken accepts them', async () => {
  const { issuer, ours, theirs } = setup();
  for (let i = 0; i < 3; i++) {
    const client = new Client();
    const req = await client.createTokenRequest(theirs, issuer.tokenKey);
    const reqBytes = req.serialize();
    assert.equal(reqBytes.length, 52);
    const res = issuer.issue(reqBytes, 'application/private-token-request');
    assert.equal(res.contentType, 'application/private-token-response');
    const token = await client.finalize(client.deserializeTokenResponse(res.body));
    const tokenBytes = token.serialize();
    assert.equal(issuer.verifyToken(tokenBytes, ours.toBytes()), true);
    assert.equal(issuer.verifyToken(tokenBytes, ours), true);
    assert.equal(issuer.verifyTokenAnyChallenge(tokenBytes), true);
    // Our parsers read its token and Authorization header.
    const parsed = Token.fromBytes(tokenBytes);
    assert.deepEqual(parsed.challengeDigest, ours.digest);
    assert.deepEqual(parsed.tokenKeyId, issuer.tokenKeyId);
    const header = new AuthorizationHeader(token).toString();
    assert.deepEqual(parseAuthorization(header), tokenBytes);
    // Tampered, or checked against another challenge or issuer: false.
    const bad = tokenBytes.slice(); bad[bad.length - 1] ^= 1;
    assert.equal(issuer.verifyToken(bad, ours), false);
    assert.equal(issuer.verifyToken(tokenBytes, setup().ours.toBytes()), false);
    assert.equal(PrivacyPassIssuer.generate(0x0001).verifyToken(tokenBytes, ours), false);
  }
});

test('privacypass-ts: our client finalizes a response of its Issuer (our key pair), and both sides verify the token', async () => {
  const { issuer, ours } = setup();
  const ppIssuer = new Issuer(ISSUER, issuer.secretKey(), issuer.tokenKey);
  const req = createTokenRequest(ours);
  const ppRes = await ppIssuer.issue(PpTokenRequest.deserialize(req.body));
  const [token] = req.state.finalize(ppRes.serialize());
  assert.equal(issuer.verifyToken(token.toBytes(), ours.toBytes()), true);
  assert.equal(await ppIssuer.verify(PpToken.deserialize(VOPRF, token.toBytes())), true);
});

test('privacypass-ts: its Client parses the server process\'s 401, gets a type 0x0001 token from /token-request, and it redeems once', { timeout: 20 * 60 * 1000 }, async () => {
  const server = await startServer();
  try {
    const res = await fetch(`${server.url}/private`);
    await res.arrayBuffer();
    assert.equal(res.status, 401);
    const headers = WWWAuthenticateHeader.parse(res.headers.get('www-authenticate'));
    const www = headers.find((h) => h.challenge.tokenType === 0x0001);
    assert.ok(www, 'privacypass-ts finds the 0x0001 challenge');
    const client = new Client();
    const req = await client.createTokenRequest(www.challenge, www.tokenKey);
    const tr = await fetch(`${server.url}/token-request`, {
      method: 'POST',
      headers: { 'content-type': 'application/private-token-request' },
      body: req.serialize(),
    });
    assert.equal(tr.status, 200);
    const token = await client.finalize(client.deserializeTokenResponse(new Uint8Array(await tr.arrayBuffer())));
    const authorization = new AuthorizationHeader(token).toString();
    const ok = await fetch(`${server.url}/private`, { headers: { authorization } });
    assert.equal(ok.status, 200, await ok.text());
    const replay = await fetch(`${server.url}/private`, { headers: { authorization } });
    assert.equal(replay.status, 401);
    assert.match(await replay.text(), /already spent/);
  } finally {
    await server.stop();
  }
});

test('privacypass-ts: its genericBatched Client gets three type 0x0001 tokens in one generic batch from the server process, each redeems once', { timeout: 20 * 60 * 1000 }, async () => {
  const server = await startServer();
  try {
    const res = await fetch(`${server.url}/private`);
    await res.arrayBuffer();
    const www = WWWAuthenticateHeader.parse(res.headers.get('www-authenticate'))
      .find((h) => h.challenge.tokenType === 0x0001);
    assert.ok(www, 'privacypass-ts finds the 0x0001 challenge');
    const clients = [new Client(), new Client(), new Client()];
    const requests = [];
    for (const c of clients) {
      requests.push(new pp.genericBatched.TokenRequest(await c.createTokenRequest(www.challenge, www.tokenKey)));
    }
    const batch = new pp.genericBatched.Client().createTokenRequest(requests);
    const tr = await fetch(`${server.url}/token-request`, {
      method: 'POST',
      headers: { 'content-type': pp.MediaType.ARBITRARY_BATCHED_TOKEN_REQUEST },
      body: batch.serialize(),
    });
    assert.equal(tr.status, 200);
    assert.equal(tr.headers.get('content-type'), pp.MediaType.ARBITRARY_BATCHED_TOKEN_RESPONSE);
    const response = new pp.genericBatched.Client()
      .deserializeTokenResponse(new Uint8Array(await tr.arrayBuffer()));
    assert.equal(response.tokenResponses.length, 3);
    const authorizations = [];
    for (const [i, r] of response.tokenResponses.entries()) {
      assert.equal(r.tokenType, 0x0001);
      assert.ok(r.tokenResponse, `response ${i} present`);
      const token = await clients[i].finalize(r.tokenResponse);
      authorizations.push(new AuthorizationHeader(token).toString());
    }
    assert.equal(new Set(authorizations).size, 3);
    for (const authorization of authorizations) {
      const ok = await fetch(`${server.url}/private`, { headers: { authorization } });
      assert.equal(ok.status, 200, await ok.text());
    }
    for (const authorization of authorizations) {
      const replay = await fetch(`${server.url}/private`, { headers: { authorization } });
      assert.equal(replay.status, 401);
      await replay.arrayBuffer();
    }
  } finally {
    await server.stop();
  }
});

// ---- Blind RSA: types 0x0002 and 0xDA7A ----------------------------------------------------

const pv = pp.publicVerif;
const { BlindRSAMode } = pv;
const BLIND_RSA = pp.TOKEN_TYPES.BLIND_RSA;
const PARTIALLY_BLIND_RSA = pp.TOKEN_TYPES.PARTIALLY_BLIND_RSA;
const blindRsaVersion = JSON.parse(readFileSync(
  createRequire(require.resolve('@cloudflare/privacypass-ts')).resolve('@cloudflare/blindrsa-ts/package.json'), 'utf8',
)).version;

/** A type 0x0002 / 0xDA7A challenge in both libraries' forms (a fresh redemption context). */
function rsaChallenge(tokenType, tokenKey, origin = ORIGIN) {
  const redemptionContext = crypto.getRandomValues(new Uint8Array(32));
  const theirs = new TokenChallenge(tokenType, ISSUER, redemptionContext, [origin]);
  const ours = Challenge.create({ tokenType, issuerName: ISSUER, originInfo: origin, redemptionContext, tokenKey });
  return { ours, theirs };
}

const flip = (bytes, i) => { const b = bytes.slice(); b[i < 0 ? b.length + i : i] ^= 1; return b; };

// One privacypass-ts key pair for the type 0x0002 tests (WebCrypto key generation takes ~0.3 s).
let rsaKeyPromise;
const rsaKey = () => (rsaKeyPromise ??= generateWebCryptoKey(BlindRSAMode.PSS));

test('privacypass-ts (blind RSA): blindrsa-ts is 0.4.3; a WebCrypto RSA-PSS key privacypass-ts generated loads into our BlindRsaIssuer (PKCS#8) with the same token-key bytes', async () => {
  assert.equal(blindRsaVersion, '0.4.3');
  const key = await rsaKey();
  assert.equal(key.privateKey.algorithm.name, 'RSA-PSS');
  const issuer = BlindRsaIssuer.fromPkcs8Der(0x0002, key.pkcs8);
  assert.deepEqual(issuer.tokenKey, key.tokenKey, 'our SPKI equals privacypass-ts getPublicKeyBytes()');
  assert.equal(issuer.tokenKey.length, 342);
  const ppIssuer = new pv.Issuer(BlindRSAMode.PSS, ISSUER, key.privateKey, key.publicKey);
  assert.deepEqual(await ppIssuer.tokenKeyID(), issuer.tokenKeyId);
  // Control: another generated key gives another token key.
  const other = await generateWebCryptoKey();
  assert.notDeepEqual(BlindRsaIssuer.fromPkcs8Der(0x0002, other.pkcs8).tokenKey, key.tokenKey);
});

test('privacypass-ts (type 0x0002, PSS): our client gets tokens from its Issuer; its Origin and ours accept them, and refuse tampered ones or another key', async () => {
  const key = await rsaKey();
  const other = await generateWebCryptoKey();
  const ppIssuer = new pv.Issuer(BlindRSAMode.PSS, ISSUER, key.privateKey, key.publicKey);
  const origin = new pv.Origin(BlindRSAMode.PSS, [ORIGIN]);
  const ourKey = BlindRsaTokenKey.fromSpki(key.tokenKey);
  for (let i = 0; i < 3; i++) {
    const { ours, theirs } = rsaChallenge(0x0002, key.tokenKey);
    assert.deepEqual(ours.toBytes(), theirs.serialize());
    const req = createTokenRequest(ours);
    assert.equal(req.contentType, 'application/private-token-request');
    const ppReq = pv.TokenRequest.deserialize(BLIND_RSA, req.body);
    assert.deepEqual(ppReq.serialize(), req.body);
    assert.equal(ppReq.truncatedTokenKeyId, (await ppIssuer.tokenKeyID()).at(-1));
    const ppRes = await ppIssuer.issue(ppReq);
    const [token] = req.state.finalize(ppRes.serialize());
    const bytes = token.toBytes();
    const ppToken = PpToken.deserialize(BLIND_RSA, bytes);
    assert.deepEqual(ppToken.serialize(), bytes);
    // privacypass-ts's origin check (WebCrypto RSA-PSS verify, salt 48) and its issuer's.
    assert.equal(await origin.verify(ppToken, key.publicKey), true);
    assert.equal(await origin.verify(ppToken, await webCryptoPublicKey(key.tokenKey)), true);
    assert.equal(await ppIssuer.verify(ppToken), true);
    assert.equal(ourKey.verifyToken(bytes, theirs.serialize()), true);
    // Its Authorization header parser reads ours.
    const [auth] = AuthorizationHeader.parse(BLIND_RSA, token.authorizationHeader());
    assert.deepEqual(auth.token.serialize(), bytes);
    // Refusals: a flipped authenticator bit, a flipped nonce bit, another key.
    assert.equal(await origin.verify(PpToken.deserialize(BLIND_RSA, flip(bytes, -1)), key.publicKey), false);
    assert.equal(await origin.verify(PpToken.deserialize(BLIND_RSA, flip(bytes, 2)), key.publicKey), false);
    assert.equal(await origin.verify(ppToken, other.publicKey), false);
    assert.equal(ourKey.verifyToken(flip(bytes, -1), ours), false);
  }
});

test('privacypass-ts (type 0x0002, PSS): its Client gets tokens from our BlindRsaIssuer; our BlindRsaTokenKey and its Origin accept them, and refuse tampered ones, another challenge or key', async () => {
  const key = await rsaKey();
  const issuer = BlindRsaIssuer.fromPkcs8Der(0x0002, key.pkcs8);
  const ourKey = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const otherKey = BlindRsaTokenKey.fromSpki((await generateWebCryptoKey()).tokenKey);
  const origin = new pv.Origin(BlindRSAMode.PSS, [ORIGIN]);
  for (let i = 0; i < 3; i++) {
    const { ours, theirs } = rsaChallenge(0x0002, issuer.tokenKey);
    const client = new pv.Client(BlindRSAMode.PSS);
    const req = await client.createTokenRequest(theirs, issuer.tokenKey);
    const reqBytes = req.serialize();
    assert.equal(reqBytes.length, 259);
    const res = issuer.issue(reqBytes);
    assert.equal(res.contentType, 'application/private-token-response');
    const token = await client.finalize(client.deserializeTokenResponse(res.body));
    const bytes = token.serialize();
    assert.equal(ourKey.verifyToken(bytes, ours), true);
    assert.equal(ourKey.verifyToken(bytes, theirs.serialize()), true);
    assert.equal(await origin.verify(token, key.publicKey), true);
    const parsed = Token.fromBytes(bytes);
    assert.equal(parsed.tokenType, 0x0002);
    assert.deepEqual(parsed.tokenKeyId, issuer.tokenKeyId);
    assert.deepEqual(parsed.challengeDigest, ours.digest);
    assert.deepEqual(parseAuthorization(new AuthorizationHeader(token).toString()), bytes);
    // Refusals.
    assert.equal(ourKey.verifyToken(flip(bytes, -1), ours), false, 'flipped authenticator');
    assert.equal(ourKey.verifyToken(flip(bytes, 5), ours), false, 'flipped nonce');
    assert.equal(ourKey.verifyToken(bytes, rsaChallenge(0x0002, issuer.tokenKey).ours), false, 'another challenge');
    assert.equal(otherKey.verifyToken(bytes, ours), false, 'another key');
  }
});

test('privacypass-ts (type 0xDA7A, PSS): our client and its IssuerWithMetadata, its ClientWithMetadata and our BlindRsaIssuer; each origin accepts the other\'s tokens for their extensions only', async () => {
  const { pem, pkcs8, vector } = da7aVectorKey();
  const { privateKey, publicKey } = await webCryptoKeyPair(pkcs8);
  const issuer = BlindRsaIssuer.fromPem(0xDA7A, pem);
  assert.equal(Buffer.from(issuer.tokenKey).toString('hex'), vector.pkS);
  assert.deepEqual(await pv.getPublicKeyBytes(publicKey), issuer.tokenKey, 'WebCrypto\'s import and ours: one token key');
  const ourKey = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const ppIssuer = new pv.IssuerWithMetadata(BlindRSAMode.PSS, ISSUER, privateKey, publicKey);

  const ppExt = new pp.Extensions([new pp.Extension(1, Uint8Array.of(42)), new pp.Extension(7, Uint8Array.of(1, 2, 3))]);
  const ext = encodeExtensions([{ type: 7, data: Uint8Array.of(1, 2, 3) }, { type: 1, data: Uint8Array.of(42) }]);
  assert.deepEqual(ext, ppExt.serialize(), 'one Extensions encoding');
  const ppOther = new pp.Extensions([new pp.Extension(1, Uint8Array.of(43))]);
  const origin = new pv.OriginWithMetadata(BlindRSAMode.PSS, ppExt, [ORIGIN]);
  const otherOrigin = new pv.OriginWithMetadata(BlindRSAMode.PSS, ppOther, [ORIGIN]);

  // Our client, its issuer.
  {
    const { ours, theirs } = rsaChallenge(0xDA7A, issuer.tokenKey);
    const req = createTokenRequest(ours, { extensions: ext });
    const ppReq = pv.ExtendedTokenRequest.deserialize(req.body);
    assert.deepEqual(ppReq.serialize(), req.body);
    assert.deepEqual(ppReq.extensions.serialize(), ext);
    const [token] = req.state.finalize((await ppIssuer.issue(ppReq)).serialize());
    const bytes = token.toBytes();
    const ppToken = PpToken.deserialize(PARTIALLY_BLIND_RSA, bytes);
    assert.equal(await origin.verify(ppToken, publicKey), true);
    assert.equal(ourKey.verifyToken(bytes, theirs.serialize(), ext), true);
    assert.equal(await otherOrigin.verify(ppToken, publicKey), false, 'other extensions');
    assert.equal(await origin.verify(PpToken.deserialize(PARTIALLY_BLIND_RSA, flip(bytes, -1)), publicKey), false, 'flipped');
    // The 0x0002 check of the same key refuses a 0xDA7A signature (another public exponent).
    assert.equal(await new pv.Origin(BlindRSAMode.PSS, [ORIGIN]).verify(ppToken, publicKey), false, 'as a 0x0002 token');
  }
  // Its client, our issuer (whose policy sees its extensions).
  {
    const { ours, theirs } = rsaChallenge(0xDA7A, issuer.tokenKey);
    const client = new pv.ClientWithMetadata(BlindRSAMode.PSS, ppExt);
    const req = await client.createTokenRequest(theirs, issuer.tokenKey);
    let seen;
    const res = issuer.issue(req.serialize(), (e) => { seen = decodeExtensions(e); return true; });
    assert.deepEqual(seen.map((x) => [x.type, [...x.data]]), [[1, [42]], [7, [1, 2, 3]]]);
    const token = await client.finalize(client.deserializeTokenResponse(res.body));
    const bytes = token.serialize();
    assert.equal(ourKey.verifyToken(bytes, ours, ext), true);
    assert.equal(await origin.verify(token, publicKey), true);
    assert.equal(ourKey.verifyToken(bytes, ours, ppOther.serialize()), false, 'other extensions');
    assert.equal(ourKey.verifyToken(flip(bytes, -1), ours, ext), false, 'flipped');
    assert.equal(ourKey.verifyToken(bytes, rsaChallenge(0xDA7A, issuer.tokenKey).ours, ext), false, 'another challenge');
    // Our issuer's policy refuses: privacypass-ts's request gets no signature.
    const again = await new pv.ClientWithMetadata(BlindRSAMode.PSS, ppExt).createTokenRequest(theirs, issuer.tokenKey);
    assert.throws(() => issuer.issue(again.serialize(), () => false), { code: 'UNSUPPORTED_VALUE' });
  }
});

test('privacypass-ts (blind RSA): its PSSZero mode (salt length 0) is not RFC 9578 type 0x0002: our origin refuses its tokens, its PSSZero Origin refuses ours (PSS accepted on both sides)', async () => {
  const key = await rsaKey();
  const issuer = BlindRsaIssuer.fromPkcs8Der(0x0002, key.pkcs8);
  const ourKey = BlindRsaTokenKey.fromSpki(issuer.tokenKey);
  const { ours, theirs } = rsaChallenge(0x0002, issuer.tokenKey);
  const results = {};
  for (const [name, mode] of [['PSS', BlindRSAMode.PSS], ['PSSZero', BlindRSAMode.PSSZero]]) {
    // Its client in this mode, our issuer (the blind signature itself does not depend on the mode).
    const client = new pv.Client(mode);
    const req = await client.createTokenRequest(theirs, issuer.tokenKey);
    const token = await client.finalize(client.deserializeTokenResponse(issuer.issue(req.serialize()).body));
    // Our client, its origin in this mode.
    const ourReq = createTokenRequest(ours);
    const [ourToken] = ourReq.state.finalize(issuer.issue(ourReq.body).body);
    const origin = new pv.Origin(mode, [ORIGIN]);
    results[name] = {
      oursAcceptsTheirs: ourKey.verifyToken(token.serialize(), ours),
      theirsAcceptsOurs: await origin.verify(PpToken.deserialize(BLIND_RSA, ourToken.toBytes()), key.publicKey),
      theirsAcceptsTheirs: await origin.verify(token, key.publicKey),
    };
  }
  assert.deepEqual(results, {
    PSS: { oursAcceptsTheirs: true, theirsAcceptsOurs: true, theirsAcceptsTheirs: true },
    PSSZero: { oursAcceptsTheirs: false, theirsAcceptsOurs: false, theirsAcceptsTheirs: true },
  });
});
