/* onnxlegal — the protobuf reader: GraphProto, ValueInfoProto, NodeProto and AttributeProto
 * into the IR (pb_read.h; TypeProto: pb_read_type.c). */
#include <stdio.h>
#include <string.h>

#include "pb_read.h"

/* ---------------------------------------------------------------------------------------- */
/* Graphs */

enum { VK_NORMAL = 0, VK_FORWARD = 1, VK_SPARSE = 2 };

/* A name a node named lately: its bytes in the input and its value (p NULL: none). */
typedef struct rcache {
  const uint8_t *p;
  uint32_t n;
  olg_value v;
} rcache;
#define RCACHE 32 /* a power of two */
#define AHEAD 8   /* a power of two, above OLG_PBR_PREFETCH_NODES */

typedef struct gstate {
  olg_graph *g;
  uint32_t list_n[3]; /* how many inputs, outputs, value_infos the GraphProto lists */
  uint32_t *vi_at; /* per value: its primary ValueInfoProto, 1 + its index in vis (0: none yet) */
  uint8_t *kind;    /* per value: VK_* */
  uint32_t cap;
  olg_pb_span *vis; /* the primary ValueInfoProtos, in the order read (few values have one) */
  uint32_t n_vis, cap_vis;
  /* the first output name of node k as the lookahead saw it (with its hash), at
   * ahead[k % AHEAD]: k counts the nodes the lookahead passed (n_ahead) and read (n_read) */
  olg_pbr_ahead ahead[AHEAD];
  uint32_t n_ahead, n_read;
  /* names inputs asked for, by their bytes (rc_slot), in front of the name map: most inputs
   * are the previous node's output (last) or one of a few shared names (weights). A name's
   * value in the map does not change while the graph is read (values are added, never renamed
   * or dropped), so an entry stays true. */
  rcache rc[RCACHE];
  /* the name the latest output took: most often the next node's first input (a chain). Outputs
   * go here only: in rc each would evict a shared name (a chain's weights, one node in ten). */
  rcache last;
} gstate;

/* The slot of n > 0 bytes at p: from their first, middle and last sixteen (exported names share
 * long prefixes and suffixes, and the names of a layer differ near their end:
 * "/model/layers.3/attn/MatMul_output_0", "/model/layers.3/attn/Add_1_output_0"). */
static inline uint32_t rc_slot(const uint8_t *p, size_t n) {
  uint64_t x;
  if (n >= 8) {
    uint64_t a, b, c, d;
    memcpy(&a, p, 8);
    memcpy(&b, p + (n - 8) / 2, 8);
    memcpy(&c, p + n - 8, 8);
    memcpy(&d, p + (n >= 16 ? n - 16 : 0), 8);
    x = (a ^ (b * 0x9e3779b97f4a7c15u) ^ (c * 0xc2b2ae3d27d4eb4fu) ^ (d * 0x94d049bb133111ebu)) + n;
  } else if (n >= 4) { /* every byte: "a1234" and "a1934" are near in a graph */
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    x = ((uint64_t)a << 32 | b) + n;
  } else {
    x = n + ((uint64_t)p[0] << 8) + ((uint64_t)p[n / 2] << 16) + ((uint64_t)p[n - 1] << 24);
  }
  return (uint32_t)((x * 0xff51afd7ed558ccdu) >> 58) & (RCACHE - 1);
}

/* Room for need values in gs: exactly that many (the count the GraphProto announces), or the
 * next power of two (one value more than the room). */
static olg_status gs_reserve(rd *r, gstate *gs, uint32_t need, bool exact) {
  if (need <= gs->cap) return OLG_OK;
  uint32_t cap = gs->cap ? gs->cap : 64;
  if (exact && need > cap) cap = need;
  while (cap < need) cap *= 2;
  const olg_allocator *a = &r->m->alloc;
  uint32_t *vi = olg__calloc(a, cap, sizeof *vi);
  uint8_t *k = vi ? olg__calloc(a, cap, 1) : NULL;
  if (!k) {
    olg__free(a, vi, (size_t)cap * sizeof *vi);
    return OLG_ERR_NOMEM;
  }
  if (gs->cap) {
    memcpy(vi, gs->vi_at, (size_t)gs->cap * sizeof *vi);
    memcpy(k, gs->kind, gs->cap);
  }
  olg__free(a, gs->vi_at, (size_t)gs->cap * sizeof *gs->vi_at);
  olg__free(a, gs->kind, gs->cap);
  gs->vi_at = vi;
  gs->kind = k;
  gs->cap = cap;
  return OLG_OK;
}

static inline olg_status gs_fit(rd *r, gstate *gs) {
  return gs->g->n_values <= gs->cap ? OLG_OK : gs_reserve(r, gs, gs->g->n_values, false);
}

static void gs_free(rd *r, gstate *gs) {
  olg__free(&r->m->alloc, gs->vi_at, (size_t)gs->cap * sizeof *gs->vi_at);
  olg__free(&r->m->alloc, gs->kind, gs->cap);
  olg__free(&r->m->alloc, gs->vis, (size_t)gs->cap_vis * sizeof *gs->vis);
}

static olg_status new_value(rd *r, gstate *gs, const char *name, olg_value *v, uint8_t kind) {
  olg_status s = olg__graph_add_value(gs->g, name, true, v);
  if (s) return s;
  if ((s = gs_fit(r, gs))) return s;
  gs->kind[*v] = kind;
  return OLG_OK;
}

/* The value a node names by the n bytes at p: the graph's, or a new one of kind `kind`
 * (one hash, one probe of the name map for a name not seen yet). */
static inline olg_status node_value_h(rd *r, gstate *gs, const uint8_t *p, size_t n, uint32_t h,
                               olg_value *v, uint8_t kind) {
  bool added;
  olg_status s = olg__graph_get_or_add_value(gs->g, (const char *)p, n, h, v, &added);
  if (s || !added || (s = gs_fit(r, gs))) return s;
  gs->kind[*v] = kind;
  return OLG_OK;
}

/* A node's input or output i (n bytes at p) holds a NUL byte: refused (olg__pbr_nul_name). */
static olg_status nul_arg(rd *r, const uint8_t *p, size_t n, const char *kind, size_t i) {
  char what[40];
  snprintf(what, sizeof what, "%s %zu", kind, i);
  return olg__pbr_nul_name(r, p, n, what, NULL);
}

/* The same for input i of a node (n > 0 bytes at p), through the cache of recent names (which
 * holds no name with a NUL byte: those are refused). */
static OLG_ALWAYS_INLINE olg_status node_input(rd *r, gstate *gs, const uint8_t *p, size_t n,
                                               size_t i, olg_value *v) {
  if (gs->last.n == n && olg__pbr_eq(gs->last.p, p, n)) { /* (n > 0: last is set) */
    *v = gs->last.v;
    return OLG_OK;
  }
  rcache *c = &gs->rc[rc_slot(p, n)];
  if (c->n == n && c->p && olg__pbr_eq(c->p, p, n)) {
    *v = c->v;
    return OLG_OK;
  }
  size_t k = n;
  uint32_t h = olg__name_hash((const char *)p, &k);
  if (k != n) return nul_arg(r, p, n, "input", i); /* the hash stopped at a NUL */
  olg_status s = node_value_h(r, gs, p, k, h, v, VK_FORWARD);
  if (!s && n <= UINT32_MAX) *c = (rcache){p, (uint32_t)n, *v};
  return s;
}

olg_status olg__pbr_rd_graph(rd *r, const pbf *fg, olg_graph *g);

enum { L_INPUT = 0, L_OUTPUT = 1, L_VALUE_INFO = 2 };
static const uint32_t list_flag[3] = {OLG_VF_INPUT, OLG_VF_OUTPUT, OLG_VF_VALUE_INFO};

static olg_status rd_value_info(rd *r, gstate *gs, const pbf *fv, int list) {
  msgdesc *md = DESC(value_info_proto);
  olg_status s = olg__pbr_enter(r, fv->p, md);
  if (s) return s;
  olg_graph *g = gs->g;
  const uint8_t *p = fv->p, *end = p + fv->n;
  pbf f, name = {0}, type = {0}, doc = {0};
  bool has_name = false, has_type = false, has_doc = false, has_unknown = false;
  size_t n_meta = 0;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1: name = f; has_name = true; break;
    case 2:
      if (has_type)
        return olg__err(OLG_ERR_UNSUPPORTED, "byte %zu: ValueInfoProto.type appears twice "
                        "(merging sub-messages is not supported)", olg__pbr_off(r, f.start));
      type = f;
      has_type = true;
      break;
    case 3: doc = f; has_doc = true; break;
    case 4: n_meta++; break;
    default: has_unknown = true;
    }
  }
  static const char *const list_what[3] = {"input name", "output name", "value_info name"};
  if (has_name && (s = olg__pbr_no_nul(r, name.p, name.n, list_what[list]))) return s;
  const char *nm = olg__pbr_cname(r, name.p, name.n);
  if (!nm) return OLG_ERR_NOMEM;
  olg_value v = *nm ? olg__graph_lookup(g, nm) : -1;
  if (v < 0 || list == L_INPUT) {
    if ((s = new_value(r, gs, nm, &v, VK_NORMAL))) return s;
  }
  olg_idvec *vec = list == L_INPUT ? &g->inputs : list == L_OUTPUT ? &g->outputs : &g->value_info;
  uint32_t pos = vec->n;
  if ((s = olg__idvec_push(r->m, vec, v))) return s;
  olg_value_rec *rec = &g->values[v];
  rec->flags |= list_flag[list];
  if (!gs->vi_at[v]) {
    if ((s = olg__grow(&r->m->alloc, (void **)&gs->vis, &gs->cap_vis, (size_t)gs->n_vis + 1,
                       sizeof *gs->vis)))
      return s;
    gs->vis[gs->n_vis++] = (olg_pb_span){fv->p, fv->n};
    gs->vi_at[v] = gs->n_vis;
    /* rec's side record, filled here and made (if anything is in it) at the end */
    olg_value_more vm = rec->more ? *rec->more : (olg_value_more){0};
    if (has_type) {
      olg_type ty;
      if ((s = olg__pbr_rd_type_top(r, &type, &ty, true))) return s;
      rec->type = ty;
    } else if (rec->type.kind != OLG_TYPE_NONE) {
      olg_pbx *x = olg__pbr_pbx(r, &vm.extra);
      if (!x) return OLG_ERR_NOMEM;
      x->flags |= PBX_VI_NO_TYPE;
      x->type_snapshot = rec->type;
    }
    if (!has_name && (s = olg__pbr_set_flag(r, &vm.extra, PBX_NO_NAME))) return s;
    if (has_doc && (s = olg__pbr_text(r, &vm.extra, &doc, &vm.doc_string))) return s;
    if (n_meta) {
      olg_kv *kv = olg__pbr_aalloc(r, n_meta, sizeof *kv);
      if (!kv) return OLG_ERR_NOMEM;
      if ((s = olg__pbr_rd_kvs(r, fv->p, end, md, 4, n_meta, kv, &vm.extra))) return s;
      vm.metadata = kv;
      vm.n_metadata = (uint32_t)n_meta;
    }
    if (has_unknown) {
      for (p = fv->p; p < end;) {
        if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
        if (!f.fd && (s = olg__pbr_keep_raw(r, &vm.extra, &f))) return s;
      }
    }
    if ((s = olg__value_set_more(r->m, rec, &vm))) return s;
  } else if (gs->vis[gs->vi_at[v] - 1].n != fv->n ||
             (fv->n && memcmp(gs->vis[gs->vi_at[v] - 1].p, fv->p, fv->n) != 0)) {
    /* another description of the same value: written back as it was */
    if (has_type) {
      olg_type ty; /* still checked, so that malformed bytes are refused wherever they are */
      if ((s = olg__pbr_rd_type_top(r, &type, &ty, false))) return s;
    }
    for (p = fv->p; p < end;) {
      if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
      if (f.no == 4 && (s = olg__pbr_validate_msg(r, f.p, f.n, f.fd->msg))) return s;
    }
    olg_pbx *x = olg__pbr_pbx(r, &g->extra);
    if (!x) return OLG_ERR_NOMEM;
    if (!x->vi_alt[list]) {
      if (!(x->vi_alt[list] = olg__pbr_aalloc(r, gs->list_n[list], sizeof *x->vi_alt[list])))
        return OLG_ERR_NOMEM;
      x->n_vi_alt[list] = gs->list_n[list];
    }
    if (pos < x->n_vi_alt[list]) x->vi_alt[list][pos] = (olg_pbx_vi){v, {fv->p, fv->n}};
  }
  r->depth--;
  return OLG_OK;
}

/* How many inputs, outputs and attributes of a node its first walk notes (on the stack); a node
 * with more of one walks those fields again. */
#define NODE_SPANS 8

/* A new node (name, op and domain set, the rest empty) of the graph being read: its id. */
static inline olg_status node_begin(rd *r, olg_graph *g, const char *name, const char *op,
                             const char *domain, olg_node_id *id) {
  r->at.node = name;
  r->at.op = op;
  r->at.attr = NULL;
  r->at.node_index = g->n_nodes;
  /* the room for every node is made (and mapped in) up front: a call per node only if not */
  olg_status s;
  if (g->n_nodes >= g->cap_nodes &&
      (s = olg__grow(&r->m->alloc, (void **)&g->nodes, &g->cap_nodes, (size_t)g->n_nodes + 1,
                     sizeof *g->nodes)))
    return s;
  *id = (olg_node_id)g->n_nodes;
  olg_node *nd = &g->nodes[g->n_nodes++];
  memset(nd, 0, sizeof *nd);
  nd->name = name;
  nd->op = op;
  nd->domain = domain;
  nd->state = OLG_NODE_OPEN;
  return OLG_OK;
}

/* Output i of node id, named by the bytes of o (none: an omitted output); pa: the lookahead's
 * view of the node's first output. */
static OLG_ALWAYS_INLINE olg_status node_output(rd *r, gstate *gs, olg_node_id id,
                                                const olg_pbr_ahead *pa, olg_pb_span o, size_t i,
                                                olg_value *out) {
  if (!o.n) {
    *out = OLG_NO_VALUE;
    return OLG_OK;
  }
  olg_graph *g = gs->g;
  uint32_t n_values = g->n_values;
  olg_value v;
  size_t k = o.n;
  uint32_t h = pa->p == o.p && pa->raw_n == o.n ? (k = pa->n, pa->h)
                                                 : olg__name_hash((const char *)o.p, &k);
  if (k != o.n) return nul_arg(r, o.p, o.n, "output", i); /* the hash stopped at a NUL */
  olg_status s = node_value_h(r, gs, o.p, k, h, &v, VK_NORMAL);
  if (s) return s;
  const olg_value_rec *vr = &g->values[v];
  /* a name seen before is this output only where an earlier input named it ahead */
  bool claim = (uint32_t)v >= n_values || (gs->kind[v] == VK_FORWARD && vr->producer < 0 &&
                                           !(vr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)));
  const char *nmc = claim ? NULL : olg__pbr_cname(r, o.p, o.n);
  if (!claim && !nmc) return OLG_ERR_NOMEM;
  if (!claim && (s = new_value(r, gs, nmc, &v, VK_NORMAL))) return s;
  gs->kind[v] = VK_NORMAL;
  g->values[v].producer = id;
  *out = v;
  /* the name's value in the map, now that it is this output (a second definition is not) */
  if (claim && o.n <= UINT32_MAX) gs->last = (rcache){o.p, (uint32_t)o.n, v};
  return OLG_OK;
}

/* The node whose n bytes are at p, if it has the shape most nodes of a large graph have, read
 * without the general walk (rd_node_walk, which was most of the time of reading a node-dense
 * graph): inputs, outputs (at most NODE_SPANS of each), an op type and at most one name and
 * one domain, neither empty, every field with a one-byte tag and length, no byte NUL in name,
 * op type or domain. The same IR from the same calls in the same order as rd_node_walk; *read
 * false (nothing done) for any other node, which rd_node_walk then reads. */
static olg_status rd_node_plain(rd *r, gstate *gs, const uint8_t *p, size_t n, bool *read) {
  *read = false;
  const uint8_t *end = p + n;
  olg_pb_span in[NODE_SPANS], out[NODE_SPANS], name = {0}, op = {0}, domain = {0};
  size_t n_in = 0, n_out = 0;
  while (p < end) {
    size_t left = (size_t)(end - p), len;
    if (left < 2 || (len = p[1]) >= 0x80 || len + 2 > left) return OLG_OK;
    olg_pb_span f = {p + 2, len};
    uint8_t tag = p[0];
    p += 2 + len;
    if (tag == 0x0a) { /* the inputs and outputs first: most fields, and in that order */
      if (n_in == NODE_SPANS) return OLG_OK;
      in[n_in++] = f;
    } else if (tag == 0x12) {
      if (n_out == NODE_SPANS) return OLG_OK;
      out[n_out++] = f;
    } else if (tag == 0x22 && !op.p) {
      op = f;
    } else if (tag == 0x1a && !name.p && len) {
      name = f;
    } else if (tag == 0x3a && !domain.p && len) {
      domain = f;
    } else {
      return OLG_OK;
    }
  }
  if (!op.p || r->depth >= OLG_PB_MAX_DEPTH || olg__pbr_has_nul(op.p, op.n) ||
      (name.p && olg__pbr_has_nul(name.p, name.n)) ||
      (domain.p && olg__pbr_has_nul(domain.p, domain.n)))
    return OLG_OK;
  *read = true;
  r->depth++;
  /* name and domain copied in the order of their fields, op type last, as rd_node_walk does */
  const char *nm = "", *dm = "", *o;
  const pbf df = {.p = domain.p, .n = domain.n};
  bool domain_first = domain.p && (!name.p || domain.p < name.p);
  if ((domain_first && !(dm = olg__pbr_intern(r, &df))) ||
      (name.p && !(nm = olg__pbr_sdup_name(r, &(pbf){.p = name.p, .n = name.n}))) ||
      (domain.p && !domain_first && !(dm = olg__pbr_intern(r, &df))))
    return OLG_ERR_NOMEM;
  if (!(o = olg__pbr_intern(r, &(pbf){.p = op.p, .n = op.n}))) return OLG_ERR_NOMEM;
  olg_graph *g = gs->g;
  olg_node_id id;
  olg_status s = node_begin(r, g, nm, o, dm, &id);
  if (s) return s;
  olg_arg *args = NULL;
  olg_value *outs = NULL;
  if (n_in || n_out) {
    char *blk = olg__pbr_ablock(r, n_in * sizeof *args + n_out * sizeof *outs);
    if (!blk) return OLG_ERR_NOMEM;
    if (n_in) args = (olg_arg *)(void *)blk;
    if (n_out) outs = (olg_value *)(void *)(blk + n_in * sizeof *args);
  }
  for (size_t i = 0; i < n_in; i++) {
    if (!in[i].n) continue; /* OLG_ARG_NONE: the zeroed block's */
    if ((s = node_input(r, gs, in[i].p, in[i].n, i, &args[i].u.v))) return s;
    args[i].kind = OLG_ARG_VALUE;
  }
  g->nodes[id].args = args;
  g->nodes[id].n_args = (uint32_t)n_in;
  const olg_pbr_ahead *pa = &gs->ahead[gs->n_read++ & (AHEAD - 1)];
  for (size_t i = 0; i < n_out; i++)
    if ((s = node_output(r, gs, id, pa, out[i], i, &outs[i]))) return s;
  olg_node *nd = &g->nodes[id];
  nd->outputs = outs;
  nd->n_outputs = n_out & OLG_NODE_MAX_OUTPUTS;
  nd->state = OLG_NODE_DONE;
  r->at.node = r->at.op = NULL;
  r->depth--;
  return OLG_OK;
}

/* The i-th (of count) of a node's fields numbered no: noted by the first walk, or (more than
 * NODE_SPANS of them) the next one found walking on from *p. */
static inline olg_status node_field(rd *r, const olg_pb_span *sp, size_t count, size_t i,
                                    const uint8_t **p, const uint8_t *end, uint32_t no,
                                    olg_pb_span *out) {
  if (count <= NODE_SPANS) {
    *out = sp[i];
    return OLG_OK;
  }
  pbf f;
  do {
    olg_status s = olg__pbr_next(r, p, end, DESC(node_proto), &f);
    if (s) return s;
  } while (f.no != no);
  *out = (olg_pb_span){f.p, f.n};
  return OLG_OK;
}

/* A node of any shape, field by field (rd_node takes rd_node_plain's shape first). */
static olg_status rd_node_walk(rd *r, gstate *gs, const pbf *fn) {
  msgdesc *md = DESC(node_proto);
  olg_status s = olg__pbr_enter(r, fn->p, md);
  if (s) return s;
  olg_graph *g = gs->g;
  olg_model *m = r->m;
  const uint8_t *p = fn->p, *end = p + fn->n;
  size_t n_meta = 0;
  const void *extra = NULL;
  const char *name = "", *op = "", *domain = "", *doc = NULL, *overload = NULL;
  bool has_op = false;
  /* the bytes of the last name (3), op_type (4), domain (7) and overload (8) read (not whole
   * fields: zeroing and copying those cost about 5% of reading a node-dense graph) */
  olg_pb_span named[4] = {{0}};
  /* the inputs (1), outputs (2) and attributes (5) as this walk finds them (the first
   * NODE_SPANS of each), and where the first of each starts, for a node with more: the later
   * passes then walk only from there (every field checked by this walk) */
  enum { K_IN, K_OUT, K_ATTR, K_OP };
  olg_pb_span sp[3][NODE_SPANS];
  const uint8_t *from[3] = {0};
  size_t cnt[3] = {0};
  /* by the first byte of a field: an input, output, attribute or the op type (K_* + 1) whose
   * one-byte tag says length-delimited, as the schema has fields 1, 2, 5 and 4 of NodeProto */
  static const uint8_t kind_of[256] = {[0x0a] = K_IN + 1, [0x12] = K_OUT + 1,
                                       [0x2a] = K_ATTR + 1, [0x22] = K_OP + 1};
  pbf f;
  while (p < end) {
    /* the common field inline: one of those with a one-byte length that fits */
    int k = kind_of[p[0]] - 1;
    if (k >= 0 && end - p >= 2 && p[1] < 0x80 && p[1] <= end - p - 2) {
      if (k == K_OP) {
        named[1] = (olg_pb_span){p + 2, p[1]};
        has_op = true;
      } else {
        if (cnt[k] < NODE_SPANS) sp[k][cnt[k]] = (olg_pb_span){p + 2, p[1]};
        if (!cnt[k]++) from[k] = p;
      }
      p += 2 + p[1];
      continue;
    }
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    k = f.no == 1 ? K_IN : f.no == 2 ? K_OUT : f.no == 5 ? K_ATTR : -1;
    if (k >= 0) {
      if (cnt[k] < NODE_SPANS) sp[k][cnt[k]] = (olg_pb_span){f.p, f.n};
      if (!cnt[k]++) from[k] = f.start;
      continue;
    }
    switch (f.no) {
    case 3:
      named[0] = (olg_pb_span){f.p, f.n};
      if (!(name = olg__pbr_sdup_name(r, &f))) return OLG_ERR_NOMEM;
      if (!f.n && (s = olg__pbr_set_flag(r, &extra, PBX_NAME_EMPTY))) return s;
      break;
    case 4: /* interned once the walk is done: the last one counts */
      named[1] = (olg_pb_span){f.p, f.n};
      has_op = true;
      break;
    case 6: if ((s = olg__pbr_text(r, &extra, &f, &doc))) return s; break;
    case 7:
      named[2] = (olg_pb_span){f.p, f.n};
      if (!(domain = olg__pbr_intern(r, &f))) return OLG_ERR_NOMEM;
      if (!f.n && (s = olg__pbr_set_flag(r, &extra, PBX_DOMAIN_EMPTY))) return s;
      break;
    case 8:
      named[3] = (olg_pb_span){f.p, f.n};
      if (!(overload = olg__pbr_sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      break;
    case 9: n_meta++; break;
    case 10: if ((s = olg__pbr_keep_validated(r, &extra, &f))) return s; break;
    default: if ((s = olg__pbr_keep_raw(r, &extra, &f))) return s;
    }
  }
  size_t n_in = cnt[K_IN], n_out = cnt[K_OUT], n_attr = cnt[K_ATTR];
  if (has_op && !(op = olg__pbr_intern(r, &(pbf){.p = named[1].p, .n = named[1].n})))
    return OLG_ERR_NOMEM;
  if (!has_op && (s = olg__pbr_set_flag(r, &extra, PBX_NO_OP_TYPE))) return s;
  r->at.node = name;
  r->at.op = op;
  r->at.attr = NULL;
  r->at.node_index = g->n_nodes;
  static const char *const named_what[4] = {"name", "op_type", "domain", "overload"};
  for (int k = 0; k < 4; k++)
    if (named[k].p && (s = olg__pbr_no_nul(r, named[k].p, named[k].n, named_what[k]))) return s;
  if (n_in > UINT32_MAX / 2 || n_out > OLG_NODE_MAX_OUTPUTS || n_attr > OLG_NODE_MAX_ATTRS)
    return olg__err(OLG_ERR_LIMIT, "byte %zu: NodeProto '%s' (%s): %zu inputs, %zu outputs, %zu "
                    "attributes: at most %u outputs and %u attributes are read",
                    olg__pbr_off(r, fn->p), name, op, n_in, n_out, n_attr, OLG_NODE_MAX_OUTPUTS,
                    OLG_NODE_MAX_ATTRS);
  olg_node_id id;
  if ((s = node_begin(r, g, name, op, domain, &id))) return s;
  olg_node *nd = &g->nodes[id];
  olg_node_more nm = {.doc_string = doc, .overload = overload, .extra = extra};
  if ((doc || overload || extra) && (s = olg__node_set_more(m, nd, &nm))) return s;
  /* the attributes, inputs and outputs in one arena block (in that order: each part stays
   * aligned) */
  olg_arg *args = NULL;
  olg_attr *attrs = NULL;
  olg_value *outs = NULL;
  size_t b_attr = n_attr * sizeof *attrs, b_in = n_in * sizeof *args;
  if (n_in || n_attr || n_out) {
    char *blk = olg__pbr_ablock(r, b_attr + b_in + n_out * sizeof *outs);
    if (!blk) return OLG_ERR_NOMEM;
    if (n_attr) attrs = (olg_attr *)(void *)blk;
    if (n_in) args = (olg_arg *)(void *)(blk + b_attr);
    if (n_out) outs = (olg_value *)(void *)(blk + b_attr + b_in);
  }
  /* inputs: names seen before are this graph's values; others are made now, to be produced
   * later in the graph or captured from an enclosing one */
  p = from[K_IN];
  for (size_t i = 0; i < n_in; i++) {
    olg_pb_span a;
    if ((s = node_field(r, sp[K_IN], n_in, i, &p, end, 1, &a))) return s;
    if (!a.n) {
      args[i].kind = OLG_ARG_NONE;
      continue;
    }
    olg_value v;
    if ((s = node_input(r, gs, a.p, a.n, i, &v))) return s;
    args[i].kind = OLG_ARG_VALUE;
    args[i].u.v = v;
  }
  nd = &g->nodes[id];
  nd->args = args;
  nd->n_args = (uint32_t)n_in;
  p = from[K_ATTR];
  for (size_t i = 0; i < n_attr; i++) {
    pbf fa = {0};
    olg_pb_span a;
    if ((s = node_field(r, sp[K_ATTR], n_attr, i, &p, end, 5, &a))) return s;
    fa.p = a.p;
    fa.n = a.n;
    if ((s = olg__pbr_rd_attr(r, gs->g, &fa, &attrs[i]))) return s;
  }
  nd = &g->nodes[id];
  nd->attrs = attrs;
  nd->n_attrs = n_attr & OLG_NODE_MAX_ATTRS; /* checked above */
  p = from[K_OUT];
  const olg_pbr_ahead *pa = &gs->ahead[gs->n_read++ & (AHEAD - 1)];
  for (size_t i = 0; i < n_out; i++) {
    olg_pb_span o;
    if ((s = node_field(r, sp[K_OUT], n_out, i, &p, end, 2, &o)) ||
        (s = node_output(r, gs, id, pa, o, i, &outs[i])))
      return s;
  }
  nd = &g->nodes[id];
  nd->outputs = outs;
  nd->n_outputs = n_out & OLG_NODE_MAX_OUTPUTS; /* checked above */
  if (n_meta) {
    olg_kv *kv = olg__pbr_aalloc(r, n_meta, sizeof *kv);
    if (!kv) return OLG_ERR_NOMEM;
    nm.metadata = kv;
    nm.n_metadata = (uint32_t)n_meta;
    if ((s = olg__pbr_rd_kvs(r, fn->p, end, md, 9, n_meta, kv, &nm.extra))) return s;
    if ((s = olg__node_set_more(m, &g->nodes[id], &nm))) return s;
  }
  nd->state = OLG_NODE_DONE;
  r->at.node = r->at.op = NULL;
  r->depth--;
  return OLG_OK;
}

static olg_status rd_node(rd *r, gstate *gs, const pbf *fn) {
  bool read;
  olg_status s = rd_node_plain(r, gs, fn->p, fn->n, &read);
  return s || read ? s : rd_node_walk(r, gs, fn);
}

/* The name, element type and dims of a sparse initializer, to define its value. */
static olg_status sparse_init_value(rd *r, gstate *gs, const pbf *fs) {
  msgdesc *md = DESC(sparse_tensor_proto), *tmd = DESC(tensor_proto);
  const uint8_t *p = fs->p, *end = p + fs->n;
  pbf f, values = {0};
  bool has_values = false;
  size_t n_dims = 0;
  olg_status s;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 1) { values = f; has_values = true; }
    else if (f.no == 3 && (s = olg__pbr_rep_count(r, md, &f, &n_dims))) return s;
  }
  if (!has_values) return OLG_OK;
  pbf name = {0};
  bool has_name = false;
  int32_t elem = 0;
  for (p = values.p, end = values.p + values.n; p < end;) {
    if ((s = olg__pbr_next(r, &p, end, tmd, &f))) return s;
    if (f.no == 8) { name = f; has_name = true; }
    else if (f.no == 2) elem = (int32_t)(uint32_t)f.v;
  }
  if (!has_name || !name.n || n_dims > INT32_MAX) return OLG_OK;
  if ((s = olg__pbr_no_nul(r, name.p, name.n, "sparse initializer name"))) return s;
  const char *nm = olg__pbr_cname(r, name.p, name.n);
  if (!nm) return OLG_ERR_NOMEM;
  if (olg__graph_lookup(gs->g, nm) >= 0) return OLG_OK;
  uint64_t *dims = n_dims ? olg__pbr_aalloc(r, n_dims, sizeof *dims) : NULL;
  olg_dim *d = n_dims ? olg__pbr_aalloc(r, n_dims, sizeof *d) : NULL;
  if (n_dims && (!dims || !d)) return OLG_ERR_NOMEM;
  if (n_dims && (s = olg__pbr_rep_fill(r, fs->p, fs->p + fs->n, md, 3, n_dims, dims))) return s;
  for (size_t i = 0; i < n_dims; i++)
    d[i].value = (int64_t)dims[i] >= 0 ? (int64_t)dims[i] : OLG_DIM_UNKNOWN;
  olg_value v;
  if ((s = new_value(r, gs, nm, &v, VK_SPARSE))) return s;
  olg_type *ty = &gs->g->values[v].type;
  ty->kind = OLG_TYPE_SPARSE_TENSOR;
  ty->has_elem = true;
  if ((s = olg__type_set_elem(r->m, ty, elem))) return s;
  ty->has_shape = true;
  ty->rank = (int32_t)n_dims;
  ty->dims = d;
  return OLG_OK;
}

static olg_status rd_graph_body(rd *r, gstate *gs, const pbf *fg) {
  msgdesc *md = DESC(graph_proto);
  olg_graph *g = gs->g;
  olg_model *m = r->m;
  const uint8_t *p = fg->p, *end = p + fg->n;
  size_t n[17] = {0};
  /* where each field lies (from its first occurrence to the end of its last), for the passes
   * below to walk only that stretch: in a file written in field order, only the field */
  const uint8_t *from[17] = {0}, *to[17] = {0};
  olg_status s;
  pbf f;
  while (p < end) {
    /* a run of nodes (field 1) whose length takes one or two bytes: counted here, each checked
       by the walk that reads it (olg__pbr_next's checks) */
    if (p[0] == 0x0a) {
      const uint8_t *q = p;
      size_t k = 0;
      while (end - q >= 3 && q[0] == 0x0a) {
        size_t len = q[1] < 0x80   ? q[1]
                     : q[2] < 0x80 ? (size_t)(q[1] & 0x7f) | (size_t)q[2] << 7
                                   : SIZE_MAX;
        const uint8_t *body = q + (q[1] < 0x80 ? 2 : 3);
        if (len > (size_t)(end - body)) break;
        if (!from[1]) from[1] = q;
        q = body + len;
        k++;
      }
      if (k) {
        n[1] += k;
        to[1] = p = q;
        continue;
      }
    }
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no <= 16) {
      n[f.no]++;
      if (!from[f.no]) from[f.no] = f.start;
      to[f.no] = f.end;
    }
    switch (f.no) {
    case 1: case 5: case 11: case 12: case 13: case 16: break;
    case 2:
      /* (a subgraph is named by its parent's attribute, being read) */
      if ((s = olg__pbr_nul_name(r, f.p, f.n, g == m->graph ? "name" : "subgraph name",
                                 g == m->graph ? "the main GraphProto" : NULL)))
        return s;
      if (!(g->name = olg__pbr_sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      if (!f.n && (s = olg__pbr_set_flag(r, &g->extra, PBX_NAME_EMPTY))) return s;
      break;
    case 10: if ((s = olg__pbr_text(r, &g->extra, &f, &g->doc_string))) return s; break;
    case 14: case 15: if ((s = olg__pbr_keep_validated(r, &g->extra, &f))) return s; break;
    default: if ((s = olg__pbr_keep_raw(r, &g->extra, &f))) return s;
    }
  }
  if (n[1] > UINT32_MAX / 2 || n[5] > UINT32_MAX / 2 || n[11] > UINT32_MAX / 2 ||
      n[12] > UINT32_MAX / 2 || n[13] > UINT32_MAX / 2)
    return olg__pbr_perr(r, fg->p, "GraphProto '%s': too many nodes, initializers or values", g->name);
  r->at = (rpos){g->name ? g->name : "", NULL, NULL, NULL, 0};
  gs->list_n[L_INPUT] = (uint32_t)n[11];
  gs->list_n[L_OUTPUT] = (uint32_t)n[12];
  gs->list_n[L_VALUE_INFO] = (uint32_t)n[13];
  /* room up front, values counted as a node's one output each: the vectors and the name map
   * then grow without copying */
  size_t n_values = g->n_values + n[11] + n[5] + n[15] + n[1];
  if (n[1] > g->cap_nodes && n[1] <= UINT32_MAX / 2) {
    /* exactly: olg__grow's power of two may leave half of it unused */
    void *q = olg__realloc(&m->alloc, g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes,
                           n[1] * sizeof *g->nodes);
    if (!q) return OLG_ERR_NOMEM;
    g->nodes = q;
    g->cap_nodes = (uint32_t)n[1];
  }
  if ((s = olg__grow(&m->alloc, (void **)&g->inits, &g->cap_inits, n[5], sizeof *g->inits)) ||
      (n_values > 64 && n_values <= UINT32_MAX / 2 &&
       ((s = olg__graph_reserve(g, (uint32_t)n_values, (uint32_t)n_values, 0, 0)) ||
        (s = gs_reserve(r, gs, (uint32_t)n_values, true)))))
    return s;

  /* inputs, then initializers (which may be inputs too), sparse initializers, nodes in order,
   * then outputs and value_info, which describe values defined by then */
  for (p = from[11]; n[11] && p < to[11];) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 11 && (s = rd_value_info(r, gs, &f, L_INPUT))) return s;
  }
  for (p = from[5]; n[5] && p < to[5];) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no != 5) continue;
    olg_tensor *t;
    if ((s = olg__pbr_rd_tensor(r, &f, &t))) return s;
    const char *nm = t->name ? t->name : "";
    olg_value v = *nm ? olg__graph_lookup(g, nm) : -1;
    olg_value_rec *vr = v >= 0 ? &g->values[v] : NULL;
    if (vr && (vr->flags & OLG_VF_INPUT) && !(vr->flags & OLG_VF_INITIALIZER) && vr->producer < 0) {
      if (g->n_inits >= OLG_MAX_INITS) return olg__too_many_inits(g);
      if ((s = olg__grow(&m->alloc, (void **)&g->inits, &g->cap_inits, (size_t)g->n_inits + 1,
                         sizeof *g->inits)))
        return s;
      vr->flags |= OLG_VF_INITIALIZER;
      vr->init = (int32_t)g->n_inits;
      if ((s = olg__value_set_known(m, vr, t))) return s;
      g->inits[g->n_inits++] = (struct olg_init){v, t};
    } else {
      if ((s = olg__graph_add_init(g, t, true, &v))) return s;
      if ((s = gs_fit(r, gs))) return s;
    }
  }
  for (p = from[15]; n[15] && p < to[15];) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 15 && (s = sparse_init_value(r, gs, &f))) return s;
  }
  /* a new output name's slot in a large name map is not cached: the lookahead asks for those of
     the nodes a few ahead while this one is read */
  const uint8_t *ahead = from[1];
  for (int k = 0; k < OLG_PBR_PREFETCH_NODES && ahead; k++)
    ahead = olg__pbr_prefetch_node_outputs(g, ahead, to[1],
                                           &gs->ahead[gs->n_ahead++ & (AHEAD - 1)]);
  for (p = from[1]; n[1] && p < to[1];) {
    if (p[0] == 0x0a && end - p >= 2 && p[1] < 0x80 && p[1] <= end - p - 2) {
      /* a node whose length takes a byte: the plain path at once, or what olg__pbr_next would
         say (GraphProto's field 1 is the first of its schema) */
      const uint8_t *at = p;
      size_t len = p[1];
      p += 2 + len;
      if (ahead)
        ahead = olg__pbr_prefetch_node_outputs(g, ahead, to[1],
                                               &gs->ahead[gs->n_ahead++ & (AHEAD - 1)]);
      bool read;
      if ((s = rd_node_plain(r, gs, at + 2, len, &read))) return s;
      if (!read) {
        f = (pbf){.no = 1, .wt = PB_LEN, .p = at + 2, .n = len, .start = at, .end = p,
                  .fd = &md->fields[0]};
        if ((s = rd_node_walk(r, gs, &f))) return s;
      }
      continue;
    }
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no != 1) continue;
    if (ahead)
      ahead = olg__pbr_prefetch_node_outputs(g, ahead, to[1],
                                             &gs->ahead[gs->n_ahead++ & (AHEAD - 1)]);
    if ((s = rd_node(r, gs, &f))) return s;
  }
  for (p = from[12]; n[12] && p < to[12];) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 12 && (s = rd_value_info(r, gs, &f, L_OUTPUT))) return s;
  }
  for (p = from[13]; n[13] && p < to[13];) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 13 && (s = rd_value_info(r, gs, &f, L_VALUE_INFO))) return s;
  }
  if (n[16]) {
    olg_kv *kv = olg__pbr_aalloc(r, n[16], sizeof *kv);
    if (!kv) return OLG_ERR_NOMEM;
    if ((s = olg__pbr_rd_kvs(r, fg->p, end, md, 16, n[16], kv, &g->extra))) return s;
    g->metadata = kv;
    g->n_metadata = (uint32_t)n[16];
  }
  /* In a subgraph, a name used but never defined comes from an enclosing graph. */
  if (g != m->graph) {
    for (uint32_t i = 0; i < g->n_values; i++) {
      olg_value_rec *vr = &g->values[i];
      if (vr->producer < 0 && !(vr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) &&
          gs->kind[i] != VK_SPARSE)
        vr->flags |= OLG_VF_OUTER;
    }
  }
  return OLG_OK;
}

olg_status olg__pbr_rd_graph(rd *r, const pbf *fg, olg_graph *g) {
  /* the one nesting limit of every stage, with its words: what is read, check and legalize take */
  if (r->graphs > OLG_MAX_GRAPH_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "byte %zu: the subgraphs are " OLG_DEPTH_WORDS,
                    olg__pbr_off(r, fg->p), OLG_MAX_GRAPH_DEPTH, OLG_MAX_GRAPH_DEPTH);
  olg_status s = olg__pbr_enter(r, fg->p, DESC(graph_proto));
  if (s) return s;
  r->graphs++;
  gstate gs = {.g = g};
  rpos outer = r->at; /* a subgraph's messages name it; its parent's resume after it */
  s = rd_graph_body(r, &gs, fg);
  gs_free(r, &gs);
  if (!s) {
    r->depth--;
    r->graphs--;
    r->at = outer;
  }
  return s;
}

/* ---------------------------------------------------------------------------------------- */
/* FunctionProto parts that are graph-like (pb_read_function.c reads the rest) */

/* A function's body into g: its formal inputs (field 4), its nodes (7) and its formal outputs
 * (5), as names of g's values. A name used but defined nowhere stays a value without producer
 * (olg_check reports it). */
olg_status olg__pbr_rd_function_body(rd *r, const pbf *ff, olg_graph *g) {
  msgdesc *md = DESC(function_proto);
  gstate gs = {.g = g};
  const uint8_t *end = ff->p + ff->n;
  olg_status s = OLG_OK;
  pbf f;
  static const uint32_t order[3] = {4, 7, 5};
  for (int k = 0; k < 3 && !s; k++) {
    for (const uint8_t *p = ff->p; p < end && !s;) {
      if ((s = olg__pbr_next(r, &p, end, md, &f)) || f.no != order[k]) continue;
      if (f.no == 7) {
        s = rd_node(r, &gs, &f);
        continue;
      }
      if ((s = olg__pbr_no_nul(r, f.p, f.n, f.no == 4 ? "input" : "output"))) break;
      const char *nm = olg__pbr_cname(r, f.p, f.n);
      if (!nm) {
        s = OLG_ERR_NOMEM;
        break;
      }
      olg_value v = olg__graph_lookup(g, nm);
      if (f.no == 4 || v < 0) s = new_value(r, &gs, nm, &v, f.no == 4 ? VK_NORMAL : VK_FORWARD);
      if (s) break;
      g->values[v].flags |= f.no == 4 ? OLG_VF_INPUT : OLG_VF_OUTPUT;
      s = olg__idvec_push(r->m, f.no == 4 ? &g->inputs : &g->outputs, v);
    }
  }
  gs_free(r, &gs);
  return s;
}

/* An attribute_proto of a function (a declared attribute with its default). */
olg_status olg__pbr_rd_function_attr(rd *r, const pbf *fa, olg_graph *body, olg_attr *a) {
  gstate gs = {.g = body};
  olg_status s = olg__pbr_rd_attr(r, gs.g, fa, a);
  gs_free(r, &gs);
  return s;
}
