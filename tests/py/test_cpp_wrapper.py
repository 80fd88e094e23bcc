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


STRICT_CXX = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wold-style-cast",
              "-Wzero-as-null-pointer-constant"]


def _headers():
    d = os.path.join(ROOT, "include", "onnxlegal")
    return sorted(f for f in os.listdir(d) if f.endswith(".h"))


@pytest.mark.parametrize("compiler", ["gcc", "clang", "g++", "clang++"])
def test_every_public_header_compiles_clean_under_strict_warnings(compiler, tmp_path):
    """Each public header alone, and the C++ wrapper, with -Wall -Wextra -Wpedantic and the
    strict C++ warnings users turn on (issue 28, point 6): not one warning."""
    if not shutil.which(compiler):
        pytest.skip("%s is not installed" % compiler)
    cxx = compiler.endswith("++")
    flags = STRICT_CXX + (["-Wweak-vtables"] if compiler.startswith("clang") else []) if cxx else \
        ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wstrict-prototypes"]
    units = ["onnxlegal/%s" % h for h in _headers()] + (["onnxlegal.hpp"] if cxx else [])
    for h in units:
        src = tmp_path / ("t.cpp" if cxx else "t.c")
        # the init macros used too: they expand in the caller's code
        body = ("int main(void) { olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT; "
                "olg_write_options w = OLG_WRITE_OPTIONS_INIT; olg_read_options r = OLG_READ_OPTIONS_INIT; "
                "olg_model_options m = OLG_MODEL_OPTIONS_INIT; olg_allocator a = OLG_ALLOCATOR_INIT; "
                "olg_value v = OLG_NO_VALUE; (void)o; (void)w; (void)r; (void)m; (void)a; (void)v; "
                "return 0; }\n")
        src.write_text('#include "%s"\n#include "onnxlegal/onnxlegal.h"\n%s' % (h, body))
        r = subprocess.run([compiler, "-fsyntax-only"] + flags + ["-I" + os.path.join(ROOT, "include"),
                            "-I" + os.path.join(ROOT, "bindings", "cpp"), str(src)],
                           capture_output=True, text=True)
        assert r.returncode == 0, "%s with %s:\n%s" % (h, compiler, r.stderr)


def _compile_and_run(code, tmp_path):
    """code compiled with the strict flags against the library, then run in tmp_path."""
    src, exe = tmp_path / "example.cpp", tmp_path / "example"
    src.write_text(code)
    r = subprocess.run(["g++"] + STRICT_CXX + ["-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(ROOT, "bindings", "cpp"), str(src), "-o", str(exe), LIB,
                        "-Wl,-rpath," + os.path.dirname(LIB)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(exe)], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_the_example_at_the_top_of_the_wrapper_writes_a_valid_model(tmp_path):
    """The header's first example, compiled as it is written, makes a model `check` accepts."""
    if not shutil.which("g++") or not HAS_WRITER:
        pytest.skip("g++ or the writer is missing")
    lines = open(os.path.join(ROOT, "bindings", "cpp", "onnxlegal.hpp")).read().splitlines()
    start = lines.index("//   onnxlegal::Model m(17);")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("//   m.write("))
    code = "\n".join(l[len("//   "):] for l in lines[start:end + 1])
    r = _compile_and_run('#include "onnxlegal.hpp"\nint main() {\n%s\n  return 0;\n}\n' % code, tmp_path)
    tool = os.path.join(os.path.dirname(os.path.dirname(LIB)), "bin", "onnxlegal")
    r = subprocess.run([tool, "check", str(tmp_path / "model.onnx")], capture_output=True, text=True)
    assert r.returncode == 0 and "valid" in r.stdout, r.stdout + r.stderr


def test_the_worked_example_of_docs_cpp_compiles_runs_and_prints_what_it_says(tmp_path):
    if not shutil.which("g++") or not HAS_WRITER:
        pytest.skip("g++ or the writer is missing")
    text = open(os.path.join(ROOT, "docs", "cpp.md")).read()
    code = text.split("<!-- example: compiled and run by tests/py/test_cpp_wrapper.py -->\n```cpp\n")[1]
    code = code.split("\n```")[0]
    r = _compile_and_run(code.replace("#include <onnxlegal/onnxlegal.hpp>", '#include "onnxlegal.hpp"'),
                         tmp_path)
    lines = r.stdout.splitlines()
    assert lines[0] == "converted: 3 nodes, 0 warnings", r.stdout
    assert lines[1].startswith("error OLG-LOWER-UNSUPPORTED-OP: node 'act' (my::Swish, output 'y', opset 13): "), r.stdout
    assert (tmp_path / "served.onnx").exists()
