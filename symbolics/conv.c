/* onnxlegal — convolutions and their relatives: _convolution, convolution, conv1d/2d/3d (padding
 * as ints or 'same'/'valid'), conv_transpose1d/2d/3d, pixel_shuffle, pixel_unshuffle, im2col,
 * col2im.
 * Arguments as in PyTorch 1.13's schemas. */
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_nn.h"
#include "emit_src.h"
#include "symbolics.h"


/* ------------------------------------------------------------------------------------------ */
/* Convolutions */

typedef struct conv_args {
  int n;                                        /* spatial axes */
  int64_t stride[OLG_MAX_SPATIAL], dil[OLG_MAX_SPATIAL], out_pad[OLG_MAX_SPATIAL];
  int64_t pads[2 * OLG_MAX_SPATIAL];            /* ONNX layout: begins, then ends */
  int64_t groups;
  bool transposed;
} conv_args;

static const int64_t ONES[OLG_MAX_SPATIAL] = {1, 1, 1};
static const int64_t ZEROS[OLG_MAX_SPATIAL] = {0, 0, 0};

/* The spatial count from the weight ([out, in/groups, k...]), whose rank must be known. */
static olg_status weight_spatial(olg_lower *cx, olg_value w, int *n) {
  int32_t r = olg__rank(cx, w);
  if (r < 3 || r > OLG_MAX_SPATIAL + 2)
    return olg__errf(cx, OLG_ERR_INVALID_ARG,
                     "the weight must have rank 3, 4 or 5 ([out, in/groups, kernel...]), not %d", r);
  *n = r - 2;
  return OLG_OK;
}

static olg_status emit_conv(olg_lower *cx, olg_value x, olg_value w, olg_value b,
                            const conv_args *a, olg_value *y) {
  const char *op = a->transposed ? "ConvTranspose" : "Conv";
  olg_value xb, yb;
  bool unbatched;
  OLG_TRY(olg__batch_in(cx, x, a->n, a->transposed ? "conv_transpose" : "convolution", &xb,
                        &unbatched));
  int64_t k[OLG_MAX_SPATIAL];
  bool k_known = true;
  for (int i = 0; i < a->n; i++) k_known = k_known && (k[i] = olg__dim(cx, w, i + 2)) > 0;
  bool any_out_pad = false;
  for (int i = 0; i < a->n; i++) any_out_pad = any_out_pad || a->out_pad[i] != 0;
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, xb));
  OLG_TRY(olg_lower_emit_input(cx, nd, w));
  if (b != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, b));
  if (k_known) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "kernel_shape", k, (size_t)a->n));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "strides", a->stride, (size_t)a->n));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", a->pads, 2 * (size_t)a->n));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "dilations", a->dil, (size_t)a->n));
  if (a->groups != 1) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "group", a->groups));
  if (a->transposed && any_out_pad)
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "output_padding", a->out_pad, (size_t)a->n));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &yb));
  return olg__batch_out(cx, yb, unbatched, y);
}

/* Padding as int[] (both sides) or PyTorch's strings: 'valid' (none) and 'same' (total
 * dilation*(kernel-1), the odd one at the end, as PyTorch pads). */
static olg_status conv_padding(olg_lower *cx, size_t i, olg_value w, conv_args *a) {
  if (olg_lower_arg_kind(cx, i) == OLG_ARGKIND_STRING) {
    const char *s;
    OLG_TRY(olg_lower_arg_string(cx, i, &s));
    for (int j = 0; j < a->n; j++) {
      int64_t pb = 0, pe = 0;
      if (strcmp(s, "same") == 0) {
        int64_t k = olg__dim(cx, w, j + 2);
        if (k < 0)
          return olg_lower_error(cx, OLG_ERR_UNSUPPORTED,
                                 "padding='same' with a kernel size unknown at export time");
        int64_t total;
        if (k == 0 || a->dil[j] <= 0 || __builtin_mul_overflow(a->dil[j], k - 1, &total))
          return olg__errf(cx, OLG_ERR_INVALID_ARG, "padding='same': dilation %lld times kernel "
                           "size %lld - 1 is out of range", (long long)a->dil[j], (long long)k);
        pb = total / 2;
        pe = total - pb;
      } else if (strcmp(s, "valid") != 0) {
        return olg__errf(cx, OLG_ERR_INVALID_ARG, "padding '%s' is neither 'same' nor 'valid'", s);
      }
      a->pads[j] = pb;
      a->pads[j + a->n] = pe;
    }
    return OLG_OK;
  }
  int64_t p[OLG_MAX_SPATIAL];
  OLG_TRY(olg__spatial_arg(cx, i, a->n, ZEROS, "padding", p));
  for (int j = 0; j < a->n; j++) {
    if (p[j] < 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "negative padding");
    a->pads[j] = a->pads[j + a->n] = p[j];
  }
  return OLG_OK;
}

/* aten::conv1d/conv2d/conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[N] stride=1,
 * int[N] padding=0 | str padding="valid", int[N] dilation=1, int groups=1),
 * aten::_convolution_mode(input, weight, bias, int[] stride, str padding, int[] dilation,
 * int groups) */
olg_status olg__sym_conv(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, b, y;
  conv_args a = {0};
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &b));
  OLG_TRY(weight_spatial(cx, w, &a.n));
  OLG_TRY(olg__spatial_arg(cx, 3, a.n, ONES, "stride", a.stride));
  OLG_TRY(olg__spatial_arg(cx, 5, a.n, ONES, "dilation", a.dil));
  OLG_TRY(conv_padding(cx, 4, w, &a));
  OLG_TRY(olg__arg_int_or(cx, 6, 1, &a.groups));
  OLG_TRY(emit_conv(cx, x, w, b, &a, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::conv_transpose1d/2d/3d(Tensor input, Tensor weight, Tensor? bias=None, int[N] stride=1,
 * int[N] padding=0, int[N] output_padding=0, int groups=1, int[N] dilation=1) */
olg_status olg__sym_conv_transpose(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, b, y;
  conv_args a = {0};
  a.transposed = true;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &b));
  OLG_TRY(weight_spatial(cx, w, &a.n));
  OLG_TRY(olg__spatial_arg(cx, 3, a.n, ONES, "stride", a.stride));
  OLG_TRY(olg__spatial_arg(cx, 5, a.n, ZEROS, "output_padding", a.out_pad));
  OLG_TRY(olg__arg_int_or(cx, 6, 1, &a.groups));
  OLG_TRY(olg__spatial_arg(cx, 7, a.n, ONES, "dilation", a.dil));
  OLG_TRY(conv_padding(cx, 4, w, &a));
  OLG_TRY(emit_conv(cx, x, w, b, &a, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::_convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
 * int[] dilation, bool transposed, int[] output_padding, int groups, bool benchmark,
 * bool deterministic, bool cudnn_enabled[, bool allow_tf32]),
 * aten::convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
 * groups) */
olg_status olg__sym_convolution(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, b, y;
  conv_args a = {0};
  int transposed;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &b));
  OLG_TRY(weight_spatial(cx, w, &a.n));
  OLG_TRY(olg__spatial_arg(cx, 3, a.n, ONES, "stride", a.stride));
  OLG_TRY(olg__spatial_arg(cx, 5, a.n, ONES, "dilation", a.dil));
  OLG_TRY(conv_padding(cx, 4, w, &a));
  OLG_TRY(olg__arg_bool_or(cx, 6, 0, &transposed));
  a.transposed = transposed != 0;
  if (a.transposed) OLG_TRY(olg__spatial_arg(cx, 7, a.n, ZEROS, "output_padding", a.out_pad));
  OLG_TRY(olg__arg_int_or(cx, 8, 1, &a.groups));
  OLG_TRY(emit_conv(cx, x, w, b, &a, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* pixel_shuffle / pixel_unshuffle: a Reshape, a Transpose, a Reshape. Shapes are built from the
 * input's dims (constants when known, Shape arithmetic otherwise), so dynamic dims work. */

/* Reshapes x to the concatenation of the 1-D int64 pieces. */
static olg_status reshape_pieces(olg_lower *cx, olg_value x, const olg_value *pieces, size_t n,
                                 olg_value *out) {
  olg_value shape;
  OLG_TRY(olg__concat_ints(cx, pieces, n, &shape));
  return olg__emit_reshape(cx, x, shape, out);
}

/* unshuffle 0: [*, C*r*r, H, W] -> [*, C, H*r, W*r] (DepthToSpace's CRD order, which the
 * target's DepthToSpace takes as mode CRD where it has one); unshuffle 1: the inverse. The one
 * emitter of aten pixel_shuffle/pixel_unshuffle and ONNX DepthToSpace in mode CRD. */
static olg_status emit_pixel_rearrange(olg_lower *cx, olg_value x, int64_t r, bool unshuffle,
                                       const char *name, olg_value *out) {
  bool has_crd = !unshuffle && olg__target_has_attr(cx, "DepthToSpace", "mode");
  if (r <= 0) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: the factor must be > 0", name);
  int32_t rank = olg__rank(cx, x);
  if (rank < 3 || rank > OLG_MAX_RANK - 2)
    return olg__errf(cx, rank < 0 ? OLG_ERR_UNSUPPORTED : OLG_ERR_INVALID_ARG,
                     "%s needs an input of rank >= 3 with the rank known (rank %d)", name, rank);
  int64_t lb = rank - 3; /* leading (batch) dims, kept as they are */
  olg_dtype dt = olg__dtype(cx, x);
  if (!unshuffle && rank == 4 && has_crd && (dt == OLG_FLOAT || dt == OLG_DOUBLE)) {
    /* DepthToSpace's CRD order is pixel_shuffle's (ONNX Runtime runs it on float and double
       only; a Reshape/Transpose moves any type) */
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "DepthToSpace", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "blocksize", r));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", "CRD"));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  olg_value p[OLG_MAX_RANK], rv, t;
  size_t np = 0;
  OLG_TRY(olg__const_i64s(cx, &r, 1, &rv));
  if (lb) OLG_TRY(olg__shape_range(cx, x, 0, lb, &p[np++]));
  int64_t perm[OLG_MAX_RANK];
  for (int64_t i = 0; i < lb; i++) perm[i] = i;
  if (!unshuffle) {
    /* [*, C, r, r, H, W] -> [*, C, H, r, W, r] */
    OLG_TRY(olg__dim_scaled(cx, x, lb, 1, r * r, &p[np++]));
    p[np++] = rv;
    p[np++] = rv;
    OLG_TRY(olg__dim_scaled(cx, x, lb + 1, 1, 1, &p[np++]));
    OLG_TRY(olg__dim_scaled(cx, x, lb + 2, 1, 1, &p[np++]));
    const int64_t tail[5] = {0, 3, 1, 4, 2};
    for (int i = 0; i < 5; i++) perm[lb + i] = lb + tail[i];
  } else {
    /* [*, C, H, r, W, r] -> [*, C, r, r, H, W] */
    OLG_TRY(olg__dim_scaled(cx, x, lb, 1, 1, &p[np++]));
    OLG_TRY(olg__dim_scaled(cx, x, lb + 1, 1, r, &p[np++]));
    p[np++] = rv;
    OLG_TRY(olg__dim_scaled(cx, x, lb + 2, 1, r, &p[np++]));
    p[np++] = rv;
    const int64_t tail[5] = {0, 2, 4, 1, 3};
    for (int i = 0; i < 5; i++) perm[lb + i] = lb + tail[i];
  }
  OLG_TRY(reshape_pieces(cx, x, p, np, &t));
  OLG_TRY(olg__emit_transpose(cx, t, perm, (size_t)lb + 5, &t));
  np = lb ? 1 : 0;
  if (!unshuffle) {
    OLG_TRY(olg__dim_scaled(cx, x, lb, 1, r * r, &p[np++]));
    OLG_TRY(olg__dim_scaled(cx, x, lb + 1, r, 1, &p[np++]));
    OLG_TRY(olg__dim_scaled(cx, x, lb + 2, r, 1, &p[np++]));
  } else {
    OLG_TRY(olg__dim_scaled(cx, x, lb, r * r, 1, &p[np++]));
    OLG_TRY(olg__dim_scaled(cx, x, lb + 1, 1, r, &p[np++]));
    OLG_TRY(olg__dim_scaled(cx, x, lb + 2, 1, r, &p[np++]));
  }
  return reshape_pieces(cx, t, p, np, out);
}

static olg_status pixel_rearrange(olg_lower *cx, bool unshuffle) {
  olg_value x, y;
  int64_t r;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_int(cx, 1, &r));
  OLG_TRY(emit_pixel_rearrange(cx, x, r, unshuffle, unshuffle ? "pixel_unshuffle" : "pixel_shuffle",
                               &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::pixel_shuffle(Tensor self, int upscale_factor): DepthToSpace-11 (mode CRD) */
olg_status olg__sym_pixel_shuffle(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return pixel_rearrange(cx, false);
}

/* aten::pixel_unshuffle(Tensor self, int downscale_factor). SpaceToDepth orders the channels
 * blocks-first (DCR), PyTorch channels-first: hence Reshape/Transpose at every opset. */
olg_status olg__sym_pixel_unshuffle(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return pixel_rearrange(cx, true);
}

/* ONNX DepthToSpace (registered below 11): mode CRD (11) as pixel_shuffle; DCR, the only mode
 * before 11, as it is. */
olg_status olg__sym_onnx_depth_to_space(olg_lower *cx, olg_node_id src, void *ud) {
  if (strcmp(olg__src_attr_string(cx, "mode", "DCR"), "CRD") != 0)
    return olg__sym_onnx_passthrough(cx, src, ud);
  int64_t r = olg__src_attr_int(cx, "blocksize", 0);
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(emit_pixel_rearrange(cx, x, r, false, "DepthToSpace", &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* im2col / col2im (2 spatial axes). */

typedef struct fold_args {
  int64_t k[2], d[2], p[2], s[2];
} fold_args;

/* kernel_size, dilation, padding, stride from argument `first` on (both ops list them so). */
static olg_status fold_arguments(olg_lower *cx, size_t first, fold_args *f) {
  OLG_TRY(olg__spatial_arg(cx, first, 2, NULL, "kernel_size", f->k));
  OLG_TRY(olg__spatial_arg(cx, first + 1, 2, ONES, "dilation", f->d));
  OLG_TRY(olg__spatial_arg(cx, first + 2, 2, ZEROS, "padding", f->p));
  OLG_TRY(olg__spatial_arg(cx, first + 3, 2, ONES, "stride", f->s));
  for (int i = 0; i < 2; i++)
    if (f->k[i] <= 0 || f->d[i] <= 0 || f->s[i] <= 0 || f->p[i] < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG,
                             "kernel_size, dilation and stride must be > 0, padding >= 0");
  return OLG_OK;
}

/* Number of blocks along one axis of size `in`; -1 when the padded input is smaller than a
 * block or a step passes int64 (the arguments may be anything: checked as col2im's are). */
static int64_t fold_blocks(const fold_args *f, int i, int64_t in) {
  int64_t span, padded, num;
  if (__builtin_mul_overflow(f->d[i], f->k[i] - 1, &span) ||
      __builtin_mul_overflow(f->p[i], 2, &padded) || __builtin_add_overflow(padded, in, &padded) ||
      __builtin_sub_overflow(padded, span, &num) || __builtin_sub_overflow(num, 1, &num))
    return -1;
  return num < 0 ? -1 : num / f->s[i] + 1;
}

/* aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding,
 * int[2] stride): [N, C, H, W] -> [N, C*kh*kw, L]. Gathers copy the values (no arithmetic): a
 * Pad, one Gather per spatial axis with the [kernel, blocks] index grid, a Transpose and a
 * Reshape. Needs H and W known at export time. */
olg_status olg__sym_im2col(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, xb, y;
  bool unbatched;
  fold_args f;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(fold_arguments(cx, 1, &f));
  OLG_TRY(olg__batch_in(cx, x, 2, "im2col", &xb, &unbatched));
  int64_t in[2], out[2];
  for (int i = 0; i < 2; i++) {
    in[i] = olg__dim(cx, xb, i + 2);
    if (in[i] < 0)
      return olg_lower_unsupported(cx, "im2col of an input whose height or width is not known at "
                                       "export time", -1);
    out[i] = fold_blocks(&f, i, in[i]);
    if (out[i] <= 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "im2col: the input is smaller than a block, "
                                                      "or the sizes overflow int64");
  }
  olg_value t = xb;
  if (f.p[0] || f.p[1]) {
    const int64_t pads[8] = {0, 0, f.p[0], f.p[1], 0, 0, f.p[0], f.p[1]};
    OLG_TRY(olg__emit_pad(cx, xb, "constant", pads, 8, 0.0, &t));
  }
  for (int i = 0; i < 2; i++) {
    int64_t n;
    if (__builtin_mul_overflow(f.k[i], out[i], &n) || n > (int64_t)1 << 24)
      return olg__errf(cx, OLG_ERR_LIMIT, "im2col: an index grid of %lld x %lld (past 2^24)",
                       (long long)f.k[i], (long long)out[i]);
    int64_t *idx = olg__lower_alloc(cx, (size_t)n * sizeof *idx);
    if (!idx) return OLG_ERR_NOMEM;
    for (int64_t a = 0; a < f.k[i]; a++)
      for (int64_t o = 0; o < out[i]; o++) idx[a * out[i] + o] = a * f.d[i] + o * f.s[i];
    int64_t dims[2] = {f.k[i], out[i]};
    olg_value iv;
    OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, dims, idx, (size_t)n * sizeof *idx, &iv));
    /* axis 2 (H) gives [N, C, kh, oh, W]; then axis 4 (W) gives [N, C, kh, oh, kw, ow] */
    OLG_TRY(olg__emit_gather(cx, t, iv, i == 0 ? 2 : 4, &t));
  }
  const int64_t perm[6] = {0, 1, 2, 4, 3, 5};
  OLG_TRY(olg__emit_transpose(cx, t, perm, 6, &t));
  const int64_t shape[3] = {0, -1, out[0] * out[1]};
  OLG_TRY(olg__emit_reshape_static(cx, t, shape, 3, &t));
  OLG_TRY(olg__batch_out(cx, t, unbatched, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* col2im, for aten::col2im and ONNX Col2Im: [N, C*prod(k), L] -> [N, C, size...] over n spatial
 * axes, overlapping blocks summed. Col2Im where the target's version takes the dtype (18);
 * below, a ConvTranspose with one-hot weights (group C): each block value lands, times 1, at
 * its place, and overlaps add, as in PyTorch. pads: begins, then ends (ONNX layout). */
typedef struct col2im_params {
  int n;
  int64_t size[OLG_MAX_SPATIAL], k[OLG_MAX_SPATIAL], d[OLG_MAX_SPATIAL], s[OLG_MAX_SPATIAL];
  int64_t pads[2 * OLG_MAX_SPATIAL];
} col2im_params;

static olg_status emit_col2im(olg_lower *cx, olg_value xb, const col2im_params *p, olg_value *out) {
  int n = p->n;
  int64_t blocks[OLG_MAX_SPATIAL], nblocks = 1, kk = 1;
  for (int i = 0; i < n; i++) {
    if (p->k[i] <= 0 || p->d[i] <= 0 || p->s[i] <= 0 || p->pads[i] < 0 || p->pads[i + n] < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "col2im: block, dilation and stride must be "
                                                      "> 0, pads >= 0");
    /* num = size + pads - d * (k - 1) - 1, and the products, in int64 or refused (a file's
       attributes and known inputs may be anything) */
    int64_t span, padded, num;
    if (__builtin_mul_overflow(p->d[i], p->k[i] - 1, &span) ||
        __builtin_add_overflow(p->size[i], p->pads[i], &padded) ||
        __builtin_add_overflow(padded, p->pads[i + n], &padded) ||
        __builtin_sub_overflow(padded, span, &num) || __builtin_sub_overflow(num, 1, &num))
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "col2im: the image, pads, block and "
                                                      "dilation overflow int64");
    if (num < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "col2im: the image is smaller than a block");
    blocks[i] = num / p->s[i] + 1;
    if (__builtin_mul_overflow(nblocks, blocks[i], &nblocks) || __builtin_mul_overflow(kk, p->k[i], &kk))
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "col2im: the block count overflows int64");
  }
  olg_dtype dt = olg__dtype(cx, xb);
  if (olg__op_takes(cx, "Col2Im", 0, dt)) {
    olg_value image, block;
    OLG_TRY(olg__const_i64s(cx, p->size, (size_t)n, &image));
    OLG_TRY(olg__const_i64s(cx, p->k, (size_t)n, &block));
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Col2Im", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xb));
    OLG_TRY(olg_lower_emit_input(cx, nd, image));
    OLG_TRY(olg_lower_emit_input(cx, nd, block));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "dilations", p->d, (size_t)n));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", p->pads, 2 * (size_t)n));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "strides", p->s, (size_t)n));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  int64_t ck = olg__dim(cx, xb, 1);
  if (ck < 0)
    return olg__unsupportedf(cx, 18, "col2im with a channel count not known at export time");
  if (ck % kk)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG,
                           "col2im: dim 1 is not a multiple of the block's size");
  int64_t c = ck / kk;
  int64_t l = olg__dim(cx, xb, 2);
  if (l >= 0 && l != nblocks)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "col2im: %lld blocks given, %lld expected",
                     (long long)l, (long long)nblocks);
  if (ck > ((int64_t)1 << 26) / kk) /* ck * kk, without overflowing */
    return olg_lower_error(cx, OLG_ERR_LIMIT, "col2im: the one-hot weights would be too large");
  OLG_TRY(olg_lower_decompose(cx, "col2im (as a ConvTranspose with one-hot weights)", 18));
  int64_t shape[2 + OLG_MAX_SPATIAL] = {0, 0};
  for (int i = 0; i < n; i++) shape[2 + i] = blocks[i];
  olg_value t;
  OLG_TRY(olg__emit_reshape_static(cx, xb, shape, 2 + (size_t)n, &t));
  size_t nw = (size_t)(ck * kk);
  double *wv = olg__lower_alloc(cx, nw * sizeof *wv);
  if (!wv) return OLG_ERR_NOMEM;
  memset(wv, 0, nw * sizeof *wv);
  for (int64_t ch = 0; ch < ck; ch++) wv[ch * kk + ch % kk] = 1.0; /* channel c*kk+j: tap j */
  int64_t wdims[2 + OLG_MAX_SPATIAL] = {ck, 1};
  for (int i = 0; i < n; i++) wdims[2 + i] = p->k[i];
  olg_value w;
  OLG_TRY(olg__const_real(cx, dt, 2 + n, wdims, wv, nw, &w));
  conv_args a = {0};
  a.n = n;
  a.transposed = true;
  a.groups = c;
  for (int i = 0; i < n; i++) {
    a.stride[i] = p->s[i];
    a.dil[i] = p->d[i];
    a.pads[i] = p->pads[i];
    a.pads[i + n] = p->pads[i + n];
    /* ConvTranspose gives s*(blocks-1) + d*(k-1) + 1 - pads; the rest of the image size is the
       output padding (< stride, as the block count is a floor) */
    a.out_pad[i] = p->size[i] - (p->s[i] * (blocks[i] - 1) + p->d[i] * (p->k[i] - 1) + 1 -
                                 p->pads[i] - p->pads[i + n]);
  }
  return emit_conv(cx, t, w, OLG_NO_VALUE, &a, out);
}

/* aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation,
 * int[2] padding, int[2] stride) */
olg_status olg__sym_col2im(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, xb, y;
  bool unbatched;
  fold_args f;
  col2im_params p = {.n = 2};
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__spatial_arg(cx, 1, 2, NULL, "output_size", p.size));
  OLG_TRY(fold_arguments(cx, 2, &f));
  OLG_TRY(olg__batch_in(cx, x, 1, "col2im", &xb, &unbatched));
  for (int i = 0; i < 2; i++) {
    p.k[i] = f.k[i];
    p.d[i] = f.d[i];
    p.s[i] = f.s[i];
    p.pads[i] = p.pads[i + 2] = f.p[i];
  }
  OLG_TRY(emit_col2im(cx, xb, &p, &y));
  OLG_TRY(olg__batch_out(cx, y, unbatched, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX Col2Im (18): image_shape and block_shape constant inputs; dilations, pads, strides */
olg_status olg__sym_onnx_col2im(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, iv, bv, y;
  const int64_t *img, *blk;
  size_t ni, nb;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &iv));
  OLG_TRY(olg_lower_arg_value(cx, 2, &bv));
  if (!olg__known_ints(cx, iv, &img, &ni) || !olg__known_ints(cx, bv, &blk, &nb))
    return olg__unsupportedf(cx, 18, "Col2Im with image_shape or block_shape computed at run time");
  if (ni != nb || ni == 0 || ni > OLG_MAX_SPATIAL)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "Col2Im: image_shape has %zu values and "
                     "block_shape %zu (1 to %d, the same)", ni, nb, OLG_MAX_SPATIAL);
  col2im_params p = {.n = (int)ni};
  memcpy(p.size, img, ni * sizeof *img);
  memcpy(p.k, blk, nb * sizeof *blk);
  const int64_t *v;
  size_t n;
  for (size_t i = 0; i < ni; i++) p.d[i] = p.s[i] = 1;
  if (olg__src_attr_ints(cx, "dilations", &v, &n)) {
    if (n != ni) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Col2Im: dilations has the wrong length");
    memcpy(p.d, v, n * sizeof *v);
  }
  if (olg__src_attr_ints(cx, "strides", &v, &n)) {
    if (n != ni) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Col2Im: strides has the wrong length");
    memcpy(p.s, v, n * sizeof *v);
  }
  if (olg__src_attr_ints(cx, "pads", &v, &n)) {
    if (n != 2 * ni) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Col2Im: pads has the wrong length");
    memcpy(p.pads, v, n * sizeof *v);
  }
  OLG_TRY(emit_col2im(cx, x, &p, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX DeformConv (19), before 19: 2-D, decomposed (emit_deform.c) */
olg_status olg__sym_onnx_deform_conv(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, off, b, mask, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg_lower_arg_value(cx, 2, &off));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &b));
  OLG_TRY(olg__arg_value_or_none(cx, 4, &mask));
  olg_deform_conv p = {.kernel = {olg__dim(cx, w, 2), olg__dim(cx, w, 3)}, .strides = {1, 1},
                       .dilations = {1, 1}, .pads = {0, 0, 0, 0},
                       .group = olg__src_attr_int(cx, "group", 1),
                       .offset_group = olg__src_attr_int(cx, "offset_group", 1)};
  static const char *const names[4] = {"kernel_shape", "strides", "dilations", "pads"};
  int64_t *into[4] = {p.kernel, p.strides, p.dilations, p.pads};
  for (int i = 0; i < 4; i++) {
    const int64_t *v;
    size_t n;
    if (!olg__src_attr_ints(cx, names[i], &v, &n)) continue;
    if (n != (i == 3 ? 4u : 2u))
      return olg__unsupportedf(cx, 19, "DeformConv with %s of %zu values (the decomposition takes 2 spatial axes)",
                               names[i], n);
    memcpy(into[i], v, n * sizeof *v);
  }
  OLG_TRY(olg__emit_deform_conv(cx, x, w, off, b, mask, &p, &y));
  return olg_lower_bind_output(cx, 0, y);
}
