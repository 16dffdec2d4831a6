// Throwing fusebox::error with a message assembled from parts.
#pragma once

#include <sstream>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

template <typename... Parts> [[noreturn]] void fail(status s, const Parts &...parts) {
    std::ostringstream os;
    (os << ... << parts);
    throw error(s, os.str());
}

/// "[2,3,4]" for messages; "?" marks unknown dims, "[?]" unknown rank.
std::string shape_str(const logical_tensor::dims &d);
std::string shape_str(const logical_tensor &lt);

/// "op 3" or "op 3 (name)" for messages.
std::string op_label(const op &o);

} // namespace fusebox::detail
