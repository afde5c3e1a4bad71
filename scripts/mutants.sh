#!/usr/bin/env bash
# cargo-mutants over the files of .cargo/mutants.toml (the group layer, src/dleq.rs,
# src/dleqor.rs, the decoders, the VOPRF code), one mutant at a time by default. Installs
# cargo-mutants when it is missing. Prints the summary line
#   mutants: <tested> tested, <caught> caught, <missed> missed, <unviable> unviable, <timeouts> timeouts
# and each missed mutant. Usage: bash scripts/mutants.sh [--file GLOB]... [other cargo-mutants
# options, e.g. --shard 1/8]. JOBS (default 1) runs that many mutants at once. A full run takes
# hours on two cores; the output stays in target/mutants.out (mutants.out/missed.txt,
# outcomes.json).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

if ! cargo mutants --version >/dev/null 2>&1; then
  cargo install cargo-mutants --locked
fi

out=target/mutants.out
mkdir -p "$out"
files=()
case " $* " in
  *" --file "* | *" -f "*) ;;
  *) for g in src/group.rs 'src/group/**/*.rs' src/dleq.rs src/dleqor.rs src/codec.rs src/wire.rs \
       src/voprf.rs 'src/voprf/**/*.rs'; do files+=(--file "$g"); done ;;
esac
status=0
cargo mutants --jobs "${JOBS:-1}" --output "$out" --no-shuffle "${files[@]}" "$@" || status=$?
# cargo-mutants exits 2 when mutants were missed, 3 on timeouts: report, then pass that on.
python3 - "$out/mutants.out/outcomes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = [x for x in d["outcomes"] if x.get("scenario") != "Baseline"]
def count(kind):
    return sum(1 for x in o if x.get("summary") == kind)
print(f'mutants: {len(o)} tested, {count("CaughtMutant")} caught, {count("MissedMutant")} missed, '
      f'{count("Unviable")} unviable, {count("Timeout")} timeouts')
for x in o:
    if x.get("summary") == "MissedMutant":
        m = x["scenario"]["Mutant"]
        print(f'  missed: {m["file"]}:{m["span"]["start"]["line"]}: {m.get("name") or m}')
PY
exit "$status"
