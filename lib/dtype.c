/* onnxlegal — element type names and sizes. */
#include <string.h>

#include "ir.h"

static const struct { const char *name; int bits; } dtypes[OLG_DTYPE_MAX + 1] = {
  [OLG_UNDEFINED] = {"undefined", 0}, [OLG_FLOAT] = {"float", 32},
  [OLG_UINT8] = {"uint8", 8}, [OLG_INT8] = {"int8", 8},
  [OLG_UINT16] = {"uint16", 16}, [OLG_INT16] = {"int16", 16},
  [OLG_INT32] = {"int32", 32}, [OLG_INT64] = {"int64", 64},
  [OLG_STRING] = {"string", 0}, [OLG_BOOL] = {"bool", 8},
  [OLG_FLOAT16] = {"float16", 16}, [OLG_DOUBLE] = {"double", 64},
  [OLG_UINT32] = {"uint32", 32}, [OLG_UINT64] = {"uint64", 64},
  [OLG_COMPLEX64] = {"complex64", 64}, [OLG_COMPLEX128] = {"complex128", 128},
  [OLG_BFLOAT16] = {"bfloat16", 16}, [OLG_FLOAT8E4M3FN] = {"float8e4m3fn", 8},
  [OLG_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", 8}, [OLG_FLOAT8E5M2] = {"float8e5m2", 8},
  [OLG_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", 8}, [OLG_UINT4] = {"uint4", 4},
  [OLG_INT4] = {"int4", 4}, [OLG_FLOAT4E2M1] = {"float4e2m1", 4},
  [OLG_FLOAT8E8M0] = {"float8e8m0", 8}, [OLG_UINT2] = {"uint2", 2}, [OLG_INT2] = {"int2", 2},
};

OLG_API const char *olg_dtype_name(olg_dtype t) {
  return t >= 0 && t <= OLG_DTYPE_MAX ? dtypes[t].name : NULL;
}

OLG_API olg_dtype olg_dtype_from_name(const char *name) {
  if (!name) return OLG_UNDEFINED;
  for (int t = 1; t <= OLG_DTYPE_MAX; t++)
    if (strcmp(dtypes[t].name, name) == 0) return t;
  return OLG_UNDEFINED;
}

OLG_API int olg_dtype_bits(olg_dtype t) {
  return t > 0 && t <= OLG_DTYPE_MAX ? dtypes[t].bits : 0;
}

OLG_API size_t olg_dtype_nbytes(olg_dtype t, uint64_t n) {
  int bits = olg_dtype_bits(t);
  uint64_t total;
  if (bits == 0 || __builtin_mul_overflow(n, (uint64_t)bits, &total) || total > SIZE_MAX - 7)
    return SIZE_MAX;
  return (size_t)((total + 7) / 8);
}

/* For the wire's byte order: the reader's and the default writer's, and the nanopb writer's on a
 * big-endian host (left out otherwise: the minimal configuration's 64 KiB). */
#if OLG_BIG_ENDIAN || !defined(OLG_CONFIG_NO_READER) || !defined(OLG_CONFIG_NO_PROTOBUF_WRITER)
unsigned olg__dtype_swap_unit(olg_dtype t) {
  switch (t) {
  case OLG_UINT16: case OLG_INT16: case OLG_FLOAT16: case OLG_BFLOAT16: return 2;
  case OLG_FLOAT: case OLG_INT32: case OLG_UINT32: case OLG_COMPLEX64: return 4;
  case OLG_DOUBLE: case OLG_INT64: case OLG_UINT64: case OLG_COMPLEX128: return 8;
  default: return 0;
  }
}

void olg__swap_bytes(void *dst, const void *src, size_t n, unsigned unit) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  size_t i = 0;
  if (unit > 1)
    for (; i + unit <= n; i += unit)
      for (unsigned a = 0, b = unit - 1; a <= b; a++, b--) {
        uint8_t x = s[i + a], y = s[i + b]; /* both read first: dst may be src */
        d[i + a] = y;
        d[i + b] = x;
      }
  if (d != s && i < n) memmove(d + i, s + i, n - i);
}
#endif
