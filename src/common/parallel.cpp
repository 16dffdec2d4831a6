#include "common/parallel.hpp"

#include <omp.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "common/env.hpp"

namespace fusebox::detail {
namespace {

// Below this many bytes streamed, handing work to another thread costs more
// than it saves.
constexpr int64_t kInlineBytes = 1 << 18;

} // namespace

int max_threads() {
    int n = tbb::this_task_arena::max_concurrency();
    if (int cap = env_num_threads()) n = std::min(n, cap);
    return std::max(n, 1);
}

int plan_chunks(int64_t bytes) { return bytes < kInlineBytes ? 1 : max_threads(); }

single_omp_thread_scope::single_omp_thread_scope() : previous_(omp_get_max_threads()) {
    if (previous_ != 1) omp_set_num_threads(1);
}

single_omp_thread_scope::~single_omp_thread_scope() {
    if (previous_ != 1) omp_set_num_threads(previous_);
}

} // namespace fusebox::detail
