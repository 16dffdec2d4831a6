#include "interface/op_schema.hpp"

#include <algorithm>
#include <numeric>

#include "common/errors.hpp"
#include "interface/dtype.hpp"
#include "interface/op_registry.hpp"

namespace fusebox::detail {
namespace {

template <typename T> const T &attr_as(const op &o, op::attr a, const char *type_name) {
    const auto &v = o.get_attrs().at(a);
    if (!std::holds_alternative<T>(v))
        fail(status::invalid_arguments, op_ref(o), ": attribute ", attr_name(a), " must be ", type_name);
    return std::get<T>(v);
}

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

bool numel_is_one(const dims &d) {
    return std::all_of(d.begin(), d.end(), [](int64_t v) { return v == 1; });
}

// Add and Equal: the attributes of their ONNX and oneDNN Graph versions.
void check_binary_attributes(const op &o) {
    const char *kind = op_kind_name(o.get_kind());
    const auto &attrs = o.get_attrs();
    for (const auto &[a, value] : attrs) {
        switch (a) {
        case op::attr::auto_broadcast: {
            const auto &s = attr_as<std::string>(o, a, "a string");
            if (s != "numpy" && s != "none")
                fail(status::invalid_arguments, op_ref(o), ": auto_broadcast must be \"numpy\" or \"none\", got \"", s,
                     "\"");
            break;
        }
        case op::attr::broadcast: {
            int64_t b = attr_as<int64_t>(o, a, "an integer");
            if (b != 0 && b != 1) fail(status::invalid_arguments, op_ref(o), ": broadcast must be 0 or 1, got ", b);
            break;
        }
        case op::attr::axis: attr_as<int64_t>(o, a, "an integer"); break;
        case op::attr::consumed_inputs:
            if (o.get_kind() != op::kind::Add)
                fail(status::invalid_arguments, op_ref(o), ": consumed_inputs is an attribute of Add-1 only");
            attr_as<std::vector<int64_t>>(o, a, "a list of integers");
            break;
        default:
            fail(status::invalid_arguments, op_ref(o), ": unknown attribute ",
                 find_attr(a) ? attr_name(a) : std::to_string(static_cast<int>(a)).c_str(), " for ", kind);
        }
    }
    if (attrs.count(op::attr::auto_broadcast) && attrs.count(op::attr::broadcast))
        fail(status::invalid_arguments, op_ref(o),
             ": auto_broadcast and the legacy broadcast attribute cannot both be set");
    if (attrs.count(op::attr::axis) && read_broadcast_rule(o).k != broadcast_rule::kind::legacy_unidirectional)
        fail(status::invalid_arguments, op_ref(o), ": axis requires broadcast=1");
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
    if (!info->runs) return check_attribute_types(o);
    check_binary_attributes(o);
    validate_binary_types(o);
}

void validate_binary_types(const op &o) {
    const data_type a = o.get_inputs()[0].get_data_type(), b = o.get_inputs()[1].get_data_type();
    const data_type out = o.get_outputs()[0].get_data_type();
    if (a == data_type::undef || b == data_type::undef) return; // inferred later
    const data_type expected = binary_output_type(o.get_kind(), a, b);
    if (expected == data_type::undef)
        fail(status::invalid_data_type, op_ref(o), ": input types (", data_type_name(a), ", ", data_type_name(b),
             ") are not supported");
    if (out != data_type::undef && out != expected)
        fail(status::invalid_data_type, op_ref(o), ": output type ", data_type_name(out), " does not match ",
             data_type_name(expected), " for inputs (", data_type_name(a), ", ", data_type_name(b), ")");
}

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

data_type binary_output_type(op::kind k, data_type a, data_type b) {
    using dt = data_type;
    if (k == op::kind::Equal) return a == b && a != dt::undef ? dt::boolean : dt::undef;
    if (k != op::kind::Add) return dt::undef;
    if (a == b) return (is_float(a) || is_integer(a)) ? a : dt::undef;
    // oneDNN Graph's mixed-precision rows: f32 with bf16 or f16, either order, give f32.
    auto low = [](dt t) { return t == dt::bf16 || t == dt::f16; };
    if ((a == dt::f32 && low(b)) || (b == dt::f32 && low(a))) return dt::f32;
    return dt::undef;
}

dims infer_binary_shape(const op &o, const broadcast_rule &r, const dims &a, const dims &b) {
    auto incompatible = [&](const auto &...why) {
        fail(status::invalid_shape, op_ref(o), ": input shapes ", shape_str(a), " and ", shape_str(b), " ", why...);
    };
    auto same_dim = [](int64_t x, int64_t y) { return x == y || x < 0 || y < 0; };
    switch (r.k) {
    case broadcast_rule::kind::none:
    case broadcast_rule::kind::legacy_equal: {
        const char *rule = r.k == broadcast_rule::kind::none ? "auto_broadcast is \"none\"" : "broadcast is 0";
        if (a.size() != b.size()) incompatible("differ in rank (", a.size(), " and ", b.size(), ") and ", rule);
        for (size_t i = 0; i < a.size(); ++i)
            if (!same_dim(a[i], b[i])) incompatible("differ at dim ", i, " (", a[i], " and ", b[i], ") and ", rule);
        dims out = a;
        for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] < 0 ? b[i] : a[i];
        return out;
    }
    case broadcast_rule::kind::legacy_unidirectional: {
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
        const size_t rank = std::max(a.size(), b.size());
        dims out(rank);
        for (size_t i = 0; i < rank; ++i) {
            int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
            int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
            if (x == 1)
                out[i] = y;
            else if (y == 1)
                out[i] = x;
            else if (x < 0)
                out[i] = y; // unknown vs n: must be n (or 1)
            else if (y < 0 || x == y)
                out[i] = x;
            else
                incompatible("are not broadcast-compatible: at output dim ", i, " input 0 has ", x, " and input 1 has ",
                             y, " (each must be equal or 1)");
        }
        return out;
    }
    }
    return a;
}

std::vector<int> operand_dim_map(const broadcast_rule &r, int input, const dims &operand, size_t out_rank) {
    const int rank = static_cast<int>(operand.size());
    std::vector<int> map(rank, -1);
    int first = static_cast<int>(out_rank) - rank; // right-aligned (numpy, equal shapes)
    if (input == 1 && r.k == broadcast_rule::kind::legacy_unidirectional) {
        if (numel_is_one(operand)) return map; // every dim has extent 1
        first = r.axis ? static_cast<int>(*r.axis < 0 ? *r.axis + static_cast<int64_t>(out_rank) : *r.axis) : first;
    }
    for (int i = 0; i < rank; ++i) map[i] = first + i;
    return map;
}

} // namespace fusebox::detail
