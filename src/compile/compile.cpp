// partition::compile: canonicalize, choose a kernel, cache the result.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/checked.hpp"
#include "common/errors.hpp"
#include "common/parallel.hpp"
#include "common/verbose.hpp"
#include "compile/canonicalize.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compiled_impl.hpp"
#include "interface/dump.hpp"
#include "interface/handles.hpp"
#include "interface/signature.hpp"
#include "kernels/native/expr_kernel.hpp"
#include "kernels/onednn/binary_kernel.hpp"

namespace fusebox {
namespace detail {
namespace {

enum class kernel_choice { automatic, onednn, native };

kernel_choice kernel_from_env() {
    const char *s = std::getenv("FUSEBOX_KERNEL");
    if (!s || !*s || !std::strcmp(s, "auto")) return kernel_choice::automatic;
    if (!std::strcmp(s, "onednn")) return kernel_choice::onednn;
    if (!std::strcmp(s, "native")) return kernel_choice::native;
    fail(status::invalid_arguments, "FUSEBOX_KERNEL must be onednn, native or auto, got \"", s, "\"");
}

// What a relaxed fpmath mode lets oneDNN do (see doc/INTEGRATION.md): its
// bf16/f16 conversions flush subnormal results to zero.
onednn_options options_for(fpmath_mode m) {
    onednn_options o;
    o.bf16_add_may_flush = m == fpmath_mode::bf16 || m == fpmath_mode::any;
    o.f16_add_may_flush = m == fpmath_mode::f16 || m == fpmath_mode::any;
    return o;
}

// Partitions this small run inline on the native kernel: a primitive call
// alone costs more than the work. Partitions streaming more than
// stream_threshold_bytes() also run native: its non-temporal stores beat
// oneDNN's binary JIT there (see doc/PERFORMANCE.md).
constexpr int64_t kSmallBytes = 1 << 16;

std::shared_ptr<const kernel> choose_kernel(const fused_expr &e, kernel_choice choice, fpmath_mode math, size_t pid,
                                            std::string &why) {
    if (e.numel() == 0) return make_native_kernel(e); // nothing to compute, whatever the choice
    int64_t bytes = static_cast<int64_t>(data_type_size(e.output.get_data_type()));
    for (const auto &o : e.operands) bytes += static_cast<int64_t>(data_type_size(e.inputs[o.port].get_data_type()));
    bytes = saturating_mul(bytes, e.numel());
    const bool native_is_faster = bytes < kSmallBytes || bytes >= stream_threshold_bytes();
    if (choice == kernel_choice::native || (choice == kernel_choice::automatic && native_is_faster))
        return make_native_kernel(e);
    if (auto k = make_onednn_kernel(e, options_for(math), why)) return k;
    if (choice == kernel_choice::onednn)
        fail(status::unimplemented, "compile: partition ", pid, ": FUSEBOX_KERNEL=onednn but ", why);
    return make_native_kernel(e);
}

// (input, output) pairs that may share a buffer: same type and layout, and
// every use of the input reads exactly the element being written.
std::vector<std::pair<size_t, size_t>> inplace_pairs(const fused_expr &e) {
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t p = 0; p < e.inputs.size(); ++p) {
        const logical_tensor &in = e.inputs[p];
        bool ok = in.get_data_type() == e.output.get_data_type() && dims_of(in) == dims_of(e.output) &&
                  strides_of(in) == strides_of(e.output);
        for (const auto &o : e.operands)
            if (o.port == p) ok = ok && o.strides == e.out_strides;
        if (ok) pairs.emplace_back(in.get_id(), e.output.get_id());
    }
    return pairs;
}

std::string cache_key(const partition_impl &part, const std::vector<logical_tensor> &inputs,
                      const std::vector<logical_tensor> &outputs, kernel_choice choice) {
    signature_builder k;
    k.s.reserve(part.signature.size() + 128);
    k.s = part.signature;
    k.num(static_cast<int>(choice)).num(max_threads());
    for (const auto &t : inputs) k.tensor(t);
    k.s.push_back('|');
    for (const auto &t : outputs) k.tensor(t);
    return std::move(k.s);
}

} // namespace
} // namespace detail

compiled_partition partition::compile(const std::vector<logical_tensor> &inputs,
                                      const std::vector<logical_tensor> &outputs, const engine &e) const {
    return detail::translate_exceptions("compile", [&] { return compile_checked(inputs, outputs, e); });
}

compiled_partition partition::compile_checked(const std::vector<logical_tensor> &inputs,
                                              const std::vector<logical_tensor> &outputs, const engine &e) const {
    using namespace detail;
    if (!impl_) fail(status::invalid_arguments, "compile: partition is empty (default-constructed)");
    if (!e) fail(status::invalid_arguments, "compile: the engine is empty (default-constructed)");
    if (e.get_kind() != impl_->engine_kind)
        fail(status::invalid_arguments, "compile: engine kind does not match the graph's");
    if (!impl_->supported) {
        const op &o = impl_->ops.front();
        fail(status::unimplemented, "compile: partition ", impl_->id, " holds op ", o.get_id(), " (",
             op_kind_name(o.get_kind()), "), which fusebox does not run: the framework runs this partition itself");
    }
    const auto start = std::chrono::steady_clock::now();
    const kernel_choice choice = kernel_from_env();
    bool built = false;
    const std::string key = cache_key(*impl_, inputs, outputs, choice);
    auto core = cached_compile(key, [&] {
        built = true;
        std::vector<op> concrete_ops;
        const bool dumping = dump_mode() & fusebox_dump_mode_subgraph;
        fused_expr expr = build_fused_expr(*impl_, inputs, outputs, dumping ? &concrete_ops : nullptr);
        if (dumping) dump_partition(*impl_, concrete_ops, expr.inputs, {expr.output}, key);
        if (verbose_level() >= 2)
            verbose_print("canonical,partition=" + std::to_string(impl_->id) + "," + expr.to_string());
        auto c = std::make_shared<compiled_core>();
        c->inputs = expr.inputs;
        c->output = expr.output;
        c->inplace = inplace_pairs(expr);
        c->k = choose_kernel(expr, choice, impl_->math, impl_->id, c->fallback_reason);
        for (const op &o : impl_->ops)
            c->ops += (c->ops.empty() ? "" : ",") + std::string(op_kind_name(o.get_kind())) + "#" +
                      std::to_string(o.get_id());
        return std::shared_ptr<const compiled_core>(std::move(c));
    });
    if (verbose_enabled()) {
        std::ostringstream os;
        os << "compile,partition=" << impl_->id << ",ops=" << core->ops << ",impl=" << core->k->info()
           << (core->fallback_reason.empty() ? "" : " (onednn: " + core->fallback_reason + ")")
           << (built ? "" : ",cache_hit") << ",out=" << data_type_name(core->output.get_data_type())
           << shape_str(dims_of(core->output)) << ",time_ms=" << ms_since(start);
        verbose_print(os.str());
    }
    compiled_partition cp;
    access::impl(cp) = std::make_shared<const compiled_impl>(compiled_impl{impl_->id, std::move(core)});
    return cp;
}

} // namespace fusebox
