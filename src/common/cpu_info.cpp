#include "common/cpu_info.hpp"

#include <unistd.h>

namespace fusebox::detail {

const cpu_caches &caches() {
    static const cpu_caches c = [] {
        auto read = [](int name, int64_t fallback) {
            const long v = sysconf(name);
            return v > 0 ? static_cast<int64_t>(v) : fallback;
        };
        cpu_caches r;
        r.l1d = read(_SC_LEVEL1_DCACHE_SIZE, int64_t{32} << 10);
        r.l2 = read(_SC_LEVEL2_CACHE_SIZE, int64_t{512} << 10);
        r.llc = read(_SC_LEVEL3_CACHE_SIZE, 4 * r.l2);
        return r;
    }();
    return c;
}

} // namespace fusebox::detail
