"""The numeric test harness: one-op source graphs, legalized at every opset, checked, run in
ONNX Runtime in one batch, compared with PyTorch (or NumPy).

A case is one call of a source op with concrete arguments:

    Case("view", [x, [6, -1]], torch.ops.aten.view)
    Case("slice", [Dyn(x, ["N", 4]), 0, 0, 4, 2], torch.ops.aten.slice, min_opset=10)   # needs Slice-10
    Case("squeeze", [Dyn(x, ["N", 3]), 1], ...)                          # a symbolic dim

Positional arguments are as in PyTorch's op schema. Each argument is:
    a numpy array      -> a graph input with that static shape
    Dyn(array, shape)  -> a graph input with a declared shape of int / str (symbolic) / None
    Init(array)        -> an initializer (its contents are known at export time)
    a list of arrays   -> a Tensor[] of graph inputs (Dyn/Init allowed as items)
    anything else      -> a literal (None, bool, int, float, str, int list, float list)
ref(*args) computes the expected outputs: with torch=True (default) array arguments arrive as
torch tensors and the result (tensor, tuple of tensors, Python number) is turned into numpy;
with torch=False they arrive as numpy arrays. The harness compares dtype, shape and values
(float: atol 1e-4, rtol 1e-3 unless the case says otherwise; integers and bools: exact).

At each opset of OPSETS the harness legalizes the case's source model. The coverage matrix
(the registry's own answer, Registry.lowering) says whether the op lowers there; a case may
raise the bar with min_opset (an argument combination that needs a newer op). Where the op is
claimed, legalization, olg_check, ONNX's checker (opset <= 17) and ONNX Runtime (opset <= 26)
must all succeed and match the reference; where it is not, legalization must be REFUSED with a
diagnostic naming the lowest opset that works. Opset 27 is checked by olg_check only.

Adding a family: write tests/numeric/cases_<family>.py with CASES = [Case(...), ...];
tests/py/test_numeric.py collects every such file and runs each as one ONNX Runtime batch.
"""
import ctypes
import os
import re
import sys
import time
from ctypes import byref, c_void_p

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for p in (os.path.join(ROOT, "bindings", "python"), os.path.join(ROOT, "tests", "ort")):
    if p not in sys.path:
        sys.path.insert(0, p)

import onnxlegal  # noqa: E402
from onnxlegal._lib import lib  # noqa: E402
from onnxlegal.lowering import default_registry, legalize  # noqa: E402

OPSETS = [7, 9, 10, 11, 13, 16, 17, 18, 20, 21, 23, 26, 27]
ORT_MAX_OPSET = 26      # onnxruntime-node 1.30 refuses 27 (in development when it shipped)
CHECKER_MAX_OPSET = 17  # Debian's python3-onnx 1.12


class Dyn:
    """A graph input declared with `shape` (ints, str symbolic dims, None unknown)."""

    def __init__(self, array, shape):
        self.array = np.asarray(array)
        self.shape = list(shape)


class Init:
    """An initializer: contents known at export time."""

    def __init__(self, array):
        self.array = np.asarray(array)


class Case:
    def __init__(self, op, args, ref, *, name=None, domain="aten", torch=True, min_opset=None,
                 atol=1e-4, rtol=1e-3, opsets=None, n_outputs=None, declare_outputs=False,
                 attrs=None, source_opset=None):
        self.op, self.args, self.ref, self.domain = op, list(args), ref, domain
        # ONNX-domain (and custom-domain) cases: named attributes, and the opset the source
        # model imports (an ONNX node is read at its source opset, written at the target's)
        self.attrs = dict(attrs or {})
        self.source_opset = source_opset
        self.torch = torch
        self.min_opset = min_opset
        self.atol, self.rtol = atol, rtol
        self.opsets = opsets or OPSETS
        self.n_outputs = n_outputs
        # declare the outputs' dtype and rank (dims unknown) as a tracing front end would, for
        # results whose rank inference cannot know (a data-dependent squeeze)
        self.declare_outputs = declare_outputs
        self.name = name or "%s%s(%s)%s" % (
            op, "-%d" % source_opset if source_opset else "",
            ", ".join(_arg_label(a) for a in self.args),
            "".join(" %s=%r" % kv for kv in sorted(self.attrs.items())))

    def __repr__(self):
        return self.name


def _arg_label(a):
    if isinstance(a, Dyn):
        return "dyn%s" % (tuple(a.shape),)
    if isinstance(a, Init):
        return "init%s" % (a.array.shape,)
    if isinstance(a, np.ndarray):
        return "%s%s" % (a.dtype, list(a.shape))
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, (np.ndarray, Dyn, Init)) for x in a):
        return "[%s]" % ", ".join(_arg_label(x) for x in a)
    return repr(a)


def _is_tensor(a):
    return isinstance(a, (np.ndarray, Dyn, Init))


def _array_of(a):
    return a.array if isinstance(a, (Dyn, Init)) else a


# ---- building the one-op source model ------------------------------------------------------

def build_source(case, n_outputs, want=None):
    """The one-op source model and the feeds {name: array} of its graph inputs."""
    m = onnxlegal.Model(opset={"": case.source_opset} if case.source_opset else None)
    g = m.graph
    feeds = {}

    def tensor(a):
        name = "in%d" % len(feeds)
        if isinstance(a, Init):
            return g.add_initializer("c%d" % len(g.initializers),
                                     np.ascontiguousarray(a.array).reshape(a.array.shape))
        arr = _array_of(a)
        shape = a.shape if isinstance(a, Dyn) else list(arr.shape)
        v = g.add_input(name, arr.dtype, shape)
        feeds[name] = np.ascontiguousarray(arr).reshape(arr.shape)  # 0-D stays 0-D
        return v

    args = []
    for a in case.args:
        if _is_tensor(a):
            args.append(tensor(a))
        elif isinstance(a, (list, tuple)) and a and any(_is_tensor(x) for x in a):
            args.append([None if x is None else tensor(x) for x in a])
        else:
            args.append(a)
    names = ["out%d" % i for i in range(n_outputs)]
    if case.domain == "" or case.attrs:
        outs = g.node(case.op, args, outputs=names, domain=case.domain, name="node0",
                      attrs=case.attrs)
    else:
        outs = g.source_node(case.domain, case.op, args, n_outputs=names, name="node0")
    for i, o in enumerate(outs if isinstance(outs, tuple) else (outs,)):
        if case.declare_outputs and want is not None:
            o.set_type(want[i].dtype, [None] * want[i].ndim)
        g.add_output(o)
    return m, feeds


# ---- the reference ------------------------------------------------------------------------

def reference(case):
    """The expected outputs as a list of numpy arrays."""
    if case.torch:
        import torch

        def conv(a):
            if _is_tensor(a):
                return torch.from_numpy(np.array(_array_of(a)))
            if isinstance(a, (list, tuple)) and a and any(_is_tensor(x) for x in a):
                return [None if x is None else conv(x) for x in a]
            return a
        with torch.no_grad():
            r = case.ref(*[conv(a) for a in case.args])
        items = list(r) if isinstance(r, (tuple, list)) else [r]
        out = []
        for t in items:
            if isinstance(t, torch.Tensor):
                out.append(t.detach().contiguous().numpy().copy())
            elif isinstance(t, bool):
                out.append(np.array(t))
            elif isinstance(t, int):
                out.append(np.array(t, dtype=np.int64))
            elif isinstance(t, float):
                out.append(np.array(t, dtype=np.float32))
            else:
                raise TypeError("%s: reference returned %r" % (case.name, type(t)))
        return out
    r = case.ref(*[_array_of(a) if _is_tensor(a) else
                   ([_array_of(x) for x in a] if isinstance(a, (list, tuple)) and a and
                    any(_is_tensor(x) for x in a) else a) for a in case.args])
    items = list(r) if isinstance(r, (tuple, list)) else [r]
    return [np.asarray(x) for x in items]


def compare(case, want, got):
    """None when got matches want, else a message."""
    if len(got) != len(want):
        return "%d outputs, expected %d" % (len(got), len(want))
    for i, (w, g) in enumerate(zip(want, got)):
        g = np.asarray(g)
        if g.dtype != w.dtype:
            return "output %d: dtype %s, expected %s" % (i, g.dtype, w.dtype)
        if g.shape != w.shape:
            return "output %d: shape %s, expected %s" % (i, g.shape, w.shape)
        if w.dtype.kind == "f":
            if not np.allclose(g, w, atol=case.atol, rtol=case.rtol, equal_nan=True):
                err = np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))
                return "output %d: values differ (max abs error %.3g)" % (i, err)
        elif not np.array_equal(g, w):
            return "output %d: values differ" % i
    return None


# ---- checks -------------------------------------------------------------------------------

def _olg_check(model):
    """olg_check's verdict: None when valid, else the error messages."""
    fn = getattr(lib, "olg_check", None)
    if fn is None:
        fn = lib.cdll.olg_check
        fn.restype, fn.argtypes = ctypes.c_int, [c_void_p, c_void_p, c_void_p]
    d = onnxlegal.Diags()
    try:
        s = fn(model.handle, None, d.handle)
        if s == 0:
            return None
        msgs = [x["message"] for x in d if x["severity"] == "error"]
        return "olg_check: %s" % ("; ".join(msgs[:3]) or onnxlegal.last_error())
    finally:
        d.close()


def _onnx_check(data):
    import onnx
    try:
        onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
        return None
    except Exception as e:  # noqa: BLE001 - the checker's own exception types vary by version
        return "onnx.checker: %s" % str(e).strip().splitlines()[0][:300]


_LOWEST = re.compile(r"opset (?:>= )?(\d+)|works is (\d+)|from opset (\d+)")


def _names_lowest(messages, lowest):
    for m in messages:
        for a, b, c in _LOWEST.findall(m):
            if int(a or b or c) == lowest:
                return True
    return False


# ---- running ------------------------------------------------------------------------------

class Result:
    def __init__(self, case, opset, status, detail=""):
        self.case, self.opset, self.status, self.detail = case, opset, status, detail

    def __repr__(self):
        return "%s @%d: %s %s" % (self.case.name, self.opset, self.status, self.detail)


def run_cases(cases, registry=None, opsets=None, log=None):
    """Runs every case at every opset; returns the list of Result (status "pass", "refused"
    (as the matrix says), or "fail")."""
    from ortrun import run_batch
    reg = registry or default_registry()
    results, pending, batch = [], [], []
    for case in cases:
        try:
            want = reference(case)
        except Exception as e:  # noqa: BLE001
            results.append(Result(case, 0, "fail", "reference failed: %r" % e))
            continue
        n_out = case.n_outputs or len(want)
        src, feeds = build_source(case, n_out, want)
        for opset in opsets or case.opsets:
            claim = reg.lowering(case.domain, case.op, opset)
            expect = claim is not None and opset >= (case.min_opset or 0)
            d = onnxlegal.Diags()
            try:
                out = legalize(src, reg, opset=opset, diags=d)
                err = None
            except onnxlegal.Error as e:
                out, err = None, e
            msgs = [x["message"] for x in d if x["severity"] == "error"]
            d.close()
            if not expect:
                if out is not None:
                    results.append(Result(case, opset, "fail", "legalized, but the coverage matrix "
                                          "(%s) and min_opset %s say it should be refused" %
                                          (claim, case.min_opset)))
                    continue
                lowest = max(reg.min_opset(case.domain, case.op) or 0, case.min_opset or 0)
                if lowest and lowest <= 27 and not _names_lowest(msgs, lowest):
                    results.append(Result(case, opset, "fail", "refused without naming opset %d: %s"
                                          % (lowest, msgs or err)))
                else:
                    results.append(Result(case, opset, "refused", (msgs or [str(err)])[0]))
                continue
            if out is None:
                results.append(Result(case, opset, "fail", "refused: %s" % ("; ".join(msgs) or err)))
                continue
            problem = _olg_check(out)
            data = out.to_bytes()
            if not problem and opset <= CHECKER_MAX_OPSET:
                problem = _onnx_check(data)
            if problem:
                results.append(Result(case, opset, "fail", problem))
                continue
            if opset > ORT_MAX_OPSET:
                results.append(Result(case, opset, "pass", "olg_check only"))
                continue
            pending.append((case, opset, want))
            batch.append((data, feeds))
    if batch:
        t0 = time.time()
        outs = run_batch(batch)
        if log:
            log("onnxruntime: %d models in %.1f s" % (len(batch), time.time() - t0))
        for (case, opset, want), r in zip(pending, outs):
            if isinstance(r, str):
                results.append(Result(case, opset, "fail", "onnxruntime: %s" % r.strip()[:300]))
                continue
            got = [r[k] for k in sorted(r, key=lambda k: int(k[3:]))]
            problem = compare(case, want, got)
            results.append(Result(case, opset, "fail" if problem else "pass", problem or ""))
    return results


def summarize(results):
    """(text, n_pairs_pass, n_pairs_refused, failures): an (op, opset) pair passes when every
    case of the op passes at that opset."""
    pairs = {}
    for r in results:
        if r.opset == 0:
            continue
        key = (r.case.domain, r.case.op, r.opset)
        pairs.setdefault(key, set()).add(r.status)
    n_pass = sum(1 for s in pairs.values() if s == {"pass"})
    n_refused = sum(1 for s in pairs.values() if s == {"refused"})
    n_mixed = sum(1 for s in pairs.values() if "fail" not in s and len(s) > 1)
    failures = [r for r in results if r.status == "fail"]
    ops = sorted({(k[0], k[1]) for k in pairs})
    text = ("numeric: %d (op, opset) pairs pass, %d refused as the coverage matrix says, "
            "%d partly refused by argument (min_opset), %d failing results; %d ops, %d cases" %
            (n_pass, n_refused, n_mixed, len(failures), len(ops),
             len({id(r.case) for r in results})))
    return text, n_pass, n_refused, failures


def load_family(path):
    """The CASES list of a tests/numeric/cases_<family>.py file."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, HERE)
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(HERE)
    return list(mod.CASES)


def family_files():
    return sorted(os.path.join(HERE, f) for f in os.listdir(HERE)
                  if f.startswith("cases_") and f.endswith(".py"))


def dump_references(out_path, files=None):
    """Pickles {(family file name, case index): reference outputs or the error's repr} of every
    case, for comparing references computed in another process (tests/py/test_numeric.py)."""
    import pickle
    refs = {}
    for f in files or family_files():
        for i, case in enumerate(load_family(f)):
            try:
                refs[(os.path.basename(f), i)] = reference(case)
            except Exception as e:  # noqa: BLE001
                refs[(os.path.basename(f), i)] = repr(e)
    # what a fresh malloc block holds here (all 0xff under tests/numeric/junk_malloc.c)
    libc = ctypes.CDLL(None)  # the process's malloc, as a preloaded one interposes it
    libc.malloc.restype, libc.malloc.argtypes = c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [c_void_p]
    p = libc.malloc(64)
    fresh = ctypes.string_at(p, 64)
    libc.free(p)
    with open(out_path, "wb") as f:
        pickle.dump({"references": refs, "fresh_malloc": fresh}, f)


def main(argv):
    if argv[:1] == ["--references"]:
        dump_references(argv[1], argv[2:])
        return 0
    files = argv or family_files()
    all_results = []
    for f in files:
        res = run_cases(load_family(f), log=print)
        all_results += res
        for r in res:
            if r.status == "fail":
                print("FAIL", r)
    print(summarize(all_results)[0])
    return 1 if any(r.status == "fail" for r in all_results) else 0


if __name__ == "__main__":
    # run as the module `harness`, the one the case files import (one Dyn/Init class)
    sys.path.insert(0, HERE)
    import harness as _self
    sys.exit(_self.main(sys.argv[1:]))
