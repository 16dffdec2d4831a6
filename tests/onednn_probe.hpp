// Asks oneDNN directly, independently of fusebox's lowering, whether its binary
// primitive has a non-reference implementation for a problem on this CPU (after
// ONEDNN_MAX_CPU_ISA). Tests that expect a oneDNN lowering ask this first: the
// answer depends on the CPU (oneDNN 2.6 has bf16 binary JITs only with AVX-512).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "../tools/common/reference.hpp"

namespace fbt {

inline dnnl::memory::data_type onednn_type(fbref::dt t) {
    using mdt = dnnl::memory::data_type;
    switch (t) {
    case fbref::dt::f32: return mdt::f32;
    case fbref::dt::bf16: return mdt::bf16;
    case fbref::dt::f16: return mdt::f16;
    case fbref::dt::s32: return mdt::s32;
    case fbref::dt::s8: return mdt::s8;
    case fbref::dt::u8:
    case fbref::dt::boolean: return mdt::u8;
    default: return mdt::undef;
    }
}

/// oneDNN's implementation name for `alg` over dense a and b (b broadcast
/// numpy-wise to a, aligned to its trailing dims) into `out_type`, or "" when
/// oneDNN rejects the problem.
inline std::string onednn_binary_impl(dnnl::algorithm alg, fbref::dt in_type, const fbref::dims &a, fbref::dims b,
                                      fbref::dt out_type) {
    if (onednn_type(in_type) == dnnl::memory::data_type::undef) return "";
    while (b.size() < a.size()) b.insert(b.begin(), 1);
    if (a.size() == 1) return onednn_binary_impl(alg, in_type, {a[0], 1}, {b[0], 1}, out_type);
    try {
        const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
        using tag = dnnl::memory::format_tag;
        const tag plain = a.size() == 2 ? tag::ab : a.size() == 3 ? tag::abc : a.size() == 4 ? tag::abcd : tag::abcde;
        const dnnl::memory::desc ma(a, onednn_type(in_type), plain), mb(b, onednn_type(in_type), plain),
            mc(a, onednn_type(out_type), plain);
#if DNNL_VERSION_MAJOR >= 3
        dnnl::binary::primitive_desc pd(eng, alg, ma, mb, mc);
#else
        dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, ma, mb, mc), eng);
#endif
        return pd.impl_info_str();
    } catch (const dnnl::error &) {
        return "";
    }
}

/// Whether that implementation exists and is not oneDNN's reference code.
inline bool onednn_binary_has_jit(dnnl::algorithm alg, fbref::dt in_type, const fbref::dims &a, const fbref::dims &b,
                                  fbref::dt out_type) {
    const std::string impl = onednn_binary_impl(alg, in_type, a, b, out_type);
    return !impl.empty() && impl.rfind("ref", 0) != 0;
}

} // namespace fbt
