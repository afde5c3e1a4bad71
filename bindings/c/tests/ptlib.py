"""What the Python tests share: the shared library loaded with ctypes (PRIVACY_TOKENS_LIB),
its buffer structs, and a tiny runner printing "ok - name" / "not ok - name" and the closing
"N passed, M failed"."""

import ctypes
import os
import traceback

PT_OK = 0


class Buffer(ctypes.Structure):
    """`pt_buffer`."""
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_size_t)]


class BufferList(ctypes.Structure):
    """`pt_buffer_list`."""
    _fields_ = [("items", ctypes.POINTER(Buffer)), ("count", ctypes.c_size_t)]


class Slice(ctypes.Structure):
    """`pt_slice`."""
    _fields_ = [("data", ctypes.c_char_p), ("len", ctypes.c_size_t)]


lib = ctypes.CDLL(os.environ["PRIVACY_TOKENS_LIB"])
lib.pt_status_name.restype = ctypes.c_char_p
lib.pt_status_name.argtypes = [ctypes.c_int32]
lib.pt_buffer_free.argtypes = [ctypes.POINTER(Buffer)]
lib.pt_buffer_list_free.argtypes = [ctypes.POINTER(BufferList)]


class PtError(Exception):
    """A call that returned another status than PT_OK."""

    def __init__(self, name, status):
        super().__init__(f"{name}: {lib.pt_status_name(status).decode()}")
        self.status = status


def call(name, *args):
    """Calls `name`, raising PtError unless it returns PT_OK. Python ints go as size_t (a full
    register or 8-byte stack slot on x86-64 and aarch64, so they also fill the narrower integer
    parameters)."""
    f = getattr(lib, name)
    f.restype = ctypes.c_int32
    s = f(*(ctypes.c_size_t(a) if isinstance(a, int) else a for a in args))
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
    f = getattr(lib, name)
    f.argtypes = [ctypes.c_void_p]
    f(handle)


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
