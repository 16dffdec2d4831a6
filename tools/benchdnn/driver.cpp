#include "driver.hpp"

#include <omp.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <sstream>

#include "../common/reference.hpp"
#include "onednn_direct.hpp"

namespace fbbench {
namespace {

using namespace fusebox;
using fbref::buffer;
using clock_type = std::chrono::steady_clock;

const char *outcome_name(outcome o) {
    switch (o) {
    case outcome::passed: return "PASSED";
    case outcome::failed: return "FAILED";
    case outcome::skipped: return "SKIPPED";
    case outcome::mistrusted: return "MISTRUSTED";
    case outcome::unimplemented: return "UNIMPLEMENTED";
    case outcome::invalid_arguments: return "INVALID_ARGUMENTS";
    case outcome::listed: return "LISTED";
    }
    return "?";
}

struct result {
    outcome status = outcome::passed;
    std::string reason;
};

/// A case that gives another number of partitions than --expected-n-partitions.
struct wrong_partitions : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A problem whose buffers cannot fit in this machine's memory.
struct too_large : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Fails with too_large before allocating `bytes` that exceed physical memory
// (allocating them would fail, or swap, or abort under a sanitizer).
void check_fits(size_t bytes) {
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    if (physical > 0 && static_cast<double>(bytes) > physical)
        throw too_large("not enough memory: the buffers need " + std::to_string(bytes >> 20) +
                        " MiB, the machine has " + std::to_string(static_cast<size_t>(physical) >> 20) + " MiB");
}

int arena_threads(int threads) { return threads ? threads : tbb::this_task_arena::max_concurrency(); }

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// Sets FUSEBOX_KERNEL for fusebox's rows (auto, onednn, native).
struct kernel_choice {
    explicit kernel_choice(const std::string &impl) {
        if (impl == "auto" || impl == "dnnl") // the direct row uses fusebox only to prepare buffers
            unsetenv("FUSEBOX_KERNEL");
        else
            setenv("FUSEBOX_KERNEL", impl.c_str(), 1);
    }
    ~kernel_choice() { unsetenv("FUSEBOX_KERNEL"); }
};

// Every partition of a case compiled, with buffers for every tensor.
struct compiled_case {
    std::vector<partition> parts;
    std::vector<compiled_partition> compiled;
    std::vector<std::vector<tensor>> ins, outs;
    std::map<size_t, std::shared_ptr<buffer>> values; // every tensor by id
    double compile_ms = 0, cache_hit_us = 0;
    fbtools::traffic traffic;
    std::string impl;

    void execute(stream &s) {
        for (size_t p = 0; p < compiled.size(); ++p) compiled[p].execute(s, ins[p], outs[p]);
    }
};

// Every element of `b` to `text`, a value of its type: floats rounded to
// nearest (f16 and bf16 through f32) and finite in the type; integers
// written as integers in the type's range; booleans 0 or 1.
void set_every_element(buffer &b, const std::string &text, const std::string &what) {
    const data_type t = b.lt.get_data_type();
    const size_t es = data_type_size(t);
    const auto not_of_type = [&]() -> case_error {
        return case_error(what + ": " + text + " is not a value of " + data_type_name(t));
    };
    unsigned char bytes[8] = {};
    if (t == data_type::f32 || t == data_type::f64 || t == data_type::f16 || t == data_type::bf16) {
        const double v = parse_real(text, -HUGE_VAL, HUGE_VAL, what);
        const float f = std::fabs(v) <= FLT_MAX ? static_cast<float>(v) : HUGE_VALF; // (past it: out of range)
        uint16_t h = 0;
        if (t == data_type::f16) h = fbref::ref_f32_to_f16(f);
        if (t == data_type::bf16) h = fbref::ref_f32_to_bf16(f);
        const bool finite = t == data_type::f64   ? true
                            : t == data_type::f32 ? std::isfinite(f)
                            : t == data_type::f16 ? (h & 0x7C00) != 0x7C00
                                                  : (h & 0x7F80) != 0x7F80;
        if (!finite) throw not_of_type();
        if (t == data_type::f64)
            std::memcpy(bytes, &v, 8);
        else if (t == data_type::f32)
            std::memcpy(bytes, &f, 4);
        else
            std::memcpy(bytes, &h, 2);
    } else if (t == data_type::u64) {
        const char *begin = text.c_str();
        char *end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(begin, &end, 10);
        if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) || end != begin + text.size() ||
            errno == ERANGE)
            throw not_of_type();
        const uint64_t u = v;
        std::memcpy(bytes, &u, 8);
    } else {
        int64_t lo = 0, hi = 0;
        switch (t) {
        case data_type::boolean: hi = 1; break;
        case data_type::s8: lo = INT8_MIN, hi = INT8_MAX; break;
        case data_type::u8: hi = UINT8_MAX; break;
        case data_type::s16: lo = INT16_MIN, hi = INT16_MAX; break;
        case data_type::u16: hi = UINT16_MAX; break;
        case data_type::s32: lo = INT32_MIN, hi = INT32_MAX; break;
        case data_type::u32: hi = UINT32_MAX; break;
        case data_type::s64: lo = INT64_MIN, hi = INT64_MAX; break;
        default: throw case_error(what + ": no value for a " + data_type_name(t) + " tensor");
        }
        int64_t v = 0;
        try {
            v = parse_int(text, lo, hi, what);
        } catch (const case_error &) {
            throw not_of_type();
        }
        std::memcpy(bytes, &v, es); // (little-endian: the low bytes)
    }
    for (size_t at = 0; at + es <= b.bytes.size(); at += es) std::memcpy(b.bytes.data() + at, bytes, es);
}

// Fills a graph input: every element drawn when the values are checked; for
// timing, the first 64 KiB drawn and repeated (ordinary values either way;
// drawing 2^26 elements one by one took longer than timing them).
void fill_input(buffer &b, std::mt19937_64 &rng, bool check_values) {
    constexpr size_t kDrawn = 64 << 10;
    const size_t es = std::max<size_t>(data_type_size(b.lt.get_data_type()), 1);
    if (check_values || b.bytes.size() <= 2 * kDrawn || b.lt.get_data_type() == data_type::string)
        return fbref::fill(b, rng, check_values);
    buffer head(logical_tensor(b.lt.get_id(), b.lt.get_data_type(), dims{static_cast<int64_t>(kDrawn / es)}));
    fbref::fill(head, rng, false);
    for (size_t at = 0; at < b.bytes.size(); at += kDrawn)
        std::memcpy(b.bytes.data() + at, head.bytes.data(), std::min(kDrawn, b.bytes.size() - at));
}

// --in-values, each id one of the graph's inputs.
std::vector<std::pair<size_t, std::string>> checked_in_values(const graph_case &gc, const std::string &text) {
    const auto values = parse_in_values(text);
    const std::vector<size_t> inputs = gc.graph_inputs();
    for (const auto &[id, v] : values)
        if (!std::count(inputs.begin(), inputs.end(), id))
            throw case_error(gc.path + ": --in-values: tensor " + std::to_string(id) + " is not a graph input");
    return values;
}

// Compiles every partition first (timed cold, with the compile cache off, then
// as cache hits), then allocates and fills the tensors. Outputs take the dim
// order of their partition's first non-dense input of the same rank, as
// benchdnn's outputs follow their inputs' memory tag.
compiled_case prepare(const graph_case &gc, const problem &p, bool check_values) {
    compiled_case cc;
    graph g = gc.build();
    g.finalize();
    cc.parts = g.get_partitions(p.policy == "debug" ? partition::policy::debug : partition::policy::fusion);
    const auto kind_of = [&](const partition &part) {
        for (const auto &o : gc.ops)
            if (o.id == part.get_ops()[0]) return o.kind;
        return std::string("an op");
    };
    // An End is a partition of its own with nothing to run: not counted, not compiled.
    cc.parts.erase(
        std::remove_if(cc.parts.begin(), cc.parts.end(),
                       [&](const partition &part) { return !part.is_supported() && kind_of(part) == "End"; }),
        cc.parts.end());
    for (const partition &part : cc.parts) // a graph fusebox cannot run whole is unimplemented, whatever its count
        if (!part.is_supported())
            throw error(status::unimplemented, "partition " + std::to_string(part.get_id()) + " holds " +
                                                   kind_of(part) + ", which fusebox does not run");
    if (p.expected_partitions && static_cast<int64_t>(cc.parts.size()) != p.expected_partitions)
        throw wrong_partitions("expected " + std::to_string(p.expected_partitions) + " partitions, got " +
                               std::to_string(cc.parts.size()));
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
    kernel_choice choice(p.impl);
    std::vector<std::vector<logical_tensor>> part_ins, part_outs;
    for (const partition &part : cc.parts) {
        std::vector<logical_tensor> in_lts, out_lts;
        for (const auto &port : part.get_input_ports()) in_lts.push_back(lts.at(port.get_id()));
        for (const auto &port : part.get_output_ports()) {
            // The case's layout for the output: its strides, or their dim order
            // when a knob rewrote the shapes; else fusebox's choice (any).
            logical_tensor out(port.get_id(), port.get_data_type(), logical_tensor::layout_type::any);
            const tensor_desc *d = gc.output_desc(port.get_id());
            if (d && port.has_known_shape()) {
                if (d->known_rank && d->layout == logical_tensor::layout_type::strided && !d->strides.empty() &&
                    d->shape == port.get_dims())
                    out = logical_tensor(port.get_id(), port.get_data_type(), d->shape, d->strides);
                else if (d->order.size() == static_cast<size_t>(port.get_ndims()))
                    out = logical_tensor(
                        port.get_id(), port.get_data_type(), port.get_dims(),
                        dense_strides(port.get_dims(), d->order, "output " + std::to_string(port.get_id())));
            }
            out_lts.push_back(out);
        }
        // The cold compile, with the cache off so that an earlier run of the case cannot make it a hit.
        const int capacity = get_compiled_partition_cache_capacity();
        set_compiled_partition_cache_capacity(0);
        auto start = clock_type::now();
        compiled_partition cp = part.compile(in_lts, out_lts, eng);
        cc.compile_ms += ms_since(start);
        set_compiled_partition_cache_capacity(capacity);
        part.compile(in_lts, out_lts, eng); // into the cache
        double hit_us = 1e300;
        for (int i = 0; i < 5; ++i) {
            start = clock_type::now();
            part.compile(in_lts, out_lts, eng);
            hit_us = std::min(hit_us, ms_since(start) * 1e3);
        }
        cc.cache_hit_us += hit_us;
        for (auto &lt : out_lts) lts[lt.get_id()] = lt = cp.query_logical_tensor(lt.get_id());
        cc.impl += (cc.impl.empty() ? "" : "|") + cp.get_impl_info();
        cc.compiled.push_back(std::move(cp));
        part_ins.push_back(in_lts);
        part_outs.push_back(out_lts);
    }
    size_t bytes = 0; // every buffer, and the reference's copies when checking
    for (const auto &[id, lt] : lts)
        if (__builtin_add_overflow(bytes, lt.get_mem_size(), &bytes)) bytes = SIZE_MAX;
    check_fits(check_values ? fusebox::detail::checked_mul(bytes, size_t{2}).value_or(SIZE_MAX) : bytes);
    std::mt19937_64 rng(check_values ? 7 : 1);
    const auto values = checked_in_values(gc, p.in_values);
    for (size_t id : graph_inputs) {
        auto b = std::make_shared<buffer>(lts.at(id));
        fill_input(*b, rng, check_values);
        for (const auto &[vid, v] : values)
            if (vid == id) set_every_element(*b, v, "--in-values=" + std::to_string(id) + ":" + v);
        cc.values[id] = b;
    }
    for (size_t i = 0; i < cc.parts.size(); ++i) {
        std::vector<tensor> ins, outs;
        for (const auto &lt : part_outs[i]) {
            auto b = std::make_shared<buffer>(lt);
            outs.emplace_back(lt, eng, b->data());
            cc.values[lt.get_id()] = b;
            cc.traffic.write += lt.get_mem_size();
        }
        for (const auto &lt : part_ins[i]) {
            ins.emplace_back(lt, eng, cc.values.at(lt.get_id())->data());
            cc.traffic.reads.push_back(lt.get_mem_size());
            cc.traffic.read_at.push_back(static_cast<unsigned char *>(cc.values.at(lt.get_id())->data()));
        }
        // The roof runs on the case's own pages where it is one stream
        // written and those read; otherwise on its own.
        if (cc.parts.size() == 1 && part_outs[i].size() == 1)
            cc.traffic.write_at = static_cast<unsigned char *>(cc.values.at(part_outs[i][0].get_id())->data());
        else
            cc.traffic.read_at.clear();
        cc.ins.push_back(std::move(ins));
        cc.outs.push_back(std::move(outs));
    }
    return cc;
}

// The first element of `got` that differs from `want` (beyond `max_ulp` for
// floats), compared index by index whatever the two layouts; empty if none.
std::string compare(const buffer &want, const buffer &got, int64_t max_ulp) {
    if (want.lt.get_dims() != got.lt.get_dims()) return "another shape than the reference";
    buffer expected(got.lt); // the reference, laid out like fusebox's output
    const size_t es = data_type_size(got.lt.get_data_type());
    fbref::for_each_index(got.lt.get_dims(), [&](int64_t, const dims &idx) {
        std::memcpy(expected.bytes.data() + fbref::offset_of(got.strides, idx) * es,
                    want.bytes.data() + fbref::offset_of(want.strides, idx) * es, es);
    });
    return fbref::first_mismatch(expected, got, max_ulp);
}

// Compares every output port with the reference (the case's ops one by one).
result check(const graph_case &gc, const compiled_case &cc) {
    std::map<size_t, std::shared_ptr<buffer>> ref;
    for (size_t id : gc.graph_inputs()) ref[id] = cc.values.at(id);
    fbref::reference_graph(gc.to_ops(), ref);
    size_t compared = 0;
    for (const auto &part : cc.parts)
        for (const auto &port : part.get_output_ports()) {
            const auto want = ref.find(port.get_id());
            if (want == ref.end()) return {outcome::failed, "no reference for tensor " + std::to_string(port.get_id())};
            // (f64 Pow: within 1 ulp of the reference, libm's pow not being correctly rounded.)
            const std::string diff =
                compare(*want->second, *cc.values.at(port.get_id()), fbref::ref_max_ulp(gc.to_ops()));
            if (!diff.empty()) return {outcome::failed, "tensor " + std::to_string(port.get_id()) + ": " + diff};
            ++compared;
        }
    if (!compared) return {outcome::mistrusted, "no outputs to compare"};
    return {};
}

// A graph holding a transcendental op: the bound holds for that op, not for
// what later ops make of its error (Add(R, GELU(x)) near R = -GELU(x) has few
// bits left). So the case runs op by op as well (policy debug, every
// intermediate materialized): each op's result must equal the reference of
// that op on fusebox's own inputs to it, within the op's own bound (exact ops
// bit for bit), and the fused outputs must equal the op-by-op ones bit for bit.
result check_op_by_op(const graph_case &gc, const problem &p, const compiled_case &cc) {
    std::optional<compiled_case> debug;
    if (p.policy != "debug") {
        problem pd = p;
        pd.policy = "debug";
        pd.expected_partitions = 0;
        debug.emplace(prepare(gc, pd, true)); // the same inputs: the same seed
        stream s{engine(engine::kind::cpu)};
        debug->execute(s);
        for (const auto &part : cc.parts)
            for (const auto &port : part.get_output_ports()) {
                const std::string diff = compare(*debug->values.at(port.get_id()), *cc.values.at(port.get_id()), 0);
                if (!diff.empty())
                    return {outcome::failed,
                            "tensor " + std::to_string(port.get_id()) + ": fused differs from op by op: " + diff};
            }
    }
    const compiled_case &ops = debug ? *debug : cc;
    for (const op &o : gc.to_ops()) {
        if (o.get_outputs().empty()) continue; // End
        std::map<size_t, std::shared_ptr<buffer>> ref;
        for (const auto &in : o.get_inputs()) ref[in.get_id()] = ops.values.at(in.get_id());
        fbref::reference_graph({o}, ref);
        const size_t out = o.get_outputs()[0].get_id();
        const buffer &got = *ops.values.at(out);
        const std::string diff = compare(*ref.at(out), got, fbref::ref_max_ulp(o.get_kind(), got.lt.get_data_type()));
        if (!diff.empty())
            return {outcome::failed, "tensor " + std::to_string(out) + " (op " + std::to_string(o.get_id()) + " " +
                                         op_kind_name(o.get_kind()) + " on fusebox's inputs): " + diff};
    }
    return {};
}

// Best and mean time of one run. Runs shorter than ~20 us are timed in
// groups so that the clock's own cost and resolution do not count.
// `warm`: skip the warm-up (a later slice of the same case); `min_runs`:
// repeat at least this often whatever the budget.
timing time_runs(const std::function<void()> &run, double budget_ms, bool warm = false, int min_runs = 5) {
    if (!warm)
        for (int i = 0; i < 3; ++i) run(); // warm-up: page faults, caches, lazy init
    int group = 1;
    for (auto t0 = clock_type::now(); ms_since(t0) < 0.02; ++group) run();
    timing t;
    t.min_ms = 1e300;
    double total = 0;
    const auto start = clock_type::now();
    do {
        const auto t0 = clock_type::now();
        for (int i = 0; i < group; ++i) run();
        const double ms = ms_since(t0) / group;
        t.min_ms = std::min(t.min_ms, ms), total += ms, ++t.runs;
    } while (ms_since(start) < budget_ms || t.runs < min_runs);
    t.avg_ms = total / t.runs;
    return t;
}

// The case as oneDNN primitives called directly, in oneDNN's own threading.
std::unique_ptr<direct_primitive> direct_row(const graph_case &gc, const compiled_case &cc, std::string &why) {
    if (cc.parts.size() != 1) return why = "the direct oneDNN row runs single-partition cases only", nullptr;
    return make_direct_graph(gc.to_ops(), cc.values, why);
}

template <typename T> std::string join(const std::vector<T> &v) {
    std::ostringstream os;
    for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
    return os.str();
}

} // namespace

std::string problem::repro(const std::string &mode) const {
    std::ostringstream os;
    os << "--mode=" << mode;
    if (!knobs.in_shapes.empty()) os << " --in-shapes=" << knobs.in_shapes;
    if (!in_values.empty()) os << " --in-values=" << in_values;
    if (!knobs.op_attrs.empty()) os << " --op-attrs=" << knobs.op_attrs;
    if (expected_partitions != 1) os << " --expected-n-partitions=" << expected_partitions;
    if (!knobs.fpmath.empty()) os << " --attr-fpmath=" << knobs.fpmath;
    if (!knobs.op_kind.empty()) os << " --op-kind=" << knobs.op_kind;
    if (!knobs.dt.empty()) os << " --dt=" << knobs.dt;
    if (knobs.mb) os << " --mb=" << knobs.mb;
    if (impl != "auto") os << " --impl=" << impl;
    if (policy != "fusion") os << " --policy=" << policy;
    if (threads) os << " --num-threads=" << threads;
    os << " --case=" << path;
    return os.str();
}

std::string driver::roof_key(const fbtools::traffic &t, int threads) const {
    std::string key = std::to_string(threads) + ":" + std::to_string(t.write);
    for (size_t b : t.reads) key += "," + std::to_string(b);
    return key;
}

void driver::keep_roof(const std::string &key, const fbtools::memory_roof &r, int threads, size_t bytes) {
    std::printf("roof,threads=%d,bytes=%zu,level=%s,plain_GBps=%.2f,nt_GBps=%.2f,roof_GBps=%.2f,roof_threads=%d,"
                "roof_kernel=%s\n",
                threads, bytes, r.level.c_str(), r.plain_gbps, r.nt_gbps, r.gbps, r.threads, r.kernel.c_str());
    if (roof_ != "measure") { // a file of roofs: add this one
        std::ofstream(roof_, std::ios::app) << key << " " << r.gbps << " " << r.plain_gbps << " " << r.nt_gbps << " "
                                            << r.threads << " " << r.level << "\n";
    }
    roofs_[key] = r;
}

// Slices of a case's budget that alternate with its roof's.
constexpr int kRoofSlices = 4;
// A case faster than its roof by more than this is a defect of the roof (a
// simple kernel the roof lacks), not a fraction above 1: it is flagged.
constexpr double kRoofSlack = 1.05;
// Rounds of slices more for a case past kRoofSlack before it is flagged.
constexpr int kRoofRechecks = 2;

timing driver::time_case(const std::function<void()> &run, const fbtools::traffic &t, int threads,
                         const std::function<void(const std::function<void()> &)> &in_context,
                         const fbtools::memory_roof *&roof) {
    roof = nullptr;
    timing total;
    const std::string key = roof_key(t, threads);
    // Measured again for every case, beside it, not reused from an earlier
    // case of the same streams: a shared machine's bandwidth drifts by 10 -
    // 30 % over minutes. A --roof=FILE keeps and reuses them on purpose.
    auto known = roof_ != "measure" ? roofs_.find(key) : roofs_.end();
    if (roof_ == "skip" || known != roofs_.end()) {
        if (known != roofs_.end()) roof = &known->second;
        in_context([&] { total = time_runs(run, max_ms_); });
        return total;
    }
    // Both get the case's whole budget: each is a best of runs on a noisy
    // machine, and a best of fewer runs would be lower by chance.
    fbtools::roof_session session(t, threads);
    total.min_ms = 1e300;
    double sum = 0;
    auto slices = [&](int first, int n) {
        for (int k = first; k < first + n; ++k) {
            timing slice;
            in_context([&] { slice = time_runs(run, max_ms_ / kRoofSlices, k > 0, 2); });
            total.min_ms = std::min(total.min_ms, slice.min_ms);
            sum += slice.avg_ms * slice.runs, total.runs += slice.runs;
            session.run(max_ms_ / kRoofSlices);
        }
    };
    slices(0, kRoofSlices);
    // A case past its roof is measured again beside it before it is called a
    // defect: this VM's memory switches between a slow and a fast state
    // (50 and 88 GB/s) for seconds at a time, and a switch inside the slices
    // can favour either side. A real defect stays a defect.
    const auto beats_roof = [&] {
        return static_cast<double>(t.total()) / (total.min_ms * 1e-3) / 1e9 > kRoofSlack * session.result().gbps;
    };
    for (int again = 0; again < kRoofRechecks && beats_roof(); ++again)
        session.rescreen(), slices(kRoofSlices * (again + 1), kRoofSlices);
    total.avg_ms = sum / total.runs;
    keep_roof(key, session.result(), threads, t.total());
    roof = &roofs_.at(key);
    return total;
}

void driver::report_perf(const problem &p, const std::string &impl, size_t bytes, const timing &t,
                         const fbtools::memory_roof *r, int threads, double compile_ms, double cache_hit_us) {
    const std::string line = p.repro(mode_);
    const double min_ms = t.min_ms, avg_ms = t.avg_ms;
    const int runs = t.runs;
    const double gbps = static_cast<double>(bytes) / (min_ms * 1e-3) / 1e9;
    const double roof_gbps = r ? r->gbps : 0, frac = r && r->gbps > 0 ? gbps / r->gbps : 0;
    const std::string level = r ? r->level : fbtools::memory_level(bytes);
    const bool defect = frac > kRoofSlack;
    roof_defects_ += defect;
    if (defect)
        std::printf("roof_defect,%s: %.2f of the roof (%.2f GB/s) measured for it: the roof misses a faster simple "
                    "kernel\n",
                    line.c_str(), frac, roof_gbps);
    if (csv_) {
        if (!csv_header_done_)
            std::printf("csv,case,impl,threads,bytes,level,min_us,avg_us,GBps,roof_GBps,frac_roof,compile_ms,"
                        "cache_hit_us\n");
        csv_header_done_ = true;
        std::printf("csv,\"%s\",%s,%d,%zu,%s,%.4f,%.4f,%.3f,%.3f,%.4f,%.4f,%.3f\n", line.c_str(), impl.c_str(), threads,
                    bytes, level.c_str(), min_ms * 1e3, avg_ms * 1e3, gbps, roof_gbps, frac, compile_ms, cache_hit_us);
        return;
    }
    char row[2048];
    std::snprintf(row, sizeof(row), "| `%s` | %s | %d | %s | %.3f | %.2f | %.2f | %s | %.3f | %.2f |", line.c_str(),
                  impl.c_str(), threads, level.c_str(), min_ms * 1e3, gbps, roof_gbps,
                  !r       ? "–"
                  : defect ? ("roof defect (" + std::to_string(frac).substr(0, 4) + ")").c_str()
                           : std::to_string(frac).substr(0, 4).c_str(),
                  compile_ms, cache_hit_us);
    table_.push_back(row);
    std::printf("perf,cpu,%s,%s,threads=%d,bytes=%zu,level=%s,min_us=%.3f,avg_us=%.3f,GBps=%.2f,roof_GBps=%.2f,"
                "frac_roof=%.3f,compile_ms=%.4f,cache_hit_us=%.2f,runs=%d,roof_defect=%s\n",
                impl.c_str(), line.c_str(), threads, bytes, level.c_str(), min_ms * 1e3, avg_ms * 1e3, gbps, roof_gbps,
                frac, compile_ms, cache_hit_us, runs, defect ? "yes" : "no");
}

void driver::run_problem(const problem &p) {
    result r;
    try {
        graph_case gc = load_case(p.path);
        p.knobs.apply(gc);
        if (mode_ == "L") {
            graph g = gc.build();
            g.finalize();
            g.get_partitions(p.policy == "debug" ? partition::policy::debug : partition::policy::fusion);
            checked_in_values(gc, p.in_values);
            r = {outcome::listed, ""};
        }
        const int n = arena_threads(p.threads);
        if (r.status == outcome::passed && mode_.find('C') != std::string::npos) {
            tbb::task_arena arena(n);
            arena.execute([&] {
                compiled_case cc = prepare(gc, p, true);
                if (p.impl == "dnnl") { // check the direct primitive's own result
                    std::string why;
                    auto direct = direct_row(gc, cc, why);
                    if (!direct) {
                        r = {outcome::skipped, why};
                        return;
                    }
                    omp_set_num_threads(n);
                    direct->run();
                } else {
                    stream s{engine(engine::kind::cpu)};
                    cc.execute(s);
                }
                const auto ops = gc.to_ops();
                const bool approximate = std::any_of(
                    ops.begin(), ops.end(), [](const op &o) { return fbref::ref_is_approximate(o.get_kind()); });
                r = approximate && p.impl != "dnnl" ? check_op_by_op(gc, p, cc) : check(gc, cc);
                // oneDNN's own values across a region (ReLU(NaN) = 0, its
                // transcendental functions' accuracy, post-ops rounded once):
                // a peer's result, reported, not a failure of fusebox. Other
                // failures (shapes, missing outputs) stay failures.
                const auto computing =
                    std::count_if(ops.begin(), ops.end(), [](const op &o) { return o.get_kind() != op::kind::End; });
                if (r.status == outcome::failed && p.impl == "dnnl" && computing > 1 &&
                    r.reason.find("element at offset") != std::string::npos)
                    r = {outcome::mistrusted, "oneDNN's result differs from the reference: " + r.reason};
            });
        }
        if (r.status == outcome::passed && mode_.find('P') != std::string::npos) {
            tbb::task_arena arena(n);
            std::optional<compiled_case> cc;
            arena.execute([&] { cc.emplace(prepare(gc, p, false)); });
            size_t bytes = cc->traffic.total();
            if (p.impl == "dnnl") {
                std::string why;
                auto direct = direct_row(gc, *cc, why);
                if (!direct) {
                    r = {outcome::skipped, why};
                } else { // outside any TBB arena: oneDNN runs on its own OpenMP team of n threads
                    omp_set_num_threads(n);
                    const fbtools::memory_roof *roof = nullptr;
                    const timing t = time_case(
                        direct->run, cc->traffic, n, [](const auto &f) { f(); }, roof);
                    report_perf(p, direct->impl, bytes, t, roof, n, 0, 0);
                }
            } else {
                stream s{engine(engine::kind::cpu)};
                const fbtools::memory_roof *roof = nullptr;
                const timing t = time_case([&] { cc->execute(s); }, cc->traffic, n,
                                           [&](const auto &f) { arena.execute([&] { f(); }); }, roof);
                report_perf(p, cc->impl, bytes, t, roof, n, cc->compile_ms, cc->cache_hit_us);
            }
        }
    } catch (const case_unimplemented &e) {
        r = {outcome::unimplemented, e.what()};
    } catch (const case_error &e) {
        r = {outcome::invalid_arguments, e.what()};
    } catch (const error &e) {
        r = {e.get_status() == status::unimplemented ? outcome::unimplemented : outcome::invalid_arguments, e.what()};
    } catch (const std::bad_alloc &) {
        r = {outcome::skipped, "not enough memory"};
    } catch (const too_large &e) {
        r = {outcome::skipped, e.what()};
    } catch (const wrong_partitions &e) {
        r = {outcome::failed, e.what()};
    } catch (const std::exception &e) {
        r = {outcome::failed, e.what()};
    }
    if (mode_ == "L" && r.status == outcome::passed) r.status = outcome::listed;
    ++counts_[r.status];
    std::printf("%d:%s%s __REPRO: %s\n", tests_++, outcome_name(r.status),
                r.reason.empty() ? "" : (" (" + r.reason + ")").c_str(), p.repro(mode_).c_str());
    std::fflush(stdout);
}

size_t knob_lists::problems() const {
    size_t n = 1;
    for (size_t size : {in_shapes.size(), op_attrs.size(), expected_partitions.size(), fpmath.size(), op_kind.size(),
                        dt.size(), mb.size(), impl.size(), policy.size(), threads.size()})
        n = fusebox::detail::checked_mul(n, size).value_or(SIZE_MAX);
    return n;
}

void driver::run_case(const std::string &path) {
    // benchdnn's order, outermost first.
    const knob_lists &k = lists_;
    for (const auto &in_shapes : k.in_shapes)
        for (const auto &op_attrs : k.op_attrs)
            for (int64_t partitions : k.expected_partitions)
                for (const auto &fpmath : k.fpmath)
                    for (const auto &op_kind : k.op_kind)
                        for (const auto &dt : k.dt)
                            for (int64_t mb : k.mb)
                                for (const auto &impl : k.impl)
                                    for (const auto &policy : k.policy)
                                        for (int threads : k.threads) {
                                            problem p;
                                            p.path = path;
                                            p.knobs = case_knobs{in_shapes, op_attrs, op_kind, dt, fpmath, mb};
                                            p.expected_partitions = partitions;
                                            p.impl = impl, p.policy = policy, p.threads = threads;
                                            p.in_values = k.in_values;
                                            run_problem(p);
                                        }
}

int driver::run(const std::vector<std::string> &args, const std::string &base_dir) {
    auto resolve = [&](const std::string &p) {
        if (p.empty() || p[0] == '/' || std::ifstream(p) || base_dir.empty()) return p;
        return base_dir + "/" + p;
    };
    auto fail = [](const std::string &why) {
        std::fprintf(stderr, "fusebox-benchdnn: %s (see --help)\n", why.c_str());
        return 2;
    };
    for (const std::string &arg : args) {
        auto value = [&](const char *key) -> std::optional<std::string> {
            const size_t n = std::strlen(key);
            if (arg.compare(0, n, key) == 0) return arg.substr(n);
            return std::nullopt;
        };
        try {
            if (auto v = value("--case=")) {
                if (const size_t n = lists_.problems(); n > kMaxProblemsPerCase)
                    return fail("the knob lists expand to " +
                                (n == SIZE_MAX ? std::string("more than 2^64") : std::to_string(n)) +
                                " problems for one --case, more than " + std::to_string(kMaxProblemsPerCase));
                run_case(resolve(*v));
            } else if (auto v = value("--batch=")) {
                const std::string file = resolve(*v);
                std::ifstream in(file);
                if (!in) return fail("cannot open batch file " + file);
                const std::string dir = file.find('/') == std::string::npos ? "." : file.substr(0, file.rfind('/'));
                std::vector<std::string> words;
                for (std::string line; std::getline(in, line);) {
                    std::istringstream ls(line.substr(0, line.find('#')));
                    for (std::string w; ls >> w;) words.push_back(w);
                }
                if (int rc = run(words, dir)) return rc;
            } else if (arg == "--reset") {
                lists_ = knob_lists{};
            } else if (auto v = value("--mode=")) {
                if (*v != "C" && *v != "P" && *v != "CP" && *v != "PC" && *v != "L")
                    return fail("--mode must be C, P, CP or L, got \"" + *v + "\"");
                mode_ = *v == "PC" ? "CP" : *v;
            } else if (auto v = value("--in-shapes=")) {
                lists_.in_shapes = split(*v, ',');
            } else if (auto v = value("--in-values=")) {
                parse_in_values(*v); // (checked here, applied to each case's inputs)
                lists_.in_values = *v;
            } else if (auto v = value("--io-shapes=")) { // an older spelling
                lists_.in_shapes = split(*v, ',');
            } else if (auto v = value("--op-attrs=")) {
                lists_.op_attrs = split(*v, ',');
            } else if (auto v = value("--op-kind=")) {
                lists_.op_kind = split(*v, ',');
            } else if (auto v = value("--dt=")) {
                lists_.dt = split(*v, ',');
            } else if (auto v = value("--attr-fpmath=")) {
                lists_.fpmath = split(*v, ',');
            } else if (auto v = value("--expected-n-partitions=")) {
                lists_.expected_partitions.clear();
                for (const auto &e : split(*v, ','))
                    lists_.expected_partitions.push_back(
                        e.empty() ? 1 : parse_int(e, 0, std::numeric_limits<int>::max(), "--expected-n-partitions"));
            } else if (auto v = value("--mb=")) {
                lists_.mb.clear();
                for (const auto &e : split(*v, ','))
                    lists_.mb.push_back(e.empty() ? 0 : parse_int(e, 0, std::numeric_limits<int64_t>::max(), "--mb"));
            } else if (auto v = value("--impl=")) {
                lists_.impl.clear();
                for (const auto &e : split(*v, ',')) {
                    if (e != "auto" && e != "onednn" && e != "native" && e != "dnnl" && !e.empty())
                        return fail("--impl must list auto, onednn, native or dnnl, got \"" + e + "\"");
                    lists_.impl.push_back(e.empty() ? "auto" : e);
                }
            } else if (auto v = value("--policy=")) {
                lists_.policy.clear();
                for (const auto &e : split(*v, ',')) {
                    if (e != "fusion" && e != "debug" && !e.empty())
                        return fail("--policy must list fusion or debug, got \"" + e + "\"");
                    lists_.policy.push_back(e.empty() ? "fusion" : e);
                }
            } else if (auto v = value("--num-threads=")) {
                lists_.threads.clear();
                for (const auto &e : split(*v, ','))
                    lists_.threads.push_back(e.empty() ? 0 : static_cast<int>(parse_int(e, 1, 1024, "--num-threads")));
            } else if (auto v = value("--max-ms-per-prb=")) {
                max_ms_ = parse_real(*v, 1e-3, 1e7, "--max-ms-per-prb");
            } else if (auto v = value("--perf-template=")) {
                if (*v != "csv" && *v != "default") return fail("--perf-template must be csv or default");
                csv_ = *v == "csv";
            } else if (auto v = value("--roof=")) {
                if (v->empty()) return fail("--roof needs measure, skip or a file name");
                roof_ = *v;
                if (roof_ != "measure" && roof_ != "skip") { // reuse the roofs a file holds
                    std::ifstream in(roof_);
                    std::string key, level;
                    fbtools::memory_roof r;
                    while (in >> key >> r.gbps >> r.plain_gbps >> r.nt_gbps >> r.threads >> level)
                        r.level = level, roofs_[key] = r;
                }
            } else if (auto v = value("--engine=")) {
                if (*v != "cpu" && *v != "cpu:0") return fail("--engine must be cpu (fusebox has no other engine)");
            } else if (auto v = value("--cold-cache=")) {
                if (*v != "none") return fail("--cold-cache: only none is supported");
            } else if (arg == "--graph") {
                continue; // benchdnn's driver selector
            } else if (arg == "--help" || arg == "-h") {
                std::printf(
                    "usage: fusebox-benchdnn [--graph] [--mode=C|P|CP|L] [--reset] (--case=FILE | --batch=FILE)...\n"
                    "  knobs (comma-separated lists; a --case runs their product; an empty entry keeps the case):\n"
                    "  --in-shapes=ID:SHAPE[*TAG|*STRIDES][+...]  (ID:*TAG keeps the shape, ID:- is rank 0)\n"
                    "  --in-values=ID:VALUE[+...]  (one value for every element of a graph input; not a list, kept "
                    "until the next)\n"
                    "  --op-attrs=ID:NAME:VALUE[*NAME:VALUE][+...]  --op-kind=ID:KIND[+...]\n"
                    "  --dt=DT | --dt=ID:DT[+...]  --attr-fpmath=MODE[:true|false]  --mb=N\n"
                    "  --expected-n-partitions=N (0: any)  --impl=auto|onednn|native|dnnl  --policy=fusion|debug\n"
                    "  --num-threads=N  --max-ms-per-prb=MS  --perf-template=csv|default  --roof=measure|skip|FILE\n");
                continue;
            } else {
                return fail("unknown argument \"" + arg + "\"");
            }
        } catch (const case_error &e) {
            return fail(e.what());
        }
    }
    return 0;
}

int driver::finish() {
    if (!table_.empty()) {
        std::printf("\n| case | implementation | threads | level | min us | GB/s | roof GB/s | fraction of roof | "
                    "compile ms | cache hit us |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (const auto &row : table_) std::printf("%s\n", row.c_str());
        std::printf("\n");
        if (roof_defects_)
            std::printf("roof defects: %d case(s) ran more than %.2fx their roof (see the roof_defect lines)\n\n",
                        roof_defects_, kRoofSlack);
    }
    std::printf("tests:%d passed:%d skipped:%d mistrusted:%d unimplemented:%d invalid_arguments:%d failed:%d "
                "listed:%d\n",
                tests_, counts_[outcome::passed], counts_[outcome::skipped], counts_[outcome::mistrusted],
                counts_[outcome::unimplemented], counts_[outcome::invalid_arguments], counts_[outcome::failed],
                counts_[outcome::listed]);
    return counts_[outcome::failed] + counts_[outcome::invalid_arguments] ? 1 : 0;
}

} // namespace fbbench
