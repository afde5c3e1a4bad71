// Interop with Cloudflare's @cloudflare/privacypass-ts 0.8.1 (on @cloudflare/voprf-ts 1.0.0), type
// 0x0001 VOPRF(P-384, SHA-384), in both directions: tokens our package makes verify with
// privacypass-ts's Origin (its privately verifiable origin/issuer check, VOPRFServer.verifyFinalize
// under the issuer's private key), and a privacypass-ts Client gets tokens from our package's
// PrivacyPassIssuer that our verifyToken accepts. Also privacypass-ts's header parsers on ours, our
// client against privacypass-ts's Issuer, and a privacypass-ts client against the server process.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as pp from '@cloudflare/privacypass-ts';
import {
  Challenge, PrivacyPassIssuer, createTokenRequest, parseChallenges, parseAuthorization, Token,
} from 'privacy-tokens';
import { startServer } from './support/server.mjs';

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
