// Compiled partitions keyed by everything that determines the result:
// the partition's ops and ports, the compile-time shapes and the kernel policy.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "compile/compiled_impl.hpp"

namespace fusebox::detail {

/// Returns the cached entry for `key`, or builds it with `make` and caches it
/// (least recently used entries are evicted beyond the capacity that
/// set_compiled_partition_cache_capacity sets; 0 caches nothing).
std::shared_ptr<const compiled_core> cached_compile(const std::string &key,
                                                    const std::function<std::shared_ptr<const compiled_core>()> &make);

/// Entries the cache holds now (for tests).
size_t compile_cache_size();

} // namespace fusebox::detail
