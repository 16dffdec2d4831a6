// A graph case as read from oneDNN Graph's JSON serialization, and the
// rewrites benchdnn's knobs make to it (one alternative of each knob).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <fusebox/fusebox.hpp>

#include "text.hpp"

namespace fbbench {

using fusebox::data_type;
using dims = fusebox::logical_tensor::dims;

struct tensor_desc {
    size_t id = 0;
    data_type dt = data_type::undef;
    bool known_rank = false;
    dims shape, strides; // strides empty: dense (or not fixed yet)
    // The dim order (outermost first) of strides the case gave and a knob
    // then cleared by rewriting shapes: an output keeps its layout's order.
    std::vector<size_t> order;
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
    bool fpmath_applies_to_int = false;
    std::vector<op_desc> ops;

    /// The descriptor of the tensor op outputs name `id`, or nullptr.
    const tensor_desc *output_desc(size_t id) const;
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
/// Reads a case from JSON text; `name` stands for the file in messages.
graph_case load_case_text(const std::string &text, const std::string &name);

/// One alternative of each knob that rewrites a case; empty means "as in the
/// case" (benchdnn's empty entry).
struct case_knobs {
    std::string in_shapes; // ID:SHAPE[*TAG|*STRIDES][+...], ID:*TAG keeps the shape, ID:- is rank 0
    std::string op_attrs;  // ID:NAME:VALUE[*NAME:VALUE][+...]
    std::string op_kind;   // ID:KIND[+...]
    std::string dt;        // DT (every graph input) or ID:DT[+...]
    std::string fpmath;    // MODE[:true|false]
    int64_t mb = 0;        // batch of the graph inputs that carry it; 0: as in the case
    /// Rewrites `c`; throws case_error on malformed values, case_unimplemented
    /// for kinds and types fusebox does not have.
    void apply(graph_case &c) const;
};

/// "1x256x56x56" -> dims; "-" -> rank 0.
dims parse_dims(const std::string &text, const std::string &what);
/// --in-values' "ID:VALUE[+ID:VALUE...]" (finite numbers; a '+' inside one,
/// as in 1e+5, stays with it; "" none) -> (id, value text) pairs; throws
/// case_error.
std::vector<std::pair<size_t, std::string>> parse_in_values(const std::string &text);
/// Dense strides of `shape` in the dim order of `tag` ("acdb": a outermost, b innermost).
dims strides_from_tag(const dims &shape, const std::string &tag, const std::string &what);
/// The dim order of `strides`, outermost (largest stride) first; ties keep their logical order.
std::vector<size_t> dim_order(const dims &strides);
/// Dense strides of `shape` with its dims in `order` (outermost first); a
/// case_error naming `what` when they overflow.
dims dense_strides(const dims &shape, const std::vector<size_t> &order, const std::string &what);

} // namespace fbbench
