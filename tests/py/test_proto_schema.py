"""lib/serialize/onnx.proto describes the same messages as ONNX's onnx.proto in the shared spec:
every message, field name, number, type, label, packing and oneof membership. Skipped where the
spec folder or protoc is absent (a user's machine has neither)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, "lib", "serialize", "onnx.proto")
SPEC = os.path.join(ROOT, "..", "shared", "onnx-spec", "onnx.proto")

descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")


def _messages(path, tmp_path):
    out = tmp_path / (os.path.basename(os.path.dirname(path)) + ".pb")
    subprocess.check_call(["protoc", "-I" + os.path.dirname(path), "-o" + str(out), path])
    fds = descriptor_pb2.FileDescriptorSet()
    fds.ParseFromString(out.read_bytes())
    msgs, enums = {}, {}

    def walk(prefix, ms, es):
        for e in es:
            enums[prefix + e.name] = {v.name: v.number for v in e.value}
        for m in ms:
            name = prefix + m.name
            msgs[name] = {f.number: (f.name, f.type, f.label, f.type_name, f.options.packed,
                                     f.HasField("oneof_index")) for f in m.field}
            walk(name + ".", m.nested_type, m.enum_type)

    walk("", fds.file[0].message_type, fds.file[0].enum_type)
    return msgs, enums


@pytest.mark.skipif(not os.path.exists(SPEC), reason="the shared ONNX spec is not here")
@pytest.mark.skipif(shutil.which("protoc") is None, reason="protoc is not installed")
def test_schema_matches_the_spec(tmp_path):
    ours, our_enums = _messages(OURS, tmp_path)
    spec, spec_enums = _messages(os.path.abspath(SPEC), tmp_path)
    assert sorted(ours) == sorted(spec)
    for name in spec:
        assert ours[name] == spec[name], name
    assert our_enums == spec_enums
