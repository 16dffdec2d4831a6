#include "ops/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <oneapi/dnnl/dnnl_types.h>
#include <sstream>

#include "common/errors.hpp"
#include "interface/dtype.hpp"
#include "interface/op_registry.hpp"

namespace fusebox::detail {
namespace {

using dt = data_type;

type_set set_of(std::initializer_list<dt> types) {
    type_set s = 0;
    for (dt t : types) s |= type_bit(t);
    return s;
}

type_set floats() { return set_of({dt::f16, dt::bf16, dt::f32, dt::f64}); }
type_set integers() { return set_of({dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64, dt::u64}); }

// The union over every ONNX version up to opset 21 and oneDNN Graph's rows
// (OPS.md, ELEMENTWISE.md).
const std::vector<elementwise_def> &table() {
    static const type_set kFloats = floats();
    static const type_set kIntegers = integers();
    static const type_set kNumeric = kFloats | kIntegers;
    static const type_set kHalvesF32 = set_of({dt::f16, dt::bf16, dt::f32});
    static const type_set kSigned = kFloats | set_of({dt::s8, dt::s16, dt::s32, dt::s64});
    // One row per op kind, its fields in declaration order (formatted by hand).
    // clang-format off
    static const std::vector<elementwise_def> ops = {
        // Add-1 .. Add-14 and oneDNN Graph's Add (mixed f32/bf16/f16 rows included).
        {op::kind::Add, ew_fn::add, 2, 2, type_rule::same, kNumeric,
         true, true, true, true, dnnl_binary_add, set_of({dt::f32}), set_of({dt::bf16, dt::f16})},
        // Sub/Mul/Div-1 .. -14 and oneDNN Graph's Subtract/Multiply/Divide.
        {op::kind::Subtract, ew_fn::subtract, 2, 2, type_rule::same, kNumeric,
         true, true, true, false, dnnl_binary_sub, set_of({dt::f32}), set_of({dt::bf16, dt::f16})},
        {op::kind::Multiply, ew_fn::multiply, 2, 2, type_rule::same, kNumeric,
         true, true, true, true, dnnl_binary_mul, set_of({dt::f32}), set_of({dt::bf16, dt::f16})},
        {op::kind::Divide, ew_fn::divide, 2, 2, type_rule::same, kNumeric,
         true, true, true, false, dnnl_binary_div, set_of({dt::f32}), set_of({dt::bf16, dt::f16})},
        // ONNX Max/Min-1 .. -13 (1..N inputs) and oneDNN Graph's Maximum/Minimum: IEEE
        // 754-2019 maximum/minimum, which oneDNN's max/min (NaN dropped, -0 == +0) are not.
        {op::kind::Maximum, ew_fn::maximum, 1, kAnyCount, type_rule::same, kNumeric,
         false, false, true, true, 0, 0, 0,
         shape_rule::numpy, {}, lowering::fold},
        {op::kind::Minimum, ew_fn::minimum, 1, kAnyCount, type_rule::same, kNumeric,
         false, false, true, true, 0, 0, 0,
         shape_rule::numpy, {}, lowering::fold},
        // oneDNN Graph's SquaredDifference: (a - b) rounded, then squared.
        {op::kind::SquaredDifference, ew_fn::squared_difference, 2, 2, type_rule::same, kHalvesF32,
         false, false, false, false, 0, 0, 0},
        // ONNX Pow-1 .. -15 (an exponent tensor of any numeric type from Pow-12) and
        // oneDNN Graph's Pow (one input, the exponent `beta`).
        {op::kind::Pow, ew_fn::pow, 1, 2, type_rule::exponent, kFloats | set_of({dt::s32, dt::s64}),
         false, true, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::beta}},
        // oneDNN Graph's BiasAdd: a 1-D bias along the channel dim.
        {op::kind::BiasAdd, ew_fn::add, 2, 2, type_rule::same, kHalvesF32,
         false, false, false, false, dnnl_binary_add, set_of({dt::f32}), set_of({dt::bf16, dt::f16}),
         shape_rule::channel, {op::attr::data_format}},
        // ONNX PRelu-6 .. -16 and oneDNN Graph's PReLU.
        {op::kind::PReLU, ew_fn::prelu, 2, 2, type_rule::same, kFloats | set_of({dt::s32, dt::u32, dt::s64, dt::u64}),
         false, false, true, false, 0, 0, 0,
         shape_rule::slope, {op::attr::data_format, op::attr::per_channel_broadcast}},
        // Greater/Less-1 .. -13, GreaterOrEqual/LessOrEqual-12 .. -16, oneDNN Graph's GreaterEqual.
        // oneDNN 2.6's gt and ge give true where an operand is NaN (measured:
        // onednn_selection_test), so those two never lower to it.
        {op::kind::Greater, ew_fn::greater, 2, 2, type_rule::same_to_bool, kNumeric,
         false, true, false, false, dnnl_binary_gt, 0, 0},
        {op::kind::GreaterEqual, ew_fn::greater_equal, 2, 2, type_rule::same_to_bool, kNumeric,
         false, false, false, false, dnnl_binary_ge, 0, 0},
        {op::kind::Less, ew_fn::less, 2, 2, type_rule::same_to_bool, kNumeric,
         false, true, false, false, dnnl_binary_lt, set_of({dt::f32, dt::bf16}), 0},
        {op::kind::LessEqual, ew_fn::less_equal, 2, 2, type_rule::same_to_bool, kNumeric,
         false, false, false, false, dnnl_binary_le, set_of({dt::f32, dt::bf16}), 0},
        // And/Or/Xor-1 .. -7 (legacy broadcast in opset 1), Not-1.
        {op::kind::LogicalAnd, ew_fn::logical_and, 2, 2, type_rule::same, set_of({dt::boolean}),
         false, true, false, true, 0, 0, 0},
        {op::kind::LogicalOr, ew_fn::logical_or, 2, 2, type_rule::same, set_of({dt::boolean}),
         false, true, false, true, 0, 0, 0},
        {op::kind::LogicalXor, ew_fn::logical_xor, 2, 2, type_rule::same, set_of({dt::boolean}),
         false, true, false, true, 0, 0, 0},
        {op::kind::LogicalNot, ew_fn::logical_not, 1, 1, type_rule::same, set_of({dt::boolean}),
         false, false, false, false, 0, 0, 0},
        // BitwiseAnd/Or/Xor/Not-18, BitShift-11 (unsigned; `direction` picks the function).
        {op::kind::BitwiseAnd, ew_fn::bitwise_and, 2, 2, type_rule::same, kIntegers,
         false, false, false, true, 0, 0, 0},
        {op::kind::BitwiseOr, ew_fn::bitwise_or, 2, 2, type_rule::same, kIntegers,
         false, false, false, true, 0, 0, 0},
        {op::kind::BitwiseXor, ew_fn::bitwise_xor, 2, 2, type_rule::same, kIntegers,
         false, false, false, true, 0, 0, 0},
        {op::kind::BitwiseNot, ew_fn::bitwise_not, 1, 1, type_rule::same, kIntegers,
         false, false, false, false, 0, 0, 0},
        {op::kind::BitShift, ew_fn::shift_left, 2, 2, type_rule::same, set_of({dt::u8, dt::u16, dt::u32, dt::u64}),
         false, false, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::direction}},
        // ONNX Where-9 .. -16 (every type) and oneDNN Graph's Select (f32, bf16, f16; the
        // condition broadcasts one way to the values' shape).
        {op::kind::Where, ew_fn::select, 3, 3, type_rule::select, kNumeric | set_of({dt::boolean, dt::string}),
         false, false, false, false, 0, 0, 0},
        {op::kind::Select, ew_fn::select, 3, 3, type_rule::select, set_of({dt::f32, dt::bf16, dt::f16}),
         false, false, false, false, 0, 0, 0,
         shape_rule::condition_one_way},
        // Mod-10 .. -13 (`fmod` picks the function; floats need fmod=1).
        {op::kind::Mod, ew_fn::mod, 2, 2, type_rule::same, kNumeric,
         false, false, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::fmod}},
        // ONNX Sum-1 .. -13 and Mean-1 .. -13 (1..N inputs), left to right, each step rounded.
        {op::kind::Sum, ew_fn::add, 1, kAnyCount, type_rule::same, kFloats,
         false, false, true, true, dnnl_binary_add, set_of({dt::f32}), set_of({dt::bf16, dt::f16}),
         shape_rule::numpy, {}, lowering::fold},
        {op::kind::Mean, ew_fn::add, 1, kAnyCount, type_rule::same, kFloats,
         false, false, true, true, 0, 0, 0,
         shape_rule::numpy, {}, lowering::mean},
        // Equal-1 .. Equal-19.
        {op::kind::Equal, ew_fn::equal, 2, 2, type_rule::same_to_bool, kNumeric | set_of({dt::boolean, dt::string}),
         false, true, false, true, dnnl_binary_eq, set_of({dt::f32, dt::bf16}), 0},
        // Unary math: ONNX's versions up to opset 21 and oneDNN Graph's rows. Exact:
        {op::kind::Abs, ew_fn::abs, 1, 1, type_rule::same, kNumeric, false, false, true, false, 0, 0, 0},
        {op::kind::Neg, ew_fn::neg, 1, 1, type_rule::same, kSigned, false, false, true, false, 0, 0, 0},
        {op::kind::Sign, ew_fn::sign, 1, 1, type_rule::same, kNumeric, false, false, false, false, 0, 0, 0},
        {op::kind::Floor, ew_fn::floor, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Ceil, ew_fn::ceil, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Round, ew_fn::round, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0},
        {op::kind::Sqrt, ew_fn::sqrt, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Reciprocal, ew_fn::reciprocal, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Square, ew_fn::square, 1, 1, type_rule::same, kHalvesF32, false, false, false, false, 0, 0, 0},
        // ReLU-6 .. -14 (signed integers from 14) and oneDNN's ReLU: maximum(x, +0).
        {op::kind::ReLU, ew_fn::relu, 1, 1, type_rule::same, kFloats | set_of({dt::s8, dt::s16, dt::s32, dt::s64}),
         false, false, true, false, 0, 0, 0},
        // LeakyRelu-6 .. -16 and oneDNN's LeakyReLU (alpha; ONNX's default 0.01): PReLU's function.
        {op::kind::LeakyReLU, ew_fn::prelu, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::alpha}, lowering::with_params},
        // HardSigmoid max(0, min(1, alpha*x + beta)) and HardSwish x * HardSigmoid(x; 1/6, 1/2),
        // Softsign x / (1 + |x|): each step rounded, no fused multiply-add.
        {op::kind::HardSigmoid, ew_fn::hard_sigmoid, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::alpha, op::attr::beta}, lowering::with_params},
        {op::kind::HardSwish, ew_fn::hard_swish, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0},
        {op::kind::Softsign, ew_fn::softsign, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0},
        // oneDNN's Clamp (min, max required) and ONNX Clip: -6 (min/max attributes), -11+
        // (optional one-element min, max inputs; every numeric type from 12).
        {op::kind::Clamp, ew_fn::clamp, 1, 1, type_rule::same, kHalvesF32, false, false, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::min, op::attr::max}, lowering::with_params},
        {op::kind::Clip, ew_fn::clamp, 1, 3, type_rule::same, kNumeric, false, false, true, false, 0, 0, 0,
         shape_rule::scalars, {op::attr::min, op::attr::max}, lowering::with_params},
        // IsNaN-9 .. -20, IsInf-10 .. -20 (detect_positive, detect_negative; default 1).
        {op::kind::IsNaN, ew_fn::is_nan, 1, 1, type_rule::same_to_bool, kFloats, false, false, false, false, 0, 0, 0},
        {op::kind::IsInf, ew_fn::is_inf, 1, 1, type_rule::same_to_bool, kFloats, false, false, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::detect_positive, op::attr::detect_negative}, lowering::with_params},
        // Transcendental (ELEMENTWISE.md's bounds): floats only.
        {op::kind::Exp, ew_fn::exp, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Log, ew_fn::log, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Tanh, ew_fn::tanh, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Sigmoid, ew_fn::sigmoid, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0},
        {op::kind::Erf, ew_fn::erf, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0},
        {op::kind::Elu, ew_fn::elu, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::alpha}, lowering::with_params},
        {op::kind::Selu, ew_fn::selu, 1, 1, type_rule::same, kFloats, false, false, true, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::alpha, op::attr::gamma}, lowering::with_params},
        {op::kind::SoftPlus, ew_fn::softplus, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::beta}, lowering::with_params},
        {op::kind::Mish, ew_fn::mish, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0},
        // oneDNN's GELU (`mode` gelu_erf, the default, or gelu_tanh) and ONNX Gelu-20.
        {op::kind::GELU, ew_fn::gelu_erf, 1, 1, type_rule::same, kFloats, false, false, false, false, 0, 0, 0,
         shape_rule::numpy, {op::attr::mode}},
        // ONNX Cast-1 .. -21 (the target type is the output's) and oneDNN's TypeCast.
        {op::kind::Cast, ew_fn::cast, 1, 1, type_rule::cast, kNumeric | set_of({dt::boolean}),
         false, false, false, false, 0, 0, 0},
        {op::kind::TypeCast, ew_fn::cast, 1, 1, type_rule::cast, kHalvesF32, false, false, false, false, 0, 0, 0},
    };
    // clang-format on
    return ops;
}

template <typename T> const T &attr_as(const op &o, op::attr a, const char *type_name) {
    const auto &v = o.get_attrs().at(a);
    if (!std::holds_alternative<T>(v))
        fail(status::invalid_arguments, op_ref(o), ": attribute ", attr_name(a), " must be ", type_name);
    return std::get<T>(v);
}

// Attribute `a` of `o` is the string `x` or `y`.
void expect_one_of(const op &o, op::attr a, const char *x, const char *y) {
    const auto &v = attr_as<std::string>(o, a, "a string");
    if (v != x && v != y)
        fail(status::invalid_arguments, op_ref(o), ": ", attr_name(a), " must be \"", x, "\" or \"", y, "\", got \"", v,
             "\"");
}

// Attribute `a` of `o` is the integer 0 or 1.
void expect_flag(const op &o, op::attr a) {
    if (int64_t v = attr_as<int64_t>(o, a, "an integer"); v != 0 && v != 1)
        fail(status::invalid_arguments, op_ref(o), ": ", attr_name(a), " must be 0 or 1, got ", v);
}

bool numel_is_one(const dims &d) {
    return std::all_of(d.begin(), d.end(), [](int64_t v) { return v == 1; });
}

std::string types_text(const std::vector<data_type> &in) {
    std::string s;
    for (size_t i = 0; i < in.size(); ++i) s += (i ? ", " : "") + std::string(data_type_name(in[i]));
    return s;
}

std::string shapes_text(const std::vector<dims> &in) {
    std::string s;
    for (size_t i = 0; i < in.size(); ++i) s += (i == 0 ? "" : i + 1 == in.size() ? " and " : ", ") + shape_str(in[i]);
    return s;
}

// Numpy multidirectional broadcasting over every shape of `in`.
dims numpy_shape(const op &o, const std::vector<dims> &in) {
    auto incompatible = [&](const auto &...why) {
        fail(status::invalid_shape, op_ref(o), ": input shapes ", shapes_text(in), " ", why...);
    };
    size_t rank = 0;
    for (const dims &d : in) rank = std::max(rank, d.size());
    dims out(rank, 1);
    std::vector<size_t> from(rank, 0); // the input that set each output dim
    for (size_t k = 0; k < in.size(); ++k)
        for (size_t i = rank - in[k].size(); i < rank; ++i) {
            const int64_t x = out[i], y = in[k][i - (rank - in[k].size())];
            if (y == 1 || y == x) continue;
            if (x == 1 || (x < 0 && y >= 0)) {
                out[i] = y, from[i] = k; // an unknown extent meeting n must be n (or 1)
            } else if (y >= 0 && x >= 0) {
                incompatible("are not broadcast-compatible: at output dim ", i, " input ", from[i], " has ", x,
                             " and input ", k, " has ", y, " (each must be equal or 1)");
            }
        }
    return out;
}

// BiasAdd always, PReLU unless per_channel_broadcast is false: a 1-D second
// input lines up with the channel dim.
bool per_channel(const op &o) {
    if (find_elementwise(o.get_kind())->shapes == shape_rule::channel) return true;
    auto it = o.get_attrs().find(op::attr::per_channel_broadcast);
    return it == o.get_attrs().end() || std::get<bool>(it->second);
}

} // namespace

int channel_dim(const op &o, size_t rank) {
    auto it = o.get_attrs().find(op::attr::data_format);
    const bool ncx = it != o.get_attrs().end() && std::get<std::string>(it->second) == "NCX";
    return ncx ? 1 : static_cast<int>(rank) - 1;
}

float pow_beta(const op &o) {
    auto it = o.get_attrs().find(op::attr::beta);
    return it == o.get_attrs().end() ? 1.0f : std::get<float>(it->second);
}

const std::vector<elementwise_def> &elementwise_ops() { return table(); }

const elementwise_def *find_elementwise(op::kind k) {
    for (const auto &d : table())
        if (d.kind == k) return &d;
    return nullptr;
}

ew_fn kernel_fn(const op &o) {
    const elementwise_def &def = *find_elementwise(o.get_kind());
    if (def.fn == ew_fn::mod) {
        auto it = o.get_attrs().find(op::attr::fmod);
        return it != o.get_attrs().end() && std::get<int64_t>(it->second) == 1 ? ew_fn::fmod : ew_fn::mod;
    }
    if (def.fn == ew_fn::shift_left) {
        const auto &dir = std::get<std::string>(o.get_attrs().at(op::attr::direction));
        return dir == "LEFT" ? ew_fn::shift_left : ew_fn::shift_right;
    }
    if (def.fn == ew_fn::gelu_erf) {
        auto it = o.get_attrs().find(op::attr::mode);
        return it != o.get_attrs().end() && std::get<std::string>(it->second) == "gelu_tanh" ? ew_fn::gelu_tanh
                                                                                             : ew_fn::gelu_erf;
    }
    return def.fn;
}

data_type compute_type(data_type t) { return t == dt::f16 || t == dt::bf16 ? dt::f32 : t; }

node_params op_params(const op &o, data_type in) {
    const auto &attrs = o.get_attrs();
    auto attr = [&](op::attr a, float fallback) -> long double {
        auto it = attrs.find(a);
        return it == attrs.end() ? fallback : std::get<float>(it->second);
    };
    auto flag = [&](op::attr a) {
        auto it = attrs.find(a);
        return it == attrs.end() || std::get<int64_t>(it->second) == 1;
    };
    node_params p{compute_type(in), {}};
    switch (o.get_kind()) {
    case op::kind::LeakyReLU: p.values = {attr(op::attr::alpha, 0.01f)}; break;
    case op::kind::Elu: p.values = {attr(op::attr::alpha, 1.0f)}; break;
    case op::kind::Selu:
        p.values = {attr(op::attr::alpha, 1.67326319217681884765625f),
                    attr(op::attr::gamma, 1.05070102214813232421875f)};
        break;
    case op::kind::HardSigmoid: p.values = {attr(op::attr::alpha, 0.2f), attr(op::attr::beta, 0.5f)}; break;
    case op::kind::SoftPlus: p.values = {attr(op::attr::beta, 1.0f)}; break;
    case op::kind::IsInf:
        p.dt = dt::u8;
        p.values = {static_cast<long double>((flag(op::attr::detect_positive) ? 1 : 0) |
                                             (flag(op::attr::detect_negative) ? 2 : 0))};
        break;
    case op::kind::Clamp:
    case op::kind::Clip: { // bounds of the input's type; an absent one is no bound
        p.dt = in;
        const long double lo = is_float(in) ? -INFINITY : type_lowest(in),
                          hi = is_float(in) ? INFINITY : type_highest(in);
        const size_t given = o.get_inputs().size() - 1; // min, max given as inputs
        if (given == 0) p.values = {attr(op::attr::min, -INFINITY), attr(op::attr::max, INFINITY)};
        if (given == 0 && !is_float(in)) p.values = {lo, hi};
        if (given == 1) p.values = {hi};
        break;
    }
    default: break;
    }
    return p;
}

bool runs_op(const op &o) {
    const elementwise_def *def = find_elementwise(o.get_kind());
    const int n = static_cast<int>(o.get_inputs().size());
    if (!def || n < def->inputs_min || n > def->inputs_max) return false;
    // Storage-only types (f8, s4, ...) are never computed with: the op is the framework's.
    const auto stored = [](const logical_tensor &lt) { return is_storage_only(lt.get_data_type()); };
    return std::none_of(o.get_inputs().begin(), o.get_inputs().end(), stored) &&
           std::none_of(o.get_outputs().begin(), o.get_outputs().end(), stored);
}

type_set type_bit(data_type t) { return type_set{1} << dtype_index(t); }

broadcast_rule read_broadcast_rule(const op &o) {
    broadcast_rule r;
    const auto &attrs = o.get_attrs();
    if (auto it = attrs.find(op::attr::broadcast); it != attrs.end()) {
        r.k = std::get<int64_t>(it->second) ? broadcast_rule::kind::legacy_unidirectional
                                            : broadcast_rule::kind::legacy_equal;
        if (auto ax = attrs.find(op::attr::axis); ax != attrs.end()) r.axis = std::get<int64_t>(ax->second);
    } else if (auto ab = attrs.find(op::attr::auto_broadcast); ab != attrs.end()) {
        r.k = std::get<std::string>(ab->second) == "none" ? broadcast_rule::kind::none : broadcast_rule::kind::numpy;
    }
    return r;
}

void check_elementwise_attributes(const op &o, const elementwise_def &def) {
    const auto &attrs = o.get_attrs();
    for (const auto &[a, value] : attrs) {
        switch (a) {
        case op::attr::auto_broadcast: expect_one_of(o, a, "numpy", "none"); continue;
        case op::attr::broadcast:
            if (!def.legacy_broadcast) break;
            expect_flag(o, a);
            continue;
        case op::attr::axis:
            if (!def.legacy_broadcast) break;
            attr_as<int64_t>(o, a, "an integer");
            continue;
        case op::attr::direction:
            if (!def.has_attr(a)) break;
            expect_one_of(o, a, "LEFT", "RIGHT");
            continue;
        case op::attr::fmod:
            if (!def.has_attr(a)) break;
            expect_flag(o, a);
            continue;
        case op::attr::data_format:
            if (!def.has_attr(a)) break;
            expect_one_of(o, a, "NXC", "NCX");
            continue;
        case op::attr::per_channel_broadcast:
            if (!def.has_attr(a)) break;
            attr_as<bool>(o, a, "a boolean");
            continue;
        case op::attr::beta:
            if (!def.has_attr(a)) break;
            attr_as<float>(o, a, "a float");
            if (def.kind == op::kind::Pow && o.get_inputs().size() != 1)
                fail(status::invalid_arguments, op_ref(o), ": beta is the exponent of a one-input Pow; with an",
                     " exponent tensor it cannot be set");
            continue;
        case op::attr::alpha:
        case op::attr::gamma:
            if (!def.has_attr(a)) break;
            attr_as<float>(o, a, "a float");
            continue;
        case op::attr::min:
        case op::attr::max:
            if (!def.has_attr(a)) break;
            if (std::isnan(attr_as<float>(o, a, "a float")))
                fail(status::invalid_arguments, op_ref(o), ": ", attr_name(a), " is NaN");
            if (o.get_inputs().size() != 1)
                fail(status::invalid_arguments, op_ref(o), ": ", attr_name(a),
                     " cannot be set as an attribute when min/max are inputs (Clip-11 and later)");
            continue;
        case op::attr::mode:
            if (!def.has_attr(a)) break;
            expect_one_of(o, a, "gelu_erf", "gelu_tanh");
            continue;
        case op::attr::detect_positive:
        case op::attr::detect_negative:
            if (!def.has_attr(a)) break;
            expect_flag(o, a);
            continue;
        case op::attr::consumed_inputs:
            if (!def.consumed_inputs)
                fail(status::invalid_arguments, op_ref(o), ": consumed_inputs (ONNX opset 1) is not an attribute of ",
                     op_kind_name(o.get_kind()));
            attr_as<std::vector<int64_t>>(o, a, "a list of integers");
            continue;
        default: break;
        }
        fail(status::invalid_arguments, op_ref(o), ": unknown attribute ",
             find_attr(a) ? attr_name(a) : std::to_string(static_cast<int>(a)).c_str(), " for ",
             op_kind_name(o.get_kind()));
    }
    if (def.kind == op::kind::Clamp && (!attrs.count(op::attr::min) || !attrs.count(op::attr::max)))
        fail(status::invalid_arguments, op_ref(o), ": Clamp needs both min and max");
    if (def.kind == op::kind::Pow && o.get_inputs().size() == 1 && !attrs.count(op::attr::beta))
        fail(status::invalid_arguments, op_ref(o), ": a one-input Pow needs its exponent, beta");
    if (def.has_attr(op::attr::direction) && !attrs.count(op::attr::direction))
        fail(status::invalid_arguments, op_ref(o), ": direction (\"LEFT\" or \"RIGHT\") is required");
    if (attrs.count(op::attr::auto_broadcast) && attrs.count(op::attr::broadcast))
        fail(status::invalid_arguments, op_ref(o),
             ": auto_broadcast and the legacy broadcast attribute cannot both be set");
    if (attrs.count(op::attr::axis) && read_broadcast_rule(o).k != broadcast_rule::kind::legacy_unidirectional)
        fail(status::invalid_arguments, op_ref(o), ": axis requires broadcast=1");
}

data_type infer_output_type(const op &o, const std::vector<data_type> &in) {
    const elementwise_def *def = find_elementwise(o.get_kind());
    if (!def) fail(status::unimplemented, op_ref(o), ": fusebox does not run ", op_kind_name(o.get_kind()));
    if (std::find(in.begin(), in.end(), dt::undef) != in.end()) return dt::undef; // inferred later
    auto unsupported = [&]() -> data_type {
        fail(status::invalid_data_type, op_ref(o), ": input types (", types_text(in), ") are not supported");
    };
    if (def->rule == type_rule::select) {
        if (in[0] != dt::boolean || in[1] != in[2] || !(def->types & type_bit(in[1]))) return unsupported();
        return in[1];
    }
    if (def->rule == type_rule::cast) { // the target type is the declared output type
        const data_type to = o.get_outputs().empty() ? dt::undef : o.get_outputs()[0].get_data_type();
        if (to == dt::undef)
            fail(status::invalid_data_type, op_ref(o),
                 ": the output's data type is the type to cast to and must be given");
        if (!(def->types & type_bit(in[0])) || !(def->types & type_bit(to)))
            fail(status::invalid_data_type, op_ref(o), ": cannot cast ", data_type_name(in[0]), " to ",
                 data_type_name(to));
        return to;
    }
    if (def->rule == type_rule::exponent) { // the exponent (if a tensor) of any numeric type
        const type_set numeric = floats() | integers();
        if (!(def->types & type_bit(in[0])) || (in.size() > 1 && !(numeric & type_bit(in[1])))) return unsupported();
        return in[0];
    }
    const bool same = std::all_of(in.begin(), in.end(), [&](data_type t) { return t == in[0]; });
    if (!same) {
        // oneDNN Graph's mixed-precision rows: f32 with bf16 or f16, either order, give f32.
        auto low = [](dt t) { return t == dt::bf16 || t == dt::f16; };
        if (def->mixed_f32 && in.size() == 2 && ((in[0] == dt::f32 && low(in[1])) || (in[1] == dt::f32 && low(in[0]))))
            return dt::f32;
        return unsupported();
    }
    if (!(def->types & type_bit(in[0]))) return unsupported();
    if (def->kind == op::kind::Mod && is_float(in[0]) && kernel_fn(o) != ew_fn::fmod)
        fail(status::invalid_arguments, op_ref(o), ": Mod of ", data_type_name(in[0]),
             " needs fmod=1 (ONNX: the sign-of-the-divisor form is for integers)");
    if (def->kind == op::kind::Clip && !is_float(in[0]) &&
        (o.get_attrs().count(op::attr::min) || o.get_attrs().count(op::attr::max)))
        fail(status::invalid_arguments, op_ref(o), ": min/max attributes (Clip-6) are for float inputs; Clip of ",
             data_type_name(in[0]), " takes min/max as inputs");
    return def->rule == type_rule::same_to_bool ? dt::boolean : in[0];
}

dims infer_output_shape(const op &o, const std::vector<dims> &in) {
    const broadcast_rule r = read_broadcast_rule(o);
    auto incompatible = [&](const auto &...why) {
        fail(status::invalid_shape, op_ref(o), ": input shapes ", shapes_text(in), " ", why...);
    };
    auto same_dim = [](int64_t x, int64_t y) { return x == y || x < 0 || y < 0; };
    const dims &a = in[0];
    // Clip's min/max inputs hold one element whatever the broadcast rule says.
    if (find_elementwise(o.get_kind())->shapes == shape_rule::scalars) {
        for (size_t k = 1; k < in.size(); ++k)
            if (!std::all_of(in[k].begin(), in[k].end(), [](int64_t v) { return v == 1 || v < 0; }))
                incompatible("do not fit: ", k == 1 ? "min" : "max", " must hold one element, its shape is ",
                             shape_str(in[k]));
        return a;
    }
    switch (r.k) {
    case broadcast_rule::kind::none:
    case broadcast_rule::kind::legacy_equal: {
        const char *rule = r.k == broadcast_rule::kind::none ? "auto_broadcast is \"none\"" : "broadcast is 0";
        dims out = a;
        for (size_t k = 1; k < in.size(); ++k) {
            const dims &b = in[k];
            if (a.size() != b.size()) incompatible("differ in rank (", a.size(), " and ", b.size(), ") and ", rule);
            for (size_t i = 0; i < a.size(); ++i) {
                if (!same_dim(out[i], b[i]))
                    incompatible("differ at dim ", i, " (", out[i], " and ", b[i], ") and ", rule);
                if (out[i] < 0) out[i] = b[i];
            }
        }
        return out;
    }
    case broadcast_rule::kind::legacy_unidirectional: {
        const dims &b = in[1];
        if (numel_is_one(b)) return a;
        int64_t rank_a = static_cast<int64_t>(a.size()), rank_b = static_cast<int64_t>(b.size());
        int64_t axis = r.axis.value_or(rank_a - rank_b);
        if (axis < 0 && r.axis) axis += rank_a;
        if (rank_b > rank_a)
            incompatible("do not satisfy the legacy broadcast rule: B has rank ", rank_b, ", more than A's ", rank_a);
        if (axis < 0 || axis > rank_a - rank_b) // (axis + rank_b could overflow)
            incompatible("do not satisfy the legacy broadcast rule: axis ", *r.axis, " leaves no room for B's ", rank_b,
                         " dims in A's ", rank_a);
        for (int64_t i = 0; i < rank_b; ++i)
            if (!same_dim(a[axis + i], b[i]))
                incompatible("do not satisfy the legacy broadcast rule: B's dim ", i, " (", b[i],
                             ") must equal A's dim ", axis + i, " (", a[axis + i], ")");
        return a;
    }
    case broadcast_rule::kind::numpy: {
        // `from` broadcasts one way to `to`: the result is `to`.
        auto one_way = [&](const dims &from, const dims &to, const char *what, const char *onto) {
            if (numpy_shape(o, {to, from}) != to)
                incompatible("do not broadcast: ", what, " ", shape_str(from), " must broadcast to ", onto, " ",
                             shape_str(to));
            return to;
        };
        const shape_rule rule = find_elementwise(o.get_kind())->shapes;
        switch (rule) {
        case shape_rule::numpy: return numpy_shape(o, in);
        case shape_rule::scalars: return a; // (checked above)
        case shape_rule::condition_one_way:
            return one_way(in[0], numpy_shape(o, {in[1], in[2]}), "the condition", "the values' shape");
        case shape_rule::channel:
        case shape_rule::slope: {
            const dims &b = in[1];
            if (b.size() == 1 && per_channel(o)) { // along the channel dim
                if (a.empty()) incompatible("do not line up: the input has no channel dim");
                const int c = channel_dim(o, a.size());
                if (c >= static_cast<int>(a.size()))
                    incompatible("do not line up: data_format NCX needs an input of rank 2 or more");
                if (!same_dim(b[0], a[c]) && !(b[0] == 1 && rule == shape_rule::slope))
                    incompatible("do not line up: ", b[0], " values for the channel dim ", c, " of extent ", a[c]);
                return a;
            }
            if (rule == shape_rule::channel)
                incompatible("do not line up: the bias must be 1-D, of the channel dim's extent");
            return one_way(b, a, "the slope", "the input's shape");
        }
        }
        return numpy_shape(o, in);
    }
    }
    return a;
}

std::vector<int> input_dim_map(const op &o, size_t input, const dims &shape, size_t out_rank) {
    const broadcast_rule r = read_broadcast_rule(o);
    const int rank = static_cast<int>(shape.size());
    std::vector<int> map(rank, -1);
    int first = static_cast<int>(out_rank) - rank; // right-aligned (numpy, equal shapes)
    if (input == 1 && r.k == broadcast_rule::kind::legacy_unidirectional) {
        if (numel_is_one(shape)) return map; // every dim has extent 1
        first = r.axis ? static_cast<int>(*r.axis < 0 ? *r.axis + static_cast<int64_t>(out_rank) : *r.axis) : first;
    }
    const shape_rule rule = find_elementwise(o.get_kind())->shapes;
    if (input == 1 && rank == 1 && (rule == shape_rule::channel || rule == shape_rule::slope) && per_channel(o))
        first = channel_dim(o, out_rank);
    for (int i = 0; i < rank; ++i) map[i] = first + i;
    return map;
}

} // namespace fusebox::detail
