/* Tests of the registry's opset ranges and of the meaning-change table (lib/meaning.c) against
 * the schema tables (lib/schemas_gen.c) and the built-in rows (opsets/opsetNN.c): rows end
 * at the op's native opset without pass-through rows, and the pass-through never copies a node
 * across a listed change. */
#include "../harness.h"
#include "lower.h"
#include "schema.h"
#include "../../opsets/opsets.h"
#include "../../symbolics/symbolics.h"

static olg_status sym_a(olg_lower *cx, olg_node_id src, void *ud) {
  (void)cx; (void)src; (void)ud;
  return OLG_OK;
}
static olg_status sym_fallback(olg_lower *cx, olg_node_id src, void *ud) {
  (void)cx; (void)src; (void)ud;
  return OLG_OK;
}

TEST(registry_row_range_hands_back_to_passthrough) {
  olg_registry *r;
  CHECK_OK(olg_registry_new(&r, NULL));
  olg__registry_set_onnx_fallback(r, sym_fallback);
  CHECK_OK(olg__registry_add_range(r, "", "Mod", 7, 10, OLG_LOWERING_DECOMPOSED, sym_a, NULL));
  CHECK_OK(olg__registry_add_range(r, "custom", "op", 7, 12, OLG_LOWERING_NATIVE, sym_a, NULL));
  CHECK_STATUS(olg__registry_add_range(r, "", "X", 9, 9, OLG_LOWERING_NATIVE, sym_a, NULL),
               OLG_ERR_RANGE);
  olg_symbolic_fn fn;
  void *ud;
  int kind, since;
  for (int t = 7; t <= 27; t++) {
    CHECK_OK(olg__registry_dispatch(r, "", "Mod", t, &fn, &ud, &kind));
    CHECK(fn == (t < 10 ? sym_a : sym_fallback));
    CHECK_EQ(kind, t < 10 ? OLG_LOWERING_DECOMPOSED : OLG_LOWERING_NATIVE);
    CHECK_EQ(olg_registry_lowering(r, "", "Mod", t), kind);
    CHECK_OK(olg_registry_find(r, "", "Mod", t, &since, &kind));
    CHECK_EQ(since, t < 10 ? 7 : 10);
    /* a custom domain has no pass-through: past its range the op has no symbolic */
    olg_status s = olg__registry_dispatch(r, "custom", "op", t, &fn, &ud, &kind);
    CHECK_EQ(s, t < 12 ? OLG_OK : OLG_ERR_NOT_FOUND);
    CHECK_EQ(olg_registry_lowering(r, "custom", "op", t),
             t < 12 ? OLG_LOWERING_NATIVE : OLG_LOWERING_NONE);
  }
  CHECK_EQ(olg_registry_min_opset(r, "", "Mod", 1), 10);
  CHECK_EQ(olg_registry_min_opset(r, "", "Mod", 0), 7);
  /* a later row stacks on an ended one */
  CHECK_OK(olg_registry_add(r, "", "Mod", 13, sym_a, NULL));
  CHECK_OK(olg__registry_dispatch(r, "", "Mod", 12, &fn, &ud, &kind));
  CHECK(fn == sym_fallback);
  CHECK_OK(olg__registry_dispatch(r, "", "Mod", 13, &fn, &ud, &kind));
  CHECK(fn == sym_a);
  olg_registry_free(r);
}

/* The rows of the built-in tables: an ended row (OLG_UNTIL) ends at a version of its op in the
 * schema (its native opset), and no row is a pass-through row except an op's first. */
TEST(builtin_rows_ranges_and_no_passthrough_rows) {
  int n_until = 0;
  for (const olg_opset_table *t = olg__opset_tables; t->regs; t++) {
    for (const olg_symbolic_reg *e = t->regs; e->op; e++) {
      int until = OLG_ROW_UNTIL(e->lowering);
      if (until) {
        n_until++;
        CHECK(*e->domain == '\0');
        CHECK(until > t->opset);
        const olg_schema *s = olg_schema_find("", e->op, until);
        if (!s || s->since_version != until || s->deprecated)
          fprintf(stderr, "  %s (row at %d) ends at %d, not a version of the op\n", e->op,
                  t->opset, until);
        CHECK(s && s->since_version == until && !s->deprecated);
      }
      if (e->fn == olg__sym_onnx_passthrough) /* the fallback's job, never a row's */
        fprintf(stderr, "  pass-through row %s at %d\n", e->op, t->opset);
      CHECK(e->fn != olg__sym_onnx_passthrough);
    }
  }
  CHECK(n_until >= 30);
}

/* The table against the schema: each entry's op has both versions, consecutive, the table is
 * sorted, and every (source version, target opset) pair of every op of the default domain is
 * crossed exactly when an entry lies between them. */
TEST(meaning_changes_walk_the_schema) {
  size_t n;
  const olg_meaning_change *mc = olg_meaning_changes(&n);
  CHECK(n >= 1);
  bool groupnorm = false;
  for (size_t i = 0; i < n; i++) {
    const olg_meaning_change *e = &mc[i];
    if (i) CHECK(strcmp(mc[i - 1].op, e->op) < 0 ||
                 (strcmp(mc[i - 1].op, e->op) == 0 && mc[i - 1].after < e->after));
    CHECK(e->what && strstr(e->what, e->op));
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", e->op, &nv);
    CHECK(vs != NULL);
    bool found = false;
    for (size_t k = 0; vs && k + 1 < nv; k++)
      if (vs[k].since_version == e->before && vs[k + 1].since_version == e->after) found = true;
    if (!found) fprintf(stderr, "  %s %d -> %d: not consecutive versions\n", e->op, e->before, e->after);
    CHECK(found);
    if (strcmp(e->op, "GroupNormalization") == 0) groupnorm = e->before == 18 && e->after == 21;
  }
  CHECK(groupnorm);
  size_t walked = 0;
  for (size_t i = 0; i < olg_schema_count(); i++) {
    const olg_schema *s = olg_schema_at(i);
    if (*s->domain) continue;
    for (int t = 1; t <= OLG_LOWER_OPSET_MAX; t++) {
      const olg_meaning_change *want = NULL;
      for (size_t k = 0; k < n && !want; k++)
        if (strcmp(mc[k].op, s->name) == 0 &&
            (s->since_version < mc[k].after) != (t < mc[k].after))
          want = &mc[k];
      CHECK(olg_meaning_crossed(s->name, s->since_version, t) == want);
      walked++;
    }
    CHECK(olg_meaning_crossed(s->name, s->since_version, s->since_version) == NULL);
  }
  CHECK(walked > 1000);
}

/* Where the built-in registry hands a listed op to the pass-through at a target, the
 * pass-through sees the change from a node written on the other side (and refuses it, as
 * tests/py/test_groupnorm_versions.py checks by conversion); the ops with rows convert it. */
TEST(passthrough_never_crosses_a_listed_change) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  size_t n;
  const olg_meaning_change *mc = olg_meaning_changes(&n);
  for (size_t i = 0; i < n; i++) {
    for (int t = OLG_LOWER_OPSET_MIN; t <= OLG_LOWER_OPSET_MAX; t++) {
      olg_symbolic_fn fn;
      void *ud;
      int kind;
      if (olg__registry_dispatch(r, "", mc[i].op, t, &fn, &ud, &kind) ||
          fn != olg__sym_onnx_passthrough)
        continue;
      int other = t >= mc[i].after ? mc[i].before : mc[i].after;
      CHECK(olg_meaning_crossed(mc[i].op, other, t) == &mc[i]);
    }
  }
  /* GroupNormalization has its symbolic at every opset (decomposed below 21, native from 21;
     never the pass-through, which would cross the 18 -> 21 change) */
  for (int t = OLG_LOWER_OPSET_MIN; t <= OLG_LOWER_OPSET_MAX; t++) {
    olg_symbolic_fn fn;
    void *ud;
    int kind;
    CHECK_OK(olg__registry_dispatch(r, "", "GroupNormalization", t, &fn, &ud, &kind));
    CHECK(fn == olg__sym_onnx_group_norm);
    CHECK(kind == (t < 21 ? OLG_LOWERING_DECOMPOSED : OLG_LOWERING_NATIVE));
  }
  olg_registry_free(r);
}
