#include <algorithm>
#include <cstdint>

#include "interface/errors.hpp"

namespace fusebox {
namespace {

logical_tensor::dims dense_strides(const logical_tensor::dims &shape) {
    logical_tensor::dims s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
        if (__builtin_mul_overflow(s[i], std::max<int64_t>(shape[i], 1), &s[i - 1]))
            s[i - 1] = INT64_MAX; // unaddressable; get_mem_size() reports 0 and compile rejects it
    return s;
}

bool all_known(const logical_tensor::dims &d) {
    return std::all_of(d.begin(), d.end(), [](int64_t v) { return v >= 0; });
}

void check_dims(size_t id, const logical_tensor::dims &shape) {
    for (int64_t d : shape)
        if (d < logical_tensor::unknown_dim)
            detail::fail(status::invalid_shape, "logical tensor ", id, ": dim ", d, " in shape ",
                         detail::shape_str(shape), " is negative");
}

} // namespace

error::error(status s, std::string message) : status_(s), message_("fusebox: " + std::move(message)) {}

logical_tensor::logical_tensor(size_t id, data_type dt, dims shape, layout_type lt, property_type pt)
    : id_(id), data_type_(dt), ndims_(static_cast<int32_t>(shape.size())), dims_(std::move(shape)), layout_(lt),
      property_(pt) {
    check_dims(id, dims_);
    if (layout_ == layout_type::strided && all_known(dims_)) strides_ = dense_strides(dims_);
}

logical_tensor::logical_tensor(size_t id, data_type dt, dims shape, dims strides, property_type pt)
    : id_(id), data_type_(dt), ndims_(static_cast<int32_t>(shape.size())), dims_(std::move(shape)),
      strides_(std::move(strides)), layout_(layout_type::strided), property_(pt) {
    check_dims(id, dims_);
    if (strides_.size() != dims_.size())
        detail::fail(status::invalid_shape, "logical tensor ", id, ": ", strides_.size(), " strides for ", dims_.size(),
                     " dims");
}

logical_tensor::logical_tensor(size_t id, data_type dt, layout_type lt) : id_(id), data_type_(dt), layout_(lt) {}

bool logical_tensor::has_known_shape() const { return ndims_ >= 0 && all_known(dims_); }

size_t logical_tensor::get_mem_size() const {
    if (!has_known_shape() || data_type_ == data_type::undef) return 0;
    // Without strides (layout any) the tensor would be dense.
    const dims &strides = strides_.size() == dims_.size() ? strides_ : dense_strides(dims_);
    int64_t last = 0; // offset of the last element, in elements
    for (size_t i = 0; i < dims_.size(); ++i) {
        if (dims_[i] == 0) return 0;
        int64_t step;
        if (__builtin_mul_overflow(dims_[i] - 1, std::abs(strides[i]), &step) ||
            __builtin_add_overflow(last, step, &last))
            return 0; // not addressable: compile rejects such tensors
    }
    size_t bytes;
    if (__builtin_mul_overflow(static_cast<size_t>(last) + 1, data_type_size(data_type_), &bytes)) return 0;
    return bytes;
}

bool logical_tensor::is_equal(const logical_tensor &o) const {
    return id_ == o.id_ && data_type_ == o.data_type_ && ndims_ == o.ndims_ && dims_ == o.dims_ &&
           layout_ == o.layout_ && strides_ == o.strides_;
}

namespace detail {

std::string shape_str(const logical_tensor::dims &d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) {
        if (i) s += ",";
        s += d[i] < 0 ? "?" : std::to_string(d[i]);
    }
    return s + "]";
}

std::string shape_str(const logical_tensor &lt) {
    return lt.get_ndims() < 0 ? std::string("[?]") : shape_str(lt.get_dims());
}

} // namespace detail
} // namespace fusebox
