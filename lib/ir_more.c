/* onnxlegal — the side records of types, nodes and values (lib/ir.h): the fields few records
 * set, kept out of the records themselves so that a large graph's values and nodes stay small. */
#include "ir.h"

#define MORE_OWN(T, rec, m)                                                    \
  do {                                                                         \
    T *c = olg__arena_alloc((m), sizeof *c);                                   \
    if (!c) return NULL;                                                       \
    if ((rec)->more) *c = *(rec)->more;                                        \
    (rec)->more = c;                                                           \
    return c;                                                                  \
  } while (0)

/* Which parts use what (onnxlegal/config.h): the graph builder needs only olg__type_set_more
 * and olg__type_set_elem_wide; the rest is left out with the parts that use it (the minimal
 * configuration's 64 KiB). The checker's are the lowering's too (no check implies no
 * legalize). */
#ifndef OLG_CONFIG_NO_READER /* (and the tests') */
olg_type_more *olg__type_more_own(olg_model *m, olg_type *t) { MORE_OWN(olg_type_more, t, m); }
olg_value_more *olg__value_more_own(olg_model *m, olg_value_rec *r) {
  MORE_OWN(olg_value_more, r, m);
}
#endif
#ifndef OLG_CONFIG_NO_LEGALIZE
olg_node_more *olg__node_more_own(olg_model *m, olg_node *n) { MORE_OWN(olg_node_more, n, m); }
#endif

olg_status olg__type_set_more(olg_model *m, olg_type *t, const olg_type_more *tm) {
  if (!tm->denotation && !tm->opaque_domain && !tm->opaque_name && !tm->extra && !tm->inner &&
      !tm->key && !tm->elem) {
    t->more = NULL;
    return OLG_OK;
  }
  return (t->more = olg__arena_dup(m, tm, sizeof *tm)) ? OLG_OK : OLG_ERR_NOMEM;
}

#ifndef OLG_CONFIG_NO_CHECK
olg_status olg__type_set_inner(olg_model *m, olg_type *t, const olg_type *inner) {
  if (olg__type_inner(t) == inner) return OLG_OK;
  olg_type_more tm = t->more ? *t->more : (olg_type_more){0};
  tm.inner = inner;
  return olg__type_set_more(m, t, &tm);
}

olg_status olg__type_set_key(olg_model *m, olg_type *t, olg_dtype key) {
  if (olg__type_key(t) == key) return OLG_OK;
  olg_type_more tm = t->more ? *t->more : (olg_type_more){0};
  tm.key = key;
  return olg__type_set_more(m, t, &tm);
}
#endif

/* olg__type_set_elem's other case: dt does not fit elem8, or t's element type is in its side
 * record now (which then keeps 0 there, so that equal types keep equal side records). */
olg_status olg__type_set_elem_wide(olg_model *m, olg_type *t, olg_dtype dt) {
  bool wide = dt < 0 || dt >= OLG_TYPE_ELEM_WIDE;
  if (olg__type_elem(t) == dt && (t->elem8 == OLG_TYPE_ELEM_WIDE) == wide) return OLG_OK;
  olg_type_more tm = t->more ? *t->more : (olg_type_more){0};
  tm.elem = wide ? dt : 0;
  olg_status s = olg__type_set_more(m, t, &tm);
  if (s) return s;
  t->elem8 = wide ? OLG_TYPE_ELEM_WIDE : (uint8_t)dt;
  return OLG_OK;
}

#if !defined(OLG_CONFIG_NO_READER) || !defined(OLG_CONFIG_NO_CHECK) || \
    !defined(OLG_CONFIG_NO_LEGALIZE) /* (olg__node_drop_extra's, the lowering's) */
olg_status olg__node_set_more(olg_model *m, olg_node *n, const olg_node_more *nm) {
  if (!nm->doc_string && !nm->overload && !nm->metadata && !nm->n_metadata && !nm->extra) {
    n->more = NULL;
    return OLG_OK;
  }
  return (n->more = olg__arena_dup(m, nm, sizeof *nm)) ? OLG_OK : OLG_ERR_NOMEM;
}
#endif

olg_status olg__value_set_more(olg_model *m, olg_value_rec *r, const olg_value_more *vm) {
  if (!vm->doc_string && !vm->metadata && !vm->n_metadata && !vm->extra && !vm->sym && !vm->known) {
    r->more = NULL;
    return OLG_OK;
  }
  return (r->more = olg__arena_dup(m, vm, sizeof *vm)) ? OLG_OK : OLG_ERR_NOMEM;
}

olg_status olg__value_set_known(olg_model *m, olg_value_rec *r, const olg_tensor *t) {
  if (olg__value_known(r) == t) return OLG_OK;
  olg_value_more vm = r->more ? *r->more : (olg_value_more){0};
  vm.known = t;
  return olg__value_set_more(m, r, &vm);
}

#ifndef OLG_CONFIG_NO_LEGALIZE
olg_status olg__type_drop_extra(olg_model *m, olg_type *t) {
  if (!t->more || !t->more->extra) return OLG_OK;
  olg_type_more tm = *t->more;
  tm.extra = NULL;
  return olg__type_set_more(m, t, &tm);
}
#endif

#ifndef OLG_CONFIG_NO_CHECK
olg_status olg__node_drop_extra(olg_model *m, olg_node *n) {
  if (!n->more || !n->more->extra) return OLG_OK;
  olg_node_more nm = *n->more;
  nm.extra = NULL;
  return olg__node_set_more(m, n, &nm);
}

olg_status olg__value_set_sym(olg_model *m, olg_value_rec *r, const olg_dim *sym, size_t n) {
  if (!sym && !olg__value_sym(r)) return OLG_OK; /* the common case: nothing to clear */
  if (n > INT32_MAX) return olg__err(OLG_ERR_LIMIT, "a shape computation of %zu elements", n);
  olg_value_more vm = r->more ? *r->more : (olg_value_more){0};
  vm.sym = sym;
  vm.n_sym = sym ? (int32_t)n : 0;
  return olg__value_set_more(m, r, &vm);
}
#endif

/* The one limit a record's packed fields set on a graph (olg_value_rec.init's 24 bits). */
olg_status olg__too_many_inits(const olg_graph *g) {
  return olg__err(OLG_ERR_LIMIT, "graph '%s': more than %d initializers", g->name ? g->name : "",
                  OLG_MAX_INITS);
}
