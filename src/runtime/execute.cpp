// compiled_partition: argument checks, aliasing, and the call into the kernel.
#include <chrono>
#include <cstring>

#include "common/errors.hpp"
#include "common/small_buffer.hpp"
#include "common/verbose.hpp"
#include "compile/compiled_impl.hpp"
#include "interface/dtype.hpp"
#include "interface/handles.hpp"

namespace fusebox {
namespace {

using detail::access;
using detail::dims_of;
using detail::fail;
using detail::strides_of;

// The tensor bound to `port`: tensors are matched by id; the one at the
// port's own position is tried first.
const detail::tensor_impl &find_tensor(const tensor *const *ts, size_t n, size_t position, const logical_tensor &port,
                                       const char *what) {
    if (position < n) {
        const auto &impl = access::impl(*ts[position]);
        if (impl && impl->lt.get_id() == port.get_id()) return *impl;
    }
    for (size_t i = 0; i < n; ++i) {
        const auto &impl = access::impl(*ts[i]);
        if (!impl) fail(status::invalid_arguments, "execute: an empty (default-constructed) tensor was given");
        if (impl->lt.get_id() == port.get_id()) return *impl;
    }
    fail(status::invalid_arguments, "execute: no tensor given for ", what, " tensor id ", port.get_id());
}

void *checked_handle(const detail::tensor_impl &t, const logical_tensor &port, const char *what) {
    const logical_tensor &lt = t.lt;
    const bool strides_ok = strides_of(lt).empty() || strides_of(lt) == strides_of(port);
    if (lt.get_data_type() != port.get_data_type() || dims_of(lt) != dims_of(port) || !strides_ok)
        fail(status::invalid_arguments, "execute: ", what, " tensor id ", port.get_id(), " is ",
             data_type_name(lt.get_data_type()), detail::shape_str(lt), " strides ", detail::shape_str(strides_of(lt)),
             " but was compiled as ", data_type_name(port.get_data_type()), detail::shape_str(port), " strides ",
             detail::shape_str(strides_of(port)));
    if (!t.handle && port.get_mem_size() > 0)
        fail(status::invalid_arguments, "execute: ", what, " tensor id ", port.get_id(), " has a null data handle");
    // Elements are read and written as their type: handles must be aligned to it.
    const size_t align = detail::element_alignment(port.get_data_type());
    if (reinterpret_cast<uintptr_t>(t.handle) % align)
        fail(status::invalid_arguments, "execute: ", what, " tensor id ", port.get_id(), " has data handle ", t.handle,
             ", which is not aligned to ", align, " bytes as ", data_type_name(port.get_data_type()), " elements need");
    return t.handle;
}

bool overlaps(const void *a, size_t na, const void *b, size_t nb) {
    auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
    return na && nb && pa < pb + nb && pb < pa + na;
}

} // namespace

logical_tensor compiled_partition::query_logical_tensor(size_t id) const {
    if (impl_) {
        for (const auto *ports : {&impl_->core->inputs, &impl_->core->outputs})
            for (const auto &lt : *ports)
                if (lt.get_id() == id) return lt;
    }
    fail(status::invalid_arguments, "query_logical_tensor: tensor id ", id,
         " is not a port of this compiled partition");
}

std::vector<std::pair<size_t, size_t>> compiled_partition::query_inplace_ports() const {
    return impl_ ? impl_->core->inplace : std::vector<std::pair<size_t, size_t>>{};
}

std::string compiled_partition::get_impl_info() const {
    return impl_ ? impl_->core->k->facts().impl : std::string("none");
}

void compiled_partition::execute(stream &s, const std::vector<tensor> &inputs,
                                 const std::vector<tensor> &outputs) const {
    detail::translate_exceptions("execute", [&] {
        detail::small_buffer<const tensor *, 16> in(inputs.size()), out(outputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) in[i] = &inputs[i];
        for (size_t i = 0; i < outputs.size(); ++i) out[i] = &outputs[i];
        execute_checked(s, in.data(), inputs.size(), out.data(), outputs.size());
    });
}

void compiled_partition::execute_checked(stream &s, const tensor *const *inputs, size_t n_inputs,
                                         const tensor *const *outputs, size_t n_outputs) const {
    if (!impl_) fail(status::invalid_arguments, "execute: compiled partition is empty");
    const detail::compiled_core &c = *impl_->core;
    const bool verbose = detail::verbose_enabled();
    const auto start = verbose ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    const size_t n = c.inputs.size(), n_out = c.outputs.size();
    if (n_inputs != n || n_outputs != n_out)
        fail(status::invalid_arguments, "execute: partition ", impl_->partition_id, " takes ", n, " inputs and ", n_out,
             n_out == 1 ? " output" : " outputs", ", got ", n_inputs, " and ", n_outputs);
    const detail::exec_context ctx{detail::allocator_of(s.get_engine())};
    detail::small_buffer<void *, 4> out(n_out);
    for (size_t k = 0; k < n_out; ++k) {
        const logical_tensor &port = c.outputs[k];
        out[k] = checked_handle(find_tensor(outputs, n_outputs, k, port, "output"), port, "output");
        for (size_t j = 0; j < k; ++j)
            if (overlaps(out[j], c.outputs[j].get_mem_size(), out[k], port.get_mem_size()))
                fail(status::invalid_arguments, "execute: output tensors ", c.outputs[j].get_id(), " and ",
                     port.get_id(), " share memory; each output needs its own");
    }

    // An input that overlaps an output other than as a reported in-place
    // pair is read from a copy, so the result is still exact.
    detail::small_buffer<const void *, 16> in(n);
    detail::small_buffer<bool, 16> copy(n);
    bool any_copy = false;
    for (size_t p = 0; p < n; ++p) {
        const logical_tensor &port = c.inputs[p];
        in[p] = checked_handle(find_tensor(inputs, n_inputs, p, port, "input"), port, "input");
        copy[p] = false;
        for (size_t k = 0; k < n_out && !copy[p]; ++k) {
            bool in_place = false;
            for (const auto &[i, o] : c.inplace)
                in_place = in_place || (i == port.get_id() && o == c.outputs[k].get_id() && in[p] == out[k]);
            copy[p] = !in_place && overlaps(in[p], port.get_mem_size(), out[k], c.outputs[k].get_mem_size());
        }
        any_copy = any_copy || copy[p];
    }
    if (!any_copy) {
        c.k->execute(in.data(), out.data(), ctx);
    } else {
        std::vector<detail::scratch_buffer> staged;
        for (size_t p = 0; p < n; ++p) {
            if (!copy[p]) continue;
            const size_t size = c.inputs[p].get_mem_size();
            staged.emplace_back(ctx.alloc, size, "a copy of an input that overlaps an output");
            std::memcpy(staged.back().data(), in[p], size);
            in[p] = staged.back().data();
        }
        c.k->execute(in.data(), out.data(), ctx);
    }

    if (verbose) {
        const double ms = detail::ms_since(start);
        detail::log_line("execute", impl_->partition_id, c)
            .field(ms, 6)
            .field(ms > 0 ? static_cast<double>(c.traffic) / (ms * 1e6) : 0.0, 2)
            .print();
    }
}

} // namespace fusebox
