/* onnxlegal — olg_legalize_consume: a lowering that owns its source gives back the parts it is
 * done with as it goes, so that converting a large model does not hold two whole graphs (a
 * million-node chain: the source's name map and node records, about a quarter of the peak).
 *
 * Only where nothing outside the library can read the source (no caller symbolic, no caller
 * profile: olg_lower_source would show them a half-released graph), only the main graph, only
 * one without subgraphs (their lowering looks names up in the enclosing source), and only while
 * every node lowers (a failure's diagnostics read the source). The output is olg_legalize's. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lower.h"
#include "passes/passes.h"

/* Released in steps of this many node records (a madvise call each, about a MiB). */
enum { RELEASE_STEP = 16384 };

/* The pages of base[from, to) back to the system, their contents lost: the caller is done with
 * them and frees the block later. Pages are whole: from the page where the release before ended
 * (from 0: the block's first whole page, so the allocator's bookkeeping before the block is
 * untouched) to the last page wholly before `to`. Advisory: where unsupported nothing happens. */
static void release_prefix(void *base, size_t from, size_t to) {
#ifdef MADV_DONTNEED
  long pg = sysconf(_SC_PAGESIZE);
  if (pg <= 0) return;
  uintptr_t m = (uintptr_t)pg - 1, p = (uintptr_t)base;
  uintptr_t a = from ? (p + from) & ~m : (p + m) & ~m, b = (p + to) & ~m;
  if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
#else
  (void)base, (void)from, (void)to;
#endif
}

void olg__consume_begin(olg_lower *cx) {
  olg_graph *g = cx->src_release;
  if (!g || cx->parent) { /* a subgraph's context copies its parent's: the main graph only */
    cx->src_release = NULL;
    return;
  }
  for (uint32_t i = 0; i < g->n_nodes; i++)
    if (olg__has_subgraph(&g->nodes[i])) {
      cx->src_release = NULL;
      return;
    }
  olg__graph_drop_names(g);
  cx->src_released = 0;
}

void olg__consume_node(olg_lower *cx, olg_node_id id, bool lowered) {
  olg_graph *g = cx->src_release;
  if (!g) return;
  if (!lowered) { /* its diagnostics, and the outputs' binding, read the source from here on */
    cx->src_release = NULL;
    return;
  }
  /* nodes go back as a prefix of the array: a graph not in array order keeps them to the end */
  if (cx->src_released == UINT32_MAX || (uint32_t)id != cx->src_released) {
    cx->src_released = UINT32_MAX;
    return;
  }
  uint32_t done = ++cx->src_released;
  if (done % RELEASE_STEP == 0)
    release_prefix(g->nodes, (size_t)(done - RELEASE_STEP) * sizeof *g->nodes,
                   (size_t)done * sizeof *g->nodes);
}

void olg__consume_end(olg_lower *cx) {
  olg_graph *g = cx->src_release;
  if (!g) return;
  const olg_allocator *a = &g->model->alloc;
  olg__free(a, g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes);
  olg__free(a, g->values, (size_t)g->cap_values * sizeof *g->values);
  g->nodes = NULL, g->n_nodes = 0, g->cap_nodes = 0;
  g->values = NULL, g->n_values = 0, g->cap_values = 0;
  cx->src_release = NULL;
}

OLG_API olg_status olg_legalize_consume(olg_model *src, const olg_registry *r,
                                        const olg_legalize_options *opts, olg_model **out,
                                        olg_diags *diags) {
  olg_status s = olg__legalize(src, src, r, opts, out, diags);
  if (s) {
    olg_model_free(src);
    return s;
  }
  olg_model **end = &(*out)->keep; /* what the result borrows (tensors, strings) lives with it */
  while (*end) end = &(*end)->keep;
  *end = src;
  return OLG_OK;
}
