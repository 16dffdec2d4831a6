#!/usr/bin/env bash
# Ports oneDNN's own Graph API tests (tests/gtests/graph/api/test_c*_api_*.cpp
# of a oneDNN source tree) to fusebox by the substitution rule alone
# (examples/onednn_to_fusebox.cmake), builds each file against an installed
# fusebox with Debian's GoogleTest, runs it on the CPU engine and prints, per
# file, what passed. Every failing test is then classified: "needs <ops>" when
# its source uses an op kind fusebox does not run (the partition comes back
# unsupported, as oneDNN's contract says), otherwise a failure of fusebox's own
# API, which makes the script exit non-zero.
#
#   scripts/onednn_api_suite.sh ONEDNN_SOURCE_DIR [FUSEBOX_PREFIX]
#
# FUSEBOX_PREFIX defaults to an install of build/release into the scratch
# folder (build/onednn-api-suite). oneDNN's test sources are read, never
# copied into this repository; the few helpers of its test tree that the
# files include (SKIP_IF, the test allocator) are replaced by small shims of
# our own below. A benchmark of compatibility, not a CI step: it needs a
# oneDNN checkout, which CI does not have.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
src=${1:?usage: scripts/onednn_api_suite.sh ONEDNN_SOURCE_DIR [FUSEBOX_PREFIX]}
api=$src/tests/gtests/graph/api
[ -d "$api" ] || { echo "no $api" >&2; exit 2; }
work=$root/build/onednn-api-suite
rm -rf "$work" && mkdir -p "$work"/{ported,shim/tests/gtests,bin,out}
prefix=${2:-$work/prefix}
if [ -z "${2:-}" ]; then
  cmake --install build/release --prefix "$prefix" > /dev/null
fi

# Shims for oneDNN's test tree (after the rule: dnnl_test_* -> fusebox_test_*).
cat > "$work/shim/tests/gtests/fusebox_test_macros.hpp" <<'EOF'
#pragma once
#include <iostream>
#include <gtest/gtest.h>
#define SKIP_IF(cond, msg) \
    do { \
        if (cond) { \
            std::cout << "[  SKIPPED ] " << (msg) << std::endl; \
            return; \
        } \
    } while (0)
#define SKIP_FOR_LOOP(cond, msg) \
    if (cond) { \
        std::cout << "[  SKIPPED ] " << (msg) << std::endl; \
        continue; \
    }
#define SKIP_IF_CUDA(cond, msg)
#define SKIP_FOR_LOOP_CUDA(cond, msg)
#define SKIP_IF_HIP(cond, msg)
#define SKIP_FOR_LOOP_HIP(cond, msg)
#define HANDLE_EXCEPTIONS_FOR_TEST(f, n) TEST(f, n)
#define HANDLE_EXCEPTIONS_FOR_TEST_F(f, n) TEST_F(f, n)
#define HANDLE_EXCEPTIONS_FOR_TEST_P(f, n) TEST_P(f, n)
EOF
printf '#pragma once\n#include <gtest/gtest.h>\n' > "$work/shim/tests/gtests/fusebox_test_common.hpp"
cat > "$work/shim/test_allocator.hpp" <<'EOF'
#pragma once
#include <cstddef>
#include <fusebox/fusebox.hpp>
namespace fusebox {
namespace testing {
void *allocate(size_t size, size_t alignment);
void deallocate(void *ptr);
} // namespace testing
} // namespace fusebox
EOF
cat > "$work/shim/test_allocator.cpp" <<'EOF'
#include <cstdlib>
#include "test_allocator.hpp"
namespace fusebox {
namespace testing {
void *allocate(size_t size, size_t alignment) {
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
void deallocate(void *ptr) { std::free(ptr); }
} // namespace testing
} // namespace fusebox
EOF

for f in "$api"/test_c*_api_*.cpp "$api"/test_api_common.* "$api"/api_test_main.cpp; do
  [ -e "$f" ] || continue
  cmake -DIN="$f" -DOUT="$work/ported/$(basename "$f")" -P examples/onednn_to_fusebox.cmake
done
# Some trees keep test_api_common.h only in older releases: a one-macro stand-in.
if [ ! -e "$work/ported/test_api_common.h" ]; then
  cat > "$work/ported/test_api_common.h" <<'EOF'
#pragma once
#include <gtest/gtest.h>
#include <fusebox/fusebox.h>
#define ASSERT_EQ_SAFE(val1, val2, ...) \
    do { \
        auto result = (val1); \
        if (result != (val2)) { \
            {__VA_ARGS__} ASSERT_EQ(result, val2); \
            return; \
        } \
    } while (0)
EOF
fi

cxx=(g++ -std=c++17 -O1 -w -I"$prefix/include" -I"$work/shim" -I"$work/ported" -I"$work")
libs=(-L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lfusebox -lgtest -lpthread)
common=()
for c in test_api_common api_test_main; do
  [ -e "$work/ported/$c.cpp" ] || continue
  "${cxx[@]}" -c "$work/ported/$c.cpp" -o "$work/$c.o"
  common+=("$work/$c.o")
done
"${cxx[@]}" -c "$work/shim/test_allocator.cpp" -o "$work/test_allocator.o"
[ -e "$work/api_test_main.o" ] || libs+=(-lgtest_main)

# The op kinds fusebox does not run (End and Wildcard aside), spelled
# lower-case without underscores, as op::kind::MaxPool and fusebox_op_max_pool
# both read once normalized.
cat > "$work/kinds.cpp" <<'EOF'
#include <cctype>
#include <cstdio>
#include <string>
#include <fusebox/fusebox.hpp>
int main() {
    for (int v = 0; v < 0x200; ++v) {
        const auto k = static_cast<fusebox::op::kind>(v);
        std::string name = fusebox::op_kind_name(k);
        if (name == "unknown" || fusebox::is_kind_supported(k) || k == fusebox::op::kind::End ||
            k == fusebox::op::kind::Wildcard)
            continue;
        for (char &c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::printf("%s\n", name.c_str());
    }
}
EOF
"${cxx[@]}" "$work/kinds.cpp" "${libs[@]}" -o "$work/kinds"
"$work/kinds" > "$work/unsupported_kinds.txt"

files=0 compiled=0 passed=0 skipped=0 needs_ops=0 api_failures=0
printf '%-40s %8s %6s %6s %s\n' file compiled passed failed "failures needing ops fusebox does not run"
for f in "$work"/ported/test_c*_api_*.cpp; do
  n=$(basename "$f" .cpp)
  files=$((files + 1))
  if ! "${cxx[@]}" "$f" "${common[@]}" "$work/test_allocator.o" "${libs[@]}" -o "$work/bin/$n" \
      2> "$work/out/$n.build"; then
    printf '%-40s %8s  (see %s)\n' "$n" no "$work/out/$n.build"
    api_failures=$((api_failures + 1))
    continue
  fi
  compiled=$((compiled + 1))
  FUSEBOX_VERBOSE=1 "$work/bin/$n" --engine=cpu > "$work/out/$n.txt" 2>&1 || true
  p=$(grep -c '^\[       OK \]' "$work/out/$n.txt" || true)
  s=$(grep -c '^\[  SKIPPED \]' "$work/out/$n.txt" || true)
  failed_tests=$(sed -n 's/^\[  FAILED  \] \([^ ,]*\).* ([0-9]* ms)$/\1/p' "$work/out/$n.txt")
  nf=0 notes=""
  for t in $failed_tests; do
    nf=$((nf + 1))
    # First the run itself: the unsupported partitions fusebox reported
    # (FUSEBOX_VERBOSE=1) while the test ran.
    kinds=$(awk -v t="$t" 'index($0, "[ RUN      ] " t) == 1 { on = 1 } on; on && index($0, "[  FAILED  ] " t) == 1 { exit }' \
      "$work/out/$n.txt" | grep -oE 'fusebox does not run [A-Za-z0-9]+' | awk '{print $5}' |
      grep -vxE 'End|Wildcard' | sort -u | paste -sd, - || true)
    if [ -z "$kinds" ]; then
      # A test that failed before partitioning: the op kinds its source names,
      # from the end of the previous test (its fixture included) to its own end.
      suite=${t%%.*} name=${t#*.} name=${name%%/*} suite=${suite##*/}
      kinds=$(awk -v s="$suite" -v n="$name" '
        /^(HANDLE_EXCEPTIONS_FOR_)?TEST(_F|_P)?\(/ {
          if (found) exit
          if (index($0, s) && index($0, n)) found = 1; else text = ""
        }
        { text = text "\n" $0 }
        END { print text }' "$f" | grep -oE 'op::kind::[A-Za-z0-9]+|fusebox_op_[a-z0-9_]+' |
        sed -E 's/^op::kind:://; s/^fusebox_op_//; s/_//g' | tr 'A-Z' 'a-z' | sort -u |
        grep -xFf "$work/unsupported_kinds.txt" | paste -sd, - || true)
    fi
    if [ -n "$kinds" ]; then
      needs_ops=$((needs_ops + 1)); notes+=" $t($kinds)"
    else
      api_failures=$((api_failures + 1)); notes+=" $t(API FAILURE)"
    fi
  done
  passed=$((passed + p)); skipped=$((skipped + s))
  printf '%-40s %8s %6d %6d%s\n' "$n" yes "$p" "$nf" "$notes"
done
echo "files: $files, compiled: $compiled; tests passed: $passed ($skipped of them skipped by the test itself)," \
     "failed needing ops fusebox does not run: $needs_ops, other failures: $api_failures"
[ "$api_failures" -eq 0 ]
