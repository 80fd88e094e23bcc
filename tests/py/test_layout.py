"""The layering rules of docs/architecture.md, checked over the source tree.

- The core (lib/) never reaches up: no file under lib/ includes a header of symbolics/,
  opsets/ or profiles/, and no object of lib/ uses a symbol one of theirs defines (what the
  core needs from above is handed to it: the built-in registry carries the built-in profiles).
- profiles/ reach the lowering only through lib/profile.h's accessors (no `cx->`).
- The parts above the core (symbolics/, opsets/, profiles/) include only the lib/ headers that
  make up the core's interface for them (ALLOWED_LIB_HEADERS), by the path "../lib/<header>"
  (the Makefile compiles them without -Ilib).
- No file under lib/, symbolics/, opsets/ or profiles/ is over 1,000 lines, except generated
  ones (lib/schemas_gen.c).
- symbolics/: one function per meaning, which asks the target's schema what it offers
  (olg__target_has, olg__op_takes, ...), so only the emit helpers (symbolics/emit*.c, whose job
  is the encoding at the target opset) ask the opset number; per-opset capability functions
  (olg__sym_*_opsetNN) are not added (one is left); a family file never includes another family's header nor
  calls another family's symbolic; definitions are visible by name; no file over 1,000 lines.
- opsets/: one list (OLG_OPSETS in opsets/opsets.h) names every opset.
- bindings/python/onnxlegal: no module over 1,000 lines; no import cycle between its modules
  (imports inside functions count).
"""
import glob
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPPER = ("symbolics", "opsets", "profiles")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(top):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".inc")):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def includes(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


def resolve(rel, inc):
    """The tree path a quoted #include of file rel names: beside rel first, then -Ilib."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if os.path.exists(os.path.join(ROOT, here)):
        return here
    in_lib = os.path.normpath(os.path.join("lib", inc))
    if os.path.exists(os.path.join(ROOT, in_lib)):
        return in_lib
    return inc  # generated (onnx.pb-c.h) or public (onnxlegal/...)


def test_the_tree_is_there():
    assert list(sources("lib")) and list(sources("symbolics")), ROOT


def test_lib_includes_nothing_above_it():
    bad = []
    for rel in sources("lib"):
        for inc in includes(rel):
            target = resolve(rel, inc)
            if target.split(os.sep)[0] in UPPER:
                bad.append("%s includes %s" % (rel, inc))
    assert not bad, "the core (lib/) must not include the parts above it:\n" + "\n".join(bad)


def _build_objects(part):
    build = os.environ.get("ONNXLEGAL_BUILD") or os.path.join(ROOT, "build")
    objs = [os.path.join(build, "obj", rel[:-2] + ".o") for rel in sources(part)
            if rel.endswith(".c") and not rel.endswith("nanopb_writer.c")]
    # (of today's sources: a stale object of a moved file is not linked; the nanopb writer is
    # built only with NANOPB=1)
    missing = [o for o in objs if not os.path.exists(o)]
    assert objs and not missing, "run `make all` first: missing %s" % ", ".join(missing[:3])
    return objs


def _nm(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def test_lib_links_nothing_above_it():
    upper = {}
    for part in UPPER:
        for obj in _build_objects(part):
            for sym in _nm(obj, "-g", "--defined-only"):
                upper[sym] = os.path.relpath(obj, ROOT)
    bad = []
    for obj in _build_objects("lib"):
        for sym in sorted(_nm(obj, "-u") & set(upper)):
            bad.append("%s uses %s (defined by %s)" % (os.path.relpath(obj, ROOT), sym, upper[sym]))
    assert not bad, "the core (lib/) must not use symbols of the parts above it:\n" + "\n".join(bad)


def test_profiles_use_the_accessors():
    bad = ["%s:%d" % (rel, i + 1) for rel in sources("profiles")
           for i, line in enumerate(open(os.path.join(ROOT, rel), encoding="utf-8"))
           if "cx->" in _strip_comments(line)]
    assert not bad, "profiles/ reach into olg_lower; use lib/profile.h's accessors:\n" + "\n".join(bad)


# The core's interface for each part above it (paths under lib/).
ALLOWED_LIB_HEADERS = {
    "symbolics": {"lower.h", "ir.h", "schema.h"},
    "opsets": {"lower.h", "schema.h"},
    "profiles": {"lower.h", "profile.h", "passes/passes.h", "schema.h"},
}


def test_upper_parts_include_only_the_core_interface():
    bad = []
    for part in UPPER:
        for rel in sources(part):
            for inc in includes(rel):
                target = resolve(rel, inc)
                if not target.startswith("lib" + os.sep):
                    continue
                header = target[len("lib" + os.sep):]
                if header not in ALLOWED_LIB_HEADERS[part]:
                    bad.append("%s includes lib/%s (allowed: %s)" % (
                        rel, header, ", ".join(sorted(ALLOWED_LIB_HEADERS[part]))))
                elif not inc.startswith("../"):
                    bad.append('%s includes "%s": spell it "%s"' % (
                        rel, inc, os.path.relpath(target, os.path.dirname(rel))))
    assert not bad, "\n".join(bad)


# ---- symbolics/ and opsets/ (h-sym) ----
SYM = os.path.join(ROOT, "symbolics")
MAX_LINES = 1000
# Generated files are exempt from the size rule.
GENERATED = {"lib/schemas_gen.c", "lib/serialize/pb_schema.c", "lib/serialize/pb_schema.h"}


def _rel(p):
    return os.path.relpath(p, ROOT)


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _is_emit(path):
    return os.path.basename(path).startswith("emit")


def _family_files():
    return [p for p in sorted(glob.glob(os.path.join(SYM, "*.c"))) if not _is_emit(p)]


# Asking the target (or source) opset, or comparing anything named *opset* with <, >, ==, ...
_OPSET_CALL = re.compile(r"\b(olg__opset|olg_lower_opset|olg_lower_source_opset)\s*\(")
_OPSET_CMP = re.compile(r"\w*opset\w*(\s*\([^()]*\))?\s*(<=|>=|==|!=|<|>)(?!>)"
                        r"|(<=|>=|==|!=|<|>)\s*\w*opset\w*\b")


# Family files whose opset tests are still being moved into emit helpers / per-opset functions
# (issue 8): empty since onnx.c's moved (emit_src.c decodes the source; per-opset functions in
# opsets/opsetNN.c say what the target offers). It stays empty.
PENDING = set()


def test_no_opset_test_outside_emit_helpers():
    bad = []
    for p in _family_files():
        if os.path.basename(p) in PENDING:
            continue
        for n, line in enumerate(_strip_comments(open(p).read()).split("\n"), 1):
            if _OPSET_CALL.search(line) or _OPSET_CMP.search(line):
                bad.append("%s:%d: %s" % (_rel(p), n, line.strip()))
    assert not bad, ("opset tests belong in emit helpers (encoding) or in a symbolic registered "
                     "in opsets/opsetNN.c (meaning):\n" + "\n".join(bad))


def test_family_files_include_no_other_family():
    allowed = {"symbolics.h"}  # the declarations the opsets/ tables register
    bad = []
    for p in sorted(glob.glob(os.path.join(SYM, "*.[ch]"))):
        for inc in re.findall(r'#include\s+"([^"]+)"', open(p).read()):
            name = os.path.basename(inc)
            local = os.path.exists(os.path.join(SYM, name))
            if local and not name.startswith("emit") and name not in allowed:
                bad.append("%s includes %s" % (_rel(p), inc))
    assert not bad, "\n".join(bad)
    # and the only headers under symbolics/ are emit helper headers and the declarations
    headers = {os.path.basename(h) for h in glob.glob(os.path.join(SYM, "*.h"))}
    assert {h for h in headers if not h.startswith("emit")} <= allowed, headers


def test_family_files_call_no_other_familys_symbolic():
    defined = {}
    for p in _family_files():
        for name in re.findall(r"^olg_status (olg__sym_\w+)\(olg_lower \*cx", open(p).read(), re.M):
            defined[name] = p
    assert len(defined) > 200, "symbolic definitions not found: are they still spelled out?"
    bad = []
    for p in _family_files():
        body = _strip_comments(open(p).read())
        for name in set(re.findall(r"\b(olg__sym_\w+)\s*\(cx", body)):
            if defined.get(name, p) != p:
                bad.append("%s calls %s (defined in %s)" % (_rel(p), name, _rel(defined[name])))
    assert not bad, "\n".join(bad)


def test_symbolic_definitions_visible_by_name():
    """Definitions spell the signature out (grep 'olg__sym_view(' finds them); no macro defines
    a symbolic."""
    bad = []
    for p in sorted(glob.glob(os.path.join(SYM, "*.c"))):
        text = open(p).read()
        for m in re.finditer(r"^\s*OLG_SYMBOLIC\(.*$|^#define\s+\w+\(.*\\\n(.*\\\n)*.*$", text, re.M):
            if m.group(0).lstrip().startswith("OLG_SYMBOLIC") or "olg_node_id" in m.group(0) \
                    or "OLG_SYMBOLIC" in m.group(0):
                bad.append("%s: %s" % (_rel(p), m.group(0).split("\n")[0]))
    assert not bad, "write the signature out at definitions:\n" + "\n".join(bad)


def test_no_file_over_1000_lines():
    bad = []
    for d in ("lib",) + UPPER:
        for rel in sources(d):
            if rel in GENERATED:
                continue
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                n = sum(1 for _ in f)
            if n > MAX_LINES:
                bad.append("%s: %d lines" % (rel, n))
    assert not bad, "split these by concept (docs/architecture.md):\n" + "\n".join(bad)


def test_one_list_of_opsets():
    """Every opsets/opsetNN.c is in OLG_OPSETS and the reverse, and nothing else lists them."""
    header = open(os.path.join(ROOT, "opsets", "opsets.h")).read()
    listed = re.findall(r"X\((\d\d), (\d+)\)", header)
    files = sorted(re.findall(r"opset(\d\d)\.c$", p)[0]
                   for p in glob.glob(os.path.join(ROOT, "opsets", "opset[0-9][0-9].c")))
    assert [nn for nn, _ in listed] == files
    assert all(int(nn) == int(n) for nn, n in listed)
    nums = [int(n) for _, n in listed]
    assert nums == list(range(nums[0], nums[-1] + 1))
    reg = open(os.path.join(ROOT, "include", "onnxlegal", "registry.h")).read()
    assert re.search(r"#define OLG_LOWER_OPSET_MAX %d\b" % nums[-1], reg)
    tables = open(os.path.join(ROOT, "opsets", "opsets.c")).read()
    assert "olg__opset07" not in tables, "opsets.c must build its table from OLG_OPSETS"


# ---- the Python package ----
PKG = os.path.join(ROOT, "bindings", "python", "onnxlegal")


def _py_modules():
    return {os.path.basename(p)[:-3]: p for p in sorted(glob.glob(os.path.join(PKG, "*.py")))}


def _py_imports(path, mods):
    """The package modules a module imports, at its top or inside a function (both make a cycle
    a reader must untangle): `from .m import x` and `from . import m, n`."""
    out = set()
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^\s*from\s+\.(\w*)\s+import\s+(\([^)]*\)|[^\n]*)", text, re.M):
        if m.group(1):
            out.add(m.group(1))
        else:
            names = re.sub(r"#[^\n]*", "", m.group(2)).strip("() \n")
            out.update(n.strip().split(" as ")[0] for n in names.split(",") if n.strip())
    return {m for m in out if m in mods}


def test_python_modules_are_small():
    bad = ["%s: %d lines" % (os.path.relpath(p, ROOT), sum(1 for _ in open(p, encoding="utf-8")))
           for p in _py_modules().values()]
    bad = [b for b in bad if int(b.rsplit(": ", 1)[1].split()[0]) > MAX_LINES]
    assert not bad, "split these by concept:\n" + "\n".join(bad)


def test_python_imports_have_no_cycle():
    mods = _py_modules()
    graph = {m: _py_imports(p, mods) - {m} for m, p in mods.items()}
    assert graph["_torch_trace"] >= {"_torch_graph", "_torch_script"}, graph["_torch_trace"]
    cycles, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                cycles.append(" -> ".join(stack[stack.index(n):] + [n]))
            elif n not in state:
                visit(n, stack + [n])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles in bindings/python/onnxlegal:\n" + "\n".join(cycles)


_ROW = re.compile(r'^\s*\{"([^"]*)", "([^"]+)",.*\},(\s*/\*.*\*/)?\s*$')


def test_opset_rows_sorted_within_a_family():
    """opsets/opsets.h: rows are grouped by family (a comment line between groups), sorted by
    (domain, op) inside one -- checked over every run of consecutive rows."""
    bad = []
    for p in sorted(glob.glob(os.path.join(ROOT, "opsets", "opset[0-9][0-9].c"))):
        run = []
        for line in open(p, encoding="utf-8").read().split("\n") + [""]:
            m = _ROW.match(line)
            if m:
                run.append(m.group(1, 2))
                continue
            if run != sorted(run):
                bad.append("%s: %s" % (_rel(p), ", ".join(o for _, o in run)))
            run = []
    assert not bad, "sort these rows by (domain, op):\n" + "\n".join(bad)


def test_no_new_capability_wrappers():
    """One function per meaning (issue 27): the per-opset capability functions went; the one
    left, select's at 11, is Gather-11's negative indices, which no schema query shows."""
    found = set()
    for rel in list(sources("symbolics")) + list(sources("opsets")):
        found |= set(re.findall(r"olg__sym_\w+_opset\d+", open(os.path.join(ROOT, rel)).read()))
    assert found <= {"olg__sym_select_opset11"}, sorted(found)

