// The published vectors replayed through the JavaScript API: RFC 9497 (OPRF, VOPRF, POPRF on
// the five suites, batches of 1 and 2), RFC 9578 type 0x0001, and pat-go's type 0x0005 and
// amortized batch vectors. Deterministic steps (blinds, nonces, proof nonces) go through the
// `hazmat` export, which only the test flavour (pkg-testing/, built by build.sh) has; every other
// step is the ordinary API of that flavour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { throwsCode } from './support/assert.mjs';

const {
  Challenge, OprfServer, VoprfServer, PoprfServer, PrivacyPassIssuer, Token, hazmat,
} = await import('../pkg-testing/node.js');
const enc = (s) => new TextEncoder().encode(s);
const challengeFor = (tokenType, issuer) => Challenge.create({
  tokenType, issuerName: 'issuer.example', originInfo: 'origin.example', tokenKey: issuer.tokenKey,
});

const vectors = (name) =>
  JSON.parse(readFileSync(new URL(`../../../test-vectors/${name}`, import.meta.url), 'utf8'));
const hex = (s) => Uint8Array.from(Buffer.from(s, 'hex'));
const toHex = (b) => Buffer.from(b).toString('hex');
const list = (s) => s.split(',').map(hex);

const MODES = ['OPRF', 'VOPRF', 'POPRF'];
const SERVERS = [OprfServer, VoprfServer, PoprfServer];

for (const suite of vectors('rfc9497-voprf.json')) {
  const mode = MODES[suite.mode];
  test(`RFC 9497 ${suite.identifier} ${mode}: keys, blinds, evaluations, proofs, outputs`, () => {
    const id = suite.identifier;
    const server = SERVERS[suite.mode].derive(id, hex(suite.seed), hex(suite.keyInfo));
    assert.equal(toHex(server.secretKey()), suite.skSm, 'skSm');
    if (suite.mode !== 0) assert.equal(toHex(server.publicKey), suite.pkSm, 'pkSm');
    let checked = 0;
    for (const v of suite.vectors) {
      const inputs = list(v.Input);
      const blinds = list(v.Blind);
      const single = v.Batch === 1;
      const info = v.Info ? hex(v.Info) : undefined;
      let b;
      if (suite.mode === 0) {
        b = single ? hazmat.oprfBlind(id, inputs[0], blinds[0]) : hazmat.oprfBlindBatch(id, inputs, blinds);
      } else if (suite.mode === 1) {
        b = single
          ? hazmat.voprfBlind(id, server.publicKey, inputs[0], blinds[0])
          : hazmat.voprfBlindBatch(id, server.publicKey, inputs, blinds);
      } else {
        b = single
          ? hazmat.poprfBlind(id, server.publicKey, info, inputs[0], blinds[0])
          : hazmat.poprfBlindBatch(id, server.publicKey, info, inputs, blinds);
      }
      const blinded = single ? [b.blindedElement] : b.blindedElements;
      assert.deepEqual(blinded.map(toHex), v.BlindedElement.split(','), 'BlindedElement');
      let evaluated, output;
      if (suite.mode === 0) {
        evaluated = server.blindEvaluateBatch(blinded);
        assert.equal(toHex(server.blindEvaluate(blinded[0])), v.EvaluationElement.split(',')[0]);
        output = b.state.finalize(single ? evaluated[0] : evaluated);
      } else {
        const e = suite.mode === 1
          ? hazmat.voprfBlindEvaluateBatch(server, blinded, hex(v.Proof.r))
          : hazmat.poprfBlindEvaluateBatch(server, blinded, info, hex(v.Proof.r));
        evaluated = e.evaluatedElements;
        assert.equal(toHex(e.proof), v.Proof.proof, 'Proof');
        output = b.state.finalize(single ? evaluated[0] : evaluated, e.proof);
      }
      assert.deepEqual(evaluated.map(toHex), v.EvaluationElement.split(','), 'EvaluationElement');
      const outputs = single ? [output] : output;
      assert.deepEqual(outputs.map(toHex), v.Output.split(','), 'Output');
      inputs.forEach((input, i) => {
        const direct = suite.mode === 2 ? server.evaluate(input, info) : server.evaluate(input);
        assert.equal(toHex(direct), v.Output.split(',')[i], 'Evaluate');
      });
      checked++;
    }
    assert.equal(checked, suite.vectors.length);
  });
}

function checkSingle(v, tokenType, label) {
  const issuer = PrivacyPassIssuer.fromSecretKey(tokenType, hex(v.skS ?? v.sk_s));
  assert.equal(toHex(issuer.tokenKey), v.pkS ?? v.pk_s, `${label}: pkS from skS`);
  const challenge = Challenge.fromBytes(hex(v.token_challenge));
  assert.equal(challenge.tokenType, tokenType);
  const req = hazmat.createTokenRequest(challenge, issuer.tokenKey, [hex(v.nonce)], [hex(v.blind)], false);
  assert.equal(req.contentType, 'application/private-token-request');
  assert.equal(toHex(req.body), v.token_request, `${label}: token_request`);
  const [token] = req.state.finalize(hex(v.token_response));
  assert.equal(toHex(token.toBytes()), v.token, `${label}: token`);
  assert.equal(toHex(Token.fromBytes(hex(v.token)).toBytes()), v.token);
  assert.equal(issuer.verifyToken(hex(v.token), hex(v.token_challenge)), true, `${label}: verify`);
  const flipped = hex(v.token);
  flipped[flipped.length - 1] ^= 1;
  assert.equal(issuer.verifyToken(flipped, challenge), false, `${label}: flipped authenticator`);
  // Our own issuer's (randomized) response finalizes to the same token.
  const again = hazmat.createTokenRequest(challenge, issuer.tokenKey, [hex(v.nonce)], [hex(v.blind)], false);
  const ours = issuer.issue(again.body, again.contentType);
  assert.equal(toHex(again.state.finalize(ours.body)[0].toBytes()), v.token, `${label}: our response`);
}

test('RFC 9578 type 0x0001 vectors: request, finalized token and verification byte for byte', () => {
  const vs = vectors('rfc9578-type1.json');
  vs.forEach((v, i) => checkSingle(v, 1, `vector ${i}`));
  assert.equal(vs.length, 5);
});

test('pat-go type 0x0005 vectors: request, finalized token and verification byte for byte', () => {
  const vs = vectors('batched-tokens/pat-go-private-type5.json');
  vs.forEach((v, i) => checkSingle(v, 5, `vector ${i}`));
  assert.ok(vs.length > 0);
});

for (const [file, tokenType] of [['pat-go-amortized-type1.json', 1], ['pat-go-amortized-type5.json', 5]]) {
  test(`pat-go amortized batch vectors, type ${tokenType}: batched request and tokens byte for byte`, () => {
    const vs = vectors(`batched-tokens/${file}`);
    for (const [i, v] of vs.entries()) {
      const issuer = PrivacyPassIssuer.fromSecretKey(tokenType, hex(v.skS ?? v.sk_s));
      assert.equal(toHex(issuer.tokenKey), v.pkS ?? v.pk_s);
      const challenge = Challenge.fromBytes(hex(v.token_challenge));
      const req = hazmat.createTokenRequest(challenge, issuer.tokenKey, v.nonces.map(hex), v.blinds.map(hex), true);
      assert.equal(req.contentType, 'application/private-token-amortized-batch-request');
      assert.equal(toHex(req.body), v.token_request, `vector ${i}: token_request`);
      const tokens = req.state.finalize(hex(v.token_response));
      assert.deepEqual(tokens.map((t) => toHex(t.toBytes())), v.tokens, `vector ${i}: tokens`);
      for (const t of v.tokens) assert.equal(issuer.verifyToken(hex(t), hex(v.token_challenge)), true);
      const response = hex(v.token_response);
      response[response.length - 1] ^= 1;
      const again = hazmat.createTokenRequest(challenge, issuer.tokenKey, v.nonces.map(hex), v.blinds.map(hex), true);
      assert.throws(() => again.state.finalize(response), { code: /INVALID_PROOF|NON_CANONICAL_SCALAR/ });
    }
  });
}

test('hazmat: deterministic entry points refuse malformed blinds and nonces', () => {
  const issuer = PrivacyPassIssuer.generate(1);
  const c = challengeFor(1, issuer);
  const blind = new Uint8Array(48).fill(1);
  const nonce = new Uint8Array(32).fill(2);
  const a = hazmat.createTokenRequest(c, issuer.tokenKey, [nonce], [blind], false);
  const b = hazmat.createTokenRequest(c, issuer.tokenKey, [nonce], [blind], false);
  assert.deepEqual(a.body, b.body);
  throwsCode(() => hazmat.createTokenRequest(c, issuer.tokenKey, [nonce.slice(1)], [blind], false), 'INVALID_LENGTH', 'short nonce');
  throwsCode(() => hazmat.createTokenRequest(c, issuer.tokenKey, [nonce, nonce], [blind], true), 'BATCH', 'unequal lists');
  throwsCode(() => hazmat.createTokenRequest(c, issuer.tokenKey, [nonce], [new Uint8Array(48)], false), 'ZERO_SCALAR', 'zero blind');
  throwsCode(() => hazmat.voprfBlind('P256-SHA256', VoprfServer.generate('P256-SHA256').publicKey, enc('x'), new Uint8Array(32).fill(0xff)), 'NON_CANONICAL_SCALAR', 'blind >= order');
  throwsCode(() => hazmat.oprfBlindBatch('P256-SHA256', [enc('x')], []), 'BATCH', 'no blinds');
  const s = VoprfServer.generate('P256-SHA256');
  throwsCode(() => hazmat.voprfBlindEvaluateBatch(s, [s.publicKey], new Uint8Array(32)), 'ZERO_SCALAR', 'zero proof nonce');
});
