// Fusion never changes results: random Add/Equal graphs (random shapes with
// broadcasting, random types within the rules, chains, trees, fan-out, End on
// intermediates) give the same bits fused and op by op.
#include <gtest/gtest.h>

#include "graph_runner.hpp"

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

void check_graph(uint64_t seed, bool large, size_t &fused_ops) {
    random_graph rg(seed);
    rg.build(large);
    std::map<size_t, std::shared_ptr<buffer>> fused, debug;
    for (const value &v : rg.inputs) {
        auto b = std::make_shared<buffer>(random_graph::lt(v));
        fill(*b, rg.rng_);
        fused[v.id] = debug[v.id] = b;
    }
    graph g = rg.make_graph();
    std::vector<std::string> impls;
    run_graph(g, partition::policy::fusion, fused, &impls);
    run_graph(g, partition::policy::debug, debug);
    fused_ops += rg.ops.size() - impls.size();
    for (const auto &[id, b] : fused) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", tensor " + std::to_string(id));
        ASSERT_TRUE(same_elements(*debug.at(id), *b));
    }
}

TEST(fusion_differential, fused_equals_debug_on_600_small_random_graphs) {
    size_t fused_ops = 0;
    for (uint64_t seed = 0; seed < 600; ++seed) check_graph(seed, false, fused_ops);
    EXPECT_GT(fused_ops, 600u); // the generator does produce fused partitions
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
