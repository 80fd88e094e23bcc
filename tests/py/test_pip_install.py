"""The Python package installed as a user installs it, used from outside the source tree:
`pip install` of the checkout's pyproject into a fresh virtual environment (with the system's
site packages, for numpy; no network: --no-build-isolation --no-index), and `make install`'s copy
into PREFIX's dist-packages. Each finds the INSTALLED library (staged by `make install
DESTDIR=...`; the venv through pkg-config, the make-installed copy beside its prefix), and
`python3 -m onnxlegal info` runs the installed tool."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import onnxlegal  # noqa: E402


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, "%s\n%s\n%s" % (" ".join(map(str, cmd)), r.stdout, r.stderr)
    return r


def clean_env(**extra):
    """An environment that knows nothing of the source tree."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ONNXLEGAL_BUILD", "ONNXLEGAL_LIBRARY", "ONNXLEGAL_TOOL",
                        "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PKG_CONFIG_SYSROOT_DIR")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pyinstall")
    stage = tmp / "root"
    run(["make", "-s", "PYLINK=0", "BUILD=" + BUILD, "install", "DESTDIR=" + str(stage), "PREFIX=/usr/local"],
        cwd=ROOT)
    model = tmp / "tiny.onnx"
    with onnxlegal.Model(opset=13) as m:
        x = m.graph.add_input("x", np.float32, [2, 3])
        m.graph.add_output(m.graph.node("Relu", [x], outputs=["y"]))
        m.write(str(model))
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return tmp, stage, model, elsewhere


def test_pyproject_version_is_the_library_version():
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == onnxlegal.version()


def test_pip_install_into_fresh_venv(staged):
    tmp, stage, model, elsewhere = staged
    r = subprocess.run([sys.executable, "-c", "import venv, ensurepip"], capture_output=True)
    if r.returncode != 0:
        pytest.skip("python3-venv (venv, ensurepip) is not installed")
    # the checkout's packaging files, copied so that the build writes nothing in the tree
    src = tmp / "src"
    shutil.copytree(os.path.join(ROOT, "bindings", "python", "onnxlegal"),
                    src / "bindings" / "python" / "onnxlegal",
                    ignore=shutil.ignore_patterns("*.so*", "__pycache__"))
    for f in ("pyproject.toml", "setup.cfg", "README.md"):
        shutil.copy(os.path.join(ROOT, f), src / f)
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    py = str(venv / "bin" / "python")
    run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", str(src)],
        cwd=str(elsewhere), env=clean_env())
    env = clean_env(PKG_CONFIG_PATH=str(stage / "usr/local/lib/pkgconfig"),
                    PKG_CONFIG_SYSROOT_DIR=str(stage))
    out = run([py, "-c", "import onnxlegal, onnxlegal.__main__ as m; print(onnxlegal.__file__); "
               "print(onnxlegal.lib.path); print(m.find_tool()); print(onnxlegal.version())"],
              cwd=str(elsewhere), env=env).stdout.split("\n")
    assert out[0].startswith(str(venv)), out
    assert os.path.realpath(out[1]) == os.path.realpath(stage / "usr/local/lib/libonnxlegal.so.0")
    assert out[2] == str(stage / "usr/local/bin/onnxlegal")
    r = run([py, "-m", "onnxlegal", "info", str(model)], cwd=str(elsewhere), env=env)
    assert "opsets: ai.onnx 13" in r.stdout and "Relu" in r.stdout
    # the tool's exit status comes through
    r = subprocess.run([py, "-m", "onnxlegal", "info", str(tmp / "missing.onnx")],
                       cwd=str(elsewhere), env=env, capture_output=True, text=True)
    assert r.returncode == 2 and "missing.onnx" in r.stderr


def test_make_install_installs_the_package(staged):
    tmp, stage, model, elsewhere = staged
    pkgs = list((stage / "usr/local/lib").glob("python3*/*-packages/onnxlegal/__init__.py"))
    assert len(pkgs) == 1, pkgs
    site = pkgs[0].parent.parent
    env = clean_env(PYTHONPATH=str(site))
    out = run([sys.executable, "-c", "import onnxlegal; print(onnxlegal.lib.path)"],
              cwd=str(elsewhere), env=env).stdout.strip()
    assert os.path.realpath(out) == os.path.realpath(stage / "usr/local/lib/libonnxlegal.so.0")
    r = run([sys.executable, "-m", "onnxlegal", "info", str(model)], cwd=str(elsewhere), env=env)
    assert "Relu" in r.stdout
