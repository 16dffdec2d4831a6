// The oneDNN Graph spellings behave as oneDNN's do: enumerator values, the
// constructors and methods a oneDNN program uses, the allocator, fpmath mode,
// the compile cache capacity, version and the error type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "compile/compile_cache.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

template <typename F> void expect_status(F &&f, status s, const std::string &fragment) {
    try {
        f();
        ADD_FAILURE() << "no error thrown; expected: " << fragment;
    } catch (const error &e) {
        EXPECT_EQ(e.get_status(), s) << e.what();
        EXPECT_EQ(e.status, static_cast<fusebox_status_t>(s)) << e.what();
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << "message: " << e.what();
    }
}

// oneDNN's C values, so stored values mean the same in both libraries.
static_assert(fusebox_success == 0 && fusebox_out_of_memory == 1 && fusebox_invalid_arguments == 2 &&
              fusebox_unimplemented == 3 && fusebox_last_impl_reached == 4 && fusebox_runtime_error == 5 &&
              fusebox_not_required == 6 && fusebox_invalid_graph == 7 && fusebox_invalid_graph_op == 8 &&
              fusebox_invalid_shape == 9 && fusebox_invalid_data_type == 10);
static_assert(static_cast<int>(status::invalid_shape) == fusebox_invalid_shape);
static_assert(static_cast<int>(dt::undef) == 0 && static_cast<int>(dt::f16) == 1 && static_cast<int>(dt::bf16) == 2 &&
              static_cast<int>(dt::f32) == 3 && static_cast<int>(dt::s32) == 4 && static_cast<int>(dt::s8) == 5 &&
              static_cast<int>(dt::u8) == 6 && static_cast<int>(dt::f64) == 7 && static_cast<int>(dt::boolean) == 8 &&
              static_cast<int>(dt::s64) == 16);
static_assert(static_cast<int>(op::kind::Abs) == 0 && static_cast<int>(op::kind::Add) == 2 &&
              static_cast<int>(op::kind::End) == 25 && static_cast<int>(op::kind::MatMul) == 39 &&
              static_cast<int>(op::kind::ReLU) == 58 && static_cast<int>(op::kind::Wildcard) == 78 &&
              static_cast<int>(op::kind::GreaterEqual) == 85 && static_cast<int>(op::kind::RMSNorm) == 86);
static_assert(static_cast<int>(op::attr::alpha) == 0x1 && static_cast<int>(op::attr::scales) == 0x20 &&
              static_cast<int>(op::attr::axis) == 0x30 && static_cast<int>(op::attr::axes) == 0x40 &&
              static_cast<int>(op::attr::exclude_pad) == 0x60 && static_cast<int>(op::attr::auto_broadcast) == 0x80 &&
              static_cast<int>(op::attr::accumulation_mode) == 0x88);
static_assert(static_cast<int>(fpmath_mode::strict) == 0 && static_cast<int>(fpmath_mode::bf16) == 1 &&
              static_cast<int>(fpmath_mode::f16) == 2 && static_cast<int>(fpmath_mode::any) == 3 &&
              static_cast<int>(fpmath_mode::tf32) == 4);
static_assert(static_cast<int>(lt::layout_type::opaque) == 3 && static_cast<int>(partition::policy::fusion) == 1 &&
              static_cast<int>(partition::policy::debug) == 2 && static_cast<int>(engine::kind::cpu) == 1);
static_assert(FUSEBOX_UNKNOWN_NDIMS == -1 && FUSEBOX_UNKNOWN_DIM == INT64_MIN);
static_assert(std::is_same_v<lt::data_type, data_type> && std::is_same_v<lt::dim, int64_t>);

TEST(onednn_api, logical_tensor_constructors) {
    lt unknown_rank(1, dt::f32, FUSEBOX_UNKNOWN_NDIMS, lt::layout_type::strided);
    EXPECT_EQ(unknown_rank.get_ndims(), -1);
    EXPECT_FALSE(unknown_rank.has_known_shape());
    lt scalar(2, dt::f32, 0, lt::layout_type::strided);
    EXPECT_EQ(scalar.get_ndims(), 0);
    EXPECT_TRUE(scalar.has_known_shape());
    lt rank3(3, dt::f32, 3, lt::layout_type::any, lt::property_type::constant);
    EXPECT_EQ(rank3.get_dims(), (dims{FUSEBOX_UNKNOWN_DIM, FUSEBOX_UNKNOWN_DIM, FUSEBOX_UNKNOWN_DIM}));
    EXPECT_EQ(rank3.get_property_type(), lt::property_type::constant);
    lt mixed(4, dt::f32, {2, FUSEBOX_UNKNOWN_DIM, -1}, lt::layout_type::strided);
    EXPECT_FALSE(mixed.has_known_shape());
    EXPECT_EQ(mixed.get_mem_size(), 0u);
    expect_status([] { lt(5, dt::f32, dims{2, -2}); }, status::invalid_shape, "dim -2");
    expect_status([] { lt(6, static_cast<dt>(0x7f), dims{2}); }, status::invalid_arguments, "data type value 127");
    expect_status([] { lt(7, dt::f32, dims{2}, static_cast<lt::layout_type>(17)); }, status::invalid_arguments,
                  "layout type value 17");
    expect_status([] { lt(8, dt::f32, dims{2}).get_layout_id(); }, status::invalid_arguments, "opaque");
    // As oneDNN: dims need a known rank, strides a strided layout of known rank.
    expect_status([&] { unknown_rank.get_dims(); }, status::invalid_arguments, "known rank");
    expect_status([&] { unknown_rank.get_strides(); }, status::invalid_arguments, "strided layout of known rank");
    expect_status([&] { rank3.get_strides(); }, status::invalid_arguments, "strided layout");
    EXPECT_EQ(lt(9, dt::f32, {2, FUSEBOX_UNKNOWN_DIM}).get_strides(), (dims{FUSEBOX_UNKNOWN_DIM, FUSEBOX_UNKNOWN_DIM}));
    EXPECT_EQ(lt(10, dt::f32, {2, 3}).get_strides(), (dims{3, 1}));
    EXPECT_TRUE(scalar.get_dims().empty());
}

TEST(onednn_api, unknown_dims_in_either_spelling_are_inferred) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {FUSEBOX_UNKNOWN_DIM, 3}), lt(1, dt::f32, {3})},
                {lt(2, dt::f32, FUSEBOX_UNKNOWN_NDIMS, lt::layout_type::strided)}));
    g.finalize();
    const auto p = g.get_partitions().at(0);
    EXPECT_EQ(p.get_output_ports()[0].get_ndims(), 2);
    const engine eng(engine::kind::cpu);
    auto cp =
        p.compile({lt(0, dt::f32, {5, 3}), lt(1, dt::f32, {3})}, {lt(2, dt::f32, 2, lt::layout_type::strided)}, eng);
    EXPECT_EQ(cp.query_logical_tensor(2).get_dims(), (dims{5, 3}));
    EXPECT_EQ(cp.query_logical_tensor(2).get_strides(), (dims{3, 1}));
}

TEST(onednn_api, opaque_layouts_are_refused_at_compile) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4})}));
    g.finalize();
    const auto p = g.get_partitions().at(0);
    const engine eng(engine::kind::cpu);
    expect_status(
        [&] {
            p.compile({lt(0, dt::f32, {4}, lt::layout_type::opaque), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4})}, eng);
        },
        status::invalid_arguments, "input tensor 0 has an opaque layout");
    expect_status(
        [&] {
            p.compile({lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4}, lt::layout_type::opaque)}, eng);
        },
        status::invalid_arguments, "output tensor 2 asks for an opaque layout");
}

TEST(onednn_api, op_construction_and_every_attribute_type) {
    op o(3, op::kind::Wildcard, "custom");
    o.add_inputs({lt(0, dt::f32, {2}), lt(1, dt::f32, {2})}).add_outputs({lt(2, dt::f32, {2})});
    o.set_attr<float>(op::attr::alpha, 0.5f)
        .set_attr<bool>(op::attr::keep_dims, true)
        .set_attr<int64_t>(op::attr::groups, 4)
        .set_attr<std::string>(op::attr::data_format, "NXC")
        .set_attr<std::vector<int64_t>>(op::attr::axes, {0, 1})
        .set_attr<std::vector<float>>(op::attr::scales, {1.5f, 2.f});
    EXPECT_EQ(o.get_name(), "custom");
    EXPECT_EQ(o.get_inputs().size(), 2u);
    EXPECT_EQ(std::get<float>(o.get_attrs().at(op::attr::alpha)), 0.5f);
    EXPECT_TRUE(std::get<bool>(o.get_attrs().at(op::attr::keep_dims)));
    EXPECT_EQ(std::get<std::vector<float>>(o.get_attrs().at(op::attr::scales)), (std::vector<float>{1.5f, 2.f}));
    graph g(engine::kind::cpu);
    EXPECT_EQ(g.add_op(o), status::success);
    // Attribute values must have the attribute's type, on any kind.
    op wrong(4, op::kind::SoftMax, {lt(2, dt::f32, {2})}, {lt(5, dt::f32, {2})});
    wrong.set_attr<int64_t>(op::attr::alpha, 1);
    expect_status([&] { g.add_op(wrong); }, status::invalid_arguments, "attribute alpha must be f32, got s64");
}

TEST(onednn_api, add_op_without_exceptions_returns_the_status) {
    graph g(engine::kind::cpu);
    EXPECT_EQ(g.add_op(op(1, op::kind::Add, {lt(0, dt::f32, {2})}, {lt(2, dt::f32, {2})}), false),
              status::invalid_arguments);
    EXPECT_EQ(g.add_op(op(2, op::kind::MatMul, {lt(0, dt::f32, {2, 2})}, {lt(3, dt::f32, {2, 2})}), false),
              status::invalid_arguments); // MatMul takes 2 or 3 inputs
    EXPECT_EQ(g.add_op(op(3, op::kind::Wildcard, {}, {}), false), status::success);
    EXPECT_EQ(g.add_op(op(3, op::kind::SoftMax, {lt(0, dt::f32, {2})}, {lt(4, dt::f32, {2})}), false),
              status::invalid_graph); // op id 3 is taken
    EXPECT_EQ(g.add_op(op(9, static_cast<op::kind>(4000), {}, {}), false), status::unimplemented);
    expect_status([&] { g.add_op(op(5, op::kind::Concat, {}, {lt(6, dt::f32, {2})})); }, status::invalid_arguments,
                  "op 5 (Concat): expects 1 to 64 inputs and 1 outputs, got 0 and 1");
}

TEST(onednn_api, unsupported_partitions) {
    graph g(engine::kind::cpu, fpmath_mode::strict);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4})}));
    g.add_op(op(1, op::kind::SoftMax, {lt(2, dt::f32, {4})}, {lt(3, dt::undef, lt::layout_type::any)}));
    g.add_op(op(2, op::kind::Add, {lt(3, dt::undef, lt::layout_type::any), lt(1, dt::f32, {4})},
                {lt(4, dt::undef, lt::layout_type::any)}));
    g.add_op(op(3, op::kind::End, {lt(4, dt::undef, lt::layout_type::any)}, {}));
    g.finalize();
    const auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 4u); // the End in an unsupported partition of its own, as in oneDNN
    EXPECT_TRUE(parts[0].is_supported());
    EXPECT_FALSE(parts[1].is_supported());
    EXPECT_EQ(parts[1].get_ops(), std::vector<size_t>{1});
    EXPECT_TRUE(parts[2].is_supported());
    EXPECT_FALSE(parts[3].is_supported());
    EXPECT_EQ(parts[3].get_ops(), std::vector<size_t>{3});
    EXPECT_EQ(parts[3].get_input_ports().size(), 1u);
    EXPECT_TRUE(parts[3].get_output_ports().empty());
    // The SoftMax's output type is unknown until the framework says it at compile.
    EXPECT_EQ(parts[2].get_input_ports()[0].get_data_type(), dt::undef);
    EXPECT_EQ(parts[2].get_output_ports()[0].get_data_type(), dt::undef);
    const engine eng(engine::kind::cpu);
    expect_status([&] { parts[1].compile({lt(2, dt::f32, {4})}, {lt(3, dt::f32, {4})}, eng); },
                  status::invalid_arguments, "holds op 1 (SoftMax), which fusebox does not run");
    auto cp =
        parts[2].compile({lt(3, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(4, dt::undef, lt::layout_type::any)}, eng);
    EXPECT_EQ(cp.query_logical_tensor(4).get_data_type(), dt::f32);
    expect_status(
        [&] {
            parts[2].compile({lt(3, dt::s32, {4}), lt(1, dt::f32, {4})}, {lt(4, dt::undef, lt::layout_type::any)}, eng);
        },
        status::invalid_data_type, "op 2 (Add): input types (s32, f32) are not supported");
}

TEST(onednn_api, partition_from_one_op) {
    partition add(op(0, op::kind::Add, {lt(0, dt::f32, {2, 3}), lt(1, dt::f32, {3})},
                     {lt(2, dt::undef, 2, lt::layout_type::any)}),
                  engine::kind::cpu);
    EXPECT_TRUE(add.is_supported());
    EXPECT_EQ(add.get_engine_kind(), engine::kind::cpu);
    EXPECT_EQ(add.get_output_ports()[0].get_dims(), (dims{2, 3}));
    partition softmax(op(1, op::kind::SoftMax, {lt(0, dt::f32, {2})}, {lt(1, dt::f32, {2})}), engine::kind::cpu);
    EXPECT_FALSE(softmax.is_supported());
    EXPECT_EQ(softmax.get_input_ports().size(), 1u);
    partition end(op(2, op::kind::End, {lt(0, dt::f32, {2})}, {}), engine::kind::cpu);
    EXPECT_FALSE(end.is_supported());
    EXPECT_EQ(end.get_ops(), std::vector<size_t>{2});
    expect_status(
        [] { partition(op(3, op::kind::Add, {lt(0, dt::f32, {2})}, {lt(1, dt::f32, {2})}), engine::kind::cpu); },
        status::invalid_arguments, "expects 2 inputs");
}

TEST(onednn_api, engines_streams_and_tensors) {
    EXPECT_EQ(engine::get_count(engine::kind::cpu), 1u);
    EXPECT_EQ(engine::get_count(engine::kind::gpu), 0u);
    expect_status([] { engine(engine::kind::gpu, 0); }, status::invalid_arguments, "only engine::kind::cpu");
    engine empty;
    EXPECT_FALSE(empty);
    expect_status([&] { stream s(empty); }, status::invalid_arguments, "engine is empty");
    stream no_stream;
    expect_status([&] { no_stream.get_engine(); }, status::invalid_arguments, "stream is empty");

    const engine eng(engine::kind::cpu);
    const lt desc(0, dt::f32, {16});
    tensor owned(desc, eng); // library-allocated
    ASSERT_NE(owned.get_data_handle(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(owned.get_data_handle()) % 64, 0u);
    tensor copy = owned; // a handle: both see the same buffer and handle
    float other[16];
    copy.set_data_handle(other);
    EXPECT_EQ(owned.get_data_handle(), other);
    EXPECT_EQ(owned.get_engine().get_kind(), engine::kind::cpu);
    expect_status([&] { tensor(lt(1, dt::f32, FUSEBOX_UNKNOWN_NDIMS, lt::layout_type::strided), eng); },
                  status::invalid_arguments, "unknown shape");
}

// Counts what fusebox allocates through an engine's allocator, and can fail.
struct counting_allocator {
    static inline int live = 0, total = 0;
    static inline bool fail = false;
    static void *allocate(size_t size, size_t alignment) {
        if (fail) return nullptr;
        void *p = nullptr;
        if (posix_memalign(&p, alignment, size ? size : 1)) return nullptr;
        ++live, ++total;
        return p;
    }
    static void release(void *p) {
        --live;
        std::free(p);
    }
};

class allocator_test : public ::testing::Test {
protected:
    void SetUp() override {
        counting_allocator::live = counting_allocator::total = 0, counting_allocator::fail = false;
    }
    engine eng = make_engine_with_allocator(engine::kind::cpu, 0,
                                            allocator(counting_allocator::allocate, counting_allocator::release));
};

TEST_F(allocator_test, library_allocated_tensors_go_through_it) {
    {
        tensor t(lt(0, dt::f32, {1000}), eng);
        tensor same_buffer = t;
        EXPECT_EQ(counting_allocator::live, 1);
    }
    EXPECT_EQ(counting_allocator::live, 0);
    counting_allocator::fail = true;
    expect_status([&] { tensor(lt(0, dt::f32, {1000}), eng); }, status::out_of_memory, "4000 bytes");
    expect_status([] { allocator(counting_allocator::allocate, nullptr); }, status::invalid_arguments, "both");
}

TEST_F(allocator_test, copies_of_aliased_inputs_go_through_it_and_failure_writes_nothing) {
    // b is a broadcast input inside the output buffer: fusebox reads it from a copy.
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {4, 8}), lt(1, dt::f32, {8})}, {lt(2, dt::f32, {4, 8})}));
    g.finalize();
    auto cp =
        g.get_partitions()[0].compile({lt(0, dt::f32, {4, 8}), lt(1, dt::f32, {8})}, {lt(2, dt::f32, {4, 8})}, eng);
    std::vector<float> a(32, 1.f), out(32);
    for (int i = 0; i < 32; ++i) out[i] = static_cast<float>(i);
    stream s(eng);
    auto run = [&] {
        cp.execute(s, {tensor(lt(0, dt::f32, {4, 8}), eng, a.data()), tensor(lt(1, dt::f32, {8}), eng, out.data() + 8)},
                   {tensor(lt(2, dt::f32, {4, 8}), eng, out.data())});
    };
    counting_allocator::fail = true;
    expect_status(run, status::out_of_memory, "a copy of an input that overlaps an output");
    for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], static_cast<float>(i)) << "element " << i << " was written";
    counting_allocator::fail = false;
    run();
    EXPECT_EQ(counting_allocator::total, 1);
    EXPECT_EQ(counting_allocator::live, 0);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], 1.f + static_cast<float>(8 + i % 8)) << "element " << i;
}

TEST_F(allocator_test, scratch_of_a_large_fused_partition_goes_through_it) {
    // A chain of 80 Adds keeps more intermediates per element than fit on the stack.
    graph g(engine::kind::cpu);
    const dims shape{3, 700};
    for (size_t k = 0; k < 80; ++k)
        g.add_op(op(k, op::kind::Add, {lt(k == 0 ? 1000 : 2000 + k - 1, dt::f32, shape), lt(k, dt::f32, shape)},
                    {lt(2000 + k, dt::f32, shape)}));
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u);
    const auto ins = parts[0].get_input_ports();
    const auto outs = parts[0].get_output_ports();
    auto cp = parts[0].compile(ins, outs, eng);
    std::vector<std::vector<float>> data(ins.size(), std::vector<float>(2100, 0.25f));
    std::vector<float> out(2100, -1.f);
    std::vector<tensor> in_t;
    for (size_t i = 0; i < ins.size(); ++i) in_t.emplace_back(ins[i], eng, data[i].data());
    stream s(eng);
    counting_allocator::fail = true;
    expect_status([&] { cp.execute(s, in_t, {tensor(outs[0], eng, out.data())}); }, status::out_of_memory, "scratch");
    for (float v : out) ASSERT_EQ(v, -1.f);
    counting_allocator::fail = false;
    cp.execute(s, in_t, {tensor(outs[0], eng, out.data())});
    EXPECT_GE(counting_allocator::total, 1);
    EXPECT_EQ(counting_allocator::live, 0);
    for (float v : out) ASSERT_EQ(v, 0.25f * 81);
}

TEST_F(allocator_test, buffers_of_broadcast_subexpressions_go_through_it) {
    // BERT's mask: Mul(Sub(1, mask), -10000) is computed once over the mask's
    // shape, into a buffer from the engine's allocator.
    const dims scores{2, 12, 16, 32}, mask{2, 1, 1, 32};
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Subtract, {lt(0, dt::f32, dims{}), lt(1, dt::f32, mask)}, {lt(10, dt::f32, mask)}));
    g.add_op(op(1, op::kind::Multiply, {lt(10, dt::f32, mask), lt(2, dt::f32, dims{})}, {lt(11, dt::f32, mask)}));
    g.add_op(op(2, op::kind::Add, {lt(3, dt::f32, scores), lt(11, dt::f32, mask)}, {lt(12, dt::f32, scores)}));
    g.finalize();
    auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u);
    const auto ins = parts[0].get_input_ports();
    auto cp = parts[0].compile(ins, {lt(12, dt::f32, scores)}, eng);
    std::vector<float> one{1.f}, big{-10000.f}, m(64), x(12288, 0.5f), out(12288, -1.f);
    for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i % 2);
    std::map<size_t, float *> data{{0, one.data()}, {1, m.data()}, {2, big.data()}, {3, x.data()}};
    std::vector<tensor> in_t;
    for (const auto &port : ins) in_t.emplace_back(port, eng, data.at(port.get_id()));
    stream s(eng);
    counting_allocator::fail = true;
    expect_status([&] { cp.execute(s, in_t, {tensor(lt(12, dt::f32, scores), eng, out.data())}); },
                  status::out_of_memory, "broadcast sub-expressions");
    for (float v : out) ASSERT_EQ(v, -1.f);
    counting_allocator::fail = false;
    cp.execute(s, in_t, {tensor(lt(12, dt::f32, scores), eng, out.data())});
    EXPECT_EQ(counting_allocator::total, 1);
    EXPECT_EQ(counting_allocator::live, 0);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], i % 2 ? 0.5f : 0.5f - 10000.f) << "element " << i;
}

TEST(onednn_api, compiled_partition_cache_capacity) {
    const int before = get_compiled_partition_cache_capacity();
    EXPECT_EQ(before, 1024);
    expect_status([] { set_compiled_partition_cache_capacity(-1); }, status::invalid_arguments, "negative");
    set_compiled_partition_cache_capacity(0);
    EXPECT_EQ(detail::compile_cache_size(), 0u);
    const engine eng(engine::kind::cpu);
    partition p(op(0, op::kind::Add, {lt(0, dt::f32, {7}), lt(1, dt::f32, {7})}, {lt(2, dt::f32, {7})}),
                engine::kind::cpu);
    p.compile(p.get_input_ports(), p.get_output_ports(), eng);
    EXPECT_EQ(detail::compile_cache_size(), 0u); // disabled: nothing kept
    set_compiled_partition_cache_capacity(2);
    for (int64_t n = 1; n <= 3; ++n) p.compile({lt(0, dt::f32, {7}), lt(1, dt::f32, {7})}, {lt(2, dt::f32, {7})}, eng);
    EXPECT_EQ(detail::compile_cache_size(), 1u);
    for (int64_t n = 1; n <= 3; ++n) {
        partition q(op(0, op::kind::Add, {lt(0, dt::f32, {n}), lt(1, dt::f32, {n})}, {lt(2, dt::f32, {n})}),
                    engine::kind::cpu);
        q.compile(q.get_input_ports(), q.get_output_ports(), eng);
    }
    EXPECT_EQ(detail::compile_cache_size(), 2u); // least recently used evicted
    set_compiled_partition_cache_capacity(before);
    EXPECT_EQ(get_compiled_partition_cache_capacity(), before);
}

TEST(onednn_api, globals) {
    const fusebox_version_t *v = fusebox_version();
    EXPECT_EQ(v, version());
    EXPECT_EQ(v->major, FUSEBOX_VERSION_MAJOR);
    EXPECT_EQ(v->minor, FUSEBOX_VERSION_MINOR);
    EXPECT_EQ(v->patch, FUSEBOX_VERSION_PATCH);
    ASSERT_NE(v->hash, nullptr);
    EXPECT_GT(std::strlen(v->hash), 0u);
    EXPECT_EQ(v->cpu_runtime, FUSEBOX_RUNTIME_TBB);
    set_constant_tensor_cache_capacity(engine::kind::cpu, 64);
    EXPECT_EQ(get_constant_tensor_cache_capacity(engine::kind::cpu), 64u);
    EXPECT_EQ(get_constant_tensor_cache(), 1);
    set_constant_tensor_cache(0);
    EXPECT_EQ(get_constant_tensor_cache_capacity(engine::kind::cpu), 0u);
    expect_status([] { get_constant_tensor_cache_capacity(engine::kind::gpu); }, status::invalid_arguments, "cpu");
    EXPECT_EQ(set_dump_mode(static_cast<graph_dump_mode>(8)), status::invalid_arguments);
    EXPECT_EQ(set_dump_mode(graph_dump_mode::none), status::success);
}

TEST(onednn_api, error_is_oneDNNs_shape) {
    error e(fusebox_invalid_shape, "bad dims");
    EXPECT_EQ(e.status, fusebox_invalid_shape);
    EXPECT_EQ(e.get_status(), status::invalid_shape);
    error copy = e;
    EXPECT_STREQ(copy.message, "fusebox: bad dims");
    EXPECT_STREQ(copy.what(), copy.message);
    EXPECT_NO_THROW(error::wrap_c_api(fusebox_success, "fine"));
    EXPECT_THROW(error::wrap_c_api(fusebox_runtime_error, "broken"), error);
}

TEST(onednn_api, fpmath_mode_is_kept_and_validated) {
    graph g(engine::kind::cpu, fpmath_mode::bf16);
    fpmath_mode m;
    bool to_int = true;
    g.get_fpmath_mode(m, to_int);
    EXPECT_EQ(m, fpmath_mode::bf16);
    EXPECT_FALSE(to_int);
    g.set_fpmath_mode(fpmath_mode::any, true);
    g.get_fpmath_mode(m, to_int);
    EXPECT_EQ(m, fpmath_mode::any);
    EXPECT_TRUE(to_int);
    expect_status([] { graph(engine::kind::cpu, static_cast<fpmath_mode>(9)); }, status::invalid_arguments,
                  "fpmath mode value 9");
}

// A bf16 Add whose results include subnormals: strict keeps them exactly; a
// bf16 graph may run it on oneDNN's JIT, which flushes them to zero.
TEST(onednn_api, relaxed_fpmath_lets_onednn_flush_bf16_subnormals) {
    const dims shape{64, 512};
    buffer a(lt(0, dt::bf16, shape)), b(lt(1, dt::bf16, shape));
    auto *x = static_cast<uint16_t *>(a.data()), *y = static_cast<uint16_t *>(b.data());
    for (int64_t i = 0; i < numel(shape); ++i) {
        x[i] = static_cast<uint16_t>(i % 3 == 0 ? 0x0005 : 0x3F80 + i % 7); // subnormal, or ~1
        y[i] = static_cast<uint16_t>(i % 3 == 0 ? 0x0003 : 0x4000);
    }
    buffer want(lt(2, dt::bf16, shape));
    ref_binary(op::kind::Add, a, b, want);
    for (fpmath_mode mode : {fpmath_mode::strict, fpmath_mode::bf16}) {
        SCOPED_TRACE(static_cast<int>(mode));
        graph g(engine::kind::cpu, mode);
        g.add_op(op(0, op::kind::Add, {a.lt, b.lt}, {lt(2, dt::bf16, shape)}));
        g.finalize();
        kernel_env env("onednn");
        const engine eng(engine::kind::cpu);
        auto p = g.get_partitions()[0];
        if (mode == fpmath_mode::strict) {
            expect_status(
                [&] {
                    p.compile({a.lt, b.lt}, {lt(2, dt::bf16, shape)}, eng);
                },
                status::unimplemented, "not exact for Add of bf16,bf16");
            continue;
        }
        compiled_partition cp;
        try {
            cp = p.compile({a.lt, b.lt}, {lt(2, dt::bf16, shape)}, eng);
        } catch (const error &e) {
            GTEST_SKIP() << "this CPU's oneDNN has no JIT bf16 binary: " << e.what();
        }
        EXPECT_EQ(cp.get_impl_info().rfind("onednn:", 0), 0u) << cp.get_impl_info();
        buffer got(cp.query_logical_tensor(2));
        stream s(eng);
        cp.execute(s, {tensor(a.lt, eng, a.data()), tensor(b.lt, eng, b.data())}, {tensor(got.lt, eng, got.data())});
        const auto *r = static_cast<const uint16_t *>(got.data()), *w = static_cast<const uint16_t *>(want.data());
        for (int64_t i = 0; i < numel(shape); ++i) {
            const bool subnormal = (w[i] & 0x7F80) == 0 && (w[i] & 0x7F) != 0;
            if (subnormal)
                EXPECT_TRUE(r[i] == w[i] || (r[i] & 0x7FFF) == 0) << "element " << i;
            else
                EXPECT_EQ(r[i], w[i]) << "element " << i;
        }
    }
}

} // namespace
