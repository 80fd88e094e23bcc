"""The "tensorrt" target profile: no Gather on shape tensors. An ONNX source whose graph reads a
dim with Shape -> Gather (scalar and 1-element indices, negative too) is rewritten to Shape
with start/end (opset 15+) or Shape -> Slice (below), and computes the same in ONNX Runtime."""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

import onnxlegal  # noqa: E402
from onnxlegal.lowering import legalize  # noqa: E402


def source():
    m = onnxlegal.Model(opset={"": 13})
    g = m.graph
    x = g.add_input("x", np.float32, ["N", 3, "W"])
    s = g.node("Shape", [x], name="shape")
    i0 = g.add_initializer("i0", np.array(0, np.int64))
    im1 = g.add_initializer("im1", np.array([-1], np.int64))
    n = g.node("Gather", [s, i0], outputs=["n"], axis=0, name="get_n")
    w = g.node("Gather", [s, im1], outputs=["w"], axis=0, name="get_w")
    nw = g.node("Concat", [g.node("Unsqueeze", [n, g.add_initializer("ax", np.array([0], np.int64))]), w],
                outputs=["nw"], axis=0, name="cat")
    g.add_output(n)
    g.add_output(nw)
    return m


def test_tensorrt_profile_has_no_gather_on_shapes_and_computes_the_same():
    from ortrun import run_batch
    src = source()
    x = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    batch = []
    for opset in (13, 15, 17, 21):
        plain = legalize(src, opset=opset)
        assert "Gather" in [nd.op for nd in plain.graph.nodes]
        trt = legalize(src, opset=opset, profile="tensorrt")
        ops = [nd.op for nd in trt.graph.nodes]
        assert "Gather" not in ops, (opset, ops)
        assert ("Slice" in ops) == (opset < 15), (opset, ops)
        assert [v.name for v in trt.graph.outputs] == ["n", "nw"]
        batch.append((trt.to_bytes(), {"x": x}))
    for r in run_batch(batch):
        assert not isinstance(r, str), r
        assert r["n"].shape == () and int(r["n"]) == 2
        np.testing.assert_array_equal(r["nw"], [2, 5])


# ---- one hand-made model per rule (tests/py/_profile_rules.py runs them) ----

from _profile_rules import init, model, node, run_cases, vi  # noqa: E402

F = np.float32


def _x(*shape):
    return np.random.RandomState(len(shape)).rand(*shape).astype(F)


def _sorted(out):
    from onnx import load_from_string
    m = load_from_string(out.to_bytes())
    return all(a.i != 0 for nd in m.graph.node if nd.op_type == "TopK" for a in nd.attribute
               if a.name == "sorted")


def _index_types(out, op):
    from onnx import load_from_string, numpy_helper
    m = load_from_string(out.to_bytes())
    consts = {i.name: numpy_helper.to_array(i).dtype.name for i in m.graph.initializer}
    for nd in m.graph.node:
        if nd.op_type == "Constant":
            consts[nd.output[0]] = numpy_helper.to_array(nd.attribute[0].t).dtype.name
    return [consts.get(nd.input[1], "?") for nd in m.graph.node if nd.op_type == op]


def trt_cases():
    c = []
    add = c.append
    # tensorrt/axes-initializer: axes computed from constants fold; run-time axes are refused
    add(dict(name="reduce_axes_folded", rule="tensorrt/axes-initializer", expect="fixed",
             folded=True, feeds={"x": _x(2, 3, 4)},
             model=model([node("Add", ["a0", "a1"], ["axes"]),
                          node("ReduceSum", ["x", "axes"], ["y"], name="rsum", keepdims=0)],
                         [vi("x", F, [2, 3, 4])], [vi("y", F, None)],
                         [init("a0", np.array([0], np.int64)), init("a1", np.array([1], np.int64))])))
    add(dict(name="squeeze_axes_runtime", rule="tensorrt/axes-initializer", expect="refused",
             model=model([node("Squeeze", ["x", "ax"], ["y"], name="sq")],
                         [vi("x", F, [1, 3]), vi("ax", np.int64, [1])], [vi("y", F, None)])))
    add(dict(name="cumsum_axis_runtime", rule="tensorrt/axes-initializer", expect="refused",
             model=model([node("CumSum", ["x", "ax"], ["y"], name="cs")],
                         [vi("x", F, [2, 3]), vi("ax", np.int64, [])], [vi("y", F, None)])))
    add(dict(name="onehot_depth_runtime", rule="tensorrt/axes-initializer", expect="refused",
             model=model([node("Shape", ["x"], ["s"]),
                          node("ReduceMax", ["s"], ["depth"], keepdims=0),
                          node("OneHot", ["i", "depth", "v"], ["y"], name="oh")],
                         [vi("x", F, ["n"]), vi("i", np.int64, [3])], [vi("y", F, None)],
                         [init("v", np.array([0, 1], F))])))
    # tensorrt/topk
    # (the ONNX lowering itself emits sorted=1, which sorted=0 allows)
    add(dict(name="topk_unsorted", rule="tensorrt/topk-sorted", expect="fixed", lowered=True,
             sort_outputs=True,
             post=lambda out: None if _sorted(out) else "TopK with sorted=0 left",
             feeds={"x": _x(3, 10)},
             model=model([node("TopK", ["x", "k"], ["v", "i"], name="tk", sorted=0)],
                         [vi("x", F, [3, 10])], [vi("v", F, None)],
                         [init("k", np.array([4], np.int64))])))
    add(dict(name="topk_k_limit", rule="tensorrt/topk-k", expect="refused",
             model=model([node("TopK", ["x", "k"], ["v", "i"], name="tk")],
                         [vi("x", F, [5000])], [vi("v", F, None)],
                         [init("k", np.array([4000], np.int64))])))
    add(dict(name="topk_k_runtime", rule="tensorrt/topk-k", expect="refused",
             model=model([node("TopK", ["x", "k"], ["v", "i"], name="tk")],
                         [vi("x", F, [50]), vi("k", np.int64, [1])], [vi("v", F, None)])))
    # tensorrt/scatternd
    sd = lambda red, opset: model(  # noqa: E731
        [node("ScatterND", ["x", "idx", "u"], ["y"], name="snd", reduction=red)],
        [vi("x", F, [4, 3])], [vi("y", F, None)],
        [init("idx", np.array([[1], [3]], np.int64)), init("u", np.ones((2, 3), F))], opset=opset)
    add(dict(name="scatternd_none", rule="tensorrt/scatternd-reduction", expect="fixed",
             feeds={"x": _x(4, 3)}, model=sd("none", 16)))
    add(dict(name="scatternd_add", rule="tensorrt/scatternd-reduction", expect="refused",
             model=sd("add", 16)))
    # tensorrt/gridsample-4d
    add(dict(name="gridsample_5d", rule="tensorrt/gridsample-4d", expect="refused",
             model=model([node("GridSample", ["x", "g"], ["y"], name="gs")],
                         [vi("x", F, [1, 1, 2, 3, 4]), vi("g", F, [1, 2, 2, 2, 3])],
                         [vi("y", F, None)], opset=20)))
    # tensorrt/resize-*
    def rs(scales, opset=13, sizes=None, rank_shape=(1, 1, 4, 4), roi=None, **attrs):
        ins = ["x", "roi" if roi is not None else "", "sc" if scales is not None else ""]
        inits = []
        if roi is not None:
            inits.append(init("roi", np.array(roi, F)))
        if scales is not None:
            inits.append(init("sc", np.array(scales, F)))
        if sizes is not None:
            ins.append("sz")
            inits.append(init("sz", np.array(sizes, np.int64)))
        return model([node("Resize", ins, ["y"], name="rs", **attrs)],
                     [vi("x", F, list(rank_shape))], [vi("y", F, None)], inits, opset=opset)
    x4 = _x(1, 1, 4, 4)
    add(dict(name="resize_linear_nchw_ok", rule="tensorrt/resize-dims", expect="clean",
             feeds={"x": x4}, model=rs([1, 1, 2, 2], mode="linear")))
    add(dict(name="resize_symmetric_exact", rule="tensorrt/resize-coord", expect="fixed",
             feeds={"x": x4}, model=rs([1, 1, 2, 2], opset=19, mode="linear",
                                      coordinate_transformation_mode="half_pixel_symmetric")))
    add(dict(name="resize_symmetric_sizes", rule="tensorrt/resize-coord", expect="fixed",
             feeds={"x": x4}, model=rs(None, opset=19, sizes=[1, 1, 7, 6], mode="linear",
                                      coordinate_transformation_mode="half_pixel_symmetric")))
    add(dict(name="resize_symmetric_inexact", rule="tensorrt/resize-coord", expect="refused",
             model=rs([1, 1, 1.7, 1.7], opset=19, mode="linear",
                      coordinate_transformation_mode="half_pixel_symmetric")))
    add(dict(name="resize_crop_whole", rule="tensorrt/resize-coord", expect="fixed",
             feeds={"x": x4}, model=rs([1, 1, 2, 2], roi=[0, 0, 0, 0, 1, 1, 1, 1], mode="linear",
                                      coordinate_transformation_mode="tf_crop_and_resize")))
    add(dict(name="resize_crop_part", rule="tensorrt/resize-coord", expect="refused",
             model=rs([1, 1, 2, 2], roi=[0, 0, 0.2, 0, 1, 1, 1, 1], mode="linear",
                      coordinate_transformation_mode="tf_crop_and_resize")))
    # antialias that only up-samples is antialias=0: the lowering drops it, the rule has no work
    add(dict(name="resize_antialias_up", rule="tensorrt/resize-antialias", expect="fixed", lowered=True,
             feeds={"x": x4}, model=rs([1, 1, 2, 3], opset=18, mode="linear", antialias=1)))
    add(dict(name="resize_antialias_down", rule="tensorrt/resize-antialias", expect="refused",
             model=rs([1, 1, 0.5, 0.5], opset=18, mode="linear", antialias=1)))
    # keep_aspect_ratio_policy over constant sizes and a static shape: resolved by the lowering
    add(dict(name="resize_aspect", rule="tensorrt/resize-aspect", expect="fixed", lowered=True,
             feeds={"x": x4}, model=rs(None, opset=18, sizes=[8, 8], axes=[2, 3], mode="nearest",
                                      keep_aspect_ratio_policy="not_larger")))
    add(dict(name="resize_linear_4dims", rule="tensorrt/resize-dims", expect="refused",
             model=rs([2, 1, 2, 2], mode="linear")))
    add(dict(name="resize_cubic_3dims", rule="tensorrt/resize-dims", expect="refused",
             model=rs([1, 2, 2, 2], rank_shape=(1, 2, 4, 4), mode="cubic")))
    # axes with run-time scales: spread over every axis at run time by the lowering
    add(dict(name="resize_axes_runtime", rule="tensorrt/resize-axes", expect="fixed", lowered=True,
             feeds={"x": x4, "sc": np.array([2, 1.5], F)},
             model=model([node("Resize", ["x", "", "sc"], ["y"], name="rs", axes=[2, 3])],
                         [vi("x", F, [1, 1, 4, 4]), vi("sc", F, [2])], [vi("y", F, None)],
                         opset=18)))
    # tensorrt/int64-narrow: known int64 indices within int32 become int32, the range the proof
    add(dict(name="int64_gather_indices", rule="tensorrt/int64-narrow", expect="fixed",
             note_has="proof: every value is known, in [-1, 2]", feeds={"x": _x(4, 3)},
             post=lambda out: None if "int64" not in _index_types(out, "Gather") else
             "indices still int64",
             model=model([node("Gather", ["x", "idx"], ["y"], name="g", axis=0)],
                         [vi("x", F, [4, 3])], [vi("y", F, None)],
                         [init("idx", np.array([[2, 0], [-1, 1]], np.int64))])))
    add(dict(name="int64_scatter_cumsum", rule="tensorrt/int64-narrow", expect="fixed",
             feeds={"x": _x(4, 6)},
             model=model([node("ScatterElements", ["x", "si", "u"], ["s"], name="sc", axis=1),
                          node("CumSum", ["s", "cax"], ["y"], name="cs")],
                         [vi("x", F, [4, 6])], [vi("y", F, None)],
                         [init("si", np.array([[5, 0], [1, 2], [3, 3], [0, 4]], np.int64)),
                          init("u", np.full((4, 2), 7, F)),
                          init("cax", np.array(1, np.int64))])))
    add(dict(name="int64_slice_to_end_kept", rule="tensorrt/int64-narrow", expect="clean",
             feeds={"x": _x(4, 6)},
             model=model([node("Slice", ["x", "st", "en", "ax"], ["y"], name="sl")],
                         [vi("x", F, [4, 6])], [vi("y", F, None)],
                         [init("st", np.array([1], np.int64)),
                          init("en", np.array([2 ** 63 - 1], np.int64)),
                          init("ax", np.array([1], np.int64))])))
    # tensorrt/unsupported-op
    add(dict(name="unique", rule="tensorrt/unsupported-op", expect="refused",
             model=model([node("Unique", ["x"], ["y"], name="uq")], [vi("x", F, [5])],
                         [vi("y", F, None)], opset=11)))
    add(dict(name="bitwise_and", rule="tensorrt/unsupported-op", expect="refused",
             model=model([node("BitwiseAnd", ["a", "b"], ["y"], name="band")],
                         [vi("a", np.int32, [3]), vi("b", np.int32, [3])],
                         [vi("y", np.int32, None)], opset=18)))
    add(dict(name="bernoulli_01", rule="tensorrt/unsupported-op", expect="fixed",
             gone=("Bernoulli",), feeds={"p": np.array([[0, 1, 1], [0, 0, 1]], F)},
             # the spec: 1 with probability p (ORT 1.30's kernel gives 1 - p at p = 0 and 1)
             want={"y": np.array([[0, 1, 1], [0, 0, 1]], F)},
             model=model([node("Bernoulli", ["p"], ["y"], name="bern")], [vi("p", F, [2, 3])],
                         [vi("y", F, None)], opset=15)))
    add(dict(name="det_2x2", rule="tensorrt/unsupported-op", expect="fixed", gone=("Det",),
             feeds={"x": _x(3, 2, 2)}, rtol=1e-4, atol=1e-5,
             model=model([node("Det", ["x"], ["y"], name="det")], [vi("x", F, [3, 2, 2])],
                         [vi("y", F, None)], opset=11)))
    add(dict(name="maxunpool", rule="tensorrt/unsupported-op", expect="fixed", gone=("MaxUnpool",),
             feeds={"x": _x(2, 2, 4, 4)},
             model=model([node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
                          node("MaxUnpool", ["p", "i"], ["y"], name="unpool", kernel_shape=[2, 2],
                               strides=[2, 2])],
                         [vi("x", F, [2, 2, 4, 4])], [vi("y", F, None)], opset=11)))
    add(dict(name="optional", rule="tensorrt/unsupported-op", expect="fixed",
             gone=("Optional", "OptionalGetElement", "OptionalHasElement"),
             feeds={"x": _x(3)},
             model=model([node("Optional", ["x"], ["o"]),
                          node("OptionalHasElement", ["o"], ["h"], name="has"),
                          node("OptionalGetElement", ["o"], ["g"], name="get"),
                          node("Relu", ["g"], ["y"])],
                         [vi("x", F, [3])], [vi("y", F, None), vi("h", np.bool_, None)],
                         opset=15)))
    return c


def test_tensorrt_rules_hand_made_models():
    bad = run_cases(trt_cases(), "tensorrt")
    assert not bad, "\n".join(bad)


# ---- the seeds' models exported for TensorRT ----

SEED_OPSETS = range(9, 18)


def _seed_exports():
    """Every seed case of tests/torch/models.py exported with profile="tensorrt" at opsets 9-17:
    {(case, opset): record} with the path, torch's outputs and ORT's, or why it was not
    exported."""
    import pytest
    torch = pytest.importorskip("torch")
    sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))
    import models
    import onnxlegal.torch as olt
    from onnxlegal._torch_trace import flatten
    from ortrun import run_batch
    import tempfile
    tmp = tempfile.mkdtemp(prefix="olg-trt-seeds-")
    recs, batch, where = {}, [], []
    for case in models.SEED_CASES:
        model, args = case.build()
        model.eval()
        sg = olt.trace(model, args, **case.export_kwargs)
        src = olt.to_source_model(sg)
        with torch.no_grad():
            want = [t.detach().numpy() for t in flatten(models.call(model, args))[0]]
        feed = {si.name: t.detach().numpy() for si, t in zip(sg.inputs, flatten(tuple(args))[0])}
        for o in SEED_OPSETS:
            path = os.path.join(tmp, "%s.%d.onnx" % (case.name, o))
            rec = recs[(case.name, o)] = {"path": path, "want": want, "case": case}
            try:
                olt.export_traced(sg, path, opset_version=o, source_model=src, profile="tensorrt")
            except olt.UnsupportedOpsError as e:
                rec["refused"] = str(e)
                continue
            batch.append((path, feed))
            where.append((case.name, o))
    for k, out in zip(where, run_batch(batch) if batch else []):
        recs[k]["ort"] = out
    return recs


def test_seed_models_exported_for_tensorrt_pass_its_check_and_compute_as_torch():
    import subprocess
    recs = _seed_exports()
    bad, n_ok = [], 0
    for (name, o), rec in sorted(recs.items()):
        if "refused" in rec:
            # only the lowering may refuse (an op not expressible at that opset), never a rule
            if "OLG-PROFILE" in rec["refused"] or "tensorrt/" in rec["refused"]:
                bad.append("%s@%d: refused by a tensorrt rule: %s" % (name, o, rec["refused"][:400]))
            continue
        r = subprocess.run([os.path.join(ROOT, "build", "bin", "onnxlegal"), "check", rec["path"],
                            "--profile", "tensorrt"], capture_output=True, text=True)
        if "OLG-PROFILE-VIOLATION" in r.stdout + r.stderr:
            bad.append("%s@%d: check --profile tensorrt: %s" % (name, o, (r.stdout + r.stderr)[:600]))
        out = rec.get("ort")
        if isinstance(out, str) or out is None:
            bad.append("%s@%d: ORT: %s" % (name, o, str(out)[:300]))
            continue
        case = rec["case"]
        for w, g in zip(rec["want"], out.values()):
            if w.shape != g.shape or not np.allclose(w, g, atol=case.atol, rtol=case.rtol):
                bad.append("%s@%d: differs from torch" % (name, o))
                break
        else:
            n_ok += 1
    assert not bad, "\n".join(bad)
    # most of the seeds export at most of these opsets (the rest: Resize modes before 11, ...)
    assert n_ok >= len(recs) // 2, (n_ok, len(recs))
