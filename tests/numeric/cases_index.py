"""Numeric cases of shape and indexing (symbolics/index.c): unflatten, repeat, tile, flip, roll,
split, split_with_sizes, chunk, unbind, index, index_select, index_put, gather, scatter,
scatter_add, scatter_reduce, nonzero, meshgrid, tril, triu, one_hot, embedding, pad, constant_pad_nd.

Index tensors are graph inputs (run-time values) unless wrapped in Init (known at export time).
index_put / scatter without accumulation use indices without duplicates (PyTorch leaves which
write wins undefined); the accumulating ones have duplicates on purpose."""
import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
rng = np.random.default_rng(13)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def i64(*shape, lo=-50, hi=50):
    return rng.integers(lo, hi, size=shape).astype(np.int64)


def idx(values, dtype=np.int64):
    return np.array(values, dtype=dtype)


def mask(*shape):
    return rng.random(shape) > 0.5


def perm_rows(rows, n_idx, cols):
    """An index for scatter along dim 0 with distinct rows in each column."""
    return np.stack([rng.permutation(rows)[:n_idx] for _ in range(cols)], axis=1).astype(np.int64)


def meshgrid(ts, indexing="ij"):
    return torch.meshgrid(*ts, indexing=indexing)


m34 = mask(3, 4)
m34_known = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
x234 = f32(2, 3, 4)
CASES = [
    # unflatten
    Case("unflatten", [f32(2, 12, 3), 1, [3, 4]], lambda x, d, s: x.unflatten(d, s)),
    Case("unflatten", [f32(2, 12), -1, [2, -1, 3]], lambda x, d, s: x.unflatten(d, s)),
    Case("unflatten", [Dyn(f32(2, 12, 3), ["N", 12, "C"]), 1, [4, 3]], lambda x, d, s: x.unflatten(d, s)),
    # repeat / tile
    Case("repeat", [f32(2, 3), [2, 1]], lambda x, r: x.repeat(*r)),
    Case("repeat", [f32(3), [2, 2, 2]], lambda x, r: x.repeat(*r)),
    Case("repeat", [i64(2, 1, 2), [1, 3, 2]], lambda x, r: x.repeat(*r)),
    Case("repeat", [Dyn(f32(2, 3), ["N", 3]), [2, 2]], lambda x, r: x.repeat(*r)),
    Case("repeat", [mask(2, 2), [1, 3]], lambda x, r: x.repeat(*r)),
    Case("tile", [f32(2, 3), [2]], lambda x, r: x.tile(r)),
    Case("tile", [i64(2), [3, 2]], lambda x, r: x.tile(r)),
    # flip: Slice step -1 (10), Gather of reversed indices below
    Case("flip", [x234, [0, 2]], aten.flip),
    Case("flip", [x234, [-1]], aten.flip),
    Case("flip", [i64(3, 5), [1]], aten.flip),
    Case("flip", [Dyn(x234, [2, "C", 4]), [1]], aten.flip, min_opset=10),
    Case("flip", [Dyn(x234, ["N", 3, 4]), [2]], aten.flip),
    # roll: one dim, several, flattened (no dims), a symbolic dim (Mod-10)
    Case("roll", [f32(3, 5), [2], [1]], aten.roll),
    Case("roll", [f32(3, 5), [-1, 7], [0, 1]], aten.roll),
    Case("roll", [i64(2, 3), [4], []], aten.roll),
    Case("roll", [f32(4, 2), [4], [0]], aten.roll),
    Case("roll", [Dyn(f32(4, 5), ["N", 5]), [1], [0]], aten.roll, min_opset=10),
    # split (int size, sizes), split_with_sizes, chunk, unbind
    Case("split", [f32(7, 4), 3, 0], lambda x, s, d: torch.split(x, s, d)),
    Case("split", [f32(4, 6), 2, -1], lambda x, s, d: torch.split(x, s, d)),
    Case("split", [f32(2, 6), [1, 2, 3], 1], lambda x, s, d: torch.split(x, s, d)),
    Case("split", [Dyn(f32(7, 4), ["N", 4]), 3, 0], lambda x, s, d: torch.split(x, s, d)),
    Case("split", [i64(5), 5, 0], lambda x, s, d: torch.split(x, s, d)),
    Case("split_with_sizes", [f32(5, 2), [2, 3], 0], aten.split_with_sizes),
    Case("split_with_sizes", [Dyn(f32(2, 5), [2, "W"]), [1, 4], -1], aten.split_with_sizes),
    Case("chunk", [f32(7, 3), 3, 0], aten.chunk),
    Case("chunk", [f32(2, 6), 4, 1], aten.chunk),
    Case("chunk", [i64(5, 2), 2, 0], aten.chunk),
    Case("chunk", [Dyn(f32(7, 3), ["N", 3]), 3, 0], aten.chunk, min_opset=10),
    Case("unbind", [f32(3, 2), 0], aten.unbind),
    Case("unbind", [i64(2, 4), -1], aten.unbind),
    Case("unbind", [Dyn(f32(3, 2), [3, "M"]), 0], aten.unbind),
    # index: one index tensor, None entries, several (adjacent or not, broadcast), negative,
    # int32, masks (known, or NonZero-9 at run time), symbolic dims
    Case("index", [f32(5, 4), [idx([4, 0, -1])]], aten.index),
    Case("index", [f32(3, 5, 2), [None, idx([[1, 4], [0, 0]])]], aten.index),
    Case("index", [f32(3, 4, 5), [idx([2, 0]), idx([1, -1])]], aten.index),
    Case("index", [f32(2, 3, 4, 5), [None, idx([2, 0, 1]), idx([3, 0, 1])]], aten.index),
    Case("index", [f32(3, 4, 5), [idx([[0], [2]]), None, idx([4, 1, 0])]], aten.index),
    Case("index", [f32(3, 4), [idx([[0], [2]]), idx([[1, 3, 0]])]], aten.index),
    Case("index", [Init(f32(5, 4)), [Init(idx([-2, 1]))]], aten.index),
    Case("index", [f32(3, 4), [m34]], aten.index, min_opset=9),
    Case("index", [f32(3, 4, 2), [None, mask(4)]], aten.index, min_opset=9),
    Case("index", [f32(3, 4), [Init(m34_known)]], aten.index),
    Case("index", [f32(3, 4, 2), [Init(m34_known)]], aten.index),
    Case("index", [Dyn(f32(5, 4), ["N", 4]), [idx([1, 3])]], aten.index),
    Case("index", [Dyn(f32(3, 4, 5), ["N", "C", 5]), [None, idx([0, 3]), idx([4, 2])]], aten.index),
    # index_select / embedding
    Case("index_select", [f32(4, 3), 0, idx([3, 0, 3])], aten.index_select),
    Case("index_select", [i64(2, 5), -1, idx([4, 1])], aten.index_select),
    Case("index_select", [Dyn(f32(4, 3), ["N", 3]), 1, idx([2])], aten.index_select),
    Case("embedding", [f32(10, 4), idx([[1, 9, 0], [3, 3, 2]])], aten.embedding),
    Case("embedding", [f32(6, 2), idx([5, 0]), 0, False, False], aten.embedding),
    # index_put: the seed's data[idx] = v at every opset (ScatterND 11, Scatter-9, Gather from
    # Concat below), broadcast values, accumulate with duplicates, several indices, masks
    Case("index_put", [f32(5, 3), [idx([3, 0])], f32(2, 3), False], aten.index_put),
    Case("index_put", [f32(5, 3), [idx([1, -1, 2])], f32(3), False], aten.index_put),
    Case("index_put", [f32(5, 3), [Init(idx([4, -5]))], f32(2, 3), False], aten.index_put),
    Case("index_put", [i64(6, 2), [idx([5, 2])], i64(2, 2), False], aten.index_put),
    Case("index_put", [mask(4, 3), [idx([2, 0])], np.array([True, False, True]), False],
         aten.index_put),
    Case("index_put", [f32(5, 3), [idx([1, 3, 1, 1])], f32(4, 3), True], aten.index_put),
    Case("index_put", [f32(4), [Init(idx([0, 2, 0]))], f32(3), True], aten.index_put),
    Case("index_put", [i64(4, 2), [idx([3, 3])], i64(2, 2), True], aten.index_put),
    Case("index_put", [f32(3, 4, 2), [idx([2, 0]), idx([1, 3])], f32(2, 2), False], aten.index_put),
    Case("index_put", [f32(2, 3, 4), [None, idx([2, 0]), idx([1, 3])], f32(2, 2), False], aten.index_put),
    Case("index_put", [f32(3, 4, 5), [idx([2, 0]), None, idx([4, 1])], f32(2, 4), False], aten.index_put),
    Case("index_put", [f32(4, 3), [idx([0, 3]), idx([2, 2])], f32(2), True], aten.index_put),
    Case("index_put", [f32(3, 4), [m34], np.array(7.5, np.float32), False], aten.index_put,
         min_opset=9),
    Case("index_put", [f32(3, 4), [mask(3)], f32(4), False], aten.index_put, min_opset=9),
    Case("index_put", [f32(3, 4), [m34], np.array(1.0, np.float32), True], aten.index_put,
         min_opset=9),
    Case("index_put", [f32(3, 4), [Init(m34_known)], f32(6), False], aten.index_put),
    Case("index_put", [f32(3, 4), [m34], f32(int(m34.sum())), False], aten.index_put, min_opset=9),
    Case("index", [f32(3, 4), [np.array(2)]], aten.index),
    Case("index_put", [Dyn(f32(5, 3), ["N", 3]), [idx([4, 1])], f32(2, 3), False], aten.index_put,
         min_opset=9),
    # gather: GatherElements (11), below with static shapes
    Case("gather", [f32(3, 4), 1, i64(3, 2, lo=0, hi=4)], aten.gather),
    Case("gather", [f32(3, 4), 0, i64(2, 4, lo=0, hi=3)], aten.gather),
    Case("gather", [i64(2, 3, 4), -1, i64(2, 3, 2, lo=0, hi=4)], aten.gather),
    Case("gather", [f32(4, 5), 0, i64(2, 3, lo=0, hi=4)], aten.gather),
    Case("gather", [Dyn(f32(3, 4), ["N", 4]), 1, i64(3, 2, lo=0, hi=4)], aten.gather, min_opset=11),
    # scatter: src, value, reduce add/multiply (16; one-hot decompositions below), src larger
    # than index
    Case("scatter", [f32(3, 5), 0, perm_rows(3, 2, 5), f32(2, 5)], aten.scatter),
    Case("scatter", [f32(3, 5), 1, np.array([[0, 4], [3, 1], [2, 2]]), 2.5],
         lambda x, d, i, v: torch.scatter(x, d, i, v)),
    Case("scatter", [i64(4, 3), 0, perm_rows(4, 2, 3), i64(3, 4)], aten.scatter),
    Case("scatter", [mask(3, 4), 1, np.array([[3], [0], [1]]), True],
         lambda x, d, i, v: torch.scatter(x, d, i, v)),
    Case("scatter", [f32(3, 5), 0, i64(4, 5, lo=0, hi=3), f32(4, 5), "add"],
         lambda x, d, i, s, r: torch.scatter(x, d, i, s, reduce=r)),
    Case("scatter", [f32(3, 4), 1, i64(3, 3, lo=0, hi=4), f32(3, 3), "multiply"],
         lambda x, d, i, s, r: torch.scatter(x, d, i, s, reduce=r)),
    Case("scatter", [Dyn(f32(3, 5), ["N", 5]), 0, perm_rows(3, 2, 5), f32(2, 5)], aten.scatter,
         min_opset=9),
    # scatter_add: ScatterElements reduction 'add' (16), one-hot MatMul below (static shapes)
    Case("scatter_add", [f32(3, 5), 0, i64(4, 5, lo=0, hi=3), f32(4, 5)], aten.scatter_add),
    Case("scatter_add", [f32(2, 6), 1, i64(2, 3, lo=0, hi=6), f32(2, 4)], aten.scatter_add),
    Case("scatter_add", [i64(5), 0, i64(7, lo=0, hi=5), i64(7)], aten.scatter_add),
    Case("scatter_add", [Dyn(f32(3, 5), ["N", 5]), 0, i64(4, 5, lo=0, hi=3), f32(4, 5)],
         aten.scatter_add, min_opset=16),
    # scatter_reduce: ScatterElements' reductions (sum/prod 16, amax/amin 18), row scatters below
    # (prod/amax/amin pick by Where, a Gather below 9); include_self=False scatters the identity
    # or the src first
    Case("scatter_reduce", [f32(3, 5), 0, i64(4, 5, lo=0, hi=3), f32(4, 5), "sum"],
         lambda x, d, i, s, r: torch.scatter_reduce(x, d, i, s, r)),
    Case("scatter_reduce", [f32(3, 5), 0, i64(4, 5, lo=0, hi=3), f32(4, 5), "amax", False],
         lambda x, d, i, s, r, inc: torch.scatter_reduce(x, d, i, s, r, include_self=inc)),
    Case("scatter_reduce", [i64(2, 6), 1, i64(2, 4, lo=0, hi=6), i64(2, 5), "amin"],
         lambda x, d, i, s, r: torch.scatter_reduce(x, d, i, s, r)),
    Case("scatter_reduce", [f32(3, 4), 1, i64(3, 3, lo=0, hi=4), f32(3, 3), "prod", False],
         lambda x, d, i, s, r, inc: torch.scatter_reduce(x, d, i, s, r, include_self=inc)),
    Case("scatter_reduce", [i64(5), 0, i64(7, lo=0, hi=5), i64(7), "mean"],
         lambda x, d, i, s, r: torch.scatter_reduce(x, d, i, s, r)),
    # nonzero (NonZero-9, transposed)
    Case("nonzero", [np.where(mask(3, 4), f32(3, 4), 0).astype(np.float32)], aten.nonzero),
    Case("nonzero", [mask(2, 3, 2)], aten.nonzero),
    Case("nonzero", [i64(6, lo=-1, hi=2)], aten.nonzero),
    Case("nonzero", [np.array([0, 2, 0, -1], dtype=np.int8)], aten.nonzero),
    # meshgrid: 'ij' (default) and 'xy'
    Case("meshgrid", [[f32(3), f32(4)]], meshgrid),
    Case("meshgrid", [[f32(3), i64(2).astype(np.float32), f32(4)], "xy"], meshgrid),
    Case("meshgrid", [[i64(2), i64(5)], "ij"], meshgrid),
    Case("meshgrid", [[Dyn(f32(3), ["A"]), f32(2)], "xy"], meshgrid, min_opset=8),
    # tril / triu: Trilu (14), a static mask below; sizes read at run time (Range-11)
    Case("tril", [f32(4, 5)], aten.tril),
    Case("tril", [f32(2, 3, 3), 1], aten.tril),
    Case("tril", [i64(3, 4), -1], aten.tril),
    Case("tril", [Dyn(f32(2, 3, 3), ["N", 3, 3]), 0], aten.tril),
    Case("tril", [Dyn(f32(3, 4), ["R", "C"]), 0], aten.tril, min_opset=11),
    Case("triu", [f32(4, 5)], aten.triu),
    Case("triu", [f32(2, 4, 3), -1], aten.triu),
    Case("triu", [i64(4, 4), 2], aten.triu),
    Case("triu", [Dyn(f32(3, 4), [3, "C"]), 1], aten.triu, min_opset=11),
    # one_hot: OneHot (9), Equal below; num_classes -1 (known, or max + 1 at run time)
    Case("one_hot", [i64(5, lo=0, hi=4), 4], aten.one_hot),
    Case("one_hot", [i64(2, 3, lo=0, hi=6), 6], aten.one_hot),
    Case("one_hot", [Init(i64(2, 3, lo=0, hi=5)), -1], aten.one_hot),
    Case("one_hot", [i64(4, lo=0, hi=3), -1], aten.one_hot, min_opset=9),
    # pad: constant (value), reflect, replicate, circular (Pad-19 'wrap', Slice+Concat below),
    # negative pads (cropping)
    Case("pad", [f32(1, 2, 5), [1, 2], "constant", None], aten.pad),
    Case("pad", [f32(1, 2, 5), [1, 1], "constant", 2.5], aten.pad),
    Case("pad", [f32(2, 3), [1, -1, 2, 0], "constant", None], aten.pad),
    Case("pad", [f32(1, 2, 5), [2, -1], "reflect", None], aten.pad),
    Case("pad", [f32(1, 2, 4, 5), [1, 1, 2, 0], "reflect", None], aten.pad),
    Case("pad", [f32(1, 2, 4, 5), [1, 1, 2, 0], "replicate", None], aten.pad),
    Case("pad", [f32(1, 2, 3, 4), [1, 2, 1, 1], "circular", None], aten.pad),
    Case("pad", [f32(1, 2, 5), [2, -1], "circular", None], aten.pad),
    Case("pad", [Dyn(f32(1, 2, 5), ["N", 2, "W"]), [2, 1], "circular", None], aten.pad),
    Case("pad", [i64(2, 3), [1, 1, 1, 1], "constant", 3.0], aten.pad),
    # pad amounts computed at run time (Pad's pads input, 11; Gathers of computed indices from
    # 9): padding up to a size
    Case("pad", [f32(2, 5), [Init(np.array(0)), Dyn(np.array(3), [])], "constant", 1.5],
         lambda x, p, m, v: aten.pad(x, [int(t) for t in p], m, v), min_opset=9),
    Case("pad", [f32(1, 3, 5), [Dyn(np.array(2), []), Dyn(np.array(1), [])], "reflect", None],
         lambda x, p, m, v: aten.pad(x, [int(t) for t in p], m, v), min_opset=9),
    Case("pad", [f32(1, 3, 5), [Dyn(np.array(2), []), Dyn(np.array(-1), [])], "circular", None],
         lambda x, p, m, v: aten.pad(x, [int(t) for t in p], m, v), min_opset=9),
    Case("constant_pad_nd", [f32(2, 5), [Dyn(np.array(1), []), Dyn(np.array(-2), [])], 0.0],
         lambda x, p, v: aten.constant_pad_nd(x, [int(t) for t in p], v), min_opset=9),
    # constant_pad_nd
    Case("constant_pad_nd", [f32(2, 3), [1, 2]], aten.constant_pad_nd),
    Case("constant_pad_nd", [f32(2, 3, 4), [1, -1, 0, 2, 1, 0], -1.5], aten.constant_pad_nd),
    Case("constant_pad_nd", [i64(2, 3), [1, -1, 1, 0], 2.7], aten.constant_pad_nd),
    Case("constant_pad_nd", [Dyn(f32(2, 3), ["N", 3]), [2, 2], 0.5], aten.constant_pad_nd),
]
