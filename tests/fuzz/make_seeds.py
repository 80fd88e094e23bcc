#!/usr/bin/python3
"""Hand-made seeds for the fuzz targets (tests/fuzz/corpus/<target>/hand-*), written with the
onnx Python package so that they are well-formed models a mutation can start from:

  extdata   models whose initializers live in an external file: the input layout of
            fuzz_extdata.c (two bytes of model length, the model, the external file), with
            locations naming the regular file, a symbolic link, a subdirectory, an empty file,
            a missing file, a directory, "..", an absolute path, offsets and lengths past the end
  builder   a few programs, structured and pseudo-random: libFuzzer grows the rest
  others    edge cases of subgraphs and sequences (If/Loop/Scan, nested, without bodies) and
            attributes without their payload

Usage: /usr/bin/python3 tests/fuzz/make_seeds.py   (rewrites the hand-* files)
"""
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data, regression=False):
    d = os.path.join(HERE, "regressions" if regression else "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "hand-" + name), "wb") as f:
        f.write(data)


def ext_model(location, offset=None, length=None, n=6, checksum=False, dtype=np.float32):
    w = numpy_helper.from_array(np.arange(n, dtype=dtype).reshape(2, -1) if n % 2 == 0
                                else np.arange(n, dtype=dtype), "W")
    raw = w.raw_data
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    if checksum:
        entries.append(("checksum", "0" * 40))
    for k, v in entries:
        e = w.external_data.add()
        e.key, e.value = k, v
    shape = list(np.arange(n).reshape(2, -1).shape) if n % 2 == 0 else [n]
    elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
    x = helper.make_tensor_value_info("X", elem, shape)
    y = helper.make_tensor_value_info("Y", elem, shape)
    g = helper.make_graph([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], "g",
                          [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m.SerializeToString(), raw


def extdata_seed(model, ext):
    assert len(model) < 65536
    return struct.pack("<H", len(model)) + model + ext


def extdata():
    cases = {
        "plain": dict(location="w.bin"),
        "offset": dict(location="w.bin", offset=8, length=24),
        "link": dict(location="link.bin"),
        "sub": dict(location="sub/w.bin"),
        "empty": dict(location="empty.bin"),
        "missing": dict(location="missing.bin"),
        "dir": dict(location="sub"),
        "dotdot": dict(location="../w.bin"),
        "absolute": dict(location="/etc/hostname"),
        "emptycomp": dict(location="sub//w.bin"),
        "past-end": dict(location="w.bin", offset=1 << 40, length=24),
        "long-length": dict(location="w.bin", offset=0, length=1 << 62),
        "bad-offset": dict(location="w.bin", offset="-1"),
        "checksum": dict(location="w.bin", checksum=True),
        "int64": dict(location="w.bin", dtype=np.int64),
        "f16": dict(location="w.bin", n=5, dtype=np.float16),
    }
    for name, kw in cases.items():
        model, raw = ext_model(**kw)
        pad = b"" if "offset" not in kw or not isinstance(kw["offset"], int) or kw["offset"] > 64 \
            else b"\0" * kw["offset"]
        put("extdata", name, extdata_seed(model, pad + raw + b"\x10"))
    # an ordinary inline model: reads without the external file
    model, raw = ext_model("w.bin")
    put("extdata", "short-file", extdata_seed(model, raw[:5]))


def if_model(with_body=True, depth=1):
    def branch(tag, d):
        if d > 1:
            inner = helper.make_node("If", ["c"], ["r" + tag + str(d)],
                                     then_branch=branch("t", d - 1), else_branch=branch("e", d - 1))
            nodes = [inner]
            out = "r" + tag + str(d)
        else:
            nodes = [helper.make_node("Identity", ["x"], ["o" + tag + str(d)])]
            out = "o" + tag + str(d)
        return helper.make_graph(nodes, tag + str(d), [],
                                 [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2])])
    attrs = dict(then_branch=branch("t", depth), else_branch=branch("e", depth)) if with_body else {}
    n = helper.make_node("If", ["c"], ["y"], name="if", **attrs)
    g = helper.make_graph([n], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                                     helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m.SerializeToString()


def loop_model():
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
         helper.make_node("SequenceInsert", ["seq_in", "acc_out"], ["seq_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_sequence_value_info("seq_in", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_sequence_value_info("seq_out", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("SequenceEmpty", [], ["s0"], dtype=TensorProto.FLOAT),
             helper.make_node("Loop", ["n", "c", "a0", "s0"], ["acc", "seq"], body=body, name="loop"),
             helper.make_node("ConcatFromSequence", ["seq"], ["cat"], axis=0)]
    g = helper.make_graph(nodes, "g",
                          [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                           helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                           helper.make_tensor_value_info("a0", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("acc", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("cat", TensorProto.FLOAT, ["k"])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m.SerializeToString()


def scan_model():
    body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
         helper.make_node("Identity", ["sum_out"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info("sum_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("next", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("sum_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [2])])
    n = helper.make_node("Scan", ["init", "xs"], ["y", "z"], num_scan_inputs=1, body=body,
                         name="scan")
    g = helper.make_graph([n], "g",
                          [helper.make_tensor_value_info("init", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("xs", TensorProto.FLOAT, [3, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 6
    return m.SerializeToString()


def payloadless():
    out = {}
    for name, atype in [("graph", onnx.AttributeProto.GRAPH), ("tensor", onnx.AttributeProto.TENSOR),
                        ("string", onnx.AttributeProto.STRING), ("ints", onnx.AttributeProto.INTS)]:
        n = helper.make_node("Constant" if name == "tensor" else "If", [] if name == "tensor" else ["c"],
                             ["y"], name="n")
        a = n.attribute.add()
        a.name = {"graph": "then_branch", "tensor": "value", "string": "mode", "ints": "axes"}[name]
        a.type = atype
        g = helper.make_graph([n], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        out[name] = m.SerializeToString()
    return out


def builder():
    """Programs for fuzz_builder.c: a target-opset byte, then steps (first byte % 16 picks the
    call). A few structured ones, the rest pseudo-random (fixed seed)."""
    import random
    rnd = random.Random(13)
    # opset 17+? ; input float[2,3]; input float[2,3]; Add node (schema index found by the
    # fuzzer); output of the last value
    put("builder", "inputs-node-output",
        bytes([6, 0, 1, 0, 3, 2, 2, 3, 0, 16, 2, 0, 3, 2, 2, 3, 0, 5, 40, 0, 1, 3, 200, 201,
               0, 1, 0, 10, 2]))
    put("builder", "aten-node", bytes([10, 0, 1, 0, 3, 2, 2, 3, 0, 8, 5, 0, 1, 2, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 0, 1, 10, 1]))
    for i in range(6):
        put("builder", "random-%d" % i, bytes(rnd.randrange(256) for _ in range(64 << (i % 3))))


def quant_annotation_model():
    """quantization_annotation entries in the main graph and an If branch: one carried, one
    naming a tensor the graph lacks (dropped with a warning), parameters no node reads."""
    then_g = helper.make_graph([helper.make_node("Neg", ["r"], ["n"])], "then", [],
                               [helper.make_tensor_value_info("n", TensorProto.FLOAT, [2])],
                               [numpy_helper.from_array(np.array(0.5, np.float32), "n_scale")])
    a = then_g.quantization_annotation.add()
    a.tensor_name = "n"
    e = a.quant_parameter_tensor_names.add()
    e.key, e.value = "SCALE_TENSOR", "n_scale"
    else_g = helper.make_graph([helper.make_node("Abs", ["r"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]),
                           helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
                          "qa", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                                 helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
                          [numpy_helper.from_array(np.array(0.1, np.float32), "r_scale"),
                           numpy_helper.from_array(np.array(0, np.uint8), "r_zp")])
    for tensor, params in (("r", ("r_scale", "r_zp")), ("ghost", ("r_scale",))):
        a = g.quantization_annotation.add()
        a.tensor_name = tensor
        for key, value in zip(("SCALE_TENSOR", "ZERO_POINT_TENSOR"), params):
            e = a.quant_parameter_tensor_names.add()
            e.key, e.value = key, value
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def main():
    builder()
    extdata()
    for t in ("pipeline", "nanopb", "reader"):
        put(t, "if", if_model())
        put(t, "if-nested4", if_model(depth=4))
        put(t, "if-nobody", if_model(with_body=False))
        put(t, "loop-seq", loop_model())
        put(t, "scan", scan_model())
        put(t, "quant-annotation", quant_annotation_model())
        for k, v in payloadless().items():  # crash reproducers of ee8e0c2: regressions
            put(t, "nopayload-" + k, v, regression=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
