"""Every legalize output is legal: each node model of libonnx-testdata is legalized to opsets 7,
9, 11, 13, 17 and 21 in this process (ctypes), and whatever olg_legalize returns OK must pass
olg_check (full, with inference) at that opset; a refusal must name the op and an opset."""
import glob
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
NODE = "/usr/share/libonnx-testdata/data/node"
MODELS = sorted(glob.glob(os.path.join(NODE, "*", "model.onnx")))
TARGETS = (7, 9, 11, 13, 17, 21)

pytestmark = pytest.mark.skipif(not MODELS, reason="libonnx-testdata is not installed")


def test_every_legalized_node_model_passes_check():
    import onnxlegal
    from onnxlegal.lowering import default_registry, legalize
    reg = default_registry()
    bad, unclear = [], []
    n_ok = n_refused = 0
    for path in MODELS:
        name = os.path.basename(os.path.dirname(path))
        try:
            src = onnxlegal.Model.read(path)
        except onnxlegal.Error:
            continue  # the reader's business (a model it refuses is not legalized)
        for target in TARGETS:
            d = onnxlegal.Diags()
            try:
                out = legalize(src, reg, opset=target, diags=d)
            except onnxlegal.Error as e:
                n_refused += 1
                errors = [x for x in d if x["severity"] == "error"]
                # the rendering names the op and the target opset (fields; the message is the reason)
                if not errors or not all(x["op"] and x["message"] and "opset %d" % target in x["text"]
                                         for x in errors):
                    unclear.append("%s -> %d: %s" % (name, target, str(e).splitlines()[0]))
                continue
            found = [x for x in out.check(full=True) if x["severity"] == "error"]
            if found:
                bad.append("%s -> %d: %s %s: %s" % (name, target, found[0]["code"], found[0]["op"],
                                                     found[0]["message"][:160]))
            else:
                n_ok += 1
    print("\nlegalize -> check: %d outputs pass, %d refused, %d fail check, %d unclear refusals"
          % (n_ok, n_refused, len(bad), len(unclear)))
    assert not bad, "\n".join(bad[:40])
    assert not unclear, "\n".join(unclear[:40])
