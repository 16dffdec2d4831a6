// Edge values per type, and ONNX's legacy broadcast examples, computed by
// fusebox and checked against the scalar reference and against known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "test_util.hpp"

namespace {

using namespace fbt;

template <typename T> buffer make(size_t id, dt type, const std::vector<T> &values) {
    buffer b(logical_tensor(id, type, dims{static_cast<int64_t>(values.size())}));
    std::memcpy(b.data(), values.data(), values.size() * sizeof(T));
    return b;
}

template <typename T> std::vector<T> values_of(const buffer &b) {
    std::vector<T> v(static_cast<size_t>(numel(b.lt.get_dims())));
    std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}

// Runs the op on every kernel choice, checks the reference, returns the result.
buffer run_everywhere(op::kind kind, const buffer &a, const buffer &b) {
    buffer first(a.lt);
    bool have_first = false;
    for (const char *mode : {"native", "auto", "onednn"}) {
        kernel_env env(mode);
        buffer got(a.lt);
        try {
            got = run_single(binary_op(kind, a.lt, b.lt), a, b);
        } catch (const error &e) {
            EXPECT_EQ(e.get_status(), status::unimplemented) << e.what(); // onednn cannot take every type
            continue;
        }
        buffer want(got.lt);
        ref_binary(kind, a, b, want);
        EXPECT_TRUE(same_elements(want, got)) << mode;
        if (!have_first) first = got, have_first = true;
    }
    return first;
}

uint16_t h(float f) { return ref_f32_to_f16(f); }
uint16_t bf(float f) { return ref_f32_to_bf16(f); }

TEST(edge_values, f16_add_rounds_ties_to_even_and_overflows_to_inf) {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1).
    // (1 + 2^-10) + 2^-11 is halfway to 1 + 2^-9: to even (up).
    const float e = std::ldexp(1.f, -11);
    buffer a = make<uint16_t>(0, dt::f16,
                              {h(1.f), h(1.f + 2 * e), h(65504.f), h(-0.f), h(std::ldexp(1.f, -24)), h(NAN), 0x7C00});
    buffer b = make<uint16_t>(1, dt::f16, {h(e), h(e), h(65504.f), h(0.f), h(std::ldexp(1.f, -24)), h(1.f), 0xFC00});
    auto out = values_of<uint16_t>(run_everywhere(op::kind::Add, a, b));
    EXPECT_EQ(out[0], h(1.f));
    EXPECT_EQ(out[1], h(1.f + 4 * e));
    EXPECT_EQ(out[2], 0x7C00);                       // inf
    EXPECT_EQ(out[3], 0x0000);                       // -0 + +0 = +0
    EXPECT_EQ(out[4], 0x0002);                       // subnormals add exactly
    EXPECT_TRUE(std::isnan(ref_f16_to_f32(out[5]))); // NaN propagates
    EXPECT_TRUE(std::isnan(ref_f16_to_f32(out[6]))); // inf - inf
}

TEST(edge_values, bf16_add_rounds_ties_to_even_and_keeps_subnormals) {
    const float e = std::ldexp(1.f, -8);
    const float sub = ref_bf16_to_f32(0x0001); // smallest bf16 subnormal
    buffer a = make<uint16_t>(0, dt::bf16, {bf(1.f), bf(1.f + 2 * e), bf(sub), bf(3.0e38f)});
    buffer b = make<uint16_t>(1, dt::bf16, {bf(e), bf(e), bf(sub), bf(3.0e38f)});
    auto out = values_of<uint16_t>(run_everywhere(op::kind::Add, a, b));
    EXPECT_EQ(out[0], bf(1.f));
    EXPECT_EQ(out[1], bf(1.f + 4 * e));
    EXPECT_EQ(out[2], 0x0002); // not flushed to zero
    EXPECT_EQ(out[3], 0x7F80); // inf
}

TEST(edge_values, mixed_f32_bf16_add_rounds_once_in_f32) {
    buffer a = make<float>(0, dt::f32, {1.f, 1e-40f, -0.f});
    buffer b = make<uint16_t>(1, dt::bf16, {bf(std::ldexp(1.f, -20)), 0x0001, 0x8000});
    auto out = values_of<float>(run_everywhere(op::kind::Add, a, b));
    EXPECT_EQ(out[0], 1.f + std::ldexp(1.f, -20));
    EXPECT_EQ(out[1], 1e-40f + ref_bf16_to_f32(0x0001));
    EXPECT_TRUE(std::signbit(out[2]));
}

// One small integer exponent for a whole run takes products in double, not
// libm's pow: the results must be pow's all the same, specials included.
TEST(edge_values, pow_by_one_small_integer_exponent_is_pow) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> x = {nan,    0.f,   -0.f,   inf,    -inf,          1.f,    -1.f,    1.5f,
                            -2.75f, 1e10f, 1e-10f, -3e38f, 3.4028235e38f, 1e-45f, -1e-45f, 1.17549435e-38f,
                            7.f,    -0.1f};
    std::mt19937_64 rng(5);
    for (int i = 0; i < 2000; ++i) { // every magnitude, both signs
        uint32_t bits = static_cast<uint32_t>(rng());
        float f;
        std::memcpy(&f, &bits, 4);
        x.push_back(f);
    }
    std::vector<uint16_t> xh, xb;
    for (float f : x) xh.push_back(h(f)), xb.push_back(bf(f));
    const buffer a32 = make(0, dt::f32, x), a16 = make(0, dt::f16, xh), ab16 = make(0, dt::bf16, xb);
    for (float k : {0.f, 1.f, 2.f, 3.f, 4.f, -1.f, -2.f, 0.5f, 5.f}) {
        SCOPED_TRACE(k);
        buffer e(logical_tensor(1, dt::f32, dims{}));
        std::memcpy(e.data(), &k, 4);
        run_everywhere(op::kind::Pow, a32, e);
        run_everywhere(op::kind::Pow, a16, e);
        buffer ei(logical_tensor(1, dt::s32, dims{}));
        const int32_t ki = static_cast<int32_t>(k);
        std::memcpy(ei.data(), &ki, 4);
        if (k == static_cast<float>(ki)) run_everywhere(op::kind::Pow, ab16, ei);
    }
}

TEST(edge_values, integer_add_wraps) {
    {
        buffer a = make<int8_t>(0, dt::s8, {127, -128, -1, 100});
        buffer b = make<int8_t>(1, dt::s8, {1, -1, 1, 100});
        EXPECT_EQ(values_of<int8_t>(run_everywhere(op::kind::Add, a, b)), (std::vector<int8_t>{-128, 127, 0, -56}));
    }
    {
        buffer a = make<uint8_t>(0, dt::u8, {255, 200});
        buffer b = make<uint8_t>(1, dt::u8, {1, 100});
        EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Add, a, b)), (std::vector<uint8_t>{0, 44}));
    }
    {
        const int32_t big = 1 << 24;
        buffer a = make<int32_t>(0, dt::s32, {INT32_MAX, INT32_MIN, big});
        buffer b = make<int32_t>(1, dt::s32, {1, -1, 1});
        EXPECT_EQ(values_of<int32_t>(run_everywhere(op::kind::Add, a, b)),
                  (std::vector<int32_t>{INT32_MIN, INT32_MAX, big + 1}));
    }
    {
        const int64_t big = int64_t{1} << 53;
        buffer a = make<int64_t>(0, dt::s64, {INT64_MAX, big, -big});
        buffer b = make<int64_t>(1, dt::s64, {1, 1, -1});
        EXPECT_EQ(values_of<int64_t>(run_everywhere(op::kind::Add, a, b)),
                  (std::vector<int64_t>{INT64_MIN, big + 1, -big - 1}));
    }
    {
        buffer a = make<uint64_t>(0, dt::u64, {UINT64_MAX, uint64_t{1} << 63});
        buffer b = make<uint64_t>(1, dt::u64, {1, uint64_t{1} << 63});
        EXPECT_EQ(values_of<uint64_t>(run_everywhere(op::kind::Add, a, b)), (std::vector<uint64_t>{0, 0}));
    }
}

TEST(edge_values, equal_is_exact_and_ieee) {
    {
        const int64_t big = int64_t{1} << 53;
        buffer a = make<int64_t>(0, dt::s64, {big, big + 1, INT64_MIN, -1});
        buffer b = make<int64_t>(1, dt::s64, {big + 1, big + 1, INT64_MIN, INT64_MAX});
        EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Equal, a, b)), (std::vector<uint8_t>{0, 1, 1, 0}));
    }
    {
        const int32_t big = 1 << 24;
        buffer a = make<int32_t>(0, dt::s32, {big, big + 1});
        buffer b = make<int32_t>(1, dt::s32, {big + 1, big + 1});
        EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Equal, a, b)), (std::vector<uint8_t>{0, 1}));
    }
    {
        buffer a = make<float>(0, dt::f32, {NAN, -0.f, INFINITY, 1e-40f, 1.f});
        buffer b = make<float>(1, dt::f32, {NAN, 0.f, INFINITY, 1e-40f, std::nextafter(1.f, 2.f)});
        EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Equal, a, b)), (std::vector<uint8_t>{0, 1, 1, 1, 0}));
    }
    {
        buffer a = make<uint16_t>(0, dt::bf16, {0x7FC0, 0x8000, 0x0001});
        buffer b = make<uint16_t>(1, dt::bf16, {0x7FC0, 0x0000, 0x0001});
        EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Equal, a, b)), (std::vector<uint8_t>{0, 1, 1}));
    }
    {
        buffer a = make<uint8_t>(0, dt::boolean, {2, 0, 255, 1});
        buffer b = make<uint8_t>(1, dt::boolean, {1, 0, 0, 7});
        EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Equal, a, b)), (std::vector<uint8_t>{1, 1, 0, 1}));
    }
}

TEST(edge_values, strings_compare_bytes_including_embedded_zeros) {
    const char x[] = {'a', '\0', 'b'}, y[] = {'a', '\0', 'c'};
    buffer a = make<string_view_t>(0, dt::string, {{"", 0}, {x, 3}, {x, 3}, {x, 1}, {"same", 4}});
    buffer b = make<string_view_t>(1, dt::string, {{nullptr, 0}, {y, 3}, {x, 3}, {x, 3}, {"same", 4}});
    EXPECT_EQ(values_of<uint8_t>(run_everywhere(op::kind::Equal, a, b)), (std::vector<uint8_t>{1, 0, 1, 0, 1}));
}

// The legacy examples for A = (2,3,4,5), checked numerically.
struct legacy_case {
    dims b;
    int64_t axis; // -1: not set
};

class legacy_broadcast_test : public ::testing::TestWithParam<legacy_case> {};

TEST_P(legacy_broadcast_test, matches_reference) {
    const legacy_case &c = GetParam();
    for (dt type : {dt::f32, dt::s64, dt::f16}) {
        std::mt19937_64 rng(3);
        buffer a(logical_tensor(0, type, {2, 3, 4, 5})), b(logical_tensor(1, type, c.b));
        fill(a, rng);
        fill(b, rng);
        for (op::kind kind : {op::kind::Add, op::kind::Equal}) {
            op o = binary_op(kind, a.lt, b.lt);
            o.set_attr(op::attr::broadcast, int64_t{1});
            if (c.axis >= 0) o.set_attr(op::attr::axis, c.axis);
            buffer got = run_single(o, a, b);
            EXPECT_EQ(got.lt.get_dims(), (dims{2, 3, 4, 5}));
            buffer want(got.lt);
            ref_binary(kind, a, b, want, c.axis >= 0 ? c.axis : 4 - static_cast<int64_t>(c.b.size()));
            EXPECT_TRUE(same_elements(want, got)) << data_type_name(type);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(onnx_examples, legacy_broadcast_test,
                         ::testing::Values(legacy_case{{}, -1}, legacy_case{{1, 1}, -1}, legacy_case{{5}, -1},
                                           legacy_case{{4, 5}, -1}, legacy_case{{3, 4}, 1}, legacy_case{{2}, 0}));

} // namespace
