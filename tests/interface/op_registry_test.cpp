// The op-kind and attribute tables: names round-trip through the public
// lookups, every oneDNN Graph kind is there, and doc/SUPPORT.md's kind table
// is generated from them (FUSEBOX_WRITE_DOCS=1 rewrites it).
#include <gtest/gtest.h>

#include <set>

#include "interface/op_registry.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;

// The kinds fusebox runs (ELEMENTWISE.md, as far as they are built).
const std::set<op::kind> kRuns = {op::kind::Add,
                                  op::kind::Subtract,
                                  op::kind::Multiply,
                                  op::kind::Divide,
                                  op::kind::Maximum,
                                  op::kind::Minimum,
                                  op::kind::Equal,
                                  op::kind::Greater,
                                  op::kind::GreaterEqual,
                                  op::kind::Less,
                                  op::kind::LessEqual,
                                  op::kind::LogicalAnd,
                                  op::kind::LogicalOr,
                                  op::kind::LogicalXor,
                                  op::kind::LogicalNot,
                                  op::kind::BitwiseAnd,
                                  op::kind::BitwiseOr,
                                  op::kind::BitwiseXor,
                                  op::kind::BitwiseNot,
                                  op::kind::BitShift,
                                  op::kind::Where,
                                  op::kind::Select,
                                  op::kind::Mod,
                                  op::kind::Sum,
                                  op::kind::Mean,
                                  op::kind::Pow,
                                  op::kind::PReLU,
                                  op::kind::BiasAdd,
                                  op::kind::SquaredDifference,
                                  op::kind::Abs,
                                  op::kind::Neg,
                                  op::kind::Sign,
                                  op::kind::Floor,
                                  op::kind::Ceil,
                                  op::kind::Round,
                                  op::kind::Sqrt,
                                  op::kind::Reciprocal,
                                  op::kind::Square,
                                  op::kind::ReLU,
                                  op::kind::LeakyReLU,
                                  op::kind::HardSigmoid,
                                  op::kind::HardSwish,
                                  op::kind::Softsign,
                                  op::kind::Clamp,
                                  op::kind::Clip,
                                  op::kind::IsNaN,
                                  op::kind::IsInf,
                                  op::kind::Exp,
                                  op::kind::Log,
                                  op::kind::Tanh,
                                  op::kind::Sigmoid,
                                  op::kind::Erf,
                                  op::kind::Elu,
                                  op::kind::Selu,
                                  op::kind::SoftPlus,
                                  op::kind::Mish,
                                  op::kind::GELU,
                                  op::kind::Cast,
                                  op::kind::TypeCast};

TEST(op_registry, names_round_trip_and_are_unique) {
    std::set<std::string> names;
    std::set<int> values;
    for (const auto &row : detail::op_kinds()) {
        EXPECT_TRUE(names.insert(row.name).second) << row.name;
        EXPECT_TRUE(values.insert(static_cast<int>(row.kind)).second) << row.name;
        EXPECT_EQ(op_kind_from_name(row.name), row.kind);
        EXPECT_STREQ(op_kind_name(row.kind), row.name);
        EXPECT_EQ(is_kind_supported(row.kind), kRuns.count(row.kind) == 1) << row.name;
    }
    // oneDNN Graph's kinds 0 .. RMSNorm, Dropout, then fusebox's own from Equal
    // (0x100) on, without gaps: ELEMENTWISE.md's ONNX-only ops, Equal to Cast.
    const int last_own = static_cast<int>(op::kind::Cast);
    EXPECT_EQ(last_own - 0x100 + 1, 28);
    EXPECT_EQ(detail::op_kinds().size(), static_cast<size_t>(op::kind::LastSymbol) + (last_own - 0x100 + 1));
    for (int v = 0; v < static_cast<int>(op::kind::LastSymbol); ++v) EXPECT_TRUE(values.count(v)) << v;
    for (int v = 0x100; v <= last_own; ++v) EXPECT_TRUE(values.count(v)) << v;
    EXPECT_STREQ(op_kind_name(op::kind::LastSymbol), "unknown");
    for (const auto &row : detail::attrs()) {
        EXPECT_EQ(attr_from_name(row.name), row.attr);
        EXPECT_STREQ(attr_name(row.attr), row.name);
    }
    EXPECT_THROW(op_kind_from_name("Mul"), error);
    EXPECT_THROW(attr_from_name("bogus"), error);
}

TEST(op_registry, attribute_value_types_follow_onednns_ranges) {
    for (const auto &row : detail::attrs()) {
        const int v = static_cast<int>(row.attr);
        detail::attr_type expected = row.type;
        if (v < 0x20)
            expected = detail::attr_type::f32;
        else if (v < 0x30)
            expected = detail::attr_type::f32s;
        else if (v < 0x40)
            expected = detail::attr_type::s64;
        else if (v < 0x60)
            expected = detail::attr_type::s64s;
        else if (v < 0x80)
            expected = detail::attr_type::boolean;
        else if (v < 0x100)
            expected = detail::attr_type::string;
        EXPECT_EQ(row.type, expected) << row.name;
    }
}

std::string kinds_table() {
    std::ostringstream os;
    auto count = [](int lo, int hi) {
        if (lo == hi) return std::to_string(lo);
        return std::to_string(lo) + (hi == detail::kUnbounded ? "+" : "–" + std::to_string(hi));
    };
    os << "| op kind | fusebox runs it | inputs | outputs |\n|---|---|---|---|\n";
    for (const auto &row : detail::op_kinds())
        os << "| " << row.name << " | "
           << (is_kind_supported(row.kind) ? "**yes**"
               : row.kind == op::kind::End ? "(marks a graph output)"
                                           : "no")
           << " | " << count(row.inputs_min, row.inputs_max) << " | " << count(row.outputs_min, row.outputs_max)
           << " |\n";
    os << "\n| attribute | value type |\n|---|---|\n";
    for (const auto &row : detail::attrs())
        os << "| " << row.name << " | " << detail::attr_type_name(row.type) << " |\n";
    return os.str();
}

TEST(op_registry, doc_lists_every_kind_and_attribute) {
    EXPECT_TRUE(
        doc_section_matches("doc/SUPPORT.md", "op-kinds", "tests/interface/op_registry_test.cpp", kinds_table()));
}

} // namespace
