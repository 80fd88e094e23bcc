#!/usr/bin/env python3
"""Extract the facts of ONNX's ai.onnx.ml operator changelog (Changelog-ml.md)
into the compact JSON file tools/gen_schemas.py reads when the shared spec has
no Changelog-ml.md (tools/data/ai_onnx_ml_schemas.json).

The markdown is parsed by tools/gen_schemas.py's own changelog parser, so the
facts are exactly those a Changelog-ml.md beside Changelog.md would give: op
names, since-versions, the deprecated mark, attribute names/types/defaults/
required, input and output names with their options, the arity ranges the
headings show, and type-constraint names with their allowed types. No
description is kept.

Usage (from the repository root), on a local copy of the markdown:
    python3 tools/extract_ml_facts.py CHANGELOG_ML.md \\
        --source-repo OWNER/NAME --source-commit SHA [--source-note TEXT] \\
        [--versioning ../shared/onnx-spec/Versioning.md] \\
        [-o tools/data/ai_onnx_ml_schemas.json]

Standard library only; the output is deterministic.
"""

import argparse
import copy
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_schemas  # noqa: E402  (the parser shared with the generator)

DOMAIN = "ai.onnx.ml"
DEFAULT_OUT = os.path.join(gen_schemas.REPO_ROOT, "tools", "data", "ai_onnx_ml_schemas.json")
DEFAULT_VERSIONING = os.path.join(gen_schemas.DEFAULT_SPEC_DIR, "Versioning.md")
ATTR_SPELLING = {v[0]: k for k, v in gen_schemas.ATTR_TYPES.items()}

FORMAT = {
    "schemas": "sorted by (name, since); deprecated only when true",
    "attrs": "[name, type as the changelog spells it, default as printed or null, required]",
    "inputs/outputs": "[name, type string, single|optional|variadic, homogeneous]",
    "input_range/output_range": "[min, max] as the section heading shows it (max -1: unbounded); "
                                "absent when the heading shows none",
    "constraints": "[name, [allowed type strings in the changelog's order]]",
}


def facts_of(raw):
    out = {"name": raw["name"], "since": raw["since_version"]}
    if raw["deprecated"]:
        out["deprecated"] = True
    if raw.get("experimental"):
        raise gen_schemas.SpecError("%s-%d: experimental ops are not expected in %s"
                                    % (raw["name"], raw["since_version"], DOMAIN))
    if raw["attrs"]:
        out["attrs"] = [[a["name"], ATTR_SPELLING[a["type"]], a["default"], a["required"]]
                        for a in raw["attrs"]]
    for side, rkey in (("inputs", "input_range"), ("outputs", "output_range")):
        if raw[side]:
            out[side] = [[f["name"], f["type_str"], gen_schemas.OPTION_NAMES[f["option"]],
                          f["homogeneous"]] for f in raw[side]]
        if raw[rkey] is not None:
            out[rkey] = list(raw[rkey])
    if raw["constraints"]:
        out["constraints"] = [[c["name"], c["allowed"]] for c in raw["constraints"]]
    return out


def dump(doc):
    """JSON with one line per schema field: small diffs, readable, deterministic."""
    def enc(v):
        return json.dumps(v, ensure_ascii=True)
    lines = ["{"]
    head = [k for k in doc if k != "schemas"]
    for k in head:
        v = doc[k]
        if isinstance(v, dict):
            lines.append(" %s: {" % enc(k))
            items = list(v.items())
            for i, (kk, vv) in enumerate(items):
                lines.append("  %s: %s%s" % (enc(kk), enc(vv), "," if i + 1 < len(items) else ""))
            lines.append(" },")
        else:
            lines.append(" %s: %s," % (enc(k), enc(v)))
    lines.append(' "schemas": [')
    for i, s in enumerate(doc["schemas"]):
        keys = list(s)
        lines.append("  {")
        for j, k in enumerate(keys):
            lines.append("   %s: %s%s" % (enc(k), enc(s[k]), "," if j + 1 < len(keys) else ""))
        lines.append("  }%s" % ("," if i + 1 < len(doc["schemas"]) else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("changelog", help="a local copy of ONNX's docs/Changelog-ml.md")
    ap.add_argument("--source-repo", required=True, help="repository the copy was taken from")
    ap.add_argument("--source-commit", required=True, help="commit of that copy")
    ap.add_argument("--source-note", default="", help="what is known of that copy's ONNX version")
    ap.add_argument("--versioning", default=DEFAULT_VERSIONING,
                    help="Versioning.md, for the released ai.onnx.ml version (default %(default)s)")
    ap.add_argument("-o", "--output", default=DEFAULT_OUT, help="JSON to write (default %(default)s)")
    args = ap.parse_args(argv)

    try:
        raw, defined = gen_schemas.parse_changelog(args.changelog, finish=False)
        if any(s["domain"] != DOMAIN for s in raw) or set(defined) - {DOMAIN}:
            raise gen_schemas.SpecError("%s holds domains other than %s" % (args.changelog, DOMAIN))
        if not raw:
            raise gen_schemas.SpecError("%s holds no %s operator" % (args.changelog, DOMAIN))
        # the same checks the generator makes, on a copy (they rewrite the dicts)
        for s in copy.deepcopy(raw):
            gen_schemas.finish_schema(args.changelog, s)
    except gen_schemas.SpecError as e:
        print("extract_ml_facts: %s" % e, file=sys.stderr)
        return 1
    released = gen_schemas.parse_versioning(args.versioning).get(DOMAIN)
    raw.sort(key=lambda s: (s["name"], s["since_version"]))
    doc = {
        "about": "Facts of ONNX's ai.onnx.ml operator changelog (docs/Changelog-ml.md): names, "
                 "numbers and type lists only, no descriptions. Written by "
                 "tools/extract_ml_facts.py; read by tools/gen_schemas.py when the shared spec "
                 "has no Changelog-ml.md.",
        "source": {
            "repository": args.source_repo,
            "path": "docs/Changelog-ml.md",
            "commit": args.source_commit,
            "note": args.source_note,
        },
        "domain": DOMAIN,
        "max_defined": defined.get(DOMAIN, max(s["since_version"] for s in raw)),
        "max_released": released,
        "max_released_source": "Versioning.md 'Released Versions' table of the shared spec",
        "format": FORMAT,
        "schemas": [facts_of(s) for s in raw],
    }
    gen_schemas.write_if_changed(args.output, dump(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
