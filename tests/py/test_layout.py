"""The layering rules of docs/architecture.md, checked over the source tree.

- The core (lib/) never reaches up: no file under lib/ includes a header of symbolics/,
  opsets/ or profiles/.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPPER = ("symbolics", "opsets", "profiles")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(top):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".inc")):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def includes(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


def resolve(rel, inc):
    """The tree path a quoted #include of file rel names: beside rel first, then -Ilib."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if os.path.exists(os.path.join(ROOT, here)):
        return here
    in_lib = os.path.normpath(os.path.join("lib", inc))
    if os.path.exists(os.path.join(ROOT, in_lib)):
        return in_lib
    return inc  # generated (onnx.pb-c.h) or public (onnxlegal/...)


def test_the_tree_is_there():
    assert list(sources("lib")) and list(sources("symbolics")), ROOT


def test_lib_includes_nothing_above_it():
    bad = []
    for rel in sources("lib"):
        for inc in includes(rel):
            target = resolve(rel, inc)
            if target.split(os.sep)[0] in UPPER:
                bad.append("%s includes %s" % (rel, inc))
    assert not bad, "the core (lib/) must not include the parts above it:\n" + "\n".join(bad)
