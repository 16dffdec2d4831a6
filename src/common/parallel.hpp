// Splitting work over the caller's TBB arena.
#pragma once

#include <cstdint>
#include <functional>

namespace fusebox::detail {

/// Threads fusebox may use from the caller's current task arena, capped by
/// FUSEBOX_NUM_THREADS.
int max_threads();

/// Chunks worth splitting a job that streams `bytes` of memory into: 1 (run
/// inline on the calling thread) for small jobs, else one per thread.
int plan_chunks(int64_t bytes);

/// Runs fn(c) for c in [0, n) on the caller's arena; inline when n == 1.
void parallel_chunks(int n, const std::function<void(int)> &fn);

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
