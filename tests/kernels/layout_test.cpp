// Layouts: every tensor of a partition in its own dim order (channels-last,
// any permutation), with padded dims, broadcasting, every type, on every
// kernel path. Results must equal the scalar reference bit for bit, and the
// gaps of a padded output must stay untouched. Also the canonical form the
// kernels see: one dim order for all operands becomes dense loops.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "common/access.hpp"
#include "compile/canonicalize.hpp"
#include "interface/graph_impl.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

// Strides of `shape` laid out with dims in `order` (outermost first), each
// dim padded by `pad[d]` extra elements.
dims layout(const dims &shape, const std::vector<size_t> &order, const dims &pad) {
    dims strides(shape.size());
    int64_t next = 1;
    for (size_t i = order.size(); i-- > 0;) {
        const size_t d = order[i];
        strides[d] = next;
        next *= shape[d] + pad[d];
    }
    return strides;
}

dims channels_last(const dims &nchw) { return layout(nchw, {0, 2, 3, 1}, dims(4, 0)); }

struct random_layouts {
    std::mt19937_64 rng;
    explicit random_layouts(uint64_t seed) : rng(seed) {}

    int64_t below(int64_t n) { return std::uniform_int_distribution<int64_t>(0, n - 1)(rng); }

    // A random order of the dims, padding on some.
    dims strides_for(const dims &shape) {
        std::vector<size_t> order(shape.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        dims pad(shape.size(), 0);
        for (auto &p : pad) p = below(4) == 0 ? 1 + below(3) : 0;
        return layout(shape, order, pad);
    }

    // The shape of an input that broadcasts to `out`: some dims 1, maybe fewer dims.
    dims broadcast_of(const dims &out) {
        dims s = out;
        if (below(3) == 0) return s;
        for (auto &d : s)
            if (below(3) == 0) d = 1;
        const size_t drop = static_cast<size_t>(below(static_cast<int64_t>(s.size())));
        return dims(s.begin() + static_cast<std::ptrdiff_t>(drop), s.end());
    }
};

// Builds ((in0 op0 in1) op1 in2)... over the given inputs, compiles it with
// `out` as the output descriptor, runs it, and compares with the reference.
void check_partition(const std::vector<lt> &ins, const std::vector<op::kind> &kinds, const lt &out_desc,
                     const char *kernel, std::mt19937_64 &rng, const std::string &what) {
    kernel_env env(kernel);
    graph g(engine::kind::cpu);
    std::vector<op> ops;
    lt acc = ins[0];
    for (size_t i = 0; i < kinds.size(); ++i) {
        const bool last = i + 1 == kinds.size();
        lt next = last ? out_desc : lt(100 + i, dt::undef, lt::layout_type::any);
        ops.emplace_back(i, kinds[i], std::vector<lt>{acc, ins[i + 1]}, std::vector<lt>{next}, "op");
        g.add_op(ops.back());
        acc = next;
    }
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u) << what;
    const engine eng(engine::kind::cpu);
    compiled_partition cp;
    try {
        cp = parts[0].compile(ins, {out_desc}, eng);
    } catch (const error &e) {
        // Forcing oneDNN may be refused (not exact, or a transposing layout); nothing else may fail.
        ASSERT_TRUE(std::string(kernel) == "onednn" && e.get_status() == status::unimplemented)
            << what << ": " << e.what();
        return;
    }
    std::map<size_t, std::shared_ptr<buffer>> values;
    std::vector<tensor> in_t;
    for (const lt &l : ins) {
        auto b = std::make_shared<buffer>(l);
        fill(*b, rng);
        values[l.get_id()] = b;
        in_t.emplace_back(l, eng, b->data());
    }
    const lt out_lt = cp.query_logical_tensor(out_desc.get_id());
    buffer out(out_lt);
    std::fill(out.bytes.begin(), out.bytes.end(), 0xCD);
    stream s(eng);
    cp.execute(s, in_t, {tensor(out_lt, eng, out.data())});

    reference_graph(ops, values);
    const buffer &want = *values.at(out_desc.get_id());
    buffer expected(out_lt); // the reference's values in the compiled output's layout
    const size_t es = data_type_size(out_lt.get_data_type());
    for_each_index(out_lt.get_dims(), [&](int64_t, const dims &idx) {
        std::memcpy(expected.bytes.data() + offset_of(expected.strides, idx) * es,
                    want.bytes.data() + offset_of(want.strides, idx) * es, es);
    });
    EXPECT_TRUE(same_elements(expected, out)) << what << " on " << cp.get_impl_info();
    // Bytes of no element (gaps of a padded layout, and past its end) keep their fill.
    std::vector<bool> element_byte(out.bytes.size(), false);
    for_each_index(out_lt.get_dims(), [&](int64_t, const dims &idx) {
        const size_t first = static_cast<size_t>(offset_of(out.strides, idx)) * es;
        std::fill(element_byte.begin() + first, element_byte.begin() + first + es, true);
    });
    for (size_t i = 0; i < out.bytes.size(); ++i)
        if (!element_byte[i] && out.bytes[i] != 0xCD) {
            ADD_FAILURE() << what << ": byte " << i << " of " << out.bytes.size()
                          << ", outside the output's elements, was written; shape "
                          << ::testing::PrintToString(out_lt.get_dims()) << " strides "
                          << ::testing::PrintToString(out_lt.get_strides());
            break;
        }
}

struct type_case {
    const char *name;
    std::vector<dt> inputs; // one per input; the op chain has inputs.size() - 1 ops
    op::kind kind;
};

class layout_test : public ::testing::TestWithParam<type_case> {};

TEST_P(layout_test, every_dim_order_padding_and_broadcast_matches_the_reference) {
    const type_case &tc = GetParam();
    random_layouts r(std::hash<std::string>()(tc.name));
    for (int trial = 0; trial < 40; ++trial) {
        const int rank = 2 + static_cast<int>(r.below(3));
        dims out_shape(rank);
        for (auto &d : out_shape) d = 1 + r.below(6);
        out_shape[r.below(rank)] = 16 + r.below(200); // rows longer than a panel sometimes
        std::vector<lt> ins;
        for (size_t i = 0; i < tc.inputs.size(); ++i) {
            const dims shape = i == 0 ? out_shape : r.broadcast_of(out_shape);
            ins.emplace_back(i, tc.inputs[i], shape, r.strides_for(shape));
        }
        std::vector<op::kind> kinds(tc.inputs.size() - 1, op::kind::Add);
        kinds.back() = tc.kind;
        const dt out_type =
            tc.kind == op::kind::Equal ? dt::boolean : (tc.inputs[0] == tc.inputs[1] ? tc.inputs[0] : dt::f32);
        const lt out_desc =
            r.below(2) ? lt(50, out_type, lt::layout_type::any) : lt(50, out_type, out_shape, r.strides_for(out_shape));
        for (const char *kernel : {"auto", "native", "onednn"})
            check_partition(ins, kinds, out_desc, kernel, r.rng,
                            std::string(tc.name) + " trial " + std::to_string(trial) + " kernel " + kernel);
        if (HasFatalFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(types, layout_test,
                         ::testing::Values(type_case{"f32_add", {dt::f32, dt::f32}, op::kind::Add},
                                           type_case{"f32_chain", {dt::f32, dt::f32, dt::f32}, op::kind::Add},
                                           type_case{"f32_equal", {dt::f32, dt::f32}, op::kind::Equal},
                                           type_case{"bf16_add", {dt::bf16, dt::bf16}, op::kind::Add},
                                           type_case{
                                               "bf16_chain", {dt::bf16, dt::bf16, dt::bf16, dt::bf16}, op::kind::Add},
                                           type_case{"f16_chain", {dt::f16, dt::f16, dt::f16}, op::kind::Add},
                                           type_case{"f16_add", {dt::f16, dt::f16}, op::kind::Add},
                                           type_case{"f32_bf16_add", {dt::f32, dt::bf16}, op::kind::Add},
                                           type_case{"f16_f32_add", {dt::f16, dt::f32}, op::kind::Add},
                                           type_case{"s8_add", {dt::s8, dt::s8}, op::kind::Add},
                                           type_case{"u16_add", {dt::u16, dt::u16}, op::kind::Add},
                                           type_case{"s64_add", {dt::s64, dt::s64}, op::kind::Add},
                                           type_case{"f64_add", {dt::f64, dt::f64}, op::kind::Add},
                                           type_case{"bf16_equal", {dt::bf16, dt::bf16}, op::kind::Equal},
                                           type_case{"s32_equal", {dt::s32, dt::s32}, op::kind::Equal},
                                           type_case{"boolean_equal", {dt::boolean, dt::boolean}, op::kind::Equal},
                                           type_case{"string_equal", {dt::string, dt::string}, op::kind::Equal}),
                         [](const auto &info) { return std::string(info.param.name); });

// Large enough to split across threads: chunk boundaries fall inside rows
// and panels.
TEST(layout_large, padded_rows_and_transposes_across_threads) {
    std::mt19937_64 rng(11);
    const dims rows{700, 64};
    const lt a(0, dt::f32, rows, {80, 1}), b(1, dt::f32, rows, {80, 1});
    for (const char *kernel : {"auto", "native"}) {
        check_partition({a, b}, {op::kind::Add}, lt(2, dt::f32, rows, {72, 1}), kernel, rng, "padded rows");
        check_partition({lt(0, dt::bf16, rows, {80, 1}), lt(1, dt::bf16, {64})}, {op::kind::Add},
                        lt(2, dt::bf16, rows, {64, 1}), kernel, rng, "padded bf16 rows");
    }
    // Channels not a multiple of a strip (20 = 16 + 4): the last strip of
    // each image is short.
    const dims nchw20{2, 20, 40, 41};
    check_partition({lt(0, dt::f32, nchw20), lt(1, dt::f32, nchw20)}, {op::kind::Add},
                    lt(2, dt::f32, nchw20, channels_last(nchw20)), "auto", rng, "NCHW + NCHW -> NHWC, 20 channels");
    check_partition({lt(0, dt::f32, nchw20, channels_last(nchw20)), lt(1, dt::f32, nchw20)}, {op::kind::Add},
                    lt(2, dt::f32, nchw20), "auto", rng, "NHWC + NCHW -> NCHW, 20 channels");
    check_partition({lt(0, dt::f32, nchw20, channels_last(nchw20)), lt(1, dt::f32, nchw20, channels_last(nchw20))},
                    {op::kind::Add}, lt(2, dt::f32, nchw20), "auto", rng, "NHWC + NHWC -> NCHW, 20 channels");
    const dims nchw40{2, 40, 9, 41}; // bf16 steps of 32 channels: the last strip of each image is short
    check_partition({lt(0, dt::bf16, nchw40), lt(1, dt::bf16, nchw40, channels_last(nchw40))}, {op::kind::Add},
                    lt(2, dt::bf16, nchw40), "auto", rng, "NCHW + NHWC -> NCHW bf16, 40 channels");
    const dims nchw{2, 64, 40, 41};
    for (dt t : {dt::f32, dt::bf16, dt::u8, dt::f64}) {
        const lt x(0, t, nchw, channels_last(nchw)), y(1, t, nchw);
        check_partition({x, y}, {op::kind::Add}, lt(2, t, nchw), "auto", rng, "NHWC + NCHW -> NCHW");
        check_partition({y, x}, {op::kind::Add}, lt(2, t, nchw), "auto", rng, "NCHW + NHWC -> NCHW");
        check_partition({y, x}, {op::kind::Add}, lt(2, t, nchw, channels_last(nchw)), "auto", rng,
                        "NCHW + NHWC -> NHWC");
        // Only the output transposed: its tiles go out while the next fills.
        check_partition({x, lt(1, t, nchw, channels_last(nchw))}, {op::kind::Add}, lt(2, t, nchw), "auto", rng,
                        "NHWC + NHWC -> NCHW");
        check_partition({y, lt(3, t, nchw)}, {op::kind::Add}, lt(2, t, nchw, channels_last(nchw)), "auto", rng,
                        "NCHW + NCHW -> NHWC");
        // Strips one input line tall, part of each boolean output line per
        // strip; where a target compares in registers (AVX2, AVX-512) and
        // there are 64 rows or more, strips one output line tall.
        check_partition({y, lt(3, t, nchw)}, {op::kind::Equal}, lt(2, dt::boolean, nchw, channels_last(nchw)), "auto",
                        rng, "Equal(NCHW, NCHW) -> NHWC boolean");
        const lt z(2, t, nchw, channels_last(nchw));
        check_partition({x, y, z}, {op::kind::Add, op::kind::Equal}, lt(50, dt::boolean, nchw), "auto", rng,
                        "Equal(NHWC + NCHW, NHWC) -> NCHW");
    }
}

// The canonical form of a partition compiled for `ins` and `out`.
detail::fused_expr canonical(const std::vector<lt> &ins, const lt &out) {
    graph g(engine::kind::cpu);
    lt acc = ins[0];
    for (size_t i = 1; i < ins.size(); ++i) {
        lt next = i + 1 == ins.size() ? out : lt(100 + i, dt::undef, lt::layout_type::any);
        g.add_op(op(i, op::kind::Add, {acc, ins[i]}, {next}));
        acc = next;
    }
    g.finalize();
    const auto part = g.get_partitions().at(0);
    return detail::build_fused_expr(*detail::access::impl(part), ins, {out});
}

TEST(layout_canonical_form, channels_last_is_as_dense_as_channels_first) {
    const dims shape{8, 32, 5, 7};
    const auto e = canonical({lt(0, dt::f32, shape, channels_last(shape)), lt(1, dt::f32, shape, channels_last(shape))},
                             lt(2, dt::f32, shape, channels_last(shape)));
    EXPECT_EQ(e.shape, dims{8 * 32 * 5 * 7});
    EXPECT_EQ(e.out_strides, dims{1});
}

TEST(layout_canonical_form, a_per_channel_bias_in_channels_last_is_a_row_vector) {
    const dims shape{8, 32, 5, 7}, bias{1, 32, 1, 1};
    const auto e = canonical({lt(0, dt::f32, shape, channels_last(shape)), lt(1, dt::f32, bias)},
                             lt(2, dt::f32, lt::layout_type::any));
    EXPECT_EQ(e.shape, (dims{8 * 5 * 7, 32}));
    EXPECT_EQ(e.out_strides, (dims{32, 1}));
    ASSERT_EQ(e.operands.size(), 2u);
    EXPECT_EQ(e.operands[1].strides, (dims{0, 1}));
}

TEST(layout_canonical_form, padded_rows_keep_unit_stride_loops) {
    const dims shape{6, 50};
    const dims padded{64, 1};
    const auto e =
        canonical({lt(0, dt::f32, shape, padded), lt(1, dt::f32, shape, padded)}, lt(2, dt::f32, shape, padded));
    EXPECT_EQ(e.shape, (dims{6, 50}));
    EXPECT_EQ(e.out_strides, (dims{64, 1}));
}

TEST(layout_canonical_form, a_transposing_operand_has_its_unit_dim_next_to_the_inner_dim) {
    const dims shape{4, 16, 3, 9}; // NCHW output, channels-last input
    const auto e =
        canonical({lt(0, dt::f32, shape, channels_last(shape)), lt(1, dt::f32, shape)}, lt(2, dt::f32, shape));
    ASSERT_EQ(e.shape.size(), 3u);
    EXPECT_EQ(e.shape, (dims{4, 16, 27}));
    EXPECT_EQ(e.out_strides.back(), 1);
    EXPECT_EQ(e.operands[0].strides, (dims{16 * 27, 1, 16})); // unit stride on the second-inner dim
}

TEST(layout_output, an_output_left_to_fusebox_follows_the_first_full_input_and_runs_in_place) {
    const engine eng(engine::kind::cpu);
    const dims shape{2, 8, 3, 3};
    const lt a(0, dt::f32, shape, channels_last(shape)), b(1, dt::f32, {1, 8, 1, 1});
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {a, b}, {lt(2, dt::f32, lt::layout_type::any)}));
    g.finalize();
    auto part = g.get_partitions().at(0);
    compiled_partition cp = part.compile({a, b}, {lt(2, dt::f32, lt::layout_type::any)}, eng);
    EXPECT_EQ(cp.query_logical_tensor(2).get_strides(), channels_last(shape));
    EXPECT_EQ(cp.query_inplace_ports(), (std::vector<std::pair<size_t, size_t>>{{0, 2}}));
}

TEST(layout_output, overlapping_output_strides_are_rejected_at_compile) {
    const engine eng(engine::kind::cpu);
    const lt a(0, dt::f32, {4, 4}), b(1, dt::f32, {4, 4});
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {a, b}, {lt(2, dt::f32, lt::layout_type::any)}));
    g.finalize();
    auto part = g.get_partitions().at(0);
    for (const dims &bad : {dims{1, 1}, dims{0, 1}, dims{4, 0}, dims{2, 1}})
        expect_error(
            [&] {
                part.compile({a, b}, {lt(2, dt::f32, {4, 4}, bad)}, eng);
            },
            status::invalid_arguments, "under which elements overlap");
}

} // namespace
