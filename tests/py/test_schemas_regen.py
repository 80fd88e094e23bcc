"""The committed lib/schemas_gen.c is exactly what tools/gen_schemas.py makes
from the ONNX spec beside the source tree (../shared/onnx-spec), and the generator
is deterministic. Skipped where the spec is absent (a user's machine)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_DIR = os.path.join(os.path.dirname(ROOT), "shared", "onnx-spec")
GEN = os.path.join(ROOT, "tools", "gen_schemas.py")
COMMITTED = os.path.join(ROOT, "lib", "schemas_gen.c")

needs_spec = pytest.mark.skipif(
    not os.path.exists(os.path.join(SPEC_DIR, "Changelog.md")),
    reason="../shared/onnx-spec/Changelog.md is absent: the ONNX spec is only beside the "
           "source tree, not shipped with it")


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def generate(out, *extra):
    # the script's default inputs are relative to the repository root
    subprocess.run([sys.executable, GEN, "-o", str(out), *extra], check=True, cwd=ROOT)
    return read(out)


@needs_spec
def test_regenerates_committed_file(tmp_path):
    fresh = generate(tmp_path / "schemas_gen.c")
    assert fresh == read(COMMITTED), (
        "lib/schemas_gen.c is stale: run `python3 tools/gen_schemas.py` from the "
        "repository root and commit the result")


@needs_spec
def test_deterministic_and_path_override(tmp_path):
    a = generate(tmp_path / "a.c")
    # the same changelog given explicitly, from another spelling of its path
    b = generate(tmp_path / "b.c", os.path.relpath(os.path.join(SPEC_DIR, "Changelog.md"), ROOT))
    assert a == b


def test_parses_a_domain_section(tmp_path):
    """The parser on a small changelog written for this test, in the layout of ONNX's
    per-domain changelogs (e.g. Changelog-ml.md), needs no shared spec."""
    md = tmp_path / "Changelog-x.md"
    md.write_text("""## Operator Changelog

# ai.onnx.ml
## Version 1 of the 'ai.onnx.ml' operator set
### <a name="ai.onnx.ml.Zed-1"></a>**ai.onnx.ml.Zed-1**</a>

  Words that are ignored.

#### Version

This version of the operator has been available since version 1 of the 'ai.onnx.ml' operator set.

#### Attributes

<dl>
<dt><tt>keys</tt> : list of strings</dt>
<dd>ignored</dd>
<dt><tt>mode</tt> : string (default is a, b)</dt>
<dt><tt>n</tt> : int (required)</dt>
</dl>

#### Inputs (1 - &#8734;)

<dl>
<dt><tt>X</tt> (variadic, heterogeneous) : T</dt>
</dl>

#### Outputs

<dl>
<dt><tt>Y</tt> : seq(map(int64, float))</dt>
</dl>

#### Type Constraints

<dl>
<dt><tt>T</tt> : map(string, int64), tensor(float), seq(tensor(int2))</dt>
<dd>ignored</dd>
</dl>
""", encoding="utf-8")
    js = tmp_path / "x.json"
    c = tmp_path / "x.c"
    subprocess.run([sys.executable, GEN, "-o", str(c), "--json", str(js),
                    "--versioning", str(tmp_path / "none.md"), str(md)], check=True, cwd=ROOT)
    import json
    data = json.loads(read(js))
    (s,) = data["schemas"]
    assert (s["domain"], s["name"], s["since_version"]) == ("ai.onnx.ml", "Zed", 1)
    assert (s["min_inputs"], s["max_inputs"], s["min_outputs"], s["max_outputs"]) == (1, -1, 1, 1)
    assert s["inputs"] == [{"name": "X", "type_str": "T", "option": "variadic",
                            "homogeneous": False, "min_arity": 1}]
    assert s["outputs"][0]["type_str"] == "seq(map(int64, float))"
    assert [(a["name"], a["type_name"], a["required"], a["default"]) for a in s["attrs"]] == [
        ("keys", "STRINGS", False, None), ("mode", "STRING", False, "a, b"), ("n", "INT", True, None)]
    assert s["constraints"] == [{"name": "T", "allowed": ["map(string, int64)", "tensor(float)",
                                                          "seq(tensor(int2))"],
                                 "tensor_dtypes": 1 << 1}]
    assert data["domains"] == [{"domain": "ai.onnx.ml", "max_defined": 1, "max_released": 1,
                                "n_schemas": 1}]
    text = read(c)
    assert '{ "ai.onnx.ml", "Zed", 1, 0, 1, -1, 1, 1,' in text
