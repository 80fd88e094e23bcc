#!/usr/bin/python3
"""Generates the project's node-test corpus for opsets 18-27 (tests/data/corpus18).

Debian's ONNX backend node tests stop at opset 17, so nothing else feeds the library an op
newer than 17. Each case here is one op at the opset of a version from 18 on, with the
attribute or input variant that version introduced (Changelog.md), as a small model with its
inputs. The reference outputs are ONNX Runtime's (tests/ort, onnxruntime-node 1.30) running the
source model at its own opset; where ORT has no kernel, a NumPy reference written here from the
spec's formula, or none (the case then only checks what is refused and what converts).

Each case is stored as one file <name>.npz: "model" (the model's bytes), "in:<name>" per graph
input and "out:<name>" per reference output. python3-onnx 1.12 knows opsets up to 17 only:
the models are built with onnx.helper and never handed to its checker.

    python3 tools/gen_corpus18.py            # regenerates every case
    python3 tools/gen_corpus18.py --list     # the cases, one line each

tests/py/test_convert_corpus18.py converts every case to every opset 7..26.
"""
import argparse
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "data", "corpus18")

CASES = []


class Case:
    """One op node in a one-node model. inputs: (name, array) graph inputs, (name, array,
    "const") initializers (what exporters write for axes, pads, sizes), or "" for an omitted
    optional input. ref: a function of the input arrays giving the outputs, where ORT has no
    kernel for the op at its opset."""

    def __init__(self, name, op, opset, inputs, attrs=None, outputs=("y",), ref=None,
                 out_types=None, ref_opset=None, dyn=None):
        self.name, self.op, self.opset, self.ref_opset = name, op, opset, ref_opset
        self.dyn = dyn or {}  # input name -> {axis: symbolic dim name} (a dim unknown at export)
        self.inputs, self.attrs, self.outputs = inputs, attrs or {}, list(outputs)
        self.ref, self.out_types = ref, out_types

    def model(self):
        ins, inits, names = [], [], []
        for inp in self.inputs:
            if inp == "":
                names.append("")
                continue
            n = inp[0]
            names.append(n)
            if isinstance(inp[1], onnx.TensorProto):  # a type numpy has not (float8, int4)
                inits.append(inp[1])
                continue
            arr = np.asarray(inp[1])
            if len(inp) > 2 and inp[2] == "const":
                inits.append(numpy_helper.from_array(arr, n))
            else:
                ins.append(helper.make_tensor_value_info(
                    n, helper.np_dtype_to_tensor_dtype(arr.dtype) if hasattr(helper, "np_dtype_to_tensor_dtype")
                    else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[arr.dtype],
                    [self.dyn.get(n, {}).get(a, d) for a, d in enumerate(arr.shape)]))
        node = helper.make_node(self.op, names, self.outputs, name=self.name, **self.attrs)
        outs = [helper.make_empty_tensor_value_info(o) for o in self.outputs if o]
        if self.out_types:
            outs = [helper.make_tensor_value_info(o, t, None) for o, t in zip(self.outputs, self.out_types)]
        graph = helper.make_graph([node], self.name, ins, outs, initializer=inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                              producer_name="onnxlegal gen_corpus18")
        m.ir_version = 10 if self.opset >= 23 else 9 if self.opset >= 21 else 8
        return m

    def feeds(self):
        return {i[0]: np.asarray(i[1]) for i in self.inputs
                if i != "" and not (len(i) > 2 and i[2] == "const")}


def case(*a, **k):
    c = Case(*a, **k)
    assert all(c.name != o.name for o in CASES), c.name
    CASES.append(c)
    return c


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def f32(name, *shape, lo=-1.0, hi=1.0):
    return rng(name + str(shape)).uniform(lo, hi, shape).astype(np.float32)


def raw_tensor(name, data_type, dims, raw):
    """A tensor of a type python3-onnx 1.12 cannot make (float8, int4)."""
    t = onnx.TensorProto(name=name, data_type=data_type, raw_data=raw)
    t.dims.extend(dims)
    return t


def i64(*v):
    return np.array(v, np.int64)


# ---------------------------------------------------------------------------------------------
# opset 18
for op, dt in (("BitwiseAnd", np.int32), ("BitwiseOr", np.uint8), ("BitwiseXor", np.int64),
               ("BitwiseAnd", np.int8), ("BitwiseOr", np.int16), ("BitwiseXor", np.uint32)):
    r = rng(op + np.dtype(dt).name)
    info = np.iinfo(dt)
    a = r.integers(info.min, info.max, (3, 4), dtype=dt, endpoint=True)
    b = r.integers(info.min, info.max, (4,), dtype=dt, endpoint=True)  # broadcast
    case("%s_%s" % (op.lower(), np.dtype(dt).name), op, 18, [("a", a), ("b", b)])
for dt in (np.int32, np.uint8, np.int64, np.uint16):
    info = np.iinfo(dt)
    case("bitwisenot_%s" % np.dtype(dt).name, "BitwiseNot", 18,
         [("x", rng("not" + np.dtype(dt).name).integers(info.min, info.max, (2, 5), dtype=dt, endpoint=True))])

case("centercroppad_crop", "CenterCropPad", 18, [("x", f32("ccp", 20, 10, 3)), ("s", i64(10, 7, 3), "const")])
case("centercroppad_pad", "CenterCropPad", 18, [("x", f32("ccp", 10, 7, 3)), ("s", i64(20, 10, 3), "const")])
case("centercroppad_mixed_axes", "CenterCropPad", 18, [("x", f32("ccp", 3, 20, 8)), ("s", i64(10, 9), "const")],
     attrs=dict(axes=[1, 2]))
case("centercroppad_odd_crop_and_pad", "CenterCropPad", 18,
     [("x", f32("ccp5", 7, 4, 2)), ("s", i64(4, 7), "const")], attrs=dict(axes=[0, 1]))
case("centercroppad_neg_axes", "CenterCropPad", 18, [("x", f32("ccp", 3, 19, 8)), ("s", i64(10, 11), "const")],
     attrs=dict(axes=[-2, -1]))

case("col2im", "Col2Im", 18, [("x", f32("c2i", 1, 5, 5)), ("isz", i64(5, 5), "const"), ("bsz", i64(1, 5), "const")])
case("col2im_strides_pads_dilations", "Col2Im", 18,
     [("x", f32("c2i2", 2, 8, 9)), ("isz", i64(6, 6), "const"), ("bsz", i64(2, 2), "const")],
     attrs=dict(strides=[2, 2], pads=[0, 1, 0, 1], dilations=[1, 2]))
# image 5x6, block 2x3, strides 1x2, pads h 1/0, w 0/2: blocks (5+1-1-1)/1+1=5, (6+2-2-1)/2+1=3
case("col2im_asymmetric_pads", "Col2Im", 18,
     [("x", f32("c2i4", 1, 12, 15)), ("isz", i64(5, 6), "const"), ("bsz", i64(2, 3), "const")],
     attrs=dict(strides=[1, 2], pads=[1, 0, 0, 2]))
case("col2im_5d", "Col2Im", 18, [("x", f32("c2i3", 1, 10, 12)), ("isz", i64(3, 4, 5), "const"),
                                  ("bsz", i64(1, 1, 5), "const")])


def groupnorm18_ref(x, scale, bias, num_groups, eps=1e-5):
    n, c = x.shape[:2]
    g = x.reshape(n, num_groups, -1).astype(np.float64)
    y = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)
    y = y * scale.reshape(1, -1, 1) + bias.reshape(1, -1, 1)
    return [y.reshape(x.shape).astype(np.float32)]


case("groupnormalization18", "GroupNormalization", 18,
     [("x", f32("gn18", 2, 4, 3, 3)), ("scale", f32("gn18s", 2)), ("bias", f32("gn18b", 2))],
     attrs=dict(num_groups=2), ref=lambda x, s, b: groupnorm18_ref(x, s, b, 2))
case("groupnormalization18_epsilon", "GroupNormalization", 18,
     [("x", f32("gn18e", 3, 6, 5)), ("scale", f32("gn18es", 3), "const"), ("bias", f32("gn18eb", 3), "const")],
     attrs=dict(num_groups=3, epsilon=1e-2), ref=lambda x, s, b: groupnorm18_ref(x, s, b, 3, 1e-2))

case("lppool18_dilations", "LpPool", 18, [("x", f32("lp", 1, 2, 7, 7))],
     attrs=dict(kernel_shape=[2, 2], dilations=[2, 2], p=2))
case("lppool18_ceil", "LpPool", 18, [("x", f32("lp2", 1, 2, 6, 6))],
     attrs=dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1, p=2))
case("lppool18_p1_pads", "LpPool", 18, [("x", f32("lp3", 1, 3, 5))],
     attrs=dict(kernel_shape=[3], pads=[1, 1], p=1))
case("lppool18_dilations_pads_ceil_p3", "LpPool", 18, [("x", f32("lp4", 1, 3, 8, 7))],
     attrs=dict(kernel_shape=[2, 3], dilations=[3, 2], pads=[1, 0, 1, 2], strides=[2, 3], ceil_mode=1, p=3))
case("lppool18_dilations_p1_1d", "LpPool", 18, [("x", f32("lp5", 2, 2, 9))],
     attrs=dict(kernel_shape=[3], dilations=[2], pads=[2, 1], p=1))
case("mish18", "Mish", 18, [("x", f32("mish", 3, 4, lo=-4, hi=4))])
case("mish18_double", "Mish", 18, [("x", f32("mishd", 5, lo=-4, hi=4).astype(np.float64))])

for mode in ("constant", "reflect", "edge"):
    case("pad18_axes_%s" % mode, "Pad", 18,
         [("x", f32("pad" + mode, 2, 4, 5)), ("pads", i64(1, 2, 2, 1), "const"), "", ("axes", i64(1, 2), "const")],
         attrs=dict(mode=mode))
case("pad18_neg_axes_value", "Pad", 18,
     [("x", f32("padn", 3, 4)), ("pads", i64(2, 1), "const"), ("v", np.array(1.5, np.float32), "const"),
      ("axes", i64(-1), "const")])
case("pad18_axes_runtime", "Pad", 18,
     [("x", f32("padr", 3, 4)), ("pads", i64(1, 0, 2, 3)), "", ("axes", i64(0, 1))])
case("pad18_axes_runtime_pads", "Pad", 18,
     [("x", f32("padrp", 3, 4, 2)), ("pads", i64(2, 1, 0, 3)), ("v", np.array(-2.5, np.float32), "const"),
      ("axes", i64(-1, 0), "const")])
case("pad18_axes_runtime_neg_edge", "Pad", 18,
     [("x", f32("padrn", 3, 4)), ("pads", i64(1, 2)), "", ("axes", i64(-1))], attrs=dict(mode="edge"))

for op in ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
           "ReduceMin", "ReduceProd", "ReduceSumSquare"):
    lo = 0.1 if op == "ReduceLogSum" else -1.0
    x = f32("red" + op, 2, 3, 4, lo=lo)
    case("%s18_axes" % op.lower(), op, 18, [("x", x), ("axes", i64(1, -1), "const")])
    case("%s18_axes_keepdims0" % op.lower(), op, 18, [("x", x), ("axes", i64(0), "const")], attrs=dict(keepdims=0))
    case("%s18_no_axes" % op.lower(), op, 18, [("x", x)])
    case("%s18_empty_axes_noop" % op.lower(), op, 18, [("x", x), ("axes", np.zeros(0, np.int64), "const")],
         attrs=dict(noop_with_empty_axes=1))
    case("%s18_axes_runtime" % op.lower(), op, 18, [("x", x), ("axes", i64(2))])

case("reducemax18_int8", "ReduceMax", 18,
     [("x", rng("rmi8").integers(-128, 127, (3, 4), dtype=np.int8)), ("axes", i64(1), "const")])
case("reducemin18_uint8_keepdims0", "ReduceMin", 18,
     [("x", rng("rmu8").integers(0, 255, (3, 4), dtype=np.uint8)), ("axes", i64(0), "const")], attrs=dict(keepdims=0))

img = f32("resize", 1, 1, 4, 6)
case("resize18_antialias_linear_down", "Resize", 18,
     [("x", img), "", ("scales", np.array([1, 1, 0.5, 0.5], np.float32), "const")],
     attrs=dict(mode="linear", antialias=1))
case("resize18_antialias_cubic_down", "Resize", 18,
     [("x", img), "", ("scales", np.array([1, 1, 0.75, 0.5], np.float32), "const")],
     attrs=dict(mode="cubic", antialias=1))
case("resize18_axes_scales", "Resize", 18,
     [("x", img), "", ("scales", np.array([2, 1.5], np.float32), "const")],
     attrs=dict(mode="linear", axes=[2, 3]))
case("resize18_axes_sizes_nearest", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(7, 3), "const")], attrs=dict(mode="nearest", axes=[3, 2]))
for pol in ("not_larger", "not_smaller"):
    case("resize18_keep_aspect_%s" % pol, "Resize", 18,
         [("x", img), "", "", ("sizes", i64(8, 8), "const")],
         attrs=dict(mode="linear", keep_aspect_ratio_policy=pol, axes=[2, 3]))
case("resize18_keep_aspect_all_axes", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(1, 1, 3, 3), "const")],
     attrs=dict(mode="nearest", keep_aspect_ratio_policy="not_larger"))
case("resize18_keep_aspect_axes", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(5, 5), "const")],
     attrs=dict(mode="nearest", keep_aspect_ratio_policy="not_larger", axes=[2, 3]))
case("resize18_keep_aspect_not_smaller_round", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(3, 3), "const")],
     attrs=dict(mode="linear", keep_aspect_ratio_policy="not_smaller", axes=[2, 3]))
case("resize18_keep_aspect_cubic_align", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(1, 1, 9, 9), "const")],
     attrs=dict(mode="cubic", coordinate_transformation_mode="align_corners", keep_aspect_ratio_policy="not_larger"))
case("resize18_antialias_linear_down_sizes", "Resize", 18,
     [("x", f32("resaa", 1, 2, 9, 10)), "", "", ("sizes", i64(1, 2, 4, 3), "const")],
     attrs=dict(mode="linear", antialias=1))
case("resize18_antialias_cubic_exclude_outside", "Resize", 18,
     [("x", f32("resaa2", 1, 1, 8, 9)), "", ("scales", np.array([1, 1, 0.6, 0.45], np.float32), "const")],
     attrs=dict(mode="cubic", antialias=1, exclude_outside=1, cubic_coeff_a=-0.5))
case("resize18_antialias_linear_asymmetric_mixed", "Resize", 18,
     [("x", f32("resaa3", 1, 1, 7, 5)), "", ("scales", np.array([1, 1, 0.5, 1.6], np.float32), "const")],
     attrs=dict(mode="linear", antialias=1, coordinate_transformation_mode="asymmetric"))
case("resize18_keep_aspect_antialias", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(3, 3), "const")],
     attrs=dict(mode="linear", antialias=1, keep_aspect_ratio_policy="not_smaller", axes=[2, 3]))
case("resize18_axes_runtime_scales", "Resize", 18,
     [("x", img), "", ("scales", np.array([1.5, 0.5], np.float32))], attrs=dict(mode="cubic", axes=[-1, 2]))
case("resize18_axes_runtime_scales_asymmetric", "Resize", 18,
     [("x", img), "", ("scales", np.array([2, 3], np.float32))],
     attrs=dict(mode="linear", coordinate_transformation_mode="asymmetric", axes=[2, 3]))
case("resize18_axes_runtime_sizes", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(5, 3))], attrs=dict(mode="linear", axes=[3, 2]))
case("resize18_keep_aspect_runtime_sizes", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(7, 7))],
     attrs=dict(mode="linear", keep_aspect_ratio_policy="not_larger", axes=[2, 3]))
case("resize18_antialias_linear_up", "Resize", 18,
     [("x", img), "", ("scales", np.array([1, 1, 2, 1.5], np.float32), "const")],
     attrs=dict(mode="linear", antialias=1))
case("resize18_antialias_cubic_up_sizes", "Resize", 18,
     [("x", img), "", "", ("sizes", i64(1, 1, 6, 9), "const")],
     attrs=dict(mode="cubic", antialias=1))

for red in ("max", "min", "add", "mul"):
    case("scatterelements18_%s" % red, "ScatterElements", 18,
         [("data", f32("se" + red, 3, 4)), ("idx", np.array([[1, 0, 2, 0], [0, 0, 1, 2]], np.int64)),
          ("upd", f32("seu" + red, 2, 4))], attrs=dict(axis=0, reduction=red))
    case("scatternd18_%s" % red, "ScatterND", 18,
         [("data", f32("snd" + red, 4, 3)), ("idx", np.array([[1], [3], [1]], np.int64)),
          ("upd", f32("sndu" + red, 3, 3))], attrs=dict(reduction=red))
case("scatterelements18_max_neg_axis", "ScatterElements", 18,
     [("data", f32("sen", 2, 5)), ("idx", np.array([[4, 4], [0, 1]], np.int64)), ("upd", f32("senu", 2, 2))],
     attrs=dict(axis=-1, reduction="max"))

case("split18_num_outputs_even", "Split", 18, [("x", f32("sp", 2, 6))], attrs=dict(axis=1, num_outputs=3),
     outputs=("y0", "y1", "y2"))
case("split18_num_outputs_uneven", "Split", 18, [("x", f32("sp2", 7, 2))], attrs=dict(axis=0, num_outputs=3),
     outputs=("y0", "y1", "y2"))
case("split18_split_input", "Split", 18, [("x", f32("sp3", 2, 6)), ("s", i64(1, 5), "const")],
     attrs=dict(axis=-1), outputs=("y0", "y1"))

# ---------------------------------------------------------------------------------------------
# opset 19
case("averagepool19_dilations", "AveragePool", 19, [("x", f32("ap", 1, 1, 7, 7))],
     attrs=dict(kernel_shape=[2, 2], dilations=[2, 2]))
case("averagepool19_dilations_pads_ceil", "AveragePool", 19, [("x", f32("ap2", 1, 2, 8))],
     attrs=dict(kernel_shape=[3], dilations=[2], pads=[1, 1], strides=[2], ceil_mode=1, count_include_pad=1))
case("averagepool19_dilations_exclude_pad_2d", "AveragePool", 19, [("x", f32("ap3", 2, 3, 7, 8))],
     attrs=dict(kernel_shape=[3, 2], dilations=[2, 3], pads=[2, 1, 1, 1], strides=[2, 2], ceil_mode=1))
case("averagepool19_dilations_3d", "AveragePool", 19, [("x", f32("ap4", 1, 2, 5, 6, 5))],
     attrs=dict(kernel_shape=[2, 2, 2], dilations=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0], count_include_pad=1))
F8 = {"float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20}
for tname, t in F8.items():
    for sat in (1, 0):
        x = np.array([0.0, 0.3, -1.7, 3.14159, 100.0, -448.0, 500.0, 1e-3], np.float32)
        c = case("cast19_%s_saturate%d" % (tname, sat), "Cast", 19, [("x", x)], attrs=dict(to=t, saturate=sat),
                 outputs=("f8",))
        # The float8 value comes back as float: a second node casts it to float.
        c.tail = ("Cast", dict(to=TensorProto.FLOAT))
case("castlike19_float8e4m3fn", "CastLike", 19,
     [("x", np.array([0.5, -2.25, 1000.0, 0.013], np.float32)), ("like", raw_tensor("like", 17, [1], b"\x00"), "const")],
     attrs=dict(saturate=1), outputs=("f8",)).tail = ("Cast", dict(to=TensorProto.FLOAT))
case("deformconv19", "DeformConv", 19,
     [("x", f32("dc", 1, 2, 5, 5)), ("w", f32("dcw", 3, 2, 3, 3), "const"), ("off", f32("dco", 1, 18, 3, 3, lo=-1.5, hi=1.5))],
     attrs=dict(kernel_shape=[3, 3]))
case("deformconv19_mask_bias_pads", "DeformConv", 19,
     [("x", f32("dc2", 1, 2, 4, 4)), ("w", f32("dc2w", 2, 2, 2, 2), "const"),
      ("off", f32("dc2o", 1, 8, 5, 5, lo=-2, hi=2)), ("b", f32("dc2b", 2), "const"), ("mask", f32("dc2m", 1, 4, 5, 5, lo=0, hi=1))],
     attrs=dict(kernel_shape=[2, 2], pads=[1, 1, 1, 1]))
case("deformconv19_groups_offset_groups", "DeformConv", 19,
     [("x", f32("dc3", 2, 4, 5, 5)), ("w", f32("dc3w", 4, 2, 3, 3), "const"),
      ("off", f32("dc3o", 2, 36, 2, 2, lo=-1, hi=1))],
     attrs=dict(kernel_shape=[3, 3], group=2, offset_group=2, strides=[2, 2], dilations=[1, 1]))
case("equal19_float", "Equal", 19, [("a", np.array([1.0, 2.0, np.nan, 3.0], np.float32)),
                                     ("b", np.array([1.0, 2.5, np.nan, 3.0], np.float32))])
case("identity19", "Identity", 19, [("x", f32("id19", 2, 3))])
for mode in ("constant", "reflect", "edge", "wrap"):
    case("pad19_%s" % mode, "Pad", 19, [("x", f32("pad19" + mode, 3, 4)), ("pads", i64(1, 2, 2, 1), "const")],
         attrs=dict(mode=mode))
case("pad19_wrap_axes", "Pad", 19, [("x", f32("pad19wa", 2, 3, 4)), ("pads", i64(3, 2), "const"), "",
                                     ("axes", i64(-1), "const")], attrs=dict(mode="wrap"))
case("pad19_wrap_beyond_dim", "Pad", 19, [("x", f32("pad19wb", 2, 3)), ("pads", i64(2, 3, 5, 7), "const")],
     attrs=dict(mode="wrap"))
case("pad19_wrap_int", "Pad", 19, [("x", np.arange(12, dtype=np.int32).reshape(3, 4)),
                                    ("pads", i64(0, 1, 2, 3), "const")], attrs=dict(mode="wrap"))
case("reshape19", "Reshape", 19, [("x", f32("rs19", 2, 3, 4)), ("s", i64(0, -1), "const")])
case("resize19_half_pixel_symmetric_up", "Resize", 19,
     [("x", f32("rhps", 1, 1, 3, 5)), "", ("scales", np.array([1, 1, 1.5, 2.2], np.float32), "const")],
     attrs=dict(mode="linear", coordinate_transformation_mode="half_pixel_symmetric"))
case("resize19_half_pixel_symmetric_down_sizes", "Resize", 19,
     [("x", f32("rhps2", 1, 1, 6, 7)), "", "", ("sizes", i64(1, 1, 4, 3), "const")],
     attrs=dict(mode="cubic", coordinate_transformation_mode="half_pixel_symmetric"))
case("resize19_half_pixel_symmetric_nearest", "Resize", 19,
     [("x", f32("rhps3", 1, 1, 3, 5)), "", ("scales", np.array([1, 1, 2, 0.6], np.float32), "const")],
     attrs=dict(mode="nearest", coordinate_transformation_mode="half_pixel_symmetric"))
case("shape19_start_end", "Shape", 19, [("x", f32("sh19", 2, 3, 4, 5))], attrs=dict(start=1, end=-1))
case("size19", "Size", 19, [("x", f32("sz19", 2, 3))])

# ---------------------------------------------------------------------------------------------
# opset 20
case("affinegrid20_2d", "AffineGrid", 20, [("theta", f32("ag", 2, 2, 3)), ("size", i64(2, 3, 4, 5), "const")])
case("affinegrid20_2d_align", "AffineGrid", 20, [("theta", f32("ag2", 1, 2, 3)), ("size", i64(1, 1, 3, 3), "const")],
     attrs=dict(align_corners=1))
case("affinegrid20_3d", "AffineGrid", 20, [("theta", f32("ag3", 1, 3, 4)), ("size", i64(1, 1, 2, 3, 4), "const")])
case("constantofshape20", "ConstantOfShape", 20, [("s", i64(2, 3))],
     attrs=dict(value=helper.make_tensor("v", TensorProto.FLOAT, [1], [2.5])))
sig = f32("dft", 1, 8, 1)
case("dft20_axis_input", "DFT", 20, [("x", sig), "", ("axis", np.array(1, np.int64), "const")])
case("dft20_length_axis", "DFT", 20, [("x", f32("dft2", 2, 6, 1)), ("n", np.array(6, np.int64), "const"),
                                      ("axis", np.array(-2, np.int64), "const")], attrs=dict(onesided=1))
case("dft20_inverse_complex", "DFT", 20, [("x", f32("dft3", 1, 5, 2)), "", ("axis", np.array(1, np.int64), "const")],
     attrs=dict(inverse=1))
ax = lambda a: ("axis", np.array(a, np.int64), "const")
dftn = lambda v: ("n", np.array(v, np.int64), "const")
case("dft20_onesided_odd", "DFT", 20, [("x", f32("dft4", 2, 7, 1)), "", ax(1)], attrs=dict(onesided=1))
case("dft20_inverse_real", "DFT", 20, [("x", f32("dft5", 1, 6, 1)), "", ax(1)], attrs=dict(inverse=1))
case("dft20_complex", "DFT", 20, [("x", f32("dft6", 2, 4, 2)), "", ax(1)])
case("dft20_length_shorter", "DFT", 20, [("x", f32("dft7", 1, 8, 1)), dftn(5), ax(1)])
case("dft20_length_longer_complex", "DFT", 20, [("x", f32("dft8", 1, 5, 2)), dftn(8), ax(1)])
case("dft20_length_longer_onesided", "DFT", 20, [("x", f32("dft9", 2, 5, 1)), dftn(8), ax(1)],
     attrs=dict(onesided=1))
case("dft20_axis2", "DFT", 20, [("x", f32("dft10", 2, 3, 4, 2)), "", ax(2)])
case("dft20_axis0", "DFT", 20, [("x", f32("dft11", 3, 2, 1)), "", ax(0)], attrs=dict(inverse=1))
case("dft20_axis_neg3", "DFT", 20, [("x", f32("dft12", 2, 3, 4, 1)), "", ax(-3)])
for approx in ("none", "tanh"):
    case("gelu20_%s" % approx, "Gelu", 20, [("x", f32("gelu" + approx, 3, 5, lo=-4, hi=4))],
         attrs=dict(approximate=approx))
case("gelu20_default_3d", "Gelu", 20, [("x", f32("gelu3", 2, 3, 4, lo=-4, hi=4))])
for mode in ("linear", "nearest", "cubic"):
    for pad in ("zeros", "border", "reflection"):
        case("gridsample20_%s_%s" % (mode, pad), "GridSample", 20,
             [("x", f32("gs", 1, 2, 4, 5)), ("grid", f32("gsg", 1, 3, 6, 2, lo=-1.2, hi=1.2))],
             attrs=dict(mode=mode, padding_mode=pad))
case("gridsample20_linear_align", "GridSample", 20,
     [("x", f32("gs", 1, 2, 4, 5)), ("grid", f32("gsg", 1, 3, 6, 2, lo=-1.2, hi=1.2))],
     attrs=dict(mode="linear", align_corners=1))
case("gridsample20_3d_linear", "GridSample", 20,
     [("x", f32("gs3", 1, 2, 3, 4, 5)), ("grid", f32("gs3g", 1, 2, 3, 2, 3, lo=-1, hi=1))],
     attrs=dict(mode="linear"))
case("gridsample20_3d_nearest_border", "GridSample", 20,
     [("x", f32("gs3", 1, 2, 3, 4, 5)), ("grid", f32("gs3g", 1, 2, 3, 2, 3, lo=-1.2, hi=1.2))],
     attrs=dict(mode="nearest", padding_mode="border"))
case("isinf20", "IsInf", 20, [("x", np.array([1.0, np.inf, -np.inf, np.nan, 0.0], np.float32))])
case("isinf20_negative_only", "IsInf", 20, [("x", np.array([1.0, np.inf, -np.inf, np.nan], np.float32))],
     attrs=dict(detect_positive=0))
case("isnan20", "IsNaN", 20, [("x", np.array([1.0, np.inf, np.nan, -0.0], np.float32))])
boolx = rng("rbool").integers(0, 2, (3, 4)).astype(bool)
for op in ("ReduceMax", "ReduceMin"):
    case("%s20_bool" % op.lower(), op, 20, [("x", boolx), ("axes", i64(1), "const")])
    case("%s20_bool_all" % op.lower(), op, 20, [("x", boolx)], attrs=dict(keepdims=0))
    case("%s20_float" % op.lower(), op, 20, [("x", f32(op + "20", 3, 4)), ("axes", i64(0), "const")])
case("regexfullmatch20", "RegexFullMatch", 20, [("x", np.array(["abc", "a1"], object))],
     attrs=dict(pattern="[a-z]+"), out_types=[TensorProto.BOOL])
case("stringconcat20", "StringConcat", 20, [("a", np.array(["a", "b"], object)), ("b", np.array(["x", "y"], object))])
case("stringsplit20", "StringSplit", 20, [("x", np.array(["a b", "c"], object))], attrs=dict(delimiter=" "),
     outputs=("y", "n"))

# ---------------------------------------------------------------------------------------------
# opset 21
case("cast21_int4", "Cast", 21, [("x", np.array([-9.0, -8.0, -1.4, 0.0, 2.6, 7.0, 8.0], np.float32))],
     attrs=dict(to=22), outputs=("i4",)).tail = ("Cast", dict(to=TensorProto.FLOAT))
case("cast21_uint4", "Cast", 21, [("x", np.array([0.0, 3.0, 15.0, 16.0], np.float32))],
     attrs=dict(to=21), outputs=("u4",)).tail = ("Cast", dict(to=TensorProto.FLOAT))
case("flatten21", "Flatten", 21, [("x", f32("fl21", 2, 3, 4))], attrs=dict(axis=-1))
case("groupnormalization21", "GroupNormalization", 21,
     [("x", f32("gn21", 2, 6, 3, 3)), ("scale", f32("gn21s", 6), "const"), ("bias", f32("gn21b", 6), "const")],
     attrs=dict(num_groups=3))
case("groupnormalization21_runtime_scale_eps", "GroupNormalization", 21,
     [("x", f32("gn21r", 1, 4, 10)), ("scale", f32("gn21rs", 4)), ("bias", f32("gn21rb", 4))],
     attrs=dict(num_groups=2, epsilon=1e-3))
case("groupnormalization21_stash_type_double", "GroupNormalization", 21,
     [("x", f32("gn21d", 2, 4, 5).astype(np.float64)), ("scale", f32("gn21ds", 4).astype(np.float64), "const"),
      ("bias", f32("gn21db", 4).astype(np.float64), "const")], attrs=dict(num_groups=4, stash_type=11))
case("dequantizelinear21_blocked", "DequantizeLinear", 21,
     [("x", rng("dqb").integers(-128, 127, (2, 4), dtype=np.int8)),
      ("s", np.array([[0.5, 0.25], [2.0, 1.0]], np.float32), "const"),
      ("z", np.array([[1, -2], [0, 3]], np.int8), "const")], attrs=dict(axis=1, block_size=2))
case("dequantizelinear21_axis", "DequantizeLinear", 21,
     [("x", rng("dqa").integers(0, 255, (3, 4), dtype=np.uint8)), ("s", np.array([0.1, 0.2, 0.3], np.float32), "const"),
      ("z", np.array([128, 0, 255], np.uint8), "const")], attrs=dict(axis=0))
case("dequantizelinear19_float16_scale_per_axis", "DequantizeLinear", 19,
     [("x", rng("dq16").integers(-128, 127, (3, 4), dtype=np.int8)),
      ("s", np.array([0.5, 0.25, 2.0], np.float16), "const")], attrs=dict(axis=0))
case("quantizelinear21_output_dtype", "QuantizeLinear", 21,
     [("x", f32("qod", 6, lo=-3, hi=3)), ("s", np.array(0.02, np.float32), "const")],
     attrs=dict(output_dtype=TensorProto.INT8))
case("quantizelinear21_blocked", "QuantizeLinear", 21,
     [("x", f32("qb", 2, 6, lo=-3, hi=3)), ("s", np.array([[0.1, 0.2, 0.05], [0.3, 0.02, 0.01]], np.float32), "const"),
      ("z", np.array([[1, 0, -1], [2, 3, 4]], np.int8), "const")], attrs=dict(axis=1, block_size=2))
case("squeeze21", "Squeeze", 21, [("x", f32("sq21", 1, 3, 1)), ("a", i64(-1), "const")])
case("unsqueeze21", "Unsqueeze", 21, [("x", f32("usq21", 3, 2)), ("a", i64(0, -1), "const")])
case("transpose21", "Transpose", 21, [("x", f32("tr21", 2, 3, 4))], attrs=dict(perm=[2, 0, 1]))
case("pad21", "Pad", 21, [("x", f32("pad21", 2, 3)), ("p", i64(0, 1, 1, 0), "const")])
case("shape21", "Shape", 21, [("x", f32("sh21", 2, 3, 4))], attrs=dict(start=-2))

# ---------------------------------------------------------------------------------------------
# opset 22: types (bfloat16) added to these ops; the float meaning is the one older opsets have
for op, lo, hi in (("Acos", -0.9, 0.9), ("Acosh", 1.1, 4), ("Asin", -0.9, 0.9), ("Asinh", -3, 3),
                   ("Atan", -3, 3), ("Atanh", -0.9, 0.9), ("Cos", -3, 3), ("Cosh", -2, 2), ("Sin", -3, 3),
                   ("Sinh", -2, 2), ("Tan", -1, 1), ("Round", -3, 3), ("Softplus", -3, 3),
                   ("Softsign", -3, 3), ("HardSwish", -4, 4), ("Mish", -4, 4)):
    case("%s22" % op.lower(), op, 22, [("x", f32(op + "22", 2, 5, lo=lo, hi=hi))])
case("elu22", "Elu", 22, [("x", f32("elu22", 2, 5, lo=-3, hi=3))], attrs=dict(alpha=0.7))
case("selu22", "Selu", 22, [("x", f32("selu22", 2, 5, lo=-3, hi=3))])
case("hardsigmoid22", "HardSigmoid", 22, [("x", f32("hs22", 2, 5, lo=-5, hi=5))], attrs=dict(alpha=0.3, beta=0.4))
case("thresholdedrelu22", "ThresholdedRelu", 22, [("x", f32("tr22", 2, 5, lo=-3, hi=3))], attrs=dict(alpha=0.5))
case("averagepool22", "AveragePool", 22, [("x", f32("ap22", 1, 2, 5, 5))], attrs=dict(kernel_shape=[2, 2]))
case("maxpool22_dilations", "MaxPool", 22, [("x", f32("mp22", 1, 2, 6, 6))],
     attrs=dict(kernel_shape=[2, 2], dilations=[2, 2]))
case("lppool22", "LpPool", 22, [("x", f32("lp22", 1, 2, 5, 5))], attrs=dict(kernel_shape=[2, 2], p=3))
case("globalaveragepool22", "GlobalAveragePool", 22, [("x", f32("gap22", 1, 3, 4, 4))])
case("globalmaxpool22", "GlobalMaxPool", 22, [("x", f32("gmp22", 1, 3, 4, 4))])
case("globallppool22", "GlobalLpPool", 22, [("x", f32("glp22", 1, 3, 4, 4))], attrs=dict(p=2), ref_opset=21)
case("conv22", "Conv", 22, [("x", f32("cv22", 1, 2, 5, 5)), ("w", f32("cv22w", 3, 2, 3, 3), "const")],
     attrs=dict(pads=[1, 1, 1, 1]))
case("convtranspose22", "ConvTranspose", 22, [("x", f32("ct22", 1, 2, 3, 3)), ("w", f32("ct22w", 2, 3, 3, 3), "const")],
     attrs=dict(strides=[2, 2]))
case("deformconv22", "DeformConv", 22,
     [("x", f32("dc22", 1, 1, 4, 4)), ("w", f32("dc22w", 1, 1, 2, 2), "const"), ("off", f32("dc22o", 1, 8, 3, 3))],
     attrs=dict(kernel_shape=[2, 2]))
case("det22", "Det", 22, [("x", f32("det22", 2, 3, 3))])
case("dropout22", "Dropout", 22, [("x", f32("do22", 2, 3))])
case("eyelike22", "EyeLike", 22, [("x", f32("ey22", 3, 4))], attrs=dict(k=1))
case("instancenormalization22", "InstanceNormalization", 22,
     [("x", f32("in22", 2, 3, 4)), ("s", f32("in22s", 3), "const"), ("b", f32("in22b", 3), "const")])
case("lpnormalization22", "LpNormalization", 22, [("x", f32("lpn22", 3, 4))], attrs=dict(p=1, axis=0))
case("gridsample22", "GridSample", 22, [("x", f32("gs22", 1, 1, 3, 3)), ("g", f32("gs22g", 1, 2, 2, 2))])
case("maxroipool22", "MaxRoiPool", 22,
     [("x", f32("mrp22", 1, 2, 6, 6)), ("rois", np.array([[0, 0, 0, 3, 3], [0, 1, 2, 5, 5]], np.float32), "const")],
     attrs=dict(pooled_shape=[2, 2]), ref_opset=21)
case("maxunpool22", "MaxUnpool", 22,
     [("x", f32("mu22", 1, 1, 2, 2)), ("i", np.array([[[[0, 3], [9, 14]]]], np.int64), "const")],
     attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
case("roialign22", "RoiAlign", 22,
     [("x", f32("ra22", 1, 2, 6, 6)), ("rois", np.array([[0.5, 0.5, 3.2, 4.1], [1, 0, 5, 5]], np.float32), "const"),
      ("bi", i64(0, 0), "const")], attrs=dict(output_height=2, output_width=2, sampling_ratio=2), ref_opset=21)
case("negativeloglikelihoodloss22", "NegativeLogLikelihoodLoss", 22,
     [("x", f32("nll22", 3, 4)), ("t", i64(1, 0, 3))], attrs=dict(reduction="mean"))
case("rnn22", "RNN", 22,
     [("x", f32("rnn22", 3, 1, 2)), ("w", f32("rnn22w", 1, 4, 2), "const"), ("r", f32("rnn22r", 1, 4, 4), "const")],
     attrs=dict(hidden_size=4), outputs=("y", "yh"))
case("gru22", "GRU", 22,
     [("x", f32("gru22", 3, 1, 2)), ("w", f32("gru22w", 1, 9, 2), "const"), ("r", f32("gru22r", 1, 9, 3), "const")],
     attrs=dict(hidden_size=3), outputs=("y", "yh"))
case("lstm22", "LSTM", 22,
     [("x", f32("lstm22", 3, 1, 2)), ("w", f32("lstm22w", 1, 12, 2), "const"), ("r", f32("lstm22r", 1, 12, 3), "const")],
     attrs=dict(hidden_size=3), outputs=("y", "yh", "yc"))


# ---------------------------------------------------------------------------------------------
# opset 23
def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


q4, k4, v4 = f32("atq", 1, 2, 3, 4), f32("atk", 1, 2, 5, 4), f32("atv", 1, 2, 5, 4)
case("attention23", "Attention", 23, [("q", q4), ("k", k4), ("v", v4)])
case("attention23_causal_scale", "Attention", 23, [("q", f32("atq2", 1, 2, 4, 4)), ("k", f32("atk2", 1, 2, 4, 4)),
                                                   ("v", f32("atv2", 1, 2, 4, 3))], attrs=dict(is_causal=1, scale=0.3))
case("attention23_bool_mask", "Attention", 23,
     [("q", q4), ("k", k4), ("v", v4), ("m", rng("atm").integers(0, 2, (3, 5)).astype(bool) | np.eye(3, 5, dtype=bool))])
case("attention23_float_mask", "Attention", 23, [("q", q4), ("k", k4), ("v", v4), ("m", f32("atmf", 1, 2, 3, 5))])
case("attention23_gqa", "Attention", 23,
     [("q", f32("gq", 1, 4, 3, 4)), ("k", f32("gk", 1, 2, 5, 4)), ("v", f32("gv", 1, 2, 5, 4))])
case("attention23_3d", "Attention", 23,
     [("q", f32("a3q", 2, 3, 8)), ("k", f32("a3k", 2, 4, 8)), ("v", f32("a3v", 2, 4, 6))],
     attrs=dict(q_num_heads=2, kv_num_heads=2))
case("attention23_past_kv", "Attention", 23,
     [("q", f32("pq", 1, 2, 1, 4)), ("k", f32("pk", 1, 2, 1, 4)), ("v", f32("pv", 1, 2, 1, 4)), "",
      ("pastk", f32("ppk", 1, 2, 3, 4)), ("pastv", f32("ppv", 1, 2, 3, 4))],
     outputs=("y", "present_key", "present_value"))
case("attention23_softcap", "Attention", 23, [("q", q4), ("k", k4), ("v", v4)], attrs=dict(softcap=2.0))
case("attention23_past_causal", "Attention", 23,
     [("q", f32("pcq", 1, 2, 2, 4)), ("k", f32("pck", 1, 2, 2, 4)), ("v", f32("pcv", 1, 2, 2, 4)), "",
      ("pastk", f32("pcpk", 1, 2, 3, 4)), ("pastv", f32("pcpv", 1, 2, 3, 4))],
     attrs=dict(is_causal=1), outputs=("y", "present_key", "present_value"))
case("attention23_3d_gqa_past", "Attention", 23,
     [("q", f32("g3q", 1, 2, 8)), ("k", f32("g3k", 1, 2, 4)), ("v", f32("g3v", 1, 2, 4)), "",
      ("pastk", f32("g3pk", 1, 1, 3, 4)), ("pastv", f32("g3pv", 1, 1, 3, 4))],
     attrs=dict(q_num_heads=2, kv_num_heads=1, is_causal=1), outputs=("y", "present_key", "present_value"))
for mode in (0, 2, 3):
    case("attention23_qk_mode%d_softcap_mask" % mode, "Attention", 23,
         [("q", q4), ("k", k4), ("v", v4), ("m", rng("qkm").integers(0, 2, (3, 5)).astype(bool) | np.eye(3, 5, dtype=bool))],
         attrs=dict(qk_matmul_output_mode=mode, softcap=1.5), outputs=("y", "", "", "qk"))
case("attention23_qk_output", "Attention", 23, [("q", q4), ("k", k4), ("v", v4), ("m", f32("atmq", 3, 5))],
     attrs=dict(qk_matmul_output_mode=1), outputs=("y", "", "", "qk"))


def rms_ref(x, scale, axis=-1, eps=1e-5):
    axes = tuple(range(axis % x.ndim, x.ndim))
    xd = x.astype(np.float64)
    return [(xd / np.sqrt((xd * xd).mean(axes, keepdims=True) + eps) * scale).astype(x.dtype)]


case("rmsnormalization23", "RMSNormalization", 23, [("x", f32("rms", 2, 3, 4)), ("s", f32("rmss", 4), "const")])
case("rmsnormalization23_axis_eps", "RMSNormalization", 23,
     [("x", f32("rms2", 2, 3, 4)), ("s", f32("rms2s", 3, 4))], attrs=dict(axis=1, epsilon=1e-2))
case("rmsnormalization23_double", "RMSNormalization", 23,
     [("x", f32("rms3", 3, 5).astype(np.float64)), ("s", f32("rms3s", 5).astype(np.float64), "const")],
     attrs=dict(stash_type=11))
pos = np.array([[0, 1, 2], [4, 2, 0]], np.int64)
cosc, sinc = f32("rcos", 8, 2), f32("rsin", 8, 2)
case("rotaryembedding23", "RotaryEmbedding", 23,
     [("x", f32("rot", 2, 2, 3, 4)), ("cos", cosc, "const"), ("sin", sinc, "const"), ("pos", pos)])
case("rotaryembedding23_interleaved", "RotaryEmbedding", 23,
     [("x", f32("rot2", 2, 2, 3, 4)), ("cos", cosc, "const"), ("sin", sinc, "const"), ("pos", pos)],
     attrs=dict(interleaved=1))
case("rotaryembedding23_no_position_ids", "RotaryEmbedding", 23,
     [("x", f32("rot3", 2, 1, 3, 4)), ("cos", f32("rc3", 2, 3, 2)), ("sin", f32("rs3", 2, 3, 2))])
case("rotaryembedding23_3d_partial", "RotaryEmbedding", 23,
     [("x", f32("rot4", 2, 3, 12)), ("cos", f32("rc4", 8, 2), "const"), ("sin", f32("rs4", 8, 2), "const"), ("pos", pos)],
     attrs=dict(num_heads=2, rotary_embedding_dim=4))
case("rotaryembedding23_interleaved_partial_3d", "RotaryEmbedding", 23,
     [("x", f32("rot5", 2, 3, 16)), ("cos", f32("rc5", 8, 3), "const"), ("sin", f32("rs5", 8, 3), "const"), ("pos", pos)],
     attrs=dict(num_heads=2, rotary_embedding_dim=6, interleaved=1))


def _to_float4e2m1(x):
    """Rounds to float4e2m1 (nearest, ties to an even mantissa), saturating at +-6."""
    grid = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
    a = np.minimum(np.abs(x), 6)
    d = np.abs(a[:, None] - grid[None, :])
    near = d.min(1, keepdims=True)
    tie = (d == near)
    idx = np.where(tie.sum(1) > 1, np.argmax(tie & (np.arange(8) % 2 == 0), 1), d.argmin(1))
    return (np.sign(x) * grid[idx]).astype(np.float32)


case("cast23_float4e2m1", "Cast", 23, [("x", np.array([0.0, 0.4, -1.3, 2.6, 5.0, 7.0, -100.0], np.float32))],
     attrs=dict(to=23), outputs=("f4",), ref=lambda x: [_to_float4e2m1(x)]).tail = ("Cast", dict(to=TensorProto.FLOAT))
case("quantizelinear23_int4", "QuantizeLinear", 23,
     [("x", f32("q23", 6, lo=-2.5, hi=2.5)), ("s", np.array(0.25, np.float32), "const")],
     attrs=dict(output_dtype=22), outputs=("q",)).tail = ("DequantizeLinear", dict(), ("s",))
case("reshape23", "Reshape", 23, [("x", f32("rs23", 4, 3)), ("s", i64(2, -1), "const")])

# ---------------------------------------------------------------------------------------------
# opset 24
case("attention24_nonpad_kv_seqlen", "Attention", 24,
     [("q", f32("n24q", 2, 2, 3, 4)), ("k", f32("n24k", 2, 2, 5, 4)), ("v", f32("n24v", 2, 2, 5, 4)), "", "", "",
      ("len", i64(3, 5))])
case("attention24_nonpad_causal", "Attention", 24,
     [("q", f32("n24cq", 2, 2, 3, 4)), ("k", f32("n24ck", 2, 2, 6, 4)), ("v", f32("n24cv", 2, 2, 6, 4)), "", "", "",
      ("len", i64(4, 6))], attrs=dict(is_causal=1))
case("attention24_causal_cross", "Attention", 24,
     [("q", f32("c24q", 1, 2, 2, 4)), ("k", f32("c24k", 1, 2, 5, 4)), ("v", f32("c24v", 1, 2, 5, 4))],
     attrs=dict(is_causal=1))
case("swish24", "Swish", 24, [("x", f32("sw24", 3, 4, lo=-4, hi=4))])
case("swish24_alpha", "Swish", 24, [("x", f32("sw24a", 3, 4, lo=-4, hi=4))], attrs=dict(alpha=1.702))
case("tensorscatter24", "TensorScatter", 24,
     [("cache", f32("ts", 2, 2, 6, 3)), ("upd", f32("tsu", 2, 2, 2, 3)), ("idx", i64(1, 4))])
case("tensorscatter24_circular", "TensorScatter", 24,
     [("cache", f32("ts2", 2, 5, 3)), ("upd", f32("ts2u", 2, 2, 3)), ("idx", i64(4, 1))],
     attrs=dict(mode="circular", axis=1))
case("tensorscatter24_prefill_int32", "TensorScatter", 24,
     [("cache", np.zeros((2, 5, 2), np.int32)), ("upd", rng("ts3").integers(-9, 9, (2, 3, 2), dtype=np.int32))],
     attrs=dict(axis=1))
case("topk24", "TopK", 24, [("x", f32("tk24", 3, 5)), ("k", i64(2), "const")], outputs=("v", "i"))
case("topk24_smallest_ties", "TopK", 24, [("x", np.array([[1, 3, 3, 2, 1], [0, 0, 0, 5, 5]], np.float32)),
                                          ("k", i64(3), "const")], attrs=dict(largest=0), outputs=("v", "i"))
case("splittosequence24", "SplitToSequence", 24, [("x", f32("sts", 4, 3))], attrs=dict(axis=0, keepdims=0),
     outputs=("seq",))
CASES[-1].tail = ("ConcatFromSequence", dict(axis=1, new_axis=1))
case("squeeze24", "Squeeze", 24, [("x", f32("sq24", 1, 3, 1)), ("a", i64(0), "const")])
case("flatten24", "Flatten", 24, [("x", f32("fl24", 2, 3, 4))], attrs=dict(axis=2))

# ---------------------------------------------------------------------------------------------
# opset 25
case("attention25", "Attention", 25, [("q", q4), ("k", k4), ("v", v4)], attrs=dict(is_causal=1))
case("transpose25", "Transpose", 25, [("x", f32("tr25", 2, 3, 4))])

# ---------------------------------------------------------------------------------------------
# opset 26
case("cumprod26", "CumProd", 26, [("x", f32("cp", 2, 5, lo=0.5, hi=1.5)), ("a", np.array(1, np.int64), "const")])
case("cumprod26_exclusive_reverse", "CumProd", 26,
     [("x", f32("cp2", 4, 3, lo=0.5, hi=1.5)), ("a", np.array(0, np.int64), "const")], attrs=dict(exclusive=1, reverse=1))
case("cumprod26_int64", "CumProd", 26, [("x", np.array([[1, 2, 3], [-1, 4, 2]], np.int64)),
                                        ("a", np.array(-1, np.int64), "const")])
case("bitcast26_float_to_int32", "BitCast", 26, [("x", np.array([1.0, -2.5, 0.0, np.inf], np.float32))],
     attrs=dict(to=TensorProto.INT32))
case("bitcast26_int32_to_float", "BitCast", 26, [("x", np.array([1065353216, -1071644672, 0], np.int32))],
     attrs=dict(to=TensorProto.FLOAT))


def _cumprod(x, axis, exclusive=0, reverse=0):
    x = np.flip(x, axis) if reverse else x
    y = np.cumprod(x, axis)
    if exclusive:
        y = np.concatenate([np.ones_like(np.take(y, [0], axis)), np.delete(y, -1, axis)], axis)
    return np.flip(y, axis) if reverse else y


CASES[-5].ref = lambda x, a: [_cumprod(x, 1)]
CASES[-4].ref = lambda x, a: [_cumprod(x, 0, 1, 1)]
CASES[-3].ref = lambda x, a: [_cumprod(x, -1)]
CASES[-2].ref = lambda x: [x.view(np.int32)]
CASES[-1].ref = lambda x: [x.view(np.float32)]
# ---------------------------------------------------------------------------------------------
# opset 27: ORT 1.30 has no kernel (its default domain stops at 26); NumPy references written
# from the spec's definitions (Operators.md: CausalConvWithState-27, LinearAttention-27)


def _ccs_ref(x, w, bias=None, past=None, activation="none"):
    """CausalConvWithState: P = past (zeros without) ++ x along the length; y[t] = sum_j
    w[c, 0, j] P[t + j] (+ bias), SiLU in float32; present_state the last k - 1 of P."""
    b, c, n = x.shape
    k = w.shape[2]
    if past is None:
        past = np.zeros((b, c, k - 1), x.dtype)
    p = np.concatenate([past, x], 2).astype(np.float64)
    y = np.zeros((b, c, n))
    for j in range(k):
        y += w[None, :, 0, j:j + 1].astype(np.float64) * p[:, :, j:j + n]
    if bias is not None:
        y += bias[None, :, None]
    y = y.astype(x.dtype)
    if activation in ("silu", "swish"):
        f = y.astype(np.float32)
        y = (f / (1 + np.exp(-f))).astype(x.dtype)
    return [y, np.concatenate([past, x], 2)[:, :, n + k - 1 - (k - 1):]]


def _ccs(name, b, c, n, k, bias=False, past=False, activation=None, dtype=np.float32):
    x = f32(name + "x", b, c, n).astype(dtype)
    w = f32(name + "w", c, 1, k).astype(dtype)
    ins = [("x", x), ("w", w, "const")]
    ins.append(("bias", f32(name + "b", c).astype(dtype), "const") if bias else "")
    ins.append(("past", f32(name + "p", b, c, k - 1).astype(dtype)) if past else "")
    while ins[-1] == "":
        ins.pop()
    attrs = dict(activation=activation) if activation else {}

    def ref(*a):
        a = list(a)
        return _ccs_ref(a.pop(0), a.pop(0), a.pop(0) if bias else None, a.pop(0) if past else None,
                        activation or "none")
    case(name, "CausalConvWithState", 27, ins, attrs=attrs, outputs=("y", "state"), ref=ref)


_ccs("causalconvwithstate27", 1, 2, 5, 3)
_ccs("causalconvwithstate27_bias_past", 2, 4, 6, 4, bias=True, past=True)
_ccs("causalconvwithstate27_decode_step", 2, 3, 1, 4, bias=True, past=True)
_ccs("causalconvwithstate27_silu_past", 2, 4, 5, 3, past=True, activation="silu")
_ccs("causalconvwithstate27_swish", 1, 3, 4, 2, activation="swish")
_ccs("causalconvwithstate27_short_input", 2, 2, 2, 5)
_ccs("causalconvwithstate27_kernel_one", 2, 3, 4, 1, bias=True)
_ccs("causalconvwithstate27_fp16_silu", 2, 4, 6, 3, bias=True, activation="silu", dtype=np.float16)


def _la_ref(q, k, v, past=None, decay=None, beta=None, hq=1, hkv=1, rule="gated_delta", scale=0.0):
    """LinearAttention, token by token as the spec states the recurrence, in float64."""
    b, n, _ = q.shape
    dk = q.shape[2] // hq
    dv = v.shape[2] // hkv
    scale = scale or 1.0 / np.sqrt(dk)
    Q = q.reshape(b, n, hq, dk).astype(np.float64)
    K = k.reshape(b, n, hkv, dk).astype(np.float64)
    V = v.reshape(b, n, hkv, dv).astype(np.float64)
    S = np.zeros((b, hkv, dk, dv)) if past is None else past.astype(np.float64)
    G = None if decay is None else decay.reshape(b, n, hkv, -1).astype(np.float64)
    Bt = None if beta is None else beta.astype(np.float64)
    o = np.zeros((b, n, hq, dv))
    for t in range(n):
        for bi in range(b):
            for h in range(hkv):
                s, kt, vt = S[bi, h], K[bi, t, h], V[bi, t, h]
                if rule in ("gated", "gated_delta"):
                    s = np.exp(G[bi, t, h])[:, None] * s
                if rule in ("delta", "gated_delta"):
                    bt = Bt[bi, t, h if Bt.shape[2] > 1 else 0]
                    s = s + bt * np.outer(kt, vt - s.T @ kt)
                else:
                    s = s + np.outer(kt, vt)
                S[bi, h] = s
            for h in range(hq):
                o[bi, t, h] = scale * Q[bi, t, h] @ S[bi, h // (hq // hkv)]
    sdt = q.dtype if past is None else past.dtype
    return [o.reshape(b, n, hq * dv).astype(q.dtype), S.astype(sdt)]


def _la(name, b, n, hq, hkv, dk, dv, rule=None, past=False, decay=None, beta=None, scale=None,
        dtype=np.float32, dyn=None):
    q = f32(name + "q", b, n, hq * dk).astype(dtype)
    k = f32(name + "k", b, n, hkv * dk)
    if rule in (None, "delta", "gated_delta"):  # L2-normalized per head, as the op expects
        kk = k.reshape(b, n, hkv, dk)
        k = (kk / np.linalg.norm(kk, axis=-1, keepdims=True)).reshape(b, n, hkv * dk)
    k = k.astype(dtype)
    v = f32(name + "v", b, n, hkv * dv).astype(dtype)
    ins = [("q", q), ("k", k), ("v", v)]
    ins.append(("past", 0.3 * f32(name + "s", b, hkv, dk, dv)) if past else "")
    ins.append(("decay", -0.2 * f32(name + "g", b, n, decay, lo=0.0, hi=1.0).astype(dtype)) if decay else "")
    ins.append(("beta", f32(name + "b", b, n, beta, lo=0.0, hi=1.0).astype(dtype)) if beta else "")
    while ins[-1] == "":
        ins.pop()
    attrs = dict(q_num_heads=hq, kv_num_heads=hkv)
    if rule:
        attrs["update_rule"] = rule
    if scale:
        attrs["scale"] = scale

    def ref(*a):
        a = list(a)
        return _la_ref(a.pop(0), a.pop(0), a.pop(0), a.pop(0) if past else None,
                       a.pop(0) if decay else None, a.pop(0) if beta else None, hq, hkv,
                       rule or "gated_delta", scale or 0.0)
    case(name, "LinearAttention", 27, ins, attrs=attrs, outputs=("y", "present_state"), ref=ref, dyn=dyn)


_la("linearattention27", 1, 3, 2, 2, 4, 4, rule="linear")  # packed [B, T, H*D]; no decay, beta
_la("linearattention27_linear_past", 2, 4, 2, 2, 4, 3, rule="linear", past=True)
_la("linearattention27_gated", 2, 4, 2, 2, 4, 4, rule="gated", decay=2 * 4)
_la("linearattention27_gated_per_head", 2, 3, 2, 2, 4, 4, rule="gated", decay=2, past=True)
_la("linearattention27_delta", 2, 4, 2, 2, 4, 4, rule="delta", beta=2)
_la("linearattention27_gated_delta", 2, 4, 2, 2, 4, 4, decay=2 * 4, beta=2)
_la("linearattention27_gated_delta_gqa_past", 2, 3, 4, 2, 4, 3, past=True, decay=2 * 4, beta=2, scale=0.3)
_la("linearattention27_gated_delta_mqa_beta1", 1, 4, 4, 1, 4, 4, decay=1, beta=1)
_la("linearattention27_decode_step", 2, 1, 2, 2, 4, 4, past=True, decay=2 * 4, beta=2)
_la("linearattention27_fp16", 1, 3, 2, 2, 4, 4, decay=2, beta=2, dtype=np.float16)
# a time length known only at run time: the unrolled recurrence cannot be written (refused, 27)
_la("linearattention27_runtime_length", 1, 3, 2, 2, 4, 4, rule="linear",
    dyn={n: {1: "T"} for n in ("q", "k", "v")})
_la("linearattention27_fp16_state_f32", 2, 3, 4, 2, 4, 4, past=True, decay=2 * 4, beta=2, dtype=np.float16)

def build(c):
    """The case's model: the node, plus a tail node where the op's output type has no ORT
    binding (float8 and int4 cast back to float; a sequence concatenated)."""
    m = c.model()
    tail = getattr(c, "tail", None)
    if tail:
        g = m.graph
        extra = list(tail[2]) if len(tail) > 2 else []
        src = c.outputs[0]
        g.node.append(helper.make_node(tail[0], [src] + extra, ["y"], name=c.name + "_tail", **tail[1]))
        del g.output[:]
        g.output.append(helper.make_empty_tensor_value_info("y"))
    return m


def at_opset(m, opset):
    m2 = onnx.ModelProto()
    m2.CopyFrom(m)
    m2.opset_import[0].version = opset
    return m2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-k", help="only the cases whose name contains this")
    args = ap.parse_args()
    cases = [c for c in CASES if not args.k or args.k in c.name]
    if args.list:
        for c in cases:
            print("%-48s %s-%d" % (c.name, c.op, c.opset))
        return 0
    sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
    from ortrun import run_batch
    models = [build(c) for c in cases]
    results = run_batch([(m, c.feeds()) for m, c in zip(models, cases)])
    older = [i for i, c in enumerate(cases) if c.ref_opset]
    for i, r in zip(older, run_batch([(at_opset(models[i], cases[i].ref_opset), cases[i].feeds()) for i in older])):
        results[i] = r
    os.makedirs(OUT_DIR, exist_ok=True)
    src = {"ort": 0, "numpy": 0, "none": 0}
    for c, m, r in zip(cases, models, results):
        outs = None
        if c.ref is not None:
            args = [np.asarray(i[1]) for i in c.inputs if i != ""]
            outs = dict(zip([o.name for o in m.graph.output], c.ref(*args)))
            src["numpy"] += 1
            if not isinstance(r, str):  # both: ORT must agree with the formula
                for n, v in outs.items():
                    assert np.allclose(r[n], v, atol=1e-5, rtol=1e-4), (c.name, n, r[n], v)
        elif not isinstance(r, str):
            outs = r
            src["ort"] += 1
        else:
            src["none"] += 1
            print("no reference: %s (%s)" % (c.name, r.strip().splitlines()[0][:160]))
        arrays = {"model": np.frombuffer(m.SerializeToString(), np.uint8)}
        for n, v in c.feeds().items():
            arrays["in:" + n] = v.astype(str) if v.dtype == object else v  # no pickles
        for n, v in (outs or {}).items():
            arrays["out:" + n] = v.astype(str) if v.dtype == object else v
        np.savez_compressed(os.path.join(OUT_DIR, c.name + ".npz"), **arrays)
    names = {c.name + ".npz" for c in CASES}
    for f in os.listdir(OUT_DIR):
        if f.endswith(".npz") and f not in names:
            os.remove(os.path.join(OUT_DIR, f))
    print("%d cases: reference from ORT %d, NumPy %d, none %d" % (len(cases), src["ort"], src["numpy"], src["none"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
