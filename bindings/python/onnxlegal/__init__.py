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

The shared library is found through $ONNXLEGAL_LIBRARY (which wins), next to this package,
in $ONNXLEGAL_BUILD/lib, in the source tree's build/lib, or by the system's loader. Failures
raise onnxlegal.Error subclasses carrying the C status code and the library's message.
"""
from . import _dtypes as dtypes
from ._lib import (CallbackError, DuplicateError, Error, InvalidArgumentError,
                   InvalidModelError, IOFailureError, LimitError, NoMemoryError, NotFoundError,
                   ParseError, RangeError, StateError, TypeMismatchError, UnsupportedError,
                   last_error, lib)
from ._model import Diag, Diags, Graph, Model, Node, Value
from ._convert import convert


def version():
    """The version of the loaded library, "MAJOR.MINOR.PATCH"."""
    return lib.olg_version_string().decode()


__version__ = version()

__all__ = [
    "Model", "Graph", "Value", "Node", "Diags", "Diag", "dtypes", "version", "last_error", "lib", "convert",
    "Error", "NoMemoryError", "InvalidArgumentError", "IOFailureError", "ParseError",
    "NotFoundError", "DuplicateError", "UnsupportedError", "InvalidModelError", "RangeError",
    "StateError", "LimitError", "CallbackError", "TypeMismatchError",
]
