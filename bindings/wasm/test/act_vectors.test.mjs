// The ACT vectors (test-vectors/act/: the draft's appendix, draft-L4.txt, and act-rs's
// act-L1/2/8/16/64.txt) replayed through the JavaScript API of the test flavour (pkg-testing/):
// the key from its random bytes, the issuance request (message and state), the response, the
// credential, then each spend in turn from the previous credential (state, message), verified
// by the Moderator, its refund and the credential it finalizes into, all byte for byte. The
// deterministic steps go through `hazmat` (actGenerateKeyPair, actIssueRequest,
// actIssueResponse, actProveSpend, actIssueRefund); everything else is the ordinary API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const { ActContext, hazmat } = await import('../pkg-testing/node.js');

const FILES = ['draft-L4.txt', 'act-L1.txt', 'act-L2.txt', 'act-L8.txt', 'act-L16.txt', 'act-L64.txt'];
const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b) => Buffer.from(b).toString('hex');

/** `name = value` entries; a value may continue on indented lines (hex). */
function parse(text) {
  const out = new Map();
  let key;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const m = /^(\S+) =\s*(.*)$/.exec(line);
    if (m) {
      key = m[1];
      out.set(key, m[2].trim());
    } else {
      out.set(key, out.get(key) + line.trim());
    }
  }
  return out;
}

for (const file of FILES) {
  test(`ACT vectors ${file}: key, issuance, every spend and refund byte for byte`, () => {
    const v = parse(readFileSync(new URL(`../../../test-vectors/act/${file}`, import.meta.url), 'utf8'));
    const L = Number(v.get('suite.L'));
    const ctx = ActContext.withoutWidth(hex(v.get('suite.ctx_cred')), L);
    if (v.has('suite.ctx')) assert.equal(toHex(ctx.scalar), v.get('suite.ctx'));
    const m = hazmat.actGenerateKeyPair(hex(v.get('key.rand')));
    assert.equal(toHex(m.secretKey()), v.get('key.skM'));
    assert.equal(toHex(m.publicKey), v.get('key.pkM'));

    const req = hazmat.actIssueRequest(hex(v.get('issue.request.rand')));
    assert.equal(toHex(req.message), v.get('issue.request.message'));
    assert.equal(toHex(req.state.toBytes()), v.get('issue.request.state'));
    const resp = hazmat.actIssueResponse(m, ctx, BigInt(v.get('issue.response.c')), req.message, hex(v.get('issue.response.rand')));
    assert.equal(toHex(resp), v.get('issue.response.message'));
    let cred = req.state.finalize(ctx, m.publicKey, resp);
    assert.equal(toHex(cred.toBytes()), v.get('issue.credential'));

    let spends = 0;
    for (let i = 1; v.has(`spend${i}.s`); i++) {
      const p = `spend${i}.`;
      const s = BigInt(v.get(`${p}s`));
      const a = BigInt(v.get(`${p}a`));
      const ctxSpend = hex(v.get(`${p}ctx_spend`));
      const sp = hazmat.actProveSpend(cred, ctx, s, a, ctxSpend, hex(v.get(`${p}rand`)));
      assert.equal(toHex(sp.state.toBytes()), v.get(`${p}state`), `${p}state`);
      assert.equal(toHex(sp.message), v.get(`${p}message`), `${p}message`);
      const verified = m.verifySpend(ctx, hex(v.get(`${p}message`)), ctxSpend);
      assert.equal(verified.amount, s);
      assert.equal(verified.topUp, a);
      assert.deepEqual(verified.nullifier, sp.nullifier);
      const refund = hazmat.actIssueRefund(m, ctx, verified, BigInt(v.get(`${p}refund.t`)), hex(v.get(`${p}refund.rand`)));
      assert.equal(toHex(refund), v.get(`${p}refund.message`), `${p}refund.message`);
      cred = sp.state.finalize(ctx, m.publicKey, hex(v.get(`${p}refund.message`)));
      assert.equal(toHex(cred.toBytes()), v.get(`${p}credential`), `${p}credential`);
      spends++;
    }
    assert.ok(spends >= 4, `${spends} spends`);
  });
}
