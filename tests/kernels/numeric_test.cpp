// Numeric results of single Add/Equal partitions against the scalar
// reference, for every supported type, broadcast pattern and layout, on the
// native kernel and on whatever the automatic choice picks.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using namespace fbt;

struct type_row {
    op::kind kind;
    dt a, b;
};

struct pattern {
    const char *name;
    dims a, b;
};

const pattern kPatterns[] = {
    {"same", {4, 5, 6}, {4, 5, 6}},
    {"scalar", {2, 3, 40}, {}},
    {"one_element", {3, 7}, {1, 1}},
    {"per_channel", {2, 16, 5, 7}, {1, 16, 1, 1}},
    {"per_row", {37, 64}, {37, 1}},
    {"per_column", {37, 64}, {64}},
    {"leading_dim", {8, 3, 33}, {8, 1, 1}},
    {"bidirectional", {64, 1}, {1, 64}},
    {"different_ranks", {3, 1, 5, 7}, {5, 1}},
    {"src0_broadcast", {1, 16, 1, 1}, {2, 16, 5, 7}},
    {"zero_size", {0, 5}, {1, 5}},
    {"rank0", {}, {}},
    {"large_per_channel", {4, 64, 32, 32}, {1, 64, 1, 1}},
    {"large_same", {3, 100003}, {3, 100003}},
    {"large_bidirectional", {512, 1}, {1, 512}},
};

std::string row_name(const type_row &r) {
    return std::string(op_kind_name(r.kind)) + "_" + data_type_name(r.a) + "_" + data_type_name(r.b);
}

class numeric_test : public ::testing::TestWithParam<std::tuple<type_row, const char *>> {};

void check(const type_row &r, const logical_tensor &la, const logical_tensor &lb, std::mt19937_64 &rng) {
    buffer a(la), b(lb);
    fill(a, rng);
    fill(b, rng);
    buffer got = run_single(binary_op(r.kind, la, lb), a, b);
    buffer want(got.lt);
    ref_binary(r.kind, a, b, want);
    EXPECT_TRUE(same_elements(want, got));
}

TEST_P(numeric_test, matches_reference_for_every_broadcast_pattern_and_layout) {
    const auto [r, mode] = GetParam();
    kernel_env env(mode);
    std::mt19937_64 rng(42);
    for (const pattern &p : kPatterns) {
        SCOPED_TRACE(p.name);
        check(r, logical_tensor(0, r.a, p.a), logical_tensor(1, r.b, p.b), rng);
    }
    {
        SCOPED_TRACE("transposed and padded inputs");
        check(r, logical_tensor(0, r.a, {33, 17}, {1, 33}), logical_tensor(1, r.b, {33, 17}, {20, 1}), rng);
    }
    {
        SCOPED_TRACE("strided input with broadcast");
        check(r, logical_tensor(0, r.a, {6, 9, 40}, {800, 80, 2}), logical_tensor(1, r.b, {9, 1}, {3, 1}), rng);
    }
}

TEST_P(numeric_test, writes_strided_outputs) {
    const auto [r, mode] = GetParam();
    kernel_env env(mode);
    std::mt19937_64 rng(7);
    buffer a(logical_tensor(0, r.a, {20, 30})), b(logical_tensor(1, r.b, {30}));
    fill(a, rng);
    fill(b, rng);
    const engine eng(engine::kind::cpu);
    graph g(engine::kind::cpu);
    g.add_op(binary_op(r.kind, a.lt, b.lt));
    g.finalize();
    const dt out_dt = g.get_partitions()[0].get_output_ports()[0].get_data_type();
    logical_tensor out_lt(2, out_dt, {20, 30}, {1, 24}); // column-major with padding
    auto cp = g.get_partitions()[0].compile({a.lt, b.lt}, {out_lt}, eng);
    buffer got(out_lt), want(out_lt);
    stream s(eng);
    cp.execute(s, {tensor(a.lt, eng, a.data()), tensor(b.lt, eng, b.data())}, {tensor(out_lt, eng, got.data())});
    ref_binary(r.kind, a, b, want);
    EXPECT_TRUE(same_elements(want, got));
}

std::vector<type_row> all_rows() {
    std::vector<type_row> rows;
    for (dt t :
         {dt::f32, dt::bf16, dt::f16, dt::f64, dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64, dt::u64})
        rows.push_back({op::kind::Add, t, t});
    for (auto [x, y] : {std::pair{dt::f32, dt::bf16}, {dt::bf16, dt::f32}, {dt::f32, dt::f16}, {dt::f16, dt::f32}})
        rows.push_back({op::kind::Add, x, y});
    for (dt t : {dt::f32, dt::bf16, dt::f16, dt::f64, dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64,
                 dt::u64, dt::boolean, dt::string})
        rows.push_back({op::kind::Equal, t, t});
    return rows;
}

INSTANTIATE_TEST_SUITE_P(types, numeric_test,
                         ::testing::Combine(::testing::ValuesIn(all_rows()), ::testing::Values("native", "auto")),
                         [](const auto &info) {
                             return row_name(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
                         });

} // namespace
