// Strict parsing of the driver's text: whole tokens, range-checked, integers
// must be integers. Every failure is a case_error naming what was wrong.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace fbbench {

/// A case or knob that cannot be run as given; `what()` names the file, JSON
/// path or knob.
struct case_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A case that names something fusebox does not have (an op kind it does not
/// run, a data type it lacks): reported as UNIMPLEMENTED, not as an error.
struct case_unimplemented : case_error {
    using case_error::case_error;
};

/// `s` split at every `sep`, empty entries kept ("" gives {""}, "a," gives {"a", ""}).
inline std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t pos; (pos = s.find(sep, start)) != std::string::npos; start = pos + 1)
        out.push_back(s.substr(start, pos - start));
    out.push_back(s.substr(start));
    return out;
}

/// The decimal integer `text` (optional sign, digits, nothing else) in [lo, hi].
inline int64_t parse_int(const std::string &text, int64_t lo, int64_t hi, const std::string &what) {
    const char *begin = text.c_str();
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    const bool digits = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) ||
                                          (text.size() > 1 && (text[0] == '-' || text[0] == '+')));
    if (!digits || end != begin + text.size() || errno == ERANGE)
        throw case_error(what + ": \"" + text + "\" is not an integer");
    if (v < lo || v > hi)
        throw case_error(what + ": " + text + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "]");
    return v;
}

/// The finite decimal number `text` in [lo, hi].
inline double parse_real(const std::string &text, double lo, double hi, const std::string &what) {
    const char *begin = text.c_str();
    char *end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || end != begin + text.size() ||
        errno == ERANGE || !std::isfinite(v))
        throw case_error(what + ": \"" + text + "\" is not a finite number");
    if (v < lo || v > hi)
        throw case_error(what + ": " + text + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "]");
    return v;
}

} // namespace fbbench
