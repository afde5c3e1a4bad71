/* OPRF, VOPRF and POPRF on the five suites through the C ABI: every operation, single and
 * batched round trips checked against the server's direct Evaluate, key management, and bad
 * input of every kind with its status code. */
#include <stdlib.h>

#include "harness.h"

static const uint32_t SUITES[] = {PT_SUITE_P256_SHA256, PT_SUITE_P384_SHA384,
                                  PT_SUITE_P521_SHA512, PT_SUITE_RISTRETTO255_SHA512,
                                  PT_SUITE_DECAF448_SHAKE256};
/* Ne, Ns, Nh of each suite. */
static const size_t NE[] = {33, 49, 67, 32, 56};
static const size_t NS[] = {32, 48, 66, 32, 56};
static const size_t NH[] = {32, 48, 64, 64, 64};

static const pt_slice INPUTS[3] = {{(const uint8_t *)"alpha", 5},
                                   {(const uint8_t *)"", 0},
                                   {(const uint8_t *)"gamma gamma", 11}};
static const uint8_t INFO[] = "test info";

static void suite_names(void) {
    CHECK(strcmp(pt_suite_name(PT_SUITE_P256_SHA256), "P256-SHA256") == 0);
    CHECK(strcmp(pt_suite_name(PT_SUITE_P384_SHA384), "P384-SHA384") == 0);
    CHECK(strcmp(pt_suite_name(PT_SUITE_P521_SHA512), "P521-SHA512") == 0);
    CHECK(strcmp(pt_suite_name(PT_SUITE_RISTRETTO255_SHA512), "ristretto255-SHA512") == 0);
    CHECK(strcmp(pt_suite_name(PT_SUITE_DECAF448_SHAKE256), "decaf448-SHAKE256") == 0);
    CHECK(pt_suite_name(0) == NULL && pt_suite_name(6) == NULL);
}

static void oprf_suite(size_t k) {
    uint32_t s = SUITES[k];
    pt_oprf_server *server = NULL;
    pt_oprf_client *client = NULL;
    OK(pt_oprf_server_generate(s, &server));
    OK(pt_oprf_client_new(s, &client));
    /* single */
    pt_buffer blinded, evaluated, output, direct;
    pt_oprf_client_state *st = NULL;
    OK(pt_oprf_client_blind(client, INPUTS[0].data, INPUTS[0].len, &blinded, &st));
    CHECK(blinded.len == NE[k]);
    OK(pt_oprf_server_blind_evaluate(server, blinded.data, blinded.len, &evaluated));
    CHECK(evaluated.len == NE[k]);
    EXPECT(pt_oprf_client_state_finalize(st, evaluated.data, evaluated.len - 1, &output),
           PT_INVALID_LENGTH); /* leaves the state usable */
    OK(pt_oprf_client_state_finalize(st, evaluated.data, evaluated.len, &output));
    CHECK(output.len == NH[k]);
    OK(pt_oprf_server_evaluate(server, INPUTS[0].data, INPUTS[0].len, &direct));
    CHECK(buf_eq(&output, direct.data, direct.len));
    pt_buffer again;
    EXPECT(pt_oprf_client_state_finalize(st, evaluated.data, evaluated.len, &again),
           PT_STATE_CONSUMED);
    pt_buffer_free(&direct);
    pt_buffer_free(&output);
    pt_buffer_free(&evaluated);
    pt_buffer_free(&blinded);
    pt_oprf_client_state_free(st);
    /* batch */
    pt_buffer_list bl, ev, outs;
    OK(pt_oprf_client_blind_batch(client, INPUTS, 3, &bl, &st));
    CHECK(bl.count == 3);
    pt_slice sl[3];
    as_slices(&bl, sl, 3);
    OK(pt_oprf_server_blind_evaluate_batch(server, sl, 3, &ev));
    CHECK(ev.count == 3);
    as_slices(&ev, sl, 3);
    pt_buffer one;
    EXPECT(pt_oprf_client_state_finalize(st, sl[0].data, sl[0].len, &one), PT_BATCH);
    EXPECT(pt_oprf_client_state_finalize_batch(st, sl, 2, &outs), PT_BATCH);
    OK(pt_oprf_client_state_finalize_batch(st, sl, 3, &outs));
    CHECK(outs.count == 3);
    for (size_t i = 0; i < 3 && i < outs.count; i++) {
        OK(pt_oprf_server_evaluate(server, INPUTS[i].data, INPUTS[i].len, &direct));
        CHECK(buf_eq(&outs.items[i], direct.data, direct.len));
        pt_buffer_free(&direct);
    }
    pt_buffer_list_free(&outs);
    pt_buffer_list_free(&ev);
    pt_buffer_list_free(&bl);
    pt_oprf_client_state_free(st);
    /* keys: secret key round trip, derive determinism */
    pt_buffer sk, sk2;
    OK(pt_oprf_server_secret_key(server, &sk));
    CHECK(sk.len == NS[k]);
    pt_oprf_server *copy = NULL, *d1 = NULL, *d2 = NULL;
    OK(pt_oprf_server_from_secret_key(s, sk.data, sk.len, &copy));
    OK(pt_oprf_server_secret_key(copy, &sk2));
    CHECK(buf_eq(&sk2, sk.data, sk.len));
    pt_buffer_free(&sk2);
    pt_buffer_free(&sk);
    OK(pt_oprf_server_derive(s, (const uint8_t *)"seed", 4, INFO, sizeof INFO - 1, &d1));
    OK(pt_oprf_server_derive(s, (const uint8_t *)"seed", 4, INFO, sizeof INFO - 1, &d2));
    OK(pt_oprf_server_secret_key(d1, &sk));
    OK(pt_oprf_server_secret_key(d2, &sk2));
    CHECK(buf_eq(&sk2, sk.data, sk.len));
    pt_buffer_free(&sk2);
    pt_buffer_free(&sk);
    pt_oprf_server_free(copy);
    pt_oprf_server_free(d1);
    pt_oprf_server_free(d2);
    pt_oprf_client_free(client);
    pt_oprf_server_free(server);
}

static void voprf_suite(size_t k) {
    uint32_t s = SUITES[k];
    pt_voprf_server *server = NULL;
    pt_voprf_client *client = NULL;
    OK(pt_voprf_server_generate(s, &server));
    pt_buffer pk;
    OK(pt_voprf_server_public_key(server, &pk));
    CHECK(pk.len == NE[k]);
    OK(pt_voprf_client_new(s, pk.data, pk.len, &client));
    pt_buffer blinded, evaluated, proof, output, direct;
    pt_voprf_client_state *st = NULL;
    OK(pt_voprf_client_blind(client, INPUTS[2].data, INPUTS[2].len, &blinded, &st));
    OK(pt_voprf_server_blind_evaluate(server, blinded.data, blinded.len, &evaluated, &proof));
    CHECK(proof.len == 2 * NS[k]);
    EXPECT(pt_voprf_client_state_finalize(st, evaluated.data, evaluated.len, proof.data,
                                          proof.len - 1, &output),
           PT_INVALID_LENGTH);
    OK(pt_voprf_client_state_finalize(st, evaluated.data, evaluated.len, proof.data, proof.len,
                                      &output));
    OK(pt_voprf_server_evaluate(server, INPUTS[2].data, INPUTS[2].len, &direct));
    CHECK(output.len == NH[k] && buf_eq(&output, direct.data, direct.len));
    pt_buffer_free(&direct);
    pt_buffer_free(&output);
    /* a wrong proof: another evaluation's proof; consumed with PT_INVALID_PROOF */
    pt_voprf_client_state *st2 = NULL;
    pt_buffer b2, e2, p2;
    OK(pt_voprf_client_blind(client, INPUTS[0].data, INPUTS[0].len, &b2, &st2));
    OK(pt_voprf_server_blind_evaluate(server, b2.data, b2.len, &e2, &p2));
    EXPECT(pt_voprf_client_state_finalize(st2, e2.data, e2.len, proof.data, proof.len, &output),
           PT_INVALID_PROOF);
    CHECK(output.data == NULL);
    EXPECT(pt_voprf_client_state_finalize(st2, e2.data, e2.len, p2.data, p2.len, &output),
           PT_STATE_CONSUMED);
    pt_buffer_free(&b2);
    pt_buffer_free(&e2);
    pt_buffer_free(&p2);
    pt_voprf_client_state_free(st2);
    pt_buffer_free(&proof);
    pt_buffer_free(&evaluated);
    pt_buffer_free(&blinded);
    pt_voprf_client_state_free(st);
    /* batch: one proof */
    pt_buffer_list bl, ev, outs;
    OK(pt_voprf_client_blind_batch(client, INPUTS, 3, &bl, &st));
    pt_slice sl[3];
    as_slices(&bl, sl, 3);
    OK(pt_voprf_server_blind_evaluate_batch(server, sl, 3, &ev, &proof));
    as_slices(&ev, sl, 3);
    OK(pt_voprf_client_state_finalize_batch(st, sl, 3, proof.data, proof.len, &outs));
    CHECK(outs.count == 3);
    for (size_t i = 0; i < 3 && i < outs.count; i++) {
        OK(pt_voprf_server_evaluate(server, INPUTS[i].data, INPUTS[i].len, &direct));
        CHECK(buf_eq(&outs.items[i], direct.data, direct.len));
        pt_buffer_free(&direct);
    }
    pt_buffer_list_free(&outs);
    pt_buffer_list_free(&ev);
    pt_buffer_list_free(&bl);
    pt_buffer_free(&proof);
    pt_voprf_client_state_free(st);
    /* keys */
    pt_buffer sk, pk2;
    pt_voprf_server *copy = NULL, *d = NULL;
    OK(pt_voprf_server_secret_key(server, &sk));
    OK(pt_voprf_server_from_secret_key(s, sk.data, sk.len, &copy));
    OK(pt_voprf_server_public_key(copy, &pk2));
    CHECK(buf_eq(&pk2, pk.data, pk.len));
    pt_buffer_free(&pk2);
    pt_buffer_free(&sk);
    OK(pt_voprf_server_derive(s, (const uint8_t *)"seed", 4, INFO, sizeof INFO - 1, &d));
    pt_voprf_server_free(d);
    pt_voprf_server_free(copy);
    pt_buffer_free(&pk);
    pt_voprf_client_free(client);
    pt_voprf_server_free(server);
}

static void poprf_suite(size_t k) {
    uint32_t s = SUITES[k];
    pt_poprf_server *server = NULL;
    pt_poprf_client *client = NULL, *other = NULL;
    OK(pt_poprf_server_generate(s, &server));
    pt_buffer pk;
    OK(pt_poprf_server_public_key(server, &pk));
    OK(pt_poprf_client_new(s, pk.data, pk.len, INFO, sizeof INFO - 1, &client));
    OK(pt_poprf_client_new(s, pk.data, pk.len, (const uint8_t *)"other", 5, &other));
    pt_buffer blinded, evaluated, proof, output, direct;
    pt_poprf_client_state *st = NULL;
    OK(pt_poprf_client_blind(client, INPUTS[0].data, INPUTS[0].len, &blinded, &st));
    OK(pt_poprf_server_blind_evaluate(server, blinded.data, blinded.len, INFO, sizeof INFO - 1,
                                      &evaluated, &proof));
    OK(pt_poprf_client_state_finalize(st, evaluated.data, evaluated.len, proof.data, proof.len,
                                      &output));
    OK(pt_poprf_server_evaluate(server, INPUTS[0].data, INPUTS[0].len, INFO, sizeof INFO - 1,
                                &direct));
    CHECK(output.len == NH[k] && buf_eq(&output, direct.data, direct.len));
    pt_buffer_free(&direct);
    pt_buffer_free(&output);
    pt_buffer_free(&proof);
    pt_buffer_free(&evaluated);
    pt_buffer_free(&blinded);
    pt_poprf_client_state_free(st);
    /* the server evaluates with another info than the client's: the proof fails */
    OK(pt_poprf_client_blind(other, INPUTS[0].data, INPUTS[0].len, &blinded, &st));
    OK(pt_poprf_server_blind_evaluate(server, blinded.data, blinded.len, INFO, sizeof INFO - 1,
                                      &evaluated, &proof));
    EXPECT(pt_poprf_client_state_finalize(st, evaluated.data, evaluated.len, proof.data,
                                          proof.len, &output),
           PT_INVALID_PROOF);
    pt_buffer_free(&proof);
    pt_buffer_free(&evaluated);
    pt_buffer_free(&blinded);
    pt_poprf_client_state_free(st);
    /* batch */
    pt_buffer_list bl, ev, outs;
    OK(pt_poprf_client_blind_batch(client, INPUTS, 3, &bl, &st));
    pt_slice sl[3];
    as_slices(&bl, sl, 3);
    OK(pt_poprf_server_blind_evaluate_batch(server, sl, 3, INFO, sizeof INFO - 1, &ev, &proof));
    as_slices(&ev, sl, 3);
    OK(pt_poprf_client_state_finalize_batch(st, sl, 3, proof.data, proof.len, &outs));
    for (size_t i = 0; i < 3 && i < outs.count; i++) {
        OK(pt_poprf_server_evaluate(server, INPUTS[i].data, INPUTS[i].len, INFO, sizeof INFO - 1,
                                    &direct));
        CHECK(buf_eq(&outs.items[i], direct.data, direct.len));
        pt_buffer_free(&direct);
    }
    CHECK(outs.count == 3);
    pt_buffer_list_free(&outs);
    pt_buffer_list_free(&ev);
    pt_buffer_list_free(&bl);
    pt_buffer_free(&proof);
    pt_poprf_client_state_free(st);
    /* keys */
    pt_buffer sk, pk2;
    pt_poprf_server *copy = NULL, *d = NULL;
    OK(pt_poprf_server_secret_key(server, &sk));
    OK(pt_poprf_server_from_secret_key(s, sk.data, sk.len, &copy));
    OK(pt_poprf_server_public_key(copy, &pk2));
    CHECK(buf_eq(&pk2, pk.data, pk.len));
    pt_buffer_free(&pk2);
    pt_buffer_free(&sk);
    OK(pt_poprf_server_derive(s, (const uint8_t *)"seed", 4, INFO, sizeof INFO - 1, &d));
    pt_poprf_server_free(d);
    pt_poprf_server_free(copy);
    pt_buffer_free(&pk);
    pt_poprf_client_free(other);
    pt_poprf_client_free(client);
    pt_poprf_server_free(server);
}

#define PER_SUITE(fn, k) \
    static void fn##_##k(void) { fn(k); }
PER_SUITE(oprf_suite, 0)
PER_SUITE(oprf_suite, 1)
PER_SUITE(oprf_suite, 2)
PER_SUITE(oprf_suite, 3)
PER_SUITE(oprf_suite, 4)
PER_SUITE(voprf_suite, 0)
PER_SUITE(voprf_suite, 1)
PER_SUITE(voprf_suite, 2)
PER_SUITE(voprf_suite, 3)
PER_SUITE(voprf_suite, 4)
PER_SUITE(poprf_suite, 0)
PER_SUITE(poprf_suite, 1)
PER_SUITE(poprf_suite, 2)
PER_SUITE(poprf_suite, 3)
PER_SUITE(poprf_suite, 4)

static void oprf_bad_input(void) {
    pt_oprf_client *c = (pt_oprf_client *)1;
    pt_oprf_server *s = (pt_oprf_server *)1;
    EXPECT(pt_oprf_client_new(0, &c), PT_INVALID_ARGUMENT);
    CHECK(c == NULL);
    EXPECT(pt_oprf_server_generate(99, &s), PT_INVALID_ARGUMENT);
    CHECK(s == NULL);
    EXPECT(pt_oprf_client_new(PT_SUITE_P256_SHA256, NULL), PT_NULL_ARGUMENT);
    OK(pt_oprf_client_new(PT_SUITE_P256_SHA256, &c));
    OK(pt_oprf_server_generate(PT_SUITE_P256_SHA256, &s));
    pt_buffer b, e;
    pt_buffer_list l;
    pt_oprf_client_state *st = (pt_oprf_client_state *)1;
    /* input of 65536 bytes */
    uint8_t *big = calloc(65536, 1);
    EXPECT(pt_oprf_client_blind(c, big, 65536, &b, &st), PT_INPUT_TOO_LONG);
    CHECK(st == NULL && b.data == NULL);
    EXPECT(pt_oprf_client_blind(c, NULL, 1, &b, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_oprf_client_blind(NULL, big, 1, &b, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_oprf_client_blind(c, big, 1, NULL, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_oprf_client_blind(c, big, 1, &b, NULL), PT_NULL_ARGUMENT);
    EXPECT(pt_oprf_client_blind_batch(c, INPUTS, 0, &l, &st), PT_BATCH);
    EXPECT(pt_oprf_client_blind_batch(c, NULL, 2, &l, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_oprf_client_blind_batch(c, INPUTS, 65536, &l, &st), PT_BATCH);
    pt_slice bad_slice = {NULL, 3};
    EXPECT(pt_oprf_client_blind_batch(c, &bad_slice, 1, &l, &st), PT_NULL_ARGUMENT);
    /* server: bad elements */
    uint8_t bad_tag[33] = {0x05, 1};
    EXPECT(pt_oprf_server_blind_evaluate(s, bad_tag, 33, &e), PT_INVALID_POINT);
    EXPECT(pt_oprf_server_blind_evaluate(s, big, 33, &e), PT_IDENTITY_ELEMENT); /* all zero */
    EXPECT(pt_oprf_server_blind_evaluate(s, big, 32, &e), PT_INVALID_LENGTH);
    EXPECT(pt_oprf_server_blind_evaluate_batch(s, INPUTS, 0, &l), PT_BATCH);
    EXPECT(pt_oprf_server_blind_evaluate_batch(s, INPUTS, 1, &l), PT_INVALID_LENGTH);
    EXPECT(pt_oprf_server_evaluate(s, big, 65536, &e), PT_INPUT_TOO_LONG);
    EXPECT(pt_oprf_server_evaluate(NULL, big, 1, &e), PT_NULL_ARGUMENT);
    /* keys */
    uint8_t ff[32];
    memset(ff, 0xff, sizeof ff);
    pt_oprf_server *x = (pt_oprf_server *)1;
    EXPECT(pt_oprf_server_from_secret_key(PT_SUITE_P256_SHA256, ff, 32, &x), PT_NON_CANONICAL_SCALAR);
    CHECK(x == NULL);
    EXPECT(pt_oprf_server_from_secret_key(PT_SUITE_P256_SHA256, big, 32, &x), PT_ZERO_SCALAR);
    EXPECT(pt_oprf_server_from_secret_key(PT_SUITE_P256_SHA256, big, 31, &x), PT_INVALID_LENGTH);
    EXPECT(pt_oprf_server_derive(PT_SUITE_P256_SHA256, big, 1, big, 65536, &x), PT_INPUT_TOO_LONG);
    free(big);
    pt_oprf_client_free(c);
    pt_oprf_server_free(s);
    EXPECT(pt_oprf_client_state_finalize(NULL, (const uint8_t *)"x", 1, &e), PT_NULL_ARGUMENT);
}

static void voprf_bad_input(void) {
    pt_voprf_client *c = NULL;
    uint8_t key[49] = {0};
    EXPECT(pt_voprf_client_new(PT_SUITE_P384_SHA384, key, 48, &c), PT_INVALID_LENGTH);
    EXPECT(pt_voprf_client_new(PT_SUITE_P384_SHA384, key, 49, &c), PT_IDENTITY_ELEMENT);
    key[0] = 0x04; /* an uncompressed tag where the compressed form is required */
    EXPECT(pt_voprf_client_new(PT_SUITE_P384_SHA384, key, 49, &c), PT_INVALID_POINT);
    key[0] = 0;
    EXPECT(pt_voprf_client_new(PT_SUITE_RISTRETTO255_SHA512, key, 32, &c), PT_IDENTITY_ELEMENT);
    EXPECT(pt_voprf_client_new(7, key, 32, &c), PT_INVALID_ARGUMENT);
    pt_poprf_client *pc = (pt_poprf_client *)1;
    EXPECT(pt_poprf_client_new(PT_SUITE_DECAF448_SHAKE256, key, 49, NULL, 0, &pc),
           PT_INVALID_LENGTH);
    EXPECT(pt_poprf_client_new(PT_SUITE_DECAF448_SHAKE256, key, 49, NULL, 3, &pc),
           PT_NULL_ARGUMENT);
    CHECK(c == NULL && pc == NULL);
    pt_voprf_server *s = NULL;
    OK(pt_voprf_server_generate(PT_SUITE_RISTRETTO255_SHA512, &s));
    pt_buffer pk, b, e, p;
    OK(pt_voprf_server_public_key(s, &pk));
    OK(pt_voprf_client_new(PT_SUITE_RISTRETTO255_SHA512, pk.data, pk.len, &c));
    pt_voprf_client_state *st = NULL;
    OK(pt_voprf_client_blind(c, (const uint8_t *)"in", 2, &b, &st));
    EXPECT(pt_voprf_server_blind_evaluate(s, key, 32, &e, &p), PT_IDENTITY_ELEMENT);
    CHECK(e.data == NULL && p.data == NULL);
    EXPECT(pt_voprf_server_blind_evaluate(s, b.data, b.len, &e, NULL), PT_NULL_ARGUMENT);
    OK(pt_voprf_server_blind_evaluate(s, b.data, b.len, &e, &p));
    /* a non-canonical proof scalar: decoding fails, the state survives */
    uint8_t badproof[64];
    memset(badproof, 0xff, sizeof badproof);
    pt_buffer o;
    EXPECT(pt_voprf_client_state_finalize(st, e.data, e.len, badproof, 64, &o),
           PT_NON_CANONICAL_SCALAR);
    EXPECT(pt_voprf_client_state_finalize(st, key, 32, p.data, p.len, &o), PT_IDENTITY_ELEMENT);
    OK(pt_voprf_client_state_finalize(st, e.data, e.len, p.data, p.len, &o));
    pt_buffer_free(&o);
    pt_buffer_free(&b);
    pt_buffer_free(&e);
    pt_buffer_free(&p);
    pt_buffer_free(&pk);
    pt_voprf_client_state_free(st);
    pt_voprf_client_free(c);
    pt_voprf_server_free(s);
}

int main(void) {
    RUN(suite_names);
    RUN(oprf_suite_0);
    RUN(oprf_suite_1);
    RUN(oprf_suite_2);
    RUN(oprf_suite_3);
    RUN(oprf_suite_4);
    RUN(voprf_suite_0);
    RUN(voprf_suite_1);
    RUN(voprf_suite_2);
    RUN(voprf_suite_3);
    RUN(voprf_suite_4);
    RUN(poprf_suite_0);
    RUN(poprf_suite_1);
    RUN(poprf_suite_2);
    RUN(poprf_suite_3);
    RUN(poprf_suite_4);
    RUN(oprf_bad_input);
    RUN(voprf_bad_input);
    return SUMMARY();
}
