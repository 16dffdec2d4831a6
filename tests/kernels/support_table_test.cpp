// The support table in doc/SUPPORT.md is generated here: every (op version,
// type) cell is compiled, executed and checked against the reference, and the
// implementation chosen is recorded. The test fails when the document differs
// from what the code does; FUSEBOX_WRITE_DOCS=1 rewrites it.
#include <gtest/gtest.h>

#include "onednn_probe.hpp"
#include "ops/elementwise.hpp"
#include "test_util.hpp"

namespace {

using namespace fbt;

// Type lists per operator version (ONNX operator docs; oneDNN Graph's Add).
struct version_row {
    const char *name;
    op::kind kind;
    bool legacy; // broadcast/axis attributes (Add-1, Add-6, Equal-1)
    std::vector<dt> types;
};

const std::vector<dt> kColumns = {dt::f16, dt::bf16, dt::f32, dt::f64, dt::s8,  dt::u8,      dt::s16,
                                  dt::u16, dt::s32,  dt::u32, dt::s64, dt::u64, dt::boolean, dt::string};

std::vector<version_row> rows() {
    const std::vector<dt> add6 = {dt::f16, dt::f32, dt::f64, dt::s32, dt::s64, dt::u32, dt::u64};
    std::vector<dt> add13 = add6, add14, eq11, eq13, eq19;
    add13.push_back(dt::bf16);
    add14 = add13;
    for (dt t : {dt::s8, dt::s16, dt::u8, dt::u16}) add14.push_back(t);
    eq11 = {dt::boolean, dt::s8,  dt::s16, dt::s32, dt::s64, dt::u8,
            dt::u16,     dt::u32, dt::u64, dt::f16, dt::f32, dt::f64};
    eq13 = eq11;
    eq13.push_back(dt::bf16);
    eq19 = eq13;
    eq19.push_back(dt::string);
    return {
        {"Add-1", op::kind::Add, true, {dt::f16, dt::f32, dt::f64}},
        {"Add-6", op::kind::Add, true, add6},
        {"Add-7", op::kind::Add, false, add6},
        {"Add-13", op::kind::Add, false, add13},
        {"Add-14", op::kind::Add, false, add14},
        {"Equal-1", op::kind::Equal, true, {dt::boolean, dt::s32, dt::s64}},
        {"Equal-7", op::kind::Equal, false, {dt::boolean, dt::s32, dt::s64}},
        {"Equal-11", op::kind::Equal, false, eq11},
        {"Equal-13", op::kind::Equal, false, eq13},
        {"Equal-19", op::kind::Equal, false, eq19},
        {"oneDNN Graph Add", op::kind::Add, false, {dt::f32, dt::bf16, dt::f16, dt::s32}},
    };
}

// Whether compiling `o` with oneDNN forced fails only because oneDNN has no
// JIT implementation for it on this CPU (what the policy would otherwise use):
// oneDNN offers only its reference code, or (bf16 without AVX-512) nothing.
bool declined_for_lack_of_jit(const op &o, const buffer &a, const buffer &b) {
    kernel_env forced("onednn");
    try {
        run_single(o, a, b);
    } catch (const error &e) {
        const std::string what = e.what();
        return what.find("oneDNN offers only") != std::string::npos ||
               what.find("oneDNN rejected the case") != std::string::npos;
    }
    return false;
}

// Runs one case of 64x1024 (+ a row vector for the legacy rule), checks it
// against the reference and returns the implementation family the policy
// chooses: "oneDNN" also where oneDNN would be chosen but has no JIT
// implementation on this CPU (the table does not depend on the CPU).
std::string run_cell(op::kind kind, dt a_type, dt b_type, bool legacy, bool *inplace_src0 = nullptr) {
    std::mt19937_64 rng(17);
    buffer a(logical_tensor(0, a_type, {64, 1024})), b(logical_tensor(1, b_type, legacy ? dims{1024} : dims{64, 1024}));
    fill(a, rng);
    fill(b, rng);
    op o = binary_op(kind, a.lt, b.lt);
    if (legacy) o.set_attr(op::attr::broadcast, int64_t{1});
    std::string impl;
    std::vector<std::pair<size_t, size_t>> inplace;
    buffer got = run_single(o, a, b, &impl, &inplace);
    if (inplace_src0)
        *inplace_src0 = std::find(inplace.begin(), inplace.end(), std::pair<size_t, size_t>{0, 2}) != inplace.end();
    buffer want(got.lt);
    ref_binary(kind, a, b, want);
    EXPECT_TRUE(same_elements(want, got)) << op_kind_name(kind) << " " << data_type_name(a_type);
    if (impl.rfind("onednn:", 0) == 0) return "oneDNN";
    if (!declined_for_lack_of_jit(o, a, b)) return "native";
    const bool equal = kind == op::kind::Equal;
    EXPECT_FALSE(onednn_binary_has_jit(equal ? dnnl::algorithm::binary_eq : dnnl::algorithm::binary_add, a_type,
                                       a.lt.get_dims(), b.lt.get_dims(), equal ? dt::boolean : a_type))
        << "fusebox found no oneDNN JIT for " << op_kind_name(kind) << " " << data_type_name(a_type)
        << ", oneDNN asked directly has one";
    return "oneDNN";
}

std::string generate() {
    kernel_env env(nullptr);
    std::ostringstream os;
    os << "| version |";
    for (dt t : kColumns) os << " " << data_type_name(t) << " |";
    os << "\n|---|";
    for (size_t i = 0; i < kColumns.size(); ++i) os << "---|";
    os << "\n";
    for (const auto &r : rows()) {
        os << "| " << r.name << " |";
        for (dt t : kColumns) {
            const bool listed = std::find(r.types.begin(), r.types.end(), t) != r.types.end();
            os << " " << (listed ? run_cell(r.kind, t, t, r.legacy) : "–") << " |";
        }
        os << "\n";
    }
    os << "\n| oneDNN Graph Add (src_0, src_1 -> dst) | implementation | in place on src_0 |\n|---|---|---|\n";
    const std::pair<dt, dt> mixed[] = {{dt::f32, dt::f32},  {dt::bf16, dt::bf16}, {dt::f16, dt::f16},
                                       {dt::f32, dt::bf16}, {dt::f32, dt::f16},   {dt::bf16, dt::f32},
                                       {dt::f16, dt::f32},  {dt::s32, dt::s32}};
    for (auto [x, y] : mixed) {
        const dt out = x == y ? x : dt::f32;
        bool inplace = false;
        const std::string impl = run_cell(op::kind::Add, x, y, false, &inplace);
        os << "| " << data_type_name(x) << ", " << data_type_name(y) << " -> " << data_type_name(out) << " | " << impl
           << " | " << (inplace ? "yes" : "no") << " |\n";
    }
    return os.str();
}

TEST(support_table, doc_matches_what_the_code_does) {
    EXPECT_TRUE(
        doc_section_matches("doc/SUPPORT.md", "support-table", "tests/kernels/support_table_test.cpp", generate()));
}

// The op catalogue as doc/SUPPORT.md lists it: one row per op kind fusebox runs.
std::string catalogue_table() {
    using namespace fusebox::detail;
    auto types = [](type_set set) {
        std::string out;
        for (dt t : kColumns)
            if (set & type_bit(t)) out += (out.empty() ? "" : ", ") + std::string(data_type_name(t));
        return out.empty() ? std::string("–") : out;
    };
    std::ostringstream os;
    os << "| op kind | inputs | input types | output | attributes | legacy `broadcast`/`axis` | oneDNN binary where "
          "exact |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (const auto &d : elementwise_ops()) {
        const std::string inputs = d.inputs_min == d.inputs_max ? std::to_string(d.inputs_min)
                                   : d.inputs_max == kAnyCount
                                       ? std::to_string(d.inputs_min) + "+"
                                       : std::to_string(d.inputs_min) + "–" + std::to_string(d.inputs_max);
        std::string in = types(d.types), out = "the input type";
        if (d.rule == type_rule::same_to_bool) out = "boolean";
        if (d.rule == type_rule::select) in = "boolean condition; values: " + in, out = "the values' type";
        if (d.rule == type_rule::exponent)
            in = "base: " + in + "; exponent (a tensor, or oneDNN's `beta`): any numeric type", out = "the base's type";
        if (d.shapes == shape_rule::channel) in += "; a 1-D bias along the channel dim";
        if (d.shapes == shape_rule::slope) in += "; the slope broadcasts to the input (1-D: per channel)";
        if (d.shapes == shape_rule::scalars) in += "; min, max: optional one-element inputs of that type (Clip-11+)";
        if (d.rule == type_rule::cast) out = "the declared output type, one of the same";
        if (d.mixed_f32) in += "; f32 with bf16 or f16 (either order) -> f32";
        std::string attrs;
        for (op::attr a : d.own_attrs)
            if (a != op::attr::undef) attrs += (attrs.empty() ? "`" : ", `") + std::string(attr_name(a)) + "`";
        std::string onednn = types(d.onednn_exact);
        if (d.onednn_flushing) onednn += " (" + types(d.onednn_flushing) + " with a relaxed fpmath mode)";
        os << "| " << op_kind_name(d.kind) << " | " << inputs << " | " << in << " | " << out << " | "
           << (attrs.empty() ? "–" : attrs) << " | " << (d.legacy_broadcast ? "yes" : "–") << " | " << onednn << " |\n";
    }
    return os.str();
}

TEST(support_table, catalogue_doc_matches_the_catalogue) {
    EXPECT_TRUE(
        doc_section_matches("doc/SUPPORT.md", "catalogue", "tests/kernels/support_table_test.cpp", catalogue_table()));
}

} // namespace
