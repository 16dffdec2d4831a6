// One element loop of fusebox's kernel table, called directly: the op's loop
// for a type on one Highway target, with the op's constants (alpha, mode's
// function...) as the trailing stride-0 operands the compiler gives it. For
// the tools that look below the graph API (fusebox-accuracy, the kernel
// benchmarks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fusebox/fusebox.hpp>

#include "common/reference.hpp"
#include "kernels/native/binary_ops.hpp"
#include "ops/elementwise.hpp"

namespace fbtools {

struct loop_call {
    fusebox::detail::nary_fn fn = nullptr;
    std::vector<std::vector<unsigned char>> consts;
};

// A one-input op of `kind` over type t (GELU's `mode` if given).
inline fusebox::op unary_op(fusebox::op::kind kind, fusebox::data_type t, const char *mode = nullptr) {
    using fusebox::logical_tensor;
    fusebox::op o(1, kind, {logical_tensor(0, t, logical_tensor::dims{1})},
                  {logical_tensor(2, t, logical_tensor::dims{1})});
    if (mode) o.set_attr(fusebox::op::attr::mode, std::string(mode));
    return o;
}

inline loop_call loop_for(const fusebox::detail::element_ops &ops, const fusebox::op &o, fusebox::data_type t) {
    namespace detail = fusebox::detail;
    loop_call c;
    c.fn = ops.nary[static_cast<int>(detail::kernel_fn(o))][detail::dtype_index(t)];
    const auto *def = detail::find_elementwise(o.get_kind());
    if (def->lower == detail::lowering::with_params) {
        const detail::node_params p = detail::op_params(o, t);
        for (long double v : p.values) {
            std::vector<unsigned char> b(8, 0);
            fbref::ref_store_float(p.dt, b.data(), 0, v);
            c.consts.push_back(b);
        }
    }
    return c;
}

inline void run_loop(const loop_call &c, const void *x, void *out, int64_t n) {
    std::vector<const void *> in = {x};
    std::vector<int64_t> strides = {1};
    for (const auto &b : c.consts) in.push_back(b.data()), strides.push_back(0);
    c.fn(in.data(), strides.data(), out, n, false);
}

} // namespace fbtools
