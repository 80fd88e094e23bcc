/* onnxlegal — the protobuf writer: the IR encoded as an ONNX ModelProto, streamed.
 *
 * One walk of the IR, run twice. The first run only counts: it records the length of every
 * sub-message (in the order they start) in a vector, bottom-up, so each length is computed once.
 * The second run emits: tag, the recorded length, the contents. Both runs execute the same code,
 * so they cannot disagree (the second checks it anyway). The serialized model is never held in
 * memory: bytes go through a 64 KiB staging buffer to the sink, and large runs (tensor bytes) go
 * to the sink straight from the tensor's memory. Memory is O(number of sub-messages) 8-byte
 * lengths, whatever the size of the tensors; time is linear in the size of the output.
 *
 * Which fields are written, in which order and under which conditions is decided in
 * pb_fields.inc, for this writer and the nanopb one alike; this file says how a field reaches
 * the wire (pbw_*) and drives the two runs, the sink and the external data file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h> /* copy_file_range, where SYS_copy_file_range says the kernel has it */

#include "onnxlegal/io.h"
#include "pb.h"

typedef struct enc enc;
typedef enc pbw; /* the default writer writes every message level through its one encoder */
#include "pb_fields.inc"

#define STAGE_SIZE (64 * 1024)
#define DIRECT_MIN (16 * 1024) /* runs at least this long bypass the staging buffer */
#define PROTOBUF_LIMIT 0x7fffffffu

struct enc {
  olg_pbw_common com; /* first: the failure, the depth, the external data options */
  bool emit;
  uint64_t pos; /* bytes produced so far (counted in the first run, emitted in the second) */
  uint64_t *sizes;
  size_t n_sizes, cap_sizes, cursor;
  const olg_allocator *a;
  /* the sink: an fd (>= 0) or a callback */
  int fd;
  olg_write_fn fn;
  void *ud;
  uint8_t *buf;
  size_t bn;
  uint64_t flushed;
  /* external data */
  int ext_fd;
  uint64_t ext_off;
  /* the source data file of the last tensor copied file to file (-1: none, or not usable) */
  const olg_ext_src *src;
  int src_fd;
  bool no_copy_range; /* copy_file_range refused (or ONNXLEGAL_NO_COPY_FILE_RANGE): plain copies */
  uint8_t *cbuf;      /* the plain copies' buffer, COPY_BUF bytes */
};

#define COPY_BUF (256 * 1024)

static void fail(enc *e, olg_status s) {
  if (!e->com.st) e->com.st = s;
}

/* ---------------------------------------------------------------------------------------- */
/* The sink */

static bool write_all(int fd, const void *p, size_t n, int64_t at) {
  const uint8_t *q = p;
  while (n) {
    size_t chunk = n > (1u << 30) ? (1u << 30) : n;
    ssize_t k = at >= 0 ? pwrite(fd, q, chunk, (off_t)at) : write(fd, q, chunk);
    if (k < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (k == 0) {
      errno = EIO;
      return false;
    }
    q += k;
    n -= (size_t)k;
    if (at >= 0) at += k;
  }
  return true;
}

static void sink(enc *e, const void *p, size_t n) {
  if (e->com.st || !n) return;
  if (e->fd >= 0) {
    if (!write_all(e->fd, p, n, -1))
      fail(e, olg__err(OLG_ERR_IO, "write failed after %" PRIu64 " bytes: %s", e->flushed,
                       strerror(errno)));
  } else if (e->fn(e->ud, p, n) != 0) {
    fail(e, olg__err(OLG_ERR_CALLBACK, "the write callback failed after %" PRIu64 " bytes",
                     e->flushed));
  }
  e->flushed += n;
}

static void flush(enc *e) {
  if (e->bn) sink(e, e->buf, e->bn);
  e->bn = 0;
}

static void out(enc *e, const void *p, size_t n) {
  e->pos += n;
  if (!e->emit || e->com.st || !n) return;
  if (n >= DIRECT_MIN) {
    flush(e);
    sink(e, p, n);
    return;
  }
  if (e->bn + n > STAGE_SIZE) flush(e);
  memcpy(e->buf + e->bn, p, n);
  e->bn += n;
}

static inline uint8_t *put_varint(uint8_t *q, uint64_t v) {
  while (v >= 0x80) {
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *q++ = (uint8_t)v;
  return q;
}

/* Fields are written straight into the staging buffer when they fit (a tag and a length are at
 * most 10 bytes each): the common case costs no call per tag, length or short run. */
#define FIELD_ROOM(n) ((n) + 20)
#define INLINE_MAX 1024 /* longer runs go through out(): a flush may be due */

static inline bool stage_fits(const enc *e, size_t n) {
  return n <= INLINE_MAX && e->bn + FIELD_ROOM(n) <= STAGE_SIZE;
}

/* q: where the staging buffer's contents end now (after a write at e->buf + e->bn) */
static inline void stage_to(enc *e, const uint8_t *q) {
  size_t k = (size_t)(q - (e->buf + e->bn));
  e->bn += k;
  e->pos += k;
}

static void out_varint(enc *e, uint64_t v) {
  if (!e->emit) {
    e->pos += olg__pb_varint_size(v);
    return;
  }
  if (stage_fits(e, 0)) {
    stage_to(e, put_varint(e->buf + e->bn, v));
    return;
  }
  uint8_t b[10];
  out(e, b, (size_t)(put_varint(b, v) - b));
}

static void out_tag(enc *e, uint32_t no, int wt) { out_varint(e, (uint64_t)no << 3 | (unsigned)wt); }

static inline void enc_varint(enc *e, uint32_t no, uint64_t v) {
  uint64_t tag = (uint64_t)no << 3 | PB_VARINT;
  if (!e->emit) {
    e->pos += olg__pb_varint_size(tag) + olg__pb_varint_size(v);
  } else if (stage_fits(e, 0)) {
    stage_to(e, put_varint(put_varint(e->buf + e->bn, tag), v));
  } else {
    out_varint(e, tag);
    out_varint(e, v);
  }
}

static inline void enc_bytes(enc *e, uint32_t no, const void *p, size_t n) {
  uint64_t tag = (uint64_t)no << 3 | PB_LEN;
  if (!e->emit) {
    e->pos += olg__pb_varint_size(tag) + olg__pb_varint_size(n) + n;
  } else if (stage_fits(e, n)) {
    uint8_t *q = put_varint(put_varint(e->buf + e->bn, tag), n);
    memcpy(q, p, n);
    stage_to(e, q + n);
  } else {
    out_varint(e, tag);
    out_varint(e, n);
    out(e, p, n);
  }
}

static void enc_fixed32(enc *e, uint32_t no, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  out_tag(e, no, PB_I32);
  out(e, b, 4);
}

/* Sub-messages (and packed fields): the first run records the length, the second uses it. */
typedef struct mark {
  uint64_t saved;
  size_t idx;
} mark;

static mark sub_begin(enc *e, uint32_t no) {
  mark k = {0, SIZE_MAX};
  out_tag(e, no, PB_LEN);
  if (!e->emit) {
    if (e->n_sizes == e->cap_sizes && !e->com.st) {
      size_t nc = e->cap_sizes ? e->cap_sizes * 2 : 1024;
      uint64_t *q = olg__realloc(e->a, e->sizes, e->cap_sizes * sizeof *q, nc * sizeof *q);
      if (!q) fail(e, OLG_ERR_NOMEM);
      else {
        e->sizes = q;
        e->cap_sizes = nc;
      }
    }
    if (e->n_sizes < e->cap_sizes) k.idx = e->n_sizes++;
    k.saved = e->pos;
    e->pos = 0;
  } else {
    uint64_t len = 0;
    if (e->cursor < e->n_sizes) len = e->sizes[e->cursor++];
    else fail(e, olg__err(OLG_ERR_STATE, "internal error: the writer's two runs disagree"));
    out_varint(e, len);
    k.saved = e->pos + len; /* where the sub-message must end */
  }
  return k;
}

static void sub_end(enc *e, mark k) {
  if (!e->emit) {
    uint64_t len = e->pos;
    if (k.idx != SIZE_MAX) e->sizes[k.idx] = len;
    e->pos = k.saved + olg__pb_varint_size(len) + len;
  } else if (e->pos != k.saved) {
    fail(e, olg__err(OLG_ERR_STATE, "internal error: a sub-message's length changed between the "
                     "writer's two runs"));
  }
}

/* ---------------------------------------------------------------------------------------- */
/* How a field reaches the wire, for the description in pb_fields.inc */

static olg_pbw_common *pbw_common(const pbw *w) { return &((enc *)w)->com; }

static bool pbw_varint(const pbw *w, uint32_t no, uint64_t v) {
  enc *e = (enc *)w;
  enc_varint(e, no, v);
  return !e->com.st;
}

static bool pbw_bytes(const pbw *w, uint32_t no, const void *p, size_t n) {
  enc *e = (enc *)w;
  enc_bytes(e, no, p, n);
  return !e->com.st;
}

/* A C string. The emitting run copies a short one while it looks for its end (one pass over the
 * bytes instead of strlen's and memcpy's, which cost most of a node's time) and puts its length
 * byte before it afterwards; a string of 128 bytes or more takes the general way. */
static bool pbw_str(const pbw *w, uint32_t no, const char *s) {
  enc *e = (enc *)w;
  if (e->emit && stage_fits(e, 128)) {
    size_t i = strnlen(s, 127); /* libc's, word at a time: a name is a few words */
    if (i < 127) {
      uint8_t *q = put_varint(e->buf + e->bn, (uint64_t)no << 3 | PB_LEN), *d = q + 1;
      memcpy(d, s, i);
      *q = (uint8_t)i;
      stage_to(e, d + i);
      return !e->com.st;
    }
  }
  enc_bytes(e, no, s, strlen(s));
  return !e->com.st;
}

static bool pbw_fixed32(const pbw *w, uint32_t no, uint32_t v) {
  enc *e = (enc *)w;
  enc_fixed32(e, no, v);
  return !e->com.st;
}

static bool pbw_bare_varint(const pbw *w, uint64_t v) {
  enc *e = (enc *)w;
  out_varint(e, v);
  return !e->com.st;
}

static bool pbw_raw(const pbw *w, const void *p, size_t n) {
  enc *e = (enc *)w;
  out(e, p, n);
  return !e->com.st;
}

static bool pbw_sub(const pbw *w, uint32_t no, pbw_body body, const void *obj, const void *aux) {
  enc *e = (enc *)w;
  mark k = sub_begin(e, no);
  bool ok = body(w, obj, aux);
  sub_end(e, k);
  return ok && !e->com.st;
}

/* The tensor's data at offset at of fd, little-endian: on a big-endian host swapped through a
 * buffer (see ir.h), elsewhere written as it is. */
static bool write_data(int fd, const olg_tensor *t, int64_t at) {
  unsigned unit = olg__wire_swap_unit(t->dtype);
  if (!unit) return write_all(fd, t->data, t->nbytes, at);
  uint8_t buf[16384]; /* a multiple of every unit */
  const uint8_t *p = t->data;
  for (size_t i = 0; i < t->nbytes; i += sizeof buf) {
    size_t k = t->nbytes - i < sizeof buf ? t->nbytes - i : sizeof buf;
    olg__swap_bytes(buf, p + i, k, unit);
    if (!write_all(fd, buf, k, at + (int64_t)i)) return false;
  }
  return true;
}

/* The source data file, opened as the reader did, if it is still the file the reader mapped
 * (same inode, size and time of change): -1 otherwise, and the tensor is written from memory. */
static int src_open(enc *e, const olg_ext_src *x) {
  if (e->src == x) return e->src_fd;
  if (e->src_fd >= 0) close(e->src_fd);
  e->src = x;
  const char *why;
  int fd = olg__pb_open_beneath(x->dir, x->location, O_RDONLY, 0, &why);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != x->dev ||
                  (uint64_t)st.st_ino != x->ino || (uint64_t)st.st_size != x->size ||
                  (int64_t)st.st_mtim.tv_sec != x->mtime_s ||
                  (int64_t)st.st_mtim.tv_nsec != x->mtime_ns)) {
    close(fd);
    fd = -1;
  }
  return e->src_fd = fd;
}

/* n bytes at off of in to at of out. copy_file_range keeps them in the kernel (and shares
 * extents where the file system can); where it cannot (another file system, an old kernel, a
 * file system without it), a plain copy through a buffer. Short copies loop. */
static bool copy_range(enc *e, int in, uint64_t off, int out, uint64_t at, uint64_t n) {
#if defined(__linux__) && defined(SYS_copy_file_range)
  while (n && !e->no_copy_range) {
    long long io = (long long)off, oo = (long long)at;
    size_t chunk = n > (1u << 30) ? (1u << 30) : (size_t)n;
    long k = syscall(SYS_copy_file_range, in, &io, out, &oo, chunk, 0u);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP &&
          errno != EPERM)
        return false;
      e->no_copy_range = true;
      break;
    }
    if (k == 0) { /* the source ended early: it was cut after it was checked */
      errno = EIO;
      return false;
    }
    off += (uint64_t)k;
    at += (uint64_t)k;
    n -= (uint64_t)k;
  }
#endif
  if (n && !e->cbuf && !(e->cbuf = olg__malloc(e->a, COPY_BUF))) {
    errno = ENOMEM;
    return false;
  }
  while (n) {
    size_t chunk = n > COPY_BUF ? COPY_BUF : (size_t)n;
    ssize_t k = pread(in, e->cbuf, chunk, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;
      return false;
    }
    if (!write_all(out, e->cbuf, (size_t)k, (int64_t)at)) return false;
    off += (uint64_t)k;
    at += (uint64_t)k;
    n -= (uint64_t)k;
  }
  return true;
}

/* Reserves the tensor's place in the external data file; in the second run, writes it there:
 * file to file when its bytes are still those the reader found in a data file (their order
 * there is the file's, little-endian, whatever the host's), else from memory. */
static bool pbw_ext_place(const pbw *w, const olg_tensor *t, uint64_t *at_out) {
  enc *e = (enc *)w;
  uint64_t align = t->nbytes >= 65536 ? 4096 : 64;
  uint64_t at = (e->ext_off + align - 1) / align * align;
  e->ext_off = at + t->nbytes;
  *at_out = at;
  if (!e->emit || e->com.st || !t->nbytes) return !e->com.st;
  const olg_pbx *x = t->extra;
  int in = x && x->ext_src && x->ext_data == t->data && t->data ? src_open(e, x->ext_src) : -1;
  bool ok = in >= 0 ? copy_range(e, in, x->ext_off, e->ext_fd, at, t->nbytes)
                    : write_data(e->ext_fd, t, (int64_t)at);
  if (!ok)
    fail(e, olg__err(OLG_ERR_IO, "writing external data '%s': %s", e->com.ext_name,
                     strerror(errno)));
  return !e->com.st;
}

/* ---------------------------------------------------------------------------------------- */
/* Driving the two runs */

static olg_status run(enc *e, const olg_model *m) {
  e->emit = false;
  e->pos = 0;
  e->ext_off = 0;
  pbw_model(e, m);
  if (e->com.st) return e->com.st;
  uint64_t total = e->pos;
  if (total > PROTOBUF_LIMIT)
    return olg__err(OLG_ERR_LIMIT, "the model would be %" PRIu64 " bytes; protobuf readers refuse "
                    "more than 2 GiB: write large tensors as external data "
                    "(olg_write_options.external_data)", total);
  e->buf = olg__malloc(e->a, STAGE_SIZE);
  if (!e->buf) return OLG_ERR_NOMEM;
  e->emit = true;
  e->pos = 0;
  e->cursor = 0;
  e->ext_off = 0;
  pbw_model(e, m);
  flush(e);
  if (e->com.st) return e->com.st;
  if (e->pos != total || e->cursor != e->n_sizes)
    return olg__err(OLG_ERR_STATE, "internal error: the writer's two runs disagree");
  return OLG_OK;
}

OLG_API void olg_write_options_init(olg_write_options *o) {
  if (o) *o = (olg_write_options)OLG_WRITE_OPTIONS_INIT;
}

/* A fresh temporary name beside `name` in dirfd, opened for writing. */
static int open_temp(int dirfd, const char *name, char *tmp, size_t cap) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t dirlen = (size_t)(base - name);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  for (unsigned attempt = 0; attempt < 100; attempt++) {
    int k = snprintf(tmp, cap, "%.*s.%s.tmp-%ld-%lx-%u", (int)dirlen, name, base, (long)getpid(),
                     (unsigned long)ts.tv_nsec, attempt);
    if (k < 0 || (size_t)k >= cap) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

/* The external data file: checked name, temporary file beside it, renamed when all went well. */
typedef struct ext_out {
  int dirfd; /* the directory the file goes in */
  int fd;
  char tmp[PATH_MAX];
  char base[NAME_MAX + 1];
} ext_out;

static olg_status ext_open(ext_out *xo, const char *dir, const char *name) {
  xo->dirfd = xo->fd = -1;
  const char *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name;
  if (!*name || name[0] == '/' || strlen(base) > NAME_MAX || !*base || strcmp(base, "..") == 0 ||
      strcmp(base, ".") == 0)
    return olg__err(OLG_ERR_INVALID_ARG, "external data file '%s': a relative file name is "
                    "required (no absolute path, no '..')", name);
  for (const char *c = name; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
    if (strncmp(c, "../", 3) == 0 || strcmp(c, "..") == 0)
      return olg__err(OLG_ERR_INVALID_ARG, "external data file '%s': '..' is not allowed", name);
  if (slash) {
    char sub[PATH_MAX];
    size_t n = (size_t)(slash - name);
    if (n >= sizeof sub) return olg__err(OLG_ERR_INVALID_ARG, "external data file '%s': name too long", name);
    memcpy(sub, name, n);
    sub[n] = 0;
    const char *why;
    xo->dirfd = olg__pb_open_beneath(dir, sub, O_RDONLY | O_DIRECTORY, 0, &why);
    if (xo->dirfd < 0)
      return olg__err(why ? OLG_ERR_INVALID_ARG : OLG_ERR_IO, "external data file '%s' in '%s': %s",
                      name, dir, why ? why : strerror(errno));
  } else {
    xo->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (xo->dirfd < 0)
      return olg__err(OLG_ERR_IO, "external data directory '%s': %s", dir, strerror(errno));
  }
  strcpy(xo->base, base);
  xo->fd = open_temp(xo->dirfd, base, xo->tmp, sizeof xo->tmp);
  if (xo->fd < 0) {
    olg_status s = olg__err(OLG_ERR_IO, "cannot create the external data file '%s' in '%s': %s",
                            name, dir, strerror(errno));
    close(xo->dirfd);
    xo->dirfd = -1;
    return s;
  }
  return OLG_OK;
}

/* Keeps (rename into place) or drops the file; closes. */
static olg_status ext_close(ext_out *xo, bool keep) {
  olg_status s = OLG_OK;
  if (xo->fd >= 0) {
    if (close(xo->fd) != 0 && keep)
      s = olg__err(OLG_ERR_IO, "closing external data file '%s': %s", xo->base, strerror(errno));
    if (keep && !s && renameat(xo->dirfd, xo->tmp, xo->dirfd, xo->base) != 0)
      s = olg__err(OLG_ERR_IO, "renaming external data file to '%s': %s", xo->base, strerror(errno));
    if (!keep || s) unlinkat(xo->dirfd, xo->tmp, 0);
  }
  if (xo->dirfd >= 0) close(xo->dirfd);
  xo->fd = xo->dirfd = -1;
  return s;
}

static olg_status take_options(const olg_write_options *in, olg_write_options *o, const char *fn) {
  *o = (olg_write_options)OLG_WRITE_OPTIONS_INIT;
  if (!in) return OLG_OK;
  if (in->size < sizeof(size_t)) return olg__err(OLG_ERR_INVALID_ARG, "%s: options.size is not set", fn);
  memcpy(o, in, in->size < sizeof *o ? in->size : sizeof *o);
  o->size = sizeof *o;
  return OLG_OK;
}

/* Writes to fd (>= 0) or fn; ext_dir is where the external data file goes. */
static olg_status write_model(const olg_model *m, int fd, olg_write_fn fn, void *ud,
                              const olg_write_options *o, const char *ext_dir, const char *what) {
  enc e;
  memset(&e, 0, sizeof e);
  e.a = &m->alloc;
  e.fd = fd;
  e.fn = fn;
  e.ud = ud;
  e.ext_fd = -1;
  e.src_fd = -1;
  /* a test's way to the plain copy that file systems without copy_file_range take */
  e.no_copy_range = getenv("ONNXLEGAL_NO_COPY_FILE_RANGE") != NULL;
  ext_out xo = {-1, -1, {0}, {0}};
  olg_status s = OLG_OK;
  if (o->external_data) {
    if (!ext_dir)
      return olg__err(OLG_ERR_INVALID_ARG, "%s: external_data is set but not external_data_dir "
                      "(the directory the data file goes in)", what);
    if ((s = ext_open(&xo, ext_dir, o->external_data))) return s;
    e.com.ext_on = true;
    e.com.ext_name = o->external_data;
    e.com.ext_threshold = o->external_data_threshold;
    e.ext_fd = xo.fd;
  }
  s = run(&e, m);
  if (e.com.ext_on) {
    olg_status s2 = ext_close(&xo, s == OLG_OK);
    if (!s) s = s2;
  }
  olg__free(e.a, e.sizes, e.cap_sizes * sizeof *e.sizes);
  olg__free(e.a, e.buf, STAGE_SIZE);
  olg__free(e.a, e.cbuf, COPY_BUF);
  if (e.src_fd >= 0) close(e.src_fd);
  return s;
}

OLG_API olg_status olg_model_write_callback(const olg_model *m, olg_write_fn fn, void *ud,
                                            const olg_write_options *opts) {
  if (!m || !fn) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_callback: model and callback are required");
  olg_write_options o;
  olg_status s = take_options(opts, &o, "olg_model_write_callback");
  if (s) return s;
  s = write_model(m, -1, fn, ud, &o, o.external_data_dir, "olg_model_write_callback");
  return s ? olg__err_prefix(s, "writing the model") : OLG_OK;
}

OLG_API olg_status olg_model_write_fd(const olg_model *m, int fd, const olg_write_options *opts) {
  if (!m || fd < 0) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_fd: model and fd are required");
  olg_write_options o;
  olg_status s = take_options(opts, &o, "olg_model_write_fd");
  if (s) return s;
  s = write_model(m, fd, NULL, NULL, &o, o.external_data_dir, "olg_model_write_fd");
  return s ? olg__err_prefix(s, "writing the model to fd %d", fd) : OLG_OK;
}

/* path names something other than a regular file: a directory is refused; a device, pipe or
 * socket (/dev/stdout, /dev/null, a FIFO) is written into as it is -- a temporary file renamed
 * over it would replace the device with a file. External data would go beside it: refused. */
static olg_status write_special(const olg_model *m, const char *path, const struct stat *st,
                                const olg_write_options *o) {
  if (S_ISDIR(st->st_mode))
    return olg__err(OLG_ERR_INVALID_ARG, "cannot write '%s': it is a directory", path);
  if (o->external_data && *o->external_data)
    return olg__err(OLG_ERR_INVALID_ARG, "cannot write '%s' with external data: it is not a "
                    "regular file (a device or pipe), and the data file would go beside it", path);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return olg__err(OLG_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  olg_status s = write_model(m, fd, NULL, NULL, o, NULL, "olg_model_write_file");
  if (close(fd) != 0 && !s) s = olg__err(OLG_ERR_IO, "closing '%s': %s", path, strerror(errno));
  return s ? olg__err_prefix(s, "writing '%s'", path) : OLG_OK;
}

OLG_API olg_status olg_model_write_file(const olg_model *m, const char *path,
                                        const olg_write_options *opts) {
  if (!m || !path || !*path)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_file: model and path are required");
  olg_write_options o;
  olg_status s = take_options(opts, &o, "olg_model_write_file");
  if (s) return s;
  char dir[PATH_MAX], tmp[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash) strcpy(dir, ".");
  else if (slash == path) strcpy(dir, "/");
  else if ((size_t)(slash - path) < sizeof dir) {
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = 0;
  } else {
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_file: path too long");
  }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return write_special(m, path, &st, &o);
  int fd = open_temp(AT_FDCWD, path, tmp, sizeof tmp);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR)
      return olg__err(OLG_ERR_IO, "cannot write '%s': the directory '%s' does not exist", path, dir);
    if (e == EACCES || e == EPERM || e == EROFS)
      return olg__err(OLG_ERR_IO, "cannot write '%s': no permission to create files in '%s' (%s)",
                      path, dir, strerror(e));
    return olg__err(OLG_ERR_IO, "cannot write '%s': creating a temporary file in '%s': %s", path,
                    dir, strerror(e));
  }
  s = write_model(m, fd, NULL, NULL, &o, dir, "olg_model_write_file");
  if (close(fd) != 0 && !s) s = olg__err(OLG_ERR_IO, "closing '%s': %s", tmp, strerror(errno));
  if (!s && rename(tmp, path) != 0) s = olg__err(OLG_ERR_IO, "renaming to '%s': %s", path, strerror(errno));
  if (s) {
    unlink(tmp);
    return olg__err_prefix(s, "writing '%s'", path);
  }
  return OLG_OK;
}
