"""The ONNX backend node tests of libonnx-testdata as cases to run in ONNX Runtime: one place
for loading a test's model inputs and stored outputs, and for comparing ORT's outputs with them
(test_convert_corpus.py, test_legalize_onnx_corpus.py, test_profile_ort.py)."""
import glob
import os

import numpy as np

NODE = "/usr/share/libonnx-testdata/data/node"
TESTS = sorted(glob.glob(os.path.join(NODE, "*", "model.onnx")))


def ordered(d, prefix):
    """input_0.pb, input_1.pb, ... (numerically, not as strings)."""
    files = glob.glob(os.path.join(d, prefix + "_*.pb"))
    return sorted(files, key=lambda f: int(f.rsplit("_", 1)[1][:-3]))


def load_case(path):
    """(source opset, feeds, output names, expected outputs) or None for what is out of scope:
    other domains, non-tensor or string inputs and outputs."""
    import onnx
    from onnx import numpy_helper
    pm = onnx.load(path)
    if any(i.domain not in ("", "ai.onnx") for i in pm.opset_import):
        return None
    opset = [i.version for i in pm.opset_import if i.domain in ("", "ai.onnx")][0]
    d = os.path.join(os.path.dirname(path), "test_data_set_0")
    try:
        ins = [numpy_helper.to_array(onnx.load_tensor(f)) for f in ordered(d, "input")]
        outs = [numpy_helper.to_array(onnx.load_tensor(f)) for f in ordered(d, "output")]
    except Exception:  # noqa: BLE001 - sequences, optionals: not tensors
        return None
    if any(a.dtype.kind in "USO" for a in ins + outs):
        return None
    inits = {i.name for i in pm.graph.initializer}
    names = [i.name for i in pm.graph.input if i.name not in inits]
    if len(names) != len(ins) or len(pm.graph.output) != len(outs):
        return None
    return opset, dict(zip(names, ins)), [o.name for o in pm.graph.output], outs


def matches(got, names, want):
    """ORT's outputs equal the stored ones: same shape and dtype; floats within 1e-4 + 1e-3
    relative (NaN where NaN), everything else exactly."""
    for n, w in zip(names, want):
        g = np.asarray(got[n])
        if g.shape != w.shape or g.dtype != w.dtype:
            return False
        if w.dtype.kind in "fc":
            if not np.allclose(g, w, atol=1e-4, rtol=1e-3, equal_nan=True):
                return False
        elif not np.array_equal(g, w):
            return False
    return True
