#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/checked.hpp"
#include "common/errors.hpp"
#include "interface/dtype.hpp"

namespace fusebox {
namespace {

using dims = logical_tensor::dims;

// Beyond any framework's rank (numpy allows 64); bounds every per-dim loop.
constexpr size_t kMaxRank = 64;

bool is_unknown(int64_t d) { return d == logical_tensor::unknown_dim || d == FUSEBOX_UNKNOWN_DIM; }

dims dense_strides(const dims &shape) {
    dims s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
        s[i - 1] = detail::saturating_mul(s[i], std::max<int64_t>(shape[i], 1)); // saturated: get_mem_size() is 0
    return s;
}

bool all_known(const dims &d) {
    return std::all_of(d.begin(), d.end(), [](int64_t v) { return v >= 0; });
}

// Enumerators and dims are checked where they enter the library.
void check_descriptor(size_t id, data_type dt, const dims &shape, logical_tensor::layout_type lt,
                      logical_tensor::property_type pt) {
    if (!detail::is_valid(dt))
        detail::fail(status::invalid_arguments, "logical tensor ", id, ": data type value ", static_cast<int>(dt),
                     " is not a fusebox data_type");
    using layout = logical_tensor::layout_type;
    if (lt != layout::undef && lt != layout::any && lt != layout::strided && lt != layout::opaque)
        detail::fail(status::invalid_arguments, "logical tensor ", id, ": layout type value ", static_cast<int>(lt),
                     " is not a layout_type");
    using property = logical_tensor::property_type;
    if (pt != property::undef && pt != property::variable && pt != property::constant && pt != property::host_scalar)
        detail::fail(status::invalid_arguments, "logical tensor ", id, ": property type value ", static_cast<int>(pt),
                     " is not a property_type");
    if (shape.size() > kMaxRank)
        detail::fail(status::invalid_shape, "logical tensor ", id, ": rank ", shape.size(), " exceeds ", kMaxRank);
    for (int64_t d : shape)
        if (d < 0 && !is_unknown(d))
            detail::fail(status::invalid_shape, "logical tensor ", id, ": dim ", d, " in shape ",
                         detail::shape_str(shape), " is negative");
}

} // namespace

logical_tensor::logical_tensor(size_t id, data_type dt, dims shape, layout_type lt, property_type pt)
    : id_(id), data_type_(dt), ndims_(static_cast<int32_t>(shape.size())), dims_(std::move(shape)), layout_(lt),
      property_(pt) {
    check_descriptor(id, dt, dims_, lt, pt);
    if (layout_ == layout_type::strided && all_known(dims_)) strides_ = dense_strides(dims_);
}

logical_tensor::logical_tensor(size_t id, data_type dt, dims shape, dims strides, property_type pt)
    : id_(id), data_type_(dt), ndims_(static_cast<int32_t>(shape.size())), dims_(std::move(shape)),
      strides_(std::move(strides)), layout_(layout_type::strided), property_(pt) {
    check_descriptor(id, dt, dims_, layout_, pt);
    if (strides_.size() != dims_.size())
        detail::fail(status::invalid_shape, "logical tensor ", id, ": ", strides_.size(), " strides for ", dims_.size(),
                     " dims");
}

logical_tensor::logical_tensor(size_t id, data_type dt, rank_tag rank, layout_type lt, property_type pt)
    : id_(id), data_type_(dt), layout_(lt), property_(pt) {
    check_descriptor(id, dt, {}, lt, pt);
    if (rank.ndims < FUSEBOX_UNKNOWN_NDIMS || rank.ndims > static_cast<int64_t>(kMaxRank))
        detail::fail(status::invalid_shape, "logical tensor ", id, ": ndims ", rank.ndims, " is not in [-1, ", kMaxRank,
                     "]");
    ndims_ = static_cast<int32_t>(rank.ndims);
    if (ndims_ > 0) dims_.assign(static_cast<size_t>(ndims_), FUSEBOX_UNKNOWN_DIM);
}

logical_tensor::logical_tensor(size_t id, data_type dt, layout_type lt) : id_(id), data_type_(dt), layout_(lt) {
    check_descriptor(id, dt, {}, lt, property_);
}

logical_tensor::logical_tensor(const fusebox_logical_tensor_t &c) {
    // The C struct's enumerations may hold any int: copy their bits.
    const auto as = [](auto c_value, auto cpp) {
        static_assert(sizeof(c_value) == sizeof(int));
        int raw;
        std::memcpy(&raw, &c_value, sizeof raw);
        return static_cast<decltype(cpp)>(raw);
    };
    const auto dt = as(c.data_type, data_type{});
    const auto layout = as(c.layout_type, layout_type{});
    const auto property = as(c.property, property_type{});
    if (c.ndims < FUSEBOX_UNKNOWN_NDIMS || c.ndims > FUSEBOX_MAX_NDIMS)
        detail::fail(status::invalid_arguments, "logical tensor ", c.id, ": ndims ", c.ndims, " is not in [-1, ",
                     FUSEBOX_MAX_NDIMS, "]");
    if (c.ndims < 0) {
        *this = logical_tensor(c.id, dt, c.ndims, layout, property);
    } else {
        const dims shape(c.dims, c.dims + c.ndims);
        if (layout == layout_type::strided)
            *this = logical_tensor(c.id, dt, shape, dims(c.layout.strides, c.layout.strides + c.ndims), property);
        else
            *this = logical_tensor(c.id, dt, shape, layout, property);
    }
    if (layout == layout_type::opaque) layout_id_ = c.layout.layout_id;
}

fusebox_logical_tensor_t logical_tensor::get() const {
    fusebox_logical_tensor_t c;
    std::memset(&c, 0, sizeof(c));
    c.id = id_;
    if (ndims_ > FUSEBOX_MAX_NDIMS)
        detail::fail(status::invalid_arguments, "logical tensor ", id_, " has rank ", ndims_,
                     ", more than a fusebox_logical_tensor_t holds (", FUSEBOX_MAX_NDIMS, ")");
    c.ndims = ndims_;
    c.data_type = static_cast<fusebox_data_type_t>(data_type_);
    c.property = static_cast<fusebox_tensor_property_t>(property_);
    c.layout_type = static_cast<fusebox_layout_type_t>(layout_);
    for (int i = 0; i < ndims_; ++i) c.dims[i] = dims_[i];
    if (layout_ == layout_type::strided)
        for (int i = 0; i < ndims_; ++i)
            c.layout.strides[i] = strides_.size() == dims_.size() ? strides_[i] : FUSEBOX_UNKNOWN_DIM;
    else if (layout_ == layout_type::opaque)
        c.layout.layout_id = layout_id_;
    return c;
}

const logical_tensor::dims &logical_tensor::get_dims() const {
    if (ndims_ < 0)
        detail::fail(status::invalid_arguments, "logical tensor ", id_, ": get_dims needs a known rank (ndims is -1)");
    return dims_;
}

logical_tensor::dims logical_tensor::get_strides() const {
    if (layout_ != layout_type::strided || ndims_ < 0)
        detail::fail(status::invalid_arguments, "logical tensor ", id_,
                     ": get_strides needs a strided layout of known rank");
    return strides_.size() == dims_.size() ? strides_ : dims(dims_.size(), FUSEBOX_UNKNOWN_DIM);
}

size_t logical_tensor::get_layout_id() const {
    if (layout_ != layout_type::opaque)
        detail::fail(status::invalid_arguments, "logical tensor ", id_,
                     ": get_layout_id needs an opaque layout (fusebox only produces strided layouts)");
    return layout_id_;
}

bool logical_tensor::has_known_shape() const { return ndims_ >= 0 && all_known(dims_); }

size_t logical_tensor::get_mem_size() const {
    if (!has_known_shape() || data_type_ == data_type::undef) return 0;
    // Without usable strides (layout any, unknown strides) the tensor would be dense.
    const bool strided = strides_.size() == dims_.size() && all_known(strides_);
    const dims &strides = strided ? strides_ : dense_strides(dims_);
    int64_t last = 0; // offset of the last element, in elements
    for (size_t i = 0; i < dims_.size(); ++i) {
        if (dims_[i] == 0) return 0;
        auto step = detail::checked_mul(dims_[i] - 1, strides[i]);
        auto next = step ? detail::checked_add(last, *step) : std::nullopt;
        if (!next || *next == INT64_MAX) return 0; // not addressable: compile rejects such tensors
        last = *next;
    }
    return detail::storage_bytes(data_type_, static_cast<size_t>(last) + 1);
}

bool logical_tensor::is_equal(const logical_tensor &o) const {
    return id_ == o.id_ && data_type_ == o.data_type_ && ndims_ == o.ndims_ && dims_ == o.dims_ &&
           layout_ == o.layout_ && strides_ == o.strides_;
}

} // namespace fusebox
