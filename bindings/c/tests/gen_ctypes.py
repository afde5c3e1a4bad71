"""Generates python/privacy_tokens.py, the ctypes declarations of the C ABI, from the header
(review BND-23): every function with its `argtypes` and `restype`, every `#define PT_*`
integer constant, and the `pt_buffer`, `pt_buffer_list` and `pt_slice` structs.

Usage: python3 gen_ctypes.py HEADER OUTPUT. test.sh regenerates it and diffs it against the
checked-in file (`--update-header` rewrites both).
"""

import re
import sys

# C parameter and return types -> ctypes expressions (handles are opaque: `c_void_p`).
SCALARS = {
    "bool": "ctypes.c_bool",
    "size_t": "ctypes.c_size_t",
    "uint8_t": "ctypes.c_uint8",
    "uint16_t": "ctypes.c_uint16",
    "uint32_t": "ctypes.c_uint32",
    "uint64_t": "ctypes.c_uint64",
    "int32_t": "ctypes.c_int32",
    "pt_status": "ctypes.c_int32",
}
POINTERS = {
    # Byte and text inputs accept `bytes` (or None for NULL).
    "const uint8_t *": "ctypes.c_char_p",
    "const char *": "ctypes.c_char_p",
    "const char **": "ctypes.POINTER(ctypes.c_char_p)",
    "const pt_slice *": "ctypes.POINTER(Slice)",
    "pt_buffer *": "ctypes.POINTER(Buffer)",
    "const pt_buffer *": "ctypes.POINTER(Buffer)",
    "pt_buffer_list *": "ctypes.POINTER(BufferList)",
    "bool *": "ctypes.POINTER(ctypes.c_bool)",
    "size_t *": "ctypes.POINTER(ctypes.c_size_t)",
    "uint8_t *": "ctypes.POINTER(ctypes.c_uint8)",
    "uint16_t *": "ctypes.POINTER(ctypes.c_uint16)",
    "const uint16_t *": "ctypes.POINTER(ctypes.c_uint16)",
    "uint32_t *": "ctypes.POINTER(ctypes.c_uint32)",
    "uint64_t *": "ctypes.POINTER(ctypes.c_uint64)",
}


def ctype(c):
    c = re.sub(r"\s+", " ", c.strip()).replace(" *", " *").replace("* *", "**")
    c = re.sub(r"\s*(\*+)$", r" \1", c)
    if c in SCALARS:
        return SCALARS[c]
    if c in POINTERS:
        return POINTERS[c]
    if c == "void":
        return "None"
    m = re.fullmatch(r"(const )?pt_\w+ (\*{1,2})", c)
    if m:  # a handle (`T *`) or a handle output (`T **`)
        return "ctypes.c_void_p" if m.group(2) == "*" else "ctypes.POINTER(ctypes.c_void_p)"
    raise SystemExit(f"gen_ctypes.py: no ctypes type for C type {c!r}")


def main():
    header, output = sys.argv[1], sys.argv[2]
    text = open(header, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    consts = re.findall(r"^#define (PT_\w+) (-?\d+)\s*$", text, flags=re.M)
    strings = re.findall(r'^#define (PT_\w+) ("[^"]*")\s*$', text, flags=re.M)
    decls = re.findall(r"^([A-Za-z_][\w \*]*?)\b(pt_\w+)\(([^;]*?)\);", text, flags=re.M | re.S)
    out = [
        '"""ctypes declarations of the privacy-tokens C ABI (generated from',
        "include/privacy_tokens.h by tests/gen_ctypes.py: do not edit; `bash bindings/c/test.sh",
        "--update-header` regenerates it).",
        "",
        "    import privacy_tokens as pt",
        '    lib = pt.load("libprivacy_tokens.so")   # every function with argtypes and restype',
        "    buf = pt.Buffer()",
        '    assert lib.pt_base64url_encode(b"hi", 2, ctypes.byref(buf)) == pt.PT_OK',
        "    lib.pt_buffer_free(ctypes.byref(buf))",
        "",
        "Byte and text inputs take `bytes` (or None for NULL with length 0); handles are",
        "`ctypes.c_void_p`, handle outputs `ctypes.byref(ctypes.c_void_p())`; integers are",
        "converted to each parameter's exact width (a Python int passed to a `uint64_t` is not",
        "truncated or misplaced on 32-bit or Apple arm64 targets, a `bool` is a `c_bool`).",
        '"""',
        "",
        "import ctypes",
        "",
    ]
    for name, value in consts:
        out.append(f"{name} = {value}")
    for name, value in strings:
        out.append(f"{name} = {value}")
    out += [
        "",
        "",
        "class Buffer(ctypes.Structure):",
        '    """`pt_buffer`: library-owned bytes, freed with `pt_buffer_free`."""',
        '    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("len", ctypes.c_size_t)]',
        "",
        "",
        "class BufferList(ctypes.Structure):",
        '    """`pt_buffer_list`: library-owned buffers, freed with `pt_buffer_list_free`."""',
        '    _fields_ = [("items", ctypes.POINTER(Buffer)), ("count", ctypes.c_size_t)]',
        "",
        "",
        "class Slice(ctypes.Structure):",
        '    """`pt_slice`: caller bytes lent for one call."""',
        '    _fields_ = [("data", ctypes.c_char_p), ("len", ctypes.c_size_t)]',
        "",
        "",
        "# name: (restype, argtypes)",
        "FUNCTIONS = {",
    ]
    for ret, name, params in decls:
        params = [p.strip() for p in params.split(",") if p.strip() and p.strip() != "void"]
        args = []
        for p in params:
            m = re.fullmatch(r"(.*?)\b(\w+)", p, flags=re.S)
            args.append(ctype(m.group(1)))
        out.append(f"    {name!r}: ({ctype(ret)}, [{', '.join(args)}]),")
    out += [
        "}",
        "",
        "",
        "def load(path):",
        '    """The shared library at `path` with every function\'s argtypes and restype set."""',
        "    lib = ctypes.CDLL(path)",
        "    for name, (restype, argtypes) in FUNCTIONS.items():",
        "        f = getattr(lib, name)",
        "        f.restype = restype",
        "        f.argtypes = argtypes",
        "    return lib",
        "",
    ]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
