/* onnxlegal — the protobuf reader: TypeProto into olg_type (pb_read.h). */
#include <string.h>

#include "pb_read.h"

/* ---------------------------------------------------------------------------------------- */
/* TypeProto: into olg_type; anything the IR cannot express marks the whole TypeProto irregular,
 * and the outermost one is then kept verbatim. */

static olg_status rd_type(rd *r, const uint8_t *p, size_t n, olg_type *ty, bool *irr);

static olg_status rd_dim(rd *r, const pbf *fd_, olg_dim *d, bool *irr) {
  msgdesc *md = DESC(tensor_shape_proto__dimension);
  olg_status s = olg__pbr_enter(r, fd_->p, md);
  if (s) return s;
  const uint8_t *p = fd_->p, *end = p + fd_->n;
  int members = 0;
  d->value = OLG_DIM_UNKNOWN;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1:
      members++;
      d->param = NULL;
      d->value = (int64_t)f.v;
      if (d->value < 0) {
        d->value = OLG_DIM_UNKNOWN;
        *irr = true;
      }
      break;
    case 2:
      members++;
      d->value = OLG_DIM_UNKNOWN;
      if ((s = olg__pbr_no_nul(r, f.p, f.n, "dim_param"))) return s;
      if (!(d->param = olg__pbr_sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      break;
    case 3:
      if (!(d->denotation = olg__pbr_sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      break;
    default:
      *irr = true;
    }
  }
  if (members > 1) *irr = true;
  r->depth--;
  return OLG_OK;
}

static olg_status rd_shape(rd *r, const pbf *fs, olg_type *ty, bool *irr) {
  msgdesc *md = DESC(tensor_shape_proto);
  olg_status s = olg__pbr_enter(r, fs->p, md);
  if (s) return s;
  const uint8_t *p = fs->p, *end = p + fs->n;
  size_t count = 0;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 1) count++;
    else *irr = true;
  }
  if (count > INT32_MAX) return olg__pbr_perr(r, fs->start, "TensorShapeProto: too many dims");
  olg_dim *dims = count ? olg__pbr_aalloc(r, count, sizeof *dims) : NULL;
  if (count && !dims) return OLG_ERR_NOMEM;
  size_t i = 0;
  for (p = fs->p; p < end;) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 1 && (s = rd_dim(r, &f, &dims[i++], irr))) return s;
  }
  ty->has_shape = true;
  ty->rank = (int32_t)count;
  ty->dims = dims;
  r->depth--;
  return OLG_OK;
}

/* TypeProto.Tensor and TypeProto.SparseTensor (an element type that does not fit olg_type.elem8
 * goes to *tm) */
static olg_status rd_type_tensor(rd *r, const pbf *ft, msgdesc *md, olg_type *ty,
                                 olg_type_more *tm, bool *irr) {
  olg_status s = olg__pbr_enter(r, ft->p, md);
  if (s) return s;
  const uint8_t *p = ft->p, *end = p + ft->n;
  int shapes = 0;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 1) {
      olg_dtype dt = (int32_t)(uint32_t)f.v;
      ty->has_elem = true;
      ty->elem8 = dt >= 0 && dt < OLG_TYPE_ELEM_WIDE ? (uint8_t)dt : OLG_TYPE_ELEM_WIDE;
      tm->elem = ty->elem8 == OLG_TYPE_ELEM_WIDE ? dt : 0;
    } else if (f.no == 2) {
      if (++shapes > 1) *irr = true;
      if ((s = rd_shape(r, &f, ty, irr))) return s;
    } else {
      *irr = true;
    }
  }
  r->depth--;
  return OLG_OK;
}

/* The TypeProto field `no` of a Sequence/Optional/Map message, into a new inner type. */
static olg_status rd_inner(rd *r, const pbf *f, const olg_type **inner, bool *irr) {
  if (*inner) *irr = true; /* a second one: protobuf would merge them */
  olg_type *t = olg__arena_alloc(r->m, sizeof *t);
  if (!t) return OLG_ERR_NOMEM;
  *inner = t;
  return rd_type(r, f->p, f->n, t, irr);
}

/* Sequence, Optional, Map, Opaque: their parts go into tm (inner, key, opaque names). */
static olg_status rd_type_wrapper(rd *r, const pbf *fw, msgdesc *md, olg_type_more *tm,
                                  bool *irr) {
  olg_status s = olg__pbr_enter(r, fw->p, md);
  if (s) return s;
  const uint8_t *p = fw->p, *end = p + fw->n;
  bool has_key = false;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (md == DESC(type_proto__map)) {
      if (f.no == 1) {
        tm->key = (int32_t)(uint32_t)f.v;
        has_key = true;
      } else if (f.no == 2) {
        if ((s = rd_inner(r, &f, &tm->inner, irr))) return s;
      } else {
        *irr = true;
      }
    } else if (md == DESC(type_proto__opaque)) {
      if (f.no == 1) {
        if (!(tm->opaque_domain = olg__pbr_sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      } else if (f.no == 2) {
        if (!(tm->opaque_name = olg__pbr_sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      } else {
        *irr = true;
      }
    } else { /* Sequence, Optional */
      if (f.no == 1) {
        if ((s = rd_inner(r, &f, &tm->inner, irr))) return s;
      } else {
        *irr = true;
      }
    }
  }
  if (md == DESC(type_proto__map) && !has_key) *irr = true;
  r->depth--;
  return OLG_OK;
}

static olg_status rd_type(rd *r, const uint8_t *p, size_t n, olg_type *ty, bool *irr) {
  msgdesc *md = DESC(type_proto);
  olg_status s = olg__pbr_enter(r, p, md);
  if (s) return s;
  const uint8_t *end = p + n;
  int members = 0;
  memset(ty, 0, sizeof *ty);
  ty->rank = OLG_RANK_UNKNOWN;
  olg_type_more tm = {0}; /* ty's side record, made at the end if anything is in it */
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 6) {
      if (!(tm.denotation = olg__pbr_sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      continue;
    }
    if (!f.fd) {
      *irr = true;
      continue;
    }
    members++;
    /* oneof: the last member wins; its contents start afresh */
    memset(ty, 0, sizeof *ty);
    /* the denotation is not a member: it stays */
    tm.opaque_domain = tm.opaque_name = NULL;
    tm.inner = NULL;
    tm.key = tm.elem = 0;
    ty->rank = OLG_RANK_UNKNOWN;
    switch (f.no) {
    case 1:
      ty->kind = OLG_TYPE_TENSOR;
      s = rd_type_tensor(r, &f, DESC(type_proto__tensor), ty, &tm, irr);
      break;
    case 8:
      ty->kind = OLG_TYPE_SPARSE_TENSOR;
      s = rd_type_tensor(r, &f, DESC(type_proto__sparse_tensor), ty, &tm, irr);
      break;
    case 4:
      ty->kind = OLG_TYPE_SEQUENCE;
      s = rd_type_wrapper(r, &f, DESC(type_proto__sequence), &tm, irr);
      break;
    case 9:
      ty->kind = OLG_TYPE_OPTIONAL;
      s = rd_type_wrapper(r, &f, DESC(type_proto__optional), &tm, irr);
      break;
    case 5:
      ty->kind = OLG_TYPE_MAP;
      s = rd_type_wrapper(r, &f, DESC(type_proto__map), &tm, irr);
      break;
    case 7:
      ty->kind = OLG_TYPE_OPAQUE;
      s = rd_type_wrapper(r, &f, DESC(type_proto__opaque), &tm, irr);
      break;
    default:
      *irr = true;
    }
    if (s) return s;
  }
  if (members > 1) *irr = true;
  if ((s = olg__type_set_more(r->m, ty, &tm))) return s;
  r->depth--;
  return OLG_OK;
}

/* An outermost TypeProto (pb_read.h). */
olg_status olg__pbr_rd_type_top(rd *r, const pbf *f, olg_type *ty, bool keep_empty) {
  bool irr = false;
  olg_status s = rd_type(r, f->p, f->n, ty, &irr);
  if (s) return s;
  if (irr || (keep_empty && ty->kind == OLG_TYPE_NONE)) {
    olg_type was = *ty; /* the snapshot: ty as read, without the extra made now */
    olg_type_more *tm = olg__type_more_own(r->m, ty);
    olg_pbx *x = tm ? olg__pbr_pbx(r, &tm->extra) : NULL;
    if (!x) return OLG_ERR_NOMEM;
    x->has_type_verbatim = true;
    x->type_verbatim = (olg_pb_span){f->p, f->n};
    x->type_snapshot = was;
  }
  return OLG_OK;
}
