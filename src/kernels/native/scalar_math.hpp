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

/// One transcendental function of one f32 / f64 value with its constants:
/// what the loops above compute element by element.
float scalar_math_f32(ew_fn f, float x, const float *params);
double scalar_math_f64(ew_fn f, double x, const double *params);

/// Cast from `from` to `to` (ELEMENTWISE.md): floats to integers truncate
/// and saturate (NaN: 0), integers wrap, to boolean is x != 0, to f16/bf16
/// rounds once to nearest even. Null for string or undef.
nary_fn scalar_cast_loop(data_type from, data_type to);

} // namespace fusebox::detail
