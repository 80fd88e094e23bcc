"""The command-line tool (build/bin/onnxlegal): help texts, exit statuses (0 success, 1 bad
model, 2 usage or I/O), one-line reasons on stderr, `info` against what ONNX itself reads from
a model of ONNX's test data, `print` and `dot` output their consumers accept, and `copy`
round trips (with and without external data) equal as ONNX reads them."""
import collections
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")
TESTDATA = "/usr/share/libonnx-testdata/data"
PARAMS_MODEL = os.path.join(TESTDATA, "pytorch-operator", "test_operator_params", "model.onnx")
IF_MODEL = os.path.join(TESTDATA, "node", "test_if", "model.onnx")
COMMANDS = ["info", "print", "dot", "copy"]

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL),
                                reason="%s is not built (make tool)" % TOOL)
needs_testdata = pytest.mark.skipif(not os.path.exists(PARAMS_MODEL),
                                    reason="ONNX's test data (libonnx-testdata) is not installed")


def run(*args, input=None):
    return subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True, input=input)


def one_line_error(r, prefix):
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(prefix), r.stderr
    return lines[0]


# ---- help, version, usage errors ---------------------------------------------------------------

def test_help_lists_every_command():
    for flag in ("--help", "-h", "help"):
        r = run(flag)
        assert r.returncode == 0 and r.stderr == ""
        assert r.stdout.startswith("usage: onnxlegal COMMAND")
        for c in COMMANDS:
            assert "\n  %s " % c in r.stdout, c
    assert run().returncode == 2


@pytest.mark.parametrize("cmd", COMMANDS)
def test_each_command_has_help(cmd):
    for args in ((cmd, "--help"), (cmd, "-h"), ("help", cmd)):
        r = run(*args)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("usage: onnxlegal %s " % cmd)


def test_version_matches_the_library():
    import onnxlegal
    r = run("--version")
    assert r.returncode == 0
    assert r.stdout.startswith("onnxlegal %s (library %s" % (onnxlegal.version(), onnxlegal.version()))


@pytest.mark.parametrize("args, reason", [
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["info"], "a MODEL is required"),
    (["info", "a.onnx", "b.onnx"], "too many arguments"),
    (["info", "--bogus", "a.onnx"], "unknown option '--bogus'"),
    (["print", "a.onnx", "-o"], "-o needs a FILE"),
    (["copy", "a.onnx"], "IN and OUT are required"),
    (["copy", "a.onnx", "b.onnx", "--threshold", "12x", "--external-data", "w.bin"],
     "--threshold takes a number of bytes"),
    (["copy", "a.onnx", "b.onnx", "--threshold", "12"], "--threshold needs --external-data"),
    (["copy", "a.onnx", "b.onnx", "--external-data"], "--external-data needs a value"),
    (["help", "nope"], "unknown command 'nope'"),
])
def test_usage_errors_exit_2_with_one_line(args, reason):
    r = run(*args)
    assert r.returncode == 2
    line = one_line_error(r, "onnxlegal: ")
    assert reason in line


# ---- reading failures --------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", ["info", "print", "dot"])
def test_missing_file_is_an_io_error(cmd, tmp_path):
    path = tmp_path / "absent.onnx"
    r = run(cmd, path)
    assert r.returncode == 2
    one_line_error(r, "onnxlegal: %s: reading %s: " % (cmd, path))
    assert r.stdout == ""


@pytest.mark.parametrize("cmd", ["info", "print", "copy"])
def test_malformed_model_exits_1(cmd, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07\x12\xff\xff\xff\x0fnot a model")
    args = [cmd, bad] + ([tmp_path / "out.onnx"] if cmd == "copy" else [])
    r = run(*args)
    assert r.returncode == 1, r.stderr
    one_line_error(r, "onnxlegal: %s: reading %s: " % (cmd, bad))
    assert not (tmp_path / "out.onnx").exists()


# ---- info --------------------------------------------------------------------------------------

def expected_info(path):
    """What `info` must say, computed by ONNX's own reader."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    m = onnx.load(path)

    def ty(vi):
        tt = vi.type.tensor_type
        name = onnx.TensorProto.DataType.Name(tt.elem_type).lower()
        if not tt.HasField("shape"):
            return name + "[*]"
        dims = [str(d.dim_value) if d.HasField("dim_value") else
                (d.dim_param if d.HasField("dim_param") else "?") for d in tt.shape.dim]
        return "%s[%s]" % (name, ",".join(dims))

    ops = collections.Counter((n.domain + "." if n.domain else "") + n.op_type for n in m.graph.node)
    nbytes = sum(numpy_helper.to_array(t).nbytes for t in m.graph.initializer)
    lines = [
        "model: %s" % path,
        "ir_version: %d" % m.ir_version,
        "opsets: " + ", ".join("%s %d" % (o.domain or "ai.onnx", o.version) for o in m.opset_import),
        "producer: %s" % " ".join(x for x in (m.producer_name, m.producer_version) if x),
        "graph: %s" % m.graph.name,
        "inputs: %d" % len(m.graph.input),
        *["  %s: %s" % (i.name, ty(i)) for i in m.graph.input],
        "outputs: %d" % len(m.graph.output),
        *["  %s: %s" % (o.name, ty(o)) for o in m.graph.output],
        "nodes: %d" % len(m.graph.node),
        *["  %s: %d" % (op, n) for op, n in sorted(ops.items(), key=lambda kv: (-kv[1], kv[0]))],
    ]
    return lines, len(m.graph.initializer), nbytes


@needs_testdata
@pytest.mark.parametrize("path", [PARAMS_MODEL, IF_MODEL])
def test_info_agrees_with_onnx(path):
    r = run("info", path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    want, n_inits, nbytes = expected_info(path)
    got = r.stdout.splitlines()
    # op lines go on with the lowest opset each converts to: "  Conv: 2 (opset >= 7)"
    assert [g.split(" (")[0] for g in got[:len(want)]] == want
    assert got[len(want)].startswith("converts to: ")
    assert got[len(want) + 1] == "initializers: %d, %d bytes" % (n_inits, nbytes)
    assert len(got) == len(want) + 2


def test_info_counts_ops_most_frequent_first(tmp_path):
    import onnxlegal
    if "olg_model_write_file" in onnxlegal.lib.missing:
        pytest.skip("the protobuf writer is not in this build yet")
    with onnxlegal.Model(opset={"": 17, "com.x": 1}) as m:
        g = m.graph
        v = g.add_input("x", np.float32, ["N", 3])
        for op in ["Relu", "Neg", "Relu", "Abs", "Relu", "Neg"]:
            v = g.node(op, [v])
        v = g.node("Foo", [v], domain="com.x")
        g.add_output(v)
        g.add_initializer("w", np.zeros((5, 7), np.float64))
        m.write(tmp_path / "m.onnx")
    r = run("info", tmp_path / "m.onnx")
    assert r.returncode == 0, r.stderr
    assert ("nodes: 7\n  Relu: 3 (opset >= 7)\n  Neg: 2 (opset >= 7)\n  Abs: 1 (opset >= 7)\n"
            "  com.x.Foo: 1 (no conversion)\n") in r.stdout
    assert "opsets: ai.onnx 17, com.x 1\n" in r.stdout
    assert "  x: float[N,3]\n" in r.stdout
    assert "initializers: 1, 280 bytes\n" in r.stdout


# ---- print and dot -----------------------------------------------------------------------------

@needs_testdata
def test_print_parses_back_with_onnx(tmp_path):
    onnx = pytest.importorskip("onnx")
    import onnx.parser
    path = os.path.join(TESTDATA, "simple", "test_single_relu_model", "model.onnx")
    r = run("print", path, "--weights")
    assert r.returncode == 0, r.stderr
    orig = onnx.load(path)
    labels = ["[%s] " % n.name for n in orig.graph.node if n.name]
    assert labels and all(label in r.stdout for label in labels)
    # node labels are newer syntax than python3-onnx 1.12's parser: it reads the rest
    text = r.stdout
    for label in labels:
        text = text.replace(label, "")
    parsed = onnx.parser.parse_model(text)
    assert [n.op_type for n in parsed.graph.node] == [n.op_type for n in orig.graph.node]
    assert [i.name for i in parsed.graph.input] == [i.name for i in orig.graph.input]
    out = tmp_path / "m.txt"
    r2 = run("print", path, "-o", out, "--weights")
    assert r2.returncode == 0 and r2.stdout == "" and out.read_text() == r.stdout


@needs_testdata
@pytest.mark.parametrize("path", [PARAMS_MODEL, IF_MODEL])
def test_dot_is_accepted_by_graphviz(path):
    r = run("dot", path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("digraph ")
    if not shutil.which("dot"):
        pytest.skip("graphviz is not installed")
    svg = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True, text=True)
    assert svg.returncode == 0, svg.stderr
    assert "<svg" in svg.stdout


def test_print_to_a_full_device_is_an_io_error():
    if not os.path.exists("/dev/full") or not os.path.exists(PARAMS_MODEL):
        pytest.skip("needs /dev/full and the test data")
    r = run("print", PARAMS_MODEL, "-o", "/dev/full")
    assert r.returncode == 2
    one_line_error(r, "onnxlegal: print: writing /dev/full: ")


# ---- copy --------------------------------------------------------------------------------------

@needs_testdata
@pytest.mark.parametrize("path", [PARAMS_MODEL, IF_MODEL])
def test_copy_round_trip_is_equal(path, tmp_path):
    onnx = pytest.importorskip("onnx")
    out = tmp_path / "out.onnx"
    r = run("copy", path, out)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    assert onnx.load(str(out)) == onnx.load(path)


def test_copy_with_external_data(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    import onnxlegal
    if "olg_model_write_file" in onnxlegal.lib.missing:
        pytest.skip("the protobuf writer is not in this build yet")
    big = np.arange(4096, dtype=np.float32).reshape(64, 64)
    small = np.ones((64,), np.float32)
    with onnxlegal.Model(opset=17) as m:
        g = m.graph
        x = g.add_input("x", np.float32, [1, 64])
        y = g.node("Add", [g.node("MatMul", [x, g.add_initializer("big", big)]),
                           g.add_initializer("small", small)], outputs=["y"])
        y.set_type(np.float32, [1, 64])
        g.add_output(y)
        m.write(tmp_path / "in.onnx")
    r = run("copy", tmp_path / "in.onnx", tmp_path / "out.onnx", "--external-data", "w.bin",
            "--threshold=1024")
    assert r.returncode == 0, r.stderr
    data = tmp_path / "w.bin"
    assert data.exists() and big.nbytes <= data.stat().st_size < big.nbytes + small.nbytes
    onnx.checker.check_model(str(tmp_path / "out.onnx"), full_check=True)
    refs = onnx.load(str(tmp_path / "out.onnx"), load_external_data=False)
    where = {t.name: t.data_location for t in refs.graph.initializer}
    assert where == {"big": onnx.TensorProto.EXTERNAL, "small": onnx.TensorProto.DEFAULT}
    out = onnx.load(str(tmp_path / "out.onnx"))
    inits = {t.name: numpy_helper.to_array(t) for t in out.graph.initializer}
    assert np.array_equal(inits["big"], big) and np.array_equal(inits["small"], small)
    # the copy of the copy (external data read back through the mapping) is the same model
    r = run("copy", tmp_path / "out.onnx", tmp_path / "again.onnx")
    assert r.returncode == 0, r.stderr
    assert np.array_equal(numpy_helper.to_array(onnx.load(str(tmp_path / "again.onnx")).graph.initializer[0]), big)


@needs_testdata
def test_copy_to_an_unwritable_place_is_an_io_error(tmp_path):
    out = tmp_path / "no" / "such" / "dir" / "out.onnx"
    r = run("copy", PARAMS_MODEL, out)
    assert r.returncode == 2
    one_line_error(r, "onnxlegal: copy: writing %s: " % out)


def test_write_into_a_fifo_keeps_it_a_fifo(tmp_path):
    """A device or pipe named as OUT is written into (a temporary file renamed over it would
    replace it: as root, `onnxlegal convert m.onnx /dev/null` replaced /dev/null); a directory
    is refused."""
    import stat
    import threading
    src = _tiny(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    r = run("copy", src, fifo)
    t.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced by a file"
    assert run("copy", src, tmp_path / "plain.onnx").returncode == 0
    assert got.get("bytes") == (tmp_path / "plain.onnx").read_bytes()
    d = tmp_path / "adir"
    d.mkdir()
    r = run("copy", src, d)
    assert r.returncode != 0 and "it is a directory" in r.stderr, r.stderr
    assert d.is_dir() and not any(d.iterdir())


# ---- issue 12: what users of Polygraphy, onnxsim and Netron expect ---------------------------

def _tiny(tmp_path, with_grid=False, big=False):
    import onnxlegal
    with onnxlegal.Model(opset=17) as m:
        g = m.graph
        x = g.add_input("x", np.float32, [1, 1, 4, 4])
        w = g.add_initializer("w", np.arange(1000 if big else 4, dtype=np.float32).reshape(
            (10, 10, 10) if big else (4,)))
        y = g.node("Relu", [x], name="r")
        if with_grid:
            grid = g.add_input("grid", np.float32, [1, 4, 4, 2])
            y = g.node("GridSample", [y, grid], name="gs")
        g.add_output(y)
        m.infer_shapes()
        path = tmp_path / "m.onnx"
        m.write(str(path))
    return path


def test_info_and_ops_model_give_the_lowest_opset(tmp_path):
    path = _tiny(tmp_path, with_grid=True)
    r = run("info", path)
    assert r.returncode == 0, r.stderr
    # GridSample is ONNX 16; onnxlegal decomposes it for 7..15
    assert "  GridSample: 1 (opset >= 7, natively >= 16)\n" in r.stdout
    assert "  Relu: 1 (opset >= 7)\n" in r.stdout
    assert "converts to: opset >= 7\n" in r.stdout
    r = run("ops", path)  # README shows `onnxlegal ops MODEL`: it works
    assert r.returncode == 0, r.stderr
    rows = {l.split()[0]: l.split()[1:] for l in r.stdout.splitlines()[1:] if l and l[0] != "l"}
    assert rows["GridSample"] == ["1", "7", "16"] and rows["Relu"] == ["1", "7", "same"]
    assert r.stdout.rstrip().endswith("lowest opset for the whole model: 7")
    # the README's tool line names only commands that exist
    readme = open(os.path.join(ROOT, "README.md")).read()
    line = [l for l in readme.splitlines() if l.startswith("`onnxlegal ")][0]
    top = run("--help").stdout
    for cmd in line.split()[1].strip("`").split("|"):
        assert re.search(r"^  %s\s" % cmd, top, re.M), cmd


def test_print_elides_large_tensors_unless_weights(tmp_path):
    path = _tiny(tmp_path, big=True)
    r = run("print", path)
    assert r.returncode == 0, r.stderr
    assert '"w" = {... 1000 elements elided}' in r.stdout.replace("w = ", '"w" = ')
    assert "999" not in r.stdout
    full = run("print", path, "--weights")
    assert full.returncode == 0 and "999" in full.stdout and "elided" not in full.stdout
    onnx = pytest.importorskip("onnx")
    import onnx.parser
    # node labels are newer syntax than python3-onnx 1.12's parser: it reads the rest
    parsed = onnx.parser.parse_model(full.stdout.replace("[r] ", ""))
    assert len(parsed.graph.initializer) == 1


def test_dash_is_stdin_and_stdout(tmp_path):
    path = _tiny(tmp_path)
    data = path.read_bytes()
    for cmd in ("info", "print", "dot", "check", "ops"):
        r = subprocess.run([TOOL, cmd, "-"], input=data, capture_output=True)
        assert r.returncode == 0, (cmd, r.stderr)
        assert (b"valid" if cmd == "check" else b"Relu") in r.stdout, cmd
    r = subprocess.run([TOOL, "copy", "-", "-"], input=data, capture_output=True)
    assert r.returncode == 0 and r.stdout == data  # canonical bytes back, byte for byte
    r = subprocess.run([TOOL, "print", path, "-o", "-"], capture_output=True, text=True)
    assert r.returncode == 0 and "Relu" in r.stdout
    r = subprocess.run([TOOL, "copy", path, "-", "--external-data", "w.bin"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "standard output" in r.stderr


@pytest.mark.parametrize("cmd", ["info", "print", "check"])
def test_parse_error_hints(cmd, tmp_path):
    model = _tiny(tmp_path, big=True)
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(model.read_bytes()[:200])
    lfs = tmp_path / "lfs.onnx"
    lfs.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0123abcd\nsize 46827520\n")
    for path, hint in ((cut, "the input ends early: a truncated download or copy?"),
                       (lfs, "this is a Git LFS pointer, not a model")):
        r = run(cmd, path)
        assert r.returncode == 1, r.stderr
        out = r.stdout if cmd == "check" else r.stderr
        lines = [l for l in out.splitlines() if hint in l]
        assert len(lines) == 1, out
        assert ("reading %s: " % path) in lines[0]
        assert ("'%s'" % path) not in lines[0]  # the path once, not "reading X: reading 'X'"


def test_read_failure_is_one_clear_message(tmp_path):
    missing = tmp_path / "absent.onnx"
    for cmd in ("check", "info"):
        r = run(cmd, missing)
        assert r.returncode == 2
        line = one_line_error(r, "onnxlegal: %s: reading %s: " % (cmd, missing))
        assert line.count(str(missing)) <= 2 and "reading '%s'" % missing not in line


def test_dot_of_resnet18_has_one_box_per_op_and_typed_edges(tmp_path):
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    onnx = pytest.importorskip("onnx")
    path = tmp_path / "resnet18.onnx"
    torch.manual_seed(0)
    torch.onnx.export(torchvision.models.resnet18().eval(), torch.randn(1, 3, 224, 224), str(path),
                      opset_version=17)
    proto = onnx.load(str(path))
    r = run("dot", path)
    assert r.returncode == 0, r.stderr
    boxes = re.findall(r"^  (\w+) \[shape=(\w+)", r.stdout, re.M)
    ops = [b for b in boxes if b[1] == "box"]
    assert len(ops) == len(proto.graph.node)
    # no weight boxes: besides the ops only the graph's inputs and outputs
    assert len(boxes) == len(proto.graph.node) + len(proto.graph.input) + len(proto.graph.output)
    assert "fc.weight: float[1000,512]" in r.stdout  # folded into Gemm's box
    edges = re.findall(r'-> \w+ \[label="([^"]*)"\]', r.stdout)
    assert edges and all(re.search(r"\\nfloat\[[0-9,]+\]$", e) for e in edges), edges[:5]
    if shutil.which("dot"):
        svg = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True, text=True)
        assert svg.returncode == 0 and "<svg" in svg.stdout
    # info: the lowest opset accounts for each node's attributes (torch writes MaxPool's
    # ceil_mode=0, the old versions' behaviour, so it does not need MaxPool-10), and it is the
    # one conversion accepts
    info = run("info", path).stdout
    low = int(re.search(r"^converts to: opset >= (\d+)$", info, re.M).group(1))
    assert low == 7 and "  MaxPool: 1 (opset >= 7)\n" in info, info
    assert run("convert", path, tmp_path / "ok.onnx", "--opset", low).returncode == 0
    # print of the same model: weights elided, so it stays small
    p = run("print", path)
    assert p.returncode == 0 and len(p.stdout) < 100000 and "fc.weight" in p.stdout


def test_dot_diff_colours_what_a_conversion_changed(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    # LayerNormalization (17) is decomposed at 9; Relu is kept; Dropout in inference is the
    # identity, so nothing is emitted for it
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    bias = helper.make_tensor("bias", TensorProto.FLOAT, [4], [0.0, 0.5, 1.0, 1.5])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="act"),
             helper.make_node("Dropout", ["r"], ["d"], name="drop"),
             helper.make_node("LayerNormalization", ["d", "scale", "bias"], ["y"], name="norm",
                              axis=-1)]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], [y], [scale, bias]),
                              opset_imports=[helper.make_opsetid("", 17)])
    before, after = tmp_path / "m17.onnx", tmp_path / "m9.onnx"
    onnx.save(model, str(before))
    r = run("convert", before, after, "--opset", 9)
    assert r.returncode == 0, r.stderr
    r = run("dot", "--diff", before, after)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    label = re.search(r'label="(\d+) kept, (\d+) rewritten, (\d+) added, (\d+) removed"', r.stdout)
    converted = onnx.load(str(after))
    n_norm = sum(1 for n in converted.graph.node if n.name.startswith("norm/"))
    assert n_norm > 1  # decomposed
    assert label and tuple(map(int, label.groups())) == (1, n_norm, 0, 1), r.stdout
    # each node's box: grey kept Relu, orange parts of the layer norm naming what they came
    # from, the Dropout drawn apart as removed
    assert re.search(r'fillcolor="#eeeeee", label="Relu\\nact"', r.stdout)
    assert len(re.findall(r'fillcolor="#ffd8a8", label="[^"]*\\n\(from LayerNormalization\)[^"]*"',
                          r.stdout)) == n_norm
    assert re.search(r'removed\d+ \[[^\]]*label="Dropout\\ndrop"', r.stdout)
    assert len(re.findall(r"^  n\d+ \[shape=box", r.stdout, re.M)) == len(converted.graph.node)
    if shutil.which("dot"):
        svg = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True, text=True)
        assert svg.returncode == 0 and "<svg" in svg.stdout, svg.stderr
    # the same picture from Python, and the usage errors
    import onnxlegal
    m17, m9 = onnxlegal.Model.read(str(before)), onnxlegal.Model.read(str(after))
    try:
        assert "1 kept, %d rewritten, 0 added, 1 removed" % n_norm in m9.to_dot_diff(m17)
    finally:
        m9.close()
        m17.close()
    assert run("dot", "--diff", before).returncode == 2
    assert run("dot", "--diff", before, after, after).returncode == 2
    assert run("dot", "--diff", "-", "-").returncode == 2
    r = run("dot", "--diff", before, tmp_path / "missing.onnx")
    assert r.returncode == 2 and "missing.onnx" in r.stderr


def test_a_model_over_2_gib_is_refused_naming_the_commands_option(tmp_path):
    """A model whose tensors would make it more than 2 GiB inline (its weights in a sparse 2.4 GB
    external file: nothing on disk) is refused before anything is written, and the command names
    its own option for external data, not the C option the library's message names."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    with open(tmp_path / "w.bin", "wb") as f:
        f.truncate(2400000000)
    t = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[600000000],
                    data_location=TensorProto.EXTERNAL)
    for k, v in (("location", "w.bin"), ("offset", "0"), ("length", "2400000000")):
        t.external_data.add(key=k, value=v)
    g = helper.make_graph([helper.make_node("Add", ["x", "W"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [600000000])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [600000000])], [t])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    (tmp_path / "big.onnx").write_bytes(m.SerializeToString())
    for cmd, extra, option in (("convert", ["--opset", "17"], "--external-data writes"),
                               ("copy", [], "--external-data FILE writes")):
        r = run(cmd, tmp_path / "big.onnx", tmp_path / "out.onnx", *extra)
        assert r.returncode == 1, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 2, r.stderr
        assert "protobuf readers refuse more than 2 GiB" in lines[0], r.stderr
        assert lines[1].startswith("onnxlegal: %s: %s" % (cmd, option)), r.stderr
        assert not (tmp_path / "out.onnx").exists()


def test_an_opaque_value_into_a_tensor_input_is_refused_by_check_and_convert(tmp_path):
    """Hardmax of a graph input typed opaque (found by fuzz_pipeline): `check` names the type
    constraint it breaks, and `convert` refuses the node instead of writing a model whose output
    has no type."""
    onnx = pytest.importorskip("onnx")
    from onnx import TypeProto, ValueInfoProto, helper
    x = ValueInfoProto(name="x", type=TypeProto(opaque_type=TypeProto.Opaque(domain="d", name="n")))
    g = helper.make_graph([helper.make_node("Hardmax", ["x"], ["y"])], "g", [x],
                          [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    (tmp_path / "m.onnx").write_bytes(m.SerializeToString())
    r = run("check", tmp_path / "m.onnx")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "OLG-CHECK-TYPE-CONSTRAINT" in r.stdout and "is opaque(d, n)" in r.stdout, r.stdout
    r = run("convert", tmp_path / "m.onnx", tmp_path / "out.onnx", "--opset", "13")
    assert r.returncode == 1, r.stderr
    assert "Hardmax with an opaque value as input 0" in r.stderr, r.stderr
    assert not (tmp_path / "out.onnx").exists()
