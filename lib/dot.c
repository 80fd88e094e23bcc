/* onnxlegal — the main graph as a Graphviz digraph, streamed.
 *
 * Nodes are boxes labelled with the op (domain-qualified) and the node's name; graph inputs and
 * graph outputs are nodes of their own shapes and colours; every edge carries the name of the
 * value it stands for and, when known, its type. Initializers (weights) are folded into the
 * nodes that use them: listed in the box with their types, no box or edge of their own, so that
 * a network's picture shows its ops (one stays a box when it is also a graph input or output). Every id and label is quoted
 * and escaped, and bytes that are not UTF-8 are replaced, so that `dot` accepts any model.
 *
 * The diff (olg_model_print_dot_diff) draws the converted graph with each node coloured by how
 * it relates to the graph it was converted from. A conversion keeps the name of a node it copies
 * ("x"; "x#2" when names repeat) and names what it emits for a node after it ("x/ReduceMean",
 * "x/Sub_2"), so a node is matched by its name, less a trailing "#N", less its last "/segment"
 * (an unnamed node by its first output's name): kept (same name, same op), rewritten (emitted
 * for a source node, or copied from one of another op), added (no source node); source nodes
 * that nothing was emitted for are drawn apart as removed. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "printer.h"

/* Writes s as the inside of a DOT quoted string: quotes and backslashes escaped, newlines as
 * \n, other control bytes and invalid UTF-8 replaced (dot rejects or mangles them). */
static void put_escaped(olg_out *o, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    if (c == '"' || c == '\\') {
      olg__out_char(o, '\\');
      olg__out_char(o, (char)c);
      i++;
    } else if (c == '\n') {
      olg__out_str(o, "\\n");
      i++;
    } else if (c < 0x20 || c == 0x7f) {
      olg__out_char(o, ' ');
      i++;
    } else if (c < 0x80) {
      olg__out_char(o, (char)c);
      i++;
    } else {
      /* a well-formed UTF-8 sequence passes whole; anything else becomes '?' */
      size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
      if (c >= 0xf5) len = 0;
      bool ok = len && i + len <= n;
      for (size_t k = 1; ok && k < len; k++) ok = (p[i + k] & 0xc0) == 0x80;
      if (ok && len == 3) {
        unsigned cp = ((c & 0x0f) << 12) | ((p[i + 1] & 0x3fu) << 6) | (p[i + 2] & 0x3fu);
        ok = cp >= 0x800 && !(cp >= 0xd800 && cp <= 0xdfff);
      } else if (ok && len == 4) {
        unsigned cp = ((c & 0x07) << 18) | ((p[i + 1] & 0x3fu) << 12) | ((p[i + 2] & 0x3fu) << 6) |
                      (p[i + 3] & 0x3fu);
        ok = cp >= 0x10000 && cp <= 0x10ffff;
      }
      if (ok) {
        olg__out_bytes(o, p + i, len);
        i += len;
      } else {
        olg__out_char(o, '?');
        i++;
      }
    }
  }
}

static void put_esc(olg_out *o, const char *s) {
  if (s) put_escaped(o, s, strlen(s));
}

/* "name\ntype" (type left out when unknown). */
static void put_value_label(olg_out *o, const olg_value_rec *r) {
  put_esc(o, r->name);
  if (r->type.kind == OLG_TYPE_NONE) return;
  char tb[160];
  if (olg__type_str(tb, sizeof tb, &r->type)) {
    olg__out_str(o, "\\n");
    put_esc(o, tb);
  }
}

/* An initializer drawn inside its consumers rather than as a box of its own. */
static bool folded(const olg_value_rec *r) {
  return r->init >= 0 && !(r->flags & (OLG_VF_INPUT | OLG_VF_OUTPUT)) &&
         !(r->producer >= 0);
}

/* The id of the DOT node an edge for value v starts at. */
static void put_source_id(olg_out *o, const olg_graph *g, olg_value v) {
  const olg_value_rec *r = &g->values[v];
  if (r->producer >= 0 && g->nodes[r->producer].state == OLG_NODE_DONE)
    olg__out_fmt(o, "n%d", (int)r->producer);
  else if (r->flags & OLG_VF_INPUT) olg__out_fmt(o, "in%d", (int)v);
  else if (r->init >= 0) olg__out_fmt(o, "init%d", (int)v);
  else olg__out_fmt(o, "v%d", (int)v);
}

static bool has_source_node(const olg_graph *g, const olg_value_rec *r) {
  return (r->producer >= 0 && g->nodes[r->producer].state == OLG_NODE_DONE) ||
         (r->flags & OLG_VF_INPUT) || r->init >= 0;
}

static void put_edge(olg_out *o, const olg_graph *g, olg_value v, const char *to_prefix, int to) {
  if (folded(&g->values[v])) return; /* listed in the consumer's box */
  olg__out_str(o, "  ");
  put_source_id(o, g, v);
  olg__out_fmt(o, " -> %s%d [label=\"", to_prefix, to);
  put_value_label(o, &g->values[v]);
  olg__out_str(o, "\"];\n");
}

/* A value used without a producer, input or initializer (a dangling or outer name) gets a
 * small node of its own, once. */
static void put_free_value(olg_out *o, const olg_graph *g, olg_value v, uint8_t *seen) {
  const olg_value_rec *r = &g->values[v];
  if (has_source_node(g, r) || (seen[v / 8] & (1u << (v % 8)))) return;
  seen[v / 8] |= (uint8_t)(1u << (v % 8));
  olg__out_fmt(o, "  v%d [shape=plaintext, fontcolor=\"#a00000\", label=\"", (int)v);
  put_esc(o, r->name);
  olg__out_str(o, "\"];\n");
}


/* ---- the diff: matching the nodes of `after` to those of `before` -------------------------- */

enum { DIFF_KEPT = 1, DIFF_REWRITTEN, DIFF_ADDED };

/* A node's key: its name (kind 0) or, when it has none, its first output's name (kind 1). */
typedef struct diff_key {
  int kind;
  const char *s;
  size_t len;
  uint32_t node; /* index in before's nodes */
} diff_key;

static bool node_key(const olg_graph *g, const olg_node *nd, diff_key *k) {
  if (nd->name && *nd->name) {
    k->kind = 0;
    k->s = nd->name;
  } else if (nd->n_outputs && nd->outputs[0] != OLG_NO_VALUE && g->values[nd->outputs[0]].name) {
    k->kind = 1;
    k->s = g->values[nd->outputs[0]].name;
  } else {
    return false;
  }
  k->len = strlen(k->s);
  return true;
}

static int key_cmp(const void *pa, const void *pb) {
  const diff_key *a = pa, *b = pb;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  size_t n = a->len < b->len ? a->len : b->len;
  int c = memcmp(a->s, b->s, n);
  if (c) return c;
  return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

/* The length of name without a trailing "#N", which keeps repeated node names unique. */
static size_t base_len(const char *s, size_t len) {
  size_t i = len;
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
  return i > 0 && i < len && s[i - 1] == '#' ? i - 1 : len;
}

/* The length of name without its last "/segment": the source node's name of an emitted
 * "<source>/<Op>" or "<source>/<Op>_<k>" (0 when there is no '/'). */
static size_t parent_len(const char *s, size_t len) {
  size_t i = len;
  while (i > 0 && s[i - 1] != '/') i--;
  return i > 1 ? i - 1 : 0;
}

/* Marks every node of before under the key at hit (several nodes may share a name). */
static void mark_matched(const diff_key *keys, size_t nk, const diff_key *hit, uint8_t *matched) {
  size_t at = (size_t)(hit - keys);
  for (size_t i = at; i < nk && key_cmp(&keys[i], hit) == 0; i++) matched[keys[i].node] = 1;
  for (size_t i = at; i > 0 && key_cmp(&keys[i - 1], hit) == 0; i--) matched[keys[i - 1].node] = 1;
}

static bool same_op(const olg_node *a, const olg_node *b) {
  const char *da = a->domain ? a->domain : "", *db = b->domain ? b->domain : "";
  if (strcmp(da, "ai.onnx") == 0) da = "";
  if (strcmp(db, "ai.onnx") == 0) db = "";
  return strcmp(da, db) == 0 && strcmp(a->op ? a->op : "", b->op ? b->op : "") == 0;
}

typedef struct dot_diff {
  const olg_graph *before;
  uint8_t *status;    /* per node of after: DIFF_* */
  int32_t *source;    /* per node of after: the matched node of before, or -1 */
  uint8_t *matched;   /* per node of before: something was emitted for it */
  uint32_t counts[4]; /* by DIFF_*; [0]: removed */
} dot_diff;

static void diff_free(const olg_allocator *a, dot_diff *d, const olg_graph *after) {
  olg__free(a, d->status, after->n_nodes + 1);
  olg__free(a, d->source, (after->n_nodes + 1) * sizeof *d->source);
  olg__free(a, d->matched, d->before->n_nodes + 1);
}

static olg_status diff_build(const olg_allocator *a, const olg_graph *before,
                             const olg_graph *after, dot_diff *d) {
  memset(d, 0, sizeof *d);
  d->before = before;
  d->status = olg__calloc(a, after->n_nodes + 1, 1);
  d->source = olg__calloc(a, after->n_nodes + 1, sizeof *d->source);
  d->matched = olg__calloc(a, before->n_nodes + 1, 1);
  diff_key *keys = olg__calloc(a, before->n_nodes + 1, sizeof *keys);
  if (!d->status || !d->source || !d->matched || !keys) {
    olg__free(a, keys, (before->n_nodes + 1) * sizeof *keys);
    diff_free(a, d, after);
    return olg__err(OLG_ERR_NOMEM, "olg_model_print_dot_diff: out of memory for %u nodes",
                    before->n_nodes + after->n_nodes);
  }
  size_t nk = 0;
  for (uint32_t i = 0; i < before->n_nodes; i++) {
    const olg_node *nd = &before->nodes[i];
    if (nd->state == OLG_NODE_DONE && node_key(before, nd, &keys[nk])) keys[nk++].node = i;
  }
  /* sorted once, looked up by binary search: n log n for graphs of any size */
  qsort(keys, nk, sizeof *keys, key_cmp);
  for (uint32_t i = 0; i < after->n_nodes; i++) {
    const olg_node *nd = &after->nodes[i];
    d->source[i] = -1;
    if (nd->state != OLG_NODE_DONE) continue;
    diff_key k;
    const diff_key *hit = NULL;
    bool emitted = false; /* matched through "<source>/<Op>": emitted for it, not a copy */
    if (node_key(after, nd, &k)) {
      hit = bsearch(&k, keys, nk, sizeof *keys, key_cmp);
      size_t bl = base_len(k.s, k.len);
      if (!hit && bl < k.len) { /* "x#2": a copy of a second source node named "x" */
        k.len = bl;
        hit = bsearch(&k, keys, nk, sizeof *keys, key_cmp);
      }
      size_t pl = k.kind == 0 ? parent_len(k.s, k.len) : 0;
      if (!hit && pl) { /* "norm/ReduceMean_1": emitted for source node "norm" */
        k.len = pl;
        hit = bsearch(&k, keys, nk, sizeof *keys, key_cmp);
        emitted = hit != NULL;
      }
    }
    if (!hit) {
      d->status[i] = DIFF_ADDED;
    } else {
      d->source[i] = (int32_t)hit->node;
      mark_matched(keys, nk, hit, d->matched);
      d->status[i] = !emitted && same_op(&before->nodes[hit->node], nd) ? DIFF_KEPT : DIFF_REWRITTEN;
    }
    d->counts[d->status[i]]++;
  }
  for (uint32_t i = 0; i < before->n_nodes; i++)
    if (before->nodes[i].state == OLG_NODE_DONE && !d->matched[i]) d->counts[0]++;
  olg__free(a, keys, (before->n_nodes + 1) * sizeof *keys);
  return OLG_OK;
}

static void put_op(olg_out *o, const olg_node *nd) {
  if (nd->domain && *nd->domain) {
    put_esc(o, nd->domain);
    olg__out_char(o, '.');
  }
  put_esc(o, nd->op);
}

/* The nodes of before that nothing was emitted for, in a cluster of their own (no edges: their
 * values may not exist any more). */
static void put_removed(olg_out *o, const dot_diff *d) {
  if (!d->counts[0]) return;
  olg__out_str(o, "  subgraph cluster_removed {\n    label=\"removed\"; style=dashed; color=\"#a00000\";\n");
  for (uint32_t i = 0; i < d->before->n_nodes; i++) {
    const olg_node *nd = &d->before->nodes[i];
    if (nd->state != OLG_NODE_DONE || d->matched[i]) continue;
    olg__out_fmt(o, "    removed%u [shape=box, style=\"rounded,dashed,filled\", fillcolor=\"#f8d7da\", label=\"", i);
    put_op(o, nd);
    if (nd->name && *nd->name) {
      olg__out_str(o, "\\n");
      put_esc(o, nd->name);
    }
    olg__out_str(o, "\"];\n");
  }
  olg__out_str(o, "  }\n");
}

static const char *const diff_fill[] = {"#fff2cc", "#eeeeee", "#ffd8a8", "#c3e6cb"};

static olg_status print_dot(const olg_model *m, const dot_diff *d, olg_write_fn fn, void *ud) {
  const olg_graph *g = m->graph;
  uint8_t *seen = olg__calloc(&m->alloc, (size_t)g->n_values / 8 + 1, 1);
  if (!seen) return olg__err(OLG_ERR_NOMEM, "olg_model_print_dot: out of memory for %u values", g->n_values);
  olg_out out, *o = &out;
  olg__out_init(o, fn, ud, "olg_model_print_dot");

  olg__out_str(o, "digraph \"");
  put_esc(o, g->name);
  olg__out_str(o, "\" {\n"
                  "  graph [rankdir=TB, fontname=\"Helvetica\"];\n"
                  "  node [fontname=\"Helvetica\", fontsize=10];\n"
                  "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n");

  for (uint32_t i = 0; i < g->inputs.n; i++) {
    olg_value v = g->inputs.p[i];
    olg__out_fmt(o, "  in%d [shape=invhouse, style=filled, fillcolor=\"#cfe2ff\", label=\"", (int)v);
    put_value_label(o, &g->values[v]);
    olg__out_str(o, "\"];\n");
  }
  for (uint32_t i = 0; i < g->n_inits; i++) {
    olg_value v = g->inits[i].v;
    if (g->values[v].flags & OLG_VF_INPUT) continue; /* drawn as the input it defaults */
    if (folded(&g->values[v])) continue;             /* drawn inside its consumers */
    olg__out_fmt(o, "  init%d [shape=note, style=filled, fillcolor=\"#eeeeee\", label=\"", (int)v);
    put_value_label(o, &g->values[v]);
    olg__out_str(o, "\"];\n");
  }
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    olg__out_fmt(o, "  n%u [shape=box, style=\"rounded,filled\", fillcolor=\"%s\", label=\"", i,
                 diff_fill[d ? d->status[i] : 0]);
    put_op(o, nd);
    if (nd->name && *nd->name) {
      olg__out_str(o, "\\n");
      put_esc(o, nd->name);
    }
    if (d && d->status[i] == DIFF_REWRITTEN) { /* what it was emitted for */
      olg__out_str(o, "\\n(from ");
      put_op(o, &d->before->nodes[d->source[i]]);
      olg__out_char(o, ')');
    } else if (d && d->status[i] == DIFF_ADDED) {
      olg__out_str(o, "\\n(added)");
    }
    bool first = true;
    for (uint32_t k = 0; k < nd->n_attrs; k++) {
      uint8_t t = nd->attrs[k].type;
      if (t != OLG_ATTR_GRAPH && t != OLG_ATTR_GRAPHS) continue;
      olg__out_str(o, first ? "\\nsubgraphs: " : ", ");
      put_esc(o, nd->attrs[k].name);
      first = false;
    }
    /* the weights it uses, one line each: "name: type" */
    for (uint32_t a = 0; a < nd->n_args; a++) {
      const olg_arg *arg = &nd->args[a];
      if (arg->kind != OLG_ARG_VALUE || arg->u.v < 0 || !folded(&g->values[arg->u.v])) continue;
      const olg_value_rec *r = &g->values[arg->u.v];
      char tb[160];
      olg__out_str(o, "\\n");
      put_esc(o, r->name);
      if (r->type.kind != OLG_TYPE_NONE && olg__type_str(tb, sizeof tb, &r->type)) {
        olg__out_str(o, ": ");
        put_esc(o, tb);
      }
    }
    olg__out_str(o, "\"];\n");
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) {
    olg_value v = g->outputs.p[i];
    olg__out_fmt(o, "  out%d [shape=house, style=filled, fillcolor=\"#d9ead3\", label=\"", (int)v);
    put_value_label(o, &g->values[v]);
    olg__out_str(o, "\"];\n");
  }

  /* edges: every value argument of every node, then every graph output */
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t a = 0; a < nd->n_args; a++) {
      const olg_arg *arg = &nd->args[a];
      if (arg->kind == OLG_ARG_VALUE) {
        put_free_value(o, g, arg->u.v, seen);
        put_edge(o, g, arg->u.v, "n", (int)i);
      } else if (arg->kind == OLG_ARG_VALUES) {
        for (size_t k = 0; k < arg->n; k++) {
          olg_value v = arg->u.vals[k];
          if (v == OLG_NO_VALUE) continue;
          put_free_value(o, g, v, seen);
          put_edge(o, g, v, "n", (int)i);
        }
      }
    }
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) {
    olg_value v = g->outputs.p[i];
    put_free_value(o, g, v, seen);
    put_edge(o, g, v, "out", (int)v);
  }
  if (d) {
    put_removed(o, d);
    olg__out_fmt(o, "  label=\"%u kept, %u rewritten, %u added, %u removed\"; labelloc=b;\n",
                 d->counts[DIFF_KEPT], d->counts[DIFF_REWRITTEN], d->counts[DIFF_ADDED], d->counts[0]);
  }
  olg__out_str(o, "}\n");
  olg__free(&m->alloc, seen, (size_t)g->n_values / 8 + 1);
  return olg__out_finish(o);
}

OLG_API olg_status olg_model_print_dot(const olg_model *m, olg_write_fn fn, void *ud) {
  if (!m || !fn) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_print_dot: model and callback are required");
  return print_dot(m, NULL, fn, ud);
}

OLG_API olg_status olg_model_print_dot_diff(const olg_model *before, const olg_model *after,
                                            olg_write_fn fn, void *ud) {
  if (!before || !after || !fn)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_print_dot_diff: two models and a callback are required");
  dot_diff d;
  olg_status s = diff_build(&after->alloc, before->graph, after->graph, &d);
  if (s) return s;
  s = print_dot(after, &d, fn, ud);
  diff_free(&after->alloc, &d, after->graph);
  return s;
}
