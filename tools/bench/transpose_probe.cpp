// How fast can a transposing Add go on this machine? Hand-written AVX-512
// walks over the layout cases' tensors (f32 [32,256,64,64], 2^25 elements
// each), timed beside fusebox running the same partitions and the memory
// roof of the same streams, all in one process. Evidence for
// doc/PERFORMANCE.md ("Below target"), not a kernel: each walk knows its one
// shape.
//
//   fusebox-transpose-probe [threads]     (default 2)
//
// Per row: GB/s (inputs read plus output written, fastest of 5 runs) and
// the fraction of the roof. Every walk's output is checked at sampled
// elements before it is timed.
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fusebox/fusebox.hpp>

#include "../common/roof.hpp"

namespace {

constexpr int64_t kN = 32, kC = 256, kHW = 64 * 64, kPlane = kC * kHW;
constexpr int64_t kElems = kN * kPlane;
constexpr size_t kBytes = static_cast<size_t>(kElems) * sizeof(float);

// A tensor as the driver allocates large ones: 2 MiB aligned, huge pages.
struct buffer {
    float *p;
    buffer() : p(static_cast<float *>(::operator new(kBytes, std::align_val_t(2 << 20)))) {
        madvise(p, kBytes, MADV_HUGEPAGE);
    }
    ~buffer() { ::operator delete(p, std::align_val_t(2 << 20)); }
    buffer(const buffer &) = delete;
    buffer &operator=(const buffer &) = delete;
};

// A walk computes images [n0, n1) of out = a + b.
using walk = void (*)(const float *a, const float *b, float *out, int64_t n0, int64_t n1);

// 16x16 transpose in registers: on entry v[i] is row i, on return column i.
__attribute__((target("avx512f"))) inline void transpose16(__m512 *v) {
    __m512 t[16];
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {
        const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
        const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
        v[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        v[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        v[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        v[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
            t[8 * i + j] = _mm512_shuffle_f32x4(v[8 * i + j], v[8 * i + 4 + j], 0x44);
            t[8 * i + 4 + j] = _mm512_shuffle_f32x4(v[8 * i + j], v[8 * i + 4 + j], 0xEE);
        }
    for (int j = 0; j < 8; ++j) {
        v[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
        v[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xDD);
    }
    // The rounds above leave column k in v[k with bits 2 and 3 swapped].
    for (int k : {4, 5, 6, 7}) std::swap(v[k], v[k + 4]);
}

// NCHW + NCHW -> NHWC: 16 channel rows at a time along whole rows, 16x16
// blocks added and transposed in registers, each block's 16 output lines
// streamed straight to memory (kStream) or stored through the cache, each
// input row prefetched 256 bytes ahead.
template <bool kStream>
__attribute__((target("avx512f"))) void out_registers(const float *a, const float *b, float *out, int64_t n0,
                                                      int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
        const float *pa = a + n * kPlane, *pb = b + n * kPlane;
        float *po = out + n * kPlane;
        for (int64_t c = 0; c < kC; c += 16)
            for (int64_t hw = 0; hw < kHW; hw += 16) {
                __m512 v[16];
                for (int l = 0; l < 16; ++l) {
                    const float *x = pa + (c + l) * kHW + hw, *y = pb + (c + l) * kHW + hw;
                    _mm_prefetch(reinterpret_cast<const char *>(x) + 256, _MM_HINT_T0);
                    _mm_prefetch(reinterpret_cast<const char *>(y) + 256, _MM_HINT_T0);
                    v[l] = _mm512_add_ps(_mm512_load_ps(x), _mm512_load_ps(y));
                }
                transpose16(v);
                for (int l = 0; l < 16; ++l)
                    if (kStream)
                        _mm512_stream_ps(po + (hw + l) * kC + c, v[l]);
                    else
                        _mm512_store_ps(po + (hw + l) * kC + c, v[l]);
            }
    }
    _mm_sfence();
}

// The same through a 16-row tile in L1: 128 columns of each row added into
// the tile, then the tile transposed out (fusebox's strips, by hand).
__attribute__((target("avx512f"))) void out_tile(const float *a, const float *b, float *out, int64_t n0, int64_t n1) {
    constexpr int64_t kLen = 128;
    alignas(64) float tile[16][kLen + 16];
    for (int64_t n = n0; n < n1; ++n) {
        const float *pa = a + n * kPlane, *pb = b + n * kPlane;
        float *po = out + n * kPlane;
        for (int64_t c = 0; c < kC; c += 16)
            for (int64_t hw0 = 0; hw0 < kHW; hw0 += kLen) {
                for (int l = 0; l < 16; ++l) {
                    const float *x = pa + (c + l) * kHW + hw0, *y = pb + (c + l) * kHW + hw0;
                    for (int64_t i = 0; i < kLen; i += 16) {
                        _mm_prefetch(reinterpret_cast<const char *>(x + i) + 256, _MM_HINT_T0);
                        _mm_prefetch(reinterpret_cast<const char *>(y + i) + 256, _MM_HINT_T0);
                        _mm512_store_ps(&tile[l][i], _mm512_add_ps(_mm512_load_ps(x + i), _mm512_load_ps(y + i)));
                    }
                }
                for (int64_t i = 0; i < kLen; i += 16) {
                    __m512 v[16];
                    for (int l = 0; l < 16; ++l) v[l] = _mm512_load_ps(&tile[l][i]);
                    transpose16(v);
                    for (int l = 0; l < 16; ++l) _mm512_stream_ps(po + (hw0 + i + l) * kC + c, v[l]);
                }
            }
    }
    _mm_sfence();
}

// NHWC + NCHW -> NCHW (a transposed): channel strips of `width` (16 or 32)
// along whole rows; a is read `width` channels (64 or 128 bytes) per pixel
// row, two blocks ahead; b and out along their rows.
template <int width>
__attribute__((target("avx512f"))) void mixed_registers(const float *a, const float *b, float *out, int64_t n0,
                                                        int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
        const float *pa = a + n * kPlane, *pb = b + n * kPlane;
        float *po = out + n * kPlane;
        for (int64_t c0 = 0; c0 < kC; c0 += width)
            for (int64_t hw = 0; hw < kHW; hw += 16)
                for (int64_t c = c0; c < c0 + width; c += 16) {
                    __m512 v[16];
                    for (int l = 0; l < 16; ++l) {
                        const float *x = pa + (hw + l) * kC + c;
                        if (c == c0 && hw + 32 < kHW)
                            for (int k = 0; k < width; k += 16)
                                _mm_prefetch(reinterpret_cast<const char *>(x + 32 * kC + k), _MM_HINT_T0);
                        v[l] = _mm512_load_ps(x);
                    }
                    transpose16(v);
                    for (int l = 0; l < 16; ++l) {
                        const float *y = pb + (c + l) * kHW + hw;
                        _mm_prefetch(reinterpret_cast<const char *>(y) + 128, _MM_HINT_T0);
                        _mm512_stream_ps(po + (c + l) * kHW + hw, _mm512_add_ps(v[l], _mm512_load_ps(y)));
                    }
                }
    }
    _mm_sfence();
}

// NHWC + NCHW -> NCHW in two phases per block of 256 pixels: a's 256 rows
// (256 KiB, contiguous) copied in order into L2, transposed there into
// channel rows, then added to b along whole 1 KiB runs.
__attribute__((target("avx512f"))) void mixed_two_phase(const float *a, const float *b, float *out, int64_t n0,
                                                        int64_t n1) {
    constexpr int64_t kBlock = 256;
    std::vector<float> copy_(kBlock * kC + 16), rows_(kC * (kBlock + 16) + 16);
    float *copy = copy_.data() + (16 - reinterpret_cast<uintptr_t>(copy_.data()) / 4 % 16) % 16;
    float *rows = rows_.data() + (16 - reinterpret_cast<uintptr_t>(rows_.data()) / 4 % 16) % 16;
    constexpr int64_t kPitch = kBlock + 16;
    for (int64_t n = n0; n < n1; ++n) {
        const float *pa = a + n * kPlane, *pb = b + n * kPlane;
        float *po = out + n * kPlane;
        for (int64_t hw0 = 0; hw0 < kHW; hw0 += kBlock) {
            const float *src = pa + hw0 * kC;
            for (int64_t i = 0; i < kBlock * kC; i += 16) {
                _mm_prefetch(reinterpret_cast<const char *>(src + i) + 2048, _MM_HINT_T0);
                _mm512_store_ps(copy + i, _mm512_load_ps(src + i));
            }
            for (int64_t h = 0; h < kBlock; h += 16)
                for (int64_t c = 0; c < kC; c += 16) {
                    __m512 v[16];
                    for (int l = 0; l < 16; ++l) v[l] = _mm512_load_ps(copy + (h + l) * kC + c);
                    transpose16(v);
                    for (int l = 0; l < 16; ++l) _mm512_store_ps(rows + (c + l) * kPitch + h, v[l]);
                }
            for (int64_t c = 0; c < kC; ++c) {
                const float *y = pb + c * kHW + hw0;
                float *z = po + c * kHW + hw0;
                for (int64_t x = 0; x < kBlock; x += 16) {
                    if (c + 2 < kC) _mm_prefetch(reinterpret_cast<const char *>(y + 2 * kHW + x), _MM_HINT_T0);
                    _mm512_stream_ps(z + x,
                                     _mm512_add_ps(_mm512_load_ps(rows + c * kPitch + x), _mm512_load_ps(y + x)));
                }
            }
        }
    }
    _mm_sfence();
}

// Strides of NCHW and NHWC for the probe's shape.
const fusebox::logical_tensor::dims kShape{kN, kC, 64, 64}, kNCHW{kPlane, kHW, 64, 1}, kNHWC{kPlane, 1, 64 * kC, kC};

struct layout_case {
    const char *name;
    fusebox::logical_tensor::dims a, b, out; // strides
    std::vector<std::pair<const char *, walk>> walks;
};

// Element i (NCHW order) of a tensor with `strides`.
int64_t offset(const fusebox::logical_tensor::dims &strides, int64_t i) {
    const int64_t w = i % 64, h = i / 64 % 64, c = i / kHW % kC, n = i / kPlane;
    return n * strides[0] + c * strides[1] + h * strides[2] + w * strides[3];
}

double seconds_of(const std::function<void()> &f) {
    double best = 1e30;
    for (int run = 0; run < 5; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

} // namespace

int main(int argc, char **argv) {
    const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
    if (!__builtin_cpu_supports("avx512f")) {
        std::printf("fusebox-transpose-probe: the walks need AVX-512; this CPU has none\n");
        return 0;
    }
    buffer a, b, out;
    for (int64_t i = 0; i < kElems; ++i) a.p[i] = static_cast<float>(i % 1000), b.p[i] = static_cast<float>(i % 7);
    std::memset(out.p, 0, kBytes);
    tbb::task_arena arena(threads);
    fbtools::traffic streams;
    streams.reads = {kBytes, kBytes}, streams.write = kBytes;
    const fbtools::memory_roof roof = fbtools::measure_roof(streams, threads);
    std::printf("roof: %.1f GB/s (%d threads, %s)\n", roof.gbps, roof.threads, roof.level.c_str());
    std::printf("| case | walk | GB/s | fraction of roof |\n|---|---|---|---|\n");
    const layout_case cases[] = {
        {"NCHW + NCHW -> NHWC",
         kNCHW,
         kNCHW,
         kNHWC,
         {{"registers, streamed", out_registers<true>},
          {"registers, plain stores", out_registers<false>},
          {"L1 tile", out_tile}}},
        {"NHWC + NCHW -> NCHW",
         kNHWC,
         kNCHW,
         kNCHW,
         {{"registers, 64 B of a per row", mixed_registers<16>},
          {"registers, 128 B of a per row", mixed_registers<32>},
          {"a through L2 first", mixed_two_phase}}},
    };
    bool ok = true;
    std::mt19937_64 rng(1);
    for (const layout_case &lc : cases) {
        auto check = [&](const char *who) {
            for (int k = 0; k < 4096; ++k) {
                const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(kElems));
                const float want = a.p[offset(lc.a, i)] + b.p[offset(lc.b, i)];
                if (out.p[offset(lc.out, i)] != want) {
                    std::printf("%s / %s: wrong result at element %lld\n", lc.name, who, static_cast<long long>(i));
                    ok = false;
                    return false;
                }
            }
            return true;
        };
        auto report = [&](const char *who, double s) {
            const double gbps = 3.0 * static_cast<double>(kBytes) / s / 1e9;
            std::printf("| %s | %s | %.1f | %.2f |\n", lc.name, who, gbps, gbps / roof.gbps);
        };
        // fusebox on the same tensors, through the public API.
        {
            namespace fb = fusebox;
            using lt = fb::logical_tensor;
            const lt ta(0, lt::data_type::f32, kShape, lc.a), tb(1, lt::data_type::f32, kShape, lc.b),
                to(2, lt::data_type::f32, kShape, lc.out);
            fb::graph g(fb::engine::kind::cpu);
            g.add_op(fb::op(0, fb::op::kind::Add, {ta, tb}, {to}, "add"));
            g.finalize();
            const fb::engine eng(fb::engine::kind::cpu);
            fb::stream strm(eng);
            fb::compiled_partition cp = g.get_partitions().at(0).compile({ta, tb}, {to}, eng);
            const std::vector<fb::tensor> ins{fb::tensor(ta, eng, a.p), fb::tensor(tb, eng, b.p)};
            const std::vector<fb::tensor> outs{fb::tensor(to, eng, out.p)};
            auto run = [&] { arena.execute([&] { cp.execute(strm, ins, outs); }); };
            run();
            if (check("fusebox")) report(("fusebox, " + cp.get_impl_info()).c_str(), seconds_of(run));
        }
        for (const auto &[who, fn] : lc.walks) {
            std::memset(out.p, 0, kBytes);
            auto run = [&, fn = fn] {
                arena.execute([&] {
                    tbb::parallel_for(
                        tbb::blocked_range<int64_t>(0, kN, kN / threads),
                        [&](const tbb::blocked_range<int64_t> &r) { fn(a.p, b.p, out.p, r.begin(), r.end()); },
                        tbb::static_partitioner());
                });
            };
            run();
            if (check(who)) report(who, seconds_of(run));
        }
    }
    return ok ? 0 : 1;
}
