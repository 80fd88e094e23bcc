#!/usr/bin/env python3
"""`make test-cross` (issue 24 (d)): the library, the C unit tests and tests/cross/roundtrip.c
built with Debian's cross compilers (tools/deps.sh installs them and qemu-user) for each
architecture asked, in build/cross/<arch>, and run under qemu-user:

  aarch64  aarch64-linux-gnu-gcc     qemu-aarch64   64-bit ARM, little-endian
  s390x    s390x-linux-gnu-gcc       qemu-s390x     64-bit, big-endian
  armhf    arm-linux-gnueabihf-gcc   qemu-arm       32-bit ARM (hard float), little-endian

The unit tests are built with TEST_PROTOBUF_C=0 (there is no libprotobuf-c for the targets:
test_pb_schema.c and test_serialize.c's checks with protobuf-c's parser are left out; the host's
`make test` runs them). The round trip reads every libonnx-testdata model, writes it, legalizes it
to opsets 13 and 17, checks, writes, reads back and writes again; its output (one line per model
and target, with a hash of every byte written) must be the host's, line for line. Prints the
time each architecture takes. A missing compiler or qemu fails: run `make deps`.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = "/usr/share/libonnx-testdata/data"
ARCHS = {
    "aarch64": ("aarch64-linux-gnu", "qemu-aarch64"),
    "s390x": ("s390x-linux-gnu", "qemu-s390x"),
    "armhf": ("arm-linux-gnueabihf", "qemu-arm"),
}


def make(*args):
    cmd = ["make", "--no-print-directory", "-s", "-j%s" % os.environ.get("CROSS_JOBS", "2"),
           *args]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode:
        sys.exit("test-cross: %s failed:\n%s%s" % (" ".join(cmd), r.stdout[-3000:], r.stderr[-6000:]))


def need(cmd):
    if not shutil.which(cmd):
        sys.exit("test-cross: %s is missing: run `make deps` (tools/deps.sh installs it)" % cmd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build", help="the host's build directory")
    ap.add_argument("archs", nargs="*", default=list(ARCHS))
    args = ap.parse_args()
    bad = [a for a in args.archs if a not in ARCHS]
    if bad:
        sys.exit("test-cross: unknown architecture %s (known: %s)" % (bad, " ".join(ARCHS)))
    models = sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))
    if not models:
        sys.exit("test-cross: libonnx-testdata is missing: run `make deps`")
    os.makedirs(os.path.join(ROOT, "build", "cross"), exist_ok=True)
    listing = os.path.join(ROOT, "build", "cross", "models.txt")
    with open(listing, "w") as f:
        f.write("".join(m + "\n" for m in models))

    # the host's round trip: the reference every target must print
    host = os.path.join(args.build, "tests", "cross_roundtrip")
    make("BUILD=%s" % args.build, host)
    ref = subprocess.run([os.path.join(ROOT, host), listing], cwd=ROOT, capture_output=True,
                         text=True)
    if ref.returncode:
        sys.exit("test-cross: the host's round trip fails:\n%s%s" % (ref.stdout[-3000:], ref.stderr))
    ref_lines = ref.stdout.splitlines()
    print("test-cross: host: %s" % ref.stderr.strip())

    failed = []
    for arch in args.archs:
        triplet, qemu = ARCHS[arch]
        need(triplet + "-gcc")
        need(qemu)
        t0 = time.time()
        build = "build/cross/%s" % arch
        make("BUILD=%s" % build, "CC=%s-gcc" % triplet, "AR=%s-ar" % triplet, "TEST_PROTOBUF_C=0",
             "PYLINK=0", "%s/tests/unit" % build, "%s/tests/cross_roundtrip" % build)
        t1 = time.time()
        env = dict(os.environ, QEMU_LD_PREFIX="/usr/%s" % triplet)
        r = subprocess.run([qemu, os.path.join(build, "tests", "unit")], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        summary = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
        t2 = time.time()
        ok_unit = r.returncode == 0 and summary.endswith(" 0 failed")
        if not ok_unit:
            print(r.stdout[-4000:] + r.stderr[-4000:])
        rt = subprocess.run([qemu, os.path.join(build, "tests", "cross_roundtrip"), listing],
                            cwd=ROOT, env=env, capture_output=True, text=True)
        t3 = time.time()
        lines = rt.stdout.splitlines()
        diff = [(a, b) for a, b in zip(ref_lines, lines) if a != b]
        ok_rt = rt.returncode == 0 and len(lines) == len(ref_lines) and not diff
        if not ok_rt:
            print(rt.stderr[-2000:])
            for a, b in diff[:20]:
                print("  host:  %s\n  %s: %s" % (a, arch, b))
            if len(lines) != len(ref_lines):
                print("  %d lines, the host %d" % (len(lines), len(ref_lines)))
        print("test-cross: %s: unit tests: %s; round trip: %s (%s); build %.0f s, unit %.0f s, "
              "round trip %.0f s" % (arch, summary, "same as the host" if ok_rt else
                                     "%d lines differ" % len(diff), rt.stderr.strip(),
                                     t1 - t0, t2 - t1, t3 - t2))
        if not (ok_unit and ok_rt):
            failed.append(arch)
    if failed:
        sys.exit("test-cross: FAILED: %s" % " ".join(failed))
    print("test-cross: %s pass" % " ".join(args.archs))


if __name__ == "__main__":
    main()
