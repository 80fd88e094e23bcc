#!/usr/bin/env python3
"""Runs every test suite of the project and ends with one line: "N passed, N failed".

Suites: the C unit tests (build/tests/unit), with --nanopb-build those of the nanopb writer in
that build, then every pytest file under tests/py. Each suite's
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
    ap.add_argument("--nanopb-build", help="a build with the nanopb writer (make NANOPB=1): its "
                    "C unit tests of that writer run, and tests/py/test_nanopb.py uses it")
    ap.add_argument("-k", help="pytest -k expression (and C test filter)")
    args = ap.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "bindings", "python"), ROOT] + env.get("PYTHONPATH", "").split(os.pathsep))
    env.setdefault("ONNXLEGAL_BUILD", os.path.join(ROOT, args.build))
    if args.nanopb_build:
        env["ONNXLEGAL_NANOPB_BUILD"] = os.path.join(ROOT, args.nanopb_build)
    passed = failed = skipped = 0
    broken = []
    t0 = time.time()

    units = [("C unit tests", os.path.join(ROOT, args.build, "tests", "unit"), args.k)]
    if args.nanopb_build:
        # only the nanopb writer's tests: the others ran above on the same sources
        units.append(("nanopb C unit tests", os.path.join(ROOT, args.nanopb_build, "tests", "unit"),
                      args.k or "nanopb"))
    for what, unit, filt in units:
        code, out = run([unit] + ([filt] if filt else []), env)
        m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
        if m:
            passed += int(m.group(1))
            failed += int(m.group(2))
        if code != 0 and not (m and int(m.group(2))):
            broken.append("%s (exit %d)" % (what, code))

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
