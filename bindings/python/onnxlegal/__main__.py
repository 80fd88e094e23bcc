"""`python3 -m onnxlegal ARGS...` runs the onnxlegal command-line tool with ARGS (the same
commands, options and exit status): the tool installed with the library the package loaded
(PREFIX/bin beside PREFIX/lib), else the source tree's build/bin, else `onnxlegal` on PATH.
$ONNXLEGAL_TOOL names it explicitly."""
import os
import shutil
import sys


def _loaded_library_path():
    """The file the loaded libonnxlegal was mapped from (the loader may have found it by soname)."""
    from ._lib import lib
    if os.sep in lib.path:
        return os.path.realpath(lib.path)
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith("libonnxlegal.so"):
                    return path
    except OSError:
        pass
    return None


def find_tool():
    env = os.environ.get("ONNXLEGAL_TOOL")
    if env:
        return env
    cands = []
    libpath = _loaded_library_path()
    if libpath:
        cands.append(os.path.join(os.path.dirname(os.path.dirname(libpath)), "bin", "onnxlegal"))
    build = os.environ.get("ONNXLEGAL_BUILD")
    if build:
        cands.append(os.path.join(build, "bin", "onnxlegal"))
    cands.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))), "build", "bin", "onnxlegal"))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return shutil.which("onnxlegal")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    tool = find_tool()
    if not tool:
        sys.stderr.write("python3 -m onnxlegal: the onnxlegal tool is not installed beside the "
                         "library (make install), nor on PATH; set ONNXLEGAL_TOOL to it\n")
        return 2
    sys.stdout.flush()
    os.execv(tool, ["onnxlegal"] + list(argv))


if __name__ == "__main__":
    sys.exit(main())
