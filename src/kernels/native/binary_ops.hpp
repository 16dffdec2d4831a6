// Element loops the native expression kernel is built from. A stride of 0
// repeats one element (a broadcast operand); 1 walks contiguous memory.
#pragma once

#include <cstdint>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

using binary_fn = void (*)(const void *a, int64_t sa, const void *b, int64_t sb, void *out, int64_t n);
using convert_fn = void (*)(const void *in, void *out, int64_t n);

/// The type a node computes in: f32 for f16/bf16 (and the mixed rows),
/// otherwise the input type itself.
data_type compute_type(data_type a, data_type b);
/// out[i] = a[i] + b[i] in `t` (integers wrap), or nullptr.
binary_fn find_add(data_type t);
/// out[i] = (a[i] == b[i]) as boolean bytes, or nullptr.
binary_fn find_equal(data_type t);
/// Element conversion between f16/bf16 and f32 (rounding to nearest even), or nullptr.
convert_fn find_convert(data_type from, data_type to);

} // namespace fusebox::detail
