// The element loops, written once with Highway and compiled for every x86
// target (SSE4, AVX2, AVX-512); the best one for the CPU is chosen once at
// run time. Vector bodies handle whole vectors; the few elements before an
// aligned streaming store and after the last whole vector run the same
// operation in scalar code.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/native/binary_ops.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h> // must come before highway.h
#include <hwy/highway.h>
// (after highway.h; per target)
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/native/binary_ops.hpp"
#include "kernels/native/half.hpp"
#include "kernels/native/scalar_math.hpp"

#ifndef FUSEBOX_BINARY_OPS_ONCE
#define FUSEBOX_BINARY_OPS_ONCE
namespace fusebox::detail {
namespace {

// Two's-complement wraparound in unsigned arithmetic (no UB); integer
// promotion of narrow types is undone by the final cast.
template <typename T> T wrap(uint64_t v) { return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v)); }

// Integer division as ELEMENTWISE.md fixes it: toward zero, x / 0 = 0,
// INT_MIN / -1 = INT_MIN (wraps); never traps.
template <typename T> T int_divide(T x, T y) {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<T>)
        if (y == -1) return wrap<T>(0 - static_cast<uint64_t>(static_cast<int64_t>(x)));
    return static_cast<T>(x / y);
}

// Mod as ELEMENTWISE.md fixes it for integers: fmod=0 takes the sign of the
// divisor (Python's %), fmod=1 that of the dividend (C's %); x mod 0 = 0 and
// INT_MIN mod -1 = 0, never a trap.
template <typename T> T int_mod(T x, T y, bool c_style) {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
        if (y == -1) return 0;
        const T r = static_cast<T>(x % y);
        return !c_style && r != 0 && ((r < 0) != (y < 0)) ? static_cast<T>(r + y) : r;
    } else {
        return static_cast<T>(x % y);
    }
}

// IEEE 754-2019 maximum / minimum: NaN propagates, -0 < +0.
template <typename T> T ieee_max(T x, T y) {
    if (x != x) return x;
    if (y != y) return y;
    if (x == y) return std::signbit(x) ? y : x;
    return x > y ? x : y;
}
template <typename T> T ieee_min(T x, T y) {
    if (x != x) return x;
    if (y != y) return y;
    if (x == y) return std::signbit(x) ? x : y;
    return x < y ? x : y;
}

void equal_string(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool) {
    auto *a = static_cast<const string_view_t *>(a_), *b = static_cast<const string_view_t *>(b_);
    auto *out = static_cast<uint8_t *>(out_);
    for (int64_t i = 0; i < n; ++i) {
        const string_view_t &x = a[sa * i], &y = b[sb * i];
        out[i] = x.size == y.size && (x.size == 0 || std::memcmp(x.data, y.data, x.size) == 0);
    }
}

// ---- Pow: scalar loops, the same on every target (libm's pow bounds them) ----

// An element of type T as the base of Pow computes it (halves in f32), and back.
template <data_type T> struct pow_type { using storage = void; };
template <> struct pow_type<data_type::f16> {
    using storage = uint16_t;
    static float in(uint16_t v) { return f16_to_f32(v); }
    static uint16_t out(float v) { return f32_to_f16(v); }
};
template <> struct pow_type<data_type::bf16> {
    using storage = uint16_t;
    static float in(uint16_t v) { return bf16_to_f32(v); }
    static uint16_t out(float v) { return f32_to_bf16(v); }
};
#define FUSEBOX_POW_TYPE(DT, T)                                                                                        \
    template <> struct pow_type<DT> {                                                                                  \
        using storage = T;                                                                                             \
        static T in(T v) { return v; }                                                                                 \
        static T out(T v) { return v; }                                                                                \
    };
FUSEBOX_POW_TYPE(data_type::f32, float)
FUSEBOX_POW_TYPE(data_type::f64, double)
FUSEBOX_POW_TYPE(data_type::s8, int8_t)
FUSEBOX_POW_TYPE(data_type::u8, uint8_t)
FUSEBOX_POW_TYPE(data_type::s16, int16_t)
FUSEBOX_POW_TYPE(data_type::u16, uint16_t)
FUSEBOX_POW_TYPE(data_type::s32, int32_t)
FUSEBOX_POW_TYPE(data_type::u32, uint32_t)
FUSEBOX_POW_TYPE(data_type::s64, int64_t)
FUSEBOX_POW_TYPE(data_type::u64, uint64_t)
#undef FUSEBOX_POW_TYPE

// An exponent converted to the integer type I as Cast converts: a float
// truncates toward zero and saturates (NaN -> 0), an integer wraps.
template <typename I, typename E> I exponent_as(E e) {
    if constexpr (std::is_floating_point_v<E>) {
        if (e != e) return 0;
        if (e <= static_cast<E>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
        if (e >= -static_cast<E>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::max();
        return static_cast<I>(e);
    } else {
        return wrap<I>(static_cast<uint64_t>(e));
    }
}

// x^e with two's-complement wraparound, by squaring; a negative exponent
// gives 1 for x = 1, +-1 for x = -1 and 0 otherwise (ELEMENTWISE.md).
template <typename I> I int_pow(I x, I e) {
    if (e < 0) return x == 1 ? 1 : x == -1 ? ((e & 1) ? -1 : 1) : 0;
    uint64_t result = 1, base = static_cast<uint64_t>(static_cast<int64_t>(x));
    for (auto k = static_cast<uint64_t>(e); k; k >>= 1, base *= base)
        if (k & 1) result *= base;
    return wrap<I>(result);
}

// out = base ^ exponent. Float bases: the exponent in the base's compute
// type (f32 for halves), pow evaluated in double and rounded once to it
// (f64: libm's pow), then halves rounded once more, as every f16/bf16 op.
template <data_type TB, data_type TE>
void pow_loop(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool) {
    using B = pow_type<TB>;
    using E = pow_type<TE>;
    auto *a = static_cast<const typename B::storage *>(a_);
    auto *b = static_cast<const typename E::storage *>(b_);
    auto *out = static_cast<typename B::storage *>(out_);
    using X = std::remove_cv_t<decltype(B::in(a[0]))>;
    if constexpr (std::is_same_v<X, float>) {
        // One small integer exponent for the whole run (GELU's x^3, a square):
        // x^k by products in double, each exact but the last, which rounds
        // once, so the double is x^k correctly rounded (pow's result, within
        // libm's accuracy), then rounded to the base type as below.
        const float yf = n > 0 && sb == 0 ? static_cast<float>(E::in(b[0])) : 0.5f;
        const auto run = [&](auto power) {
            for (int64_t i = 0; i < n; ++i)
                out[i] = B::out(static_cast<float>(power(static_cast<double>(B::in(a[sa * i])))));
        };
        if (yf == 2.f) return run([](double x) { return x * x; });
        if (yf == 3.f) return run([](double x) { return x * x * x; });
        if (yf == 4.f) return run([](double x) { return (x * x) * (x * x); });
        if (yf == -1.f) return run([](double x) { return 1 / x; });
        if (yf == -2.f) return run([](double x) { return 1 / (x * x); });
    }
    for (int64_t i = 0; i < n; ++i) {
        const auto x = B::in(a[sa * i]);
        const auto y = E::in(b[sb * i]);
        if constexpr (std::is_same_v<X, double>) {
            out[i] = std::pow(x, static_cast<double>(y));
        } else if constexpr (std::is_same_v<X, float>) {
            const float yf = static_cast<float>(y);
            out[i] = B::out(static_cast<float>(std::pow(static_cast<double>(x), static_cast<double>(yf))));
        } else {
            out[i] = int_pow<X>(x, exponent_as<X>(y));
        }
    }
}

// Registers the loops of f for operands of types a and b, replacing any
// registered before.
void set_binary(element_ops &o, ew_fn f, data_type a, data_type b, binary_loops loops) {
    const int fi = static_cast<int>(f), ai = dtype_index(a), bi = dtype_index(b);
    if (ai == bi) {
        o.binary[fi][ai] = loops;
        return;
    }
    int i = 0;
    while (i < o.n_mixed && !(o.mixed[i].f == fi && o.mixed[i].a == ai && o.mixed[i].b == bi)) ++i;
    if (i == element_ops::kMaxMixed) std::abort(); // (a build with more pairs raises kMaxMixed)
    o.mixed[i] = {static_cast<uint8_t>(fi), static_cast<uint8_t>(ai), static_cast<uint8_t>(bi), loops};
    o.n_mixed = std::max(o.n_mixed, i + 1);
}

template <data_type TB, data_type... TE> void set_pow_row(element_ops &o) {
    (set_binary(o, ew_fn::pow, TB, TE, {pow_loop<TB, TE>, nullptr}), ...);
}

// Pow for every base type of its row and every numeric exponent type.
void set_pow(element_ops &o) {
    using dt = data_type;
#define FUSEBOX_EXPONENTS                                                                                              \
    dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64, dt::u64
    set_pow_row<dt::f16, FUSEBOX_EXPONENTS>(o);
    set_pow_row<dt::bf16, FUSEBOX_EXPONENTS>(o);
    set_pow_row<dt::f32, FUSEBOX_EXPONENTS>(o);
    set_pow_row<dt::f64, FUSEBOX_EXPONENTS>(o);
    set_pow_row<dt::s32, FUSEBOX_EXPONENTS>(o);
    set_pow_row<dt::s64, FUSEBOX_EXPONENTS>(o);
#undef FUSEBOX_EXPONENTS
}

} // namespace
} // namespace fusebox::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace fusebox::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements to process one by one before `out` is aligned for streaming stores
// of `vec_bytes`.
template <typename T> int64_t head_elements(const T *out, size_t vec_bytes, int64_t n) {
    const uintptr_t mis = reinterpret_cast<uintptr_t>(out) % vec_bytes;
    return mis == 0 ? 0 : std::min<int64_t>(n, static_cast<int64_t>((vec_bytes - mis) / sizeof(T)));
}

// Streaming loops prefetch each input this many bytes ahead of its loads:
// the hardware prefetchers alone leave a fifth of the bandwidth unused when
// two inputs and a streamed output interleave (bf16 and f16 Adds measured at
// 0.75-0.85 of the roof without, 1.0 with; doc/PERFORMANCE.md).
constexpr int64_t kPrefetchBytes = 2048;

// Prefetches, kPrefetchBytes ahead, the lines of elements [i, i + n) of an
// input read with stride 0 (nothing to fetch) or 1: at most 8 lines, the
// widest step of a loop (Equal of f64 on AVX-512). No loop: GCC deletes a
// loop whose body is only prefetches.
template <typename T> HWY_INLINE void prefetch_ahead(const T *p, int64_t stride, int64_t i, int64_t n) {
    if (!stride) return;
    const char *at = reinterpret_cast<const char *>(p + i) + kPrefetchBytes;
    const int64_t bytes = n * static_cast<int64_t>(sizeof(T));
    __builtin_prefetch(at, 0, 3);
    if (bytes > 64) __builtin_prefetch(at + 64, 0, 3);
    if (bytes > 128) __builtin_prefetch(at + 128, 0, 3), __builtin_prefetch(at + 192, 0, 3);
    if (bytes > 256)
        __builtin_prefetch(at + 256, 0, 3), __builtin_prefetch(at + 320, 0, 3), __builtin_prefetch(at + 384, 0, 3),
            __builtin_prefetch(at + 448, 0, 3);
}

// The one loop every operation runs: out[i, i + lanes) = vec(i) for whole
// vectors, out[i] = scalar(i) for the rest, with aligned non-temporal stores
// and the inputs a and b (strides sa, sb) prefetched ahead when `stream` is
// set. (The prefetches are written out here: GCC deletes them as dead code
// when they sit in a lambda of their own.)
template <class DOut, typename TOut, class VecAt, class ScalarAt, typename A, typename B>
HWY_INLINE void store_loop(DOut dout, int64_t lanes, TOut *out, int64_t n, bool stream, VecAt vec, ScalarAt scalar,
                           const A *a, int64_t sa, const B *b, int64_t sb) {
    int64_t i = 0;
    // Highway streams vectors narrower than 16 bytes as 16 bytes: those store normally.
    if (stream && lanes * sizeof(TOut) >= 16) {
        for (const int64_t head = head_elements(out, lanes * sizeof(TOut), n); i < head; ++i) out[i] = scalar(i);
        for (; i + lanes <= n; i += lanes) {
            prefetch_ahead(a, sa, i, lanes);
            prefetch_ahead(b, sb, i, lanes);
            hn::Stream(vec(i), dout, out + i);
        }
    }
    for (; i + lanes <= n; i += lanes) hn::StoreU(vec(i), dout, out + i);
    for (; i < n; ++i) out[i] = scalar(i);
}

// A vector of lanes [i, i + Lanes(d)) of an operand with stride 0 or 1.
template <class D, typename T> HWY_INLINE auto load_operand(D d, const T *p, int64_t stride, int64_t i) {
    return stride ? hn::LoadU(d, p + i) : hn::Set(d, p[0]);
}

// Calls body(ka, kb) with the strides of two operands as constants
// (std::integral_constant) in the two broadcast forms, one operand repeated
// and the other contiguous (W8's rows); -1 for both otherwise (known at run
// time only). Loops that read several vectors per store (comparisons: four
// or eight per vector of bytes) then hold the repeated operand in a register
// instead of testing the strides at each.
template <class Body> HWY_INLINE void by_broadcast_strides(int64_t sa, int64_t sb, Body body) {
    using k0 = std::integral_constant<int, 0>;
    using k1 = std::integral_constant<int, 1>;
    using kx = std::integral_constant<int, -1>;
    if (sa == 0 && sb == 1)
        body(k0{}, k1{});
    else if (sa == 1 && sb == 0)
        body(k1{}, k0{});
    else
        body(kx{}, kx{});
}

// Lanes [i, i + Lanes(d)) of an operand with stride kStride (0 or 1; -1:
// `stride` at run time); `repeated` is its first element in every lane.
template <int kStride, class D, class Load>
HWY_INLINE hn::Vec<D> operand_at(D d, Load load, int64_t stride, hn::Vec<D> repeated, int64_t i) {
    (void)d;
    if constexpr (kStride == 0) {
        return repeated;
    } else if constexpr (kStride == 1) {
        return load(i);
    } else {
        return stride ? load(i) : repeated;
    }
}

// Boolean bytes (0/1) for elements [i, i + Lanes(du8)): the comparison masks
// of the Lanes(du8) / Lanes(d) vectors of D covering them, packed into one
// vector of bytes, so that every store (or non-temporal store) is a whole
// vector.
template <class D, class MaskAt> HWY_INLINE auto bytes_from_masks(D d, int64_t i, MaskAt mask) {
    const hn::ScalableTag<uint8_t> du8;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
#if HWY_TARGET != HWY_SCALAR
    // 4- and 2-byte lanes: each mask as 0/1 lanes, narrowed (and joined)
    // to bytes in registers, not through the mask bits in memory.
    using TI = hwy::MakeSigned<hn::TFromD<D>>;
#if HWY_TARGET <= HWY_AVX3
    // AVX-512: the masks' bits joined in mask registers, one masked move of
    // ones (AVX512BW) makes the bytes.
    if constexpr (hn::MaxLanes(D()) * sizeof(TI) == 64 && sizeof(TI) >= 2) {
        __mmask64 bits;
        if constexpr (sizeof(TI) == 8) {
            __mmask32 half[2];
            for (int h = 0; h < 2; ++h) {
                const int64_t at = i + 4 * h * lanes;
                half[h] = _mm512_kunpackw(_mm512_kunpackb(mask(at + 3 * lanes).raw, mask(at + 2 * lanes).raw),
                                          _mm512_kunpackb(mask(at + lanes).raw, mask(at).raw));
            }
            bits = _mm512_kunpackd(half[1], half[0]);
        } else if constexpr (sizeof(TI) == 4) {
            const __mmask32 lo = _mm512_kunpackw(mask(i + lanes).raw, mask(i).raw);
            const __mmask32 hi = _mm512_kunpackw(mask(i + 3 * lanes).raw, mask(i + 2 * lanes).raw);
            bits = _mm512_kunpackd(hi, lo);
        } else {
            bits = _mm512_kunpackd(mask(i + lanes).raw, mask(i).raw);
        }
        return hn::Vec<decltype(du8)>{_mm512_maskz_set1_epi8(bits, 1)};
    }
#elif HWY_TARGET == HWY_AVX2
    // AVX2: the masks as all-ones lanes, packed with saturation within each
    // 128-bit half, then one permute puts the groups in order.
    if constexpr (hn::MaxLanes(D()) * sizeof(TI) == 32 && (sizeof(TI) == 4 || sizeof(TI) == 2)) {
        const hn::RebindToSigned<D> di;
        auto lanes_of = [&](int64_t j) { return hn::VecFromMask(di, hn::RebindMask(di, mask(i + j * lanes))).raw; };
        __m256i packed;
        if constexpr (sizeof(TI) == 4) {
            const __m256i p01 = _mm256_packs_epi32(lanes_of(0), lanes_of(1));
            const __m256i p23 = _mm256_packs_epi32(lanes_of(2), lanes_of(3));
            // Dwords now hold v0[0:4] v1[0:4] v2[0:4] v3[0:4] | v0[4:8] v1[4:8] v2[4:8] v3[4:8].
            packed =
                _mm256_permutevar8x32_epi32(_mm256_packs_epi16(p01, p23), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        } else {
            // Qwords hold v0[0:8] v1[0:8] | v0[8:16] v1[8:16].
            packed = _mm256_permute4x64_epi64(_mm256_packs_epi16(lanes_of(0), lanes_of(1)), 0xD8);
        }
        return hn::And(hn::Vec<decltype(du8)>{packed}, hn::Set(du8, 1));
    }
    // 8-byte lanes: the low dwords of two masks' qwords joined by one
    // in-lane shuffle (dwords then hold elements 8k + 0 1 4 5 | 2 3 6 7),
    // packed as above; the 128-bit halves then hold the even and the odd
    // pairs of bytes, which a qword permute and a byte shuffle interleave.
    if constexpr (hn::MaxLanes(D()) * sizeof(TI) == 32 && sizeof(TI) == 8) {
        const hn::RebindToSigned<D> di;
        auto pair = [&](int64_t k) {
            auto lanes_of = [&](int64_t j) {
                return _mm256_castsi256_ps(hn::VecFromMask(di, hn::RebindMask(di, mask(i + j * lanes))).raw);
            };
            return _mm256_castps_si256(_mm256_shuffle_ps(lanes_of(2 * k), lanes_of(2 * k + 1), 0x88));
        };
        const __m256i p01 = _mm256_packs_epi32(pair(0), pair(1)), p23 = _mm256_packs_epi32(pair(2), pair(3));
        const __m256i halves = _mm256_permute4x64_epi64(_mm256_packs_epi16(p01, p23), 0xD8);
        const __m256i order = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 0, 1, 8, 9, 2, 3,
                                               10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
        return hn::And(hn::Vec<decltype(du8)>{_mm256_shuffle_epi8(halves, order)}, hn::Set(du8, 1));
    }
#endif
    if constexpr (sizeof(TI) == 4 || sizeof(TI) == 2) {
        const hn::RebindToSigned<D> di;
        const hn::Half<decltype(du8)> dh8;
        auto ones = [&](int64_t j) {
            return hn::IfThenElseZero(hn::RebindMask(di, mask(i + j * lanes)), hn::Set(di, TI{1}));
        };
        if constexpr (sizeof(TI) == 2) {
            return hn::Combine(du8, hn::DemoteTo(dh8, ones(1)), hn::DemoteTo(dh8, ones(0)));
        } else {
            const hn::Repartition<int16_t, decltype(di)> d16;
            const hn::Half<decltype(d16)> dh16;
            const auto lo = hn::Combine(d16, hn::DemoteTo(dh16, ones(1)), hn::DemoteTo(dh16, ones(0)));
            const auto hi = hn::Combine(d16, hn::DemoteTo(dh16, ones(3)), hn::DemoteTo(dh16, ones(2)));
            return hn::Combine(du8, hn::DemoteTo(dh8, hi), hn::DemoteTo(dh8, lo));
        }
    }
#endif
    const int64_t vectors = static_cast<int64_t>(hn::Lanes(du8)) / lanes;
    uint64_t packed = 0;
    for (int64_t j = 0; j < vectors; ++j) {
        uint8_t bits[8] = {};
        hn::StoreMaskBits(d, mask(i + j * lanes), bits);
        uint64_t b;
        std::memcpy(&b, bits, 8);
        packed |= b << (j * lanes);
    }
    uint8_t bytes[8];
    std::memcpy(bytes, &packed, 8);
    return hn::And(hn::VecFromMask(du8, hn::LoadMaskBits(du8, bytes)), hn::Set(du8, 1));
}

// The bodies of the kernel functions: one small functor each, a vector body
// (`vec` on vectors, or `mask` for comparisons) and a scalar body (`scalar`)
// over elements of one type. `vector<T>` says whether the vector body exists
// for T (Highway has no integer divide).
// f16/bf16 run these on f32 (binary_f32) and round once.
template <typename T> constexpr bool kIsInt = std::is_integral_v<T>;

struct add_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::Add(a, b); }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return wrap<T>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
        else
            return x + y;
    }
};
struct subtract_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::Sub(a, b); }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return wrap<T>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
        else
            return x - y;
    }
};
// Highway multiplies 16- and 32-bit integer lanes only: 64-bit products are
// put together from 32-bit ones (the low half of x y is xlo ylo plus the low
// halves of xhi ylo and xlo yhi shifted up), 8-bit ones taken from 16-bit
// products (the low byte of each lane's product, the high byte of the odd
// bytes' product with the other operand's odd byte in place).
struct multiply_fn {
    template <typename T>
    static constexpr bool vector = !kIsInt<T> || sizeof(T) == 2 || sizeof(T) == 4 || HWY_TARGET != HWY_SCALAR;
    template <class V> static V vec(V a, V b) {
        using T = hn::TFromV<V>;
        if constexpr (!kIsInt<T> || sizeof(T) == 2 || sizeof(T) == 4) {
            return hn::Mul(a, b);
        } else if constexpr (sizeof(T) == 8) {
            const hn::DFromV<V> d;
            const hn::RebindToUnsigned<decltype(d)> du;
            const hn::Repartition<uint32_t, decltype(du)> d32;
            const auto x = hn::BitCast(du, a), y = hn::BitCast(du, b);
            const auto low = hn::MulEven(hn::BitCast(d32, x), hn::BitCast(d32, y));
            const auto cross = hn::Add(hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(x)), hn::BitCast(d32, y)),
                                       hn::MulEven(hn::BitCast(d32, x), hn::BitCast(d32, hn::ShiftRight<32>(y))));
            return hn::BitCast(d, hn::Add(low, hn::ShiftLeft<32>(cross)));
        } else {
            const hn::DFromV<V> d;
            const hn::Repartition<uint16_t, decltype(d)> d16;
            const auto x = hn::BitCast(d16, a), y = hn::BitCast(d16, b);
            const auto even = hn::And(hn::Mul(x, y), hn::Set(d16, 0x00FF));
            const auto odd = hn::Mul(hn::ShiftRight<8>(x), hn::And(y, hn::Set(d16, 0xFF00)));
            return hn::BitCast(d, hn::Or(even, odd));
        }
    }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return wrap<T>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
        else
            return x * y;
    }
};
struct divide_fn {
    template <typename T> static constexpr bool vector = !kIsInt<T>;
    template <class V> static V vec(V a, V b) { return hn::Div(a, b); }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return int_divide(x, y);
        else
            return x / y;
    }
};
// Floats: a NaN operand gives that NaN, and equal operands (+0 and -0
// among them) combine their bits: AND clears the sign unless both are -0
// (maximum), OR sets it if either is (minimum).
struct maximum_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) {
        if constexpr (std::is_floating_point_v<hn::TFromV<V>>) {
            const auto r = hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), hn::Max(a, b));
            return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, r));
        } else {
            return hn::Max(a, b);
        }
    }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return x > y ? x : y;
        else
            return ieee_max(x, y);
    }
};
struct minimum_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) {
        if constexpr (std::is_floating_point_v<hn::TFromV<V>>) {
            const auto r = hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), hn::Min(a, b));
            return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, r));
        } else {
            return hn::Min(a, b);
        }
    }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return x < y ? x : y;
        else
            return ieee_min(x, y);
    }
};

// Mod: no vector body (integer division, and fmod). kSignOfDividend: fmod=1
// (C's %, and fmod for floats); else fmod=0, integers only, the sign of the divisor.
template <bool kSignOfDividend> struct mod_fn {
    template <typename T> static constexpr bool vector = false;
    template <class V> static V vec(V a, V) { return a; }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (kIsInt<T>)
            return int_mod(x, y, kSignOfDividend);
        else
            return std::fmod(x, y);
    }
};

// Comparisons (IEEE: NaN compares false). Integers have no Ge/Le in Highway:
// the negation of the strict order (no NaN there).
template <class V> constexpr bool kFloatLanes = std::is_floating_point_v<hn::TFromV<V>>;
struct equal_fn {
    template <class V> static auto mask(V a, V b) { return hn::Eq(a, b); }
    template <typename T> static bool scalar(T x, T y) { return x == y; }
};
struct greater_fn {
    template <class V> static auto mask(V a, V b) { return hn::Gt(a, b); }
    template <typename T> static bool scalar(T x, T y) { return x > y; }
};
struct greater_equal_fn {
    template <class V> static auto mask(V a, V b) {
        if constexpr (kFloatLanes<V>)
            return hn::Ge(a, b);
        else
            return hn::Not(hn::Lt(a, b));
    }
    template <typename T> static bool scalar(T x, T y) { return x >= y; }
};
struct less_fn {
    template <class V> static auto mask(V a, V b) { return hn::Lt(a, b); }
    template <typename T> static bool scalar(T x, T y) { return x < y; }
};
struct less_equal_fn {
    template <class V> static auto mask(V a, V b) {
        if constexpr (kFloatLanes<V>)
            return hn::Le(a, b);
        else
            return hn::Not(hn::Gt(a, b));
    }
    template <typename T> static bool scalar(T x, T y) { return x <= y; }
};

// Logical ops over boolean bytes (any nonzero byte is true; results 0/1).
template <class V> V as_bit(V v) { return hn::Min(v, hn::Set(hn::DFromV<V>(), 1)); }
struct logical_and_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::And(as_bit(a), as_bit(b)); }
    template <typename T> static T scalar(T x, T y) { return (x != 0) && (y != 0); }
};
struct logical_or_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::Or(as_bit(a), as_bit(b)); }
    template <typename T> static T scalar(T x, T y) { return (x != 0) || (y != 0); }
};
struct logical_xor_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::Xor(as_bit(a), as_bit(b)); }
    template <typename T> static T scalar(T x, T y) { return (x != 0) != (y != 0); }
};
struct logical_not_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a) { return hn::Xor(as_bit(a), hn::Set(hn::DFromV<V>(), 1)); }
    template <typename T> static T scalar(T x) { return x == 0; }
};
// Bitwise ops over integers.
struct bitwise_and_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::And(a, b); }
    template <typename T> static T scalar(T x, T y) { return static_cast<T>(x & y); }
};
struct bitwise_or_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::Or(a, b); }
    template <typename T> static T scalar(T x, T y) { return static_cast<T>(x | y); }
};
struct bitwise_xor_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) { return hn::Xor(a, b); }
    template <typename T> static T scalar(T x, T y) { return static_cast<T>(x ^ y); }
};
struct bitwise_not_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a) { return hn::Not(a); }
    template <typename T> static T scalar(T x) { return static_cast<T>(~x); }
};
// BitShift of unsigned integers: counts of the bit width or more give 0.
// Vectors of 32- and 64-bit lanes (Highway's variable shifts), and of
// 16-bit lanes with AVX-512 (which has them there): lanes with such a count
// zeroed, the others shifted by their count (masked, so that no lane shifts
// by the width). 8-bit lanes, and 16-bit ones below AVX-512, by a ladder:
// a constant shift by 1, 2, 4 (and 8) in the lanes whose count has that bit.
template <bool kLeft, class V> HWY_INLINE V shift_ladder(V a, V counts) {
    using T = hn::TFromV<V>;
    const hn::DFromV<V> d;
    auto step = [&](auto shifted, T bit) { return hn::IfThenElse(hn::TestBit(counts, hn::Set(d, bit)), shifted, a); };
    if constexpr (kLeft) {
        a = step(hn::ShiftLeft<1>(a), 1), a = step(hn::ShiftLeft<2>(a), 2), a = step(hn::ShiftLeft<4>(a), 4);
        if constexpr (sizeof(T) == 2) a = step(hn::ShiftLeft<8>(a), 8);
    } else {
        a = step(hn::ShiftRight<1>(a), 1), a = step(hn::ShiftRight<2>(a), 2), a = step(hn::ShiftRight<4>(a), 4);
        if constexpr (sizeof(T) == 2) a = step(hn::ShiftRight<8>(a), 8);
    }
    constexpr int kLog2Bits = sizeof(T) == 1 ? 3 : 4;
    return hn::IfThenZeroElse(hn::Ne(hn::ShiftRight<kLog2Bits>(counts), hn::Zero(d)), a);
}
template <typename T> constexpr bool kShiftLadder = sizeof(T) == 1 || (sizeof(T) == 2 && HWY_TARGET > HWY_AVX3);
template <class V> HWY_INLINE auto shift_past_width(V counts) {
    constexpr int kLog2Bits = sizeof(hn::TFromV<V>) == 2 ? 4 : sizeof(hn::TFromV<V>) == 4 ? 5 : 6;
    return hn::Ne(hn::ShiftRight<kLog2Bits>(counts), hn::Zero(hn::DFromV<V>()));
}
template <class V> HWY_INLINE V shift_count(V counts) {
    return hn::And(counts, hn::Set(hn::DFromV<V>(), hn::TFromV<V>(8 * sizeof(hn::TFromV<V>) - 1)));
}
struct shift_left_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) {
        if constexpr (kShiftLadder<hn::TFromV<V>>)
            return shift_ladder<true>(a, b);
        else
            return hn::IfThenZeroElse(shift_past_width(b), hn::Shl(a, shift_count(b)));
    }
    template <typename T> static T scalar(T x, T y) {
        return static_cast<uint64_t>(y) >= 8 * sizeof(T) ? T{0} : static_cast<T>(x << y);
    }
};
struct shift_right_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) {
        if constexpr (kShiftLadder<hn::TFromV<V>>)
            return shift_ladder<false>(a, b);
        else
            return hn::IfThenZeroElse(shift_past_width(b), hn::Shr(a, shift_count(b)));
    }
    template <typename T> static T scalar(T x, T y) {
        return static_cast<uint64_t>(y) >= 8 * sizeof(T) ? T{0} : static_cast<T>(x >> y);
    }
};

// PReLU: x < 0 ? x * slope : x (the product wraps for integers).
struct prelu_fn {
    template <typename T> static constexpr bool vector = !kIsInt<T> || (sizeof(T) == 4 && std::is_signed_v<T>);
    template <class V> static V vec(V a, V b) {
        return hn::IfThenElse(hn::Lt(a, hn::Zero(hn::DFromV<V>())), hn::Mul(a, b), a);
    }
    template <typename T> static T scalar(T x, T y) {
        if constexpr (std::is_unsigned_v<T>)
            return x;
        else
            return x < 0 ? multiply_fn::scalar<T>(x, y) : x;
    }
};

// A copy (Sum, Mean, Max and Min of one input).
struct identity_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a) { return a; }
    template <typename T> static T scalar(T x) { return x; }
};

// out = F(a) over one type T.
template <class F, typename T>
void unary(const void *const *in, const int64_t *strides, void *out_, int64_t n, bool stream) {
    const T *a = static_cast<const T *>(in[0]);
    const int64_t sa = strides[0];
    T *out = static_cast<T *>(out_);
    auto scalar = [&](int64_t i) { return F::template scalar<T>(a[sa * i]); };
    if constexpr (F::template vector<T>) {
        const hn::ScalableTag<T> d;
        store_loop(
            d, hn::Lanes(d), out, n, stream, [&](int64_t i) { return F::vec(load_operand(d, a, sa, i)); }, scalar, a,
            sa, a, int64_t{0});
    } else {
        static_cast<void>(stream);
        for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
    }
}

// out = cond ? x : y (Where, Select) for elements of T's size; the condition
// is boolean bytes, any nonzero byte true.
// Vector bodies for elements of 1, 2, 4 and 8 bytes: the condition bytes
// widen to the values' lanes and select.
template <typename T> void select_values(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    const uint8_t *c = static_cast<const uint8_t *>(in[0]);
    const T *x = static_cast<const T *>(in[1]), *y = static_cast<const T *>(in[2]);
    T *out = static_cast<T *>(out_);
    auto scalar = [&](int64_t i) { return c[st[0] * i] ? x[st[1] * i] : y[st[2] * i]; };
    if constexpr (std::is_integral_v<T>) {
        const hn::ScalableTag<T> d;
        const hn::Rebind<uint8_t, decltype(d)> d8; // one condition byte per lane
        const auto all = hn::Set(d, T(c[0] != 0 ? ~T{0} : 0));
        auto condition = [&](int64_t i) {
            if (!st[0]) return all;
            const auto bytes = hn::LoadU(d8, c + i);
            if constexpr (sizeof(T) == 1) {
                return bytes;
            } else if constexpr (sizeof(T) <= 4) {
                return hn::PromoteTo(d, bytes);
            } else {
                const hn::Rebind<uint32_t, decltype(d)> d32;
                return hn::PromoteTo(d, hn::PromoteTo(d32, bytes));
            }
        };
        store_loop(
            d, hn::Lanes(d), out, n, stream,
            [&](int64_t i) {
                return hn::IfThenElse(hn::Ne(condition(i), hn::Zero(d)), load_operand(d, x, st[1], i),
                                      load_operand(d, y, st[2], i));
            },
            scalar, x, st[1], y, st[2]);
    } else {
        static_cast<void>(stream);
        for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
    }
}

// Dividends whose quotient by any divisor in the same range is computed
// without a division (divide_by_one): no intermediate of the corrections
// under- or overflows there.
template <typename T> constexpr T kDivideSafe = sizeof(T) == 4 ? T(0x1p60) : T(0x1p500);

#if HWY_TARGET <= HWY_AVX2
// x / d for one divisor d in every lane, x in [1/kDivideSafe, kDivideSafe]
// and d too: with inv = 1 / d correctly rounded, q0 = x inv is within two
// ulps of x / d; one correction by the remainder (exact with FMA) brings it
// within one, and a second is then the correctly rounded quotient
// (Markstein: a quotient within an ulp and the rounded reciprocal give
// RN(q + (x - q d) inv) = RN(x / d)). Five FMA-unit operations instead of a
// division, whose unit is slower and shared by the core's two threads.
template <class V> HWY_INLINE V divide_by(V x, V d, V inv) {
    const V q0 = hn::Mul(x, inv);
    const V q1 = hn::MulAdd(hn::NegMulAdd(q0, d, x), inv, q0);
    return hn::MulAdd(hn::NegMulAdd(q1, d, x), inv, q1);
}
#endif

// out = a / b[0] for contiguous f32 or f64 a, when b[0] is within the safe
// range: vectors whose every dividend is in it by divide_by, the others (a
// zero, an infinity or NaN, a huge or tiny value) by division. False (nothing
// written) when b[0] is out of range or the target has no FMA.
template <typename T> bool divide_by_one(const T *a, T b, T *out, int64_t n, bool stream) {
#if HWY_TARGET <= HWY_AVX2
    const T safe = kDivideSafe<T>, ab = std::fabs(b);
    if (!(ab >= 1 / safe && ab <= safe)) return false;
    const hn::ScalableTag<T> d;
    const auto by = hn::Set(d, b), inv = hn::Set(d, T(1) / b), lo = hn::Set(d, 1 / safe), hi = hn::Set(d, safe);
    store_loop(
        d, hn::Lanes(d), out, n, stream,
        [&](int64_t i) {
            const auto x = hn::LoadU(d, a + i), ax = hn::Abs(x);
            return hn::AllTrue(d, hn::And(hn::Ge(ax, lo), hn::Le(ax, hi))) ? divide_by(x, by, inv) : hn::Div(x, by);
        },
        [&](int64_t i) { return a[i] / b; }, a, 1, &b, 0);
    return true;
#else
    (void)a, (void)b, (void)out, (void)n, (void)stream;
    return false;
#endif
}

// out = F(a, b) over one type T (integers wrap; floats IEEE).
template <class F, typename T>
void binary(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool stream) {
    const T *a = static_cast<const T *>(a_), *b = static_cast<const T *>(b_);
    T *out = static_cast<T *>(out_);
    auto scalar = [&](int64_t i) { return F::template scalar<T>(a[sa * i], b[sb * i]); };
    if constexpr (std::is_same_v<F, divide_fn> && std::is_floating_point_v<T>) {
        if (sa == 1 && sb == 0 && divide_by_one(a, b[0], out, n, stream)) return;
    }
    if constexpr (F::template vector<T>) {
        const hn::ScalableTag<T> d;
        store_loop(
            d, hn::Lanes(d), out, n, stream,
            [&](int64_t i) { return F::vec(load_operand(d, a, sa, i), load_operand(d, b, sb, i)); }, scalar, a, sa, b,
            sb);
    } else {
        static_cast<void>(stream);
        for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
    }
}

// A comparison F as boolean bytes; for boolean inputs (Equal) any nonzero
// byte is true.
template <class F, typename T, bool kBoolean = false>
void compare(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool stream) {
    const T *a = static_cast<const T *>(a_), *b = static_cast<const T *>(b_);
    uint8_t *out = static_cast<uint8_t *>(out_);
    const hn::ScalableTag<T> d;
    const hn::ScalableTag<uint8_t> du8;
    if (n <= 0) return;
    auto scalar = [&](int64_t i) -> uint8_t {
        const T x = a[sa * i], y = b[sb * i];
        return kBoolean ? (x != 0) == (y != 0) : F::template scalar<T>(x, y);
    };
    const auto a0 = hn::Set(d, a[0]), b0 = hn::Set(d, b[0]);
    // (Every lambda inlined: GCC otherwise calls the bytes of each vector as
    // a function, spilling around it; AVX2's dense f64 Greater 1.15x slower.)
    auto run = [&](auto ka, auto kb) __attribute__((always_inline)) {
        auto mask = [&](int64_t i) __attribute__((always_inline)) {
            const auto x = operand_at<decltype(ka)::value>(
                d, [&](int64_t j) { return hn::LoadU(d, a + j); }, sa, a0, i);
            const auto y = operand_at<decltype(kb)::value>(
                d, [&](int64_t j) { return hn::LoadU(d, b + j); }, sb, b0, i);
            if constexpr (kBoolean) {
                const auto zero = hn::Zero(d);
                return hn::Not(hn::Xor(hn::Eq(x, zero), hn::Eq(y, zero)));
            } else {
                return F::mask(x, y);
            }
        };
        if constexpr (sizeof(T) == 1) {
            store_loop(
                du8, hn::Lanes(du8), out, n, stream,
                [&](int64_t i) __attribute__((always_inline)) {
                    return hn::And(hn::BitCast(du8, hn::VecFromMask(d, mask(i))), hn::Set(du8, 1));
                },
                scalar, a, sa, b, sb);
        } else {
            store_loop(
                du8, hn::Lanes(du8), out, n,
                stream, [&](int64_t i) __attribute__((always_inline)) { return bytes_from_masks(d, i, mask); }, scalar,
                a, sa, b, sb);
        }
    };
    if constexpr (sizeof(T) >= 4)
        by_broadcast_strides(sa, sb, run);
    else
        run(std::integral_constant<int, -1>{}, std::integral_constant<int, -1>{});
}

// f16, bf16 and f32 operands are computed in f32: each type knows how to load
// a vector as f32 and store an f32 vector back, rounding to nearest even.
struct f32_io {
    using storage = float;
    template <class D> static auto load(D df, const float *p) { return hn::LoadU(df, p); }
    template <class D> static auto narrow(D df, hn::Vec<D> v) {
        (void)df;
        return v;
    }
    template <class D> using narrow_tag = D;
    template <class D> static auto round(D df, hn::Vec<D> v) {
        (void)df;
        return v;
    }
    static float to_f32(float x) { return x; }
    static float from_f32(float x) { return x; }
};

struct bf16_io {
    using storage = uint16_t;
    template <class D> static auto load(D df, const uint16_t *p) {
        const hn::Rebind<uint32_t, D> du32;
        const hn::Rebind<uint16_t, D> du16;
        return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
    }
    // Rounds in integer arithmetic within each 32-bit lane, the bf16 landing
    // in the upper half: keeps subnormals, quiets NaN.
    template <class D> static auto round_in_lanes(hn::Vec<D> v) {
        const hn::Rebind<uint32_t, D> du32;
        const auto bits = hn::BitCast(du32, v);
        const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1));
        const auto rounded = hn::Add(bits, hn::Add(hn::Set(du32, 0x7FFF), lsb));
        const auto quiet = hn::Or(bits, hn::Set(du32, 0x400000));
        return hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), quiet, rounded);
    }
    template <class D> static auto narrow(D df, hn::Vec<D> v) {
        (void)df;
        const hn::Rebind<int32_t, D> di32;
        const hn::Rebind<uint16_t, D> du16;
        const auto upper = hn::ShiftRight<16>(round_in_lanes<D>(v));
        return hn::DemoteTo(du16, hn::BitCast(di32, upper)); // values fit: exact
    }
    template <class D> using narrow_tag = hn::Rebind<uint16_t, D>;
    // v rounded to a bf16 value, kept in f32 lanes.
    template <class D> static auto round(D df, hn::Vec<D> v) {
        const hn::Rebind<uint32_t, D> du32;
        return hn::BitCast(df, hn::And(round_in_lanes<D>(v), hn::Set(du32, 0xFFFF0000u)));
    }
#if HWY_TARGET != HWY_SCALAR
    // Two vectors into one full-width vector of bf16 bits: each rounded in
    // its lanes, upper halves packed.
    template <class D> static auto narrow2(D df, hn::Vec<D> lo, hn::Vec<D> hi) {
        (void)df;
        const hn::Repartition<uint16_t, D> du16;
        return hn::ConcatOdd(du16, hn::BitCast(du16, round_in_lanes<D>(hi)), hn::BitCast(du16, round_in_lanes<D>(lo)));
    }
    // The same for the even and the odd elements of one vector of bf16
    // (what load_pairs gives): the 32-bit lanes of the result hold each
    // rounded pair in memory order again.
    template <class D> static auto narrow2_pairs(D df, hn::Vec<D> even, hn::Vec<D> odd) {
        (void)df;
        const hn::Rebind<uint32_t, D> du32;
        const hn::Repartition<uint16_t, D> du16;
        return hn::BitCast(du16, hn::Or(hn::ShiftRight<16>(round_in_lanes<D>(even)),
                                        hn::And(round_in_lanes<D>(odd), hn::Set(du32, 0xFFFF0000u))));
    }
    // Elements [i, i + 2 Lanes(df)) as f32 without a shuffle: each 32-bit lane
    // holds two bf16, the even element in its low half and the odd one in its
    // high half, so a shift and a mask widen them.
    template <class D> static void load_pairs(D df, const uint16_t *p, hn::Vec<D> &even, hn::Vec<D> &odd) {
        const hn::Rebind<uint32_t, D> du32;
        const hn::Repartition<uint16_t, D> du16;
        const auto v = hn::BitCast(du32, hn::LoadU(du16, p));
        even = hn::BitCast(df, hn::ShiftLeft<16>(v));
        odd = hn::BitCast(df, hn::And(v, hn::Set(du32, 0xFFFF0000u)));
    }
#endif
    static float to_f32(uint16_t x) { return detail::bf16_to_f32(x); }
    static uint16_t from_f32(float x) { return detail::f32_to_bf16(x); }
};

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// bf16 outputs through AVX512_BF16's conversion, on CPUs that have it (the
// ops table checks): vcvtne2ps2bf16 rounds two f32 vectors to nearest even
// into one bf16 vector in a single instruction, where the integer rounding
// takes fifteen. It flushes subnormal f32 to zero, so vectors holding a
// subnormal or a NaN lane take the integer rounding and every result stays
// bit-identical. Inline assembly: the instruction is outside the target
// Highway compiles this code for.
struct bf16_cvt_io : bf16_io {
    // The lanes the instruction does not round as the integer path does.
    template <class V> static __mmask16 subnormal_or_nan(V v) {
        return _mm512_fpclass_ps_mask(v.raw, 0x01 | 0x20 | 0x80); // fpclass: QNaN, denormal, SNaN
    }
    template <class D> static auto narrow2(D df, hn::Vec<D> lo, hn::Vec<D> hi) {
        if (HWY_UNLIKELY(_kor_mask16(subnormal_or_nan(lo), subnormal_or_nan(hi)))) return bf16_io::narrow2(df, lo, hi);
        __m512i packed;
        asm("vcvtne2ps2bf16 %2, %1, %0" : "=v"(packed) : "v"(hi.raw), "v"(lo.raw));
        return hn::Vec512<uint16_t>{packed};
    }
    // Even and odd elements: converted as above into [even | odd] halves,
    // then interleaved back into memory order with one word permute.
    template <class D> static auto narrow2_pairs(D df, hn::Vec<D> even, hn::Vec<D> odd) {
        if (HWY_UNLIKELY(_kor_mask16(subnormal_or_nan(even), subnormal_or_nan(odd))))
            return bf16_io::narrow2_pairs(df, even, odd);
        __m512i packed;
        asm("vcvtne2ps2bf16 %2, %1, %0" : "=v"(packed) : "v"(odd.raw), "v"(even.raw));
        const __m512i order = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                               6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
        return hn::Vec512<uint16_t>{_mm512_permutexvar_epi16(order, packed)};
    }
    // One vector of 16 f32 into 16 bf16 by vcvtneps2bf16, for loops that
    // round 16 sums at a time (add_in_transposed_bf16); narrow stays the
    // integer rounding for the loops that use it.
    template <class D> static auto narrow_one(D df, hn::Vec<D> v) {
        if (HWY_UNLIKELY(subnormal_or_nan(v))) return bf16_io::narrow(df, v);
        __m256i packed;
        asm("vcvtneps2bf16 %1, %0" : "=v"(packed) : "v"(v.raw));
        return hn::Vec256<uint16_t>{packed};
    }
};
#endif

struct f16_io {
    using storage = uint16_t;
    template <class D> static auto load(D df, const uint16_t *p) {
        const hn::Rebind<hwy::float16_t, D> df16;
        return hn::PromoteTo(df, hn::LoadU(df16, reinterpret_cast<const hwy::float16_t *>(p)));
    }
    template <class D> static auto narrow(D df, hn::Vec<D> v) {
        (void)df;
        const hn::Rebind<hwy::float16_t, D> df16;
        const hn::Rebind<uint16_t, D> du16;
        return hn::BitCast(du16, hn::DemoteTo(df16, v));
    }
    template <class D> using narrow_tag = hn::Rebind<uint16_t, D>;
    // v rounded to an f16 value, kept in f32 lanes.
    template <class D> static auto round(D df, hn::Vec<D> v) {
        const hn::Rebind<hwy::float16_t, D> df16;
        return hn::PromoteTo(df, hn::DemoteTo(df16, v));
    }
#if HWY_TARGET != HWY_SCALAR
    // Two vectors into one full-width vector of f16 bits (F16C / AVX-512
    // conversions: exact round to nearest even, subnormals kept).
    template <class D> static auto narrow2(D df, hn::Vec<D> lo, hn::Vec<D> hi) {
        const hn::Repartition<uint16_t, D> du16;
        const hn::Half<decltype(du16)> dh;
        return hn::Combine(du16, hn::BitCast(dh, narrow(df, hi)), hn::BitCast(dh, narrow(df, lo)));
    }
#endif
    static float to_f32(uint16_t x) { return detail::f16_to_f32(x); }
    static uint16_t from_f32(float x) { return detail::f32_to_f16(x); }
};

// Vector f16 conversions are exact only with F16C (AVX2 and later): without
// it Highway's f32 -> f16 truncates and its f16 -> f32 misreads inf and NaN,
// so older targets run every loop touching f16 in scalar code.
constexpr bool kVectorF16 = HWY_TARGET <= HWY_AVX2;

// oneDNN Graph's SquaredDifference over IO's type: (a - b) rounded to the
// type, then squared (the product of two f32, f16 or bf16 values is exact in
// f32 before its own rounding): the bits of Subtract then Multiply, one pass.
template <class IO> struct squared_difference_fn {
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V a, V b) {
        const V d = IO::round(hn::DFromV<V>(), hn::Sub(a, b));
        return hn::Mul(d, d);
    }
    template <typename T> static T scalar(T x, T y) {
        const T d = IO::to_f32(IO::from_f32(x - y));
        return d * d;
    }
};

// out = F(a, b) with a, b, out each f16, bf16 or f32; computed in f32, rounded once.
template <class F, class A, class B, class O>
void binary_f32(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool stream) {
    auto *a = static_cast<const typename A::storage *>(a_);
    auto *b = static_cast<const typename B::storage *>(b_);
    auto *out = static_cast<typename O::storage *>(out_);
    auto scalar = [&](int64_t i) {
        return O::from_f32(F::template scalar<float>(A::to_f32(a[sa * i]), B::to_f32(b[sb * i])));
    };
    constexpr bool any_f16 = std::is_same_v<A, f16_io> || std::is_same_v<B, f16_io> || std::is_same_v<O, f16_io>;
    if constexpr ((!kVectorF16 && any_f16) || !F::template vector<float>) {
        for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
        (void)stream;
    } else {
        const hn::ScalableTag<float> df;
        const auto a0 = hn::Set(df, A::to_f32(a[0])), b0 = hn::Set(df, B::to_f32(b[0]));
        auto sum = [&](int64_t i) { return F::vec(sa ? A::load(df, a + i) : a0, sb ? B::load(df, b + i) : b0); };
        constexpr bool kPairs = std::is_same_v<A, bf16_io> && std::is_same_v<B, bf16_io>;
        if constexpr (kPairs && HWY_TARGET != HWY_SCALAR) {
#if HWY_TARGET != HWY_SCALAR
            // bf16 + bf16 -> bf16: the even and odd elements of a vector of
            // each input widen with a shift and a mask, and the two sums narrow
            // back into memory order (no shuffle to widen).
            const hn::Repartition<uint16_t, decltype(df)> dout;
            auto pairs = [&](const uint16_t *p, int64_t stride, const hn::Vec<decltype(df)> &p0, int64_t i, auto &even,
                             auto &odd) {
                if (stride) return bf16_io::load_pairs(df, p + i, even, odd);
                even = odd = p0;
            };
            store_loop(
                dout, hn::Lanes(dout), out, n, stream,
                [&](int64_t i) {
                    hn::Vec<decltype(df)> ae, ao, be, bo;
                    pairs(a, sa, a0, i, ae, ao);
                    pairs(b, sb, b0, i, be, bo);
                    return O::narrow2_pairs(df, F::vec(ae, be), F::vec(ao, bo));
                },
                scalar, a, sa, b, sb);
#endif
        } else if constexpr (!std::is_same_v<O, f32_io> && HWY_TARGET != HWY_SCALAR) {
            // A half-precision output: two f32 vectors per store, so that every
            // store (or non-temporal store) is a whole vector.
            const hn::Repartition<uint16_t, decltype(df)> dout;
            const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
            store_loop(
                dout, 2 * lanes, out, n, stream, [&](int64_t i) { return O::narrow2(df, sum(i), sum(i + lanes)); },
                scalar, a, sa, b, sb);
        } else {
            const typename O::template narrow_tag<decltype(df)> dout;
            store_loop(
                dout, hn::Lanes(df), out, n, stream, [&](int64_t i) { return O::narrow(df, sum(i)); }, scalar, a, sa, b,
                sb);
        }
    }
}

// out = in[0] + in[1] + ... + in[count - 1] over one type T, summed left to
// right in f32 registers: every partial sum but the last is rounded to T in
// its lanes (as the unfused op would store it), the last is stored through O
// (T, or a faster exact narrowing to it). One pass over memory, no scratch.
template <class T, class O = T>
void add_chain(const void *const *in_, const int64_t *strides, int64_t count, void *out_, int64_t n, bool stream) {
    using S = typename T::storage;
    auto *const *in = reinterpret_cast<const S *const *>(in_);
    auto *out = static_cast<S *>(out_);
    auto scalar = [&](int64_t i) {
        float acc = T::to_f32(in[0][strides[0] * i]);
        for (int64_t k = 1; k + 1 < count; ++k) acc = T::to_f32(T::from_f32(acc + T::to_f32(in[k][strides[k] * i])));
        return T::from_f32(acc + T::to_f32(in[count - 1][strides[count - 1] * i]));
    };
    int64_t i = 0;
    (void)stream;
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kVectorF16 || !std::is_same_v<T, f16_io>) {
        const hn::ScalableTag<float> df;
        const hn::Repartition<S, decltype(df)> dout;
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
        // The vector loops for `fixed` operands (a compile-time count, so
        // that the chain unrolls) or for `count` when fixed is 0.
        auto vectors = [&](auto fixed) {
            const int64_t c = fixed() ? fixed() : count;
            auto at = [&](int64_t k, int64_t j) {
                return strides[k] ? T::load(df, in[k] + j) : hn::Set(df, T::to_f32(in[k][0]));
            };
            // A whole output vector from elements [j, j + Lanes(dout)): two f32
            // vectors for a half type, one for f32.
            auto vec = [&](int64_t j) {
                if constexpr (std::is_same_v<T, f32_io>) {
                    auto acc = at(0, j);
                    for (int64_t k = 1; k + 1 < c; ++k) acc = hn::Add(acc, at(k, j));
                    return hn::Add(acc, at(c - 1, j));
                } else if constexpr (std::is_same_v<T, bf16_io>) {
                    // Even and odd elements apart, widened without a shuffle
                    // (bf16_io::load_pairs); rounding works lane by lane.
                    hn::Vec<decltype(df)> even, odd, e, o;
                    auto pairs = [&](int64_t k, hn::Vec<decltype(df)> &ek, hn::Vec<decltype(df)> &ok) {
                        if (strides[k]) return bf16_io::load_pairs(df, in[k] + j, ek, ok);
                        ek = ok = hn::Set(df, T::to_f32(in[k][0]));
                    };
                    pairs(0, even, odd);
                    for (int64_t k = 1; k + 1 < c; ++k) {
                        pairs(k, e, o);
                        even = T::round(df, hn::Add(even, e));
                        odd = T::round(df, hn::Add(odd, o));
                    }
                    pairs(c - 1, e, o);
                    return O::narrow2_pairs(df, hn::Add(even, e), hn::Add(odd, o));
                } else {
                    auto lo = at(0, j), hi = at(0, j + lanes);
                    for (int64_t k = 1; k + 1 < c; ++k) {
                        lo = T::round(df, hn::Add(lo, at(k, j)));
                        hi = T::round(df, hn::Add(hi, at(k, j + lanes)));
                    }
                    return O::narrow2(df, hn::Add(lo, at(c - 1, j)), hn::Add(hi, at(c - 1, j + lanes)));
                }
            };
            const int64_t step = static_cast<int64_t>(hn::Lanes(dout)), ahead = kPrefetchBytes / sizeof(S);
            if (stream) {
                for (const int64_t head = head_elements(out, step * sizeof(S), n); i < head; ++i) out[i] = scalar(i);
                for (; i + step <= n; i += step) {
                    // A step reads one cache line of each operand or less (a
                    // broadcast operand prefetches its one element, no branch).
                    for (int64_t k = 0; k < c; ++k) __builtin_prefetch(in[k] + strides[k] * (i + ahead), 0, 3);
                    hn::Stream(vec(i), dout, out + i);
                }
            }
            for (; i + step <= n; i += step) hn::StoreU(vec(i), dout, out + i);
        };
        switch (count) {
        case 3: vectors(std::integral_constant<int64_t, 3>()); break;
        case 4: vectors(std::integral_constant<int64_t, 4>()); break;
        default: vectors(std::integral_constant<int64_t, 0>()); break;
        }
    }
#endif
    for (; i < n; ++i) out[i] = scalar(i);
}

// Equality of f16/bf16 operands as floats, from their bits: equal bits that
// are not NaN, or both zero whatever the signs. Full-width 16-bit compares,
// no conversion (so also exact on targets without F16C).
template <class T>
void equal_f32(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool stream) {
    auto *a = static_cast<const uint16_t *>(a_), *b = static_cast<const uint16_t *>(b_);
    auto *out = static_cast<uint8_t *>(out_);
    constexpr uint16_t kInf = std::is_same_v<T, f16_io> ? 0x7C00 : 0x7F80; // above this (sign cleared): NaN
    auto scalar = [&](int64_t i) -> uint8_t { return T::to_f32(a[sa * i]) == T::to_f32(b[sb * i]); };
    const hn::ScalableTag<int16_t> d;
    const hn::ScalableTag<uint8_t> du8;
    const auto magnitude = hn::Set(d, 0x7FFF), inf = hn::Set(d, static_cast<int16_t>(kInf)), zero = hn::Zero(d);
    auto mask = [&](int64_t i) {
        const auto x = load_operand(d, reinterpret_cast<const int16_t *>(a), sa, i);
        const auto y = load_operand(d, reinterpret_cast<const int16_t *>(b), sb, i);
        const auto same = hn::And(hn::Eq(x, y), hn::Not(hn::Gt(hn::And(x, magnitude), inf)));
        return hn::Or(same, hn::Eq(hn::And(hn::Or(x, y), magnitude), zero));
    };
    store_loop(
        du8, hn::Lanes(du8), out, n, stream, [&](int64_t i) { return bytes_from_masks(d, i, mask); }, scalar, a, sa, b,
        sb);
}

// A comparison F of f16/bf16 operands as boolean bytes, compared as f32
// (widening is exact). Scalar on targets without exact f16 conversions.
template <class F, class IO>
void compare_half(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool stream) {
    auto *a = static_cast<const uint16_t *>(a_), *b = static_cast<const uint16_t *>(b_);
    auto *out = static_cast<uint8_t *>(out_);
    auto scalar = [&](int64_t i) -> uint8_t {
        return F::template scalar<float>(IO::to_f32(a[sa * i]), IO::to_f32(b[sb * i]));
    };
    if constexpr (!kVectorF16 && std::is_same_v<IO, f16_io>) {
        static_cast<void>(stream);
        for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
    } else {
        const hn::ScalableTag<float> df;
        const hn::ScalableTag<uint8_t> du8;
        if (n <= 0) return;
        const auto a0 = hn::Set(df, IO::to_f32(a[0])), b0 = hn::Set(df, IO::to_f32(b[0]));
        by_broadcast_strides(
            sa, sb, [&](auto ka, auto kb) __attribute__((always_inline)) {
                auto mask = [&](int64_t i) __attribute__((always_inline)) {
                    return F::mask(operand_at<decltype(ka)::value>(
                                       df, [&](int64_t j) { return IO::load(df, a + j); }, sa, a0, i),
                                   operand_at<decltype(kb)::value>(
                                       df, [&](int64_t j) { return IO::load(df, b + j); }, sb, b0, i));
                };
                store_loop(
                    du8, hn::Lanes(du8), out, n,
                    stream, [&](int64_t i) __attribute__((always_inline)) { return bytes_from_masks(df, i, mask); },
                    scalar, a, sa, b, sb);
            });
    }
}

// A whole vector to `to`: non-temporal when `stream` is set and `to` is
// aligned to the vector, an ordinary store otherwise.
template <class D> HWY_INLINE void store_vector(D d, hn::Vec<D> v, hn::TFromD<D> *to, bool stream) {
    if (stream && reinterpret_cast<uintptr_t>(to) % (hn::Lanes(d) * sizeof(hn::TFromD<D>)) == 0)
        hn::Stream(v, d, to);
    else
        hn::StoreU(v, d, to);
}

// Vectors of `max_lanes` elements of T that make one 64-byte cache line (1
// where a vector is a line or longer).
template <typename T> constexpr int64_t vectors_per_line(size_t max_lanes) {
    const int64_t bytes = static_cast<int64_t>(max_lanes * sizeof(T));
    return bytes >= 64 ? 1 : 64 / bytes;
}

#if HWY_TARGET != HWY_SCALAR
// 8x8 transposes of 2-byte lanes, one in each 128-bit block of 8 vectors:
// on entry block i of v[l] holds 8 elements of column l, on return block i
// of v[m] holds row m of that block's 8x8. Interleaving 2-, 4- then 8-byte
// units takes 24 single-cycle unpacks, where splitting even and odd lanes
// costs three instructions each without AVX-512 (a mask or shift per input
// and a pack).
template <class D, class V> HWY_INLINE void transpose_8x8_blocks(D d, V *v) {
    static_assert(sizeof(hn::TFromD<D>) == 2, "2-byte lanes");
    const hn::Repartition<uint32_t, D> d32;
    const hn::Repartition<uint64_t, D> d64;
    V t[8], u[8];
    for (size_t p = 0; p < 8; p += 2)
        t[p] = hn::InterleaveLower(d, v[p], v[p + 1]), t[p + 1] = hn::InterleaveUpper(d, v[p], v[p + 1]);
    // t[2p]: rows 0-3 of columns 2p and 2p + 1 in pairs; t[2p + 1]: rows 4-7.
    auto pairs = [&](auto dn, V a, V b, V &lo, V &hi) {
        lo = hn::BitCast(d, hn::InterleaveLower(dn, hn::BitCast(dn, a), hn::BitCast(dn, b)));
        hi = hn::BitCast(d, hn::InterleaveUpper(dn, hn::BitCast(dn, a), hn::BitCast(dn, b)));
    };
    for (size_t h = 0; h < 8; h += 4) {
        pairs(d32, t[h], t[h + 2], u[h], u[h + 1]);         // rows 0-1, 2-3 of columns h .. h + 3
        pairs(d32, t[h + 1], t[h + 3], u[h + 2], u[h + 3]); // rows 4-5, 6-7
    }
    for (size_t q = 0; q < 4; ++q) pairs(d64, u[q], u[q + 4], v[2 * q], v[2 * q + 1]);
}

// Transposes a square block in registers: on entry v[l] holds `lanes`
// consecutive elements of column l, on return v[m] holds row m. Each round
// splits every pair of vectors into its even and odd lanes, which rotates
// the bits of (vector, lane) by one; log2(lanes) rounds swap them.
// (2-byte lanes, 8 to a vector: by unpacks, transpose_8x8_blocks.)
template <class D, class V> HWY_INLINE void transpose_block(D d, V *v) {
    if constexpr (sizeof(hn::TFromD<D>) == 2 && hn::MaxLanes(D()) == 8) return transpose_8x8_blocks(d, v);
    constexpr size_t kMax = hn::MaxLanes(D());
    const size_t lanes = hn::Lanes(d), half = lanes / 2;
    V t[kMax];
    for (size_t round = 1; round < lanes; round *= 2) {
        for (size_t p = 0; p < half; ++p) {
            t[p] = hn::ConcatEven(d, v[2 * p + 1], v[2 * p]);
            t[p + half] = hn::ConcatOdd(d, v[2 * p + 1], v[2 * p]);
        }
        for (size_t i = 0; i < lanes; ++i) v[i] = t[i];
    }
}
#endif

#if HWY_TARGET != HWY_SCALAR
// Columns [0, j) of a transpose (returned: j) in whole lanes-by-lanes blocks
// of D, kBlocks side by side while they fit (then one at a time): each block
// transposed in registers, the vectors of one dst row of all blocks stored
// back to back. Rows past the last whole block go element by element.
template <int64_t kBlocks, class D, typename T>
HWY_INLINE int64_t transpose_blocks(D d, const T *src, int64_t src_pitch, T *dst, int64_t dst_pitch, int64_t rows,
                                    int64_t cols, bool stream) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d)), whole_rows = rows / lanes * lanes;
    int64_t j = 0;
    if (whole_rows == 0) return 0;
    for (int64_t sub = kBlocks; sub >= 1; sub = sub > 1 ? 1 : 0)
        for (; j + sub * lanes <= cols; j += sub * lanes) {
            for (int64_t r = 0; r < whole_rows; r += lanes) {
                hn::Vec<D> v[kBlocks][hn::MaxLanes(d)];
                for (int64_t b = 0; b < sub; ++b) {
                    for (int64_t l = 0; l < lanes; ++l)
                        v[b][l] = hn::LoadU(d, src + (j + b * lanes + l) * src_pitch + r);
                    transpose_block(d, v[b]);
                }
                for (int64_t l = 0; l < lanes; ++l)
                    for (int64_t b = 0; b < sub; ++b)
                        store_vector(d, v[b][l], dst + (r + l) * dst_pitch + j + b * lanes, stream);
            }
            for (int64_t r = whole_rows; r < rows; ++r)
                for (int64_t l = 0; l < sub * lanes; ++l) dst[r * dst_pitch + j + l] = src[(j + l) * src_pitch + r];
        }
    return j;
}

#endif

// n bytes from src to dst in whole vectors, non-temporal from dst's first
// aligned vector on when `stream` (a side output written from a node's row).
void copy_bytes(const void *src, void *dst, int64_t n, bool stream) {
    const hn::ScalableTag<uint8_t> d;
    const auto *s = static_cast<const uint8_t *>(src);
    store_loop(
        d, static_cast<int64_t>(hn::Lanes(d)), static_cast<uint8_t *>(dst), n, stream,
        [&](int64_t i) { return hn::LoadU(d, s + i); }, [&](int64_t i) { return s[i]; }, s, int64_t{0}, s, int64_t{0});
}

// dst[r * dst_pitch + j] = src[j * src_pitch + r] for r < rows, j < cols.
// Whole lanes-by-lanes blocks load a vector from each of `lanes` columns and
// transpose in registers. Columns left over go a vector of columns at a time
// through one gather per row, so that their cache lines are read once and
// used for every row while in L1.
template <typename T>
void transpose(const void *src_, int64_t src_pitch, void *dst_, int64_t dst_pitch, int64_t rows, int64_t cols,
               bool stream) {
    const T *src = static_cast<const T *>(src_);
    T *dst = static_cast<T *>(dst_);
    int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
    {
        const hn::ScalableTag<T> d;
        // Vectors shorter than a cache line (AVX2, SSE4) take blocks of
        // columns side by side, so that each dst row gets whole lines, its
        // vectors stored back to back: a line written in pieces far apart in
        // time is read and written back once per piece.
        if constexpr (sizeof(T) >= 4) // narrower: too many vectors for the registers
            if (hn::Lanes(d) > 1)
                j = transpose_blocks<vectors_per_line<T>(hn::MaxLanes(d))>(d, src, src_pitch, dst, dst_pitch, rows,
                                                                           cols, stream);
        // 2-byte elements: 8x8 blocks of 16-byte vectors, four side by side
        // (one line of a dst row), on every target; 32-bit gathers are slow
        // on AVX2 (bf16 NCHW -> NHWC 17.4 -> 19.1 GB/s with the blocks) and on
        // Zen 5's AVX-512 (mixed-order bf16 Add 6.5 -> 4.2 ms).
        if constexpr (sizeof(T) == 2)
            j = transpose_blocks<4>(hn::Full128<T>(), src, src_pitch, dst, dst_pitch, rows, cols, stream);
    }
#endif
    if constexpr (sizeof(T) >= 4) {
        using TI = hwy::MakeSigned<T>;
        const hn::ScalableTag<T> d;
        const hn::RebindToSigned<decltype(d)> di;
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
        HWY_ALIGN TI step[hn::MaxLanes(di)];
        for (int64_t l = 0; l < lanes; ++l) step[l] = static_cast<TI>(l * src_pitch);
        const auto steps = hn::Load(di, step);
        for (; j + lanes <= cols; j += lanes) {
            const T *column = src + j * src_pitch;
            for (int64_t r = 0; r < rows; ++r)
                store_vector(d, hn::GatherIndex(d, column + r, steps), dst + r * dst_pitch + j, stream);
        }
    } else {
        // Narrow elements: 32-bit gathers at each element's byte offset (the
        // caller leaves slack after every column); one gather holds the
        // elements of 4 / sizeof(T) consecutive rows, split by shifts.
        const hn::ScalableTag<uint32_t> d32;
        const hn::RebindToSigned<decltype(d32)> di;
        const hn::Rebind<T, decltype(d32)> dn;
        constexpr int64_t kPer = 4 / sizeof(T);
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(d32));
        HWY_ALIGN int32_t step[hn::MaxLanes(di)];
        for (int64_t l = 0; l < lanes; ++l) step[l] = static_cast<int32_t>(l * src_pitch * sizeof(T));
        const auto steps = hn::Load(di, step);
        // Highway streams vectors narrower than 16 bytes as 16 bytes: those store normally.
        const bool stream_vectors = stream && lanes * sizeof(T) >= 16;
        auto store = [&](auto v, int64_t r, int64_t c) {
            store_vector(dn, hn::TruncateTo(dn, v), dst + r * dst_pitch + c, stream_vectors);
        };
        auto gather = [&](int64_t r, int64_t c) {
            return hn::GatherOffset(d32, reinterpret_cast<const uint32_t *>(src + c * src_pitch + r), steps);
        };
        // A vector holds less than a cache line of a dst row. Streamed,
        // columns go in groups of a line, each row's vectors of a group back
        // to back, so that a line is written whole (pieces of it apart in
        // time cost a read of the line each); otherwise a vector of columns
        // at a time, reading the fewest src columns at once (filling a bf16
        // input tile: 22 - 23 against 24 - 25 GB/s in groups of a line).
        const int64_t group =
            stream ? std::max<int64_t>(1, static_cast<int64_t>(64 / sizeof(T)) / lanes) * lanes : lanes;
        for (int64_t j_end; j + lanes <= cols; j = j_end) {
            j_end = std::min(j + group, j + (cols - j) / lanes * lanes);
            int64_t r = 0;
            for (; r + kPer <= rows; r += kPer)
                for (int64_t c = j; c < j_end; c += lanes) {
                    const auto v = gather(r, c);
                    store(v, r, c);
                    if constexpr (kPer >= 2) store(hn::ShiftRight<8 * sizeof(T)>(v), r + 1, c);
                    if constexpr (kPer == 4) {
                        store(hn::ShiftRight<16>(v), r + 2, c);
                        store(hn::ShiftRight<24>(v), r + 3, c);
                    }
                }
            for (; r < rows; ++r)
                for (int64_t c = j; c < j_end; c += lanes) store(gather(r, c), r, c);
        }
    }
    for (; j < cols; ++j)
        for (int64_t r = 0; r < rows; ++r) dst[r * dst_pitch + j] = src[j * src_pitch + r];
}

// Bytes ahead of its loads that add_out_transposed prefetches each input row:
// a few lines, so that the L2 streamer, not the line-fill buffers, carries
// the rows from memory (1 - 4 KiB ahead measured 10 - 20 % slower).
constexpr int64_t kRowAheadBytes = 256;

template <typename T>
void add_out_transposed(const void *a_, int64_t pa, const void *b_, int64_t pb, void *out_, int64_t po, int64_t rows,
                        int64_t cols, bool stream) {
    const T *a = static_cast<const T *>(a_), *b = static_cast<const T *>(b_);
    T *out = static_cast<T *>(out_);
    int64_t r0 = 0;
    // Plain stores, even where the output streams: each step writes `lanes`
    // lines far apart, and such scattered non-temporal stores measured
    // slower than stores through the cache with their reads for ownership
    // (Zen 5, f32 NCHW -> NHWC at 2 threads: 12.2 -> 7.3 ms with AVX-512,
    // 12.2 -> 9.1 capped to AVX2; the staged bf16 and boolean strips below
    // stream their 32 or 64 lines per step faster).
    static_cast<void>(stream);
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<T> d;
    using V = decltype(hn::Zero(d));
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d)), ahead = kRowAheadBytes / sizeof(T);
    // Each block of rows goes along all the columns (walking every block of
    // rows per block of columns instead measured 10 - 15 % slower). Vectors
    // shorter than a cache line (AVX2, SSE4) take kSub blocks of rows
    // at once, so that each output line is written whole, its vectors back to
    // back; pieces of a line far apart in time cost a read and a write-back
    // of the line each (AVX2 NCHW -> NHWC ran at 0.15 of the roof). Rows
    // left over take blocks of one vector.
    constexpr int64_t kSub = vectors_per_line<T>(hn::MaxLanes(d));
    for (int64_t sub = kSub; sub >= 1; sub = sub > 1 ? 1 : 0) {
        for (; lanes > 1 && r0 + sub * lanes <= rows; r0 += sub * lanes) {
            int64_t j = 0;
            for (; j + lanes <= cols; j += lanes) {
                V v[kSub][hn::MaxLanes(d)];
                for (int64_t q = 0; q < sub; ++q) {
                    for (int64_t l = 0; l < lanes; ++l) {
                        const int64_t r = r0 + q * lanes + l;
                        const T *x = a + r * pa + j, *y = b + r * pb + j;
                        __builtin_prefetch(x + ahead, 0, 3);
                        __builtin_prefetch(y + ahead, 0, 3);
                        v[q][l] = hn::Add(hn::LoadU(d, x), hn::LoadU(d, y));
                    }
                    transpose_block(d, v[q]); // v[q][m]: column j + m, rows r0 + q * lanes ...
                }
                for (int64_t m = 0; m < lanes; ++m)
                    for (int64_t q = 0; q < sub; ++q) hn::StoreU(v[q][m], d, out + (j + m) * po + r0 + q * lanes);
            }
            for (; j < cols; ++j)
                for (int64_t r = r0; r < r0 + sub * lanes; ++r) out[j * po + r] = a[r * pa + j] + b[r * pb + j];
        }
    }
#endif
    // Rows left over, column by column (each column's rows are contiguous in out).
    for (int64_t j = 0; j < cols && r0 < rows; ++j)
        for (int64_t r = r0; r < rows; ++r) out[j * po + r] = a[r * pa + j] + b[r * pb + j];
}

// Columns ahead of its loads that add_in_transposed prefetches the
// transposed operand (one line of it per column).
constexpr int64_t kColsAhead = 32;

// out[r, c] = a[c, r] + b[r, c] (r < rows, c < cols; a the transposed operand,
// its rows `pa` apart; Add commutes, so it may be either argument), or with
// kBoth a[c, r] + b[c, r] (both transposed, b's rows `pb` apart). A line of
// rows at a time along all the columns: each column's line of a (and of b)
// is loaded once, lanes-by-lanes blocks transposed in registers, added to
// b's rows (or added before the transpose) and stored straight to out's,
// every output line whole within one step (NHWC + NCHW -> NCHW f32 through
// the panels' tile: 42 - 45 GB/s; this walk 66 - 68, fusebox-transpose-probe).
// Rows and columns left over go element by element.
template <typename T, bool kBoth>
void add_in_transposed(const void *a_, int64_t pa, const void *b_, int64_t pb, void *out_, int64_t po, int64_t rows,
                       int64_t cols, bool stream) {
    const T *a = static_cast<const T *>(a_), *b = static_cast<const T *>(b_);
    T *out = static_cast<T *>(out_);
    auto sum = [&](int64_t r, int64_t j) { return a[j * pa + r] + (kBoth ? b[j * pb + r] : b[r * pb + j]); };
    int64_t r0 = 0;
    static_cast<void>(stream); // no vectors to stream on the scalar target
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<T> d;
    using V = decltype(hn::Zero(d));
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d)), ahead = kRowAheadBytes / sizeof(T);
    constexpr int64_t kSub = vectors_per_line<T>(hn::MaxLanes(d));
    const int64_t step = kSub * lanes; // rows and columns per step: a line of a's column and of out's row
    const bool stream_lines = stream && step * static_cast<int64_t>(sizeof(T)) >= 64;
    for (; lanes > 1 && r0 + step <= rows; r0 += step) {
        int64_t j = 0;
        for (; j + step <= cols; j += step)
            for (int64_t q = 0; q < kSub; ++q)       // blocks of rows
                for (int64_t p = 0; p < kSub; ++p) { // blocks of columns
                    V v[hn::MaxLanes(d)];
                    for (int64_t l = 0; l < lanes; ++l) {
                        const T *x = a + (j + p * lanes + l) * pa + r0 + q * lanes;
                        if (q == 0) __builtin_prefetch(x + kColsAhead * pa, 0, 3);
                        v[l] = hn::LoadU(d, x);
                        if constexpr (kBoth) {
                            const T *y = b + (j + p * lanes + l) * pb + r0 + q * lanes;
                            if (q == 0) __builtin_prefetch(y + kColsAhead * pb, 0, 3);
                            v[l] = hn::Add(v[l], hn::LoadU(d, y));
                        }
                    }
                    transpose_block(d, v); // v[m]: row r0 + q * lanes + m, columns j + p * lanes ...
                    for (int64_t m = 0; m < lanes; ++m) {
                        const int64_t r = r0 + q * lanes + m, c = j + p * lanes;
                        if constexpr (kBoth) {
                            store_vector(d, v[m], out + r * po + c, stream_lines);
                        } else {
                            if (p == 0) __builtin_prefetch(b + r * pb + c + ahead, 0, 3);
                            store_vector(d, hn::Add(v[m], hn::LoadU(d, b + r * pb + c)), out + r * po + c,
                                         stream_lines);
                        }
                    }
                }
        for (; j < cols; ++j)
            for (int64_t r = r0; r < r0 + step; ++r) out[r * po + j] = sum(r, j);
    }
#endif
    for (int64_t r = r0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j) out[r * po + j] = sum(r, j);
}

// add_out_transposed for f16 with AVX-512 (IO: f16_io; bf16 takes
// add_out_transposed_bf16 below): the sums computed and transposed
// in f32 lanes, each pair of transposed vectors rounded once into one
// full-width vector of the output type (the bits the element loop gives),
// the blocks of a line of rows (kSub) at a time, so that every output line is
// written whole within moments. Rows left over (strips are a line tall: none
// but at the end) go element by element.
template <class IO>
void add_out_transposed_half(const void *a_, int64_t pa, const void *b_, int64_t pb, void *out_, int64_t po,
                             int64_t rows, int64_t cols, bool stream) {
    const auto *a = static_cast<const uint16_t *>(a_), *b = static_cast<const uint16_t *>(b_);
    auto *out = static_cast<uint16_t *>(out_);
    auto sum = [&](int64_t r, int64_t j) {
        return IO::from_f32(IO::to_f32(a[r * pa + j]) + IO::to_f32(b[r * pb + j]));
    };
    int64_t r0 = 0;
    static_cast<void>(stream);
#if HWY_TARGET != HWY_SCALAR
    if constexpr (!std::is_same_v<IO, f16_io> || kVectorF16) {
        const hn::ScalableTag<float> d;
        const hn::Repartition<uint16_t, decltype(d)> dout;
        using V = decltype(hn::Zero(d));
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(d)), ahead = kRowAheadBytes / 2;
        constexpr int64_t kSub = vectors_per_line<uint16_t>(hn::MaxLanes(d)); // even: 2 (AVX-512) to 8 (SSE4)
        for (; r0 + kSub * lanes <= rows; r0 += kSub * lanes) {
            int64_t j = 0;
            for (; j + lanes <= cols; j += lanes) {
                // Two blocks of rows at a time (the registers of AVX2 hold no
                // more), each output line's parts stored moments apart.
                for (int64_t q = 0; q < kSub; q += 2) {
                    V v[2][hn::MaxLanes(d)];
                    for (int64_t h = 0; h < 2; ++h) {
                        for (int64_t l = 0; l < lanes; ++l) {
                            const int64_t r = r0 + (q + h) * lanes + l;
                            const uint16_t *x = a + r * pa + j, *y = b + r * pb + j;
                            __builtin_prefetch(x + ahead, 0, 3);
                            __builtin_prefetch(y + ahead, 0, 3);
                            v[h][l] = hn::Add(IO::load(d, x), IO::load(d, y));
                        }
                        transpose_block(d, v[h]); // v[h][m]: column j + m, rows r0 + (q + h) * lanes ...
                    }
                    for (int64_t m = 0; m < lanes; ++m)
                        store_vector(dout, IO::narrow2(d, v[0][m], v[1][m]), out + (j + m) * po + r0 + q * lanes,
                                     stream);
                }
            }
            for (; j < cols; ++j)
                for (int64_t r = r0; r < r0 + kSub * lanes; ++r) out[j * po + r] = sum(r, j);
        }
    }
#endif
    for (int64_t j = 0; j < cols && r0 < rows; ++j)
        for (int64_t r = r0; r < rows; ++r) out[j * po + r] = sum(r, j);
}

// add_out_transposed for bf16 with AVX2 and AVX-512 (256-bit vectors on
// both): the sums of each line of a row (32 columns) at once, widened in
// even/odd pairs and rounded back into memory order in integer lanes
// (binary_f32's bf16 loop), 8 rows at a time; then
// transposed as 2-byte lanes, an 8x8 block per 128 bits, into a staged
// block of 32 columns by 32 rows from which each output line leaves whole.
// A row's line is used at once, and the lines ahead are prefetched into L2
// only: the strip's rows are often a multiple of 4 KiB apart and share one
// set of the L1, which holds 12 of its 64 streams' lines (bf16 NCHW -> NHWC
// on one thread, capped to AVX2 on a Zen 5: 9.7 - 10.3 ms through the tile,
// 12.7 summing 16 columns per row at a time, 8.4 a line at a time, 6.5 with
// the prefetch into L2; with AVX-512, 9.5 through add_out_transposed_half's
// 16-column reads, 6.2 here).
#if HWY_TARGET <= HWY_AVX2
void add_out_transposed_bf16(const void *a_, int64_t pa, const void *b_, int64_t pb, void *out_, int64_t po,
                             int64_t rows, int64_t cols, bool stream) {
    const auto *a = static_cast<const uint16_t *>(a_), *b = static_cast<const uint16_t *>(b_);
    auto *out = static_cast<uint16_t *>(out_);
    auto sum = [&](int64_t r, int64_t j) {
        return bf16_io::from_f32(bf16_io::to_f32(a[r * pa + j]) + bf16_io::to_f32(b[r * pb + j]));
    };
    const hn::Full256<uint16_t> d;
    const hn::Full256<float> df;
    const hn::Full128<uint16_t> d128;
    using V = decltype(hn::Zero(d));
    constexpr int64_t kLine = 32, kLanes = 16, kAhead = 512 / 2; // elements: 512 bytes ahead, into L2
    HWY_ALIGN uint16_t rows8[8][kLine];                          // 8 rows' sums, in row order
    HWY_ALIGN uint16_t staged[kLine][kLine];                     // column j + c: rows r0 .. r0 + 31
    int64_t r0 = 0;
    for (; r0 + kLine <= rows; r0 += kLine) {
        int64_t j = 0;
        for (; j + kLine <= cols; j += kLine) {
            for (int64_t q = 0; q < kLine; q += 8) {
                for (int64_t l = 0; l < 8; ++l) {
                    const uint16_t *x = a + (r0 + q + l) * pa + j, *y = b + (r0 + q + l) * pb + j;
                    __builtin_prefetch(x + kAhead, 0, 2);
                    __builtin_prefetch(y + kAhead, 0, 2);
                    for (int64_t h = 0; h < kLine; h += kLanes) {
                        hn::Vec<decltype(df)> xe, xo, ye, yo;
                        bf16_io::load_pairs(df, x + h, xe, xo);
                        bf16_io::load_pairs(df, y + h, ye, yo);
                        hn::Store(bf16_io::narrow2_pairs(df, hn::Add(xe, ye), hn::Add(xo, yo)), d, &rows8[l][h]);
                    }
                }
                for (int64_t h = 0; h < kLine; h += kLanes) {
                    V v[8];
                    for (int64_t l = 0; l < 8; ++l) v[l] = hn::Load(d, &rows8[l][h]);
                    transpose_8x8_blocks(d, v); // v[m], block i: column j + h + 8 i + m, rows r0 + q ...
                    for (int64_t m = 0; m < 8; ++m) {
                        hn::Store(hn::LowerHalf(d128, v[m]), d128, &staged[h + m][q]);
                        hn::Store(hn::UpperHalf(d128, v[m]), d128, &staged[h + 8 + m][q]);
                    }
                }
            }
            for (int64_t c = 0; c < kLine; ++c)
                for (int64_t k = 0; k < kLine; k += kLanes)
                    store_vector(d, hn::Load(d, &staged[c][k]), out + (j + c) * po + r0 + k, stream);
        }
        for (; j < cols; ++j)
            for (int64_t r = r0; r < r0 + kLine; ++r) out[j * po + r] = sum(r, j);
    }
    for (int64_t j = 0; j < cols && r0 < rows; ++j)
        for (int64_t r = r0; r < rows; ++r) out[j * po + r] = sum(r, j);
}
#endif

// add_in_transposed for bf16 with AVX2 and AVX-512 (256-bit vectors on
// both): a line of rows (32) at a time, 32 columns per step. Each column's
// line of a is loaded once; two 8x8 blocks of 2-byte lanes at a time
// (columns c and c + 8 in the two halves of a vector) transpose into 16
// columns of 8 rows in memory order, which add to b's row in even/odd f32
// pairs and round back as binary_f32's bf16 loop does; each output row's
// line is stored whole within the step. With AVX512_BF16 (kCvt) the 16
// sums of a row are one 512-bit f32 vector rounded by bf16_cvt_io::narrow_one
// (half the instructions). Columns and rows past the last whole step go
// element by element.
#if HWY_TARGET <= HWY_AVX2
template <bool kCvt>
void add_in_transposed_bf16(const void *a_, int64_t pa, const void *b_, int64_t pb, void *out_, int64_t po,
                            int64_t rows, int64_t cols, bool stream) {
    const auto *a = static_cast<const uint16_t *>(a_), *b = static_cast<const uint16_t *>(b_);
    auto *out = static_cast<uint16_t *>(out_);
    auto sum = [&](int64_t r, int64_t j) {
        return bf16_io::from_f32(bf16_io::to_f32(a[j * pa + r]) + bf16_io::to_f32(b[r * pb + j]));
    };
    const hn::Full256<uint16_t> d;
    const hn::Full256<float> df;
    const hn::Full256<uint32_t> du32;
    const hn::Full128<uint16_t> d128;
    using V = decltype(hn::Zero(d));
    constexpr int64_t kLine = 32, kHalf = 16, kAhead = kRowAheadBytes / 2;
    int64_t r0 = 0;
    for (; r0 + kLine <= rows; r0 += kLine) {
        int64_t j = 0;
        for (; j + kLine <= cols; j += kLine) {
            for (int64_t c = 0; c < kLine; ++c) __builtin_prefetch(a + (j + c + kColsAhead) * pa + r0, 0, 3);
            for (int64_t q = 0; q < kLine; q += 8)           // rows r0 + q ..
                for (int64_t h = 0; h < kLine; h += kHalf) { // columns j + h ..
                    V v[8];
                    for (int64_t l = 0; l < 8; ++l)
                        v[l] = hn::Combine(d, hn::LoadU(d128, a + (j + h + 8 + l) * pa + r0 + q),
                                           hn::LoadU(d128, a + (j + h + l) * pa + r0 + q));
                    transpose_8x8_blocks(d, v); // v[m]: row r0 + q + m, columns j + h .. j + h + 15
                    for (int64_t m = 0; m < 8; ++m) {
                        const int64_t r = r0 + q + m;
                        const uint16_t *y = b + r * pb + j + h;
                        if (h == 0) __builtin_prefetch(y + kAhead, 0, 3);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
                        if constexpr (kCvt) {
                            const hn::Full512<float> d16;
                            const hn::Full512<uint32_t> du32x16;
                            const auto x16 = hn::BitCast(d16, hn::ShiftLeft<16>(hn::PromoteTo(du32x16, v[m])));
                            store_vector(d, bf16_cvt_io::narrow_one(d16, hn::Add(x16, bf16_io::load(d16, y))),
                                         out + r * po + j + h, stream);
                            continue;
                        }
#endif
                        const auto x = hn::BitCast(du32, v[m]);
                        const auto xe = hn::BitCast(df, hn::ShiftLeft<16>(x));
                        const auto xo = hn::BitCast(df, hn::And(x, hn::Set(du32, 0xFFFF0000u)));
                        hn::Vec<decltype(df)> ye, yo;
                        bf16_io::load_pairs(df, y, ye, yo);
                        store_vector(d, bf16_io::narrow2_pairs(df, hn::Add(xe, ye), hn::Add(xo, yo)),
                                     out + r * po + j + h, stream);
                    }
                }
        }
        for (; j < cols; ++j)
            for (int64_t r = r0; r < r0 + kLine; ++r) out[r * po + j] = sum(r, j);
    }
    for (int64_t r = r0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j) out[r * po + j] = sum(r, j);
}
#endif

#if HWY_TARGET <= HWY_AVX2
// 16x16 transpose of bytes by unpacks of 1-, 2-, 4- then 8-byte units (64
// single-cycle instructions): on entry v[l] holds row l, on return v[c]
// holds column c.
HWY_INLINE void transpose_16x16_bytes(hn::Vec<hn::Full128<uint8_t>> *v) {
    using V = hn::Vec<hn::Full128<uint8_t>>;
    const hn::Full128<uint8_t> d8;
    const hn::Repartition<uint16_t, decltype(d8)> d16;
    const hn::Repartition<uint32_t, decltype(d8)> d32;
    const hn::Repartition<uint64_t, decltype(d8)> d64;
    auto pair = [&](auto dn, V a, V b, V &lo, V &hi) {
        lo = hn::BitCast(d8, hn::InterleaveLower(dn, hn::BitCast(dn, a), hn::BitCast(dn, b)));
        hi = hn::BitCast(d8, hn::InterleaveUpper(dn, hn::BitCast(dn, a), hn::BitCast(dn, b)));
    };
    V a[16], b[16], c[16];
    for (int p = 0; p < 8; ++p)
        pair(d8, v[2 * p], v[2 * p + 1], a[2 * p], a[2 * p + 1]); // rows 2p, 2p + 1; columns 8h ..
    for (int q = 0; q < 4; ++q)
        for (int h = 0; h < 2; ++h) // rows 4q .. 4q + 3; columns 4g .. 4g + 3 in b[4q + g]
            pair(d16, a[4 * q + h], a[4 * q + 2 + h], b[4 * q + 2 * h], b[4 * q + 2 * h + 1]);
    for (int o = 0; o < 2; ++o)
        for (int g = 0; g < 4; ++g) // rows 8o .. 8o + 7; columns 2k, 2k + 1 in c[8o + k]
            pair(d32, b[8 * o + g], b[8 * o + 4 + g], c[8 * o + 2 * g], c[8 * o + 2 * g + 1]);
    for (int k = 0; k < 8; ++k) pair(d64, c[k], c[8 + k], v[2 * k], v[2 * k + 1]);
}

// A comparison F of f32 rows into a transposed boolean output: each row's
// four lines (64 columns) compared at once into 64 bytes (256-bit vectors:
// two compares and two packs per line; with AVX-512, a compare into a mask
// and a masked move of ones measured 20 % slower), 16 rows of them
// transposed as bytes, and each output line (64 rows) stored whole from a
// staged block of 64 columns. As add_out_transposed_bf16, the lines ahead
// are prefetched into L2 only (the strip's 128 row streams often share one
// L1 set). Equal f32 NCHW -> NHWC on one thread on a Zen 5: 12.3 (AVX-512)
// and 16.7 ms (AVX2) through the tiles, 16.9 and 15.0 reading one line of a
// row at a time, 11.6 and 11.7 four. Rows past the last whole strip take
// strips of 16 (their lines part written, not streamed); the last few rows
// and the columns past the last block of 16 go element by element.
template <class F>
void compare_out_transposed_f32(const void *a_, int64_t pa, const void *b_, int64_t pb, void *out_, int64_t po,
                                int64_t rows, int64_t cols, bool stream) {
    const auto *a = static_cast<const float *>(a_), *b = static_cast<const float *>(b_);
    auto *out = static_cast<uint8_t *>(out_);
    const hn::Full128<uint8_t> d8;
    constexpr int64_t kLine = 64, kCols = 64, kAhead = 1024 / 4; // elements: 1 KiB ahead, into L2
    HWY_ALIGN uint8_t rows16[16][kCols];                         // 16 rows' results, in row order
    HWY_ALIGN uint8_t staged[kCols][kLine];                      // column j + c: rows r0 .. r0 + 63
    // Row r's columns j .. j + 15 as 0/1 bytes.
    auto row_bytes = [&](const float *x, const float *y) {
        const hn::Full256<float> df;
        const hn::RebindToSigned<decltype(df)> di;
        const __m256i m0 = hn::BitCast(di, hn::VecFromMask(df, F::mask(hn::LoadU(df, x), hn::LoadU(df, y)))).raw;
        const __m256i m1 =
            hn::BitCast(di, hn::VecFromMask(df, F::mask(hn::LoadU(df, x + 8), hn::LoadU(df, y + 8)))).raw;
        // (packs work within 128-bit halves: the quarters reordered between.)
        const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(m0, m1), 0xD8);
        const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
        return hn::Vec<decltype(d8)>{_mm_and_si128(bytes, _mm_set1_epi8(1))};
    };
    // Strips of 64 rows; fewer at the end in steps of 16 (their lines part
    // written, not streamed).
    int64_t r0 = 0;
    for (int64_t h; (h = std::min(kLine, (rows - r0) / 16 * 16)) > 0; r0 += h) {
        int64_t j = 0;
        for (int64_t w = kCols; w >= 16; w = w > 16 ? 16 : 0) // (then blocks of one line)
            for (; j + w <= cols; j += w) {
                for (int64_t q = 0; q < h; q += 16) {
                    for (int64_t l = 0; l < 16; ++l) {
                        const float *x = a + (r0 + q + l) * pa + j, *y = b + (r0 + q + l) * pb + j;
                        for (int64_t k = 0; k < w; k += 16) {
                            __builtin_prefetch(x + kAhead + k, 0, 2);
                            __builtin_prefetch(y + kAhead + k, 0, 2);
                            hn::Store(row_bytes(x + k, y + k), d8, &rows16[l][k]);
                        }
                    }
                    for (int64_t k = 0; k < w; k += 16) {
                        hn::Vec<decltype(d8)> v[16];
                        for (int64_t l = 0; l < 16; ++l) v[l] = hn::Load(d8, &rows16[l][k]);
                        transpose_16x16_bytes(v);
                        for (int64_t c = 0; c < 16; ++c) hn::Store(v[c], d8, &staged[k + c][q]);
                    }
                }
                for (int64_t c = 0; c < w; ++c)
                    for (int64_t k = 0; k < h; k += 16)
                        store_vector(d8, hn::Load(d8, &staged[c][k]), out + (j + c) * po + r0 + k,
                                     stream && h == kLine);
            }
        for (; j < cols; ++j)
            for (int64_t r = r0; r < r0 + h; ++r) out[j * po + r] = F::scalar(a[r * pa + j], b[r * pb + j]);
    }
    for (int64_t j = 0; j < cols && r0 < rows; ++j)
        for (int64_t r = r0; r < rows; ++r) out[j * po + r] = F::scalar(a[r * pa + j], b[r * pb + j]);
}
#endif

// Fn over rows; Fn is inlined into the row loop, so short rows cost no call each.
template <auto Fn, size_t SA, size_t SB, size_t SO>
void over_rows(const void *a, int64_t sa, int64_t pa, const void *b, int64_t sb, int64_t pb, void *out, int64_t po,
               int64_t n, int64_t rows, bool stream) {
    auto *pa_ = static_cast<const unsigned char *>(a), *pb_ = static_cast<const unsigned char *>(b);
    auto *po_ = static_cast<unsigned char *>(out);
    for (int64_t r = 0; r < rows; ++r)
        Fn(pa_ + r * pa * static_cast<int64_t>(SA), sa, pb_ + r * pb * static_cast<int64_t>(SB), sb,
           po_ + r * po * static_cast<int64_t>(SO), n, stream);
}

// Registers Fn for function f (elements of A and B in, O out) and its row form.
template <auto Fn, typename A, typename B, typename O> void set(element_ops &o, ew_fn f, data_type a, data_type b) {
    set_binary(o, f, a, b, {Fn, over_rows<Fn, sizeof(A), sizeof(B), sizeof(O)>});
}

// An arithmetic function over every float and integer type; `mixed` adds
// oneDNN Graph's f32 with bf16/f16 rows (-> f32).
template <class F> void set_arithmetic(element_ops &o, ew_fn f, bool mixed) {
    using dt = data_type;
    set<binary<F, float>, float, float, float>(o, f, dt::f32, dt::f32);
    set<binary<F, double>, double, double, double>(o, f, dt::f64, dt::f64);
    set<binary<F, int8_t>, int8_t, int8_t, int8_t>(o, f, dt::s8, dt::s8);
    set<binary<F, uint8_t>, uint8_t, uint8_t, uint8_t>(o, f, dt::u8, dt::u8);
    set<binary<F, int16_t>, int16_t, int16_t, int16_t>(o, f, dt::s16, dt::s16);
    set<binary<F, uint16_t>, uint16_t, uint16_t, uint16_t>(o, f, dt::u16, dt::u16);
    set<binary<F, int32_t>, int32_t, int32_t, int32_t>(o, f, dt::s32, dt::s32);
    set<binary<F, uint32_t>, uint32_t, uint32_t, uint32_t>(o, f, dt::u32, dt::u32);
    set<binary<F, int64_t>, int64_t, int64_t, int64_t>(o, f, dt::s64, dt::s64);
    set<binary<F, uint64_t>, uint64_t, uint64_t, uint64_t>(o, f, dt::u64, dt::u64);
    set<binary_f32<F, f16_io, f16_io, f16_io>, uint16_t, uint16_t, uint16_t>(o, f, dt::f16, dt::f16);
    set<binary_f32<F, bf16_io, bf16_io, bf16_io>, uint16_t, uint16_t, uint16_t>(o, f, dt::bf16, dt::bf16);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if (__builtin_cpu_supports("avx512bf16"))
        set<binary_f32<F, bf16_io, bf16_io, bf16_cvt_io>, uint16_t, uint16_t, uint16_t>(o, f, dt::bf16, dt::bf16);
#endif
    if (!mixed) return;
    set<binary_f32<F, f32_io, bf16_io, f32_io>, float, uint16_t, float>(o, f, dt::f32, dt::bf16);
    set<binary_f32<F, bf16_io, f32_io, f32_io>, uint16_t, float, float>(o, f, dt::bf16, dt::f32);
    set<binary_f32<F, f32_io, f16_io, f32_io>, float, uint16_t, float>(o, f, dt::f32, dt::f16);
    set<binary_f32<F, f16_io, f32_io, f32_io>, uint16_t, float, float>(o, f, dt::f16, dt::f32);
}

// An integer function over every integer type (kUnsignedOnly: u8 .. u64).
template <class F, bool kUnsignedOnly = false> void set_integer(element_ops &o, ew_fn f) {
    using dt = data_type;
    set<binary<F, uint8_t>, uint8_t, uint8_t, uint8_t>(o, f, dt::u8, dt::u8);
    set<binary<F, uint16_t>, uint16_t, uint16_t, uint16_t>(o, f, dt::u16, dt::u16);
    set<binary<F, uint32_t>, uint32_t, uint32_t, uint32_t>(o, f, dt::u32, dt::u32);
    set<binary<F, uint64_t>, uint64_t, uint64_t, uint64_t>(o, f, dt::u64, dt::u64);
    if constexpr (kUnsignedOnly) return;
    set<binary<F, int8_t>, int8_t, int8_t, int8_t>(o, f, dt::s8, dt::s8);
    set<binary<F, int16_t>, int16_t, int16_t, int16_t>(o, f, dt::s16, dt::s16);
    set<binary<F, int32_t>, int32_t, int32_t, int32_t>(o, f, dt::s32, dt::s32);
    set<binary<F, int64_t>, int64_t, int64_t, int64_t>(o, f, dt::s64, dt::s64);
}

// A comparison over every float and integer type, boolean bytes out.
template <class F> void set_comparison(element_ops &o, ew_fn f) {
    using dt = data_type;
    set<compare<F, float>, float, float, uint8_t>(o, f, dt::f32, dt::f32);
    set<compare<F, double>, double, double, uint8_t>(o, f, dt::f64, dt::f64);
    set<compare<F, int8_t>, int8_t, int8_t, uint8_t>(o, f, dt::s8, dt::s8);
    set<compare<F, uint8_t>, uint8_t, uint8_t, uint8_t>(o, f, dt::u8, dt::u8);
    set<compare<F, int16_t>, int16_t, int16_t, uint8_t>(o, f, dt::s16, dt::s16);
    set<compare<F, uint16_t>, uint16_t, uint16_t, uint8_t>(o, f, dt::u16, dt::u16);
    set<compare<F, int32_t>, int32_t, int32_t, uint8_t>(o, f, dt::s32, dt::s32);
    set<compare<F, uint32_t>, uint32_t, uint32_t, uint8_t>(o, f, dt::u32, dt::u32);
    set<compare<F, int64_t>, int64_t, int64_t, uint8_t>(o, f, dt::s64, dt::s64);
    set<compare<F, uint64_t>, uint64_t, uint64_t, uint8_t>(o, f, dt::u64, dt::u64);
    set<compare_half<F, f16_io>, uint16_t, uint16_t, uint8_t>(o, f, dt::f16, dt::f16);
    set<compare_half<F, bf16_io>, uint16_t, uint16_t, uint8_t>(o, f, dt::bf16, dt::bf16);
}

#if HWY_TARGET != HWY_SCALAR
// f64 lanes rounded to f32 with IEEE overflow. Highway's EMU128 target
// (clang builds it instead of SCALAR) clamps out-of-range values, inf
// included, to the largest float, so there the lanes at or past the midpoint
// between it and 2^128 are found from v / 2 (which rounds to 2^127 exactly
// then) and made inf.
template <class DH, class VD> HWY_INLINE hn::Vec<DH> demote_f32(DH dh, VD v) {
#if HWY_TARGET == HWY_EMU128
    const hn::Rebind<double, DH> dd;
    const auto half = hn::DemoteTo(dh, hn::Mul(v, hn::Set(dd, 0.5)));
    const auto inf = hn::Ge(hn::Abs(half), hn::Set(dh, 0x1p127f));
    return hn::IfThenElse(inf, hn::CopySign(hn::Set(dh, HUGE_VALF), half), hn::DemoteTo(dh, v));
#else
    return hn::DemoteTo(dh, v);
#endif
}

// Pow of contiguous f32 bases (f16/bf16 through IO: in f32, rounded once
// more) by one small integer f32 exponent (GELU's x^3): pow_loop's products
// in double on vectors, each half of the floats widened, the same bits;
// the elements before an aligned streaming store and after the last whole
// vector through a padded vector. Other problems go to pow_loop.
template <class IO, data_type TB>
void pow_small(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, bool stream) {
    using S = typename IO::storage;
    const float y = n > 0 && sb == 0 ? *static_cast<const float *>(b_) : 0.5f;
    const int k = y == 2.f ? 2 : y == 3.f ? 3 : y == 4.f ? 4 : y == -1.f ? -1 : y == -2.f ? -2 : 0;
    if (sa != 1 || k == 0) return pow_loop<TB, data_type::f32>(a_, sa, b_, sb, out_, n, stream);
    const S *x = static_cast<const S *>(a_);
    S *out = static_cast<S *>(out_);
    const hn::ScalableTag<float> df;
    const hn::Half<decltype(df)> dh;
    const hn::Rebind<double, decltype(dh)> dd;
    const auto one = hn::Set(dd, 1.0);
    auto power = [k, one](hn::Vec<decltype(dd)> v) { // as pow_loop's lambdas: x^k with the same roundings
        const auto v2 = hn::Mul(v, v);
        return k == 2    ? v2
               : k == 3  ? hn::Mul(v2, v)
               : k == 4  ? hn::Mul(v2, v2)
               : k == -1 ? hn::Div(one, v)
                         : hn::Div(one, v2);
    };
    auto body = [&](hn::Vec<decltype(df)> v) {
        const auto lo = power(hn::PromoteTo(dd, hn::LowerHalf(dh, v)));
        const auto hi = power(hn::PromoteTo(dd, hn::UpperHalf(dh, v)));
        return hn::Combine(df, demote_f32(dh, hi), demote_f32(dh, lo));
    };
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    auto store = [&](hn::Vec<decltype(df)> v, S *to, bool nt) {
        if constexpr (std::is_same_v<IO, f32_io>) {
            nt ? hn::Stream(v, df, to) : hn::StoreU(v, df, to);
        } else {
            const typename IO::template narrow_tag<decltype(df)> dn;
            const auto h = IO::narrow(df, v);
            nt ? hn::Stream(h, dn, to) : hn::StoreU(h, dn, to);
        }
    };
    HWY_ALIGN float buf[hn::MaxLanes(df)];
    auto partial = [&](int64_t i, int64_t m) { // elements [i, i + m), m < lanes
        for (int64_t j = 0; j < lanes; ++j) buf[j] = j < m ? IO::to_f32(x[i + j]) : 1.0f;
        hn::Store(body(hn::Load(df, buf)), df, buf);
        for (int64_t j = 0; j < m; ++j) out[i + j] = IO::from_f32(buf[j]);
    };
    int64_t i = 0;
    const bool nt = stream && lanes * sizeof(S) >= 16;
    if (nt) {
        i = std::min(n, head_elements(out, lanes * sizeof(S), n));
        if (i) partial(0, i);
    }
    for (; i + lanes <= n; i += lanes) {
        if (nt) prefetch_ahead(x, 1, i, lanes);
        store(body(IO::load(df, x + i)), out + i, nt);
    }
    if (i < n) partial(i, n - i);
}
#endif

#include "kernels/native/unary_ops-inl.h"

const element_ops *get_element_ops() {
    static const element_ops ops = [] {
        element_ops o{};
        o.isa = hwy::TargetName(HWY_TARGET);
        using dt = data_type;
        using f16 = f16_io;
        using bf16 = bf16_io;
        using f32 = f32_io;
        set_arithmetic<add_fn>(o, ew_fn::add, true);
        set_arithmetic<subtract_fn>(o, ew_fn::subtract, true);
        set_arithmetic<multiply_fn>(o, ew_fn::multiply, true);
        set_arithmetic<divide_fn>(o, ew_fn::divide, true);
        set_arithmetic<maximum_fn>(o, ew_fn::maximum, false);
        set_arithmetic<minimum_fn>(o, ew_fn::minimum, false);
        set_arithmetic<mod_fn<true>>(o, ew_fn::fmod, false);
        set_integer<mod_fn<false>>(o, ew_fn::mod);
        set_comparison<equal_fn>(o, ew_fn::equal);
        set_comparison<greater_fn>(o, ew_fn::greater);
        set_comparison<greater_equal_fn>(o, ew_fn::greater_equal);
        set_comparison<less_fn>(o, ew_fn::less);
        set_comparison<less_equal_fn>(o, ew_fn::less_equal);
        set<binary<logical_and_fn, uint8_t>, uint8_t, uint8_t, uint8_t>(o, ew_fn::logical_and, dt::boolean,
                                                                        dt::boolean);
        set<binary<logical_or_fn, uint8_t>, uint8_t, uint8_t, uint8_t>(o, ew_fn::logical_or, dt::boolean, dt::boolean);
        set<binary<logical_xor_fn, uint8_t>, uint8_t, uint8_t, uint8_t>(o, ew_fn::logical_xor, dt::boolean,
                                                                        dt::boolean);
        o.nary[static_cast<int>(ew_fn::logical_not)][dtype_index(dt::boolean)] = unary<logical_not_fn, uint8_t>;
        set_integer<bitwise_and_fn>(o, ew_fn::bitwise_and);
        set_integer<bitwise_or_fn>(o, ew_fn::bitwise_or);
        set_integer<bitwise_xor_fn>(o, ew_fn::bitwise_xor);
        set_integer<shift_left_fn, true>(o, ew_fn::shift_left);
        set_integer<shift_right_fn, true>(o, ew_fn::shift_right);
        {
            auto &not_ = o.nary[static_cast<int>(ew_fn::bitwise_not)];
            not_[dtype_index(dt::s8)] = unary<bitwise_not_fn, int8_t>;
            not_[dtype_index(dt::u8)] = unary<bitwise_not_fn, uint8_t>;
            not_[dtype_index(dt::s16)] = unary<bitwise_not_fn, int16_t>;
            not_[dtype_index(dt::u16)] = unary<bitwise_not_fn, uint16_t>;
            not_[dtype_index(dt::s32)] = unary<bitwise_not_fn, int32_t>;
            not_[dtype_index(dt::u32)] = unary<bitwise_not_fn, uint32_t>;
            not_[dtype_index(dt::s64)] = unary<bitwise_not_fn, int64_t>;
            not_[dtype_index(dt::u64)] = unary<bitwise_not_fn, uint64_t>;
        }
        set<binary<prelu_fn, float>, float, float, float>(o, ew_fn::prelu, dt::f32, dt::f32);
        set<binary<prelu_fn, double>, double, double, double>(o, ew_fn::prelu, dt::f64, dt::f64);
        set<binary<prelu_fn, int32_t>, int32_t, int32_t, int32_t>(o, ew_fn::prelu, dt::s32, dt::s32);
        set<binary<prelu_fn, uint32_t>, uint32_t, uint32_t, uint32_t>(o, ew_fn::prelu, dt::u32, dt::u32);
        set<binary<prelu_fn, int64_t>, int64_t, int64_t, int64_t>(o, ew_fn::prelu, dt::s64, dt::s64);
        set<binary<prelu_fn, uint64_t>, uint64_t, uint64_t, uint64_t>(o, ew_fn::prelu, dt::u64, dt::u64);
        set<binary_f32<prelu_fn, f16, f16, f16>, uint16_t, uint16_t, uint16_t>(o, ew_fn::prelu, dt::f16, dt::f16);
        set<binary_f32<prelu_fn, bf16, bf16, bf16>, uint16_t, uint16_t, uint16_t>(o, ew_fn::prelu, dt::bf16, dt::bf16);
        set<binary<squared_difference_fn<f32>, float>, float, float, float>(o, ew_fn::squared_difference, dt::f32,
                                                                            dt::f32);
        set<binary_f32<squared_difference_fn<f16>, f16, f16, f16>, uint16_t, uint16_t, uint16_t>(
            o, ew_fn::squared_difference, dt::f16, dt::f16);
        set<binary_f32<squared_difference_fn<bf16>, bf16, bf16, bf16>, uint16_t, uint16_t, uint16_t>(
            o, ew_fn::squared_difference, dt::bf16, dt::bf16);
        set_pow(o);
#if HWY_TARGET != HWY_SCALAR
        o.linear[static_cast<int>(ew_fn::identity)] = linear_loop<void>;
        set_binary(o, ew_fn::pow, dt::f32, dt::f32, {pow_small<f32_io, dt::f32>, nullptr});
        set_binary(o, ew_fn::pow, dt::bf16, dt::f32, {pow_small<bf16_io, dt::bf16>, nullptr});
        if constexpr (kVectorF16) set_binary(o, ew_fn::pow, dt::f16, dt::f32, {pow_small<f16_io, dt::f16>, nullptr});
#endif
        set_unary(o);
        // Where, Select and the copy move elements: one loop per element size.
        for (int t = 1; t < kNumDataTypes; ++t) {
            nary_fn select = select_values<string_view_t>, copy = nullptr;
            switch (data_type_size(data_type_at(t))) {
            case 1: select = select_values<uint8_t>, copy = unary<identity_fn, uint8_t>; break;
            case 2: select = select_values<uint16_t>, copy = unary<identity_fn, uint16_t>; break;
            case 4: select = select_values<uint32_t>, copy = unary<identity_fn, uint32_t>; break;
            case 8: select = select_values<uint64_t>, copy = unary<identity_fn, uint64_t>; break;
            default: break;
            }
            o.nary[static_cast<int>(ew_fn::select)][t] = select;
            o.nary[static_cast<int>(ew_fn::identity)][t] = copy;
        }
        // Equal also takes booleans and strings, and compares f16/bf16 by their
        // bits (exact without F16C, and faster).
        set<compare<equal_fn, uint8_t, true>, uint8_t, uint8_t, uint8_t>(o, ew_fn::equal, dt::boolean, dt::boolean);
        set<equal_string, string_view_t, string_view_t, uint8_t>(o, ew_fn::equal, dt::string, dt::string);
        set<equal_f32<f16>, uint16_t, uint16_t, uint8_t>(o, ew_fn::equal, dt::f16, dt::f16);
        set<equal_f32<bf16>, uint16_t, uint16_t, uint8_t>(o, ew_fn::equal, dt::bf16, dt::bf16);
        auto &add_chains = o.chain[static_cast<int>(ew_fn::add)];
        add_chains[dtype_index(dt::f32)] = add_chain<f32>;
        add_chains[dtype_index(dt::f16)] = add_chain<f16>;
        add_chains[dtype_index(dt::bf16)] = add_chain<bf16>;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
        if (__builtin_cpu_supports("avx512bf16")) add_chains[dtype_index(dt::bf16)] = add_chain<bf16, bf16_cvt_io>;
#endif
        o.out_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::f32)] = add_out_transposed<float>;
        o.in_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::f32)] = add_in_transposed<float, false>;
        o.both_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::f32)] = add_in_transposed<float, true>;
#if HWY_TARGET <= HWY_AVX3
        o.out_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::f16)] = add_out_transposed_half<f16_io>;
#endif
#if HWY_TARGET <= HWY_AVX2
        o.out_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::bf16)] = add_out_transposed_bf16;
        o.in_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::bf16)] = add_in_transposed_bf16<false>;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
        if (__builtin_cpu_supports("avx512bf16"))
            o.in_transposed[static_cast<int>(ew_fn::add)][dtype_index(dt::bf16)] = add_in_transposed_bf16<true>;
#endif
        auto &compare_out = o.out_transposed;
        compare_out[static_cast<int>(ew_fn::equal)][dtype_index(dt::f32)] = compare_out_transposed_f32<equal_fn>;
        compare_out[static_cast<int>(ew_fn::greater)][dtype_index(dt::f32)] = compare_out_transposed_f32<greater_fn>;
        compare_out[static_cast<int>(ew_fn::greater_equal)][dtype_index(dt::f32)] =
            compare_out_transposed_f32<greater_equal_fn>;
        compare_out[static_cast<int>(ew_fn::less)][dtype_index(dt::f32)] = compare_out_transposed_f32<less_fn>;
        compare_out[static_cast<int>(ew_fn::less_equal)][dtype_index(dt::f32)] =
            compare_out_transposed_f32<less_equal_fn>;
#endif
        o.copy = copy_bytes;
        o.transpose[0] = transpose<uint8_t>;
        o.transpose[1] = transpose<uint16_t>;
        o.transpose[2] = transpose<uint32_t>;
        o.transpose[3] = transpose<uint64_t>;
        return o;
    }();
    return &ops;
}

} // namespace HWY_NAMESPACE
} // namespace fusebox::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "common/env.hpp"

namespace fusebox::detail {

HWY_EXPORT(get_element_ops);

namespace {

// The CPU's targets, less those above FUSEBOX_MAX_ISA (a smaller Highway bit
// is a better target).
int64_t allowed_targets() {
    const int64_t supported = hwy::SupportedTargets();
    const std::string &cap = env_max_isa();
    if (cap.empty()) return supported;
    for (int64_t bit : {HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_SSSE3, HWY_SCALAR})
        if (cap == hwy::TargetName(bit)) return supported & ~(bit - 1);
    return supported; // env_max_isa only returns the names above
}

// The loops of the best target in `targets`, chosen without touching
// Highway's process-wide choice (other code in the process may use Highway).
const element_ops *ops_for(int64_t targets) {
    hwy::ChosenTarget chosen;
    chosen.Update(targets);
    return HWY_DISPATCH_TABLE(get_element_ops)[chosen.GetIndex()]();
}

} // namespace

const element_ops &element_ops_for_cpu() {
    static const element_ops *ops = ops_for(allowed_targets());
    return *ops;
}

std::vector<const element_ops *> element_ops_for_every_target() {
    std::vector<const element_ops *> all;
    const int64_t allowed = allowed_targets();
    for (int64_t target : hwy::SupportedAndGeneratedTargets())
        if (target & allowed) all.push_back(ops_for(target));
    return all;
}

} // namespace fusebox::detail
#endif
