// The C API: every function, its error statuses and messages, and an execute
// whose results are checked. (examples/c_api.c compiles the header as C11.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "fusebox/fusebox.h"

namespace {

#define OK(call) ASSERT_EQ((call), fusebox_success) << fusebox_get_last_error_message()

// Expects `s` from the last call and a message containing `fragment`.
void expect_failure(fusebox_status_t got, fusebox_status_t want, const std::string &fragment) {
    EXPECT_EQ(got, want) << fusebox_get_last_error_message();
    EXPECT_NE(std::string(fusebox_get_last_error_message()).find(fragment), std::string::npos)
        << "message: " << fusebox_get_last_error_message();
}

fusebox_logical_tensor_t lt(size_t id, std::vector<int64_t> dims, fusebox_data_type_t dt = fusebox_f32) {
    fusebox_logical_tensor_t t;
    fusebox_dims_t d = {};
    for (size_t i = 0; i < dims.size(); ++i) d[i] = dims[i];
    EXPECT_EQ(fusebox_logical_tensor_init_with_dims(&t, id, dt, static_cast<int32_t>(dims.size()), d,
                                                    fusebox_layout_type_strided, fusebox_tensor_property_undef),
              fusebox_success);
    return t;
}

fusebox_logical_tensor_t unknown(size_t id, fusebox_data_type_t dt = fusebox_f32) {
    fusebox_logical_tensor_t t;
    EXPECT_EQ(fusebox_logical_tensor_init(&t, id, dt, FUSEBOX_UNKNOWN_NDIMS, fusebox_layout_type_any,
                                          fusebox_tensor_property_undef),
              fusebox_success);
    return t;
}

TEST(capi, logical_tensors) {
    fusebox_logical_tensor_t a = lt(1, {2, 3});
    EXPECT_EQ(a.ndims, 2);
    EXPECT_EQ(a.layout.strides[0], 3);
    EXPECT_EQ(a.layout.strides[1], 1);
    size_t size = 0;
    OK(fusebox_logical_tensor_get_mem_size(&a, &size));
    EXPECT_EQ(size, 24u);
    fusebox_dims_t dims = {2, 3}, strides = {1, 2};
    fusebox_logical_tensor_t col;
    OK(fusebox_logical_tensor_init_with_strides(&col, 1, fusebox_f32, 2, dims, strides,
                                                fusebox_tensor_property_constant));
    EXPECT_EQ(col.layout.strides[0], 1);
    EXPECT_EQ(col.property, fusebox_tensor_property_constant);
    uint8_t equal = 7;
    OK(fusebox_logical_tensor_is_equal(&a, &a, &equal));
    EXPECT_EQ(equal, 1);
    OK(fusebox_logical_tensor_is_equal(&a, &col, &equal));
    EXPECT_EQ(equal, 0);
    fusebox_logical_tensor_t u = unknown(4);
    EXPECT_EQ(u.ndims, FUSEBOX_UNKNOWN_NDIMS);
    OK(fusebox_logical_tensor_init(&u, 5, fusebox_f32, 3, fusebox_layout_type_strided, fusebox_tensor_property_undef));
    EXPECT_EQ(u.dims[1], FUSEBOX_UNKNOWN_DIM);
    OK(fusebox_logical_tensor_get_mem_size(&u, &size));
    EXPECT_EQ(size, 0u);

    expect_failure(
        fusebox_logical_tensor_init(nullptr, 1, fusebox_f32, 1, fusebox_layout_type_any, fusebox_tensor_property_undef),
        fusebox_invalid_arguments, "logical tensor is null");
    expect_failure(
        fusebox_logical_tensor_init(&u, 1, fusebox_f32, 13, fusebox_layout_type_any, fusebox_tensor_property_undef),
        fusebox_invalid_arguments, "ndims 13 exceeds 12");
    expect_failure(fusebox_logical_tensor_init_with_dims(&u, 1, static_cast<fusebox_data_type_t>(0x7f), 2, dims,
                                                         fusebox_layout_type_strided, fusebox_tensor_property_undef),
                   fusebox_invalid_arguments, "data type value 127");
    fusebox_dims_t negative = {2, -3};
    expect_failure(fusebox_logical_tensor_init_with_dims(&u, 1, fusebox_f32, 2, negative, fusebox_layout_type_strided,
                                                         fusebox_tensor_property_undef),
                   fusebox_invalid_shape, "dim -3");
    expect_failure(fusebox_logical_tensor_init_with_strides(&u, 1, fusebox_f32, 2, nullptr, nullptr,
                                                            fusebox_tensor_property_undef),
                   fusebox_invalid_arguments, "dims or strides is null");
    expect_failure(fusebox_logical_tensor_get_mem_size(&a, nullptr), fusebox_invalid_arguments, "size is null");
    expect_failure(fusebox_logical_tensor_is_equal(&a, nullptr, &equal), fusebox_invalid_arguments,
                   "logical tensor is null");
    fusebox_logical_tensor_t broken = a;
    broken.ndims = 40;
    expect_failure(fusebox_logical_tensor_get_mem_size(&broken, &size), fusebox_invalid_arguments, "ndims 40");
}

TEST(capi, engines_streams_allocators) {
    EXPECT_EQ(fusebox_engine_get_count(fusebox_cpu), 1u);
    EXPECT_EQ(fusebox_engine_get_count(fusebox_gpu), 0u);
    fusebox_engine_t engine = nullptr;
    OK(fusebox_engine_create(&engine, fusebox_cpu, 0));
    fusebox_engine_kind_t kind;
    OK(fusebox_engine_get_kind(engine, &kind));
    EXPECT_EQ(kind, fusebox_cpu);
    fusebox_stream_t stream;
    OK(fusebox_stream_create(&stream, engine, fusebox_stream_in_order));
    fusebox_engine_t of_stream = nullptr;
    OK(fusebox_stream_get_engine(stream, &of_stream));
    OK(fusebox_engine_get_kind(of_stream, &kind));
    OK(fusebox_stream_wait(stream));
    OK(fusebox_stream_destroy(stream));

    static int allocations = 0;
    fusebox_allocator_t alloc;
    OK(fusebox_allocator_create(
        &alloc,
        [](size_t size, size_t align) -> void * {
            ++allocations;
            void *p = nullptr;
            return posix_memalign(&p, align, size) ? nullptr : p;
        },
        [](void *p) { free(p); }));
    fusebox_engine_t counted;
    OK(fusebox_make_engine_with_allocator(&counted, fusebox_cpu, 0, alloc));
    fusebox_logical_tensor_t t = lt(0, {16});
    fusebox_tensor_t owned;
    OK(fusebox_tensor_create(&owned, &t, counted, FUSEBOX_MEMORY_ALLOCATE));
    EXPECT_EQ(allocations, 1);
    void *handle = nullptr;
    OK(fusebox_tensor_get_data_handle(owned, &handle));
    EXPECT_NE(handle, nullptr);
    OK(fusebox_tensor_destroy(owned));

    expect_failure(fusebox_engine_create(&engine, fusebox_gpu, 0), fusebox_invalid_arguments, "only engine::kind::cpu");
    expect_failure(fusebox_engine_create(&engine, fusebox_cpu, 3), fusebox_invalid_arguments, "index 3");
    expect_failure(fusebox_engine_create(nullptr, fusebox_cpu, 0), fusebox_invalid_arguments, "engine is null");
    expect_failure(fusebox_engine_get_kind(nullptr, &kind), fusebox_invalid_arguments, "engine is null");
    expect_failure(fusebox_stream_create(&stream, nullptr, 1), fusebox_invalid_arguments, "engine is null");
    expect_failure(fusebox_stream_create(&stream, engine, 8), fusebox_invalid_arguments, "unknown flags 8");
    expect_failure(fusebox_stream_wait(nullptr), fusebox_invalid_arguments, "stream is null");
    expect_failure(fusebox_make_engine_with_allocator(&engine, fusebox_cpu, 0, nullptr), fusebox_invalid_arguments,
                   "allocator is null");
    expect_failure(fusebox_allocator_create(&alloc, nullptr, [](void *) {}), fusebox_invalid_arguments, "both");
    OK(fusebox_engine_destroy(counted));
    OK(fusebox_allocator_destroy(alloc));
    OK(fusebox_engine_destroy(engine));
    OK(fusebox_engine_destroy(nullptr)); // as free(NULL)
}

TEST(capi, ops_and_attributes) {
    fusebox_op_t op;
    OK(fusebox_op_create(&op, 7, fusebox_op_wildcard, "custom"));
    fusebox_logical_tensor_t a = lt(0, {2}), b = lt(1, {2});
    OK(fusebox_op_add_input(op, &a));
    OK(fusebox_op_add_output(op, &b));
    const float alpha = 0.5f, scales[2] = {1.f, 2.f};
    const int64_t axis = 1, axes[3] = {0, 1, 2};
    const uint8_t keep = 1;
    OK(fusebox_op_set_attr_f32(op, fusebox_op_attr_alpha, &alpha, 1));
    OK(fusebox_op_set_attr_f32(op, fusebox_op_attr_scales, scales, 2));
    OK(fusebox_op_set_attr_s64(op, fusebox_op_attr_axis, &axis, 1));
    OK(fusebox_op_set_attr_s64(op, fusebox_op_attr_axes, axes, 3));
    OK(fusebox_op_set_attr_bool(op, fusebox_op_attr_keep_dims, &keep, 1));
    OK(fusebox_op_set_attr_str(op, fusebox_op_attr_data_format, "NXC", 3));
    size_t id;
    fusebox_op_kind_t kind;
    OK(fusebox_op_get_id(op, &id));
    OK(fusebox_op_get_kind(op, &kind));
    EXPECT_EQ(id, 7u);
    EXPECT_EQ(kind, fusebox_op_wildcard);
    fusebox_graph_t g;
    OK(fusebox_graph_create(&g, fusebox_cpu));
    OK(fusebox_add_op(g, op)); // every attribute has its attribute's type

    expect_failure(fusebox_op_set_attr_f32(op, fusebox_op_attr_alpha, nullptr, 1), fusebox_invalid_arguments,
                   "attribute value is null");
    expect_failure(fusebox_op_set_attr_bool(op, fusebox_op_attr_axes, &keep, 1), fusebox_invalid_arguments,
                   "list attribute takes f32 or s64");
    expect_failure(fusebox_op_set_attr_s64(nullptr, fusebox_op_attr_axis, &axis, 1), fusebox_invalid_arguments,
                   "op is null");
    expect_failure(fusebox_op_set_attr_str(op, fusebox_op_attr_mode, nullptr, 3), fusebox_invalid_arguments,
                   "attribute value is null");
    expect_failure(fusebox_op_add_input(op, nullptr), fusebox_invalid_arguments, "logical tensor is null");
    fusebox_op_t typed;
    OK(fusebox_op_create(&typed, 8, fusebox_op_softmax, nullptr));
    OK(fusebox_op_add_input(typed, &a));
    OK(fusebox_op_add_output(typed, &b));
    OK(fusebox_op_set_attr_s64(typed, fusebox_op_attr_alpha, &axis, 1)); // stored; add_op checks the type
    expect_failure(fusebox_add_op(g, typed), fusebox_invalid_arguments, "attribute alpha must be f32, got s64");
    OK(fusebox_op_destroy(typed));
    OK(fusebox_op_destroy(op));
    OK(fusebox_graph_destroy(g));
}

// x[4,8] + bias[8] -> t; t + y[4,8] -> out (fused), with checked results.
TEST(capi, graph_compile_execute) {
    fusebox_graph_t g;
    OK(fusebox_graph_create_with_fpmath_mode(&g, fusebox_cpu, fusebox_fpmath_mode_strict));
    OK(fusebox_graph_set_fpmath_mode(g, fusebox_fpmath_mode_bf16, 1));
    fusebox_fpmath_mode_t mode;
    int to_int = 0;
    OK(fusebox_graph_get_fpmath_mode(g, &mode, &to_int));
    EXPECT_EQ(mode, fusebox_fpmath_mode_bf16);
    EXPECT_EQ(to_int, 1);
    OK(fusebox_graph_set_fpmath_mode(g, fusebox_fpmath_mode_strict, 0));
    fusebox_logical_tensor_t x = lt(0, {4, 8}), bias = lt(1, {8}), y = lt(3, {4, 8}), t = unknown(2), out = unknown(4);
    fusebox_op_t add1, add2;
    OK(fusebox_op_create(&add1, 0, fusebox_op_add, "bias"));
    OK(fusebox_op_add_input(add1, &x));
    OK(fusebox_op_add_input(add1, &bias));
    OK(fusebox_op_add_output(add1, &t));
    OK(fusebox_op_create(&add2, 1, fusebox_op_add, "residual"));
    OK(fusebox_op_add_input(add2, &t));
    OK(fusebox_op_add_input(add2, &y));
    OK(fusebox_op_add_output(add2, &out));
    OK(fusebox_add_op(g, add1));
    OK(fusebox_add_op(g, add2));
    uint8_t finalized = 1;
    OK(fusebox_graph_is_finalized(g, &finalized));
    EXPECT_EQ(finalized, 0);
    size_t n = 9;
    expect_failure(fusebox_graph_filter(g, fusebox_partition_policy_fusion), fusebox_invalid_graph, "not finalized");
    OK(fusebox_graph_finalize(g));
    OK(fusebox_graph_is_finalized(g, &finalized));
    EXPECT_EQ(finalized, 1);
    expect_failure(fusebox_add_op(g, add1), fusebox_invalid_graph, "already finalized");
    OK(fusebox_graph_filter(g, fusebox_partition_policy_fusion));
    OK(fusebox_graph_get_partition_num(g, &n));
    ASSERT_EQ(n, 1u);
    fusebox_partition_t p;
    expect_failure(fusebox_graph_get_partitions(g, 2, &p), fusebox_invalid_arguments, "has 1 partitions, asked for 2");
    OK(fusebox_graph_get_partitions(g, 1, &p));
    OK(fusebox_graph_destroy(g)); // the partition stays valid
    OK(fusebox_op_destroy(add1));
    OK(fusebox_op_destroy(add2));

    size_t id, ops_num;
    uint8_t supported;
    fusebox_engine_kind_t ekind;
    OK(fusebox_partition_get_id(p, &id));
    OK(fusebox_partition_get_op_num(p, &ops_num));
    EXPECT_EQ(ops_num, 2u);
    size_t ids[2];
    OK(fusebox_partition_get_ops(p, 2, ids));
    EXPECT_EQ(ids[0], 0u);
    EXPECT_EQ(ids[1], 1u);
    expect_failure(fusebox_partition_get_ops(p, 1, ids), fusebox_invalid_arguments, "has 2 ops, asked for 1");
    OK(fusebox_partition_is_supported(p, &supported));
    EXPECT_EQ(supported, 1);
    OK(fusebox_partition_get_engine_kind(p, &ekind));
    EXPECT_EQ(ekind, fusebox_cpu);
    size_t n_in, n_out;
    OK(fusebox_partition_get_input_ports_num(p, &n_in));
    OK(fusebox_partition_get_output_ports_num(p, &n_out));
    ASSERT_EQ(n_in, 3u);
    ASSERT_EQ(n_out, 1u);
    fusebox_logical_tensor_t ins[3], outs[1];
    OK(fusebox_partition_get_input_ports(p, 3, ins));
    OK(fusebox_partition_get_output_ports(p, 1, outs));
    EXPECT_EQ(outs[0].id, 4u);
    EXPECT_EQ(outs[0].ndims, 2); // inferred at finalize
    expect_failure(fusebox_partition_get_input_ports(p, 2, ins), fusebox_invalid_arguments, "has 3 input ports");

    fusebox_engine_t engine;
    fusebox_stream_t stream;
    OK(fusebox_engine_create(&engine, fusebox_cpu, 0));
    OK(fusebox_stream_create(&stream, engine, fusebox_stream_default_flags));
    fusebox_compiled_partition_t cp;
    OK(fusebox_compiled_partition_create(&cp, p));
    const char *impl = nullptr;
    expect_failure(fusebox_compiled_partition_get_partition_impl(cp, &impl), fusebox_invalid_arguments,
                   "never compiled");
    const fusebox_logical_tensor_t *in_ptrs[3] = {&ins[0], &ins[1], &ins[2]}, *out_ptrs[1] = {&out};
    OK(fusebox_partition_compile(p, cp, 3, in_ptrs, 1, out_ptrs, engine));
    OK(fusebox_compiled_partition_get_partition_impl(cp, &impl));
    EXPECT_EQ(std::string(impl).rfind("native:", 0), 0u) << impl;
    size_t n_pairs;
    const fusebox_inplace_pair_t *pairs;
    OK(fusebox_compiled_partition_get_inplace_ports(cp, &n_pairs, &pairs));
    ASSERT_EQ(n_pairs, 2u); // x and y have the output's layout
    EXPECT_EQ(pairs[0].output_id, 4u);
    fusebox_logical_tensor_t out_lt;
    OK(fusebox_compiled_partition_query_logical_tensor(cp, 4, &out_lt));
    EXPECT_EQ(out_lt.dims[0], 4);
    EXPECT_EQ(out_lt.dims[1], 8);
    EXPECT_EQ(out_lt.layout_type, fusebox_layout_type_strided);
    expect_failure(fusebox_compiled_partition_query_logical_tensor(cp, 99, &out_lt), fusebox_invalid_arguments,
                   "tensor id 99 is not a port");

    std::vector<float> xv(32), bv(8), yv(32), ov(32, -1.f);
    for (int i = 0; i < 32; ++i) xv[i] = static_cast<float>(i), yv[i] = 100.f * static_cast<float>(i % 3);
    for (int i = 0; i < 8; ++i) bv[i] = 0.25f * static_cast<float>(i);
    fusebox_tensor_t tx, tb, ty, tout;
    OK(fusebox_tensor_create(&tx, &ins[0], engine,
                             ins[0].id == 0   ? xv.data()
                             : ins[0].id == 1 ? bv.data()
                                              : yv.data()));
    OK(fusebox_tensor_create(&tb, &ins[1], engine,
                             ins[1].id == 0   ? xv.data()
                             : ins[1].id == 1 ? bv.data()
                                              : yv.data()));
    OK(fusebox_tensor_create(&ty, &ins[2], engine,
                             ins[2].id == 0   ? xv.data()
                             : ins[2].id == 1 ? bv.data()
                                              : yv.data()));
    OK(fusebox_tensor_create(&tout, &out_lt, engine, nullptr));
    OK(fusebox_tensor_set_data_handle(tout, ov.data()));
    fusebox_logical_tensor_t back;
    OK(fusebox_tensor_get_logical_tensor(tout, &back));
    EXPECT_EQ(back.id, 4u);
    fusebox_engine_t of_tensor;
    OK(fusebox_tensor_get_engine(tout, &of_tensor));
    EXPECT_NE(of_tensor, nullptr);
    const_fusebox_tensor_t in_t[3] = {tx, tb, ty}, out_t[1] = {tout};
    expect_failure(fusebox_compiled_partition_execute(cp, stream, 2, in_t, 1, out_t), fusebox_invalid_arguments,
                   "takes 3 inputs and 1 output, got 2 and 1");
    for (float v : ov) ASSERT_EQ(v, -1.f); // nothing written on error
    OK(fusebox_compiled_partition_execute(cp, stream, 3, in_t, 1, out_t));
    OK(fusebox_stream_wait(stream));
    for (int i = 0; i < 32; ++i) EXPECT_EQ(ov[i], (xv[i] + bv[i % 8]) + yv[i]) << "element " << i;

    for (auto *t_ : {tx, tb, ty, tout}) OK(fusebox_tensor_destroy(t_));
    OK(fusebox_compiled_partition_destroy(cp));
    OK(fusebox_partition_destroy(p));
    OK(fusebox_stream_destroy(stream));
    OK(fusebox_engine_destroy(engine));
}

TEST(capi, a_partition_with_two_outputs) {
    // t = x + y also leaves the graph (End) and feeds ReLU: one partition
    // whose outputs are the ReLU's and t, written by one execute.
    fusebox_graph_t g;
    OK(fusebox_graph_create(&g, fusebox_cpu));
    fusebox_logical_tensor_t x = lt(0, {4, 8}), y = lt(1, {4, 8}), t = lt(2, {4, 8}), r = lt(3, {4, 8});
    fusebox_op_t add, relu, end;
    OK(fusebox_op_create(&add, 0, fusebox_op_add, "residual"));
    OK(fusebox_op_add_input(add, &x));
    OK(fusebox_op_add_input(add, &y));
    OK(fusebox_op_add_output(add, &t));
    OK(fusebox_op_create(&relu, 1, fusebox_op_relu, "relu"));
    OK(fusebox_op_add_input(relu, &t));
    OK(fusebox_op_add_output(relu, &r));
    OK(fusebox_op_create(&end, 2, fusebox_op_end, "end"));
    OK(fusebox_op_add_input(end, &t));
    for (fusebox_op_t o : {add, relu, end}) OK(fusebox_add_op(g, o));
    OK(fusebox_graph_finalize(g));
    OK(fusebox_graph_filter(g, fusebox_partition_policy_fusion));
    size_t n = 0;
    OK(fusebox_graph_get_partition_num(g, &n));
    ASSERT_EQ(n, 2u); // the Add and the ReLU, then the End
    fusebox_partition_t parts[2];
    OK(fusebox_graph_get_partitions(g, 2, parts));
    size_t n_out = 0;
    OK(fusebox_partition_get_output_ports_num(parts[0], &n_out));
    ASSERT_EQ(n_out, 2u);
    fusebox_logical_tensor_t outs[2];
    OK(fusebox_partition_get_output_ports(parts[0], 2, outs));
    EXPECT_EQ(outs[0].id, 3u); // the last op's output first
    EXPECT_EQ(outs[1].id, 2u);

    fusebox_engine_t engine;
    fusebox_stream_t stream;
    OK(fusebox_engine_create(&engine, fusebox_cpu, 0));
    OK(fusebox_stream_create(&stream, engine, fusebox_stream_default_flags));
    fusebox_compiled_partition_t cp;
    OK(fusebox_compiled_partition_create(&cp, parts[0]));
    fusebox_logical_tensor_t any_r = unknown(3), any_t = unknown(2);
    const fusebox_logical_tensor_t *in_ptrs[2] = {&x, &y}, *out_ptrs[2] = {&any_r, &any_t};
    OK(fusebox_partition_compile(parts[0], cp, 2, in_ptrs, 2, out_ptrs, engine));
    fusebox_logical_tensor_t r_lt, t_lt;
    OK(fusebox_compiled_partition_query_logical_tensor(cp, 3, &r_lt));
    OK(fusebox_compiled_partition_query_logical_tensor(cp, 2, &t_lt));
    EXPECT_EQ(t_lt.dims[1], 8);

    std::vector<float> xv(32), yv(32), rv(32, -7.f), tv(32, -7.f);
    for (int i = 0; i < 32; ++i) xv[i] = static_cast<float>(i) - 16.f, yv[i] = 0.5f * static_cast<float>(i % 5);
    fusebox_tensor_t tx, ty, tr, tt;
    OK(fusebox_tensor_create(&tx, &x, engine, xv.data()));
    OK(fusebox_tensor_create(&ty, &y, engine, yv.data()));
    OK(fusebox_tensor_create(&tr, &r_lt, engine, rv.data()));
    OK(fusebox_tensor_create(&tt, &t_lt, engine, tv.data()));
    const_fusebox_tensor_t in_t[2] = {tx, ty}, out_t[2] = {tr, tt};
    expect_failure(fusebox_compiled_partition_execute(cp, stream, 2, in_t, 1, out_t), fusebox_invalid_arguments,
                   "takes 2 inputs and 2 outputs, got 2 and 1");
    OK(fusebox_compiled_partition_execute(cp, stream, 2, in_t, 2, out_t));
    OK(fusebox_stream_wait(stream));
    for (int i = 0; i < 32; ++i) {
        const float sum = xv[i] + yv[i];
        EXPECT_EQ(tv[i], sum) << "element " << i;
        EXPECT_EQ(rv[i], sum > 0.f ? sum : 0.f) << "element " << i;
    }

    for (auto *t_ : {tx, ty, tr, tt}) OK(fusebox_tensor_destroy(t_));
    OK(fusebox_compiled_partition_destroy(cp));
    for (auto *p : parts) OK(fusebox_partition_destroy(p));
    for (fusebox_op_t o : {add, relu, end}) OK(fusebox_op_destroy(o));
    OK(fusebox_graph_destroy(g));
    OK(fusebox_stream_destroy(stream));
    OK(fusebox_engine_destroy(engine));
}

TEST(capi, unsupported_partition_and_single_op) {
    fusebox_op_t relu;
    OK(fusebox_op_create(&relu, 3, fusebox_op_softmax, "softmax"));
    fusebox_logical_tensor_t a = lt(0, {4}), b = lt(1, {4});
    OK(fusebox_op_add_input(relu, &a));
    OK(fusebox_op_add_output(relu, &b));
    fusebox_partition_t p;
    OK(fusebox_partition_create_with_op(&p, relu, fusebox_cpu));
    uint8_t supported = 1;
    OK(fusebox_partition_is_supported(p, &supported));
    EXPECT_EQ(supported, 0);
    fusebox_engine_t engine;
    OK(fusebox_engine_create(&engine, fusebox_cpu, 0));
    fusebox_compiled_partition_t cp;
    OK(fusebox_compiled_partition_create(&cp, p));
    const fusebox_logical_tensor_t *ins[1] = {&a}, *outs[1] = {&b};
    expect_failure(fusebox_partition_compile(p, cp, 1, ins, 1, outs, engine), fusebox_invalid_arguments,
                   "fusebox does not run");
    expect_failure(fusebox_partition_create_with_op(&p, nullptr, fusebox_cpu), fusebox_invalid_arguments, "op is null");
    OK(fusebox_compiled_partition_destroy(cp));
    OK(fusebox_partition_destroy(p));
    OK(fusebox_op_destroy(relu));
    OK(fusebox_engine_destroy(engine));
}

TEST(capi, globals) {
    const fusebox_version_t *v = fusebox_version();
    EXPECT_EQ(v->major, FUSEBOX_VERSION_MAJOR);
    int capacity = 0;
    OK(fusebox_get_compiled_partition_cache_capacity(&capacity));
    EXPECT_EQ(capacity, 1024);
    OK(fusebox_set_compiled_partition_cache_capacity(16));
    OK(fusebox_get_compiled_partition_cache_capacity(&capacity));
    EXPECT_EQ(capacity, 16);
    expect_failure(fusebox_set_compiled_partition_cache_capacity(-2), fusebox_invalid_arguments, "negative");
    OK(fusebox_set_compiled_partition_cache_capacity(1024));
    size_t size = 1;
    OK(fusebox_set_constant_tensor_cache_capacity(fusebox_cpu, 32));
    OK(fusebox_get_constant_tensor_cache_capacity(fusebox_cpu, &size));
    EXPECT_EQ(size, 32u);
    int flag = 0;
    OK(fusebox_get_constant_tensor_cache(&flag));
    EXPECT_EQ(flag, 1);
    OK(fusebox_set_constant_tensor_cache(0));
    expect_failure(fusebox_set_constant_tensor_cache(-1), fusebox_invalid_arguments, "negative");
    expect_failure(fusebox_get_constant_tensor_cache_capacity(fusebox_gpu, &size), fusebox_invalid_arguments, "cpu");
    expect_failure(fusebox_set_dump_mode(static_cast<fusebox_dump_mode_t>(4)), fusebox_invalid_arguments,
                   "unknown mode bits");
    OK(fusebox_set_dump_mode(fusebox_dump_mode_none));
    EXPECT_STREQ(fusebox_get_last_error_message(), "");
    expect_failure(fusebox_set_verbose(3), fusebox_invalid_arguments, "level must be 0, 1 or 2, got 3");
    OK(fusebox_set_verbose(0));
}

} // namespace
