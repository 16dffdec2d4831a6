#include "interface/op_registry.hpp"

#include "common/errors.hpp"
#include "ops/elementwise.hpp"

namespace fusebox {
namespace detail {
namespace {

constexpr int inf = kUnbounded;
using k = op::kind;

} // namespace

// Arity follows oneDNN Graph's op schemas; where releases differ the widest
// range is kept (a framework written for any release ports), and optional
// counts given as sets in oneDNN are checked as ranges.
const std::vector<op_kind_info> &op_kinds() {
    static const std::vector<op_kind_info> table = {
        {k::Abs, "Abs", 1, 1, 1, 1},
        {k::AbsBackward, "AbsBackward", 2, 2, 1, 1},
        {k::Add, "Add", 2, 2, 1, 1},
        {k::AvgPool, "AvgPool", 1, 1, 1, 1},
        {k::AvgPoolBackward, "AvgPoolBackward", 1, 2, 1, 1},
        {k::BatchNormForwardTraining, "BatchNormForwardTraining", 3, 5, 5, 5},
        {k::BatchNormInference, "BatchNormInference", 5, 5, 1, 1},
        {k::BatchNormTrainingBackward, "BatchNormTrainingBackward", 4, 5, 1, 3},
        {k::BiasAdd, "BiasAdd", 2, 2, 1, 1},
        {k::BiasAddBackward, "BiasAddBackward", 1, 1, 1, 1},
        {k::Clamp, "Clamp", 1, 1, 1, 1},
        {k::ClampBackward, "ClampBackward", 2, 2, 1, 1},
        {k::Concat, "Concat", 1, 64, 1, 1},
        {k::Convolution, "Convolution", 2, 3, 1, 1},
        {k::ConvolutionBackwardData, "ConvolutionBackwardData", 2, 3, 1, 1},
        {k::ConvolutionBackwardWeights, "ConvolutionBackwardWeights", 2, 3, 1, 1},
        {k::ConvTranspose, "ConvTranspose", 2, 3, 1, 1},
        {k::ConvTransposeBackwardData, "ConvTransposeBackwardData", 2, 2, 1, 1},
        {k::ConvTransposeBackwardWeights, "ConvTransposeBackwardWeights", 2, 3, 1, 1},
        {k::Dequantize, "Dequantize", 1, 1, 1, 1},
        {k::Divide, "Divide", 2, 2, 1, 1},
        {k::DynamicDequantize, "DynamicDequantize", 2, 3, 1, 1},
        {k::DynamicQuantize, "DynamicQuantize", 2, 3, 1, 1},
        {k::Elu, "Elu", 1, 1, 1, 1},
        {k::EluBackward, "EluBackward", 2, 2, 1, 1},
        {k::End, "End", 1, 1, 0, 0},
        {k::Equal, "Equal", 2, 2, 1, 1},
        {k::Exp, "Exp", 1, 1, 1, 1},
        {k::GELU, "GELU", 1, 1, 1, 1},
        {k::GELUBackward, "GELUBackward", 2, 2, 1, 1},
        {k::GenIndex, "GenIndex", 1, 1, 1, 1},
        {k::GreaterEqual, "GreaterEqual", 2, 2, 1, 1},
        {k::GroupNorm, "GroupNorm", 1, 3, 1, 3},
        {k::HardSigmoid, "HardSigmoid", 1, 1, 1, 1},
        {k::HardSigmoidBackward, "HardSigmoidBackward", 2, 2, 1, 1},
        {k::HardSwish, "HardSwish", 1, 1, 1, 1},
        {k::HardSwishBackward, "HardSwishBackward", 2, 2, 1, 1},
        {k::Interpolate, "Interpolate", 1, 2, 1, 1},
        {k::InterpolateBackward, "InterpolateBackward", 2, 3, 1, 1},
        {k::LayerNorm, "LayerNorm", 1, 3, 1, 3},
        {k::LayerNormBackward, "LayerNormBackward", 4, 6, 1, 3},
        {k::LeakyReLU, "LeakyReLU", 1, 1, 1, 1},
        {k::Log, "Log", 1, 1, 1, 1},
        {k::LogSoftmax, "LogSoftmax", 1, 1, 1, 1},
        {k::LogSoftmaxBackward, "LogSoftmaxBackward", 2, 2, 1, 1},
        {k::MatMul, "MatMul", 2, 3, 1, 1},
        {k::Maximum, "Maximum", 1, inf, 1, 1}, // 2 in oneDNN; ONNX Max is variadic
        {k::MaxPool, "MaxPool", 1, 1, 1, 1},
        {k::MaxPoolBackward, "MaxPoolBackward", 2, 2, 1, 1},
        {k::Minimum, "Minimum", 1, inf, 1, 1}, // 2 in oneDNN; ONNX Min is variadic
        {k::Mish, "Mish", 1, 1, 1, 1},
        {k::MishBackward, "MishBackward", 2, 2, 1, 1},
        {k::Multiply, "Multiply", 2, 2, 1, 1},
        {k::Pow, "Pow", 1, 2, 1, 1}, // oneDNN: x and `beta`; ONNX: x and an exponent tensor
        {k::PReLU, "PReLU", 2, 2, 1, 1},
        {k::PReLUBackward, "PReLUBackward", 3, 3, 2, 2},
        {k::Quantize, "Quantize", 1, 1, 1, 1},
        {k::Reciprocal, "Reciprocal", 1, 1, 1, 1},
        {k::ReduceL1, "ReduceL1", 1, 2, 1, 1},
        {k::ReduceL2, "ReduceL2", 1, 2, 1, 1},
        {k::ReduceMax, "ReduceMax", 1, 2, 1, 1},
        {k::ReduceMean, "ReduceMean", 1, 2, 1, 1},
        {k::ReduceMin, "ReduceMin", 1, 2, 1, 1},
        {k::ReduceProd, "ReduceProd", 1, 2, 1, 1},
        {k::ReduceSum, "ReduceSum", 1, 2, 1, 1},
        {k::ReLU, "ReLU", 1, 1, 1, 1},
        {k::ReLUBackward, "ReLUBackward", 2, 2, 1, 1},
        {k::Reorder, "Reorder", 1, 1, 1, 1},
        {k::RMSNorm, "RMSNorm", 1, 2, 1, 2},
        {k::Round, "Round", 1, 1, 1, 1},
        {k::Select, "Select", 3, 3, 1, 1},
        {k::Sigmoid, "Sigmoid", 1, 1, 1, 1},
        {k::SigmoidBackward, "SigmoidBackward", 2, 2, 1, 1},
        {k::SoftMax, "SoftMax", 1, 1, 1, 2},
        {k::SoftMaxBackward, "SoftMaxBackward", 2, 2, 1, 1},
        {k::SoftPlus, "SoftPlus", 1, 1, 1, 1},
        {k::SoftPlusBackward, "SoftPlusBackward", 2, 2, 1, 1},
        {k::Sqrt, "Sqrt", 1, 1, 1, 1},
        {k::SqrtBackward, "SqrtBackward", 2, 2, 1, 1},
        {k::Square, "Square", 1, 1, 1, 1},
        {k::SquaredDifference, "SquaredDifference", 2, 2, 1, 1},
        {k::StaticReshape, "StaticReshape", 1, 1, 1, 1},
        {k::StaticTranspose, "StaticTranspose", 1, 1, 1, 1},
        {k::Subtract, "Subtract", 2, 2, 1, 1},
        {k::Tanh, "Tanh", 1, 1, 1, 1},
        {k::TanhBackward, "TanhBackward", 2, 2, 1, 1},
        {k::TypeCast, "TypeCast", 1, 1, 1, 1},
        {k::Wildcard, "Wildcard", 0, inf, 0, inf},
        {k::Dropout, "Dropout", 4, 4, 1, 2},
        // fusebox's own kinds (ONNX ops), after Equal
        {k::Mod, "Mod", 2, 2, 1, 1},
        {k::Sum, "Sum", 1, inf, 1, 1},
        {k::Mean, "Mean", 1, inf, 1, 1},
        {k::Greater, "Greater", 2, 2, 1, 1},
        {k::Less, "Less", 2, 2, 1, 1},
        {k::LessEqual, "LessEqual", 2, 2, 1, 1},
        {k::LogicalAnd, "LogicalAnd", 2, 2, 1, 1},
        {k::LogicalOr, "LogicalOr", 2, 2, 1, 1},
        {k::LogicalXor, "LogicalXor", 2, 2, 1, 1},
        {k::LogicalNot, "LogicalNot", 1, 1, 1, 1},
        {k::BitwiseAnd, "BitwiseAnd", 2, 2, 1, 1},
        {k::BitwiseOr, "BitwiseOr", 2, 2, 1, 1},
        {k::BitwiseXor, "BitwiseXor", 2, 2, 1, 1},
        {k::BitwiseNot, "BitwiseNot", 1, 1, 1, 1},
        {k::BitShift, "BitShift", 2, 2, 1, 1},
        {k::Where, "Where", 3, 3, 1, 1},
        {k::Neg, "Neg", 1, 1, 1, 1},
        {k::Sign, "Sign", 1, 1, 1, 1},
        {k::Floor, "Floor", 1, 1, 1, 1},
        {k::Ceil, "Ceil", 1, 1, 1, 1},
        {k::Erf, "Erf", 1, 1, 1, 1},
        {k::IsNaN, "IsNaN", 1, 1, 1, 1},
        {k::IsInf, "IsInf", 1, 1, 1, 1},
        {k::Softsign, "Softsign", 1, 1, 1, 1},
        {k::Selu, "Selu", 1, 1, 1, 1},
        {k::Clip, "Clip", 1, 3, 1, 1},
        {k::Cast, "Cast", 1, 1, 1, 1},
    };
    return table;
}

const std::vector<attr_info> &attrs() {
    using a = op::attr;
    using t = attr_type;
    static const std::vector<attr_info> table = {
        {a::alpha, "alpha", t::f32},
        {a::beta, "beta", t::f32},
        {a::epsilon, "epsilon", t::f32},
        {a::max, "max", t::f32},
        {a::min, "min", t::f32},
        {a::momentum, "momentum", t::f32},
        {a::scales, "scales", t::f32s},
        {a::axis, "axis", t::s64},
        {a::begin_norm_axis, "begin_norm_axis", t::s64},
        {a::groups, "groups", t::s64},
        {a::axes, "axes", t::s64s},
        {a::dilations, "dilations", t::s64s},
        {a::dst_shape, "dst_shape", t::s64s},
        {a::kernel, "kernel", t::s64s},
        {a::order, "order", t::s64s},
        {a::output_padding, "output_padding", t::s64s},
        {a::pads_begin, "pads_begin", t::s64s},
        {a::pads_end, "pads_end", t::s64s},
        {a::shape, "shape", t::s64s},
        {a::sizes, "sizes", t::s64s},
        {a::src_shape, "src_shape", t::s64s},
        {a::strides, "strides", t::s64s},
        {a::weights_shape, "weights_shape", t::s64s},
        {a::zps, "zps", t::s64s},
        {a::group_shape, "group_shape", t::s64s},
        {a::exclude_pad, "exclude_pad", t::boolean},
        {a::keep_dims, "keep_dims", t::boolean},
        {a::keep_stats, "keep_stats", t::boolean},
        {a::per_channel_broadcast, "per_channel_broadcast", t::boolean},
        {a::special_zero, "special_zero", t::boolean},
        {a::transpose_a, "transpose_a", t::boolean},
        {a::transpose_b, "transpose_b", t::boolean},
        {a::use_affine, "use_affine", t::boolean},
        {a::use_dst, "use_dst", t::boolean},
        {a::auto_broadcast, "auto_broadcast", t::string},
        {a::auto_pad, "auto_pad", t::string},
        {a::coordinate_transformation_mode, "coordinate_transformation_mode", t::string},
        {a::data_format, "data_format", t::string},
        {a::mode, "mode", t::string},
        {a::qtype, "qtype", t::string},
        {a::rounding_type, "rounding_type", t::string},
        {a::weights_format, "weights_format", t::string},
        {a::accumulation_mode, "accumulation_mode", t::string},
        {a::broadcast, "broadcast", t::s64},
        {a::consumed_inputs, "consumed_inputs", t::s64s},
        {a::fmod, "fmod", t::s64},
        {a::direction, "direction", t::string},
        {a::detect_positive, "detect_positive", t::s64},
        {a::detect_negative, "detect_negative", t::s64},
        {a::gamma, "gamma", t::f32},
    };
    return table;
}

const op_kind_info *find_kind(op::kind kind) {
    for (const auto &row : op_kinds())
        if (row.kind == kind) return &row;
    return nullptr;
}

const attr_info *find_attr(op::attr a) {
    for (const auto &row : attrs())
        if (row.attr == a) return &row;
    return nullptr;
}

const char *attr_type_name(attr_type t) {
    switch (t) {
    case attr_type::f32: return "f32";
    case attr_type::f32s: return "f32[]";
    case attr_type::s64: return "s64";
    case attr_type::s64s: return "s64[]";
    case attr_type::boolean: return "bool";
    case attr_type::string: return "string";
    }
    return "?";
}

attr_type type_of(const op::attr_value &v) {
    static constexpr attr_type by_index[] = {attr_type::string, attr_type::s64,  attr_type::s64s,
                                             attr_type::f32,    attr_type::f32s, attr_type::boolean};
    return by_index[v.index()];
}

} // namespace detail

const char *op_kind_name(op::kind k) {
    const auto *row = detail::find_kind(k);
    return row ? row->name : "unknown";
}

op::kind op_kind_from_name(const std::string &name) {
    for (const auto &row : detail::op_kinds())
        if (name == row.name) return row.kind;
    detail::fail(status::invalid_arguments, "unknown op kind \"", name, "\"");
}

bool is_kind_supported(op::kind k) { return detail::find_elementwise(k) != nullptr; }

const char *attr_name(op::attr a) {
    const auto *row = detail::find_attr(a);
    return row ? row->name : "unknown";
}

op::attr attr_from_name(const std::string &name) {
    for (const auto &row : detail::attrs())
        if (name == row.name) return row.attr;
    detail::fail(status::invalid_arguments, "unknown attribute \"", name, "\"");
}

} // namespace fusebox
