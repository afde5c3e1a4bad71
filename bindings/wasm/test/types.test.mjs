// The TypeScript declarations: a strict `tsc --noEmit` of test/types/usage.ts, which uses the
// whole API through the package's `exports` and expects errors on misuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

test('TypeScript: strict tsc --noEmit of a program using every class through the package exports', () => {
  const require = createRequire(import.meta.url);
  const tsc = require.resolve('typescript/bin/tsc');
  const usage = fileURLToPath(new URL('./types/usage.ts', import.meta.url));
  let out = '';
  try {
    execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
      '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', '--skipLibCheck', 'false', usage], { encoding: 'utf8' });
  } catch (e) {
    out = `${e.stdout}${e.stderr}`;
  }
  assert.equal(out, '', out);
});
