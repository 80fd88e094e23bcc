"""onnxlegal: build, read, write and print ONNX models through libonnxlegal (ctypes).

    import numpy as np, onnxlegal
    with onnxlegal.Model(opset=17) as m:
        g = m.graph
        x = g.add_input("x", np.float32, ["N", 3])
        w = g.add_initializer("w", np.ones((3, 4), np.float32))   # borrowed, not copied
        y = g.node("MatMul", [x, w])
        g.add_output(g.node("Relu", [y], outputs=["y"]))
        m.write("model.onnx")
        print(m.to_text())

    onnxlegal.convert("model.onnx", 11, "model11.onnx")      # another opset (see convert)

The shared library is found through $ONNXLEGAL_LIBRARY (which wins; the library or its folder),
inside this package (`pip install .` ships it there; `make lib` links it there in the source
tree), in $ONNXLEGAL_BUILD/lib, in the source tree's build/lib, or by the system's loader. Failures
raise onnxlegal.Error subclasses: those of the C status codes carry the code and the library's
message; ExportError (also a RuntimeError) is onnxlegal.torch.export's; a bad
opset, profile or report argument of convert or export is an InvalidArgumentError (also a
ValueError).
"""
from . import _dtypes as dtypes
from ._lib import (CallbackError, DuplicateError, Error, ExportError, InvalidArgumentError,
                   InvalidModelError, IOFailureError, LimitError, NoMemoryError, NotFoundError,
                   ParseError, RangeError, StateError, TypeMismatchError, UnsupportedError,
                   last_error, lib)
from ._model import Diag, Diags, Graph, Model, Node, Value
from ._convert import PROFILES, convert


def version():
    """The version of the loaded library, "MAJOR.MINOR.PATCH"."""
    return lib.olg_version_string().decode()


__version__ = version()


def op_versions(op, domain=""):
    """The opsets at which the ONNX op's versions begin, ascending (op_versions("Add") ==
    [1, 6, 7, 13, 14]); [] when the domain has no such op. From the library's own tables."""
    from ctypes import c_int
    d, o = domain.encode(), op.encode()
    n = lib.olg_schema_op_versions(d, o, None, 0)
    buf = (c_int * max(n, 1))()
    lib.olg_schema_op_versions(d, o, buf, n)
    return list(buf[:n])


def ops(domain=""):
    """Every op of a domain ("" the default one, "ai.onnx.ml", ...) in ONNX's tables, by name."""
    d = domain.encode()
    return [lib.olg_schema_op_name(d, i).decode() for i in range(lib.olg_schema_op_count(d))]


__all__ = [
    "Model", "Graph", "Value", "Node", "Diags", "Diag", "dtypes", "version", "last_error", "lib", "convert",
    "op_versions", "ops",
    "PROFILES", "Error", "ExportError", "NoMemoryError", "InvalidArgumentError", "IOFailureError", "ParseError",
    "NotFoundError", "DuplicateError", "UnsupportedError", "InvalidModelError", "RangeError",
    "StateError", "LimitError", "CallbackError", "TypeMismatchError",
]
