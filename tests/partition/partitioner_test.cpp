// Partition counts, ops and ports for the two policies.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

lt f32(size_t id) { return lt(id, dt::f32, {4, 4}); }

// ((t0 + t1) + t2) + t3 -> t6, optionally marking t4 with End.
graph chain(bool end_on_intermediate) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {f32(0), f32(1)}, {f32(4)}));
    g.add_op(op(1, op::kind::Add, {f32(4), f32(2)}, {f32(5)}));
    g.add_op(op(2, op::kind::Add, {f32(3), f32(5)}, {f32(6)})); // the chain on the second input
    g.add_op(op(3, op::kind::End, {f32(6)}, {}));
    if (end_on_intermediate) g.add_op(op(4, op::kind::End, {f32(4)}, {}));
    g.finalize();
    return g;
}

// The partitions `get_partitions` gives for a graph of `ops`.
std::vector<partition> fused(const std::vector<op> &ops) {
    graph g(engine::kind::cpu);
    for (const op &o : ops) g.add_op(o);
    g.finalize();
    return g.get_partitions();
}

// The op ids of each partition, in order.
std::vector<std::vector<size_t>> ops_of(const std::vector<partition> &parts) {
    std::vector<std::vector<size_t>> r;
    for (const partition &p : parts) r.push_back(p.get_ops());
    return r;
}

std::vector<size_t> ids(const std::vector<lt> &v) {
    std::vector<size_t> r;
    for (const auto &x : v) r.push_back(x.get_id());
    return r;
}

TEST(partitioner, debug_policy_gives_one_op_per_partition_in_order) {
    graph g = chain(false);
    auto parts = g.get_partitions(partition::policy::debug);
    ASSERT_EQ(parts.size(), 4u); // the three Adds, then the End (unsupported, as in oneDNN)
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(parts[i].get_id(), i);
        EXPECT_EQ(parts[i].get_ops(), std::vector<size_t>{i});
        EXPECT_EQ(parts[i].is_supported(), i < 3);
    }
    EXPECT_EQ(ids(parts[1].get_input_ports()), (std::vector<size_t>{4, 2}));
    EXPECT_EQ(ids(parts[2].get_output_ports()), (std::vector<size_t>{6}));
}

TEST(partitioner, fusion_policy_fuses_a_chain_into_one_partition) {
    graph g = chain(false);
    auto parts = g.get_partitions(partition::policy::fusion);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(parts[1].get_ops(), (std::vector<size_t>{3})); // the End
    EXPECT_EQ(ids(parts[0].get_input_ports()), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{6}));
}

TEST(partitioner, end_marked_intermediate_becomes_a_second_output) {
    graph g = chain(true);
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(ids(parts[0].get_input_ports()), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{6, 4})); // the last op's first
    EXPECT_EQ(parts[1].get_ops(), (std::vector<size_t>{3}));                  // the Ends, each alone
    EXPECT_EQ(parts[2].get_ops(), (std::vector<size_t>{4}));
    EXPECT_FALSE(parts[1].is_supported() || parts[2].is_supported());
}

TEST(partitioner, a_tensor_read_twice_inside_is_fused_into_one_pass) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {f32(0), f32(1)}, {f32(2)}));
    g.add_op(op(1, op::kind::Add, {f32(2), f32(3)}, {f32(4)}));
    g.add_op(op(2, op::kind::Equal, {f32(2), f32(4)}, {lt(5, dt::boolean, {4, 4})}));
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u); // t2 feeds both later ops, both in the partition
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(ids(parts[0].get_input_ports()), (std::vector<size_t>{0, 1, 3}));
    EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{5}));
}

TEST(partitioner, a_tensor_also_read_outside_is_one_more_output) {
    for (const auto outside : {op::kind::End, op::kind::Wildcard}) {
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {f32(0), f32(1)}, {f32(2)}));
        g.add_op(op(1, op::kind::Add, {f32(2), f32(3)}, {f32(4)}));
        g.add_op(op(2, op::kind::Multiply, {f32(2), f32(4)}, {f32(5)}));
        g.add_op(op(3, outside, {f32(2)}, outside == op::kind::End ? std::vector<lt>{} : std::vector<lt>{f32(6)}));
        g.finalize();
        auto parts = g.get_partitions();
        ASSERT_EQ(parts.size(), 2u);
        EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{0, 1, 2}));
        EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{5, 2}));
        EXPECT_EQ(parts[1].get_ops(), (std::vector<size_t>{3}));
    }
}

TEST(partitioner, outputs_of_another_shape_stay_materialized) {
    // t2 [4] is read outside and by an Add whose output is [3, 4]: one pass
    // writes outputs of one shape, so t2's Add stays alone.
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4})}));
    g.add_op(op(1, op::kind::Add, {lt(2, dt::f32, {4}), lt(3, dt::f32, {3, 4})}, {lt(4, dt::f32, {3, 4})}));
    g.add_op(op(2, op::kind::End, {lt(2, dt::f32, {4})}, {}));
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{0}));
    EXPECT_EQ(parts[1].get_ops(), (std::vector<size_t>{1}));
    EXPECT_EQ(parts[2].get_ops(), (std::vector<size_t>{2}));
}

TEST(partitioner, unknown_dims_give_a_second_output_only_where_shapes_provably_agree) {
    // t2 = t0 + t1 of shape [?, 4] leaves the graph. ReLU(t2), and t2 * s with s
    // one element, have t2's shape whatever ? is: one partition. t2 + t5 with
    // t5 [?, 4] may be larger (t2's ? could be 1): t2 stays materialized.
    const lt::dims q{-1, 4};
    for (int reader = 0; reader < 3; ++reader) {
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, q), lt(1, dt::f32, q)}, {lt(2, dt::f32, q)}));
        const lt second = reader == 0   ? lt(5, dt::f32, lt::dims{})
                          : reader == 1 ? lt(5, dt::f32, lt::dims{1, 1})
                                        : lt(5, dt::f32, q);
        g.add_op(op(1, op::kind::Multiply, {lt(2, dt::f32, q), second}, {lt(3, dt::f32, q)}));
        g.add_op(op(2, op::kind::End, {lt(2, dt::f32, q)}, {}));
        g.finalize();
        EXPECT_EQ(g.get_partitions().size(), reader < 2 ? 2u : 3u) << "reader " << reader;
    }
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, q), lt(1, dt::f32, q)}, {lt(2, dt::f32, q)}));
    g.add_op(op(1, op::kind::ReLU, {lt(2, dt::f32, q)}, {lt(3, dt::f32, q)}));
    g.add_op(op(2, op::kind::End, {lt(2, dt::f32, q)}, {}));
    g.finalize();
    EXPECT_EQ(g.get_partitions().size(), 2u);
}

TEST(partitioner, several_sinks_are_one_partition) {
    // t2 = t0 + t1 read by a ReLU and a Multiply whose outputs both leave
    // the graph: one pass writes both, the last op's first.
    const auto parts =
        fused({op(0, op::kind::Add, {f32(0), f32(1)}, {f32(2)}), op(1, op::kind::ReLU, {f32(2)}, {f32(3)}),
               op(2, op::kind::Multiply, {f32(2), f32(4)}, {f32(5)})});
    ASSERT_EQ(ops_of(parts), (std::vector<std::vector<size_t>>{{0, 1, 2}}));
    EXPECT_EQ(ids(parts[0].get_input_ports()), (std::vector<size_t>{0, 1, 4}));
    EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{5, 3}));
}

TEST(partitioner, fusion_never_closes_a_cycle_through_the_framework) {
    // t2 = t0 + t1; t6 = Wildcard(t2); t7 = t2 + t6: the two Adds in one
    // partition would need t6 before they run and produce t2 for it.
    const auto parts =
        fused({op(0, op::kind::Add, {f32(0), f32(1)}, {f32(2)}), op(1, op::kind::Wildcard, {f32(2)}, {f32(6)}),
               op(2, op::kind::Add, {f32(2), f32(6)}, {f32(7)})});
    EXPECT_EQ(ops_of(parts), (std::vector<std::vector<size_t>>{{0}, {1}, {2}}));
}

TEST(partitioner, an_end_added_before_the_last_op_comes_after_its_partition) {
    const auto parts = fused({op(0, op::kind::Add, {f32(0), f32(1)}, {f32(2)}), op(1, op::kind::End, {f32(2)}, {}),
                              op(2, op::kind::ReLU, {f32(2)}, {f32(4)})});
    ASSERT_EQ(ops_of(parts), (std::vector<std::vector<size_t>>{{0, 2}, {1}}));
    EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{4, 2}));
}

TEST(partitioner, a_framework_op_before_the_last_op_keeps_the_tensor_materialized) {
    // The Wildcard reads t2 and comes before the ReLU: with t2's Add in the
    // ReLU's partition it would run between the partition's ops.
    const auto parts =
        fused({op(0, op::kind::Add, {f32(0), f32(1)}, {f32(2)}), op(1, op::kind::Wildcard, {f32(2)}, {f32(3)}),
               op(2, op::kind::ReLU, {f32(2)}, {f32(4)})});
    EXPECT_EQ(ops_of(parts), (std::vector<std::vector<size_t>>{{0}, {1}, {2}}));
}

TEST(partitioner, an_op_reading_one_tensor_twice_keeps_its_partition_whole) {
    // t3 = (t0 + t1) + (t0 + t1) is one partition whose output t3 the
    // Wildcard also reads; t5 = t3 * t2 and t7 = t5 + Wildcard(t3) are
    // another. Joining the two would need the Wildcard's t6 before t3 exists.
    const auto parts =
        fused({op(0, op::kind::Add, {f32(0), f32(1)}, {f32(4)}), op(1, op::kind::Add, {f32(4), f32(4)}, {f32(3)}),
               op(2, op::kind::Multiply, {f32(3), f32(2)}, {f32(5)}), op(3, op::kind::Wildcard, {f32(3)}, {f32(6)}),
               op(4, op::kind::Add, {f32(5), f32(6)}, {f32(7)})});
    EXPECT_EQ(ops_of(parts), (std::vector<std::vector<size_t>>{{0, 1}, {3}, {2, 4}}));
}

TEST(partitioner, a_tensor_read_twice_is_not_fused_under_a_legacy_axis) {
    // Add-6 with broadcast=1, axis=0 places its second input by attribute: t2
    // would line up differently for its two readers, so it is materialized.
    const auto legacy_axis0 = [](op o) {
        return o.set_attr(op::attr::broadcast, int64_t{1}).set_attr(op::attr::axis, int64_t{0});
    };
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4})}));
    g.add_op(
        legacy_axis0(op(1, op::kind::Add, {lt(3, dt::f32, {4, 5}), lt(2, dt::f32, {4})}, {lt(4, dt::f32, {4, 5})})));
    g.add_op(op(2, op::kind::Multiply, {lt(2, dt::f32, {4}), lt(5, dt::f32, {4})}, {lt(6, dt::f32, {4})}));
    g.add_op(
        legacy_axis0(op(3, op::kind::Add, {lt(4, dt::f32, {4, 5}), lt(6, dt::f32, {4})}, {lt(7, dt::f32, {4, 5})})));
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{0}));
    EXPECT_EQ(parts[1].get_ops(), (std::vector<size_t>{1, 2, 3}));
}

TEST(partitioner, tree_of_two_adds_and_an_equal_is_one_partition) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {f32(0), f32(1)}, {f32(4)}));
    g.add_op(op(1, op::kind::Add, {f32(2), f32(3)}, {f32(5)}));
    g.add_op(op(2, op::kind::Equal, {f32(4), f32(5)}, {lt(6, dt::boolean, {4, 4})}));
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].get_ops_num(), 3u);
    EXPECT_EQ(ids(parts[0].get_input_ports()), (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(partitioner, ops_added_out_of_order_come_back_in_execution_order) {
    graph g(engine::kind::cpu);
    g.add_op(op(7, op::kind::Add, {f32(4), f32(2)}, {f32(5)}));
    g.add_op(op(3, op::kind::Add, {f32(0), f32(1)}, {f32(4)}));
    g.add_op(op(9, op::kind::End, {f32(4)}, {}));
    g.finalize();
    auto parts = g.get_partitions(partition::policy::debug);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].get_ops(), std::vector<size_t>{3});
    EXPECT_EQ(parts[1].get_ops(), std::vector<size_t>{7});
    EXPECT_EQ(parts[2].get_ops(), std::vector<size_t>{9});
    parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t>{3, 7}));
    EXPECT_EQ(ids(parts[0].get_output_ports()), (std::vector<size_t>{5, 4}));
    EXPECT_EQ(parts[1].get_ops(), std::vector<size_t>{9});
}

} // namespace

// Random graphs of Adds, Multiplies, ReLUs, BiasAdds (an intermediate bias is
// read by attribute, not right-aligned), Adds without broadcasting, framework
// ops and Ends over a few shapes, symbolic batch dims in a quarter of them:
// every op lands in one partition, the partitions come in an order the
// framework can run (each after those producing its inputs, none reading its
// own), and a partition's outputs all have the shape of its first.
TEST(partitioner, random_graphs_partition_into_a_schedule) {
    using dims = std::vector<int64_t>;
    auto broadcast = [](dims a, dims b) {
        while (a.size() < b.size()) a.insert(a.begin(), 1);
        while (b.size() < a.size()) b.insert(b.begin(), 1);
        for (size_t i = 0; i < a.size(); ++i) a[i] = a[i] == 1 ? b[i] : a[i];
        return a;
    };
    size_t fused_parts = 0, several_outputs = 0;
    for (uint32_t seed = 1; seed <= 1500; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
        const dims full{pick(4) == 0 ? -1 : 2, 4, 8};
        std::vector<dims> shape{full, full, full, {1, 1, 8}, {8}, {4, 1}}; // per tensor id
        std::map<size_t, size_t> producer;                                 // tensor id -> op id
        std::vector<op> ops;
        auto tensor = [&](size_t id) { return lt(id, dt::f32, shape[id]); };
        auto from = [&] { return shape.size() - 1 - pick(std::min<size_t>(shape.size(), 7)); };
        auto result = [&](dims d) {
            producer[shape.size()] = ops.size();
            shape.push_back(std::move(d));
            return lt(shape.size() - 1, dt::f32, -1, lt::layout_type::undef);
        };
        for (size_t n = 3 + pick(18); ops.size() < n;) {
            const size_t r = pick(12), a = from(), b = from();
            if (r < 5) {
                const dims d = broadcast(shape[a], shape[b]);
                ops.emplace_back(ops.size(), r < 3 ? op::kind::Add : op::kind::Multiply,
                                 std::vector<lt>{tensor(a), tensor(b)}, std::vector<lt>{result(d)});
            } else if (r < 7) {
                ops.emplace_back(ops.size(), op::kind::ReLU, std::vector<lt>{tensor(a)},
                                 std::vector<lt>{result(shape[a])});
            } else if (r < 8) {
                producer[shape.size()] = ops.size();
                shape.push_back(full);
                ops.emplace_back(ops.size(), op::kind::Wildcard, std::vector<lt>{tensor(a)},
                                 std::vector<lt>{tensor(shape.size() - 1)});
            } else if (r < 10) {
                ops.emplace_back(ops.size(), op::kind::End, std::vector<lt>{tensor(a)}, std::vector<lt>{});
            } else if (r < 11 && shape[a] == shape[b]) {
                op x(ops.size(), op::kind::Add, {tensor(a), tensor(b)}, {result(shape[a])});
                ops.push_back(x.set_attr(op::attr::auto_broadcast, std::string("none")));
            } else if (r == 11 && shape[a] == full) {
                size_t bias = 4;
                for (size_t t = 0; t < shape.size(); ++t)
                    if (shape[t] == dims{8} && pick(2)) bias = t;
                op x(ops.size(), op::kind::BiasAdd, {tensor(a), tensor(bias)}, {result(full)});
                ops.push_back(x.set_attr(op::attr::data_format, std::string("NXC")));
            }
        }
        graph g(engine::kind::cpu);
        for (const op &o : ops) g.add_op(o);
        g.finalize();
        std::vector<partition> parts;
        ASSERT_NO_THROW(parts = g.get_partitions());
        std::map<size_t, size_t> part_of; // op id -> partition index
        for (size_t k = 0; k < parts.size(); ++k)
            for (size_t o : parts[k].get_ops()) ASSERT_TRUE(part_of.emplace(o, k).second) << "op " << o << " twice";
        ASSERT_EQ(part_of.size(), ops.size());
        for (size_t k = 0; k < parts.size(); ++k) {
            for (const lt &in : parts[k].get_input_ports()) {
                auto p = producer.find(in.get_id());
                if (p != producer.end()) {
                    EXPECT_LT(part_of.at(p->second), k) << "partition " << k << " reads tensor " << in.get_id();
                }
            }
            const auto outs = parts[k].get_output_ports();
            for (const lt &out : outs) EXPECT_EQ(shape[out.get_id()], shape[outs[0].get_id()]);
            fused_parts += parts[k].get_ops_num() > 1;
            several_outputs += outs.size() > 1;
        }
    }
    // (The graphs do fuse, also with several outputs: not a vacuous check.)
    EXPECT_GT(fused_parts, 1000u);
    EXPECT_GT(several_outputs, 100u);
}
