// Exact text signatures of ops and logical tensors, used as cache keys. Built
// on every compile, so numbers are appended directly rather than streamed.
#pragma once

#include <charconv>
#include <string>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

struct signature_builder {
    std::string s;

    signature_builder &num(int64_t v) {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof(buf), v);
        s.append(buf, r.ptr);
        s.push_back(',');
        return *this;
    }
    signature_builder &text(const std::string &t) {
        s += t;
        s.push_back(',');
        return *this;
    }
    /// Id, type, layout, rank, dims and strides.
    signature_builder &tensor(const logical_tensor &t) {
        num(static_cast<int64_t>(t.get_id())).num(static_cast<int>(t.get_data_type()));
        num(static_cast<int>(t.get_layout_type())).num(t.get_ndims());
        for (int64_t d : t.get_dims()) num(d);
        s.push_back('/');
        for (int64_t d : t.get_strides()) num(d);
        s.push_back(';');
        return *this;
    }
};

} // namespace fusebox::detail
