// ACT (Anonymous Credit Tokens) against the issuer server of server/ started as a real process
// (test/support/server.mjs, PRIVACY_TOKENS_SERVER_BIN for a prebuilt binary) with
// `[act] enabled = true, width = 16, issue_credits = 100, cost = 10, max_top_up = 5`.
//
// The HTTP contract: GET /.well-known/act-configuration (JSON: ciphersuite, width, cost,
// max_top_up, spend_context and the keys, current first: key_id = base64url SHA-256(pkM),
// public_key, credential_context = ctx_cred, the context being CredentialContext::with_width);
// POST /act/issue (application/act-issue-request: key_id[32] || IssueRequest) → 200
// application/act-issue-response; POST /act/spend (application/act-spend: key_id[32] || Spend)
// → 200 application/act-refund with `ACT-Spend: fresh`, 409 with the same stored refund and
// `ACT-Spend: replayed` for a nullifier already spent, 403 for the policy (s < cost,
// a > max_top_up), 422 for a malformed body.
//
// The client is our package (node entry): a credential from the server, spent (200), the same
// body again and a second spend of the same credential (409, the stored refund, which does not
// finalize against the second spend's state), the first refund finalized and its credential spent
// (200); the refusals. A server without ACT (it refuses the [act] table or does not serve the
// configuration) skips every test with the reason logged.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  ActContext, ActCredential, PrivacyTokensError, actCiphersuite, actKeyId, createActIssueRequest,
} from 'privacy-tokens';
import { ACT_CONFIG, startActServer } from './support/server.mjs';

let server;
let config;
let skip;
before(async () => {
  ({ server, config, skip } = await startActServer());
  if (skip) console.log(`# server_act.test.mjs: skipped: ${skip}`);
}, { timeout: 20 * 60 * 1000 }); // may build the server first
after(async () => {
  if (!server) return;
  const exit = await server.stop();
  assert.equal(exit.code, 0, `server exit ${JSON.stringify(exit)}`);
});

const b64 = (s) => new Uint8Array(Buffer.from(s, 'base64url'));
const cat = (...parts) => new Uint8Array(Buffer.concat(parts.map((p) => Buffer.from(p))));

/** The configuration's current key, decoded, with its context. */
function current() {
  const k = config.keys[0];
  return {
    keyId: b64(k.key_id),
    publicKey: b64(k.public_key),
    ctx: new ActContext(b64(k.credential_context), config.width),
    spendContext: b64(config.spend_context),
  };
}

async function post(path, contentType, body) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    spend: res.headers.get('act-spend'),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

/** A credential from the server: request, POST /act/issue, finalize. */
async function obtain(k) {
  const r = createActIssueRequest();
  const res = await post('/act/issue', r.contentType, cat(k.keyId, r.message));
  assert.equal(res.status, 200, `issue: ${Buffer.from(res.bytes).toString()}`);
  assert.equal(res.type, 'application/act-issue-response');
  return r.state.finalize(k.ctx, k.publicKey, res.bytes);
}

/** A spend of `cred` POSTed to /act/spend: the response and the spend (its state). */
async function spend(k, cred, s, a = 0) {
  const sp = cred.proveSpend(k.ctx, s, a, k.spendContext);
  return { res: await post('/act/spend', sp.contentType, cat(k.keyId, sp.message)), sp };
}

const maybe = (name, fn) => test(name, { timeout: 120_000 }, async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  await fn();
});

maybe('server (ACT): /.well-known/act-configuration names the ciphersuite, the width, cost and max_top_up of the config, and the current key (key_id = SHA-256(public_key))', async () => {
  assert.equal(config.ciphersuite, actCiphersuite());
  assert.equal(config.width, ACT_CONFIG.width);
  assert.equal(config.cost, ACT_CONFIG.cost);
  assert.equal(config.max_top_up, ACT_CONFIG.max_top_up);
  assert.ok(config.keys.length >= 1);
  const k = current();
  assert.equal(k.publicKey.length, 33);
  assert.deepEqual(k.keyId, actKeyId(k.publicKey));
  assert.equal(k.ctx.width, ACT_CONFIG.width);
});

maybe('server (ACT): a credential of issue_credits, spent (200 fresh); the same spend again and a second spend of the same credential are refused (409 replayed, the stored refund); the first refund finalizes and its credential spends (200)', async () => {
  const k = current();
  const cred = await obtain(k);
  assert.equal(cred.balance, BigInt(ACT_CONFIG.issue_credits));
  const copy = ActCredential.fromBytes(cred.toBytes());

  const first = await spend(k, cred, ACT_CONFIG.cost, 2);
  assert.equal(first.res.status, 200, Buffer.from(first.res.bytes).toString());
  assert.equal(first.res.type, 'application/act-refund');
  assert.equal(first.res.spend, 'fresh');

  // The same body again (a lost response retried): 409, the same refund.
  const again = await post('/act/spend', 'application/act-spend', cat(k.keyId, first.sp.message));
  assert.equal(again.status, 409);
  assert.equal(again.spend, 'replayed');
  assert.deepEqual(again.bytes, first.res.bytes);

  // The same credential spent a second time: the same nullifier, 409 with the stored refund,
  // which is bound to the first spend and does not finalize against this one.
  const second = await spend(k, copy, ACT_CONFIG.cost);
  assert.equal(second.res.status, 409);
  assert.equal(second.res.spend, 'replayed');
  assert.deepEqual(second.sp.nullifier, first.sp.nullifier);
  assert.deepEqual(second.res.bytes, first.res.bytes);
  assert.throws(() => second.sp.state.finalize(k.ctx, k.publicKey, second.res.bytes),
    (e) => e instanceof PrivacyTokensError && ['INVALID_PROOF', 'OUT_OF_RANGE'].includes(e.code));

  const next = first.sp.state.finalize(k.ctx, k.publicKey, first.res.bytes);
  const rest = BigInt(ACT_CONFIG.issue_credits - ACT_CONFIG.cost);
  assert.ok(next.balance >= rest && next.balance <= rest + BigInt(ACT_CONFIG.cost + 2),
    `the refund credits at most s + a: ${next.balance}`);
  console.log(`# server_act: after spending ${ACT_CONFIG.cost} (top-up 2) of ${ACT_CONFIG.issue_credits}: balance ${next.balance}`);
  const before = next.balance;
  const third = await spend(k, next, ACT_CONFIG.cost);
  assert.equal(third.res.status, 200, Buffer.from(third.res.bytes).toString());
  assert.equal(third.res.spend, 'fresh');
  const last = third.sp.state.finalize(k.ctx, k.publicKey, third.res.bytes);
  assert.ok(last.balance <= before, `${last.balance} after spending ${ACT_CONFIG.cost} of ${before}`);
});

maybe('server (ACT): refusals: an amount under the cost and a top-up over max_top_up (403), a truncated spend, an unknown key id and a bad issuance request (4xx), none of which spends the credential', async () => {
  const k = current();
  const cred = await obtain(k);
  const low = await spend(k, ActCredential.fromBytes(cred.toBytes()), ACT_CONFIG.cost - 1);
  assert.equal(low.res.status, 403, 's < cost');
  const topUp = await spend(k, ActCredential.fromBytes(cred.toBytes()), ACT_CONFIG.cost, ACT_CONFIG.max_top_up + 1);
  assert.equal(topUp.res.status, 403, 'a > max_top_up');
  const sp = ActCredential.fromBytes(cred.toBytes()).proveSpend(k.ctx, ACT_CONFIG.cost, 0, k.spendContext);
  const truncated = await post('/act/spend', sp.contentType, cat(k.keyId, sp.message.subarray(0, sp.message.length - 1)));
  assert.equal(truncated.status, 422, 'a truncated spend');
  const unknown = await post('/act/spend', sp.contentType, cat(new Uint8Array(32), sp.message));
  assert.ok(unknown.status >= 400 && unknown.status < 500, `an unknown key id: ${unknown.status}`);
  const r = createActIssueRequest();
  const bad = Uint8Array.from(r.message);
  bad[bad.length - 1] ^= 1;
  const badIssue = await post('/act/issue', r.contentType, cat(k.keyId, bad));
  assert.ok(badIssue.status >= 400 && badIssue.status < 500, `a bad issuance request: ${badIssue.status}`);
  const shortIssue = await post('/act/issue', r.contentType, cat(k.keyId, r.message.subarray(1)));
  assert.equal(shortIssue.status, 422, 'a truncated issuance request');
  // None of the refused spends recorded the nullifier: the credential still spends.
  const ok = await spend(k, cred, ACT_CONFIG.cost);
  assert.equal(ok.res.status, 200, Buffer.from(ok.res.bytes).toString());
});
