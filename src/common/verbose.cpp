#include "common/verbose.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace fusebox::detail {

int verbose_level() {
    static const int level = [] {
        const char *s = std::getenv("FUSEBOX_VERBOSE");
        return s ? std::max(0, std::atoi(s)) : 0;
    }();
    return level;
}

void verbose_print(const std::string &line) {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::printf("fusebox_verbose,%s\n", line.c_str());
    std::fflush(stdout);
}

} // namespace fusebox::detail
