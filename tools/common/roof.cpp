// The trivial kernels are written once with Highway and compiled for every
// x86 target, so that the roof is the best of every vector width the CPU has
// (64, 32 and 16 bytes), each with and without software prefetch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "common/roof.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h> // must come before highway.h
#include <hwy/highway.h>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <sys/mman.h>
#include <utility>

#include "roof.hpp"

#ifndef FBTOOLS_ROOF_ONCE
#define FBTOOLS_ROOF_ONCE
namespace fbtools {

constexpr size_t kLine = 64;

// Software prefetch distance of the variants that prefetch, as fusebox's own
// streaming loops do (the hardware prefetchers alone can leave bandwidth unused).
constexpr uint64_t kAheadLines = 32;

// Lines of the longest stream per group of a straight walk, and the full
// reads it keeps in registers (more go with the shorter streams).
constexpr uint64_t kGroup = 8;
constexpr size_t kMaxFull = 4;

// A stream walked in lockstep with the others: over `units` units it takes
// `lines` steps of one line, spread evenly (Bresenham), so all streams are in
// flight at once, as in an elementwise kernel, and each line is touched
// exactly once. With units = the longest stream's lines every unit moves one
// line of it; with a quarter of that, four lines, as a vector loop unrolled
// over a few lines of each input does.
struct stream_walk {
    unsigned char *base;
    uint64_t lines, pos, err;
};

// The trivial kernels of one instruction set. Ranges are whole lines.
struct roof_loops {
    const char *isa;
    // Units [u_lo, u_hi) of `units` in lockstep.
    void (*lockstep)(stream_walk *reads, size_t n_reads, stream_walk &write, uint64_t units, uint64_t u_lo,
                     uint64_t u_hi, bool nt, bool prefetch);
    // Groups [g_lo, g_hi) of `groups` of kGroup lines of the longest
    // stream, in one tight loop as a fused elementwise kernel runs: each step
    // loads a line of every `full` read (as long as the longest) and, when
    // `write_full`, stores one; the shorter streams (narrower types,
    // broadcast operands) move their share of a group (Bresenham) at its
    // start (reads) or end (the write).
    void (*straight)(const unsigned char *const *full, size_t n_full, stream_walk *part, size_t n_part,
                     stream_walk &write, bool write_full, uint64_t longest, uint64_t groups, uint64_t g_lo,
                     uint64_t g_hi, bool nt, bool prefetch);
    // Each read stream's [lo, hi) bytes loaded one stream after the other,
    // then the write stream's [wlo, whi) stored.
    void (*burst)(unsigned char *const *reads, size_t n_reads, const size_t *lo, const size_t *hi, unsigned char *write,
                  size_t wlo, size_t whi, bool nt, bool prefetch);
};

} // namespace fbtools
#endif

HWY_BEFORE_NAMESPACE();
namespace fbtools {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using D = hn::ScalableTag<uint8_t>;
using V = hn::Vec<D>;

// A line read (ORed into acc, so no load is dead) and a line written.
HWY_INLINE V read_line(D d, const unsigned char *p, V acc) {
    for (size_t v = 0; v < kLine / hn::Lanes(d); ++v) acc = hn::Or(acc, hn::Load(d, p + v * hn::Lanes(d)));
    return acc;
}
template <bool kNT> HWY_INLINE void write_line(D d, unsigned char *p, V acc) {
    for (size_t v = 0; v < kLine / hn::Lanes(d); ++v) {
        if constexpr (kNT)
            hn::Stream(acc, d, p + v * hn::Lanes(d));
        else
            hn::Store(acc, d, p + v * hn::Lanes(d));
    }
}

// Stream w's lines in one of `units` units (Bresenham), ORed into acc.
template <bool kPrefetch> HWY_INLINE V read_share(D d, stream_walk &w, uint64_t units, V acc) {
    for (w.err += w.lines; w.err >= units; w.err -= units) {
        if constexpr (kPrefetch) hwy::Prefetch(w.base + (w.pos + kAheadLines) * kLine);
        acc = read_line(d, w.base + w.pos++ * kLine, acc);
    }
    return acc;
}

// Stream w's lines in one of `units` units, each written from v.
template <bool kNT> HWY_INLINE void write_share(D d, stream_walk &w, uint64_t units, V v) {
    for (w.err += w.lines; w.err >= units; w.err -= units) write_line<kNT>(d, w.base + w.pos++ * kLine, v);
}

template <bool kNT, bool kPrefetch>
HWY_NOINLINE void lockstep_t(stream_walk *reads, size_t n_reads, stream_walk &write, uint64_t units, uint64_t u_lo,
                             uint64_t u_hi, unsigned char *sink) {
    const D d;
    // A unit's lines are written from the lines it read (those of the last
    // unit that read any), not from everything read so far: a store waiting
    // for every earlier load, which no elementwise kernel has, held the
    // one-input roofs 15 - 40 % under a plain unary loop (Abs at one and two
    // threads, 2026-12-07). acc keeps every load alive for the sink.
    V acc = hn::Zero(d), last = hn::Zero(d);
    for (uint64_t u = u_lo; u < u_hi; ++u) {
        V fresh = hn::Zero(d);
        bool any = false;
        for (size_t s = 0; s < n_reads; ++s) {
            const uint64_t pos = reads[s].pos;
            fresh = read_share<kPrefetch>(d, reads[s], units, fresh);
            any = any || reads[s].pos != pos;
        }
        if (any) last = fresh, acc = hn::Or(acc, fresh);
        write_share<kNT>(d, write, units, last);
    }
    if (write.lines == 0) hn::StoreU(acc, d, sink); // no write stream: keep the loads alive
    if constexpr (kNT) hwy::FlushStream();
}

template <bool kNT, bool kPrefetch, size_t kFull, bool kWriteFull>
HWY_INLINE void straight_n(const unsigned char *const *full, stream_walk *part, size_t n_part, stream_walk &write,
                           uint64_t longest, uint64_t groups, uint64_t g_lo, uint64_t g_hi, unsigned char *sink) {
    const D d;
    const unsigned char *f[kFull > 0 ? kFull : 1] = {};
    for (size_t s = 0; s < kFull; ++s) f[s] = full[s];
    unsigned char *const out = write.base;
    V acc = hn::Zero(d); // every load, for the sink
    for (uint64_t g = g_lo; g < g_hi; ++g) {
        V shared = hn::Zero(d); // the shorter reads' lines of this group
        for (size_t s = 0; s < n_part; ++s) shared = read_share<kPrefetch>(d, part[s], groups, shared);
        V group = shared; // stored by a shorter write: its own group's lines only
        for (uint64_t i = g * kGroup, end = std::min(i + kGroup, longest); i < end; ++i) {
            V line = shared;
            for (size_t s = 0; s < kFull; ++s) {
                if constexpr (kPrefetch) hwy::Prefetch(f[s] + (i + kAheadLines) * kLine);
                line = read_line(d, f[s] + i * kLine, line);
            }
            if constexpr (kWriteFull)
                write_line<kNT>(d, out + i * kLine, line);
            else
                group = hn::Or(group, line);
        }
        if constexpr (!kWriteFull) {
            write_share<kNT>(d, write, groups, group);
            acc = hn::Or(acc, group);
        }
    }
    if (write.lines == 0) hn::StoreU(acc, d, sink); // no write stream: keep the loads alive
    if constexpr (kNT) hwy::FlushStream();
}

template <bool kNT, bool kPrefetch, size_t kFull>
HWY_INLINE void straight_w(const unsigned char *const *full, stream_walk *part, size_t n_part, stream_walk &write,
                           bool write_full, uint64_t longest, uint64_t groups, uint64_t g_lo, uint64_t g_hi,
                           unsigned char *sink) {
    if (write_full)
        straight_n<kNT, kPrefetch, kFull, true>(full, part, n_part, write, longest, groups, g_lo, g_hi, sink);
    else
        straight_n<kNT, kPrefetch, kFull, false>(full, part, n_part, write, longest, groups, g_lo, g_hi, sink);
}

template <bool kNT, bool kPrefetch>
HWY_NOINLINE void straight_t(const unsigned char *const *full, size_t n_full, stream_walk *part, size_t n_part,
                             stream_walk &write, bool write_full, uint64_t longest, uint64_t groups, uint64_t g_lo,
                             uint64_t g_hi, unsigned char *sink) {
    static_assert(kMaxFull == 4, "one case per count of full reads");
    switch (n_full) {
    case 0:
        return straight_w<kNT, kPrefetch, 0>(full, part, n_part, write, write_full, longest, groups, g_lo, g_hi, sink);
    case 1:
        return straight_w<kNT, kPrefetch, 1>(full, part, n_part, write, write_full, longest, groups, g_lo, g_hi, sink);
    case 2:
        return straight_w<kNT, kPrefetch, 2>(full, part, n_part, write, write_full, longest, groups, g_lo, g_hi, sink);
    case 3:
        return straight_w<kNT, kPrefetch, 3>(full, part, n_part, write, write_full, longest, groups, g_lo, g_hi, sink);
    default:
        return straight_w<kNT, kPrefetch, 4>(full, part, n_part, write, write_full, longest, groups, g_lo, g_hi, sink);
    }
}

template <bool kNT, bool kPrefetch>
HWY_NOINLINE void burst_t(unsigned char *const *reads, size_t n_reads, const size_t *lo, const size_t *hi,
                          unsigned char *write, size_t wlo, size_t whi, unsigned char *sink) {
    const D d;
    V acc = hn::Zero(d);
    for (size_t s = 0; s < n_reads; ++s) {
        size_t i = lo[s];
        for (; i + 4 * kLine <= hi[s]; i += 4 * kLine) {
            const unsigned char *p = reads[s] + i;
            if constexpr (kPrefetch)
                for (size_t l = 0; l < 4; ++l) hwy::Prefetch(p + (kAheadLines + l) * kLine);
            acc =
                read_line(d, p + 3 * kLine, read_line(d, p + 2 * kLine, read_line(d, p + kLine, read_line(d, p, acc))));
        }
        for (; i < hi[s]; i += kLine) acc = read_line(d, reads[s] + i, acc);
    }
    for (size_t i = wlo; i < whi; i += kLine) write_line<kNT>(d, write + i, acc);
    if (whi == wlo) hn::StoreU(acc, d, sink);
    if constexpr (kNT) hwy::FlushStream();
}

alignas(64) unsigned char g_sink[64 * 2];

void lockstep(stream_walk *reads, size_t n_reads, stream_walk &write, uint64_t units, uint64_t u_lo, uint64_t u_hi,
              bool nt, bool prefetch) {
    auto *f = nt ? (prefetch ? lockstep_t<true, true> : lockstep_t<true, false>)
                 : (prefetch ? lockstep_t<false, true> : lockstep_t<false, false>);
    f(reads, n_reads, write, units, u_lo, u_hi, g_sink);
}

void straight(const unsigned char *const *full, size_t n_full, stream_walk *part, size_t n_part, stream_walk &write,
              bool write_full, uint64_t longest, uint64_t groups, uint64_t g_lo, uint64_t g_hi, bool nt,
              bool prefetch) {
    auto *f = nt ? (prefetch ? straight_t<true, true> : straight_t<true, false>)
                 : (prefetch ? straight_t<false, true> : straight_t<false, false>);
    f(full, n_full, part, n_part, write, write_full, longest, groups, g_lo, g_hi, g_sink);
}

void burst(unsigned char *const *reads, size_t n_reads, const size_t *lo, const size_t *hi, unsigned char *write,
           size_t wlo, size_t whi, bool nt, bool prefetch) {
    auto *f = nt ? (prefetch ? burst_t<true, true> : burst_t<true, false>)
                 : (prefetch ? burst_t<false, true> : burst_t<false, false>);
    f(reads, n_reads, lo, hi, write, wlo, whi, g_sink);
}

const roof_loops *get_roof_loops() {
    static const roof_loops loops{hwy::TargetName(HWY_TARGET), lockstep, straight, burst};
    return &loops;
}
#else
const roof_loops *get_roof_loops() { return nullptr; } // the roof is a vector kernel's
#endif

} // namespace HWY_NAMESPACE
} // namespace fbtools
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fbtools {

HWY_EXPORT(get_roof_loops);

namespace {

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

// The loops of every vector target this CPU has, at or below FUSEBOX_MAX_ISA
// (so that a capped run measures the roof an AVX2-only CPU would have).
std::vector<const roof_loops *> every_width() {
    int64_t allowed = hwy::SupportedTargets();
    if (const char *cap = std::getenv("FUSEBOX_MAX_ISA"))
        for (int64_t bit : {HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SSSE3, HWY_SCALAR})
            if (!std::strcmp(cap, hwy::TargetName(bit))) allowed &= ~(bit - 1);
    std::vector<const roof_loops *> all;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
        if (!(target & allowed)) continue;
        hwy::ChosenTarget chosen;
        chosen.Update(target);
        if (const roof_loops *l = HWY_DISPATCH_TABLE(get_roof_loops)[chosen.GetIndex()]()) all.push_back(l);
    }
    return all;
}

size_t lines(size_t bytes) { return (bytes + kLine - 1) / kLine; }

// A stream's share [c/n, (c+1)/n) of its lines, in bytes.
size_t share(size_t bytes, size_t c, size_t n) { return lines(bytes) * c / n * kLine; }

// One way of moving the streams: a vector width, store kind, walk and prefetch.
enum class walk { bursts, lockstep, straight };
struct variant {
    const roof_loops *loops;
    bool nt;
    walk how;
    bool prefetch;
    uint64_t block; // lockstep: lines of the longest stream per unit (straight: kGroup, bursts: 1)
};

// The walks every session tries, with their lines of the longest stream per unit.
constexpr std::pair<walk, uint64_t> kWalks[] = {
    {walk::bursts, 1}, {walk::lockstep, 1}, {walk::lockstep, 4}, {walk::straight, kGroup}};

// Where the walk of a stream of `bytes` stands at unit u_lo of `units`.
stream_walk walk_from(unsigned char *base, size_t bytes, uint64_t units, uint64_t u_lo) {
    const uint64_t l = lines(bytes); // l * u_lo < 2^64 for any memory this machine has
    return stream_walk{base, l, l * u_lo / units, l * u_lo % units};
}

struct workload {
    std::vector<block> reads;
    std::vector<unsigned char *> read_ptrs;
    block write;
    unsigned char *write_ptr = nullptr;
    traffic t;

    explicit workload(const traffic &tr) : t(tr) {
        // Written once, so that every page exists: reads of untouched memory
        // would all hit the kernel's one zero page.
        // (Given buffers are the case's: written already.)
        const bool given = t.read_at.size() == t.reads.size() && t.write_at;
        for (size_t k = 0; k < t.reads.size() && !given; ++k) {
            const size_t b = t.reads[k];
            reads.push_back(allocate(lines(b) * kLine));
            std::memset(reads.back().get(), 1, lines(b) * kLine);
            read_ptrs.push_back(reads.back().get());
        }
        if (given) {
            read_ptrs = t.read_at;
            write_ptr = t.write_at;
            return;
        }
        write = allocate(lines(t.write) * kLine);
        std::memset(write.get(), 0, lines(t.write) * kLine);
        write_ptr = write.get();
    }

    // Chunk c of n in lockstep: units are lines of the longest stream.
    void run_lockstep(size_t c, size_t n, const variant &v) const {
        uint64_t units = lines(t.write);
        for (size_t b : t.reads) units = std::max<uint64_t>(units, lines(b));
        units = std::max<uint64_t>(1, units / v.block);
        const uint64_t u_lo = units * c / n, u_hi = units * (c + 1) / n;
        std::vector<stream_walk> rd;
        for (size_t s = 0; s < t.reads.size(); ++s) rd.push_back(walk_from(read_ptrs[s], t.reads[s], units, u_lo));
        stream_walk wr = walk_from(write_ptr, t.write, units, u_lo);
        v.loops->lockstep(rd.data(), rd.size(), wr, units, u_lo, u_hi, v.nt, v.prefetch);
    }

    // Chunk c of n in groups of kGroup lines of the longest stream.
    void run_straight(size_t c, size_t n, const variant &v) const {
        uint64_t longest = lines(t.write);
        for (size_t b : t.reads) longest = std::max<uint64_t>(longest, lines(b));
        const uint64_t groups = (longest + kGroup - 1) / kGroup;
        const uint64_t g_lo = groups * c / n, g_hi = groups * (c + 1) / n;
        std::vector<const unsigned char *> full;
        std::vector<stream_walk> part;
        for (size_t s = 0; s < t.reads.size(); ++s) {
            if (lines(t.reads[s]) == longest && full.size() < kMaxFull)
                full.push_back(read_ptrs[s]);
            else
                part.push_back(walk_from(read_ptrs[s], t.reads[s], groups, g_lo));
        }
        stream_walk wr = walk_from(write_ptr, t.write, groups, g_lo);
        v.loops->straight(full.data(), full.size(), part.data(), part.size(), wr, lines(t.write) == longest, longest,
                          groups, g_lo, g_hi, v.nt, v.prefetch);
    }

    // Chunk c of n: each stream's share, as the kernels under test split work,
    // interleaved in 16 KiB steps of the largest so all of them are in flight.
    void run_bursts(size_t c, size_t n, const variant &v) const {
        const size_t k = t.reads.size();
        std::vector<size_t> lo(k), hi(k);
        for (size_t s = 0; s < k; ++s) lo[s] = share(t.reads[s], c, n), hi[s] = share(t.reads[s], c + 1, n);
        const size_t wlo = share(t.write, c, n), whi = share(t.write, c + 1, n);
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
            v.loops->burst(read_ptrs.data(), k, slo.data(), shi.data(), write_ptr, a, b, v.nt, v.prefetch);
        }
    }
};

// Times passes of variant `v` on `threads` threads (one chunk each).
class timed_runs {
public:
    timed_runs(const workload &w, int threads, const variant &v) : w_(w), threads_(threads), v_(v), arena_(threads) {
        // The workload's pages exist already; one timed pass warms caches and
        // threads, counts as a sample, and sets how many passes of a tiny
        // working set are timed together (so the clock's resolution does not count).
        const double s = timed(1);
        best_ = static_cast<double>(w_.t.total()) / s / 1e9;
        group_ = static_cast<int>(std::clamp(20e-6 / std::max(s, 1e-9), 1.0, 1e6));
    }

    // Best GB/s over the runs so far, after `samples` more or `budget_ms`, whichever is later.
    double run(int samples, double budget_ms) {
        const auto start = clock::now();
        for (int i = 0;
             i < samples || std::chrono::duration<double, std::milli>(clock::now() - start).count() < budget_ms; ++i)
            best_ = std::max(best_, static_cast<double>(w_.t.total()) / timed(group_) / 1e9);
        return best_;
    }

private:
    using clock = std::chrono::steady_clock;
    void chunk(size_t c, size_t n) const {
        switch (v_.how) {
        case walk::lockstep: return w_.run_lockstep(c, n, v_);
        case walk::straight: return w_.run_straight(c, n, v_);
        case walk::bursts: return w_.run_bursts(c, n, v_);
        }
    }
    // Seconds per pass, over `count` passes timed together.
    double timed(int count) {
        const auto t0 = clock::now();
        for (int g = 0; g < count; ++g) pass();
        return std::chrono::duration<double>(clock::now() - t0).count() / count;
    }
    void pass() {
        if (threads_ == 1) return chunk(0, 1);
        arena_.execute([&] {
            tbb::parallel_for(
                0, threads_, [&](int c) { chunk(static_cast<size_t>(c), static_cast<size_t>(threads_)); },
                tbb::static_partitioner());
        });
    }
    const workload &w_;
    int threads_;
    variant v_;
    tbb::task_arena arena_;
    int group_ = 1;
    double best_ = 0;
};

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

struct roof_session::impl {
    struct candidate {
        std::unique_ptr<timed_runs> runs;
        int threads;
        variant v;
        double gbps;
    };
    explicit impl(const traffic &t) : w(t) {}
    workload w;
    std::vector<candidate> all;
    std::vector<candidate *> finalists;
    memory_roof r;
};

roof_session::roof_session(const traffic &t, int threads) : impl_(std::make_unique<impl>(t)) {
    impl_->r.level = memory_level(t.total());
    if (t.total() == 0) return;
    // Every variant: thread counts 1, 2, 4, ... up to `threads`, each vector
    // width, ordinary and non-temporal stores, lockstep, burst and straight
    // walks, with and without prefetch, screened with a pass each.
    auto &all = impl_->all;
    std::vector<int> counts;
    for (int n = 1; n < threads; n *= 2) counts.push_back(n);
    counts.push_back(std::max(threads, 1));
    for (int n : counts)
        for (const roof_loops *loops : every_width())
            for (bool nt : {false, true})
                for (const auto &[how, block] : kWalks)
                    for (bool prefetch : {false, true}) {
                        const variant v{loops, nt, how, prefetch, block};
                        auto runs = std::make_unique<timed_runs>(impl_->w, n, v);
                        const double g = runs->run(1, 0);
                        all.push_back({std::move(runs), n, v, g});
                    }
    choose_finalists();
}

// Finalists: the best two, and the best of the other store kind.
void roof_session::choose_finalists() {
    auto &all = impl_->all;
    auto &finalists = impl_->finalists;
    finalists.clear();
    if (all.empty()) return; // no vector target (never on x86-64)
    std::sort(all.begin(), all.end(),
              [](const impl::candidate &a, const impl::candidate &b) { return a.gbps > b.gbps; });
    finalists.push_back(&all[0]);
    if (all.size() > 1) finalists.push_back(&all[1]);
    for (auto &c : all)
        if (c.v.nt != all[0].v.nt) {
            if (finalists.size() < 3 && &c != finalists.back()) finalists.push_back(&c);
            break;
        }
}

void roof_session::rescreen() {
    for (auto &c : impl_->all) c.gbps = c.runs->run(1, 0);
    choose_finalists();
}

roof_session::~roof_session() = default;

void roof_session::run(double budget_ms) {
    for (impl::candidate *c : impl_->finalists)
        c->gbps = c->runs->run(3, budget_ms / static_cast<double>(impl_->finalists.size()));
}

memory_roof roof_session::result() const {
    memory_roof r = impl_->r;
    for (const auto &c : impl_->all) {
        (c.v.nt ? r.nt_gbps : r.plain_gbps) = std::max(c.v.nt ? r.nt_gbps : r.plain_gbps, c.gbps);
        if (c.gbps > r.gbps) {
            r.gbps = c.gbps, r.threads = c.threads;
            r.kernel = std::string(c.v.loops->isa) + (c.v.nt ? " nt" : " plain") +
                       (c.v.how == walk::lockstep   ? " lockstep x" + std::to_string(c.v.block)
                        : c.v.how == walk::straight ? std::string(" straight")
                                                    : std::string(" bursts")) +
                       (c.v.prefetch ? " prefetch" : "");
        }
    }
    return r;
}

memory_roof measure_roof(const traffic &t, int threads, double budget_ms) {
    roof_session s(t, threads);
    s.run(budget_ms);
    return s.result();
}

} // namespace fbtools
#endif // HWY_ONCE
