#include "roof.hpp"

#include <immintrin.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <sys/mman.h>

namespace fbtools {
namespace {

constexpr size_t kLine = 64;

// Buffers as the driver allocates tensors: 2 MiB aligned and huge-page backed
// when large, 64-byte aligned otherwise.
struct aligned_free {
    size_t align;
    void operator()(unsigned char *p) const { ::operator delete(p, std::align_val_t(align)); }
};
using block = std::unique_ptr<unsigned char[], aligned_free>;

block allocate(size_t bytes) {
    const size_t align = bytes >= (size_t{4} << 20) ? (size_t{2} << 20) : kLine;
    auto *p = static_cast<unsigned char *>(::operator new(bytes + kLine, std::align_val_t(align)));
    if (align > kLine) madvise(p, bytes, MADV_HUGEPAGE);
    return block(p, aligned_free{align});
}

// One pass over [begin, end) of each stream: every read stream is loaded
// (ORed into a register so no load is dead) and the write stream is stored,
// with non-temporal stores when `nt`. Ranges are whole lines, 64-byte aligned.
__attribute__((target("avx512f"))) void pass_avx512(unsigned char *const *reads, size_t n_reads, const size_t *read_lo,
                                                    const size_t *read_hi, unsigned char *write, size_t write_lo,
                                                    size_t write_hi, bool nt) {
    __m512i acc = _mm512_setzero_si512();
    for (size_t s = 0; s < n_reads; ++s)
        for (size_t i = read_lo[s]; i < read_hi[s]; i += 4 * kLine) {
            const unsigned char *p = reads[s] + i;
            acc = _mm512_or_si512(acc, _mm512_load_si512(p));
            if (i + kLine < read_hi[s]) acc = _mm512_or_si512(acc, _mm512_load_si512(p + kLine));
            if (i + 2 * kLine < read_hi[s]) acc = _mm512_or_si512(acc, _mm512_load_si512(p + 2 * kLine));
            if (i + 3 * kLine < read_hi[s]) acc = _mm512_or_si512(acc, _mm512_load_si512(p + 3 * kLine));
        }
    if (nt)
        for (size_t i = write_lo; i < write_hi; i += kLine)
            _mm512_stream_si512(reinterpret_cast<__m512i *>(write + i), acc);
    else
        for (size_t i = write_lo; i < write_hi; i += kLine) _mm512_store_si512(write + i, acc);
    if (nt) _mm_sfence();
}

__attribute__((target("avx2"))) void pass_avx2(unsigned char *const *reads, size_t n_reads, const size_t *read_lo,
                                               const size_t *read_hi, unsigned char *write, size_t write_lo,
                                               size_t write_hi, bool nt) {
    __m256i acc = _mm256_setzero_si256();
    for (size_t s = 0; s < n_reads; ++s)
        for (size_t i = read_lo[s]; i < read_hi[s]; i += kLine) {
            acc = _mm256_or_si256(acc, _mm256_load_si256(reinterpret_cast<const __m256i *>(reads[s] + i)));
            acc = _mm256_or_si256(acc, _mm256_load_si256(reinterpret_cast<const __m256i *>(reads[s] + i + 32)));
        }
    for (size_t i = write_lo; i < write_hi; i += kLine) {
        auto *p = reinterpret_cast<__m256i *>(write + i);
        if (nt)
            _mm256_stream_si256(p, acc), _mm256_stream_si256(p + 1, acc);
        else
            _mm256_store_si256(p, acc), _mm256_store_si256(p + 1, acc);
    }
    if (nt) _mm_sfence();
}

size_t lines(size_t bytes) { return (bytes + kLine - 1) / kLine; }

// Lockstep pass over units [u_lo, u_hi) of `units`: every stream advances in
// proportion to its size (a stream of `n` lines takes a step on n of every
// `units` units), so all streams are in flight at once, as in an elementwise
// kernel, and each line is loaded or stored exactly once. Each read stream is
// prefetched kAheadLines ahead, as fusebox's streaming loops do: without it
// the hardware prefetchers leave bandwidth unused, and a roof must be the best
// a trivial kernel reaches.
constexpr uint64_t kAheadLines = 32;
struct stream_walk {
    unsigned char *base;
    uint64_t lines, pos, err;
};

__attribute__((target("avx512f"))) void lockstep_avx512(stream_walk *reads, size_t n_reads, stream_walk &write,
                                                        uint64_t units, uint64_t u_lo, uint64_t u_hi, bool nt) {
    __m512i acc = _mm512_setzero_si512();
    for (uint64_t u = u_lo; u < u_hi; ++u) {
        for (size_t s = 0; s < n_reads; ++s) {
            stream_walk &w = reads[s];
            if ((w.err += w.lines) >= units) {
                w.err -= units;
                _mm_prefetch(reinterpret_cast<const char *>(w.base + (w.pos + kAheadLines) * kLine), _MM_HINT_T0);
                acc = _mm512_or_si512(acc, _mm512_load_si512(w.base + w.pos++ * kLine));
            }
        }
        if ((write.err += write.lines) >= units) {
            write.err -= units;
            auto *p = write.base + write.pos++ * kLine;
            if (nt)
                _mm512_stream_si512(reinterpret_cast<__m512i *>(p), acc);
            else
                _mm512_store_si512(p, acc);
        }
    }
    if (nt) _mm_sfence();
}

__attribute__((target("avx2"))) void lockstep_avx2(stream_walk *reads, size_t n_reads, stream_walk &write,
                                                   uint64_t units, uint64_t u_lo, uint64_t u_hi, bool nt) {
    __m256i acc = _mm256_setzero_si256();
    for (uint64_t u = u_lo; u < u_hi; ++u) {
        for (size_t s = 0; s < n_reads; ++s) {
            stream_walk &w = reads[s];
            if ((w.err += w.lines) >= units) {
                w.err -= units;
                _mm_prefetch(reinterpret_cast<const char *>(w.base + (w.pos + kAheadLines) * kLine), _MM_HINT_T0);
                const auto *p = reinterpret_cast<const __m256i *>(w.base + w.pos++ * kLine);
                acc = _mm256_or_si256(acc, _mm256_or_si256(_mm256_load_si256(p), _mm256_load_si256(p + 1)));
            }
        }
        if ((write.err += write.lines) >= units) {
            write.err -= units;
            auto *p = reinterpret_cast<__m256i *>(write.base + write.pos++ * kLine);
            if (nt)
                _mm256_stream_si256(p, acc), _mm256_stream_si256(p + 1, acc);
            else
                _mm256_store_si256(p, acc), _mm256_store_si256(p + 1, acc);
        }
    }
    if (nt) _mm_sfence();
}

// A stream's share [c/n, (c+1)/n) of its lines, in bytes.
size_t share(size_t bytes, size_t c, size_t n) { return lines(bytes) * c / n * kLine; }

struct workload {
    std::vector<block> reads;
    std::vector<unsigned char *> read_ptrs;
    block write;
    traffic t;

    explicit workload(const traffic &tr) : t(tr) {
        // Written once, so that every page exists: reads of untouched memory
        // would all hit the kernel's one zero page.
        for (size_t b : t.reads) {
            reads.push_back(allocate(lines(b) * kLine));
            std::memset(reads.back().get(), 1, lines(b) * kLine);
            read_ptrs.push_back(reads.back().get());
        }
        write = allocate(lines(t.write) * kLine);
        std::memset(write.get(), 0, lines(t.write) * kLine);
    }

    // Chunk c of n in lockstep: units are lines of the longest stream.
    void run_lockstep(size_t c, size_t n, bool nt, bool avx512) const {
        uint64_t units = lines(t.write);
        for (size_t b : t.reads) units = std::max<uint64_t>(units, lines(b));
        const uint64_t u_lo = units * c / n, u_hi = units * (c + 1) / n;
        auto start = [&](unsigned char *base, size_t bytes) {
            const uint64_t l = lines(bytes); // l * u_lo < 2^64 for any memory this machine has
            return stream_walk{base, l, l * u_lo / units, l * u_lo % units};
        };
        std::vector<stream_walk> rd;
        for (size_t s = 0; s < t.reads.size(); ++s) rd.push_back(start(read_ptrs[s], t.reads[s]));
        stream_walk wr = start(write.get(), t.write);
        if (avx512)
            lockstep_avx512(rd.data(), rd.size(), wr, units, u_lo, u_hi, nt);
        else
            lockstep_avx2(rd.data(), rd.size(), wr, units, u_lo, u_hi, nt);
    }

    // Chunk c of n: each stream's share, as the kernels under test split work.
    void run_chunk(size_t c, size_t n, bool nt, bool avx512) const {
        const size_t k = t.reads.size();
        std::vector<size_t> lo(k), hi(k);
        for (size_t s = 0; s < k; ++s) lo[s] = share(t.reads[s], c, n), hi[s] = share(t.reads[s], c + 1, n);
        const size_t wlo = share(t.write, c, n), whi = share(t.write, c + 1, n);
        // Interleave the streams in 16 KiB steps of the largest, so all of them are in flight.
        size_t longest = t.write;
        for (size_t b : t.reads) longest = std::max(longest, b);
        const size_t steps = std::max<size_t>(1, (share(longest, c + 1, n) - share(longest, c, n)) / (16 << 10));
        std::vector<size_t> slo(k), shi(k);
        for (size_t st = 0; st < steps; ++st) {
            for (size_t s = 0; s < k; ++s)
                slo[s] = lo[s] + (hi[s] - lo[s]) / kLine * st / steps * kLine,
                shi[s] = lo[s] + (hi[s] - lo[s]) / kLine * (st + 1) / steps * kLine;
            const size_t a = wlo + (whi - wlo) / kLine * st / steps * kLine;
            const size_t b = wlo + (whi - wlo) / kLine * (st + 1) / steps * kLine;
            if (avx512)
                pass_avx512(read_ptrs.data(), k, slo.data(), shi.data(), write.get(), a, b, nt);
            else
                pass_avx2(read_ptrs.data(), k, slo.data(), shi.data(), write.get(), a, b, nt);
        }
    }
};

// Best GB/s of passes on `threads` threads (one chunk each) within the
// budget, walking the streams in lockstep or in interleaved bursts.
double best_gbps(const workload &w, int threads, bool nt, bool lockstep, double budget_ms) {
    const bool avx512 = __builtin_cpu_supports("avx512f");
    tbb::task_arena arena(threads);
    auto chunk = [&](size_t c, size_t n) {
        if (lockstep)
            w.run_lockstep(c, n, nt, avx512);
        else
            w.run_chunk(c, n, nt, avx512);
    };
    auto pass = [&] {
        if (threads == 1) return chunk(0, 1);
        arena.execute([&] {
            tbb::parallel_for(
                0, threads, [&](int c) { chunk(static_cast<size_t>(c), static_cast<size_t>(threads)); },
                tbb::static_partitioner());
        });
    };
    using clock = std::chrono::steady_clock;
    for (int i = 0; i < 3; ++i) pass(); // warm: page faults, caches, thread wake-up
    // Passes of tiny working sets are timed in groups, so the clock's resolution does not count.
    int group = 1;
    for (auto t0 = clock::now(); std::chrono::duration<double, std::micro>(clock::now() - t0).count() < 20; ++group)
        pass();
    double best = 0;
    const auto start = clock::now();
    int samples = 0;
    do {
        const auto t0 = clock::now();
        for (int i = 0; i < group; ++i) pass();
        const double s = std::chrono::duration<double>(clock::now() - t0).count() / group;
        best = std::max(best, static_cast<double>(w.t.total()) / s / 1e9);
        ++samples;
    } while (samples < 10 || std::chrono::duration<double, std::milli>(clock::now() - start).count() < budget_ms);
    return best;
}

long cache_size(int name) {
    const long v = sysconf(name);
    return v > 0 ? v : 0;
}

} // namespace

size_t traffic::total() const {
    size_t n = write;
    for (size_t b : reads) n += b;
    return n;
}

std::string memory_level(size_t bytes) {
    const long l1 = cache_size(_SC_LEVEL1_DCACHE_SIZE), l2 = cache_size(_SC_LEVEL2_CACHE_SIZE),
               l3 = cache_size(_SC_LEVEL3_CACHE_SIZE);
    if (l1 && bytes <= static_cast<size_t>(l1)) return "L1";
    if (l2 && bytes <= static_cast<size_t>(l2)) return "L2";
    if (l3 && bytes <= static_cast<size_t>(l3)) return "LLC";
    return "DRAM";
}

memory_roof measure_roof(const traffic &t, int threads, double budget_ms) {
    memory_roof r;
    r.level = memory_level(t.total());
    if (t.total() == 0) return r;
    const workload w(t);
    for (int n : {1, threads}) {
        if (n == 1 && threads > 1 && r.level == "DRAM") continue; // one thread never saturates memory
        for (bool nt : {false, true})
            for (bool lockstep : {false, true}) {
                const double g = best_gbps(w, n, nt, lockstep, budget_ms / 4);
                double &kind = nt ? r.nt_gbps : r.plain_gbps;
                kind = std::max(kind, g);
                if (g > r.gbps) r.gbps = g, r.threads = n;
            }
        if (threads == 1) break;
    }
    return r;
}

} // namespace fbtools
