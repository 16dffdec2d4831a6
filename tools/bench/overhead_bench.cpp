// Per-call cost of fusebox on tiny partitions, beside a direct oneDNN
// primitive doing the same work: execute and compile-cache hits at 1 and 2
// threads, 1 to 4096 elements, 2 to 5 inputs (an Add chain; Equal for 2).
//
//   fusebox-microbench --benchmark_filter=Overhead
//
// fusebox runs on a TBB arena of the given width; the direct primitive runs
// on oneDNN's OpenMP team of that width, the way an integrator would call it.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <tbb/task_arena.h>

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <fusebox/fusebox.hpp>

namespace {

namespace fb = fusebox;

struct problem {
    bool equal;    // Equal (2 inputs) or an Add chain
    int inputs;    // 2..5
    int64_t elems; // per tensor
    int threads;
};

problem decode(const benchmark::State &state) {
    return {state.range(0) != 0, static_cast<int>(state.range(1)), state.range(2), static_cast<int>(state.range(3))};
}

// x0 + x1 + ... as one fused partition, or Equal(x0, x1).
struct fused_partition {
    fb::engine eng{fb::engine::kind::cpu};
    fb::stream strm{eng};
    fb::partition part;
    std::vector<fb::logical_tensor> in_lts, out_lts;
    std::vector<std::vector<float>> in_data;
    std::vector<unsigned char> out_data;

    explicit fused_partition(const problem &p) : in_data(p.inputs, std::vector<float>(p.elems, 1.5f)) {
        using lt = fb::logical_tensor;
        fb::graph g(fb::engine::kind::cpu);
        for (int i = 0; i < p.inputs; ++i) in_lts.emplace_back(i, fb::data_type::f32, lt::dims{p.elems});
        size_t next = p.inputs;
        lt acc = in_lts[0];
        for (int i = 1; i < p.inputs; ++i) {
            lt out(next++, p.equal ? fb::data_type::boolean : fb::data_type::f32, lt::layout_type::any);
            g.add_op(fb::op(i, p.equal ? fb::op::kind::Equal : fb::op::kind::Add, {acc, in_lts[i]}, {out}, "op"));
            acc = out;
        }
        out_lts = {acc};
        g.finalize();
        auto parts = g.get_partitions();
        if (parts.size() != 1) throw std::runtime_error("expected one partition");
        part = parts[0];
        out_data.resize(p.elems * 4);
    }
};

void set_threads(benchmark::State &state, int threads) {
    state.counters["threads"] = threads;
    if (tbb::this_task_arena::max_concurrency() < threads) state.SkipWithError("not enough threads");
}

void Overhead_execute(benchmark::State &state) {
    const problem p = decode(state);
    set_threads(state, p.threads);
    fused_partition f(p);
    tbb::task_arena arena(p.threads);
    arena.execute([&] {
        fb::compiled_partition cp = f.part.compile(f.in_lts, f.out_lts, f.eng);
        std::vector<fb::tensor> ins, outs;
        for (int i = 0; i < p.inputs; ++i) ins.emplace_back(f.in_lts[i], f.eng, f.in_data[i].data());
        outs.emplace_back(cp.query_logical_tensor(f.out_lts[0].get_id()), f.eng, f.out_data.data());
        state.SetLabel(cp.get_impl_info());
        for (auto _ : state) cp.execute(f.strm, ins, outs);
    });
}

void Overhead_compile_cache_hit(benchmark::State &state) {
    const problem p = decode(state);
    set_threads(state, p.threads);
    fused_partition f(p);
    tbb::task_arena arena(p.threads);
    arena.execute([&] {
        f.part.compile(f.in_lts, f.out_lts, f.eng); // fills the cache
        for (auto _ : state) benchmark::DoNotOptimize(f.part.compile(f.in_lts, f.out_lts, f.eng));
    });
}

// The same work as one oneDNN binary primitive with post-ops, executed the
// documented way (an argument map per call) on oneDNN's OpenMP threads.
void Overhead_direct_onednn(benchmark::State &state) {
    const problem p = decode(state);
    set_threads(state, p.threads);
    using dnnl::memory;
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    const memory::desc src({p.elems}, memory::data_type::f32, memory::format_tag::a);
    const memory::desc dst({p.elems}, p.equal ? memory::data_type::u8 : memory::data_type::f32, memory::format_tag::a);
    dnnl::post_ops post;
    for (int i = 2; i < p.inputs; ++i) post.append_binary(dnnl::algorithm::binary_add, src);
    dnnl::primitive_attr attr;
    attr.set_post_ops(post);
    const auto alg = p.equal ? dnnl::algorithm::binary_eq : dnnl::algorithm::binary_add;
#if DNNL_VERSION_MAJOR >= 3
    dnnl::binary::primitive_desc pd(eng, alg, src, src, dst, attr);
#else
    dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, src, src, dst), attr, eng);
#endif
    dnnl::binary prim(pd);
    std::vector<std::vector<float>> in(p.inputs, std::vector<float>(p.elems, 1.5f));
    std::vector<float> out(p.elems);
    std::unordered_map<int, memory> args;
    args.emplace(DNNL_ARG_SRC_0, memory(src, eng, in[0].data()));
    args.emplace(DNNL_ARG_SRC_1, memory(src, eng, in[1].data()));
    for (int i = 2; i < p.inputs; ++i)
        args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i - 2) | DNNL_ARG_SRC_1, memory(src, eng, in[i].data()));
    args.emplace(DNNL_ARG_DST, memory(dst, eng, out.data()));
    state.SetLabel(std::string("dnnl:") + pd.impl_info_str());
    const int previous = omp_get_max_threads();
    omp_set_num_threads(p.threads);
    for (auto _ : state) {
        prim.execute(strm, args);
        strm.wait();
    }
    omp_set_num_threads(previous);
}

void arguments(benchmark::internal::Benchmark *b) {
    b->ArgNames({"equal", "inputs", "elems", "threads"});
    for (int threads : {1, 2})
        for (int64_t elems : {1, 16, 208, 4096}) {
            b->Args({1, 2, elems, threads});
            for (int inputs = 2; inputs <= 5; ++inputs) b->Args({0, inputs, elems, threads});
        }
}

BENCHMARK(Overhead_execute)->Apply(arguments);
BENCHMARK(Overhead_direct_onednn)->Apply(arguments);
BENCHMARK(Overhead_compile_cache_hit)->Apply(arguments);

} // namespace
