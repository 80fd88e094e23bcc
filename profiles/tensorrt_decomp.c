/* onnxlegal — exact decompositions of ops TensorRT's parser (onnx-tensorrt 96e7811) and
 * OpenVINO's ONNX frontend lack, into ops both accept (profiles/tensorrt.h). Each is the op's
 * meaning per the ONNX spec (/work/shared/onnx-spec/Operators.md), written with emit helpers. */
#include <stdio.h>
#include <string.h>

#include "tensorrt.h"

/* Bernoulli(x) = Cast(RandomUniformLike(x) < x), the emitter of Bernoulli below 15. */
olg_status olg__prof_bernoulli(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  const olg_node *nd = &olg__prof_graph(cx)->nodes[st->node];
  olg_value x = olg__prof_input(olg__prof_graph(cx), st->node, 0);
  olg_dtype xt = olg__dtype(cx, x);
  const olg_attr *seed = olg__node_attr(nd, "seed");
  if (xt == OLG_UNDEFINED)
    return olg__prof_decline(st, "Bernoulli of '%s' of unknown type", olg__prof_graph(cx)->values[x].name);
  olg_value y;
  OLG_TRY(olg__emit_bernoulli(cx, x, (olg_dtype)olg__prof_attr_i(nd, "dtype", (int64_t)xt), seed != NULL,
                              seed ? seed->f : 0, &y));
  snprintf(st->msg, sizeof st->msg, "Bernoulli made Cast(RandomUniformLike(x) < x)");
  return olg__prof_replace_outputs(st, &y, 1);
}

/* MaxUnpool(X, I[, output_shape]): I indexes the flattened output (MaxPool's Indices, batch
 * and channel included), so Y = Reshape(ScatterElements(zeros(prod(shape)), I', X')), where
 * shape is output_shape, or per spatial dim (in - 1) * stride - pad_begin - pad_end + kernel. */
olg_status olg__prof_maxunpool(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_node_id i = st->node;
  const olg_graph *g = olg__prof_graph(cx);
  const olg_node *nd = &g->nodes[i];
  olg_value x = olg__prof_input(g, i, 0), ind = olg__prof_input(g, i, 1);
  olg_value osv = olg__prof_input(g, i, 2);
  int64_t dims[OLG_MAX_RANK], out[OLG_MAX_RANK];
  int32_t rank;
  if (!olg__static_shape(cx, x, dims, &rank) || rank < 3)
    return olg__prof_decline(st, "MaxUnpool of '%s' whose shape is not static", g->values[x].name);
  int32_t ns = rank - 2;
  if (osv != OLG_NO_VALUE) {
    const int64_t *p;
    size_t n;
    if (!olg__known_ints(cx, osv, &p, &n) || n != (size_t)rank)
      return olg__prof_decline(st, "MaxUnpool's output_shape '%s' is computed at run time",
                              g->values[osv].name);
    for (int32_t d = 0; d < rank; d++) out[d] = p[d];
  } else {
    const olg_attr *ks = olg__node_attr(nd, "kernel_shape"), *sa = olg__node_attr(nd, "strides");
    const olg_attr *pd = olg__node_attr(nd, "pads");
    if (!ks || ks->n != (size_t)ns)
      return olg__prof_decline(st, "MaxUnpool without a "
                              "kernel_shape of %d dims", ns);
    out[0] = dims[0];
    out[1] = dims[1];
    for (int32_t d = 0; d < ns; d++) {
      int64_t s = sa && sa->n == (size_t)ns ? sa->ints[d] : 1;
      int64_t pb = pd && pd->n == 2 * (size_t)ns ? pd->ints[d] : 0;
      int64_t pe = pd && pd->n == 2 * (size_t)ns ? pd->ints[ns + d] : 0;
      int64_t k = ks->ints[d], lim = (int64_t)1 << 31; /* no overflow on hostile attributes */
      if (s < 1 || s > lim || k < 1 || k > lim || pb < 0 || pb > lim || pe < 0 || pe > lim ||
          dims[2 + d] > lim)
        return olg__prof_decline(st, "MaxUnpool with strides, kernel or pads out of range");
      out[2 + d] = (dims[2 + d] - 1) * s - pb - pe + k;
    }
  }
  int64_t total = 1;
  for (int32_t d = 0; d < rank; d++) {
    if (out[d] < 0 || (out[d] && total > INT64_MAX / out[d]))
      return olg__prof_decline(st, "MaxUnpool output too large");
    total *= out[d];
  }
  olg_dtype xt = olg__dtype(cx, x);
  olg_value flat_shape, zeros, xf, idf, sc, y, shape_v;
  OLG_TRY(olg__const_i64s(cx, &total, 1, &flat_shape));
  OLG_TRY(olg__emit_full(cx, flat_shape, xt == OLG_UNDEFINED ? OLG_FLOAT : xt, 0.0, &zeros));
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &xf));
  OLG_TRY(olg__emit_reshape_static(cx, ind, (const int64_t[]){-1}, 1, &idf));
  OLG_TRY(olg__emit_scatter_elements(cx, zeros, idf, xf, 0, NULL, &sc));
  OLG_TRY(olg__const_i64s(cx, out, (size_t)rank, &shape_v));
  OLG_TRY(olg__emit_reshape(cx, sc, shape_v, &y));
  snprintf(st->msg, sizeof st->msg, "MaxUnpool made a ScatterElements into zeros");
  return olg__prof_replace_outputs(st, &y, 1);
}

/* LpPool(x) = (sum over the window of |x|^p)^(1/p) = (AveragePool(|x|^p) * prod(kernel))^(1/p)
 * with count_include_pad=1 (padding adds |0|^p = 0). Refused with ceil_mode (a window past the
 * end is averaged over fewer elements). */
olg_status olg__prof_lppool(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_node_id i = st->node;
  const olg_node *nd = &olg__prof_graph(cx)->nodes[i];
  olg_value x = olg__prof_input(olg__prof_graph(cx), i, 0);
  const olg_attr *ks = olg__node_attr(nd, "kernel_shape");
  int64_t p = olg__prof_attr_i(nd, "p", 2);
  const olg_attr *dil = olg__node_attr(nd, "dilations");
  bool dilated = false;
  for (size_t k = 0; dil && k < dil->n; k++) dilated |= dil->ints[k] != 1;
  if (!ks || p < 1 || olg__prof_attr_i(nd, "ceil_mode", 0) != 0 ||
      (dilated && olg__opset(cx) < 19))
    return olg__prof_decline(st, "LpPool with ceil_mode, p < 1, or dilations below opset 19");
  int64_t kprod = 1;
  for (size_t k = 0; k < ks->n; k++) {
    if (ks->ints[k] < 1 || ks->ints[k] > ((int64_t)1 << 24) / kprod)
      return olg__prof_decline(st, "LpPool with a kernel of more than 2^24 elements");
    kprod *= ks->ints[k]; /* exact in float below 2^24 */
  }
  static const char *const pool_attrs[] = {"kernel_shape", "strides", "pads", "auto_pad",
                                           "dilations", NULL};
  olg_value a, ap, avg, kc, sum, y;
  OLG_TRY(olg__emit1(cx, "Abs", x, &a));
  if (p == 1) ap = a;
  else if (p == 2) OLG_TRY(olg__emit2(cx, "Mul", a, a, &ap));
  else {
    olg_value pc;
    OLG_TRY(olg__const_like(cx, x, (double)p, &pc));
    OLG_TRY(olg__emit2(cx, "Pow", a, pc, &ap));
  }
  olg_node_id nid;
  OLG_TRY(olg_lower_emit_begin(cx, "", "AveragePool", &nid));
  OLG_TRY(olg_lower_emit_input(cx, nid, ap));
  OLG_TRY(olg_lower_emit_attr_int(cx, nid, "count_include_pad", 1));
  for (const char *const *n = pool_attrs; *n; n++) {
    nd = &olg__prof_graph(cx)->nodes[i];
    const olg_attr *at = olg__node_attr(nd, *n);
    if (!at || (strcmp(*n, "dilations") == 0 && !dilated)) continue;
    if (at->type == OLG_ATTR_INTS) OLG_TRY(olg_lower_emit_attr_ints(cx, nid, *n, at->ints, at->n));
    else if (at->type == OLG_ATTR_STRING) {
      char buf[32];
      size_t m = at->s.n < sizeof buf - 1 ? at->s.n : sizeof buf - 1;
      memcpy(buf, at->s.p, m);
      buf[m] = 0;
      OLG_TRY(olg_lower_emit_attr_string(cx, nid, *n, buf));
    }
  }
  OLG_TRY(olg_lower_emit_end(cx, nid, 1, &avg));
  OLG_TRY(olg__const_like(cx, x, (double)kprod, &kc));
  OLG_TRY(olg__emit2(cx, "Mul", avg, kc, &sum));
  if (p == 1) y = sum;
  else if (p == 2) OLG_TRY(olg__emit1(cx, "Sqrt", sum, &y));
  else {
    olg_value ip;
    OLG_TRY(olg__const_like(cx, x, 1.0 / (double)p, &ip));
    OLG_TRY(olg__emit2(cx, "Pow", sum, ip, &y));
  }
  snprintf(st->msg, sizeof st->msg, "LpPool made (AveragePool(|x|^p) * %lld)^(1/p)",
           (long long)kprod);
  return olg__prof_replace_outputs(st, &y, 1);
}

/* The Optional built in the graph that v is, or -1. */
static int32_t optional_producer(const olg_graph *g, olg_value v) {
  int32_t p = v >= 0 ? g->values[v].producer : -1;
  if (p < 0 || *g->nodes[p].domain || strcmp(g->nodes[p].op, "Optional") != 0) return -1;
  return p;
}

/* Optional(x) feeding OptionalHasElement/OptionalGetElement: those read x directly (or its
 * absence), and the Optional is left to the cleanup; a plain tensor given to them (opset 18)
 * has an element. Anything else (optionals from graph inputs, If branches) is refused. */
olg_status olg__prof_optional(olg_prule_site *st, bool *done) {
  olg_lower *cx = st->cx;
  olg_node_id i = st->node;
  const olg_graph *g = olg__prof_graph(cx);
  const olg_node *nd = &g->nodes[i];
  *done = false;
  if (strcmp(nd->op, "Optional") == 0) {
    /* dead once its readers are rewritten; kept (and refused) if a graph output */
    *done = !(g->values[nd->outputs[0]].flags & OLG_VF_OUTPUT);
    if (*done) snprintf(st->msg, sizeof st->msg, "left to the cleanup (its readers read its input)");
    return OLG_OK;
  }
  olg_value o = olg__prof_input(g, i, 0);
  int32_t p = o == OLG_NO_VALUE ? -1 : optional_producer(g, o);
  bool tensor = o != OLG_NO_VALUE && g->values[o].type.kind == OLG_TYPE_TENSOR;
  if (o != OLG_NO_VALUE && p < 0 && !tensor) return OLG_OK;
  olg_value inner = tensor ? o : p >= 0 ? olg__prof_input(g, (uint32_t)p, 0) : OLG_NO_VALUE;
  olg_value y;
  if (strcmp(nd->op, "OptionalHasElement") == 0) {
    bool has = inner != OLG_NO_VALUE;
    OLG_TRY(olg__const_tensor(cx, OLG_BOOL, 0, NULL, &has, 1, &y));
  } else if (strcmp(nd->op, "OptionalGetElement") == 0 && inner != OLG_NO_VALUE) {
    y = inner;
  } else {
    return OLG_OK;
  }
  snprintf(st->msg, sizeof st->msg, "%s of an Optional built in the graph read directly",
           olg__prof_graph(cx)->nodes[i].op);
  *done = true;
  return olg__prof_replace_outputs(st, &y, 1);
}

/* Det of n x n matrices, n <= 3 and static: the cofactor (Leibniz) formula over the entries,
 * each read by a Gather from the matrices flattened to [..., n*n]. */
olg_status olg__prof_det(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_value x = olg__prof_input(olg__prof_graph(cx), st->node, 0);
  int32_t rank = olg__rank(cx, x);
  int64_t n = rank >= 2 ? olg__dim(cx, x, rank - 1) : -1;
  if (rank < 2 || rank > OLG_MAX_RANK || n < 1 || n > 3 || olg__dim(cx, x, rank - 2) != n)
    return olg__prof_decline(st, "Det of matrices that are not static 1x1, 2x2 or 3x3");
  int64_t dims[OLG_MAX_RANK];
  for (int32_t d = 0; d < rank - 2; d++) dims[d] = 0; /* 0: the input's dim */
  dims[rank - 2] = n * n;
  olg_value xf, e[9], y;
  OLG_TRY(olg__emit_reshape_static(cx, x, dims, (size_t)rank - 1, &xf));
  for (int64_t k = 0; k < n * n; k++) {
    olg_value idx;
    OLG_TRY(olg__const_i64(cx, k, &idx));
    OLG_TRY(olg__emit_gather(cx, xf, idx, rank - 2, &e[k]));
  }
  if (n == 1) {
    y = e[0];
  } else if (n == 2) {
    olg_value ad, bc;
    OLG_TRY(olg__emit2(cx, "Mul", e[0], e[3], &ad));
    OLG_TRY(olg__emit2(cx, "Mul", e[1], e[2], &bc));
    OLG_TRY(olg__emit2(cx, "Sub", ad, bc, &y));
  } else {
    /* a(ei - fh) - b(di - fg) + c(dh - eg) */
    static const int m[3][5] = {{0, 4, 8, 5, 7}, {1, 3, 8, 5, 6}, {2, 3, 7, 4, 6}};
    olg_value t[3];
    for (int r = 0; r < 3; r++) {
      olg_value p, q, minor;
      OLG_TRY(olg__emit2(cx, "Mul", e[m[r][1]], e[m[r][2]], &p));
      OLG_TRY(olg__emit2(cx, "Mul", e[m[r][3]], e[m[r][4]], &q));
      OLG_TRY(olg__emit2(cx, "Sub", p, q, &minor));
      OLG_TRY(olg__emit2(cx, "Mul", e[m[r][0]], minor, &t[r]));
    }
    olg_value s;
    OLG_TRY(olg__emit2(cx, "Sub", t[0], t[1], &s));
    OLG_TRY(olg__emit2(cx, "Add", s, t[2], &y));
  }
  snprintf(st->msg, sizeof st->msg, "Det of %lldx%lld matrices made the cofactor formula",
           (long long)n, (long long)n);
  return olg__prof_replace_outputs(st, &y, 1);
}
