// Compiled by test/types.test.mjs with `tsc --noEmit --strict`: the package's declarations
// type the whole client, issuer and OPRF flow, and reject misuse (the @ts-expect-error lines
// must be errors, or tsc fails).
import init, {
  ArcIssuer, Challenge, Credential, PrivacyPassIssuer, PrivacyTokensError, Token, VoprfClient,
  VoprfServer, authorizationHeader, createCredentialRequest, createTokenRequest, encodeExtensions,
  parseAuthorization, parseAuthorizationWithExtensions, type AuthorizationWithExtensions,
  parseChallenges, parseIssuerDirectory, type ErrorCode, type IssuerDirectory,
  type TokenRequest,
} from 'privacy-tokens';
import { createTokenRequest as clientRequest } from 'privacy-tokens/client';

export async function flow(header: string): Promise<string> {
  await init();
  const challenges: Challenge[] = parseChallenges(header);
  const c = challenges.find((x) => x.supported && x.tokenType === 1);
  if (!c) throw new Error('no challenge');
  const maxAge: number | undefined = c.maxAge;
  const req: TokenRequest = createTokenRequest(c, { count: 10 });
  const body: Uint8Array = req.body;
  const ct: string = req.contentType;
  const issuer = PrivacyPassIssuer.generate(1);
  const resp = issuer.issue(body, ct);
  const tokens: Token[] = req.state.finalize(resp.body);
  const ok: boolean = issuer.verifyToken(tokens[0].toBytes(), c.toBytes())
    && issuer.verifyToken(tokens[0].toBytes(), c)
    && issuer.verifyTokenAnyChallenge(tokens[0].toBytes());
  // @ts-expect-error: the challenge is required
  issuer.verifyToken(tokens[0].toBytes());
  createTokenRequest(c, { count: 1, batch: true });
  const again = clientRequest(c);
  again.state.free();
  const dir: IssuerDirectory = parseIssuerDirectory('{}');
  const key: Uint8Array = dir.tokenKeys[0].tokenKey;
  const bytes: Uint8Array = parseAuthorization(tokens[0].authorizationHeader());
  const ext: Uint8Array = encodeExtensions([{ type: 1, data: bytes }]);
  const withExt: string = tokens[0].authorizationHeader(ext) + authorizationHeader(bytes, ext)
    + authorizationHeader(bytes);
  const parsed: AuthorizationWithExtensions = parseAuthorizationWithExtensions(withExt);
  const parsedToken: Uint8Array = parsed.token;
  const parsedExt: Uint8Array | undefined = parsed.extensions;
  // @ts-expect-error: the extensions are their encoding (encodeExtensions), not the list
  tokens[0].authorizationHeader([{ type: 1, data: bytes }]);

  const arc = ArcIssuer.generate();
  const cr = createCredentialRequest(c);
  const cred: Credential = cr.state.finalize(arc.issue(cr.body).body);
  const t: Token = cred.present(c, { rateLimit: 10 });
  const tag: Uint8Array = arc.verify(t.toBytes(), c, 10);
  const saved: Uint8Array = cred.toBytes();
  Credential.fromBytes(saved);

  const server = VoprfServer.generate('P384-SHA384');
  const { blindedElement, state } = new VoprfClient('P384-SHA384', server.publicKey).blind(bytes);
  const { evaluatedElement, proof } = server.blindEvaluate(blindedElement);
  const out = state.finalize(evaluatedElement, proof);

  try {
    Token.fromBytes(key);
  } catch (e) {
    if (e instanceof PrivacyTokensError) {
      const code: ErrorCode = e.code;
      return code;
    }
  }
  // @ts-expect-error: not a suite name
  VoprfServer.generate('P256');
  // @ts-expect-error: bytes are Uint8Array, not strings
  Token.fromBytes('AAEA');
  // @ts-expect-error: count is a number
  createTokenRequest(c, { count: '10' });
  return `${maxAge} ${ok} ${tag.length} ${saved.length} ${String(out)} ${maxAge} ${parsedToken.length} ${parsedExt?.length}`;
}

// ACT: the client, the Moderator and redeem, with bigint balances and amounts.
import {
  ActContext, ActCredential, ActModerator, ActNullifierStore, ActSpendState, actKeyId,
  createActIssueRequest, type ActIssueRequest, type ActRedeemResult, type ActSpendResult,
} from 'privacy-tokens';
import { ActContext as ClientActContext, createActIssueRequest as clientActRequest } from 'privacy-tokens/client';

export function act(spendContext: Uint8Array): bigint {
  const m = ActModerator.generate();
  const ctx = new ActContext(new TextEncoder().encode('epoch'), 8);
  const width: number = ctx.width;
  const pk: Uint8Array = m.publicKey;
  const kid: Uint8Array = actKeyId(pk);
  const r: ActIssueRequest = createActIssueRequest();
  const cred: ActCredential = r.state.finalize(ctx, pk, m.issue(ctx, 10, r.message));
  const balance: bigint = cred.balance;
  const saved: Uint8Array = cred.toBytes();
  const s: ActSpendResult = ActCredential.fromBytes(saved).proveSpend(ctx, 3, 0n, spendContext);
  const v = m.verifySpend(ctx, s.message, spendContext);
  const amount: bigint = v.amount + v.topUp;
  const refund: Uint8Array = m.issueRefund(ctx, v, 1);
  const next: ActCredential = ActSpendState.fromBytes(s.state.toBytes()).finalize(ctx, pk, refund);
  const store = new ActNullifierStore();
  const red: ActRedeemResult = m.redeem(ctx, s.message, spendContext, (a, t) => a + t, store);
  const status: 'fresh' | 'replayed' = red.status;
  m.redeemWith(ctx, s.message, spendContext, () => 0, (n, b) => (n.length ? b : null));
  // @ts-expect-error: the amount is a number or a bigint
  cred.proveSpend(ctx, '3', 0, spendContext);
  // @ts-expect-error: the spend context is bytes
  cred.proveSpend(ctx, 3, 0, 'ctx');
  // @ts-expect-error: the policy is a function
  m.redeem(ctx, s.message, spendContext, 5, store);
  const c2 = new ClientActContext(new Uint8Array(1), 8);
  clientActRequest().state.free();
  return balance + next.balance + amount + BigInt(width + kid.length + store.size + c2.width + status.length);
}
