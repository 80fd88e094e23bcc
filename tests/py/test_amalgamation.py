"""The amalgamation (issue 24 (b)): `make amalgamation` writes onnxlegal.c and the public headers
beside it; in a directory of their own, with nothing else, it compiles with gcc, clang and
aarch64-linux-gnu-gcc (-std=c11 -Wall -Wextra -Werror), references no protobuf-c (nor nanopb
unless asked), and a program linked with it and libm alone builds a graph, legalizes it, checks
it, writes it, reads it back and writes it again byte for byte. The compilers are the project's
own dependencies (tools/deps.sh): a missing one fails the test."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = os.path.join(ROOT, "tests", "amalgamation", "roundtrip.c")
CONVERT_MANY = os.path.join(ROOT, "tests", "amalgamation", "convert_many.c")
WARN = ["-std=c11", "-Wall", "-Wextra", "-Werror"]


def need(cc):
    path = shutil.which(cc)
    assert path, "%s is missing: run `make deps` (tools/deps.sh installs it)" % cc
    return path


@pytest.fixture(scope="module")
def amalg(tmp_path_factory):
    build = tmp_path_factory.mktemp("build")
    subprocess.run(["make", "-s", "BUILD=%s" % build, "amalgamation"], cwd=ROOT, check=True,
                   capture_output=True)
    # only what make wrote, copied to a directory of its own
    out = tmp_path_factory.mktemp("amalgamation")
    shutil.copytree(build / "amalgamation", out, dirs_exist_ok=True)
    names = sorted(os.listdir(out))
    assert names == ["onnxlegal", "onnxlegal.c"], names
    public = {f for f in os.listdir(os.path.join(ROOT, "include", "onnxlegal"))}
    assert set(os.listdir(out / "onnxlegal")) == public
    return out


def undefined(obj):
    r = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in r.stdout.splitlines() if line.strip()}


def compile_one(cc, amalg, obj, *flags):
    r = subprocess.run([cc, *WARN, *flags, "-c", "onnxlegal.c", "-o", str(obj)], cwd=amalg,
                       capture_output=True, text=True)
    assert r.returncode == 0, "%s %s:\n%s" % (cc, " ".join(flags), r.stderr[-4000:])
    return undefined(obj)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_compiles_links_and_runs(cc, amalg, tmp_path):
    need(cc)
    obj = tmp_path / "onnxlegal.o"
    und = compile_one(cc, amalg, obj)
    assert not [s for s in und if s.startswith("protobuf_c")], und
    assert not [s for s in und if s.startswith("pb_")], und  # no nanopb unless asked
    exe = tmp_path / "roundtrip"
    r = subprocess.run([cc, *WARN, "-I", str(amalg), PROGRAM, str(obj), "-lm", "-o", str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    r = subprocess.run([str(exe), str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ok "), r.stdout + r.stderr
    # libc and libm only
    r = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True, check=True)
    needed = {line.split("[")[1].rstrip("]") for line in r.stdout.splitlines() if "(NEEDED)" in line}
    assert needed <= {"libc.so.6", "libm.so.6"}, needed


@pytest.fixture(scope="module")
def optimized(amalg, tmp_path_factory):
    """The amalgamation compiled at -O2 by clang and by gcc: {cc: object file}."""
    out = tmp_path_factory.mktemp("optimized")
    objs = {}
    # clang stays silent at -O2 with every warning an error; gcc's -O2 sees across the former
    # files (format truncation of olg_last_error's buffer, a maybe-uninitialized): it builds
    for cc, flags in (("clang", ["-O2"]), ("gcc", ["-O2", "-Wno-error"])):
        need(cc)
        objs[cc] = out / ("%s.o" % cc)
        compile_one(cc, amalg, objs[cc], *flags)
    return objs


def test_optimized_builds(optimized):
    assert sorted(optimized) == ["clang", "gcc"]


NODE_TESTS = "/usr/lib/python3/dist-packages/onnx/backend/test/data/node"


@pytest.mark.skipif(not os.path.isdir(NODE_TESTS), reason="onnx's node tests are not installed")
def test_clang_and_gcc_builds_convert_alike(amalg, optimized, tmp_path):
    """Each node test and each opsets 18-27 corpus model, converted to 9, 13, 17 and 21, and to
    17 under each built-in target profile, by the -O2 library of each compiler: the same bytes.
    A difference is behaviour that depends on the compiler (see convert_many.c)."""
    import glob
    import numpy as np
    models = sorted(glob.glob(os.path.join(NODE_TESTS, "*", "model.onnx")))
    assert len(models) > 500, len(models)
    corpus = tmp_path / "corpus18"
    corpus.mkdir()
    for npz in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "corpus18", "*.npz"))):
        with np.load(npz, allow_pickle=False) as z:
            path = corpus / (os.path.basename(npz)[:-4] + ".onnx")
            path.write_bytes(z["model"].tobytes())
            models.append(str(path))
    assert len(models) > 1100, len(models)
    exes = {}
    for cc, obj in optimized.items():
        exes[cc] = tmp_path / ("convert_%s" % cc)
        r = subprocess.run([cc, "-std=c11", "-O2", "-I", str(amalg), CONVERT_MANY, str(obj), "-lm",
                            "-o", str(exes[cc])], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-4000:]
    for target in ("9", "13", "17", "21", "17:ort", "17:tensorrt", "17:openvino"):
        dirs = {}
        for cc, exe in exes.items():
            dirs[cc] = tmp_path / ("%s_%s" % (cc, target.replace(":", "_")))
            dirs[cc].mkdir()
            r = subprocess.run([str(exe), target, str(dirs[cc])] + models,
                               capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, r.stderr[-4000:]
        names = {cc: sorted(os.listdir(d)) for cc, d in dirs.items()}
        assert names["clang"] == names["gcc"], target
        assert len(names["gcc"]) > 500, (target, len(names["gcc"]))
        differ = [models[int(n[:-5])] for n in names["gcc"]
                  if (dirs["gcc"] / n).read_bytes() != (dirs["clang"] / n).read_bytes()]
        assert not differ, "%s: %d differ, e.g. %s" % (target, len(differ), differ[:5])


def test_aarch64(amalg, tmp_path):
    cc = need("aarch64-linux-gnu-gcc")
    obj = tmp_path / "onnxlegal.o"
    und = compile_one(cc, amalg, obj)
    assert not [s for s in und if s.startswith("protobuf_c") or s.startswith("pb_")], und
    r = subprocess.run(["readelf", "-h", str(obj)], capture_output=True, text=True, check=True)
    assert "AArch64" in r.stdout
    exe = tmp_path / "roundtrip"
    r = subprocess.run([cc, *WARN, "-I", str(amalg), PROGRAM, str(obj), "-lm", "-o", str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]


def test_nanopb_when_asked(amalg, tmp_path):
    need("gcc")
    und = compile_one("gcc", amalg, tmp_path / "n.o", "-DOLG_WITH_NANOPB")
    assert "pb_encode_tag" in und and not [s for s in und if s.startswith("protobuf_c")]


def test_renames_are_listed(amalg):
    with open(amalg / "onnxlegal.c", encoding="utf-8") as f:
        head = f.read(2000)
    assert "Renamed per file" in head


EXPORTER = os.path.join(ROOT, "tests", "examples", "device_exporter.c")


@pytest.mark.parametrize("nanopb", [False, True], ids=["default-writer", "nanopb-writer"])
def test_device_exporter_example(amalg, tmp_path, nanopb):
    """tests/examples/device_exporter.c, built from the amalgamation alone (with nanopb's
    encoder when asked), exports a model into its own buffer; the file it writes passes the
    onnxlegal tool's check and python3-onnx's checker, at opset 11."""
    need("gcc")
    exe, model = tmp_path / "exporter", tmp_path / "device.onnx"
    flags = ["-DOLG_WITH_NANOPB"] if nanopb else []
    libs = ["-lprotobuf-nanopb"] if nanopb else []
    r = subprocess.run(["gcc", *WARN, *flags, "-I", str(amalg), EXPORTER, str(amalg / "onnxlegal.c"),
                        "-lm", *libs, "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    r = subprocess.run([str(exe), str(model)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "with the %s writer" % ("nanopb" if nanopb else "default") in r.stdout, r.stdout
    tool = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin",
                        "onnxlegal")
    assert os.path.exists(tool), "%s: run `make` first" % tool
    r = subprocess.run([tool, "check", str(model)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    onnx = pytest.importorskip("onnx")
    m = onnx.load(str(model))
    onnx.checker.check_model(m, full_check=True)
    assert [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] == [11]
    assert [n.op_type for n in m.graph.node] == ["MatMul", "Add", "Relu"]
