// ONNX's own node tests for Add and Equal (shipped by Debian's
// libonnx-testdata as model.onnx + TensorProto .pb files), run through
// fusebox and compared element for element with ONNX's expected outputs.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

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

std::vector<fs::path> node_test_dirs() {
    std::vector<fs::path> dirs;
    if (!fs::exists(kNodeTests)) return dirs;
    for (const auto &e : fs::directory_iterator(kNodeTests)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("test_add", 0) == 0 || name.rfind("test_equal", 0) == 0) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

void run_node_test(const fs::path &dir) {
    const auto model = read_proto<onnx::ModelProto>(dir / "model.onnx");
    ASSERT_EQ(model.graph().node_size(), 1);
    const onnx::NodeProto &node = model.graph().node(0);
    const op::kind kind = node.op_type() == "Add" ? op::kind::Add : op::kind::Equal;
    ASSERT_TRUE(node.op_type() == "Add" || node.op_type() == "Equal") << node.op_type();

    for (const auto &set : fs::directory_iterator(dir)) {
        if (!set.is_directory()) continue;
        SCOPED_TRACE(set.path().string());
        std::vector<std::string> sa, sb, so;
        const buffer a = to_buffer(read_proto<onnx::TensorProto>(set.path() / "input_0.pb"), 0, sa);
        const buffer b = to_buffer(read_proto<onnx::TensorProto>(set.path() / "input_1.pb"), 1, sb);
        const buffer want = to_buffer(read_proto<onnx::TensorProto>(set.path() / "output_0.pb"), 2, so);
        op o = binary_op(kind, a.lt, b.lt);
        for (const auto &attr : node.attribute()) { // the legacy rule of opset 1/6
            if (attr.name() == "broadcast") o.set_attr(op::attr::broadcast, static_cast<int64_t>(attr.i()));
            if (attr.name() == "axis") o.set_attr(op::attr::axis, static_cast<int64_t>(attr.i()));
        }
        for (const char *mode : {"native", "auto"}) {
            kernel_env env(mode);
            buffer got = run_single(o, a, b);
            ASSERT_EQ(got.lt.get_data_type(), want.lt.get_data_type());
            ASSERT_EQ(got.lt.get_dims(), want.lt.get_dims());
            EXPECT_TRUE(same_elements(want, got)) << mode;
        }
    }
}

TEST(onnx_node_tests, every_add_and_equal_node_test_matches) {
    const auto dirs = node_test_dirs();
    if (dirs.empty()) GTEST_SKIP() << "libonnx-testdata is not installed at " << kNodeTests;
    EXPECT_GE(dirs.size(), 5u); // test_add, test_add_bcast, test_add_uint8, test_equal, test_equal_bcast
    for (const auto &dir : dirs) {
        SCOPED_TRACE(dir.filename().string());
        run_node_test(dir);
    }
}

} // namespace
