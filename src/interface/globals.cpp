// Library-wide settings and queries: version, verbose level and header,
// constant tensor cache.
#include <atomic>
#include <limits>
#include <oneapi/dnnl/dnnl.h>

#include "common/cpu_info.hpp"
#include "common/env.hpp"
#include "common/errors.hpp"
#include "common/parallel.hpp"
#include "common/verbose.hpp"
#include "kernels/native/binary_ops.hpp"
#include "kernels/native/expr_kernel.hpp"
#include "kernels/onednn/binary_kernel.hpp"

#include "fusebox_git_hash.h" // generated at build time: FUSEBOX_GIT_HASH

namespace fusebox {
namespace {

// Kept in bytes, as oneDNN keeps it: a capacity in MiB too large for the
// bytes of a size_t saturates, and reads back as SIZE_MAX >> 20.
std::atomic<size_t> constant_cache_bytes{0};
constexpr size_t kMiB = size_t{1} << 20;

void check_cpu(engine::kind k, const char *what) {
    if (k != engine::kind::cpu)
        detail::fail(status::invalid_arguments, what, ": only engine::kind::cpu exists (got kind ", static_cast<int>(k),
                     ")");
}

} // namespace

void set_constant_tensor_cache_capacity(engine::kind k, size_t size) {
    check_cpu(k, "set_constant_tensor_cache_capacity");
    constant_cache_bytes =
        size > std::numeric_limits<size_t>::max() / kMiB ? std::numeric_limits<size_t>::max() : size * kMiB;
}

size_t get_constant_tensor_cache_capacity(engine::kind k) {
    check_cpu(k, "get_constant_tensor_cache_capacity");
    return constant_cache_bytes / kMiB;
}

void set_constant_tensor_cache(int flag) {
    if (flag < 0) detail::fail(status::invalid_arguments, "set_constant_tensor_cache: flag ", flag, " is negative");
    constant_cache_bytes = flag ? std::numeric_limits<size_t>::max() : 0;
}

int get_constant_tensor_cache() { return constant_cache_bytes > 0 ? 1 : 0; }

void set_verbose(int level) {
    detail::translate_exceptions("set_verbose", [&] { detail::set_verbose_level(level); });
}

namespace detail {

std::vector<std::string> verbose_header() {
    const fusebox_version_t *v = fusebox_version();
    const dnnl_version_t *d = dnnl_version();
    const int cap = env_num_threads();
    const std::string &isa_cap = env_max_isa();
    auto mib = [](int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; };
    return {
        "version," + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
            ",commit " + v->hash,
        "onednn," + std::to_string(d->major) + "." + std::to_string(d->minor) + "." + std::to_string(d->patch) +
            ",commit " + d->hash,
        std::string("cpu,native isa ") + element_ops_for_cpu().isa +
            (isa_cap.empty() ? std::string() : " (FUSEBOX_MAX_ISA " + isa_cap + ")") + ",threads " +
            std::to_string(max_threads()) +
            (cap ? " (FUSEBOX_NUM_THREADS " + std::to_string(cap) + ")" : std::string()) + ",streaming stores from " +
            mib(stream_threshold_bytes()) + ",onednn isa " + onednn_isa_name() + ",caches L1d " +
            std::to_string(caches().l1d >> 10) + " KiB L2 " + std::to_string(caches().l2 >> 10) + " KiB LLC " +
            mib(caches().llc),
        "template:partition,engine,partition,ops,inputs,outputs,fpmath,impl,reason",
        "template:compile,engine,partition,ops,inputs,outputs,fpmath,impl,reason,threads,chunks,streaming,time_ms",
        "template:execute,engine,partition,ops,inputs,outputs,fpmath,impl,reason,threads,chunks,streaming,time_ms,"
        "GB/s",
        "template:canonical,engine,partition,form",
        "template:dump,file",
    };
}

} // namespace detail
} // namespace fusebox

extern "C" fusebox_cpu_isa_t fusebox_get_effective_cpu_isa(void) {
    // Highway's names for the x86 targets fusebox's own kernels are built for.
    const std::string isa = fusebox::detail::element_ops_for_cpu().isa;
    if (isa.rfind("AVX3", 0) == 0) return fusebox_cpu_isa_avx512_core; // AVX-512 F/BW/DQ/VL, whatever else the CPU has
    if (isa == "AVX2") return fusebox_cpu_isa_avx2;
    if (isa == "SSE4") return fusebox_cpu_isa_sse41;
    return fusebox_cpu_isa_default; // SSSE3 or scalar loops
}

extern "C" const fusebox_version_t *fusebox_version(void) {
    static const fusebox_version_t v = {FUSEBOX_VERSION_MAJOR, FUSEBOX_VERSION_MINOR, FUSEBOX_VERSION_PATCH,
                                        FUSEBOX_GIT_HASH,      FUSEBOX_RUNTIME_TBB,   FUSEBOX_RUNTIME_NONE};
    return &v;
}
