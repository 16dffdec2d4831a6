// Every element loop of every instruction set compiled in (and supported by
// this CPU), against the scalar reference: all strides (0/1), lengths with
// tails, misaligned outputs, streaming stores on and off, and guard bytes
// that must stay untouched after the last element.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "kernels/native/binary_ops.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
using fusebox::detail::binary_fn;
using fusebox::detail::element_ops;

constexpr uint8_t kGuard = 0xA5;

void check_loop(binary_fn fn, op::kind kind, dt ta, dt tb, dt to, const char *isa) {
    std::mt19937_64 rng(99);
    for (int64_t n : {1, 7, 16, 33, 64, 100, 515}) {
        buffer a(logical_tensor(0, ta, dims{n})), b(logical_tensor(1, tb, dims{n}));
        fill(a, rng);
        fill(b, rng);
        for (int64_t sa : {0, 1})
            for (int64_t sb : {0, 1})
                for (bool stream : {false, true})
                    for (size_t misalign : {size_t{0}, data_type_size(to)}) {
                        const size_t es = data_type_size(to), bytes = static_cast<size_t>(n) * es;
                        std::vector<unsigned char, aligned_allocator<unsigned char>> out(bytes + misalign + 64, kGuard);
                        fn(a.data(), sa, b.data(), sb, out.data() + misalign, n, stream);
                        std::vector<unsigned char> want(bytes);
                        for (int64_t i = 0; i < n; ++i)
                            ref_element(kind, ta, a.data(), sa * i, tb, b.data(), sb * i, to, want.data(), i);
                        buffer w(logical_tensor(2, to, dims{n})), g(logical_tensor(2, to, dims{n}));
                        std::memcpy(w.data(), want.data(), bytes);
                        std::memcpy(g.data(), out.data() + misalign, bytes);
                        ASSERT_TRUE(same_elements(w, g, ref_max_ulp(kind, to)))
                            << isa << " " << op_kind_name(kind) << " " << data_type_name(ta) << ","
                            << data_type_name(tb) << " n=" << n << " sa=" << sa << " sb=" << sb << " stream=" << stream
                            << " misalign=" << misalign;
                        for (size_t k = 0; k < misalign; ++k)
                            ASSERT_EQ(out[k], kGuard) << isa << " wrote before the output";
                        for (size_t k = misalign + bytes; k < out.size(); ++k)
                            ASSERT_EQ(out[k], kGuard) << isa << " " << op_kind_name(kind) << " " << data_type_name(ta)
                                                      << " wrote past the output, n=" << n << " stream=" << stream;
                    }
    }
}

// The rows of two-input functions whose function no earlier row has (Sum and
// BiasAdd run Add's loops): each loop is checked once, against the reference
// of the first row that runs it.
std::vector<const detail::elementwise_def *> binary_rows() {
    std::vector<const detail::elementwise_def *> rows;
    std::set<detail::ew_fn> seen;
    for (const auto &def : detail::elementwise_ops())
        if (def.inputs_max >= 2 && def.rule != detail::type_rule::select && def.lower == detail::lowering::one_node &&
            seen.insert(def.fn).second)
            rows.push_back(&def);
    for (const auto &def : detail::elementwise_ops()) // Maximum, Minimum: their folds
        if (def.lower == detail::lowering::fold && seen.insert(def.fn).second) rows.push_back(&def);
    return rows;
}

dt output_type(const detail::elementwise_def &def, dt x, dt y) {
    if (def.rule == detail::type_rule::same_to_bool) return dt::boolean;
    return x == y || def.rule == detail::type_rule::exponent || def.kind == op::kind::PReLU ? x : dt::f32;
}

TEST(element_ops, every_loop_of_every_instruction_set_matches_reference) {
    const auto targets = fusebox::detail::element_ops_for_every_target();
    ASSERT_FALSE(targets.empty());
    const std::vector<dt> all = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8,  dt::u8,      dt::s16,
                                 dt::u16, dt::s32,  dt::u32, dt::s64, dt::u64, dt::boolean, dt::string};
    size_t checked = 0, expected = 0;
    const auto is_float = [](dt t) { return t == dt::f16 || t == dt::bf16 || t == dt::f32 || t == dt::f64; };
    const auto is_numeric = [](dt t) { return t != dt::boolean && t != dt::string; };
    for (const auto *def : binary_rows())
        for (dt x : all)
            for (dt y : all) {
                // Mod's sign-of-the-divisor form is for integers (floats: fmod=1, checked below).
                const bool mod_float = def->kind == op::kind::Mod && is_float(x);
                const bool accepted = (def->types & detail::type_bit(x)) &&
                                      (def->rule == detail::type_rule::exponent ? is_numeric(y) : x == y);
                const bool mixed = def->mixed_f32 && ((x == dt::f32 && (y == dt::bf16 || y == dt::f16)) ||
                                                      (y == dt::f32 && (x == dt::bf16 || x == dt::f16)));
                // LeakyReLU: PReLU's loops for f16/bf16 with an f32 slope.
                const bool leaky = def->kind == op::kind::PReLU && y == dt::f32 && (x == dt::f16 || x == dt::bf16);
                expected += (accepted && !mod_float) || mixed || leaky;
            }
    for (const element_ops *ops : targets) {
        SCOPED_TRACE(ops->isa);
        for (const auto *def : binary_rows())
            for (dt x : all)
                for (dt y : all)
                    if (binary_fn fn =
                            ops->binary_at(static_cast<int>(def->fn), detail::dtype_index(x), detail::dtype_index(y))
                                .fn) {
                        check_loop(fn, def->kind, x, y, output_type(*def, x, y), ops->isa);
                        ++checked;
                    }
    }
    // Every type combination the catalogue accepts has a loop on every instruction set.
    EXPECT_EQ(checked, targets.size() * expected);
    // Add, Subtract, Multiply, Divide: 12 same-type and 4 mixed rows each;
    // Maximum, Minimum: 12; Equal: 14 (with boolean, string); 4 other
    // comparisons: 12; And, Or, Xor: boolean; 3 bitwise ops: 8 integer
    // types; BitShift: 4 unsigned ones; Mod (fmod=0): 8 integer types; Pow:
    // 6 base types by 12 exponent types; PReLU: 4 float and 4 integer types,
    // and f16/bf16 with an f32 slope (LeakyReLU); SquaredDifference: f32,
    // f16, bf16.
    EXPECT_EQ(expected, 4 * 16u + 2 * 12u + 14u + 4 * 12u + 3u + 3 * 8u + 4u + 8u + 6 * 12u + 8u + 2u + 3u);
    std::printf("checked %zu loops on %zu instruction sets:", checked, targets.size());
    for (const element_ops *ops : targets) std::printf(" %s", ops->isa);
    std::printf("\n");
}

// Inputs whose sums (or comparisons) hit every rounding case of a
// half-precision output, repeated across 256 elements so that each lands in
// every lane of the vector bodies (both halves of a two-vector narrowing).
void check_crafted(binary_fn fn, op::kind kind, dt t, const std::vector<std::pair<uint16_t, uint16_t>> &pairs,
                   const char *isa) {
    const int64_t n = 256;
    buffer a(logical_tensor(0, t, dims{n})), b(logical_tensor(1, t, dims{n}));
    auto *pa = static_cast<uint16_t *>(a.data()), *pb = static_cast<uint16_t *>(b.data());
    for (int64_t i = 0; i < n; ++i) {
        const auto &[x, y] = pairs[static_cast<size_t>(i + i / static_cast<int64_t>(pairs.size())) % pairs.size()];
        pa[i] = x, pb[i] = y;
    }
    const dt to = kind == op::kind::Equal ? dt::boolean : t;
    for (bool stream : {false, true}) {
        buffer got(logical_tensor(2, to, dims{n})), want(logical_tensor(2, to, dims{n}));
        fn(a.data(), 1, b.data(), 1, got.data(), n, stream);
        for (int64_t i = 0; i < n; ++i) ref_element(kind, t, a.data(), i, t, b.data(), i, to, want.data(), i);
        // Bit for bit, except that a NaN may carry any payload (IEEE 754 leaves
        // it open); it must still be a NaN, and a quiet one.
        EXPECT_TRUE(same_elements(want, got))
            << isa << " " << op_kind_name(kind) << " " << data_type_name(t) << " stream=" << stream;
        if (to != dt::boolean)
            for (int64_t i = 0; i < n; ++i) {
                const uint16_t bits = static_cast<const uint16_t *>(got.data())[i];
                const uint16_t exp = t == dt::bf16 ? 0x7F80 : 0x7C00, quiet = t == dt::bf16 ? 0x0040 : 0x0200;
                if ((bits & exp) == exp && (bits & (exp ^ 0x7FFF))) {
                    EXPECT_TRUE(bits & quiet) << isa << " " << data_type_name(t) << " signalling NaN out at " << i;
                }
            }
    }
}

TEST(element_ops, half_precision_rounding_cases_in_vector_bodies) {
    // bf16: ties to even (down and up), carry into the exponent, overflow to
    // inf, subnormal sums (and one reaching the smallest normal), signalling
    // NaNs quieted with their payload, signed zeros, inf - inf.
    const std::vector<std::pair<uint16_t, uint16_t>> bf16_add = {
        {0x3F80, 0x3B80}, {0x3F81, 0x3B80}, {0x3FFF, 0x3B80}, {0x7F7F, 0x7F7F}, {0xFF7F, 0xFF7F}, {0x0001, 0x0001},
        {0x007F, 0x0001}, {0x8001, 0x0003}, {0x7F81, 0x3F80}, {0xFF81, 0x3F80}, {0x3F80, 0x7FA0}, {0x8000, 0x8000},
        {0x0000, 0x8000}, {0x7F80, 0xFF80}, {0x4049, 0xC049}, {0x3F80, 0x3F80}};
    // f16: the same cases in f16's encoding.
    const std::vector<std::pair<uint16_t, uint16_t>> f16_add = {
        {0x3C00, 0x1000}, {0x3C01, 0x1000}, {0x3FFF, 0x1000}, {0x7BFF, 0x7BFF}, {0xFBFF, 0xFBFF}, {0x0001, 0x0001},
        {0x03FF, 0x0001}, {0x8001, 0x0003}, {0x7C01, 0x3C00}, {0xFC01, 0x3C00}, {0x3C00, 0x7E10}, {0x8000, 0x8000},
        {0x0000, 0x8000}, {0x7C00, 0xFC00}, {0x4248, 0xC248}, {0x3C00, 0x3C00}};
    // Equal: signed zeros equal, NaN never (even with equal bits), subnormals
    // and infinities by value, neighbours unequal.
    const std::vector<std::pair<uint16_t, uint16_t>> bf16_equal = {
        {0x0000, 0x8000}, {0x8000, 0x8000}, {0x7FC0, 0x7FC0}, {0x7F81, 0x7F81}, {0x0001, 0x0001},
        {0x0001, 0x0002}, {0x7F80, 0x7F80}, {0x7F80, 0xFF80}, {0x3F80, 0x3F81}, {0x3F80, 0x3F80}};
    const std::vector<std::pair<uint16_t, uint16_t>> f16_equal = {
        {0x0000, 0x8000}, {0x8000, 0x8000}, {0x7E00, 0x7E00}, {0x7C01, 0x7C01}, {0x0001, 0x0001},
        {0x0001, 0x0002}, {0x7C00, 0x7C00}, {0x7C00, 0xFC00}, {0x3C00, 0x3C01}, {0x3C00, 0x3C00}};
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target()) {
        const int h = detail::dtype_index(dt::f16), bh = detail::dtype_index(dt::bf16);
        const auto &add = ops->binary[static_cast<int>(detail::ew_fn::add)];
        const auto &equal = ops->binary[static_cast<int>(detail::ew_fn::equal)];
        check_crafted(add[bh].fn, op::kind::Add, dt::bf16, bf16_add, ops->isa);
        check_crafted(add[h].fn, op::kind::Add, dt::f16, f16_add, ops->isa);
        check_crafted(equal[bh].fn, op::kind::Equal, dt::bf16, bf16_equal, ops->isa);
        check_crafted(equal[h].fn, op::kind::Equal, dt::f16, f16_equal, ops->isa);
    }
}

// Add chains in registers against the ops one at a time: every partial sum
// rounded to the type. Operands mix random values with the half-precision
// rounding cases (ties, carries, overflow, subnormal sums, NaN, signed
// zeros), so partial sums hit each of them in every lane; chains of 2 to 5
// operands, each contiguous or broadcast; tails, misaligned and streamed
// outputs, guard bytes after the last element.
TEST(element_ops, add_chains_round_every_partial_sum_like_the_ops_one_at_a_time) {
    const std::map<dt, std::vector<uint16_t>> cases = {
        {dt::bf16, {0x3F80, 0x3B80, 0x3F81, 0x3FFF, 0x7F7F, 0xFF7F, 0x0001, 0x007F, 0x8001, 0x0003,
                    0x7F81, 0xFF81, 0x7FA0, 0x8000, 0x0000, 0x7F80, 0xFF80, 0x4049, 0xC049, 0x80FF}},
        {dt::f16, {0x3C00, 0x1000, 0x3C01, 0x3FFF, 0x7BFF, 0xFBFF, 0x0001, 0x03FF, 0x8001, 0x0003,
                   0x7C01, 0xFC01, 0x7E10, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x4248, 0xC248, 0x83FF}}};
    std::mt19937_64 rng(11);
    size_t checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (dt t : {dt::f32, dt::bf16, dt::f16}) {
            const auto chain = ops->chain[static_cast<int>(detail::ew_fn::add)][detail::dtype_index(t)];
            ASSERT_NE(chain, nullptr) << ops->isa << " " << data_type_name(t);
            const size_t es = data_type_size(t);
            for (int64_t count = 2; count <= 5; ++count)
                for (int64_t n : {1, 31, 64, 100, 515}) {
                    std::vector<buffer> in;
                    for (int64_t k = 0; k < count; ++k) {
                        in.emplace_back(logical_tensor(static_cast<size_t>(k), t, dims{n}));
                        fill(in.back(), rng);
                        if (es == 2)
                            for (int64_t i = 0; i < n; ++i)
                                if (rng() % 2) {
                                    const auto &pool = cases.at(t);
                                    static_cast<uint16_t *>(in.back().data())[i] = pool[rng() % pool.size()];
                                }
                    }
                    // Operand k broadcast if bit k: every pattern of 2 and 3
                    // operands, every third of 4 and 5.
                    for (int64_t pattern = 0; pattern < (int64_t{1} << count); pattern += count <= 3 ? 1 : 3)
                        for (bool stream : {false, true})
                            for (size_t misalign : {size_t{0}, es}) {
                                std::vector<const void *> ptr;
                                std::vector<int64_t> strides;
                                for (int64_t k = 0; k < count; ++k)
                                    ptr.push_back(in[k].data()), strides.push_back(pattern >> k & 1 ? 0 : 1);
                                // The ops one at a time: sum = sum + in[k], stored as t.
                                buffer want(logical_tensor(9, t, dims{n})), got(logical_tensor(9, t, dims{n}));
                                for (int64_t i = 0; i < n; ++i) {
                                    ref_element(op::kind::Add, t, in[0].data(), strides[0] * i, t, in[1].data(),
                                                strides[1] * i, t, want.data(), i);
                                    for (int64_t k = 2; k < count; ++k)
                                        ref_element(op::kind::Add, t, want.data(), i, t, in[k].data(), strides[k] * i,
                                                    t, want.data(), i);
                                }
                                const size_t bytes = static_cast<size_t>(n) * es;
                                std::vector<unsigned char, aligned_allocator<unsigned char>> out(bytes + misalign + 64,
                                                                                                 kGuard);
                                chain(ptr.data(), strides.data(), count, out.data() + misalign, n, stream);
                                std::memcpy(got.data(), out.data() + misalign, bytes);
                                ASSERT_TRUE(same_elements(want, got))
                                    << ops->isa << " " << data_type_name(t) << " count=" << count << " n=" << n
                                    << " broadcast=" << pattern << " stream=" << stream << " misalign=" << misalign;
                                for (size_t k = 0; k < out.size(); ++k) {
                                    if (k < misalign || k >= misalign + bytes) {
                                        ASSERT_EQ(out[k], kGuard) << ops->isa << " wrote outside the output";
                                    }
                                }
                                ++checked;
                            }
                }
        }
    EXPECT_GT(checked, 0u);
}

TEST(element_ops, row_loops_equal_their_loop_per_row) {
    std::mt19937_64 rng(5);
    const dt all[] = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8,  dt::u8,      dt::s16,
                      dt::u16, dt::s32,  dt::u32, dt::s64, dt::u64, dt::boolean, dt::string};
    const int64_t rows = 5, n = 37, pitch = 45; // rows of 37 elements, 45 apart
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (dt x : all)
            for (dt y : all)
                for (const auto *def : binary_rows()) {
                    const op::kind kind = def->kind;
                    const int ix = detail::dtype_index(x), iy = detail::dtype_index(y);
                    const auto rows_fn = ops->binary_at(static_cast<int>(def->fn), ix, iy).rows;
                    if (!rows_fn) continue;
                    const dt to = output_type(*def, x, y);
                    buffer a(logical_tensor(0, x, dims{rows * pitch})), b(logical_tensor(1, y, dims{n}));
                    fill(a, rng);
                    fill(b, rng);
                    buffer got(logical_tensor(2, to, dims{rows * pitch})),
                        want(logical_tensor(2, to, dims{rows * pitch}));
                    rows_fn(a.data(), 1, pitch, b.data(), 1, 0, got.data(), pitch, n, rows, false); // b: every row
                    for (int64_t r = 0; r < rows; ++r)
                        for (int64_t i = 0; i < n; ++i)
                            ref_element(kind, x, a.data(), r * pitch + i, y, b.data(), i, to, want.data(),
                                        r * pitch + i);
                    EXPECT_TRUE(same_elements(want, got)) // gaps between the rows stay 0 in both
                        << ops->isa << " " << op_kind_name(kind) << " " << data_type_name(x) << ","
                        << data_type_name(y);
                }
}

TEST(element_ops, transposes_of_every_element_size) {
    std::mt19937_64 rng(3);
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (int size = 0; size < 4; ++size) {
            const size_t es = size_t{1} << size;
            const int64_t rows = 37, cols = 70, src_pitch = rows + 5, dst_pitch = cols + 3;
            std::vector<unsigned char> src(static_cast<size_t>(cols * src_pitch) * es + 8), got, want;
            for (auto &c : src) c = static_cast<unsigned char>(rng());
            for (bool stream : {false, true}) {
                got.assign(static_cast<size_t>(rows * dst_pitch) * es + 64, 0xA5);
                want = got;
                ops->transpose[size](src.data(), src_pitch, got.data(), dst_pitch, rows, cols, stream);
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t j = 0; j < cols; ++j)
                        std::memcpy(want.data() + (r * dst_pitch + j) * es, src.data() + (j * src_pitch + r) * es, es);
                EXPECT_EQ(got, want) << ops->isa << " " << es << "-byte elements, stream=" << stream;
            }
        }
}

// An f32 in [-1000, 1000], or one time in eight NaN, an infinity, -0, a
// subnormal or a value near the largest.
float f32_or_special(std::mt19937_64 &rng) {
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              -0.0f,
                              1e-40f,
                              3.4e38f};
    if (rng() % 8 == 0) return specials[rng() % 6];
    return std::uniform_real_distribution<float>(-1e3f, 1e3f)(rng);
}

TEST(element_ops, add_out_transposed_is_the_add_then_the_transpose) {
    std::mt19937_64 rng(5);
    int checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target()) {
        const auto fn =
            ops->out_transposed[static_cast<int>(fusebox::detail::ew_fn::add)][fusebox::detail::dtype_index(dt::f32)];
        ASSERT_NE(fn, nullptr) << ops->isa;
        // Whole blocks and tails of rows and columns; an output pitch that
        // keeps vectors aligned and one that does not.
        for (int64_t rows : {int64_t{16}, int64_t{37}, int64_t{5}})
            for (int64_t cols : {int64_t{70}, int64_t{16}, int64_t{3}})
                for (int64_t po : {int64_t{64}, rows + 3})
                    for (bool stream : {false, true}) {
                        const int64_t pa = cols + 1, pb = cols + 7;
                        std::vector<float> a(static_cast<size_t>(rows * pa)), b(static_cast<size_t>(rows * pb));
                        for (auto *v : {&a, &b})
                            for (float &x : *v) x = f32_or_special(rng);
                        std::vector<float, aligned_allocator<float>> out(static_cast<size_t>(cols * po + 16));
                        std::vector<uint32_t> guard(out.size());
                        for (auto &g : guard) g = static_cast<uint32_t>(rng());
                        std::memcpy(out.data(), guard.data(), out.size() * 4);
                        fn(a.data(), pa, b.data(), pb, out.data(), po, rows, cols, stream);
                        for (int64_t j = 0; j < cols; ++j)
                            for (int64_t r = 0; r < rows; ++r) {
                                const float want =
                                    a[static_cast<size_t>(r * pa + j)] + b[static_cast<size_t>(r * pb + j)];
                                const float got = out[static_cast<size_t>(j * po + r)];
                                ASSERT_TRUE(std::isnan(want) ? std::isnan(got)
                                                             : got == want && std::signbit(got) == std::signbit(want))
                                    << ops->isa << " rows=" << rows << " cols=" << cols << " po=" << po << " r=" << r
                                    << " j=" << j << " stream=" << stream;
                            }
                        // Nothing but the elements is written.
                        for (size_t i = 0; i < out.size(); ++i) {
                            const int64_t j = static_cast<int64_t>(i) / po, r = static_cast<int64_t>(i) % po;
                            if (j < cols && r < rows) continue;
                            uint32_t bits;
                            std::memcpy(&bits, &out[i], 4);
                            ASSERT_EQ(bits, guard[i]) << ops->isa << " wrote outside the output at " << i;
                        }
                        ++checked;
                    }
    }
    EXPECT_GT(checked, 0);
}

TEST(element_ops, add_in_transposed_is_the_transpose_then_the_add) {
    // One transposed operand (in_transposed) or two (both_transposed).
    std::mt19937_64 rng(6);
    int checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (bool both : {false, true}) {
            const auto fn =
                (both ? ops->both_transposed : ops->in_transposed)[static_cast<int>(fusebox::detail::ew_fn::add)]
                                                                  [fusebox::detail::dtype_index(dt::f32)];
            ASSERT_NE(fn, nullptr) << ops->isa << " both=" << both;
            // Whole blocks and tails of rows and columns; an output pitch that
            // keeps vectors aligned (streamed) and one that does not.
            for (int64_t rows : {int64_t{16}, int64_t{37}, int64_t{5}})
                for (int64_t cols : {int64_t{70}, int64_t{16}, int64_t{3}})
                    for (int64_t po : {int64_t{80}, cols + 3})
                        for (bool stream : {false, true}) {
                            // a: column j at a[j * pa]; b: row r at b[r * pb], or column j at b[j * pb]
                            const int64_t pa = rows + 2, pb = both ? rows + 9 : cols + 7;
                            std::vector<float> a(static_cast<size_t>(cols * pa)),
                                b(static_cast<size_t>(both ? cols * pb : rows * pb));
                            for (auto *v : {&a, &b})
                                for (float &x : *v) x = f32_or_special(rng);
                            std::vector<float, aligned_allocator<float>> out(static_cast<size_t>(rows * po + 16));
                            std::vector<uint32_t> guard(out.size());
                            for (auto &g : guard) g = static_cast<uint32_t>(rng());
                            std::memcpy(out.data(), guard.data(), out.size() * 4);
                            fn(a.data(), pa, b.data(), pb, out.data(), po, rows, cols, stream);
                            for (int64_t r = 0; r < rows; ++r)
                                for (int64_t j = 0; j < cols; ++j) {
                                    const float want = a[static_cast<size_t>(j * pa + r)] +
                                                       b[static_cast<size_t>(both ? j * pb + r : r * pb + j)];
                                    const float got = out[static_cast<size_t>(r * po + j)];
                                    ASSERT_TRUE(std::isnan(want)
                                                    ? std::isnan(got)
                                                    : got == want && std::signbit(got) == std::signbit(want))
                                        << ops->isa << " rows=" << rows << " cols=" << cols << " po=" << po
                                        << " r=" << r << " j=" << j << " stream=" << stream << " both=" << both;
                                }
                            // Nothing but the elements is written.
                            for (size_t i = 0; i < out.size(); ++i) {
                                const int64_t r = static_cast<int64_t>(i) / po, j = static_cast<int64_t>(i) % po;
                                if (r < rows && j < cols) continue;
                                uint32_t bits;
                                std::memcpy(&bits, &out[i], 4);
                                ASSERT_EQ(bits, guard[i]) << ops->isa << " wrote outside the output at " << i;
                            }
                            ++checked;
                        }
        }
    EXPECT_GT(checked, 0);
}

TEST(element_ops, comparisons_out_transposed_are_the_comparison_then_the_transpose) {
    // Where a target has them (AVX2, AVX-512): f32 into booleans, whole
    // strips (64 rows) and shorter ones (100 = 64 + 32 + 4), blocks of 64
    // and 16 columns and the tails of both.
    using fusebox::detail::ew_fn;
    const std::pair<ew_fn, bool (*)(float, float)> kinds[] = {
        {ew_fn::equal, [](float x, float y) { return x == y; }},
        {ew_fn::greater, [](float x, float y) { return x > y; }},
        {ew_fn::greater_equal, [](float x, float y) { return x >= y; }},
        {ew_fn::less, [](float x, float y) { return x < y; }},
        {ew_fn::less_equal, [](float x, float y) { return x <= y; }}};
    const float pool[] = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          2.5f,
                          std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          1e-40f};
    std::mt19937_64 rng(7);
    int checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (const auto &[fn_kind, want_of] : kinds) {
            const auto fn = ops->out_transposed[static_cast<int>(fn_kind)][fusebox::detail::dtype_index(dt::f32)];
            if (!fn) continue;
            for (int64_t rows : {int64_t{64}, int64_t{128}, int64_t{100}, int64_t{70}, int64_t{5}})
                for (int64_t cols : {int64_t{64}, int64_t{130}, int64_t{16}, int64_t{3}})
                    for (int64_t po : {int64_t{128}, rows + 3})
                        for (bool stream : {false, true}) {
                            const int64_t pa = cols + 5, pb = cols + 1;
                            std::vector<float> a(static_cast<size_t>(rows * pa)), b(static_cast<size_t>(rows * pb));
                            for (auto *v : {&a, &b})
                                for (float &x : *v) x = pool[rng() % 9];
                            std::vector<uint8_t, aligned_allocator<uint8_t>> out(static_cast<size_t>(cols * po + 64));
                            std::vector<uint8_t> guard(out.size());
                            for (auto &g : guard) g = static_cast<uint8_t>(rng() | 2); // never a boolean
                            std::copy(guard.begin(), guard.end(), out.begin());
                            fn(a.data(), pa, b.data(), pb, out.data(), po, rows, cols, stream);
                            for (size_t i = 0; i < out.size(); ++i) {
                                const int64_t j = static_cast<int64_t>(i) / po, r = static_cast<int64_t>(i) % po;
                                const bool inside = j < cols && r < rows;
                                const uint8_t want = inside ? want_of(a[static_cast<size_t>(r * pa + j)],
                                                                      b[static_cast<size_t>(r * pb + j)])
                                                            : guard[i];
                                ASSERT_EQ(out[i], want) << ops->isa << " fn " << static_cast<int>(fn_kind)
                                                        << " rows=" << rows << " cols=" << cols << " po=" << po
                                                        << " r=" << r << " j=" << j << " stream=" << stream;
                            }
                            ++checked;
                        }
        }
    if (checked == 0)
        GTEST_SKIP() << "no target here has a comparison into a transposed output (AVX2 and AVX-512 only)";
}

TEST(element_ops, half_precision_add_out_transposed_is_the_rounded_add_then_the_transpose) {
    // Where a target has it (bf16: AVX2 and AVX-512; f16: AVX-512): whole strips (32 rows)
    // and tails, bits compared with the reference rounding of the f32 sum.
    std::mt19937_64 rng(6);
    int checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (dt t : {dt::bf16, dt::f16}) {
            const auto fn =
                ops->out_transposed[static_cast<int>(fusebox::detail::ew_fn::add)][fusebox::detail::dtype_index(t)];
            if (!fn) continue;
            auto to_f32 = [&](uint16_t h) { return t == dt::bf16 ? ref_bf16_to_f32(h) : ref_f16_to_f32(h); };
            auto from_f32 = [&](float f) { return t == dt::bf16 ? ref_f32_to_bf16(f) : ref_f32_to_f16(f); };
            for (int64_t rows : {int64_t{32}, int64_t{64}, int64_t{37}, int64_t{5}})
                for (int64_t cols : {int64_t{70}, int64_t{16}, int64_t{3}})
                    for (int64_t po : {int64_t{64}, rows + 3})
                        for (bool stream : {false, true}) {
                            const int64_t pa = cols + 1, pb = cols + 7;
                            std::vector<uint16_t> a(static_cast<size_t>(rows * pa)), b(static_cast<size_t>(rows * pb));
                            for (auto *v : {&a, &b})
                                for (uint16_t &x : *v) x = static_cast<uint16_t>(rng()); // every bit pattern
                            std::vector<uint16_t, aligned_allocator<uint16_t>> out(static_cast<size_t>(cols * po + 32));
                            std::vector<uint16_t> guard(out.size());
                            for (auto &g : guard) g = static_cast<uint16_t>(rng());
                            std::copy(guard.begin(), guard.end(), out.begin());
                            fn(a.data(), pa, b.data(), pb, out.data(), po, rows, cols, stream);
                            for (size_t i = 0; i < out.size(); ++i) {
                                const int64_t j = static_cast<int64_t>(i) / po, r = static_cast<int64_t>(i) % po;
                                const bool inside = j < cols && r < rows;
                                const uint16_t want = inside ? from_f32(to_f32(a[static_cast<size_t>(r * pa + j)]) +
                                                                        to_f32(b[static_cast<size_t>(r * pb + j)]))
                                                             : guard[i];
                                const bool nan = inside && std::isnan(to_f32(want)) && std::isnan(to_f32(out[i]));
                                ASSERT_TRUE(nan || out[i] == want)
                                    << ops->isa << " " << data_type_name(t) << " rows=" << rows << " cols=" << cols
                                    << " po=" << po << " r=" << r << " j=" << j << " stream=" << stream << ": got "
                                    << out[i] << ", want " << want;
                            }
                            ++checked;
                        }
        }
    if (checked == 0)
        GTEST_SKIP() << "no target here has a half-precision Add into a transposed output (AVX2, AVX-512)";
}

TEST(element_ops, bf16_add_in_transposed_is_the_transpose_then_the_rounded_add) {
    // Where a target has it (AVX2, AVX-512): whole steps (32 rows, 32
    // columns) and tails, bits compared with the reference rounding of the
    // f32 sum.
    std::mt19937_64 rng(7);
    int checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target()) {
        const auto fn =
            ops->in_transposed[static_cast<int>(fusebox::detail::ew_fn::add)][fusebox::detail::dtype_index(dt::bf16)];
        if (!fn) continue;
        for (int64_t rows : {int64_t{32}, int64_t{64}, int64_t{37}, int64_t{5}})
            for (int64_t cols : {int64_t{70}, int64_t{32}, int64_t{3}})
                for (int64_t po : {int64_t{96}, cols + 3})
                    for (bool stream : {false, true}) {
                        const int64_t pa = rows + 5, pb = cols + 7; // a: column j at a[j * pa]
                        std::vector<uint16_t> a(static_cast<size_t>(cols * pa)), b(static_cast<size_t>(rows * pb));
                        for (auto *v : {&a, &b})
                            for (uint16_t &x : *v) x = static_cast<uint16_t>(rng()); // every bit pattern
                        std::vector<uint16_t, aligned_allocator<uint16_t>> out(static_cast<size_t>(rows * po + 32));
                        std::vector<uint16_t> guard(out.size());
                        for (auto &g : guard) g = static_cast<uint16_t>(rng());
                        std::copy(guard.begin(), guard.end(), out.begin());
                        fn(a.data(), pa, b.data(), pb, out.data(), po, rows, cols, stream);
                        for (size_t i = 0; i < out.size(); ++i) {
                            const int64_t r = static_cast<int64_t>(i) / po, j = static_cast<int64_t>(i) % po;
                            const bool inside = r < rows && j < cols;
                            const uint16_t want =
                                inside ? ref_f32_to_bf16(ref_bf16_to_f32(a[static_cast<size_t>(j * pa + r)]) +
                                                         ref_bf16_to_f32(b[static_cast<size_t>(r * pb + j)]))
                                       : guard[i];
                            const bool nan =
                                inside && std::isnan(ref_bf16_to_f32(want)) && std::isnan(ref_bf16_to_f32(out[i]));
                            ASSERT_TRUE(nan || out[i] == want)
                                << ops->isa << " rows=" << rows << " cols=" << cols << " po=" << po << " r=" << r
                                << " j=" << j << " stream=" << stream << ": got " << out[i] << ", want " << want;
                        }
                        ++checked;
                    }
    }
    if (checked == 0) GTEST_SKIP() << "no target here has a bf16 Add of a transposed input (AVX2, AVX-512)";
}

// One- and three-input loops (LogicalNot, BitwiseNot; Where, Select) and
// BitShift to the right, every type their rows take, against the reference,
// with operands contiguous and broadcast.
TEST(element_ops, unary_ternary_right_shift_and_fmod_loops_match_reference) {
    std::mt19937_64 rng(13);
    const dt all[] = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8,  dt::u8,      dt::s16,
                      dt::u16, dt::s32,  dt::u32, dt::s64, dt::u64, dt::boolean, dt::string};
    size_t checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (const auto &def : detail::elementwise_ops())
            for (dt t : all) {
                if (!(def.types & detail::type_bit(t))) continue;
                const int64_t n = 77;
                // The form an attribute picks (Mod's fmod=1 over every numeric
                // type, BitShift to the right), against the reference's other form.
                auto check_other_form = [&](detail::ew_fn f, auto &&fill_b, bool alt = true) {
                    const auto fn = ops->binary[static_cast<int>(f)][detail::dtype_index(t)].fn;
                    ASSERT_NE(fn, nullptr) << ops->isa << " " << op_kind_name(def.kind) << " " << data_type_name(t);
                    buffer a(logical_tensor(0, t, dims{n})), b(logical_tensor(1, t, dims{n}));
                    fill(a, rng);
                    fill_b(b);
                    buffer got(logical_tensor(2, t, dims{n})), want(logical_tensor(2, t, dims{n}));
                    fn(a.data(), 1, b.data(), 1, got.data(), n, false);
                    ref_binary(def.kind, a, b, want, -1, alt);
                    ASSERT_TRUE(same_elements(want, got))
                        << ops->isa << " " << op_kind_name(def.kind) << " " << data_type_name(t);
                    ++checked;
                };
                if (def.kind == op::kind::Mod) {
                    check_other_form(detail::ew_fn::fmod, [&](buffer &b) { fill(b, rng); });
                    continue;
                }
                if (def.kind == op::kind::BitShift) { // both directions, counts around the width
                    auto counts = [&](buffer &b) {
                        auto *c = static_cast<unsigned char *>(b.data());
                        for (int64_t i = 0; i < n; ++i) {
                            // (A quarter any value of the type: counts far past the width.)
                            const uint64_t k = rng() % 4 == 0 ? rng() : rng() % (8 * data_type_size(t) + 3);
                            std::memcpy(c + i * data_type_size(t), &k, data_type_size(t));
                        }
                    };
                    check_other_form(detail::ew_fn::shift_right, counts);
                    check_other_form(detail::ew_fn::shift_left, counts, false);
                    continue;
                }
                if (def.lower == detail::lowering::fold || def.lower == detail::lowering::mean) { // one input: a copy
                    const auto fn = ops->nary[static_cast<int>(detail::ew_fn::identity)][detail::dtype_index(t)];
                    ASSERT_NE(fn, nullptr) << ops->isa << " " << data_type_name(t);
                    buffer a(logical_tensor(0, t, dims{n})), got(logical_tensor(1, t, dims{n}));
                    fill(a, rng);
                    const void *in[] = {a.data()};
                    const int64_t stride[] = {1};
                    fn(in, stride, got.data(), n, true);
                    ASSERT_EQ(std::memcmp(a.data(), got.data(), n * data_type_size(t)), 0) << ops->isa << " copy";
                    ++checked;
                    continue;
                }
                if (!ref_computes_nary(def.kind)) continue; // unary math: unary_ops_test
                const auto fn = ops->nary[static_cast<int>(def.fn)][detail::dtype_index(t)];
                ASSERT_NE(fn, nullptr) << ops->isa << " " << op_kind_name(def.kind) << " " << data_type_name(t);
                for (int pattern = 0; pattern < 8; ++pattern) { // bit k set: input k broadcast (stride 0)
                    std::vector<std::unique_ptr<buffer>> in;
                    std::vector<const void *> ptr;
                    std::vector<int64_t> stride;
                    for (int k = 0; k < def.inputs_min; ++k) {
                        const bool broadcast = (pattern >> k) & 1;
                        const dt type = def.rule == detail::type_rule::select && k == 0 ? dt::boolean : t;
                        in.push_back(std::make_unique<buffer>(logical_tensor(k, type, dims{broadcast ? 1 : n})));
                        fill(*in.back(), rng);
                        ptr.push_back(in.back()->data());
                        stride.push_back(broadcast ? 0 : 1);
                    }
                    buffer got(logical_tensor(9, t, dims{n})), want(logical_tensor(9, t, dims{n}));
                    fn(ptr.data(), stride.data(), got.data(), n, false);
                    std::vector<const buffer *> ins;
                    for (auto &b : in) ins.push_back(b.get());
                    ref_nary(def.kind, ins, want);
                    ASSERT_TRUE(same_elements(want, got))
                        << ops->isa << " " << op_kind_name(def.kind) << " " << data_type_name(t) << " " << pattern;
                    ++checked;
                }
            }
    EXPECT_GT(checked, 0u);
}

} // namespace

namespace {

// Division by one divisor (stride 0) avoids the divider where it can
// (binary_ops.cpp, divide_by_one): every quotient must still be the correctly
// rounded x / d. Dividends: every significand of [1, 2) and both signs
// (quotients scale exactly by powers of two inside the range it handles, so
// these stand for every dividend there), then the edges of that range and the
// special values; divisors: significands with patterns the corrections are
// sensitive to (all ones, one ulp above a power of two), everyday constants,
// random ones, and some outside the range (the plain division).
TEST(element_ops, division_by_one_divisor_is_correctly_rounded) {
    std::vector<float> a;
    for (uint32_t m = 0; m < (1u << 23); ++m) {
        const uint32_t bits = 0x3f800000u | m;
        float x;
        std::memcpy(&x, &bits, 4);
        a.push_back(x);
        a.push_back(-x * 0x1p40f);
    }
    for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p60f, 0x1p-60f, 0x1.fffffep59f, 0x1.000002p-60f, 0x1p61f,
                    0x1p-61f, 1e-40f, 3.4e38f, -1.2e-38f})
        a.push_back(x);
    std::vector<float> divisors = {1.0f,      1.41421356f,   0.1f,          3.0f,     7.0f,     1.702f,
                                   -10000.0f, 0x1.fffffep0f, 0x1.000002p0f, 0x1p60f,  0x1p-60f, 1e30f,
                                   1e-30f,    0.0f,          -0.0f,         INFINITY, NAN};
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> sig(1.0f, 2.0f);
    for (int k = 0; k < 6; ++k) divisors.push_back(sig(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20));
    std::vector<float> out(a.size());
    const int f = static_cast<int>(fusebox::detail::ew_fn::divide), t = fusebox::detail::dtype_index(dt::f32);
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target()) {
        if (std::string(ops->isa) == "SCALAR") continue; // (no vector loop)
        for (float d : divisors) {
            ops->binary[f][t].fn(a.data(), 1, &d, 0, out.data(), static_cast<int64_t>(a.size()), false);
            size_t wrong = 0, first = 0;
            for (size_t i = 0; i < a.size(); ++i) {
                const float want = a[i] / d;
                if (std::memcmp(&want, &out[i], 4) != 0 && !(std::isnan(want) && std::isnan(out[i])))
                    first = wrong++ ? first : i;
            }
            EXPECT_EQ(wrong, 0u) << ops->isa << ": " << a[first] << " / " << d << " gave " << out[first] << ", not "
                                 << a[first] / d;
        }
    }
    // f64: random dividends over the whole range it handles.
    std::vector<double> a64, out64(1 << 20);
    std::mt19937_64 r64(6);
    for (size_t i = 0; i < out64.size(); ++i) {
        const double x =
            std::ldexp(1.0 + static_cast<double>(r64() >> 11) * 0x1p-53, static_cast<int>(r64() % 1100) - 550);
        a64.push_back(i % 2 ? -x : x);
    }
    const int t64 = fusebox::detail::dtype_index(dt::f64);
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (double d : {1.4142135623730951, 3.0, 0x1.fffffffffffffp0, 1e-300, 0x1p-500, 0x1p500}) {
            ops->binary[f][t64].fn(a64.data(), 1, &d, 0, out64.data(), static_cast<int64_t>(a64.size()), false);
            size_t wrong = 0;
            for (size_t i = 0; i < a64.size(); ++i) {
                const double want = a64[i] / d;
                wrong += std::memcmp(&want, &out64[i], 8) != 0;
            }
            EXPECT_EQ(wrong, 0u) << ops->isa << " f64 / " << d;
        }
}

// Pow of f32 (and f16/bf16, computed in f32) by a small integer exponent
// (GELU's x^3) has a vector loop: its products in double are x^k correctly
// rounded, so each element is pow's in double rounded to f32 (then to the
// half type). Bases: random f32 bit patterns and every f16/bf16 one,
// specials; tails and streamed outputs; a broadcast base or a non-integer
// exponent takes the general loop and still matches.
TEST(element_ops, pow_by_small_integers_is_pow_in_double_rounded_once) {
    std::mt19937 rng(8);
    std::vector<float> a32;
    for (int i = 0; i < (1 << 16); ++i) {
        uint32_t bits = static_cast<uint32_t>(rng());
        float x;
        std::memcpy(&x, &bits, 4);
        a32.push_back(x);
    }
    for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-40f, 3.4e38f, 1.0f, -1.0f, 0x1p42f, 0x1p-42f,
                    0x1.fffffep127f, 5.42101e-20f})
        a32.push_back(x);
    std::vector<uint16_t> a16(1 << 16);
    for (size_t i = 0; i < a16.size(); ++i) a16[i] = static_cast<uint16_t>(i);
    const int f = static_cast<int>(fusebox::detail::ew_fn::pow), e = fusebox::detail::dtype_index(dt::f32);
    size_t checked = 0;
    for (const element_ops *ops : fusebox::detail::element_ops_for_every_target())
        for (dt t : {dt::f32, dt::bf16, dt::f16}) {
            const bool wide = t == dt::f32;
            const void *base = wide ? static_cast<const void *>(a32.data()) : a16.data();
            const int64_t size = static_cast<int64_t>(wide ? a32.size() : a16.size());
            auto in = [&](int64_t i) {
                return wide ? a32[i] : t == dt::f16 ? ref_f16_to_f32(a16[i]) : ref_bf16_to_f32(a16[i]);
            };
            for (float y : {2.0f, 3.0f, 4.0f, -1.0f, -2.0f, 0.5f})
                for (int64_t n : {int64_t{1}, int64_t{37}, size})
                    for (int64_t sa : {0, 1})
                        for (bool stream : {false, true}) {
                            const size_t es = data_type_size(t);
                            std::vector<unsigned char, aligned_allocator<unsigned char>> out(
                                static_cast<size_t>(n + 1) * es, kGuard);
                            ops->binary_at(f, detail::dtype_index(t), e)
                                .fn(base, sa, &y, 0, out.data() + es, n, stream);
                            for (int64_t i = 0; i < n; ++i) {
                                const float x = in(sa * i);
                                const float p = static_cast<float>(std::pow(static_cast<double>(x), double{y}));
                                float want = p, got;
                                if (wide) {
                                    std::memcpy(&got, out.data() + (i + 1) * 4, 4);
                                } else {
                                    uint16_t h;
                                    std::memcpy(&h, out.data() + (i + 1) * 2, 2);
                                    const uint16_t w = t == dt::f16 ? ref_f32_to_f16(p) : ref_f32_to_bf16(p);
                                    want = t == dt::f16 ? ref_f16_to_f32(w) : ref_bf16_to_f32(w);
                                    got = t == dt::f16 ? ref_f16_to_f32(h) : ref_bf16_to_f32(h);
                                }
                                ASSERT_TRUE(std::memcmp(&want, &got, 4) == 0 || (std::isnan(want) && std::isnan(got)))
                                    << ops->isa << " " << data_type_name(t) << " pow(" << x << ", " << y << ") gave "
                                    << got << ", not " << want << " (n=" << n << " stream=" << stream << ")";
                            }
                            for (size_t k = 0; k < es; ++k) ASSERT_EQ(out[k], kGuard) << ops->isa << " wrote before";
                            ++checked;
                        }
        }
    EXPECT_GT(checked, 0u);
}

} // namespace
