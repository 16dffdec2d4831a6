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

// ---- transcendental functions: f32 lanes evaluated in f64 lanes (Highway's
// f64 exp, expm1, log1p and tanh, each within a few ulp of f64), rounded once
// to f32; every special value handled here. ELEMENTWISE.md's bounds hold with
// room to spare: measured by tools/accuracy (doc/SUPPORT.md, "Accuracy").

#if HWY_TARGET != HWY_SCALAR
template <class D> using f64_of = hn::Rebind<double, D>;

// e^x for every x (NaN handled by the caller): Highway's range is [-1000, 709].
template <class DD> HWY_INLINE hn::Vec<DD> exp64(DD dd, hn::Vec<DD> x) {
    return hn::Exp(dd, hn::Min(hn::Max(x, hn::Set(dd, -1000.0)), hn::Set(dd, 800.0)));
}
// log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
template <class DD> HWY_INLINE hn::Vec<DD> log1p_exp64(DD dd, hn::Vec<DD> x) {
    return hn::Add(hn::Max(x, hn::Zero(dd)), hn::Log1p(dd, exp64(dd, hn::Neg(hn::Abs(x)))));
}

// e^x in f32 lanes (Highway's f32 exp; measured within 1 ulp by tools/accuracy):
// past 88.72283935546875 it overflows to inf, below -104 it is 0.
struct exp32_fn {
    static constexpr ew_fn fn = ew_fn::exp;
    static constexpr bool kF32 = true;
    template <class DF> static hn::Vec<DF> f32(DF df, hn::Vec<DF> x) {
        // (Inputs kept where Highway's conversion to int32 is defined: the caller
        // replaces NaN; below -105 the result is 0 either way.)
        const auto big = hn::Gt(x, hn::Set(df, 88.72283935546875f));
        const auto r = hn::Exp(df, hn::Max(hn::IfThenElse(big, hn::Zero(df), x), hn::Set(df, -105.0f)));
        return hn::IfThenElse(big, hn::Set(df, HUGE_VALF), r);
    }
};
struct log64_fn {
    static constexpr ew_fn fn = ew_fn::log;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD>, hn::Vec<DD>) {
        const auto zero = hn::Zero(dd);
        auto r = hn::Log(dd, hn::Max(x, hn::Set(dd, 1e-300))); // (promoted f32 values are normal doubles)
        r = hn::IfThenElse(hn::Eq(x, zero), hn::Set(dd, -HUGE_VAL), r);
        r = hn::IfThenElse(hn::Eq(x, hn::Set(dd, HUGE_VAL)), x, r);
        return hn::IfThenElse(hn::Lt(x, zero), hn::Set(dd, NAN), r);
    }
};
struct tanh64_fn {
    static constexpr ew_fn fn = ew_fn::tanh;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD>, hn::Vec<DD>) {
        return hn::Tanh(dd, hn::Min(hn::Max(x, hn::Set(dd, -50.0)), hn::Set(dd, 50.0)));
    }
};
struct sigmoid64_fn {
    static constexpr ew_fn fn = ew_fn::sigmoid;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD>, hn::Vec<DD>) {
        const auto one = hn::Set(dd, 1.0);
        return hn::Div(one, hn::Add(one, exp64(dd, hn::Neg(x))));
    }
};
// x > 0 ? x : alpha (e^x - 1), times gamma for Selu.
template <bool kSelu> struct elu64_fn {
    static constexpr ew_fn fn = kSelu ? ew_fn::selu : ew_fn::elu;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD> alpha, hn::Vec<DD> gamma) {
        // (Highway's expm1(-0) is +0: at zero the product alpha * x keeps C's sign.)
        const auto clamped = hn::Min(hn::Max(x, hn::Set(dd, -1000.0)), hn::Zero(dd)); // (only x <= 0 is used)
        const auto em1 = hn::IfThenElse(hn::Eq(x, hn::Zero(dd)), x, hn::Expm1(dd, clamped));
        const auto r = hn::IfThenElse(hn::Gt(x, hn::Zero(dd)), x, hn::Mul(alpha, em1));
        if constexpr (kSelu)
            return hn::Mul(gamma, r);
        else
            return r;
    }
};
struct softplus64_fn {
    static constexpr ew_fn fn = ew_fn::softplus;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD> beta, hn::Vec<DD>) {
        return hn::Div(log1p_exp64(dd, hn::Mul(beta, x)), beta);
    }
};
// x tanh(softplus(x)); -0 at -inf.
struct mish64_fn {
    static constexpr ew_fn fn = ew_fn::mish;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD>, hn::Vec<DD>) {
        const auto r = hn::Mul(x, hn::Tanh(dd, hn::Min(log1p_exp64(dd, x), hn::Set(dd, 50.0))));
        return hn::IfThenElse(hn::Eq(x, hn::Set(dd, -HUGE_VAL)), hn::Set(dd, -0.0), r);
    }
};
// x / (1 + e^(-2z)), z = sqrt(2/pi) (x + 0.044715 x^3): 0.5 x (1 + tanh z)
// without cancellation; -0 at -inf.
struct gelu_tanh64_fn {
    static constexpr ew_fn fn = ew_fn::gelu_tanh;
    template <class DD> static hn::Vec<DD> f64(DD dd, hn::Vec<DD> x, hn::Vec<DD>, hn::Vec<DD>) {
        const auto z = hn::Mul(hn::Set(dd, 0.79788456080286535587989211986876373695),
                               hn::Add(x, hn::Mul(hn::Mul(hn::Set(dd, 0.044715), x), hn::Mul(x, x))));
        const auto r = hn::Div(x, hn::Add(hn::Set(dd, 1.0), exp64(dd, hn::Mul(hn::Set(dd, -2.0), z))));
        return hn::IfThenElse(hn::Eq(x, hn::Set(dd, -HUGE_VAL)), hn::Set(dd, -0.0), r);
    }
};

// Whether F computes in f32 lanes (kF32) rather than f64 ones.
template <class F, class = void> constexpr bool kF32 = false;
template <class F> constexpr bool kF32<F, std::void_t<decltype(F::kF32)>> = F::kF32;

// F over one f32 vector: in f32 lanes, or each half widened to f64; NaN
// passed through.
template <class F, class DF>
HWY_INLINE hn::Vec<DF> math_f32(DF df, hn::Vec<DF> x, hn::Vec<f64_of<hn::Half<DF>>> p0,
                                hn::Vec<f64_of<hn::Half<DF>>> p1) {
    // NaN lanes are computed as 0 and put back: Highway's functions convert
    // to integers, which is undefined for NaN in its emulated targets.
    const auto nan = hn::IsNaN(x);
    const auto xs = hn::IfThenZeroElse(nan, x);
    if constexpr (kF32<F>) {
        static_cast<void>(p0), static_cast<void>(p1);
        return hn::IfThenElse(nan, x, F::f32(df, xs));
    } else {
        const hn::Half<DF> dh;
        const f64_of<decltype(dh)> dd;
        const auto lo = F::f64(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, xs)), p0, p1);
        const auto hi = F::f64(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, xs)), p0, p1);
        const auto r = hn::Combine(df, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
        return hn::IfThenElse(nan, x, r);
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
    const auto p0 = hn::Set(dd, kParams > 0 ? *static_cast<const float *>(in[1]) : 0.0f);
    const auto p1 = hn::Set(dd, kParams > 1 ? *static_cast<const float *>(in[2]) : 0.0f);
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    auto body = [&](hn::Vec<decltype(df)> v) { return math_f32<F>(df, v, p0, p1); };
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
    for (ew_fn f : {ew_fn::erf, ew_fn::gelu_erf}) // (no vector erf yet)
        for (dt t : {dt::f16, dt::bf16, dt::f32, dt::f64})
            o.nary[static_cast<int>(f)][dtype_index(t)] = scalar_math_loop(f, t);
#if HWY_TARGET != HWY_SCALAR
    set_math<exp32_fn>(o);
    set_math<log64_fn>(o);
    set_math<tanh64_fn>(o);
    set_math<sigmoid64_fn>(o);
    set_math<elu64_fn<false>>(o);
    set_math<elu64_fn<true>>(o);
    set_math<softplus64_fn>(o);
    set_math<mish64_fn>(o);
    set_math<gelu_tanh64_fn>(o);
#else
    for (ew_fn f : {ew_fn::exp, ew_fn::log, ew_fn::tanh, ew_fn::sigmoid, ew_fn::elu, ew_fn::selu, ew_fn::softplus,
                    ew_fn::mish, ew_fn::gelu_tanh})
        for (dt t : {dt::f16, dt::bf16, dt::f32, dt::f64})
            o.nary[static_cast<int>(f)][dtype_index(t)] = scalar_math_loop(f, t);
#endif
    for (int a = 0; a < kNumDataTypes; ++a)
        for (int b = 0; b < kNumDataTypes; ++b) o.cast[a][b] = scalar_cast_loop(data_type_at(a), data_type_at(b));
    // LeakyReLU: PReLU's function with an f32 slope for f16/bf16 inputs.
    set<binary_f32<prelu_fn, f16_io, f32_io, f16_io>, uint16_t, float, uint16_t>(o, ew_fn::prelu, dt::f16, dt::f32);
    set<binary_f32<prelu_fn, bf16_io, f32_io, bf16_io>, uint16_t, float, uint16_t>(o, ew_fn::prelu, dt::bf16, dt::f32);
}
