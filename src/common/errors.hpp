// Throwing fusebox::error with a message assembled from parts.
#pragma once

#include <new>
#include <sstream>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

template <typename... Parts> [[noreturn]] void fail(status s, const Parts &...parts) {
    std::ostringstream os;
    (os << ... << parts);
    throw error(s, os.str());
}

/// Runs f() at a public entry point, so that only fusebox::error leaves the
/// library: std::bad_alloc becomes out_of_memory, any other exception (a
/// dnnl::error, say) runtime_error, both naming `what`.
template <typename F> decltype(auto) translate_exceptions(const char *what, F &&f) {
    try {
        return f();
    } catch (const error &) {
        throw;
    } catch (const std::bad_alloc &) {
        fail(status::out_of_memory, what, ": out of memory");
    } catch (const std::exception &e) {
        fail(status::runtime_error, what, ": ", e.what());
    }
}

/// "[2,3,4]" for messages; "?" marks unknown dims, "[?]" unknown rank.
std::string shape_str(const logical_tensor::dims &d);
std::string shape_str(const logical_tensor &lt);

/// How messages name an op: `op 3 (Add)`, or `op 3 (Add "bias")` when it
/// has a name.
std::string op_ref(const op &o);

} // namespace fusebox::detail
