/* onnxlegal — inference: merging an inferred type into what a value already holds (declared
 * types are kept where they say more; a contradiction is an error naming both) (infer_impl.h). */
#include <stdio.h>
#include <string.h>

#include "infer_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* Merging an inferred type into what a value holds */

static bool type_empty(const olg_type *t) {
  if (!t || t->kind == OLG_TYPE_NONE) return true;
  return t->kind == OLG_TYPE_TENSOR && !(t->has_elem && olg__type_elem(t)) && !t->has_shape;
}

static bool dims_equal(const olg_dim *a, const olg_dim *b, int32_t rank) {
  for (int32_t k = 0; k < rank; k++) {
    if (a[k].value != b[k].value) return false;
    if ((a[k].param == NULL) != (b[k].param == NULL)) return false;
    if (a[k].param != b[k].param && a[k].param && strcmp(a[k].param, b[k].param) != 0) return false;
  }
  return true;
}

/* Merges inferred i into existing e, giving r (arena-backed). *conflict set on a contradiction,
 * in which case r is i (the inferred type wins). */
olg_status olg__infer_merge_type(olg_icx *cx, const olg_type *e, const olg_type *i, olg_type *r,
                             bool *conflict) {
  if (type_empty(i)) {
    *r = *e;
    return OLG_OK;
  }
  if (type_empty(e) || e->kind != i->kind) {
    if (!type_empty(e)) *conflict = true;
    *r = *i;
    if (i->has_shape && i->rank > 0 && !(r->dims = olg__infer_dims_dup(cx->m, i->dims, i->rank)))
      return OLG_ERR_NOMEM;
    return OLG_OK;
  }
  *r = *e;
  switch (e->kind) {
  case OLG_TYPE_TENSOR:
  case OLG_TYPE_SPARSE_TENSOR: {
    olg_dtype ee = e->has_elem ? olg__type_elem(e) : 0, ie = i->has_elem ? olg__type_elem(i) : 0;
    if (ee && ie && ee != ie) *conflict = true;
    if (ie) {
      r->has_elem = true;
      olg_status s = olg__type_set_elem(cx->m, r, ie);
      if (s) return s;
    }
    if (!i->has_shape) return OLG_OK;
    if (!e->has_shape || e->rank != i->rank) {
      if (e->has_shape) *conflict = true;
      r->has_shape = true;
      r->rank = i->rank;
      r->dims = i->rank > 0 ? olg__infer_dims_dup(cx->m, i->dims, i->rank) : NULL;
      return i->rank > 0 && !r->dims ? OLG_ERR_NOMEM : OLG_OK;
    }
    if (i->rank == 0) return OLG_OK;
    olg_dim tmp[OLG_INFER_MAX_RANK] = {{0}};
    olg_dim *buf = tmp;
    if (i->rank > OLG_INFER_MAX_RANK) return OLG_OK; /* keep what is declared */
    for (int32_t k = 0; k < i->rank; k++) {
      const olg_dim *de = &e->dims[k], *di = &i->dims[k];
      if (de->value >= 0 && di->value >= 0 && de->value != di->value) *conflict = true;
      if (di->value >= 0) buf[k] = (olg_dim){di->value, NULL, de->denotation};
      else if (de->value >= 0) buf[k] = *de;
      else if (de->param) buf[k] = *de;
      else buf[k] = (olg_dim){OLG_DIM_UNKNOWN, di->param, de->denotation};
    }
    if (*conflict) {
      r->dims = olg__infer_dims_dup(cx->m, i->dims, i->rank);
      return r->dims ? OLG_OK : OLG_ERR_NOMEM;
    }
    if (!dims_equal(buf, e->dims, i->rank) && !(r->dims = olg__infer_dims_dup(cx->m, buf, i->rank)))
      return OLG_ERR_NOMEM;
    return OLG_OK;
  }
  case OLG_TYPE_SEQUENCE:
  case OLG_TYPE_OPTIONAL:
  case OLG_TYPE_MAP: {
    olg_dtype ek = olg__type_key(e), ik = olg__type_key(i);
    if (e->kind == OLG_TYPE_MAP && ek && ik && ek != ik) *conflict = true;
    const olg_type *ein = olg__type_inner(e), *iin = olg__type_inner(i);
    if (!iin) return OLG_OK;
    if (!ein) return olg__type_set_inner(cx->m, r, iin);
    olg_type in;
    olg_status s = olg__infer_merge_type(cx, ein, iin, &in, conflict);
    if (s) return s;
    if (memcmp(&in, ein, sizeof in) != 0) { /* olg_type has no padding */
      olg_type *p = olg__arena_dup(cx->m, &in, sizeof in);
      if (!p) return OLG_ERR_NOMEM;
      return olg__type_set_inner(cx->m, r, p);
    }
    return OLG_OK;
  }
  default:
    return OLG_OK;
  }
}

static olg_value_rec *out_rec(olg_icx *cx, int i) {
  if (i < 0 || (uint32_t)i >= cx->nd->n_outputs) return NULL;
  olg_value v = cx->nd->outputs[i];
  if (v < 0 || (uint32_t)v >= cx->g->n_values) return NULL;
  return &cx->g->values[v];
}

static olg_status store_type(olg_icx *cx, olg_value_rec *r, const olg_type *t) {
  olg_type res;
  bool conflict = false;
  olg_status s = olg__infer_merge_type(cx, &r->type, t, &res, &conflict);
  if (s) return s;
  if (conflict && cx->diags) {
    char a[256], b[256], msg[700];
    snprintf(msg, sizeof msg, "output '%s': inferred %s, but it is declared %s", r->name,
             olg__type_text(t, a, sizeof a), olg__type_text(&r->type, b, sizeof b));
    s = olg__diags_add_node(cx->diags, OLG_ERROR, "OLG-INFER-MISMATCH", cx->g, cx->nd, cx->opset,
                            msg);
    if (s) return s;
  }
  r->type = res;
  return OLG_OK;
}

olg_status olg__set_out_type(olg_icx *cx, int i, const olg_type *t) {
  olg_value_rec *r = out_rec(cx, i);
  if (!r || !t) return OLG_OK;
  return store_type(cx, r, t);
}

/* An input's dims array equal to d (rank r), to share instead of copying: most ops give an
 * output the shape of an input. Dims arrays are never changed in place, so sharing is safe. */
static olg_dim *input_dims_like(const olg_icx *cx, const olg_dim *d, int32_t r) {
  uint32_t n = cx->nd->n_args < 4 ? cx->nd->n_args : 4;
  for (uint32_t k = 0; k < n; k++) {
    const olg_value_rec *in = olg__in(cx, (int)k);
    if (in && in->type.kind == OLG_TYPE_TENSOR && in->type.has_shape && in->type.rank == r &&
        dims_equal(in->type.dims, d, r))
      return in->type.dims;
  }
  return NULL;
}

olg_status olg__set_out(olg_icx *cx, int i, olg_dtype dt, const olg_ishape *s) {
  olg_value_rec *r = out_rec(cx, i);
  if (!r) return OLG_OK;
  olg_type t = {0};
  t.kind = OLG_TYPE_TENSOR;
  t.has_elem = dt != OLG_UNDEFINED;
  t.rank = OLG_RANK_UNKNOWN;
  olg_status st = olg__type_set_elem(cx->m, &t, dt);
  if (st) return st;
  if (s && s->rank >= 0) {
    t.has_shape = true;
    t.rank = s->rank;
    t.dims = (olg_dim *)s->d; /* olg__infer_merge_type copies what it keeps */
    const olg_type_more *keep = r->type.more;
    if (type_empty(&r->type) && s->rank > 0 && !t.more &&
        (!keep || (!keep->inner && !keep->key && !keep->elem))) {
      /* the common case: an untyped output; share an input's equal dims */
      olg_dim *same = input_dims_like(cx, s->d, s->rank);
      if (same) {
        t.dims = same;
        t.more = keep; /* what a reader kept stays (denotation, extra) */
        r->type = t;
        return OLG_OK;
      }
      if (!keep) { /* store_type's answer (the inferred type, its dims copied), not asked */
        if (!(t.dims = olg__infer_dims_dup(cx->m, s->d, s->rank))) return OLG_ERR_NOMEM;
        r->type = t;
        return OLG_OK;
      }
    }
  }
  return store_type(cx, r, &t);
}

olg_status olg__set_out_known(olg_icx *cx, int i, const olg_tensor *kt) {
  olg_value_rec *r = out_rec(cx, i);
  if (!r) return OLG_OK;
  olg_ishape s;
  if (!olg__shape_rank(&s, kt->rank)) return olg__set_out(cx, i, kt->dtype, NULL);
  for (int32_t k = 0; k < kt->rank; k++) s.d[k] = olg__dnum(kt->dims[k]);
  olg_status st = olg__set_out(cx, i, kt->dtype, &s);
  if (st) return st;
  olg_value_more vm = r->more ? *r->more : (olg_value_more){0};
  vm.known = kt; /* known contents, so no partly known ones */
  vm.sym = NULL;
  vm.n_sym = 0;
  return olg__value_set_more(cx->m, r, &vm);
}

static olg_status store_le(unsigned char *p, olg_dtype dt, uint64_t k, int64_t iv, double fv,
                           bool is_f) {
  switch (dt) {
#define WR(T, v) { T x = (T)(v); memcpy(p + k * sizeof(T), &x, sizeof(T)); return OLG_OK; }
  case OLG_INT64: WR(int64_t, is_f ? (int64_t)fv : iv)
  case OLG_INT32: WR(int32_t, is_f ? (int64_t)fv : iv)
  case OLG_INT16: WR(int16_t, is_f ? (int64_t)fv : iv)
  case OLG_INT8: WR(int8_t, is_f ? (int64_t)fv : iv)
  case OLG_UINT8: WR(uint8_t, is_f ? (int64_t)fv : iv)
  case OLG_UINT16: WR(uint16_t, is_f ? (int64_t)fv : iv)
  case OLG_UINT32: WR(uint32_t, is_f ? (int64_t)fv : iv)
  case OLG_UINT64: WR(uint64_t, is_f ? (uint64_t)fv : (uint64_t)iv)
  case OLG_BOOL: WR(uint8_t, is_f ? fv != 0 : iv != 0)
  case OLG_FLOAT: WR(float, is_f ? fv : (double)iv)
  case OLG_DOUBLE: WR(double, is_f ? fv : (double)iv)
#undef WR
  default:
    return OLG_ERR_UNSUPPORTED;
  }
}

static olg_status make_known(olg_icx *cx, olg_dtype dt, int32_t rank, const int64_t *dims,
                             const int64_t *iv, const double *fv, size_t n, olg_tensor **out) {
  *out = NULL;
  size_t nb = olg_dtype_nbytes(dt, n);
  if (nb == SIZE_MAX || n > OLG_INFER_MAX_KNOWN) return OLG_OK;
  switch (dt) {
  case OLG_INT64: case OLG_INT32: case OLG_INT16: case OLG_INT8: case OLG_UINT8:
  case OLG_UINT16: case OLG_UINT32: case OLG_UINT64: case OLG_BOOL: case OLG_FLOAT:
  case OLG_DOUBLE:
    break;
  default:
    return OLG_OK; /* not a type propagation computes */
  }
  olg_tensor *t = olg__arena_alloc(cx->m, sizeof *t);
  unsigned char *data = olg__arena_alloc(cx->m, nb ? nb : 1);
  int64_t *d = rank > 0 ? olg__arena_dup(cx->m, dims, (size_t)rank * sizeof *dims) : NULL;
  if (!t || !data || (rank > 0 && !d)) return OLG_ERR_NOMEM;
  for (size_t k = 0; k < n; k++)
    store_le(data, dt, k, iv ? iv[k] : 0, fv ? fv[k] : 0, fv != NULL);
  t->dtype = dt;
  t->has_dtype = true;
  t->rank = rank;
  t->dims = d;
  t->data = data;
  t->nbytes = nb;
  t->encoding = OLG_ENC_RAW;
  t->owner = OLG_OWNER_BORROWED; /* the arena's */
  *out = t;
  return OLG_OK;
}

olg_status olg__set_out_ints(olg_icx *cx, int i, olg_dtype dt, int32_t rank, const int64_t *dims,
                             const int64_t *v, size_t n) {
  olg_tensor *t;
  olg_status s = make_known(cx, dt, rank, dims, v, NULL, n, &t);
  if (s) return s;
  if (t) return olg__set_out_known(cx, i, t);
  olg_ishape sh;
  if (olg__shape_rank(&sh, rank))
    for (int32_t k = 0; k < rank; k++) sh.d[k] = olg__dnum(dims[k]);
  return olg__set_out(cx, i, dt, &sh);
}

olg_status olg__set_out_doubles(olg_icx *cx, int i, olg_dtype dt, int32_t rank,
                                const int64_t *dims, const double *v, size_t n) {
  olg_tensor *t;
  olg_status s = make_known(cx, dt, rank, dims, NULL, v, n, &t);
  if (s) return s;
  if (t) return olg__set_out_known(cx, i, t);
  olg_ishape sh;
  if (olg__shape_rank(&sh, rank))
    for (int32_t k = 0; k < rank; k++) sh.d[k] = olg__dnum(dims[k]);
  return olg__set_out(cx, i, dt, &sh);
}

olg_status olg__set_out_syms(olg_icx *cx, int i, olg_dtype dt, int32_t rank, const olg_dim *v,
                             size_t n) {
  olg_value_rec *r = out_rec(cx, i);
  if (!r) return OLG_OK;
  if (rank == 0 && n != 1) return OLG_OK;
  bool all = true, any = false;
  for (size_t k = 0; k < n; k++) {
    if (v[k].param || v[k].value == OLG_SYM_UNKNOWN) all = false;
    if (v[k].param || v[k].value != OLG_SYM_UNKNOWN) any = true;
  }
  int64_t dims[1] = {(int64_t)n};
  if (all && n <= OLG_INFER_MAX_KNOWN) {
    int64_t vals[OLG_INFER_MAX_RANK * 2];
    if (n <= sizeof vals / sizeof vals[0]) {
      for (size_t k = 0; k < n; k++) vals[k] = v[k].value;
      return olg__set_out_ints(cx, i, dt, rank, dims, vals, n);
    }
  }
  olg_ishape sh;
  olg__shape_rank(&sh, rank);
  if (rank == 1) sh.d[0] = olg__dnum((int64_t)n);
  olg_status s = olg__set_out(cx, i, dt, &sh);
  if (s || !any) return s;
  olg_dim *p = olg__arena_alloc(cx->m, (n ? n : 1) * sizeof *p);
  if (!p) return OLG_ERR_NOMEM;
  memcpy(p, v, n * sizeof *p);
  return olg__value_set_sym(cx->m, r, p, n);
}
