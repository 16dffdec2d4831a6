// The one table of op kinds and the one table of attributes: names, arity,
// attribute value types (which kinds fusebox runs: the op catalogue,
// ops/elementwise.hpp). Validation, the public
// name lookups and doc/SUPPORT.md are all generated from these tables.
#pragma once

#include <vector>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

constexpr int kUnbounded = -1;

struct op_kind_info {
    op::kind kind;
    const char *name;
    int inputs_min, inputs_max;   // kUnbounded: no limit
    int outputs_min, outputs_max; // (oneDNN Graph's schema, its most permissive release)
};

enum class attr_type { f32, f32s, s64, s64s, boolean, string };

struct attr_info {
    op::attr attr;
    const char *name;
    attr_type type;
};

const std::vector<op_kind_info> &op_kinds();
const std::vector<attr_info> &attrs();

/// The row of `k`, or nullptr for a value that is no op::kind.
const op_kind_info *find_kind(op::kind k);
/// The row of `a`, or nullptr for a value that is no op::attr (undef and end included).
const attr_info *find_attr(op::attr a);

const char *attr_type_name(attr_type t); // "f32", "f32[]", "s64", "s64[]", "bool", "string"
/// The attr_type an attribute value holds.
attr_type type_of(const op::attr_value &v);

} // namespace fusebox::detail
