// Half-precision rows at 2^25 elements, at 1 and 2 threads, each against the
// memory roof of the same streams measured in this process at the same
// thread count: Add over bf16/f16 and oneDNN Graph's mixed rows, a three-Add
// chain and Equal.
//
//   fusebox-microbench --benchmark_filter=Half
//
// Counters: GBps (inputs read plus output written, per second, of the fastest
// call), roof_GBps (the fastest pass of the roof), frac_roof (GBps / roof_GBps)
// and frac_roof_mean (the same from the mean time per call).
#include <benchmark/benchmark.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fusebox/fusebox.hpp>

#include "../common/reference.hpp"
#include "../common/roof.hpp"

namespace {

namespace fb = fusebox;
using dt = fb::data_type;
using lt = fb::logical_tensor;

constexpr int64_t kElements = int64_t{1} << 25;

struct row {
    const char *name;
    std::vector<dt> inputs; // a chain of Adds over them, or Equal of two
    bool equal;
};

const row kRows[] = {
    {"bf16+bf16->bf16", {dt::bf16, dt::bf16}, false},
    {"f16+f16->f16", {dt::f16, dt::f16}, false},
    {"f32+bf16->f32", {dt::f32, dt::bf16}, false},
    {"bf16+f32->f32", {dt::bf16, dt::f32}, false},
    {"f32+f16->f32", {dt::f32, dt::f16}, false},
    {"f16+f32->f32", {dt::f16, dt::f32}, false},
    {"bf16_chain3", {dt::bf16, dt::bf16, dt::bf16, dt::bf16}, false},
    {"f16_chain3", {dt::f16, dt::f16, dt::f16, dt::f16}, false},
    {"bf16==bf16", {dt::bf16, dt::bf16}, true},
    {"f16==f16", {dt::f16, dt::f16}, true},
};

// The roof of each (streams, threads), measured once per process.
const fbtools::memory_roof &roof_of(const fbtools::traffic &t, int threads) {
    static std::map<std::string, fbtools::memory_roof> roofs;
    std::string key = std::to_string(threads) + ":" + std::to_string(t.write);
    for (size_t r : t.reads) key += "," + std::to_string(r);
    auto it = roofs.find(key);
    if (it == roofs.end()) it = roofs.emplace(key, fbtools::measure_roof(t, threads)).first;
    return it->second;
}

void Half(benchmark::State &state) {
    const row &r = kRows[state.range(0)];
    const int threads = static_cast<int>(state.range(1));
    state.SetLabel(r.name);
    if (tbb::this_task_arena::max_concurrency() < threads) return state.SkipWithError("not enough threads");

    const fb::engine eng(fb::engine::kind::cpu);
    fb::stream strm(eng);
    fb::graph g(fb::engine::kind::cpu);
    std::vector<lt> ins;
    for (size_t i = 0; i < r.inputs.size(); ++i) ins.emplace_back(i, r.inputs[i], lt::dims{kElements});
    lt acc = ins[0];
    for (size_t i = 1; i < ins.size(); ++i) {
        lt next(100 + i, dt::undef, lt::layout_type::any);
        g.add_op(fb::op(i, r.equal ? fb::op::kind::Equal : fb::op::kind::Add, {acc, ins[i]}, {next}));
        acc = next;
    }
    g.finalize();
    const fb::partition part = g.get_partitions().at(0);

    tbb::task_arena arena(threads);
    arena.execute([&] {
        fb::compiled_partition cp = part.compile(ins, {acc}, eng);
        std::vector<std::unique_ptr<fbref::buffer>> bufs;
        std::vector<fb::tensor> in_t;
        fbtools::traffic traffic;
        std::mt19937_64 rng(1);
        for (const lt &l : ins) {
            bufs.push_back(std::make_unique<fbref::buffer>(l));
            fbref::fill(*bufs.back(), rng, false);
            in_t.emplace_back(l, eng, bufs.back()->data());
            traffic.reads.push_back(l.get_mem_size());
        }
        const lt out_lt = cp.query_logical_tensor(acc.get_id());
        fbref::buffer out(out_lt);
        traffic.write = out_lt.get_mem_size();
        std::vector<fb::tensor> out_t{fb::tensor(out_lt, eng, out.data())};
        const fbtools::memory_roof &roof = roof_of(traffic, threads);
        // The fastest call, as the roof is the fastest pass (and as the driver
        // reports): on a shared machine the mean carries the neighbours' noise.
        double best_s = std::numeric_limits<double>::infinity();
        for (auto _ : state) {
            const auto t0 = std::chrono::steady_clock::now();
            cp.execute(strm, in_t, out_t);
            best_s = std::min(best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        const double bytes = static_cast<double>(traffic.total());
        state.counters["GBps"] = bytes / best_s / 1e9;
        state.counters["roof_GBps"] = roof.gbps;
        state.counters["frac_roof"] = bytes / best_s / (roof.gbps * 1e9);
        state.counters["frac_roof_mean"] =
            benchmark::Counter(bytes / (roof.gbps * 1e9), benchmark::Counter::kIsIterationInvariantRate);
        state.counters["threads"] = threads;
        state.SetLabel(std::string(r.name) + " " + cp.get_impl_info());
    });
}

void half_arguments(benchmark::internal::Benchmark *b) {
    b->ArgNames({"row", "threads"});
    for (int threads : {1, 2})
        for (int64_t i = 0; i < static_cast<int64_t>(std::size(kRows)); ++i) b->Args({i, threads});
    b->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(Half)->Apply(half_arguments);

} // namespace
