// Fusion rule: an op fusebox runs joins the partition of the op producing
// one of its inputs when that producer is fusible too and the tensor is
// consumed by this op alone and is not a graph output (no End, not a leaf).
// Then, to a fixed point, a producer whose output several ops read joins
// their partition when all of them are in one (GELU's x, read by Div and
// Mul): a partition is a DAG of elementwise ops evaluated in one pass, with
// one output, its root. No tensor inside a partition is read outside it, so a
// framework op that reads a tensor keeps that tensor materialized, and no
// cycle can pass through the framework.
//
// Partitions come in the order of their last op. That order is a valid
// schedule: every input of a partition is produced by the root (last op) of
// an earlier partition, since an op inside a partition has no outside consumer.
#include "partition/partitioner.hpp"

#include <algorithm>
#include <map>
#include <numeric>

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

    // region[i]: index of the op whose partition op i belongs to (union-find).
    std::vector<size_t> region(ops.size());
    std::iota(region.begin(), region.end(), 0);
    auto find = [&](size_t i) {
        while (region[i] != i) i = region[i] = region[region[i]];
        return i;
    };
    if (p == partition::policy::fusion) {
        for (size_t j = 0; j < ops.size(); ++j) {
            if (!fusible(ops[j])) continue;
            for (const auto &lt : ops[j].get_inputs()) {
                auto prod = producer.find(lt.get_id());
                if (prod == producer.end() || !fusible(ops[prod->second])) continue;
                const auto &users = consumers[lt.get_id()];
                if (std::all_of(users.begin(), users.end(), [&](size_t u) { return u == j; }))
                    region[find(prod->second)] = find(j);
            }
        }
        // A region may read one of its tensors twice only if every read of a
        // tensor produced inside it is right-aligned.
        std::map<size_t, bool> aligned; // region root -> every inside read right-aligned
        auto region_aligned = [&](size_t root) {
            if (auto it = aligned.find(root); it != aligned.end()) return it->second;
            bool ok = true;
            for (size_t i = 0; i < ops.size() && ok; ++i) {
                if (find(i) != root) continue;
                const auto &in = ops[i].get_inputs();
                for (size_t k = 0; k < in.size() && ok; ++k)
                    if (auto prod = producer.find(in[k].get_id()); prod != producer.end() && find(prod->second) == root)
                        ok = right_aligned(ops[i], k);
            }
            return aligned[root] = ok;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t i = ops.size(); i-- > 0;) {
                if (!fusible(ops[i]) || ops[i].get_outputs().size() != 1) continue;
                const auto &users = consumers[ops[i].get_outputs()[0].get_id()];
                if (users.size() < 2) continue; // one reader: the rule above; none: a graph output
                const size_t target = find(users[0]);
                if (find(i) == target) continue;
                bool ok = true;
                for (size_t u : users) ok = ok && fusible(ops[u]) && find(u) == target;
                for (const auto &[u, k] : reads[ops[i].get_outputs()[0].get_id()]) ok = ok && right_aligned(ops[u], k);
                if (!ok || !region_aligned(target) || !region_aligned(find(i))) continue;
                aligned.erase(target), aligned.erase(find(i));
                region[find(i)] = target;
                changed = true;
            }
        }
    }

    // Build partitions in the order of their roots (the last op of each region).
    std::map<size_t, std::vector<size_t>> members;                         // root -> op indices in execution order
    for (size_t i = 0; i < ops.size(); ++i) members[find(i)].push_back(i); // End too: unsupported, alone
    std::vector<partition_impl> result;
    for (const auto &[root, idx] : members) {
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
        part.outputs = ops[root].get_outputs();
        if (part.supported) part.signature = signature(part);
        result.push_back(std::move(part));
    }
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
