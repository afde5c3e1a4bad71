"""Checks on include/privacy_tokens.h and the shared library (standard library only):

- every function, constant, handle type and struct field of the header has a doc comment;
- every handle type's comment states its thread safety, and every handle has its `_free`;
- every function returns a `pt_status` (but the `_free`s and `pt_status_name` /
  `pt_suite_name`) and shares the prefix `pt_`, and the shared library exports exactly the
  header's functions (`nm -D`), no more, no fewer;
- every function of the header is called by at least one C test (tests/*.c);
- the ABI identity (review BND-6): `const char *pt_version(void)`, `uint32_t
  pt_abi_version(void)`, `#define PT_ABI_VERSION` and `PT_VERSION_MAJOR` / `_MINOR` / `_PATCH`
  are declared, and the shared library's `pt_abi_version()` and `pt_version()` agree with the
  header's macros.

Usage: PRIVACY_TOKENS_LIB=LIBRARY.so python3 header_check.py HEADER [--no-library]. Prints
"ok - ..." / "not ok - ..." per check and "N passed, M failed"; exits 1 if any failed. Controls (test.sh runs both; each must
report exactly 1 failed): --control=nodoc checks the header with the doc comment of
pt_buffer_copy removed, --control=nothread with the thread-safety sentence of pt_credential
removed.
"""

import os
import re
import subprocess
import sys

from ptlib import Runner

def declarations(text):
    """(doc comment or None, declaration) for each top-level declaration, struct field and
    #define of the header (the file's opening comment and preprocessor guards left out)."""
    body = text.split("#define PRIVACY_TOKENS_H", 1)[1]
    out = []
    pending = None
    # Doc comments, then the code up to the next doc comment.
    for part in re.split(r"(/\*\*(?:(?!\*/).)*\*/)", body, flags=re.S):
        if part.startswith("/**"):
            pending = part
            continue
        for i, line in enumerate(l for l in part.split("\n") if l.strip()):
            out.append((pending if i == 0 else None, line))
        pending = None
    return out


def check(header, library, runner, control=None):
    def record(name, ok, detail):
        runner.record(name, bool(ok))
        if not ok:
            print(f"  {detail}")

    text = open(header, encoding="utf-8").read()
    if control == "nodoc":
        text, n = re.subn(r"/\*\*(?:(?!\*/).)*\*/\n(pt_status pt_buffer_copy\()", r"\1", text,
                          flags=re.S)
        assert n == 1
    elif control == "nothread":
        text, n = re.subn(r" Thread safety: `pt_credential_present` needs the credential\n"
                          r" \* to itself; the other functions may share it\.", "", text)
        assert n == 1
    decls = declarations(text)

    def named(pattern):
        return [(doc, m.group(1)) for doc, line in decls for m in [re.match(pattern, line)] if m]

    functions = named(r"^(?!typedef )[A-Za-z_][\w \*]*?\b(\w+)\(")
    constants = named(r"^#define (PT_\w+) ")
    handles = named(r"^typedef struct (\w+) \1;$")
    types = named(r"^typedef (?!struct pt_)[\w ]*?(\w+|\{)( \w+)?;?$")
    fields = named(r"^  [\w \*]+?\b(\w+);$")

    def all_documented(what, items):
        missing = [n for doc, n in items if doc is None]
        record(f"every {what} has a doc comment ({len(items)})", not missing and items,
                     missing)

    all_documented("function", functions)
    all_documented("constant", constants)
    all_documented("handle type", handles)
    all_documented("other type", types)
    all_documented("struct field", fields)
    unsafe = [n for doc, n in handles if doc is None or "thread" not in doc.lower()]
    record(f"every handle type states its thread safety ({len(handles)})",
                 not unsafe and handles, unsafe)
    names = {n for _, n in functions}
    no_free = [n for _, n in handles if n + "_free" not in names]
    record("every handle type has its _free", not no_free, no_free)
    returns = {m.group(2): m.group(1).strip() for _, line in decls
               for m in [re.match(r"^(?!typedef )([A-Za-z_][\w \*]*?)\b(\w+)\(", line)] if m}
    # Every function returns a pt_status but the frees (void), the two name lookups and the two
    # version functions.
    odd = sorted(n for n, r in returns.items()
                 if r != "pt_status" and not (r == "void" and n.endswith("_free"))
                 and not (r == "const char *" and n in ("pt_status_name", "pt_suite_name",
                                                         "pt_version"))
                 and not (r == "uint32_t" and n == "pt_abi_version"))
    record(f"every function returns a pt_status but the _frees, the name lookups and versions "
           f"({sum(r == 'pt_status' for r in returns.values())})", not odd and returns, odd)
    unprefixed = sorted(n for n in names if not n.startswith("pt_"))
    record(f"every function has the prefix pt_ ({len(names)})", not unprefixed and names,
                 unprefixed)
    # Every function is called by a C test (tests/*.c beside this file).
    here = os.path.dirname(os.path.abspath(__file__))
    c_tests = "".join(open(os.path.join(here, f), encoding="utf-8").read()
                      for f in sorted(os.listdir(here)) if f.endswith(".c"))
    uncalled = sorted(n for n in names if not re.search(rf"\b{n}\(", c_tests))
    record("every function is called by a C test (tests/*.c)", not uncalled and names, uncalled)
    # The ABI identity: version functions and macros.
    macros = {m.group(1): m.group(2) for m in
              re.finditer(r"^#define (PT_ABI_VERSION|PT_VERSION_\w+) (\S+)", text, flags=re.M)}
    version_decls = [returns.get("pt_version") == "const char *",
                     returns.get("pt_abi_version") == "uint32_t",
                     re.search(r"\bpt_version\(void\);", text) is not None,
                     re.search(r"\bpt_abi_version\(void\);", text) is not None]
    wanted = ["PT_ABI_VERSION", "PT_VERSION_MAJOR", "PT_VERSION_MINOR", "PT_VERSION_PATCH",
              "PT_VERSION_STRING"]
    record("the header declares pt_version(), pt_abi_version(), PT_ABI_VERSION and "
           "PT_VERSION_*", all(version_decls) and all(w in macros for w in wanted),
           {"declarations (pt_version, pt_abi_version, (void), (void))": version_decls,
            "macros": macros})
    if library:
        import ctypes
        lib = ctypes.CDLL(library)
        try:
            lib.pt_abi_version.restype = ctypes.c_uint32
            lib.pt_abi_version.argtypes = []
            lib.pt_version.restype = ctypes.c_char_p
            lib.pt_version.argtypes = []
            abi, version = lib.pt_abi_version(), lib.pt_version().decode()
        except AttributeError as e:
            abi, version = None, str(e)
        expected = ".".join(macros.get(f"PT_VERSION_{k}", "?") for k in
                            ("MAJOR", "MINOR", "PATCH"))
        record("the library's pt_abi_version() and pt_version() match the header's macros",
               str(abi) == macros.get("PT_ABI_VERSION", "").rstrip("uU") and version == expected
               and macros.get("PT_VERSION_STRING") == f'"{expected}"',
               {"pt_abi_version()": abi, "pt_version()": version, "macros": macros})
        nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True,
                            text=True, check=True).stdout
        exported = {l.split()[-1] for l in nm.splitlines() if l.split()[-2:-1] == ["T"]}
        record(f"the shared library exports exactly the header's functions ({len(exported)})",
                     exported == names,
                     {"not in header": sorted(exported - names),
                      "not exported": sorted(names - exported)})


def main():
    runner = Runner()
    library = None if "--no-library" in sys.argv else os.environ["PRIVACY_TOKENS_LIB"]
    control = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--control=")), None)
    check(sys.argv[1], library, runner, control)
    sys.exit(runner.summary())


if __name__ == "__main__":
    main()
