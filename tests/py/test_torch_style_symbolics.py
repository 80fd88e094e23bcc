"""Issue 29 (c): custom ops written for torch.onnx export through onnxlegal.torch unchanged --
an autograd.Function's `symbolic(g, ...)`, register_custom_op_symbolic (onnxlegal's and
torch.onnx's), torch-style functions in custom_symbolics, g.op with outputs= and attribute
suffixes, torch's own symbolic_helper -- and match torch in ONNX Runtime. An exception in a
caller's symbolic keeps its traceback (__cause__) and names its line."""
import os
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))

olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
try:
    olt._lowering()
except olt.ExportError as e:
    pytestmark = pytest.mark.skip(reason=str(e))

from torch.onnx import symbolic_helper  # noqa: E402

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)

_LIB = torch.library.Library("olgstyle", "DEF")
_LIB.define("scaled_tanh(Tensor x, float scale, int[] axes) -> Tensor")
_LIB.impl("scaled_tanh", lambda x, scale, axes: torch.tanh(x) * scale + x.sum(axes, keepdim=True),
          "CPU")
# two outputs, from a torch.library op
_LIB.define("halves(Tensor x) -> (Tensor, Tensor)")
_LIB.impl("halves", lambda x: (x[:, :2] * 1, x[:, 2:] * 1), "CPU")


class LeakyMul(torch.autograd.Function):
    """A custom op as torch.onnx users write it: forward, and a torch-style symbolic."""

    @staticmethod
    def forward(ctx, x, alpha):
        return torch.where(x > 0, x, x * alpha)

    @staticmethod
    def symbolic(g, x, alpha):
        return g.op("LeakyRelu", x, alpha_f=alpha)


def halves_symbolic(g, x):
    """Two outputs: g.op(..., outputs=2), returned as a tuple."""
    if g.opset >= 13:
        return g.op("Split", x, g.op("Constant", value_t=torch.tensor([2, 2])), axis_i=1,
                    outputs=2)
    return g.op("Split", x, axis_i=1, split_i=[2, 2], outputs=2)


class SplitHalves(torch.autograd.Function):
    """Two outputs from an autograd Function (traced as a tuple and prim::TupleUnpack)."""

    @staticmethod
    def forward(ctx, x):
        return x[:, :2] * 1, x[:, 2:] * 1

    @staticmethod
    def symbolic(g, x):
        return halves_symbolic(g, x)


class Broken(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def symbolic(g, x):
        raise ValueError("no good")  # THE-FAILING-LINE


class Misspelt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def symbolic(g, x):
        return g.op("Mull", x, x)


@symbolic_helper.parse_args("v", "f", "is")
def scaled_tanh_symbolic(g, x, scale, axes):
    """As written for torch.onnx: torch's own parse_args and _unsqueeze_helper-style helpers."""
    rank = symbolic_helper._get_tensor_rank(x)
    assert rank == 3, rank
    y = g.op("Mul", g.op("Tanh", x), g.op("Constant", value_t=torch.tensor(scale)))
    if g.opset >= 13:
        s = g.op("ReduceSum", x, g.op("Constant", value_t=torch.tensor(axes)), keepdims_i=1)
    else:
        s = g.op("ReduceSum", x, axes_i=axes, keepdims_i=1)
    return g.op("Add", y, s)


def gelu_as_tanh(g, x, approximate):
    # an aten override: torch passes the str argument as a constant Value
    assert symbolic_helper._parse_arg(approximate, "s") == "none"
    return g.op("Tanh", x)


def fn_leaky(x):
    return LeakyMul.apply(x, 0.25)


def fn_split(x):
    a, b = torch.ops.olgstyle.halves(x)
    return a - b, b


def fn_split_function(x):
    a, b = SplitHalves.apply(x)
    return a * b, b - a


def fn_custom(x):
    return torch.ops.olgstyle.scaled_tanh(x, 0.5, [1])


def fn_gelu(x):
    return torch.nn.functional.gelu(x) + 1


def fn_selu(x):
    return torch.selu(x) * 2


def x_in(*shape):
    return torch.linspace(-2, 2, int(np.prod(shape))).reshape(shape)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every case exported up front and run in one ONNX Runtime batch."""
    work = tmp_path_factory.mktemp("torch-style")
    cases, expect, keys = [], [], []

    def add(key, fn, x, opset, **kw):
        path = work / ("%s_%d.onnx" % (key, opset))
        olt.export(fn, (x,), str(path), opset_version=opset, input_names=["x"], **kw)
        cases.append((str(path), {"x": x.numpy()}))
        with torch.no_grad():
            want = fn(x)
        expect.append([t.numpy() for t in (want if isinstance(want, tuple) else (want,))])
        keys.append((key, opset))

    for opset in (11, 17):
        add("leaky", fn_leaky, x_in(2, 5), opset)
        add("split", fn_split, x_in(3, 4), opset,
            custom_symbolics={"olgstyle::halves": halves_symbolic})
        add("splitfn", fn_split_function, x_in(3, 4), opset)
    olt.register_custom_op_symbolic("olgstyle::scaled_tanh", scaled_tanh_symbolic, 9)
    torch.onnx.register_custom_op_symbolic("aten::gelu", gelu_as_tanh, 9)
    try:
        for opset in (11, 13):
            add("custom", fn_custom, x_in(2, 3, 4), opset)
        add("gelu", fn_gelu, x_in(2, 3), 13)
    finally:
        olt.unregister_custom_op_symbolic("olgstyle::scaled_tanh", 9)
        torch.onnx.unregister_custom_op_symbolic("aten::gelu", 9)
    add("selu", fn_selu, x_in(2, 3), 13, custom_symbolics={
        "aten::selu": lambda g, x: g.op("Mul", x, g.op("Constant", value_t=torch.tensor(3.0)))})
    from ortrun import run_batch
    got = run_batch(cases)
    return {k: (g, e) for k, g, e in zip(keys, got, expect)}


def _check(runs, key, want=None):
    got, expect = runs[key]
    assert not isinstance(got, str), got
    expect = want if want is not None else expect
    assert len(got) == len(expect)
    for g, e in zip(got.values(), expect):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [11, 17])
def test_autograd_function_symbolic(runs, opset):
    _check(runs, ("leaky", opset))


@pytest.mark.parametrize("opset", [11, 17])
def test_g_op_outputs_2(runs, opset):
    _check(runs, ("split", opset))


@pytest.mark.parametrize("opset", [11, 17])
def test_autograd_function_of_two_outputs(runs, opset):
    _check(runs, ("splitfn", opset))


@pytest.mark.parametrize("opset", [11, 13])
def test_register_custom_op_symbolic_with_parse_args(runs, opset):
    _check(runs, ("custom", opset))


def test_torch_onnx_register_overrides_aten(runs):
    x = x_in(2, 3)
    _check(runs, ("gelu", 13), [(torch.tanh(x) + 1).numpy()])


def test_custom_symbolics_torch_style_lambda(runs):
    x = x_in(2, 3)
    _check(runs, ("selu", 13), [(x * 3.0 * 2).numpy()])


def test_unregistered_is_gone(tmp_path):
    with pytest.raises(olt.UnsupportedOpsError) as e:
        olt.export(fn_custom, (x_in(2, 3, 4),), str(tmp_path / "m.onnx"), opset_version=13)
    assert "olgstyle::scaled_tanh" in str(e.value)


def test_register_opset_dispatch(tmp_path):
    olt.register_custom_op_symbolic("olgstyle::scaled_tanh", scaled_tanh_symbolic, 15)
    try:
        with pytest.raises(olt.UnsupportedOpsError) as e:
            olt.export(fn_custom, (x_in(2, 3, 4),), str(tmp_path / "m.onnx"), opset_version=13)
        assert e.value.unsupported["olgstyle::scaled_tanh"]["min_opset"] == 15
    finally:
        olt.unregister_custom_op_symbolic("olgstyle::scaled_tanh", 15)


def test_error_keeps_traceback_and_line(tmp_path):
    with pytest.raises(olt.ExportError) as e:
        olt.export(lambda x: Broken.apply(x), (x_in(2, 3),), str(tmp_path / "m.onnx"),
                   opset_version=13)
    cause = e.value.__cause__
    assert isinstance(cause, ValueError) and str(cause) == "no good"
    assert cause.__traceback__ is not None
    msg = str(e.value)
    assert "ValueError: no good" in msg
    assert "test_torch_style_symbolics.py" in msg and "THE-FAILING-LINE" in msg


def test_library_style_error_keeps_traceback(tmp_path):
    def sym(cx, node):
        return {}["missing"]

    with pytest.raises(olt.ExportError) as e:
        olt.export(lambda x: torch.selu(x), (x_in(2, 3),), str(tmp_path / "m.onnx"),
                   opset_version=13, custom_symbolics={"aten::selu": sym})
    assert isinstance(e.value.__cause__, KeyError)
    assert 'return {}["missing"]' in str(e.value)


def test_misspelt_op_names_op_and_opset(tmp_path):
    with pytest.raises(olt.ExportError) as e:
        olt.export(lambda x: Misspelt.apply(x), (x_in(2, 3),), str(tmp_path / "m.onnx"),
                   opset_version=13)
    msg = str(e.value)
    assert "'Mull'" in msg and "opset 13" in msg and "did you mean 'Mul'" in msg
    assert "first version: -1" not in msg
    assert 'g.op("Mull", x, x)' in msg


def test_attribute_suffixes():
    from onnxlegal._torch_compat import _attr_value, _split_attr
    assert _split_attr("alpha_f") == ("alpha", "f")
    assert _split_attr("keepdims") == ("keepdims", None)
    assert _attr_value("x_f", "f", 1) == 1.0 and isinstance(_attr_value("x_f", "f", 1), float)
    assert _attr_value("x_is", "is", torch.tensor([1, 2])) == [1, 2]
    assert _attr_value("x_fs", "fs", [1, 2]) == [1.0, 2.0]
    assert _attr_value("x_s", "s", "nearest") == "nearest"
    assert _attr_value("v_t", "t", torch.tensor([1.5])).dtype == np.float32


_LIB.define("group_norm_like(Tensor x, Tensor num_groups, float eps) -> Tensor")
_LIB.impl("group_norm_like", lambda x, n, eps: x * 1, "CPU")


def test_torch_docs_custom_domain_example(tmp_path):
    """torch.onnx's documented register_custom_op_symbolic example: a constant argument used as
    an attribute (epsilon_f=eps) and a custom-domain op."""
    def my_group_norm(g, input, num_groups, eps):
        return g.op("mydomain::mygroupnorm", input, num_groups, epsilon_f=eps)

    olt.register_custom_op_symbolic("olgstyle::group_norm_like", my_group_norm, 9)
    try:
        path = str(tmp_path / "m.onnx")
        olt.export(lambda x: torch.ops.olgstyle.group_norm_like(x, torch.tensor([2]), 1e-5),
                   (x_in(1, 3, 4),), path, opset_version=13, custom_opsets={"mydomain": 1})
    finally:
        olt.unregister_custom_op_symbolic("olgstyle::group_norm_like", 9)
    node = [n for n in onnx.load(path).graph.node if n.op_type == "mygroupnorm"][0]
    assert node.domain == "mydomain"
    assert abs(onnx.helper.get_attribute_value(node.attribute[0]) - 1e-5) < 1e-9


def test_op_of_a_later_opset_names_the_lowest(tmp_path):
    class Later(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def symbolic(g, x):
            return g.op("onnx::Gelu", x)

    with pytest.raises(olt.UnsupportedOpsError) as e:
        olt.export(lambda x: Later.apply(x), (x_in(2, 3),), str(tmp_path / "m.onnx"),
                   opset_version=13)
    assert e.value.unsupported["autograd::Later"]["min_opset"] == 20
    assert "g.op('Gelu')" in str(e.value)
