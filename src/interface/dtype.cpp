#include "interface/dtype.hpp"
#include <cstdint>

#include "common/checked.hpp"

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

// Types fusebox stores but never computes with (outside the dense index).
struct storage_fact {
    data_type dt;
    const char *name;
    int bits;
};
constexpr storage_fact kStorageOnly[] = {
    {data_type::f8_e5m2, "f8_e5m2", 8}, {data_type::f8_e4m3, "f8_e4m3", 8}, {data_type::e8m0, "e8m0", 8},
    {data_type::s4, "s4", 4},           {data_type::u4, "u4", 4},           {data_type::f4_e2m1, "f4_e2m1", 4},
    {data_type::f4_e3m0, "f4_e3m0", 4},
};

const storage_fact *find_storage_only(data_type dt) {
    for (const auto &f : kStorageOnly)
        if (f.dt == dt) return &f;
    return nullptr;
}

} // namespace

namespace detail {

data_type data_type_at(int i) { return i >= 0 && i < kNumDataTypes ? kFacts[i].dt : data_type::undef; }

int dtype_index(data_type dt) {
    for (int i = 0; i < kNumDataTypes; ++i)
        if (kFacts[i].dt == dt) return i;
    return 0;
}

bool is_computed(data_type dt) {
    for (const auto &f : kFacts)
        if (f.dt == dt) return true;
    return false;
}

bool is_storage_only(data_type dt) { return find_storage_only(dt) != nullptr; }

bool is_valid(data_type dt) { return is_computed(dt) || is_storage_only(dt); }

size_t storage_bytes(data_type dt, size_t elements) {
    if (const storage_fact *f = find_storage_only(dt); f && f->bits < 8) return elements / 2 + elements % 2;
    return checked_mul(elements, data_type_size(dt)).value_or(0);
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

size_t element_alignment(data_type dt) {
    const size_t size = data_type_size(dt);
    return size == 0 ? 1 : size > alignof(string_view_t) ? alignof(string_view_t) : size;
}

data_type data_type_from_name(const std::string &name) {
    for (const auto &f : kFacts)
        if (name == f.name) return f.dt;
    for (const auto &f : kStorageOnly)
        if (name == f.name) return f.dt;
    return data_type::undef;
}

} // namespace detail

size_t data_type_size(data_type dt) {
    if (find_storage_only(dt)) return 1; // a 4-bit element shares its byte
    return kFacts[detail::dtype_index(dt)].size;
}

const char *data_type_name(data_type dt) {
    if (const storage_fact *f = find_storage_only(dt)) return f->name;
    return kFacts[detail::dtype_index(dt)].name;
}

} // namespace fusebox
