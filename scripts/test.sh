#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite:
#   1. gcc Release: unit tests, examples, the install check, driver batches,
#      then all of them again with fusebox and oneDNN capped to AVX2, so that
#      every machine proves the AVX2-only configuration (AMD Zen, older Intel);
#   2. gcc AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests again;
#   3. clang ASan + UBSan: the unit tests, then each libFuzzer target for a
#      bounded time (FUSEBOX_FUZZ_SECONDS, default 60);
#   4. clang ThreadSanitizer: the concurrency tests.
# Every build treats warnings as errors.
#   scripts/test.sh            all four
#   scripts/test.sh --quick    Release only
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh

run_preset() {
  echo "== $1"
  cmake --preset "$1" "${@:2}"
  cmake --build --preset "$1"
  ctest --preset "$1"
}

run_preset release
echo "== release, capped to AVX2 (FUSEBOX_MAX_ISA, ONEDNN_MAX_CPU_ISA)"
FUSEBOX_MAX_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 ctest --preset release
if [ "${1:-}" != "--quick" ]; then
  run_preset asan
  run_preset clang-fuzz -DFUSEBOX_FUZZ_SECONDS="${FUSEBOX_FUZZ_SECONDS:-60}"
  run_preset tsan
fi
