"""The build step of the Python package (issue 29, a): `pip install .` from the source tree builds
the C library (`make`, into the package build's own directory, never the tree's build/) and ships
it inside the package, as onnxlegal/libonnxlegal.so.0, so that `import onnxlegal` works with
nothing else installed or set; the wheel is then a platform wheel. The metadata is in
pyproject.toml.

From a copy without the C sources (only the package files), or with ONNXLEGAL_PIP_NO_LIB=1, no
library is built and the package falls back to an installed one (`make install`, the loader's,
pkg-config's; see onnxlegal/_lib.py). A failed `make` stops the install, unless an installed
library exists, which is then used (with a warning)."""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libonnxlegal.so.0"


def _has_c_sources():
    return all(os.path.exists(os.path.join(HERE, p)) for p in ("Makefile", "lib", "include"))


def _installed_library():
    import ctypes.util
    return ctypes.util.find_library("onnxlegal")


class BuildWithLibrary(build_py):
    """build_py, then the C library into the package (when the C sources are here)."""

    def run(self):
        super().run()
        if os.environ.get("ONNXLEGAL_PIP_NO_LIB") == "1":
            self.announce("onnxlegal: ONNXLEGAL_PIP_NO_LIB=1: no library shipped", 2)
            return
        if not _has_c_sources():
            sys.stderr.write("onnxlegal: no C sources beside setup.py: the package ships no "
                             "library and will load an installed %s\n" % SONAME)
            return
        build_base = os.path.abspath(self.get_finalized_command("build").build_base)
        cbuild = os.path.join(build_base, "clib")
        target = os.path.join(cbuild, "lib", SONAME)
        # only the shared library (not the tool, the static library or the CMake files);
        # PYLINK=0: the tree's package is not repointed at this build
        cmd = ["make", "-C", HERE, "-j%d" % min(os.cpu_count() or 1, 8), "BUILD=" + cbuild,
               "PYLINK=0", target]
        self.announce("onnxlegal: building the C library: " + " ".join(cmd), 2)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            installed = _installed_library()
            tail = "\n".join(r.stdout.splitlines()[-30:])
            if not installed:
                raise SystemExit("onnxlegal: building the C library failed (`%s`):\n%s\n"
                                 "Install what it needs (a C compiler and make: "
                                 "`apt install build-essential`), or install the library first (`make "
                                 "install`) and the package will load it."
                                 % (" ".join(cmd), tail))
            sys.stderr.write("onnxlegal: WARNING: building the C library failed; the package "
                             "will load the installed %s:\n%s\n" % (installed, tail))
            return
        dest = os.path.join(self.build_lib, "onnxlegal", SONAME)
        if os.path.lexists(dest):
            os.remove(dest)  # the tree's python-lib-link symlink, copied by build_py
        shutil.copyfile(os.path.realpath(target), dest)  # the file, not the symlink chain
        os.chmod(dest, 0o755)


class BinaryDistribution(Distribution):
    """Native code inside: a platform wheel (linux_x86_64, ...), never a py3-none-any one."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
