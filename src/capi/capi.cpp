// The C API: each function is a thin wrapper over the C++ API that turns
// exceptions into a status and keeps the message for
// fusebox_get_last_error_message().
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "common/access.hpp"
#include "common/errors.hpp"
#include "common/small_buffer.hpp"
#include "fusebox/fusebox.h"
#include "interface/op_impl.hpp"

namespace fb = fusebox;

struct fusebox_allocator {
    fb::allocator a;
};
struct fusebox_engine {
    fb::engine e;
};
struct fusebox_stream {
    fb::stream s;
    fusebox_engine engine; // handed out by fusebox_stream_get_engine
};
struct fusebox_graph {
    fb::graph g;
    std::vector<fb::partition> parts; // from the last fusebox_graph_filter
};
struct fusebox_partition {
    fb::partition p;
};
struct fusebox_compiled_partition {
    fb::partition p;
    fb::compiled_partition cp;
    bool compiled = false;
    std::vector<fusebox_inplace_pair_t> pairs;
    std::string impl;
};
struct fusebox_tensor {
    fb::tensor t;
    fusebox_engine engine; // handed out by fusebox_tensor_get_engine
};

namespace {

// A C enumeration value as the C++ enum class with the same values. A C enum
// object may hold any int, a C++ one only its enumerators' range: the value's
// bits are copied, never loaded as the C type.
template <typename Cpp, typename C> Cpp from_c(const C &value) {
    static_assert(std::is_enum_v<C> && std::is_enum_v<Cpp>);
    std::underlying_type_t<C> raw;
    std::memcpy(&raw, &value, sizeof raw);
    return static_cast<Cpp>(raw);
}

thread_local std::string last_error;

[[noreturn]] void bad(const char *what) { fb::detail::fail(fb::status::invalid_arguments, what); }

// Runs f(), turning any exception into a status and the thread's last message.
template <typename F> fusebox_status_t guarded(F &&f) {
    try {
        f();
        last_error.clear();
        return fusebox_success;
    } catch (const fb::error &e) {
        last_error = e.what();
        return e.status;
    } catch (const std::bad_alloc &) {
        last_error = "fusebox: out of memory";
        return fusebox_out_of_memory;
    } catch (const std::exception &e) {
        last_error = std::string("fusebox: ") + e.what();
        return fusebox_runtime_error;
    } catch (...) {
        last_error = "fusebox: unknown failure";
        return fusebox_runtime_error;
    }
}

template <typename T> T &checked(T *p, const char *what) {
    if (!p) bad(what);
    return *p;
}

fb::logical_tensor to_cpp(const fusebox_logical_tensor_t *c) {
    if (!c) bad("logical tensor is null");
    return fb::logical_tensor(*c);
}

fusebox_logical_tensor_t to_c(const fb::logical_tensor &lt) { return lt.get(); }

template <typename T> void set_attr_values(fusebox_op_t op, fusebox_op_attr_t name, const T *value, size_t len) {
    fb::op o = fb::detail::access::view(&checked(op, "op is null"));
    if (!value && len) bad("attribute value is null");
    std::vector<T> values(value, value + len);
    // A list attribute takes value_len values.
    const int v = static_cast<int>(name);
    const bool list = (v >= 0x20 && v < 0x30) || (v >= 0x40 && v < 0x60) || name == fusebox_op_attr_consumed_inputs;
    if (list) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, int64_t>)
            fb::detail::access::set_attr(o, from_c<fb::op::attr>(name), values);
        else
            bad("a list attribute takes f32 or s64 values");
        return;
    }
    // A scalar attribute takes *value whatever value_len says, as oneDNN does
    // (its own programs pass 0).
    if (!value) bad("attribute value is null");
    if constexpr (std::is_same_v<T, uint8_t>)
        fb::detail::access::set_attr(o, from_c<fb::op::attr>(name), *value != 0);
    else
        fb::detail::access::set_attr(o, from_c<fb::op::attr>(name), *value);
}

// A compiled partition that was compiled.
const fusebox_compiled_partition &compiled(const_fusebox_compiled_partition_t cp) {
    const auto &c = checked(cp, "compiled partition is null");
    if (!c.compiled) bad("the compiled partition was never compiled (call fusebox_partition_compile)");
    return c;
}

} // namespace

extern "C" {

const char *fusebox_get_last_error_message(void) { return last_error.c_str(); }

fusebox_status_t fusebox_allocator_create(fusebox_allocator_t *allocator, fusebox_host_allocate_f host_malloc,
                                          fusebox_host_deallocate_f host_free) {
    return guarded([&] {
        checked(allocator, "allocator is null");
        *allocator = new fusebox_allocator{host_malloc || host_free ? fusebox::allocator(host_malloc, host_free)
                                                                    : fusebox::allocator()};
    });
}

fusebox_status_t fusebox_allocator_destroy(fusebox_allocator_t allocator) {
    return guarded([&] { delete allocator; });
}

size_t fusebox_engine_get_count(fusebox_engine_kind_t kind) {
    return fb::engine::get_count(from_c<fb::engine::kind>(kind));
}

fusebox_status_t fusebox_engine_create(fusebox_engine_t *engine, fusebox_engine_kind_t kind, size_t index) {
    return guarded([&] {
        checked(engine, "engine is null");
        *engine = new fusebox_engine{fusebox::engine(from_c<fb::engine::kind>(kind), index)};
    });
}

fusebox_status_t fusebox_make_engine_with_allocator(fusebox_engine_t *engine, fusebox_engine_kind_t kind, size_t index,
                                                    const_fusebox_allocator_t alloc) {
    return guarded([&] {
        checked(engine, "engine is null");
        const auto &a = checked(alloc, "allocator is null");
        *engine = new fusebox_engine{fb::make_engine_with_allocator(from_c<fb::engine::kind>(kind), index, a.a)};
    });
}

fusebox_status_t fusebox_engine_get_kind(fusebox_engine_t engine, fusebox_engine_kind_t *kind) {
    return guarded([&] {
        checked(kind, "kind is null") =
            static_cast<fusebox_engine_kind_t>(checked(engine, "engine is null").e.get_kind());
    });
}

fusebox_status_t fusebox_engine_destroy(fusebox_engine_t engine) {
    return guarded([&] { delete engine; });
}

fusebox_status_t fusebox_stream_create(fusebox_stream_t *stream, fusebox_engine_t engine, unsigned flags) {
    return guarded([&] {
        checked(stream, "stream is null");
        const auto &e = checked(engine, "engine is null");
        *stream = new fusebox_stream{fusebox::stream(e.e, static_cast<fb::stream::flags>(flags)), e};
    });
}

fusebox_status_t fusebox_stream_get_engine(const_fusebox_stream_t stream, fusebox_engine_t *engine) {
    return guarded([&] {
        checked(engine, "engine is null") = const_cast<fusebox_engine *>(&checked(stream, "stream is null").engine);
    });
}

fusebox_status_t fusebox_stream_wait(fusebox_stream_t stream) {
    return guarded([&] { checked(stream, "stream is null").s.wait(); });
}

fusebox_status_t fusebox_stream_destroy(fusebox_stream_t stream) {
    return guarded([&] { delete stream; });
}

fusebox_status_t fusebox_logical_tensor_init(fusebox_logical_tensor_t *c_lt, size_t tid, fusebox_data_type_t dtype,
                                             int32_t ndims, fusebox_layout_type_t ltype,
                                             fusebox_tensor_property_t ptype) {
    return guarded([&] {
        checked(c_lt, "logical tensor is null");
        if (ndims > FUSEBOX_MAX_NDIMS)
            fb::detail::fail(fb::status::invalid_arguments, "logical tensor ", tid, ": ndims ", ndims, " exceeds ",
                             FUSEBOX_MAX_NDIMS);
        *c_lt = to_c(fb::logical_tensor(tid, from_c<fb::data_type>(dtype), ndims,
                                        from_c<fb::logical_tensor::layout_type>(ltype),
                                        from_c<fb::logical_tensor::property_type>(ptype)));
    });
}

fusebox_status_t fusebox_logical_tensor_init_with_dims(fusebox_logical_tensor_t *c_lt, size_t tid,
                                                       fusebox_data_type_t dtype, int32_t ndims,
                                                       const fusebox_dims_t dims, fusebox_layout_type_t ltype,
                                                       fusebox_tensor_property_t ptype) {
    return guarded([&] {
        checked(c_lt, "logical tensor is null");
        if (ndims < 0 || ndims > FUSEBOX_MAX_NDIMS)
            fb::detail::fail(fb::status::invalid_arguments, "logical tensor ", tid, ": ndims ", ndims,
                             " is not in [0, ", FUSEBOX_MAX_NDIMS, "]");
        if (!dims && ndims) bad("dims is null");
        *c_lt = to_c(fb::logical_tensor(tid, from_c<fb::data_type>(dtype), fb::logical_tensor::dims(dims, dims + ndims),
                                        from_c<fb::logical_tensor::layout_type>(ltype),
                                        from_c<fb::logical_tensor::property_type>(ptype)));
    });
}

fusebox_status_t fusebox_logical_tensor_init_with_strides(fusebox_logical_tensor_t *c_lt, size_t tid,
                                                          fusebox_data_type_t dtype, int32_t ndims,
                                                          const fusebox_dims_t dims, const fusebox_dims_t strides,
                                                          fusebox_tensor_property_t ptype) {
    return guarded([&] {
        checked(c_lt, "logical tensor is null");
        if (ndims < 0 || ndims > FUSEBOX_MAX_NDIMS)
            fb::detail::fail(fb::status::invalid_arguments, "logical tensor ", tid, ": ndims ", ndims,
                             " is not in [0, ", FUSEBOX_MAX_NDIMS, "]");
        if ((!dims || !strides) && ndims) bad("dims or strides is null");
        *c_lt = to_c(fb::logical_tensor(tid, from_c<fb::data_type>(dtype), fb::logical_tensor::dims(dims, dims + ndims),
                                        fb::logical_tensor::dims(strides, strides + ndims),
                                        from_c<fb::logical_tensor::property_type>(ptype)));
    });
}

fusebox_status_t fusebox_logical_tensor_get_mem_size(const fusebox_logical_tensor_t *c_lt, size_t *size) {
    return guarded([&] { checked(size, "size is null") = to_cpp(c_lt).get_mem_size(); });
}

fusebox_status_t fusebox_logical_tensor_is_equal(const fusebox_logical_tensor_t *lt1,
                                                 const fusebox_logical_tensor_t *lt2, uint8_t *is_equal) {
    return guarded([&] { checked(is_equal, "is_equal is null") = to_cpp(lt1).is_equal(to_cpp(lt2)) ? 1 : 0; });
}

fusebox_status_t fusebox_tensor_create(fusebox_tensor_t *tensor, const fusebox_logical_tensor_t *c_lt,
                                       fusebox_engine_t engine, void *handle) {
    return guarded([&] {
        checked(tensor, "tensor is null");
        const auto &e = checked(engine, "engine is null");
        *tensor = new fusebox_tensor{fusebox::tensor(to_cpp(c_lt), e.e, handle), e};
    });
}

fusebox_status_t fusebox_tensor_create_scalar(fusebox_tensor_t *tensor, const fusebox_logical_tensor_t *c_lt,
                                              void *scalar) {
    return guarded([&] {
        checked(tensor, "tensor is null");
        fb::tensor t = fb::tensor::make_scalar_tensor(to_cpp(c_lt), scalar);
        fb::engine e = t.get_engine();
        *tensor = new fusebox_tensor{std::move(t), fusebox_engine{std::move(e)}};
    });
}

fusebox_status_t fusebox_tensor_destroy(fusebox_tensor_t tensor) {
    return guarded([&] { delete tensor; });
}

fusebox_status_t fusebox_tensor_get_data_handle(const_fusebox_tensor_t tensor, void **handle) {
    return guarded([&] { checked(handle, "handle is null") = checked(tensor, "tensor is null").t.get_data_handle(); });
}

fusebox_status_t fusebox_tensor_set_data_handle(fusebox_tensor_t tensor, void *handle) {
    return guarded([&] { checked(tensor, "tensor is null").t.set_data_handle(handle); });
}

fusebox_status_t fusebox_tensor_get_engine(const_fusebox_tensor_t tensor, fusebox_engine_t *engine) {
    return guarded([&] {
        checked(engine, "engine is null") = const_cast<fusebox_engine *>(&checked(tensor, "tensor is null").engine);
    });
}

fusebox_status_t fusebox_tensor_get_logical_tensor(const_fusebox_tensor_t tensor, fusebox_logical_tensor_t *c_lt) {
    return guarded([&] {
        checked(c_lt, "logical tensor is null") = to_c(checked(tensor, "tensor is null").t.get_logical_tensor());
    });
}

fusebox_status_t fusebox_op_create(fusebox_op_t *op, size_t id, fusebox_op_kind_t kind, const char *verbose_name) {
    return guarded([&] {
        checked(op, "op is null");
        *op = new fusebox_op{id, from_c<fb::op::kind>(kind), {}, {}, verbose_name ? verbose_name : "", {}};
    });
}

fusebox_status_t fusebox_op_destroy(fusebox_op_t op) {
    return guarded([&] { delete op; });
}

fusebox_status_t fusebox_op_add_input(fusebox_op_t op, const fusebox_logical_tensor_t *input) {
    return guarded([&] { checked(op, "op is null").inputs.push_back(to_cpp(input)); });
}

fusebox_status_t fusebox_op_add_output(fusebox_op_t op, const fusebox_logical_tensor_t *output) {
    return guarded([&] { checked(op, "op is null").outputs.push_back(to_cpp(output)); });
}

fusebox_status_t fusebox_op_set_attr_f32(fusebox_op_t op, fusebox_op_attr_t name, const float *value,
                                         size_t value_len) {
    return guarded([&] { set_attr_values(op, name, value, value_len); });
}

fusebox_status_t fusebox_op_set_attr_bool(fusebox_op_t op, fusebox_op_attr_t name, const uint8_t *value,
                                          size_t value_len) {
    return guarded([&] { set_attr_values(op, name, value, value_len); });
}

fusebox_status_t fusebox_op_set_attr_s64(fusebox_op_t op, fusebox_op_attr_t name, const int64_t *value,
                                         size_t value_len) {
    return guarded([&] { set_attr_values(op, name, value, value_len); });
}

fusebox_status_t fusebox_op_set_attr_str(fusebox_op_t op, fusebox_op_attr_t name, const char *value, size_t value_len) {
    return guarded([&] {
        auto &o = checked(op, "op is null");
        if (!value) bad("attribute value is null");
        // As oneDNN: the string runs to its terminator, whatever value_len says
        // (oneDNN's own programs pass 0, 1 or the length).
        (void)value_len;
        o.attrs[from_c<fb::op::attr>(name)] = std::string(value);
    });
}

fusebox_status_t fusebox_op_get_id(const_fusebox_op_t op, size_t *id) {
    return guarded([&] { checked(id, "id is null") = checked(op, "op is null").id; });
}

fusebox_status_t fusebox_op_get_kind(const_fusebox_op_t op, fusebox_op_kind_t *kind) {
    return guarded(
        [&] { checked(kind, "kind is null") = static_cast<fusebox_op_kind_t>(checked(op, "op is null").kind); });
}

fusebox_status_t fusebox_graph_create(fusebox_graph_t *graph, fusebox_engine_kind_t engine_kind) {
    return fusebox_graph_create_with_fpmath_mode(graph, engine_kind, fusebox_fpmath_mode_strict);
}

fusebox_status_t fusebox_graph_create_with_fpmath_mode(fusebox_graph_t *graph, fusebox_engine_kind_t engine_kind,
                                                       fusebox_fpmath_mode_t mode) {
    return guarded([&] {
        checked(graph, "graph is null");
        *graph =
            new fusebox_graph{fusebox::graph(from_c<fb::engine::kind>(engine_kind), from_c<fb::fpmath_mode>(mode)), {}};
    });
}

fusebox_status_t fusebox_graph_destroy(fusebox_graph_t graph) {
    return guarded([&] { delete graph; });
}

fusebox_status_t fusebox_graph_set_fpmath_mode(fusebox_graph_t graph, fusebox_fpmath_mode_t mode, int apply_to_int) {
    return guarded(
        [&] { checked(graph, "graph is null").g.set_fpmath_mode(from_c<fb::fpmath_mode>(mode), apply_to_int != 0); });
}

fusebox_status_t fusebox_graph_get_fpmath_mode(fusebox_graph_t graph, fusebox_fpmath_mode_t *mode, int *apply_to_int) {
    return guarded([&] {
        checked(mode, "mode is null");
        checked(apply_to_int, "apply_to_int is null");
        fb::fpmath_mode m;
        bool to_int;
        checked(graph, "graph is null").g.get_fpmath_mode(m, to_int);
        *mode = static_cast<fusebox_fpmath_mode_t>(m);
        *apply_to_int = to_int;
    });
}

fusebox_status_t fusebox_add_op(fusebox_graph_t graph, fusebox_op_t op) {
    return guarded(
        [&] { checked(graph, "graph is null").g.add_op(fb::detail::access::view(&checked(op, "op is null"))); });
}

fusebox_status_t fusebox_graph_finalize(fusebox_graph_t graph) {
    return guarded([&] { checked(graph, "graph is null").g.finalize(); });
}

fusebox_status_t fusebox_graph_is_finalized(fusebox_graph_t graph, uint8_t *finalized) {
    return guarded(
        [&] { checked(finalized, "finalized is null") = checked(graph, "graph is null").g.is_finalized() ? 1 : 0; });
}

fusebox_status_t fusebox_graph_set_deterministic(fusebox_graph_t graph, int deterministic) {
    return guarded([&] { checked(graph, "graph is null").g.set_deterministic(deterministic != 0); });
}

fusebox_status_t fusebox_graph_get_deterministic(const_fusebox_graph_t graph, int *deterministic) {
    return guarded([&] {
        const auto &g = checked(graph, "graph is null");
        checked(deterministic, "deterministic is null") = g.g.get_deterministic() ? 1 : 0;
    });
}

fusebox_status_t fusebox_graph_filter(fusebox_graph_t graph, fusebox_partition_policy_t policy) {
    return guarded([&] {
        auto &g = checked(graph, "graph is null");
        g.parts = g.g.get_partitions(from_c<fb::partition::policy>(policy));
    });
}

fusebox_status_t fusebox_graph_get_partition_num(const_fusebox_graph_t graph, size_t *num) {
    return guarded([&] { checked(num, "num is null") = checked(graph, "graph is null").parts.size(); });
}

fusebox_status_t fusebox_graph_get_partitions(fusebox_graph_t graph, size_t num, fusebox_partition_t *partitions) {
    return guarded([&] {
        auto &g = checked(graph, "graph is null");
        if (num != g.parts.size())
            fb::detail::fail(fb::status::invalid_arguments, "get_partitions: the graph has ", g.parts.size(),
                             " partitions, asked for ", num);
        if (!partitions && num) bad("partitions is null");
        std::vector<fusebox_partition *> made;
        try {
            for (const auto &p : g.parts) made.push_back(new fusebox_partition{p});
        } catch (...) {
            for (auto *p : made) delete p;
            throw;
        }
        std::copy(made.begin(), made.end(), partitions);
    });
}

fusebox_status_t fusebox_partition_create_with_op(fusebox_partition_t *partition, const_fusebox_op_t op,
                                                  fusebox_engine_kind_t ekind) {
    return guarded([&] {
        checked(partition, "partition is null");
        *partition = new fusebox_partition{
            fusebox::partition(fb::detail::access::view(const_cast<fusebox_op *>(&checked(op, "op is null"))),
                               from_c<fb::engine::kind>(ekind))};
    });
}

fusebox_status_t fusebox_partition_destroy(fusebox_partition_t partition) {
    return guarded([&] { delete partition; });
}

fusebox_status_t fusebox_partition_get_op_num(const_fusebox_partition_t partition, size_t *num) {
    return guarded([&] { checked(num, "num is null") = checked(partition, "partition is null").p.get_ops_num(); });
}

fusebox_status_t fusebox_partition_get_ops(fusebox_partition_t partition, size_t num, size_t *ids) {
    return guarded([&] {
        const auto ops = checked(partition, "partition is null").p.get_ops();
        if (num != ops.size())
            fb::detail::fail(fb::status::invalid_arguments, "get_ops: the partition has ", ops.size(),
                             " ops, asked for ", num);
        if (!ids && num) bad("ids is null");
        std::copy(ops.begin(), ops.end(), ids);
    });
}

fusebox_status_t fusebox_partition_get_id(const_fusebox_partition_t partition, size_t *id) {
    return guarded([&] { checked(id, "id is null") = checked(partition, "partition is null").p.get_id(); });
}

fusebox_status_t fusebox_partition_is_supported(const_fusebox_partition_t partition, uint8_t *is_supported) {
    return guarded([&] {
        checked(is_supported, "is_supported is null") =
            checked(partition, "partition is null").p.is_supported() ? 1 : 0;
    });
}

fusebox_status_t fusebox_partition_get_engine_kind(const_fusebox_partition_t partition, fusebox_engine_kind_t *kind) {
    return guarded([&] {
        checked(kind, "kind is null") =
            static_cast<fusebox_engine_kind_t>(checked(partition, "partition is null").p.get_engine_kind());
    });
}

namespace {
fusebox_status_t ports(const_fusebox_partition_t partition, bool inputs, size_t *num, size_t want,
                       fusebox_logical_tensor_t *out) {
    return guarded([&] {
        const auto &p = checked(partition, "partition is null").p;
        const auto list = inputs ? p.get_input_ports() : p.get_output_ports();
        if (num) return void(*num = list.size());
        if (want != list.size())
            fb::detail::fail(fb::status::invalid_arguments, "the partition has ", list.size(),
                             inputs ? " input" : " output", " ports, asked for ", want);
        if (!out && want) bad("ports is null");
        for (size_t i = 0; i < list.size(); ++i) out[i] = to_c(list[i]);
    });
}
} // namespace

fusebox_status_t fusebox_partition_get_input_ports_num(const_fusebox_partition_t partition, size_t *num) {
    if (!num) return guarded([] { bad("num is null"); });
    return ports(partition, true, num, 0, nullptr);
}

fusebox_status_t fusebox_partition_get_input_ports(const_fusebox_partition_t partition, size_t num,
                                                   fusebox_logical_tensor_t *inputs) {
    return ports(partition, true, nullptr, num, inputs);
}

fusebox_status_t fusebox_partition_get_output_ports_num(const_fusebox_partition_t partition, size_t *num) {
    if (!num) return guarded([] { bad("num is null"); });
    return ports(partition, false, num, 0, nullptr);
}

fusebox_status_t fusebox_partition_get_output_ports(const_fusebox_partition_t partition, size_t num,
                                                    fusebox_logical_tensor_t *outputs) {
    return ports(partition, false, nullptr, num, outputs);
}

fusebox_status_t fusebox_partition_compile(fusebox_partition_t partition,
                                           fusebox_compiled_partition_t compiled_partition, size_t in_num,
                                           const fusebox_logical_tensor_t **inputs, size_t out_num,
                                           const fusebox_logical_tensor_t **outputs, fusebox_engine_t engine) {
    return guarded([&] {
        const auto &p = checked(partition, "partition is null").p;
        auto &cp = checked(compiled_partition, "compiled partition is null");
        if ((!inputs && in_num) || (!outputs && out_num)) bad("inputs or outputs is null");
        std::vector<fb::logical_tensor> ins, outs;
        for (size_t i = 0; i < in_num; ++i) ins.push_back(to_cpp(inputs[i]));
        for (size_t i = 0; i < out_num; ++i) outs.push_back(to_cpp(outputs[i]));
        fb::compiled_partition made = p.compile(ins, outs, checked(engine, "engine is null").e);
        std::vector<fusebox_inplace_pair_t> pairs;
        for (const auto &[i, o] : made.get_inplace_ports()) pairs.push_back({i, o});
        cp.impl = made.get_impl_info();
        cp.cp = std::move(made);
        cp.pairs = std::move(pairs);
        cp.compiled = true;
    });
}

fusebox_status_t fusebox_compiled_partition_create(fusebox_compiled_partition_t *compiled_partition,
                                                   fusebox_partition_t partition) {
    return guarded([&] {
        checked(compiled_partition, "compiled partition is null");
        *compiled_partition =
            new fusebox_compiled_partition{checked(partition, "partition is null").p, {}, false, {}, {}};
    });
}

fusebox_status_t fusebox_compiled_partition_execute(const_fusebox_compiled_partition_t compiled_partition,
                                                    fusebox_stream_t stream, size_t num_inputs,
                                                    const_fusebox_tensor_t *inputs, size_t num_outputs,
                                                    const_fusebox_tensor_t *outputs) {
    return guarded([&] {
        const auto &cp = compiled(compiled_partition);
        auto &s = checked(stream, "stream is null");
        if ((!inputs && num_inputs) || (!outputs && num_outputs)) bad("inputs or outputs is null");
        fb::detail::small_buffer<const fb::tensor *, 16> ins(num_inputs), outs(num_outputs);
        for (size_t i = 0; i < num_inputs; ++i) ins[i] = &checked(inputs[i], "an input tensor is null").t;
        for (size_t i = 0; i < num_outputs; ++i) outs[i] = &checked(outputs[i], "an output tensor is null").t;
        fb::detail::access::execute(cp.cp, s.s, ins.data(), num_inputs, outs.data(), num_outputs);
    });
}

fusebox_status_t fusebox_compiled_partition_destroy(fusebox_compiled_partition_t compiled_partition) {
    return guarded([&] { delete compiled_partition; });
}

fusebox_status_t fusebox_compiled_partition_query_logical_tensor(const_fusebox_compiled_partition_t compiled_partition,
                                                                 size_t tid, fusebox_logical_tensor_t *lt) {
    return guarded([&] {
        checked(lt, "logical tensor is null") = to_c(compiled(compiled_partition).cp.query_logical_tensor(tid));
    });
}

fusebox_status_t fusebox_compiled_partition_get_inplace_ports(const_fusebox_compiled_partition_t compiled_partition,
                                                              size_t *num_inplace_pairs,
                                                              const fusebox_inplace_pair_t **inplace_pairs) {
    return guarded([&] {
        const auto &cp = compiled(compiled_partition);
        checked(num_inplace_pairs, "num_inplace_pairs is null") = cp.pairs.size();
        checked(inplace_pairs, "inplace_pairs is null") = cp.pairs.data();
    });
}

fusebox_status_t fusebox_compiled_partition_get_partition_impl(const_fusebox_compiled_partition_t compiled_partition,
                                                               const char **str) {
    return guarded([&] { checked(str, "str is null") = compiled(compiled_partition).impl.c_str(); });
}

fusebox_status_t fusebox_get_compiled_partition_cache_capacity(int *capacity) {
    return guarded([&] { checked(capacity, "capacity is null") = fb::get_compiled_partition_cache_capacity(); });
}

fusebox_status_t fusebox_set_compiled_partition_cache_capacity(int capacity) {
    return guarded([&] { fb::set_compiled_partition_cache_capacity(capacity); });
}

fusebox_status_t fusebox_set_constant_tensor_cache(int flag) {
    return guarded([&] { fb::set_constant_tensor_cache(flag); });
}

fusebox_status_t fusebox_get_constant_tensor_cache(int *flag) {
    return guarded([&] { checked(flag, "flag is null") = fb::get_constant_tensor_cache(); });
}

fusebox_status_t fusebox_set_constant_tensor_cache_capacity(fusebox_engine_kind_t eng_kind, size_t size) {
    return guarded([&] { fb::set_constant_tensor_cache_capacity(from_c<fb::engine::kind>(eng_kind), size); });
}

fusebox_status_t fusebox_get_constant_tensor_cache_capacity(fusebox_engine_kind_t eng_kind, size_t *size) {
    return guarded([&] {
        checked(size, "size is null") = fb::get_constant_tensor_cache_capacity(from_c<fb::engine::kind>(eng_kind));
    });
}

fusebox_status_t fusebox_set_dump_mode(unsigned modes) {
    fusebox_status_t s = static_cast<fusebox_status_t>(fb::set_dump_mode(static_cast<fb::graph_dump_mode>(modes)));
    last_error = s == fusebox_success ? "" : "fusebox: set_dump_mode: unknown mode bits";
    return s;
}

fusebox_status_t fusebox_set_verbose(int level) {
    return guarded([&] { fb::set_verbose(level); });
}

} // extern "C"
