#!/usr/bin/env bash
# Regenerates BENCHMARKS.md and docs/bench/*.svg from one run of every benchmark.
#
#   bash scripts/benchmarks.sh [--quick] [--no-peers]
#
# For each build -- default (with the `voprf` crate peer, `--features peer-bench`),
# portable arithmetic (`PRIVACY_TOKENS_ARITH=portable`, same binaries) and `--features rayon`
# -- runs `cargo bench` for benches/{voprf,privacy_pass,trust_token,arc}.rs with CRITERION_HOME
# set to target/bench/<build>/criterion, then `cargo run --release --example alloc_counts`
# (target/bench/<build>/allocs.json); then the interop crate's peers bench (BoringSSL, AWS-LC
# and ours, default build) once into target/bench/peers/criterion; then
# scripts/benchmarks.py. `--quick` passes criterion's `--quick` (sampling stops once the
# estimate is stable, a few seconds per id at most); `--no-peers` skips the interop bench (its
# first build compiles BoringSSL and AWS-LC) and reuses target/bench/peers if it exists.
# Set BENCH_LABEL_<BUILD> (e.g. BENCH_LABEL_PORTABLE=portable) to override a build's backend
# label; otherwise it is what `privacy_tokens::group::arithmetic_backend()` returned in it.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
peers=1
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        --no-peers) peers=0 ;;
        *) echo "usage: bash scripts/benchmarks.sh [--quick] [--no-peers]" >&2; exit 2 ;;
    esac
done
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
crit=(--noplot)
if [ "$quick" = 1 ]; then crit+=(--quick); fi
out="$PWD/target/bench"
mkdir -p "$out"

load() { uptime | sed 's/.*load average: //'; }

# meta DIR COMMAND LOAD_BEFORE: what ran, for the report's header.
meta() {
    python3 - "$1" "$2" "$3" "$(load)" "$quick" <<'EOF'
import json, sys, datetime
d, cmd, before, after, quick = sys.argv[1:]
json.dump({"command": cmd, "load_before": before, "load_after": after,
           "quick": quick == "1",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")},
          open(f"{d}/meta.json", "w"), indent=1)
EOF
}

# run BUILD FEATURES [ENV=VALUE...]: every bench of this crate and the allocation counter.
run() {
    local name="$1" features="$2"
    shift 2
    local dir="$out/$name"
    rm -rf "$dir"
    mkdir -p "$dir"
    local before
    before="$(load)"
    local f=()
    if [ -n "$features" ]; then f=(--features "$features"); fi
    for bench in voprf privacy_pass trust_token arc; do
        echo "== $name: cargo bench --bench $bench ${f[*]:-}" >&2
        env "$@" CRITERION_HOME="$dir/criterion" \
            cargo bench --bench "$bench" "${f[@]}" -- "${crit[@]}" >"$dir/$bench.log" 2>&1 ||
            { tail -20 "$dir/$bench.log" >&2; exit 1; }
    done
    env "$@" cargo run --release --quiet --example alloc_counts "${f[@]}" >"$dir/allocs.json"
    local envs="$*"
    meta "$dir" "${envs:+$envs }cargo bench --bench {voprf,privacy_pass,trust_token,arc} ${f[*]:-} -- ${crit[*]}" "$before"
}

run default peer-bench
run portable peer-bench PRIVACY_TOKENS_ARITH=portable
run rayon peer-bench,rayon

if [ "$peers" = 1 ]; then
    rm -rf "$out/peers"
    mkdir -p "$out/peers"
    before="$(load)"
    echo "== peers: cd interop && cargo bench --bench peers" >&2
    (cd interop && CRITERION_HOME="$out/peers/criterion" \
        cargo bench --bench peers -- "${crit[@]}" >"$out/peers/peers.log" 2>&1) ||
        { tail -20 "$out/peers/peers.log" >&2; exit 1; }
    meta "$out/peers" "cd interop && cargo bench --bench peers -- ${crit[*]}" "$before"
fi

note=""
if [ "$quick" = 1 ]; then
    note="**These figures are a quick run** (criterion \`--quick\`) on a shared 2-core VM while \
other engineers' builds ran (the load averages are in the list below): treat them as rough upper \
bounds, and the ratios within one build as more reliable than the absolute times."
fi
python3 scripts/benchmarks.py \
    --build default="$out/default" --build portable="$out/portable" --build rayon="$out/rayon" \
    --peers "$out/peers" --out BENCHMARKS.md --plots docs/bench --readme README.md \
    --note "$note"
