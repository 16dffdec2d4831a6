// fusebox-benchdnn: runs oneDNN Graph JSON cases on fusebox in correctness
// (C) and performance (P) mode, with the knobs of benchdnn's graph driver.
//
//   fusebox-benchdnn --mode=C --batch=benchdnn_cases/ci
//   fusebox-benchdnn --mode=P --in-shapes=0:64x256x64x64+1:64x256x64x64 --case=benchdnn_cases/op/add_f32.json
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "../common/reference.hpp"
#include "../common/roof.hpp"
#include "graph_case.hpp"
#include "onednn_direct.hpp"

namespace fbbench {
namespace {

using namespace fusebox;
using fbref::buffer;
using clock_type = std::chrono::steady_clock;

enum class outcome { passed, failed, skipped, mistrusted, unimplemented, invalid_arguments };

const char *outcome_name(outcome o) {
    switch (o) {
    case outcome::passed: return "PASSED";
    case outcome::failed: return "FAILED";
    case outcome::skipped: return "SKIPPED";
    case outcome::mistrusted: return "MISTRUSTED";
    case outcome::unimplemented: return "UNIMPLEMENTED";
    case outcome::invalid_arguments: return "INVALID_ARGUMENTS";
    }
    return "?";
}

struct settings {
    std::string mode = "C";
    case_knobs knobs;
    int expected_partitions = 1;
    std::string policy = "fusion", impl = "auto";
    int threads = 0; // 0: all of the default arena
    double max_ms = 1000;
    bool csv = false;
};

struct result {
    outcome status = outcome::passed;
    std::string reason;
};

std::string repro(const settings &s, const std::string &case_path) {
    std::ostringstream os;
    os << "--mode=" << s.mode;
    if (!s.knobs.in_shapes.empty()) os << " --in-shapes=" << s.knobs.in_shapes;
    if (!s.knobs.op_attrs.empty()) os << " --op-attrs=" << s.knobs.op_attrs;
    if (!s.knobs.op_kind.empty()) os << " --op-kind=" << s.knobs.op_kind;
    if (!s.knobs.dt.empty()) os << " --dt=" << s.knobs.dt;
    if (s.expected_partitions != 1) os << " --expected-n-partitions=" << s.expected_partitions;
    if (s.policy != "fusion") os << " --policy=" << s.policy;
    if (s.impl != "auto") os << " --impl=" << s.impl;
    if (s.threads) os << " --num-threads=" << s.threads;
    os << " --case=" << case_path;
    return os.str();
}

// ---- the reference: every op of the graph, in dependency order ----

dims broadcast_shape(const op &o, const dims &a, const dims &b) {
    if (o.get_attrs().count(op::attr::broadcast)) return a; // legacy: the output has A's shape
    return fbref::numpy_broadcast(a, b);
}

int64_t legacy_first_dim(const op &o, size_t rank_a, size_t rank_b) {
    auto it = o.get_attrs().find(op::attr::broadcast);
    if (it == o.get_attrs().end() || std::get<int64_t>(it->second) == 0) return -1;
    auto ax = o.get_attrs().find(op::attr::axis);
    if (ax == o.get_attrs().end()) return static_cast<int64_t>(rank_a) - static_cast<int64_t>(rank_b);
    int64_t axis = std::get<int64_t>(ax->second);
    return axis < 0 ? axis + static_cast<int64_t>(rank_a) : axis;
}

data_type reference_type(const op &o, data_type a, data_type b) {
    if (o.get_kind() == op::kind::Equal) return data_type::boolean;
    return a == b ? a : data_type::f32;
}

/// Evaluates every op; `values` holds the graph inputs and receives the rest.
void reference_graph(const std::vector<op> &ops, std::map<size_t, std::shared_ptr<buffer>> &values) {
    std::vector<bool> done(ops.size(), false);
    for (size_t finished = 0, pass = 0; finished < ops.size() && pass <= ops.size(); ++pass) {
        for (size_t i = 0; i < ops.size(); ++i) {
            const op &o = ops[i];
            if (done[i]) continue;
            if (o.get_kind() == op::kind::End) {
                done[i] = true, ++finished;
                continue;
            }
            const size_t ia = o.get_inputs()[0].get_id(), ib = o.get_inputs()[1].get_id();
            if (!values.count(ia) || !values.count(ib)) continue;
            const buffer &a = *values.at(ia), &b = *values.at(ib);
            const dims shape = broadcast_shape(o, a.lt.get_dims(), b.lt.get_dims());
            auto out = std::make_shared<buffer>(logical_tensor(
                o.get_outputs()[0].get_id(), reference_type(o, a.lt.get_data_type(), b.lt.get_data_type()), shape));
            fbref::ref_binary(o.get_kind(), a, b, *out,
                              legacy_first_dim(o, a.lt.get_dims().size(), b.lt.get_dims().size()));
            values[out->lt.get_id()] = out;
            done[i] = true, ++finished;
        }
    }
}

// ---- running a case ----

struct compiled_case {
    std::vector<partition> parts;
    std::vector<compiled_partition> compiled;
    std::vector<std::vector<tensor>> ins, outs;
    std::map<size_t, std::shared_ptr<buffer>> values; // every tensor by id
    double compile_ms = 0, cache_hit_us = 0;
    size_t bytes = 0; // moved per execution of all partitions
    std::string impl;

    void execute(stream &s) {
        for (size_t p = 0; p < compiled.size(); ++p) compiled[p].execute(s, ins[p], outs[p]);
    }
};

struct impl_env {
    explicit impl_env(const std::string &impl) {
        if (impl == "auto")
            unsetenv("FUSEBOX_KERNEL");
        else
            setenv("FUSEBOX_KERNEL", impl.c_str(), 1);
    }
    ~impl_env() { unsetenv("FUSEBOX_KERNEL"); }
};

// Compiles every partition first (timed, before any large allocation can
// disturb the timing), then allocates and fills the tensors.
compiled_case prepare(const graph_case &gc, const settings &s, uint64_t seed) {
    compiled_case cc;
    graph g = gc.build();
    g.finalize();
    cc.parts = g.get_partitions(s.policy == "debug" ? partition::policy::debug : partition::policy::fusion);
    std::map<size_t, logical_tensor> lts; // every tensor as compiled
    const std::vector<size_t> graph_inputs = gc.graph_inputs();
    for (const auto &o : gc.ops)
        for (const auto &t : o.inputs)
            if (std::count(graph_inputs.begin(), graph_inputs.end(), t.id)) {
                logical_tensor lt = t.to_logical();
                if (!lt.has_known_shape())
                    throw case_error(gc.path + ": graph input " + std::to_string(t.id) +
                                     " has no known shape (give one with --in-shapes)");
                const dims strides = fbref::strides_of(lt);
                if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s < 0; }))
                    lt = logical_tensor(lt.get_id(), lt.get_data_type(), lt.get_dims()); // strides not fixed: dense
                lts.emplace(t.id, lt);
            }
    const engine eng(engine::kind::cpu);
    impl_env env(s.impl);
    std::vector<std::vector<logical_tensor>> part_ins, part_outs;
    for (const partition &p : cc.parts) {
        if (!p.is_supported())
            throw error(status::unimplemented, "partition " + std::to_string(p.get_id()) + " is not supported");
        std::vector<logical_tensor> in_lts, out_lts;
        for (const auto &port : p.get_input_ports()) in_lts.push_back(lts.at(port.get_id()));
        for (const auto &port : p.get_output_ports())
            out_lts.push_back(logical_tensor(port.get_id(), port.get_data_type(), logical_tensor::layout_type::any));
        auto start = clock_type::now();
        compiled_partition cp = p.compile(in_lts, out_lts, eng);
        cc.compile_ms += std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
        double hit_us = 1e300;
        for (int i = 0; i < 5; ++i) { // compile-cache hits
            start = clock_type::now();
            p.compile(in_lts, out_lts, eng);
            hit_us = std::min(hit_us, std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
        }
        cc.cache_hit_us += hit_us;
        for (auto &lt : out_lts) lts[lt.get_id()] = lt = cp.query_logical_tensor(lt.get_id());
        cc.impl += (cc.impl.empty() ? "" : "|") + cp.get_impl_info();
        cc.compiled.push_back(std::move(cp));
        part_ins.push_back(in_lts);
        part_outs.push_back(out_lts);
    }
    std::mt19937_64 rng(seed);
    for (size_t id : graph_inputs) {
        auto b = std::make_shared<buffer>(lts.at(id));
        fbref::fill(*b, rng, s.mode.find('C') != std::string::npos);
        cc.values[id] = b;
    }
    for (size_t p = 0; p < cc.parts.size(); ++p) {
        std::vector<tensor> ins, outs;
        for (const auto &lt : part_outs[p]) {
            auto b = std::make_shared<buffer>(lt);
            outs.emplace_back(lt, eng, b->data());
            cc.values[lt.get_id()] = b;
            cc.bytes += lt.get_mem_size();
        }
        for (const auto &lt : part_ins[p]) {
            ins.emplace_back(lt, eng, cc.values.at(lt.get_id())->data());
            cc.bytes += lt.get_mem_size();
        }
        cc.ins.push_back(std::move(ins));
        cc.outs.push_back(std::move(outs));
    }
    return cc;
}

result check_correctness(const graph_case &gc, compiled_case &cc) {
    stream s(engine(engine::kind::cpu));
    cc.execute(s);
    std::map<size_t, std::shared_ptr<buffer>> ref;
    for (size_t id : gc.graph_inputs()) ref[id] = cc.values.at(id);
    // The reference reads only kinds, attributes and tensor ids from the ops;
    // shapes and types come from the buffers.
    reference_graph(gc.to_ops(), ref);
    size_t compared = 0;
    for (const auto &part : cc.parts)
        for (const auto &port : part.get_output_ports()) {
            const buffer &got = *cc.values.at(port.get_id());
            const auto want = ref.find(port.get_id());
            if (want == ref.end()) return {outcome::failed, "no reference for tensor " + std::to_string(port.get_id())};
            buffer expected(got.lt); // the reference, laid out like fusebox's output
            if (want->second->lt.get_dims() != got.lt.get_dims())
                return {outcome::failed, "tensor " + std::to_string(port.get_id()) + " has shape " +
                                             std::to_string(got.lt.get_dims().size()) + "-d unlike the reference"};
            fbref::for_each_index(got.lt.get_dims(), [&](int64_t, const dims &idx) {
                const size_t es = data_type_size(got.lt.get_data_type());
                std::memcpy(expected.bytes.data() + fbref::offset_of(got.strides, idx) * es,
                            want->second->bytes.data() + fbref::offset_of(want->second->strides, idx) * es, es);
            });
            std::string diff = fbref::first_mismatch(expected, got);
            if (!diff.empty()) return {outcome::failed, "tensor " + std::to_string(port.get_id()) + ": " + diff};
            ++compared;
        }
    if (!compared) return {outcome::mistrusted, "no outputs to compare"};
    return {};
}

struct timing {
    double min_ms = 0, avg_ms = 0;
    int runs = 0;
};

timing time_runs(const std::function<void()> &run, double budget_ms) {
    for (int i = 0; i < 3; ++i) run(); // warm-up: page faults, caches, lazy init
    timing t;
    t.min_ms = 1e300;
    double total = 0;
    const auto start = clock_type::now();
    do {
        auto s = clock_type::now();
        run();
        double ms = std::chrono::duration<double, std::milli>(clock_type::now() - s).count();
        t.min_ms = std::min(t.min_ms, ms), total += ms, ++t.runs;
    } while (std::chrono::duration<double, std::milli>(clock_type::now() - start).count() < budget_ms || t.runs < 5);
    t.avg_ms = total / t.runs;
    return t;
}

class driver {
public:
    int parse(const std::vector<std::string> &args, const std::string &base_dir);
    int finish();

private:
    void run_case(const std::string &path);
    result run_perf(const graph_case &gc, const std::string &repro_line);
    const fbtools::memory_roof &roof(int threads);
    int threads() const { return s_.threads ? s_.threads : tbb::this_task_arena::max_concurrency(); }

    settings s_;
    std::map<outcome, int> counts_;
    int tests_ = 0;
    std::map<int, fbtools::memory_roof> roofs_;
    bool csv_header_done_ = false;
    std::vector<std::string> table_; // one markdown row per performance case
};

const fbtools::memory_roof &driver::roof(int threads) {
    auto it = roofs_.find(threads);
    if (it != roofs_.end()) return it->second;
    fbtools::memory_roof r = fbtools::measure_memory_roof(threads);
    std::printf("roof,threads=%d,plain_GBps=%.2f,nt_GBps=%.2f,roof_GBps=%.2f\n", threads, r.plain_gbps, r.nt_gbps,
                r.best());
    return roofs_[threads] = r;
}

result driver::run_perf(const graph_case &gc, const std::string &repro_line) {
    const int n = threads();
    const double roof_gbps = roof(n).best();
    tbb::task_arena arena(n);
    std::string impl;
    size_t bytes = 0;
    double compile_ms = 0, cache_hit_us = 0;
    timing t;
    std::optional<result> early;
    arena.execute([&] {
        if (s_.impl == "dnnl") { // the direct oneDNN reference row
            graph g = gc.build();
            g.finalize();
            auto parts = g.get_partitions(partition::policy::debug);
            if (parts.size() != 1 || gc.graph_inputs().size() != 2) {
                early = result{outcome::skipped, "the direct oneDNN row runs single-op cases only"};
                return;
            }
            compiled_case cc = prepare(gc, settings{}, 1);
            const logical_tensor port = parts[0].get_output_ports()[0];
            const auto in = gc.graph_inputs();
            buffer &out = *cc.values.at(port.get_id());
            std::string why;
            const op::kind kind = gc.ops[0].kind == "Equal" ? op::kind::Equal : op::kind::Add;
            auto direct = make_direct_primitive(kind, *cc.values.at(in[0]), *cc.values.at(in[1]), out, n, why);
            if (!direct) {
                early = result{outcome::skipped, why};
                return;
            }
            impl = direct->impl, bytes = cc.bytes;
            t = time_runs(direct->run, s_.max_ms);
            return;
        }
        compiled_case cc = prepare(gc, s_, 1);
        if (s_.expected_partitions && static_cast<int>(cc.parts.size()) != s_.expected_partitions) {
            early = result{outcome::failed, "expected " + std::to_string(s_.expected_partitions) + " partitions, got " +
                                                std::to_string(cc.parts.size())};
            return;
        }
        stream s(engine(engine::kind::cpu));
        impl = cc.impl, bytes = cc.bytes, compile_ms = cc.compile_ms, cache_hit_us = cc.cache_hit_us;
        t = time_runs([&] { cc.execute(s); }, s_.max_ms);
    });
    if (early) return *early;
    const double gbps = static_cast<double>(bytes) / (t.min_ms * 1e-3) / 1e9;
    if (s_.csv) {
        if (!csv_header_done_)
            std::printf("csv,case,impl,bytes,min_ms,avg_ms,GBps,roof_GBps,frac_roof,compile_ms,cache_hit_us\n");
        csv_header_done_ = true;
        std::printf("csv,\"%s\",%s,%zu,%.6f,%.6f,%.3f,%.3f,%.4f,%.4f,%.3f\n", repro_line.c_str(), impl.c_str(), bytes,
                    t.min_ms, t.avg_ms, gbps, roof_gbps, gbps / roof_gbps, compile_ms, cache_hit_us);
    } else {
        char row[1024];
        std::snprintf(row, sizeof(row), "| `%s` | %s | %.2f | %.2f | %.2f | %.3f | %.2f |", repro_line.c_str(),
                      impl.c_str(), t.min_ms * 1e3, gbps, gbps / roof_gbps, compile_ms, cache_hit_us);
        table_.push_back(row);
        std::printf(
            "perf,cpu,%s,%s,bytes=%zu,min_ms=%.4f,avg_ms=%.4f,min_us=%.3f,GBps=%.2f,%%roof=%.1f,compile_ms=%.4f,"
            "cache_hit_us=%.2f,runs=%d\n",
            impl.c_str(), repro_line.c_str(), bytes, t.min_ms, t.avg_ms, t.min_ms * 1e3, gbps, 100.0 * gbps / roof_gbps,
            compile_ms, cache_hit_us, t.runs);
    }
    return {};
}

void driver::run_case(const std::string &path) {
    const std::string line = repro(s_, path);
    result r;
    try {
        graph_case gc = load_case(path);
        s_.knobs.apply(gc);
        if (s_.mode.find('C') != std::string::npos) {
            const int n = threads();
            tbb::task_arena arena(n);
            arena.execute([&] {
                compiled_case cc = prepare(gc, s_, 7);
                if (s_.expected_partitions && static_cast<int>(cc.parts.size()) != s_.expected_partitions)
                    r = {outcome::failed, "expected " + std::to_string(s_.expected_partitions) + " partitions, got " +
                                              std::to_string(cc.parts.size())};
                else
                    r = check_correctness(gc, cc);
            });
        }
        if (r.status == outcome::passed && s_.mode.find('P') != std::string::npos) r = run_perf(gc, line);
    } catch (const case_error &e) {
        r = {std::string(e.what()).find("unsupported op kind") != std::string::npos ? outcome::unimplemented
                                                                                    : outcome::invalid_arguments,
             e.what()};
    } catch (const error &e) {
        r = {e.get_status() == status::unimplemented ? outcome::unimplemented : outcome::invalid_arguments, e.what()};
    } catch (const std::exception &e) {
        r = {outcome::failed, e.what()};
    }
    ++counts_[r.status];
    std::printf("%d:%s%s __REPRO: %s\n", tests_++, outcome_name(r.status),
                r.reason.empty() ? "" : (" (" + r.reason + ")").c_str(), line.c_str());
    std::fflush(stdout);
}

int driver::parse(const std::vector<std::string> &args, const std::string &base_dir) {
    auto resolve = [&](const std::string &p) {
        if (p.empty() || p[0] == '/' || std::ifstream(p) || base_dir.empty()) return p;
        return base_dir + "/" + p;
    };
    for (const std::string &arg : args) {
        auto value = [&](const char *key) -> std::optional<std::string> {
            const size_t n = std::strlen(key);
            if (arg.compare(0, n, key) == 0) return arg.substr(n);
            return std::nullopt;
        };
        if (auto v = value("--case="))
            run_case(resolve(*v));
        else if (auto v = value("--batch=")) {
            const std::string file = resolve(*v);
            std::ifstream in(file);
            if (!in) {
                std::fprintf(stderr, "fusebox-benchdnn: cannot open batch file %s\n", file.c_str());
                return 2;
            }
            const std::string dir = file.find('/') == std::string::npos ? "." : file.substr(0, file.rfind('/'));
            std::string line;
            std::vector<std::string> words;
            while (std::getline(in, line)) {
                line = line.substr(0, line.find('#'));
                std::istringstream ls(line);
                for (std::string w; ls >> w;) words.push_back(w);
            }
            if (int rc = parse(words, dir)) return rc;
        } else if (arg == "--reset") {
            s_ = settings{s_.mode, case_knobs{}, 1, "fusion", "auto", s_.threads, s_.max_ms, s_.csv};
        } else if (auto v = value("--mode=")) {
            if (*v != "C" && *v != "P" && *v != "CP" && *v != "PC")
                return std::fprintf(stderr, "fusebox-benchdnn: --mode must be C, P or CP\n"), 2;
            s_.mode = *v;
        } else if (auto v = value("--in-shapes="))
            s_.knobs.in_shapes = *v;
        else if (auto v = value("--op-attrs="))
            s_.knobs.op_attrs = *v;
        else if (auto v = value("--op-kind="))
            s_.knobs.op_kind = *v;
        else if (auto v = value("--dt="))
            s_.knobs.dt = *v;
        else if (auto v = value("--expected-n-partitions="))
            s_.expected_partitions = std::atoi(v->c_str());
        else if (auto v = value("--policy=")) {
            if (*v != "fusion" && *v != "debug")
                return std::fprintf(stderr, "fusebox-benchdnn: --policy must be fusion or debug\n"), 2;
            s_.policy = *v;
        } else if (auto v = value("--impl=")) {
            if (*v != "auto" && *v != "onednn" && *v != "native" && *v != "dnnl")
                return std::fprintf(stderr, "fusebox-benchdnn: --impl must be auto, onednn, native or dnnl\n"), 2;
            s_.impl = *v;
        } else if (auto v = value("--num-threads="))
            s_.threads = std::max(0, std::atoi(v->c_str()));
        else if (auto v = value("--max-ms-per-prb="))
            s_.max_ms = std::atof(v->c_str());
        else if (auto v = value("--perf-template="))
            s_.csv = *v == "csv";
        else if (arg == "--graph" || arg.rfind("--engine=cpu", 0) == 0)
            continue; // benchdnn's driver selector
        else if (arg == "--help" || arg == "-h") {
            std::printf(
                "usage: fusebox-benchdnn [--mode=C|P|CP] [--reset] [--in-shapes=ID:SHAPE[*STRIDES|*TAG][+...]]\n"
                "  [--op-attrs=ID:NAME:VALUE[*NAME:VALUE][+...]] [--op-kind=ID:KIND[+...]] [--dt=DT|ID:DT[+...]]\n"
                "  [--expected-n-partitions=N] [--policy=fusion|debug] [--impl=auto|onednn|native|dnnl]\n"
                "  [--num-threads=N] [--max-ms-per-prb=MS] [--perf-template=csv] (--case=FILE | --batch=FILE)...\n");
            return 0;
        } else {
            std::fprintf(stderr, "fusebox-benchdnn: unknown argument \"%s\" (see --help)\n", arg.c_str());
            return 2;
        }
    }
    return 0;
}

int driver::finish() {
    if (!table_.empty()) {
        std::printf("\n| case | implementation | min us | GB/s | fraction of roof | compile ms | cache hit us |\n"
                    "|---|---|---|---|---|---|---|\n");
        for (const auto &row : table_) std::printf("%s\n", row.c_str());
        std::printf("\n");
    }
    std::printf("tests:%d passed:%d skipped:%d mistrusted:%d unimplemented:%d invalid_arguments:%d failed:%d\n", tests_,
                counts_[outcome::passed], counts_[outcome::skipped], counts_[outcome::mistrusted],
                counts_[outcome::unimplemented], counts_[outcome::invalid_arguments], counts_[outcome::failed]);
    const int bad = counts_[outcome::failed] + counts_[outcome::unimplemented] + counts_[outcome::invalid_arguments];
    return bad ? 1 : 0;
}

} // namespace
} // namespace fbbench

int main(int argc, char **argv) {
    fbbench::driver d;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (int rc = d.parse(args, "")) return rc;
    return d.finish();
}
