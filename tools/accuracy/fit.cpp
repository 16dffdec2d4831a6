// fusebox-fit: the polynomial coefficients of the transcendental kernels
// (src/kernels/native/unary_ops-inl.h), reproduced. A Chebyshev interpolant
// of the function on [a, b] in long double, converted to powers of v (or of
// the centred (v - c) / h), the coefficients rounded to f32 or f64, and the
// relative error of their Horner evaluation in that type (with FMA) measured
// on 400,001 points.
//
//   fusebox-fit FUNCTION A B DEGREE [f32|f64] [CENTRE SCALE [split] [minimax]]
//   fusebox-fit FUNCTION graded ALPHA BETA POWER COUNT DEGREE
//
// CENTRE SCALE: for a centred function, the powers are of (v - CENTRE) *
// SCALE instead (a piece whose variable the kernel computes with another
// piece's formula). split: coefficient 0 as a rounded value and its
// remainder (printed last), evaluated as c0 + (c0_lo + s P(s)): one rounding
// at the end instead of c0's own and the sum's. minimax: the polynomial of
// least relative error instead of the interpolant (whose error is near
// least in absolute terms: on a piece where the function falls by e^4, its
// relative error is largest at the low end).
//
// graded: a whole table of pieces of unequal widths (graded below) in the
// kernels' layout.
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
#include <algorithm>
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

// The Chebyshev coefficients (on c + h [-1, 1]) of the interpolant of
// degree n, from the values at the n + 1 Chebyshev nodes.
std::vector<ld> interpolant(const function &fn, ld c, ld h, int n) {
    std::vector<ld> cheb(n + 1, 0);
    for (int j = 0; j <= n; ++j) {
        for (int k = 0; k <= n; ++k) {
            const ld th = M_PIl * (k + 0.5L) / (n + 1);
            cheb[j] += fn.f(c + h * cosl(th)) * cosl(j * th);
        }
        cheb[j] *= (j == 0 ? 1.0L : 2.0L) / (n + 1);
    }
    return cheb;
}

// The same for the polynomial of degree n whose largest relative error is
// least: Lawson's iteration, each step a
// least-squares fit of p / f to 1 on 4000 points weighted by the last
// step's errors (which converges to the equioscillating, minimax fit).
std::vector<ld> relative_minimax(const function &fn, ld c, ld h, int n) {
    const int m = 4000, k = n + 1;
    std::vector<ld> x(m), f(m), w(m, 1.0L / m), cheb(k);
    std::vector<std::vector<ld>> t(m, std::vector<ld>(k));
    for (int i = 0; i < m; ++i) {
        x[i] = cosl(M_PIl * (i + 0.5L) / m), f[i] = fn.f(c + h * x[i]);
        for (int j = 0; j < k; ++j) t[i][j] = j == 0 ? 1 : j == 1 ? x[i] : 2 * x[i] * t[i][j - 1] - t[i][j - 2];
    }
    for (int step = 0; step < 200; ++step) {
        // Normal equations of sum w (p / f - 1)^2, by Gaussian elimination.
        std::vector<std::vector<ld>> a(k, std::vector<ld>(k + 1, 0));
        for (int i = 0; i < m; ++i)
            for (int r = 0; r < k; ++r) {
                const ld wr = w[i] * t[i][r] / f[i];
                for (int q = 0; q < k; ++q) a[r][q] += wr * t[i][q] / f[i];
                a[r][k] += wr;
            }
        for (int r = 0; r < k; ++r) {
            int piv = r;
            for (int q = r + 1; q < k; ++q)
                if (fabsl(a[q][r]) > fabsl(a[piv][r])) piv = q;
            std::swap(a[r], a[piv]);
            for (int q = r + 1; q < k; ++q) {
                const ld l = a[q][r] / a[r][r];
                for (int j = r; j <= k; ++j) a[q][j] -= l * a[r][j];
            }
        }
        for (int r = k; r-- > 0;) {
            ld v = a[r][k];
            for (int q = r + 1; q < k; ++q) v -= a[r][q] * cheb[q];
            cheb[r] = v / a[r][r];
        }
        ld sum = 0;
        for (int i = 0; i < m; ++i) {
            ld p = 0;
            for (int j = 0; j < k; ++j) p += cheb[j] * t[i][j];
            w[i] *= fabsl(p / f[i] - 1);
            sum += w[i];
        }
        if (!(sum > 0)) break;
        for (ld &v : w) v /= sum;
    }
    return cheb;
}

// A fitted polynomial: coefficients rounded to T (and coefficient 0's
// remainder when split), with its worst error measured on 400,001 points.
template <typename T> struct piece_fit {
    std::vector<T> coef;
    T c0_lo = 0;
    ld worst = 0, at = 0;
};

template <typename T>
piece_fit<T> fit(const function &fn, ld a, ld b, int n, ld centre, ld scale, bool split, bool minimax) {
    const ld c = (a + b) / 2, h = (b - a) / 2;
    const std::vector<ld> cheb = minimax ? relative_minimax(fn, c, h, n) : interpolant(fn, c, h, n);
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
    piece_fit<T> r;
    r.coef.assign(mu.begin(), mu.end());
    r.c0_lo = split ? static_cast<T>(mu[0] - r.coef[0]) : 0;
    for (int k = 0; k <= 400000; ++k) {
        const T v = static_cast<T>(a + (b - a) * k / 400000.0L);
        const T s = fn.centred ? (v - static_cast<T>(centre)) * static_cast<T>(scale) : v;
        T p = r.coef[n];
        for (int i = n - 1; i >= 1; --i) p = std::fma(p, s, r.coef[i]);
        p = split ? r.coef[0] + std::fma(p, s, r.c0_lo) : std::fma(p, s, r.coef[0]);
        const ld exact = fn.f(v);
        const ld err = fabsl((p - exact) / (fn.absolute ? 1 : exact));
        if (err > r.worst) r.worst = err, r.at = v;
    }
    return r;
}

template <typename T> void print(const function &fn, ld a, ld b, int n, const piece_fit<T> &r) {
    std::printf("%s on [%Lg, %Lg], degree %d: %s error %.3Lg (2^%.1f) at %Lg\n", fn.name, a, b, n,
                fn.absolute ? "absolute" : "relative", r.worst, static_cast<double>(log2l(r.worst)), r.at);
}

template <typename T>
int fit_one(const function &fn, ld a, ld b, int n, ld centre, ld scale, bool split, bool minimax) {
    const piece_fit<T> r = fit<T>(fn, a, b, n, centre, scale, split, minimax);
    print(fn, a, b, n, r);
    if (fn.centred) std::printf("centre %.9Lg, scale %.9Lg\n", centre, scale);
    for (int i = 0; i <= n; ++i)
        std::printf("%.*g%s", sizeof(T) == 4 ? 9 : 17, static_cast<double>(r.coef[i]), i < n || split ? ", " : "\n");
    if (split) std::printf("%.*g\n", sizeof(T) == 4 ? 9 : 17, static_cast<double>(r.c0_lo));
    return 0;
}

// Graded pieces (f32, split, relative minimax): piece k of a >= 0 where g(a)
// = a (alpha + beta a^power) is in [k, k + 1], k < count, fitted on it
// widened by 2^-16 (the kernel's rounded g may pick a neighbour there), in
// s = a - centre: the first piece's centre its middle, the others' their
// right end (a falling function's terms then all add), each rounded to a
// multiple of 2^-12 so that a - centre is exact. Printed in the kernels'
// layout: the centres, then coefficient j of piece k at row j, column k,
// coefficient 0's remainder last.
int graded(const function &fn, ld alpha, ld beta, int power, int count, int n) {
    const auto g = [&](ld a) { return a * (alpha + beta * powl(a, power)); };
    const auto g_inverse = [&](ld y) {
        ld lo = 0, hi = 1;
        while (g(hi) < y) hi *= 2;
        for (int i = 0; i < 200; ++i) (g((lo + hi) / 2) < y ? lo : hi) = (lo + hi) / 2;
        return lo;
    };
    std::vector<float> centres;
    std::vector<piece_fit<float>> fits;
    ld worst = 0;
    for (int k = 0; k < count; ++k) {
        const ld a = g_inverse(k), b = g_inverse(k + 1);
        const ld centre = (k == 0 ? roundl((a + b) / 2 * 4096) : ceill(b * 4096)) / 4096;
        centres.push_back(static_cast<float>(centre));
        fits.push_back(fit<float>(fn, a * (1 - 0x1p-16L), b * (1 + 0x1p-16L), n, centre, 1, true, true));
        print(fn, a, b, n, fits.back());
        worst = std::max(worst, fits.back().worst);
    }
    for (const piece_fit<float> &f : fits)
        for (float v : f.coef)
            if (!std::isfinite(v) || !std::isfinite(f.c0_lo))
                return std::fprintf(stderr, "fusebox-fit: a coefficient is not finite\n"), 1;
    std::printf("worst relative error %.3Lg (2^%.1f)\n", worst, static_cast<double>(log2l(worst)));
    const auto row = [&](auto value) {
        std::printf("    {");
        for (int k = 0; k < count; ++k) {
            char text[32];
            std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value(k)));
            std::printf("%s%sf%s", text, std::strpbrk(text, ".e") ? "" : ".0", k + 1 < count ? ", " : "},\n");
        }
    };
    row([&](int k) { return centres[k]; });
    for (int j = 0; j <= n; ++j) row([&](int k) { return fits[k].coef[j]; });
    row([&](int k) { return fits[k].c0_lo; });
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 2 && std::strcmp(argv[2], "graded") == 0) {
        if (argc != 8) {
            std::fprintf(stderr, "usage: fusebox-fit FUNCTION graded ALPHA BETA POWER COUNT DEGREE\n");
            return 2;
        }
        for (const function &fn : kFunctions)
            if (std::strcmp(fn.name, argv[1]) == 0 && !fn.absolute && fn.centred) {
                const int power = std::atoi(argv[5]), count = std::atoi(argv[6]), n = std::atoi(argv[7]);
                const ld alpha = strtold(argv[3], nullptr), beta = strtold(argv[4], nullptr);
                if (!(alpha > 0) || !(beta >= 0) || power < 1 || power > 2 || count < 1 || count > 64 || n < 1 ||
                    n > 20)
                    return std::fprintf(stderr,
                                        "fusebox-fit: need ALPHA > 0, BETA >= 0, POWER 1 or 2 (the kernels' g), "
                                        "1 <= COUNT <= 64, 1 <= DEGREE <= 20\n"),
                           2;
                return graded(fn, alpha, beta, power, count, n);
            }
        std::fprintf(stderr, "fusebox-fit: %s is not a centred function with relative error\n", argv[1]);
        return 2;
    }
    if (argc < 5) {
        std::fprintf(stderr, "usage: fusebox-fit FUNCTION A B DEGREE [f32|f64] [CENTRE SCALE [split] [minimax]]\n"
                             "       fusebox-fit FUNCTION graded ALPHA BETA POWER COUNT DEGREE\n");
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
            bool split = false, minimax = false;
            for (int i = 8; i < argc; ++i) {
                split |= std::strcmp(argv[i], "split") == 0;
                minimax |= std::strcmp(argv[i], "minimax") == 0;
                if (std::strcmp(argv[i], "split") != 0 && std::strcmp(argv[i], "minimax") != 0)
                    return std::fprintf(stderr, "fusebox-fit: unknown option %s (split, minimax)\n", argv[i]), 2;
            }
            if (minimax && fn.absolute) return std::fprintf(stderr, "fusebox-fit: minimax is for relative errors\n"), 2;
            return argc > 5 && std::strcmp(argv[5], "f64") == 0
                       ? fit_one<double>(fn, a, b, n, centre, scale, split, minimax)
                       : fit_one<float>(fn, a, b, n, centre, scale, split, minimax);
        }
    std::fprintf(stderr, "fusebox-fit: unknown function %s\n", argv[1]);
    return 2;
}
