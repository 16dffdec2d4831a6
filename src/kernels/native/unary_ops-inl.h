// The unary ops' bodies and loops, compiled per target inside binary_ops.cpp
// (its namespace, store_loop, load_operand and the f16/bf16 io types). Each
// functor has a vector body `vec(x, p0, p1)` and a scalar body
// `scalar<T>(x, p0, p1)`, p0 and p1 the op's constants (`params` of them);
// f16/bf16 run the f32 bodies and round once. The transcendental functions
// have scalar loops compiled once (scalar_math.cpp).
// No include guard: included once per target.

// Floats: the sign bit cleared (NaN stays NaN). Signed integers wrap (the
// most negative value is its own absolute value); unsigned ones are unchanged.
struct abs_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) {
        if constexpr (std::is_unsigned_v<hn::TFromV<V>>)
            return x;
        else
            return hn::Abs(x);
    }
    template <typename T> static T scalar(T x, T, T) {
        if constexpr (std::is_floating_point_v<T>)
            return std::fabs(x);
        else if constexpr (std::is_signed_v<T>)
            return x < 0 ? wrap<T>(0 - static_cast<uint64_t>(x)) : x;
        else
            return x;
    }
};
// Floats: the sign bit flipped; integers wrap.
struct neg_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::Neg(x); }
    template <typename T> static T scalar(T x, T, T) {
        if constexpr (std::is_floating_point_v<T>)
            return -x;
        else
            return wrap<T>(0 - static_cast<uint64_t>(x));
    }
};
// -1, +0 or 1 (Sign(-0) = +0); NaN stays NaN.
struct sign_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) {
        const hn::DFromV<V> d;
        using T = hn::TFromV<V>;
        const V zero = hn::Zero(d), one = hn::Set(d, T(1));
        if constexpr (std::is_unsigned_v<T>) {
            return hn::Min(x, one);
        } else {
            const V r = hn::IfThenElse(hn::Gt(x, zero), one, hn::IfThenElseZero(hn::Lt(x, zero), hn::Set(d, T(-1))));
            if constexpr (std::is_floating_point_v<T>)
                return hn::IfThenElse(hn::IsNaN(x), x, r);
            else
                return r;
        }
    }
    template <typename T> static T scalar(T x, T, T) {
        if (x != x) return x;
        return x > 0 ? T(1) : x < 0 ? static_cast<T>(-1) : T(0);
    }
};
// The result has the sign of x (Floor(-0) = -0, Ceil(-0.5) = -0), which
// Highway's emulation below SSE4 loses: the sign is copied back.
struct floor_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::CopySign(hn::Floor(x), x); }
    template <typename T> static T scalar(T x, T, T) { return std::floor(x); }
};
struct ceil_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::CopySign(hn::Ceil(x), x); }
    template <typename T> static T scalar(T x, T, T) { return std::ceil(x); }
};
// Half to even (the default rounding mode).
struct round_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::CopySign(hn::Round(x), x); }
    template <typename T> static T scalar(T x, T, T) { return std::nearbyint(x); }
};
struct sqrt_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::Sqrt(x); }
    template <typename T> static T scalar(T x, T, T) { return std::sqrt(x); }
};
struct reciprocal_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::Div(hn::Set(hn::DFromV<V>(), 1), x); }
    template <typename T> static T scalar(T x, T, T) { return T(1) / x; }
};
struct square_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::Mul(x, x); }
    template <typename T> static T scalar(T x, T, T) { return x * x; }
};
// maximum(x, +0): ReLU(-0) = +0, NaN stays NaN.
struct relu_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return maximum_fn::vec(x, hn::Zero(hn::DFromV<V>())); }
    template <typename T> static T scalar(T x, T, T) { return maximum_fn::scalar<T>(x, T(0)); }
};
// max(0, min(1, alpha * x + beta)), each step rounded.
struct hard_sigmoid_fn {
    static constexpr int params = 2;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V alpha, V beta) {
        const hn::DFromV<V> d;
        return maximum_fn::vec(hn::Zero(d), minimum_fn::vec(hn::Set(d, 1), hn::Add(hn::Mul(alpha, x), beta)));
    }
    template <typename T> static T scalar(T x, T alpha, T beta) {
        return ieee_max(T(0), ieee_min(T(1), alpha * x + beta));
    }
};
// x * max(0, min(1, x * c + 0.5)), c = 1/6 rounded to the compute type.
struct hard_swish_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) {
        const hn::DFromV<V> d;
        using T = hn::TFromV<V>;
        const V t = hn::Add(hn::Mul(x, hn::Set(d, T(1) / T(6))), hn::Set(d, T(0.5)));
        return hn::Mul(x, maximum_fn::vec(hn::Zero(d), minimum_fn::vec(hn::Set(d, 1), t)));
    }
    template <typename T> static T scalar(T x, T, T) {
        return x * ieee_max(T(0), ieee_min(T(1), x * (T(1) / T(6)) + T(0.5)));
    }
};
// x / (1 + |x|).
struct softsign_fn {
    static constexpr int params = 0;
    template <typename T> static constexpr bool vector = true;
    template <class V> static V vec(V x, V, V) { return hn::Div(x, hn::Add(hn::Set(hn::DFromV<V>(), 1), hn::Abs(x))); }
    template <typename T> static T scalar(T x, T, T) { return x / (T(1) + std::fabs(x)); }
};

// out = F(x; in[1], in[2]) over one type T (the constants of T, stride 0).
template <class F, typename T>
void unary_math(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    const T *x = static_cast<const T *>(in[0]);
    const int64_t sx = st[0];
    const T p0 = F::params > 0 ? *static_cast<const T *>(in[1]) : T(0);
    const T p1 = F::params > 1 ? *static_cast<const T *>(in[2]) : T(0);
    T *out = static_cast<T *>(out_);
    auto scalar = [&](int64_t i) { return F::template scalar<T>(x[sx * i], p0, p1); };
    if constexpr (F::template vector<T>) {
        const hn::ScalableTag<T> d;
        const auto v0 = hn::Set(d, p0), v1 = hn::Set(d, p1);
        store_loop(
            d, hn::Lanes(d), out, n, stream, [&](int64_t i) { return F::vec(load_operand(d, x, sx, i), v0, v1); },
            scalar, x, sx, x, int64_t{0});
    } else {
        static_cast<void>(stream);
        for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
    }
}

// The same for f16/bf16 (IO): computed in f32 (constants f32), rounded once.
template <class F, class IO>
void unary_math_half(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    const uint16_t *x = static_cast<const uint16_t *>(in[0]);
    const int64_t sx = st[0];
    const float p0 = F::params > 0 ? *static_cast<const float *>(in[1]) : 0.0f;
    const float p1 = F::params > 1 ? *static_cast<const float *>(in[2]) : 0.0f;
    uint16_t *out = static_cast<uint16_t *>(out_);
    auto scalar = [&](int64_t i) { return IO::from_f32(F::template scalar<float>(IO::to_f32(x[sx * i]), p0, p1)); };
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kVectorF16 || !std::is_same_v<IO, f16_io>) {
        const hn::ScalableTag<float> df;
        const hn::Repartition<uint16_t, decltype(df)> dout;
        const auto v0 = hn::Set(df, p0), v1 = hn::Set(df, p1), x0 = hn::Set(df, IO::to_f32(x[0]));
        const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
        auto at = [&](int64_t i) { return F::vec(sx ? IO::load(df, x + i) : x0, v0, v1); };
        store_loop(
            dout, 2 * lanes, out, n, stream, [&](int64_t i) { return IO::narrow2(df, at(i), at(i + lanes)); }, scalar,
            x, sx, x, int64_t{0});
        return;
    }
#endif
    static_cast<void>(stream);
    for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
}

// min(max(x, lo), hi), IEEE maximum/minimum (NaN propagates) over one type T
// (f16/bf16 through IO): lo and hi are operands (Clip's inputs) or constants.
template <typename T, class IO = void>
void clamp_values(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    using S = std::conditional_t<std::is_void_v<IO>, T, uint16_t>;
    const S *x = static_cast<const S *>(in[0]), *lo = static_cast<const S *>(in[1]),
            *hi = static_cast<const S *>(in[2]);
    S *out = static_cast<S *>(out_);
    auto scalar = [&](int64_t i) -> S {
        if constexpr (std::is_void_v<IO>)
            return minimum_fn::scalar<T>(maximum_fn::scalar<T>(x[st[0] * i], lo[st[1] * i]), hi[st[2] * i]);
        else
            return IO::from_f32(minimum_fn::scalar<float>(
                maximum_fn::scalar<float>(IO::to_f32(x[st[0] * i]), IO::to_f32(lo[st[1] * i])),
                IO::to_f32(hi[st[2] * i])));
    };
    if constexpr (std::is_void_v<IO>) {
        if (st[1] == 0 && st[2] == 0) {
            const hn::ScalableTag<T> d;
            const auto l = hn::Set(d, lo[0]), h = hn::Set(d, hi[0]);
            store_loop(
                d, hn::Lanes(d), out, n, stream,
                [&](int64_t i) { return minimum_fn::vec(maximum_fn::vec(load_operand(d, x, st[0], i), l), h); }, scalar,
                x, st[0], x, int64_t{0});
            return;
        }
    } else {
#if HWY_TARGET != HWY_SCALAR
        if constexpr (kVectorF16 || !std::is_same_v<IO, f16_io>) {
            if (st[1] == 0 && st[2] == 0 && st[0] == 1) {
                const hn::ScalableTag<float> df;
                const hn::Repartition<uint16_t, decltype(df)> dout;
                const auto l = hn::Set(df, IO::to_f32(lo[0])), h = hn::Set(df, IO::to_f32(hi[0]));
                const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
                auto at = [&](int64_t i) { return minimum_fn::vec(maximum_fn::vec(IO::load(df, x + i), l), h); };
                store_loop(
                    dout, 2 * lanes, out, n, stream, [&](int64_t i) { return IO::narrow2(df, at(i), at(i + lanes)); },
                    scalar, x, st[0], x, int64_t{0});
                return;
            }
        }
#endif
    }
    static_cast<void>(stream);
    for (int64_t i = 0; i < n; ++i) out[i] = scalar(i);
}

// IsNaN / IsInf as boolean bytes, from the bits of the float (TI: the signed
// integer of its size; kAbs and kInf its magnitude mask and infinity).
// IsInf's constant says which infinities count: 1 +inf, 2 -inf, 3 both.
template <typename TI, uint64_t kAbs, uint64_t kInf, bool kNaN>
void classify(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    const TI *x = static_cast<const TI *>(in[0]);
    const int64_t sx = st[0];
    const int which = kNaN ? 0 : *static_cast<const uint8_t *>(in[1]);
    uint8_t *out = static_cast<uint8_t *>(out_);
    if (!kNaN && which == 0) { // neither infinity: every element false
        std::memset(out, 0, static_cast<size_t>(n));
        return;
    }
    const TI abs = static_cast<TI>(kAbs), inf = static_cast<TI>(kInf), neg_inf = static_cast<TI>(kInf | (kAbs + 1));
    auto scalar = [&](int64_t i) -> uint8_t {
        const TI b = x[sx * i];
        if constexpr (kNaN) return static_cast<TI>(b & abs) > inf;
        return which == 3 ? static_cast<TI>(b & abs) == inf : which == 1 ? b == inf : b == neg_inf;
    };
    const hn::ScalableTag<TI> d;
    const hn::ScalableTag<uint8_t> du8;
    const auto vabs = hn::Set(d, abs), vinf = hn::Set(d, inf), vneg = hn::Set(d, neg_inf);
    auto mask = [&](int64_t i) {
        const auto b = load_operand(d, x, sx, i);
        if constexpr (kNaN) return hn::Gt(hn::And(b, vabs), vinf);
        return which == 3 ? hn::Eq(hn::And(b, vabs), vinf) : hn::Eq(b, which == 1 ? vinf : vneg);
    };
    store_loop(
        du8, hn::Lanes(du8), out, n, stream, [&](int64_t i) { return bytes_from_masks(d, i, mask); }, scalar, x, sx, x,
        int64_t{0});
}

template <class F> void set_float_unary(element_ops &o, ew_fn f) {
    auto &t = o.nary[static_cast<int>(f)];
    t[dtype_index(data_type::f32)] = unary_math<F, float>;
    t[dtype_index(data_type::f64)] = unary_math<F, double>;
    t[dtype_index(data_type::f16)] = unary_math_half<F, f16_io>;
    t[dtype_index(data_type::bf16)] = unary_math_half<F, bf16_io>;
}

// The integer types (kSignedOnly: s8 .. s64).
template <class F, bool kSignedOnly = false> void set_integer_unary(element_ops &o, ew_fn f) {
    using dt = data_type;
    auto &t = o.nary[static_cast<int>(f)];
    t[dtype_index(dt::s8)] = unary_math<F, int8_t>;
    t[dtype_index(dt::s16)] = unary_math<F, int16_t>;
    t[dtype_index(dt::s32)] = unary_math<F, int32_t>;
    t[dtype_index(dt::s64)] = unary_math<F, int64_t>;
    if constexpr (kSignedOnly) return;
    t[dtype_index(dt::u8)] = unary_math<F, uint8_t>;
    t[dtype_index(dt::u16)] = unary_math<F, uint16_t>;
    t[dtype_index(dt::u32)] = unary_math<F, uint32_t>;
    t[dtype_index(dt::u64)] = unary_math<F, uint64_t>;
}

void set_unary(element_ops &o) {
    using dt = data_type;
    set_float_unary<abs_fn>(o, ew_fn::abs);
    set_integer_unary<abs_fn>(o, ew_fn::abs);
    set_float_unary<neg_fn>(o, ew_fn::neg);
    set_integer_unary<neg_fn, true>(o, ew_fn::neg);
    set_float_unary<sign_fn>(o, ew_fn::sign);
    set_integer_unary<sign_fn>(o, ew_fn::sign);
    set_float_unary<relu_fn>(o, ew_fn::relu);
    set_integer_unary<relu_fn, true>(o, ew_fn::relu);
    set_float_unary<floor_fn>(o, ew_fn::floor);
    set_float_unary<ceil_fn>(o, ew_fn::ceil);
    set_float_unary<round_fn>(o, ew_fn::round);
    set_float_unary<sqrt_fn>(o, ew_fn::sqrt);
    set_float_unary<reciprocal_fn>(o, ew_fn::reciprocal);
    set_float_unary<square_fn>(o, ew_fn::square);
    set_float_unary<hard_sigmoid_fn>(o, ew_fn::hard_sigmoid);
    set_float_unary<hard_swish_fn>(o, ew_fn::hard_swish);
    set_float_unary<softsign_fn>(o, ew_fn::softsign);
    {
        auto &t = o.nary[static_cast<int>(ew_fn::clamp)];
        t[dtype_index(dt::f32)] = clamp_values<float>;
        t[dtype_index(dt::f64)] = clamp_values<double>;
        t[dtype_index(dt::f16)] = clamp_values<float, f16_io>;
        t[dtype_index(dt::bf16)] = clamp_values<float, bf16_io>;
        t[dtype_index(dt::s8)] = clamp_values<int8_t>;
        t[dtype_index(dt::u8)] = clamp_values<uint8_t>;
        t[dtype_index(dt::s16)] = clamp_values<int16_t>;
        t[dtype_index(dt::u16)] = clamp_values<uint16_t>;
        t[dtype_index(dt::s32)] = clamp_values<int32_t>;
        t[dtype_index(dt::u32)] = clamp_values<uint32_t>;
        t[dtype_index(dt::s64)] = clamp_values<int64_t>;
        t[dtype_index(dt::u64)] = clamp_values<uint64_t>;
    }
    {
        auto &nan = o.nary[static_cast<int>(ew_fn::is_nan)];
        auto &inf = o.nary[static_cast<int>(ew_fn::is_inf)];
        nan[dtype_index(dt::f16)] = classify<int16_t, 0x7FFF, 0x7C00, true>;
        inf[dtype_index(dt::f16)] = classify<int16_t, 0x7FFF, 0x7C00, false>;
        nan[dtype_index(dt::bf16)] = classify<int16_t, 0x7FFF, 0x7F80, true>;
        inf[dtype_index(dt::bf16)] = classify<int16_t, 0x7FFF, 0x7F80, false>;
        nan[dtype_index(dt::f32)] = classify<int32_t, 0x7FFFFFFF, 0x7F800000, true>;
        inf[dtype_index(dt::f32)] = classify<int32_t, 0x7FFFFFFF, 0x7F800000, false>;
        nan[dtype_index(dt::f64)] = classify<int64_t, 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, true>;
        inf[dtype_index(dt::f64)] = classify<int64_t, 0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, false>;
    }
    for (ew_fn f : {ew_fn::exp, ew_fn::log, ew_fn::tanh, ew_fn::sigmoid, ew_fn::erf, ew_fn::elu, ew_fn::selu,
                    ew_fn::softplus, ew_fn::mish, ew_fn::gelu_erf, ew_fn::gelu_tanh})
        for (dt t : {dt::f16, dt::bf16, dt::f32, dt::f64})
            o.nary[static_cast<int>(f)][dtype_index(t)] = scalar_math_loop(f, t);
    for (int a = 0; a < kNumDataTypes; ++a)
        for (int b = 0; b < kNumDataTypes; ++b) o.cast[a][b] = scalar_cast_loop(data_type_at(a), data_type_at(b));
    // LeakyReLU: PReLU's function with an f32 slope for f16/bf16 inputs.
    set<binary_f32<prelu_fn, f16_io, f32_io, f16_io>, uint16_t, float, uint16_t>(o, ew_fn::prelu, dt::f16, dt::f32);
    set<binary_f32<prelu_fn, bf16_io, f32_io, bf16_io>, uint16_t, float, uint16_t>(o, ew_fn::prelu, dt::bf16, dt::f32);
}
