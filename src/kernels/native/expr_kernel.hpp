// fusebox's own kernel: evaluates a whole fused expression in one pass over
// memory, any types, any broadcast and strides.
#pragma once

#include <memory>

#include "ir/fused_expr.hpp"
#include "kernels/kernel.hpp"

namespace fusebox::detail {

std::unique_ptr<kernel> make_native_kernel(const fused_expr &e);

/// Jobs streaming at least this many bytes write their output with
/// non-temporal stores (half the last-level cache, between 8 and 32 MiB).
int64_t stream_threshold_bytes();

} // namespace fusebox::detail
