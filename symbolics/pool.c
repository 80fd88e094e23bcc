/* onnxlegal — pooling: max_pool1d/2d/3d (with indices), avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d
 * and adaptive_max_pool1d/2d/3d of any output size. Arguments as in PyTorch 1.13's schemas.
 *
 * PyTorch's window rules (aten/src/ATen/native/Pool.h, AvgPoolKernel):
 *   out = (in + 2p - d(k-1) - 1 [+ s-1 with ceil_mode]) / s + 1, and with ceil_mode a last
 *   window that would start in the end padding is dropped;
 *   avg divisor: divisor_override, else (count_include_pad) the window clipped to the padded
 *   input, else the window clipped to the input.
 * ceil_mode is expressed without the ceil_mode attribute wherever the sizes are known: extra
 * end padding makes the floor rule give PyTorch's size (MaxPool ignores padding; AveragePool with
 * count_include_pad=0 divides by the clipped count, and a constant factor fixes the divisor where
 * PyTorch's differs). That is exact at every opset and whatever a runtime does at the edges. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_nn.h"
#include "emit_src.h"
#include "symbolics.h"
#include "../lib/lower.h"


static const int64_t ONES[OLG_MAX_SPATIAL] = {1, 1, 1};
static const int64_t ZEROS[OLG_MAX_SPATIAL] = {0, 0, 0};
#define ADAPTIVE_OUT_MAX ((int64_t)1 << 20)
#define ADAPTIVE_IN_MAX ((int64_t)1 << 20)

/* PyTorch's pooling output size; -1 when the padded input is smaller than the window. */
static int64_t torch_pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  int64_t num = in + 2 * p - d * (k - 1) - 1;
  if (num < 0) return -1;
  int64_t o = (ceil ? (num + s - 1) / s : num / s) + 1;
  if (ceil && (o - 1) * s >= in + p) o--;
  return o;
}

typedef struct pool_args {
  int n;
  int64_t k[OLG_MAX_SPATIAL], s[OLG_MAX_SPATIAL], p[OLG_MAX_SPATIAL], d[OLG_MAX_SPATIAL];
  int64_t in[OLG_MAX_SPATIAL];   /* spatial input sizes, -1 when unknown */
  int64_t out[OLG_MAX_SPATIAL];  /* PyTorch's output sizes (when in is known) */
  int64_t end[OLG_MAX_SPATIAL];  /* end padding that gives out with the floor rule */
  bool dynamic;                  /* some spatial size unknown */
  bool ceil_effective;           /* ceil_mode changes some output size (or might: dynamic) */
  bool end_over_kernel;          /* some end padding is >= the kernel (ONNX Runtime refuses) */
} pool_args;

/* kernel_size (arg i), stride (i+1; empty: the kernel), padding (i+2), dilation (dil_arg, or
 * none when < 0) and the sizes that follow for input xb. */
/* What the target offers the pools, asked of its schema: MaxPool's Indices output (8); MaxPool's
 * dilations and ceil_mode, or AveragePool's ceil_mode (10), for the op asked. */
typedef struct pool_caps {
  bool indices, dil_ceil;
} pool_caps;

static bool maxpool_has_indices(const olg_lower *cx) {
  const olg_schema *s = olg__target_schema(cx, "MaxPool");
  for (int i = 0; s && i < s->n_outputs; i++)
    if (!strcmp(s->outputs[i].name, "Indices")) return true;
  return false;
}

static pool_caps target_caps(const olg_lower *cx, const char *op) {
  bool dil = strcmp(op, "MaxPool") != 0 || olg__target_has_attr(cx, op, "dilations");
  return (pool_caps){maxpool_has_indices(cx), dil && olg__target_has_attr(cx, op, "ceil_mode")};
}

static olg_status pool_arguments(olg_lower *cx, olg_value xb, size_t i, int dil_arg, bool ceil,
                                 pool_args *a) {
  OLG_TRY(olg__spatial_arg(cx, i, a->n, NULL, "kernel_size", a->k));
  OLG_TRY(olg__spatial_arg(cx, i + 1, a->n, a->k, "stride", a->s));
  OLG_TRY(olg__spatial_arg(cx, i + 2, a->n, ZEROS, "padding", a->p));
  if (dil_arg >= 0) OLG_TRY(olg__spatial_arg(cx, (size_t)dil_arg, a->n, ONES, "dilation", a->d));
  else memcpy(a->d, ONES, sizeof a->d);
  a->dynamic = a->ceil_effective = a->end_over_kernel = false;
  for (int j = 0; j < a->n; j++) {
    if (a->k[j] <= 0 || a->s[j] <= 0 || a->d[j] <= 0 || a->p[j] < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG,
                             "kernel_size, stride and dilation must be > 0, padding >= 0");
    if (a->k[j] > OLG_POOL_ARG_MAX || a->s[j] > OLG_POOL_ARG_MAX || a->d[j] > OLG_POOL_ARG_MAX ||
        a->p[j] > OLG_POOL_ARG_MAX || olg__dim(cx, xb, j + 2) > OLG_POOL_IN_MAX)
      return olg_lower_error(cx, OLG_ERR_LIMIT, "kernel_size, stride, dilation or padding past "
                                                "2^31, or an input dim past 2^40");
    if (2 * a->p[j] > a->d[j] * (a->k[j] - 1) + 1)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG,
                             "padding must be at most half of the (dilated) kernel size");
    a->in[j] = olg__dim(cx, xb, j + 2);
    a->end[j] = a->p[j];
    if (a->in[j] < 0) {
      a->dynamic = true;
      a->ceil_effective = a->ceil_effective || ceil;
      continue;
    }
    a->out[j] = torch_pool_out(a->in[j], a->k[j], a->s[j], a->p[j], a->d[j], ceil);
    if (a->out[j] <= 0)
      return olg__errf(cx, OLG_ERR_INVALID_ARG,
                       "spatial axis %d: the input (%lld) is smaller than the window", j,
                       (long long)a->in[j]);
    if (ceil && a->out[j] != torch_pool_out(a->in[j], a->k[j], a->s[j], a->p[j], a->d[j], false)) {
      a->ceil_effective = true;
      a->end[j] = (a->out[j] - 1) * a->s[j] + a->d[j] * (a->k[j] - 1) + 1 - a->in[j] - a->p[j];
      a->end_over_kernel = a->end_over_kernel || a->end[j] >= a->k[j];
    }
  }
  return OLG_OK;
}

/* Emits AveragePool or MaxPool on xb; pads = begins p, ends `end`. n_out 2 asks MaxPool's
 * Indices. */
static olg_status emit_pool(olg_lower *cx, const char *op, olg_value xb, const pool_args *a,
                            const int64_t *end, int ceil_attr, int count_include_pad,
                            size_t n_out, olg_value *outs) {
  int64_t pads[2 * OLG_MAX_SPATIAL];
  bool any_pad = false, any_dil = false;
  for (int j = 0; j < a->n; j++) {
    pads[j] = a->p[j];
    pads[j + a->n] = end[j];
    any_pad = any_pad || a->p[j] || end[j];
    any_dil = any_dil || a->d[j] != 1;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, xb));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "kernel_shape", a->k, (size_t)a->n));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "strides", a->s, (size_t)a->n));
  if (any_pad) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", pads, 2 * (size_t)a->n));
  if (any_dil) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "dilations", a->d, (size_t)a->n));
  if (ceil_attr) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "ceil_mode", 1));
  if (count_include_pad && any_pad) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "count_include_pad", 1));
  return olg_lower_emit_end(cx, nd, n_out, outs);
}

/* MaxPool's Indices count over the whole tensor (((n*C + c)*H + h)*W + w); PyTorch's over one
 * plane (h*W + w): idx - (idx / P) * P with P the plane size (integer Div exists at every opset;
 * Mod only from 10). */
static olg_status plane_indices(olg_lower *cx, olg_value xb, int n, olg_value idx,
                                olg_value *out) {
  int64_t plane = 1;
  bool known = true;
  for (int j = 0; j < n; j++) {
    int64_t d = olg__dim(cx, xb, j + 2);
    known = known && d >= 0;
    plane *= d >= 0 ? d : 1;
  }
  olg_value pv, q;
  if (known) {
    OLG_TRY(olg__const_i64(cx, plane, &pv));
  } else {
    OLG_TRY(olg__shape_range(cx, xb, 2, 2 + n, &pv));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_PROD, pv, NULL, 0, 0, &pv));
  }
  OLG_TRY(olg__emit2(cx, "Div", idx, pv, &q));
  OLG_TRY(olg__emit2(cx, "Mul", q, pv, &q));
  return olg__emit2(cx, "Sub", idx, q, out);
}

/* Splits the int64 tensor `flat`, a row-major index into a box of sizes box[0..n), into its
 * coordinates and returns sum_j coord_j * weight_j (+ base, a tensor or OLG_NO_VALUE), with
 * integer Div/Mul/Sub (every opset has them for int64). */
static olg_status weigh_coords(olg_lower *cx, olg_value flat, const int64_t *box,
                               const int64_t *weight, int n, olg_value base, olg_value *out) {
  olg_value acc = base, rem = flat, v;
  for (int j = n - 1; j >= 0; j--) {
    if (box[j] == 1) continue; /* the coordinate is 0 */
    olg_value r = rem;
    if (j > 0) { /* r = rem mod box_j; rem = rem / box_j */
      olg_value bv, q, qb;
      OLG_TRY(olg__const_i64(cx, box[j], &bv));
      OLG_TRY(olg__emit2(cx, "Div", rem, bv, &q));
      OLG_TRY(olg__emit2(cx, "Mul", q, bv, &qb));
      OLG_TRY(olg__emit2(cx, "Sub", rem, qb, &r));
      rem = q;
    }
    if (weight[j] != 1) {
      OLG_TRY(olg__const_i64(cx, weight[j], &v));
      OLG_TRY(olg__emit2(cx, "Mul", r, v, &r));
    }
    if (acc == OLG_NO_VALUE) acc = r;
    else OLG_TRY(olg__emit2(cx, "Add", acc, r, &acc));
  }
  if (acc == OLG_NO_VALUE) OLG_TRY(olg__emit2(cx, "Sub", flat, flat, &acc)); /* all zero */
  *out = acc;
  return OLG_OK;
}

/* Max pooling of any dilation and ceil_mode without MaxPool's newer attributes or Indices:
 * Pad with -inf, gather every window with one Gather per spatial axis and its [kernel, out]
 * index grid ([N, C, k0, o0, k1, o1, ...]), ReduceMax over the kernel axes. The indices: ArgMax
 * over the flattened window (the first maximum in PyTorch's scan order) turned into a plane
 * index. Needs the spatial sizes known. */
static olg_status gather_max_pool(olg_lower *cx, olg_value xb, const pool_args *a, bool want_idx,
                                  olg_value *values, olg_value *indices) {
  int n = a->n;
  olg_value t = xb;
  int64_t pads[2 * (2 + OLG_MAX_SPATIAL)] = {0};
  bool any_pad = false;
  for (int j = 0; j < n; j++) {
    pads[2 + j] = a->p[j];
    pads[2 + n + 2 + j] = a->end[j];
    any_pad = any_pad || a->p[j] || a->end[j];
  }
  if (any_pad) OLG_TRY(olg__emit_pad(cx, xb, "constant", pads, 2 * (size_t)(n + 2), -INFINITY, &t));
  int64_t kaxes[OLG_MAX_SPATIAL];
  for (int j = 0; j < n; j++) {
    size_t cnt = (size_t)(a->k[j] * a->out[j]);
    int64_t *grid = olg__lower_alloc(cx, cnt * sizeof *grid);
    if (!grid) return OLG_ERR_NOMEM;
    for (int64_t q = 0; q < a->k[j]; q++)
      for (int64_t o = 0; o < a->out[j]; o++) grid[q * a->out[j] + o] = o * a->s[j] + q * a->d[j];
    olg_value gv;
    OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, (const int64_t[]){a->k[j], a->out[j]}, grid,
                                   cnt * sizeof *grid, &gv));
    kaxes[j] = 2 + 2 * j;
    OLG_TRY(olg__emit_gather(cx, t, gv, kaxes[j], &t));
  }
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, t, kaxes, (size_t)n, 0, values));
  if (!want_idx) return OLG_OK;
  /* [N, C, k0, o0, k1, o1, ...] -> [N, C, o0, o1, ..., k0*k1*...] */
  int64_t perm[2 + 2 * OLG_MAX_SPATIAL] = {0, 1}, shape[3 + OLG_MAX_SPATIAL] = {0, 0};
  for (int j = 0; j < n; j++) {
    perm[2 + j] = 3 + 2 * j;
    perm[2 + n + j] = 2 + 2 * j;
    shape[2 + j] = a->out[j];
  }
  shape[2 + n] = -1;
  olg_value local;
  OLG_TRY(olg__emit_transpose(cx, t, perm, 2 + 2 * (size_t)n, &t));
  OLG_TRY(olg__emit_reshape_static(cx, t, shape, 3 + (size_t)n, &t));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "ArgMax", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, t));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", 2 + n));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", 0));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &local));
  /* plane index = sum_j (o_j*s_j - p_j + q_j*d_j) * stride_j: a constant over the outputs plus
     the window offset's part */
  int64_t stride[OLG_MAX_SPATIAL], weight[OLG_MAX_SPATIAL];
  stride[n - 1] = 1;
  for (int j = n - 2; j >= 0; j--) stride[j] = stride[j + 1] * a->in[j + 1];
  size_t total = 1;
  for (int j = 0; j < n; j++) {
    total *= (size_t)a->out[j];
    weight[j] = a->d[j] * stride[j];
  }
  int64_t *base = olg__lower_alloc(cx, total * sizeof *base);
  if (!base) return OLG_ERR_NOMEM;
  for (size_t e = 0; e < total; e++) {
    size_t rest = e;
    for (int j = n - 1; j >= 0; j--) {
      int64_t o = (int64_t)(rest % (size_t)a->out[j]);
      rest /= (size_t)a->out[j];
      base[e] += (o * a->s[j] - a->p[j]) * stride[j];
    }
  }
  olg_value bv;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, n, a->out, base, total * sizeof *base, &bv));
  return weigh_coords(cx, local, a->k, weight, n, bv, indices);
}

/* ONNX MaxPool below 10, where dilations and ceil_mode arrived: as it is without them; ceil_mode
 * as extra end padding under the floor rule (a last window may start past the input only if it
 * starts before the end padding, as ONNX Runtime counts; MaxPool never picks padding) where the
 * runtime takes such pads (below the kernel); dilations, or pads it would refuse, by gathered
 * windows as aten max_pool's. Gathered windows give a plane index, ONNX's Indices count over the
 * whole tensor: Indices with dilations are refused naming 10. Needs the spatial sizes. 8-bit
 * integers (MaxPool-12) are pooled in float, which holds them exactly. */
olg_status olg__sym_onnx_max_pool(olg_lower *cx, olg_node_id src, void *ud) {
  olg_src_pool pa;
  OLG_TRY(olg__src_pool_attrs(cx, &pa));
  const int64_t *k = pa.k, *s = pa.s, *p = pa.p, *d = pa.d;
  size_t nk = pa.nk, ns = pa.ns, np = pa.np, nd = pa.nd;
  bool ceil = olg__src_attr_int(cx, "ceil_mode", 0) != 0, dilated = false;
  for (size_t j = 0; j < nd; j++) dilated = dilated || d[j] != 1;
  olg_value x, outs[2];
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  bool widen = (t == OLG_INT8 || t == OLG_UINT8) && !olg__op_takes(cx, "MaxPool", 0, t);
  bool want_idx = olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1);
  if (want_idx && !maxpool_has_indices(cx)) return olg_lower_unsupported(cx, "MaxPool's Indices output", 8);
  if (widen) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &x));
  if (!ceil && !dilated) {
    if (!widen) return olg__sym_onnx_passthrough(cx, src, ud);
    const olg_node *nd = olg__src_node(cx);
    olg_node_id n;
    OLG_TRY(olg_lower_emit_begin(cx, "", "MaxPool", &n));
    OLG_TRY(olg_lower_emit_input(cx, n, x));
    for (uint32_t i = 0; i < nd->n_attrs; i++)
      OLG_TRY(olg__node_add_attr(olg_lower_target(cx), n, &nd->attrs[i]));
    OLG_TRY(olg_lower_emit_end(cx, n, want_idx ? 2 : 1, outs));
    OLG_TRY(olg__emit_cast(cx, outs[0], t, &outs[0]));
    return olg__bind_outputs(cx, outs, want_idx ? 2 : 1);
  }
  const char *what = dilated ? "MaxPool with dilations" : "MaxPool with ceil_mode";
  const char *auto_pad = olg__src_attr_string(cx, "auto_pad", "NOTSET");
  bool valid = strcmp(auto_pad, "VALID") == 0;
  if (!valid && strcmp(auto_pad, "NOTSET") != 0)
    return olg__unsupportedf(cx, 10, "%s and auto_pad %s", what, auto_pad);
  pool_args a;
  a.n = (int)nk;
  bool over_kernel = false;
  for (size_t j = 0; j < nk; j++) {
    a.k[j] = k[j];
    a.s[j] = ns ? s[j] : 1;
    a.d[j] = nd ? d[j] : 1;
    a.p[j] = np && !valid ? p[j] : 0;
    int64_t pe = np && !valid ? p[j + nk] : 0, big = (int64_t)1 << 30;
    a.in[j] = olg__dim(cx, x, (int32_t)j + 2);
    if (a.in[j] < 0) return olg__unsupportedf(cx, 10, "%s of an input whose spatial size is not known", what);
    if (a.s[j] <= 0 || a.k[j] <= 0 || a.d[j] <= 0 || a.p[j] < 0 || pe < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "kernel_shape, strides and dilations must be > 0");
    if (a.s[j] > big || a.k[j] > big || a.d[j] > big || a.p[j] > big || pe > big || a.in[j] > big)
      return olg_lower_error(cx, OLG_ERR_LIMIT, "MaxPool: a kernel, stride, dilation, pad or size above 2^30");
    int64_t ke = a.d[j] * (a.k[j] - 1) + 1;
    int64_t num = a.in[j] + a.p[j] + pe - ke;
    if (num < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "the padded input is smaller than the window");
    a.out[j] = (ceil ? (num + a.s[j] - 1) / a.s[j] : num / a.s[j]) + 1;
    if (ceil && (a.out[j] - 1) * a.s[j] >= a.in[j] + a.p[j]) a.out[j]--;
    int64_t need = (a.out[j] - 1) * a.s[j] + ke - a.in[j] - a.p[j];
    a.end[j] = need > pe ? need : pe;
    over_kernel = over_kernel || a.end[j] >= a.k[j] || a.p[j] >= a.k[j];
  }
  if (!dilated && !over_kernel) {
    olg_node_id n;
    int64_t pads[2 * OLG_MAX_SPATIAL];
    for (size_t j = 0; j < nk; j++) pads[j] = a.p[j], pads[j + nk] = a.end[j];
    OLG_TRY(olg_lower_emit_begin(cx, "", "MaxPool", &n));
    OLG_TRY(olg_lower_emit_input(cx, n, x));
    OLG_TRY(olg_lower_emit_attr_ints(cx, n, "kernel_shape", k, nk));
    OLG_TRY(olg_lower_emit_attr_ints(cx, n, "strides", a.s, nk));
    OLG_TRY(olg_lower_emit_attr_ints(cx, n, "pads", pads, 2 * nk));
    if (olg__src_attr_int(cx, "storage_order", 0)) OLG_TRY(olg_lower_emit_attr_int(cx, n, "storage_order", 1));
    OLG_TRY(olg_lower_emit_end(cx, n, want_idx ? 2 : 1, outs));
  } else {
    if (want_idx) return olg__unsupportedf(cx, 10, "%s and its Indices output", what);
    OLG_TRY(olg_lower_decompose(cx, "MaxPool by gathered windows", 10));
    OLG_TRY(gather_max_pool(cx, x, &a, false, &outs[0], &outs[1]));
  }
  OLG_TRY(olg__emit_cast(cx, outs[0], t, &outs[0]));
  return olg__bind_outputs(cx, outs, want_idx ? 2 : 1);
}

/* aten::max_pool1d/2d/3d(Tensor self, int[N] kernel_size, int[N] stride=[], int[N] padding=0,
 * int[N] dilation=1, bool ceil_mode=False) and max_pool*_with_indices (same arguments; a second
 * output, the per-plane flat indices). MaxPool where the target opset has what is asked
 * (Indices 8, dilations and ceil_mode 10); below that, with the spatial sizes known, the
 * gathered-windows decomposition. */
static olg_status max_pool(olg_lower *cx, pool_caps c) {
  olg_value x, xb, outs[2], res[2];
  bool unbatched;
  int ceil;
  pool_args a;
  a.n = olg__op_spatial_dims(cx);
  if (a.n < 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "max_pool: unknown spatial rank");
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__batch_in(cx, x, a.n, "max_pool", &xb, &unbatched));
  OLG_TRY(olg__arg_bool_or(cx, 5, 0, &ceil));
  OLG_TRY(pool_arguments(cx, xb, 1, 4, ceil != 0, &a));
  bool want_idx = olg_lower_output_count(cx) >= 2 && olg_lower_output_used(cx, 1);
  bool dilated = false;
  for (int j = 0; j < a.n; j++) dilated = dilated || a.d[j] != 1;
  /* the end padding of the floor rule stands for ceil_mode unless ONNX Runtime's pads < kernel
     forbids it; then MaxPool's own ceil_mode (10), which ONNX Runtime applies as PyTorch does */
  bool ceil_attr = a.ceil_effective && (a.dynamic || a.end_over_kernel);
  int need = want_idx && !c.indices ? 8 : (dilated || ceil_attr) && !c.dil_ceil ? 10 : 0;
  if (need) {
    const char *what = want_idx && !c.indices ? "max_pool with indices"
                       : dilated             ? "max_pool with dilation"
                                             : "max_pool with ceil_mode";
    if (a.dynamic)
      return olg__unsupportedf(cx, need, "%s on a spatial size unknown at export time", what);
    OLG_TRY(olg_lower_decompose(cx, "max_pool by gathered windows", need));
    OLG_TRY(gather_max_pool(cx, xb, &a, want_idx, &outs[0], &outs[1]));
  } else {
    OLG_TRY(emit_pool(cx, "MaxPool", xb, &a, ceil_attr ? a.p : a.end, ceil_attr, 0,
                      want_idx ? 2 : 1, outs));
    if (want_idx) OLG_TRY(plane_indices(cx, xb, a.n, outs[1], &outs[1]));
  }
  OLG_TRY(olg__batch_out(cx, outs[0], unbatched, &res[0]));
  if (!want_idx) return olg__bind_outputs(cx, res, 1);
  OLG_TRY(olg__batch_out(cx, outs[1], unbatched, &res[1]));
  return olg__bind_outputs(cx, res, 2);
}

olg_status olg__sym_max_pool(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return max_pool(cx, target_caps(cx, "MaxPool"));
}

/* One axis of PyTorch's avg_pool divisor at output position o, and the count of input elements
 * in the window (AveragePool's divisor with count_include_pad=0). */
static void avg_counts(const pool_args *a, int j, int64_t o, bool include_pad, int64_t *torch_div,
                       int64_t *valid) {
  int64_t start = o * a->s[j] - a->p[j];
  int64_t end = start + a->k[j];
  if (end > a->in[j] + a->p[j]) end = a->in[j] + a->p[j];
  int64_t pool = end - start;
  if (start < 0) start = 0;
  if (end > a->in[j]) end = a->in[j];
  *valid = end - start;
  *torch_div = include_pad ? pool : *valid;
}

/* aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0],
 * bool ceil_mode=False, bool count_include_pad=True), avg_pool2d/3d(..., int? divisor_override=None) */
static olg_status avg_pool(olg_lower *cx, pool_caps c) {
  olg_value x, xb, y;
  bool unbatched;
  int ceil, cip;
  int64_t over = 0;
  pool_args a;
  a.n = olg__op_spatial_dims(cx);
  if (a.n < 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "avg_pool: unknown spatial rank");
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype dt = olg__dtype(cx, x);
  if (dt != OLG_UNDEFINED && !olg__is_float(dt))
    return olg__unsupportedf(cx, -1, "avg_pool of a %s tensor (ONNX's AveragePool takes float "
                                     "types only)", olg_dtype_name(dt));
  OLG_TRY(olg__batch_in(cx, x, a.n, "avg_pool", &xb, &unbatched));
  OLG_TRY(olg__arg_bool_or(cx, 4, 0, &ceil));
  OLG_TRY(olg__arg_bool_or(cx, 5, 1, &cip));
  if (a.n > 1) OLG_TRY(olg__arg_int_or(cx, 6, 0, &over));
  if (olg_lower_arg_kind(cx, 6) != OLG_ARGKIND_NONE && over == 0)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "divisor_override must not be 0");
  OLG_TRY(pool_arguments(cx, xb, 1, -1, ceil != 0, &a));
  int64_t kprod = 1;
  for (int j = 0; j < a.n; j++) kprod *= a.k[j];

  if (!over && !a.ceil_effective) { /* AveragePool means exactly this */
    OLG_TRY(emit_pool(cx, "AveragePool", xb, &a, a.p, 0, cip, 1, &y));
  } else if (!a.dynamic) {
    /* count_include_pad=0 with the end padding of the floor rule divides by the count of input
       elements; a constant factor turns that into PyTorch's divisor where it differs */
    int64_t odims[OLG_MAX_SPATIAL];
    size_t total = 1;
    for (int j = 0; j < a.n; j++) total *= (size_t)(odims[j] = a.out[j]);
    double *factor = olg__lower_alloc(cx, total * sizeof *factor);
    if (!factor) return OLG_ERR_NOMEM;
    bool all_one = true;
    for (size_t e = 0; e < total; e++) {
      size_t rest = e;
      double valid = 1, div = 1;
      for (int j = a.n - 1; j >= 0; j--) {
        int64_t o = (int64_t)(rest % (size_t)a.out[j]), td, v;
        rest /= (size_t)a.out[j];
        avg_counts(&a, j, o, cip != 0, &td, &v);
        valid *= (double)v;
        div *= (double)td;
      }
      if (over) div = (double)over;
      factor[e] = valid / div;
      all_one = all_one && factor[e] == 1.0;
    }
    OLG_TRY(emit_pool(cx, "AveragePool", xb, &a, a.end, 0, 0, 1, &y));
    if (!all_one) {
      OLG_TRY(olg_lower_decompose(cx, over ? "avg_pool with divisor_override"
                                           : "avg_pool with ceil_mode and count_include_pad",
                                  -1));
      olg_value f;
      OLG_TRY(olg__const_real(cx, dt, a.n, odims, factor, total, &f));
      OLG_TRY(olg__emit2(cx, "Mul", y, f, &y));
    }
  } else if (over && !a.ceil_effective) {
    /* every window lies inside the padded input: PyTorch's divisor is the kernel size */
    OLG_TRY(olg_lower_decompose(cx, "avg_pool with divisor_override", -1));
    olg_value f;
    OLG_TRY(emit_pool(cx, "AveragePool", xb, &a, a.p, 0, 1, 1, &y));
    OLG_TRY(olg__const_scalar(cx, dt, (double)kprod / (double)over, &f));
    OLG_TRY(olg__emit2(cx, "Mul", y, f, &y));
  } else if (!over) {
    if (!c.dil_ceil)
      return olg_lower_unsupported(cx, "avg_pool with ceil_mode on a spatial size unknown at "
                                       "export time", 10);
    OLG_TRY(emit_pool(cx, "AveragePool", xb, &a, a.p, 1, cip, 1, &y));
  } else {
    return olg_lower_unsupported(cx, "avg_pool with ceil_mode and divisor_override on a spatial "
                                     "size unknown at export time", -1);
  }
  OLG_TRY(olg__batch_out(cx, y, unbatched, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_avg_pool(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return avg_pool(cx, target_caps(cx, "AveragePool"));
}

/* ------------------------------------------------------------------------------------------ */
/* Adaptive pooling. Bin o of an axis of size in split into out bins is
 * [floor(o*in/out), ceil((o+1)*in/out)). */

static int64_t bin_start(int64_t o, int64_t in, int64_t out) { return o * in / out; }
static int64_t bin_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

typedef struct adaptive_args {
  int n;
  int64_t in[OLG_MAX_SPATIAL], out[OLG_MAX_SPATIAL];
  bool all_one, dynamic, divides, identity;
} adaptive_args;

static olg_status adaptive_arguments(olg_lower *cx, olg_value xb, adaptive_args *a) {
  OLG_TRY(olg__spatial_arg(cx, 1, a->n, NULL, "output_size", a->out));
  a->all_one = a->divides = a->identity = true;
  a->dynamic = false;
  for (int j = 0; j < a->n; j++) {
    if (a->out[j] <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "output_size must be > 0");
    a->in[j] = olg__dim(cx, xb, j + 2);
    /* the bins' bounds ((o + 1) * in), their count and the planes' strides stay in int64 */
    if (a->out[j] > ADAPTIVE_OUT_MAX || a->in[j] > ADAPTIVE_IN_MAX)
      return olg__errf(cx, OLG_ERR_LIMIT, "adaptive pooling from %lld to %lld along spatial axis "
                       "%d (past 2^20)", (long long)a->in[j], (long long)a->out[j], j);
    a->all_one = a->all_one && a->out[j] == 1;
    if (a->in[j] < 0) {
      a->dynamic = true;
      continue;
    }
    a->divides = a->divides && a->in[j] % a->out[j] == 0;
    a->identity = a->identity && a->in[j] == a->out[j];
  }
  return OLG_OK;
}

static olg_status adaptive_dynamic_error(olg_lower *cx, const char *op, const adaptive_args *a) {
  char sz[64];
  int k = 0;
  for (int j = 0; j < a->n; j++)
    k += snprintf(sz + k, sizeof sz - (size_t)k, "%s%lld", j ? "x" : "", (long long)a->out[j]);
  return olg__unsupportedf(cx, -1, "%s to %s of a spatial size unknown at export time (the bins "
                                   "are chosen at export time; an output size of 1 needs none)",
                           op, sz);
}

/* The kernel = stride = in/out pool when the sizes divide. */
static void divided_pool(const adaptive_args *a, pool_args *p) {
  p->n = a->n;
  for (int j = 0; j < a->n; j++) {
    p->k[j] = p->s[j] = a->in[j] / a->out[j];
    p->p[j] = 0;
    p->d[j] = 1;
    p->end[j] = 0;
  }
}

/* aten::adaptive_avg_pool1d/2d/3d(Tensor self, int[N] output_size), _adaptive_avg_pool2d/3d.
 * GlobalAveragePool for 1, AveragePool when the sizes divide, otherwise a MatMul per axis with
 * the averaging matrix A[i, o] = 1/|bin o| for i in bin o (DESIGN.md §4). */
olg_status olg__sym_adaptive_avg_pool(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, xb, y;
  bool unbatched;
  adaptive_args a;
  a.n = olg__op_spatial_dims(cx);
  if (a.n < 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "adaptive_avg_pool: unknown spatial rank");
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__batch_in(cx, x, a.n, "adaptive_avg_pool", &xb, &unbatched));
  OLG_TRY(adaptive_arguments(cx, xb, &a));
  olg_dtype dt = olg__dtype(cx, xb);
  if (a.all_one) {
    OLG_TRY(olg__emit1(cx, "GlobalAveragePool", xb, &y));
  } else if (a.dynamic) {
    return adaptive_dynamic_error(cx, "adaptive_avg_pool", &a);
  } else if (a.identity) {
    y = xb;
  } else if (a.divides) {
    pool_args p;
    divided_pool(&a, &p);
    OLG_TRY(emit_pool(cx, "AveragePool", xb, &p, p.end, 0, 0, 1, &y));
  } else {
    OLG_TRY(olg_lower_decompose(cx, "adaptive_avg_pool to a size that does not divide the "
                                    "input's (separable averaging MatMuls)", -1));
    y = xb;
    for (int j = a.n - 1; j >= 0; j--) {
      int64_t in = a.in[j], out = a.out[j];
      if (in == out) continue;
      if (in * out > (int64_t)1 << 24) /* both are at most 2^20 */
        return olg__errf(cx, OLG_ERR_LIMIT, "adaptive_avg_pool: a %lld x %lld averaging matrix "
                         "(past 2^24 values)", (long long)in, (long long)out);
      int from_end = a.n - 1 - j; /* 0: the last axis */
      size_t cnt = (size_t)(in * out);
      double *m = olg__lower_alloc(cx, cnt * sizeof *m);
      if (!m) return OLG_ERR_NOMEM;
      for (int64_t o = 0; o < out; o++) {
        int64_t s = bin_start(o, in, out), e = bin_end(o, in, out);
        for (int64_t i = s; i < e; i++) {
          /* the last axis multiplies from the right ([in, out]); the others from the left
             ([out, in]) */
          size_t at = from_end == 0 ? (size_t)(i * out + o) : (size_t)(o * in + i);
          m[at] = 1.0 / (double)(e - s);
        }
      }
      olg_value mv;
      if (from_end == 0) {
        OLG_TRY(olg__const_real(cx, dt, 2, (const int64_t[]){in, out}, m, cnt, &mv));
        OLG_TRY(olg__emit2(cx, "MatMul", y, mv, &y));
        continue;
      }
      OLG_TRY(olg__const_real(cx, dt, 2, (const int64_t[]){out, in}, m, cnt, &mv));
      if (from_end == 1) {
        OLG_TRY(olg__emit2(cx, "MatMul", mv, y, &y));
        continue;
      }
      /* depth of a 3-D pool: [N, C, D, H', W'] -> [N, C, D, H'*W'], multiply, and back */
      int64_t h = olg__dim(cx, y, 3), w = olg__dim(cx, y, 4);
      OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){0, 0, in, h * w}, 4, &y));
      OLG_TRY(olg__emit2(cx, "MatMul", mv, y, &y));
      OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){0, 0, out, h, w}, 5, &y));
    }
  }
  OLG_TRY(olg__batch_out(cx, y, unbatched, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Max over every bin, axis by axis: per bin a Slice and a ReduceMax, then a Concat. */
static olg_status adaptive_max_separable(olg_lower *cx, olg_value xb, const adaptive_args *a,
                                         olg_value *out) {
  olg_value y = xb;
  for (int j = 0; j < a->n; j++) {
    int64_t in = a->in[j], n_out = a->out[j], axis = j + 2;
    if (in == n_out) continue;
    olg_value *bins = olg__lower_alloc(cx, (size_t)n_out * sizeof *bins);
    if (!bins) return OLG_ERR_NOMEM;
    for (int64_t o = 0; o < n_out; o++) {
      int64_t s = bin_start(o, in, n_out), e = bin_end(o, in, n_out);
      olg_value t;
      OLG_TRY(olg__emit_slice(cx, y, &s, &e, &axis, NULL, 1, &t));
      OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, t, &axis, 1, 1, &bins[o]));
    }
    OLG_TRY(olg__emit_concat(cx, bins, (size_t)n_out, axis, &y));
  }
  *out = y;
  return OLG_OK;
}

/* Values and per-plane indices, one output cell at a time: Slice the cell's box, flatten it,
 * ReduceMax and ArgMax (the first maximum, as PyTorch's scan keeps), and turn the index in the
 * box into the index in the plane with integer arithmetic. */
#define ADAPTIVE_MAX_CELLS 4096
static olg_status adaptive_max_cells(olg_lower *cx, olg_value xb, const adaptive_args *a,
                                     olg_value *values, olg_value *indices) {
  size_t cells = 1;
  for (int j = 0; j < a->n; j++) cells *= (size_t)a->out[j];
  if (cells > ADAPTIVE_MAX_CELLS)
    return olg__unsupportedf(cx, -1, "adaptive_max_pool with indices to %zu cells whose sizes do "
                                     "not divide (at most %d)", cells, ADAPTIVE_MAX_CELLS);
  olg_value *vals = olg__lower_alloc(cx, cells * sizeof *vals);
  olg_value *idxs = olg__lower_alloc(cx, cells * sizeof *idxs);
  if (!vals || !idxs) return OLG_ERR_NOMEM;
  int64_t stride[OLG_MAX_SPATIAL]; /* of each axis in the plane */
  stride[a->n - 1] = 1;
  for (int j = a->n - 2; j >= 0; j--) stride[j] = stride[j + 1] * a->in[j + 1];
  for (size_t c = 0; c < cells; c++) {
    int64_t s[OLG_MAX_SPATIAL], e[OLG_MAX_SPATIAL], axes[OLG_MAX_SPATIAL], box[OLG_MAX_SPATIAL];
    size_t rest = c;
    for (int j = a->n - 1; j >= 0; j--) {
      int64_t o = (int64_t)(rest % (size_t)a->out[j]);
      rest /= (size_t)a->out[j];
      s[j] = bin_start(o, a->in[j], a->out[j]);
      e[j] = bin_end(o, a->in[j], a->out[j]);
      box[j] = e[j] - s[j];
      axes[j] = j + 2;
    }
    olg_value t, local;
    OLG_TRY(olg__emit_slice(cx, xb, s, e, axes, NULL, (size_t)a->n, &t));
    OLG_TRY(olg__emit_reshape_static(cx, t, (const int64_t[]){0, 0, -1}, 3, &t));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, t, (const int64_t[]){2}, 1, 1, &vals[c]));
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "ArgMax", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, t));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", 2));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &local));
    /* plane index = sum_j (s_j + r_j) * stride_j, r the coordinates in the box */
    int64_t offset = 0;
    for (int j = 0; j < a->n; j++) offset += s[j] * stride[j];
    olg_value ov = OLG_NO_VALUE;
    if (offset) OLG_TRY(olg__const_i64(cx, offset, &ov));
    OLG_TRY(weigh_coords(cx, local, box, stride, a->n, ov, &idxs[c]));
  }
  int64_t shape[2 + OLG_MAX_SPATIAL] = {0, 0};
  for (int j = 0; j < a->n; j++) shape[j + 2] = a->out[j];
  olg_value v;
  OLG_TRY(olg__emit_concat(cx, vals, cells, 2, &v));
  OLG_TRY(olg__emit_reshape_static(cx, v, shape, (size_t)a->n + 2, values));
  OLG_TRY(olg__emit_concat(cx, idxs, cells, 2, &v));
  return olg__emit_reshape_static(cx, v, shape, (size_t)a->n + 2, indices);
}

/* aten::adaptive_max_pool1d/2d/3d(Tensor self, int[N] output_size) -> (Tensor, Tensor): values
 * and per-plane indices. GlobalMaxPool for 1, MaxPool when the sizes divide (its Indices from
 * opset 8), otherwise per bin Slice + ReduceMax + Concat (DESIGN.md §4), and for the indices the
 * per-cell ArgMax. */
static olg_status adaptive_max_pool(olg_lower *cx, pool_caps c) {
  olg_value x, xb, outs[2], res[2];
  bool unbatched;
  adaptive_args a;
  a.n = olg__op_spatial_dims(cx);
  if (a.n < 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "adaptive_max_pool: unknown spatial rank");
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__batch_in(cx, x, a.n, "adaptive_max_pool", &xb, &unbatched));
  OLG_TRY(adaptive_arguments(cx, xb, &a));
  bool want_idx = olg_lower_output_count(cx) >= 2 && olg_lower_output_used(cx, 1);
  if (a.all_one && !want_idx) {
    OLG_TRY(olg__emit1(cx, "GlobalMaxPool", xb, &outs[0]));
  } else if (a.dynamic) {
    return adaptive_dynamic_error(cx, want_idx ? "adaptive_max_pool with indices"
                                               : "adaptive_max_pool", &a);
  } else if (a.divides && (!want_idx || c.indices)) {
    pool_args p;
    divided_pool(&a, &p);
    OLG_TRY(emit_pool(cx, "MaxPool", xb, &p, p.end, 0, 0, want_idx ? 2 : 1, outs));
    if (want_idx) OLG_TRY(plane_indices(cx, xb, a.n, outs[1], &outs[1]));
  } else if (!want_idx) {
    OLG_TRY(olg_lower_decompose(cx, "adaptive_max_pool to a size that does not divide the "
                                    "input's (Slice + ReduceMax per bin)", -1));
    OLG_TRY(adaptive_max_separable(cx, xb, &a, &outs[0]));
  } else {
    OLG_TRY(olg_lower_decompose(cx, "adaptive_max_pool indices (Slice + ArgMax per cell)", -1));
    OLG_TRY(adaptive_max_cells(cx, xb, &a, &outs[0], &outs[1]));
  }
  OLG_TRY(olg__batch_out(cx, outs[0], unbatched, &res[0]));
  if (!want_idx) return olg__bind_outputs(cx, res, 1);
  OLG_TRY(olg__batch_out(cx, outs[1], unbatched, &res[1]));
  return olg__bind_outputs(cx, res, 2);
}

olg_status olg__sym_adaptive_max_pool(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return adaptive_max_pool(cx, target_caps(cx, "MaxPool"));
}
