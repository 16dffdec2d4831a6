// An array of n trivially copyable elements on the stack when n <= N, on the
// heap otherwise: per-call scratch without an allocation in the common case.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

namespace fusebox::detail {

template <typename T, size_t N> class small_buffer {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    explicit small_buffer(size_t n) : data_(n <= N ? local_ : (heap_ = std::make_unique<T[]>(n)).get()) {}
    small_buffer(const small_buffer &) = delete;
    small_buffer &operator=(const small_buffer &) = delete;

    T *data() { return data_; }
    const T *data() const { return data_; }
    T &operator[](size_t i) { return data_[i]; }
    const T &operator[](size_t i) const { return data_[i]; }

private:
    T local_[N];
    std::unique_ptr<T[]> heap_;
    T *data_;
};

} // namespace fusebox::detail
