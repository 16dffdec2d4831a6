// libFuzzer target: the graph API end to end. The input chooses graph
// inputs (types, shapes and strides, valid or not), ops (every elementwise op fusebox runs, with
// every input count it takes, End, an
// op fusebox does not run, or an unknown kind) with attributes, a partition
// policy, the logical tensors given to compile and the kernel (automatic,
// native or oneDNN). Every supported partition small enough is executed into
// buffers with guard bytes and checked against the scalar reference.
//
// Findings are crashes: any exception other than fusebox::error, a sanitizer
// report, a write outside an output, or a result unlike the reference.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>

#include "../../tools/common/reference.hpp"

namespace {

using namespace fbref;
using lt = logical_tensor;

[[noreturn]] void finding(const std::string &what) {
    std::fprintf(stderr, "fuzz_graph finding: %s\n", what.c_str());
    std::abort();
}

constexpr size_t kMaxBytes = 1 << 16; // execute only partitions this small

// How far inputs get, printed at exit with FUSEBOX_FUZZ_STATS=1 (to see that a
// run reaches execution and the reference check, not just the parsers).
struct reach_counts {
    size_t graphs = 0, finalized = 0, compiled = 0, onednn = 0, verified = 0;
    ~reach_counts() {
        if (std::getenv("FUSEBOX_FUZZ_STATS"))
            std::fprintf(stderr,
                         "fuzz_graph: %zu graphs, %zu finalized, %zu partitions compiled (%zu on oneDNN), %zu "
                         "verified\n",
                         graphs, finalized, compiled, onednn, verified);
    }
} reach;
constexpr unsigned char kGuard = 0xA5;

const dt kTypes[] = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8,      dt::u8,     dt::s16,  dt::u16,
                     dt::s32, dt::u32,  dt::s64, dt::u64, dt::boolean, dt::string, dt::undef};

int64_t pick_dim(FuzzedDataProvider &in) {
    switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: return 0;
    case 1: return -1;
    case 2: return FUSEBOX_UNKNOWN_DIM;
    case 3: return INT64_MAX;
    case 4: return in.ConsumeIntegral<int64_t>();
    case 5: return int64_t{1} << in.ConsumeIntegralInRange<int>(20, 62);
    default: return in.ConsumeIntegralInRange<int64_t>(1, 7);
    }
}

lt make_tensor(FuzzedDataProvider &in, size_t id) {
    dt type = kTypes[in.ConsumeIntegralInRange<size_t>(0, std::size(kTypes) - 1)];
    if (in.ConsumeIntegralInRange<int>(0, 40) == 0) type = static_cast<dt>(in.ConsumeIntegral<int16_t>());
    const int rank = in.ConsumeIntegralInRange<int>(0, 4);
    dims shape;
    for (int i = 0; i < rank; ++i) shape.push_back(pick_dim(in));
    switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return lt(id, type, lt::layout_type::any);
    case 1: {
        dims strides;
        for (int i = 0; i < rank; ++i) strides.push_back(pick_dim(in));
        return lt(id, type, shape, strides);
    }
    case 2: return lt(id, type, shape, static_cast<lt::layout_type>(in.ConsumeIntegralInRange<int>(-1, 4)));
    default: return lt(id, type, shape);
    }
}

// Element bytes of a buffer for a logical tensor, or 0 when it is too large to run.
size_t runnable_bytes(const lt &t) {
    if (!t.has_known_shape()) return 0;
    const size_t bytes = t.get_mem_size();
    return bytes <= kMaxBytes ? bytes : 0;
}

struct guarded {
    std::unique_ptr<buffer> buf;
    size_t bytes = 0;
    explicit guarded(const lt &t) : buf(std::make_unique<buffer>(t)), bytes(t.get_mem_size()) {
        std::fill(buf->bytes.begin() + static_cast<ptrdiff_t>(bytes), buf->bytes.end(), kGuard);
    }
    bool guards_intact() const {
        for (size_t i = bytes; i < buf->bytes.size(); ++i)
            if (buf->bytes[i] != kGuard) return false;
        return true;
    }
};

void run(FuzzedDataProvider &in) {
    std::map<size_t, lt> declared; // graph inputs as the fuzzer declares them
    std::vector<op> ops;
    std::map<size_t, size_t> producer; // tensor id -> the op id producing it
    size_t next_tensor = 0;
    for (int i = in.ConsumeIntegralInRange<int>(1, 4); i-- > 0;)
        declared.emplace(next_tensor, make_tensor(in, next_tensor)), ++next_tensor;
    std::vector<size_t> available;
    for (const auto &[id, t] : declared) available.push_back(id);
    for (int n = in.ConsumeIntegralInRange<int>(1, 6); n-- > 0;) {
        auto pick = [&] { return available[in.ConsumeIntegralInRange<size_t>(0, available.size() - 1)]; };
        auto use = [&](size_t id) {
            auto it = declared.find(id);
            return it != declared.end() ? it->second : lt(id, dt::undef, lt::layout_type::any);
        };
        // The elementwise ops fusebox runs, with their input counts.
        static const std::pair<op::kind, int> kElementwise[] = {
            {op::kind::Add, 2},         {op::kind::Subtract, 2},
            {op::kind::Multiply, 2},    {op::kind::Divide, 2},
            {op::kind::Maximum, 2},     {op::kind::Minimum, 2},
            {op::kind::Mod, 2},         {op::kind::Equal, 2},
            {op::kind::Greater, 2},     {op::kind::GreaterEqual, 2},
            {op::kind::Less, 2},        {op::kind::LessEqual, 2},
            {op::kind::LogicalAnd, 2},  {op::kind::LogicalOr, 2},
            {op::kind::LogicalXor, 2},  {op::kind::LogicalNot, 1},
            {op::kind::BitwiseAnd, 2},  {op::kind::BitwiseOr, 2},
            {op::kind::BitwiseXor, 2},  {op::kind::BitwiseNot, 1},
            {op::kind::BitShift, 2},    {op::kind::Where, 3},
            {op::kind::Select, 3},      {op::kind::Sum, 3},
            {op::kind::Mean, 2},        {op::kind::Maximum, 3},
            {op::kind::Minimum, 1},     {op::kind::Pow, 2},
            {op::kind::Pow, 1},         {op::kind::PReLU, 2},
            {op::kind::BiasAdd, 2},     {op::kind::SquaredDifference, 2},
            {op::kind::Abs, 1},         {op::kind::Neg, 1},
            {op::kind::Sign, 1},        {op::kind::Floor, 1},
            {op::kind::Round, 1},       {op::kind::Sqrt, 1},
            {op::kind::Reciprocal, 1},  {op::kind::Square, 1},
            {op::kind::ReLU, 1},        {op::kind::LeakyReLU, 1},
            {op::kind::HardSigmoid, 1}, {op::kind::HardSwish, 1},
            {op::kind::Softsign, 1},    {op::kind::Clamp, 1},
            {op::kind::Clip, 1},        {op::kind::Clip, 3},
            {op::kind::IsNaN, 1},       {op::kind::IsInf, 1},
            {op::kind::Exp, 1},         {op::kind::Log, 1},
            {op::kind::Tanh, 1},        {op::kind::Sigmoid, 1},
            {op::kind::Erf, 1},         {op::kind::Elu, 1},
            {op::kind::Selu, 1},        {op::kind::SoftPlus, 1},
            {op::kind::Mish, 1},        {op::kind::GELU, 1},
            {op::kind::Cast, 1},        {op::kind::TypeCast, 1}};
        op::kind kind = op::kind::Add;
        int n_in = 2;
        switch (in.ConsumeIntegralInRange<int>(0, 9)) {
        case 0: kind = op::kind::Equal; break;
        case 1: kind = op::kind::End, n_in = 1; break;
        case 2: kind = op::kind::SoftMax, n_in = 1; break;
        case 3: kind = op::kind::Wildcard; break;
        case 4: kind = static_cast<op::kind>(in.ConsumeIntegral<int16_t>()); break;
        case 5:
        case 6:
        case 7: {
            const auto &[k, n] = kElementwise[in.ConsumeIntegralInRange<size_t>(0, std::size(kElementwise) - 1)];
            kind = k, n_in = n;
            break;
        }
        default: break;
        }
        std::vector<lt> ins, outs;
        for (int k = n_in + (in.ConsumeIntegralInRange<int>(0, 20) == 0 ? 1 : 0); k-- > 0;) ins.push_back(use(pick()));
        if (kind != op::kind::End) {
            const size_t id = next_tensor++;
            outs.push_back(in.ConsumeBool() ? lt(id, dt::undef, lt::layout_type::any) : make_tensor(in, id));
            available.push_back(id);
            producer[id] = 100 + ops.size();
        }
        op o(100 + ops.size(), kind, ins, outs, "op");
        for (int a = in.ConsumeIntegralInRange<int>(0, 2); a-- > 0;) {
            switch (in.ConsumeIntegralInRange<int>(0, 8)) {
            case 0: o.set_attr(op::attr::auto_broadcast, std::string(in.ConsumeBool() ? "none" : "numpy")); break;
            case 1: o.set_attr(op::attr::auto_broadcast, in.ConsumeRandomLengthString(8)); break;
            case 2: o.set_attr(op::attr::broadcast, in.ConsumeIntegralInRange<int64_t>(-1, 2)); break;
            case 3:
                o.set_attr(op::attr::axis, in.ConsumeBool() ? in.ConsumeIntegral<int64_t>()
                                                            : in.ConsumeIntegralInRange<int64_t>(-5, 5));
                break;
            case 4: o.set_attr(op::attr::consumed_inputs, std::vector<int64_t>{in.ConsumeIntegral<int64_t>()}); break;
            case 5:
                if (in.ConsumeBool())
                    o.set_attr<float>(in.ConsumeBool() ? op::attr::alpha : op::attr::beta,
                                      in.ConsumeFloatingPoint<float>());
                else if (in.ConsumeBool())
                    o.set_attr(op::attr::data_format, std::string(in.ConsumeBool() ? "NCX" : "NXC"));
                else
                    o.set_attr(op::attr::per_channel_broadcast, in.ConsumeBool());
                break;
            case 6:
                if (in.ConsumeBool())
                    o.set_attr(op::attr::direction, std::string(in.ConsumeBool() ? "LEFT" : "RIGHT"));
                else
                    o.set_attr(op::attr::fmod, in.ConsumeIntegralInRange<int64_t>(-1, 2));
                break;
            case 7: // the unary ops' attributes
                switch (in.ConsumeIntegralInRange<int>(0, 4)) {
                case 0:
                    o.set_attr<float>(in.ConsumeBool() ? op::attr::min : op::attr::max,
                                      in.ConsumeFloatingPoint<float>());
                    break;
                case 1: o.set_attr<float>(op::attr::gamma, in.ConsumeFloatingPoint<float>()); break;
                case 2: o.set_attr(op::attr::mode, std::string(in.ConsumeBool() ? "gelu_tanh" : "gelu_erf")); break;
                case 3:
                    o.set_attr(in.ConsumeBool() ? op::attr::detect_positive : op::attr::detect_negative,
                               in.ConsumeIntegralInRange<int64_t>(-1, 2));
                    break;
                default: o.set_attr(op::attr::mode, in.ConsumeRandomLengthString(10)); break;
                }
                break;
            default: o.set_attr(static_cast<op::attr>(in.ConsumeIntegral<int16_t>()), int64_t{1}); break;
            }
        }
        ops.push_back(o);
    }

    graph g(engine::kind::cpu);
    ++reach.graphs;
    for (const op &o : ops)
        if (g.add_op(o, false) != status::success) return;
    try {
        g.finalize();
    } catch (const error &) {
        return;
    }
    ++reach.finalized;
    const auto policy = in.ConsumeBool() ? partition::policy::fusion : partition::policy::debug;
    std::vector<partition> parts;
    try {
        parts = g.get_partitions(policy);
    } catch (const error &e) {
        finding(std::string("get_partitions of a finalized graph: ") + e.what());
    }
    // Every op in one partition, each partition after those producing its inputs.
    std::map<size_t, size_t> part_of; // op id -> partition index
    for (size_t k = 0; k < parts.size(); ++k)
        for (size_t o : parts[k].get_ops())
            if (!part_of.emplace(o, k).second) finding("an op in two partitions");
    if (part_of.size() != ops.size()) finding("an op in no partition");
    for (size_t k = 0; k < parts.size(); ++k)
        for (const lt &port : parts[k].get_input_ports())
            if (auto pr = producer.find(port.get_id()); pr != producer.end() && part_of.at(pr->second) >= k)
                finding("a partition reads a tensor its own ops or a later partition produce");
    const engine eng(engine::kind::cpu);
    stream s(eng);
    std::map<size_t, std::shared_ptr<guarded>> values; // every tensor computed so far
    for (const partition &p : parts) {
        std::vector<lt> given;
        for (const lt &port : p.get_input_ports()) {
            if (auto v = values.find(port.get_id()); v != values.end())
                given.push_back(v->second->buf->lt);
            else if (auto d = declared.find(port.get_id()); d != declared.end() && !in.ConsumeBool())
                given.push_back(d->second);
            else
                given.push_back(make_tensor(in, port.get_id()));
        }
        std::vector<lt> outs;
        for (const lt &port : p.get_output_ports())
            outs.push_back(in.ConsumeBool() ? lt(port.get_id(), dt::undef, lt::layout_type::any)
                                            : make_tensor(in, port.get_id()));
        if (!p.is_supported()) {
            try {
                p.compile(given, outs, eng);
                finding("compile of an unsupported partition succeeded");
            } catch (const error &e) {
                if (e.get_status() != status::invalid_arguments) // as in oneDNN
                    finding(std::string("unsupported compile: ") + e.what());
            }
            if (p.get_output_ports().empty()) continue; // an End: nothing to run, the next partition
            return;                                     // the framework would run it; this target stops here
        }
        // The kernel: the automatic choice (native at these sizes) or forced,
        // so that oneDNN's lowering meets the same shapes and strides.
        const int kernel = in.ConsumeIntegralInRange<int>(0, 3);
        setenv("FUSEBOX_KERNEL", kernel == 0 ? "onednn" : kernel == 1 ? "native" : "auto", 1);
        compiled_partition cp;
        try {
            cp = p.compile(given, outs, eng);
        } catch (const error &) {
            return;
        }
        ++reach.compiled;
        reach.onednn += cp.get_impl_info().rfind("onednn", 0) == 0;
        // Execute when every input and the output are small enough to allocate.
        std::vector<tensor> in_t, out_t;
        std::map<size_t, std::shared_ptr<buffer>> ref_values;
        std::mt19937_64 rng(in.ConsumeIntegral<uint32_t>());
        for (const lt &l : given) {
            const lt compiled = cp.query_logical_tensor(l.get_id());
            if (!runnable_bytes(compiled) && compiled.get_mem_size() != 0) return;
            auto gb = values.count(l.get_id()) ? values.at(l.get_id()) : std::make_shared<guarded>(compiled);
            if (!values.count(l.get_id())) fill(*gb->buf, rng), values[l.get_id()] = gb;
            in_t.emplace_back(compiled, eng, gb->buf->data());
            ref_values[l.get_id()] = std::make_shared<buffer>(*gb->buf);
        }
        // Every output port (a partition may write several), each guarded.
        std::vector<lt> out_lts;
        std::vector<std::shared_ptr<guarded>> outs_g;
        for (const lt &port : p.get_output_ports()) {
            const lt out_lt = cp.query_logical_tensor(port.get_id());
            if (!runnable_bytes(out_lt) && out_lt.get_mem_size() != 0) return;
            out_lts.push_back(out_lt);
            outs_g.push_back(std::make_shared<guarded>(out_lt));
            out_t.emplace_back(out_lt, eng, outs_g.back()->buf->data());
        }
        try {
            cp.execute(s, in_t, out_t);
        } catch (const error &e) {
            finding(std::string("execute of a compiled partition failed: ") + e.what());
        }
        for (const auto &out : outs_g)
            if (!out->guards_intact()) finding("execute wrote past an output");
        for (const auto &[id, gb] : values)
            if (!gb->guards_intact()) finding("execute wrote past input " + std::to_string(id));
        // The reference: the partition's ops one by one.
        std::vector<op> part_ops;
        for (size_t id : p.get_ops())
            for (const op &o : ops)
                if (o.get_id() == id) part_ops.push_back(o);
        reference_graph(part_ops, ref_values);
        // f64 Pow is within 1 ulp of the reference (libm's pow), the transcendental
        // ops within their bounds: checked where such an op is the partition's
        // last; later ops could grow that difference.
        int64_t max_ulp = 0;
        bool comparable = true;
        for (const op &o : part_ops) {
            const dt t = ref_values.at(o.get_outputs()[0].get_id())->lt.get_data_type();
            const int64_t ulp = o.get_kind() == op::kind::Pow && t == dt::f64 ? 1
                                : ref_is_approximate(o.get_kind())            ? ref_approximate_ulp(o.get_kind(), t)
                                                                              : 0;
            if (ulp) {
                max_ulp = std::max(max_ulp, ulp);
                comparable = comparable && &o == &part_ops.back();
            }
        }
        for (size_t k = 0; k < out_lts.size(); ++k) {
            const lt &out_lt = out_lts[k];
            values[out_lt.get_id()] = outs_g[k];
            if (!comparable) continue;
            const auto want = ref_values.find(out_lt.get_id());
            if (want == ref_values.end()) finding("no reference for an output");
            buffer expected(out_lt);
            for_each_index(out_lt.get_dims(), [&](int64_t, const dims &idx) {
                const size_t es = data_type_size(out_lt.get_data_type());
                std::memcpy(expected.bytes.data() + offset_of(expected.strides, idx) * es,
                            want->second->bytes.data() + offset_of(want->second->strides, idx) * es, es);
            });
            const std::string diff = first_mismatch(expected, *outs_g[k]->buf, max_ulp);
            if (!diff.empty()) finding("result differs from the reference: " + diff);
        }
        reach.verified += comparable;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzedDataProvider in(data, size);
    try {
        run(in);
    } catch (const error &) {
        // a typed error for a bad input is the expected outcome
    }
    return 0;
}
