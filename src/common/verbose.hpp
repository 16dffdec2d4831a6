// FUSEBOX_VERBOSE=1: one line per compile and execute, like ONEDNN_VERBOSE.
#pragma once

#include <chrono>
#include <string>

namespace fusebox::detail {

/// FUSEBOX_VERBOSE=1: compile and execute lines; 2: also the canonical form
/// of each newly compiled partition.
int verbose_level();
inline bool verbose_enabled() { return verbose_level() > 0; }
/// Prints "fusebox_verbose,<line>" to stdout.
void verbose_print(const std::string &line);

inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace fusebox::detail
