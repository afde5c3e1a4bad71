import assert from 'node:assert/strict';
import { PrivacyTokensError } from 'privacy-tokens';

/** `fn` throws a PrivacyTokensError with `code`. */
export function throwsCode(fn, code, what = '') {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `${what}: expected ${code}, nothing thrown`);
  assert.ok(err instanceof PrivacyTokensError, `${what}: ${err} is not a PrivacyTokensError`);
  assert.equal(err.code, code, `${what}: ${err.message}`);
  assert.equal(err.name, 'PrivacyTokensError');
  assert.ok(err.message.length > 0);
}
