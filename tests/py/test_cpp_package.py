"""The C++ wrapper as a C++ server uses it: `make install DESTDIR=<tmp>` installs the header and
the CMake package (LIBDIR/cmake/onnxlegal, beside the pkg-config file); two programs of
tests/cpp/package are configured with CMake's find_package(onnxlegal) against the staged tree and
built. One converts a model with a C++ lambda as the symbolic of a custom op and checks the
result; the other destroys the source model before using the converted one (ASan when the
compiler has it), which the wrapper's shared ownership makes safe."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, "%s\n%s\n%s" % (" ".join(cmd), r.stdout, r.stderr)
    return r


def asan_works(tmp):
    src = tmp / "a.cpp"
    src.write_text("int main() { return 0; }\n")
    r = subprocess.run(["c++", "-fsanitize=address", str(src), "-o", str(tmp / "a")],
                       capture_output=True)
    return r.returncode == 0 and subprocess.run([str(tmp / "a")]).returncode == 0


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not shutil.which("cmake") or not shutil.which("c++"):
        pytest.skip("cmake or a C++ compiler is not installed")
    tmp = tmp_path_factory.mktemp("cpp-package")
    stage = tmp / "root"
    run(["make", "-s", "PYLINK=0", "BUILD=" + BUILD, "install", "DESTDIR=" + str(stage), "PREFIX=/opt/olg"],
        cwd=ROOT)
    prefix = stage / "opt" / "olg"
    assert (prefix / "include/onnxlegal/onnxlegal.hpp").is_file()
    assert (prefix / "lib/cmake/onnxlegal/onnxlegalConfig.cmake").is_file()
    assert (prefix / "lib/cmake/onnxlegal/onnxlegalConfigVersion.cmake").is_file()
    bdir = tmp / "b"
    flags = "-fsanitize=address -fno-omit-frame-pointer" if asan_works(tmp) else ""
    run(["cmake", "-S", os.path.join(ROOT, "tests", "cpp", "package"), "-B", str(bdir),
         "-DCMAKE_PREFIX_PATH=" + str(prefix), "-DCMAKE_BUILD_TYPE=Debug",
         "-DCMAKE_CXX_FLAGS=" + flags])
    run(["cmake", "--build", str(bdir), "-j2"])
    env = dict(os.environ, LD_LIBRARY_PATH=str(prefix / "lib"),
               ASAN_OPTIONS="detect_leaks=1")
    return bdir, env, prefix


def test_find_package_convert_with_lambda_symbolic(built, tmp_path):
    bdir, env, prefix = built
    out = tmp_path / "out.onnx"
    r = run([str(bdir / "convert_server"), str(out)], env=env)
    assert "convert refused:" in r.stdout
    # the program is linked against the staged library, not the build tree's
    ldd = run(["ldd", str(bdir / "convert_server")], env=env).stdout
    assert str(prefix / "lib" / "libonnxlegal.so.0") in ldd
    onnx = pytest.importorskip("onnx")
    m = onnx.load(str(out))
    onnx.checker.check_model(m, full_check=True)
    assert [n.op_type for n in m.graph.node] == ["MatMul", "Sigmoid", "Mul", "ReduceSum"]
    assert m.opset_import[0].version == 11


def test_result_outlives_its_source(built, tmp_path):
    bdir, env, _ = built
    out = tmp_path / "early.onnx"
    r = run([str(bdir / "borrow_early_free"), str(out)], env=env)
    assert r.stdout.startswith("ok:")
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    m = onnx.load(str(out))
    w = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}["W"]
    assert w.ravel().tolist() == [1.0 + i for i in range(12)]


def test_version_file_refuses_other_major(built, tmp_path):
    _, _, prefix = built
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\n"
        "find_package(onnxlegal 1.0 CONFIG)\n"
        "if(onnxlegal_FOUND)\n  message(FATAL_ERROR \"found an incompatible version\")\nendif()\n")
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b"),
         "-DCMAKE_PREFIX_PATH=" + str(prefix)])
