// node bench.mjs: ms per operation of this package (pkg/, the Node entry) beside
// @cloudflare/voprf-ts 1.0.0 and @cloudflare/privacypass-ts 0.8.1 (on voprf-ts's default crypto
// provider, as a new user gets it) on the same work, in one process, on the same key pair:
// P-384 VOPRF blind, blindEvaluate, finalize; a Privacy Pass type 0x0001 token request, issue and
// finalize; and a batch of 10 (ours an amortized batch; privacypass-ts 0.8.1 has no amortized
// batch, so 10 single requests there, as the op names say).
//
// Each flow runs in rounds (request -> issue -> finalize), each stage timed on its own; a few
// warm-up rounds first, then rounds until a time budget and a minimum count are both reached.
// The figure is the median per stage. Outputs are checked once per flow (both libraries' VOPRF
// outputs equal, tokens verify), so no broken path is timed.
//
// Output: one line per operation, `bench <op>: ours <ms> ms, voprf-ts <ms> ms, <ratio>x` (ratio =
// theirs / ours), then `bench: <N> ops, slowest ratio <ratio>x`, then the .wasm size per flavour.

import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import {
  VoprfServer, VoprfClient, PrivacyPassIssuer, Challenge, createTokenRequest,
} from 'privacy-tokens';
import { Oprf, VOPRFClient, VOPRFServer } from '@cloudflare/voprf-ts';
import * as pp from '@cloudflare/privacypass-ts';

const SUITE = Oprf.Suite.P384_SHA384;
const enc = new TextEncoder();
const now = () => performance.now();

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs `round` (async, returns { stage: ms }) `warmup` times untimed, then until `budgetMs` have
 * passed and at least `minRounds` ran (at most `maxRounds`); returns the median per stage.
 */
async function rounds(round, { warmup, minRounds, maxRounds, budgetMs }) {
  for (let i = 0; i < warmup; i++) await round();
  const times = {};
  const start = now();
  for (let n = 0; n < maxRounds && (n < minRounds || now() - start < budgetMs); n++) {
    for (const [k, v] of Object.entries(await round())) (times[k] ??= []).push(v);
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

const OURS = { warmup: 20, minRounds: 50, maxRounds: 5000, budgetMs: 1500 };
const THEIRS = { warmup: 1, minRounds: 5, maxRounds: 200, budgetMs: 4000 };
const THEIRS_BATCH = { warmup: 1, minRounds: 3, maxRounds: 50, budgetMs: 8000 };

const eq = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
function check(cond, what) {
  if (!cond) throw new Error(`bench: check failed: ${what}`);
}

// ---- P-384 VOPRF ---------------------------------------------------------------------------
const server = VoprfServer.generate('P384-SHA384');
const client = new VoprfClient('P384-SHA384', server.publicKey);
const vServer = new VOPRFServer(SUITE, server.secretKey());
const vClient = new VOPRFClient(SUITE, server.publicKey);
{
  const input = enc.encode('bench check');
  const { blindedElement, state } = client.blind(input);
  const { evaluatedElement, proof } = server.blindEvaluate(blindedElement);
  const ours = state.finalize(evaluatedElement, proof);
  const [fin, req] = await vClient.blind([input]);
  const [theirs] = await vClient.finalize(fin, await vServer.blindEvaluate(req));
  check(eq(ours, theirs) && eq(ours, server.evaluate(input)), 'VOPRF outputs of both libraries equal');
}
let counter = 0;
const oursVoprf = await rounds(async () => {
  const input = enc.encode(`input ${counter++}`);
  const t0 = now();
  const { blindedElement, state } = client.blind(input);
  const t1 = now();
  const { evaluatedElement, proof } = server.blindEvaluate(blindedElement);
  const t2 = now();
  state.finalize(evaluatedElement, proof);
  const t3 = now();
  state.free();
  return { blind: t1 - t0, blindEvaluate: t2 - t1, finalize: t3 - t2 };
}, OURS);
const theirsVoprf = await rounds(async () => {
  const input = enc.encode(`input ${counter++}`);
  const t0 = now();
  const [fin, req] = await vClient.blind([input]);
  const t1 = now();
  const ev = await vServer.blindEvaluate(req);
  const t2 = now();
  await vClient.finalize(fin, ev);
  const t3 = now();
  return { blind: t1 - t0, blindEvaluate: t2 - t1, finalize: t3 - t2 };
}, THEIRS);

// ---- Privacy Pass type 0x0001 --------------------------------------------------------------
const issuer = PrivacyPassIssuer.fromSecretKey(0x0001, server.secretKey());
const redemptionContext = crypto.getRandomValues(new Uint8Array(32));
const challenge = Challenge.create({
  tokenType: 1, issuerName: 'issuer.example', originInfo: 'origin.example', redemptionContext,
  tokenKey: issuer.tokenKey,
});
const ppChallenge = new pp.TokenChallenge(1, 'issuer.example', redemptionContext, ['origin.example']);
const ppIssuer = new pp.privateVerif.Issuer('issuer.example', server.secretKey(), issuer.tokenKey);

async function oursTokens(count) {
  const t0 = now();
  const req = count === 1 ? createTokenRequest(challenge) : createTokenRequest(challenge, { count });
  const t1 = now();
  const res = issuer.issue(req.body, req.contentType);
  const t2 = now();
  const tokens = req.state.finalize(res.body);
  const t3 = now();
  return { times: { request: t1 - t0, issue: t2 - t1, finalize: t3 - t2 }, tokens };
}
async function theirsTokens(count) {
  const clients = Array.from({ length: count }, () => new pp.privateVerif.Client());
  const t0 = now();
  const reqs = [];
  for (const c of clients) reqs.push(await c.createTokenRequest(ppChallenge, issuer.tokenKey));
  const t1 = now();
  const ress = [];
  for (const r of reqs) ress.push(await ppIssuer.issue(r));
  const t2 = now();
  const tokens = [];
  for (let i = 0; i < count; i++) tokens.push(await clients[i].finalize(ress[i]));
  const t3 = now();
  return { times: { request: t1 - t0, issue: t2 - t1, finalize: t3 - t2 }, tokens };
}
for (const count of [1, 10]) {
  const ours = (await oursTokens(count)).tokens;
  const theirs = (await theirsTokens(count)).tokens;
  check(ours.length === count && theirs.length === count, `${count} tokens each`);
  for (const t of ours) check(await ppIssuer.verify(pp.Token.deserialize(pp.TOKEN_TYPES.VOPRF, t.toBytes())), 'our token verifies with privacypass-ts');
  for (const t of theirs) check(issuer.verifyToken(t.serialize(), challenge.toBytes()), 'privacypass-ts token verifies with ours');
}
const freeAll = (tokens) => tokens.forEach((t) => t.free());
const oursSingle = await rounds(async () => { const r = await oursTokens(1); freeAll(r.tokens); return r.times; }, OURS);
const theirsSingle = await rounds(async () => (await theirsTokens(1)).times, THEIRS);
const oursBatch = await rounds(async () => { const r = await oursTokens(10); freeAll(r.tokens); return r.times; }, { ...OURS, minRounds: 20 });
const theirsBatch = await rounds(async () => (await theirsTokens(10)).times, THEIRS_BATCH);

// ---- Report --------------------------------------------------------------------------------
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const fmtRatio = (r) => (r >= 10 ? r.toFixed(0) : r.toFixed(1));
const batchNote = '(privacypass-ts: 10 single tokens, 0.8.1 has no amortized batch)';
const ops = [
  ['P-384 VOPRF blind', oursVoprf.blind, theirsVoprf.blind],
  ['P-384 VOPRF blindEvaluate', oursVoprf.blindEvaluate, theirsVoprf.blindEvaluate],
  ['P-384 VOPRF finalize', oursVoprf.finalize, theirsVoprf.finalize],
  ['Privacy Pass 0x0001 token request', oursSingle.request, theirsSingle.request],
  ['Privacy Pass 0x0001 issue', oursSingle.issue, theirsSingle.issue],
  ['Privacy Pass 0x0001 finalize', oursSingle.finalize, theirsSingle.finalize],
  [`Privacy Pass 0x0001 batch of 10 token request ${batchNote}`, oursBatch.request, theirsBatch.request],
  [`Privacy Pass 0x0001 batch of 10 issue ${batchNote}`, oursBatch.issue, theirsBatch.issue],
  [`Privacy Pass 0x0001 batch of 10 finalize ${batchNote}`, oursBatch.finalize, theirsBatch.finalize],
];
let slowest = Infinity;
for (const [op, ours, theirs] of ops) {
  const ratio = theirs / ours;
  slowest = Math.min(slowest, ratio);
  console.log(`bench ${op}: ours ${fmt(ours)} ms, voprf-ts ${fmt(theirs)} ms, ${fmtRatio(ratio)}x`);
}
console.log(`bench: ${ops.length} ops, slowest ratio ${fmtRatio(slowest)}x`);
for (const flavour of ['full', 'client']) {
  const wasm = readFileSync(new URL(`./pkg/${flavour}/privacy_tokens_bg.wasm`, import.meta.url));
  console.log(`wasm ${flavour}: ${wasm.length} bytes, ${gzipSync(wasm, { level: 9 }).length} gzipped`);
}
