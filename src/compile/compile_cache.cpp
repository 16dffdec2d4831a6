#include "compile/compile_cache.hpp"

#include <list>
#include <mutex>
#include <unordered_map>

#include "common/errors.hpp"

namespace fusebox {
namespace detail {
namespace {

struct lru_cache {
    std::mutex mutex;
    size_t capacity = 1024;
    std::list<std::pair<std::string, std::shared_ptr<const compiled_core>>> entries; // most recent first
    std::unordered_map<std::string, decltype(entries)::iterator> index;

    void trim() { // holding the lock
        while (entries.size() > capacity) {
            index.erase(entries.back().first);
            entries.pop_back();
        }
    }
};

lru_cache &cache() {
    static lru_cache c;
    return c;
}

} // namespace

std::shared_ptr<const compiled_core> cached_compile(const std::string &key,
                                                    const std::function<std::shared_ptr<const compiled_core>()> &make) {
    lru_cache &c = cache();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        if (auto it = c.index.find(key); it != c.index.end()) {
            c.entries.splice(c.entries.begin(), c.entries, it->second);
            return it->second->second;
        }
    }
    auto made = make(); // outside the lock: compiling may take a while
    std::lock_guard<std::mutex> lock(c.mutex);
    if (auto it = c.index.find(key); it != c.index.end()) return it->second->second;
    if (c.capacity == 0) return made;
    c.entries.emplace_front(key, made);
    c.index[key] = c.entries.begin();
    c.trim();
    return made;
}

size_t compile_cache_size() {
    lru_cache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.entries.size();
}

} // namespace detail

void set_compiled_partition_cache_capacity(int capacity) {
    if (capacity < 0)
        detail::fail(status::invalid_arguments, "set_compiled_partition_cache_capacity: capacity ", capacity,
                     " is negative");
    auto &c = detail::cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.capacity = static_cast<size_t>(capacity);
    c.trim();
}

int get_compiled_partition_cache_capacity() {
    auto &c = detail::cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    return static_cast<int>(c.capacity);
}

} // namespace fusebox
