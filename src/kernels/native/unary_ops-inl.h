// The unary ops' bodies and loops, compiled per target inside binary_ops.cpp
// (its namespace, store_loop, load_operand, demote_f32 and the f16/bf16 io
// types). Each functor has a vector body `vec(x, p0, p1)` and a scalar body
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
    // Maximum(x, 0)'s bits (+0 for -0, NaN kept) in two instructions: the
    // lanes not above 0 and not NaN are +0.
    template <class V> static V vec(V x, V, V) {
        if constexpr (std::is_floating_point_v<hn::TFromV<V>>)
            return hn::IfThenZeroElse(hn::Le(x, hn::Zero(hn::DFromV<V>())), x);
        else
            return maximum_fn::vec(x, hn::Zero(hn::DFromV<V>()));
    }
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

// ---- transcendental functions, ours (no library math): short polynomials,
// Chebyshev interpolants fitted in long double (reproduced by fusebox-fit,
// tools/accuracy/fit.cpp) with their errors measured in
// the arithmetic that evaluates them. Most run in f32 lanes, each arranged so
// that its rounding errors stay within ELEMENTWISE.md's bound (Sigmoid's
// quotient corrected by its remainder, GELU's e^(-x^2/2) from the exact
// square). Where an f32 form would lose too much to a rounded argument
// (SoftPlus with beta other than 1, Selu whose alpha gamma is not a pair of
// floats, tanh GELU below AVX2) f32 lanes are evaluated in f64 lanes
// (cores good to 2^-36 relative, which an f32 result rounded once needs). No function converts a
// float to an integer (exponents move through integer adds and shifts, or
// AVX-512's scalef), so every input, NaN too, is defined on every target.
// The bounds are measured by tools/accuracy (doc/SUPPORT.md, "Accuracy"),
// the speed by fusebox-kernelbench (doc/PERFORMANCE.md).

#if HWY_TARGET != HWY_SCALAR
template <class D> using f64_of = hn::Rebind<double, D>;

// c[0] + c[1] x + ... + c[N-1] x^(N-1).
template <class D, typename T, size_t N> HWY_INLINE hn::Vec<D> horner(D d, hn::Vec<D> x, const T (&c)[N]) {
    auto p = hn::Set(d, c[N - 1]);
    for (size_t i = N - 1; i-- > 0;) p = hn::MulAdd(p, x, hn::Set(d, c[i]));
    return p;
}

constexpr double kLn2Hi = 0.6931471805599453, kLn2Lo = 2.3190468138462996e-17;

// (e^r - 1) / r on |r| <= ln 2 / 2: Chebyshev interpolant of degree 8
// (relative error 2^-43.3).
constexpr double kExpm1OverR[] = {1.0,
                                  0.49999999999797812,
                                  0.16666666666648289,
                                  0.041666666891059731,
                                  0.0083333333537273582,
                                  0.0013888821657110607,
                                  0.00019841208737802086,
                                  2.487617540891272e-05,
                                  2.7625112374810527e-06};

// e^x = s (1 + q) for x in [-708, 709]: s = 2^k, k = round(x / ln 2), and
// q = e^r - 1, r = x - k ln 2. k is rounded by the 1.5 * 2^52 shifter, whose
// low mantissa bits then hold k, moved into the exponent field.
template <class DD> HWY_INLINE void exp_parts(DD dd, hn::Vec<DD> x, hn::Vec<DD> &s, hn::Vec<DD> &q) {
    const hn::RebindToUnsigned<DD> du;
    const auto shifter = hn::Set(dd, 0x1.8p52);
    const auto t = hn::MulAdd(x, hn::Set(dd, 1.4426950408889634), shifter);
    const auto k = hn::Sub(t, shifter);
    const auto r = hn::NegMulAdd(k, hn::Set(dd, kLn2Lo), hn::NegMulAdd(k, hn::Set(dd, kLn2Hi), x));
    q = hn::Mul(r, horner(dd, r, kExpm1OverR));
    s = hn::BitCast(dd, hn::ShiftLeft<52>(hn::Add(hn::BitCast(du, t), hn::Set(du, 1023))));
}
template <class DD> HWY_INLINE hn::Vec<DD> exp64(DD dd, hn::Vec<DD> x) { // x clamped to [-708, 709]
    hn::Vec<DD> s, q;
    exp_parts(dd, hn::Min(hn::Max(x, hn::Set(dd, -708.0)), hn::Set(dd, 709.0)), s, q);
    return hn::MulAdd(s, q, s);
}
// e^x - 1 for x in [-708, 709]: s q + (s - 1), exact for k = 0.
template <class DD> HWY_INLINE hn::Vec<DD> expm1_64(DD dd, hn::Vec<DD> x) {
    hn::Vec<DD> s, q;
    exp_parts(dd, x, s, q);
    return hn::MulAdd(s, q, hn::Sub(s, hn::Set(dd, 1.0)));
}

// log(1 + f) / f on [sqrt(1/2) - 1, sqrt(2) - 1]: Chebyshev interpolant of
// degree 14 (relative error 2^-40.9 evaluated in f64).
constexpr double kLog1pOverF[] = {
    1.0000000000002169,   -0.49999999998509137,  0.33333333311431557,  -0.250000004340864,    0.2000000380374172,
    -0.16666632156545427, 0.1428545831817043,    -0.12501078100938112, 0.11119413144879832,   -0.09987319608764049,
    0.089541329715233944, -0.083178255131049664, 0.08750845418378074,  -0.084666037452735377, 0.042708670668155417};

// log(1 + t) for t in [0, 1]: the polynomial on t itself up to sqrt(2) - 1,
// above it ln 2 + log1p((1 + t) / 2 - 1).
template <class DD> HWY_INLINE hn::Vec<DD> log1p01_64(DD dd, hn::Vec<DD> t) {
    const auto one = hn::Set(dd, 1.0);
    const auto big = hn::Gt(t, hn::Set(dd, 0.41421356237309503));
    const auto f = hn::IfThenElse(big, hn::MulSub(hn::Add(t, one), hn::Set(dd, 0.5), one), t);
    return hn::Add(hn::Mul(f, horner(dd, f, kLog1pOverF)), hn::IfThenElseZero(big, hn::Set(dd, kLn2Hi)));
}
// log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
template <class DD> HWY_INLINE hn::Vec<DD> log1p_exp64(DD dd, hn::Vec<DD> x) {
    return hn::Add(hn::Max(x, hn::Zero(dd)), log1p01_64(dd, exp64(dd, hn::Neg(hn::Abs(x)))));
}

// 1 / (1 + e^-w) for w >= 0, e^w / (1 + e^w) below: e^-|w| <= 1 either way.
template <class DD> HWY_INLINE hn::Vec<DD> sigmoid64(DD dd, hn::Vec<DD> w) {
    const auto one = hn::Set(dd, 1.0);
    const auto t = exp64(dd, hn::Neg(hn::Abs(w)));
    return hn::Div(hn::IfThenElse(hn::Lt(w, hn::Zero(dd)), t, one), hn::Add(one, t));
}

// ---- f32 lanes (twice the lanes of f64): coefficients rounded to f32,
// errors measured with f32 evaluation.

// (e^r - 1 - r) / r^2 on |r| <= ln 2 / 2 (degree 5, relative error 2^-23.9).
constexpr float kExpP[] = {0.5f, 0.166666672f, 0.0416664667f, 0.00833331048f, 0.00139336474f, 0.000198909882f};

// e^x = m 2^k: m = 1 + p in [0.7, 1.42], p = e^r - 1, r = x - k ln 2 (ln 2
// in two parts, the first short enough that k times it is exact without
// FMA). k is rounded by the 1.5 * 2^23 shifter t, whose low bits then hold
// it (no float-to-int conversion), and shifted left 23 they are k's exponent
// field (the shifter's own bits shift out). Over any x (exp_range::any, x
// clamped to [-125, 89]) the scaling by 2^k rounds once, also for subnormal
// results (AVX-512's scalef, or two normal factors 2^(k/2) and 2^(k - k/2));
// past 88.72283935546875 it overflows to inf by itself. Where the caller
// keeps x in [-87, 87] (exp_range::near: -126 <= k <= 126, no clamp) 2^k is
// one normal float and the scaling one multiplication: the same bits, fewer
// instructions below AVX-512.
enum class exp_range { any, near };
template <class DF, exp_range kRange = exp_range::any> struct exp32_parts {
    using V = hn::Vec<DF>;
    V p, m, kf, t, r, r2, poly; // e^x = 2^kf (1 + p), p = r + r2 poly rounded once
    HWY_INLINE exp32_parts(DF df, V x) {
        const auto xc = kRange == exp_range::any ? hn::Min(hn::Max(x, hn::Set(df, -125.0f)), hn::Set(df, 89.0f)) : x;
        const auto shifter = hn::Set(df, 0x1.8p23f);
        t = hn::MulAdd(xc, hn::Set(df, 1.44269502f), shifter);
        kf = hn::Sub(t, shifter);
        r = hn::NegMulAdd(kf, hn::Set(df, 1.42860677e-6f), hn::NegMulAdd(kf, hn::Set(df, 0.693145752f), xc));
        r2 = hn::Mul(r, r);
        poly = horner(df, r, kExpP);
        p = hn::MulAdd(r2, poly, r);
        m = hn::Add(hn::Set(df, 1.0f), p);
    }
    // v 2^k, one rounding.
    HWY_INLINE V pow2_times(DF df, V v) const {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) return V{_mm512_scalef_ps(v.raw, kf.raw)};
#endif
        if constexpr (kRange == exp_range::near) return hn::Mul(v, pow2<1>(df));
        const hn::RebindToSigned<DF> di;
        const auto k = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, hn::Set(df, 0x1.8p23f)));
        const auto k1 = hn::ShiftRight<1>(k), bias = hn::Set(di, 127);
        const auto s1 = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(k1, bias)));
        const auto s2 = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(hn::Sub(k, k1), bias)));
        return hn::Mul(hn::Mul(v, s1), s2);
    }
    // 2^(sign k), for -126 <= k <= 126.
    template <int kSign> HWY_INLINE V pow2(DF df) const {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16)
            return V{_mm512_scalef_ps(hn::Set(df, 1.0f).raw, (kSign > 0 ? kf : hn::Neg(kf)).raw)};
#endif
        const hn::RebindToSigned<DF> di;
        const auto field = hn::ShiftLeft<23>(hn::BitCast(di, t)), bias = hn::Set(di, 127 << 23);
        return hn::BitCast(df, kSign > 0 ? hn::Add(bias, field) : hn::Sub(bias, field));
    }
    HWY_INLINE V value(DF df) const { return pow2_times(df, m); }
    // v e^x with one rounding after v m (v m normal for the v the callers give).
    HWY_INLINE V times(DF df, V v) const { return pow2_times(df, hn::Mul(v, m)); }
    // e^x - 1 = s p + (s - 1), s = 2^k, for x >= -87 (k >= -126): exact for k =
    // 0 but for p's own error, one rounding elsewhere.
    HWY_INLINE V expm1(DF df) const {
        const auto s = pow2<1>(df);
        return hn::MulAdd(s, p, hn::Sub(s, hn::Set(df, 1.0f)));
    }
    // (hi + lo) (e^x - 1) = c (s - 1) + s c (e^r - 1), c = hi + lo, with p
    // never rounded on its own: c (e^r - 1) = hi r + (hi r2 poly + lo r).
    // The other roundings (of s - 1 for k < -24, of the smaller terms) are
    // small against the last one's.
    HWY_INLINE V expm1_times(DF df, V hi, V lo) const {
        const auto s = pow2<1>(df), w = hn::Sub(s, hn::Set(df, 1.0f));
        const auto a = hn::MulAdd(r, hi, hn::MulAdd(hn::Mul(r2, poly), hi, hn::Mul(r, lo)));
        return hn::MulAdd(w, hi, hn::MulAdd(s, a, hn::Mul(w, lo)));
    }
};
// Whether every lane of x is in [-87, 87] (not NaN): exp_range::near holds.
template <class DF> HWY_INLINE bool exp32_near(DF df, hn::Vec<DF> x) {
    return hn::AllTrue(df, hn::Le(hn::Abs(x), hn::Set(df, 87.0f)));
}
// f(exp32_parts of x) over exp_range::near, computed first so that the
// common path has no branch before it, and again over exp_range::any for a
// vector with a lane outside [-87, 87].
template <class DF, class F> HWY_INLINE hn::Vec<DF> with_exp32(DF df, hn::Vec<DF> x, const F &f) {
    const auto r = f(exp32_parts<DF, exp_range::near>(df, x));
    if (HWY_LIKELY(exp32_near(df, x))) return r;
    return f(exp32_parts<DF>(df, x));
}
// e^x for every non-NaN x (0 below -104, inf past 88.72283935546875).
template <class DF> HWY_INLINE hn::Vec<DF> exp32(DF df, hn::Vec<DF> x) {
    return with_exp32(df, x, [&](const auto &e) { return e.value(df); });
}

// 1 / d for normal d. On AVX-512 the 14-bit estimate refined by one Newton
// step (within about 2^-23 of 1/d, cheaper there than a division); below
// it a division, correctly rounded and on its own unit beside the FMAs
// (cheaper on Zen 3 than the 12-bit estimate's two steps, and exact where
// MulAdd rounds twice).
template <class DF> HWY_INLINE hn::Vec<DF> recip32(DF df, hn::Vec<DF> d) {
    const auto one = hn::Set(df, 1.0f);
#if HWY_TARGET <= HWY_AVX3
    const auto y = hn::ApproximateReciprocal(d);
    return hn::MulAdd(y, hn::NegMulAdd(d, y, one), y);
#else
    return hn::Div(one, d);
#endif
}

// (tanh x - x) / x^3 in x^2 on [0, 1] (degree 6, relative error 2^-22.7).
constexpr float kTanhP[] = {-0.333333313f,   0.133331284f,  -0.0539347902f,  0.0216601156f,
                            -0.00821892172f, 0.0025104594f, -0.000420695491f};
// erf(x) / x - 1 in x^2 on [0, 0.81] (degree 6, absolute error 2^-25.6).
constexpr float kErfP[] = {0.128379166f,   -0.376126349f,    0.11283718f,    -0.0268606655f,
                           0.00520422682f, -0.000817963213f, 8.52940138e-05f};
// (log(1 + f) - f) / f^2 on [sqrt(1/2) - 1, 0.5] (degree 9, 2^-23.4).
constexpr float kLog1pP[] = {-0.5f,        0.333333224f,  -0.250002384f, 0.200015783f,  -0.166557655f,
                             0.142212167f, -0.126190156f, 0.120827854f,  -0.104934745f, 0.0490598679f};
// erfc(a) e^(a^2) / t, t = 2 / (2 + a), in (t - 0.58) * 2.38095236 for a in
// [0, 10.5] (t in [0.16, 1]): degree 8, relative error 2^-22.9 in f32.
constexpr float kErfcQ[] = {0.569408715f,     0.327187657f,    0.103520788f,    0.00631161779f,  -0.0063246279f,
                            -0.000686168612f, 0.000615388504f, 2.46817417e-05f, -5.81083114e-05f};
// erfc(a) e^(a^2) for a in [0, 16]: t Q(t).
template <class DF> HWY_INLINE hn::Vec<DF> erfc_scaled32(DF df, hn::Vec<DF> a) {
    const auto two = hn::Set(df, 2.0f);
    const auto t = hn::Mul(two, recip32(df, hn::Add(two, a)));
    return hn::Mul(t, horner(df, hn::Mul(hn::Sub(t, hn::Set(df, 0.58f)), hn::Set(df, 2.38095236f)), kErfcQ));
}

struct exp32_fn {
    static constexpr ew_fn fn = ew_fn::exp;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) { return exp32(df, x); }
};
// log x = k ln 2 + log1p(m - 1), x = 2^k m, m in [sqrt(1/2), sqrt(2)) found
// by adding 1 - sqrt(1/2) to x's bits (a carry into the exponent when m >=
// sqrt(2)); subnormals scaled by 2^23 first; ln 2 in two parts.
struct log32_fn {
    static constexpr ew_fn fn = ew_fn::log;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
        const hn::RebindToSigned<DF> di;
        constexpr int32_t kSqrtHalf = 0x3F3504F3, kOne = 0x3F800000;
        const auto zero = hn::Zero(df);
        const auto sub = hn::Lt(x, hn::Set(df, 0x1p-126f));
        const auto xs = hn::IfThenElse(sub, hn::Mul(x, hn::Set(df, 0x1p23f)), x);
        const auto b = hn::Add(hn::BitCast(di, hn::Max(xs, zero)), hn::Set(di, kOne - kSqrtHalf));
        const auto k = hn::Sub(hn::ConvertTo(df, hn::Sub(hn::ShiftRight<23>(b), hn::Set(di, 127))),
                               hn::IfThenElseZero(sub, hn::Set(df, 23.0f)));
        const auto m = hn::BitCast(df, hn::Add(hn::And(b, hn::Set(di, 0x007FFFFF)), hn::Set(di, kSqrtHalf)));
        const auto f = hn::Sub(m, hn::Set(df, 1.0f));
        const auto l = hn::MulAdd(hn::Mul(f, f), horner(df, f, kLog1pP), f);
        auto r = hn::MulAdd(k, hn::Set(df, 0.693359375f), hn::MulAdd(k, hn::Set(df, -2.12194440e-4f), l));
        r = hn::IfThenElse(hn::Eq(x, zero), hn::Set(df, -HUGE_VALF), r);
        r = hn::IfThenElse(hn::Eq(x, hn::Set(df, HUGE_VALF)), x, r);
        return hn::IfThenElse(hn::Lt(x, zero), hn::Set(df, NAN), r);
    }
};
// r, except in the lanes where `far` holds: `form()` there, computed only
// for a vector holding such a lane (a branch the common case does not pay
// for, which also spares it a clamp).
template <class DF, class F> HWY_INLINE hn::Vec<DF> unless_far(DF df, hn::Mask<DF> far, hn::Vec<DF> r, const F &form) {
    if (HWY_LIKELY(hn::AllFalse(df, far))) return r;
    return hn::IfThenElse(far, form(), r);
}
// GELU (either mode) from h = GELU(-a) / -a, a = |x|: x h below zero, x -
// a h above (GELU(x) - GELU(-x) = x), so no cancellation in the negative
// tail; +-0 keep their sign.
template <class DF> HWY_INLINE hn::Vec<DF> gelu_from(hn::Vec<DF> x, hn::Vec<DF> a, hn::Vec<DF> h) {
    return hn::IfNegativeThenElse(x, hn::Mul(x, h), hn::NegMulAdd(a, h, x));
}
// Graded pieces (graded_pieces32, graded_pieces8): pieces of a >= 0 of
// unequal widths, piece k where g(a) = a (alpha + beta a^kPower) is in [k,
// k + 1] (g chosen so that each spans about the same factor of a function
// falling ever faster), found by rounding g - 1/2 with a shifter (g's own
// roundings may pick a neighbour within 2^-20 of a boundary: each piece is
// fitted a little past its ends); its polynomial in s = a - at[k] (exact
// past the first piece: those centres are multiples of 2^-12 within a
// factor 2 of a; the first piece's centre is its middle, where a rounded s
// costs at most 2^-25, included in the fitted error). fusebox-fit FUNCTION
// graded ALPHA BETA POWER COUNT DEGREE prints `at` and the coefficients.
// Past the last piece, garbage: the callers replace those lanes. This is
// the shifted value whose low bits name the piece (at most `last`).
template <int kPower, class DF>
HWY_INLINE hn::Vec<DF> graded_piece(DF df, hn::Vec<DF> a, float alpha, float beta, float last) {
    static_assert(kPower == 1 || kPower == 2, "g is a (alpha + beta a) or a (alpha + beta a^2)");
    const auto q = kPower == 1 ? a : hn::Mul(a, a);
    const auto g = hn::MulAdd(a, hn::MulAdd(q, hn::Set(df, beta), hn::Set(df, alpha)), hn::Set(df, -0.5f));
    return hn::Add(hn::Min(g, hn::Set(df, last)), hn::Set(df, 0x1.8p23f)); // (a >= 0: g >= -1/2)
}
#if HWY_TARGET <= HWY_AVX3
// An odd function that saturates at +-1, from 16 pieces of |x| (AVX-512, 16
// lanes): piece k = round(scale |x|), up to 15 (ties to even: a boundary
// belongs to either piece), found in the low bits of a shifter's sum (one
// FMA, no conversion); its polynomial h_k in s = scale min(|x|, cap) - k, each
// coefficient picked per lane by one permute (coefficient j of piece k at
// c[j][k]). Below `split`, f = x + x h (one rounding); from it on, f = 1 - h
// with the sign of x. NaN lanes take any piece and stay NaN through x + x h.
template <class DF, size_t N>
HWY_INLINE hn::Vec<DF> saturating_pieces(DF df, hn::Vec<DF> x, const float (&c)[N][16], float scale, float cap,
                                         float split) {
    const auto ax = hn::Abs(x), shifter = hn::Set(df, 0x1.8p23f), k_scale = hn::Set(df, scale);
    const auto t = hn::MulAdd(hn::Min(ax, hn::Set(df, 15.0f / scale)), k_scale, shifter);
    const auto s = hn::MulSub(hn::Min(ax, hn::Set(df, cap)), k_scale, hn::Sub(t, shifter));
    const __m512i piece = _mm512_castps_si512(t.raw); // (permutes read the low 4 bits)
    auto coef = [&](size_t j) { return hn::Vec<DF>{_mm512_permutexvar_ps(piece, hn::Load(df, c[j]).raw)}; };
    auto h = coef(N - 1);
    for (size_t j = N - 1; j-- > 0;) h = hn::MulAdd(h, s, coef(j));
    const auto far = hn::CopySign(hn::Sub(hn::Set(df, 1.0f), h), x);
    return hn::IfThenElse(hn::Ge(ax, hn::Set(df, split)), far, hn::MulAdd(x, h, x));
}
// The same with 32 pieces of a >= 0, picked from two tables by one permute
// each (coefficient j of piece k at c[j][k]; k up to 31, s = scale a - k);
// coefficient 0 as a rounded value and its remainder (the last row):
// c0 + (c0_lo + s P(s)), one rounding at the end instead of two.
// pieces32_at evaluates them for a piece and s the caller found (`t`, a
// shifted value whose low 5 bits name the piece; Mish's pieces are of x);
// pieces32 finds them from a.
template <class DF, size_t N>
HWY_INLINE hn::Vec<DF> pieces32_at(DF df, hn::Vec<DF> t, hn::Vec<DF> s, const float (&c)[N][32]) {
    const __m512i piece = _mm512_castps_si512(t.raw); // (permutes of two tables read the low 5 bits)
    auto coef = [&](size_t j) {
        return hn::Vec<DF>{_mm512_permutex2var_ps(hn::Load(df, c[j]).raw, piece, hn::Load(df, c[j] + 16).raw)};
    };
    auto h = coef(N - 2);
    for (size_t j = N - 2; j-- > 1;) h = hn::MulAdd(h, s, coef(j));
    return hn::Add(coef(0), hn::MulAdd(h, s, coef(N - 1)));
}
template <class DF, size_t N>
HWY_INLINE hn::Vec<DF> pieces32(DF df, hn::Vec<DF> a, const float (&c)[N][32], float scale) {
    const auto shifter = hn::Set(df, 0x1.8p23f), k_scale = hn::Set(df, scale);
    const auto t = hn::MulAdd(hn::Min(a, hn::Set(df, 31.0f / scale)), k_scale, shifter);
    return pieces32_at(df, t, hn::MulSub(a, k_scale, hn::Sub(t, shifter)), c);
}
// 32 graded pieces (graded_piece), coefficients as pieces32's.
template <int kPower, class DF, size_t N>
HWY_INLINE hn::Vec<DF> graded_pieces32(DF df, hn::Vec<DF> a, float alpha, float beta, const float (&at)[32],
                                       const float (&c)[N][32]) {
    const auto t = graded_piece<kPower>(df, a, alpha, beta, 31.0f);
    const __m512 centre =
        _mm512_permutex2var_ps(hn::Load(df, at).raw, _mm512_castps_si512(t.raw), hn::Load(df, at + 16).raw);
    return pieces32_at(df, t, hn::Sub(a, hn::Vec<DF>{centre}), c);
}
// sigmoid(-a) = 1 / (1 + e^a) on the pieces [k/2 - 1/4, k/2 + 1/4] of a
// (the first from 0, the last up to 15.75), degree 5 in s = 2a - k
// (fusebox-fit sigmoidc_x with CENTRE k/2, SCALE 2, split; relative error
// at most 2^-23.1 in f32, rounding included). Coefficient j of piece k at
// kSigmoidPieces[j][k], coefficient 0's remainder last.
// clang-format off
alignas(64) constexpr float kSigmoidPieces[7][32] = {
    {0.5f, 0.377540678f, 0.268941432f, 0.182425529f, 0.119202919f, 0.0758581758f,
     0.0474258736f, 0.0293122306f, 0.0179862101f, 0.0109869428f, 0.00669285096f, 0.00407013763f,
     0.00247262325f, 0.00150118233f, 0.000911051175f, 0.000552778656f, 0.000335350138f, 0.000203426986f,
     0.00012339458f, 7.48462262e-05f, 4.53978682e-05f, 2.75356906e-05f, 1.67014223e-05f, 1.01299911e-05f,
     6.14417468e-06f, 3.72663931e-06f, 2.26032421e-06f, 1.37095719e-06f, 8.31528041e-07f, 5.0434744e-07f,
     3.05902233e-07f, 1.85539108e-07f},
    {-0.125f, -0.117501855f, -0.0983059704f, -0.0745732263f, -0.0524967909f, -0.0350518599f,
     -0.0225883294f, -0.0142265121f, -0.00883135293f, -0.00543311471f, -0.00332402834f, -0.00202678586f,
     -0.00123325468f, -0.00074946438f, -0.000455110596f, -0.000276236533f, -0.00016761884f, -0.0001016928f,
     -6.16896723e-05f, -3.74203119e-05f, -2.26979046e-05f, -1.3767466e-05f, -8.35057108e-06f, -5.06494416e-06f,
     -3.07206847e-06f, -1.86331272e-06f, -1.1301596e-06f, -6.85477687e-07f, -4.15763679e-07f, -2.52173578e-07f,
     -1.5295106e-07f, -9.27695325e-08f},
    {-6.0459314e-08f, 0.00719430437f, 0.0113570029f, 0.0118412711f, 0.00999539346f, 0.00743354438f,
     0.00511147734f, 0.0033481312f, 0.00212841644f, 0.00132842886f, 0.000819880399f, 0.000502569485f,
     0.000306787377f, 0.000186802514f, 0.000113569673f, 6.89823792e-05f, 4.1876352e-05f, 2.54127026e-05f,
     1.541852e-05f, 9.35362095e-06f, 5.67392635e-06f, 3.44165596e-06f, 2.08756046e-06f, 1.26620262e-06f,
     7.68002963e-07f, 4.65821842e-07f, 2.82536888e-07f, 1.71367901e-07f, 1.0394011e-07f, 6.30429469e-08f,
     3.82375092e-08f, 2.31922339e-08f},
    {0.00260465662f, 0.00200741645f, 0.000735979935f, -0.000326611567f, -0.000809407036f, -0.000846182695f,
     -0.000686068321f, -0.000491576619f, -0.000328977359f, -0.000211620529f, -0.000132976507f, -8.23953669e-05f,
     -5.06250581e-05f, -3.0946765e-05f, -1.88593349e-05f, -1.1471674e-05f, -6.97005271e-06f, -4.23201845e-06f,
     -2.56849376e-06f, -1.55847556e-06f, -9.45485908e-07f, -5.73548164e-07f, -3.47904688e-07f, -2.11025963e-07f,
     -1.27997794e-07f, -7.76360878e-08f, -4.70892196e-08f, -2.856126e-08f, -1.73233552e-08f, -1.05071729e-08f,
     -6.37293285e-09f, -3.86538268e-09f},
    {-1.6983131e-06f, -0.000269649783f, -0.000319332321f, -0.00019477382f, -5.49859142e-05f, 2.38908033e-05f,
     4.84333941e-05f, 4.58451832e-05f, 3.49505535e-05f, 2.41005546e-05f, 1.57511531e-05f, 9.98590076e-06f,
     6.21933395e-06f, 3.83282668e-06f, 2.3472046e-06f, 1.4319611e-06f, 8.71594352e-07f, 5.29778617e-07f,
     3.2174313e-07f, 1.9530026e-07f, 1.1851197e-07f, 7.19018942e-08f, 4.36183356e-08f, 2.64586646e-08f,
     1.60490252e-08f, 9.73460601e-09f, 5.90447646e-09f, 3.58129748e-09f, 2.17218576e-09f, 1.31750422e-09f,
     7.99109223e-10f, 4.84685181e-10f},
    {-6.28174384e-05f, -3.51481867e-05f, 1.29675591e-05f, 3.10203795e-05f, 2.25825024e-05f, 9.42529732e-06f,
     1.34403285e-06f, -1.78245864e-06f, -2.32706407e-06f, -1.94624545e-06f, -1.39606266e-06f, -9.30543649e-07f,
     -5.96262907e-07f, -3.73608486e-07f, -2.31057086e-07f, -1.41793066e-07f, -8.6611486e-08f, -5.27574002e-08f,
     -3.2081843e-08f, -1.94891356e-08f, -1.18319905e-08f, -7.18059834e-09f, -4.35677405e-09f, -2.64307665e-09f,
     -1.60331293e-09f, -9.72534164e-10f, -5.89899685e-10f, -3.57802482e-10f, -2.17021956e-10f, -1.31631858e-10f,
     -7.98392671e-11f, -4.84251493e-11f},
    {-1.85135657e-11f, -4.89389684e-09f, -7.87549137e-09f, -4.88443508e-09f, 1.59948488e-09f, 3.36242634e-09f,
     -8.2428403e-10f, -1.44622309e-11f, -9.21291793e-11f, -1.23548186e-10f, 4.83482742e-12f, 1.20971233e-10f,
     -7.25109903e-11f, -5.58690524e-11f, 2.88919392e-11f, -1.35422064e-11f, -3.95183495e-12f, -5.34912175e-12f,
     -3.1557903e-12f, 2.10314361e-12f, 9.48477516e-13f, 8.00468307e-13f, -2.57315734e-13f, -8.29300482e-15f,
     -9.18778586e-15f, 1.72539595e-14f, 1.13199929e-13f, 2.83050103e-14f, -4.60015081e-15f, -2.6701023e-14f,
     -3.14938158e-15f, -3.82715659e-15f},
};
// clang-format on
// Phi(-a) = erfc(a / sqrt 2) / 2 on the pieces [k/4 - 1/8, k/4 + 1/8] of a
// (the first from 0, the last up to 7.875), degree 7 in s = 4a - k
// (fusebox-fit phic_x with CENTRE k/4, SCALE 4, split; relative error at
// most 2^-21.1 in f32, rounding included: the high pieces fall by e^2
// across, their terms cancel). Layout as kSigmoidPieces.
// clang-format off
alignas(64) constexpr float kPhiPieces[9][32] = {
    {0.5f, 0.401293665f, 0.308537543f, 0.22662735f, 0.158655256f, 0.105649777f,
     0.066807203f, 0.0400591567f, 0.0227501318f, 0.0122244731f, 0.00620966544f, 0.00297976332f,
     0.00134989806f, 0.000577025057f, 0.000232629085f, 8.84172841e-05f, 3.16712431e-05f, 1.06885254e-05f,
     3.39767303e-06f, 1.01708326e-06f, 2.86651584e-07f, 7.60496022e-08f, 1.89895619e-08f, 4.46217241e-09f,
     9.86587589e-10f, 2.05226336e-10f, 4.01600038e-11f, 7.39225781e-12f, 1.27981252e-12f, 2.08385799e-13f,
     3.19089136e-14f, 4.59462688e-15f},
    {-0.0997355729f, -0.096667029f, -0.0880163312f, -0.0752843544f, -0.0604926795f, -0.0456622727f,
     -0.0323794f, -0.0215693302f, -0.0134977419f, -0.00793491304f, -0.00438207528f, -0.00227339054f,
     -0.0011079621f, -0.000507262012f, -0.00021817068f, -8.81489177e-05f, -3.34575561e-05f, -1.19296592e-05f,
     -3.99593546e-06f, -1.25737677e-06f, -3.71679874e-07f, -1.03211775e-07f, -2.69244005e-08f, -6.59810784e-09f,
     -1.51897073e-09f, -3.28500449e-10f, -6.6738913e-11f, -1.2737345e-11f, -2.28368019e-12f, -3.8463449e-13f,
     -6.08580162e-14f, -9.04573589e-15f},
    {1.11077955e-12f, 0.00302084466f, 0.0055010207f, 0.00705790846f, 0.00756158493f, 0.00713473f,
     0.00607113726f, 0.00471829111f, 0.00337443547f, 0.00223169429f, 0.00136939844f, 0.000781478011f,
     0.000415485789f, 0.000206075187f, 9.54496718e-05f, 4.13198068e-05f, 1.67287781e-05f, 6.33763148e-06f,
     2.24771384e-06f, 7.46567594e-07f, 2.32299982e-07f, 6.77327492e-08f, 1.85105353e-08f, 4.74239403e-09f,
     1.13922927e-09f, 2.56641375e-10f, 5.42254783e-11f, 1.07471636e-11f, 1.9982271e-12f, 3.48576555e-13f,
     5.70547095e-14f, 8.76311912e-15f},
    {0.00103891222f, 0.00094401394f, 0.000687627587f, 0.000343092775f, 1.3082043e-12f, -0.000267552357f,
     -0.000421606761f, -0.000463403558f, -0.000421804434f, -0.000335787336f, -0.000239644738f, -0.000155407557f,
     -9.23301777e-05f, -5.05280514e-05f, -2.55668765e-05f, -1.19942215e-05f, -5.22774326e-06f, -2.12031046e-06f,
     -8.012683e-07f, -2.82418625e-07f, -9.29199757e-08f, -2.85579471e-08f, -8.20352941e-09f, -2.20366547e-09f,
     -5.53791568e-10f, -1.30245356e-10f, -2.86768942e-11f, -5.91258683e-12f, -1.14184118e-12f, -2.06591051e-13f,
     -3.50251105e-14f, -5.5652593e-15f},
    {1.32242342e-10f, -4.62170683e-05f, -7.87902463e-05f, -8.96020065e-05f, -7.87663666e-05f, -5.34176506e-05f,
     -2.37155873e-05f, 1.53568669e-06f, 1.75750465e-05f, 2.39732399e-05f, 2.3179955e-05f, 1.85703375e-05f,
     1.29839827e-05f, 8.11692553e-06f, 4.59849844e-06f, 2.38073108e-06f, 1.13267299e-06f, 4.97185511e-07f,
     2.01939372e-07f, 7.60641186e-08f, 2.66165934e-08f, 8.66452687e-09f, 2.626942e-09f, 7.42467587e-10f,
     1.95779754e-10f, 4.81960097e-11f, 1.10829479e-11f, 2.38185014e-12f, 4.78602184e-13f, 8.99495661e-14f,
     1.58172646e-14f, 2.60314845e-15f},
    {-9.74033355e-06f, -8.2723891e-06f, -4.47673847e-06f, 1.43576329e-07f, 3.93829941e-06f, 5.84688087e-06f,
     5.73120951e-06f, 4.21002233e-06f, 2.19690901e-06f, 4.51022458e-07f, -6.50815537e-07f, -1.09646669e-06f,
     -1.08199606e-06f, -8.45297222e-07f, -5.65047515e-07f, -3.33942126e-07f, -1.77525664e-07f, -8.57749711e-08f,
     -3.79251155e-08f, -1.54179229e-08f, -5.78320991e-09f, -2.00679162e-09f, -6.45535292e-10f, -1.92812849e-10f,
     -5.35464936e-11f, -1.38415694e-11f, -3.33350708e-12f, -7.48549226e-13f, -1.56831999e-13f, -3.06758708e-14f,
     -5.60437486e-15f, -9.56794335e-16f},
    {1.12349552e-09f, 4.69517289e-07f, 7.47193212e-07f, 7.39963014e-07f, 4.9137526e-07f, 1.41119386e-07f,
     -1.59240585e-07f, -3.18401021e-07f, -3.28656569e-07f, -2.41814348e-07f, -1.25577685e-07f, -2.94905362e-08f,
     2.67180962e-08f, 4.66260062e-08f, 4.40054073e-08f, 3.23386224e-08f, 2.01783692e-08f, 1.10780158e-08f,
     5.45145573e-09f, 2.43144882e-09f, 9.90112436e-10f, 3.69983488e-10f, 1.27344163e-10f, 4.0486111e-11f,
     1.1915891e-11f, 3.2524543e-12f, 8.24497046e-13f, 1.94348701e-13f, 4.26409667e-14f, 8.71561158e-15f,
     1.66078819e-15f, 2.9522526e-16f},
    {7.14267898e-08f, 5.7181083e-08f, 1.98953352e-08f, -2.08386854e-08f, -4.6717247e-08f, -4.96477597e-08f,
     -3.39930608e-08f, -1.13708349e-08f, 7.12170856e-09f, 1.60313647e-08f, 1.60019873e-08f, 1.10129905e-08f,
     5.1643303e-09f, 8.6966101e-10f, -1.29464373e-09f, -1.8407954e-09f, -1.55607771e-09f, -1.03904485e-09f,
     -5.91316551e-10f, -2.96338898e-10f, -1.33090747e-10f, -5.41425897e-11f, -2.00931858e-11f, -6.83689997e-12f,
     -2.14084176e-12f, -6.18673515e-13f, -1.65372897e-13f, -4.09616697e-14f, -9.41554286e-15f, -2.01096294e-15f,
     -3.99490834e-16f, -7.38823363e-17f},
    {1.0500498e-16f, 9.14651643e-09f, -4.0938275e-09f, 2.52348897e-09f, -2.10143081e-09f, -3.08993853e-09f,
     -1.72604664e-09f, 1.47863111e-10f, 1.62256028e-10f, -4.04147688e-10f, -1.17959587e-10f, -8.27757862e-11f,
     -2.35454746e-11f, -1.48793113e-11f, -6.03584977e-12f, 1.06837824e-12f, -1.21906304e-12f, 3.37588003e-13f,
     9.68226354e-14f, -2.21087712e-14f, -1.27997995e-14f, 2.79838256e-15f, 4.63695587e-16f, 1.53811257e-17f,
     4.58382103e-17f, 3.579895e-18f, 1.18928068e-18f, -2.58174443e-19f, -2.90777379e-20f, 4.93297438e-21f,
     6.39130511e-22f, 6.75982988e-23f},
};
// clang-format on
// tanh on 16 pieces of |x|, one per lane of a 512-bit table: piece k of
// [k/2 - 1/4, k/2 + 1/4] (the first from 0, the last [7.25, 9.1]) a
// degree-6 polynomial h_k in s = 2|x| - k (fusebox-fit tanh_x1 and tanhc_x
// with CENTRE k/2, SCALE 2): below 0.75, h = tanh(x) / x - 1 and tanh x = x
// + x h (one rounding); from 0.75 on, h = 1 - tanh|x| <= 0.37 and tanh x = 1
// - h with the sign of x (h's absolute error at most 2^-24.9, half an ulp of
// the result). From 9.1 on, h < 2^-25 rounds 1 - h to 1. Coefficient j of
// piece k at kTanhPieces[j][k].
alignas(64) constexpr float kTanhPieces[7][16] = {
    {1.30317049e-10f, -0.0757656842f, 0.238405839f, 0.0948517472f, 0.0359724201f, 0.0133857019f, 0.0049452465f,
     0.00182210235f, 0.000670700276f, 0.000246789161f, 9.07957365e-05f, 3.34028446e-05f, 1.22883494e-05f,
     4.52064842e-06f, 1.66305608e-06f, 6.11779399e-07f},
    {-2.54751082e-08f, -0.137786388f, -0.209987208f, -0.0903532654f, -0.0353254043f, -0.0132961143f, -0.00493301963f,
     -0.00182044297f, -0.000670475536f, -0.000246758776f, -9.07916474e-05f, -3.34022989e-05f, -1.22882775e-05f,
     -4.52063978e-06f, -1.66305529e-06f, -6.12022916e-07f},
    {-0.0833325312f, -0.0439289995f, 0.0799625441f, 0.0408915691f, 0.0170273334f, 0.00655906741f, 0.00245431182f,
     0.000908562739f, 0.000335012854f, 0.000123348917f, 4.53916909e-05f, 1.67005874e-05f, 6.1440619e-06f,
     2.2603092e-06f, 8.31526052e-07f, 3.06410016e-07f},
    {-9.38516587e-06f, 0.0203723107f, -0.0129493764f, -0.0109787108f, -0.00526391296f, -0.00212759292f,
     -0.000809965015f, -0.000301732478f, -0.00011151412f, -4.10933535e-05f, -1.51268296e-05f, -5.56612622e-06f,
     -2.04783623e-06f, -7.5338022e-07f, -2.77156261e-07f, -1.01329817e-07f},
    {0.00838425383f, 0.000208665791f, -0.0017334728f, 0.00156049617f, 0.00111828849f, 0.000502992363f, 0.000198469716f,
     7.48846505e-05f, 2.78045918e-05f, 1.02635304e-05f, 3.78045775e-06f, 1.39139115e-06f, 5.11950645e-07f,
     1.88347812e-07f, 6.92908699e-08f, 2.35351063e-08f},
    {-0.000134623071f, -0.00185756083f, 0.00143792166f, 9.66152875e-05f, -0.000147133542f, -8.95532576e-05f,
     -3.83958431e-05f, -1.48981062e-05f, -5.58714146e-06f, -2.06988989e-06f, -7.63436276e-07f, -2.81118844e-07f,
     -1.034539e-07f, -3.8063444e-08f, -1.4003418e-08f, -3.50622642e-09f},
    {-0.000693847891f, 0.000310793606f, -0.000283936359f, -0.000112537193f, 1.74551326e-06f, 1.11749569e-05f,
     5.84508189e-06f, 2.40198983e-06f, 9.18587602e-07f, 3.42703231e-07f, 1.26721744e-07f, 4.67061732e-08f,
     1.71941341e-08f, 6.32697894e-09f, 2.3277833e-09f, 2.44994719e-10f},
};
#endif
// AVX-512: the pieces above, each lane's coefficients picked by one permute
// each. Elsewhere |x| < 1: x + x^3 P(x^2); above, 1 - 2 / (e^2|x| + 1)
// (below 0.24 there, so its rounding costs little); the sign of x.
struct tanh32_fn {
    static constexpr ew_fn fn = ew_fn::tanh;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
        const auto one = hn::Set(df, 1.0f);
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) return saturating_pieces(df, x, kTanhPieces, 2.0f, 9.1f, 0.75f);
#endif
        const auto a = hn::Min(hn::Abs(x), hn::Set(df, 9.1f)), a2 = hn::Mul(a, a); // (tanh 9.1 is 1 in f32)
        const auto near = hn::MulAdd(a, hn::Mul(a2, horner(df, a2, kTanhP)), a);
        // (2a <= 18.2: exp_range::near holds.)
        const auto far = hn::NegMulAdd(
            hn::Set(df, 2.0f), recip32(df, hn::Add(exp32_parts<DF, exp_range::near>(df, hn::Add(a, a)).value(df), one)),
            one);
        return hn::CopySign(hn::IfThenElse(hn::Lt(a, one), near, far), x);
    }
};
#if HWY_TARGET == HWY_AVX2
// AVX2's form of pieces32: h on 8 pieces [k - 1, k] of u in [0, 8] (u = a,
// or a scaled by the caller), coefficient j of piece k at c[j][k - 1]
// (coefficient 0 split as there), a polynomial in s = u - k in [-1, 0] (up
// to 2^-20 past it where a boundary falls on the left): expanded at the
// piece's right end, a falling h's terms all add (centred, they cancel).
// k - 1 = round(min(u, 8) - 1/2 - 2^-20), at least 0 (a boundary in the
// piece on its left), read by the permutes (one `vpermps` of an 8-entry
// table per coefficient) in its low 3 bits. Past 8, garbage: the callers
// replace those lanes. kLinear: c0 + (c1 s + s^2 P(s)) instead, for
// functions whose pieces span a factor near e: the linear term is then exact
// inside its FMA and only the smaller s^2 P(s) rounds before the sum (one
// operation more; SoftPlus 1.88 -> 1.69 ulp).
//
// pieces_avx2_at evaluates them for a piece and s the caller found (`piece`,
// k - 1 in its low bits; graded_pieces8 below); pieces_avx2 finds them from u.
template <bool kLinear = false, class DF, size_t N>
HWY_INLINE hn::Vec<DF> pieces_avx2_at(DF df, __m256i piece, hn::Vec<DF> s, const float (&c)[N][8]) {
    auto coef = [&](size_t j) { return hn::Vec<DF>{_mm256_permutevar8x32_ps(hn::Load(df, c[j]).raw, piece)}; };
    auto h = coef(N - 2);
    if constexpr (kLinear) {
        for (size_t j = N - 2; j-- > 2;) h = hn::MulAdd(h, s, coef(j));
        return hn::Add(coef(0), hn::MulAdd(coef(1), s, hn::MulAdd(h, hn::Mul(s, s), coef(N - 1))));
    }
    for (size_t j = N - 2; j-- > 1;) h = hn::MulAdd(h, s, coef(j));
    return hn::Add(coef(0), hn::MulAdd(h, s, coef(N - 1)));
}
template <bool kLinear = false, class DF, size_t N>
HWY_INLINE hn::Vec<DF> pieces_avx2(DF df, hn::Vec<DF> u, const float (&c)[N][8]) {
    const auto shifter = hn::Set(df, 0x1.8p23f);
    const auto t =
        hn::Max(hn::Add(hn::Add(hn::Min(u, hn::Set(df, 8.0f)), hn::Set(df, -0.5f - 0x1p-20f)), shifter), shifter);
    const auto s = hn::Sub(u, hn::Sub(t, hn::Set(df, 0x1.8p23f - 1.0f)));
    return pieces_avx2_at<kLinear>(df, _mm256_castps_si256(t.raw), s, c);
}
// 8 graded pieces (graded_piece), coefficients as pieces_avx2's (row j,
// column k).
template <int kPower, class DF, size_t N>
HWY_INLINE hn::Vec<DF> graded_pieces8(DF df, hn::Vec<DF> a, float alpha, float beta, const float (&at)[8],
                                      const float (&c)[N][8]) {
    const auto t = graded_piece<kPower>(df, a, alpha, beta, 7.0f);
    const __m256i piece = _mm256_castps_si256(t.raw);
    const auto s = hn::Sub(a, hn::Vec<DF>{_mm256_permutevar8x32_ps(hn::Load(df, at).raw, piece)});
    return pieces_avx2_at(df, piece, s, c);
}
// sigmoid(-a) = 1 / (1 + e^a) on the pieces [k - 1, k] of a up to 8, degree
// 7 in s = a - k (fusebox-fit sigmoidc_x K-1 K 7 f32 K 1 split; relative
// error at most 2^-22.9 in f32, rounding included). Column k - 1, the
// remainder last.
// clang-format off
alignas(32) constexpr float kSigmoidPieces8[9][8] = {
    {0.268941432f, 0.119202919f, 0.0474258736f, 0.0179862101f, 0.00669285096f, 0.00247262325f, 0.000911051175f, 0.000335350138f},
    {-0.196611717f, -0.104993664f, -0.0451766625f, -0.0176627003f, -0.00664805574f, -0.00246650935f, -0.00091022125f, -0.00033523771f},
    {0.0454333834f, 0.0399796218f, 0.020445697f, 0.00851379801f, 0.00327955652f, 0.00122715521f, 0.000454279478f, 0.000167505495f},
    {0.00592341321f, -0.00648830738f, -0.00548917474f, -0.00263078441f, -0.00106363581f, -0.00040500742f, -0.000150889886f, -5.57678941e-05f},
    {-0.00500730285f, -0.000917192665f, 0.000777952722f, 0.000563074427f, 0.000252165366f, 9.92096902e-05f, 3.73853036e-05f, 1.38742444e-05f},
    {0.000713865913f, 0.000614692806f, 3.82465405e-05f, -6.64538456e-05f, -4.32827437e-05f, -1.91119652e-05f, -7.50099434e-06f, -2.82513975e-06f},
    {0.000715904403f, -0.000274726772f, -5.676418e-05f, 1.05185345e-05f, 7.08510197e-06f, 2.82326209e-06f, 1.05212735e-06f, 3.87987086e-07f},
    {5.78452746e-05f, -8.35184474e-05f, 1.74285506e-05f, 7.66572248e-06f, 4.22019497e-07f, -4.10945177e-07f, -2.42910573e-07f, -1.02593752e-07f},
    {-9.18284648e-09f, 2.11272644e-09f, -4.35687958e-10f, -5.24182503e-11f, -2.95111262e-11f, -9.50068149e-11f, 1.90788982e-11f, -7.78089485e-12f},
};
// clang-format on
#endif
// With AVX-512 and AVX2, from the pieces of sigmoid(-|x|) = h above
// (kSigmoidPieces, kSigmoidPieces8 with the linear term apart): h below 0,
// 1 - h above (h <= 1/2: at most half an ulp more); past |x| = 15.75, where
// the pieces end, as elsewhere (vectors holding such lanes); with AVX2, h
// past 8 from e^-|x| (tail). Elsewhere (the quotient):
// with e^-|x| = 2^k m (k <= 0) and c = 2^-k: 1 / (1 + e^-x) = c / (c + m)
// for x >= 0, e^x / (1 + e^x) = m / (c + m) below. m = 1 + p and c + m are
// each kept as a rounded value and its exact error (Fast2Sum: c is a power
// of two at least m's binade), and the quotient corrected by its remainder,
// so that the result's error is the polynomial's, not three roundings'
// (e^x's own 1 ulp in a binade above the result's would be 2). Below -80,
// e^x itself; above 80, 1: a branch taken only by vectors holding such
// lanes, so the common case pays neither for them nor for a clamp. Below
// AVX-512 the quotient is a division (its own unit, beside the FMAs: 1.5x
// faster on Zen 3's AVX2 than the reciprocal refined twice, and more exact
// on SSE4, where MulAdd rounds twice) and the remainder's correction needs
// only the reciprocal's estimate; AVX-512 keeps its 14-bit estimate and one
// refining step.
struct sigmoid32_fn {
    static constexpr ew_fn fn = ew_fn::sigmoid;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) {
            const auto ax = hn::Abs(x), h = pieces32(df, ax, kSigmoidPieces, 2.0f);
            const auto r = hn::IfThenElse(hn::Lt(x, hn::Zero(df)), h, hn::Sub(hn::Set(df, 1.0f), h));
            return unless_far(df, hn::Gt(ax, hn::Set(df, 15.75f)), r, [&] { return quotient(df, x); });
        }
#endif
#if HWY_TARGET == HWY_AVX2
        if constexpr (hn::MaxLanes(DF()) == 8) {
            const auto ax = hn::Abs(x);
            const auto h = unless_far(df, hn::Gt(ax, hn::Set(df, 8.0f)), pieces_avx2<true>(df, ax, kSigmoidPieces8),
                                      [&] { return tail(df, ax); });
            return hn::IfThenElse(hn::Lt(x, hn::Zero(df)), h, hn::Sub(hn::Set(df, 1.0f), h));
        }
#endif
        return quotient(df, x);
    }
    // sigmoid(-a) for a > 8: e - e^2 + e^3, e = e^-a <= 2^-11.5 (the next
    // term is below 2^-34 of it).
    template <class DF> static hn::Vec<DF> tail(DF df, hn::Vec<DF> a) {
        return with_exp32(df, hn::Neg(a), [&](const auto &e) {
            const auto v = e.value(df);
            return hn::MulAdd(v, hn::MulSub(v, v, v), v);
        });
    }
    template <class DF> static hn::Vec<DF> quotient(DF df, hn::Vec<DF> x) {
        const auto one = hn::Set(df, 1.0f);
        const auto ax = hn::Abs(x);
        const auto neg = hn::Lt(x, hn::Zero(df));
        const exp32_parts<DF, exp_range::near> e(df, hn::Neg(ax)); // (lanes past 80 are replaced below)
        const auto m_lo = hn::Sub(e.p, hn::Sub(e.m, one));
        const auto c = e.template pow2<-1>(df);
        const auto d = hn::Add(c, e.m), d_lo = hn::Sub(e.m, hn::Sub(d, c));
        const auto num = hn::IfThenElse(neg, e.m, c), num_lo = hn::IfThenElseZero(neg, m_lo);
#if HWY_TARGET <= HWY_AVX3
        const auto y = recip32(df, d);
        const auto q = hn::Mul(num, y);
#else
        const auto y = hn::ApproximateReciprocal(d);
        const auto q = hn::Div(num, d);
#endif
        const auto rem = hn::Add(hn::NegMulAdd(q, d, num), hn::NegMulAdd(q, d_lo, num_lo));
        const auto r = hn::MulAdd(rem, y, q);
        return unless_far(df, hn::Gt(ax, hn::Set(df, 80.0f)), r,
                          [&] { return hn::IfThenElse(neg, exp32(df, x), one); });
    }
};
// x > 0 ? x : alpha (e^x - 1), e^x - 1 from the parts of e^x (no
// cancellation near 0).
struct elu32_fn {
    static constexpr ew_fn fn = ew_fn::elu;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF> alpha, hn::Vec<DF>) {
        const auto zero = hn::Zero(df);
        // (Only x <= 0 is used; below -87 e^x - 1 is -1 in f32.)
        const auto em1 = exp32_parts<DF, exp_range::near>(df, hn::Min(hn::Max(x, hn::Set(df, -87.0f)), zero)).expm1(df);
        // (At zero the product alpha * x keeps C's sign: e^-0 - 1 is -0.)
        return hn::IfThenElse(hn::Gt(x, zero), x, hn::Mul(alpha, hn::IfThenElse(hn::Eq(x, zero), x, em1)));
    }
};
// gamma (x > 0 ? x : alpha (e^x - 1)): gamma x rounded once, and e^x - 1
// times alpha gamma held as hi + lo (exp32_parts::expm1_times). In f32
// lanes when that pair is exact in floats with a normal
// hi (f32_for: alpha and gamma are floats, so their product has at most 48
// bits), in f64 lanes otherwise.
struct selu_fn {
    static constexpr ew_fn fn = ew_fn::selu;
    static bool f32_for(double alpha, double gamma) {
        const double ag = alpha * gamma;
        const float hi = static_cast<float>(ag);
        return std::isnormal(hi) && static_cast<double>(static_cast<float>(ag - hi)) == ag - hi;
    }
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF> alpha, hn::Vec<DF> gamma) {
        const auto zero = hn::Zero(df);
        const auto hi = hn::Mul(alpha, gamma), lo = hn::MulSub(alpha, gamma, hi);
        const exp32_parts<DF, exp_range::near> e(df, hn::Min(hn::Max(x, hn::Set(df, -87.0f)), zero));
        // (The sign is x alpha gamma's, as in C, also where the result is a
        // zero: x = -0, or an underflow the sum of hi's and lo's terms would
        // make +0.)
        const auto neg = hn::CopySign(e.expm1_times(df, hi, lo), hn::Mul(x, hi));
        return hn::IfThenElse(hn::Gt(x, zero), hn::Mul(gamma, x), neg);
    }
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD> alpha, hn::Vec<DD> gamma) {
        // (e^-0 - 1 comes out +0: at zero the product alpha * x keeps C's sign.)
        const auto zero = hn::Zero(dd);
        const auto em1 = expm1_64(dd, hn::Min(hn::Max(x, hn::Set(dd, -708.0)), zero)); // (only x <= 0 is used)
        const auto r = hn::IfThenElse(hn::Gt(x, zero), x, hn::Mul(alpha, hn::IfThenElse(hn::Eq(x, zero), x, em1)));
        return hn::Mul(gamma, r);
    }
};
#if HWY_TARGET <= HWY_AVX3
// tanh(log(1 + e^x)) on the pieces [k/2 - 8, k/2 - 7.5] of x, degree 5 in s
// = 2x - k + 15.5 (fusebox-fit mishm_x with CENTRE k/2 - 7.75, SCALE 2,
// split; relative error at most 2^-22.9 in f32, rounding included). Layout
// as kSigmoidPieces.
// clang-format off
alignas(64) constexpr float kMishPieces[7][32] = {
    {0.000430649787f, 0.000709922228f, 0.00117019413f, 0.00192859082f, 0.0031777157f, 0.00523375021f, 0.00861427095f, 0.0141625097f, 0.0232412778f, 0.0380230322f, 0.061888393f, 0.0998724923f, 0.158867002f, 0.246731162f, 0.368659616f, 0.519707859f, 0.678289652f, 0.81335777f, 0.90549624f, 0.957104266f, 0.981980801f, 0.992805183f, 0.997217298f, 0.99894464f, 0.999604523f, 0.999852836f, 0.999945521f, 0.999979854f, 0.999992549f, 0.999997258f, 0.999998987f, 0.999999642f},
    {0.000215278502f, 0.000354835007f, 0.000584754336f, 0.000963363738f, 0.00158632535f, 0.00260999147f, 0.00428842427f, 0.00703040324f, 0.0114824791f, 0.0186364613f, 0.029928254f, 0.0471992008f, 0.0721553341f, 0.104571491f, 0.13860926f, 0.159784511f, 0.151766047f, 0.114933722f, 0.0699867457f, 0.0357613452f, 0.0161542296f, 0.00673819333f, 0.00267511862f, 0.00103056838f, 0.000389853842f, 0.000145862912f, 5.42119815e-05f, 2.00675586e-05f, 7.41025315e-06f, 2.73230216e-06f, 1.00654836e-06f, 3.70599054e-07f},
    {5.37961096e-05f, 8.86451817e-05f, 0.000146016348f, 0.000240373731f, 0.000395312934f, 0.00064905273f, 0.00106274697f, 0.0017321764f, 0.0028015899f, 0.00447198562f, 0.00697688572f, 0.0104500894f, 0.0145199439f, 0.0174480304f, 0.0153374234f, 0.00427677948f, -0.0123230554f, -0.0225256942f, -0.0207334924f, -0.0132570611f, -0.00679043401f, -0.00304264529f, -0.00125904148f, -0.000496964145f, -0.000190724852f, -7.19764939e-05f, -2.68898839e-05f, -9.98490214e-06f, -3.69404052e-06f, -1.3636195e-06f, -5.02689147e-07f, -1.85161724e-07f},
    {8.95831818e-06f, 1.47532337e-05f, 2.42790211e-05f, 3.99071541e-05f, 6.54636533e-05f, 0.000107028653f, 0.000174007626f, 0.0002802292f, 0.000443960656f, 0.000683210441f, 0.000996184535f, 0.00130351493f, 0.00131970574f, 0.00040843006f, -0.00208223355f, -0.00512850145f, -0.00515846908f, -0.00129280612f, 0.00204105093f, 0.00254679471f, 0.00169140962f, 0.000861509587f, 0.00038192948f, 0.000156718292f, 6.15114695e-05f, 2.35226307e-05f, 8.85741974e-06f, 3.30457397e-06f, 1.22605616e-06f, 4.53366169e-07f, 1.67304449e-07f, 6.16641813e-08f},
    {1.12132125e-06f, 1.84455996e-06f, 3.02978606e-06f, 4.96434268e-06f, 8.10074835e-06f, 1.31274182e-05f, 2.10229082e-05f, 3.29774884e-05f, 4.98189111e-05f, 6.99343e-05f, 8.32771402e-05f, 5.75253398e-05f, -8.05254749e-05f, -0.000413788541f, -0.00079185568f, -0.000532966747f, 0.000581765897f, 0.0010894814f, 0.000465181365f, -0.000119979974f, -0.000239642686f, -0.000163336488f, -8.25221214e-05f, -3.62350002e-05f, -1.47660112e-05f, -5.76975572e-06f, -2.20026868e-06f, -8.2708948e-07f, -3.08252112e-07f, -1.14294195e-07f, -4.22468851e-08f, -1.55865845e-08f},
    {1.1164316e-07f, 1.83234192e-07f, 2.99834454e-07f, 4.88179751e-07f, 7.88121042e-07f, 1.25388249e-06f, 1.94377822e-06f, 2.87029525e-06f, 3.83255428e-06f, 3.93776418e-06f, 4.46986178e-07f, -1.30970029e-05f, -4.54998117e-05f, -8.48306299e-05f, -4.17755728e-05f, 0.000161171833f, 0.000223868541f, -4.08782507e-05f, -0.000158166033f, -6.51750015e-05f, 5.78644858e-06f, 1.88134109e-05f, 1.26753712e-05f, 6.27695908e-06f, 2.71761974e-06f, 1.09765415e-06f, 4.26575014e-07f, 1.62135038e-07f, 6.08250517e-08f, 2.26416486e-08f, 8.38892067e-09f, 3.0994356e-09f},
    {-1.11971318e-11f, -5.10231137e-12f, 2.79429466e-11f, 1.21541371e-11f, 1.07352002e-10f, 1.96447053e-10f, -2.04724626e-10f, 3.07994991e-10f, 6.48944398e-10f, -4.96610808e-10f, -1.08438702e-09f, 3.40681972e-09f, 2.6337979e-10f, 5.07097297e-09f, 1.44404542e-08f, 1.40021568e-08f, -2.51534136e-08f, -1.20769856e-08f, 6.4891692e-09f, -1.47736321e-08f, -1.65550063e-08f, -1.78784969e-08f, -1.40589353e-08f, -2.42833353e-09f, -1.63644529e-08f, 2.80982668e-08f, -1.9327338e-08f, 1.47269006e-08f, 2.5990369e-08f, 6.30705888e-09f, 6.01464034e-09f, -1.3131114e-08f},
};
// clang-format on
#endif
// x tanh(log(1 + e^x)): with AVX-512, x h, h from the pieces above for |x|
// <= 8 (each lane's piece from 2x + 15.5 rounded by a shifter, its
// coefficients by one permute each; beyond, as elsewhere: vectors holding
// such lanes). Elsewhere x e^x g, g = (e^x + 2) / (e^x (e^x + 2) + 2), with
// e^x's scale applied last (one rounding where the result is subnormal); e^x
// capped at e^20 (tanh is 1 there); -0 below -125.
struct mish32_fn {
    static constexpr ew_fn fn = ew_fn::mish;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) {
            const auto shifter = hn::Set(df, 0x1.8p23f);
            // (NaN: piece 0, and NaN through s.)
            const auto u = hn::Min(hn::Max(hn::MulAdd(x, hn::Set(df, 2.0f), hn::Set(df, 15.5f)), hn::Zero(df)),
                                   hn::Set(df, 31.0f));
            const auto t = hn::Add(u, shifter);
            const auto s = hn::MulSub(x, hn::Set(df, 2.0f), hn::Sub(hn::Sub(t, shifter), hn::Set(df, 15.5f)));
            const auto r = hn::Mul(x, pieces32_at(df, t, s, kMishPieces));
            return unless_far(df, hn::Gt(hn::Abs(x), hn::Set(df, 8.0f)), r, [&] { return exp_form(df, x); });
        }
#endif
        return exp_form(df, x);
    }
    template <class DF> static hn::Vec<DF> exp_form(DF df, hn::Vec<DF> x) {
        const auto two = hn::Set(df, 2.0f);
        const auto xe = hn::Min(x, hn::Set(df, 20.0f));
        const auto mish = [&](const auto &e) {
            const auto ev = e.value(df), e2 = hn::Add(ev, two);
            return e.times(df, hn::Mul(x, hn::Mul(e2, recip32(df, hn::MulAdd(ev, e2, two)))));
        };
        // (Not with_exp32: the -0 below is needed only over exp_range::any.)
        const auto rn = mish(exp32_parts<DF, exp_range::near>(df, xe));
        if (HWY_LIKELY(exp32_near(df, xe))) return rn;
        const auto r = mish(exp32_parts<DF>(df, xe));
        return hn::IfThenElse(hn::Lt(x, hn::Set(df, -125.0f)), hn::Set(df, -0.0f), r); // (|x| e^x < 2^-160 there)
    }
};
#if HWY_TARGET <= HWY_AVX2
// erf on the pieces [k/2, (k+1)/2] of |x|, k = 0..7, as degree-6 polynomials
// h_k in s = 4|x| - (2k + 1) (fusebox-fit erf_x1 and erfc_x): below 1,
// h = erf(x) / x - 1 and erf x = x + x h (one rounding); from 1 on,
// h = erfc|x| and erf x = 1 - h with the sign of x (erfc <= 0.16 there, so
// h's absolute error of 2^-25.6 is a third of an ulp of the result).
// Coefficient j of piece k at kErfPieces[j][k]: a table of 16 lanes for one
// permute per coefficient (8 used: the same pieces, and bits, on AVX2 and
// AVX-512). Checked on every f32 below 4 by emulation: 0.84 ulp at most.
alignas(64) constexpr float kErfPieces[7][16] = {
    {0.10530556f, -0.0517924875f, 0.0770998746f, 0.0133283287f, 0.00146271661f, 0.000100621925f, 4.30277942e-06f,
     1.13727253e-07f},
    {-0.0452913716f, -0.101758778f, -0.0591303073f, -0.0131937088f, -0.00178557506f, -0.00014657357f, -7.29840986e-06f,
     -2.20471208e-07f},
    {-0.0209594462f, -0.00626359321f, 0.0184782222f, 0.00577226421f, 0.00100438693f, 0.000100766541f, 5.9291574e-06f,
     2.06604724e-07f},
    {0.00163580978f, 0.00264569116f, -0.00261754845f, -0.00140902633f, -0.00033948393f, -4.30969631e-05f,
     -3.05030881e-06f, -1.23622598e-07f},
    {0.000347758294f, -9.71104018e-05f, 2.39851706e-05f, 0.000187908416f, 7.45577927e-05f, 1.27258927e-05f,
     1.11831844e-06f, 5.39152261e-08f},
    {-3.41508021e-05f, -3.6397123e-05f, 4.56807938e-05f, -5.8294163e-06f, -1.03332322e-05f, -2.75962043e-06f,
     -3.24814238e-07f, -1.97302139e-08f},
    {-4.41154089e-06f, 3.46726233e-06f, -5.05000935e-06f, -2.20682409e-06f, 6.82409336e-07f, 4.06883231e-07f,
     6.65228228e-08f, 5.00785324e-09f},
};
#endif
#if HWY_TARGET <= HWY_AVX3
// AVX-512, 16 lanes: pieces of a quarter, piece k of [k/4 - 1/8, k/4 + 1/8]
// (the first from 0, the last [3.625, 3.95]), degree-5 polynomials h_k in
// s = 4|x| - k (fusebox-fit erf_x1 and erfc_x with CENTRE k/4, SCALE 4):
// below 0.875 h = erf(x) / x - 1, above h = erfc|x| (absolute error at most
// 2^-26.4); from 3.95 on, h < 2^-25 rounds 1 - h to 1.
alignas(64) constexpr float kErfPieces16[6][16] = {
    {0.128379166f, 0.10530556f, 0.0409997553f, -0.0517924875f, 0.157299206f, 0.0770998672f, 0.0338948518f,
     0.0133283278f, 0.0046777348f, 0.00146271696f, 0.000406952342f, 0.000100622121f, 2.20905858e-05f, 4.30281125e-06f,
     7.43107762e-07f, 1.13728873e-07f},
    {-7.08445702e-09f, -0.0452914312f, -0.081108585f, -0.101758815f, -0.103776872f, -0.0591302812f, -0.0297325719f,
     -0.0131937489f, -0.00516674621f, -0.00178557972f, -0.000544571085f, -0.000146569335f, -3.48132744e-05f,
     -7.29726162e-06f, -1.34985839e-06f, -2.20270763e-07f},
    {-0.0235077348f, -0.0209592953f, -0.0143696172f, -0.00626371196f, 0.0259442572f, 0.0184783936f, 0.0111498805f,
     0.00577234244f, 0.00258337753f, 0.00100436388f, 0.000340332947f, 0.000100752157f, 2.61035857e-05f, 5.92674314e-06f,
     1.18045068e-06f, 2.06477381e-07f},
    {-1.41337046e-06f, 0.00163625844f, 0.00260779308f, 0.00264595123f, -0.00216198573f, -0.00261773891f,
     -0.00216801022f, -0.00140872051f, -0.000753491069f, -0.000339447608f, -0.000130468994f, -4.31296903e-05f,
     -1.23288582e-05f, -3.05916069e-06f, -6.60741705e-07f, -1.25746965e-07f},
    {0.000446237245f, 0.000346118788f, 0.000126405619f, -9.58282908e-05f, -0.000270666904f, 2.21191312e-05f,
     0.000172448737f, 0.000187077501f, 0.000134506088f, 7.48087623e-05f, 3.39369399e-05f, 1.28788815e-05f,
     4.14746546e-06f, 1.14366969e-06f, 2.71695654e-07f, 5.55125084e-08f},
    {-9.75434796e-06f, -3.48869398e-05f, -4.86540157e-05f, -3.68232322e-05f, 6.72169626e-05f, 4.59918883e-05f,
     1.46257307e-05f, -6.33078889e-06f, -1.27049589e-05f, -1.03923958e-05f, -5.98628685e-06f, -2.70597707e-06f,
     -1.00166699e-06f, -3.10343808e-07f, -8.15297767e-08f, -1.4662132e-08f},
};
#endif
// AVX-512: the quarter pieces above, each lane's piece from 4|x| rounded by a
// shifter (one FMA, no conversion). AVX2: the half pieces above, picked by a
// permute each; +-1 from |x| = 3.92 on (erfc there is below half an ulp of
// 1). Without a permute (SSE4):
// |x| < 0.9: x + x P(x^2); above, 1 - erfc|x| with the sign of x, erfc a =
// e^(-a^2) R(a) (its error is absolute there, and at most 0.2 of an ulp).
struct erf32_fn {
    static constexpr ew_fn fn = ew_fn::erf;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) return saturating_pieces(df, x, kErfPieces16, 4.0f, 3.95f, 0.875f);
#endif
#if HWY_TARGET <= HWY_AVX2
        const hn::RebindToSigned<DF> di;
        const auto one = hn::Set(df, 1.0f), edge = hn::Set(df, 3.92f);
        const auto ax = hn::Abs(x);
        const auto a = hn::Min(ax, edge); // (NaN: the edge; its lane is put back later)
        const auto k = hn::Floor(hn::Add(a, a));
        const auto s = hn::MulSub(a, hn::Set(df, 4.0f), hn::MulAdd(k, hn::Set(df, 2.0f), one));
        const auto piece = hn::IndicesFromVec(df, hn::ConvertTo(di, k));
        auto h = hn::TableLookupLanes(hn::Load(df, kErfPieces[6]), piece);
        for (int j = 5; j >= 0; --j) h = hn::MulAdd(h, s, hn::TableLookupLanes(hn::Load(df, kErfPieces[j]), piece));
        const auto far = hn::CopySign(hn::IfThenElse(hn::Ge(ax, edge), one, hn::Sub(one, h)), x);
        return hn::IfThenElse(hn::Lt(ax, one), hn::MulAdd(x, h, x), far);
#else
        const auto edge = hn::Set(df, 0.9f);
        const auto a = hn::Min(hn::Abs(x), hn::Set(df, 16.0f)), x2 = hn::Mul(x, x);
        const auto near = hn::MulAdd(x, horner(df, x2, kErfP), x);
        const auto erfc = hn::Mul(exp32(df, hn::Neg(x2)), erfc_scaled32(df, a));
        const auto far = hn::CopySign(hn::Sub(hn::Set(df, 1.0f), erfc), x);
        return hn::IfThenElse(hn::Lt(a, edge), near, far);
#endif
    }
};
#if HWY_TARGET == HWY_AVX2
// Phi(-a) = erfc(a / sqrt 2) / 2 up to 8 on 8 graded pieces, where a/2 +
// a^2/16 is in [k, k + 1] (widths 1.66 down to 0.69: each spans a factor of
// e^2.3 to e^5.3 of the function, where pieces of width 1/2 span up to
// e^3.9), degree 10 in s = a - kPhiGradedAt[k] (fusebox-fit phic_x graded
// 0.5 0.0625 1 8 10; relative error at most 2^-20.7 in f32, rounding
// included).
// clang-format off
alignas(32) constexpr float kPhiGradedAt[8] = {0.828369141f, 2.92822266f, 4.0f, 4.94433594f, 5.7980957f, 6.58300781f, 7.3137207f, 8.0f};
alignas(32) constexpr float kPhiGraded[12][8] = {
    {0.203730732f, 0.00170452904f, 3.16712431e-05f, 3.82019266e-07f, 3.35360872e-09f, 2.30512467e-11f, 1.29922508e-13f, 6.22096254e-16f},
    {-0.283077031f, -0.00548256375f, -0.000133830225f, -1.9607819e-06f, -1.99927417e-08f, -1.55101723e-10f, -9.67358897e-13f, -5.05215215e-15f},
    {0.117246069f, 0.00802707113f, 0.000267660653f, 4.84735438e-06f, 5.79614721e-08f, 5.10580966e-10f, 3.53851583e-12f, 2.02189678e-14f},
    {0.0148053421f, -0.00692143897f, -0.000334572076f, -7.66279845e-06f, -1.08650902e-07f, -1.09280751e-09f, -8.43508423e-12f, -5.27451719e-14f},
    {-0.0226062573f, 0.00372772431f, 0.000289993564f, 8.65735547e-06f, 1.48316445e-07f, 1.7368138e-09f, 1.52764745e-11f, 1.07301565e-13f},
    {0.00152270764f, -0.00115017884f, -0.000181663767f, -7.45199532e-06f, -1.52274211e-07f, -1.94309679e-09f, -1.74101081e-11f, -1.17856828e-13f},
    {0.00280033471f, 5.16512664e-05f, 8.28243647e-05f, 4.8361635e-06f, 1.42119362e-07f, 2.73968737e-09f, 3.76565445e-11f, 3.89816299e-13f},
    {-0.000506091339f, 9.70701367e-05f, -2.51614365e-05f, -2.8806196e-06f, -5.92286824e-08f, 1.30882027e-10f, 2.12942042e-11f, 4.04175689e-13f},
    {-0.000240983005f, -5.59955297e-05f, 3.97081294e-06f, 7.42328496e-07f, 9.85679236e-08f, 4.25021929e-09f, 9.43624831e-11f, 1.3448087e-12f},
    {6.09908275e-05f, 3.67065331e-06f, 3.45973717e-07f, -5.98540396e-07f, 2.07878976e-08f, 2.32896369e-09f, 6.8417251e-11f, 1.13800755e-12f},
    {1.14720606e-05f, 5.29737508e-06f, -1.10414135e-06f, -9.24355259e-09f, 3.12223243e-08f, 1.82605631e-09f, 4.79772853e-11f, 7.77981304e-13f},
    {7.36989358e-09f, 5.53809776e-11f, -1.20130544e-12f, 1.0242981e-15f, 3.43893888e-17f, 5.46009618e-19f, -3.73082973e-21f, 1.81670186e-23f},
};
// clang-format on
#endif
// x Phi(x): with AVX-512 from the pieces of Phi(-|x|) = h above
// (kPhiPieces), x - |x| h for x > 0 and x h below (below -7.875, where the
// pieces end, as elsewhere: vectors holding such lanes); with AVX2 the same
// from kPhiGraded up to |x| = 8 (one permute for each of 12 coefficients and
// the centre; beyond, as elsewhere: vectors holding such lanes). Elsewhere
// 0.5 x erfc(-x / sqrt 2), as x - 0.5 x erfc a for x > 0 and 0.5 x erfc a
// below (the negative tail without cancellation), a = |x| / sqrt 2, erfc a =
// e^(-x^2/2) R(a) with x^2 in two parts (hi + lo exactly), so that the
// exponent carries no rounding error: e^(-hi/2) (1 - lo/2); below zero
// e^(-hi/2)'s scale comes last (one rounding for subnormal results); x
// clamped to +-15, where the tail is 0 (-0 down to -inf).
struct gelu_erf32_fn {
    static constexpr ew_fn fn = ew_fn::gelu_erf;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) {
            const auto a = hn::Min(hn::Abs(x), hn::Set(df, 7.875f)), h = pieces32(df, a, kPhiPieces, 4.0f);
            // (Above 7.875, a h < 2^-46 leaves x as it is, inf included.)
            return unless_far(df, hn::Lt(x, hn::Set(df, -7.875f)), gelu_from<DF>(x, a, h),
                              [&] { return exp_form(df, x); });
        }
#endif
#if HWY_TARGET == HWY_AVX2
        if constexpr (hn::MaxLanes(DF()) == 8) {
            const auto a = hn::Abs(x);
            const auto h = graded_pieces8<1>(df, a, 0.5f, 0.0625f, kPhiGradedAt, kPhiGraded);
            return unless_far(df, hn::Gt(a, hn::Set(df, 8.0f)), gelu_from<DF>(x, a, h),
                              [&] { return exp_form(df, x); });
        }
#endif
        return exp_form(df, x);
    }
    template <class DF> static hn::Vec<DF> exp_form(DF df, hn::Vec<DF> x) {
        const auto one = hn::Set(df, 1.0f), half = hn::Set(df, 0.5f);
        const auto xc = hn::Min(hn::Max(x, hn::Set(df, -15.0f)), hn::Set(df, 15.0f)); // (GELU(-15) is -0 in f32)
        // (hi + lo = x^2 exactly.)
        const auto hi = hn::Mul(xc, xc);
#if HWY_TARGET <= HWY_AVX2
        const auto lo = hn::MulSub(xc, xc, hi); // (exact with FMA)
#else
        // (Dekker's exact product without FMA: x = xh + xl, xh its top 12
        // bits, so that xh^2, 2 xh xl and xl^2 are exact.)
        const hn::RebindToSigned<DF> di;
        const auto xh = hn::BitCast(df, hn::And(hn::BitCast(di, xc), hn::Set(di, int32_t(0xFFFFF000u))));
        const auto xl = hn::Sub(xc, xh);
        const auto lo = hn::Add(hn::Add(hn::Sub(hn::Mul(xh, xh), hi), hn::Mul(hn::Add(xh, xh), xl)), hn::Mul(xl, xl));
#endif
        const auto c = hn::Mul(hn::NegMulAdd(lo, half, one), // erfc a / e^(-hi/2)
                               erfc_scaled32(df, hn::Mul(hn::Abs(xc), hn::Set(df, 0.707106781f))));
        const auto v = hn::Mul(hn::Mul(xc, half), c);
        // 0.5 x erfc a (-0 for x <= -15)
        const auto tail =
            with_exp32(df, hn::Mul(hi, hn::Set(df, -0.5f)), [&](const auto &e) { return e.times(df, v); });
        return hn::IfThenElse(hn::Gt(x, hn::Zero(df)), hn::Sub(x, tail), tail);
    }
};

#if HWY_TARGET <= HWY_AVX3
// log(1 + e^-a) on the pieces [k/2 - 1/4, k/2 + 1/4] of a (the first from 0,
// the last up to 15.75), degree 5 in s = 2a - k (fusebox-fit softplusc_x
// with CENTRE k/2, SCALE 2, split; relative error at most 2^-23.2 in f32,
// rounding included). Layout as kSigmoidPieces.
// clang-format off
alignas(64) constexpr float kSoftplusPieces[7][32] = {
    {0.693147182f, 0.474076986f, 0.313261688f, 0.201413274f, 0.126928017f, 0.078889735f, 0.048587352f, 0.0297504179f, 0.0181499273f, 0.0110477451f, 0.00671534846f, 0.00407844316f, 0.00247568521f, 0.00150231016f, 0.000911466486f, 0.000552931509f, 0.000335406367f, 0.000203447678f, 0.000123402191f, 7.48490274e-05f, 4.53989014e-05f, 2.75360708e-05f, 1.67015623e-05f, 1.0130042e-05f, 6.14419332e-06f, 3.72664636e-06f, 2.26032694e-06f, 1.37095822e-06f, 8.31528382e-07f, 5.04347554e-07f, 3.0590229e-07f, 1.85539122e-07f},
    {-0.25f, -0.188770339f, -0.134470716f, -0.0912127644f, -0.0596014597f, -0.0379290916f, -0.0237129368f, -0.0146561153f, -0.00899310503f, -0.0054934714f, -0.00334642548f, -0.00203506881f, -0.00123631163f, -0.000750591105f, -0.000455525587f, -0.000276389328f, -0.000167675069f, -0.000101713493f, -6.16972902e-05f, -3.74231131e-05f, -2.26989341e-05f, -1.37678453e-05f, -8.35071114e-06f, -5.06499555e-06f, -3.07208734e-06f, -1.86331965e-06f, -1.1301621e-06f, -6.85478597e-07f, -4.15764021e-07f, -2.52173692e-07f, -1.52951117e-07f, -9.27695538e-08f},
    {0.031249864f, 0.0293753613f, 0.0245765299f, 0.0186433978f, 0.0131242648f, 0.00876299199f, 0.00564708654f, 0.00355662266f, 0.00220783148f, 0.00135827297f, 0.00083100301f, 0.00050669373f, 0.000308311923f, 0.000187364989f, 0.000113776972f, 6.90587185e-05f, 4.19044554e-05f, 2.54230454e-05f, 1.54223253e-05f, 9.35502158e-06f, 5.67444113e-06f, 3.44184559e-06f, 2.08763004e-06f, 1.26622831e-06f, 7.68012399e-07f, 4.65825337e-07f, 2.82538167e-07f, 1.7136837e-07f, 1.0394028e-07f, 6.30430108e-08f, 3.8237534e-08f, 2.3192241e-08f},
    {1.15924297e-06f, -0.00119907875f, -0.00189285434f, -0.00197354564f, -0.00166589115f, -0.00123891793f, -0.000851909979f, -0.000558021071f, -0.000354736112f, -0.00022140512f, -0.000136647024f, -8.3761799e-05f, -5.1131381e-05f, -3.11338517e-05f, -1.89283419e-05f, -1.14971017e-05f, -6.97941596e-06f, -4.23546498e-06f, -2.56976205e-06f, -1.55894224e-06f, -9.45657632e-07f, -5.73611317e-07f, -3.47927937e-07f, -2.11034518e-07f, -1.28000949e-07f, -7.7637246e-08f, -4.7089646e-08f, -2.85614163e-08f, -1.7323412e-08f, -1.05071942e-08f, -6.3729404e-09f, -3.86538579e-09f},
    {-0.000330008304f, -0.000249828357f, -9.24033593e-05f, 3.98565753e-05f, 0.000100470119f, 0.000105478401f, 8.57166306e-05f, 6.15028184e-05f, 4.1194904e-05f, 2.65133876e-05f, 1.66656901e-05f, 1.03284983e-05f, 6.34676326e-06f, 3.8800199e-06f, 2.36463643e-06f, 1.43838975e-06f, 8.7396279e-07f, 5.30650766e-07f, 3.22064125e-07f, 1.95418394e-07f, 1.18555441e-07f, 7.19178814e-08f, 4.36242189e-08f, 2.646083e-08f, 1.6049821e-08f, 9.73489911e-09f, 5.90458438e-09f, 3.58133723e-09f, 2.1722002e-09f, 1.31750955e-09f, 7.99111222e-10f, 4.84685903e-10f},
    {8.02955856e-06f, 2.70546552e-05f, 3.19988467e-05f, 1.94790573e-05f, 5.47408854e-06f, -2.40891791e-06f, -4.852654e-06f, -4.58713839e-06f, -3.49486277e-06f, -2.40909617e-06f, -1.5741756e-06f, -9.97877009e-07f, -6.21445452e-07f, -3.82965737e-07f, -2.34520357e-07f, -1.43071816e-07f, -8.70829595e-08f, -5.29310817e-08f, -3.21457883e-08f, -1.95126724e-08f, -1.18406511e-08f, -7.18378512e-09f, -4.35794645e-09f, -2.64350808e-09f, -1.60347169e-09f, -9.72592562e-10f, -5.89921167e-10f, -3.57810392e-10f, -2.17024856e-10f, -1.31632927e-10f, -7.98396627e-11f, -4.8425295e-11f},
    {-1.94495331e-09f, -7.00851099e-10f, -7.68299036e-10f, 2.90667623e-09f, -6.41959463e-09f, -1.13347687e-09f, -5.17915599e-10f, 4.27408442e-10f, 7.54083407e-10f, -1.95707187e-10f, 8.98599389e-11f, 1.46279058e-10f, -4.5190976e-11f, 1.62643753e-11f, -2.31151678e-11f, -2.83190259e-11f, 9.91523183e-12f, -4.0842516e-12f, -6.52384369e-14f, 1.98002855e-12f, -1.72237029e-12f, -2.5395628e-13f, -8.49105833e-13f, 3.68743854e-13f, 2.21701807e-13f, -8.73878064e-14f, -6.07456183e-14f, -5.51131982e-14f, 5.9194249e-17f, -1.3204577e-14f, -1.32046727e-14f, -8.25618207e-16f},
};
// clang-format on
#endif
#if HWY_TARGET == HWY_AVX2
// log(1 + e^-a) on the pieces [k - 1, k] of a up to 8, degree 6 in s = a - k
// (fusebox-fit softplusc_x K-1 K 6 f32 K 1 split; relative error at most
// 2^-22.8 in f32, rounding included). Column k - 1, the remainder last.
// clang-format off
alignas(32) constexpr float kSoftplusPieces8[8][8] = {
    {0.313261688f, 0.126928017f, 0.0485873483f, 0.0181499273f, 0.00671534846f, 0.00247568521f, 0.000911466486f, 0.000335406396f},
    {-0.268940508f, -0.119202957f, -0.0474260598f, -0.0179862324f, -0.00669284118f, -0.00247261627f, -0.000911048148f, -0.000335348945f},
    {0.0983206555f, 0.0524961948f, 0.0225853473f, 0.00883100647f, 0.00332418666f, 0.00123336562f, 0.000455159403f, 0.000167637903f},
    {-0.0150547409f, -0.0133316284f, -0.00683288509f, -0.00283987634f, -0.0010922252f, -0.000408391876f, -0.000151137618f, -5.57224048e-05f},
    {-0.00122006936f, 0.00160122919f, 0.0013231663f, 0.000652721152f, 0.000268684671f, 0.00010310622f, 3.85295207e-05f, 1.42564031e-05f},
    {0.00139555451f, 0.000136166171f, -0.000224165167f, -0.000118379554f, -4.62775024e-05f, -1.72042455e-05f, -6.34190565e-06f, -2.33417632e-06f},
    {0.00018519639f, -0.000162164724f, -5.09607089e-05f, 9.20830371e-06f, 1.03640477e-05f, 4.9790151e-06f, 2.00205955e-06f, 7.60229568e-07f},
    {9.12416986e-09f, -5.81867932e-09f, 1.34149414e-09f, 4.32403446e-10f, 1.3391753e-10f, 1.74384389e-12f, -1.17793015e-12f, -1.04591171e-11f},
};
// clang-format on
#endif
// (log(1 + e^y) - ln 2 - y/2) / y^2 in y^2 on [0, 0.7744] (degree 4, 2^-24.8).
constexpr float kSoftplusQ[] = {0.125f, -0.0052083279f, 0.000347166206f, -2.61460027e-05f, 1.82149006e-06f};
// log(1 + e^x) in f32 lanes, for beta = 1 (beta x rounded would be amplified
// in e^(beta x), so other betas take the f64 lanes below): max(x, 0) +
// log(1 + e^-|x|), the second term from the pieces above (AVX-512: up to
// |x| = 15.75; AVX2: up to 8, kLinear). Beyond them, t - t^2/2 + t^3/3 with t
// = e^-|x| <= 2^-11.5 (the next term is below 2^-35 of it): a branch taken
// only by vectors holding such lanes. Without a permute: |x| < 0.88 ln 2 +
// x/2 + x^2 Q(x^2); above, max(x, 0) + log1p(t), t = e^-|x| <= 0.415 kept
// as m 2^k plus m's rounding error, log1p(t) = t + t^2 P(t) + t_lo / (1 +
// t).
struct softplus32 {
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x) {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16)
            return from_pieces(df, x, 15.75f, [&](auto a) { return pieces32(df, a, kSoftplusPieces, 2.0f); });
#endif
#if HWY_TARGET == HWY_AVX2
        if constexpr (hn::MaxLanes(DF()) == 8)
            return from_pieces(df, x, 8.0f, [&](auto a) { return pieces_avx2<true>(df, a, kSoftplusPieces8); });
#endif
        const auto one = hn::Set(df, 1.0f);
        const auto a = hn::Abs(x), x2 = hn::Mul(x, x);
        const auto near = hn::Add(hn::Set(df, 0.693147182f),
                                  hn::MulAdd(x, hn::Set(df, 0.5f), hn::Mul(x2, horner(df, x2, kSoftplusQ))));
        const auto small = hn::Lt(a, hn::Set(df, 0.88f));
        const auto softplus = [&](const auto &e) {
            const auto t = e.value(df);
            const auto t_lo = e.pow2_times(df, hn::Sub(e.p, hn::Sub(e.m, one)));
            const auto l =
                hn::Add(t, hn::MulAdd(hn::Mul(t, t), horner(df, t, kLog1pP), hn::Mul(t_lo, hn::Sub(one, t))));
            return hn::IfThenElse(small, near, hn::Add(hn::Max(x, hn::Zero(df)), l));
        };
        return with_exp32(df, hn::Neg(a), softplus);
    }
    template <class DF, class Pieces>
    static hn::Vec<DF> from_pieces(DF df, hn::Vec<DF> x, float end, const Pieces &pieces) {
        const auto a = hn::Abs(x), pos = hn::Max(x, hn::Zero(df)); // (NaN: through the pieces' s)
        return unless_far(df, hn::Gt(a, hn::Set(df, end)), hn::Add(pos, pieces(a)), [&] {
            return hn::Add(pos, with_exp32(df, hn::Neg(a), [&](const auto &e) {
                               const auto t = e.value(df);
                               return hn::MulAdd(hn::Mul(t, t),
                                                 hn::MulAdd(t, hn::Set(df, 1.0f / 3), hn::Set(df, -0.5f)), t);
                           }));
        });
    }
};

// ---- f64 lanes, for the functions whose f32 forms would lose too much.

// log(1 + e^(beta x)) / beta: for beta = 1 in f32 lanes (softplus32), else
// in f64 lanes (beta x is exact there); `inv_beta` is 1 / beta.
struct softplus_fn {
    static constexpr ew_fn fn = ew_fn::softplus;
    static bool f32_for(double beta, double) { return beta == 1.0; }
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
        return softplus32::f32(df, x);
    }
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD> beta, hn::Vec<DD> inv_beta) {
        return hn::Mul(log1p_exp64(dd, hn::Mul(beta, x)), inv_beta);
    }
};
#if HWY_TARGET <= HWY_AVX3
// 1 / (1 + e^w(a)), w = 2 sqrt(2/pi) (a + 0.044715 a^3) (tanh GELU's 1 -
// GELU(a) / a), on 32 graded pieces of a up to 8, where 7a/8 + 25a^3/512
// is in [k, k + 1] (widths 1.07 down to 0.10: each spans a factor of at most
// e^1.6 of the function, where pieces of width 1/4 span up to e^3.7),
// degree 6 in s = a - kGeluTanhGradedAt[k] (fusebox-fit gelutc_x graded
// 0.875 0.048828125 2 32 6; relative error at most 2^-21.2 in f32, rounding
// included).
// clang-format off
alignas(64) constexpr float kGeluTanhGradedAt[32] = {
    0.536865234f, 1.90185547f, 2.52758789f, 3.02587891f, 3.44091797f, 3.79858398f, 4.11425781f, 4.39770508f,
    4.65551758f, 4.89282227f, 5.11303711f, 5.31884766f, 5.51220703f, 5.69482422f, 5.86791992f, 6.03295898f,
    6.19067383f, 6.34155273f, 6.48632812f, 6.62573242f, 6.76025391f, 6.89013672f, 7.01586914f, 7.13769531f,
    7.25585938f, 7.37060547f, 7.48242188f, 7.59106445f, 7.69702148f, 7.80053711f, 7.90136719f, 8.0f
};
alignas(64) constexpr float kGeluTanhGraded[8][32] = {
    {0.295721829f, 0.0285875481f, 0.00556496251f, 0.00110647012f, 0.000225285039f, 4.66556849e-05f, 9.78416938e-06f,
     2.07301446e-06f, 4.43289053e-07f, 9.5341548e-08f, 2.06141468e-08f, 4.47625315e-09f, 9.76458581e-10f,
     2.13780299e-10f, 4.69998797e-11f, 1.03375312e-11f, 2.2771186e-12f, 5.03553579e-13f, 1.11683578e-13f,
     2.47922393e-14f, 5.50611819e-15f, 1.2255491e-15f, 2.7295065e-16f, 6.0874319e-17f, 1.3600607e-17f,
     3.04427881e-18f, 6.8022324e-19f, 1.52627709e-19f, 3.42462823e-20f, 7.67420448e-21f, 1.72729004e-21f,
     3.88472975e-22f},
    {-0.345200956f, -0.0658160746f, -0.0163993202f, -0.00392997172f, -0.000930280366f, -0.000218550718f,
     -5.10654681e-05f, -1.18901671e-05f, -2.7640483e-06f, -6.40728217e-07f, -1.48257129e-07f, -3.42504443e-08f,
     -7.90920218e-09f, -1.82525073e-09f, -4.21420066e-10f, -9.70367259e-11f, -2.23146276e-11f, -5.13838755e-12f,
     -1.18404668e-12f, -2.72542839e-13f, -6.26514831e-14f, -1.44100498e-14f, -3.31151872e-15f, -7.61013522e-16f,
     -1.74978055e-16f, -4.02597506e-17f, -9.2375825e-18f, -2.12622248e-18f, -4.88952302e-19f, -1.12203909e-19f,
     -2.58399753e-20f, -5.94191501e-21f},
    {0.0929429457f, 0.0622505248f, 0.02103105f, 0.00625503855f, 0.00175434409f, 0.000473938708f, 0.00012465367f,
     3.2152373e-05f, 8.17719592e-06f, 2.05359424e-06f, 5.10714187e-07f, 1.25978573e-07f, 3.08903516e-08f,
     7.53416529e-09f, 1.83098359e-09f, 4.42265724e-10f, 1.06365264e-10f, 2.55447608e-11f, 6.12426819e-12f,
     1.46356896e-12f, 3.48643206e-13f, 8.29508174e-14f, 1.96883796e-14f, 4.66631806e-15f, 1.10505443e-15f,
     2.61549348e-16f, 6.166918e-17f, 1.45700338e-17f, 3.43600218e-18f, 8.07912629e-19f, 1.9046675e-19f,
     4.48024963e-20f},
    {0.0407862291f, -0.0279077608f, -0.014854813f, -0.00577233778f, -0.00197319593f, -0.000624467095f,
     -0.000187325626f, -5.40453402e-05f, -1.51497625e-05f, -4.14597525e-06f, -1.11337772e-06f, -2.94366686e-07f,
     -7.68895347e-08f, -1.98740082e-08f, -5.0960498e-09f, -1.29380562e-09f, -3.25966837e-10f, -8.17744622e-11f,
     -2.04273248e-11f, -5.0746872e-12f, -1.25403312e-12f, -3.08950619e-13f, -7.58018052e-14f, -1.85432368e-14f,
     -4.52631495e-15f, -1.1028783e-15f, -2.67354568e-16f, -6.48821877e-17f, -1.57003761e-17f, -3.7840713e-18f,
     -9.13822612e-19f, -2.19991786e-19f},
    {-0.0212501828f, 0.00364596327f, 0.00551316561f, 0.00321947434f, 0.00143223547f, 0.000553093269f,
     0.000194830136f, 6.42848245e-05f, 2.02075789e-05f, 6.11107043e-06f, 1.79258109e-06f, 5.12920849e-07f,
     1.43866714e-07f, 3.96753279e-08f, 1.07924256e-08f, 2.89545299e-09f, 7.68076935e-10f, 2.02064407e-10f,
     5.27540268e-11f, 1.36645383e-11f, 3.51384156e-12f, 8.98693826e-13f, 2.28528351e-13f, 5.78380456e-14f,
     1.45798341e-14f, 3.66234049e-15f, 9.15042705e-16f, 2.2830574e-16f, 5.6755125e-17f, 1.40501921e-17f,
     3.47659338e-18f, 8.5732659e-19f},
    {-0.00372429262f, 0.00377103058f, -0.00100873259f, -0.00117769022f, -0.000690710149f, -0.000319992891f,
     -0.000128856846f, -4.72214087e-05f, -1.61955886e-05f, -5.27531893e-06f, -1.65142626e-06f, -5.00675753e-07f,
     -1.48093918e-07f, -4.28954223e-08f, -1.2231073e-08f, -3.41951623e-09f, -9.41507872e-10f, -2.57146499e-10f,
     -6.96744468e-11f, -1.86730596e-11f, -4.95124124e-12f, -1.3054333e-12f, -3.41329639e-13f, -8.87362219e-14f,
     -2.29776677e-14f, -5.93160021e-15f, -1.51381294e-15f, -3.87844158e-16f, -9.87621094e-17f, -2.49222901e-17f,
     -6.3268001e-18f, -1.59489718e-18f},
    {0.00308317225f, -0.000745167723f, -0.000914827047f, -0.000110511952f, 0.000158152339f, 0.00016061202f,
     9.94982547e-05f, 4.93772277e-05f, 2.13636104e-05f, 8.40221219e-06f, 3.07922892e-06f, 1.06865252e-06f,
     3.55167202e-07f, 1.13955807e-07f, 3.55108973e-08f, 1.07971783e-08f, 3.21476179e-09f, 9.39995415e-10f,
     2.7055283e-10f, 7.67993655e-11f, 2.15343524e-11f, 5.97246254e-12f, 1.64026117e-12f, 4.4650858e-13f,
     1.20577132e-13f, 3.23244849e-14f, 8.60801637e-15f, 2.27834372e-15f, 5.99641675e-16f, 1.57003168e-16f,
     4.09106392e-17f, 1.06126751e-17f},
    {-3.76812093e-09f, -5.10112008e-10f, 5.7124451e-11f, -1.37584701e-11f, -1.42701389e-12f, 1.50656831e-12f,
     -2.23416609e-13f, -4.65150481e-14f, -7.03174015e-15f, 1.08943578e-15f, -5.98270011e-16f, 1.69342149e-16f,
     5.44332389e-17f, -4.76780205e-18f, -3.60529565e-19f, 8.65772853e-20f, 8.42732335e-21f, -6.75117391e-21f,
     -2.30694715e-21f, -2.14148145e-22f, 1.31569112e-22f, -3.95626776e-23f, 1.28501513e-23f, -6.92821379e-25f,
     -7.10146577e-26f, 4.261796e-27f, 2.20175639e-26f, -6.43815963e-27f, 1.61595137e-29f, -2.33420037e-28f,
     -3.03225241e-29f, -1.23163024e-29f},
};
// clang-format on
#endif
// x sigmoid(2z), z = sqrt(2/pi) (x + 0.044715 x^3): 0.5 x (1 + tanh z)
// without cancellation (z's rounding, amplified up to 14 times in the result,
// is why this one stays in f64); -0 at -inf.
struct gelu_tanh64_fn {
    static constexpr ew_fn fn = ew_fn::gelu_tanh;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD>, hn::Vec<DD>) {
        const auto z2 = hn::Mul(hn::Set(dd, 2 * 0.79788456080286535587989211986876373695),
                                hn::Add(x, hn::Mul(hn::Mul(hn::Set(dd, 0.044715), x), hn::Mul(x, x))));
        const auto r = hn::Mul(x, sigmoid64(dd, z2));
        return hn::IfThenElse(hn::Eq(x, hn::Set(dd, -HUGE_VAL)), hn::Set(dd, -0.0), r);
    }
};
#if HWY_TARGET <= HWY_AVX2
// The same in f32 lanes (with FMA). With AVX-512, x - a h above zero and x h
// below, h = 1 / (1 + e^w(a)) from the graded pieces above (a = |x| up to 8;
// beyond, vectors holding such lanes, as elsewhere). Elsewhere (exp_form)
// w = 2z = A x + B x^3 (A = 2 sqrt(2/pi),
// B = 0.044715 A, each as hi + lo) kept as w + w_lo: x^2, B x^2 and A + B x^2
// with their exact errors (FMA; Fast2Sum, the larger term found by Max). The
// sigmoid of w + w_lo as sigmoid32_fn's, without its quotient's correction
// (4 ulp, not 1); |w| > 80 (|x| > 9.67; inf; a vector of them takes a
// branch): x above, x e^(w + w_lo) below, e^w's scale last so that subnormal
// results round once (-0 from x = -10.75 down).
struct gelu_tanh32_fn {
    static constexpr ew_fn fn = ew_fn::gelu_tanh;
    static constexpr bool kF32 = true;
    // w + w_lo (for |x| up to 20; inf or NaN for |x| from 1.8e19 on).
    template <class DF> static void two_z(DF df, hn::Vec<DF> x, hn::Vec<DF> &w, hn::Vec<DF> &w_lo) {
        const auto a_hi = hn::Set(df, 1.59576917f), b_hi = hn::Set(df, 0.0713548139f);
        const auto x2 = hn::Mul(x, x), x2_lo = hn::MulSub(x, x, x2);
        const auto p = hn::Mul(b_hi, x2), p_lo = hn::MulAdd(b_hi, x2_lo, hn::MulSub(b_hi, x2, p));
        const auto q = hn::Add(a_hi, p), q_err = hn::Sub(hn::Min(a_hi, p), hn::Sub(q, hn::Max(a_hi, p)));
        const auto q_lo =
            hn::Add(hn::Add(p_lo, q_err), hn::MulAdd(hn::Set(df, 2.39883247e-09f), x2, hn::Set(df, -4.53406805e-08f)));
        w = hn::Mul(x, q), w_lo = hn::MulAdd(x, q_lo, hn::MulSub(x, q, w));
    }
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x, hn::Vec<DF>, hn::Vec<DF>) {
#if HWY_TARGET <= HWY_AVX3
        if constexpr (hn::MaxLanes(DF()) == 16) {
            const auto a = hn::Abs(x);
            const auto h = graded_pieces32<2>(df, a, 0.875f, 0.048828125f, kGeluTanhGradedAt, kGeluTanhGraded);
            return unless_far(df, hn::Gt(a, hn::Set(df, 8.0f)), gelu_from<DF>(x, a, h),
                              [&] { return exp_form(df, x); });
        }
#endif
        return exp_form(df, x);
    }
    template <class DF> static hn::Vec<DF> exp_form(DF df, hn::Vec<DF> x) {
        hn::Vec<DF> w, w_lo;
        two_z(df, x, w, w_lo);
        // sigmoid(w + w_lo) = num / (c + m): e^-|w| = m 2^k with the factor
        // 1 -+ w_lo, c = 2^-k.
        const auto neg = hn::Lt(w, hn::Zero(df));
        const exp32_parts<DF, exp_range::near> e(df, hn::Or(w, hn::SignBit(df)));
        const auto m = hn::MulAdd(hn::IfThenElse(neg, w_lo, hn::Neg(w_lo)), e.m, e.m);
        const auto c = e.template pow2<-1>(df);
        const auto num = hn::IfThenElse(neg, m, c), d = hn::Add(c, m);
#if HWY_TARGET <= HWY_AVX3
        const auto r = hn::Mul(x, hn::Mul(num, recip32(df, d)));
#else
        const auto r = hn::Mul(x, hn::Div(num, d));
#endif
        return unless_far(df, hn::Gt(hn::Abs(w), hn::Set(df, 80.0f)), r, [&] {
            // (-0 below x = -20, where x^2 and w may be infinite.)
            const auto tail = hn::IfThenElse(hn::Lt(x, hn::Set(df, -20.0f)), hn::Set(df, -0.0f),
                                             exp32_parts<DF>(df, w).times(df, hn::MulAdd(x, w_lo, x)));
            return hn::IfThenElse(hn::Lt(w, hn::Zero(df)), tail, x);
        });
    }
};
#endif

// Whether F computes in f32 lanes (kF32) rather than f64 ones, or has both
// and picks by its constants (kEither: F::f32_for(p0, p1)).
template <class F, class = void> constexpr bool kF32 = false;
template <class F> constexpr bool kF32<F, std::void_t<decltype(F::kF32)>> = F::kF32;
template <class F, class = void> constexpr bool kEither = false;
template <class F> constexpr bool kEither<F, std::void_t<decltype(F::f32_for(0.0, 0.0))>> = true;

// F over one f32 vector: in f32 lanes (`f32`, constants as f32), or each half
// widened to f64; NaN passed through.
template <class F, class DF>
HWY_INLINE hn::Vec<DF> math_f32(DF df, hn::Vec<DF> x, bool f32, hn::Vec<f64_of<hn::Half<DF>>> p0,
                                hn::Vec<f64_of<hn::Half<DF>>> p1) {
    // NaN lanes are put back (the functions' clamps would replace them; no
    // function converts floats to integers, so NaN is defined throughout).
    const auto nan = hn::IsNaN(x);
    if constexpr (kF32<F> || kEither<F>) {
        if (kF32<F> || f32)
            return hn::IfThenElse(nan, x,
                                  F::f32(df, x, hn::Set(df, static_cast<float>(hn::GetLane(p0))),
                                         hn::Set(df, static_cast<float>(hn::GetLane(p1)))));
    }
    if constexpr (!kF32<F>) {
        const hn::Half<DF> dh;
        const f64_of<decltype(dh)> dd;
        const auto lo = F::f64(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)), p0, p1);
        const auto hi = F::f64(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)), p0, p1);
        return hn::IfThenElse(nan, x, hn::Combine(df, demote_f32(dh, hi), demote_f32(dh, lo)));
    } else {
        return x; // (not reached)
    }
}

// out = F(x; constants) for f32, or f16/bf16 through IO (computed in f32, rounded
// once): whole vectors only, the elements before an aligned streaming store and
// after the last whole vector through a padded vector, so that every element
// gets the same bits wherever it falls.
template <class F, class IO>
void math_loop(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    using S = typename IO::storage;
    const S *x = static_cast<const S *>(in[0]);
    S *out = static_cast<S *>(out_);
    const hn::ScalableTag<float> df;
    const f64_of<hn::Half<decltype(df)>> dd;
    constexpr int kParams = math_param_count(F::fn);
    // The constants; a function of one constant gets its reciprocal second.
    const double c0 = kParams > 0 ? *static_cast<const float *>(in[1]) : 0.0;
    const auto p0 = hn::Set(dd, c0);
    const auto p1 = hn::Set(dd, kParams > 1 ? *static_cast<const float *>(in[2]) : kParams == 1 ? 1.0 / c0 : 0.0);
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    bool f32 = false;
    if constexpr (kEither<F>) f32 = F::f32_for(c0, hn::GetLane(p1));
    auto body = [&](hn::Vec<decltype(df)> v) { return math_f32<F>(df, v, f32, p0, p1); };
    HWY_ALIGN float buf[hn::MaxLanes(df)];
    auto narrow_store = [&](hn::Vec<decltype(df)> v, S *to, bool nt) {
        if constexpr (std::is_same_v<IO, f32_io>) {
            nt ? hn::Stream(v, df, to) : hn::StoreU(v, df, to);
        } else {
            const typename IO::template narrow_tag<decltype(df)> dn;
            const auto h = IO::narrow(df, v);
            nt ? hn::Stream(h, dn, to) : hn::StoreU(h, dn, to);
        }
    };
    // Elements [i, i + k) (k < lanes) through the padded vector.
    auto partial = [&](int64_t i, int64_t k) {
        for (int64_t j = 0; j < lanes; ++j) buf[j] = j < k ? IO::to_f32(x[i + j]) : 0.0f;
        hn::Store(body(hn::Load(df, buf)), df, buf);
        for (int64_t j = 0; j < k; ++j) out[i + j] = IO::from_f32(buf[j]);
    };
    if (st[0] == 0) { // one value
        hn::Store(body(hn::Set(df, IO::to_f32(x[0]))), df, buf);
        const S v = IO::from_f32(buf[0]);
        for (int64_t i = 0; i < n; ++i) out[i] = v;
        return;
    }
    int64_t i = 0;
    const bool nt = stream && lanes * sizeof(S) >= 16;
    if (nt) {
        const int64_t head = head_elements(out, lanes * sizeof(S), n);
        if (head) partial(0, head);
        i = head;
    }
    // Two vectors per step: their dependency chains overlap.
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
        if (nt) prefetch_ahead(x, 1, i, 2 * lanes);
        const auto a = body(IO::load(df, x + i)), b = body(IO::load(df, x + i + lanes));
        narrow_store(a, out + i, nt);
        narrow_store(b, out + i + lanes, nt);
    }
    for (; i + lanes <= n; i += lanes) narrow_store(body(IO::load(df, x + i)), out + i, nt);
    if (i < n) partial(i, n - i);
}
#endif

#if HWY_TARGET != HWY_SCALAR
// A linear chain of f32 nodes in registers, kU vectors per pass (linear_fn,
// through linear_loop below): v = in[first], then each step v = fn(v, x),
// fn(x, v) or fn(v). F is the one function of the chain's own (void: none);
// the others are the cheap ones below. Every element takes the vector path
// (the ends through a padded vector, as math_loop), and each step gives the
// bits of its node's own loop.
template <class F, int kU>
void linear_passes(const void *const *in, const int64_t *strides, int first, const linear_step *steps, int64_t count,
                   void *out_, int64_t n, bool stream, int64_t rows, const int64_t *row_strides,
                   int64_t out_row_stride) {
    using V = hn::Vec<hn::ScalableTag<float>>;
    const hn::ScalableTag<float> df;
    constexpr int64_t lanes = static_cast<int64_t>(hn::MaxLanes(df)); // (x86: all of them)
    float *out = nullptr;                                             // the row's
    const f64_of<hn::Half<decltype(df)>> dd;
    const auto p0 = hn::Set(dd, 0.0), p1 = hn::Set(dd, 0.0); // (F has no constants)
    // The steps as the loop runs them: one code per operation, each step one
    // branch on it, and the side the value is on (its node's operand order:
    // which NaN payload wins is the node's).
    enum op_t : uint8_t { add, sub, mul, div, max, min, relu, own };
    struct op_step {
        op_t op;
        bool left;
        uint8_t arg;
    } prog[kMaxLinearSteps];
    for (int64_t k = 0; k < count; ++k) {
        const linear_step st = steps[k];
        op_t op = relu;
        switch (st.fn) {
        case ew_fn::add: op = add; break;
        case ew_fn::subtract: op = sub; break;
        case ew_fn::multiply: op = mul; break;
        case ew_fn::divide: op = div; break;
        case ew_fn::maximum: op = max; break;
        case ew_fn::minimum: op = min; break;
        default: op = st.form == linear_step::unary && st.fn != ew_fn::relu ? own : relu; break;
        }
        prog[k] = {op, st.form == linear_step::left, static_cast<uint8_t>(st.arg)};
    }
    // Operands read along the output, and the others' one value (per row)
    // in a vector.
    const float *x[kMaxLinearOperands];
    bool along[kMaxLinearOperands];
    V value[kMaxLinearOperands];
    for (int m = 0; m < kMaxLinearOperands; ++m) along[m] = in[m] && strides[m];
    const int64_t first_mask = along[first] ? ~int64_t{0} : 0;
    // The first value without a branch (measured: S3 10 % faster in L2): a
    // broadcast one from kU vectors of it.
    HWY_ALIGN float first_value[kU * hn::MaxLanes(df)];
    // v = the chain over kU vectors, those of the operands along the output
    // from element i of from[].
    auto eval = [&](const float *const *from, int64_t i, V(&v)[kU]) __attribute__((always_inline)) {
        const float *const f = (along[first] ? from[first] : first_value) + (i & first_mask);
        for (int u = 0; u < kU; ++u) v[u] = hn::LoadU(df, f + u * lanes);
        for (int64_t k = 0; k < count; ++k) {
            const op_step st = prog[k];
            auto run = [&](auto fn) __attribute__((always_inline)) {
                if (!along[st.arg]) {
                    for (int u = 0; u < kU; ++u) v[u] = fn(v[u], value[st.arg]);
                    return;
                }
                const float *const o = from[st.arg] + i;
                for (int u = 0; u < kU; ++u) v[u] = fn(v[u], hn::LoadU(df, o + u * lanes));
            };
            auto apply = [&](auto fn) __attribute__((always_inline)) {
                if (st.left)
                    run(fn);
                else
                    run([&](V a, V b) { return fn(b, a); });
            };
            if constexpr (!std::is_void_v<F>) { // (outside the switch: its temporaries keep v in registers)
                if (st.op == own) {
                    for (int u = 0; u < kU; ++u) v[u] = math_f32<F>(df, v[u], true, p0, p1);
                    continue;
                }
            }
            switch (st.op) {
            case add: apply([](V a, V b) { return add_fn::vec(a, b); }); break;
            case sub: apply([](V a, V b) { return subtract_fn::vec(a, b); }); break;
            case mul: apply([](V a, V b) { return multiply_fn::vec(a, b); }); break;
            case div: apply([](V a, V b) { return divide_fn::vec(a, b); }); break;
            case max: apply([](V a, V b) { return maximum_fn::vec(a, b); }); break;
            case min: apply([](V a, V b) { return minimum_fn::vec(a, b); }); break;
            default: // (relu; own above)
                for (int u = 0; u < kU; ++u) v[u] = relu_fn::vec(v[u], v[u], v[u]);
                break;
            }
        }
    };
    HWY_ALIGN float buf[kMaxLinearOperands][kU * hn::MaxLanes(df)];
    HWY_ALIGN float res[kU * hn::MaxLanes(df)];
    // Elements [i, i + k) (k < kU vectors of lanes) through padded vectors.
    auto partial = [&](int64_t i, int64_t k) {
        const float *padded[kMaxLinearOperands] = {};
        for (int m = 0; m < kMaxLinearOperands; ++m) {
            if (!along[m]) continue;
            for (int64_t j = 0; j < kU * lanes; ++j) buf[m][j] = x[m][j < k ? i + j : i];
            padded[m] = buf[m];
        }
        V v[kU];
        eval(padded, 0, v);
        for (int u = 0; u < kU; ++u) hn::Store(v[u], df, res + u * lanes);
        for (int64_t j = 0; j < k; ++j) out[i + j] = res[j];
    };
    // Row by row: a call per row cost S7's LayerNorm tail (rows of 3072,
    // mean and deviation per row) a third of its time from memory at one
    // thread in setting up the steps.
    for (int64_t r = 0; r < rows; ++r) {
        for (int m = 0; m < kMaxLinearOperands; ++m) {
            x[m] = in[m] ? static_cast<const float *>(in[m]) + r * row_strides[m] : nullptr;
            value[m] = hn::Set(df, x[m] && !along[m] ? x[m][0] : 0.0f);
        }
        if (!along[first])
            for (int u = 0; u < kU; ++u) hn::Store(value[first], df, first_value + u * lanes);
        out = static_cast<float *>(out_) + r * out_row_stride;
        int64_t i = 0;
        if (stream) {
            i = head_elements(out, lanes * sizeof(float), n);
            if (i) partial(0, i);
        }
        // The operands read along the output, for the prefetches: not those
        // every row reads again (S7's gamma and beta, in cache after the first
        // row). S7 at two threads, old and new library in turn (Zen 5): 2.95 -
        // 3.45 -> 2.72 - 2.80 ms. (Non-temporal prefetches of the others, so
        // that their lines leave L1 first: 2.62 - 2.77, not clearly better,
        // and S4 under noise of 6 - 10 ms could not tell.)
        const float *streamed[kMaxLinearOperands];
        int n_streamed = 0;
        for (int m = 0; m < kMaxLinearOperands; ++m)
            if (along[m] && (rows == 1 || row_strides[m])) streamed[n_streamed++] = x[m];
        for (; i + kU * lanes <= n; i += kU * lanes) {
            if (stream)
                for (int m = 0; m < n_streamed; ++m) prefetch_ahead(streamed[m], 1, i, kU * lanes);
            V v[kU];
            eval(x, i, v);
            for (int u = 0; u < kU; ++u)
                stream ? hn::Stream(v[u], df, out + i + u * lanes) : hn::StoreU(v[u], df, out + i + u * lanes);
        }
        if (i < n) partial(i, n - i);
    }
}

// kU, the vectors per pass through the steps: each step's dispatch and
// constants serve them all, and their dependency chains overlap. Four (in
// L2, one thread: S1's exact GELU 1.6x faster than with two on AVX-512,
// 1.25x on AVX2), but two where the function's temporaries do not fit four
// times (measured 4 - 5 % slower): Sigmoid, and GELU in AVX2's 16
// registers. Chains of the cheap steps alone take eight in AVX-512's 32
// registers when they do not stream (S7's LayerNorm tail and S8's Add +
// ReLU in L2, one thread, 1.2x faster; streaming from memory, S8 at two
// threads 0.89 -> 0.83 of the roof), and two when they stream with one or
// two steps (S8 from memory, two threads, 5.3 - 6.0 -> 5.0 - 5.4 ms; S7's
// four steps lose with two, 1.2x slower capped to AVX2).
template <class F>
void linear_loop(const void *const *in, const int64_t *strides, int first, const linear_step *steps, int64_t count,
                 void *out, int64_t n, bool stream, int64_t rows, const int64_t *row_strides, int64_t out_row_stride) {
    constexpr int kU =
        std::is_same_v<F, sigmoid32_fn> || (HWY_TARGET > HWY_AVX3 && std::is_same_v<F, gelu_erf32_fn>) ? 2 : 4;
    if constexpr (std::is_void_v<F> && HWY_TARGET <= HWY_AVX3) {
        if (!stream)
            return linear_passes<F, 8>(in, strides, first, steps, count, out, n, stream, rows, row_strides,
                                       out_row_stride);
        if (count <= 2)
            return linear_passes<F, 2>(in, strides, first, steps, count, out, n, stream, rows, row_strides,
                                       out_row_stride);
    }
    linear_passes<F, kU>(in, strides, first, steps, count, out, n, stream, rows, row_strides, out_row_stride);
}
#endif

// The loops of the transcendental functions: the vector ones above for f32
// (and f16/bf16 where F16C converts them exactly), the scalar ones compiled
// once elsewhere.
template <class F> void set_math(element_ops &o) {
    auto &t = o.nary[static_cast<int>(F::fn)];
    for (data_type d : {data_type::f16, data_type::bf16, data_type::f32, data_type::f64})
        t[dtype_index(d)] = scalar_math_loop(F::fn, d);
#if HWY_TARGET != HWY_SCALAR
    t[dtype_index(data_type::f32)] = math_loop<F, f32_io>;
    t[dtype_index(data_type::bf16)] = math_loop<F, bf16_io>;
    if constexpr (kVectorF16) t[dtype_index(data_type::f16)] = math_loop<F, f16_io>;
    if constexpr (math_param_count(F::fn) == 0 && kF32<F>) o.linear[static_cast<int>(F::fn)] = linear_loop<F>;
#endif
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

#if HWY_TARGET != HWY_SCALAR
// Casts on vectors, for the pairs whose result is one conversion of a value
// that f32 holds exactly: the input (f32, f16, bf16, boolean, the 8- and
// 16-bit integers, s32 into f32 and boolean) is read into f32 lanes without
// rounding, then written with the output's one conversion (f16 and bf16 to
// nearest even; from floats and boolean, s32 and, from floats, the 8- and
// 16-bit integers toward zero and saturated with NaN -> 0; boolean x != 0
// with NaN true). Between two integer types the casts are cast_integer's.
// The elements before an aligned streaming store and after the last whole
// vector take the pair's scalar loop (scalar_math.cpp), the same conversion
// element by element. The f64-lane and integer casts below complete the
// set; a pair none of them covers keeps that loop.

// 8-, 16- and 32-bit integers as f32 lanes (exact but for s32 into f32,
// which rounds there once, as the cast does).
template <typename I> struct int_in {
    using storage = I;
    template <class D> static auto load(D df, const I *p) {
        const hn::Rebind<int32_t, D> di;
        if constexpr (sizeof(I) == 4)
            return hn::ConvertTo(df, hn::LoadU(di, p));
        else
            return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(hn::Rebind<I, D>(), p)));
    }
};
// Boolean bytes as 0.0 / 1.0 lanes (any nonzero byte is true).
struct bool_in {
    using storage = uint8_t;
    template <class D> static auto load(D df, const uint8_t *p) {
        const hn::Rebind<int32_t, D> di;
        const auto zero = hn::Eq(hn::PromoteTo(di, hn::LoadU(hn::Rebind<uint8_t, D>(), p)), hn::Zero(di));
        return hn::IfThenZeroElse(hn::RebindMask(df, zero), hn::Set(df, 1.0f));
    }
};

struct f32_out {
    using storage = float;
    template <class D> static void store(D df, hn::Vec<D> v, float *p, bool nt) {
        nt ? hn::Stream(v, df, p) : hn::StoreU(v, df, p);
    }
};
template <class IO> struct half_out {
    using storage = uint16_t;
    template <class D> static void store(D df, hn::Vec<D> v, uint16_t *p, bool nt) {
        const typename IO::template narrow_tag<D> dn;
        const auto h = IO::narrow(df, v);
        nt ? hn::Stream(h, dn, p) : hn::StoreU(h, dn, p);
    }
};
// Toward zero, saturated, NaN -> 0, into the signed integer as wide as the
// lanes (s32 from f32, s64 from f64): NaN lanes zeroed and the rest clamped
// into the range ConvertTo truncates exactly on every target (up to the
// largest float below 2^(bits-1): 2^31 - 128, 2^63 - 1024), then the lanes
// at or above 2^(bits-1) set to the maximum.
template <typename I> struct saturated_out {
    using storage = I;
    template <class D> static void store(D d, hn::Vec<D> v, I *p, bool nt) {
        using F = hn::TFromD<D>;
        static_assert(sizeof(F) == sizeof(I), "lanes as wide as the integer");
        const hn::Rebind<I, D> di;
        constexpr F kLimit = static_cast<F>(std::numeric_limits<I>::max()); // 2^(bits-1), exactly
        constexpr F kBelow = kLimit - kLimit * std::numeric_limits<F>::epsilon() / 2;
        const auto x = hn::IfThenZeroElse(hn::IsNaN(v), v);
        const auto in_range = hn::Min(hn::Max(x, hn::Set(d, -kLimit)), hn::Set(d, kBelow));
        const auto big = hn::RebindMask(di, hn::Ge(x, hn::Set(d, kLimit)));
        const auto t = hn::IfThenElse(big, hn::Set(di, std::numeric_limits<I>::max()), hn::ConvertTo(di, in_range));
        nt ? hn::Stream(t, di, p) : hn::StoreU(t, di, p);
    }
};
// The same into the 8- and 16-bit integers, for float inputs (integer ones
// wrap instead): clamped to the type's range, exact in f32, then truncated.
template <typename I> struct small_int_out {
    using storage = I;
    template <class D> static void store(D df, hn::Vec<D> v, I *p, bool nt) {
        const hn::Rebind<int32_t, D> di;
        const hn::Rebind<I, D> dn;
        const auto x = hn::IfThenZeroElse(hn::IsNaN(v), v);
        const auto lo = hn::Set(df, static_cast<float>(std::numeric_limits<I>::lowest()));
        const auto hi = hn::Set(df, static_cast<float>(std::numeric_limits<I>::max()));
        const auto t = hn::DemoteTo(dn, hn::ConvertTo(di, hn::Min(hn::Max(x, lo), hi)));
        nt ? hn::Stream(t, dn, p) : hn::StoreU(t, dn, p);
    }
};
// x != 0: NaN is true, -0 false.
struct bool_out {
    using storage = uint8_t;
    template <class D> static void store(D df, hn::Vec<D> v, uint8_t *p, bool nt) {
        const hn::Rebind<int32_t, D> di;
        const hn::Rebind<uint8_t, D> d8;
        const auto zero = hn::RebindMask(di, hn::Eq(v, hn::Zero(df)));
        const auto b = hn::DemoteTo(d8, hn::IfThenZeroElse(zero, hn::Set(di, 1)));
        nt ? hn::Stream(b, d8, p) : hn::StoreU(b, d8, p);
    }
};

// The loop of every vector cast: whole vectors of D's lanes through
// `step(x, out, nt)` (false: that vector goes one by one instead), the
// elements before an aligned streaming store and after the last whole vector
// through the pair's scalar loop, one value (stride 0) through it too.
template <class SI, class SO, class D, class Step>
HWY_INLINE void cast_loop(D d, nary_fn scalar, const void *const *in, const int64_t *st, void *out_, int64_t n,
                          bool stream, Step step) {
    if (st[0] != 1) return scalar(in, st, out_, n, stream);
    const SI *x = static_cast<const SI *>(in[0]);
    SO *out = static_cast<SO *>(out_);
    auto one_by_one = [&](int64_t i, int64_t count) {
        const void *at[] = {x + i};
        const int64_t unit[] = {1};
        scalar(at, unit, out + i, count, false);
    };
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    // Highway streams vectors narrower than 16 bytes as 16 bytes: those store normally.
    const bool nt = stream && lanes * static_cast<int64_t>(sizeof(SO)) >= 16;
    int64_t i = 0;
    if (nt) {
        i = head_elements(out, static_cast<size_t>(lanes) * sizeof(SO), n);
        if (i) one_by_one(0, i);
    }
    for (; i + lanes <= n; i += lanes) {
        if (nt) prefetch_ahead(x, 1, i, lanes);
        if (!step(x + i, out + i, nt)) one_by_one(i, lanes);
    }
    if (i < n) one_by_one(i, n - i);
}

// F into T in lanes of `Lane` (float or double): In reads, Out writes.
// Readers that may not hold a vector exactly (s64) say so by `exact`.
template <class In, class = void> struct checks_exact : std::false_type {};
template <class In> struct checks_exact<In, std::void_t<decltype(In::kChecksExact)>> : std::true_type {};

template <typename Lane, data_type F, data_type T, class In, class Out>
void cast_vector(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    using SI = typename In::storage;
    using SO = typename Out::storage;
    static const nary_fn scalar = scalar_cast_loop(F, T);
    const hn::ScalableTag<Lane> d;
    cast_loop<SI, SO>(d, scalar, in, st, out_, n, stream, [&](const SI *x, SO *out, bool nt) {
        const auto v = In::load(d, x);
        if constexpr (checks_exact<In>::value)
            if (!In::exact(d, v, x)) return false;
        Out::store(d, v, out, nt);
        return true;
    });
}

// The vector casts from F (read by In) into every output it has one for.
template <data_type F, class In> void set_casts_from(element_ops &o) {
    using dt = data_type;
    auto &t = o.cast[dtype_index(F)];
    if constexpr (F != dt::f32) t[dtype_index(dt::f32)] = cast_vector<float, F, dt::f32, In, f32_out>;
    if constexpr (F != dt::s32 && F != dt::bf16)
        t[dtype_index(dt::bf16)] = cast_vector<float, F, dt::bf16, In, half_out<bf16_io>>;
    if constexpr (F != dt::s32 && F != dt::f16 && kVectorF16)
        t[dtype_index(dt::f16)] = cast_vector<float, F, dt::f16, In, half_out<f16_io>>;
    if constexpr (F != dt::boolean) t[dtype_index(dt::boolean)] = cast_vector<float, F, dt::boolean, In, bool_out>;
    if constexpr (!is_integer(F)) t[dtype_index(dt::s32)] = cast_vector<float, F, dt::s32, In, saturated_out<int32_t>>;
    if constexpr (F == dt::f32 || F == dt::f16 || F == dt::bf16) {
        t[dtype_index(dt::s8)] = cast_vector<float, F, dt::s8, In, small_int_out<int8_t>>;
        t[dtype_index(dt::u8)] = cast_vector<float, F, dt::u8, In, small_int_out<uint8_t>>;
        t[dtype_index(dt::s16)] = cast_vector<float, F, dt::s16, In, small_int_out<int16_t>>;
        t[dtype_index(dt::u16)] = cast_vector<float, F, dt::u16, In, small_int_out<uint16_t>>;
    }
}

// Casts through f64 lanes, for pairs with f64, s64 or u32 on one side (and
// floats into s64) whose result is still one conversion: the input is read
// into f64 lanes without rounding, or, for s64, in vectors whose every lane
// f64 holds exactly (the others take the scalar loop); the output is written
// with one conversion. Integer inputs go only into floats and boolean here.
template <typename I> struct int_in64 { // 8-, 16- and 32-bit integers
    using storage = I;
    template <class D> static auto load(D dd, const I *p) {
        if constexpr (std::is_same_v<I, uint32_t>) {
            const hn::Rebind<uint64_t, D> du64;
            return hn::ConvertTo(
                dd, hn::BitCast(hn::Rebind<int64_t, D>(), hn::PromoteTo(du64, hn::LoadU(hn::Rebind<I, D>(), p))));
        } else {
            const hn::Rebind<int32_t, D> di;
            if constexpr (sizeof(I) == 4)
                return hn::PromoteTo(dd, hn::LoadU(di, p));
            else
                return hn::PromoteTo(dd, hn::PromoteTo(di, hn::LoadU(hn::Rebind<I, D>(), p)));
        }
    }
};
template <class In32> struct float_in64 { // f32, f16, bf16: exact in f32, then in f64
    using storage = typename In32::storage;
    template <class D> static auto load(D dd, const storage *p) {
        return hn::PromoteTo(dd, In32::load(hn::Rebind<float, D>(), p));
    }
};
struct f64_in {
    using storage = double;
    template <class D> static auto load(D dd, const double *p) { return hn::LoadU(dd, p); }
};
struct bool_in64 {
    using storage = uint8_t;
    template <class D> static auto load(D dd, const uint8_t *p) {
        return hn::PromoteTo(dd, bool_in::load(hn::Rebind<float, D>(), p));
    }
};
// s64: `exact` says whether every lane of the converted vector is the integer.
struct s64_in {
    using storage = int64_t;
    static constexpr bool kChecksExact = true;
    template <class D> static auto load(D dd, const int64_t *p) {
        return hn::ConvertTo(dd, hn::LoadU(hn::Rebind<int64_t, D>(), p));
    }
    // (Converted back from below 2^63 only: 2^63 itself, what INT64_MAX
    // rounds to, has no int64, and EMU128's conversion of it is undefined.)
    template <class D> static bool exact(D dd, hn::Vec<D> v, const int64_t *p) {
        const hn::Rebind<int64_t, D> di;
        const auto in_range = hn::Lt(v, hn::Set(dd, 0x1p63));
        const auto back = hn::ConvertTo(di, hn::Min(v, hn::Set(dd, 0x1p63 - 1024)));
        return hn::AllTrue(dd, hn::And(in_range, hn::RebindMask(dd, hn::Eq(back, hn::LoadU(di, p)))));
    }
};

struct f64_out {
    using storage = double;
    template <class D> static void store(D dd, hn::Vec<D> v, double *p, bool nt) {
        nt ? hn::Stream(v, dd, p) : hn::StoreU(v, dd, p);
    }
};
struct f32_out64 { // rounded once, overflowing to inf
    using storage = float;
    template <class D> static void store(D dd, hn::Vec<D> v, float *p, bool nt) {
        (void)dd;
        const hn::Rebind<float, D> df;
        const auto f = demote_f32(df, v);
        nt ? hn::Stream(f, df, p) : hn::StoreU(f, df, p);
    }
};
// NaN -> 0, truncated, clamped (exact in f64). Truncated first: EMU128's
// DemoteTo saturates a value within one of INT32_MIN (-2147483647.5 gives
// INT32_MIN there, not -2147483647).
struct s32_out64 {
    using storage = int32_t;
    template <class D> static void store(D dd, hn::Vec<D> v, int32_t *p, bool nt) {
        const hn::Rebind<int32_t, D> di;
        const auto x = hn::Trunc(hn::IfThenZeroElse(hn::IsNaN(v), v));
        const auto t = hn::DemoteTo(di, hn::Min(hn::Max(x, hn::Set(dd, -2147483648.0)), hn::Set(dd, 2147483647.0)));
        nt ? hn::Stream(t, di, p) : hn::StoreU(t, di, p);
    }
};
struct bool_out64 {
    using storage = uint8_t;
    template <class D> static void store(D dd, hn::Vec<D> v, uint8_t *p, bool nt) {
        const hn::Rebind<int32_t, D> di;
        const hn::Rebind<uint8_t, D> d8;
        const auto nonzero = hn::DemoteTo(di, hn::IfThenZeroElse(hn::Eq(v, hn::Zero(dd)), hn::Set(dd, 1.0)));
        const auto b = hn::DemoteTo(d8, nonzero);
        nt ? hn::Stream(b, d8, p) : hn::StoreU(b, d8, p);
    }
};

// The f64-lane casts from F (read by In) that no f32-lane loop covers.
template <data_type F, class In> void set_casts64_from(element_ops &o) {
    using dt = data_type;
    auto &t = o.cast[dtype_index(F)];
    constexpr bool wide = F == dt::f64 || F == dt::s64 || F == dt::u32;
    if constexpr (F != dt::f64) t[dtype_index(dt::f64)] = cast_vector<double, F, dt::f64, In, f64_out>;
    if constexpr (wide) t[dtype_index(dt::f32)] = cast_vector<double, F, dt::f32, In, f32_out64>;
    if constexpr (F == dt::f64) t[dtype_index(dt::s32)] = cast_vector<double, F, dt::s32, In, s32_out64>;
    if constexpr (!is_integer(F)) t[dtype_index(dt::s64)] = cast_vector<double, F, dt::s64, In, saturated_out<int64_t>>;
    if constexpr (wide) t[dtype_index(dt::boolean)] = cast_vector<double, F, dt::boolean, In, bool_out64>;
}

template <typename T> constexpr data_type data_type_of() {
    using dt = data_type;
    constexpr bool s = std::is_signed_v<T>;
    return sizeof(T) == 1   ? (s ? dt::s8 : dt::u8)
           : sizeof(T) == 2 ? (s ? dt::s16 : dt::u16)
           : sizeof(T) == 4 ? (s ? dt::s32 : dt::u32)
                            : (s ? dt::s64 : dt::u64);
}

// One integer into another: the low bytes (wrap), a narrower one
// sign- or zero-extended as its own signedness says. Lanes of the wider of
// the two types; a narrower source is loaded as that many lanes of its own.
template <typename From, typename To>
void cast_integer(const void *const *in, const int64_t *st, void *out_, int64_t n, bool stream) {
    using Wide = std::conditional_t<(sizeof(From) > sizeof(To)), From, To>;
    static const nary_fn scalar = scalar_cast_loop(data_type_of<From>(), data_type_of<To>());
    const hn::ScalableTag<Wide> d;
    const hn::Rebind<From, decltype(d)> df;
    const hn::Rebind<To, decltype(d)> dt;
    const hn::RebindToUnsigned<decltype(df)> dfu;
    const hn::RebindToUnsigned<decltype(dt)> dtu;
    auto convert = [&](const From *x) {
        const auto v = hn::LoadU(df, x);
        if constexpr (sizeof(From) == sizeof(To)) {
            return hn::BitCast(dt, v);
        } else if constexpr (sizeof(From) > sizeof(To)) { // the low bytes
            return hn::BitCast(dt, hn::TruncateTo(dtu, hn::BitCast(dfu, v)));
        } else { // extended by From's signedness, in steps Highway has
            using W = std::conditional_t<std::is_signed_v<From>, hwy::MakeSigned<To>, hwy::MakeUnsigned<To>>;
            const hn::Rebind<W, decltype(d)> dw;
            if constexpr (sizeof(To) == 8 && sizeof(From) < 4) {
                using M = std::conditional_t<std::is_signed_v<From>, int32_t, uint32_t>;
                return hn::BitCast(dt, hn::PromoteTo(dw, hn::PromoteTo(hn::Rebind<M, decltype(d)>(), v)));
            } else {
                return hn::BitCast(dt, hn::PromoteTo(dw, v));
            }
        }
    };
    cast_loop<From, To>(d, scalar, in, st, out_, n, stream, [&](const From *x, To *out, bool nt) {
        nt ? hn::Stream(convert(x), dt, out) : hn::StoreU(convert(x), dt, out);
        return true;
    });
}

template <typename From, typename To> void set_integer_cast(element_ops &o) {
    if constexpr (!std::is_same_v<From, To>)
        o.cast[dtype_index(data_type_of<From>())][dtype_index(data_type_of<To>())] = cast_integer<From, To>;
}
template <typename From, typename... To> void set_integer_casts_from(element_ops &o) {
    (set_integer_cast<From, To>(o), ...);
}

template <typename... T> void set_integer_casts(element_ops &o) { (set_integer_casts_from<T, T...>(o), ...); }

void set_vector_casts(element_ops &o) {
    using dt = data_type;
    set_casts_from<dt::f32, f32_io>(o);
    set_casts_from<dt::bf16, bf16_io>(o);
    if constexpr (kVectorF16) set_casts_from<dt::f16, f16_io>(o);
    set_casts_from<dt::boolean, bool_in>(o);
    set_casts_from<dt::s8, int_in<int8_t>>(o);
    set_casts_from<dt::u8, int_in<uint8_t>>(o);
    set_casts_from<dt::s16, int_in<int16_t>>(o);
    set_casts_from<dt::u16, int_in<uint16_t>>(o);
    set_casts_from<dt::s32, int_in<int32_t>>(o);
    set_casts64_from<dt::f64, f64_in>(o);
    set_casts64_from<dt::f32, float_in64<f32_io>>(o);
    set_casts64_from<dt::bf16, float_in64<bf16_io>>(o);
    if constexpr (kVectorF16) set_casts64_from<dt::f16, float_in64<f16_io>>(o);
    set_casts64_from<dt::s64, s64_in>(o);
    set_casts64_from<dt::u32, int_in64<uint32_t>>(o);
    set_casts64_from<dt::s32, int_in64<int32_t>>(o);
    set_casts64_from<dt::s16, int_in64<int16_t>>(o);
    set_casts64_from<dt::u16, int_in64<uint16_t>>(o);
    set_casts64_from<dt::s8, int_in64<int8_t>>(o);
    set_casts64_from<dt::u8, int_in64<uint8_t>>(o);
    set_casts64_from<dt::boolean, bool_in64>(o);
    // Between two integer types (none of the loops above is registered for those pairs).
    set_integer_casts<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>(o);
}
#endif

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
#if HWY_TARGET != HWY_SCALAR
    set_math<exp32_fn>(o);
    set_math<log32_fn>(o);
    set_math<tanh32_fn>(o);
    set_math<sigmoid32_fn>(o);
    set_math<erf32_fn>(o);
    set_math<elu32_fn>(o);
    set_math<mish32_fn>(o);
    set_math<gelu_erf32_fn>(o);
    set_math<selu_fn>(o);
    set_math<softplus_fn>(o);
#if HWY_TARGET <= HWY_AVX2
    set_math<gelu_tanh32_fn>(o);
#else
    set_math<gelu_tanh64_fn>(o);
#endif
#else
    for (ew_fn f : {ew_fn::exp, ew_fn::log, ew_fn::tanh, ew_fn::sigmoid, ew_fn::elu, ew_fn::selu, ew_fn::softplus,
                    ew_fn::mish, ew_fn::gelu_tanh, ew_fn::erf, ew_fn::gelu_erf})
        for (dt t : {dt::f16, dt::bf16, dt::f32, dt::f64})
            o.nary[static_cast<int>(f)][dtype_index(t)] = scalar_math_loop(f, t);
#endif
    for (int a = 0; a < kNumDataTypes; ++a)
        for (int b = 0; b < kNumDataTypes; ++b) o.cast[a][b] = scalar_cast_loop(data_type_at(a), data_type_at(b));
#if HWY_TARGET != HWY_SCALAR
    set_vector_casts(o);
#endif
    // LeakyReLU: PReLU's function with an f32 slope for f16/bf16 inputs.
    set<binary_f32<prelu_fn, f16_io, f32_io, f16_io>, uint16_t, float, uint16_t>(o, ew_fn::prelu, dt::f16, dt::f32);
    set<binary_f32<prelu_fn, bf16_io, f32_io, bf16_io>, uint16_t, float, uint16_t>(o, ew_fn::prelu, dt::bf16, dt::f32);
}
