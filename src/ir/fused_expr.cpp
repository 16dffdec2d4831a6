#include "ir/fused_expr.hpp"

#include <numeric>
#include <sstream>

#include "common/checked.hpp"
#include "common/errors.hpp"

namespace fusebox::detail {

// Compile rejects outputs whose elements cannot be addressed, so a canonical
// shape's product fits (a zero-size shape is 0 whatever its other dims).
int64_t fused_expr::numel() const { return checked_numel(shape).value_or(INT64_MAX); }

std::string fused_expr::to_string() const {
    std::ostringstream os;
    auto arg = [&](int a) { return a >= 0 ? "x" + std::to_string(a) : "n" + std::to_string(~a); };
    for (size_t i = 0; i < nodes.size(); ++i) {
        const auto &n = nodes[i];
        os << (i ? " " : "") << "n" << i << "=" << op_kind_name(n.kind) << "(" << data_type_name(n.in_dt[0]) << " "
           << arg(n.arg[0]) << "," << data_type_name(n.in_dt[1]) << " " << arg(n.arg[1]) << ")->"
           << data_type_name(n.out_dt);
    }
    os << " shape=" << shape_str(shape);
    for (size_t k = 0; k < operands.size(); ++k) os << " x" << k << ":" << shape_str(operands[k].strides);
    os << " out:" << shape_str(out_strides);
    return os.str();
}

} // namespace fusebox::detail
