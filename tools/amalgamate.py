#!/usr/bin/env python3
"""Write the amalgamation: the whole library as one C file, onnxlegal.c, with the public headers
beside it (onnxlegal/*.h), as SQLite ships itself. `make amalgamation` runs it into
build/amalgamation; `cc -std=c11 -c onnxlegal.c` builds it with nothing else (libc and libm at
link time).

How the files are put together:
- The feature macros the Makefile passes (_DEFAULT_SOURCE, _FILE_OFFSET_BITS=64) are defined
  first, then every system header any source includes, then the public headers (as
  "onnxlegal/x.h", beside the file), then every internal header, each once, in the order the
  sources first include them (a header's own includes before it).
- Then each source file of the library, in the Makefile's order, its #includes of headers
  removed (they are above) and its .inc files inlined where it includes them.
- File scope is one scope now. A name that two source files each define at file scope (a static
  function or variable, a type, a struct/enum tag, an enum constant) would collide: each file
  that defines such a name is wrapped in `#define name name__<file>` ... `#undef name`, so
  every file keeps its own (the per-file #define/#undef scheme). Macros a source file defines
  are #undef'd after it. The list of renamed names is printed at the top of onnxlegal.c.
- clang's -Wunused-function is off over the internal headers (their static inline functions are
  in the main file now; a source file's own unused statics are still reported).
- The nanopb writer (lib/serialize/nanopb_writer.c) is inside `#ifdef OLG_WITH_NANOPB`: built
  only when asked (-DOLG_WITH_NANOPB and nanopb's headers on the include path), with its
  public header onnxlegal/nanopb.h beside the others.
- The configurations of onnxlegal/config.h (OLG_CONFIG_NO_READER, ...): each source file of a
  part (PARTS) is inside `#ifndef` its macro, and each public function it defines has a stub
  in `#ifdef` that macro at the end, generated from the definition's own signature, which
  returns OLG_ERR_UNSUPPORTED naming the function and the macro (the symbol set stays whole).

Usage (from the repository root): python3 tools/amalgamate.py [-o build/amalgamation]
Standard library only; deterministic.
"""

import argparse
import fnmatch
import glob
import os
import re
import shutil
import sys

ROOT = os.path.relpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NANOPB_SRC = "lib/serialize/nanopb_writer.c"
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]')
FEATURES = ["_DEFAULT_SOURCE", "_FILE_OFFSET_BITS 64"]


# The parts a configuration leaves out (onnxlegal/config.h): the macro, then its source files.
PARTS = [
    ("OLG_CONFIG_NO_READER", ["lib/serialize/pb_read*.c", "lib/serialize/pb_schema.c"]),
    ("OLG_CONFIG_NO_PROTOBUF_WRITER", ["lib/serialize/pb_writer.c", "lib/write_options.c"]),
    ("OLG_CONFIG_NO_LEGALIZE", ["lib/legalize*.c", "lib/lower*.c", "lib/registry.c",
                                "lib/profile*.c", "lib/function_keep.c", "lib/meaning.c",
                                "lib/passes/*.c", "symbolics/*.c", "opsets/*.c", "profiles/*.c"]),
    ("OLG_CONFIG_NO_CHECK", ["lib/check*.c", "lib/infer*.c", "lib/schema*.c", "lib/namestack.c",
                             "lib/function_inline.c"]),
    ("OLG_CONFIG_NO_PRINTERS", ["lib/text.c", "lib/dot.c"]),
    # files, external data: for the reader and the default writer, not the nanopb writer
    ("OLG_CONFIG_NO_READER) && defined(OLG_CONFIG_NO_PROTOBUF_WRITER",
     ["lib/serialize/pb_open.c", "lib/extref.c"]),
]
API_DEF = re.compile(r"^OLG_API\s+([^(]*?)\b(olg_\w+)\s*\(([^{;]*?)\)\s*\{", re.M | re.S)


def part_of(rel):
    for macro, pats in PARTS:
        if any(fnmatch.fnmatch(rel, p) for p in pats):
            return macro
    return None


# stubs of functions that take an argument over free it, as the real ones do whatever they return
TAKEN_ARGS = {"olg_legalize_consume": "olg_model_free(src); "}


# The zero a stub that returns no status gives back, by a helper of the width of its return type
# that sets the error and returns it: the stub is then a tail call (three instructions on
# aarch64), not a call with a frame and an unwind entry of its own. A conversion that changes
# the width (int64_t to int) is not a tail call, hence one helper per width. The helpers are
# emitted under the macros whose stubs use them (an unused static function is a warning).
ZERO_HELPERS = [  # (helper, its return type, the return types it serves)
    ("olg__left_out_int", "int", ("int", "int32_t", "olg_dtype")),
    ("olg__left_out_i64", "int64_t", ("int64_t", "size_t")),
    ("olg__left_out_ptr", "void *", ()),  # every pointer type
]


def zero_helper(ret):
    for helper, _, rets in ZERO_HELPERS:
        if ret in rets or (not rets and ret.endswith("*") and "(" not in ret):
            return helper
    return None


def stubs(bodies, used=None):
    """Stubs of the public functions of the parts left out: the same signature, no work. used,
    when given, gets {helper: [the macros whose stubs call it]}."""
    out = []
    for macro, _ in PARTS:
        fns = []
        shown = macro.replace(") && defined(", " and ")
        for rel, lines in bodies:
            if part_of(rel) != macro:
                continue
            text = "\n".join(strip_comments_keep_strings(lines))
            for m in API_DEF.finditer(text):
                ret, name, params = " ".join(m.group(1).split()), m.group(2), " ".join(m.group(3).split())
                if ret == "void":
                    body = ""
                elif ret == "olg_status":
                    body = TAKEN_ARGS.get(name, "") + "return olg__left_out(\"%s\", \"%s\");" % (name, shown)
                elif zero_helper(ret):
                    helper = zero_helper(ret)
                    cast = "" if helper == "olg__left_out_ptr" else "(%s)" % ret
                    body = "return %s%s(\"%s\", \"%s\");" % (cast, helper, name, shown)
                    if used is not None and macro not in used.setdefault(helper, []):
                        used[helper].append(macro)
                else:
                    zero = "NULL" if "*" in ret else "OLG_NO_VALUE" if ret == "olg_value" else "0"
                    body = "olg__left_out(\"%s\", \"%s\"); return %s;" % (name, shown, zero)
                fns.append("OLG_API %s %s(%s) { %s }" % (ret, name, params, body))
        if fns:
            out.append("#if defined(%s)" % macro)
            out.extend(fns)
            out.append("#endif /* %s */" % macro)
    return out


def strip_comments_keep_strings(lines):
    text = "\n".join(lines)
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return text.split("\n")


def rp(path):
    return os.path.normpath(os.path.relpath(path, ROOT))


def sources():
    """The library's sources in the Makefile's order (SRCS: sorted)."""
    pats = ["lib/*.c", "lib/*/*.c", "symbolics/*.c", "opsets/*.c", "profiles/*.c"]
    files = sorted({rp(p) for pat in pats for p in glob.glob(os.path.join(ROOT, pat))})
    return [f for f in files if f != NANOPB_SRC]


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read().splitlines()


def resolve(rel, inc):
    """(kind, path) of a quoted include in file rel: 'public' (onnxlegal/x.h), or 'internal'
    with the tree path: beside rel first, then -Ilib, as the compiler finds it."""
    if inc.startswith("onnxlegal/"):
        return "public", inc
    here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if os.path.exists(os.path.join(ROOT, here)):
        if here.startswith("include/onnxlegal/"):
            return "public", "onnxlegal/" + os.path.basename(here)
        return "internal", here
    lib = os.path.normpath(os.path.join("lib", inc))
    if os.path.exists(os.path.join(ROOT, lib)):
        return "internal", lib
    raise SystemExit("amalgamate: %s includes \"%s\", which is not in the tree" % (rel, inc))


class Amalgam:
    def __init__(self):
        self.system = []      # system headers, in first-seen order
        self.public = []      # public headers, in first-seen order
        self.headers = []     # (rel, lines) of internal headers, dependencies first
        self.seen = set()

    def note(self, rel, lines, keep_system=True):
        """Records the system, public and internal headers lines include (headers recursively);
        returns the lines without the #include lines of headers (.inc files are inlined)."""
        out = []
        for line in lines:
            m = INCLUDE.match(line)
            if not m:
                out.append(line)
                continue
            if m.group(1) == "<":
                if keep_system and m.group(2) not in self.system:
                    self.system.append(m.group(2))
                if not keep_system:
                    out.append(line)
                continue
            kind, path = resolve(rel, m.group(2))
            if kind == "public":
                if path not in self.public:
                    self.public.append(path)
            elif path.endswith(".inc"):
                out.append("/* ---- %s (included by %s) ---- */" % (path, rel))
                out.extend(self.note(path, read(path), keep_system))
                out.append("/* ---- end of %s ---- */" % path)
            elif path not in self.seen:
                self.seen.add(path)
                body = self.note(path, read(path))
                self.headers.append((path, body))
        return out


# File-scope definitions, as the project's sources write them (one declaration starts a line).
FUNC = re.compile(r"^static\s+(?:inline\s+)?[\w\s\*]*?\b(\w+)\s*\(")
VAR = re.compile(r"^(?:static\s+)(?:const\s+)?[\w\s\*]*?\b(\w+)\s*(?:\[[^\]]*\])*\s*(?:=|;)")
TYPEDEF = re.compile(r"^typedef\b.*?\b(\w+)\s*(?:\[[^\]]*\])?;\s*$")
TYPEDEF_FN = re.compile(r"^typedef\b[^(]*\(\s*\*\s*(\w+)\s*\)")
TAG = re.compile(r"^(?:typedef\s+)?(?:static\s+)?(?:const\s+)?(?:struct|union|enum)\s+(\w+)\s*\{")
CLOSE = re.compile(r"^\}\s*(\w+)\s*;")
ENUM_OPEN = re.compile(r"^(?:typedef\s+)?enum\b[^;]*\{")
ENUM_ITEM = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:=[^,]*)?,?\s*(?:/\*.*)?$")
MACRO = re.compile(r"^\s*#\s*define\s+(\w+)")


def strip_comments(lines):
    text = "\n".join(lines)
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', '""', text)  # literals: no braces
    return text.split("\n")


def file_scope_names(lines, statics_only=False):
    """Names a file defines at file scope, and the macros it defines. statics_only: only its
    static functions and variables and its enum constants (a header's types are the same types
    in every file that sees them: a source file may complete a struct a header declares)."""
    names, macros = set(), []
    depth = 0
    in_enum = False
    for line in strip_comments(lines):
        m = MACRO.match(line)
        if m:
            if m.group(1) not in macros:
                macros.append(m.group(1))
            continue
        if line.lstrip().startswith("#"):
            continue
        if depth == 0:
            for rx in ((FUNC, VAR) if statics_only else (TAG, TYPEDEF_FN, FUNC, VAR, TYPEDEF)):
                m = rx.match(line)
                if m:
                    names.add(m.group(1))
                    break
            if ENUM_OPEN.match(line):
                in_enum = True
                one = re.search(r"\{([^}]*)\}", line)  # an enum on one line
                if one:
                    for item in one.group(1).split(","):
                        m = re.match(r"\s*([A-Za-z_]\w*)", item)
                        if m:
                            names.add(m.group(1))
        elif depth == 1:
            m = CLOSE.match(line)
            if m and not statics_only:
                names.add(m.group(1))
            if in_enum:
                m = ENUM_ITEM.match(line)
                if m and m.group(1) not in ("struct", "union"):
                    names.add(m.group(1))
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            depth = 0
            in_enum = False
    return names, macros


def build(out_dir):
    am = Amalgam()
    bodies = []
    for rel in sources() + [NANOPB_SRC]:
        nanopb = rel == NANOPB_SRC
        bodies.append((rel, am.note(rel, read(rel), keep_system=not nanopb)))

    # the collisions: a name defined at file scope by two source files, or by a source file and
    # a header (the header's stays; every source file's own is renamed)
    defs = {}
    scans = {}
    for rel, lines in bodies:
        names, macros = file_scope_names(lines)
        scans[rel] = (names, macros)
        for n in names:
            defs.setdefault(n, []).append(rel)
    header_names = set()
    for _, lines in am.headers:
        header_names |= file_scope_names(lines, statics_only=True)[0]
    renamed = sorted(n for n, files in defs.items() if len(files) > 1 or n in header_names)

    out = []
    w = out.append
    w("/* onnxlegal amalgamation: the whole library in one C file, made by tools/amalgamate.py.")
    w(" * Do not edit: edit the source tree and run `make amalgamation`.")
    w(" *")
    w(" * Build: cc -std=c11 -c onnxlegal.c (the public headers are in onnxlegal/ beside it);")
    w(" * link with -lm. -DOLG_WITH_NANOPB adds the nanopb writer (nanopb's headers needed).")
    w(" * Parts can be left out with -DOLG_CONFIG_NO_READER, _NO_PROTOBUF_WRITER, _NO_LEGALIZE,")
    w(" * _NO_CHECK, _NO_PRINTERS or _MINIMAL (onnxlegal/config.h; docs/footprint.md gives the")
    w(" * sizes): their functions stay, returning OLG_ERR_UNSUPPORTED.")
    w(" *")
    w(" * Renamed per file (defined at file scope by more than one source file): %d names." % len(renamed))
    w(" */")
    for feat in FEATURES:
        name = feat.split()[0]
        w("#ifndef %s\n#define %s\n#endif" % (name, feat))
    for h in am.system:
        w("#include <%s>" % h)
    for h in am.public:
        if h != "onnxlegal/nanopb.h":
            w('#include "%s"' % h)
    # a header's static inline functions are in the main file now: clang's -Wunused-function
    # would name those a source file does not call
    w("#if defined(__clang__)\n#pragma clang diagnostic push\n"
      "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif")
    for path, lines in am.headers:
        w("/* ======== %s ======== */" % path)
        out.extend(lines)
    w("#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif")
    for rel, lines in bodies:
        nanopb = rel == NANOPB_SRC
        names, macros = scans[rel]
        stem = re.sub(r"\W", "_", os.path.splitext(rel)[0])
        mine = [n for n in renamed if n in names]
        w("/* ======== %s ======== */" % rel)
        part = part_of(rel)
        if part:
            w("#if !(defined(%s))" % part)
        if nanopb:
            w("#ifdef OLG_WITH_NANOPB")
            w('#include "onnxlegal/nanopb.h"')
        for n in mine:
            w("#define %s %s__%s" % (n, n, stem))
        out.extend(lines)
        for n in mine + [m for m in macros if m not in mine]:
            w("#undef %s" % n)
        if nanopb:
            w("#endif /* OLG_WITH_NANOPB */")
        if part:
            w("#endif /* %s */" % part)
    # the stubs: unused parameters are the point; olg__left_out only where a stub calls it
    w("/* ======== the stubs of the parts a configuration leaves out (onnxlegal/config.h) ======== */")
    w("#if " + " || ".join("defined(%s)" % m for m, _ in PARTS if ")" not in m))
    w("static olg_status olg__left_out(const char *fn, const char *macro) {")
    w('  return olg__err(OLG_ERR_UNSUPPORTED, "%s: not in this build of onnxlegal (%s)", fn, macro);')
    w("}")
    used = {}
    stub_lines = stubs(bodies, used)
    for helper, ret, _ in ZERO_HELPERS:
        if not used.get(helper):
            continue
        w("#if " + " || ".join("(defined(%s))" % m for m in used[helper]))
        # not inlined: -Os would put the helper's call and zero back into each stub
        w("#if defined(__GNUC__)\n__attribute__((noinline))\n#endif")
        w("static %s%s%s(const char *fn, const char *macro) {"
          % (ret, "" if ret.endswith("*") else " ", helper))
        w("  olg__left_out(fn, macro);")
        w("  return %s;" % ("NULL" if ret.endswith("*") else "0"))
        w("}")
        w("#endif")
    w("#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
      "#pragma GCC diagnostic ignored \"-Wunused-parameter\"\n#endif")
    out.extend(stub_lines)
    w("#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif")
    w("#endif")

    os.makedirs(os.path.join(out_dir, "onnxlegal"), exist_ok=True)
    with open(os.path.join(out_dir, "onnxlegal.c"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    for h in sorted(glob.glob(os.path.join(ROOT, "include", "onnxlegal", "*.h"))):
        shutil.copyfile(h, os.path.join(out_dir, "onnxlegal", os.path.basename(h)))
    return renamed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out-dir", default=os.path.join(ROOT, "build", "amalgamation"))
    a = ap.parse_args(argv)
    renamed = build(a.out_dir)
    print("amalgamate: %s/onnxlegal.c (%d names renamed per file)" % (a.out_dir, len(renamed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
