/* onnxlegal — inference rules: constants and the ops whose outputs come from data (Constant,
 * ConstantOfShape, Range, NonZero, OneHot, Compress, Unique, ...) (infer_impl.h). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "infer_impl.h"

#define MAXR OLG_INFER_MAX_RANK
#define SYM_UNK ((olg_dim){OLG_SYM_UNKNOWN, NULL, NULL})

/* ---------------------------------------------------------------------------------------- */
/* Constants */

OLG_INFER_RULE(olg__inf_constant) {
  const olg_node *nd = cx->nd;
  const olg_attr *val = NULL;
  int n_val = 0;
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const char *nm = nd->attrs[i].name;
    if (strcmp(nm, "value") == 0 || strncmp(nm, "value_", 6) == 0 || strcmp(nm, "sparse_value") == 0) {
      val = &nd->attrs[i];
      n_val++;
    }
  }
  if (n_val != 1)
    return olg__fail(cx, "Constant needs exactly one of value, sparse_value, value_float, value_floats, value_int, value_ints, value_string, value_strings; it has %d", n_val);
  const char *nm = val->name;
  olg_ishape scalar = {.rank = 0};
  if (strcmp(nm, "value") == 0 && val->type == OLG_ATTR_TENSOR && val->t) {
    const olg_tensor *t = val->t;
    if (t->dtype == OLG_STRING || (!t->data && t->nbytes)) {
      olg_ishape s;
      if (olg__shape_rank(&s, t->rank))
        for (int32_t k = 0; k < t->rank; k++) s.d[k] = olg__dnum(t->dims[k]);
      return olg__set_out(cx, 0, t->dtype, &s);
    }
    return olg__set_out_known(cx, 0, t);
  }
  if (strcmp(nm, "value_int") == 0 && val->type == OLG_ATTR_INT)
    return olg__set_out_ints(cx, 0, OLG_INT64, 0, NULL, &val->i, 1);
  if (strcmp(nm, "value_ints") == 0 && val->type == OLG_ATTR_INTS) {
    int64_t d = (int64_t)val->n;
    return olg__set_out_ints(cx, 0, OLG_INT64, 1, &d, val->ints, val->n);
  }
  if (strcmp(nm, "value_float") == 0 && val->type == OLG_ATTR_FLOAT) {
    double f = val->f;
    return olg__set_out_doubles(cx, 0, OLG_FLOAT, 0, NULL, &f, 1);
  }
  if (strcmp(nm, "value_floats") == 0 && val->type == OLG_ATTR_FLOATS) {
    int64_t d = (int64_t)val->n;
    if (val->n <= OLG_INFER_MAX_KNOWN) {
      double *f = olg__arena_alloc(cx->m, (val->n ? val->n : 1) * sizeof *f);
      if (!f) return OLG_ERR_NOMEM;
      for (size_t k = 0; k < val->n; k++) f[k] = val->floats[k];
      return olg__set_out_doubles(cx, 0, OLG_FLOAT, 1, &d, f, val->n);
    }
    olg_ishape s = {.rank = 1};
    s.d[0] = olg__dnum(d);
    return olg__set_out(cx, 0, OLG_FLOAT, &s);
  }
  if (strcmp(nm, "value_string") == 0) return olg__set_out(cx, 0, OLG_STRING, &scalar);
  if (strcmp(nm, "value_strings") == 0) {
    olg_ishape s = {.rank = 1};
    s.d[0] = olg__dnum((int64_t)val->n);
    return olg__set_out(cx, 0, OLG_STRING, &s);
  }
  if (strcmp(nm, "sparse_value") == 0) return OLG_OK; /* dense shape not read here */
  return olg__fail(cx, "attribute '%s' has the wrong type for a Constant", nm);
}

OLG_INFER_RULE(olg__inf_constant_of_shape) {
  const olg_attr *a = olg__attr(cx, "value");
  const olg_tensor *vt = a && a->type == OLG_ATTR_TENSOR ? a->t : NULL;
  olg_dtype dt = vt ? vt->dtype : OLG_FLOAT;
  olg_dim v[MAXR];
  size_t n;
  if (!olg__in_syms(cx, 0, v, MAXR, &n)) {
    olg_ishape ss;
    if (olg__in_shape(cx, 0, &ss) && ss.rank == 1 && ss.d[0].value >= 0) {
      olg_ishape o;
      olg__shape_rank(&o, ss.d[0].value);
      return olg__set_out(cx, 0, dt, &o);
    }
    return olg__set_out(cx, 0, dt, NULL);
  }
  olg_ishape out;
  olg__shape_rank(&out, (int64_t)n);
  for (size_t k = 0; k < n; k++) {
    if (olg__infer_sym_is_num(&v[k]) && v[k].value < 0)
      return olg__fail(cx, "shape entry %zu is negative (%lld)", k, (long long)v[k].value);
    out.d[k] = olg__infer_dim_from_sym(&v[k]);
  }
  olg_status st = olg__set_out(cx, 0, dt, &out);
  if (st) return st;
  int64_t numel;
  if (!olg__shape_numel_known(&out, &numel) || numel > OLG_INFER_MAX_KNOWN) return OLG_OK;
  int64_t dims[MAXR];
  for (int32_t k = 0; k < out.rank; k++) dims[k] = out.d[k].value;
  double fv = 0;
  int64_t iv = 0;
  /* the one element is read: a value tensor holding less (a builder's, or a file's empty one) is
     left unknown here; the checker names the defect */
  if (vt && vt->data && vt->dtype != OLG_STRING && vt->nbytes >= olg_dtype_nbytes(dt, 1) &&
      olg_dtype_nbytes(dt, 1) > 0) {
    if (olg__dtype_is_float(dt)) {
      if (dt == OLG_FLOAT) { float f; memcpy(&f, vt->data, 4); fv = f; }
      else if (dt == OLG_DOUBLE) memcpy(&fv, vt->data, 8);
      else return OLG_OK;
    } else if (olg__dtype_is_int(dt) || dt == OLG_BOOL) {
      switch (dt) {
      case OLG_INT64: case OLG_UINT64: memcpy(&iv, vt->data, 8); break;
      case OLG_INT32: { int32_t x; memcpy(&x, vt->data, 4); iv = x; break; }
      case OLG_UINT32: { uint32_t x; memcpy(&x, vt->data, 4); iv = x; break; }
      case OLG_INT16: { int16_t x; memcpy(&x, vt->data, 2); iv = x; break; }
      case OLG_UINT16: { uint16_t x; memcpy(&x, vt->data, 2); iv = x; break; }
      case OLG_INT8: iv = *(const int8_t *)vt->data; break;
      case OLG_UINT8: case OLG_BOOL: iv = *(const uint8_t *)vt->data; break;
      default: return OLG_OK;
      }
    } else {
      return OLG_OK;
    }
  } else if (vt) {
    return OLG_OK;
  }
  if (olg__dtype_is_float(dt)) {
    double *p = olg__arena_alloc(cx->m, (size_t)(numel ? numel : 1) * sizeof *p);
    if (!p) return OLG_ERR_NOMEM;
    for (int64_t k = 0; k < numel; k++) p[k] = fv;
    return olg__set_out_doubles(cx, 0, dt, out.rank, dims, p, (size_t)numel);
  }
  int64_t *p = olg__arena_alloc(cx->m, (size_t)(numel ? numel : 1) * sizeof *p);
  if (!p) return OLG_ERR_NOMEM;
  for (int64_t k = 0; k < numel; k++) p[k] = iv;
  return olg__set_out_ints(cx, 0, dt, out.rank, dims, p, (size_t)numel);
}

OLG_INFER_RULE(olg__inf_range) {
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_ishape out;
  olg__shape_rank(&out, 1);
  for (int i = 0; i < 3; i++) {
    olg_ishape s;
    if (olg__in_shape(cx, i, &s) && !(s.rank == 0 || (s.rank == 1 && s.d[0].value == 1)))
      return olg__fail(cx, "input %d must be a scalar, not rank %d", i, (int)s.rank);
  }
  double v[3];
  size_t n;
  for (int i = 0; i < 3; i++)
    if (!olg__in_doubles(cx, i, &v[i], 1, &n) || n != 1) return olg__set_out(cx, 0, dt, &out);
  if (v[2] == 0) return olg__fail(cx, "delta is 0");
  double cnt = ceil((v[1] - v[0]) / v[2]);
  if (!(cnt >= 0)) cnt = 0;
  if (cnt > 9.0e18) return olg__set_out(cx, 0, dt, &out);
  int64_t len = (int64_t)cnt;
  out.d[0] = olg__dnum(len);
  if (len > OLG_INFER_MAX_KNOWN) return olg__set_out(cx, 0, dt, &out);
  if (olg__dtype_is_int(dt)) {
    int64_t s[3];
    if (!olg__in_ints(cx, 0, &s[0], 1, &n) || !olg__in_ints(cx, 1, &s[1], 1, &n) || !olg__in_ints(cx, 2, &s[2], 1, &n))
      return olg__set_out(cx, 0, dt, &out);
    int64_t *p = olg__arena_alloc(cx->m, (size_t)(len ? len : 1) * sizeof *p);
    if (!p) return OLG_ERR_NOMEM;
    for (int64_t k = 0; k < len; k++) {
      /* the count came from doubles: an element past the int64 range is not folded */
      int64_t step;
      if (!olg__mul_i64(k, s[2], &step) || !olg__add_i64(s[0], step, &p[k])) return olg__set_out(cx, 0, dt, &out);
    }
    return olg__set_out_ints(cx, 0, dt, 1, &len, p, (size_t)len);
  }
  if (dt == OLG_FLOAT || dt == OLG_DOUBLE) {
    double *p = olg__arena_alloc(cx->m, (size_t)(len ? len : 1) * sizeof *p);
    if (!p) return OLG_ERR_NOMEM;
    for (int64_t k = 0; k < len; k++) p[k] = v[0] + (double)k * v[2];
    if (dt == OLG_FLOAT) {
      /* computed in the input precision, as runtimes do */
      float acc;
      for (int64_t k = 0; k < len; k++) {
        acc = (float)v[0] + (float)k * (float)v[2];
        p[k] = acc;
      }
    }
    return olg__set_out_doubles(cx, 0, dt, 1, &len, p, (size_t)len);
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_nonzero) {
  olg_ishape x, out;
  olg__shape_rank(&out, 2);
  if (olg__in_shape(cx, 0, &x)) out.d[0] = olg__dnum(x.rank);
  /* with known contents, the count of non-zeros */
  const olg_tensor *t = olg__in_known(cx, 0);
  uint64_t ne;
  if (t && olg__shape_numel(t->rank, t->dims, &ne) && ne <= OLG_INFER_MAX_KNOWN) {
    double *v = olg__malloc(&cx->m->alloc, (ne ? ne : 1) * sizeof *v);
    size_t n;
    if (!v) return OLG_ERR_NOMEM;
    if (olg__in_doubles(cx, 0, v, ne, &n)) {
      int64_t cnt = 0;
      for (size_t k = 0; k < n; k++) cnt += v[k] != 0;
      out.d[1] = olg__dnum(cnt);
    }
    olg__free(&cx->m->alloc, v, (ne ? ne : 1) * sizeof *v);
  }
  return olg__set_out(cx, 0, OLG_INT64, &out);
}

OLG_INFER_RULE(olg__inf_onehot) {
  olg_ishape ix, out;
  olg_dtype dt = olg__in_dtype(cx, 2);
  if (!olg__in_shape(cx, 0, &ix)) return olg__set_out(cx, 0, dt, NULL);
  int32_t r = ix.rank + 1, ax;
  if (r > MAXR) return olg__set_out(cx, 0, dt, NULL);
  olg_status st = olg__axis(cx, olg__attr_i(cx, "axis", -1), r, "axis", &ax);
  if (st) return st;
  double dv[1];
  size_t n;
  olg_dim depth = olg__dunk();
  if (olg__in_doubles(cx, 1, dv, 1, &n) && n == 1) {
    if (dv[0] < 1) return olg__fail(cx, "depth is %g; it must be >= 1", dv[0]);
    int64_t d;
    if (olg__double_to_int(dv[0], OLG_INT64, &d)) depth = olg__dnum(d); /* else unknown (NaN, huge) */
  }
  out.rank = r;
  for (int32_t k = 0, j = 0; k < r; k++) out.d[k] = k == ax ? depth : ix.d[j++];
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_compress) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  const olg_attr *a = olg__attr(cx, "axis");
  int64_t c[OLG_INFER_MAX_KNOWN / 8];
  size_t n;
  if (!a) {
    olg__shape_rank(&out, 1);
    int64_t ne;
    if (olg__in_shape(cx, 0, &x) && olg__shape_numel_known(&x, &ne) &&
        olg__in_ints(cx, 1, c, sizeof c / sizeof *c, &n)) {
      int64_t cnt = 0;
      for (size_t k = 0; k < n && (int64_t)k < ne; k++) cnt += c[k] != 0;
      out.d[0] = olg__dnum(cnt);
    }
    return olg__set_out(cx, 0, dt, &out);
  }
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  int32_t ax;
  olg_status st = olg__axis(cx, a->i, x.rank, "axis", &ax);
  if (st) return st;
  olg_dim along = x.d[ax];
  x.d[ax] = olg__dunk();
  if (olg__in_ints(cx, 1, c, sizeof c / sizeof *c, &n)) {
    int64_t cnt = 0;
    for (size_t k = 0; k < n && (along.value < 0 || (int64_t)k < along.value); k++) cnt += c[k] != 0;
    x.d[ax] = olg__dnum(cnt);
  }
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_unique) {
  olg_ishape x, y, v;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_status st;
  olg__shape_rank(&v, 1);
  const olg_attr *a = olg__attr(cx, "axis");
  bool hx = olg__in_shape(cx, 0, &x);
  if (!a) {
    olg__shape_rank(&y, 1);
  } else if (hx) {
    int32_t ax;
    if ((st = olg__axis(cx, a->i, x.rank, "axis", &ax))) return st;
    y = x;
    y.d[ax] = olg__dunk();
  } else {
    olg__shape_unknown(&y);
  }
  olg_ishape inv;
  olg__shape_rank(&inv, 1);
  if (hx) {
    if (!a) {
      int64_t ne;
      if (olg__shape_numel_known(&x, &ne)) inv.d[0] = olg__dnum(ne);
    } else {
      int32_t ax;
      if (!olg__axis(cx, a->i, x.rank, "axis", &ax)) inv.d[0] = x.d[ax];
    }
  }
  if ((st = olg__set_out(cx, 0, dt, &y)) || (st = olg__set_out(cx, 1, OLG_INT64, &v)) ||
      (st = olg__set_out(cx, 2, OLG_INT64, &inv)) || (st = olg__set_out(cx, 3, OLG_INT64, &v)))
    return st;
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_reverse_sequence) {
  olg_ishape x;
  olg__in_shape(cx, 0, &x);
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &x);
}

OLG_INFER_RULE(olg__inf_center_crop_pad) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  olg_dim v[MAXR];
  size_t n;
  int32_t axes[MAXR], na = x.rank;
  for (int32_t k = 0; k < x.rank; k++) axes[k] = k;
  const int64_t *ap;
  size_t an;
  if (olg__attr_ints(cx, "axes", &ap, &an)) {
    na = (int32_t)an;
    for (size_t k = 0; k < an && k < MAXR; k++) {
      olg_status st = olg__axis(cx, ap[k], x.rank, "axis", &axes[k]);
      if (st) return st;
    }
  }
  if (!olg__in_syms(cx, 1, v, MAXR, &n)) {
    for (int32_t k = 0; k < na; k++) x.d[axes[k]] = olg__dunk();
    return olg__set_out(cx, 0, dt, &x);
  }
  if ((int32_t)n != na) return olg__fail(cx, "shape has %zu entries; it needs %d", n, (int)na);
  for (int32_t k = 0; k < na; k++) x.d[axes[k]] = olg__infer_dim_from_sym(&v[k]);
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_string_normalizer) {
  olg_ishape x;
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, OLG_STRING, NULL);
  const olg_attr *sw = olg__attr(cx, "stopwords");
  if (sw && sw->n > 0 && x.rank >= 1) x.d[x.rank - 1] = olg__dunk();
  return olg__set_out(cx, 0, OLG_STRING, &x);
}

OLG_INFER_RULE(olg__inf_tfidf) {
  olg_ishape x;
  const int64_t *p;
  size_t n;
  olg_dim width = olg__dunk();
  if (olg__attr_ints(cx, "ngram_indexes", &p, &n)) {
    int64_t mx = -1;
    for (size_t k = 0; k < n; k++) mx = p[k] > mx ? p[k] : mx;
    if (mx < INT64_MAX) width = olg__dnum(mx + 1); /* else unknown: the width overflows */
  }
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, OLG_FLOAT, NULL);
  if (x.rank == 1) x.d[0] = width;
  else if (x.rank == 2) x.d[1] = width;
  else return olg__fail(cx, "input must be 1-D [C] or 2-D [N,C], not rank %d", (int)x.rank);
  return olg__set_out(cx, 0, OLG_FLOAT, &x);
}
