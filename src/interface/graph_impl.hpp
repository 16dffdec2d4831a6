// Internal state behind fusebox::graph and fusebox::partition.
#pragma once

#include <map>
#include <string>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

struct graph_impl {
    engine::kind engine_kind;
    std::vector<op> ops; // in add order until finalize, then in execution order
    bool finalized = false;
};

struct partition_impl {
    size_t id = 0;
    engine::kind engine_kind = engine::kind::cpu;
    std::vector<op> ops; // execution order; logical tensors as inferred by finalize
    std::vector<logical_tensor> inputs;
    std::vector<logical_tensor> outputs;
    bool supported = true;
    // Ops, attributes and tensor ids/types in one string: equal signatures
    // compile alike (the compile cache keys on it).
    std::string signature;
};

} // namespace fusebox::detail
