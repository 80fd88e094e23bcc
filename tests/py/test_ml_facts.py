"""tools/extract_ml_facts.py and the facts path of tools/gen_schemas.py: an ai.onnx.ml
changelog turned into facts and read back gives exactly the tables the changelog itself
gives; the committed facts file is well-formed and self-consistent. Needs no shared spec."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools", "gen_schemas.py")
EXTRACT = os.path.join(ROOT, "tools", "extract_ml_facts.py")
FACTS = os.path.join(ROOT, "tools", "data", "ai_onnx_ml_schemas.json")

DEFAULT_MD = """## Operator Changelog
# ai.onnx (default)
## Version 1 of the default ONNX operator set
### <a name="Idem-1"></a>**Idem-1**</a>

#### Version

This version of the operator has been available since version 1 of the default ONNX operator set.

#### Inputs

<dl>
<dt><tt>X</tt> : T</dt>
</dl>

#### Outputs

<dl>
<dt><tt>Y</tt> : T</dt>
</dl>

#### Type Constraints

<dl>
<dt><tt>T</tt> : tensor(float)</dt>
</dl>
"""

# every shape of fact the generator keeps: optional and variadic heterogeneous formals,
# an arity range, a required attribute, defaults with commas, map/seq types, a deprecated
# version without signature, a version sentence followed by another line
ML_MD = """## Operator Changelog
# ai.onnx.ml
## Version 1 of the 'ai.onnx.ml' operator set
### <a name="ai.onnx.ml.Zed-1"></a>**ai.onnx.ml.Zed-1**</a>

#### Version

This version of the operator has been available since version 1 of the 'ai.onnx.ml' operator set.

Determinism: **deterministic**

#### Attributes

<dl>
<dt><tt>keys</tt> : list of strings</dt>
<dt><tt>mode</tt> : string (default is a, b)</dt>
<dt><tt>n</tt> : int (required)</dt>
<dt><tt>w</tt> : tensor</dt>
</dl>

#### Inputs (1 - &#8734;)

<dl>
<dt><tt>A</tt> : tensor(int64)</dt>
<dt><tt>X</tt> (variadic, heterogeneous) : T</dt>
</dl>

#### Outputs (1 - 2)

<dl>
<dt><tt>Y</tt> : seq(map(int64, float))</dt>
<dt><tt>Z</tt> (optional) : T2</dt>
</dl>

#### Type Constraints

<dl>
<dt><tt>T</tt> : map(string, int64), tensor(float), seq(tensor(int2))</dt>
<dt><tt>T2</tt> : tensor(float16), tensor(double)</dt>
</dl>

## Version 2 of the 'ai.onnx.ml' operator set
### <a name="ai.onnx.ml.Zed-2"></a>**ai.onnx.ml.Zed-2** (deprecated)</a>

#### Version

This version of the operator has been deprecated since version 2 of the 'ai.onnx.ml' operator set.
"""


def run(*args):
    subprocess.run([sys.executable, *args], check=True, cwd=ROOT)


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def test_facts_round_trip(tmp_path):
    dflt, ml = tmp_path / "Changelog.md", tmp_path / "Changelog-ml.md"
    dflt.write_text(DEFAULT_MD, encoding="utf-8")
    ml.write_text(ML_MD, encoding="utf-8")
    vers = str(tmp_path / "none.md")
    facts = tmp_path / "facts.json"
    run(EXTRACT, str(ml), "--source-repo", "x/y", "--source-commit", "0" * 40,
        "--versioning", vers, "-o", str(facts))
    doc = json.loads(read(facts))
    assert doc["max_defined"] == 2 and doc["max_released"] is None
    assert [(s["name"], s["since"], s.get("deprecated", False)) for s in doc["schemas"]] == [
        ("Zed", 1, False), ("Zed", 2, True)]
    z = doc["schemas"][0]
    assert z["attrs"] == [["keys", "list of strings", None, False], ["mode", "string", "a, b", False],
                          ["n", "int", None, True], ["w", "tensor", None, False]]
    assert z["inputs"] == [["A", "tensor(int64)", "single", True], ["X", "T", "variadic", False]]
    assert z["outputs"] == [["Y", "seq(map(int64, float))", "single", True], ["Z", "T2", "optional", True]]
    assert (z["input_range"], z["output_range"]) == ([1, -1], [1, 2])
    assert set(doc["schemas"][1]) == {"name", "since", "deprecated"}
    # the tables from the changelog itself, and from the default changelog plus the facts
    run(GEN, "-o", str(tmp_path / "a.c"), "--json", str(tmp_path / "a.json"),
        "--versioning", vers, "--no-ml-facts", str(dflt), str(ml))
    run(GEN, "-o", str(tmp_path / "b.c"), "--json", str(tmp_path / "b.json"),
        "--versioning", vers, "--ml-facts", str(facts), str(dflt))
    assert read(tmp_path / "a.json") == read(tmp_path / "b.json")
    assert read(tmp_path / "a.c") == read(tmp_path / "b.c")
    # a changelog that defines ai.onnx.ml wins over the facts file
    run(GEN, "-o", str(tmp_path / "c.c"), "--versioning", vers, "--ml-facts", FACTS,
        str(dflt), str(ml))
    assert read(tmp_path / "c.c") == read(tmp_path / "a.c")
    # without ML facts the domain is absent
    run(GEN, "-o", str(tmp_path / "d.c"), "--versioning", vers, "--no-ml-facts", str(dflt))
    assert '"ai.onnx.ml"' not in read(tmp_path / "d.c")


def test_broken_facts_refused(tmp_path):
    dflt = tmp_path / "Changelog.md"
    dflt.write_text(DEFAULT_MD, encoding="utf-8")
    doc = json.loads(read(FACTS))
    doc["schemas"][0]["inputs"][0][1] = "T9"  # a formal whose constraint does not exist
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    r = subprocess.run([sys.executable, GEN, "--no-c", "--ml-facts", str(bad), str(dflt)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1 and "unknown type 'T9'" in r.stderr, r.stderr


def test_committed_facts_file():
    doc = json.loads(read(FACTS))
    assert doc["domain"] == "ai.onnx.ml"
    assert doc["source"]["commit"] and len(doc["source"]["commit"]) == 40
    assert doc["max_released"] == 5 and doc["max_defined"] == 5
    keys = [(s["name"], s["since"]) for s in doc["schemas"]]
    assert keys == sorted(keys) and len(set(keys)) == len(keys) == 25
    assert max(v for _, v in keys) == doc["max_defined"]
    for s in doc["schemas"]:
        assert set(s) <= {"name", "since", "deprecated", "attrs", "inputs", "outputs",
                          "input_range", "output_range", "constraints"}, s["name"]
        if s.get("deprecated"):
            continue
        assert s["inputs"] and s["outputs"] and s["constraints"], s["name"]
