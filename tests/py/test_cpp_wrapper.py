"""The header-only C++17 wrapper (bindings/cpp/onnxlegal.hpp): tests/cpp/test_wrapper.cpp
compiles warning-free with g++ (and clang++ when present) under -std=c++17 -Wall -Wextra
-Werror, runs, and the model it writes passes ONNX's checker."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import onnxlegal  # noqa: E402

LIB = os.path.realpath(onnxlegal.lib.path)  # the library the binding loaded: the build's own
HAS_WRITER = "olg_model_write_file" not in onnxlegal.lib.missing


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_wrapper_compiles_runs_and_writes(compiler, tmp_path):
    if not shutil.which(compiler):
        pytest.skip("%s is not installed" % compiler)
    exe = tmp_path / "test_wrapper"
    cmd = [compiler, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic",
           "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "bindings", "cpp"),
           os.path.join(ROOT, "tests", "cpp", "test_wrapper.cpp"), "-o", str(exe), LIB,
           "-Wl,-rpath," + os.path.dirname(LIB)]
    if not HAS_WRITER:
        cmd.insert(1, "-DOLG_TEST_NO_WRITER")
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "m.onnx"
    r = subprocess.run([str(exe), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "[tr] z = Transpose <perm = [1, 0]> (y)" in r.stdout
    if not HAS_WRITER:
        pytest.skip("built and ran; the protobuf writer is not in this build, so nothing written")
    onnx = pytest.importorskip("onnx")
    proto = onnx.load(str(out))
    onnx.checker.check_model(proto, full_check=True)
    assert proto.producer_name == "cpp-wrapper-test" and proto.graph.name == "cpp"
    assert [n.op_type for n in proto.graph.node] == ["MatMul", "If", "Transpose"]
