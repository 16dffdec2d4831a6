// fusebox-accuracy: measures the transcendental ops' error against
// ELEMENTWISE.md's bounds, on the element loops of each instruction set.
//
//   f32:       every one of the 2^32 inputs (--step=N: every N-th), against the
//              reference of tools/common/reference.hpp (x87 extended precision),
//              itself checked against MPFR at 160 bits on every 2^20-th input
//              and at the worst one;
//   f16, bf16: all 65,536 inputs, in ulp of the type;
//   f64:       --samples random inputs (several distributions) and the edge
//              values, against MPFR at 160 bits.
//
// Prints one row per op, type and instruction set: the largest error in ulp
// and the input where it occurs (GELU and Mish: in ulp where |result| >=
// 2^-20 |x|, and the largest relative error in the tail below). With
// --write-doc=FILE it replaces FILE's accuracy section with the table.
// Runs by hand (minutes per op for f32), not in CI.
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/element_loop.hpp"
#include "common/reference.hpp"
#include "interface/dtype.hpp"
#include "kernels/native/binary_ops.hpp"
#include "ops/elementwise.hpp"

namespace {

using namespace fbref;
using fbtools::loop_call;
using fbtools::loop_for;
using fbtools::run_loop;
namespace detail = fusebox::detail;

struct fn_case {
    const char *label;
    op::kind kind;
    const char *mode; // GELU's
};

const fn_case kCases[] = {
    {"Exp", op::kind::Exp, nullptr},
    {"Log", op::kind::Log, nullptr},
    {"Tanh", op::kind::Tanh, nullptr},
    {"Sigmoid", op::kind::Sigmoid, nullptr},
    {"Erf", op::kind::Erf, nullptr},
    {"Elu", op::kind::Elu, nullptr},
    {"Selu", op::kind::Selu, nullptr},
    {"SoftPlus", op::kind::SoftPlus, nullptr},
    {"Mish", op::kind::Mish, nullptr},
    {"GELU gelu_erf", op::kind::GELU, "gelu_erf"},
    {"GELU gelu_tanh", op::kind::GELU, "gelu_tanh"},
};

op make_op(const fn_case &c, dt t) { return fbtools::unary_op(c.kind, t, c.mode); }

// The op in MPFR at `prec` bits: the defining formula, written with
// identities that avoid cancellation (1 + tanh z = 2 / (1 + e^(-2z))).
void mpfr_eval(const op &o, double xd, mpfr_t r, mpfr_prec_t prec) {
    mpfr_t x, t, u;
    mpfr_inits2(prec, x, t, u, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_d(x, xd, MPFR_RNDN);
    // Mish and GELU tend to -0 as x -> -inf (where their formulas read -inf * 0).
    if ((o.get_kind() == op::kind::Mish || o.get_kind() == op::kind::GELU) && std::isinf(xd) && xd < 0) {
        mpfr_set_zero(r, -1);
        mpfr_clears(x, t, u, static_cast<mpfr_ptr>(nullptr));
        return;
    }
    const float alpha =
        ref_attr(o, op::attr::alpha, o.get_kind() == op::kind::Selu ? 1.67326319217681884765625f : 1.0f);
    switch (o.get_kind()) {
    case op::kind::Exp: mpfr_exp(r, x, MPFR_RNDN); break;
    case op::kind::Log: mpfr_log(r, x, MPFR_RNDN); break;
    case op::kind::Tanh: mpfr_tanh(r, x, MPFR_RNDN); break;
    case op::kind::Sigmoid: // 1 / (1 + e^-x)
        mpfr_neg(t, x, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_ui_div(r, 1, t, MPFR_RNDN);
        break;
    case op::kind::Erf: mpfr_erf(r, x, MPFR_RNDN); break;
    case op::kind::Elu:
    case op::kind::Selu:
        if (mpfr_sgn(x) > 0) {
            mpfr_set(r, x, MPFR_RNDN);
        } else {
            mpfr_expm1(r, x, MPFR_RNDN);
            mpfr_mul_d(r, r, alpha, MPFR_RNDN);
        }
        if (o.get_kind() == op::kind::Selu)
            mpfr_mul_d(r, r, ref_attr(o, op::attr::gamma, 1.05070102214813232421875f), MPFR_RNDN);
        break;
    case op::kind::SoftPlus: { // log(1 + e^y) / beta, y = beta x: max(y, 0) + log(1 + e^-|y|) (no overflow)
        const double beta = ref_attr(o, op::attr::beta, 1.0f);
        mpfr_mul_d(t, x, beta, MPFR_RNDN);
        mpfr_abs(u, t, MPFR_RNDN);
        mpfr_neg(u, u, MPFR_RNDN);
        mpfr_exp(u, u, MPFR_RNDN);
        mpfr_log1p(u, u, MPFR_RNDN);
        if (mpfr_sgn(t) > 0) mpfr_add(u, u, t, MPFR_RNDN);
        mpfr_div_d(r, u, beta, MPFR_RNDN);
        break;
    }
    case op::kind::Mish: // x tanh(log(1 + e^x))
        mpfr_exp(t, x, MPFR_RNDN);
        mpfr_log1p(t, t, MPFR_RNDN);
        mpfr_tanh(t, t, MPFR_RNDN);
        mpfr_mul(r, x, t, MPFR_RNDN);
        break;
    case op::kind::GELU: {
        auto m = o.get_attrs().find(op::attr::mode);
        if (m == o.get_attrs().end() || std::get<std::string>(m->second) == "gelu_erf") { // x/2 erfc(-x / sqrt 2)
            mpfr_sqrt_ui(t, 2, MPFR_RNDN);
            mpfr_div(t, x, t, MPFR_RNDN);
            mpfr_neg(t, t, MPFR_RNDN);
            mpfr_erfc(t, t, MPFR_RNDN);
            mpfr_mul(r, x, t, MPFR_RNDN);
            mpfr_div_ui(r, r, 2, MPFR_RNDN);
        } else { // x / (1 + e^(-2z)), z = sqrt(2/pi) (x + 0.044715 x^3)
            mpfr_set_str(u, "0.044715", 10, MPFR_RNDN);
            mpfr_pow_ui(t, x, 3, MPFR_RNDN);
            mpfr_mul(t, t, u, MPFR_RNDN);
            mpfr_add(t, t, x, MPFR_RNDN);
            mpfr_const_pi(u, MPFR_RNDN);
            mpfr_ui_div(u, 2, u, MPFR_RNDN);
            mpfr_sqrt(u, u, MPFR_RNDN);
            mpfr_mul(t, t, u, MPFR_RNDN);
            mpfr_mul_si(t, t, -2, MPFR_RNDN);
            mpfr_exp(t, t, MPFR_RNDN);
            mpfr_add_ui(t, t, 1, MPFR_RNDN);
            mpfr_div(r, x, t, MPFR_RNDN);
        }
        break;
    }
    default: mpfr_set_nan(r);
    }
    mpfr_clears(x, t, u, static_cast<mpfr_ptr>(nullptr));
}

long double mpfr_value(const op &o, double x) {
    mpfr_t r;
    mpfr_init2(r, 160);
    mpfr_eval(o, x, r, 160);
    const long double v = mpfr_get_ld(r, MPFR_RNDN);
    mpfr_clear(r);
    return v;
}

// One ulp of type t at the (exact) value v: the spacing of t's numbers of
// v's binade, at least the smallest subnormal.
long double ulp_at(dt t, long double v) {
    const int p = t == dt::f16 ? 11 : t == dt::bf16 ? 8 : t == dt::f32 ? 24 : 53;
    const int min_exp = t == dt::f16 ? -24 : t == dt::bf16 ? -133 : t == dt::f32 ? -149 : -1074;
    int e = 0;
    frexpl(v, &e); // v = m 2^e, 0.5 <= |m| < 1
    return ldexpl(1.0L, std::max(e - p, min_exp));
}

struct result {
    double max_ulp = 0, at = 0; // ulp error (GELU/Mish: where |r| >= 2^-20 |x|)
    double max_tail_rel = 0, tail_at = 0;
    uint64_t inputs = 0, special_mismatches = 0;
    double first_special = 0;
    void merge(const result &o) {
        if (o.max_ulp > max_ulp) max_ulp = o.max_ulp, at = o.at;
        if (o.max_tail_rel > max_tail_rel) max_tail_rel = o.max_tail_rel, tail_at = o.tail_at;
        if (o.special_mismatches && !special_mismatches) first_special = o.first_special;
        inputs += o.inputs, special_mismatches += o.special_mismatches;
    }
};

// The error of `got` (of type t) for input x whose exact result is r.
void account(result &res, const op &o, dt t, double x, long double r, long double got) {
    ++res.inputs;
    if (std::isnan(r) || std::isinf(r) || std::isnan(got) || std::isinf(got)) {
        const bool same = (std::isnan(r) && std::isnan(got)) || r == got;
        // A finite result that rounds to inf in t (overflow) is right as inf.
        const long double big = t == dt::f16    ? 65520.0L
                                : t == dt::bf16 ? 3.3961775292304e38L
                                : t == dt::f32  ? 3.40282356779733661637539395458142568448e38L
                                                : ldexpl(1.0L, 1024) - ldexpl(1.0L, 970);
        const bool overflow = std::isinf(got) && std::isfinite(r) && std::fabs(r) >= big && (got > 0) == (r > 0);
        if (!same && !overflow) {
            if (!res.special_mismatches) res.first_special = x;
            ++res.special_mismatches;
        }
        return;
    }
    const long double err = std::fabs(got - r);
    // GELU, Mish: relative error where the result is a normal number below
    // 2^-20 |x| (ELEMENTWISE.md's tail); ulp everywhere else.
    const long double min_normal = t == dt::f16   ? ldexpl(1.0L, -14)
                                   : t == dt::f64 ? ldexpl(1.0L, -1022)
                                                  : ldexpl(1.0L, -126);
    // (f16/bf16: within 1 ulp of the type everywhere.)
    const bool tail_rule =
        (o.get_kind() == op::kind::GELU || o.get_kind() == op::kind::Mish) && (t == dt::f32 || t == dt::f64);
    if (tail_rule && std::fabs(r) >= min_normal &&
        std::fabs(r) < ldexpl(1.0L, -20) * std::fabs(static_cast<long double>(x))) {
        const double rel = r == 0 ? (got == 0 ? 0.0 : INFINITY) : static_cast<double>(err / std::fabs(r));
        if (rel > res.max_tail_rel) res.max_tail_rel = rel, res.tail_at = x;
        return;
    }
    const double u = static_cast<double>(err / ulp_at(t, r));
    if (u > res.max_ulp) res.max_ulp = u, res.at = x;
}

// Every step-th f32 input, on `threads` threads; the reference checked
// against MPFR at every 4096th input and at the worst one.
result sweep_f32(const op &o, const loop_call &c, uint64_t step, unsigned threads, double &ref_dev) {
    std::vector<result> parts(threads);
    std::vector<double> dev(threads, 0);
    std::vector<std::thread> pool;
    const uint64_t total = (uint64_t{1} << 32);
    for (unsigned w = 0; w < threads; ++w)
        pool.emplace_back([&, w] {
            constexpr int64_t kBlock = 1 << 14;
            std::vector<float> xs(kBlock), got(kBlock);
            uint64_t evaluated = 0;
            for (uint64_t start = uint64_t{w} * kBlock * step; start < total;
                 start += uint64_t{threads} * kBlock * step) {
                int64_t n = 0;
                for (uint64_t i = start; i < total && n < kBlock; i += step, ++n) {
                    const uint32_t bits = static_cast<uint32_t>(i);
                    std::memcpy(&xs[n], &bits, 4);
                }
                run_loop(c, xs.data(), got.data(), n);
                for (int64_t k = 0; k < n; ++k) {
                    const long double r = ref_transcendental(o, xs[k]);
                    account(parts[w], o, dt::f32, xs[k], r, got[k]);
                    if (++evaluated % 4096 == 0 && std::isfinite(r) && std::isfinite(xs[k])) {
                        const long double m = mpfr_value(o, xs[k]);
                        if (std::isfinite(m) && m != 0)
                            dev[w] = std::max(dev[w], static_cast<double>(std::fabs(r - m) / ulp_at(dt::f32, m)));
                    }
                }
            }
        });
    for (auto &t : pool) t.join();
    result all;
    for (const auto &p : parts) all.merge(p);
    ref_dev = *std::max_element(dev.begin(), dev.end());
    if (all.inputs) { // the worst input, recomputed in MPFR
        const long double m = mpfr_value(o, all.at), r = ref_transcendental(o, static_cast<float>(all.at));
        if (std::isfinite(m) && m != 0)
            ref_dev = std::max(ref_dev, static_cast<double>(std::fabs(r - m) / ulp_at(dt::f32, m)));
    }
    return all;
}

result sweep_half(const op &o, const loop_call &c, dt t) {
    std::vector<uint16_t> xs(65536), got(65536);
    for (int i = 0; i < 65536; ++i) xs[i] = static_cast<uint16_t>(i);
    run_loop(c, xs.data(), got.data(), 65536);
    result res;
    for (int i = 0; i < 65536; ++i) {
        const double x = as_double(t, xs.data(), i);
        account(res, o, t, x, mpfr_value(o, x), as_double(t, got.data(), i));
    }
    return res;
}

result sample_f64(const op &o, const loop_call &c, uint64_t samples) {
    std::mt19937_64 rng(2026);
    std::vector<double> xs;
    for (double v : std::initializer_list<double>{
             0.0,     -0.0,     INFINITY, -INFINITY, NAN,    DBL_MIN, -DBL_MIN, 4.9406564584124654e-324,
             DBL_MAX, -DBL_MAX, 1.0,      -1.0,      709.78, 709.79,  -745.13,  -708.4,
             20.0,    -20.0,    -38.0,    -40.0,     1e-300, -1e-300})
        xs.push_back(v);
    std::normal_distribution<double> normal(0, 1);
    for (uint64_t i = 0; i < samples; ++i) {
        double v;
        switch (i % 4) {
        case 0: { // any bit pattern
            const uint64_t b = rng();
            std::memcpy(&v, &b, 8);
            break;
        }
        case 1: v = normal(rng); break;
        case 2: v = normal(rng) * 10; break;
        default: v = normal(rng) * 300; break;
        }
        xs.push_back(v);
    }
    std::vector<double> got(xs.size());
    run_loop(c, xs.data(), got.data(), static_cast<int64_t>(xs.size()));
    result res;
    for (size_t i = 0; i < xs.size(); ++i) account(res, o, dt::f64, xs[i], mpfr_value(o, xs[i]), got[i]);
    return res;
}

std::string sci(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2e", v);
    return b;
}

std::string format_x(double x) {
    char b[64];
    std::snprintf(b, sizeof b, "%.9g", x);
    return b;
}

} // namespace

int main(int argc, char **argv) {
    uint64_t step = 1, samples = 1000000;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::string only_op, types = "f32,f16,bf16,f64", isas, doc;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char *key) -> const char * {
            const size_t k = std::strlen(key);
            return a.compare(0, k, key) == 0 ? argv[i] + k : nullptr;
        };
        if (const char *v = value("--step="))
            step = std::max<uint64_t>(1, std::strtoull(v, nullptr, 10));
        else if (const char *v2 = value("--samples="))
            samples = std::strtoull(v2, nullptr, 10);
        else if (const char *v3 = value("--threads="))
            threads = std::max(1u, static_cast<unsigned>(std::strtoul(v3, nullptr, 10)));
        else if (const char *v4 = value("--op="))
            only_op = v4;
        else if (const char *v5 = value("--types="))
            types = v5;
        else if (const char *v6 = value("--isa="))
            isas = v6;
        else if (const char *v7 = value("--write-doc="))
            doc = v7;
        else {
            std::fprintf(
                stderr,
                "usage: fusebox-accuracy [--op=NAME] [--types=f32,f16,bf16,f64] [--isa=AVX3,AVX2,...]\n"
                "                        [--step=N] [--samples=N] [--threads=N] [--write-doc=doc/SUPPORT.md]\n");
            return 2;
        }
    }
    std::ostringstream table;
    table << "| op | type | ISA | inputs | max error (ulp) | at x | tail: max relative error | bound |\n"
          << "|---|---|---|---|---|---|---|---|\n";
    bool within = true;
    for (const detail::element_ops *ops : detail::element_ops_for_every_target()) {
        if (!isas.empty() && ("," + isas + ",").find("," + std::string(ops->isa) + ",") == std::string::npos) continue;
        for (const fn_case &fc : kCases) {
            if (!only_op.empty() && only_op != fc.label && only_op != op_kind_name(fc.kind)) continue;
            for (dt t : {dt::f32, dt::f16, dt::bf16, dt::f64}) {
                if (("," + types + ",").find("," + std::string(data_type_name(t)) + ",") == std::string::npos) continue;
                const op o = make_op(fc, t);
                const loop_call c = loop_for(*ops, o, t);
                if (!c.fn) continue;
                double ref_dev = 0;
                const result r = t == dt::f32   ? sweep_f32(o, c, step, threads, ref_dev)
                                 : t == dt::f64 ? sample_f64(o, c, samples)
                                                : sweep_half(o, c, t);
                const bool tail =
                    (fc.kind == op::kind::GELU || fc.kind == op::kind::Mish) && (t == dt::f32 || t == dt::f64);
                const double bound = t == dt::f16 || t == dt::bf16 ? 1 : tail ? 32 : 2;
                const bool ok = r.max_ulp <= bound && r.special_mismatches == 0 && (!tail || r.max_tail_rel <= 0x1p-10);
                within = within && ok;
                char ulp[32], rel[48];
                std::snprintf(ulp, sizeof ulp, "%.3f", r.max_ulp);
                std::snprintf(rel, sizeof rel, tail ? "%.2e at %s" : "–", r.max_tail_rel, format_x(r.tail_at).c_str());
                const std::string inputs =
                    t == dt::f32   ? (step == 1 ? "all 2^32" : "every " + std::to_string(step) + "th of 2^32")
                    : t == dt::f64 ? std::to_string(r.inputs) + " sampled"
                                   : "all 65,536";
                table << "| " << fc.label << " | " << data_type_name(t) << " | " << ops->isa << " | " << inputs << " | "
                      << ulp << " | " << format_x(r.at) << " | " << (tail ? rel : "–") << " | "
                      << (tail ? std::string("32 ulp; tail 2^-10") : std::to_string(static_cast<int>(bound)) + " ulp")
                      << " |\n";
                std::printf("%-15s %-4s %-6s inputs %-12" PRIu64 " max %.4f ulp at %s%s%s special mismatches %" PRIu64
                            "%s%s\n",
                            fc.label, data_type_name(t), ops->isa, r.inputs, r.max_ulp, format_x(r.at).c_str(),
                            tail ? ", tail rel " : "", tail ? rel : "", r.special_mismatches,
                            t == dt::f32 ? (", reference vs MPFR " + sci(ref_dev) + " ulp").c_str() : "",
                            ok ? "" : "  ** over the bound");
                std::fflush(stdout);
            }
        }
    }
    if (!doc.empty()) {
        std::ifstream in(doc);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string text = ss.str();
        const std::string begin = "<!-- accuracy:begin (generated by tools/accuracy/accuracy.cpp) -->\n",
                          end = "<!-- accuracy:end -->";
        const size_t b = text.find(begin), e = text.find(end);
        if (b == std::string::npos || e == std::string::npos) {
            std::fprintf(stderr, "fusebox-accuracy: no accuracy markers in %s\n", doc.c_str());
            return 1;
        }
        text.replace(b + begin.size(), e - b - begin.size(), table.str());
        std::ofstream(doc) << text;
    }
    return within ? 0 : 1;
}
