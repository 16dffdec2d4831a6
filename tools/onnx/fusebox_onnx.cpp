// fusebox-onnx MODEL.onnx [--shapes name:d0xd1,...] [--run DIR] [--bench]
//
// Imports an ONNX model (fusebox/onnx.hpp) and prints what fuses: each
// partition with its ONNX nodes, the fused expression, and the totals. --run
// executes a model fusebox runs whole on an ONNX backend-test folder and
// compares with its expected outputs; --bench times the fused run against
// policy::debug and the memory roof of its traffic.
#include <fusebox/onnx.hpp>
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "common/roof.hpp"

namespace {

using namespace fusebox;
namespace fx = fusebox::onnx;
namespace fs = std::filesystem;

int usage() {
    std::fprintf(stderr, "usage: fusebox-onnx MODEL.onnx [--shapes name:d0xd1...[,name:...]] [--run DIR] [--bench]\n");
    return 2;
}

// "x:64x128,mask:64x1" -> shapes by name.
std::map<std::string, logical_tensor::dims> parse_shapes(const std::string &arg) {
    std::map<std::string, logical_tensor::dims> out;
    std::stringstream list(arg);
    for (std::string item; std::getline(list, item, ',');) {
        const size_t colon = item.rfind(':');
        if (colon == std::string::npos || colon == 0)
            throw error(status::invalid_arguments, "--shapes: '" + item + "' is not name:d0xd1...");
        logical_tensor::dims dims;
        std::stringstream ds(item.substr(colon + 1));
        for (std::string d; std::getline(ds, d, 'x');) {
            if (d.empty() || d.size() > 15 || d.find_first_not_of("0123456789") != std::string::npos)
                throw error(status::invalid_arguments,
                            "--shapes: '" + item + "' has a dim that is not a number below 10^15");
            dims.push_back(std::stoll(d));
        }
        out[item.substr(0, colon)] = dims;
    }
    return out;
}

std::string bytes_text(size_t b) {
    char s[32];
    if (b >= (size_t{1} << 20))
        std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(b) / (1 << 20));
    else if (b >= 1024)
        std::snprintf(s, sizeof s, "%.1f KiB", static_cast<double>(b) / 1024);
    else
        std::snprintf(s, sizeof s, "%zu B", b);
    return s;
}

// A rank-0 or one-element f32 constant's value, else its name.
std::string leaf(const fx::model &m, const std::string &name) {
    for (const tensor &c : m.get_constants()) {
        const logical_tensor lt = c.get_logical_tensor();
        if (m.get_value(lt.get_id()).name != name || lt.get_mem_size() != 4 || lt.get_data_type() != data_type::f32)
            continue;
        float v;
        std::memcpy(&v, c.get_data_handle(), 4);
        char s[32];
        std::snprintf(s, sizeof s, "%.9g", static_cast<double>(v));
        return s;
    }
    return name;
}

// The partition's outputs as nested expressions over its inputs: a value
// made and used once inside is written in place, others get a line.
std::vector<std::string> expression(const fx::model &m, const partition &p) {
    std::map<std::string, const fx::node *> made;
    std::map<std::string, int> uses;
    for (size_t id : p.get_ops()) {
        const fx::node &n = m.get_node(id);
        for (const auto &o : n.outputs) made[o] = &n;
        for (const auto &i : n.inputs) ++uses[i];
    }
    std::set<std::string> named;
    for (const logical_tensor &lt : p.get_output_ports()) named.insert(m.get_value(lt.get_id()).name);
    for (const auto &[v, n] : made)
        if (uses[v] > 1) named.insert(v);
    std::function<std::string(const std::string &, bool)> text = [&](const std::string &v, bool top) {
        auto it = made.find(v);
        if (it == made.end() || (!top && named.count(v))) return leaf(m, v);
        std::string s = it->second->op_type + "(";
        for (size_t k = 0; k < it->second->inputs.size(); ++k)
            s += (k ? ", " : "") +
                 (it->second->inputs[k].empty() ? std::string("-") : text(it->second->inputs[k], false));
        return s + ")";
    };
    std::vector<std::string> lines;
    for (size_t id : p.get_ops()) // in execution order
        for (const auto &o : m.get_node(id).outputs)
            if (named.count(o)) lines.push_back(o + " = " + text(o, true));
    return lines;
}

size_t port_bytes(const partition &p) {
    size_t b = 0;
    for (const auto &lt : p.get_input_ports()) b += lt.get_mem_size() ? lt.get_mem_size() : SIZE_MAX / 4;
    for (const auto &lt : p.get_output_ports()) b += lt.get_mem_size() ? lt.get_mem_size() : SIZE_MAX / 4;
    return b;
}

void report(const std::string &path, const fx::model &m) {
    const auto &nodes = m.get_nodes();
    size_t constants = 0, elementwise = 0;
    for (const fx::node &n : nodes) {
        constants += n.op_id == SIZE_MAX;
        elementwise += n.version != 0 && n.op_type != "Constant";
    }
    std::printf("%s: ai.onnx opset %lld, %zu nodes (%zu Constant folded), %zu inputs, %zu outputs\n", path.c_str(),
                static_cast<long long>(m.get_opset_version()), nodes.size(), constants, m.get_inputs().size(),
                m.get_outputs().size());
    const auto parts = m.get_partitions();
    size_t fused_parts = 0, covered = 0, ew_covered = 0, fused_bytes = 0, unfused_bytes = 0;
    bool sizes_known = true;
    std::set<size_t> fused_ops;
    for (size_t k = 0; k < parts.size(); ++k) {
        const partition &p = parts[k];
        std::string names;
        for (size_t id : p.get_ops()) {
            const fx::node &n = m.get_node(id);
            names += (names.empty() ? "" : ", ") + n.name + " (" + n.op_type + ")";
        }
        if (!p.is_supported()) {
            const fx::node &n = m.get_node(p.get_ops().at(0));
            std::printf("partition %zu: framework: %s -- %s\n", k, names.c_str(), n.unsupported_reason.c_str());
            continue;
        }
        ++fused_parts;
        covered += p.get_ops_num();
        ew_covered += p.get_ops_num();
        for (size_t id : p.get_ops()) fused_ops.insert(id);
        const size_t b = port_bytes(p);
        sizes_known = sizes_known && b < SIZE_MAX / 4;
        fused_bytes += b;
        std::printf("partition %zu: fusebox, %zu ops: %s\n", k, p.get_ops_num(), names.c_str());
        for (const auto &line : expression(m, p)) std::printf("    %s\n", line.c_str());
    }
    for (const partition &p : m.get_partitions(partition::policy::debug))
        if (p.is_supported() && fused_ops.count(p.get_ops().at(0))) unfused_bytes += port_bytes(p);
    const size_t ops = nodes.size() - constants;
    std::printf("totals: %zu of %zu nodes covered; %zu of %zu elementwise nodes; %zu partitions (%zu fusebox, %zu "
                "framework)\n",
                covered, ops, ew_covered, elementwise, parts.size(), fused_parts, parts.size() - fused_parts);
    if (sizes_known && fused_parts)
        std::printf("traffic of the fusebox partitions: %s fused, %s unfused (%.2fx fewer bytes)\n",
                    bytes_text(fused_bytes).c_str(), bytes_text(unfused_bytes).c_str(),
                    static_cast<double>(unfused_bytes) / static_cast<double>(std::max<size_t>(fused_bytes, 1)));
    else if (fused_parts)
        std::printf("traffic: unknown until every input has a concrete shape (--shapes)\n");
}

float half_to_float(uint16_t h, bool bf16) {
    if (bf16) {
        const uint32_t b = uint32_t{h} << 16;
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    const int e = h >> 10 & 31, m = h & 1023;
    const float s = h >> 15 ? -1.f : 1.f;
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * std::ldexp(static_cast<float>(e ? m + 1024 : m), (e ? e : 1) - 25);
}

double element(data_type t, const void *p, size_t i) {
    switch (t) {
    case data_type::f32: return static_cast<const float *>(p)[i];
    case data_type::f64: return static_cast<const double *>(p)[i];
    case data_type::f16: return half_to_float(static_cast<const uint16_t *>(p)[i], false);
    case data_type::bf16: return half_to_float(static_cast<const uint16_t *>(p)[i], true);
    default: return 0;
    }
}

// Compares an output with the expected tensor: bit for bit, or for a model
// with transcendental ops within ONNX's own tolerance of its test data
// (rtol 1e-3, atol 1e-7: its expected values are numpy's f32 formulas).
std::string compare(const tensor &want, const tensor &got, bool approximate) {
    const logical_tensor w = want.get_logical_tensor(), g = got.get_logical_tensor();
    if (w.get_data_type() != g.get_data_type()) return "its type differs";
    if (w.get_dims() != g.get_dims()) return "its shape differs";
    const data_type t = w.get_data_type();
    const size_t es = data_type_size(t), n = es ? w.get_mem_size() / es : 0;
    const bool is_float = t == data_type::f32 || t == data_type::f64 || t == data_type::f16 || t == data_type::bf16;
    for (size_t i = 0; i < n; ++i) {
        if (t == data_type::string) {
            const auto *a = static_cast<const string_view_t *>(want.get_data_handle()) + i;
            const auto *b = static_cast<const string_view_t *>(got.get_data_handle()) + i;
            if (a->size != b->size || std::memcmp(a->data, b->data, a->size))
                return "element " + std::to_string(i) + " differs";
            continue;
        }
        const auto *a = static_cast<const unsigned char *>(want.get_data_handle()) + i * es;
        const auto *b = static_cast<const unsigned char *>(got.get_data_handle()) + i * es;
        if (!std::memcmp(a, b, es)) continue;
        const double x = is_float ? element(t, want.get_data_handle(), i) : 0,
                     y = is_float ? element(t, got.get_data_handle(), i) : 0;
        if (is_float && std::isnan(x) && std::isnan(y)) continue;
        if (approximate && is_float && std::fabs(x - y) <= 1e-7 + 1e-3 * std::fabs(x)) continue;
        std::ostringstream s;
        s << "element " << i << " differs";
        if (is_float) s << ": expected " << x << ", got " << y;
        return s.str();
    }
    return "";
}

bool has_approximate(const fx::model &m) {
    static const std::set<op::kind> kinds = {op::kind::Exp,  op::kind::Log,  op::kind::Tanh, op::kind::Sigmoid,
                                             op::kind::Erf,  op::kind::Elu,  op::kind::Selu, op::kind::SoftPlus,
                                             op::kind::Mish, op::kind::GELU, op::kind::Pow};
    for (const fx::node &n : m.get_nodes())
        if (kinds.count(n.kind)) return true;
    return false;
}

int run_dir(const fx::model &m, const fs::path &dir) {
    const engine eng(engine::kind::cpu);
    stream s(eng);
    std::vector<fs::path> sets;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) throw error(status::invalid_arguments, "--run: no test_data_set_N folders in " + dir.string());
    int failures = 0;
    for (const fs::path &set : sets) {
        std::vector<fx::tensor_file> in;
        std::vector<logical_tensor> lts;
        std::vector<tensor> in_t;
        for (size_t k = 0; k < m.get_inputs().size(); ++k) {
            const fx::value &v = m.get_inputs()[k];
            in.push_back(fx::load_tensor((set / ("input_" + std::to_string(k) + ".pb")).string(), v.lt.get_id(), eng,
                                         v.lt.get_data_type()));
            lts.push_back(in.back().data.get_logical_tensor());
            in_t.push_back(in.back().data);
        }
        fx::session run(m, eng, lts);
        std::vector<tensor> out_t;
        for (const logical_tensor &lt : run.get_output_logical_tensors()) out_t.emplace_back(lt, eng);
        run.run(s, in_t, out_t);
        std::string verdict;
        for (size_t k = 0; k < out_t.size() && verdict.empty(); ++k) {
            const fx::value &v = m.get_outputs()[k];
            const fx::tensor_file want =
                fx::load_tensor((set / ("output_" + std::to_string(k) + ".pb")).string(), 0, eng, v.lt.get_data_type());
            const std::string why = compare(want.data, out_t[k], has_approximate(m));
            if (!why.empty()) verdict = "output '" + v.name + "': " + why;
        }
        std::printf("%s: %s\n", set.filename().c_str(), verdict.empty() ? "matches" : ("MISMATCH " + verdict).c_str());
        failures += !verdict.empty();
    }
    return failures ? 1 : 0;
}

// Inputs of a benchmark: values in [-4, 4) (booleans 0/1, integers small).
void fill(const tensor &t) {
    const logical_tensor lt = t.get_logical_tensor();
    const data_type dt = lt.get_data_type();
    const size_t es = data_type_size(dt), n = es ? lt.get_mem_size() / es : 0;
    auto *p = static_cast<unsigned char *>(t.get_data_handle());
    uint32_t x = 12345;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        const float f = static_cast<float>(x >> 8) / 16777216.f * 8.f - 4.f;
        if (dt == data_type::f32) {
            std::memcpy(p + i * 4, &f, 4);
        } else if (dt == data_type::f64) {
            const double d = f;
            std::memcpy(p + i * 8, &d, 8);
        } else if (dt == data_type::boolean) {
            p[i] = x >> 31;
        } else {
            std::memset(p + i * es, 0, es);
            p[i * es] = static_cast<unsigned char>(x >> 28); // 0..15
        }
    }
}

double time_ms(const std::function<void()> &f) {
    f(); // warm: pages touched, caches of compiled partitions filled
    double best = 1e30, total = 0;
    for (int i = 0; i < 200 && (i < 5 || total < 1000); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        best = std::min(best, ms);
        total += ms;
    }
    return best;
}

int bench(const fx::model &m) {
    const engine eng(engine::kind::cpu);
    stream s(eng);
    std::vector<tensor> in_t;
    std::vector<logical_tensor> lts;
    for (const fx::value &v : m.get_inputs()) {
        if (!v.lt.has_known_shape())
            throw error(status::invalid_shape, "--bench: input '" + v.name + "' has no concrete shape (--shapes)");
        lts.emplace_back(v.lt.get_id(), v.lt.get_data_type(), v.lt.get_dims());
        in_t.emplace_back(lts.back(), eng);
        fill(in_t.back());
    }
    auto time_policy = [&](partition::policy p, size_t &bytes) {
        fx::session run(m, eng, lts, p);
        bytes = run.bytes_moved();
        std::vector<tensor> out_t;
        for (const logical_tensor &lt : run.get_output_logical_tensors()) out_t.emplace_back(lt, eng);
        return time_ms([&] { run.run(s, in_t, out_t); });
    };
    size_t fused_bytes = 0, debug_bytes = 0;
    const double fused = time_policy(partition::policy::fusion, fused_bytes);
    const double debug = time_policy(partition::policy::debug, debug_bytes);
    const int threads = tbb::info::default_concurrency();
    fbtools::traffic t;
    t.reads = {fused_bytes / 2};
    t.write = fused_bytes - fused_bytes / 2;
    const fbtools::memory_roof roof = fbtools::measure_roof(t, threads);
    const double roof_ms = static_cast<double>(fused_bytes) / (roof.gbps * 1e6);
    std::printf("bench (%d threads): fused %.3f ms (%s moved), debug %.3f ms (%s moved): %.2fx; roof of the fused "
                "traffic %.3f ms (%.1f GB/s, %s): %.2f of the roof\n",
                threads, fused, bytes_text(fused_bytes).c_str(), debug, bytes_text(debug_bytes).c_str(), debug / fused,
                roof_ms, roof.gbps, roof.kernel.c_str(), roof_ms / fused);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    std::string path, run;
    bool do_bench = false;
    fx::import_options opts;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--shapes" && i + 1 < argc) {
                for (auto &[k, v] : parse_shapes(argv[++i])) opts.shapes[k] = v;
            } else if (a.rfind("--shapes=", 0) == 0) {
                for (auto &[k, v] : parse_shapes(a.substr(9))) opts.shapes[k] = v;
            } else if (a == "--run" && i + 1 < argc) {
                run = argv[++i];
            } else if (a.rfind("--run=", 0) == 0) {
                run = a.substr(6);
            } else if (a == "--bench") {
                do_bench = true;
            } else if (a.rfind("--", 0) == 0 || !path.empty()) {
                std::fprintf(stderr, "fusebox-onnx: unknown argument '%s'\n", a.c_str());
                return usage();
            } else {
                path = a;
            }
        }
        if (path.empty()) return usage();
        const fx::model m = fx::model::load(path, opts);
        report(path, m);
        int rc = 0;
        if (!run.empty()) rc |= run_dir(m, run);
        if (do_bench) rc |= bench(m);
        return rc;
    } catch (const error &e) {
        std::fprintf(stderr, "fusebox-onnx: %s\n", e.what());
        return 1;
    }
}
