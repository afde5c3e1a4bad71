// The header from C++ (cbindgen's cpp_compat: extern "C"): compiled with c++ -std=c++11
// -Wall -Wextra -Werror -pedantic against the static library by test.sh, and run: a base64url
// round trip and a status name. Exit 0 when both hold.
#include <cstring>

#include "privacy_tokens.h"

int main() {
    const uint8_t in[3] = {0xfb, 0xff, 0x00};
    pt_buffer text, bytes;
    if (pt_base64url_encode(in, sizeof in, &text) != PT_OK) return 1;
    pt_status s = pt_base64url_decode(reinterpret_cast<const char *>(text.data), text.len, &bytes);
    bool ok = s == PT_OK && bytes.len == sizeof in && std::memcmp(bytes.data, in, sizeof in) == 0 &&
              std::strcmp(pt_status_name(PT_INVALID_PROOF), "INVALID_PROOF") == 0;
    pt_buffer_free(&bytes);
    pt_buffer_free(&text);
    return ok ? 0 : 1;
}
