// Fusion rule: an op joins the partition of the op producing one of its
// inputs when that tensor is consumed by this op alone and is not a graph
// output (no End, not a leaf). Add and Equal are elementwise, so every
// partition is a tree of ops with one output: its root.
#include "partition/partitioner.hpp"

#include "interface/signature.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace fusebox::detail {
namespace {

bool fusible(op::kind k) { return k == op::kind::Add || k == op::kind::Equal; }

// Ops, attributes, tensor ids/types and the port descriptors that compile
// checks given tensors against.
std::string signature(const partition_impl &part) {
    signature_builder b;
    for (const op &o : part.ops) {
        b.num(static_cast<int>(o.get_kind()));
        for (const auto &[a, v] : o.get_attrs()) {
            b.num(static_cast<int>(a));
            if (auto *str = std::get_if<std::string>(&v))
                b.text(*str);
            else if (auto *i = std::get_if<int64_t>(&v))
                b.num(*i);
            else
                for (int64_t x : std::get<std::vector<int64_t>>(v)) b.num(x);
        }
        for (const auto *list : {&o.get_inputs(), &o.get_outputs()})
            for (const auto &t : *list)
                b.num(static_cast<int64_t>(t.get_id())).num(static_cast<int>(t.get_data_type()));
        b.s.push_back('|');
    }
    for (const auto *ports : {&part.inputs, &part.outputs})
        for (const auto &t : *ports) b.tensor(t);
    return std::move(b.s);
}

} // namespace

std::vector<partition_impl> find_partitions(const std::vector<op> &ops, partition::policy p) {
    std::map<size_t, size_t> producer;               // tensor id -> op index
    std::map<size_t, std::vector<size_t>> consumers; // tensor id -> op indices, one per use
    for (size_t i = 0; i < ops.size(); ++i) {
        for (const auto &lt : ops[i].get_outputs()) producer[lt.get_id()] = i;
        for (const auto &lt : ops[i].get_inputs()) consumers[lt.get_id()].push_back(i);
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
            if (!fusible(ops[j].get_kind())) continue;
            for (const auto &lt : ops[j].get_inputs()) {
                auto prod = producer.find(lt.get_id());
                if (prod == producer.end() || !fusible(ops[prod->second].get_kind())) continue;
                const auto &users = consumers[lt.get_id()];
                if (std::all_of(users.begin(), users.end(), [&](size_t u) { return u == j; }))
                    region[find(prod->second)] = find(j);
            }
        }
    }

    // Build partitions in the order of their roots (the last op of each region).
    std::map<size_t, std::vector<size_t>> members; // root -> op indices in execution order
    for (size_t i = 0; i < ops.size(); ++i)
        if (fusible(ops[i].get_kind())) members[find(i)].push_back(i);
    std::vector<partition_impl> result;
    for (const auto &[root, idx] : members) {
        partition_impl part;
        std::map<size_t, bool> produced_inside;
        for (size_t i : idx) {
            part.ops.push_back(ops[i]);
            for (const auto &lt : ops[i].get_outputs()) produced_inside[lt.get_id()] = true;
        }
        for (const op &o : part.ops)
            for (const auto &lt : o.get_inputs()) {
                bool seen = std::any_of(part.inputs.begin(), part.inputs.end(),
                                        [&](const logical_tensor &x) { return x.get_id() == lt.get_id(); });
                if (!produced_inside.count(lt.get_id()) && !seen) part.inputs.push_back(lt);
            }
        part.outputs = ops[root].get_outputs();
        part.signature = signature(part);
        result.push_back(std::move(part));
    }
    return result;
}

} // namespace fusebox::detail
