#include "kernels/native/binary_ops.hpp"

#include <cstring>
#include <type_traits>

#include "kernels/native/half.hpp"

namespace fusebox::detail {
namespace {

// Four specialisations so that each loop body has compile-time strides and
// vectorizes.
template <typename T, typename R, typename F>
void apply(const void *a_, int64_t sa, const void *b_, int64_t sb, void *out_, int64_t n, F f) {
    const T *a = static_cast<const T *>(a_), *b = static_cast<const T *>(b_);
    R *out = static_cast<R *>(out_);
    if (sa && sb)
        for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
    else if (sb) {
        const T x = a[0];
        for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
    } else if (sa) {
        const T y = b[0];
        for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
    } else {
        const R r = f(a[0], b[0]);
        for (int64_t i = 0; i < n; ++i) out[i] = r;
    }
}

template <typename T> void add(const void *a, int64_t sa, const void *b, int64_t sb, void *out, int64_t n) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>; // two's-complement wraparound, no UB
        apply<T, T>(a, sa, b, sb, out, n,
                    [](T x, T y) { return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y))); });
    } else {
        apply<T, T>(a, sa, b, sb, out, n, [](T x, T y) { return x + y; });
    }
}

template <typename T> void equal(const void *a, int64_t sa, const void *b, int64_t sb, void *out, int64_t n) {
    apply<T, uint8_t>(a, sa, b, sb, out, n, [](T x, T y) { return static_cast<uint8_t>(x == y); });
}

void equal_boolean(const void *a, int64_t sa, const void *b, int64_t sb, void *out, int64_t n) {
    apply<uint8_t, uint8_t>(a, sa, b, sb, out, n,
                            [](uint8_t x, uint8_t y) { return static_cast<uint8_t>((x != 0) == (y != 0)); });
}

void equal_string(const void *a, int64_t sa, const void *b, int64_t sb, void *out, int64_t n) {
    apply<string_view_t, uint8_t>(a, sa, b, sb, out, n, [](const string_view_t &x, const string_view_t &y) {
        return static_cast<uint8_t>(x.size == y.size && (x.size == 0 || std::memcmp(x.data, y.data, x.size) == 0));
    });
}

template <typename From, typename To, To (*f)(From)> void convert(const void *in_, void *out_, int64_t n) {
    const From *in = static_cast<const From *>(in_);
    To *out = static_cast<To *>(out_);
    for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

} // namespace

data_type compute_type(data_type a, data_type b) {
    auto low = [](data_type t) { return t == data_type::f16 || t == data_type::bf16; };
    return low(a) || low(b) ? data_type::f32 : a;
}

binary_fn find_add(data_type t) {
    switch (t) {
    case data_type::f32: return add<float>;
    case data_type::f64: return add<double>;
    case data_type::s8: return add<int8_t>;
    case data_type::u8: return add<uint8_t>;
    case data_type::s16: return add<int16_t>;
    case data_type::u16: return add<uint16_t>;
    case data_type::s32: return add<int32_t>;
    case data_type::u32: return add<uint32_t>;
    case data_type::s64: return add<int64_t>;
    case data_type::u64: return add<uint64_t>;
    default: return nullptr;
    }
}

binary_fn find_equal(data_type t) {
    switch (t) {
    case data_type::f32: return equal<float>;
    case data_type::f64: return equal<double>;
    case data_type::s8: return equal<int8_t>;
    case data_type::u8: return equal<uint8_t>;
    case data_type::s16: return equal<int16_t>;
    case data_type::u16: return equal<uint16_t>;
    case data_type::s32: return equal<int32_t>;
    case data_type::u32: return equal<uint32_t>;
    case data_type::s64: return equal<int64_t>;
    case data_type::u64: return equal<uint64_t>;
    case data_type::boolean: return equal_boolean;
    case data_type::string: return equal_string;
    default: return nullptr;
    }
}

convert_fn find_convert(data_type from, data_type to) {
    if (to == data_type::f32 && from == data_type::f16) return convert<uint16_t, float, f16_to_f32>;
    if (to == data_type::f32 && from == data_type::bf16) return convert<uint16_t, float, bf16_to_f32>;
    if (from == data_type::f32 && to == data_type::f16) return convert<float, uint16_t, f32_to_f16>;
    if (from == data_type::f32 && to == data_type::bf16) return convert<float, uint16_t, f32_to_bf16>;
    return nullptr;
}

} // namespace fusebox::detail
