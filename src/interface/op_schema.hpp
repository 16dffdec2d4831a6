// Op schemas: arity, attributes, type rules and shape inference for each op kind.
#pragma once

#include <optional>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

using dims = logical_tensor::dims;

/// How a binary op broadcasts, read from its attributes.
struct broadcast_rule {
    enum class kind { numpy, none, legacy_equal, legacy_unidirectional } k = kind::numpy;
    std::optional<int64_t> axis; // legacy_unidirectional only
};

/// Checks an op as add_op receives it: a known kind, the arity of its schema,
/// attribute types; for Add and Equal also attribute values and the input
/// types that are known. Throws error naming the op id.
void validate_op(const op &o);

/// The type rule of Add/Equal for the input and output types that are known.
void validate_binary_types(const op &o);

/// The broadcast rule of a validated Add/Equal.
broadcast_rule read_broadcast_rule(const op &o);

/// Output type of `k` for inputs (a, b), or undef if the combination is not supported.
data_type binary_output_type(op::kind k, data_type a, data_type b);

/// Output shape of a binary op with input shapes a and b (-1 = unknown dim).
/// Throws invalid_shape naming the op when the shapes do not broadcast.
dims infer_binary_shape(const op &o, const broadcast_rule &r, const dims &a, const dims &b);

/// For each dim of operand `input` (0 or 1) of a binary op whose output has
/// rank `out_rank`: the output dim it lines up with, or -1 where the operand
/// dim has extent 1 and lines up with no output dim (legacy one-element B).
std::vector<int> operand_dim_map(const broadcast_rule &r, int input, const dims &operand, size_t out_rank);

} // namespace fusebox::detail
