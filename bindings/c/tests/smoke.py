"""Python ctypes smoke test of the C ABI (standard library only): the issuer server of server/
started as a real process (as bindings/wasm/test/support/server.mjs starts it), and Privacy
Pass 0x0001 tokens, one and an amortized batch, obtained from it over HTTP through
libprivacy_tokens.so, then redeemed at /private (200) and replayed (401).

Environment: PRIVACY_TOKENS_LIB (the shared library), PRIVACY_TOKENS_SERVER_BIN (the server
binary). Prints "ok - name" / "not ok - name" per test and "N passed, M failed"; exit 1 if any
failed.
"""

import ctypes
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

PT_OK = 0
PT_TOKEN_TYPE_1 = 1
PT_STATE_CONSUMED = 103


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_size_t)]


class BufferList(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(Buffer)), ("count", ctypes.c_size_t)]


lib = ctypes.CDLL(os.environ["PRIVACY_TOKENS_LIB"])
lib.pt_status_name.restype = ctypes.c_char_p
lib.pt_status_name.argtypes = [ctypes.c_int32]
P = ctypes.c_void_p
lib.pt_parse_challenges.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)]
lib.pt_challenge_list_find.argtypes = [P, ctypes.c_uint16, ctypes.POINTER(P)]
lib.pt_challenge_list_free.argtypes = [P]
lib.pt_challenge_free.argtypes = [P]
lib.pt_create_token_request.argtypes = [
    P, P, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(Buffer),
    ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(P)]
lib.pt_token_request_state_finalize.argtypes = [
    P, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(BufferList)]
lib.pt_token_request_state_free.argtypes = [P]
lib.pt_authorization_header.argtypes = [P, ctypes.c_size_t, ctypes.POINTER(Buffer)]
lib.pt_buffer_free.argtypes = [ctypes.POINTER(Buffer)]
lib.pt_buffer_list_free.argtypes = [ctypes.POINTER(BufferList)]
for f in ("pt_parse_challenges", "pt_challenge_list_find", "pt_create_token_request",
          "pt_token_request_state_finalize", "pt_authorization_header"):
    getattr(lib, f).restype = ctypes.c_int32


class PtError(Exception):
    def __init__(self, status):
        super().__init__(lib.pt_status_name(status).decode())
        self.status = status


def check(status):
    if status != PT_OK:
        raise PtError(status)


def take(buf):
    """The bytes of a library buffer, which is then freed."""
    try:
        return ctypes.string_at(buf.data, buf.len) if buf.len else b""
    finally:
        lib.pt_buffer_free(ctypes.byref(buf))


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

    def __init__(self, binary):
        self.binary = binary
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
        lib.pt_challenge_list_free(lst)
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
        try:
            out = [ctypes.string_at(tokens.items[i].data, tokens.items[i].len)
                   for i in range(tokens.count)]
        finally:
            lib.pt_buffer_list_free(ctypes.byref(tokens))
        # The state is one-shot.
        again = BufferList()
        s = lib.pt_token_request_state_finalize(state, response, len(response),
                                                ctypes.byref(again))
        assert s == PT_STATE_CONSUMED, lib.pt_status_name(s)
        return out
    finally:
        lib.pt_token_request_state_free(state)
        lib.pt_challenge_free(c)


def authorization(token):
    h = Buffer()
    check(lib.pt_authorization_header(token, len(token), ctypes.byref(h)))
    return take(h).decode()


def redeem_and_replay(server, token):
    auth = authorization(token)
    first, _, _ = http("GET", f"{server.url}/private", headers={"Authorization": auth})
    second, _, _ = http("GET", f"{server.url}/private", headers={"Authorization": auth})
    assert (first, second) == (200, 401), (first, second)


def main():
    results = []

    def test(name, fn, *args):
        try:
            fn(*args)
            results.append(True)
            print(f"ok - {name}", flush=True)
        except Exception:  # noqa: BLE001 (a failed test, reported)
            results.append(False)
            print(f"not ok - {name}", flush=True)
            traceback.print_exc()

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

        test("smoke: a 0x0001 token from the server over HTTP, redeemed (200) and replayed (401)",
             single)
        test("smoke: an amortized batch of 3 from the server, each redeemed once", batch)
        test("smoke: a token with a flipped authenticator bit is refused (401)", forged)
    except Exception:  # noqa: BLE001
        results.append(False)
        print("not ok - smoke: the server process starts", flush=True)
        traceback.print_exc()
    finally:
        if server is not None:
            code = server.stop()
            ok = code == 0
            results.append(ok)
            print(f"{'ok' if ok else 'not ok'} - smoke: the server exits 0 on SIGTERM (exit {code})")
    passed = sum(results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
