#include "common/parallel.hpp"

#include <omp.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdlib>

namespace fusebox::detail {
namespace {

// Below this many bytes streamed, handing work to another thread costs more
// than it saves.
constexpr int64_t kInlineBytes = 1 << 18;

int env_thread_cap() {
    static const int cap = [] {
        const char *s = std::getenv("FUSEBOX_NUM_THREADS");
        int v = s ? std::atoi(s) : 0;
        return v > 0 ? v : 0;
    }();
    return cap;
}

} // namespace

int max_threads() {
    int n = tbb::this_task_arena::max_concurrency();
    if (int cap = env_thread_cap()) n = std::min(n, cap);
    return std::max(n, 1);
}

int plan_chunks(int64_t bytes) { return bytes < kInlineBytes ? 1 : max_threads(); }

void parallel_chunks(int n, const std::function<void(int)> &fn) {
    if (n <= 1) {
        fn(0);
        return;
    }
    // One chunk per thread, each a contiguous stretch of memory.
    tbb::parallel_for(
        0, n, [&](int c) { fn(c); }, tbb::static_partitioner());
}

single_omp_thread_scope::single_omp_thread_scope() : previous_(omp_get_max_threads()) {
    if (previous_ != 1) omp_set_num_threads(1);
}

single_omp_thread_scope::~single_omp_thread_scope() {
    if (previous_ != 1) omp_set_num_threads(previous_);
}

} // namespace fusebox::detail
