// Sub-expressions over a smaller broadcast shape are computed once
// (ir/hoist.hpp): which nodes the pass picks, and that a partition with such
// stages (one, nested, read twice, under transposing layouts) gives the same
// bits as op by op and as the reference.
#include <gtest/gtest.h>

#include "graph_runner.hpp"
#include "ir/hoist.hpp"

namespace {

using namespace fbt;
using fusebox::detail::constant;
using fusebox::detail::expr_node;
using fusebox::detail::fused_expr;
using fusebox::detail::hoist_invariants;
using fusebox::detail::kMinElements;
using fusebox::detail::staged_expr;
using ew = fusebox::detail::ew_fn;
using lt = logical_tensor;
const auto any = lt::layout_type::any;

expr_node node(op::kind k, ew fn, dt in0, dt in1, dt out, int a, int b) {
    return {k, fn, 2, {in0, in1, dt::undef}, out, {a, b, 0}};
}

// BERT's mask over the canonical iteration space of scores [b, h*q, k] and
// mask [b, 1, k]: n0 = Sub(1, mask), n1 = Mul(n0, -10000), n2 = Add(scores, n1).
fused_expr bert_mask(int64_t b, int64_t hq, int64_t k, dt mask_type = dt::f32) {
    fused_expr e;
    e.inputs = {lt(0, dt::f32, dims{b, hq, k}), lt(1, mask_type, dims{b, 1, k})};
    e.output = lt(2, dt::f32, dims{b, hq, k});
    e.shape = {b, hq, k};
    e.out_strides = {hq * k, k, 1};
    e.operands = {{0, {hq * k, k, 1}}, {1, {k, 0, 1}}, {2, {0, 0, 0}}, {3, {0, 0, 0}}};
    e.constants = {constant{dt::f32, 0x3f800000}, constant{dt::f32, 0xc61c4000}};
    e.nodes = {node(op::kind::Subtract, ew::subtract, dt::f32, mask_type, dt::f32, 2, 1),
               node(op::kind::Multiply, ew::multiply, dt::f32, dt::f32, dt::f32, ~0, 3),
               node(op::kind::Add, ew::add, dt::f32, dt::f32, dt::f32, 0, ~1)};
    return e;
}

TEST(hoist, the_mask_arithmetic_runs_once_over_the_mask_shape) {
    const staged_expr s = hoist_invariants(bert_mask(4, 48, 32), int64_t{1} << 20);
    ASSERT_EQ(s.stages.size(), 1u);
    const fused_expr &stage = s.stages[0];
    EXPECT_EQ(stage.shape, (dims{128})); // [4, 1, 32] merged
    ASSERT_EQ(stage.nodes.size(), 2u);
    EXPECT_EQ(stage.nodes[1].fn, ew::multiply);
    // The main pass is the Add alone, reading the buffer (input port 2) with
    // stride 0 along the heads and queries; the constants follow the buffer.
    ASSERT_EQ(s.main.nodes.size(), 1u);
    EXPECT_EQ(s.main.inputs.size(), 3u);
    const auto &read = s.main.operands[static_cast<size_t>(s.main.nodes[0].arg[1])];
    EXPECT_EQ(read.port, 2u);
    EXPECT_EQ(read.strides, (dims{32, 0, 1}));
    // The stage's Sub reads the constant 1, now at port 3 (after the buffer).
    const auto &one = stage.operands[static_cast<size_t>(stage.nodes[0].arg[0])];
    EXPECT_EQ(one.port, 3u);
    EXPECT_EQ(stage.constants.at(one.port - 3).bits, 0x3f800000u);
}

TEST(hoist, a_buffer_next_to_short_rows_repeats_to_make_them_long) {
    // Rows of 128 keys: the buffer holds each mask row 8 times, so that the
    // main pass walks rows of 1024.
    const staged_expr s = hoist_invariants(bert_mask(4, 96, 128), int64_t{1} << 20);
    ASSERT_EQ(s.stages.size(), 1u);
    EXPECT_EQ(s.stages[0].numel(), 4 * 8 * 128);
    EXPECT_EQ(s.main.shape, (dims{4, 12, 1024}));
    ASSERT_EQ(s.main.nodes.size(), 1u);
    EXPECT_EQ(s.main.operands[static_cast<size_t>(s.main.nodes[0].arg[1])].strides, (dims{1024, 0, 1}));
}

TEST(hoist, small_expressions_and_small_repeats_stay_whole) {
    EXPECT_TRUE(hoist_invariants(bert_mask(1, 3, 1024), int64_t{1} << 20).stages.empty()); // repeated 3 times
    EXPECT_TRUE(hoist_invariants(bert_mask(2, 8, 16), int64_t{1} << 20).stages.empty());   // 256 elements
    EXPECT_LT(2 * 8 * 16, kMinElements);
}

TEST(hoist, a_buffer_beyond_the_cache_wider_than_its_inputs_is_not_written) {
    // An s8 mask would come back as f32: beyond the cache budget that moves
    // more bytes than evaluating it per element.
    fused_expr e = bert_mask(64, 8, 4096, dt::s8);
    EXPECT_TRUE(hoist_invariants(e, 1024).stages.empty());
    EXPECT_EQ(hoist_invariants(e, int64_t{1} << 20).stages.size(), 1u);
    // As wide as its f32 input: written whatever its size.
    EXPECT_EQ(hoist_invariants(bert_mask(64, 8, 4096), 1024).stages.size(), 1u);
}

template <typename T> std::shared_ptr<buffer> scalar(size_t id, dt type, T v) {
    auto b = std::make_shared<buffer>(lt(id, type, dims{}));
    std::memcpy(b->data(), &v, sizeof(T));
    return b;
}

std::shared_ptr<buffer> random_tensor(lt l, std::mt19937_64 &rng) {
    auto b = std::make_shared<buffer>(l);
    fill(*b, rng);
    return b;
}

TEST(hoist, layernorm_tail_equals_op_by_op) {
    std::mt19937_64 rng(31);
    const dims x{64, 300}, row{64, 1}, col{300};
    std::vector<op> ops = {
        op(0, op::kind::Subtract, {lt(0, dt::f32, x), lt(1, dt::f32, row)}, {lt(10, dt::undef, any)}),
        op(1, op::kind::Add, {lt(2, dt::f32, row), lt(3, dt::f32, dims{})}, {lt(11, dt::undef, any)}),
        op(2, op::kind::Sqrt, {lt(11, dt::undef, any)}, {lt(12, dt::undef, any)}),
        op(3, op::kind::Divide, {lt(10, dt::undef, any), lt(12, dt::undef, any)}, {lt(13, dt::undef, any)}),
        op(4, op::kind::Multiply, {lt(13, dt::undef, any), lt(4, dt::f32, col)}, {lt(14, dt::undef, any)}),
        op(5, op::kind::Add, {lt(14, dt::undef, any), lt(5, dt::f32, col)}, {lt(15, dt::undef, any)}),
    };
    auto var = std::make_shared<buffer>(lt(2, dt::f32, row));
    for (int64_t i = 0; i < 64; ++i) static_cast<float *>(var->data())[i] = static_cast<float>(i % 7) * 0.25f;
    expect_one_exact_partition(ops,
                               {{0, random_tensor(lt(0, dt::f32, x), rng)},
                                {1, random_tensor(lt(1, dt::f32, row), rng)},
                                {2, var},
                                {3, scalar(3, dt::f32, 1e-5f)},
                                {4, random_tensor(lt(4, dt::f32, col), rng)},
                                {5, random_tensor(lt(5, dt::f32, col), rng)}},
                               15);
}

// a = Sqrt(Abs(m0)) over [4,1,1,32] feeds b = Add(a, m1) over [4,1,32,32],
// which feeds out = Add(Mul(b, scores), a) over [4,12,32,32]: two stages,
// the second reading the first's buffer, and a read by the main pass too.
// Under `scores_strides` (dense or transposed) and for f32 and bf16 scores.
void check_nested(const dims &scores_strides, dt t) {
    std::mt19937_64 rng(32);
    const dims s{4, 12, 32, 32}, m0{4, 1, 1, 32}, m1{4, 1, 32, 32};
    const lt scores = scores_strides.empty() ? lt(3, t, s) : lt(3, t, s, scores_strides);
    std::vector<op> ops = {
        op(0, op::kind::Abs, {lt(1, dt::f32, m0)}, {lt(10, dt::undef, any)}),
        op(1, op::kind::Sqrt, {lt(10, dt::undef, any)}, {lt(11, dt::undef, any)}),
        op(2, op::kind::Add, {lt(11, dt::undef, any), lt(2, dt::f32, m1)}, {lt(12, dt::undef, any)}),
        op(3, op::kind::Multiply, {lt(12, dt::undef, any), scores}, {lt(13, dt::undef, any)}),
        op(4, op::kind::Add, {lt(13, dt::undef, any), lt(11, dt::undef, any)}, {lt(14, dt::undef, any)}),
    };
    expect_one_exact_partition(ops,
                               {{1, random_tensor(lt(1, dt::f32, m0), rng)},
                                {2, random_tensor(lt(2, dt::f32, m1), rng)},
                                {3, random_tensor(scores, rng)}},
                               14);
}

TEST(hoist, nested_stages_read_twice_equal_op_by_op) {
    for (dt t : {dt::f32, dt::bf16}) {
        SCOPED_TRACE(data_type_name(t));
        check_nested({}, t);
        check_nested({12 * 32 * 32, 1, 32 * 12, 12}, t); // scores channels-last: a transposing pass
    }
}

TEST(hoist, a_where_mask_over_short_rows_equals_op_by_op) {
    std::mt19937_64 rng(34);
    const dims scores{2, 12, 16, 128}, mask{2, 1, 1, 128};
    auto m = std::make_shared<buffer>(lt(1, dt::s64, mask));
    for (int64_t i = 0; i < 256; ++i) static_cast<int64_t *>(m->data())[i] = static_cast<int64_t>(rng() % 2);
    std::vector<op> ops = {
        op(0, op::kind::Equal, {lt(1, dt::s64, mask), lt(2, dt::s64, dims{})}, {lt(10, dt::undef, any)}),
        op(1, op::kind::Where, {lt(10, dt::undef, any), lt(3, dt::f32, dims{}), lt(0, dt::f32, scores)},
           {lt(11, dt::undef, any)}),
    };
    expect_one_exact_partition(ops,
                               {{0, random_tensor(lt(0, dt::f32, scores), rng)},
                                {1, m},
                                {2, scalar(2, dt::s64, int64_t{0})},
                                {3, scalar(3, dt::f32, -3.4028234e38f)}},
                               11);
}

TEST(hoist, a_constant_subexpression_is_one_element) {
    // Mul(Add(2, 3), x): the Add over no dims at all is computed once.
    std::mt19937_64 rng(33);
    const dims x{64, 128};
    std::vector<op> ops = {
        op(0, op::kind::Add, {lt(1, dt::f32, dims{}), lt(2, dt::f32, dims{1, 1})}, {lt(10, dt::undef, any)}),
        op(1, op::kind::Multiply, {lt(10, dt::undef, any), lt(0, dt::f32, x)}, {lt(11, dt::undef, any)}),
    };
    expect_one_exact_partition(ops,
                               {{0, random_tensor(lt(0, dt::f32, x), rng)},
                                {1, scalar(1, dt::f32, 2.5f)},
                                {2, random_tensor(lt(2, dt::f32, dims{1, 1}), rng)}},
                               11);
}

} // namespace
