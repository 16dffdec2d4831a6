// The reference row of performance runs: the same case as one oneDNN binary
// or eltwise primitive called directly (oneDNN's own threading), without fusebox.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../common/reference.hpp"

namespace fbbench {

struct direct_primitive {
    std::string impl;
    /// Runs the primitive once on the given buffers (inputs in port order).
    std::function<void()> run;
};

/// Builds the direct call for a single Add/Equal over f32/bf16/f16 inputs, or
/// returns nullptr with the reason in `why`. It runs on oneDNN's own OpenMP
/// team: the caller sets its size (omp_set_num_threads) once, outside timing.
std::unique_ptr<direct_primitive> make_direct_primitive(fusebox::op::kind kind, const fbref::buffer &a,
                                                        const fbref::buffer &b, fbref::buffer &out, std::string &why);

/// The same for a single unary op oneDNN's eltwise primitive has (oneDNN 2.6's
/// algorithm for the kind, with its alpha/beta from the op's attributes).
std::unique_ptr<direct_primitive> make_direct_eltwise(const fusebox::op &o, const fbref::buffer &a, fbref::buffer &out,
                                                      std::string &why);

} // namespace fbbench
