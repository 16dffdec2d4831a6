// ONNX's own node tests of the elementwise ops fusebox runs (shipped by
// Debian's libonnx-testdata as model.onnx + TensorProto .pb files), each
// model's nodes built into one fusebox graph, run partition by partition and
// compared element for element with ONNX's expected outputs.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <variant>

#include "graph_runner.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;
namespace fs = std::filesystem;

const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

template <typename Proto> Proto read_proto(const fs::path &path) {
    Proto p;
    std::ifstream in(path, std::ios::binary);
    if (!in || !p.ParseFromIstream(&in)) throw std::runtime_error("cannot parse " + path.string());
    return p;
}

dt to_fusebox(int onnx_type) {
    using T = onnx::TensorProto;
    switch (onnx_type) {
    case T::FLOAT: return dt::f32;
    case T::UINT8: return dt::u8;
    case T::INT8: return dt::s8;
    case T::UINT16: return dt::u16;
    case T::INT16: return dt::s16;
    case T::INT32: return dt::s32;
    case T::INT64: return dt::s64;
    case T::STRING: return dt::string;
    case T::BOOL: return dt::boolean;
    case T::FLOAT16: return dt::f16;
    case T::DOUBLE: return dt::f64;
    case T::UINT32: return dt::u32;
    case T::UINT64: return dt::u64;
    case T::BFLOAT16: return dt::bf16;
    default: throw std::runtime_error("unsupported ONNX data type " + std::to_string(onnx_type));
    }
}

// A TensorProto's elements as a dense fusebox buffer (raw_data or the typed
// fields); string elements point into `strings`.
buffer to_buffer(const onnx::TensorProto &t, size_t id, std::vector<std::string> &strings) {
    const dt type = to_fusebox(t.data_type());
    dims shape(t.dims().begin(), t.dims().end());
    buffer b(logical_tensor(id, type, shape));
    const size_t n = static_cast<size_t>(numel(shape)), es = data_type_size(type);
    unsigned char *p = b.bytes.data();
    if (type == dt::string) {
        strings.assign(t.string_data().begin(), t.string_data().end());
        for (size_t i = 0; i < n; ++i) {
            string_view_t s{strings[i].data(), strings[i].size()};
            std::memcpy(p + i * es, &s, es);
        }
    } else if (t.has_raw_data()) {
        if (t.raw_data().size() != n * es) throw std::runtime_error("raw_data size mismatch in " + t.name());
        std::memcpy(p, t.raw_data().data(), n * es);
    } else {
        for (size_t i = 0; i < n; ++i) {
            uint64_t bits = 0;
            const float f = type == dt::f32 ? t.float_data(i) : 0.f;
            const double d = type == dt::f64 ? t.double_data(i) : 0.0;
            if (type == dt::f32)
                std::memcpy(&bits, &f, 4);
            else if (type == dt::f64)
                std::memcpy(&bits, &d, 8);
            else if (type == dt::s64)
                bits = static_cast<uint64_t>(t.int64_data(i));
            else if (type == dt::u64 || type == dt::u32)
                bits = t.uint64_data(i);
            else
                bits = static_cast<uint64_t>(static_cast<uint32_t>(t.int32_data(i))); // 8/16-bit, bool, f16, bf16, s32
            std::memcpy(p + i * es, &bits, es);
        }
    }
    return b;
}

// ONNX op types and the fusebox kinds they map onto (ELEMENTWISE.md).
const std::map<std::string, op::kind> kOnnxOps = {
    {"Add", op::kind::Add},
    {"Sub", op::kind::Subtract},
    {"Mul", op::kind::Multiply},
    {"Div", op::kind::Divide},
    {"Max", op::kind::Maximum},
    {"Min", op::kind::Minimum},
    {"Equal", op::kind::Equal},
    {"Greater", op::kind::Greater},
    {"GreaterOrEqual", op::kind::GreaterEqual},
    {"Less", op::kind::Less},
    {"LessOrEqual", op::kind::LessEqual},
    {"And", op::kind::LogicalAnd},
    {"Or", op::kind::LogicalOr},
    {"Xor", op::kind::LogicalXor},
    {"Not", op::kind::LogicalNot},
    {"BitwiseAnd", op::kind::BitwiseAnd},
    {"BitwiseOr", op::kind::BitwiseOr},
    {"BitwiseXor", op::kind::BitwiseXor},
    {"BitwiseNot", op::kind::BitwiseNot},
    {"BitShift", op::kind::BitShift},
    {"Where", op::kind::Where},
    {"Mod", op::kind::Mod},
    {"Sum", op::kind::Sum},
    {"Mean", op::kind::Mean},
    {"Pow", op::kind::Pow},
    {"PRelu", op::kind::PReLU},
};

// The node test folders of those ops (test_<op>..., not other ops sharing a prefix).
std::vector<fs::path> node_test_dirs() {
    const char *prefixes[] = {"test_add",  "test_sub",   "test_mul",      "test_div_",     "test_div",   "test_max_",
                              "test_min_", "test_equal", "test_greater",  "test_less",     "test_and",   "test_or",
                              "test_xor",  "test_not_",  "test_bitwise_", "test_bitshift", "test_where", "test_mod_",
                              "test_sum_", "test_mean_", "test_pow",      "test_prelu_"};
    std::vector<fs::path> dirs;
    if (!fs::exists(kNodeTests)) return dirs;
    for (const auto &e : fs::directory_iterator(kNodeTests)) {
        const std::string name = e.path().filename().string();
        for (const char *p : prefixes)
            if (name.rfind(p, 0) == 0 && name.rfind("test_maxpool", 0) != 0 && name.rfind("test_maxunpool", 0) != 0) {
                dirs.push_back(e.path());
                break;
            }
    }
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

// Builds the model's nodes as ops over tensor ids (one per value name).
// Returns false (with the reason) when a node is not one fusebox runs.
bool build_ops(const onnx::GraphProto &g, std::map<std::string, size_t> &ids, std::vector<op> &ops, std::string &why) {
    auto id_of = [&](const std::string &name) { return ids.emplace(name, ids.size()).first->second; };
    for (const auto &in : g.input()) id_of(in.name());
    for (int i = 0; i < g.node_size(); ++i) {
        const onnx::NodeProto &n = g.node(i);
        auto kind = kOnnxOps.find(n.op_type());
        if (kind == kOnnxOps.end()) return why = "op " + n.op_type() + " is not elementwise", false;
        std::vector<logical_tensor> in, out;
        for (const auto &name : n.input()) in.emplace_back(id_of(name), dt::undef, logical_tensor::layout_type::any);
        for (const auto &name : n.output()) out.emplace_back(id_of(name), dt::undef, logical_tensor::layout_type::any);
        op o(static_cast<size_t>(i), kind->second, in, out, n.name());
        for (const auto &attr : n.attribute()) { // the legacy rule of opset 1/6; BitShift's direction
            if (attr.name() == "broadcast") o.set_attr(op::attr::broadcast, static_cast<int64_t>(attr.i()));
            if (attr.name() == "axis") o.set_attr(op::attr::axis, static_cast<int64_t>(attr.i()));
            if (attr.name() == "direction") o.set_attr(op::attr::direction, attr.s());
            if (attr.name() == "fmod") o.set_attr(op::attr::fmod, static_cast<int64_t>(attr.i()));
        }
        ops.push_back(std::move(o));
    }
    return true;
}

// Runs one node test; returns false (with the reason) when it was skipped.
bool run_node_test(const fs::path &dir, std::string &why) {
    const auto model = read_proto<onnx::ModelProto>(dir / "model.onnx");
    const onnx::GraphProto &g = model.graph();
    std::map<std::string, size_t> ids;
    std::vector<op> ops;
    if (!build_ops(g, ids, ops, why)) return false;
    bool ran = false;
    for (const auto &set : fs::directory_iterator(dir)) {
        if (!set.is_directory()) continue;
        SCOPED_TRACE(set.path().string());
        std::vector<std::vector<std::string>> strings(g.input_size() + g.output_size());
        std::map<size_t, std::shared_ptr<buffer>> inputs;
        std::vector<logical_tensor> typed_inputs;
        for (int k = 0; k < g.input_size(); ++k) {
            const size_t id = ids.at(g.input(k).name());
            auto b = std::make_shared<buffer>(to_buffer(
                read_proto<onnx::TensorProto>(set.path() / ("input_" + std::to_string(k) + ".pb")), id, strings[k]));
            inputs[id] = b;
        }
        // Input descriptors with their types, so that finalize infers the rest.
        std::vector<op> typed = ops;
        for (op &o : typed) {
            std::vector<logical_tensor> in;
            for (const auto &lt : o.get_inputs())
                in.push_back(inputs.count(lt.get_id()) ? inputs.at(lt.get_id())->lt : lt);
            op copy(o.get_id(), o.get_kind(), in, o.get_outputs(), o.get_name());
            for (const auto &attr : o.get_attrs()) // (clang 14 cannot capture a structured binding)
                std::visit([&](const auto &v) { copy.set_attr(attr.first, v); }, attr.second);
            o = copy;
        }
        for (const char *mode : {"native", "auto"}) {
            kernel_env env(mode);
            graph fg(engine::kind::cpu);
            for (const op &o : typed) fg.add_op(o);
            fg.finalize();
            for (const partition &p : fg.get_partitions())
                if (!p.is_supported()) return why = "a node's input count or types are not ones fusebox runs", false;
            auto values = inputs;
            run_graph(fg, partition::policy::fusion, values);
            for (int k = 0; k < g.output_size(); ++k) {
                const buffer want =
                    to_buffer(read_proto<onnx::TensorProto>(set.path() / ("output_" + std::to_string(k) + ".pb")), 0,
                              strings[g.input_size() + k]);
                const buffer &got = *values.at(ids.at(g.output(k).name()));
                EXPECT_EQ(got.lt.get_data_type(), want.lt.get_data_type());
                EXPECT_EQ(got.lt.get_dims(), want.lt.get_dims());
                if (got.lt.get_data_type() == want.lt.get_data_type() && got.lt.get_dims() == want.lt.get_dims())
                    EXPECT_TRUE(same_elements(want, got, ref_max_ulp(ops))) << mode; // Pow: numpy's, within 1 ulp
            }
        }
        ran = true;
    }
    if (!ran) why = "no test data sets";
    return ran;
}

TEST(onnx_node_tests, every_node_test_of_the_elementwise_ops_matches) {
    const auto dirs = node_test_dirs();
    if (dirs.empty()) GTEST_SKIP() << "libonnx-testdata is not installed at " << kNodeTests;
    size_t ran = 0;
    std::vector<std::string> skipped;
    for (const auto &dir : dirs) {
        SCOPED_TRACE(dir.filename().string());
        std::string why;
        if (run_node_test(dir, why))
            ++ran;
        else
            skipped.push_back(dir.filename().string() + " (" + why + ")");
    }
    for (const auto &s : skipped) std::printf("skipped %s\n", s.c_str());
    std::printf("ran %zu of %zu node tests\n", ran, dirs.size());
    EXPECT_TRUE(skipped.empty()) << skipped.size() << " node tests skipped";
    EXPECT_GE(ran, 129u);
}

} // namespace
