"""`onnxlegal check` on ai.onnx.ml models: the ML schema tables make the validator check
their nodes' signatures (no OLG-CHECK-OP-NO-SCHEMA note). libonnx-testdata has no model
using ai.onnx.ml, so the models are built here with python3-onnx's helper; for the ML
opsets onnx 1.12 knows (<= 3) its full checker must give the same verdict, except where
ONNX_DIFFERS says why not."""
import json
import os
import subprocess

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as TP, helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built (make tool)" % TOOL)

ML = "ai.onnx.ml"

# Cases where onnx 1.12's full checker disagrees, and why.
ONNX_DIFFERS = {
    # onnx 1.12's strict shape inference cannot merge a declared seq(map(...)) output with
    # the inferred one ("type case unsupported for symbolic shape inference"); its schema
    # check accepts the model (check_model without full_check).
    "tree_classifier_zipmap": "onnx 1.12 shape inference does not handle seq(map) outputs",
    # onnx 1.12's full checker does not hold this ai.onnx.ml node's inputs to its type
    # constraint (Binarizer's T: float, double, int64, int32); it rejects a string Relu.
    "binarizer_string": "onnx 1.12 does not check the type constraints of this ML node",
}


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def map_type(key, value_dt):
    t = onnx.TypeProto()
    t.map_type.key_type = key
    t.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(value_dt, None))
    return t


def model(nodes, inputs, outputs, ml, opset=17, ir=8):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(g, ir_version=ir, opset_imports=[
        helper.make_opsetid("", opset), helper.make_opsetid(ML, ml)])


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, domain=ML, **attrs)


def tree_classifier(**extra):
    return node("TreeEnsembleClassifier", ["x"], ["label", "prob"], classlabels_int64s=[0, 1],
                nodes_treeids=[0], nodes_nodeids=[0], nodes_featureids=[0], nodes_modes=["LEAF"],
                nodes_values=[0.0], nodes_truenodeids=[0], nodes_falsenodeids=[0],
                class_treeids=[0, 0], class_nodeids=[0, 0], class_ids=[0, 1],
                class_weights=[0.5, 0.5], **extra)


def seq_map(key, value_dt):
    return helper.make_value_info("probs", helper.make_sequence_type_proto(map_type(key, value_dt)))


# name -> (model, None for valid or the expected error code)
def cases():
    c = {}
    c["label_encoder_2"] = (model(
        [node("LabelEncoder", ["x"], ["y"], keys_strings=["a", "b"], values_int64s=[1, 2],
              default_int64=-1)],
        [vi("x", TP.STRING, [3])], [vi("y", TP.INT64, [3])], ml=2), None)
    c["tree_classifier_zipmap"] = (model(
        [tree_classifier(), node("ZipMap", ["prob"], ["probs"], classlabels_int64s=[0, 1])],
        [vi("x", TP.FLOAT, [4, 2])], [vi("label", TP.INT64, [4]), seq_map(TP.INT64, TP.FLOAT)],
        ml=3), None)
    c["cast_map"] = (model(
        [node("CastMap", ["m"], ["y"], cast_to="TO_FLOAT", map_form="DENSE")],
        [helper.make_value_info("m", map_type(TP.INT64, TP.FLOAT))], [vi("y", TP.FLOAT, ["N"])],
        ml=1), None)
    c["dict_vectorizer"] = (model(
        [node("DictVectorizer", ["m"], ["y"], string_vocabulary=["a", "b"])],
        [helper.make_value_info("m", map_type(TP.STRING, TP.DOUBLE))], [vi("y", TP.DOUBLE, [1, 2])],
        ml=1), None)
    c["feature_vectorizer_scaler"] = (model(
        [node("FeatureVectorizer", ["a", "b"], ["f"], inputdimensions=[2, 3]),
         node("Scaler", ["f"], ["s"], offset=[0.0], scale=[2.0]),
         node("Normalizer", ["s"], ["y"], norm="L2")],
        [vi("a", TP.INT64, [1, 2]), vi("b", TP.INT64, [1, 3])], [vi("y", TP.FLOAT, [1, 5])],
        ml=3), None)
    # LabelEncoder-4 allows double (and int16/int32) keys; LabelEncoder-2 does not
    c["label_encoder_4_double"] = (model(
        [node("LabelEncoder", ["x"], ["y"], values_strings=["one"], default_string="?",
              keys_tensor=helper.make_tensor("k", TP.DOUBLE, [1], [1.0]))],
        [vi("x", TP.DOUBLE, [3])], [vi("y", TP.STRING, [3])], ml=4, opset=18, ir=9), None)
    c["label_encoder_2_double"] = (model(
        [node("LabelEncoder", ["x"], ["y"], keys_floats=[1.0], values_strings=["one"])],
        [vi("x", TP.DOUBLE, [3])], [vi("y", TP.STRING, [3])], ml=3), "OLG-CHECK-TYPE-CONSTRAINT")
    c["tree_ensemble_5"] = (model(
        [node("TreeEnsemble", ["x"], ["y"], n_targets=1, tree_roots=[0], nodes_featureids=[0],
              nodes_modes=helper.make_tensor("m", TP.UINT8, [1], [0]),
              nodes_splits=helper.make_tensor("s", TP.FLOAT, [1], [0.5]),
              nodes_truenodeids=[0], nodes_falsenodeids=[1], nodes_trueleafs=[1],
              nodes_falseleafs=[1], leaf_targetids=[0, 0],
              leaf_weights=helper.make_tensor("w", TP.FLOAT, [2], [1.0, 2.0]))],
        [vi("x", TP.FLOAT, [4, 2])], [vi("y", TP.FLOAT, [4, 1])], ml=5, opset=21, ir=10), None)

    c["linear_classifier_no_coefficients"] = (model(
        [node("LinearClassifier", ["x"], ["y", "z"], classlabels_ints=[0, 1])],
        [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.INT64, [2]), vi("z", TP.FLOAT, [2, 2])], ml=3),
        "OLG-CHECK-ATTR-MISSING")
    c["binarizer_string"] = (model(
        [node("Binarizer", ["x"], ["y"])],
        [vi("x", TP.STRING, [3])], [vi("y", TP.STRING, [3])], ml=3), "OLG-CHECK-TYPE-CONSTRAINT")
    c["binarizer_threshold_int"] = (model(
        [node("Binarizer", ["x"], ["y"], threshold=1)],
        [vi("x", TP.FLOAT, [3])], [vi("y", TP.FLOAT, [3])], ml=3), "OLG-CHECK-ATTR-TYPE")
    c["cast_map_string_keys"] = (model(
        [node("CastMap", ["m"], ["y"])],
        [helper.make_value_info("m", map_type(TP.STRING, TP.FLOAT))], [vi("y", TP.FLOAT, ["N"])],
        ml=1), "OLG-CHECK-TYPE-CONSTRAINT")
    c["label_encoder_1_keys"] = (model(
        [node("LabelEncoder", ["x"], ["y"], keys_strings=["a"], values_int64s=[1])],
        [vi("x", TP.STRING, [3])], [vi("y", TP.INT64, [3])], ml=1), "OLG-CHECK-ATTR-UNKNOWN")
    c["array_feature_extractor_one_input"] = (model(
        [node("ArrayFeatureExtractor", ["x"], ["y"])],
        [vi("x", TP.FLOAT, [2, 3])], [vi("y", TP.FLOAT, [2, "K"])], ml=1), "OLG-CHECK-INPUT-COUNT")
    c["unknown_ml_op"] = (model(
        [node("Frobnicator", ["x"], ["y"])],
        [vi("x", TP.FLOAT, [3])], [vi("y", TP.FLOAT, [3])], ml=3), "OLG-CHECK-OP-UNKNOWN")
    c["tree_ensemble_at_4"] = (model(
        [node("TreeEnsemble", ["x"], ["y"], n_targets=1)],
        [vi("x", TP.FLOAT, [4, 2])], [vi("y", TP.FLOAT, [4, 1])], ml=4, opset=18, ir=9),
        "OLG-CHECK-OP-UNKNOWN")
    c["tree_regressor_at_5"] = (model(
        [node("TreeEnsembleRegressor", ["x"], ["y"], n_targets=1)],
        [vi("x", TP.FLOAT, [4, 2])], [vi("y", TP.FLOAT, [4, 1])], ml=5, opset=21, ir=10),
        "OLG-CHECK-OP-REMOVED")
    return c


def run_tool(path, *flags):
    r = subprocess.run([TOOL, "check", "--json", *flags, path], capture_output=True, text=True)
    return r.returncode, json.loads(r.stdout), r.stderr


def onnx_verdict(m):
    try:
        onnx.checker.check_model(m, full_check=True)
        return None
    except Exception as e:  # ValidationError, InferenceError
        return str(e).splitlines()[0]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = tmp_path_factory.mktemp("ml")
    out = {}
    for name, (m, want) in cases().items():
        p = str(d / (name + ".onnx"))
        onnx.save(m, p)
        out[name] = (p, m, want)
    return out


@pytest.mark.parametrize("full", [False, True])
def test_verdicts_and_codes(written, full):
    wrong = []
    for name, (path, _, want) in sorted(written.items()):
        rc, diags, err = run_tool(path, *(["--full"] if full else []))
        codes = [d["code"] for d in diags]
        errors = [d["code"] for d in diags if d["severity"] == "error"]
        if "OLG-CHECK-OP-NO-SCHEMA" in codes:
            wrong.append((name, "ML nodes not checked", codes))
        if want is None and (rc != 0 or errors):
            wrong.append((name, "rejected", rc, diags[:3], err[:200]))
        if want is not None and (rc != 1 or want not in errors):
            wrong.append((name, "wanted " + want, rc, codes, err[:200]))
        for d in diags:
            if d["domain"] == ML and d["severity"] == "error":
                assert d["op"] and d["opset"] > 0, d
    assert not wrong, "\n".join(map(str, wrong))


def test_same_verdict_as_onnx(written):
    differ, used = [], set()
    for name, (path, m, want) in sorted(written.items()):
        ml = next(o.version for o in m.opset_import if o.domain == ML)
        if ml > 3:
            continue  # onnx 1.12 knows ai.onnx.ml 1..3
        theirs = onnx_verdict(m)
        ours_valid = want is None
        if ours_valid != (theirs is None):
            if name in ONNX_DIFFERS:
                used.add(name)
                # the schema-level check (no shape inference) still agrees
                onnx.checker.check_model(m)
                continue
            differ.append((name, "ours valid" if ours_valid else "ours invalid", theirs))
    assert not differ, "\n".join(map(str, differ))
    assert used == set(ONNX_DIFFERS), "ONNX_DIFFERS entries no longer needed: %s" % (
        set(ONNX_DIFFERS) - used)
