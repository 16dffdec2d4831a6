// A graph case as read from oneDNN Graph's JSON serialization, before and
// after the driver's knobs (--in-shapes, --op-attrs, --op-kind, --dt) apply.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fusebox/fusebox.hpp>

namespace fbbench {

using fusebox::data_type;
using dims = fusebox::logical_tensor::dims;

/// A case that cannot be run as given; `what()` names the file and JSON path.
struct case_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct tensor_desc {
    size_t id = 0;
    data_type dt = data_type::undef;
    bool known_rank = false;
    dims shape, strides; // strides empty: dense
    fusebox::logical_tensor::layout_type layout = fusebox::logical_tensor::layout_type::strided;
    fusebox::logical_tensor::property_type property = fusebox::logical_tensor::property_type::undef;
    fusebox::logical_tensor to_logical() const;
};

struct op_desc {
    size_t id = 0;
    std::string name, kind;
    std::map<std::string, fusebox::op::attr_value> attrs;
    std::vector<tensor_desc> inputs, outputs;
};

struct graph_case {
    std::string path;
    std::string engine_kind = "cpu", fpmath_mode = "strict";
    std::vector<op_desc> ops;

    /// Ids of tensors no op produces, in order of first use.
    std::vector<size_t> graph_inputs() const;
    /// The ops as fusebox ops; throws case_error for unknown kinds or attributes.
    std::vector<fusebox::op> to_ops() const;
    /// The case's fpmath mode; throws case_error for unknown names.
    fusebox::fpmath_mode math_mode() const;
    /// Builds the fusebox graph (not finalized).
    fusebox::graph build() const;
};

/// Reads a case file; throws case_error naming the file and JSON path.
graph_case load_case(const std::string &path);

/// The knobs that rewrite a case. Each setter validates its text and throws
/// case_error on malformed values.
struct case_knobs {
    std::string in_shapes, op_attrs, op_kind, dt;
    void apply(graph_case &c) const;
};

/// "1x256x56x56" -> dims; "-" -> rank 0.
dims parse_dims(const std::string &text, const std::string &what);

} // namespace fbbench
