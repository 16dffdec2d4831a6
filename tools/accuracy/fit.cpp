// fusebox-fit: the polynomial coefficients of the transcendental kernels
// (src/kernels/native/unary_ops-inl.h), reproduced. A Chebyshev interpolant
// of the function on [a, b] in long double, converted to powers of v (or of
// the centred (v - c) / h), the coefficients rounded to f32 or f64, and the
// relative error of their Horner evaluation in that type (with FMA) measured
// on 400,001 points.
//
//   fusebox-fit FUNCTION A B DEGREE [f32|f64] [CENTRE SCALE [split]]
//
// CENTRE SCALE: for a centred function, the powers are of (v - CENTRE) *
// SCALE instead (a piece whose variable the kernel computes with another
// piece's formula). split: coefficient 0 as a rounded value and its
// remainder (printed last), evaluated as c0 + (c0_lo + s P(s)): one rounding
// at the end instead of c0's own and the sum's.
//
// FUNCTION: tanh_p    (tanh x - x) / x^3 in x^2
//           erf_p     erf(x) / x - 1 in x^2 (absolute error)
//           log1p_p   (log(1 + f) - f) / f^2 in f
//           exp_p     (e^r - 1 - r) / r^2 in r
//           erfc_q    erfc(a) e^(a^2) / t in centred t, t = 2 / (2 + a)
//           erf_x1    erf(x) / x - 1 in centred x (absolute error)
//           erfc_x    erfc(x) in centred x (absolute error)
//           tanh_x1   tanh(x) / x - 1 in centred x (absolute error)
//           tanhc_x   1 - tanh(x) in centred x (absolute error)
//           sigmoidc_x  1 / (1 + e^x) in centred x
//           phic_x    Phi(-x) = erfc(x / sqrt 2) / 2 in centred x
//           softplusc_x  log(1 + e^-x) in centred x
//           mishm_x   tanh(log(1 + e^x)) = Mish(x) / x in centred x
//           gelutc_x  1 / (1 + e^(2z)), z = sqrt(2/pi) (x + 0.044715 x^3), in
//                     centred x (1 - tanh GELU(x) / x)
//           expm1_r   (e^r - 1) / r in r
//           log1p_f   log(1 + f) / f in f
//           softplus_q  (log(1 + e^y) - ln 2 - y/2) / y^2 in y^2
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using ld = long double;

struct function {
    const char *name;
    ld (*f)(ld);
    bool centred, absolute;
};

const function kFunctions[] = {
    {"tanh_p",
     [](ld v) {
         const ld x = sqrtl(v);
         return v == 0 ? -1.0L / 3 : (tanhl(x) - x) / (x * x * x);
     },
     false, false},
    {"erf_p",
     [](ld v) {
         const ld x = sqrtl(v);
         return v == 0 ? 2 / sqrtl(M_PIl) - 1 : erfl(x) / x - 1;
     },
     false, true},
    {"log1p_p", [](ld v) { return v == 0 ? -0.5L : (log1pl(v) - v) / (v * v); }, false, false},
    {"exp_p", [](ld v) { return v == 0 ? 0.5L : (expm1l(v) - v) / (v * v); }, false, false},
    {"erfc_q",
     [](ld t) {
         const ld a = 2 * (1 / t - 1);
         return erfcl(a) * expl(a * a) / t;
     },
     true, false},
    {"erf_x1", [](ld x) { return x == 0 ? 2 / sqrtl(M_PIl) - 1 : erfl(x) / x - 1; }, true, true},
    {"erfc_x", [](ld x) { return erfcl(x); }, true, true},
    {"tanh_x1", [](ld x) { return x == 0 ? 0.0L : tanhl(x) / x - 1; }, true, true},
    {"tanhc_x", [](ld x) { return 2 / (expl(2 * x) + 1); }, true, true},
    {"sigmoidc_x", [](ld x) { return 1 / (expl(x) + 1); }, true, false},
    {"phic_x", [](ld x) { return erfcl(x / sqrtl(2.0L)) / 2; }, true, false},
    {"softplusc_x", [](ld x) { return log1pl(expl(-x)); }, true, false},
    {"mishm_x", [](ld x) { return tanhl(log1pl(expl(x))); }, true, false},
    {"gelutc_x", [](ld x) { return 1 / (1 + expl(2 * sqrtl(2 / M_PIl) * (x + 0.044715L * x * x * x))); }, true, false},
    {"expm1_r", [](ld v) { return v == 0 ? 1.0L : expm1l(v) / v; }, false, false},
    {"log1p_f", [](ld v) { return v == 0 ? 1.0L : log1pl(v) / v; }, false, false},
    {"softplus_q",
     [](ld v) {
         const ld y = sqrtl(v);
         return v == 0 ? 0.125L : (log1pl(expl(y)) - logl(2.0L) - y / 2) / v;
     },
     false, false},
};

template <typename T> int fit(const function &fn, ld a, ld b, int n, ld centre, ld scale, bool split) {
    const ld c = (a + b) / 2, h = (b - a) / 2;
    // Chebyshev coefficients from the values at the n + 1 Chebyshev nodes.
    std::vector<ld> cheb(n + 1, 0);
    for (int j = 0; j <= n; ++j) {
        for (int k = 0; k <= n; ++k) {
            const ld th = M_PIl * (k + 0.5L) / (n + 1);
            cheb[j] += fn.f(c + h * cosl(th)) * cosl(j * th);
        }
        cheb[j] *= (j == 0 ? 1.0L : 2.0L) / (n + 1);
    }
    // Powers of s = (v - c) / h: T_j by the recurrence.
    std::vector<std::vector<ld>> t(n + 1, std::vector<ld>(n + 1, 0));
    t[0][0] = 1;
    if (n > 0) t[1][1] = 1;
    for (int j = 2; j <= n; ++j)
        for (int i = 0; i <= n; ++i) t[j][i] = (i ? 2 * t[j - 1][i - 1] : 0) - t[j - 2][i];
    std::vector<ld> m(n + 1, 0);
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) m[i] += cheb[j] * t[j][i];
    // Powers of u = (v - centre) * scale (of v when not centred): (v - c) / h
    // = alpha + beta u, each power expanded.
    if (!fn.centred) centre = 0, scale = 1;
    const ld alpha = (centre - c) / h, beta = 1 / (scale * h);
    std::vector<ld> mu(n + 1, 0);
    for (int i = 0; i <= n; ++i) {
        ld binom = 1;
        for (int j = 0; j <= i; ++j) {
            mu[j] += m[i] * binom * powl(alpha, i - j) * powl(beta, j);
            binom = binom * (i - j) / (j + 1);
        }
    }
    m = mu;
    std::vector<T> coef(m.begin(), m.end());
    const T c0_lo = static_cast<T>(m[0] - coef[0]);
    ld worst = 0, at = 0;
    for (int k = 0; k <= 400000; ++k) {
        const T v = static_cast<T>(a + (b - a) * k / 400000.0L);
        const T s = fn.centred ? (v - static_cast<T>(centre)) * static_cast<T>(scale) : v;
        T p = coef[n];
        for (int i = n - 1; i >= 1; --i) p = std::fma(p, s, coef[i]);
        p = split ? coef[0] + std::fma(p, s, c0_lo) : std::fma(p, s, coef[0]);
        const ld exact = fn.f(v);
        const ld err = fabsl((p - exact) / (fn.absolute ? 1 : exact));
        if (err > worst) worst = err, at = v;
    }
    std::printf("%s on [%Lg, %Lg], degree %d: %s error %.3Lg (2^%.1f) at %Lg\n", fn.name, a, b, n,
                fn.absolute ? "absolute" : "relative", worst, static_cast<double>(log2l(worst)), at);
    if (fn.centred) std::printf("centre %.9Lg, scale %.9Lg\n", centre, scale);
    for (int i = 0; i <= n; ++i)
        std::printf("%.*g%s", sizeof(T) == 4 ? 9 : 17, static_cast<double>(coef[i]), i < n || split ? ", " : "\n");
    if (split) std::printf("%.*g\n", sizeof(T) == 4 ? 9 : 17, static_cast<double>(c0_lo));
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: fusebox-fit FUNCTION A B DEGREE [f32|f64] [CENTRE SCALE [split]]\n");
        return 2;
    }
    for (const function &fn : kFunctions)
        if (std::strcmp(fn.name, argv[1]) == 0) {
            const ld a = strtold(argv[2], nullptr), b = strtold(argv[3], nullptr);
            const int n = std::atoi(argv[4]);
            if (!(a < b) || n < 1 || n > 30)
                return std::fprintf(stderr, "fusebox-fit: need A < B and 1 <= DEGREE <= 30\n"), 2;
            const ld centre = argc > 7 ? strtold(argv[6], nullptr) : (a + b) / 2,
                     scale = argc > 7 ? strtold(argv[7], nullptr) : 2 / (b - a);
            if (!(scale > 0)) return std::fprintf(stderr, "fusebox-fit: need SCALE > 0\n"), 2;
            const bool split = argc > 8 && std::strcmp(argv[8], "split") == 0;
            return argc > 5 && std::strcmp(argv[5], "f64") == 0 ? fit<double>(fn, a, b, n, centre, scale, split)
                                                                : fit<float>(fn, a, b, n, centre, scale, split);
        }
    std::fprintf(stderr, "fusebox-fit: unknown function %s\n", argv[1]);
    return 2;
}
