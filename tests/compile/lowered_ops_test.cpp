// The ops that become more than one kernel node, or take a rule of their own:
// Sum, Mean, Max and Min over 1..N inputs (folded left to right, each step
// rounded), SquaredDifference (the difference rounded, then squared), Pow in
// both forms (oneDNN's `beta` and ONNX's exponent tensor of any numeric
// type), BiasAdd along the channel dim and PReLU's slope rules. Each runs as
// one partition, equals the reference, and equals itself op by op.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "graph_runner.hpp"

namespace {

using namespace fbt;

using lt = logical_tensor;
const auto any = lt::layout_type::any;

struct value {
    size_t id;
    std::shared_ptr<buffer> buf;
};

value random(size_t id, dt t, const dims &shape, std::mt19937_64 &rng) {
    auto b = std::make_shared<buffer>(lt(id, t, shape));
    fill(*b, rng);
    return {id, b};
}

// A one-element f16 or bf16 input of the given bits.
value half(size_t id, dt t, uint16_t bits) {
    auto b = std::make_shared<buffer>(lt(id, t, dims{1}));
    std::memcpy(b->data(), &bits, 2);
    return {id, b};
}

std::map<size_t, std::shared_ptr<buffer>> by_id(const std::vector<value> &inputs) {
    std::map<size_t, std::shared_ptr<buffer>> values;
    for (const value &v : inputs) values[v.id] = v.buf;
    return values;
}

void check(const std::vector<op> &ops, const std::vector<value> &inputs, size_t out_id, int64_t max_ulp = 0) {
    expect_one_exact_partition(ops, by_id(inputs), out_id, max_ulp);
}

// The first element of a 2-byte result.
uint16_t first_bits(const buffer &b) {
    uint16_t bits;
    std::memcpy(&bits, b.data(), 2);
    return bits;
}

op make(size_t id, op::kind kind, std::vector<lt> in, size_t out) {
    return op(id, kind, std::move(in), {lt(out, dt::undef, any)}, "op");
}

TEST(lowered_ops, sum_mean_max_min_of_any_input_count_broadcast_and_fold_left_to_right) {
    std::mt19937_64 rng(31);
    const std::vector<dims> shapes = {{3, 1, 40}, {7, 40}, {1}, {3, 7, 1}, {40}};
    for (op::kind kind : {op::kind::Sum, op::kind::Mean, op::kind::Maximum, op::kind::Minimum})
        for (dt t : {dt::f32, dt::f16, dt::bf16, dt::f64, dt::s32, dt::u8})
            for (size_t n : {1, 2, 3, 5}) {
                const bool float_only = kind == op::kind::Sum || kind == op::kind::Mean;
                if (float_only && (t == dt::s32 || t == dt::u8)) continue;
                SCOPED_TRACE(std::string(op_kind_name(kind)) + " " + data_type_name(t) + " n=" + std::to_string(n));
                std::vector<value> in;
                std::vector<lt> ports;
                for (size_t k = 0; k < n; ++k) {
                    in.push_back(random(k, t, shapes[k], rng));
                    ports.push_back(in.back().buf->lt);
                }
                check({make(0, kind, ports, 10)}, in, 10);
            }
}

TEST(lowered_ops, mean_of_halves_rounds_the_sum_before_dividing) {
    // bf16: 1 + 2^-8 rounds to 1 (ties to even), twice, so Mean(1, 2^-8,
    // 2^-8) is 1/3 rounded (0x3EAB), not (1 + 2^-7)/3 (0x3EAC): the fold
    // stores each partial sum in bf16.
    const std::vector<value> in = {half(0, dt::bf16, 0x3F80), half(1, dt::bf16, 0x3B80), half(2, dt::bf16, 0x3B80)};
    const op mean = make(0, op::kind::Mean, {in[0].buf->lt, in[1].buf->lt, in[2].buf->lt}, 10);
    check({mean}, in, 10);
    EXPECT_EQ(first_bits(*run_fused({mean}, by_id(in), 10)), 0x3EAB); // 1/3 in bf16
}

TEST(lowered_ops, squared_difference_rounds_the_difference_first) {
    std::mt19937_64 rng(32);
    for (dt t : {dt::f32, dt::f16, dt::bf16}) {
        const value a = random(0, t, {5, 64}, rng), b = random(1, t, {64}, rng);
        check({make(0, op::kind::SquaredDifference, {a.buf->lt, b.buf->lt}, 10)}, {a, b}, 10);
    }
    // f16 0x4295 - 0x9D04 rounds to 0x4296 before squaring: 0x496F. The
    // square of the unrounded difference would round to 0x496E.
    const std::vector<value> in = {half(0, dt::f16, 0x4295), half(1, dt::f16, 0x9D04)};
    const op sd = make(0, op::kind::SquaredDifference, {in[0].buf->lt, in[1].buf->lt}, 10);
    check({sd}, in, 10);
    EXPECT_EQ(first_bits(*run_fused({sd}, by_id(in), 10)), 0x496F);
}

TEST(lowered_ops, pow_with_beta_and_with_an_exponent_tensor_of_every_numeric_type) {
    std::mt19937_64 rng(33);
    for (dt base : {dt::f32, dt::f16, dt::bf16}) {
        for (float beta : {2.0f, 3.0f, 0.5f, -1.0f, 1.7f}) {
            const value x = random(0, base, {9, 33}, rng);
            op pow = make(0, op::kind::Pow, {x.buf->lt}, 10);
            pow.set_attr(op::attr::beta, beta);
            check({pow}, {x}, 10);
        }
    }
    for (dt base : {dt::f32, dt::f64, dt::f16, dt::bf16, dt::s32, dt::s64})
        for (dt e : {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8, dt::u8, dt::s16, dt::u16, dt::s32, dt::u32, dt::s64,
                     dt::u64}) {
            SCOPED_TRACE(std::string(data_type_name(base)) + "^" + data_type_name(e));
            const value x = random(0, base, {4, 50}, rng), y = random(1, e, {50}, rng);
            check({make(0, op::kind::Pow, {x.buf->lt, y.buf->lt}, 10)}, {x, y}, 10, base == dt::f64 ? 1 : 0);
        }
}

TEST(lowered_ops, integer_pow_wraps_and_fixes_negative_exponents) {
    const std::vector<int32_t> xs = {0, 1, -1, 2, -2, 3, 7, INT32_MIN, INT32_MAX, -1, 1, 2, 0};
    const std::vector<int32_t> es = {-1, -5, -3, -1, -2, 31, 40, 2, 2, -4, 0, 32, 0};
    auto x = std::make_shared<buffer>(lt(0, dt::s32, dims{13}));
    auto e = std::make_shared<buffer>(lt(1, dt::s32, dims{13}));
    std::memcpy(x->data(), xs.data(), 13 * 4);
    std::memcpy(e->data(), es.data(), 13 * 4);
    const auto pow = run_fused({make(0, op::kind::Pow, {x->lt, e->lt}, 10)}, {{0, x}, {1, e}}, 10);
    // 3^31 and 7^40 wrap (computed here in 64 bits and truncated).
    uint64_t p3 = 1, p7 = 1;
    for (int i = 0; i < 31; ++i) p3 *= 3;
    for (int i = 0; i < 40; ++i) p7 *= 7;
    const std::vector<int32_t> want = {0, 1, -1, 0, 0, static_cast<int32_t>(p3), static_cast<int32_t>(p7), 0,
                                       1, 1, 1,  0, 1};
    std::vector<int32_t> got(13);
    std::memcpy(got.data(), pow->data(), 13 * 4);
    EXPECT_EQ(got, want);
}

TEST(lowered_ops, bias_add_along_the_channel_dim_in_either_format) {
    std::mt19937_64 rng(34);
    for (dt t : {dt::f32, dt::bf16, dt::f16})
        for (const char *format : {"NXC", "NCX"}) {
            const dims shape{2, 6, 5, 7};
            const int64_t channels = std::string(format) == "NCX" ? 6 : 7;
            const value x = random(0, t, shape, rng), b = random(1, t, {channels}, rng);
            op bias = make(0, op::kind::BiasAdd, {x.buf->lt, b.buf->lt}, 10);
            bias.set_attr(op::attr::data_format, std::string(format));
            check({bias}, {x, b}, 10);
        }
}

TEST(lowered_ops, prelu_slope_per_channel_per_tensor_and_broadcast) {
    std::mt19937_64 rng(35);
    struct slope_case {
        dims slope;
        const char *format;
        bool per_channel;
    };
    const dims shape{3, 4, 5, 6};
    const slope_case cases[] = {{{6}, "NXC", true},         {{4}, "NCX", true},       {{1}, "NXC", true},
                                {{6}, "NCX", false},        {{4, 1, 1}, "NXC", true}, {{5, 6}, "NXC", false},
                                {{3, 4, 5, 6}, "NCX", true}};
    for (dt t : {dt::f32, dt::f16, dt::bf16, dt::f64, dt::s32, dt::u32, dt::s64})
        for (const auto &c : cases) {
            SCOPED_TRACE(std::string(data_type_name(t)) + " slope of rank " + std::to_string(c.slope.size()) + " " +
                         c.format + (c.per_channel ? " per channel" : ""));
            const value x = random(0, t, shape, rng), s = random(1, t, c.slope, rng);
            op prelu = make(0, op::kind::PReLU, {x.buf->lt, s.buf->lt}, 10);
            prelu.set_attr(op::attr::data_format, std::string(c.format));
            prelu.set_attr(op::attr::per_channel_broadcast, c.per_channel);
            check({prelu}, {x, s}, 10);
        }
}

TEST(lowered_ops, a_tree_of_them_is_one_partition) {
    // PReLU(BiasAdd(Sum(a, b, c), bias), slope) + Mean(a, d): one pass.
    std::mt19937_64 rng(36);
    const dims shape{8, 16, 24};
    const value a = random(0, dt::f32, shape, rng), b = random(1, dt::f32, shape, rng),
                c = random(2, dt::f32, {24}, rng), bias = random(3, dt::f32, {24}, rng),
                slope = random(4, dt::f32, {24}, rng), d = random(5, dt::f32, {16, 1}, rng);
    const std::vector<op> ops = {
        make(0, op::kind::Sum, {a.buf->lt, b.buf->lt, c.buf->lt}, 10),
        make(1, op::kind::BiasAdd, {lt(10, dt::undef, any), bias.buf->lt}, 11),
        make(2, op::kind::PReLU, {lt(11, dt::undef, any), slope.buf->lt}, 12),
        make(3, op::kind::Mean, {a.buf->lt, d.buf->lt}, 13),
        make(4, op::kind::Add, {lt(12, dt::undef, any), lt(13, dt::undef, any)}, 14),
    };
    check(ops, {a, b, c, bias, slope, d}, 14);
}

TEST(lowered_ops, bad_shapes_and_attributes_are_named) {
    auto f32 = [](size_t id, dims d) { return lt(id, dt::f32, std::move(d)); };
    // Shapes are checked when the graph is finalized, types and attributes when an op is added.
    auto rejected = [](const op &o, status s, const std::string &fragment) {
        expect_error(
            [&] {
                graph g(engine::kind::cpu);
                g.add_op(o);
                g.finalize();
            },
            s, fragment);
    };
    rejected(make(0, op::kind::BiasAdd, {f32(0, {2, 3}), f32(1, {2, 3})}, 10), status::invalid_shape,
             "the bias must be 1-D");
    rejected(make(1, op::kind::BiasAdd, {f32(0, {2, 3}), f32(1, {2})}, 10), status::invalid_shape,
             "2 values for the channel dim 1 of extent 3");
    rejected(make(2, op::kind::PReLU, {f32(0, {2, 3}), f32(1, {4, 1, 3})}, 10), status::invalid_shape,
             "the slope [4,1,3] must broadcast to the input's shape [2,3]");
    rejected(make(3, op::kind::Maximum, {f32(0, {2}), f32(1, {3}), f32(2, {2})}, 10), status::invalid_shape,
             "input shapes [2], [3] and [2] are not broadcast-compatible");
    op bad_format = make(4, op::kind::PReLU, {f32(0, {2, 3}), f32(1, {3})}, 10);
    bad_format.set_attr(op::attr::data_format, std::string("NHWC"));
    rejected(bad_format, status::invalid_arguments, "data_format must be \"NXC\" or \"NCX\"");
    rejected(make(5, op::kind::Pow, {f32(0, {2})}, 10), status::invalid_arguments,
             "a one-input Pow needs its exponent, beta");
    op two_exponents = make(6, op::kind::Pow, {f32(0, {2}), f32(1, {2})}, 10);
    two_exponents.set_attr(op::attr::beta, 2.0f);
    rejected(two_exponents, status::invalid_arguments, "beta is the exponent of a one-input Pow");
    rejected(make(7, op::kind::Pow, {f32(0, {2}), lt(1, dt::boolean, dims{2})}, 10), status::invalid_data_type,
             "input types (f32, boolean) are not supported");
    rejected(make(8, op::kind::Sum, {f32(0, {2}), lt(1, dt::s32, dims{2})}, 10), status::invalid_data_type,
             "input types (f32, s32) are not supported");
    rejected(make(9, op::kind::Sum, {lt(0, dt::s32, dims{2}), lt(1, dt::s32, dims{2})}, 10), status::invalid_data_type,
             "input types (s32, s32) are not supported");
    rejected(make(10, op::kind::BiasAdd, {f32(0, {}), f32(1, {1})}, 10), status::invalid_shape,
             "the input has no channel dim");
    op ncx_rank1 = make(11, op::kind::BiasAdd, {f32(0, {3}), f32(1, {3})}, 10);
    ncx_rank1.set_attr(op::attr::data_format, std::string("NCX"));
    rejected(ncx_rank1, status::invalid_shape, "data_format NCX needs an input of rank 2 or more");
    op slope_flag = make(12, op::kind::PReLU, {f32(0, {2, 3}), f32(1, {3})}, 10);
    slope_flag.set_attr(op::attr::per_channel_broadcast, int64_t{1});
    rejected(slope_flag, status::invalid_arguments, "attribute per_channel_broadcast must be a boolean");
}

} // namespace

namespace {

// Fused (one partition, the native kernel) and op by op give the same bits
// at `out_id`. (The reference is not bit-exact for the transcendental ops.)
void same_as_op_by_op(const std::vector<op> &ops, const std::vector<value> &inputs, size_t out_id) {
    graph fused(engine::kind::cpu), debug(engine::kind::cpu);
    for (const op &o : ops) fused.add_op(o), debug.add_op(o);
    fused.finalize(), debug.finalize();
    ASSERT_EQ(fused.get_partitions().size(), 1u);
    kernel_env env("native");
    auto fused_values = by_id(inputs), debug_values = by_id(inputs);
    run_graph(fused, partition::policy::fusion, fused_values);
    run_graph(debug, partition::policy::debug, debug_values);
    EXPECT_TRUE(same_elements(*debug_values.at(out_id), *fused_values.at(out_id)));
}

// Chains of f32 nodes each reading the one before (the native kernel runs them
// in registers, one loop call per block): the exported exact GELU, QuickGelu,
// a LayerNorm tail, non-commutative steps with the value second, Max/Min and
// ReLU, a broadcast value first, over edge values, rows with a tail,
// broadcast operands and an output large enough to stream (with a misaligned
// start), each fused equal to the ops one by one.
TEST(lowered_ops, linear_chains_in_registers_equal_their_nodes) {
    std::mt19937_64 rng(35);
    for (const dims &shape : {dims{3, 37}, dims{5, 1031}, dims{3, (1 << 20) + 3}}) {
        SCOPED_TRACE(::testing::PrintToString(shape));
        const dims row{shape.back()}, col{shape[0], 1};
        const value x = random(0, dt::f32, shape, rng), y = random(1, dt::f32, shape, rng);
        const value c = random(2, dt::f32, {1}, rng), r = random(3, dt::f32, row, rng),
                    k = random(4, dt::f32, col, rng);
        const std::vector<value> in = {x, y, c, r, k};
        auto t = [](size_t id) { return lt(id, dt::undef, any); };
        {
            SCOPED_TRACE("exact GELU as exported: Mul(Mul(x, Add(Erf(Div(x, c)), r)), k)");
            same_as_op_by_op({make(0, op::kind::Divide, {x.buf->lt, c.buf->lt}, 10),
                              make(1, op::kind::Erf, {t(10)}, 11), make(2, op::kind::Add, {t(11), r.buf->lt}, 12),
                              make(3, op::kind::Multiply, {x.buf->lt, t(12)}, 13),
                              make(4, op::kind::Multiply, {t(13), k.buf->lt}, 14)},
                             in, 14);
        }
        {
            SCOPED_TRACE("QuickGelu, Tanh, the value second in Subtract and Divide");
            same_as_op_by_op({make(0, op::kind::Multiply, {x.buf->lt, c.buf->lt}, 10),
                              make(1, op::kind::Sigmoid, {t(10)}, 11),
                              make(2, op::kind::Subtract, {y.buf->lt, t(11)}, 12), make(3, op::kind::Tanh, {t(12)}, 13),
                              make(4, op::kind::Divide, {r.buf->lt, t(13)}, 14)},
                             in, 14);
        }
        {
            SCOPED_TRACE("a LayerNorm tail, Maximum, Minimum, ReLU (no function of its own)");
            // (Exact ops only: the reference too.)
            check({make(0, op::kind::Subtract, {x.buf->lt, k.buf->lt}, 10),
                   make(1, op::kind::Divide, {t(10), k.buf->lt}, 11),
                   make(2, op::kind::Multiply, {t(11), r.buf->lt}, 12), make(3, op::kind::Add, {t(12), y.buf->lt}, 13),
                   make(4, op::kind::Maximum, {c.buf->lt, t(13)}, 14),
                   make(5, op::kind::Minimum, {t(14), y.buf->lt}, 15), make(6, op::kind::ReLU, {t(15)}, 16)},
                  in, 16);
        }
        {
            SCOPED_TRACE("a broadcast value first: Subtract(k, x), the value second in Divide, ReLU");
            check({make(0, op::kind::Subtract, {k.buf->lt, x.buf->lt}, 10),
                   make(1, op::kind::Divide, {c.buf->lt, t(10)}, 11), make(2, op::kind::ReLU, {t(11)}, 12),
                   make(3, op::kind::Multiply, {t(12), y.buf->lt}, 13)},
                  in, 13);
        }
        {
            SCOPED_TRACE("two steps, ReLU(Add(x, y)) (S8; fewer vectors per pass when streaming)");
            check({make(0, op::kind::Add, {x.buf->lt, y.buf->lt}, 10), make(1, op::kind::ReLU, {t(10)}, 11)}, in, 11);
        }
        {
            // (One-input variadics are copies, not steps: once taken for ReLU,
            // which zeroed the negative values.)
            SCOPED_TRACE("one-input Maximum, Minimum, Sum before Mish");
            same_as_op_by_op({make(0, op::kind::Maximum, {x.buf->lt}, 10), make(1, op::kind::Minimum, {t(10)}, 11),
                              make(2, op::kind::Sum, {t(11)}, 12), make(3, op::kind::Mish, {t(12)}, 13),
                              make(4, op::kind::Multiply, {t(13), y.buf->lt}, 14)},
                             in, 14);
        }
        for (op::kind f : {op::kind::Exp, op::kind::Log, op::kind::Mish, op::kind::GELU}) {
            SCOPED_TRACE(std::string("the one function ") + op_kind_name(f));
            same_as_op_by_op({make(0, op::kind::Add, {x.buf->lt, r.buf->lt}, 10), make(1, f, {t(10)}, 11),
                              make(2, op::kind::Multiply, {t(11), y.buf->lt}, 12)},
                             in, 12);
        }
    }
}

// A chain dividing by one value per row (the LayerNorm tail's deviation),
// rows of divisors of every kind (near 1 and 2 in significand, at the ends
// of the range and past them: 0, subnormal, inf, NaN) and dividends of any
// bits, with a tail: every quotient has the division's bits.
TEST(lowered_ops, division_by_one_value_per_row_has_the_bits_of_the_division) {
    std::mt19937_64 rng(41);
    auto f = [](uint32_t bits) {
        float v;
        std::memcpy(&v, &bits, 4);
        return v;
    };
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> divisors = {0.0f,
                                   -0.0f,
                                   inf,
                                   -inf,
                                   nan,
                                   1e-40f,
                                   -3e-39f,
                                   0x1p-60f,
                                   0x1.fffffep-61f,
                                   0x1p61f,
                                   0x1.fffffep60f,
                                   -0x1.fffffep60f,
                                   FLT_MAX,
                                   FLT_MIN,
                                   1.0f,
                                   -1.0f,
                                   3.0f,
                                   0x1.fffffep0f,
                                   0x1.000002p0f,
                                   0.1f,
                                   1e-5f,
                                   65504.0f};
    for (uint32_t k = 0; k < 32; ++k) divisors.push_back(f(0x3f800000u + k)), divisors.push_back(f(0x3fffffffu - k));
    while (divisors.size() < 384) {
        const uint32_t exponent = 127 - 60 + static_cast<uint32_t>(rng() % 121); // 2^-60 .. 2^60
        divisors.push_back(f(static_cast<uint32_t>(rng() & 0x807fffffu) | exponent << 23));
    }
    const int64_t rows = static_cast<int64_t>(divisors.size()), cols = 2053;
    value x{0, std::make_shared<buffer>(lt(0, dt::f32, dims{rows, cols}))};
    value d{1, std::make_shared<buffer>(lt(1, dt::f32, dims{rows, 1}))};
    value one{2, std::make_shared<buffer>(lt(2, dt::f32, dims{rows, 1}))};
    auto *xs = static_cast<float *>(x.buf->data());
    const float edges[] = {0.0f,     -0.0f,           inf,     -inf,           nan,     1e-40f,  -1e-45f,
                           0x1p-60f, 0x1.fffffep-61f, 0x1p61f, 0x1.fffffep60f, FLT_MAX, FLT_MIN, -1.0f};
    for (int64_t r = 0; r < rows; ++r) {
        static_cast<float *>(d.buf->data())[r] = divisors[static_cast<size_t>(r)];
        static_cast<float *>(one.buf->data())[r] = 1.0f;
        for (int64_t c = 0; c < cols; ++c) {
            float &v = xs[r * cols + c];
            switch (rng() % 8) {
            case 0: v = f(static_cast<uint32_t>(rng())); break; // any bits
            case 1: v = edges[rng() % (sizeof(edges) / sizeof(edges[0]))]; break;
            default: // near the divisor's scale: quotients of every significand
                v = f(static_cast<uint32_t>(rng() & 0x807fffffu) | 127u << 23) *
                    (std::isfinite(divisors[static_cast<size_t>(r)]) ? divisors[static_cast<size_t>(r)] : 1.0f);
            }
        }
    }
    auto t = [](size_t id) { return lt(id, dt::undef, any); };
    check(
        {make(0, op::kind::Divide, {x.buf->lt, d.buf->lt}, 10), make(1, op::kind::Multiply, {t(10), one.buf->lt}, 11)},
        {x, d, one}, 11);
    // The divisor second in the chain, after a step.
    check(
        {make(0, op::kind::Subtract, {x.buf->lt, one.buf->lt}, 10), make(1, op::kind::Divide, {t(10), d.buf->lt}, 11)},
        {x, d, one}, 11);
}

} // namespace
