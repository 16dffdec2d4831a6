// Graph dumps: each finalized graph and each compiled partition is written as
// oneDNN Graph JSON; ctest then replays every file with fusebox-benchdnn
// (benchdnn.replay_dumps).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.hpp"

namespace {

using namespace fbt;
using lt = logical_tensor;
namespace fs = std::filesystem;

std::string read(const fs::path &p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Writes the dumps into a folder per test under FUSEBOX_GRAPH_DUMP_DIR (set by
// ctest), or under a scratch folder.
class dump_test : public ::testing::Test {
protected:
    void SetUp() override {
        const char *base = std::getenv("FUSEBOX_GRAPH_DUMP_DIR");
        dir_ = fs::path(base ? base : fs::temp_directory_path() / "fusebox_dump_test") /
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        setenv("FUSEBOX_GRAPH_DUMP_DIR", dir_.c_str(), 1);
        ASSERT_EQ(set_dump_mode(graph_dump_mode::graph | graph_dump_mode::subgraph), status::success);
    }
    void TearDown() override { set_dump_mode(graph_dump_mode::none); }

    std::vector<fs::path> files() const {
        std::vector<fs::path> out;
        for (const auto &e : fs::directory_iterator(dir_)) out.push_back(e.path());
        std::sort(out.begin(), out.end());
        return out;
    }

    // Compiles every supported partition for the shapes the ops declare.
    static void compile_all(graph &g) {
        const engine eng(engine::kind::cpu);
        for (const partition &p : g.get_partitions())
            if (p.is_supported()) p.compile(p.get_input_ports(), p.get_output_ports(), eng);
    }

    fs::path dir_;
};

TEST_F(dump_test, writes_the_graph_and_each_compiled_partition) {
    graph g(engine::kind::cpu);
    const dims shape{4, 32};
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, shape), lt(1, dt::f32, {32})}, {lt(2, dt::f32, shape)}, "bias"));
    g.add_op(op(1, op::kind::Add, {lt(2, dt::f32, shape), lt(3, dt::f32, shape)}, {lt(4, dt::f32, shape)}, "residual")
                 .set_attr(op::attr::auto_broadcast, std::string("none")));
    g.add_op(op(2, op::kind::Equal, {lt(4, dt::f32, shape), lt(2, dt::f32, shape)}, {lt(5, dt::boolean, shape)}));
    g.add_op(op(3, op::kind::Add, {lt(6, dt::s8, {3}), lt(7, dt::s8, {2, 3})}, {lt(8, dt::s8, {2, 3})})
                 .set_attr(op::attr::auto_broadcast, std::string("numpy")));
    g.finalize();
    compile_all(g);
    const auto written = files();
    ASSERT_EQ(written.size(), 3u); // the graph, and partitions {0,1,2} (t2 read twice inside) and {3}
    int graphs = 0;
    for (const auto &f : written) {
        const std::string name = f.filename().string(), text = read(f);
        EXPECT_EQ(name.rfind("fusebox-graph-", 0), 0u) << name;
        EXPECT_NE(text.find("\"engine_kind\": \"cpu\""), std::string::npos) << name;
        if (name.find("-partition-") == std::string::npos) {
            ++graphs;
            for (const char *kind : {"\"kind\": \"Add\"", "\"kind\": \"Equal\"", "\"name\": \"residual\""})
                EXPECT_NE(text.find(kind), std::string::npos) << name << " lacks " << kind;
            EXPECT_NE(text.find("\"auto_broadcast\": {\"type\": \"string\", \"value\": \"none\"}"), std::string::npos);
        } else {
            EXPECT_NE(text.find("\"shape\": ["), std::string::npos) << name;
            EXPECT_EQ(text.find("-1"), std::string::npos) << name << ": a compiled partition has concrete shapes";
        }
    }
    EXPECT_EQ(graphs, 1);
}

TEST_F(dump_test, a_graph_with_ops_fusebox_does_not_run) {
    graph g(engine::kind::cpu, fpmath_mode::bf16);
    const dims shape{8, 8};
    g.add_op(op(0, op::kind::Add, {lt(0, dt::bf16, shape), lt(1, dt::bf16, shape)}, {lt(2, dt::bf16, shape)}));
    g.add_op(op(1, op::kind::Wildcard, {lt(2, dt::bf16, shape)}, {lt(3, dt::bf16, shape)}, "custom")
                 .set_attr<float>(op::attr::alpha, 0.1f)
                 .set_attr<std::vector<float>>(op::attr::scales, {1.f, -2.5f})
                 .set_attr<bool>(op::attr::keep_dims, true));
    g.add_op(op(2, op::kind::Add, {lt(3, dt::bf16, shape), lt(1, dt::bf16, shape)}, {lt(4, dt::bf16, shape)}));
    g.finalize();
    compile_all(g);
    const auto written = files();
    ASSERT_EQ(written.size(), 3u); // the graph and two Add partitions
    for (const auto &f : written) {
        const std::string text = read(f);
        EXPECT_NE(text.find("\"fpmath_mode\": \"bf16\""), std::string::npos) << f;
        if (f.filename().string().find("-partition-") == std::string::npos) {
            EXPECT_NE(text.find("\"kind\": \"Wildcard\""), std::string::npos);
            EXPECT_NE(text.find("\"alpha\": {\"type\": \"f32\", \"value\": 0.100000001}"), std::string::npos) << text;
            EXPECT_NE(text.find("\"scales\": {\"type\": \"f32[]\", \"value\": [1, -2.5]}"), std::string::npos);
            EXPECT_NE(text.find("\"keep_dims\": {\"type\": \"bool\", \"value\": true}"), std::string::npos);
        } else {
            EXPECT_EQ(text.find("Wildcard"), std::string::npos) << f;
        }
    }
}

TEST_F(dump_test, a_partition_with_several_outputs_dumps_an_end_on_each_output_read_inside) {
    // t2 = t0 + t1 leaves the graph and feeds the ReLU: one partition with
    // outputs t3 and t2. Its dump marks t2 with End, so that the replay
    // (benchdnn.replay_dumps) is that partition again, not a fused chain.
    graph g(engine::kind::cpu);
    const dims shape{4, 16};
    g.add_op(op(0, op::kind::Add, {lt(0, dt::f32, shape), lt(1, dt::f32, shape)}, {lt(2, dt::f32, shape)}));
    g.add_op(op(1, op::kind::ReLU, {lt(2, dt::f32, shape)}, {lt(3, dt::f32, shape)}));
    g.add_op(op(2, op::kind::End, {lt(2, dt::f32, shape)}, {}));
    g.finalize();
    compile_all(g);
    const auto written = files();
    ASSERT_EQ(written.size(), 2u); // the graph and the one partition
    for (const auto &f : written) {
        if (f.filename().string().find("-partition-") == std::string::npos) continue;
        const std::string text = read(f);
        EXPECT_NE(text.find("\"output_ports\": [3, 2]"), std::string::npos) << text;
        const size_t end = text.find("\"kind\": \"End\"");
        ASSERT_NE(end, std::string::npos) << text;
        EXPECT_EQ(text.find("\"kind\": \"End\"", end + 1), std::string::npos) << "one End only: " << text;
        const size_t inputs = text.find("\"inputs\": [", end);
        ASSERT_NE(inputs, std::string::npos);
        EXPECT_EQ(text.find("\"id\": ", inputs), text.find("\"id\": 2,", inputs)) << "the End reads t2: " << text;
    }
}

} // namespace
