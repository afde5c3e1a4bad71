#!/usr/bin/env bash
# cargo-mutants over the files of .cargo/mutants.toml (the group layer, src/dleq.rs,
# src/dleqor.rs, the decoders, the VOPRF code). Installs cargo-mutants (and cargo-nextest, its
# test tool here) when missing. A full run is about 2,700 mutants at 5-40 s each on two cores,
# longer than a session, so runs accumulate: mutants/ledger.tsv (in the repository) keeps every
# mutant's last outcome with the commit it was tested at, and each run skips the mutants the
# ledger has as caught or unviable under the same name (file:line:col and the mutation, so a
# mutant whose code moved is tested again). Prints the summary line
#   mutants: <tested> tested, <caught> caught, <missed> missed, <unviable> unviable, <timeouts> timeouts
# over the mutants that exist today, then `mutants: <n> not yet tested` when the ledger is
# incomplete, and each missed mutant, with its argument where mutants/equivalent.tsv gives one
# (a mutant that cannot change behaviour: name, a tab, the reason).
# Two tiers: each mutant is first tested against the library's unit tests alone
# (.cargo/mutants-lib.toml: one build of the crate, about 10 s a mutant), and only a mutant that
# tier does not catch is tested against the whole set of suites (.cargo/mutants.toml, about a
# minute a mutant). A mutant caught by the first tier is caught; a miss counts only from the
# second. Two middle tiers, run by hand, make the whole set's queue shorter: TIER=pp tests the
# Privacy Pass files' waiting mutants against the unit tests and the Privacy Pass suites alone
# (.cargo/mutants-pp.toml), TIER=groups the other group files' (ristretto255, decaf448, P-521)
# against the suites of those groups (.cargo/mutants-groups.toml); each builds a few test
# binaries instead of seventeen (5 s against 27 s a mutant here). Their suites are part of the
# whole set, so a mutant they catch is caught; a mutant they miss still waits for the whole set.
# The stale-stack scans (tests/stack_wipe.rs) need a build without debug assertions, so the
# whole set ignores them; TIER=stack (.cargo/mutants-stack.toml, the `mutants-stack` profile)
# runs them alone against mutants named with RETEST=1 and --re (a stack wipe's mutants).
# The valgrind client requests (src/group/validation.rs) change nothing outside valgrind, so
# every tier here misses their mutants: scripts/mutants-valgrind.sh tests them against
# scripts/ct-valgrind.sh and merges its outcomes into the same ledger.
# Before each tier the unmutated tree runs that tier's tests (a red baseline stops the
# run: a test that fails without a mutant would "catch" every mutant).
# Usage: bash scripts/mutants.sh [--file GLOB]... [other cargo-mutants options]
#        bash scripts/mutants.sh --summary      (the ledger's summary, no run)
#        bash scripts/mutants.sh --merge        (merge an interrupted run's outcomes, then summary)
#        bash scripts/mutants.sh --survivors    (docs/mutants-survivors.md: the summary and every survivor with its argument)
# Env: JOBS (default 1) mutants at once; FRESH=1 ignores the ledger's caught entries;
#      TIER=lib, TIER=pp, TIER=groups, TIER=stack or TIER=full runs one tier only (default: lib, then full); LIB_RETRY=1 lets the unit-test
#      tier test again the mutants it missed before (after new unit tests); RETEST=1 skips
#      nothing, for naming the mutants to test again with --re.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

files=(src/group.rs 'src/group/**/*.rs' src/dleq.rs src/dleqor.rs src/codec.rs src/wire.rs
  src/voprf.rs 'src/voprf/**/*.rs')
all=()
for g in "${files[@]}"; do all+=(--file "$g"); done

if ! cargo mutants --version >/dev/null 2>&1; then
  cargo install cargo-mutants --locked
fi
ledger=mutants/ledger.tsv
mkdir -p mutants
touch "$ledger"
list=target/mutants.list
mkdir -p target
# The summary covers the files above and any other --file given (e.g. src/blind_rsa/num.rs).
extra=()
prev=
for a in "$@"; do
  case $prev in --file | -f) extra+=(--file "$a") ;; esac
  prev=$a
done
cargo mutants --list "${all[@]}" "${extra[@]}" >"$list"

# summary [MARKDOWN]: the summary; with a path, also that page of every survivor and its argument.
summary() {
  python3 - "$ledger" "$list" mutants/equivalent.tsv "${1:-}" <<'PY'
import os, sys
ledger, listing, argued_path, md_path = sys.argv[1:5]
argued = {}
if os.path.exists(argued_path):
    for l in open(argued_path):
        if l.strip() and not l.startswith("#"):
            name, _, why = l.rstrip("\n").partition("\t")
            argued[name] = why
now = [l.rstrip("\n") for l in open(listing) if l.strip()]
rows = {}
for l in open(ledger):
    parts = l.rstrip("\n").split("\t")
    if len(parts) >= 2:
        rows[parts[0]] = parts[1]
# "lib-missed", "pp-missed", "groups-missed": the unit tests (or a middle tier's suites) alone
# did not catch it; the whole set has not run.
waiting = sum(1 for n in now if rows.get(n, "").endswith("-missed"))
seen = {n: rows[n] for n in now if n in rows and not rows[n].endswith("-missed")}
c = lambda k: sum(1 for v in seen.values() if v == k)
line = (f"mutants: {len(seen)} tested, {c('caught')} caught, {c('missed')} missed, "
        f"{c('unviable')} unviable, {c('timeout')} timeouts")
print(line)
left = len(now) - len(seen)
if left:
    print(f"mutants: {left} not yet tested (of {len(now)})"
          + (f", {waiting} of them missed by the unit tests and waiting for the whole set"
             if waiting else ""))
survivors = [(n, argued.get(n)) for n in now if seen.get(n) == "missed"]
for n, why in survivors:
    print(f"  missed (equivalent): {n}: {why}" if why else f"  missed: {n}")
unargued = sum(1 for _, why in survivors if why is None)
print(f"mutants: {unargued} missed without an argument (mutants/equivalent.tsv)")
if md_path:
    cell = lambda t: t.replace("|", "\\|")
    out = ["# Mutation testing: the survivors", "",
           "Made by `bash scripts/mutants.sh --survivors` from `mutants/ledger.tsv` and",
           "`mutants/equivalent.tsv`. The summary:", "",
           "    " + line,
           f"    mutants: {unargued} missed without an argument (mutants/equivalent.tsv)", "",
           "Each mutant the test suites miss, and why it cannot change behaviour (or why no test can",
           "see it):", "", "| mutant | argument |", "| --- | --- |"]
    out += [f"| `{cell(n)}` | {cell(why or '(no argument yet)')} |" for n, why in survivors]
    open(md_path, "w").write("\n".join(out) + "\n")
    print(f"wrote {md_path} ({len(survivors)} survivors)")
PY
}

merge() {
  # Merge a run's outcomes into the ledger (a mutant's newest outcome wins), sorted by name.
  # The commit the run's tree was copied from (written when it started).
  python3 - "$ledger" "$out/mutants.out/outcomes.json" "$(cat "$out/commit" 2>/dev/null || echo unknown)" "$(cat "$out/tier" 2>/dev/null || echo full)" <<'PY'
import json, os, sys
ledger, outcomes, commit, tier = sys.argv[1:5]
rows = {}
for l in open(ledger):
    parts = l.rstrip("\n").split("\t")
    if len(parts) == 3:
        rows[parts[0]] = parts
kinds = {"CaughtMutant": "caught", "MissedMutant": "missed", "Unviable": "unviable",
         "Timeout": "timeout"}
if os.path.exists(outcomes):
    for o in json.load(open(outcomes))["outcomes"]:
        m = o["scenario"].get("Mutant") if isinstance(o["scenario"], dict) else None
        k = kinds.get(o.get("summary"))
        # A miss of the unit tests alone waits for the whole set; a hang under them is a
        # timeout as under the whole set.
        if k == "missed" and tier == "stack":
            # The stack tier runs the stale-stack scans alone, by hand, on the whole set's
            # misses: its miss leaves the whole set's outcome as it was.
            continue
        if k == "missed" and tier != "full":
            k = tier + "-missed"
        if m and k:
            rows[m["name"]] = [m["name"], k, commit]
with open(ledger, "w") as f:
    for name in sorted(rows):
        f.write("\t".join(rows[name]) + "\n")
PY
}

out=target/mutants.iter
if [ "${1:-}" = "--merge" ]; then
  merge
  summary
  exit 0
fi
if [ "${1:-}" = "--summary" ]; then
  summary
  exit 0
fi
if [ "${1:-}" = "--survivors" ]; then
  summary docs/mutants-survivors.md
  exit 0
fi
if ! cargo nextest --version >/dev/null 2>&1; then
  cargo install cargo-nextest --locked
fi

# The test-binary arguments of a tier's configuration (its `additional_cargo_args`).
test_args() {
  python3 -c 'import sys, tomllib; print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["additional_cargo_args"]))' "$1"
}

case " $* " in
  *" --file "* | *" -f "*) sel=() ;;
  *) sel=("${all[@]}") ;;
esac

# One tier: the unmutated baseline in this tree (its build is then copied, so each mutant's
# build is incremental), then cargo-mutants over the mutants the ledger does not settle.
tier() {
  # The test timeout (with the baseline skipped cargo-mutants cannot scale it): about ten times
  # the tier's test time on two cores.
  local name=$1 config=$2 timeout=$3
  shift 3
  local args
  mapfile -t args < <(test_args "$config")
  echo "mutants: tier $name: baseline (${args[*]})"
  local cprofile
  cprofile=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["profile"])' "$config")
  if ! cargo nextest run --cargo-profile "$cprofile" --profile mutants "${args[@]}" >"target/mutants.$name.baseline.log" 2>&1; then
    tail -30 "target/mutants.$name.baseline.log"
    echo "mutants: tier $name: the unmutated tree fails its tests (target/mutants.$name.baseline.log); nothing run" >&2
    exit 4
  fi
  rm -rf "$out"
  mkdir -p "$out/mutants.out"
  git rev-parse --short HEAD >"$out/commit" 2>/dev/null || echo unknown >"$out/commit"
  echo "$name" >"$out/tier"
  # The mutants to skip: the unit-test tier skips every mutant the ledger has an outcome for;
  # the whole-set tier skips the caught, unviable and timed-out ones (so it tests the unit
  # tests' misses, and its own earlier misses again).
  if [ "${RETEST:-0}" = 1 ]; then
    # No skip list: the caller names the mutants to test again with --re (after new tests).
    :
  elif [ "$name" = pp ] || [ "$name" = groups ]; then
    # A middle tier tests only the unit tests' misses (a miss there waits for the whole set).
    awk -F'\t' 'NF >= 2 && $2 != "lib-missed" { print $1 }' "$ledger" \
      >"$out/mutants.out/previously_caught.txt"
  elif [ "$name" = lib ] && [ "${LIB_RETRY:-0}" = 1 ]; then
    awk -F'\t' 'NF >= 2 && $2 !~ /-missed$/ { print $1 }' "$ledger" \
      >"$out/mutants.out/previously_caught.txt"
  elif [ "$name" = lib ]; then
    awk -F'\t' 'NF >= 2 { print $1 }' "$ledger" >"$out/mutants.out/previously_caught.txt"
  elif [ "${FRESH:-0}" != 1 ]; then
    # A timeout is final too (the suites hang under it: detected, and a rerun would hang again).
    awk -F'\t' '$2 == "caught" || $2 == "unviable" || $2 == "timeout" { print $1 }' "$ledger" \
      >"$out/mutants.out/previously_caught.txt"
  fi
  local st=0
  cargo mutants --config "$config" --baseline skip --timeout "$timeout" --iterate --jobs "${JOBS:-1}" --output "$out" \
    --no-shuffle "${sel[@]}" "$@" || st=$?
  merge
  status=$st
}

status=0
trap 'merge; summary; exit 130' INT
case "${TIER:-both}" in
  lib) tier lib .cargo/mutants-lib.toml 60 "$@" ;;
  pp)
    sel=(--file src/voprf/privacy_pass.rs --file 'src/voprf/privacy_pass/**/*.rs')
    tier pp .cargo/mutants-pp.toml 120 "$@"
    ;;
  groups)
    sel=(--file src/group/ristretto255.rs --file src/group/decaf448.rs --file src/group/p521.rs)
    tier groups .cargo/mutants-groups.toml 120 "$@"
    ;;
  full) tier full .cargo/mutants.toml 240 "$@" ;;
  stack) tier stack .cargo/mutants-stack.toml 120 "$@" ;;
  *)
    tier lib .cargo/mutants-lib.toml 60 "$@"
    # cargo-mutants exits 0, 2 (missed) or 3 (timeouts) when it ran to the end.
    case $status in 0 | 2 | 3) tier full .cargo/mutants.toml 240 "$@" ;; esac
    ;;
esac
summary
# cargo-mutants exits 2 when mutants were missed, 3 on timeouts: pass that on.
exit "$status"
