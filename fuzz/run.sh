#!/usr/bin/env bash
# Builds every fuzz target once and runs each for SECONDS seconds on a temporary copy of its
# kept corpus (fuzz/corpus/<target>/ is passed read-only, as libFuzzer's second corpus
# directory). Prints one line per target and a total; exits non-zero on any crash or on a
# build failure. Usage: bash fuzz/run.sh SECONDS
set -u
secs="${1:?usage: bash fuzz/run.sh SECONDS}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here" || exit 1
export PATH="$HOME/.cargo/bin:$PATH"
# cargo-fuzz passes nightly-only flags (-Zsanitizer, -Cpasses=sancov-module); stable rustc
# accepts them with RUSTC_BOOTSTRAP=1.
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked || { echo "fuzz: cargo-fuzz install failed"; exit 1; }
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# AddressSanitizer (cargo-fuzz's default) plus debug assertions and overflow checks.
if ! cargo fuzz build --debug-assertions >"$tmp/build.log" 2>&1; then
    tail -n 40 "$tmp/build.log"
    echo "fuzz: build failed"
    exit 1
fi
host="$(rustc -vV | sed -n 's/^host: //p')"
bin="target/$host/release"

targets="$(cargo fuzz list)"
n=0
total=0
for t in $targets; do
    n=$((n + 1))
    work="$tmp/$t"
    mkdir -p "$work/corpus" "$work/artifacts" "corpus/$t"
    "$bin/$t" -max_total_time="$secs" -timeout=60 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/" "$work/corpus" "corpus/$t" >"$work/log" 2>&1
    rc=$?
    execs="$(sed -n 's/^Done \([0-9][0-9]*\) runs.*/\1/p' "$work/log" | tail -n 1)"
    if [ -z "$execs" ]; then
        execs="$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\).*/\1/p' "$work/log" | tail -n 1)"
    fi
    crashes="$(find "$work/artifacts" -type f | wc -l)"
    if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
        crashes=1
    fi
    if [ "$crashes" -ne 0 ]; then
        # Keep the crashing inputs and the log (fuzz/artifacts/ is not committed).
        mkdir -p "artifacts/$t"
        cp "$work/artifacts/"* "artifacts/$t/" 2>/dev/null
        cp "$work/log" "artifacts/$t/run.log"
        grep -m 5 -E "panicked|ERROR|SUMMARY" "$work/log" >&2
    fi
    echo "fuzz $t: ${execs:-0} execs, $crashes crashes"
    total=$((total + crashes))
done
echo "fuzz: $n targets, $total crashes"
[ "$n" -gt 0 ] && [ "$total" -eq 0 ]
