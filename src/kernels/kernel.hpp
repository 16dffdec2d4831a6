// What the compiler hands to the runtime: one kernel per compiled partition.
#pragma once

#include <string>

#include "interface/handles.hpp"

namespace fusebox::detail {

/// What an execute provides besides the tensors.
struct exec_context {
    const allocator_impl &alloc; // the stream's engine allocator: every allocation of the execute
};

class kernel {
public:
    virtual ~kernel() = default;
    /// Implementation name for verbose output, e.g. "onednn:jit:uni" or "native:expr:scalar".
    virtual std::string info() const = 0;
    /// Computes the whole output. `inputs` holds one pointer per partition
    /// input port. Splits the work on the caller's TBB arena; thread-safe.
    virtual void execute(const void *const *inputs, void *output, const exec_context &ctx) const = 0;
};

} // namespace fusebox::detail
