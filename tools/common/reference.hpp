// The reference fusebox is checked against, shared by the tests and the
// benchdnn driver: host buffers, value generators, and a scalar evaluation of
// Add/Equal element by element from the original shapes and strides
// (independent of fusebox's canonicalization and kernels).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <sys/mman.h>
#include <vector>

#include <fusebox/fusebox.hpp>

#include "../../src/common/checked.hpp"

namespace fbref {

using namespace fusebox;
using dims = logical_tensor::dims;
using dt = data_type;

/// Elements of a shape (0 when any dim is 0; saturated at INT64_MAX).
inline int64_t numel(const dims &d) { return fusebox::detail::checked_numel(d).value_or(INT64_MAX); }

/// Memory for one logical tensor (strings keep their bytes in `text`).
/// Allocates on 64-byte boundaries, as frameworks allocate tensors; large
/// buffers on 2 MiB boundaries backed by transparent huge pages where the
/// kernel allows, so that benchmarks do not measure TLB misses.
inline void *allocate_tensor_memory(size_t bytes) {
    const size_t align = bytes >= (size_t{4} << 20) ? (size_t{2} << 20) : 64;
    void *p = ::operator new(bytes, std::align_val_t(align));
    if (align > 64) madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}
inline void free_tensor_memory(void *p, size_t bytes) {
    ::operator delete(p, std::align_val_t(bytes >= (size_t{4} << 20) ? (size_t{2} << 20) : 64));
}

template <typename T> struct aligned_allocator {
    using value_type = T;
    aligned_allocator() = default;
    template <typename U> aligned_allocator(const aligned_allocator<U> &) {}
    T *allocate(size_t n) { return static_cast<T *>(allocate_tensor_memory(n * sizeof(T))); }
    void deallocate(T *p, size_t n) { free_tensor_memory(p, n * sizeof(T)); }
    bool operator==(const aligned_allocator &) const { return true; }
    bool operator!=(const aligned_allocator &) const { return false; }
};

/// Strides of a logical tensor of known shape: its own when strided, else dense.
inline dims strides_of(const logical_tensor &lt) {
    if (lt.get_layout_type() == logical_tensor::layout_type::strided) return lt.get_strides();
    return logical_tensor(lt.get_id(), lt.get_data_type(), lt.get_dims()).get_strides();
}

/// Memory for a logical tensor of known shape, and its strides.
struct buffer {
    logical_tensor lt;
    dims strides;
    std::vector<unsigned char, aligned_allocator<unsigned char>> bytes;
    explicit buffer(const logical_tensor &l) : lt(l), strides(strides_of(l)), bytes(l.get_mem_size() + 64, 0) {}
    void *data() { return bytes.data(); }
    const void *data() const { return bytes.data(); }
};

/// Element offset of multi-index `idx` under `strides`.
inline int64_t offset_of(const dims &strides, const dims &idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return off;
}

/// Calls f(flat, idx) for every multi-index of `shape` in row-major order.
inline void for_each_index(const dims &shape, const std::function<void(int64_t, const dims &)> &f) {
    const int64_t n = numel(shape);
    dims idx(shape.size(), 0);
    for (int64_t flat = 0; flat < n; ++flat) {
        f(flat, idx);
        for (size_t d = shape.size(); d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

// ---- reference conversions (hardware F16C; bf16 by nearest-candidate search) ----

__attribute__((target("f16c"))) inline float ref_f16_to_f32(uint16_t h) { return _cvtsh_ss(h); }
__attribute__((target("f16c"))) inline uint16_t ref_f32_to_f16(float f) {
    return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
inline float ref_bf16_to_f32(uint16_t h) {
    uint32_t x = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}
inline uint16_t ref_f32_to_bf16(float f) {
    if (std::isnan(f)) return 0x7FC0;
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint16_t lo = static_cast<uint16_t>(x >> 16); // truncation: toward zero
    if ((x & 0xFFFF) == 0) return lo;
    const uint16_t hi = static_cast<uint16_t>(lo + 1); // next away from zero
    // Past the largest finite value, the next candidate is 2^128 (which is inf).
    const double vhi = (hi & 0x7FFF) == 0x7F80 ? std::copysign(std::ldexp(1.0, 128), f) : double(ref_bf16_to_f32(hi));
    const double dlo = std::fabs(double(ref_bf16_to_f32(lo)) - f), dhi = std::fabs(vhi - f);
    if (dlo != dhi) return dlo < dhi ? lo : hi;
    return (lo & 1) ? hi : lo;
}

inline bool is_float_type(dt t) { return t == dt::f16 || t == dt::bf16 || t == dt::f32 || t == dt::f64; }

/// Reads element `i` of a buffer of type t as a double / as raw bits.
inline double as_double(dt t, const void *p, int64_t i) {
    switch (t) {
    case dt::f16: return ref_f16_to_f32(static_cast<const uint16_t *>(p)[i]);
    case dt::bf16: return ref_bf16_to_f32(static_cast<const uint16_t *>(p)[i]);
    case dt::f32: return static_cast<const float *>(p)[i];
    case dt::f64: return static_cast<const double *>(p)[i];
    default: return 0;
    }
}

inline uint64_t int_bits(dt t, const void *p, int64_t i) {
    uint64_t v = 0;
    const size_t es = data_type_size(t) < 8 ? data_type_size(t) : 8;
    std::memcpy(&v, static_cast<const unsigned char *>(p) + i * data_type_size(t), es);
    return v;
}

inline int64_t int_value(dt t, const void *p, int64_t i) {
    switch (t) {
    case dt::s8: return static_cast<const int8_t *>(p)[i];
    case dt::s16: return static_cast<const int16_t *>(p)[i];
    case dt::s32: return static_cast<const int32_t *>(p)[i];
    case dt::s64: return static_cast<const int64_t *>(p)[i];
    default: return static_cast<int64_t>(int_bits(t, p, i));
    }
}

/// Whether the reference computes `kind` (binary elementwise ops).
inline bool ref_computes(op::kind kind) {
    switch (kind) {
    case op::kind::Add:
    case op::kind::Subtract:
    case op::kind::Multiply:
    case op::kind::Divide:
    case op::kind::Maximum:
    case op::kind::Minimum:
    case op::kind::Equal:
    case op::kind::Greater:
    case op::kind::GreaterEqual:
    case op::kind::Less:
    case op::kind::LessEqual:
    case op::kind::LogicalAnd:
    case op::kind::LogicalOr:
    case op::kind::LogicalXor:
    case op::kind::BitwiseAnd:
    case op::kind::BitwiseOr:
    case op::kind::BitwiseXor:
    case op::kind::BitShift:
    case op::kind::Mod:
    case op::kind::Pow:
    case op::kind::PReLU:
    case op::kind::BiasAdd:
    case op::kind::SquaredDifference:
    case op::kind::Sum:
    case op::kind::Mean: return true;
    default: return false;
    }
}

/// Whether the reference computes `kind` over one input or three (ref_nary).
inline bool ref_computes_nary(op::kind kind) {
    return kind == op::kind::LogicalNot || kind == op::kind::BitwiseNot || kind == op::kind::Where ||
           kind == op::kind::Select;
}

inline bool ref_is_comparison(op::kind kind) {
    return kind == op::kind::Equal || kind == op::kind::Greater || kind == op::kind::GreaterEqual ||
           kind == op::kind::Less || kind == op::kind::LessEqual;
}

/// A comparison of two numbers, from the spec: IEEE for floats (NaN compares
/// false), exact for every integer width.
template <typename T> bool ref_compare(op::kind kind, T x, T y) {
    switch (kind) {
    case op::kind::Greater: return x > y;
    case op::kind::GreaterEqual: return x >= y;
    case op::kind::Less: return x < y;
    case op::kind::LessEqual: return x <= y;
    default: return x == y;
    }
}

/// Arithmetic on two values of a float type computed in F (f32 for f16,
/// bf16 and f32; double for f64): one IEEE operation, rounded once.
template <typename F> F ref_float_op(op::kind kind, F x, F y) {
    switch (kind) {
    case op::kind::Mod: return std::fmod(x, y); // floats: fmod=1 only
    case op::kind::Subtract: return x - y;
    case op::kind::PReLU: return x < 0 ? x * y : x;
    case op::kind::SquaredDifference: { // the difference rounded to F, then squared
        const F d = x - y;
        return d * d;
    }
    // Pow in 64-bit x87 precision, rounded once to F; C's special values
    // (a zero, infinite or NaN operand) from the double pow, where they are
    // exact (glibc's powl misreads some: powl(-inf, -2^63) is not +0).
    case op::kind::Pow:
        if (!std::isfinite(x) || !std::isfinite(y) || x == 0)
            return static_cast<F>(std::pow(static_cast<double>(x), static_cast<double>(y)));
        return static_cast<F>(powl(static_cast<long double>(x), static_cast<long double>(y)));
    case op::kind::Multiply: return x * y;
    case op::kind::Divide: return x / y;
    case op::kind::Maximum: // IEEE 754-2019 maximum: NaN propagates, -0 < +0
    case op::kind::Minimum: {
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<F>::quiet_NaN();
        const bool max = kind == op::kind::Maximum;
        if (x == y) return (std::signbit(x) != max) ? x : y; // max: +0 wins; min: -0 wins
        return (x > y) == max ? x : y;
    }
    default: return x + y;
    }
}

/// Integer arithmetic on the values of an integer type of `bytes` bytes,
/// from ELEMENTWISE.md: two's-complement wraparound (the low bytes of the
/// exact result), division toward zero with x / 0 = 0 and INT_MIN / -1 =
/// INT_MIN. Signed values come sign-extended, unsigned ones zero-extended.
inline uint64_t ref_int_op(op::kind kind, bool is_signed, int64_t sx, int64_t sy, uint64_t ux, uint64_t uy,
                           size_t bytes, bool alt) {
    switch (kind) {
    case op::kind::BitwiseAnd: return ux & uy;
    case op::kind::BitwiseOr: return ux | uy;
    case op::kind::BitwiseXor: return ux ^ uy;
    case op::kind::BitShift: // unsigned types; counts of the width or more give 0
        if (uy >= 8 * bytes) return 0;
        return alt ? ux >> uy : ux << uy;
    case op::kind::Mod: { // alt: fmod=1, the sign of the dividend
        if (uy == 0 || (is_signed && sy == -1)) return 0;
        if (!is_signed) return ux % uy;
        const int64_t r = sx % sy; // C: the sign of the dividend
        return static_cast<uint64_t>(!alt && r != 0 && ((r < 0) != (sy < 0)) ? r + sy : r);
    }
    case op::kind::Subtract: return ux - uy;
    case op::kind::Multiply: return ux * uy;
    case op::kind::Divide:
        if (uy == 0) return 0;
        if (is_signed) {
            if (sy == -1) return 0 - ux; // wraps for INT_MIN
            return static_cast<uint64_t>(sx / sy);
        }
        return ux / uy;
    case op::kind::Maximum: return is_signed ? static_cast<uint64_t>(std::max(sx, sy)) : std::max(ux, uy);
    case op::kind::Minimum: return is_signed ? static_cast<uint64_t>(std::min(sx, sy)) : std::min(ux, uy);
    case op::kind::PReLU: return is_signed && sx < 0 ? ux * uy : ux;
    default: return ux + uy;
    }
}

inline bool is_signed_type(dt t) { return t == dt::s8 || t == dt::s16 || t == dt::s32 || t == dt::s64; }

/// Element `i` of any numeric type as a long double (exact for every integer).
inline long double as_number(dt t, const void *p, int64_t i) {
    if (is_float_type(t)) return as_double(t, p, i);
    if (is_signed_type(t)) return static_cast<long double>(int_value(t, p, i));
    return static_cast<long double>(int_bits(t, p, i));
}

/// x^e in `bytes`-byte two's complement (ELEMENTWISE.md): a negative e
/// gives 1 for x = 1, +-1 for x = -1, else 0.
inline uint64_t ref_int_pow(int64_t x, int64_t e) {
    if (e < 0) return x == 1 ? 1 : x == -1 ? static_cast<uint64_t>(e % 2 ? -1 : 1) : 0;
    if (e == 0) return 1;
    const uint64_t half = ref_int_pow(x, e / 2);
    return half * half * (e % 2 ? static_cast<uint64_t>(x) : 1);
}

/// An exponent as Cast converts it to the signed integer type of `bytes`
/// bytes: floats truncate toward zero and saturate (NaN: 0), integers wrap.
inline int64_t ref_exponent_as_int(dt t, const void *p, int64_t i, size_t bytes) {
    const long double lo = -ldexpl(1.0L, static_cast<int>(8 * bytes - 1)), hi = -lo - 1;
    if (is_float_type(t)) {
        const long double v = as_number(t, p, i);
        if (std::isnan(v)) return 0;
        return static_cast<int64_t>(std::trunc(std::clamp(v, lo, hi)));
    }
    const uint64_t bits = static_cast<uint64_t>(int_value(t, p, i)) << (64 - 8 * bytes);
    return static_cast<int64_t>(bits) >> (64 - 8 * bytes); // the low bytes, sign-extended
}

/// Writes the reference result of `kind` on elements (a[i], b[j]) into out[k]
/// (`alt`: the op's other form — BitShift's direction "RIGHT", Mod's fmod=1).
inline void ref_element(op::kind kind, dt ta, const void *a, int64_t i, dt tb, const void *b, int64_t j, dt to,
                        void *out, int64_t k, bool alt = false) {
    auto *o = static_cast<unsigned char *>(out);
    if (kind == op::kind::LogicalAnd || kind == op::kind::LogicalOr || kind == op::kind::LogicalXor) {
        const bool x = static_cast<const uint8_t *>(a)[i] != 0, y = static_cast<const uint8_t *>(b)[j] != 0;
        o[k] = kind == op::kind::LogicalAnd ? x && y : kind == op::kind::LogicalOr ? x || y : x != y;
        return;
    }
    if (ref_is_comparison(kind)) {
        bool r;
        if (ta == dt::string) {
            auto x = static_cast<const string_view_t *>(a)[i], y = static_cast<const string_view_t *>(b)[j];
            r = x.size == y.size && std::string(x.data, x.size) == std::string(y.data, y.size);
        } else if (ta == dt::boolean) {
            r = (static_cast<const uint8_t *>(a)[i] != 0) == (static_cast<const uint8_t *>(b)[j] != 0);
        } else if (is_float_type(ta)) {
            r = ref_compare(kind, as_double(ta, a, i), as_double(tb, b, j));
        } else if (is_signed_type(ta)) {
            r = ref_compare(kind, int_value(ta, a, i), int_value(tb, b, j));
        } else {
            r = ref_compare(kind, int_bits(ta, a, i), int_bits(tb, b, j));
        }
        o[k] = r;
        return;
    }
    if (kind == op::kind::Pow && !is_float_type(ta)) { // an integer base
        const size_t bytes = data_type_size(ta);
        const uint64_t r = ref_int_pow(int_value(ta, a, i), ref_exponent_as_int(tb, b, j, bytes));
        std::memcpy(o + k * bytes, &r, bytes);
        return;
    }
    if (kind == op::kind::Pow) { // the exponent converted to the base's compute type first
        const long double y = as_number(tb, b, j);
        if (to == dt::f64) {
            const double r = ref_float_op(kind, as_double(ta, a, i), static_cast<double>(y));
            std::memcpy(o + k * 8, &r, 8);
            return;
        }
        const float r = ref_float_op(kind, static_cast<float>(as_double(ta, a, i)), static_cast<float>(y));
        if (to == dt::f32) {
            std::memcpy(o + k * 4, &r, 4);
        } else {
            const uint16_t h = to == dt::f16 ? ref_f32_to_f16(r) : ref_f32_to_bf16(r);
            std::memcpy(o + k * 2, &h, 2);
        }
        return;
    }
    if (kind == op::kind::SquaredDifference && (to == dt::f16 || to == dt::bf16)) { // two ops, each rounded
        auto round = [&](float v) { return to == dt::f16 ? ref_f32_to_f16(v) : ref_f32_to_bf16(v); };
        auto value = [&](uint16_t h) { return to == dt::f16 ? ref_f16_to_f32(h) : ref_bf16_to_f32(h); };
        const float d = value(round(static_cast<float>(as_double(ta, a, i)) - static_cast<float>(as_double(tb, b, j))));
        const uint16_t h = round(d * d);
        std::memcpy(o + k * 2, &h, 2);
        return;
    }
    if (!is_float_type(to)) { // the low bytes of the exact 64-bit result
        const uint64_t s = ref_int_op(kind, is_signed_type(ta), int_value(ta, a, i), int_value(tb, b, j),
                                      static_cast<uint64_t>(int_value(ta, a, i)),
                                      static_cast<uint64_t>(int_value(tb, b, j)), data_type_size(ta), alt);
        std::memcpy(o + k * data_type_size(to), &s, data_type_size(to));
        return;
    }
    if (to == dt::f64) {
        double s = ref_float_op(kind, as_double(ta, a, i), as_double(tb, b, j));
        std::memcpy(o + k * 8, &s, 8);
        return;
    }
    const float s =
        ref_float_op(kind, static_cast<float>(as_double(ta, a, i)), static_cast<float>(as_double(tb, b, j)));
    if (to == dt::f32)
        std::memcpy(o + k * 4, &s, 4);
    else {
        uint16_t h = to == dt::f16 ? ref_f32_to_f16(s) : ref_f32_to_bf16(s);
        std::memcpy(o + k * 2, &h, 2);
    }
}

/// The numpy broadcast of two compatible shapes (no checking).
inline dims numpy_broadcast(const dims &a, const dims &b) {
    const size_t r = std::max(a.size(), b.size());
    dims out(r);
    for (size_t i = 0; i < r; ++i) {
        int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())], y = i < r - b.size() ? 1 : b[i - (r - b.size())];
        out[i] = x == 1 ? y : x;
    }
    return out;
}

/// Reference for one binary op: out (dense or strided) from a and b.
/// a lines up with the output's trailing dims (numpy); b too, unless
/// `b_first_dim` >= 0 places it at that dim (legacy `axis`).
inline void ref_binary(op::kind kind, const buffer &a, const buffer &b, buffer &out, int64_t b_first_dim = -1,
                       bool alt = false) {
    const dims &shape = out.lt.get_dims();
    const int64_t rank = static_cast<int64_t>(shape.size());
    auto offset = [&](const buffer &x, int64_t first, const dims &idx) {
        int64_t off = 0; // extent-1 dims read index 0 (they may not line up with any output dim)
        const dims &d = x.lt.get_dims();
        for (size_t k = 0; k < d.size(); ++k)
            if (d[k] != 1) off += idx[first + k] * x.strides[k];
        return off;
    };
    const int64_t first_a = rank - a.lt.get_ndims();
    const int64_t first_b = b_first_dim >= 0 ? b_first_dim : rank - b.lt.get_ndims();
    for_each_index(shape, [&](int64_t, const dims &idx) {
        ref_element(kind, a.lt.get_data_type(), a.data(), offset(a, first_a, idx), b.lt.get_data_type(), b.data(),
                    offset(b, first_b, idx), out.lt.get_data_type(), out.data(), offset_of(out.strides, idx), alt);
    });
}

/// Reference for one op of one or three inputs (LogicalNot, BitwiseNot;
/// Where and Select: condition, x, y), every input lined up with the
/// output's trailing dims (numpy).
inline void ref_nary(op::kind kind, const std::vector<const buffer *> &in, buffer &out) {
    const dims &shape = out.lt.get_dims();
    const int64_t rank = static_cast<int64_t>(shape.size());
    const size_t es = data_type_size(out.lt.get_data_type());
    for_each_index(shape, [&](int64_t, const dims &idx) {
        std::vector<const unsigned char *> at;
        for (const buffer *x : in) {
            int64_t off = 0;
            const dims &d = x->lt.get_dims();
            const int64_t first = rank - static_cast<int64_t>(d.size());
            for (size_t k = 0; k < d.size(); ++k)
                if (d[k] != 1) off += idx[first + static_cast<int64_t>(k)] * x->strides[k];
            at.push_back(static_cast<const unsigned char *>(x->data()) + off * data_type_size(x->lt.get_data_type()));
        }
        unsigned char *o = static_cast<unsigned char *>(out.data()) + offset_of(out.strides, idx) * es;
        if (kind == op::kind::LogicalNot) {
            *o = *at[0] == 0;
        } else if (kind == op::kind::BitwiseNot) {
            for (size_t b = 0; b < es; ++b) o[b] = static_cast<unsigned char>(~at[0][b]);
        } else { // Where, Select
            std::memcpy(o, *at[0] != 0 ? at[1] : at[2], es);
        }
    });
}

// ---- value generation ----

/// Fills every addressable element of `buf` with values that exercise its
/// type: edge values often, from a small pool so that Equal sees matches.
/// With `edge_values` false (performance runs), ordinary small values only.
inline void fill(buffer &buf, std::mt19937_64 &rng, bool edge_values = true) {
    const dt t = buf.lt.get_data_type();
    const size_t es = data_type_size(t);
    const int64_t n = static_cast<int64_t>(buf.lt.get_mem_size() / (es ? es : 1));
    std::uniform_int_distribution<int> pick(edge_values ? 0 : 5, edge_values ? 15 : 11);
    auto store = [&](int64_t i, const void *v) { std::memcpy(buf.bytes.data() + i * es, v, es); };
    if (t == dt::string) {
        static const char *pool[] = {"", "a", "ab", "abc", "a\0b", "a\0c", "zz", "hello"};
        static const size_t lens[] = {0, 1, 2, 3, 3, 3, 2, 5};
        for (int64_t i = 0; i < n; ++i) {
            int p = pick(rng) % 8;
            string_view_t s{pool[p], lens[p]};
            store(i, &s);
        }
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        const int p = pick(rng);
        if (t == dt::boolean) {
            uint8_t v = p < 6 ? 0 : (p < 12 ? 1 : static_cast<uint8_t>(2 + p)); // nonzero bytes other than 1 are true
            store(i, &v);
        } else if (is_float_type(t)) {
            static const double specials[] = {0.0, -0.0, 1.0, -1.5, INFINITY, -INFINITY, NAN, 1e-40, 65504.0, 3.0e38};
            double v = p < 5 ? specials[std::uniform_int_distribution<int>(0, 9)(rng)]
                             : std::ldexp(double(std::uniform_int_distribution<int>(-64, 64)(rng)), -4);
            if (p >= 12) v = std::normal_distribution<double>(0, 100)(rng);
            if (t == dt::f64)
                store(i, &v);
            else if (t == dt::f32) {
                float f = static_cast<float>(v);
                store(i, &f);
            } else if (t == dt::f16) {
                uint16_t h = p == 15 ? static_cast<uint16_t>(rng()) : ref_f32_to_f16(static_cast<float>(v));
                store(i, &h);
            } else {
                uint16_t h = p == 15 ? static_cast<uint16_t>(rng()) : ref_f32_to_bf16(static_cast<float>(v));
                store(i, &h);
            }
        } else {
            // Integers: extremes, small values, and large 64-bit values near 2^53.
            const bool is_signed = t == dt::s8 || t == dt::s16 || t == dt::s32 || t == dt::s64;
            const int bits = static_cast<int>(es * 8);
            uint64_t max_u = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
            uint64_t v;
            switch (p) {
            case 0: v = is_signed ? max_u >> 1 : max_u; break;   // max
            case 1: v = is_signed ? (max_u >> 1) + 1 : 0; break; // min
            case 2: v = max_u; break;                            // -1 / max
            case 3: v = bits == 64 ? (uint64_t{1} << 53) + 1 : max_u >> 2; break;
            case 4: v = bits == 64 ? (uint64_t{1} << 53) : (uint64_t{1} << (bits - 2)); break;
            default: v = static_cast<uint64_t>(std::uniform_int_distribution<int>(-8, 8)(rng)); break;
            }
            if (p >= 13) v = rng();
            v &= max_u;
            store(i, &v);
        }
    }
}

// ---- unary ops and casts ----

/// The transcendental ops: results within ELEMENTWISE.md's bounds, not exact.
inline bool ref_is_approximate(op::kind kind) {
    switch (kind) {
    case op::kind::Exp:
    case op::kind::Log:
    case op::kind::Tanh:
    case op::kind::Sigmoid:
    case op::kind::Erf:
    case op::kind::Elu:
    case op::kind::Selu:
    case op::kind::SoftPlus:
    case op::kind::Mish:
    case op::kind::GELU: return true;
    default: return false;
    }
}

/// Whether the reference computes `kind` as a unary op (ref_unary).
inline bool ref_is_unary(op::kind kind) {
    switch (kind) {
    case op::kind::Abs:
    case op::kind::Neg:
    case op::kind::Sign:
    case op::kind::Floor:
    case op::kind::Ceil:
    case op::kind::Round:
    case op::kind::Sqrt:
    case op::kind::Reciprocal:
    case op::kind::Square:
    case op::kind::ReLU:
    case op::kind::LeakyReLU:
    case op::kind::HardSigmoid:
    case op::kind::HardSwish:
    case op::kind::Softsign:
    case op::kind::Clamp:
    case op::kind::Clip:
    case op::kind::IsNaN:
    case op::kind::IsInf:
    case op::kind::Cast:
    case op::kind::TypeCast: return true;
    default: return ref_is_approximate(kind);
    }
}

/// ELEMENTWISE.md's bound for an approximate op, in ulp of its output type:
/// 1 for f16/bf16; 32 for GELU and Mish; 2 for the others.
inline int64_t ref_approximate_ulp(op::kind kind, dt out) {
    if (out == dt::f16 || out == dt::bf16) return 1;
    return kind == op::kind::GELU || kind == op::kind::Mish ? 32 : 2;
}

inline float ref_attr(const op &o, op::attr a, float fallback) {
    auto it = o.get_attrs().find(a);
    return it == o.get_attrs().end() ? fallback : std::get<float>(it->second);
}

/// A transcendental op on x, in x87 extended precision (64-bit significand).
inline long double ref_transcendental(const op &o, long double x) {
    const long double one = 1.0L;
    switch (o.get_kind()) {
    case op::kind::Exp: return expl(x);
    case op::kind::Log: return logl(x);
    case op::kind::Tanh: return tanhl(x);
    case op::kind::Sigmoid: return x < 0 ? expl(x) / (one + expl(x)) : one / (one + expl(-x));
    case op::kind::Erf: return erfl(x);
    case op::kind::Elu: return x > 0 ? x : static_cast<long double>(ref_attr(o, op::attr::alpha, 1.0f)) * expm1l(x);
    case op::kind::Selu: {
        const long double alpha = ref_attr(o, op::attr::alpha, 1.67326319217681884765625f);
        const long double gamma = ref_attr(o, op::attr::gamma, 1.05070102214813232421875f);
        return x > 0 ? gamma * x : gamma * alpha * expm1l(x);
    }
    case op::kind::SoftPlus: { // log(1 + e^(beta x)) / beta
        const long double beta = ref_attr(o, op::attr::beta, 1.0f), y = beta * x;
        return (y > 0 ? y + log1pl(expl(-y)) : log1pl(expl(y))) / beta;
    }
    case op::kind::Mish: {
        if (std::isinf(x)) return x > 0 ? x : -0.0L;
        const long double sp = x > 0 ? x + log1pl(expl(-x)) : log1pl(expl(x));
        return x * tanhl(sp);
    }
    case op::kind::GELU: {
        auto m = o.get_attrs().find(op::attr::mode);
        if (std::isinf(x)) return x > 0 ? x : -0.0L;
        if (m == o.get_attrs().end() || std::get<std::string>(m->second) == "gelu_erf")
            return x * erfcl(-x / sqrtl(2.0L)) / 2;
        // 0.5 x (1 + tanh(z)); for z < 0, 1 + tanh(z) = 2 e^(2z) / (e^(2z) + 1) without cancellation
        const long double z = sqrtl(2.0L / acosl(-1.0L)) * (x + 0.044715L * x * x * x);
        if (z >= 0) return x * (one + tanhl(z)) / 2;
        const long double e = expl(2 * z);
        return x * e / (e + one);
    }
    default: return NAN;
    }
}

/// An exact unary op on x computed in F (float for f16, bf16, f32; double
/// for f64), each step rounded to F as ELEMENTWISE.md writes it.
template <typename F> F ref_exact_unary(const op &o, F x, F lo, F hi) {
    auto clamp01 = [](F t) { // IEEE max(0, min(1, t)): NaN propagates, -0 becomes +0
        if (std::isnan(t)) return t;
        return t >= 1 ? F(1) : t > 0 ? t : F(0);
    };
    switch (o.get_kind()) {
    case op::kind::Abs: return std::signbit(x) ? -x : x;
    case op::kind::Neg: return -x;
    case op::kind::Sign: return std::isnan(x) ? x : x > 0 ? F(1) : x < 0 ? F(-1) : F(0);
    case op::kind::Floor: return std::floor(x);
    case op::kind::Ceil: return std::ceil(x);
    case op::kind::Round: {        // half to even
        const F r = std::round(x); // half away from zero
        return std::fabs(x - std::trunc(x)) == F(0.5) ? 2 * std::round(x / 2) : r;
    }
    case op::kind::Sqrt: return std::sqrt(x);
    case op::kind::Reciprocal: return F(1) / x;
    case op::kind::Square: return x * x;
    case op::kind::ReLU: return std::isnan(x) ? x : x > 0 ? x : F(0);
    case op::kind::LeakyReLU: return x < 0 ? x * static_cast<F>(ref_attr(o, op::attr::alpha, 0.01f)) : x;
    case op::kind::HardSigmoid: {
        const F t = static_cast<F>(ref_attr(o, op::attr::alpha, 0.2f)) * x;
        return clamp01(t + static_cast<F>(ref_attr(o, op::attr::beta, 0.5f)));
    }
    case op::kind::HardSwish: {
        const F t = x * (F(1) / F(6));
        return x * clamp01(t + F(0.5));
    }
    case op::kind::Softsign: return x / (F(1) + std::fabs(x));
    case op::kind::Clamp:
    case op::kind::Clip: return ref_float_op(op::kind::Minimum, ref_float_op(op::kind::Maximum, x, lo), hi);
    default: return NAN;
    }
}

/// `v` (exact in long double) rounded once to f16 or bf16, nearest even, by
/// searching the neighbours of a first guess.
inline uint16_t ref_round_to_half(long double v, bool bf16) {
    if (std::isnan(v)) return bf16 ? 0x7FC0 : 0x7E00;
    auto value = [&](uint16_t h) -> long double { // the pattern past the largest finite value counts as 2^16 / 2^128
        if ((h & 0x7FFF) == (bf16 ? 0x7F80 : 0x7C00)) return std::copysign(ldexpl(1.0L, bf16 ? 128 : 16), v);
        return bf16 ? ref_bf16_to_f32(h) : ref_f16_to_f32(h);
    };
    const float f = static_cast<float>(v);
    const uint16_t guess = bf16 ? ref_f32_to_bf16(f) : ref_f32_to_f16(f);
    if (std::isinf(v)) return guess;
    uint16_t best = guess;
    for (int d = -1; d <= 1; ++d) {
        const uint16_t c = static_cast<uint16_t>(guess + d);
        if ((c & 0x8000) != (guess & 0x8000) || (c & 0x7FFF) > (bf16 ? 0x7F80 : 0x7C00)) continue;
        const long double dc = std::fabs(value(c) - v), db = std::fabs(value(best) - v);
        if (dc < db || (dc == db && (c & 1) == 0)) best = c;
    }
    return best;
}

/// Writes `v` as element k of an output of float type t (rounded once).
inline void ref_store_float(dt t, void *out, int64_t k, long double v) {
    auto *o = static_cast<unsigned char *>(out);
    if (t == dt::f64) {
        const double d = static_cast<double>(v);
        std::memcpy(o + k * 8, &d, 8);
    } else if (t == dt::f32) {
        const float f = static_cast<float>(v);
        std::memcpy(o + k * 4, &f, 4);
    } else {
        const uint16_t h = ref_round_to_half(v, t == dt::bf16);
        std::memcpy(o + k * 2, &h, 2);
    }
}

/// Cast of element i of `from` into element k of `to` (ELEMENTWISE.md).
inline void ref_cast(dt from, const void *in, int64_t i, dt to, void *out, int64_t k) {
    auto *o = static_cast<unsigned char *>(out);
    const bool from_bool = from == dt::boolean;
    const long double v = from_bool ? (static_cast<const uint8_t *>(in)[i] != 0) : as_number(from, in, i);
    if (to == dt::boolean) {
        o[k] = v != 0 || std::isnan(v);
        return;
    }
    if (is_float_type(to)) return ref_store_float(to, out, k, v);
    const size_t bytes = data_type_size(to);
    uint64_t bits;
    if (is_float_type(from)) { // toward zero, saturated; NaN -> 0
        const long double lo = is_signed_type(to) ? -ldexpl(1.0L, static_cast<int>(8 * bytes - 1)) : 0.0L;
        const long double hi = is_signed_type(to) ? -lo - 1 : ldexpl(1.0L, static_cast<int>(8 * bytes)) - 1;
        const long double t = std::isnan(v) ? 0.0L : std::trunc(std::clamp(v, lo, hi));
        bits = t < 0 ? static_cast<uint64_t>(static_cast<int64_t>(t)) : static_cast<uint64_t>(t);
    } else { // integers wrap: the low bytes of the value
        bits = v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
    }
    std::memcpy(o + k * bytes, &bits, bytes);
}

/// One unary op (and Clip's min/max inputs, one element each) from element i
/// of x into element k of out.
inline void ref_unary_element(const op &o, dt t, const void *x, int64_t i, const void *lo_in, const void *hi_in, dt to,
                              void *out, int64_t k) {
    const op::kind kind = o.get_kind();
    auto *ob = static_cast<unsigned char *>(out);
    if (kind == op::kind::Cast || kind == op::kind::TypeCast) return ref_cast(t, x, i, to, out, k);
    if (kind == op::kind::IsNaN || kind == op::kind::IsInf) {
        const double v = as_double(t, x, i);
        auto flag = [&](op::attr a) {
            auto it = o.get_attrs().find(a);
            return it == o.get_attrs().end() || std::get<int64_t>(it->second) != 0;
        };
        ob[k] = kind == op::kind::IsNaN
                    ? std::isnan(v)
                    : std::isinf(v) && (v > 0 ? flag(op::attr::detect_positive) : flag(op::attr::detect_negative));
        return;
    }
    const bool clip = kind == op::kind::Clamp || kind == op::kind::Clip;
    if (!is_float_type(t)) { // Abs, Neg, Sign, ReLU, Clip of integers, in the type's width
        const size_t bytes = data_type_size(t);
        const bool sgn = is_signed_type(t);
        const long double v = as_number(t, x, i);
        long double r = v;
        switch (kind) {
        case op::kind::Abs: r = std::fabs(v); break;
        case op::kind::Neg: r = -v; break;
        case op::kind::Sign: r = v > 0 ? 1 : v < 0 ? -1 : 0; break;
        case op::kind::ReLU: r = v > 0 ? v : 0; break;
        default: { // Clip: absent bounds are none
            const long double lo = lo_in ? as_number(t, lo_in, 0) : -INFINITY;
            const long double hi = hi_in ? as_number(t, hi_in, 0) : INFINITY;
            r = std::min(std::max(v, lo), hi);
        }
        }
        // The low bytes of the exact result (-INT_MIN wraps to INT_MIN).
        const long double span = ldexpl(1.0L, static_cast<int>(8 * bytes));
        long double m = std::fmod(r, span);
        if (m < 0) m += span;
        if (sgn && m >= span / 2) m -= span;
        const uint64_t bits = m < 0 ? static_cast<uint64_t>(static_cast<int64_t>(m)) : static_cast<uint64_t>(m);
        std::memcpy(ob + k * bytes, &bits, bytes);
        return;
    }
    const long double v = as_double(t, x, i);
    if (ref_is_approximate(kind)) { // f16/bf16: the f32 result, rounded to the type (ELEMENTWISE.md)
        const long double r = ref_transcendental(o, v);
        return ref_store_float(to, out, k, t == dt::f64 ? r : static_cast<long double>(static_cast<float>(r)));
    }
    long double lo = -INFINITY, hi = INFINITY;
    if (clip) {
        lo = lo_in ? as_double(t, lo_in, 0) : ref_attr(o, op::attr::min, -INFINITY);
        hi = hi_in ? as_double(t, hi_in, 0) : ref_attr(o, op::attr::max, INFINITY);
    }
    if (t == dt::f64)
        return ref_store_float(
            to, out, k,
            ref_exact_unary<double>(o, static_cast<double>(v), static_cast<double>(lo), static_cast<double>(hi)));
    // Clamp's f32 bounds on an f16/bf16 input: comparing in f32 and rounding
    // equals comparing with the bounds rounded to the type (rounding is monotonic).
    ref_store_float(to, out, k,
                    ref_exact_unary<float>(o, static_cast<float>(v), static_cast<float>(lo), static_cast<float>(hi)));
}

/// Reference for one unary op: out from x (and Clip's min/max inputs), x
/// lined up with the output (same shape).
inline void ref_unary(const op &o, const std::vector<const buffer *> &in, buffer &out) {
    const buffer &x = *in[0];
    const void *lo = in.size() > 1 ? in[1]->data() : nullptr, *hi = in.size() > 2 ? in[2]->data() : nullptr;
    for_each_index(out.lt.get_dims(), [&](int64_t, const dims &idx) {
        ref_unary_element(o, x.lt.get_data_type(), x.data(), offset_of(x.strides, idx), lo, hi, out.lt.get_data_type(),
                          out.data(), offset_of(out.strides, idx));
    });
}

/// The tolerance of a comparison against this reference, in units in the last
/// place: 1 for f64 Pow (libm's pow is within 0.52 ulp, not correctly
/// rounded; the reference rounds an x87 powl), 0 (bit for bit) otherwise.
inline int64_t ref_max_ulp(op::kind kind, dt out) {
    if (ref_is_approximate(kind)) return ref_approximate_ulp(kind, out);
    return kind == op::kind::Pow && out == dt::f64 ? 1 : 0;
}

/// The same for a whole graph's outputs: 1 where it holds a Pow; where it
/// holds a transcendental op, the largest of their bounds (ELEMENTWISE.md).
inline int64_t ref_max_ulp(const std::vector<op> &ops) {
    int64_t ulp = 0;
    for (const op &o : ops) {
        if (o.get_kind() == op::kind::Pow) ulp = std::max<int64_t>(ulp, 1);
        if (ref_is_approximate(o.get_kind())) ulp = std::max(ulp, ref_approximate_ulp(o.get_kind(), dt::f32));
    }
    return ulp;
}

/// Units in the last place between two finite floats of type t of the same
/// sign (as ordered bit patterns); INT64_MAX when their signs differ (+0 and
/// -0 included).
inline int64_t ulp_distance(dt t, const void *x, const void *y) {
    const uint64_t a = int_bits(t, x, 0), b = int_bits(t, y, 0);
    const uint64_t sign = uint64_t{1} << (8 * data_type_size(t) - 1);
    if ((a & sign) != (b & sign)) return INT64_MAX;
    return a > b ? static_cast<int64_t>(a - b) : static_cast<int64_t>(b - a);
}

/// Empty when `actual` holds the same elements as `expected`, each read in
/// its own layout (floats compare NaN to NaN as equal, everything else bit
/// for bit, or floats within `max_ulp` units in the last place); else the
/// first mismatch.
inline std::string first_mismatch(const buffer &expected, const buffer &actual, int64_t max_ulp = 0) {
    const logical_tensor &lt = expected.lt;
    const dt t = lt.get_data_type();
    const size_t es = data_type_size(t);
    std::string first;
    for_each_index(lt.get_dims(), [&](int64_t, const dims &idx) {
        if (!first.empty()) return;
        const int64_t off = offset_of(expected.strides, idx);
        const unsigned char *x = expected.bytes.data() + off * es,
                            *y = actual.bytes.data() + offset_of(actual.strides, idx) * es;
        if (std::memcmp(x, y, es) == 0) return;
        if (is_float_type(t) && std::isnan(as_double(t, x, 0)) && std::isnan(as_double(t, y, 0))) return;
        if (max_ulp > 0 && is_float_type(t) && !std::isnan(as_double(t, x, 0)) && !std::isnan(as_double(t, y, 0)) &&
            ulp_distance(t, x, y) <= max_ulp)
            return;
        first = "element at offset " + std::to_string(off) + ": expected bits " + std::to_string(int_bits(t, x, 0)) +
                ", got " + std::to_string(int_bits(t, y, 0));
    });
    return first;
}

// ---- a whole graph, op by op ----

inline dims broadcast_shape(const op &o, const dims &a, const dims &b) {
    if (o.get_attrs().count(op::attr::broadcast)) return a; // legacy: the output has A's shape
    return numpy_broadcast(a, b);
}

inline int64_t legacy_first_dim(const op &o, size_t rank_a, size_t rank_b) {
    auto it = o.get_attrs().find(op::attr::broadcast);
    if (it == o.get_attrs().end() || std::get<int64_t>(it->second) == 0) return -1;
    auto ax = o.get_attrs().find(op::attr::axis);
    if (ax == o.get_attrs().end()) return static_cast<int64_t>(rank_a) - static_cast<int64_t>(rank_b);
    int64_t axis = std::get<int64_t>(ax->second);
    return axis < 0 ? axis + static_cast<int64_t>(rank_a) : axis;
}

inline data_type reference_type(const op &o, data_type a, data_type b) {
    if (ref_is_comparison(o.get_kind())) return data_type::boolean;
    if (o.get_kind() == op::kind::Pow) return a; // the base's type
    return a == b ? a : data_type::f32;
}

/// The dim of the output where a 1-D second input lines up with BiasAdd's
/// or (per channel, the default) PReLU's channel dim: -1 for other ops.
inline int64_t channel_first_dim(const op &o, size_t rank_a, size_t rank_b) {
    const auto &attrs = o.get_attrs();
    if ((o.get_kind() != op::kind::BiasAdd && o.get_kind() != op::kind::PReLU) || rank_b != 1) return -1;
    if (auto pc = attrs.find(op::attr::per_channel_broadcast); pc != attrs.end() && !std::get<bool>(pc->second))
        return -1;
    auto f = attrs.find(op::attr::data_format);
    const bool ncx = f != attrs.end() && std::get<std::string>(f->second) == "NCX";
    return ncx ? 1 : static_cast<int64_t>(rank_a) - 1;
}

/// Evaluates every elementwise op of `ops` (in any order) from the buffers in
/// `values`, which holds the graph inputs and receives every result; other
/// kinds are skipped, ops whose inputs never become available are left out.
inline void reference_graph(const std::vector<op> &ops, std::map<size_t, std::shared_ptr<buffer>> &values) {
    std::vector<bool> done(ops.size(), false);
    for (size_t finished = 0, pass = 0; finished < ops.size() && pass <= ops.size(); ++pass) {
        for (size_t i = 0; i < ops.size(); ++i) {
            const op &o = ops[i];
            if (done[i]) continue;
            const op::kind kind = o.get_kind();
            if (!ref_computes_nary(kind) && !ref_computes(kind) && !ref_is_unary(kind)) {
                done[i] = true, ++finished; // End, and kinds the reference does not compute
                continue;
            }
            std::vector<const buffer *> in;
            for (const auto &lt : o.get_inputs())
                if (values.count(lt.get_id())) in.push_back(values.at(lt.get_id()).get());
            if (in.size() != o.get_inputs().size()) continue;
            const size_t out_id = o.get_outputs()[0].get_id();
            std::shared_ptr<buffer> out;
            if (ref_is_unary(kind)) {
                const dt type = kind == op::kind::Cast || kind == op::kind::TypeCast
                                    ? o.get_outputs()[0].get_data_type()
                                : kind == op::kind::IsNaN || kind == op::kind::IsInf ? dt::boolean
                                                                                     : in[0]->lt.get_data_type();
                out = std::make_shared<buffer>(logical_tensor(out_id, type, in[0]->lt.get_dims()));
                ref_unary(o, in, *out);
            } else if (ref_computes_nary(kind)) {
                dims shape;
                for (const buffer *x : in) shape = numpy_broadcast(shape, x->lt.get_dims());
                const dt type = kind == op::kind::Where || kind == op::kind::Select ? in[1]->lt.get_data_type()
                                                                                    : in[0]->lt.get_data_type();
                out = std::make_shared<buffer>(logical_tensor(out_id, type, shape));
                ref_nary(kind, in, *out);
            } else if (in.size() == 1) { // Sum, Mean, Max, Min of one input: a copy; Pow: x ^ beta
                buffer beta(logical_tensor(out_id + 1, dt::f32, dims{1}));
                const float exponent = kind == op::kind::Pow ? std::get<float>(o.get_attrs().at(op::attr::beta)) : 0.0f;
                std::memcpy(beta.data(), &exponent, 4);
                out = std::make_shared<buffer>(logical_tensor(out_id, in[0]->lt.get_data_type(), in[0]->lt.get_dims()));
                if (kind == op::kind::Pow)
                    ref_binary(kind, *in[0], beta, *out);
                else
                    for_each_index(out->lt.get_dims(), [&](int64_t, const dims &idx) {
                        const size_t es = data_type_size(out->lt.get_data_type());
                        std::memcpy(static_cast<unsigned char *>(out->data()) + offset_of(out->strides, idx) * es,
                                    static_cast<const unsigned char *>(in[0]->data()) +
                                        offset_of(in[0]->strides, idx) * es,
                                    es);
                    });
            } else {
                // Two inputs, or Sum, Mean, Max, Min folded left to right, each step
                // rounded to the type; Mean then divides by the count.
                const op::kind step = kind == op::kind::Sum || kind == op::kind::Mean ? op::kind::Add : kind;
                auto dir = o.get_attrs().find(op::attr::direction);
                auto fmod = o.get_attrs().find(op::attr::fmod);
                const bool alt = (dir != o.get_attrs().end() && std::get<std::string>(dir->second) == "RIGHT") ||
                                 (fmod != o.get_attrs().end() && std::get<int64_t>(fmod->second) == 1);
                std::shared_ptr<const buffer> acc = values.at(o.get_inputs()[0].get_id());
                for (size_t k = 1; k < in.size(); ++k) {
                    const buffer &a = *acc, &b = *in[k];
                    const size_t ra = a.lt.get_dims().size(), rb = b.lt.get_dims().size();
                    int64_t first = legacy_first_dim(o, ra, rb);
                    if (first < 0) first = channel_first_dim(o, ra, rb);
                    const dims shape =
                        first >= 0 ? a.lt.get_dims() : broadcast_shape(o, a.lt.get_dims(), b.lt.get_dims());
                    auto next = std::make_shared<buffer>(
                        logical_tensor(out_id, reference_type(o, a.lt.get_data_type(), b.lt.get_data_type()), shape));
                    ref_binary(step, a, b, *next, first, alt);
                    acc = next;
                }
                out = std::const_pointer_cast<buffer>(acc);
                if (kind == op::kind::Mean) {
                    buffer count(logical_tensor(out_id + 1, out->lt.get_data_type(), dims{1}));
                    const double n = static_cast<double>(in.size());
                    const float nf = static_cast<float>(n);
                    switch (count.lt.get_data_type()) {
                    case dt::f64: std::memcpy(count.data(), &n, 8); break;
                    case dt::f32: std::memcpy(count.data(), &nf, 4); break;
                    default: {
                        const uint16_t h =
                            count.lt.get_data_type() == dt::f16 ? ref_f32_to_f16(nf) : ref_f32_to_bf16(nf);
                        std::memcpy(count.data(), &h, 2);
                    }
                    }
                    auto mean = std::make_shared<buffer>(out->lt);
                    ref_binary(op::kind::Divide, *out, count, *mean);
                    out = mean;
                }
            }
            values[out_id] = out;
            done[i] = true, ++finished;
        }
    }
}

} // namespace fbref
