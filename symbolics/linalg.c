/* onnxlegal — linear algebra: matmul, mm, bmm, addmm, baddbmm, linear, einsum, t, det. Arguments as
 * in PyTorch 1.13's schemas. MatMul takes integers from opset 9 (below: a double carrier for
 * 32-bit and narrower integers, int64 refused); Gemm serves float 2-D products with a bias. */
#include <string.h>

#include "emit_math.h"
#include "symbolics.h"


/* a @ b in their common dtype. */
static olg_status matmul(olg_lower *cx, olg_value a, olg_value b, olg_value *out) {
  olg_dtype t = olg__promote_types(olg__dtype(cx, a), olg__dtype(cx, b));
  OLG_TRY(olg__emit_cast(cx, a, t, &a));
  OLG_TRY(olg__emit_cast(cx, b, t, &b));
  return olg__emit_math2(cx, "MatMul", a, b, out);
}

/* aten::matmul(self, other), mm(self, mat2), bmm(self, mat2): numpy's matmul, as MatMul */
olg_status olg__sym_matmul(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  OLG_TRY(matmul(cx, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* x * k (argument i, a Scalar) in x's dtype; x itself when k is 1. */
static olg_status scaled(olg_lower *cx, olg_value x, double k, olg_value *out) {
  if (k == 1) return (*out = x, OLG_OK);
  olg_value kv;
  OLG_TRY(olg__const_like(cx, x, k, &kv));
  return olg__emit_math2(cx, "Mul", x, kv, out);
}

/* beta * self + alpha * (a @ b); self ignored when beta is 0 (PyTorch does not propagate its
 * NaN or inf then). A float 2-D product becomes one Gemm. */
static olg_status add_product(olg_lower *cx, bool batched) {
  olg_value s, a, b, y;
  double beta, alpha;
  OLG_TRY(olg_lower_arg_value(cx, 0, &s));
  OLG_TRY(olg_lower_arg_value(cx, 1, &a));
  OLG_TRY(olg_lower_arg_value(cx, 2, &b));
  OLG_TRY(olg__arg_float_or(cx, 3, 1, &beta));
  OLG_TRY(olg__arg_float_or(cx, 4, 1, &alpha));
  olg_dtype t = olg__promote_types(olg__dtype(cx, s), olg__promote_types(olg__dtype(cx, a), olg__dtype(cx, b)));
  OLG_TRY(olg__emit_cast(cx, s, t, &s));
  OLG_TRY(olg__emit_cast(cx, a, t, &a));
  OLG_TRY(olg__emit_cast(cx, b, t, &b));
  if (!batched && beta != 0 && olg__is_float(t) && olg__rank(cx, a) == 2 && olg__rank(cx, b) == 2 &&
      olg__rank(cx, s) >= 0 && olg__rank(cx, s) <= 2 && olg__op_takes(cx, "Gemm", 0, t)) {
    olg_value in[3] = {a, b, s};
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Gemm", &nd));
    for (int i = 0; i < 3; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
    if (alpha != 1) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "alpha", alpha));
    if (beta != 1) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "beta", beta));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(matmul(cx, a, b, &y));
  OLG_TRY(scaled(cx, y, alpha, &y));
  if (beta != 0) {
    OLG_TRY(scaled(cx, s, beta, &s));
    OLG_TRY(olg__emit_math2(cx, "Add", s, y, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::addmm(self, mat1, mat2, *, beta=1, alpha=1) */
olg_status olg__sym_addmm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return add_product(cx, false);
}

/* aten::baddbmm(self, batch1, batch2, *, beta=1, alpha=1) */
olg_status olg__sym_baddbmm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return add_product(cx, true);
}

/* aten::linear(input, weight, bias=None) = input @ weight^T + bias: Gemm (transB) for a 2-D
 * float input (without a bias only from Gemm-11, where C became optional); else MatMul with the
 * weight transposed, and Add. */
static olg_status linear(olg_lower *cx, bool gemm_no_c) {
  olg_value x, w, bias, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &bias));
  olg_dtype t = olg__dtype(cx, x);
  OLG_TRY(olg__emit_cast(cx, w, t, &w));
  if (bias != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, bias, t, &bias));
  int32_t wr = olg__rank(cx, w);
  if (olg__rank(cx, x) == 2 && wr == 2 && olg__is_float(t) &&
      (bias != OLG_NO_VALUE || gemm_no_c) &&
      olg__op_takes(cx, "Gemm", 0, t)) {
    olg_value in[3] = {x, w, bias};
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Gemm", &nd));
    for (int i = 0; i < (bias != OLG_NO_VALUE ? 3 : 2); i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "transB", 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (wr < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "linear: the weight's rank is not known");
  if (wr == 2) OLG_TRY(olg__emit_transpose(cx, w, (const int64_t[]){1, 0}, 2, &w));
  OLG_TRY(matmul(cx, x, w, &y));
  if (bias != OLG_NO_VALUE) OLG_TRY(olg__emit_math2(cx, "Add", y, bias, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Gemm-11: C optional, so no bias is a Gemm too */
olg_status olg__sym_linear(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return linear(cx, olg__target_input_optional(cx, "Gemm", "C"));
}

/* ---- einsum ---- */

/* An operand of einsum: its value and one label per dim (letters; the dims of "..." get labels
 * 256 + k, k counted from the ellipsis' last dim, so that they line up across operands as
 * PyTorch broadcasts them). */
typedef struct ein_term {
  olg_value v;
  int labels[OLG_MAX_RANK];
  int n;
} ein_term;

#define EIN_ELLIPSIS_BASE 256

static bool ein_has(const ein_term *t, int l) {
  for (int i = 0; i < t->n; i++)
    if (t->labels[i] == l) return true;
  return false;
}

/* Parses one side of the equation ("ab...c") for a tensor of rank `rank` (-1: the output, whose
 * ellipsis has n_ell dims). */
static olg_status ein_parse(olg_lower *cx, const char *s, size_t len, int32_t rank, int n_ell,
                            ein_term *t) {
  size_t letters = 0;
  bool ell = false;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.') {
      if (ell || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
        return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "einsum: a malformed '...'");
      ell = true;
      i += 2;
    } else if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')) {
      letters++;
    } else {
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "einsum: unexpected '%c' in the equation", s[i]);
    }
  }
  int e = rank >= 0 ? (int)rank - (int)letters : n_ell;
  if (e < 0 || (!ell && e > 0) || letters + (size_t)e > OLG_MAX_RANK)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "einsum: the equation does not match the ranks");
  t->n = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.') {
      for (int k = e - 1; k >= 0; k--) t->labels[t->n++] = EIN_ELLIPSIS_BASE + k;
      i += 2;
    } else {
      t->labels[t->n++] = (unsigned char)s[i];
    }
  }
  return OLG_OK;
}

/* The size of label l in t, or OLG_DIM_UNKNOWN. */
static int64_t ein_dim(const olg_lower *cx, const ein_term *t, int l) {
  for (int i = 0; i < t->n; i++)
    if (t->labels[i] == l) return olg__dim(cx, t->v, i);
  return OLG_DIM_UNKNOWN;
}

/* Sums t over its labels that `keep` does not need (keep(l) false), in place. */
static olg_status ein_sum_out(olg_lower *cx, ein_term *t, const int *keep, int n_keep) {
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  ein_term r = {t->v, {0}, 0};
  for (int i = 0; i < t->n; i++) {
    bool needed = false;
    for (int j = 0; j < n_keep && !needed; j++) needed = keep[j] == t->labels[i];
    if (needed) r.labels[r.n++] = t->labels[i];
    else axes[n++] = i;
  }
  if (!n) return OLG_OK;
  olg_dtype dt = olg__dtype(cx, t->v), ct;
  OLG_TRY(olg__compute_dtype(cx, "ReduceSum", 0, dt, &ct));
  OLG_TRY(olg__emit_cast(cx, t->v, ct, &r.v));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, r.v, axes, n, 0, &r.v));
  OLG_TRY(olg__emit_cast(cx, r.v, dt, &r.v));
  *t = r;
  return OLG_OK;
}

/* t transposed to the label order `order` (a permutation of t's labels). */
static olg_status ein_permute(olg_lower *cx, ein_term *t, const int *order, int n) {
  int64_t perm[OLG_MAX_RANK];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < t->n; j++)
      if (t->labels[j] == order[i]) perm[i] = j;
  OLG_TRY(olg__emit_transpose(cx, t->v, perm, (size_t)n, &t->v));
  memcpy(t->labels, order, (size_t)n * sizeof *order);
  t->n = n;
  return OLG_OK;
}

static olg_status ein_product(olg_lower *cx, const ein_term *t, const int *labels, int n,
                              int64_t *out) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) {
    int64_t d = ein_dim(cx, t, labels[i]);
    if (d < 0)
      return olg_lower_unsupported(cx, "einsum over a contracted or free dim whose size is not known (below Einsum-12)", 12);
    p *= d;
  }
  *out = p;
  return OLG_OK;
}

/* The contraction of a and b keeping the labels in keep[0..n_keep) (those of the output and of
 * the operands still to come): batch labels (in both, kept) lead, MatMul contracts [L, C] by
 * [C, R]. The result's labels: batch, a's free, b's free. */
static olg_status ein_pair(olg_lower *cx, ein_term *a, ein_term *b, const int *keep, int n_keep,
                           ein_term *out) {
  int batch[OLG_MAX_RANK], left[OLG_MAX_RANK], con[OLG_MAX_RANK], right[OLG_MAX_RANK];
  int nb = 0, nl = 0, nc = 0, nr = 0;
  /* sum out what only one side has and nothing needs */
  int need_a[2 * OLG_MAX_RANK + OLG_MAX_RANK], need_b[2 * OLG_MAX_RANK + OLG_MAX_RANK];
  int na = 0, nbk = 0;
  for (int i = 0; i < n_keep; i++) need_a[na++] = need_b[nbk++] = keep[i];
  for (int i = 0; i < b->n; i++) need_a[na++] = b->labels[i];
  for (int i = 0; i < a->n; i++) need_b[nbk++] = a->labels[i];
  OLG_TRY(ein_sum_out(cx, a, need_a, na));
  OLG_TRY(ein_sum_out(cx, b, need_b, nbk));
  for (int i = 0; i < a->n; i++) {
    int l = a->labels[i];
    bool kept = false;
    for (int j = 0; j < n_keep && !kept; j++) kept = keep[j] == l;
    if (ein_has(b, l)) {
      if (kept) batch[nb++] = l;
      else con[nc++] = l;
    } else {
      left[nl++] = l;
    }
  }
  for (int i = 0; i < b->n; i++)
    if (!ein_has(a, b->labels[i])) right[nr++] = b->labels[i];
  int oa[OLG_MAX_RANK], ob[OLG_MAX_RANK], k = 0;
  for (int i = 0; i < nb; i++) oa[k++] = batch[i];
  for (int i = 0; i < nl; i++) oa[k++] = left[i];
  for (int i = 0; i < nc; i++) oa[k++] = con[i];
  k = 0;
  for (int i = 0; i < nb; i++) ob[k++] = batch[i];
  for (int i = 0; i < nc; i++) ob[k++] = con[i];
  for (int i = 0; i < nr; i++) ob[k++] = right[i];
  OLG_TRY(ein_permute(cx, a, oa, nb + nl + nc));
  OLG_TRY(ein_permute(cx, b, ob, nb + nc + nr));
  int64_t L, C, R;
  OLG_TRY(ein_product(cx, a, left, nl, &L));
  OLG_TRY(ein_product(cx, a, con, nc, &C));
  OLG_TRY(ein_product(cx, b, right, nr, &R));
  /* [batch (copied: 0), L, C] @ [batch, C, R]; MatMul broadcasts batch dims of 1 */
  int64_t sa[OLG_MAX_RANK + 2], sb[OLG_MAX_RANK + 2], so[OLG_MAX_RANK * 2];
  for (int i = 0; i < nb; i++) { /* a known size (so that a no-op Reshape is seen), else copied */
    int64_t da = ein_dim(cx, a, batch[i]), db = ein_dim(cx, b, batch[i]);
    sa[i] = da >= 0 ? da : 0;
    sb[i] = db >= 0 ? db : 0;
    so[i] = da >= 0 && db >= 0 ? (da > db ? da : db) : 0;
  }
  sa[nb] = L, sa[nb + 1] = C, sb[nb] = C, sb[nb + 1] = R;
  olg_value a3, b3, y;
  OLG_TRY(olg__emit_reshape_static(cx, a->v, sa, (size_t)nb + 2, &a3));
  OLG_TRY(olg__emit_reshape_static(cx, b->v, sb, (size_t)nb + 2, &b3));
  OLG_TRY(olg__emit_math2(cx, "MatMul", a3, b3, &y));
  out->n = 0;
  for (int i = 0; i < nb; i++) out->labels[out->n++] = batch[i];
  int n = nb;
  for (int i = 0; i < nl; i++) so[n++] = ein_dim(cx, a, left[i]), out->labels[out->n++] = left[i];
  for (int i = 0; i < nr; i++) so[n++] = ein_dim(cx, b, right[i]), out->labels[out->n++] = right[i];
  if (out->n > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "einsum: rank above 16");
  return olg__emit_reshape_static(cx, y, so, (size_t)n, &out->v);
}

/* A label repeated inside one operand (dims a < b of one size d, known) takes the diagonal: the
 * two dims moved last, merged (d * d) and Gathered at 0, d + 1, 2 (d + 1), ..; repeated until
 * every label is once in the operand. */
static olg_status ein_diagonals(olg_lower *cx, ein_term *t) {
  for (;;) {
    int a = -1, b = -1;
    for (int i = 0; i < t->n && a < 0; i++)
      for (int j = i + 1; j < t->n; j++)
        if (t->labels[i] == t->labels[j]) {
          a = i;
          b = j;
          break;
        }
    if (a < 0) return OLG_OK;
    int64_t d = olg__dim(cx, t->v, a);
    if (d < 0 || olg__dim(cx, t->v, b) != d)
      return olg_lower_unsupported(cx, "einsum's diagonal of dims whose sizes are not known (below Einsum-12)", 12);
    int64_t perm[OLG_MAX_RANK], shape[OLG_MAX_RANK], *idx = olg__lower_alloc(cx, (size_t)(d ? d : 1) * sizeof *idx);
    int labels[OLG_MAX_RANK], m = 0;
    if (!idx) return OLG_ERR_NOMEM;
    for (int i = 0; i < t->n; i++)
      if (i != a && i != b) {
        perm[m] = i;
        shape[m] = 0; /* copies the (transposed) input's dim */
        labels[m++] = t->labels[i];
      }
    perm[m] = a;
    perm[m + 1] = b;
    shape[m] = d * d;
    labels[m] = t->labels[a];
    for (int64_t k = 0; k < d; k++) idx[k] = k * (d + 1);
    olg_value v, iv;
    OLG_TRY(olg__emit_transpose(cx, t->v, perm, (size_t)t->n, &v));
    OLG_TRY(olg__emit_reshape_static(cx, v, shape, (size_t)m + 1, &v));
    OLG_TRY(olg__const_i64s(cx, idx, (size_t)d, &iv));
    OLG_TRY(olg__emit_gather(cx, v, iv, m, &t->v));
    t->n = m + 1;
    memcpy(t->labels, labels, (size_t)t->n * sizeof *labels);
  }
}

/* Einsum below opset 12 (a label repeated inside one operand: its diagonal, ein_diagonals):
 * single operands are sums and transposes, pairs are MatMul (see ein_pair), folded left. */
static olg_status einsum_decomposed(olg_lower *cx, const char *eq, const olg_value *vals,
                                    size_t n, olg_dtype t, olg_value *y) {
  OLG_TRY(olg_lower_decompose(cx, "einsum", 12));
  if (n > 8) return olg_lower_unsupported(cx, "einsum of more than 8 tensors (below Einsum-12)", 12);
  const char *arrow = strstr(eq, "->");
  size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
  ein_term terms[8], out;
  const char *p = eq;
  int n_ell = 0;
  for (size_t i = 0; i < n; i++) {
    const char *q = p;
    while ((size_t)(q - eq) < lhs_len && *q != ',') q++;
    if (i + 1 < n ? *q != ',' : (size_t)(q - eq) != lhs_len)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "einsum: the equation's operands do not match the tensors");
    int32_t r = olg__rank(cx, vals[i]);
    if (r < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "einsum: an operand's rank is not known");
    OLG_TRY(olg__emit_cast(cx, vals[i], t, &terms[i].v));
    OLG_TRY(ein_parse(cx, p, (size_t)(q - p), r, 0, &terms[i]));
    for (int a = 0; a < terms[i].n; a++)
      if (terms[i].labels[a] >= EIN_ELLIPSIS_BASE && terms[i].labels[a] - EIN_ELLIPSIS_BASE + 1 > n_ell)
        n_ell = terms[i].labels[a] - EIN_ELLIPSIS_BASE + 1;
    OLG_TRY(ein_diagonals(cx, &terms[i]));
    p = q + 1;
  }
  if (arrow) {
    OLG_TRY(ein_parse(cx, arrow + 2, strlen(arrow + 2), -1, n_ell, &out));
  } else { /* implicit: the ellipsis, then the letters seen once, in alphabetical order */
    out.n = 0;
    for (int k = n_ell - 1; k >= 0; k--) out.labels[out.n++] = EIN_ELLIPSIS_BASE + k;
    for (int c = 'A'; c <= 'z'; c++) {
      int seen = 0;
      for (size_t i = 0; i < n; i++) seen += ein_has(&terms[i], c);
      if (seen == 1 && out.n < OLG_MAX_RANK) out.labels[out.n++] = c;
    }
  }
  /* an operand with fewer ellipsis dims lacks the leading ellipsis labels: they are free
   * labels of the others, which is how PyTorch broadcasts it */
  ein_term acc = terms[0];
  for (size_t i = 1; i < n; i++) {
    int keep[OLG_MAX_RANK * 9], nk = 0;
    for (int a = 0; a < out.n; a++) keep[nk++] = out.labels[a];
    for (size_t j = i + 1; j < n; j++)
      for (int a = 0; a < terms[j].n; a++) keep[nk++] = terms[j].labels[a];
    ein_term r;
    OLG_TRY(ein_pair(cx, &acc, &terms[i], keep, nk, &r));
    acc = r;
  }
  OLG_TRY(ein_sum_out(cx, &acc, out.labels, out.n));
  for (int a = 0; a < out.n; a++)
    if (!ein_has(&acc, out.labels[a]))
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "einsum: an output index is in no operand");
  OLG_TRY(ein_permute(cx, &acc, out.labels, out.n));
  *y = acc.v;
  return OLG_OK;
}

/* ONNX's Einsum wants "..." to stand for as many dims in every operand; PyTorch broadcasts a
 * shorter one from the left: dims of 1 are inserted where its ellipsis starts. */
static olg_status einsum_align_ellipses(olg_lower *cx, const char *eq, olg_value *in, size_t n) {
  const char *arrow = strstr(eq, "->");
  size_t lhs = arrow ? (size_t)(arrow - eq) : strlen(eq);
  int ell[8] = {0}, at[8] = {0}, max = 0;
  bool has[8] = {false};
  const char *p = eq;
  if (n > 8 || !memchr(eq, '.', lhs)) return OLG_OK;
  for (size_t i = 0; i < n; i++) {
    int letters = 0;
    for (; (size_t)(p - eq) < lhs && *p != ','; p++) {
      if (*p == '.') {
        if (!has[i]) at[i] = letters;
        has[i] = true;
      } else {
        letters++;
      }
    }
    p++;
    int32_t r = olg__rank(cx, in[i]);
    if (has[i] && r < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "einsum: an operand's rank is not known");
    ell[i] = has[i] ? r - letters : 0;
    if (ell[i] > max) max = ell[i];
  }
  for (size_t i = 0; i < n; i++) {
    if (!has[i] || ell[i] == max) continue;
    int64_t axes[OLG_MAX_RANK];
    for (int k = 0; k < max - ell[i] && k < OLG_MAX_RANK; k++) axes[k] = at[i] + k;
    OLG_TRY(olg__emit_unsqueeze(cx, in[i], axes, (size_t)(max - ell[i]), &in[i]));
  }
  return OLG_OK;
}

/* aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None): Einsum-12 (spaces, which
 * PyTorch allows, removed); below, einsum_decomposed. */
static olg_status einsum(olg_lower *cx, bool has_einsum) {
  const char *eq;
  const olg_value *vals;
  size_t n;
  OLG_TRY(olg_lower_arg_string(cx, 0, &eq));
  OLG_TRY(olg_lower_arg_values(cx, 1, &vals, &n));
  if (!n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "einsum of no tensors");
  size_t len = strlen(eq);
  char *e = olg__lower_alloc(cx, len + 1);
  if (!e) return OLG_ERR_NOMEM;
  size_t k = 0;
  for (size_t i = 0; i < len; i++)
    if (eq[i] != ' ' && eq[i] != '\t') e[k++] = eq[i];
  e[k] = 0;
  olg_dtype t = OLG_UNDEFINED, ct;
  for (size_t i = 0; i < n; i++) {
    if (vals[i] == OLG_NO_VALUE) return olg_lower_error(cx, OLG_ERR_TYPE, "einsum: a tensor is none");
    t = olg__promote_types(t, olg__dtype(cx, vals[i]));
  }
  olg_value y;
  if (!has_einsum) {
    OLG_TRY(einsum_decomposed(cx, e, vals, n, t, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg__compute_dtype(cx, "Einsum", 0, t, &ct));
  olg_node_id nd;
  olg_value *in = olg__lower_alloc(cx, n * sizeof *in);
  if (!in) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) OLG_TRY(olg__emit_cast(cx, vals[i], ct, &in[i]));
  OLG_TRY(einsum_align_ellipses(cx, e, in, n));
  OLG_TRY(olg_lower_emit_begin(cx, "", "Einsum", &nd));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "equation", e));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Einsum (12); below, MatMul/ReduceSum */
olg_status olg__sym_einsum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return einsum(cx, olg__target_has(cx, "Einsum"));
}

/* aten::t(self): the transpose of a 2-D tensor; 0-D and 1-D unchanged */
olg_status olg__sym_t(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t r = olg__rank(cx, x);
  if (r < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "t: the rank of the input is not known");
  if (r > 2) return olg__errf(cx, OLG_ERR_INVALID_ARG, "t: a tensor of rank %d (at most 2)", r);
  if (r < 2) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_transpose(cx, x, (const int64_t[]){1, 0}, 2, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX Einsum (12) below 12: the same decomposition as aten::einsum's (Transpose, ReduceSum,
 * MatMul; a diagonal is refused naming 12), the inputs of one type as Einsum requires. */
olg_status olg__sym_onnx_einsum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *eq = olg__src_attr_string(cx, "equation", NULL);
  if (!eq) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Einsum without an equation");
  size_t n = olg_lower_arg_count(cx), len = strlen(eq), k = 0;
  if (!n) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Einsum of no inputs");
  olg_value *vals = olg__lower_alloc(cx, n * sizeof *vals), y;
  char *e = olg__lower_alloc(cx, len + 1);
  if (!vals || !e) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < len; i++)
    if (eq[i] != ' ' && eq[i] != '\t') e[k++] = eq[i];
  e[k] = 0;
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_arg_value(cx, i, &vals[i]));
  OLG_TRY(einsum_decomposed(cx, e, vals, n, olg__dtype(cx, vals[0]), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* The determinant of the last two (square, n x n) dims: Det (11); below it, for n known and at
 * most 5, Leibniz's sum over the n! permutations: one Gather of the n factors of every term
 * (x flattened to [..., n*n]), ReduceProd over them, times the signs, ReduceSum. Float types. */
static olg_status det(olg_lower *cx, olg_value x, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  if (olg__op_takes(cx, "Det", 0, t)) return olg__emit1(cx, "Det", x, out);
  int32_t rank = olg__rank(cx, x);
  int64_t n = rank >= 2 ? olg__dim(cx, x, rank - 1) : -1;
  if (rank < 2 || n < 1 || olg__dim(cx, x, rank - 2) != n || n > 5)
    return olg_lower_unsupported(cx, "Det of matrices whose size is not known or above 5 x 5", 11);
  if (!olg__is_float(t)) return olg__unsupportedf(cx, 11, "Det of %s", olg_dtype_name(t));
  OLG_TRY(olg_lower_decompose(cx, "Det by Leibniz's formula", 11));
  int64_t terms = 1;
  for (int64_t i = 2; i <= n; i++) terms *= i;
  int64_t *idx = olg__lower_alloc(cx, (size_t)(terms * n) * sizeof *idx);
  float *sign = olg__lower_alloc(cx, (size_t)terms * sizeof *sign);
  if (!idx || !sign) return OLG_ERR_NOMEM;
  int64_t perm[5] = {0, 1, 2, 3, 4};
  for (int64_t k = 0; k < terms; k++) { /* permutations in lexicographic order */
    int inversions = 0;
    for (int64_t i = 0; i < n; i++) {
      idx[k * n + i] = i * n + perm[i];
      for (int64_t j = i + 1; j < n; j++) inversions += perm[i] > perm[j];
    }
    sign[k] = inversions % 2 ? -1 : 1;
    int64_t i = n - 2, j = n - 1; /* the next permutation */
    while (i >= 0 && perm[i] > perm[i + 1]) i--;
    if (i < 0) break;
    while (perm[j] < perm[i]) j--;
    int64_t tmp = perm[i];
    perm[i] = perm[j], perm[j] = tmp;
    for (int64_t a = i + 1, b = n - 1; a < b; a++, b--) tmp = perm[a], perm[a] = perm[b], perm[b] = tmp;
  }
  int64_t flat_shape[OLG_MAX_RANK];
  for (int32_t d = 0; d < rank - 2; d++) flat_shape[d] = 0; /* the batch dims as they are */
  flat_shape[rank - 2] = n * n;
  olg_value xf, iv, sv, y;
  OLG_TRY(olg__emit_reshape_static(cx, x, flat_shape, (size_t)rank - 1, &xf));
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, (const int64_t[]){terms, n}, idx,
                                 (size_t)(terms * n) * sizeof *idx, &iv));
  OLG_TRY(olg__emit_gather(cx, xf, iv, rank - 2, &y)); /* [..., terms, n] */
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_PROD, y, (const int64_t[]){rank - 1}, 1, 0, &y));
  OLG_TRY(olg__const_f32s(cx, sign, (size_t)terms, &sv));
  OLG_TRY(olg__emit_cast(cx, sv, t, &sv));
  OLG_TRY(olg__emit2(cx, "Mul", y, sv, &y));
  return olg__emit_reduce(cx, OLG_REDUCE_SUM, y, (const int64_t[]){rank - 2}, 1, 0, out);
}

/* ONNX Det (11) and aten::linalg_det / det(Tensor self): one meaning */
olg_status olg__sym_det(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(det(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}
