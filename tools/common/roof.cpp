#include "roof.hpp"

#include <immintrin.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <new>
#include <sys/mman.h>

namespace fbtools {
namespace {

// Allocated like the driver's tensors: 2 MiB aligned, huge pages where allowed.
struct free_deleter {
    void operator()(float *p) const { ::operator delete(p, std::align_val_t(size_t{2} << 20)); }
};
using array = std::unique_ptr<float[], free_deleter>;

array allocate(size_t n) {
    void *p = ::operator new(n * 4, std::align_val_t(size_t{2} << 20));
    madvise(p, n * 4, MADV_HUGEPAGE);
    return array(static_cast<float *>(p));
}

void add_plain(const float *a, const float *b, float *c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

__attribute__((target("avx2"))) void add_streaming(const float *a, const float *b, float *c, size_t n) {
    size_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(c + i) & 31); ++i) c[i] = a[i] + b[i];
    for (; i + 8 <= n; i += 8) _mm256_stream_ps(c + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
    for (; i < n; ++i) c[i] = a[i] + b[i];
    _mm_sfence();
}

__attribute__((target("avx512f"))) void add_streaming_512(const float *a, const float *b, float *c, size_t n) {
    size_t i = 0;
    for (; i < n && (reinterpret_cast<uintptr_t>(c + i) & 63); ++i) c[i] = a[i] + b[i];
    for (; i + 32 <= n; i += 32) {
        _mm512_stream_ps(c + i, _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));
        _mm512_stream_ps(c + i + 16, _mm512_add_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16)));
    }
    for (; i < n; ++i) c[i] = a[i] + b[i];
    _mm_sfence();
}

} // namespace

memory_roof measure_memory_roof(int threads, size_t elems, int reps) {
    array a = allocate(elems), b = allocate(elems), c = allocate(elems);
    tbb::task_arena arena(threads);
    const bool has_avx512 = __builtin_cpu_supports("avx512f");
    auto pass = [&](bool streaming) {
        arena.execute([&] {
            tbb::parallel_for(
                0, threads,
                [&](int t) {
                    const size_t begin = elems * t / threads, end = elems * (t + 1) / threads;
                    if (streaming)
                        add_streaming(a.get() + begin, b.get() + begin, c.get() + begin, end - begin);
                    else
                        add_plain(a.get() + begin, b.get() + begin, c.get() + begin, end - begin);
                },
                tbb::static_partitioner());
        });
    };
    // First touch on the threads that will stream the memory.
    arena.execute([&] {
        tbb::parallel_for(
            0, threads,
            [&](int t) {
                const size_t begin = elems * t / threads, end = elems * (t + 1) / threads;
                std::fill(a.get() + begin, a.get() + end, 1.f);
                std::fill(b.get() + begin, b.get() + end, 2.f);
                std::fill(c.get() + begin, c.get() + end, 0.f);
            },
            tbb::static_partitioner());
    });
    const bool has_avx2 = __builtin_cpu_supports("avx2");
    memory_roof roof;
    const double bytes = 3.0 * 4.0 * static_cast<double>(elems);
    for (bool streaming : {false, true})
        for (int r = 0; r < reps; ++r) {
            if (streaming && !has_avx2) continue;
            auto start = std::chrono::steady_clock::now();
            pass(streaming);
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            double &best = streaming ? roof.nt_gbps : roof.plain_gbps;
            best = std::max(best, bytes / s / 1e9);
        }
    return roof;
}

} // namespace fbtools
