// Internal state behind fusebox::compiled_partition.
#pragma once

#include <memory>

#include "fusebox/fusebox.hpp"
#include "kernels/kernel.hpp"

namespace fusebox::detail {

/// What compiling a partition for given shapes produces; shared by every
/// compile that hits the same compile-cache entry.
struct compiled_core {
    std::string ops;                    // e.g. "Add#3,Equal#4" for verbose lines
    std::vector<logical_tensor> inputs; // in partition port order
    logical_tensor output;
    std::vector<std::pair<size_t, size_t>> inplace;
    std::shared_ptr<const kernel> k;
    std::string fallback_reason; // why oneDNN was not used, when it was considered
};

struct compiled_impl {
    size_t partition_id = 0;
    std::shared_ptr<const compiled_core> core;
};

} // namespace fusebox::detail
