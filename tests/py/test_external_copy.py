"""Weights copied file to file (issue 23, slice d): `convert --external-data=FILE` of a model whose
weights are in external data copies each unchanged weight from the source's data file to FILE in
the kernel (copy_file_range), or by a plain copy where the kernel cannot (forced here with
ONNXLEGAL_NO_COPY_FILE_RANGE, and across file systems when /dev/shm is one). Checked by the
mechanism, not by time: FILE holds the source's bytes at aligned offsets, both paths write the
same files, ONNX Runtime runs the output, and the converter's peak RSS stays far below the
weights' size (no weight page is touched)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")
RNG = np.random.default_rng(1)
W1 = RNG.standard_normal((256, 512)).astype(np.float32)  # 512 KiB
W2 = RNG.standard_normal((512, 64)).astype(np.float32)  # 128 KiB
B = RNG.standard_normal((64,)).astype(np.float32)  # 256 bytes, below the threshold: inline


def _ext(name, arr, off):
    t = numpy_helper.from_array(arr, name)
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", str(off)), ("length", str(arr.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def _source(d, w1=W1, w2=W2):
    # unaligned offsets in the source: the output's own alignment must not depend on them
    blob = b"\0" * 100 + w1.tobytes() + b"\0" * 3 + w2.tobytes() + B.tobytes()
    offs = (100, 100 + w1.nbytes + 3, 103 + w1.nbytes + w2.nbytes)
    (d / "weights.bin").write_bytes(blob)
    inits = [_ext("w1", w1, offs[0]), _ext("w2", w2, offs[1]), _ext("b", B, offs[2]),
             numpy_helper.from_array(np.array([0], np.int64), "ax")]
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w1"], ["h"]),
                           helper.make_node("Relu", ["h"], ["r"]),
                           helper.make_node("MatMul", ["r", "w2"], ["m"]),
                           helper.make_node("Add", ["m", "b"], ["a"]),
                           helper.make_node("Unsqueeze", ["a", "ax"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 64])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = d / "model.onnx"
    path.write_bytes(m.SerializeToString())
    return path


def _convert(src, out, env=None):
    """Runs the converter; returns its peak RSS in KiB. It runs in a child of a fresh small
    Python: a child forked from this process would count this process's pages (the high-water
    mark survives exec)."""
    probe = ("import resource, subprocess, sys; "
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
             "sys.stderr.write(r.stderr.decode()); "
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    cmd = [TOOL, "convert", str(src), str(out), "--opset", "17", "--external-data=w17.bin"]
    r = subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    rc, rss = r.stdout.split()
    assert rc == "0", r.stderr
    return int(rss)


def _check_output(out):
    m = onnx.load(str(out), load_external_data=False)
    data = (out.parent / "w17.bin").read_bytes()
    inits = {t.name: t for t in m.graph.initializer}
    for name, arr in (("w1", W1), ("w2", W2)):
        ext = {e.key: e.value for e in inits[name].external_data}
        assert ext["location"] == "w17.bin"
        off, n = int(ext["offset"]), int(ext["length"])
        assert n == arr.nbytes and off % 4096 == 0, (name, off, n)
        assert data[off:off + n] == arr.tobytes(), name
    assert inits["b"].data_location != TensorProto.EXTERNAL and inits["b"].raw_data == B.tobytes()
    assert [i.version for i in m.opset_import if i.domain in ("", "ai.onnx")] == [17]


def test_external_to_external_copies_the_source_bytes(tmp_path):
    from ortrun import run_batch
    src = _source(tmp_path)
    outs = {}
    for mode, env in (("kernel", None), ("plain", {"ONNXLEGAL_NO_COPY_FILE_RANGE": "1"})):
        d = tmp_path / mode
        d.mkdir()
        _convert(src, d / "m17.onnx", env)
        _check_output(d / "m17.onnx")
        outs[mode] = d / "m17.onnx"
    for f in ("m17.onnx", "w17.bin"):  # both paths write the same bytes
        assert (tmp_path / "kernel" / f).read_bytes() == (tmp_path / "plain" / f).read_bytes(), f
    x = np.linspace(-1, 1, 512, dtype=np.float32).reshape(2, 256)
    res = run_batch([(str(src), {"x": x}), (str(outs["kernel"]), {"x": x}), (str(outs["plain"]), {"x": x})])
    for r in res:
        assert not isinstance(r, str), r
    np.testing.assert_allclose(res[0]["y"], (np.maximum(x @ W1, 0) @ W2 + B)[None], rtol=1e-4, atol=1e-4)
    for r in res[1:]:
        np.testing.assert_array_equal(r["y"], res[0]["y"])


def test_copy_to_another_file_system(tmp_path):
    """copy_file_range between file systems fails with EXDEV on recent kernels: the plain copy."""
    shm = "/dev/shm"
    if not os.path.isdir(shm) or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system at hand")
    src = _source(tmp_path)
    import tempfile
    d = tempfile.mkdtemp(prefix="olg-copy-", dir=shm)
    try:
        from pathlib import Path
        _convert(src, Path(d) / "m17.onnx")
        _check_output(Path(d) / "m17.onnx")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_weights_are_not_touched(tmp_path):
    """Peak RSS does not grow with the weights: 64 MiB of them, converted in far less."""
    w1 = np.full((2048, 4096), 0.5, np.float32)  # 32 MiB
    w2 = np.full((4096, 2048), 0.25, np.float32)  # 32 MiB
    (tmp_path / "weights.bin").write_bytes(w1.tobytes() + w2.tobytes())
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w1"], ["h"]),
                           helper.make_node("MatMul", ["h", "w2"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2048])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2048])],
                          [_ext("w1", w1, 0), _ext("w2", w2, w1.nbytes)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    (tmp_path / "model.onnx").write_bytes(m.SerializeToString())
    rss_kib = _convert(tmp_path / "model.onnx", tmp_path / "m17.onnx")
    assert rss_kib < 32 * 1024, rss_kib  # the weights are 64 MiB
    data = (tmp_path / "w17.bin").read_bytes()
    assert data[:w1.nbytes] == w1.tobytes() and data[w1.nbytes:] == w2.tobytes()
