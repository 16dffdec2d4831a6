// The verbose log (FUSEBOX_VERBOSE or set_verbose): lines on stdout in the
// spirit of ONEDNN_VERBOSE, every field comma-free so that splitting a line on
// commas gives the fields of its template (README.md, "Verbose log").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

/// 0: off; 1: partition, compile and execute lines; 2: also canonical forms.
/// set_verbose() wins over FUSEBOX_VERBOSE.
int verbose_level();
inline bool verbose_enabled() { return verbose_level() > 0; }
void set_verbose_level(int level);

/// One line: "fusebox_verbose,<event>,<field>,...". Fields are appended in
/// the order of the event's template; text is made comma- and newline-free.
class verbose_line {
public:
    explicit verbose_line(std::string_view event);
    verbose_line &field(std::string_view text);
    verbose_line &field(int64_t v);
    verbose_line &field(double v, int precision);
    verbose_line &empty() { return field(std::string_view()); }
    /// Prints the line, after the info header when it is the first line
    /// since the process started or set_verbose was called.
    void print() const;

private:
    std::string s_;
};

/// A user-given name as a log token: ',', ':', ' ', '%' and control bytes
/// become %XX.
std::string verbose_escape(std::string_view name);

/// "3:Add:bias 4:Equal" — each op's id, kind and escaped name.
std::string verbose_ops(const std::vector<op> &ops);

/// "in0:7:f32:16x13:13s1 in1:..." — per port: prefix and index, tensor id,
/// type, dims joined by 'x' ('?' unknown, '*' unknown rank) and strides
/// joined by 's' (or the layout: any, opaque, undef).
std::string verbose_tensors(const char *prefix, const std::vector<logical_tensor> &lts);

/// The lines printed once before the first verbose line (version, oneDNN,
/// CPU, templates); defined beside the version query.
std::vector<std::string> verbose_header();

inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace fusebox::detail
