// Library-wide settings and queries: version, constant tensor cache.
#include <atomic>
#include <limits>

#include "common/errors.hpp"

#ifndef FUSEBOX_GIT_HASH
#define FUSEBOX_GIT_HASH "unknown"
#endif

namespace fusebox {
namespace {

std::atomic<size_t> constant_cache_mib{0};

void check_cpu(engine::kind k, const char *what) {
    if (k != engine::kind::cpu)
        detail::fail(status::invalid_arguments, what, ": only engine::kind::cpu exists (got kind ", static_cast<int>(k),
                     ")");
}

} // namespace

void set_constant_tensor_cache_capacity(engine::kind k, size_t size) {
    check_cpu(k, "set_constant_tensor_cache_capacity");
    constant_cache_mib = size;
}

size_t get_constant_tensor_cache_capacity(engine::kind k) {
    check_cpu(k, "get_constant_tensor_cache_capacity");
    return constant_cache_mib;
}

void set_constant_tensor_cache(int flag) {
    if (flag < 0) detail::fail(status::invalid_arguments, "set_constant_tensor_cache: flag ", flag, " is negative");
    constant_cache_mib = flag ? std::numeric_limits<size_t>::max() : 0;
}

int get_constant_tensor_cache() { return constant_cache_mib > 0 ? 1 : 0; }

} // namespace fusebox

extern "C" const fusebox_version_t *fusebox_version(void) {
    static const fusebox_version_t v = {FUSEBOX_VERSION_MAJOR, FUSEBOX_VERSION_MINOR, FUSEBOX_VERSION_PATCH,
                                        FUSEBOX_GIT_HASH,      FUSEBOX_RUNTIME_TBB,   FUSEBOX_RUNTIME_NONE};
    return &v;
}
