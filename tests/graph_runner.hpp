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
        if (!p.is_supported() && p.get_ops_num() == 1 && p.get_output_ports().empty()) continue; // an End
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

/// Builds `ops` into a graph and checks that it is one supported partition,
/// then runs it fused and op by op under the native and the automatic kernel
/// choice: both runs must equal the reference at tensor `out_id` (within
/// `max_ulp` units in the last place: f64 Pow), and each other bit for bit.
inline void expect_one_exact_partition(const std::vector<op> &ops,
                                       const std::map<size_t, std::shared_ptr<buffer>> &inputs, size_t out_id,
                                       int64_t max_ulp = 0) {
    auto build = [&] {
        graph g(engine::kind::cpu);
        for (const op &o : ops) g.add_op(o);
        g.finalize();
        return g;
    };
    graph fused = build(), debug = build();
    ASSERT_EQ(fused.get_partitions().size(), 1u);
    ASSERT_TRUE(fused.get_partitions()[0].is_supported());
    for (const char *mode : {"native", "auto"}) {
        kernel_env env(mode);
        auto fused_values = inputs, debug_values = inputs, ref_values = inputs;
        std::vector<std::string> impls;
        run_graph(fused, partition::policy::fusion, fused_values, &impls);
        run_graph(debug, partition::policy::debug, debug_values);
        reference_graph(ops, ref_values);
        EXPECT_TRUE(same_elements(*ref_values.at(out_id), *fused_values.at(out_id), max_ulp))
            << mode << " " << impls.at(0);
        EXPECT_TRUE(same_elements(*debug_values.at(out_id), *fused_values.at(out_id))) << mode;
    }
}

/// Runs `ops` fused from `inputs` and returns tensor `out_id`.
inline std::shared_ptr<buffer> run_fused(const std::vector<op> &ops, std::map<size_t, std::shared_ptr<buffer>> inputs,
                                         size_t out_id) {
    graph g(engine::kind::cpu);
    for (const op &o : ops) g.add_op(o);
    g.finalize();
    run_graph(g, partition::policy::fusion, inputs);
    return inputs.at(out_id);
}

} // namespace fbt
