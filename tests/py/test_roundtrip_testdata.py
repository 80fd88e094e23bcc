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
from onnx import AttributeProto, TensorProto, helper, numpy_helper  # noqa: E402

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


def _field(no, payload):
    """A length-delimited protobuf field (tag, length, bytes)."""
    def varint(v):
        out = bytearray()
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
        return bytes(out)
    return varint(no << 3 | 2) + varint(len(payload)) + payload


def _append(msg, raw):
    """Adds raw fields to msg (onnx 1.12 keeps the ones it does not know as unknown fields)."""
    msg.ParseFromString(msg.SerializeToString() + raw)


def _entry(key, value):
    return _field(1, key.encode()) + _field(2, value.encode())


def _everything_model():
    """Every part of the format onnx 1.12 can build, plus newer fields and unknown ones as raw
    bytes: functions, training info, sparse initializers, quantization annotations, segment,
    sequence/map/optional/sparse types with denotations, SPARSE_TENSOR and TYPE_PROTO attributes,
    ref_attr_name, subgraphs, metadata_props everywhere (IR 10), overload and device
    configurations (IR 11)."""
    f32 = TensorProto.FLOAT
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(f32, [2, "n"]))
    seq.denotation = "seq"
    mp = onnx.TypeProto()
    mp.map_type.key_type = TensorProto.INT64
    mp.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(f32, None))
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.INT32, []))
    sp = helper.make_sparse_tensor_type_proto(f32, [5])
    x = helper.make_tensor_value_info("x", f32, ["batch", 3])
    x.type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    x.doc_string = "input x"
    inputs = [x, helper.make_value_info("s", seq), helper.make_value_info("m", mp),
              helper.make_value_info("o", opt), helper.make_value_info("sp", sp),
              helper.make_tensor_value_info("c", TensorProto.BOOL, [])]
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("sv", f32, [2], [7.0, 8.0]),
        helper.make_tensor("si", TensorProto.INT64, [2], [1, 4]), [5])
    # the segment field is kept as it is, but not interpreted: the data must still cover the
    # dims (a partial tensor is refused, since every later stage reads all its elements)
    seg = helper.make_tensor("seg", f32, [2], [1.0, 2.0])
    seg.segment.begin = 0
    seg.segment.end = 2
    fn_node = helper.make_node("LeakyRelu", ["a"], ["b"])
    fn_node.attribute.append(AttributeProto(name="alpha", ref_attr_name="alpha",
                                            type=AttributeProto.FLOAT))
    fn = helper.make_function("com.fn", "MyFn", ["a"], ["b"], [fn_node],
                              [helper.make_opsetid("", 17)], attributes=["alpha"])
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", f32, ["batch", 3])])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", f32, None)])
    nodes = [
        helper.make_node("MyFn", ["x"], ["y"], domain="com.fn", alpha=0.5, name="call"),
        helper.make_node("Constant", [], ["k"], sparse_value=sparse),
        helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g),
        helper.make_node("SequenceEmpty", [], ["se"], dtype=f32, doc_string="empty"),
    ]
    tp_attr = helper.make_attribute("tp", helper.make_tensor_type_proto(f32, [1]))
    nodes[3].attribute.append(tp_attr)
    g = helper.make_graph(
        nodes, "everything", inputs,
        [helper.make_tensor_value_info("y", f32, ["batch", 3]),
         helper.make_tensor_value_info("z", f32, ["batch", 3])],
        [seg, helper.make_tensor("ints", TensorProto.INT64, [3], [1, -2, 3])],
        doc_string="all of it", sparse_initializer=[sparse],
        value_info=[helper.make_value_info("se", seq)])
    qa = g.quantization_annotation.add()
    qa.tensor_name = "y"
    kv = qa.quant_parameter_tensor_names.add()
    kv.key, kv.value = "SCALE_TENSOR", "ints"
    init_g = helper.make_graph([], "init", [], [])
    algo_g = helper.make_graph([helper.make_node("Identity", ["ints"], ["ints_new"])], "algo",
                               [], [helper.make_tensor_value_info("ints_new", TensorProto.INT64, [3])])
    ti = onnx.TrainingInfoProto(initialization=init_g, algorithm=algo_g)
    b = ti.update_binding.add()
    b.key, b.value = "ints", "ints_new"
    # fields newer than onnx 1.12 (unknown to it, known to us), then truly unknown ones
    _append(g.node[0], _field(8, b"v2") + _field(9, _entry("k", "v")) +
            _field(10, _field(1, b"cfg") + bytes([0x18, 1])))
    _append(g.input[0], _field(4, _entry("vk", "vv")))
    _append(g, _field(16, _entry("gk", "gv")) + _field(999, b"unknown to all"))
    _append(g.node[3], bytes([0xB8, 0x3E, 0x07]))  # field 999, varint 7
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("com.fn", 1)],
                              functions=[fn], producer_name="test", doc_string="doc")
    model.training_info.append(ti)
    model.ir_version = 8
    helper.set_model_props(model, {"author": "me", "empty": ""})
    _append(model, _field(26, _field(1, b"cfg") + bytes([0x10, 2]) + _field(3, b"gpu0")))
    return model


@needs_io
def test_every_part_of_the_format_round_trips():
    original = _everything_model()
    data = original.SerializeToString()
    with onnxlegal.Model.from_bytes(data) as m:
        written = m.to_bytes()
    assert onnx.load_from_string(written) == original
    assert written == data
