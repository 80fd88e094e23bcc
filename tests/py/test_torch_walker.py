"""The torch front end's walker (onnxlegal._torch_trace), checked without the C library: every model
of the zoo (tests/torch/models.py) is traced and walked into a source graph, the source graph is
run back through torch node by node (tests/torch/interp.py), and must give the model's own
outputs, also at the other sizes of its dynamic axes. Plus what the library relies on: schema-
positional arguments, no in-place op left, parameters borrowed (same memory as the torch tensor),
aten::size kept as a node, module paths as node names, flattened inputs and outputs, and errors."""
import os
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")
import torch.nn as nn  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))

from onnxlegal._torch_trace import (Ints, SValue, TorchExportError, Values,  # noqa: E402
                                    build_source_graph, flatten)
import interp  # noqa: E402
import models  # noqa: E402

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)


def walk(model, args, **kw):
    return build_source_graph(model, args, **kw)


def clone(obj):
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    if isinstance(obj, (list, tuple)):
        return type(obj)(clone(o) for o in obj)
    if isinstance(obj, dict):
        return {k: clone(o) for k, o in obj.items()}
    return obj


def call(model, args):
    if args and isinstance(args[-1], dict):
        return model(*clone(args[:-1]), **clone(args[-1]))
    return model(*clone(args))


def check_same(model, args, sg=None, alt_inputs=(), exact=True, **kw):
    """Walks model on args and checks the walked graph computes the model's outputs."""
    model.eval()
    sg = sg or walk(model, clone(tuple(args)), **kw)
    for inputs in [args] + list(alt_inputs):
        with torch.no_grad():
            want, _ = flatten(call(model, inputs))
            got = interp.run(sg, flatten(clone(tuple(inputs)))[0])
        assert len(got) >= len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            if exact:
                assert torch.equal(g, w), (g - w).abs().max()
            else:
                torch.testing.assert_close(g, w)
    return sg


@pytest.mark.parametrize("case", models.ALL_CASES, ids=lambda c: c.name)
def test_zoo_model_walks_to_the_same_program(case):
    model, args = case.build()
    alt = case.more_inputs() if case.more_inputs else []
    sg = check_same(model, args, alt_inputs=alt, **case.export_kwargs)
    for n in sg.nodes:
        # nothing of torch's bookkeeping reaches the library, and nothing mutates
        assert n.domain == "aten" and not n.op.startswith("prim")
        assert not (n.op.endswith("_") and not n.op.endswith("__")), n


def test_parameters_are_borrowed_not_copied():
    model, args = models.BY_NAME["resnet18"].build()
    sg = walk(model, args)
    params = dict(model.state_dict(keep_vars=True))
    n = 0
    for init in sg.initializers:
        if init.kind != "parameter":
            continue
        t = params[init.name]
        assert init.array.ctypes.data == t.data_ptr(), init.name
        assert init.array.nbytes == t.numel() * t.element_size()
        n += 1
    # every conv weight, bn affine and running stat, fc weight and bias; nothing unused
    assert n == len([k for k in params if not k.endswith("num_batches_tracked")])


def test_module_paths_name_the_nodes():
    model, args = models.BY_NAME["resnet18"].build()
    sg = walk(model, args)
    scopes = [n.scope for n in sg.nodes]
    assert "conv1" in scopes and "layer1.0.conv1" in scopes and "layer4.1.bn2" in scopes
    assert "fc" in scopes
    # BasicBlock calls its relu module twice: two nodes, told apart by their names
    relus = [n.name for n in sg.nodes if n.scope == "layer1.0.relu"]
    assert relus == ["layer1.0.relu", "layer1.0.relu#2"]
    assert len(set(n.name for n in sg.nodes if n.name)) == len([n for n in sg.nodes if n.name])
    conv = next(n for n in sg.nodes if n.scope == "layer1.0.conv1")
    assert conv.op == "_convolution" and conv.schema.startswith("aten::_convolution(")


def test_arguments_are_positional_as_in_the_schema():
    model, args = models.BY_NAME["resnet18"].build()
    sg = walk(model, args)
    conv = next(n for n in sg.nodes if n.scope == "layer1.0.conv1")
    # _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    #              groups, benchmark, deterministic, cudnn_enabled, allow_tf32)
    a = conv.args
    assert len(a) == 13
    assert isinstance(a[0], SValue) and isinstance(a[1], SValue) and a[2] is None
    assert a[3] == [1, 1] and isinstance(a[3], Ints) and a[4] == [1, 1] and a[6] is False
    assert a[8] == 1


def test_size_stays_a_node_where_dims_are_dynamic():
    case = models.BY_NAME["shape_derived_resize"]
    model, args = case.build()
    sg = walk(model, args, **case.export_kwargs)
    sizes = [n for n in sg.nodes if n.op == "size"]
    assert len(sizes) == 2
    up = next(n for n in sg.nodes if n.op == "upsample_bilinear2d")
    assert isinstance(up.args[1], Values) and [v.id for v in up.args[1]] == \
        [s.outputs[0].id for s in sizes]
    y = next(i for i in sg.inputs if i.name == "y")
    assert y.shape == [1, 3, "h", "w"]


def test_dynamic_axes_list_form_names_dims_as_torch_does():
    case = models.BY_NAME["dynamic_batch_linear"]
    model, args = case.build()
    sg = walk(model, args, **case.export_kwargs)
    assert sg.inputs[0].shape == ["input_dynamic_axes_1", 10]
    assert [name for _, name in sg.outputs] == ["output"]


def test_tuple_dict_and_keyword_inputs_flatten_in_order():
    class M(nn.Module):
        def forward(self, x, pair, scale=None, extra=None):
            a, b = pair
            return {"sum": x + a * scale, "diff": (x - b, extra["k"] * 2)}

    x, a, b, s, k = (torch.randn(2, 3, generator=torch.Generator().manual_seed(i))
                     for i in range(5))
    sg = check_same(M(), (x, (a, b), {"scale": s, "extra": {"k": k}}))
    assert [i.name for i in sg.inputs] == ["input_0", "input_1_0", "input_1_1", "input_1_scale",
                                            "input_1_extra_k"]
    assert [n for _, n in sg.outputs] == ["output_sum", "output_diff_0", "output_diff_1"]


def test_input_and_output_names_and_errors():
    model, args = models.BY_NAME["list_outputs"].build()
    sg = walk(model, args, input_names=["x"], output_names=["a", "b"])
    assert [i.name for i in sg.inputs] == ["x"]
    assert [n for _, n in sg.outputs] == ["a", "b", "output_2", "output_3"]
    with pytest.raises(TorchExportError, match="input_names has 2 names for 1 inputs"):
        walk(model, args, input_names=["x", "y"])
    with pytest.raises(TorchExportError, match="neither an input nor an output"):
        walk(model, args, dynamic_axes={"nope": [0]})


def test_extra_outputs_by_module_and_by_value_name():
    model, args = models.BY_NAME["resnet18"].build()
    sg = walk(model, args, extra_outputs=["layer1.0.conv1", "layer2"])
    assert [n for _, n in sg.outputs] == ["output", "layer1.0.conv1", "layer2"]
    model.eval()
    got = interp.run(sg, list(args))
    seen = {}
    hooks = [model.layer1[0].conv1.register_forward_hook(lambda m, i, o: seen.__setitem__("c", o)),
             model.layer2.register_forward_hook(lambda m, i, o: seen.__setitem__("l", o))]
    with torch.no_grad():
        model(*args)
    for h in hooks:
        h.remove()
    assert torch.equal(got[1], seen["c"]) and torch.equal(got[2], seen["l"])
    with pytest.raises(TorchExportError, match="names neither a submodule nor a value"):
        walk(model, args, extra_outputs=["layer9"])


class Views(nn.Module):
    """Writes through every kind of view the walker writes back."""

    def forward(self, x, idx):
        y = x.clone()
        y.t()[1] = 5.0                      # transpose view
        y.view(-1)[2:4] = torch.tensor([7.0, 8.0])   # flat view, slice
        y.unsqueeze(0)[0, -1] *= 2          # unsqueeze, negative select, in-place mul
        y.narrow(1, 1, 2).add_(1)           # narrow
        a, b = y.split([1, 3], 1)           # split outputs are views
        b[:, 0] = -3.0
        c = y.permute(1, 0)
        c[-2:] = c[-2:] * 0.5              # negative slice start through a permute
        y[idx] += 10                        # index_put_ with a tensor index
        y.index_put_((idx,), torch.ones(4), accumulate=True)
        d = y.detach()                      # detach aliases
        d[0, 0] = 42.0
        y[::2, ::3] = 0.25                  # two strided slices
        z = y[1]                            # a view taken before a write...
        y[1, 1] = -7.0
        return y, z * 1, a                  # ...and read after it (derived again)


def test_in_place_writes_through_views_are_written_back():
    x = torch.randn(4, 4, generator=torch.Generator().manual_seed(1))
    check_same(Views(), (x, torch.tensor([0, 2])))


class MutateInput(nn.Module):
    def forward(self, data, v):
        data[1:3].copy_(v)
        data.relu_()
        data.clamp_(max=0.5)
        return data


def test_in_place_on_an_input_returns_the_new_value():
    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(2))
    v = torch.randn(2, 3, generator=torch.Generator().manual_seed(3))
    sg = check_same(MutateInput(), (x, v))
    assert [n.op for n in sg.nodes][-2:] == ["relu", "clamp"]


def test_write_through_a_view_without_write_back_is_refused_with_where():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Identity()

        def forward(self, x):
            x = self.inner(x).clone()
            x.diagonal().add_(1)
            return x

    with pytest.raises(TorchExportError, match="through a view made by aten::diagonal"):
        walk(M(), (torch.randn(3, 3),))


def test_max_pool1d_with_a_traced_size_as_kernel():
    # torch's own tracer fails here ("argument 'kernel_size' must be tuple of ints, not Tensor")
    case = models.BY_NAME["maxpool1d_kernel_from_size"]
    model, args = case.build()
    sg = check_same(model, args)
    pool = next(n for n in sg.nodes if n.op == "max_pool1d")
    assert isinstance(pool.args[1], Values)  # the kernel is the traced size, not a baked int


def test_tracing_restores_training_mode_and_torch_state():
    model, args = models.BY_NAME["dynamic_batch_cnn"].build()
    model.train()
    walk(model, args)
    assert model.training and model.bn.training
    assert torch.max_pool1d.__name__ == "max_pool1d" and \
        not hasattr(torch.max_pool1d, "__wrapped__")
    assert torch.jit._trace._trace_module_map is None


def test_a_plain_function_exports_too():
    def f(a, b):
        return torch.where(a > b, a, b).sum(0)

    g = torch.Generator().manual_seed(6)
    a, b = torch.randn(3, 2, generator=g), torch.randn(3, 2, generator=g)
    sg = walk(f, (a, b))
    got = interp.run(sg, [a, b])
    assert torch.equal(got[0], f(a, b))


def test_walk_is_linear_on_a_deep_transformer():
    # Counted, not timed (a timing flakes on a busy machine): the Python and builtin calls the
    # walk makes grow by the same amount for each further 8 layers; a walk that revisits
    # earlier nodes per node would add more each time.
    def walk_counting(layers):
        with torch.random.fork_rng():  # the same weights whatever ran before, and no trace left
            torch.manual_seed(0)
            model = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True),
                                          layers).eval()
        x = torch.randn(2, 16, 64, generator=torch.Generator().manual_seed(0))
        n = [0]

        def count(frame, event, arg):
            if event in ("call", "c_call"):
                n[0] += 1
        sys.setprofile(count)
        try:
            sg = walk(model, (x,))
        finally:
            sys.setprofile(None)
        return n[0], sg, model, x

    c8, _, _, _ = walk_counting(8)
    c16, _, _, _ = walk_counting(16)
    c24, sg, model, x = walk_counting(24)
    assert len(sg.nodes) > 24 * 15
    assert c24 - c16 <= 1.1 * (c16 - c8), (c8, c16, c24)
    check_same(model, (x,), sg=sg, exact=False)


def test_assorted_patterns_and_namedtuple_output_names():
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(4))
    sg = check_same(models.IndexingPatterns(), (x, torch.tensor([1, 3]), {"flag": True}))
    assert [n for _, n in sg.outputs] == ["output_a", "output_b_0", "output_b_1", "output_b_2",
                                          "output_b_3", "output_b_4"]
    # the keyword bool is a constant of the trace, not an input
    assert [i.name for i in sg.inputs] == ["input_0", "input_1"]


@torch.jit.script
def _scripted_scale(x, double: bool):
    if double:
        return x * 2.0
    return x + 1.0


@torch.jit.script
def _scripted_data_dependent(x):
    if x.sum() > 0:
        return x * 2.0
    return x


class CallsScripted(nn.Module):
    def forward(self, x):
        return _scripted_scale(x, True) + _scripted_scale(x, False)


class CallsDataDependent(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Identity()

    def forward(self, x):
        return _scripted_data_dependent(self.inner(x))


def test_scripted_functions_are_inlined_and_fixed_branches_taken():
    x = torch.randn(2, 3, generator=torch.Generator().manual_seed(5))
    sg = check_same(CallsScripted(), (x,))
    assert sorted(n.op for n in sg.nodes) == ["add", "add", "mul"]


def test_data_dependent_control_flow_becomes_an_onnx_if():
    # (numbers: tests/py/test_torch_control.py)
    sg = walk(CallsDataDependent(), (torch.randn(2, 3),))
    ifs = [n for n in sg.nodes if n.op == "If" and n.domain == ""]
    assert len(ifs) == 1 and sorted(ifs[0].blocks) == ["else_branch", "then_branch"]
    assert "if x.sum() > 0:" in ifs[0].line
