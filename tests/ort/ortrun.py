"""Run ONNX models in ONNX Runtime from Python tests, many at a time.

Every numeric test goes through here. A whole batch of cases is written to a
temporary directory (models, raw input tensors, a manifest) and run by ONE
`node tests/ort/run.js` process, because starting Node and ORT per model would
dominate the test budget (DESIGN.md section 7). Standard library + numpy only.

    results = run_batch([(model, {"x": x}, {}), (model2, {"a": a, "b": b})])
    for r in results:
        if isinstance(r, str): ...            # the error text of that case
        else: r["y"]                           # dict of numpy arrays, output order

    outputs = run_one(model, {"x": x})         # raises OrtRunError on failure

A model is a path, bytes, or anything with SerializeToString() (an
onnx.ModelProto). Options are ORT session options passed through as they are,
e.g. {"graphOptimizationLevel": "disabled"} (default "all").
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ORT_DIR = Path(__file__).resolve().parent
RUN_JS = ORT_DIR / "run.js"
ORT_PACKAGE = ORT_DIR / "node_modules" / "onnxruntime-node"

# numpy dtype <-> ORT dtype name. bool is one byte 0/1 in both; float16 is
# the same IEEE half bit pattern in both, so raw bytes carry over unchanged.
_ORT_NAME = {
    np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
    np.dtype(np.float16): "float16", np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8",
    np.dtype(np.int16): "int16", np.dtype(np.uint16): "uint16",
    np.dtype(np.int32): "int32", np.dtype(np.uint32): "uint32",
    np.dtype(np.int64): "int64", np.dtype(np.uint64): "uint64",
}
_NP_DTYPE = {name: dt for dt, name in _ORT_NAME.items()}


class OrtRunError(RuntimeError):
    """A case failed in ONNX Runtime, or the runner itself could not run."""


def _check_runner():
    # Fail with the fix in the message: a bare ModuleNotFoundError from Node
    # would not say that the npm package is installed by `make deps`.
    if not ORT_PACKAGE.is_dir():
        raise OrtRunError(
            f"onnxruntime-node is not installed ({ORT_PACKAGE} is missing): "
            "run `make deps` or `npm --prefix tests/ort ci --ignore-scripts`")
    node = shutil.which("node")
    if node is None:
        raise OrtRunError("node (Node.js 18+) is not on PATH; it is needed to run ONNX Runtime")
    return node


def _model_bytes(model):
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if hasattr(model, "SerializeToString"):
        return model.SerializeToString()
    return None


def _write_input(arr, stem):
    """Writes one input array; returns its manifest entry {dtype, shape, file}."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "UO":
        # Strings have no fixed width, so they travel as a flat JSON list.
        path = stem.with_suffix(".json")
        path.write_text(json.dumps([str(s) for s in arr.reshape(-1)]))
        return {"dtype": "string", "shape": list(arr.shape), "file": path.name}
    try:
        name = _ORT_NAME[arr.dtype.newbyteorder("=")]
    except KeyError:
        raise OrtRunError(f"input dtype {arr.dtype} has no ONNX Runtime counterpart") from None
    path = stem.with_suffix(".bin")
    # Little-endian, C order: what run.js reads into a typed array.
    np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tofile(path)
    return {"dtype": name, "shape": list(arr.shape), "file": path.name}


def _read_output(rec):
    shape = tuple(rec["shape"])
    if rec["dtype"] == "string":
        with open(rec["file"], encoding="utf-8") as f:
            return np.array(json.load(f), dtype=object).reshape(shape)
    dtype = _NP_DTYPE[rec["dtype"]].newbyteorder("<")
    # fromfile of an empty file gives an empty array, and a 1-element one
    # reshapes to (), so empty and 0-d outputs need no special case.
    return np.fromfile(rec["file"], dtype=dtype).astype(dtype.newbyteorder("="), copy=False).reshape(shape)


def _prepare(cases, work):
    """Writes models, inputs and the manifest; returns the manifest's cases."""
    entries = []
    for i, case in enumerate(cases):
        if len(case) == 2:
            (model, inputs), options = case, None
        else:
            model, inputs, options = case
        cdir = work / f"c{i}"
        cdir.mkdir()
        data = _model_bytes(model)
        if data is not None:
            (cdir / "model.onnx").write_bytes(data)
            model_path = f"c{i}/model.onnx"
        else:
            model_path = str(Path(model).resolve())
        ins = {}
        for k, (name, arr) in enumerate(inputs.items()):
            ent = _write_input(arr, cdir / f"in{k}")
            ent["file"] = f"c{i}/{ent['file']}"
            ins[name] = ent
        entries.append({"id": str(i), "model": model_path, "inputs": ins,
                        "outputs": f"c{i}/out", "options": dict(options or {})})
    return entries


def _run_node(node, entries, work, tag, timeout):
    """Runs run.js over entries; returns the records of the cases it finished."""
    manifest = work / f"manifest{tag}.json"
    manifest.write_text(json.dumps({"cases": entries}))
    out, log = work / f"results{tag}.json", work / f"results{tag}.ndjson"
    proc = subprocess.run([node, str(RUN_JS), str(manifest), "--out", str(out), "--log", str(log)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                          text=True, errors="replace")
    if proc.returncode == 0:
        return json.loads(out.read_text())["results"], None
    # The process died (a native crash in ORT, or a runner bug): keep what
    # the log says finished, and hand back the error for the case that was running.
    done = []
    if log.exists():
        done = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    why = f"ONNX Runtime runner exited with status {proc.returncode}: {proc.stderr.strip()[-2000:]}"
    return done, why


def run_batch(cases, workdir=None, timeout=None):
    """Runs every case in one Node process.

    cases: iterable of (model, {input_name: array}) or (model, inputs, options).
    workdir: where to write the batch (kept, for debugging); default a temp
    dir that is removed afterwards. timeout: seconds for the whole batch.
    Returns one result per case, in order: a dict {output_name: numpy array}
    in the model's output order, or a str with the error text.
    """
    cases = list(cases)
    node = _check_runner()
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="ortrun-")
        work = Path(tmp.name)
    else:
        work = Path(workdir)
        work.mkdir(parents=True, exist_ok=True)
    try:
        entries = _prepare(cases, work)
        results = [None] * len(entries)
        pending, tag = entries, 0
        # A native crash kills the whole process; mark the case that was
        # running as failed and start again after it, so one bad model costs
        # one case, not the batch.
        while pending:
            done, why = _run_node(node, pending, work, tag, timeout)
            for rec in done:
                i = int(rec["id"])
                if rec["ok"]:
                    results[i] = {o["name"]: _read_output(o) for o in rec["outputs"]}
                else:
                    results[i] = rec["error"]
            if why is None:
                break
            if len(done) >= len(pending):
                raise OrtRunError(why)  # every case finished: the runner itself failed
            results[int(pending[len(done)]["id"])] = why
            pending, tag = pending[len(done) + 1:], tag + 1
        return results
    finally:
        if tmp is not None:
            tmp.cleanup()


def run_one(model, inputs, options=None, workdir=None):
    """Runs one model; returns {output_name: array} or raises OrtRunError."""
    (result,) = run_batch([(model, inputs, options)], workdir=workdir)
    if isinstance(result, str):
        raise OrtRunError(result)
    return result
