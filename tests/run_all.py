#!/usr/bin/env python3
"""Runs every test suite of the project and ends with one line: "N passed, N failed".

Suites: the C unit tests (build/tests/unit), then every pytest file under tests/py. Each suite's
own output is shown as it runs; the totals are summed at the end. Exit status 1 when anything
failed (or a suite could not run), 0 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    """Runs cmd, echoing its output, and returns (exit code, output)."""
    print("==>", " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    return proc.wait(), "".join(lines)


def count(pattern, text):
    m = re.findall(pattern, text)
    return int(m[-1]) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("-k", help="pytest -k expression (and C test filter)")
    args = ap.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "bindings", "python"), ROOT] + env.get("PYTHONPATH", "").split(os.pathsep))
    env.setdefault("ONNXLEGAL_BUILD", os.path.join(ROOT, args.build))
    passed = failed = skipped = 0
    broken = []
    t0 = time.time()

    unit = os.path.join(ROOT, args.build, "tests", "unit")
    code, out = run([unit] + ([args.k] if args.k else []), env)
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    if m:
        passed += int(m.group(1))
        failed += int(m.group(2))
    if code != 0 and not (m and int(m.group(2))):
        broken.append("C unit tests (exit %d)" % code)

    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs",
           os.path.join("tests", "py")]
    if args.k:
        cmd += ["-k", args.k]
    code, out = run(cmd, env)
    tail = out.strip().splitlines()[-1] if out.strip() else ""
    passed += count(r"(\d+) passed", tail)
    failed += count(r"(\d+) failed", tail) + count(r"(\d+) errors?", tail)
    skipped += count(r"(\d+) skipped", tail)
    # exit 5 is pytest's "no tests collected": not a failure of a suite that has none yet
    if code not in (0, 1, 5):
        broken.append("pytest (exit %d)" % code)

    for b in broken:
        print("suite did not run to completion:", b)
        failed += 1
    print("total time %.0f s" % (time.time() - t0))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
