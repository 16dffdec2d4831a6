// fusebox: a graph operator backend with oneDNN Graph's API.
//
// A framework describes its whole graph with logical tensors and ops,
// finalizes it and asks for partitions. fusebox runs the elementwise ops of
// its catalogue (doc/SUPPORT.md), fusing connected regions of them; every
// other op becomes a partition of its own
// with is_supported() == false, which the framework runs itself. Supported
// partitions are compiled for concrete shapes and executed on tensors.
//
// A program written against oneDNN Graph (dnnl::graph) ports by replacing the
// header and the dnnl/DNNL prefixes: see doc/INTEGRATION.md.
#ifndef FUSEBOX_FUSEBOX_HPP
#define FUSEBOX_FUSEBOX_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fusebox/fusebox.h"

namespace fusebox {

namespace detail {
struct allocator_impl;
struct engine_impl;
struct tensor_impl;
struct compiled_impl;
struct partition_impl;
struct graph_impl;
struct access; // the library's way into the handles below
} // namespace detail

/// Element types (oneDNN's values where oneDNN has the type). `boolean` is one
/// byte holding 0 or 1; a `string` element is a string_view_t. The f8, f4,
/// e8m0, s4 and u4 types are storage only: valid in logical tensors and
/// tensors (4-bit elements two per byte), and an op over them is an
/// unsupported partition.
enum class data_type {
    undef = fusebox_data_type_undef,
    f16 = fusebox_f16,
    bf16 = fusebox_bf16,
    f32 = fusebox_f32,
    f64 = fusebox_f64,
    s8 = fusebox_s8,
    u8 = fusebox_u8,
    s16 = fusebox_s16,
    u16 = fusebox_u16,
    s32 = fusebox_s32,
    u32 = fusebox_u32,
    s64 = fusebox_s64,
    u64 = fusebox_u64,
    boolean = fusebox_boolean,
    string = fusebox_string,
    f8_e5m2 = fusebox_f8_e5m2,
    f8_e4m3 = fusebox_f8_e4m3,
    s4 = fusebox_s4,
    u4 = fusebox_u4,
    e8m0 = fusebox_e8m0,
    f4_e2m1 = fusebox_f4_e2m1,
    f4_e3m0 = fusebox_f4_e3m0,
};

/// One element of a `data_type::string` tensor (bytes compared, no terminator needed).
using string_view_t = fusebox_string_view_t;

/// Size in bytes of one element of `dt` (0 for undef and unknown values).
FUSEBOX_API size_t data_type_size(data_type dt);
/// Lower-case name of `dt` as used in messages and benchdnn cases ("f32", "boolean", ...).
FUSEBOX_API const char *data_type_name(data_type dt);

/// Outcome classes carried by fusebox::error (oneDNN's values).
enum class status {
    success = fusebox_success,
    out_of_memory = fusebox_out_of_memory,
    invalid_arguments = fusebox_invalid_arguments,
    unimplemented = fusebox_unimplemented,
    last_impl_reached = fusebox_last_impl_reached,
    runtime_error = fusebox_runtime_error,
    not_required = fusebox_not_required,
    invalid_graph = fusebox_invalid_graph,
    invalid_graph_op = fusebox_invalid_graph_op,
    invalid_shape = fusebox_invalid_shape,
    invalid_data_type = fusebox_invalid_data_type,
};

/// The only exception fusebox throws. The message names the op (id and
/// name), port or tensor id and the reason.
struct FUSEBOX_API error : public std::exception {
    /// The class of failure, as a C status (as oneDNN's dnnl::error).
    fusebox_status_t status;
    /// The message, as what() returns it.
    const char *message;

    error(fusebox::status s, const std::string &message);
    error(fusebox_status_t s, const char *message);
    /// The class of failure.
    fusebox::status get_status() const noexcept { return static_cast<fusebox::status>(status); }
    const char *what() const noexcept override { return message; }
    /// Throws error(s, message) unless s is fusebox_success.
    static void wrap_c_api(fusebox_status_t s, const char *message);

private:
    std::shared_ptr<const std::string> text_; // shared by copies; `message` points into it
};

/// Floating-point math mode of a graph. `strict` (the default) keeps every
/// result exact; doc/INTEGRATION.md says what the relaxed modes allow.
enum class fpmath_mode {
    strict = fusebox_fpmath_mode_strict,
    bf16 = fusebox_fpmath_mode_bf16,
    f16 = fusebox_fpmath_mode_f16,
    any = fusebox_fpmath_mode_any,
    tf32 = fusebox_fpmath_mode_tf32,
};

/// Describes a tensor without owning memory: id, element type, shape, layout.
class FUSEBOX_API logical_tensor {
    friend struct detail::access;

public:
    using data_type = ::fusebox::data_type;
    using dim = int64_t;
    using dims = std::vector<dim>;
    enum class layout_type {
        undef = fusebox_layout_type_undef,
        any = fusebox_layout_type_any,
        strided = fusebox_layout_type_strided,
        opaque = fusebox_layout_type_opaque, ///< accepted in descriptors; fusebox never produces it
    };
    enum class property_type {
        undef = fusebox_tensor_property_undef,
        variable = fusebox_tensor_property_variable,
        constant = fusebox_tensor_property_constant,
        host_scalar = fusebox_tensor_property_host_scalar, ///< rank 0, its value on the host (make_scalar_tensor)
    };
    /// A dimension whose extent is not known yet (FUSEBOX_UNKNOWN_DIM is accepted too).
    static constexpr dim unknown_dim = -1;

    /// An undefined tensor (id 0, undef type, unknown rank).
    logical_tensor() = default;
    /// A tensor of known rank; `strided` gives dense row-major strides, `any`
    /// leaves the layout to the library. -1 or FUSEBOX_UNKNOWN_DIM in `shape`
    /// is an unknown dim.
    logical_tensor(size_t id, data_type dt, dims shape, layout_type lt = layout_type::strided,
                   property_type pt = property_type::undef);
    /// A strided tensor with explicit strides (in elements).
    logical_tensor(size_t id, data_type dt, dims shape, dims strides, property_type pt = property_type::undef);
    /// A tensor of `ndims` unknown dims (FUSEBOX_UNKNOWN_NDIMS: unknown rank; 0: a scalar).
    /// (A template so that a braced shape such as {4} always means dims, never ndims.)
    template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, bool> = true>
    logical_tensor(size_t id, data_type dt, Int ndims, layout_type lt, property_type pt = property_type::undef)
        : logical_tensor(id, dt, rank_tag{static_cast<int64_t>(ndims)}, lt, pt) {}
    /// A tensor of unknown rank; its shape is inferred by graph::finalize or compile.
    logical_tensor(size_t id, data_type dt, layout_type lt = layout_type::any);
    /// The tensor a C descriptor describes (the C API's fusebox_logical_tensor_t);
    /// its values are checked as the other constructors check theirs.
    explicit logical_tensor(const fusebox_logical_tensor_t &c);
    /// The C descriptor of this tensor (the inverse of the constructor above);
    /// throws invalid_arguments for a rank above FUSEBOX_MAX_NDIMS.
    fusebox_logical_tensor_t get() const;

    size_t get_id() const { return id_; }
    data_type get_data_type() const { return data_type_; }
    /// Number of dimensions, or -1 when the rank is unknown.
    int32_t get_ndims() const { return ndims_; }
    /// The shape (empty for rank 0); throws invalid_arguments when the rank is unknown.
    const dims &get_dims() const;
    /// Strides in elements, FUSEBOX_UNKNOWN_DIM where not known yet; throws
    /// invalid_arguments unless the layout is strided with a known rank.
    dims get_strides() const;
    layout_type get_layout_type() const { return layout_; }
    property_type get_property_type() const { return property_; }
    /// The opaque layout id; throws invalid_arguments unless the layout is opaque.
    size_t get_layout_id() const;
    /// Bytes spanned by the tensor's elements; 0 when the shape is not fully known.
    size_t get_mem_size() const;
    /// True when rank and every dim are known.
    bool has_known_shape() const;
    /// Same id, type, shape, layout and strides.
    bool is_equal(const logical_tensor &other) const;

private:
    struct rank_tag {
        int64_t ndims;
    };
    logical_tensor(size_t id, data_type dt, rank_tag ndims, layout_type lt, property_type pt);
    size_t id_ = 0;
    data_type data_type_ = data_type::undef;
    int32_t ndims_ = -1;
    dims dims_;
    dims strides_;
    layout_type layout_ = layout_type::undef;
    property_type property_ = property_type::undef;
    size_t layout_id_ = 0; // an opaque layout's id, as given
};

/// One operation of a graph: kind, attributes, input and output logical tensors.
class FUSEBOX_API op {
public:
    /// Every oneDNN Graph op kind plus fusebox's own for ONNX ops (from
    /// Equal on). fusebox runs the elementwise ones (doc/SUPPORT.md); any
    /// other kind is accepted and becomes an unsupported partition.
    enum class kind {
        Abs = fusebox_op_abs,
        AbsBackward = fusebox_op_abs_backward,
        Add = fusebox_op_add,
        AvgPool = fusebox_op_avg_pool,
        AvgPoolBackward = fusebox_op_avg_pool_backward,
        BatchNormForwardTraining = fusebox_op_batch_norm_forward_training,
        BatchNormInference = fusebox_op_batch_norm_inference,
        BatchNormTrainingBackward = fusebox_op_batch_norm_backward,
        BiasAdd = fusebox_op_bias_add,
        BiasAddBackward = fusebox_op_bias_add_backward,
        Clamp = fusebox_op_clamp,
        ClampBackward = fusebox_op_clamp_backward,
        Concat = fusebox_op_concat,
        Convolution = fusebox_op_convolution,
        ConvolutionBackwardData = fusebox_op_convolution_backward_data,
        ConvolutionBackwardWeights = fusebox_op_convolution_backward_weights,
        ConvTranspose = fusebox_op_conv_transpose,
        ConvTransposeBackwardData = fusebox_op_conv_transpose_backward_data,
        ConvTransposeBackwardWeights = fusebox_op_conv_transpose_backward_weights,
        Dequantize = fusebox_op_dequantize,
        Divide = fusebox_op_divide,
        DynamicDequantize = fusebox_op_dynamic_dequantize,
        DynamicQuantize = fusebox_op_dynamic_quantize,
        Elu = fusebox_op_elu,
        EluBackward = fusebox_op_elu_backward,
        End = fusebox_op_end,
        Exp = fusebox_op_exp,
        GELU = fusebox_op_gelu,
        GELUBackward = fusebox_op_gelu_backward,
        GroupNorm = fusebox_op_group_norm,
        HardSigmoid = fusebox_op_hard_sigmoid,
        HardSigmoidBackward = fusebox_op_hard_sigmoid_backward,
        HardSwish = fusebox_op_hard_swish,
        HardSwishBackward = fusebox_op_hard_swish_backward,
        Interpolate = fusebox_op_interpolate,
        InterpolateBackward = fusebox_op_interpolate_backward,
        LayerNorm = fusebox_op_layer_norm,
        LayerNormBackward = fusebox_op_layer_norm_backward,
        LeakyReLU = fusebox_op_leaky_relu,
        Log = fusebox_op_log,
        LogSoftmax = fusebox_op_log_softmax,
        LogSoftmaxBackward = fusebox_op_log_softmax_backward,
        MatMul = fusebox_op_matmul,
        Maximum = fusebox_op_maximum,
        MaxPool = fusebox_op_max_pool,
        MaxPoolBackward = fusebox_op_max_pool_backward,
        Minimum = fusebox_op_minimum,
        Mish = fusebox_op_mish,
        MishBackward = fusebox_op_mish_backward,
        Multiply = fusebox_op_multiply,
        Pow = fusebox_op_pow,
        PReLU = fusebox_op_prelu,
        PReLUBackward = fusebox_op_prelu_backward,
        Quantize = fusebox_op_quantize,
        Reciprocal = fusebox_op_reciprocal,
        ReduceL1 = fusebox_op_reduce_l1,
        ReduceL2 = fusebox_op_reduce_l2,
        ReduceMax = fusebox_op_reduce_max,
        ReduceMean = fusebox_op_reduce_mean,
        ReduceMin = fusebox_op_reduce_min,
        ReduceProd = fusebox_op_reduce_prod,
        ReduceSum = fusebox_op_reduce_sum,
        ReLU = fusebox_op_relu,
        ReLUBackward = fusebox_op_relu_backward,
        Reorder = fusebox_op_reorder,
        Round = fusebox_op_round,
        RMSNorm = fusebox_op_rms_norm,
        Select = fusebox_op_select,
        Sigmoid = fusebox_op_sigmoid,
        SigmoidBackward = fusebox_op_sigmoid_backward,
        SoftMax = fusebox_op_softmax,
        SoftMaxBackward = fusebox_op_softmax_backward,
        SoftPlus = fusebox_op_softplus,
        SoftPlusBackward = fusebox_op_softplus_backward,
        Sqrt = fusebox_op_sqrt,
        SqrtBackward = fusebox_op_sqrt_backward,
        Square = fusebox_op_square,
        SquaredDifference = fusebox_op_squared_difference,
        StaticReshape = fusebox_op_static_reshape,
        StaticTranspose = fusebox_op_static_transpose,
        Subtract = fusebox_op_subtract,
        Tanh = fusebox_op_tanh,
        TanhBackward = fusebox_op_tanh_backward,
        TypeCast = fusebox_op_type_cast,
        Wildcard = fusebox_op_wildcard,
        GenIndex = fusebox_op_gen_index,
        GreaterEqual = fusebox_op_greater_equal,
        Dropout = fusebox_op_dropout,
        LastSymbol = fusebox_op_last_symbol,
        Equal = fusebox_op_equal,
        Mod = fusebox_op_mod,
        Sum = fusebox_op_sum,
        Mean = fusebox_op_mean,
        Greater = fusebox_op_greater,
        Less = fusebox_op_less,
        LessEqual = fusebox_op_less_equal,
        LogicalAnd = fusebox_op_logical_and,
        LogicalOr = fusebox_op_logical_or,
        LogicalXor = fusebox_op_logical_xor,
        LogicalNot = fusebox_op_logical_not,
        BitwiseAnd = fusebox_op_bitwise_and,
        BitwiseOr = fusebox_op_bitwise_or,
        BitwiseXor = fusebox_op_bitwise_xor,
        BitwiseNot = fusebox_op_bitwise_not,
        BitShift = fusebox_op_bit_shift,
        Where = fusebox_op_where,
        Neg = fusebox_op_neg,
        Sign = fusebox_op_sign,
        Floor = fusebox_op_floor,
        Ceil = fusebox_op_ceil,
        Erf = fusebox_op_erf,
        IsNaN = fusebox_op_is_nan,
        IsInf = fusebox_op_is_inf,
        Softsign = fusebox_op_softsign,
        Selu = fusebox_op_selu,
        Clip = fusebox_op_clip,
        Cast = fusebox_op_cast,
    };

    /// Every oneDNN Graph attribute plus ONNX's legacy `broadcast` and
    /// `consumed_inputs` and fusebox's own (from `fmod` on). For the ops
    /// fusebox runs: `auto_broadcast` is "numpy" (default) or "none";
    /// `broadcast` (0/1) and `axis` select ONNX's legacy unidirectional rule
    /// on the versions that have it; `consumed_inputs` is accepted and
    /// ignored; each op's own attributes are checked (doc/SUPPORT.md). Other
    /// kinds keep their attributes as given.
    enum class attr {
        undef = fusebox_op_attr_undef,
        alpha = fusebox_op_attr_alpha,
        beta = fusebox_op_attr_beta,
        epsilon = fusebox_op_attr_epsilon,
        max = fusebox_op_attr_max,
        min = fusebox_op_attr_min,
        momentum = fusebox_op_attr_momentum,
        scales = fusebox_op_attr_scales,
        axis = fusebox_op_attr_axis,
        begin_norm_axis = fusebox_op_attr_begin_norm_axis,
        groups = fusebox_op_attr_groups,
        axes = fusebox_op_attr_axes,
        dilations = fusebox_op_attr_dilations,
        dst_shape = fusebox_op_attr_dst_shape,
        kernel = fusebox_op_attr_kernel,
        order = fusebox_op_attr_order,
        output_padding = fusebox_op_attr_output_padding,
        pads_begin = fusebox_op_attr_pads_begin,
        pads_end = fusebox_op_attr_pads_end,
        shape = fusebox_op_attr_shape,
        sizes = fusebox_op_attr_sizes,
        src_shape = fusebox_op_attr_src_shape,
        strides = fusebox_op_attr_strides,
        weights_shape = fusebox_op_attr_weights_shape,
        zps = fusebox_op_attr_zps,
        group_shape = fusebox_op_attr_group_shape,
        exclude_pad = fusebox_op_attr_exclude_pad,
        keep_dims = fusebox_op_attr_keep_dims,
        keep_stats = fusebox_op_attr_keep_stats,
        per_channel_broadcast = fusebox_op_attr_per_channel_broadcast,
        special_zero = fusebox_op_attr_special_zero,
        transpose_a = fusebox_op_attr_transpose_a,
        transpose_b = fusebox_op_attr_transpose_b,
        use_affine = fusebox_op_attr_use_affine,
        use_dst = fusebox_op_attr_use_dst,
        auto_broadcast = fusebox_op_attr_auto_broadcast,
        auto_pad = fusebox_op_attr_auto_pad,
        coordinate_transformation_mode = fusebox_op_attr_coordinate_transformation_mode,
        data_format = fusebox_op_attr_data_format,
        mode = fusebox_op_attr_mode,
        qtype = fusebox_op_attr_qtype,
        rounding_type = fusebox_op_attr_rounding_type,
        weights_format = fusebox_op_attr_weights_format,
        accumulation_mode = fusebox_op_attr_accumulation_mode,
        end = fusebox_op_attr_end,
        broadcast = fusebox_op_attr_broadcast,
        consumed_inputs = fusebox_op_attr_consumed_inputs,
        fmod = fusebox_op_attr_fmod,
        direction = fusebox_op_attr_direction,
        detect_positive = fusebox_op_attr_detect_positive,
        detect_negative = fusebox_op_attr_detect_negative,
        gamma = fusebox_op_attr_gamma,
    };
    /// An attribute value (bool, int64_t, float, string, or a list of int64_t or float).
    using attr_value = std::variant<std::string, int64_t, std::vector<int64_t>, float, std::vector<float>, bool>;

    /// An op without inputs and outputs yet (add them with add_input(s)/add_output(s)).
    op(size_t id, kind k, const std::string &name = "");
    op(size_t id, kind k, std::vector<logical_tensor> inputs, std::vector<logical_tensor> outputs,
       std::string name = "");

    op &set_attr(attr a, const std::string &value);
    op &set_attr(attr a, int64_t value);
    op &set_attr(attr a, const std::vector<int64_t> &value);
    /// oneDNN's spelling: set_attr<T>(a, value) for T in bool, int64_t, float,
    /// std::string, std::vector<int64_t>, std::vector<float>.
    template <typename T,
              std::enable_if_t<std::is_same_v<T, bool> || std::is_same_v<T, int64_t> || std::is_same_v<T, float> ||
                                   std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<int64_t>> ||
                                   std::is_same_v<T, std::vector<float>>,
                               bool> = true>
    op &set_attr(attr a, const T &value) {
        return set_attr_value(a, attr_value(value));
    }
    /// Appends an input or output logical tensor.
    op &add_input(const logical_tensor &lt);
    op &add_output(const logical_tensor &lt);
    op &add_inputs(const std::vector<logical_tensor> &lts);
    op &add_outputs(const std::vector<logical_tensor> &lts);

    size_t get_id() const;
    kind get_kind() const;
    const std::string &get_name() const;
    const std::vector<logical_tensor> &get_inputs() const;
    const std::vector<logical_tensor> &get_outputs() const;
    const std::map<attr, attr_value> &get_attrs() const;

    /// The op's C handle, for the C API (fusebox_op_add_input, ...). An op is
    /// a handle, as oneDNN's is: copies share one op, so a change through one
    /// is seen by all; the handle lives as long as the last copy (never pass
    /// it to fusebox_op_destroy). A graph keeps its own copy of each op added.
    fusebox_op_t get() const { return impl_.get(); }

private:
    friend struct detail::access;
    explicit op(std::shared_ptr<fusebox_op> impl) : impl_(std::move(impl)) {}
    op &set_attr_value(attr a, attr_value value);
    std::shared_ptr<fusebox_op> impl_;
};

/// Name of an op kind ("Add", "MatMul", ...; "unknown" for other values).
FUSEBOX_API const char *op_kind_name(op::kind k);
/// The op kind named `name` (as op_kind_name spells it); throws invalid_arguments for unknown names.
FUSEBOX_API op::kind op_kind_from_name(const std::string &name);
/// Name of an attribute ("auto_broadcast", ...; "unknown" for other values).
FUSEBOX_API const char *attr_name(op::attr a);
/// The attribute named `name`; throws invalid_arguments for unknown names.
FUSEBOX_API op::attr attr_from_name(const std::string &name);
/// True for the op kinds fusebox compiles and runs (its op catalogue).
FUSEBOX_API bool is_kind_supported(op::kind k);

/// Host memory callbacks for an engine: everything fusebox allocates for a
/// compiled partition or an execute, and every library-allocated tensor, goes
/// through them. The default allocator uses aligned operator new.
class FUSEBOX_API allocator {
public:
    /// The default allocator.
    allocator();
    /// `host_malloc(size, alignment)` returns nullptr when out of memory.
    allocator(fusebox_host_allocate_f host_malloc, fusebox_host_deallocate_f host_free);

private:
    friend struct detail::access;
    std::shared_ptr<const detail::allocator_impl> impl_;
};

/// The device partitions are compiled for. Only the CPU exists.
class FUSEBOX_API engine {
public:
    enum class kind { any = fusebox_any_engine, cpu = fusebox_cpu, gpu = fusebox_gpu };
    /// An empty engine (every use but assignment is an error).
    engine() = default;
    /// The CPU engine with the default allocator; index must be 0.
    explicit engine(kind k, size_t index = 0);
    /// Number of engines of kind `k` (1 for cpu, 0 otherwise).
    static size_t get_count(kind k);
    kind get_kind() const;
    /// False for a default-constructed engine.
    explicit operator bool() const { return impl_ != nullptr; }

private:
    friend struct detail::access;
    std::shared_ptr<const detail::engine_impl> impl_;
};

/// An engine whose allocations go through `alloc`.
FUSEBOX_API engine make_engine_with_allocator(engine::kind k, size_t index, const allocator &alloc);

/// An execution queue. fusebox executes synchronously on the caller's TBB
/// arena, so wait() returns at once.
class FUSEBOX_API stream {
public:
    enum class flags : unsigned {
        in_order = fusebox_stream_in_order,
        out_of_order = fusebox_stream_out_of_order,
        default_flags = fusebox_stream_default_flags,
    };
    /// An empty stream (executing on it is an error).
    stream() = default;
    explicit stream(const engine &e, flags f = flags::default_flags);
    void wait() {}
    /// The engine; throws invalid_arguments for an empty stream.
    const engine &get_engine() const;
    explicit operator bool() const { return valid_; }

private:
    engine engine_;
    bool valid_ = false;
};

/// A logical tensor bound to memory: the caller's buffer, or one the library
/// allocated through the engine's allocator. A handle: copies share the
/// buffer (and its data handle), which lives until the last copy goes.
class FUSEBOX_API tensor {
public:
    tensor() = default;
    /// Binds `handle` (not owned). FUSEBOX_MEMORY_ALLOCATE allocates a buffer
    /// of lt.get_mem_size() bytes through the engine's allocator.
    tensor(const logical_tensor &lt, const engine &e, void *handle);
    /// Allocates a buffer of lt.get_mem_size() bytes through the engine's allocator.
    tensor(const logical_tensor &lt, const engine &e);
    /// A host-scalar tensor: `lt` has rank 0 and property host_scalar; the
    /// value at `scalar` (one element of lt's type) is copied into a buffer
    /// the tensor owns. Throws invalid_arguments otherwise.
    static tensor make_scalar_tensor(const logical_tensor &lt, void *scalar);
    void *get_data_handle() const;
    void set_data_handle(void *handle);
    logical_tensor get_logical_tensor() const;
    engine get_engine() const;
    explicit operator bool() const { return impl_ != nullptr; }

private:
    friend struct detail::access;
    std::shared_ptr<detail::tensor_impl> impl_;
};

/// oneDNN's spelling of tensor::make_scalar_tensor.
inline tensor make_scalar_tensor(const logical_tensor &lt, void *scalar) {
    return tensor::make_scalar_tensor(lt, scalar);
}

/// A partition compiled for concrete input and output shapes.
class FUSEBOX_API compiled_partition {
public:
    compiled_partition() = default;
    /// The logical tensor of input or output `id` as compiled (inferred shape,
    /// strides and type for outputs).
    logical_tensor query_logical_tensor(size_t id) const;
    /// (input id, output id) pairs that may share one buffer.
    std::vector<std::pair<size_t, size_t>> query_inplace_ports() const;
    /// oneDNN's name for query_inplace_ports().
    std::vector<std::pair<size_t, size_t>> get_inplace_ports() const { return query_inplace_ports(); }
    /// Runs the partition. Tensors are matched to ports by logical tensor id.
    /// Safe to call concurrently with different tensors.
    void execute(stream &s, const std::vector<tensor> &inputs, const std::vector<tensor> &outputs) const;
    /// Short description of the implementation chosen, e.g.
    /// "onednn:jit:uni" or "native:expr:AVX3".
    std::string get_impl_info() const;

private:
    friend struct detail::access;
    void execute_checked(stream &s, const tensor *const *inputs, size_t n_inputs, const tensor *const *outputs,
                         size_t n_outputs) const;
    std::shared_ptr<const detail::compiled_impl> impl_;
};

/// A group of ops that compile to one kernel, or one op fusebox does not run.
class FUSEBOX_API partition {
public:
    enum class policy { fusion = fusebox_partition_policy_fusion, debug = fusebox_partition_policy_debug };
    partition() = default;
    /// A partition of the single op `o` (as a one-op graph would give it).
    partition(const op &o, engine::kind k);
    size_t get_id() const;
    /// Ids of the ops in this partition, in execution order.
    std::vector<size_t> get_ops() const;
    size_t get_ops_num() const;
    /// False for an op fusebox does not run: the framework runs it itself.
    bool is_supported() const;
    std::vector<logical_tensor> get_input_ports() const;
    std::vector<logical_tensor> get_output_ports() const;
    engine::kind get_engine_kind() const;
    /// Compiles for the given input shapes. Output logical tensors may leave
    /// shape and layout to be inferred (query them on the result). Throws
    /// invalid_arguments for an unsupported partition (as oneDNN).
    compiled_partition compile(const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs,
                               const engine &e) const;

private:
    friend struct detail::access;
    compiled_partition compile_checked(const std::vector<logical_tensor> &inputs,
                                       const std::vector<logical_tensor> &outputs, const engine &e) const;
    std::shared_ptr<const detail::partition_impl> impl_;
};

/// A graph of ops. Add every op of the framework's graph, finalize, then get
/// partitions (a valid execution order covering every op, End included).
class FUSEBOX_API graph {
public:
    explicit graph(engine::kind k);
    graph(engine::kind k, fpmath_mode mode);
    /// `apply_to_int` is accepted and has no effect (integer ops are exact).
    void set_fpmath_mode(fpmath_mode mode, bool apply_to_int = false);
    void get_fpmath_mode(fpmath_mode &mode, bool &apply_to_int) const;
    /// Validates the op and adds it: the ops fusebox runs get their full
    /// checks (arity, attributes, types), End and every other kind the arity
    /// and attribute types of oneDNN Graph's schema. On failure throws, or
    /// with allow_exception == false returns the status.
    status add_op(const op &o, bool allow_exception = true);
    /// Checks connectivity (one producer per tensor, no cycles), orders ops
    /// and infers types and shapes through the ops fusebox runs.
    void finalize();
    bool is_finalized() const;
    /// Partitions in a valid execution order: every op, End ops each in a
    /// partition of their own (unsupported, as every kind fusebox does not run).
    std::vector<partition> get_partitions(partition::policy p = partition::policy::fusion);
    /// Asks for bit-reproducible results. fusebox's results never depend on
    /// threads or timing, so the flag is kept and changes nothing. Throws
    /// invalid_graph once the graph is finalized.
    void set_deterministic(bool deterministic);
    bool get_deterministic() const;

private:
    friend struct detail::access;
    std::shared_ptr<detail::graph_impl> impl_;
};

/// Capacity of the compiled-partition cache, in compiled partitions (default
/// 1024; 0 disables the cache and drops what it holds).
FUSEBOX_API void set_compiled_partition_cache_capacity(int capacity);
FUSEBOX_API int get_compiled_partition_cache_capacity();

/// Constant tensor cache capacity in MiB. Elementwise ops have nothing to
/// precompute from constant inputs, so the value is kept and has no effect.
/// As in oneDNN it is held in bytes: a capacity whose bytes overflow size_t
/// (e.g. SIZE_MAX) saturates and reads back as SIZE_MAX / 2^20.
FUSEBOX_API void set_constant_tensor_cache_capacity(engine::kind k, size_t size);
FUSEBOX_API size_t get_constant_tensor_cache_capacity(engine::kind k);
/// Deprecated oneDNN spellings: a flag > 0 sets an unlimited capacity, 0 clears it.
FUSEBOX_API void set_constant_tensor_cache(int flag);
FUSEBOX_API int get_constant_tensor_cache();

/// What the graph dump writes (bits; FUSEBOX_GRAPH_DUMP=graph,subgraph sets the same).
enum class graph_dump_mode : unsigned {
    none = fusebox_dump_mode_none,
    subgraph = fusebox_dump_mode_subgraph, ///< each compiled partition with its concrete shapes
    graph = fusebox_dump_mode_graph,       ///< each finalized graph
};
inline graph_dump_mode operator|(graph_dump_mode a, graph_dump_mode b) {
    return static_cast<graph_dump_mode>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
inline graph_dump_mode operator&(graph_dump_mode a, graph_dump_mode b) {
    return static_cast<graph_dump_mode>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
/// Sets the dump mode (overrides FUSEBOX_GRAPH_DUMP). Dumps are oneDNN Graph
/// JSON files that fusebox-benchdnn --case= replays; they go to the directory
/// FUSEBOX_GRAPH_DUMP_DIR names (default: the working directory). Returns
/// invalid_arguments for unknown bits.
FUSEBOX_API status set_dump_mode(graph_dump_mode modes);

/// Sets the verbose level, overriding FUSEBOX_VERBOSE: 0 off, 1 one line per
/// partition, compile and execute, 2 also each compiled partition's canonical
/// form (README.md, "Verbose log"). Throws invalid_arguments for other levels.
FUSEBOX_API void set_verbose(int level);

/// The library's version (as fusebox_version()).
inline const fusebox_version_t *version() { return fusebox_version(); }

/// Instruction sets (oneDNN's names and values).
enum class cpu_isa {
    isa_default = fusebox_cpu_isa_default,
    sse41 = fusebox_cpu_isa_sse41,
    avx = fusebox_cpu_isa_avx,
    avx2 = fusebox_cpu_isa_avx2,
    avx2_vnni = fusebox_cpu_isa_avx2_vnni,
    avx2_vnni_2 = fusebox_cpu_isa_avx2_vnni_2,
    avx512_core = fusebox_cpu_isa_avx512_core,
    avx512_core_vnni = fusebox_cpu_isa_avx512_core_vnni,
    avx512_core_bf16 = fusebox_cpu_isa_avx512_core_bf16,
    avx10_1_512 = fusebox_cpu_isa_avx10_1_512,
    avx512_core_fp16 = fusebox_cpu_isa_avx512_core_fp16,
    avx10_1_512_amx = fusebox_cpu_isa_avx10_1_512_amx,
    avx512_core_amx = fusebox_cpu_isa_avx512_core_amx,
    avx10_1_512_amx_fp16 = fusebox_cpu_isa_avx10_1_512_amx_fp16,
    avx512_core_amx_fp16 = fusebox_cpu_isa_avx512_core_amx_fp16,
};

/// The instruction set fusebox's kernels run with (fusebox_get_effective_cpu_isa()).
inline cpu_isa get_effective_cpu_isa() { return static_cast<cpu_isa>(fusebox_get_effective_cpu_isa()); }

} // namespace fusebox

#endif // FUSEBOX_FUSEBOX_HPP
