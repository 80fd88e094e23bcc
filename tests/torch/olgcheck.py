"""olg_check (include/onnxlegal/check.h) from Python, for the torch tests and the demo.

The binding declares olg_check once its author adds it (onnxlegal.check); until then this calls
the exported C function through ctypes with NULL options (the defaults) and a diagnostics list."""
import ctypes

import onnxlegal
from onnxlegal import Diags, Model
from onnxlegal._lib import ERRORS, lib


def available():
    return hasattr(onnxlegal, "check") or hasattr(lib.cdll, "olg_check")


def olg_check(model):
    """Checks an onnxlegal.Model or a path; raises onnxlegal.Error with every error found."""
    if not isinstance(model, Model):
        model = Model.read(model)
    if hasattr(onnxlegal, "check"):
        return onnxlegal.check(model)
    fn = lib.cdll.olg_check
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    diags = Diags()
    status = fn(model.handle, None, diags.handle)
    if status != 0:
        errors = [d for d in diags if d["severity"] == "error"]
        raise ERRORS.get(status, onnxlegal.Error)(
            status, "olg_check: " + "; ".join("%s %s: %s" % (d["code"], d["node"], d["message"])
                                              for d in errors[:20]), "olg_check")
    return [d for d in diags if d["severity"] != "note"]
