/* onnxlegal — inference rules: ops that compute or rearrange shapes (Shape, Reshape, Slice,
 * Gather, Concat, ...), and the propagation of small shape values through them; constants and
 * data-dependent outputs are infer_const.c. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "infer_impl.h"

#define MAXR OLG_INFER_MAX_RANK
#define SYM_UNK ((olg_dim){OLG_SYM_UNKNOWN, NULL, NULL})

bool olg__infer_sym_is_num(const olg_dim *d) { return !d->param && d->value != OLG_SYM_UNKNOWN; }

/* A dim from one element of a shape value: a number >= 0, a dim_param, or unknown. */
olg_dim olg__infer_dim_from_sym(const olg_dim *s) {
  if (s->param) return (olg_dim){OLG_DIM_UNKNOWN, s->param, NULL};
  if (s->value >= 0) return olg__dnum(s->value);
  return olg__dunk();
}

/* An element of a shape value from a dim. */
static olg_dim sym_from_dim(const olg_dim *d) {
  if (d->value >= 0) return olg__dnum(d->value);
  if (d->param) return (olg_dim){OLG_SYM_UNKNOWN, d->param, NULL};
  return SYM_UNK;
}

/* Output i is input's known tensor under a new shape, sharing its bytes (no copy). */
static olg_status known_reshaped(olg_icx *cx, int i, const olg_tensor *src, const olg_ishape *s) {
  int64_t n;
  if (!olg__shape_numel_known(s, &n)) return OLG_OK;
  olg_tensor *t = olg__arena_dup(cx->m, src, sizeof *src);
  if (!t) return OLG_ERR_NOMEM;
  t->name = NULL;
  t->rank = s->rank;
  t->dims = s->rank ? olg__arena_alloc(cx->m, (size_t)s->rank * sizeof *t->dims) : NULL;
  if (s->rank && !t->dims) return OLG_ERR_NOMEM;
  for (int32_t k = 0; k < s->rank; k++) t->dims[k] = s->d[k].value;
  t->owner = OLG_OWNER_BORROWED; /* the bytes stay owned by the source */
  t->external = NULL;
  t->n_external = 0;
  return olg__set_out_known(cx, i, t);
}

/* Axes from the INTS attribute (older opsets) or input idx (newer). *have false: none given. */
static bool axes_of(const olg_icx *cx, bool from_input, int idx, int64_t *axes, size_t *n,
                    bool *have) {
  const int64_t *p;
  size_t an;
  *have = false;
  *n = 0;
  if (!from_input) {
    if (!olg__attr_ints(cx, "axes", &p, &an)) return true;
    *have = true;
    if (an > MAXR) return false;
    memcpy(axes, p, an * sizeof *p);
    *n = an;
    return true;
  }
  if (olg__nin(cx) <= idx || !olg__in(cx, idx)) return true;
  *have = true;
  return olg__in_ints(cx, idx, axes, MAXR, n);
}

/* ---------------------------------------------------------------------------------------- */

OLG_INFER_RULE(olg__inf_shape) {
  olg_ishape x;
  olg_ishape out;
  olg__shape_rank(&out, 1);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, OLG_INT64, &out);
  int64_t r = x.rank, start = olg__attr_i(cx, "start", 0), end = olg__attr_i(cx, "end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  olg_dim v[MAXR];
  size_t n = 0;
  for (int64_t k = start; k < end; k++) v[n++] = sym_from_dim(&x.d[k]);
  return olg__set_out_syms(cx, 0, OLG_INT64, 1, v, n);
}

OLG_INFER_RULE(olg__inf_size) {
  olg_ishape x, scalar = {.rank = 0};
  int64_t n;
  if (olg__in_shape(cx, 0, &x) && olg__shape_numel_known(&x, &n))
    return olg__set_out_ints(cx, 0, OLG_INT64, 0, NULL, &n, 1);
  return olg__set_out(cx, 0, OLG_INT64, &scalar);
}

/* Resolves the one -1 of a Reshape target from the input's dims, symbolically: the product of
 * the input's dims divided by the product of the other target dims, after cancelling the
 * dim_params both sides share. */
static olg_dim infer_minus_one(const olg_ishape *x, const olg_ishape *out, int32_t at) {
  const char *np[MAXR], *dp[MAXR];
  int nn = 0, nd = 0;
  uint64_t num = 1, den = 1;
  for (int32_t k = 0; k < x->rank; k++) {
    if (x->d[k].value >= 0) {
      if (!olg__mul_u64(num, (uint64_t)x->d[k].value, &num)) return olg__dunk();
    } else if (x->d[k].param) {
      np[nn++] = x->d[k].param;
    } else {
      return olg__dunk();
    }
  }
  for (int32_t k = 0; k < out->rank; k++) {
    if (k == at) continue;
    if (out->d[k].value >= 0) {
      if (!olg__mul_u64(den, (uint64_t)out->d[k].value, &den)) return olg__dunk();
    } else if (out->d[k].param) {
      dp[nd++] = out->d[k].param;
    } else {
      return olg__dunk();
    }
  }
  for (int i = 0; i < nd; i++) {
    int j;
    for (j = 0; j < nn; j++)
      if (np[j] && strcmp(np[j], dp[i]) == 0) break;
    if (j == nn) return olg__dunk();
    np[j] = NULL;
    dp[i] = NULL;
  }
  const char *left = NULL;
  int n_left = 0;
  for (int j = 0; j < nn; j++)
    if (np[j]) { left = np[j]; n_left++; }
  if (den == 0 || num % den != 0) return olg__dunk();
  uint64_t q = num / den;
  if (n_left == 0) return q <= INT64_MAX ? olg__dnum((int64_t)q) : olg__dunk();
  if (n_left == 1 && q == 1) return (olg_dim){OLG_DIM_UNKNOWN, left, NULL};
  return olg__dunk();
}

OLG_INFER_RULE(olg__inf_reshape) {
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_dim t[MAXR];
  size_t n = 0;
  bool have = false;
  if (cx->opset < 5) {
    const int64_t *p;
    size_t an;
    if (olg__attr_ints(cx, "shape", &p, &an) && an <= MAXR) {
      for (size_t k = 0; k < an; k++) t[k] = olg__dnum(p[k]);
      n = an;
      have = true;
    }
  } else {
    have = olg__in_syms(cx, 1, t, MAXR, &n);
  }
  if (!have) return olg__set_out(cx, 0, dt, NULL);
  bool allowzero = olg__attr_i(cx, "allowzero", 0) != 0;
  olg_ishape x, out;
  bool xs = olg__in_shape(cx, 0, &x);
  olg__shape_rank(&out, (int64_t)n);
  int32_t minus = -1;
  for (int32_t k = 0; k < (int32_t)n; k++) {
    if (!olg__infer_sym_is_num(&t[k])) {
      out.d[k] = olg__infer_dim_from_sym(&t[k]);
      continue;
    }
    int64_t v = t[k].value;
    if (v == -1) {
      if (minus >= 0) return olg__fail(cx, "the target shape has more than one -1 (dims %d and %d)", (int)minus, (int)k);
      minus = k;
    } else if (v == 0 && !allowzero) {
      if (xs && k >= x.rank)
        return olg__fail(cx, "target dim %d is 0 (copy the input's dim) but the input has rank %d", (int)k, (int)x.rank);
      out.d[k] = xs ? x.d[k] : olg__dunk();
    } else if (v < 0) {
      return olg__fail(cx, "target dim %d is %lld; dims must be >= -1", (int)k, (long long)v);
    } else {
      out.d[k] = olg__dnum(v);
    }
  }
  if (minus >= 0) {
    if (allowzero) {
      for (int32_t k = 0; k < out.rank; k++)
        if (out.d[k].value == 0)
          return olg__fail(cx, "with allowzero=1 the target shape may not hold both 0 and -1");
    }
    out.d[minus] = xs ? infer_minus_one(&x, &out, minus) : olg__dunk();
    /* all else known: the -1 must divide exactly */
    olg_ishape rest = out;
    rest.d[minus] = olg__dnum(1);
    int64_t nx, nr;
    if (xs && olg__shape_numel_known(&x, &nx) && olg__shape_numel_known(&rest, &nr) &&
        (nr == 0 ? nx != 0 : nx % nr != 0))
      return olg__fail(cx, "cannot reshape %lld elements into a shape whose known dims hold %lld (the -1 would not be whole)",
                       (long long)nx, (long long)nr);
  }
  int64_t nin, nout;
  if (xs && olg__shape_numel_known(&x, &nin) && olg__shape_numel_known(&out, &nout) && nin != nout)
    return olg__fail(cx, "cannot reshape %lld elements into %lld", (long long)nin, (long long)nout);
  olg_status st = olg__set_out(cx, 0, dt, &out);
  if (st) return st;
  const olg_tensor *k = olg__in_known(cx, 0);
  if (k && olg__shape_numel_known(&out, &nout)) return known_reshaped(cx, 0, k, &out);
  const olg_value_rec *r = olg__in(cx, 0);
  if (r && olg__value_sym(r) && out.rank <= 1 && (out.rank == 1 || olg__value_n_sym(r) == 1))
    return olg__set_out_syms(cx, 0, dt, out.rank, olg__value_sym(r), olg__value_n_sym(r));
  return OLG_OK;
}

static olg_dim dims_product(const olg_dim *d, int32_t from, int32_t to) {
  olg_dim p = olg__dnum(1);
  for (int32_t k = from; k < to; k++) p = olg__dim_mul(p, d[k]);
  return p;
}

OLG_INFER_RULE(olg__inf_flatten) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg__shape_rank(&out, 2);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, &out);
  int64_t axis = olg__attr_i(cx, "axis", 1);
  if (axis < -(int64_t)x.rank || axis > x.rank)
    return olg__fail(cx, "axis %lld is out of range for rank %d (allowed: %d..%d)", (long long)axis,
                     (int)x.rank, -(int)x.rank, (int)x.rank);
  if (axis < 0) axis += x.rank;
  out.d[0] = dims_product(x.d, 0, (int32_t)axis);
  out.d[1] = dims_product(x.d, (int32_t)axis, x.rank);
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_transpose) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  const int64_t *perm;
  size_t n;
  bool have = olg__attr_ints(cx, "perm", &perm, &n);
  if (!olg__in_shape(cx, 0, &x)) {
    if (have && olg__shape_rank(&out, (int64_t)n)) return olg__set_out(cx, 0, dt, &out);
    return olg__set_out(cx, 0, dt, NULL);
  }
  out.rank = x.rank;
  if (have) {
    if ((int32_t)n != x.rank)
      return olg__fail(cx, "perm has %zu entries but the input has rank %d", n, (int)x.rank);
    bool seen[MAXR] = {false};
    for (size_t k = 0; k < n; k++) {
      int64_t p = perm[k];
      if (p < 0) p += x.rank; /* negative entries are tolerated by runtimes */
      if (p < 0 || p >= x.rank || seen[p])
        return olg__fail(cx, "perm is not a permutation of 0..%d (entry %zu is %lld)", (int)x.rank - 1, k, (long long)perm[k]);
      seen[p] = true;
      out.d[k] = x.d[p];
    }
  } else {
    for (int32_t k = 0; k < x.rank; k++) out.d[k] = x.d[x.rank - 1 - k];
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_squeeze) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  int64_t axes[MAXR];
  size_t n;
  bool have;
  bool ok = axes_of(cx, cx->opset >= 13, 1, axes, &n, &have);
  if (!olg__in_shape(cx, 0, &x) || !ok) return olg__set_out(cx, 0, dt, NULL);
  out.rank = 0;
  if (!have) {
    for (int32_t k = 0; k < x.rank; k++) {
      if (x.d[k].value == 1) continue;
      if (x.d[k].value < 0) return olg__set_out(cx, 0, dt, NULL); /* may or may not be 1 */
      out.d[out.rank++] = x.d[k];
    }
  } else {
    bool sq[MAXR] = {false};
    for (size_t i = 0; i < n; i++) {
      int32_t a;
      olg_status st = olg__axis(cx, axes[i], x.rank, "squeeze axis", &a);
      if (st) return st;
      if (x.d[a].value >= 0 && x.d[a].value != 1)
        return olg__fail(cx, "cannot squeeze axis %d: its dim is %lld, not 1", (int)a, (long long)x.d[a].value);
      sq[a] = true;
    }
    for (int32_t k = 0; k < x.rank; k++)
      if (!sq[k]) out.d[out.rank++] = x.d[k];
  }
  olg_status st = olg__set_out(cx, 0, dt, &out);
  if (st) return st;
  const olg_tensor *k = olg__in_known(cx, 0);
  if (k) return known_reshaped(cx, 0, k, &out);
  const olg_value_rec *r = olg__in(cx, 0);
  if (r && olg__value_sym(r) && out.rank == 0 && olg__value_n_sym(r) == 1)
    return olg__set_out_syms(cx, 0, dt, 0, olg__value_sym(r), 1);
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_unsqueeze) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  int64_t axes[MAXR];
  size_t n;
  bool have;
  bool ok = axes_of(cx, cx->opset >= 13, 1, axes, &n, &have);
  if (!olg__in_shape(cx, 0, &x) || !ok || !have) return olg__set_out(cx, 0, dt, NULL);
  int64_t r = x.rank + (int64_t)n;
  if (r > MAXR) return olg__set_out(cx, 0, dt, NULL);
  bool ins[MAXR] = {false};
  for (size_t i = 0; i < n; i++) {
    int32_t a;
    olg_status st = olg__axis(cx, axes[i], (int32_t)r, "unsqueeze axis", &a);
    if (st) return st;
    if (ins[a]) return olg__fail(cx, "axis %d is listed twice", (int)a);
    ins[a] = true;
  }
  out.rank = (int32_t)r;
  for (int32_t k = 0, j = 0; k < out.rank; k++) out.d[k] = ins[k] ? olg__dnum(1) : x.d[j++];
  olg_status st = olg__set_out(cx, 0, dt, &out);
  if (st) return st;
  const olg_tensor *k = olg__in_known(cx, 0);
  if (k) return known_reshaped(cx, 0, k, &out);
  const olg_value_rec *rv = olg__in(cx, 0);
  if (rv && olg__value_sym(rv) && out.rank == 1 && olg__value_n_sym(rv) == 1)
    return olg__set_out_syms(cx, 0, dt, 1, olg__value_sym(rv), 1);
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_concat) {
  int nin = olg__nin(cx);
  olg_dtype dt = OLG_UNDEFINED;
  olg_ishape out;
  olg__shape_unknown(&out);
  for (int i = 0; i < nin; i++)
    if (!dt) dt = olg__in_dtype(cx, i);
  int64_t axis = olg__attr_i(cx, "axis", cx->opset < 4 ? 1 : 0);
  int32_t ax = -1;
  bool all = true;
  olg_dim sum = olg__dnum(0);
  for (int i = 0; i < nin; i++) {
    olg_ishape s;
    if (!olg__in_shape(cx, i, &s)) { all = false; continue; }
    if (out.rank < 0) {
      olg_status st = olg__axis(cx, axis, s.rank, "axis", &ax);
      if (st) return st;
      out = s;
      sum = s.d[ax];
      continue;
    }
    if (s.rank != out.rank)
      return olg__fail(cx, "input %d has rank %d, input 0 has rank %d: all must have the same rank", i, (int)s.rank, (int)out.rank);
    for (int32_t k = 0; k < s.rank; k++) {
      if (k == ax) continue;
      if (s.d[k].value >= 0 && out.d[k].value >= 0 && s.d[k].value != out.d[k].value)
        return olg__fail(cx, "dim %d is %lld in input %d but %lld in an earlier input (only the axis %d may differ)",
                         (int)k, (long long)s.d[k].value, i, (long long)out.d[k].value, (int)ax);
      if (out.d[k].value < 0 && (s.d[k].value >= 0 || (!out.d[k].param && s.d[k].param))) out.d[k] = s.d[k];
    }
    int64_t t;
    if (sum.value >= 0 && s.d[ax].value >= 0)
      sum = olg__add_i64(sum.value, s.d[ax].value, &t) ? olg__dnum(t) : olg__dunk(); /* unknown on overflow */
    else if (s.d[ax].value == 0) { /* adds nothing */ }
    else if (sum.value == 0) sum = s.d[ax];
    else sum = olg__dunk();
  }
  if (out.rank >= 0) out.d[ax] = all ? sum : olg__dunk();
  olg_status st = olg__set_out(cx, 0, dt, &out);
  if (st || out.rank != 1 || !all) return st;
  /* shape values: concatenate the known elements */
  olg_dim v[MAXR * 2];
  size_t n = 0;
  for (int i = 0; i < nin; i++) {
    size_t k;
    if (!olg__in_syms(cx, i, v + n, sizeof v / sizeof *v - n, &k)) return OLG_OK;
    n += k;
  }
  bool any = false;
  for (size_t k = 0; k < n; k++)
    if (v[k].param || v[k].value != OLG_SYM_UNKNOWN) any = true;
  if (!any || !olg__dtype_is_int(dt)) return OLG_OK;
  return olg__set_out_syms(cx, 0, dt, 1, v, n);
}

OLG_INFER_RULE(olg__inf_split) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  int nout = olg__nout(cx);
  olg_status st;
  if (!olg__in_shape(cx, 0, &x)) {
    for (int i = 0; i < nout; i++)
      if ((st = olg__set_out(cx, i, dt, NULL))) return st;
    return OLG_OK;
  }
  int32_t ax;
  if ((st = olg__axis(cx, olg__attr_i(cx, "axis", 0), x.rank, "axis", &ax))) return st;
  int64_t split[256];
  size_t n = 0;
  bool have = false, known = true;
  const int64_t *p;
  size_t an;
  if (cx->opset < 13 && olg__attr_ints(cx, "split", &p, &an)) {
    have = an > 0;
    if (an > 256) known = false;
    else { memcpy(split, p, an * sizeof *p); n = an; }
  } else if ((cx->opset >= 13 || cx->opset < 2) && olg__nin(cx) > 1 && olg__in(cx, 1)) {
    /* an input from opset 13 (and in Split-1) */
    have = true;
    known = olg__in_ints(cx, 1, split, 256, &n);
  }
  olg_dim d = x.d[ax];
  olg_ishape o = x;
  if (have && known) {
    if ((int)n != nout)
      return olg__fail(cx, "split lists %zu sizes but the node has %d outputs", n, nout);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
      if (split[i] < 0) return olg__fail(cx, "split size %zu is negative (%lld)", i, (long long)split[i]);
      if (!olg__add_i64(total, split[i], &total))
        return olg__fail(cx, "the split sizes add up to more than %lld", (long long)INT64_MAX);
    }
    if (d.value >= 0 && total != d.value)
      return olg__fail(cx, "the split sizes add up to %lld but axis %d has %lld", (long long)total, (int)ax, (long long)d.value);
    for (int i = 0; i < nout; i++) {
      o.d[ax] = olg__dnum(split[i]);
      if ((st = olg__set_out(cx, i, dt, &o))) return st;
    }
  } else if (!have && d.value >= 0 && nout > 0) {
    /* equal parts; from opset 18 (num_outputs) the last may be smaller */
    int64_t chunk = d.value / nout + (d.value % nout != 0); /* ceil, without overflow */
    if (cx->opset < 18 && d.value % nout != 0)
      return olg__fail(cx, "axis %d has %lld elements, which do not split into %d equal parts", (int)ax, (long long)d.value, nout);
    for (int i = 0; i < nout; i++) {
      int64_t sz = chunk;
      int64_t end;
      if (!olg__mul_i64(i + 1, chunk, &end) || end > d.value) sz = d.value - (int64_t)i * chunk;
      if (sz < 0) sz = 0;
      o.d[ax] = olg__dnum(sz);
      if ((st = olg__set_out(cx, i, dt, &o))) return st;
    }
  } else {
    o.d[ax] = olg__dunk();
    for (int i = 0; i < nout; i++)
      if ((st = olg__set_out(cx, i, dt, &o))) return st;
  }
  return OLG_OK;
}

/* Slice of one axis of size dim (>= 0) by start, end, step (ONNX's clamping). */
static int64_t slice_len(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *first) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = start < 0 ? 0 : start > dim ? dim : start;
    end = end < 0 ? 0 : end > dim ? dim : end;
    *first = start;
    return end > start ? (end - start - 1) / step + 1 : 0; /* ceil without overflow */
  }
  start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
  end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
  *first = start;
  if (start <= end) return 0;
  /* start - end <= dim: one element when step is INT64_MIN (whose negation overflows) */
  return step == INT64_MIN ? 1 : (start - end - 1) / (-step) + 1;
}

OLG_INFER_RULE(olg__inf_slice) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  int64_t starts[MAXR], ends[MAXR], axes[MAXR], steps[MAXR];
  size_t ns = 0, ne = 0, na = 0, nst = 0;
  bool ks, ke, ka = true, kst = true, have_axes = false;
  if (cx->opset < 10) {
    const int64_t *p;
    size_t n;
    ks = olg__attr_ints(cx, "starts", &p, &n) && n <= MAXR;
    if (ks) { memcpy(starts, p, n * sizeof *p); ns = n; }
    ke = olg__attr_ints(cx, "ends", &p, &n) && n <= MAXR;
    if (ke) { memcpy(ends, p, n * sizeof *p); ne = n; }
    if (olg__attr_ints(cx, "axes", &p, &n)) {
      have_axes = true;
      ka = n <= MAXR;
      if (ka) { memcpy(axes, p, n * sizeof *p); na = n; }
    }
  } else {
    ks = olg__in_ints(cx, 1, starts, MAXR, &ns);
    ke = olg__in_ints(cx, 2, ends, MAXR, &ne);
    if (olg__nin(cx) > 3 && olg__in(cx, 3)) {
      have_axes = true;
      ka = olg__in_ints(cx, 3, axes, MAXR, &na);
    }
    if (olg__nin(cx) > 4 && olg__in(cx, 4)) kst = olg__in_ints(cx, 4, steps, MAXR, &nst);
  }
  olg_ishape out = x;
  if (!ks || !ke || !ka || !kst) {
    /* which axes change is unknown: those listed (when known), else all */
    if (have_axes && ka) {
      for (size_t i = 0; i < na; i++) {
        int32_t a;
        olg_status st = olg__axis(cx, axes[i], x.rank, "slice axis", &a);
        if (st) return st;
        out.d[a] = olg__dunk();
      }
    } else {
      for (int32_t k = 0; k < x.rank; k++) out.d[k] = olg__dunk();
    }
    return olg__set_out(cx, 0, dt, &out);
  }
  if (ns != ne) return olg__fail(cx, "starts has %zu entries, ends %zu: they must match", ns, ne);
  if (have_axes && na != ns) return olg__fail(cx, "axes has %zu entries, starts %zu: they must match", na, ns);
  if (nst && nst != ns) return olg__fail(cx, "steps has %zu entries, starts %zu: they must match", nst, ns);
  if (!have_axes) {
    if ((int64_t)ns > x.rank) return olg__fail(cx, "starts has %zu entries for an input of rank %d", ns, (int)x.rank);
    for (size_t i = 0; i < ns; i++) axes[i] = (int64_t)i;
  }
  if (!nst)
    for (size_t i = 0; i < ns; i++) steps[i] = 1;
  bool seen[MAXR] = {false};
  int32_t ax0 = -1;
  int64_t first0 = 0, len0 = -1;
  for (size_t i = 0; i < ns; i++) {
    int32_t a;
    olg_status st = olg__axis(cx, axes[i], x.rank, "slice axis", &a);
    if (st) return st;
    if (seen[a]) return olg__fail(cx, "axis %d is sliced twice", (int)a);
    seen[a] = true;
    if (steps[i] == 0) return olg__fail(cx, "step %zu is 0", i);
    const olg_dim *d = &x.d[a];
    if (d->value >= 0) {
      int64_t first;
      int64_t len = slice_len(d->value, starts[i], ends[i], steps[i], &first);
      out.d[a] = olg__dnum(len);
      if (a == 0) { ax0 = 0; first0 = first; len0 = len; }
    } else if (starts[i] == 0 && steps[i] == 1 && ends[i] >= INT32_MAX) {
      /* the whole axis: the dim (symbolic or not) stays */
    } else if (starts[i] >= 0 && ends[i] >= 0 && steps[i] > 0 && ends[i] <= starts[i]) {
      out.d[a] = olg__dnum(0);
    } else {
      out.d[a] = olg__dunk();
    }
  }
  olg_status st = olg__set_out(cx, 0, dt, &out);
  if (st) return st;
  /* shape values: slice the known elements of a 1-D input */
  if (x.rank == 1 && ax0 == 0 && len0 >= 0) {
    olg_dim v[MAXR * 2], r[MAXR * 2];
    size_t n;
    if (!olg__in_syms(cx, 0, v, sizeof v / sizeof *v, &n) || (int64_t)n != x.d[0].value) return OLG_OK;
    int64_t step = steps[0];
    for (int64_t k = 0; k < len0; k++) r[k] = v[first0 + k * step];
    return olg__set_out_syms(cx, 0, dt, 1, r, (size_t)len0);
  }
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_gather) {
  olg_ishape x, ix, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x) || !olg__in_shape(cx, 1, &ix)) return olg__set_out(cx, 0, dt, NULL);
  int32_t ax;
  olg_status st = olg__axis(cx, olg__attr_i(cx, "axis", 0), x.rank, "axis", &ax);
  if (st) return st;
  int64_t r = x.rank - 1 + ix.rank;
  if (r > MAXR) return olg__set_out(cx, 0, dt, NULL);
  out.rank = 0;
  for (int32_t k = 0; k < ax; k++) out.d[out.rank++] = x.d[k];
  for (int32_t k = 0; k < ix.rank; k++) out.d[out.rank++] = ix.d[k];
  for (int32_t k = ax + 1; k < x.rank; k++) out.d[out.rank++] = x.d[k];
  /* indices out of range, when both are known */
  int64_t idx[MAXR * 2];
  size_t n;
  bool ki = olg__in_ints(cx, 1, idx, sizeof idx / sizeof *idx, &n);
  if (ki && x.d[ax].value >= 0) {
    for (size_t k = 0; k < n; k++)
      if (idx[k] < -x.d[ax].value || idx[k] >= x.d[ax].value)
        return olg__fail(cx, "index %lld is out of range for axis %d of size %lld", (long long)idx[k], (int)ax, (long long)x.d[ax].value);
  }
  if ((st = olg__set_out(cx, 0, dt, &out))) return st;
  /* shape values: pick elements of a 1-D input */
  if (x.rank == 1 && ki && ix.rank <= 1 && x.d[0].value >= 0) {
    olg_dim v[MAXR * 2], res[MAXR * 2];
    size_t nv;
    if (!olg__in_syms(cx, 0, v, sizeof v / sizeof *v, &nv) || (int64_t)nv != x.d[0].value) return OLG_OK;
    for (size_t k = 0; k < n; k++) res[k] = v[idx[k] < 0 ? idx[k] + (int64_t)nv : idx[k]];
    if (!olg__dtype_is_int(dt)) return OLG_OK;
    return olg__set_out_syms(cx, 0, dt, ix.rank, res, n);
  }
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_gather_elements) {
  olg_ishape x, ix;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool hx = olg__in_shape(cx, 0, &x), hi = olg__in_shape(cx, 1, &ix);
  if (hx && hi) {
    if (x.rank != ix.rank)
      return olg__fail(cx, "data has rank %d and indices rank %d: they must be equal", (int)x.rank, (int)ix.rank);
    int32_t ax;
    olg_status st = olg__axis(cx, olg__attr_i(cx, "axis", 0), x.rank, "axis", &ax);
    if (st) return st;
  }
  return olg__set_out(cx, 0, dt, hi ? &ix : NULL);
}

OLG_INFER_RULE(olg__inf_gather_nd) {
  olg_ishape x, ix, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x) || !olg__in_shape(cx, 1, &ix) || ix.rank < 1)
    return olg__set_out(cx, 0, dt, NULL);
  int64_t b = olg__attr_i(cx, "batch_dims", 0);
  const olg_dim *last = &ix.d[ix.rank - 1];
  if (last->value < 0) return olg__set_out(cx, 0, dt, NULL);
  int64_t k = last->value;
  if (b < 0 || b > x.rank || k > x.rank - b)
    return olg__fail(cx, "indices' last dim %lld plus batch_dims %lld exceeds the data's rank %d", (long long)k, (long long)b, (int)x.rank);
  int64_t r = ix.rank - 1 + x.rank - k - b;
  if (r > MAXR) return olg__set_out(cx, 0, dt, NULL);
  out.rank = 0;
  for (int32_t j = 0; j < ix.rank - 1; j++) out.d[out.rank++] = ix.d[j];
  for (int64_t j = b + k; j < x.rank; j++) out.d[out.rank++] = x.d[j];
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_scatter) {
  olg_ishape x;
  olg__in_shape(cx, 0, &x);
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &x);
}

OLG_INFER_RULE(olg__inf_expand) {
  olg_ishape x, t, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_dim v[MAXR];
  size_t n;
  if (!olg__in_syms(cx, 1, v, MAXR, &n)) return olg__set_out(cx, 0, dt, NULL);
  olg__shape_rank(&t, (int64_t)n);
  for (size_t k = 0; k < n; k++) {
    if (olg__infer_sym_is_num(&v[k]) && v[k].value < 0)
      return olg__fail(cx, "shape entry %zu is %lld; Expand takes dims >= 0 (use the input's dim instead of -1)", k, (long long)v[k].value);
    t.d[k] = olg__infer_dim_from_sym(&v[k]);
  }
  if (!olg__in_shape(cx, 0, &x)) {
    /* rank is max(rank(x), n): at least n */
    return olg__set_out(cx, 0, dt, NULL);
  }
  /* an unknown target dim is 1 or equal to the input's: the input's dim when it is not 1 */
  int32_t r = x.rank > t.rank ? x.rank : t.rank;
  for (int32_t k = 0; k < t.rank; k++) {
    int32_t xi = k - (r - x.rank) + (r - t.rank);
    if (t.d[k].value < 0 && !t.d[k].param && xi >= 0 && xi < x.rank && x.d[xi].value > 1)
      t.d[k] = x.d[xi];
    else if (t.d[k].value < 0 && !t.d[k].param && xi >= 0 && xi < x.rank && x.d[xi].param)
      t.d[k] = olg__dunk();
  }
  olg_status st = olg__broadcast(cx, &x, &t, &out);
  if (st) return st;
  if ((st = olg__set_out(cx, 0, dt, &out))) return st;
  return olg__eval_elementwise(cx, OLG_EV_IDENTITY, &out, dt);
}

OLG_INFER_RULE(olg__inf_tile) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  olg_dim rep[MAXR];
  size_t n;
  if (cx->opset < 6) {
    for (int32_t k = 0; k < x.rank; k++) x.d[k] = olg__dunk();
    return olg__set_out(cx, 0, dt, &x);
  }
  if (!olg__in_syms(cx, 1, rep, MAXR, &n)) {
    for (int32_t k = 0; k < x.rank; k++) x.d[k] = olg__dunk();
    return olg__set_out(cx, 0, dt, &x);
  }
  if ((int32_t)n != x.rank)
    return olg__fail(cx, "repeats has %zu entries but the input has rank %d", n, (int)x.rank);
  for (int32_t k = 0; k < x.rank; k++) {
    if (olg__infer_sym_is_num(&rep[k])) {
      if (rep[k].value < 0) return olg__fail(cx, "repeat %d is negative (%lld)", (int)k, (long long)rep[k].value);
      x.d[k] = olg__dim_mul(x.d[k], olg__dnum(rep[k].value));
    } else {
      x.d[k] = olg__dim_mul(x.d[k], olg__infer_dim_from_sym(&rep[k]));
    }
  }
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_pad) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  olg_dim pads[2 * MAXR];
  size_t n;
  bool have;
  if (cx->opset < 11) {
    const int64_t *p;
    size_t an;
    have = (olg__attr_ints(cx, "pads", &p, &an) || olg__attr_ints(cx, "paddings", &p, &an)) && an <= 2 * MAXR;
    if (have) {
      for (size_t k = 0; k < an; k++) pads[k] = olg__dnum(p[k]);
      n = an;
    }
  } else {
    have = olg__in_syms(cx, 1, pads, 2 * MAXR, &n);
  }
  int32_t axes[MAXR];
  int32_t na = x.rank;
  for (int32_t k = 0; k < x.rank; k++) axes[k] = k;
  if (cx->opset >= 18 && olg__nin(cx) > 3 && olg__in(cx, 3)) {
    int64_t av[MAXR];
    size_t an;
    if (!olg__in_ints(cx, 3, av, MAXR, &an)) have = false;
    else {
      na = (int32_t)an;
      for (size_t k = 0; k < an; k++) {
        olg_status st = olg__axis(cx, av[k], x.rank, "pad axis", &axes[k]);
        if (st) return st;
      }
    }
  }
  if (!have) {
    olg_ishape o;
    olg__shape_rank(&o, x.rank);
    for (int32_t k = 0; k < x.rank; k++) o.d[k] = x.d[k];
    for (int32_t k = 0; k < na; k++) o.d[axes[k]] = olg__dunk();
    return olg__set_out(cx, 0, dt, &o);
  }
  if ((int32_t)n != 2 * na)
    return olg__fail(cx, "pads has %zu entries; it needs 2 x %d (begin and end of each axis)", n, (int)na);
  for (int32_t k = 0; k < na; k++) {
    const olg_dim *b = &pads[k], *e = &pads[k + na];
    olg_dim *d = &x.d[axes[k]];
    if (olg__infer_sym_is_num(b) && olg__infer_sym_is_num(e)) {
      int64_t add, sum;
      bool ok = olg__add_i64(b->value, e->value, &add);
      if (d->value >= 0) {
        /* pads near INT64_MAX: the size is not representable, so unknown */
        if (!ok || !olg__add_i64(d->value, add, &sum)) { *d = olg__dunk(); continue; }
        if (sum < 0)
          return olg__fail(cx, "pads %lld and %lld make axis %d (size %lld) negative", (long long)b->value, (long long)e->value, (int)axes[k], (long long)d->value);
        *d = olg__dnum(sum);
      } else if (add != 0) {
        *d = olg__dunk();
      }
    } else {
      *d = olg__dunk();
    }
  }
  return olg__set_out(cx, 0, dt, &x);
}

/* floor(dim * scale) in single precision, as runtimes compute it */
static olg_dim scaled_dim(const olg_dim *d, double scale) {
  if (scale == 1.0) return *d;
  if (d->value < 0) return olg__dunk();
  float v = floorf((float)d->value * (float)scale);
  return v >= 0 && v < 9.2e18f ? olg__dnum((int64_t)v) : olg__dunk();
}

OLG_INFER_RULE(olg__inf_resize) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  int32_t axes[MAXR], na = x.rank;
  for (int32_t k = 0; k < x.rank; k++) axes[k] = k;
  const int64_t *ap;
  size_t an;
  if (cx->opset >= 18 && olg__attr_ints(cx, "axes", &ap, &an)) {
    if (an > (size_t)x.rank) return olg__fail(cx, "axes has %zu entries for rank %d", an, (int)x.rank);
    na = (int32_t)an;
    for (size_t k = 0; k < an; k++) {
      olg_status st = olg__axis(cx, ap[k], x.rank, "axis", &axes[k]);
      if (st) return st;
    }
  }
  int scales_in = cx->opset == 10 ? 1 : 2, sizes_in = 3;
  double scales[MAXR];
  olg_dim sizes[MAXR];
  size_t ns = 0, nz = 0;
  bool has_scales = olg__nin(cx) > scales_in && olg__in(cx, scales_in);
  bool has_sizes = cx->opset >= 11 && olg__nin(cx) > sizes_in && olg__in(cx, sizes_in);
  /* an empty scales tensor (a placeholder before opset 13) counts as absent */
  olg_ishape ss;
  if (has_scales && olg__in_shape(cx, scales_in, &ss) && ss.rank == 1 && ss.d[0].value == 0)
    has_scales = false;
  olg_ishape out = x;
  if (has_sizes && olg__in_syms(cx, sizes_in, sizes, MAXR, &nz)) {
    if ((int32_t)nz != na) return olg__fail(cx, "sizes has %zu entries; it needs %d", nz, (int)na);
    char pol[32];
    olg__attr_s(cx, "keep_aspect_ratio_policy", "stretch", pol, sizeof pol);
    if (strcmp(pol, "stretch") == 0 || cx->opset < 18) {
      for (int32_t k = 0; k < na; k++) out.d[axes[k]] = olg__infer_dim_from_sym(&sizes[k]);
    } else {
      bool smaller = strcmp(pol, "not_smaller") == 0;
      double sc = smaller ? 0 : INFINITY;
      bool known = true;
      for (int32_t k = 0; k < na; k++) {
        if (!olg__infer_sym_is_num(&sizes[k]) || x.d[axes[k]].value <= 0) { known = false; break; }
        double r = (double)sizes[k].value / (double)x.d[axes[k]].value;
        sc = smaller ? (r > sc ? r : sc) : (r < sc ? r : sc);
      }
      for (int32_t k = 0; k < na; k++) {
        int64_t v;
        /* a size out of int64 range is unknown, not a float->int overflow */
        bool ok = known && olg__double_to_int(floor(sc * (double)x.d[axes[k]].value + 0.5), OLG_INT64, &v) && v >= 0;
        out.d[axes[k]] = ok ? olg__dnum(v) : olg__dunk();
      }
    }
  } else if (has_scales && olg__in_doubles(cx, scales_in, scales, MAXR, &ns)) {
    if ((int32_t)ns != na) return olg__fail(cx, "scales has %zu entries; it needs %d", ns, (int)na);
    bool crop = olg__attr_is(cx, "coordinate_transformation_mode", "half_pixel", "tf_crop_and_resize");
    double roi[2 * MAXR];
    size_t nr = 0;
    bool kr = crop && olg__in_doubles(cx, 1, roi, 2 * MAXR, &nr) && (int32_t)nr == 2 * na;
    for (int32_t k = 0; k < na; k++) {
      if (scales[k] <= 0) return olg__fail(cx, "scale %d is %g; scales must be > 0", (int)k, scales[k]);
      if (crop && !kr) { out.d[axes[k]] = olg__dunk(); continue; }
      double f = crop ? (roi[na + k] - roi[k]) * scales[k] : scales[k];
      out.d[axes[k]] = scaled_dim(&x.d[axes[k]], f);
    }
  } else {
    for (int32_t k = 0; k < na; k++) out.d[axes[k]] = olg__dunk();
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_upsample) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  double sc[MAXR];
  size_t n = 0;
  bool have = false;
  if (cx->opset >= 9) {
    have = olg__in_doubles(cx, 1, sc, MAXR, &n);
  } else {
    const olg_attr *a = olg__attr(cx, "scales");
    if (a && a->type == OLG_ATTR_FLOATS && a->n <= MAXR) {
      for (size_t k = 0; k < a->n; k++) sc[k] = a->floats[k];
      n = a->n;
      have = true;
    } else if (cx->opset < 7) {
      /* Upsample-1: height_scale and width_scale on a 4-D input */
      sc[0] = sc[1] = 1;
      sc[2] = olg__attr_f(cx, "height_scale", 1);
      sc[3] = olg__attr_f(cx, "width_scale", 1);
      n = 4;
      have = x.rank == 4;
    }
  }
  if (!have) {
    for (int32_t k = 0; k < x.rank; k++) x.d[k] = olg__dunk();
    return olg__set_out(cx, 0, dt, &x);
  }
  if ((int32_t)n != x.rank) return olg__fail(cx, "scales has %zu entries for rank %d", n, (int)x.rank);
  for (int32_t k = 0; k < x.rank; k++) x.d[k] = scaled_dim(&x.d[k], sc[k]);
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_depth_to_space) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  if (x.rank != 4) return olg__fail(cx, "input must be 4-D [N,C,H,W], not rank %d", (int)x.rank);
  int64_t b = olg__attr_i(cx, "blocksize", 0);
  if (b <= 0) return olg__fail(cx, "blocksize must be > 0, not %lld", (long long)b);
  int64_t bb;
  if (x.d[1].value >= 0) {
    /* blocksize^2 past INT64_MAX divides only 0 channels */
    if (!olg__mul_i64(b, b, &bb)) bb = x.d[1].value == 0 ? 1 : 0;
    if (bb == 0 || x.d[1].value % bb)
      return olg__fail(cx, "channels %lld are not divisible by blocksize^2 (blocksize %lld)", (long long)x.d[1].value, (long long)b);
    x.d[1] = olg__dnum(x.d[1].value / bb);
  } else {
    x.d[1] = olg__dunk();
  }
  x.d[2] = olg__dim_mul(x.d[2], olg__dnum(b));
  x.d[3] = olg__dim_mul(x.d[3], olg__dnum(b));
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_space_to_depth) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  if (x.rank != 4) return olg__fail(cx, "input must be 4-D [N,C,H,W], not rank %d", (int)x.rank);
  int64_t b = olg__attr_i(cx, "blocksize", 0);
  if (b <= 0) return olg__fail(cx, "blocksize must be > 0, not %lld", (long long)b);
  int64_t bb;
  x.d[1] = olg__mul_i64(b, b, &bb) ? olg__dim_mul(x.d[1], olg__dnum(bb)) : olg__dunk(); /* unknown on overflow */
  for (int k = 2; k < 4; k++) {
    if (x.d[k].value >= 0) {
      if (x.d[k].value % b) return olg__fail(cx, "dim %d (%lld) is not divisible by blocksize %lld", k, (long long)x.d[k].value, (long long)b);
      x.d[k] = olg__dnum(x.d[k].value / b);
    } else {
      x.d[k] = olg__dunk();
    }
  }
  return olg__set_out(cx, 0, dt, &x);
}

