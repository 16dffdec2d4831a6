// Fusion never changes results: random Add/Equal graphs (random shapes with
// broadcasting, random types within the rules, chains, trees, values read by
// two ops of one partition, End on intermediates) give the same bits fused
// and op by op; so do random graphs over the whole op catalogue, which also
// equal the reference.
#include <gtest/gtest.h>

#include <set>

#include "graph_runner.hpp"
#include "interface/dtype.hpp"
#include "ops/elementwise.hpp"

namespace {

using namespace fbt;

struct value {
    size_t id;
    dt type;
    dims shape;
};

class random_graph {
public:
    explicit random_graph(uint64_t seed) : rng_(seed) {}

    std::mt19937_64 rng_;
    std::vector<value> inputs, values; // graph inputs; every tensor
    std::vector<op> ops;
    std::vector<size_t> ends;

    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

    value new_input(dt type, dims shape) {
        value v{next_id_++, type, std::move(shape)};
        inputs.push_back(v);
        values.push_back(v);
        return v;
    }

    // A shape that broadcasts with `s`: some dims kept, some set to 1, some
    // leading dims dropped, and (growth) some size-1 dims of `s` expanded.
    dims partner_shape(const dims &s) {
        dims p = s;
        for (auto &d : p) {
            int r = uniform(0, 9);
            if (r < 3)
                d = 1;
            else if (d == 1 && r == 9)
                d = uniform(2, 3);
        }
        int drop = uniform(0, 9) < 3 ? uniform(0, static_cast<int>(p.size())) : 0;
        p.erase(p.begin(), p.begin() + drop);
        if (drop == 0 && uniform(0, 9) == 0 && p.size() < 5) p.insert(p.begin(), uniform(2, 3)); // grows the rank
        return p;
    }

    void build(bool large) {
        const dt add_types[] = {dt::f32, dt::f32, dt::f32, dt::bf16, dt::f16, dt::f64, dt::s8,
                                dt::u8,  dt::s16, dt::u16, dt::s32,  dt::u32, dt::s64, dt::u64};
        const dt eq_only[] = {dt::boolean, dt::string};
        dims base;
        const int rank = uniform(0, 4);
        for (int i = 0; i < rank; ++i) base.push_back(uniform(1, 5));
        if (large) base = {uniform(40, 80), 8, uniform(100, 300)};
        const bool start_eq_only = uniform(0, 9) == 0;
        value cur = new_input(start_eq_only ? eq_only[uniform(0, 1)] : add_types[uniform(0, 13)], base);
        const int n_ops = uniform(1, 7);
        for (int k = 0; k < n_ops; ++k) {
            // Mostly extend the chain; sometimes start a side branch from any value (fan-out, trees).
            value x = uniform(0, 4) == 0 ? values[uniform(0, static_cast<int>(values.size()) - 1)] : cur;
            const bool can_add = x.type != dt::boolean && x.type != dt::string;
            const op::kind kind = can_add && uniform(0, 3) != 0 ? op::kind::Add : op::kind::Equal;
            dt other = x.type;
            if (kind == op::kind::Add && x.type == dt::f32 && uniform(0, 3) == 0)
                other = uniform(0, 1) ? dt::bf16 : dt::f16;
            if (kind == op::kind::Add && (x.type == dt::bf16 || x.type == dt::f16) && uniform(0, 3) == 0)
                other = dt::f32;
            value y{0, dt::undef, {}};
            if (uniform(0, 9) < 2 && x.type != dt::string) {
                // Reuse an existing value of the right type when shapes broadcast.
                for (const auto &v : values)
                    if (v.type == other && v.id != x.id && uniform(0, 1) && compatible(x.shape, v.shape)) y = v;
            }
            if (y.type == dt::undef) y = new_input(other, partner_shape(x.shape));
            const bool swap = uniform(0, 1);
            const value &a = swap ? y : x, &b = swap ? x : y;
            dt out = kind == op::kind::Equal ? dt::boolean : (a.type == b.type ? a.type : dt::f32);
            value r{next_id_++, out, numpy_broadcast(a.shape, b.shape)};
            ops.emplace_back(ops.size(), kind, std::vector<logical_tensor>{lt(a), lt(b)},
                             std::vector<logical_tensor>{logical_tensor(r.id, out, logical_tensor::layout_type::any)});
            values.push_back(r);
            if (uniform(0, 9) == 0) ends.push_back(r.id);
            cur = r;
        }
    }

    static bool compatible(const dims &a, const dims &b) {
        for (size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
            int64_t x = a[a.size() - i], y = b[b.size() - i];
            if (x != y && x != 1 && y != 1) return false;
        }
        return true;
    }

    static logical_tensor lt(const value &v) { return logical_tensor(v.id, v.type, v.shape); }

    graph make_graph() const {
        graph g(engine::kind::cpu);
        for (const op &o : ops) g.add_op(o);
        size_t id = ops.size();
        for (size_t e : ends)
            for (const auto &v : values)
                if (v.id == e) g.add_op(op(id++, op::kind::End, {lt(v)}, {}));
        g.finalize();
        return g;
    }

private:
    size_t next_id_ = 0;
};

// Fused partitions in which a value computed inside is read by two of its ops
// (a DAG, not a tree): the generator's side branches reach them.
size_t dag_partitions(const std::vector<partition> &parts, const std::vector<op> &ops) {
    size_t count = 0;
    for (const partition &p : parts) {
        if (!p.is_supported() || p.get_ops_num() < 2) continue;
        std::set<size_t> produced;
        std::map<size_t, int> reads;
        for (size_t id : p.get_ops())
            for (const op &o : ops)
                if (o.get_id() == id) {
                    produced.insert(o.get_outputs()[0].get_id());
                    for (const auto &in : o.get_inputs()) ++reads[in.get_id()];
                }
        count += std::any_of(reads.begin(), reads.end(),
                             [&](const auto &r) { return r.second > 1 && produced.count(r.first); });
    }
    return count;
}

void check_graph(uint64_t seed, bool large, size_t &fused_ops, size_t *dags = nullptr) {
    random_graph rg(seed);
    rg.build(large);
    std::map<size_t, std::shared_ptr<buffer>> fused, debug;
    for (const value &v : rg.inputs) {
        auto b = std::make_shared<buffer>(random_graph::lt(v));
        fill(*b, rg.rng_);
        fused[v.id] = debug[v.id] = b;
    }
    graph g = rg.make_graph();
    if (dags) *dags += dag_partitions(g.get_partitions(), rg.ops);
    std::vector<std::string> impls;
    run_graph(g, partition::policy::fusion, fused, &impls);
    run_graph(g, partition::policy::debug, debug);
    fused_ops += rg.ops.size() - impls.size();
    for (const auto &[id, b] : fused) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", tensor " + std::to_string(id));
        ASSERT_TRUE(same_elements(*debug.at(id), *b));
    }
}

// Random graphs over every row of the op catalogue: each op takes the value
// built so far (or an earlier one) and new inputs the row's rules accept —
// types, input counts, broadcast shapes, a channel bias, a one-way slope or
// condition, the attributes the row needs.
class catalogue_graph {
public:
    explicit catalogue_graph(uint64_t seed) : rng(seed) {}

    std::mt19937_64 rng;
    std::vector<value> inputs, values;
    std::vector<op> ops;
    bool has_inexact = false;

    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

    value input(dt type, dims shape) {
        value v{next_id_++, type, std::move(shape)};
        inputs.push_back(v);
        values.push_back(v);
        return v;
    }

    // A shape that broadcasts one way to `s` (dims set to 1, leading dims dropped).
    dims one_way(const dims &s) {
        dims p = s;
        for (auto &d : p)
            if (uniform(0, 2) == 0) d = 1;
        p.erase(p.begin(), p.begin() + uniform(0, static_cast<int>(p.size())));
        return p;
    }
    // A shape that broadcasts with `s` both ways (dims of `s` of extent 1 may grow).
    dims partner(const dims &s) {
        dims p = one_way(s);
        for (size_t i = 0; i < p.size(); ++i)
            if (s[s.size() - p.size() + i] == 1 && uniform(0, 3) == 0) p[i] = 2;
        return p;
    }

    dt pick(detail::type_set set) {
        std::vector<dt> ok;
        for (int i = 0; i < detail::kNumDataTypes; ++i)
            if (set & detail::type_bit(detail::data_type_at(i))) ok.push_back(detail::data_type_at(i));
        return ok[static_cast<size_t>(uniform(0, static_cast<int>(ok.size()) - 1))];
    }

    void build() {
        const auto &rows = detail::elementwise_ops();
        dims base;
        for (int i = uniform(0, 3); i-- > 0;) base.push_back(uniform(1, 6));
        const auto &first = rows[static_cast<size_t>(uniform(0, static_cast<int>(rows.size()) - 1))];
        value cur = input(pick(first.types), base);
        for (int k = uniform(1, 6); k-- > 0;) {
            const value x =
                uniform(0, 4) == 0 ? values[static_cast<size_t>(uniform(0, static_cast<int>(values.size()) - 1))] : cur;
            // Rows that take x's type (as the values of a selection, the base of Pow).
            std::vector<const detail::elementwise_def *> fit;
            for (const auto &d : rows)
                if ((d.types & detail::type_bit(x.type)) &&
                    !(d.shapes == detail::shape_rule::channel && x.shape.empty()) &&
                    !(d.kind == op::kind::Mod && (x.type == dt::string || x.type == dt::boolean)))
                    fit.push_back(&d);
            if (fit.empty()) break;
            const auto &d = *fit[static_cast<size_t>(uniform(0, static_cast<int>(fit.size()) - 1))];
            const int n = std::min(uniform(d.inputs_min, std::min(d.inputs_max, 4)), d.inputs_max);
            std::vector<value> in;
            dims out = x.shape;
            auto grow = [&](const dims &s) { out = numpy_broadcast(out, s); };
            if (d.rule == detail::type_rule::select) {
                const dims values_shape =
                    d.shapes == detail::shape_rule::condition_one_way ? x.shape : partner(x.shape);
                in.push_back(input(dt::boolean, d.shapes == detail::shape_rule::condition_one_way ? one_way(x.shape)
                                                                                                  : partner(x.shape)));
                const bool x_first = uniform(0, 1);
                const value other = input(x.type, values_shape);
                in.push_back(x_first ? x : other);
                in.push_back(x_first ? other : x);
                for (const value &v : in) grow(v.shape);
            } else {
                in.push_back(x);
                for (int j = 1; j < n; ++j) {
                    dt t = x.type;
                    if (d.rule == detail::type_rule::exponent) t = pick(detail::elementwise_ops()[0].types); // numeric
                    if (d.shapes == detail::shape_rule::scalars) { // Clip's min, max
                        in.push_back(input(t, uniform(0, 1) ? dims{} : dims{1}));
                    } else if (d.shapes == detail::shape_rule::channel) {
                        in.push_back(input(t, {x.shape.back()}));
                    } else if (d.shapes == detail::shape_rule::slope) {
                        in.push_back(input(t, one_way(x.shape)));
                    } else {
                        in.push_back(input(t, partner(x.shape)));
                        grow(in.back().shape);
                    }
                }
                // The first input need not be x (commuted order), where the rule allows it.
                if (n == 2 && d.shapes == detail::shape_rule::numpy && d.rule != detail::type_rule::exponent &&
                    uniform(0, 1))
                    std::swap(in[0], in[1]);
            }
            dt out_type = in[0].type;
            if (d.rule == detail::type_rule::same_to_bool) out_type = dt::boolean;
            if (d.rule == detail::type_rule::select) out_type = in[1].type;
            if (d.rule == detail::type_rule::cast) out_type = pick(d.types); // the target: the declared output type
            std::vector<logical_tensor> ports;
            for (const value &v : in) ports.push_back(lt(v));
            value r{next_id_++, out_type, out};
            op o(ops.size(), d.kind, ports,
                 {logical_tensor(r.id, d.rule == detail::type_rule::cast ? out_type : dt::undef,
                                 logical_tensor::layout_type::any)});
            set_unary_attributes(o, d, x.type, n);
            has_inexact = has_inexact || (x.type == dt::f64 && fbref::ref_is_approximate(d.kind));
            if (d.has_attr(op::attr::fmod))
                o.set_attr(op::attr::fmod, int64_t{x.type == dt::f16 || x.type == dt::bf16 || x.type == dt::f32 ||
                                                   x.type == dt::f64 || uniform(0, 1)});
            if (d.has_attr(op::attr::direction))
                o.set_attr(op::attr::direction, std::string(uniform(0, 1) ? "LEFT" : "RIGHT"));
            if (d.has_attr(op::attr::beta) && n == 1) o.set_attr(op::attr::beta, uniform(0, 1) ? 2.0f : -0.5f);
            has_inexact = has_inexact || (d.kind == op::kind::Pow && x.type == dt::f64);
            ops.push_back(std::move(o));
            values.push_back(r);
            cur = r;
        }
    }

    // The attributes of the unary rows: defaults left out half the time.
    void set_unary_attributes(op &o, const detail::elementwise_def &d, dt t, int n) {
        auto maybe = [&](op::attr a, float v) {
            if (d.has_attr(a) && uniform(0, 1)) o.set_attr(a, v);
        };
        switch (d.kind) {
        case op::kind::LeakyReLU:
        case op::kind::Elu: maybe(op::attr::alpha, uniform(0, 1) ? 0.3f : -1.5f); break;
        case op::kind::Selu: maybe(op::attr::alpha, 1.5f), maybe(op::attr::gamma, 0.75f); break;
        case op::kind::HardSigmoid: maybe(op::attr::alpha, 0.3f), maybe(op::attr::beta, 0.25f); break;
        case op::kind::SoftPlus: maybe(op::attr::beta, uniform(0, 1) ? 2.0f : -1.0f); break;
        case op::kind::GELU:
            if (uniform(0, 1)) o.set_attr(op::attr::mode, std::string(uniform(0, 1) ? "gelu_erf" : "gelu_tanh"));
            break;
        case op::kind::IsInf:
            if (uniform(0, 1)) o.set_attr(op::attr::detect_positive, int64_t{uniform(0, 1)});
            if (uniform(0, 1)) o.set_attr(op::attr::detect_negative, int64_t{uniform(0, 1)});
            break;
        case op::kind::Clamp:
            o.set_attr(op::attr::min, uniform(0, 1) ? -1.0f : 0.5f);
            o.set_attr(op::attr::max, uniform(0, 1) ? 2.0f : 0.25f); // min > max: max
            break;
        case op::kind::Clip:
            if (n == 1 && (t == dt::f16 || t == dt::bf16 || t == dt::f32 || t == dt::f64))
                maybe(op::attr::min, -0.5f), maybe(op::attr::max, 3.0f);
            break;
        default: break;
        }
    }

    static logical_tensor lt(const value &v) { return logical_tensor(v.id, v.type, v.shape); }

private:
    size_t next_id_ = 0;
};

void check_catalogue_graph(uint64_t seed, size_t &fused_ops, std::set<op::kind> &kinds) {
    catalogue_graph cg(seed);
    cg.build();
    std::map<size_t, std::shared_ptr<buffer>> fused, debug, ref;
    for (const value &v : cg.inputs) {
        auto b = std::make_shared<buffer>(catalogue_graph::lt(v));
        fill(*b, cg.rng);
        fused[v.id] = debug[v.id] = ref[v.id] = b;
    }
    graph g(engine::kind::cpu);
    for (const op &o : cg.ops) g.add_op(o);
    g.finalize();
    for (const op &o : cg.ops) kinds.insert(o.get_kind());
    std::vector<std::string> impls;
    run_graph(g, partition::policy::fusion, fused, &impls);
    run_graph(g, partition::policy::debug, debug);
    reference_graph(cg.ops, ref);
    fused_ops += cg.ops.size() - impls.size();
    for (const auto &[id, b] : fused) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", tensor " + std::to_string(id));
        ASSERT_TRUE(same_elements(*debug.at(id), *b));
        // (f64 Pow and f64 transcendental ops are within ulps of the reference,
        // and later ops may grow that: unary_ops_test checks them one by one.)
        if (!cg.has_inexact) {
            ASSERT_TRUE(same_elements(*ref.at(id), *b, ref_max_ulp(cg.ops)));
        }
    }
}

TEST(fusion_differential, catalogue_graphs_fused_equal_debug_and_the_reference_on_3000_graphs) {
    size_t fused_ops = 0;
    std::set<op::kind> kinds;
    for (const char *mode : {"native", "auto"}) {
        kernel_env env(mode);
        for (uint64_t seed = 0; seed < 1500; ++seed) check_catalogue_graph(seed, fused_ops, kinds);
    }
    EXPECT_GT(fused_ops, 1500u);
    for (const auto &d : detail::elementwise_ops()) EXPECT_TRUE(kinds.count(d.kind)) << op_kind_name(d.kind);
}

TEST(fusion_differential, fused_equals_debug_on_600_small_random_graphs) {
    size_t fused_ops = 0, dags = 0;
    for (uint64_t seed = 0; seed < 600; ++seed) check_graph(seed, false, fused_ops, &dags);
    EXPECT_GT(fused_ops, 600u); // the generator does produce fused partitions
    EXPECT_GT(dags, 30u);       // ... and partitions reading a value of their own twice (42 of them)
}

TEST(fusion_differential, fused_equals_debug_on_large_random_graphs) {
    // Large enough that chunks run in parallel and oneDNN is considered.
    size_t fused_ops = 0;
    for (uint64_t seed = 1000; seed < 1040; ++seed) check_graph(seed, true, fused_ops);
    EXPECT_GT(fused_ops, 20u);
}

TEST(fusion_differential, holds_for_every_kernel_choice) {
    for (const char *mode : {"native", "auto"}) {
        kernel_env env(mode);
        size_t fused_ops = 0;
        for (uint64_t seed = 2000; seed < 2100; ++seed) check_graph(seed, seed % 10 == 0, fused_ops);
    }
}

} // namespace
