#include "runtime/verbose.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace fusebox::detail {

bool verbose_enabled() {
    static const bool on = [] {
        const char *s = std::getenv("FUSEBOX_VERBOSE");
        return s && *s && *s != '0';
    }();
    return on;
}

void verbose_print(const std::string &line) {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::printf("fusebox_verbose,%s\n", line.c_str());
    std::fflush(stdout);
}

} // namespace fusebox::detail
