/* fusebox: the C API, shaped as oneDNN Graph's (`dnnl_graph.h` with
 * `dnnl_graph_`/`dnnl_` read as `fusebox_`, plus the engine and stream calls
 * of `dnnl.h`). Every function returns a fusebox_status_t and never lets an
 * exception out; after a failure, fusebox_get_last_error_message() says why
 * (per thread).
 *
 * Handles are created by *_create (or fusebox_graph_get_partitions) and freed
 * by the matching *_destroy. Graphs, partitions and compiled partitions keep
 * what they need alive: destroying one handle never invalidates another. */
#ifndef FUSEBOX_FUSEBOX_H
#define FUSEBOX_FUSEBOX_H

#include "fusebox/fusebox_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- handles ---- */

struct fusebox_engine;
typedef struct fusebox_engine *fusebox_engine_t;
typedef const struct fusebox_engine *const_fusebox_engine_t;
struct fusebox_stream;
typedef struct fusebox_stream *fusebox_stream_t;
typedef const struct fusebox_stream *const_fusebox_stream_t;
struct fusebox_allocator;
typedef struct fusebox_allocator *fusebox_allocator_t;
typedef const struct fusebox_allocator *const_fusebox_allocator_t;
struct fusebox_op;
typedef struct fusebox_op *fusebox_op_t;
typedef const struct fusebox_op *const_fusebox_op_t;
struct fusebox_graph;
typedef struct fusebox_graph *fusebox_graph_t;
typedef const struct fusebox_graph *const_fusebox_graph_t;
struct fusebox_partition;
typedef struct fusebox_partition *fusebox_partition_t;
typedef const struct fusebox_partition *const_fusebox_partition_t;
struct fusebox_compiled_partition;
typedef struct fusebox_compiled_partition *fusebox_compiled_partition_t;
typedef const struct fusebox_compiled_partition *const_fusebox_compiled_partition_t;
struct fusebox_tensor;
typedef struct fusebox_tensor *fusebox_tensor_t;
typedef const struct fusebox_tensor *const_fusebox_tensor_t;

/* ---- errors (fusebox only) ---- */

/** The message of the last call on this thread that failed ("" if none);
 *  valid until the next fusebox call on this thread. */
FUSEBOX_API const char *fusebox_get_last_error_message(void);

/* ---- allocators, engines, streams ---- */

FUSEBOX_API fusebox_status_t fusebox_allocator_create(fusebox_allocator_t *allocator,
                                                      fusebox_host_allocate_f host_malloc,
                                                      fusebox_host_deallocate_f host_free);
FUSEBOX_API fusebox_status_t fusebox_allocator_destroy(fusebox_allocator_t allocator);

FUSEBOX_API size_t fusebox_engine_get_count(fusebox_engine_kind_t kind);
FUSEBOX_API fusebox_status_t fusebox_engine_create(fusebox_engine_t *engine, fusebox_engine_kind_t kind, size_t index);
FUSEBOX_API fusebox_status_t fusebox_make_engine_with_allocator(fusebox_engine_t *engine, fusebox_engine_kind_t kind,
                                                                size_t index, const_fusebox_allocator_t alloc);
FUSEBOX_API fusebox_status_t fusebox_engine_get_kind(fusebox_engine_t engine, fusebox_engine_kind_t *kind);
FUSEBOX_API fusebox_status_t fusebox_engine_destroy(fusebox_engine_t engine);

FUSEBOX_API fusebox_status_t fusebox_stream_create(fusebox_stream_t *stream, fusebox_engine_t engine, unsigned flags);
FUSEBOX_API fusebox_status_t fusebox_stream_get_engine(const_fusebox_stream_t stream, fusebox_engine_t *engine);
FUSEBOX_API fusebox_status_t fusebox_stream_wait(fusebox_stream_t stream);
FUSEBOX_API fusebox_status_t fusebox_stream_destroy(fusebox_stream_t stream);

/* ---- logical tensors ---- */

FUSEBOX_API fusebox_status_t fusebox_logical_tensor_init(fusebox_logical_tensor_t *logical_tensor, size_t tid,
                                                         fusebox_data_type_t dtype, int32_t ndims,
                                                         fusebox_layout_type_t ltype, fusebox_tensor_property_t ptype);
/** Dense row-major strides when every dim is known and the layout is strided. */
FUSEBOX_API fusebox_status_t fusebox_logical_tensor_init_with_dims(fusebox_logical_tensor_t *logical_tensor, size_t tid,
                                                                   fusebox_data_type_t dtype, int32_t ndims,
                                                                   const fusebox_dims_t dims,
                                                                   fusebox_layout_type_t ltype,
                                                                   fusebox_tensor_property_t ptype);
FUSEBOX_API fusebox_status_t fusebox_logical_tensor_init_with_strides(fusebox_logical_tensor_t *logical_tensor,
                                                                      size_t tid, fusebox_data_type_t dtype,
                                                                      int32_t ndims, const fusebox_dims_t dims,
                                                                      const fusebox_dims_t strides,
                                                                      fusebox_tensor_property_t ptype);
FUSEBOX_API fusebox_status_t fusebox_logical_tensor_get_mem_size(const fusebox_logical_tensor_t *logical_tensor,
                                                                 size_t *size);
FUSEBOX_API fusebox_status_t fusebox_logical_tensor_is_equal(const fusebox_logical_tensor_t *lt1,
                                                             const fusebox_logical_tensor_t *lt2, uint8_t *is_equal);

/* ---- tensors ---- */

/** `handle` may be FUSEBOX_MEMORY_ALLOCATE: the buffer is allocated through the
 *  engine's allocator and freed with the tensor. */
FUSEBOX_API fusebox_status_t fusebox_tensor_create(fusebox_tensor_t *tensor,
                                                   const fusebox_logical_tensor_t *logical_tensor,
                                                   fusebox_engine_t engine, void *handle);
/** A host-scalar tensor (oneDNN 3.10+): `logical_tensor` has rank 0 and
 *  property host_scalar; the element at `scalar` is copied into the tensor. */
FUSEBOX_API fusebox_status_t fusebox_tensor_create_scalar(fusebox_tensor_t *tensor,
                                                          const fusebox_logical_tensor_t *logical_tensor, void *scalar);
FUSEBOX_API fusebox_status_t fusebox_tensor_destroy(fusebox_tensor_t tensor);
FUSEBOX_API fusebox_status_t fusebox_tensor_get_data_handle(const_fusebox_tensor_t tensor, void **handle);
FUSEBOX_API fusebox_status_t fusebox_tensor_set_data_handle(fusebox_tensor_t tensor, void *handle);
FUSEBOX_API fusebox_status_t fusebox_tensor_get_engine(const_fusebox_tensor_t tensor, fusebox_engine_t *engine);
FUSEBOX_API fusebox_status_t fusebox_tensor_get_logical_tensor(const_fusebox_tensor_t tensor,
                                                               fusebox_logical_tensor_t *logical_tensor);

/* ---- ops ---- */

FUSEBOX_API fusebox_status_t fusebox_op_create(fusebox_op_t *op, size_t id, fusebox_op_kind_t kind,
                                               const char *verbose_name);
FUSEBOX_API fusebox_status_t fusebox_op_destroy(fusebox_op_t op);
FUSEBOX_API fusebox_status_t fusebox_op_add_input(fusebox_op_t op, const fusebox_logical_tensor_t *input);
FUSEBOX_API fusebox_status_t fusebox_op_add_output(fusebox_op_t op, const fusebox_logical_tensor_t *output);
/** List attributes (f32[], s64[]) take value_len values. Scalar ones take
 *  *value and a string (NUL-terminated) all of it, ignoring value_len, as
 *  oneDNN does (its own programs pass 0, 1 or the length). */
FUSEBOX_API fusebox_status_t fusebox_op_set_attr_f32(fusebox_op_t op, fusebox_op_attr_t name, const float *value,
                                                     size_t value_len);
FUSEBOX_API fusebox_status_t fusebox_op_set_attr_bool(fusebox_op_t op, fusebox_op_attr_t name, const uint8_t *value,
                                                      size_t value_len);
FUSEBOX_API fusebox_status_t fusebox_op_set_attr_s64(fusebox_op_t op, fusebox_op_attr_t name, const int64_t *value,
                                                     size_t value_len);
FUSEBOX_API fusebox_status_t fusebox_op_set_attr_str(fusebox_op_t op, fusebox_op_attr_t name, const char *value,
                                                     size_t value_len);
FUSEBOX_API fusebox_status_t fusebox_op_get_id(const_fusebox_op_t op, size_t *id);
FUSEBOX_API fusebox_status_t fusebox_op_get_kind(const_fusebox_op_t op, fusebox_op_kind_t *kind);

/* ---- graphs ---- */

FUSEBOX_API fusebox_status_t fusebox_graph_create(fusebox_graph_t *graph, fusebox_engine_kind_t engine_kind);
FUSEBOX_API fusebox_status_t fusebox_graph_create_with_fpmath_mode(fusebox_graph_t *graph,
                                                                   fusebox_engine_kind_t engine_kind,
                                                                   fusebox_fpmath_mode_t mode);
FUSEBOX_API fusebox_status_t fusebox_graph_destroy(fusebox_graph_t graph);
FUSEBOX_API fusebox_status_t fusebox_graph_set_fpmath_mode(fusebox_graph_t graph, fusebox_fpmath_mode_t mode,
                                                           int apply_to_int);
FUSEBOX_API fusebox_status_t fusebox_graph_get_fpmath_mode(fusebox_graph_t graph, fusebox_fpmath_mode_t *mode,
                                                           int *apply_to_int);
/** Asks for reproducible results (fusebox's always are: the flag is kept);
 *  invalid_graph once the graph is finalized. */
FUSEBOX_API fusebox_status_t fusebox_graph_set_deterministic(fusebox_graph_t graph, int deterministic);
FUSEBOX_API fusebox_status_t fusebox_graph_get_deterministic(const_fusebox_graph_t graph, int *deterministic);
FUSEBOX_API fusebox_status_t fusebox_add_op(fusebox_graph_t graph, fusebox_op_t op);
FUSEBOX_API fusebox_status_t fusebox_graph_finalize(fusebox_graph_t graph);
FUSEBOX_API fusebox_status_t fusebox_graph_is_finalized(fusebox_graph_t graph, uint8_t *finalized);
/** Partitions the finalized graph under `policy`; the partitions are then
 *  counted and fetched with the next two calls. */
FUSEBOX_API fusebox_status_t fusebox_graph_filter(fusebox_graph_t graph, fusebox_partition_policy_t policy);
FUSEBOX_API fusebox_status_t fusebox_graph_get_partition_num(const_fusebox_graph_t graph, size_t *num);
/** Writes `num` new partition handles (each freed by fusebox_partition_destroy). */
FUSEBOX_API fusebox_status_t fusebox_graph_get_partitions(fusebox_graph_t graph, size_t num,
                                                          fusebox_partition_t *partitions);

/* ---- partitions ---- */

FUSEBOX_API fusebox_status_t fusebox_partition_create_with_op(fusebox_partition_t *partition, const_fusebox_op_t op,
                                                              fusebox_engine_kind_t ekind);
FUSEBOX_API fusebox_status_t fusebox_partition_destroy(fusebox_partition_t partition);
FUSEBOX_API fusebox_status_t fusebox_partition_get_op_num(const_fusebox_partition_t partition, size_t *num);
FUSEBOX_API fusebox_status_t fusebox_partition_get_ops(fusebox_partition_t partition, size_t num, size_t *ids);
FUSEBOX_API fusebox_status_t fusebox_partition_get_id(const_fusebox_partition_t partition, size_t *id);
FUSEBOX_API fusebox_status_t fusebox_partition_is_supported(const_fusebox_partition_t partition, uint8_t *is_supported);
FUSEBOX_API fusebox_status_t fusebox_partition_get_engine_kind(const_fusebox_partition_t partition,
                                                               fusebox_engine_kind_t *kind);
FUSEBOX_API fusebox_status_t fusebox_partition_get_input_ports_num(const_fusebox_partition_t partition, size_t *num);
FUSEBOX_API fusebox_status_t fusebox_partition_get_input_ports(const_fusebox_partition_t partition, size_t num,
                                                               fusebox_logical_tensor_t *inputs);
FUSEBOX_API fusebox_status_t fusebox_partition_get_output_ports_num(const_fusebox_partition_t partition, size_t *num);
FUSEBOX_API fusebox_status_t fusebox_partition_get_output_ports(const_fusebox_partition_t partition, size_t num,
                                                                fusebox_logical_tensor_t *outputs);
/** Compiles into `compiled_partition` (made by fusebox_compiled_partition_create). */
FUSEBOX_API fusebox_status_t fusebox_partition_compile(fusebox_partition_t partition,
                                                       fusebox_compiled_partition_t compiled_partition, size_t in_num,
                                                       const fusebox_logical_tensor_t **inputs, size_t out_num,
                                                       const fusebox_logical_tensor_t **outputs,
                                                       fusebox_engine_t engine);

/* ---- compiled partitions ---- */

FUSEBOX_API fusebox_status_t fusebox_compiled_partition_create(fusebox_compiled_partition_t *compiled_partition,
                                                               fusebox_partition_t partition);
FUSEBOX_API fusebox_status_t fusebox_compiled_partition_execute(const_fusebox_compiled_partition_t compiled_partition,
                                                                fusebox_stream_t stream, size_t num_inputs,
                                                                const_fusebox_tensor_t *inputs, size_t num_outputs,
                                                                const_fusebox_tensor_t *outputs);
FUSEBOX_API fusebox_status_t fusebox_compiled_partition_destroy(fusebox_compiled_partition_t compiled_partition);
FUSEBOX_API fusebox_status_t fusebox_compiled_partition_query_logical_tensor(
    const_fusebox_compiled_partition_t compiled_partition, size_t tid, fusebox_logical_tensor_t *lt);
/** The pairs stay valid as long as the compiled partition. */
FUSEBOX_API fusebox_status_t
fusebox_compiled_partition_get_inplace_ports(const_fusebox_compiled_partition_t compiled_partition,
                                             size_t *num_inplace_pairs, const fusebox_inplace_pair_t **inplace_pairs);
/** The implementation chosen ("native:expr:AVX3", "onednn:jit:uni", ...), valid as long as the compiled partition. */
FUSEBOX_API fusebox_status_t
fusebox_compiled_partition_get_partition_impl(const_fusebox_compiled_partition_t compiled_partition, const char **str);

/* ---- caches and dumps ---- */

FUSEBOX_API fusebox_status_t fusebox_get_compiled_partition_cache_capacity(int *capacity);
FUSEBOX_API fusebox_status_t fusebox_set_compiled_partition_cache_capacity(int capacity);
FUSEBOX_API fusebox_status_t fusebox_set_constant_tensor_cache(int flag);
FUSEBOX_API fusebox_status_t fusebox_get_constant_tensor_cache(int *flag);
FUSEBOX_API fusebox_status_t fusebox_set_constant_tensor_cache_capacity(fusebox_engine_kind_t eng_kind, size_t size);
FUSEBOX_API fusebox_status_t fusebox_get_constant_tensor_cache_capacity(fusebox_engine_kind_t eng_kind, size_t *size);
/** `modes`: fusebox_dump_mode_t bits; invalid_arguments for any other bit. */
FUSEBOX_API fusebox_status_t fusebox_set_dump_mode(unsigned modes);

/* ---- verbose log ---- */

/** Sets the verbose level (0 off, 1 partition/compile/execute lines, 2 also
 * canonical forms), overriding FUSEBOX_VERBOSE; invalid_arguments otherwise. */
FUSEBOX_API fusebox_status_t fusebox_set_verbose(int level);

#ifdef __cplusplus
}
#endif

#endif /* FUSEBOX_FUSEBOX_H */
