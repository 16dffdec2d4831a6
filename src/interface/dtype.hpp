// Facts about element types, kept in one table (dtype.cpp).
#pragma once

#include <string>

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

/// Number of data types, undef included: the extent of tables indexed by dtype_index.
constexpr int kNumDataTypes = 15;

/// A dense index in [0, kNumDataTypes) for a computed data type (enum values
/// are sparse); 0 (undef's) for the storage-only types.
int dtype_index(data_type dt);
/// The data type of dense index i (the inverse of dtype_index).
data_type data_type_at(int i);
/// True for the enumerators of data_type (undef included).
bool is_valid(data_type dt);
/// True for the types fusebox computes with (the dense index; undef included).
bool is_computed(data_type dt);
/// True for the f8, f4, e8m0, s4 and u4 types: stored, never computed with.
bool is_storage_only(data_type dt);
/// Bytes `elements` consecutive elements of `dt` take (4-bit types two per byte).
size_t storage_bytes(data_type dt, size_t elements);
bool is_float(data_type dt);              // f16, bf16, f32, f64
constexpr bool is_integer(data_type dt) { // s8 .. u64 (constexpr: kernels pick loops by it at compile time)
    switch (dt) {
    case data_type::s8:
    case data_type::u8:
    case data_type::s16:
    case data_type::u16:
    case data_type::s32:
    case data_type::u32:
    case data_type::s64:
    case data_type::u64: return true;
    default: return false;
    }
}
/// The smallest and largest values of an integer type (exact in long double).
long double type_lowest(data_type dt);
long double type_highest(data_type dt);
/// Alignment a data handle of `dt` elements must have (the element size; 8 for strings).
size_t element_alignment(data_type dt);
/// Parses a name produced by data_type_name; returns undef for unknown names.
data_type data_type_from_name(const std::string &name);

} // namespace fusebox::detail
