/* onnxlegal — the tensorrt profile's Resize/Upsample rules (onnx-tensorrt 96e7811: importResize
 * in onnxOpImporters.cpp, canUseNDResize in importerUtils.cpp, docs/operators.md):
 *   tensorrt/resize-coord      coordinate modes half_pixel, pytorch_half_pixel,
 *                              tf_half_pixel_for_nn, asymmetric, align_corners only;
 *                              half_pixel_symmetric -> half_pixel where they agree (every output
 *                              size is exactly input size x scale: no shift), tf_crop_and_resize
 *                              -> align_corners where the roi is the whole input and no resized
 *                              output dim is 1 (the same sampling points, none outside)
 *   tensorrt/resize-antialias  no antialias on linear/cubic -> dropped where every scale is >= 1
 *                              (the filter acts only when downscaling)
 *   tensorrt/resize-aspect     keep_aspect_ratio_policy stretch only
 *   tensorrt/resize-axes       axes other than 0..rank-1 need constant scales/sizes
 *   tensorrt/resize-dims       linear resizes at most the 3 innermost dims, cubic the 2
 *                              innermost: the other scales must be 1 (checked when known) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tensorrt.h"

static bool is_resize11(const olg_prule_site *st) {
  return strcmp(st->g->nodes[st->node].op, "Resize") == 0 && st->version >= 11;
}

/* Per-dim scales of the node when known at conversion time: a constant `scales` (Upsample-7's
 * attribute), or constant `sizes` over a static input; axes (Resize-18) spreads them over the
 * dims, the others keeping 1. */
static bool known_scales(const olg_prule_site *st, int32_t rank, float *sc, bool *from_sizes) {
  const olg_graph *g = st->g;
  const olg_node *nd = &g->nodes[st->node];
  bool r11 = is_resize11(st);
  int64_t axes[OLG_MAX_RANK];
  size_t n_axes = (size_t)rank;
  const olg_attr *aa = olg__node_attr(nd, "axes");
  if (aa && aa->type == OLG_ATTR_INTS) {
    if (aa->n > (size_t)rank) return false;
    n_axes = aa->n;
    for (size_t k = 0; k < n_axes; k++)
      if ((axes[k] = olg__norm_axis(aa->ints[k], rank)) < 0) return false;
  } else {
    for (int32_t k = 0; k < rank; k++) axes[k] = k;
  }
  for (int32_t d = 0; d < rank; d++) sc[d] = 1.0f;
  *from_sizes = false;
  const olg_attr *attr = olg__node_attr(nd, "scales"); /* Upsample-7 */
  if (attr && attr->type == OLG_ATTR_FLOATS && attr->n == (size_t)rank) {
    for (int32_t d = 0; d < rank; d++) sc[d] = attr->floats[d];
    return true;
  }
  olg_value sv = olg__prof_input(g, st->node, r11 ? 2 : 1);
  const olg_tensor *t = sv != OLG_NO_VALUE ? olg__prof_known(g, sv) : NULL;
  if (t && t->data && t->dtype == OLG_FLOAT && t->nbytes / 4 == n_axes && n_axes > 0) {
    for (size_t k = 0; k < n_axes; k++) {
      float f;
      memcpy(&f, (const char *)t->data + 4 * k, 4);
      sc[axes[k]] = f;
    }
    return true;
  }
  olg_value zv = r11 ? olg__prof_input(g, st->node, 3) : OLG_NO_VALUE;
  int64_t sz[OLG_MAX_RANK], dims[OLG_MAX_RANK];
  size_t nz;
  int32_t r2;
  if (zv == OLG_NO_VALUE || !olg__prof_known_ints(g, zv, sz, OLG_MAX_RANK, &nz) ||
      nz != n_axes || !olg__prof_static_shape(g, olg__prof_input(g, st->node, 0), dims, &r2) ||
      r2 != rank)
    return false;
  for (size_t k = 0; k < n_axes; k++) {
    if (dims[axes[k]] <= 0) return false;
    sc[axes[k]] = (float)sz[k] / (float)dims[axes[k]];
  }
  *from_sizes = true;
  return true;
}

static bool scales_of(const olg_prule_site *st, float *sc, int32_t *rank, bool *from_sizes) {
  *rank = olg__prof_rank(st->g, olg__prof_input(st->g, st->node, 0));
  return *rank > 0 && *rank <= OLG_MAX_RANK && known_scales(st, *rank, sc, from_sizes);
}

/* ---- tensorrt/resize-coord ---- */

static bool coord_match(olg_prule_site *st) {
  char ctm[40];
  olg__prof_attr_s(&st->g->nodes[st->node], "coordinate_transformation_mode", "half_pixel", ctm,
                   sizeof ctm);
  static const char *const ok[] = {"half_pixel", "pytorch_half_pixel", "tf_half_pixel_for_nn",
                                   "asymmetric", "align_corners", NULL};
  for (const char *const *p = ok; *p; p++)
    if (strcmp(*p, ctm) == 0) return false;
  snprintf(st->msg, sizeof st->msg, "Resize with coordinate_transformation_mode '%s' (TensorRT "
           "parses half_pixel, pytorch_half_pixel, tf_half_pixel_for_nn, asymmetric, "
           "align_corners)", ctm);
  return true;
}

/* The roi of tf_crop_and_resize is 0 at every start and 1 at every end: the whole input. */
static bool roi_is_whole(const olg_prule_site *st) {
  const olg_tensor *t = olg__prof_known(st->g, olg__prof_input(st->g, st->node, 1));
  if (!t || !t->data || (t->dtype != OLG_FLOAT && t->dtype != OLG_DOUBLE)) return false;
  size_t es = t->dtype == OLG_FLOAT ? 4 : 8, n = t->nbytes / es;
  if (!n || n % 2) return false;
  for (size_t k = 0; k < n; k++) {
    double v;
    if (es == 4) {
      float f;
      memcpy(&f, (const char *)t->data + 4 * k, 4);
      v = f;
    } else {
      memcpy(&v, (const char *)t->data + 8 * k, 8);
    }
    if (v != (k < n / 2 ? 0.0 : 1.0)) return false;
  }
  return true;
}

static olg_status coord_fix(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  const olg_node *nd = &olg__prof_graph(cx)->nodes[st->node];
  char ctm[40];
  olg__prof_attr_s(nd, "coordinate_transformation_mode", "half_pixel", ctm, sizeof ctm);
  float sc[OLG_MAX_RANK];
  int32_t rank;
  bool from_sizes;
  bool have = scales_of(st, sc, &rank, &from_sizes);
  const char *to;
  if (strcmp(ctm, "half_pixel_symmetric") == 0) {
    /* it shifts by center * (1 - out / (in * scale)): nothing when out == in * scale */
    bool same = have && from_sizes;
    int64_t dims[OLG_MAX_RANK];
    int32_t r2;
    if (have && !from_sizes) {
      same = olg__prof_static_shape(olg__prof_graph(cx), olg__prof_input(olg__prof_graph(cx), st->node, 0), dims, &r2) &&
             r2 == rank;
      for (int32_t d = 0; same && d < rank; d++) {
        float w = (float)dims[d] * sc[d];
        same = w == floorf(w);
      }
    }
    if (!same)
      return olg__prof_decline(st, "half_pixel_symmetric equals half_pixel only where every "
                               "output size is input size x scale, not known here");
    to = "half_pixel";
    snprintf(st->msg, sizeof st->msg, "half_pixel_symmetric made half_pixel (every output size "
             "is input size x scale: no shift)");
  } else if (strcmp(ctm, "tf_crop_and_resize") == 0) {
    bool ok = have && roi_is_whole(st);
    for (int32_t d = 0; ok && d < rank; d++)
      ok = sc[d] == 1.0f || olg__dim(cx, nd->outputs[0], d) > 1;
    if (!ok)
      return olg__prof_decline(st, "tf_crop_and_resize equals align_corners only for a roi of "
                               "the whole input (and no resized output dim of 1)");
    to = "align_corners";
    snprintf(st->msg, sizeof st->msg, "tf_crop_and_resize over the whole input made "
             "align_corners (the same sampling points, none outside)");
  } else {
    return olg__prof_decline(st, "no parsed mode computes as '%s'", ctm);
  }
  static const char *const skip[] = {"coordinate_transformation_mode", "extrapolation_value",
                                     NULL};
  olg_node_id nid;
  OLG_TRY(olg__prof_clone_begin(st, skip, &nid));
  OLG_TRY(olg_lower_emit_attr_string(cx, nid, "coordinate_transformation_mode", to));
  return olg__prof_clone_end(st, nid);
}

/* ---- tensorrt/resize-antialias ---- */

static bool antialias_match(olg_prule_site *st) {
  const olg_node *nd = &st->g->nodes[st->node];
  if (olg__prof_attr_i(nd, "antialias", 0) == 0 || olg__prof_attr_is(nd, "mode", "nearest", "nearest"))
    return false;
  snprintf(st->msg, sizeof st->msg, "Resize with antialias=1 (TensorRT does not antialias)");
  return true;
}

static olg_status antialias_fix(olg_prule_site *st) {
  float sc[OLG_MAX_RANK];
  int32_t rank;
  bool from_sizes;
  bool up = scales_of(st, sc, &rank, &from_sizes);
  for (int32_t d = 0; up && d < rank; d++) up = sc[d] >= 1.0f;
  if (!up)
    return olg__prof_decline(st, "antialias changes a downscale (or the scales are not known)");
  static const char *const skip[] = {"antialias", NULL};
  olg_node_id nid;
  OLG_TRY(olg__prof_clone_begin(st, skip, &nid));
  snprintf(st->msg, sizeof st->msg, "antialias dropped (every scale >= 1: the filter does "
           "nothing when upscaling)");
  return olg__prof_clone_end(st, nid);
}

/* ---- tensorrt/resize-axes, tensorrt/resize-dims ---- */

static bool axes_match(olg_prule_site *st) {
  const olg_attr *aa = olg__node_attr(&st->g->nodes[st->node], "axes");
  float sc[OLG_MAX_RANK];
  int32_t rank;
  bool from_sizes;
  if (!aa || aa->type != OLG_ATTR_INTS || scales_of(st, sc, &rank, &from_sizes)) return false;
  rank = olg__prof_rank(st->g, olg__prof_input(st->g, st->node, 0));
  bool iota = rank >= 0 && aa->n == (size_t)rank;
  for (size_t k = 0; iota && k < aa->n; k++) iota = olg__norm_axis(aa->ints[k], rank) == (int64_t)k;
  if (iota) return false;
  snprintf(st->msg, sizeof st->msg, "Resize with axes other than 0..rank-1 and scales/sizes "
           "computed at run time");
  return true;
}

static bool dims_match(olg_prule_site *st) {
  char mode[16];
  olg__prof_attr_s(&st->g->nodes[st->node], "mode", "nearest", mode, sizeof mode);
  int inner = strcmp(mode, "linear") == 0 ? 3 : strcmp(mode, "cubic") == 0 ? 2 : 0;
  float sc[OLG_MAX_RANK];
  int32_t rank;
  bool from_sizes;
  if (!inner || !scales_of(st, sc, &rank, &from_sizes) || rank <= inner) return false;
  for (int32_t d = 0; d < rank - inner; d++)
    if (sc[d] != 1.0f) {
      snprintf(st->msg, sizeof st->msg, "%s resize of dim %d of a %d-D input (scale %g): "
               "TensorRT resizes only the %d innermost dims in that mode", mode, (int)d,
               (int)rank, (double)sc[d], inner);
      return true;
    }
  return false;
}

const olg_prule olg__trt_resize_rules[OLG_TRT_N_RESIZE_RULES] = {
    {.name = "tensorrt/resize-coord", .op = "Resize", .since = 11, .kind = OLG_PRULE_MATCH,
     .match = coord_match, .fix = coord_fix,
     .hint = "half_pixel_symmetric -> half_pixel where every output size is input size x "
             "scale; tf_crop_and_resize -> align_corners for a roi of the whole input"},
    {.name = "tensorrt/resize-antialias", .op = "Resize", .since = 18, .kind = OLG_PRULE_MATCH,
     .match = antialias_match, .fix = antialias_fix,
     .hint = "dropped where every scale is >= 1; a downscale has no exact rewrite"},
    {.name = "tensorrt/resize-aspect", .op = "Resize", .since = 18, .kind = OLG_PRULE_ATTR,
     .attr = "keep_aspect_ratio_policy", .svals = (const char *const[]){"stretch"}, .n_vals = 1,
     .has_dflt = true, .dflt_s = "stretch", .what = "TensorRT resizes with policy stretch only",
     .hint = "give the sizes the policy computes, with policy stretch"},
    {.name = "tensorrt/resize-axes", .op = "Resize", .since = 18, .kind = OLG_PRULE_MATCH,
     .match = axes_match, .hint = "make scales or sizes constant, or list every axis"},
    {.name = "tensorrt/resize-dims", .op = "Resize", .since = 10, .kind = OLG_PRULE_MATCH,
     .match = dims_match, .hint = "none exact here: resize the outer dims apart (Transpose them "
     "inward, resize, Transpose back)"},
    {.name = "tensorrt/resize-dims", .op = "Upsample", .since = 7, .kind = OLG_PRULE_MATCH,
     .match = dims_match, .hint = "none exact here: resize the outer dims apart"},
};
