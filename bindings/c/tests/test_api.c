/* The C ABI's buffers, challenges, headers, Privacy Pass (0x0001, 0x0005, single and batch)
 * and ARC (0xE5AC): every operation, each protocol's round trip, and bad input of every kind
 * with its status code. Built by test.sh against include/privacy_tokens.h and the static
 * library, run under valgrind.
 *
 * Controls (test.sh builds them from this file): -DPT_CONTROL_WRONG_STATUS expects PT_OK from
 * a call that must fail (the run must report 1 failed); -DPT_CONTROL_LEAK leaves one buffer
 * unfreed (valgrind must fail the run). */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"


/* --------------------------------------------------------------------------------------- */

static void status_names(void) {
    CHECK(strcmp(pt_status_name(PT_OK), "OK") == 0);
    CHECK(strcmp(pt_status_name(PT_INVALID_LENGTH), "INVALID_LENGTH") == 0);
    CHECK(strcmp(pt_status_name(PT_INVALID_ENCODING), "INVALID_ENCODING") == 0);
    CHECK(strcmp(pt_status_name(PT_NULL_ARGUMENT), "NULL_ARGUMENT") == 0);
    CHECK(strcmp(pt_status_name(PT_BUFFER_TOO_SMALL), "BUFFER_TOO_SMALL") == 0);
    CHECK(strcmp(pt_status_name(PT_STATE_CONSUMED), "STATE_CONSUMED") == 0);
    CHECK(strcmp(pt_status_name(PT_PANIC), "PANIC") == 0);
    CHECK(strcmp(pt_status_name(PT_UNKNOWN_ERROR), "UNKNOWN_ERROR") == 0);
    CHECK(strcmp(pt_status_name(-5), "UNKNOWN") == 0);
    CHECK(strcmp(pt_status_name(12345), "UNKNOWN") == 0);
}

/* Review BND-6: the library loaded is the one this header describes. */
static void versions(void) {
    CHECK(pt_abi_version() == PT_ABI_VERSION);
    CHECK(strcmp(pt_version(), PT_VERSION_STRING) == 0);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", PT_VERSION_MAJOR, PT_VERSION_MINOR, PT_VERSION_PATCH);
    CHECK(strcmp(pt_version(), v) == 0);
}

static void buffers(void) {
    pt_buffer b;
    OK(pt_base64url_encode((const uint8_t *)"\xfb\xff", 2, &b));
    CHECK(buf_is(&b, "-_8="));
    uint8_t small[2], big[8];
    size_t written = 99;
    EXPECT(pt_buffer_copy(&b, small, sizeof small, &written), PT_BUFFER_TOO_SMALL);
    CHECK(written == 4);
    OK(pt_buffer_copy(&b, big, sizeof big, &written));
    CHECK(written == 4 && memcmp(big, "-_8=", 4) == 0);
    EXPECT(pt_buffer_copy(NULL, big, sizeof big, &written), PT_NULL_ARGUMENT);
    EXPECT(pt_buffer_copy(&b, big, sizeof big, NULL), PT_NULL_ARGUMENT);
    EXPECT(pt_buffer_copy(&b, NULL, 8, &written), PT_NULL_ARGUMENT);
    pt_buffer_free(&b);
    CHECK(b.data == NULL && b.len == 0);
    pt_buffer_free(&b); /* a second free is a no-op */
    pt_buffer_free(NULL);
    /* An empty result is still a C string. */
    OK(pt_base64url_encode(NULL, 0, &b));
    CHECK(b.data != NULL && b.len == 0 && b.data[0] == 0);
    OK(pt_buffer_copy(&b, NULL, 0, &written));
    CHECK(written == 0);
    pt_buffer_free(&b);
    pt_buffer_list l = {NULL, 0};
    pt_buffer_list_free(&l);
    pt_buffer_list_free(NULL);
}

static void base64url(void) {
    pt_buffer b;
    OK(pt_base64url_decode("-_8=", 4, &b));
    CHECK(buf_eq(&b, "\xfb\xff", 2));
    pt_buffer_free(&b);
    OK(pt_base64url_decode("-_8", 3, &b)); /* padding optional */
    CHECK(buf_eq(&b, "\xfb\xff", 2));
    pt_buffer_free(&b);
    EXPECT(pt_base64url_decode("+/8=", 4, &b), PT_INVALID_ENCODING); /* not the url alphabet */
    CHECK(b.data == NULL && b.len == 0);
    EXPECT(pt_base64url_decode("-_9=", 4, &b), PT_INVALID_ENCODING); /* non-canonical */
    EXPECT(pt_base64url_decode("\xff\xfe", 2, &b), PT_INVALID_ENCODING); /* not UTF-8 */
    EXPECT(pt_base64url_decode(NULL, 4, &b), PT_NULL_ARGUMENT);
    EXPECT(pt_base64url_decode("AA", 2, NULL), PT_NULL_ARGUMENT);
    EXPECT(pt_base64url_encode(NULL, 3, &b), PT_NULL_ARGUMENT);
}

static void challenges(void) {
    uint8_t ctx[32];
    memset(ctx, 7, sizeof ctx);
    pt_challenge *c = NULL;
    OK(pt_challenge_create(PT_TOKEN_TYPE_1, ISSUER, strlen(ISSUER), ctx, 32, ORIGIN,
                           strlen(ORIGIN), NULL, 0, &c));
    uint16_t type = 0;
    bool supported = false;
    OK(pt_challenge_token_type(c, &type));
    CHECK(type == PT_TOKEN_TYPE_1);
    OK(pt_challenge_supported(c, &supported));
    CHECK(supported);
    pt_buffer b;
    OK(pt_challenge_issuer_name(c, &b));
    CHECK(buf_is(&b, ISSUER));
    pt_buffer_free(&b);
    OK(pt_challenge_origin_info(c, &b));
    CHECK(buf_is(&b, ORIGIN));
    pt_buffer_free(&b);
    OK(pt_challenge_redemption_context(c, &b));
    CHECK(buf_eq(&b, ctx, 32));
    pt_buffer_free(&b);
    EXPECT(pt_challenge_credential_context(c, &b), PT_ABSENT);
    EXPECT(pt_challenge_token_key(c, &b), PT_ABSENT);
    uint64_t max_age = 1;
    uint32_t rate = 1;
    EXPECT(pt_challenge_max_age(c, &max_age), PT_ABSENT);
    CHECK(max_age == 0);
    EXPECT(pt_challenge_rate_limit(c, &rate), PT_ABSENT);
    EXPECT(pt_challenge_parameter(c, "x", 1, &b), PT_ABSENT);

    /* Header round trip: WWW-Authenticate with every parameter, parsed back. */
    const uint8_t key[3] = {1, 2, 3};
    OK(pt_challenge_set_token_key(c, key, sizeof key));
    OK(pt_challenge_set_max_age(c, 600));
    OK(pt_challenge_set_rate_limit(c, 9));
    pt_buffer header, bytes, digest;
    OK(pt_challenge_to_header(c, &header));
    CHECK(header.len > 20 && strncmp((const char *)header.data, "PrivateToken challenge=", 23) == 0);
    OK(pt_challenge_to_bytes(c, &bytes));
    OK(pt_challenge_digest(c, &digest));
    CHECK(digest.len == 32);

    /* Two challenges joined as HTTP libraries join header lines, another scheme between. */
    size_t n = header.len * 2 + 64;
    char *joined = malloc(n);
    int m = snprintf(joined, n, "%s, Basic realm=\"x\", %s", header.data, header.data);
    pt_challenge_list *list = NULL;
    OK(pt_parse_challenges(joined, (size_t)m, &list));
    size_t count = 0;
    OK(pt_challenge_list_count(list, &count));
    CHECK(count == 2);
    pt_challenge *p = NULL;
    OK(pt_challenge_list_get(list, 1, &p));
    pt_buffer p_bytes, p_key;
    OK(pt_challenge_to_bytes(p, &p_bytes));
    CHECK(buf_eq(&p_bytes, bytes.data, bytes.len));
    OK(pt_challenge_token_key(p, &p_key));
    CHECK(buf_eq(&p_key, key, sizeof key));
    OK(pt_challenge_max_age(p, &max_age));
    CHECK(max_age == 600);
    OK(pt_challenge_rate_limit(p, &rate));
    CHECK(rate == 9);
    pt_buffer_free(&p_bytes);
    pt_buffer_free(&p_key);
    pt_challenge_free(p);
    EXPECT(pt_challenge_list_get(list, 2, &p), PT_INVALID_ARGUMENT);
    CHECK(p == NULL);
    OK(pt_challenge_list_find(list, PT_TOKEN_TYPE_1, &p));
    pt_challenge_free(p);
    EXPECT(pt_challenge_list_find(list, PT_TOKEN_TYPE_ARC, &p), PT_ABSENT);
    pt_challenge_list_free(list);
    free(joined);

    /* Unknown parameters are kept, unknown token types too (unsupported). */
    const char unk[] = "PrivateToken challenge=AAIAAAAA, token-key=AQID, foo=\"bar\"";
    OK(pt_parse_challenges(unk, strlen(unk), &list));
    OK(pt_challenge_list_count(list, &count));
    CHECK(count == 1);
    OK(pt_challenge_list_get(list, 0, &p));
    OK(pt_challenge_parameter(p, "foo", 3, &b));
    CHECK(buf_is(&b, "bar"));
    pt_buffer_free(&b);
    OK(pt_challenge_supported(p, &supported));
    CHECK(!supported);
    pt_challenge_free(p);
    EXPECT(pt_challenge_list_find(list, 2, &p), PT_ABSENT); /* empty issuer name: no parse */
    pt_challenge_list_free(list);
    /* find gives a challenge of that type whose bytes parse, supported or not (type 3, issuer
     * name "x", empty redemption context and origin info) */
    const char unk2[] = "PrivateToken challenge=AAMAAXgAAAA=";
    OK(pt_parse_challenges(unk2, strlen(unk2), &list));
    OK(pt_challenge_list_find(list, 3, &p));
    OK(pt_challenge_token_type(p, &type));
    OK(pt_challenge_supported(p, &supported));
    CHECK(type == 3 && !supported);
    pt_challenge_free(p);
    EXPECT(pt_challenge_list_find(list, PT_TOKEN_TYPE_1, &p), PT_ABSENT);
    CHECK(p == NULL);
    EXPECT(pt_challenge_list_find(NULL, PT_TOKEN_TYPE_1, &p), PT_NULL_ARGUMENT);
    EXPECT(pt_challenge_list_find(list, PT_TOKEN_TYPE_1, NULL), PT_NULL_ARGUMENT);
    pt_challenge_list_free(list);
    /* a challenge of a known type whose bytes do not parse is listed, but never found */
    const char opaque[] = "PrivateToken challenge=AAH_, token-key=AQID";
    OK(pt_parse_challenges(opaque, strlen(opaque), &list));
    OK(pt_challenge_list_count(list, &count));
    CHECK(count == 1);
    EXPECT(pt_challenge_list_find(list, PT_TOKEN_TYPE_1, &p), PT_ABSENT);
    pt_challenge_list_free(list);

    /* A challenge of fewer than 2 bytes (no token type) is left out. */
    const char short_one[] = "PrivateToken challenge=AA, token-key=AQID";
    OK(pt_parse_challenges(short_one, strlen(short_one), &list));
    OK(pt_challenge_list_count(list, &count));
    CHECK(count == 0);
    EXPECT(pt_challenge_list_find(list, 0, &p), PT_ABSENT);
    pt_challenge_list_free(list);

    /* No PrivateToken challenge: an empty list, not an error. */
    OK(pt_parse_challenges("Basic realm=x", 13, &list));
    OK(pt_challenge_list_count(list, &count));
    CHECK(count == 0);
    pt_challenge_list_free(list);

    /* From bytes; the same challenge. */
    OK(pt_challenge_from_bytes(bytes.data, bytes.len, &p));
    OK(pt_challenge_digest(p, &b));
    CHECK(buf_eq(&b, digest.data, 32));
    pt_buffer_free(&b);
    pt_challenge_free(p);
    pt_buffer_free(&header);
    pt_buffer_free(&bytes);
    pt_buffer_free(&digest);

    /* ARC challenge: the credential context. */
    pt_challenge *a = NULL;
    OK(pt_challenge_create(PT_TOKEN_TYPE_ARC, ISSUER, strlen(ISSUER), NULL, 0, ORIGIN,
                           strlen(ORIGIN), ctx, 32, &a));
    OK(pt_challenge_credential_context(a, &b));
    CHECK(buf_eq(&b, ctx, 32));
    pt_buffer_free(&b);
    pt_challenge_free(a);
    pt_challenge_free(c);
    pt_challenge_free(NULL);
}

static void challenge_bad_input(void) {
    pt_challenge *c = (pt_challenge *)1;
    uint8_t ctx[31] = {0};
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_1, ISSUER, strlen(ISSUER), ctx, 31, NULL, 0, NULL, 0,
                               &c),
           PT_INVALID_LENGTH); /* redemption context of 31 bytes */
    CHECK(c == NULL);
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_1, ISSUER, strlen(ISSUER), NULL, 0, NULL, 0, ctx, 31,
                               &c),
           PT_INVALID_ARGUMENT); /* a credential context on a non-ARC type */
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_ARC, ISSUER, strlen(ISSUER), NULL, 0, NULL, 0, ctx,
                               31, &c),
           PT_INVALID_LENGTH);
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_1, NULL, 3, NULL, 0, NULL, 0, NULL, 0, &c),
           PT_NULL_ARGUMENT);
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_1, "\xc3", 1, NULL, 0, NULL, 0, NULL, 0, &c),
           PT_INVALID_ENCODING);
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_1, ISSUER, strlen(ISSUER), NULL, 0, NULL, 0, NULL, 0,
                               NULL),
           PT_NULL_ARGUMENT);
    EXPECT(pt_challenge_from_bytes((const uint8_t *)"\x00", 1, &c), PT_INVALID_LENGTH);
    EXPECT(pt_challenge_from_bytes(NULL, 5, &c), PT_NULL_ARGUMENT);
    /* Bytes that parse as no layout are kept, unsupported, without fields. */
    OK(pt_challenge_from_bytes((const uint8_t *)"\x00\x01\xff", 3, &c));
    bool supported = true;
    OK(pt_challenge_supported(c, &supported));
    CHECK(!supported);
    pt_buffer b;
    EXPECT(pt_challenge_issuer_name(c, &b), PT_ABSENT);
    pt_challenge_free(c);
    uint16_t t;
    EXPECT(pt_challenge_token_type(NULL, &t), PT_NULL_ARGUMENT);
    EXPECT(pt_challenge_set_max_age(NULL, 1), PT_NULL_ARGUMENT);
    pt_challenge_list *l;
    EXPECT(pt_parse_challenges(NULL, 1, &l), PT_NULL_ARGUMENT);
    EXPECT(pt_parse_challenges("\xff", 1, &l), PT_INVALID_ENCODING);
    size_t n;
    EXPECT(pt_challenge_list_count(NULL, &n), PT_NULL_ARGUMENT);
    /* Review BND-15: a credential context on a non-ARC challenge is PT_INVALID_ARGUMENT (as
     * documented), a wrong-length one on ARC PT_INVALID_LENGTH. */
    uint8_t cc[32] = {0};
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_1, "i", 1, NULL, 0, "", 0, cc, 32, &c),
           PT_INVALID_ARGUMENT);
    EXPECT(pt_challenge_create(PT_TOKEN_TYPE_ARC, "i", 1, NULL, 0, "", 0, cc, 31, &c),
           PT_INVALID_LENGTH);
    CHECK(c == NULL);
}

static void authorization(void) {
    const uint8_t token[4] = {0, 1, 2, 3};
    pt_buffer h, t;
    OK(pt_authorization_header(token, sizeof token, &h));
    CHECK(buf_is(&h, "PrivateToken token=\"AAECAw==\"") || buf_is(&h, "PrivateToken token=AAECAw=="));
    OK(pt_parse_authorization((const char *)h.data, h.len, &t));
    CHECK(buf_eq(&t, token, sizeof token));
    pt_buffer_free(&t);
    pt_buffer_free(&h);
    EXPECT(pt_parse_authorization("Bearer abc", 10, &t), PT_UNSUPPORTED_VALUE);
    CHECK(t.data == NULL);
    EXPECT(pt_parse_authorization("PrivateToken token=%%%", 22, &t), PT_INVALID_ENCODING);
    EXPECT(pt_parse_authorization("PrivateToken", 12, &t), PT_INVALID_ENCODING);
    EXPECT(pt_parse_authorization(NULL, 3, &t), PT_NULL_ARGUMENT);
    EXPECT(pt_authorization_header(token, 4, NULL), PT_NULL_ARGUMENT);
}

/* --------------------------------------------------------------------------------------- */
/* Privacy Pass 0x0001 / 0x0005 */

/* One request for `count` tokens (0: single) answered by `issuer`; returns the tokens. */
static void pp_round_trip(pt_privacy_pass_issuer *issuer, uint16_t type, uint32_t count) {
    pt_buffer key;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    pt_challenge *c = challenge_for(type, &key);
    pt_buffer body, resp, chal;
    const char *ct = NULL, *rct = NULL;
    pt_token_request_state *st = NULL;
    OK(pt_create_token_request(c, NULL, 0, count, &body, &ct, &st));
    CHECK(ct && strcmp(ct, count ? "application/private-token-amortized-batch-request"
                                 : "application/private-token-request") == 0);
    size_t n = 0;
    uint16_t t = 0;
    bool consumed = true;
    OK(pt_token_request_state_info(st, &n, &t, &consumed));
    CHECK(n == (count ? count : 1) && t == type && !consumed);
    OK(pt_privacy_pass_issuer_issue(issuer, body.data, body.len, ct, strlen(ct), &resp, &rct));
    CHECK(rct && strcmp(rct, count ? "application/private-token-amortized-batch-response"
                                   : "application/private-token-response") == 0);
    /* Malformed response: the state survives. */
    pt_buffer_list tokens;
    EXPECT(pt_token_request_state_finalize(st, resp.data, resp.len - 1, &tokens),
           PT_INVALID_LENGTH);
    CHECK(tokens.items == NULL && tokens.count == 0);
    OK(pt_token_request_state_finalize(st, resp.data, resp.len, &tokens));
    CHECK(tokens.count == n);
    OK(pt_token_request_state_info(st, &n, &t, &consumed));
    CHECK(consumed);
    pt_buffer_list again;
    EXPECT(pt_token_request_state_finalize(st, resp.data, resp.len, &again), PT_STATE_CONSUMED);
    CHECK(again.items == NULL && again.count == 0);

    OK(pt_challenge_to_bytes(c, &chal));
    pt_buffer kid;
    OK(pt_privacy_pass_issuer_token_key_id(issuer, &kid));
    for (size_t i = 0; i < tokens.count; i++) {
        const pt_buffer *tb = &tokens.items[i];
        bool valid = false;
        pt_buffer nonce, nonce2;
        OK(pt_privacy_pass_issuer_verify_token(issuer, tb->data, tb->len, chal.data, chal.len,
                                               &valid, &nonce));
        CHECK(valid);
        /* The nonce, the double-spend key: the token's bytes 2..34. */
        CHECK(nonce.len == 32 && memcmp(nonce.data, tb->data + 2, 32) == 0);
        OK(pt_privacy_pass_issuer_verify_token_any_challenge(issuer, tb->data, tb->len, &valid,
                                                             &nonce2));
        CHECK(valid && buf_eq(&nonce2, nonce.data, nonce.len));
        pt_buffer_free(&nonce2);
        /* Another challenge: not valid for it, no nonce. */
        OK(pt_privacy_pass_issuer_verify_token(issuer, tb->data, tb->len, chal.data,
                                               chal.len - 1, &valid, &nonce2));
        CHECK(!valid && nonce2.data == NULL && nonce2.len == 0);
        /* A flipped authenticator bit: not valid, with or without the challenge check. */
        uint8_t *copy = malloc(tb->len);
        memcpy(copy, tb->data, tb->len);
        copy[tb->len - 1] ^= 1;
        valid = true;
        OK(pt_privacy_pass_issuer_verify_token(issuer, copy, tb->len, chal.data, chal.len, &valid,
                                               &nonce2));
        CHECK(!valid && nonce2.data == NULL);
        valid = true;
        OK(pt_privacy_pass_issuer_verify_token_any_challenge(issuer, copy, tb->len, &valid,
                                                             &nonce2));
        CHECK(!valid && nonce2.data == NULL);
        free(copy);
        pt_buffer_free(&nonce);

        pt_token *tok = NULL;
        OK(pt_token_from_bytes(tb->data, tb->len, &tok));
        uint16_t tt = 0;
        OK(pt_token_type(tok, &tt));
        CHECK(tt == type);
        pt_buffer x, d;
        OK(pt_token_to_bytes(tok, &x));
        CHECK(buf_eq(&x, tb->data, tb->len));
        pt_buffer_free(&x);
        OK(pt_token_challenge_digest(tok, &x));
        OK(pt_challenge_digest(c, &d));
        CHECK(x.len == 32 && buf_eq(&x, d.data, d.len));
        pt_buffer_free(&x);
        pt_buffer_free(&d);
        OK(pt_token_key_id(tok, &x));
        CHECK(buf_eq(&x, kid.data, kid.len));
        pt_buffer_free(&x);
        OK(pt_token_nonce(tok, &x));
        CHECK(x.len == 32);
        pt_buffer_free(&x);
        OK(pt_token_authorization_header(tok, &x));
        OK(pt_parse_authorization((const char *)x.data, x.len, &d));
        CHECK(buf_eq(&d, tb->data, tb->len));
        pt_buffer_free(&d);
        pt_buffer_free(&x);
        pt_token_free(tok);
    }
    pt_buffer_free(&kid);
    pt_buffer_free(&chal);
    pt_buffer_list_free(&tokens);
    CHECK(tokens.items == NULL && tokens.count == 0);
    pt_token_request_state_free(st);
    pt_buffer_free(&resp);
    pt_buffer_free(&body);
    pt_challenge_free(c);
    pt_buffer_free(&key);
}

static void privacy_pass_type1(void) {
    pt_privacy_pass_issuer *issuer = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &issuer));
    uint16_t t = 0, max = 0;
    OK(pt_privacy_pass_issuer_info(issuer, &t, &max));
    CHECK(t == PT_TOKEN_TYPE_1 && max == 256);
    pt_buffer key;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    CHECK(key.len == 49);
    pt_buffer_free(&key);
    pp_round_trip(issuer, PT_TOKEN_TYPE_1, 0);
    pp_round_trip(issuer, PT_TOKEN_TYPE_1, 1);
    pp_round_trip(issuer, PT_TOKEN_TYPE_1, 5);
    pt_privacy_pass_issuer_free(issuer);
}

static void privacy_pass_type5(void) {
    pt_privacy_pass_issuer *issuer = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_5, &issuer));
    pt_buffer key;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    CHECK(key.len == 32);
    pt_buffer_free(&key);
    pp_round_trip(issuer, PT_TOKEN_TYPE_5, 0);
    pp_round_trip(issuer, PT_TOKEN_TYPE_5, 4);
    pt_privacy_pass_issuer_free(issuer);
}

static void privacy_pass_issuer_keys(void) {
    pt_privacy_pass_issuer *a = NULL, *b = NULL, *d1 = NULL, *d2 = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &a));
    pt_buffer sk, ka, kb;
    OK(pt_privacy_pass_issuer_secret_key(a, &sk));
    CHECK(sk.len == 48);
    OK(pt_privacy_pass_issuer_from_secret_key(PT_TOKEN_TYPE_1, sk.data, sk.len, &b));
    OK(pt_privacy_pass_issuer_token_key(a, &ka));
    OK(pt_privacy_pass_issuer_token_key(b, &kb));
    CHECK(buf_eq(&ka, kb.data, kb.len));
    pt_buffer_free(&ka);
    pt_buffer_free(&kb);
    /* The same bytes as a type-5 key: a valid ristretto255 scalar or a decoding error. */
    pt_privacy_pass_issuer *x = NULL;
    EXPECT(pt_privacy_pass_issuer_from_secret_key(PT_TOKEN_TYPE_5, sk.data, sk.len, &x),
           PT_INVALID_LENGTH);
    CHECK(x == NULL);
    pt_buffer_free(&sk);
    uint8_t high[48];
    memset(high, 0xff, sizeof high);
    EXPECT(pt_privacy_pass_issuer_from_secret_key(PT_TOKEN_TYPE_1, high, 48, &x),
           PT_NON_CANONICAL_SCALAR);
    uint8_t zero[48] = {0};
    EXPECT(pt_privacy_pass_issuer_from_secret_key(PT_TOKEN_TYPE_1, zero, 48, &x), PT_ZERO_SCALAR);
    EXPECT(pt_privacy_pass_issuer_from_secret_key(PT_TOKEN_TYPE_1, NULL, 48, &x), PT_NULL_ARGUMENT);
    EXPECT(pt_privacy_pass_issuer_generate(2, &x), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_ARC, &x), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, NULL), PT_NULL_ARGUMENT);
    /* derive: deterministic. */
    OK(pt_privacy_pass_issuer_derive(PT_TOKEN_TYPE_5, (const uint8_t *)"seed", 4,
                                     (const uint8_t *)"PrivacyPass", 11, &d1));
    OK(pt_privacy_pass_issuer_derive(PT_TOKEN_TYPE_5, (const uint8_t *)"seed", 4,
                                     (const uint8_t *)"PrivacyPass", 11, &d2));
    OK(pt_privacy_pass_issuer_token_key(d1, &ka));
    OK(pt_privacy_pass_issuer_token_key(d2, &kb));
    CHECK(buf_eq(&ka, kb.data, kb.len));
    pt_buffer_free(&ka);
    pt_buffer_free(&kb);
    /* max batch */
    EXPECT(pt_privacy_pass_issuer_set_max_batch(b, 0), PT_INVALID_ARGUMENT);
    OK(pt_privacy_pass_issuer_set_max_batch(b, 3));
    uint16_t t, max;
    OK(pt_privacy_pass_issuer_info(b, &t, &max));
    CHECK(max == 3);
    OK(pt_privacy_pass_issuer_token_key(b, &kb));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, &kb);
    pt_buffer body, resp;
    const char *ct, *rct;
    pt_token_request_state *st;
    OK(pt_create_token_request(c, NULL, 0, 4, &body, &ct, &st));
    EXPECT(pt_privacy_pass_issuer_issue(b, body.data, body.len, NULL, 0, &resp, &rct), PT_BATCH);
    CHECK(resp.data == NULL && rct == NULL);
    pt_token_request_state_free(st);
    pt_buffer_free(&body);
    pt_challenge_free(c);
    pt_buffer_free(&kb);
    pt_privacy_pass_issuer_free(a);
    pt_privacy_pass_issuer_free(b);
    pt_privacy_pass_issuer_free(d1);
    pt_privacy_pass_issuer_free(d2);
    pt_privacy_pass_issuer_free(NULL);
}

static void privacy_pass_bad_input(void) {
    pt_privacy_pass_issuer *issuer = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &issuer));
    pt_buffer key;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, NULL);
    pt_buffer body;
    const char *ct = "x";
    pt_token_request_state *st = (pt_token_request_state *)1;
    EXPECT(pt_create_token_request(c, NULL, 0, 0, &body, &ct, &st), PT_MISSING_KEY);
    CHECK(st == NULL && ct == NULL && body.data == NULL);
    /* The key given by the caller instead. */
    OK(pt_create_token_request(c, key.data, key.len, 0, &body, &ct, &st));
    pt_buffer_free(&body);
    pt_token_request_state_free(st);
    EXPECT(pt_create_token_request(c, key.data, key.len - 1, 0, &body, &ct, &st), PT_INVALID_LENGTH);
    uint8_t bad_key[49];
    memcpy(bad_key, key.data, 49);
    bad_key[0] = 0x05;
    EXPECT(pt_create_token_request(c, bad_key, 49, 0, &body, &ct, &st), PT_INVALID_POINT);
    EXPECT(pt_create_token_request(c, key.data, key.len, 65536, &body, &ct, &st), PT_BATCH);
    EXPECT(pt_create_token_request(NULL, key.data, key.len, 0, &body, &ct, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_create_token_request(c, key.data, key.len, 0, NULL, &ct, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_create_token_request(c, key.data, key.len, 0, &body, NULL, &st), PT_NULL_ARGUMENT);
    EXPECT(pt_create_token_request(c, key.data, key.len, 0, &body, &ct, NULL), PT_NULL_ARGUMENT);
    pt_challenge *arc = challenge_for(PT_TOKEN_TYPE_ARC, &key);
    EXPECT(pt_create_token_request(arc, NULL, 0, 0, &body, &ct, &st), PT_UNSUPPORTED_VALUE);
    pt_challenge_free(arc);

    /* Issue: malformed requests. */
    OK(pt_create_token_request(c, key.data, key.len, 0, &body, &ct, &st));
    pt_buffer resp;
    const char *rct;
#ifdef PT_CONTROL_WRONG_STATUS
    /* Control: a wrong expectation (the call fails with PT_INVALID_LENGTH). */
    EXPECT(pt_privacy_pass_issuer_issue(issuer, body.data, body.len - 1, ct, strlen(ct), &resp, &rct),
           PT_OK);
#else
    EXPECT(pt_privacy_pass_issuer_issue(issuer, body.data, body.len - 1, ct, strlen(ct), &resp, &rct),
           PT_INVALID_LENGTH);
#endif
    EXPECT(pt_privacy_pass_issuer_issue(issuer, body.data, body.len, "text/plain", 10, &resp, &rct),
           PT_UNSUPPORTED_VALUE);
    uint8_t *copy = malloc(body.len);
    memcpy(copy, body.data, body.len);
    copy[0] ^= 1; /* token type 0x0000 */
    EXPECT(pt_privacy_pass_issuer_issue(issuer, copy, body.len, NULL, 0, &resp, &rct),
           PT_UNSUPPORTED_VALUE);
    memcpy(copy, body.data, body.len);
    copy[3] ^= 0xff; /* blinded element's tag */
    EXPECT(pt_privacy_pass_issuer_issue(issuer, copy, body.len, NULL, 0, &resp, &rct),
           PT_INVALID_POINT);
    free(copy);
    EXPECT(pt_privacy_pass_issuer_issue(NULL, body.data, body.len, NULL, 0, &resp, &rct),
           PT_NULL_ARGUMENT);
    EXPECT(pt_privacy_pass_issuer_issue(issuer, NULL, body.len, NULL, 0, &resp, &rct),
           PT_NULL_ARGUMENT);
    OK(pt_privacy_pass_issuer_issue(issuer, body.data, body.len,
                                    "Application/Private-Token-Request; x=1", 39, &resp, &rct));
    /* A tampered proof: the state is consumed, with PT_INVALID_PROOF. */
    resp.data[resp.len - 1] ^= 1;
    pt_buffer_list tokens;
    EXPECT(pt_token_request_state_finalize(st, resp.data, resp.len, &tokens), PT_INVALID_PROOF);
    CHECK(tokens.items == NULL);
    EXPECT(pt_token_request_state_finalize(st, resp.data, resp.len, &tokens), PT_STATE_CONSUMED);
    EXPECT(pt_token_request_state_finalize(NULL, resp.data, resp.len, &tokens), PT_NULL_ARGUMENT);
    EXPECT(pt_token_request_state_finalize(st, resp.data, resp.len, NULL), PT_NULL_ARGUMENT);
    pt_buffer_free(&resp);
    pt_buffer_free(&body);
    pt_token_request_state_free(st);

    /* Tokens: bad bytes. */
    pt_token *tok = (pt_token *)1;
    EXPECT(pt_token_from_bytes((const uint8_t *)"\x00", 1, &tok), PT_INVALID_LENGTH);
    CHECK(tok == NULL);
    EXPECT(pt_token_from_bytes((const uint8_t *)"\x00\x03\x00", 3, &tok), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_token_from_bytes((const uint8_t *)"\x00\x01\x00", 3, &tok), PT_INVALID_LENGTH);
    EXPECT(pt_token_from_bytes((const uint8_t *)"\xe5\xac\x00", 3, &tok), PT_INVALID_LENGTH);
    bool valid = true;
    pt_buffer vn;
    EXPECT(pt_privacy_pass_issuer_verify_token_any_challenge(issuer, (const uint8_t *)"\x00\x01", 2,
                                                             &valid, &vn),
           PT_INVALID_LENGTH);
    CHECK(!valid && vn.data == NULL);
    EXPECT(pt_privacy_pass_issuer_verify_token(issuer, (const uint8_t *)"\x00\x01", 2,
                                               (const uint8_t *)"c", 1, &valid, &vn),
           PT_INVALID_LENGTH);
    EXPECT(pt_privacy_pass_issuer_verify_token(issuer, NULL, 2, (const uint8_t *)"c", 1, &valid,
                                               &vn),
           PT_NULL_ARGUMENT);
    EXPECT(pt_privacy_pass_issuer_verify_token(issuer, (const uint8_t *)"c", 1, (const uint8_t *)"c",
                                               1, &valid, NULL),
           PT_NULL_ARGUMENT);
    pt_buffer x;
    EXPECT(pt_token_nonce(NULL, &x), PT_NULL_ARGUMENT);
    uint16_t t;
    EXPECT(pt_token_type(NULL, &t), PT_NULL_ARGUMENT);
    size_t n;
    bool consumed;
    EXPECT(pt_token_request_state_info(NULL, &n, &t, &consumed), PT_NULL_ARGUMENT);

    pt_challenge_free(c);
    pt_buffer_free(&key);
    pt_privacy_pass_issuer_free(issuer);
}

/* Both token types, single and batched: a response of another issuer's key, a tampered batch
 * proof, a request to an issuer of the other type or of another key, a batch body under the
 * single request's media type. */
static void pp_bad_responses(uint16_t type, uint16_t other_type) {
    pt_privacy_pass_issuer *issuer = NULL, *rotated = NULL, *other = NULL;
    OK(pt_privacy_pass_issuer_generate(type, &issuer));
    OK(pt_privacy_pass_issuer_generate(type, &rotated));
    OK(pt_privacy_pass_issuer_generate(other_type, &other));
    pt_buffer key, rkey;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    OK(pt_privacy_pass_issuer_token_key(rotated, &rkey));
    pt_challenge *c = challenge_for(type, &key);
    for (uint32_t count = 0; count <= 3; count += 3) {
        pt_buffer body, resp;
        const char *ct, *rct;
        pt_token_request_state *st = NULL;
        pt_buffer_list tokens;
        OK(pt_create_token_request(c, NULL, 0, count, &body, &ct, &st));
        /* Requests the issuer must refuse. */
        EXPECT(pt_privacy_pass_issuer_issue(rotated, body.data, body.len, ct, strlen(ct), &resp,
                                            &rct),
               PT_UNSUPPORTED_VALUE); /* another key id */
        EXPECT(pt_privacy_pass_issuer_issue(other, body.data, body.len, ct, strlen(ct), &resp,
                                            &rct),
               PT_UNSUPPORTED_VALUE); /* another token type */
        if (count) {
            const char single[] = "application/private-token-request";
            EXPECT(pt_privacy_pass_issuer_issue(issuer, body.data, body.len, single,
                                                strlen(single), &resp, &rct),
                   PT_INVALID_LENGTH);
        }
        /* A response under another key of the same type: the proof fails, the state is spent. */
        pt_token_request_state *rst = NULL;
        pt_challenge *rc = challenge_for(type, &rkey);
        pt_buffer rbody, rresp;
        OK(pt_create_token_request(rc, NULL, 0, count, &rbody, &ct, &rst));
        OK(pt_privacy_pass_issuer_issue(rotated, rbody.data, rbody.len, ct, strlen(ct), &rresp,
                                        &rct));
        EXPECT(pt_token_request_state_finalize(st, rresp.data, rresp.len, &tokens),
               PT_INVALID_PROOF);
        CHECK(tokens.items == NULL);
        EXPECT(pt_token_request_state_finalize(st, rresp.data, rresp.len, &tokens),
               PT_STATE_CONSUMED);
        /* The other state, with its proof's last byte flipped: refused, spent. */
        rresp.data[rresp.len - 1] ^= 1;
        pt_status s = pt_token_request_state_finalize(rst, rresp.data, rresp.len, &tokens);
        CHECK(s == PT_INVALID_PROOF || s == PT_NON_CANONICAL_SCALAR);
        if (s == PT_INVALID_PROOF) {
            EXPECT(pt_token_request_state_finalize(rst, rresp.data, rresp.len, &tokens),
                   PT_STATE_CONSUMED);
        }
        pt_buffer_free(&rresp);
        pt_buffer_free(&rbody);
        pt_token_request_state_free(rst);
        pt_challenge_free(rc);
        pt_buffer_free(&body);
        pt_token_request_state_free(st);
    }
    /* A single state given a batch response, and a batch state given a single response. */
    pt_buffer b1, b3, r1, r3;
    const char *ct1, *ct3, *rct;
    pt_token_request_state *s1 = NULL, *s3 = NULL;
    pt_buffer_list tokens;
    OK(pt_create_token_request(c, NULL, 0, 0, &b1, &ct1, &s1));
    OK(pt_create_token_request(c, NULL, 0, 3, &b3, &ct3, &s3));
    OK(pt_privacy_pass_issuer_issue(issuer, b1.data, b1.len, ct1, strlen(ct1), &r1, &rct));
    OK(pt_privacy_pass_issuer_issue(issuer, b3.data, b3.len, ct3, strlen(ct3), &r3, &rct));
    EXPECT(pt_token_request_state_finalize(s1, r3.data, r3.len, &tokens), PT_INVALID_LENGTH);
    /* (a single response read as a batch one: its first two bytes, part of a random element,
     * are taken as the elements' length, so either the length or the count is wrong) */
    pt_status s = pt_token_request_state_finalize(s3, r1.data, r1.len, &tokens);
    CHECK(s == PT_INVALID_LENGTH || s == PT_BATCH);
    /* both states survive a wrong-length response */
    OK(pt_token_request_state_finalize(s1, r1.data, r1.len, &tokens));
    CHECK(tokens.count == 1);
    pt_buffer_list_free(&tokens);
    OK(pt_token_request_state_finalize(s3, r3.data, r3.len, &tokens));
    CHECK(tokens.count == 3);
    pt_buffer_list_free(&tokens);
    pt_buffer_free(&b1);
    pt_buffer_free(&b3);
    pt_buffer_free(&r1);
    pt_buffer_free(&r3);
    pt_token_request_state_free(s1);
    pt_token_request_state_free(s3);
    pt_challenge_free(c);
    pt_buffer_free(&key);
    pt_buffer_free(&rkey);
    pt_privacy_pass_issuer_free(issuer);
    pt_privacy_pass_issuer_free(rotated);
    pt_privacy_pass_issuer_free(other);
}

static void privacy_pass_type1_bad_responses(void) {
    pp_bad_responses(PT_TOKEN_TYPE_1, PT_TOKEN_TYPE_5);
}
static void privacy_pass_type5_bad_responses(void) {
    pp_bad_responses(PT_TOKEN_TYPE_5, PT_TOKEN_TYPE_1);
}

/* --------------------------------------------------------------------------------------- */
/* ARC */

static void arc_round_trip(void) {
    pt_arc_issuer *issuer = NULL;
    OK(pt_arc_issuer_generate(&issuer));
    pt_buffer key, kid, sk;
    OK(pt_arc_issuer_token_key(issuer, &key));
    OK(pt_arc_issuer_token_key_id(issuer, &kid));
    CHECK(kid.len == 32);
    OK(pt_arc_issuer_secret_key(issuer, &sk));
    pt_arc_issuer *again = NULL;
    OK(pt_arc_issuer_from_secret_key(sk.data, sk.len, &again));
    pt_buffer key2;
    OK(pt_arc_issuer_token_key(again, &key2));
    CHECK(buf_eq(&key2, key.data, key.len));
    pt_buffer_free(&key2);
    pt_buffer_free(&sk);

    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_ARC, &key);
    OK(pt_challenge_set_rate_limit(c, 3));
    pt_buffer body, resp;
    const char *ct, *rct;
    pt_credential_request_state *st = NULL;
    OK(pt_create_credential_request(c, NULL, 0, &body, &ct, &st));
    CHECK(strcmp(ct, "application/private-credential-request") == 0);
    OK(pt_arc_issuer_issue(again, body.data, body.len, &resp, &rct));
    CHECK(strcmp(rct, "application/private-credential-response") == 0);
    pt_credential *cred = NULL;
    bool consumed = true;
    EXPECT(pt_credential_request_state_finalize(st, resp.data, resp.len - 1, &cred),
           PT_INVALID_LENGTH);
    OK(pt_credential_request_state_consumed(st, &consumed));
    CHECK(!consumed && cred == NULL);
    OK(pt_credential_request_state_finalize(st, resp.data, resp.len, &cred));
    OK(pt_credential_request_state_consumed(st, &consumed));
    CHECK(consumed);
    pt_credential *none = NULL;
    EXPECT(pt_credential_request_state_finalize(st, resp.data, resp.len, &none), PT_STATE_CONSUMED);
    CHECK(none == NULL);

    uint32_t left = 0;
    OK(pt_credential_remaining(cred, c, NULL, 0, 0, &left));
    CHECK(left == 3);
    pt_buffer t1, t2, t3, tag1, tag2, saved;
    OK(pt_credential_present(cred, c, NULL, 0, 0, &t1));
    /* Persist, restore, continue the counter. */
    OK(pt_credential_to_bytes(cred, &saved));
    pt_credential_free(cred);
    cred = NULL;
    OK(pt_credential_from_bytes(saved.data, saved.len, &cred));
    pt_buffer_free(&saved);
    OK(pt_credential_remaining(cred, c, NULL, 0, 0, &left));
    CHECK(left == 2);
    OK(pt_credential_present(cred, c, NULL, 0, 0, &t2));
    OK(pt_credential_present(cred, c, key.data, key.len, 3, &t3));
    pt_buffer t4;
    EXPECT(pt_credential_present(cred, c, NULL, 0, 0, &t4), PT_LIMIT_EXCEEDED);
    CHECK(t4.data == NULL);
    OK(pt_credential_remaining(cred, c, NULL, 0, 0, &left));
    CHECK(left == 0);

    OK(pt_arc_issuer_verify(issuer, t1.data, t1.len, c, 0, &tag1));
    OK(pt_arc_issuer_verify(issuer, t2.data, t2.len, c, 3, &tag2));
    CHECK(tag1.len > 0 && !buf_eq(&tag1, tag2.data, tag2.len));
    pt_buffer tag3;
    OK(pt_arc_issuer_verify(issuer, t3.data, t3.len, c, 0, &tag3));
    pt_buffer_free(&tag3);
    /* The token handle reads ARC tokens too. */
    pt_token *tok = NULL;
    OK(pt_token_from_bytes(t1.data, t1.len, &tok));
    uint16_t type = 0;
    OK(pt_token_type(tok, &type));
    CHECK(type == PT_TOKEN_TYPE_ARC);
    pt_buffer x, d;
    OK(pt_token_key_id(tok, &x));
    CHECK(buf_eq(&x, kid.data, kid.len));
    pt_buffer_free(&x);
    OK(pt_token_challenge_digest(tok, &x));
    OK(pt_challenge_digest(c, &d));
    CHECK(buf_eq(&x, d.data, d.len));
    pt_buffer_free(&x);
    pt_buffer_free(&d);
    EXPECT(pt_token_nonce(tok, &x), PT_ABSENT);
    pt_token_free(tok);

    /* Bad input on the issuer side. */
    pt_buffer tag;
    t1.data[t1.len - 1] ^= 1;
    EXPECT(pt_arc_issuer_verify(issuer, t1.data, t1.len, c, 0, &tag), PT_INVALID_PROOF);
    CHECK(tag.data == NULL);
    /* A higher limit than the one presented for: another context, the proof fails. */
    EXPECT(pt_arc_issuer_verify(issuer, t2.data, t2.len, c, 4, &tag), PT_INVALID_PROOF);
    pt_challenge *other = NULL;
    OK(pt_challenge_create(PT_TOKEN_TYPE_ARC, ISSUER, strlen(ISSUER), NULL, 0, "other", 5, NULL, 0,
                           &other));
    EXPECT(pt_arc_issuer_verify(issuer, t2.data, t2.len, other, 3, &tag), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_arc_issuer_verify(issuer, t2.data, t2.len, other, 0, &tag), PT_MISSING_KEY);
    pt_challenge_free(other);
    EXPECT(pt_arc_issuer_verify(issuer, t2.data, 10, c, 0, &tag), PT_INVALID_LENGTH);
    EXPECT(pt_arc_issuer_verify(issuer, t2.data, t2.len, NULL, 0, &tag), PT_NULL_ARGUMENT);
    pt_buffer none_resp;
    body.data[body.len - 1] ^= 1;
    EXPECT(pt_arc_issuer_issue(issuer, body.data, body.len, &none_resp, &rct), PT_INVALID_PROOF);
    CHECK(none_resp.data == NULL && rct == NULL);
    EXPECT(pt_arc_issuer_issue(issuer, body.data, 5, &none_resp, &rct), PT_INVALID_LENGTH);
    EXPECT(pt_arc_issuer_issue(NULL, body.data, body.len, &none_resp, &rct), PT_NULL_ARGUMENT);

    pt_buffer_free(&t1);
    pt_buffer_free(&t2);
    pt_buffer_free(&t3);
    pt_buffer_free(&tag1);
    pt_buffer_free(&tag2);
    pt_buffer_free(&body);
    pt_buffer_free(&resp);
    pt_credential_request_state_free(st);
    pt_credential_free(cred);
    pt_challenge_free(c);
    pt_buffer_free(&kid);
    pt_buffer_free(&key);
    pt_arc_issuer_free(issuer);
    pt_arc_issuer_free(again);
}

static void arc_bad_input(void) {
    pt_arc_issuer *issuer = NULL;
    OK(pt_arc_issuer_generate(&issuer));
    pt_buffer key;
    OK(pt_arc_issuer_token_key(issuer, &key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_ARC, NULL);
    pt_buffer body;
    const char *ct;
    pt_credential_request_state *st;
    EXPECT(pt_create_credential_request(c, NULL, 0, &body, &ct, &st), PT_MISSING_KEY);
    EXPECT(pt_create_credential_request(c, key.data, 3, &body, &ct, &st), PT_INVALID_LENGTH);
    pt_challenge *t1 = challenge_for(PT_TOKEN_TYPE_1, &key);
    EXPECT(pt_create_credential_request(t1, NULL, 0, &body, &ct, &st), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_create_credential_request(NULL, NULL, 0, &body, &ct, &st), PT_NULL_ARGUMENT);
    OK(pt_create_credential_request(c, key.data, key.len, &body, &ct, &st));
    pt_buffer resp;
    const char *rct;
    OK(pt_arc_issuer_issue(issuer, body.data, body.len, &resp, &rct));
    /* Tampered response: decodes, the proof fails, the state is consumed. */
    resp.data[resp.len - 1] ^= 1;
    pt_credential *cred = NULL;
    EXPECT(pt_credential_request_state_finalize(st, resp.data, resp.len, &cred), PT_INVALID_PROOF);
    CHECK(cred == NULL);
    /* Credentials: bad bytes. */
    EXPECT(pt_credential_from_bytes((const uint8_t *)"\x01\x02", 2, &cred), PT_UNSUPPORTED_VALUE);
    EXPECT(pt_credential_from_bytes((const uint8_t *)"", 0, &cred), PT_INVALID_LENGTH);
    EXPECT(pt_credential_from_bytes(NULL, 2, &cred), PT_NULL_ARGUMENT);
    pt_buffer token;
    EXPECT(pt_credential_present(NULL, c, NULL, 0, 0, &token), PT_NULL_ARGUMENT);
    CHECK(token.data == NULL);
    uint32_t left;
    EXPECT(pt_credential_remaining(NULL, c, NULL, 0, 0, &left), PT_NULL_ARGUMENT);
    pt_buffer b;
    EXPECT(pt_credential_to_bytes(NULL, &b), PT_NULL_ARGUMENT);
    pt_arc_issuer *bad_issuer = (pt_arc_issuer *)1;
    EXPECT(pt_arc_issuer_from_secret_key((const uint8_t *)"\x01", 1, &bad_issuer),
           PT_INVALID_LENGTH);
    CHECK(bad_issuer == NULL);
    EXPECT(pt_arc_issuer_generate(NULL), PT_NULL_ARGUMENT);
    pt_buffer_free(&resp);
    pt_buffer_free(&body);
    pt_credential_request_state_free(st);
    pt_challenge_free(t1);
    pt_challenge_free(c);
    pt_buffer_free(&key);
    pt_arc_issuer_free(issuer);
}



/* Review BND-14: the issuer directory (RFC 9578 §4), its key used instead of the origin's. */
static void issuer_directory(void) {
    pt_privacy_pass_issuer *issuer = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &issuer));
    pt_buffer key, b64;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    OK(pt_base64url_encode(key.data, key.len, &b64));
    char json[1024];
    int n = snprintf(json, sizeof json,
                     "{\"issuer-request-uri\": \"https://issuer.example/token-request\",\n"
                     " \"token-keys\": [{\"token-type\": 2, \"token-key\": \"AAAA\"},\n"
                     "   {\"token-type\": 1, \"token-key\": \"%s\", \"not-before\": 2000000000},\n"
                     "   {\"token-type\": 1, \"token-key\": \"%s\"}], \"extra\": [1]}",
                     (const char *)b64.data, (const char *)b64.data);
    CHECK(n > 0 && (size_t)n < sizeof json);
    pt_issuer_directory *dir = NULL;
    OK(pt_parse_issuer_directory(json, (size_t)n, &dir));
    pt_buffer uri, k;
    OK(pt_issuer_directory_request_uri(dir, &uri));
    CHECK(buf_is(&uri, "https://issuer.example/token-request"));
    size_t count = 0;
    OK(pt_issuer_directory_key_count(dir, &count));
    CHECK(count == 3);
    uint16_t type = 0;
    OK(pt_issuer_directory_key(dir, 0, &type, &k));
    CHECK(type == 2 && buf_eq(&k, "\x00\x00\x00", 3));
    pt_buffer_free(&k);
    uint64_t nb = 0;
    OK(pt_issuer_directory_key_not_before(dir, 1, &nb));
    CHECK(nb == 2000000000u);
    EXPECT(pt_issuer_directory_key_not_before(dir, 2, &nb), PT_ABSENT);
    EXPECT(pt_issuer_directory_key(dir, 3, &type, &k), PT_INVALID_ARGUMENT);
    CHECK(k.data == NULL);
    /* The first type 1 key valid at `now`: entry 2 now, entry 1 after its not-before. */
    OK(pt_issuer_directory_find_key(dir, PT_TOKEN_TYPE_1, 1700000000u, &k));
    CHECK(buf_eq(&k, key.data, key.len));
    pt_buffer none;
    EXPECT(pt_issuer_directory_find_key(dir, PT_TOKEN_TYPE_5, 1700000000u, &none), PT_ABSENT);
    CHECK(none.data == NULL);

    /* The directory's key for a challenge whose token-key is another issuer's: the request is
     * made under the directory's key (and the issuer answers it). */
    pt_privacy_pass_issuer *other = NULL;
    pt_buffer other_key, body, resp;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &other));
    OK(pt_privacy_pass_issuer_token_key(other, &other_key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, &other_key);
    const char *ct = NULL, *rct = NULL;
    pt_token_request_state *st = NULL;
    OK(pt_create_token_request(c, k.data, k.len, 0, &body, &ct, &st));
    OK(pt_privacy_pass_issuer_issue(issuer, body.data, body.len, ct, strlen(ct), &resp, &rct));
    pt_buffer_list tokens;
    OK(pt_token_request_state_finalize(st, resp.data, resp.len, &tokens));
    CHECK(tokens.count == 1);

    /* Not a directory. */
    pt_issuer_directory *bad = NULL;
    EXPECT(pt_parse_issuer_directory("[]", 2, &bad), PT_INVALID_ENCODING);
    EXPECT(pt_parse_issuer_directory("{\"issuer-request-uri\": \"x\"}", 27, &bad),
           PT_INVALID_ENCODING);
    const char *bad_key = "{\"issuer-request-uri\": \"x\", \"token-keys\": "
                          "[{\"token-type\": 1, \"token-key\": \"***\"}]}";
    EXPECT(pt_parse_issuer_directory(bad_key, strlen(bad_key), &bad), PT_INVALID_ENCODING);
    const char *bad_type = "{\"issuer-request-uri\": \"x\", \"token-keys\": "
                           "[{\"token-type\": 70000, \"token-key\": \"AAAA\"}]}";
    EXPECT(pt_parse_issuer_directory(bad_type, strlen(bad_type), &bad), PT_INVALID_ENCODING);
    EXPECT(pt_parse_issuer_directory(NULL, 3, &bad), PT_NULL_ARGUMENT);
    CHECK(bad == NULL);

    pt_buffer_list_free(&tokens);
    pt_buffer_free(&resp);
    pt_buffer_free(&body);
    pt_token_request_state_free(st);
    pt_challenge_free(c);
    pt_buffer_free(&other_key);
    pt_privacy_pass_issuer_free(other);
    pt_buffer_free(&k);
    pt_buffer_free(&uri);
    pt_issuer_directory_free(dir);
    pt_buffer_free(&b64);
    pt_buffer_free(&key);
    pt_privacy_pass_issuer_free(issuer);
}

/* Review BND-8, BND-9, BND-10: the output and handle conventions under misuse. */
static void misuse(void) {
    pt_privacy_pass_issuer *issuer = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &issuer));
    pt_buffer key;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, &key);

    /* BND-8: every non-NULL output is reset, even after the NULL one, so garbage in an
     * uninitialized output is never left for the caller to free. */
    pt_token_request_state *st = (pt_token_request_state *)(uintptr_t)1;
    pt_buffer body = {(uint8_t *)(uintptr_t)1, 5};
    EXPECT(pt_create_token_request(c, NULL, 0, 0, &body, NULL, &st), PT_NULL_ARGUMENT);
    CHECK(st == NULL && body.data == NULL && body.len == 0);
    uint16_t type = 7;
    bool consumed = true;
    EXPECT(pt_token_request_state_info(NULL, NULL, &type, &consumed), PT_NULL_ARGUMENT);
    CHECK(type == 0 && !consumed);
    uint16_t max = 9;
    EXPECT(pt_privacy_pass_issuer_info(issuer, NULL, &max), PT_NULL_ARGUMENT);
    CHECK(max == 0);

    /* BND-10: the same pointer for two outputs is refused (two `&mut` to one place, and the
     * private key overwritten and never wiped otherwise). */
    pt_buffer b = {0}, b2 = {0};
    EXPECT(pt_trust_token_generate_key(PT_METHOD_PST_V1_VOPRF, 1, &b, &b), PT_INVALID_ARGUMENT);
    CHECK(b.data == NULL && b.len == 0);
    uint16_t both = 5;
    EXPECT(pt_privacy_pass_issuer_info(issuer, &both, &both), PT_INVALID_ARGUMENT);
    /* pt_buffer_copy onto its own bytes, and `written` pointing at the buffer's own length. */
    OK(pt_base64url_encode((const uint8_t *)"abcdef", 6, &b));
    size_t w = 0;
    OK(pt_buffer_copy(&b, b.data, b.len, &w));
    CHECK(w == 8 && buf_is(&b, "YWJjZGVm"));
    uint8_t out[16];
    OK(pt_buffer_copy(&b, out, sizeof out, &b.len));
    CHECK(b.len == 8 && memcmp(out, "YWJjZGVm", 8) == 0);
    pt_buffer_free(&b);
    pt_buffer_free(&b2);

    /* BND-9: a handle of another type is PT_INVALID_ARGUMENT, never used as that type; its
     * _free is ignored (the handle stays valid). */
    pt_buffer_list tokens;
    EXPECT(pt_token_request_state_finalize((pt_token_request_state *)(void *)c, key.data, key.len,
                                           &tokens),
           PT_INVALID_ARGUMENT);
    CHECK(tokens.items == NULL);
    EXPECT(pt_token_type((const pt_token *)(const void *)c, &type), PT_INVALID_ARGUMENT);
    EXPECT(pt_privacy_pass_issuer_set_max_batch((pt_privacy_pass_issuer *)(void *)c, 4),
           PT_INVALID_ARGUMENT);
    EXPECT(pt_challenge_token_type((const pt_challenge *)(const void *)issuer, &type),
           PT_INVALID_ARGUMENT);
    pt_token_free((pt_token *)(void *)c);
    pt_privacy_pass_issuer_free((pt_privacy_pass_issuer *)(void *)c);
    OK(pt_challenge_token_type(c, &type));
    CHECK(type == PT_TOKEN_TYPE_1);

    pt_challenge_free(c);
    pt_buffer_free(&key);
    pt_privacy_pass_issuer_free(issuer);
}

/* Review BND-3: NULL with a non-zero length is PT_NULL_ARGUMENT on every optional input too
 * (never "none"), and the origin's challenge check is never skipped by a NULL. */
static void optional_inputs_null_with_length(void) {
    pt_privacy_pass_issuer *issuer = NULL;
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &issuer));
    pt_buffer key, body, resp, chal;
    OK(pt_privacy_pass_issuer_token_key(issuer, &key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, &key);
    const char *ct = NULL, *rct = NULL;
    pt_token_request_state *st = NULL;
    /* The origin's key stays in the challenge; a NULL directory key with a length is an error,
     * not a silent fall-back to it. */
    EXPECT(pt_create_token_request(c, NULL, key.len, 0, &body, &ct, &st), PT_NULL_ARGUMENT);
    CHECK(body.data == NULL && st == NULL && ct == NULL);
    pt_token_request_state_free(st);
    pt_buffer_free(&body);
    OK(pt_create_token_request(c, NULL, 0, 0, &body, &ct, &st));
    EXPECT(pt_privacy_pass_issuer_issue(issuer, body.data, body.len, NULL, 5, &resp, &rct),
           PT_NULL_ARGUMENT);
    OK(pt_privacy_pass_issuer_issue(issuer, body.data, body.len, NULL, 0, &resp, &rct));
    pt_buffer_list tokens;
    OK(pt_token_request_state_finalize(st, resp.data, resp.len, &tokens));
    OK(pt_challenge_to_bytes(c, &chal));
    const pt_buffer *tb = &tokens.items[0];
    bool valid = true;
    pt_buffer nonce;
    /* A NULL challenge, with or without a length, is an error: the check is never skipped. */
    EXPECT(pt_privacy_pass_issuer_verify_token(issuer, tb->data, tb->len, NULL, 32, &valid,
                                               &nonce),
           PT_NULL_ARGUMENT);
    CHECK(!valid && nonce.data == NULL);
    valid = true;
    EXPECT(pt_privacy_pass_issuer_verify_token(issuer, tb->data, tb->len, NULL, 0, &valid, &nonce),
           PT_NULL_ARGUMENT);
    CHECK(!valid && nonce.data == NULL);
    OK(pt_privacy_pass_issuer_verify_token(issuer, tb->data, tb->len, chal.data, chal.len, &valid,
                                           &nonce));
    CHECK(valid && nonce.len == 32);
    pt_buffer_free(&nonce);

    /* ARC: the token key of the credential request and the presentation. */
    pt_arc_issuer *ai = NULL;
    OK(pt_arc_issuer_generate(&ai));
    pt_buffer akey, abody, tok;
    OK(pt_arc_issuer_token_key(ai, &akey));
    pt_challenge *ac = challenge_for(PT_TOKEN_TYPE_ARC, &akey);
    OK(pt_challenge_set_rate_limit(ac, 3));
    pt_credential_request_state *ast = NULL;
    EXPECT(pt_create_credential_request(ac, NULL, akey.len, &abody, &ct, &ast), PT_NULL_ARGUMENT);
    CHECK(abody.data == NULL && ast == NULL);
    pt_credential *cred = NULL;
    OK(arc_credential(ai, ac, &cred));
    EXPECT(pt_credential_present(cred, ac, NULL, akey.len, 0, &tok), PT_NULL_ARGUMENT);
    CHECK(tok.data == NULL);
    uint32_t left = 9;
    EXPECT(pt_credential_remaining(cred, ac, NULL, akey.len, 0, &left), PT_NULL_ARGUMENT);
    CHECK(left == 0);
    /* Last: before the fix this cleared the key. */
    EXPECT(pt_challenge_set_token_key(c, NULL, 5), PT_NULL_ARGUMENT);

    pt_buffer_free(&tok);
    pt_credential_free(cred);
    pt_credential_request_state_free(ast);
    pt_buffer_free(&abody);
    pt_buffer_free(&akey);
    pt_challenge_free(ac);
    pt_arc_issuer_free(ai);
    pt_buffer_list_free(&tokens);
    pt_buffer_free(&chal);
    pt_buffer_free(&resp);
    pt_buffer_free(&body);
    pt_buffer_free(&key);
    pt_token_request_state_free(st);
    pt_challenge_free(c);
    pt_privacy_pass_issuer_free(issuer);
}


#ifdef PT_CONTROL_LEAK
static void control_leak(void) {
    pt_buffer b;
    OK(pt_base64url_encode((const uint8_t *)"leak", 4, &b)); /* never freed */
}
#endif

int main(void) {
    RUN(status_names);
    RUN(versions);
    RUN(buffers);
    RUN(base64url);
    RUN(challenges);
    RUN(challenge_bad_input);
    RUN(authorization);
    RUN(privacy_pass_type1);
    RUN(privacy_pass_type5);
    RUN(privacy_pass_issuer_keys);
    RUN(privacy_pass_bad_input);
    RUN(privacy_pass_type1_bad_responses);
    RUN(privacy_pass_type5_bad_responses);
    RUN(arc_round_trip);
    RUN(arc_bad_input);
    RUN(optional_inputs_null_with_length);
    RUN(misuse);
    RUN(issuer_directory);
#ifdef PT_CONTROL_LEAK
    RUN(control_leak);
#endif
    return SUMMARY();
}
