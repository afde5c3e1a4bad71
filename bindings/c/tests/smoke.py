"""Python ctypes smoke test of the C ABI (standard library only): the issuer server of server/
started as a real process (as bindings/wasm/test/support/server.mjs starts it), and Privacy
Pass 0x0001 tokens, one and an amortized batch, obtained from it over HTTP through
libprivacy_tokens.so, then redeemed at /private (200) and replayed (401); and an ARC (0xE5AC)
credential from it, persisted as bytes and restored, presenting tokens up to the challenge's
rate limit (each redeemed once). ACT: a second server with `[act]` enabled (skipped, with the
reason printed, when the server has no ACT): a credential from POST /act/issue, spent at
POST /act/spend (200), the same credential spent again (409, the stored refund), the first
refund finalized and its credential spent (200).

Environment: PRIVACY_TOKENS_LIB (the shared library), PRIVACY_TOKENS_SERVER_BIN (the server
binary). Prints "ok - name" / "not ok - name" per test and "N passed, M failed"; exit 1 if any
failed.
"""

import base64
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

from ptlib import (PT_OK, Buffer, BufferList, PtError, Runner, call, free, lib, out_bytes, take,
                   take_list)

PT_TOKEN_TYPE_1 = 1
PT_TOKEN_TYPE_ARC = 0xE5AC
PT_STATE_CONSUMED = 103
PT_LIMIT_EXCEEDED = 14

P = ctypes.c_void_p
lib.pt_parse_challenges.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)]
lib.pt_challenge_list_find.argtypes = [P, ctypes.c_uint16, ctypes.POINTER(P)]
lib.pt_create_token_request.argtypes = [
    P, P, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(Buffer),
    ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(P)]
lib.pt_token_request_state_finalize.argtypes = [
    P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList)]
lib.pt_authorization_header.argtypes = [P, ctypes.c_size_t, ctypes.POINTER(Buffer)]
lib.pt_create_credential_request.argtypes = [
    P, P, ctypes.c_size_t, ctypes.POINTER(Buffer), ctypes.POINTER(ctypes.c_char_p),
    ctypes.POINTER(P)]
lib.pt_credential_request_state_finalize.argtypes = [
    P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)]
lib.pt_credential_to_bytes.argtypes = [P, ctypes.POINTER(Buffer)]
lib.pt_credential_from_bytes.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)]
lib.pt_credential_present.argtypes = [P, P, P, ctypes.c_size_t, ctypes.c_uint32,
                                      ctypes.POINTER(Buffer)]
lib.pt_challenge_rate_limit.argtypes = [P, ctypes.POINTER(ctypes.c_uint32)]
for f in ("pt_parse_challenges", "pt_challenge_list_find", "pt_create_token_request",
          "pt_token_request_state_finalize", "pt_authorization_header",
          "pt_create_credential_request", "pt_credential_request_state_finalize",
          "pt_credential_to_bytes", "pt_credential_from_bytes", "pt_credential_present",
          "pt_challenge_rate_limit"):
    getattr(lib, f).restype = ctypes.c_int32


def check(status):
    if status != PT_OK:
        raise PtError("call", status)


# --------------------------------------------------------------------------------------------
# The server process


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """privacy-tokens-server on a free loopback port with a temporary data directory and open
    issuance; both command lines (`init` + `serve`, or the older flags only) are handled, and a
    server without the issuance gate is started without the `[issuance]` section."""

    def __init__(self, binary, tables=""):
        self.binary = binary
        self.tables = tables
        help_text = subprocess.run([binary, "--help"], capture_output=True, text=True)
        out = help_text.stdout + help_text.stderr
        lines = [l.strip() for l in out.splitlines()]
        self.subcommands = any(l.startswith("init") for l in lines) and any(
            l.startswith("serve") for l in lines)
        self.proc = None
        self.base = None
        self.output = ""
        last = None
        for gate in (True, False):
            for _ in range(3):
                try:
                    self._start(gate)
                    return
                except RuntimeError as e:
                    last = e
                    if "issuance" in self.output and "unknown field" in self.output:
                        break  # no issuance gate in this server: start without the section
                    if "in use" not in self.output and "os error 98" not in self.output:
                        raise
        raise last

    def _start(self, gate):
        self.stop()
        port = free_port()
        self.host = f"127.0.0.1:{port}"
        self.url = f"http://{self.host}"
        self.base = tempfile.mkdtemp(prefix="pt-c-smoke-")
        data = os.path.join(self.base, "data")
        config = os.path.join(self.base, "server.toml")
        with open(config, "w") as f:
            f.write(f'issuer_name = "{self.host}"\norigin_info = "{self.host}"\n')
            if gate:
                f.write('\n[issuance]\nauth = "open"\n')
            f.write(self.tables)
        env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "info"))
        self.output = ""
        if self.subcommands:
            r = subprocess.run([self.binary, "init", "--data-dir", data], env=env,
                               capture_output=True, text=True)
            self.output += r.stdout + r.stderr
            if r.returncode != 0:
                raise RuntimeError(f"init exited {r.returncode}: {self.output[-2000:]}")
        args = (["serve"] if self.subcommands else []) + [
            "--listen", self.host, "--data-dir", data, "--config", config]
        self.log = open(os.path.join(self.base, "server.log"), "w+")
        self.proc = subprocess.Popen([self.binary] + args, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while True:
            if self.proc.poll() is not None:
                self.log.seek(0)
                self.output += self.log.read()
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.output[-2000:]}")
            try:
                with urllib.request.urlopen(
                        f"{self.url}/.well-known/private-token-issuer-directory", timeout=1) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.time() > deadline:
                raise RuntimeError("server not ready within 20 s")
            time.sleep(0.05)

    def stop(self):
        code = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            code = self.proc.returncode
            self.proc = None
            self.log.close()
        if self.base:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None
        return code


def http(method, url, body=None, headers=None):
    """(status, headers, body) without raising for 4xx/5xx."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


# --------------------------------------------------------------------------------------------
# The client, through the C ABI


def challenge_of(server, token_type):
    status, headers, _ = http("GET", f"{server.url}/private")
    assert status == 401, status
    # Repeated WWW-Authenticate lines joined with ", ", as HTTP libraries join them.
    header = ", ".join(headers.get_all("WWW-Authenticate") or []).encode()
    lst, c = P(), P()
    check(lib.pt_parse_challenges(header, len(header), ctypes.byref(lst)))
    try:
        check(lib.pt_challenge_list_find(lst, token_type, ctypes.byref(c)))
    finally:
        free("pt_challenge_list_free", lst)
    return c


def get_tokens(server, count):
    """Tokens from the server for its 0x0001 challenge: `count` 0 for one, else a batch."""
    c = challenge_of(server, PT_TOKEN_TYPE_1)
    body, ct, state = Buffer(), ctypes.c_char_p(), P()
    try:
        check(lib.pt_create_token_request(c, None, 0, count, ctypes.byref(body),
                                          ctypes.byref(ct), ctypes.byref(state)))
        request = take(body)
        status, headers, response = http("POST", f"{server.url}/token-request", request,
                                         {"Content-Type": ct.value.decode()})
        assert status == 200, (status, response[:200])
        tokens = BufferList()
        check(lib.pt_token_request_state_finalize(state, response, len(response),
                                                  ctypes.byref(tokens)))
        out = take_list(tokens)
        # The state is one-shot.
        again = BufferList()
        s = lib.pt_token_request_state_finalize(state, response, len(response),
                                                ctypes.byref(again))
        assert s == PT_STATE_CONSUMED, lib.pt_status_name(s)
        return out
    finally:
        free("pt_token_request_state_free", state)
        free("pt_challenge_free", c)


def arc_presentations(server):
    """An ARC credential for the server's 0xE5AC challenge, saved as bytes and restored, then
    every presentation its rate limit allows: the tokens."""
    c = challenge_of(server, PT_TOKEN_TYPE_ARC)
    body, ct, state, cred = Buffer(), ctypes.c_char_p(), P(), P()
    try:
        limit = ctypes.c_uint32()
        check(lib.pt_challenge_rate_limit(c, ctypes.byref(limit)))
        check(lib.pt_create_credential_request(c, None, 0, ctypes.byref(body), ctypes.byref(ct),
                                               ctypes.byref(state)))
        request = take(body)
        status, _, response = http("POST", f"{server.url}/token-request", request,
                                   {"Content-Type": ct.value.decode()})
        assert status == 200, (status, response[:200])
        check(lib.pt_credential_request_state_finalize(state, response, len(response),
                                                       ctypes.byref(cred)))
        # Persisted and restored (an app keeps it across launches).
        saved = Buffer()
        check(lib.pt_credential_to_bytes(cred, ctypes.byref(saved)))
        saved = take(saved)
        free("pt_credential_free", cred)
        cred = P()
        check(lib.pt_credential_from_bytes(saved, len(saved), ctypes.byref(cred)))
        tokens = []
        for _ in range(limit.value):
            t = Buffer()
            check(lib.pt_credential_present(cred, c, None, 0, 0, ctypes.byref(t)))
            tokens.append(take(t))
        t = Buffer()
        s = lib.pt_credential_present(cred, c, None, 0, 0, ctypes.byref(t))
        assert s == PT_LIMIT_EXCEEDED, lib.pt_status_name(s)
        return tokens
    finally:
        free("pt_credential_free", cred)
        free("pt_credential_request_state_free", state)
        free("pt_challenge_free", c)


def authorization(token):
    h = Buffer()
    check(lib.pt_authorization_header(token, len(token), ctypes.byref(h)))
    return take(h).decode()


def redeem_and_replay(server, token):
    auth = authorization(token)
    first, _, _ = http("GET", f"{server.url}/private", headers={"Authorization": auth})
    second, _, _ = http("GET", f"{server.url}/private", headers={"Authorization": auth})
    assert (first, second) == (200, 401), (first, second)


# --------------------------------------------------------------------------------------------
# ACT, through the C ABI

ACT = {"width": 16, "issue_credits": 100, "cost": 10, "max_top_up": 5}
ACT_TABLE = "\n[act]\nenabled = true\n" + "".join(f"{k} = {v}\n" for k, v in ACT.items())


def b64u(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def act_flow(server):
    """Issue, spend (200), spend the same credential again (409), finalize the first refund and
    spend its credential (200): the statuses and balances."""
    status, _, body = http("GET", f"{server.url}/.well-known/act-configuration")
    assert status == 200, status
    config = json.loads(body)
    assert config["ciphersuite"] == "ACTv1-P256-SHA256"
    key = config["keys"][0]
    kid, pk = b64u(key["key_id"]), b64u(key["public_key"])
    assert out_bytes("pt_act_key_id", pk, len(pk)) == kid
    ctx_cred, spend_ctx = b64u(key["credential_context"]), b64u(config["spend_context"])
    ctx = P()
    call("pt_act_context_new", ctx_cred, len(ctx_cred), config["width"], True, ctypes.byref(ctx))
    handles = []
    try:
        req, ist = Buffer(), P()
        call("pt_act_issue_request", ctypes.byref(req), ctypes.byref(ist))
        handles.append(("pt_act_issuance_state_free", ist))
        status, headers, resp = http("POST", f"{server.url}/act/issue", kid + take(req),
                                     {"Content-Type": "application/act-issue-request"})
        assert status == 200, (status, resp)
        cred = P()
        call("pt_act_issuance_state_finalize", ist, ctx, pk, len(pk), resp, len(resp),
             ctypes.byref(cred))
        handles.append(("pt_act_credential_free", cred))
        saved = out_bytes("pt_act_credential_to_bytes", cred)

        def spend(c):
            msg, st = Buffer(), P()
            call("pt_act_credential_prove_spend", c, ctx, config["cost"], 0, spend_ctx,
                 len(spend_ctx), ctypes.byref(msg), ctypes.byref(st))
            handles.append(("pt_act_spend_state_free", st))
            status, headers, body = http("POST", f"{server.url}/act/spend", kid + take(msg),
                                         {"Content-Type": "application/act-spend"})
            return status, headers.get("ACT-Spend"), body, st

        first = spend(cred)
        assert first[:2] == (200, "fresh"), first[:3]
        copy = P()
        call("pt_act_credential_from_bytes", saved, len(saved), ctypes.byref(copy))
        handles.append(("pt_act_credential_free", copy))
        second = spend(copy)
        assert second[:3] == (409, "replayed", first[2]), second[:2]
        nxt = P()
        call("pt_act_spend_state_finalize", first[3], ctx, pk, len(pk), first[2], len(first[2]),
             ctypes.byref(nxt))
        handles.append(("pt_act_credential_free", nxt))
        balance = ctypes.c_uint64()
        call("pt_act_credential_balance", nxt, ctypes.byref(balance))
        third = spend(nxt)
        assert third[:2] == (200, "fresh"), third[:3]
        return balance.value
    finally:
        for name, h in reversed(handles):
            free(name, h)
        free("pt_act_context_free", ctx)


def main():
    run = Runner()
    server = None
    try:
        server = Server(os.environ["PRIVACY_TOKENS_SERVER_BIN"])
        print(f"# server at {server.url} (subcommands: {server.subcommands})", flush=True)

        def single():
            (token,) = get_tokens(server, 0)
            assert len(token) == 2 + 32 + 32 + 32 + 48, len(token)
            redeem_and_replay(server, token)

        def batch():
            tokens = get_tokens(server, 3)
            assert len(tokens) == 3 and len(set(tokens)) == 3
            for t in tokens:
                redeem_and_replay(server, t)

        def forged():
            (token,) = get_tokens(server, 0)
            forged = token[:-1] + bytes([token[-1] ^ 1])
            status, _, _ = http("GET", f"{server.url}/private",
                                headers={"Authorization": authorization(forged)})
            assert status == 401, status

        def arc():
            tokens = arc_presentations(server)
            assert len(tokens) >= 2 and len(set(tokens)) == len(tokens), len(tokens)
            print(f"# ARC: {len(tokens)} presentations (the challenge's rate limit)", flush=True)
            for t in tokens:
                redeem_and_replay(server, t)

        run.test("smoke: a 0x0001 token from the server over HTTP, redeemed (200) and replayed (401)",
                 single)
        run.test("smoke: an amortized batch of 3 from the server, each redeemed once", batch)
        run.test("smoke: a token with a flipped authenticator bit is refused (401)", forged)
        run.test("smoke: an ARC credential from the server over HTTP, persisted and restored, "
                 "each of its presentations redeemed once", arc)
    except Exception:  # noqa: BLE001
        run.record("smoke: the server process starts", False)
        traceback.print_exc()
    finally:
        if server is not None:
            code = server.stop()
            run.record(f"smoke: the server exits 0 on SIGTERM (exit {code})", code == 0)
    act_server = None
    try:
        act_server = Server(os.environ["PRIVACY_TOKENS_SERVER_BIN"], ACT_TABLE)
    except RuntimeError as e:
        if "unknown field" not in act_server_output(e) or "act" not in act_server_output(e):
            run.record("smoke: the server starts with [act]", False)
            traceback.print_exc()
        else:
            print("# smoke: ACT skipped: the server has no ACT (it refuses the [act] table)",
                  flush=True)
    if act_server is not None:
        try:
            def act():
                balance = act_flow(act_server)
                print(f"# ACT: balance {balance} after spending {ACT['cost']} of "
                      f"{ACT['issue_credits']}", flush=True)

            run.test("smoke: an ACT credential from the server, spent (200), spent again (409, "
                     "the stored refund), its refund finalized and spent (200)", act)
        finally:
            code = act_server.stop()
            run.record(f"smoke: the ACT server exits 0 on SIGTERM (exit {code})", code == 0)
    return run.summary()


def act_server_output(e):
    return str(e)


if __name__ == "__main__":
    sys.exit(main())
