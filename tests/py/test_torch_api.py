"""onnxlegal.torch.export's interface: where it writes (path, file object, external data), its
report, extra outputs, dynamic axes, integer and multiple inputs, custom symbolics (through the
binding's registry), the target profile, and errors a user can act on (every unsupported op with
every place it occurs, in one error, before anything is written; the lowest opset that works).

The models use only ops whose symbolics exist today, plus custom ops (a torch.library op and an
autograd Function) lowered by the test's own symbolics, so that this module tests the front end
and not the aten lowering. ONNX Runtime runs once, for the whole module."""
import io
import json
import os
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402
import torch.nn as nn  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))

olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
try:
    olt._lowering()
except olt.ExportError as e:
    pytestmark = pytest.mark.skip(reason=str(e))

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)

# A custom op of a torch.library namespace: traced as olgtest::twice.
_LIB = torch.library.Library("olgtest", "DEF")
_LIB.define("twice(Tensor x) -> Tensor")
_LIB.impl("twice", lambda x: x * 2, "CPU")


class Scale(torch.autograd.Function):
    """An autograd Function: traced as one node, autograd::Scale(x, k)."""

    @staticmethod
    def forward(ctx, x, k):
        return x * k


def sym_twice(cx, node):
    x = cx.arg_value(0)
    cx.bind(0, cx.emit("Add", [x, x]))


def sym_scale(cx, node):
    x = cx.arg_value(0)
    k = cx.arg_float(1)
    cx.bind(0, cx.emit("Mul", [x, cx.const(np.array(k, np.float32))]))


CUSTOM = {"olgtest::twice": sym_twice, "autograd::Scale": sym_scale}


class Shapes(nn.Module):
    """Only ops lowered today: view with a traced size, transpose, cat with a parameter."""

    def __init__(self):
        super().__init__()
        self.bias_rows = nn.Parameter(torch.arange(24, dtype=torch.float32).view(2, 12))
        self.inner = nn.Flatten(1)

    def forward(self, x):
        h = self.inner(x)                       # (N, 12)
        h = h.view(h.size(0), 3, 4).transpose(1, 2).reshape(h.size(0), 12)
        return torch.cat([h, self.bias_rows], 0)


class Transposes(nn.Module):
    def forward(self, x):
        return torch.stack([x.transpose(0, 1), x.transpose(0, 1)], 0).permute(0, 2, 1, 3)


class Custom(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Identity()

    def forward(self, x):
        y = torch.ops.olgtest.twice(self.a(x))
        return Scale.apply(y, 3.0), torch.ops.olgtest.twice(y)


class TwoBranches(nn.Module):
    """olgtest::twice in two submodules plus an autograd Function; what feeds no output is
    dropped before anything is looked up (left's second twice, right's Scale)."""

    def __init__(self):
        super().__init__()
        self.left = Custom()
        self.right = Custom()

    def forward(self, x):
        return self.left(x)[0], self.right(x)[1]


class Tokens(nn.Module):
    """Several int64 inputs."""

    def forward(self, ids, segs, mask):
        return torch.cat([ids, segs], 1).unsqueeze(0), mask.transpose(0, 1)


def x4():
    return torch.arange(2 * 3 * 4, dtype=torch.float32).view(2, 3, 4) / 7


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("torch-api")


class Ort:
    """Collects (model, feed, check) and runs them all in one ONNX Runtime batch."""

    def __init__(self):
        self.cases = []
        self.results = None

    def add(self, path, feed):
        self.cases.append((str(path), feed))
        return len(self.cases) - 1

    def get(self, i):
        if self.results is None:
            from ortrun import run_batch
            self.results = run_batch(self.cases)
        r = self.results[i]
        assert not isinstance(r, str), r
        return list(r.values())


class Exported(dict):
    """What the module fixture exported; a key whose export the lowering refused holds the
    refusal, and the tests that need it skip with the lowering's own diagnostic."""

    def need(self, key):
        v = self[key]
        if isinstance(v, olt.ExportError):
            pytest.skip("the lowering refused this model: %s" % str(v).replace("\n", " "))
        return v


@pytest.fixture(scope="module")
def exported(work):
    """Every model the ORT checks need, exported up front so that ORT runs once."""
    ort = Ort()
    out = Exported(ort=ort)
    m = Shapes()

    def export(key, model, args, path, make, **kw):
        try:
            olt.export(model, args, path, **kw)
        except olt.ExportError as e:
            if not e.diagnostics:  # not the lowering's refusal: the front end failed
                raise
            out[key] = e
            return
        out[key] = make()

    p = work / "shapes_dyn.onnx"
    g = torch.Generator().manual_seed(0)
    sizes = (x4(), torch.randn(5, 3, 4, generator=g), torch.randn(1, 3, 4, generator=g))
    export("dyn", m, (x4(),), p, lambda: (m, p, [ort.add(p, {"x": t.numpy()}) for t in sizes]),
           input_names=["x"], output_names=["y"],
           dynamic_axes={"x": {0: "batch"}, "y": {0: "rows"}}, opset_version=13)
    p0 = work / "transpose_dyn.onnx"
    tm = Transposes()
    export("dyn_simple", tm, (x4(),), p0,
           lambda: (tm, p0, [ort.add(p0, {"x": t.numpy()}) for t in sizes]),
           input_names=["x"], output_names=["y"],
           dynamic_axes={"x": {0: "batch"}, "y": {1: "b", 2: "b2"}}, opset_version=11)
    p1 = work / "custom.onnx"
    cm = Custom()
    export("custom", cm, (x4(),), p1, lambda: (cm, ort.add(p1, {"input_0": x4().numpy()})),
           custom_symbolics=CUSTOM, opset_version=11)
    p2 = work / "extra.onnx"
    export("extra", m, (x4(),), p2, lambda: (p2, ort.add(p2, {"input_0": x4().numpy()})),
           extra_outputs=["inner"], opset_version=17)
    p3 = work / "external.onnx"
    export("external", m, (x4(),), p3, lambda: (p3, ort.add(p3, {"input_0": x4().numpy()})),
           external_data_threshold=64, opset_version=17)
    ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
    segs = torch.tensor([[0, 0, 1], [1, 1, 0]])
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    p4 = work / "tokens.onnx"
    export("tokens", Tokens(), (ids, segs, mask), p4,
           lambda: (p4, ort.add(p4, {"ids": ids.numpy(), "segs": segs.numpy(),
                                     "mask": mask.numpy()}), Tokens()(ids, segs, mask)),
           input_names=["ids", "segs", "mask"], opset_version=9)
    p5 = work / "trt.onnx"
    export("trt", m, (x4(),), p5,
           lambda: (p5, ort.add(p5, {"x": torch.randn(3, 3, 4, generator=g).numpy()})),
           input_names=["x"], dynamic_axes={"x": [0]}, profile="tensorrt", opset_version=13)
    return out


def test_writes_to_a_path_a_file_and_a_file_like_object_the_same_bytes(work):
    m = Shapes()
    p = work / "a.onnx"
    olt.export(m, (x4(),), p)
    with open(work / "b.onnx", "wb") as f:
        f.write(b"")
        olt.export(m, (x4(),), f)
    buf = io.BytesIO()
    olt.export(m, (x4(),), buf)
    data = p.read_bytes()
    assert data == (work / "b.onnx").read_bytes() == buf.getvalue()
    onnx.checker.check_model(onnx.load_from_string(data), full_check=True)


def test_dynamic_axes_stay_symbolic_and_run_at_other_sizes(exported):
    m, p, runs = exported.need("dyn")
    g = onnx.load(str(p)).graph
    assert g.input[0].name == "x" and g.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert g.output[0].name == "y" and g.output[0].type.tensor_type.shape.dim[0].dim_param == "rows"
    # the batch size is read at run time (Shape), not baked in from the trace
    assert any(n.op_type == "Shape" for n in g.node)
    ort = exported["ort"]
    for i in runs:
        got = ort.get(i)[0]
        feed = ort.cases[i][1]["x"]
        want = m(torch.from_numpy(feed)).detach().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got.shape[0] == feed.shape[0] + 2


def test_dynamic_axes_on_outputs_name_their_dims(exported):
    m, p, runs = exported.need("dyn_simple")
    g = onnx.load(str(p)).graph
    assert [d.dim_param or d.dim_value for d in g.input[0].type.tensor_type.shape.dim] == \
        ["batch", 3, 4]
    assert [d.dim_param or d.dim_value for d in g.output[0].type.tensor_type.shape.dim] == \
        [2, "b", "b2", 4]
    ort = exported["ort"]
    for i in runs:
        feed = ort.cases[i][1]["x"]
        np.testing.assert_array_equal(ort.get(i)[0], m(torch.from_numpy(feed)).numpy())


def test_custom_symbolics_lower_custom_ops_and_autograd_functions(exported):
    cm, i = exported.need("custom")
    got = exported["ort"].get(i)
    want = [t.detach().numpy() for t in cm(x4())]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_every_unsupported_op_and_place_in_one_error_before_writing(work):
    p = work / "never.onnx"
    with pytest.raises(olt.UnsupportedOpsError) as ei:
        olt.export(TwoBranches(), (x4(),), p)
    e = ei.value
    assert not p.exists()
    assert set(e.unsupported) == {"olgtest::twice", "autograd::Scale"}
    assert e.unsupported["olgtest::twice"]["nodes"] == ["left", "right", "right#2"]
    assert e.unsupported["autograd::Scale"]["nodes"] == ["left#2"]
    assert e.unsupported["olgtest::twice"]["min_opset"] is None
    msg = str(e)
    assert "have no symbolic at any opset" in msg
    assert "olgtest::twice, 3 node(s): left, right, right#2" in msg
    assert "autograd::Scale, 1 node(s): left#2" in msg


def test_an_op_that_needs_a_higher_opset_names_the_lowest_that_works(work):
    later = {"olgtest::twice": (sym_twice, 20), "autograd::Scale": sym_scale}
    p = work / "later.onnx"
    with pytest.raises(olt.UnsupportedOpsError) as ei:
        olt.export(Custom(), (x4(),), p, opset_version=17, custom_symbolics=later)
    assert not p.exists()
    assert ei.value.unsupported["olgtest::twice"]["min_opset"] == 20
    assert "olgtest::twice needs opset >= 20; 2 node(s): olgtest::twice, olgtest::twice#2" in \
        str(ei.value)
    olt.export(Custom(), (x4(),), p, opset_version=20, custom_symbolics=later)
    assert onnx.load(str(p)).opset_import[0].version == 20


def test_a_symbolic_may_emit_a_node_of_its_own_domain(work):
    def keep(cx, node):
        cx.bind(0, cx.emit("Twice", [cx.arg_value(0)], domain="olgtest"))

    p = work / "own_domain.onnx"
    olt.export(Custom(), (x4(),), p, opset_version=17,
               custom_symbolics={"olgtest::twice": keep, "autograd::Scale": sym_scale})
    m = onnx.load(str(p))
    assert {(o.domain, o.version) for o in m.opset_import} >= {("olgtest", 1)}
    assert [n.op_type for n in m.graph.node if n.domain == "olgtest"] == ["Twice", "Twice"]


def test_report_as_dict_and_as_json(work):
    rep = {}
    ret = olt.export(Shapes(), (x4(),), work / "r.onnx", report=rep, opset_version=13)
    assert ret == rep
    assert rep["opset"] == 13 and rep["outputs"] == ["output"]
    assert rep["ops"]["aten::view"] == {"count": 1, "lowering": "native", "since": 7,
                                        "onnx_ops": {"Constant": 1, "Reshape": 1}}
    assert rep["ops"]["aten::cat"]["count"] == 1
    # what each source op became, traced through the node names ("<source node>/<Op>")
    assert rep["ops"]["aten::cat"]["onnx_ops"] == {"Concat": 1}
    assert rep["ops"]["aten::transpose"]["onnx_ops"] == {"Transpose": 1}
    assert set(rep["times"]) >= {"trace", "walk", "build", "preflight", "legalize", "write",
                                 "total"}
    assert rep["bytes_written"] == os.path.getsize(work / "r.onnx")
    written = onnx.load(str(work / "r.onnx")).graph.node
    assert rep["nodes"] == len(written)
    assert sum(rep["onnx_ops"].values()) == len(written) and "Concat" in rep["onnx_ops"]
    olt.export(Shapes(), (x4(),), work / "r2.onnx", report=str(work / "r.json"))
    on_disk = json.loads((work / "r.json").read_text())
    assert on_disk["ops"]["aten::transpose"]["lowering"] == "native"
    # an export that fails still fills the report, with what it saw
    rep = {}
    with pytest.raises(olt.UnsupportedOpsError):
        olt.export(TwoBranches(), (x4(),), work / "never2.onnx", report=rep)
    assert rep["ops"]["olgtest::twice"] == {"count": 3, "lowering": "none", "since": None}


def test_extra_outputs_are_graph_outputs(exported):
    p, i = exported.need("extra")
    g = onnx.load(str(p)).graph
    assert [o.name for o in g.output] == ["output", "inner"]
    got = exported["ort"].get(i)
    np.testing.assert_array_equal(got[1], x4().flatten(1).numpy())


def test_external_data_goes_to_one_file_beside_the_model(exported):
    p, i = exported.need("external")
    data = str(p) + ".data"
    assert os.path.getsize(data) == 24 * 4
    m = onnx.load(str(p), load_external_data=False)
    init = next(i for i in m.graph.initializer if i.name == "bias_rows")
    assert init.data_location == onnx.TensorProto.EXTERNAL
    assert {e.key: e.value for e in init.external_data}["location"] == "external.onnx.data"
    m = onnx.load(str(p))  # reads the external tensors back
    init = next(i for i in m.graph.initializer if i.name == "bias_rows")
    np.testing.assert_array_equal(numpy_helper.to_array(init).ravel(), np.arange(24))
    got = exported["ort"].get(i)[0]
    np.testing.assert_allclose(got, Shapes()(x4()).detach().numpy())


def test_several_int64_inputs(exported):
    p, i, want = exported.need("tokens")
    g = onnx.load(str(p)).graph
    assert [x.name for x in g.input] == ["ids", "segs", "mask"]
    assert all(x.type.tensor_type.elem_type == onnx.TensorProto.INT64 for x in g.input)
    got = exported["ort"].get(i)
    for gg, w in zip(got, want):
        assert gg.dtype == np.int64
        np.testing.assert_array_equal(gg, w.numpy())


def test_tensorrt_target_reads_dims_without_gather_on_a_shape(exported):
    p, i = exported.need("trt")
    g = onnx.load(str(p)).graph
    shape_outs = {o for n in g.node if n.op_type == "Shape" for o in n.output}
    assert shape_outs
    assert not any(n.op_type == "Gather" and n.input[0] in shape_outs for n in g.node)
    x = exported["ort"].cases[i][1]["x"]
    np.testing.assert_allclose(exported["ort"].get(i)[0],
                               Shapes()(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)


def test_bad_arguments_are_refused_clearly(work):
    with pytest.raises(olt.ExportError, match="custom_symbolics keys"):
        olt.export(Shapes(), (x4(),), work / "k.onnx", custom_symbolics={"twice": sym_twice})
    with pytest.raises(olt.ExportError, match="f must be a path or a binary file object"):
        olt.export(Shapes(), (x4(),), 42)
    with pytest.raises(olt.ExportError, match="writing the model to .*no/such/dir.* failed"):
        olt.export(Shapes(), (x4(),), work / "no" / "such" / "dir" / "m.onnx")
    with pytest.raises(olt.ExportError, match="external data needs a model file with a name"):
        olt.export(Shapes(), (x4(),), io.BytesIO(), external_data_threshold=16)


class Traced(nn.Module):
    """Notes that it ran: an argument error must be found before the trace."""
    ran = False

    def forward(self, x):
        Traced.ran = True
        return torch.relu(x)


@pytest.mark.parametrize("kw, says", [
    (dict(opset_version=6), "opset_version must be an int from 7 to 27"),
    (dict(opset_version=28), "opset_version must be an int from 7 to 27"),
    (dict(opset_version=13, profile="jetson"), "unknown profile 'jetson'; the known profiles"),
    (dict(opset_version=13, report=3), "report must be a dict"),
])
def test_bad_opset_profile_report_refused_before_tracing_as_convert_does(work, kw, says):
    """Issue 29 (b): the same error (InvalidArgumentError, a ValueError) and message as
    onnxlegal.convert's, before the model runs."""
    import onnxlegal
    Traced.ran = False
    with pytest.raises(onnxlegal.InvalidArgumentError, match=says) as e:
        olt.export(Traced(), (x4(),), work / "bad.onnx", **kw)
    assert not Traced.ran and not (work / "bad.onnx").exists()
    if "profile" in kw:
        with pytest.raises(onnxlegal.InvalidArgumentError) as c:
            onnxlegal.convert(b"", 13, profile="jetson")
        assert str(c.value) == str(e.value)


def test_target_is_the_old_name_of_profile(work):
    with pytest.warns(DeprecationWarning, match="target= is deprecated"):
        rep = olt.export(Traced(), (x4(),), work / "t.onnx", opset_version=13, target="tensorrt")
    assert rep["profile"] == "tensorrt"
    assert olt.export(Traced(), (x4(),), work / "t.onnx", opset_version=13,
                      profile="tensorrt")["profile"] == "tensorrt"


def test_a_single_unnamed_input_is_input_0_and_errors_are_onnxlegal_errors(work):
    import onnxlegal
    rep = olt.export(Traced(), (x4(),), work / "n.onnx", opset_version=13)
    assert [i["name"] for i in rep["inputs"]] == ["input_0"]
    assert [i.name for i in onnx.load(str(work / "n.onnx")).graph.input] == ["input_0"]
    assert olt.ExportError is onnxlegal.ExportError
    assert issubclass(olt.UnsupportedOpsError, onnxlegal.Error)
