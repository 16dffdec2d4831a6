// Element loops compiled once and shared by every target: the transcendental
// functions (f32 evaluated in double, f64 in long double, each rounded once;
// f16/bf16 through the f32 function, then rounded to the type) and Cast
// between every pair of numeric types and boolean.
#pragma once

#include "kernels/native/binary_ops.hpp"

namespace fusebox::detail {

/// The loop of transcendental function `f` (exp, log, tanh, sigmoid, erf,
/// elu, selu, softplus, mish, gelu_erf, gelu_tanh) over input type `t`
/// (f16, bf16, f32, f64), or nullptr. in[0] is the input; in[1], in[2] the
/// op's constants (of compute_type(t)).
nary_fn scalar_math_loop(ew_fn f, data_type t);

/// The constants a transcendental function takes after its input (its op's
/// attributes): Selu 2, Elu and SoftPlus 1.
constexpr int math_param_count(ew_fn f) {
    return f == ew_fn::selu ? 2 : f == ew_fn::elu || f == ew_fn::softplus ? 1 : 0;
}

/// Cast from `from` to `to` (ELEMENTWISE.md): floats to integers truncate
/// and saturate (NaN: 0), integers wrap, to boolean is x != 0, to f16/bf16
/// rounds once to nearest even. Null for string or undef.
nary_fn scalar_cast_loop(data_type from, data_type to);

} // namespace fusebox::detail
