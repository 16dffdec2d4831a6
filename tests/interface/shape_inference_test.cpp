// Output shapes inferred by graph::finalize for every broadcast rule.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using namespace fbt;

enum class rule { numpy, none, legacy0, legacy1 };

struct shape_case {
    rule r;
    dims a, b;
    int64_t axis; // legacy1 only; -100 = not set
    dims expected;
    bool ok;
};

op make_op(const shape_case &c) {
    op o(0, op::kind::Add, {logical_tensor(0, dt::f32, c.a), logical_tensor(1, dt::f32, c.b)},
         {logical_tensor(2, dt::f32, logical_tensor::layout_type::any)});
    if (c.r == rule::none) o.set_attr(op::attr::auto_broadcast, std::string("none"));
    if (c.r == rule::legacy0) o.set_attr(op::attr::broadcast, int64_t{0});
    if (c.r == rule::legacy1) o.set_attr(op::attr::broadcast, int64_t{1});
    if (c.r == rule::legacy1 && c.axis != -100) o.set_attr(op::attr::axis, c.axis);
    return o;
}

const shape_case kCases[] = {
    {rule::numpy, {2, 3}, {2, 3}, 0, {2, 3}, true},
    {rule::numpy, {}, {}, 0, {}, true},
    {rule::numpy, {}, {4, 5}, 0, {4, 5}, true},
    {rule::numpy, {2, 1, 4}, {3, 1}, 0, {2, 3, 4}, true},
    {rule::numpy, {8192, 1}, {1, 8192}, 0, {8192, 8192}, true},
    {rule::numpy, {0, 3}, {1, 3}, 0, {0, 3}, true},
    {rule::numpy, {0}, {1}, 0, {0}, true},
    {rule::numpy, {5, 0, 2}, {2}, 0, {5, 0, 2}, true},
    {rule::numpy, {0, 3}, {2, 3}, 0, {}, false},
    {rule::numpy, {2, 3}, {3, 2}, 0, {}, false},
    {rule::numpy, {4}, {5}, 0, {}, false},
    {rule::none, {2, 3}, {2, 3}, 0, {2, 3}, true},
    {rule::none, {2, 3}, {1, 3}, 0, {}, false},
    {rule::none, {3}, {1, 3}, 0, {}, false},
    {rule::legacy0, {2, 3}, {2, 3}, 0, {2, 3}, true},
    {rule::legacy0, {2, 3}, {3}, 0, {}, false},
    // The examples of ONNX's legacy rule for A = (2,3,4,5).
    {rule::legacy1, {2, 3, 4, 5}, {}, -100, {2, 3, 4, 5}, true},
    {rule::legacy1, {2, 3, 4, 5}, {1, 1}, -100, {2, 3, 4, 5}, true},
    {rule::legacy1, {2, 3, 4, 5}, {5}, -100, {2, 3, 4, 5}, true},
    {rule::legacy1, {2, 3, 4, 5}, {4, 5}, -100, {2, 3, 4, 5}, true},
    {rule::legacy1, {2, 3, 4, 5}, {3, 4}, 1, {2, 3, 4, 5}, true},
    {rule::legacy1, {2, 3, 4, 5}, {2}, 0, {2, 3, 4, 5}, true},
    {rule::legacy1, {2, 3, 4, 5}, {3, 4}, -3, {2, 3, 4, 5}, true},
    // Invalid legacy shapes: no one-dimensional expansion, runs must match.
    {rule::legacy1, {2, 3, 4, 5}, {1, 5}, -100, {}, false},
    {rule::legacy1, {2, 3, 4, 5}, {3, 4}, -100, {}, false},
    {rule::legacy1, {2, 3, 4, 5}, {3, 4}, 2, {}, false},
    {rule::legacy1, {2, 3, 4, 5}, {4, 5}, 3, {}, false},
    {rule::legacy1, {2, 3}, {2, 3, 4}, -100, {}, false},
    {rule::legacy1, {2, 3, 4, 5}, {5}, 4, {}, false},
};

class shape_inference_test : public ::testing::TestWithParam<shape_case> {};

TEST_P(shape_inference_test, infers_output_shape_or_rejects) {
    const shape_case &c = GetParam();
    graph g(engine::kind::cpu);
    g.add_op(make_op(c));
    if (!c.ok) {
        try {
            g.finalize();
            FAIL() << "expected invalid_shape";
        } catch (const error &e) {
            EXPECT_EQ(e.get_status(), status::invalid_shape);
            EXPECT_NE(std::string(e.what()).find("op 0 (Add)"), std::string::npos) << e.what();
        }
        return;
    }
    g.finalize();
    logical_tensor out = g.get_partitions()[0].get_output_ports()[0];
    EXPECT_EQ(out.get_ndims(), static_cast<int32_t>(c.expected.size()));
    EXPECT_EQ(out.get_dims(), c.expected);
}

INSTANTIATE_TEST_SUITE_P(table, shape_inference_test, ::testing::ValuesIn(kCases));

TEST(shape_inference, unknown_dims_and_rank_propagate_and_resolve_at_compile) {
    graph g(engine::kind::cpu);
    logical_tensor a(0, dt::f32, {-1, 4}), b(1, dt::f32, {4}), c(3, dt::f32, dims{1});
    logical_tensor s(2, dt::f32, logical_tensor::layout_type::any), t(4, dt::f32, logical_tensor::layout_type::any);
    g.add_op(op(0, op::kind::Add, {a, b}, {s}));
    g.add_op(op(1, op::kind::Add, {s, c}, {t}));
    g.finalize();
    auto parts = g.get_partitions(partition::policy::debug);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].get_output_ports()[0].get_dims(), (dims{-1, 4}));
    EXPECT_EQ(parts[1].get_output_ports()[0].get_dims(), (dims{-1, 4}));
    const engine eng(engine::kind::cpu);
    auto cp = parts[0].compile({logical_tensor(0, dt::f32, {7, 4}), b}, {s}, eng);
    EXPECT_EQ(cp.query_logical_tensor(2).get_dims(), (dims{7, 4}));
    EXPECT_EQ(cp.query_logical_tensor(2).get_strides(), (dims{4, 1}));
}

TEST(shape_inference, unknown_rank_output_is_inferred_and_type_is_inferred) {
    graph g(engine::kind::cpu);
    g.add_op(op(0, op::kind::Equal, {logical_tensor(0, dt::s64, {3, 1}), logical_tensor(1, dt::s64, {1, 5})},
                {logical_tensor(2, dt::undef, logical_tensor::layout_type::any)}));
    g.finalize();
    logical_tensor out = g.get_partitions()[0].get_output_ports()[0];
    EXPECT_EQ(out.get_data_type(), dt::boolean);
    EXPECT_EQ(out.get_dims(), (dims{3, 5}));
}

TEST(shape_inference, mem_size_follows_strides) {
    EXPECT_EQ(logical_tensor(0, dt::f32, {2, 3}).get_mem_size(), 24u);
    EXPECT_EQ(logical_tensor(0, dt::f32, {2, 3}, {1, 4}).get_mem_size(), (1 + 2 * 4 + 1) * 4u);
    EXPECT_EQ(logical_tensor(0, dt::f64, dims{}).get_mem_size(), 8u);
    EXPECT_EQ(logical_tensor(0, dt::f32, {0, 3}).get_mem_size(), 0u);
    EXPECT_EQ(logical_tensor(0, dt::f32, {-1, 3}).get_mem_size(), 0u);
    EXPECT_EQ(logical_tensor(0, dt::string, {2}).get_mem_size(), 2 * sizeof(string_view_t));
}

} // namespace
