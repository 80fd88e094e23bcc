"""A caller's own op, lowered by a symbolic registered from Python: mmcv::MSDeformAttn, the core
of multi-scale deformable attention (Deformable DETR), as in ../../../shared/seeds/004: the
PyTorch reference is ms_deform_attn_core_pytorch below.

Two ways to lower it:
  register_onnx(reg)    into standard ONNX ops: Gather per level, Reshape/Transpose, GridSample,
                        Concat, and the weighted sum as a MatMul. Written once, with no opset
                        test: GridSample is emitted as defined at opset 20 (version=20), and the
                        library converts it for each target (kept from 20, renamed below, decomposed
                        exactly below 16), so the lowering works at every opset from 7;
  register_custom(reg)  into a node of the caller's own domain "mmcv" (version 1), with a shape
                        function so that what follows it still sees its type and shape.

    from onnxlegal.lowering import Registry, legalize
    reg = Registry(); register_onnx(reg)
    out = legalize(model, reg, opset=17)
"""
import numpy as np

from onnxlegal.lowering import OPSET_MIN, UnsupportedOp

DOMAIN, OP = "mmcv", "MSDeformAttn"


def ms_deform_attn_core_pytorch(value, value_spatial_shapes, sampling_locations, attention_weights):
    """The reference (torch): value [N,S,M,D], shapes [L,2] (H,W), locations [N,Lq,M,L,P,2] in
    [0,1], weights [N,Lq,M,L,P] -> [N,Lq,M*D]."""
    import torch
    import torch.nn.functional as F
    N_, S_, M_, D_ = value.shape
    _, Lq_, M_, L_, P_, _ = sampling_locations.shape
    value_list = value.split([int(H_) * int(W_) for H_, W_ in value_spatial_shapes], dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for lid_, (H_, W_) in enumerate(value_spatial_shapes):
        value_l_ = value_list[lid_].flatten(2).transpose(1, 2).reshape(N_ * M_, D_, int(H_), int(W_))
        sampling_grid_l_ = sampling_grids[:, :, :, lid_].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(value_l_, sampling_grid_l_, mode="bilinear",
                                          padding_mode="zeros", align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(N_ * M_, 1, Lq_, L_ * P_)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) * attention_weights).sum(-1)
    return output.view(N_, M_ * D_, Lq_).transpose(1, 2).contiguous()


def _static(cx, v, what):
    shape = cx.shape(v)
    if shape is None or not all(isinstance(d, int) for d in shape):
        raise UnsupportedOp("MSDeformAttn with a %s of a shape not known at export time" % what)
    return shape


def lower_onnx(cx, node):
    """value [N,S,M,D], spatial_shapes [L,2] (known), locations [N,Lq,M,L,P,2], weights
    [N,Lq,M,L,P] -> [N,Lq,M*D], in standard ONNX ops."""
    value, shapes_v, loc, attn = (cx.arg_value(i) for i in range(4))
    shapes = cx.known(shapes_v)
    if shapes is None:
        raise UnsupportedOp("MSDeformAttn with spatial shapes computed at run time")
    N, S, M, D = _static(cx, value, "value")
    _, Lq, _, L, P, _ = _static(cx, loc, "sampling_locations")
    f32 = lambda a: cx.const(np.asarray(a, np.float32))  # noqa: E731
    i64 = lambda a: cx.const(np.asarray(a, np.int64))    # noqa: E731
    # grids in [-1, 1]: 2 * loc - 1
    grids = cx.emit("Sub", [cx.emit("Mul", [loc, f32(2.0)]), f32(1.0)])
    sampled, start = [], 0
    for lid, (H, W) in enumerate(shapes.tolist()):
        # value_l: [N, H*W, M, D] -> [N*M, D, H, W]
        v_l = cx.emit("Gather", [value, i64(np.arange(start, start + H * W))], axis=1)
        start += H * W
        v_l = cx.emit("Transpose", [v_l], perm=[0, 2, 3, 1])                  # N, M, D, HW
        v_l = cx.emit("Reshape", [v_l, i64([N * M, D, H, W])])
        # grid_l: [N, Lq, M, P, 2] -> [N, M, Lq, P, 2] -> [N*M, Lq, P, 2]
        g_l = cx.emit("Gather", [grids, i64(lid)], axis=3)
        g_l = cx.emit("Transpose", [g_l], perm=[0, 2, 1, 3, 4])
        g_l = cx.emit("Reshape", [g_l, i64([N * M, Lq, P, 2])])
        sampled.append(cx.emit("GridSample", [v_l, g_l], mode="linear", padding_mode="zeros",
                               align_corners=0, version=20))                  # N*M, D, Lq, P
    cat = sampled[0] if L == 1 else cx.emit("Concat", sampled, axis=3)       # N*M, D, Lq, L*P
    cat = cx.emit("Transpose", [cat], perm=[0, 2, 1, 3])                      # N*M, Lq, D, L*P
    w = cx.emit("Transpose", [attn], perm=[0, 2, 1, 3, 4])                    # N, M, Lq, L, P
    w = cx.emit("Reshape", [w, i64([N * M, Lq, L * P, 1])])
    out = cx.emit("MatMul", [cat, w])                                         # N*M, Lq, D, 1
    out = cx.emit("Reshape", [out, i64([N, M, Lq, D])])
    out = cx.emit("Transpose", [out], perm=[0, 2, 1, 3])                      # N, Lq, M, D
    cx.bind(0, cx.emit("Reshape", [out, i64([N, Lq, M * D])]))


def lower_custom(cx, node):
    """One node of the caller's domain: mmcv::MSDeformAttn(value, shapes, locations, weights)."""
    cx.bind(0, cx.emit(OP, [cx.arg_value(i) for i in range(4)], domain=DOMAIN))


def shape_fn(sx):
    """[N, Lq, M*D] of the value's dtype."""
    value, loc = sx.input_shape(0), sx.input_shape(2)
    if value is None or loc is None:
        sx.set_output(0, sx.input_dtype(0), None)
        return
    N, _, M, D = value
    md = M * D if isinstance(M, int) and isinstance(D, int) else None
    sx.set_output(0, sx.input_dtype(0), [N, loc[1], md])


def register_onnx(reg, since=OPSET_MIN):
    reg.add(DOMAIN, OP, lower_onnx, since=since)


def register_custom(reg, since=7, version=1):
    reg.add(DOMAIN, OP, lower_custom, since=since)
    reg.add_shape_fn(DOMAIN, OP, shape_fn)
    reg.set_domain_version(DOMAIN, version)
