#include "onednn_direct.hpp"

#include <map>

#include <oneapi/dnnl/dnnl.hpp>

namespace fbbench {
namespace {

using dnnl::memory;

bool to_dnnl(fusebox::data_type t, memory::data_type &out) {
    switch (t) {
    case fusebox::data_type::f32: out = memory::data_type::f32; return true;
    case fusebox::data_type::bf16: out = memory::data_type::bf16; return true;
    case fusebox::data_type::f16: out = memory::data_type::f16; return true;
    case fusebox::data_type::boolean: out = memory::data_type::u8; return true;
    default: return false;
    }
}

// Operand descriptor at the output's rank (numpy right-alignment).
memory::desc md_at_rank(const fbref::buffer &b, size_t rank, memory::data_type dt) {
    memory::dims d(rank, 1), s(rank, 1);
    const auto &dims = b.lt.get_dims();
    const size_t off = rank - dims.size();
    for (size_t i = 0; i < dims.size(); ++i) d[off + i] = dims[i], s[off + i] = b.strides[i];
    for (size_t i = off; i-- > 0;) s[i] = s[i + 1] * d[i + 1];
    return memory::desc(d, dt, s);
}

} // namespace

std::unique_ptr<direct_primitive> make_direct_primitive(fusebox::op::kind kind, const fbref::buffer &a,
                                                        const fbref::buffer &b, fbref::buffer &out, std::string &why) {
    memory::data_type ta, tb, to;
    if (!to_dnnl(a.lt.get_data_type(), ta) || !to_dnnl(b.lt.get_data_type(), tb) ||
        !to_dnnl(out.lt.get_data_type(), to))
        return why = "direct oneDNN reference handles f32/bf16/f16 only", nullptr;
    const size_t rank = std::max<size_t>(out.lt.get_dims().size(), 1);
    if (out.lt.get_dims().empty()) return why = "direct oneDNN reference needs rank >= 1", nullptr;
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    auto md0 = md_at_rank(a, rank, ta), md1 = md_at_rank(b, rank, tb), mdd = md_at_rank(out, rank, to);
    using k = fusebox::op::kind;
    static const std::map<k, dnnl::algorithm> kAlgorithms = {
        {k::Add, dnnl::algorithm::binary_add},         {k::Sum, dnnl::algorithm::binary_add},
        {k::BiasAdd, dnnl::algorithm::binary_add},     {k::Subtract, dnnl::algorithm::binary_sub},
        {k::Multiply, dnnl::algorithm::binary_mul},    {k::Divide, dnnl::algorithm::binary_div},
        {k::Maximum, dnnl::algorithm::binary_max},     {k::Minimum, dnnl::algorithm::binary_min},
        {k::Equal, dnnl::algorithm::binary_eq},        {k::Greater, dnnl::algorithm::binary_gt},
        {k::GreaterEqual, dnnl::algorithm::binary_ge}, {k::Less, dnnl::algorithm::binary_lt},
        {k::LessEqual, dnnl::algorithm::binary_le}};
    const auto it = kAlgorithms.find(kind);
    if (it == kAlgorithms.end())
        return why = std::string("oneDNN has no binary algorithm for ") + fusebox::op_kind_name(kind), nullptr;
    const dnnl::algorithm alg = it->second;
    try {
#if DNNL_VERSION_MAJOR >= 3
        dnnl::binary::primitive_desc pd(eng, alg, md0, md1, mdd);
#else
        dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, md0, md1, mdd), eng);
#endif
        auto p = std::make_unique<direct_primitive>();
        p->impl = std::string("dnnl-direct:") + pd.impl_info_str();
        auto prim = std::make_shared<dnnl::binary>(pd);
        auto m0 = std::make_shared<memory>(md0, eng, const_cast<void *>(a.data()));
        auto m1 = std::make_shared<memory>(md1, eng, const_cast<void *>(b.data()));
        auto md = std::make_shared<memory>(mdd, eng, out.data());
        auto strm = std::make_shared<dnnl::stream>(eng);
        p->run = [=] {
            prim->execute(*strm, {{DNNL_ARG_SRC_0, *m0}, {DNNL_ARG_SRC_1, *m1}, {DNNL_ARG_DST, *md}});
            strm->wait();
        };
        return p;
    } catch (const dnnl::error &e) {
        return why = std::string("oneDNN rejected the case: ") + e.what(), nullptr;
    }
}

std::unique_ptr<direct_primitive> make_direct_eltwise(const fusebox::op &o, const fbref::buffer &a, fbref::buffer &out,
                                                      std::string &why) {
    memory::data_type ta, to;
    if (!to_dnnl(a.lt.get_data_type(), ta) || !to_dnnl(out.lt.get_data_type(), to) || ta != to)
        return why = "direct oneDNN eltwise handles f32/bf16/f16 only", nullptr;
    if (out.lt.get_dims().empty()) return why = "direct oneDNN reference needs rank >= 1", nullptr;
    using k = fusebox::op::kind;
    using a_ = dnnl::algorithm;
    auto attr = [&](fusebox::op::attr x, float fallback) { return fbref::ref_attr(o, x, fallback); };
    // oneDNN 2.6's eltwise algorithm and its alpha, beta for each kind it has.
    dnnl::algorithm alg;
    float alpha = 0, beta = 0;
    switch (o.get_kind()) {
    case k::ReLU: alg = a_::eltwise_relu; break;
    case k::LeakyReLU: alg = a_::eltwise_relu, alpha = attr(fusebox::op::attr::alpha, 0.01f); break;
    case k::Elu: alg = a_::eltwise_elu, alpha = attr(fusebox::op::attr::alpha, 1.0f); break;
    case k::Exp: alg = a_::eltwise_exp; break;
    case k::Log: alg = a_::eltwise_log; break;
    case k::Tanh: alg = a_::eltwise_tanh; break;
    case k::Sigmoid: alg = a_::eltwise_logistic; break;
    case k::Sqrt: alg = a_::eltwise_sqrt; break;
    case k::Square: alg = a_::eltwise_square; break;
    case k::Abs: alg = a_::eltwise_abs; break;
    case k::Round: alg = a_::eltwise_round; break;
    case k::HardSwish: alg = a_::eltwise_hardswish; break;
    case k::Mish: alg = a_::eltwise_mish; break;
    case k::SoftPlus: alg = a_::eltwise_soft_relu; break;
    case k::Clamp:
        alg = a_::eltwise_clip, alpha = attr(fusebox::op::attr::min, 0), beta = attr(fusebox::op::attr::max, 0);
        break;
    case k::Neg: alg = a_::eltwise_linear, alpha = -1; break;
    case k::Reciprocal: alg = a_::eltwise_pow, alpha = 1, beta = -1; break;
    case k::GELU: {
        auto m = o.get_attrs().find(fusebox::op::attr::mode);
        const bool tanh = m != o.get_attrs().end() && std::get<std::string>(m->second) == "gelu_tanh";
        alg = tanh ? a_::eltwise_gelu_tanh : a_::eltwise_gelu_erf;
        break;
    }
    default:
        return why = std::string("oneDNN has no eltwise algorithm for ") + fusebox::op_kind_name(o.get_kind()), nullptr;
    }
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    const size_t rank = out.lt.get_dims().size();
    auto md0 = md_at_rank(a, rank, ta), mdd = md_at_rank(out, rank, to);
    try {
#if DNNL_VERSION_MAJOR >= 3
        dnnl::eltwise_forward::primitive_desc pd(eng, dnnl::prop_kind::forward_inference, alg, md0, mdd, alpha, beta);
#else
        dnnl::eltwise_forward::primitive_desc pd(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md0, alpha, beta), eng);
#endif
        auto p = std::make_unique<direct_primitive>();
        p->impl = std::string("dnnl-direct:") + pd.impl_info_str();
        auto prim = std::make_shared<dnnl::eltwise_forward>(pd);
        auto m0 = std::make_shared<memory>(md0, eng, const_cast<void *>(a.data()));
        auto md = std::make_shared<memory>(mdd, eng, out.data());
        auto strm = std::make_shared<dnnl::stream>(eng);
        p->run = [=] {
            prim->execute(*strm, {{DNNL_ARG_SRC, *m0}, {DNNL_ARG_DST, *md}});
            strm->wait();
        };
        return p;
    } catch (const dnnl::error &e) {
        return why = std::string("oneDNN rejected the case: ") + e.what(), nullptr;
    }
}

} // namespace fbbench
