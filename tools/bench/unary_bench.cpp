// The transcendental element loops in cache: one thread, 2^15 f32 elements
// (256 KiB in and out, in L2), so that the arithmetic, not memory, is timed.
// Each op on every Highway target compiled in, beside oneDNN's eltwise
// primitive (its JIT on this CPU) on the same buffers where oneDNN has the
// algorithm.
//
//   fusebox-kernelbench --benchmark_filter=Unary   (and =Linear: chains in registers)
//
// Counter: ns_per_elem (per element, of the mean time per call). Inputs are
// uniform in [-8, 8] (Log: (0, 16]).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <dnnl.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/element_loop.hpp"

namespace {

using namespace fbtools;
using k = fusebox::op::kind;

constexpr int64_t kElements = int64_t{1} << 15;

struct unary_row {
    const char *label;
    k kind;
    const char *mode;
    dnnl::algorithm alg; // eltwise_relu with `none`: oneDNN has no such algorithm
    bool none;
};

const unary_row kRows[] = {
    {"Exp", k::Exp, nullptr, dnnl::algorithm::eltwise_exp, false},
    {"Log", k::Log, nullptr, dnnl::algorithm::eltwise_log, false},
    {"Tanh", k::Tanh, nullptr, dnnl::algorithm::eltwise_tanh, false},
    {"Sigmoid", k::Sigmoid, nullptr, dnnl::algorithm::eltwise_logistic, false},
    {"Erf", k::Erf, nullptr, dnnl::algorithm::eltwise_relu, true},
    {"Elu", k::Elu, nullptr, dnnl::algorithm::eltwise_elu, false},
    {"Selu", k::Selu, nullptr, dnnl::algorithm::eltwise_relu, true},
    {"SoftPlus", k::SoftPlus, nullptr, dnnl::algorithm::eltwise_soft_relu, false},
    {"Mish", k::Mish, nullptr, dnnl::algorithm::eltwise_mish, false},
    {"GELU_erf", k::GELU, "gelu_erf", dnnl::algorithm::eltwise_gelu_erf, false},
    {"GELU_tanh", k::GELU, "gelu_tanh", dnnl::algorithm::eltwise_gelu_tanh, false},
};

std::vector<float> inputs(k kind) {
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> d(kind == k::Log ? 0x1p-20f : -8.0f, kind == k::Log ? 16.0f : 8.0f);
    std::vector<float> x(kElements);
    for (float &v : x) v = d(gen);
    return x;
}

void finish(benchmark::State &state) {
    state.SetItemsProcessed(state.iterations() * kElements);
    state.counters["ns_per_elem"] =
        benchmark::Counter(static_cast<double>(kElements) * 1e-9,
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// fusebox's loop for the row on one target.
void Unary(benchmark::State &state, const unary_row &r, const fusebox::detail::element_ops *ops) {
    const fusebox::op o = unary_op(r.kind, fusebox::data_type::f32, r.mode);
    const loop_call c = loop_for(*ops, o, fusebox::data_type::f32);
    if (!c.fn) return state.SkipWithError("no loop for this op on this target");
    const std::vector<float> x = inputs(r.kind);
    std::vector<float> out(kElements);
    for (auto _ : state) {
        run_loop(c, x.data(), out.data(), kElements);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    finish(state);
}

// oneDNN's eltwise primitive, one thread.
void Onednn(benchmark::State &state, const unary_row &r) {
    omp_set_num_threads(1);
    const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    const dnnl::memory::desc md({kElements}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    float alpha = r.kind == k::Elu ? 1.0f : 0.0f;
    if (r.kind == k::SoftPlus) alpha = 1.0f; // (soft_relu's beta where the version has one)
#if DNNL_VERSION_MAJOR >= 3
    dnnl::eltwise_forward::primitive_desc pd(eng, dnnl::prop_kind::forward_inference, r.alg, md, md, alpha, 0.0f);
#else
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, r.alg, md, alpha, 0.0f), eng);
#endif
    state.SetLabel(pd.impl_info_str());
    std::vector<float> x = inputs(r.kind), out(kElements);
    dnnl::memory mx(md, eng, x.data()), mo(md, eng, out.data());
    const dnnl::eltwise_forward prim(pd);
    for (auto _ : state) {
        prim.execute(strm, {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, mo}});
        strm.wait();
        benchmark::ClobberMemory();
    }
    finish(state);
}

// Linear chains in registers over rows of 3072 (8 rows, in L2), the
// model regions' shapes: S7's LayerNorm tail `((x - mean) / dev) * gamma +
// beta` (mean, dev per row; gamma, beta per column), S8's `ReLU(a + b)`, and
// one Add as the floor of two streams in and one out.
struct linear_row {
    const char *label;
    std::vector<fusebox::detail::linear_step> steps;
    std::vector<bool> along; // operands read along the row (the others one value per row)
};

void Linear(benchmark::State &state, const linear_row &r, const fusebox::detail::element_ops *ops) {
    using fusebox::detail::ew_fn;
    const fusebox::detail::linear_fn fn = ops->linear[static_cast<int>(ew_fn::identity)];
    if (!fn) return state.SkipWithError("no linear chains on this target");
    constexpr int64_t kCols = 3072, kRowCount = 8;
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> d(-8.0f, 8.0f);
    std::vector<std::vector<float>> data;
    for (bool a : r.along) {
        data.emplace_back(a ? kCols * kRowCount : kRowCount);
        for (float &v : data.back()) v = d(gen);
    }
    std::vector<float> out(kCols * kRowCount);
    const void *in[fusebox::detail::kMaxLinearOperands] = {};
    int64_t strides[fusebox::detail::kMaxLinearOperands] = {}, row_strides[fusebox::detail::kMaxLinearOperands] = {};
    for (size_t m = 0; m < r.along.size(); ++m)
        in[m] = data[m].data(), strides[m] = r.along[m], row_strides[m] = r.along[m] ? kCols : 1;
    for (auto _ : state) {
        fn(in, strides, 0, r.steps.data(), static_cast<int64_t>(r.steps.size()), out.data(), kCols, false, kRowCount,
           row_strides, kCols);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kCols * kRowCount);
    state.counters["ns_per_elem"] =
        benchmark::Counter(static_cast<double>(kCols * kRowCount) * 1e-9,
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

const linear_row kLinearRows[] = {
    {"S7",
     {{fusebox::detail::ew_fn::subtract, fusebox::detail::linear_step::left, 1},
      {fusebox::detail::ew_fn::divide, fusebox::detail::linear_step::left, 2},
      {fusebox::detail::ew_fn::multiply, fusebox::detail::linear_step::left, 3},
      {fusebox::detail::ew_fn::add, fusebox::detail::linear_step::left, 4}},
     {true, false, false, true, true}},
    {"S8",
     {{fusebox::detail::ew_fn::add, fusebox::detail::linear_step::left, 1},
      {fusebox::detail::ew_fn::relu, fusebox::detail::linear_step::unary, 0}},
     {true, true}},
    {"Add", {{fusebox::detail::ew_fn::add, fusebox::detail::linear_step::left, 1}}, {true, true}},
};

const bool kRegistered = [] {
    for (const linear_row &r : kLinearRows)
        for (const fusebox::detail::element_ops *ops : fusebox::detail::element_ops_for_every_target())
            benchmark::RegisterBenchmark((std::string("Linear/") + r.label + "/" + ops->isa).c_str(),
                                         [&r, ops](benchmark::State &s) { Linear(s, r, ops); });
    for (const unary_row &r : kRows) {
        for (const fusebox::detail::element_ops *ops : fusebox::detail::element_ops_for_every_target())
            benchmark::RegisterBenchmark((std::string("Unary/") + r.label + "/" + ops->isa).c_str(),
                                         [&r, ops](benchmark::State &s) { Unary(s, r, ops); });
        if (!r.none)
            benchmark::RegisterBenchmark((std::string("Unary/") + r.label + "/onednn").c_str(),
                                         [&r](benchmark::State &s) { Onednn(s, r); });
    }
    return true;
}();

} // namespace
