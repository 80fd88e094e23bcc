/* onnxlegal — tensor element types, numbered as ONNX's TensorProto.DataType. */
#ifndef ONNXLEGAL_DTYPE_H
#define ONNXLEGAL_DTYPE_H
#include <stddef.h>
#include <stdint.h>
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int olg_dtype;
enum {
  OLG_UNDEFINED = 0,
  OLG_FLOAT = 1, OLG_UINT8 = 2, OLG_INT8 = 3, OLG_UINT16 = 4, OLG_INT16 = 5, OLG_INT32 = 6,
  OLG_INT64 = 7, OLG_STRING = 8, OLG_BOOL = 9, OLG_FLOAT16 = 10, OLG_DOUBLE = 11,
  OLG_UINT32 = 12, OLG_UINT64 = 13, OLG_COMPLEX64 = 14, OLG_COMPLEX128 = 15, OLG_BFLOAT16 = 16,
  OLG_FLOAT8E4M3FN = 17, OLG_FLOAT8E4M3FNUZ = 18, OLG_FLOAT8E5M2 = 19, OLG_FLOAT8E5M2FNUZ = 20,
  OLG_UINT4 = 21, OLG_INT4 = 22, OLG_FLOAT4E2M1 = 23, OLG_FLOAT8E8M0 = 24,
  OLG_UINT2 = 25, OLG_INT2 = 26,
  OLG_DTYPE_MAX = 26
};

/* "float", "int64", "float8e4m3fn", ... (ONNX's lower-case names); NULL for an unknown code. */
OLG_API const char *olg_dtype_name(olg_dtype t);
/* The code for a name as olg_dtype_name gives it, or OLG_UNDEFINED. */
OLG_API olg_dtype olg_dtype_from_name(const char *name);
/* Bits per element (2, 4, 8, 16, 32, 64, 128); 0 for STRING and unknown codes. */
OLG_API int olg_dtype_bits(olg_dtype t);
/* Bytes needed for n elements, sub-byte types packed (rounded up); SIZE_MAX on overflow. */
OLG_API size_t olg_dtype_nbytes(olg_dtype t, uint64_t n);

#ifdef __cplusplus
}
#endif
#endif
