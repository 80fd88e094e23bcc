"""A corpus of invalid models, each ONE mutation of a valid model of libonnx-testdata
(tests/gen_invalid_models.py): `onnxlegal check --full --json` rejects each with the expected
code, and python3-onnx's full checker gives the same verdict (every test-data model is at
opset <= 17, which it knows), except for the mutation kinds listed in ONNX_LENIENT with the
reason."""
import collections
import concurrent.futures
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")
TESTDATA = "/usr/share/libonnx-testdata/data"

pytestmark = [
    pytest.mark.skipif(not os.path.isdir(TESTDATA), reason="libonnx-testdata is not installed"),
    pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built (make tool)" % TOOL),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    pytest.importorskip("onnx")
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import gen_invalid_models
    out = tmp_path_factory.mktemp("invalid")
    return str(out), gen_invalid_models.generate(str(out)), gen_invalid_models


def run_check(path):
    r = subprocess.run([TOOL, "check", "--full", "--json", path], capture_output=True, text=True)
    try:
        return r.returncode, json.loads(r.stdout), r.stderr
    except ValueError:
        return r.returncode, None, r.stderr


def test_corpus_covers_every_kind(corpus):
    _, manifest, gen = corpus
    kinds = collections.Counter(e["kind"] for e in manifest)
    assert set(kinds) == {k for k, _, _ in gen.KINDS}, set(k for k, _, _ in gen.KINDS) - set(kinds)
    assert len(manifest) >= 200
    print("invalid corpus: %d models, %d kinds: %s" % (len(manifest), len(kinds), dict(kinds)))


def test_each_rejected_with_its_code(corpus):
    outdir, manifest, _ = corpus
    paths = [os.path.join(outdir, e["file"]) for e in manifest]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(run_check, paths))
    wrong = []
    for e, (rc, diags, err) in zip(manifest, results):
        codes = [d["code"] for d in diags or [] if d["severity"] == "error"]
        if rc != 1 or e["code"] not in codes:
            wrong.append((e["file"], rc, e["code"], codes[:5], err[:200]))
        for d in diags or []:
            assert d["message"], d  # every diagnostic says what is wrong
    print("onnxlegal rejects %d of %d invalid models with the expected code" %
          (len(manifest) - len(wrong), len(manifest)))
    assert not wrong, wrong


def test_onnx_gives_the_same_verdict(corpus):
    onnx = pytest.importorskip("onnx")
    outdir, manifest, gen = corpus
    disagree = []
    same = 0
    for e in manifest:
        assert e["opset"] <= 17
        try:
            onnx.checker.check_model(onnx.load(os.path.join(outdir, e["file"])), full_check=True)
            rejects = False
        except Exception:
            rejects = True
        if rejects != e["onnx_rejects"]:
            disagree.append((e["file"], "onnx rejects" if rejects else "onnx accepts"))
        if rejects:
            same += 1
    lenient = [e["file"] for e in manifest if not e["onnx_rejects"]]
    print("python3-onnx rejects %d of %d; accepts %d, all of kinds it is known to let through: %s" %
          (same, len(manifest), len(lenient), sorted(gen.ONNX_LENIENT)))
    assert not disagree, disagree


def test_messages_say_what_would_be_right(corpus):
    """A few diagnostics in full: the message names the problem and the fix."""
    outdir, manifest, _ = corpus
    by_kind = {}
    for e in manifest:
        by_kind.setdefault(e["kind"], e)
    expect = {
        "attr_type": "it must be INT",
        "attr_missing": "requires attribute",
        "op_too_new": "introduced in opset",
        "use_before_def": "nodes must be in topological order",
        "domain_undeclared": "add it to opset_import",
        "not_lowered": "olg_legalize",
        "op_removed": "use Resize",
    }
    for kind, frag in expect.items():
        e = by_kind[kind]
        rc, diags, _ = run_check(os.path.join(outdir, e["file"]))
        msgs = [d["message"] for d in diags if d["code"] == e["code"]]
        assert any(frag in m for m in msgs), (kind, msgs)
