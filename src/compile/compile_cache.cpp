#include "compile/compile_cache.hpp"

#include <list>
#include <mutex>
#include <unordered_map>

namespace fusebox::detail {
namespace {

constexpr size_t kCapacity = 1024;

struct lru_cache {
    std::mutex mutex;
    std::list<std::pair<std::string, std::shared_ptr<const compiled_core>>> entries; // most recent first
    std::unordered_map<std::string, decltype(entries)::iterator> index;
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
    c.entries.emplace_front(key, made);
    c.index[key] = c.entries.begin();
    if (c.entries.size() > kCapacity) {
        c.index.erase(c.entries.back().first);
        c.entries.pop_back();
    }
    return made;
}

} // namespace fusebox::detail
