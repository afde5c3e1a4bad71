#!/usr/bin/env bash
# Secrets checked by valgrind (tests/ct_valgrind.rs, built with the test hook feature
# `ct-validation`): the secret-dependent operations of every protocol and suite run on secrets
# marked undefined with memcheck client requests, and the library marks defined what the
# protocol publishes (src/group/validation.rs); any branch or memory index on a secret is a
# memcheck error (`valgrind --error-exitcode=1`). The only accepted jumps are the ones
# scripts/ct-valgrind.supp names (each with its reason). Then the control: a planted branch
# and table index on a secret and a variable-time multiplication by a secret scalar, which must
# be detected. Installs valgrind when it is missing. Prints
# `ct-valgrind: <N> operations, <E> errors` and `ct-valgrind control: <n> errors (detected)`;
# exits 0 only when E = 0 and the control is detected. About 40 s after the test build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

if ! command -v valgrind >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq valgrind
fi

bin=$(cargo test --release --features ct-validation --test ct_valgrind --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "ct_valgrind":
        print(m["executable"])' | tail -1)
[ -x "$bin" ] || { echo "ct-valgrind: no test binary"; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
valgrind -q --error-exitcode=1 --num-callers=30 --suppressions=scripts/ct-valgrind.supp \
  "$bin" --exact ct_valgrind --test-threads 1 --nocapture >"$log" 2>&1 || status=$?
grep -E "^ct-valgrind op .*: [1-9][0-9]* errors" "$log" || true
summary=$(grep -E "^ct-valgrind: [0-9]+ operations, [0-9]+ errors" "$log" || true)
if [ -z "$summary" ]; then
  tail -n 40 "$log"
  echo "ct-valgrind: the run did not finish"
  exit 1
fi
grep -E "^ct-valgrind backend:" "$log" || true
echo "$summary"
errors=$(echo "$summary" | sed -E 's/.* ([0-9]+) errors.*/\1/')
# A run the test found outside valgrind, or built without the client requests, checked nothing.
case "$summary" in
  *"("*)
    echo "ct-valgrind: the client requests were not live (the line above says why)"
    status=1
    ;;
esac
if [ "$errors" -ne 0 ] || [ "$status" -ne 0 ]; then
  # The first reports, with their stacks.
  grep -E -A12 "== (Conditional jump|Use of uninitialised|Syscall param|Invalid)" "$log" | head -n 80
  status=1
fi

# The control must be detected (no --error-exitcode here: errors are expected).
CT_VALGRIND_CONTROL=1 valgrind -q --num-callers=30 --suppressions=scripts/ct-valgrind.supp \
  "$bin" --exact ct_valgrind --test-threads 1 --nocapture >"$log" 2>&1 || true
control=$(sed -n -E 's/^ct-valgrind: [0-9]+ operations, ([0-9]+) errors.*/\1/p' "$log")
missed=$(grep -E "^ct-valgrind op control/.*: 0 errors" "$log" || true)
if [ -n "$control" ] && [ "$control" -gt 0 ] && [ -z "$missed" ]; then
  echo "ct-valgrind control: $control errors (detected)"
else
  echo "ct-valgrind control: ${control:-no} errors (NOT detected)"
  [ -z "$missed" ] || echo "$missed"
  status=1
fi
echo "ct-valgrind: $(( $(date +%s) - start )) s under valgrind"
exit "$status"
