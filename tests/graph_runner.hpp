// Runs whole graphs partition by partition, for tests that compare policies.
#pragma once

#include <map>
#include <memory>

#include "test_util.hpp"

namespace fbt {

/// Executes every partition of `g` under `policy`, reading graph inputs from
/// `tensors` (by id) and adding every produced tensor to it.
inline void run_graph(graph &g, partition::policy policy, std::map<size_t, std::shared_ptr<buffer>> &tensors,
                      std::vector<std::string> *impls = nullptr) {
    const engine eng(engine::kind::cpu);
    stream s(eng);
    for (const partition &p : g.get_partitions(policy)) {
        std::vector<logical_tensor> ins;
        std::vector<tensor> in_t;
        for (const auto &port : p.get_input_ports()) {
            const buffer &b = *tensors.at(port.get_id());
            ins.push_back(b.lt);
        }
        std::vector<logical_tensor> outs;
        for (const auto &port : p.get_output_ports())
            outs.push_back(logical_tensor(port.get_id(), port.get_data_type(), logical_tensor::layout_type::any));
        compiled_partition cp = p.compile(ins, outs, eng);
        for (const auto &lt : ins) in_t.emplace_back(lt, eng, tensors.at(lt.get_id())->data());
        std::vector<tensor> out_t;
        for (const auto &lt : outs) {
            auto b = std::make_shared<buffer>(cp.query_logical_tensor(lt.get_id()));
            out_t.emplace_back(b->lt, eng, b->data());
            tensors[lt.get_id()] = b;
        }
        cp.execute(s, in_t, out_t);
        if (impls) impls->push_back(cp.get_impl_info());
    }
}

} // namespace fbt
