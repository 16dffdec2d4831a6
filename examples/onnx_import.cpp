// Imports an ONNX model with fusebox's front end and lists what fusebox runs
// and what the framework keeps: onnx_import MODEL.onnx
#include <fusebox/onnx.hpp>

#include <cstdio>

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: onnx_import MODEL.onnx\n");
        return 2;
    }
    try {
        const fusebox::onnx::model m = fusebox::onnx::model::load(argv[1]);
        size_t fused = 0, framework = 0, ops = 0;
        for (const fusebox::partition &p : m.get_partitions()) {
            if (p.is_supported()) {
                ++fused;
                ops += p.get_ops_num();
            } else {
                ++framework;
            }
        }
        std::printf("%zu nodes: %zu in %zu fusebox partitions, %zu partitions for the framework\n",
                    m.get_nodes().size(), ops, fused, framework);
        return 0;
    } catch (const fusebox::error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
