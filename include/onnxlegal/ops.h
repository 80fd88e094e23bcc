/* onnxlegal — ONNX's operator tables as this library knows them (the specification up to the
 * newest opset it carries): which ops a domain has and at which opsets each op's versions begin.
 * What `onnxlegal ops` and `onnxlegal info` print comes from here. No allocation, no state. */
#ifndef ONNXLEGAL_OPS_H
#define ONNXLEGAL_OPS_H
#include <stddef.h>
#include <stdint.h>
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest released opset of a domain ("" or "ai.onnx": the default domain; "ai.onnx.ml",
 * "ai.onnx.preview.training"), or -1 for a domain the tables do not have. */
OLG_API int olg_schema_domain_opset(const char *domain);
/* How many ops the domain has (0 for an unknown domain), and the i-th one's name in name order
 * (NULL when i is out of range). */
OLG_API size_t olg_schema_op_count(const char *domain);
OLG_API const char *olg_schema_op_name(const char *domain, size_t i);
/* The opsets at which op's versions begin, ascending (Add: 1, 6, 7, 13, 14): up to cap of them
 * written to since (which may be NULL when cap is 0); returns how many there are, 0 when the
 * domain has no such op. */
OLG_API size_t olg_schema_op_versions(const char *domain, const char *op, int *since, size_t cap);
/* 1 when a model importing the domain at `opset` may use op (a version begins at or below it and
 * is not deprecated), else 0. */
OLG_API int olg_schema_op_defined_at(const char *domain, const char *op, int64_t opset);

#ifdef __cplusplus
}
#endif
#endif
