#!/usr/bin/env python3
"""Generate lib/serialize/pb_schema.h and pb_schema.c, the reader's field tables, from
lib/serialize/onnx.proto.

For every message of onnx.proto (nested ones included) the tables list its fields by number:
the field's name, its wire type, whether it is repeated, and for a message field the message
it holds. That is all the reader (lib/serialize/pb_reader.c) needs to know of the schema: which
fields exist, the wire type each takes, which repeated numbers may come packed, and which
kept-but-uninterpreted sub-messages to validate. The library so needs neither protobuf-c nor
protoc-c to build or run; tests/unit/test_serialize.c checks the tables against the descriptors
protoc-c generates from the same file, tests/py/test_pb_schema_regen.py that the committed files
are what this script makes.

Usage (from the repository root):
    python3 tools/gen_pb_schema.py [--proto lib/serialize/onnx.proto] [--out-dir lib/serialize]

Standard library only; onnx.proto's subset of the proto2 language (messages, nested messages,
enums, oneofs, reserved, options in brackets, comments). The output is deterministic.
"""

import argparse
import os
import re
import sys

REPO_ROOT = os.path.relpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_PROTO = os.path.join(REPO_ROOT, "lib", "serialize", "onnx.proto")
DEFAULT_OUT = os.path.join(REPO_ROOT, "lib", "serialize")

# wire types (lib/serialize/pb.h)
VARINT, I64, LEN, I32 = "PB_VARINT", "PB_I64", "PB_LEN", "PB_I32"
SCALARS = {
    "int32": VARINT, "int64": VARINT, "uint32": VARINT, "uint64": VARINT, "sint32": VARINT,
    "sint64": VARINT, "bool": VARINT, "fixed32": I32, "sfixed32": I32, "float": I32,
    "fixed64": I64, "sfixed64": I64, "double": I64, "string": LEN, "bytes": LEN,
}

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+|[{}=;\[\](),<>]')


def tokens(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return TOKEN.findall(text)


class Msg:
    def __init__(self, name, parent):
        self.name = name  # short name, as protobuf-c's short_name
        self.parent = parent
        self.full = name if parent is None else parent.full + "." + name
        self.fields = []  # (number, name, label, type)
        self.nested = {}
        self.enums = set()


def parse(text):
    """The messages of the file, in order of appearance (outer before nested), and the
    file-level enum names."""
    toks = tokens(text)
    i = 0
    top = Msg("", None)
    top.full = ""
    order = []

    def skip_block(i):
        depth = 0
        while True:
            t = toks[i]
            i += 1
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    return i

    def skip_statement(i):
        while toks[i] != ";":
            i += 1
        return i + 1

    def body(i, scope, in_oneof=False):
        # scope: the message being read (top for the file); returns the index after its "}"
        while i < len(toks):
            t = toks[i]
            if t == "}":
                return i + 1
            if t in ("syntax", "package", "option", "import", "reserved", "extensions"):
                i = skip_statement(i)
            elif t == "enum":
                scope.enums.add(toks[i + 1])
                i = skip_block(i + 2)
            elif t == "message":
                m = Msg(toks[i + 1], None if scope is top else scope)
                scope.nested[m.name] = m
                order.append(m)
                assert toks[i + 2] == "{", toks[i:i + 3]
                i = body(i + 3, m)
            elif t == "oneof":
                assert toks[i + 2] == "{", toks[i:i + 3]
                i = body(i + 3, scope, in_oneof=True)
            elif t == ";":
                i += 1
            else:
                label = "optional"
                if t in ("optional", "repeated", "required"):
                    label = t
                    i += 1
                ftype, fname, eq, no = toks[i:i + 4]
                assert eq == "=", toks[i:i + 4]
                scope.fields.append((int(no), fname, label, ftype))
                i = skip_statement(i + 4)
        return i

    body(0, top)
    return top, order


def c_name(m):
    """protobuf-c's lower-case spelling: TensorShapeProto.Dimension -> tensor_shape_proto__dimension."""
    parts = []
    while m is not None:
        parts.append(re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", m.name).lower())
        m = m.parent
    return "__".join(reversed(parts))


def resolve(top, scope, ftype):
    """(wire type, message or None) of a field of type ftype declared in scope."""
    if ftype in SCALARS:
        return SCALARS[ftype], None
    name = ftype.lstrip(".")
    if name.startswith("onnx."):
        name = name[5:]
    parts = name.split(".")
    s = scope
    while True:
        cur = s if s is not None else top
        found = cur
        for k, p in enumerate(parts):
            if p in found.nested:
                found = found.nested[p]
            elif k == len(parts) - 1 and p in found.enums:
                return VARINT, None
            else:
                found = None
                break
        if found is not None and found is not cur:
            return LEN, found
        if s is None:
            raise SystemExit("onnx.proto: type %s of %s is not defined" % (ftype, scope.full))
        s = s.parent


def generate(proto_text, proto_rel):
    top, order = parse(proto_text)
    head = ("/* onnxlegal — the protobuf reader's field tables, generated by tools/gen_pb_schema.py"
            " from\n * %s. Do not edit: run `python3 tools/gen_pb_schema.py` from the"
            " repository root. */\n" % proto_rel)
    h = [head,
         "#ifndef OLG_SERIALIZE_PB_SCHEMA_H\n#define OLG_SERIALIZE_PB_SCHEMA_H\n"
         "#include <stdint.h>\n\n"
         "typedef struct olg_pb_msg olg_pb_msg;\n\n"
         "/* One field of a message. */\n"
         "typedef struct olg_pb_field {\n"
         "  const char *name;\n"
         "  uint32_t no;\n"
         "  uint8_t wt;       /* its wire type (PB_VARINT, PB_I64, PB_LEN, PB_I32: pb.h) */\n"
         "  uint8_t repeated; /* a repeated number may also come packed (PB_LEN) */\n"
         "  const olg_pb_msg *msg; /* a message field: the message; else NULL */\n"
         "} olg_pb_field;\n\n"
         "/* A message: its fields in field-number order. */\n"
         "struct olg_pb_msg {\n"
         "  const char *short_name;\n"
         "  uint32_t n_fields;\n"
         "  const olg_pb_field *fields;\n"
         "};\n\n"
         "/* The field numbered no of message m, or NULL when m has none. */\n"
         "const olg_pb_field *olg__pb_field(const olg_pb_msg *m, uint32_t no);\n\n"
         "/* Every message of onnx.proto, named as protobuf-c names its descriptors. */\n"]
    for m in order:
        h.append("extern const olg_pb_msg olg__pbm_%s; /* %s */\n" % (c_name(m), m.full))
    h.append("\n/* The same list for X-macros: X(name) for each message. */\n"
             "#define OLG_PB_MESSAGES(X) \\\n")
    for k, m in enumerate(order):
        h.append("  X(%s)%s\n" % (c_name(m), " \\" if k + 1 < len(order) else ""))
    h.append("\n#endif\n")

    c = [head, '#include "pb_schema.h"\n\n#include "pb.h"\n\n']
    for m in order:
        if not m.fields:
            continue
        c.append("static const olg_pb_field fields_%s[] = {\n" % c_name(m))
        for no, fname, label, ftype in sorted(m.fields):
            wt, sub = resolve(top, m, ftype)
            c.append('  {"%s", %d, %s, %d, %s},\n'
                     % (fname, no, wt, label == "repeated",
                        "&olg__pbm_%s" % c_name(sub) if sub else "NULL"))
        c.append("};\n")
    c.append("\n")
    for m in order:
        n = len(m.fields)
        c.append('const olg_pb_msg olg__pbm_%s = {"%s", %d, %s};\n'
                 % (c_name(m), m.name, n, "fields_" + c_name(m) if n else "NULL"))
    c.append("\nconst olg_pb_field *olg__pb_field(const olg_pb_msg *m, uint32_t no) {\n"
             "  /* most messages number their first fields 1, 2, 3...: one look for those */\n"
             "  if (no - 1 < m->n_fields && m->fields[no - 1].no == no) return &m->fields[no - 1];\n"
             "  uint32_t lo = 0, hi = m->n_fields;\n"
             "  while (lo < hi) {\n"
             "    uint32_t mid = lo + (hi - lo) / 2;\n"
             "    if (m->fields[mid].no == no) return &m->fields[mid];\n"
             "    if (m->fields[mid].no < no) lo = mid + 1;\n"
             "    else hi = mid;\n"
             "  }\n"
             "  return NULL;\n"
             "}\n")
    return "".join(h), "".join(c)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proto", default=DEFAULT_PROTO)
    ap.add_argument("--out-dir", default=DEFAULT_OUT)
    a = ap.parse_args(argv)
    with open(a.proto, encoding="utf-8") as f:
        text = f.read()
    h, c = generate(text, "lib/serialize/onnx.proto")
    for name, body in (("pb_schema.h", h), ("pb_schema.c", c)):
        with open(os.path.join(a.out_dir, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
