// The iteration space is walked row by row (the innermost merged dim), each
// row in blocks small enough that every intermediate stays in L1. Per block,
// nodes run in order; operands with an inner stride of 0 are passed as
// broadcast scalars, other strided operands are gathered first.
#include "kernels/native/expr_kernel.hpp"

#include <algorithm>
#include <cstring>
#include <unistd.h>
#include <utility>
#include <vector>

#include <hwy/cache_control.h>

#include "common/checked.hpp"
#include "common/errors.hpp"
#include "common/parallel.hpp"
#include "common/small_buffer.hpp"
#include "kernels/native/binary_ops.hpp"

namespace fusebox::detail {
namespace {

// Elements per block: intermediates of a block stay in L1. Scratch for up to
// kStackScratch bytes lives on the stack; larger expressions take smaller
// blocks, and beyond kMinBlock elements per block their scratch comes from
// the engine's allocator.
constexpr int64_t kMaxBlock = 512, kMinBlock = 64;
constexpr size_t kStackScratch = 32 << 10;

void copy_elements(void *dst, int64_t ds, const void *src, int64_t ss, int64_t n, size_t es) {
    auto *d = static_cast<unsigned char *>(dst);
    auto *s = static_cast<const unsigned char *>(src);
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds * es, s + i * ss * es, es);
}

struct node_plan {
    binary_fn fn;
    int arg[2];
    size_t res_slot; // scratch offset of the result, unless it goes straight to the output
};

struct operand_plan {
    size_t port;
    size_t elem_size;
    std::vector<int64_t> strides;
    size_t gather_slot; // used when the inner stride is neither 0 nor 1
};

class native_expr_kernel final : public kernel {
public:
    explicit native_expr_kernel(const fused_expr &e)
        : kernel({std::string("native:expr:") + element_ops_for_cpu().isa}), shape_(e.shape),
          out_strides_(e.out_strides), total_(e.numel()) {
        out_size_ = data_type_size(e.output.get_data_type());
        size_t slot_bytes = 8 * e.nodes.size(); // scratch per element of a block
        for (const auto &o : e.operands) slot_bytes += data_type_size(e.inputs[o.port].get_data_type());
        block_ = kMaxBlock;
        while (block_ > kMinBlock && block_ * slot_bytes > kStackScratch) block_ /= 2;
        auto slot = [&](size_t bytes) { return std::exchange(scratch_bytes_, scratch_bytes_ + block_ * bytes); };
        int64_t bytes_per_element = static_cast<int64_t>(out_size_);
        for (const auto &o : e.operands) {
            size_t es = data_type_size(e.inputs[o.port].get_data_type());
            operands_.push_back({o.port, es, o.strides, slot(es)});
            bytes_per_element += static_cast<int64_t>(es);
        }
        const int64_t total_bytes = saturating_mul(total_, bytes_per_element);
        stream_ = total_bytes >= stream_threshold_bytes();
        // The split is fixed here: a small partition runs inline on the
        // caller, with nothing to decide per execute.
        facts_.threads = max_threads();
        facts_.chunks =
            static_cast<int>(std::clamp<int64_t>(plan_chunks(total_bytes), 1, std::max<int64_t>(total_, 1)));
        facts_.streaming = stream_;
        const element_ops &ops = element_ops_for_cpu();
        for (const auto &n : e.nodes) {
            const int ta = dtype_index(n.in_dt[0]), tb = dtype_index(n.in_dt[1]);
            node_plan p{n.kind == op::kind::Add ? ops.add[ta][tb] : (ta == tb ? ops.equal[ta] : nullptr),
                        {n.arg[0], n.arg[1]},
                        slot(8)};
            if (!p.fn)
                fail(status::unimplemented, "native kernel: no ", op_kind_name(n.kind), " for ",
                     data_type_name(n.in_dt[0]), ",", data_type_name(n.in_dt[1]));
            nodes_.push_back(p);
        }
    }

    void execute(const void *const *inputs, void *output, const exec_context &ctx) const override {
        if (total_ == 0) return;
        const int chunks = facts_.chunks;
        if (chunks == 1) return run_chunk(inputs, output, 0, total_, ctx);
        // Chunks start on cache-line boundaries of the output: a thread whose
        // streaming stores begin mid-line runs at a third of the speed.
        const int64_t line = std::max<int64_t>(1, 64 / static_cast<int64_t>(out_size_));
        const int64_t phase = static_cast<int64_t>(reinterpret_cast<uintptr_t>(output) / out_size_ % line);
        auto boundary = [&](int c) {
            if (c == 0 || c == chunks) return c == 0 ? int64_t{0} : total_;
            const int64_t b = (total_ * c / chunks + phase + line / 2) / line * line - phase;
            return std::clamp<int64_t>(b, 0, total_);
        };
        parallel_chunks(chunks, [&](int c) {
            const int64_t begin = boundary(c), end = boundary(c + 1);
            if (begin < end) run_chunk(inputs, output, begin, end, ctx);
        });
    }

private:
    void run_chunk(const void *const *inputs, void *output, int64_t begin, int64_t end, const exec_context &ctx) const {
        if (scratch_bytes_ <= kStackScratch) {
            alignas(64) unsigned char scratch[kStackScratch];
            run(inputs, output, begin, end, scratch);
        } else {
            scratch_buffer scratch(ctx.alloc, scratch_bytes_, "the scratch of a large fused partition");
            run(inputs, output, begin, end, scratch.data());
        }
    }

    void run(const void *const *inputs, void *output, int64_t begin, int64_t end, unsigned char *scratch) const {
        const size_t rank = shape_.size(), n_ops = operands_.size();
        small_buffer<int64_t, 8> idx(rank);
        for (size_t d = rank, rest = begin; d-- > 0;) idx[d] = rest % shape_[d], rest /= shape_[d];
        small_buffer<const unsigned char *, 8> ptr(n_ops);
        small_buffer<const void *, 16> view(n_ops + nodes_.size());
        small_buffer<int64_t, 16> stride(n_ops + nodes_.size());
        for (int64_t pos = begin; pos < end;) {
            const int64_t row = std::min(shape_[rank - 1] - idx[rank - 1], end - pos);
            for (size_t k = 0; k < n_ops; ++k) {
                int64_t off = 0;
                for (size_t d = 0; d < rank; ++d) off += idx[d] * operands_[k].strides[d];
                ptr[k] = static_cast<const unsigned char *>(inputs[operands_[k].port]) + off * operands_[k].elem_size;
            }
            int64_t out_off = 0;
            for (size_t d = 0; d < rank; ++d) out_off += idx[d] * out_strides_[d];
            auto *out = static_cast<unsigned char *>(output) + out_off * out_size_;
            for (int64_t b = 0; b < row; b += block_)
                eval_block(scratch, ptr.data(), view.data(), stride.data(), b,
                           out + b * out_strides_[rank - 1] * out_size_, std::min(block_, row - b));
            pos += row;
            idx[rank - 1] += row;
            for (size_t d = rank - 1; d > 0 && idx[d] == shape_[d]; --d) idx[d] = 0, ++idx[d - 1];
        }
        if (stream_) hwy::FlushStream(); // make the streamed output visible to the threads that read it next
    }

    // view/stride: operands at index k, node results at index operands + n.
    void eval_block(unsigned char *scratch, const unsigned char *const *row_ptr, const void **view, int64_t *stride,
                    int64_t first, unsigned char *out, int64_t len) const {
        const int64_t inner = static_cast<int64_t>(shape_.size()) - 1;
        const size_t n_ops = operands_.size();
        for (size_t k = 0; k < n_ops; ++k) {
            const auto &o = operands_[k];
            const int64_t s = o.strides[inner];
            const unsigned char *p = row_ptr[k] + first * s * o.elem_size;
            if (s == 0 || s == 1) {
                view[k] = p, stride[k] = s;
            } else {
                copy_elements(scratch + o.gather_slot, 1, p, s, len, o.elem_size);
                view[k] = scratch + o.gather_slot, stride[k] = 1;
            }
        }
        const int64_t out_stride = out_strides_[inner];
        for (size_t n = 0; n < nodes_.size(); ++n) {
            const node_plan &p = nodes_[n];
            const void *a[2];
            int64_t sa[2];
            for (int k = 0; k < 2; ++k) {
                const size_t v = p.arg[k] >= 0 ? static_cast<size_t>(p.arg[k]) : n_ops + ~p.arg[k];
                a[k] = view[v], sa[k] = stride[v];
            }
            const bool scalar = sa[0] == 0 && sa[1] == 0; // one value for the whole block
            const bool direct = n + 1 == nodes_.size() && out_stride == 1 && !scalar;
            unsigned char *dest = direct ? out : scratch + p.res_slot;
            p.fn(a[0], sa[0], a[1], sa[1], dest, scalar ? 1 : len, direct && stream_);
            view[n_ops + n] = dest, stride[n_ops + n] = scalar ? 0 : 1;
        }
        const size_t last = n_ops + nodes_.size() - 1;
        if (view[last] != out) copy_elements(out, out_stride, view[last], stride[last], len, out_size_);
    }

    std::vector<int64_t> shape_, out_strides_;
    std::vector<operand_plan> operands_;
    std::vector<node_plan> nodes_;
    size_t out_size_ = 0, scratch_bytes_ = 0;
    int64_t block_ = kMaxBlock; // elements per block
    bool stream_ = false;       // non-temporal stores for the output
    int64_t total_;             // elements of the output
};

} // namespace

// Such outputs would not stay in cache anyway, and skipping the
// read-for-ownership saves a quarter of an Add's memory traffic.
int64_t stream_threshold_bytes() {
    static const int64_t bytes = [] {
        long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
        return std::max<int64_t>(int64_t{8} << 20, llc / 2);
    }();
    return bytes;
}

std::unique_ptr<kernel> make_native_kernel(const fused_expr &e) { return std::make_unique<native_expr_kernel>(e); }

} // namespace fusebox::detail
