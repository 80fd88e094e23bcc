"""The committed reader field tables (lib/serialize/pb_schema.h, pb_schema.c) are exactly what
tools/gen_pb_schema.py makes from lib/serialize/onnx.proto, and the generator reads the proto's
subset of the language as protoc does (tests/unit/test_pb_schema.c checks the tables against
protoc-c's descriptors field by field)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools", "gen_pb_schema.py")
SER = os.path.join(ROOT, "lib", "serialize")

sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_pb_schema  # noqa: E402


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def test_regenerates_committed_files(tmp_path):
    subprocess.run([sys.executable, GEN, "--out-dir", str(tmp_path)], check=True, cwd=ROOT)
    for name in ("pb_schema.h", "pb_schema.c"):
        assert read(tmp_path / name) == read(os.path.join(SER, name)), (
            "lib/serialize/%s is stale: run `python3 tools/gen_pb_schema.py` from the repository "
            "root and commit the result" % name)


def test_every_field_of_onnx_proto_is_in_the_tables():
    # counted over the proto text itself, independently of the generator's parser: every field
    # declaration ("[label] type name = N [options];"; an enum value has no type) and message
    text = re.sub(r"//[^\n]*", "", read(os.path.join(SER, "onnx.proto")))
    fields = len(re.findall(r"^\s*(?:optional\s+|repeated\s+|required\s+)?[\w.]+\s+\w+\s*=\s*\d+"
                            r"\s*(?:\[[^\]]*\])?\s*;", text, re.M))
    messages = len(re.findall(r"^\s*message\s", text, re.M))
    c = read(os.path.join(SER, "pb_schema.c"))
    assert fields > 100 and c.count("\n  {\"") == fields
    assert messages > 20 and c.count("\nconst olg_pb_msg olg__pbm_") == messages


def test_parser_on_a_small_proto():
    h, c = gen_pb_schema.generate(
        'syntax = "proto2"; package onnx;\n'
        "message A { enum E { X = 0; } message B { optional A a = 2; } // comment\n"
        "  optional E e = 3; repeated B b = 1 [packed = false]; reserved 4 to 6;\n"
        "  oneof v { fixed64 q = 7; string s = 8; } repeated float f = 9 [packed = true]; }\n",
        "t.proto")
    assert "extern const olg_pb_msg olg__pbm_a__b;" in h
    assert '{"b", 1, PB_LEN, 1, &olg__pbm_a__b},\n  {"e", 3, PB_VARINT, 0, NULL},' in c
    assert '{"q", 7, PB_I64, 0, NULL},\n  {"s", 8, PB_LEN, 0, NULL},' in c
    assert '{"f", 9, PB_I32, 1, NULL},' in c
    assert '{"a", 2, PB_LEN, 0, &olg__pbm_a},' in c
