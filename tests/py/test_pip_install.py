"""The Python package installed as a user installs it, used from outside the source tree, in a
fresh virtual environment (with the system's site packages, for numpy and torch; no network:
--no-build-isolation --no-index) and with no environment variable set:

- `pip install` of a fresh copy of the checkout (its tracked files) builds the C library and ships
  it inside the package (setup.py's build step): import, convert and export work (issue 29, a);
- `pip install` of the package files alone (no C sources) ships no library and finds the
  INSTALLED one (staged by `make install DESTDIR=...`, through pkg-config), and says what to do
  when there is none;
- `make install`'s copy into PREFIX's dist-packages finds the library beside its prefix, and
  `python3 -m onnxlegal info` runs the installed tool;
- the loader's messages: ONNXLEGAL_LIBRARY may name the library's folder; a source tree without
  a built library is told to run `make lib`."""
import json
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


def make_venv(where):
    """A fresh virtual environment's python (skips when venv or pip is missing)."""
    r = subprocess.run([sys.executable, "-c", "import venv, ensurepip"], capture_output=True)
    if r.returncode != 0:
        pytest.skip("python3-venv (venv, ensurepip) is not installed")
    run([sys.executable, "-m", "venv", "--system-site-packages", str(where)])
    py = str(where / "bin" / "python")
    if subprocess.run([py, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("pip is not available in a virtual environment")
    return py


def installed_library():
    """An onnxlegal library the system already has (then "none installed" cannot be shown)."""
    import ctypes.util
    r = subprocess.run(["pkg-config", "--exists", "onnxlegal"], capture_output=True,
                       env=clean_env())
    return ctypes.util.find_library("onnxlegal") or r.returncode == 0


def fresh_clone(dest):
    """The checkout's tracked files as they are in the working tree (a clone of what would be
    committed), without build/ or the package's link to the tree's library."""
    r = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout")
    for rel in r.stdout.decode().split("\0"):
        path = os.path.join(ROOT, rel)
        if rel and os.path.isfile(path):
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(path, os.path.join(dest, rel))


USE = r"""
import json, sys, numpy as np, onnxlegal
with onnxlegal.Model(opset=11) as m:
    x = m.graph.add_input("x", np.float32, [2, 3])
    m.graph.add_output(m.graph.node("Unsqueeze", [m.graph.node("Relu", [x])], outputs=["y"],
                                    axes=[0]))
    data = m.to_bytes()
out = {"file": onnxlegal.__file__, "lib": onnxlegal.lib.path,
       "converted": onnxlegal.Model.from_bytes(onnxlegal.convert(data, 13)).opset("")}
try:
    import torch, onnxlegal.torch
except ImportError:
    pass
else:
    rep = onnxlegal.torch.export(torch.nn.Softmax(1), (torch.randn(2, 3),), sys.argv[1],
                                 opset_version=13)
    out["exported"] = rep["opset"]
    out["reconverted"] = onnxlegal.convert(sys.argv[1], 11).opset("")
print(json.dumps(out))
"""


def test_pip_install_from_a_fresh_clone_ships_the_library(tmp_path):
    """Issue 29 (a): pip install of a fresh clone, then from another folder, with no
    environment variable set, import, convert and export work on the library inside the
    package."""
    src, elsewhere = tmp_path / "clone", tmp_path / "elsewhere"
    fresh_clone(str(src))
    elsewhere.mkdir()
    py = make_venv(tmp_path / "venv")
    run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", str(src)],
        cwd=str(elsewhere), env=clean_env())
    out = json.loads(run([py, "-c", USE, str(elsewhere / "e.onnx")], cwd=str(elsewhere),
                         env=clean_env()).stdout)
    pkg = os.path.dirname(out["file"])
    assert pkg.startswith(str(tmp_path / "venv")), out
    assert out["lib"] == os.path.join(pkg, "libonnxlegal.so.0"), out
    assert not os.path.islink(out["lib"])  # the library itself, not a link into the clone
    assert out["converted"] == 13
    try:
        import torch  # noqa: F401  (the venv sees the system's packages: it has torch too)
    except ImportError:
        pass
    else:
        assert out["exported"] == 13 and out["reconverted"] == 11, out
    # a platform wheel: the package holds native code
    wheel = next((tmp_path / "venv").glob("lib/python3*/site-packages/onnxlegal-*.dist-info/WHEEL"))
    assert "Root-Is-Purelib: false" in wheel.read_text()


def test_pip_install_without_c_sources_uses_the_installed_library(staged):
    tmp, stage, model, elsewhere = staged
    # the checkout's packaging files alone, copied so that the build writes nothing in the tree
    src = tmp / "src"
    shutil.copytree(os.path.join(ROOT, "bindings", "python", "onnxlegal"),
                    src / "bindings" / "python" / "onnxlegal",
                    ignore=shutil.ignore_patterns("*.so*", "__pycache__"))
    for f in ("pyproject.toml", "setup.cfg", "setup.py", "README.md"):
        shutil.copy(os.path.join(ROOT, f), src / f)
    venv = tmp / "venv"
    py = make_venv(venv)
    run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", str(src)],
        cwd=str(elsewhere), env=clean_env())
    if not installed_library():  # nothing to fall back to: the message says what to do
        r = subprocess.run([py, "-c", "import onnxlegal"], cwd=str(elsewhere), env=clean_env(),
                           capture_output=True, text=True)
        assert r.returncode != 0 and "carries no libonnxlegal.so.0" in r.stderr, r.stderr
        assert "pip install --no-build-isolation ." in r.stderr and "make lib`" not in r.stderr
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


def test_library_folder_and_source_tree_hints(tmp_path):
    lib_dir = os.path.join(BUILD, "lib")
    r = run([sys.executable, "-c", "import onnxlegal; print(onnxlegal.lib.path)"], cwd=str(tmp_path),
            env=clean_env(PYTHONPATH=os.path.join(ROOT, "bindings", "python"),
                          ONNXLEGAL_LIBRARY=lib_dir))
    assert r.stdout.strip() == os.path.join(lib_dir, "libonnxlegal.so.0")
    # a source tree whose library is not built: `make lib`, in that tree
    tree = tmp_path / "tree"
    shutil.copytree(os.path.join(ROOT, "bindings", "python", "onnxlegal"),
                    tree / "bindings" / "python" / "onnxlegal",
                    ignore=shutil.ignore_patterns("*.so*", "__pycache__"))
    (tree / "include" / "onnxlegal").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "Makefile"), tree / "Makefile")
    if installed_library():
        pytest.skip("an installed libonnxlegal would be loaded")
    r = subprocess.run([sys.executable, "-c", "import onnxlegal"], cwd=str(tmp_path),
                       env=clean_env(PYTHONPATH=str(tree / "bindings" / "python")),
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "is not built. Run `make lib` in %s" % tree in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-c", "import onnxlegal"], cwd=str(tmp_path),
                       env=clean_env(PYTHONPATH=str(tree / "bindings" / "python"),
                                     ONNXLEGAL_LIBRARY=str(tmp_path)),
                       capture_output=True, text=True)
    assert "%s does not exist (from ONNXLEGAL_LIBRARY=%s)" % (
        tmp_path / "libonnxlegal.so.0", tmp_path) in r.stderr, r.stderr
