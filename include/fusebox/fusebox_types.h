/* fusebox: C types shared by the C API (fusebox.h) and the C++ API (fusebox.hpp).
 *
 * Every enumeration has oneDNN Graph's values for the names both libraries
 * have (oneDNN's `dnnl_graph_X` / `dnnl_X` is fusebox's `fusebox_X`), so a
 * value stored by a oneDNN program means the same thing here. Names that only
 * fusebox has are numbered from 0x100 (data types from 0x80), far from
 * oneDNN's own ranges. */
#ifndef FUSEBOX_FUSEBOX_TYPES_H
#define FUSEBOX_FUSEBOX_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define FUSEBOX_API
#else
#define FUSEBOX_API __attribute__((visibility("default")))
#endif

/* ---- version ---- */

/* The single source of the version: CMake reads these three lines. */
#define FUSEBOX_VERSION_MAJOR 0
#define FUSEBOX_VERSION_MINOR 2
#define FUSEBOX_VERSION_PATCH 0

/** Runtimes (oneDNN's values), as fusebox_version_t and the two macros
 *  below report them. fusebox's CPU runtime is TBB; it has no GPU runtime. */
#define FUSEBOX_RUNTIME_NONE 0u
#define FUSEBOX_RUNTIME_SEQ 1u
#define FUSEBOX_RUNTIME_OMP 2u
#define FUSEBOX_RUNTIME_TBB 4u
#define FUSEBOX_RUNTIME_THREADPOOL 8u
#define FUSEBOX_RUNTIME_OCL 256u
#define FUSEBOX_RUNTIME_SYCL 512u
#define FUSEBOX_RUNTIME_DPCPP FUSEBOX_RUNTIME_SYCL
/** The build's runtimes, as oneDNN's configuration header states them. */
#define FUSEBOX_CPU_RUNTIME FUSEBOX_RUNTIME_TBB
#define FUSEBOX_CPU_THREADING_RUNTIME FUSEBOX_RUNTIME_TBB
#define FUSEBOX_GPU_RUNTIME FUSEBOX_RUNTIME_NONE

/** The library's version, as returned by fusebox_version(). */
typedef struct {
    int major;
    int minor;
    int patch;
    const char *hash;     /**< git commit the library was built from, or "unknown" */
    unsigned cpu_runtime; /**< FUSEBOX_RUNTIME_TBB */
    unsigned gpu_runtime; /**< FUSEBOX_RUNTIME_NONE */
} fusebox_version_t;

/* ---- status ---- */

/** Outcome of a call (oneDNN's values). */
typedef enum {
    fusebox_success = 0,
    fusebox_out_of_memory = 1,
    fusebox_invalid_arguments = 2,
    fusebox_unimplemented = 3,
    fusebox_last_impl_reached = 4,
    fusebox_runtime_error = 5,
    fusebox_not_required = 6,
    fusebox_invalid_graph = 7,
    fusebox_invalid_graph_op = 8,
    fusebox_invalid_shape = 9,
    fusebox_invalid_data_type = 10,
} fusebox_status_t;

/* ---- element types ---- */

/** Element types: oneDNN's values for the types both libraries have; the
 *  integer widths and strings only fusebox has come after. The 8- and 4-bit
 *  float and 4-bit integer types are storage types: valid in logical tensors
 *  and tensors (4-bit elements packed two per byte), never computed with, so
 *  an op over them is an unsupported partition. */
typedef enum {
    fusebox_data_type_undef = 0,
    fusebox_f16 = 1,
    fusebox_bf16 = 2,
    fusebox_f32 = 3,
    fusebox_s32 = 4,
    fusebox_s8 = 5,
    fusebox_u8 = 6,
    fusebox_f64 = 7,
    fusebox_boolean = 8, /**< one byte, 0 or 1 */
    fusebox_f8_e5m2 = 9, /**< OFP8, 5-bit exponent (storage only, as the four below) */
    fusebox_f8_e4m3 = 10,
    fusebox_s4 = 11,
    fusebox_u4 = 12,
    fusebox_e8m0 = 13,
    fusebox_f4_e2m1 = 14,
    fusebox_f4_e3m0 = 15,
    fusebox_s64 = 16,
    fusebox_s16 = 0x80,
    fusebox_u16 = 0x81,
    fusebox_u32 = 0x82,
    fusebox_u64 = 0x83,
    fusebox_string = 0x84, /**< each element is a fusebox_string_view_t */
} fusebox_data_type_t;

/** One element of a fusebox_string tensor: bytes compared, no terminator needed. */
typedef struct {
    const char *data;
    size_t size;
} fusebox_string_view_t;

/* ---- engines, streams, precision ---- */

typedef enum {
    fusebox_any_engine = 0,
    fusebox_cpu = 1,
    fusebox_gpu = 2, /**< named for source compatibility; no GPU engine exists */
} fusebox_engine_kind_t;

typedef enum {
    fusebox_stream_in_order = 0x1U,
    fusebox_stream_out_of_order = 0x2U,
    fusebox_stream_default_flags = fusebox_stream_in_order,
} fusebox_stream_flags_t;

/** Floating-point math mode of a graph (see doc/INTEGRATION.md for what the
 *  relaxed modes allow for Add). */
typedef enum {
    fusebox_fpmath_mode_strict = 0,
    fusebox_fpmath_mode_bf16 = 1,
    fusebox_fpmath_mode_f16 = 2,
    fusebox_fpmath_mode_any = 3,
    fusebox_fpmath_mode_tf32 = 4,
} fusebox_fpmath_mode_t;

/* ---- logical tensors ---- */

/** Largest rank a fusebox_logical_tensor_t holds (oneDNN's limit). */
#define FUSEBOX_MAX_NDIMS 12
/** Rank not known yet. */
#define FUSEBOX_UNKNOWN_NDIMS -1
/** Extent (or stride) not known yet; -1 is accepted as well. */
#define FUSEBOX_UNKNOWN_DIM INT64_MIN

/** Pass as a tensor's data handle to have the library allocate the buffer
 *  through the engine's allocator. */
#define FUSEBOX_MEMORY_ALLOCATE ((void *)(size_t)-1)
/** A tensor without a buffer. */
#define FUSEBOX_MEMORY_NONE (NULL)

typedef int64_t fusebox_dim_t;
typedef fusebox_dim_t fusebox_dims_t[FUSEBOX_MAX_NDIMS];

typedef enum {
    fusebox_layout_type_undef = 0,
    fusebox_layout_type_any = 1,
    fusebox_layout_type_strided = 2,
    fusebox_layout_type_opaque = 3, /**< accepted in descriptors, never produced */
} fusebox_layout_type_t;

typedef enum {
    fusebox_tensor_property_undef = 0,
    fusebox_tensor_property_variable = 1,
    fusebox_tensor_property_constant = 2,
    fusebox_tensor_property_host_scalar = 3, /**< a rank-0 tensor whose value lives on the host */
} fusebox_tensor_property_t;

/** A tensor descriptor: id, rank, dims, element type, property and layout. */
typedef struct {
    size_t id;
    int ndims;           /**< FUSEBOX_UNKNOWN_NDIMS, 0 (a scalar) or the rank */
    fusebox_dims_t dims; /**< FUSEBOX_UNKNOWN_DIM marks an unknown extent */
    fusebox_data_type_t data_type;
    fusebox_tensor_property_t property;
    fusebox_layout_type_t layout_type;
    union {
        fusebox_dims_t strides; /**< in elements, valid for fusebox_layout_type_strided */
        size_t layout_id;       /**< valid for fusebox_layout_type_opaque */
    } layout;
} fusebox_logical_tensor_t;

/* ---- ops ---- */

/** Op kinds: oneDNN Graph's, in its order, then fusebox's own from 0x100. */
typedef enum {
    fusebox_op_abs,
    fusebox_op_abs_backward,
    fusebox_op_add,
    fusebox_op_avg_pool,
    fusebox_op_avg_pool_backward,
    fusebox_op_batch_norm_backward,
    fusebox_op_batch_norm_forward_training,
    fusebox_op_batch_norm_inference,
    fusebox_op_bias_add,
    fusebox_op_bias_add_backward,
    fusebox_op_clamp,
    fusebox_op_clamp_backward,
    fusebox_op_concat,
    fusebox_op_convolution,
    fusebox_op_convolution_backward_data,
    fusebox_op_convolution_backward_weights,
    fusebox_op_conv_transpose,
    fusebox_op_conv_transpose_backward_data,
    fusebox_op_conv_transpose_backward_weights,
    fusebox_op_dequantize,
    fusebox_op_divide,
    fusebox_op_dynamic_dequantize,
    fusebox_op_dynamic_quantize,
    fusebox_op_elu,
    fusebox_op_elu_backward,
    fusebox_op_end,
    fusebox_op_exp,
    fusebox_op_gelu,
    fusebox_op_gelu_backward,
    fusebox_op_hard_swish,
    fusebox_op_hard_swish_backward,
    fusebox_op_interpolate,
    fusebox_op_interpolate_backward,
    fusebox_op_layer_norm,
    fusebox_op_layer_norm_backward,
    fusebox_op_leaky_relu,
    fusebox_op_log,
    fusebox_op_log_softmax,
    fusebox_op_log_softmax_backward,
    fusebox_op_matmul,
    fusebox_op_maximum,
    fusebox_op_max_pool,
    fusebox_op_max_pool_backward,
    fusebox_op_minimum,
    fusebox_op_mish,
    fusebox_op_mish_backward,
    fusebox_op_multiply,
    fusebox_op_prelu,
    fusebox_op_prelu_backward,
    fusebox_op_quantize,
    fusebox_op_reciprocal,
    fusebox_op_reduce_l1,
    fusebox_op_reduce_l2,
    fusebox_op_reduce_max,
    fusebox_op_reduce_mean,
    fusebox_op_reduce_min,
    fusebox_op_reduce_prod,
    fusebox_op_reduce_sum,
    fusebox_op_relu,
    fusebox_op_relu_backward,
    fusebox_op_reorder,
    fusebox_op_round,
    fusebox_op_sigmoid,
    fusebox_op_sigmoid_backward,
    fusebox_op_softmax,
    fusebox_op_softmax_backward,
    fusebox_op_softplus,
    fusebox_op_softplus_backward,
    fusebox_op_sqrt,
    fusebox_op_sqrt_backward,
    fusebox_op_square,
    fusebox_op_squared_difference,
    fusebox_op_static_reshape,
    fusebox_op_static_transpose,
    fusebox_op_subtract,
    fusebox_op_tanh,
    fusebox_op_tanh_backward,
    fusebox_op_type_cast,
    fusebox_op_wildcard,
    fusebox_op_hard_sigmoid,
    fusebox_op_hard_sigmoid_backward,
    fusebox_op_select,
    fusebox_op_pow,
    fusebox_op_group_norm,
    fusebox_op_gen_index,
    fusebox_op_greater_equal,
    fusebox_op_rms_norm,
    fusebox_op_dropout,
    fusebox_op_last_symbol,
    fusebox_op_equal = 0x100, /**< ONNX Equal (fusebox only, as all below; values never change) */
    fusebox_op_mod,           /**< ONNX Mod (`fmod`) */
    fusebox_op_sum,           /**< ONNX Sum (1..N inputs) */
    fusebox_op_mean,          /**< ONNX Mean (1..N inputs) */
    fusebox_op_greater,       /**< ONNX Greater */
    fusebox_op_less,          /**< ONNX Less */
    fusebox_op_less_equal,    /**< ONNX LessOrEqual */
    fusebox_op_logical_and,   /**< ONNX And */
    fusebox_op_logical_or,    /**< ONNX Or */
    fusebox_op_logical_xor,   /**< ONNX Xor */
    fusebox_op_logical_not,   /**< ONNX Not */
    fusebox_op_bitwise_and,   /**< ONNX BitwiseAnd */
    fusebox_op_bitwise_or,    /**< ONNX BitwiseOr */
    fusebox_op_bitwise_xor,   /**< ONNX BitwiseXor */
    fusebox_op_bitwise_not,   /**< ONNX BitwiseNot */
    fusebox_op_bit_shift,     /**< ONNX BitShift (`direction`) */
    fusebox_op_where,         /**< ONNX Where (cond, x, y) */
    fusebox_op_neg,           /**< ONNX Neg */
    fusebox_op_sign,          /**< ONNX Sign */
    fusebox_op_floor,         /**< ONNX Floor */
    fusebox_op_ceil,          /**< ONNX Ceil */
    fusebox_op_erf,           /**< ONNX Erf */
    fusebox_op_is_nan,        /**< ONNX IsNaN */
    fusebox_op_is_inf,        /**< ONNX IsInf (`detect_positive`, `detect_negative`) */
    fusebox_op_softsign,      /**< ONNX Softsign */
    fusebox_op_selu,          /**< ONNX Selu (`alpha`, `gamma`) */
    fusebox_op_clip,          /**< ONNX Clip (min/max attributes or inputs) */
    fusebox_op_cast,          /**< ONNX Cast (target type: the output's) */
} fusebox_op_kind_t;

/** Op attributes: oneDNN Graph's (the range says the value type), then fusebox's own from 0x100. */
typedef enum {
    fusebox_op_attr_undef = 0,
    /* f32 */
    fusebox_op_attr_alpha = 0x1,
    fusebox_op_attr_beta,
    fusebox_op_attr_epsilon,
    fusebox_op_attr_max,
    fusebox_op_attr_min,
    fusebox_op_attr_momentum,
    /* f32[] */
    fusebox_op_attr_scales = 0x20,
    /* s64 */
    fusebox_op_attr_axis = 0x30,
    fusebox_op_attr_begin_norm_axis,
    fusebox_op_attr_groups,
    /* s64[] */
    fusebox_op_attr_axes = 0x40,
    fusebox_op_attr_dilations,
    fusebox_op_attr_dst_shape,
    fusebox_op_attr_kernel,
    fusebox_op_attr_order,
    fusebox_op_attr_output_padding,
    fusebox_op_attr_pads_begin,
    fusebox_op_attr_pads_end,
    fusebox_op_attr_shape,
    fusebox_op_attr_sizes,
    fusebox_op_attr_src_shape,
    fusebox_op_attr_strides,
    fusebox_op_attr_weights_shape,
    fusebox_op_attr_zps,
    fusebox_op_attr_group_shape,
    /* bool */
    fusebox_op_attr_exclude_pad = 0x60,
    fusebox_op_attr_keep_dims,
    fusebox_op_attr_keep_stats,
    fusebox_op_attr_per_channel_broadcast,
    fusebox_op_attr_special_zero,
    fusebox_op_attr_transpose_a,
    fusebox_op_attr_transpose_b,
    fusebox_op_attr_use_affine,
    fusebox_op_attr_use_dst,
    /* string */
    fusebox_op_attr_auto_broadcast = 0x80,
    fusebox_op_attr_auto_pad,
    fusebox_op_attr_coordinate_transformation_mode,
    fusebox_op_attr_data_format,
    fusebox_op_attr_mode,
    fusebox_op_attr_qtype,
    fusebox_op_attr_rounding_type,
    fusebox_op_attr_weights_format,
    fusebox_op_attr_accumulation_mode,
    fusebox_op_attr_end = 0xFF,
    /* fusebox's own (ONNX legacy broadcasting) */
    fusebox_op_attr_broadcast = 0x100, /**< s64: 0 or 1 */
    fusebox_op_attr_consumed_inputs,   /**< s64[]: accepted and ignored */
    fusebox_op_attr_fmod,              /**< s64 (Mod): 0 = sign of the divisor, 1 = C fmod */
    fusebox_op_attr_direction,         /**< string (BitShift): "LEFT" or "RIGHT" */
    fusebox_op_attr_detect_positive,   /**< s64 (IsInf): 0 or 1 */
    fusebox_op_attr_detect_negative,   /**< s64 (IsInf): 0 or 1 */
    fusebox_op_attr_gamma,             /**< f32 (Selu) */
} fusebox_op_attr_t;

/* ---- partitions, graphs ---- */

typedef enum {
    fusebox_partition_policy_fusion = 1,
    fusebox_partition_policy_debug = 2,
} fusebox_partition_policy_t;

/** Graph dump bits (FUSEBOX_GRAPH_DUMP=graph,subgraph sets the same). */
typedef enum {
    fusebox_dump_mode_none = 0x0U,
    fusebox_dump_mode_subgraph = 0x1U,
    fusebox_dump_mode_graph = 0x2U,
} fusebox_dump_mode_t;

/** An input and an output of a compiled partition that may share one buffer. */
typedef struct {
    size_t input_id;
    size_t output_id;
} fusebox_inplace_pair_t;

/** Host allocation callbacks of an allocator: alignment is a power of two;
 *  return NULL when out of memory. */
typedef void *(*fusebox_host_allocate_f)(size_t size, size_t alignment);
typedef void (*fusebox_host_deallocate_f)(void *);

/* ---- CPU ISA ---- */

/** Instruction sets (oneDNN's values), as fusebox_get_effective_cpu_isa()
 *  reports the one fusebox's kernels use. */
typedef enum {
    fusebox_cpu_isa_default = 0x0,
    fusebox_cpu_isa_sse41 = 0x1,
    fusebox_cpu_isa_avx = 0x3,
    fusebox_cpu_isa_avx2 = 0x7,
    fusebox_cpu_isa_avx2_vnni = 0xf,
    fusebox_cpu_isa_avx2_vnni_2 = 0x1f,
    fusebox_cpu_isa_avx512_core = 0x27,
    fusebox_cpu_isa_avx512_core_vnni = 0x67,
    fusebox_cpu_isa_avx512_core_bf16 = 0xe7,
    fusebox_cpu_isa_avx10_1_512 = 0x1ef,
    fusebox_cpu_isa_avx512_core_fp16 = fusebox_cpu_isa_avx10_1_512,
    fusebox_cpu_isa_avx10_1_512_amx = 0xfef,
    fusebox_cpu_isa_avx512_core_amx = fusebox_cpu_isa_avx10_1_512_amx,
    fusebox_cpu_isa_avx10_1_512_amx_fp16 = 0x1fef,
    fusebox_cpu_isa_avx512_core_amx_fp16 = fusebox_cpu_isa_avx10_1_512_amx_fp16,
} fusebox_cpu_isa_t;

/** The instruction set fusebox's own kernels run with on this CPU (under
 *  FUSEBOX_MAX_ISA): avx512_core for its AVX-512 kernels, avx2, or sse41. */
FUSEBOX_API fusebox_cpu_isa_t fusebox_get_effective_cpu_isa(void);

/** The library's version, build hash included. */
FUSEBOX_API const fusebox_version_t *fusebox_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FUSEBOX_FUSEBOX_TYPES_H */
