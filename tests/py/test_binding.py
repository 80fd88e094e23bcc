"""The Python ctypes binding (bindings/python/onnxlegal): its declarations match the public
headers, it builds models ONNX accepts, initializers are borrowed without a copy and kept alive,
errors carry the library's message, and models are freed deterministically."""
import ctypes
import gc
import os
import re
import shutil
import subprocess
import sys
import weakref

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import onnxlegal  # noqa: E402
from onnxlegal import _lib  # noqa: E402

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402


def has(fn):
    return fn not in _lib.lib.missing


needs_writer = pytest.mark.skipif(not has("olg_model_write_callback"),
                                  reason="the protobuf writer is not in this build yet")
needs_reader = pytest.mark.skipif(not has("olg_model_read_file"),
                                  reason="the protobuf reader is not in this build yet")

# ---- the declarations cannot drift from the headers -----------------------------------------

INCLUDE = os.path.join(ROOT, "include", "onnxlegal")


def _strip_c(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    return re.sub(r"^\s*#.*$", " ", src, flags=re.M)


def header_sources():
    return {name: _strip_c(open(os.path.join(INCLUDE, name)).read())
            for name in sorted(os.listdir(INCLUDE)) if name.endswith(".h")}


def header_functions():
    """{name: (return type, [parameter types])} of every OLG_API function."""
    out = {}
    for src in header_sources().values():
        for m in re.finditer(r"\bOLG_API\b([^;{]*?)\b(olg_\w+)\s*\(([^)]*)\)\s*;", src, re.S):
            params = [" ".join(p.split()) for p in m.group(3).split(",")]
            if params in (["void"], [""]):
                params = []
            out[m.group(2)] = (" ".join(m.group(1).split()), [param_type(p) for p in params])
    return out


def header_callbacks():
    """{typedef name: (return type, [parameter types])} of the function-pointer typedefs."""
    out = {}
    for src in header_sources().values():
        for m in re.finditer(r"typedef\s+([\w\s\*]+?)\s*\(\s*\*\s*(olg_\w+)\s*\)\s*\(([^)]*)\)\s*;",
                             src, re.S):
            params = [param_type(" ".join(p.split())) for p in m.group(3).split(",")]
            out[m.group(2)] = (" ".join(m.group(1).split()), params)
    return out


def param_type(p):
    """The type of a parameter declaration ("const int64_t *dims" -> "const int64_t *")."""
    m = re.match(r"^(.*?[\s\*])(\w+)$", p)
    return m.group(1).strip() if m else p


INTS = {
    "int": ctypes.c_int, "olg_status": ctypes.c_int, "olg_dtype": ctypes.c_int,
    "olg_severity": ctypes.c_int, "olg_model_field": ctypes.c_int,
    "olg_data_mode": ctypes.c_int, "olg_lowering": ctypes.c_int,
    "int32_t": ctypes.c_int32, "olg_value": ctypes.c_int32, "olg_node_id": ctypes.c_int32,
    "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64, "size_t": ctypes.c_size_t,
    "float": ctypes.c_float, "double": ctypes.c_double,
}
CALLBACKS = {"olg_write_fn": "WRITE_FN", "olg_release_fn": "RELEASE_FN",
             "olg_symbolic_fn": "SYMBOLIC_FN", "olg_shape_fn": "SHAPE_FN",
             "olg_profile_rewrite_fn": "PROFILE_REWRITE_FN"}


def expected_ctype(c):
    """The ctypes type the binding must use for C type c (no struct is ever laid out: pointers
    to handles and option structs are void pointers)."""
    t = re.sub(r"\bconst\b", "", c)
    t = re.sub(r"\s+", "", t)
    base = t.rstrip("*")
    stars = len(t) - len(base)
    if stars == 0:
        if base == "void":
            return None
        if base in CALLBACKS:
            return getattr(_lib, CALLBACKS[base])
        if base in INTS:
            return INTS[base]
    elif base == "char":
        return ctypes.c_char_p if stars == 1 else ctypes.POINTER(ctypes.c_char_p)
    elif base == "void" or (base.startswith("olg_") and base not in INTS):
        return ctypes.c_void_p if stars == 1 else ctypes.POINTER(ctypes.c_void_p)
    elif base in INTS:
        t = INTS[base]
        for _ in range(stars):
            t = ctypes.POINTER(t)
        return t
    raise AssertionError("the test does not know the C type %r: teach it" % c)


def test_every_header_function_is_declared_with_its_signature():
    funcs = header_functions()
    assert len(funcs) > 100, "the header parser found too few functions"
    problems = []
    for name, (ret, params) in sorted(funcs.items()):
        if name not in _lib.SIGNATURES:
            problems.append("%s: in the headers, not declared in onnxlegal/_lib.py" % name)
            continue
        restype, argtypes = _lib.SIGNATURES[name]
        if len(argtypes) != len(params):
            problems.append("%s: %d arguments in the header, %d in the binding"
                            % (name, len(params), len(argtypes)))
            continue
        if restype is not expected_ctype(ret):
            problems.append("%s: returns %s, declared %s" % (name, ret, restype))
        for i, (p, a) in enumerate(zip(params, argtypes)):
            if a is not expected_ctype(p):
                problems.append("%s: argument %d is %s, declared %s" % (name, i, p, a))
    for name in sorted(set(_lib.SIGNATURES) - set(funcs)):
        problems.append("%s: declared in the binding, in no header" % name)
    assert not problems, "\n".join(problems)


def test_callback_types_match_their_typedefs():
    cbs = header_callbacks()
    assert set(CALLBACKS) <= set(cbs), "a callback typedef was renamed: %s" % sorted(cbs)
    for typedef, attr in CALLBACKS.items():
        ret, params = cbs[typedef]
        ft = getattr(_lib, attr)
        assert ft._restype_ is expected_ctype(ret), typedef
        assert list(ft._argtypes_) == [expected_ctype(p) for p in params], typedef


def test_loaded_functions_have_their_declarations():
    lib = _lib.lib
    present = [n for n in _lib.SIGNATURES if n not in lib.missing]
    assert "olg_model_new" in present and "olg_model_print_text" in present
    for name in present:
        fn = getattr(lib, name)
        restype, argtypes = _lib.SIGNATURES[name]
        assert fn.restype is restype and fn.argtypes == argtypes, name
    with pytest.raises(AttributeError, match="olg_no_such_function"):
        lib.olg_no_such_function


def test_library_choice_env_wins(tmp_path):
    env = dict(os.environ, ONNXLEGAL_LIBRARY=str(tmp_path / "nothing.so"),
               PYTHONPATH=os.path.join(ROOT, "bindings", "python"))
    r = subprocess.run([sys.executable, "-c", "import onnxlegal"], env=env,
                       capture_output=True, text=True)
    assert r.returncode != 0 and "nothing.so" in r.stderr
    env["ONNXLEGAL_LIBRARY"] = _lib.lib.path
    r = subprocess.run([sys.executable, "-c", "import onnxlegal; print(onnxlegal.lib.path)"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == _lib.lib.path


# ---- building ---------------------------------------------------------------------------------

def build_model(keep=None):
    """A model touching every builder feature: symbolic dims, initializers of several types,
    attributes of each kind, an If with subgraphs that capture outer values, metadata."""
    m = onnxlegal.Model(opset={"": 17, "com.example": 1}, ir_version=8, name="g")
    m.producer_name = "onnxlegal-test"
    m.producer_version = "1.0"
    m.doc_string = "a test model"
    m.model_version = 3
    m.set_metadata("author", "tests")
    g = m.graph
    x = g.add_input("x", np.float32, ["N", 3])
    c = g.add_input("cond", "bool", [])
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    if keep is not None:
        keep.append(w)
    wv = g.add_initializer("w", w)
    g.add_initializer("shape", np.array([-1, 4], dtype=np.int64))
    t = g.node("MatMul", [x, wv], outputs=["t"])
    t2 = g.node("Reshape", [t, "shape"], outputs=["t2"])
    s = g.node("Softmax", [t2], outputs=["s"], axis=-1)
    lr = g.node("LeakyRelu", [s], outputs=["lr"], alpha=0.25)
    tr = g.node("Transpose", [lr], outputs=["tr"], perm=[1, 0])
    k = g.node("Constant", [], outputs=["k"], value=np.array([2.0], dtype=np.float32))
    then = m.subgraph("then_g")
    o1 = then.node("Mul", [tr, k], outputs=["o1"])
    o1.set_type(np.float32, [4, None])
    then.add_output(o1)
    els = m.subgraph("else_g")
    o2 = els.node("Neg", [tr], outputs=["o2"])
    o2.set_type(np.float32, [4, None])
    els.add_output(o2)
    r = g.node("If", [c], outputs=["r"], then_branch=then, else_branch=els)
    cast = g.node("Cast", [r], outputs=["y"], to=onnxlegal.dtypes.FLOAT)
    cast.set_type(np.float32, [4, "N"])
    g.add_output(cast)
    return m


def test_build_fields_and_values():
    m = build_model()
    assert m.opsets == {"": 17, "com.example": 1}
    assert m.opset() == 17 and m.opset("nope") is None
    assert m.ir_version == 8 and m.model_version == 3
    assert m.producer_name == "onnxlegal-test" and m.doc_string == "a test model"
    assert m.metadata == {"author": "tests"}
    g = m.graph
    assert g.name == "g"
    x, c = g.inputs
    assert x.name == "x" and x.dtype == np.float32 and x.shape == ("N", 3)
    assert c.dtype == np.bool_ and c.shape == ()
    assert [v.name for v in g.initializers] == ["w", "shape"]
    assert [n.op for n in g.nodes] == ["MatMul", "Reshape", "Softmax", "LeakyRelu", "Transpose",
                                       "Constant", "If", "Cast"]
    assert g.nodes[4].attr_names == ["perm"]
    y = g.outputs[0]
    assert y.shape == (4, "N") and y.producer[0].op == "Cast"
    assert g.find("t").producer[1] == 0 and g.find("nope") is None
    v = g.add_input("u", "bfloat16", [None, 2])
    assert v.dtype == "bfloat16" and v.dtype_code == 16 and v.shape == (None, 2)
    assert g.add_input("unranked", "float", None).shape is None
    assert np.array_equal(g.initializers[0].numpy(), np.arange(12, dtype=np.float32).reshape(3, 4))
    m.close()


def test_source_node_literals_print():
    with onnxlegal.Model(opset=17) as m:
        g = m.graph
        x = g.add_input("x", np.float32, [1, 3, 8, 8])
        w = g.add_initializer("w", np.zeros((4, 3, 3, 3), np.float32))
        y = g.source_node("aten", "convolution",
                          [x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1], 1,
                          name="conv1")
        z = g.source_node("aten", "cat", [[y, y], 1], ["z"])
        a = g.source_node("aten", "mul", [z, 0.5, "none", [0.5, 2]], 1)
        g.add_output(a)
        assert z.name == "z"
        text = m.to_text()
        assert ("[conv1] conv1_0 = aten.convolution (x, w, none, [1, 1], [0, 0], [1, 1], false, "
                "[0, 0], 1)") in text
        assert "z = aten.cat ([conv1_0, conv1_0], 1)" in text
        assert 'aten.mul (z, 0.5, "none", [0.5, 2.0])' in text
        with pytest.raises(TypeError):
            g.source_node("aten", "bad", [object()], 1)


def test_zero_copy_initializer():
    with onnxlegal.Model() as m:
        arr = np.arange(1000, dtype=np.float32)
        v = m.graph.add_initializer("a", arr)
        assert v.data_pointer == arr.ctypes.data
        # a view that is not C-contiguous is made contiguous (once), and that copy is borrowed
        f = np.asfortranarray(np.arange(12, dtype=np.int64).reshape(3, 4))
        vf = m.graph.add_initializer("f", f)
        assert vf.data_pointer != f.ctypes.data
        assert np.array_equal(vf.numpy(), f)
        # big-endian data is made native
        be = np.arange(4, dtype=">i4")
        vb = m.graph.add_initializer("be", be)
        assert np.array_equal(vb.numpy(), be) and vb.dtype == np.int32
        # a type numpy lacks, over raw uint16 bits
        bf = m.graph.add_initializer("bf", np.array([0x3f80, 0x4000], np.uint16), dtype="bfloat16")
        assert bf.dtype == "bfloat16"
        s = m.graph.add_initializer("s", np.array(["a", "bc"]))
        assert s.dtype == "string" and s.shape == (2,)


def test_initializer_array_kept_alive_until_the_model_is_freed():
    m = onnxlegal.Model()
    arr = np.arange(64, dtype=np.float64) * 1.5
    ptr = arr.ctypes.data
    ref = weakref.ref(arr)
    v = m.graph.add_initializer("a", arr)
    del arr
    gc.collect()
    assert ref() is not None, "the model must keep the borrowed array alive"
    assert v.data_pointer == ptr
    # the model still reads the original memory
    assert np.array_equal(v.numpy(), np.arange(64) * 1.5)
    del v
    m.close()
    gc.collect()
    assert ref() is None, "closing the model must release the array"


def test_closing_the_source_of_a_legalized_model_keeps_what_the_result_borrows():
    # legalize's result points into the source's initializer data (and its Constant tensors):
    # closing the source, here by leaving its `with` block, must not free that memory while the
    # result can still read it; it goes with the result.
    from onnxlegal.lowering import legalize
    arr = np.arange(1000, dtype=np.float32)
    ptr, ref = arr.ctypes.data, weakref.ref(arr)
    with onnxlegal.Model() as src:
        g = src.graph
        x = g.add_input("x", np.float32, [1000])
        g.add_output(g.node("Add", [x, g.add_initializer("w", arr)], outputs=["y"]))
        out = legalize(src, opset=13)
        fin = src._finalizer
    del arr, g, x
    gc.collect()
    assert src.closed and ref() is not None and fin.alive, "the result's borrowed data was freed"
    # whatever reuses freed memory now must not show through the result
    junk = [np.full(1000, np.nan, np.float32) for _ in range(64)]
    (w,) = out.graph.initializers
    assert w.data_pointer == ptr and np.array_equal(w.numpy(), np.arange(1000, dtype=np.float32))
    del junk, w
    out.close()
    gc.collect()
    assert ref() is None and not fin.alive, "freeing the result must release the source"
    with pytest.raises(onnxlegal.StateError):
        legalize(src, opset=13)


def test_garbage_collection_frees_model_and_arrays():
    arr = np.ones(16, np.float32)
    ref_arr = weakref.ref(arr)
    m = onnxlegal.Model()
    m.graph.add_initializer("a", arr)
    fin = m._finalizer
    ref_m = weakref.ref(m)
    del arr, m
    gc.collect()
    assert ref_m() is None and not fin.alive and ref_arr() is None


def test_close_and_context_manager():
    with onnxlegal.Model() as m:
        g = m.graph
        g.add_input("x", "float", [1])
    assert m.closed
    m.close()  # idempotent
    with pytest.raises(onnxlegal.StateError):
        m.graph
    with pytest.raises(onnxlegal.StateError):
        g.add_input("y", "float", [1])
    assert "closed" in repr(m)


def test_errors_carry_status_and_message():
    with onnxlegal.Model() as m:
        g = m.graph
        g.add_input("x", "float", [2])
        with pytest.raises(onnxlegal.DuplicateError) as e:
            g.add_input("x", "float", [2])
        assert e.value.status == -6 and e.value.status_name == "OLG_ERR_DUPLICATE"
        assert "'x'" in e.value.message and "already exists" in str(e.value)
        assert e.value.function == "olg_graph_add_input"
        with pytest.raises(onnxlegal.InvalidArgumentError, match="needs"):
            # 3 elements declared as 2 bytes each: the library refuses the size
            m.graph.add_initializer("bad", np.zeros(3, np.int8), dtype="int16")
        with pytest.raises(onnxlegal.DuplicateError, match="already a graph output"):
            g.add_output("x")
            g.add_output("x")
        with pytest.raises(KeyError):
            g.node("Relu", ["missing"])
        with pytest.raises(TypeError):
            g.add_input("z", object(), [1])
        with pytest.raises(ValueError):
            g.add_input("z", "float", [-3])
    assert issubclass(onnxlegal.ParseError, onnxlegal.Error)


def test_attribute_types_inferred():
    with onnxlegal.Model(opset={"": 17, "x": 1}) as m:
        g = m.graph
        a = g.add_input("a", "float", [1])
        sub1, sub2 = m.subgraph("s1"), m.subgraph("s2")
        g.node("Foo", [a], domain="x", i=1, b=True, f=0.5, s="str", by=b"\x00\xff",
               ints=[1, 2], floats=[1, 2.5], strs=["a", "b"], empty=[],
               t=np.array([[1, 2]], np.int32), gs=[sub1, sub2], npi=np.int64(7),
               npf=np.float32(1.5))
        text = m.to_text()
        for frag in ["i = 1", "b = 1", "f = 0.5", 's = "str"', "ints = [1, 2]",
                     "floats = [1.0, 2.5]", 'strs = ["a", "b"]', "empty: ints = []",
                     "t = int32[1,2] {1, 2}", "gs = [s1 () => () {", "npi = 7", "npf = 1.5"]:
            assert frag in text, frag
        with pytest.raises(TypeError):
            g.node("Foo", [a], domain="x", bad=[1, "a"])
        with pytest.raises(TypeError):
            g.node("Foo", [a], domain="x", bad={"a": 1})


@needs_writer
def test_built_model_passes_the_onnx_checker(tmp_path):
    keep = []
    m = build_model(keep)
    data = m.to_bytes()
    proto = onnx.load_from_string(data)
    onnx.checker.check_model(proto, full_check=True)
    assert proto.producer_name == "onnxlegal-test" and proto.model_version == 3
    assert [o.domain for o in proto.opset_import] == ["", "com.example"]
    w = numpy_helper.to_array(proto.graph.initializer[0])
    assert np.array_equal(w, keep[0])
    if_node = proto.graph.node[6]
    assert if_node.op_type == "If" and if_node.attribute[0].g.node[0].op_type == "Mul"
    path = tmp_path / "m.onnx"
    m.write(path)
    assert path.read_bytes() == data
    m.close()


@needs_writer
def test_write_external_data(tmp_path):
    with onnxlegal.Model(opset=17) as m:
        g = m.graph
        x = g.add_input("x", np.float32, [4, 64])
        big = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
        small = np.ones(4, np.float32)
        y = g.node("MatMul", [x, g.add_initializer("big", big)])
        out = g.node("Add", [y, g.add_initializer("small", small.reshape(4, 1))], outputs=["y"])
        out.set_type(np.float32, [4, 64])  # the checker wants typed graph outputs
        g.add_output(out)
        m.write(tmp_path / "m.onnx", external_data="weights.bin", threshold=1024)
    assert (tmp_path / "weights.bin").stat().st_size >= big.nbytes
    proto = onnx.load(str(tmp_path / "m.onnx"))
    onnx.checker.check_model(str(tmp_path / "m.onnx"), full_check=True)
    inits = {i.name: numpy_helper.to_array(i) for i in proto.graph.initializer}
    assert np.array_equal(inits["big"], big) and np.array_equal(inits["small"].ravel(), small)


@needs_reader
@needs_writer
def test_read_back_from_file_and_bytes(tmp_path):
    m = build_model()
    path = tmp_path / "m.onnx"
    m.write(path)
    data = m.to_bytes()
    m.close()
    for r in (onnxlegal.Model.read(path), onnxlegal.Model.from_bytes(data)):
        with r:
            assert r.opsets == {"": 17, "com.example": 1} and r.ir_version == 8
            assert [v.name for v in r.graph.inputs] == ["x", "cond"]
            assert r.graph.inputs[0].shape == ("N", 3)
            assert np.array_equal(r.graph.find("w").numpy(),
                                  np.arange(12, dtype=np.float32).reshape(3, 4))
            assert r.to_bytes() == data
    with pytest.raises(onnxlegal.ParseError) as e:
        onnxlegal.Model.from_bytes(b"\x08\x07\x12\xff\xff")
    assert e.value.message
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.Model.read(tmp_path / "absent.onnx")
    assert "absent.onnx" in e.value.message


def test_to_dot_is_valid_graphviz(tmp_path):
    m = build_model()
    dot = m.to_dot()
    assert dot.startswith('digraph "g" {')
    # the initializer w is folded into the box of the node that uses it
    assert 'label="MatMul\\nw: float[3,4]"' in dot and 'label="x\\nfloat[N,3]"' in dot
    if not shutil.which("dot"):
        pytest.skip("graphviz is not installed")
    r = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    assert b"<svg" in r.stdout and b"MatMul" in r.stdout


def test_write_callback_exception_becomes_callback_error(monkeypatch):
    with onnxlegal.Model() as m:
        m.graph.add_input("x", "float", [1])

        def boom(*a):
            raise RuntimeError("sink broke")

        monkeypatch.setattr(ctypes, "string_at", boom)
        with pytest.raises(onnxlegal.CallbackError) as e:
            m.to_text()
        assert "sink broke" in str(e.value) and e.value.status == -12


def test_default_ir_version_follows_the_opset():
    if "olg_ir_version_for_opset" in _lib.lib.missing:
        pytest.skip("olg_ir_version_for_opset is not in this build")
    with onnxlegal.Model(opset=17) as m:
        assert m.ir_version == 8
    with onnxlegal.Model(opset={"": 11, "com.x": 1}) as m:
        assert m.ir_version == 6
    with onnxlegal.Model(opset=21, ir_version=11) as m:
        assert m.ir_version == 11
    with onnxlegal.Model(opset=None) as m:
        assert m.ir_version == 13 and m.opsets == {}


def test_diags_and_check():
    d = onnxlegal.Diags()
    d.add("warning", "OLG-TEST", "a message", node="n", op="Relu", opset=17)
    assert len(d) == 1 and d.error_count == 0
    (item,) = list(d)
    assert item == {"severity": "warning", "code": "OLG-TEST", "node": "n", "domain": "",
                    "op": "Relu", "opset": 17, "message": "a message", "min_opset": -1,
                    "node_index": -1, "output": "",
                    "text": "warning OLG-TEST: node 'n' (Relu, opset 17): a message"}
    d.close()
    with pytest.raises(onnxlegal.StateError):
        len(d)
    if not has("olg_check"):
        pytest.skip("olg_check is not in this build")
    with onnxlegal.Model(opset=17) as good:
        g = good.graph
        y = g.node("Relu", [g.add_input("x", np.float32, [2])], outputs=["y"])
        y.set_type(np.float32, [2])
        g.add_output(y)
        assert good.check().error_count == 0
    with onnxlegal.Model(opset=17) as bad:
        g = bad.graph
        y = g.node("NoSuchOp", [g.add_input("x", np.float32, [2])], outputs=["y"])
        y.set_type(np.float32, [2])
        g.add_output(y)
        found = list(bad.check())
        assert any(f["code"] == "OLG-CHECK-OP-UNKNOWN" and f["op"] == "NoSuchOp" for f in found)


def test_read_and_write_errors_say_what_to_do(tmp_path):
    """The library's own messages carry the hints the CLI gives (issue 28 point 4, 29 point 5)."""
    m = onnxlegal.Model(opset=13)
    g = m.graph
    x = g.add_input("x", np.float32, [2])
    g.add_output(g.node("Relu", [x]))
    data = m.to_bytes()
    for bad, hint in ((data[:len(data) - 3], "ends early: a truncated download or copy?"),
                      (b"version https://git-lfs.github.com/spec/v1\noid sha256:0\n", "Git LFS pointer"),
                      (b"<html><body>404</body></html>", "looks like text")):
        with pytest.raises(onnxlegal.Error) as e:
            onnxlegal.Model.from_bytes(bad)
        assert "(hint: " in str(e.value) and hint in str(e.value), str(e.value)
    with pytest.raises(onnxlegal.Error) as e:
        m.write(str(tmp_path / "missing" / "out.onnx"))
    assert "the directory '%s' does not exist" % (tmp_path / "missing") in str(e.value)
