/* onnxlegal — the protobuf reader: TensorProto into olg_tensor, and external data (mapped,
 * never copied on a little-endian host) (pb_read.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_read.h"
#include "graph_impl.h" /* the name map: external data files by location */

/* ---------------------------------------------------------------------------------------- */
/* External data */

static bool parse_u64(const char *s, uint64_t *out) {
  if (!*s) return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return true;
}

/* Adds e (its location hashed h) to the reader's mapped files. */
static olg_status ext_add(rd *r, ext_file *e, uint32_t h) {
  const olg_allocator *a = &r->m->alloc;
  olg_status s = olg__grow(a, (void **)&r->ext_files, &r->ext_cap, (size_t)r->ext_n + 1,
                           sizeof *r->ext_files);
  if (!s) s = olg__g_namemap_put_h(a, &r->ext_by_location, e->location, (int32_t)r->ext_n, h);
  if (s) return s;
  r->ext_files[r->ext_n++] = e;
  return OLG_OK;
}

static olg_status ext_map(rd *r, const char *tname, const char *location, ext_file **out) {
  size_t ln = SIZE_MAX;
  uint32_t h = olg__name_hash(location, &ln);
  int32_t known = olg__g_namemap_get_h(&r->ext_by_location, location, ln, h);
  if (known >= 0) {
    *out = r->ext_files[known];
    return OLG_OK;
  }
  const char *why;
  char tw[800];
  olg__pbr_twhere(r, tname, tw, sizeof tw);
  /* opened without blocking, and only if it is a regular file (see olg__pb_open_beneath) */
  int fd = olg__pb_open_beneath(r->ext_dir, location, O_RDONLY, 0, &why);
  if (fd < 0) {
    if (why)
      return olg__err(OLG_ERR_INVALID_MODEL,
                      "%s: external data location '%s' %s (refused: it must name a regular "
                      "file beneath '%s')", tw, location, why, r->ext_dir);
    return olg__err(OLG_ERR_IO, "%s: external data '%s' in '%s': %s", tw, location,
                    r->ext_dir, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return olg__err(OLG_ERR_INVALID_MODEL, "%s: external data '%s' is not a regular file", tw,
                    location);
  }
  ext_file *e = olg__arena_alloc(r->m, sizeof *e);
  const char *loc = olg__strdup(r->m, location);
  if (!e || !loc) {
    close(fd);
    return OLG_ERR_NOMEM;
  }
  e->location = loc;
  e->size = (size_t)st.st_size;
  e->src = (olg_ext_src){olg__strdup(r->m, r->ext_dir), loc, (uint64_t)st.st_dev,
                         (uint64_t)st.st_ino, (uint64_t)st.st_size, (int64_t)st.st_mtim.tv_sec,
                         (int64_t)st.st_mtim.tv_nsec};
  if (!e->src.dir) {
    close(fd);
    return OLG_ERR_NOMEM;
  }
  e->addr = olg__pbr_empty_input;
  if (e->size) {
    void *a = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (a == MAP_FAILED) {
      int er = errno;
      close(fd);
      /* past some 65000 mappings (Linux's vm.max_map_count) mmap fails with ENOMEM: a model
       * saved one file per tensor can get there */
      return olg__err(OLG_ERR_IO, "%s: cannot map external data '%s': %s%s", tw, location,
                      strerror(er), er == ENOMEM && r->ext_n >= 1000
                                        ? " (after mapping as many data files as the system "
                                          "lets a process map, vm.max_map_count on Linux: "
                                          "save the tensors in fewer files)"
                                        : "");
    }
    olg_status s = olg__model_add_mapping(r->m, a, e->size);
    if (s) {
      munmap(a, e->size);
      close(fd);
      return s;
    }
    e->addr = a;
  }
  close(fd);
  olg_status s = ext_add(r, e, h);
  if (s) return s;
  *out = e;
  return OLG_OK;
}

static const void *wire_to_host(rd *r, olg_dtype dt, const void *p, size_t n);

static olg_status load_external(rd *r, const uint8_t *at, olg_tensor *t, bool exact_kvs,
                                uint64_t numel) {
  const char *tname = t->name ? t->name : "";
  char tw[800];
  olg__pbr_twhere(r, tname, tw, sizeof tw);
  const char *loc = NULL, *soff = NULL, *slen = NULL;
  for (size_t i = 0; i < t->n_external; i++) {
    const char *k = t->external[i].key;
    if (strcmp(k, "location") == 0) loc = t->external[i].value;
    else if (strcmp(k, "offset") == 0) soff = t->external[i].value;
    else if (strcmp(k, "length") == 0) slen = t->external[i].value;
  }
  if (!r->ext_dir)
    return olg__err(OLG_ERR_INVALID_ARG,
                    "%s has external data and there is no directory to find it in "
                    "(set olg_read_options.external_data_dir, or load_external_data = 0)", tw);
  if (t->dtype == OLG_STRING) return olg__pbr_perr(r, at, "%s: external data for a string tensor", tw);
  if (!loc || !*loc) return olg__pbr_perr(r, at, "%s: external data without a location", tw);
  if (!exact_kvs)
    return olg__err(OLG_ERR_INVALID_MODEL, "%s: external data entries hold NUL bytes "
                    "or unknown fields", tw);
  uint64_t o = 0, len = 0;
  if (soff && !parse_u64(soff, &o))
    return olg__pbr_perr(r, at, "%s: external data offset '%s' is not a non-negative integer", tw, soff);
  if (slen && !parse_u64(slen, &len))
    return olg__pbr_perr(r, at, "%s: external data length '%s' is not a non-negative integer", tw, slen);
  ext_file *e = NULL;
  olg_status s = ext_map(r, tname, loc, &e);
  if (s) return s;
  if (o > e->size)
    return olg__pbr_perr(r, at, "%s: external data offset %llu is past the end of '%s' (%zu bytes)", tw,
                (unsigned long long)o, loc, e->size);
  if (!slen) len = e->size - o;
  if (len > e->size - o)
    return olg__pbr_perr(r, at, "%s: external data [%llu, +%llu) is past the end of '%s' (%zu bytes)", tw,
                (unsigned long long)o, (unsigned long long)len, loc, e->size);
  /* the data must be the whole tensor: later stages read every element (a segment, which would
   * make it a part, is not interpreted) */
  size_t need = olg_dtype_nbytes(t->dtype, numel);
  if (!olg_dtype_bits(t->dtype)) {
    if (numel)
      return olg__pbr_perr(r, at, "%s: external data for element type %d, whose size is unknown", tw,
                  (int)t->dtype);
  } else if (need != len)
    return olg__pbr_perr(r, at, "%s: external data holds %llu bytes, %s of %llu elements needs %zu", tw,
                (unsigned long long)len, olg_dtype_name(t->dtype), (unsigned long long)numel, need);
  /* in place in the mapping, unless the host's byte order needs a swapped copy */
  const void *d = wire_to_host(r, t->dtype, e->addr + o, (size_t)len);
  if (!d) return OLG_ERR_NOMEM;
  t->data = d;
  t->nbytes = (size_t)len;
  t->encoding = OLG_ENC_RAW;
  t->owner = d == e->addr + o ? OLG_OWNER_MAPPED : OLG_OWNER_BORROWED;
  t->external_loaded = true;
  if (len) { /* where the bytes are, for a writer that copies them file to file */
    olg_pbx *x = olg__pbr_pbx(r, &t->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->ext_src = &e->src;
    x->ext_off = o;
    x->ext_data = d;
  }
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* TensorProto */

enum { DF_F32, DF_I32, DF_STR, DF_I64, DF_RAW, DF_F64, DF_U64, DF_COUNT };
static const uint32_t df_field[DF_COUNT] = {4, 5, 6, 7, 9, 10, 11};
static const char *const df_name[DF_COUNT] = {"float_data", "int32_data", "string_data", "int64_data",
                                              "raw_data", "double_data", "uint64_data"};

static int df_of_field(uint32_t no) {
  for (int i = 0; i < DF_COUNT; i++)
    if (df_field[i] == no) return i;
  return -1;
}

/* int32_data: bytes per entry in the native buffer, entries per element count, and whether the
 * entry is sign-extended. 0: the dtype does not go in int32_data. */
static unsigned i32_width(olg_dtype dt, bool *sign) {
  *sign = false;
  switch (dt) {
  case OLG_INT32: *sign = true; return 4;
  case OLG_INT16: *sign = true; return 2;
  case OLG_INT8: *sign = true; return 1;
  case OLG_UINT16: case OLG_FLOAT16: case OLG_BFLOAT16: return 2;
  case OLG_UINT8: case OLG_BOOL: case OLG_FLOAT8E4M3FN: case OLG_FLOAT8E4M3FNUZ:
  case OLG_FLOAT8E5M2: case OLG_FLOAT8E5M2FNUZ: case OLG_FLOAT8E8M0:
  case OLG_INT4: case OLG_UINT4: case OLG_FLOAT4E2M1: case OLG_INT2: case OLG_UINT2:
    return 1; /* sub-byte types: one packed byte per entry */
  default: return 0;
  }
}

/* What one data field needs: bytes per entry in the native buffer (0: wrong field for the
 * dtype), and how many entries numel elements take. */
static unsigned df_width(int df, olg_dtype dt, uint64_t numel, uint64_t *entries) {
  bool sign;
  *entries = numel;
  switch (df) {
  case DF_F32:
    if (dt == OLG_COMPLEX64) { *entries = numel * 2; return 4; }
    return dt == OLG_FLOAT ? 4 : 0;
  case DF_F64:
    if (dt == OLG_COMPLEX128) { *entries = numel * 2; return 8; }
    return dt == OLG_DOUBLE ? 8 : 0;
  case DF_I64: return dt == OLG_INT64 ? 8 : 0;
  case DF_U64: return dt == OLG_UINT64 ? 8 : dt == OLG_UINT32 ? 4 : 0;
  case DF_I32: {
    unsigned w = i32_width(dt, &sign);
    int bits = olg_dtype_bits(dt);
    if (w && bits < 8) *entries = olg_dtype_nbytes(dt, numel);
    return w;
  }
  default: return 0;
  }
}

/* The element type's name, or its number when it has none. */
static const char *dtype_label(const olg_tensor *t, char buf[32]) {
  const char *n = olg_dtype_name(t->dtype);
  if (n && t->has_dtype) return n;
  snprintf(buf, 32, "element type %d", (int)t->dtype);
  return buf;
}

/* Tensor bytes from the wire (little-endian) in the host's order: on a big-endian host a
 * swapped copy in the model's arena (NULL when out of memory), elsewhere the bytes themselves. */
static const void *wire_to_host(rd *r, olg_dtype dt, const void *p, size_t n) {
  unsigned unit = olg__wire_swap_unit(dt);
  if (!unit || !n) return p;
  void *q = olg__pbr_aalloc(r, n, 1);
  if (q) olg__swap_bytes(q, p, n, unit);
  return q;
}

static olg_status keep_data_verbatim(rd *r, olg_tensor *t, const uint8_t *p, const uint8_t *end) {
  olg_pbx *x = olg__pbr_pbx(r, &t->extra);
  if (!x) return OLG_ERR_NOMEM;
  pbf f;
  while (p < end) {
    olg_status s = olg__pbr_next(r, &p, end, DESC(tensor_proto), &f);
    if (s) return s;
    if (df_of_field(f.no) >= 0 && (s = olg__pbr_push_raw(r, &x->data_verbatim, &x->n_data_verbatim, &f)))
      return s;
  }
  x->data_snapshot = t->dtype == OLG_STRING ? (const void *)t->strings : t->data;
  return OLG_OK;
}

olg_status olg__pbr_rd_tensor(rd *r, const pbf *ft, olg_tensor **out) {
  msgdesc *md = DESC(tensor_proto);
  olg_status s = olg__pbr_enter(r, ft->p, md);
  if (s) return s;
  const uint8_t *p = ft->p, *end = p + ft->n;
  olg_tensor *t = olg__arena_alloc(r->m, sizeof *t);
  if (!t) return OLG_ERR_NOMEM;
  size_t n_dims = 0, cnt[DF_COUNT] = {0}, n_ext = 0;
  bool single_chunk[DF_COUNT] = {0};
  int chunks[DF_COUNT] = {0};
  pbf raw = {0}, loc = {0}, nmf = {0}, chunk[DF_COUNT];
  memset(chunk, 0, sizeof chunk);
  bool has_loc = false;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    int df = df_of_field(f.no);
    if (df >= 0 && df != DF_RAW && df != DF_STR) {
      if ((s = olg__pbr_rep_count(r, md, &f, &cnt[df]))) return s;
      chunks[df]++;
      chunk[df] = f;
      continue;
    }
    switch (f.no) {
    case 1: if ((s = olg__pbr_rep_count(r, md, &f, &n_dims))) return s; break;
    case 2: t->dtype = (int32_t)(uint32_t)f.v; t->has_dtype = true; break;
    case 3: if ((s = olg__pbr_keep_validated(r, &t->extra, &f))) return s; break;
    case 6: cnt[DF_STR]++; break;
    case 8: nmf = f; if (!(t->name = olg__pbr_sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 9: raw = f; cnt[DF_RAW] = 1; break;
    case 12: if ((s = olg__pbr_text(r, &t->extra, &f, &t->doc_string))) return s; break;
    case 13: n_ext++; break;
    case 14: loc = f; has_loc = true; break;
    case 16: if ((s = olg__pbr_keep_validated(r, &t->extra, &f))) return s; break;
    default: if ((s = olg__pbr_keep_raw(r, &t->extra, &f))) return s;
    }
  }
  for (int i = 0; i < DF_COUNT; i++) single_chunk[i] = chunks[i] == 1 && chunk[i].wt == PB_LEN;
  const char *tname = t->name ? t->name : "";
  char tw[800], dl[32];
  /* the tensor as the messages below name it: made when one is (a snprintf per tensor else) */
#define TW olg__pbr_twhere(r, tname, tw, sizeof tw)

  if (t->name && (s = olg__pbr_nul_name(r, nmf.p, nmf.n, "name", TW))) return s;
  /* dims */
  if (n_dims > INT32_MAX) return olg__pbr_perr(r, ft->p, "%s: too many dims", TW);
  t->rank = (int32_t)n_dims;
  if (n_dims) {
    uint64_t *d = olg__pbr_aalloc(r, n_dims, sizeof *d);
    if (!d) return OLG_ERR_NOMEM;
    if ((s = olg__pbr_rep_fill(r, ft->p, end, md, 1, n_dims, d))) return s;
    t->dims = (int64_t *)d; /* same size and representation: reinterpret in place */
    for (size_t i = 0; i < n_dims; i++) {
      if (t->dims[i] < 0)
        return olg__pbr_perr(r, ft->p, "%s: dims[%zu] is %lld", TW, i, (long long)t->dims[i]);
    }
  }
  uint64_t numel;
  if (!olg__shape_numel(t->rank, t->dims, &numel) || olg_dtype_nbytes(OLG_COMPLEX128, numel) == SIZE_MAX)
    return olg__err(OLG_ERR_LIMIT, "byte %zu: %s: the product of its dims overflows",
                    olg__pbr_off(r, ft->p), TW);

  /* data_location */
  int64_t location = 0;
  if (has_loc) {
    location = (int32_t)(uint32_t)loc.v;
    if (location == 0) {
      if ((s = olg__pbr_set_flag(r, &t->extra, PBX_LOC_DEFAULT))) return s;
    } else if (location != 1) {
      if ((s = olg__pbr_keep_raw(r, &t->extra, &loc))) return s;
      location = 0;
    }
  }
  bool external = location == 1;

  /* external_data entries: interpreted for external tensors, kept as they are otherwise */
  bool kvs_exact = true;
  if (n_ext) {
    if (external) {
      olg_kv *kv = olg__pbr_aalloc(r, n_ext, sizeof *kv);
      if (!kv) return OLG_ERR_NOMEM;
      if ((s = olg__pbr_rd_kvs(r, ft->p, end, md, 13, n_ext, kv, &t->extra))) return s;
      t->external = kv;
      t->n_external = n_ext;
      const olg_pbx *x = t->extra;
      kvs_exact = !x || !x->kv_verbatim;
    } else {
      for (p = ft->p; p < end;) {
        if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
        if (f.no == 13 && (s = olg__pbr_keep_raw(r, &t->extra, &f))) return s;
      }
    }
  }

  int present = 0, which = -1;
  for (int i = 0; i < DF_COUNT; i++)
    if (cnt[i]) { present++; which = i; }

  t->owner = OLG_OWNER_BORROWED;
  t->encoding = OLG_ENC_NONE;
  if (external) {
    t->encoding = OLG_ENC_EXTERNAL;
    if (present && (s = keep_data_verbatim(r, t, ft->p, end))) return s;
    if (r->load_ext && (s = load_external(r, ft->p, t, kvs_exact, numel))) return s;
    /* not loaded: data stays NULL and nbytes says how much it would be, which is how every
     * later stage tells an unloaded external tensor (olg__known: contents not known) */
    if (!r->load_ext && t->dtype != OLG_STRING && olg_dtype_bits(t->dtype))
      t->nbytes = olg_dtype_nbytes(t->dtype, numel);
    *out = t;
    r->depth--;
    return OLG_OK;
  }
  /* Every element a later stage may read must be there: data that is absent, or that the IR
   * cannot hold (several data fields, a field the element type does not go in), is refused
   * unless the tensor has no elements. A segment (a part of a larger tensor) does not excuse
   * data shorter than the dims: segments are not interpreted. */
  if (present == 0) {
    if (numel)
      return olg__pbr_perr(r, ft->p, "%s: %llu element%s of %s declared and no data (no raw_data, typed "
                  "data field or external data)", TW, (unsigned long long)numel,
                  numel == 1 ? "" : "s", dtype_label(t, dl));
    *out = t;
    r->depth--;
    return OLG_OK;
  }
  bool verbatim = present > 1;
  if (verbatim && numel) {
    int a = -1, b = -1;
    for (int i = 0; i < DF_COUNT; i++)
      if (cnt[i]) { if (a < 0) a = i; else if (b < 0) b = i; }
    return olg__pbr_perr(r, ft->p, "%s: data in both %s and %s (a tensor has one data field)", TW,
                df_name[a], df_name[b]);
  }
  if (!verbatim && which == DF_RAW) {
    int bits = olg_dtype_bits(t->dtype);
    if (t->dtype == OLG_STRING) {
      if (numel) return olg__pbr_perr(r, raw.start, "%s: raw_data for a string tensor (strings go in string_data)", TW);
      verbatim = true;
    } else {
      if (bits) {
        size_t need = olg_dtype_nbytes(t->dtype, numel);
        if (need != raw.n)
          return olg__pbr_perr(r, raw.start, "%s: raw_data is %zu bytes, %s of %llu elements needs %zu",
                      TW, raw.n, olg_dtype_name(t->dtype), (unsigned long long)numel, need);
      } else if (numel) {
        return olg__pbr_perr(r, raw.start, "%s: raw_data for element type %d, whose size is unknown", TW,
                    (int)t->dtype);
      }
      if (!(t->data = wire_to_host(r, t->dtype, raw.p, raw.n))) return OLG_ERR_NOMEM;
      t->nbytes = raw.n;
      t->encoding = OLG_ENC_RAW;
      t->owner = t->data == raw.p ? r->owner : OLG_OWNER_BORROWED;
    }
  } else if (!verbatim && which == DF_STR) {
    if (t->dtype != OLG_STRING) {
      if (numel) return olg__pbr_perr(r, ft->p, "%s: string_data cannot hold %s", TW, dtype_label(t, dl));
      verbatim = true;
    } else {
      if (cnt[DF_STR] != numel)
        return olg__pbr_perr(r, ft->p, "%s: string_data has %zu strings, %llu elements needed",
                    TW, cnt[DF_STR], (unsigned long long)numel);
      olg_bytes *str = olg__pbr_aalloc(r, cnt[DF_STR], sizeof *str);
      if (!str) return OLG_ERR_NOMEM;
      size_t i = 0;
      for (p = ft->p; p < end;) {
        if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
        if (f.no == 6) str[i++] = (olg_bytes){(const char *)f.p, f.n};
      }
      t->strings = str;
      t->n_strings = cnt[DF_STR];
      t->encoding = OLG_ENC_STRING;
    }
  } else if (!verbatim) {
    uint64_t entries;
    unsigned w = df_width(which, t->dtype, numel, &entries);
    if (!w) {
      if (numel) return olg__pbr_perr(r, ft->p, "%s: %s cannot hold %s", TW, df_name[which], dtype_label(t, dl));
      verbatim = true; /* a field that does not fit the dtype, and no elements */
    } else {
      if (cnt[which] != entries)
        return olg__pbr_perr(r, ft->p, "%s: %s has %zu values, %s of %llu elements needs %llu",
                    TW, df_name[which], cnt[which], olg_dtype_name(t->dtype),
                    (unsigned long long)numel, (unsigned long long)entries);
      size_t n = cnt[which];
      bool lossy = false;
      if ((which == DF_F32 || which == DF_F64) && single_chunk[which]) {
        /* packed little-endian floats: the elements' bytes (swapped on a big-endian host) */
        if (!(t->data = wire_to_host(r, t->dtype, chunk[which].p, chunk[which].n)))
          return OLG_ERR_NOMEM;
        t->owner = t->data == chunk[which].p ? r->owner : OLG_OWNER_BORROWED;
      } else {
        uint64_t *vals = olg__malloc(&r->m->alloc, (n ? n : 1) * sizeof *vals);
        uint8_t *buf = olg__pbr_aalloc(r, n ? n : 1, w);
        if (!vals || !buf) {
          olg__free(&r->m->alloc, vals, (n ? n : 1) * sizeof *vals);
          return OLG_ERR_NOMEM;
        }
        s = olg__pbr_rep_fill(r, ft->p, end, md, df_field[which], n, vals);
        if (!s) {
          bool sign = false;
          if (which == DF_I32) i32_width(t->dtype, &sign);
          for (size_t i = 0; i < n; i++) {
            uint64_t v = vals[i];
            if (which == DF_I32) {
              /* lossless when the entry is what the canonical writer gives back for the
               * native element */
              int32_t x = (int32_t)(uint32_t)v;
              uint32_t lo = (uint32_t)x & (w == 4 ? 0xffffffffu : w == 2 ? 0xffffu : 0xffu);
              int32_t canon = !sign ? (int32_t)lo
                              : w == 1 ? (int8_t)lo : w == 2 ? (int16_t)lo : (int32_t)lo;
              if (x != canon) lossy = true;
              v = lo;
            } else if (which == DF_U64 && w == 4 && v > 0xffffffffu) {
              lossy = true;
            }
            olg__store_uint(buf + i * w, v, w); /* decoded numbers: the host's order */
          }
        }
        olg__free(&r->m->alloc, vals, (n ? n : 1) * sizeof *vals);
        if (s) return s;
        t->data = buf;
        t->owner = OLG_OWNER_BORROWED; /* the model's arena */
      }
      t->nbytes = n * w;
      t->encoding = which == DF_F32 ? OLG_ENC_FLOAT : which == DF_F64 ? OLG_ENC_DOUBLE
                  : which == DF_I32 ? OLG_ENC_INT32 : which == DF_I64 ? OLG_ENC_INT64 : OLG_ENC_UINT64;
      if (lossy && (s = keep_data_verbatim(r, t, ft->p, end))) return s;
    }
  }
  if (verbatim) {
    t->data = NULL;
    t->nbytes = 0;
    t->strings = NULL;
    t->n_strings = 0;
    t->encoding = OLG_ENC_NONE;
    if ((s = keep_data_verbatim(r, t, ft->p, end))) return s;
  }
  *out = t;
  r->depth--;
  return OLG_OK;
}
#undef TW
