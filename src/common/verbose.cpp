#include "common/verbose.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "common/access.hpp"
#include "common/env.hpp"
#include "common/errors.hpp"

namespace fusebox::detail {
namespace {

std::atomic<int> level_set{-1}; // -1: FUSEBOX_VERBOSE decides
bool header_printed = false;    // guarded by print_mutex()

std::mutex &print_mutex() {
    static std::mutex m;
    return m;
}

std::string join(const logical_tensor::dims &d, char sep) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) {
        if (i) s += sep;
        s += d[i] < 0 ? "?" : std::to_string(d[i]);
    }
    return s;
}

} // namespace

int verbose_level() {
    const int set = level_set.load(std::memory_order_relaxed);
    return set >= 0 ? set : env_verbose();
}

void set_verbose_level(int level) {
    if (level < 0 || level > 2) fail(status::invalid_arguments, "set_verbose: level must be 0, 1 or 2, got ", level);
    std::lock_guard<std::mutex> lock(print_mutex());
    level_set.store(level, std::memory_order_relaxed);
    header_printed = false; // the next line, at any level, comes after the header again
}

verbose_line::verbose_line(std::string_view event) : s_("fusebox_verbose,") { s_ += event; }

verbose_line &verbose_line::field(std::string_view text) {
    s_ += ',';
    for (char c : text) s_ += c == ',' ? ';' : (c == '\n' || c == '\r') ? ' ' : c;
    return *this;
}

verbose_line &verbose_line::field(int64_t v) { return field(std::to_string(v)); }

verbose_line &verbose_line::field(double v, int precision) {
    char buf[48];
    std::snprintf(buf, sizeof(buf), "%.*f", precision, v);
    return field(buf);
}

void verbose_line::print() const {
    std::lock_guard<std::mutex> lock(print_mutex());
    if (!header_printed) {
        header_printed = true;
        for (const std::string &h : verbose_header()) std::printf("fusebox_verbose,info,%s\n", h.c_str());
    }
    std::printf("%s\n", s_.c_str());
    std::fflush(stdout);
}

std::string verbose_escape(std::string_view name) {
    std::string s;
    for (unsigned char c : name) {
        if (c == ',' || c == ':' || c == ' ' || c == '%' || c < 0x20 || c == 0x7f) {
            char buf[4];
            std::snprintf(buf, sizeof(buf), "%%%02X", c);
            s += buf;
        } else {
            s += static_cast<char>(c);
        }
    }
    return s;
}

std::string verbose_ops(const std::vector<op> &ops) {
    std::string s;
    for (const op &o : ops) {
        if (!s.empty()) s += ' ';
        s += std::to_string(o.get_id()) + ':' + op_kind_name(o.get_kind());
        if (!o.get_name().empty()) s += ':' + verbose_escape(o.get_name());
    }
    return s;
}

std::string verbose_tensors(const char *prefix, const std::vector<logical_tensor> &lts) {
    std::string s;
    for (size_t i = 0; i < lts.size(); ++i) {
        const logical_tensor &lt = lts[i];
        if (i) s += ' ';
        s += prefix + std::to_string(i) + ':' + std::to_string(lt.get_id()) + ':' + data_type_name(lt.get_data_type()) +
             ':' + (lt.get_ndims() < 0 ? std::string("*") : join(dims_of(lt), 'x')) + ':';
        switch (lt.get_layout_type()) {
        case logical_tensor::layout_type::strided:
            s += strides_of(lt).empty() && lt.get_ndims() != 0 ? std::string("?") : join(strides_of(lt), 's');
            break;
        case logical_tensor::layout_type::any: s += "any"; break;
        case logical_tensor::layout_type::opaque: s += "opaque"; break;
        default: s += "undef"; break;
        }
    }
    return s;
}

} // namespace fusebox::detail
