#include "interface/op_schema.hpp"

#include <algorithm>
#include <numeric>

#include "common/errors.hpp"
#include "interface/dtype.hpp"
#include "interface/op_registry.hpp"
#include "ops/elementwise.hpp"

namespace fusebox::detail {
namespace {

std::string count_text(int lo, int hi) {
    if (lo == hi) return std::to_string(lo);
    if (hi == kUnbounded) return "at least " + std::to_string(lo);
    return std::to_string(lo) + " to " + std::to_string(hi);
}

bool within(size_t n, int lo, int hi) {
    return static_cast<int64_t>(n) >= lo && (hi == kUnbounded || static_cast<int64_t>(n) <= hi);
}

void check_arity(const op &o, const op_kind_info &k) {
    const size_t n_in = o.get_inputs().size(), n_out = o.get_outputs().size();
    if (!within(n_in, k.inputs_min, k.inputs_max) || !within(n_out, k.outputs_min, k.outputs_max))
        fail(status::invalid_arguments, op_ref(o), ": expects ", count_text(k.inputs_min, k.inputs_max), " inputs and ",
             count_text(k.outputs_min, k.outputs_max), " outputs, got ", n_in, " and ", n_out);
}

// Every attribute must be one fusebox knows, holding a value of its type.
void check_attribute_types(const op &o) {
    for (const auto &[a, value] : o.get_attrs()) {
        const attr_info *info = find_attr(a);
        if (!info) fail(status::invalid_arguments, op_ref(o), ": unknown attribute ", static_cast<int>(a));
        if (type_of(value) != info->type)
            fail(status::invalid_arguments, op_ref(o), ": attribute ", info->name, " must be ",
                 attr_type_name(info->type), ", got ", attr_type_name(type_of(value)));
    }
}

} // namespace

void validate_op(const op &o) {
    const op_kind_info *info = find_kind(o.get_kind());
    if (!info) fail(status::unimplemented, op_ref(o), ": unknown op kind ", static_cast<int>(o.get_kind()));
    check_arity(o, *info);
    if (o.get_kind() == op::kind::End) {
        if (!o.get_attrs().empty()) fail(status::invalid_arguments, op_ref(o), ": takes no attributes");
        return;
    }
    const elementwise_def *def = runs_op(o) ? find_elementwise(o.get_kind()) : nullptr;
    if (!def) return check_attribute_types(o);
    check_elementwise_attributes(o, *def); // names and value types of its own attributes
    validate_types(o);
}

void validate_types(const op &o) {
    std::vector<data_type> in;
    for (const auto &lt : o.get_inputs()) in.push_back(lt.get_data_type());
    const data_type expected = infer_output_type(o, in), out = o.get_outputs()[0].get_data_type();
    if (expected != data_type::undef && out != data_type::undef && out != expected) {
        std::string types;
        for (size_t i = 0; i < in.size(); ++i) types += (i ? ", " : "") + std::string(data_type_name(in[i]));
        fail(status::invalid_data_type, op_ref(o), ": output type ", data_type_name(out), " does not match ",
             data_type_name(expected), " for inputs (", types, ")");
    }
}

} // namespace fusebox::detail
