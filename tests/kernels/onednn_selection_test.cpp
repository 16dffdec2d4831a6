// The automatic choice lowers common cases to oneDNN exactly when oneDNN has a
// JIT implementation for them on this CPU (asked of oneDNN directly), and
// never to a `ref:` one.
#include <gtest/gtest.h>

#include "onednn_probe.hpp"
#include "ops/elementwise.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;

struct selection_case {
    const char *name;
    op::kind kind;
    dt type;
    dims a, b;
};

const selection_case kCommon[] = {
    {"add_same", op::kind::Add, dt::f32, {64, 256, 32}, {64, 256, 32}},
    {"add_scalar", op::kind::Add, dt::f32, {64, 256, 32}, {}},
    {"add_per_channel", op::kind::Add, dt::f32, {8, 256, 16, 16}, {1, 256, 1, 1}},
    {"add_per_channel_src0_broadcast", op::kind::Add, dt::f32, {1, 256, 1, 1}, {8, 256, 16, 16}},
    {"add_bert_bias", op::kind::Add, dt::f32, {1, 384, 768}, {768}},
    {"equal_per_channel_bf16", op::kind::Equal, dt::bf16, {8, 256, 16, 16}, {1, 256, 1, 1}},
};

class onednn_selection_test : public ::testing::TestWithParam<selection_case> {};

TEST_P(onednn_selection_test, picks_onednn_where_it_has_a_jit_and_matches_reference) {
    const selection_case &c = GetParam();
    kernel_env env(nullptr);
    const bool equal = c.kind == op::kind::Equal;
    const bool jit = onednn_binary_has_jit(equal ? dnnl::algorithm::binary_eq : dnnl::algorithm::binary_add, c.type,
                                           numel(c.a) >= numel(c.b) ? c.a : c.b, numel(c.a) >= numel(c.b) ? c.b : c.a,
                                           equal ? dt::boolean : c.type);
    std::mt19937_64 rng(3);
    buffer a(logical_tensor(0, c.type, c.a)), b(logical_tensor(1, c.type, c.b));
    fill(a, rng);
    fill(b, rng);
    std::string impl;
    buffer got = run_single(binary_op(c.kind, a.lt, b.lt), a, b, &impl);
    // f32 binary JITs exist on every x86-64 CPU oneDNN supports (SSE4.1 and up).
    if (c.type == dt::f32) {
        EXPECT_TRUE(jit) << "oneDNN has no f32 JIT binary for " << c.name;
    }
    EXPECT_EQ(impl.rfind(jit ? "onednn:" : "native:", 0), 0u) << impl << " (oneDNN JIT here: " << jit << ")";
    EXPECT_EQ(impl.find("ref"), std::string::npos) << impl;
    buffer want(got.lt);
    ref_binary(c.kind, a, b, want);
    EXPECT_TRUE(same_elements(want, got));
}

INSTANTIATE_TEST_SUITE_P(common, onednn_selection_test, ::testing::ValuesIn(kCommon),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(onednn_selection, never_reports_a_ref_implementation_for_any_type) {
    // Whatever the choice, the implementation string never names a ref path.
    for (dt t : {dt::f32, dt::bf16, dt::f16, dt::s8, dt::u8, dt::s32}) {
        for (const auto &shapes :
             {std::pair<dims, dims>{{64, 1024}, {64, 1024}}, {{64, 1024}, {64, 1}}, {{64, 1024}, {1024}}}) {
            buffer a(logical_tensor(0, t, shapes.first)), b(logical_tensor(1, t, shapes.second));
            std::string impl;
            run_single(binary_op(op::kind::Add, a.lt, b.lt), a, b, &impl);
            EXPECT_EQ(impl.find("ref"), std::string::npos) << data_type_name(t) << " " << impl;
        }
    }
}

TEST(onednn_selection, tiny_partitions_run_inline_on_the_native_kernel) {
    kernel_env env(nullptr);
    buffer a(logical_tensor(0, dt::f32, {16, 13})), b(logical_tensor(1, dt::f32, {1, 13}));
    std::string impl;
    run_single(binary_op(op::kind::Add, a.lt, b.lt), a, b, &impl);
    EXPECT_EQ(impl.rfind("native:", 0), 0u) << impl;
}

// Every catalogue row that says oneDNN computes a type exactly is checked:
// forced onto oneDNN (where oneDNN has a JIT for it here), the result equals
// the reference bit for bit on edge values, dense and broadcast.
TEST(onednn_selection, onednn_is_exact_wherever_the_catalogue_says_so) {
    kernel_env forced("onednn");
    int checked = 0;
    for (const auto &def : fusebox::detail::elementwise_ops())
        for (dt t : {dt::f32, dt::bf16, dt::f16}) {
            if (!(def.onednn_exact & fusebox::detail::type_bit(t))) continue;
            const dt out = def.rule == fusebox::detail::type_rule::same_to_bool ? dt::boolean : t;
            for (const dims &b_shape : {dims{64, 1024}, dims{1024}, dims{64, 1}}) {
                if (def.shapes == fusebox::detail::shape_rule::channel && b_shape.size() != 1)
                    continue; // BiasAdd: a 1-D bias along the (last, NXC) channel dim
                if (!onednn_binary_has_jit(static_cast<dnnl::algorithm>(def.onednn_alg), t, {64, 1024}, b_shape, out))
                    continue; // no JIT on this CPU: the automatic choice is native (support table test)
                std::mt19937_64 rng(11);
                buffer a(logical_tensor(0, t, {64, 1024})), b(logical_tensor(1, t, b_shape));
                fill(a, rng);
                fill(b, rng);
                std::string impl;
                buffer got = run_single(binary_op(def.kind, a.lt, b.lt), a, b, &impl);
                ASSERT_EQ(impl.rfind("onednn:", 0), 0u) << impl;
                buffer want(got.lt);
                ref_binary(def.kind, a, b, want);
                EXPECT_TRUE(same_elements(want, got)) << op_kind_name(def.kind) << " " << data_type_name(t) << " "
                                                      << impl << " b=" << b_shape.size() << "-D";
                ++checked;
            }
        }
    EXPECT_GT(checked, 0); // f32 binaries have JITs on every x86-64 CPU oneDNN runs on
}

} // namespace
