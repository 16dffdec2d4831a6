#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: the Release
# build (unit tests, examples, the install check) and the unit tests again
# under AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/test.sh            both builds
#   scripts/test.sh --quick    Release only
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh

cmake --preset release
cmake --build --preset release
ctest --preset release

if [ "${1:-}" != "--quick" ]; then
  cmake --preset asan
  cmake --build --preset asan
  ctest --preset asan
fi
