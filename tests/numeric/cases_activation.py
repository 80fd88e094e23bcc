"""Numeric cases of the activations and the dropout family (symbolics/activation.c).

Each op is checked with its default arguments and with the ones that change the lowering
(elu's scale/input_scale, softplus's beta/threshold, gelu's tanh mode, per-channel prelu at
ranks 1-4, glu and softmax along every dim including negative ones, softmax's dtype), on
float32, and on float64 or integers where PyTorch accepts them. (ONNX Runtime's CPU kernels of
Elu, LeakyRelu, Selu, Celu, Softplus, Softsign, HardSigmoid take float32 only, and its Clip
before 12 too: float64 cases of those ops would test the runtime, not the export.)"""
import numpy as np
import torch
import torch.nn.functional as F

from harness import Case, Dyn

aten = torch.ops.aten
rng = np.random.default_rng(11)


def f32(*shape, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f64(*shape, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float64)


def i64(*shape, lo=-20, hi=20):
    return rng.integers(lo, hi, size=shape).astype(np.int64)


x = f32(2, 3, 4)
x4 = f32(2, 3, 4, 5)
wide = np.concatenate([f32(6, lo=-30, hi=30), np.array([-100.0, 100.0, 0.0, 25.0], np.float32)])

CASES = [
    Case("relu", [x], torch.relu),
    Case("relu", [f64(5)], torch.relu),
    Case("relu", [i64(2, 3)], torch.relu),
    Case("relu", [rng.integers(-20, 20, size=(2, 3)).astype(np.int32)], torch.relu),
    Case("relu6", [x * 3], F.relu6),
    Case("relu6", [Dyn(x * 3, ["N", 3, 4])], F.relu6),
    Case("leaky_relu", [x], F.leaky_relu),
    Case("leaky_relu", [x, 0.2], F.leaky_relu),
    Case("elu", [x], F.elu),
    Case("elu", [x, 0.5, 1, 1], lambda a, al, s, i: aten.elu(a, al, s, i)),
    Case("elu", [x, 1.5, 2.0, 0.5], lambda a, al, s, i: aten.elu(a, al, s, i)),
    Case("selu", [x], F.selu),
    Case("celu", [x], F.celu),
    Case("celu", [x, 0.5], F.celu),
    Case("gelu", [x], F.gelu, min_opset=9),
    Case("gelu", [x, "none"], lambda a, m: F.gelu(a, approximate=m), min_opset=9),
    Case("gelu", [x, "tanh"], lambda a, m: F.gelu(a, approximate=m)),
    Case("gelu", [f64(2, 5), "tanh"], lambda a, m: F.gelu(a, approximate=m)),
    Case("silu", [x], F.silu),
    Case("silu", [Dyn(x, ["B", "C", 4])], F.silu),
    Case("mish", [x], F.mish),
    Case("mish", [wide], F.mish),
    Case("hardswish", [x], F.hardswish),
    Case("hardswish", [wide], F.hardswish),
    Case("hardsigmoid", [x], F.hardsigmoid),
    Case("hardsigmoid", [wide], F.hardsigmoid),
    Case("hardshrink", [x], F.hardshrink),
    Case("hardshrink", [x, 1.0], F.hardshrink),
    Case("softshrink", [x], F.softshrink),
    Case("softshrink", [x, 0.25], F.softshrink),
    Case("hardtanh", [x], F.hardtanh),
    Case("hardtanh", [x, -2.0, 0.5], F.hardtanh),
    Case("sigmoid", [x], torch.sigmoid),
    Case("sigmoid", [wide], torch.sigmoid),
    Case("sigmoid", [i64(5, lo=-3, hi=3)], torch.sigmoid),
    Case("tanh", [x], torch.tanh),
    Case("tanh", [f64(2, 2)], torch.tanh),
    Case("softplus", [x], F.softplus),
    Case("softplus", [wide], F.softplus),
    Case("softplus", [wide, 2.0, 20.0], F.softplus),
    Case("softplus", [wide, 1.0, 1.0], F.softplus),
    Case("softplus", [wide, 0.5, 3.0], F.softplus),
    Case("softsign", [x], F.softsign),
    # prelu: one slope, per channel at ranks 2, 3, 4, a 1-D input, dynamic batch
    Case("prelu", [x, np.array([0.25], np.float32)], F.prelu),
    Case("prelu", [f32(4, 3), f32(3, lo=0, hi=1)], F.prelu),
    Case("prelu", [x, f32(3, lo=0, hi=1)], F.prelu),
    Case("prelu", [x4, f32(3, lo=0, hi=1)], F.prelu),
    Case("prelu", [f32(6), np.array([0.1], np.float32)], F.prelu),
    Case("prelu", [Dyn(x4, ["N", 3, "H", "W"]), f32(3, lo=0, hi=1)], F.prelu),
    # glu along each dim
    Case("glu", [f32(2, 3, 6)], F.glu),
    Case("glu", [f32(4, 3, 2), 0], F.glu),
    Case("glu", [f32(2, 6, 5), -2], F.glu),
    Case("glu", [Dyn(f32(2, 6, 5), ["N", 6, "T"]), 1], F.glu),
    # threshold: y = x > threshold ? x : value
    Case("threshold", [x, 0.5, -1.0], F.threshold),
    Case("threshold", [wide, 10.0, 0.0], F.threshold),
    Case("threshold", [i64(2, 3), 2, 100], F.threshold),
    Case("threshold", [np.array([np.inf, -np.inf, 1.0, 0.2, np.nan, 0.5], np.float32), 0.5, 7.0],
         F.threshold),
    Case("log_sigmoid", [x], F.logsigmoid),
    Case("log_sigmoid", [wide], F.logsigmoid),
    # softmax / log_softmax: every dim, negative dims, a dtype, dynamic dims
    Case("softmax", [x, -1, None], torch.softmax),
    Case("softmax", [x, 0, None], torch.softmax),
    Case("softmax", [x, 1, None], torch.softmax),
    Case("softmax", [x4, -3, None], torch.softmax),
    Case("softmax", [x, 2, 7], lambda a, d, t: torch.softmax(a, d, dtype=torch.float64)),
    Case("softmax", [Dyn(x, ["N", 3, "T"]), 1, None], torch.softmax),
    Case("softmax", [f32(5) * 30, 0, None], torch.softmax),
    Case("log_softmax", [x, -1, None], torch.log_softmax),
    Case("log_softmax", [x, 0, None], torch.log_softmax),
    Case("log_softmax", [x4, 2, None], torch.log_softmax),
    Case("log_softmax", [f32(3, 4).astype(np.float64), 1, 6],
         lambda a, d, t: torch.log_softmax(a, d, dtype=torch.float32)),
    Case("log_softmax", [f32(5) * 30, 0, None], torch.log_softmax),
    # the dropout family in inference
    Case("dropout", [x, 0.5, False], F.dropout),
    Case("feature_dropout", [x4, 0.3, False], lambda a, p, tr: aten.feature_dropout(a, p, tr)),
    Case("alpha_dropout", [x, 0.2, False], lambda a, p, tr: aten.alpha_dropout(a, p, tr)),
    Case("feature_alpha_dropout", [x4, 0.2, False],
         lambda a, p, tr: aten.feature_alpha_dropout(a, p, tr)),
    Case("dropout", [i64(2, 3), 0.1, False], lambda a, p, tr: a),
    Case("dropout", [Dyn(x, ["N", 3, 4]), 0.1, True], lambda a, p, tr: a),  # train: exported as inference
    Case("detach", [f64(3)], torch.detach),
    Case("clone", [x4, None], lambda a, m: torch.clone(a)),
    Case("clone", [np.array([True, False]), None], lambda a, m: torch.clone(a)),
    # _softmax / _log_softmax(self, dim, half_to_float): what make_fx and torch.export write
    Case("_softmax", [x, -1, False], aten._softmax),
    Case("_softmax", [Dyn(x4, ["N", 3, 4, 5]), 1, False], aten._softmax),
    Case("_softmax", [f32(3, 4).astype(np.float64), 0, False], aten._softmax),
    Case("_log_softmax", [x, -1, False], aten._log_softmax),
    Case("_log_softmax", [x4, 2, False], aten._log_softmax),
]
