#!/usr/bin/env bash
# The valgrind tier of the mutation run (scripts/mutants.sh): mutants of code whose behaviour
# shows only under valgrind, by default src/group/validation.rs (the memcheck client requests,
# which outside valgrind answer their defaults and change nothing), each tested against
# `bash scripts/ct-valgrind.sh`, the check CI runs: a mutant under which it fails (a secret left
# defined, an output left undefined, the control undetected) is caught. The cargo-mutants tiers
# cannot run it (their tests run outside valgrind), so they miss these mutants.
# Each mutant is applied in a scratch worktree at HEAD (target/mutants-valgrind/tree, with its own
# target directory), never in this checkout; a mutant whose test binary does not build is
# unviable. The unmutated tree must pass first. Outcomes merge into mutants/ledger.tsv (a missed
# mutant keeps the status it had: it still waits for, or stands as, the other tiers' verdict).
# Usage: bash scripts/mutants-valgrind.sh [FILE]...   (about 1.5 minutes a mutant)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
root=$PWD
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(src/group/validation.rs)
commit=$(git rev-parse --short HEAD)
base=target/mutants-valgrind
work=$base/tree
mkdir -p "$base"
git worktree remove --force "$work" 2>/dev/null || rm -rf "$work"
git worktree prune
git worktree add -q --detach "$work" HEAD
export CARGO_TARGET_DIR=$root/$base/target
args=()
for f in "${files[@]}"; do args+=(--file "$f"); done
cargo mutants --list --json --diff "${args[@]}" >"$base/list.json"

# The two commands, run in the scratch tree (the loop below runs the same ones per mutant).
export BUILD_CMD="cargo test --release --features ct-validation --test ct_valgrind --no-run"
export CHECK_CMD="timeout 900 bash scripts/ct-valgrind.sh"
build() { (cd "$work" && $BUILD_CMD) >"$base/build.log" 2>&1; }
check() { (cd "$work" && $CHECK_CMD) >"$base/check.log" 2>&1; }
echo "mutants-valgrind: baseline at $commit"
if ! build || ! check; then
  tail -20 "$base/check.log" "$base/build.log"
  echo "mutants-valgrind: the unmutated tree fails scripts/ct-valgrind.sh; nothing run" >&2
  exit 4
fi

python3 - "$root/mutants/ledger.tsv" "$base/list.json" "$commit" "$work" "$root/$base" <<'PY'
import json, os, subprocess, sys
ledger, listing, commit, work, base = sys.argv[1:6]
def load():
    rows = {}
    for l in open(ledger):
        parts = l.rstrip("\n").split("\t")
        if len(parts) == 3:
            rows[parts[0]] = parts
    return rows
def save(row):
    # Read again and change one row: another run may have merged into the ledger meanwhile.
    rows = load()
    rows[row[0]] = row
    with open(ledger + ".tmp", "w") as f:
        for name in sorted(rows):
            f.write("\t".join(rows[name]) + "\n")
    os.replace(ledger + ".tmp", ledger)
rows = load()
def sh(cmd):
    return subprocess.run(["bash", "-c", cmd], cwd=work).returncode
counts = {}
for m in json.load(open(listing)):
    name = m["name"]
    if rows.get(name, [None, ""])[1] in ("caught", "unviable", "timeout"):
        continue
    path = m["file"]
    with open(f"{base}/mutant.diff", "w") as f:
        f.write(m["diff"])
    if sh(f"patch -s -p0 {path} < {base}/mutant.diff") != 0:
        sys.exit(f"mutants-valgrind: the diff of {name} does not apply")
    try:
        build = sh(f"$BUILD_CMD >{base}/build.log 2>&1")
        if build != 0:
            k = "unviable"
        else:
            rc = sh(f"$CHECK_CMD >{base}/check.log 2>&1")
            k = "missed" if rc == 0 else "timeout" if rc == 124 else "caught"
    finally:
        sh(f"git checkout -q -- {path}")
    counts[k] = counts.get(k, 0) + 1
    print(f"{k.upper():9} {name}", flush=True)
    if k != "missed":
        save([name, k, commit])
print("mutants-valgrind: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
PY
git worktree remove --force "$work"
