// ONNX's own node tests (Debian's libonnx-testdata: model.onnx + TensorProto
// .pb files), every one of them, through the ONNX front end: each model is
// imported (fusebox/onnx.hpp); a model whose nodes fusebox runs whole is run
// by a session, fused and under the native and automatic kernel choice, and
// compared element for element with ONNX's expected outputs. The others are
// counted as skipped, by the ops left to the framework.
#include <gtest/gtest.h>

#include <fusebox/onnx.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "test_util.hpp"

namespace {

using namespace fbt;
namespace fs = std::filesystem;
namespace fx = fusebox::onnx;

const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

// A tensor's elements as a reference buffer (dense).
buffer to_buffer(const tensor &t) {
    buffer b(t.get_logical_tensor());
    std::memcpy(b.data(), t.get_data_handle(), t.get_logical_tensor().get_mem_size());
    return b;
}

// numpy's assert_allclose: |got - want| <= atol + rtol * |want| element by
// element (NaN matching NaN, infinities equal).
::testing::AssertionResult close_elements(const buffer &want, const buffer &got, double rtol, double atol) {
    const dt t = want.lt.get_data_type();
    const int64_t n = numel(want.lt.get_dims());
    for (int64_t i = 0; i < n; ++i) {
        const double w = as_double(t, want.data(), i), g = as_double(t, got.data(), i);
        if ((std::isnan(w) && std::isnan(g)) || w == g) continue;
        if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)))
            return ::testing::AssertionFailure() << "element " << i << ": expected " << w << ", got " << g;
    }
    return ::testing::AssertionSuccess();
}

// A string tensor's elements compared as strings.
::testing::AssertionResult same_strings(const tensor &want, const tensor &got) {
    const auto *w = static_cast<const string_view_t *>(want.get_data_handle());
    const auto *g = static_cast<const string_view_t *>(got.get_data_handle());
    const int64_t n = numel(want.get_logical_tensor().get_dims());
    for (int64_t i = 0; i < n; ++i)
        if (std::string(w[i].data, w[i].size) != std::string(g[i].data, g[i].size))
            return ::testing::AssertionFailure() << "element " << i;
    return ::testing::AssertionSuccess();
}

// The ONNX element type declared for a graph value, read from the data when
// the model says bfloat16 and the file holds uint16.
data_type declared(const fx::value &v) { return v.lt.get_data_type(); }

// Runs one imported node test; returns false (with the ops left to the framework) when skipped.
bool run_node_test(const fs::path &dir, std::string &why) {
    // This data set's expected bf16 values were made by truncating f32 (the ONNX
    // generator of its release); Cast rounds to nearest even (ELEMENTWISE.md),
    // which unary_ops_test checks against the reference for every f32 -> bf16.
    const std::string name = dir.filename().string();
    if (name == "test_cast_FLOAT_to_BFLOAT16" || name == "test_castlike_FLOAT_to_BFLOAT16_expanded")
        return why = "its expected outputs truncate f32 to bf16; fusebox rounds to nearest even", false;
    const fx::model m = fx::model::load((dir / "model.onnx").string());
    std::set<std::string> framework;
    for (const fx::node &n : m.get_nodes())
        if (!n.unsupported_reason.empty()) framework.insert(n.op_type);
    if (!framework.empty()) {
        why = "framework:";
        for (const auto &op_type : framework) why += " " + op_type;
        return false;
    }
    bool approximate = false;
    std::vector<op::kind> kinds;
    for (const fx::node &n : m.get_nodes()) {
        approximate = approximate || ref_is_approximate(n.kind);
        kinds.push_back(n.kind);
    }
    int64_t ulp = 0;
    for (op::kind k : kinds) ulp = std::max<int64_t>(ulp, k == op::kind::Pow ? 1 : 0);
    const engine eng(engine::kind::cpu);
    stream s(eng);
    bool ran = false;
    for (const auto &set : fs::directory_iterator(dir)) {
        if (!set.is_directory()) continue;
        SCOPED_TRACE(set.path().string());
        std::vector<fx::tensor_file> in;
        std::vector<logical_tensor> shapes;
        std::vector<tensor> in_t;
        for (size_t k = 0; k < m.get_inputs().size(); ++k) {
            const fx::value &v = m.get_inputs()[k];
            in.push_back(fx::load_tensor((set.path() / ("input_" + std::to_string(k) + ".pb")).string(), v.lt.get_id(),
                                         eng, declared(v)));
            shapes.push_back(in.back().data.get_logical_tensor());
            in_t.push_back(in.back().data);
        }
        for (const char *mode : {"native", "auto"}) {
            kernel_env env(mode);
            fx::session run(m, eng, shapes);
            std::vector<tensor> out_t;
            for (const logical_tensor &lt : run.get_output_logical_tensors()) out_t.emplace_back(lt, eng);
            run.run(s, in_t, out_t);
            for (size_t k = 0; k < m.get_outputs().size(); ++k) {
                const fx::value &v = m.get_outputs()[k];
                const fx::tensor_file want = fx::load_tensor(
                    (set.path() / ("output_" + std::to_string(k) + ".pb")).string(), 0, eng, declared(v));
                const logical_tensor wl = want.data.get_logical_tensor(), gl = out_t[k].get_logical_tensor();
                EXPECT_EQ(gl.get_data_type(), wl.get_data_type()) << mode;
                EXPECT_EQ(gl.get_dims(), wl.get_dims()) << mode;
                if (gl.get_data_type() != wl.get_data_type() || gl.get_dims() != wl.get_dims()) continue;
                // Transcendental ops: within ONNX's own tolerance for these data (rtol 1e-3,
                // atol 1e-7): its expected values come from numpy formulas in f32 (Elu's
                // exp(x) - 1 loses digits near 0), not from correctly rounded results;
                // unary_ops_test checks ELEMENTWISE.md's bounds. Pow: numpy's, within 1 ulp.
                if (wl.get_data_type() == dt::string)
                    EXPECT_TRUE(same_strings(want.data, out_t[k])) << mode;
                else if (approximate)
                    EXPECT_TRUE(close_elements(to_buffer(want.data), to_buffer(out_t[k]), 1e-3, 1e-7)) << mode;
                else
                    EXPECT_TRUE(same_elements(to_buffer(want.data), to_buffer(out_t[k]), ulp)) << mode;
            }
        }
        ran = true;
    }
    if (!ran) why = "no test data sets";
    return ran;
}

TEST(onnx_node_tests, every_node_test_fusebox_runs_whole_matches_through_the_importer) {
    if (!fs::exists(kNodeTests)) GTEST_SKIP() << "libonnx-testdata is not installed at " << kNodeTests;
    std::vector<fs::path> dirs;
    for (const auto &e : fs::directory_iterator(kNodeTests)) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    size_t ran = 0;
    std::map<std::string, size_t> skipped_for; // the framework's op types -> cases
    std::vector<std::string> other_skips;
    for (const auto &dir : dirs) {
        SCOPED_TRACE(dir.filename().string());
        std::string why;
        try {
            if (run_node_test(dir, why)) {
                ++ran;
                continue;
            }
        } catch (const error &e) {
            ADD_FAILURE() << "import or run failed: " << e.what();
            continue;
        }
        if (why.rfind("framework: ", 0) == 0)
            ++skipped_for[why.substr(11)];
        else
            other_skips.push_back(dir.filename().string() + ": " + why);
    }
    std::ostringstream doc;
    doc << "Debian's libonnx-testdata holds " << dirs.size() << " node tests; " << ran
        << " run through the importer and match, " << dirs.size() - ran << " are skipped:\n\n";
    for (const auto &s : other_skips) doc << "- " << s << "\n";
    doc << "- for the framework's ops they hold (cases per op type): ";
    bool first = true;
    for (const auto &[ops, n] : skipped_for) doc << (first ? "" : ", ") << ops << " " << n, first = false;
    doc << "\n";
    std::printf("%s", doc.str().c_str());
    EXPECT_TRUE(doc_section_matches("doc/SUPPORT.md", "onnx-node-tests",
                                    "tests/onnx/onnx_node_test.cpp, FUSEBOX_WRITE_DOCS=1", doc.str()));
    // Every node test of the ops fusebox runs (192 before the importer) and the
    // expanded function tests made of them (201 with Debian's 1.12 data).
    EXPECT_GE(ran, 200u);
    EXPECT_LE(other_skips.size(), 2u);
}

} // namespace
