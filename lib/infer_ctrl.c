/* onnxlegal — inference rules: control flow (If, Loop, Scan, SequenceMap) through their bodies,
 * sequences and optionals, signal processing, and the preview training ops. */
#include <math.h>
#include <string.h>

#include "infer_impl.h"

#define MAXR OLG_INFER_MAX_RANK

/* The type with its tensor shapes dropped (element types kept), in the arena: for values whose
 * shape may change from one iteration to the next. */
static const olg_type *without_shape(olg_icx *cx, const olg_type *t) {
  if (!t) return NULL;
  olg_type *c = olg__arena_dup(cx->m, t, sizeof *t);
  if (!c) return NULL;
  if (c->kind == OLG_TYPE_TENSOR || c->kind == OLG_TYPE_SPARSE_TENSOR) {
    c->has_shape = false;
    c->rank = OLG_RANK_UNKNOWN;
    c->dims = NULL;
  } else if (olg__type_inner(c)) {
    const olg_type *in = without_shape(cx, olg__type_inner(c));
    if (olg__type_set_inner(cx->m, c, in)) return NULL;
  }
  return c;
}

/* The union of two types (both possible): what they share. NULL when either is unknown. */
static const olg_type *type_union(olg_icx *cx, const olg_type *a, const olg_type *b, bool *clash) {
  if (!a || !b) return NULL;
  if (a->kind != b->kind) {
    *clash = true;
    return NULL;
  }
  if (a->kind == OLG_TYPE_TENSOR || a->kind == OLG_TYPE_SPARSE_TENSOR) {
    olg_dtype ea = a->has_elem ? olg__type_elem(a) : 0, eb = b->has_elem ? olg__type_elem(b) : 0;
    if (ea && eb && ea != eb) *clash = true;
    olg_ishape sa, sb, su;
    bool ha = olg__type_shape(a, &sa), hb = olg__type_shape(b, &sb);
    olg__shape_unknown(&su);
    if (ha && hb && sa.rank == sb.rank) {
      su = sa;
      for (int32_t k = 0; k < sa.rank; k++)
        if (!olg__dim_same(&sa.d[k], &sb.d[k])) su.d[k] = olg__dunk();
    }
    olg_type *t = olg__type_tensor(cx, ea ? ea : eb, &su);
    if (t) t->kind = a->kind;
    return t;
  }
  if (a->kind == OLG_TYPE_SEQUENCE || a->kind == OLG_TYPE_OPTIONAL) {
    const olg_type *in = type_union(cx, olg__type_inner(a), olg__type_inner(b), clash);
    return olg__type_wrap(cx, (olg_type_kind)a->kind, in);
  }
  return a;
}

/* ---------------------------------------------------------------------------------------- */
/* Control flow */

OLG_INFER_RULE(olg__inf_if) {
  olg_graph *tb = olg__attr_graph(cx, "then_branch"), *eb = olg__attr_graph(cx, "else_branch");
  olg_status st;
  if (!tb || !eb) return OLG_OK;
  if ((st = olg__infer_subgraph(cx, tb)) || (st = olg__infer_subgraph(cx, eb))) return st;
  int n = olg__nout(cx);
  if ((int)tb->outputs.n != n || (int)eb->outputs.n != n)
    return olg__fail(cx, "the branches have %u and %u outputs; the node has %d", tb->outputs.n, eb->outputs.n, n);
  for (int i = 0; i < n; i++) {
    bool clash = false;
    const olg_type *u = type_union(cx, olg__graph_output_type(tb, i), olg__graph_output_type(eb, i), &clash);
    if (clash) {
      char a[128], b[128];
      return olg__fail(cx, "output %d is %s in then_branch but %s in else_branch; the branches must give the same type",
                       i, olg__type_text(olg__graph_output_type(tb, i), a, sizeof a),
                       olg__type_text(olg__graph_output_type(eb, i), b, sizeof b));
    }
    if (!u) {
      const olg_type *one = olg__graph_output_type(tb, i);
      if (!one) one = olg__graph_output_type(eb, i);
      u = without_shape(cx, one);
    }
    if (u && (st = olg__set_out_type(cx, i, u))) return st;
  }
  return OLG_OK;
}

/* A tensor type of dtype with a leading dim `lead` in front of inner's shape. */
static const olg_type *with_leading(olg_icx *cx, const olg_type *inner, olg_dim lead, int32_t at) {
  if (!inner || inner->kind != OLG_TYPE_TENSOR) return NULL;
  olg_ishape s, o;
  if (!olg__type_shape(inner, &s) || s.rank + 1 > MAXR)
    return olg__type_tensor(cx, inner->has_elem ? olg__type_elem(inner) : 0, NULL);
  if (at < 0) at += s.rank + 1;
  if (at < 0 || at > s.rank) at = 0;
  o.rank = s.rank + 1;
  for (int32_t k = 0, j = 0; k < o.rank; k++) o.d[k] = k == at ? lead : s.d[j++];
  return olg__type_tensor(cx, inner->has_elem ? olg__type_elem(inner) : 0, &o);
}

/* The types of every value of a graph and of the graphs nested in it, to put back before a
 * body is inferred again with more general input types. */
typedef struct saved_type {
  olg_value_rec *r;
  olg_type type;
  const olg_value_more *more; /* inference changes it (sym, known) */
} saved_type;

typedef struct type_save {
  saved_type *p;
  uint32_t n, cap;
} type_save;

static olg_status save_graph_types(olg_icx *cx, olg_graph *g, type_save *ts, int depth) {
  if (depth > 64) return olg__err(OLG_ERR_LIMIT, "subgraphs nested more than 64 deep");
  for (uint32_t v = 0; v < g->n_values; v++) {
    olg_status s = olg__grow(&cx->m->alloc, (void **)&ts->p, &ts->cap, (size_t)ts->n + 1, sizeof *ts->p);
    if (s) return s;
    olg_value_rec *r = &g->values[v];
    ts->p[ts->n++] = (saved_type){r, r->type, r->more};
  }
  for (uint32_t n = 0; n < g->n_nodes; n++) {
    const olg_node *nd = &g->nodes[n];
    for (uint32_t i = 0; i < nd->n_attrs; i++) {
      const olg_attr *a = &nd->attrs[i];
      olg_status s = OLG_OK;
      if (a->type == OLG_ATTR_GRAPH && a->g) s = save_graph_types(cx, a->g, ts, depth + 1);
      for (size_t k = 0; !s && a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        if (a->graphs[k]) s = save_graph_types(cx, a->graphs[k], ts, depth + 1);
      if (s) return s;
    }
  }
  return OLG_OK;
}

static void restore_graph_types(const type_save *ts) {
  for (uint32_t i = 0; i < ts->n; i++) {
    saved_type *s = &ts->p[i];
    s->r->type = s->type;
    s->r->more = s->more;
  }
}

/* The general type covering both a and b (the dims they share, else unknown; rank unknown
 * when the ranks differ); a itself when b says nothing. */
static const olg_type *generalize(olg_icx *cx, const olg_type *a, const olg_type *b, bool *changed) {
  if (!a || !b || a->kind != OLG_TYPE_TENSOR || b->kind != OLG_TYPE_TENSOR) return a;
  olg_ishape sa, sb;
  if (!olg__type_shape(a, &sa)) return a;
  if (!olg__type_shape(b, &sb)) return a; /* nothing inferred: keep the assumption */
  if (sa.rank != sb.rank) {
    *changed = true;
    return olg__type_tensor(cx, a->has_elem ? olg__type_elem(a) : 0, NULL);
  }
  bool diff = false;
  for (int32_t k = 0; k < sa.rank; k++)
    if (!olg__dim_same(&sa.d[k], &sb.d[k])) {
      if (sa.d[k].value >= 0 || sa.d[k].param) diff = true;
      sa.d[k] = olg__dunk();
    }
  if (!diff) return a;
  *changed = true;
  return olg__type_tensor(cx, a->has_elem ? olg__type_elem(a) : 0, &sa);
}

/* Whether the body's condition output is always its condition input (directly or through
 * Identity), or a known true. */
static bool body_keeps_cond(const olg_graph *body) {
  if (body->outputs.n < 1 || body->inputs.n < 2) return false;
  olg_value v = body->outputs.p[0], cin = body->inputs.p[1];
  for (int hops = 0; hops < 8; hops++) {
    if (v == cin) return true;
    const olg_value_rec *r = &body->values[v];
    const olg_tensor *t = olg__value_known(r);
    if (t && t->dtype == OLG_BOOL && t->data && t->nbytes == 1) return *(const uint8_t *)t->data != 0;
    if (r->producer < 0) return false;
    const olg_node *p = &body->nodes[r->producer];
    if (strcmp(p->op, "Identity") != 0 || p->n_args != 1 || p->args[0].kind != OLG_ARG_VALUE) return false;
    v = p->args[0].u.v;
  }
  return false;
}

/* The number of iterations when it is known: M, with no condition or a condition that
 * stays true. */
static olg_dim loop_trip_count(olg_icx *cx, const olg_graph *body) {
  int64_t mv[1], cv[1];
  size_t n;
  if (!olg__in(cx, 0) || !olg__in_ints(cx, 0, mv, 1, &n) || n != 1 || mv[0] < 0) return olg__dunk();
  if (!olg__in(cx, 1)) return olg__dnum(mv[0]);
  if (olg__in_ints(cx, 1, cv, 1, &n) && n == 1 && cv[0] && body_keeps_cond(body)) return olg__dnum(mv[0]);
  return olg__dunk();
}

OLG_INFER_RULE(olg__inf_loop) {
  olg_graph *body = olg__attr_graph(cx, "body");
  if (!body) return OLG_OK;
  int nin = olg__nin(cx), nc = nin - 2;
  olg_status st;
  if (nc < 0) return OLG_OK;
  if ((int)body->inputs.n != nc + 2)
    return olg__fail(cx, "the body has %u inputs; it needs %d (iteration number, condition, %d loop-carried)", body->inputs.n, nc + 2, nc);
  olg_ishape scalar = {.rank = 0};
  olg_type *it = olg__type_tensor(cx, OLG_INT64, &scalar), *cond = olg__type_tensor(cx, OLG_BOOL, &scalar);
  if (!it || !cond) return OLG_ERR_NOMEM;
  /* Loop-carried values start with the initial values' types; when the body changes a shape,
     the body is inferred again with the dims that change made unknown (at most a few rounds,
     each more general, the last with no shapes at all). */
  const olg_type *carried[256];
  if (nc > 256) return OLG_OK;
  for (int i = 0; i < nc; i++) carried[i] = olg__in_type(cx, 2 + i);
  type_save ts = {0};
  if ((st = save_graph_types(cx, body, &ts, 0))) goto done;
  for (int round = 0;; round++) {
    if ((st = olg__set_graph_input(cx, body, 0, it)) || (st = olg__set_graph_input(cx, body, 1, cond))) goto done;
    for (int i = 0; i < nc; i++)
      if ((st = olg__set_graph_input(cx, body, 2 + i, carried[i]))) goto done;
    if ((st = olg__infer_subgraph(cx, body))) goto done;
    bool changed = false;
    for (int i = 0; i < nc && (int)body->outputs.n > 1 + i; i++) {
      const olg_type *g = generalize(cx, carried[i], olg__graph_output_type(body, 1 + i), &changed);
      if (!g) { st = OLG_ERR_NOMEM; goto done; }
      carried[i] = g;
    }
    if (!changed) break;
    if (round == 2)
      for (int i = 0; i < nc; i++) carried[i] = without_shape(cx, carried[i]);
    restore_graph_types(&ts); /* a round without shapes changes nothing more: it ends */
  }
  int nbo = (int)body->outputs.n;
  if (nbo < 1 + nc) {
    st = olg__fail(cx, "the body has %d outputs; it needs at least %d (condition and %d loop-carried)", nbo, 1 + nc, nc);
    goto done;
  }
  for (int i = 0; i < nc; i++) {
    const olg_type *t = olg__graph_output_type(body, 1 + i);
    bool clash = false;
    const olg_type *u = t && carried[i] ? type_union(cx, t, carried[i], &clash) : NULL;
    if (!u) u = without_shape(cx, t ? t : carried[i]);
    if (u && (st = olg__set_out_type(cx, i, u))) goto done;
  }
  olg_dim trips = loop_trip_count(cx, body);
  for (int k = 0; k < nbo - 1 - nc; k++) {
    const olg_type *t = olg__graph_output_type(body, 1 + nc + k);
    if (!t || t->kind != OLG_TYPE_TENSOR) continue;
    const olg_type *o = with_leading(cx, t, trips, 0);
    if (o && (st = olg__set_out_type(cx, nc + k, o))) goto done;
  }
done:
  olg__free(&cx->m->alloc, ts.p, (size_t)ts.cap * sizeof *ts.p);
  return st;
}

OLG_INFER_RULE(olg__inf_scan) {
  olg_graph *body = olg__attr_graph(cx, "body");
  if (!body) return OLG_OK;
  olg_status st;
  int64_t m = olg__attr_i(cx, "num_scan_inputs", 0);
  bool v8 = cx->opset < 9;
  int first = v8 ? 1 : 0; /* Scan-8: input 0 is sequence_lens */
  int nin = olg__nin(cx) - first, ns = m > 0 && m <= nin ? nin - (int)m : -1;
  if (ns < 0) return olg__fail(cx, "num_scan_inputs is %lld but the node has %d inputs", (long long)m, nin);
  if ((int)body->inputs.n != nin)
    return olg__fail(cx, "the body has %u inputs; it needs %d (%d states, %lld scan inputs)", body->inputs.n, nin, ns, (long long)m);
  const int64_t *axes = NULL, *oaxes = NULL;
  size_t na = 0, noa = 0;
  olg__attr_ints(cx, "scan_input_axes", &axes, &na);
  olg__attr_ints(cx, "scan_output_axes", &oaxes, &noa);
  olg_dim seq = olg__dunk(), batch = olg__dunk();
  for (int i = 0; i < ns; i++) {
    const olg_type *t = olg__in_type(cx, first + i);
    if (v8 && t) {
      /* Scan-8 states carry a batch dim first that the body does not see */
      olg_ishape s;
      if (olg__type_shape(t, &s) && s.rank >= 1) {
        batch = s.d[0];
        for (int32_t k = 1; k < s.rank; k++) s.d[k - 1] = s.d[k];
        s.rank--;
        t = olg__type_tensor(cx, olg__type_elem(t), &s);
      }
    }
    if ((st = olg__set_graph_input(cx, body, i, t))) return st;
  }
  for (int j = 0; j < (int)m; j++) {
    olg_ishape s;
    const olg_type *t = olg__in_type(cx, first + ns + j);
    if (!t || !olg__type_shape(t, &s)) {
      if (t && (st = olg__set_graph_input(cx, body, ns + j, without_shape(cx, t)))) return st;
      continue;
    }
    int32_t ax = 0;
    int64_t a = v8 ? 1 : (j < (int)na ? axes[j] : 0);
    if ((st = olg__axis(cx, a, s.rank, "scan input axis", &ax))) return st;
    if (v8) batch = s.d[0];
    seq = s.d[ax];
    for (int32_t k = ax + 1; k < s.rank; k++) s.d[k - 1] = s.d[k];
    s.rank--;
    if (v8 && s.rank > 0) {
      for (int32_t k = 1; k < s.rank; k++) s.d[k - 1] = s.d[k];
      s.rank--;
    }
    olg_type *bt = olg__type_tensor(cx, t->has_elem ? olg__type_elem(t) : 0, &s);
    if (!bt) return OLG_ERR_NOMEM;
    if ((st = olg__set_graph_input(cx, body, ns + j, bt))) return st;
  }
  if ((st = olg__infer_subgraph(cx, body))) return st;
  int nbo = (int)body->outputs.n;
  for (int i = 0; i < nbo && i < olg__nout(cx); i++) {
    const olg_type *t = olg__graph_output_type(body, i);
    if (!t) continue;
    const olg_type *o = t;
    if (i < ns) {
      if (v8) o = with_leading(cx, t, batch, 0);
    } else {
      int k = i - ns;
      int64_t a = !v8 && k < (int)noa ? oaxes[k] : 0;
      olg_ishape bs; /* the axis within the output's rank (the body's + 1): not put first */
      int32_t ax = 0;
      if (olg__type_shape(t, &bs) && bs.rank < MAXR &&
          (st = olg__axis(cx, a, bs.rank + 1, "scan output axis", &ax)))
        return st;
      o = with_leading(cx, t, seq, ax);
      if (v8 && o) o = with_leading(cx, o, batch, 0);
    }
    if (o && (st = olg__set_out_type(cx, i, o))) return st;
  }
  return OLG_OK;
}

/* The element type of a sequence (or the type itself for a tensor). */
static const olg_type *elem_of(const olg_type *t) {
  if (!t) return NULL;
  if (t->kind == OLG_TYPE_SEQUENCE) return olg__type_inner(t);
  return t;
}

OLG_INFER_RULE(olg__inf_sequence_map) {
  olg_graph *body = olg__attr_graph(cx, "body");
  if (!body) return OLG_OK;
  olg_status st;
  for (int i = 0; i < olg__nin(cx); i++) {
    const olg_type *t = elem_of(olg__in_type(cx, i));
    if (t && (st = olg__set_graph_input(cx, body, i, t))) return st;
  }
  if ((st = olg__infer_subgraph(cx, body))) return st;
  for (int i = 0; i < olg__nout(cx) && i < (int)body->outputs.n; i++) {
    const olg_type *t = olg__graph_output_type(body, i);
    if (!t) continue;
    /* each iteration may give another shape */
    const olg_type *o = olg__type_wrap(cx, OLG_TYPE_SEQUENCE, without_shape(cx, t));
    if (!o) return OLG_ERR_NOMEM;
    if ((st = olg__set_out_type(cx, i, o))) return st;
  }
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Sequences and optionals */

static olg_status set_seq_of(olg_icx *cx, int out, const olg_type *elem) {
  const olg_type *t = olg__type_wrap(cx, OLG_TYPE_SEQUENCE, elem);
  return t ? olg__set_out_type(cx, out, t) : OLG_ERR_NOMEM;
}

OLG_INFER_RULE(olg__inf_seq_empty) {
  const olg_attr *a = olg__attr(cx, "dtype");
  olg_dtype dt = a && a->type == OLG_ATTR_INT ? (olg_dtype)a->i : OLG_FLOAT;
  olg_type *e = olg__type_tensor(cx, dt, NULL);
  return e ? set_seq_of(cx, 0, e) : OLG_ERR_NOMEM;
}

OLG_INFER_RULE(olg__inf_seq_construct) {
  const olg_type *u = NULL;
  bool clash = false;
  for (int i = 0; i < olg__nin(cx); i++) {
    const olg_type *t = olg__in_type(cx, i);
    if (!t) return OLG_OK;
    u = i == 0 ? t : type_union(cx, u, t, &clash);
    if (clash) return olg__fail(cx, "inputs have different element types; a sequence holds one type");
  }
  return u ? set_seq_of(cx, 0, u) : OLG_OK;
}

OLG_INFER_RULE(olg__inf_seq_insert) {
  const olg_type *s = olg__in_type(cx, 0), *t = olg__in_type(cx, 1);
  bool clash = false;
  if (!s || s->kind != OLG_TYPE_SEQUENCE) return OLG_OK;
  const olg_type *in = olg__type_inner(s);
  const olg_type *e = in && t ? type_union(cx, in, t, &clash) : NULL;
  if (clash) return olg__fail(cx, "the tensor's type differs from the sequence's element type");
  if (!e && t) e = without_shape(cx, t);
  return e ? set_seq_of(cx, 0, e) : olg__set_out_type(cx, 0, s);
}

OLG_INFER_RULE(olg__inf_seq_at) {
  const olg_type *s = olg__in_type(cx, 0);
  const olg_type *in = s && s->kind == OLG_TYPE_SEQUENCE ? olg__type_inner(s) : NULL;
  return in ? olg__set_out_type(cx, 0, in) : OLG_OK;
}

OLG_INFER_RULE(olg__inf_seq_erase) {
  const olg_type *s = olg__in_type(cx, 0);
  return s ? olg__set_out_type(cx, 0, s) : OLG_OK;
}

OLG_INFER_RULE(olg__inf_seq_length) {
  olg_ishape scalar = {.rank = 0};
  return olg__set_out(cx, 0, OLG_INT64, &scalar);
}

OLG_INFER_RULE(olg__inf_split_to_seq) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_type *e;
  if (!olg__in_shape(cx, 0, &x)) {
    e = olg__type_tensor(cx, dt, NULL);
    return e ? set_seq_of(cx, 0, e) : OLG_ERR_NOMEM;
  }
  int32_t ax;
  olg_status st = olg__axis(cx, olg__attr_i(cx, "axis", 0), x.rank, "axis", &ax);
  if (st) return st;
  bool has_split = olg__nin(cx) > 1 && olg__in(cx, 1);
  if (!has_split) {
    if (olg__attr_i(cx, "keepdims", 1)) x.d[ax] = olg__dnum(1);
    else {
      for (int32_t k = ax + 1; k < x.rank; k++) x.d[k - 1] = x.d[k];
      x.rank--;
    }
  } else {
    int64_t v[1];
    size_t n;
    olg_ishape ss;
    if (olg__in_shape(cx, 1, &ss) && ss.rank == 0 && olg__in_ints(cx, 1, v, 1, &n) && x.d[ax].value >= 0 &&
        v[0] > 0 && x.d[ax].value % v[0] == 0)
      x.d[ax] = olg__dnum(v[0]);
    else
      x.d[ax] = olg__dunk();
  }
  e = olg__type_tensor(cx, dt, &x);
  return e ? set_seq_of(cx, 0, e) : OLG_ERR_NOMEM;
}

OLG_INFER_RULE(olg__inf_concat_from_seq) {
  const olg_type *s = olg__in_type(cx, 0);
  const olg_type *in = s && s->kind == OLG_TYPE_SEQUENCE ? olg__type_inner(s) : NULL;
  if (!in) return OLG_OK;
  olg_ishape x;
  olg_dtype dt = in->has_elem ? olg__type_elem(in) : 0;
  if (!olg__type_shape(in, &x)) return olg__set_out(cx, 0, dt, NULL);
  bool newax = olg__attr_i(cx, "new_axis", 0) != 0;
  int32_t ax;
  olg_status st = olg__axis(cx, olg__attr_i(cx, "axis", 0), x.rank + (newax ? 1 : 0), "axis", &ax);
  if (st) return st;
  if (newax) {
    if (x.rank + 1 > MAXR) return olg__set_out(cx, 0, dt, NULL);
    for (int32_t k = x.rank; k > ax; k--) x.d[k] = x.d[k - 1];
    x.rank++;
  }
  x.d[ax] = olg__dunk();
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_optional) {
  const olg_type *t = NULL;
  if (olg__nin(cx) > 0 && olg__in(cx, 0)) {
    t = olg__in_type(cx, 0);
  } else {
    const olg_attr *a = olg__attr(cx, "type");
    if (a && a->type == OLG_ATTR_TYPE_PROTO) t = a->tp;
  }
  if (!t) return OLG_OK;
  const olg_type *o = olg__type_wrap(cx, OLG_TYPE_OPTIONAL, t);
  return o ? olg__set_out_type(cx, 0, o) : OLG_ERR_NOMEM;
}

OLG_INFER_RULE(olg__inf_optional_get) {
  const olg_type *t = olg__in_type(cx, 0);
  if (!t) return OLG_OK;
  if (t->kind == OLG_TYPE_OPTIONAL) {
    const olg_type *in = olg__type_inner(t);
    return in ? olg__set_out_type(cx, 0, in) : OLG_OK;
  }
  return olg__set_out_type(cx, 0, t); /* opset 18: a tensor or sequence passes through */
}

OLG_INFER_RULE(olg__inf_optional_has) {
  olg_ishape scalar = {.rank = 0};
  return olg__set_out(cx, 0, OLG_BOOL, &scalar);
}

/* ---------------------------------------------------------------------------------------- */
/* Signal processing */

OLG_INFER_RULE(olg__inf_dft) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  if (x.rank < 2) return olg__fail(cx, "input must be [batch, ..., 1 or 2], not rank %d", (int)x.rank);
  int64_t axis = olg__attr_i(cx, "axis", 1);
  if (cx->opset >= 20) {
    int64_t v[1];
    size_t n;
    axis = -2;
    if (olg__nin(cx) > 2 && olg__in(cx, 2)) {
      if (olg__in_ints(cx, 2, v, 1, &n) && n == 1) axis = v[0];
      else axis = INT64_MIN;
    }
  }
  x.d[x.rank - 1] = olg__dnum(2);
  if (axis == INT64_MIN) {
    for (int32_t k = 1; k < x.rank - 1; k++) x.d[k] = olg__dunk();
    return olg__set_out(cx, 0, dt, &x);
  }
  int32_t ax;
  olg_status st = olg__axis(cx, axis, x.rank, "axis", &ax);
  if (st) return st;
  if (ax == x.rank - 1) return olg__fail(cx, "axis may not be the last (real/imaginary) axis");
  olg_dim len = x.d[ax];
  int64_t v[1];
  size_t n;
  if (olg__nin(cx) > 1 && olg__in(cx, 1))
    len = olg__in_ints(cx, 1, v, 1, &n) && n == 1 ? olg__dnum(v[0]) : olg__dunk();
  bool onesided = olg__attr_i(cx, "onesided", 0) != 0;
  if (onesided) len = len.value >= 0 ? olg__dnum(len.value / 2 + 1) : olg__dunk();
  x.d[ax] = len;
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_stft) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg__shape_rank(&out, 4);
  out.d[3] = olg__dnum(2);
  if (olg__in_shape(cx, 0, &x)) {
    if (x.rank != 3) return olg__fail(cx, "signal must be [batch, length, 1 or 2], not rank %d", (int)x.rank);
    out.d[0] = x.d[0];
  }
  int64_t step[1], fl[1];
  size_t n;
  bool hs = olg__in_ints(cx, 1, step, 1, &n) && n == 1;
  olg_dim flen = olg__dunk();
  if (olg__nin(cx) > 3 && olg__in(cx, 3) && olg__in_ints(cx, 3, fl, 1, &n) && n == 1) flen = olg__dnum(fl[0]);
  else if (olg__nin(cx) > 2 && olg__in(cx, 2)) {
    olg_ishape w;
    if (olg__in_shape(cx, 2, &w) && w.rank == 1) flen = w.d[0];
  }
  if (hs && flen.value > 0 && x.rank == 3 && x.d[1].value >= 0) {
    if (step[0] <= 0) return olg__fail(cx, "frame_step must be > 0");
    if (flen.value > x.d[1].value) /* else a negative count of frames */
      return olg__fail(cx, "the frame length %lld exceeds the signal's %lld samples",
                       (long long)flen.value, (long long)x.d[1].value);
    out.d[1] = olg__dnum((x.d[1].value - flen.value) / step[0] + 1);
  }
  if (flen.value >= 0) {
    bool onesided = olg__attr_i(cx, "onesided", 1) != 0;
    out.d[2] = olg__dnum(onesided ? flen.value / 2 + 1 : flen.value);
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_window) {
  olg_ishape out;
  olg__shape_rank(&out, 1);
  int64_t v[1];
  size_t n;
  if (olg__in_ints(cx, 0, v, 1, &n) && n == 1) out.d[0] = olg__dnum(v[0]);
  return olg__set_out(cx, 0, (olg_dtype)olg__attr_i(cx, "output_datatype", OLG_FLOAT), &out);
}

OLG_INFER_RULE(olg__inf_mel) {
  olg_ishape out;
  olg__shape_rank(&out, 2);
  int64_t v[1];
  size_t n;
  if (olg__in_ints(cx, 1, v, 1, &n) && n == 1) out.d[0] = olg__dnum(v[0] / 2 + 1);
  if (olg__in_ints(cx, 0, v, 1, &n) && n == 1) out.d[1] = olg__dnum(v[0]);
  return olg__set_out(cx, 0, (olg_dtype)olg__attr_i(cx, "output_datatype", OLG_FLOAT), &out);
}

/* ---------------------------------------------------------------------------------------- */
/* ai.onnx.preview.training */

/* Adagrad and Momentum: R, T, X[n], G[n], S[n] -> X_new[n], S_new[n]. */
OLG_INFER_RULE(olg__inf_adagrad) {
  int n = (olg__nin(cx) - 2) / 3;
  olg_status st;
  for (int i = 0; i < n; i++) {
    const olg_type *x = olg__in_type(cx, 2 + i), *s = olg__in_type(cx, 2 + 2 * n + i);
    if (x && (st = olg__set_out_type(cx, i, x))) return st;
    if (s && (st = olg__set_out_type(cx, n + i, s))) return st;
  }
  return OLG_OK;
}

/* Adam: R, T, X[n], G[n], V[n], H[n] -> X_new[n], V_new[n], H_new[n]. */
OLG_INFER_RULE(olg__inf_adam) {
  int n = (olg__nin(cx) - 2) / 4;
  olg_status st;
  for (int i = 0; i < n; i++) {
    const olg_type *x = olg__in_type(cx, 2 + i), *v = olg__in_type(cx, 2 + 2 * n + i),
                   *h = olg__in_type(cx, 2 + 3 * n + i);
    if (x && (st = olg__set_out_type(cx, i, x))) return st;
    if (v && (st = olg__set_out_type(cx, n + i, v))) return st;
    if (h && (st = olg__set_out_type(cx, 2 * n + i, h))) return st;
  }
  return OLG_OK;
}

/* Gradient: one output per name in xs, of that value's type. */
OLG_INFER_RULE(olg__inf_gradient) {
  const olg_attr *xs = olg__attr(cx, "xs");
  if (!xs || xs->type != OLG_ATTR_STRINGS) return OLG_OK;
  olg_status st;
  for (size_t i = 0; i < xs->n && (int)i < olg__nout(cx); i++) {
    char name[512];
    size_t l = xs->strings[i].n < sizeof name - 1 ? xs->strings[i].n : sizeof name - 1;
    memcpy(name, xs->strings[i].p, l);
    name[l] = 0;
    for (const olg_graph *g = cx->g; g; g = g->parent) {
      olg_value v = olg__graph_lookup(g, name);
      if (v < 0) continue;
      const olg_value_rec *r = olg__resolve(g, v, NULL);
      if (r->type.kind != OLG_TYPE_NONE && (st = olg__set_out_type(cx, (int)i, &r->type))) return st;
      break;
    }
  }
  return OLG_OK;
}
