// allocator, engine, stream, tensor and error.
#include "interface/handles.hpp"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/errors.hpp"

namespace fusebox {
namespace detail {

void *allocator_impl::allocate(size_t bytes, size_t alignment) const {
    if (host_malloc) return host_malloc(bytes, alignment);
    void *p = nullptr;
    if (posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, bytes ? bytes : 1)) return nullptr;
    return p;
}

void allocator_impl::deallocate(void *p) const {
    if (!p) return;
    if (host_free)
        host_free(p);
    else
        std::free(p);
}

const allocator_impl &allocator_of(const engine &e) {
    const auto &impl = access::impl(e);
    if (!impl) fail(status::invalid_arguments, "engine is empty (default-constructed)");
    return *impl->alloc;
}

scratch_buffer::scratch_buffer(const allocator_impl &a, size_t bytes, const char *what)
    : alloc_(&a), data_(a.allocate(bytes, 64)) {
    if (!data_)
        fail(status::out_of_memory, "the engine's allocator returned no memory for ", what, " (", bytes, " bytes)");
}

scratch_buffer &scratch_buffer::operator=(scratch_buffer &&o) noexcept {
    std::swap(alloc_, o.alloc_);
    std::swap(data_, o.data_);
    return *this;
}

scratch_buffer::~scratch_buffer() {
    if (data_) alloc_->deallocate(data_);
}

} // namespace detail

using detail::access;
using detail::fail;

error::error(fusebox::status s, const std::string &m)
    : status(static_cast<fusebox_status_t>(s)), text_(std::make_shared<const std::string>("fusebox: " + m)) {
    message = text_->c_str();
}

error::error(fusebox_status_t s, const char *m) : error(static_cast<fusebox::status>(s), std::string(m ? m : "")) {}

void error::wrap_c_api(fusebox_status_t s, const char *m) {
    if (s != fusebox_success) throw error(s, m);
}

allocator::allocator() : impl_(std::make_shared<const detail::allocator_impl>()) {}

allocator::allocator(fusebox_host_allocate_f host_malloc, fusebox_host_deallocate_f host_free) {
    if (!host_malloc != !host_free)
        fail(status::invalid_arguments, "allocator: give both host_malloc and host_free, or neither");
    impl_ = std::make_shared<const detail::allocator_impl>(detail::allocator_impl{host_malloc, host_free});
}

namespace {

std::shared_ptr<const detail::engine_impl> make_engine_impl(engine::kind k, size_t index,
                                                            std::shared_ptr<const detail::allocator_impl> alloc) {
    if (k != engine::kind::cpu)
        fail(status::invalid_arguments, "engine: only engine::kind::cpu exists (got kind ", static_cast<int>(k), ")");
    if (index != 0) fail(status::invalid_arguments, "engine: cpu engine index ", index, " does not exist (only 0)");
    return std::make_shared<const detail::engine_impl>(detail::engine_impl{k, std::move(alloc)});
}

} // namespace

engine::engine(kind k, size_t index) {
    static const auto default_allocator = std::make_shared<const detail::allocator_impl>();
    impl_ = make_engine_impl(k, index, default_allocator);
}

size_t engine::get_count(kind k) { return k == kind::cpu ? 1 : 0; }

engine::kind engine::get_kind() const {
    if (!impl_) fail(status::invalid_arguments, "engine is empty (default-constructed)");
    return impl_->kind;
}

engine make_engine_with_allocator(engine::kind k, size_t index, const allocator &alloc) {
    engine e;
    access::impl(e) = make_engine_impl(k, index, access::impl(alloc));
    return e;
}

stream::stream(const engine &e, flags f) : engine_(e), valid_(true) {
    if (!e) fail(status::invalid_arguments, "stream: the engine is empty (default-constructed)");
    if (f != flags::in_order && f != flags::out_of_order)
        fail(status::invalid_arguments, "stream: unknown flags ", static_cast<unsigned>(f));
}

const engine &stream::get_engine() const {
    if (!valid_) fail(status::invalid_arguments, "stream is empty (default-constructed)");
    return engine_;
}

tensor::tensor(const logical_tensor &lt, const engine &e, void *handle) {
    const detail::allocator_impl &alloc = detail::allocator_of(e);
    auto t = std::make_shared<detail::tensor_impl>();
    t->lt = lt;
    t->eng = e;
    if (handle == FUSEBOX_MEMORY_ALLOCATE) {
        if (!lt.has_known_shape())
            fail(status::invalid_arguments, "tensor: cannot allocate for logical tensor ", lt.get_id(),
                 " of unknown shape ", detail::shape_str(lt));
        const size_t bytes = lt.get_mem_size();
        void *p = alloc.allocate(bytes, 64);
        if (!p)
            fail(status::out_of_memory, "tensor: the engine's allocator returned no memory for logical tensor ",
                 lt.get_id(), " (", bytes, " bytes)");
        const detail::allocator_impl *a = &alloc;
        auto keep = access::impl(e); // the allocator outlives the buffer
        t->owned = std::shared_ptr<void>(p, [a, keep](void *q) { a->deallocate(q); });
        handle = p;
    }
    t->handle = handle;
    impl_ = std::move(t);
}

tensor::tensor(const logical_tensor &lt, const engine &e) : tensor(lt, e, FUSEBOX_MEMORY_ALLOCATE) {}

tensor tensor::make_scalar_tensor(const logical_tensor &lt, void *scalar) {
    if (lt.get_property_type() != logical_tensor::property_type::host_scalar)
        fail(status::invalid_arguments, "make_scalar_tensor: logical tensor ", lt.get_id(),
             " does not have property_type::host_scalar");
    if (lt.get_ndims() != 0)
        fail(status::invalid_arguments, "make_scalar_tensor: logical tensor ", lt.get_id(), " has rank ",
             lt.get_ndims(), "; a host scalar has rank 0");
    const data_type dt = lt.get_data_type();
    if (dt == data_type::undef || dt == data_type::string)
        fail(status::invalid_arguments, "make_scalar_tensor: logical tensor ", lt.get_id(), " has type ",
             data_type_name(dt), ", which holds no scalar value");
    if (!scalar) fail(status::invalid_arguments, "make_scalar_tensor: the scalar is null");
    // The value is copied: the tensor owns its one element (on the host, as
    // every fusebox buffer is), whatever happens to `scalar` afterwards.
    const size_t bytes = data_type_size(dt);
    std::shared_ptr<unsigned char[]> value(new unsigned char[8]());
    std::memcpy(value.get(), scalar, bytes);
    auto t = std::make_shared<detail::tensor_impl>();
    t->lt = lt;
    t->eng = engine(engine::kind::cpu);
    t->handle = value.get();
    t->owned = std::shared_ptr<void>(value, value.get());
    tensor result;
    result.impl_ = std::move(t);
    return result;
}

namespace {
detail::tensor_impl &checked(const std::shared_ptr<detail::tensor_impl> &t) {
    if (!t) fail(status::invalid_arguments, "tensor is empty (default-constructed)");
    return *t;
}
} // namespace

void *tensor::get_data_handle() const { return impl_ ? impl_->handle : nullptr; }
void tensor::set_data_handle(void *handle) { checked(impl_).handle = handle; }
logical_tensor tensor::get_logical_tensor() const { return checked(impl_).lt; }
engine tensor::get_engine() const { return checked(impl_).eng; }

} // namespace fusebox
