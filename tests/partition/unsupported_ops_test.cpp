// A framework hands over its whole graph: random graphs mixing Add with ops
// fusebox does not run (oneDNN's Reorder and ReLUBackward, which this
// framework computes as a ReLU and a product, and Wildcards with several
// inputs and outputs) at random places, End on random tensors. Every op (End
// too, in an unsupported partition of its own) lands in exactly one partition, the partitions form a valid schedule,
// fusion never crosses an unsupported op, no tensor a framework op reads is fused away, and results (the test runs the
// unsupported partitions itself) equal policy::debug bit for bit.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

// The framework's kernels for the ops fusebox does not run, on f32 tensors of one shape.
void run_framework_op(const op &o, std::map<size_t, std::shared_ptr<buffer>> &values, const dims &shape) {
    std::vector<const float *> in;
    for (const auto &t : o.get_inputs()) in.push_back(static_cast<const float *>(values.at(t.get_id())->data()));
    const int64_t n = numel(shape);
    for (size_t k = 0; k < o.get_outputs().size(); ++k) {
        auto out = std::make_shared<buffer>(lt(o.get_outputs()[k].get_id(), dt::f32, shape));
        auto *y = static_cast<float *>(out->data());
        for (int64_t i = 0; i < n; ++i) {
            switch (o.get_kind()) {
            case op::kind::Reorder: y[i] = in[0][i] > 0 ? in[0][i] : 0; break;
            case op::kind::ReLUBackward: y[i] = in[0][i] * in[1][i]; break;
            default: { // Wildcard: output k is (sum of inputs) * (k + 2)
                float s = 0;
                for (const float *x : in) s += x[i];
                y[i] = s * static_cast<float>(k + 2);
            }
            }
        }
        values[out->lt.get_id()] = out;
    }
}

struct random_framework_graph {
    std::mt19937_64 rng;
    dims shape;
    std::vector<size_t> inputs; // graph input ids
    std::vector<op> ops;
    size_t next_id = 0;

    explicit random_framework_graph(uint64_t seed) : rng(seed) {
        shape = {uniform(1, 4), uniform(1, 40)};
        std::vector<size_t> available;
        for (int i = uniform(2, 4); i-- > 0;) inputs.push_back(next_id), available.push_back(next_id++);
        size_t op_id = 100;
        for (int n = uniform(3, 16); n-- > 0;) {
            auto pick = [&] {
                return available[static_cast<size_t>(uniform(0, static_cast<int>(available.size()) - 1))];
            };
            // Descriptors the framework declares: known for graph inputs, often
            // unknown (type and rank) for what its own ops produce.
            auto desc = [&](size_t id) {
                const bool is_input = std::count(inputs.begin(), inputs.end(), id) > 0;
                if (is_input || uniform(0, 2) == 0) return lt(id, dt::f32, shape);
                return lt(id, dt::undef, lt::layout_type::any);
            };
            const int r = uniform(0, 9);
            op o(op_id++, op::kind::Add, "");
            if (r < 5) {
                o = op(o.get_id(), op::kind::Add, {desc(pick()), desc(pick())}, {desc(next_id)}, "add");
                available.push_back(next_id++);
            } else if (r < 7) {
                o = op(o.get_id(), op::kind::Reorder, {desc(pick())}, {desc(next_id)}, "relu");
                available.push_back(next_id++);
            } else if (r < 8) {
                o = op(o.get_id(), op::kind::ReLUBackward, {desc(pick()), desc(pick())}, {desc(next_id)}, "mul");
                available.push_back(next_id++);
            } else {
                std::vector<lt> ins, outs;
                for (int k = uniform(1, 3); k-- > 0;) ins.push_back(desc(pick()));
                for (int k = uniform(1, 2); k-- > 0;) outs.push_back(desc(next_id)), available.push_back(next_id++);
                o = op(o.get_id(), op::kind::Wildcard, ins, outs, "custom");
            }
            ops.push_back(o);
            if (uniform(0, 4) == 0) ops.push_back(op(op_id++, op::kind::End, {desc(pick())}, {}, "end"));
        }
    }

    int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

    graph make_graph() const {
        graph g(engine::kind::cpu);
        for (const op &o : ops) g.add_op(o);
        g.finalize();
        return g;
    }
};

// Runs every partition in order; the test is the framework for unsupported ones.
void run(const std::vector<partition> &parts, std::map<size_t, std::shared_ptr<buffer>> &values,
         const std::map<size_t, const op *> &op_by_id, const dims &shape) {
    const engine eng(engine::kind::cpu);
    stream s(eng);
    for (const partition &p : parts) {
        for (const auto &port : p.get_input_ports())
            ASSERT_TRUE(values.count(port.get_id())) << "partition " << p.get_id() << " reads tensor " << port.get_id()
                                                     << " before any partition produced it";
        if (!p.is_supported()) {
            ASSERT_EQ(p.get_ops_num(), 1u);
            run_framework_op(*op_by_id.at(p.get_ops()[0]), values, shape);
            continue;
        }
        std::vector<lt> ins, outs;
        std::vector<tensor> in_t, out_t;
        for (const auto &port : p.get_input_ports()) ins.push_back(values.at(port.get_id())->lt);
        for (const auto &port : p.get_output_ports())
            outs.push_back(lt(port.get_id(), dt::undef, lt::layout_type::any));
        compiled_partition cp = p.compile(ins, outs, eng);
        for (const auto &l : ins) in_t.emplace_back(l, eng, values.at(l.get_id())->data());
        for (const auto &l : outs) {
            auto b = std::make_shared<buffer>(cp.query_logical_tensor(l.get_id()));
            out_t.emplace_back(b->lt, eng, b->data());
            values[l.get_id()] = b;
        }
        cp.execute(s, in_t, out_t);
    }
}

TEST(unsupported_ops, random_graphs_partition_schedule_and_match_debug) {
    int fused_partitions = 0, unsupported_partitions = 0, ports_typed_at_compile = 0;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        random_framework_graph rg(seed);
        std::map<size_t, const op *> op_by_id;
        std::map<size_t, std::vector<size_t>> readers; // tensor id -> ops reading it (End included)
        for (const op &o : rg.ops) {
            op_by_id[o.get_id()] = &o;
            for (const auto &t : o.get_inputs()) readers[t.get_id()].push_back(o.get_id());
        }
        graph g = rg.make_graph();
        const auto fused = g.get_partitions(partition::policy::fusion);

        // Every op in exactly one partition; unsupported ops (End too) alone.
        std::multiset<size_t> placed;
        for (const partition &p : fused) {
            for (size_t id : p.get_ops()) {
                placed.insert(id);
                const bool runs = is_kind_supported(op_by_id.at(id)->get_kind());
                EXPECT_EQ(runs, p.is_supported()) << "op " << id << " in partition " << p.get_id();
            }
            if (!p.is_supported()) {
                EXPECT_EQ(p.get_ops_num(), 1u);
            }
            fused_partitions += p.get_ops_num() > 1;
            unsupported_partitions += !p.is_supported();
            for (const auto &port : p.get_input_ports())
                ports_typed_at_compile += p.is_supported() && port.get_data_type() == dt::undef;
            // No tensor produced inside is read outside (fusion never hides what a framework op reads).
            const std::vector<size_t> members = p.get_ops();
            const std::set<size_t> inside(members.begin(), members.end());
            std::set<size_t> outputs;
            for (const auto &port : p.get_output_ports()) outputs.insert(port.get_id());
            for (size_t id : p.get_ops())
                for (const auto &t : op_by_id.at(id)->get_outputs())
                    for (size_t reader : outputs.count(t.get_id()) ? std::vector<size_t>{} : readers[t.get_id()]) {
                        EXPECT_TRUE(inside.count(reader)) << "tensor " << t.get_id() << " is internal to partition "
                                                          << p.get_id() << " but op " << reader << " reads it";
                    }
        }
        for (const op &o : rg.ops) EXPECT_EQ(placed.count(o.get_id()), 1u) << "op " << o.get_id(); // End too, alone

        // Run both policies from the same inputs; every materialized tensor agrees.
        std::map<size_t, std::shared_ptr<buffer>> with_fusion, op_by_op;
        std::mt19937_64 fill_rng(seed);
        for (size_t id : rg.inputs) {
            auto b = std::make_shared<buffer>(lt(id, dt::f32, rg.shape));
            fill(*b, fill_rng);
            with_fusion[id] = op_by_op[id] = b;
        }
        run(fused, with_fusion, op_by_id, rg.shape);
        run(g.get_partitions(partition::policy::debug), op_by_op, op_by_id, rg.shape);
        if (HasFatalFailure()) return;
        for (const auto &[id, b] : with_fusion) {
            ASSERT_TRUE(op_by_op.count(id));
            EXPECT_TRUE(same_elements(*op_by_op.at(id), *b)) << "tensor " << id;
        }
    }
    // The generator reaches every case this test is about.
    EXPECT_GT(fused_partitions, 50);
    EXPECT_GT(unsupported_partitions, 300);
    EXPECT_GT(ports_typed_at_compile, 20);
}

} // namespace
