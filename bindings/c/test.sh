#!/usr/bin/env bash
# The C ABI's checks, in one command (run from anywhere):
#   0. the tools, installed when missing: a C compiler, valgrind, python3 and nm (apt-get),
#      rustfmt and clippy (rustup), cbindgen at the pinned version (cargo install --locked);
#   1. cargo fmt --check, cargo clippy --release --all-targets -- -D warnings, cargo build
#      --release (libprivacy_tokens.a / .so), the shared library's SONAME (readelf), the Rust
#      unit tests (among them src/wipe_tests.rs: freed heap and stale stack scanned for bearer
#      tokens and the per-call generator's output), and their control (built with --features
#      control-no-wipe, both wipe tests must fail, having found what they look for);
#   2. the header regenerated with cbindgen and diffed against include/privacy_tokens.h, the
#      ctypes declarations (python/privacy_tokens.py) regenerated from it and diffed, and
#      tests/header_check.py: every function, constant, type and field documented, every
#      handle's thread safety stated and its _free present, pt_status returns, every function
#      called by a C test, the pt_ prefix, the version functions and macros, the shared
#      library's exports equal to the header's functions (with two controls: a header with one
#      doc comment removed, and one with a thread-safety sentence removed, must each fail);
#   3. each tests/*.c compiled with cc against the header and the static library, run under
#      valgrind --leak-check=full --error-exitcode=1; tests/header_cxx.cpp with c++ (the header
#      as C++11);
#   4. controls: a test program built with a wrong status expectation must fail, and one built
#      with a leaked buffer must fail under valgrind;
#   5. tests/vectors.py: RFC 9497 and BoringSSL Trust Token vectors through the shared library
#      (Python ctypes, through python/privacy_tokens.py), with a control (one altered expected
#      value must fail);
#   6. the Python ctypes smoke test (tests/smoke.py): Privacy Pass 0x0001 tokens (one, and an
#      amortized batch) and an ARC credential's presentations from the issuer server process
#      (server/, built with cargo build --release) over HTTP through the shared library, and an
#      ACT credential from a second server with [act] enabled (issue, spend, a second spend
#      refused with 409, the refund finalized and spent; skipped when the server has no ACT);
#   7. threads: tests/test_threads.c natively (40 rounds) and under helgrind, with a control
#      (the library built with --features control-race must be reported; the normal library
#      is rebuilt after it).
# Ends with "N passed, M failed" (N, M: the tests of every step) and exits 1 if any failed.
# Times on two cores shared with other builds (load about 7; each step prints its own): warm
# 400 s (Rust 72 s with the wipe control's build, valgrind 168 s, threads 124 s of which two
# builds of this crate for the race control); from a fresh clone more (the dependencies are
# built for the release build, clippy and the tests), with the server already built (CI builds
# it first) and cbindgen installed, which takes 206 s once per machine.
#
#   --update-header   rewrite include/privacy_tokens.h and python/privacy_tokens.py instead of
#                     diffing them (then run again)
#   PRIVACY_TOKENS_SERVER_BIN=path   use a prebuilt server binary (no cargo build in server/)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

CBINDGEN_VERSION=0.29.4
target="$here/target"
build="$target/c-tests"
mkdir -p "$build"

passed=0
failed=0
failures=()
pass() { passed=$((passed + 1)); echo "ok - $1"; }
failure() { failed=$((failed + 1)); failures+=("$1"); echo "not ok - $1"; }
# Adds the counts of a program's closing "N passed, M failed" line (its log in $1); a program
# without one counts as one failed test.
add_counts() {
    local line
    line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)"
    if [[ -z "$line" ]]; then
        failure "$2: no summary line"
        return
    fi
    local p f
    p="${line%% passed*}"
    f="${line#*, }"
    f="${f%% failed*}"
    passed=$((passed + p))
    failed=$((failed + f))
    if ((f > 0)); then failures+=("$2: $f failed"); fi
}
finish() {
    if ((${#failures[@]})); then
        printf 'failed: %s\n' "${failures[@]}"
    fi
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit
}

started=$SECONDS
step_start=$SECONDS
# Prints how long the step that just ended took.
timing() {
    echo "# $1: $((SECONDS - step_start)) s"
    step_start=$SECONDS
}

# 0. The tools: installed when missing (as root through apt-get, else a message and a failure).
apt_updated=
need() { # command, Debian package
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "installing $2 (no $1 on PATH)"
    if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
        if [[ -z "$apt_updated" ]]; then
            DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && apt_updated=1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
    fi
    command -v "$1" >/dev/null 2>&1
}
for tool in "cc gcc" "valgrind valgrind" "python3 python3" "nm binutils"; do
    # shellcheck disable=SC2086 # two words: the command and its package
    if ! need $tool; then
        failure "${tool%% *} is missing and could not be installed (${tool#* })"
        finish
    fi
done
for component in rustfmt clippy; do
    if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
        echo "installing the $component component"
        rustup component add "$component" >/dev/null 2>&1 || true
    fi
done
cbindgen="$(command -v cbindgen || true)"
if [[ -z "$cbindgen" || "$("$cbindgen" --version)" != "cbindgen $CBINDGEN_VERSION" ]]; then
    cbindgen="${CARGO_HOME:-$HOME/.cargo}/bin/cbindgen"
    if [[ ! -x "$cbindgen" || "$("$cbindgen" --version)" != "cbindgen $CBINDGEN_VERSION" ]]; then
        echo "installing cbindgen $CBINDGEN_VERSION (cargo install --locked)"
        cargo install cbindgen --version "$CBINDGEN_VERSION" --locked -q
    fi
fi
timing "tools"

# 1. Rust: format, lints, build, unit tests.
if cargo fmt --check >/dev/null 2>&1; then pass "cargo fmt --check"; else failure "cargo fmt --check"; fi
if cargo clippy --release --all-targets -q -- -D warnings >"$build/clippy.log" 2>&1; then
    pass "cargo clippy --release --all-targets -- -D warnings"
else
    cat "$build/clippy.log"
    failure "cargo clippy --release --all-targets -- -D warnings"
fi
lib_a="$target/release/libprivacy_tokens.a"
lib_so="$target/release/libprivacy_tokens.so"
if cargo build --release -q 2>"$build/build.log" && [[ -f "$lib_a" && -f "$lib_so" ]]; then
    pass "cargo build --release (libprivacy_tokens.a, libprivacy_tokens.so)"
else
    cat "$build/build.log"
    failure "cargo build --release"
    finish
fi
# The shared library's SONAME (review BND-6; set by build.rs): an app linked against it
# records libprivacy_tokens.so.0 and refuses a library of another ABI major version.
if soname="$(readelf -d "$lib_so" 2>/dev/null | grep -Eo 'Library soname: \[[^]]*\]')" \
    && [[ "$soname" == "Library soname: [libprivacy_tokens.so.0]" ]]; then
    pass "libprivacy_tokens.so has the SONAME libprivacy_tokens.so.0 (readelf -d)"
else
    failure "libprivacy_tokens.so has no SONAME libprivacy_tokens.so.0 (readelf -d: ${soname:-none})"
fi
if cargo test --release -q --lib >"$build/unit.log" 2>&1; then
    pass "cargo test --release --lib ($(grep -Eo '[0-9]+ passed' "$build/unit.log" | head -n 1))"
else
    cat "$build/unit.log"
    failure "cargo test --release --lib"
fi
# The wipe tests (src/wipe_tests.rs, part of the unit tests above: freed heap and stale stack
# scanned for bearer tokens and the per-call generator's output) must fail with this layer's
# wipes disabled: the control build (feature control-no-wipe) must report both as failed, each
# having found what it looks for.
cargo test --release -q --lib --features control-no-wipe -- bearer_tokens_leave_no_copy \
    randomized_calls_leave_no_generator_output >"$build/wipe_control.log" 2>&1
if grep -q '^test result: FAILED. 0 passed; 2 failed' "$build/wipe_control.log" \
    && grep -q 'freed blocks held the token' "$build/wipe_control.log" \
    && grep -q '^left on the stack:' "$build/wipe_control.log"; then
    pass "control: with the wipes disabled (--features control-no-wipe) both wipe tests find the secrets"
else
    cat "$build/wipe_control.log"
    failure "control: the wipe tests did not find the secrets with the wipes disabled"
fi
timing "Rust"

# 2. The header: regenerate with cbindgen and diff.
header="$here/include/privacy_tokens.h"
if "$cbindgen" --quiet --config cbindgen.toml --crate privacy-tokens-c --output "$build/privacy_tokens.h"; then
    if [[ "${1:-}" == "--update-header" ]]; then
        cp "$build/privacy_tokens.h" "$header"
        echo "include/privacy_tokens.h rewritten"
    fi
    if diff -u "$header" "$build/privacy_tokens.h"; then
        pass "include/privacy_tokens.h is what cbindgen $CBINDGEN_VERSION generates"
    else
        failure "include/privacy_tokens.h differs from cbindgen's output (bash bindings/c/test.sh --update-header)"
    fi
else
    failure "cbindgen"
fi
# The ctypes declarations (python/privacy_tokens.py, review BND-23), generated from the header.
ctypes_py="$here/python/privacy_tokens.py"
if python3 tests/gen_ctypes.py "$header" "$build/privacy_tokens.py" 2>"$build/gen_ctypes.log"; then
    if [[ "${1:-}" == "--update-header" ]]; then
        cp "$build/privacy_tokens.py" "$ctypes_py"
        echo "python/privacy_tokens.py rewritten"
    fi
    if diff -u "$ctypes_py" "$build/privacy_tokens.py"; then
        pass "python/privacy_tokens.py is what tests/gen_ctypes.py generates from the header"
    else
        failure "python/privacy_tokens.py differs from tests/gen_ctypes.py's output (bash bindings/c/test.sh --update-header)"
    fi
else
    cat "$build/gen_ctypes.log"
    failure "tests/gen_ctypes.py"
fi
PRIVACY_TOKENS_LIB="$lib_so" python3 tests/header_check.py "$header" >"$build/header_check.log" 2>&1
cat "$build/header_check.log"
add_counts "$build/header_check.log" "header_check.py"
for c in nodoc nothread; do
    PRIVACY_TOKENS_LIB="$lib_so" python3 tests/header_check.py "$header" --control=$c \
        >"$build/header_check_$c.log" 2>&1
    if grep -Eq '^[0-9]+ passed, 1 failed$' "$build/header_check_$c.log"; then
        pass "control: header_check.py --control=$c fails (1 failed)"
    else
        cat "$build/header_check_$c.log"
        failure "control: header_check.py --control=$c did not fail"
    fi
done
timing "header"

# 3. The C tests, against the header and the static library, under valgrind.
# README.md's first two C blocks (the client example, the issuer lines) for tests/test_readme.c.
awk -v dir="$build" '/^```c$/ { n++; if (n <= 2) { f = dir "/readme_" (n == 1 ? "client" : "issuer") ".inc"; printf "" > f }; next }
    /^```$/ { f = ""; next }
    f != "" { print >> f }' README.md
cflags=(-std=c11 -Wall -Wextra -Werror -pedantic -g -O1 -I"$here/include" -I"$here/tests" -I"$build")
libs=("$lib_a" -lpthread -ldl -lm)
valgrind=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible
    --error-exitcode=1 --track-origins=yes)
for src in tests/*.c; do
    name="$(basename "$src" .c)"
    if ! cc "${cflags[@]}" -o "$build/$name" "$src" "${libs[@]}" 2>"$build/$name.cc.log"; then
        cat "$build/$name.cc.log"
        failure "cc $src"
        continue
    fi
    "${valgrind[@]}" "$build/$name" >"$build/$name.log" 2>&1
    rc=$?
    cat "$build/$name.log"
    add_counts "$build/$name.log" "$name"
    if ((rc == 0)); then
        pass "$name under valgrind (no error, no leak)"
    else
        failure "$name under valgrind (exit $rc)"
    fi
done

# The header from C++ too (C++ issuers).
need c++ g++ || true
if c++ -std=c++11 -Wall -Wextra -Werror -pedantic -I"$here/include" -o "$build/header_cxx" \
    tests/header_cxx.cpp "${libs[@]}" 2>"$build/header_cxx.log" && "$build/header_cxx"; then
    pass "the header compiles and links as C++11 (tests/header_cxx.cpp)"
else
    cat "$build/header_cxx.log"
    failure "the header as C++11 (tests/header_cxx.cpp)"
fi
timing "C tests under valgrind"

# 4. Controls: the harness and valgrind catch what they must.
control() { # name, define, what must happen
    local name="$1" def="$2"
    if ! cc "${cflags[@]}" "-D$def" -o "$build/control_$name" tests/test_api.c "${libs[@]}" 2>"$build/control_$name.cc.log"; then
        cat "$build/control_$name.cc.log"
        failure "control $name: does not compile"
        return 1
    fi
    "${valgrind[@]}" "$build/control_$name" >"$build/control_$name.log" 2>&1
    echo $?
}
rc="$(control wrong_status PT_CONTROL_WRONG_STATUS | tail -n 1)"
if [[ "$rc" == 1 ]] && grep -q '^ok - ' "$build/control_wrong_status.log" \
    && grep -Eq '^[0-9]+ passed, 1 failed$' "$build/control_wrong_status.log"; then
    pass "control: a wrong status expectation fails the run (exit 1, 1 failed)"
else
    cat "$build/control_wrong_status.log"
    failure "control: a wrong status expectation did not fail the run (exit $rc)"
fi
rc="$(control leak PT_CONTROL_LEAK | tail -n 1)"
if [[ "$rc" == 1 ]] && grep -q 'definitely lost' "$build/control_leak.log" \
    && grep -Eq '^[0-9]+ passed, 0 failed$' "$build/control_leak.log"; then
    pass "control: a leaked buffer fails the run under valgrind"
else
    cat "$build/control_leak.log"
    failure "control: a leaked buffer was not caught by valgrind (exit $rc)"
fi

timing "controls"

# 5. Published vectors through the shared library (Python ctypes), and their control.
PRIVACY_TOKENS_LIB="$lib_so" python3 tests/vectors.py >"$build/vectors.log" 2>&1
cat "$build/vectors.log"
add_counts "$build/vectors.log" "vectors.py"
PRIVACY_TOKENS_LIB="$lib_so" PT_VECTORS_CONTROL=1 python3 tests/vectors.py >"$build/vectors_control.log" 2>&1
if grep -Eq '^16 passed, 1 failed$' "$build/vectors_control.log"; then
    pass "control: a wrong expected vector value fails vectors.py (16 passed, 1 failed)"
else
    tail -n 5 "$build/vectors_control.log"
    failure "control: a wrong expected vector value did not fail vectors.py"
fi

timing "vectors.py"

# 6. Python ctypes smoke test against the issuer server process.
server_bin="${PRIVACY_TOKENS_SERVER_BIN:-}"
if [[ -z "$server_bin" ]]; then
    if (cd "$root/server" && cargo build --release --bin privacy-tokens-server >"$build/server-build.log" 2>&1); then
        server_bin="$root/server/target/release/privacy-tokens-server"
    else
        tail -n 30 "$build/server-build.log"
        failure "cargo build --release in server/"
    fi
fi
if [[ -n "$server_bin" ]]; then
    PRIVACY_TOKENS_LIB="$lib_so" PRIVACY_TOKENS_SERVER_BIN="$server_bin" \
        python3 tests/smoke.py >"$build/smoke.log" 2>&1
    rc=$?
    cat "$build/smoke.log"
    add_counts "$build/smoke.log" "smoke.py"
    if ((rc != 0)) && ! grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed$' "$build/smoke.log"; then
        failure "smoke.py exit $rc"
    fi
fi
timing "smoke.py"

# 7. Threads (review BND-21): tests/test_threads.c natively with many rounds, and under
# helgrind (after a warm-up on the main thread, a clean run reports no race), with a control:
# the library built with --features control-race (an unsynchronized counter in
# pt_privacy_pass_issuer_issue) must be reported; the normal library is rebuilt after it.
if cc "${cflags[@]}" -O2 -DROUNDS=40 -o "$build/test_threads_native" tests/test_threads.c "${libs[@]}" \
    2>"$build/test_threads_native.cc.log" && "$build/test_threads_native" >"$build/test_threads_native.log" 2>&1; then
    pass "test_threads natively, 4 threads x 40 rounds"
else
    cat "$build/test_threads_native.cc.log" "$build/test_threads_native.log"
    failure "test_threads natively, 4 threads x 40 rounds"
fi
helgrind=(valgrind -q --tool=helgrind --error-exitcode=1)
if cc "${cflags[@]}" -DROUNDS=1 -o "$build/test_threads_hg" tests/test_threads.c "${libs[@]}" \
    2>"$build/test_threads_hg.cc.log" && "${helgrind[@]}" "$build/test_threads_hg" >"$build/test_threads_hg.log" 2>&1 \
    && ! grep -q 'Possible data race' "$build/test_threads_hg.log"; then
    pass "test_threads under helgrind: no data race"
else
    cat "$build/test_threads_hg.cc.log" "$build/test_threads_hg.log"
    failure "test_threads under helgrind"
fi
race_a="$build/libprivacy_tokens_control_race.a"
if cargo build --release -q --features control-race 2>"$build/control_race_build.log" && cp "$lib_a" "$race_a" \
    && cc "${cflags[@]}" -DROUNDS=1 -o "$build/test_threads_race" tests/test_threads.c "$race_a" -lpthread -ldl -lm \
        2>>"$build/control_race_build.log"; then
    "${helgrind[@]}" "$build/test_threads_race" >"$build/test_threads_race.log" 2>&1
    rc=$?
    if ((rc == 1)) && grep -q 'Possible data race' "$build/test_threads_race.log" \
        && grep -q 'pt_privacy_pass_issuer_issue' "$build/test_threads_race.log"; then
        pass "control: helgrind reports the race of --features control-race in pt_privacy_pass_issuer_issue"
    else
        tail -n 30 "$build/test_threads_race.log"
        failure "control: helgrind did not report the control-race build's data race (exit $rc)"
    fi
else
    cat "$build/control_race_build.log"
    failure "control: the control-race build"
fi
if ! cargo build --release -q 2>"$build/rebuild.log"; then
    cat "$build/rebuild.log"
    failure "cargo build --release (the normal library again, after the control)"
fi
timing "threads"
echo "# total: $((SECONDS - started)) s"

finish
