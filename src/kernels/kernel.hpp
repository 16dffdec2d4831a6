// What the compiler hands to the runtime: one kernel per compiled partition.
#pragma once

#include <string>

#include "interface/handles.hpp"

namespace fusebox::detail {

/// What an execute provides besides the tensors.
struct exec_context {
    const allocator_impl &alloc; // the stream's engine allocator: every allocation of the execute
};

/// What a kernel decided at compile time, for get_impl_info and the verbose log.
struct kernel_facts {
    std::string impl;       // e.g. "onednn:jit:uni" or "native:expr:AVX3"
    int threads = 1;        // threads the caller's arena offered at compile
    int chunks = 1;         // pieces the work is split into; 1 runs inline on the caller
    bool streaming = false; // the output is written with non-temporal stores
};

class kernel {
public:
    explicit kernel(kernel_facts facts) : facts_(std::move(facts)) {}
    virtual ~kernel() = default;
    const kernel_facts &facts() const { return facts_; }
    /// Computes the whole output. `inputs` holds one pointer per partition
    /// input port, `outputs` one per output port (the last node's first,
    /// then fused_expr::sides). Splits the work on the caller's TBB arena;
    /// thread-safe.
    virtual void execute(const void *const *inputs, void *const *outputs, const exec_context &ctx) const = 0;

protected:
    kernel_facts facts_;
};

} // namespace fusebox::detail
