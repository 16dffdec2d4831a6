#include "common/env.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/errors.hpp"
#include "fusebox/fusebox_types.h"

namespace fusebox::detail {
namespace {

// A variable's parsed value, or the message to fail with.
template <typename T> struct parsed {
    T value{};
    std::string error;

    const T &get() const {
        if (!error.empty()) throw fusebox::error(status::invalid_arguments, error);
        return value;
    }
};

template <typename T> parsed<T> bad(const char *name, const char *value, const char *accepted) {
    parsed<T> p;
    p.error = std::string(name) + "=\"" + value + "\" is not valid: it must be " + accepted;
    return p;
}

// A decimal integer in [lo, hi] with nothing around it (no sign, no spaces).
bool parse_int(const char *s, long lo, long hi, long &out) {
    if (*s < '0' || *s > '9') return false;
    char *end = nullptr;
    errno = 0;
    const long v = std::strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi) return false;
    out = v;
    return true;
}

parsed<int> read_verbose() {
    const char *s = std::getenv("FUSEBOX_VERBOSE");
    long v = 0;
    if (!s || !*s) return {};
    if (!parse_int(s, 0, 2, v))
        return bad<int>("FUSEBOX_VERBOSE", s,
                        "0 (off), 1 (partition, compile and execute lines) or 2 (also canonical forms)");
    return {static_cast<int>(v), {}};
}

parsed<int> read_num_threads() {
    const char *s = std::getenv("FUSEBOX_NUM_THREADS");
    long v = 0;
    if (!s || !*s) return {};
    if (!parse_int(s, 1, 1 << 16, v)) return bad<int>("FUSEBOX_NUM_THREADS", s, "a positive number of threads");
    return {static_cast<int>(v), {}};
}

parsed<unsigned> read_graph_dump() {
    const char *s = std::getenv("FUSEBOX_GRAPH_DUMP");
    if (!s) return {};
    unsigned bits = 0;
    std::istringstream in(s);
    for (std::string word; std::getline(in, word, ',');) {
        if (word == "graph")
            bits |= fusebox_dump_mode_graph;
        else if (word == "subgraph")
            bits |= fusebox_dump_mode_subgraph;
        else if (word != "none" && word != "0" && !word.empty())
            return bad<unsigned>("FUSEBOX_GRAPH_DUMP", s, "a comma-separated list of graph, subgraph or none");
    }
    return {bits, {}};
}

// Highway's x86 targets, best first, as fusebox compiles them.
constexpr const char *kIsaNames[] = {"AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR"};

parsed<std::string> read_max_isa() {
    const char *s = std::getenv("FUSEBOX_MAX_ISA");
    if (!s || !*s) return {};
    for (const char *name : kIsaNames)
        if (!std::strcmp(s, name)) return {name, {}};
    return bad<std::string>("FUSEBOX_MAX_ISA", s, "one of AVX3 (AVX-512), AVX2, SSE4, SSSE3 or SCALAR");
}

} // namespace

const std::string &env_max_isa() {
    static const parsed<std::string> v = read_max_isa();
    return v.get();
}

int env_verbose() {
    static const parsed<int> v = read_verbose();
    return v.get();
}

int env_num_threads() {
    static const parsed<int> v = read_num_threads();
    return v.get();
}

unsigned env_graph_dump() {
    static const parsed<unsigned> v = read_graph_dump();
    return v.get();
}

kernel_choice env_kernel() {
    const char *s = std::getenv("FUSEBOX_KERNEL");
    if (!s || !*s || !std::strcmp(s, "auto")) return kernel_choice::automatic;
    if (!std::strcmp(s, "onednn")) return kernel_choice::onednn;
    if (!std::strcmp(s, "native")) return kernel_choice::native;
    return bad<kernel_choice>("FUSEBOX_KERNEL", s, "auto, onednn or native").get();
}

std::string env_graph_dump_dir() {
    const char *s = std::getenv("FUSEBOX_GRAPH_DUMP_DIR");
    return s && *s ? s : ".";
}

} // namespace fusebox::detail
