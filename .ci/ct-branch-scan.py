#!/usr/bin/env python3
"""Scans the release lib-test binary for the branch rustc once emitted on a secret borrow.

The P-384 field's final conditional subtraction selects with a mask made from the borrow;
without an optimisation barrier rustc 1.95 turned it into `test $0x1,%reg; jne/je ...`, a
branch on secret data (found in review, fixed with `core::hint::black_box`). This scan fails
if that shape comes back in the field, point or ladder code. x86-64 only; skipped elsewhere
or without objdump.

Usage: ct-branch-scan.py <binary>
"""
import platform
import re
import shutil
import subprocess
import sys

WATCHED = ("p384_field", "group::point", "group::ct_multi", "group::mul", "group::field")
# Variable-time code on public data branches by design (its names say so).
PUBLIC = ("vartime", "wnaf", "straus", "pippenger")


def main() -> int:
    if platform.machine() not in ("x86_64", "AMD64") or shutil.which("objdump") is None:
        print("ct-branch-scan: skipped (needs x86-64 and objdump)")
        return 0
    dis = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", "-C", sys.argv[1]],
        check=True, capture_output=True, text=True,
    ).stdout.split("\n")
    func, hits, scanned = None, {}, set()
    for i, line in enumerate(dis):
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            func = m.group(1)
            continue
        if (
            func is None
            or not any(w in func for w in WATCHED)
            or any(p in func for p in PUBLIC)
            or "::tests::" in func
        ):
            continue
        scanned.add(func)
        if re.search(r"\btest\s+\$0x1,", line) and re.search(
            r"\bj(n?e|n?z)\b", " ".join(dis[i + 1 : i + 3])
        ):
            hits[func] = hits.get(func, 0) + 1
    print(f"ct-branch-scan: {len(scanned)} functions scanned, {sum(hits.values())} hits")
    for f, c in sorted(hits.items(), key=lambda x: -x[1]):
        print(f"  {c:3} {f}")
    if not scanned:
        print("ct-branch-scan: no watched function found (symbols renamed?)")
        return 1
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
