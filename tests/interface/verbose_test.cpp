// The verbose log: an info header naming each line's fields, one comma-free
// line per partition, compile and execute whose fields follow the template,
// and the values in those fields.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "test_util.hpp"

namespace {

using namespace fbt;

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep)) parts.push_back(part);
    if (!s.empty() && s.back() == sep) parts.emplace_back();
    return parts;
}

// A captured log: the templates of the header, and each other line as a
// map from field name to value.
struct log_lines {
    std::map<std::string, std::vector<std::string>> templates;                     // event -> field names
    std::vector<std::string> info;                                                 // info lines that are not templates
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> lines; // event, fields

    explicit log_lines(const std::string &text) {
        for (const std::string &line : split(text, '\n')) {
            if (line.rfind("fusebox_verbose,", 0) != 0) continue;
            std::vector<std::string> f = split(line, ',');
            if (f[1] == "info") {
                if (f[2].rfind("template:", 0) == 0)
                    templates[f[2].substr(9)] = std::vector<std::string>(f.begin() + 3, f.end());
                else
                    info.push_back(line);
                continue;
            }
            const std::string event = f[1].substr(0, f[1].find(':'));
            const auto t = templates.find(event);
            if (t == templates.end()) {
                ADD_FAILURE() << "no template for " << line;
                continue;
            }
            EXPECT_EQ(f.size() - 2, t->second.size()) << line;
            std::map<std::string, std::string> fields{{"event", f[1]}};
            for (size_t i = 0; i < t->second.size() && i + 2 < f.size(); ++i) fields[t->second[i]] = f[i + 2];
            lines.emplace_back(event, fields);
        }
    }

    std::vector<std::map<std::string, std::string>> of(const std::string &event) const {
        std::vector<std::map<std::string, std::string>> r;
        for (const auto &[e, fields] : lines)
            if (e == event) r.push_back(fields);
        return r;
    }
};

// Runs f with the log at `level` and returns what it printed.
template <typename F> log_lines capture(int level, F &&f) {
    testing::internal::CaptureStdout();
    set_verbose(level);
    try {
        f();
    } catch (...) {
        set_verbose(0);
        testing::internal::GetCapturedStdout();
        throw;
    }
    set_verbose(0);
    return log_lines(testing::internal::GetCapturedStdout());
}

TEST(verbose, header_names_the_fields_of_every_line) {
    const engine eng(engine::kind::cpu);
    stream strm(eng);
    const logical_tensor a(0, dt::f32, {4, 3}), b(1, dt::f32, {3}), c(2, dt::f32, {4, 3});
    const logical_tensor sum(3, dt::f32, logical_tensor::layout_type::any),
        total(4, dt::f32, logical_tensor::layout_type::any);
    std::vector<float> da(12, 1.f), db(3, 2.f), dc(12, 3.f), out(12);
    std::string impl;
    log_lines log = capture(1, [&] {
        graph g(engine::kind::cpu);
        g.add_op(op(7, op::kind::Add, {a, b}, {sum}, "bias, add")); // a name needing escapes
        g.add_op(op(8, op::kind::Add, {sum, c}, {total}, "residual"));
        g.finalize();
        auto parts = g.get_partitions();
        ASSERT_EQ(parts.size(), 1u);
        compiled_partition cp = parts[0].compile(parts[0].get_input_ports(), {total}, eng);
        impl = cp.get_impl_info();
        std::vector<tensor> ins;
        for (const auto &port : parts[0].get_input_ports())
            ins.emplace_back(port, eng, port.get_id() == 0 ? da.data() : port.get_id() == 1 ? db.data() : dc.data());
        cp.execute(strm, ins, {tensor(cp.query_logical_tensor(4), eng, out.data())});
        cp = parts[0].compile(parts[0].get_input_ports(), {total}, eng); // a cache hit
    });
    EXPECT_EQ(out[0], 6.f);

    ASSERT_EQ(log.templates.count("partition"), 1u);
    ASSERT_EQ(log.templates.count("compile"), 1u);
    ASSERT_EQ(log.templates.count("execute"), 1u);
    ASSERT_GE(log.info.size(), 3u);
    EXPECT_NE(log.info[0].find("fusebox_verbose,info,version," + std::to_string(FUSEBOX_VERSION_MAJOR) + "." +
                               std::to_string(FUSEBOX_VERSION_MINOR) + "."),
              std::string::npos);
    EXPECT_NE(log.info[1].find("fusebox_verbose,info,onednn,"), std::string::npos);
    EXPECT_NE(log.info[2].find("native isa"), std::string::npos);

    const auto partitions = log.of("partition");
    ASSERT_EQ(partitions.size(), 1u);
    EXPECT_EQ(partitions[0].at("ops"), "7:Add:bias%2C%20add 8:Add:residual");
    EXPECT_EQ(partitions[0].at("inputs"), "in0:0:f32:4x3:3s1 in1:1:f32:3:1 in2:2:f32:4x3:3s1");
    EXPECT_EQ(partitions[0].at("outputs"), "out0:4:f32:4x3:any");
    EXPECT_EQ(partitions[0].at("impl"), "fusebox");
    EXPECT_EQ(partitions[0].at("reason"), "fused 2 ops");

    const auto compiles = log.of("compile");
    ASSERT_EQ(compiles.size(), 2u);
    EXPECT_EQ(compiles[0].at("event"), "compile:cache_miss");
    EXPECT_EQ(compiles[1].at("event"), "compile:cache_hit");
    for (const auto &c : compiles) {
        EXPECT_EQ(c.at("engine"), "cpu");
        EXPECT_EQ(c.at("partition"), "0");
        EXPECT_EQ(c.at("outputs"), "out0:4:f32:4x3:3s1"); // as compiled: dense strides
        EXPECT_EQ(c.at("fpmath"), "strict");
        EXPECT_EQ(c.at("impl"), impl);
        EXPECT_EQ(c.at("reason"), "small: 192 B touched (< 256 KiB) costs less than a primitive call");
        EXPECT_EQ(c.at("chunks"), "1");
        EXPECT_EQ(c.at("streaming"), "no");
        EXPECT_GE(std::stod(c.at("time_ms")), 0.0);
        EXPECT_GE(std::stoi(c.at("threads")), 1);
    }
    const auto executes = log.of("execute");
    ASSERT_EQ(executes.size(), 1u);
    EXPECT_EQ(executes[0].at("inputs"), "in0:0:f32:4x3:3s1 in1:1:f32:3:1 in2:2:f32:4x3:3s1");
    EXPECT_GE(std::stod(executes[0].at("GB/s")), 0.0);
}

TEST(verbose, level_two_adds_the_canonical_form_by_input_port) {
    const engine eng(engine::kind::cpu);
    const logical_tensor a(10, dt::f32, {2, 8}), b(11, dt::f32, {8});
    log_lines log = capture(2, [&] {
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {b, a}, {logical_tensor(12, dt::f32, logical_tensor::layout_type::any)}));
        g.finalize();
        auto p = g.get_partitions().at(0);
        p.compile(p.get_input_ports(), p.get_output_ports(), eng);
    });
    ASSERT_EQ(log.templates.count("canonical"), 1u);
    const auto canonical = log.of("canonical");
    ASSERT_EQ(canonical.size(), 1u);
    EXPECT_EQ(canonical[0].at("form"), "shape=2x8 out=8s1 n0=Add(f32 in0:0s1 f32 in1:8s1)->f32");
}

TEST(verbose, unsupported_partitions_and_onednn_choices_say_why) {
    const engine eng(engine::kind::cpu);
    const int64_t n = 1 << 16; // 768 KiB moved: between the small and the streaming sizes
    const logical_tensor a(0, dt::f32, {n}), b(1, dt::f32, {n}), s(2, dt::f32, {n}), w(3, dt::f32, {n, 1}),
        m(4, dt::f32, logical_tensor::layout_type::any);
    log_lines log = capture(1, [&] {
        graph g(engine::kind::cpu);
        g.add_op(op(0, op::kind::Add, {a, b}, {s}));
        g.add_op(op(1, op::kind::MatMul, {s, w}, {m}, "proj"));
        g.finalize();
        auto parts = g.get_partitions();
        ASSERT_EQ(parts.size(), 2u);
        parts[0].compile(parts[0].get_input_ports(), parts[0].get_output_ports(), eng);
    });
    const auto partitions = log.of("partition");
    ASSERT_EQ(partitions.size(), 2u);
    EXPECT_EQ(partitions[1].at("ops"), "1:MatMul:proj");
    EXPECT_EQ(partitions[1].at("impl"), "unsupported");
    EXPECT_EQ(partitions[1].at("reason"), "fusebox does not run MatMul");
    const auto compiles = log.of("compile");
    ASSERT_EQ(compiles.size(), 1u);
    EXPECT_EQ(compiles[0].at("impl").rfind("onednn:", 0), 0u) << compiles[0].at("impl");
    EXPECT_EQ(compiles[0].at("reason"), "oneDNN is exact here");
}

TEST(verbose, rejects_levels_it_does_not_have) {
    expect_error([] { set_verbose(3); }, status::invalid_arguments, "set_verbose: level must be 0, 1 or 2, got 3");
    expect_error([] { set_verbose(-1); }, status::invalid_arguments, "got -1");
}

} // namespace
