// Builds the canonical form of a partition for the logical tensors given to
// partition::compile.
#pragma once

#include "interface/graph_impl.hpp"
#include "ir/fused_expr.hpp"

namespace fusebox::detail {

/// Validates the logical tensors given to partition::compile against the
/// partition's ports, infers types and shapes through its ops and builds the
/// canonical expression. `concrete_ops`, when given, receives the partition's
/// ops carrying the concrete logical tensors of this compile.
fused_expr build_fused_expr(const partition_impl &part, const std::vector<logical_tensor> &inputs,
                            const std::vector<logical_tensor> &outputs, std::vector<op> *concrete_ops = nullptr);

} // namespace fusebox::detail
