"""The Pythonic builder over the C graph API: Model, Graph, Value, Node."""
import ctypes
import io
import os
import weakref
from ctypes import byref, c_char_p, create_string_buffer, c_double, c_float, c_int32, c_int64, c_size_t, c_void_p

import numpy as np

from . import _dtypes
from ._lib import (ERR_INVALID_MODEL, ERR_NOT_FOUND, ERR_STATE, RELEASE_FN, WRITE_FN, CallbackError, Error, StateError, call,
                   check, dec, enc, lib)

NO_VALUE = -1
RANK_UNKNOWN = -1
DIM_UNKNOWN = -1
DATA_BORROW, DATA_COPY, DATA_OWN = 0, 1, 2
_NULL_RELEASE = RELEASE_FN()  # a NULL olg_release_fn (ctypes refuses None for a callback type)
_FIELDS = {"producer_name": 1, "producer_version": 2, "domain": 3, "doc_string": 4}


def _free_model(handle, keep):
    # Runs once, when the last holder of the _Owned lets go: the C model goes first, then the
    # arrays, bytes and models it borrowed.
    lib.olg_model_free(handle)
    keep.clear()


class _Owned:
    """A C model and everything it points into (numpy arrays, bytes, the _Owned of the models it
    borrows from, registries). Its Model holds it until close() or collection; a model that
    borrows from it (legalize's result) holds it too, so that closing the source cannot free
    memory the result still reads."""
    __slots__ = ("keep", "finalizer", "__weakref__")

    def __init__(self, handle):
        self.keep = []
        self.finalizer = weakref.finalize(self, _free_model, handle, self.keep)


def _array(ctype, items):
    items = list(items)
    return (ctype * len(items))(*items) if items else None


def _shape_arrays(shape):
    """(rank, dims, dim_params) for the C API from a shape: None (rank unknown) or a sequence
    of int (fixed), str (symbolic) and None (unknown)."""
    if shape is None:
        return RANK_UNKNOWN, None, None
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError("a shape is None or a sequence of int, str and None, not %r" % (shape,))
    dims, params = [], []
    for d in shape:
        if d is None:
            dims.append(DIM_UNKNOWN)
            params.append(None)
        elif isinstance(d, str):
            dims.append(DIM_UNKNOWN)
            params.append(enc(d))
        elif isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)):
            if d < 0:
                raise ValueError("a dim is >= 0, a str (symbolic) or None (unknown): %d" % d)
            dims.append(int(d))
            params.append(None)
        else:
            raise TypeError("a dim is an int, a str (symbolic) or None (unknown), not %r" % (d,))
    return len(dims), _array(c_int64, dims), _array(c_char_p, params)


def _collect(fn_name, handle, *extra):
    """Runs a streaming C writer into memory; returns the bytes. handle: one model's handle, or
    a tuple of handles for a writer that reads several (olg_model_print_dot_diff)."""
    chunks = []
    failure = []

    def sink(_ud, data, n):
        try:
            chunks.append(ctypes.string_at(data, n))
            return 0
        except BaseException as e:  # noqa: B902 - reported after the C call returns
            failure.append(e)
            return 1

    cb = WRITE_FN(sink)
    heads = handle if isinstance(handle, tuple) else (handle,)  # the models the writer reads
    status = getattr(lib, fn_name)(*heads, cb, None, *extra)
    if failure:
        raise CallbackError(status, "%s: %r" % (fn_name, failure[0]), fn_name) from failure[0]
    check(status, fn_name)
    return b"".join(chunks)


def _ir_version_for(opset):
    """The IR version released with a default-domain opset (what runtimes and checkers of that
    time accept), or None to keep the library's default."""
    if opset is None or "olg_ir_version_for_opset" in lib.missing:
        return None
    v = lib.olg_ir_version_for_opset(opset)
    return v if v > 0 else None


class Model:
    """An ONNX model being built or read. Frees its C handle on close(), at the end of a `with`
    block, or when garbage-collected; arrays given as initializers are kept alive until then.
    A model that borrows from this one (legalize's result) keeps that memory alive: closing this
    one then only closes the Python object, and the C model is freed with the last borrower.

    opset: the default domain's version, or {domain: version}. ir_version: None picks the IR
    version released with that opset (e.g. 8 for opset 17)."""

    def __init__(self, opset=17, ir_version=None, name="main", *, _handle=None):
        created = _handle is None
        if created:
            h = c_void_p()
            call("olg_model_new", byref(h), None)
            _handle = h.value
        self._h = _handle
        self._own = _Owned(_handle)
        self._keep = self._own.keep  # borrowed buffers (numpy arrays, bytes) the C model points into
        self._finalizer = self._own.finalizer
        try:
            if isinstance(opset, dict):
                for domain, version in opset.items():
                    self.set_opset(domain, version)
            elif opset is not None:
                self.set_opset("", opset)
            if ir_version is None and created:
                ir_version = _ir_version_for(self.opset(""))
            if ir_version is not None:
                self.ir_version = ir_version
            if name is not None and not self.graph.name:
                self.graph.name = name
        except BaseException:
            self.close()
            raise

    # ---- lifetime ----
    @property
    def handle(self):
        """The olg_model * as an int (for calling the C API directly)."""
        if self._h is None:
            raise StateError(ERR_STATE, "the model is closed")
        return self._h

    @property
    def closed(self):
        return self._h is None

    def close(self):
        """Frees the C model now, or, while a model made from it (legalize's result) borrows its
        data, when the last such model is freed. Idempotent; the object is unusable afterwards."""
        self._h = None
        self._own = None  # the last reference unless a borrower holds one: freed here

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _borrow(self, obj):
        """Keeps obj alive as long as the C model; for a Model, its C model and what it borrows
        (holding the Model object itself would not survive its close())."""
        if isinstance(obj, Model):
            if obj._own is None:
                raise StateError(ERR_STATE, "the model is closed")
            obj = obj._own
        self._keep.append(obj)

    # ---- reading and writing ----
    @classmethod
    def read(cls, path):
        """Reads a .onnx file (tensor data stays mapped from the file)."""
        h = c_void_p()
        call("olg_model_read_file", byref(h), enc(os.fspath(path)), None)
        return cls(opset=None, name=None, _handle=h.value)

    @classmethod
    def from_bytes(cls, data):
        """Reads a model from bytes; the model borrows them (a reference is kept)."""
        if not isinstance(data, bytes):
            data = bytes(data)
        h = c_void_p()
        call("olg_model_read_memory", byref(h), data, len(data), None)
        m = cls(opset=None, name=None, _handle=h.value)
        m._borrow(data)
        return m

    def write(self, f, external_data=None, threshold=1024, external_data_dir=None):
        """Writes the model to f, a path or a binary file object (one with a file descriptor
        is written through it, any other through its write method), and returns the number of
        bytes written. With external_data (a file name relative to the model's directory, or
        to external_data_dir), tensors of at least `threshold` bytes go to that file."""
        opts = None
        try:
            if external_data is not None:
                opts = c_void_p()
                call("olg_write_options_new", byref(opts))
                call("olg_write_options_set_external_data", opts, enc(os.fspath(external_data)),
                     int(threshold))
                if external_data_dir is not None:
                    call("olg_write_options_set_external_data_dir", opts,
                         enc(os.fspath(external_data_dir)))
            if isinstance(f, (str, bytes, os.PathLike)):
                path = os.fsdecode(f)
                call("olg_model_write_file", self.handle, enc(path), opts)
                return os.path.getsize(path)
            if not hasattr(f, "write"):
                raise TypeError("f must be a path or a binary file object, not %s"
                                % type(f).__name__)
            fileno = None
            try:
                fileno = f.fileno()
            except (AttributeError, OSError, io.UnsupportedOperation):
                pass
            if fileno is not None:
                f.flush()
                start = os.lseek(fileno, 0, os.SEEK_CUR)
                call("olg_model_write_fd", self.handle, fileno, opts)
                end = os.lseek(fileno, 0, os.SEEK_CUR)
                try:
                    f.seek(end)  # keep the file object's position in step with the fd
                except (OSError, io.UnsupportedOperation):
                    pass
                return end - start
            written = [0]
            failure = []

            def sink(_ud, data, n):
                try:
                    f.write(ctypes.string_at(data, n))
                    written[0] += n
                    return 0
                except BaseException as e:  # noqa: B902 - reported after the C call returns
                    failure.append(e)
                    return 1
            status = lib.olg_model_write_callback(self.handle, WRITE_FN(sink), None, opts)
            if failure:
                raise failure[0]
            check(status, "olg_model_write_callback")
            return written[0]
        finally:
            if opts is not None:
                lib.olg_write_options_free(opts)

    def to_bytes(self):
        """The serialized model (protobuf wire format)."""
        return _collect("olg_model_write_callback", self.handle, None)

    def to_text(self):
        """The model in ONNX's textual syntax."""
        return _collect("olg_model_print_text", self.handle).decode("utf-8", "replace")

    def to_dot(self):
        """The main graph as a Graphviz digraph."""
        return _collect("olg_model_print_dot", self.handle).decode("utf-8", "replace")

    def to_dot_diff(self, before):
        """What a conversion changed: this model's main graph as a digraph with each node
        coloured by how it relates to `before`'s (kept, rewritten, added) and before's nodes
        that nothing was emitted for drawn apart as removed; the counts are the graph's label."""
        return _collect("olg_model_print_dot_diff", (before.handle, self.handle)).decode(
            "utf-8", "replace")

    def check(self, full=False, allow_unlowered=False, max_errors=0, notes=True, strict=False):
        """Validates the model with olg_check and returns a Diags with every finding:
        `diags.errors` empty means valid (`bool(diags)` is True when it holds anything).
        full=True also runs shape and type inference and reports contradictions (OLG-INFER-*);
        allow_unlowered reports source-framework nodes as warnings; max_errors (0: all) stops
        early; notes=False leaves notes out; strict=True makes errors of what runtimes accept
        but the spec does not (OLG-CHECK-IR-OLD, OLG-CHECK-AXIS-NEGATIVE: warnings otherwise)."""
        diags = Diags()
        with _CheckOptions(full, allow_unlowered, max_errors, notes, strict) as opts:
            status = lib.olg_check(self.handle, opts, diags.handle)
        if status not in (0, ERR_INVALID_MODEL):
            _raise_with(status, "olg_check", diags)
        return diags

    def infer_shapes(self, value_info=True):
        """Fills in the dtype and shape of every value that inference can determine (graph
        outputs included, so that a model built without declaring them is complete) and, with
        value_info (the default), lists every inferred node output of the main graph that is not
        a graph output in value_info, as onnx.shape_inference does, so that a written model
        carries the shapes. Returns a Diags with the warnings; raises an Error whose .diags
        holds every finding when inference cannot accept the model."""
        diags = Diags()
        status = lib.olg_infer_shapes(self.handle, None, diags.handle)
        if status != 0:
            _raise_with(status, "olg_infer_shapes", diags)
        if value_info:
            self._list_value_info()
        return diags

    def _list_value_info(self):
        g = lib.olg_model_graph(self.handle)
        outputs = {lib.olg_graph_output_at(g, i) for i in range(lib.olg_graph_output_count(g))}
        for n in range(lib.olg_graph_node_count(g)):
            for i in range(lib.olg_node_output_count(g, n)):
                v = lib.olg_node_output_at(g, n, i)
                if v == NO_VALUE or v in outputs or lib.olg_value_dtype(g, v) == 0:
                    continue
                call("olg_graph_add_value_info", g, v)

    # ---- graphs ----
    # Graph objects are made on demand and not cached, so that a Model holds no reference to
    # them and is freed as soon as the last Model, Graph or Value referring to it goes away.
    @property
    def graph(self):
        return Graph(self, lib.olg_model_graph(self.handle))

    @property
    def functions(self):
        """The model-local functions as a dict {(domain, name): body Graph} (file order)."""
        out = {}
        d, n, p = c_char_p(), c_char_p(), c_void_p()
        for i in range(lib.olg_model_function_count(self.handle)):
            call("olg_model_function_at", self.handle, i, byref(d), byref(n), byref(p))
            out[(dec(d.value), dec(n.value))] = Graph(self, p.value)
        return out

    def add_function(self, domain, name, body, attributes=()):
        """Adds a function whose body is `body` (a graph from model.subgraph() whose formal
        inputs were added with body.add_formal_input and outputs with body.add_output); its
        nodes may refer to `attributes` by name."""
        names = [enc(a) for a in attributes]
        arr = (c_char_p * max(len(names), 1))(*names)
        call("olg_model_add_function", self.handle, enc(domain), enc(name), body._ptr, arr, len(names))

    def inline_functions(self):
        """Replaces every call of a model-local function by its body (nested calls too,
        attribute references bound) and drops the functions."""
        call("olg_model_inline_functions", self.handle)

    def subgraph(self, name=None):
        """A new graph owned by the model, for an If/Loop/Scan attribute."""
        p = c_void_p()
        call("olg_model_new_subgraph", self.handle, byref(p))
        g = Graph(self, p.value)
        if name is not None:
            g.name = name
        return g

    # ---- model fields ----
    @property
    def ir_version(self):
        return lib.olg_model_ir_version(self.handle)

    @ir_version.setter
    def ir_version(self, v):
        call("olg_model_set_ir_version", self.handle, int(v))

    def set_opset(self, domain, version):
        call("olg_model_set_opset", self.handle, enc(domain), int(version))

    def opset(self, domain=""):
        """The version imported for domain, or None."""
        v = lib.olg_model_opset(self.handle, enc(domain))
        return None if v < 0 else v

    @property
    def opsets(self):
        """{domain: version} in file order."""
        out = {}
        d, v = c_char_p(), c_int64()
        for i in range(lib.olg_model_opset_count(self.handle)):
            call("olg_model_opset_at", self.handle, i, byref(d), byref(v))
            out[dec(d.value)] = v.value
        return out

    @property
    def model_version(self):
        return lib.olg_model_model_version(self.handle)

    @model_version.setter
    def model_version(self, v):
        call("olg_model_set_model_version", self.handle, int(v))

    @property
    def metadata(self):
        """metadata_props as a dict (a copy; use set_metadata to change it)."""
        out = {}
        k, v = c_char_p(), c_char_p()
        for i in range(lib.olg_model_metadata_count(self.handle)):
            call("olg_model_metadata_at", self.handle, i, byref(k), byref(v))
            out[dec(k.value)] = dec(v.value)
        return out

    @metadata.setter
    def metadata(self, props):
        for k, v in dict(props).items():
            self.set_metadata(k, v)

    def set_metadata(self, key, value):
        call("olg_model_set_metadata", self.handle, enc(key), enc(value))

    def __repr__(self):
        if self.closed:
            return "<onnxlegal.Model closed>"
        return "<onnxlegal.Model ir_version=%d opsets=%r graph=%r>" % (
            self.ir_version, self.opsets, self.graph.name)


def _string_field(field):
    code = _FIELDS[field]

    def get(self):
        return dec(lib.olg_model_string(self.handle, code))

    def set_(self, s):
        call("olg_model_set_string", self.handle, code, enc(s))

    return property(get, set_, doc="ModelProto.%s" % field)


for _f in _FIELDS:
    setattr(Model, _f, _string_field(_f))
del _f


class Value:
    """A value of a graph (an input, initializer or node output), named by its id."""
    __slots__ = ("graph", "id")

    def __init__(self, graph, vid):
        self.graph = graph
        self.id = vid

    @property
    def _g(self):
        return self.graph._ptr

    @property
    def name(self):
        return dec(lib.olg_value_name(self._g, self.id))

    @property
    def dtype_code(self):
        """The element type's olg_dtype code (0 when the value has no tensor type)."""
        return lib.olg_value_dtype(self._g, self.id)

    @property
    def dtype_name(self):
        code = self.dtype_code
        return _dtypes.dtype_name(code) if code else None

    @property
    def dtype(self):
        """A numpy dtype when numpy has one, else ONNX's name ("bfloat16"); None when untyped."""
        code = self.dtype_code
        if not code:
            return None
        npdt = _dtypes.numpy_dtype(code)
        return npdt if npdt is not None else _dtypes.dtype_name(code)

    @property
    def shape(self):
        """None when the rank is unknown, else a tuple of int (fixed), str (symbolic) and None."""
        rank = lib.olg_value_rank(self._g, self.id)
        if rank < 0:
            return None
        out = []
        d, p = c_int64(), c_char_p()
        for i in range(rank):
            call("olg_value_dim", self._g, self.id, i, byref(d), byref(p))
            out.append(d.value if d.value >= 0 else dec(p.value))
        return tuple(out)

    def set_type(self, dtype, shape):
        rank, dims, params = _shape_arrays(shape)
        call("olg_value_set_type", self._g, self.id, _dtypes.dtype_code(dtype), rank, dims, params)

    @property
    def producer(self):
        """(Node, output slot), or None for inputs and initializers."""
        n, slot = c_int32(), c_int32()
        status = lib.olg_value_producer(self._g, self.id, byref(n), byref(slot))
        if status == ERR_NOT_FOUND:
            return None
        check(status, "olg_value_producer")
        return Node(self.graph, n.value), slot.value

    @property
    def data_pointer(self):
        """The address of an initializer's bytes inside the model (not a copy)."""
        p, n = c_void_p(), c_size_t()
        call("olg_value_data", self._g, self.id, byref(p), byref(n))
        return p.value or 0

    def numpy(self):
        """A copy of an initializer's data as a numpy array (numeric types numpy has)."""
        p, n = c_void_p(), c_size_t()
        call("olg_value_data", self._g, self.id, byref(p), byref(n))
        npdt = _dtypes.numpy_dtype(self.dtype_code)
        if npdt is None:
            raise TypeError("value %r: numpy has no dtype for %s" % (self.name, self.dtype_name))
        raw = ctypes.string_at(p.value, n.value) if n.value else b""
        return np.frombuffer(raw, dtype=npdt).reshape(self.shape).copy()

    def __eq__(self, other):
        return isinstance(other, Value) and other._g == self._g and other.id == self.id

    def __hash__(self):
        return hash((self._g, self.id))

    def __repr__(self):
        return "<onnxlegal.Value %r %s %r>" % (self.name, self.dtype_name, self.shape)


class Node:
    """A node of a graph, named by its id."""
    __slots__ = ("graph", "id")

    def __init__(self, graph, nid):
        self.graph = graph
        self.id = nid

    @property
    def op(self):
        return dec(lib.olg_node_op(self.graph._ptr, self.id))

    @property
    def domain(self):
        return dec(lib.olg_node_domain(self.graph._ptr, self.id))

    @property
    def name(self):
        return dec(lib.olg_node_name(self.graph._ptr, self.id))

    @property
    def inputs(self):
        """Positional arguments that are single values (None for an omitted input or a literal)."""
        g = self.graph._ptr
        out = []
        for i in range(lib.olg_node_input_count(g, self.id)):
            v = lib.olg_node_input_at(g, self.id, i)
            out.append(Value(self.graph, v) if v >= 0 else None)
        return out

    @property
    def outputs(self):
        g = self.graph._ptr
        out = []
        for i in range(lib.olg_node_output_count(g, self.id)):
            v = lib.olg_node_output_at(g, self.id, i)
            out.append(Value(self.graph, v) if v >= 0 else None)
        return out

    @property
    def attr_names(self):
        g = self.graph._ptr
        return [dec(lib.olg_node_attr_name(g, self.id, i))
                for i in range(lib.olg_node_attr_count(g, self.id))]

    def __repr__(self):
        op = "%s.%s" % (self.domain, self.op) if self.domain else self.op
        return "<onnxlegal.Node %s %r>" % (op, self.name)


class Graph:
    """A graph of a model: the main graph (model.graph) or a subgraph (model.subgraph())."""

    def __init__(self, model, ptr):
        self.model = model
        self._p = ptr

    @property
    def _ptr(self):
        self.model.handle  # raises once the model is closed
        return self._p

    @property
    def name(self):
        return dec(lib.olg_graph_name(self._ptr))

    @name.setter
    def name(self, s):
        call("olg_graph_set_name", self._ptr, enc(s))

    @property
    def doc_string(self):
        return dec(lib.olg_graph_doc_string(self._ptr))

    @doc_string.setter
    def doc_string(self, s):
        call("olg_graph_set_doc_string", self._ptr, enc(s))

    # ---- values ----
    def add_input(self, name, dtype, shape):
        """A graph input of tensor type. dtype: a numpy dtype, a name ("float", "float32") or
        an olg code; shape: None (rank unknown) or a sequence of int, str (symbolic), None."""
        rank, dims, params = _shape_arrays(shape)
        v = c_int32()
        call("olg_graph_add_input", self._ptr, enc(name), _dtypes.dtype_code(dtype), rank, dims,
             params, byref(v))
        return Value(self, v.value)

    def add_initializer(self, name, array, dtype=None):
        """A constant tensor that BORROWS the numpy array's memory (no copy): the array is kept
        alive until the model is freed and must not be changed meanwhile. A non-contiguous or
        byte-swapped array is first made contiguous and native (that copy is kept instead).
        dtype overrides the element type for types numpy lacks (e.g. "bfloat16" over uint16
        data). String arrays are copied."""
        arr = array if isinstance(array, np.ndarray) else np.asarray(array)
        code = _dtypes.dtype_code(dtype if dtype is not None else arr.dtype)
        dims = _array(c_int64, arr.shape)
        v = c_int32()
        if code == _dtypes.STRING:
            items = [s if isinstance(s, bytes) else str(s).encode("utf-8") for s in arr.ravel()]
            strs = _array(c_char_p, items)
            lens = _array(c_size_t, (len(s) for s in items))
            call("olg_graph_add_string_initializer", self._ptr, enc(name), arr.ndim, dims, strs,
                 lens, byref(v))
            return Value(self, v.value)
        if not arr.flags.c_contiguous or not arr.dtype.isnative:
            # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
            arr = np.array(arr, dtype=arr.dtype.newbyteorder("="), order="C", copy=True)
        call("olg_graph_add_initializer", self._ptr, enc(name), code, arr.ndim, dims,
             arr.ctypes.data if arr.nbytes else None, arr.nbytes, DATA_BORROW, _NULL_RELEASE, None,
             byref(v))
        self.model._borrow(arr)
        return Value(self, v.value)

    def add_value(self, name=None):
        """A named value without a type (e.g. a name a subgraph takes from its enclosing graph)."""
        v = c_int32()
        call("olg_graph_add_value", self._ptr, enc(name), byref(v))
        return Value(self, v.value)

    def add_formal_input(self, value):
        """Lists an untyped value (add_value) as the next formal input of a function body."""
        value = self._value(value)
        call("olg_graph_add_formal_input", self._ptr, value.id)
        return value

    def add_output(self, value):
        value = self._value(value)
        call("olg_graph_add_output", self._ptr, value.id)
        return value

    def add_value_info(self, value):
        value = self._value(value)
        call("olg_graph_add_value_info", self._ptr, value.id)
        return value

    def find(self, name):
        """The value named `name` in this graph, or None."""
        v = c_int32()
        status = lib.olg_graph_find_value(self._ptr, enc(name), byref(v))
        if status == ERR_NOT_FOUND:
            return None
        check(status, "olg_graph_find_value")
        return Value(self, v.value)

    def _value(self, v):
        """A Value of this graph for v: a Value of this graph, a name, or a Value of an enclosing
        graph (then a value of the same name stands for it here, as ONNX subgraphs capture
        outer names)."""
        if isinstance(v, Value):
            if v._g == self._p:
                return v
            if v.graph.model is not self.model:
                raise ValueError("value %r belongs to another model" % v.name)
            v = v.name
        if isinstance(v, str):
            found = self.find(v)
            if found is not None:
                return found
            if lib.olg_model_graph(self.model.handle) == self._p:
                raise KeyError("no value named %r in graph %r" % (v, self.name))
            return self.add_value(v)
        raise TypeError("expected a Value or a value name, got %r" % (v,))

    def _list(self, count_fn, at_fn):
        g = self._ptr
        return [Value(self, getattr(lib, at_fn)(g, i)) for i in range(getattr(lib, count_fn)(g))]

    @property
    def inputs(self):
        return self._list("olg_graph_input_count", "olg_graph_input_at")

    @property
    def outputs(self):
        return self._list("olg_graph_output_count", "olg_graph_output_at")

    @property
    def initializers(self):
        return self._list("olg_graph_initializer_count", "olg_graph_initializer_at")

    @property
    def nodes(self):
        return [Node(self, i) for i in range(lib.olg_graph_node_count(self._ptr))]

    # ---- nodes ----
    def _end(self, nid, outputs):
        if isinstance(outputs, (int, np.integer)) and not isinstance(outputs, bool):
            n, names = int(outputs), None
        else:
            names_list = [None if o is None else enc(o) for o in outputs]
            n, names = len(names_list), _array(c_char_p, names_list)
        outs = (c_int32 * max(n, 1))()
        call("olg_node_end", self._ptr, nid, n, names, outs)
        vals = tuple(Value(self, outs[i]) if outs[i] >= 0 else None for i in range(n))
        return vals[0] if n == 1 else vals

    def node(self, op, inputs=(), outputs=1, domain="", name=None, attrs=None, **kwattrs):
        """An ONNX-domain (or custom-domain) node. inputs: Values, value names, or None for an
        omitted optional input. outputs: a count, or a list of names (None: generated; "":
        omitted). Attributes (attrs dict and keyword arguments) are typed from their Python
        values: int, float, str, bytes, list of int / float / str, numpy array (tensor), Graph
        (subgraph), list of Graph. An empty list is an empty list of ints. Returns the output
        Value, or a tuple of them when there is not exactly one."""
        g = self._ptr
        nid = c_int32()
        call("olg_node_begin", g, enc(domain), enc(op), enc(name), byref(nid))
        nid = nid.value
        for x in inputs:
            if x is None:
                call("olg_node_arg_none", g, nid)
            else:
                call("olg_node_arg_value", g, nid, self._value(x).id)
        all_attrs = dict(attrs or {})
        all_attrs.update(kwattrs)
        for key, val in all_attrs.items():
            self._set_attr(nid, key, val)
        return self._end(nid, outputs)

    def _set_attr(self, nid, key, val):
        g, k = self._ptr, enc(key)
        if isinstance(val, Graph):
            if val.model is not self.model:
                raise ValueError("attribute %r: the subgraph belongs to another model" % key)
            call("olg_node_attr_graph", g, nid, k, val._ptr)
        elif isinstance(val, (bool, np.bool_, int, np.integer)):
            call("olg_node_attr_int", g, nid, k, int(val))
        elif isinstance(val, (float, np.floating)):
            call("olg_node_attr_float", g, nid, k, float(val))
        elif isinstance(val, str):
            call("olg_node_attr_string", g, nid, k, enc(val))
        elif isinstance(val, (bytes, bytearray)):
            data = bytes(val)
            call("olg_node_attr_bytes", g, nid, k, data, len(data))
        elif isinstance(val, np.ndarray):
            arr = val
            if not arr.flags.c_contiguous or not arr.dtype.isnative:
                arr = np.array(arr, dtype=arr.dtype.newbyteorder("="), order="C", copy=True)
            code = _dtypes.dtype_code(arr.dtype)
            call("olg_node_attr_tensor", g, nid, k, code, arr.ndim, _array(c_int64, arr.shape),
                 arr.ctypes.data if arr.nbytes else None, arr.nbytes)  # copied by the library
        elif isinstance(val, (list, tuple)):
            items = list(val)
            if items and all(isinstance(x, Graph) for x in items):
                if any(x.model is not self.model for x in items):
                    raise ValueError("attribute %r: a subgraph belongs to another model" % key)
                call("olg_node_attr_graphs", g, nid, k, _array(c_void_p, (x._ptr for x in items)),
                     len(items))
            elif all(isinstance(x, (bool, np.bool_, int, np.integer)) for x in items):
                call("olg_node_attr_ints", g, nid, k, _array(c_int64, (int(x) for x in items)),
                     len(items))
            elif all(isinstance(x, (int, float, np.integer, np.floating)) for x in items):
                call("olg_node_attr_floats", g, nid, k, _array(c_float, (float(x) for x in items)),
                     len(items))
            elif all(isinstance(x, str) for x in items):
                call("olg_node_attr_strings", g, nid, k, _array(c_char_p, (enc(x) for x in items)),
                     len(items))
            else:
                raise TypeError("attribute %r: a list must hold only ints, only numbers, only "
                                "strs or only Graphs" % key)
        else:
            raise TypeError("attribute %r: cannot infer an ONNX type for %r" % (key, val))

    def source_node(self, domain, op, args, n_outputs=1, name=None):
        """A framework node (e.g. domain "aten") with positional arguments as the framework's op
        schema lists them: a Value; a list of Values (None entries allowed); None; bool; int;
        float; str; a list of ints; a list of floats (an empty list is an empty int list).
        n_outputs: a count or a list of output names. Returns a Value or a tuple of them."""
        g = self._ptr
        nid = c_int32()
        call("olg_node_begin", g, enc(domain), enc(op), enc(name), byref(nid))
        nid = nid.value
        for i, a in enumerate(args):
            if a is None:
                call("olg_node_arg_none", g, nid)
            elif isinstance(a, Value):
                call("olg_node_arg_value", g, nid, self._value(a).id)
            elif isinstance(a, (bool, np.bool_)):
                call("olg_node_arg_bool", g, nid, int(bool(a)))
            elif isinstance(a, (int, np.integer)):
                call("olg_node_arg_int", g, nid, int(a))
            elif isinstance(a, (float, np.floating)):
                call("olg_node_arg_float", g, nid, float(a))
            elif isinstance(a, str):
                call("olg_node_arg_string", g, nid, enc(a))
            elif isinstance(a, (list, tuple)):
                items = list(a)
                if any(isinstance(x, Value) for x in items):
                    if not all(x is None or isinstance(x, Value) for x in items):
                        raise TypeError("argument %d of %s.%s: a list of values may hold only "
                                        "Values and None" % (i, domain, op))
                    ids = [NO_VALUE if x is None else self._value(x).id for x in items]
                    call("olg_node_arg_values", g, nid, _array(c_int32, ids), len(ids))
                elif all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
                         for x in items):
                    call("olg_node_arg_ints", g, nid, _array(c_int64, (int(x) for x in items)),
                         len(items))
                elif all(isinstance(x, (int, float, np.integer, np.floating)) for x in items):
                    call("olg_node_arg_floats", g, nid,
                         _array(c_double, (float(x) for x in items)), len(items))
                else:
                    raise TypeError("argument %d of %s.%s: unsupported list %r" % (i, domain, op, a))
            else:
                raise TypeError("argument %d of %s.%s: unsupported %r" % (i, domain, op, a))
        return self._end(nid, n_outputs)

    def __eq__(self, other):
        return isinstance(other, Graph) and other._p == self._p

    def __hash__(self):
        return hash(self._p)

    def __repr__(self):
        return "<onnxlegal.Graph %r>" % self.name


def _raise_with(status, function, diags):
    """Raises the Error for status with the diagnostics attached (.diags) and in its message."""
    try:
        check(status, function)
    except Error as e:
        e.diags = diags
        if len(diags):
            e.message = (e.message + "\n" if e.message else "") + str(diags).rstrip("\n")
        raise


class _CheckOptions:
    """olg_check_options on the C heap (no struct laid out here), as a context manager."""

    def __init__(self, full, allow_unlowered, max_errors, notes, strict=False):
        self.args = (int(bool(full)), int(bool(allow_unlowered)), int(max_errors), int(bool(notes)))
        self.strict = int(bool(strict))

    def __enter__(self):
        h = c_void_p()
        call("olg_check_options_new", byref(h))
        self._h = h.value
        try:
            call("olg_check_options_set", self._h, *self.args)
            call("olg_check_options_set_strict", self._h, self.strict)
        except BaseException:
            lib.olg_check_options_free(self._h)
            raise
        return self._h

    def __exit__(self, *exc):
        lib.olg_check_options_free(self._h)
        return False


def _format_diag(h, i):
    n = lib.olg_diag_format(h, i, None, 0)
    buf = create_string_buffer(n + 1)
    lib.olg_diag_format(h, i, buf, n + 1)
    return dec(buf.value)


class Diag(dict):
    """One diagnostic: severity ("note", "warning", "error"), code, node, domain, op, opset (-1
    when it does not apply), message, min_opset (for a lowering refusal, the lowest opset that
    works; else -1), node_index (the node's place in its graph, naming an unnamed node; -1
    unknown) and output (the node's first output, "" unknown), as keys and as attributes.
    str() is the library's one rendering (olg_diag_format), as the CLI and C++ print it."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __str__(self):
        if self.get("text"):
            return self["text"]
        d = Diags()  # a Diag made by hand: rendered by the library through a list of one
        d.add(self["severity"], self["code"], self["message"], node=self.get("node"),
              domain=self.get("domain"), op=self.get("op"), opset=self.get("opset", -1))
        return d[0]["text"]


class Diags:
    """A list of diagnostics (olg_diags), freed on close() or collection. Iterable (Diag items),
    indexable, len(); bool(diags) is True when it holds anything; .errors and .warnings are the
    lists of each; str() is one line per diagnostic (severity, code, node, op, opset, message)."""

    def __init__(self):
        h = c_void_p()
        call("olg_diags_new", byref(h), None)
        self._h = h.value
        self._finalizer = weakref.finalize(self, lib.olg_diags_free, self._h)

    @property
    def handle(self):
        if self._h is None:
            raise StateError(ERR_STATE, "the diagnostics list is closed")
        return self._h

    def close(self):
        self._h = None
        self._finalizer()

    def __len__(self):
        return lib.olg_diags_count(self.handle)

    def __bool__(self):
        return len(self) > 0

    @property
    def error_count(self):
        return lib.olg_diags_error_count(self.handle)

    @property
    def lost(self):
        """Diagnostics that could not be recorded for want of memory."""
        return lib.olg_diags_lost(self.handle)

    def _at(self, h, i):
        return Diag(
            severity=("note", "warning", "error")[lib.olg_diag_severity(h, i)],
            code=dec(lib.olg_diag_code(h, i)),
            node=dec(lib.olg_diag_node(h, i)),
            domain=dec(lib.olg_diag_domain(h, i)),
            op=dec(lib.olg_diag_op(h, i)),
            opset=lib.olg_diag_opset(h, i),
            message=dec(lib.olg_diag_message(h, i)),
            min_opset=(lib.olg_diag_min_opset(h, i)
                       if "olg_diag_min_opset" not in lib.missing else -1),
            node_index=lib.olg_diag_node_index(h, i),
            output=dec(lib.olg_diag_output(h, i)),
            text=_format_diag(h, i),
        )

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return [self._at(self.handle, j) for j in range(n)[i]]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("diagnostic index out of range")
        return self._at(self.handle, i)

    def __iter__(self):
        h = self.handle
        for i in range(lib.olg_diags_count(h)):
            yield self._at(h, i)

    @property
    def errors(self):
        return [d for d in self if d.severity == "error"]

    @property
    def warnings(self):
        return [d for d in self if d.severity == "warning"]

    @property
    def notes(self):
        return [d for d in self if d.severity == "note"]

    def __str__(self):
        return "".join(str(d) + "\n" for d in self)

    def __repr__(self):
        if self._h is None:
            return "<onnxlegal.Diags closed>"
        return "<onnxlegal.Diags: %d errors, %d warnings, %d notes>" % (
            len(self.errors), len(self.warnings), len(self.notes))

    def add(self, severity, code, message, node=None, domain=None, op=None, opset=-1):
        sev = {"note": 0, "warning": 1, "error": 2}[severity]
        call("olg_diags_add", self.handle, sev, enc(code), enc(node), enc(domain), enc(op),
             int(opset), enc(message))


__all__ = ["Model", "Graph", "Value", "Node", "Diags", "Diag", "Error"]
