"""The nanopb writer (olg_model_write_nanopb) against the default writer, on a build with nanopb.

Every model of Debian's libonnx-testdata is read once and written by both writers, through
ctypes on the nanopb build's shared library; the bytes must be the same (and, as for the default
writer, the same as the file). The writer's object file (with the field decisions it shares
with the default writer, lib/serialize/pb_fields.inc, compiled in) is checked to call no
allocator, and the nanopb objects it links in too. Skipped, saying why, when there is no nanopb build: make one
with `make test-nanopb` (or `make NANOPB=1`, which builds in build/nanopb).
"""
import ctypes
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

from onnxlegal import _lib  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"
FILES = sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))


def _nanopb_builds():
    """Build directories to look in, in order: $ONNXLEGAL_NANOPB_BUILD, $ONNXLEGAL_BUILD,
    build/nanopb, build."""
    out = []
    for d in (os.environ.get("ONNXLEGAL_NANOPB_BUILD"), os.environ.get("ONNXLEGAL_BUILD"),
              os.path.join(ROOT, "build", "nanopb"), os.path.join(ROOT, "build")):
        if d:
            d = os.path.join(ROOT, d) if not os.path.isabs(d) else d
            if d not in out:
                out.append(d)
    return out


def _find_nanopb_build():
    """(build directory, loaded Library) of the first build whose library exports
    olg_model_write_nanopb, or (None, reason)."""
    looked = []
    for d in _nanopb_builds():
        so = os.path.join(d, "lib", _lib.SONAME)
        if not os.path.exists(so):
            looked.append("%s: no library" % so)
            continue
        try:
            lib = _lib.Library(so)
        except ImportError as e:
            looked.append(str(e))
            continue
        if "olg_model_write_nanopb" in lib.missing:
            looked.append("%s: built without nanopb" % so)
            continue
        return d, lib
    return None, "; ".join(looked)


BUILD, LIB = _find_nanopb_build()
needs_nanopb = pytest.mark.skipif(
    BUILD is None, reason="no build with nanopb (run `make test-nanopb`, or `make NANOPB=1`): %s"
    % (LIB if BUILD is None else ""))


def test_the_nanopb_build_named_is_the_one_used():
    """`make test` and `make test-nanopb` build the nanopb writer and name its build in
    ONNXLEGAL_NANOPB_BUILD: there, the tests below must run, never skip."""
    named = os.environ.get("ONNXLEGAL_NANOPB_BUILD")
    if not named:
        pytest.skip("no nanopb build named in ONNXLEGAL_NANOPB_BUILD")
    named = os.path.join(ROOT, named) if not os.path.isabs(named) else named
    assert BUILD == named, "the nanopb build named is not usable: %s" % LIB


class Sink:
    """A write callback collecting the bytes (kept alive as long as the sink)."""

    def __init__(self):
        self.parts = []
        self.fn = _lib.WRITE_FN(self._write)

    def _write(self, ud, data, n):
        self.parts.append(ctypes.string_at(data, n))
        return 0

    def bytes(self):
        return b"".join(self.parts)


def _error(lib, status):
    return "%s: %s" % (lib.olg_status_name(status).decode(), lib.olg_last_error().decode())


@needs_nanopb
def test_every_testdata_model_same_bytes_from_both_writers():
    if not FILES:
        pytest.skip("libonnx-testdata is not installed (apt-get install -y libonnx-testdata)")
    same = as_file = 0
    bad = []
    for path in FILES:
        with open(path, "rb") as f:
            original = f.read()
        model = ctypes.c_void_p()
        status = LIB.olg_model_read_file(ctypes.byref(model), path.encode(), None)
        assert status == 0, "%s: %s" % (path, _error(LIB, status))
        try:
            default, small = Sink(), Sink()
            status = LIB.olg_model_write_callback(model, default.fn, None, None)
            assert status == 0, "%s: default writer: %s" % (path, _error(LIB, status))
            status = LIB.olg_model_write_nanopb(model, small.fn, None)
            assert status == 0, "%s: nanopb writer: %s" % (path, _error(LIB, status))
        finally:
            LIB.olg_model_free(model)
        if small.bytes() == default.bytes():
            same += 1
            as_file += small.bytes() == original
        else:
            bad.append(os.path.relpath(path, TESTDATA))
    print("\ntestdata: %d/%d models written byte-identically by both writers (%d of them "
          "identical to the file)" % (same, len(FILES), as_file))
    assert not bad, "%d models differ, e.g. %s" % (len(bad), bad[:5])
    assert same == len(FILES)


def _undefined(obj):
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


# What may be called: the C library's byte and string functions, the error message setters
# (vsnprintf into a thread-local buffer), the attribute-list table, nanopb's encoder, the stack
# protector, and on a big-endian host the tensor data byte swap (olg__dtype_swap_unit,
# olg__swap_bytes: into a buffer on the stack). Anything else -- malloc, calloc, realloc, free, the library's olg__malloc,
# olg__realloc, olg__free, the arena -- fails the test.
ALLOWED = {"memcpy", "memcmp", "memset", "strlen", "strnlen", "olg__err", "olg__err_prefix",
           "olg__pb_attr_list", "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_",
           "olg__dtype_swap_unit", "olg__swap_bytes"}
ALLOCATORS = {"malloc", "calloc", "realloc", "free", "reallocarray", "aligned_alloc",
              "posix_memalign", "strdup", "strndup", "olg__malloc", "olg__calloc",
              "olg__realloc", "olg__free", "olg__grow", "olg__arena_alloc", "olg__arena_dup",
              "olg_arena_alloc", "olg__strdup", "olg__strndup"}


@needs_nanopb
def test_the_writer_calls_no_allocator():
    obj = os.path.join(BUILD, "obj", "lib", "serialize", "nanopb_writer.o")
    assert os.path.exists(obj), obj
    calls = _undefined(obj)
    assert "pb_write" in calls and "pb_encode_varint" in calls  # nanopb's primitives are used
    unexpected = {c for c in calls if c not in ALLOWED and not c.startswith("pb_")}
    assert not unexpected, "nanopb_writer.o calls %s" % sorted(unexpected)
    assert not calls & ALLOCATORS


@needs_nanopb
def test_the_nanopb_encoder_linked_in_calls_no_allocator(tmp_path):
    """The archive members the writer pulls in (pb_encode, and pb_common for its field
    iterators) call no allocator either."""
    archive = subprocess.run(["cc", "-print-file-name=libprotobuf-nanopb.a"], capture_output=True,
                             text=True, check=True).stdout.strip()
    if not os.path.isabs(archive) or not os.path.exists(archive):
        pytest.skip("libprotobuf-nanopb.a not found by the compiler (nanopb from elsewhere)")
    members = subprocess.run(["ar", "t", archive], capture_output=True, text=True,
                             check=True).stdout.split()
    wanted = [m for m in members if m.startswith(("pb_encode", "pb_common"))]
    assert len(wanted) == 2, members
    subprocess.run(["ar", "x", archive] + wanted, cwd=tmp_path, check=True)
    for m in wanted:
        calls = _undefined(str(tmp_path / m))
        assert not calls & ALLOCATORS, "%s calls %s" % (m, sorted(calls & ALLOCATORS))
    # and the writer's code in the shared library uses nanopb's local copy, not an export
    so = os.path.join(BUILD, "lib", _lib.SONAME)
    exported = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True,
                              check=True).stdout
    assert " pb_" not in exported
