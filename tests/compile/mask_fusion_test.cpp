// Masks and selections of real models fuse into one partition and give the
// same bits fused, op by op, and in the reference: BERT's additive mask
// Add(scores, Mul(Sub(1, mask), -10000)) and DistilBERT's
// Where(Equal(mask, 0), lowest, scores), with the masks broadcast.
#include <gtest/gtest.h>

#include "graph_runner.hpp"

namespace {

using namespace fbt;

using lt = logical_tensor;
const auto any = lt::layout_type::any;

// Fills `b` with `v` (a one-element constant input).
template <typename T> std::shared_ptr<buffer> constant(size_t id, dt type, T v) {
    auto b = std::make_shared<buffer>(lt(id, type, dims{}));
    std::memcpy(b->data(), &v, sizeof(T));
    return b;
}

TEST(mask_fusion, bert_additive_mask_is_one_partition_and_exact) {
    std::mt19937_64 rng(21);
    const dims scores_shape{4, 12, 32, 32}, mask_shape{4, 1, 1, 32};
    auto scores = std::make_shared<buffer>(lt(0, dt::f32, scores_shape));
    auto mask = std::make_shared<buffer>(lt(1, dt::f32, mask_shape));
    fill(*scores, rng);
    for (int64_t i = 0; i < numel(mask_shape); ++i)
        static_cast<float *>(mask->data())[i] = static_cast<float>(rng() % 2);
    std::vector<op> ops = {
        op(0, op::kind::Subtract, {lt(2, dt::f32, dims{}), lt(1, dt::f32, mask_shape)}, {lt(10, dt::undef, any)}),
        op(1, op::kind::Multiply, {lt(10, dt::undef, any), lt(3, dt::f32, dims{})}, {lt(11, dt::undef, any)}),
        op(2, op::kind::Add, {lt(0, dt::f32, scores_shape), lt(11, dt::undef, any)}, {lt(12, dt::undef, any)}),
    };
    expect_one_exact_partition(
        ops, {{0, scores}, {1, mask}, {2, constant(2, dt::f32, 1.0f)}, {3, constant(3, dt::f32, -10000.0f)}}, 12);
}

TEST(mask_fusion, distilbert_where_mask_is_one_partition_and_exact) {
    std::mt19937_64 rng(22);
    const dims scores_shape{4, 12, 32, 32}, mask_shape{4, 1, 1, 32};
    for (dt t : {dt::f32, dt::bf16, dt::f16}) {
        auto scores = std::make_shared<buffer>(lt(0, t, scores_shape));
        auto mask = std::make_shared<buffer>(lt(1, dt::s64, mask_shape));
        fill(*scores, rng);
        for (int64_t i = 0; i < numel(mask_shape); ++i) static_cast<int64_t *>(mask->data())[i] = rng() % 2;
        std::vector<op> ops = {
            op(0, op::kind::Equal, {lt(1, dt::s64, mask_shape), lt(2, dt::s64, dims{})}, {lt(10, dt::undef, any)}),
            op(1, op::kind::Where, {lt(10, dt::undef, any), lt(3, t, dims{}), lt(0, t, scores_shape)},
               {lt(11, dt::undef, any)}),
        };
        const uint16_t lowest_half = t == dt::bf16 ? 0xFF7F : 0xFBFF; // the lowest finite bf16 / f16
        auto lowest = t == dt::f32 ? constant(3, t, -3.4028234e38f) : constant(3, t, lowest_half);
        expect_one_exact_partition(ops, {{0, scores}, {1, mask}, {2, constant(2, dt::s64, int64_t{0})}, {3, lowest}},
                                   11);
    }
}

TEST(mask_fusion, logical_and_bitwise_chains_fuse) {
    std::mt19937_64 rng(23);
    const dims shape{64, 100};
    auto a = std::make_shared<buffer>(lt(0, dt::s32, shape)), b = std::make_shared<buffer>(lt(1, dt::s32, dims{100}));
    fill(*a, rng);
    fill(*b, rng);
    // Not(And(Greater(a, b), Less(BitwiseAnd(a, b), b))) over s32, booleans in between.
    std::vector<op> ops = {
        op(0, op::kind::Greater, {lt(0, dt::s32, shape), lt(1, dt::s32, dims{100})}, {lt(10, dt::undef, any)}),
        op(1, op::kind::BitwiseAnd, {lt(0, dt::s32, shape), lt(1, dt::s32, dims{100})}, {lt(11, dt::undef, any)}),
        op(2, op::kind::Less, {lt(11, dt::undef, any), lt(1, dt::s32, dims{100})}, {lt(12, dt::undef, any)}),
        op(3, op::kind::LogicalAnd, {lt(10, dt::undef, any), lt(12, dt::undef, any)}, {lt(13, dt::undef, any)}),
        op(4, op::kind::LogicalNot, {lt(13, dt::undef, any)}, {lt(14, dt::undef, any)}),
    };
    expect_one_exact_partition(ops, {{0, a}, {1, b}}, 14);
}

// A tensor read by two ops of the region (the biased value of a bias + GELU
// as PyTorch exports it, here with exact ops): one pass, t computed once per
// element and read twice, equal to the op-by-op run and the reference.
TEST(mask_fusion, a_value_read_twice_inside_the_region_is_one_pass) {
    std::mt19937_64 rng(23);
    const dims shape{16, 384};
    for (dt t : {dt::f32, dt::bf16, dt::s32}) {
        auto x = std::make_shared<buffer>(lt(0, t, shape)), b = std::make_shared<buffer>(lt(1, t, dims{384}));
        auto r = std::make_shared<buffer>(lt(2, t, shape));
        fill(*x, rng), fill(*b, rng), fill(*r, rng);
        std::vector<op> ops = {
            op(0, op::kind::Add, {lt(0, t, shape), lt(1, t, dims{384})}, {lt(10, dt::undef, any)}),
            op(1, op::kind::Maximum, {lt(10, dt::undef, any), lt(2, t, shape)}, {lt(11, dt::undef, any)}),
            op(2, op::kind::Multiply, {lt(10, dt::undef, any), lt(11, dt::undef, any)}, {lt(12, dt::undef, any)}),
            op(3, op::kind::Subtract, {lt(12, dt::undef, any), lt(10, dt::undef, any)}, {lt(13, dt::undef, any)}),
        };
        expect_one_exact_partition(ops, {{0, x}, {1, b}, {2, r}}, 13);
    }
}

} // namespace
