// How fused partitions are lowered: f32 Add chains become one oneDNN binary
// primitive with post-ops; everything else one native pass. Either way the
// result equals running the ops one partition at a time.
#include <gtest/gtest.h>

#include "graph_runner.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

struct chain_case {
    const char *name;
    dt type;
    std::vector<dims> shapes; // inputs of ((x0 + x1) + x2) + x3 ...
    const char *impl_prefix;
};

const chain_case kChains[] = {
    {"f32_same_shapes", dt::f32, {{64, 4096}, {64, 4096}, {64, 4096}, {64, 4096}}, "onednn:jit"},
    {"f32_bias_and_scalar", dt::f32, {{64, 4096}, {4096}, {}, {64, 4096}}, "onednn:jit"},
    {"f32_seven_ops",
     dt::f32,
     {{32, 2048}, {32, 2048}, {2048}, {32, 2048}, {}, {32, 2048}, {32, 2048}, {1, 2048}},
     "onednn:jit"},
    // oneDNN 2.6 has no JIT post-op for a per-row broadcast: one native pass instead.
    {"f32_per_row_post_op", dt::f32, {{64, 4096}, {4096}, {64, 1}, {}}, "native:"},
    {"f32_growing_shape", dt::f32, {{1, 4096}, {1, 4096}, {64, 4096}, {64, 4096}}, "native:"},
    {"bf16_chain", dt::bf16, {{64, 4096}, {64, 4096}, {4096}, {64, 4096}}, "native:"},
    {"s32_chain", dt::s32, {{64, 4096}, {64, 1}, {4096}, {64, 4096}}, "native:"},
};

class fused_chain_test : public ::testing::TestWithParam<chain_case> {};

TEST_P(fused_chain_test, compiles_to_one_partition_equal_to_debug) {
    const chain_case &c = GetParam();
    kernel_env env(nullptr);
    graph g(engine::kind::cpu);
    std::map<size_t, std::shared_ptr<buffer>> fused, debug;
    std::mt19937_64 rng(11);
    size_t next = 100, prev = 0;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
        auto b = std::make_shared<buffer>(lt(i, c.type, c.shapes[i]));
        fill(*b, rng);
        fused[i] = debug[i] = b;
        if (i == 0) continue;
        const size_t in0 = i == 1 ? 0 : prev, out = next++;
        // Alternate which side carries the chain.
        std::vector<lt> ins{lt(in0, c.type, lt::layout_type::any), b->lt};
        if (i % 2 == 0) std::swap(ins[0], ins[1]);
        g.add_op(op(i, op::kind::Add, ins, {lt(out, c.type, lt::layout_type::any)}));
        prev = out;
    }
    g.finalize();
    ASSERT_EQ(g.get_partitions().size(), 1u);
    std::vector<std::string> impls;
    run_graph(g, partition::policy::fusion, fused, &impls);
    run_graph(g, partition::policy::debug, debug);
    EXPECT_EQ(impls.at(0).rfind(c.impl_prefix, 0), 0u) << impls[0];
    if (std::string(c.impl_prefix) == "onednn:jit") {
        EXPECT_NE(impls[0].find("post-ops"), std::string::npos) << impls[0];
    }
    EXPECT_TRUE(same_elements(*debug.at(prev), *fused.at(prev)));
}

INSTANTIATE_TEST_SUITE_P(chains, fused_chain_test, ::testing::ValuesIn(kChains),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(fusion_lowering, equal_of_two_sums_is_one_native_pass) {
    graph g(engine::kind::cpu);
    const dims s{256, 1024};
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, s), lt(1, dt::f32, s)}, {lt(4, dt::f32, s)}));
    g.add_op(op(1, op::kind::Add, {lt(2, dt::f32, s), lt(3, dt::f32, dims{1024})}, {lt(5, dt::f32, s)}));
    g.add_op(op(2, op::kind::Equal, {lt(4, dt::f32, s), lt(5, dt::f32, s)}, {lt(6, dt::boolean, s)}));
    g.finalize();
    std::map<size_t, std::shared_ptr<buffer>> fused, debug;
    std::mt19937_64 rng(5);
    for (size_t i = 0; i < 4; ++i) {
        auto b = std::make_shared<buffer>(lt(i, dt::f32, i == 3 ? dims{1024} : s));
        fill(*b, rng);
        fused[i] = debug[i] = b;
    }
    std::vector<std::string> impls;
    run_graph(g, partition::policy::fusion, fused, &impls);
    run_graph(g, partition::policy::debug, debug);
    ASSERT_EQ(impls.size(), 1u);
    EXPECT_EQ(impls[0].rfind("native:", 0), 0u);
    EXPECT_TRUE(same_elements(*debug.at(6), *fused.at(6)));
}

} // namespace

namespace {

using namespace fbt;
using lt = logical_tensor;

// A legacy broadcast=1/axis op whose B is an intermediate of the same
// partition: the intermediate is placed at `axis` in the output's space.
TEST(fusion_lowering, legacy_axis_on_an_intermediate_equals_debug) {
    for (dt type : {dt::f32, dt::s32, dt::f16}) {
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {lt(0, type, {3, 4}), lt(1, type, {3, 4})}, {lt(3, type, lt::layout_type::any)}));
        op legacy(1, op::kind::Add, {lt(2, type, {2, 3, 4, 5}), lt(3, type, lt::layout_type::any)},
                  {lt(4, type, lt::layout_type::any)});
        legacy.set_attr(op::attr::broadcast, int64_t{1}).set_attr(op::attr::axis, int64_t{1});
        g.add_op(legacy);
        g.finalize();
        ASSERT_EQ(g.get_partitions().size(), 1u);
        std::map<size_t, std::shared_ptr<buffer>> fused, debug;
        std::mt19937_64 rng(8);
        for (auto [id, shape] : {std::pair<size_t, dims>{0, {3, 4}}, {1, {3, 4}}, {2, {2, 3, 4, 5}}}) {
            auto b = std::make_shared<buffer>(lt(id, type, shape));
            fill(*b, rng);
            fused[id] = debug[id] = b;
        }
        run_graph(g, partition::policy::fusion, fused);
        run_graph(g, partition::policy::debug, debug);
        EXPECT_EQ(fused.at(4)->lt.get_dims(), (dims{2, 3, 4, 5}));
        EXPECT_TRUE(same_elements(*debug.at(4), *fused.at(4))) << data_type_name(type);
    }
}

// One tensor feeding both inputs: one input port, read twice.
TEST(fusion_lowering, same_tensor_on_both_inputs) {
    for (op::kind kind : {op::kind::Add, op::kind::Equal}) {
        buffer x(lt(0, dt::f32, {64, 1024}));
        std::mt19937_64 rng(2);
        fill(x, rng);
        graph g(engine::kind::cpu);
        g.add_op(op(0, kind, {x.lt, x.lt}, {lt(2, dt::undef, lt::layout_type::any)}));
        g.finalize();
        auto p = g.get_partitions()[0];
        ASSERT_EQ(p.get_input_ports().size(), 1u);
        const engine eng(engine::kind::cpu);
        auto cp = p.compile({x.lt}, {lt(2, dt::undef, lt::layout_type::any)}, eng);
        buffer got(cp.query_logical_tensor(2)), want(cp.query_logical_tensor(2));
        stream s(eng);
        cp.execute(s, {tensor(x.lt, eng, x.data())}, {tensor(got.lt, eng, got.data())});
        ref_binary(kind, x, x, want);
        EXPECT_TRUE(same_elements(want, got)) << op_kind_name(kind);
    }
}

} // namespace
