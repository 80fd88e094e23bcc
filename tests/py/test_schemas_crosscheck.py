"""Cross-check the schema tables parsed by tools/gen_schemas.py against the
schemas of the onnx Python package (Debian's python3-onnx: onnx 1.12, opsets <= 17,
ai.onnx.ml <= 3, ai.onnx.preview.training 1).

For every (domain, op, since_version) that both sides know, up to the newest
version the onnx package knows in that domain, it compares: input/output formal
names, types, options and homogeneity; min/max arity; attribute names, types,
required flags and defaults; type-constraint names and allowed types; the
deprecated mark; and that neither side lacks a version the other has.

Every difference must be explained in ALLOWED below. onnx may live in another
interpreter than the one running pytest (Debian's /usr/bin/python3 beside a
pyenv python3): the onnx side is dumped by a subprocess.
"""

import ast
import fnmatch
import json
import math
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_DIR = os.path.join(os.path.dirname(ROOT), "shared", "onnx-spec")
CHANGELOG = os.path.join(SPEC_DIR, "Changelog.md")
GEN = os.path.join(ROOT, "tools", "gen_schemas.py")

# Differences that are expected, as (domain, op, since_version, field) glob
# patterns, each with the reason. The spec beside the project is ONNX 1.23.0-dev;
# python3-onnx is 1.12.0. Keep each entry as narrow as the fact it explains.
# ai.onnx.ml comes from tools/data/ai_onnx_ml_schemas.json (the shared spec has no
# Changelog-ml.md); its versions 1..3, all that onnx 1.12 knows, match onnx exactly,
# so no ML entry is needed here (versions 4 and 5 are newer than onnx 1.12).
ALLOWED = [
    # Deprecated versions: the changelog gives only the heading and the version
    # sentence, no signature; onnx keeps the previous signature on the deprecated row.
    ("", "Upsample", "10", "*", "deprecated at 10; the changelog shows no signature"),
    ("", "Scatter", "11", "*", "deprecated at 11; the changelog shows no signature"),
    # ONNX corrected GridSample-16 after 1.12: 1.12 typed `grid` with T1 (any tensor)
    # and `Y` with T2 (float); the current definition has grid: T2 and Y: T1, as the
    # constraints' own descriptions say. Same constraint lists on both sides.
    ("", "GridSample", "16", "inputs.grid.type", "fixed in ONNX after 1.12"),
    ("", "GridSample", "16", "outputs.Y.type", "fixed in ONNX after 1.12"),
    # ONNX later removed the integer types from Erf-13's T in the definition of that
    # version itself (the changelog is generated from the current definitions, which
    # allow float16/float/double/bfloat16 only); onnx 1.12 still lists the integers.
    ("", "Erf", "13", "constraint.T", "Erf-13 narrowed to float types after 1.12"),
]

ONNX_DUMP = r'''
import json, sys
import onnx.defs as defs

def attr_default(a):
    v = a.default_value
    t = int(v.type)
    if t == 0:
        return None
    if t == 1: return ["f", v.f]
    if t == 2: return ["i", v.i]
    if t == 3: return ["s", v.s.decode("utf-8")]
    if t == 6: return ["fs", list(v.floats)]
    if t == 7: return ["is", list(v.ints)]
    if t == 8: return ["ss", [x.decode("utf-8") for x in v.strings]]
    return ["other", t]

def formal(f):
    return {"name": f.name, "type_str": f.typeStr, "option": int(f.option.value),
            "homogeneous": bool(f.isHomogeneous)}

INF = 2147483647
out = []
for s in defs.get_all_schemas_with_history():
    out.append({
        "domain": s.domain, "name": s.name, "since_version": s.since_version,
        "deprecated": bool(s.deprecated),
        "min_inputs": s.min_input, "max_inputs": -1 if s.max_input == INF else s.max_input,
        "min_outputs": s.min_output, "max_outputs": -1 if s.max_output == INF else s.max_output,
        "inputs": [formal(f) for f in s.inputs],
        "outputs": [formal(f) for f in s.outputs],
        "attrs": {a.name: {"type": int(a.type.value), "required": bool(a.required),
                           "default": attr_default(a)} for a in s.attributes.values()},
        "constraints": {c.type_param_str: sorted(c.allowed_type_strs) for c in s.type_constraints},
    })
import onnx
json.dump({"version": onnx.__version__, "schemas": out}, sys.stdout)
'''

OPTION_NAMES = ("single", "optional", "variadic")


def onnx_schemas():
    tried = []
    for exe in (sys.executable, "/usr/bin/python3", "python3"):
        if exe in tried:
            continue
        tried.append(exe)
        try:
            r = subprocess.run([exe, "-c", ONNX_DUMP], capture_output=True, text=True, timeout=300)
        except OSError:
            continue
        if r.returncode == 0:
            return json.loads(r.stdout)
    pytest.skip("no Python interpreter with the onnx package (apt-get install python3-onnx); "
                "tried " + ", ".join(tried))


def our_schemas(tmp_path):
    out = tmp_path / "schemas.json"
    subprocess.run([sys.executable, GEN, "--no-c", "--json", str(out), CHANGELOG],
                   check=True, cwd=ROOT)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def same_default(ours, theirs):
    """ours: the string as the changelog writes it; theirs: [kind, value] or None."""
    if ours is None or theirs is None:
        return ours is None and theirs is None
    kind, v = theirs
    try:
        if kind == "i":
            return int(ours) == v
        if kind == "f":
            # the changelog prints float defaults rounded to 5 decimal places
            # (Selu's alpha 1.6732632 reads 1.67326, Adam's epsilon 1e-6 reads 0.0)
            x = float(ours.strip("()"))
            return math.isclose(x, v, rel_tol=1e-6) or math.isclose(x, round(v, 5), abs_tol=1e-12)
        if kind == "s":
            return ours == v
        if kind in ("is", "fs", "ss"):
            lst = ast.literal_eval(ours)
            if kind == "ss":
                return [str(x) for x in lst] == v
            return len(lst) == len(v) and all(math.isclose(float(a), b, rel_tol=1e-6)
                                              for a, b in zip(lst, v))
    except (ValueError, SyntaxError):
        return False
    return False


def compare(ours, theirs):
    """Yield (domain, op, since, field, detail) for every difference."""
    o_by = {(s["domain"], s["name"], s["since_version"]): s for s in ours}
    t_by = {(s["domain"], s["name"], s["since_version"]): s for s in theirs}
    t_max = {}
    for d, _, v in t_by:
        t_max[d] = max(t_max.get(d, 0), v)
    o_domains = {s["domain"] for s in ours}

    for key in sorted(set(o_by) | set(t_by)):
        d, op, v = key
        if d not in t_max or v > t_max[d]:
            continue  # newer than the onnx package, or a domain it does not know
        o, t = o_by.get(key), t_by.get(key)
        if o is None:
            why = "domain absent from the changelog" if d not in o_domains else "version absent"
            yield (d, op, v, "missing-in-changelog", why)
            continue
        if t is None:
            yield (d, op, v, "missing-in-onnx", "")
            continue
        if o["deprecated"] != t["deprecated"]:
            yield (d, op, v, "deprecated", "ours %s, onnx %s" % (o["deprecated"], t["deprecated"]))
        for f in ("min_inputs", "max_inputs", "min_outputs", "max_outputs"):
            if o[f] != t[f]:
                yield (d, op, v, f, "ours %s, onnx %s" % (o[f], t[f]))
        for side in ("inputs", "outputs"):
            ol, tl = o[side], t[side]
            if [x["name"] for x in ol] != [x["name"] for x in tl]:
                yield (d, op, v, side, "names ours %s, onnx %s"
                       % ([x["name"] for x in ol], [x["name"] for x in tl]))
                continue
            for of, tf in zip(ol, tl):
                where = "%s.%s" % (side, of["name"])
                if of["type_str"] != tf["type_str"]:
                    yield (d, op, v, where + ".type", "ours %s, onnx %s"
                           % (of["type_str"], tf["type_str"]))
                if of["option"] != OPTION_NAMES[tf["option"]]:
                    yield (d, op, v, where + ".option", "ours %s, onnx %s"
                           % (of["option"], OPTION_NAMES[tf["option"]]))
                if of["homogeneous"] != tf["homogeneous"]:
                    yield (d, op, v, where + ".homogeneous", "ours %s, onnx %s"
                           % (of["homogeneous"], tf["homogeneous"]))
        oa = {a["name"]: a for a in o["attrs"]}
        ta = t["attrs"]
        for name in sorted(set(oa) | set(ta)):
            where = "attr." + name
            if name not in oa:
                yield (d, op, v, where, "only in onnx")
                continue
            if name not in ta:
                yield (d, op, v, where, "only in the changelog")
                continue
            if oa[name]["type"] != ta[name]["type"]:
                yield (d, op, v, where + ".type", "ours %s, onnx %s"
                       % (oa[name]["type"], ta[name]["type"]))
            if oa[name]["required"] != ta[name]["required"]:
                yield (d, op, v, where + ".required", "ours %s, onnx %s"
                       % (oa[name]["required"], ta[name]["required"]))
            if not same_default(oa[name]["default"], ta[name]["default"]):
                yield (d, op, v, where + ".default", "ours %r, onnx %r"
                       % (oa[name]["default"], ta[name]["default"]))
        oc = {c["name"]: sorted(c["allowed"]) for c in o["constraints"]}
        tc = t["constraints"]
        for name in sorted(set(oc) | set(tc)):
            where = "constraint." + name
            if name not in oc or name not in tc:
                yield (d, op, v, where, "only in " + ("onnx" if name not in oc else "the changelog"))
                continue
            if oc[name] != tc[name]:
                extra = sorted(set(oc[name]) - set(tc[name]))
                lack = sorted(set(tc[name]) - set(oc[name]))
                yield (d, op, v, where, "changelog adds %s, lacks %s" % (extra, lack))


def allowed_reason(diff):
    d, op, v, field, _ = diff
    for entry in ALLOWED:
        pd, pop, pv, pfield, reason = entry
        if (fnmatch.fnmatchcase(d, pd) and fnmatch.fnmatchcase(op, pop)
                and fnmatch.fnmatchcase(str(v), pv) and fnmatch.fnmatchcase(field, pfield)):
            return entry
    return None


def test_crosscheck_with_onnx(tmp_path):
    if not os.path.exists(CHANGELOG):
        pytest.skip("%s is absent: the ONNX spec is only beside the source tree" % CHANGELOG)
    theirs = onnx_schemas()
    ours = our_schemas(tmp_path)
    diffs = list(compare(ours["schemas"], theirs["schemas"]))
    used = set()
    unexplained = []
    for diff in diffs:
        entry = allowed_reason(diff)
        if entry is None:
            unexplained.append(diff)
        else:
            used.add(ALLOWED.index(entry))
    print("onnx %s: %d differences, %d explained by the allow-list"
          % (theirs["version"], len(diffs), len(diffs) - len(unexplained)))
    for i, entry in enumerate(ALLOWED):
        if i not in used:
            print("allow-list entry no longer needed: %r" % (entry[:4],))
    assert not unexplained, "unexplained differences with onnx %s:\n%s" % (
        theirs["version"], "\n".join("%s %s-%s %s: %s" % x for x in unexplained))
    # the comparison must actually have covered the default domain
    common = {(s["domain"], s["name"], s["since_version"]) for s in ours["schemas"]} & \
             {(s["domain"], s["name"], s["since_version"]) for s in theirs["schemas"]}
    assert sum(1 for k in common if k[0] == "") > 300
    # ... and every ai.onnx.ml schema onnx knows (21 in onnx 1.12: versions 1..3)
    theirs_ml = {(s["domain"], s["name"], s["since_version"]) for s in theirs["schemas"]
                 if s["domain"] == "ai.onnx.ml"}
    assert theirs_ml, "the onnx package knows no ai.onnx.ml schema (built without ONNX_ML?)"
    assert theirs_ml <= common, "ai.onnx.ml schemas missing from the tables: %s" % sorted(
        theirs_ml - common)


def test_ml_facts_newer_than_onnx(tmp_path):
    """The ai.onnx.ml versions onnx 1.12 cannot check (4 and 5) are present, and the
    domain row agrees with Versioning.md (released 5)."""
    if not os.path.exists(CHANGELOG):
        pytest.skip("%s is absent: the ONNX spec is only beside the source tree" % CHANGELOG)
    ours = our_schemas(tmp_path)
    ml = {(s["name"], s["since_version"]): s for s in ours["schemas"] if s["domain"] == "ai.onnx.ml"}
    assert {("LabelEncoder", 4), ("TreeEnsemble", 5), ("TreeEnsembleClassifier", 5),
            ("TreeEnsembleRegressor", 5)} <= set(ml)
    assert ml[("TreeEnsembleClassifier", 5)]["deprecated"]
    assert ml[("TreeEnsembleRegressor", 5)]["deprecated"]
    assert not ml[("TreeEnsemble", 5)]["deprecated"]
    te = ml[("TreeEnsemble", 5)]
    assert sorted(c["name"] for c in te["constraints"]) == ["T"]
    assert te["constraints"][0]["allowed"] == ["tensor(float)", "tensor(double)", "tensor(float16)"]
    req = {a["name"] for a in te["attrs"] if a["required"]}
    assert {"tree_roots", "nodes_splits", "nodes_modes", "leaf_weights"} <= req
    (dom,) = [d for d in ours["domains"] if d["domain"] == "ai.onnx.ml"]
    assert (dom["max_released"], dom["max_defined"], dom["n_schemas"]) == (5, 5, 25)
