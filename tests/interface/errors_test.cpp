// Every misuse gets a fusebox::error with the right status and a message that
// names what is wrong; nothing is written to outputs on error.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

lt f32(size_t id, dims d) { return lt(id, dt::f32, d); }
lt out(size_t id) { return lt(id, dt::undef, lt::layout_type::any); }

TEST(errors, unknown_op_kind) {
    graph g(engine::kind::cpu);
    expect_error(
        [&] {
            g.add_op(op(7, static_cast<op::kind>(9999), {f32(0, {1}), f32(1, {1})}, {out(2)}));
        },
        status::unimplemented, "op 7 (unknown): unknown op kind 9999");
}

TEST(errors, wrong_arity) {
    graph g(engine::kind::cpu);
    expect_error([&] { g.add_op(op(3, op::kind::Add, {f32(0, {1})}, {out(2)})); }, status::invalid_arguments,
                 "op 3 (Add): expects 2 inputs and 1 outputs, got 1 and 1");
    expect_error([&] { g.add_op(op(4, op::kind::End, {f32(0, {1})}, {out(2)})); }, status::invalid_arguments,
                 "op 4 (End): expects 1 inputs and 0 outputs");
}

TEST(errors, bad_type_combinations) {
    graph g(engine::kind::cpu);
    expect_error(
        [&] {
            g.add_op(op(1, op::kind::Add, {lt(0, dt::s32, {2}), f32(1, {2})}, {out(2)}));
        },
        status::invalid_data_type, "op 1 (Add): input types (s32, f32) are not supported");
    expect_error(
        [&] {
            g.add_op(op(2, op::kind::Add, {lt(0, dt::boolean, {2}), lt(1, dt::boolean, {2})}, {out(2)}));
        },
        status::invalid_data_type, "input types (boolean, boolean)");
    expect_error(
        [&] {
            g.add_op(op(3, op::kind::Add, {lt(0, dt::bf16, {2}), lt(1, dt::f16, {2})}, {out(2)}));
        },
        status::invalid_data_type, "input types (bf16, f16)");
    expect_error(
        [&] {
            g.add_op(op(4, op::kind::Equal, {f32(0, {2}), f32(1, {2})}, {lt(2, dt::f32, {2})}));
        },
        status::invalid_data_type, "op 4 (Equal): output type f32 does not match boolean");
    expect_error(
        [&] {
            g.add_op(op(5, op::kind::Add, {f32(0, {2}), lt(1, dt::bf16, {2})}, {lt(2, dt::bf16, {2})}));
        },
        status::invalid_data_type, "output type bf16 does not match f32");
}

TEST(errors, bad_attributes) {
    graph g(engine::kind::cpu);
    auto add = [] { return op(9, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}); };
    expect_error([&] { g.add_op(add().set_attr(op::attr::auto_broadcast, std::string("bidirectional"))); },
                 status::invalid_arguments, "op 9 (Add): auto_broadcast must be \"numpy\" or \"none\"");
    expect_error([&] { g.add_op(add().set_attr(op::attr::auto_broadcast, int64_t{1})); }, status::invalid_arguments,
                 "attribute auto_broadcast must be a string");
    expect_error([&] { g.add_op(add().set_attr(op::attr::broadcast, int64_t{2})); }, status::invalid_arguments,
                 "broadcast must be 0 or 1, got 2");
    expect_error(
        [&] {
            g.add_op(add()
                         .set_attr(op::attr::broadcast, int64_t{1})
                         .set_attr(op::attr::auto_broadcast, std::string("numpy")));
        },
        status::invalid_arguments, "cannot both be set");
    expect_error([&] { g.add_op(add().set_attr(op::attr::axis, int64_t{0})); }, status::invalid_arguments,
                 "axis requires broadcast=1");
    expect_error(
        [&] {
            g.add_op(op(9, op::kind::Equal, {f32(0, {2}), f32(1, {2})}, {out(2)})
                         .set_attr(op::attr::consumed_inputs, std::vector<int64_t>{0}));
        },
        status::invalid_arguments, "consumed_inputs (ONNX opset 1) is not an attribute of Equal");
    // Accepted and ignored on Add.
    EXPECT_NO_THROW(g.add_op(add().set_attr(op::attr::consumed_inputs, std::vector<int64_t>{0, 0})));
}

TEST(errors, incompatible_shapes_at_finalize) {
    graph g(engine::kind::cpu);
    g.add_op(op(5, op::kind::Add, {f32(0, {2, 3}), f32(1, {4})}, {out(2)}));
    expect_error([&] { g.finalize(); }, status::invalid_shape,
                 "op 5 (Add): input shapes [2,3] and [4] are not broadcast-compatible");
}

TEST(errors, graph_misuse) {
    graph g(engine::kind::cpu);
    expect_error([&] { g.get_partitions(); }, status::invalid_graph, "graph is not finalized");
    g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}));
    expect_error(
        [&] {
            g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(3)}));
        },
        status::invalid_graph, "op 1 (Add): op id is already in the graph");
    g.finalize();
    expect_error(
        [&] {
            g.add_op(op(2, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(3)}));
        },
        status::invalid_graph, "graph is already finalized");
}

TEST(errors, tensor_id_reused_with_another_descriptor) {
    {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}));
        g.add_op(op(2, op::kind::Add, {lt(0, dt::bf16, {2}), lt(1, dt::bf16, {2})}, {out(3)}));
        expect_error([&] { g.finalize(); }, status::invalid_graph, "tensor id 0 is used with another data type");
    }
    {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}));
        g.add_op(op(2, op::kind::Add, {f32(0, {3}), f32(1, {2})}, {out(3)}));
        expect_error([&] { g.finalize(); }, status::invalid_graph,
                     "tensor id 0 is used with another extent of dim 0: 3 vs 2 (f32[3] here, f32[2] elsewhere)");
    }
    {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}));
        g.add_op(op(2, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}));
        expect_error([&] { g.finalize(); }, status::invalid_graph,
                     "tensor id 2 is produced by both op 1 (Add) and op 2 (Add)");
    }
    {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(3, {2})}, {f32(2, {2})}));
        g.add_op(op(2, op::kind::Add, {f32(2, {2}), f32(1, {2})}, {f32(3, {2})}));
        expect_error([&] { g.finalize(); }, status::invalid_graph, "graph has a cycle");
    }
    {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {lt(0, dt::undef, {2}), f32(1, {2})}, {out(2)}));
        expect_error([&] { g.finalize(); }, status::invalid_data_type, "input tensor 0 has no data type");
    }
}

class compiled_fixture : public ::testing::Test {
protected:
    void SetUp() override {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {f32(0, {2, 3}), f32(1, {3})}, {out(2)}));
        g.finalize();
        part = g.get_partitions()[0];
        cp = part.compile(part.get_input_ports(), part.get_output_ports(), eng);
    }
    const engine eng{engine::kind::cpu};
    stream strm{eng};
    partition part;
    compiled_partition cp;
    std::vector<float> a = std::vector<float>(6, 1.f), b = std::vector<float>(3, 2.f), o = std::vector<float>(6, -7.f);
    void expect_output_untouched() {
        for (float v : o) EXPECT_EQ(v, -7.f);
    }
};

TEST_F(compiled_fixture, compile_rejects_mismatched_inputs) {
    expect_error(
        [&] {
            part.compile({f32(0, {2, 3})}, part.get_output_ports(), eng);
        },
        status::invalid_arguments, "compile: partition 0 has 2 inputs and 1 outputs, got 1 and 1");
    expect_error(
        [&] {
            part.compile({f32(0, {2, 3}), f32(5, {3})}, part.get_output_ports(), eng);
        },
        status::invalid_arguments, "no logical tensor given for input tensor id 1");
    expect_error(
        [&] {
            part.compile({lt(0, dt::bf16, {2, 3}), f32(1, {3})}, part.get_output_ports(), eng);
        },
        status::invalid_data_type, "input tensor 0 has type bf16, the partition expects f32");
    expect_error(
        [&] {
            part.compile({f32(0, {2, 4}), f32(1, {3})}, part.get_output_ports(), eng);
        },
        status::invalid_shape, "input tensor 0 has shape [2,4], the partition expects [2,3]");
    expect_error(
        [&] {
            part.compile({f32(0, {2, 3}), f32(1, {3})}, {f32(2, {3, 3})}, eng);
        },
        status::invalid_shape, "output tensor 2 has shape [3,3], the partition produces [2,3]");
    expect_error(
        [&] {
            part.compile({f32(0, {2, 3}), f32(1, {3})}, {lt(2, dt::f32, {2, 3}, {0, 1})}, eng);
        },
        status::invalid_arguments, "output tensor 2 has strides [0,1] for shape [2,3] under which elements overlap");
}

TEST_F(compiled_fixture, compile_rejects_shapes_too_large_to_address) {
    graph g(engine::kind::cpu);
    const int64_t huge = int64_t{1} << 40;
    g.add_op(op(1, op::kind::Add, {f32(0, {huge, huge}), f32(1, {1})}, {out(2)}));
    g.finalize();
    auto p = g.get_partitions()[0];
    expect_error([&] { p.compile(p.get_input_ports(), p.get_output_ports(), eng); }, status::invalid_shape,
                 "input tensor 0 of shape [1099511627776,1099511627776] is too large to address");
    EXPECT_EQ(f32(0, {huge, huge}).get_mem_size(), 0u);
}

TEST_F(compiled_fixture, a_cache_hit_still_checks_the_partition_ports) {
    // Same ops, ids and types; the second graph declares another port shape.
    for (int64_t rows : {-1, 2}) {
        graph g(engine::kind::cpu);
        g.add_op(op(1, op::kind::Add, {f32(0, {rows, 3}), f32(1, {rows, 3})}, {out(2)}));
        g.finalize();
        auto p = g.get_partitions()[0];
        auto compile = [&] { p.compile({f32(0, {5, 3}), f32(1, {5, 3})}, {out(2)}, eng); };
        if (rows < 0)
            compile();
        else
            expect_error(compile, status::invalid_shape, "input tensor 0 has shape [5,3], the partition expects [2,3]");
    }
}

TEST(errors, zero_size_partitions_compile_and_run_whatever_the_kernel_choice) {
    for (const char *mode : {"onednn", "native", "auto"}) {
        kernel_env env(mode);
        buffer a(lt(0, dt::f32, {0, 5})), b(lt(1, dt::f32, {1, 5}));
        buffer got = run_single(binary_op(op::kind::Add, a.lt, b.lt), a, b);
        EXPECT_EQ(got.lt.get_dims(), (dims{0, 5})) << mode;
    }
}

TEST_F(compiled_fixture, compile_needs_known_input_shapes) {
    graph g(engine::kind::cpu);
    g.add_op(op(1, op::kind::Add, {f32(0, {-1, 3}), f32(1, {3})}, {out(2)}));
    g.finalize();
    auto p = g.get_partitions()[0];
    expect_error([&] { p.compile(p.get_input_ports(), p.get_output_ports(), eng); }, status::invalid_shape,
                 "input tensor 0 has unknown shape [?,3]");
}

TEST_F(compiled_fixture, execute_rejects_null_handles_without_writing) {
    auto lin = part.get_input_ports();
    expect_error(
        [&] {
            cp.execute(strm, {tensor(lin[0], eng, a.data()), tensor(lin[1], eng, nullptr)},
                       {tensor(cp.query_logical_tensor(2), eng, o.data())});
        },
        status::invalid_arguments, "input tensor id 1 has a null data handle");
    expect_error(
        [&] {
            cp.execute(strm, {tensor(lin[0], eng, a.data()), tensor(lin[1], eng, b.data())},
                       {tensor(cp.query_logical_tensor(2), eng, nullptr)});
        },
        status::invalid_arguments, "output tensor id 2 has a null data handle");
    expect_output_untouched();
}

TEST_F(compiled_fixture, execute_rejects_wrong_tensors_without_writing) {
    auto lin = part.get_input_ports();
    const lt o_lt = cp.query_logical_tensor(2);
    expect_error([&] { cp.execute(strm, {tensor(lin[0], eng, a.data())}, {tensor(o_lt, eng, o.data())}); },
                 status::invalid_arguments, "takes 2 inputs and 1 output, got 1 and 1");
    expect_error(
        [&] {
            cp.execute(strm, {tensor(lin[0], eng, a.data()), tensor(f32(1, {4}), eng, b.data())},
                       {tensor(o_lt, eng, o.data())});
        },
        status::invalid_arguments, "input tensor id 1 is f32[4] strides [1] but was compiled as f32[3]");
    expect_error(
        [&] {
            cp.execute(strm, {tensor(lin[0], eng, a.data()), tensor(f32(8, {3}), eng, b.data())},
                       {tensor(o_lt, eng, o.data())});
        },
        status::invalid_arguments, "no tensor given for input tensor id 1");
    expect_error(
        [&] {
            cp.execute(strm, {tensor(lin[0], eng, a.data()), tensor(lin[1], eng, b.data())},
                       {tensor(lt(2, dt::f32, {2, 3}, {1, 2}), eng, o.data())});
        },
        status::invalid_arguments, "output tensor id 2 is f32[2,3] strides [1,2]");
    expect_output_untouched();
    // And the same call with correct tensors does write.
    cp.execute(strm, {tensor(lin[0], eng, a.data()), tensor(lin[1], eng, b.data())}, {tensor(o_lt, eng, o.data())});
    for (float v : o) EXPECT_EQ(v, 3.f);
}

TEST_F(compiled_fixture, query_of_unknown_id) {
    expect_error([&] { cp.query_logical_tensor(99); }, status::invalid_arguments, "tensor id 99 is not a port");
}

TEST(errors, bad_engine_and_kernel_choice) {
    expect_error([] { engine e(engine::kind::cpu, 1); }, status::invalid_arguments,
                 "cpu engine index 1 does not exist");
    graph g(engine::kind::cpu);
    g.add_op(op(1, op::kind::Add, {f32(0, {2}), f32(1, {2})}, {out(2)}));
    g.finalize();
    auto p = g.get_partitions()[0];
    kernel_env env("gpu");
    expect_error([&] { p.compile(p.get_input_ports(), p.get_output_ports(), engine(engine::kind::cpu)); },
                 status::invalid_arguments, "FUSEBOX_KERNEL=\"gpu\" is not valid: it must be auto, onednn or native");
}

TEST(errors, forced_onednn_on_a_case_it_cannot_do_exactly) {
    graph g(engine::kind::cpu);
    g.add_op(op(1, op::kind::Add, {lt(0, dt::s32, {4096}), lt(1, dt::s32, {4096})}, {out(2)}));
    g.finalize();
    auto p = g.get_partitions()[0];
    kernel_env env("onednn");
    expect_error([&] { p.compile(p.get_input_ports(), p.get_output_ports(), engine(engine::kind::cpu)); },
                 status::unimplemented, "FUSEBOX_KERNEL=onednn but oneDNN is not exact for Add of s32,s32");
}

} // namespace
