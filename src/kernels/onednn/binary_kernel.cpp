// The output is split along its outermost merged dim into one chunk per
// thread; each chunk runs a primitive built for its row count (at most two
// shapes: the regular chunk and the tail) on the caller's TBB threads.
#include "kernels/onednn/binary_kernel.hpp"

#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/parallel.hpp"

namespace fusebox::detail {
namespace {

using dnnl::memory;

dnnl::engine &cpu_engine() {
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

dnnl::stream &thread_stream() {
    thread_local dnnl::stream s(cpu_engine());
    return s;
}

// Where oneDNN's binary primitive is exact. bf16 and f16 Add are not: the
// JIT conversion to bf16 (vcvtneps2bf16) flushes subnormal results to zero,
// and f16 has no JIT path in oneDNN 2.6. Comparisons read bf16 exactly.
bool exact_on_onednn(const expr_node &n, memory::data_type &src, memory::data_type &dst) {
    if (n.in_dt[0] != n.in_dt[1]) return false;
    if (n.kind == op::kind::Add && n.in_dt[0] == data_type::f32) return src = dst = memory::data_type::f32, true;
    if (n.kind == op::kind::Equal && (n.in_dt[0] == data_type::f32 || n.in_dt[0] == data_type::bf16)) {
        src = n.in_dt[0] == data_type::f32 ? memory::data_type::f32 : memory::data_type::bf16;
        return dst = memory::data_type::u8, true;
    }
    return false;
}

bool is_full(const dims &shape, const dims &strides) {
    for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] > 1 && strides[d] == 0) return false;
    return true;
}

struct chunk_primitive {
    dnnl::primitive prim;
    memory::desc md[3]; // src0, src1, dst
};

class onednn_binary_kernel final : public kernel {
public:
    std::string info() const override { return "onednn:" + impl_; }

    void execute(const void *const *inputs, void *output) const override {
        const int n = static_cast<int>(n_chunks_);
        parallel_chunks(n, [&](int c) {
            single_omp_thread_scope one_thread;
            const chunk_primitive &p = chunks_[c + 1 == n_chunks_ && chunks_.size() > 1 ? 1 : 0];
            const int64_t row = c * rows_per_chunk_;
            void *ptr[3] = {
                const_cast<unsigned char *>(static_cast<const unsigned char *>(inputs[port_[0]]) + row * row_bytes_[0]),
                const_cast<unsigned char *>(static_cast<const unsigned char *>(inputs[port_[1]]) + row * row_bytes_[1]),
                static_cast<unsigned char *>(output) + row * row_bytes_[2]};
            memory src0(p.md[0], cpu_engine(), ptr[0]), src1(p.md[1], cpu_engine(), ptr[1]),
                dst(p.md[2], cpu_engine(), ptr[2]);
            p.prim.execute(thread_stream(), {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}});
            thread_stream().wait();
        });
    }

    std::string impl_;
    std::vector<chunk_primitive> chunks_; // [regular] or [regular, tail]
    int64_t n_chunks_ = 1, rows_per_chunk_ = 0;
    size_t port_[2] = {0, 0};
    int64_t row_bytes_[3] = {0, 0, 0}; // bytes between rows of the outermost dim
};

} // namespace

std::unique_ptr<kernel> make_onednn_kernel(const fused_expr &e, std::string &why) {
    if (e.nodes.size() != 1) return why = "fused chains are not lowered to oneDNN yet", nullptr;
    const expr_node &node = e.nodes[0];
    memory::data_type src_dt, dst_dt;
    if (!exact_on_onednn(node, src_dt, dst_dt))
        return why = std::string("oneDNN is not exact for ") + op_kind_name(node.kind) + " of " +
                     data_type_name(node.in_dt[0]) + "," + data_type_name(node.in_dt[1]),
               nullptr;
    if (e.shape.size() > DNNL_MAX_NDIMS) return why = "too many dims", nullptr;

    auto k = std::make_unique<onednn_binary_kernel>();
    int arg[2] = {node.arg[0], node.arg[1]};
    if (!is_full(e.shape, e.operands[arg[0]].strides)) std::swap(arg[0], arg[1]); // both ops commute
    if (!is_full(e.shape, e.operands[arg[0]].strides))
        return why = "both inputs broadcast (oneDNN broadcasts src_1 only)", nullptr;

    const dims &s0 = e.operands[arg[0]].strides, &s1 = e.operands[arg[1]].strides;
    // src_1 gets extent 1 where it broadcasts, with the strides a dense
    // layout would have there (the JIT recognises broadcasts on plain layouts).
    dims shape1 = e.shape, strides1 = s1;
    for (size_t d = shape1.size(); d-- > 0;)
        if (s1[d] == 0) shape1[d] = 1, strides1[d] = d + 1 < shape1.size() ? strides1[d + 1] * shape1[d + 1] : 1;
    const size_t sz_in = data_type_size(node.in_dt[0]), sz_out = data_type_size(node.out_dt);
    for (int i = 0; i < 2; ++i) k->port_[i] = e.operands[arg[i]].port;
    k->row_bytes_[0] = s0[0] * sz_in, k->row_bytes_[1] = s1[0] * sz_in, k->row_bytes_[2] = e.out_strides[0] * sz_out;

    const int64_t rows = e.shape[0];
    const int64_t bytes = e.numel() * static_cast<int64_t>(2 * sz_in + sz_out);
    k->n_chunks_ = std::min<int64_t>(plan_chunks(bytes), rows);
    k->rows_per_chunk_ = (rows + k->n_chunks_ - 1) / k->n_chunks_;
    k->n_chunks_ = (rows + k->rows_per_chunk_ - 1) / k->rows_per_chunk_;
    const int64_t tail = rows - (k->n_chunks_ - 1) * k->rows_per_chunk_;
    const auto alg = node.kind == op::kind::Add ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_eq;
    for (int64_t chunk_rows : {k->rows_per_chunk_, tail}) {
        if (chunk_rows == k->rows_per_chunk_ && !k->chunks_.empty()) break;
        memory::dims d0(e.shape.begin(), e.shape.end()), d1(shape1.begin(), shape1.end());
        d0[0] = chunk_rows;
        if (d1[0] != 1) d1[0] = chunk_rows;
        chunk_primitive c;
        c.md[0] = memory::desc(d0, src_dt, memory::dims(s0.begin(), s0.end()));
        c.md[1] = memory::desc(d1, src_dt, memory::dims(strides1.begin(), strides1.end()));
        c.md[2] = memory::desc(d0, dst_dt, memory::dims(e.out_strides.begin(), e.out_strides.end()));
        try {
#if DNNL_VERSION_MAJOR >= 3
            dnnl::binary::primitive_desc pd(cpu_engine(), alg, c.md[0], c.md[1], c.md[2]);
#else
            dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, c.md[0], c.md[1], c.md[2]), cpu_engine());
#endif
            const std::string impl = pd.impl_info_str();
            if (impl.rfind("ref", 0) == 0) return why = "oneDNN offers only " + impl + " for this case", nullptr;
            k->impl_ = impl;
            c.prim = dnnl::binary(pd);
        } catch (const dnnl::error &err) {
            return why = std::string("oneDNN rejected the case: ") + err.what(), nullptr;
        }
        k->chunks_.push_back(std::move(c));
    }
    return k;
}

} // namespace fusebox::detail
