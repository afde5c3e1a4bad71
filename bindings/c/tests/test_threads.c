/* The thread-safety the header states: one Privacy Pass issuer and one VOPRF server, then one
 * ARC issuer, one Trust Token (pst_v1_pmb) issuer and client and one challenge, shared by
 * several threads at once (their `const` functions), each thread with its own client states
 * and credential. */
#include <pthread.h>

#include "harness.h"

#define THREADS 4
/* Rounds per thread: test.sh runs this program under valgrind memcheck, under helgrind (with
 * -DROUNDS=1) and natively with many rounds (-DROUNDS=40). */
#ifndef ROUNDS
#define ROUNDS 3
#endif

/* The rounds the workers run: ROUNDS, or 1 for the warm-up on the main thread. */
static int rounds = ROUNDS;

/* Runs `worker` once on the main thread before the threads start, so that what the library
 * initializes on first use (the curve and hash crates' CPU feature detection, precomputed
 * tables) is initialized before pthread_create: under helgrind the threads then race only if
 * this library races. */
static void warm_up(void *(*worker)(void *)) {
    int failures = 0;
    rounds = 1;
    worker(&failures);
    rounds = ROUNDS;
    CHECK(failures == 0);
}

static pt_privacy_pass_issuer *issuer;
static pt_challenge *challenge;
static pt_voprf_server *server;
static pt_voprf_client *client;

static void *worker(void *arg) {
    int *failures = arg;
    for (int r = 0; r < rounds; r++) {
        pt_buffer body, resp;
        const char *ct, *rct;
        pt_token_request_state *st = NULL;
        pt_buffer_list tokens = {NULL, 0};
        bool valid = false;
        if (pt_create_token_request(challenge, NULL, 0, 2, &body, &ct, &st) != PT_OK) ++*failures;
        if (pt_privacy_pass_issuer_issue(issuer, body.data, body.len, ct, strlen(ct), &resp,
                                         &rct) != PT_OK)
            ++*failures;
        if (pt_token_request_state_finalize(st, resp.data, resp.len, &tokens) != PT_OK ||
            tokens.count != 2)
            ++*failures;
        for (size_t i = 0; i < tokens.count; i++) {
            pt_buffer nonce;
            if (pt_privacy_pass_issuer_verify_token_any_challenge(issuer, tokens.items[i].data,
                                                                  tokens.items[i].len, &valid,
                                                                  &nonce) != PT_OK ||
                !valid || nonce.len != 32)
                ++*failures;
            pt_buffer_free(&nonce);
        }
        pt_buffer_list_free(&tokens);
        pt_buffer_free(&resp);
        pt_buffer_free(&body);
        pt_token_request_state_free(st);

        pt_buffer blinded, evaluated, proof, output, direct;
        pt_voprf_client_state *vs = NULL;
        if (pt_voprf_client_blind(client, (const uint8_t *)"in", 2, &blinded, &vs) != PT_OK ||
            pt_voprf_server_blind_evaluate(server, blinded.data, blinded.len, &evaluated,
                                           &proof) != PT_OK ||
            pt_voprf_client_state_finalize(vs, evaluated.data, evaluated.len, proof.data,
                                           proof.len, &output) != PT_OK ||
            pt_voprf_server_evaluate(server, (const uint8_t *)"in", 2, &direct) != PT_OK ||
            !buf_eq(&output, direct.data, direct.len))
            ++*failures;
        pt_buffer_free(&blinded);
        pt_buffer_free(&evaluated);
        pt_buffer_free(&proof);
        pt_buffer_free(&output);
        pt_buffer_free(&direct);
        pt_voprf_client_state_free(vs);
    }
    return NULL;
}

static void shared_issuer_and_server(void) {
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_5, &issuer));
    pt_buffer key, pk;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    challenge = challenge_for(PT_TOKEN_TYPE_5, &key);
    OK(pt_voprf_server_generate(PT_SUITE_RISTRETTO255_SHA512, &server));
    OK(pt_voprf_server_public_key(server, &pk));
    OK(pt_voprf_client_new(PT_SUITE_RISTRETTO255_SHA512, pk.data, pk.len, &client));
    warm_up(worker);
    pthread_t t[THREADS];
    int failures[THREADS] = {0};
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, worker, &failures[i]) == 0);
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        CHECK(failures[i] == 0);
    }
    pt_buffer_free(&key);
    pt_buffer_free(&pk);
    pt_voprf_client_free(client);
    pt_voprf_server_free(server);
    pt_challenge_free(challenge);
    pt_privacy_pass_issuer_free(issuer);
}

static pt_arc_issuer *arc_issuer;
static pt_challenge *arc_challenge;
static pt_trust_token_issuer *tt_issuer;
static pt_trust_token_client *tt_client;

/* A failed call counts one failure of the thread. */
#define MUST(call)                                                                   \
    do {                                                                             \
        if ((call) != PT_OK) ++*failures;                                            \
    } while (0)

static void *arc_and_trust_token_worker(void *arg) {
    int *failures = arg;
    for (int r = 0; r < rounds; r++) {
        /* ARC: a credential of this thread's own, two presentations, each verified. */
        pt_buffer token = {0}, tag = {0};
        pt_credential *cred = NULL;
        MUST(arc_credential(arc_issuer, arc_challenge, &cred));
        for (int i = 0; i < 2; i++) {
            MUST(pt_credential_present(cred, arc_challenge, NULL, 0, 0, &token));
            MUST(pt_arc_issuer_verify(arc_issuer, token.data, token.len, arc_challenge, 0, &tag));
            pt_buffer_free(&token);
            pt_buffer_free(&tag);
        }
        pt_credential_free(cred);

        /* Trust Tokens: issue two with the private bit set, redeem each. */
        pt_buffer req = {0}, tt_resp = {0}, red = {0}, nonce = {0}, data = {0};
        pt_trust_token_issuance_state *ts = NULL;
        pt_buffer_list tokens = {NULL, 0};
        uint16_t issued = 0;
        MUST(pt_trust_token_client_begin_issuance(tt_client, 2, &req, &ts));
        MUST(pt_trust_token_issuer_issue(tt_issuer, req.data, req.len, 3, true, 2, &tt_resp,
                                         &issued));
        MUST(pt_trust_token_client_finish_issuance(tt_client, ts, tt_resp.data, tt_resp.len,
                                                   &tokens));
        if (issued != 2 || tokens.count != 2) ++*failures;
        for (size_t i = 0; i < tokens.count; i++) {
            uint32_t kid = 0;
            bool md = false;
            MUST(pt_trust_token_client_begin_redemption(tt_client, tokens.items[i].data,
                                                        tokens.items[i].len, NULL, 0, &red));
            MUST(pt_trust_token_issuer_redeem(tt_issuer, red.data, red.len, &kid, &md, &nonce,
                                              &data));
            if (kid != 3 || !md) ++*failures;
            pt_buffer_free(&red);
            pt_buffer_free(&nonce);
            pt_buffer_free(&data);
        }
        pt_buffer_list_free(&tokens);
        pt_buffer_free(&tt_resp);
        pt_buffer_free(&req);
        pt_trust_token_issuance_state_free(ts);
    }
    return NULL;
}

static void shared_arc_and_trust_token(void) {
    OK(pt_arc_issuer_generate(&arc_issuer));
    pt_buffer key, sk, pk;
    OK(pt_arc_issuer_token_key(arc_issuer, &key));
    arc_challenge = challenge_for(PT_TOKEN_TYPE_ARC, &key);
    OK(pt_challenge_set_rate_limit(arc_challenge, 2 * ROUNDS));
    OK(pt_trust_token_generate_key(PT_METHOD_PST_V1_PMB, 3, &sk, &pk));
    OK(pt_trust_token_issuer_new(PT_METHOD_PST_V1_PMB, 2, &tt_issuer));
    OK(pt_trust_token_issuer_add_key(tt_issuer, sk.data, sk.len));
    OK(pt_trust_token_client_new(PT_METHOD_PST_V1_PMB, 2, &tt_client));
    size_t index;
    OK(pt_trust_token_client_add_key(tt_client, pk.data, pk.len, &index));
    warm_up(arc_and_trust_token_worker);
    pthread_t t[THREADS];
    int failures[THREADS] = {0};
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, arc_and_trust_token_worker, &failures[i]) == 0);
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        CHECK(failures[i] == 0);
    }
    pt_buffer_free(&key);
    pt_buffer_free(&sk);
    pt_buffer_free(&pk);
    pt_trust_token_client_free(tt_client);
    pt_trust_token_issuer_free(tt_issuer);
    pt_challenge_free(arc_challenge);
    pt_arc_issuer_free(arc_issuer);
}

int main(void) {
    RUN(shared_issuer_and_server);
    RUN(shared_arc_and_trust_token);
    return SUMMARY();
}
