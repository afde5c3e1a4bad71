/* README.md's two C examples, compiled and run: test.sh copies its first ```c block (the client,
 * get_token) to readme_client.inc and its second (the issuer lines) to readme_issuer.inc in
 * the build folder. http_post is an issuer in this process, so a token obtained by get_token
 * is verified by the issuer that signed it. */
#include <stdint.h>

#include "harness.h"
#include "readme_client.inc"

static pt_privacy_pass_issuer *the_issuer;
static int posts, fail_posts;

int http_post(const char *path, const char *content_type, const uint8_t *body, size_t len,
              pt_buffer *response) {
    posts++;
    const char *response_type;
    if (fail_posts || strcmp(path, "/token-request") != 0) return -1;
    pt_status s = pt_privacy_pass_issuer_issue(the_issuer, body, len, content_type,
                                               strlen(content_type), response, &response_type);
    return s == PT_OK ? 0 : -1;
}

void free_response(pt_buffer *response) { pt_buffer_free(response); }

/* The README's issuer lines as a function body; its `s` is the status of the issue call. */
static pt_status issuer_example(const uint8_t *secret_key, size_t secret_key_len,
                                const uint8_t *request, size_t request_len,
                                const char *content_type) {
#include "readme_issuer.inc"
    return s;
}

/* A 0x0001 challenge of the_issuer's key as a WWW-Authenticate value. */
static pt_buffer www_authenticate(void) {
    pt_buffer key, header = {0};
    OK(pt_privacy_pass_issuer_token_key(the_issuer, &key));
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, &key);
    OK(pt_challenge_to_header(c, &header));
    pt_challenge_free(c);
    pt_buffer_free(&key);
    return header;
}

static void readme_client_gets_a_valid_token(void) {
    pt_buffer header = www_authenticate(), auth = {0}, token = {0};
    posts = 0;
    CHECK(get_token((const char *)header.data, &auth) == 0);
    CHECK(posts == 1);
    OK(pt_parse_authorization((const char *)auth.data, auth.len, &token));
    /* The origin checks the token against the challenge it sent (the same bytes). */
    pt_challenge *c = challenge_for(PT_TOKEN_TYPE_1, NULL);
    pt_buffer chal, nonce;
    OK(pt_challenge_to_bytes(c, &chal));
    bool valid = false;
    OK(pt_privacy_pass_issuer_verify_token(the_issuer, token.data, token.len, chal.data, chal.len,
                                           &valid, &nonce));
    CHECK(valid && nonce.len == 32);
    pt_buffer_free(&nonce);
    pt_buffer_free(&chal);
    pt_challenge_free(c);
    pt_buffer_free(&token);
    pt_buffer_free(&auth);
    pt_buffer_free(&header);
}

static void readme_client_fails_cleanly(void) {
    pt_buffer header = www_authenticate(), auth = {0};
    /* the issuer unreachable */
    fail_posts = 1;
    CHECK(get_token((const char *)header.data, &auth) == -1);
    CHECK(auth.data == NULL);
    fail_posts = 0;
    /* no 0x0001 challenge in the header: PT_ABSENT, no request sent */
    posts = 0;
    CHECK(get_token("Basic realm=\"x\"", &auth) == -1);
    CHECK(posts == 0 && auth.data == NULL);
    pt_buffer_free(&header);
}

static void readme_issuer_issues(void) {
    pt_buffer header = www_authenticate(), body;
    pt_challenge_list *list = NULL;
    pt_challenge *c = NULL;
    pt_token_request_state *st = NULL;
    const char *ct = NULL;
    OK(pt_parse_challenges((const char *)header.data, header.len, &list));
    OK(pt_challenge_list_find(list, PT_TOKEN_TYPE_1, &c));
    OK(pt_create_token_request(c, NULL, 0, 0, &body, &ct, &st));
    pt_buffer sk;
    OK(pt_privacy_pass_issuer_secret_key(the_issuer, &sk));
    OK(issuer_example(sk.data, sk.len, body.data, body.len, ct));
    EXPECT(issuer_example(sk.data, sk.len, body.data, body.len - 1, ct), PT_INVALID_LENGTH);
    EXPECT(issuer_example(sk.data, sk.len - 1, body.data, body.len, ct), PT_INVALID_LENGTH);
    pt_buffer_free(&sk);
    pt_buffer_free(&body);
    pt_token_request_state_free(st);
    pt_challenge_free(c);
    pt_challenge_list_free(list);
    pt_buffer_free(&header);
}

int main(void) {
    OK(pt_privacy_pass_issuer_generate(PT_TOKEN_TYPE_1, &the_issuer));
    RUN(readme_client_gets_a_valid_token);
    RUN(readme_client_fails_cleanly);
    RUN(readme_issuer_issues);
    pt_privacy_pass_issuer_free(the_issuer);
    return SUMMARY();
}
