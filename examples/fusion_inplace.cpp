// A chain of four Adds fused into one partition and executed in place: the
// output overwrites the input that the compiled partition reports as an
// in-place port.
//
//   out = (((x + bias) + y) + z) + scale     x, y, z: 256x1024 f32; bias: 1024; scale: scalar
#include <cstdio>
#include <vector>

#include <fusebox/fusebox.hpp>

using namespace fusebox;

int main() try {
    using lt = logical_tensor;
    const engine eng(engine::kind::cpu);
    stream strm(eng);
    const lt::dims shape{256, 1024};
    lt x(0, data_type::f32, shape), bias(1, data_type::f32, {1024}), y(2, data_type::f32, shape),
        z(3, data_type::f32, shape), scale(4, data_type::f32, lt::dims{});
    auto tmp = [](size_t id) { return lt(id, data_type::f32, lt::layout_type::any); };

    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Add, {x, bias}, {tmp(10)}));
    g.add_op(op(1, op::kind::Add, {tmp(10), y}, {tmp(11)}));
    g.add_op(op(2, op::kind::Add, {z, tmp(11)}, {tmp(12)})); // either input may carry the chain
    g.add_op(op(3, op::kind::Add, {tmp(12), scale}, {tmp(13)}));
    g.add_op(op(4, op::kind::End, {tmp(13)}, {}));
    g.finalize();

    std::vector<partition> parts = g.get_partitions();
    std::printf("%zu partition(s)\n", parts.size());
    for (const partition &p : parts) {
        std::printf("partition %zu: ops", p.get_id());
        for (size_t id : p.get_ops()) std::printf(" %zu", id);
        std::printf(", inputs");
        for (const lt &in : p.get_input_ports()) std::printf(" %zu", in.get_id());
        if (p.get_output_ports().empty())
            std::printf(" (End: the framework's, nothing to run)\n");
        else
            std::printf(", output %zu\n", p.get_output_ports()[0].get_id());
    }

    const partition &p = parts.at(0);
    compiled_partition cp = p.compile(p.get_input_ports(), {tmp(13)}, eng);
    std::printf("implementation: %s\n", cp.get_impl_info().c_str());

    std::vector<std::vector<float>> data{std::vector<float>(256 * 1024, 1.f), std::vector<float>(1024, 0.5f),
                                         std::vector<float>(256 * 1024, 2.f), std::vector<float>(256 * 1024, 4.f),
                                         std::vector<float>(1, 0.25f)};
    // Run in place on the first reported input: its buffer receives the output.
    auto inplace = cp.query_inplace_ports();
    if (inplace.empty()) throw error(status::runtime_error, "expected an in-place port");
    const size_t shared = inplace.front().first;
    std::printf("in place: input %zu -> output %zu\n", shared, inplace.front().second);

    std::vector<tensor> ins;
    for (const lt &in : p.get_input_ports()) ins.emplace_back(in, eng, data[in.get_id()].data());
    cp.execute(strm, ins, {tensor(cp.query_logical_tensor(13), eng, data[shared].data())});
    strm.wait();

    const float expected = 1.f + 0.5f + 2.f + 4.f + 0.25f;
    size_t wrong = 0;
    for (float v : data[shared]) wrong += v != expected;
    std::printf("out[0] = %g, expected %g everywhere: %s\n", data[shared][0], expected, wrong ? "MISMATCH" : "ok");
    return wrong ? 1 : 0;
} catch (const fusebox::error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
