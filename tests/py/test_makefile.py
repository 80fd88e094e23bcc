"""The build itself: a parallel build runs each generator once (issue 28, point 7)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_protoc_runs_once_in_a_parallel_build(tmp_path):
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    # a dry run into an empty build folder: each recipe that would run is printed once per run
    r = subprocess.run(["make", "-n", "-j2", "BUILD=%s" % (tmp_path / "b"), "PYLINK=0", "lib"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    runs = [line for line in r.stdout.splitlines() if line.startswith("protoc-c ")]
    if not runs:
        pytest.skip("this build does not generate the protobuf code (no protoc-c)")
    assert len(runs) == 1, runs
