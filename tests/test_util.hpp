// Helpers shared by the tests, on top of the shared reference.
#pragma once

#include <gtest/gtest.h>

#include "../tools/common/reference.hpp"

namespace fbt {

using namespace fbref;

/// Sets FUSEBOX_KERNEL for the lifetime of the object.
struct kernel_env {
    explicit kernel_env(const char *value) {
        if (value)
            setenv("FUSEBOX_KERNEL", value, 1);
        else
            unsetenv("FUSEBOX_KERNEL");
    }
    ~kernel_env() { unsetenv("FUSEBOX_KERNEL"); }
};

/// Success when `actual` holds the same elements as `expected`.
inline ::testing::AssertionResult same_elements(const buffer &expected, const buffer &actual) {
    std::string first = first_mismatch(expected, actual);
    if (first.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << first;
}

/// Builds a one-op graph (inputs ids 0 and 1, output id 2), compiles it for
/// a and b, and executes it into a fresh output buffer.
inline buffer run_single(const op &o, const buffer &a, const buffer &b, std::string *impl = nullptr,
                         std::vector<std::pair<size_t, size_t>> *inplace = nullptr) {
    const engine eng(engine::kind::cpu);
    graph g(engine::kind::cpu);
    g.add_op(o);
    g.finalize();
    auto parts = g.get_partitions();
    compiled_partition cp =
        parts.at(0).compile({a.lt, b.lt}, {logical_tensor(2, dt::undef, logical_tensor::layout_type::any)}, eng);
    buffer out(cp.query_logical_tensor(2));
    std::fill(out.bytes.begin(), out.bytes.end(), 0xCD);
    stream s(eng);
    cp.execute(s, {tensor(a.lt, eng, const_cast<void *>(a.data())), tensor(b.lt, eng, const_cast<void *>(b.data()))},
               {tensor(out.lt, eng, out.data())});
    if (impl) *impl = cp.get_impl_info();
    if (inplace) *inplace = cp.query_inplace_ports();
    return out;
}

/// A one-op graph over a and b with an output of unknown shape.
inline op binary_op(op::kind kind, const logical_tensor &a, const logical_tensor &b) {
    return op(0, kind, {a, b}, {logical_tensor(2, dt::undef, logical_tensor::layout_type::any)}, "op");
}

} // namespace fbt
