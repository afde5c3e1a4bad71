/* Trust Tokens (Private State Tokens) through the C ABI, pst_v1_voprf and pst_v1_pmb: key
 * generation and derivation, issuer and client round trips (the private metadata bit read back
 * at redemption), persisted issuance state, and bad input with its status codes. */
#include <stdlib.h>

#include "harness.h"

/* Issue `count` tokens under key `key_id` with bit `bit`, redeem each, check what the issuer
 * reads back. */
static void tt_round_trip(uint8_t method, bool bit) {
    pt_buffer sk, pk, sk2, pk2;
    OK(pt_trust_token_generate_key(method, 7, &sk, &pk));
    OK(pt_trust_token_derive_key_from_secret(method, 8, (const uint8_t *)"secret", 6, &sk2, &pk2));
    pt_trust_token_issuer *issuer = NULL;
    pt_trust_token_client *client = NULL;
    OK(pt_trust_token_issuer_new(method, 10, &issuer));
    OK(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len));
    OK(pt_trust_token_issuer_add_key(issuer, sk2.data, sk2.len));
    EXPECT(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len), PT_UNSUPPORTED_VALUE);
    pt_buffer_list keys;
    OK(pt_trust_token_issuer_public_keys(issuer, &keys));
    CHECK(keys.count == 2 && buf_eq(&keys.items[0], pk.data, pk.len) &&
          buf_eq(&keys.items[1], pk2.data, pk2.len));
    pt_buffer_list_free(&keys);
    OK(pt_trust_token_client_new(method, 10, &client));
    size_t index = 9;
    OK(pt_trust_token_client_add_key(client, pk.data, pk.len, &index));
    CHECK(index == 0);
    OK(pt_trust_token_client_add_key(client, pk2.data, pk2.len, &index));
    CHECK(index == 1);

    pt_buffer request, response, saved;
    pt_trust_token_issuance_state *st = NULL, *restored = NULL;
    OK(pt_trust_token_client_begin_issuance(client, 3, &request, &st));
    /* The state persists and restores. */
    OK(pt_trust_token_issuance_state_to_bytes(st, &saved));
    OK(pt_trust_token_issuance_state_from_bytes(saved.data, saved.len, &restored));
    pt_buffer_free(&saved);
    uint16_t issued = 0;
    /* Any non-zero value sets the private metadata bit (review BND-12: a uint8_t, not a bool). */
    OK(pt_trust_token_issuer_issue(issuer, request.data, request.len, 8, bit ? 2 : 0, 10,
                                   &response, &issued));
    CHECK(issued == 3);
    pt_buffer_list tokens;
    /* Tampered response: the state survives. */
    response.data[response.len - 1] ^= 1;
    EXPECT(pt_trust_token_client_finish_issuance(client, restored, response.data, response.len,
                                                 &tokens),
           PT_INVALID_PROOF);
    response.data[response.len - 1] ^= 1;
    OK(pt_trust_token_client_finish_issuance(client, restored, response.data, response.len,
                                             &tokens));
    CHECK(tokens.count == 3);
    pt_buffer_list again;
    EXPECT(pt_trust_token_client_finish_issuance(client, restored, response.data, response.len,
                                                 &again),
           PT_STATE_CONSUMED);
    EXPECT(pt_trust_token_issuance_state_to_bytes(restored, &saved), PT_STATE_CONSUMED);
    /* The original state finishes too (the same blinds). */
    pt_buffer_list tokens2;
    OK(pt_trust_token_client_finish_issuance(client, st, response.data, response.len, &tokens2));
    CHECK(tokens2.count == 3);
    pt_buffer_list_free(&tokens2);
    for (size_t i = 0; i < tokens.count; i++) {
        pt_buffer redemption, nonce, data;
        OK(pt_trust_token_client_begin_redemption(client, tokens.items[i].data,
                                                  tokens.items[i].len, (const uint8_t *)"cd", 2,
                                                  &redemption));
        uint32_t kid = 0;
        bool md = !bit;
        OK(pt_trust_token_issuer_redeem(issuer, redemption.data, redemption.len, &kid, &md, &nonce,
                                        &data));
        CHECK(kid == 8 && md == bit && nonce.len == 64 && buf_is(&data, "cd"));
        pt_buffer_free(&nonce);
        pt_buffer_free(&data);
        /* A flipped byte in the token's last point: refused. */
        redemption.data[redemption.len - 5] ^= 1;
        pt_status s = pt_trust_token_issuer_redeem(issuer, redemption.data, redemption.len, &kid,
                                                   &md, &nonce, &data);
        CHECK(s == PT_INVALID_POINT || s == PT_INVALID_PROOF);
        CHECK(nonce.data == NULL && data.data == NULL && kid == 0);
        EXPECT(pt_trust_token_issuer_redeem(issuer, redemption.data, redemption.len - 1, &kid, &md,
                                            &nonce, &data),
               PT_INVALID_LENGTH);
        pt_buffer_free(&redemption);
    }
    pt_buffer_list_free(&tokens);
    /* max_issuance caps the count. */
    pt_buffer_free(&response);
    OK(pt_trust_token_issuer_issue(issuer, request.data, request.len, 7, bit, 2, &response,
                                   &issued));
    CHECK(issued == 2);
    pt_buffer_free(&response);
    EXPECT(pt_trust_token_issuer_issue(issuer, request.data, request.len, 9, bit, 2, &response,
                                       &issued),
           PT_UNSUPPORTED_VALUE); /* unknown key id */
    EXPECT(pt_trust_token_issuer_issue(issuer, request.data, request.len, 7, bit, 0, &response,
                                       &issued),
           PT_BATCH);
    EXPECT(pt_trust_token_issuer_issue(issuer, request.data, request.len - 1, 7, bit, 2, &response,
                                       &issued),
           PT_INVALID_LENGTH);
    CHECK(response.data == NULL && issued == 0);
    pt_buffer_free(&request);
    pt_trust_token_issuance_state_free(st);
    pt_trust_token_issuance_state_free(restored);
    pt_trust_token_client_free(client);
    pt_trust_token_issuer_free(issuer);
    pt_buffer_free(&sk);
    pt_buffer_free(&pk);
    pt_buffer_free(&sk2);
    pt_buffer_free(&pk2);
}

static void pst_v1_voprf(void) { tt_round_trip(PT_METHOD_PST_V1_VOPRF, false); }
static void pst_v1_pmb_bit_set(void) { tt_round_trip(PT_METHOD_PST_V1_PMB, true); }
static void pst_v1_pmb_bit_clear(void) { tt_round_trip(PT_METHOD_PST_V1_PMB, false); }

/* The key limits (6 keys for pst_v1_voprf, 3 for pst_v1_pmb, on both sides), and a redemption
 * under a key the issuer does not hold. */
static void tt_key_limits(uint8_t method, uint32_t max_keys) {
    pt_trust_token_issuer *issuer = NULL, *other = NULL;
    pt_trust_token_client *client = NULL;
    OK(pt_trust_token_issuer_new(method, 4, &issuer));
    OK(pt_trust_token_issuer_new(method, 4, &other));
    OK(pt_trust_token_client_new(method, 4, &client));
    pt_buffer sk, pk;
    for (uint32_t id = 1; id <= max_keys + 1; id++) {
        OK(pt_trust_token_generate_key(method, id, &sk, &pk));
        size_t index = 99;
        if (id <= max_keys) {
            OK(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len));
            OK(pt_trust_token_client_add_key(client, pk.data, pk.len, &index));
            CHECK(index == id - 1);
        } else {
            EXPECT(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len), PT_UNSUPPORTED_VALUE);
            EXPECT(pt_trust_token_client_add_key(client, pk.data, pk.len, &index),
                   PT_UNSUPPORTED_VALUE);
            CHECK(index == 0);
        }
        if (id == 1) OK(pt_trust_token_issuer_add_key(other, sk.data, sk.len));
        pt_buffer_free(&sk);
        pt_buffer_free(&pk);
    }
    pt_buffer_list keys;
    OK(pt_trust_token_issuer_public_keys(issuer, &keys));
    CHECK(keys.count == max_keys);
    pt_buffer_list_free(&keys);
    /* a token of key 2, redeemed at an issuer holding key 1 only */
    pt_buffer req, resp, red, n, d;
    pt_trust_token_issuance_state *st = NULL;
    uint16_t issued = 0;
    pt_buffer_list tokens;
    OK(pt_trust_token_client_begin_issuance(client, 1, &req, &st));
    OK(pt_trust_token_issuer_issue(issuer, req.data, req.len, 2, false, 1, &resp, &issued));
    OK(pt_trust_token_client_finish_issuance(client, st, resp.data, resp.len, &tokens));
    CHECK(tokens.count == 1);
    OK(pt_trust_token_client_begin_redemption(client, tokens.items[0].data, tokens.items[0].len,
                                              NULL, 0, &red));
    uint32_t kid = 7;
    bool md = true;
    EXPECT(pt_trust_token_issuer_redeem(other, red.data, red.len, &kid, &md, &n, &d),
           PT_UNSUPPORTED_VALUE);
    CHECK(kid == 0 && !md && n.data == NULL && d.data == NULL);
    OK(pt_trust_token_issuer_redeem(issuer, red.data, red.len, &kid, &md, &n, &d));
    CHECK(kid == 2 && d.len == 0);
    pt_buffer_free(&n);
    pt_buffer_free(&d);
    pt_buffer_free(&red);
    pt_buffer_list_free(&tokens);
    pt_buffer_free(&resp);
    pt_buffer_free(&req);
    pt_trust_token_issuance_state_free(st);
    pt_trust_token_client_free(client);
    pt_trust_token_issuer_free(other);
    pt_trust_token_issuer_free(issuer);
}

static void pst_v1_voprf_key_limits(void) { tt_key_limits(PT_METHOD_PST_V1_VOPRF, 6); }
static void pst_v1_pmb_key_limits(void) { tt_key_limits(PT_METHOD_PST_V1_PMB, 3); }

static void trust_token_bad_input(void) {
    pt_buffer sk, pk;
    EXPECT(pt_trust_token_generate_key(0, 1, &sk, &pk), PT_INVALID_ARGUMENT);
    EXPECT(pt_trust_token_generate_key(5, 1, &sk, &pk), PT_INVALID_ARGUMENT); /* experiment_v1 */
    EXPECT(pt_trust_token_generate_key(PT_METHOD_PST_V1_VOPRF, 1, NULL, &pk), PT_NULL_ARGUMENT);
    pt_trust_token_issuer *issuer = NULL;
    pt_trust_token_client *client = NULL;
    EXPECT(pt_trust_token_issuer_new(9, 10, &issuer), PT_INVALID_ARGUMENT);
    OK(pt_trust_token_issuer_new(PT_METHOD_PST_V1_VOPRF, 10, &issuer));
    OK(pt_trust_token_client_new(PT_METHOD_PST_V1_VOPRF, 10, &client));
    OK(pt_trust_token_generate_key(PT_METHOD_PST_V1_PMB, 1, &sk, &pk));
    /* A PMB key for a VOPRF issuer: wrong length. */
    EXPECT(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len), PT_INVALID_LENGTH);
    size_t index;
    EXPECT(pt_trust_token_client_add_key(client, pk.data, pk.len, &index), PT_INVALID_LENGTH);
    pt_buffer_free(&sk);
    pt_buffer_free(&pk);
    OK(pt_trust_token_generate_key(PT_METHOD_PST_V1_VOPRF, 1, &sk, &pk));
    pk.data[5] ^= 0xff; /* the point's tag */
    EXPECT(pt_trust_token_client_add_key(client, pk.data, pk.len, &index), PT_INVALID_POINT);
    pt_buffer req;
    pt_trust_token_issuance_state *st = NULL;
    EXPECT(pt_trust_token_client_begin_issuance(client, 0, &req, &st), PT_BATCH);
    CHECK(st == NULL);
    OK(pt_trust_token_client_begin_issuance(client, 2, &req, &st));
    OK(pt_trust_token_issuer_add_key(issuer, sk.data, sk.len));
    pt_buffer resp;
    uint16_t issued;
    EXPECT(pt_trust_token_issuer_issue(issuer, req.data, req.len, 1, true, 2, &resp, &issued),
           PT_UNSUPPORTED_VALUE); /* a metadata bit with a VOPRF method */
    OK(pt_trust_token_issuer_issue(issuer, req.data, req.len, 1, false, 2, &resp, &issued));
    pt_buffer_list tokens;
    /* The client lacks the key (it was refused above). */
    EXPECT(pt_trust_token_client_finish_issuance(client, st, resp.data, resp.len, &tokens),
           PT_UNSUPPORTED_VALUE);
    EXPECT(pt_trust_token_client_finish_issuance(NULL, st, resp.data, resp.len, &tokens),
           PT_NULL_ARGUMENT);
    pt_buffer r;
    EXPECT(pt_trust_token_client_begin_redemption(client, (const uint8_t *)"abcd", 4, NULL, 0, &r),
           PT_INVALID_LENGTH);
    pt_trust_token_issuance_state *x = NULL;
    EXPECT(pt_trust_token_issuance_state_from_bytes((const uint8_t *)"\x09\x00\x00", 3, &x),
           PT_UNSUPPORTED_VALUE);
    EXPECT(pt_trust_token_issuance_state_from_bytes(NULL, 3, &x), PT_NULL_ARGUMENT);
    uint32_t kid;
    bool md;
    pt_buffer n, d;
    EXPECT(pt_trust_token_issuer_redeem(issuer, (const uint8_t *)"\x00", 1, &kid, &md, &n, &d),
           PT_INVALID_LENGTH);
    EXPECT(pt_trust_token_issuer_redeem(issuer, NULL, 0, &kid, &md, NULL, &d), PT_NULL_ARGUMENT);
    pt_buffer_free(&resp);
    pt_buffer_free(&req);
    pt_buffer_free(&sk);
    pt_buffer_free(&pk);
    pt_trust_token_issuance_state_free(st);
    pt_trust_token_client_free(client);
    pt_trust_token_issuer_free(issuer);
}

int main(void) {
    RUN(pst_v1_voprf);
    RUN(pst_v1_pmb_bit_set);
    RUN(pst_v1_pmb_bit_clear);
    RUN(pst_v1_voprf_key_limits);
    RUN(pst_v1_pmb_key_limits);
    RUN(trust_token_bad_input);
    return SUMMARY();
}
