// The output is split along its outermost merged dim into one chunk per
// thread; each chunk runs a primitive built for its row count (at most two
// shapes: the regular chunk and the tail) on the caller's TBB threads.
#include "kernels/onednn/binary_kernel.hpp"

#include <algorithm>
#include <atomic>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <stdexcept>

#include "common/checked.hpp"
#include "common/parallel.hpp"
#include "common/small_buffer.hpp"

namespace fusebox::detail {
namespace {

using dnnl::memory;

// Never destroyed: memory objects cached by threads may outlive static
// destruction, and they refer to the engine.
dnnl::engine &cpu_engine() {
    static auto *e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
    return *e;
}

dnnl::stream &thread_stream() {
    thread_local dnnl::stream s(cpu_engine());
    return s;
}

// oneDNN's type for a fusebox one (undef where oneDNN has none fusebox uses).
memory::data_type onednn_type(data_type t) {
    switch (t) {
    case data_type::f32: return memory::data_type::f32;
    case data_type::bf16: return memory::data_type::bf16;
    case data_type::f16: return memory::data_type::f16;
    case data_type::boolean: return memory::data_type::u8;
    default: return memory::data_type::undef;
    }
}

// Where oneDNN's binary primitive is exact (or allowed by the graph's fpmath
// mode), from the catalogue row: bf16 and f16 Add are not exact (the JIT
// conversion flushes subnormal results to zero); comparisons read bf16 exactly.
bool fits_onednn(const expr_node &n, const onednn_options &opt, memory::data_type &src, memory::data_type &dst) {
    const elementwise_def &def = *find_elementwise(n.kind);
    // (A node of another function than its row's is a step of a lowering,
    // e.g. Mean's division: its row's algorithm is not the node's.)
    if (!def.onednn_alg || n.fn != def.fn || n.n_args != 2 || n.in_dt[0] != n.in_dt[1]) return false;
    const type_set t = type_bit(n.in_dt[0]);
    const bool may_flush = (n.in_dt[0] == data_type::bf16 && opt.bf16_add_may_flush) ||
                           (n.in_dt[0] == data_type::f16 && opt.f16_add_may_flush);
    if (!(def.onednn_exact & t) && !(may_flush && (def.onednn_flushing & t))) return false;
    src = onednn_type(n.in_dt[0]), dst = onednn_type(n.out_dt);
    return src != memory::data_type::undef && dst != memory::data_type::undef;
}

bool is_full(const dims &shape, const dims &strides) {
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 1 && strides[d] == 0) return false;
    return true;
}

// Memory descriptor of an operand over `shape`: extent 1 where it broadcasts,
// with the strides a dense layout would have there (the JIT recognises
// broadcasts on plain layouts).
memory::desc operand_md(const dims &shape, const dims &strides, int64_t rows, memory::data_type dt) {
    memory::dims d(shape.begin(), shape.end()), s(strides.begin(), strides.end());
    d[0] = strides[0] == 0 ? 1 : rows;
    for (size_t i = d.size(); i-- > 0;)
        if (strides[i] == 0) d[i] = 1, s[i] = i + 1 < d.size() ? s[i + 1] * d[i + 1] : 1;
    return memory::desc(d, dt, s);
}

#if DNNL_VERSION_MAJOR >= 3
const_dnnl_memory_desc_t c_desc(const memory::desc &md) { return md.get(); }
#else
const dnnl_memory_desc_t *c_desc(const memory::desc &md) { return &md.data; }
#endif

std::atomic<uint64_t> next_serial{1};

// One primitive and the descriptors of its arguments (src_0, src_1, post-op
// operands..., dst).
struct chunk_primitive {
    dnnl::primitive prim;
    std::vector<memory::desc> md;
    std::vector<int> arg; // the DNNL_ARG_* of each descriptor
    uint64_t serial = next_serial++;
};

// Memory objects for a chunk primitive's arguments, made once per thread and
// re-pointed at every execute: making them costs more than a small
// primitive's work. A few slots per thread, evicted by collision.
class memory_cache {
public:
    ~memory_cache() {
        for (auto &s : slots_) release(s);
    }

    // Memory objects for `p`, valid until the next call on this thread.
    dnnl_memory_t *get(const chunk_primitive &p) {
        slot &s = slots_[p.serial % kSlots];
        if (s.serial == p.serial) return s.mem.data();
        release(s);
        for (const memory::desc &md : p.md) {
            dnnl_memory_t m = nullptr;
            if (dnnl_memory_create(&m, c_desc(md), cpu_engine().get(), DNNL_MEMORY_NONE) != dnnl_success)
                throw std::bad_alloc();
            s.mem.push_back(m);
        }
        s.serial = p.serial;
        return s.mem.data();
    }

private:
    static constexpr size_t kSlots = 16;
    struct slot {
        uint64_t serial = 0;
        std::vector<dnnl_memory_t> mem;
    };
    static void release(slot &s) {
        for (dnnl_memory_t m : s.mem) dnnl_memory_destroy(m);
        s.mem.clear();
        s.serial = 0;
    }
    slot slots_[kSlots];
};

class onednn_binary_kernel final : public kernel {
public:
    onednn_binary_kernel() : kernel({}) {}
    kernel_facts &facts_mut() { return facts_; } // filled in by make_onednn_kernel

    void execute(const void *const *inputs, void *const *outputs, const exec_context &) const override {
        parallel_chunks(facts_.chunks, [&](int c) { run_chunk(inputs, outputs[0], c); });
    }

    void run_chunk(const void *const *inputs, void *output, int c) const {
        single_omp_thread_scope one_thread;
        thread_local memory_cache cache;
        const chunk_primitive &p = chunks_[c + 1 == facts_.chunks && chunks_.size() > 1 ? 1 : 0];
        const int64_t row = c * rows_per_chunk_;
        const size_t n_src = port_.size();
        dnnl_memory_t *mem = cache.get(p);
        small_buffer<dnnl_exec_arg_t, 8> args(n_src + 1);
        for (size_t i = 0; i <= n_src; ++i) {
            auto *base = i < n_src ? static_cast<unsigned char *>(const_cast<void *>(inputs[port_[i]]))
                                   : static_cast<unsigned char *>(output);
            dnnl_memory_set_data_handle(mem[i], base + row * row_bytes_[i]);
            args[i] = {p.arg[i], mem[i]};
        }
        if (dnnl_primitive_execute(p.prim.get(), thread_stream().get(), static_cast<int>(n_src + 1), args.data()) !=
                dnnl_success ||
            dnnl_stream_wait(thread_stream().get()) != dnnl_success)
            throw std::runtime_error("a oneDNN binary primitive failed to execute");
    }

    std::vector<chunk_primitive> chunks_; // [regular] or [regular, tail]
    int64_t rows_per_chunk_ = 0;
    std::vector<size_t> port_;       // input port of src_0, src_1, post-op operands
    std::vector<int64_t> row_bytes_; // bytes between rows of the outermost dim, per source and dst
};

// The operands of a linear chain in primitive order (src_0, src_1, then one
// per post-op), or empty when `e` is not a chain: node 0 reads two operands,
// every later node reads the previous node (first, unless it commutes) and
// one operand.
std::vector<int> chain_operands(const fused_expr &e) {
    std::vector<int> order{e.nodes[0].arg[0], e.nodes[0].arg[1]};
    if (order[0] < 0 || order[1] < 0) return {};
    for (size_t n = 1; n < e.nodes.size(); ++n) {
        const int *a = e.nodes[n].arg;
        const int prev = ~static_cast<int>(n - 1);
        if (a[0] == prev && a[1] >= 0)
            order.push_back(a[1]);
        else if (a[1] == prev && a[0] >= 0 && find_elementwise(e.nodes[n].kind)->commutative)
            order.push_back(a[0]);
        else
            return {};
    }
    return order;
}

// `e` with a trailing dim of extent 1 when it has one dim: oneDNN has JIT
// comparisons (u8 outputs) for 2-D and higher shapes only, and runs a dense
// [n, 1] like a dense [n].
fused_expr at_least_2d(const fused_expr &e) {
    fused_expr r = e;
    if (r.shape.size() == 1) {
        r.shape.push_back(1);
        r.out_strides.push_back(1);
        for (auto &o : r.operands) o.strides.push_back(1);
    }
    return r;
}

} // namespace

std::string onednn_isa_name() {
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_all: return "all";
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other (" + std::to_string(static_cast<int>(dnnl_get_effective_cpu_isa())) + ")";
    }
}

std::unique_ptr<kernel> make_onednn_kernel(const fused_expr &flat, const onednn_options &opt, std::string &why) {
    // Chunks split the outermost dim; rows must be contiguous for oneDNN's
    // JIT to stream them (a transposing partition is tiled by the native kernel).
    const size_t inner = flat.shape.size() - 1;
    if (flat.out_strides[inner] != 1) return why = "the output's inner dim is not contiguous", nullptr;
    for (const auto &o : flat.operands)
        if (o.strides[inner] != 0 && o.strides[inner] != 1)
            return why = "an input is read across the inner dim (a transposing partition)", nullptr;
    if (!flat.constants.empty()) return why = "a constant operand", nullptr;
    if (!flat.sides.empty()) return why = "several outputs (a post-op chain writes one)", nullptr;
    const fused_expr e = at_least_2d(flat);
    memory::data_type src_dt = memory::data_type::undef, dst_dt = memory::data_type::undef;
    for (const expr_node &node : e.nodes) {
        if (!fits_onednn(node, opt, src_dt, dst_dt))
            return why = std::string("oneDNN is not exact for ") + op_kind_name(node.kind) + " of " +
                         data_type_name(node.in_dt[0]) + "," + data_type_name(node.in_dt[1]),
                   nullptr;
        if (e.nodes.size() > 1 && node.out_dt != node.in_dt[0])
            return why = std::string("oneDNN's post-ops keep intermediates in the source type, not ") +
                         data_type_name(node.out_dt),
                   nullptr;
        if (e.nodes.size() > 1 && src_dt != memory::data_type::f32)
            return why = "oneDNN's post-ops keep intermediates in f32, not in the declared type", nullptr;
    }
    if (e.shape.size() > DNNL_MAX_NDIMS) return why = "too many dims", nullptr;
    std::vector<int> order = chain_operands(e);
    if (order.empty()) return why = "the partition is a tree, not a chain", nullptr;
    // Where node 0 commutes, the operand covering the whole output becomes src_0.
    if (!is_full(e.shape, e.operands[order[0]].strides) && find_elementwise(e.nodes[0].kind)->commutative)
        std::swap(order[0], order[1]);
    if (!is_full(e.shape, e.operands[order[0]].strides))
        return why = "both inputs of the first op broadcast (oneDNN broadcasts src_1 only)", nullptr;

    auto k = std::make_unique<onednn_binary_kernel>();
    const size_t sz_in = data_type_size(e.nodes[0].in_dt[0]), sz_out = data_type_size(e.output.get_data_type());
    for (int o : order) {
        k->port_.push_back(e.operands[o].port);
        k->row_bytes_.push_back(e.operands[o].strides[0] * static_cast<int64_t>(sz_in));
    }
    k->row_bytes_.push_back(e.out_strides[0] * static_cast<int64_t>(sz_out));

    const int64_t rows = e.shape[0];
    const int64_t bytes = saturating_mul(e.numel(), static_cast<int64_t>(order.size() * sz_in + sz_out));
    int64_t n_chunks = std::min<int64_t>(plan_chunks(bytes), rows);
    k->rows_per_chunk_ = ceil_div(rows, n_chunks);
    n_chunks = ceil_div(rows, k->rows_per_chunk_);
    const int64_t tail = rows - (n_chunks - 1) * k->rows_per_chunk_;
    k->facts_mut().threads = max_threads();
    k->facts_mut().chunks = static_cast<int>(n_chunks);
    k->facts_mut().streaming = false; // oneDNN's binary JIT stores through the cache
    const auto alg = static_cast<dnnl::algorithm>(find_elementwise(e.nodes[0].kind)->onednn_alg);
    // Every oneDNN call that can throw is inside: a dnnl::error never leaves compile.
    try {
        for (int64_t chunk_rows : {k->rows_per_chunk_, tail}) {
            if (chunk_rows == k->rows_per_chunk_ && !k->chunks_.empty()) break;
            chunk_primitive c;
            for (int o : order) c.md.push_back(operand_md(e.shape, e.operands[o].strides, chunk_rows, src_dt));
            c.md.push_back(operand_md(e.shape, e.out_strides, chunk_rows, dst_dt));
            dnnl::post_ops post;
            for (size_t i = 2; i < order.size(); ++i)
                post.append_binary(static_cast<dnnl::algorithm>(find_elementwise(e.nodes[i - 1].kind)->onednn_alg),
                                   c.md[i]);
            c.arg = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1};
            for (size_t i = 2; i < order.size(); ++i)
                c.arg.push_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i) - 2) | DNNL_ARG_SRC_1);
            c.arg.push_back(DNNL_ARG_DST);
            dnnl::primitive_attr attr;
            attr.set_post_ops(post);
#if DNNL_VERSION_MAJOR >= 3
            dnnl::binary::primitive_desc pd(cpu_engine(), alg, c.md[0], c.md[1], c.md.back(), attr);
#else
            dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, c.md[0], c.md[1], c.md.back()), attr, cpu_engine());
#endif
            const std::string impl = pd.impl_info_str();
            if (impl.rfind("ref", 0) == 0) return why = "oneDNN offers only " + impl + " for this case", nullptr;
            k->facts_mut().impl =
                "onednn:" + impl + (order.size() > 2 ? "+" + std::to_string(order.size() - 2) + "post-ops" : "");
            c.prim = dnnl::binary(pd);
            k->chunks_.push_back(std::move(c));
        }
    } catch (const dnnl::error &err) {
        return why = std::string("oneDNN rejected the case: ") + err.what(), nullptr;
    }
    return k;
}

} // namespace fusebox::detail
