// Generic token batches (draft-ietf-privacypass-batched-tokens, "Generic Token Batch Issuance")
// with token types 0x0001 (VOPRF(P-384, SHA-384)) and 0x0002 (blind RSA) mixed in one request:
// @cloudflare/privacypass-ts 0.8.1's genericBatched client against the issuer server of server/
// started as a real process (test/support/server.mjs) with `token_types = [1, 2]`.
//
// privacypass-ts builds each token request with its own type client (privateVerif.Client for
// 0x0001 under the challenge's P-384 token-key, publicVerif.Client in PSS mode for 0x0002 under
// its RSASSA-PSS SPKI), wraps them in its genericBatched.BatchedTokenRequest, POSTs it as
// `application/private-token-generic-batch-request`, decodes the server's
// GenericBatchTokenResponse with its own decoder and finalizes each entry with the client that
// made it; every token is redeemed at /private once (200) and replayed (401). The 0x0002 tokens
// also verify under privacypass-ts's publicVerif Origin (WebCrypto RSA-PSS), an independent
// check of the server's signatures. Beside it: an entry under an unknown truncated key id is
// answered absent (206) while the others issue.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as pp from '@cloudflare/privacypass-ts';
import { startServer } from './support/server.mjs';
import { webCryptoPublicKey } from './support/rsa_keys.mjs';

const { WWWAuthenticateHeader, AuthorizationHeader, genericBatched } = pp;
const pv = pp.publicVerif;
const { BlindRSAMode } = pv;
const TYPE_VOPRF = 0x0001;
const TYPE_RSA = 0x0002;
const GENERIC_REQUEST = 'application/private-token-generic-batch-request';
const GENERIC_RESPONSE = 'application/private-token-generic-batch-response';

let server;
before(async () => {
  server = await startServer({ toml: 'token_types = [1, 2]' });
}, { timeout: 20 * 60 * 1000 }); // may build the server first
after(async () => {
  if (!server) return;
  const exit = await server.stop();
  assert.equal(exit.code, 0, `server exit ${JSON.stringify(exit)}`);
});

/** privacypass-ts's parse of the 401 of /private: the challenge of `type` and its token-key. */
async function theirChallenge(type) {
  const res = await fetch(`${server.url}/private`);
  await res.arrayBuffer();
  assert.equal(res.status, 401);
  const www = WWWAuthenticateHeader.parse(res.headers.get('www-authenticate'))
    .find((h) => h.challenge.tokenType === type);
  assert.ok(www, `a challenge of type 0x${type.toString(16)}`);
  return www;
}

/** One request per type in `types`, each from a fresh client of privacypass-ts. */
async function requests(types, www) {
  const out = [];
  for (const t of types) {
    const client = t === TYPE_VOPRF ? new pp.privateVerif.Client() : new pv.Client(BlindRSAMode.PSS);
    const request = await client.createTokenRequest(www[t].challenge, www[t].tokenKey);
    out.push({ client, request: new genericBatched.TokenRequest(request) });
  }
  return out;
}

async function post(body) {
  const res = await fetch(`${server.url}/token-request`, {
    method: 'POST', headers: { 'content-type': GENERIC_REQUEST }, body,
  });
  return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function redeem(token) {
  const res = await fetch(`${server.url}/private`, { headers: { authorization: new AuthorizationHeader(token).toString() } });
  return { status: res.status, text: await res.text() };
}

test('server (generic batch): privacypass-ts\'s generic batch of 0x0001 and 0x0002 requests is issued whole (200), each token finalized by privacypass-ts and redeemed once', async () => {
  const www = { [TYPE_VOPRF]: await theirChallenge(TYPE_VOPRF), [TYPE_RSA]: await theirChallenge(TYPE_RSA) };
  const types = [TYPE_RSA, TYPE_VOPRF, TYPE_RSA, TYPE_VOPRF];
  const made = await requests(types, www);
  const batch = new genericBatched.Client().createTokenRequest(made.map((m) => m.request));
  const body = batch.serialize();
  // A two-byte varint length, then 259-byte 0x0002 and 52-byte 0x0001 requests.
  assert.equal(body.length, 2 + 2 * 259 + 2 * 52);
  const res = await post(body);
  assert.equal(res.status, 200);
  assert.equal(res.type, GENERIC_RESPONSE);
  const resp = new genericBatched.Client().deserializeTokenResponse(res.bytes);
  assert.deepEqual(resp.serialize(), res.bytes, 'privacypass-ts re-encodes the response byte for byte');
  const entries = [...resp];
  assert.deepEqual(entries.map((e) => e.tokenType), types);
  const rsaKey = await webCryptoPublicKey(www[TYPE_RSA].tokenKey);
  const origin = new pv.Origin(BlindRSAMode.PSS, [server.host]);
  const tokens = [];
  for (const [i, e] of entries.entries()) {
    assert.ok(e.tokenResponse, `entry ${i} present`);
    const token = await made[i].client.finalize(e.tokenResponse);
    assert.equal(token.authInput.tokenType, types[i]);
    if (types[i] === TYPE_RSA) assert.equal(await origin.verify(token, rsaKey), true, `entry ${i}: RSA-PSS under the token-key`);
    tokens.push(token);
  }
  for (const [i, t] of tokens.entries()) {
    const first = await redeem(t);
    assert.equal(first.status, 200, `token ${i}: ${first.text}`);
  }
  for (const [i, t] of tokens.entries()) {
    const again = await redeem(t);
    assert.equal(again.status, 401, `token ${i} replayed`);
    assert.match(again.text, /token already spent/);
  }
});

test('server (generic batch): an entry under an unknown truncated key id is absent (206), the others are issued and redeem', async () => {
  const www = { [TYPE_VOPRF]: await theirChallenge(TYPE_VOPRF), [TYPE_RSA]: await theirChallenge(TYPE_RSA) };
  const made = await requests([TYPE_VOPRF, TYPE_RSA], www);
  // The 0x0002 request's truncated key id changed (its byte 2): no key of the server has it.
  const rsaBytes = Uint8Array.from(made[1].request.serialize());
  rsaBytes[2] ^= 1;
  const changed = genericBatched.TokenRequest.deserialize(rsaBytes);
  const batch = new genericBatched.Client().createTokenRequest([made[0].request, changed]);
  const res = await post(batch.serialize());
  assert.equal(res.status, 206);
  const entries = [...new genericBatched.Client().deserializeTokenResponse(res.bytes)];
  assert.equal(entries.length, 2);
  assert.equal(entries[1].tokenResponse, null, 'the unknown key id\'s entry is absent');
  const token = await made[0].client.finalize(entries[0].tokenResponse);
  assert.equal((await redeem(token)).status, 200);
});
