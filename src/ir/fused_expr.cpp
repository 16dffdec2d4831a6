#include "ir/fused_expr.hpp"

#include <algorithm>
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
    for (size_t k = 0; k < sides.size(); ++k)
        os << " out" << k + 1 << "=n" << sides[k].node << ":" << join(sides[k].strides, 's');
    for (size_t k = 0; k < constants.size(); ++k) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(constants[k].bits));
        os << " c" << k << "=" << data_type_name(constants[k].dt) << ":0x" << hex;
    }
    return os.str();
}

int fused_expr::operand_index(operand use) {
    auto same = std::find_if(operands.begin(), operands.end(),
                             [&](const operand &x) { return x.port == use.port && x.strides == use.strides; });
    const int index = static_cast<int>(same - operands.begin());
    if (same == operands.end()) operands.push_back(std::move(use));
    return index;
}

// Drops size-1 dims, orders the rest by the output's strides (outermost
// first), merges dim i into i+1 wherever every stride vector allows, and
// finally moves the unit-stride dim of an operand read across the inner dim
// (a transposing operand) next to the inner dim, where kernels tile the two.
void fused_expr::merge_dims() {
    std::vector<dims *> all{&out_strides};
    for (auto &o : operands) all.push_back(&o.strides);
    for (auto &s : sides) all.push_back(&s.strides);
    if (numel() == 0) {
        shape = {0};
        for (dims *s : all) *s = {0};
        return;
    }
    std::vector<size_t> order;
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] != 1) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return out_strides[a] > out_strides[b]; });
    dims to;
    std::vector<dims> merged(all.size());
    for (size_t i : order) {
        bool can_merge = !to.empty();
        for (size_t k = 0; can_merge && k < all.size(); ++k)
            can_merge = checked_mul((*all[k])[i], shape[i]) == merged[k].back();
        if (can_merge) {
            to.back() *= shape[i];
            for (size_t k = 0; k < all.size(); ++k) merged[k].back() = (*all[k])[i];
        } else {
            to.push_back(shape[i]);
            for (size_t k = 0; k < all.size(); ++k) merged[k].push_back((*all[k])[i]);
        }
    }
    if (to.empty()) { // one element
        to = {1};
        for (auto &m : merged) m = {0};
    }
    const size_t inner = to.size() - 1;
    for (size_t k = 1; k <= operands.size() && inner > 0; ++k) {
        const dims &st = merged[k];
        if (st[inner] == 0 || st[inner] == 1) continue;
        auto unit = std::find(st.begin(), st.end() - 1, 1);
        if (unit == st.end() - 1) continue;
        const size_t t = static_cast<size_t>(unit - st.begin());
        std::rotate(to.begin() + t, to.begin() + t + 1, to.begin() + inner);
        for (auto &m : merged) std::rotate(m.begin() + t, m.begin() + t + 1, m.begin() + inner);
        break;
    }
    shape = to;
    for (size_t k = 0; k < all.size(); ++k) *all[k] = merged[k];
}

} // namespace fusebox::detail
