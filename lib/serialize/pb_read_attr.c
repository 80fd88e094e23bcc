/* onnxlegal — the protobuf reader: AttributeProto into the IR (pb_read.h), its subgraphs
 * read by olg__pbr_rd_graph. */
#include <string.h>

#include "pb_read.h"

static uint8_t infer_attr_type(bool f, bool i, bool s, bool t, bool g, bool tp, bool sp,
                               const size_t *lists) {
  if (f) return OLG_ATTR_FLOAT;
  if (i) return OLG_ATTR_INT;
  if (s) return OLG_ATTR_STRING;
  if (t) return OLG_ATTR_TENSOR;
  if (g) return OLG_ATTR_GRAPH;
  if (sp) return OLG_ATTR_SPARSE_TENSOR;
  if (tp) return OLG_ATTR_TYPE_PROTO;
  static const uint8_t lt[PBX_L_COUNT] = {OLG_ATTR_FLOATS, OLG_ATTR_INTS, OLG_ATTR_STRINGS,
                                          OLG_ATTR_TENSORS, OLG_ATTR_GRAPHS,
                                          OLG_ATTR_SPARSE_TENSORS, OLG_ATTR_TYPE_PROTOS};
  for (int k = 0; k < PBX_L_COUNT; k++)
    if (lists[k]) return lt[k];
  return OLG_ATTR_UNDEFINED;
}

static const char *attr_type_name(int type) {
  static const char *const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                      "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                      "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
                                      "TYPE_PROTOS"};
  return type >= 0 && type <= OLG_ATTR_TYPE_PROTOS ? names[type] : "?";
}

olg_status olg__pbr_dup_singular(rd *r, const pbf *f, msgdesc *md) {
  return olg__err(OLG_ERR_UNSUPPORTED, "byte %zu: %s.%s appears twice (merging sub-messages is "
                  "not supported)", olg__pbr_off(r, f->start), md->short_name, f->fd->name);
}

olg_status olg__pbr_rd_attr(rd *r, olg_graph *parent, const pbf *fa, olg_attr *a) {
  msgdesc *md = DESC(attribute_proto);
  olg_status s = olg__pbr_enter(r, fa->p, md);
  if (s) return s;
  const uint8_t *p = fa->p, *end = p + fa->n;
  size_t lists[PBX_L_COUNT] = {0};
  bool has_name = false, has_type = false, has_f = false, has_i = false, has_s = false;
  bool has_t = false, has_g = false, has_tp = false, has_sp = false;
  int64_t type_v = 0;
  pbf f, ft = {0}, fg = {0}, ftp = {0}, fsp = {0};
  memset(a, 0, sizeof *a);
  a->name = "";
  while (p < end) {
    /* the type (field 20, a varint: tag 160, two bytes 0xa0 0x01) with a one-byte value */
    if (end - p >= 3 && p[0] == 0xa0 && p[1] == 0x01 && p[2] < 0x80) {
      type_v = p[2];
      has_type = true;
      p += 3;
      continue;
    }
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1:
      if ((s = olg__pbr_no_nul(r, f.p, f.n, "attribute name"))) return s;
      if (!(a->name = olg__pbr_sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      has_name = true;
      break;
    case 2: { uint32_t b = (uint32_t)f.v; memcpy(&a->f, &b, 4); has_f = true; break; }
    case 3: a->i = (int64_t)f.v; has_i = true; break;
    case 4: a->s = (olg_bytes){(const char *)f.p, f.n}; has_s = true; break;
    case 5: if (has_t) return olg__pbr_dup_singular(r, &f, md); ft = f; has_t = true; break;
    case 6: if (has_g) return olg__pbr_dup_singular(r, &f, md); fg = f; has_g = true; break;
    case 7: if ((s = olg__pbr_rep_count(r, md, &f, &lists[PBX_L_FLOATS]))) return s; break;
    case 8: if ((s = olg__pbr_rep_count(r, md, &f, &lists[PBX_L_INTS]))) return s; break;
    case 9: lists[PBX_L_STRINGS]++; break;
    case 10: lists[PBX_L_TENSORS]++; break;
    case 11: lists[PBX_L_GRAPHS]++; break;
    case 13: if ((s = olg__pbr_text(r, &a->extra, &f, &a->doc_string))) return s; break;
    case 14: if (has_tp) return olg__pbr_dup_singular(r, &f, md); ftp = f; has_tp = true; break;
    case 15: lists[PBX_L_TPS]++; break;
    case 20: type_v = (int32_t)(uint32_t)f.v; has_type = true; break;
    case 21:
      if ((s = olg__pbr_no_nul(r, f.p, f.n, "ref_attr_name"))) return s;
      if (!(a->ref_attr_name = olg__pbr_sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      break;
    case 22:
      if (has_sp) return olg__pbr_dup_singular(r, &f, md);
      if ((s = olg__pbr_validate_msg(r, f.p, f.n, f.fd->msg))) return s;
      fsp = f;
      has_sp = true;
      break;
    case 23:
      if ((s = olg__pbr_validate_msg(r, f.p, f.n, f.fd->msg))) return s;
      lists[PBX_L_SPARSES]++;
      break;
    default:
      if ((s = olg__pbr_keep_raw(r, &a->extra, &f))) return s;
    }
  }
  if (!has_name && (s = olg__pbr_set_flag(r, &a->extra, PBX_NO_NAME))) return s;
  r->at.attr = a->name;
  if (has_t && (s = olg__pbr_rd_tensor(r, &ft, &a->t))) return s;
  if (has_g) {
    olg_graph *sub;
    if ((s = olg_model_new_subgraph(r->m, &sub))) return s;
    sub->attached = true;
    sub->parent = parent;
    a->g = sub;
    if ((s = olg__pbr_rd_graph(r, &fg, sub))) return s;
  }
  if (has_tp) {
    olg_type *ty = olg__arena_alloc(r->m, sizeof *ty);
    if (!ty) return OLG_ERR_NOMEM;
    if ((s = olg__pbr_rd_type_top(r, &ftp, ty, false))) return s;
    a->tp = ty;
  }
  if (has_sp) {
    olg_pb_span *sp = olg__arena_alloc(r->m, sizeof *sp);
    if (!sp) return OLG_ERR_NOMEM;
    *sp = (olg_pb_span){fsp.p, fsp.n};
    a->sparse = sp;
  }
  /* lists */
  float *floats = NULL;
  int64_t *ints = NULL;
  olg_bytes *strings = NULL;
  olg_tensor **tensors = NULL;
  olg_graph **graphs = NULL;
  olg_pb_span *sparse_spans = NULL;
  const void **sparses = NULL;
  olg_type **tps = NULL;
  if (lists[PBX_L_FLOATS]) {
    size_t n = lists[PBX_L_FLOATS];
    uint64_t *tmp = olg__pbr_aalloc(r, n, sizeof *tmp);
    if (!tmp || !(floats = olg__pbr_aalloc(r, n, sizeof *floats))) return OLG_ERR_NOMEM;
    if ((s = olg__pbr_rep_fill(r, fa->p, end, md, 7, n, tmp))) return s;
    for (size_t k = 0; k < n; k++) {
      uint32_t b = (uint32_t)tmp[k];
      memcpy(&floats[k], &b, 4);
    }
  }
  if (lists[PBX_L_INTS]) {
    size_t n = lists[PBX_L_INTS];
    uint64_t *tmp = olg__pbr_aalloc(r, n, sizeof *tmp);
    if (!tmp) return OLG_ERR_NOMEM;
    if ((s = olg__pbr_rep_fill(r, fa->p, end, md, 8, n, tmp))) return s;
    ints = (int64_t *)tmp;
  }
  if ((lists[PBX_L_STRINGS] && !(strings = olg__pbr_aalloc(r, lists[PBX_L_STRINGS], sizeof *strings))) ||
      (lists[PBX_L_TENSORS] && !(tensors = olg__pbr_aalloc(r, lists[PBX_L_TENSORS], sizeof *tensors))) ||
      (lists[PBX_L_GRAPHS] && !(graphs = olg__pbr_aalloc(r, lists[PBX_L_GRAPHS], sizeof *graphs))) ||
      (lists[PBX_L_SPARSES] && (!(sparses = olg__pbr_aalloc(r, lists[PBX_L_SPARSES], sizeof *sparses)) ||
                                !(sparse_spans = olg__pbr_aalloc(r, lists[PBX_L_SPARSES], sizeof *sparse_spans)))) ||
      (lists[PBX_L_TPS] && !(tps = olg__pbr_aalloc(r, lists[PBX_L_TPS], sizeof *tps))))
    return OLG_ERR_NOMEM;
  if (lists[PBX_L_STRINGS] || lists[PBX_L_TENSORS] || lists[PBX_L_GRAPHS] ||
      lists[PBX_L_SPARSES] || lists[PBX_L_TPS]) {
    size_t ks = 0, kt = 0, kg = 0, ksp = 0, ktp = 0;
    for (p = fa->p; p < end;) {
      if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
      switch (f.no) {
      case 9: strings[ks++] = (olg_bytes){(const char *)f.p, f.n}; break;
      case 10: if ((s = olg__pbr_rd_tensor(r, &f, &tensors[kt++]))) return s; break;
      case 11: {
        olg_graph *sub;
        if ((s = olg_model_new_subgraph(r->m, &sub))) return s;
        sub->attached = true;
        sub->parent = parent;
        graphs[kg++] = sub;
        if ((s = olg__pbr_rd_graph(r, &f, sub))) return s;
        break;
      }
      case 15: {
        olg_type *ty = olg__arena_alloc(r->m, sizeof *ty);
        if (!ty) return OLG_ERR_NOMEM;
        if ((s = olg__pbr_rd_type_top(r, &f, ty, false))) return s;
        tps[ktp++] = ty;
        break;
      }
      case 23:
        sparse_spans[ksp] = (olg_pb_span){f.p, f.n};
        sparses[ksp] = &sparse_spans[ksp];
        ksp++;
        break;
      default: break;
      }
    }
  }
  a->floats = floats;
  a->ints = ints;
  a->strings = strings;
  a->tensors = tensors;
  a->graphs = graphs;
  a->sparses = sparses;
  a->tps = tps;

  /* the type, and how the writer's rule (write the fields the type names) must be overridden */
  uint8_t inferred = infer_attr_type(has_f, has_i, has_s, has_t, has_g, has_tp, has_sp, lists);
  if (!has_type) {
    a->type = inferred;
    if ((s = olg__pbr_set_flag(r, &a->extra, PBX_NO_ATTR_TYPE))) return s;
  } else if (type_v >= OLG_ATTR_UNDEFINED && type_v <= OLG_ATTR_TYPE_PROTOS) {
    a->type = (uint8_t)type_v;
  } else {
    a->type = inferred;
    olg_pbx *x = olg__pbr_pbx(r, &a->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->flags |= PBX_ATTR_TYPE_RAW;
    x->attr_type = type_v;
  }
  /* The payload the type names must be there: later stages take it without looking. (Lists
   * may be empty; a FLOAT or INT left out reads as 0, as protobuf has it.) */
  const char *missing = NULL;
  switch (a->type) {
  case OLG_ATTR_STRING: if (!has_s) missing = "s (a string)"; break;
  case OLG_ATTR_TENSOR: if (!has_t) missing = "t (a tensor)"; break;
  case OLG_ATTR_GRAPH: if (!has_g) missing = "g (a graph)"; break;
  case OLG_ATTR_SPARSE_TENSOR: if (!has_sp) missing = "sparse_tensor"; break;
  case OLG_ATTR_TYPE_PROTO: if (!has_tp) missing = "tp (a type)"; break;
  default: break;
  }
  if (missing) {
    char w[700];
    return olg__pbr_perr(r, fa->p, "%s has type %s and no %s%s", olg__pbr_where(r, w, sizeof w),
                attr_type_name(a->type), missing,
                a->ref_attr_name ? " (a reference to a function's attribute, ref_attr_name, "
                                   "is only valid inside a function)" : "");
  }
  int tl = olg__pb_attr_list(a->type);
  a->n = tl >= 0 ? lists[tl] : 0;
  bool want_f = a->type == OLG_ATTR_FLOAT, want_i = a->type == OLG_ATTR_INT,
       want_s = a->type == OLG_ATTR_STRING;
  if (has_f != want_f || has_i != want_i || has_s != want_s) {
    olg_pbx *x = olg__pbr_pbx(r, &a->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->flags |= PBX_ATTR_PRESENCE | (has_f ? PBX_ATTR_F : 0) | (has_i ? PBX_ATTR_I : 0) |
                (has_s ? PBX_ATTR_S : 0);
  }
  bool other_lists = false;
  for (int k = 0; k < PBX_L_COUNT; k++)
    if (lists[k] && k != tl) other_lists = true;
  if (other_lists) {
    olg_pbx *x = olg__pbr_pbx(r, &a->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->flags |= PBX_ATTR_LISTS;
    for (int k = 0; k < PBX_L_COUNT; k++) {
      if (lists[k] > UINT32_MAX) return olg__err(OLG_ERR_LIMIT, "attribute list too long");
      x->list_n[k] = (uint32_t)lists[k];
    }
  }
  r->at.attr = NULL;
  r->depth--;
  return OLG_OK;
}
