"""What the Python tests share: the shared library loaded with ctypes (PRIVACY_TOKENS_LIB),
its buffer structs, and a tiny runner printing "ok - name" / "not ok - name" and the closing
"N passed, M failed"."""

import ctypes
import os
import sys
import traceback

PT_OK = 0


# The generated declarations (python/privacy_tokens.py): every function with its argtypes and
# restype, so each argument is converted to its parameter's exact C type.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import privacy_tokens as pt  # noqa: E402

Buffer, BufferList, Slice = pt.Buffer, pt.BufferList, pt.Slice
lib = pt.load(os.environ["PRIVACY_TOKENS_LIB"])


class PtError(Exception):
    """A call that returned another status than PT_OK."""

    def __init__(self, name, status):
        super().__init__(f"{name}: {lib.pt_status_name(status).decode()}")
        self.status = status


def call(name, *args):
    """Calls `name`, raising PtError unless it returns PT_OK (its argtypes, from the generated
    module, convert each argument to its parameter's C type)."""
    s = getattr(lib, name)(*args)
    if s != PT_OK:
        raise PtError(name, s)


def take(buf):
    """The bytes of a filled buffer, which is then freed."""
    try:
        return ctypes.string_at(buf.data, buf.len) if buf.len else b""
    finally:
        lib.pt_buffer_free(ctypes.byref(buf))


def take_list(lst):
    """The byte strings of a filled buffer list, which is then freed."""
    try:
        return [ctypes.string_at(lst.items[i].data, lst.items[i].len) for i in range(lst.count)]
    finally:
        lib.pt_buffer_list_free(ctypes.byref(lst))


def out_bytes(name, *args):
    """Calls `name(*args, &buffer)`: the buffer's bytes."""
    b = Buffer()
    call(name, *args, ctypes.byref(b))
    return take(b)


def free(name, handle):
    """Frees a handle with its `pt_*_free`."""
    getattr(lib, name)(handle)


class Runner:
    """Runs named tests; `summary()` prints the closing line and gives the exit code."""

    def __init__(self):
        self.results = []

    def record(self, name, ok):
        self.results.append(ok)
        print(f"{'ok' if ok else 'not ok'} - {name}", flush=True)

    def test(self, name, fn, *args):
        try:
            fn(*args)
            self.record(name, True)
        except Exception:  # noqa: BLE001 (a failed test, reported)
            self.record(name, False)
            traceback.print_exc()

    def summary(self):
        passed = sum(self.results)
        failed = len(self.results) - passed
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
