// Regression tests for what adversarial review and fuzzing found: every
// misuse is a fusebox::error, no arithmetic overflows, no exception of
// another type leaves the library. (Run under the sanitizer presets too.)
#include <gtest/gtest.h>

#include <cstdint>

#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;

partition single(const op &o) {
    graph g(engine::kind::cpu);
    g.add_op(o);
    g.finalize();
    return g.get_partitions().at(0);
}

// F1: a memory descriptor oneDNN refuses (overlapping input strides) on the
// oneDNN-sized path: compile falls back to native, never throws dnnl::error.
TEST(hardening, onednn_refusing_a_layout_falls_back) {
    kernel_env env(nullptr);
    buffer a(lt(0, dt::f32, {64, 64, 64}, dims{6, 3, 3})), b(lt(1, dt::f32, {64, 64, 64}));
    std::mt19937_64 rng(5);
    fill(a, rng);
    fill(b, rng);
    std::string impl;
    buffer got = run_single(binary_op(op::kind::Add, a.lt, b.lt), a, b, &impl);
    EXPECT_EQ(impl.rfind("native", 0), 0u) << impl;
    buffer want(got.lt);
    ref_binary(op::kind::Add, a, b, want);
    EXPECT_TRUE(same_elements(want, got));
}

// F2: a legacy axis so large that axis + rank overflowed.
TEST(hardening, legacy_axis_at_the_limits_of_int64) {
    for (int64_t axis : {INT64_MAX, INT64_MIN, INT64_MAX - 1, int64_t{-5}, int64_t{4}}) {
        SCOPED_TRACE(axis);
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {2, 3, 4, 5}), lt(1, dt::f32, {4, 5})},
                    {lt(2, dt::undef, lt::layout_type::any)})
                     .set_attr(op::attr::broadcast, int64_t{1})
                     .set_attr(op::attr::axis, axis));
        expect_error([&] { g.finalize(); }, status::invalid_shape, "leaves no room for B's 2 dims in A's 4");
    }
}

// F5: data handles must be aligned to their element type.
TEST(hardening, misaligned_data_handles_are_refused) {
    partition p = single(op(0, op::kind::Add, {lt(0, dt::f32, {8}), lt(1, dt::f32, {8})}, {lt(2, dt::f32, {8})}));
    const engine eng(engine::kind::cpu);
    auto cp = p.compile(p.get_input_ports(), p.get_output_ports(), eng);
    alignas(16) unsigned char bytes[3 * 40] = {};
    alignas(16) float out[9];
    for (float &v : out) v = 3.f;
    stream s(eng);
    expect_error(
        [&] {
            cp.execute(s, {tensor(lt(0, dt::f32, {8}), eng, bytes + 1), tensor(lt(1, dt::f32, {8}), eng, bytes + 40)},
                       {tensor(lt(2, dt::f32, {8}), eng, out)});
        },
        status::invalid_arguments, "is not aligned to 4 bytes as f32 elements need");
    expect_error(
        [&] {
            cp.execute(s, {tensor(lt(0, dt::f32, {8}), eng, bytes), tensor(lt(1, dt::f32, {8}), eng, bytes + 40)},
                       {tensor(lt(2, dt::f32, {8}), eng, reinterpret_cast<unsigned char *>(out) + 2)});
        },
        status::invalid_arguments, "output tensor id 2");
    for (float v : out) EXPECT_EQ(v, 3.f);
    // One-byte types have no constraint.
    partition q = single(op(0, op::kind::Add, {lt(0, dt::u8, {8}), lt(1, dt::u8, {8})}, {lt(2, dt::u8, {8})}));
    auto cq = q.compile(q.get_input_ports(), q.get_output_ports(), eng);
    EXPECT_NO_THROW(
        cq.execute(s, {tensor(lt(0, dt::u8, {8}), eng, bytes + 1), tensor(lt(1, dt::u8, {8}), eng, bytes + 11)},
                   {tensor(lt(2, dt::u8, {8}), eng, bytes + 21)}));
}

// F6: strides whose products overflow when dims are merged.
TEST(hardening, huge_strides_do_not_overflow_when_merging_dims) {
    partition p = single(op(0, op::kind::Add, {lt(0, dt::u8, {2, 2}), lt(1, dt::u8, {2, 2})}, {lt(2, dt::u8, {2, 2})}));
    const engine eng(engine::kind::cpu);
    EXPECT_NO_THROW(p.compile({lt(0, dt::u8, {2, 2}, dims{1, int64_t{1} << 62}), lt(1, dt::u8, {2, 2})},
                              {lt(2, dt::undef, lt::layout_type::any)}, eng));
    expect_error(
        [&] {
            p.compile({lt(0, dt::u8, {2, 2}, dims{INT64_MAX, INT64_MAX}), lt(1, dt::u8, {2, 2})},
                      {lt(2, dt::undef, lt::layout_type::any)}, eng);
        },
        status::invalid_shape, "too large to address");
}

// Fuzz finding: a bf16 tensor of INT64_MAX elements spans 2^64 - 2 bytes, which
// fits size_t but no signed byte offset (oneDNN's chunking overflowed on it).
TEST(hardening, byte_spans_beyond_int64_are_too_large_to_address) {
    const dims shape{INT64_MAX};
    for (auto kind : {op::kind::Equal, op::kind::Add}) {
        const auto out_dt = kind == op::kind::Equal ? dt::boolean : dt::bf16;
        partition p = single(op(0, kind, {lt(0, dt::bf16, shape), lt(0, dt::bf16, shape)}, {lt(1, out_dt, shape)}));
        const engine eng(engine::kind::cpu);
        expect_error([&] { p.compile(p.get_input_ports(), p.get_output_ports(), eng); }, status::invalid_shape,
                     "too large to address");
    }
}

// F7: zero-size shapes whose other dims would overflow an element count.
TEST(hardening, zero_size_shapes_with_huge_dims) {
    const dims shape{INT64_MAX, INT64_MAX, 0};
    partition p = single(
        op(0, op::kind::Add, {lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, {lt(2, dt::undef, lt::layout_type::any)}));
    const engine eng(engine::kind::cpu);
    auto cp = p.compile({lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, {lt(2, dt::undef, lt::layout_type::any)}, eng);
    EXPECT_EQ(cp.query_logical_tensor(2).get_mem_size(), 0u);
    stream s(eng);
    EXPECT_NO_THROW(
        cp.execute(s, {tensor(lt(0, dt::f32, shape), eng, nullptr), tensor(lt(1, dt::f32, shape), eng, nullptr)},
                   {tensor(cp.query_logical_tensor(2), eng, nullptr)}));
}

// F8: enumerator values that are no enumerators are refused where they enter.
TEST(hardening, out_of_range_enumerators) {
    expect_error([] { lt(0, static_cast<dt>(0x7f), dims{2}); }, status::invalid_arguments, "data type value 127");
    expect_error([] { lt(0, dt::f32, dims{2}, static_cast<lt::layout_type>(-1)); }, status::invalid_arguments,
                 "layout type value -1");
    expect_error([] { lt(0, dt::f32, dims{2}, lt::layout_type::strided, static_cast<lt::property_type>(7)); },
                 status::invalid_arguments, "property type value 7");
    graph g(engine::kind::cpu);
    expect_error([&] { g.get_partitions(static_cast<partition::policy>(0)); }, status::invalid_graph, "not finalized");
    g.finalize();
    expect_error([&] { g.get_partitions(static_cast<partition::policy>(0)); }, status::invalid_arguments,
                 "policy value 0");
    expect_error([] { stream(engine(engine::kind::cpu), static_cast<stream::flags>(8)); }, status::invalid_arguments,
                 "unknown flags 8");
}

TEST(hardening, ranks_beyond_64_are_refused) {
    expect_error([] { lt(0, dt::f32, dims(65, 1)); }, status::invalid_shape, "rank 65 exceeds 64");
    expect_error([] { lt(0, dt::f32, 1 << 30, lt::layout_type::any); }, status::invalid_shape, "ndims 1073741824");
    EXPECT_NO_THROW(lt(0, dt::f32, dims(64, 1)));
}

// An output that is addressable while the bytes of all its operands together
// are not (two broadcast f64 vectors, a 2^62-element boolean output): the
// kernel choice and its reason saturate instead of overflowing.
TEST(hardening, operand_bytes_beyond_int64_at_compile) {
    const engine eng(engine::kind::cpu);
    const int64_t n = int64_t{1} << 31;
    const lt a(0, dt::f64, {n, 1}), b(1, dt::f64, {1, n});
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Equal, {a, b}, {lt(2, dt::boolean, lt::layout_type::any)}));
    g.finalize();
    auto part = g.get_partitions().at(0);
    compiled_partition cp = part.compile({a, b}, {lt(2, dt::boolean, lt::layout_type::any)}, eng);
    EXPECT_EQ(cp.query_logical_tensor(2).get_mem_size(), size_t{1} << 62);
    EXPECT_EQ(cp.get_impl_info().rfind("native", 0), 0u);
}

} // namespace
