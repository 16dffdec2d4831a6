// Element loops the native expression kernel is built from, compiled with
// Highway for each x86 target and picked for the running CPU. A stride of 0
// repeats one element (a broadcast operand); 1 walks contiguous memory.
// `stream` asks for non-temporal stores (outputs far larger than the cache).
#pragma once

#include <cstdint>
#include <vector>

#include "interface/dtype.hpp"
#include "ops/elementwise.hpp"

namespace fusebox::detail {

using binary_fn = void (*)(const void *a, int64_t sa, const void *b, int64_t sb, void *out, int64_t n, bool stream);
/// The same over `rows` rows: row r of a, b and out starts r * pa, r * pb and
/// r * po elements after the first (pitches in elements).
using rows_fn = void (*)(const void *a, int64_t sa, int64_t pa, const void *b, int64_t sb, int64_t pb, void *out,
                         int64_t po, int64_t n, int64_t rows, bool stream);
/// out = f(in[0][i * strides[0]], ...) over one or three inputs (strides 0 or 1).
using nary_fn = void (*)(const void *const *in, const int64_t *strides, void *out, int64_t n, bool stream);
/// A chain evaluated in registers: out = f(f(f(in[0], in[1]), in[2]), ...)
/// over `count` >= 2 operands of one type, each partial result rounded to
/// that type exactly as the unfused ops would store it. Strides 0 or 1.
using chain_fn = void (*)(const void *const *in, const int64_t *strides, int64_t count, void *out, int64_t n,
                          bool stream);
/// One step of a linear chain: v = fn(v, x), fn(x, v) or fn(v), x the
/// operand in[arg].
struct linear_step {
    enum form_t : uint8_t { left, right, unary };
    ew_fn fn;
    form_t form;
    uint16_t arg;
};
/// Operands a linear chain reads at most (in[] holds this many; unused ones
/// null), and its steps at most.
constexpr int kMaxLinearOperands = 6, kMaxLinearSteps = 16;
/// A chain of f32 nodes in registers: v = in[first], then each of `count`
/// steps, out = v; each step's result the bits of its node's own loop.
/// Strides 0 or 1. Its steps: Add, Subtract, Multiply, Divide, Maximum,
/// Minimum (two operands), ReLU, and the one function of the loop's own
/// (its `linear` entry's: a transcendental function without constants).
/// `rows` rows of n elements, row r's operands row_strides[k] r elements and
/// its output out_row_stride r elements on (the steps read once for all).
using linear_fn = void (*)(const void *const *in, const int64_t *strides, int first, const linear_step *steps,
                           int64_t count, void *out, int64_t n, bool stream, int64_t rows, const int64_t *row_strides,
                           int64_t out_row_stride);
/// dst[r * dst_pitch + j] = src[j * src_pitch + r] for r < rows, j < cols
/// (pitches in elements). For elements of 1 or 2 bytes it reads up to 3 bytes
/// past an element: the caller leaves that slack.
/// `stream` asks for non-temporal stores where a vector of dst is aligned.
using transpose_fn = void (*)(const void *src, int64_t src_pitch, void *dst, int64_t dst_pitch, int64_t rows,
                              int64_t cols, bool stream);

/// n bytes from src to dst; `stream` asks for non-temporal stores.
using copy_fn = void (*)(const void *src, void *dst, int64_t n, bool stream);

/// out[j * po + r] = f(a[r * pa + j], b[r * pb + j]) for r < rows, j < cols
/// (pitches in elements): an op of two operands read along their rows whose
/// output is transposed, lanes-by-lanes blocks added and transposed in
/// registers, each input row prefetched a few lines ahead. `stream` allows
/// non-temporal stores where a vector of out is aligned (the loops that
/// store lines far apart one at a time do not use them). The same signature
/// serves element_ops::in_transposed and both_transposed, whose output runs
/// along its rows and whose transposed operands are read across them.
using add_transposed_fn = void (*)(const void *a, int64_t pa, const void *b, int64_t pb, void *out, int64_t po,
                                   int64_t rows, int64_t cols, bool stream);

/// A function of two operands: its loop and the same over rows (one call for
/// many short rows; null where there is none).
struct binary_loops {
    binary_fn fn = nullptr;
    rows_fn rows = nullptr;
};
/// A function of operands of two different types.
struct mixed_binary {
    uint8_t f, a, b; // ew_fn, dtype_index() of each operand
    binary_loops loops;
};
/// The loops of one instruction set, indexed by catalogue function (ew_fn)
/// and dtype_index(). Null where a function has no loop for the types.
/// Kept small (about 40 KiB: a first compile pays a page fault per 4 KiB
/// written, 15 us each on the VMs measured), so pairs of two types are a
/// list, not a square.
struct element_ops {
    const char *isa; // e.g. "AVX3", "AVX2"
    // [fn][t]: out = fn(a, b), a and b of type t; integers wrap, f16/bf16
    // computed in f32 and rounded once
    binary_loops binary[kNumEwFns][kNumDataTypes];
    // Operands of two types: oneDNN Graph's f32 with bf16/f16 (-> f32), Pow's
    // exponent of another type.
    static constexpr int kMaxMixed = 96;
    mixed_binary mixed[kMaxMixed];
    int n_mixed;
    // [fn][t]: unary functions by their input's type (their op's constants,
    // if any, after the input), Where and Select (a boolean condition
    // first) by their values' type
    nary_fn nary[kNumEwFns][kNumDataTypes];
    // [from][to]: Cast
    nary_fn cast[kNumDataTypes][kNumDataTypes];
    transpose_fn transpose[4]; // for elements of 1, 2, 4 and 8 bytes
    copy_fn copy;
    // [fn][t]: a left-to-right chain of fn over one type in registers (Add: f32, bf16, f16)
    chain_fn chain[kNumEwFns][kNumDataTypes];
    // [fn]: linear chains of f32 nodes whose one function of their own is fn
    // (identity: none, only the cheap steps)
    linear_fn linear[kNumEwFns];
    // [fn][t]: fn of two operands of type t along their rows into a
    // transposed output (Add: f32, bf16, f16; the comparisons: f32 into booleans)
    add_transposed_fn out_transposed[kNumEwFns][kNumDataTypes];
    // [fn][t]: a commutative fn of a transposed operand (passed first, its
    // columns contiguous) and one along its rows, into an output along its
    // rows (Add: f32; bf16 on AVX2 and AVX-512)
    add_transposed_fn in_transposed[kNumEwFns][kNumDataTypes];
    // [fn][t]: the same of two transposed operands (b's columns contiguous
    // too) into an output along its rows (Add: f32)
    add_transposed_fn both_transposed[kNumEwFns][kNumDataTypes];

    /// The loops of f for operands of types a and b (dtype_index()).
    binary_loops binary_at(int f, int a, int b) const {
        if (a == b) return binary[f][a];
        for (int i = 0; i < n_mixed; ++i)
            if (mixed[i].f == f && mixed[i].a == a && mixed[i].b == b) return mixed[i].loops;
        return {};
    }
};

/// The best loops for this CPU at or below FUSEBOX_MAX_ISA (chosen once).
const element_ops &element_ops_for_cpu();

/// The loops of every instruction set compiled in, supported by this CPU and
/// at or below FUSEBOX_MAX_ISA, best first, always ending with the scalar
/// target: for tests.
std::vector<const element_ops *> element_ops_for_every_target();

} // namespace fusebox::detail
