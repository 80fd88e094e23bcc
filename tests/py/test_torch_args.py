"""onnxlegal.torch.export takes torch.onnx.export's whole 1.13 signature, in its order: each
argument is given by keyword and by position (the same file either way), and each one's effect
is checked (in the written model, and by ONNX Runtime against torch where it changes numbers).
The errors: every one an ExportError, listing what a user needs (the valid names, the node, op,
opset and Python line), custom-domain ops' shape functions and domain versions through export.
"""
import inspect
import os
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
import torch.nn as nn  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))

olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
try:
    olt._lowering()
except olt.ExportError as e:
    pytestmark = pytest.mark.skip(reason=str(e))

from onnxlegal.lowering import LoweringError  # noqa: E402

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
TM = torch.onnx.TrainingMode
OT = torch.onnx.OperatorExportTypes

# a custom op of a torch.library namespace (its own name, not test_torch_api's)
_LIB = torch.library.Library("olgargs", "DEF")
_LIB.define("twice(Tensor x) -> Tensor")
_LIB.impl("twice", lambda x: x * 2, "CPU")


def ortrun():
    try:
        import ortrun as mod
        mod._check_runner()
    except Exception as e:  # noqa: BLE001 - no ORT here: the numeric checks are skipped
        pytest.skip("ONNX Runtime is not available: %s" % e)
    return mod


@pytest.fixture
def work(tmp_path):
    return tmp_path


class ConvBN(nn.Module):
    """Conv + BatchNorm (statistics that are not the identity) + Linear: weights to fold."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 4, 3, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 5)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-1, 1)
            self.bn.running_var.uniform_(0.5, 2)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-1, 1)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).flatten(1))


def x_in(n=2):
    return torch.randn(n, 3, 8, 8, generator=torch.Generator().manual_seed(1))


def twice_sym(cx, node):
    cx.bind(0, cx.emit("Twice", [cx.arg_value(0)], domain="olgargs"))


def twice_shape(sx):
    sx.set_output(0, sx.input_dtype(0), sx.input_shape(0))


class Custom(nn.Module):
    def forward(self, x):
        return torch.ops.olgargs.twice(x).transpose(0, 1).flatten(1)


TORCH_ORDER = ["model", "args", "f", "export_params", "verbose", "training", "input_names",
               "output_names", "operator_export_type", "opset_version", "do_constant_folding",
               "dynamic_axes", "keep_initializers_as_inputs", "custom_opsets",
               "export_modules_as_functions"]


def test_the_signature_is_torch_onnx_exports_in_its_order_with_its_defaults():
    ours = inspect.signature(olt.export).parameters
    theirs = inspect.signature(torch.onnx.export).parameters
    assert list(theirs)[:len(TORCH_ORDER)] == TORCH_ORDER  # the torch this was written for
    assert list(ours)[:len(theirs)] == list(theirs)
    for name, p in theirs.items():
        assert ours[name].kind == p.kind, name
        assert ours[name].default == p.default, name
    # onnxlegal's own arguments come after, keyword only
    assert all(p.kind == p.KEYWORD_ONLY for p in list(ours.values())[len(theirs):])


def test_every_argument_by_keyword_and_by_position_writes_the_same_model(work):
    kw = dict(export_params=True, verbose=False, training=TM.EVAL, input_names=["x"],
              output_names=["y"], operator_export_type=OT.ONNX, opset_version=13,
              do_constant_folding=True, dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
              keep_initializers_as_inputs=True, custom_opsets={"olgargs": 2},
              export_modules_as_functions=False)
    olt.export(ConvBN(), (x_in(),), work / "kw.onnx", **kw)
    olt.export(ConvBN(), (x_in(),), work / "pos.onnx", *[kw[k] for k in TORCH_ORDER[3:]])
    assert (work / "kw.onnx").read_bytes() == (work / "pos.onnx").read_bytes()
    m = onnx.load(str(work / "pos.onnx"))
    assert [i.name for i in m.graph.input][0] == "x"           # input_names
    assert [o.name for o in m.graph.output] == ["y"]           # output_names
    assert m.opset_import[0].version == 13                     # opset_version
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"  # dynamic_axes
    inits = {i.name for i in m.graph.initializer}
    assert inits and inits <= {i.name for i in m.graph.input}  # keep_initializers_as_inputs
    assert "BatchNormalization" not in [n.op_type for n in m.graph.node]  # folding


def test_default_opset_is_the_installed_torchs_default(work):
    from torch.onnx import _constants
    assert olt.default_opset() == _constants.ONNX_DEFAULT_OPSET
    rep = olt.export(ConvBN(), (x_in(),), work / "d.onnx")
    m = onnx.load(str(work / "d.onnx"))
    assert rep["opset"] == _constants.ONNX_DEFAULT_OPSET
    assert [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] == \
        [_constants.ONNX_DEFAULT_OPSET]


def test_export_params_false_makes_the_weights_inputs(work):
    model = ConvBN()
    olt.export(model, (x_in(),), work / "np.onnx", False, input_names=["x"])
    m = onnx.load(str(work / "np.onnx"))
    assert len(m.graph.initializer) == 0 or all(
        i.name not in dict(model.named_parameters()) for i in m.graph.initializer)
    names = [i.name for i in m.graph.input]
    params = dict(model.named_parameters())
    params.update(dict(model.named_buffers()))
    fed = [n for n in names[1:]]
    assert names[0] == "x" and set(fed) <= set(params) and "conv.weight" in fed
    # it runs with the weights fed, and gives torch's numbers
    feeds = {"x": x_in().numpy()}
    feeds.update({n: params[n].detach().numpy() for n in fed})
    got = ortrun().run_one(str(work / "np.onnx"), feeds)
    with torch.no_grad():
        ref = model.eval()(x_in()).numpy()
    np.testing.assert_allclose(list(got.values())[0], ref, rtol=1e-4, atol=1e-5)


def test_verbose_prints_the_graph(work, capsys):
    olt.export(ConvBN(), (x_in(),), work / "v.onnx", verbose=True)
    out = capsys.readouterr().out
    assert "Conv" in out and "Gemm" in out
    olt.export(ConvBN(), (x_in(),), work / "q.onnx", verbose=False)
    assert capsys.readouterr().out == ""


def test_training_mode_keeps_batchnorm_and_dropout_training_behaviour(work):
    model = ConvBN().train()
    olt.export(model, (x_in(),), work / "t.onnx", training=TM.TRAINING, input_names=["x"])
    assert model.training  # the module's own mode afterwards
    got = ortrun().run_one(str(work / "t.onnx"), {"x": x_in().numpy()})
    with torch.no_grad():
        ref_train = model(x_in()).numpy()   # batch statistics
        ref_eval = model.eval()(x_in()).numpy()
    model.train()
    y = list(got.values())[0]
    np.testing.assert_allclose(y, ref_train, rtol=1e-4, atol=1e-4)
    assert not np.allclose(y, ref_eval, atol=1e-3)
    # the default (EVAL) uses the running statistics even when the model is in train mode
    olt.export(model, (x_in(),), work / "e.onnx", input_names=["x"])
    y = list(ortrun().run_one(str(work / "e.onnx"), {"x": x_in().numpy()}).values())[0]
    np.testing.assert_allclose(y, ref_eval, rtol=1e-4, atol=1e-4)
    # PRESERVE: each module's own mode (here eval)
    olt.export(model.eval(), (x_in(),), work / "p.onnx", training=TM.PRESERVE,
               input_names=["x"])
    y = list(ortrun().run_one(str(work / "p.onnx"), {"x": x_in().numpy()}).values())[0]
    np.testing.assert_allclose(y, ref_eval, rtol=1e-4, atol=1e-4)

    drop = nn.Sequential(nn.Linear(64, 256), nn.Dropout(0.5))
    olt.export(drop, (torch.ones(4, 64),), work / "d.onnx", training=TM.TRAINING,
               opset_version=13, input_names=["x"])
    m = onnx.load(str(work / "d.onnx"))
    assert "Dropout" in [n.op_type for n in m.graph.node]
    y = list(ortrun().run_one(str(work / "d.onnx"), {"x": np.ones((4, 64), np.float32)})
             .values())[0]
    with torch.no_grad():
        full = drop.eval()(torch.ones(4, 64)).numpy()
    zero = y == 0
    assert 0.3 < zero.mean() < 0.7                          # about half dropped
    np.testing.assert_allclose(y[~zero], 2 * full[~zero], rtol=1e-4, atol=1e-5)  # 1/(1-p)
    # below opset 12 Dropout has no training mode: refused, naming the opset that works
    with pytest.raises(olt.UnsupportedOpsError, match="needs opset >= 12|lowest opset that works: 12"):
        olt.export(drop, (torch.ones(4, 64),), work / "d11.onnx", training=TM.TRAINING,
                   opset_version=11)
    ch = nn.Sequential(nn.Conv2d(3, 3, 1), nn.Dropout2d(0.5))
    with pytest.raises(olt.ExportError, match="no dropout of whole channels"):
        olt.export(ch, (x_in(),), work / "c.onnx", training=TM.TRAINING)


def test_operator_export_types(work):
    olt.export(ConvBN(), (x_in(),), work / "onnx.onnx", operator_export_type=OT.ONNX)
    olt.export(ConvBN(), (x_in(),), work / "fb.onnx", operator_export_type=OT.ONNX_ATEN_FALLBACK)
    assert (work / "onnx.onnx").read_bytes() == (work / "fb.onnx").read_bytes()
    for kind in (OT.ONNX_ATEN, OT.ONNX_FALLTHROUGH):
        with pytest.raises(olt.ExportError, match="operator_export_type=%s is not supported"
                           % kind.name):
            olt.export(ConvBN(), (x_in(),), work / "a.onnx", operator_export_type=kind)
        assert not (work / "a.onnx").exists()
    # an op without a symbolic under ATEN_FALLBACK: refused, saying why no ATen node
    with pytest.raises(olt.UnsupportedOpsError, match="ONNX_ATEN_FALLBACK"):
        olt.export(Custom(), (x_in(),), work / "c.onnx", operator_export_type=OT.ONNX_ATEN_FALLBACK)
    with pytest.raises(olt.ExportError, match="operator_export_type must be one of"):
        olt.export(ConvBN(), (x_in(),), work / "b.onnx", operator_export_type="ATEN_ALL")


def test_do_constant_folding_folds_batchnorm_exactly(work):
    model = ConvBN().eval()
    olt.export(model, (x_in(),), work / "f.onnx", input_names=["x"])
    olt.export(model, (x_in(),), work / "n.onnx", do_constant_folding=False, input_names=["x"])
    f, n = onnx.load(str(work / "f.onnx")), onnx.load(str(work / "n.onnx"))
    assert "BatchNormalization" not in [x.op_type for x in f.graph.node]
    assert "BatchNormalization" in [x.op_type for x in n.graph.node]
    assert len(f.graph.node) < len(n.graph.node)
    assert len(f.graph.initializer) < len(n.graph.initializer)
    with torch.no_grad():
        ref = model(x_in()).numpy()
    res = ortrun().run_batch([(str(work / "f.onnx"), {"x": x_in().numpy()},
                               {"graphOptimizationLevel": "disabled"}),
                              (str(work / "n.onnx"), {"x": x_in().numpy()},
                               {"graphOptimizationLevel": "disabled"})])
    for r in res:
        assert not isinstance(r, str), r
        np.testing.assert_allclose(list(r.values())[0], ref, rtol=1e-5, atol=1e-5)


def test_keep_initializers_as_inputs(work):
    olt.export(ConvBN(), (x_in(),), work / "k.onnx", keep_initializers_as_inputs=True)
    olt.export(ConvBN(), (x_in(),), work / "n.onnx", keep_initializers_as_inputs=False)
    k, n = onnx.load(str(work / "k.onnx")), onnx.load(str(work / "n.onnx"))
    assert {i.name for i in k.graph.initializer} <= {i.name for i in k.graph.input}
    assert len(k.graph.input) == 1 + len(k.graph.initializer)
    assert len(n.graph.input) == 1


def test_custom_opsets_and_shape_functions_of_custom_domain_ops(work):
    olt.export(Custom(), (x_in(),), work / "c.onnx", custom_opsets={"olgargs": 3},
               custom_symbolics={"olgargs::twice": twice_sym},
               custom_shape_fns={"olgargs::Twice": twice_shape})
    m = onnx.load(str(work / "c.onnx"))
    assert {(o.domain, o.version) for o in m.opset_import} >= {("olgargs", 3)}
    assert [n.op_type for n in m.graph.node][:1] == ["Twice"]
    # without the shape function, the error says which custom op's types are unknown
    with pytest.raises(olt.ExportError) as ei:
        olt.export(Custom(), (x_in(),), work / "n.onnx",
                   custom_symbolics={"olgargs::twice": twice_sym})
    msg = str(ei.value)
    assert "olgargs::Twice" in msg and "custom_shape_fns" in msg
    assert "aten::transpose" in msg and "test_torch_args.py" in msg
    for bad in ({"": 2}, {"olgargs": 0}, {"olgargs": "2"}):
        with pytest.raises(olt.ExportError, match="custom_opsets"):
            olt.export(Custom(), (x_in(),), work / "b.onnx", custom_opsets=bad,
                       custom_symbolics={"olgargs::twice": twice_sym})


def test_export_modules_as_functions_keeps_functions_from_15_and_inlines_below(work):
    # the rules and the numbers: tests/py/test_torch_functions.py
    import onnxlegal
    for v, want in ((True, {("torch.nn.modules.conv", "Conv2d"),
                            ("torch.nn.modules.batchnorm", "BatchNorm2d"),
                            ("torch.nn.modules.linear", "Linear")}),
                    ({nn.Conv2d}, {("torch.nn.modules.conv", "Conv2d")})):
        olt.export(ConvBN(), (x_in(),), work / "m.onnx", opset_version=17,
                   export_modules_as_functions=v)
        assert set(onnxlegal.Model.read(str(work / "m.onnx")).functions) == want
        with pytest.warns(UserWarning, match="opset 14 .*inlined"):
            olt.export(ConvBN(), (x_in(),), work / "m.onnx", opset_version=14,
                       export_modules_as_functions=v)
        assert onnxlegal.Model.read(str(work / "m.onnx")).functions == {}
    olt.export(ConvBN(), (x_in(),), work / "m.onnx", export_modules_as_functions=set())
    with pytest.raises(olt.ExportError, match="nn.Module types"):
        olt.export(ConvBN(), (x_in(),), work / "m.onnx", export_modules_as_functions={"Conv2d"})


def test_every_error_is_an_export_error_with_the_valid_names(work):
    with pytest.raises(olt.ExportError) as ei:
        olt.export(ConvBN(), (x_in(),), work / "a.onnx", input_names=["x"],
                   dynamic_axes={"inp": [0]})
    assert "'inp'" in str(ei.value) and "'x'" in str(ei.value) and "'output'" in str(ei.value)
    with pytest.raises(olt.ExportError, match="tracing the model failed"):
        olt.export(ConvBN(), (torch.randn(2, 5, 8, 8),), work / "b.onnx")
    with pytest.raises(olt.ExportError, match="training must be one of"):
        olt.export(ConvBN(), (x_in(),), work / "c.onnx", training="sometimes")


def test_a_refused_node_names_op_opset_and_python_line(work):
    def refuse(cx, node):
        raise LoweringError("this symbolic refuses")

    with pytest.raises(olt.ExportError) as ei:
        olt.export(Custom(), (x_in(),), work / "r.onnx", opset_version=13,
                   custom_symbolics={"olgargs::twice": refuse})
    msg = str(ei.value)
    assert "olgargs::twice" in msg and "opset 13" in msg and "this symbolic refuses" in msg
    assert 'test_torch_args.py", line' in msg and "torch.ops.olgargs.twice(x)" in msg
    assert ei.value.diagnostics
