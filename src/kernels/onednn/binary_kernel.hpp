// Lowering to oneDNN's binary primitive.
#pragma once

#include <memory>
#include <string>

#include "compile/fused_expr.hpp"
#include "kernels/kernel.hpp"

namespace fusebox::detail {

/// A kernel running `e` as oneDNN binary primitives (one per chunk shape), or
/// nullptr with the reason in `why` when oneDNN cannot compute `e` exactly
/// with a non-reference implementation.
std::unique_ptr<kernel> make_onednn_kernel(const fused_expr &e, std::string &why);

} // namespace fusebox::detail
