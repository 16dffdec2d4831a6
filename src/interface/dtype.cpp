#include "interface/dtype.hpp"
#include <cstdint>

namespace fusebox {
namespace {

struct dtype_fact {
    data_type dt;
    const char *name;
    size_t size;
};

// Index i of this table is dtype_index() of its type.
constexpr dtype_fact kFacts[detail::kNumDataTypes] = {
    {data_type::undef, "undef", 0},
    {data_type::f16, "f16", 2},
    {data_type::bf16, "bf16", 2},
    {data_type::f32, "f32", 4},
    {data_type::f64, "f64", 8},
    {data_type::s8, "s8", 1},
    {data_type::u8, "u8", 1},
    {data_type::s16, "s16", 2},
    {data_type::u16, "u16", 2},
    {data_type::s32, "s32", 4},
    {data_type::u32, "u32", 4},
    {data_type::s64, "s64", 8},
    {data_type::u64, "u64", 8},
    {data_type::boolean, "boolean", 1},
    {data_type::string, "string", sizeof(string_view_t)},
};

} // namespace

namespace detail {

data_type data_type_at(int i) { return i >= 0 && i < kNumDataTypes ? kFacts[i].dt : data_type::undef; }

int dtype_index(data_type dt) {
    for (int i = 0; i < kNumDataTypes; ++i)
        if (kFacts[i].dt == dt) return i;
    return 0;
}

bool is_valid(data_type dt) {
    for (const auto &f : kFacts)
        if (f.dt == dt) return true;
    return false;
}

bool is_float(data_type dt) {
    return dt == data_type::f16 || dt == data_type::bf16 || dt == data_type::f32 || dt == data_type::f64;
}

long double type_lowest(data_type dt) {
    switch (dt) {
    case data_type::s8: return INT8_MIN;
    case data_type::s16: return INT16_MIN;
    case data_type::s32: return INT32_MIN;
    case data_type::s64: return static_cast<long double>(INT64_MIN);
    default: return 0;
    }
}

long double type_highest(data_type dt) {
    switch (dt) {
    case data_type::s8: return INT8_MAX;
    case data_type::u8: return UINT8_MAX;
    case data_type::s16: return INT16_MAX;
    case data_type::u16: return UINT16_MAX;
    case data_type::s32: return INT32_MAX;
    case data_type::u32: return UINT32_MAX;
    case data_type::s64: return static_cast<long double>(INT64_MAX);
    case data_type::u64: return static_cast<long double>(UINT64_MAX);
    default: return 0;
    }
}

bool is_integer(data_type dt) {
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

size_t element_alignment(data_type dt) {
    const size_t size = data_type_size(dt);
    return size == 0 ? 1 : size > alignof(string_view_t) ? alignof(string_view_t) : size;
}

data_type data_type_from_name(const std::string &name) {
    for (const auto &f : kFacts)
        if (name == f.name) return f.dt;
    return data_type::undef;
}

} // namespace detail

size_t data_type_size(data_type dt) { return kFacts[detail::dtype_index(dt)].size; }
const char *data_type_name(data_type dt) { return kFacts[detail::dtype_index(dt)].name; }

} // namespace fusebox
