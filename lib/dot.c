/* onnxlegal — the main graph as a Graphviz digraph, streamed.
 *
 * Nodes are boxes labelled with the op (domain-qualified) and the node's name; graph inputs and
 * graph outputs are nodes of their own shapes and colours; every edge carries the name of the
 * value it stands for and, when known, its type. Initializers (weights) are folded into the
 * nodes that use them: listed in the box with their types, no box or edge of their own, so that
 * a network's picture shows its ops (one stays a box when it is also a graph input or output). Every id and label is quoted
 * and escaped, and bytes that are not UTF-8 are replaced, so that `dot` accepts any model. */
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

OLG_API olg_status olg_model_print_dot(const olg_model *m, olg_write_fn fn, void *ud) {
  if (!m || !fn) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_print_dot: model and callback are required");
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
    olg__out_fmt(o, "  n%u [shape=box, style=\"rounded,filled\", fillcolor=\"#fff2cc\", label=\"", i);
    if (nd->domain && *nd->domain) {
      put_esc(o, nd->domain);
      olg__out_char(o, '.');
    }
    put_esc(o, nd->op);
    if (nd->name && *nd->name) {
      olg__out_str(o, "\\n");
      put_esc(o, nd->name);
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
        for (size_t k = 0; k < arg->u.vals.n; k++) {
          olg_value v = arg->u.vals.p[k];
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
  olg__out_str(o, "}\n");
  olg__free(&m->alloc, seen, (size_t)g->n_values / 8 + 1);
  return olg__out_finish(o);
}
