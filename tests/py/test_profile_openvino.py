"""The "openvino" target profile (OpenVINO's ONNX frontend, supported_ops.md): one hand-made
model per op it lacks, which `check --profile openvino` reports (node, rule, fix) and
`convert --profile openvino` decomposes exactly (the result computes what ONNX Runtime computes
for the original) or refuses with the rule named (tests/py/_profile_rules.py runs them)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _profile_rules import init, model, node, run_cases, vi  # noqa: E402

F = np.float32
RULE = "openvino/unsupported-op"


def _x(*shape):
    return (np.random.RandomState(7).rand(*shape).astype(F) - 0.5) * 4


def ov_cases():
    c = []
    add = c.append
    for p in (1, 2, 3):
        add(dict(name="lppool_p%d" % p, rule=RULE, expect="fixed", gone=("LpPool",), rtol=1e-4,
                 feeds={"x": _x(1, 2, 5, 6)},
                 model=model([node("LpPool", ["x"], ["y"], name="lp", kernel_shape=[2, 3], p=p,
                                   strides=[1, 2], pads=[1, 0, 0, 1])],
                             [vi("x", F, [1, 2, 5, 6])], [vi("y", F, None)], opset=11)))
    add(dict(name="lppool_ceil", rule=RULE, expect="refused",
             model=model([node("LpPool", ["x"], ["y"], name="lp", kernel_shape=[2, 2],
                               strides=[2, 2], ceil_mode=1)],
                         [vi("x", F, [1, 1, 5, 5])], [vi("y", F, None)], opset=18)))
    add(dict(name="maxunpool_shape", rule=RULE, expect="fixed", gone=("MaxUnpool",),
             feeds={"x": _x(2, 3, 4, 6)},
             model=model([node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
                          node("MaxUnpool", ["p", "i", "os"], ["y"], name="unpool",
                               kernel_shape=[2, 2], strides=[2, 2])],
                         [vi("x", F, [2, 3, 4, 6])], [vi("y", F, None)],
                         [init("os", np.array([2, 3, 5, 7], np.int64))], opset=11)))
    add(dict(name="bernoulli", rule=RULE, expect="fixed", gone=("Bernoulli",),
             feeds={"p": np.array([1, 0, 1, 1], F)}, want={"y": np.array([1, 0, 1, 1], np.int32)},
             model=model([node("Bernoulli", ["p"], ["y"], name="bern", dtype=6)],
                         [vi("p", F, [4])], [vi("y", np.int32, None)], opset=15)))
    add(dict(name="optional_empty", rule=RULE, expect="fixed",
             gone=("Optional", "OptionalHasElement"), feeds={"x": _x(3)},
             model=model([node("Optional", [], ["o"], type=__import__("onnx").helper.make_tensor_type_proto(1, [3])),
                          node("OptionalHasElement", ["o"], ["h"], name="has"),
                          node("Relu", ["x"], ["y"])],
                         [vi("x", F, [3])], [vi("y", F, None), vi("h", np.bool_, None)],
                         opset=18)))
    for n in (1, 2, 3):
        add(dict(name="det_%dx%d" % (n, n), rule=RULE, expect="fixed", gone=("Det",), rtol=1e-4,
                 atol=1e-4, feeds={"x": _x(2, 4, n, n)},
                 model=model([node("Det", ["x"], ["y"], name="det")], [vi("x", F, [2, 4, n, n])],
                             [vi("y", F, None)], opset=11)))
    add(dict(name="det_4x4", rule=RULE, expect="refused",
             model=model([node("Det", ["x"], ["y"], name="det")], [vi("x", F, [4, 4])],
                         [vi("y", F, None)], opset=11)))
    add(dict(name="deformconv", rule=RULE, expect="refused",
             model=model([node("DeformConv", ["x", "w", "off"], ["y"], name="dc")],
                         [vi("x", F, [1, 1, 3, 3]), vi("w", F, [1, 1, 2, 2]),
                          vi("off", F, [1, 8, 2, 2])], [vi("y", F, None)], opset=19)))
    add(dict(name="string_normalizer", rule=RULE, expect="refused",
             model=model([node("StringNormalizer", ["s"], ["y"], name="sn",
                               case_change_action="LOWER")],
                         [vi("s", np.str_, [2]) if False else
                          __import__("onnx").helper.make_tensor_value_info("s", 8, [2])],
                         [__import__("onnx").helper.make_tensor_value_info("y", 8, None)],
                         opset=10)))
    add(dict(name="tfidf", rule=RULE, expect="refused",
             model=model([node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", mode="TF",
                               min_gram_length=1, max_gram_length=1, max_skip_count=0,
                               ngram_counts=[0], ngram_indexes=[0], pool_int64s=[2])],
                         [vi("x", np.int64, [4])], [vi("y", F, None)], opset=9)))
    return c


def test_openvino_rules_hand_made_models():
    bad = run_cases(ov_cases(), "openvino")
    assert not bad, "\n".join(bad)


def test_openvino_keeps_what_it_supports():
    """Ops in OpenVINO's list (sequences in the patterns it imports, Unique, DFT) are left as
    they are: nothing fires."""
    from _profile_rules import convert
    m = model([node("Unique", ["x"], ["y"], name="uq"), node("Relu", ["x"], ["r"])],
              [vi("x", F, [5])], [vi("y", F, None), vi("r", F, None)], opset=11)
    out, recs = convert(m, "openvino")
    assert out is not None and not [r for r in recs if r["code"].startswith("OLG-PROFILE")], recs
    assert "Unique" in [nd.op for nd in out.graph.nodes]
