#include "common/errors.hpp"

#include "common/access.hpp"

namespace fusebox::detail {

std::string shape_str(const logical_tensor::dims &d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) {
        if (i) s += ",";
        s += d[i] < 0 ? "?" : std::to_string(d[i]);
    }
    return s + "]";
}

std::string shape_str(const logical_tensor &lt) {
    return lt.get_ndims() < 0 ? std::string("[?]") : shape_str(dims_of(lt));
}

std::string op_ref(const op &o) {
    std::string s = "op " + std::to_string(o.get_id()) + " (" + op_kind_name(o.get_kind());
    if (!o.get_name().empty()) s += " \"" + o.get_name() + "\"";
    return s + ")";
}

} // namespace fusebox::detail
