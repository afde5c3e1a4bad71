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

/* For each suite, the secret key skS = -m of POPRF info "rotate me", m = HashToScalar("Info" ||
 * I2OSP(len(info), 2) || info) (RFC 9497 §3.3.3), computed independently with Python's hashlib
 * (expand_message_xmd/xof, reduced mod the group order): the server's tweaked key skS + m is 0,
 * so it must refuse with PT_INVERSE, and a client's tweaked key m*G + pkS is the identity, so it
 * must refuse with PT_INVALID_INPUT. */
static const uint8_t ROTATE_INFO[] = "rotate me";
static const uint8_t INVERSE_KEY_P256[] = {
    0x46, 0xc5, 0xc1, 0xb7, 0xce, 0x9d, 0xf6, 0x69, 0xe4, 0xcc, 0x75, 0x42,
    0x63, 0xc1, 0xea, 0x8b, 0x5c, 0xc9, 0xd3, 0x63, 0xd9, 0x58, 0xec, 0xa2,
    0x04, 0x92, 0x3a, 0x7c, 0x2d, 0x4c, 0x83, 0xb6};
static const uint8_t INVERSE_KEY_P384[] = {
    0x82, 0x5a, 0xe6, 0x64, 0x73, 0x6d, 0x12, 0x2a, 0xd1, 0x02, 0x39, 0x82,
    0x14, 0x22, 0xa1, 0xfb, 0xa2, 0xf5, 0x2c, 0x20, 0xb8, 0x7b, 0x49, 0xb4,
    0x56, 0xd3, 0x6f, 0xbf, 0x2a, 0x36, 0xff, 0x08, 0x25, 0xdc, 0x20, 0x53,
    0x13, 0xf9, 0xa1, 0x5a, 0xb4, 0x62, 0x1e, 0x4c, 0x25, 0xa6, 0xb3, 0x9b};
static const uint8_t INVERSE_KEY_P521[] = {
    0x01, 0x23, 0x9f, 0x3e, 0x89, 0xdf, 0xa3, 0x13, 0x2d, 0xd3, 0xde, 0x3d,
    0x5f, 0x75, 0x99, 0x52, 0x2a, 0xf6, 0xcb, 0x41, 0x8c, 0x86, 0x4c, 0xa1,
    0x14, 0x74, 0x36, 0x0a, 0xd0, 0xca, 0x68, 0x4a, 0x93, 0xb5, 0xa2, 0xad,
    0x51, 0xe2, 0x8b, 0xf1, 0x45, 0xed, 0xfd, 0xee, 0x2b, 0xdf, 0x5a, 0x04,
    0x30, 0x27, 0x51, 0x95, 0x84, 0x15, 0x25, 0x5d, 0xa6, 0xc5, 0x5b, 0xc8,
    0xda, 0x57, 0xf2, 0x98, 0xca, 0x05};
static const uint8_t INVERSE_KEY_RISTRETTO255[] = {
    0x39, 0xca, 0xcb, 0xf6, 0x9a, 0x78, 0x14, 0xa8, 0x44, 0xbc, 0xe5, 0x0d,
    0x1f, 0xaa, 0x6b, 0x82, 0x6d, 0xb0, 0x47, 0xdb, 0xdb, 0xab, 0xa2, 0x72,
    0x4c, 0x25, 0xf1, 0xf5, 0xc2, 0xd2, 0xa6, 0x0a};
static const uint8_t INVERSE_KEY_DECAF448[] = {
    0x5a, 0x31, 0xd4, 0xb7, 0xab, 0x92, 0xd8, 0x2b, 0x8e, 0xce, 0xbc, 0xbd,
    0x4a, 0xcb, 0x00, 0xca, 0x20, 0xfc, 0xc1, 0x92, 0xde, 0x49, 0x0b, 0x29,
    0x37, 0xd2, 0x34, 0xf2, 0x97, 0x85, 0x06, 0x2e, 0x62, 0xab, 0x3e, 0x25,
    0xa7, 0xf1, 0x3d, 0xe3, 0xb3, 0xd4, 0xa8, 0x63, 0x90, 0x9b, 0xdf, 0x82,
    0xae, 0xbc, 0x9d, 0x2b, 0xbb, 0x7a, 0x71, 0x0f};
static const uint8_t *const INVERSE_KEYS[5] = {INVERSE_KEY_P256, INVERSE_KEY_P384, INVERSE_KEY_P521,
                                                INVERSE_KEY_RISTRETTO255, INVERSE_KEY_DECAF448};

static void poprf_bad_input(void) {
    for (size_t k = 0; k < 5; k++) {
        uint32_t s = SUITES[k];
        const uint8_t *ri = ROTATE_INFO;
        size_t ri_len = sizeof ROTATE_INFO - 1;
        pt_poprf_server *server = NULL, *good = NULL;
        OK(pt_poprf_server_from_secret_key(s, INVERSE_KEYS[k], NS[k], &server));
        OK(pt_poprf_server_generate(s, &good));
        pt_buffer pk, good_pk;
        OK(pt_poprf_server_public_key(server, &pk));
        OK(pt_poprf_server_public_key(good, &good_pk));
        /* a blinded element from a client of the other key */
        pt_poprf_client *gc = NULL;
        OK(pt_poprf_client_new(s, good_pk.data, good_pk.len, ri, ri_len, &gc));
        pt_buffer blinded, e, p, o;
        pt_poprf_client_state *st = NULL;
        OK(pt_poprf_client_blind(gc, INPUTS[0].data, INPUTS[0].len, &blinded, &st));
        EXPECT(pt_poprf_server_blind_evaluate(server, blinded.data, blinded.len, ri, ri_len, &e,
                                              &p),
               PT_INVERSE);
        CHECK(e.data == NULL && p.data == NULL);
        pt_slice one = {blinded.data, blinded.len};
        pt_buffer_list ev;
        EXPECT(pt_poprf_server_blind_evaluate_batch(server, &one, 1, ri, ri_len, &ev, &p),
               PT_INVERSE);
        CHECK(ev.items == NULL && ev.count == 0);
        EXPECT(pt_poprf_server_evaluate(server, INPUTS[0].data, INPUTS[0].len, ri, ri_len, &o),
               PT_INVERSE);
        CHECK(o.data == NULL);
        /* the same key with another info works */
        OK(pt_poprf_server_evaluate(server, INPUTS[0].data, INPUTS[0].len, INFO, sizeof INFO - 1,
                                    &o));
        pt_buffer_free(&o);
        /* a client of that key and info: its tweaked key is the identity */
        pt_poprf_client *bad = NULL;
        pt_poprf_client_state *none = (pt_poprf_client_state *)1;
        pt_buffer b2;
        pt_buffer_list bl;
        OK(pt_poprf_client_new(s, pk.data, pk.len, ri, ri_len, &bad));
        EXPECT(pt_poprf_client_blind(bad, INPUTS[0].data, INPUTS[0].len, &b2, &none),
               PT_INVALID_INPUT);
        CHECK(none == NULL && b2.data == NULL);
        EXPECT(pt_poprf_client_blind_batch(bad, INPUTS, 3, &bl, &none), PT_INVALID_INPUT);
        CHECK(none == NULL && bl.items == NULL);
        pt_poprf_client_free(bad);
        pt_poprf_client_state_free(st);
        pt_poprf_client_free(gc);
        pt_buffer_free(&blinded);
        pt_buffer_free(&good_pk);
        pt_buffer_free(&pk);
        pt_poprf_server_free(good);
        pt_poprf_server_free(server);
    }

    /* Malformed messages, info too long, batch mismatches, a tampered proof. */
    uint32_t s = PT_SUITE_P256_SHA256;
    pt_poprf_server *server = NULL;
    OK(pt_poprf_server_generate(s, &server));
    pt_buffer pk;
    OK(pt_poprf_server_public_key(server, &pk));
    uint8_t *big = calloc(65536, 1);
    pt_poprf_client *c = (pt_poprf_client *)1;
    pt_poprf_client_state *st = (pt_poprf_client_state *)1;
    pt_buffer b, e, p, o;
    pt_buffer_list bl, ev, outs;
    /* an info of 65536 bytes: refused at blind time (as the header says) */
    pt_poprf_client *long_info = NULL;
    OK(pt_poprf_client_new(s, pk.data, pk.len, big, 65536, &long_info));
    EXPECT(pt_poprf_client_blind(long_info, INPUTS[0].data, INPUTS[0].len, &b, &st),
           PT_INPUT_TOO_LONG);
    CHECK(st == NULL && b.data == NULL);
    pt_poprf_client_free(long_info);
    EXPECT(pt_poprf_client_new(s, pk.data, pk.len - 1, INFO, sizeof INFO - 1, &c),
           PT_INVALID_LENGTH);
    CHECK(c == NULL);
    EXPECT(pt_poprf_client_new(s, pk.data, pk.len, INFO, sizeof INFO - 1, NULL), PT_NULL_ARGUMENT);
    OK(pt_poprf_client_new(s, pk.data, pk.len, INFO, sizeof INFO - 1, &c));
    EXPECT(pt_poprf_client_blind(c, big, 65536, &b, &st), PT_INPUT_TOO_LONG);
    CHECK(st == NULL && b.data == NULL);
    EXPECT(pt_poprf_client_blind(NULL, big, 1, &b, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_poprf_client_blind_batch(c, INPUTS, 0, &bl, &st), PT_BATCH);
    EXPECT(pt_poprf_server_evaluate(server, big, 1, big, 65536, &o), PT_INPUT_TOO_LONG);
    EXPECT(pt_poprf_server_blind_evaluate(server, big, 33, INFO, sizeof INFO - 1, &e, &p),
           PT_IDENTITY_ELEMENT);
    EXPECT(pt_poprf_server_blind_evaluate(server, big, 32, INFO, sizeof INFO - 1, &e, &p),
           PT_INVALID_LENGTH);
    EXPECT(pt_poprf_server_blind_evaluate(server, big, 33, NULL, 2, &e, &p), PT_NULL_ARGUMENT);
    EXPECT(pt_poprf_server_blind_evaluate_batch(server, INPUTS, 0, INFO, sizeof INFO - 1, &ev, &p),
           PT_BATCH);
    OK(pt_poprf_client_blind_batch(c, INPUTS, 3, &bl, &st));
    pt_slice sl[3];
    as_slices(&bl, sl, 3);
    OK(pt_poprf_server_blind_evaluate_batch(server, sl, 3, INFO, sizeof INFO - 1, &ev, &p));
    as_slices(&ev, sl, 3);
    /* a batch state given one element, or two of three: PT_BATCH, the state survives */
    EXPECT(pt_poprf_client_state_finalize(st, sl[0].data, sl[0].len, p.data, p.len, &o), PT_BATCH);
    EXPECT(pt_poprf_client_state_finalize_batch(st, sl, 2, p.data, p.len, &outs), PT_BATCH);
    EXPECT(pt_poprf_client_state_finalize_batch(st, sl, 3, p.data, p.len - 1, &outs),
           PT_INVALID_LENGTH);
    EXPECT(pt_poprf_client_state_finalize_batch(st, sl, 3, p.data, p.len, NULL), PT_NULL_ARGUMENT);
    /* the elements in another order: the proof fails, and the state is spent */
    pt_slice swapped[3] = {sl[1], sl[0], sl[2]};
    EXPECT(pt_poprf_client_state_finalize_batch(st, swapped, 3, p.data, p.len, &outs),
           PT_INVALID_PROOF);
    CHECK(outs.items == NULL);
    EXPECT(pt_poprf_client_state_finalize_batch(st, sl, 3, p.data, p.len, &outs),
           PT_STATE_CONSUMED);
    EXPECT(pt_poprf_client_state_finalize(NULL, sl[0].data, sl[0].len, p.data, p.len, &o),
           PT_NULL_ARGUMENT);
    pt_buffer_list_free(&ev);
    pt_buffer_list_free(&bl);
    pt_buffer_free(&p);
    pt_poprf_client_state_free(st);
    pt_poprf_client_free(c);
    free(big);
    pt_buffer_free(&pk);
    pt_poprf_server_free(server);
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
    RUN(poprf_bad_input);
    return SUMMARY();
}
