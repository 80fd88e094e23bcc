/* onnxlegal — a buffered sink over an olg_write_fn, shared by the text and Graphviz printers.
 *
 * Writes are buffered and the first callback failure is sticky: later writes are dropped and
 * olg__out_finish reports OLG_ERR_CALLBACK, so a printer need not check every write. */
#ifndef OLG_PRINTER_H
#define OLG_PRINTER_H
#include <stddef.h>
#include <stdint.h>

#include "onnxlegal/io.h"
#include "util.h"

#define OLG_OUT_BUF 8192

typedef struct olg_out {
  olg_write_fn fn;
  void *ud;
  const char *what; /* named in the error message, e.g. "olg_model_print_text" */
  size_t n;         /* bytes in buf */
  uint64_t total;   /* bytes handed to fn so far */
  olg_status status;
  uint64_t max_elements; /* text: tensors with more elements print as "{...}" (0: all) */
  char buf[OLG_OUT_BUF];
} olg_out;

void olg__out_init(olg_out *o, olg_write_fn fn, void *ud, const char *what);
void olg__out_bytes(olg_out *o, const void *p, size_t n);
void olg__out_str(olg_out *o, const char *s);
void olg__out_char(olg_out *o, char c);
void olg__out_fmt(olg_out *o, const char *fmt, ...) OLG_PRINTF(2, 3);
void olg__out_indent(olg_out *o, int levels); /* two spaces per level */
/* Flushes; returns the sticky status (OLG_ERR_CALLBACK with the message set) or OLG_OK. */
olg_status olg__out_finish(olg_out *o);

/* "%.9g" / "%.17g" that reads back as the same float / double, with inf, -inf and nan spelled
 * as ONNX's text syntax reads them. force_point adds ".0" to an integral-looking number, so that
 * the syntax sees a float literal. buf must hold 40 bytes. */
void olg__fmt_float(char *buf, double v, int digits, int force_point);

/* A value type as the text syntax writes it ("float[N,3]", "seq(int64)"), into buf of cap >= 8
 * bytes, cut with "..." when it does not fit; "" for no type. Returns the length. */
struct olg_type;
size_t olg__type_str(char *buf, size_t cap, const struct olg_type *t);

#endif
