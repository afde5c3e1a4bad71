/* The thread-safety the header states: one Privacy Pass issuer and one VOPRF server shared by
 * several threads at once (their `const` functions), each thread with its own client states. */
#include <pthread.h>

#include "harness.h"

#define THREADS 4
#define ROUNDS 3

static pt_privacy_pass_issuer *issuer;
static pt_challenge *challenge;
static pt_voprf_server *server;
static pt_voprf_client *client;

static void *worker(void *arg) {
    int *failures = arg;
    for (int r = 0; r < ROUNDS; r++) {
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
            if (pt_privacy_pass_issuer_verify_token(issuer, tokens.items[i].data,
                                                    tokens.items[i].len, NULL, 0,
                                                    &valid) != PT_OK ||
                !valid)
                ++*failures;
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
    OK(pt_challenge_create(PT_TOKEN_TYPE_5, "i", 1, NULL, 0, NULL, 0, NULL, 0, &challenge));
    OK(pt_challenge_set_token_key(challenge, key.data, key.len));
    OK(pt_voprf_server_generate(PT_SUITE_RISTRETTO255_SHA512, &server));
    OK(pt_voprf_server_public_key(server, &pk));
    OK(pt_voprf_client_new(PT_SUITE_RISTRETTO255_SHA512, pk.data, pk.len, &client));
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

int main(void) {
    RUN(shared_issuer_and_server);
    return SUMMARY();
}
