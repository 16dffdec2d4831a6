// libFuzzer target: the ONNX front end. The input is a serialized ModelProto
// (seeds: ONNX node-test models); it is imported, partitioned and, when
// fusebox runs it whole with small concrete inputs, run by a session on
// zeroed inputs. Findings are crashes: any exception but fusebox::error
// leaving the importer, a sanitizer report, a hang.
#include <fusebox/onnx.hpp>

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    namespace fx = fusebox::onnx;
    try {
        const fx::model m = fx::model::load_bytes(data, size);
        for (const fusebox::partition &p : m.get_partitions()) (void)p.is_supported();
        (void)m.get_partitions(fusebox::partition::policy::debug);
        size_t bytes = 0;
        for (const fx::value &v : m.get_inputs()) {
            if (!v.lt.has_known_shape()) return 0;
            bytes += v.lt.get_mem_size();
        }
        if (bytes > (1u << 20)) return 0;
        // Every value a session would allocate, as ONNX's inference gives it:
        // a small model states small shapes (dims like [1 << 40] are skipped).
        for (const fusebox::partition &p : m.get_partitions())
            for (const auto &ports : {p.get_input_ports(), p.get_output_ports()})
                for (const fusebox::logical_tensor &lt : ports) {
                    if (!lt.has_known_shape()) return 0;
                    bytes += lt.get_mem_size();
                    if (bytes > (1u << 24)) return 0;
                }
        const fusebox::engine eng(fusebox::engine::kind::cpu);
        fusebox::stream s(eng);
        fx::session run(m, eng);
        std::vector<fusebox::tensor> in, out;
        for (const fx::value &v : m.get_inputs()) {
            in.emplace_back(fusebox::logical_tensor(v.lt.get_id(), v.lt.get_data_type(), v.lt.get_dims()), eng);
            std::memset(in.back().get_data_handle(), 0, v.lt.get_mem_size());
        }
        for (const auto &lt : run.get_output_logical_tensors()) {
            if (lt.get_mem_size() > (size_t{1} << 24)) return 0;
            out.emplace_back(lt, eng);
        }
        run.run(s, in, out);
    } catch (const fusebox::error &) {
    }
    return 0;
}
