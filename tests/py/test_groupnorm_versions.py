"""GroupNormalization across its meaning change (issue 27 (a)): version 18 takes scale and bias
per group ([num_groups]), version 21 per channel ([C]). A version-18 model converted to any
opset 7..26 (what ONNX Runtime 1.30 loads) must compute what version 18 computes: decomposed below 21, GroupNormalization-21
with scale and bias repeated per channel from 21 -- never copied unchanged. Checked by numbers:
ONNX Runtime on the converted model against a NumPy reference of the spec's formula (and
against ONNX Runtime on the source where ORT runs GroupNormalization-18); `check` refuses a
GroupNormalization-21 whose scale has one value per group."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import onnxlegal  # noqa: E402
from ortrun import run_batch  # noqa: E402

TARGETS = list(range(7, 27))  # ORT 1.30 loads opsets up to 26


def _reference(x, scale, bias, groups, eps, per_group):
    """The spec's formula: statistics per instance per group (biased variance), then
    scale * normalized + bias, scale and bias indexed per group (18) or per channel (21)."""
    n, c = x.shape[:2]
    xr = x.astype(np.float64).reshape(n, groups, -1)
    mean = xr.mean(axis=2, keepdims=True)
    var = ((xr - mean) ** 2).mean(axis=2, keepdims=True)
    y = ((xr - mean) / np.sqrt(var + eps)).reshape(x.shape)
    if per_group:
        scale, bias = np.repeat(scale, c // groups), np.repeat(bias, c // groups)
    view = (1, c) + (1,) * (x.ndim - 2)
    return (y * scale.reshape(view) + bias.reshape(view)).astype(x.dtype)


def _model(opset, x_shape, groups, eps, scale, bias, weights_as_inputs, dyn_channels=False):
    dims = list(x_shape)
    if dyn_channels:
        dims = ["N", "C"] + ["S%d" % i for i in range(len(x_shape) - 2)]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)]
    inits = []
    if weights_as_inputs:
        ins += [helper.make_tensor_value_info("scale", TensorProto.FLOAT, [len(scale)]),
                helper.make_tensor_value_info("bias", TensorProto.FLOAT, [len(bias)])]
    else:
        inits = [numpy_helper.from_array(scale, "scale"), numpy_helper.from_array(bias, "bias")]
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], name="gn",
                            num_groups=groups, epsilon=eps)
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)
    g = helper.make_graph([node], "g", ins, [out], inits)
    # onnx 1.12 knows opsets <= 17 only: no checker; the model is written by hand
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8 if opset < 21 else 10 if opset < 23 else 11
    return m


CASES = [
    # label, x shape, groups, eps, weights as graph inputs (unknown at conversion), dynamic C
    ("4d_g2", (2, 6, 3, 4), 2, 1e-5, False, False),
    ("3d_g3_eps", (3, 6, 5), 3, 1e-2, False, False),
    ("4d_g4_inputs", (1, 8, 2, 3), 4, 1e-5, True, False),
    ("5d_dynC_g2", (2, 4, 2, 2, 3), 2, 1e-5, True, True),
    ("2d_g1", (4, 5), 1, 1e-5, False, False),
]


def _cases(source_opset, per_group):
    rng = np.random.default_rng(27)
    out = []
    for label, shape, groups, eps, as_inputs, dyn in CASES:
        x = rng.standard_normal(shape).astype(np.float32) * 3 + 1
        k = groups if per_group else shape[1]
        scale = rng.standard_normal(k).astype(np.float32)
        bias = rng.standard_normal(k).astype(np.float32)
        feeds = {"x": x}
        if as_inputs:
            feeds.update(scale=scale, bias=bias)
        m = _model(source_opset, shape, groups, eps, scale, bias, as_inputs, dyn)
        want = _reference(x, scale, bias, groups, eps, per_group)
        out.append((label, m, feeds, want))
    return out


def _convert_and_run(cases, targets):
    batch, meta, problems, results = [], [], [], {}
    for label, m, feeds, want in cases:
        batch.append((m.SerializeToString(), feeds))
        meta.append((label, None, want))
        src = onnxlegal.Model.from_bytes(m.SerializeToString())
        for t in targets:
            try:
                out = onnxlegal.convert(src, t)
            except onnxlegal.Error as e:
                problems.append("%s ->%d refused: %s" % (label, t, str(e)[:300]))
                continue
            ops = [n.op_type for n in onnx.load_from_string(out.to_bytes()).graph.node]
            results[(label, t)] = ops
            batch.append((out.to_bytes(), feeds))
            meta.append((label, t, want))
    src_runs = {}
    for (label, t, want), r in zip(meta, run_batch(batch)):
        if t is None:
            src_runs[label] = r
            continue
        if isinstance(r, str):
            problems.append("%s ->%d: ORT: %s" % (label, t, r.strip()[:300]))
            continue
        got = r["y"]
        ort_src = src_runs.get(label)
        for name, ref in (("the reference", want),
                          ("ORT on the source", None if isinstance(ort_src, str) else ort_src["y"])):
            if ref is not None and (got.shape != ref.shape or
                                    not np.allclose(got, ref, rtol=1e-4, atol=1e-4)):
                problems.append("%s ->%d: differs from %s by %g" % (
                    label, t, name, np.max(np.abs(got - ref)) if got.shape == ref.shape else np.inf))
    return problems, results, src_runs


def test_groupnorm18_converts_to_every_opset_with_its_meaning():
    cases = _cases(18, per_group=True)
    problems, ops, src_runs = _convert_and_run(cases, TARGETS)
    assert not problems, "\n".join(problems)
    for (label, t), names in ops.items():
        # below 21 decomposed (no GroupNormalization there: 18's is deprecated), from 21 native
        assert ("GroupNormalization" in names) == (t >= 21), (label, t, names)
    # ORT 1.30 runs GroupNormalization-18 itself, and agrees with the reference
    for label, m, feeds, want in cases:
        r = src_runs[label]
        assert not isinstance(r, str), r
        assert np.allclose(r["y"], want, rtol=1e-4, atol=1e-4), label


def test_groupnorm21_converts_below_21_and_stays_from_21():
    cases = _cases(21, per_group=False)
    problems, ops, src_runs = _convert_and_run(cases, TARGETS)
    assert not problems, "\n".join(problems)
    for label, m, feeds, want in cases:  # the source runs in ORT, as the reference says
        r = src_runs[label]
        assert not isinstance(r, str), r
        assert np.allclose(r["y"], want, rtol=1e-4, atol=1e-4), label


def test_groupnorm18_is_not_copied_to_21():
    """The result at 21 and 23 has scale and bias of C values (what ORT requires), not G."""
    label, m, feeds, want = _cases(18, per_group=True)[0]
    for t in (21, 23):
        out = onnx.load_from_string(onnxlegal.convert(
            onnxlegal.Model.from_bytes(m.SerializeToString()), t).to_bytes())
        gn = [n for n in out.graph.node if n.op_type == "GroupNormalization"]
        assert len(gn) == 1
        assert not onnxlegal.Model.from_bytes(out.SerializeToString()).check(full=True).errors


def _check_model(opset, scale_len, bias_len, x_shape=(2, 6, 4), groups=3):
    scale = np.ones(scale_len, np.float32)
    bias = np.zeros(bias_len, np.float32)
    m = _model(opset, x_shape, groups, 1e-5, scale, bias, False)
    return onnxlegal.Model.from_bytes(m.SerializeToString()).check(full=True)


def _error_text(diags):
    return "\n".join("%s %s %s %s %s" % (d.code, d.node, d.op, d.opset, d.message)
                     for d in diags.errors)


def test_check_rejects_groupnorm21_with_per_group_scale():
    for opset in (21, 23):
        text = _error_text(_check_model(opset, 3, 6))
        assert "gn" in text and "GroupNormalization" in text and str(opset) in text, text
        assert "scale has 3 values" in text and "one per channel (6)" in text, text
        assert not _check_model(opset, 6, 6).errors
        text = _error_text(_check_model(opset, 6, 3))
        assert "bias has 3 values" in text, text


def test_inference_rejects_groupnorm18_with_per_channel_scale():
    """check refuses GroupNormalization at 18-20 as a deprecated op (as onnx's checker does), so
    version 18's rule (scale and bias of num_groups values) is seen by inference."""
    def infer(scale_len, bias_len, x_shape=(2, 6, 4)):
        m = _model(18, x_shape, 3, 1e-5, np.ones(scale_len, np.float32),
                   np.zeros(bias_len, np.float32), False)
        try:
            onnxlegal.Model.from_bytes(m.SerializeToString()).infer_shapes()
        except onnxlegal.Error as e:
            return str(e) + "".join(str(d) for d in (getattr(e, "diags", None) or []))
        return ""
    text = infer(6, 3)
    assert "gn" in text and "GroupNormalization" in text and "18" in text, text
    assert "scale has 6 values" in text and "one per group (3)" in text, text
    assert infer(3, 3) == ""
    assert "bias has 6 values" in infer(3, 6)
    assert "does not divide" in infer(3, 3, x_shape=(2, 7, 4))


def test_cli_check_refuses_what_ort_refuses(tmp_path):
    """The command line's check (full by default) exits 1 on the per-group scale at 21."""
    import subprocess
    tool = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin",
                        "onnxlegal")
    path = tmp_path / "gn21.onnx"
    scale = np.ones(3, np.float32)
    path.write_bytes(_model(21, (2, 6, 4), 3, 1e-5, scale, np.zeros(6, np.float32),
                            False).SerializeToString())
    r = subprocess.run([tool, "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "GroupNormalization" in r.stdout + r.stderr and "gn" in r.stdout + r.stderr


def test_passthrough_refuses_to_copy_across_a_meaning_change():
    """Scan-9 (no batch axis) converted to 8 reaches the pass-through (Scan-8's own row), which
    refuses it naming node, op and opsets rather than copying it (lib/meaning.c)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "xi"], ["s2"]), helper.make_node("Identity", ["s2"], ["yi"])],
        "body",
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("xi", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s2", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("yi", TensorProto.FLOAT, [2])])
    node = helper.make_node("Scan", ["s0", "x"], ["s_end", "ys"], name="scan9", body=body,
                            num_scan_inputs=1)
    g = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
        [helper.make_tensor_value_info("s_end", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [3, 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 9)])
    m.ir_version = 4
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 8)
    text = str(e.value) + "".join(str(d) for d in (getattr(e.value, "diags", None) or []))
    assert "scan9" in text and "Scan" in text and "opset 8" in text, text
    assert "meaning changes at opset 9" in text, text
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    feeds = {"s0": np.ones(2, np.float32), "x": x}
    outs = run_batch([(m.SerializeToString(), feeds)] +
                     [(onnxlegal.convert(src, t).to_bytes(), feeds) for t in (9, 11, 16)])
    for r in outs[1:]:
        assert not isinstance(r, str), r
        assert np.array_equal(r["ys"], outs[0]["ys"]) and np.array_equal(r["s_end"], outs[0]["s_end"])


def test_roialign10_keeps_its_coordinates_from_16():
    """RoiAlign-16's default coordinate transformation (half_pixel) is not RoiAlign-10's
    (output_half_pixel): a RoiAlign-10 node passed through to 16+ says output_half_pixel, and
    ORT computes the same as on the source."""
    rng = np.random.default_rng(16)
    x = rng.standard_normal((1, 2, 8, 8)).astype(np.float32)
    rois = np.array([[0.5, 1.0, 6.0, 5.5], [2.0, 0.0, 7.5, 7.0]], np.float32)
    idx = np.zeros(2, np.int64)
    node = helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], name="ra", output_height=3,
                            output_width=3, sampling_ratio=2, spatial_scale=1.0)
    g = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8]),
         helper.make_tensor_value_info("rois", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 3, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 10)])
    m.ir_version = 5
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    feeds = {"x": x, "rois": rois, "idx": idx}
    targets = list(range(10, 22))  # ORT has no RoiAlign-22 kernel
    outs = run_batch([(m.SerializeToString(), feeds)] +
                     [(onnxlegal.convert(src, t).to_bytes(), feeds) for t in targets])
    assert not isinstance(outs[0], str), outs[0]
    for t, r in zip(targets, outs[1:]):
        assert not isinstance(r, str), (t, r)
        assert np.allclose(r["y"], outs[0]["y"], rtol=1e-5, atol=1e-6), t
