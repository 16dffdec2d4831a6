// partition::compile: canonicalize, choose a kernel, cache the result.
#include <chrono>

#include "common/checked.hpp"
#include "common/env.hpp"
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

// What a relaxed fpmath mode lets oneDNN do (see doc/INTEGRATION.md): its
// bf16/f16 conversions flush subnormal results to zero.
onednn_options options_for(fpmath_mode m) {
    onednn_options o;
    o.bf16_add_may_flush = m == fpmath_mode::bf16 || m == fpmath_mode::any;
    o.f16_add_may_flush = m == fpmath_mode::f16 || m == fpmath_mode::any;
    return o;
}

// "72 B", "192 KiB", "96 MiB" (rounded to nearest; no overflow for any size).
std::string bytes_text(int64_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    const int shift = bytes < (int64_t{1} << 20) ? 10 : 20;
    const int64_t whole = bytes >> shift, rounded = whole + ((bytes >> (shift - 1)) & 1);
    return std::to_string(rounded) + (shift == 10 ? " KiB" : " MiB");
}

// Partitions touching less than this run on the native kernel, inline on the
// caller: there a primitive call costs more than the work, and the native
// loop matches or beats oneDNN's JIT (measured for Add, Add chains and Equal,
// doc/PERFORMANCE.md). Partitions touching stream_threshold_bytes() or more
// also run native: its non-temporal stores beat oneDNN's binary JIT there.
constexpr int64_t kSmallBytes = 256 << 10;

// The kernel for `e`, and in `why` the reason for it (a comma-free phrase
// for the verbose log).
std::shared_ptr<const kernel> choose_kernel(const fused_expr &e, kernel_choice choice, fpmath_mode math, size_t pid,
                                            std::string &why) {
    if (e.numel() == 0) return why = "empty output", make_native_kernel(e);
    int64_t bytes = static_cast<int64_t>(data_type_size(e.output.get_data_type()));
    for (const auto &side : e.sides) bytes += static_cast<int64_t>(data_type_size(side.port.get_data_type()));
    for (const auto &o : e.operands)
        if (!e.is_constant(o)) bytes += static_cast<int64_t>(data_type_size(e.operand_type(o)));
    bytes = saturating_mul(bytes, e.numel());
    if (choice == kernel_choice::native) return why = "FUSEBOX_KERNEL=native", make_native_kernel(e);
    if (choice == kernel_choice::automatic && bytes < kSmallBytes)
        return why = "small: " + bytes_text(bytes) + " touched (< " + bytes_text(kSmallBytes) +
                     ") costs less than a primitive call",
               make_native_kernel(e);
    if (choice == kernel_choice::automatic && bytes >= stream_threshold_bytes())
        return why = "large: " + bytes_text(bytes) + " touched (>= " + bytes_text(stream_threshold_bytes()) +
                     ") streams faster with non-temporal stores",
               make_native_kernel(e);
    std::string declined;
    if (auto k = make_onednn_kernel(e, options_for(math), declined))
        return why = choice == kernel_choice::onednn ? "FUSEBOX_KERNEL=onednn" : "oneDNN is exact here", std::move(k);
    if (choice == kernel_choice::onednn)
        fail(status::unimplemented, "compile: partition ", pid, ": FUSEBOX_KERNEL=onednn but ", declined);
    return why = "not oneDNN: " + declined, make_native_kernel(e);
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

verbose_line log_line(std::string_view event, size_t partition_id, const compiled_core &c) {
    const kernel_facts &f = c.k->facts();
    verbose_line line(event);
    line.field("cpu").field(static_cast<int64_t>(partition_id)).field(c.ops);
    line.field(verbose_tensors("in", c.inputs)).field(verbose_tensors("out", c.outputs));
    line.field(fpmath_name(c.math)).field(f.impl).field(c.reason);
    line.field(int64_t{f.threads}).field(int64_t{f.chunks}).field(f.streaming ? "yes" : "no");
    return line;
}

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
        fail(status::invalid_arguments, "compile: partition ", impl_->id, " holds ", op_ref(o),
             ", which fusebox does not run: the framework runs this partition itself");
    }
    const bool verbose = verbose_enabled();
    const auto start = verbose ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    const kernel_choice choice = env_kernel();
    bool built = false;
    const std::string key = cache_key(*impl_, inputs, outputs, choice);
    auto core = cached_compile(key, [&] {
        built = true;
        std::vector<op> concrete_ops;
        const bool dumping = dump_mode() & fusebox_dump_mode_subgraph;
        fused_expr expr = build_fused_expr(*impl_, inputs, outputs, dumping ? &concrete_ops : nullptr);
        std::vector<logical_tensor> outs{expr.output};
        for (const side_output &side : expr.sides) outs.push_back(side.port);
        if (dumping) dump_partition(*impl_, concrete_ops, expr.inputs, outs, key);
        if (verbose_level() >= 2)
            verbose_line("canonical")
                .field("cpu")
                .field(static_cast<int64_t>(impl_->id))
                .field(expr.to_string())
                .print();
        auto c = std::make_shared<compiled_core>();
        c->inputs = expr.inputs;
        c->outputs = std::move(outs);
        c->inplace = inplace_pairs(expr);
        c->k = choose_kernel(expr, choice, impl_->math, impl_->id, c->reason);
        c->ops = verbose_ops(impl_->ops);
        c->math = impl_->math;
        for (const auto *list : {&c->inputs, &c->outputs})
            for (const auto &lt : *list) c->traffic += lt.get_mem_size();
        return std::shared_ptr<const compiled_core>(std::move(c));
    });
    if (verbose)
        log_line(built ? "compile:cache_miss" : "compile:cache_hit", impl_->id, *core)
            .field(ms_since(start), 6)
            .print();
    compiled_partition cp;
    access::impl(cp) = std::make_shared<const compiled_impl>(compiled_impl{impl_->id, std::move(core)});
    return cp;
}

} // namespace fusebox
