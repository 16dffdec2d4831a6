#include "ir/fused_expr.hpp"

#include <cstdio>
#include <numeric>
#include <sstream>

#include "common/checked.hpp"
#include "common/errors.hpp"

namespace fusebox::detail {

// Compile rejects outputs whose elements cannot be addressed, so a canonical
// shape's product fits (a zero-size shape is 0 whatever its other dims).
int64_t fused_expr::numel() const { return checked_numel(shape).value_or(INT64_MAX); }

data_type fused_expr::operand_type(const operand &o) const {
    return is_constant(o) ? constants[o.port - inputs.size()].dt : inputs[o.port].get_data_type();
}

std::string fused_expr::to_string() const {
    auto join = [](const dims &d, char sep) {
        std::string s;
        for (size_t i = 0; i < d.size(); ++i) s += (i ? std::string(1, sep) : "") + std::to_string(d[i]);
        return s;
    };
    std::ostringstream os;
    os << "shape=" << join(shape, 'x') << " out=" << join(out_strides, 's');
    auto arg = [&](int a) {
        if (a < 0) return "n" + std::to_string(~a);
        const operand &o = operands[a];
        if (is_constant(o)) return "c" + std::to_string(o.port - inputs.size());
        return "in" + std::to_string(o.port) + ":" + join(o.strides, 's');
    };
    for (size_t i = 0; i < nodes.size(); ++i) {
        const auto &n = nodes[i];
        os << " n" << i << "=" << op_kind_name(n.kind) << "(";
        for (int k = 0; k < n.n_args; ++k) os << (k ? " " : "") << data_type_name(n.in_dt[k]) << " " << arg(n.arg[k]);
        os << ")->" << data_type_name(n.out_dt);
    }
    for (size_t k = 0; k < constants.size(); ++k) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(constants[k].bits));
        os << " c" << k << "=" << data_type_name(constants[k].dt) << ":0x" << hex;
    }
    return os.str();
}

} // namespace fusebox::detail
