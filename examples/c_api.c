/* The C API (C11): a graph of Add, a custom ReLU (a Wildcard to fusebox, run
 * here) and Add; partitions compiled and executed, results checked. */
#include <fusebox/fusebox.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        fusebox_status_t s_ = (call);                                                                                  \
        if (s_ != fusebox_success) {                                                                                   \
            fprintf(stderr, "%s failed (status %d): %s\n", #call, (int)s_, fusebox_get_last_error_message());          \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

enum { ROWS = 4, COLS = 8, N = ROWS * COLS };
enum { X, BIAS, BIASED, ACT, RESIDUAL, OUT }; /* tensor ids */

static float values[6][N]; /* every tensor, by id */

static fusebox_logical_tensor_t desc(size_t id, int rank) {
    fusebox_logical_tensor_t lt;
    fusebox_dims_t dims = {ROWS, COLS};
    if (rank == 1) dims[0] = COLS;
    CHECK(fusebox_logical_tensor_init_with_dims(&lt, id, fusebox_f32, rank, dims, fusebox_layout_type_strided,
                                                fusebox_tensor_property_undef));
    return lt;
}

static fusebox_logical_tensor_t unknown(size_t id) {
    fusebox_logical_tensor_t lt;
    CHECK(fusebox_logical_tensor_init(&lt, id, fusebox_f32, FUSEBOX_UNKNOWN_NDIMS, fusebox_layout_type_strided,
                                      fusebox_tensor_property_undef));
    return lt;
}

static fusebox_op_t make_op(size_t id, fusebox_op_kind_t kind, const char *name, fusebox_logical_tensor_t in0,
                            const fusebox_logical_tensor_t *in1, fusebox_logical_tensor_t out) {
    fusebox_op_t op;
    CHECK(fusebox_op_create(&op, id, kind, name));
    CHECK(fusebox_op_add_input(op, &in0));
    if (in1) CHECK(fusebox_op_add_input(op, in1));
    CHECK(fusebox_op_add_output(op, &out));
    return op;
}

/* Runs one partition fusebox supports: compile for the known input shapes, execute. */
static void run_supported(fusebox_partition_t p, fusebox_engine_t engine, fusebox_stream_t stream) {
    size_t n_in, n_out;
    CHECK(fusebox_partition_get_input_ports_num(p, &n_in));
    CHECK(fusebox_partition_get_output_ports_num(p, &n_out));
    fusebox_logical_tensor_t ins[4], outs[1];
    const fusebox_logical_tensor_t *in_ptrs[4], *out_ptrs[1];
    CHECK(fusebox_partition_get_input_ports(p, n_in, ins));
    CHECK(fusebox_partition_get_output_ports(p, n_out, outs));
    for (size_t i = 0; i < n_in; ++i) {
        ins[i] = desc(ins[i].id, ins[i].id == BIAS ? 1 : 2); /* concrete shapes */
        in_ptrs[i] = &ins[i];
    }
    outs[0] = unknown(outs[0].id);
    out_ptrs[0] = &outs[0];
    fusebox_compiled_partition_t cp;
    CHECK(fusebox_compiled_partition_create(&cp, p));
    CHECK(fusebox_partition_compile(p, cp, n_in, in_ptrs, 1, out_ptrs, engine));
    const char *impl;
    size_t n_pairs;
    const fusebox_inplace_pair_t *pairs;
    CHECK(fusebox_compiled_partition_get_partition_impl(cp, &impl));
    CHECK(fusebox_compiled_partition_get_inplace_ports(cp, &n_pairs, &pairs));
    fusebox_logical_tensor_t out_lt;
    CHECK(fusebox_compiled_partition_query_logical_tensor(cp, outs[0].id, &out_lt));
    fusebox_tensor_t in_t[4], out_t;
    for (size_t i = 0; i < n_in; ++i) CHECK(fusebox_tensor_create(&in_t[i], &ins[i], engine, values[ins[i].id]));
    CHECK(fusebox_tensor_create(&out_t, &out_lt, engine, values[out_lt.id]));
    CHECK(fusebox_compiled_partition_execute(cp, stream, n_in, (const_fusebox_tensor_t *)in_t, 1,
                                             (const_fusebox_tensor_t *)&out_t));
    CHECK(fusebox_stream_wait(stream));
    printf("partition -> tensor %zu: %s, %zu in-place pair(s)\n", out_lt.id, impl, n_pairs);
    for (size_t i = 0; i < n_in; ++i) CHECK(fusebox_tensor_destroy(in_t[i]));
    CHECK(fusebox_tensor_destroy(out_t));
    CHECK(fusebox_compiled_partition_destroy(cp));
}

int main(void) {
    const fusebox_version_t *v = fusebox_version();
    printf("fusebox %d.%d.%d (%s)\n", v->major, v->minor, v->patch, v->hash);
    for (int i = 0; i < N; ++i) {
        values[X][i] = (float)(i % 7) - 3.0f;
        values[RESIDUAL][i] = 0.5f * (float)i;
    }
    for (int c = 0; c < COLS; ++c) values[BIAS][c] = (float)c - 4.0f;

    fusebox_engine_t engine;
    fusebox_stream_t stream;
    CHECK(fusebox_engine_create(&engine, fusebox_cpu, 0));
    CHECK(fusebox_stream_create(&stream, engine, fusebox_stream_default_flags));

    /* out = relu(x + bias) + residual, the ReLU a custom op of ours (a Wildcard
       to fusebox): fusebox runs the Adds, we run the custom op. */
    fusebox_graph_t graph;
    CHECK(fusebox_graph_create(&graph, fusebox_cpu));
    fusebox_logical_tensor_t bias = desc(BIAS, 1), residual = desc(RESIDUAL, 2), act = unknown(ACT);
    fusebox_op_t ops[3] = {make_op(0, fusebox_op_add, "bias_add", desc(X, 2), &bias, unknown(BIASED)),
                           make_op(1, fusebox_op_wildcard, "custom_relu", unknown(BIASED), NULL, unknown(ACT)),
                           make_op(2, fusebox_op_add, "residual", act, &residual, unknown(OUT))};
    const char *numpy = "numpy";
    CHECK(fusebox_op_set_attr_str(ops[0], fusebox_op_attr_auto_broadcast, numpy, 5));
    for (int i = 0; i < 3; ++i) CHECK(fusebox_add_op(graph, ops[i]));
    CHECK(fusebox_graph_finalize(graph));
    CHECK(fusebox_graph_filter(graph, fusebox_partition_policy_fusion));
    size_t n;
    CHECK(fusebox_graph_get_partition_num(graph, &n));
    fusebox_partition_t parts[3];
    if (n != 3) {
        fprintf(stderr, "expected 3 partitions, got %zu\n", n);
        return 1;
    }
    CHECK(fusebox_graph_get_partitions(graph, n, parts));
    for (size_t i = 0; i < n; ++i) {
        uint8_t supported;
        CHECK(fusebox_partition_is_supported(parts[i], &supported));
        if (supported) {
            run_supported(parts[i], engine, stream);
        } else { /* the custom op: the framework's own kernel */
            for (int k = 0; k < N; ++k) values[ACT][k] = values[BIASED][k] > 0 ? values[BIASED][k] : 0;
            printf("partition -> tensor %d: custom ReLU, run by the caller\n", ACT);
        }
    }

    int bad = 0;
    for (int i = 0; i < N; ++i) {
        const float biased = values[X][i] + values[BIAS][i % COLS];
        const float want = (biased > 0 ? biased : 0) + values[RESIDUAL][i];
        if (values[OUT][i] != want) bad = 1;
    }
    for (size_t i = 0; i < n; ++i) CHECK(fusebox_partition_destroy(parts[i]));
    for (int i = 0; i < 3; ++i) CHECK(fusebox_op_destroy(ops[i]));
    CHECK(fusebox_graph_destroy(graph));
    CHECK(fusebox_stream_destroy(stream));
    CHECK(fusebox_engine_destroy(engine));
    printf("c_api: %s\n", bad ? "MISMATCH" : "ok");
    return bad;
}
