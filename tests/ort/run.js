#!/usr/bin/env node
// ONNX Runtime batch runner for onnxlegal's numeric tests (DESIGN.md §7).
//
// One Node process runs a whole manifest of cases, because starting Node and
// loading ORT costs far more than running a tiny model.
//
//   node tests/ort/run.js MANIFEST.json [--out RESULTS.json] [--log LOG.ndjson]
//
// Manifest (relative paths are relative to the manifest's directory):
//   {"cases": [{"id": "c0", "model": "c0/model.onnx",
//               "inputs": {"x": {"dtype": "float32", "shape": [2, 3], "file": "c0/x.bin"}},
//               "outputs": "c0/out",
//               "options": {"graphOptimizationLevel": "disabled"}}]}
//
// Tensor files are raw little-endian element data, row-major, no header
// (what numpy's tofile()/fromfile() read and write). bool is one byte per
// element, float16 is its 16-bit pattern. Strings are the one exception: a
// JSON array of the flattened elements, because they have no fixed width.
//
// Results (RESULTS.json, default MANIFEST.results.json):
//   {"results": [{"id": "c0", "ok": true, "error": null, "ms": 1.2,
//                 "outputs": [{"name": "y", "dtype": "float32", "shape": [2, 3],
//                              "file": "/abs/c0/out/0.bin"}]}]}
// Outputs are listed in the model's output order. A case that fails (bad
// model, bad input, ORT error) gets ok=false and the error text; the batch
// goes on. With --log, each record is also appended to LOG as one JSON line
// as soon as its case ends, so a caller can tell how far a batch got if a
// native crash kills the whole process.
'use strict';

const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// Element size in bytes per ORT dtype name; strings are handled apart.
// float16 travels as Uint16Array bits: Node 20 has no Float16Array, and ORT
// accepts a Uint16Array for 'float16' tensors and returns one.
const TYPED = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array,  // ORT requires BigInt arrays here
  bool: Uint8Array,                              // ORT's bool tensors are Uint8Array 0/1
};

// Session options applied unless a case overrides them. One intra-op thread:
// the models are tiny, so a thread pool per session costs more than it saves,
// and single-threaded results are reproducible. Log level 3 (errors only)
// keeps a passing batch silent; the error text is captured per case anyway.
const DEFAULT_OPTIONS = {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  logSeverityLevel: 3,
};

function usage(msg) {
  process.stderr.write(`run.js: ${msg}\nusage: node run.js MANIFEST.json [--out RESULTS.json] [--log LOG.ndjson]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { manifest: null, out: null, log: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' || a === '--log') {
      if (i + 1 >= argv.length) usage(`${a} needs a path`);
      args[a.slice(2)] = argv[++i];
    } else if (args.manifest === null && !a.startsWith('--')) {
      args.manifest = a;
    } else {
      usage(`unexpected argument ${a}`);
    }
  }
  if (args.manifest === null) usage('no manifest given');
  if (args.out === null) args.out = args.manifest.replace(/(\.json)?$/, '.results.json');
  return args;
}

function numel(shape) {
  return shape.reduce((n, d) => n * d, 1);
}

function checkShape(shape, what) {
  if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new Error(`${what}: shape must be a list of non-negative integers, got ${JSON.stringify(shape)}`);
  }
}

// Reads one input tensor described by {dtype, shape, file}.
function readTensor(spec, base, name) {
  const { dtype, shape } = spec;
  checkShape(shape, `input '${name}'`);
  const file = path.resolve(base, spec.file);
  if (dtype === 'string') {
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!Array.isArray(data) || data.length !== numel(shape)) {
      throw new Error(`input '${name}': ${file} must hold a JSON array of ${numel(shape)} strings`);
    }
    return new ort.Tensor('string', data, shape);
  }
  const T = TYPED[dtype];
  if (!T) throw new Error(`input '${name}': unsupported dtype '${dtype}'`);
  const buf = fs.readFileSync(file);
  const want = numel(shape) * T.BYTES_PER_ELEMENT;
  if (buf.length !== want) {
    throw new Error(`input '${name}': ${file} has ${buf.length} bytes, ${dtype}${JSON.stringify(shape)} needs ${want}`);
  }
  // Copy into a fresh ArrayBuffer: a Buffer may sit at an offset that is not
  // a multiple of the element size, which typed arrays refuse.
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
  return new ort.Tensor(dtype, new T(ab), shape);
}

// Writes one output tensor into dir and returns its record.
function writeTensor(tensor, name, index, dir) {
  const rec = { name, dtype: tensor.type, shape: Array.from(tensor.dims) };
  const data = tensor.data;
  // Files are named by output position, not name: ONNX names may hold
  // characters that are not safe in file names.
  if (tensor.type === 'string') {
    rec.file = path.join(dir, `${index}.json`);
    fs.writeFileSync(rec.file, JSON.stringify(Array.from(data)));
  } else {
    if (!TYPED[tensor.type]) throw new Error(`output '${name}': unsupported dtype '${tensor.type}'`);
    rec.file = path.join(dir, `${index}.bin`);
    fs.writeFileSync(rec.file, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  return rec;
}

async function runCase(c, base) {
  if (typeof c.model !== 'string') throw new Error('case has no model path');
  const options = { ...DEFAULT_OPTIONS, ...(c.options || {}) };
  const feeds = {};
  for (const [name, spec] of Object.entries(c.inputs || {})) feeds[name] = readTensor(spec, base, name);
  const outDir = path.resolve(base, c.outputs || `${c.id}.out`);
  fs.mkdirSync(outDir, { recursive: true });

  const session = await ort.InferenceSession.create(path.resolve(base, c.model), options);
  let results = null;
  try {
    results = await session.run(feeds);
    // session.outputNames is the model's output order; results is keyed by name.
    return session.outputNames.map((name, i) => writeTensor(results[name], name, i, outDir));
  } finally {
    // Free native memory now rather than at some later GC, so thousands of
    // cases keep the process's footprint flat.
    if (results) for (const t of Object.values(results)) t.dispose();
    for (const t of Object.values(feeds)) t.dispose();
    await session.release();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const base = path.dirname(path.resolve(args.manifest));
  const manifest = JSON.parse(fs.readFileSync(args.manifest, 'utf8'));
  if (!manifest || !Array.isArray(manifest.cases)) usage(`${args.manifest} has no "cases" list`);
  const log = args.log ? fs.openSync(args.log, 'w') : null;

  const t0 = process.hrtime.bigint();
  const records = [];
  let failed = 0;
  for (let i = 0; i < manifest.cases.length; i++) {
    const c = manifest.cases[i];
    const id = c.id === undefined ? String(i) : String(c.id);
    const t = process.hrtime.bigint();
    const rec = { id, ok: true, error: null, outputs: [] };
    try {
      rec.outputs = await runCase({ ...c, id }, base);
    } catch (e) {
      rec.ok = false;
      rec.error = String((e && e.message) || e);
      failed++;
    }
    rec.ms = Number(process.hrtime.bigint() - t) / 1e6;
    records.push(rec);
    if (log !== null) fs.writeSync(log, JSON.stringify(rec) + '\n');
  }
  if (log !== null) fs.closeSync(log);

  // Write then rename, so a reader never sees a half-written results file.
  fs.writeFileSync(args.out + '.tmp', JSON.stringify({ results: records }));
  fs.renameSync(args.out + '.tmp', args.out);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stderr.write(`ort run.js: ${records.length} cases, ${records.length - failed} ok, ${failed} failed, ${secs.toFixed(2)} s\n`);
}

main().catch((e) => {
  process.stderr.write(`run.js: ${(e && e.stack) || e}\n`);
  process.exit(1);
});
