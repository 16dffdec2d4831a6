// detail::access: the one friend through which the library reaches the
// private state of the public classes.
#pragma once

#include "fusebox/fusebox.hpp"

namespace fusebox::detail {

struct access {
    /// A logical tensor's dims and strides as stored: empty for an unknown
    /// rank, strides empty unless strided and known.
    static const logical_tensor::dims &dims(const logical_tensor &lt) { return lt.dims_; }
    static const logical_tensor::dims &strides(const logical_tensor &lt) { return lt.strides_; }
    template <typename Handle> static auto &impl(Handle &h) { return h.impl_; }
    template <typename Handle> static const auto &impl(const Handle &h) { return h.impl_; }
    /// An op's tensors, for the library to fill in on its own copy (clone).
    static std::vector<logical_tensor> &inputs(op &o);
    static std::vector<logical_tensor> &outputs(op &o);
    /// Any attribute value type, whatever set_attr's overloads take (the C API).
    template <typename T> static void set_attr(op &o, op::attr a, T value) {
        o.set_attr_value(a, op::attr_value(std::move(value)));
    }
    /// A copy of `o` that shares nothing with it (ops are handles: a plain
    /// copy shares). What the library keeps of a caller's op is a clone.
    static op clone(const op &o);
    /// An op over the C handle `p`, not owning it (valid while `p` is).
    static op view(fusebox_op *p) { return op(std::shared_ptr<fusebox_op>(std::shared_ptr<fusebox_op>(), p)); }
    /// compiled_partition::execute over tensors given by pointer (the C API,
    /// without copying its handles into vectors); throws fusebox::error.
    static void execute(const compiled_partition &cp, stream &s, const tensor *const *inputs, size_t n_inputs,
                        const tensor *const *outputs, size_t n_outputs) {
        cp.execute_checked(s, inputs, n_inputs, outputs, n_outputs);
    }
};

/// A logical tensor's dims as stored (empty for an unknown rank): unlike
/// get_dims(), never throws.
inline const logical_tensor::dims &dims_of(const logical_tensor &lt) { return access::dims(lt); }
/// A logical tensor's strides as stored: empty unless strided and known.
inline const logical_tensor::dims &strides_of(const logical_tensor &lt) { return access::strides(lt); }

} // namespace fusebox::detail
