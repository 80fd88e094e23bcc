#!/usr/bin/env python3
"""Generate profiles/ort_kernels.inc, the kernel table of the `ort` profile (profiles/ort.c):
for every ONNX op version up to opset 26 and every dtype its type constraints allow, whether
ONNX Runtime's CPU execution provider has a kernel for it.

Source: the onnxruntime-node package installed in tests/ort (`make deps`; its version is
written into the table's header). Each (op, since-version, type constraint, dtype) is probed
with a one-node model: the op's required inputs, those bound to the constraint of that dtype,
the others of a baseline dtype that works, required attributes given plain values. A session
is created on the CPU execution provider with optimizations off; ORT looks the kernel up
then. "Could not find an implementation" (or "Failed to find kernel") means the dtype has no
kernel; success, or the kernel's own constructor refusing the probe's plain attributes, means
it has; any other error (a model the probe could not make valid) says nothing, and such a dtype
is counted as accepted (the table only lists what is known to be missing). A dtype still missing is tried once more with the other constraints over their 4 preferred
dtypes each (ORT registers some kernels per combination, as OneHot's). An op version none of whose
inputs is bound to a type constraint (RandomUniform, ...) is probed once as it is. A second round re-
probes with each other constraint's baseline set to a dtype that worked, so an op whose kernels
need, say, T1=int64 is not taken for one without kernels. An op version where no dtype of any
constraint works, none is unknown and some were refused for want of a kernel becomes
ORT_NO_KERNEL.

The op schemas (versions, constraints, required attributes) come from the ONNX changelog through
tools/gen_schemas.py. Standard library plus the onnx Python package (to write the models) and
node (to run ORT). Deterministic for a given ORT.

Usage (from the repository root):
    python3 tools/gen_ort_profile.py [-o profiles/ort_kernels.inc] [--ops Where,Max]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_schemas  # noqa: E402

MAX_OPSET = 26
# ir_version per opset (as olg_ir_version_for_opset)
IR = {7: 3, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9,
      20: 9, 21: 10, 22: 10, 23: 11, 24: 12, 25: 13, 26: 13}
# the dtypes probed (TensorProto numbering); complex types: ORT's CPU EP has next to none, and
# nothing in onnxlegal casts around them
PROBED = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 18, 19, 20, 21, 22, 23]
BASELINE = [1, 7, 6, 9, 11, 10, 2, 3]  # the preferred dtype of a constraint not being probed
# ops the probe cannot build (a body is required) or that need a domain of their own
SKIP = {"If", "Loop", "Scan", "SequenceMap"}
NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
         8: "string", 9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64",
         16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2",
         20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1"}

PROBE_JS = r"""
const fs = require('fs');
const ort = require('onnxruntime-node');
(async () => {
  const cases = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
  const out = [];
  for (const c of cases) {
    try {
      const s = await ort.InferenceSession.create(c.path, {executionProviders: ['cpu'],
        graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1,
        logSeverityLevel: 4});
      if (s.release) await s.release();
      out.push([c.id, 'ok']);
    } catch (e) {
      const m = String(e && e.message || e);
      // no kernel: ORT's two wordings; a kernel's own constructor refusing the probe's plain
      // attributes (an exception from its source under providers/) shows the kernel exists
      if (m.includes('Could not find an implementation') || m.includes('Failed to find kernel')) out.push([c.id, 'missing']);
      else if (m.includes('/providers/cpu/')) out.push([c.id, 'ok']);
      else out.push([c.id, 'error: ' + m.slice(0, 200)]);
    }
  }
  fs.writeFileSync(process.argv[2], JSON.stringify(out));
})();
"""


def tensor_types(constraint):
    return [d for d in PROBED if constraint["tensor_dtypes"] >> d & 1]


def attr_value(helper, a):
    """A plain value for a required attribute, or None when the probe cannot give one."""
    t = a["type"]
    if t == 1:
        return 1.0
    if t == 2:
        return 1
    if t == 3:
        return "a"
    if t == 6:
        return [1.0]
    if t == 7:
        return [1]
    if t == 8:
        return ["a"]
    return None


def make_model(onnx, s, opset, dtypes):
    """The one-node model of schema s with constraint -> dtype `dtypes`; None if not buildable."""
    from onnx import helper
    ins, vis = [], []
    for i, f in enumerate(s["inputs"]):
        if f["option"] == 1:  # optional: left out
            continue
        ts = f["type_str"]
        if ts in dtypes:
            dt = dtypes[ts]
        elif ts.startswith("tensor(") and ts[7:-1] in gen_schemas.DTYPES:
            dt = gen_schemas.DTYPES[ts[7:-1]]
        else:
            return None  # sequences, optionals, maps
        name = "i%d" % i
        ins.append(name)
        vis.append(helper.make_tensor_value_info(name, dt, None))
    outs = ["o%d" % k for k, f in enumerate(s["outputs"]) if f["option"] != 1] or ["o0"]
    attrs = {}
    for a in s["attrs"]:
        if a["required"]:
            v = attr_value(helper, a)
            if v is None:
                return None
            attrs[a["name"]] = v
    node = helper.make_node(s["name"], ins, outs, **attrs)
    outvi = [helper.make_empty_tensor_value_info(o) for o in outs]
    g = helper.make_graph([node], "probe", vis, outvi)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR[opset]
    return m.SerializeToString()


def probe_round(onnx, schemas, baselines, tmp, node):
    """{(op, since, constraint, dtype): 'ok'|'missing'|'error...'} for one round."""
    cases, keys = [], {}
    for s in schemas:
        bound = {f["type_str"] for f in s["inputs"] if f["option"] != 1}
        cons = [c for c in s["constraints"] if c["name"] in bound and tensor_types(c)]
        if not cons:  # no input of a constraint (RandomUniform, ...): does any kernel exist?
            data = make_model(onnx, s, s["since_version"], {})
            if data is not None:
                cid = str(len(cases))
                path = os.path.join(tmp, cid + ".onnx")
                with open(path, "wb") as f:
                    f.write(data)
                cases.append({"id": cid, "path": path})
                keys[cid] = (s["name"], s["since_version"], None, 0)
        for c in cons:
            for dt in tensor_types(c):
                dtypes = {d["name"]: baselines[(s["name"], s["since_version"], d["name"])]
                          for d in cons if d is not c}
                dtypes[c["name"]] = dt
                data = make_model(onnx, s, s["since_version"], dtypes)
                if data is None:
                    continue
                cid = str(len(cases))
                path = os.path.join(tmp, cid + ".onnx")
                with open(path, "wb") as f:
                    f.write(data)
                cases.append({"id": cid, "path": path})
                keys[cid] = (s["name"], s["since_version"], c["name"], dt)
    man = os.path.join(tmp, "cases.json")
    res = os.path.join(tmp, "results.json")
    with open(man, "w") as f:
        json.dump(cases, f)
    env = dict(os.environ, NODE_PATH=os.path.join(ROOT, "tests", "ort", "node_modules"))
    subprocess.run([node, "-e", PROBE_JS, man, res], check=True, env=env)
    with open(res) as f:
        return {keys[cid]: r for cid, r in json.load(f)}


def probe_combos(onnx, schemas, r1, r2, tmp, node):
    """The (op, since, constraint, dtype) missing in both rounds that have a kernel with another
    combination of the other constraints' dtypes (ORT registers some kernels per combination:
    OneHot's indices, depth and values): each tried with the others over their 4 preferred
    dtypes. Returns the set of those found."""
    cases, keys = [], {}
    for s in schemas:
        bound = {f["type_str"] for f in s["inputs"] if f["option"] != 1}
        cons = [c for c in s["constraints"] if c["name"] in bound and tensor_types(c)]
        if len(cons) < 2:
            continue
        for c in cons:
            for dt in tensor_types(c):
                k = (s["name"], s["since_version"], c["name"], dt)
                if r1.get(k) != "missing" or r2.get(k) not in ("missing", None):
                    continue
                others = [d for d in cons if d is not c]
                prefs = [sorted(tensor_types(d), key=lambda t: BASELINE.index(t) if t in BASELINE else 99)[:4]
                         for d in others]
                combos = [[]]
                for pr in prefs:
                    combos = [x + [t] for x in combos for t in pr]
                for combo in combos:
                    dtypes = {d["name"]: t for d, t in zip(others, combo)}
                    dtypes[c["name"]] = dt
                    data = make_model(onnx, s, s["since_version"], dtypes)
                    if data is None:
                        continue
                    cid = str(len(cases))
                    path = os.path.join(tmp, "c" + cid + ".onnx")
                    with open(path, "wb") as f:
                        f.write(data)
                    cases.append({"id": cid, "path": path})
                    keys[cid] = k
    man = os.path.join(tmp, "combos.json")
    res = os.path.join(tmp, "combos.results.json")
    with open(man, "w") as f:
        json.dump(cases, f)
    env = dict(os.environ, NODE_PATH=os.path.join(ROOT, "tests", "ort", "node_modules"))
    subprocess.run([node, "-e", PROBE_JS, man, res], check=True, env=env)
    with open(res) as f:
        return {keys[cid] for cid, r in json.load(f) if r == "ok"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "profiles", "ort_kernels.inc"))
    ap.add_argument("--ops", help="comma-separated ops (default: every op)")
    ap.add_argument("--node", default="node")
    args = ap.parse_args(argv)
    import onnx  # noqa: F401 - the model writer
    with open(os.path.join(ROOT, "tests", "ort", "node_modules", "onnxruntime-node", "package.json")) as f:
        ort_version = json.load(f)["version"]
    parsed = gen_schemas.parse_changelog(os.path.join(gen_schemas.DEFAULT_SPEC_DIR, "Changelog.md"))[0]
    want = set(args.ops.split(",")) if args.ops else None
    # the versions in force at some opset 7..26: the newest at 7, then every later one
    by_op = {}
    for s in parsed:
        if s["domain"] == "" and s["name"] not in SKIP and (want is None or s["name"] in want):
            by_op.setdefault(s["name"], []).append(s)
    schemas = []
    for op, vs in sorted(by_op.items()):
        vs.sort(key=lambda s: s["since_version"])
        for i, s in enumerate(vs):
            nxt = vs[i + 1]["since_version"] if i + 1 < len(vs) else 10 ** 6
            if s["deprecated"] or s["since_version"] > MAX_OPSET or nxt <= 7:
                continue
            if s["since_version"] < 7:  # in force at opset 7: probed there, as opset 7 sees it
                s = dict(s, probe_opset=7)
            schemas.append(s)
    for s in schemas:  # a version older than 7 is probed at opset 7
        s["since_version_real"] = s["since_version"]
    with tempfile.TemporaryDirectory(prefix="olg_ort_probe_") as tmp:
        # probe at max(since, 7): the model's opset import decides which version ORT sees
        probe_schemas = [dict(s, since_version=max(s["since_version"], 7)) for s in schemas]
        baselines = {}
        for s in probe_schemas:
            for c in s["constraints"]:
                tt = tensor_types(c)
                if tt:
                    baselines[(s["name"], s["since_version"], c["name"])] = next((b for b in BASELINE if b in tt), tt[0])
        r1 = probe_round(onnx, probe_schemas, baselines, tmp, args.node)
        for (op, v, cname, dt), r in sorted(r1.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "", kv[0][3])):
            if cname is None:
                continue
            key = (op, v, cname)  # baseline: a dtype that worked
            if r == "ok" and r1.get(key + (baselines[key],)) != "ok":
                baselines[key] = dt
        r2 = probe_round(onnx, probe_schemas, baselines, tmp, args.node)
        r3 = probe_combos(onnx, probe_schemas, r1, r2, tmp, args.node)
    rows, n_missing = [], 0
    for s, ps in zip(schemas, probe_schemas):
        op, v, pv = s["name"], s["since_version_real"], ps["since_version"]
        status = {}
        whole = r1.get((op, pv, None, 0))
        if whole == "missing" and r2.get((op, pv, None, 0)) == "missing":
            rows.append((op, v, 'ORT_NO_KERNEL("%s", %d, %d)' % (op, v, v), "no kernel (an op without typed inputs)"))
            n_missing += 1
            continue
        for c in ps["constraints"]:
            for dt in tensor_types(c):
                a, b = r1.get((op, pv, c["name"], dt)), r2.get((op, pv, c["name"], dt))
                if a is None and b is None:
                    continue
                if "ok" in (a, b) or (op, pv, c["name"], dt) in r3:
                    status[(c["name"], dt)] = "ok"
                elif a == "missing" and b in ("missing", None):
                    status[(c["name"], dt)] = "missing"
                else:
                    status[(c["name"], dt)] = "unknown"
        if not status:
            continue
        if "ok" not in status.values() and "missing" in status.values() and "unknown" not in status.values():
            rows.append((op, v, 'ORT_NO_KERNEL("%s", %d, %d)' % (op, v, v), "no kernel for any type"))
            n_missing += 1
            continue
        for c in ps["constraints"]:
            miss = [dt for dt in tensor_types(c) if status.get((c["name"], dt)) == "missing"]
            if not miss:
                continue
            acc = [dt for dt in tensor_types(c) if status.get((c["name"], dt)) in ("ok", "unknown")]
            mask = sum(1 << dt for dt in acc)
            rows.append((op, v, 'ORT_TYPES("%s", %d, %d, "%s", 0x%08xu)' % (op, v, v, c["name"], mask),
                         "no kernel: " + ", ".join(NAMES[d] for d in miss)))
            n_missing += 1
    rows.sort(key=lambda r: (r[0], r[1]))
    lines = ["/* The ort profile's kernel rules (profiles/ort.c), generated by tools/gen_ort_profile.py",
             " * from onnxruntime-node %s (CPU execution provider): per ONNX op version (opsets 7..%d)"
             % (ort_version, MAX_OPSET),
             " * and type constraint, the dtypes with a kernel (a mask of TensorProto dtypes) where some",
             " * are missing, and the op versions without any kernel. Do not edit; regenerate. */"]
    for _, _, row, why in rows:
        lines.append("%s /* %s */" % (row, why))
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print("%s: %d rules from %d op versions probed (onnxruntime-node %s)" % (
        args.out, n_missing, len(schemas), ort_version))


if __name__ == "__main__":
    main()
