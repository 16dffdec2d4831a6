// Splitting work over the caller's TBB arena.
#pragma once

#include <cstdint>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

namespace fusebox::detail {

/// Threads fusebox may use from the caller's current task arena, capped by
/// FUSEBOX_NUM_THREADS.
int max_threads();

/// Chunks worth splitting a job that streams `bytes` of memory into: 1 (run
/// inline on the calling thread) for small jobs, else one per thread.
int plan_chunks(int64_t bytes);

/// Runs fn(c) for c in [0, n) on the caller's arena, one chunk per thread;
/// inline when n == 1.
template <typename F> void parallel_chunks(int n, const F &fn) {
    if (n <= 1) return fn(0);
    tbb::parallel_for(
        0, n, [&](int c) { fn(c); }, tbb::static_partitioner());
}

/// Keeps oneDNN's OpenMP team at one thread while a chunk runs: parallelism
/// comes from TBB, never from a second thread pool on top of it.
class single_omp_thread_scope {
public:
    single_omp_thread_scope();
    ~single_omp_thread_scope();
    single_omp_thread_scope(const single_omp_thread_scope &) = delete;
    single_omp_thread_scope &operator=(const single_omp_thread_scope &) = delete;

private:
    int previous_;
};

} // namespace fusebox::detail
