// fusebox's f16/bf16 conversions against hardware F16C and a nearest-candidate
// search: exhaustive for 16-bit inputs, random and tie cases for f32 inputs.
#include <gtest/gtest.h>

#include "kernels/native/half.hpp"
#include "test_util.hpp"

namespace {

using namespace fusebox::detail;

bool same_float(float x, float y) { return (std::isnan(x) && std::isnan(y)) || f32_bits(x) == f32_bits(y); }

TEST(half, f16_to_f32_matches_hardware_for_every_value) {
    for (uint32_t h = 0; h < 65536; ++h)
        ASSERT_TRUE(same_float(f16_to_f32(uint16_t(h)), fbt::ref_f16_to_f32(uint16_t(h)))) << h;
}

TEST(half, f32_to_f16_rounds_to_nearest_even_like_hardware) {
    std::mt19937 rng(1);
    auto check = [](float f) {
        uint16_t got = f32_to_f16(f), want = fbt::ref_f32_to_f16(f);
        if (std::isnan(f))
            ASSERT_TRUE(std::isnan(fbt::ref_f16_to_f32(got))) << f;
        else
            ASSERT_EQ(got, want) << f;
    };
    for (int i = 0; i < 2000000; ++i) check(f32_from_bits(rng()));
    // Every f16 value and the midpoints next to it (ties), both signs.
    for (uint32_t h = 0; h < 0x7C00; ++h) {
        float v = fbt::ref_f16_to_f32(uint16_t(h)), next = fbt::ref_f16_to_f32(uint16_t(h + 1));
        check(v), check(-v), check(v + (next - v) / 2), check(-(v + (next - v) / 2));
    }
    check(65519.f), check(65520.f), check(INFINITY), check(-INFINITY);
}

TEST(half, bf16_rounds_to_nearest_even_and_keeps_subnormals) {
    std::mt19937 rng(2);
    for (int i = 0; i < 2000000; ++i) {
        float f = f32_from_bits(rng());
        if (std::isnan(f))
            ASSERT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(f))));
        else
            ASSERT_EQ(f32_to_bf16(f), fbt::ref_f32_to_bf16(f)) << f;
    }
    EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3F808000)), 0x3F80); // tie to even (down)
    EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3F818000)), 0x3F82); // tie to even (up)
    EXPECT_EQ(f32_to_bf16(f32_from_bits(0x00018000)), 0x0002); // subnormal tie, not flushed
    EXPECT_EQ(f32_to_bf16(f32_from_bits(0x7F7FFFFF)), 0x7F80); // rounds up to inf
    for (uint32_t h = 0; h < 65536; ++h) {
        if (std::isnan(bf16_to_f32(uint16_t(h)))) continue;
        ASSERT_EQ(f32_to_bf16(bf16_to_f32(uint16_t(h))), h);
    }
}

} // namespace
