#include "onednn_direct.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace fbbench {
namespace {

using dnnl::memory;
using kind = fusebox::op::kind;

bool to_dnnl(fusebox::data_type t, memory::data_type &out) {
    switch (t) {
    case fusebox::data_type::f32: out = memory::data_type::f32; return true;
    case fusebox::data_type::bf16: out = memory::data_type::bf16; return true;
    case fusebox::data_type::f16: out = memory::data_type::f16; return true;
    case fusebox::data_type::boolean: out = memory::data_type::u8; return true;
    default: return false;
    }
}

// Operand descriptor at the output's rank (numpy right-alignment), in the
// buffer's type (checked by to_dnnl before).
memory::desc md_at_rank(const fbref::buffer &b, size_t rank) {
    memory::data_type dt = memory::data_type::undef;
    to_dnnl(b.lt.get_data_type(), dt);
    memory::dims d(rank, 1), s(rank, 1);
    const auto &dims = b.lt.get_dims();
    const size_t off = rank - dims.size();
    for (size_t i = 0; i < dims.size(); ++i) d[off + i] = dims[i], s[off + i] = b.strides[i];
    // (A rank-0 buffer's innermost dim is one of the added ones: stride 1.)
    for (size_t i = std::min(off, rank - 1); i-- > 0;) s[i] = s[i + 1] * d[i + 1];
    return memory::desc(d, dt, s);
}

struct eltwise {
    dnnl::algorithm alg;
    float alpha = 0, beta = 0;
};

// oneDNN 2.6's eltwise algorithm and its alpha, beta for a unary op.
std::optional<eltwise> eltwise_of(const fusebox::op &o) {
    using a_ = dnnl::algorithm;
    auto attr = [&](fusebox::op::attr x, float fallback) { return fbref::ref_attr(o, x, fallback); };
    switch (o.get_kind()) {
    case kind::ReLU: return eltwise{a_::eltwise_relu};
    case kind::LeakyReLU: return eltwise{a_::eltwise_relu, attr(fusebox::op::attr::alpha, 0.01f)};
    case kind::Elu: return eltwise{a_::eltwise_elu, attr(fusebox::op::attr::alpha, 1.0f)};
    case kind::Exp: return eltwise{a_::eltwise_exp};
    case kind::Log: return eltwise{a_::eltwise_log};
    case kind::Tanh: return eltwise{a_::eltwise_tanh};
    case kind::Sigmoid: return eltwise{a_::eltwise_logistic};
    case kind::Sqrt: return eltwise{a_::eltwise_sqrt};
    case kind::Square: return eltwise{a_::eltwise_square};
    case kind::Abs: return eltwise{a_::eltwise_abs};
    case kind::Round: return eltwise{a_::eltwise_round};
    case kind::HardSwish: return eltwise{a_::eltwise_hardswish};
    case kind::Mish: return eltwise{a_::eltwise_mish};
    case kind::SoftPlus: return eltwise{a_::eltwise_soft_relu};
    case kind::Clamp:
        return eltwise{a_::eltwise_clip, attr(fusebox::op::attr::min, 0), attr(fusebox::op::attr::max, 0)};
    case kind::Neg: return eltwise{a_::eltwise_linear, -1, -0.f}; // -x + -0: -(+0) is -0
    case kind::Reciprocal: return eltwise{a_::eltwise_pow, 1, -1};
    case kind::Pow: return eltwise{a_::eltwise_pow, 1, attr(fusebox::op::attr::beta, 1)}; // oneDNN's x^beta
    case kind::GELU: {
        auto m = o.get_attrs().find(fusebox::op::attr::mode);
        const bool tanh = m != o.get_attrs().end() && std::get<std::string>(m->second) == "gelu_tanh";
        return eltwise{tanh ? a_::eltwise_gelu_tanh : a_::eltwise_gelu_erf};
    }
    default: return std::nullopt;
    }
}

std::optional<dnnl::algorithm> binary_of(kind k) {
    static const std::map<kind, dnnl::algorithm> kAlgorithms = {
        {kind::Add, dnnl::algorithm::binary_add},         {kind::Sum, dnnl::algorithm::binary_add},
        {kind::BiasAdd, dnnl::algorithm::binary_add},     {kind::Subtract, dnnl::algorithm::binary_sub},
        {kind::Multiply, dnnl::algorithm::binary_mul},    {kind::Divide, dnnl::algorithm::binary_div},
        {kind::Maximum, dnnl::algorithm::binary_max},     {kind::Minimum, dnnl::algorithm::binary_min},
        {kind::Equal, dnnl::algorithm::binary_eq},        {kind::Greater, dnnl::algorithm::binary_gt},
        {kind::GreaterEqual, dnnl::algorithm::binary_ge}, {kind::Less, dnnl::algorithm::binary_lt},
        {kind::LessEqual, dnnl::algorithm::binary_le}};
    const auto it = kAlgorithms.find(k);
    return it == kAlgorithms.end() ? std::nullopt : std::optional<dnnl::algorithm>(it->second);
}

bool commutes(kind k) {
    return k == kind::Add || k == kind::Sum || k == kind::Multiply || k == kind::Maximum || k == kind::Minimum ||
           k == kind::Equal;
}

// One oneDNN primitive: a binary or eltwise head on src_0 (and src_1), then
// its post-ops, each binary one with its own operand.
struct step {
    std::shared_ptr<fbref::buffer> src0, src1, dst;
    std::optional<dnnl::algorithm> binary;
    eltwise unary{};
    std::vector<std::optional<eltwise>> posts; // nullopt: the binary post-op of post_srcs' next entry
    std::vector<std::pair<dnnl::algorithm, std::shared_ptr<fbref::buffer>>> post_srcs;
};

struct built {
    dnnl::primitive prim;
    std::unordered_map<int, memory> args;
    std::string impl;
};

// oneDNN 2.6's eltwise writes its input's type and layout: an eltwise head
// only where the output has them.
bool eltwise_fits(const step &s) {
    const size_t rank = s.dst->lt.get_dims().size();
    return md_at_rank(*s.src0, rank) == md_at_rank(*s.dst, rank);
}

built build(const step &s, const dnnl::engine &eng) {
    const size_t rank = s.dst->lt.get_dims().size();
    const auto md0 = md_at_rank(*s.src0, rank), mdd = md_at_rank(*s.dst, rank);
    dnnl::post_ops po;
    std::vector<std::pair<int, memory::desc>> post_mds; // a binary post-op's index and src_1
    size_t next_src = 0;
    for (const auto &p : s.posts) {
        if (p) {
#if DNNL_VERSION_MAJOR >= 3
            po.append_eltwise(p->alg, p->alpha, p->beta);
#else
            po.append_eltwise(1.f, p->alg, p->alpha, p->beta);
#endif
            continue;
        }
        const auto &[alg, b] = s.post_srcs[next_src++];
        post_mds.emplace_back(po.len(), md_at_rank(*b, rank));
        po.append_binary(alg, post_mds.back().second);
    }
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    built out;
    if (s.binary) {
        const auto md1 = md_at_rank(*s.src1, rank);
#if DNNL_VERSION_MAJOR >= 3
        dnnl::binary::primitive_desc pd(eng, *s.binary, md0, md1, mdd, attr);
#else
        dnnl::binary::primitive_desc pd(dnnl::binary::desc(*s.binary, md0, md1, mdd), attr, eng);
#endif
        out.prim = dnnl::binary(pd), out.impl = pd.impl_info_str();
        out.args = {{DNNL_ARG_SRC_0, memory(md0, eng, s.src0->data())},
                    {DNNL_ARG_SRC_1, memory(md1, eng, s.src1->data())}};
    } else {
        const auto &u = s.unary;
#if DNNL_VERSION_MAJOR >= 3
        dnnl::eltwise_forward::primitive_desc pd(eng, dnnl::prop_kind::forward_inference, u.alg, md0, mdd, u.alpha,
                                                 u.beta, attr);
#else
        dnnl::eltwise_forward::primitive_desc pd(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, u.alg, md0, u.alpha, u.beta), attr, eng);
#endif
        out.prim = dnnl::eltwise_forward(pd), out.impl = pd.impl_info_str();
        out.args = {{DNNL_ARG_SRC, memory(md0, eng, s.src0->data())}};
    }
    out.args.emplace(DNNL_ARG_DST, memory(mdd, eng, s.dst->data()));
    for (size_t i = 0; i < post_mds.size(); ++i)
        out.args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(post_mds[i].first) | DNNL_ARG_SRC_1,
                         memory(post_mds[i].second, eng, s.post_srcs[i].second->data()));
    if (!s.posts.empty()) out.impl += "+" + std::to_string(s.posts.size()) + "post";
    return out;
}

} // namespace

std::unique_ptr<direct_primitive> make_direct_graph(const std::vector<fusebox::op> &ops,
                                                    std::map<size_t, std::shared_ptr<fbref::buffer>> values,
                                                    std::string &why) {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    std::set<size_t> given; // the case's own tensors
    for (const auto &[id, b] : values) given.insert(id);
    std::map<size_t, int> readers;
    for (const auto &o : ops)
        for (const auto &lt : o.get_inputs()) ++readers[lt.get_id()];
    std::vector<step> steps;
    std::vector<built> prims;
    std::map<size_t, int> made_by; // id -> the step that writes it (absent: a graph input)
    const auto value = [&](const fusebox::logical_tensor &lt) -> std::shared_ptr<fbref::buffer> {
        auto &b = values[lt.get_id()];
        if (!b) b = std::make_shared<fbref::buffer>(lt); // an intermediate of this row's own
        return b;
    };
    try {
        for (const auto &o : ops) {
            if (o.get_kind() == kind::End) continue; // its input is an output of the case
            if (o.get_outputs().size() != 1 || o.get_inputs().empty() || o.get_inputs().size() > 2)
                return why = std::string("the direct oneDNN row has no form for ") + o.get_name(), nullptr;
            // Broadcasts other than numpy's right alignment (ONNX's legacy
            // axis, BiasAdd's NCX channel) are not expressed.
            const auto &attrs = o.get_attrs();
            const auto format = attrs.find(fusebox::op::attr::data_format);
            if (attrs.count(fusebox::op::attr::broadcast) || attrs.count(fusebox::op::attr::axis) ||
                (format != attrs.end() && std::get<std::string>(format->second) == "NCX"))
                return why = std::string("the direct oneDNN row has no form for ") + o.get_name() + "'s broadcast",
                       nullptr;
            // Tensors as the case has them (its knobs may have changed the
            // shapes the ops were written with); an intermediate of numpy's
            // broadcast shape, of the type the reference gives it.
            std::vector<fusebox::logical_tensor> in;
            for (const auto &lt : o.get_inputs()) {
                if (!given.count(lt.get_id()) && !made_by.count(lt.get_id()))
                    return why = "the direct oneDNN row needs its ops in order", nullptr;
                in.push_back(values.at(lt.get_id())->lt);
            }
            fusebox::logical_tensor out = o.get_outputs()[0];
            if (given.count(out.get_id())) {
                out = values.at(out.get_id())->lt;
            } else {
                fusebox::logical_tensor::dims d;
                for (const auto &lt : in) {
                    const auto &e = lt.get_dims();
                    if (e.size() > d.size()) d.insert(d.begin(), e.size() - d.size(), 1);
                    for (size_t i = 0; i < e.size(); ++i) {
                        auto &x = d[d.size() - e.size() + i];
                        x = x == 1 ? e[i] : x;
                    }
                }
                const fusebox::data_type t0 = in[0].get_data_type();
                out = fusebox::logical_tensor(
                    out.get_id(), fbref::reference_type(o, t0, in.size() == 2 ? in[1].get_data_type() : t0), d);
            }
            memory::data_type t;
            for (const auto &lt : in)
                if (!to_dnnl(lt.get_data_type(), t))
                    return why = "direct oneDNN reference handles f32/bf16/f16 only", nullptr;
            if (!to_dnnl(out.get_data_type(), t))
                return why = "direct oneDNN reference handles f32/bf16/f16 only", nullptr;
            if (out.get_dims().empty()) return why = "direct oneDNN reference needs rank >= 1", nullptr;
            // The op on its main operand: a unary op (an eltwise primitive or
            // post-op), oneDNN's binary op with src_0 at the output's shape
            // (a binary primitive or post-op), or a binary op with a
            // one-element f32 constant: a binary primitive on it where the
            // constant is src_1, and as a post-op eltwise_linear, which
            // computes x + c, x - c, c - x and x c exactly. Pow by such a
            // constant is oneDNN's eltwise_pow.
            const auto foldable = [&](size_t id) { return made_by.count(id) && readers[id] == 1 && !given.count(id); };
            size_t main = 0;
            std::optional<eltwise> unary;
            std::optional<dnnl::algorithm> binary;
            if (in.size() == 1) {
                if (!(unary = eltwise_of(o)))
                    return why = std::string("oneDNN has no eltwise algorithm for ") +
                                 fusebox::op_kind_name(o.get_kind()),
                           nullptr;
            } else {
                const auto scalar = [&](size_t i) {
                    return in[i].get_data_type() == fusebox::data_type::f32 && fbref::numel(in[i].get_dims()) == 1 &&
                           given.count(in[i].get_id()) && !made_by.count(in[i].get_id()) &&
                           in[1 - i].get_dims() == out.get_dims();
                };
                const auto c = [&](size_t i) { return *static_cast<const float *>(values.at(in[i].get_id())->data()); };
                const kind k = o.get_kind();
                if ((k == kind::Add || k == kind::Subtract || k == kind::Multiply) && (scalar(0) || scalar(1))) {
                    const size_t ci = scalar(1) ? 1 : 0;
                    main = 1 - ci;
                    // (x c + -0 keeps the sign of a zero product.)
                    unary = k == kind::Add        ? eltwise{dnnl::algorithm::eltwise_linear, 1, c(ci)}
                            : k == kind::Multiply ? eltwise{dnnl::algorithm::eltwise_linear, c(ci), -0.f}
                            : ci == 1             ? eltwise{dnnl::algorithm::eltwise_linear, 1, -c(ci)}
                                                  : eltwise{dnnl::algorithm::eltwise_linear, -1, c(ci)};
                    if (ci == 1 || k != kind::Subtract) binary = binary_of(k);
                } else if (k == kind::Pow && scalar(1)) { // a constant exponent: oneDNN's x^beta
                    unary = eltwise{dnnl::algorithm::eltwise_pow, 1, c(1)};
                } else {
                    if (!(binary = binary_of(k)))
                        return why = std::string("oneDNN has no binary algorithm for ") + fusebox::op_kind_name(k),
                               nullptr;
                    const bool at0 = in[0].get_dims() == out.get_dims(), at1 = in[1].get_dims() == out.get_dims();
                    if (!at0 && (!commutes(k) || !at1))
                        return why = "oneDNN's binary op needs src_0 at the output's shape", nullptr;
                    if (commutes(k) && at1 && (!at0 || (foldable(in[1].get_id()) && !foldable(in[0].get_id()))))
                        main = 1;
                }
            }
            const size_t m = in[main].get_id();
            const auto other = in.size() == 2 ? value(in[1 - main]) : nullptr;
            // Folded into the step that writes the main operand when nothing
            // else reads that value.
            const auto fold = [&] {
                if (!foldable(m)) return false;
                int at = made_by.at(m);
                if (!unary) { // the other operand ready first: the step moves after the one writing it
                    const auto o_at = made_by.find(in[1 - main].get_id());
                    if (o_at != made_by.end() && o_at->second > at) {
                        const int to = o_at->second; // nothing in between reads the step's value (one reader)
                        std::rotate(steps.begin() + at, steps.begin() + at + 1, steps.begin() + to + 1);
                        std::rotate(prims.begin() + at, prims.begin() + at + 1, prims.begin() + to + 1);
                        for (auto &[id, k] : made_by) k = k == at ? to : k > at && k <= to ? k - 1 : k;
                        at = to;
                    }
                }
                step folded = steps[at];
                if (unary) {
                    // Not an algorithm the step already has: oneDNN 2.6's JIT
                    // binary gave a second linear post-op the first one's
                    // alpha and beta (S2's 1 + tanh(..) came out as 0.798 tanh(..)).
                    for (const auto &q : folded.posts)
                        if (q && q->alg == unary->alg) return false;
                    folded.posts.push_back(unary);
                } else {
                    folded.posts.push_back(std::nullopt), folded.post_srcs.emplace_back(*binary, other);
                }
                folded.dst = value(out);
                try {
                    // Not where oneDNN would leave its JIT for its reference
                    // code (2.6's eltwise takes post-ops only there).
                    if (!folded.binary && !eltwise_fits(folded)) return false;
                    built b = build(folded, eng);
                    if (b.impl.rfind("ref", 0) == 0) return false;
                    prims[at] = std::move(b);
                } catch (const dnnl::error &) {
                    return false; // oneDNN has no such post-op here: a primitive of its own
                }
                steps[at] = folded, made_by[out.get_id()] = at;
                return true;
            };
            if (fold()) continue;
            // A primitive of its own: binary where oneDNN has a JIT for it (a
            // one-element src_1 has none in 2.6), else eltwise.
            step s;
            s.src0 = value(in[main]), s.dst = value(out);
            if (binary)
                s.binary = binary, s.src1 = other;
            else
                s.unary = *unary;
            if (!binary && !eltwise_fits(s))
                return why = "oneDNN's eltwise writes its input's type and layout, not " + o.get_name() + "'s output's",
                       nullptr;
            built b = build(s, eng);
            step e = s;
            e.binary.reset(), e.src1 = nullptr;
            if (binary && unary && b.impl.rfind("ref", 0) == 0 && (e.unary = *unary, eltwise_fits(e)))
                s = e, b = build(s, eng);
            prims.push_back(std::move(b));
            steps.push_back(s);
            made_by[out.get_id()] = static_cast<int>(steps.size() - 1);
        }
    } catch (const dnnl::error &e) {
        return why = std::string("oneDNN rejected the case: ") + e.what(), nullptr;
    }
    auto p = std::make_unique<direct_primitive>();
    p->impl = "dnnl-direct:";
    for (size_t i = 0; i < prims.size(); ++i) p->impl += (i ? "|" : "") + prims[i].impl;
    auto plan = std::make_shared<std::vector<built>>(std::move(prims));
    auto strm = std::make_shared<dnnl::stream>(eng);
    auto keep = std::make_shared<std::vector<step>>(std::move(steps)); // the buffers the primitives use
    p->run = [plan, strm, keep] {
        for (auto &b : *plan) b.prim.execute(*strm, b.args);
        strm->wait();
    };
    return p;
}

} // namespace fbbench
