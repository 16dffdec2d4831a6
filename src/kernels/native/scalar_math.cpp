#include "kernels/native/scalar_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "interface/dtype.hpp"
#include "kernels/native/half.hpp"

namespace fusebox::detail {
namespace {

using dt = data_type;

// ---- transcendental functions, evaluated in R (double for f32 results, long
// double for f64) and rounded once to the result type by the caller ----

template <typename R> constexpr R kRsqrt2 = static_cast<R>(0.70710678118654752440084436210484903928L);
template <typename R> constexpr R kSqrt2OverPi = static_cast<R>(0.79788456080286535587989211986876373695L);

// log(1 + e^x) without overflow or cancellation.
template <typename R> R log1p_exp(R x) { return std::max(x, R(0)) + std::log1p(std::exp(-std::fabs(x))); }

template <typename R> R evaluate(ew_fn f, R x, const R *p) {
    switch (f) {
    case ew_fn::exp: return std::exp(x);
    case ew_fn::log: return std::log(x);
    case ew_fn::tanh: return std::tanh(x);
    case ew_fn::sigmoid: return R(1) / (R(1) + std::exp(-x));
    case ew_fn::erf: return std::erf(x);
    case ew_fn::elu: return x > 0 ? x : p[0] * std::expm1(x);
    case ew_fn::selu: return p[1] * (x > 0 ? x : p[0] * std::expm1(x));
    case ew_fn::softplus: return log1p_exp(p[0] * x) / p[0];
    // x * tanh(softplus(x)), x * Phi(x) and the tanh form x / (1 + e^(-2z)):
    // products that tend to -0 as x -> -inf, where the formulas give inf * 0.
    case ew_fn::mish: return std::isinf(x) && x < 0 ? R(-0.0) : x * std::tanh(log1p_exp(x));
    case ew_fn::gelu_erf: return std::isinf(x) && x < 0 ? R(-0.0) : R(0.5) * x * std::erfc(-x * kRsqrt2<R>);
    case ew_fn::gelu_tanh: {
        if (std::isinf(x) && x < 0) return R(-0.0);
        const R z = kSqrt2OverPi<R> * (x + static_cast<R>(0.044715L) * x * x * x);
        return x / (R(1) + std::exp(R(-2) * z));
    }
    default: return std::numeric_limits<R>::quiet_NaN();
    }
}

template <typename R, typename P, ew_fn F> void read_params(const void *const *in, R (&params)[2]) {
    for (int k = 0; k < 2; ++k) params[k] = k < math_param_count(F) ? *static_cast<const P *>(in[1 + k]) : R(0);
}

template <ew_fn F> void f32_loop(const void *const *in, const int64_t *st, void *out_, int64_t n, bool) {
    const float *x = static_cast<const float *>(in[0]);
    double params[2];
    read_params<double, float, F>(in, params);
    float *out = static_cast<float *>(out_);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(evaluate<double>(F, x[i * st[0]], params));
}

template <ew_fn F> void f64_loop(const void *const *in, const int64_t *st, void *out_, int64_t n, bool) {
    const double *x = static_cast<const double *>(in[0]);
    long double params[2];
    read_params<long double, double, F>(in, params);
    double *out = static_cast<double *>(out_);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(evaluate<long double>(F, x[i * st[0]], params));
}

template <ew_fn F, bool kBf16> void half_loop(const void *const *in, const int64_t *st, void *out_, int64_t n, bool) {
    const uint16_t *x = static_cast<const uint16_t *>(in[0]);
    double params[2];
    read_params<double, float, F>(in, params);
    uint16_t *out = static_cast<uint16_t *>(out_);
    for (int64_t i = 0; i < n; ++i) {
        const uint16_t h = x[i * st[0]];
        const float r = static_cast<float>(evaluate<double>(F, kBf16 ? bf16_to_f32(h) : f16_to_f32(h), params));
        out[i] = kBf16 ? f32_to_bf16(r) : f32_to_f16(r);
    }
}

template <ew_fn F> nary_fn loop_for(data_type t) {
    switch (t) {
    case dt::f32: return f32_loop<F>;
    case dt::f64: return f64_loop<F>;
    case dt::f16: return half_loop<F, false>;
    case dt::bf16: return half_loop<F, true>;
    default: return nullptr;
    }
}

// ---- Cast ----

template <dt T> struct storage_of { using type = void; };
template <> struct storage_of<dt::boolean> { using type = uint8_t; };
template <> struct storage_of<dt::s8> { using type = int8_t; };
template <> struct storage_of<dt::u8> { using type = uint8_t; };
template <> struct storage_of<dt::s16> { using type = int16_t; };
template <> struct storage_of<dt::u16> { using type = uint16_t; };
template <> struct storage_of<dt::s32> { using type = int32_t; };
template <> struct storage_of<dt::u32> { using type = uint32_t; };
template <> struct storage_of<dt::s64> { using type = int64_t; };
template <> struct storage_of<dt::u64> { using type = uint64_t; };
template <> struct storage_of<dt::f16> { using type = uint16_t; };
template <> struct storage_of<dt::bf16> { using type = uint16_t; };
template <> struct storage_of<dt::f32> { using type = float; };
template <> struct storage_of<dt::f64> { using type = double; };
template <dt T> using storage_t = typename storage_of<T>::type;

constexpr bool is_half(dt t) { return t == dt::f16 || t == dt::bf16; }
constexpr bool is_float_type(dt t) { return is_half(t) || t == dt::f32 || t == dt::f64; }

// A value exact in long double rounded once to f16/bf16: to f32 rounding to
// odd (inexact results keep a sticky last bit), then to the half type to
// nearest even; f32 has more than the half type's bits plus two, so the
// result is that of one rounding.
template <dt T> uint16_t to_half(long double v) {
    float f = static_cast<float>(v);
    if (std::isfinite(v) && static_cast<long double>(f) != v) {
        if (std::fabs(static_cast<long double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
        f = f32_from_bits(f32_bits(f) | 1u);
    }
    return T == dt::f16 ? f32_to_f16(f) : f32_to_bf16(f);
}

template <dt F> long double float_value(storage_t<F> v) {
    if constexpr (F == dt::f16)
        return f16_to_f32(v);
    else if constexpr (F == dt::bf16)
        return bf16_to_f32(v);
    else
        return v;
}

template <dt F> bool nonzero(storage_t<F> v) {
    if constexpr (is_half(F))
        return (v & 0x7FFFu) != 0; // NaN is nonzero, as x != 0 says
    else
        return v != 0;
}

template <dt F, dt T> storage_t<T> convert(storage_t<F> v) {
    using D = storage_t<T>;
    if constexpr (T == dt::boolean) {
        return nonzero<F>(v);
    } else if constexpr (F == dt::boolean) {
        if constexpr (T == dt::f16)
            return v ? 0x3C00 : 0;
        else if constexpr (T == dt::bf16)
            return v ? 0x3F80 : 0;
        else
            return static_cast<D>(v != 0);
    } else if constexpr (F == T) {
        return v;
    } else if constexpr (!is_float_type(T)) { // to an integer
        if constexpr (is_float_type(F)) {     // truncated, saturated, NaN -> 0
            const long double x = float_value<F>(v);
            if (std::isnan(x)) return 0;
            const long double lo = std::numeric_limits<D>::lowest(), hi = std::numeric_limits<D>::max();
            if (x <= lo) return std::numeric_limits<D>::lowest();
            if (x >= hi) return std::numeric_limits<D>::max();
            return static_cast<D>(std::trunc(x));
        } else { // integers wrap: the low bytes
            return static_cast<D>(static_cast<std::make_unsigned_t<D>>(v));
        }
    } else if constexpr (is_half(T)) {
        if constexpr (F == dt::f32)
            return T == dt::f16 ? f32_to_f16(v) : f32_to_bf16(v);
        else if constexpr (is_half(F)) // exact in f32, then one rounding
            return T == dt::f16 ? f32_to_f16(static_cast<float>(float_value<F>(v)))
                                : f32_to_bf16(static_cast<float>(float_value<F>(v)));
        else if constexpr (F == dt::f64)
            return std::isnan(v)
                       ? (T == dt::f16 ? f32_to_f16(static_cast<float>(v)) : f32_to_bf16(static_cast<float>(v)))
                       : to_half<T>(v);
        else
            return to_half<T>(static_cast<long double>(v));
    } else { // to f32 or f64: one IEEE conversion (halves: exact through f32)
        if constexpr (is_half(F))
            return static_cast<D>(float_value<F>(v));
        else
            return static_cast<D>(v);
    }
}

template <dt F, dt T> void cast_loop(const void *const *in, const int64_t *st, void *out_, int64_t n, bool) {
    const auto *x = static_cast<const storage_t<F> *>(in[0]);
    auto *out = static_cast<storage_t<T> *>(out_);
    const int64_t s = st[0];
    for (int64_t i = 0; i < n; ++i) out[i] = convert<F, T>(x[i * s]);
}

#define FUSEBOX_CAST_TYPES                                                                                             \
    dt::boolean, dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64, dt::u64, dt::f16, dt::bf16, dt::f32,     \
        dt::f64

template <dt F, dt... T> void set_casts_from(nary_fn (&table)[kNumDataTypes][kNumDataTypes]) {
    ((table[dtype_index(F)][dtype_index(T)] = cast_loop<F, T>), ...);
}

template <dt... F> void set_casts(nary_fn (&table)[kNumDataTypes][kNumDataTypes]) {
    (set_casts_from<F, FUSEBOX_CAST_TYPES>(table), ...);
}

} // namespace

nary_fn scalar_math_loop(ew_fn f, data_type t) {
    switch (f) {
    case ew_fn::exp: return loop_for<ew_fn::exp>(t);
    case ew_fn::log: return loop_for<ew_fn::log>(t);
    case ew_fn::tanh: return loop_for<ew_fn::tanh>(t);
    case ew_fn::sigmoid: return loop_for<ew_fn::sigmoid>(t);
    case ew_fn::erf: return loop_for<ew_fn::erf>(t);
    case ew_fn::elu: return loop_for<ew_fn::elu>(t);
    case ew_fn::selu: return loop_for<ew_fn::selu>(t);
    case ew_fn::softplus: return loop_for<ew_fn::softplus>(t);
    case ew_fn::mish: return loop_for<ew_fn::mish>(t);
    case ew_fn::gelu_erf: return loop_for<ew_fn::gelu_erf>(t);
    case ew_fn::gelu_tanh: return loop_for<ew_fn::gelu_tanh>(t);
    default: return nullptr;
    }
}

nary_fn scalar_cast_loop(data_type from, data_type to) {
    static const auto table = [] {
        struct holder {
            nary_fn t[kNumDataTypes][kNumDataTypes] = {};
        } h;
        set_casts<FUSEBOX_CAST_TYPES>(h.t);
        return h;
    }();
    if (!is_valid(from) || !is_valid(to)) return nullptr;
    return table.t[dtype_index(from)][dtype_index(to)];
}

} // namespace fusebox::detail
