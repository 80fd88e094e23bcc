/* onnxlegal — status codes and the thread-local error message. */
#ifndef ONNXLEGAL_STATUS_H
#define ONNXLEGAL_STATUS_H
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every function that can fail returns an olg_status. Values are never reused. */
typedef int olg_status;
enum {
  OLG_OK = 0,
  OLG_ERR_NOMEM = -1,         /* an allocation failed; nothing was changed */
  OLG_ERR_INVALID_ARG = -2,   /* a NULL handle, a bad id, an impossible size */
  OLG_ERR_IO = -3,            /* open, read, write, mmap failed (errno text in the message) */
  OLG_ERR_PARSE = -4,         /* the bytes are not a well-formed model */
  OLG_ERR_NOT_FOUND = -5,     /* no such name, key, op or file */
  OLG_ERR_DUPLICATE = -6,     /* a name that must be unique is taken */
  OLG_ERR_UNSUPPORTED = -7,   /* valid, but not supported (at this opset, in this mode) */
  OLG_ERR_INVALID_MODEL = -8, /* the model breaks a rule of ONNX (see the diagnostics) */
  OLG_ERR_RANGE = -9,         /* an index out of range */
  OLG_ERR_STATE = -10,        /* the call does not fit the object's state (frozen, not open) */
  OLG_ERR_LIMIT = -11,        /* a fixed limit was exceeded (nesting, size overflow) */
  OLG_ERR_CALLBACK = -12,     /* a caller's callback reported a failure */
  OLG_ERR_TYPE = -13          /* a value, argument or attribute of the wrong type */
};

/* The detailed message of the last failure on this thread ("" when none). It stays valid until the
 * next failing call on the same thread. */
OLG_API const char *olg_last_error(void);
/* The constant name of a status code, e.g. "OLG_ERR_NOMEM". */
OLG_API const char *olg_status_name(olg_status s);
/* Forget the last error on this thread. */
OLG_API void olg_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
