/* ACT (Anonymous Credit Tokens, ACTv1-P256-SHA256) through the C ABI: the client's issuance,
 * spend and refund against the Moderator, persistence of credentials and states, the
 * Moderator's verify / refund and redeem (fresh, replayed, refused by the policy), and misuse:
 * consumed states used again, wrong lengths, NULL arguments, handles of another type. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define WIDTH 8
static const uint8_t CTX_CRED[] = "act-test-epoch";
static const uint8_t SPEND_CTX[] = "act-test-spend-context";

typedef struct {
    pt_act_moderator *m;
    pt_act_context *ctx;
    pt_buffer pk;
} fixture;

static fixture setup(void) {
    fixture f = {NULL, NULL, {NULL, 0}};
    OK(pt_act_moderator_generate(&f.m));
    OK(pt_act_context_new(CTX_CRED, sizeof CTX_CRED - 1, WIDTH, true, &f.ctx));
    OK(pt_act_moderator_public_key(f.m, &f.pk));
    return f;
}

static void teardown(fixture *f) {
    pt_buffer_free(&f->pk);
    pt_act_context_free(f->ctx);
    pt_act_moderator_free(f->m);
}

/* A credential of `credits` from the Moderator (request, issue, finalize). */
static pt_act_credential *issue(const fixture *f, uint64_t credits) {
    pt_buffer req = {NULL, 0}, resp = {NULL, 0};
    pt_act_issuance_state *st = NULL;
    pt_act_credential *cred = NULL;
    OK(pt_act_issue_request(&req, &st));
    OK(pt_act_moderator_issue(f->m, f->ctx, credits, req.data, req.len, &resp));
    OK(pt_act_issuance_state_finalize(st, f->ctx, f->pk.data, f->pk.len, resp.data, resp.len, &cred));
    pt_buffer_free(&req);
    pt_buffer_free(&resp);
    pt_act_issuance_state_free(st);
    return cred;
}

static void context_and_keys(void) {
    fixture f = setup();
    uint8_t w = 0;
    OK(pt_act_context_width(f.ctx, &w));
    CHECK(w == WIDTH);
    CHECK(f.pk.len == 33);
    pt_act_context *bad = (pt_act_context *)1;
    EXPECT(pt_act_context_new(CTX_CRED, 3, 0, true, &bad), PT_UNSUPPORTED_VALUE);
    CHECK(bad == NULL);
    EXPECT(pt_act_context_new(CTX_CRED, 3, 65, false, &bad), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_act_context_new(NULL, 3, 8, true, &bad), PT_NULL_ARGUMENT);

    pt_buffer sk = {NULL, 0}, pk2 = {NULL, 0}, kid = {NULL, 0};
    OK(pt_act_moderator_secret_key(f.m, &sk));
    CHECK(sk.len == 32);
    pt_act_moderator *again = NULL;
    OK(pt_act_moderator_from_secret_key(sk.data, sk.len, &again));
    OK(pt_act_moderator_public_key(again, &pk2));
    CHECK(buf_eq(&pk2, f.pk.data, f.pk.len));
    pt_act_moderator *short_key = (pt_act_moderator *)1;
    EXPECT(pt_act_moderator_from_secret_key(sk.data, 31, &short_key), PT_INVALID_LENGTH);
    CHECK(short_key == NULL);
    OK(pt_act_key_id(f.pk.data, f.pk.len, &kid));
    CHECK(kid.len == 32);

    /* DeriveKeyPair: deterministic in its seed and info; 48 bytes only. */
    uint8_t seed[48];
    memset(seed, 7, sizeof seed);
    pt_act_moderator *d1 = NULL, *d2 = NULL;
    pt_buffer p1 = {NULL, 0}, p2 = {NULL, 0};
    OK(pt_act_moderator_derive(seed, sizeof seed, (const uint8_t *)"info", 4, &d1));
    OK(pt_act_moderator_derive(seed, sizeof seed, (const uint8_t *)"info", 4, &d2));
    OK(pt_act_moderator_public_key(d1, &p1));
    OK(pt_act_moderator_public_key(d2, &p2));
    CHECK(buf_eq(&p1, p2.data, p2.len));
    pt_act_moderator *d3 = (pt_act_moderator *)1;
    EXPECT(pt_act_moderator_derive(seed, 47, NULL, 0, &d3), PT_INVALID_LENGTH);
    CHECK(d3 == NULL);
    EXPECT(pt_act_moderator_generate(NULL), PT_NULL_ARGUMENT);

    pt_buffer_free(&p1);
    pt_buffer_free(&p2);
    pt_act_moderator_free(d1);
    pt_act_moderator_free(d2);
    pt_buffer_free(&sk);
    pt_buffer_free(&pk2);
    pt_buffer_free(&kid);
    pt_act_moderator_free(again);
    teardown(&f);
}

/* Issue 10, spend 3 with top-up 0, refund 1: balance 8; spend it all. */
static void flow(void) {
    fixture f = setup();
    pt_act_credential *cred = issue(&f, 10);
    uint64_t bal = 0;
    OK(pt_act_credential_balance(cred, &bal));
    CHECK(bal == 10);

    pt_buffer msg = {NULL, 0};
    pt_act_spend_state *sst = NULL;
    OK(pt_act_credential_prove_spend(cred, f.ctx, 3, 0, SPEND_CTX, sizeof SPEND_CTX - 1, &msg, &sst));
    bool consumed = false;
    OK(pt_act_credential_consumed(cred, &consumed));
    CHECK(consumed);

    pt_act_verified_spend *v = NULL;
    OK(pt_act_moderator_verify_spend(f.m, f.ctx, msg.data, msg.len, SPEND_CTX, sizeof SPEND_CTX - 1, &v));
    uint64_t s = 0, a = 9;
    OK(pt_act_verified_spend_amounts(v, &s, &a));
    CHECK(s == 3 && a == 0);
    pt_buffer nul = {NULL, 0}, refund = {NULL, 0}, again = {NULL, 0};
    OK(pt_act_verified_spend_nullifier(v, &nul));
    CHECK(nul.len == 32);
    EXPECT(pt_act_moderator_issue_refund(f.m, f.ctx, v, 4, &refund), PT_OUT_OF_RANGE);
    OK(pt_act_moderator_issue_refund(f.m, f.ctx, v, 1, &refund));
    EXPECT(pt_act_moderator_issue_refund(f.m, f.ctx, v, 1, &again), PT_STATE_CONSUMED);
    CHECK(again.data == NULL);

    /* The spend state persisted and restored before the refund comes. */
    pt_buffer stb = {NULL, 0};
    OK(pt_act_spend_state_to_bytes(sst, &stb));
    CHECK(stb.len == 121);
    pt_act_spend_state *restored = NULL;
    EXPECT(pt_act_spend_state_from_bytes(stb.data, stb.len - 1, &restored), PT_INVALID_LENGTH);
    CHECK(restored == NULL);
    OK(pt_act_spend_state_from_bytes(stb.data, stb.len, &restored));

    pt_act_credential *next = NULL;
    OK(pt_act_spend_state_finalize(restored, f.ctx, f.pk.data, f.pk.len, refund.data, refund.len, &next));
    OK(pt_act_spend_state_consumed(restored, &consumed));
    CHECK(consumed);
    OK(pt_act_credential_balance(next, &bal));
    CHECK(bal == 8);

    /* The credential persisted and restored, then spent to zero. */
    pt_buffer cb = {NULL, 0};
    OK(pt_act_credential_to_bytes(next, &cb));
    CHECK(cb.len == 137);
    pt_act_credential *copy = NULL;
    EXPECT(pt_act_credential_from_bytes(cb.data, 5, &copy), PT_INVALID_LENGTH);
    OK(pt_act_credential_from_bytes(cb.data, cb.len, &copy));
    pt_buffer msg2 = {NULL, 0};
    pt_act_spend_state *sst2 = NULL;
    OK(pt_act_credential_prove_spend(copy, f.ctx, 8, 0, SPEND_CTX, sizeof SPEND_CTX - 1, &msg2, &sst2));
    pt_act_verified_spend *v2 = NULL;
    OK(pt_act_moderator_verify_spend(f.m, f.ctx, msg2.data, msg2.len, SPEND_CTX, sizeof SPEND_CTX - 1, &v2));

    pt_buffer_free(&msg);
    pt_buffer_free(&msg2);
    pt_buffer_free(&nul);
    pt_buffer_free(&refund);
    pt_buffer_free(&stb);
    pt_buffer_free(&cb);
    pt_act_verified_spend_free(v);
    pt_act_verified_spend_free(v2);
    pt_act_spend_state_free(sst);
    pt_act_spend_state_free(sst2);
    pt_act_spend_state_free(restored);
    pt_act_credential_free(cred);
    pt_act_credential_free(next);
    pt_act_credential_free(copy);
    teardown(&f);
}

/* redeem: fresh, then the same spend replayed (the stored refund, nothing recorded), a second
 * spend of a spent credential refused as replayed, the policy's refusal. */
static void redeem(void) {
    fixture f = setup();
    pt_act_nullifier_store *store = NULL;
    OK(pt_act_nullifier_store_new(&store));
    pt_act_credential *cred = issue(&f, 20);
    pt_buffer cb = {NULL, 0};
    OK(pt_act_credential_to_bytes(cred, &cb));

    pt_buffer msg = {NULL, 0}, refund = {NULL, 0}, nul = {NULL, 0};
    pt_act_spend_state *sst = NULL;
    OK(pt_act_credential_prove_spend(cred, f.ctx, 4, 2, SPEND_CTX, sizeof SPEND_CTX - 1, &msg, &sst));
    bool replayed = true;
    OK(pt_act_moderator_redeem(f.m, f.ctx, msg.data, msg.len, SPEND_CTX, sizeof SPEND_CTX - 1,
                               2, 2, store, &refund, &nul, &replayed));
    CHECK(!replayed && nul.len == 32);
    size_t n = 0;
    OK(pt_act_nullifier_store_len(store, &n));
    CHECK(n == 1);

    pt_buffer refund2 = {NULL, 0}, nul2 = {NULL, 0};
    OK(pt_act_moderator_redeem(f.m, f.ctx, msg.data, msg.len, SPEND_CTX, sizeof SPEND_CTX - 1,
                               2, 2, store, &refund2, &nul2, &replayed));
    CHECK(replayed && buf_eq(&refund2, refund.data, refund.len) && buf_eq(&nul2, nul.data, nul.len));
    OK(pt_act_nullifier_store_len(store, &n));
    CHECK(n == 1);

    /* The copy of the spent credential spent again: the same nullifier, replayed. */
    pt_act_credential *copy = NULL;
    OK(pt_act_credential_from_bytes(cb.data, cb.len, &copy));
    pt_buffer msg3 = {NULL, 0}, refund3 = {NULL, 0}, nul3 = {NULL, 0};
    pt_act_spend_state *sst3 = NULL;
    OK(pt_act_credential_prove_spend(copy, f.ctx, 4, 2, SPEND_CTX, sizeof SPEND_CTX - 1, &msg3, &sst3));
    OK(pt_act_moderator_redeem(f.m, f.ctx, msg3.data, msg3.len, SPEND_CTX, sizeof SPEND_CTX - 1,
                               2, 2, store, &refund3, &nul3, &replayed));
    CHECK(replayed && buf_eq(&nul3, nul.data, nul.len));
    /* Its stored refund does not finalize against the second spend's state. */
    pt_act_credential *none = NULL;
    EXPECT(pt_act_spend_state_finalize(sst3, f.ctx, f.pk.data, f.pk.len, refund3.data, refund3.len, &none),
           PT_INVALID_PROOF);
    bool consumed = true;
    OK(pt_act_spend_state_consumed(sst3, &consumed));
    CHECK(!consumed);

    /* The first spend's refund: 4 - 2 + 2 = 4 back, 20 - 4 + 4 = 20. */
    pt_act_credential *next = NULL;
    OK(pt_act_spend_state_finalize(sst, f.ctx, f.pk.data, f.pk.len, refund.data, refund.len, &next));
    uint64_t bal = 0;
    OK(pt_act_credential_balance(next, &bal));
    CHECK(bal == 20);

    /* The policy: a top-up over max_top_up, an amount under the cost: refused, nothing
     * recorded. */
    pt_buffer msg4 = {NULL, 0}, r4 = {NULL, 0}, n4 = {NULL, 0};
    pt_act_spend_state *sst4 = NULL;
    OK(pt_act_credential_prove_spend(next, f.ctx, 1, 1, SPEND_CTX, sizeof SPEND_CTX - 1, &msg4, &sst4));
    EXPECT(pt_act_moderator_redeem(f.m, f.ctx, msg4.data, msg4.len, SPEND_CTX, sizeof SPEND_CTX - 1,
                                   1, 0, store, &r4, &n4, &replayed),
           PT_LIMIT_EXCEEDED);
    EXPECT(pt_act_moderator_redeem(f.m, f.ctx, msg4.data, msg4.len, SPEND_CTX, sizeof SPEND_CTX - 1,
                                   2, 1, store, &r4, &n4, &replayed),
           PT_LIMIT_EXCEEDED);
    CHECK(r4.data == NULL && n4.data == NULL && !replayed);
    OK(pt_act_nullifier_store_len(store, &n));
    CHECK(n == 1);
    /* Another spend context: the proof fails. */
    EXPECT(pt_act_moderator_redeem(f.m, f.ctx, msg4.data, msg4.len, (const uint8_t *)"x", 1,
                                   1, 1, store, &r4, &n4, &replayed),
           PT_INVALID_PROOF);
    EXPECT(pt_act_moderator_redeem(f.m, f.ctx, msg4.data, msg4.len, SPEND_CTX, sizeof SPEND_CTX - 1,
                                   1, 1, store, &r4, &r4, &replayed),
           PT_INVALID_ARGUMENT);

    pt_buffer_free(&cb);
    pt_buffer_free(&msg);
    pt_buffer_free(&refund);
    pt_buffer_free(&nul);
    pt_buffer_free(&refund2);
    pt_buffer_free(&nul2);
    pt_buffer_free(&msg3);
    pt_buffer_free(&refund3);
    pt_buffer_free(&nul3);
    pt_buffer_free(&msg4);
    pt_act_spend_state_free(sst);
    pt_act_spend_state_free(sst3);
    pt_act_spend_state_free(sst4);
    pt_act_credential_free(cred);
    pt_act_credential_free(copy);
    pt_act_credential_free(next);
    pt_act_nullifier_store_free(store);
    teardown(&f);
}

/* Consumed states, refused messages that leave the state usable, wrong lengths and NULLs. */
static void misuse(void) {
    fixture f = setup();
    pt_buffer req = {NULL, 0}, resp = {NULL, 0}, sb = {NULL, 0};
    pt_act_issuance_state *st = NULL;
    OK(pt_act_issue_request(&req, &st));
    CHECK(req.len == 129);
    pt_buffer_free(&req);
    EXPECT(pt_act_issue_request(&req, NULL), PT_NULL_ARGUMENT);
    CHECK(req.data == NULL);
    pt_act_issuance_state_free(st);
    OK(pt_act_issue_request(&req, &st));

    /* The state persisted: 97 bytes, restored. */
    OK(pt_act_issuance_state_to_bytes(st, &sb));
    CHECK(sb.len == 97);
    pt_act_issuance_state *st2 = NULL;
    OK(pt_act_issuance_state_from_bytes(sb.data, sb.len, &st2));
    pt_act_issuance_state *st3 = (pt_act_issuance_state *)1;
    EXPECT(pt_act_issuance_state_from_bytes(sb.data, 96, &st3), PT_INVALID_LENGTH);
    CHECK(st3 == NULL);

    /* Wrong request length; credits beyond 2^L. */
    EXPECT(pt_act_moderator_issue(f.m, f.ctx, 5, req.data, req.len - 1, &resp), PT_INVALID_LENGTH);
    EXPECT(pt_act_moderator_issue(f.m, f.ctx, 256, req.data, req.len, &resp), PT_OUT_OF_RANGE);
    EXPECT(pt_act_moderator_issue(f.m, NULL, 5, req.data, req.len, &resp), PT_NULL_ARGUMENT);
    OK(pt_act_moderator_issue(f.m, f.ctx, 5, req.data, req.len, &resp));

    pt_act_credential *cred = NULL;
    /* A truncated response: decoding fails, the state stays usable. */
    EXPECT(pt_act_issuance_state_finalize(st, f.ctx, f.pk.data, f.pk.len, resp.data, resp.len - 1, &cred),
           PT_INVALID_LENGTH);
    /* Another Moderator's key: the proof fails, the state stays usable. */
    pt_act_moderator *other = NULL;
    pt_buffer opk = {NULL, 0};
    OK(pt_act_moderator_generate(&other));
    OK(pt_act_moderator_public_key(other, &opk));
    EXPECT(pt_act_issuance_state_finalize(st, f.ctx, opk.data, opk.len, resp.data, resp.len, &cred),
           PT_INVALID_PROOF);
    EXPECT(pt_act_issuance_state_finalize(st, f.ctx, f.pk.data, 32, resp.data, resp.len, &cred),
           PT_INVALID_LENGTH);
    EXPECT(pt_act_issuance_state_finalize(st, f.ctx, NULL, 33, resp.data, resp.len, &cred), PT_NULL_ARGUMENT);
    bool consumed = true;
    OK(pt_act_issuance_state_consumed(st, &consumed));
    CHECK(!consumed);
    OK(pt_act_issuance_state_finalize(st, f.ctx, f.pk.data, f.pk.len, resp.data, resp.len, &cred));
    pt_act_credential *twice = (pt_act_credential *)1;
    EXPECT(pt_act_issuance_state_finalize(st, f.ctx, f.pk.data, f.pk.len, resp.data, resp.len, &twice),
           PT_STATE_CONSUMED);
    CHECK(twice == NULL);
    pt_buffer gone = {NULL, 0};
    EXPECT(pt_act_issuance_state_to_bytes(st, &gone), PT_STATE_CONSUMED);
    /* The restored copy finalizes the same response. */
    pt_act_credential *cred2 = NULL;
    OK(pt_act_issuance_state_finalize(st2, f.ctx, f.pk.data, f.pk.len, resp.data, resp.len, &cred2));

    /* Spends refused before anything is consumed: s > balance, c + a >= 2^L. */
    pt_buffer msg = {NULL, 0};
    pt_act_spend_state *sst = NULL;
    EXPECT(pt_act_credential_prove_spend(cred, f.ctx, 6, 0, SPEND_CTX, 3, &msg, &sst), PT_OUT_OF_RANGE);
    EXPECT(pt_act_credential_prove_spend(cred, f.ctx, 1, 251, SPEND_CTX, 3, &msg, &sst), PT_OUT_OF_RANGE);
    EXPECT(pt_act_credential_prove_spend(cred, f.ctx, 1, 0, NULL, 3, &msg, &sst), PT_NULL_ARGUMENT);
    EXPECT(pt_act_credential_prove_spend(cred, f.ctx, 1, 0, SPEND_CTX, 3, &msg, (pt_act_spend_state **)&msg),
           PT_INVALID_ARGUMENT);
    OK(pt_act_credential_consumed(cred, &consumed));
    CHECK(!consumed);
    uint64_t bal = 0;
    OK(pt_act_credential_balance(cred, &bal));
    CHECK(bal == 5);
    OK(pt_act_credential_prove_spend(cred, f.ctx, 5, 0, SPEND_CTX, 3, &msg, &sst));
    pt_buffer msg2 = {NULL, 0};
    pt_act_spend_state *sst2 = NULL;
    EXPECT(pt_act_credential_prove_spend(cred, f.ctx, 1, 0, SPEND_CTX, 3, &msg2, &sst2), PT_STATE_CONSUMED);
    EXPECT(pt_act_credential_balance(cred, &bal), PT_STATE_CONSUMED);
    EXPECT(pt_act_credential_to_bytes(cred, &gone), PT_STATE_CONSUMED);

    /* The verifier: a message of another length, another context, a handle of another type. */
    pt_act_verified_spend *v = NULL;
    EXPECT(pt_act_moderator_verify_spend(f.m, f.ctx, msg.data, msg.len - 1, SPEND_CTX, 3, &v), PT_INVALID_LENGTH);
    EXPECT(pt_act_moderator_verify_spend(f.m, f.ctx, msg.data, msg.len, SPEND_CTX, 2, &v), PT_INVALID_PROOF);
    EXPECT(pt_act_moderator_verify_spend((const pt_act_moderator *)f.ctx, f.ctx, msg.data, msg.len, SPEND_CTX, 3, &v),
           PT_INVALID_ARGUMENT);
    pt_act_context *wide = NULL;
    OK(pt_act_context_new(CTX_CRED, sizeof CTX_CRED - 1, 16, true, &wide));
    EXPECT(pt_act_moderator_verify_spend(f.m, wide, msg.data, msg.len, SPEND_CTX, 3, &v), PT_INVALID_LENGTH);
    CHECK(v == NULL);

    /* A refund from another spend and a truncated one leave the spend state usable. */
    OK(pt_act_moderator_verify_spend(f.m, f.ctx, msg.data, msg.len, SPEND_CTX, 3, &v));
    pt_buffer refund = {NULL, 0};
    OK(pt_act_moderator_issue_refund(f.m, f.ctx, v, 2, &refund));
    pt_act_credential *next = NULL;
    EXPECT(pt_act_spend_state_finalize(sst, f.ctx, f.pk.data, f.pk.len, refund.data, 3, &next), PT_INVALID_LENGTH);
    EXPECT(pt_act_spend_state_finalize(sst, f.ctx, opk.data, opk.len, refund.data, refund.len, &next),
           PT_INVALID_PROOF);
    OK(pt_act_spend_state_finalize(sst, f.ctx, f.pk.data, f.pk.len, refund.data, refund.len, &next));
    EXPECT(pt_act_spend_state_finalize(sst, f.ctx, f.pk.data, f.pk.len, refund.data, refund.len, &twice),
           PT_STATE_CONSUMED);
    EXPECT(pt_act_spend_state_to_bytes(sst, &gone), PT_STATE_CONSUMED);
    OK(pt_act_credential_balance(next, &bal));
    CHECK(bal == 2);

    pt_buffer_free(&req);
    pt_buffer_free(&resp);
    pt_buffer_free(&sb);
    pt_buffer_free(&opk);
    pt_buffer_free(&msg);
    pt_buffer_free(&refund);
    pt_act_verified_spend_free(v);
    pt_act_context_free(wide);
    pt_act_moderator_free(other);
    pt_act_issuance_state_free(st);
    pt_act_issuance_state_free(st2);
    pt_act_spend_state_free(sst);
    pt_act_credential_free(cred);
    pt_act_credential_free(cred2);
    pt_act_credential_free(next);
    teardown(&f);
}

int main(void) {
    RUN(context_and_keys);
    RUN(flow);
    RUN(redeem);
    RUN(misuse);
    return SUMMARY();
}
