"""The torch model zoo of the tests: the failures of ../shared/seeds/ as small models, and
torchvision classification and segmentation models with random weights at small sizes.

Each case is a Case: a name, a builder returning the module, the example args, export keyword
arguments (dynamic_axes, input_names, ...), and optionally more input sets to run the exported
model at (dynamic axes at a second size). Every builder seeds torch, so weights and inputs are the
same in every run."""
import collections
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Case:
    def __init__(self, name, build, seed_ref=None, refused_below=None, export_kwargs=None,
                 more_inputs=None, atol=1e-4, rtol=1e-3, heavy=False):
        self.name, self.build, self.seed_ref = name, build, seed_ref
        # (opset, why): below opset the model cannot be expressed at all, and the export must
        # say so, naming that opset (e.g. bilinear resizing to sizes known only at run time
        # needs Resize-11: the exact decompositions below it need the sizes)
        self.refused_below = refused_below
        self.export_kwargs = export_kwargs or {}
        self.more_inputs = more_inputs  # callable -> list of arg tuples (other sizes)
        self.atol, self.rtol, self.heavy = atol, rtol, heavy


def call(model, args):
    """model run on export-style args: a tuple whose last element may be a dict of keyword
    arguments (torch.onnx.export's convention)."""
    if args and isinstance(args[-1], dict):
        return model(*args[:-1], **args[-1])
    return model(*args)


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=_g(seed))


# ---------------------------------------------------------------------------------------------
# seed 000: adaptive pooling, group_norm, data[index] = new_data, multiple inputs, bilinear

class AdaptivePool(nn.Module):
    def __init__(self, out, kind):
        super().__init__()
        self.pool = (nn.AdaptiveAvgPool2d if kind == "avg" else nn.AdaptiveMaxPool2d)(out)

    def forward(self, x):
        return self.pool(x)


class GroupNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(3, 6)
        with torch.no_grad():
            self.gn.weight.copy_(torch.linspace(0.5, 1.5, 6))
            self.gn.bias.copy_(torch.linspace(-1, 1, 6))

    def forward(self, x):
        return self.gn(x)


class IndexAssign(nn.Module):
    """seed 000 section 3, the form that torch.onnx refused."""

    def forward(self, data, index, new_data):
        data[index] = new_data
        return data


class IndexAssignScatter(nn.Module):
    """seed 000 section 3, the workaround with scatter_."""

    def forward(self, data, index, new_data):
        new_data = new_data.unsqueeze(0)
        index = index.expand(1, new_data.size(1))
        data.scatter_(0, index, new_data)
        return data


class SliceAssign(nn.Module):
    """Writes through views: a slice, a select, a strided slice, an augmented assignment."""

    def forward(self, x, v):
        y = x.clone()
        y[:, 1:3] = v
        y[0, 2] += 1.0
        y[..., ::2, 0] = -1.0
        y.masked_fill_(y > 1.5, 1.5)
        return y


class IndexingPatterns(nn.Module):
    """Factories sized at run time, advanced indexing with None dims and lists, writes through
    masks and strided slices, a mutated buffer clone, and a namedtuple of a list as output."""
    Out = collections.namedtuple("Out", "a b")

    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.arange(6.).view(2, 3))

    def forward(self, x, idx, flag=True):
        z = torch.zeros(x.size(0), 3)
        z[:, 1] = x[:, idx].sum(1)
        r = torch.arange(x.size(1)).float()
        y = x[..., None] * r[None, :, None]
        w = x[:, [0, 2]]
        b = self.buf.clone()
        b[0] += x.sum()
        m = x.clone()
        m[m < 0] *= -1
        q = x.clone()
        q[1:, ::2] = q[1:, ::2] * 2
        return self.Out(a=z + r.sum() if flag else z, b=[y.flatten(1), w, b, m, q])


class ThreeTokenInputs(nn.Module):
    """seed 000 section 2: three int64 inputs (token ids, segments, mask)."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(50, 8)
        self.seg = nn.Embedding(2, 8)
        self.proj = nn.Linear(8, 4)

    def forward(self, ids, segs, mask):
        h = self.tok(ids) + self.seg(segs)
        h = h * mask.unsqueeze(-1).to(h.dtype)
        return self.proj(h).sum(1)


class Interp(nn.Module):
    def __init__(self, size=None, scale=None, mode="nearest", align_corners=None,
                 recompute=None):
        super().__init__()
        self.kw = dict(size=size, scale_factor=scale, mode=mode, align_corners=align_corners,
                       recompute_scale_factor=recompute)

    def forward(self, x):
        return F.interpolate(x, **self.kw)


class ShapeTensorSlice(nn.Module):
    """seed 000 section 7: x_size = x.size()[1:] used as a shape, resize to another's size."""

    def forward(self, x, y):
        up = F.interpolate(x, size=y.shape[-2:], mode="bilinear", align_corners=False)
        return up + y.mean(1, keepdim=True), torch.tensor(x.shape)[1:]


# ---------------------------------------------------------------------------------------------
# seed 001: dynamic axes, max_pool1d with a kernel from a size, intermediate outputs

class MaxPoolFromSizeInt(nn.Module):
    """The seed's fix: int(x.size(2))."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3)

    def forward(self, x):
        x4 = self.conv(x)
        pool_size = int(x4.size(2))
        return F.max_pool1d(x4, pool_size).squeeze()


class MaxPoolFromSize(nn.Module):
    """The form that torch's own tracer refuses (a traced size where int[] is wanted)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3)

    def forward(self, x):
        x4 = self.conv(x)
        return F.max_pool1d(x4, x4.size(2)).squeeze(2)


class LinearModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 2)

    def forward(self, x):
        return self.fc(x)


class SmallCNN(nn.Module):
    """Dynamic batch through conv, pooling, flatten and a view built from x.size(0)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        x = F.adaptive_avg_pool2d(x, 4)
        return self.fc(x.view(x.size(0), -1))


# ---------------------------------------------------------------------------------------------
# seed 003: expand with -1, squeeze of a dim that is not 1, list outputs

class Expand(nn.Module):
    def forward(self, a):
        return a.expand(10, -1, -1)


class SqueezeNonOne(nn.Module):
    def forward(self, x):
        return x.squeeze(1) * 2, x.squeeze(2)


class ListOutputs(nn.Module):
    def forward(self, x):
        parts = list(torch.split(x, [1, 2, 3], dim=1))
        return [p.sum(1) for p in parts] + [torch.stack([x.amax(1), x.amin(1)], 0)]


# ---------------------------------------------------------------------------------------------
# seed 004: any/all with dim, grid_sample, the pure-PyTorch deformable attention core

class AnyAll(nn.Module):
    def forward(self, x):
        m = x > 0.3
        return (m.any(1), m.all(2, keepdim=True), m.any(), m.all(),
                torch.any(m, dim=-1, keepdim=True))


class GridSample(nn.Module):
    def __init__(self, mode="bilinear", padding_mode="zeros", align_corners=False):
        super().__init__()
        self.kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)

    def forward(self, x, grid):
        return F.grid_sample(x, grid, **self.kw)


def ms_deform_attn_core_pytorch(value, value_spatial_shapes, sampling_locations,
                                attention_weights):
    """The core as the seed quotes it (Deformable-DETR's pure-PyTorch reference)."""
    N_, S_, M_, D_ = value.shape
    _, Lq_, M_, L_, P_, _ = sampling_locations.shape
    value_list = value.split([H_ * W_ for H_, W_ in value_spatial_shapes], dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for lid_, (H_, W_) in enumerate(value_spatial_shapes):
        value_l_ = value_list[lid_].flatten(2).transpose(1, 2).reshape(N_ * M_, D_, H_, W_)
        sampling_grid_l_ = sampling_grids[:, :, :, lid_].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(value_l_, sampling_grid_l_, mode="bilinear",
                                          padding_mode="zeros", align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(N_ * M_, 1, Lq_, L_ * P_)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) *
              attention_weights).sum(-1).view(N_, M_ * D_, Lq_)
    return output.transpose(1, 2).contiguous()


class MSDeformAttnCore(nn.Module):
    SHAPES = [(6, 8), (3, 4)]

    def forward(self, value, sampling_locations, attention_weights):
        return ms_deform_attn_core_pytorch(value, self.SHAPES, sampling_locations,
                                           attention_weights)


def msda_args():
    N, M, D, Lq, P = 1, 2, 4, 5, 3
    L = len(MSDeformAttnCore.SHAPES)
    S = sum(h * w for h, w in MSDeformAttnCore.SHAPES)
    value = randn(N, S, M, D, seed=1)
    loc = torch.rand(N, Lq, M, L, P, 2, generator=_g(2))
    attn = torch.softmax(randn(N, Lq, M, L * P, seed=3), -1).view(N, Lq, M, L, P)
    return value, loc, attn


def bilinear_grid_sample(im, grid, align_corners=False):
    """mmcv's bilinear_grid_sample as the seed quotes it (after its steps 5 and 6)."""
    n, c, h, w = im.shape
    gn, gh, gw, _ = grid.shape
    x = grid[:, :, :, 0]
    y = grid[:, :, :, 1]
    if align_corners:
        x = ((x + 1) / 2) * (w - 1)
        y = ((y + 1) / 2) * (h - 1)
    else:
        x = ((x + 1) * w - 1) / 2
        y = ((y + 1) * h - 1) / 2
    x = x.contiguous().view(n, -1)
    y = y.contiguous().view(n, -1)
    x0 = torch.floor(x).long()
    y0 = torch.floor(y).long()
    x1 = x0 + 1
    y1 = y0 + 1
    wa = ((x1 - x) * (y1 - y)).unsqueeze(1)
    wb = ((x1 - x) * (y - y0)).unsqueeze(1)
    wc = ((x - x0) * (y1 - y)).unsqueeze(1)
    wd = ((x - x0) * (y - y0)).unsqueeze(1)
    im_padded = F.pad(im, pad=[1, 1, 1, 1], mode="constant", value=0)
    padded_h = h + 2
    padded_w = w + 2
    x0, x1, y0, y1 = x0 + 1, x1 + 1, y0 + 1, y1 + 1
    device = im.device
    x0 = torch.where(x0 < 0, torch.tensor(0).to(device), x0)
    x0 = torch.where(x0 > padded_w - 1, torch.tensor(padded_w - 1).to(device), x0)
    x1 = torch.where(x1 < 0, torch.tensor(0).to(device), x1)
    x1 = torch.where(x1 > padded_w - 1, torch.tensor(padded_w - 1).to(device), x1)
    y0 = torch.where(y0 < 0, torch.tensor(0).to(device), y0)
    y0 = torch.where(y0 > padded_h - 1, torch.tensor(padded_h - 1).to(device), y0)
    y1 = torch.where(y1 < 0, torch.tensor(0).to(device), y1)
    y1 = torch.where(y1 > padded_h - 1, torch.tensor(padded_h - 1).to(device), y1)
    im_padded = im_padded.view(n, c, -1)
    x0_y0 = (x0 + y0 * padded_w).unsqueeze(1).expand(-1, c, -1)
    x0_y1 = (x0 + y1 * padded_w).unsqueeze(1).expand(-1, c, -1)
    x1_y0 = (x1 + y0 * padded_w).unsqueeze(1).expand(-1, c, -1)
    x1_y1 = (x1 + y1 * padded_w).unsqueeze(1).expand(-1, c, -1)
    Ia = torch.gather(im_padded, 2, x0_y0)
    Ib = torch.gather(im_padded, 2, x0_y1)
    Ic = torch.gather(im_padded, 2, x1_y0)
    Id = torch.gather(im_padded, 2, x1_y1)
    return (Ia * wa + Ib * wb + Ic * wc + Id * wd).reshape(n, c, gh, gw)


class MmcvGridSample(nn.Module):
    def forward(self, im, grid):
        return bilinear_grid_sample(im, grid, align_corners=False)


def grid_args(seed=0):
    x = randn(1, 3, 6, 7, seed=seed)
    grid = torch.rand(1, 4, 5, 2, generator=_g(seed + 1)) * 2.2 - 1.1
    return x, grid


# ---------------------------------------------------------------------------------------------
# the cases

def _m(model, *args):
    torch.manual_seed(0)
    return model, args


SEED_CASES = [
    Case("adaptive_avg_7x11_to_3x5", lambda: _m(AdaptivePool((3, 5), "avg"), randn(1, 2, 7, 11)),
         "000 s5"),
    Case("adaptive_max_7x11_to_3x5", lambda: _m(AdaptivePool((3, 5), "max"), randn(1, 2, 7, 11)),
         "000 s5"),
    Case("adaptive_avg_global", lambda: _m(AdaptivePool((1, 1), "avg"), randn(1, 2, 7, 7)),
         "000 s5"),
    Case("group_norm", lambda: _m(GroupNorm(), randn(2, 6, 4, 5)), "000 s4"),
    Case("index_assign", lambda: _m(IndexAssign(), randn(5, 4), torch.tensor([3, 0]),
                                    randn(2, 4, seed=1)), "000 s3"),
    Case("index_assign_scatter", lambda: _m(IndexAssignScatter(), randn(5, 4),
                                            torch.tensor([[3]]), randn(4, seed=1)), "000 s3"),
    Case("slice_assign", lambda: _m(SliceAssign(), randn(4, 5), randn(4, 2, seed=1)), "003"),
    Case("indexing_patterns", lambda: _m(IndexingPatterns(), randn(4, 5), torch.tensor([1, 3]),
                                         {"flag": True}), "000 s3, 003"),
    Case("three_int64_inputs", lambda: _m(ThreeTokenInputs(),
                                          torch.randint(0, 50, (2, 7), generator=_g(1)),
                                          torch.randint(0, 2, (2, 7), generator=_g(2)),
                                          torch.ones(2, 7, dtype=torch.int64)), "000 s2"),
    Case("bilinear_5_to_9", lambda: _m(Interp(size=(9, 9), mode="bilinear",
                                              align_corners=False), randn(1, 3, 5, 5)), "002"),
    Case("bilinear_5_to_9_align", lambda: _m(Interp(size=(9, 9), mode="bilinear",
                                                    align_corners=True), randn(1, 3, 5, 5)),
         "000 s6, 002"),
    Case("nearest_5_to_9", lambda: _m(Interp(size=(9, 9), mode="nearest"), randn(1, 3, 5, 5)),
         "002"),
    Case("nearest_scale2", lambda: _m(Interp(scale=2.0, mode="nearest"), randn(1, 3, 4, 5)),
         "002"),
    Case("bilinear_scale_1_8", lambda: _m(Interp(scale=1.8, mode="bilinear", align_corners=False,
                                                 recompute=True), randn(1, 3, 5, 5)), "002"),
    Case("bicubic_5_to_9", lambda: _m(Interp(size=(9, 9), mode="bicubic", align_corners=False),
                                      randn(1, 2, 5, 5)), "002"),
    Case("bicubic_5_to_9_align", lambda: _m(Interp(size=(9, 9), mode="bicubic",
                                                   align_corners=True), randn(1, 2, 5, 5)), "002"),
    Case("linear1d_align", lambda: _m(Interp(size=11, mode="linear", align_corners=True),
                                      randn(1, 2, 6)), "002"),
    Case("linear1d", lambda: _m(Interp(size=11, mode="linear", align_corners=False),
                                randn(1, 2, 6)), "002"),
    Case("trilinear", lambda: _m(Interp(size=(3, 5, 6), mode="trilinear", align_corners=False),
                                 randn(1, 2, 2, 3, 4)), "002"),
    Case("nearest3d", lambda: _m(Interp(scale=2.0, mode="nearest"), randn(1, 2, 2, 3, 4)), "002"),
    Case("area_downsample", lambda: _m(Interp(size=(3, 4), mode="area"), randn(1, 2, 7, 9)),
         "002"),
    Case("shape_derived_resize", lambda: _m(ShapeTensorSlice(), randn(1, 3, 4, 5),
                                            randn(1, 3, 9, 11, seed=1)), "000 s7",
         export_kwargs=dict(input_names=["x", "y"], dynamic_axes={"y": {2: "h", 3: "w"}}),
         refused_below=(11, "aten::upsample_bilinear2d"),
         more_inputs=lambda: [(randn(1, 3, 4, 5, seed=4), randn(1, 3, 13, 7, seed=5))]),
    Case("maxpool1d_kernel_int_size", lambda: _m(MaxPoolFromSizeInt(), randn(2, 4, 12)), "001"),
    Case("maxpool1d_kernel_from_size", lambda: _m(MaxPoolFromSize(), randn(2, 4, 12)), "001"),
    Case("dynamic_batch_linear", lambda: _m(LinearModel(), randn(32, 10)), "001, 003",
         export_kwargs=dict(input_names=["input"], output_names=["output"],
                            dynamic_axes={"input": [0], "output": [0]}),
         more_inputs=lambda: [(randn(1, 10, seed=7),), (randn(3, 10, seed=8),)]),
    Case("dynamic_batch_cnn", lambda: _m(SmallCNN(), randn(2, 3, 8, 8)), "003",
         export_kwargs=dict(input_names=["input_1"], output_names=["output_1"],
                            dynamic_axes={"input_1": [0], "output_1": [0]}),
         more_inputs=lambda: [(randn(5, 3, 8, 8, seed=9),)]),
    Case("expand_minus_one", lambda: _m(Expand(), randn(1, 3, 4)), "003"),
    Case("squeeze_dim_of_3", lambda: _m(SqueezeNonOne(), randn(2, 3, 1, 4)), "003"),
    Case("list_outputs", lambda: _m(ListOutputs(), randn(2, 6, 3)), "003"),
    Case("any_all_dim", lambda: _m(AnyAll(), torch.rand(2, 3, 4, generator=_g(3))), "004"),
    Case("grid_sample_bilinear_zeros", lambda: _m(GridSample(), *grid_args()), "004"),
    Case("grid_sample_bilinear_zeros_align", lambda: _m(GridSample(align_corners=True),
                                                        *grid_args()), "004"),
    Case("grid_sample_nearest_border", lambda: _m(GridSample("nearest", "border"), *grid_args(1)),
         "004"),
    Case("grid_sample_bilinear_reflection", lambda: _m(GridSample("bilinear", "reflection"),
                                                       *grid_args(2)), "004"),
    Case("grid_sample_bicubic", lambda: _m(GridSample("bicubic", "zeros"), *grid_args(3)), "004",
         atol=1e-3),
    Case("ms_deform_attn_core", lambda: _m(MSDeformAttnCore(), *msda_args()), "004"),
    Case("mmcv_bilinear_grid_sample", lambda: _m(MmcvGridSample(), *grid_args(4)), "004"),
]


def _lively(m, seed=11):
    """Random weights that make outputs of order 1, so that comparing them means something:
    torchvision initializes some heads with zeros (ViT: every output 0) or tiny normals
    (MobileNetV3: outputs ~0.01), and BatchNorm statistics with exactly 0 and 1."""
    g = _g(seed)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.Linear):
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=g) /
                                 math.sqrt(mod.in_features))
                if mod.bias is not None:
                    mod.bias.copy_(torch.rand(mod.bias.shape, generator=g) * 0.2 - 0.1)
            elif isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
                mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
    return m


def _tv(name, size=64, **kw):
    def build():
        import torchvision
        torch.manual_seed(0)
        fn = getattr(torchvision.models, name, None) or \
            getattr(torchvision.models.segmentation, name)
        m = _lively(fn(weights=None, **kw))
        return m, (randn(1, 3, size, size, seed=5),)
    return build


def _convnext_small():
    """torchvision's ConvNeXt architecture at a small width and depth (the tiny preset is 110 MB
    of weights; the blocks, layer norms and stochastic depth are the same)."""
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    torch.manual_seed(0)
    m = ConvNeXt([CNBlockConfig(16, 32, 2), CNBlockConfig(32, 64, 2), CNBlockConfig(64, 96, 2),
                  CNBlockConfig(96, None, 1)], stochastic_depth_prob=0.1, num_classes=10)
    _lively(m)
    return m, (randn(1, 3, 64, 64, seed=5),)


def _swin_small():
    """torchvision's Swin Transformer architecture (shifted windows, attention masks built by
    slice assignment, relative position bias) at a small width and depth."""
    from torchvision.models.swin_transformer import SwinTransformer
    torch.manual_seed(0)
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2, 2, 1],
                        num_heads=[1, 2, 2, 4], window_size=[4, 4], stochastic_depth_prob=0.1,
                        num_classes=10)
    _lively(m)
    return m, (randn(1, 3, 64, 64, seed=5),)


def _vit():
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                             num_heads=2, hidden_dim=32, mlp_dim=64,
                                             num_classes=10)
    _lively(m)
    return m, (randn(1, 3, 32, 32, seed=5),)


TORCHVISION_CASES = [
    Case("resnet18", _tv("resnet18")),
    Case("mobilenet_v3_small", _tv("mobilenet_v3_small")),
    Case("efficientnet_b0", _tv("efficientnet_b0")),
    Case("convnext_small_cfg", _convnext_small, atol=1e-3),
    Case("shufflenet_v2_x0_5", _tv("shufflenet_v2_x0_5")),
    Case("densenet121", _tv("densenet121"), heavy=True),
    Case("swin_small_cfg", _swin_small, atol=1e-3),
    Case("vit_small", _vit),
    Case("deeplabv3_mobilenet_v3_large", _tv("deeplabv3_mobilenet_v3_large", num_classes=5,
                                             weights_backbone=None, aux_loss=False)),
    Case("lraspp_mobilenet_v3_large", _tv("lraspp_mobilenet_v3_large", num_classes=5,
                                          weights_backbone=None)),
]

DYNAMIC_CASES = [
    # batch and spatial dims symbolic: adaptive pooling and flatten must not bake the trace's
    # sizes in
    Case("resnet18_dynamic_batch_hw", _tv("resnet18"), "001, 003",
         export_kwargs=dict(input_names=["image"], output_names=["logits"],
                            dynamic_axes={"image": {0: "N", 2: "H", 3: "W"},
                                          "logits": {0: "N"}}),
         more_inputs=lambda: [(randn(3, 3, 96, 80, seed=21),)]),
    # the head's output is resized to the input's run-time size (F.interpolate(size=x.shape[-2:]))
    Case("deeplabv3_dynamic_hw", _tv("deeplabv3_mobilenet_v3_large", num_classes=5,
                                     weights_backbone=None, aux_loss=False), "000 s7",
         refused_below=(11, "aten::upsample_bilinear2d"),
         export_kwargs=dict(input_names=["image"], dynamic_axes={"image": {2: "H", 3: "W"}}),
         more_inputs=lambda: [(randn(1, 3, 80, 48, seed=22),)]),
]

ALL_CASES = SEED_CASES + TORCHVISION_CASES + DYNAMIC_CASES
BY_NAME = {c.name: c for c in ALL_CASES}
OPSETS = [9, 11, 13, 17, 18, 20, 23]
# The seed failures are small: they are exported at every opset from 9 to 23 (issue 4's check).
SEED_OPSETS = list(range(9, 24))
_SEED_NAMES = {c.name for c in SEED_CASES}


def opsets_for(case):
    return SEED_OPSETS if case.name in _SEED_NAMES else OPSETS
