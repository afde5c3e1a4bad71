/* Random and mutated input to every function that parses bytes from the other party: each call
 * must return a status with a name (never PT_PANIC, never an unknown code), fail on random
 * bytes, leave failed outputs empty, and (under valgrind) read and write nothing it should not.
 * The generator is a fixed xorshift, so a failure reproduces. */
#include <stdlib.h>

#include "harness.h"

#define ROUNDS 20

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t next(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* `len` random bytes into buf. */
static void fill(uint8_t *buf, size_t len) {
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)next();
}

/* A copy of (data, len) with 1 to 3 random bits flipped, or cut or extended by a byte. */
static size_t mutate(const uint8_t *data, size_t len, uint8_t *out, size_t cap) {
    size_t n = len < cap ? len : cap;
    memcpy(out, data, n);
    switch (next() % 4) {
    case 0:
        return n ? n - 1 : 0;
    case 1:
        if (n < cap) out[n++] = (uint8_t)next();
        return n;
    default:
        for (uint32_t k = 1 + next() % 3; k > 0 && n; k--) out[next() % n] ^= (uint8_t)(1u << (next() % 8));
        return n;
    }
}

/* A status that is a real code and not a caught panic. */
#define SANE(call)                                                                   \
    do {                                                                             \
        pt_status s_ = (call);                                                       \
        if (s_ == PT_PANIC || strcmp(pt_status_name(s_), "UNKNOWN") == 0) {          \
            pt_checks_failed_here++;                                                 \
            fprintf(stderr, "  FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, s_); \
        }                                                                            \
    } while (0)

/* Random bytes must be refused: a sane status other than PT_OK. */
#define REFUSED(call)                                                                \
    do {                                                                             \
        pt_status s_ = (call);                                                       \
        if (s_ == PT_OK || s_ == PT_PANIC || strcmp(pt_status_name(s_), "UNKNOWN") == 0) { \
            pt_checks_failed_here++;                                                 \
            fprintf(stderr, "  FAIL %s:%d: %s returned %s\n", __FILE__, __LINE__, #call, \
                    pt_status_name(s_));                                             \
        }                                                                            \
    } while (0)

static uint8_t buf[4096];

static void privacy_pass_garbage(void) {
    const uint16_t types[2] = {PT_TOKEN_TYPE_1, PT_TOKEN_TYPE_5};
    for (int t = 0; t < 2; t++) {
        pt_privacy_pass_issuer *issuer = NULL;
        OK(pt_privacy_pass_issuer_generate(types[t], &issuer));
        pt_buffer key, body, resp;
        OK(pt_privacy_pass_issuer_token_key(issuer, &key));
        pt_challenge *c = challenge_for(types[t], &key);
        const char *ct, *rct;
        for (int r = 0; r < ROUNDS; r++) {
            uint32_t count = r % 2 ? 2 : 0;
            pt_token_request_state *st = NULL;
            OK(pt_create_token_request(c, NULL, 0, count, &body, &ct, &st));
            /* random bytes as a request, a response, a token */
            size_t n = next() % 200;
            fill(buf, n);
            buf[0] = 0;
            buf[1] = (uint8_t)types[t];
            REFUSED(pt_privacy_pass_issuer_issue(issuer, buf, n, ct, strlen(ct), &resp, &rct));
            CHECK(resp.data == NULL && rct == NULL);
            pt_buffer_list tokens;
            REFUSED(pt_token_request_state_finalize(st, buf, n, &tokens));
            CHECK(tokens.items == NULL);
            pt_token *tok = NULL;
            SANE(pt_token_from_bytes(buf, n, &tok));
            pt_token_free(tok);
            bool valid = true;
            pt_buffer nonce;
            SANE(pt_privacy_pass_issuer_verify_token_any_challenge(issuer, buf, n, &valid, &nonce));
            CHECK(!valid && nonce.data == NULL);
            /* a mutated request; then the true response, mutated, for a fresh state */
            n = mutate(body.data, body.len, buf, sizeof buf);
            SANE(pt_privacy_pass_issuer_issue(issuer, buf, n, ct, strlen(ct), &resp, &rct));
            pt_buffer_free(&resp);
            pt_token_request_state *st2 = NULL;
            pt_buffer body2;
            OK(pt_create_token_request(c, NULL, 0, count, &body2, &ct, &st2));
            OK(pt_privacy_pass_issuer_issue(issuer, body2.data, body2.len, ct, strlen(ct), &resp,
                                            &rct));
            n = mutate(resp.data, resp.len, buf, sizeof buf);
            SANE(pt_token_request_state_finalize(st2, buf, n, &tokens));
            pt_buffer_list_free(&tokens);
            pt_buffer_free(&resp);
            pt_buffer_free(&body2);
            pt_token_request_state_free(st2);
            pt_token_request_state_free(st);
            pt_buffer_free(&body);
        }
        pt_challenge_free(c);
        pt_buffer_free(&key);
        pt_privacy_pass_issuer_free(issuer);
    }
}

static void headers_garbage(void) {
    static const char alphabet[] = "PrivateToken challenge=token-key,max-age=\"\\ ,;=AQID-_+/";
    for (int r = 0; r < 4 * ROUNDS; r++) {
        size_t n = next() % 120;
        for (size_t i = 0; i < n; i++)
            buf[i] = r % 2 ? (uint8_t)alphabet[next() % (sizeof alphabet - 1)] : (uint8_t)next();
        if (n > 13 && r % 4 == 1) memcpy(buf, "PrivateToken ", 13);
        pt_challenge_list *l = NULL;
        SANE(pt_parse_challenges((const char *)buf, n, &l));
        size_t count = 0;
        if (l) OK(pt_challenge_list_count(l, &count));
        for (size_t i = 0; i < count; i++) {
            pt_challenge *c = NULL;
            pt_buffer b;
            OK(pt_challenge_list_get(l, i, &c));
            SANE(pt_challenge_to_header(c, &b));
            pt_buffer_free(&b);
            SANE(pt_challenge_digest(c, &b));
            pt_buffer_free(&b);
            pt_challenge_free(c);
        }
        pt_challenge_list_free(l);
        pt_buffer t;
        SANE(pt_parse_authorization((const char *)buf, n, &t));
        pt_buffer_free(&t);
        if (n > 37 && r % 8 == 3) memcpy(buf, "PrivateToken token=2noA, extensions=", 36);
        pt_buffer e;
        SANE(pt_parse_authorization_with_extensions((const char *)buf, n, &t, &e));
        pt_buffer_free(&t);
        pt_buffer_free(&e);
        SANE(pt_authorization_header_with_extensions(buf, n, buf, n, &t));
        pt_buffer_free(&t);
        SANE(pt_base64url_decode((const char *)buf, n, &t));
        pt_buffer_free(&t);
        pt_challenge *c = NULL;
        SANE(pt_challenge_from_bytes(buf, n, &c));
        pt_challenge_free(c);
    }
}

static void arc_garbage(void) {
    pt_arc_issuer *issuer = NULL;
    OK(pt_arc_issuer_generate(&issuer));
    pt_buffer key, body, resp, token, tag;
    OK(pt_arc_issuer_token_key(issuer, &key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_ARC, &key);
    OK(pt_challenge_set_rate_limit(c, 2 * ROUNDS));
    const char *ct, *rct;
    pt_credential_request_state *st = NULL;
    pt_credential *cred = NULL;
    OK(arc_credential(issuer, c, &cred));
    OK(pt_create_credential_request(c, NULL, 0, &body, &ct, &st)); /* to mutate */
    pt_buffer saved;
    OK(pt_credential_to_bytes(cred, &saved));
    for (int r = 0; r < ROUNDS / 2; r++) {
        size_t n = next() % 400;
        fill(buf, n);
        REFUSED(pt_arc_issuer_issue(issuer, buf, n, &resp, &rct));
        REFUSED(pt_arc_issuer_verify(issuer, buf, n, c, 0, &tag));
        pt_credential *x = NULL;
        REFUSED(pt_credential_from_bytes(buf, n, &x));
        n = mutate(body.data, body.len, buf, sizeof buf);
        SANE(pt_arc_issuer_issue(issuer, buf, n, &resp, &rct));
        pt_buffer_free(&resp);
        OK(pt_credential_present(cred, c, NULL, 0, 0, &token));
        n = mutate(token.data, token.len, buf, sizeof buf);
        REFUSED(pt_arc_issuer_verify(issuer, buf, n, c, 0, &tag));
        pt_buffer_free(&token);
        n = mutate(saved.data, saved.len, buf, sizeof buf);
        SANE(pt_credential_from_bytes(buf, n, &x));
        pt_credential_free(x);
    }
    pt_buffer_free(&saved);
    pt_credential_free(cred);
    pt_credential_request_state_free(st);
    pt_buffer_free(&body);
    pt_challenge_free(c);
    pt_buffer_free(&key);
    pt_arc_issuer_free(issuer);
}

static void act_garbage(void) {
    pt_act_moderator *m = NULL;
    pt_act_context *ctx = NULL;
    pt_buffer pk, req, resp, msg, refund, saved, sstate, istate, out;
    OK(pt_act_moderator_generate(&m));
    OK(pt_act_moderator_public_key(m, &pk));
    OK(pt_act_context_new((const uint8_t *)"ctx", 3, 8, true, &ctx));
    pt_act_issuance_state *ist = NULL;
    pt_act_credential *cred = NULL;
    pt_act_spend_state *sst = NULL;
    pt_act_verified_spend *v = NULL;
    OK(pt_act_issue_request(&req, &ist));
    OK(pt_act_issuance_state_to_bytes(ist, &istate));
    OK(pt_act_moderator_issue(m, ctx, 200, req.data, req.len, &resp));
    OK(pt_act_issuance_state_finalize(ist, ctx, pk.data, pk.len, resp.data, resp.len, &cred));
    OK(pt_act_credential_to_bytes(cred, &saved));
    OK(pt_act_credential_prove_spend(cred, ctx, 5, 0, (const uint8_t *)"s", 1, &msg, &sst));
    OK(pt_act_spend_state_to_bytes(sst, &sstate));
    OK(pt_act_moderator_verify_spend(m, ctx, msg.data, msg.len, (const uint8_t *)"s", 1, &v));
    OK(pt_act_moderator_issue_refund(m, ctx, v, 1, &refund));
    /* The exact lengths too: request, credential, issuance and spend states, response. */
    static const size_t lens[] = {129, 137, 97, 121, 169};
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = r < 10 ? lens[r % 5] : next() % 400;
        fill(buf, n);
        pt_act_credential *x = NULL;
        pt_act_issuance_state *xi = NULL;
        pt_act_spend_state *xs = NULL;
        pt_act_verified_spend *xv = NULL;
        REFUSED(pt_act_moderator_issue(m, ctx, 1, buf, n, &out));
        REFUSED(pt_act_moderator_verify_spend(m, ctx, buf, n, (const uint8_t *)"s", 1, &xv));
        REFUSED(pt_act_credential_from_bytes(buf, n, &x));
        REFUSED(pt_act_issuance_state_from_bytes(buf, n, &xi));
        REFUSED(pt_act_spend_state_from_bytes(buf, n, &xs));
        REFUSED(pt_act_spend_state_finalize(sst, ctx, pk.data, pk.len, buf, n, &x));
        pt_act_context *xc = NULL;
        REFUSED(pt_act_context_new(buf, n, (uint8_t)(65 + next() % 190), true, &xc));
        CHECK(x == NULL && xi == NULL && xs == NULL && xv == NULL && xc == NULL && out.data == NULL);
        /* Mutated real messages and encodings. */
        n = mutate(req.data, req.len, buf, sizeof buf);
        SANE(pt_act_moderator_issue(m, ctx, 1, buf, n, &out));
        pt_buffer_free(&out);
        n = mutate(msg.data, msg.len, buf, sizeof buf);
        REFUSED(pt_act_moderator_verify_spend(m, ctx, buf, n, (const uint8_t *)"s", 1, &xv));
        n = mutate(refund.data, refund.len, buf, sizeof buf);
        REFUSED(pt_act_spend_state_finalize(sst, ctx, pk.data, pk.len, buf, n, &x));
        n = mutate(saved.data, saved.len, buf, sizeof buf);
        SANE(pt_act_credential_from_bytes(buf, n, &x));
        pt_act_credential_free(x);
        n = mutate(istate.data, istate.len, buf, sizeof buf);
        SANE(pt_act_issuance_state_from_bytes(buf, n, &xi));
        pt_act_issuance_state_free(xi);
        n = mutate(sstate.data, sstate.len, buf, sizeof buf);
        SANE(pt_act_spend_state_from_bytes(buf, n, &xs));
        pt_act_spend_state_free(xs);
    }
    /* The spend state survived every refused refund. */
    pt_act_credential *fin = NULL;
    OK(pt_act_spend_state_finalize(sst, ctx, pk.data, pk.len, refund.data, refund.len, &fin));
    pt_act_credential_free(fin);
    pt_buffer *bufs[] = {&pk, &req, &resp, &msg, &refund, &saved, &sstate, &istate};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) pt_buffer_free(bufs[i]);
    pt_act_verified_spend_free(v);
    pt_act_spend_state_free(sst);
    pt_act_credential_free(cred);
    pt_act_issuance_state_free(ist);
    pt_act_context_free(ctx);
    pt_act_moderator_free(m);
}

static void trust_token_garbage(void) {
    const uint8_t methods[2] = {PT_METHOD_PST_V1_VOPRF, PT_METHOD_PST_V1_PMB};
    for (int m = 0; m < 2; m++) {
        pt_buffer sk, pk, req, resp, red, nonce, data, saved;
        OK(pt_trust_token_generate_key(methods[m], 1, &sk, &pk));
        pt_trust_token_issuer *issuer = NULL;
        pt_trust_token_client *client = NULL;
        OK(pt_trust_token_issuer_new(methods[m], 2, &issuer));
        OK(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len));
        OK(pt_trust_token_client_new(methods[m], 2, &client));
        size_t index;
        OK(pt_trust_token_client_add_key(client, pk.data, pk.len, &index));
        uint16_t issued;
        uint32_t kid;
        bool md;
        for (int r = 0; r < ROUNDS / 4; r++) {
            pt_trust_token_issuance_state *st = NULL, *x = NULL;
            pt_buffer_list tokens;
            OK(pt_trust_token_client_begin_issuance(client, 2, &req, &st));
            OK(pt_trust_token_issuance_state_to_bytes(st, &saved));
            size_t n = next() % 300;
            fill(buf, n);
            REFUSED(pt_trust_token_issuer_issue(issuer, buf, n, 1, false, 2, &resp, &issued));
            REFUSED(pt_trust_token_client_finish_issuance(client, st, buf, n, &tokens));
            REFUSED(pt_trust_token_issuer_redeem(issuer, buf, n, &kid, &md, &nonce, &data));
            SANE(pt_trust_token_issuance_state_from_bytes(buf, n, &x));
            pt_trust_token_issuance_state_free(x);
            x = NULL;
            n = mutate(saved.data, saved.len, buf, sizeof buf);
            SANE(pt_trust_token_issuance_state_from_bytes(buf, n, &x));
            pt_trust_token_issuance_state_free(x);
            n = mutate(req.data, req.len, buf, sizeof buf);
            SANE(pt_trust_token_issuer_issue(issuer, buf, n, 1, false, 2, &resp, &issued));
            pt_buffer_free(&resp);
            OK(pt_trust_token_issuer_issue(issuer, req.data, req.len, 1, false, 2, &resp,
                                           &issued));
            n = mutate(resp.data, resp.len, buf, sizeof buf);
            SANE(pt_trust_token_client_finish_issuance(client, st, buf, n, &tokens));
            pt_buffer_list_free(&tokens);
            SANE(pt_trust_token_client_finish_issuance(client, st, resp.data, resp.len, &tokens));
            if (tokens.count) {
                OK(pt_trust_token_client_begin_redemption(client, tokens.items[0].data,
                                                          tokens.items[0].len, NULL, 0, &red));
                n = mutate(red.data, red.len, buf, sizeof buf);
                SANE(pt_trust_token_issuer_redeem(issuer, buf, n, &kid, &md, &nonce, &data));
                pt_buffer_free(&nonce);
                pt_buffer_free(&data);
                pt_buffer_free(&red);
            }
            pt_buffer_list_free(&tokens);
            pt_buffer_free(&resp);
            pt_buffer_free(&saved);
            pt_buffer_free(&req);
            pt_trust_token_issuance_state_free(st);
        }
        pt_trust_token_client_free(client);
        pt_trust_token_issuer_free(issuer);
        pt_buffer_free(&sk);
        pt_buffer_free(&pk);
    }
}

static void oprf_garbage(void) {
    const uint32_t suites[5] = {PT_SUITE_P256_SHA256, PT_SUITE_P384_SHA384, PT_SUITE_P521_SHA512,
                                PT_SUITE_RISTRETTO255_SHA512, PT_SUITE_DECAF448_SHAKE256};
    for (int k = 0; k < 5; k++) {
        pt_voprf_server *server = NULL;
        pt_voprf_client *client = NULL;
        pt_poprf_server *pserver = NULL;
        pt_buffer pk, blinded, e, p, o;
        OK(pt_voprf_server_generate(suites[k], &server));
        OK(pt_poprf_server_generate(suites[k], &pserver));
        OK(pt_voprf_server_public_key(server, &pk));
        OK(pt_voprf_client_new(suites[k], pk.data, pk.len, &client));
        for (int r = 0; r < ROUNDS / 4; r++) {
            pt_voprf_client_state *st = NULL;
            OK(pt_voprf_client_blind(client, (const uint8_t *)"x", 1, &blinded, &st));
            size_t n = mutate(blinded.data, blinded.len, buf, sizeof buf);
            SANE(pt_voprf_server_blind_evaluate(server, buf, n, &e, &p));
            pt_buffer_free(&e);
            pt_buffer_free(&p);
            SANE(pt_poprf_server_blind_evaluate(pserver, buf, n, NULL, 0, &e, &p));
            pt_buffer_free(&e);
            pt_buffer_free(&p);
            pt_voprf_client *x = NULL;
            n = mutate(pk.data, pk.len, buf, sizeof buf);
            SANE(pt_voprf_client_new(suites[k], buf, n, &x));
            pt_voprf_client_free(x);
            OK(pt_voprf_server_blind_evaluate(server, blinded.data, blinded.len, &e, &p));
            /* a mutated element or proof: refused, or (the same bytes back) the output */
            uint8_t proof[256];
            size_t pn = mutate(p.data, p.len, proof, sizeof proof);
            n = mutate(e.data, e.len, buf, sizeof buf);
            SANE(pt_voprf_client_state_finalize(st, buf, n, p.data, p.len, &o));
            pt_buffer_free(&o);
            SANE(pt_voprf_client_state_finalize(st, e.data, e.len, proof, pn, &o));
            pt_buffer_free(&o);
            pt_buffer_free(&e);
            pt_buffer_free(&p);
            pt_buffer_free(&blinded);
            pt_voprf_client_state_free(st);
        }
        pt_buffer_free(&pk);
        pt_voprf_client_free(client);
        pt_voprf_server_free(server);
        pt_poprf_server_free(pserver);
    }
}

/* The issuer directory parser (JSON): mutated directories and random bytes. */
static void directory_garbage(void) {
    static const char dir[] =
        "{\"issuer-request-uri\": \"https://issuer.example/token-request\", \"token-keys\": "
        "[{\"token-type\": 1, \"token-key\": \"AAAA\", \"not-before\": 1}, "
        "{\"token-type\": 2, \"token-key\": \"AAAA\"}]}";
    pt_issuer_directory *d = NULL;
    OK(pt_parse_issuer_directory(dir, strlen(dir), &d));
    pt_issuer_directory_free(d);
    for (int r = 0; r < 20 * ROUNDS; r++) {
        size_t n = mutate((const uint8_t *)dir, strlen(dir), buf, sizeof buf);
        d = NULL;
        pt_status s = pt_parse_issuer_directory((const char *)buf, n, &d);
        SANE(s);
        CHECK((s == PT_OK) == (d != NULL));
        pt_issuer_directory_free(d);
        /* Random bytes, and deep nesting. */
        n = next() % 300;
        fill(buf, n);
        REFUSED(pt_parse_issuer_directory((const char *)buf, n, &d));
        CHECK(d == NULL);
    }
    memset(buf, '[', sizeof buf);
    REFUSED(pt_parse_issuer_directory((const char *)buf, sizeof buf, &d));
    CHECK(d == NULL);
}

int main(void) {
    RUN(privacy_pass_garbage);
    RUN(headers_garbage);
    RUN(arc_garbage);
    RUN(act_garbage);
    RUN(trust_token_garbage);
    RUN(oprf_garbage);
    RUN(directory_garbage);
    return SUMMARY();
}
