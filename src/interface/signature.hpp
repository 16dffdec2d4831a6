// Exact text signatures of ops and logical tensors, used as cache keys. Built
// on every compile, so numbers are appended directly rather than streamed.
#pragma once

#include <charconv>
#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

#include "common/access.hpp"

namespace fusebox::detail {

struct signature_builder {
    std::string s;

    static int64_t bits(float f) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u;
    }

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
    /// An attribute value, its type included (floats by their bits).
    signature_builder &attr(const op::attr_value &v) {
        num(static_cast<int64_t>(v.index()));
        std::visit(
            [&](const auto &x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string>)
                    text(x);
                else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
                    for (int64_t e : x) num(e);
                else if constexpr (std::is_same_v<T, std::vector<float>>)
                    for (float e : x) num(bits(e));
                else if constexpr (std::is_same_v<T, float>)
                    num(bits(x));
                else
                    num(static_cast<int64_t>(x));
            },
            v);
        return *this;
    }
    /// Id, type, layout, rank, dims and strides.
    signature_builder &tensor(const logical_tensor &t) {
        num(static_cast<int64_t>(t.get_id())).num(static_cast<int>(t.get_data_type()));
        num(static_cast<int>(t.get_layout_type())).num(t.get_ndims());
        for (int64_t d : dims_of(t)) num(d);
        s.push_back('/');
        for (int64_t d : strides_of(t)) num(d);
        s.push_back(';');
        return *this;
    }
};

} // namespace fusebox::detail
