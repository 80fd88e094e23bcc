/* onnxlegal — walks over a target graph shared by the driver and the cleanup: subgraph
 * references by name, and a topological order that counts them as edges. */
#include <string.h>

#include "lower.h"
#include "passes/passes.h"

bool olg__has_subgraph(const olg_node *nd) {
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (nd->attrs[i].type == OLG_ATTR_GRAPH || nd->attrs[i].type == OLG_ATTR_GRAPHS) return true;
  return false;
}


/* ---- the names a subgraph reads by name, at any depth, memoized per graph ----
 *
 * The walks below ask, for a node of graph g with subgraphs, which names those subgraphs read
 * from outside themselves. Walking every nested node for every enclosing graph was quadratic in
 * the nesting depth; instead each graph's set (its own reads by name and its subgraphs' sets,
 * without duplicates) is computed once per olg_legalize and reused by every enclosing level, so
 * the walks cost the size of a set. A graph is summarized only once it is final: source graphs
 * are not changed by the lowering, and a target subgraph is walked only after it was lowered,
 * cleaned and attached. The computation is an explicit post-order over the graphs (no recursion,
 * so no depth limit is needed: deeper nests are refused by the lowering). */

struct olg_reads_entry {
  const olg_graph *g;
  bool all;           /* every node's reads, or only those of OLG_NODE_DONE nodes */
  bool done;          /* false while its subgraphs are being summarized (a cycle reads nothing) */
  const char **names; /* the set */
  uint32_t n;
};

struct olg_reads_memo {
  const olg_allocator *al;
  struct olg_reads_entry *e; /* open addressing by (graph, all); cap a power of two */
  uint32_t cap, n;
  /* scratch: a set of names (open addressing, cleared through its list) */
  const char **set;
  uint32_t set_cap;
  const char **list;
  uint32_t n_list, cap_list;
  struct frame { const olg_graph *g; uint32_t i, j; size_t k; } *stack;
  uint32_t cap_stack;
};

olg_status olg__reads_memo_new(const olg_allocator *al, olg_reads_memo **out) {
  *out = olg__calloc(al, 1, sizeof **out);
  if (!*out) return OLG_ERR_NOMEM;
  (*out)->al = al;
  return OLG_OK;
}

void olg__reads_memo_free(olg_reads_memo *m) {
  if (!m) return;
  const olg_allocator *al = m->al;
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->e[i].g) olg__free(al, m->e[i].names, (m->e[i].n ? m->e[i].n : 1) * sizeof(char *));
  olg__free(al, m->e, (size_t)m->cap * sizeof *m->e);
  olg__free(al, m->set, (size_t)m->set_cap * sizeof *m->set);
  olg__free(al, m->list, (size_t)m->cap_list * sizeof *m->list);
  olg__free(al, m->stack, (size_t)m->cap_stack * sizeof *m->stack);
  olg__free(al, m, sizeof *m);
}

/* Every bit of the pointer mixed into every bit of the hash (murmur3's finalizer): a product's
 * middle bits, as this was, spread graphs laid out at some strides badly, and the probe count of
 * tests/unit/test_depth.c then followed the heap layout; `all` no longer puts the two entries of
 * a graph in neighbouring slots either. */
static uint32_t hash_ptr(const void *p, bool all) {
  uint64_t x = (uint64_t)(uintptr_t)p ^ (all ? 0x9E3779B97F4A7C15ull : 0);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static uint32_t hash_name(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static struct olg_reads_entry *memo_find(olg_reads_memo *m, const olg_graph *g, bool all) {
  if (!m->cap) return NULL;
  for (uint32_t i = hash_ptr(g, all) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    olg__count_probe();
    if (!m->e[i].g) return NULL;
    if (m->e[i].g == g && m->e[i].all == all) return &m->e[i];
  }
}

static olg_status memo_add(olg_reads_memo *m, const olg_graph *g, bool all,
                           struct olg_reads_entry **out) {
  if ((m->n + 1) * 2 > m->cap) {
    uint32_t nc = m->cap ? m->cap * 2 : 16;
    struct olg_reads_entry *e = olg__calloc(m->al, nc, sizeof *e);
    if (!e) return OLG_ERR_NOMEM;
    for (uint32_t j = 0; j < m->cap; j++) {
      if (!m->e[j].g) continue;
      uint32_t i = hash_ptr(m->e[j].g, m->e[j].all) & (nc - 1);
      while (e[i].g) i = (i + 1) & (nc - 1);
      e[i] = m->e[j];
    }
    olg__free(m->al, m->e, (size_t)m->cap * sizeof *m->e);
    m->e = e;
    m->cap = nc;
  }
  uint32_t i = hash_ptr(g, all) & (m->cap - 1);
  while (m->e[i].g) i = (i + 1) & (m->cap - 1);
  m->e[i] = (struct olg_reads_entry){g, all, false, NULL, 0};
  m->n++;
  *out = &m->e[i];
  return OLG_OK;
}

/* Adds name to the scratch set (and its list) unless it is there. */
static olg_status set_add(olg_reads_memo *m, const char *name) {
  if ((m->n_list + 1) * 2 > m->set_cap) {
    uint32_t nc = m->set_cap ? m->set_cap * 2 : 64;
    const char **set = olg__calloc(m->al, nc, sizeof *set);
    if (!set) return OLG_ERR_NOMEM;
    for (uint32_t j = 0; j < m->n_list; j++) {
      uint32_t i = hash_name(m->list[j]) & (nc - 1);
      while (set[i]) i = (i + 1) & (nc - 1);
      set[i] = m->list[j];
    }
    olg__free(m->al, m->set, (size_t)m->set_cap * sizeof *m->set);
    m->set = set;
    m->set_cap = nc;
  }
  uint32_t i = hash_name(name) & (m->set_cap - 1);
  for (; m->set[i]; i = (i + 1) & (m->set_cap - 1)) {
    olg__count_probe();
    if (m->set[i] == name || strcmp(m->set[i], name) == 0) return OLG_OK;
  }
  if (m->n_list == m->cap_list) {
    uint32_t nc = m->cap_list ? m->cap_list * 2 : 64;
    const char **l = olg__realloc(m->al, m->list, (size_t)m->cap_list * sizeof *l, (size_t)nc * sizeof *l);
    if (!l) return OLG_ERR_NOMEM;
    m->list = l;
    m->cap_list = nc;
  }
  m->set[i] = name;
  m->list[m->n_list++] = name;
  return OLG_OK;
}

/* The summary of f->g from its own reads and its subgraphs' (all summarized): the set, moved
 * out of the scratch into the entry, and the scratch emptied. */
static olg_status summarize(olg_reads_memo *m, const olg_graph *g, bool all) {
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (!all && nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      size_t cnt = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->n : 0;
      for (size_t k = 0; k < cnt; k++) {
        olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals[k];
        if (v >= 0 && olg__reads_by_name(&g->values[v])) OLG_TRY(set_add(m, g->values[v].name));
      }
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      size_t cnt = a->type == OLG_ATTR_GRAPH ? 1 : a->type == OLG_ATTR_GRAPHS ? a->n : 0;
      for (size_t k = 0; k < cnt; k++) {
        const olg_graph *sub = a->type == OLG_ATTR_GRAPH ? a->g : a->graphs[k];
        const struct olg_reads_entry *se = sub ? memo_find(m, sub, all) : NULL;
        for (uint32_t q = 0; se && q < se->n; q++) OLG_TRY(set_add(m, se->names[q]));
      }
    }
  }
  const char **names = olg__malloc(m->al, (m->n_list ? m->n_list : 1) * sizeof *names);
  if (!names) return OLG_ERR_NOMEM;
  for (uint32_t q = 0; q < m->n_list; q++) {
    names[q] = m->list[q];
    uint32_t i = hash_name(m->list[q]) & (m->set_cap - 1);
    while (m->set[i] != m->list[q]) i = (i + 1) & (m->set_cap - 1);
    m->set[i] = NULL; /* every slot in use is a list entry: emptied one by one (a probe for a
                         later entry steps over the emptied ones, it is there) */
  }
  struct olg_reads_entry *e = memo_find(m, g, all);
  e->names = names;
  e->n = m->n_list;
  e->done = true;
  m->n_list = 0;
  return OLG_OK;
}

/* The names graph `root` reads by name at any depth (its own nodes' and its subgraphs'),
 * deduplicated; all: of every node, else only of OLG_NODE_DONE nodes. */
static olg_status reads_of(olg_reads_memo *m, const olg_graph *root, bool all,
                           const struct olg_reads_entry **out) {
  struct olg_reads_entry *e = memo_find(m, root, all);
  if (!e) {
    OLG_TRY(memo_add(m, root, all, &e));
    uint32_t sp = 0;
    if (!m->cap_stack) {
      m->stack = olg__malloc(m->al, 16 * sizeof *m->stack);
      if (!m->stack) return OLG_ERR_NOMEM;
      m->cap_stack = 16;
    }
    m->stack[sp++] = (struct frame){root, 0, 0, 0};
    while (sp) {
      struct frame *f = &m->stack[sp - 1];
      const olg_graph *child = NULL;
      for (; f->i < f->g->n_nodes && !child; f->i++, f->j = 0) {
        const olg_node *nd = &f->g->nodes[f->i];
        if (!all && nd->state != OLG_NODE_DONE) continue;
        for (; f->j < nd->n_attrs && !child; f->j++, f->k = 0) {
          const olg_attr *a = &nd->attrs[f->j];
          size_t cnt = a->type == OLG_ATTR_GRAPH ? 1 : a->type == OLG_ATTR_GRAPHS ? a->n : 0;
          for (; f->k < cnt && !child; f->k++) {
            const olg_graph *sub = a->type == OLG_ATTR_GRAPH ? a->g : a->graphs[f->k];
            if (sub && !memo_find(m, sub, all)) child = sub;
          }
          if (child) break; /* resume at this attribute (k already past the child) */
        }
        if (child) break;
      }
      if (!child) {
        OLG_TRY(summarize(m, f->g, all));
        sp--;
        continue;
      }
      struct olg_reads_entry *ce;
      OLG_TRY(memo_add(m, child, all, &ce));
      if (sp == m->cap_stack) {
        struct frame *st = olg__realloc(m->al, m->stack, (size_t)m->cap_stack * sizeof *st,
                                        (size_t)m->cap_stack * 2 * sizeof *st);
        if (!st) return OLG_ERR_NOMEM;
        m->stack = st;
        m->cap_stack *= 2;
      }
      m->stack[sp++] = (struct frame){child, 0, 0, 0};
    }
    e = memo_find(m, root, all);
  }
  *out = e;
  return OLG_OK;
}

/* Marks the names a subgraph reads from enclosing graphs as live in g. */
olg_status olg__mark_subgraph_refs(olg_reads_memo *m, olg_graph *g, const olg_graph *sub,
                                   uint8_t *live_val) {
  if (!sub) return OLG_OK;
  const struct olg_reads_entry *e;
  OLG_TRY(reads_of(m, sub, true, &e));
  for (uint32_t q = 0; q < e->n; q++) {
    olg_value ov = olg__graph_lookup(g, e->names[q]);
    if (ov >= 0) live_val[ov] = 1;
  }
  return OLG_OK;
}

/* For each name sub reads by name (of OLG_NODE_DONE nodes, at any depth): fn(ud, name). */
olg_status olg__subgraph_reads(olg_reads_memo *m, const olg_graph *sub,
                               void (*fn)(void *, const char *), void *ud) {
  if (!sub) return OLG_OK;
  const struct olg_reads_entry *e;
  OLG_TRY(reads_of(m, sub, false, &e));
  for (uint32_t q = 0; q < e->n; q++) fn(ud, e->names[q]);
  return OLG_OK;
}

bool olg__reads_by_name(const olg_value_rec *r) {
  return r->producer < 0 && !(r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER));
}

struct topo {
  const olg_graph *g;
  const olg_allocator *al;
  uint32_t *indeg, *off;
  int32_t *adj;
  /* the live producers of every live node, node after node: the first n in the caller's order
   * array (unused until Kahn's queue fills it), the others in `in` */
  int32_t *first, *in;
  uint32_t n, n_in, cap_in;
  olg_status s;
  int32_t cur;
  size_t n_adj;
};

/* One walk over the nodes collects the edges (the walk reads scattered value records: a second
 * one to fill the adjacency cost as much again on a large graph); the adjacency is then built
 * from the collected list, in the same order as a second walk would. */
static inline void topo_collect(struct topo *t, int32_t p) {
  if (t->s || t->g->nodes[p].state != OLG_NODE_DONE) return;
  if (t->n_in < t->n) {
    t->first[t->n_in] = p;
  } else {
    uint32_t k = t->n_in - t->n;
    if (k == t->cap_in &&
        (t->s = olg__grow(t->al, (void **)&t->in, &t->cap_in, (size_t)k + 1, sizeof *t->in)))
      return;
    t->in[k] = p;
  }
  t->n_in++;
  t->indeg[t->cur]++;
  t->off[p + 1]++;
}

/* The producers a node's subgraphs depend on: those of the values they read by name from this
 * graph (implicit inputs, which the graph's own topological order does not see). topo_collect
 * for each, duplicates possible. */
static olg_status subgraph_producers(olg_reads_memo *m, const olg_graph *g, const olg_node *nd,
                                     struct topo *t) {
  for (uint32_t j = 0; j < nd->n_attrs; j++) {
    const olg_attr *a = &nd->attrs[j];
    size_t cnt = a->type == OLG_ATTR_GRAPH ? 1 : a->type == OLG_ATTR_GRAPHS ? a->n : 0;
    for (size_t k = 0; k < cnt; k++) {
      const olg_graph *sub = a->type == OLG_ATTR_GRAPH ? a->g : a->graphs[k];
      if (!sub) continue;
      const struct olg_reads_entry *e;
      OLG_TRY(reads_of(m, sub, false, &e));
      for (uint32_t q = 0; q < e->n; q++) {
        olg_value ov = olg__graph_lookup(g, e->names[q]);
        if (ov >= 0 && g->values[ov].producer >= 0) topo_collect(t, g->values[ov].producer);
      }
    }
  }
  return OLG_OK;
}

/* A topological order of g that counts subgraph reads as edges (Kahn, linear in nodes plus
 * edges); order[k] = -1 past the last live node. */
olg_status olg__graph_order(const olg_graph *g, const olg_allocator *al, olg_reads_memo *m,
                            olg_node_id *order, olg_node_id *fault) {
  uint32_t n = g->n_nodes;
  if (!n) return OLG_OK;
  struct topo t = {g, al, olg__calloc(al, n, sizeof(uint32_t)), olg__calloc(al, (size_t)n + 1, sizeof(uint32_t)),
                   NULL, order, NULL, n, 0, 0, OLG_OK, 0, 0};
  olg_status s = OLG_OK;
  if (!t.indeg || !t.off) { s = OLG_ERR_NOMEM; goto done; }
  /* the edges from the value arguments, collected with the counts in locals (the struct's
     fields, which every store to the arrays may alias, were reloaded edge after edge); the
     struct takes over for an edge past the first n and for a node's subgraphs. A node not
     live gets indeg UINT32_MAX: no edge reaches it, and the queue's start skips it. */
  const olg_node *nodes = g->nodes;
  const olg_value_rec *vals = g->values;
  uint32_t *indeg = t.indeg, *off = t.off, n_in = 0, live = 0;
  for (uint32_t i = 0; i < n; i++) {
    const olg_node *nd = &nodes[i];
    if (nd->state != OLG_NODE_DONE) { indeg[i] = UINT32_MAX; continue; }
    live++;
    for (uint32_t j = 0; j < nd->n_args; j++) { /* (args may be NULL: no pointer past it) */
      const olg_arg *a = &nd->args[j];
      const olg_value *vs;
      size_t cnt;
      if (a->kind == OLG_ARG_VALUE) vs = &a->u.v, cnt = 1;
      else if (a->kind == OLG_ARG_VALUES) vs = a->u.vals, cnt = a->n;
      else continue;
      for (size_t k = 0; k < cnt; k++) {
        olg_value v = vs[k];
        int32_t p;
        if (v < 0 || (p = vals[v].producer) < 0 || nodes[p].state != OLG_NODE_DONE) continue;
        if (n_in < n) {
          order[n_in++] = p;
          indeg[i]++;
          off[p + 1]++;
        } else { /* as topo_collect, from the struct */
          t.n_in = n_in, t.cur = (int32_t)i;
          topo_collect(&t, p);
          if ((s = t.s)) goto done;
          n_in = t.n_in;
        }
      }
    }
    if (nd->n_attrs) {
      t.n_in = n_in, t.cur = (int32_t)i;
      if ((s = subgraph_producers(m, g, nd, &t)) || (s = t.s)) goto done;
      n_in = t.n_in;
    }
  }
  t.n_in = n_in;
  t.n_adj = t.n_in ? t.n_in : 1;
  t.adj = olg__malloc(al, t.n_adj * sizeof *t.adj);
  if (!t.adj) { s = OLG_ERR_NOMEM; goto done; }
  for (uint32_t i = 0; i < n; i++) off[i + 1] += off[i];
  {
    int32_t *adj = t.adj;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) { /* node i's producers are the next indeg[i] entries */
      if (indeg[i] == UINT32_MAX) continue;
      for (uint32_t c = 0; c < indeg[i]; c++, k++) {
        int32_t p = k < n ? order[k] : t.in[k - n];
        adj[off[p]++] = (int32_t)i;
      }
    }
  }
  olg__free(al, t.in, (size_t)t.cap_in * sizeof *t.in);
  t.in = NULL, t.cap_in = 0;
  uint32_t head = 0, tail = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!indeg[i]) order[tail++] = (olg_node_id)i;
  while (head < tail) {
    olg_node_id p = order[head++];
    uint32_t b = p ? off[p - 1] : 0, e = off[p];
    for (uint32_t k = b; k < e; k++)
      if (--indeg[t.adj[k]] == 0) order[tail++] = t.adj[k];
  }
  if (tail < live)
    for (uint32_t i = 0; i < n && !s; i++)
      if (g->nodes[i].state == OLG_NODE_DONE && indeg[i]) {
        s = olg__err(OLG_ERR_INVALID_MODEL, "graph '%s' has a cycle through node '%s' (%s)",
                     g->name, g->nodes[i].name, g->nodes[i].op);
        if (fault) *fault = (olg_node_id)i;
      }
  for (uint32_t i = tail; i < n; i++) order[i] = -1;
done:
  olg__free(al, t.indeg, (size_t)n * sizeof(uint32_t));
  olg__free(al, t.off, ((size_t)n + 1) * sizeof(uint32_t));
  olg__free(al, t.adj, t.n_adj * sizeof *t.adj);
  olg__free(al, t.in, (size_t)t.cap_in * sizeof *t.in);
  return s;
}

/* ---- tensors by contents (the merges of equal Constants and initializers) ---- */

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

uint64_t olg__tensor_hash(const olg_tensor *t) {
  uint64_t h = hash_bytes(1469598103934665603ull, &t->dtype, sizeof t->dtype);
  h = hash_bytes(h, t->dims, (size_t)t->rank * sizeof *t->dims);
  return hash_bytes(h, t->data, t->nbytes);
}

bool olg__tensor_same(const olg_tensor *a, const olg_tensor *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes) return false;
  if (a->rank && memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims)) return false;
  return a->nbytes == 0 || (a->data && b->data && memcmp(a->data, b->data, a->nbytes) == 0);
}
