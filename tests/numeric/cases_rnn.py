"""Numeric cases of the recurrence family (symbolics/rnn.c): lstm, gru, rnn_tanh, rnn_relu (the
aten "input" overloads), compared with PyTorch 1.13's own ops on the weights of torch.nn.LSTM /
GRU / RNN modules: one, two, 66 and 70 layers, one and two directions, batch_first, with and
without biases, weights as initializers (gates reordered at export time) or as graph inputs
(reordered in the graph), sequence and batch lengths known only at run time."""
import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
rng = np.random.default_rng(7)
torch.manual_seed(7)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def weights(module, init=True):
    ws = [p.detach().numpy().copy() for p in module._flat_weights]
    return [Init(w) for w in ws] if init else ws


def make(kind, I, H, layers=1, bias=True, bidirectional=False, batch_first=False, init=True,
         T=5, B=3, dyn=False):
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_tanh": torch.nn.RNN,
           "rnn_relu": torch.nn.RNN}[kind]
    extra = {"nonlinearity": "relu"} if kind == "rnn_relu" else {}
    m = cls(I, H, layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional, **extra)
    D = 2 if bidirectional else 1
    x = f32(B, T, I) if batch_first else f32(T, B, I)
    if dyn:
        x = Dyn(x, ["B", "T", I] if batch_first else ["T", "B", I])
    h0 = f32(layers * D, B, H)
    if dyn:
        h0 = Dyn(h0, [layers * D, "B", H])
    hx = [h0, f32(layers * D, B, H) if not dyn else Dyn(f32(layers * D, B, H),
                                                         [layers * D, "B", H])] \
        if kind == "lstm" else h0
    args = [x, hx, weights(m, init), bias, layers, 0.0, False, bidirectional, batch_first]
    return Case(kind, args, getattr(aten, kind).input)


CASES = []
for kind in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
    CASES += [
        make(kind, 4, 5),
        make(kind, 4, 3, layers=2, bidirectional=True),
        make(kind, 3, 4, layers=2, batch_first=True),
        make(kind, 4, 5, bias=False, bidirectional=True, batch_first=True),
        make(kind, 4, 3, init=False),
    ]
CASES += [
    make("lstm", 3, 4, layers=2, bidirectional=True, batch_first=True, dyn=True),
    make("gru", 3, 4, bidirectional=True, dyn=True, init=False),
    # more layers than the 64 the lowering once kept on the stack (refused before)
    make("lstm", 2, 2, layers=70, T=2, B=1),
    make("gru", 2, 2, layers=66, bidirectional=True, T=2, B=1),
]
