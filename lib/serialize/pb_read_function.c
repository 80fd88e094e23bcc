/* onnxlegal — the protobuf reader: FunctionProto (a model-local function) into olg_function.
 * The body (formal inputs, nodes, formal outputs) is read as a graph of the model by
 * pb_read_graph.c; value_info and unknown fields are kept verbatim for the writers. */
#include <string.h>

#include "pb_read.h"

olg_status olg__pbr_rd_function(rd *r, const pbf *ff, olg_function *fn) {
  msgdesc *md = DESC(function_proto);
  olg_status s = olg__pbr_enter(r, ff->p, md);
  if (s) return s;
  olg_model *m = r->m;
  const uint8_t *p, *end = ff->p + ff->n;
  size_t n_attr = 0, n_def = 0, n_opset = 0, n_meta = 0;
  pbf f;
  fn->domain = fn->name = "";
  for (p = ff->p; p < end;) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    const char **str = NULL;
    switch (f.no) {
    case 1: str = &fn->name; break;
    case 8: str = &fn->doc_string; break;
    case 10: str = &fn->domain; break;
    case 13: str = &fn->overload; break;
    case 4: case 5: case 7: break; /* the body, below */
    case 6: n_attr++; break;
    case 11: n_def++; break;
    case 9: n_opset++; break;
    case 14: n_meta++; break;
    case 12: if ((s = olg__pbr_keep_validated(r, &fn->extra, &f))) return s; break;
    default: if ((s = olg__pbr_keep_raw(r, &fn->extra, &f))) return s;
    }
    if (str && f.no != 8 &&
        (s = olg__pbr_nul_name(r, f.p, f.n, f.no == 1 ? "name" : f.no == 10 ? "domain" : "overload",
                               "FunctionProto")))
      return s;
    if (str == &fn->doc_string) {
      if ((s = olg__pbr_text(r, &fn->extra, &f, str))) return s;
    } else if (str && !(*str = olg__pbr_sdup(r, &f, NULL))) {
      return OLG_ERR_NOMEM;
    }
  }
  if (n_attr > UINT32_MAX / 2 || n_def > UINT32_MAX / 2 || n_opset > UINT32_MAX / 2 ||
      n_meta > UINT32_MAX / 2)
    return olg__pbr_perr(r, ff->p, "FunctionProto '%s': too many attributes or opset imports", fn->name);
  rpos outer = r->at;
  r->at = (rpos){fn->name, NULL, NULL, NULL, 0};
  if ((s = olg_model_new_subgraph(m, &fn->body)) || (s = olg_graph_set_name(fn->body, fn->name)))
    return s;
  if ((s = olg__pbr_rd_function_body(r, ff, fn->body))) return s;
  fn->attr_names = n_attr ? olg__pbr_aalloc(r, n_attr, sizeof *fn->attr_names) : NULL;
  fn->attr_defaults = n_def ? olg__pbr_aalloc(r, n_def, sizeof *fn->attr_defaults) : NULL;
  fn->opsets = n_opset ? olg__pbr_aalloc(r, n_opset, sizeof *fn->opsets) : NULL;
  fn->metadata = n_meta ? olg__pbr_aalloc(r, n_meta, sizeof *fn->metadata) : NULL;
  if ((n_attr && !fn->attr_names) || (n_def && !fn->attr_defaults) ||
      (n_opset && !fn->opsets) || (n_meta && !fn->metadata))
    return OLG_ERR_NOMEM;
  for (p = ff->p; p < end;) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 6) {
      if ((s = olg__pbr_no_nul(r, f.p, f.n, "attribute name"))) return s;
      if (!(fn->attr_names[fn->n_attr_names++] = olg__pbr_sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
    } else if (f.no == 11) {
      if ((s = olg__pbr_rd_function_attr(r, &f, fn->body, &fn->attr_defaults[fn->n_attr_defaults++])))
        return s;
    } else if (f.no == 9) {
      bool exact; /* an opset entry the IR cannot hold exactly is written from the IR */
      if ((s = olg__pbr_rd_opset(r, &f, &fn->opsets[fn->n_opsets++], &exact))) return s;
    }
  }
  if (n_meta && (s = olg__pbr_rd_kvs(r, ff->p, end, md, 14, n_meta, fn->metadata, &fn->extra)))
    return s;
  fn->n_metadata = (uint32_t)n_meta;
  r->at = outer;
  r->depth--;
  return OLG_OK;
}
