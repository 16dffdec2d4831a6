// In-place ports: every reported (input, output) pair gives exact results with
// one buffer for both; aliasing that was not reported is still computed
// exactly (the runtime reads such inputs from a copy).
#include <gtest/gtest.h>

#include "graph_runner.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

struct inplace_case {
    const char *name;
    std::vector<std::pair<dt, dims>> inputs; // chained: ((x0 + x1) + x2) ...
    std::vector<size_t> expected_inplace;    // input ids reported in place with the output
};

const inplace_case kCases[] = {
    {"f32_single", {{dt::f32, {64, 4096}}, {dt::f32, {64, 4096}}}, {0, 1}},
    {"f32_bias", {{dt::f32, {64, 4096}}, {dt::f32, {4096}}}, {0}},
    {"f32_chain_onednn",
     {{dt::f32, {64, 4096}}, {dt::f32, {64, 4096}}, {dt::f32, {4096}}, {dt::f32, {64, 4096}}},
     {0, 1, 3}},
    {"s64_chain_native", {{dt::s64, {64, 1000}}, {dt::s64, {1000}}, {dt::s64, {64, 1000}}}, {0, 2}},
    {"small_native", {{dt::f32, {3, 5}}, {dt::f32, {3, 5}}}, {0, 1}},
    {"f32_plus_bf16", {{dt::f32, {64, 1000}}, {dt::bf16, {64, 1000}}}, {0}},
    {"f32_plus_f16", {{dt::f32, {64, 1000}}, {dt::f16, {64, 1000}}}, {0}},
    {"bf16_plus_f32", {{dt::bf16, {64, 1000}}, {dt::f32, {64, 1000}}}, {1}}, // never src_0
    {"bf16_chain", {{dt::bf16, {64, 1000}}, {dt::bf16, {64, 1000}}, {dt::bf16, {1, 1000}}}, {0, 1}},
    {"f32_broadcast_src0", {{dt::f32, {4096}}, {dt::f32, {64, 4096}}}, {1}},
};

class inplace_test : public ::testing::TestWithParam<inplace_case> {};

graph make_chain(const inplace_case &c, size_t &out_id) {
    graph g(engine::kind::cpu);
    size_t prev = 0;
    for (size_t i = 1; i < c.inputs.size(); ++i) {
        const size_t out = 100 + i;
        const lt carried =
            i == 1 ? lt(0, c.inputs[0].first, c.inputs[0].second) : lt(prev, dt::undef, lt::layout_type::any);
        g.add_op(op(i, op::kind::Add, {carried, lt(i, c.inputs[i].first, c.inputs[i].second)},
                    {lt(out, dt::undef, lt::layout_type::any)}));
        prev = out;
    }
    g.finalize();
    out_id = prev;
    return g;
}

TEST_P(inplace_test, reported_pairs_are_exact_when_sharing_a_buffer) {
    const inplace_case &c = GetParam();
    size_t out_id;
    graph g = make_chain(c, out_id);
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u);
    const engine eng(engine::kind::cpu);
    std::vector<lt> ins;
    for (size_t i = 0; i < c.inputs.size(); ++i) ins.push_back(lt(i, c.inputs[i].first, c.inputs[i].second));
    compiled_partition cp = parts[0].compile(ins, {lt(out_id, dt::undef, lt::layout_type::any)}, eng);
    std::vector<size_t> reported;
    for (auto [in, out] : cp.query_inplace_ports()) {
        EXPECT_EQ(out, out_id);
        reported.push_back(in);
    }
    EXPECT_EQ(reported, c.expected_inplace);

    std::mt19937_64 rng(9);
    std::vector<buffer> data;
    for (const auto &l : ins) data.emplace_back(l), fill(data.back(), rng);
    const lt out_lt = cp.query_logical_tensor(out_id);
    buffer want(out_lt);
    stream s(eng);
    auto run = [&](std::vector<buffer> &d, void *out) {
        std::vector<tensor> t;
        for (auto &b : d) t.emplace_back(b.lt, eng, b.data());
        cp.execute(s, t, {tensor(out_lt, eng, out)});
    };
    run(data, want.data());
    for (size_t in : reported) {
        SCOPED_TRACE("in place on input " + std::to_string(in));
        std::vector<buffer> copy = data;
        run(copy, copy[in].data());
        buffer got(out_lt);
        got.bytes = copy[in].bytes;
        EXPECT_TRUE(same_elements(want, got));
    }
}

INSTANTIATE_TEST_SUITE_P(cases, inplace_test, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

class aliasing_test : public ::testing::TestWithParam<const char *> {};

TEST_P(aliasing_test, unreported_overlaps_are_computed_exactly) {
    kernel_env env(GetParam());
    const engine eng(engine::kind::cpu);
    stream s(eng);
    const dims shape{64, 4096};
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, shape), lt(1, dt::f32, dims{4096})}, {lt(2, dt::f32, shape)}));
    g.finalize();
    compiled_partition cp = g.get_partitions()[0].compile({lt(0, dt::f32, shape), lt(1, dt::f32, dims{4096})},
                                                          {lt(2, dt::f32, shape)}, eng);
    std::mt19937_64 rng(4);
    buffer a(lt(0, dt::f32, shape)), bias(lt(1, dt::f32, dims{4096})), want(lt(2, dt::f32, shape));
    fill(a, rng);
    fill(bias, rng);
    cp.execute(s, {tensor(a.lt, eng, a.data()), tensor(bias.lt, eng, bias.data())},
               {tensor(want.lt, eng, want.data())});

    {
        SCOPED_TRACE("broadcast input shares the start of the output buffer");
        buffer out = a; // output buffer whose first row holds the bias
        std::memcpy(out.data(), bias.data(), 4096 * 4);
        buffer a2 = a;
        cp.execute(s, {tensor(a2.lt, eng, a2.data()), tensor(bias.lt, eng, out.data())},
                   {tensor(want.lt, eng, out.data())});
        EXPECT_TRUE(same_elements(want, out));
    }
    {
        SCOPED_TRACE("input partially overlaps the output, shifted by 100 elements");
        std::vector<float> arena(64 * 4096 + 100);
        std::memcpy(arena.data() + 100, a.data(), 64 * 4096 * 4);
        cp.execute(s, {tensor(a.lt, eng, arena.data() + 100), tensor(bias.lt, eng, bias.data())},
                   {tensor(want.lt, eng, arena.data())});
        buffer got(want.lt);
        std::memcpy(got.data(), arena.data(), 64 * 4096 * 4);
        EXPECT_TRUE(same_elements(want, got));
    }
}

INSTANTIATE_TEST_SUITE_P(kernels, aliasing_test, ::testing::Values("onednn", "native"));

} // namespace
