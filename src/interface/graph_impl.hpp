// Internal state behind fusebox::graph and fusebox::partition.
#pragma once

#include <map>
#include <string>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

struct graph_impl {
    uint64_t id = 0; // unique per process, names graph dumps
    engine::kind engine_kind = engine::kind::cpu;
    fpmath_mode math = fpmath_mode::strict;
    bool math_applies_to_int = false;
    bool deterministic = false; // kept for get_deterministic; fusebox is always deterministic
    std::vector<op> ops; // in add order until finalize, then in execution order
    bool finalized = false;
};

struct partition_impl {
    size_t id = 0;
    uint64_t graph_id = 0;
    engine::kind engine_kind = engine::kind::cpu;
    fpmath_mode math = fpmath_mode::strict;
    std::vector<op> ops; // execution order; logical tensors as inferred by finalize
    std::vector<logical_tensor> inputs;
    std::vector<logical_tensor> outputs;
    bool supported = true;
    // Ops, attributes, tensor ids/types, ports and math mode in one string:
    // equal signatures compile alike (the compile cache keys on it).
    std::string signature;
};

/// Orders the ops of `g` topologically after checking connectivity, infers
/// types and shapes through the ops fusebox runs, and marks it finalized.
void finalize_graph(graph_impl &g);

} // namespace fusebox::detail
