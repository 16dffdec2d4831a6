// Overflow-checked arithmetic for every shape, stride, byte and index
// computation (library and tools): one home for this class of bug.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fusebox::detail {

/// a * b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a + b, or nullopt when it does not fit in int64_t.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a * b for sizes in bytes, or nullopt on overflow.
inline std::optional<size_t> checked_mul(size_t a, size_t b) {
    size_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a * b, saturating at INT64_MAX (for sizes that only steer heuristics).
inline int64_t saturating_mul(int64_t a, int64_t b) { return checked_mul(a, b).value_or(INT64_MAX); }

/// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b.
inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/// Elements of a shape of known, non-negative dims: 0 when any dim is 0
/// (whatever the others), nullopt when the product overflows.
inline std::optional<int64_t> checked_numel(const std::vector<int64_t> &shape) {
    for (int64_t d : shape)
        if (d == 0) return 0;
    int64_t n = 1;
    for (int64_t d : shape) {
        auto next = checked_mul(n, d);
        if (!next) return std::nullopt;
        n = *next;
    }
    return n;
}

} // namespace fusebox::detail
