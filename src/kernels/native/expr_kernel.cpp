// The iteration space is walked row by row (the innermost merged dim), each
// row in blocks small enough that every intermediate stays in L1. Per block,
// nodes run in order; operands with an inner stride of 0 are passed as
// broadcast scalars, other strided operands are gathered first. A chain of
// Adds over one floating-point type runs as one loop instead, its partial
// sums in registers.
#include "kernels/native/expr_kernel.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <hwy/cache_control.h>

#include "common/checked.hpp"
#include "common/cpu_info.hpp"
#include "common/errors.hpp"
#include "common/parallel.hpp"
#include "common/small_buffer.hpp"
#include "ir/hoist.hpp"
#include "kernels/native/binary_ops.hpp"

namespace fusebox::detail {
namespace {

// Elements per block: intermediates of a block stay in L1 (l1_budget()
// bytes of scratch). Scratch for up to kStackScratch bytes lives on the
// stack; larger expressions take smaller blocks, and beyond kMinBlock
// elements per block their scratch comes from the engine's allocator. Expressions of several nodes over 2-byte elements
// (and narrower) take half the block: measured 0.80 -> 0.87 of the roof for
// bf16/f16 chains before they ran in registers, where 4-byte ones lose.
constexpr int64_t kMaxBlock = 512, kMaxNarrowBlock = 256, kMinBlock = 64;
constexpr size_t kStackScratch = 32 << 10;
// Bytes ahead of its loads that a streaming expression of several nodes (other
// than an Add chain, which prefetches in its loop) prefetches each node's
// operands, as the element loops do for a single op: two blocks of f32, so
// that the lines a block reads arrive while the block before it runs all its
// nodes. Half a block (1 KiB) left S8 (ReLU(A + B)) at 0.73-0.82 of the roof
// and S7 (the LayerNorm tail) at 0.34 on a Zen 5 with AVX-512; 4 KiB gives
// 0.95-0.98 and 0.46-0.60 (2 KiB and 8 KiB in between), and S7 capped to
// AVX2 runs 1.25x faster (S8 there the same).
constexpr int64_t kPrefetchAhead = 4096;
// Rows shorter than this (elements) of a one-op partition run many to a call.
constexpr int64_t kShortRow = 1024;
// Bytes of scratch that stay in L1 beside the data streaming through it: two
// thirds of the L1d, to a power of two (32 KiB of a 48 KiB L1d, 16 KiB of a
// 32 KiB one). The block scratch and a transposing panel's tile of one
// operand each take that much at most.
int64_t l1_budget() {
    static const int64_t bytes = [] {
        int64_t b = 4 << 10;
        while (b * 2 <= caches().l1d * 2 / 3 && b < static_cast<int64_t>(kStackScratch)) b *= 2;
        return b;
    }();
    return bytes;
}
// Rows ahead of a panel's current row that operands read along rows are prefetched.
constexpr int64_t kRowsAhead = 16;
// Strips (the output transposed): bytes of the narrowest input row per
// block, and how far ahead of its loads each row is prefetched: one block,
// so that each row's next block arrives while the strip's other rows run
// (half a block ahead, bf16 NCHW -> NHWC capped to AVX2 took 7.5 - 7.9 ms
// at 2 threads against 5.2, its loads stalling on memory; Equal f32 ->
// boolean 9.8 -> 8.8 ms, with AVX-512 10.5 -> 7.6 ms).
constexpr int64_t kStripBytes = 512, kStripAhead = kStripBytes;

template <typename T> void copy_strided(void *dst, int64_t ds, const void *src, int64_t ss, int64_t n) {
    auto *d = static_cast<T *>(dst);
    auto *s = static_cast<const T *>(src);
    for (int64_t i = 0; i < n; ++i) d[i * ds] = s[i * ss];
}

// A short contiguous run, copied inline in fixed-size pieces (a library
// memcpy call per run costs more than the copy).
inline void copy_run(unsigned char *dst, const unsigned char *src, int64_t bytes) {
    for (; bytes >= 64; bytes -= 64, dst += 64, src += 64) std::memcpy(dst, src, 64);
    for (; bytes >= 8; bytes -= 8, dst += 8, src += 8) std::memcpy(dst, src, 8);
    for (; bytes > 0; --bytes) *dst++ = *src++;
}

// n elements of es bytes from src (stride ss elements) to dst (stride ds).
// Handles are aligned to their element type, so elements copy as integers.
void copy_elements(void *dst, int64_t ds, const void *src, int64_t ss, int64_t n, size_t es) {
    switch (es) {
    case 1: return copy_strided<uint8_t>(dst, ds, src, ss, n);
    case 2: return copy_strided<uint16_t>(dst, ds, src, ss, n);
    case 4: return copy_strided<uint32_t>(dst, ds, src, ss, n);
    case 8: return copy_strided<uint64_t>(dst, ds, src, ss, n);
    }
    auto *d = static_cast<unsigned char *>(dst);
    auto *s = static_cast<const unsigned char *>(src);
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds * es, s + i * ss * es, es);
}

// A transposed output written through tiles: each filled tile goes out
// (column j of a tile one contiguous run of the output) a few columns per row
// of the next tile while that one fills, not all at once.
struct tile_writer {
    transpose_fn transpose;
    int64_t pitch, ds, es; // tile pitch and output column pitch (elements), element size
    bool stream;
    const unsigned char *tile = nullptr;
    unsigned char *dst = nullptr;
    int64_t len = 0, rows = 0, done = 0; // columns, rows of the tile; columns written so far

    void upto(int64_t n) {
        if (n <= done) return;
        transpose(tile + done * es, pitch, dst + done * ds * es, ds, n - done, rows, stream);
        done = n;
    }
    // After row r of a tile of `height` rows has filled: its share of the
    // previous tile's columns, in whole vectors of them.
    void after_row(int64_t r, int64_t height) {
        if (len > 0) upto(std::min(len, ceil_div((r + 1) * len, height * 16) * 16));
    }
    // The rest of the previous tile goes out; `t` (len_ columns, rows_ rows,
    // bound for `d`) is the one to go out next.
    void next(const unsigned char *t, unsigned char *d, int64_t len_, int64_t rows_) {
        finish();
        tile = t, dst = d, len = len_, rows = rows_, done = 0;
    }
    void finish() {
        if (len > 0) upto(len);
    }
};

struct node_plan {
    binary_fn fn; // two args
    rows_fn rows; // fn over many rows in one call
    nary_fn nary; // one or three args
    int n_args;
    int arg[kMaxArgs];
    size_t res_slot; // scratch offset of the result, unless it goes straight to the output
};

// An output besides the last node's: node `node`'s result, written a block
// at a time as the node computes it.
struct side_plan {
    int node;
    size_t elem_size;
    std::vector<int64_t> strides;
};

struct operand_plan {
    size_t port;
    size_t elem_size;
    std::vector<int64_t> strides;
    size_t gather_slot;               // used when the inner stride is neither 0 nor 1
    bool transposed = false;          // unit stride on the second-inner dim, read across the inner dim
    size_t tile_slot = 0;             // panels: tile_rows_ rows by panel_cols_ columns, filled column by column
    int64_t tile_pitch = 0;           // elements between tile rows: a cache line more than a row, against set conflicts
    transpose_fn transpose = nullptr; // fills the tile for 1-, 2-, 4- and 8-byte elements
    int64_t extent = 0;               // elements from the operand's first to past its last
};

class native_expr_kernel final : public kernel {
public:
    explicit native_expr_kernel(const fused_expr &e)
        : kernel({std::string("native:expr:") + element_ops_for_cpu().isa}), shape_(e.shape),
          out_strides_(e.out_strides), total_(e.numel()), n_inputs_(e.inputs.size()) {
        for (const constant &c : e.constants) constants_.push_back(c.bits);
        out_size_ = data_type_size(e.output.get_data_type());
        size_t slot_bytes = 8 * e.nodes.size(); // scratch per element of a block
        size_t widest = out_size_;
        for (const auto &o : e.operands) {
            const size_t es = data_type_size(e.operand_type(o));
            slot_bytes += es, widest = std::max(widest, es);
        }
        block_ = e.nodes.size() > 1 && widest <= 2 ? kMaxNarrowBlock : kMaxBlock;
        while (block_ > kMinBlock && static_cast<int64_t>(block_ * slot_bytes) > l1_budget()) block_ /= 2;
        auto slot = [&](size_t bytes) { return std::exchange(scratch_bytes_, scratch_bytes_ + block_ * bytes); };
        int64_t bytes_per_element = static_cast<int64_t>(out_size_);
        const size_t rank = shape_.size();
        for (const side_output &side : e.sides) {
            if (side.node < 0 || static_cast<size_t>(side.node) + 1 >= e.nodes.size())
                fail(status::runtime_error, "native kernel: output ", side.port.get_id(), " names no inner node");
            sides_.push_back({side.node, data_type_size(side.port.get_data_type()), side.strides});
            bytes_per_element += static_cast<int64_t>(sides_.back().elem_size);
        }
        for (const auto &o : e.operands) {
            size_t es = data_type_size(e.operand_type(o));
            operands_.push_back({o.port, es, o.strides, slot(es)});
            for (size_t d = 0; d < rank; ++d) operands_.back().extent += (shape_[d] - 1) * o.strides[d];
            operands_.back().extent += 1;
            inner_strides_.push_back(o.strides[rank - 1]);
            bytes_per_element += static_cast<int64_t>(es);
        }
        const int64_t total_bytes = saturating_mul(total_, bytes_per_element);
        stream_ = total_bytes >= stream_threshold_bytes();
        // Several outputs take the row walk (run): panels, strips and chains
        // write one output.
        if (sides_.empty()) plan_panels(e, rank);
        // The split is fixed here: a small partition runs inline on the
        // caller, with nothing to decide per execute.
        facts_.threads = max_threads();
        facts_.chunks =
            static_cast<int>(std::clamp<int64_t>(plan_chunks(total_bytes), 1, std::max<int64_t>(total_, 1)));
        facts_.streaming = stream_;
        const element_ops &ops = element_ops_for_cpu();
        for (const auto &n : e.nodes) {
            const int f = static_cast<int>(n.fn), ta = dtype_index(n.in_dt[0]), tb = dtype_index(n.in_dt[1]);
            node_plan p{nullptr, nullptr, nullptr, n.n_args, {n.arg[0], n.arg[1], n.arg[2]}, slot(8)};
            // Cast by both types; Where and Select (a condition first) by the
            // values' type; a function with a loop over its first input's
            // type and any constants after it (unary ops) by that type; other
            // two-input ones by both types.
            if (n.fn == ew_fn::cast)
                p.nary = ops.cast[ta][dtype_index(n.out_dt)];
            else if (n.fn == ew_fn::select)
                p.nary = ops.nary[f][tb];
            else if (ops.nary[f][ta])
                p.nary = ops.nary[f][ta];
            else if (n.n_args == 2) {
                const binary_loops loops = ops.binary_at(f, ta, tb);
                p.fn = loops.fn, p.rows = loops.rows;
            }
            if (!p.fn && !p.nary)
                fail(status::unimplemented, "native kernel: no ", op_kind_name(n.kind), " for ",
                     data_type_name(n.in_dt[0]), n.n_args > 1 ? "," : "",
                     n.n_args > 1 ? data_type_name(n.in_dt[1]) : "");
            nodes_.push_back(p);
        }
        if (sides_.empty()) plan_chain(e), plan_strip_add(e, rank);
        if (sides_.empty() && !chain_ && !panels_) plan_linear(e);
        // One op (or a chain in registers) reading its operands in place
        // (contiguous or broadcast) and writing the output directly uses no
        // scratch: a whole row per call. Short rows of one op go to its row
        // loop, many rows to a call (padded layouts).
        const bool in_place =
            (nodes_.size() == 1 || chain_ || linear_) && out_strides_[rank - 1] == 1 &&
            std::all_of(inner_strides_.begin(), inner_strides_.end(), [](int64_t s) { return s == 0 || s == 1; });
        row_block_ = in_place ? std::numeric_limits<int64_t>::max() : block_;
        rows_path_ =
            in_place && nodes_.size() == 1 && nodes_[0].rows && !panels_ && rank >= 2 && shape_[rank - 1] < kShortRow;
        // A linear chain takes whole rows of any length in one call where
        // some operand runs along them.
        linear_rows_ = in_place && linear_ && rank >= 2 &&
                       std::any_of(inner_strides_.begin(), inner_strides_.end(), [](int64_t s) { return s == 1; });
    }

    // A chain of one function over one type, each node applying it to the
    // result before it and one operand, runs as one call that keeps the
    // partial results in registers (no round trip through scratch per node),
    // where the loops have a chain for the function and type.
    void plan_chain(const fused_expr &e) {
        if (e.nodes.size() < 2) return;
        const data_type t = e.nodes[0].out_dt;
        const ew_fn fn = e.nodes[0].fn;
        chain_ = element_ops_for_cpu().chain[static_cast<int>(fn)][dtype_index(t)];
        if (!chain_) return; // no chain loop for this function and type
        for (size_t n = 0; n < e.nodes.size(); ++n) {
            const expr_node &x = e.nodes[n];
            const bool same_type = x.fn == fn && x.n_args == 2 && x.in_dt[0] == t && x.in_dt[1] == t && x.out_dt == t;
            // Node 0 applies it to two operands; every later node to the
            // result of the node before it (the arg ~(n - 1)) and one operand.
            const int prev = n > 0 ? ~static_cast<int>(n - 1) : 0;
            const bool link = n == 0 ? x.arg[0] >= 0 && x.arg[1] >= 0
                                     : (x.arg[0] == prev) != (x.arg[1] == prev) && x.arg[x.arg[0] == prev] >= 0;
            const bool in_order = n == 0 || x.arg[0] == prev || find_elementwise(x.kind)->commutative;
            if (!same_type || !link || !in_order) {
                chain_ = nullptr, chain_args_.clear();
                return;
            }
            // A commutative function takes either order of a node's args:
            // values are the same; only which payload a NaN + NaN keeps may
            // differ, which IEEE 754 leaves open (and compilers swap too).
            if (n == 0)
                chain_args_ = {x.arg[0], x.arg[1]};
            else
                chain_args_.push_back(x.arg[x.arg[0] == prev]);
        }
    }

    // A chain of f32 nodes, each reading the one before it (and operands),
    // with at most one function of its own beside Add, Subtract, Multiply,
    // Divide, Maximum, Minimum and ReLU (S1's exact GELU, S3, S7, S8), runs as
    // one call over a block that keeps the value in registers through every
    // node, where the loops have one for that function.
    void plan_linear(const fused_expr &e) {
        if (e.nodes.size() < 2 || e.nodes.size() > static_cast<size_t>(kMaxLinearSteps) ||
            operands_.size() > static_cast<size_t>(kMaxLinearOperands))
            return;
        ew_fn own = ew_fn::identity;
        std::vector<linear_step> steps;
        int first = -1;
        for (size_t n = 0; n < e.nodes.size(); ++n) {
            const expr_node &x = e.nodes[n];
            bool f32 = x.out_dt == data_type::f32;
            for (int k = 0; k < x.n_args; ++k) f32 = f32 && x.in_dt[k] == data_type::f32;
            if (!f32) return;
            const int prev = n > 0 ? ~static_cast<int>(n - 1) : 0; // (args >= 0 are operands)
            if (x.n_args == 1) {
                if (n == 0 ? x.arg[0] < 0 : x.arg[0] != prev) return;
                if (n == 0) first = x.arg[0];
                if (x.fn == ew_fn::identity) continue; // (Sum, Max, ... of one input: no step)
                const bool cheap = x.fn == ew_fn::relu;
                if (!cheap && (own != ew_fn::identity || !element_ops_for_cpu().linear[static_cast<int>(x.fn)])) return;
                if (!cheap) own = x.fn;
                steps.push_back({x.fn, linear_step::unary, 0});
                continue;
            }
            switch (x.fn) {
            case ew_fn::add:
            case ew_fn::subtract:
            case ew_fn::multiply:
            case ew_fn::divide:
            case ew_fn::maximum:
            case ew_fn::minimum: break;
            default: return;
            }
            if (x.n_args != 2) return;
            if (n == 0) {
                if (x.arg[0] < 0 || x.arg[1] < 0) return;
                first = x.arg[0];
                steps.push_back({x.fn, linear_step::left, static_cast<uint16_t>(x.arg[1])});
            } else if (x.arg[0] == prev && x.arg[1] >= 0) {
                steps.push_back({x.fn, linear_step::left, static_cast<uint16_t>(x.arg[1])});
            } else if (x.arg[1] == prev && x.arg[0] >= 0) {
                steps.push_back({x.fn, linear_step::right, static_cast<uint16_t>(x.arg[0])});
            } else {
                return; // (two earlier results, or the previous one twice)
            }
        }
        linear_ = element_ops_for_cpu().linear[static_cast<int>(own)];
        if (linear_) linear_steps_ = std::move(steps), linear_first_ = first;
    }

    // Strips of one op of two operands along their rows run the op and the
    // transpose in registers where the loops have that: no tile, straight to
    // the output. Such a strip is one output line tall (a comparison's strip
    // of 64 rows, where the tiles take 16: its rows' lines are used at once).
    void plan_strip_add(const fused_expr &e, size_t rank) {
        if (!strips_ || strip_in_ || e.nodes.size() != 1 || e.nodes[0].n_args != 2) return;
        const expr_node &n = e.nodes[0];
        if (n.in_dt[0] != n.in_dt[1] || (n.out_dt != n.in_dt[0] && n.out_dt != data_type::boolean) || n.arg[0] < 0 ||
            n.arg[1] < 0)
            return;
        // Strips shorter than their height (fewer rows in all) would run
        // the kernel's scalar tail everywhere.
        const int64_t height = 64 / static_cast<int64_t>(out_size_);
        if (shape_[rank - 2] < height) return;
        for (int k : n.arg)
            if (operands_[static_cast<size_t>(k)].strides[rank - 1] != 1) return; // broadcast or gathered
        strip_add_ = element_ops_for_cpu().out_transposed[static_cast<int>(n.fn)][dtype_index(n.in_dt[0])];
        if (strip_add_) tile_rows_ = height, strip_stream_ = stream_;
    }

    // Unit stride on the second-inner dim, read across the inner one.
    static bool across_rows(const dims &st, size_t rank) {
        return st[rank - 2] == 1 && st[rank - 1] != 0 && st[rank - 1] != 1;
    }

    // One op of a transposed input and an input along the rows (or a second
    // transposed one) into an output along its rows, where the loops run the
    // op and the transpose in registers (in_transposed, both_transposed):
    // strips of one output line of rows, each line of a transposed input
    // loaded once, no tile. Two transposed inputs take them only where their
    // lines are closer together than the output's rows, so that the
    // scattered accesses take the shorter strides (f32 NHWC + NHWC -> NCHW
    // at 2 threads on a Zen 5: 12.2 ms through a transposed output, 9.5 so;
    // NCHW + NCHW -> NHWC the other way round: 7.4 and 11.4); otherwise
    // plan_panels swaps the dims. True, with strip_in_ set, where they apply.
    bool plan_strip_in(const fused_expr &e, size_t rank) {
        if (e.nodes.size() != 1 || out_strides_[rank - 1] != 1) return false;
        const expr_node &n = e.nodes[0];
        const int64_t height = 64 / static_cast<int64_t>(out_size_);
        if (n.n_args != 2 || n.in_dt[0] != n.in_dt[1] || n.out_dt != n.in_dt[0] || n.arg[0] < 0 || n.arg[1] < 0 ||
            n.arg[0] == n.arg[1] || shape_[rank - 2] < height)
            return false;
        const dims &x = operands_[static_cast<size_t>(n.arg[0])].strides,
                   &y = operands_[static_cast<size_t>(n.arg[1])].strides;
        const bool both = across_rows(x, rank) && across_rows(y, rank);
        const int across = across_rows(x, rank) ? 0 : 1; // the transposed argument (the first, if both are)
        const dims &t = across == 0 ? x : y, &r = across == 0 ? y : x;
        if (!across_rows(t, rank)) return false;
        if (both ? std::max(x[rank - 1], y[rank - 1]) > out_strides_[rank - 2] : r[rank - 1] != 1) return false;
        if (across == 1 && !find_elementwise(n.kind)->commutative) return false; // the loops take it first
        const element_ops &ops = element_ops_for_cpu();
        strip_in_ = (both ? ops.both_transposed : ops.in_transposed)[static_cast<int>(n.fn)][dtype_index(n.in_dt[0])];
        if (!strip_in_) return false;
        strip_in_arg_ = across, strip_in_both_ = both;
        panels_ = strips_ = true, tile_rows_ = height, strip_stream_ = stream_;
        return true;
    }

    // Transposing partitions. An operand read across the inner dim has its
    // unit stride on the dim next to it (canonicalize puts it there): walk
    // panels of rows by panel_cols_ columns, reading each of its cache lines
    // once into a tile from which every row of the panel is contiguous. When
    // more inputs run in another order than the output's, the two inner dims
    // swap: the inputs are read along their rows and the output is the one
    // transposed, through a tile written out a column at a time. One op the
    // loops run in registers takes strips with no tile instead (plan_strip_in).
    void plan_panels(const fused_expr &e, size_t rank) {
        if (rank < 2) return;
        auto is_transposed = [&](const dims &st) { return across_rows(st, rank); };
        int64_t transposed = 0, along_rows = out_strides_[rank - 1] == 1;
        for (const auto &o : operands_) transposed += is_transposed(o.strides), along_rows += o.strides[rank - 1] == 1;
        if (transposed == 0 || plan_strip_in(e, rank)) return;
        if (transposed > along_rows) { // swap the two inner dims
            std::swap(shape_[rank - 2], shape_[rank - 1]);
            std::swap(out_strides_[rank - 2], out_strides_[rank - 1]);
            for (auto &o : operands_) std::swap(o.strides[rank - 2], o.strides[rank - 1]);
            for (size_t k = 0; k < operands_.size(); ++k) inner_strides_[k] = operands_[k].strides[rank - 1];
            std::swap(transposed, along_rows);
        }
        out_transposed_ = is_transposed(out_strides_) && out_size_ <= 8;
        int64_t widest = out_transposed_ ? static_cast<int64_t>(out_size_) : 0;
        for (auto &o : operands_) {
            o.transposed = is_transposed(o.strides) && o.elem_size <= 64;
            if (o.transposed) widest = std::max(widest, static_cast<int64_t>(o.elem_size));
        }
        if (widest == 0) return;
        panels_ = true;
        // Wide panels when most streams run along the rows, tall tiles when
        // most are transposed (measured, PERFORMANCE.md). A wide panel's
        // columns make runs of 1 KiB of the narrowest stream along the rows
        // (256 f32 columns): a transposed input wants two cache lines or more
        // per column of its tile. When only the output is transposed, strips
        // (run_strips) take blocks of 512 bytes of the narrowest input row.
        // At most block_ columns (512; 256 in expressions of several nodes
        // over 2-byte types).
        size_t row_es = out_transposed_ ? 8 : out_size_;
        bool input_tiles = false;
        for (const auto &o : operands_) {
            if (o.transposed) input_tiles = true;
            if (!o.transposed && o.strides[rank - 1] == 1) row_es = std::min(row_es, o.elem_size);
        }
        strips_ = !input_tiles;
        const int64_t run_bytes = input_tiles ? 1024 : kStripBytes;
        panel_cols_ = along_rows > transposed ? run_bytes / static_cast<int64_t>(row_es) : 64;
        if (!strips_) panel_cols_ = std::min(panel_cols_, block_);
        // Tiles hold whole cache lines of rows, up to l1_budget() bytes per operand:
        // each column of a tile is one contiguous run of memory.
        const int64_t per_line = 64 / widest, rows = shape_[rank - 2];
        const int64_t fit = std::max<int64_t>(1, l1_budget() / (panel_cols_ * widest) / per_line);
        tile_rows_ = std::min(ceil_div(rows, per_line), fit) * per_line;
        if (strips_) {
            // Strips are one cache line tall for the output, or for the widest
            // input row stream when that is shorter: an f32 -> boolean strip
            // of 64 rows would run 128 input streams. A shorter strip writes
            // part of each output line (16 of 64 bytes for that Equal), so the
            // output goes through the cache, and the next strips complete its
            // lines while they are still there (Equal f32 NCHW -> NHWC
            // 18.2 - 19.3 -> 20.8 - 21.3 GB/s). Where the loops compare in
            // registers into a transposed output, plan_strip_add makes the
            // strip a whole output line tall instead.
            int64_t in_widest = 1;
            for (const auto &o : operands_)
                if (o.strides[rank - 1] == 1) in_widest = std::max(in_widest, static_cast<int64_t>(o.elem_size));
            tile_rows_ = std::min(per_line, std::max<int64_t>(1, 64 / in_widest));
            strip_stream_ = stream_ && tile_rows_ * static_cast<int64_t>(out_size_) >= 64;
        }
        const element_ops &ops = element_ops_for_cpu();
        auto transpose_for = [&](size_t es) {
            return es == 1   ? ops.transpose[0]
                   : es == 2 ? ops.transpose[1]
                   : es == 4 ? ops.transpose[2]
                   : es == 8 ? ops.transpose[3]
                             : nullptr;
        };
        // A cache line more than a row between tile rows, against set conflicts;
        // slack after a tile for the narrow gathers reading past its end.
        auto tile = [&](size_t es, int64_t &pitch) {
            pitch = panel_cols_ + 64 / static_cast<int64_t>(es);
            return std::exchange(scratch_bytes_, scratch_bytes_ + static_cast<size_t>(tile_rows_ * pitch) * es + 64);
        };
        for (auto &o : operands_)
            if (o.transposed) {
                o.tile_slot = tile(o.elem_size, o.tile_pitch);
                o.transpose = transpose_for(o.elem_size);
            }
        if (out_transposed_) {
            for (size_t &slot : out_tile_slot_) slot = tile(out_size_, out_tile_pitch_);
            out_transpose_ = transpose_for(out_size_);
        }
        // Narrow columns of an input tile are first copied here, contiguously:
        // their gathers read past each element.
        if (!strips_)
            packed_slot_ = std::exchange(
                scratch_bytes_, scratch_bytes_ + static_cast<size_t>(panel_cols_ * (tile_rows_ * widest + 64) + 64));
    }

    void execute(const void *const *inputs, void *const *outputs, const exec_context &ctx) const override {
        if (constants_.empty()) return execute_all(inputs, outputs, ctx);
        // Constants are operands after the inputs.
        small_buffer<const void *, 16> all(n_inputs_ + constants_.size());
        std::copy(inputs, inputs + n_inputs_, all.data());
        for (size_t k = 0; k < constants_.size(); ++k) all[n_inputs_ + k] = &constants_[k];
        execute_all(all.data(), outputs, ctx);
    }

private:
    void execute_all(const void *const *inputs, void *const *outputs, const exec_context &ctx) const {
        if (total_ == 0) return;
        void *output = outputs[0];
        if (panels_) return execute_panels(inputs, output, ctx);
        const int chunks = facts_.chunks;
        if (chunks == 1) return run_chunk(inputs, outputs, 0, total_, ctx);
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
            if (begin < end) run_chunk(inputs, outputs, begin, end, ctx);
        });
    }

    // Runs f(scratch) with the block scratch on the stack, or from the
    // engine's allocator when it is larger.
    template <typename F> void with_scratch(const exec_context &ctx, F &&f) const {
        if (scratch_bytes_ <= kStackScratch) {
            alignas(64) unsigned char scratch[kStackScratch];
            f(scratch);
        } else {
            scratch_buffer scratch(ctx.alloc, scratch_bytes_, "the scratch of a large fused partition");
            f(scratch.data());
        }
    }

    void run_chunk(const void *const *inputs, void *const *outputs, int64_t begin, int64_t end,
                   const exec_context &ctx) const {
        with_scratch(ctx, [&](unsigned char *scratch) { run(inputs, outputs, begin, end, scratch); });
    }

    // Panels: for each index of the outer dims and each block of panel_cols_
    // columns of the inner dim, every row of the second-inner dim.
    // Strips instead: for each index of the outer dims, each strip of
    // tile_rows_ rows (run_strips).
    void execute_panels(const void *const *inputs, void *output, const exec_context &ctx) const {
        const size_t rank = shape_.size();
        const int64_t rows = shape_[rank - 2], cols = shape_[rank - 1];
        const int64_t units =
            total_ / (rows * cols) * (strips_ ? ceil_div(rows, tile_rows_) : ceil_div(cols, panel_cols_));
        const int chunks = static_cast<int>(std::min<int64_t>(facts_.chunks, units));
        parallel_chunks(chunks, [&](int c) {
            const int64_t begin = units * c / chunks, end = units * (c + 1) / chunks;
            with_scratch(ctx, [&](unsigned char *scratch) {
                if (strips_)
                    run_strips(inputs, output, begin, end, scratch);
                else
                    run_panels(inputs, output, begin, end, scratch);
            });
        });
    }

    void run_panels(const void *const *inputs, void *output, int64_t begin, int64_t end, unsigned char *scratch) const {
        const size_t rank = shape_.size(), n_ops = operands_.size();
        const int64_t rows = shape_[rank - 2], cols = shape_[rank - 1];
        const int64_t col_blocks = ceil_div(cols, panel_cols_);
        const int64_t tile_rows = tile_rows_;
        small_buffer<const unsigned char *, 8> ptr(n_ops), base(n_ops), next_base(n_ops);
        small_buffer<int64_t, 8> row_stride(n_ops), off(n_ops + 1); // off: row 0 of the panel, then the output
        small_buffer<const void *, 16> view(n_ops + nodes_.size() + 1);
        small_buffer<int64_t, 16> stride(n_ops + nodes_.size() + 1);
        // A transposed output: tiles fill in turn (two slots).
        tile_writer written = out_writer(stream_);
        int filling = 0;
        // Element offset of row 0 of unit u's panel in operand k (n_ops: the output).
        auto unit_offset = [&](int64_t u, size_t k) {
            const dims &st = k < n_ops ? operands_[k].strides : out_strides_;
            int64_t at = u % col_blocks * panel_cols_ * st[rank - 1], rest = u / col_blocks;
            for (size_t d = rank - 2; d-- > 0;) at += rest % shape_[d] * st[d], rest /= shape_[d];
            return at;
        };
        auto operand_at = [&](size_t k, int64_t at) {
            return static_cast<const unsigned char *>(inputs[operands_[k].port]) + at * operands_[k].elem_size;
        };
        for (int64_t u = begin; u < end; ++u) {
            const int64_t first_col = u % col_blocks * panel_cols_, len = std::min(panel_cols_, cols - first_col);
            for (size_t k = 0; k <= n_ops; ++k) {
                off[k] = unit_offset(u, k);
                if (k < n_ops) base[k] = operand_at(k, off[k]);
            }
            // Prefetches running past this panel's last rows take the next
            // panel's first ones (none after the last unit).
            for (size_t k = 0; k < n_ops; ++k)
                next_base[k] = u + 1 < end ? operand_at(k, unit_offset(u + 1, k)) : nullptr;
            for (int64_t r0 = 0; r0 < rows; r0 += tile_rows) {
                const int64_t tile = std::min(tile_rows, rows - r0);
                // Each transposed operand: `tile` rows by len columns into its
                // tile, one contiguous run of its memory per column.
                for (size_t k = 0; k < n_ops; ++k) {
                    const operand_plan &o = operands_[k];
                    if (!o.transposed) continue;
                    const int64_t es = static_cast<int64_t>(o.elem_size), s = o.strides[rank - 1];
                    unsigned char *packed = scratch + packed_slot_, *tile_data = scratch + o.tile_slot;
                    const int64_t packed_pitch = tile + 64 / es; // a cache line of slack per column
                    // Gathers read the operand in place, unless they would read past
                    // its end (those of narrow elements read 4 bytes): then the
                    // columns are copied first, with slack.
                    const bool direct =
                        o.transpose && (es >= 4 || (off[k] + r0 + tile - 1 + (len - 1) * s) * es + 4 <= o.extent * es);
                    for (int64_t j = 0; j < len && !direct; ++j) {
                        const unsigned char *column = base[k] + (r0 + j * s) * es;
                        if (o.transpose)
                            copy_run(packed + j * packed_pitch * es, column, tile * es);
                        else
                            copy_elements(tile_data + j * es, o.tile_pitch, column, 1, tile, o.elem_size);
                    }
                    if (direct)
                        o.transpose(base[k] + r0 * es, s, tile_data, o.tile_pitch, tile, len, false);
                    else if (o.transpose)
                        o.transpose(packed, packed_pitch, tile_data, o.tile_pitch, tile, len, false);
                }
                // The next tile: its rows and where row 0 of it is, in this panel or the next.
                const bool last = r0 + tile >= rows;
                const int64_t next_tile = last ? std::min(tile_rows, rows) : std::min(tile_rows, rows - r0 - tile);
                for (int64_t r = r0; r < r0 + tile; ++r) {
                    for (size_t k = 0; k < n_ops; ++k) {
                        const operand_plan &o = operands_[k];
                        if (o.transposed) {
                            ptr[k] = scratch + o.tile_slot + (r - r0) * o.tile_pitch * o.elem_size, row_stride[k] = 1;
                            // The next tile's part of each column comes while this
                            // tile is used, a few columns per row: all at once,
                            // they would fill every line-fill buffer and stall.
                            const int64_t es = static_cast<int64_t>(o.elem_size), s = o.strides[rank - 1];
                            const unsigned char *next = last ? next_base[k] : base[k] + (r0 + tile) * es;
                            for (int64_t j = (r - r0) * len / tile; next && j < (r - r0 + 1) * len / tile; ++j)
                                for (int64_t b = 0; b < next_tile * es; b += 64) hwy::Prefetch(next + j * s * es + b);
                            continue;
                        }
                        const int64_t es = static_cast<int64_t>(o.elem_size);
                        ptr[k] = base[k] + r * o.strides[rank - 2] * es;
                        row_stride[k] = o.strides[rank - 1];
                        // Each row of a panel is a short run of its own: the
                        // hardware prefetchers do not follow it in time.
                        const unsigned char *ahead =
                            r + kRowsAhead < rows ? ptr[k] + kRowsAhead * o.strides[rank - 2] * es
                            : next_base[k]        ? next_base[k] + (r + kRowsAhead - rows) * o.strides[rank - 2] * es
                                                  : nullptr;
                        if (row_stride[k] == 1 && ahead)
                            for (int64_t b = 0; b < len * es; b += 64) hwy::Prefetch(ahead + b);
                    }
                    auto *out = out_transposed_
                                    ? scratch + out_tile_slot_[filling] + (r - r0) * out_tile_pitch_ * out_size_
                                    : static_cast<unsigned char *>(output) +
                                          (off[n_ops] + r * out_strides_[rank - 2]) * out_size_;
                    eval_block(scratch, ptr.data(), row_stride.data(), view.data(), stride.data(), 0, out,
                               out_transposed_ ? 1 : out_strides_[rank - 1], len, stream_ && !out_transposed_);
                    written.after_row(r - r0, tile);
                }
                if (out_transposed_) {
                    written.next(scratch + out_tile_slot_[filling],
                                 static_cast<unsigned char *>(output) + (off[n_ops] + r0) * out_size_, len, tile);
                    filling ^= 1;
                }
            }
        }
        written.finish();
        if (stream_) hwy::FlushStream();
    }

    tile_writer out_writer(bool stream) const {
        const size_t rank = shape_.size();
        return {out_transpose_, out_tile_pitch_, out_strides_[rank - 1], static_cast<int64_t>(out_size_), stream};
    }

    // Strips: the output is transposed. Each unit is tile_rows_ rows of
    // one index of the outer dims, walked along its rows a block of
    // panel_cols_ columns at a time: every input row is one long stream, and
    // each block of the output goes out through a tile, a cache line per column.
    // The loops in registers take the unit whole: strip_add_, and strip_in_
    // (an output along its rows, one or both inputs transposed).
    void run_strips(const void *const *inputs, void *output, int64_t begin, int64_t end, unsigned char *scratch) const {
        const size_t rank = shape_.size(), n_ops = operands_.size();
        const int64_t rows = shape_[rank - 2], cols = shape_[rank - 1];
        const int64_t row_tiles = ceil_div(rows, tile_rows_), es_out = static_cast<int64_t>(out_size_);
        const int64_t ds = out_strides_[rank - 1];
        small_buffer<const unsigned char *, 8> ptr(n_ops), base(n_ops);
        small_buffer<int64_t, 8> row_stride(n_ops);
        small_buffer<const void *, 16> view(n_ops + nodes_.size() + 1);
        small_buffer<int64_t, 16> stride(n_ops + nodes_.size() + 1);
        tile_writer written = out_writer(strip_stream_);
        int filling = 0;
        for (int64_t u = begin; u < end; ++u) {
            const int64_t r0 = u % row_tiles * tile_rows_, tile = std::min(tile_rows_, rows - r0);
            int64_t out_off = r0 * out_strides_[rank - 2];
            for (size_t k = 0; k <= n_ops; ++k) {
                const dims &st = k < n_ops ? operands_[k].strides : out_strides_;
                int64_t off = 0, rest = u / row_tiles;
                for (size_t d = rank - 2; d-- > 0;) off += rest % shape_[d] * st[d], rest /= shape_[d];
                if (k < n_ops)
                    base[k] = static_cast<const unsigned char *>(inputs[operands_[k].port]) +
                              (off + r0 * st[rank - 2]) * static_cast<int64_t>(operands_[k].elem_size);
                else
                    out_off += off;
            }
            if (strip_in_) {
                const int x = nodes_[0].arg[strip_in_arg_], y = nodes_[0].arg[1 - strip_in_arg_];
                strip_in_(base[x], operands_[x].strides[rank - 1], base[y],
                          operands_[y].strides[strip_in_both_ ? rank - 1 : rank - 2],
                          static_cast<unsigned char *>(output) + out_off * es_out, out_strides_[rank - 2], tile, cols,
                          strip_stream_);
                continue;
            }
            if (strip_add_) {
                const int x = nodes_[0].arg[0], y = nodes_[0].arg[1];
                strip_add_(base[x], operands_[x].strides[rank - 2], base[y], operands_[y].strides[rank - 2],
                           static_cast<unsigned char *>(output) + out_off * es_out, ds, tile, cols, strip_stream_);
                continue;
            }
            for (int64_t c0 = 0; c0 < cols; c0 += panel_cols_) {
                const int64_t len = std::min(panel_cols_, cols - c0);
                unsigned char *out_tile = scratch + out_tile_slot_[filling];
                for (int64_t r = 0; r < tile; ++r) {
                    for (size_t k = 0; k < n_ops; ++k) {
                        const operand_plan &o = operands_[k];
                        const int64_t es = static_cast<int64_t>(o.elem_size), s = o.strides[rank - 1];
                        ptr[k] = base[k] + (r * o.strides[rank - 2] + c0 * s) * es, row_stride[k] = s;
                        if (s == 1)
                            for (int64_t b = kStripAhead; b < std::min(len * es + kStripAhead, (cols - c0) * es);
                                 b += 64)
                                hwy::Prefetch(ptr[k] + b);
                    }
                    for (int64_t j = 0; j < len; j += block_)
                        eval_block(scratch, ptr.data(), row_stride.data(), view.data(), stride.data(), j,
                                   out_tile + (r * out_tile_pitch_ + j) * es_out, 1, std::min(block_, len - j), false);
                    written.after_row(r, tile);
                }
                written.next(out_tile, static_cast<unsigned char *>(output) + (out_off + c0 * ds) * es_out, len, tile);
                filling ^= 1;
            }
        }
        written.finish();
        if (stream_) hwy::FlushStream();
    }

    void run(const void *const *inputs, void *const *outputs, int64_t begin, int64_t end,
             unsigned char *scratch) const {
        const size_t rank = shape_.size(), n_ops = operands_.size(), inner = rank - 1, n_out = 1 + sides_.size();
        void *output = outputs[0];
        // Operands, then the output, then the side outputs.
        auto strides = [&](size_t k) -> const dims & {
            return k < n_ops ? operands_[k].strides : k == n_ops ? out_strides_ : sides_[k - n_ops - 1].strides;
        };
        small_buffer<int64_t, 8> idx(rank);
        for (size_t d = rank, rest = begin; d-- > 0;) idx[d] = rest % shape_[d], rest /= shape_[d];
        // Offsets (elements) of the current row's first element, per operand
        // and then the output, kept up to date as the row index advances.
        small_buffer<int64_t, 16> row_off(n_ops + n_out);
        for (size_t k = 0; k < n_ops + n_out; ++k) {
            row_off[k] = 0;
            for (size_t d = 0; d < inner; ++d) row_off[k] += idx[d] * strides(k)[d];
        }
        small_buffer<const unsigned char *, 8> ptr(n_ops);
        small_buffer<unsigned char *, 4> side_out(sides_.size());
        small_buffer<const void *, 16> view(n_ops + nodes_.size() + 1);
        small_buffer<int64_t, 16> stride(n_ops + nodes_.size() + 1);
        // Moves to the row `count` rows on along dim inner - 1, carrying into the outer dims.
        auto next_rows = [&](int64_t count) {
            idx[inner] = 0;
            for (size_t d = inner; d-- > 0; count = 1) {
                idx[d] += count;
                for (size_t k = 0; k < n_ops + n_out; ++k) row_off[k] += count * strides(k)[d];
                if (idx[d] < shape_[d]) break;
                for (size_t k = 0; k < n_ops + n_out; ++k) row_off[k] -= strides(k)[d] * shape_[d];
                idx[d] = 0;
            }
        };
        for (int64_t pos = begin; pos < end;) {
            const int64_t first = idx[inner], row = std::min(shape_[inner] - first, end - pos);
            // Short whole rows of a one-op partition: many rows in one call.
            const int64_t whole_rows = (rows_path_ || linear_rows_) && first == 0 && inner > 0
                                           ? std::min(shape_[inner - 1] - idx[inner - 1], (end - pos) / shape_[inner])
                                           : 0;
            if (whole_rows > 1 && linear_rows_) {
                const void *in[kMaxLinearOperands] = {};
                int64_t in_stride[kMaxLinearOperands] = {}, in_row_stride[kMaxLinearOperands] = {};
                for (size_t k = 0; k < n_ops; ++k) {
                    in[k] = static_cast<const unsigned char *>(inputs[operands_[k].port]) +
                            row_off[k] * operands_[k].elem_size;
                    in_stride[k] = inner_strides_[k], in_row_stride[k] = operands_[k].strides[inner - 1];
                }
                linear_(in, in_stride, linear_first_, linear_steps_.data(), static_cast<int64_t>(linear_steps_.size()),
                        static_cast<unsigned char *>(output) + row_off[n_ops] * out_size_, shape_[inner], stream_,
                        whole_rows, in_row_stride, out_strides_[inner - 1]);
                pos += whole_rows * shape_[inner];
                if (pos < end) next_rows(whole_rows);
                continue;
            }
            if (whole_rows > 1) {
                const node_plan &p = nodes_[0];
                const operand_plan &a = operands_[p.arg[0]], &b = operands_[p.arg[1]];
                p.rows(static_cast<const unsigned char *>(inputs[a.port]) + row_off[p.arg[0]] * a.elem_size,
                       inner_strides_[p.arg[0]], a.strides[inner - 1],
                       static_cast<const unsigned char *>(inputs[b.port]) + row_off[p.arg[1]] * b.elem_size,
                       inner_strides_[p.arg[1]], b.strides[inner - 1],
                       static_cast<unsigned char *>(output) + row_off[n_ops] * out_size_, out_strides_[inner - 1],
                       shape_[inner], whole_rows, stream_);
                pos += whole_rows * shape_[inner];
                if (pos < end) next_rows(whole_rows);
                continue;
            }
            for (size_t k = 0; k < n_ops; ++k)
                ptr[k] = static_cast<const unsigned char *>(inputs[operands_[k].port]) +
                         (row_off[k] + first * inner_strides_[k]) * operands_[k].elem_size;
            auto *out =
                static_cast<unsigned char *>(output) + (row_off[n_ops] + first * out_strides_[inner]) * out_size_;
            for (size_t k = 0; k < sides_.size(); ++k) {
                const side_plan &side = sides_[k];
                side_out[k] = static_cast<unsigned char *>(outputs[1 + k]) +
                              (row_off[n_ops + 1 + k] + first * side.strides[inner]) * side.elem_size;
            }
            for (int64_t b = 0; b < row; b += row_block_)
                eval_block(scratch, ptr.data(), inner_strides_.data(), view.data(), stride.data(), b,
                           out + b * out_strides_[inner] * out_size_, out_strides_[inner],
                           std::min(row_block_, row - b), stream_, side_out.data());
            pos += row;
            idx[inner] += row;
            if (idx[inner] == shape_[inner] && pos < end) next_rows(1);
        }
        if (stream_) hwy::FlushStream(); // make the streamed output visible to the threads that read it next
    }

    // view/stride: operands at index k, node results at index operands + n
    // (a chain: its operands in order from there).
    // row_ptr/row_stride: each operand's elements along the block's row.
    // out/out_stride: where the block's results go; stream: non-temporal
    // stores where they are written directly. side_out: each side output's
    // row (run only), the block `first` elements on.
    void eval_block(unsigned char *scratch, const unsigned char *const *row_ptr, const int64_t *row_stride,
                    const void **view, int64_t *stride, int64_t first, unsigned char *out, int64_t out_stride,
                    int64_t len, bool stream, unsigned char *const *side_out = nullptr) const {
        const size_t n_ops = operands_.size();
        for (size_t k = 0; k < n_ops; ++k) {
            const auto &o = operands_[k];
            const int64_t s = row_stride[k];
            const unsigned char *p = row_ptr[k] + first * s * o.elem_size;
            if (s == 0 || s == 1) {
                view[k] = p, stride[k] = s;
            } else {
                copy_elements(scratch + o.gather_slot, 1, p, s, len, o.elem_size);
                view[k] = scratch + o.gather_slot, stride[k] = 1;
            }
        }
        if (chain_) return eval_chain(scratch, view, stride, out, out_stride, len, stream);
        if (linear_) return eval_linear(scratch, view, stride, out, out_stride, len, stream);
        for (size_t n = 0; n < nodes_.size(); ++n) {
            const node_plan &p = nodes_[n];
            const void *a[kMaxArgs] = {};
            int64_t sa[kMaxArgs] = {};
            bool scalar = true; // one value for the whole block
            for (int k = 0; k < p.n_args; ++k) {
                const size_t v = p.arg[k] >= 0 ? static_cast<size_t>(p.arg[k]) : n_ops + ~p.arg[k];
                a[k] = view[v], sa[k] = stride[v];
                scalar = scalar && sa[k] == 0;
            }
            const bool direct = n + 1 == nodes_.size() && out_stride == 1 && !scalar;
            // A streaming chain: the operands an op reads from memory are
            // fetched ahead just before it runs, a few lines at a time, not
            // all at the block's start (the last op's loop fetches its own).
            if (stream && nodes_.size() > 1 && !direct)
                for (int k = 0; k < p.n_args; ++k)
                    if (p.arg[k] >= 0 && row_stride[p.arg[k]] == 1) {
                        const auto *at = static_cast<const unsigned char *>(a[k]) + kPrefetchAhead;
                        for (int64_t b = 0; b < len * static_cast<int64_t>(operands_[p.arg[k]].elem_size); b += 64)
                            __builtin_prefetch(at + b, 0, 3);
                    }
            unsigned char *dest = direct ? out : scratch + p.res_slot;
            if (p.fn)
                p.fn(a[0], sa[0], a[1], sa[1], dest, scalar ? 1 : len, direct && stream);
            else
                p.nary(a, sa, dest, scalar ? 1 : len, direct && stream);
            view[n_ops + n] = dest, stride[n_ops + n] = scalar ? 0 : 1;
            for (size_t k = 0; k < sides_.size(); ++k) {
                const side_plan &side = sides_[k];
                if (side.node != static_cast<int>(n)) continue;
                const int64_t ds = side.strides[shape_.size() - 1];
                unsigned char *to = side_out[k] + first * ds * static_cast<int64_t>(side.elem_size);
                if (ds == 1 && !scalar)
                    copy_(dest, to, len * static_cast<int64_t>(side.elem_size), stream);
                else
                    copy_elements(to, ds, dest, scalar ? 0 : 1, len, side.elem_size);
            }
        }
        const size_t last = n_ops + nodes_.size() - 1;
        if (view[last] != out) copy_elements(out, out_stride, view[last], stride[last], len, out_size_);
    }

    // The chain's operands (view/stride of n_ops entries) in order, gathered
    // in place of the node results at view + n_ops; the sum goes straight
    // to the output where it is contiguous.
    void eval_chain(unsigned char *scratch, const void **view, int64_t *stride, unsigned char *out, int64_t out_stride,
                    int64_t len, bool stream) const {
        const size_t n_ops = operands_.size(), count = chain_args_.size();
        const void **in = view + n_ops;
        int64_t *in_stride = stride + n_ops, scalar = 1;
        for (size_t j = 0; j < count; ++j) {
            in[j] = view[chain_args_[j]], in_stride[j] = stride[chain_args_[j]];
            scalar &= in_stride[j] == 0;
        }
        write_out(scratch, out, out_stride, len, stream, scalar,
                  [&](void *to, int64_t n, bool nt) { chain_(in, in_stride, static_cast<int64_t>(count), to, n, nt); });
    }

    // A loop in registers writing the block's results: run(to, n, stream)
    // straight into the output when it is contiguous, else (or for one value,
    // every operand broadcast) into the last node's scratch row, then copied.
    template <class Run>
    void write_out(unsigned char *scratch, unsigned char *out, int64_t out_stride, int64_t len, bool stream,
                   bool scalar, Run &&run) const {
        if (out_stride == 1 && !scalar) return run(out, len, stream);
        unsigned char *result = scratch + nodes_.back().res_slot;
        run(result, scalar ? 1 : len, false);
        copy_elements(out, out_stride, result, scalar ? 0 : 1, len, out_size_);
    }

    void eval_linear(unsigned char *scratch, const void **view, const int64_t *stride, unsigned char *out,
                     int64_t out_stride, int64_t len, bool stream) const {
        const void *in[kMaxLinearOperands] = {};
        int64_t in_stride[kMaxLinearOperands] = {};
        const int64_t no_rows[kMaxLinearOperands] = {};
        bool scalar = true;
        for (size_t k = 0; k < operands_.size(); ++k)
            in[k] = view[k], in_stride[k] = stride[k], scalar &= stride[k] == 0;
        write_out(scratch, out, out_stride, len, stream, scalar, [&](void *to, int64_t n, bool nt) {
            linear_(in, in_stride, linear_first_, linear_steps_.data(), static_cast<int64_t>(linear_steps_.size()), to,
                    n, nt, 1, no_rows, 0);
        });
    }

    std::vector<int64_t> shape_, out_strides_;
    std::vector<operand_plan> operands_;
    std::vector<uint64_t> constants_;    // each constant's element in its low bytes (operand ports from n_inputs_)
    std::vector<int64_t> inner_strides_; // each operand's stride along the inner dim
    std::vector<node_plan> nodes_;
    std::vector<side_plan> sides_; // outputs besides the last node's (fused_expr::sides)
    copy_fn copy_ = element_ops_for_cpu().copy;
    chain_fn chain_ = nullptr;              // the nodes are a chain of one function over one type (plan_chain)
    add_transposed_fn strip_add_ = nullptr; // strips of one op in registers (plan_strip_add)
    add_transposed_fn strip_in_ = nullptr;  // strips of one op and a transposed input in registers (plan_strip_in)
    int strip_in_arg_ = 0;                  // its transposed argument
    bool strip_in_both_ = false;            // both arguments transposed
    std::vector<int> chain_args_;           // its operands, in the order they are added
    linear_fn linear_ = nullptr;            // the nodes are a linear chain of f32 nodes (plan_linear)
    std::vector<linear_step> linear_steps_;
    int linear_first_ = 0; // the operand the linear chain starts from
    size_t out_size_ = 0, scratch_bytes_ = 0;
    int64_t block_ = kMaxBlock;     // elements per block
    int64_t row_block_ = kMaxBlock; // elements per call along a row: block_, or all of it
    bool stream_ = false;           // non-temporal stores for the output
    bool panels_ = false;           // a transposing operand: walk panels (execute_panels)
    bool strips_ = false;           // panels as strips of rows (run_strips): the output transposed, or strip_in_
    bool strip_stream_ = false;     // strips write whole output lines: streaming stores
    bool rows_path_ = false;        // whole short rows in one call (run)
    bool linear_rows_ = false;      // whole rows of the linear chain in one call (run)
    int64_t panel_cols_ = 128;      // columns per panel (at most block_) or per block of a strip
    int64_t tile_rows_ = 0;         // rows of a panel's tiles
    bool out_transposed_ = false;   // panels write the output through a tile, a column at a time
    size_t out_tile_slot_[2] = {};  // the tile being filled and the one being written out
    int64_t out_tile_pitch_ = 0;
    transpose_fn out_transpose_ = nullptr;
    size_t packed_slot_ = 0; // columns of a tile before its transpose
    int64_t total_;          // elements of the output
    size_t n_inputs_;        // partition inputs; constants follow them
};

} // namespace

// Such outputs would not stay in cache anyway, and skipping the
// read-for-ownership saves a quarter of an Add's memory traffic. Half the
// last-level cache, between 8 and 32 MiB: virtual machines and chiplet CPUs
// report a last-level cache far larger than one partition can keep its output
// in (480 MiB on the machine of doc/PERFORMANCE.md, where streaming already
// wins at 100 MiB).
int64_t stream_threshold_bytes() {
    static const int64_t bytes = [] {
        return std::clamp<int64_t>(caches().llc / 2, int64_t{8} << 20, int64_t{32} << 20);
    }();
    return bytes;
}

namespace {

// A partition with sub-expressions over a smaller broadcast shape
// (ir/hoist.hpp): each stage writes its buffer (one allocation from the
// engine for all of them), then the main pass reads them as inputs.
class staged_kernel final : public kernel {
public:
    explicit staged_kernel(const staged_expr &s)
        : kernel({}), main_(s.main), n_inputs_(s.main.inputs.size() - s.stages.size()) {
        facts_ = main_.facts();
        for (const fused_expr &stage : s.stages) {
            stages_.emplace_back(stage);
            offsets_.push_back(bytes_);
            const size_t es = data_type_size(stage.output.get_data_type());
            bytes_ += (static_cast<size_t>(stage.numel()) * es + 63) / 64 * 64;
        }
    }

    void execute(const void *const *inputs, void *const *outputs, const exec_context &ctx) const override {
        scratch_buffer buffers(ctx.alloc, bytes_, "the buffers of a partition's broadcast sub-expressions");
        small_buffer<const void *, 16> all(n_inputs_ + stages_.size());
        std::copy(inputs, inputs + n_inputs_, all.data());
        for (size_t k = 0; k < stages_.size(); ++k) all[n_inputs_ + k] = buffers.data() + offsets_[k];
        for (size_t k = 0; k < stages_.size(); ++k) {
            void *buffer = buffers.data() + offsets_[k];
            stages_[k].execute(all.data(), &buffer, ctx);
        }
        main_.execute(all.data(), outputs, ctx);
    }

private:
    std::vector<native_expr_kernel> stages_;
    std::vector<size_t> offsets_;
    native_expr_kernel main_;
    size_t n_inputs_, bytes_ = 0;
};

} // namespace

// Sub-expressions whose buffer stays in half the L2 are always worth
// hoisting (ir/hoist.hpp); larger ones when they read back no wider.
std::unique_ptr<kernel> make_native_kernel(const fused_expr &e) {
    staged_expr s = hoist_invariants(e, caches().l2 / 2);
    if (s.stages.empty()) return std::make_unique<native_expr_kernel>(e);
    return std::make_unique<staged_kernel>(s);
}

} // namespace fusebox::detail
