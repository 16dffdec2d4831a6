// A framework bridge written against oneDNN Graph, the way a framework hands
// its whole graph to a graph backend. The build turns it into a fusebox
// program with nothing but the substitution rule of doc/INTEGRATION.md
// (examples/onednn_to_fusebox.cmake): the headers, the dnnl/DNNL prefixes and
// the word dnnl.
//
// The framework's graph mixes ops the backend runs (Add, ReLU, GreaterEqual)
// with ops it does not (MatMul, and a custom op passed as Wildcard). The bridge
// adds every op, asks for partitions, compiles and executes the supported
// ones, runs the others with its own kernels, and checks every tensor against
// its own reference. Memory the library allocates goes through the
// framework's allocator.
#include "oneapi/dnnl/dnnl.hpp" // engine, stream, the CPU-ISA query
#include "oneapi/dnnl/dnnl_graph.hpp"

#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_SYCL || DNNL_GPU_RUNTIME != DNNL_RUNTIME_NONE
#error "this bridge expects a host CPU runtime and no GPU runtime"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// Bridges often keep helpers of their own in the library's namespace (the
// rule maps the bare word too).
namespace dnnl {
namespace bridge {
inline bool is_cpu(const engine &e) { return e.get_kind() == engine::kind::cpu; }
} // namespace bridge
} // namespace dnnl

using namespace dnnl::graph;
using data_type = logical_tensor::data_type;
using layout_type = logical_tensor::layout_type;
using property_type = logical_tensor::property_type;
using dims = logical_tensor::dims;

namespace {

// ---- the framework's allocator: counts what the library asks for ----

size_t live_allocations = 0, total_allocations = 0;

void *framework_malloc(size_t size, size_t alignment) {
    void *p = nullptr;
    if (posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size ? size : 1)) return nullptr;
    ++live_allocations, ++total_allocations;
    return p;
}

void framework_free(void *p) {
    --live_allocations;
    std::free(p);
}

// ---- the framework's own tensors and kernels ----

struct fw_tensor {
    dims shape;
    data_type dt = data_type::f32;
    std::vector<float> f;   // f32 data
    std::vector<uint8_t> b; // boolean data
    void *data() { return dt == data_type::boolean ? static_cast<void *>(b.data()) : f.data(); }
};

int64_t numel(const dims &d) {
    int64_t n = 1;
    for (auto x : d) n *= x;
    return n;
}

fw_tensor make(const dims &shape, data_type dt = data_type::f32) {
    fw_tensor t;
    t.shape = shape, t.dt = dt;
    if (dt == data_type::boolean)
        t.b.assign(static_cast<size_t>(numel(shape)), 0);
    else
        t.f.assign(static_cast<size_t>(numel(shape)), 0.f);
    return t;
}

fw_tensor random_tensor(const dims &shape, unsigned seed) {
    fw_tensor t = make(shape);
    for (size_t i = 0; i < t.f.size(); ++i)
        t.f[i] = static_cast<float>((i * 7919u + seed * 104729u) % 2001u) / 250.f - 4.f;
    return t;
}

// numpy broadcasting of b onto a's shape (b's rank <= a's, right-aligned).
float at_broadcast(const fw_tensor &t, const dims &out_shape, int64_t flat) {
    int64_t offset = 0, stride = 1;
    const size_t skip = out_shape.size() - t.shape.size();
    for (size_t d = out_shape.size(); d-- > skip;) {
        const int64_t idx = flat % out_shape[d];
        flat /= out_shape[d];
        const int64_t extent = t.shape[d - skip];
        offset += (extent == 1 ? 0 : idx) * stride;
        stride *= extent;
    }
    return t.f[static_cast<size_t>(offset)];
}

dims broadcast_shape(const dims &a, const dims &b) {
    dims out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
        const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
        out[i] = x == 1 ? y : x;
    }
    return out;
}

fw_tensor ref_add(const fw_tensor &a, const fw_tensor &b) {
    const dims shape = broadcast_shape(a.shape, b.shape);
    fw_tensor out = make(shape);
    for (int64_t i = 0; i < numel(shape); ++i) out.f[i] = at_broadcast(a, shape, i) + at_broadcast(b, shape, i);
    return out;
}

fw_tensor run_matmul(const fw_tensor &a, const fw_tensor &w) { // [M,K] x [K,N]
    const int64_t m = a.shape[0], k = a.shape[1], n = w.shape[1];
    fw_tensor out = make({m, n});
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float acc = 0.f;
            for (int64_t p = 0; p < k; ++p) acc += a.f[i * k + p] * w.f[p * n + j];
            out.f[i * n + j] = acc;
        }
    return out;
}

fw_tensor run_relu(const fw_tensor &x) {
    fw_tensor out = make(x.shape);
    for (size_t i = 0; i < x.f.size(); ++i) out.f[i] = x.f[i] > 0.f ? x.f[i] : 0.f;
    return out;
}

fw_tensor run_scale_by_half(const fw_tensor &x) { // the framework's custom op, a Wildcard to the backend
    fw_tensor out = make(x.shape);
    for (size_t i = 0; i < x.f.size(); ++i) out.f[i] = x.f[i] * 0.5f;
    return out;
}

fw_tensor run_greater_equal(const fw_tensor &a, const fw_tensor &b) {
    fw_tensor out = make(a.shape, data_type::boolean);
    for (int64_t i = 0; i < numel(a.shape); ++i) out.b[i] = a.f[i] >= at_broadcast(b, a.shape, i);
    return out;
}

bool same(const fw_tensor &x, const fw_tensor &y) {
    if (x.shape != y.shape || x.dt != y.dt) return false;
    if (x.dt == data_type::boolean) return x.b == y.b;
    for (size_t i = 0; i < x.f.size(); ++i)
        if (std::memcmp(&x.f[i], &y.f[i], sizeof(float)) != 0) return false;
    return true;
}

void check(bool ok, const std::string &what) {
    if (!ok) throw std::runtime_error("check failed: " + what);
}

// ---- the bridge ----

enum : size_t { // tensor ids
    X = 0,
    W,
    BIAS,
    RESIDUAL,
    SHIFT,
    THRESHOLD,
    MM,
    BIASED,
    ACT,
    SUM,
    SHIFTED,
    HALF,
    OUT,
    MASK,
};

struct framework_graph {
    std::map<size_t, fw_tensor> values;
    std::vector<op> ops;
    std::map<size_t, std::function<void()>> fallback; // op id -> the framework's kernel
};

logical_tensor desc(size_t id, const dims &shape, property_type p = property_type::undef) {
    return logical_tensor(id, data_type::f32, shape, layout_type::strided, p);
}

logical_tensor unknown(size_t id, data_type dt = data_type::f32) {
    return logical_tensor(id, dt, DNNL_GRAPH_UNKNOWN_NDIMS, layout_type::strided);
}

framework_graph build() {
    framework_graph g;
    const int64_t n = 8, c = 16;
    g.values[X] = random_tensor({n, c}, 1);
    g.values[W] = random_tensor({c, c}, 2);
    g.values[BIAS] = random_tensor({c}, 3);
    g.values[RESIDUAL] = random_tensor({n, c}, 4);
    g.values[SHIFT] = random_tensor({1}, 5);
    g.values[THRESHOLD] = random_tensor({1, c}, 6);

    // MatMul -> Add(bias) -> ReLU -> Add(residual, none) -> Add(shift) -> Wildcard -> Add -> GreaterEqual
    op matmul(0, op::kind::MatMul, {desc(X, {n, c}), desc(W, {c, c}, property_type::constant)}, {unknown(MM)},
              "matmul");
    matmul.set_attr<bool>(op::attr::transpose_a, false);
    op bias_add(1, op::kind::Add, {unknown(MM), desc(BIAS, {c}, property_type::constant)}, {unknown(BIASED)},
                "bias_add");
    bias_add.set_attr<std::string>(op::attr::auto_broadcast, "numpy");
    op relu(2, op::kind::ReLU, "relu");
    relu.add_inputs({unknown(BIASED)});
    relu.add_outputs({unknown(ACT)});
    op residual(3, op::kind::Add, {unknown(ACT), desc(RESIDUAL, {n, c})}, {unknown(SUM)}, "residual");
    residual.set_attr<std::string>(op::attr::auto_broadcast, "none");
    op shift(4, op::kind::Add, {unknown(SUM), desc(SHIFT, {1}, property_type::constant)}, {unknown(SHIFTED)}, "shift");
    op custom(5, op::kind::Wildcard, {unknown(SHIFTED)}, {unknown(HALF)}, "framework_custom_op");
    op merge(6, op::kind::Add, {unknown(HALF), unknown(SHIFTED)}, {unknown(OUT)}, "merge");
    op compare(7, op::kind::GreaterEqual, {unknown(OUT), desc(THRESHOLD, {1, c})}, {unknown(MASK, data_type::boolean)},
               "mask");
    op end_out(8, op::kind::End, {unknown(OUT)}, {}, "end_out");
    op end_mask(9, op::kind::End, {unknown(MASK, data_type::boolean)}, {}, "end_mask");
    g.ops = {matmul, bias_add, relu, residual, shift, custom, merge, compare, end_out, end_mask};

    auto &v = g.values;
    g.fallback[0] = [&v] { v[MM] = run_matmul(v.at(X), v.at(W)); };
    g.fallback[2] = [&v] { v[ACT] = run_relu(v.at(BIASED)); };
    g.fallback[5] = [&v] { v[HALF] = run_scale_by_half(v.at(SHIFTED)); };
    g.fallback[7] = [&v] { v[MASK] = run_greater_equal(v.at(OUT), v.at(THRESHOLD)); };
    g.fallback[8] = g.fallback[9] = [] {}; // End: a partition of its own with nothing to run
    return g;
}

// Everything computed by the framework alone.
std::map<size_t, fw_tensor> reference(const std::map<size_t, fw_tensor> &in) {
    auto v = in;
    v[MM] = run_matmul(v[X], v[W]);
    v[BIASED] = ref_add(v[MM], v[BIAS]);
    v[ACT] = run_relu(v[BIASED]);
    v[SUM] = ref_add(v[ACT], v[RESIDUAL]);
    v[SHIFTED] = ref_add(v[SUM], v[SHIFT]);
    v[HALF] = run_scale_by_half(v[SHIFTED]);
    v[OUT] = ref_add(v[HALF], v[SHIFTED]);
    v[MASK] = run_greater_equal(v[OUT], v[THRESHOLD]);
    return v;
}

void run_whole_graph(const dnnl::engine &eng, dnnl::stream &strm) {
    framework_graph fg = build();
    const auto want = reference(fg.values);

    graph g(dnnl::engine::kind::cpu);
    for (const op &o : fg.ops) g.add_op(o);
    g.finalize();
    const std::vector<partition> partitions = g.get_partitions();

    size_t supported = 0, ops_seen = 0;
    for (const partition &p : partitions) {
        ops_seen += p.get_ops_num();
        check(p.get_engine_kind() == dnnl::engine::kind::cpu, "partition engine kind");
        if (!p.is_supported()) { // the framework runs it
            check(p.get_ops_num() == 1, "an unsupported partition holds one op");
            fg.fallback.at(p.get_ops()[0])();
            continue;
        }
        ++supported;
        std::vector<logical_tensor> inputs, outputs;
        for (const auto &port : p.get_input_ports())
            inputs.push_back(desc(port.get_id(), fg.values.at(port.get_id()).shape));
        for (const auto &port : p.get_output_ports()) outputs.push_back(unknown(port.get_id(), port.get_data_type()));
        compiled_partition cp = p.compile(inputs, outputs, eng);

        std::vector<tensor> in_t, out_t;
        for (const auto &lt : inputs) in_t.emplace_back(lt, eng, fg.values.at(lt.get_id()).data());
        for (const auto &lt : outputs) {
            const logical_tensor got = cp.query_logical_tensor(lt.get_id());
            check(got.get_layout_type() == layout_type::strided, "outputs come back strided");
            out_t.emplace_back(got, eng); // allocated by the library through the framework's allocator
        }
        cp.execute(strm, in_t, out_t);
        strm.wait();
        for (const tensor &t : out_t) { // copy out into the framework's tensor
            const logical_tensor lt = t.get_logical_tensor();
            fw_tensor value = make(lt.get_dims(), lt.get_data_type());
            std::memcpy(value.data(), t.get_data_handle(), lt.get_mem_size());
            fg.values[lt.get_id()] = std::move(value);
        }
    }
    check(ops_seen == fg.ops.size(), "every op is in exactly one partition");
    check(supported >= 3, "Adds between framework ops are compiled by the backend");
    // SUM lives only inside the fused residual + shift partition; every
    // tensor a framework op or End reads is materialized.
    check(!fg.values.count(SUM), "the fused intermediate is not materialized");
    for (size_t id : {MM, SHIFTED, HALF, OUT, MASK})
        check(fg.values.count(id) && same(fg.values.at(id), want.at(id)), "tensor " + std::to_string(id));
    for (size_t id : {BIASED, ACT}) // fused away, or materialized and right
        check(!fg.values.count(id) || same(fg.values.at(id), want.at(id)), "tensor " + std::to_string(id));
    std::printf("whole graph: %zu partitions, %zu run by the backend, %zu by the framework; all tensors match\n",
                partitions.size(), supported, partitions.size() - supported);
}

// One Add compiled on its own, executed in place when the backend allows it.
void run_single_op_partition(const dnnl::engine &eng, dnnl::stream &strm) {
    const dims shape{4, 32};
    fw_tensor a = random_tensor(shape, 7), b = random_tensor(shape, 8);
    const fw_tensor want = ref_add(a, b);
    op add(100, op::kind::Add, {desc(0, shape), desc(1, shape)}, {unknown(2)}, "single_add");
    partition p(add, dnnl::engine::kind::cpu);
    check(p.is_supported(), "a single Add is supported");
    compiled_partition cp = p.compile({desc(0, shape), desc(1, shape)}, {unknown(2)}, eng);
    const auto pairs = cp.get_inplace_ports();
    check(!pairs.empty() && pairs[0].second == 2, "Add reports an in-place pair");
    const logical_tensor out_lt = cp.query_logical_tensor(2);
    void *shared = pairs[0].first == 0 ? a.data() : b.data();
    cp.execute(strm, {tensor(desc(0, shape), eng, a.data()), tensor(desc(1, shape), eng, b.data())},
               {tensor(out_lt, eng, shared)});
    strm.wait();
    check(same(pairs[0].first == 0 ? a : b, want), "in-place Add");
    std::printf("single-op partition: in place on input %zu, result matches\n", pairs[0].first);
}

// A scale held by the framework on the host, handed over as a host-scalar
// tensor (oneDNN 3.10+): y = x * s.
void run_host_scalar_multiply(const dnnl::engine &eng, dnnl::stream &strm) {
    const dims shape{4, 8};
    fw_tensor x = random_tensor(shape, 9);
    const logical_tensor s_lt(11, data_type::f32, 0, layout_type::strided, property_type::host_scalar);
    op mul(200, op::kind::Multiply, {desc(10, shape), s_lt}, {unknown(12)}, "scale");
    graph g(dnnl::engine::kind::cpu);
    g.add_op(mul);
    g.finalize();
    const partition p = g.get_partitions().at(0);
    check(p.is_supported(), "Multiply by a host scalar is supported");
    compiled_partition cp = p.compile({desc(10, shape), s_lt}, {unknown(12)}, eng);
    float scale = 0.5f;
    tensor s_t = make_scalar_tensor(s_lt, &scale);
    scale = 3.f; // the tensor holds its own copy
    fw_tensor y = make(shape, data_type::f32);
    cp.execute(strm, {tensor(desc(10, shape), eng, x.data()), s_t},
               {tensor(cp.query_logical_tensor(12), eng, y.data())});
    strm.wait();
    for (size_t i = 0; i < x.f.size(); ++i) check(y.f[i] == x.f[i] * 0.5f, "x * host scalar");
    std::printf("host scalar: x * 0.5 matches\n");
}

// The error paths a bridge relies on: statuses, not crashes.
void check_error_paths(const dnnl::engine &eng) {
    graph g(dnnl::engine::kind::cpu);
    op bad(1, op::kind::Add, {desc(0, {2})}, {unknown(2)}, "one_input_add");
    const status st = g.add_op(bad, /*allow_exception=*/false);
    check(st != status::success, "add_op without exception reports a bad op");
    try {
        g.add_op(bad);
        check(false, "add_op throws on a bad op");
    } catch (const dnnl::error &e) {
        check(e.status != dnnl_success && std::string(e.what()).size() > 0, "error carries a status and a message");
    }
    op custom(2, op::kind::Wildcard, {desc(0, {2})}, {unknown(1)}, "custom");
    partition unsupported(custom, dnnl::engine::kind::cpu);
    check(!unsupported.is_supported(), "a Wildcard is not run by the backend");
    try {
        unsupported.compile({desc(0, {2})}, {unknown(1)}, eng);
        check(false, "compiling an unsupported partition throws");
    } catch (const dnnl::error &e) {
        check(e.status != dnnl_success, "compile of an unsupported partition fails with a status");
    }
    op add(3, op::kind::Add, {desc(0, {2, 3}), desc(1, {4})}, {unknown(2)}, "mismatched");
    graph g2(dnnl::engine::kind::cpu);
    g2.add_op(add);
    try {
        g2.finalize();
        check(false, "incompatible shapes are rejected");
    } catch (const dnnl::error &e) {
        check(e.status == dnnl_invalid_shape, "incompatible shapes give invalid_shape");
    }
    std::printf("error paths: statuses as expected\n");
}

} // namespace

int main() {
    try {
        const dnnl_version_t *v = dnnl_version();
        std::printf("backend version %d.%d.%d (%s), kernels for ISA 0x%x\n", v->major, v->minor, v->patch, v->hash,
                    static_cast<unsigned>(dnnl::get_effective_cpu_isa()));
        check(static_cast<int>(dnnl::get_effective_cpu_isa()) == static_cast<int>(dnnl_get_effective_cpu_isa()),
              "the C and C++ ISA queries agree");
        set_compiled_partition_cache_capacity(256);
        check(get_compiled_partition_cache_capacity() == 256, "cache capacity");
        {
            allocator alloc(framework_malloc, framework_free);
            dnnl::engine eng = make_engine_with_allocator(dnnl::engine::kind::cpu, 0, alloc);
            dnnl::stream strm(eng);
            check(dnnl::bridge::is_cpu(eng), "the engine is a CPU engine");
            run_whole_graph(eng, strm);
            run_single_op_partition(eng, strm);
            run_host_scalar_multiply(eng, strm);
            check_error_paths(eng);
        }
        check(total_allocations > 0, "the library allocated through the framework's allocator");
        check(live_allocations == 0, "everything the library allocated was freed");
        std::printf("allocator: %zu allocations through the framework's allocator, none left\n", total_allocations);
        std::printf("from_onednn_graph: ok\n");
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "from_onednn_graph: %s\n", e.what());
        return 1;
    }
}
