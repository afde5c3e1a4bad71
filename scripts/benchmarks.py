#!/usr/bin/env python3
"""Writes BENCHMARKS.md and the SVG plots under docs/bench/ from criterion's output.

Standard library only (Python 3.11). Normally run by `bash scripts/benchmarks.sh [--quick]`,
which runs the benches of every build into `target/bench/<build>/` first:

    target/bench/<build>/criterion/**/new/{benchmark,estimates}.json   criterion (CRITERION_HOME)
    target/bench/<build>/allocs.json     `cargo run --release --example alloc_counts`
    target/bench/<build>/meta.json       what the shell script ran: command, load, date
    target/bench/peers/criterion/...     `cd interop && cargo bench --bench peers`

Usage:

    python3 scripts/benchmarks.py --build default=target/bench/default \
        --build portable=target/bench/portable --build rayon=target/bench/rayon \
        --peers target/bench/peers [--label portable=portable] [--out BENCHMARKS.md] \
        [--plots docs/bench]

`--label NAME=TEXT` overrides the arithmetic backend label of a build (otherwise the one the
allocation counter printed: `privacy_tokens::group::arithmetic_backend()` in that build).
Times are criterion's median point estimates; "per token" divides by the elements the bench
declares (criterion throughput) or, for the peers bench, by the batch of `issue` and
`finish_issuance`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

BATCHES = (1, 10, 100)
LIMITS = (2, 100, 65536)
SUITES = ("P384-SHA384", "P256-SHA256", "ristretto255-SHA512", "P521-SHA512", "decaf448-SHAKE256")
MODES = ("OPRF", "VOPRF", "POPRF")
TT_METHODS = ("pst_v1_voprf", "pst_v1_pmb", "experiment_v2_voprf", "experiment_v2_pmb",
              "experiment_v1")
PEER_METHODS = ("pst_v1_voprf", "pst_v1_pmb")
ARC_SUITES = ("v2/P256", "v1/P256", "v1/P384")
# One colour per implementation or build, one dash pattern per step.
SOURCE_COLORS = {"default": "#1f77b4", "portable": "#17becf", "rayon": "#2ca02c",
                 "voprf crate": "#ff7f0e", "BoringSSL": "#d62728", "AWS-LC": "#9467bd",
                 "ours, peers run": "#7f7f7f"}
DASHES = ("", "7,4", "2,3")


# ------------------------------------------------------------------------------------------
# Reading criterion's output


def read_criterion(root: Path) -> dict[str, dict]:
    """full_id -> {"median": ns, "mean": ns, "elements": n or None} for every `new/` result."""
    out: dict[str, dict] = {}
    if not root.is_dir():
        return out
    for bench in root.rglob("new/benchmark.json"):
        est = bench.with_name("estimates.json")
        if not est.is_file():
            continue
        meta = json.loads(bench.read_text())
        e = json.loads(est.read_text())
        thr = meta.get("throughput") or {}
        out[meta["full_id"]] = {
            "median": e["median"]["point_estimate"],
            "mean": e["mean"]["point_estimate"],
            "elements": thr.get("Elements"),
        }
    return out


def read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


class Build:
    """One build's figures: criterion times, allocation counts and what was run."""

    def __init__(self, name: str, root: Path, label: str | None):
        self.name = name
        self.root = root
        self.times = read_criterion(root / "criterion")
        allocs = read_json(root / "allocs.json")
        self.allocs: dict[str, dict] = allocs.get("counts", {})
        self.meta = read_json(root / "meta.json")
        self.backend = label or allocs.get("backend") or self.meta.get("backend") or "?"

    def time(self, bench_id: str) -> float | None:
        r = self.times.get(bench_id)
        return r["median"] if r else None

    def per_token(self, bench_id: str, batch: int | None = None) -> float | None:
        r = self.times.get(bench_id)
        if not r:
            return None
        n = r["elements"] or batch or 1
        return r["median"] / n

    def alloc(self, bench_id: str) -> int | None:
        r = self.allocs.get(bench_id)
        return r["allocs"] if r else None


# ------------------------------------------------------------------------------------------
# Formatting


def fmt_time(ns: float | None) -> str:
    if ns is None:
        return "–"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3g} ms" if ns < 1e8 else f"{ns / 1e6:.0f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3g} µs"
    return f"{ns:.0f} ns"


def divided(t: float | None, n: int) -> float | None:
    return t / n if t is not None else None


def fmt_int(v: int | None) -> str:
    return "–" if v is None else str(v)


def table(head: list[str], rows: list[list[str]], right_from: int = 1) -> str:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------
# SVG plots (hand-written: log-log axes, one line per series)


Series = list[tuple[str, list[tuple[float, float | None]], str, int]]


def svg_plot(path: Path, title: str, xlabel: str, series: Series) -> bool:
    """series: (step, [(x, y_ns)], source, step index): the colour is the source's, the dash
    pattern the step's. Writes nothing and returns False without data."""
    series = [(f"{l} ({src})", [(x, y) for x, y in pts if y], src, d) for l, pts, src, d in series]
    series = [s for s in series if s[1]]
    if not series:
        return False
    xs = [x for _, pts, _, _ in series for x, _ in pts]
    ys = [y / 1e3 for _, pts, _, _ in series for _, y in pts]  # µs
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    if x1 - x0 < 1e-9:
        x0, x1 = x0 - 0.5, x1 + 0.5
    y0 = math.floor(math.log10(min(ys)))
    y1 = math.ceil(math.log10(max(ys)))
    if y1 == y0:
        y1 += 1
    w, h = 760, 420
    left, right, top, bottom = 70, 290, 40, 50
    pw, ph = w - left - right, h - top - bottom

    def px(x: float) -> float:
        return left + (math.log10(x) - x0) / (x1 - x0) * pw

    def py(y_us: float) -> float:
        return top + ph - (math.log10(y_us) - y0) / (y1 - y0) * ph

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{left}" y="22" font-size="14" font-weight="bold">{esc(title)}</text>']
    # Grid and axes.
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        o.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(fmt_time(10 ** e * 1e3))}</text>')
    for x in sorted(set(xs)):
        xx = px(x)
        o.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{top + ph}" stroke="#ddd"/>')
        label = "2^16" if x == 65536 else str(int(x))
        o.append(f'<text x="{xx:.1f}" y="{top + ph + 16}" text-anchor="middle">{label}</text>')
    o.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    o.append(f'<text x="{left + pw / 2}" y="{h - 12}" text-anchor="middle">{esc(xlabel)}</text>')
    o.append(f'<text transform="translate(16,{top + ph / 2}) rotate(-90)" text-anchor="middle">'
             'time per token (log)</text>')
    for i, (label, pts, src, step) in enumerate(series):
        c = SOURCE_COLORS.get(src, "#000")
        dash = f' stroke-dasharray="{DASHES[step % len(DASHES)]}"' if step % len(DASHES) else ""
        pts = sorted(pts)
        d = " ".join(f"{px(x):.1f},{py(y / 1e3):.1f}" for x, y in pts)
        o.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
        for x, y in pts:
            o.append(f'<circle cx="{px(x):.1f}" cy="{py(y / 1e3):.1f}" r="3" fill="{c}"/>')
        ly = top + 10 + i * 18
        o.append(f'<line x1="{left + pw + 12}" y1="{ly}" x2="{left + pw + 36}" y2="{ly}" '
                 f'stroke="{c}" stroke-width="2"{dash}/>')
        o.append(f'<text x="{left + pw + 42}" y="{ly + 4}">{esc(label)}</text>')
    o.append("</svg>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(o) + "\n")
    return True


def esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ------------------------------------------------------------------------------------------
# The report


class Report:
    def __init__(self, builds: list[Build], peers: dict[str, dict], plots: Path, out: Path):
        self.builds = builds
        self.peers = peers
        self.plots = plots
        self.out = out
        self.parts: list[str] = []
        self.covered = 0
        self.missing: list[str] = []
        self.peers_meta: dict = {}

    @property
    def default(self) -> Build:
        return self.builds[0]

    def peer_time(self, bench_id: str) -> float | None:
        r = self.peers.get(bench_id)
        return r["median"] if r else None

    def plot_link(self, path: Path, alt: str) -> str:
        rel = os.path.relpath(path, self.out.parent)
        return f"![{alt}]({rel})\n"

    def build_cols(self) -> list[str]:
        head = []
        for b in self.builds:
            head += [f"{b.name}: per op", "per token"]
        return head

    def build_cells(self, bench_id: str, batch: int | None) -> list[str]:
        cells = []
        for b in self.builds:
            t = b.time(bench_id)
            if b is self.default:
                if t is None:
                    self.missing.append(bench_id)
                else:
                    self.covered += 1
            cells += [fmt_time(t), fmt_time(b.per_token(bench_id, batch))]
        return cells

    def alloc_cells(self, bench_id: str) -> list[str]:
        a = self.default.alloc(bench_id)
        others = [b.alloc(bench_id) for b in self.builds[1:] if b.name == "rayon"]
        cells = [fmt_int(a)]
        if any(b.name == "rayon" for b in self.builds):
            cells.append(fmt_int(others[0] if others else None))
        return cells

    def alloc_cols(self) -> list[str]:
        cols = ["allocs/op"]
        if any(b.name == "rayon" for b in self.builds):
            cols.append("allocs/op (rayon, calling thread)")
        return cols

    # ---- VOPRF
    def voprf(self) -> None:
        self.parts.append("## VOPRF (RFC 9497)\n\n"
                          "Steps: `blind` and `finalize` (client), `blind_evaluate` and `evaluate` "
                          "(server); batch 1 is the single-element API, larger batches the batch "
                          "API (OPRF has no batched finalize). Peer: the `voprf` crate 0.5.0 in the "
                          "same bench binary and run (`--features peer-bench`, default build).\n\n")
        for suite in SUITES:
            for mode in MODES:
                rows = []
                steps: list[tuple[str, int | None]] = [("blind", None)]
                steps += [("blind_evaluate", n) for n in BATCHES]
                steps += [("finalize", n) for n in (BATCHES if mode != "OPRF" else (1,))]
                steps += [("evaluate", None)]
                for step, n in steps:
                    sid = f"{suite}/{mode}/{step}" + (f"/{n}" if n else "")
                    ours = f"voprf/{sid}"
                    peer = f"voprf-crate/{sid}"
                    pt = self.default.time(peer)
                    rows.append([f"{step}" + (f" ({n})" if n else "")]
                                + self.build_cells(ours, n) + self.alloc_cells(ours)
                                + [fmt_time(pt), fmt_time(pt / n if pt and n else pt)])
                self.parts.append(f"### {suite} {mode}\n\n")
                self.parts.append(table(["step (batch)"] + self.build_cols() + self.alloc_cols()
                                        + ["voprf crate: per op", "per token"], rows))
                series: Series = []
                for k, step in enumerate(("blind_evaluate", "finalize")):
                    batches = BATCHES if mode != "OPRF" or step == "blind_evaluate" else (1,)
                    for b in self.builds:
                        series.append((step,
                                       [(n, b.per_token(f"voprf/{suite}/{mode}/{step}/{n}", n))
                                        for n in batches], b.name, k))
                    series.append((step,
                                   [(n, divided(self.default.time(f"voprf-crate/{suite}/{mode}/{step}/{n}"), n))
                                    for n in batches], "voprf crate", k))
                p = self.plots / f"voprf-{suite}-{mode}.svg"
                if svg_plot(p, f"{suite} {mode}: time per token", "batch size", series):
                    self.parts.append("\n" + self.plot_link(p, f"{suite} {mode}"))
                self.parts.append("\n")

    # ---- Privacy Pass
    def privacy_pass(self) -> None:
        self.parts.append("## Privacy Pass (RFC 9578, token type 0x0001, VOPRF P-384)\n\n"
                          "Single issuance (`request`, `issue`, `finalize`, `verify_token`) and "
                          "amortized batched issuance (`request_batch`, `issue_batch` from the "
                          "request bytes, `finalize_batch`). There is no Privacy Pass peer in the "
                          "benches; the plot shows the `voprf` crate's P-384 VOPRF "
                          "`blind_evaluate` and `finalize` (the issuer's and client's core "
                          "operations) on the same axes.\n\n")
        rows = []
        steps = [("request", None), ("issue", None), ("finalize", None), ("verify_token", None)]
        steps += [(s, n) for s in ("request_batch", "issue_batch", "finalize_batch") for n in BATCHES]
        for step, n in steps:
            bid = f"privacy_pass/{step}" + (f"/{n}" if n else "")
            rows.append([step + (f" ({n})" if n else "")] + self.build_cells(bid, n)
                        + self.alloc_cells(bid))
        self.parts.append(table(["step (batch)"] + self.build_cols() + self.alloc_cols(), rows))
        series: Series = []
        for k, (step, peer_step) in enumerate((("issue_batch", "blind_evaluate"),
                                               ("finalize_batch", "finalize"))):
            for b in self.builds:
                series.append((step,
                               [(n, b.per_token(f"privacy_pass/{step}/{n}", n)) for n in BATCHES],
                               b.name, k))
            series.append((f"P-384 VOPRF {peer_step}",
                           [(n, divided(self.default.time(f"voprf-crate/P384-SHA384/VOPRF/{peer_step}/{n}"), n))
                            for n in BATCHES], "voprf crate", k))
        p = self.plots / "privacy_pass.svg"
        if svg_plot(p, "Privacy Pass batched issuance: time per token", "batch size", series):
            self.parts.append("\n" + self.plot_link(p, "Privacy Pass"))
        self.parts.append("\n")

    # ---- Trust Tokens
    def trust_token(self) -> None:
        self.parts.append("## Trust Tokens / Private State Tokens\n\n"
                          "Steps: `begin_issuance`, `finish_issuance`, `begin_redemption` "
                          "(client), `issue`, `redeem` (issuer). Peers: BoringSSL and AWS-LC from "
                          "the interop crate's `peers` bench (`pst_v1_voprf` and `pst_v1_pmb`, one "
                          "run, interleaved per cell, with our figures of that run as "
                          "`ours (peers run)`; its `redeem/<batch>` redeems one token: per token "
                          "= per op).\n\n")
        peers = ("boringssl", "awslc")
        for m in TT_METHODS:
            rows = []
            steps = [(s, n) for s in ("begin_issuance", "issue", "finish_issuance") for n in BATCHES]
            steps += [("begin_redemption", 1), ("redeem", 1)]
            has_peers = m in PEER_METHODS
            for step, n in steps:
                bid = f"trust_token/{m}/{step}/{n}"
                row = [f"{step} ({n})"] + self.build_cells(bid, n) + self.alloc_cells(bid)
                if has_peers:
                    for peer in peers + ("trust_token",):
                        t = self.peer_time(f"{peer}/{m}/{step}/{n}")
                        per = t / n if t and step in ("issue", "finish_issuance") else t
                        row += [fmt_time(t), fmt_time(per)]
                rows.append(row)
            head = ["step (batch)"] + self.build_cols() + self.alloc_cols()
            if has_peers:
                for peer in ("BoringSSL", "AWS-LC", "ours (peers run)"):
                    head += [f"{peer}: per op", "per token"]
            self.parts.append(f"### {m}\n\n")
            self.parts.append(table(head, rows))
            series: Series = []
            for k, step in enumerate(("issue", "finish_issuance")):
                for b in self.builds:
                    series.append((step,
                                   [(n, b.per_token(f"trust_token/{m}/{step}/{n}", n)) for n in BATCHES],
                                   b.name, k))
                if has_peers:
                    for peer, name in zip(peers + ("trust_token",), ("BoringSSL", "AWS-LC", "ours, peers run")):
                        series.append((step,
                                       [(n, divided(self.peer_time(f"{peer}/{m}/{step}/{n}"), n))
                                        for n in BATCHES], name, k))
            p = self.plots / f"trust_token-{m}.svg"
            if svg_plot(p, f"Trust Tokens {m}: time per token", "batch size", series):
                self.parts.append("\n" + self.plot_link(p, m))
            self.parts.append("\n")

    # ---- ARC
    def arc(self) -> None:
        self.parts.append("## ARC (anonymous rate-limited credentials)\n\n"
                          "Steps: `request`, `finalize`, `present` (client), `issue`, `verify` "
                          "(server). `present` and `verify` at presentation limits 2, 100 and "
                          "2^16; v1 sends the nonce in the clear (its cost does not depend on the "
                          "limit, measured at each limit all the same). No batches: the plots "
                          "show time per presentation against the limit. No ARC peer is in the "
                          "benches.\n\n")
        for s in ARC_SUITES:
            rows = []
            steps = [("request", None), ("issue", None), ("finalize", None)]
            steps += [(st, l) for st in ("present", "verify") for l in LIMITS]
            for step, l in steps:
                bid = f"arc/{s}/{step}" + (f"/{l}" if l else "")
                lab = step + (f" (limit {'2^16' if l == 65536 else l})" if l else "")
                cells = []
                for b in self.builds:
                    t = b.time(bid)
                    if b is self.default:
                        if t is None:
                            self.missing.append(bid)
                        else:
                            self.covered += 1
                    cells.append(fmt_time(t))
                rows.append([lab] + cells + self.alloc_cells(bid))
            self.parts.append(f"### {s}\n\n")
            self.parts.append(table(["step"] + [f"{b.name}: per op" for b in self.builds]
                                    + self.alloc_cols(), rows))
            series: Series = []
            for k, step in enumerate(("present", "verify")):
                for b in self.builds:
                    series.append((step, [(l, b.time(f"arc/{s}/{step}/{l}")) for l in LIMITS],
                                   b.name, k))
            p = self.plots / f"arc-{s.replace('/', '-')}.svg"
            if svg_plot(p, f"ARC {s}: time per presentation", "presentation limit", series):
                self.parts.append("\n" + self.plot_link(p, f"ARC {s}"))
            self.parts.append("\n")

    # ---- summary (also the README's short table)
    def summary(self, short: bool = False) -> str:
        """The summary table; `short` (the README's) leaves out the batch-100 rows of
        ristretto255 and P-521 and the decaf448 rows, which BENCHMARKS.md keeps."""
        rayon = next((b for b in self.builds if b.name == "rayon"), None)
        rows = []

        def row(what: str, bench_id: str, n: int, peer: str | None, peer_t: float | None) -> None:
            d = self.default.per_token(bench_id, n)
            r = rayon.per_token(bench_id, n) if rayon else None
            rows.append([what, fmt_time(d), fmt_time(r), f"{fmt_time(peer_t)} ({peer})" if peer else "–"])

        for suite, short, batches in (("P384-SHA384", "P-384", (1, 100)),
                                      ("ristretto255-SHA512", "ristretto255", (1, 100)),
                                      ("P521-SHA512", "P-521", (1, 100)),
                                      ("decaf448-SHAKE256", "decaf448", (1,))):
            for step in ("blind_evaluate", "finalize"):
                for n in batches:
                    sid = f"{suite}/VOPRF/{step}/{n}"
                    pt = self.default.time(f"voprf-crate/{sid}")
                    # decaf448: the `voprf` crate has no such suite.
                    peer = "voprf crate" if suite != "decaf448-SHAKE256" else None
                    row(f"VOPRF {short} {step}, batch {n}", f"voprf/{sid}", n, peer,
                        pt / n if pt else None)
        row("Privacy Pass issue", "privacy_pass/issue", 1, None, None)
        row("Privacy Pass issue_batch, batch 100", "privacy_pass/issue_batch/100", 100, None, None)
        for m in PEER_METHODS:
            for n in (1, 100):
                pt = self.peer_time(f"boringssl/{m}/issue/{n}")
                row(f"Trust Token {m} issue, batch {n}", f"trust_token/{m}/issue/{n}", n, "BoringSSL",
                    pt / n if pt else None)
        for step in ("present", "verify"):
            row(f"ARC v2 {step}, limit 100", f"arc/v2/P256/{step}/100", 1, None, None)
        if short:
            rows = [r for r in rows if not (r[0].startswith("VOPRF decaf448")
                    or (r[0].startswith(("VOPRF ristretto255", "VOPRF P-521")) and r[0].endswith("batch 100")))]
        head = ["operation", "per token (default)", "per token (rayon)", "peer, per token"]
        loads = [m.get(k, "") for m in [b.meta for b in self.builds] + [self.peers_meta]
                 for k in ("load_before", "load_after")]
        first = [float(x.split(",")[0]) for x in loads if x]
        note = ""
        if first:
            note = (f"\n1-minute load average during the run: {min(first):.1f} to {max(first):.1f} "
                    "on 2 cores"
                    + (" (criterion `--quick`)" if self.default.meta.get("quick") else "")
                    + ". ARC is not split by `rayon`: its default/rayon difference is the noise "
                    "of the run.\n")
        return table(head, rows) + note

    # ---- rayon speed-up
    def speedup(self) -> None:
        rayon = next((b for b in self.builds if b.name == "rayon"), None)
        if rayon is None:
            return
        ids = [f"voprf/{suite}/{mode}/{step}/100" for suite in SUITES for mode in MODES
               for step in ("blind_evaluate", "finalize") if not (mode == "OPRF" and step == "finalize")]
        ids += [f"privacy_pass/{s}/100" for s in ("issue_batch", "finalize_batch")]
        ids += [f"trust_token/{m}/{s}/100" for m in TT_METHODS for s in ("issue", "finish_issuance")]
        rows = []
        for bid in ids:
            d, r = self.default.time(bid), rayon.time(bid)
            ratio = f"{d / r:.2f}x" if d and r else "–"
            rows.append([f"`{bid}`", fmt_time(d), fmt_time(r), ratio])
        self.parts.append("## `--features rayon` at batch 100\n\n"
                          "The split paths at batch 100, default build against `--features "
                          "rayon` (rayon's global pool: one worker per core), from the same run; "
                          "the speed-up is bounded by the free cores: see the load averages "
                          "above.\n\n")
        self.parts.append(table(["bench id", "default", "rayon", "speed-up"], rows))
        self.parts.append("\n")

    # ---- blind RSA
    def rsa(self) -> None:
        ours = self.peer_time("rsa/privacy-tokens/2048/blind_sign")
        aws = self.peer_time("rsa/awslc/2048/private_op")
        ratio = f"{ours / aws:.2f}" if ours and aws else "–"
        self.parts.append("## Blind RSA (peers bench)\n\n")
        self.parts.append("`SecretKey::blind_sign` (decoding, the CRT private operation in constant "
                          "time, its check against the public operation, encoding) against AWS-LC's "
                          "`RSA_sign_raw(..., RSA_NO_PADDING)` on the same RSA-2048 key and blinded "
                          "message (`interop/tests/awslc.rs` checks the outputs are equal). AWS-LC "
                          "uses AVX-512 IFMA where the CPU has it; see the dated runs below.\n\n")
        self.parts.append(table(["operation", "privacy-tokens", "AWS-LC", "ours / AWS-LC"],
                                [["RSA-2048 private operation", fmt_time(ours), fmt_time(aws), ratio]]))
        self.parts.append("\n")

    # ---- group
    def curves(self) -> None:
        rows = []
        for curve in ("P-256", "P-384"):
            for op, peer in (("mul_ct", "mul"), ("mul_base_ct", "mul_base")):
                ours = self.peer_time(f"curve/privacy-tokens/{curve}/{op}")
                aws = self.peer_time(f"curve/awslc/{curve}/{peer}")
                rows.append([f"{curve} {op}", fmt_time(ours), fmt_time(aws)])
        self.parts.append("## Curve arithmetic (peers bench)\n\n")
        self.parts.append(table(["operation", "privacy-tokens", "AWS-LC"], rows))
        self.parts.append("\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", default=[], metavar="NAME=DIR",
                    help="a build's bench directory; the first is the reference (default build)")
    ap.add_argument("--peers", type=Path, help="the peers bench's directory (holds criterion/)")
    ap.add_argument("--label", action="append", default=[], metavar="NAME=TEXT",
                    help="arithmetic backend label of a build")
    ap.add_argument("--out", type=Path, default=Path("BENCHMARKS.md"))
    ap.add_argument("--plots", type=Path, default=Path("docs/bench"))
    ap.add_argument("--command", default="bash scripts/benchmarks.sh",
                    help="the command that regenerates the report (printed at its top)")
    ap.add_argument("--note", default="", help="a paragraph printed under the header")
    ap.add_argument("--readme", type=Path,
                    help="also write the summary table between the README's markers")
    a = ap.parse_args()
    if not a.build:
        ap.error("at least one --build NAME=DIR")
    labels = dict(x.split("=", 1) for x in a.label)
    builds = []
    for spec in a.build:
        name, d = spec.split("=", 1)
        builds.append(Build(name, Path(d), labels.get(name) or os.environ.get(f"BENCH_LABEL_{name.upper()}")))
    peers = read_criterion(a.peers / "criterion") if a.peers else {}
    peers_meta = read_json(a.peers / "meta.json") if a.peers else {}
    r = Report(builds, peers, a.plots, a.out)
    r.peers_meta = peers_meta
    r.voprf()
    r.privacy_pass()
    r.trust_token()
    r.arc()
    r.speedup()
    r.rsa()
    r.curves()

    head = ["# Benchmarks\n",
            f"Regenerate everything (benches of every build, the allocation counter, this file and "
            f"the plots under `{a.plots}/`) with:\n",
            f"```sh\n{a.command}\n```\n",
            "`bash scripts/benchmarks.sh --quick` does the same with criterion's `--quick` "
            "sampling (a few seconds per id at most). The script runs `cargo bench` for "
            "`benches/{voprf,privacy_pass,trust_token,arc}.rs` per build with `CRITERION_HOME` "
            "set to `target/bench/<build>/criterion`, `cargo run --release --example "
            "alloc_counts` per build, the interop crate's `cargo bench --bench peers` once, "
            "then `python3 scripts/benchmarks.py` over those directories.\n"]
    if a.note:
        head.append(a.note + "\n")
    head.append("Builds (columns, in this order):\n")
    for b in builds:
        m = b.meta
        head.append(f"- **{b.name}**: `{m.get('command', '?')}`; arithmetic backend "
                    f"\"{b.backend}\"; {m.get('date', '?')}; load before/after: "
                    f"{m.get('load_before', '?')} / {m.get('load_after', '?')}")
    if peers_meta:
        head.append(f"- **peers**: `{peers_meta.get('command', '?')}`; {peers_meta.get('date', '?')}; "
                    f"load before/after: {peers_meta.get('load_before', '?')} / "
                    f"{peers_meta.get('load_after', '?')}")
    head.append("")
    head.append("Times are criterion medians per operation and per token (per element of the "
                "batch); `–` is a cell the run has no figure for. Allocations: heap allocations "
                "of one run of the step (`examples/alloc_counts.rs`, `allocation-counter`, "
                "counted on the calling thread: with `rayon` the workers' allocations are not "
                "in the count).\n")
    head.append(f"Coverage: {r.covered} cells of this crate measured in the default build"
                + (f"; missing: {', '.join('`' + m + '`' for m in r.missing)}" if r.missing else "; none missing")
                + ".\n")
    summary = r.summary()
    head.append("## Summary\n")
    head.append(summary)
    # Dated before/after measurements (one-off runs, each with its command and load) are kept in
    # a file of their own and appended as they are, so a regeneration does not lose them.
    history = a.plots / "history.md"
    if history.exists():
        r.parts.append("\n" + history.read_text())
    a.out.write_text("\n".join(head) + "\n" + "".join(r.parts))
    if a.readme:
        # The README's short table sits between two markers; the rest of the README is kept.
        text = a.readme.read_text()
        start, end = "<!-- benchmarks-summary: start -->", "<!-- benchmarks-summary: end -->"
        i, j = text.find(start), text.find(end)
        if i < 0 or j < i:
            print(f"{a.readme}: no {start} ... {end} markers, left alone", file=sys.stderr)
        else:
            text = text[:i + len(start)] + "\n\n" + r.summary(short=True) + "\n" + text[j:]
            a.readme.write_text(text)
    print(f"wrote {a.out} ({r.covered} cells, {len(r.missing)} missing) and plots under {a.plots}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
