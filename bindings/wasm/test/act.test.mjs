// ACT (Anonymous Credit Tokens, ACTv1-P256-SHA256) through the npm package: the client's
// issuance, spend and refund against the Moderator, persistence of credentials and states, the
// Moderator's verify / refund and redeem (in-memory store and a JavaScript store), the client
// flavour, and misuse: one-shot values used again (STATE_CONSUMED), refused messages that leave
// the state usable, wrong lengths and types, freed objects, objects of the other flavour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as pt from 'privacy-tokens';
import * as client from 'privacy-tokens/client';
import {
  ActContext, ActCredential, ActIssuanceState, ActModerator, ActNullifierStore, ActSpendState,
  PrivacyTokensError, actCiphersuite, actKeyId, createActIssueRequest,
} from 'privacy-tokens';
import { throwsCode } from './support/assert.mjs';

const enc = new TextEncoder();
const CTX_CRED = enc.encode('act-test-epoch');
const SPEND_CTX = enc.encode('act-test-spend-context');
/** `b` with one byte more: a message of a wrong length whose fields still decode. */
const longer = (b) => Uint8Array.from([...b, 0]);

function setup(width = 8) {
  const m = ActModerator.generate();
  return { m, ctx: new ActContext(CTX_CRED, width), pk: m.publicKey };
}

function issue({ m, ctx, pk }, credits) {
  const r = createActIssueRequest();
  return r.state.finalize(ctx, pk, m.issue(ctx, credits, r.message));
}

test('ACT: ciphersuite, context, keys (generate, derive, secret key round trip, key id)', async () => {
  assert.equal(actCiphersuite(), 'ACTv1-P256-SHA256');
  const { m, ctx, pk } = setup();
  assert.equal(ctx.width, 8);
  assert.equal(ctx.scalar.length, 32);
  assert.notDeepEqual(ctx.scalar, ActContext.withoutWidth(CTX_CRED, 8).scalar, 'L is bound into the context');
  assert.notDeepEqual(ctx.scalar, new ActContext(CTX_CRED, 9).scalar);
  throwsCode(() => new ActContext(CTX_CRED, 0), 'UNSUPPORTED_VALUE');
  throwsCode(() => new ActContext(CTX_CRED, 65), 'UNSUPPORTED_VALUE');
  throwsCode(() => new ActContext('epoch', 8), 'INVALID_ARGUMENT');
  assert.equal(pk.length, 33);
  const sk = m.secretKey();
  assert.equal(sk.length, 32);
  assert.deepEqual(ActModerator.fromSecretKey(sk).publicKey, pk);
  throwsCode(() => ActModerator.fromSecretKey(sk.subarray(1)), 'INVALID_LENGTH');
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', pk));
  assert.deepEqual(m.keyId, h);
  assert.deepEqual(actKeyId(pk), h);
  const seed = new Uint8Array(48).fill(7);
  assert.deepEqual(ActModerator.derive(seed, enc.encode('i')).publicKey, ActModerator.derive(seed, enc.encode('i')).publicKey);
  assert.notDeepEqual(ActModerator.derive(seed, enc.encode('i')).publicKey, ActModerator.derive(seed, enc.encode('j')).publicKey);
  throwsCode(() => ActModerator.derive(seed.subarray(1), enc.encode('i')), 'INVALID_ARGUMENT');
});

test('ACT: issue 10, spend 3 (refund 1) through persisted state and credential, then spend the rest; bigint amounts at L = 64', () => {
  const f = setup();
  const cred = issue(f, 10);
  assert.equal(cred.balance, 10n);
  const saved = ActCredential.fromBytes(cred.toBytes());
  assert.equal(saved.balance, 10n);
  const { message, nullifier, contentType, state } = cred.proveSpend(f.ctx, 3, 0, SPEND_CTX);
  assert.equal(contentType, 'application/act-spend');
  assert.equal(nullifier.length, 32);
  assert.equal(cred.consumed, true);
  const v = f.m.verifySpend(f.ctx, message, SPEND_CTX);
  assert.deepEqual(v.nullifier, nullifier);
  assert.equal(v.amount, 3n);
  assert.equal(v.topUp, 0n);
  throwsCode(() => f.m.issueRefund(f.ctx, v, 4), 'OUT_OF_RANGE', 't > s + a');
  assert.equal(v.consumed, false, 'a refused refund leaves the verified spend');
  const refund = f.m.issueRefund(f.ctx, v, 1n);
  assert.equal(v.consumed, true);
  throwsCode(() => f.m.issueRefund(f.ctx, v, 1), 'STATE_CONSUMED', 'a second refund');
  const st = state.toBytes();
  assert.equal(st.length, 121);
  const restored = ActSpendState.fromBytes(st);
  const next = restored.finalize(f.ctx, f.pk, refund);
  assert.equal(next.balance, 8n);
  assert.equal(restored.consumed, true);
  const all = next.proveSpend(f.ctx, 8n, 0n, SPEND_CTX);
  assert.equal(f.m.verifySpend(f.ctx, all.message, SPEND_CTX).amount, 8n);

  // L = 64: amounts beyond 2^53 as bigints.
  const w = setup(64);
  const big = (1n << 64n) - 2n;
  const c = issue(w, big);
  assert.equal(c.balance, big);
  const s = c.proveSpend(w.ctx, big - 5n, 1n, SPEND_CTX);
  const vs = w.m.verifySpend(w.ctx, s.message, SPEND_CTX);
  assert.equal(vs.amount, big - 5n);
  assert.equal(s.state.finalize(w.ctx, w.pk, w.m.issueRefund(w.ctx, vs, 2n)).balance, 7n);
  throwsCode(() => issue(w, 1n << 64n), 'INVALID_ARGUMENT', 'credits of 2^64');
  throwsCode(() => issue(w, 2 ** 53), 'INVALID_ARGUMENT', 'an unsafe number');
  throwsCode(() => issue(w, 1.5), 'INVALID_ARGUMENT');
  throwsCode(() => issue(f, 256), 'OUT_OF_RANGE', 'credits of 2^L');
});

test('ACT: redeem with the in-memory store: fresh, the same spend replayed (stored refund), a spent credential spent again (replayed, its refund useless), the policy refusing', () => {
  const f = setup();
  const store = new ActNullifierStore();
  const cred = issue(f, 20);
  const copy = ActCredential.fromBytes(cred.toBytes());
  const first = cred.proveSpend(f.ctx, 4, 2, SPEND_CTX);
  const policy = (s, a) => {
    assert.equal(typeof s, 'bigint');
    if (s < 2n || a > 2n) throw new Error('policy refuses');
    return s - 2n + a;
  };
  const r1 = f.m.redeem(f.ctx, first.message, SPEND_CTX, policy, store);
  assert.equal(r1.status, 'fresh');
  assert.deepEqual(r1.nullifier, first.nullifier);
  assert.equal(r1.amount, 4n);
  assert.equal(r1.topUp, 2n);
  assert.equal(store.size, 1);
  const r2 = f.m.redeem(f.ctx, first.message, SPEND_CTX, policy, store);
  assert.equal(r2.status, 'replayed');
  assert.deepEqual(r2.refund, r1.refund);
  assert.equal(store.size, 1);

  const second = copy.proveSpend(f.ctx, 4, 2, SPEND_CTX);
  const r3 = f.m.redeem(f.ctx, second.message, SPEND_CTX, policy, store);
  assert.equal(r3.status, 'replayed');
  assert.deepEqual(r3.nullifier, first.nullifier, 'the same credential gives the same nullifier');
  throwsCode(() => second.state.finalize(f.ctx, f.pk, r3.refund), 'INVALID_PROOF', 'the stored refund is bound to the first spend');
  assert.equal(second.state.consumed, false);

  const next = first.state.finalize(f.ctx, f.pk, r1.refund);
  assert.equal(next.balance, 20n);
  const third = next.proveSpend(f.ctx, 1, 3, SPEND_CTX);
  assert.throws(() => f.m.redeem(f.ctx, third.message, SPEND_CTX, policy, store), /policy refuses/);
  assert.equal(store.size, 1, 'nothing recorded on a refusal');
  throwsCode(() => f.m.redeem(f.ctx, third.message, enc.encode('x'), policy, store), 'INVALID_PROOF');
  throwsCode(() => f.m.redeem(f.ctx, third.message, SPEND_CTX, 'policy', store), 'INVALID_ARGUMENT');
  throwsCode(() => f.m.redeem(f.ctx, third.message, SPEND_CTX, () => -1, store), 'INVALID_ARGUMENT');
  throwsCode(() => f.m.redeem(f.ctx, third.message, SPEND_CTX, () => 5, store), 'OUT_OF_RANGE', 't > s + a');
  assert.equal(store.size, 1);
});

test('ACT: redeemWith a JavaScript store (insertIfAbsent): fresh, replayed, the store\'s throw rethrown', () => {
  const f = setup();
  const map = new Map();
  const insertIfAbsent = (n, r) => {
    const k = Buffer.from(n).toString('hex');
    if (map.has(k)) return map.get(k);
    map.set(k, r);
    return null;
  };
  const cred = issue(f, 9);
  const copy = ActCredential.fromBytes(cred.toBytes());
  const s = cred.proveSpend(f.ctx, 3, 0, SPEND_CTX);
  const r1 = f.m.redeemWith(f.ctx, s.message, SPEND_CTX, () => 0, insertIfAbsent);
  assert.equal(r1.status, 'fresh');
  assert.equal(map.size, 1);
  const r2 = f.m.redeemWith(f.ctx, copy.proveSpend(f.ctx, 1, 0, SPEND_CTX).message, SPEND_CTX, () => 0, insertIfAbsent);
  assert.equal(r2.status, 'replayed');
  assert.deepEqual(r2.refund, r1.refund);
  assert.equal(s.state.finalize(f.ctx, f.pk, r1.refund).balance, 6n);
  const other = issue(f, 2).proveSpend(f.ctx, 1, 0, SPEND_CTX);
  assert.throws(() => f.m.redeemWith(f.ctx, other.message, SPEND_CTX, () => 0, () => { throw new Error('store down'); }), /store down/);
  throwsCode(() => f.m.redeemWith(f.ctx, other.message, SPEND_CTX, () => 0, () => 'x'), 'INVALID_ARGUMENT');
  throwsCode(() => f.m.redeemWith(f.ctx, other.message, SPEND_CTX, () => 0, {}), 'INVALID_ARGUMENT');
});

test('ACT misuse: consumed states, refused messages leave the state usable, wrong lengths and types, freed objects, the other flavour', () => {
  const f = setup();
  const r = createActIssueRequest();
  assert.equal(r.message.length, 129);
  assert.equal(r.contentType, 'application/act-issue-request');
  const saved = r.state.toBytes();
  assert.equal(saved.length, 97);
  const resp = f.m.issue(f.ctx, 5, r.message);
  throwsCode(() => f.m.issue(f.ctx, 5, longer(r.message)), 'INVALID_LENGTH');
  const bad = Uint8Array.from(r.message);
  bad[100] ^= 1;
  throwsCode(() => f.m.issue(f.ctx, 5, bad), 'INVALID_PROOF');
  throwsCode(() => r.state.finalize(f.ctx, f.pk, longer(resp)), 'INVALID_LENGTH');
  const other = ActModerator.generate();
  throwsCode(() => r.state.finalize(f.ctx, other.publicKey, resp), 'INVALID_PROOF');
  throwsCode(() => r.state.finalize(new ActContext(CTX_CRED, 9), f.pk, resp), 'INVALID_PROOF');
  throwsCode(() => r.state.finalize(f.ctx, f.pk.subarray(1), resp), 'INVALID_LENGTH');
  throwsCode(() => r.state.finalize(f.ctx, 'pk', resp), 'INVALID_ARGUMENT');
  throwsCode(() => r.state.finalize({}, f.pk, resp), 'INVALID_ARGUMENT');
  assert.equal(r.state.consumed, false);
  const cred = r.state.finalize(f.ctx, f.pk, resp);
  throwsCode(() => r.state.finalize(f.ctx, f.pk, resp), 'STATE_CONSUMED');
  throwsCode(() => r.state.toBytes(), 'STATE_CONSUMED');
  assert.equal(ActIssuanceState.fromBytes(saved).finalize(f.ctx, f.pk, resp).balance, 5n, 'the persisted state');
  throwsCode(() => ActIssuanceState.fromBytes(longer(saved)), 'INVALID_LENGTH');

  throwsCode(() => cred.proveSpend(f.ctx, 6, 0, SPEND_CTX), 'OUT_OF_RANGE', 's > balance');
  throwsCode(() => cred.proveSpend(f.ctx, 1, 251, SPEND_CTX), 'OUT_OF_RANGE', 'c + a >= 2^L');
  throwsCode(() => cred.proveSpend(f.ctx, -1, 0, SPEND_CTX), 'INVALID_ARGUMENT');
  throwsCode(() => cred.proveSpend(f.ctx, 1, 0, 'ctx'), 'INVALID_ARGUMENT');
  assert.equal(cred.consumed, false, 'a refused spend leaves the credential');
  assert.equal(cred.balance, 5n);
  const s = cred.proveSpend(f.ctx, 5, 0, SPEND_CTX);
  throwsCode(() => cred.proveSpend(f.ctx, 1, 0, SPEND_CTX), 'STATE_CONSUMED');
  throwsCode(() => cred.balance, 'STATE_CONSUMED');
  throwsCode(() => cred.toBytes(), 'STATE_CONSUMED');
  throwsCode(() => ActCredential.fromBytes(new Uint8Array(137)), 'IDENTITY_ELEMENT');

  throwsCode(() => f.m.verifySpend(f.ctx, longer(s.message), SPEND_CTX), 'INVALID_LENGTH');
  throwsCode(() => f.m.verifySpend(new ActContext(CTX_CRED, 16), s.message, SPEND_CTX), 'INVALID_LENGTH', 'another width');
  throwsCode(() => f.m.verifySpend(f.ctx, s.message, enc.encode('other')), 'INVALID_PROOF');
  throwsCode(() => other.verifySpend(f.ctx, s.message, SPEND_CTX), 'INVALID_PROOF');
  const v = f.m.verifySpend(f.ctx, s.message, SPEND_CTX);
  const refund = f.m.issueRefund(f.ctx, v, 2);
  throwsCode(() => s.state.finalize(f.ctx, f.pk, longer(refund)), 'INVALID_LENGTH');
  throwsCode(() => s.state.finalize(f.ctx, other.publicKey, refund), 'INVALID_PROOF');
  assert.equal(s.state.consumed, false);
  assert.equal(s.state.finalize(f.ctx, f.pk, refund).balance, 2n);
  throwsCode(() => s.state.finalize(f.ctx, f.pk, refund), 'STATE_CONSUMED');
  throwsCode(() => s.state.toBytes(), 'STATE_CONSUMED');
  throwsCode(() => ActSpendState.fromBytes(new Uint8Array(120)), 'INVALID_LENGTH');

  // Freed objects and objects of the other flavour.
  const r2 = createActIssueRequest();
  r2.state.free();
  throwsCode(() => r2.state.finalize(f.ctx, f.pk, resp), 'STATE_CONSUMED', 'a freed state');
  const cctx = new client.ActContext(CTX_CRED, 8);
  throwsCode(() => createActIssueRequest().state.finalize(cctx, f.pk, resp), 'INVALID_ARGUMENT', 'a context of the client flavour');
});

test('ACT in the client flavour: the client classes, no Moderator; its credential spends at a full-flavour Moderator', () => {
  assert.equal(client.ActModerator, undefined);
  assert.equal(client.ActNullifierStore, undefined);
  const f = setup();
  const cctx = new client.ActContext(CTX_CRED, 8);
  const r = client.createActIssueRequest();
  const cred = r.state.finalize(cctx, f.pk, f.m.issue(f.ctx, 7, r.message));
  assert.equal(cred.balance, 7n);
  const s = cred.proveSpend(cctx, 2, 0, SPEND_CTX);
  const v = f.m.verifySpend(f.ctx, s.message, SPEND_CTX);
  assert.equal(s.state.finalize(cctx, f.pk, f.m.issueRefund(f.ctx, v, 0)).balance, 5n);
  assert.equal(pt.actCiphersuite(), client.actCiphersuite());
});

test('ACT: no input reaches a panic: random bytes of every message and encoding length into every ACT decoder throw PrivacyTokensError', () => {
  const f = setup();
  const cred = issue(f, 50);
  const { message, state } = cred.proveSpend(f.ctx, 5, 0, SPEND_CTX);
  const refund = f.m.issueRefund(f.ctx, f.m.verifySpend(f.ctx, message, SPEND_CTX), 1);
  let seed = 7;
  const rand = (n) => Uint8Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
  const store = new ActNullifierStore();
  const decoders = [
    (b) => f.m.issue(f.ctx, 1, b), (b) => f.m.verifySpend(f.ctx, b, SPEND_CTX),
    (b) => f.m.redeem(f.ctx, b, SPEND_CTX, () => 0, store), (b) => state.finalize(f.ctx, f.pk, b),
    (b) => createActIssueRequest().state.finalize(f.ctx, f.pk, b), (b) => state.finalize(f.ctx, b, refund),
    (b) => ActCredential.fromBytes(b), (b) => ActIssuanceState.fromBytes(b), (b) => ActSpendState.fromBytes(b),
    (b) => ActModerator.fromSecretKey(b), (b) => new ActContext(b, 70),
  ];
  let thrown = 0;
  for (const [k, d] of decoders.entries()) {
    for (const n of [0, 1, 32, 33, 97, 121, 129, 137, 169, message.length, 400]) {
      try {
        d(rand(n));
      } catch (e) {
        assert.ok(e instanceof PrivacyTokensError, `decoder ${k}, ${n} bytes: ${e}`);
        thrown++;
      }
    }
  }
  assert.ok(thrown >= decoders.length * 10, `${thrown} rejections`);
  assert.equal(store.size, 0);
  // The spend state survived every refused refund; the module still works.
  assert.equal(state.finalize(f.ctx, f.pk, refund).balance, 46n);
});
