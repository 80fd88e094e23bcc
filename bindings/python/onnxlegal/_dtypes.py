"""Element types: ONNX's codes (olg_dtype), their names, and numpy dtypes."""
import numpy as np

from ._lib import dec, enc, lib

UNDEFINED = 0
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL, FLOAT16, DOUBLE = range(1, 12)
UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = range(12, 17)
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, UINT4, INT4 = range(17, 23)
FLOAT4E2M1, FLOAT8E8M0, UINT2, INT2 = range(23, 27)
DTYPE_MAX = INT2

_NUMPY = {
    FLOAT: np.float32, UINT8: np.uint8, INT8: np.int8, UINT16: np.uint16, INT16: np.int16,
    INT32: np.int32, INT64: np.int64, BOOL: np.bool_, FLOAT16: np.float16, DOUBLE: np.float64,
    UINT32: np.uint32, UINT64: np.uint64, COMPLEX64: np.complex64, COMPLEX128: np.complex128,
}
_FROM_NUMPY = {np.dtype(t): code for code, t in _NUMPY.items()}


def dtype_name(code):
    """ONNX's lower-case name of a code ("float", "int64", "bfloat16"), or None."""
    return dec(lib.olg_dtype_name(code))


def numpy_dtype(code):
    """The numpy dtype holding elements of `code`, or None (bfloat16, float8, int4, string...)."""
    t = _NUMPY.get(code)
    return np.dtype(t) if t is not None else None


def dtype_code(dt):
    """An olg_dtype code from a code (int), an ONNX name ("float", "bfloat16"), a numpy name
    ("float32") or a numpy dtype / scalar type."""
    if isinstance(dt, (bool, np.bool_)):
        raise TypeError("a bool is not an element type")
    if isinstance(dt, (int, np.integer)):
        if not 0 < int(dt) <= DTYPE_MAX:
            raise ValueError("unknown element type code %d" % dt)
        return int(dt)
    if isinstance(dt, str):
        code = lib.olg_dtype_from_name(enc(dt))
        if code:
            return code
    try:
        npdt = np.dtype(dt)
    except TypeError:
        raise TypeError("not an element type: %r" % (dt,)) from None
    if npdt.kind in "USO":
        return STRING
    code = _FROM_NUMPY.get(npdt.newbyteorder("="))
    if code is None:
        raise TypeError("numpy dtype %s has no ONNX element type" % npdt)
    return code
