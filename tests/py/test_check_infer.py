"""Shape and type inference against libonnx-testdata's node tests: for every node test, the
declared types of the graph outputs are cleared, olg_infer_shapes runs, and the inferred
element type and shape of each output is compared with what the model declared.

Two runs:
- static: the model as it is. Many node tests feed their shape-determining values (Reshape's
  shape, Slice's starts, TopK's k, ...) as runtime inputs, so their output dims cannot be known
  from the model alone. Here the test asserts that nothing inferred contradicts the
  declaration (a dim is either equal or left unknown) and reports how many match exactly.
- bound: the test's own input values (test_data_set_0) are attached as initializers, so
  shape computations see constants, as they do in an exported model. At least 95% of the node
  tests must match exactly; the rest are listed in NOT_INFERABLE with the reason.
And, on every test-data model, against onnx.shape_inference (with its data propagation): no
value onnx types is contradicted, and the dims onnx knows are known here too.
The C library is called through ctypes (the built libonnxlegal.so)."""
import ctypes
import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
LIB = os.path.join(BUILD, "lib", "libonnxlegal.so")
NODE = "/usr/share/libonnx-testdata/data/node"
TESTS = sorted(glob.glob(os.path.join(NODE, "*", "model.onnx")))

VALUE_DEPENDENT = "the output size depends on the values the op computes, not on shapes"
# Node tests whose outputs cannot be inferred even with their inputs known, and why.
NOT_INFERABLE = {
    **{t: VALUE_DEPENDENT + " (NonMaxSuppression selects boxes by score and IoU)" for t in (
        "test_nonmaxsuppression_center_point_box_format", "test_nonmaxsuppression_flipped_coordinates",
        "test_nonmaxsuppression_identical_boxes", "test_nonmaxsuppression_limit_output_size",
        "test_nonmaxsuppression_single_box", "test_nonmaxsuppression_suppress_by_IOU",
        "test_nonmaxsuppression_suppress_by_IOU_and_scores", "test_nonmaxsuppression_two_batches",
        "test_nonmaxsuppression_two_classes")},
    **{t: VALUE_DEPENDENT + " (StringNormalizer drops stop words)" for t in (
        "test_strnormalizer_export_monday_casesensintive_lower",
        "test_strnormalizer_export_monday_casesensintive_nochangecase",
        "test_strnormalizer_export_monday_casesensintive_upper",
        "test_strnormalizer_export_monday_empty_output",
        "test_strnormalizer_export_monday_insensintive_upper_twodim")},
    **{t: VALUE_DEPENDENT + " (Unique counts distinct values)" for t in (
        "test_unique_not_sorted_without_axis", "test_unique_sorted_with_axis",
        "test_unique_sorted_with_axis_3d", "test_unique_sorted_with_negative_axis",
        "test_unique_sorted_without_axis")},
}

pytestmark = [
    pytest.mark.skipif(not TESTS, reason="libonnx-testdata is not installed"),
    pytest.mark.skipif(not os.path.exists(LIB), reason="%s is not built" % LIB),
]

P = ctypes.c_void_p


def load_lib():
    lib = ctypes.CDLL(LIB)
    sig = {
        "olg_model_read_file": (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_char_p, P]),
        "olg_model_free": (None, [P]),
        "olg_model_graph": (P, [P]),
        "olg_graph_output_count": (ctypes.c_size_t, [P]),
        "olg_graph_output_at": (ctypes.c_int32, [P, ctypes.c_size_t]),
        "olg_value_set_type": (ctypes.c_int, [P, ctypes.c_int32, ctypes.c_int, ctypes.c_int32, P, P]),
        "olg_value_name": (ctypes.c_char_p, [P, ctypes.c_int32]),
        "olg_value_dtype": (ctypes.c_int, [P, ctypes.c_int32]),
        "olg_value_rank": (ctypes.c_int32, [P, ctypes.c_int32]),
        "olg_value_dim": (ctypes.c_int, [P, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_int64),
                                         ctypes.POINTER(ctypes.c_char_p)]),
        "olg_infer_shapes": (ctypes.c_int, [P, P, P]),
        "olg_diags_new": (ctypes.c_int, [ctypes.POINTER(P), P]),
        "olg_diags_free": (None, [P]),
        "olg_diags_count": (ctypes.c_size_t, [P]),
        "olg_diag_code": (ctypes.c_char_p, [P, ctypes.c_size_t]),
        "olg_diag_message": (ctypes.c_char_p, [P, ctypes.c_size_t]),
        "olg_last_error": (ctypes.c_char_p, []),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


def declared(vi):
    """(elem type, dims or None) as the model declares; dims hold ints, names or '?'."""
    t = vi.type
    if not t.HasField("tensor_type"):
        return None
    tt = t.tensor_type
    if not tt.HasField("shape"):
        return (tt.elem_type, None)
    return (tt.elem_type, tuple(d.dim_value if d.HasField("dim_value") else
                                d.dim_param if d.HasField("dim_param") else "?" for d in tt.shape.dim))


def inferred(lib, g, v):
    dt, r = lib.olg_value_dtype(g, v), lib.olg_value_rank(g, v)
    if r < 0:
        return (dt, None)
    dims = []
    for i in range(r):
        d, p = ctypes.c_int64(), ctypes.c_char_p()
        lib.olg_value_dim(g, v, i, ctypes.byref(d), ctypes.byref(p))
        dims.append(d.value if d.value >= 0 else (p.value.decode() if p.value else "?"))
    return (dt, tuple(dims))


def contradicts(got, want):
    """True when what was inferred disagrees with the declaration (unknown parts never do)."""
    if got[0] and want[0] and got[0] != want[0]:
        return True
    if got[1] is None or want[1] is None:
        return False
    if len(got[1]) != len(want[1]):
        return True
    return any(isinstance(a, int) and isinstance(b, int) and a != b for a, b in zip(got[1], want[1]))


def infer_file(lib, path, decl):
    """Clears the declared output types, infers, returns ({output: inferred}, status, diags)."""
    m = P()
    if lib.olg_model_read_file(ctypes.byref(m), path.encode(), None):
        raise AssertionError("reading %s: %s" % (path, lib.olg_last_error().decode()))
    try:
        g = lib.olg_model_graph(m)
        outs = [lib.olg_graph_output_at(g, i) for i in range(lib.olg_graph_output_count(g))]
        for v in outs:
            assert lib.olg_value_set_type(g, v, 0, -1, None, None) == 0
        d = P()
        assert lib.olg_diags_new(ctypes.byref(d), None) == 0
        s = lib.olg_infer_shapes(m, None, d)
        msgs = [(lib.olg_diag_code(d, i).decode(), lib.olg_diag_message(d, i).decode())
                for i in range(lib.olg_diags_count(d))]
        lib.olg_diags_free(d)
        return {lib.olg_value_name(g, v).decode(): inferred(lib, g, v) for v in outs}, s, msgs
    finally:
        lib.olg_model_free(m)


def name_of(path):
    return os.path.basename(os.path.dirname(path))


@pytest.fixture(scope="module")
def lib():
    return load_lib()


def test_static_inference_never_contradicts(lib):
    onnx = pytest.importorskip("onnx")
    exact, contra = 0, []
    for path in TESTS:
        mp = onnx.load(path)
        decl = {o.name: declared(o) for o in mp.graph.output}
        got, s, msgs = infer_file(lib, path, decl)
        errs = [m for m in msgs if m[0] != "OLG-INFER-UNSUPPORTED"]
        if s != 0 or errs:
            contra.append((name_of(path), s, errs[:2]))
            continue
        bad = [(n, got[n], w) for n, w in decl.items() if w is not None and contradicts(got[n], w)]
        if bad:
            contra.append((name_of(path), bad))
        elif all(w is None or got[n] == w for n, w in decl.items()):
            exact += 1
    print("static inference: %d of %d node tests match exactly (%.1f%%); the others leave dims "
          "unknown that depend on runtime inputs" % (exact, len(TESTS), 100.0 * exact / len(TESTS)))
    assert not contra, contra


def test_inference_with_known_inputs(lib, tmp_path):
    onnx = pytest.importorskip("onnx")
    exact, miss = 0, {}
    for path in TESTS:
        mp = onnx.load(path)
        decl = {o.name: declared(o) for o in mp.graph.output}
        inits = {t.name for t in mp.graph.initializer}
        feeds = [i for i in mp.graph.input if i.name not in inits]
        for k, vi in enumerate(feeds):
            pb = os.path.join(os.path.dirname(path), "test_data_set_0", "input_%d.pb" % k)
            if not os.path.exists(pb) or not vi.type.HasField("tensor_type"):
                continue
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            t.name = vi.name
            mp.graph.initializer.append(t)
        mp.ir_version = max(mp.ir_version, 4)  # an input with an initializer is its default
        bound = str(tmp_path / "bound.onnx")
        onnx.save(mp, bound)
        got, s, msgs = infer_file(lib, bound, decl)
        wrong = [(n, got[n], w) for n, w in decl.items() if w is not None and got[n] != w]
        if s == 0 and not wrong:
            exact += 1
        else:
            miss[name_of(path)] = (s, wrong, msgs[:2])
    pct = 100.0 * exact / len(TESTS)
    print("inference with the tests' inputs known: %d of %d node tests match exactly (%.1f%%)" %
          (exact, len(TESTS), pct))
    for t, why in sorted(NOT_INFERABLE.items()):
        print("  not inferable: %s: %s" % (t, why))
    unexplained = {t: v for t, v in miss.items() if t not in NOT_INFERABLE}
    assert not unexplained, unexplained
    stale = [t for t in NOT_INFERABLE if t not in miss]
    assert not stale, "now inferred, remove from NOT_INFERABLE: %s" % stale
    assert pct >= 95.0


def test_agrees_with_onnx_shape_inference(lib):
    """Every value onnx.shape_inference types in every test-data model (main graphs): what
    onnxlegal infers never contradicts it, and it knows at least as many dims for nearly all."""
    onnx = pytest.importorskip("onnx")
    lib.olg_graph_find_value.restype = ctypes.c_int
    lib.olg_graph_find_value.argtypes = [P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32)]
    models = sorted(glob.glob(os.path.join(os.path.dirname(NODE), "*", "*", "model.onnx")))
    contra, compared, theirs_known, ours_known = [], 0, 0, 0
    for path in models:
        try:
            inferred_model = onnx.shape_inference.infer_shapes(onnx.load(path), strict_mode=True,
                                                                  data_prop=True)
        except Exception:
            continue  # onnx cannot infer this one (the three Constant models)
        infos = [vi for vi in inferred_model.graph.value_info if vi.type.HasField("tensor_type")]
        m = P()
        assert lib.olg_model_read_file(ctypes.byref(m), path.encode(), None) == 0
        try:
            assert lib.olg_infer_shapes(m, None, None) == 0, (path, lib.olg_last_error())
            g = lib.olg_model_graph(m)
            for vi in infos:
                v = ctypes.c_int32()
                if lib.olg_graph_find_value(g, vi.name.encode(), ctypes.byref(v)):
                    continue
                want, got = declared(vi), inferred(lib, g, v.value)
                compared += 1
                if contradicts(got, want):
                    contra.append((short_name(path), vi.name, got, want))
                for i, d in enumerate(want[1] or ()):
                    if isinstance(d, int):
                        theirs_known += 1
                        if got[1] is not None and i < len(got[1]) and got[1][i] == d:
                            ours_known += 1
        finally:
            lib.olg_model_free(m)
    print("against onnx.shape_inference: %d values compared, no contradiction allowed; of the %d "
          "dims onnx knows, onnxlegal knows %d (%.1f%%)" %
          (compared, theirs_known, ours_known, 100.0 * ours_known / max(theirs_known, 1)))
    assert not contra, contra[:20]
    assert ours_known >= 0.95 * theirs_known


def short_name(path):
    return "/".join(path.split("/")[-3:-1])
