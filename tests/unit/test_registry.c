/* Tests of the symbolic registry: dispatch, overrides, removal, freezing, queries. */
#include <string.h>

#include "../harness.h"

static olg_status sym_a(olg_lower *cx, olg_node_id src, void *ud) {
  (void)cx; (void)src; (void)ud;
  return OLG_OK;
}
static olg_status sym_b(olg_lower *cx, olg_node_id src, void *ud) {
  (void)cx; (void)src; (void)ud;
  return OLG_OK;
}

TEST(registry_dispatch_highest_since) {
  olg_registry *r;
  CHECK_OK(olg_registry_new(&r, NULL));
  CHECK_OK(olg_registry_add_ex(r, "aten", "layer_norm", 7, OLG_LOWERING_DECOMPOSED, sym_a, NULL));
  CHECK_OK(olg_registry_add(r, "aten", "layer_norm", 17, sym_b, NULL));
  int since = 0, kind = 0;
  CHECK_STATUS(olg_registry_find(r, "aten", "layer_norm", 6, &since, &kind), OLG_ERR_NOT_FOUND);
  CHECK_OK(olg_registry_find(r, "aten", "layer_norm", 7, &since, &kind));
  CHECK_EQ(since, 7);
  CHECK_EQ(kind, OLG_LOWERING_DECOMPOSED);
  CHECK_OK(olg_registry_find(r, "aten", "layer_norm", 16, &since, &kind));
  CHECK_EQ(since, 7);
  CHECK_OK(olg_registry_find(r, "aten", "layer_norm", 23, &since, &kind));
  CHECK_EQ(since, 17);
  CHECK_EQ(kind, OLG_LOWERING_NATIVE);
  CHECK_EQ(olg_registry_min_opset(r, "aten", "layer_norm", 0), 7);
  CHECK_EQ(olg_registry_min_opset(r, "aten", "layer_norm", 1), 17);
  CHECK_EQ(olg_registry_min_opset(r, "aten", "nothing", 0), -1);
  /* a "not expressible" row ends the range */
  CHECK_OK(olg_registry_add_ex(r, "aten", "layer_norm", 20, OLG_LOWERING_NONE, NULL, NULL));
  CHECK_STATUS(olg_registry_find(r, "aten", "layer_norm", 21, &since, &kind), OLG_ERR_NOT_FOUND);
  CHECK_EQ(since, 20);
  CHECK_EQ(olg_registry_lowering(r, "aten", "layer_norm", 19), OLG_LOWERING_NATIVE);
  CHECK_EQ(olg_registry_lowering(r, "aten", "layer_norm", 20), OLG_LOWERING_NONE);
  /* bad arguments */
  CHECK_STATUS(olg_registry_add_ex(r, "aten", "x", 7, OLG_LOWERING_NONE, sym_a, NULL), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_registry_add(r, "aten", "x", 7, NULL, NULL), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_registry_add(r, "aten", "x", 0, sym_a, NULL), OLG_ERR_RANGE);
  CHECK_STATUS(olg_registry_add(r, "aten", "", 7, sym_a, NULL), OLG_ERR_INVALID_ARG);
  olg_registry_free(r);
}

TEST(registry_override_and_remove_restores_builtin) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  int since, kind;
  CHECK_OK(olg_registry_find(r, "aten", "view", 13, &since, &kind));
  CHECK_EQ(since, 7);
  size_t n_before = olg_registry_op_count(r);
  CHECK_OK(olg_registry_add_ex(r, "aten", "view", 7, OLG_LOWERING_DECOMPOSED, sym_a, NULL));
  CHECK_EQ(olg_registry_lowering(r, "aten", "view", 13), OLG_LOWERING_DECOMPOSED);
  CHECK_EQ(olg_registry_op_count(r), n_before);
  CHECK_OK(olg_registry_remove(r, "aten", "view", 7));
  CHECK_EQ(olg_registry_lowering(r, "aten", "view", 13), OLG_LOWERING_NATIVE); /* built-in back */
  CHECK_STATUS(olg_registry_remove(r, "aten", "view", 9), OLG_ERR_NOT_FOUND);
  /* a caller's op of its own: removing it removes the op */
  CHECK_OK(olg_registry_add(r, "mmcv", "MSDeformAttn", 7, sym_b, NULL));
  CHECK_EQ(olg_registry_op_count(r), n_before + 1);
  CHECK_OK(olg_registry_remove(r, "mmcv", "MSDeformAttn", 7));
  CHECK_EQ(olg_registry_op_count(r), n_before);
  /* "ai.onnx" is the default domain */
  CHECK_EQ(olg_registry_lowering(r, "ai.onnx", "Squeeze", 13), OLG_LOWERING_NATIVE);
  olg_registry_free(r);
}

olg_status olg__registry_dispatch(const olg_registry *r, const char *domain, const char *op,
                                  int opset, olg_symbolic_fn *fn, void **ud, int *lowering);

/* The dispatch remembers its answers (by the op name's address): a registration added or
 * removed since, or another name at that address, is seen. */
TEST(registry_dispatch_memo_sees_changes) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  static const char op[] = "Relu";
  olg_symbolic_fn fn = NULL, builtin = NULL;
  void *ud;
  int k;
  CHECK_OK(olg__registry_dispatch(r, "", op, 13, &builtin, &ud, &k));
  CHECK_OK(olg__registry_dispatch(r, "", op, 13, &fn, &ud, &k));
  CHECK(fn == builtin && builtin != sym_a);
  CHECK_OK(olg_registry_add(r, "", op, 7, sym_a, NULL));
  CHECK_OK(olg__registry_dispatch(r, "", op, 13, &fn, &ud, &k));
  CHECK(fn == sym_a);
  CHECK_OK(olg_registry_remove(r, "", op, 7));
  CHECK_OK(olg__registry_dispatch(r, "ai.onnx", op, 13, &fn, &ud, &k));
  CHECK(fn == builtin);
  olg_registry_free(r);
  /* a registry without the pass-through: another name at the same address is not found */
  CHECK_OK(olg_registry_new(&r, NULL));
  char name[8] = "Relu";
  CHECK_OK(olg_registry_add(r, "", name, 7, sym_b, NULL));
  CHECK_OK(olg__registry_dispatch(r, "", name, 13, &fn, &ud, &k));
  CHECK(fn == sym_b);
  memcpy(name, "Tanh", 5);
  CHECK_STATUS(olg__registry_dispatch(r, "", name, 13, &fn, &ud, &k), OLG_ERR_NOT_FOUND);
  CHECK(fn == NULL);
  olg_registry_free(r);
}

TEST(registry_frozen_is_read_only) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  CHECK_OK(olg_registry_freeze(r));
  CHECK(olg_registry_is_frozen(r));
  CHECK_STATUS(olg_registry_add(r, "aten", "foo", 7, sym_a, NULL), OLG_ERR_STATE);
  CHECK_STATUS(olg_registry_remove(r, "aten", "view", 7), OLG_ERR_STATE);
  CHECK_STATUS(olg_registry_add_shape_fn(r, "x", "y", NULL, NULL), OLG_ERR_STATE);
  CHECK_STATUS(olg_registry_set_domain_version(r, "x", 2), OLG_ERR_STATE);
  CHECK_EQ(olg_registry_lowering(r, "aten", "view", 13), OLG_LOWERING_NATIVE);
  olg_registry_free(r);
}

TEST(registry_ops_sorted) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  size_t n = olg_registry_op_count(r);
  CHECK(n > 20);
  const char *pd = NULL, *po = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *d, *o;
    CHECK_OK(olg_registry_op_at(r, i, &d, &o));
    if (pd) {
      int c = strcmp(pd, d);
      CHECK(c < 0 || (c == 0 && strcmp(po, o) < 0));
    }
    pd = d;
    po = o;
  }
  CHECK_STATUS(olg_registry_op_at(r, n, NULL, NULL), OLG_ERR_RANGE);
  olg_registry_free(r);
}

static olg_status build_builtin(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_registry *r;
  olg_status s = olg_registry_new_builtin(&r, a);
  if (s) return s;
  s = olg_registry_add(r, "mmcv", "MSDeformAttn", 7, sym_a, NULL);
  if (!s) s = olg_registry_add_shape_fn(r, "mmcv", "MSDeformAttn", NULL, NULL) == OLG_ERR_INVALID_ARG ? OLG_OK : OLG_ERR_STATE;
  if (!s) s = olg_registry_set_domain_version(r, "mmcv", 1);
  olg_registry_free(r);
  return s;
}

TEST(registry_every_allocation_failure) {
  CHECK_FAIL_EACH_ALLOCATION(build_builtin, NULL);
}
