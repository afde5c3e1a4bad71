#!/usr/bin/env bash
# The coverage check of the rare carry paths that production code runs (src/group/carry_paths.rs):
# T5-T7 of the P-384/P-256 products and squaring (specs/arith-review.md section 3), T8/T9 the
# doubling's `2 beta` fold (P-384 carries out of words 0-4, P-256 borrows out of words 1-2 and the
# low word all ones, `2 beta` kept after subtracting p) and T10/T11 the doubling's halving (odd
# with and without a carry) (specs/arith-review-2.md F4/F5). T1-T4, the retired times4/times8
# folds, are gone with their code. Runs `carry_coverage` on the assembly backend (where the CPU
# has BMI2/ADX) and on the portable one, then the controls: with each path's directed inputs
# left out (CARRY_COVERAGE_DROP=T<k>) the check must fail on both backends, which shows that
# random inputs do not take the path and that the check can fail. Prints `carry: T<k> taken on
# <backend>: <events>` per path and backend and last `carry: 7 of 7 paths taken on both
# backends`. About 20 s after the release lib-test build (one minute or two when that is cold).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

bin=$(cargo test --release --lib --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["lib"]:
        print(m["executable"])' | tail -1)
[ -x "$bin" ] || { echo "carry: no lib-test binary"; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
backends=0
paths="5 6 7 8 9 10 11"
for arith in default portable; do
  if [ "$arith" = portable ]; then export PRIVACY_TOKENS_ARITH=portable; else unset PRIVACY_TOKENS_ARITH; fi
  if ! "$bin" --exact group::carry_paths::carry_coverage --nocapture --test-threads 2 >"$log" 2>&1; then
    status=1
  fi
  grep -E "^carry: T[0-9]+ " "$log" || true
  if grep -q "^carry: 7 of 7 paths taken on" "$log"; then
    backends=$((backends + 1))
  fi
  backend=$(sed -n 's/^carry: [0-9]* of 7 paths taken on //p' "$log")
  if [ "$arith" = default ] && [ "$backend" != assembly ]; then
    echo "carry: the assembly backend does not run here (no BMI2/ADX): only the portable one is checked"
    status=1
  fi
  # Controls: each path's directed inputs left out must make the check fail.
  for k in $paths; do
    if CARRY_COVERAGE_DROP="T$k" "$bin" --exact group::carry_paths::carry_coverage --nocapture --test-threads 2 >"$log" 2>&1; then
      echo "carry control: T$k passed without its directed inputs on $backend (the check cannot fail)"
      status=1
    elif ! grep -q "^carry: T$k NOT taken on" "$log"; then
      echo "carry control: T$k failed for another reason on $backend"
      sed -n '1,20p' "$log"
      status=1
    fi
  done
  echo "carry control: each of T5-T11 without its directed inputs fails on $backend"
done
unset PRIVACY_TOKENS_ARITH
# The directed inputs on both backends in one process (the assembly where it runs) and the seeds.
"$bin" --exact group::carry_paths::directed_carry_inputs_on_both_backends \
  group::carry_paths::fuzz_seeds_hold_the_directed_inputs >"$log" 2>&1 || { cat "$log"; status=1; }
if [ "$backends" -eq 2 ] && [ "$status" -eq 0 ]; then
  echo "carry: 7 of 7 paths taken on both backends"
else
  echo "carry: FAILED ($backends of 2 backends with all 7 paths; see above)"
  exit 1
fi
