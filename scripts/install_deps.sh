#!/usr/bin/env bash
# Installs the Debian 12 packages fusebox needs to build, test and benchmark
# (python3-onnx and python3-numpy: the scripts that write the ONNX schema table
# and the example model).
# Idempotent: packages already installed are skipped; nothing is downloaded
# outside Debian's archive.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git clang libclang-rt-14-dev libomp-dev
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers libtbb-dev libhwy-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev gnuplot-nox
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libmpfr-dev
  python3-onnx python3-numpy
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
