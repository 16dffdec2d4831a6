// fusebox: a graph operator backend with a oneDNN-Graph-style API.
//
// A framework describes a graph of tensor operations with logical tensors and
// ops, finalizes it, asks for partitions, compiles each partition for concrete
// shapes and executes it on tensors. Names follow dnnl::graph so that porting
// integrator code is a namespace change.
#ifndef FUSEBOX_FUSEBOX_HPP
#define FUSEBOX_FUSEBOX_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#if defined(_WIN32)
#define FUSEBOX_API
#else
#define FUSEBOX_API __attribute__((visibility("default")))
#endif

namespace fusebox {

/// Element types. `boolean` is one byte holding 0 or 1; a `string` element is
/// a string_view_t (bytes compared, no terminator needed).
enum class data_type { undef, f16, bf16, f32, f64, s8, u8, s16, u16, s32, u32, s64, u64, boolean, string };

/// One element of a `data_type::string` tensor.
struct string_view_t {
    const char *data;
    size_t size;
};

/// Size in bytes of one element of `dt` (0 for undef).
FUSEBOX_API size_t data_type_size(data_type dt);
/// Lower-case name of `dt` as used in messages and benchdnn cases ("f32", "boolean", ...).
FUSEBOX_API const char *data_type_name(data_type dt);

/// Outcome classes carried by fusebox::error.
enum class status {
    success,
    invalid_arguments,
    invalid_graph,
    invalid_shape,
    invalid_data_type,
    unimplemented,
    out_of_memory,
    runtime_error
};

/// The only exception fusebox throws. The message names the op id, port or
/// tensor id and the reason.
class FUSEBOX_API error : public std::exception {
public:
    error(status s, std::string message);
    /// The class of failure.
    status get_status() const { return status_; }
    const char *what() const noexcept override { return message_.c_str(); }

private:
    status status_;
    std::string message_;
};

/// Describes a tensor without owning memory: id, element type, shape, layout.
class FUSEBOX_API logical_tensor {
public:
    using dims = std::vector<int64_t>;
    enum class layout_type { undef, any, strided };
    enum class property_type { undef, variable, constant };
    /// A dimension whose extent is not known yet.
    static constexpr int64_t unknown_dim = -1;

    /// An undefined tensor (id 0, undef type, unknown rank).
    logical_tensor() = default;
    /// A tensor of known rank; `strided` gives dense row-major strides, `any`
    /// leaves the layout to the library. -1 in `shape` is an unknown dim.
    logical_tensor(size_t id, data_type dt, dims shape, layout_type lt = layout_type::strided,
                   property_type pt = property_type::undef);
    /// A strided tensor with explicit strides (in elements).
    logical_tensor(size_t id, data_type dt, dims shape, dims strides, property_type pt = property_type::undef);
    /// A tensor of unknown rank; its shape is inferred by graph::finalize or compile.
    logical_tensor(size_t id, data_type dt, layout_type lt = layout_type::any);

    size_t get_id() const { return id_; }
    data_type get_data_type() const { return data_type_; }
    /// Number of dimensions, or -1 when the rank is unknown.
    int32_t get_ndims() const { return ndims_; }
    /// The shape; empty for rank 0 and for unknown rank.
    const dims &get_dims() const { return dims_; }
    /// Strides in elements; empty unless the layout is strided.
    const dims &get_strides() const { return strides_; }
    layout_type get_layout_type() const { return layout_; }
    property_type get_property_type() const { return property_; }
    /// Bytes spanned by the tensor's elements; 0 when the shape is not fully known.
    size_t get_mem_size() const;
    /// True when rank and every dim are known.
    bool has_known_shape() const;
    /// Same id, type, shape, layout and strides.
    bool is_equal(const logical_tensor &other) const;

private:
    size_t id_ = 0;
    data_type data_type_ = data_type::undef;
    int32_t ndims_ = -1;
    dims dims_;
    dims strides_;
    layout_type layout_ = layout_type::undef;
    property_type property_ = property_type::undef;
};

/// One operation of a graph: kind, attributes, input and output logical tensors.
class FUSEBOX_API op {
public:
    enum class kind { Add, Equal, End };
    /// `auto_broadcast`: "numpy" (default) or "none". `broadcast` (0/1) and
    /// `axis` select ONNX's legacy unidirectional rule (Add-1/6, Equal-1).
    /// `consumed_inputs` is accepted and ignored.
    enum class attr { auto_broadcast, broadcast, axis, consumed_inputs };
    using attr_value = std::variant<std::string, int64_t, std::vector<int64_t>>;

    op(size_t id, kind k, std::vector<logical_tensor> inputs, std::vector<logical_tensor> outputs,
       std::string name = "");

    op &set_attr(attr a, const std::string &value);
    op &set_attr(attr a, int64_t value);
    op &set_attr(attr a, const std::vector<int64_t> &value);
    /// Appends an input or output logical tensor.
    op &add_input(const logical_tensor &lt);
    op &add_output(const logical_tensor &lt);

    size_t get_id() const { return id_; }
    kind get_kind() const { return kind_; }
    const std::string &get_name() const { return name_; }
    const std::vector<logical_tensor> &get_inputs() const { return inputs_; }
    const std::vector<logical_tensor> &get_outputs() const { return outputs_; }
    const std::map<attr, attr_value> &get_attrs() const { return attrs_; }

private:
    friend class graph;
    size_t id_;
    kind kind_;
    std::vector<logical_tensor> inputs_;
    std::vector<logical_tensor> outputs_;
    std::string name_;
    std::map<attr, attr_value> attrs_;
};

/// Name of an op kind ("Add", "Equal", "End").
FUSEBOX_API const char *op_kind_name(op::kind k);

/// The device partitions are compiled for. Only the CPU exists.
class FUSEBOX_API engine {
public:
    enum class kind { cpu };
    explicit engine(kind k, size_t index = 0);
    kind get_kind() const { return kind_; }

private:
    kind kind_;
};

/// An execution queue. fusebox executes synchronously on the caller's TBB
/// arena, so wait() returns at once.
class FUSEBOX_API stream {
public:
    explicit stream(const engine &e);
    void wait() {}
    const engine &get_engine() const { return engine_; }

private:
    engine engine_;
};

/// A logical tensor bound to user memory (not owned).
class FUSEBOX_API tensor {
public:
    tensor() = default;
    tensor(const logical_tensor &lt, const engine &e, void *handle);
    void *get_data_handle() const { return handle_; }
    void set_data_handle(void *handle) { handle_ = handle; }
    logical_tensor get_logical_tensor() const { return lt_; }

private:
    logical_tensor lt_;
    void *handle_ = nullptr;
};

namespace detail {
struct compiled_impl;
struct partition_impl;
struct graph_impl;
} // namespace detail

/// A partition compiled for concrete input and output shapes.
class FUSEBOX_API compiled_partition {
public:
    compiled_partition() = default;
    /// The logical tensor of input or output `id` as compiled (inferred shape,
    /// strides and type for outputs).
    logical_tensor query_logical_tensor(size_t id) const;
    /// (input id, output id) pairs that may share one buffer.
    std::vector<std::pair<size_t, size_t>> query_inplace_ports() const;
    /// Runs the partition. Tensors are matched to ports by logical tensor id.
    /// Safe to call concurrently with different tensors.
    void execute(stream &s, const std::vector<tensor> &inputs, const std::vector<tensor> &outputs) const;
    /// Short description of the implementation chosen, e.g.
    /// "onednn:jit:uni" or "native:expr".
    std::string get_impl_info() const;

private:
    friend class partition;
    std::shared_ptr<const detail::compiled_impl> impl_;
};

/// A group of ops that compile to one kernel.
class FUSEBOX_API partition {
public:
    enum class policy { fusion, debug };
    partition() = default;
    size_t get_id() const;
    /// Ids of the ops in this partition, in execution order.
    std::vector<size_t> get_ops() const;
    size_t get_ops_num() const;
    bool is_supported() const;
    std::vector<logical_tensor> get_input_ports() const;
    std::vector<logical_tensor> get_output_ports() const;
    /// Compiles for the given input shapes. Output logical tensors may leave
    /// shape and layout to be inferred (query them on the result).
    compiled_partition compile(const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs,
                               const engine &e) const;

private:
    friend class graph;
    std::shared_ptr<const detail::partition_impl> impl_;
};

/// A graph of ops. Add ops, finalize, then get partitions.
class FUSEBOX_API graph {
public:
    explicit graph(engine::kind k);
    /// Validates the op (arity, attributes, types) and adds it.
    void add_op(const op &o);
    /// Checks connectivity, orders ops and infers unknown shapes and types.
    void finalize();
    bool is_finalized() const;
    /// Partitions in a valid execution order.
    std::vector<partition> get_partitions(partition::policy p = partition::policy::fusion);

private:
    std::shared_ptr<detail::graph_impl> impl_;
};

} // namespace fusebox

#endif // FUSEBOX_FUSEBOX_HPP
