"""The protobuf reader and writer against python3-onnx.

Every model of Debian's libonnx-testdata, read by the library (from its file, mapped, and from
memory) and written back, is the same ModelProto for python3-onnx; the files are serialized
canonically, so the bytes are compared too. External data written by the library is loaded by
onnx's own loader, and external data saved by onnx is read by the library. One process for all.
"""
import glob
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import onnxlegal  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"
FILES = sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))

needs_io = pytest.mark.skipif(
    any(f in onnxlegal.lib.missing for f in ("olg_model_read_file", "olg_model_write_callback")),
    reason="the protobuf reader/writer is not in this build")


@needs_io
def test_every_testdata_model_round_trips():
    if not FILES:
        pytest.skip("libonnx-testdata is not installed (apt-get install -y libonnx-testdata)")
    equal = identical = 0
    bad = []
    for path in FILES:
        with open(path, "rb") as f:
            original = f.read()
        with onnxlegal.Model.read(path) as m:
            written = m.to_bytes()
        with onnxlegal.Model.from_bytes(original) as m:
            from_memory = m.to_bytes()
        if written == original:
            identical += 1
        same = onnx.load_from_string(written) == onnx.load_from_string(original)
        if same and from_memory == written:
            equal += 1
        else:
            bad.append(os.path.relpath(path, TESTDATA))
    print("\ntestdata: %d/%d models round-trip equal as ModelProto (%d byte-identical)"
          % (equal, len(FILES), identical))
    assert not bad, "%d models differ, e.g. %s" % (len(bad), bad[:5])
    assert equal == len(FILES)


def _model_with_weights():
    """A small valid model with raw_data initializers of several sizes and a big Constant."""
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 32)).astype(np.float32)
    w2 = rng.standard_normal((32,)).astype(np.float32)
    w3 = rng.integers(-100, 100, size=(300,), dtype=np.int64)
    c = rng.standard_normal((32, 16)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "w2"], ["h2"]),
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(c, "c_value")),
        helper.make_node("MatMul", ["h2", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
         numpy_helper.from_array(w3, "w3")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _without_locations(model):
    """onnx's loader marks loaded tensors data_location = DEFAULT explicitly: forget that."""
    tensors = list(model.graph.initializer)
    for n in model.graph.node:
        tensors += [a.t for a in n.attribute if a.HasField("t")]
    for t in tensors:
        t.ClearField("data_location")
    return model


@needs_io
def test_external_data_written_by_us_loads_in_onnx(tmp_path):
    original = _model_with_weights()
    src = tmp_path / "src.onnx"
    onnx.save(original, str(src))
    out = tmp_path / "out" / "model.onnx"
    out.parent.mkdir()
    with onnxlegal.Model.read(src) as m:
        m.write(out, external_data="model.weights", threshold=1024)
    data = out.parent / "model.weights"
    assert data.exists() and data.stat().st_size >= 64 * 32 * 4 + 32 * 16 * 4
    assert out.stat().st_size < 2048  # the weights went out
    loaded = onnx.load(str(out))  # onnx's loader resolves the locations
    assert _without_locations(loaded) == original
    onnx.checker.check_model(str(out))
    # w2 (128 bytes) stayed inline; the Constant's tensor went out
    raw = onnx.load(str(out), load_external_data=False)
    inits = {t.name: t for t in raw.graph.initializer}
    assert inits["w2"].data_location == TensorProto.DEFAULT and inits["w2"].raw_data
    assert inits["w1"].data_location == TensorProto.EXTERNAL
    assert {e.key for e in inits["w1"].external_data} == {"location", "offset", "length"}
    const = [a.t for n in raw.graph.node for a in n.attribute if a.HasField("t")][0]
    assert const.data_location == TensorProto.EXTERNAL


@needs_io
def test_external_data_saved_by_onnx_reads_in_ours(tmp_path):
    original = _model_with_weights()
    saved = onnx.load_from_string(original.SerializeToString())
    path = tmp_path / "ext.onnx"
    onnx.save_model(saved, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="ext.data", size_threshold=512)
    assert (tmp_path / "ext.data").exists()
    with onnxlegal.Model.read(path) as m:
        inline = m.to_bytes()  # loaded external data is written inline
    assert onnx.load_from_string(inline) == original
    # and copied elsewhere, with our own external file
    out = tmp_path / "again" / "m.onnx"
    out.parent.mkdir()
    with onnxlegal.Model.read(path) as m:
        m.write(out, external_data="w.bin", threshold=512)
    assert _without_locations(onnx.load(str(out))) == original
