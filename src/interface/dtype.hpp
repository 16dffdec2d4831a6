// Facts about element types, kept in one table (dtype.cpp).
#pragma once

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

bool is_float(data_type dt);   // f16, bf16, f32, f64
bool is_integer(data_type dt); // s8 .. u64
/// Parses a name produced by data_type_name; returns undef for unknown names.
data_type data_type_from_name(const std::string &name);

} // namespace fusebox::detail
