#include "interface/dump.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "common/access.hpp"
#include "common/env.hpp"
#include "common/errors.hpp"
#include "common/verbose.hpp"
#include "interface/op_registry.hpp"

namespace fusebox {
namespace detail {
namespace {

constexpr unsigned kAllBits = fusebox_dump_mode_graph | fusebox_dump_mode_subgraph;
std::atomic<int> api_mode{-1}; // -1: not set, FUSEBOX_GRAPH_DUMP decides

void json_string(std::ostream &os, const std::string &s) {
    os << '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\')
            os << '\\' << c;
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            os << buf;
        } else
            os << c;
    }
    os << '"';
}

void json_float(std::ostream &os, float f) {
    if (std::isfinite(f)) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f)); // round-trips every float
        os << buf;
    } else {
        json_string(os, std::isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
    }
}

template <typename T, typename F> void json_list(std::ostream &os, const std::vector<T> &v, F &&each) {
    os << '[';
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) os << ", ";
        each(v[i]);
    }
    os << ']';
}

const char *property_name(logical_tensor::property_type p) {
    switch (p) {
    case logical_tensor::property_type::variable: return "variable";
    case logical_tensor::property_type::constant: return "constant";
    case logical_tensor::property_type::host_scalar: return "host_scalar";
    default: return "undef";
    }
}

void json_tensor(std::ostream &os, const logical_tensor &lt, const char *indent) {
    auto num = [&](int64_t d) { os << (d < 0 ? -1 : d); };
    os << "{\n"
       << indent << "  \"id\": " << lt.get_id() << ",\n"
       << indent << "  \"dtype\": \"" << data_type_name(lt.get_data_type()) << "\",\n";
    if (lt.get_ndims() >= 0) { // an unknown rank has no shape
        os << indent << "  \"shape\": ";
        json_list(os, dims_of(lt), num);
        os << ",\n" << indent << "  \"stride\": ";
        json_list(os, strides_of(lt), num);
        os << ",\n";
    }
    os << indent << "  \"layout_type\": \"" << layout_name(lt.get_layout_type()) << "\",\n"
       << indent << "  \"property_type\": \"" << property_name(lt.get_property_type()) << "\"\n"
       << indent << "}";
}

void json_attr(std::ostream &os, const op::attr_value &v) {
    os << "{\"type\": \"" << attr_type_name(type_of(v)) << "\", \"value\": ";
    std::visit(
        [&](const auto &x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                json_string(os, x);
            else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
                json_list(os, x, [&](int64_t e) { os << e; });
            else if constexpr (std::is_same_v<T, std::vector<float>>)
                json_list(os, x, [&](float e) { json_float(os, e); });
            else if constexpr (std::is_same_v<T, float>)
                json_float(os, x);
            else if constexpr (std::is_same_v<T, bool>)
                os << (x ? "true" : "false");
            else
                os << x;
        },
        v);
    os << '}';
}

uint64_t fnv1a(const std::string &s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

void write_file(const std::string &name, const std::string &text) {
    const std::string path = env_graph_dump_dir() + "/" + name;
    std::ofstream out(path);
    out << text;
    out.close();
    if (!out) {
        // A debugging aid must not break the program it observes.
        std::fprintf(stderr, "fusebox: could not write graph dump %s\n", path.c_str());
        return;
    }
    if (verbose_enabled()) verbose_line("dump").field(verbose_escape(path)).print();
}

} // namespace

const char *layout_name(logical_tensor::layout_type l) {
    switch (l) {
    case logical_tensor::layout_type::undef: return "undef";
    case logical_tensor::layout_type::any: return "any";
    case logical_tensor::layout_type::strided: return "strided";
    case logical_tensor::layout_type::opaque: return "opaque";
    }
    return "undef";
}

const char *fpmath_name(fpmath_mode m) {
    switch (m) {
    case fpmath_mode::strict: return "strict";
    case fpmath_mode::bf16: return "bf16";
    case fpmath_mode::f16: return "f16";
    case fpmath_mode::any: return "any";
    case fpmath_mode::tf32: return "tf32";
    }
    return "strict";
}

unsigned dump_mode() {
    const int set = api_mode.load(std::memory_order_relaxed);
    if (set >= 0) return static_cast<unsigned>(set);
    return env_graph_dump(); // throws on a malformed FUSEBOX_GRAPH_DUMP
}

std::string graph_json(engine::kind k, fpmath_mode math, bool math_applies_to_int, const std::vector<op> &ops,
                       const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs) {
    std::ostringstream os;
    auto ids = [&](const std::vector<logical_tensor> &v) {
        json_list(os, v, [&](const logical_tensor &lt) { os << lt.get_id(); });
    };
    os << "{\n  \"version\": \"" << FUSEBOX_VERSION_MAJOR << "." << FUSEBOX_VERSION_MINOR << "."
       << FUSEBOX_VERSION_PATCH << "\",\n  \"engine_kind\": \"" << (k == engine::kind::cpu ? "cpu" : "gpu")
       << "\",\n  \"fpmath_mode\": \"" << fpmath_name(math) << "\",\n  \"fpmath_mode_apply_to_int\": \""
       << (math_applies_to_int ? "true" : "false") << "\",\n  \"input_ports\": ";
    ids(inputs);
    os << ",\n  \"output_ports\": ";
    ids(outputs);
    os << ",\n  \"graph\": [";
    for (size_t i = 0; i < ops.size(); ++i) {
        const op &o = ops[i];
        os << (i ? "," : "") << "\n    {\n      \"id\": " << o.get_id() << ",\n      \"name\": ";
        json_string(os, o.get_name());
        os << ",\n      \"kind\": \"" << op_kind_name(o.get_kind()) << "\",\n      \"attrs\": {";
        bool first = true;
        for (const auto &[a, v] : o.get_attrs()) {
            os << (first ? "\n" : ",\n") << "        \"" << attr_name(a) << "\": ";
            json_attr(os, v);
            first = false;
        }
        os << (first ? "" : "\n      ") << "},\n";
        for (const char *side : {"inputs", "outputs"}) {
            const auto &list = side[0] == 'i' ? o.get_inputs() : o.get_outputs();
            os << "      \"" << side << "\": [";
            for (size_t t = 0; t < list.size(); ++t) {
                os << (t ? ", " : "");
                json_tensor(os, list[t], "      ");
            }
            os << "]" << (side[0] == 'i' ? ",\n" : "\n");
        }
        os << "    }";
    }
    os << "\n  ]\n}\n";
    return os.str();
}

void dump_graph(const graph_impl &g) {
    if (!(dump_mode() & fusebox_dump_mode_graph)) return;
    // Graph inputs: tensors no op produces; outputs: tensors no op consumes, and End's inputs.
    std::set<size_t> produced, consumed, listed;
    std::vector<logical_tensor> ins, outs;
    for (const op &o : g.ops) {
        for (const auto &lt : o.get_outputs()) produced.insert(lt.get_id());
        if (o.get_kind() != op::kind::End)
            for (const auto &lt : o.get_inputs()) consumed.insert(lt.get_id());
    }
    for (const op &o : g.ops) {
        for (const auto &lt : o.get_inputs())
            if (!produced.count(lt.get_id()) && listed.insert(lt.get_id()).second) ins.push_back(lt);
        if (o.get_kind() == op::kind::End) outs.push_back(o.get_inputs()[0]);
        for (const auto &lt : o.get_outputs())
            if (!consumed.count(lt.get_id())) outs.push_back(lt);
    }
    write_file("fusebox-graph-" + std::to_string(g.id) + ".json",
               graph_json(g.engine_kind, g.math, g.math_applies_to_int, g.ops, ins, outs));
}

void dump_partition(const partition_impl &p, const std::vector<op> &ops, const std::vector<logical_tensor> &inputs,
                    const std::vector<logical_tensor> &outputs, const std::string &key) {
    if (!(dump_mode() & fusebox_dump_mode_subgraph)) return;
    char hash[17];
    std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(fnv1a(key)));
    // An output that an op of the partition also reads gets an End, so that
    // the dump, replayed, is this partition with all its outputs again.
    std::vector<op> with_ends = ops;
    size_t next_id = 0;
    for (const op &o : ops) next_id = std::max(next_id, o.get_id() + 1);
    for (const logical_tensor &out : outputs) {
        bool read_inside = false;
        for (const op &o : ops)
            for (const logical_tensor &in : o.get_inputs()) read_inside = read_inside || in.get_id() == out.get_id();
        if (read_inside)
            with_ends.emplace_back(next_id++, op::kind::End, std::vector<logical_tensor>{out},
                                   std::vector<logical_tensor>{}, "end_" + std::to_string(out.get_id()));
    }
    write_file("fusebox-graph-" + std::to_string(p.graph_id) + "-partition-" + std::to_string(p.id) + "-" + hash +
                   ".json",
               graph_json(p.engine_kind, p.math, false, with_ends, inputs, outputs));
}

} // namespace detail

status set_dump_mode(graph_dump_mode modes) {
    const unsigned bits = static_cast<unsigned>(modes);
    if (bits & ~detail::kAllBits) return status::invalid_arguments;
    detail::api_mode.store(static_cast<int>(bits), std::memory_order_relaxed);
    return status::success;
}

} // namespace fusebox
