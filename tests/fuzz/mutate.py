#!/usr/bin/python3
"""A fresh mutation corpus, run through the whole pipeline under ASan+UBSan (issue 13).

Generates COUNT models from seed models (default: every model.onnx of libonnx-testdata up to
64 KiB, plus tests/fuzz/corpus/pipeline), each with one or a few mutations of a kind chosen in
turn:
  truncate   cut at a random offset (often inside a nested message)
  flip       1-8 random bit flips
  huge-len   a length-delimited field's length replaced by a huge or off-by-one value
  drop       a length-delimited field (at any depth: an attribute's graph or tensor, a tensor's
             raw_data, a node's input, ...) removed, its enclosing lengths fixed up
  empty      the same field kept with an empty payload
  huge-int   a varint field (dims, data_type, ints, offsets) set to a huge or negative value
Then runs them through RUNNER (default build/libfuzzer/fuzz_pipeline: read, check full, print,
DOT, legalize at 7/9, 13 and 21, write, read back) in batches, one input at a time, each with a
time limit; a crash or a hang is reported with its file and the batch goes on after it.

  /usr/bin/python3 tests/fuzz/mutate.py [--count 3000] [--seed 1] [--out DIR] [--runner BIN]
                                        [--keep] [SEED_FILE_OR_DIR...]
Exit status 0 when no input crashed or hung. Make the runner first: make fuzz-build.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = "/usr/share/libonnx-testdata/data"


def varint(b, i):
    v = shift = 0
    while i < len(b):
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i
        if shift > 63:
            break
    raise ValueError("bad varint")


def enc_varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


def fields(b, start, end, depth, out):
    """Collects the fields of the message in b[start:end] (and, heuristically, of every
    length-delimited payload that parses as a message) as tuples (kind, tag_at, len_at,
    payload_at, end, depth); kind is 'len' or 'varint'. Raises ValueError when b[start:end] is
    not a message."""
    i = start
    found = []
    while i < end:
        tag_at = i
        key, i = varint(b, i)
        wt, num = key & 7, key >> 3
        if num == 0:
            raise ValueError("field 0")
        if wt == 0:
            vat = i
            _, i = varint(b, i)
            found.append(("varint", tag_at, vat, vat, i, depth))
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        elif wt == 2:
            len_at = i
            n, i = varint(b, i)
            if i + n > end:
                raise ValueError("length past the end")
            found.append(("len", tag_at, len_at, i, i + n, depth))
            i += n
        else:
            raise ValueError("wire type %d" % wt)
        if i > end:
            raise ValueError("past the end")
    out.extend(found)
    for f in found:
        if f[0] == "len" and f[4] > f[3] and depth < 12:
            sub = []
            try:
                fields(b, f[3], f[4], depth + 1, sub)
            except ValueError:
                continue
            out.extend(sub)


def parse(b):
    out = []
    try:
        fields(b, 0, len(b), 0, out)
    except ValueError:
        pass
    return out


def enclosing(fs, f):
    """The length-delimited fields whose payload contains field f (its ancestors)."""
    return [g for g in fs if g[0] == "len" and g[3] <= f[1] and f[4] <= g[4] and g is not f]


def replace(b, fs, f, start, end, new):
    """b with b[start:end] replaced by new, every enclosing length fixed up."""
    delta = len(new) - (end - start)
    out = bytearray(b[:start] + new + b[end:])
    # fix ancestors from the innermost (highest offset) outwards so offsets stay valid
    for g in sorted(enclosing(fs, f), key=lambda g: -g[2]):
        n, after = varint(out, g[2])
        enc = enc_varint(n + delta)
        out[g[2]:after] = enc
        delta += len(enc) - (after - g[2])
    return bytes(out)


HUGE = [1 << 31, (1 << 31) - 1, (1 << 32) + 1, (1 << 63) - 1, 1 << 62, (1 << 64) - 1, 1 << 40]


def mutate(b, kind, rnd):
    fs = parse(b)
    lens = [f for f in fs if f[0] == "len"]
    ints = [f for f in fs if f[0] == "varint"]
    if kind == "truncate" or (kind in ("huge-len", "drop", "empty") and not lens) or \
            (kind == "huge-int" and not ints):
        cut = rnd.randrange(len(b)) if lens == [] or rnd.random() < 0.5 else \
            rnd.choice(lens)[3] + rnd.randrange(2)
        return b[:max(0, min(cut, len(b) - 1))]
    if kind == "flip":
        out = bytearray(b)
        for _ in range(rnd.randint(1, 8)):
            out[rnd.randrange(len(out))] ^= 1 << rnd.randrange(8)
        return bytes(out)
    if kind == "huge-len":
        f = rnd.choice(lens)
        n, after = varint(b, f[2])
        v = rnd.choice(HUGE + [n + 1, n + 2, max(0, n - 1)])
        return b[:f[2]] + enc_varint(v) + b[after:]  # deliberately not fixed up
    if kind == "drop":
        f = rnd.choice(lens)
        return replace(b, fs, f, f[1], f[4], b"")
    if kind == "empty":
        f = rnd.choice(lens)
        return replace(b, fs, f, f[2], f[4], b"\x00")
    f = rnd.choice(ints)  # huge-int
    v = rnd.choice(HUGE + [-1 & ((1 << 64) - 1), -(1 << 31) & ((1 << 64) - 1), 0, 28, 255])
    return replace(b, fs, f, f[2], f[4], enc_varint(v))


KINDS = ["truncate", "flip", "huge-len", "drop", "empty", "huge-int"]


def seeds_from(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for dp, _, names in os.walk(p):
                for n in names:
                    if n == "model.onnx" or not n.endswith((".pb", ".json")) and "corpus" in dp:
                        files.append(os.path.join(dp, n))
        elif os.path.isfile(p):
            files.append(p)
    out = []
    for f in sorted(files):
        if os.path.getsize(f) <= 65536:
            with open(f, "rb") as fh:
                data = fh.read()
            if parse(data):
                out.append(data)
    return out


def run_batches(runner, files, timeout):
    """Runs every file once, a batch per process; returns [(file, what)] of crashes and hangs."""
    findings = []
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1",
               UBSAN_OPTIONS="print_stacktrace=1")
    i = 0
    while i < len(files):
        batch = files[i:i + 300]
        try:
            p = subprocess.run([runner, "-timeout=%d" % timeout, "-rss_limit_mb=2048"] + batch,
                               env=env, capture_output=True, text=True, errors="replace",
                               timeout=timeout * 4 + 600)
            log, rc = p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            log, rc = (e.stderr or b"").decode("utf-8", "replace") if isinstance(e.stderr, bytes) \
                else (e.stderr or ""), -9
        if rc == 0:
            i += len(batch)
            continue
        running = re.findall(r"^Running: (.*)$", log, re.M)
        bad = running[-1] if running else batch[0]
        what = "hang" if "ALARM" in log or "timeout" in log.lower() or rc == -9 else "crash"
        top = re.search(r"^(SUMMARY: .*|==\d+==ERROR: .*|.*runtime error: .*)$", log, re.M)
        findings.append((bad, what, top.group(1) if top else "exit %d" % rc))
        i = files.index(bad, i) + 1
    return findings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="directory for the mutated models (default: a temporary one)")
    ap.add_argument("--runner", default=os.path.join(ROOT, "build/libfuzzer/fuzz_pipeline"))
    ap.add_argument("--timeout", type=int, default=20, help="seconds per input")
    ap.add_argument("--keep", action="store_true", help="keep the generated models")
    ap.add_argument("seeds", nargs="*")
    a = ap.parse_args()
    seed_paths = a.seeds or [TESTDATA, os.path.join(ROOT, "tests/fuzz/corpus/pipeline")]
    seeds = seeds_from(seed_paths)
    if not seeds:
        print("mutate: no seed models in %s" % seed_paths, file=sys.stderr)
        return 2
    if not os.access(a.runner, os.X_OK):
        print("mutate: no runner %s (make fuzz-build)" % a.runner, file=sys.stderr)
        return 2
    out = a.out or tempfile.mkdtemp(prefix="olg-mutate-")
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(a.seed)
    files, per_kind = [], {k: 0 for k in KINDS}
    for i in range(a.count):
        kind = KINDS[i % len(KINDS)]
        b = rnd.choice(seeds)
        for _ in range(1 if rnd.random() < 0.7 else rnd.randint(2, 3)):
            if len(b) < 2:
                break
            b = mutate(b, kind, rnd)
        path = os.path.join(out, "%05d-%s.onnx" % (i, kind))
        with open(path, "wb") as f:
            f.write(b)
        files.append(path)
        per_kind[kind] += 1
    print("mutate: %d models from %d seeds (%s) in %s" % (
        len(files), len(seeds), ", ".join("%s %d" % kv for kv in per_kind.items()), out))
    findings = run_batches(a.runner, files, a.timeout)
    for f, what, top in findings:
        print("mutate: %s: %s: %s" % (what.upper(), f, top))
    crashes = sum(1 for f in findings if f[1] == "crash")
    hangs = len(findings) - crashes
    print("mutate: %d models through %s: %d crashes, %d hangs" % (
        len(files), os.path.basename(a.runner), crashes, hangs))
    if not a.keep and not a.out and not findings:
        shutil.rmtree(out)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
