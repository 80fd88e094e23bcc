"""Numeric cases of sorting (symbolics/sort.c): topk, sort, argsort through TopK.

Ties: ONNX's TopK puts the lower index first among equal values, which is the order of a stable
sort both ways, so sort/argsort cases with ties compare indices with PyTorch's stable sort.
PyTorch leaves the order of ties in topk unspecified: topk cases use distinct values."""
import numpy as np
import torch

from harness import Case, Dyn

rng = np.random.default_rng(12)
aten = torch.ops.aten


def distinct_f32(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.float32) * 0.37 - 5).reshape(shape)


def distinct_i64(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.int64) * 3 - 20).reshape(shape)


def topk_unsorted(x, k, dim, largest, sorted_):
    """sorted=False leaves the order open: compare in sorted order."""
    v, i = torch.topk(x, k, dim, largest, sorted_)
    order = torch.argsort(v, dim=dim, descending=largest)
    return torch.gather(v, dim, order), torch.gather(i, dim, order)


x37 = distinct_f32(3, 7)
ties = np.array([[3, 1, 3, 2, 1, 3], [0, 0, -1, 5, 5, 0]], dtype=np.float32)
CASES = [
    # topk: k, dim (incl. negative), largest, sorted; ints (through double below 11); run-time k
    Case("topk", [x37, 3], lambda x, k: torch.topk(x, k)),
    Case("topk", [x37, 2, 0, False, True], lambda x, k, d, l, s: torch.topk(x, k, d, l, s)),
    Case("topk", [distinct_f32(2, 3, 4), 2, -2, True, True], lambda x, *a: torch.topk(x, *a)),
    Case("topk", [distinct_i64(4, 5), 2, 1, True, True], lambda x, *a: torch.topk(x, *a)),
    Case("topk", [distinct_i64(6), 3, 0, False, True], lambda x, *a: torch.topk(x, *a)),
    Case("topk", [distinct_f32(2, 6), 4, -1, False, False], topk_unsorted),
    Case("topk", [Dyn(x37, ["N", 7]), 3, -1, True, True], lambda x, *a: torch.topk(x, *a)),
    # k at run time: TopK-10's input; below, the whole dim sorted and its first k gathered
    Case("topk", [x37, Dyn(np.array(2, dtype=np.int64), []), 1, True, True],
         lambda x, k, *a: torch.topk(x, int(k), *a)),
    Case("topk", [x37, Dyn(np.array(3, dtype=np.int64), []), 0, False, True],
         lambda x, k, *a: torch.topk(x, int(k), *a)),
    # sort: ascending / descending, ties (stable), ints, the .stable overload, a symbolic dim
    Case("sort", [x37, -1, False], lambda x, d, desc: torch.sort(x, d, desc)),
    Case("sort", [x37, 0, True], lambda x, d, desc: torch.sort(x, d, desc)),
    Case("sort", [ties, 1, False], lambda x, d, desc: torch.sort(x, dim=d, descending=desc, stable=True)),
    Case("sort", [ties, 1, True], lambda x, d, desc: torch.sort(x, dim=d, descending=desc, stable=True)),
    Case("sort", [distinct_i64(3, 4), -2, False], lambda x, d, desc: torch.sort(x, d, desc)),
    Case("sort", [ties, True, -1, True],
         lambda x, st, d, desc: torch.sort(x, stable=st, dim=d, descending=desc)),
    Case("sort", [Dyn(x37, [3, "M"]), -1, False], lambda x, d, desc: torch.sort(x, d, desc),
         min_opset=10),
    Case("sort", [np.array([[True, False, True], [False, False, True]]), 1, True],
         lambda x, d, desc: torch.sort(x, dim=d, descending=desc, stable=True)),
    Case("sort", [distinct_i64(7).astype(np.int8), 0, False], lambda x, d, desc: torch.sort(x, d, desc)),
    # argsort
    Case("argsort", [x37, -1, False], lambda x, d, desc: torch.argsort(x, d, desc)),
    Case("argsort", [distinct_i64(5, 2), 0, True], lambda x, d, desc: torch.argsort(x, d, desc)),
    Case("argsort", [ties, True, 1, False],
         lambda x, st, d, desc: torch.sort(x, stable=st, dim=d, descending=desc)[1]),
]
