// Starts the issuer server of ../../../../server (the `privacy-tokens-server` binary) as a real
// process for the tests: built with `cargo build --release` (a no-op when it is up to date), on a
// free loopback port, with a temporary data directory and a config whose `issuer_name` and
// `origin_info` are the address the clients reach, and issuance open. Waits until the issuer
// directory answers, and stops the process (SIGTERM, then SIGKILL) and removes the directory.
//
// Both command lines are handled: `privacy-tokens-server --listen ADDR --data-dir DIR --config
// FILE` (keys created on first start), and the one with subcommands (`init --data-dir DIR`, then
// `serve --listen ADDR --data-dir DIR --config FILE`), told apart by `--help`. The config carries
// `[issuance] auth = "open"`; a server without the issuance gate refuses that section as an unknown
// field, and then starts without it.
//
// PRIVACY_TOKENS_SERVER_BIN names a prebuilt binary instead (no cargo build).
//
// `node --test` also runs this file (it is under test/): run as the entry point, it registers one
// test of itself (start, what the process serves and keeps, stop); imported, it registers none.

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const serverDir = resolve(here, '../../../../server');
const defaultBin = join(serverDir, 'target/release/privacy-tokens-server');

/** Runs a command, resolving with { code, out } (stdout and stderr together). */
function run(cmd, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code: code ?? signal, out }));
  });
}

let built;
/** The server binary's path, built once per process with `cargo build --release`. */
export function serverBinary() {
  if (process.env.PRIVACY_TOKENS_SERVER_BIN) {
    return Promise.resolve(process.env.PRIVACY_TOKENS_SERVER_BIN);
  }
  built ??= (async () => {
    const { code, out } = await run('cargo', ['build', '--release', '--bin', 'privacy-tokens-server'], {
      cwd: serverDir,
    });
    if (code !== 0) {
      throw new Error(`cargo build --release in ${serverDir} failed (${code}):\n${out.slice(-4000)}`);
    }
    if (!existsSync(defaultBin)) throw new Error(`no binary at ${defaultBin} after cargo build`);
    return defaultBin;
  })();
  return built;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolvePromise(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let cliCache;
async function cliStyle(bin) {
  cliCache ??= (async () => {
    const { out } = await run(bin, ['--help']);
    const subcommands = /^\s+init\b/m.test(out) && /^\s+serve\b/m.test(out);
    return { subcommands };
  })();
  return cliCache;
}

let gateCache; // undefined: not known yet; true/false once a start told
const live = new Set();
process.on('exit', () => {
  for (const child of live) {
    try { child.kill('SIGKILL'); } catch { /* gone */ }
  }
});

/**
 * Starts a server. Options: `toml` (extra top-level TOML lines, before any table, e.g.
 * `max_batch = 20`), `tables` (extra TOML tables, e.g. `[arc]\nrate_limit = 4`), `readyTimeoutMs`.
 * Returns { url, host, port, dataDir, bin, subcommands, issuanceGate, output(), stop() }.
 */
export async function startServer(options = {}) {
  const bin = await serverBinary();
  const { subcommands } = await cliStyle(bin);
  let lastError;
  for (let attempt = 0; attempt < 4; attempt++) {
    const withGate = gateCache ?? true;
    try {
      const server = await startOnce(bin, subcommands, withGate, options);
      gateCache = withGate;
      return server;
    } catch (e) {
      lastError = e;
      if (withGate && /unknown field `?issuance/.test(e.output ?? '')) {
        gateCache = false; // this server has no issuance gate: start it without the section
        continue;
      }
      if (/address already in use|Address in use|os error 98/i.test(e.output ?? '')) continue;
      throw e;
    }
  }
  throw lastError;
}

async function startOnce(bin, subcommands, withGate, options) {
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const base = await mkdtemp(join(tmpdir(), 'pt-server-'));
  const dataDir = join(base, 'data');
  const configPath = join(base, 'server.toml');
  const toml = [
    `issuer_name = "${host}"`,
    `origin_info = "${host}"`,
    options.toml ?? '',
    withGate ? '\n[issuance]\nauth = "open"' : '',
    options.tables ?? '',
    '',
  ].join('\n');
  await writeFile(configPath, toml);

  const env = { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'info' };
  let output = '';
  const fail = async (message) => {
    const err = new Error(`${message}\n--- server output ---\n${output.slice(-4000)}`);
    err.output = output;
    await rm(base, { recursive: true, force: true });
    return err;
  };

  if (subcommands) {
    const init = await run(bin, ['init', '--data-dir', dataDir], { env });
    output += init.out;
    if (init.code !== 0) throw await fail(`privacy-tokens-server init exited ${init.code}`);
  }
  const args = [
    ...(subcommands ? ['serve'] : []),
    '--listen', host, '--data-dir', dataDir, '--config', configPath,
  ];
  const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  let exited = null;
  const exitPromise = new Promise((r) => child.on('exit', (code, signal) => {
    exited = { code, signal };
    live.delete(child);
    r(exited);
  }));

  const url = `http://${host}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 20000);
  for (;;) {
    if (exited) throw await fail(`privacy-tokens-server ${args.join(' ')} exited ${exited.code ?? exited.signal} before it was ready`);
    try {
      const r = await fetch(`${url}/.well-known/private-token-issuer-directory`, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exitPromise;
      throw await fail(`privacy-tokens-server not ready at ${url} within the timeout`);
    }
    await sleep(50);
  }

  let stopped;
  return {
    url,
    host,
    port,
    dataDir,
    bin,
    subcommands,
    issuanceGate: withGate,
    output: () => output,
    /** SIGTERM (SIGKILL after 5 s); resolves with { code, signal } and removes the data dir. */
    stop() {
      stopped ??= (async () => {
        if (!exited) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exitPromise;
          clearTimeout(timer);
        }
        await rm(base, { recursive: true, force: true });
        return exited;
      })();
      return stopped;
    },
  };
}

/** The `[act]` table of the ACT tests (server_act.test.mjs, browser_chromium.test.mjs). */
export const ACT_CONFIG = { width: 16, issue_credits: 100, cost: 10, max_top_up: 5 };
const ACT_TABLE = `[act]\nenabled = true\n${Object.entries(ACT_CONFIG).map(([k, v]) => `${k} = ${v}`).join('\n')}`;

/**
 * Starts a server with ACT enabled (ACT_CONFIG) and reads its `/.well-known/act-configuration`:
 * `{ server, config }`, or `{ server, skip }` with the reason when this server has no ACT (it
 * refuses the `[act]` table as an unknown field, or does not serve the configuration): it is
 * then started without the table, for the callers' other tests. Options as for `startServer`
 * (`tables` are appended).
 */
export async function startActServer(options = {}) {
  let server;
  try {
    server = await startServer({ ...options, tables: `${options.tables ?? ''}\n${ACT_TABLE}` });
  } catch (e) {
    if (!/unknown field `?act/.test(e.output ?? '')) throw e;
    const bin = await serverBinary();
    server = await startServer(options);
    return { server, skip: `the server ${bin} has no ACT (it refuses the [act] table: unknown field \`act\`)` };
  }
  const res = await fetch(`${server.url}/.well-known/act-configuration`);
  const text = await res.text();
  if (res.status !== 200) {
    return { server, skip: `the server ${server.bin} answers GET /.well-known/act-configuration with ${res.status}` };
  }
  return { server, config: JSON.parse(text) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { test } = await import('node:test');
  const assert = (await import('node:assert/strict')).default;
  test('support/server.mjs: the server binary starts on a free loopback port with a temp data dir (master.key 0600) and serves both token types under its address; SIGTERM stops it with exit 0 and the dir is removed', { timeout: 20 * 60 * 1000 }, async () => {
    const s = await startServer();
    let exit;
    try {
      assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const key = await stat(join(s.dataDir, 'master.key'));
      assert.equal(key.mode & 0o777, 0o600);
      assert.equal(key.size, 32);
      const dir = await (await fetch(`${s.url}/.well-known/private-token-issuer-directory`)).json();
      assert.equal(dir['issuer-request-uri'], '/token-request');
      assert.deepEqual([...new Set(dir['token-keys'].map((k) => k['token-type']))].sort((a, b) => a - b), [1, 5, 58796]);
      const res = await fetch(`${s.url}/private`);
      await res.arrayBuffer();
      assert.equal(res.status, 401);
      // issuer_name and origin_info of the config are the address: both encoded in the challenges.
      const header = res.headers.get('www-authenticate');
      const challenge = Buffer.from(header.match(/challenge="?([A-Za-z0-9_=-]+)/)[1], 'base64url');
      assert.ok(challenge.includes(Buffer.from(s.host)), `challenge names ${s.host}`);
    } finally {
      exit = await s.stop();
    }
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(existsSync(s.dataDir), false);
    await assert.rejects(fetch(`${s.url}/private`)); // nothing listens there any more
  });
}
