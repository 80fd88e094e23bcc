#!/usr/bin/env python3
"""Generate lib/schemas_gen.c, the ONNX operator schema tables, from ONNX's
operator changelog (Changelog.md, and Changelog-ml.md when it is present, else
the ai.onnx.ml facts of tools/data/ai_onnx_ml_schemas.json).

Only facts are taken from the markdown: operator names, since-versions, the
deprecated mark, attribute names/types/defaults/required, input and output
names with their options, arity ranges, and type-constraint names with their
allowed type strings. No prose is copied.

Usage (from the repository root):
    python3 tools/gen_schemas.py [-o lib/schemas_gen.c] [--json OUT]
                                 [--versioning Versioning.md]
                                 [--ml-facts JSON | --no-ml-facts] [CHANGELOG ...]

Without CHANGELOG arguments it reads ../shared/onnx-spec/Changelog.md and,
if it exists, ../shared/onnx-spec/Changelog-ml.md. When no changelog read
defines ai.onnx.ml, that domain comes from the facts file written by
tools/extract_ml_facts.py (the shared spec has no Changelog-ml.md; ONNX keeps
that history in a separate file). The released opset of each
domain is read from the "Released Versions" table of Versioning.md beside the
first changelog (or --versioning), when present.

Standard library only. The output is deterministic.
"""

import argparse
import html
import json
import os
import re
import sys

# defaults are relative to the repository root, wherever the script is run from
REPO_ROOT = os.path.relpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SPEC_DIR = os.path.join(REPO_ROOT, "..", "shared", "onnx-spec")
DEFAULT_OUT = os.path.join(REPO_ROOT, "lib", "schemas_gen.c")
DEFAULT_ML_FACTS = os.path.join(REPO_ROOT, "tools", "data", "ai_onnx_ml_schemas.json")

# AttributeProto.AttributeType numbering, keyed by the changelog's spelling.
ATTR_TYPES = {
    "float": (1, "FLOAT"),
    "int": (2, "INT"),
    "string": (3, "STRING"),
    "tensor": (4, "TENSOR"),
    "graph": (5, "GRAPH"),
    "list of floats": (6, "FLOATS"),
    "list of ints": (7, "INTS"),
    "list of strings": (8, "STRINGS"),
    "list of tensors": (9, "TENSORS"),
    "list of graphs": (10, "GRAPHS"),
    "sparse_tensor": (11, "SPARSE_TENSOR"),
    "list of sparse_tensors": (12, "SPARSE_TENSORS"),
    "type_proto": (13, "TYPE_PROTO"),
    "list of type_protos": (14, "TYPE_PROTOS"),
}

# TensorProto.DataType numbering, keyed by the element type name of "tensor(<name>)".
DTYPES = {
    "float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
    "string": 8, "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13,
    "complex64": 14, "complex128": 15, "bfloat16": 16, "float8e4m3fn": 17,
    "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20, "uint4": 21, "int4": 22,
    "float4e2m1": 23, "float8e8m0": 24, "uint2": 25, "int2": 26,
}

# Domains whose released opset is taken from Versioning.md's table; the other
# columns of that table (ai.onnx.training) name no domain of the changelog.
VERSIONED_DOMAINS = ("", "ai.onnx.ml")

OPTION_NAMES = ("single", "optional", "variadic")
OPTION_C = ("OLG_FORMAL_SINGLE", "OLG_FORMAL_OPTIONAL", "OLG_FORMAL_VARIADIC")

RE_DOMAIN = re.compile(r"^# (\S+)(?: \(default\))?\s*$")
RE_OPSET = re.compile(r"^## Version (\d+) of ")
RE_OP = re.compile(r'^### <a name="([^"]+)"></a>\*\*([^*]+)\*\*( \(deprecated\))?</a>\s*$')
RE_SECTION = re.compile(r"^#### ([A-Za-z ]+?)(?: \((\d+) - (\d+|&#8734;|\u221e)\))?\s*$")
RE_SINCE = re.compile(r"(available|deprecated) since version (\d+) of ")
RE_FORMAL = re.compile(r"^<dt><tt>(.*?)</tt>(?: \(([^)]*)\))? : (.+)</dt>\s*$")
RE_ATTR = re.compile(r"^<dt><tt>(.*?)</tt> : (.+?)(?: \(default is (.*)\)| \((required)\))?</dt>\s*$")
RE_TC = re.compile(r"^<dt><tt>(.*?)</tt> : (.+)</dt>\s*$")
RE_VERSIONS_HEAD = re.compile(r"^ONNX version\|")

UNBOUNDED = -1


class SpecError(Exception):
    pass


def split_types(s):
    """Split 'a, map(int64, float), b' at top-level commas."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise SpecError("unbalanced parentheses in type list: " + s)
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise SpecError("unbalanced parentheses in type list: " + s)
    out.append("".join(cur).strip())
    if any(not t for t in out):
        raise SpecError("empty type in list: " + s)
    return out


def tensor_mask(types):
    """Bit d set for every "tensor(<dtype d>)" in types."""
    mask = 0
    for t in types:
        m = re.fullmatch(r"tensor\((\w+)\)", t)
        if m:
            if m.group(1) not in DTYPES:
                raise SpecError("unknown tensor element type in " + t)
            mask |= 1 << DTYPES[m.group(1)]
    return mask


def parse_changelog(path, finish=True):
    """Return (schemas, defined) where defined maps domain -> highest opset
    version that has a '## Version N' heading. With finish=False the schemas are
    left as read (arity ranges as the headings show them, nothing derived), for
    tools/extract_ml_facts.py."""
    schemas = []
    defined = {}
    domain = None
    cur = None
    section = None
    want_version_line = False

    def fail(lineno, msg):
        raise SpecError("%s:%d: %s" % (path, lineno, msg))

    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")

    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if line.startswith("# "):
            m = RE_DOMAIN.match(line)
            if not m:
                fail(lineno, "unrecognised domain heading")
            d = m.group(1)
            domain = "" if d == "ai.onnx" else d
            cur, section = None, None
            continue
        if line.startswith("## "):
            cur, section = None, None
            m = RE_OPSET.match(line)
            if m and domain is not None:
                defined[domain] = max(defined.get(domain, 0), int(m.group(1)))
            continue
        if line.startswith("### "):
            section = None
            m = RE_OP.match(line)
            if not m:
                fail(lineno, "unrecognised operator heading")
            if domain is None:
                fail(lineno, "operator before any domain heading")
            anchor = html.unescape(m.group(1))
            full, ver = anchor.rsplit("-", 1)
            name = full
            if domain and full.startswith(domain + "."):
                name = full[len(domain) + 1:]
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                fail(lineno, "odd operator name %r" % name)
            cur = {
                "domain": domain,
                "name": name,
                "anchor_version": int(ver),
                "since_version": None,
                "deprecated": bool(m.group(3)),
                "inputs": [],
                "outputs": [],
                "attrs": [],
                "constraints": [],
                "input_range": None,
                "output_range": None,
                "line": lineno,
            }
            schemas.append(cur)
            continue
        if line.startswith("#### "):
            if cur is None:
                fail(lineno, "section outside an operator")
            m = RE_SECTION.match(line)
            if not m:
                fail(lineno, "unrecognised section heading")
            title = m.group(1)
            rng = None
            if m.group(2) is not None:
                hi = m.group(3)
                rng = (int(m.group(2)), UNBOUNDED if not hi.isdigit() else int(hi))
            if title == "Version":
                section = "version"
                want_version_line = True
            elif title == "Attributes":
                section = "attrs"
            elif title == "Inputs":
                section = "inputs"
                cur["input_range"] = rng
            elif title == "Outputs":
                section = "outputs"
                cur["output_range"] = rng
            elif title == "Type Constraints":
                section = "constraints"
            else:
                section = None
            if rng is not None and title not in ("Inputs", "Outputs"):
                fail(lineno, "arity range on a %s heading" % title)
            continue
        if cur is None or section is None:
            continue
        if section == "version":
            if want_version_line and line.strip():
                want_version_line = False
                m = RE_SINCE.search(line)
                if m:
                    cur["since_version"] = int(m.group(2))
                    if m.group(1) == "deprecated":
                        cur["deprecated"] = True
                elif "No versioning maintained" in line:
                    cur["since_version"] = cur["anchor_version"]
                    cur["experimental"] = True
                else:
                    fail(lineno, "unrecognised version sentence")
            continue
        if not line.startswith("<dt>"):
            continue
        if section in ("inputs", "outputs"):
            m = RE_FORMAL.match(line)
            if not m:
                fail(lineno, "unrecognised formal parameter")
            tags = [t.strip() for t in (m.group(2) or "").split(",") if t.strip()]
            for t in tags:
                if t not in ("optional", "variadic", "heterogeneous",
                             "differentiable", "non-differentiable"):
                    fail(lineno, "unknown formal tag %r" % t)
            if "optional" in tags and "variadic" in tags:
                fail(lineno, "formal both optional and variadic")
            option = 2 if "variadic" in tags else 1 if "optional" in tags else 0
            if "heterogeneous" in tags and option != 2:
                fail(lineno, "heterogeneous formal that is not variadic")
            cur[section].append({
                "name": html.unescape(m.group(1)),
                "type_str": html.unescape(m.group(3).strip()),
                "option": option,
                "homogeneous": "heterogeneous" not in tags,
                "min_arity": 0 if option == 1 else 1,
            })
        elif section == "attrs":
            m = RE_ATTR.match(line)
            if not m:
                fail(lineno, "unrecognised attribute")
            tname = m.group(2).strip()
            if tname not in ATTR_TYPES:
                fail(lineno, "unknown attribute type %r" % tname)
            default = m.group(3)
            cur["attrs"].append({
                "name": html.unescape(m.group(1)),
                "type": ATTR_TYPES[tname][0],
                "required": m.group(4) is not None,
                "default": html.unescape(default) if default is not None else None,
            })
        elif section == "constraints":
            m = RE_TC.match(line)
            if not m:
                fail(lineno, "unrecognised type constraint")
            cur["constraints"].append({
                "name": html.unescape(m.group(1)),
                "allowed": split_types(html.unescape(m.group(2))),
            })

    if finish:
        for s in schemas:
            finish_schema(path, s)
    return schemas, defined


def finish_schema(path, s):
    where = "%s:%d: %s-%d" % (path, s["line"], s["name"], s["anchor_version"])
    if s["since_version"] is None:
        raise SpecError(where + ": no version sentence")
    if s["since_version"] != s["anchor_version"]:
        raise SpecError(where + ": anchor and version sentence disagree")
    cnames = set()
    for c in s["constraints"]:
        if c["name"] in cnames:
            raise SpecError(where + ": duplicate type constraint " + c["name"])
        cnames.add(c["name"])
    anames = [a["name"] for a in s["attrs"]]
    if len(set(anames)) != len(anames):
        raise SpecError(where + ": duplicate attribute")
    for key, rkey, lo_key, hi_key in (("inputs", "input_range", "min_inputs", "max_inputs"),
                                      ("outputs", "output_range", "min_outputs", "max_outputs")):
        formals = s[key]
        for i, fp in enumerate(formals):
            if fp["option"] == 2 and i != len(formals) - 1:
                raise SpecError(where + ": variadic formal that is not last")
            t = fp["type_str"]
            if "(" not in t and t not in cnames:
                raise SpecError(where + ": formal %s has unknown type %r" % (fp["name"], t))
        rng = s[rkey]
        if formals and formals[-1]["option"] == 2:
            if rng is None or rng[1] != UNBOUNDED:
                raise SpecError(where + ": variadic %s without an unbounded arity range" % key)
            # ONNX: min = (number of formals before the variadic one) + its min arity
            formals[-1]["min_arity"] = rng[0] - (len(formals) - 1)
            if formals[-1]["min_arity"] < 0:
                raise SpecError(where + ": inconsistent variadic arity")
        # the arity ONNX derives from the formals: min counts up to the last
        # single formal, optional formals before it included
        lo = hi = 0
        for fp in formals:
            if fp["option"] == 2:
                lo, hi = hi + fp["min_arity"], UNBOUNDED
            else:
                hi += 1
                if fp["option"] == 0:
                    lo = hi
        if rng is None:
            if lo != hi:
                raise SpecError(where + ": %s arity is a range but the heading shows none" % key)
        elif rng != (lo, hi):
            raise SpecError(where + ": %s arity heading %r disagrees with the formals %r"
                            % (key, rng, (lo, hi)))
        s[lo_key], s[hi_key] = lo, hi
    allowed = {c["name"]: c["allowed"] for c in s["constraints"]}
    for c in s["constraints"]:
        c["tensor_dtypes"] = tensor_mask(c["allowed"])
    for fp in s["inputs"] + s["outputs"]:
        fp["tensor_dtypes"] = tensor_mask(allowed.get(fp["type_str"], [fp["type_str"]]))
    for k in ("input_range", "output_range", "anchor_version", "line"):
        del s[k]
    s.setdefault("experimental", False)


def load_ml_facts(path):
    """The schemas of tools/data/ai_onnx_ml_schemas.json (written by
    tools/extract_ml_facts.py from ONNX's Changelog-ml.md), in the form
    parse_changelog gives, checked and finished the same way. Returns
    (schemas, defined) like parse_changelog."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    domain = doc["domain"]
    schemas = []
    for i, fs in enumerate(doc["schemas"]):
        where = "%s: schema %d" % (path, i)
        try:
            s = {
                "domain": domain,
                "name": fs["name"],
                "anchor_version": fs["since"],
                "since_version": fs["since"],
                "deprecated": bool(fs.get("deprecated", False)),
                "inputs": [], "outputs": [], "attrs": [], "constraints": [],
                "input_range": None, "output_range": None,
                "line": i,
            }
            for side, rkey in (("inputs", "input_range"), ("outputs", "output_range")):
                for name, type_str, option, homogeneous in fs.get(side, []):
                    opt = OPTION_NAMES.index(option)
                    s[side].append({"name": name, "type_str": type_str, "option": opt,
                                    "homogeneous": bool(homogeneous),
                                    "min_arity": 0 if opt == 1 else 1})
                if rkey in fs:
                    lo, hi = fs[rkey]
                    s[rkey] = (int(lo), int(hi))
            for name, tname, default, required in fs.get("attrs", []):
                if tname not in ATTR_TYPES:
                    raise SpecError(where + ": unknown attribute type %r" % tname)
                s["attrs"].append({"name": name, "type": ATTR_TYPES[tname][0],
                                   "required": bool(required), "default": default})
            for name, allowed in fs.get("constraints", []):
                s["constraints"].append({"name": name, "allowed": split_types(", ".join(allowed))})
        except (KeyError, TypeError, ValueError) as e:
            raise SpecError(where + ": malformed entry (%s)" % e)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s["name"]):
            raise SpecError(where + ": odd operator name %r" % s["name"])
        finish_schema(path, s)
        schemas.append(s)
    return schemas, {domain: int(doc["max_defined"])}


def parse_versioning(path):
    """Highest released opset per domain from the 'Released Versions' table."""
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        rows = f.read().split("\n")
    for i, row in enumerate(rows):
        if RE_VERSIONS_HEAD.match(row):
            head = [c.strip() for c in row.split("|")]
            cols = {}
            for j, c in enumerate(head):
                m = re.fullmatch(r"Opset version (\S+)", c)
                if m:
                    d = m.group(1)
                    d = "" if d == "ai.onnx" else d
                    if d in VERSIONED_DOMAINS:
                        cols[j] = d
            best = {}
            for r in rows[i + 2:]:
                if "|" not in r:
                    break
                cells = [c.strip() for c in r.split("|")]
                for j, d in cols.items():
                    if j < len(cells) and cells[j].isdigit():
                        best[d] = max(best.get(d, 0), int(cells[j]))
            return best
    return {}


def build(changelogs, versioning, ml_facts=None):
    schemas, defined = [], {}
    for p in changelogs:
        s, d = parse_changelog(p)
        schemas.extend(s)
        for k, v in d.items():
            defined[k] = max(defined.get(k, 0), v)
    # ai.onnx.ml from the facts file only when no changelog given defines it
    if ml_facts and "ai.onnx.ml" not in defined and \
            not any(s["domain"] == "ai.onnx.ml" for s in schemas):
        s, d = load_ml_facts(ml_facts)
        schemas.extend(s)
        defined.update(d)
    for s in schemas:
        for field in (s["domain"], s["name"]):
            if not field.isascii():
                raise SpecError("non-ASCII name " + field)
    schemas.sort(key=lambda s: (s["domain"], s["name"], s["since_version"]))
    keys = [(s["domain"], s["name"], s["since_version"]) for s in schemas]
    if len(set(keys)) != len(keys):
        dup = sorted(k for k in set(keys) if keys.count(k) > 1)
        raise SpecError("duplicate schema versions: %r" % dup)
    released = parse_versioning(versioning)
    doms = sorted(set(defined) | set(s["domain"] for s in schemas) | set(released))
    domains = []
    for d in doms:
        have = [s["since_version"] for s in schemas if s["domain"] == d]
        max_defined = max([defined.get(d, 0)] + have)
        domains.append({
            "domain": d,
            "max_released": released.get(d, max_defined),
            "max_defined": max_defined,
            "n_schemas": len(have),
        })
    return {"schemas": schemas, "domains": domains}


# ----------------------------------------------------------------------------
# C emission


def c_str(s):
    if s is None:
        return "NULL"
    out = []
    for ch in s:
        o = ord(ch)
        if ch in "\\\"":
            out.append("\\" + ch)
        elif ch == "?":
            out.append("\\?")  # no trigraphs
        elif 32 <= o < 127:
            out.append(ch)
        else:
            for b in ch.encode("utf-8"):
                out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def wrap(items, width=96):
    """Comma-separated initialiser items, several to a line."""
    lines, cur = [], " "
    for it in items:
        if len(cur) + len(it) + 2 > width and cur.strip():
            lines.append(cur)
            cur = " "
        cur += " " + it + ","
    lines.append(cur)
    return "\n".join(lines)


class Pool:
    """Emits each distinct array once, named in first-use order."""

    def __init__(self, prefix, ctype):
        self.prefix, self.ctype = prefix, ctype
        self.index, self.bodies = {}, []

    def get(self, key, body):
        if key not in self.index:
            self.index[key] = "%s_%d" % (self.prefix, len(self.bodies))
            self.bodies.append((self.index[key], body))
        return self.index[key]

    def emit(self, out):
        for name, body in self.bodies:
            out.append("static const %s %s[] = {\n%s\n};\n" % (self.ctype, name, body))


def emit_c(data):
    schemas, domains = data["schemas"], data["domains"]
    tlists = Pool("tl", "char *const")
    tcs = Pool("tc", "olg_type_constraint")
    formals = Pool("fp", "olg_formal")
    attrs = Pool("at", "olg_attr_schema")

    def formal_arr(fps):
        if not fps:
            return "NULL"
        key = tuple((f["name"], f["type_str"], f["option"], f["homogeneous"], f["min_arity"],
                     f["tensor_dtypes"]) for f in fps)
        body = "\n".join("  { %s, %s, %s, %d, %d, 0x%08xu }," % (
            c_str(f["name"]), c_str(f["type_str"]), OPTION_C[f["option"]],
            1 if f["homogeneous"] else 0, f["min_arity"], f["tensor_dtypes"]) for f in fps)
        return formals.get(key, body)

    def attr_arr(ats):
        if not ats:
            return "NULL"
        key = tuple((a["name"], a["type"], a["required"], a["default"]) for a in ats)
        tname = {v[0]: v[1] for v in ATTR_TYPES.values()}
        body = "\n".join("  { %s, OLG_SCHEMA_ATTR_%s, %d, %s }," % (
            c_str(a["name"]), tname[a["type"]], 1 if a["required"] else 0,
            c_str(a["default"])) for a in ats)
        return attrs.get(key, body)

    def tc_arr(cs):
        if not cs:
            return "NULL"
        parts = []
        for c in cs:
            tl = tlists.get(tuple(c["allowed"]), wrap([c_str(t) for t in c["allowed"]] + ["NULL"]))
            parts.append((c["name"], tl))
        body = "\n".join("  { %s, %s, %d, 0x%08xu }," % (
            c_str(n), tl, len(c["allowed"]), c["tensor_dtypes"]) for (n, tl), c in zip(parts, cs))
        return tcs.get(tuple(parts), body)

    rows = []
    for s in schemas:
        fi, fo = formal_arr(s["inputs"]), formal_arr(s["outputs"])
        fa, fc = attr_arr(s["attrs"]), tc_arr(s["constraints"])
        rows.append("  { %s, %s, %d, %d, %d, %d, %d, %d,\n"
                    "    %s, %d, %s, %d, %s, %d, %s, %d }," % (
                        c_str(s["domain"]), c_str(s["name"]), s["since_version"],
                        1 if s["deprecated"] else 0,
                        s["min_inputs"], s["max_inputs"], s["min_outputs"], s["max_outputs"],
                        fi, len(s["inputs"]), fo, len(s["outputs"]),
                        fa, len(s["attrs"]), fc, len(s["constraints"])))

    # op index: one row per (domain, name), pointing at its versions
    ops = []
    for i, s in enumerate(schemas):
        if ops and ops[-1][0] == s["domain"] and ops[-1][1] == s["name"]:
            ops[-1][3] += 1
        else:
            ops.append([s["domain"], s["name"], i, 1])
    dom_rows = []
    for d in domains:
        first = next((i for i, o in enumerate(ops) if o[0] == d["domain"]), 0)
        n = sum(1 for o in ops if o[0] == d["domain"])
        dom_rows.append("  { %s, %d, %d, %d, %d }," % (
            c_str(d["domain"]), d["max_released"], d["max_defined"], first, n))

    dflt = next((d for d in domains if d["domain"] == ""), None)
    out = []
    out.append("/* onnxlegal — the ONNX operator schema tables, generated by tools/gen_schemas.py from\n"
               " * ONNX's operator changelog. Do not edit: run `python3 tools/gen_schemas.py` from the\n"
               " * repository root. Declared in lib/schema.h. */")
    out.append('#include "../lib/schema.h"\n')
    out.append("#include <stddef.h>\n")
    if dflt is not None:
        out.append("_Static_assert(OLG_ONNX_OPSET_RELEASED == %d, \"schema.h disagrees with the spec"
                   " on the released opset\");" % dflt["max_released"])
        out.append("_Static_assert(OLG_ONNX_OPSET_DEV == %d, \"schema.h disagrees with the spec"
                   " on the opset in development\");\n" % dflt["max_defined"])
    body = []
    tlists.emit(body)
    tcs.emit(body)
    formals.emit(body)
    attrs.emit(body)
    out.extend(body)
    out.append("static const olg_schema schemas[] = {\n%s\n};\n" % "\n".join(rows))
    out.append("static const olg_schema_op ops[] = {\n%s\n};\n" % "\n".join(
        "  { %s, %s, %d, %d }," % (c_str(o[0]), c_str(o[1]), o[2], o[3]) for o in ops))
    out.append("static const olg_schema_domain domains[] = {\n%s\n};\n" % "\n".join(dom_rows))
    out.append("const olg_schema_tables olg__schema_tables = {\n"
               "  schemas, %d,\n  ops, %d,\n  domains, %d,\n};\n" % (
                   len(schemas), len(ops), len(domains)))
    return "\n".join(out)


def to_json(data):
    def formal(f):
        return {"name": f["name"], "type_str": f["type_str"], "option": OPTION_NAMES[f["option"]],
                "homogeneous": f["homogeneous"], "min_arity": f["min_arity"]}
    out = {"domains": data["domains"], "schemas": []}
    for s in data["schemas"]:
        d = dict(s)
        d["inputs"] = [formal(f) for f in s["inputs"]]
        d["outputs"] = [formal(f) for f in s["outputs"]]
        d["attrs"] = [dict(a, type_name=next(v[1] for v in ATTR_TYPES.values() if v[0] == a["type"]))
                      for a in s["attrs"]]
        out["schemas"].append(d)
    return json.dumps(out, indent=1, sort_keys=True) + "\n"


def write_if_changed(path, text):
    old = None
    if os.path.exists(path):
        with open(path, encoding="utf-8", newline="") as f:
            old = f.read()
    if old != text:
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("changelogs", nargs="*", help="operator changelog(s) to read")
    ap.add_argument("-o", "--output", default=DEFAULT_OUT, help="C file to write (default %(default)s)")
    ap.add_argument("--json", help="also dump the parsed tables as JSON to this file")
    ap.add_argument("--versioning", help="Versioning.md (default: beside the first changelog)")
    ap.add_argument("--no-c", action="store_true", help="do not write the C file")
    ap.add_argument("--ml-facts", default=DEFAULT_ML_FACTS,
                    help="ai.onnx.ml facts (tools/extract_ml_facts.py), read when no changelog "
                         "given defines ai.onnx.ml (default %(default)s)")
    ap.add_argument("--no-ml-facts", action="store_true", help="do not read the ai.onnx.ml facts")
    args = ap.parse_args(argv)

    changelogs = args.changelogs
    if not changelogs:
        changelogs = [os.path.join(DEFAULT_SPEC_DIR, "Changelog.md")]
        ml = os.path.join(DEFAULT_SPEC_DIR, "Changelog-ml.md")
        if os.path.exists(ml):
            changelogs.append(ml)
    for p in changelogs:
        if not os.path.exists(p):
            print("gen_schemas: %s not found" % p, file=sys.stderr)
            return 2
    versioning = args.versioning
    if versioning is None:
        versioning = os.path.join(os.path.dirname(changelogs[0]), "Versioning.md")
    ml_facts = None if args.no_ml_facts else args.ml_facts
    if ml_facts and not os.path.exists(ml_facts):
        print("gen_schemas: %s not found" % ml_facts, file=sys.stderr)
        return 2
    try:
        data = build(changelogs, versioning, ml_facts)
    except SpecError as e:
        print("gen_schemas: %s" % e, file=sys.stderr)
        return 1
    if not args.no_c:
        write_if_changed(args.output, emit_c(data))
    if args.json:
        write_if_changed(args.json, to_json(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
