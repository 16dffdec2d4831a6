// Groups a finalized graph's ops into partitions.
#pragma once

#include "interface/graph_impl.hpp"

namespace fusebox::detail {

/// Partitions of the finalized graph `g` (ids unset) in a valid execution
/// order: every op but End in exactly one. Ops fusebox runs are fused under
/// policy::fusion; every other op is a partition of its own, not supported.
std::vector<partition_impl> find_partitions(const graph_impl &g, partition::policy p);

} // namespace fusebox::detail
