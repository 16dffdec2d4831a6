// Scalar f16/bf16 <-> f32 conversions, rounding to nearest even.
#pragma once

#include <cstdint>
#include <cstring>

namespace fusebox::detail {

inline uint32_t f32_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    return x;
}

inline float f32_from_bits(uint32_t x) {
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

inline float bf16_to_f32(uint16_t h) { return f32_from_bits(static_cast<uint32_t>(h) << 16); }

inline uint16_t f32_to_bf16(float f) {
    uint32_t x = f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u); // quiet NaN
    x += 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0) { // zero or subnormal: m * 2^-24, exact in f32
        float v = static_cast<float>(m) * 5.9604644775390625e-8f;
        return f32_from_bits(f32_bits(v) | sign);
    }
    if (e == 31) return f32_from_bits(sign | 0x7F800000u | (m << 13));
    return f32_from_bits(sign | ((e + 112) << 23) | (m << 13));
}

inline uint16_t f32_to_f16(float f) {
    const uint32_t x = f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7FFFFFFFu;
    if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu)); // quiet NaN
    if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u); // >= 65520 rounds to inf
    uint32_t r, rem, half;
    const uint32_t e = abs >> 23;
    if (e < 113) { // f16 subnormal range: count units of 2^-24
        const uint32_t shift = 126 - e;
        if (shift > 24) return static_cast<uint16_t>(sign);
        const uint32_t m = (abs & 0x7FFFFFu) | 0x800000u;
        r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    } else {
        r = ((e - 112) << 10) | ((abs >> 13) & 0x3FFu), rem = abs & 0x1FFFu, half = 0x1000u;
    }
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
}

} // namespace fusebox::detail
