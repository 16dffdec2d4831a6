// The elementwise op catalogue: every op kind fusebox runs is one row of one
// table (elementwise.cpp) — arity, type rule, broadcast rule, attributes,
// oneDNN algorithm, properties — and one kernel function (`ew_fn`) whose
// vector and scalar bodies live in the native element loops. Validation,
// type and shape inference (one function each, used by finalize and by
// compile alike), the oneDNN lowering and the generated docs read this table;
// nothing else names an op.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

using dims = logical_tensor::dims;

/// What the element loops compute for a node. Several op kinds may share one
/// (ONNX and oneDNN spellings of the same operation).
enum class ew_fn : uint8_t {
    add,
    subtract,
    multiply,
    divide,
    maximum,
    minimum,
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_or,
    logical_xor,
    logical_not,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    bitwise_not,
    shift_left,
    shift_right,
    select,             // cond ? x : y (Where, Select)
    mod,                // Mod fmod=0: the sign of the divisor (integers)
    fmod,               // Mod fmod=1: C fmod, the sign of the dividend
    identity,           // a copy (Sum, Mean, Max, Min of one input)
    pow,                // base ^ exponent, the exponent of any numeric type
    prelu,              // x < 0 ? x * slope : x (also LeakyReLU, its slope a constant)
    squared_difference, // (a - b) rounded to the type, then squared
    // One input, then the constants its op's attributes give (after the input,
    // of the compute type: f32 for f16/bf16/f32, f64 for f64).
    abs,
    neg,
    sign,
    floor,
    ceil,
    round, // half to even
    sqrt,
    reciprocal,
    square,
    exp,
    log,
    tanh,
    sigmoid,
    erf,
    relu,
    elu,          // (x, alpha)
    selu,         // (x, alpha, gamma)
    hard_sigmoid, // (x, alpha, beta)
    hard_swish,
    softsign,
    softplus, // (x, beta)
    mish,
    gelu_erf,
    gelu_tanh,
    clamp, // (x, lo, hi) of x's type: min(max(x, lo), hi), IEEE (NaN propagates)
    is_nan,
    is_inf, // (x, which): which = 1 detects +inf, 2 -inf, 3 both (u8)
    cast,   // to the node's output type
};
constexpr int kNumEwFns = 56;

/// A set of data types, one bit per dtype_index().
using type_set = uint32_t;

/// How an op's output type follows from its input types.
enum class type_rule : uint8_t {
    same,         // every input one type of `types`; the output that type
    same_to_bool, // every input one type of `types`; the output boolean
    select,       // a boolean condition, then two inputs of one type of `types`; the output that type
    exponent,     // a base of one type of `types`, an exponent of any numeric type; the output the base's type
    cast,         // an input of one type of `types`; the output the declared output type, one of `types`
};

/// How an op's inputs line up with its output beyond numpy over all inputs.
enum class shape_rule : uint8_t {
    numpy,             // numpy (or the legacy / none rules its attributes pick)
    condition_one_way, // oneDNN's Select: the condition (input 0) broadcasts one way to the values' shape
    channel,           // BiasAdd: input 1 is 1-D, the channel dim of input 0 (`data_format`)
    slope,             // PReLU: input 1 broadcasts one way to input 0; a 1-D one to the channel dim
                       // when `per_channel_broadcast` (default true)
    scalars,           // Clip-11+: the inputs after the first (min, max) hold one element each
};

/// How an op becomes kernel nodes (canonicalize).
enum class lowering : uint8_t {
    one_node,    // one node of the row's function over all inputs
    fold,        // left to right: f(f(in0, in1), in2) ...; one input: identity
    mean,        // the fold of add, then divided by the input count
    with_params, // one node over the inputs, then the constants op_params() gives
};

struct elementwise_def {
    op::kind kind;
    ew_fn fn;
    int inputs_min, inputs_max;
    type_rule rule;
    type_set types;        // input types the rule accepts
    bool mixed_f32;        // oneDNN Graph's rows f32 with bf16 or f16 (either order) -> f32
    bool legacy_broadcast; // ONNX opset-1/6 `broadcast` / `axis`
    bool consumed_inputs;  // ONNX Add-1's `consumed_inputs` (accepted, ignored)
    bool commutative;      // the loops may swap the operands
    // oneDNN's binary algorithm (a dnnl_alg_kind_t value; 0: none), the input
    // types it computes exactly, and those it computes flushing subnormal
    // results (allowed by a relaxed fpmath mode only).
    int onednn_alg;
    type_set onednn_exact, onednn_flushing;
    shape_rule shapes = shape_rule::numpy;
    // Attributes of its own besides the broadcast ones (op::attr::undef: none).
    op::attr own_attrs[2] = {op::attr::undef, op::attr::undef};
    lowering lower = lowering::one_node;
    bool has_attr(op::attr a) const { return own_attrs[0] == a || own_attrs[1] == a; }
};

/// No limit on the input count (Sum, Mean, ONNX Max/Min).
constexpr int kAnyCount = 1 << 30;

/// The kernel function of a validated op: its row's, or chosen by an
/// attribute (BitShift's direction, Mod's fmod).
ew_fn kernel_fn(const op &o);

/// Every row, in op-kind order.
const std::vector<elementwise_def> &elementwise_ops();
/// The row of `k`, or nullptr when fusebox does not run `k`.
const elementwise_def *find_elementwise(op::kind k);

/// Whether fusebox runs `o`: its kind has a row and its input count fits the row.
bool runs_op(const op &o);

/// The bit of `t` in a type_set.
type_set type_bit(data_type t);

/// How an op broadcasts, read from its attributes.
struct broadcast_rule {
    enum class kind { numpy, none, legacy_equal, legacy_unidirectional } k = kind::numpy;
    std::optional<int64_t> axis; // legacy_unidirectional only
};
broadcast_rule read_broadcast_rule(const op &o);

/// Checks the attribute values of an op fusebox runs against its row. Throws
/// invalid_arguments naming the op and the attribute.
void check_elementwise_attributes(const op &o, const elementwise_def &def);

/// The output type for input types `in` (undef entries: not known yet, and
/// then the result is undef). Throws invalid_data_type naming the op and the
/// types when the row does not accept them.
data_type infer_output_type(const op &o, const std::vector<data_type> &in);

/// The output shape for input shapes `in` (-1: unknown dim). Throws
/// invalid_shape naming the op when the shapes do not broadcast.
dims infer_output_shape(const op &o, const std::vector<dims> &in);

/// For each dim of input `input` (of shape `shape`) of an op whose output
/// has rank `out_rank`: the output dim it lines up with, or -1 where it has
/// extent 1 and lines up with none (legacy one-element B).
std::vector<int> input_dim_map(const op &o, size_t input, const dims &shape, size_t out_rank);

/// The channel dim of a tensor of rank `rank` under the op's `data_format`
/// (NXC, the default: the last; NCX: dim 1).
int channel_dim(const op &o, size_t rank);

/// oneDNN Pow's exponent (`beta`) when the op has one input; 1 if absent.
float pow_beta(const op &o);

/// The type an op on `t` computes in: f64 for f64, f32 for the other floats
/// (f16 and bf16 are rounded once per op); integers and booleans their own.
data_type compute_type(data_type t);

/// The constants a `with_params` node takes after its inputs, from the op's
/// attributes and defaults, for an input of type `in`: their values and
/// their type (Clamp/Clip: the input's; IsInf: u8; otherwise compute_type).
struct node_params {
    data_type dt = data_type::undef;
    std::vector<long double> values;
};
node_params op_params(const op &o, data_type in);

} // namespace fusebox::detail
