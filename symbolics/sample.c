/* onnxlegal — sampling: grid_sampler (and grid_sampler_2d / grid_sampler_3d), and
 * affine_grid_generator.
 *
 *   grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
 *                bool align_corners)
 *     interpolation_mode 0 bilinear, 1 nearest, 2 bicubic (4-D only);
 *     padding_mode 0 zeros, 1 border, 2 reflection.
 *   affine_grid_generator(Tensor theta, int[] size, bool align_corners)
 *
 * grid_sampler: GridSample-16 (4-D input) and GridSample-20 (modes renamed linear/cubic, any
 * rank) where they exist. Elsewhere (opsets 7-15, and a 5-D input at 16-19) an exact
 * decomposition (DESIGN.md §4) that follows PyTorch's CPU kernels step by step:
 *   - per spatial axis k (x = width first), the grid coordinate unnormalized as PyTorch does
 *     (the 2-D kernel: (g + 1) * (size - 1) / 2, or (g + 1) * size / 2 - 0.5; the 3-D one:
 *     (g + 1) / 2 * (size - 1), or ((g + 1) * size - 1) / 2), then border = clip to
 *     [0, size - 1], reflection = reflect about the edges then clip;
 *   - the input padded by one zero on every spatial side, made a table [N * prod(padded), C];
 *     every tap's index clipped to [-1, size] lands on that zero ring when it is out of range,
 *     which is PyTorch's "outside contributes 0" without a mask;
 *   - one Gather per tap from the table (N folded into the index: the input's batch size must
 *     be known below opset 11, where Range does not exist), weights multiplied and summed as
 *     PyTorch orders them, then the channels moved back next to the batch.
 *   Nearest rounds half to even (Round from 11, emulated with Floor below).
 * affine_grid_generator: AffineGrid-20; below, a MatMul of the constant base grid (PyTorch's
 * linspace, computed here in its float arithmetic) with theta transposed. */
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "symbolics.h"


enum { GS_BILINEAR = 0, GS_NEAREST = 1, GS_BICUBIC = 2 };
enum { GS_ZEROS = 0, GS_BORDER = 1, GS_REFLECTION = 2 };

typedef struct gs {
  bool range; /* the target has Range (11): a batch size known only at run time too */
  olg_value x, grid;
  olg_dtype dt;
  int r;               /* spatial rank: 2 or 3 */
  int64_t n;           /* batch size, or -1 */
  int64_t size[3];     /* input spatial sizes by coordinate axis: size[0] = W, size[1] = H, ... */
  int64_t mode, padding;
  int align_corners;
} gs;

/* ---- small emit shorthands (all in the input's float dtype) ---- */

static olg_status k_(olg_lower *cx, const gs *g, double v, olg_value *out) {
  return olg__const_scalar(cx, g->dt, v, out);
}

static olg_status add_k(olg_lower *cx, const gs *g, olg_value a, double v, olg_value *out) {
  olg_value k;
  OLG_TRY(k_(cx, g, v, &k));
  return olg__emit2(cx, "Add", a, k, out);
}

static olg_status mul_k(olg_lower *cx, const gs *g, olg_value a, double v, olg_value *out) {
  olg_value k;
  OLG_TRY(k_(cx, g, v, &k));
  return olg__emit2(cx, "Mul", a, k, out);
}

static olg_status div_k(olg_lower *cx, const gs *g, olg_value a, double v, olg_value *out) {
  olg_value k;
  OLG_TRY(k_(cx, g, v, &k));
  return olg__emit2(cx, "Div", a, k, out);
}

/* k - a */
static olg_status rsub_k(olg_lower *cx, const gs *g, double v, olg_value a, olg_value *out) {
  olg_value k;
  OLG_TRY(k_(cx, g, v, &k));
  return olg__emit2(cx, "Sub", k, a, out);
}

/* v rounded to the grid's precision, as PyTorch stores its constants */
static double in_prec(const gs *g, double v) { return g->dt == OLG_DOUBLE ? v : (double)(float)v; }

/* ---- coordinates ---- */

static olg_status unnormalize(olg_lower *cx, const gs *g, olg_value c, int64_t size,
                              olg_value *out) {
  olg_value t;
  OLG_TRY(add_k(cx, g, c, 1.0, &t));
  if (g->r == 2) { /* the vectorized 2-D kernel */
    if (g->align_corners) return mul_k(cx, g, t, in_prec(g, (double)(size - 1) / 2), out);
    OLG_TRY(mul_k(cx, g, t, in_prec(g, (double)size / 2), &t));
    return add_k(cx, g, t, -0.5, out);
  }
  if (g->align_corners) { /* GridSampler.h, the 3-D kernel */
    OLG_TRY(div_k(cx, g, t, 2.0, &t));
    return mul_k(cx, g, t, (double)(size - 1), out);
  }
  OLG_TRY(mul_k(cx, g, t, (double)size, &t));
  OLG_TRY(add_k(cx, g, t, -1.0, &t));
  return div_k(cx, g, t, 2.0, out);
}

static olg_status clip_coord(olg_lower *cx, olg_value c, int64_t size, olg_value *out) {
  return olg__emit_clip_f(cx, c, 1, 0.0, 1, (double)(size - 1), out);
}

/* Reflection about the edges (-0.5 and size - 0.5, or 0 and size - 1 with align_corners):
 * a = |c - low|; extra = a - trunc(a / 2span) * 2span; min(extra, 2span - extra) + low. */
static olg_status reflect_coord(olg_lower *cx, const gs *g, olg_value c, int64_t size,
                                olg_value *out) {
  double low = g->align_corners ? 0.0 : -0.5;
  double twice_span = g->align_corners ? 2.0 * (double)(size - 1) : 2.0 * (double)size;
  if (twice_span <= 0) return mul_k(cx, g, c, 0.0, out); /* one pixel: every coordinate is 0 */
  olg_value a, f, extra, other;
  OLG_TRY(add_k(cx, g, c, -low, &a));
  OLG_TRY(olg__emit1(cx, "Abs", a, &a));
  OLG_TRY(div_k(cx, g, a, twice_span, &f));
  OLG_TRY(olg__emit1(cx, "Floor", f, &f)); /* a >= 0: floor is trunc */
  OLG_TRY(mul_k(cx, g, f, twice_span, &f));
  OLG_TRY(olg__emit2(cx, "Sub", a, f, &extra));
  OLG_TRY(rsub_k(cx, g, twice_span, extra, &other));
  OLG_TRY(olg__emit2(cx, "Min", extra, other, &a));
  return add_k(cx, g, a, low, out);
}

/* compute_coordinates: the padding mode applied to an unnormalized coordinate. */
static olg_status apply_padding(olg_lower *cx, const gs *g, olg_value c, int64_t size,
                                olg_value *out) {
  if (g->padding == GS_ZEROS) return *out = c, OLG_OK;
  if (g->padding == GS_REFLECTION) OLG_TRY(reflect_coord(cx, g, c, size, &c));
  return clip_coord(cx, c, size, out);
}

/* ---- gathering from the zero-ringed table ---- */

typedef struct gs_table {
  olg_value table;     /* [N * prod(size + 2), C] */
  olg_value batch_off; /* [N, 1, ...] int64: n * prod(size + 2) */
  int64_t stride[3];   /* per coordinate axis, in the padded input */
} gs_table;

#define GS_BATCH_CONST_MAX ((int64_t)1 << 24)

static olg_status make_table(olg_lower *cx, const gs *g, gs_table *t) {
  int r = g->r;
  int64_t plane = 1, total;
  for (int k = 0; k < r; k++) { /* axis k = 0 is the last dim */
    t->stride[k] = plane;
    if (g->size[k] > INT64_MAX - 2 || __builtin_mul_overflow(plane, g->size[k] + 2, &plane))
      plane = -1;
  }
  /* the flat positions are int64: hostile sizes had overflowed them (undefined behaviour) */
  if (plane < 0 || (g->n > 0 && __builtin_mul_overflow(g->n, plane, &total)))
    return olg__errf(cx, OLG_ERR_LIMIT, "grid_sampler's decomposition: the padded input has more "
                     "elements than int64 counts (no flat positions)");
  /* the batch offsets a constant up to 2^24 of them (a batch of 2^31 had asked for 16 GiB) */
  if (g->n > GS_BATCH_CONST_MAX && !g->range)
    return olg_lower_unsupported(cx, "grid_sampler's decomposition with a batch over 2^24 (its "
                                     "offsets need Range)", 11);
  int64_t pads[10] = {0};
  for (int i = 0; i < r; i++) pads[2 + i] = pads[2 + r + 2 + i] = 1;
  olg_value xp, tr;
  OLG_TRY(olg__emit_pad(cx, g->x, "constant", pads, (size_t)(2 * (r + 2)), 0.0, &xp));
  int64_t perm[5] = {0, 2, 3, 4, 1};
  if (r == 2) perm[3] = 1;
  OLG_TRY(olg__emit_transpose(cx, xp, perm, (size_t)r + 2, &tr));
  OLG_TRY(olg__emit_flatten(cx, tr, r + 1, &t->table));
  int64_t shape[5] = {-1, 1, 1, 1, 1};
  if (g->n >= 0 && g->n <= GS_BATCH_CONST_MAX) {
    int64_t *off = olg__lower_alloc(cx, (size_t)(g->n ? g->n : 1) * sizeof *off);
    if (!off) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < g->n; i++) off[i] = i * plane;
    shape[0] = g->n;
    return olg__const_tensor_kept(cx, OLG_INT64, r + 1, shape, off, (size_t)g->n * sizeof *off,
                             &t->batch_off);
  }
  if (!g->range)
    return olg_lower_unsupported(cx, "grid_sampler's decomposition with a batch size unknown at "
                                     "export time (it needs Range)", 11);
  olg_value n, zero, step, range, shp;
  OLG_TRY(olg__dim_tensor(cx, g->x, 0, &n));
  OLG_TRY(olg__emit_reshape_static(cx, n, (const int64_t[]){1}, 0, &n)); /* a scalar */
  OLG_TRY(olg__const_i64(cx, 0, &zero));
  OLG_TRY(olg__const_i64(cx, plane, &step));
  olg_value rin[3];
  OLG_TRY(olg__const_i64(cx, 1, &rin[2]));
  rin[0] = zero;
  rin[1] = n;
  OLG_TRY(olg__emit(cx, "Range", rin, 3, &range));
  OLG_TRY(olg__emit2(cx, "Mul", range, step, &range));
  OLG_TRY(olg__const_i64s(cx, shape, (size_t)r + 1, &shp));
  return olg__emit_reshape(cx, range, shp, &t->batch_off);
}

/* An axis' share of a tap's flat index, from its (integer-valued) float coordinate c: clipped
 * to [-1, size], shifted onto the padded input, times the axis' stride. Computed once per
 * distinct coordinate; a tap adds the shares of its axes to the batch offset. */
static olg_status axis_term(olg_lower *cx, const gs *g, const gs_table *t, int k, olg_value c,
                            olg_value *out) {
  olg_value v, st;
  OLG_TRY(olg__emit_clip_f(cx, c, 1, -1.0, 1, (double)g->size[k], &v));
  OLG_TRY(add_k(cx, g, v, 1.0, &v));
  OLG_TRY(olg__emit_cast(cx, v, OLG_INT64, &v));
  if (t->stride[k] == 1) return *out = v, OLG_OK;
  OLG_TRY(olg__const_i64(cx, t->stride[k], &st));
  return olg__emit2(cx, "Mul", v, st, out);
}

/* Gathers the tap whose axis shares are terms[0..r), [N, *out, C]; weight w ([N, *out])
 * multiplies it when given. */
static olg_status tap_value(olg_lower *cx, const gs *g, const gs_table *t, const olg_value *terms,
                            olg_value w, olg_value *out) {
  olg_value idx = t->batch_off, v;
  for (int k = 0; k < g->r; k++) OLG_TRY(olg__emit2(cx, "Add", idx, terms[k], &idx));
  OLG_TRY(olg__emit_gather(cx, t->table, idx, 0, &v));
  if (w == OLG_NO_VALUE) return *out = v, OLG_OK;
  olg_value wu;
  OLG_TRY(olg__emit_unsqueeze(cx, w, (const int64_t[]){g->r + 1}, 1, &wu));
  return olg__emit2(cx, "Mul", v, wu, out);
}

static olg_status sum_into(olg_lower *cx, olg_value *acc, olg_value v) {
  if (*acc == OLG_NO_VALUE) return *acc = v, OLG_OK;
  return olg__emit2(cx, "Add", *acc, v, acc);
}

/* Keys' cubic convolution weights (A = -0.75) of the four taps at distance t from floor. */
static olg_status cubic_weights(olg_lower *cx, const gs *g, olg_value t, olg_value w[4]) {
  const double A = -0.75;
  for (int i = 0; i < 4; i++) {
    olg_value x, p;
    /* distances: t + 1, t, 1 - t, 2 - t */
    if (i == 0) OLG_TRY(add_k(cx, g, t, 1.0, &x));
    else if (i == 1) x = t;
    else OLG_TRY(rsub_k(cx, g, (double)(i - 1), t, &x));
    if (i == 1 || i == 2) { /* ((A + 2) x - (A + 3)) x x + 1 */
      OLG_TRY(mul_k(cx, g, x, A + 2, &p));
      OLG_TRY(add_k(cx, g, p, -(A + 3), &p));
      OLG_TRY(olg__emit2(cx, "Mul", p, x, &p));
      OLG_TRY(olg__emit2(cx, "Mul", p, x, &p));
      OLG_TRY(add_k(cx, g, p, 1.0, &w[i]));
    } else { /* ((A x - 5A) x + 8A) x - 4A */
      OLG_TRY(mul_k(cx, g, x, A, &p));
      OLG_TRY(add_k(cx, g, p, -5 * A, &p));
      OLG_TRY(olg__emit2(cx, "Mul", p, x, &p));
      OLG_TRY(add_k(cx, g, p, 8 * A, &p));
      OLG_TRY(olg__emit2(cx, "Mul", p, x, &p));
      OLG_TRY(add_k(cx, g, p, -4 * A, &w[i]));
    }
  }
  return OLG_OK;
}

static olg_status grid_sample_decomposed(olg_lower *cx, const gs *g, olg_value *y) {
  int r = g->r;
  int32_t grank = olg__rank(cx, g->grid);
  olg_value coord[3];
  for (int k = 0; k < r; k++) {
    olg_value idx;
    OLG_TRY(olg__const_i64(cx, k, &idx));
    OLG_TRY(olg__emit_gather(cx, g->grid, idx, grank - 1, &coord[k]));
    OLG_TRY(unnormalize(cx, g, coord[k], g->size[k], &coord[k]));
  }
  gs_table t;
  OLG_TRY(make_table(cx, g, &t));
  olg_value acc = OLG_NO_VALUE;

  if (g->mode == GS_NEAREST) {
    olg_value c[3];
    for (int k = 0; k < r; k++) {
      OLG_TRY(apply_padding(cx, g, coord[k], g->size[k], &c[k]));
      OLG_TRY(olg__emit_round(cx, c[k], &c[k])); /* half to even, as PyTorch */
      OLG_TRY(axis_term(cx, g, &t, k, c[k], &c[k]));
    }
    OLG_TRY(tap_value(cx, g, &t, c, OLG_NO_VALUE, &acc));
  } else if (g->mode == GS_BILINEAR) {
    olg_value lo[3], hi[3], wlo[3], whi[3];
    for (int k = 0; k < r; k++) {
      olg_value c;
      OLG_TRY(apply_padding(cx, g, coord[k], g->size[k], &c));
      OLG_TRY(olg__emit1(cx, "Floor", c, &lo[k]));
      OLG_TRY(add_k(cx, g, lo[k], 1.0, &hi[k]));
      OLG_TRY(olg__emit2(cx, "Sub", c, lo[k], &whi[k])); /* toward the upper tap */
      OLG_TRY(rsub_k(cx, g, 1.0, whi[k], &wlo[k]));
      OLG_TRY(axis_term(cx, g, &t, k, lo[k], &lo[k]));
      OLG_TRY(axis_term(cx, g, &t, k, hi[k], &hi[k]));
    }
    /* corners in PyTorch's order: the outermost axis varies slowest (nw, ne, sw, se) */
    int n_corners = 1 << r;
    for (int m = 0; m < n_corners; m++) {
      olg_value c[3], w = OLG_NO_VALUE, v;
      for (int k = r - 1; k >= 0; k--) {
        int up = (m >> k) & 1;
        c[k] = up ? hi[k] : lo[k];
        olg_value wk = up ? whi[k] : wlo[k];
        if (w == OLG_NO_VALUE) w = wk;
        else OLG_TRY(olg__emit2(cx, "Mul", w, wk, &w));
      }
      OLG_TRY(tap_value(cx, g, &t, c, w, &v));
      OLG_TRY(sum_into(cx, &acc, v));
    }
  } else { /* bicubic, 2-D: taps at floor - 1 .. floor + 2, each padded on its own */
    olg_value fl[2], wts[2][4];
    for (int k = 0; k < 2; k++) {
      olg_value tt;
      OLG_TRY(olg__emit1(cx, "Floor", coord[k], &fl[k]));
      OLG_TRY(olg__emit2(cx, "Sub", coord[k], fl[k], &tt));
      OLG_TRY(cubic_weights(cx, g, tt, wts[k]));
    }
    olg_value tapc[2][4];
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 4; j++) {
        OLG_TRY(add_k(cx, g, fl[k], (double)(j - 1), &tapc[k][j]));
        OLG_TRY(apply_padding(cx, g, tapc[k][j], g->size[k], &tapc[k][j]));
        OLG_TRY(axis_term(cx, g, &t, k, tapc[k][j], &tapc[k][j]));
      }
    for (int i = 0; i < 4; i++) { /* rows (y), each interpolated along x first */
      olg_value row = OLG_NO_VALUE, v, wy;
      for (int j = 0; j < 4; j++) {
        olg_value c[2] = {tapc[0][j], tapc[1][i]};
        OLG_TRY(tap_value(cx, g, &t, c, wts[0][j], &v));
        OLG_TRY(sum_into(cx, &row, v));
      }
      OLG_TRY(olg__emit_unsqueeze(cx, wts[1][i], (const int64_t[]){3}, 1, &wy));
      OLG_TRY(olg__emit2(cx, "Mul", row, wy, &v));
      OLG_TRY(sum_into(cx, &acc, v));
    }
  }
  int64_t perm[5] = {0, r + 1, 1, 2, 3};
  return olg__emit_transpose(cx, acc, perm, (size_t)r + 2, y);
}

static olg_status grid_sample_native(olg_lower *cx, const gs *g, olg_value *y) {
  static const char *const modes[3] = {"linear", "nearest", "cubic"};
  static const char *const pads[3] = {"zeros", "border", "reflection"};
  return olg__emit_grid_sample(cx, g->x, g->grid, modes[g->mode], pads[g->padding],
                               g->align_corners, y);
}

static olg_status lower_grid_sampler(olg_lower *cx, gs *g);

/* aten::grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
 * bool align_corners); also grid_sampler_2d / grid_sampler_3d (same arguments). */
static olg_status grid_sampler(olg_lower *cx) {
  gs g;
  memset(&g, 0, sizeof g);
  OLG_TRY(olg_lower_arg_value(cx, 0, &g.x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &g.grid));
  OLG_TRY(olg_lower_arg_int(cx, 2, &g.mode));
  OLG_TRY(olg_lower_arg_int(cx, 3, &g.padding));
  OLG_TRY(olg__arg_bool_or(cx, 4, 0, &g.align_corners));
  return lower_grid_sampler(cx, &g);
}

/* GridSample where the target's takes the input's rank (4-D 16, N-D 20), else the
 * decomposition (with a batch size known at export time below Range-11) */
olg_status olg__sym_grid_sampler(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return grid_sampler(cx);
}

/* ONNX GridSample (16; N-D and modes renamed at 20): re-encoded (its mode names) where the
 * target's GridSample takes the input's rank, else the same decomposition. */
static olg_status onnx_grid_sample(olg_lower *cx) {
  gs g;
  memset(&g, 0, sizeof g);
  OLG_TRY(olg_lower_arg_value(cx, 0, &g.x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &g.grid));
  const char *mode = olg__src_attr_string(cx, "mode", "linear");
  const char *pad = olg__src_attr_string(cx, "padding_mode", "zeros");
  g.mode = !strcmp(mode, "linear") || !strcmp(mode, "bilinear") ? GS_BILINEAR
           : !strcmp(mode, "nearest")                           ? GS_NEAREST
           : !strcmp(mode, "cubic") || !strcmp(mode, "bicubic") ? GS_BICUBIC
                                                                : -1;
  g.padding = !strcmp(pad, "zeros") ? GS_ZEROS : !strcmp(pad, "border") ? GS_BORDER
              : !strcmp(pad, "reflection") ? GS_REFLECTION : -1;
  if (g.mode < 0 || g.padding < 0)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "GridSample: mode '%s' / padding_mode '%s' is "
                     "not one ONNX defines", mode, pad);
  g.align_corners = olg__src_attr_int(cx, "align_corners", 0) != 0;
  return lower_grid_sampler(cx, &g);
}

olg_status olg__sym_onnx_grid_sample(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_grid_sample(cx);
}

static olg_status lower_grid_sampler(olg_lower *cx, gs *gp) {
  gs g = *gp;
  olg_value y;
  int32_t rank = olg__rank(cx, g.x);
  if (rank != 4 && rank != 5)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "grid_sampler expects a 4-D or 5-D input");
  if (olg__rank(cx, g.grid) != rank)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "grid_sampler: the grid's rank differs from "
                                                    "the input's");
  g.r = rank - 2;
  if (g.mode < 0 || g.mode > 2 || (g.mode == GS_BICUBIC && g.r != 2))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "grid_sampler: interpolation_mode %lld is not one "
                     "of 0 (bilinear), 1 (nearest), 2 (bicubic, 4-D only)", (long long)g.mode);
  if (g.padding < 0 || g.padding > 2)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "grid_sampler: padding_mode %lld is not one of 0 "
                     "(zeros), 1 (border), 2 (reflection)", (long long)g.padding);
  g.dt = olg__dtype(cx, g.x);
  if (!olg__is_float(g.dt) || olg__dtype(cx, g.grid) != g.dt)
    return olg_lower_error(cx, OLG_ERR_TYPE, "grid_sampler: input and grid must have the same "
                                             "floating-point dtype");
  if (olg__grid_sample_takes_rank(cx, rank)) {
    OLG_TRY(grid_sample_native(cx, &g, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  g.range = olg__target_has(cx, "Range");
  if (olg__target_has(cx, "GridSample")) /* a 5-D input before GridSample-20 */
    OLG_TRY(olg_lower_decompose(cx, "grid_sampler of a 5-D input (GridSample-16 is 4-D only)", 20));
  g.n = olg__dim(cx, g.x, 0);
  for (int k = 0; k < g.r; k++) {
    g.size[k] = olg__dim(cx, g.x, rank - 1 - k);
    if (g.size[k] < 0)
      return olg_lower_unsupported(cx, "grid_sampler of an input whose spatial sizes are not "
                                       "known at export time (its decomposition needs them)",
                                   g.r == 2 ? 16 : 20);
  }
  if (g.dt != OLG_FLOAT && g.dt != OLG_DOUBLE)
    return olg__errf(cx, OLG_ERR_TYPE, "grid_sampler's decomposition handles float and double, "
                     "not %s", olg_dtype_name(g.dt));
  OLG_TRY(grid_sample_decomposed(cx, &g, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ---- affine_grid_generator ---- */

/* PyTorch's linspace_from_neg_one: linspace(-1, 1, n) (the first half counted from -1, the
 * second from 1, as at::linspace does), scaled by (n - 1) / n without align_corners; 0 for
 * n <= 1. In the dtype's precision. */
static void linspace_neg_one(int64_t n, int align_corners, bool dbl, double *out) {
#define P(v) (dbl ? (double)(v) : (double)(float)(v))
  if (n <= 1) {
    if (n == 1) out[0] = 0;
    return;
  }
  double step = P(P(2.0) / P((double)(n - 1)));
  int64_t half = n / 2;
  for (int64_t i = 0; i < n; i++)
    out[i] = i < half ? P(-1.0 + P(step * (double)i)) : P(1.0 - P(step * (double)(n - 1 - i)));
  if (!align_corners)
    for (int64_t i = 0; i < n; i++) out[i] = P(P(out[i] * (double)(n - 1)) / (double)n);
#undef P
}

static olg_status lower_affine_grid(olg_lower *cx, bool has_affine_grid, olg_value theta,
                                    const int64_t *size, size_t n, int ac);

/* aten::affine_grid_generator(Tensor theta, int[] size, bool align_corners) */
static olg_status affine_grid_generator(olg_lower *cx, bool has_affine_grid) {
  olg_value theta;
  const int64_t *size;
  size_t n;
  int ac;
  OLG_TRY(olg_lower_arg_value(cx, 0, &theta));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &size, &n));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &ac));
  return lower_affine_grid(cx, has_affine_grid, theta, size, n, ac);
}

/* AffineGrid (20) where the target has it */
olg_status olg__sym_affine_grid_generator(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return affine_grid_generator(cx, olg__target_has(cx, "AffineGrid"));
}

/* ONNX AffineGrid (20) below 20: the same decomposition; its size input must be known. */
olg_status olg__sym_onnx_affine_grid_decomposed(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value theta, sv;
  const int64_t *size;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &theta));
  OLG_TRY(olg_lower_arg_value(cx, 1, &sv));
  if (!olg__known_ints(cx, sv, &size, &n))
    return olg_lower_unsupported(cx, "AffineGrid with a size known only at run time", 20);
  return lower_affine_grid(cx, false, theta, size, n,
                           olg__src_attr_int(cx, "align_corners", 0) != 0);
}

static olg_status lower_affine_grid(olg_lower *cx, bool has_affine_grid, olg_value theta,
                                    const int64_t *size, size_t n, int ac) {
  olg_value y;
  if (n != 4 && n != 5)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "affine_grid_generator: size must be "
                                                    "[N, C, H, W] or [N, C, D, H, W]");
  int r = (int)n - 2;
  olg_dtype dt = olg__dtype(cx, theta);
  if (!olg__is_float(dt))
    return olg_lower_error(cx, OLG_ERR_TYPE, "affine_grid_generator: theta must be floating-point");
  if (has_affine_grid) {
    olg_value sz;
    olg_node_id nd;
    OLG_TRY(olg__const_i64s(cx, size, n, &sz));
    OLG_TRY(olg_lower_emit_begin(cx, "", "AffineGrid", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, theta));
    OLG_TRY(olg_lower_emit_input(cx, nd, sz));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "align_corners", ac));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (dt != OLG_FLOAT && dt != OLG_DOUBLE)
    return olg__errf(cx, OLG_ERR_TYPE, "affine_grid_generator's decomposition handles float and "
                     "double, not %s", olg_dtype_name(dt));
  int64_t pts = 1;
  for (int k = 0; k < r; k++) {
    if (size[2 + k] < 0 || size[2 + k] > ((int64_t)1 << 24))
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "affine_grid_generator: bad size");
    pts *= size[2 + k];
  }
  if (pts > ((int64_t)1 << 24))
    return olg_lower_error(cx, OLG_ERR_LIMIT, "affine_grid_generator: the grid is too large to "
                                              "build as a constant");
  bool dbl = dt == OLG_DOUBLE;
  /* the base grid [prod(sizes), r + 1]: rows (x, y[, z], 1), x varying fastest */
  double *lin[3];
  for (int k = 0; k < r; k++) { /* k = 0: x (W, the last size) */
    int64_t len = size[n - 1 - (size_t)k];
    lin[k] = olg__lower_alloc(cx, (size_t)(len ? len : 1) * sizeof(double));
    if (!lin[k]) return OLG_ERR_NOMEM;
    linspace_neg_one(len, ac, dbl, lin[k]);
  }
  size_t cols = (size_t)r + 1, cnt = (size_t)pts * cols;
  size_t esz = dbl ? sizeof(double) : sizeof(float);
  void *base = olg__lower_alloc(cx, (cnt ? cnt : 1) * esz);
  if (!base) return OLG_ERR_NOMEM;
  for (int64_t p = 0; p < pts; p++) {
    int64_t rem = p;
    for (int k = 0; k < r; k++) {
      int64_t len = size[n - 1 - (size_t)k];
      double v = lin[k][rem % len];
      rem /= len;
      if (dbl) ((double *)base)[(size_t)p * cols + (size_t)k] = v;
      else ((float *)base)[(size_t)p * cols + (size_t)k] = (float)v;
    }
    if (dbl) ((double *)base)[(size_t)p * cols + (size_t)r] = 1.0;
    else ((float *)base)[(size_t)p * cols + (size_t)r] = 1.0f;
  }
  olg_value bg, tt, g;
  int64_t bdims[2] = {pts, (int64_t)cols};
  OLG_TRY(olg__const_tensor_kept(cx, dbl ? OLG_DOUBLE : OLG_FLOAT, 2, bdims, base, cnt * esz, &bg));
  OLG_TRY(olg__emit_transpose(cx, theta, (const int64_t[]){0, 2, 1}, 3, &tt));
  OLG_TRY(olg__emit2(cx, "MatMul", bg, tt, &g)); /* [N, prod, r] */
  int64_t out_dims[5] = {-1, 0, 0, 0, 0};
  for (int k = 0; k < r; k++) out_dims[1 + k] = size[2 + k];
  out_dims[1 + r] = r;
  OLG_TRY(olg__emit_reshape_static(cx, g, out_dims, (size_t)r + 2, &y));
  return olg_lower_bind_output(cx, 0, y);
}
