"""Numeric cases of linear algebra (symbolics/linalg.c): matmul's numpy rules (1-D operands,
batch broadcast), mm, bmm, addmm / baddbmm with beta and alpha (beta 0 ignores NaN in self),
linear with and without bias at ranks 1-4 (Gemm for 2-D, MatMul + Add otherwise), einsum
equations (Einsum-12; below, MatMul/ReduceSum/Transpose, diagonals by a Gather), t. Integer
products need MatMul-9 for int64."""
import numpy as np
import torch
import torch.nn.functional as F

from harness import Case, Dyn, Init

aten = torch.ops.aten
rng = np.random.default_rng(17)


def f32(*shape):
    return rng.uniform(-2, 2, size=shape).astype(np.float32)


def i64(*shape):
    return rng.integers(-5, 5, size=shape).astype(np.int64)


def i32(*shape):
    return rng.integers(-5, 5, size=shape).astype(np.int32)


nan_self = np.full((3, 5), np.nan, np.float32)


def baddbmm(s, a, b, be, al):
    # Into a zeroed `out`: PyTorch 1.13's CPU baddbmm leaves its fresh result uninitialized when
    # beta is 0 and still computes result * 0 + alpha * (a @ b), so a NaN left in reused heap
    # memory leaks into the reference (it flaked under load). With an initialized out it gives
    # what its documentation promises: self ignored, its NaN not propagated.
    out = torch.zeros(a.shape[0], a.shape[1], b.shape[2], dtype=s.dtype)
    return torch.baddbmm(s, a, b, beta=be, alpha=al, out=out)


CASES = [
    Case("matmul", [f32(3, 4), f32(4, 5)], torch.matmul),
    Case("matmul", [f32(4), f32(4, 5)], torch.matmul),
    Case("matmul", [f32(3, 4), f32(4)], torch.matmul),
    Case("matmul", [f32(4), f32(4)], torch.matmul),
    Case("matmul", [f32(2, 3, 4), f32(4, 5)], torch.matmul),
    Case("matmul", [f32(2, 1, 3, 4), f32(5, 4, 2)], torch.matmul),
    Case("matmul", [Dyn(f32(2, 3, 4), ["B", "T", 4]), Init(f32(4, 6))], torch.matmul),
    Case("matmul", [i64(3, 4), i64(4, 2)], torch.matmul, min_opset=9),
    Case("matmul", [i32(3, 4), i32(4, 2)], torch.matmul),
    Case("matmul", [f32(3, 4).astype(np.float64), f32(4, 2).astype(np.float64)], torch.matmul),
    Case("mm", [f32(3, 4), f32(4, 5)], torch.mm),
    Case("mm", [i64(2, 3), i64(3, 3)], torch.mm, min_opset=9),
    Case("bmm", [f32(2, 3, 4), f32(2, 4, 5)], torch.bmm),
    Case("bmm", [Dyn(f32(2, 3, 4), ["B", 3, 4]), Dyn(f32(2, 4, 5), ["B", 4, 5])], torch.bmm),
    Case("addmm", [f32(3, 5), f32(3, 4), f32(4, 5), 1, 1],
         lambda s, a, b, be, al: torch.addmm(s, a, b, beta=be, alpha=al)),
    Case("addmm", [f32(5), f32(3, 4), f32(4, 5), 0.5, 2.0],
         lambda s, a, b, be, al: torch.addmm(s, a, b, beta=be, alpha=al)),
    Case("addmm", [f32(1, 5), f32(3, 4), f32(4, 5), 1, -1],
         lambda s, a, b, be, al: torch.addmm(s, a, b, beta=be, alpha=al)),
    Case("addmm", [nan_self, f32(3, 4), f32(4, 5), 0, 1.5],
         lambda s, a, b, be, al: torch.addmm(s, a, b, beta=be, alpha=al)),
    Case("addmm", [i64(3, 5), i64(3, 4), i64(4, 5), 2, 3],
         lambda s, a, b, be, al: torch.addmm(s, a, b, beta=be, alpha=al), min_opset=9),
    Case("baddbmm", [f32(2, 3, 5), f32(2, 3, 4), f32(2, 4, 5), 1, 1], baddbmm),
    Case("baddbmm", [f32(5), f32(2, 3, 4), f32(2, 4, 5), 0.25, 0.5], baddbmm),
    Case("baddbmm", [np.full((2, 3, 5), np.nan, np.float32), f32(2, 3, 4), f32(2, 4, 5), 0, 1],
         baddbmm),
    # linear: 2-D (Gemm), with and without bias; 1-D, 3-D, 4-D inputs; a dynamic batch
    Case("linear", [f32(3, 4), Init(f32(5, 4)), Init(f32(5))], F.linear),
    Case("linear", [f32(3, 4), Init(f32(5, 4)), None], F.linear),
    Case("linear", [f32(4), f32(5, 4), f32(5)], F.linear),
    Case("linear", [f32(2, 3, 4), f32(5, 4), None], F.linear),
    Case("linear", [f32(2, 2, 3, 4), f32(5, 4), f32(5)], F.linear),
    Case("linear", [Dyn(f32(2, 3, 4), ["B", "T", 4]), Init(f32(6, 4)), Init(f32(6))], F.linear),
    Case("linear", [Dyn(f32(3, 4), ["B", 4]), Init(f32(6, 4)), Init(f32(6))], F.linear),
    # einsum (Einsum-12)
    Case("einsum", ["ij,jk->ik", [f32(3, 4), f32(4, 5)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["bij, bjk -> bik", [f32(2, 3, 4), f32(2, 4, 5)], None],
         lambda e, t, p: torch.einsum(e, t)),
    # diagonals: below Einsum-12 a Gather of the merged dims
    Case("einsum", ["ii->i", [f32(4, 4)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["bii,bij->bj", [f32(2, 3, 3), f32(2, 3, 4)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["ij->ji", [f32(3, 4)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["i,j->ij", [f32(3), f32(4)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["...ij,...jk->...ik", [f32(2, 3, 4), f32(2, 4, 2)], None],
         lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["bhqd,bhkd->bhqk", [f32(1, 2, 3, 4), f32(1, 2, 5, 4)], None],
         lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["ij,ij->", [f32(3, 4), f32(3, 4)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["ij,jk", [i64(2, 3), i64(3, 2)], None], lambda e, t, p: torch.einsum(e, t),
         min_opset=9),
    Case("einsum", ["bij,bkj->bik", [Dyn(f32(2, 3, 4), ["B", 3, 4]), f32(2, 5, 4)], None],
         lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["ijk->kj", [f32(2, 3, 4)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["ij,jk,kl->il", [f32(2, 3), f32(3, 4), f32(4, 5)], None],
         lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["i,i->", [f32(5), f32(5)], None], lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["bn,anm,bm->ba", [f32(2, 3), f32(4, 3, 5), f32(2, 5)], None],
         lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["...ij,...jk", [f32(2, 2, 3, 4), f32(2, 4, 2)], None],
         lambda e, t, p: torch.einsum(e, t)),
    Case("einsum", ["ab,cd->abcd", [f32(2, 3), f32(1, 2)], None], lambda e, t, p: torch.einsum(e, t)),
    # det / linalg_det: Det (11), Leibniz's formula below (n <= 5)
    Case("linalg_det", [f32(2, 2)], torch.linalg.det),
    Case("linalg_det", [f32(3, 3, 3)], torch.linalg.det),
    Case("linalg_det", [f32(2, 4, 4)], torch.linalg.det),
    Case("linalg_det", [f32(5, 5)], torch.linalg.det),
    Case("linalg_det", [f32(6, 6)], torch.linalg.det, min_opset=11),
    Case("det", [f32(3, 3)], torch.det),
    # t
    Case("t", [f32(3, 4)], torch.t),
    Case("t", [f32(5)], torch.t),
    Case("t", [i64(2, 3)], torch.t),
    Case("t", [Dyn(f32(3, 4), ["N", "M"])], torch.t),
]
