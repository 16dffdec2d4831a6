#include "ir/hoist.hpp"

#include <algorithm>
#include <cstdint>

#include "common/access.hpp"
#include "interface/dtype.hpp"

namespace fusebox::detail {
namespace {

using dim_set = uint64_t; // bit d: dim d of the iteration space

// The dims (of more than one element) along which operand o is broadcast.
dim_set broadcast_dims(const fused_expr &e, const operand &o) {
    dim_set s = 0;
    for (size_t d = 0; d < e.shape.size(); ++d)
        if (e.shape[d] > 1 && o.strides[d] == 0) s |= dim_set{1} << d;
    return s;
}

// What the nodes of `e` up to `target` compute of it, as an expression over
// `shape` writing `out_strides`: node m with buffer[m] >= 0 is read from
// input port e.inputs.size() + buffer[m] (strides buffer_strides[buffer[m]]
// over e.shape) instead of being computed.
fused_expr extract(const fused_expr &e, size_t target, const std::vector<int> &buffer,
                   const std::vector<dims> &buffer_strides, const std::vector<logical_tensor> &inputs,
                   const dims &shape, const dims &out_strides, const logical_tensor &output,
                   const std::vector<side_output> &sides = {}) {
    const size_t n_in = e.inputs.size();
    fused_expr x;
    x.inputs = inputs;
    x.output = output;
    x.sides = sides;
    x.constants = e.constants;
    x.shape = shape;
    x.out_strides = out_strides;
    // The nodes `target` and the side outputs need, stopping at buffers.
    std::vector<char> needed(target + 1, 0);
    needed.back() = 1;
    for (const side_output &side : sides) needed.at(static_cast<size_t>(side.node)) = 1;
    for (size_t n = target + 1; n-- > 0;) {
        if (!needed[n] || (n != target && buffer[n] >= 0)) continue;
        for (int k = 0; k < e.nodes[n].n_args; ++k)
            if (e.nodes[n].arg[k] < 0) needed[static_cast<size_t>(~e.nodes[n].arg[k])] = 1;
    }
    std::vector<int> index(target + 1, -1);
    for (size_t n = 0; n <= target; ++n) {
        if (!needed[n] || (n != target && buffer[n] >= 0)) continue;
        expr_node node = e.nodes[n];
        for (int k = 0; k < node.n_args; ++k) {
            const int a = node.arg[k];
            if (a >= 0) {
                operand o = e.operands[static_cast<size_t>(a)];
                if (e.is_constant(o)) o.port += inputs.size() - n_in; // constants follow the buffers
                node.arg[k] = x.operand_index(std::move(o));
            } else if (const int b = buffer[static_cast<size_t>(~a)]; b >= 0) {
                node.arg[k] = x.operand_index({n_in + static_cast<size_t>(b), buffer_strides[static_cast<size_t>(b)]});
            } else {
                node.arg[k] = ~index[static_cast<size_t>(~a)];
            }
        }
        index[n] = static_cast<int>(x.nodes.size());
        x.nodes.push_back(node);
    }
    for (side_output &side : x.sides) side.node = index.at(static_cast<size_t>(side.node)); // never a buffer
    x.merge_dims();
    return x;
}

// e with dim d split into (shape[d] / r, r), every stride vector with it.
fused_expr split_dim(const fused_expr &e, size_t d, int64_t r) {
    fused_expr x = e;
    auto split = [&](dims &st) {
        st.insert(st.begin() + static_cast<std::ptrdiff_t>(d) + 1, st[d]);
        st[d] *= r;
    };
    x.shape.insert(x.shape.begin() + static_cast<std::ptrdiff_t>(d) + 1, r);
    x.shape[d] /= r;
    split(x.out_strides);
    for (auto &o : x.operands) split(o.strides);
    for (auto &side : x.sides) split(side.strides);
    return x;
}

// The main pass's rows are at least this long where a buffer can make them
// so (the kernel's per-row cost shows below, expr_kernel.cpp's kShortRow).
constexpr int64_t kLongRow = 1024;

// hoist_invariants, never reducing the dims in `keep`.
staged_expr hoist(const fused_expr &e, int64_t cache_bytes, dim_set keep);

} // namespace

staged_expr hoist_invariants(const fused_expr &e, int64_t cache_bytes) { return hoist(e, cache_bytes, 0); }

namespace {

staged_expr hoist(const fused_expr &e, int64_t cache_bytes, dim_set keep) {
    staged_expr r;
    const size_t rank = e.shape.size(), count = e.nodes.size();
    const int64_t total = e.numel();
    if (count < 2 || rank > 64 || total < kMinElements) {
        r.main = e;
        return r;
    }
    // Per node: the dims it is broadcast on (those of all its operands), the
    // widest input element it is computed from, and whether some reader of
    // it is not broadcast on all of its dims.
    std::vector<dim_set> bcast(count);
    std::vector<size_t> widest(count, 0);
    std::vector<char> read_wider(count, 0);
    for (size_t n = 0; n < count; ++n) {
        const expr_node &x = e.nodes[n];
        dim_set s = ~dim_set{0};
        for (int k = 0; k < x.n_args; ++k) {
            if (x.arg[k] >= 0) {
                const operand &o = e.operands[static_cast<size_t>(x.arg[k])];
                s &= broadcast_dims(e, o);
                if (!e.is_constant(o)) widest[n] = std::max(widest[n], data_type_size(e.operand_type(o)));
            } else {
                const size_t m = static_cast<size_t>(~x.arg[k]);
                s &= bcast[m];
                widest[n] = std::max(widest[n], widest[m]);
            }
        }
        bcast[n] = s & ~keep;
        for (int k = 0; k < x.n_args; ++k)
            if (x.arg[k] < 0 && bcast[static_cast<size_t>(~x.arg[k])] != s)
                read_wider[static_cast<size_t>(~x.arg[k])] = 1;
    }
    // The nodes computed once (never the output's), in evaluation order, so
    // that a buffer read by a later stage is written before it.
    std::vector<int> buffer(count, -1);
    std::vector<size_t> roots;
    std::vector<dims> buffer_strides; // each buffer's strides over e.shape
    std::vector<logical_tensor> inputs = e.inputs;
    std::vector<char> is_side(count, 0);
    for (const side_output &side : e.sides) is_side[static_cast<size_t>(side.node)] = 1;
    for (size_t n = 0; n + 1 < count; ++n) {
        if (!bcast[n] || !read_wider[n] || is_side[n]) continue;
        int64_t repeat = 1;
        dims shape = e.shape;
        for (size_t d = 0; d < rank; ++d)
            if (bcast[n] >> d & 1) repeat *= shape[d], shape[d] = 1;
        const size_t es = data_type_size(e.nodes[n].out_dt);
        const int64_t bytes = total / repeat * static_cast<int64_t>(es);
        if (repeat < kMinRepeat || (bytes > cache_bytes && es > widest[n])) continue;
        // The buffer: dense over the smaller shape in the iteration space's
        // order; read back with stride 0 along the broadcast dims.
        dims dense(rank), read(rank);
        for (int64_t d = static_cast<int64_t>(rank) - 1, step = 1; d >= 0; --d) {
            dense[static_cast<size_t>(d)] = step;
            read[static_cast<size_t>(d)] = shape[static_cast<size_t>(d)] == 1 ? 0 : step;
            step *= shape[static_cast<size_t>(d)];
        }
        buffer[n] = static_cast<int>(roots.size());
        roots.push_back(n);
        inputs.emplace_back(inputs.size(), e.nodes[n].out_dt, shape, dense);
        buffer_strides.push_back(read);
    }
    if (roots.empty()) {
        r.main = e;
        return r;
    }
    // A buffer broadcast along the dim next to short rows: it repeats
    // itself over enough of that dim to make rows of kLongRow (a whole
    // number of times; a buffer that many times larger), so that the main
    // pass reads long rows (DistilBERT's mask over rows of 128 keys).
    const int64_t row = e.shape[rank - 1];
    if (keep == 0 && rank >= 2 && row < kLongRow && row > 1) {
        const size_t next = rank - 2;
        const bool along_next = std::any_of(roots.begin(), roots.end(), [&](size_t n) { return bcast[n] >> next & 1; });
        for (int64_t times = (kLongRow + row - 1) / row; along_next && times * kMinRepeat <= e.shape[next]; ++times)
            if (e.shape[next] % times == 0) {
                staged_expr wide = hoist(split_dim(e, next, times), cache_bytes, dim_set{1} << (next + 1));
                if (!wide.stages.empty()) return wide;
                break;
            }
    }
    for (size_t k = 0; k < roots.size(); ++k) {
        const logical_tensor &written = inputs[e.inputs.size() + k];
        r.stages.push_back(
            extract(e, roots[k], buffer, buffer_strides, inputs, dims_of(written), strides_of(written), written));
    }
    r.main = extract(e, count - 1, buffer, buffer_strides, inputs, e.shape, e.out_strides, e.output, e.sides);
    return r;
}

} // namespace

} // namespace fusebox::detail
