// The two error codes only a crafted POPRF key reaches (BND-22), ported from the C suite
// (bindings/c/tests/test_oprf.c, poprf_bad_input): for each suite, skS = -m for the POPRF info
// "rotate me", m = HashToScalar("Info" || I2OSP(len(info), 2) || info) (RFC 9497 §3.3.3),
// computed independently with Python's hashlib. The server's tweaked key skS + m is 0, so it
// refuses with INVERSE; a client's tweaked key m*G + pkS is the identity, so it refuses with
// INVALID_INPUT. And the control: controls/wrong-expectation.mjs expects the wrong code for one
// of these calls and must fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PoprfClient, PoprfServer } from 'privacy-tokens';
import { throwsCode } from './support/assert.mjs';

const enc = (s) => new TextEncoder().encode(s);
const hex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
export const ROTATE_INFO = enc('rotate me');
export const INVERSE_KEYS = {
  'P256-SHA256': hex('46c5c1b7ce9df669e4cc754263c1ea8b5cc9d363d958eca204923a7c2d4c83b6'),
  'P384-SHA384': hex('825ae664736d122ad10239821422a1fba2f52c20b87b49b456d36fbf2a36ff0825dc205313f9a15ab4621e4c25a6b39b'),
  'P521-SHA512': hex('01239f3e89dfa3132dd3de3d5f7599522af6cb418c864ca11474360ad0ca684a93b5a2ad51e28bf145edfdee2bdf5a04302751958415255da6c55bc8da57f298ca05'),
  'ristretto255-SHA512': hex('39cacbf69a7814a844bce50d1faa6b826db047dbdbaba2724c25f1f5c2d2a60a'),
  'decaf448-SHAKE256': hex('5a31d4b7ab92d82b8ecebcbd4acb00ca20fcc192de490b2937d234f29785062e62ab3e25a7f13de3b3d4a863909bdf82aebc9d2bbb7a710f'),
};
const INPUTS = [enc('alpha'), enc(''), enc('gamma gamma')];

for (const [suite, key] of Object.entries(INVERSE_KEYS)) {
  test(`POPRF ${suite}: a key whose tweak for the info is 0 gives INVERSE (server) and INVALID_INPUT (client)`, () => {
    const server = PoprfServer.fromSecretKey(suite, key);
    const good = PoprfServer.generate(suite);
    // A blinded element from a client of another key.
    const { blindedElement } = new PoprfClient(suite, good.publicKey, ROTATE_INFO).blind(INPUTS[0]);
    throwsCode(() => server.blindEvaluate(blindedElement, ROTATE_INFO), 'INVERSE', 'blindEvaluate');
    throwsCode(() => server.blindEvaluateBatch([blindedElement], ROTATE_INFO), 'INVERSE', 'blindEvaluateBatch');
    throwsCode(() => server.evaluate(INPUTS[0], ROTATE_INFO), 'INVERSE', 'evaluate');
    // The same key with another info works.
    assert.equal(server.evaluate(INPUTS[0], enc('test info')).length > 0, true);
    // A client of that key and info: its tweaked key is the identity.
    const bad = new PoprfClient(suite, server.publicKey, ROTATE_INFO);
    throwsCode(() => bad.blind(INPUTS[0]), 'INVALID_INPUT', 'blind');
    throwsCode(() => bad.blindBatch(INPUTS), 'INVALID_INPUT', 'blindBatch');
  });
}

test('control: a deliberately wrong expectation (INVALID_INPUT where the server gives INVERSE) fails', () => {
  const control = fileURLToPath(new URL('../controls/wrong-expectation.mjs', import.meta.url));
  // A fresh test runner (not a child of this one, which would report to it instead of stdout).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', control], { encoding: 'utf8', env });
  assert.notEqual(r.status, 0, `the control passed:\n${r.stdout}`);
  assert.match(r.stdout, /# fail 1/);
  assert.match(r.stdout, /'INVERSE'/, 'it failed on the code, not on something else');
  assert.match(r.stdout, /'INVALID_INPUT'/);
});
