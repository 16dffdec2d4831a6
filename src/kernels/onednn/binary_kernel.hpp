// Lowering to oneDNN's binary primitive.
#pragma once

#include <memory>
#include <string>

#include "ir/fused_expr.hpp"
#include "kernels/kernel.hpp"

namespace fusebox::detail {

/// What the graph's fpmath mode allows beyond exact results.
struct onednn_options {
    bool bf16_add_may_flush = false; // bf16 Add results may flush subnormals to zero
    bool f16_add_may_flush = false;  // f16 Add results may flush subnormals to zero
};

/// A kernel running `e` as oneDNN binary primitives (one per chunk shape), or
/// nullptr with the reason in `why` when oneDNN cannot compute `e` exactly
/// (or as `opt` allows) with a non-reference implementation.
std::unique_ptr<kernel> make_onednn_kernel(const fused_expr &e, const onednn_options &opt, std::string &why);

/// oneDNN's effective CPU ISA (after ONEDNN_MAX_CPU_ISA), in oneDNN's
/// spelling: "avx2", "avx512_core_bf16", ...
std::string onednn_isa_name();

} // namespace fusebox::detail
