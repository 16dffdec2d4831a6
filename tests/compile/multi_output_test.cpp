// Partitions with several outputs (a tensor computed on the way that a
// framework op or End also reads): one pass writes every output, in any
// layout each, equal to the reference op by op; execute checks the outputs.
#include <gtest/gtest.h>

#include "graph_runner.hpp"

namespace {

using namespace fbt;

using lt = logical_tensor;
const auto any = lt::layout_type::any;

// Dense strides of `shape` with its dims laid out in `order` (outermost first).
dims strides_in_order(const dims &shape, const std::vector<size_t> &order) {
    dims s(shape.size());
    int64_t step = 1;
    for (size_t i = order.size(); i-- > 0;) s[order[i]] = step, step *= shape[order[i]];
    return s;
}

// t2 = t0 + t1, t3 = ReLU(t2), t5 = t3 * t4 (t4 per channel), t6 = bf16(t3);
// t2, t6 and t5 leave the graph.
std::vector<op> residual_ops(const dims &shape) {
    const dims channel{1, shape[1], 1, 1};
    return {
        op(0, op::kind::Add, {lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, {lt(2, dt::f32, shape)}),
        op(1, op::kind::ReLU, {lt(2, dt::f32, shape)}, {lt(3, dt::f32, shape)}),
        op(2, op::kind::TypeCast, {lt(3, dt::f32, shape)}, {lt(6, dt::bf16, shape)}),
        op(3, op::kind::Multiply, {lt(3, dt::f32, shape), lt(4, dt::f32, channel)}, {lt(5, dt::f32, shape)}),
        op(4, op::kind::End, {lt(2, dt::f32, shape)}, {}),
    };
}

graph build(const std::vector<op> &ops) {
    graph g(engine::kind::cpu);
    for (const op &o : ops) g.add_op(o);
    g.finalize();
    return g;
}

// Compiles the graph's first partition with outputs laid out as `layouts`
// gives (by tensor id; absent: any), executes it with each output `shift`
// elements past an aligned address, and compares every output port with the
// reference.
void expect_outputs_match(const std::vector<op> &ops, std::map<size_t, std::shared_ptr<buffer>> inputs,
                          const std::map<size_t, dims> &layouts, int64_t shift, size_t n_outputs) {
    graph g = build(ops);
    const auto parts = g.get_partitions();
    ASSERT_TRUE(parts.at(0).is_supported());
    ASSERT_EQ(parts[0].get_output_ports().size(), n_outputs);
    auto ref = inputs;
    reference_graph(ops, ref);
    const engine eng(engine::kind::cpu);
    std::vector<lt> ins, outs;
    std::vector<tensor> in_t, out_t;
    for (const auto &port : parts[0].get_input_ports()) {
        ins.push_back(inputs.at(port.get_id())->lt);
        in_t.emplace_back(ins.back(), eng, inputs.at(port.get_id())->data());
    }
    for (const auto &port : parts[0].get_output_ports()) {
        auto it = layouts.find(port.get_id());
        outs.push_back(it == layouts.end() ? lt(port.get_id(), port.get_data_type(), any)
                                           : lt(port.get_id(), port.get_data_type(), port.get_dims(), it->second));
    }
    compiled_partition cp = parts[0].compile(ins, outs, eng);
    std::vector<std::vector<unsigned char, aligned_allocator<unsigned char>>> storage;
    std::vector<buffer> got;
    for (const auto &o : outs) {
        const lt port = cp.query_logical_tensor(o.get_id());
        if (layouts.count(o.get_id())) {
            EXPECT_EQ(port.get_strides(), layouts.at(o.get_id()));
        }
        got.emplace_back(port);
        storage.emplace_back(port.get_mem_size() + 64 + 8 * static_cast<size_t>(shift), 0xCD);
        out_t.emplace_back(port, eng,
                           storage.back().data() + shift * static_cast<int64_t>(data_type_size(port.get_data_type())));
    }
    stream s(eng);
    cp.execute(s, in_t, out_t);
    for (size_t k = 0; k < got.size(); ++k) {
        const size_t es = data_type_size(got[k].lt.get_data_type());
        std::memcpy(got[k].data(), storage[k].data() + shift * static_cast<int64_t>(es), got[k].lt.get_mem_size());
        EXPECT_TRUE(same_elements(*ref.at(got[k].lt.get_id()), got[k])) << "output " << got[k].lt.get_id();
    }
}

// Buffers for `tensors`, by id, filled at random from `seed`.
std::map<size_t, std::shared_ptr<buffer>> filled(const std::vector<lt> &tensors, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::map<size_t, std::shared_ptr<buffer>> in;
    for (const lt &t : tensors) fill(*(in[t.get_id()] = std::make_shared<buffer>(t)), rng);
    return in;
}

std::map<size_t, std::shared_ptr<buffer>> residual_inputs(const dims &shape, uint64_t seed) {
    return filled({lt(0, dt::f32, shape), lt(1, dt::f32, shape), lt(4, dt::f32, dims{1, shape[1], 1, 1})}, seed);
}

TEST(multi_output, residual_outputs_in_every_layout_match_the_reference) {
    // Small (inline, cached stores) and large (streaming, several threads)
    // iteration spaces; each output dense, channels-last or left to fusebox;
    // output handles 16-byte aligned or one element past that.
    for (const dims &shape : {dims{2, 3, 5, 7}, dims{2, 64, 128, 136}}) {
        const auto inputs = residual_inputs(shape, 7);
        const dims nchw = strides_in_order(shape, {0, 1, 2, 3}), nhwc = strides_in_order(shape, {0, 2, 3, 1});
        for (const auto &layouts : std::vector<std::map<size_t, dims>>{
                 {}, {{5, nchw}, {2, nhwc}, {6, nchw}}, {{5, nhwc}, {2, nchw}, {6, nhwc}}})
            for (int64_t shift : {0, 1}) {
                SCOPED_TRACE(std::to_string(numel(shape)) + " elements, " + std::to_string(layouts.size()) +
                             " layouts given, shift " + std::to_string(shift));
                expect_outputs_match(residual_ops(shape), inputs, layouts, shift, 3);
            }
    }
}

TEST(multi_output, ports_are_the_last_ops_then_the_others_and_any_is_dense_like_the_main_output) {
    const dims shape{2, 3, 4, 5};
    graph g = build(residual_ops(shape));
    const auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 2u); // the four ops, then the End
    std::vector<size_t> ids;
    for (const auto &port : parts[0].get_output_ports()) ids.push_back(port.get_id());
    EXPECT_EQ(ids, (std::vector<size_t>{5, 2, 6}));
    const engine eng(engine::kind::cpu);
    const auto inputs = residual_inputs(shape, 8);
    const dims nhwc = strides_in_order(shape, {0, 2, 3, 1});
    compiled_partition cp =
        parts[0].compile({lt(0, dt::f32, shape, nhwc), lt(1, dt::f32, shape, nhwc), inputs.at(4)->lt},
                         {lt(5, dt::f32, any), lt(2, dt::f32, any), lt(6, dt::bf16, any)}, eng);
    for (size_t id : {5, 2, 6}) EXPECT_EQ(cp.query_logical_tensor(id).get_strides(), nhwc) << "tensor " << id;
    EXPECT_EQ(cp.query_logical_tensor(6).get_data_type(), dt::bf16);
}

TEST(multi_output, a_broadcast_subexpression_computed_once_beside_a_second_output) {
    // u = m * k over [8,1,1,128] is hoisted; s = scores + u also leaves.
    const dims scores{8, 12, 16, 128}, mask{8, 1, 1, 128};
    std::vector<op> ops = {
        op(0, op::kind::Multiply, {lt(1, dt::f32, mask), lt(2, dt::f32, mask)}, {lt(10, dt::f32, mask)}),
        op(1, op::kind::Add, {lt(0, dt::f32, scores), lt(10, dt::f32, mask)}, {lt(11, dt::f32, scores)}),
        op(2, op::kind::ReLU, {lt(11, dt::f32, scores)}, {lt(12, dt::f32, scores)}),
        op(3, op::kind::End, {lt(11, dt::f32, scores)}, {}),
    };
    expect_outputs_match(ops, filled({lt(0, dt::f32, scores), lt(1, dt::f32, mask), lt(2, dt::f32, mask)}, 9), {}, 0,
                         2);
}

TEST(multi_output, several_sinks_of_mixed_types) {
    // t2 = t0 - t1 feeds an Equal (boolean) and a Multiply by itself (s32):
    // both outputs leave, no other op reads them.
    const dims shape{3, 1000};
    std::vector<op> ops = {
        op(0, op::kind::Subtract, {lt(0, dt::s32, shape), lt(1, dt::s32, shape)}, {lt(2, dt::s32, shape)}),
        op(1, op::kind::Equal, {lt(2, dt::s32, shape), lt(1, dt::s32, shape)}, {lt(3, dt::boolean, shape)}),
        op(2, op::kind::Multiply, {lt(2, dt::s32, shape), lt(2, dt::s32, shape)}, {lt(4, dt::s32, shape)}),
    };
    const auto in = filled({lt(0, dt::s32, shape), lt(1, dt::s32, shape)}, 10);
    expect_outputs_match(ops, in, {}, 0, 2);
    expect_outputs_match(ops, in, {}, 1, 2);
}

TEST(multi_output, in_place_main_output_beside_a_second_output) {
    const dims shape{64, 1024};
    std::vector<op> ops = {
        op(0, op::kind::Add, {lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, {lt(2, dt::f32, shape)}),
        op(1, op::kind::Multiply, {lt(2, dt::f32, shape), lt(0, dt::f32, shape)}, {lt(3, dt::f32, shape)}),
        op(2, op::kind::End, {lt(2, dt::f32, shape)}, {}),
    };
    auto in = filled({lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, 11);
    auto ref = in;
    reference_graph(ops, ref);
    graph g = build(ops);
    const auto part = g.get_partitions().at(0);
    const engine eng(engine::kind::cpu);
    compiled_partition cp = part.compile({in[0]->lt, in[1]->lt}, {lt(3, dt::f32, any), lt(2, dt::f32, any)}, eng);
    const auto pairs = cp.query_inplace_ports();
    ASSERT_NE(std::find(pairs.begin(), pairs.end(), std::make_pair(size_t{0}, size_t{3})), pairs.end());
    buffer side(cp.query_logical_tensor(2)), x = *in[0];
    stream s(eng);
    cp.execute(s, {tensor(in[0]->lt, eng, x.data()), tensor(in[1]->lt, eng, in[1]->data())},
               {tensor(cp.query_logical_tensor(3), eng, x.data()), tensor(side.lt, eng, side.data())});
    buffer main(cp.query_logical_tensor(3));
    std::memcpy(main.data(), x.data(), main.lt.get_mem_size());
    EXPECT_TRUE(same_elements(*ref.at(3), main));
    EXPECT_TRUE(same_elements(*ref.at(2), side));
}

TEST(multi_output, symbolic_dims_compile_for_the_shapes_given) {
    // A batch dim unknown until compile: ReLU(t) has t's shape whatever it is.
    const dims q{-1, 3, 64};
    std::vector<op> ops = {
        op(0, op::kind::Add, {lt(0, dt::f32, q), lt(1, dt::f32, q)}, {lt(2, dt::f32, q)}),
        op(1, op::kind::ReLU, {lt(2, dt::f32, q)}, {lt(3, dt::f32, q)}),
        op(2, op::kind::End, {lt(2, dt::f32, q)}, {}),
    };
    graph g = build(ops);
    const auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 2u);
    ASSERT_EQ(parts[0].get_output_ports().size(), 2u);
    for (int64_t batch : {1, 5}) {
        const dims shape{batch, 3, 64};
        auto in = filled({lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, 13);
        std::vector<op> concrete = {
            op(0, op::kind::Add, {in[0]->lt, in[1]->lt}, {lt(2, dt::f32, shape)}),
            op(1, op::kind::ReLU, {lt(2, dt::f32, shape)}, {lt(3, dt::f32, shape)}),
        };
        auto ref = in;
        reference_graph(concrete, ref);
        const engine eng(engine::kind::cpu);
        compiled_partition cp =
            parts[0].compile({in[0]->lt, in[1]->lt}, {lt(3, dt::f32, any), lt(2, dt::f32, any)}, eng);
        buffer main(cp.query_logical_tensor(3)), side(cp.query_logical_tensor(2));
        EXPECT_EQ(main.lt.get_dims(), shape);
        stream s(eng);
        cp.execute(s, {tensor(in[0]->lt, eng, in[0]->data()), tensor(in[1]->lt, eng, in[1]->data())},
                   {tensor(main.lt, eng, main.data()), tensor(side.lt, eng, side.data())});
        EXPECT_TRUE(same_elements(*ref.at(3), main)) << "batch " << batch;
        EXPECT_TRUE(same_elements(*ref.at(2), side)) << "batch " << batch;
    }
}

TEST(multi_output, execute_rejects_outputs_that_share_memory_and_wrong_counts) {
    const dims shape{2, 3, 4, 4};
    graph g = build(residual_ops(shape));
    const auto part = g.get_partitions().at(0);
    const engine eng(engine::kind::cpu);
    const auto inputs = residual_inputs(shape, 12);
    compiled_partition cp = part.compile({inputs.at(0)->lt, inputs.at(1)->lt, inputs.at(4)->lt},
                                         {lt(5, dt::f32, any), lt(2, dt::f32, any), lt(6, dt::bf16, any)}, eng);
    std::vector<tensor> in_t;
    for (size_t id : {0, 1, 4}) in_t.emplace_back(inputs.at(id)->lt, eng, inputs.at(id)->data());
    buffer a(cp.query_logical_tensor(5)), b(cp.query_logical_tensor(2)), c(cp.query_logical_tensor(6));
    const auto before = b.bytes;
    stream s(eng);
    expect_error(
        [&] {
            cp.execute(s, in_t,
                       {tensor(a.lt, eng, a.data()), tensor(b.lt, eng, b.data()), tensor(c.lt, eng, a.data())});
        },
        status::invalid_arguments, "output tensors 5 and 6 share memory");
    EXPECT_EQ(b.bytes, before); // nothing written
    expect_error([&] { cp.execute(s, in_t, {tensor(a.lt, eng, a.data())}); }, status::invalid_arguments,
                 "takes 3 inputs and 3 outputs, got 3 and 1");
}

} // namespace
