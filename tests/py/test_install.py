"""make install into a staging root, then a C program built with pkg-config against the installed
files writes a model that onnx's full checker accepts; make uninstall removes everything."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sh(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("install"))
    build = os.path.join(d, "build")
    # PREFIX is where files will live; DESTDIR stages them, so .pc says /usr/local
    # PYLINK=0: the source tree's Python package keeps pointing at its own build
    sh(["make", "-s", "PYLINK=0", "BUILD=" + build, "install", "DESTDIR=" + d + "/root", "PREFIX=/usr/local"])
    yield d
    shutil.rmtree(d, ignore_errors=True)  # a whole build: not left for pytest's keep-3 rotation


def test_installed_files(staged):
    root = staged + "/root/usr/local"
    for f in ["include/onnxlegal/onnxlegal.h", "include/onnxlegal/graph.h", "lib/libonnxlegal.a",
              "lib/libonnxlegal.so", "lib/pkgconfig/onnxlegal.pc", "bin/onnxlegal"]:
        assert os.path.exists(os.path.join(root, f)), f
    soname = subprocess.run(["objdump", "-p", os.path.join(root, "lib/libonnxlegal.so")],
                            capture_output=True, text=True, check=True).stdout
    assert "SONAME               libonnxlegal.so.0" in soname
    # the staging build did not repoint the source tree's Python package at itself
    link = os.path.join(ROOT, "bindings", "python", "onnxlegal", "libonnxlegal.so.0")
    assert not os.path.realpath(link).startswith(os.path.realpath(staged) + os.sep)


def test_pkg_config_program_writes_valid_model(staged):
    onnx = pytest.importorskip("onnx")
    root = staged + "/root"
    env = dict(os.environ, PKG_CONFIG_PATH=root + "/usr/local/lib/pkgconfig",
               PKG_CONFIG_SYSROOT_DIR=root)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "onnxlegal"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    exe = os.path.join(staged, "hello")
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "tests/examples/hello.c", "-o", exe] + flags,
                   cwd=ROOT, check=True)
    out = os.path.join(staged, "hello.onnx")
    subprocess.run([exe, out], check=True, env=dict(env, LD_LIBRARY_PATH=root + "/usr/local/lib"))
    m = onnx.load(out)
    onnx.checker.check_model(m, full_check=True)
    assert [n.op_type for n in m.graph.node] == ["Gemm", "Relu"]
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_pc_follows_prefix_of_install(staged, tmp_path):
    # the same build installed for another PREFIX: the .pc says that prefix, not the first one
    d = str(tmp_path / "root")
    sh(["make", "-s", "PYLINK=0", "BUILD=" + staged + "/build", "install", "DESTDIR=" + d, "PREFIX=/opt/olg"])
    pc = open(d + "/opt/olg/lib/pkgconfig/onnxlegal.pc").read()
    assert "prefix=/opt/olg" in pc and "/usr/local" not in pc
    cmake = open(d + "/opt/olg/lib/cmake/onnxlegal/onnxlegalConfig.cmake").read()
    assert "/usr/local" not in cmake


def test_uninstall_removes_everything(staged, tmp_path):
    # into a root of its own (from the same build, so nothing is compiled again): the other
    # tests' staged files stay, whatever order the tests run in
    d = str(tmp_path / "root")
    sh(["make", "-s", "PYLINK=0", "BUILD=" + staged + "/build", "install", "DESTDIR=" + d, "PREFIX=/usr/local"])
    assert os.path.exists(d + "/usr/local/lib/libonnxlegal.so")
    sh(["make", "-s", "PYLINK=0", "BUILD=" + staged + "/build", "uninstall", "DESTDIR=" + d, "PREFIX=/usr/local"])
    left = [os.path.join(p, f) for p, _, fs in os.walk(d) for f in fs]
    assert left == []
