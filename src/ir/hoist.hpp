// Sub-expressions over a smaller broadcast shape, computed once.
//
// A node whose every operand is broadcast along some dims of the iteration
// space has one value per index of the other dims: a BERT mask's
// Mul(Sub(1, mask), -10000) over [64,1,1,128] feeding a [64,12,128,128] Add.
// Evaluated per element of the whole space it repeats the same arithmetic
// 1536 times; computed once over its own shape into a small buffer, the
// partition's pass reads that buffer as one more broadcast operand.
#pragma once

#include <vector>

#include "ir/fused_expr.hpp"

namespace fusebox::detail {

/// A partition's expression as stages: stages[k] computes, over its own
/// (smaller) iteration space, the buffer that later stages and `main` read
/// as input port e.inputs.size() + k; `main` computes the output. Every
/// stage and `main` take the same input list: the partition's inputs, then
/// the stages' buffers (a stage reads only the buffers before its own),
/// then the constants.
struct staged_expr {
    std::vector<fused_expr> stages;
    fused_expr main;
};

/// Whether, and which, sub-expressions to hoist. A node is computed once
/// over its own shape when its value repeats at least kMinRepeat times along
/// the dims it is broadcast on, some reader of it is not broadcast on all of
/// them, and its buffer either fits in `cache_bytes` or is no wider per
/// element than an input it is computed from (so reading it back moves no
/// more bytes than the per-element evaluation would). Expressions under
/// kMinElements elements are left whole (a stage costs an allocation and a
/// call). The result computes exactly what `e` does, bit for bit.
staged_expr hoist_invariants(const fused_expr &e, int64_t cache_bytes);

constexpr int64_t kMinRepeat = 4;
constexpr int64_t kMinElements = 4096;

} // namespace fusebox::detail
