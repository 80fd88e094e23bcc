"""The configurations of the amalgamation (issue 24 (c), onnxlegal/config.h): each compiles for
the host with `cc -std=c11 -c` alone (-Wall -Wextra -Werror), the minimal one (the graph builder
and the nanopb writer) is at most 64 KiB of text at -Os on each architecture of tools/footprint.py
whose compiler is installed (skipped where it is not), a function left out is still there and
returns OLG_ERR_UNSUPPORTED naming its macro, the symbol set is the full one's, and the device
exporter example builds and runs in the minimal configuration. Sizes, not timings."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import footprint  # noqa: E402

WARN = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
MINIMAL = dict(footprint.CONFIGS)["minimal"]


@pytest.fixture(scope="module")
def amalg(tmp_path_factory):
    build = tmp_path_factory.mktemp("build")
    subprocess.run(["make", "-s", "BUILD=%s" % build, "amalgamation"], cwd=ROOT, check=True,
                   capture_output=True)
    return build / "amalgamation"


def cc(*args, cwd=None):
    r = subprocess.run(["gcc", *args], capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, " ".join(args) + "\n" + r.stderr[-4000:]


def exported(obj):
    # built with -fvisibility=hidden as the shared library is: OLG_API's are the default ones
    r = subprocess.run(["readelf", "-sW", str(obj)], capture_output=True, text=True, check=True)
    rows = [l.split() for l in r.stdout.splitlines()]
    return {f[7] for f in rows if len(f) == 8 and f[4] == "GLOBAL" and f[5] == "DEFAULT"
            and f[6] != "UND"}


@pytest.mark.parametrize("name,flags", footprint.CONFIGS, ids=[c for c, _ in footprint.CONFIGS])
def test_configuration_compiles_alone(amalg, tmp_path, name, flags):
    obj = tmp_path / "onnxlegal.o"
    cc(*WARN, *flags, "-fvisibility=hidden", "-c", "onnxlegal.c", "-o", str(obj), cwd=amalg)
    # the same public symbols in every configuration (the nanopb writer's where asked)
    with open(os.path.join(ROOT, "abi", "exports.txt"), encoding="utf-8") as f:
        want = set(f.read().split())
    got = exported(obj) - {"olg_model_write_nanopb"}
    assert got == want, (sorted(want - got)[:10], sorted(got - want)[:10])


@pytest.fixture(scope="module")
def nanopb_inc(tmp_path_factory):
    # nanopb's headers beside the object, as tools/footprint.py does: a cross compiler does not
    # search /usr/include
    inc = tmp_path_factory.mktemp("nanopb")
    for h in footprint.NANOPB_HEADERS:
        if os.path.exists(os.path.join("/usr/include", h)):
            shutil.copy(os.path.join("/usr/include", h), str(inc))
    return inc


@pytest.mark.parametrize("arch,compiler", footprint.ARCHS, ids=[a for a, _ in footprint.ARCHS])
def test_minimal_text_at_most_64k(amalg, nanopb_inc, tmp_path, arch, compiler):
    # docs/footprint.md promises it on every architecture: aarch64's code is the largest
    if not shutil.which(compiler):
        pytest.skip("%s is missing (`make deps` installs it)" % compiler)
    obj = tmp_path / "minimal.o"
    cmd = [compiler, "-std=c11", "-Os", *MINIMAL, "-I", str(amalg), "-I", str(nanopb_inc), "-c",
           str(amalg / "onnxlegal.c"), "-o", str(obj)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    text, _, _ = footprint.size_of(str(obj))
    assert text <= footprint.LIMIT, (arch, text)


LEFT_OUT = r"""
#include <stdio.h>
#include <string.h>
#include "onnxlegal/onnxlegal.h"
int main(void) {
  olg_model *m = NULL;
  static const unsigned char bytes[] = {0x08, 0x07};
  olg_status s = olg_model_read_memory(&m, bytes, sizeof bytes, NULL);
  if (s != OLG_ERR_UNSUPPORTED || !strstr(olg_last_error(), "olg_model_read_memory") ||
      !strstr(olg_last_error(), "OLG_CONFIG_NO_READER")) return 1;
  if (olg_check(NULL, NULL, NULL) != OLG_ERR_UNSUPPORTED ||
      !strstr(olg_last_error(), "OLG_CONFIG_NO_CHECK")) return 2;
  if (olg_legalize(NULL, NULL, NULL, NULL, NULL) != OLG_ERR_UNSUPPORTED) return 3;
  if (olg_model_write_file(NULL, "x.onnx", NULL) != OLG_ERR_UNSUPPORTED) return 4;
  puts(olg_last_error());
  return 0;
}
"""


def test_left_out_function_says_so(amalg, tmp_path):
    src, exe = tmp_path / "left_out.c", tmp_path / "left_out"
    src.write_text(LEFT_OUT)
    cc(*WARN, *MINIMAL, "-I", str(amalg), str(src), str(amalg / "onnxlegal.c"), "-lm",
       "-lprotobuf-nanopb", "-o", str(exe))
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == ("olg_model_write_file: not in this build of onnxlegal "
                                "(OLG_CONFIG_NO_PROTOBUF_WRITER)")


def test_device_exporter_minimal(amalg, tmp_path):
    exe, model = tmp_path / "exporter", tmp_path / "device.onnx"
    cc(*WARN, *MINIMAL, "-I", str(amalg), os.path.join(ROOT, "tests", "examples", "device_exporter.c"),
       str(amalg / "onnxlegal.c"), "-lm", "-lprotobuf-nanopb", "-o", str(exe))
    r = subprocess.run([str(exe), str(model)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "with the nanopb writer" in r.stdout, r.stdout + r.stderr
    tool = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin",
                        "onnxlegal")
    assert os.path.exists(tool), "%s: run `make` first" % tool
    r = subprocess.run([tool, "check", str(model)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_builder_domains_match_the_schema_tables():
    # without the schema tables the builder names ONNX's domains itself (lib/graph_node.c)
    with open(os.path.join(ROOT, "lib", "schemas_gen.c"), encoding="utf-8") as f:
        tables = re.findall(r'^  \{ "([^"]*)", \d+, \d+, \d+, \d+ \},$', f.read(), re.M)
    with open(os.path.join(ROOT, "lib", "graph_node.c"), encoding="utf-8") as f:
        src = f.read()
    known = re.search(r"known\[\] = \{([^}]*)\}", src).group(1)
    names = re.findall(r'"([^"]*)"', known)
    assert tables and set(tables) | {"ai.onnx"} == set(names), (tables, names)
