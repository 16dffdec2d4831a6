// The reference row of performance runs: the same case as one oneDNN binary
// or eltwise primitive called directly (oneDNN's own threading), without fusebox.
#pragma once

#include <functional>
#include <map>
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

/// The case's ops as oneDNN primitives called directly: one binary or
/// eltwise primitive per op, except that an op whose main operand only it
/// reads joins the primitive that computes that operand as a post-op (where
/// oneDNN accepts it), as a oneDNN user would write the region. `values`
/// holds the case's inputs and outputs by id; intermediates get buffers of
/// their own. Returns nullptr with the reason in `why` where an op has no
/// oneDNN form. It runs on oneDNN's own OpenMP team: the caller sets its size
/// (omp_set_num_threads) once, outside timing.
std::unique_ptr<direct_primitive> make_direct_graph(const std::vector<fusebox::op> &ops,
                                                    std::map<size_t, std::shared_ptr<fbref::buffer>> values,
                                                    std::string &why);

} // namespace fbbench
