// Op schemas: the checks add_op makes for any op kind (arity, attribute
// types), and for the kinds fusebox runs the checks of their catalogue row
// (ops/elementwise.hpp).
#pragma once

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

/// Checks an op as add_op receives it: a known kind, the arity of its schema,
/// attribute types; for the kinds fusebox runs also attribute values and the
/// input types that are known. Throws error naming the op id.
void validate_op(const op &o);

/// The type rule of an op fusebox runs, for the input and output types known
/// now: throws invalid_data_type naming the op and the types.
void validate_types(const op &o);

} // namespace fusebox::detail
