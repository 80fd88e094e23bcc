#!/bin/sh
# Installs what the build and the tests need on a fresh Debian 12 machine: the missing Debian
# packages (as root), and ONNX Runtime from npm into tests/ort. Run by `make deps`, on which
# `make test` and `make demo` depend. Does nothing when everything is there.
set -eu
cd "$(dirname "$0")/.."
set -eu
cd "$(dirname "$0")/.."

# libprotobuf-c-dev and protobuf-c-compiler serve the C unit tests alone (they cross-check the
# reader's tables and the writers with protobuf-c's parser); the library needs neither.
# gcc-aarch64-linux-gnu and libc6-dev-arm64-cross: the amalgamation is compiled and linked for
# aarch64 by tests/py/test_amalgamation.py. With the s390x and armhf cross compilers and
# qemu-user, `make test-cross` builds the library and the C unit tests for aarch64, s390x
# (big-endian) and armhf (32-bit) and runs them under qemu (tests/cross/run.py).

DEBS="gcc clang make pkg-config binutils libprotobuf-c-dev protobuf-c-compiler python3 python3-numpy
gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross
gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user
python3-onnx python3-torch python3-torchvision python3-pytest libonnx-testdata graphviz
abigail-tools valgrind nanopb libnanopb-dev g++ cmake python3-venv python3-setuptools man-db groff-base"

missing=""
for p in $DEBS; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Node.js may come from elsewhere than Debian (with npm bundled): ask for the commands, and
# install Debian's packages only when they are absent.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "deps: installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
  else
    echo "deps: missing Debian packages. Run as root:"
    echo "  apt-get update && apt-get install -y$missing"
    exit 1
  fi
fi

if [ ! -d tests/ort/node_modules/onnxruntime-node ]; then
  echo "deps: installing onnxruntime-node into tests/ort (npm, scripts disabled: the CPU runtime ships in the package)"
  npm --prefix tests/ort ci --ignore-scripts --no-audit --no-fund
fi
