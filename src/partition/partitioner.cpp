// Fusion rule: an op fusebox runs joins the partition of the op producing
// one of its inputs when that producer is fusible too and the tensor is
// consumed by this op alone and is not a graph output (no End, not a leaf).
// Then, to a fixed point, a producer whose output several ops read joins
// their partition when all of them are in one (GELU's x, read by Div and
// Mul), or, when some of its readers are elsewhere (a framework op, End,
// another partition), the partition of one of its fusible readers, its
// output becoming one more output port of that partition (a residual sum
// the framework also reads). A partition is a DAG of elementwise ops
// evaluated in one pass; its outputs are the tensors it produces that are
// read outside it or by nothing, all of one shape (the iteration space), the
// last op's first.
//
// Every partition reading a tensor of another (End aside) comes after that
// one's last op: a merge that would break this is not made. Partitions in
// the order of their last ops are then a schedule, with no cycle through the
// framework; they are returned in that order, each End once its input is
// produced.
#include "partition/partitioner.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>

#include "common/errors.hpp"
#include "common/verbose.hpp"
#include "interface/dump.hpp"
#include "interface/handles.hpp"
#include "interface/op_schema.hpp"
#include "interface/signature.hpp"
#include "ops/elementwise.hpp"

namespace fusebox {
namespace detail {
namespace {

bool fusible(const op &o) { return runs_op(o); }

// Whether input k of `o`, when produced inside a partition, lines its dims up
// with o's output from the right, as numpy does. The exceptions (ONNX's
// legacy axis, a 1-D bias or slope on the channel dim) place it by attribute;
// a partition holding a tensor read twice fuses only right-aligned reads, so
// that both readers place its dims alike whatever the shapes at compile.
bool right_aligned(const op &o, size_t k) {
    if (k != 1) return true;
    if (read_broadcast_rule(o).k == broadcast_rule::kind::legacy_unidirectional) return false;
    const shape_rule r = find_elementwise(o.get_kind())->shapes;
    return r != shape_rule::channel && r != shape_rule::slope;
}

// Ops, attributes, tensor ids/types, math mode and the port descriptors that
// compile checks given tensors against.
std::string signature(const partition_impl &part) {
    signature_builder b;
    b.num(static_cast<int>(part.math));
    for (const op &o : part.ops) {
        b.num(static_cast<int>(o.get_kind()));
        for (const auto &[a, v] : o.get_attrs()) b.num(static_cast<int>(a)).attr(v);
        for (const auto *list : {&o.get_inputs(), &o.get_outputs()})
            for (const auto &t : *list)
                b.num(static_cast<int64_t>(t.get_id())).num(static_cast<int>(t.get_data_type()));
        b.s.push_back('|');
    }
    for (const auto *ports : {&part.inputs, &part.outputs})
        for (const auto &t : *ports) b.tensor(t);
    return std::move(b.s);
}

void add_unique(std::vector<logical_tensor> &list, const logical_tensor &lt) {
    if (std::none_of(list.begin(), list.end(), [&](const logical_tensor &x) { return x.get_id() == lt.get_id(); }))
        list.push_back(lt);
}

} // namespace

std::vector<partition_impl> find_partitions(const graph_impl &g, partition::policy p) {
    const std::vector<op> &ops = g.ops;
    std::map<size_t, size_t> producer;                              // tensor id -> op index
    std::map<size_t, std::vector<size_t>> consumers;                // tensor id -> op indices, one per use
    std::map<size_t, std::vector<std::pair<size_t, size_t>>> reads; // tensor id -> (op, input) per use
    for (size_t i = 0; i < ops.size(); ++i) {
        for (const auto &lt : ops[i].get_outputs()) producer[lt.get_id()] = i;
        for (size_t k = 0; k < ops[i].get_inputs().size(); ++k) {
            consumers[ops[i].get_inputs()[k].get_id()].push_back(i);
            reads[ops[i].get_inputs()[k].get_id()].emplace_back(i, k);
        }
    }

    // region[i]: index of the op whose partition op i belongs to (union-find),
    // the last op of the region: the one producing its main output.
    std::vector<size_t> region(ops.size());
    std::iota(region.begin(), region.end(), 0);
    auto find = [&](size_t i) {
        while (region[i] != i) i = region[i] = region[region[i]];
        return i;
    };
    // members[r]: the ops of the region whose last op is r.
    std::vector<std::vector<size_t>> members(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) members[i] = {i};
    auto unite = [&](size_t a, size_t b) {
        a = find(a), b = find(b);
        if (a == b) return; // (an op reading one tensor twice: x + x)
        const size_t lo = std::min(a, b), hi = std::max(a, b);
        region[lo] = hi;
        members[hi].insert(members[hi].end(), members[lo].begin(), members[lo].end());
        members[lo].clear();
    };
    auto readers = [&](const logical_tensor &lt) -> const std::vector<size_t> & {
        static const std::vector<size_t> none;
        auto it = consumers.find(lt.get_id());
        return it == consumers.end() ? none : it->second;
    };
    // The same reads with the input each one is.
    auto reads_of = [&](const logical_tensor &lt) -> const std::vector<std::pair<size_t, size_t>> & {
        static const std::vector<std::pair<size_t, size_t>> none;
        auto it = reads.find(lt.get_id());
        return it == reads.end() ? none : it->second;
    };
    if (p == partition::policy::fusion) {
        for (size_t j = 0; j < ops.size(); ++j) {
            if (!fusible(ops[j])) continue;
            for (const auto &lt : ops[j].get_inputs()) {
                auto prod = producer.find(lt.get_id());
                if (prod == producer.end() || !fusible(ops[prod->second])) continue;
                const auto &users = readers(lt);
                if (std::all_of(users.begin(), users.end(), [&](size_t u) { return u == j; })) unite(prod->second, j);
            }
        }
        // misaligned[r]: region r reads a tensor produced inside it other
        // than right-aligned (rule 1 fuses such reads; such a region takes no
        // more producers by the rules below).
        std::vector<char> misaligned(ops.size(), 0);
        for (size_t i = 0; i < ops.size(); ++i) {
            const auto &in = ops[i].get_inputs();
            for (size_t k = 0; k < in.size(); ++k)
                if (auto prod = producer.find(in[k].get_id());
                    prod != producer.end() && find(prod->second) == find(i) && !right_aligned(ops[i], k))
                    misaligned[find(i)] = 1;
        }
        // Whether tensor y has the shape of tensor x whatever dims are left
        // unknown at partition time (a symbolic batch): both known and equal,
        // or y made from x by ops fusebox runs whose other inputs are single
        // elements of no higher rank (ReLU(x), Pow(x, 2), x * 0.5).
        std::function<bool(const logical_tensor &, const logical_tensor &, int)> same_shape =
            [&](const logical_tensor &x, const logical_tensor &y, int depth) {
                if (x.get_id() == y.get_id()) return true;
                if (x.has_known_shape() && y.has_known_shape()) return x.get_dims() == y.get_dims();
                auto prod = producer.find(y.get_id());
                if (depth == 0 || prod == producer.end() || !fusible(ops[prod->second])) return false;
                const auto &in = ops[prod->second].get_inputs();
                auto single = [](const logical_tensor &t, int32_t rank) { // one element, rank <= `rank`
                    if (t.get_ndims() < 0 || t.get_ndims() > rank) return false;
                    const auto &d = t.get_dims();
                    return std::all_of(d.begin(), d.end(), [](int64_t v) { return v == 1; });
                };
                for (size_t k = 0; k < in.size(); ++k) {
                    bool others_single = in[k].get_ndims() >= 0;
                    for (size_t j = 0; j < in.size() && others_single; ++j)
                        others_single = j == k || single(in[j], in[k].get_ndims());
                    if (others_single && same_shape(x, in[k], depth - 1)) return true;
                }
                return false;
            };
        // Whether regions a and b can be one partition. Every region already
        // holds what is checked here (a single op trivially; a union because
        // it was checked), and a region's last op only moves later, so only
        // the ops of the region that stops being last (`early`) are walked,
        // against the other (`late`, whose last op is the union's):
        // - every read between them is right-aligned (and neither region
        //   reads its own tensors otherwise);
        // - the tensors of `early` read outside the union or by nothing have
        //   the shape of the union's output (one pass produces them all);
        // - every partition reading a tensor of `early` (End aside) comes
        //   after the union's last op. Partitions then run in the order of
        //   their last ops, End ones once their input is there: no path can
        //   leave a partition and come back into it, through the framework
        //   or through another partition.
        // Walking only `early` keeps a chain growing one op at a time linear.
        auto can_unite = [&](size_t a, size_t b) {
            const size_t early = std::min(a, b), late = std::max(a, b);
            if (misaligned[early] || misaligned[late]) return false;
            const logical_tensor &root = ops[late].get_outputs()[0];
            for (size_t i : members[early]) {
                const auto &in = ops[i].get_inputs();
                for (size_t k = 0; k < in.size(); ++k)
                    if (auto prod = producer.find(in[k].get_id());
                        prod != producer.end() && find(prod->second) == late && !right_aligned(ops[i], k))
                        return false;
                for (const auto &lt : ops[i].get_outputs()) {
                    const auto &uses = reads_of(lt);
                    bool leaves = uses.empty();
                    for (const auto &[u, k] : uses) {
                        const size_t ru = find(u);
                        if (ru == late && !right_aligned(ops[u], k)) return false;
                        if (ru == early || ru == late) continue;
                        leaves = true;
                        if (ru < late && !ops[u].get_outputs().empty()) return false;
                    }
                    if (leaves && !same_shape(lt, root, 8)) return false;
                }
            }
            return true;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t i = ops.size(); i-- > 0;) {
                if (!fusible(ops[i]) || ops[i].get_outputs().size() != 1) continue;
                const logical_tensor &t = ops[i].get_outputs()[0];
                const auto &users = readers(t);
                const size_t from = find(i);
                // The regions of its fusible readers, each tried in turn.
                std::vector<size_t> targets;
                for (size_t u : users)
                    if (fusible(ops[u]) && find(u) != from &&
                        std::find(targets.begin(), targets.end(), find(u)) == targets.end())
                        targets.push_back(find(u));
                for (size_t target : targets) {
                    if (!can_unite(from, target)) continue;
                    unite(from, target);
                    changed = true;
                    break;
                }
            }
        }
    }

    // Partitions in a topological order: among those whose inputs are all
    // produced, the one whose last op comes first.
    std::map<size_t, std::vector<size_t>> parts;                         // last op -> op indices in execution order
    for (size_t i = 0; i < ops.size(); ++i) parts[find(i)].push_back(i); // End too: unsupported, alone
    std::map<size_t, size_t> waiting;                                    // last op -> partitions it still waits for
    std::map<size_t, std::vector<size_t>> dependents;                    // last op -> partitions reading its tensors
    for (const auto &[root, idx] : parts) {
        std::vector<size_t> from;
        for (size_t i : idx)
            for (const auto &lt : ops[i].get_inputs())
                if (auto prod = producer.find(lt.get_id());
                    prod != producer.end() && find(prod->second) != root &&
                    std::find(from.begin(), from.end(), find(prod->second)) == from.end())
                    from.push_back(find(prod->second));
        waiting[root] = from.size();
        for (size_t f : from) dependents[f].push_back(root);
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (const auto &[root, n] : waiting)
        if (n == 0) ready.push(root);
    std::vector<partition_impl> result;
    while (!ready.empty()) {
        const size_t root = ready.top();
        ready.pop();
        for (size_t d : dependents[root])
            if (--waiting[d] == 0) ready.push(d);
        const std::vector<size_t> &idx = parts[root];
        partition_impl part;
        part.graph_id = g.id;
        part.engine_kind = g.engine_kind;
        part.math = g.math;
        part.supported = fusible(ops[root]);
        std::map<size_t, bool> produced_inside;
        for (size_t i : idx) {
            part.ops.push_back(ops[i]);
            for (const auto &lt : ops[i].get_outputs()) produced_inside[lt.get_id()] = true;
        }
        for (const op &o : part.ops)
            for (const auto &lt : o.get_inputs())
                if (!produced_inside.count(lt.get_id())) add_unique(part.inputs, lt);
        // Outputs: the last op's, then every other tensor read outside.
        part.outputs = ops[root].get_outputs();
        for (size_t i : idx) {
            if (i == root) continue;
            for (const auto &lt : ops[i].get_outputs()) {
                const auto &users = readers(lt);
                if (users.empty() || std::any_of(users.begin(), users.end(), [&](size_t u) { return find(u) != root; }))
                    part.outputs.push_back(lt);
            }
        }
        if (part.supported) part.signature = signature(part);
        result.push_back(std::move(part));
    }
    if (result.size() != parts.size()) fail(status::runtime_error, "get_partitions: partitions form a cycle");
    return result;
}

// The verbose line of a partition as get_partitions returns it.
void log_partition(const partition_impl &p) {
    verbose_line line("partition");
    line.field("cpu").field(static_cast<int64_t>(p.id)).field(verbose_ops(p.ops));
    line.field(verbose_tensors("in", p.inputs)).field(verbose_tensors("out", p.outputs)).field(fpmath_name(p.math));
    if (p.supported)
        line.field("fusebox").field(p.ops.size() == 1 ? "one op" : "fused " + std::to_string(p.ops.size()) + " ops");
    else
        line.field("unsupported").field(std::string("fusebox does not run ") + op_kind_name(p.ops.front().get_kind()));
    line.print();
}

} // namespace detail

using detail::access;
using detail::fail;

std::vector<partition> graph::get_partitions(partition::policy p) {
    if (!impl_->finalized)
        fail(status::invalid_graph, "get_partitions: graph is not finalized (call finalize() first)");
    if (p != partition::policy::fusion && p != partition::policy::debug)
        fail(status::invalid_arguments, "get_partitions: policy value ", static_cast<int>(p), " is not a policy");
    return detail::translate_exceptions("get_partitions", [&] {
        std::vector<partition> result;
        for (auto &region : detail::find_partitions(*impl_, p)) {
            region.id = result.size();
            if (detail::verbose_enabled()) log_partition(region);
            partition part;
            access::impl(part) = std::make_shared<const detail::partition_impl>(std::move(region));
            result.push_back(std::move(part));
        }
        return result;
    });
}

partition::partition(const op &o, engine::kind k) {
    if (k != engine::kind::cpu)
        fail(status::invalid_arguments, "partition: only engine::kind::cpu exists (got kind ", static_cast<int>(k),
             ")");
    detail::validate_op(o);
    detail::graph_impl g;
    g.engine_kind = k;
    g.ops = {detail::access::clone(o)};
    detail::finalize_graph(g);
    auto parts = detail::find_partitions(g, policy::debug);
    impl_ = std::make_shared<const detail::partition_impl>(std::move(parts.at(0)));
}

size_t partition::get_id() const { return impl_ ? impl_->id : 0; }

std::vector<size_t> partition::get_ops() const {
    std::vector<size_t> ids;
    if (impl_)
        for (const op &o : impl_->ops) ids.push_back(o.get_id());
    return ids;
}

size_t partition::get_ops_num() const { return impl_ ? impl_->ops.size() : 0; }
bool partition::is_supported() const { return impl_ && impl_->supported; }
std::vector<logical_tensor> partition::get_input_ports() const {
    return impl_ ? impl_->inputs : std::vector<logical_tensor>{};
}
std::vector<logical_tensor> partition::get_output_ports() const {
    return impl_ ? impl_->outputs : std::vector<logical_tensor>{};
}
engine::kind partition::get_engine_kind() const {
    if (!impl_) fail(status::invalid_arguments, "partition is empty (default-constructed)");
    return impl_->engine_kind;
}

} // namespace fusebox
