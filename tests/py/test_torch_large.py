"""A model over 2 GiB exports with no extra argument: its tensors go to external data beside the
file by themselves (protobuf cannot hold more than 2 GiB), the export's peak resident memory
stays within 0.1x the model's size above the process's before the call (the weights are
written from the torch tensors' own memory, never copied), and ONNX Runtime loads it and gives
torch's numbers. One heavy test: 10 nn.Linear(16384, 4096) layers, 2.5 GiB of float32. The
export runs in a child process, so that its memory high-water mark (VmHWM, reset just before the
call) is its own."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))

CHILD = textwrap.dedent(r"""
    import json, os, sys, warnings
    warnings.simplefilter("ignore")
    sys.path.insert(0, os.path.join(sys.argv[1], "bindings", "python"))
    import numpy as np
    import torch
    import torch.nn as nn
    import onnxlegal.torch as olt
    out = sys.argv[2]

    def status(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024

    g = torch.Generator().manual_seed(0)
    layers = []
    with torch.no_grad():
        for i in range(10):
            # wide then narrow: 16384x4096 and 4096x16384 alternately, 256 MiB each
            n_in, n_out = (4096, 16384) if i % 2 == 0 else (16384, 4096)
            lin = nn.Linear(n_in, n_out, bias=False, device="meta")
            lin.weight = nn.Parameter(torch.empty(n_out, n_in).uniform_(-0.02, 0.02, generator=g))
            layers.append(lin)
    model = nn.Sequential(*layers).eval()
    x = torch.randn(2, 4096, generator=g)
    with torch.no_grad():
        y = model(x)
    np.save(out + ".x.npy", x.numpy())
    np.save(out + ".y.npy", y.numpy())
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    before = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    rep = olt.export(model, (x,), out, input_names=["x"], output_names=["y"])
    peak = status("VmHWM")
    print("RESULT " + json.dumps({"size": size, "before": before, "peak": peak,
                                  "external": rep.get("external_data")}))
""")


def test_a_2_5_gib_model_goes_to_external_data_within_the_memory_bound(tmp_path):
    out = str(tmp_path / "big.onnx")
    proc = subprocess.run([sys.executable, "-c", CHILD, ROOT, out], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, proc.stderr[-3000:]
    res = json.loads(lines[0][len("RESULT "):])
    size = res["size"]
    assert size == 10 * 16384 * 4096 * 4 and size > 2 ** 31
    # external data, automatically, beside the model
    assert res["external"] and "automatic" in res["external"]
    data = out + ".data"
    assert os.path.getsize(out) < 2 ** 20
    assert os.path.getsize(data) >= size
    m = onnx.load(out, load_external_data=False)
    assert all(any(e.key == "location" and e.value == "big.onnx.data" for e in t.external_data)
               for t in m.graph.initializer)
    print("size %.2f GiB, RSS before %.2f GiB, peak %.2f GiB"
          % (size / 2 ** 30, res["before"] / 2 ** 30, res["peak"] / 2 ** 30))
    # memory: the export adds at most a tenth of the model's size to the process
    grown = res["peak"] - res["before"]
    assert grown <= 0.1 * size, "export grew the resident set by %.2f GiB (%.2fx the model)" % (
        grown / 2 ** 30, grown / size)
    # ONNX Runtime loads it and gives torch's numbers
    try:
        import ortrun
        ortrun._check_runner()
    except Exception as e:  # noqa: BLE001
        pytest.skip("ONNX Runtime is not available: %s" % e)
    x, y = np.load(out + ".x.npy"), np.load(out + ".y.npy")
    got = ortrun.run_one(out, {"x": x})["y"]
    np.testing.assert_allclose(got, y, rtol=1e-3, atol=1e-5 * max(1.0, float(np.abs(y).max())))
