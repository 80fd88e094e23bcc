"""The build itself: a parallel build runs each generator once (issue 28, point 7)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _dry_run(tmp_path, target):
    # a dry run into an empty build folder: each recipe that would run is printed once per run
    b = tmp_path / "b"
    r = subprocess.run(["make", "-n", "-j2", "BUILD=%s" % b, "PYLINK=0"] +
                       ([target.format(b=b)] if target else []),
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def test_the_library_needs_no_protobuf_code(tmp_path):
    """The library reads with its own field tables (lib/serialize/pb_schema.c): building it runs
    no protoc-c and links no protobuf-c (issue 24)."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    r = _dry_run(tmp_path, "lib")
    assert not [line for line in r.stdout.splitlines() if line.startswith("protoc-c ")]
    assert "protobuf-c" not in r.stdout


def test_protoc_runs_once_in_a_parallel_build(tmp_path):
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    # the C unit tests cross-check the reader and the writers with protobuf-c's own parser
    r = _dry_run(tmp_path, "{b}/tests/unit")
    assert r.returncode == 0, r.stderr
    runs = [line for line in r.stdout.splitlines() if line.startswith("protoc-c ")]
    if not runs:
        pytest.skip("this build does not generate the protobuf code (no protoc-c)")
    assert len(runs) == 1, runs


def test_plain_make_builds_the_library_and_the_tool(tmp_path):
    """`make` with no target is `make all` (the README says so): a test object's rule ahead of
    `all:` once made it build one object and stop."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    plain = _dry_run(tmp_path, "").stdout
    assert "libonnxlegal" in plain and "tools/onnxlegal" in plain
    assert plain == _dry_run(tmp_path, "all").stdout
