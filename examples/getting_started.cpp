// Getting started with fusebox: describe a small graph, partition it, compile
// each partition for concrete shapes and run it.
//
//   x0 (2x3 f32) ─┐
//                 Add ── sum (2x3) ──┐
//   bias (3 f32) ─┘                  Equal ── mask (2x3 boolean) ── End
//   ref (2x3 f32) ───────────────────┘
#include <cstdio>
#include <vector>

#include <fusebox/fusebox.hpp>

using namespace fusebox;

int main() try {
    using dt = data_type;
    using lt = logical_tensor;
    const engine eng(engine::kind::cpu);
    stream strm(eng);

    lt x0(0, dt::f32, {2, 3}), bias(1, dt::f32, {3}), ref(2, dt::f32, {2, 3});
    lt sum(3, dt::f32, lt::layout_type::any); // shape and layout inferred
    lt mask(4, dt::boolean, lt::layout_type::any);

    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {x0, bias}, {sum}, "add_bias")); // numpy broadcast of bias
    g.add_op(op(1, op::kind::Equal, {sum, ref}, {mask}, "compare"));
    g.add_op(op(2, op::kind::End, {mask}, {}, "end"));
    g.finalize();

    // Host buffers, keyed by logical tensor id.
    std::vector<float> x0_data{1, 2, 3, 4, 5, 6}, bias_data{10, 20, 30}, ref_data{11, 0, 33, 14, 0, 36};
    std::vector<float> sum_data(6);
    std::vector<unsigned char> mask_data(6);
    auto handle = [&](size_t id) -> void * {
        switch (id) {
        case 0: return x0_data.data();
        case 1: return bias_data.data();
        case 2: return ref_data.data();
        case 3: return sum_data.data();
        default: return mask_data.data();
        }
    };

    // The debug policy keeps one op per partition so that the intermediate sum is visible.
    for (const partition &p : g.get_partitions(partition::policy::debug)) {
        std::printf("partition %zu: %zu op(s), supported=%d\n", p.get_id(), p.get_ops_num(), p.is_supported());
        if (!p.is_supported()) continue; // the End: the framework's, with nothing to run
        compiled_partition cp = p.compile(p.get_input_ports(), p.get_output_ports(), eng);
        std::vector<tensor> ins, outs;
        for (const lt &in : p.get_input_ports())
            ins.emplace_back(cp.query_logical_tensor(in.get_id()), eng, handle(in.get_id()));
        for (const lt &out : p.get_output_ports()) {
            lt compiled = cp.query_logical_tensor(out.get_id());
            std::printf("  output %zu: %s, %d dims, impl %s\n", out.get_id(), data_type_name(compiled.get_data_type()),
                        compiled.get_ndims(), cp.get_impl_info().c_str());
            outs.emplace_back(compiled, eng, handle(out.get_id()));
        }
        cp.execute(strm, ins, outs);
    }
    strm.wait();

    std::printf("x0 + bias =");
    for (float v : sum_data) std::printf(" %g", v);
    std::printf("\n(x0 + bias) == ref =");
    for (unsigned char v : mask_data) std::printf(" %d", v);
    std::printf("\n");
    return 0;
} catch (const fusebox::error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
