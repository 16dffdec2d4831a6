// Internal state behind fusebox::compiled_partition.
#pragma once

#include <memory>

#include "common/verbose.hpp"
#include "fusebox/fusebox.hpp"
#include "kernels/kernel.hpp"

namespace fusebox::detail {

/// What compiling a partition for given shapes produces; shared by every
/// compile that hits the same compile-cache entry.
struct compiled_core {
    std::vector<logical_tensor> inputs;  // in partition port order
    std::vector<logical_tensor> outputs; // in partition port order: the last op's, then fused_expr::sides
    std::vector<std::pair<size_t, size_t>> inplace;
    std::shared_ptr<const kernel> k;
    // For the verbose log:
    std::string ops;    // verbose_ops() of the partition
    std::string reason; // why this kernel
    fpmath_mode math = fpmath_mode::strict;
    size_t traffic = 0; // bytes of the inputs and the output
};

struct compiled_impl {
    size_t partition_id = 0;
    std::shared_ptr<const compiled_core> core;
};

/// The verbose line of `event` for a compiled partition, through its
/// streaming field (the caller appends time and bandwidth).
verbose_line log_line(std::string_view event, size_t partition_id, const compiled_core &c);

} // namespace fusebox::detail
