#!/usr/bin/env python3
"""Scans the release lib-test binary for the branch rustc once emitted on a secret borrow.

The P-384 field's final conditional subtraction (and the P-256 field's, of the same shape)
selects with a mask made from the borrow;
without an optimisation barrier rustc 1.95 turned it into `test $0x1,%reg; jne/je ...`, a
branch on secret data (found in review, fixed with `core::hint::black_box`). This scan fails
if that shape comes back anywhere in the crate's code, including the field and ladder code once
it is inlined into the protocol functions (`dleqor::prove`, `pmb::issue`, the ARC provers...),
and in the curve crates' own arithmetic (`p256::arithmetic`, `p384::arithmetic`: the scalars).

A few branches of this shape are on public data; each is listed in REVIEWED with the number of
hits it may have and why it is public. Any other hit, or more hits than listed, fails. Give it
the release lib-test binary and release example binaries (a downstream-like build). x86-64
only; skipped elsewhere or without objdump.

Usage: ct-branch-scan.py <binary>...
"""
import platform
import re
import shutil
import subprocess
import sys

WATCHED = ("privacy_tokens::", "p256::arithmetic", "p384::arithmetic", "primeorder::")
# Variable-time code on public data branches by design (its names say so).
PUBLIC = ("vartime", "wnaf", "straus", "pippenger")
# Reviewed branches of the watched shape on public data: regex on the function name ->
# (max hits per function, why it is public).
REVIEWED = {
    r"codec::alloc_hex::decode_hex_into$": (1, "the string length's parity"),
    # serde's sequence form of secret bytes (`serde_bytes_vec`): the tags tested are the
    # deserializer's `Result` and `Option` (an error, the end of the sequence), the input's
    # length and shape, never a byte's value (the bytes are only pushed).
    r"codec::serde_bytes_vec::BytesVisitor as .*Visitor>::visit_seq$": (
        2, "the sequence's end and the deserializer's error (the input's shape)"),
    r"primeorder::projective::ProjectivePoint<C>.*::mul$": (
        2, "the parity of the table-building loop index (add or double)"),
    r"dleqor::challenges$": (1, "the identity flag of the public points the transcript encodes"),
    r"arc::sigma::prove$": (
        3, "whether a Pedersen base has a `g` term (the statement's shape)"),
    r"PrivateKey::put_blob$": (1, "the method's scalar count (blob layout)"),
    # The `Result` discriminant of `blind_evaluate` (run inside `stack::run`), reloaded from
    # the stack after a memcpy of the response, so the classifier does not see it as returned.
    r"privacy_pass::single::Issuer<T>::issue$": (
        1, "whether the evaluation failed (the returned Result's tag)"),
    # The per-item `Client::request` of a generic batch runs inside `stack::run`; its `Result`
    # tag is reloaded from the stack after the wipe (`movzx r12d, [rsp + ..]`, then
    # `test r12b, 1`), once for each token type's arm: whether the request failed, a public error.
    r"privacy_pass::generic_batch::request$": (
        2, "whether an item's request failed (its Result's tag, one per token type)"),
    # ARC's proof verification: since the group layer's variable-time code changed (the ACT
    # verifier's batch), `vartime_simulate` is inlined into `verify`, and the branch follows a
    # `mul_ct` call: which path a term takes, by the statement's shape (a `Base::Secret`
    # element, multiplied in constant time, or a public one), not by a value. Under valgrind,
    # arc/v2/verify and arc/v1/flow (the key marked secret) run with 0 errors.
    r"arc::sigma::verify$": (
        1, "the statement's shape after an inlined mul_ct (which bases are secret)"),
    # The sigma-03 prover's buffers are sized once for the longest equation (a sum over each
    # equation's terms of its opening's length): the unrolled sizing loop tests the parity of
    # an equation's term count, the public statement's shape.
    r"arc::sigma03::LinearRelation<C>::prove_compact_opened$": (
        2, "the parity of an equation's term count (sizing loop over the public statement)"),
    # Rollatini's VecEquivocate: the `Result` tag `next_level` returns through the stack (a
    # failure on the public tree of the sent leaves), reloaded after the call.
    r"rollatini::tree::equivocate$": (
        1, "the Result tag next_level returns (an error on the public tree)"),
    # Instance validation of sigma-protocols-03 reads only the public statement and elements.
    r"arc::sigma03::validate_instance$": (
        1, "a shape check of the public statement (an unused element or scalar)"),
    r"PrivateKey::from_bytes$": (1, "the method's scalar count (blob layout)"),
    # The DLEQ transcript hashes (RFC 9497 ComputeComposites / the challenge) hash public values
    # only (the key, the blinded and evaluated elements, t2 and t3, which the verifier
    # recomputes); the branch is hash2curve's expand_message error / output-length check.
    r"voprf::Context<S> as .*DleqHash.*>::(challenge|composite)$": (
        1, "hash2curve's expander output-length check on the public transcript"),
    # The PMB issuer key's ladder blind is `hash_to_scalar` of the key; inlined here (the build's
    # partitioning moved when `voprf::privacy_pass::generic_batch` came in), its expander check
    # tests `fill_bytes`'s error flag OR (output length != 72): the constant length, not the key.
    r"trust_token::pmb::IssuerKey::for_key$": (
        1, "hash2curve's expander output-length check (the fixed 72 bytes, not the key)"),
    # ARC's `m2 = HashToScalar(requestContext)`, with `hash_to_scalar` inlined since the ACT
    # merge moved the partitioning: the same expander check (`fill_bytes`'s error flag OR
    # output length != 48, `cmp $0x30,%rdx; setne; or; test $0x1`), on the public context.
    r"arc::issuance::request_context_scalar$": (
        1, "hash2curve's expander output-length check (the fixed 48 bytes; the context is public)"),
    # With P-256's squaring inlined, `sqn(x, 2)` becomes a two-trip loop whose flag is the
    # constant `mov $0x1` set before it and tested at its back edge: the loop counter.
    r"group::field::(invert_p256|pow_p256_c1)$": (
        1, "the counter of a fixed two-trip squaring loop (a constant)"),
    # The blind RSA Montgomery engine (`num::mont`, fixed-size word arrays): after the diagonal
    # of a squaring column (`if i % 2 == 0`), the parity of the column's unrolled cross-product
    # loop count, a function of the column index and the size class only; in `pow_public` also
    # the public exponent's bits (the sliding window). The secret paths (blind_sign's CRT
    # halves with p, q, d_p, d_q marked, the client's blind with r marked) run without a
    # branch on a secret under valgrind (`scripts/ct-valgrind.sh`).
    r"blind_rsa::num::mont::(Mont::)?pow_secret$": (
        4, "a squaring column's loop-count parity (column index and size class)"),
    r"blind_rsa::num::mont::(Mont::)?pow_public$": (
        8, "the public exponent's bits and a squaring column's loop-count parity"),
    # Partially blind RSA's public key derivation (`e'` from the public modulus and metadata by
    # HKDF): public inputs only.
    r"blind_rsa::key::PublicKey::derive$": (
        1, "the public key's derivation from the public modulus and metadata"),
    # PEM decoding of a key (base64 by a table): key parsing runs once at load and is variable
    # time by design (docs/blind-rsa.md, "Known limits").
    r"blind_rsa::der::pem_decode$": (
        2, "key parsing at load, variable time by design (documented)"),
}
# The field and ladder functions that must be found (else the symbols changed and the scan is
# blind): at least one function of each.
REQUIRED = ("p256_field", "p384_field", "group::")


def scan(binary: str):
    dis = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", "-C", binary],
        check=True, capture_output=True, text=True,
    ).stdout.split("\n")
    func, hits, scanned = None, {}, set()
    for i, line in enumerate(dis):
        m = re.match(r"^([0-9a-f]+) <(.*)>:$", line)
        if m:
            # One entry per function body: generic functions have one body per curve.
            func, addr = m.group(2), m.group(1)
            continue
        if (
            func is None
            or not any(w in func for w in WATCHED)
            or any(p in func for p in PUBLIC)
            or "::tests::" in func
            # `group::limbs::checks`: the `#[cfg(test)]` helpers the field unit tests share (fixed
            # test inputs, compiled only into the lib-test binary).
            or "::limbs::checks::" in func
            # `http`: the `PrivateToken` header parser and writer, on public header text only (no
            # key, no field or scalar code reaches it); its byte-class tests have this shape.
            or func.startswith("privacy_tokens::http::")
        ):
            continue
        scanned.add(func)
        if re.search(r"\btest\s+\$0x1,", line) and re.search(
            r"\bj(n?e|n?z)\b", " ".join(dis[i + 1 : i + 3])
        ):
            hits.setdefault((func, addr), []).append(kind(dis, i))
    return scanned, hits


def kind(dis, i):
    """Classifies a hit by its shape: a flag a call just returned in %al (a `Result` or `bool`
    discriminant: whether a decoder or a check failed, public), the odd tail of an unrolled
    loop (the parity of a public length), or unknown (to be reviewed)."""
    line = dis[i]
    before = " ".join(dis[max(0, i - 3) : i])
    if re.search(r"\bcall", before):
        # The flag in %al, or in the register the return value was just moved into.
        tested = re.search(r"\$0x1,%(\w+)", line)
        moved = re.findall(r"\bmov\s+%rax,%(\w+)", before)
        reg = tested.group(1) if tested else ""
        if reg == "al" or reg in (low_byte(m) for m in moved):
            return "returned flag"
    m = re.search(r"\bj(ne|b|nz)\s+([0-9a-f]+)", " ".join(dis[max(0, i - 2) : i]))
    if m:
        here = re.match(r"^\s*([0-9a-f]+):", line)
        if here and int(m.group(2), 16) < int(here.group(1), 16):
            return "loop tail"
    return "unknown"


def low_byte(reg):
    """The low-byte name of a 64-bit register (`rbp` -> `bpl`, `r13` -> `r13b`)."""
    legacy = {"rax": "al", "rbx": "bl", "rcx": "cl", "rdx": "dl",
              "rsi": "sil", "rdi": "dil", "rbp": "bpl", "rsp": "spl"}
    return legacy.get(reg, reg + "b")


def reviewed(func):
    for pat, (count, why) in REVIEWED.items():
        if re.search(pat, func):
            return count, why
    return 0, None


def main() -> int:
    if platform.machine() not in ("x86_64", "AMD64") or shutil.which("objdump") is None:
        print("ct-branch-scan: skipped (needs x86-64 and objdump)")
        return 0
    failed = False
    for binary in sys.argv[1:]:
        scanned, hits = scan(binary)
        total = sum(len(k) for k in hits.values())
        by_shape, bad = {}, {}
        for (f, _), kinds in hits.items():
            unknown = [k for k in kinds if k == "unknown"]
            for k in kinds:
                by_shape[k] = by_shape.get(k, 0) + 1
            allowed, _ = reviewed(f)
            if len(unknown) > allowed:
                bad[f] = len(unknown)
        name = binary.rsplit("/", 1)[-1]
        shapes = ", ".join(f"{c} {k}" for k, c in sorted(by_shape.items()))
        print(f"ct-branch-scan {name}: {len(scanned)} functions scanned, {total} hits "
              f"({shapes or 'none'}), {len(bad)} functions over their reviewed count")
        for (f, _), kinds in sorted(hits.items(), key=lambda x: -len(x[1])):
            allowed, why = reviewed(f)
            unknown = kinds.count("unknown")
            note = why if unknown and unknown <= allowed else (
                "UNREVIEWED: a branch on a low bit, secret?" if unknown else "public shape")
            print(f"  {len(kinds):3} {f}  [{', '.join(sorted(set(kinds)))}] ({note})")
        missing = [r for r in REQUIRED if not any(r in f for f in scanned)]
        if missing and name.startswith("privacy_tokens"):
            print(f"ct-branch-scan: no watched function matches {missing} (symbols renamed?)")
            failed = True
        if not scanned or bad:
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
