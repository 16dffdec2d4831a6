#include <algorithm>
#include <map>
#include <set>

#include "interface/dtype.hpp"
#include "interface/errors.hpp"
#include "interface/graph_impl.hpp"
#include "interface/op_schema.hpp"
#include "partition/partitioner.hpp"

namespace fusebox {
namespace {

using detail::fail;
using dims = logical_tensor::dims;

logical_tensor with_shape(const logical_tensor &lt, data_type dt, const dims &shape) {
    if (lt.get_layout_type() == logical_tensor::layout_type::strided && lt.get_strides().size() == shape.size() &&
        lt.get_ndims() == static_cast<int32_t>(shape.size()))
        return logical_tensor(lt.get_id(), dt, shape, lt.get_strides(), lt.get_property_type());
    auto layout = lt.get_layout_type() == logical_tensor::layout_type::undef ? logical_tensor::layout_type::any
                                                                             : lt.get_layout_type();
    return logical_tensor(lt.get_id(), dt, shape, layout, lt.get_property_type());
}

logical_tensor with_type(const logical_tensor &lt, data_type dt) {
    if (lt.get_ndims() >= 0) return with_shape(lt, dt, lt.get_dims());
    auto layout = lt.get_layout_type() == logical_tensor::layout_type::undef ? logical_tensor::layout_type::any
                                                                             : lt.get_layout_type();
    return logical_tensor(lt.get_id(), dt, layout);
}

// Combines two descriptors of one tensor id; throws when they contradict.
logical_tensor merge_descriptors(const logical_tensor &known, const logical_tensor &seen, size_t op_id) {
    auto conflict = [&](const char *what) {
        fail(status::invalid_graph, "op ", op_id, ": tensor id ", seen.get_id(), " is used with another ", what, " (",
             data_type_name(seen.get_data_type()), detail::shape_str(seen), " vs ",
             data_type_name(known.get_data_type()), detail::shape_str(known), ")");
    };
    data_type dt = known.get_data_type();
    if (seen.get_data_type() != data_type::undef) {
        if (dt != data_type::undef && dt != seen.get_data_type()) conflict("data type");
        dt = seen.get_data_type();
    }
    if (known.get_ndims() < 0) return with_type(seen, dt);
    if (seen.get_ndims() < 0) return with_type(known, dt);
    if (known.get_ndims() != seen.get_ndims()) conflict("rank");
    dims shape = known.get_dims();
    for (size_t i = 0; i < shape.size(); ++i) {
        int64_t s = seen.get_dims()[i];
        if (s >= 0 && shape[i] >= 0 && s != shape[i]) conflict("shape");
        if (shape[i] < 0) shape[i] = s;
    }
    const bool both_strided = known.get_layout_type() == logical_tensor::layout_type::strided &&
                              seen.get_layout_type() == logical_tensor::layout_type::strided;
    if (both_strided && known.has_known_shape() && seen.has_known_shape() && known.get_strides() != seen.get_strides())
        conflict("layout (strides)");
    return with_shape(known.get_layout_type() == logical_tensor::layout_type::strided ? known : seen, dt, shape);
}

} // namespace

graph::graph(engine::kind k) : impl_(std::make_shared<detail::graph_impl>()) { impl_->engine_kind = k; }

bool graph::is_finalized() const { return impl_->finalized; }

void graph::add_op(const op &o) {
    if (impl_->finalized) fail(status::invalid_graph, "op ", o.get_id(), ": graph is already finalized");
    for (const op &existing : impl_->ops)
        if (existing.get_id() == o.get_id())
            fail(status::invalid_graph, "op ", o.get_id(), ": op id is already in the graph");
    detail::validate_op(o);
    impl_->ops.push_back(o);
}

void graph::finalize() {
    if (impl_->finalized) return;
    std::vector<op> &ops = impl_->ops;

    // One descriptor per tensor id, one producer per tensor.
    std::map<size_t, logical_tensor> tensors;
    std::map<size_t, size_t> producer; // tensor id -> op index
    auto note = [&](const logical_tensor &lt, size_t op_id) {
        auto [it, inserted] = tensors.emplace(lt.get_id(), lt);
        if (!inserted) it->second = merge_descriptors(it->second, lt, op_id);
    };
    for (size_t i = 0; i < ops.size(); ++i) {
        for (const auto &lt : ops[i].get_inputs()) note(lt, ops[i].get_id());
        for (const auto &lt : ops[i].get_outputs()) {
            note(lt, ops[i].get_id());
            auto [it, inserted] = producer.emplace(lt.get_id(), i);
            if (!inserted)
                fail(status::invalid_graph, "tensor id ", lt.get_id(), " is produced by both op ",
                     ops[it->second].get_id(), " and op ", ops[i].get_id());
        }
    }

    // Topological order (stable: ready ops run in add order); a leftover op means a cycle.
    std::vector<size_t> order, pending(ops.size());
    std::vector<std::vector<size_t>> users(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        for (const auto &lt : ops[i].get_inputs())
            if (auto p = producer.find(lt.get_id()); p != producer.end()) {
                if (p->second == i) fail(status::invalid_graph, "op ", ops[i].get_id(), " consumes its own output");
                users[p->second].push_back(i), ++pending[i];
            }
    std::set<size_t> ready;
    for (size_t i = 0; i < ops.size(); ++i)
        if (!pending[i]) ready.insert(i);
    while (!ready.empty()) {
        size_t i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (size_t u : users[i])
            if (--pending[u] == 0) ready.insert(u);
    }
    if (order.size() != ops.size()) fail(status::invalid_graph, "graph has a cycle");

    // Infer types and shapes in execution order and write them back into the ops.
    std::vector<op> ordered;
    for (size_t i : order) {
        op o = ops[i];
        for (auto &lt : o.inputs_) {
            lt = tensors.at(lt.get_id());
            if (lt.get_data_type() == data_type::undef)
                fail(status::invalid_data_type, "op ", o.get_id(), ": input tensor ", lt.get_id(),
                     " has no data type and no producer to infer it from");
        }
        if (o.get_kind() != op::kind::End) {
            detail::validate_op(o); // input types are all known now
            const auto &a = o.inputs_[0], &b = o.inputs_[1];
            data_type dt = detail::binary_output_type(o.get_kind(), a.get_data_type(), b.get_data_type());
            logical_tensor inferred = with_type(o.outputs_[0], dt);
            if (a.get_ndims() >= 0 && b.get_ndims() >= 0)
                inferred = with_shape(
                    o.outputs_[0], dt,
                    detail::infer_binary_shape(o, detail::read_broadcast_rule(o), a.get_dims(), b.get_dims()));
            logical_tensor &out = tensors.at(o.outputs_[0].get_id());
            out = merge_descriptors(out, inferred, o.get_id());
            o.outputs_[0] = out;
        }
        ordered.push_back(std::move(o));
    }
    ops = std::move(ordered);
    impl_->finalized = true;
}

std::vector<partition> graph::get_partitions(partition::policy p) {
    if (!impl_->finalized)
        fail(status::invalid_graph, "get_partitions: graph is not finalized (call finalize() first)");
    std::vector<partition> result;
    for (auto &region : detail::find_partitions(impl_->ops, p)) {
        region.id = result.size();
        region.engine_kind = impl_->engine_kind;
        partition part;
        part.impl_ = std::make_shared<const detail::partition_impl>(std::move(region));
        result.push_back(std::move(part));
    }
    return result;
}

} // namespace fusebox
