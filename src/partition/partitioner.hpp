// Groups a finalized graph's ops into partitions.
#pragma once

#include "interface/graph_impl.hpp"

namespace fusebox::detail {

/// `ops` are in execution order with inferred logical tensors. Returns the
/// partitions (ids unset) in a valid execution order. End ops belong to no
/// partition.
std::vector<partition_impl> find_partitions(const std::vector<op> &ops, partition::policy p);

} // namespace fusebox::detail
