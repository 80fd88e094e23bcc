/* onnxlegal — diagnostics: what the validator and the lowering found, node by node. */
#ifndef ONNXLEGAL_DIAG_H
#define ONNXLEGAL_DIAG_H
#include <stddef.h>
#include <stdint.h>
#include "alloc.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olg_diags olg_diags;
typedef enum olg_severity { OLG_NOTE = 0, OLG_WARNING = 1, OLG_ERROR = 2 } olg_severity;

/* allocator may be NULL (malloc). */
OLG_API olg_status olg_diags_new(olg_diags **out, const olg_allocator *allocator);
OLG_API void olg_diags_free(olg_diags *d);
OLG_API void olg_diags_clear(olg_diags *d);
OLG_API size_t olg_diags_count(const olg_diags *d);
/* How many have severity OLG_ERROR. */
OLG_API size_t olg_diags_error_count(const olg_diags *d);
/* Diagnostics that could not be recorded for want of memory: they are counted, never silently
 * dropped. */
OLG_API size_t olg_diags_lost(const olg_diags *d);

/* Adds one. code is a stable identifier (e.g. "OLG-CHECK-ATTR-TYPE"); node, domain, op may be
 * NULL or ""; opset is -1 when it does not apply. */
OLG_API olg_status olg_diags_add(olg_diags *d, olg_severity sev, const char *code,
                                 const char *node, const char *domain, const char *op,
                                 int64_t opset, const char *message);

/* Field accessors; strings are "" when unset, NULL only for an index out of range. */
OLG_API int olg_diag_severity(const olg_diags *d, size_t i);
OLG_API const char *olg_diag_code(const olg_diags *d, size_t i);
OLG_API const char *olg_diag_node(const olg_diags *d, size_t i);
OLG_API const char *olg_diag_domain(const olg_diags *d, size_t i);
OLG_API const char *olg_diag_op(const olg_diags *d, size_t i);
OLG_API int64_t olg_diag_opset(const olg_diags *d, size_t i);
OLG_API const char *olg_diag_message(const olg_diags *d, size_t i);
/* For a lowering refusal (olg_legalize): the lowest target opset at which the node lowers, with
 * its attributes and types (the symbolic is run at the opset a refusal names, and at the next one
 * named there, until it converts), when one exists; -1 otherwise (no opset works, or not a
 * refusal). */
OLG_API int64_t olg_diag_min_opset(const olg_diags *d, size_t i);
/* The node's place in its graph (what names an unnamed node), or -1 when unknown. */
OLG_API int64_t olg_diag_node_index(const olg_diags *d, size_t i);
/* The node's first output's name, or "" when unknown. */
OLG_API const char *olg_diag_output(const olg_diags *d, size_t i);
/* The one rendering of a diagnostic, which the CLI, C++ and Python print:
 *   "error OLG-LOWER-UNSUPPORTED: node 'n1' (Gelu, output 'y', opset 13): <message>"
 *   "error OLG-PROFILE-REFUSED: node #4 (Compress, output 'c', opset 9): <message>"
 *   "note OLG-TEST: <message>"            (no node)
 * the node by name, else by index; " [lowest opset that works: N]" appended for a refusal that
 * has one (olg_diag_min_opset). Writes at most cap bytes, NUL-terminated (buf may be NULL when
 * cap is 0); returns the full length, as snprintf does, 0 for an index out of range. */
OLG_API size_t olg_diag_format(const olg_diags *d, size_t i, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
