// What oneDNN's own Graph API tests rely on, ported by the substitution rule
// (../shared/ONEDNN_GRAPH.md, "Also used by oneDNN's own Graph API tests"):
// one test per behaviour, written from oneDNN's headers and documentation.
// Where the installed oneDNN headers define the same value, they are the
// reference; values newer than that oneDNN are oneDNN 3.x's published ones.
#include <oneapi/dnnl/dnnl_types.h>

#include <cstring>
#include <limits>

#include "common/access.hpp"
#include "kernels/native/binary_ops.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;
using dims = lt::dims;

// A failed C call's status and message.
void expect_c_failure(fusebox_status_t got, fusebox_status_t want, const std::string &fragment) {
    EXPECT_EQ(got, want);
    EXPECT_NE(std::string(fusebox_get_last_error_message()).find(fragment), std::string::npos)
        << fusebox_get_last_error_message();
}

TEST(onednn_compat, config_macros_name_a_tbb_cpu_runtime_and_no_gpu_runtime) {
#if FUSEBOX_CPU_RUNTIME == FUSEBOX_RUNTIME_SYCL || FUSEBOX_GPU_RUNTIME != FUSEBOX_RUNTIME_NONE
    ADD_FAILURE() << "the preprocessor reads a SYCL CPU runtime or a GPU runtime";
#endif
    EXPECT_EQ(FUSEBOX_CPU_RUNTIME, FUSEBOX_RUNTIME_TBB);
    EXPECT_EQ(FUSEBOX_CPU_THREADING_RUNTIME, FUSEBOX_RUNTIME_TBB);
    EXPECT_EQ(FUSEBOX_GPU_RUNTIME, FUSEBOX_RUNTIME_NONE);
    EXPECT_EQ(fusebox_version()->cpu_runtime, FUSEBOX_CPU_RUNTIME);
    EXPECT_EQ(fusebox_version()->gpu_runtime, FUSEBOX_GPU_RUNTIME);
    // oneDNN's values, from its own header.
    EXPECT_EQ(FUSEBOX_RUNTIME_NONE, DNNL_RUNTIME_NONE);
    EXPECT_EQ(FUSEBOX_RUNTIME_SEQ, DNNL_RUNTIME_SEQ);
    EXPECT_EQ(FUSEBOX_RUNTIME_OMP, DNNL_RUNTIME_OMP);
    EXPECT_EQ(FUSEBOX_RUNTIME_TBB, DNNL_RUNTIME_TBB);
    EXPECT_EQ(FUSEBOX_RUNTIME_THREADPOOL, DNNL_RUNTIME_THREADPOOL);
    EXPECT_EQ(FUSEBOX_RUNTIME_OCL, DNNL_RUNTIME_OCL);
    EXPECT_EQ(FUSEBOX_RUNTIME_SYCL, DNNL_RUNTIME_SYCL);
    EXPECT_EQ(FUSEBOX_RUNTIME_DPCPP, DNNL_RUNTIME_DPCPP);
}

TEST(onednn_compat, effective_cpu_isa_names_the_isa_of_fusebox_kernels) {
    // The values every oneDNN release agrees on.
    EXPECT_EQ(static_cast<int>(fusebox_cpu_isa_sse41), static_cast<int>(dnnl_cpu_isa_sse41));
    EXPECT_EQ(static_cast<int>(fusebox_cpu_isa_avx), static_cast<int>(dnnl_cpu_isa_avx));
    EXPECT_EQ(static_cast<int>(fusebox_cpu_isa_avx2), static_cast<int>(dnnl_cpu_isa_avx2));
    EXPECT_EQ(static_cast<int>(fusebox_cpu_isa_avx512_core), static_cast<int>(dnnl_cpu_isa_avx512_core));
    EXPECT_EQ(static_cast<int>(fusebox_cpu_isa_avx512_core_vnni), static_cast<int>(dnnl_cpu_isa_avx512_core_vnni));
    EXPECT_EQ(static_cast<int>(fusebox_cpu_isa_avx512_core_bf16), static_cast<int>(dnnl_cpu_isa_avx512_core_bf16));
    // oneDNN 3.x's newer values and aliases.
    EXPECT_EQ(fusebox_cpu_isa_avx512_core_fp16, 0x1ef);
    EXPECT_EQ(fusebox_cpu_isa_avx512_core_amx, 0xfef);
    EXPECT_EQ(fusebox_cpu_isa_avx2_vnni, 0xf);

    // The answer follows the loops fusebox picked (and FUSEBOX_MAX_ISA, which
    // the AVX2-capped pass of the suite sets): never an ISA they do not use.
    const std::string isa = detail::element_ops_for_cpu().isa;
    const fusebox_cpu_isa_t want = isa.rfind("AVX3", 0) == 0 ? fusebox_cpu_isa_avx512_core
                                   : isa == "AVX2"           ? fusebox_cpu_isa_avx2
                                   : isa == "SSE4"           ? fusebox_cpu_isa_sse41
                                                             : fusebox_cpu_isa_default;
    EXPECT_EQ(fusebox_get_effective_cpu_isa(), want) << "native loops " << isa;
    EXPECT_EQ(static_cast<int>(get_effective_cpu_isa()), static_cast<int>(want));
    EXPECT_LT(fusebox_get_effective_cpu_isa(), fusebox_cpu_isa_avx512_core_fp16); // no fp16 kernels
}

TEST(onednn_compat, storage_only_types_are_valid_in_logical_tensors_and_tensors) {
    // oneDNN's dnnl_data_type_t values (oneDNN 3.x) for its 8- and 4-bit types.
    EXPECT_EQ(fusebox_f8_e5m2, 9);
    EXPECT_EQ(fusebox_f8_e4m3, 10);
    EXPECT_EQ(fusebox_s4, 11);
    EXPECT_EQ(fusebox_u4, 12);
    EXPECT_EQ(fusebox_e8m0, 13);
    EXPECT_EQ(fusebox_f4_e2m1, 14);
    EXPECT_EQ(fusebox_f4_e3m0, 15);
    const engine eng(engine::kind::cpu);
    struct case_t {
        dt type;
        const char *name;
        size_t bytes_for_3x5; // 15 elements, 4-bit ones two per byte
    };
    for (const case_t &c : {case_t{dt::f8_e5m2, "f8_e5m2", 15}, case_t{dt::f8_e4m3, "f8_e4m3", 15},
                            case_t{dt::e8m0, "e8m0", 15}, case_t{dt::s4, "s4", 8}, case_t{dt::u4, "u4", 8},
                            case_t{dt::f4_e2m1, "f4_e2m1", 8}, case_t{dt::f4_e3m0, "f4_e3m0", 8}}) {
        SCOPED_TRACE(c.name);
        const lt t(1, c.type, {3, 5}, lt::layout_type::strided);
        EXPECT_EQ(t.get_data_type(), c.type);
        EXPECT_EQ(t.get_mem_size(), c.bytes_for_3x5);
        EXPECT_STREQ(data_type_name(c.type), c.name);
        const tensor owned(t, eng); // library-allocated: its size is the one above
        EXPECT_NE(owned.get_data_handle(), nullptr);
        fusebox_logical_tensor_t ct;
        const fusebox_dims_t shape = {3, 5};
        ASSERT_EQ(fusebox_logical_tensor_init_with_dims(&ct, 2, static_cast<fusebox_data_type_t>(c.type), 2, shape,
                                                        fusebox_layout_type_strided, fusebox_tensor_property_undef),
                  fusebox_success);
        size_t bytes = 0;
        ASSERT_EQ(fusebox_logical_tensor_get_mem_size(&ct, &bytes), fusebox_success);
        EXPECT_EQ(bytes, c.bytes_for_3x5);

        // An op over them is the framework's: added, finalized, unsupported.
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {lt(0, c.type, {4}), lt(1, c.type, {4})}, {lt(2, c.type, {4})}));
        g.add_op(op(1, op::kind::Add, {lt(3, dt::f32, {4}), lt(4, dt::f32, {4})}, {lt(5, dt::f32, {4})}));
        g.finalize();
        const auto parts = g.get_partitions();
        ASSERT_EQ(parts.size(), 2u);
        EXPECT_FALSE(parts[0].is_supported());
        EXPECT_TRUE(parts[1].is_supported());
    }
    EXPECT_EQ(lt(1, dt::s4, {7}).get_mem_size(), 4u); // an odd count rounds up
}

TEST(onednn_compat, c_scalar_attributes_ignore_value_len) {
    // LeakyReLU's alpha given with value_len 0, as oneDNN's own programs do.
    fusebox_op_t leaky;
    ASSERT_EQ(fusebox_op_create(&leaky, 0, fusebox_op_leaky_relu, "leaky"), fusebox_success);
    const float alpha = 0.25f;
    ASSERT_EQ(fusebox_op_set_attr_f32(leaky, fusebox_op_attr_alpha, &alpha, 0), fusebox_success);
    fusebox_logical_tensor_t x, y;
    const fusebox_dims_t shape = {4};
    ASSERT_EQ(fusebox_logical_tensor_init_with_dims(&x, 0, fusebox_f32, 1, shape, fusebox_layout_type_strided,
                                                    fusebox_tensor_property_undef),
              fusebox_success);
    ASSERT_EQ(fusebox_logical_tensor_init_with_dims(&y, 1, fusebox_f32, 1, shape, fusebox_layout_type_strided,
                                                    fusebox_tensor_property_undef),
              fusebox_success);
    ASSERT_EQ(fusebox_op_add_input(leaky, &x), fusebox_success);
    ASSERT_EQ(fusebox_op_add_output(leaky, &y), fusebox_success);
    // The C handle is a fusebox::op's: run it through the C++ API.
    graph g(engine::kind::cpu);
    g.add_op(detail::access::view(leaky));
    g.finalize();
    const engine eng(engine::kind::cpu);
    const partition p = g.get_partitions().at(0);
    compiled_partition cp = p.compile(p.get_input_ports(), p.get_output_ports(), eng);
    float in[4] = {-4, -1, 0, 2}, out[4] = {};
    stream s(eng);
    cp.execute(s, {tensor(p.get_input_ports()[0], eng, in)}, {tensor(p.get_output_ports()[0], eng, out)});
    EXPECT_EQ(out[0], -1.f);
    EXPECT_EQ(out[1], -0.25f);
    EXPECT_EQ(out[3], 2.f);
    // A list attribute takes value_len values; a scalar one needs its value.
    expect_c_failure(fusebox_op_set_attr_f32(leaky, fusebox_op_attr_alpha, nullptr, 0), fusebox_invalid_arguments,
                     "attribute value is null");
    ASSERT_EQ(fusebox_op_destroy(leaky), fusebox_success);
}

TEST(onednn_compat, c_string_attributes_run_to_their_terminator) {
    // "none" given with value_len 1 still reads "none": an Add that would
    // broadcast is then rejected, as auto_broadcast=none says.
    fusebox_op_t add;
    ASSERT_EQ(fusebox_op_create(&add, 0, fusebox_op_add, "add"), fusebox_success);
    ASSERT_EQ(fusebox_op_set_attr_str(add, fusebox_op_attr_auto_broadcast, "none", 1), fusebox_success);
    const op &view = detail::access::view(add);
    EXPECT_EQ(std::get<std::string>(view.get_attrs().at(op::attr::auto_broadcast)), "none");
    ASSERT_EQ(fusebox_op_set_attr_str(add, fusebox_op_attr_auto_broadcast, "numpy", 0), fusebox_success);
    EXPECT_EQ(std::get<std::string>(view.get_attrs().at(op::attr::auto_broadcast)), "numpy");
    ASSERT_EQ(fusebox_op_destroy(add), fusebox_success);
}

TEST(onednn_compat, logical_tensor_converts_from_and_to_the_c_descriptor) {
    fusebox_logical_tensor_t c;
    const fusebox_dims_t shape = {2, 3}, strides = {1, 2};
    ASSERT_EQ(fusebox_logical_tensor_init_with_strides(&c, 7, fusebox_bf16, 2, shape, strides,
                                                       fusebox_tensor_property_constant),
              fusebox_success);
    const lt from_c(c);
    EXPECT_EQ(from_c.get_id(), 7u);
    EXPECT_EQ(from_c.get_data_type(), dt::bf16);
    EXPECT_EQ(from_c.get_dims(), (dims{2, 3}));
    EXPECT_EQ(from_c.get_strides(), (dims{1, 2}));
    EXPECT_EQ(from_c.get_property_type(), lt::property_type::constant);
    const fusebox_logical_tensor_t back = from_c.get();
    EXPECT_EQ(back.id, 7u);
    EXPECT_EQ(back.ndims, 2);
    EXPECT_EQ(back.layout.strides[1], 2);
    uint8_t equal = 0;
    ASSERT_EQ(fusebox_logical_tensor_is_equal(&c, &back, &equal), fusebox_success);
    EXPECT_EQ(equal, 1);

    // A zeroed descriptor is an undefined tensor of unknown rank.
    fusebox_logical_tensor_t zero;
    std::memset(&zero, 0, sizeof zero);
    zero.ndims = FUSEBOX_UNKNOWN_NDIMS;
    const lt undefined(zero);
    EXPECT_EQ(undefined.get_ndims(), -1);
    EXPECT_EQ(undefined.get_data_type(), dt::undef);
    expect_error([&] { undefined.get_dims(); }, status::invalid_arguments, "known rank");
    // An opaque layout keeps its id; a strided one has none.
    zero.layout_type = fusebox_layout_type_opaque;
    zero.layout.layout_id = 42;
    EXPECT_EQ(lt(zero).get_layout_id(), 42u);
    EXPECT_EQ(lt(zero).get().layout.layout_id, 42u);
    zero.layout_type = fusebox_layout_type_strided;
    expect_error([&] { lt(zero).get_layout_id(); }, status::invalid_arguments, "opaque");
    zero.ndims = 13;
    expect_error([&] { lt{zero}; }, status::invalid_arguments, "ndims 13");
}

TEST(onednn_compat, op_is_a_handle_shared_by_its_copies) {
    op a(3, op::kind::Add, "add");
    op copy = a; // NOLINT: the copy is the point
    EXPECT_EQ(a.get(), copy.get());
    copy.add_input(lt(0, dt::f32, {4}));
    ASSERT_EQ(a.get_inputs().size(), 1u); // one op, seen through both handles
    // The C API works on the same op.
    const fusebox_logical_tensor_t second = lt(1, dt::f32, {4}).get(), out = lt(2, dt::f32, {4}).get();
    ASSERT_EQ(fusebox_op_add_input(a.get(), &second), fusebox_success);
    ASSERT_EQ(fusebox_op_add_output(a.get(), &out), fusebox_success);
    EXPECT_EQ(copy.get_inputs().size(), 2u);
    size_t id = 0;
    ASSERT_EQ(fusebox_op_get_id(copy.get(), &id), fusebox_success);
    EXPECT_EQ(id, 3u);
    EXPECT_NE(op(3, op::kind::Add).get(), a.get());

    // A graph keeps its own copy: later changes to the op do not reach it.
    graph g(engine::kind::cpu);
    g.add_op(a);
    a.set_attr(op::attr::auto_broadcast, std::string("bogus"));
    g.finalize();
    EXPECT_TRUE(g.get_partitions().at(0).is_supported());
    // ... and so does a partition made of one op.
    partition one(a.set_attr(op::attr::auto_broadcast, std::string("numpy")), engine::kind::cpu);
    a.add_input(lt(9, dt::f32, {4}));
    EXPECT_EQ(one.get_input_ports().size(), 2u);
    const engine eng(engine::kind::cpu);
    EXPECT_NO_THROW(one.compile({lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, {4})}, eng));
}

TEST(onednn_compat, host_scalar_tensors_hold_a_copy_of_their_value) {
    EXPECT_EQ(fusebox_tensor_property_host_scalar, 3); // oneDNN 3.10's value
    const lt scalar(1, dt::f32, 0, lt::layout_type::strided, lt::property_type::host_scalar);
    float value = 0.25f;
    tensor t = make_scalar_tensor(scalar, &value);
    value = 8.f; // the tensor copied the value
    ASSERT_NE(t.get_data_handle(), nullptr);
    EXPECT_NE(t.get_data_handle(), static_cast<void *>(&value));
    EXPECT_EQ(*static_cast<const float *>(t.get_data_handle()), 0.25f);
    EXPECT_EQ(t.get_engine().get_kind(), engine::kind::cpu);
    EXPECT_EQ(t.get_logical_tensor().get_property_type(), lt::property_type::host_scalar);

    expect_error([&] { tensor::make_scalar_tensor(lt(1, dt::f32, 0, lt::layout_type::strided), &value); },
                 status::invalid_arguments, "host_scalar");
    expect_error(
        [&] {
            make_scalar_tensor(lt(1, dt::f32, dims{1}, lt::layout_type::strided, lt::property_type::host_scalar),
                               &value);
        },
        status::invalid_arguments, "rank 1");
    expect_error([&] { make_scalar_tensor(scalar, nullptr); }, status::invalid_arguments, "null");

    // A host scalar is an operand like any rank-0 tensor: x + s.
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {3}), scalar}, {lt(2, dt::f32, {3})}));
    g.finalize();
    const partition p = g.get_partitions().at(0);
    const engine eng(engine::kind::cpu);
    compiled_partition cp = p.compile(p.get_input_ports(), p.get_output_ports(), eng);
    float x[3] = {1, 2, 3}, y[3] = {};
    stream s(eng);
    cp.execute(s, {tensor(p.get_input_ports()[0], eng, x), t}, {tensor(p.get_output_ports()[0], eng, y)});
    EXPECT_EQ(y[0], 1.25f);
    EXPECT_EQ(y[2], 3.25f);

    // The C API's counterpart.
    const fusebox_logical_tensor_t c = scalar.get();
    fusebox_tensor_t ct = nullptr;
    int32_t three = 3;
    ASSERT_EQ(fusebox_tensor_create_scalar(&ct, &c, &three), fusebox_success);
    void *handle = nullptr;
    ASSERT_EQ(fusebox_tensor_get_data_handle(ct, &handle), fusebox_success);
    EXPECT_EQ(std::memcmp(handle, &three, sizeof three), 0);
    ASSERT_EQ(fusebox_tensor_destroy(ct), fusebox_success);
    const fusebox_logical_tensor_t plain = lt(1, dt::f32, 0, lt::layout_type::strided).get();
    expect_c_failure(fusebox_tensor_create_scalar(&ct, &plain, &three), fusebox_invalid_arguments, "host_scalar");
}

TEST(onednn_compat, constant_cache_capacity_reads_back_in_mib_and_saturates) {
    const size_t before = get_constant_tensor_cache_capacity(engine::kind::cpu);
    set_constant_tensor_cache_capacity(engine::kind::cpu, 1024);
    EXPECT_EQ(get_constant_tensor_cache_capacity(engine::kind::cpu), 1024u);
    set_constant_tensor_cache_capacity(engine::kind::cpu, std::numeric_limits<size_t>::max());
    EXPECT_EQ(get_constant_tensor_cache_capacity(engine::kind::cpu), std::numeric_limits<size_t>::max() >> 20);
    size_t c_size = 0;
    ASSERT_EQ(fusebox_set_constant_tensor_cache_capacity(fusebox_cpu, 3), fusebox_success);
    ASSERT_EQ(fusebox_get_constant_tensor_cache_capacity(fusebox_cpu, &c_size), fusebox_success);
    EXPECT_EQ(c_size, 3u);
    set_constant_tensor_cache_capacity(engine::kind::cpu, before);
}

TEST(onednn_compat, compiling_an_unsupported_partition_is_invalid_arguments) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::SoftMax, {lt(0, dt::f32, {4})}, {lt(1, dt::f32, {4})}));
    g.finalize();
    const partition p = g.get_partitions().at(0);
    ASSERT_FALSE(p.is_supported());
    const engine eng(engine::kind::cpu);
    expect_error([&] { p.compile(p.get_input_ports(), p.get_output_ports(), eng); }, status::invalid_arguments,
                 "which fusebox does not run");
}

TEST(onednn_compat, wildcard_and_end_give_two_unsupported_partitions) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Wildcard, {lt(0, dt::f32, {4})}, {lt(1, dt::f32, {4})}));
    g.add_op(op(1, op::kind::End, {lt(1, dt::f32, {4})}, {}));
    g.finalize();
    const auto parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].get_ops(), std::vector<size_t>{0});
    EXPECT_EQ(parts[1].get_ops(), std::vector<size_t>{1});
    EXPECT_FALSE(parts[0].is_supported() || parts[1].is_supported());
    EXPECT_EQ(parts[1].get_input_ports().at(0).get_id(), 1u);
    EXPECT_TRUE(parts[1].get_output_ports().empty());
}

TEST(onednn_compat, finalize_rejects_one_tensor_id_with_two_layout_types) {
    for (const auto other : {lt::layout_type::undef, lt::layout_type::any}) {
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, dims{}, other), lt(0, dt::f32, dims{}, lt::layout_type::strided)},
                    {lt(1, dt::f32, dims{}, lt::layout_type::strided)}));
        expect_error([&] { g.finalize(); }, status::invalid_graph, "tensor id 0 is used with another layout type");
    }
    // A descriptor of unknown rank carries no layout yet: it merges.
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(2, dt::f32, lt::layout_type::any)}));
    g.add_op(op(1, op::kind::Add, {lt(2, dt::f32, {4}), lt(1, dt::f32, {4})}, {lt(3, dt::f32, {4})}));
    EXPECT_NO_THROW(g.finalize());
}

TEST(onednn_compat, deterministic_flag_is_kept_until_finalize) {
    graph g(engine::kind::cpu);
    EXPECT_FALSE(g.get_deterministic());
    g.set_deterministic(true);
    EXPECT_TRUE(g.get_deterministic());
    g.finalize();
    EXPECT_TRUE(g.get_deterministic());
    expect_error([&] { g.set_deterministic(false); }, status::invalid_graph, "already finalized");

    fusebox_graph_t cg;
    ASSERT_EQ(fusebox_graph_create(&cg, fusebox_cpu), fusebox_success);
    int flag = -1;
    ASSERT_EQ(fusebox_graph_get_deterministic(cg, &flag), fusebox_success);
    EXPECT_EQ(flag, 0);
    ASSERT_EQ(fusebox_graph_set_deterministic(cg, 1), fusebox_success);
    ASSERT_EQ(fusebox_graph_get_deterministic(cg, &flag), fusebox_success);
    EXPECT_EQ(flag, 1);
    expect_c_failure(fusebox_graph_get_deterministic(cg, nullptr), fusebox_invalid_arguments, "null");
    expect_c_failure(fusebox_graph_set_deterministic(nullptr, 1), fusebox_invalid_arguments, "graph is null");
    ASSERT_EQ(fusebox_graph_finalize(cg), fusebox_success);
    expect_c_failure(fusebox_graph_set_deterministic(cg, 0), fusebox_invalid_graph, "already finalized");
    ASSERT_EQ(fusebox_graph_destroy(cg), fusebox_success);
}

TEST(onednn_compat, c_dump_mode_takes_unsigned_bits) {
    EXPECT_EQ(fusebox_set_dump_mode(static_cast<unsigned>(fusebox_dump_mode_graph | fusebox_dump_mode_subgraph)),
              fusebox_success);
    EXPECT_EQ(fusebox_set_dump_mode(0x4u), fusebox_invalid_arguments);
    EXPECT_EQ(fusebox_set_dump_mode(fusebox_dump_mode_none), fusebox_success);
}

} // namespace
