// A control, run by test/oprf_errors.test.mjs and required to FAIL: the INVERSE case of that
// test with a wrong expectation (INVALID_INPUT). If this ever passes, throwsCode or the error
// mapping has stopped telling codes apart. Outside test/ so that `node --test` does not run it
// directly.
import { test } from 'node:test';
import { PoprfServer } from 'privacy-tokens';
import { throwsCode } from '../test/support/assert.mjs';

const enc = (s) => new TextEncoder().encode(s);
const key = Uint8Array.from(Buffer.from('46c5c1b7ce9df669e4cc754263c1ea8b5cc9d363d958eca204923a7c2d4c83b6', 'hex'));

test('control (must fail): the P256 inverse key evaluated with its info', () => {
  const server = PoprfServer.fromSecretKey('P256-SHA256', key);
  throwsCode(() => server.evaluate(enc('alpha'), enc('rotate me')), 'INVALID_INPUT', 'wrong on purpose');
});
