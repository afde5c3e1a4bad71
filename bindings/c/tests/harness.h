/* A small test harness for the C tests: TEST functions made of CHECK / EXPECT lines; a test
 * passes when all its checks do. Prints "ok - name" or "not ok - name" per test, each failed
 * check with its line, and "N passed, M failed" at the end; the exit code is 1 if any failed. */
#ifndef PT_TEST_HARNESS_H
#define PT_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

#include "privacy_tokens.h"

static int pt_tests_passed, pt_tests_failed, pt_checks_failed_here;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            pt_checks_failed_here++;                                                 \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
        }                                                                            \
    } while (0)

/* A call whose status must be `expected`. */
#define EXPECT(call, expected)                                                       \
    do {                                                                             \
        pt_status s_ = (call);                                                       \
        pt_status e_ = (expected);                                                   \
        if (s_ != e_) {                                                              \
            pt_checks_failed_here++;                                                 \
            fprintf(stderr, "  FAIL %s:%d: %s\n    returned %s, expected %s\n",       \
                    __FILE__, __LINE__, #call, pt_status_name(s_), pt_status_name(e_)); \
        }                                                                            \
    } while (0)

#define OK(call) EXPECT(call, PT_OK)

/* Runs one test function. */
#define RUN(fn)                                                                      \
    do {                                                                             \
        pt_checks_failed_here = 0;                                                   \
        fn();                                                                        \
        if (pt_checks_failed_here == 0) {                                            \
            pt_tests_passed++;                                                       \
            printf("ok - %s\n", #fn);                                                \
        } else {                                                                     \
            pt_tests_failed++;                                                       \
            printf("not ok - %s\n", #fn);                                            \
        }                                                                            \
        fflush(stdout);                                                              \
    } while (0)

#define SUMMARY()                                                                    \
    (printf("%d passed, %d failed\n", pt_tests_passed, pt_tests_failed),             \
     pt_tests_failed ? 1 : 0)

/* A buffer's bytes equal (data, len). */
static inline int buf_eq(const pt_buffer *b, const void *data, size_t len) {
    return b->len == len && (len == 0 || memcmp(b->data, data, len) == 0);
}

/* A buffer's text equals the C string s. */
static inline int buf_is(const pt_buffer *b, const char *s) {
    return buf_eq(b, s, strlen(s)) && b->data[b->len] == 0;
}

/* A buffer list as slices (for feeding a batch back in): at most `max` items. */
static inline size_t as_slices(const pt_buffer_list *l, pt_slice *out, size_t max) {
    size_t n = l->count < max ? l->count : max;
    for (size_t i = 0; i < n; i++) {
        out[i].data = l->items[i].data;
        out[i].len = l->items[i].len;
    }
    return n;
}

static const char ISSUER[] = "issuer.example";
static const char ORIGIN[] = "origin.example";

/* A challenge of `type` from ISSUER for ORIGIN with a 32-byte redemption context; `key` (if
 * not NULL) set as its token-key. */
static inline pt_challenge *challenge_for(uint16_t type, const pt_buffer *key) {
    uint8_t ctx[32];
    memset(ctx, 0x2a, sizeof ctx);
    pt_challenge *c = NULL;
    OK(pt_challenge_create(type, ISSUER, strlen(ISSUER), ctx, sizeof ctx, ORIGIN, strlen(ORIGIN),
                           NULL, 0, &c));
    if (key) OK(pt_challenge_set_token_key(c, key->data, key->len));
    return c;
}

/* An ARC credential for challenge `c` from `issuer` (request, issue, finalize): the first
 * failing status, or PT_OK with `*cred` set. */
static inline pt_status arc_credential(const pt_arc_issuer *issuer, const pt_challenge *c,
                                       pt_credential **cred) {
    pt_buffer body = {NULL, 0}, resp = {NULL, 0};
    const char *ct, *rct;
    pt_credential_request_state *st = NULL;
    pt_status s = pt_create_credential_request(c, NULL, 0, &body, &ct, &st);
    if (s == PT_OK) s = pt_arc_issuer_issue(issuer, body.data, body.len, &resp, &rct);
    if (s == PT_OK) s = pt_credential_request_state_finalize(st, resp.data, resp.len, cred);
    pt_buffer_free(&resp);
    pt_buffer_free(&body);
    pt_credential_request_state_free(st);
    return s;
}

#endif
