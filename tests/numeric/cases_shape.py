"""Numeric cases of the shape and indexing basics (symbolics/shape.c)."""
import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
rng = np.random.default_rng(4)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def i64(*shape):
    return rng.integers(-50, 50, size=shape).astype(np.int64)


x234 = f32(2, 3, 4)
CASES = [
    # view / reshape (static sizes, -1, run-time sizes, int and bool tensors)
    Case("view", [x234, [6, -1]], aten.view),
    Case("view", [x234, [4, 3, 2]], aten.view),
    Case("view", [Dyn(x234, ["N", 3, 4]), [-1, 12]], aten.view),
    Case("reshape", [i64(2, 6), [3, 2, 2]], aten.reshape),
    Case("reshape", [np.array([[True, False], [False, True]]), [4]], aten.reshape),
    Case("_reshape_alias", [x234, [24], [1]], aten._reshape_alias),
    # flatten
    Case("flatten", [x234, 1, -1], aten.flatten),
    Case("flatten", [x234, 0, -1], aten.flatten),
    Case("flatten", [f32(2, 3, 4, 5), 1, 2], aten.flatten),
    Case("flatten", [Dyn(f32(2, 3, 4, 5), ["N", 3, "H", "W"]), 0, 1], aten.flatten),
    Case("flatten", [np.array(3.5, dtype=np.float32), 0, -1], aten.flatten),
    # permute / transpose
    Case("permute", [x234, [2, 0, 1]], aten.permute),
    Case("permute", [f32(2, 3, 4, 5), [0, -1, 1, 2]], aten.permute),
    Case("transpose", [x234, 0, 2], aten.transpose),
    Case("transpose", [i64(3, 5), -1, -2], aten.transpose),
    # identities
    Case("contiguous", [x234], aten.contiguous),
    Case("detach", [x234], aten.detach),
    Case("clone", [i64(4)], aten.clone),
    Case("alias", [x234], aten.alias),
    # squeeze: all, a dim of 1, a dim of 3 (a no-op), a dim unknown at export time
    Case("squeeze", [f32(2, 1, 3, 1)], aten.squeeze),
    Case("squeeze", [f32(2, 1, 3), 1], lambda x, d: aten.squeeze(x, d)),
    Case("squeeze", [f32(2, 3), 1], lambda x, d: aten.squeeze(x, d)),
    Case("squeeze", [Dyn(f32(2, 1, 3), [2, "M", 3]), 1], lambda x, d: aten.squeeze(x, d),
         min_opset=9, declare_outputs=True),
    Case("squeeze", [Dyn(f32(2, 5, 3), [2, "M", 3]), -2], lambda x, d: aten.squeeze(x, d),
         min_opset=9, declare_outputs=True),
    # unsqueeze
    Case("unsqueeze", [x234, 0], aten.unsqueeze),
    Case("unsqueeze", [x234, -1], aten.unsqueeze),
    Case("unsqueeze", [Dyn(i64(3), ["N"]), 1], aten.unsqueeze),
    # expand (with -1, new leading dims), expand_as
    Case("expand", [f32(1, 3, 4), [10, -1, -1]], aten.expand),
    Case("expand", [f32(3, 1), [2, 3, 5]], aten.expand),
    Case("expand", [Dyn(f32(1, 3, 1), [1, "C", 1]), [4, -1, 2]], aten.expand),
    Case("expand", [np.array([True, False]), [3, 2]], aten.expand),
    Case("expand_as", [f32(3, 1), f32(2, 3, 4)], aten.expand_as),
    # cat / stack
    Case("cat", [[f32(2, 3), f32(4, 3)], 0], aten.cat),
    Case("cat", [[f32(2, 3), f32(2, 1), f32(2, 2)], -1], aten.cat),
    Case("cat", [[i64(2, 2), Init(i64(2, 3))], 1], aten.cat),
    Case("cat", [[f32(2, 3), np.zeros((0,), np.float32)], 0], aten.cat),
    Case("stack", [[f32(2, 3), f32(2, 3), f32(2, 3)], 0], aten.stack),
    Case("stack", [[i64(2, 3), i64(2, 3)], -1], aten.stack),
    # slice (dim, start, end, step): negative, open-ended, stepped (Slice-10)
    Case("slice", [f32(5, 6), 1, 1, 4, 1], aten.slice),
    Case("slice", [f32(5, 6), 0, -3, 9223372036854775807, 1], aten.slice),
    Case("slice", [f32(5, 6), 0, None, 2, 1], aten.slice),
    # a step on a dim of known size: Gather of the kept indices below Slice-10
    Case("slice", [f32(5, 6), 1, 0, 6, 2], aten.slice),
    Case("slice", [f32(5, 7), 1, 1, 9223372036854775807, 3], aten.slice),
    Case("slice", [f32(5, 7), 0, -4, -1, 2], aten.slice),
    # ... on a dim known only at run time, a step needs Slice-10
    Case("slice", [Dyn(f32(5, 6), ["N", 6]), 0, 0, 4, 2], aten.slice, min_opset=10),
    Case("slice", [Dyn(f32(5, 6), ["N", 6]), 0, 1, -1, 1], aten.slice),
    # select / narrow
    Case("select", [x234, 1, 2], aten.select),
    Case("select", [x234, 2, -1], aten.select),
    Case("select", [Dyn(x234, [2, "C", 4]), 1, -1], aten.select),
    Case("narrow", [x234, 2, 1, 2], aten.narrow),
    Case("narrow", [i64(6, 2), 0, -4, 3], aten.narrow),
    # size / numel
    Case("size", [x234, 1], lambda x, d: aten.size(x, d)),
    Case("size", [Dyn(x234, ["N", 3, 4]), 0], lambda x, d: aten.size(x, d)),
    Case("size", [Dyn(x234, ["N", 3, 4]), -1], lambda x, d: aten.size(x, d)),
    Case("size", [Dyn(x234, ["N", 3, 4])], lambda x: np.array(x.shape, np.int64), torch=False),
    Case("numel", [x234], aten.numel),
    Case("numel", [Dyn(x234, ["N", "C", 4])], aten.numel),
    # to / type_as: dtype (ScalarType numbers), other, device + dtype, copy only
    Case("to", [x234, 3, False, False, None], lambda x, *a: x.to(torch.int32)),
    Case("to", [i64(3, 3), 6, False, False, None], lambda x, *a: x.to(torch.float32)),
    Case("to", [x234, 11, False, False, None], lambda x, *a: x.to(torch.bool)),
    Case("to", [x234, i64(2), False, False, None], lambda x, o, *a: x.to(o)),
    Case("to", [i64(4), "cpu", 7, False, False, None], lambda x, *a: x.to(torch.float64)),
    Case("to", [x234, False, False], lambda x, *a: x),
    Case("_to_copy", [x234, 3], lambda x, d: x.to(torch.int32)),
    Case("_to_copy", [i64(3, 3), 11], lambda x, d: x.to(torch.bool)),
    Case("_to_copy", [x234, None], lambda x, d: x.clone()),
    Case("type_as", [i64(2, 3), f32(1)], aten.type_as),
    Case("type_as", [x234, np.array([1], np.int32)], aten.type_as),
    # _unsafe_view (make_fx's view of a fresh tensor) is view; lift_fresh(_copy) the identity
    Case("_unsafe_view", [x234, [6, -1]], aten._unsafe_view),
    Case("_unsafe_view", [Dyn(x234, ["N", 3, 4]), [-1, 12]], aten._unsafe_view),
    Case("lift_fresh_copy", [x234], aten.lift_fresh_copy),
    Case("lift_fresh", [i64(3)], aten.lift_fresh),
]
