"""The manual pages: generated from the sources by tools/gen_man.py (`make man`), installed by
`make install` in MANDIR, rendered by `man -l` without a groff warning; onnxlegal(1) has a section
for every command with its --help text, onnxlegal(3) an entry with a description for every
exported function (abi/exports.txt)."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    stage = tmp_path_factory.mktemp("man") / "root"
    subprocess.run(["make", "-s", "PYLINK=0", "BUILD=" + BUILD, "install", "DESTDIR=" + str(stage),
                    "PREFIX=/usr"], cwd=ROOT, check=True, capture_output=True)
    return {"1": stage / "usr/share/man/man1/onnxlegal.1",
            "3": stage / "usr/share/man/man3/onnxlegal.3"}


def render(path):
    if not shutil.which("man"):
        pytest.skip("man is not installed (man-db)")
    env = dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0", LC_ALL="C.UTF-8")
    r = subprocess.run(["man", "-l", str(path)], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr
    if shutil.which("groff"):
        w = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(path)],
                           capture_output=True, text=True)
        assert not w.stderr.strip(), w.stderr
    return r.stdout


def test_tool_page_has_every_command(pages):
    text = render(pages["1"])
    tool = os.path.join(BUILD, "bin", "onnxlegal")
    top = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    cmds = re.findall(r"^  ([a-z][a-z-]*)\s", top.split("commands:", 1)[1], re.M)
    assert len(cmds) >= 6
    for c in cmds:
        first = subprocess.run([tool, c, "--help"], capture_output=True, text=True).stdout
        assert first.splitlines()[0].strip() in text, c


def test_api_page_documents_every_exported_function(pages):
    text = render(pages["3"])
    exported = open(os.path.join(ROOT, "abi", "exports.txt")).read().split()
    src = open(pages["3"]).read()
    entries = dict(re.findall(r"^\.SS (\w+)\n(.*?)(?=^\.SS |^\.SH |\Z)", src, re.M | re.S))
    missing = [f for f in exported if f not in entries]
    assert not missing, "exported functions without an entry in onnxlegal(3): %s" % missing
    empty = [f for f in exported if "(undocumented)" in entries[f]]
    assert not empty, "exported functions without a doc comment in their header: %s" % empty
    assert "olg_legalize" in text and "BORROWS" in text
