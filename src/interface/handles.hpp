// The state behind the public handle classes (allocator, engine, tensor).
#pragma once

#include <memory>

#include "common/access.hpp"

namespace fusebox::detail {

struct allocator_impl {
    fusebox_host_allocate_f host_malloc = nullptr; // nullptr: aligned operator new
    fusebox_host_deallocate_f host_free = nullptr;

    /// `bytes` aligned to `alignment` (a power of two), or nullptr when out of memory.
    void *allocate(size_t bytes, size_t alignment) const;
    void deallocate(void *p) const;
};

struct engine_impl {
    engine::kind kind = engine::kind::cpu;
    std::shared_ptr<const allocator_impl> alloc;
};

struct tensor_impl {
    logical_tensor lt;
    void *handle = nullptr;
    engine eng;
    std::shared_ptr<void> owned; // the buffer when the library allocated it
};

/// The allocator of engine `e` (throws invalid_arguments for an empty engine).
const allocator_impl &allocator_of(const engine &e);

/// Memory from an allocator_impl, freed when the owner goes; throws
/// out_of_memory naming `what` when the allocator returns nullptr.
class scratch_buffer {
public:
    scratch_buffer() = default;
    scratch_buffer(const allocator_impl &a, size_t bytes, const char *what);
    scratch_buffer(scratch_buffer &&o) noexcept : alloc_(o.alloc_), data_(o.data_) { o.data_ = nullptr; }
    scratch_buffer &operator=(scratch_buffer &&o) noexcept;
    ~scratch_buffer();
    unsigned char *data() const { return static_cast<unsigned char *>(data_); }

private:
    const allocator_impl *alloc_ = nullptr;
    void *data_ = nullptr;
};

} // namespace fusebox::detail
